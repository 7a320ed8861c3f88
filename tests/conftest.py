"""Shared fixtures of the formulation and estimator tests: small, seeded data sets.

Every fixture returns a plain dict of NumPy arrays so tests can build whatever
reference they need (libsvm, ``scipy.optimize.linprog``, closed forms) from the
same numbers the estimator sees.  Fixture names are specific (``sigmoid_problem``,
...) so they do not shadow the local fixtures of other test modules.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (loads SciPy's BLAS before the limit below)
from threadpoolctl import threadpool_limits

from krein.kernels import gaussian_kernel, sigmoid_kernel

# One BLAS / OpenMP thread per test process.  The tests use small matrices, on which
# multi-threaded BLAS only spins: on two cores the suite takes several times longer with
# numpy's default threads than with one.  threadpoolctl limits the
# libraries loaded in this process, now and again after collection (the test modules load
# more: scikit-learn's OpenMP, solvers' own BLAS, ...).  The environment variables reach
# child processes (experiment scripts, joblib / dask workers) unless set explicitly; they
# are set only after collection because an OpenBLAS loaded under OPENBLAS_NUM_THREADS=1
# cannot be raised again, which would defeat the opt-out: a test about threading is marked
# ``@pytest.mark.blas_threads(None)`` (the libraries' defaults) or ``blas_threads(k)``.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
_SESSION_LIMIT = threadpool_limits(limits=1)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "blas_threads(n): run this test with n BLAS/OpenMP threads "
        "(None: the libraries' defaults) instead of the session's one thread")


#: Test functions that run a paper script (``experiments/*.py``) or a benchmark, by
#: ``(test module, function)``; the items that use the ``run_quick_script`` fixture
#: (directly or through a module fixture) are found without being listed.
SCRIPT_TESTS = {
    ("test_experiment", "test_every_experiment_script_runs_quick"),
    ("test_haasdonk_table1", "test_quick_run"),
}


#: The heaviest of the other tests, by ``{test module: functions}``: each takes 1 s or more
#: (summed over its parameters) in ``pytest -m "not slow" --durations=0`` on a 2-core
#: machine: end-to-end runs of ``krein compare`` / the runner / README commands,
#: processes, and the algorithm cross-checks against CVXPY or each other.  Together they
#: are about 90 % of the rest's time; without them the fast suite takes about a minute.
#: A new heavy test is added here (tests/README.md).
HEAVY_TESTS = {
    "test_many_classes": ("test_parallel_pairs_equal_serial_exactly",),
    "test_pair_jobs": ("test_joblib_cells_on_all_cores_get_one",
                       "test_rvc_one_vs_rest_problems_over_joblib_processes"),
    "test_scale_grids": ("test_K_and_1e4_K_choose_the_same_models", "test_the_scale_is_recorded",
                         "test_user_grid_values_stay_absolute"),
    "test_honest_status": ("test_summary_counts_warnings_and_inner_failures",
                           "test_summary_csv_and_status_column", "test_page_badge_is_not_ok",
                           "test_distance_matrix_given_as_kernel_warns_once"),
    "test_chen2009_experiment": ("test_full_grid_is_the_protocol",),
    "test_regressor_defaults": ("test_default_regressor_fits_the_check_data",),
    "test_nearest_psd": ("test_default_fits_a_kernel_with_negative_self_similarities",),
    "test_predefined_split": (
        "test_kernel_file_split_is_gridsearchcv_on_the_training_kernel",
        "test_dissimilarity_file_split_uses_the_training_centering",
        "test_feature_file_split_scales_with_the_training_rows",
        "test_python_comparison_with_test_files", "test_coilyork_compare_uses_its_own_split",
        "test_test_correct_survives_the_results_file"),
    "test_significance_marks": (
        "test_summary_csv_and_terminal_table", "test_page_states_the_test_and_marks_the_group",
        "test_reader_refuses_a_garbled_p_value", "test_edge_text_matches_the_grids_as_run",
        "test_page_marks_a_significantly_worse_method",
        "test_page_of_a_directory_without_the_significance_columns"),
    "test_statistics": ("test_cd_diagram_joins_the_groups",
                        "test_results_table_ranks_the_columns_over_the_data_sets"),
    "test_chen2009_data": ("test_compare_and_report_name_the_set_and_its_citation",),
    "test_accpm": (
        "test_accpm_cvxpy_centers_follow_newton_centers",
        "test_accpm_matches_projected_gradient", "test_accpm_matches_sdp10",
        "test_beta0_near_optimum_gives_a_head_start",
        "test_cvxpy_center_inaccurate_status_is_used_and_other_failures_raise",
        "test_localization_bound_certifies_without_libsvm",
        "test_package_dispatchers_call_accpm", "test_pruning_triggers_and_converges",
        "test_solution_contract",
    ),
    "test_approximate_estimators": (
        "test_low_rank_esvc_is_close_to_the_exact_one_on_the_checkerboard",
        "test_spectrum_svc_at_full_rank_is_the_exact_one",
        "test_fitting_never_forms_an_n_by_n_array",
    ),
    "test_approximation": (
        "test_dask_arrays_give_the_in_memory_features",
        "test_error_decreases_with_the_landmarks",
        "test_error_decreases_with_the_landmarks_on_dissimilarities",
    ),
    "test_certificates": (
        "test_one_class_defaults_converge_on_an_indefinite_kernel",
        "test_reported_gap_is_certified_and_near_the_exact_gap",
    ),
    "test_class_weight": (
        "test_indefinite_svc_algorithms_agree_with_vector_box",
        "test_perturbsvc_cvxpy_and_pg_agree_with_vector_box",
        "test_weighted_optimal_intercept_brute_force",
    ),
    "test_compare_dask": ("test_dask_run_gives_the_local_tables",
                          "test_a_client_is_used_and_left_open",
                          "test_bad_address_is_one_line_exit_2_nothing_written"),
    "test_compare_protocol": ("test_threshold_switches_to_one_validation_split",
                              "test_validation_split_is_gridsearchcv_on_one_stratified_"
                              "shuffle_split"),
    "test_compare_timing": ("test_the_total_covers_the_boundaries_and_the_files",
                            "test_cached_features_give_the_uncached_fold_accuracies"),
    "test_cli": (
        "test_compare_cli_dissimilarity", "test_compare_prints_table_and_writes_files",
        "test_compare_runs_the_krein_and_pseudo_euclidean_methods",
        "test_diagnose_multiclass_skips_label_criteria",
        "test_diagnose_prints_haasdonk_criteria", "test_diagnose_sonar",
        "test_compare_cli_pick_out_munoz_ionosphere",
    ),
    "test_combinations": (
        "test_compare_munoz_artificial_runs",
    ),
    "test_compare_approximation": (
        "test_all_landmarks_give_the_exact_runs_folds",
        "test_memory_at_n_20000_stays_far_below_n_squared",
        "test_no_kernel_matrix_anywhere_with_tuning_and_outputs",
    ),
    "test_compare_files": (
        "test_bad_input_is_one_line_exit_2_nothing_written",
        "test_distance_matrix_as_whitespace_text", "test_every_fit_failing_exits_nonzero",
        "test_feature_files", "test_kernel_file_formats_give_the_same_table",
        "test_numeric_labels_are_class_names", "test_symmetrize_is_recorded",
    ),
    "test_compare_tuning": (
        "test_compare_tunes_by_default_and_records_the_choice",
        "test_inner_selection_is_gridsearchcv_on_the_same_folds", "test_no_tune_and_fixed_C",
        "test_readme_python_example_matches_the_main_job", "test_same_seed_same_table",
    ),
    "test_conformal": (
        "test_optimizer_no_worse_than_paper_search", "test_output_psd",
        "test_transform_reproduces_fitted_block",
    ),
    "test_diagnostics": (
        "test_least_eigenvalue_of_a_rank_deficient_gram_matrix_is_zero",
        "test_uniform_diagnostics",
    ),
    "test_exchange": (
        "test_componentwise_weights", "test_every_upper_bound_in_the_trace_is_valid",
        "test_exchange_matches_projected_gradient", "test_exchange_matches_the_sdp",
        "test_level_step_converges_where_the_plain_step_crawls", "test_pruning_keeps_the_answer",
        "test_scs_and_ecos",
        "test_max_iter_warns_and_returns_certified_point",
        "test_exchange_bound_holds_for_any_weights",
    ),
    "test_experiment": (
        "test_cli_table_and_plot", "test_committed_slim_results_split_by_data_set",
        "test_dask_local_cluster_equals_serial", "test_determinism_rerun_and_errors",
        "test_joblib_equals_serial", "test_keys_are_hashes_of_the_stored_configuration",
        "test_results_file_is_always_complete_under_sigkill", "test_resume_after_sigkill",
        "test_synthetic_results_never_pool_silently",
        "test_same_folds_for_every_method",
        "test_figures_and_traces_from_results",
    ),
    "test_faults_files": (
        "test_a_held_directory_is_skipped_and_force_refused",
        "test_any_file_name_gives_a_run_name", "test_full_tmpfs_compare_out",
        "test_resume_recomputes_only_missing_cells",
        "test_two_processes_same_stem_get_two_directories",
        "test_workers_end_with_a_killed_parent",
    ),
    "test_faults_results": (
        "test_truncated_row_is_refused_and_recomputed",
        "test_duplicate_key_is_refused_and_recomputed",
    ),
    "test_formulations": (
        "test_lpsvm_matches_linprog",
    ),
    "test_haasdonk_table1": (
        "test_classification_cell_loo_against_cross_val_score",
        "test_script_loo_cell_against_cross_val_score",
    ),
    "test_indefinite_core": (
        "test_gradient_methods_match_sdp10",
        "test_intercept_is_the_kkt_intercept_at_the_optimum", "test_oracle_matches_dense_eigh",
        "test_projection_matches_cvxpy", "test_rho_to_infinity_tends_to_clipped_svm",
        "test_solution_carries_intercept_and_test_coefficients", "test_solution_contract",
    ),
    "test_indefinite_estimators": (
        "test_all_algorithms_agree", "test_fitted_model_rejects_wrong_test_rows",
        "test_multiclass_one_vs_one",
        "test_one_class_rho_to_infinity_tends_to_one_class_svm_on_clipped_kernel",
        "test_psd_kernel_indefinite_svc_equals_perturbsvc", "test_spectral_training_decisions",
        "test_svc_rho_to_infinity_tends_to_svm_on_clipped_kernel",
        "test_svr_and_one_class_fitted_attributes",
        "test_svr_rho_to_infinity_tends_to_svr_on_clipped_kernel",
        "test_test_kernels_differ_on_an_indefinite_kernel",
        "test_test_kernels_named_and_precomputed",
    ),
    "test_luss_figures": (
        "test_fig1_reference_optimum_is_the_sdp_value",
    ),
    "test_nearest_psd": (
        "test_dykstra_equals_sdp",
    ),
    "test_readme": (
        "test_readme_command",
    ),
    "test_report_page": (
        "test_a_minimal_run_json_still_renders", "test_empty_summary_still_renders",
        "test_figures_from_the_files_only", "test_missing_file_is_named",
        "test_page_and_figures_are_written", "test_without_2d_files_no_boundaries",
        "test_page_parses_with_its_sections",
    ),
    "test_compare_auc": (
        "test_fold_auc_is_roc_auc_of_the_decision_values", "test_files_page_and_terminal_show_auc",
        "test_files_without_the_auc_columns_still_read", "test_multiclass_has_no_auc",
    ),
    "test_probability": (
        "test_every_registered_classifier_has_probabilities",
    ),
    "test_rvm": (
        "test_indefinite_sigmoid_kernel_runs_as_is",
    ),
    "test_scale_covariance": (
        "test_scale_covariance",
    ),
    "test_shared_computations": (
        "test_cells_identical_with_and_without_the_context",
        "test_one_eigh_per_distinct_block_with_a_grid", "test_per_fold_dissimilarity_kernels",
    ),
    "test_solver_study": (
        "test_every_formulation_gives_one_optimum_across_two_solvers",
    ),
    "test_spectrum": (
        "test_corrected_kernel_is_psd_and_matches_munoz",
        "test_corrected_kernel_psd_with_zero_eigenvalues",
        "test_row_map_reproduces_training_kernel",
        "test_row_map_reproduces_training_kernel_singular",
    ),
    "test_compare_spine": (
        "test_boundary_fits_are_cells_of_the_runner",
    ),
    "test_data_door": (
        "test_door_loads_without_the_estimators",
    ),
    "test_cli_thin": (
        "test_diagnose_reuses_the_data_spectrum_and_matches_the_command",
    ),
    # the documentation site built with -W (about 100 s of CPU), once, and
    # every check of the built pages
    "test_docs": ("test_site_builds_and_documents_everything",),
}


#: Module fixtures that run a whole ``krein compare`` or every README command, by
#: ``(test module, fixture)``: an item that uses one is slow wherever it comes first.
END_TO_END_FIXTURES = {("test_cli", "checkerboard_run"), ("test_readme", "session"),
                       ("test_compare_protocol", "recorded_run")}


def _is_sklearn_check(item):
    """An item of scikit-learn's ``parametrize_with_checks`` (parameters ``estimator``, ``check``)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return "estimator" in params and ("check" in params or "check_name" in params)


