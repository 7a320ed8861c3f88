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
# multi-threaded BLAS only spins: on a busy 2-core CI machine the suite took 22-26 minutes
# with numpy's default threads and about 4 minutes with one.  threadpoolctl limits the
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
    """Mark ``slow`` the scikit-learn check items and the paper-script runs (tests/README.md).

    ``python -m pytest -m "not slow"`` is then the fast suite of a developer; CI runs all.
    """
    for item in items:
        if _is_sklearn_check(item) or _runs_a_script(item):
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
