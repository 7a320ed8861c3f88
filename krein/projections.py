"""Euclidean projections onto the feasible sets of the duals (the ground floor).

Two sets, both with one or two equality constraints on a box:

* ``{x : a'x = b, 0 <= x <= U}`` with ``a_i`` in {-1, +1}: the feasible set of
  every dual here, ``{y'alpha = 0, 0 <= alpha <= C}`` for the SVM (luss
  Algorithm 1, step 2), ``{1'alpha = 1, 0 <= alpha <= 1/(nu l)}`` for the
  one-class SVM and ``{1'(a+ - a-) = 0, 0 <= a+-  <= C}`` for the SVR.
  :func:`project_box_hyperplane` projects onto it and :func:`box_hyperplane_lp`
  maximizes a linear function over it;
* the capped simplex ``{x : 0 <= x <= cap, sum x = 1}``, whose product over the
  two classes is the feasible set of Haasdonk's CH-DU (haasdonk §3.2, used by
  :func:`krein.formulations.hull.project_hulls`):
  :func:`project_capped_simplex`.

Every operation reduces to a one-dimensional problem in the multiplier ``nu`` of
the equality constraint.  For ``{a'x = b, 0 <= x <= U}`` the breakpoints are
sorted once (O(m log m)):

* projection: ``x(nu) = clip(v - nu a, 0, U)`` and ``a'x(nu)`` is non-increasing
  and piecewise linear in ``nu``; the root of ``a'x(nu) = b`` is bracketed
  between consecutive breakpoints by bisection and found by linear
  interpolation (exact up to round-off);
* linear maximization: by LP duality
  ``max {w'x : a'x = b, 0 <= x <= U} = min_nu  nu b + sum_i U_i max(0, w_i - nu a_i)``,
  a convex piecewise-linear function minimized at a breakpoint.

This module imports nothing from krein: formulations, solvers and estimators
all use it.

References
----------
R. Luss and A. d'Aspremont (2009), "Support vector machine classification with
indefinite kernels", Math. Prog. Comp. 1 -- "luss".
B. Haasdonk (2005), "Feature space interpretation of SVMs with indefinite
kernels", IEEE TPAMI 27(4) -- "haasdonk".
"""

from __future__ import annotations

import numpy as np

__all__ = ["project_box_hyperplane", "box_hyperplane_lp", "check_feasible_set",
           "project_capped_simplex"]


def check_feasible_set(a, b, upper):
    """Validate ``a`` in {-1, +1}^m, ``upper >= 0`` and non-emptiness of the set.

    Parameters
    ----------
    a : array-like of shape (m,)
        Normal of the hyperplane, entries in {-1, +1}.
    b : float
        Right-hand side of ``a'x = b``.
    upper : float or array-like of shape (m,)
        Upper bounds ``U >= 0`` of the box.

    Returns
    -------
    a : ndarray of shape (m,)
        ``a`` as float.
    upper : ndarray of shape (m,)
        ``upper`` broadcast to shape (m,).
    b : float
        ``b`` as float.

    Raises
    ------
    ValueError
        If the set ``{a'x = b, 0 <= x <= U}`` is empty or the arrays are malformed.
    """
    a = np.asarray(a, dtype=float)
    upper = np.broadcast_to(np.asarray(upper, dtype=float), a.shape)
    if a.ndim != 1 or not np.all(np.abs(a) == 1.0):
        raise ValueError("a must be a 1-d array of +-1")
    if np.any(upper < 0) or not np.all(np.isfinite(upper)):
        raise ValueError("upper bounds must be finite and >= 0")
    lo = float(np.sum(upper[a < 0]) * -1.0)
    hi = float(np.sum(upper[a > 0]))
    if not lo - 1e-12 * max(1.0, abs(lo)) <= b <= hi + 1e-12 * max(1.0, abs(hi)):
        raise ValueError(f"the set {{a'x = {b}, 0 <= x <= U}} is empty (a'x ranges over [{lo}, {hi}])")
    return a, np.array(upper), float(b)


def _h(v, a, upper, nu):
    # np.minimum(np.maximum(.)) is np.clip's arithmetic without its dispatch overhead
    return float(a @ np.minimum(np.maximum(v - nu * a, 0.0), upper))


def _arrays(a, b, upper, shape, check):
    """``(a, upper, b)`` as arrays / float: validated (:func:`check_feasible_set`) when
    ``check``, else only converted (the caller validated the same set before)."""
    if check:
        return check_feasible_set(a, b, np.broadcast_to(np.asarray(upper, dtype=float), shape))
    return (np.asarray(a, dtype=float), np.broadcast_to(np.asarray(upper, dtype=float), shape),
            float(b))


