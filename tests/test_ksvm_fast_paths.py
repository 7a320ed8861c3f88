"""The lean code of KSVM's active set against plain references.

The many-class speed-ups of :mod:`krein.solvers.ksvm` and
:func:`krein.formulations.ksvm.best_multiplier` replace library calls by the same
arithmetic with fewer NumPy calls.  Each is checked here against the plain
computation it replaces (independent of the new code):

* ``best_multiplier``'s multi-point search against the one-point bisection it
  replaced (written out below): the same float, bit for bit, for one box bound and
  per-sample bounds, points at 0, free and at ``C``;
* the direct LAPACK triangular solve against :func:`scipy.linalg.solve_triangular`
  for C- and Fortran-ordered factors;
* the active set's trace (kept as columns) against the records of the returned point.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla

from krein.formulations.ksvm import _natural_residual, best_multiplier
from krein.solvers.ksvm import _TriangularSolve, ksvm_active_set


def _bisection(alpha, grad, y, C, hdiag):
    """The one-point bisection of best_multiplier, written plainly (the reference)."""
    t = -y * grad
    lo, hi = float(np.min(t)), float(np.max(t))

    def parts(lam):
        v = y * _natural_residual(alpha, (grad + lam * y) / hdiag, C)
        return max(float(np.max(v)), 0.0), max(float(np.max(-v)), 0.0)

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        up, down = parts(mid)
        if up > down:
            hi = mid
        else:
            lo = mid
    a_lo, b_lo = parts(lo)
    a_hi, b_hi = parts(hi)
    return lo if max(a_lo, b_lo) <= max(a_hi, b_hi) else hi


def _point(rng, n, C):
    """A point of the box with some coordinates at 0, some at C, the others free."""
    Cv = np.broadcast_to(C, (n,))
    alpha = rng.random(n) * Cv
    kind = rng.integers(0, 3, n)
    alpha[kind == 0] = 0.0
    alpha[kind == 1] = Cv[kind == 1]
    return alpha


@pytest.mark.parametrize("per_sample", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_best_multiplier_equals_the_bisection(seed, per_sample):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 90))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = (1.0, -1.0)
    C = rng.uniform(0.1, 3.0, n) if per_sample else float(rng.uniform(0.01, 10.0))
    alpha = _point(rng, n, C)
    grad = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)
    hdiag = rng.uniform(0.1, 5.0, n)
    got = best_multiplier(alpha, grad, y, C, hdiag)
    assert got == _bisection(alpha, grad, y, C, hdiag)


def test_best_multiplier_at_the_start_of_a_run_equals_the_bisection():
    """alpha = 0 and the gradient -2 G 1 of a sigmoid kernel (the active set's first call)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 3))
    K = np.tanh(X @ X.T - 1.0)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    G = y[:, None] * K * y[None, :]
    h = 2.0 * np.einsum("ij,ij->j", G, G)
    for C in (0.1, 1.0, 10.0):
        g = -2.0 * G.sum(axis=1)
        assert best_multiplier(np.zeros(60), g, y, C, h) == _bisection(np.zeros(60), g, y, C, h)


@pytest.mark.parametrize("order", ["C", "F"])
def test_triangular_solve_equals_scipy(order):
    rng = np.random.default_rng(0)
    R = np.triu(rng.standard_normal((7, 7))) + 5 * np.eye(7)
    R = np.asarray(R, order=order)
    b = rng.standard_normal(7)
    got = _TriangularSolve()(R, b)
    np.testing.assert_array_equal(got, sla.solve_triangular(R, b, check_finite=False))
    np.testing.assert_allclose(R @ got, b, rtol=1e-12, atol=1e-12)


def test_triangular_solve_refuses_a_singular_factor():
    R = np.triu(np.ones((3, 3)))
    R[1, 1] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="triangular"):
        _TriangularSolve()(R, np.ones(3))


def test_trace_columns_match_the_run():
    """The trace kept as columns: one row per iteration, the counts of the final sets,
    the dtypes of the columns, the objective recomputed at the returned point."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 3))
    K = np.tanh(X @ X.T - 1.0)
    y = np.where(X[:, 1] + 0.3 * rng.standard_normal(40) > 0, 1.0, -1.0)
    sol = ksvm_active_set(K, y, 0.1, verify=True)
    tr = sol.trace
    assert list(tr["iter"]) == list(range(sol.iterations + 1))
    assert tr["n_free"].iloc[-1] == sol.primal["free"].size
    assert tr["n_at_C"].iloc[-1] == sol.primal["at_C"].size
    # |I_C| is counted, not recomputed: it must follow the actions
    moves = tr["action"].map({"drop to I_C": 1, "add from I_C": -1}).fillna(0).to_numpy()
    np.testing.assert_array_equal(tr["n_at_C"].to_numpy(), np.cumsum(moves))
    assert tr["pivot_changed"].dtype == bool and tr["index"].dtype.kind == "i"
    assert tr["objective"].dtype.kind == "f" and "refactor_diff" in tr
    G = y[:, None] * K * y[None, :]
    r = G @ sol.primal["alpha"] - 1.0
    assert tr["objective"].iloc[-1] == pytest.approx(r @ r, rel=1e-10)
