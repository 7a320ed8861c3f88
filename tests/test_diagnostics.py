"""Uniform fitted diagnostics of the classifiers: ``solutions_``,
``solution_``, ``min_eigenvalue_``, ``n_iter_``, ``trace_``; the libsvm certificate."""

import numpy as np
import pytest

from krein.estimators import (ESVC, KSVC, LPSVC, RVC, ConvexHullClassifier, CorrectedKernelSVC,
                              DirectSVC, IndefiniteSVC, ModSVC)
from krein.estimators.base import least_eigenvalue, libsvm_solution, libsvm_solve
from krein.experiment.classification import _solutions
from krein.solvers import Solution

ESTIMATORS = {
    "DirectSVC": (lambda: DirectSVC(kernel="precomputed"), False),
    "ESVC": (lambda: ESVC(kernel="precomputed"), False),
    "ESVC-CLARABEL": (lambda: ESVC(kernel="precomputed", solver="CLARABEL"), False),
    "LPSVC": (lambda: LPSVC(kernel="precomputed"), False),
    "KSVC": (lambda: KSVC(kernel="precomputed"), True),
    "IndefiniteSVC": (lambda: IndefiniteSVC(kernel="precomputed", max_iter=50), True),
    "RVC": (lambda: RVC(kernel="precomputed", max_iter=50), True),
    "ConvexHullClassifier": (lambda: ConvexHullClassifier(kernel="precomputed"), False),
    "ModSVC-libsvm": (lambda: ModSVC(kernel="precomputed", solver="libsvm"), False),
    "CorrectedKernelSVC": (lambda: CorrectedKernelSVC(kernel="precomputed"), False),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("multiclass", [False, True])
def test_uniform_diagnostics(name, multiclass, sigmoid_problem, three_class_problem):
    make, iterative = ESTIMATORS[name]
    if multiclass:
        K, y = three_class_problem["K_sig"], three_class_problem["y"]
    else:
        K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    est = make().fit(K, y)
    n_models = len(est.binary_models_)
    assert len(est.solutions_) == n_models
    assert all(isinstance(s, Solution) for s in est.solutions_)
    if name != "RVC":   # sparse Bayesian learning reports no optimality certificate (yet)
        for s in est.solutions_:
            assert np.isfinite(s.dual_residual) or np.isfinite(s.gap)
    if n_models == 1:
        assert est.solution_ is est.solutions_[0]
    else:
        assert est.solution_ is None
    assert np.shape(est.n_iter_) == (n_models,)
    assert est.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(K)[0], abs=1e-8)
    if iterative:
        assert hasattr(est, "trace_") and len(est.trace_) > 0
    assert _solutions(est) == est.solutions_
    assert not hasattr(est, "_diag_K")   # the stashed training kernel is not kept


@pytest.mark.parametrize("C", [0.5, 10.0])
def test_libsvm_certificate_small_at_solution_large_elsewhere(sigmoid_problem, C):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    u, b, sol = libsvm_solve(K, y, C, tol=1e-6)
    assert sol.solver == "libsvm" and sol.status == "converged"
    assert sol.intercept == b
    assert sol.primal_residual <= 1e-8 * C          # feasible: 0 <= alpha <= C, y'alpha = 0
    assert sol.dual_residual <= 1e-4                # stationary (libsvm tol 1e-6)
    # independent check: at the solution no feasible coordinate pair improves W to first order
    alpha = y * u
    grad = 1.0 - y * (K @ u)
    up = (alpha < C - 1e-9)
    down = (alpha > 1e-9)
    # max violating pair (libsvm's own criterion, recomputed here): m(alpha) - M(alpha)
    yg = y * grad
    m = np.max(np.where((up & (y > 0)) | (down & (y < 0)), yg, -np.inf))
    M = np.min(np.where((up & (y < 0)) | (down & (y > 0)), yg, np.inf))
    assert m - M <= 1e-5
    # perturbed points: a zero point and a random feasible one are far from stationary
    z = libsvm_solution(K, y, C, np.zeros_like(u), 0.0, 0)
    assert z.dual_residual > 1e3 * max(sol.dual_residual, 1e-8)
    rng = np.random.default_rng(1)
    a = rng.uniform(0, C, size=y.size)
    # make y'a = 0 by scaling the larger class's side down
    sp, sn = a[y > 0].sum(), a[y < 0].sum()
    a[y > 0] *= min(1.0, sn / sp)
    a[y < 0] *= min(1.0, sp / sn)
    p = libsvm_solution(K, y, C, y * a, 0.0, 0)
    assert p.primal_residual <= 1e-8
    assert p.dual_residual > 1e3 * max(sol.dual_residual, 1e-8)


