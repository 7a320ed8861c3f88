"""The interior-point linear SVM (krein/solvers/linear_ipm.py) and its ``solver="ipm"`` callers.

Against independent solvers (CVXPY with CLARABEL on the primal, scikit-learn's
``SVC(kernel="linear")`` = libsvm) on small dense problems: the primal objective to
the sum of the certified duality gaps, the weight to ``sqrt(2 * gaps)`` (the primal is
1-strongly convex in ``w``); the one-dimensional intercept against a brute-force
search; the preconditioned path taken at large ``n`` (no direct factorization, few
iterations); and ModSVC, SimilaritySpaceSVC, TrIK-SVM and the square correction with
``solver="ipm"`` and every training point a landmark = the exact estimators.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from krein.approximation import IndefiniteNystroem
from krein.datasets import make_checkerboard
from krein.estimators import ESVC, ModSVC, SimilaritySpaceSVC, SpectrumSVC
from krein.kernels import pairwise_kernel
from krein.registry import approximation_defaults
from krein.solvers.linear import linear_svm, linear_svm_certificate
from krein.solvers.linear_ipm import linear_svm_ipm, optimal_intercept

SIGMOID = {"a": 0.5, "r": -1.0}


def _problem(n, d, seed, per_sample):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.2, 3.0, d)
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.8 * rng.standard_normal(n) > 0.3, 1.0, -1.0)
    C = rng.uniform(0.2, 5.0, n) if per_sample else 2.0
    return X, y, C


def _abs_gap(cert):
    return cert["gap"] * max(1.0, abs(cert["objective"]))


@pytest.mark.parametrize("n, d, per_sample", [(120, 3, False), (300, 20, True),
                                              (200, 60, False), (700, 300, True)])
def test_ipm_against_clarabel_and_libsvm(n, d, per_sample):
    """Objective and weight of the IPM = CVXPY/CLARABEL's and libsvm's, to the certified
    gaps; d = 300 runs the preconditioned normal equations."""
    X, y, C = _problem(n, d, n + d, per_sample)
    w, b, sol = linear_svm(X, y, C, solver="ipm", tol=1e-7)
    assert sol.solver == "ipm" and sol.status == "converged" and sol.certificate_kind == "gap"
    assert 0 <= sol.gap <= 1e-7 and sol.primal_residual <= 1e-7
    w_ref, b_ref, ref = linear_svm(X, y, C, solver="CLARABEL")
    assert ref.gap <= 1e-6
    bound = _abs_gap(sol.certificate) + _abs_gap(ref.certificate)
    assert abs(sol.objective - ref.objective) <= bound
    assert np.linalg.norm(w - w_ref) <= np.sqrt(2 * bound)
    # libsvm (uncertified): its primal point is not below the IPM's certified lower bound
    svc = SVC(kernel="linear", C=1.0 if per_sample else C, tol=1e-8).fit(
        X, y, sample_weight=C if per_sample else None)
    lib = linear_svm_certificate(X, y, C, svc.coef_[0], svc.intercept_[0])
    assert lib["objective"] >= sol.certificate["dual_objective"] - 1e-9 * abs(lib["objective"])
    f, f_lib = X @ w + b, svc.decision_function(X)
    assert np.mean(np.sign(f) == np.sign(f_lib)) > 0.97


def test_optimal_intercept_against_a_search():
    """The minimizer of the weighted hinge sum over b = the best of a fine search."""
    rng = np.random.default_rng(3)
    f = rng.standard_normal(200)
    y = np.where(rng.random(200) < 0.4, 1.0, -1.0)
    C = rng.uniform(0.1, 2.0, 200)

    def loss(b):
        return float(C @ np.maximum(0.0, 1.0 - y * (f + b)))

    b = optimal_intercept(f, y, C)
    grid = np.r_[np.linspace(-5, 5, 20001), y - f]
    assert loss(b) <= min(loss(g) for g in grid) + 1e-12


def test_ipm_refuses_one_class():
    X = np.random.default_rng(0).standard_normal((10, 2))
    with pytest.raises(ValueError, match="both classes"):
        linear_svm_ipm(X, np.ones(10), 1.0)


def test_large_n_takes_the_preconditioned_path():
    """n = 6000 points, d = 300 collinear features: a handful of iterations, every Newton
    system by the preconditioned CG (no direct float64 factorization), gap <= 1e-6."""
    rng = np.random.default_rng(5)
    B = rng.standard_normal((40, 300))
    X = rng.standard_normal((6000, 40)) @ B + 0.05 * rng.standard_normal((6000, 300))
    y = np.where(X @ rng.standard_normal(300) + 3 * rng.standard_normal(6000) > 0, 1.0, -1.0)
    alpha, w, b, info = linear_svm_ipm(X, y, 1.0, tol=1e-6)
    assert info["status"] == "converged" and info["gap"] <= 1e-6
    assert info["iterations"] <= 50
    assert info["direct_factorizations"] == 0
    cert = linear_svm_certificate(X, y, 1.0, w, b, alpha)
    assert cert["gap"] == pytest.approx(info["gap"], rel=1e-6, abs=1e-12)


def test_reduced_preconditioner_keeps_the_rows_that_carry_the_normal_matrix():
    """Near the solution the preconditioner holds the rows of large estimated leverage only
    (a recorded count below n, decreasing towards the margin's rows), CG stays on it (no
    direct factorization, a few products per Newton system), and the solution = the one
    with every row in the preconditioner, to the certified gaps."""
    import krein.solvers.linear_ipm as ipm
    rng = np.random.default_rng(7)
    n, d = 8000, 300
    X = rng.standard_normal((n, d)) / np.sqrt(np.arange(1, d + 1))
    y = np.where(X[:, :20] @ rng.standard_normal(20) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    alpha, w, b, info = linear_svm_ipm(X, y, 1.0, tol=1e-6)
    assert info["status"] == "converged" and info["direct_factorizations"] == 0
    rows = info["preconditioner_rows"]
    assert len(rows) == info["iterations"] - 1 and rows[0] == n
    # the last systems on a fraction of the rows (a fall back to every row lasts to the end)
    assert max(rows[-3:]) <= n // 4
    assert info["products"] <= 12 * len(rows)    # CG converges on the reduced preconditioner
    # every row kept (the leverage test never drops any): the same problem to the gaps
    saved = ipm._MIN_DROPPED_FRACTION
    ipm._MIN_DROPPED_FRACTION = 2.0
    try:
        alpha_f, w_f, b_f, full = linear_svm_ipm(X, y, 1.0, tol=1e-6)
    finally:
        ipm._MIN_DROPPED_FRACTION = saved
    assert full["preconditioner_rows"] == [n] * len(full["preconditioner_rows"])
    gaps = sum(i["gap"] * max(1.0, abs(i["primal_objective"])) for i in (info, full))
    assert abs(info["primal_objective"] - full["primal_objective"]) <= gaps
    assert np.linalg.norm(w - w_f) <= np.sqrt(2 * gaps)


def test_bordered_single_precision_normal_matrix():
    """The preconditioner's matrix from the bordered float32 rows [Phi, 1] (one ssyrk on the
    kept rows) = E + Phi~' diag(theta) Phi~ formed in float64, to single-precision round-off."""
    from krein.solvers.linear_ipm import _NormalEquations
    rng = np.random.default_rng(11)
    X = rng.standard_normal((500, 300))
    theta = rng.uniform(1e-3, 2.0, 500)
    keep = np.sort(rng.choice(500, 350, replace=False))
    Phi32 = np.hstack([X, np.ones((500, 1))]).astype(np.float32)
    ne = _NormalEquations(X, theta, None, None)          # exact: no preconditioner built
    G32 = ne._bordered_normal(Phi32, keep, theta)
    G64 = ne._normal(X[keep], theta[keep])
    assert G32.dtype == np.float64 and G32.shape == (301, 301)
    assert np.abs(G32 - G64).max() <= 1e-5 * np.abs(G64).max()
    assert np.allclose(np.diag(G32)[:300] - np.einsum("ij,i,ij->j", X[keep], theta[keep],
                                                      X[keep]), 1.0, atol=1e-3)


