"""The global minimum of a quadratic form over a hypersphere, by its secular equation.

The learning problem of Oglic & Gärtner (2018, "Learning in reproducing kernel Kreĭn
spaces", ICML, PMLR 80) becomes, in the eigenbasis of the kernel, the minimization of a
(non-convex) quadratic over the sphere of radius ``r``::

    min_beta  beta' A beta - 2 b' beta     subject to  ||beta||^2 = r^2,      (S)

with a symmetric ``A = Q diag(a) Q'`` (diagonal in the kernel's eigenbasis,
:mod:`krein.estimators.rkks`).  (S) is the equality-constrained trust-region subproblem;
a point ``beta`` is a GLOBAL minimizer if and only if some ``mu`` satisfies
(Gander, Golub & von Matt 1989, §2; Moré & Sorensen 1983, Lemma 2.4 and Theorem 3.1)::

    (A - mu I) beta = b,   ||beta|| = r,   A - mu I positive semidefinite (mu <= a_min).

In the eigenbasis ``beta_i(mu) = b_i / (a_i - mu)``, and ``mu`` is the root left of
``a_min`` of the SECULAR EQUATION ``||beta(mu)||^2 = sum_i b_i^2 / (a_i - mu)^2 = r^2``:
``||beta(mu)||`` increases from 0 to infinity on ``(-inf, a_min)`` when ``b`` has a
component on the eigenspace of ``a_min``, so the root is unique.  It is found by
:func:`scipy.optimize.brentq` on ``1 / ||beta|| - 1 / r`` (the nearly linear form of
Moré & Sorensen 1983, eq. 3.6) in the distance ``delta = a_min - mu`` (so that
``a_i - mu = (a_i - a_min) + delta`` keeps its relative accuracy near the pole), inside
the bracket ``[c / r, ||b|| / r]`` (``c``: the norm of ``b`` on the eigenspace of
``a_min``), where the function changes sign.  Each evaluation is O(n); the
eigendecomposition of ``A`` (O(n^3), given) is the only cubic step.

The HARD CASE: ``b`` orthogonal to the eigenspace of ``a_min`` (``c = 0``).  If the
minimum-norm solution of ``(A - a_min I) beta = b`` has ``||beta_0|| <= r``, then
``mu = a_min`` and ``beta = beta_0 + tau e`` with ``e`` a unit eigenvector of ``a_min``
and ``tau = sqrt(r^2 - ||beta_0||^2)`` (Moré & Sorensen 1983, §3; the minimizer is then
not unique: ``-tau`` is as good); otherwise the root is in ``(-inf, a_min)`` as before.

Certificate (computed from the returned point, independent of how it was found): the
relative residuals of the three conditions above and the duality gap
``objective - (mu r^2 - b' (A - mu I)^+ b)`` (the Lagrangian dual of (S) is tight: the
S-lemma).

:func:`sphere_sensitivity` differentiates the solution in the data of (S) (the
implicit function theorem on the first two conditions), for the hyperparameter
gradients of Oglic & Gärtner (2018; their derivation was not readable here).

References
----------
Oglic & Gärtner (2018), "Learning in reproducing kernel Kreĭn spaces", ICML, PMLR 80.
Gander, Golub & von Matt (1989), "A constrained eigenvalue problem", Linear Algebra Appl.
114/115, 815-839.  Moré & Sorensen (1983), "Computing a trust region step", SIAM J. Sci.
Stat. Comput. 4(3), 553-572.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import brentq

from .core import Solution

__all__ = ["sphere_minimize", "sphere_sensitivity", "SPHERE_EIGEN_RTOL"]

#: Eigenvalues within ``SPHERE_EIGEN_RTOL * max|a|`` of ``a_min`` form its eigenspace; a
#: component of ``b`` on it below ``SPHERE_EIGEN_RTOL * ||b||`` counts as zero (hard case).
SPHERE_EIGEN_RTOL = 8 * np.finfo(float).eps


def _check(eigenvalues, b, radius_squared, eigenvectors):
    a = np.asarray(eigenvalues, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError("eigenvalues must be a non-empty finite 1-d array; got shape "
                         f"{a.shape}")
    if eigenvectors is not None:
        Q = np.asarray(eigenvectors, dtype=float)
        if Q.ndim != 2 or Q.shape[1] != a.size:
            raise ValueError(f"eigenvectors must have shape (n, {a.size}); got {Q.shape}")
        if b.shape != (Q.shape[0],):
            raise ValueError(f"b must have shape ({Q.shape[0]},); got {b.shape}")
        b = Q.T @ b
    elif b.shape != a.shape:
        raise ValueError(f"b must have the shape of eigenvalues {a.shape}; got {b.shape}")
    if not np.all(np.isfinite(b)):
        raise ValueError("b must be finite")
    if not (np.isscalar(radius_squared) and np.isfinite(radius_squared)
            and radius_squared > 0):
        raise ValueError(f"radius_squared must be a finite number > 0; got {radius_squared!r}")
    return a, b, float(radius_squared)


def sphere_minimize(eigenvalues, b, radius_squared, *, eigenvectors=None):
    """Global minimizer of ``beta' A beta - 2 b' beta`` over ``||beta||^2 = radius_squared``.

    The secular-equation method of the module docstring (Gander, Golub & von Matt
    1989; Moré & Sorensen 1983), with the hard case; the problem of Oglic & Gärtner
    (2018) in the kernel's eigenbasis.

    Parameters
    ----------
    eigenvalues : array of shape (k,)
        Eigenvalues ``a`` of the symmetric matrix ``A`` (any order).
    b : array of shape (k,), or (n,) with ``eigenvectors``
        The linear term.
    radius_squared : float > 0
        ``r^2``, the squared radius of the sphere.
    eigenvectors : array of shape (n, k), optional
        Orthonormal eigenvectors ``Q`` of ``A = Q diag(a) Q'``; None: ``A = diag(a)``
        (the variables are the eigen-coordinates).  With ``k < n`` the problem is
        restricted to the span of ``Q``.

    Returns
    -------
    krein.solvers.Solution
        ``primal["beta"]`` (shape (n,) or (k,)), ``dual["mu"]`` (the multiplier),
        ``objective``, ``iterations`` (evaluations of the secular function),
        ``certificate`` with ``stationarity`` (``||(A - mu I) beta - b||`` relative to
        ``max|a| r + |mu| r + ||b||``), ``norm`` (``| ||beta|| - r | / r``), ``psd``
        (``max(mu - a_min, 0)`` relative to ``max|a|``), ``gap`` (objective minus the
        dual value, relative to ``max|a| r^2 + ||b|| r``), ``kkt_residual`` (their
        maximum), ``hard_case`` and ``a_min``; ``certificate_kind="kkt_residual"``.

    Raises
    ------
    ValueError
        On non-finite or mis-shaped input, or ``radius_squared <= 0``.
    """
    t0 = time.perf_counter()
    a, bq, r2 = _check(eigenvalues, b, radius_squared, eigenvectors)
    r = np.sqrt(r2)
    scale_a = max(float(np.max(np.abs(a))), np.finfo(float).tiny)
    a_min = float(a.min())
    group = a - a_min <= SPHERE_EIGEN_RTOL * scale_a
    nb = float(np.linalg.norm(bq))
    c = float(np.linalg.norm(bq[group]))
    gap_a = np.where(group, 0.0, a - a_min)        # a_i - a_min, exactly 0 on the eigenspace
    calls = [0]
    hard = c <= SPHERE_EIGEN_RTOL * nb or nb == 0.0
    live = ~group if hard else np.ones(a.size, dtype=bool)

    def norm_beta(delta):
        calls[0] += 1
        return float(np.linalg.norm(bq[live] / (gap_a[live] + delta)))

    if hard and norm_beta(0.0) <= r:
        delta = 0.0
        beta = np.zeros_like(bq)
        beta[live] = bq[live] / gap_a[live]
        e = int(np.flatnonzero(group)[0])
        beta[e] = np.sqrt(max(r2 - float(beta @ beta), 0.0))
    else:
        lo = 0.0 if hard else c / r
        hi = nb / r
        if lo >= hi:                               # all of b on the eigenspace of a_min
            delta = hi
        else:
            # 1/r - 1/||beta(delta)|| is >= 0 at lo (||beta|| >= r) and <= 0 at hi
            delta = brentq(lambda d: 1.0 / r - 1.0 / norm_beta(d), lo, hi,
                           xtol=np.finfo(float).tiny, rtol=4 * np.finfo(float).eps,
                           maxiter=500)
        beta = np.zeros_like(bq)
        beta[live] = bq[live] / (gap_a[live] + delta)
    mu = a_min - delta
    objective = float(beta @ (a * beta) - 2.0 * bq @ beta)
    cert = _certificate(a, bq, r2, beta, mu, objective, scale_a, hard and delta == 0.0)
    out = beta if eigenvectors is None else np.asarray(eigenvectors, dtype=float) @ beta
    return Solution(solver="secular", status="optimal", objective=objective,
                    primal={"beta": out}, dual={"mu": float(mu)}, setup_time=0.0,
                    solve_time=time.perf_counter() - t0, iterations=calls[0],
                    primal_residual=cert["norm"], dual_residual=cert["stationarity"],
                    gap=cert["gap"], certificate=cert, certificate_kind="kkt_residual")


def _certificate(a, b, r2, beta, mu, objective, scale_a, hard):
    """The global optimality conditions of (S) checked at ``(beta, mu)`` (module docstring)."""
    r = np.sqrt(r2)
    nb = float(np.linalg.norm(b))
    res = (a - mu) * beta - b
    stat = float(np.linalg.norm(res)) / (scale_a * r + abs(mu) * r + nb + np.finfo(float).tiny)
    norm = abs(float(np.linalg.norm(beta)) - r) / r
    a_min = float(a.min())
    psd = max(mu - a_min, 0.0) / scale_a
    d = a - mu
    pos = d > SPHERE_EIGEN_RTOL * scale_a
    dual = mu * r2 - float(np.sum(b[pos] ** 2 / d[pos]))
    gap = abs(objective - dual) / (scale_a * r2 + nb * r + np.finfo(float).tiny)
    return {"stationarity": stat, "norm": norm, "psd": psd, "gap": gap,
            "kkt_residual": max(stat, norm, psd, gap), "hard_case": bool(hard),
            "a_min": a_min, "dual_objective": dual}


def sphere_sensitivity(eigenvalues, beta, mu, *, d_eigenvalues=None, d_b=None,
                       d_radius_squared=0.0):
    """Directional derivative of the solution of (S) in its data (implicit function theorem).

    Differentiating ``(A - mu I) beta = b`` and ``beta' beta = r^2`` with ``A = diag(a)``
    along ``(da, db, d(r^2))``::

        (A - mu I) dbeta - beta dmu = db - da * beta,    2 beta' dbeta = d(r^2),

    solved with ``H = (A - mu I)^-1`` (``mu < a_min``):
    ``dmu = (d(r^2) - 2 beta' H (db - da beta)) / (2 beta' H beta)`` and
    ``dbeta = H (db - da beta + beta dmu)`` (Oglic & Gärtner 2018: the gradient of
    the solution in the hyperparameters).

    Parameters
    ----------
    eigenvalues : array of shape (k,)
        Diagonal ``a`` of ``A`` (the eigen-coordinates of :func:`sphere_minimize`).
    beta : array of shape (k,)
        The solution (in the same coordinates).
    mu : float
        Its multiplier, ``mu < min(a)``.
    d_eigenvalues : array of shape (k,), optional
        Direction ``da`` (default 0).
    d_b : array of shape (k,), optional
        Direction ``db`` (default 0).
    d_radius_squared : float
        Direction of ``r^2``.

    Returns
    -------
    dbeta : ndarray of shape (k,)
        Derivative of ``beta``.
    dmu : float
        Derivative of ``mu``.

    Raises
    ------
    ValueError
        In the hard case (``mu >= min(a)``): the solution is not differentiable there
        in general (its branch is not unique).
    """
    a = np.asarray(eigenvalues, dtype=float)
    beta = np.asarray(beta, dtype=float)
    d = a - float(mu)
    if not np.all(d > 0):
        raise ValueError("sphere_sensitivity: mu must be below every eigenvalue (the hard case "
                         "mu = a_min has no derivative in general)")
    rhs = np.zeros_like(a) if d_b is None else np.asarray(d_b, dtype=float).copy()
    if d_eigenvalues is not None:
        rhs -= np.asarray(d_eigenvalues, dtype=float) * beta
    h_beta = beta / d
    h_rhs = rhs / d
    dmu = (float(d_radius_squared) - 2.0 * float(beta @ h_rhs)) / (2.0 * float(beta @ h_beta))
    return h_rhs + h_beta * dmu, dmu
