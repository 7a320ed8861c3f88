"""The matrix-free gap checks of the IndefiniteSVM loops (``Certifier.inner_bound``).

Checked against things independent of the checks:

* the product with the proxy kernel of ``ProxyKernelOracle.proxy_operator`` (the sign
  function's rule on a general vector) against the formed ``K* = X(u)_+`` and against
  the oracle's own ``K* u``, with and without componentwise weights;
* the bound of an inner check at an iterate against the exact ``omega(K_i) + rho
  ||K_i - K0||_F^2`` (Clarabel to 1e-11): never below it, and never below the best
  value a long run reaches; the inner solver's dual value never above it;
* a default fit above ``INNER_CHECK_MIN_N`` points makes its checks with the inner
  solver, calls libsvm only where an inner check could stop the loop and did not
  certify it, and runs the same iterates as the libsvm checks.
"""

import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from krein.formulations.indefinite import ProxyKernelProblem
from krein.kernels import sigmoid_kernel
from krein.projections import project_box_hyperplane
from krein.solvers.indefinite import (Certifier, ProxyKernelOracle, accelerated_gradient,
                                      projected_gradient)
from krein.solvers.indefinite import certifier as certifier_module

N = 360          # above INNER_CHECK_MIN_N and DENSE_EIGH_MAX_N: the rule's path


def _null_cluster_problem(n=N, seed=0, C=1.0):
    """The null-cluster sigmoid of ``benchmarks/indefinite.py`` (``sigmoid-2d``)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    K = sigmoid_kernel(X, a=9.0, r=-1.0)
    y = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    return ProxyKernelProblem(K, y, C=C, rho=1.0, check=False)


@pytest.fixture(scope="module")
def problem():
    P = _null_cluster_problem()
    assert N > certifier_module.INNER_CHECK_MIN_N
    assert np.linalg.eigvalsh(P.K0)[0] < -1.0                 # clearly indefinite
    return P


@pytest.mark.parametrize("n", [120, N], ids=["factor", "rule"])
@pytest.mark.parametrize("weighted", [False, True])
def test_proxy_operator_is_the_proxy_kernel(problem, weighted, n):
    """The sign rule above DENSE_EIGH_MAX_N points, the proxy kernel's factor below."""
    rng = np.random.default_rng(1)
    P = problem if n == N else _null_cluster_problem(n)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    oracle = ProxyKernelOracle(P.K0, 0.7, weights=w, check=False)
    u = P.y * rng.uniform(0.0, 1.0, n)
    K = oracle.proxy_kernel(u)
    apply = oracle.proxy_operator(u)
    v = rng.normal(size=n)
    scale = np.abs(K).max() * np.abs(v).sum()
    assert np.abs(apply(v) - K @ v).max() <= 1e-11 * scale
    ev = oracle.evaluate(u)
    assert np.abs(apply(u) - ev.Ku).max() <= 1e-12 * np.abs(ev.Ku).max() * n
    # positive semidefinite up to round-off: v'K*v >= 0 on random directions
    for _ in range(5):
        v = rng.normal(size=n)
        assert v @ apply(v) >= -1e-12 * np.abs(K).max() * (v @ v)


def _exact_bound(P, beta):
    """``omega(K_i) + rho ||K_i - K0||_F^2`` at ``beta``, ``omega`` from Clarabel."""
    cert = Certifier(P, checks="libsvm")
    f, _, ev = cert.evaluate(beta)
    K = cert.oracle.proxy_kernel(P.u_of(beta))
    lam, V = np.linalg.eigh(K)
    keep = lam > 1e-12 * lam[-1]
    L = V[:, keep] * np.sqrt(lam[keep])
    a = cp.Variable(P.n)
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(P.y, a))),
                      [P.y @ a == 0, a >= 0, a <= P.C])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    alpha = project_box_hyperplane(np.clip(a.value, 0.0, P.C), P.y, 0.0, P.upper)
    v = P.y * alpha
    Kv = K @ v
    lower = alpha.sum() - 0.5 * v @ Kv
    upper, _ = P.omega_upper(Kv, float(v @ Kv))
    assert upper - lower <= 1e-6 * abs(f - cert.offset)      # omega(K_i) known to 1e-6
    return lower + P.rho * ev.dist2, upper + P.rho * ev.dist2, f


@pytest.mark.parametrize("k", [5, 40])
def test_inner_bound_is_certified(problem, k):
    P = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        run = projected_gradient(P, tol=0.0, atol=0.0, max_iter=k, gap_every=0)
        best = accelerated_gradient(P, tol=1e-7, max_iter=400, gap_every=0).objective
    beta = run.primal["beta"]
    exact_lo, exact_hi, f = _exact_bound(P, beta)
    cert = Certifier(P, checks="inner")
    _, _, ev = cert.evaluate(beta)
    ub = cert.inner_bound(beta, ev, final=True, max_products=40)
    assert cert.n_libsvm == 0 or cert.n_inner_fallback == 1
    tol = 1e-9 * abs(f - cert.offset)
    assert ub >= exact_lo - tol                   # no bound from K_i is below omega(K_i)
    assert ub >= best - tol and cert.upper >= best - tol
    dual = cert.last_libsvm[0]                    # the inner solver's h(b) + penalty
    assert dual <= exact_hi + tol and dual >= f - tol


def test_default_fit_checks_with_the_inner_solver(problem):
    """A fit above INNER_CHECK_MIN_N points: inner checks, libsvm only as their fallback
    (where a check could stop the loop), the same iterates as libsvm's checks, a
    certified gap within the tolerance."""
    P = problem
    sol = projected_gradient(P)
    old = projected_gradient(P, checks="libsvm")
    c, c_old = sol.certificate, old.certificate
    assert c["checks"] == "inner" and c_old["checks"] == "libsvm"
    assert c["n_inner_checks"] >= 1 and c["n_inner_products"] >= 1
    # every libsvm solve is an inner check's fallback (or its refinement); measured 2
    # fallbacks against 14 solves of the libsvm checks
    assert c["n_libsvm"] == c["n_inner_fallback"] + c["n_libsvm_refined"], c
    assert c["n_inner_fallback"] <= 2 and 4 * c["n_libsvm"] <= c_old["n_libsvm"], (c, c_old)
    assert sol.status == "optimal" and sol.certificate["relative_gap"] <= 1e-3
    # the trace names the source of the least bound at every iteration
    assert sol.trace["bound"].iloc[-1] == c["upper_source"]
    assert set(sol.trace["bound"]) <= {"frank-wolfe", "inner", "libsvm", "interior-point"}
    m = min(len(sol.trace), len(old.trace))
    np.testing.assert_array_equal(sol.trace["objective"][:m], old.trace["objective"][:m])