# ------------------------------------------------------------- the estimators at full rank
@pytest.fixture(scope="module")
def data():
    X, y = make_checkerboard(140, random_state=2)
    Xt, _ = make_checkerboard(60, random_state=3)
    y3 = np.where(X[:, 0] > 0.5, 2, y)
    K = pairwise_kernel("sigmoid", X, X, SIGMOID)
    Kt = pairwise_kernel("sigmoid", Xt, X, SIGMOID)
    return K, Kt, y, y3


def _full_rank(K):
    return IndefiniteNystroem(kernel="precomputed", landmark_block=K, rcond=1e-12)


def _assert_close(got, want):
    # the IPM's relative gap (target 1e-10; round-off stops it near 1e-9) controls the weight
    # to sqrt(2 * gap * P) (1-strong convexity in w): ~1e-4 of the decision values here
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max())


def test_mod_svm_ipm_at_full_rank_is_libsvm(data):
    K, Kt, yy, _ = data
    exact = ModSVC(kernel="precomputed", solver="libsvm", solver_options={"tol": 1e-10}).fit(K, yy)
    ipm = ModSVC(kernel="precomputed", solver="ipm", solver_options={"tol": 1e-10},
                 approximation=_full_rank(K)).fit(K, yy)
    assert all(m.info["solution"].solver == "ipm" for m in ipm.binary_models_)
    _assert_close(ipm.decision_function(Kt), exact.decision_function(Kt))


