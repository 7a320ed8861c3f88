"""Eigenvalues of a diagonal-plus-rank-one matrix by the secular equation.

For ``A = diag(d) + r * z z'`` with ``r > 0`` (the matrix ``X(alpha)`` of Luss &
d'Aspremont written in the eigenbasis of ``K0``), the eigenvalues interlace the
poles ``d`` and are the roots of the secular equation (luss §3.1; Golub 1973;
Gu & Eisenstat 1994)::

    1 + r * sum_i z_i^2 / (d_i - mu) = 0.

Each root costs O(n) with LAPACK's ``dlasd4`` (exposed by SciPy as
:func:`scipy.linalg.lapack.dlasd4`).  ``dlasd4`` solves the *singular value*
form ``D^2 + r z z'`` with ``0 <= D_1 < ... < D_n``, so the spectrum is shifted
to be non-negative and ``D_i = sqrt(d_i + s)``; it also returns the differences
``D_j^2 - sigma^2 = d_j - mu`` to high relative accuracy, which is what the
eigenvector formula ``v ∝ (D - mu)^-1 z`` needs.

Deflation (as LAPACK's ``dlaed2``): a component with ``r |z_i|`` below
``tol = 8 eps max(|d|_max, r)`` keeps its eigenpair ``(d_i, e_i)``; poles closer
than the tolerance are merged (a Givens rotation makes all but one of their
weights zero), the others keeping the pole as an eigenvalue with an eigenvector
orthogonal to ``z``.

Functions here return a :class:`RankOneEig` describing the deflated problem,
from which callers take only the eigenvalues they need (e.g. the negative ones
for the O(n^2) gradient of luss eq. (7)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dlasd4

__all__ = ["RankOneEig", "rank_one_eig", "secular_roots", "shifted_poles"]


@dataclass
class RankOneEig:
    """Deflated description of ``diag(d) + r z z'``.

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    d : ndarray of shape (n,)
        Poles (ascending, as given).
    z : ndarray of shape (n,)
        Update vector (as given, not normalized).
    r : float
        Update weight.
    keep : ndarray of int, shape (m,)
        Indices (into ``d``) of the representatives of the non-deflated poles,
        ascending and distinct.
    group : ndarray of int, shape (n,)
        For each index, the position (in ``keep``) of its pole group, or -1 if
        the component is deflated because its weight is negligible.
    zeta : ndarray of shape (m,)
        Unit-norm weights of the reduced secular equation (the group norms of
        the kept part of ``z``, normalized).
    rr : float
        Weight of the reduced equation: ``r * |z_kept|^2``, so the reduced matrix
        is ``diag(poles) + rr zeta zeta'``.
    deflated_values : ndarray
        Eigenvalues that the update leaves unchanged (tiny-weight poles, and
        each merged group's pole repeated ``size - 1`` times).
    """

    d: np.ndarray
    z: np.ndarray
    r: float
    keep: np.ndarray
    group: np.ndarray
    zeta: np.ndarray
    rr: float
    deflated_values: np.ndarray

    @property
    def poles(self):
        """Reduced (distinct) poles, shape (m,)."""
        return self.d[self.keep]


def rank_one_eig(d, z, r, tol=None):
    """Deflate ``diag(d) + r z z'`` (ascending ``d``, ``r >= 0``).

    Parameters
    ----------
    d : array of shape (n,)
        Ascending diagonal.
    z : array of shape (n,)
        Update vector.
    r : float >= 0
        Update weight: the matrix is ``diag(d) + r z z'``.
    tol : float, optional
        Deflation tolerance; default ``8 eps max(max|d|, r |z|^2)``.

    Returns
    -------
    RankOneEig
        The deflated problem; its roots are found by :func:`secular_roots`.

    Raises
    ------
    ValueError
        If ``d`` is not ascending or ``r < 0``.
    """
    d = np.asarray(d, dtype=float)
    z = np.asarray(z, dtype=float)
    n = d.size
    if r < 0:
        raise ValueError(f"r must be >= 0; got {r}")
    if n > 1 and np.any(np.diff(d) < 0):
        raise ValueError("d must be sorted ascending")
    nz = float(np.linalg.norm(z))
    rr = float(r) * nz * nz
    scale = max(float(np.max(np.abs(d))) if n else 0.0, rr)
    if tol is None:
        tol = 8.0 * np.finfo(float).eps * scale
    group = np.full(n, -1, dtype=np.intp)
    if rr <= tol or nz == 0.0:
        return RankOneEig(d, z, float(r), np.zeros(0, np.intp), group, np.zeros(0), rr, d.copy())
    zn = z / nz
    live = np.flatnonzero(rr * np.abs(zn) > tol)
    deflated = [d[np.setdiff1d(np.arange(n), live, assume_unique=True)]]
    # merge poles whose Givens-rotated off-diagonal |(d_j - d_k) c s| stays below tol (dlaed2)
    # (|c s| <= 1/2, so only gaps below 2 tol are candidates; usually none)
    keep = []
    zeta2 = []
    gaps = np.diff(d[live])
    cand = set(np.flatnonzero(gaps * 0.5 <= tol).tolist()) if live.size > 1 else set()
    if not cand:  # the common case: nothing to merge
        group[live] = np.arange(live.size)
        return _reduced(d, z, r, live, group, np.abs(zn[live]), rr, deflated)
    cur = 0
    cur_w = zn[live[0]] ** 2 if live.size else 0.0
    group_pos = 0
    if live.size:
        keep.append(live[0])
        group[live[0]] = 0
    for t in range(1, live.size):
        j = live[t]
        merge = False
        if (t - 1) in cand:
            c2 = cur_w
            s2 = zn[j] ** 2
            cs = np.sqrt(c2 * s2) / (c2 + s2)
            merge = abs(d[j] - d[live[cur]]) * cs <= tol
        if merge:
            cur_w += zn[j] ** 2
            group[j] = group_pos
            deflated.append(d[[live[cur]]])
        else:
            zeta2.append(cur_w)
            cur = t
            cur_w = zn[j] ** 2
            group_pos += 1
            keep.append(j)
            group[j] = group_pos
    if live.size:
        zeta2.append(cur_w)
    keep = np.asarray(keep, dtype=np.intp)
    zeta = np.sqrt(np.asarray(zeta2, dtype=float))
    return _reduced(d, z, r, keep, group, zeta, rr, deflated)


def _reduced(d, z, r, keep, group, zeta, rr, deflated):
    """Renormalize the kept weights: ``rr zeta zeta'`` with ``|zeta| = 1`` (what dlasd4 and
    the trace identities assume); deflated components can carry a noticeable share of
    ``|z|`` when ``rr`` is small against ``max |d|``."""
    w = float(np.linalg.norm(zeta))
    return RankOneEig(d, z, float(r), np.asarray(keep, dtype=np.intp), group, zeta / w, rr * w * w,
                      np.concatenate(deflated))


def shifted_poles(p):
    """``D = sqrt(p - p_0)``: the non-negative singular-value form dlasd4 works on.

    Differences of poles must be taken as ``(D_k - D_l)(D_k + D_l)`` wherever they
    are combined with dlasd4's ``DELTA * WORK`` (the Loewner formula), so that both
    refer to the same rounded poles.

    Parameters
    ----------
    p : ndarray of shape (m,)
        Ascending poles.

    Returns
    -------
    D : ndarray of shape (m,)
        ``sqrt(p - p[0])``.
    """
    return np.sqrt(np.maximum(p - p[0], 0.0))


def secular_roots(eig, which):
    """Roots of the reduced secular equation of ``eig`` by LAPACK ``dlasd4``.

    Parameters
    ----------
    eig : RankOneEig
        The deflated problem of :func:`rank_one_eig`.
    which : array of int
        Root indices ``i`` (0-based, ``0 <= i < m``); root ``i`` lies in
        ``(p_i, p_{i+1})`` for the reduced poles ``p`` (the last one in
        ``(p_m, p_m + rr)``).

    Returns
    -------
    mu : ndarray of shape (k,)
        The roots.
    delta : ndarray of shape (k, m)
        ``p_j - mu_i`` for every reduced pole ``p_j``, accurate to high relative
        precision (from dlasd4's ``DELTA * WORK``).

    Raises
    ------
    RuntimeError
        If dlasd4 reports failure to converge.
    """
    p = eig.poles
    m = p.size
    which = np.asarray(which, dtype=np.intp)
    k = which.size
    mu = np.empty(k)
    delta = np.empty((k, m))
    if k == 0:
        return mu, delta
    if m == 1:
        # one pole: the root is p + rr exactly (dlasd4 with N = 1 returns DELTA = WORK = 1)
        mu[:] = p[0] + eig.rr
        delta[:] = -eig.rr
        return mu, delta
    shift = -p[0]
    D = shifted_poles(p)
    # strictly increasing D is required; exact ties cannot occur after merging
    zeta = eig.zeta
    rr = eig.rr
    for t, i in enumerate(which):
        dl, sigma, work, info = dlasd4(int(i), D, zeta, rr)
        if info != 0:
            raise RuntimeError(f"LAPACK dlasd4 failed (info={info}) on root {i} of {m}")
        np.multiply(dl, work, out=delta[t])
        # mu from the nearer pole: p_j - (p_j - mu) keeps the relative accuracy of DELTA
        j = i if (i + 1 >= m or abs(delta[t, i]) <= abs(delta[t, i + 1])) else i + 1
        mu[t] = p[j] - delta[t, j]
    return mu, delta