def _runs_a_script(item):
    """An item that runs ``experiments/*.py`` (or a benchmark): by fixture, function or README command."""
    if "run_quick_script" in getattr(item, "fixturenames", ()):
        return True
    if (item.path.stem, getattr(item, "originalname", item.name)) in SCRIPT_TESTS:
        return True
    return item.path.stem == "test_readme" and any(
        word in item.name for word in ("experiments/", "benchmarks/"))


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` the scikit-learn checks, the paper-script runs and :data:`HEAVY_TESTS`.

    ``python -m pytest -m "not slow"`` is then the fast suite of a developer; CI runs all.
    """
    for item in items:
        heavy = getattr(item, "originalname", item.name) in HEAVY_TESTS.get(item.path.stem, ()) or \
            any((item.path.stem, f) in END_TO_END_FIXTURES for f in getattr(item, "fixturenames", ()))
        if _is_sklearn_check(item) or _runs_a_script(item) or heavy:
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session):
    global _SESSION_LIMIT
    _SESSION_LIMIT.restore_original_limits()       # so the new limiter records the defaults
    _SESSION_LIMIT = threadpool_limits(limits=1)   # of every library loaded by now
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")


@pytest.fixture(autouse=True)
def _blas_threads(request):
    """Lift the one-thread limit for tests marked ``blas_threads``."""
    marker = request.node.get_closest_marker("blas_threads")
    if marker is None:
        yield
        return
    n = marker.args[0] if marker.args else None
    _SESSION_LIMIT.restore_original_limits()
    try:
        if n is None:
            yield
        else:
            with threadpool_limits(limits=n):
                yield
    finally:
        threadpool_limits(limits=1)

#: Sigmoid parameters giving a strongly indefinite kernel on the data below
#: (least eigenvalue about -23 against a largest of about +13 on the 40 training points).
SIGMOID_PARAMS = {"a": 0.5, "r": -1.0}
GAUSSIAN_PARAMS = {"gamma": 0.5}


def _split(X, y, n_train):
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


def _linear_labels(X, rng, noise=0.3):
    return np.where(X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=X.shape[0]) > 0, 1, -1)


@pytest.fixture(scope="session")
def sigmoid_problem():
    """Two classes, 40 training and 20 test points in R^4, sigmoid kernel (indefinite).

    Keys: X, X_test, y, y_test (labels in {-1, +1}), K (40 x 40), K_test (20 x 40),
    K_test_test (20 x 20), params (kernel_params of the sigmoid), lam_min, lam_max.
    """
    rng = np.random.default_rng(0)
    X_all = rng.normal(size=(60, 4))
    y_all = _linear_labels(X_all, rng)
    X, X_test, y, y_test = _split(X_all, y_all, 40)
    K_all = sigmoid_kernel(X_all, **SIGMOID_PARAMS)
    K = K_all[:40, :40]
    lam = np.linalg.eigvalsh(K)
    return {
        "X": X, "X_test": X_test, "y": y, "y_test": y_test,
        "K": K, "K_test": K_all[40:, :40], "K_test_test": K_all[40:, 40:],
        "params": dict(SIGMOID_PARAMS), "lam_min": float(lam[0]), "lam_max": float(lam[-1]),
    }


@pytest.fixture(scope="session")
def gaussian_problem():
    """Two classes, 30 training and 20 test points in R^3, Gaussian (PSD) kernel.

    Keys: X, X_test, y, y_test, K (30 x 30), K_test (20 x 30), params.
    """
    rng = np.random.default_rng(1)
    X_all = rng.normal(size=(50, 3))
    y_all = _linear_labels(X_all, rng, noise=0.5)
    X, X_test, y, y_test = _split(X_all, y_all, 30)
    K_all = gaussian_kernel(X_all, **GAUSSIAN_PARAMS)
    return {
        "X": X, "X_test": X_test, "y": y, "y_test": y_test,
        "K": K_all[:30, :30], "K_test": K_all[30:, :30], "params": dict(GAUSSIAN_PARAMS),
    }


@pytest.fixture(scope="session")
def three_class_problem():
    """Three classes (0, 1, 2), 45 training and 15 test points in R^3, both kernels.

    Keys: X, X_test, y, y_test, K_sig / K_sig_test (sigmoid), K_rbf / K_rbf_test (Gaussian).
    """
    rng = np.random.default_rng(2)
    X_all = rng.normal(size=(60, 3))
    y_all = np.digitize(X_all[:, 0] + 0.3 * X_all[:, 1] + 0.2 * rng.normal(size=60), [-0.5, 0.5])
    X, X_test, y, y_test = _split(X_all, y_all, 45)
    Ks = sigmoid_kernel(X_all, **SIGMOID_PARAMS)
    Kg = gaussian_kernel(X_all, **GAUSSIAN_PARAMS)
    return {
        "X": X, "X_test": X_test, "y": y, "y_test": y_test,
        "K_sig": Ks[:45, :45], "K_sig_test": Ks[45:, :45],
        "K_rbf": Kg[:45, :45], "K_rbf_test": Kg[45:, :45],
    }


#: The experiment scripts (``experiments/*.py``).
EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="session")
def separated():
    """Two well-separated Gaussian clouds (20 + 20 training, 15 + 15 test), Gaussian kernel.

    ``(K, y, K_test, y_test)``: the probability tests' problem, on which every classifier's
    ``predict_proba`` agrees with its ``predict``.
    """
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(c, 1.0, size=(35, 2)) for c in ((-2.0, 0.0), (2.0, 0.0))])
    y = np.repeat(np.arange(2), 35)
    test = np.r_[20:35, 55:70]
    train = np.setdiff1d(np.arange(70), test)
    Xtr, Xte = X[train], X[test]
    return (gaussian_kernel(Xtr, Xtr, gamma=0.5), y[train], gaussian_kernel(Xte, Xtr, gamma=0.5),
            y[test])


def _run_quick_script(name, directory, figures=True):
    """Run ``experiments/NAME.py --quick`` through the command line into ``directory``.

    Asserts exit status 0 and every cell "ok"; returns the results (``read_results``)
    and the sorted names of the PNG files drawn (none with ``figures=False``).
    """
    from krein.cli import main
    from krein.experiment.report import read_results

    out, figs = Path(directory) / "out", Path(directory) / "figs"
    args = ["experiment", "run", str(EXPERIMENTS / f"{name}.py"), "--quick", "--out", str(out),
            "--no-progress"] + (["--figures", str(figs)] if figures else ["--no-figures"])
    assert main(args) == 0
    df = read_results(out)
    assert (df["status"] == "ok").all(), df.loc[df["status"] != "ok", "error"].tolist()[:3]
    return df, sorted(p.name for p in figs.glob("*.png"))


@pytest.fixture(scope="session")
def run_quick_script():
    """:func:`_run_quick_script`: one paper script's ``--quick`` run (the reproduction tests)."""
    return _run_quick_script


# ----------------------------------------------------------------- helpers shared by test files
def _assert_psd(A, rtol=1e-10):
    """Assert that the symmetric part of ``A`` is PSD: least eigenvalue >= ``-rtol * max |lam|``."""
    lam = np.linalg.eigvalsh(0.5 * (A + A.T))
    scale = max(np.max(np.abs(lam)), 1e-300)
    assert lam.min() >= -rtol * scale, f"least eigenvalue {lam.min():.3g} (max |lam| {scale:.3g})"


@pytest.fixture(scope="session")
def assert_psd():
    """:func:`_assert_psd` (the spectrum, bending and conformal tests)."""
    return _assert_psd


def _higham_closed_form():
    """The nearest correlation matrix of Higham's ``A = [[1, 1, 0], [1, 1, 1], [0, 1, 1]]``, by hand.

    By the symmetry of ``A`` (reversal of the indices) the solution is
    ``X = [[1, a, b], [a, 1, a], [b, a, 1]]``.  Its eigenvalues are ``1 - b``
    (eigenvector ``(1, 0, -1)``) and those of ``[[1 + b, sqrt(2) a], [sqrt(2) a, 1]]``,
    so ``X`` is PSD iff ``b <= 1`` and ``1 + b >= 2 a^2``.  The distance
    ``||A - X||_F^2 = 4 (1 - a)^2 + 2 b^2`` is minimized on the active constraint
    ``b = 2 a^2 - 1``, where its derivative in ``a`` vanishes:
    ``-8 (1 - a) + 16 a (2 a^2 - 1) = 0``, i.e. ``4 a^3 - a - 1 = 0``.

    Returns ``(X, ||A - X||_F)``.
    """
    roots = np.roots([4.0, 0.0, -1.0, -1.0])
    a = float(roots[np.abs(roots.imag) < 1e-12].real[0])
    b = 2 * a * a - 1
    X = np.array([[1, a, b], [a, 1, a], [b, a, 1.0]])
    return X, float(np.sqrt(4 * (1 - a) ** 2 + 2 * b * b))


@pytest.fixture(scope="session")
def higham_closed_form():
    """:func:`_higham_closed_form` (the nearest-PSD tests: alternating projections, Newton)."""
    return _higham_closed_form


def _random_symmetric(n, seed, shift=2.0):
    """Symmetric indefinite matrix with a positive diagonal (``shift`` on the diagonal)."""
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    return (B + B.T) / 4 + shift * np.eye(n)


@pytest.fixture(scope="session")
def random_symmetric():
    """:func:`_random_symmetric` (the nearest-PSD tests)."""
    return _random_symmetric
