"""The lean code of ch's multistart (CH-DU) against plain references.

The many-class speed-ups of :mod:`krein.solvers.hull` and :mod:`krein.estimators.hull`
replace library calls by the same arithmetic with fewer NumPy calls.  Each is checked
against the plain computation it replaces (written out here, independent of the new
code):

* the face basis (:func:`krein.formulations.hull.hull_face_basis`: LAPACK ``dgeqrf`` and
  ``dorgqr`` called directly) against the last columns of
  ``numpy.linalg.qr(B', mode="complete")`` of the class indicators (what the face step
  and the second-order test used): the same matrix to round-off (the same routines;
  bit for bit with one LAPACK), orthonormal, orthogonal to the indicators;
* the face step (:func:`krein.solvers.hull._face_descent`: that basis, ``Z'HZ`` without
  ``H``, LAPACK ``dsyevd`` directly) against the step written with
  :func:`numpy.linalg.qr` and :func:`numpy.linalg.eigh`, on indefinite kernels, Newton
  steps and negative curvature;
* the Frank-Wolfe vertex (:func:`krein.formulations.hull._lmo`, one assignment) against
  :func:`scipy.optimize.linprog` on the same linear objective;
* the estimator: the kernel of each pair checked once (not once per called
  function), and ``local_optima_`` (one table built from the pairs' rows) equal to the
  concatenation of :func:`krein.solvers.hull.hull_multistart`'s per-pair tables;
  the multistart trace's columns and types.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

import krein.formulations.hull as fhull
from krein.estimators.hull import ConvexHullClassifier
from krein.formulations.hull import _lmo, hull_face_basis
from krein.solvers.hull import _face_descent, _max_free, hull_multistart


def _qr_basis(yF):
    """The face basis as plain NumPy: last columns of a complete QR of the indicators."""
    B = np.vstack([(yF > 0), (yF < 0)]).astype(float)
    B = B[B.sum(axis=1) > 0]
    Qb, _ = np.linalg.qr(B.T, mode="complete")
    return B, Qb[:, B.shape[0]:]


@pytest.mark.parametrize("seed", range(6))
def test_face_basis_is_numpys_complete_qr(seed):
    rng = np.random.default_rng(seed)
    for k in list(range(1, 40)) + [70, 90]:
        yF = rng.choice([-1.0, 1.0], size=k)
        if k > 2 and seed % 2:
            yF[:] = 1.0
            yF[int(rng.integers(k))] = -1.0         # a class with a single free entry
        if k > 2 and seed == 4:
            yF[:] = -1.0                             # one class only
        B, Z0 = _qr_basis(yF)
        Z = hull_face_basis(yF)
        assert Z.shape == Z0.shape
        np.testing.assert_allclose(Z, Z0, rtol=0, atol=1e-13)
        if Z.shape[1]:
            np.testing.assert_allclose(Z.T @ Z, np.eye(Z.shape[1]), atol=1e-13)
            np.testing.assert_allclose(B @ Z, 0.0, atol=1e-13)


def _face_descent_reference(K, y, mu, a, ku, free, max_steps=20):
    """The face step as plain NumPy: complete QR basis, H formed, numpy.linalg.eigh."""
    a, ku = a.copy(), ku.copy()
    steps = 0
    for _ in range(max_steps):
        idx = np.flatnonzero(free)
        if idx.size < 2 or idx.size > _max_free(y.size):
            break
        yF = y[idx]
        B, Z = _qr_basis(yF)
        if idx.size <= B.shape[0]:
            break
        H = 2.0 * (yF[:, None] * K[np.ix_(idx, idx)] * yF[None, :])
        w, V = np.linalg.eigh(Z.T @ H @ Z)
        zg = Z.T @ (2.0 * yF * ku[idx])
        wmax = max(float(np.abs(w).max()), np.finfo(float).tiny)
        if w[0] < -1e-10 * wmax:
            v = V[:, 0]
            d = Z @ (v if v @ zg <= 0 else -v)
            newton = False
        else:
            keep = w > 1e-10 * wmax
            Vk = V[:, keep]
            d = -Z @ (Vk @ ((Vk.T @ zg) / w[keep]))
            newton = True
        aF = a[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            t_lo = np.where(d < 0, aF / -d, np.inf)
            t_hi = np.where(d > 0, (mu - aF) / d, np.inf) if mu < 1.0 else np.full_like(d, np.inf)
        lam = min(float(t_lo.min()), float(t_hi.min()))
        if newton:
            lam = min(1.0, lam)
        if not (0 < lam < np.inf) or not np.any(d):
            break
        new = aF + lam * d
        hit = None
        if not (newton and lam == 1.0):
            k_lo, k_hi = int(np.argmin(t_lo)), int(np.argmin(t_hi))
            if t_lo[k_lo] <= t_hi[k_hi]:
                new[k_lo], hit = 0.0, idx[k_lo]
            else:
                new[k_hi], hit = mu, idx[k_hi]
        new = np.clip(new, 0.0, mu)
        ku += K[:, idx] @ (yF * (new - aF))
        a[idx] = new
        steps += 1
        if hit is None:
            break
        free = free.copy()
        free[hit] = False
    return a, ku, steps


def _face_cases():
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(6, 40))
        X = rng.standard_normal((n, 3))
        K = X @ X.T if trial % 4 == 0 else X @ np.diag([1.0, 1.0, -0.5]) @ X.T   # PSD / indefinite
        K = 0.5 * (K + K.T)
        y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
        rng.shuffle(y)
        mmin = min(np.sum(y > 0), np.sum(y < 0))
        mu = [1.0, 0.5, 2.0 / mmin, 4.0][trial % 4]
        mu = max(mu, 1.0 / mmin)
        a = np.zeros(n)
        for cls in (1.0, -1.0):
            rows = np.flatnonzero(y == cls)
            a[rows] = rng.dirichlet(np.ones(rows.size))
        a = fhull._project(a, y, mu)
        free = (a > 0) & (a < mu) if mu < 1.0 else a > 0
        yield K, y, mu, a, K @ (y * a), free


def test_face_descent_equals_the_qr_eigh_step():
    kinds = set()
    for K, y, mu, a, ku, free in _face_cases():
        a1, ku1, s1 = _face_descent(K, y, mu, a, ku, free)
        a0, ku0, s0 = _face_descent_reference(K, y, mu, a, ku, free)
        assert s1 == s0
        np.testing.assert_allclose(a1, a0, rtol=0, atol=1e-11)
        np.testing.assert_allclose(ku1, ku0, rtol=0, atol=1e-10 * max(1.0, np.abs(K).max()))
        # never uphill (the objective is u'Ku)
        assert (y * a1) @ K @ (y * a1) <= (y * a) @ K @ (y * a) + 1e-12
        kinds.add(s1 > 1)
    assert kinds == {True, False}          # multi-step faces (a bound hit) and single steps


def test_lmo_is_the_linear_programs_vertex():
    rng = np.random.default_rng(11)
    for trial in range(20):
        n = int(rng.integers(4, 30))
        y = np.where(np.arange(n) < int(rng.integers(2, n - 1)), 1.0, -1.0)
        mmin = min(np.sum(y > 0), np.sum(y < 0))
        mu = max([0.1, 0.3, 1.0, 2.0][trial % 4], 1.0 / mmin)
        G = rng.standard_normal((n, 3))
        S = _lmo(G, y, mu)
        A_eq = np.vstack([(y > 0), (y < 0)]).astype(float)
        for j in range(G.shape[1]):
            lp = linprog(G[:, j], A_eq=A_eq, b_eq=[1.0, 1.0], bounds=(0.0, min(mu, 1.0)),
                         method="highs")
            assert lp.status == 0
            assert G[:, j] @ S[:, j] == pytest.approx(lp.fun, abs=1e-9)
            np.testing.assert_allclose(A_eq @ S[:, j], 1.0, atol=1e-12)
            assert S[:, j].min() >= 0 and S[:, j].max() <= min(mu, 1.0) + 1e-15


def _three_classes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.standard_normal((14, 2)) + c for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat([0, 1, 2], 14)
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = -0.5 * D2 ** 1.5                       # not conditionally PSD: CH-DU is not convex
    return K, y


def test_each_pairs_kernel_is_checked_once(monkeypatch):
    K, y = _three_classes()
    calls = []
    check = fhull.check_square_kernel

    def counting(*args, **kwargs):
        calls.append(1)
        return check(*args, **kwargs)

    monkeypatch.setattr(fhull, "check_square_kernel", counting)
    est = ConvexHullClassifier(kernel="precomputed", mu=0.3, n_starts=3, random_state=0)
    est.fit(K, y)
    assert est.solver_ == ["multistart"] * 3          # convexity check, then the multistart
    assert len(calls) == 3            # one per pair (3 classes), not one per function called


def test_local_optima_table_equals_the_per_pair_tables():
    K, y = _three_classes()
    est = ConvexHullClassifier(kernel="precomputed", mu=0.3, n_starts=4, solver="multistart",
                               random_state=0).fit(K, y)
    rng = np.random.RandomState(0)          # the estimator's stream: the pairs in order
    tables = []
    for r, (i, j) in enumerate(est.pairs_):
        rows = np.flatnonzero((y == est.classes_[i]) | (y == est.classes_[j]))
        ypm = np.where(y[rows] == est.classes_[j], 1.0, -1.0)      # +1: the second class
        sol, t = hull_multistart(K[np.ix_(rows, rows)], ypm, 0.3, n_starts=4, random_state=rng)
        t.insert(0, "pair", [est.pairs_[r]] * len(t))
        tables.append(t)
        assert list(sol.trace.columns) == ["iter", "n_active", "objective", "max_residual",
                                           "seconds"]
        assert sol.trace["iter"].dtype.kind == "i" and sol.trace["objective"].dtype.kind == "f"
        # the same computation; the pair's kernel block may differ in memory layout (BLAS)
        np.testing.assert_allclose(sol.primal["alpha_bar"], est.alpha_bar_[r], rtol=0, atol=1e-12)
    ref = pd.concat(tables, ignore_index=True)
    got = est.local_optima_
    assert list(got.columns) == list(ref.columns)
    pd.testing.assert_frame_equal(got.drop(columns=["alpha_bar", "starts"]),
                                  ref.drop(columns=["alpha_bar", "starts"]))
    for x, z in zip(got["alpha_bar"], ref["alpha_bar"]):
        np.testing.assert_allclose(x, z, rtol=0, atol=1e-12)
    assert list(got["starts"]) == list(ref["starts"])