def project_box_hyperplane(v, a, b, upper, *, check=True):
    """Euclidean projection of ``v`` onto ``{x : a'x = b, 0 <= x <= U}``.

    Parameters
    ----------
    v : array of shape (m,)
        The point to project.
    a : array of shape (m,)
        Entries in {-1, +1}.
    b : float
        Right-hand side of ``a'x = b``.
    upper : float or array of shape (m,)
        Upper bounds ``U >= 0``.
    check : bool, default=True
        Validate the set (:func:`check_feasible_set`); ``False`` only where the
        caller validated the same ``(a, b, upper)`` before (the inner loops of the
        IndefiniteSVM algorithms, thousands of projections per fit on one set).

    Returns
    -------
    x : ndarray of shape (m,)
        The projection (``a'x = b`` to round-off).

    Raises
    ------
    ValueError
        If the set is empty or ``a`` has entries other than +-1 (with ``check``).

    Notes
    -----
    ``x = clip(v - nu a, 0, U)`` (KKT of the projection); ``nu`` solves the
    monotone piecewise-linear equation ``a'x(nu) = b``.  Cost O(m log m)
    (luss §3.2, step 2).
    """
    v = np.asarray(v, dtype=float)
    a, upper, b = _arrays(a, b, upper, v.shape, check)
    # breakpoints of x_i(nu): v_i - nu a_i = 0 or = U_i  <=>  nu = v_i a_i, (v_i - U_i) a_i
    bp = np.unique(np.concatenate([v * a, (v - upper) * a]))
    lo, hi = 0, bp.size - 1
    h_lo, h_hi = _h(v, a, upper, bp[lo]), _h(v, a, upper, bp[hi])
    if h_lo <= b:
        # h is constant (= max a'x) left of the first breakpoint: b is at its maximum
        return np.clip(v - bp[lo] * a, 0.0, upper)
    if h_hi >= b:
        # h is constant (= min a'x) right of the last breakpoint
        return np.clip(v - bp[hi] * a, 0.0, upper)
    while hi - lo > 1:  # h(bp[lo]) > b > h(bp[hi]); h is non-increasing
        mid = (lo + hi) // 2
        hm = _h(v, a, upper, bp[mid])
        if hm > b:
            lo, h_lo = mid, hm
        elif hm < b:
            hi, h_hi = mid, hm
        else:
            return np.clip(v - bp[mid] * a, 0.0, upper)
    # h is linear on [bp[lo], bp[hi]]
    t = (h_lo - b) / (h_lo - h_hi)
    nu = bp[lo] + t * (bp[hi] - bp[lo])
    return np.clip(v - nu * a, 0.0, upper)


def box_hyperplane_lp(w, a, b, upper, *, check=True):
    """``max {w'x : a'x = b, 0 <= x <= U}`` exactly, with a maximizer.

    Parameters
    ----------
    w : array of shape (m,)
        Objective vector: the LP maximizes ``w'x``.
    a : array of shape (m,)
        Entries in {-1, +1}.
    b : float
        Right-hand side of ``a'x = b``.
    upper : float or array of shape (m,)
        Upper bounds ``U >= 0``.
    check : bool, default=True
        Validate the set (:func:`check_feasible_set`); ``False`` only where the
        caller validated the same ``(a, b, upper)`` before (the Frank-Wolfe bound
        of every IndefiniteSVM iteration).

    Returns
    -------
    value : float
        The maximum (from the LP dual, ``min_nu nu b + sum U_i max(0, w_i - nu a_i)``).
    nu : float
        The dual multiplier of ``a'x = b`` (for the SVM: the intercept ``b`` of
        ``f = K u + b``; for the one-class SVM: minus the offset); the midpoint of
        the interval of optimal multipliers when it is not unique.

    Raises
    ------
    ValueError
        If the set is empty or ``a`` has entries other than +-1 (with ``check``).

    Notes
    -----
    The dual function is convex piecewise linear with breakpoints
    ``nu = w_i a_i``; its right slope ``b - sum{U_i a_i : w_i - nu a_i > 0}`` is
    evaluated on the sorted breakpoints by cumulative sums.
    """
    w = np.asarray(w, dtype=float)
    a, upper, b = _arrays(a, b, upper, w.shape, check)
    t = w * a
    order = np.argsort(t)
    ts, as_, us = t[order], a[order], upper[order]
    # at nu just right of ts[j]: active i are (a=+1 and t_i > nu) or (a=-1 and t_i < nu)
    pos_u = np.where(as_ > 0, us, 0.0)
    neg_u = np.where(as_ < 0, us, 0.0)
    pos_after = np.cumsum(pos_u[::-1])[::-1]          # sum over i >= j of pos
    pos_strict_after = np.concatenate((pos_after[1:], [0.0]))   # i > j (np.r_: ~60 us)
    neg_upto = np.cumsum(neg_u)                        # i <= j
    slope_right = b - (pos_strict_after - neg_upto)
    # minimum at the first breakpoint where the right slope is >= 0; where the slope is 0
    # the minimizers form an interval up to the next breakpoint with a positive slope, and
    # its midpoint is returned (libsvm's intercept when no variable is free)
    stol = 1e-12 * max(float(np.sum(us)), abs(b), 1.0)
    j = int(np.searchsorted(slope_right, -stol, side="left"))
    j = min(j, ts.size - 1)
    j2 = int(np.searchsorted(slope_right, stol, side="right"))
    j2 = min(max(j2, j), ts.size - 1)
    nu = float(0.5 * (ts[j] + ts[j2]))
    value = float(ts[j]) * b + float(np.sum(upper * np.maximum(0.0, w - float(ts[j]) * a)))
    return value, nu