def test_libsvm_certificate_per_sample_C(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    C = np.where(y > 0, 2.0, 0.5)
    u, b, sol = libsvm_solve(K, y, C, tol=1e-6)
    assert sol.dual_residual <= 1e-4
    assert np.all(sol.primal["alpha"] <= C + 1e-9)
    # the same point certified against a uniform box is not stationary (or not feasible)
    bad = libsvm_solution(K, y, 0.5, u, b, 0)
    assert max(bad.dual_residual, bad.primal_residual) > 1e-3


def test_least_eigenvalue_matches_eigvalsh(sigmoid_problem):
    K = sigmoid_problem["K"]
    assert least_eigenvalue(K) == pytest.approx(np.linalg.eigvalsh(K)[0], abs=1e-10)
    assert least_eigenvalue(K[:2, :2]) == pytest.approx(np.linalg.eigvalsh(K[:2, :2])[0])


@pytest.mark.parametrize("kw", [{"n_components": 10}, {"energy": 0.5}])
def test_esvm_l_min_eigenvalue_without_full_eigh(monkeypatch, kw):
    from krein.kernels import sigmoid_kernel

    rng = np.random.default_rng(3)
    n = 400   # above krein.spectrum's full-eigh threshold: ESVM-L is truly partial here
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    K = sigmoid_kernel(X, a=0.5, r=-1.0)
    expected = np.linalg.eigvalsh(K)[0]
    assert expected < 0
    real_eigh, real_eigvalsh = np.linalg.eigh, np.linalg.eigvalsh

    def no_full(name, real):
        def f(A, *args, **kwargs):
            assert np.shape(A)[0] < n, f"numpy.linalg.{name} on the full kernel"
            return real(A, *args, **kwargs)
        return f

    monkeypatch.setattr(np.linalg, "eigh", no_full("eigh", real_eigh))
    monkeypatch.setattr(np.linalg, "eigvalsh", no_full("eigvalsh", real_eigvalsh))
    est = ESVC(kernel="precomputed", **kw).fit(K, y)
    monkeypatch.undo()
    assert est.spectrum_.partial
    assert est.min_eigenvalue_ == pytest.approx(expected, abs=1e-8 * np.abs(K).max())
    assert isinstance(est.solution_, Solution) and est.solution_.dual_residual < 1e-2


def test_least_eigenvalue_of_a_rank_deficient_gram_matrix_is_zero():
    """The linear kernel of 1540 USPS digits (rank 256): the bottom of the spectrum is a
    cluster of 1284 zeros, where ARPACK's "SA" mode on K returned 0.204 (after 27 s)."""
    from krein.datasets import load

    X, _ = load("usps", split="train")
    X = X[:1540]
    K = X @ X.T
    lam = np.linalg.eigvalsh(K)
    assert abs(least_eigenvalue(K) - lam[0]) <= 1e-12 * lam[-1]
    # an indefinite kernel with the same null space: its negative eigenvalue is found
    u = X[:, 0] / np.linalg.norm(X[:, 0])
    K2 = K - 0.5 * lam[-1] * np.outer(u, u)
    assert least_eigenvalue(K2) == pytest.approx(np.linalg.eigvalsh(K2)[0], abs=1e-12 * lam[-1])
