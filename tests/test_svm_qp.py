"""The interior-point SVM dual of the IndefiniteSVM gap checks.

:func:`krein.solvers.indefinite.svm_qp.box_qp_interior_point` solves
``max c'x - 1/2 x'Qx`` over ``{a'x = b0, 0 <= x <= U}``.  Checked by weak duality
(the SVM primal value at the returned point,
:meth:`~krein.formulations.indefinite.ProxyKernelProblem.omega_upper`, bounds the
optimum from above, the dual value at the feasible point from below) and against
CVXPY (Clarabel at 1e-13), on the constraint sets of the IndefiniteSVM models (svc
with one box or per-sample boxes, one-class), on low-rank (near-singular, as the
proxy kernels of one-vs-one pairs) and full-rank kernels, with every point at its
bound, and on kernels scaled by 1e-4 and 1e4.  The certifier's use of it (a small
svc's refinement is one exact solve) is checked in ``tests/test_certificates.py``.
"""

import cvxpy as cp
import numpy as np
import pytest

from krein.formulations.indefinite import ProxyKernelProblem
from krein.solvers.indefinite import certifier as certifier_module
from krein.solvers.indefinite.svm_qp import box_qp_interior_point

CASES = ["low-rank", "full-rank", "per-sample", "one-class", "all-at-bound"]


def _problem(case, scale):
    rng = np.random.default_rng(CASES.index(case))
    n, rank = {"low-rank": (61, 4), "full-rank": (40, 40), "per-sample": (50, 6),
               "one-class": (45, 5), "all-at-bound": (30, 30)}[case]
    X = rng.normal(size=(n, rank))
    K = scale * (X @ X.T)
    y = np.where(rng.random(n) < 0.35, 1.0, -1.0)          # unbalanced classes
    if case == "one-class":
        return ProxyKernelProblem(K, model="one-class", nu=0.3, rho=1.0)
    C = {"per-sample": np.where(y > 0, 10.0, 2.5), "all-at-bound": 1e-3}.get(case, 10.0)
    return ProxyKernelProblem(K, y, C=np.divide(C, scale), rho=1.0)   # C follows 1 / scale


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
@pytest.mark.parametrize("scale", [1e-4, 1.0, 1e4])
@pytest.mark.parametrize("case", CASES)
def test_interior_point_is_optimal_by_weak_duality_and_matches_clarabel(case, scale):
    P = _problem(case, scale)
    K, U = P.K0, P.upper
    M = P.y if P.model == "svc" else np.ones(P.n)
    Q = np.outer(M, M) * K
    x, nu, n_iter, ok = box_qp_interior_point(Q, P.c, P.a, P.b0, U)
    assert ok and 1 <= n_iter <= 40
    assert np.all(x > 0) and np.all(x < U)                 # strictly inside the box
    assert abs(P.a @ x - P.b0) <= 1e-9 * max(abs(P.b0), np.abs(P.a) @ U)
    # weak duality: the dual value at the feasible x <= optimum <= the primal value at x
    v = M * x
    Kv = K @ v
    lower = P.c @ x - 0.5 * v @ Kv
    upper, _ = P.omega_upper(Kv, float(v @ Kv))
    size = max(np.abs(P.c) @ U, np.max(np.abs(K)) * (U @ U))   # the terms at the corner
    assert upper - lower <= 1e-8 * size, (upper, lower, size)
    # CVXPY on the same problem (its own interior-point method), where it is accurate
    lam, V = np.linalg.eigh(K)
    keep = lam > 1e-12 * lam[-1]
    z = cp.Variable(P.n)
    prob = cp.Problem(cp.Maximize(P.c @ z - 0.5 * cp.sum_squares(
        (V[:, keep] * np.sqrt(lam[keep])).T @ cp.multiply(M, z))),
        [P.a @ z == P.b0, z >= 0, z <= U])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-13 * size, tol_gap_rel=1e-13,
               tol_feas=1e-13)
    if prob.status == "optimal":
        assert lower == pytest.approx(prob.value, abs=1e-7 * size)
    # the multiplier of the equality: the gradient of the Lagrangian vanishes on the
    # points strictly inside their boxes
    free = (x > 1e-6 * U) & (x < (1 - 1e-6) * U)
    g = P.c - Q @ x + nu * P.a
    assert np.all(np.abs(g[free]) <= 1e-5 * max(np.max(np.abs(P.c)), np.max(np.abs(Q)) * np.max(U)))


@pytest.mark.parametrize("scale", [1e-4, 1e4])
def test_iterations_do_not_depend_on_the_kernel_scale(scale):
    P1, Ps = _problem("low-rank", 1.0), _problem("low-rank", scale)
    Q1, Qs = np.outer(P1.y, P1.y) * P1.K0, np.outer(Ps.y, Ps.y) * Ps.K0
    x1, _, it1, _ = box_qp_interior_point(Q1, P1.c, P1.a, P1.b0, P1.upper)
    xs, _, its, _ = box_qp_interior_point(Qs, Ps.c, Ps.a, Ps.b0, Ps.upper)
    assert abs(it1 - its) <= 2
    # the optimal value follows 1 / scale (x itself is not unique: K has rank 4)
    v1 = P1.c @ x1 - 0.5 * x1 @ Q1 @ x1
    vs = Ps.c @ xs - 0.5 * xs @ Qs @ xs
    assert vs * scale == pytest.approx(v1, rel=1e-9)


def test_threshold_is_a_small_pair_size():
    # one-vs-one pairs of a 14-class set (61-91 points) are below it; the n = 2000 of
    # benchmarks/indefinite.py is not
    assert 91 <= certifier_module.EXACT_SVM_MAX_N < 2000