def project_capped_simplex(V, cap):
    """Euclidean projection of every column of ``V`` onto ``{x : 0 <= x <= cap, sum x = 1}``.

    One factor of the CH-DU feasible set (haasdonk §3.2, the reduced convex hull
    of one class with reduction bound ``mu = cap``).

    Parameters
    ----------
    V : array of shape (m, S)
        ``S`` points to project, as columns.
    cap : float > 0
        Upper bound of every entry; the set is non-empty only if ``m * cap >= 1``
        (not checked here: :func:`krein.formulations.hull.project_hulls` checks it).

    Returns
    -------
    X : ndarray of shape (m, S)
        The projections (columns summing to one up to round-off).

    Notes
    -----
    ``x = clip(v - tau, 0, cap)`` (KKT of the projection) with ``tau`` the root of
    the non-increasing piecewise-linear ``h(tau) = sum clip(v - tau, 0, cap) - 1``,
    found by Newton steps safeguarded by bisection (vectorized over columns;
    Newton is exact once it is on the root's linear piece).  A last correction
    spreads the round-off of the sum over the free entries.
    """
    V = np.asarray(V, dtype=float)
    m, S = V.shape
    lo = V.min(axis=0) - cap          # h(lo) = m*cap - 1 >= 0
    hi = V.max(axis=0)                # h(hi) = -1 < 0
    tau = np.clip((V.sum(axis=0) - 1.0) / m, lo, hi)
    scale = np.maximum(1.0, np.abs(V).max(axis=0))
    eps = np.finfo(float).eps
    # the columns still iterating: all of them at first, gathered once some have
    # converged (the same arithmetic as indexing every pass; the loop runs thousands of
    # times per fit of the convex-hull classifier, so its numpy calls are kept few)
    idx = None
    Vi, taui, loi, hii, scalei = V, tau, lo, hi, scale
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(200):
            W = Vi - taui
            h = np.minimum(np.maximum(W, 0.0), cap).sum(axis=0) - 1.0
            nfree = np.count_nonzero((W > 0) & (W < cap), axis=0)
            done = (np.abs(h) <= 4 * m * eps) | (hii - loi <= 4 * eps * scalei)
            pos = h > 0
            loi = np.where(pos, taui, loi)
            hii = np.where(pos, hii, taui)
            newton = taui + h / nfree
            ok = (nfree > 0) & (newton > loi) & (newton < hii)
            taui = np.where(done, taui, np.where(ok, newton, 0.5 * (loi + hii)))
            if idx is None:
                tau = taui
            else:
                tau[idx] = taui
            if done.all():
                break
            if done.any():
                keep = ~done
                idx = np.flatnonzero(keep) if idx is None else idx[keep]
                Vi, taui, loi, hii, scalei = (V[:, idx], taui[keep], loi[keep], hii[keep],
                                              scale[idx])
    X = np.clip(V - tau, 0.0, cap)
    # remove the last round-off from the sum on the free entries
    free = (X > 0) & (X < cap)
    nf = free.sum(axis=0)
    corr = np.where(nf > 0, (1.0 - X.sum(axis=0)) / np.maximum(nf, 1), 0.0)
    X = X + free * corr
    return np.clip(X, 0.0, cap)