def test_similarity_linear_ipm_at_full_rank_is_exact(data):
    K, Kt, _, y3 = data
    exact = SimilaritySpaceSVC(kernel="precomputed", C=2.0, tol=1e-10).fit(K, y3)
    ipm = SimilaritySpaceSVC(kernel="precomputed", C=2.0, tol=1e-10, solver="ipm",
                             approximation=_full_rank(K)).fit(K, y3)
    assert ipm.solver_ == "ipm"
    _assert_close(ipm.decision_function(Kt), exact.decision_function(Kt))


def test_trik_ipm_at_full_rank_is_the_exact_trik_svm(data):
    K, Kt, y, _ = data
    kw = dict(kernel="precomputed", C=1.0, tol=1e-10, decomposition="ldl")
    exact = ESVC(**kw).fit(K, y)
    ipm = ESVC(solver="ipm", approximation=_full_rank(K), **kw).fit(K, y)
    assert ipm.solution_.solver == "ipm"
    _assert_close(ipm.decision_function(Kt), exact.decision_function(Kt))


def test_square_ipm_at_full_rank_is_the_exact_square(data):
    K, Kt, y, y3 = data
    kw = dict(kernel="precomputed", C=0.5, tol=1e-10, correction="square",
              out_of_sample="spectral")
    exact = SpectrumSVC(**kw).fit(K, y)
    ipm = SpectrumSVC(solver="ipm", approximation=_full_rank(K), **kw).fit(K, y)
    _assert_close(ipm.decision_function(Kt), exact.decision_function(Kt))


def test_ipm_needs_an_approximation(data):
    K, _, y, _ = data
    with pytest.raises(ValueError, match="ipm"):
        ModSVC(kernel="precomputed", solver="ipm").fit(K, y)
    with pytest.raises(ValueError, match="ipm"):
        ESVC(kernel="precomputed", solver="ipm").fit(K, y)


@pytest.mark.parametrize("method", ["trik-svm", "square", "mod-svm", "similarity-linear"])
def test_registry_runs_the_ipm_on_the_approximate_path(method):
    params, notes = approximation_defaults(method)
    assert params["solver"] == "ipm"
    assert any("interior-point" in note for note in notes)
