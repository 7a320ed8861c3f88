"""Small-size paths of ch (CH-DU) and iksvm-dc against the general paths.

The sort-based projection onto the CH-DU feasible set
(:func:`krein.formulations.hull._project_sorted`, used for classes of at most
``_SORT_MAX`` points) must give the projection of the safeguarded Newton iteration
(:func:`krein.projections.project_capped_simplex`) and satisfy the projection's KKT
conditions on its own.
"""

import numpy as np
import pytest

from krein.formulations import hull as fhull
from krein.projections import project_capped_simplex


def _newton(V, y, mu):
    out = np.empty_like(V)
    for cls in (1.0, -1.0):
        rows = y == cls
        out[rows] = project_capped_simplex(V[rows], mu)
    return out


def _cases():
    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.integers(3, 70))
        S = int(rng.integers(1, 5))
        y = np.where(np.arange(n) < int(rng.integers(1, n)), 1.0, -1.0)
        rng.shuffle(y)
        mmin = min(np.sum(y > 0), np.sum(y < 0))
        mu = [1.0 / mmin, 1.7 / mmin, 0.5, 1.0, 4.0][trial % 5]
        mu = max(mu, 1.0 / mmin)
        V = rng.standard_normal((n, S)) * 10.0 ** rng.uniform(-2, 2)
        if trial % 3 == 0:
            V = np.round(V, 1)          # ties among the breakpoints
        yield V, y, mu


def test_sorted_projection_is_the_projection():
    for V, y, mu in _cases():
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        X = fhull._project_sorted(V, pos, neg, mu)
        scale = max(1.0, np.abs(V).max())
        np.testing.assert_allclose(X, _newton(V, y, mu), rtol=0, atol=1e-12 * scale)
        # KKT on its own: feasible, and x = clip(v - tau_c, 0, mu) with one tau per class
        assert X.min() >= 0 and X.max() <= mu
        for rows in (pos, neg):
            np.testing.assert_allclose(X[rows].sum(axis=0), 1.0, atol=1e-12)
            for s in range(V.shape[1]):
                free = (X[rows, s] > 1e-12) & (X[rows, s] < mu - 1e-12)
                if free.any():
                    tau = V[rows, s][free] - X[rows, s][free]
                    assert np.ptp(tau) <= 1e-10 * scale
                    assert np.all(V[rows, s][X[rows, s] <= 1e-12] <= tau[0] + 1e-10 * scale)
                    assert np.all(V[rows, s][X[rows, s] >= mu - 1e-12] >= tau[0] + mu - 1e-10 * scale)


def test_project_uses_both_paths_and_they_agree(monkeypatch):
    """``_project`` takes the sorted path up to ``_SORT_MAX`` points per class (and
    ``_SORT_WORK`` points x columns) and the Newton path above; either gives the same
    projection."""
    rng = np.random.default_rng(4)
    y = np.r_[np.ones(40), -np.ones(25)]
    V = rng.standard_normal((65, 3))
    calls = []
    real = fhull._project_sorted
    monkeypatch.setattr(fhull, "_project_sorted",
                        lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(fhull, "_SORT_MAX", 40)
    small = fhull._project(V, y, 0.1)
    assert calls == [1]
    monkeypatch.setattr(fhull, "_SORT_MAX", 39)
    large = fhull._project(V, y, 0.1)
    assert calls == [1]
    monkeypatch.setattr(fhull, "_SORT_MAX", 40)
    monkeypatch.setattr(fhull, "_SORT_WORK", 119)       # 40 points x 3 columns = 120
    np.testing.assert_allclose(fhull._project(V, y, 0.1), large, rtol=0, atol=1e-13)
    assert calls == [1]
    np.testing.assert_allclose(small, large, rtol=0, atol=1e-13)
    np.testing.assert_allclose(fhull._project(V[:, 0], y, 0.1), large[:, 0], rtol=0, atol=1e-13)


def test_sorted_projection_at_the_smallest_mu():
    """``mu = 1 / n_c``: the only feasible point of that class has every entry at ``mu``."""
    y = np.r_[np.ones(7), -np.ones(3)]
    V = np.random.default_rng(5).standard_normal((10, 4))
    X = fhull._project_sorted(V, np.arange(7), np.arange(7, 10), 1.0 / 3.0)
    np.testing.assert_allclose(X[7:], 1.0 / 3.0, atol=1e-15)
    np.testing.assert_allclose(X[:7], _newton(V, y, 1.0 / 3.0)[:7], atol=1e-13)


def _brentq_line_search(r, ye, Cv, a0, a1):
    """The reference: bracket by doubling, then scipy's brentq on the derivative."""
    import scipy.optimize

    def deriv(t):
        return a0 + a1 * t - float(np.sum(Cv * ye * np.maximum(r - t * ye, 0.0)))

    if deriv(0.0) >= 0.0:
        return 0.0
    hi = 1.0
    while deriv(hi) < 0.0:
        hi *= 2.0
        if hi > 1e12:
            return hi
    return scipy.optimize.brentq(deriv, 0.0, hi, xtol=1e-15 * hi, rtol=8.9e-16)


def test_dca_exact_line_search_is_the_root():
    """iksvm-dc's line search on the sorted pieces of the derivative gives brentq's root
    (ties among the breakpoints, zero directions, a root at t = 0 included)."""
    from krein.solvers.dca import _exact_line_search

    rng = np.random.default_rng(6)
    for trial in range(400):
        n = int(rng.integers(1, 90))
        r = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 1)
        ye = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 1)
        if trial % 5 == 0:
            ye[rng.random(n) < 0.3] = 0.0
        if trial % 7 == 0:
            r, ye = np.round(r, 1), np.round(ye, 1)
        Cv = np.full(n, 10.0 ** rng.uniform(-1, 2))
        a1 = abs(rng.standard_normal()) * 10.0 ** rng.uniform(-3, 1)
        a0 = -abs(rng.standard_normal()) * 10.0 ** rng.uniform(-2, 2) + (trial % 11 == 0) * 5
        t = _exact_line_search(r, ye, Cv, a0, a1)
        ref = _brentq_line_search(r, ye, Cv, a0, a1)
        assert abs(t - ref) <= 1e-12 * max(1.0, ref), (trial, t, ref)
