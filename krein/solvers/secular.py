"""Eigenvalues of a diagonal-plus-rank-one matrix by the secular equation.

For ``A = diag(d) + r * z z'`` with ``r > 0`` (the matrix ``X(alpha)`` of Luss &
d'Aspremont written in the eigenbasis of ``K0``), the eigenvalues interlace the
poles ``d`` and are the roots of the secular equation (luss §3.1; Golub 1973;
Gu & Eisenstat 1994)::

    1 + r * sum_i z_i^2 / (d_i - mu) = 0.

Two root finders, one answer:

* ``method="vectorized"`` (default): every requested root at once, in NumPy, by the
  safeguarded middle-way iteration of LAPACK's ``dlaed4`` (Li 1993) run on arrays,
  blocks of consecutive roots against all poles so that the work arrays stay
  cache-sized.  Each root keeps its origin at the nearer pole, so the differences
  ``d_j - mu = (d_j - d_o) - tau`` that the eigenvector formula
  ``v ∝ (D - mu)^-1 z`` needs keep high relative accuracy.  :func:`secular_apply`
  also forms ``sum_i f(mu_i) v_i v_i' z`` block by block, without the ``(k, m)``
  matrix of differences.
* ``method="lapack"``: one call per root of LAPACK's ``dlasd4`` (exposed by SciPy as
  :func:`scipy.linalg.lapack.dlasd4`), the reference the tests compare against.
  ``dlasd4`` solves the *singular value* form ``D^2 + r z z'`` with
  ``0 <= D_1 < ... < D_n``, so the spectrum is shifted to be non-negative and
  ``D_i = sqrt(d_i + s)``; it returns the differences ``D_j^2 - sigma^2 = d_j - mu``
  to high relative accuracy *of the shifted poles* (a cluster of poles far from the
  smallest one loses digits in the shift, which the vectorized solver avoids).

Deflation (as LAPACK's ``dlaed2``): a component with ``r |z_i|`` below
``tol = 8 eps max(|d|_max, r)`` keeps its eigenpair ``(d_i, e_i)``; poles closer
than the tolerance are merged (a Givens rotation makes all but one of their
weights zero), the others keeping the pole as an eigenvalue with an eigenvector
orthogonal to ``z``.

Functions here return a :class:`RankOneEig` describing the deflated problem,
from which callers take only the eigenvalues they need (e.g. the negative ones
for the O(n^2) gradient of luss eq. (7)).

References
----------
Golub (1973), "Some modified matrix eigenvalue problems", SIAM Review 15(2).
Li (1993), "Solving secular equations stably and efficiently", LAPACK Working Note 89
(the middle way of ``dlaed4``).
Gu & Eisenstat (1994), "A stable and efficient algorithm for the rank-one modification
of the symmetric eigenproblem", SIAM J. Matrix Anal. Appl. 15(4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dger as _dger
from scipy.linalg.lapack import dlasd4

from .._threads import blas_controller

__all__ = ["RankOneEig", "rank_one_eig", "secular_roots", "secular_apply", "shifted_poles"]


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
    tiny_values = d[np.setdiff1d(np.arange(n), live, assume_unique=True)]
    # merge poles whose Givens-rotated off-diagonal |(d_j - d_k) c s| stays below tol (dlaed2)
    # (|c s| <= 1/2, so only gaps below 2 tol are candidates; a pole whose left gap is not a
    # candidate starts a group, so the sequential test runs over the candidates only)
    cand = np.flatnonzero(np.diff(d[live]) * 0.5 <= tol) + 1 if live.size > 1 else []
    if len(cand) == 0:  # the common case: nothing to merge
        group[live] = np.arange(live.size)
        return _reduced(d, z, r, live, group, np.abs(zn[live]), rr, [tiny_values])
    zn2 = zn[live] ** 2
    dl = d[live]
    starts = np.ones(live.size, dtype=bool)
    rep = np.arange(live.size)          # representative (first member) of each position's group
    wsum = zn2.copy()                   # accumulated weight, valid at representatives
    for t in cand.tolist():
        g = rep[t - 1]                  # the group of the previous pole, still open
        c2, s2 = wsum[g], zn2[t]
        if abs(dl[t] - dl[g]) * (np.sqrt(c2 * s2) / (c2 + s2)) <= tol:
            starts[t] = False
            rep[t] = g
            wsum[g] += s2
    gid = np.cumsum(starts) - 1
    group[live] = gid
    keep = live[starts]
    zeta = np.sqrt(wsum[starts])
    # each merged member leaves its group's pole as an eigenvalue
    return _reduced(d, z, r, keep, group, zeta, rr, [tiny_values, dl[rep[~starts]]])


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


_METHODS = ("vectorized", "lapack")

#: Entries of one (roots x poles) work array of the vectorized solver (four of them:
#: pole differences kept per block, deltas, reciprocals, squares; 8 MiB in all, within
#: a shared L3 cache).  Measured
#: best at n = 2000 and 4000: 2^16 pays NumPy's per-call overhead, 2^20 cache misses.
BLOCK_ENTRIES = 1 << 18

#: Iterations of the vectorized solver before it gives up (LAPACK's dlaed4 allows 30; the
#: bisection fallback halves the bracket, so 64 reach the resolution of any double).
MAX_ITER = 64

#: Iterations a block of roots runs before its slow roots are pooled with the others'.
FIRST_PASS = 4


def _check_which(which, m, method):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    which = np.asarray(which, dtype=np.intp).ravel()
    if which.size and (which.min() < 0 or which.max() >= m):
        raise ValueError(f"root indices must lie in [0, {m}); got {which.min()}..{which.max()}")
    return which


def secular_roots(eig, which, method="vectorized"):
    """Roots of the reduced secular equation of ``eig`` and their pole differences.

    Parameters
    ----------
    eig : RankOneEig
        The deflated problem of :func:`rank_one_eig`.
    which : array of int
        Root indices ``i`` (0-based, ``0 <= i < m``); root ``i`` lies in
        ``(p_i, p_{i+1})`` for the reduced poles ``p`` (the last one in
        ``(p_m, p_m + rr)``).
    method : {"vectorized", "lapack"}
        ``"vectorized"`` (default): all roots at once by the safeguarded middle-way
        iteration of LAPACK's ``dlaed4`` run on arrays (:func:`secular_apply`
        describes it); ``"lapack"``: one call of LAPACK ``dlasd4`` per root, the
        reference the tests compare against.

    Returns
    -------
    mu : ndarray of shape (k,)
        The roots.
    delta : ndarray of shape (k, m)
        ``p_j - mu_i`` for every reduced pole ``p_j``, accurate to high relative
        precision: ``(p_j - p_o) - tau_i`` with the origin ``p_o`` the pole nearer to
        ``mu_i = p_o + tau_i`` (dlaed4), or dlasd4's ``DELTA * WORK``.

    Raises
    ------
    ValueError
        For an unknown ``method`` or a root index outside ``[0, m)``.
    RuntimeError
        If the iteration (or dlasd4) fails to converge.

    References
    ----------
    Golub (1973), "Some modified matrix eigenvalue problems", SIAM Review 15.
    Li (1993), "Solving secular equations stably and efficiently", LAPACK Working
    Note 89 (the middle way of ``dlaed4``).
    Gu & Eisenstat (1994), SIAM J. Matrix Anal. Appl. 15(4).
    """
    p = eig.poles
    m = p.size
    which = _check_which(which, m, method)
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
    if method == "lapack":
        return _lapack_roots(eig, which, mu, delta)

    def sink(pos, mu_b, D, inv, dw):
        mu[pos] = mu_b
        delta[pos] = D

    _middle_way(p, eig.zeta, eig.rr, which, sink)
    return mu, delta


def _lapack_roots(eig, which, mu, delta):
    p = eig.poles
    m = p.size
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


def secular_apply(eig, which, func, method="vectorized"):
    """Roots of the secular equation and ``sum_i func(mu_i) v_i v_i' zeta`` over them.

    For the reduced matrix ``A = diag(p) + rr zeta zeta'`` (``|zeta| = 1``) the unit
    eigenvector of the root ``mu_i`` is ``v_i = (P - mu_i)^-1 zeta / sqrt(N2_i)`` with
    ``N2_i = sum_j zeta_j^2 / (p_j - mu_i)^2``, the derivative of the secular function
    ``w(mu) = 1/rr + sum_j zeta_j^2 / (p_j - mu)`` at its root, and
    ``v_i' zeta = -1 / (rr sqrt(N2_i))``.  Hence::

        sum_i func(mu_i) v_i v_i' zeta = -(zeta / rr) * s,
        s_j = sum_i func(mu_i) / (N2_i (p_j - mu_i)),

    which is what the O(n^2) oracle of luss eq. (7) needs (``func(mu) = min(mu, 0)``
    gives ``A_- zeta``).  With ``method="vectorized"`` neither the ``(k, m)`` matrix
    of differences nor its reciprocal is formed: the roots are solved in blocks of
    consecutive indices whose work arrays stay cache-sized, ``N2`` is the derivative
    the iteration already computed at the root, and ``s`` is accumulated block by block.

    The iteration is the middle way of LAPACK's ``dlaed4`` (Li 1993) run on arrays:
    root ``i < m - 1`` is bracketed in ``(p_i, p_{i+1})``; the sign of ``w`` at the
    midpoint picks the origin ``p_o``, the nearer pole, so that ``mu = p_o + tau`` and
    every ``p_j - mu = (p_j - p_o) - tau`` keep high relative accuracy (Gu & Eisenstat
    1994); each step solves the two-pole rational model that fits ``w`` and ``w'``
    (interpolating the far poles by a constant or, after a stalled step, by the two
    partial derivatives), and a step leaving the bracket is replaced by bisection
    toward its end.  The last root lies in ``(p_m, p_m + rr)`` and takes ``p_m`` as
    its origin (dlaed4's case ``I = N``).  A root stops when ``|w|`` is below the
    round-off bound of dlaed4 or its step no longer changes it.

    Parameters
    ----------
    eig : RankOneEig
        The deflated problem of :func:`rank_one_eig`.
    which : array of int
        Root indices ``i`` (0-based, ``0 <= i < m``), as in :func:`secular_roots`.
    func : callable
        Vectorized ``func(mu) -> ndarray`` of the spectral function, applied to
        arrays of roots.
    method : {"vectorized", "lapack"}
        ``"vectorized"`` (default) or ``"lapack"`` (dlasd4 per root, then the dense
        ``(k, m)`` reciprocals: the reference).

    Returns
    -------
    mu : ndarray of shape (k,)
        The roots, in the order of ``which``.
    s : ndarray of shape (m,)
        ``s_j = sum_i func(mu_i) / (N2_i (p_j - mu_i))``.

    Raises
    ------
    ValueError
        For an unknown ``method`` or a root index outside ``[0, m)``.
    RuntimeError
        If the iteration (or dlasd4) fails to converge.

    References
    ----------
    Golub (1973), SIAM Review 15; Li (1993), LAPACK Working Note 89 (``dlaed4``);
    Gu & Eisenstat (1994), SIAM J. Matrix Anal. Appl. 15(4); Luss & d'Aspremont
    (2009), §3.1.
    """
    p = eig.poles
    m = p.size
    which = _check_which(which, m, method)
    s = np.zeros(m)
    if which.size == 0:
        return np.empty(0), s
    zeta2 = eig.zeta ** 2
    if method == "lapack" or m == 1:
        mu, delta = secular_roots(eig, which, method="lapack")
        inv = 1.0 / delta                       # (k, m)
        N2 = (inv * inv) @ zeta2                # ||(P - mu)^-1 zeta||^2
        return mu, inv.T @ (np.asarray(func(mu), dtype=float) / N2)
    mu = np.empty(which.size)

    def sink(pos, mu_b, D, inv, dw):
        mu[pos] = mu_b
        s[:] += (np.asarray(func(mu_b), dtype=float) / dw) @ inv

    _middle_way(p, eig.zeta, eig.rr, which, sink)
    return mu, s


# ---------------------------------------------------------------------------- the iteration
class _Block:
    """Work arrays of one block of roots (rows) against all ``m`` poles (columns)."""

    def __init__(self, rows, m):
        self.D = np.empty((rows, m))      # p_j - mu = (p_j - p_origin) - tau
        self.inv = np.empty((rows, m))    # 1 / D
        self.sq = np.empty((rows, m))     # 1 / D^2
        self.PD = np.empty((rows, m))     # p_j - p_origin of the block's roots, kept

    def view(self, b):
        return self.D[:b], self.inv[:b], self.sq[:b]


def _row_differences(D, p, origin, tau=None, fill=True):
    """``D[r] = (p - origin[r]) - tau[r]``, each subtraction rounded once.

    BLAS rank-one updates (``dger`` on the Fortran view ``D.T``, with unit factors so
    that ``a - 1 * x`` is exact before its rounding) run at memory speed, where NumPy
    broadcasts a column vector element by element.
    """
    if fill:
        D[:] = p
    ones = np.ones(D.shape[1])
    for x in (origin, tau):
        if x is None:
            continue
        out = _dger(-1.0, ones, x, a=D.T, overwrite_a=1)
        if out.ctypes.data != D.ctypes.data:    # (a BLAS wrapper that copied)
            D[:] = out.T
    return D


def _evaluate(p, D, inv, sq, tau, ii, lo, hi, zeta, z2, rhoinv, filled=False):
    """``w``, ``w'``, the sums over the poles below / above the origin, and dlaed4's bound.

    ``D = (p_j - p_o) - tau`` is formed in two roundings, so that it keeps the
    relative accuracy of ``tau`` (dlaed4); rows are roots, columns poles.  The origin's
    term ``zeta_o^2 / -tau`` is added analytically.  The poles below and above each
    origin are told apart without masks: columns left of ``lo`` (right of ``hi``) lie
    below (above) every origin of the block, and in the band ``[lo, hi]`` the sign of
    ``1 / (p_j - mu)`` tells the side, so the band adds ``|1/D|`` and ``1/D |1/D|`` sums.
    """
    b = tau.size
    if filled:                                      # D holds p_j - p_o already
        _row_differences(D, p, None, tau, fill=False)
    else:
        _row_differences(D, p, p[ii], tau)
    np.divide(1.0, D, out=inv)
    inv[np.arange(b), ii] = 0.0
    np.multiply(inv, inv, out=sq)
    zl, zb, zr = z2[:lo], z2[lo:hi + 1], z2[hi + 1:]
    band = inv[:, lo:hi + 1]
    s_l, s_r = inv[:, :lo] @ zl, inv[:, hi + 1:] @ zr
    q_l, q_r = sq[:, :lo] @ zl, sq[:, hi + 1:] @ zr
    ab = np.abs(band)
    s_b, a_b = band @ zb, ab @ zb
    np.multiply(ab, band, out=ab)
    q_b, d_b = sq[:, lo:hi + 1] @ zb, ab @ zb
    far = s_l + s_b + s_r                           # psi + phi (origin excluded)
    spread = s_r - s_l + a_b                        # phi - psi = sum of |terms|
    dfar = q_l + q_b + q_r                          # dpsi + dphi
    dspread = q_r - q_l + d_b                       # dphi - dpsi
    dpsi, dphi = 0.5 * (dfar - dspread), 0.5 * (dfar + dspread)
    temp = zeta[ii] / -tau                          # the origin's term: D[r, ii] = -tau
    dw = dfar + temp * temp
    temp = zeta[ii] * temp
    w = rhoinv + far + temp
    # dlaed4's bound, with its running partial sums of psi and phi bounded by
    # log2(m) (phi - psi): the error of the blocked sums of BLAS
    errb = ((8.0 + np.log2(D.shape[1])) * spread + 2.0 * rhoinv + 3.0 * np.abs(temp)
            + np.abs(tau) * dw)
    return w, dw, dpsi, dphi, errb


def _emit(sink, pos, p, ii, tau, D, inv, dw):
    """Hand converged roots to ``sink``, their origin's ``1 / (p_o - mu) = -1 / tau`` restored."""
    inv[np.arange(tau.size), ii] = -1.0 / tau
    sink(pos, p[ii] + tau, D, inv, dw)


def _quadratic_root(a, b, c):
    """dlaed4's stable root of ``c eta^2 - a eta + b = 0`` (the one of the model)."""
    disc = np.sqrt(np.abs(a * a - 4.0 * b * c))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a <= 0.0, (a - disc) / (2.0 * c), 2.0 * b / (a + disc))


def _one_blas_thread():
    """Context limiting BLAS to one thread (the controller of :mod:`krein._threads`).

    The solver makes thousands of small BLAS calls on cache-sized blocks; a threaded
    BLAS spends more on waking its threads than on the work (measured 6x slower with
    two threads on two cores running other work), so they run on the calling thread.
    """
    return blas_controller().limit(limits=1, user_api="blas")


def _middle_way(p, zeta, rr, which, sink):
    """Solve the roots ``which``; ``sink(pos, mu, D, inv, dw)`` as they converge.

    Blocks of consecutive roots run :data:`FIRST_PASS` iterations (most roots converge
    in 3 or 4), and the few still moving are pooled and finished together, so the
    per-iteration overhead of the slow ones is paid once rather than per block.
    """
    with _one_blas_thread():
        _middle_way_blocks(p, zeta, rr, which, sink)


def _middle_way_blocks(p, zeta, rr, which, sink):
    m = p.size
    z2 = zeta * zeta
    rhoinv = 1.0 / rr
    order = np.argsort(which, kind="stable")
    sorted_which = which[order]
    interior = sorted_which < m - 1
    b_max = max(1, min(int(interior.sum()), BLOCK_ENTRIES // m))
    work = _Block(b_max, m)
    pos_int = order[interior]
    idx_int = sorted_which[interior]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pool = []
        for a in range(0, idx_int.size, b_max):
            state = _initial_state(p, z2, rhoinv, idx_int[a:a + b_max], pos_int[a:a + b_max],
                                   work)
            left = _iterate(p, zeta, z2, rhoinv, state, work, sink, FIRST_PASS)
            if left is not None:
                pool.append(left)
        if pool:
            pool = {key: np.concatenate([s[key] for s in pool]) for key in pool[0]}
            n_pool = pool["i"].size
            for a in range(0, n_pool, b_max):
                state = {key: v[a:a + b_max] for key, v in pool.items()}
                nb = state["i"].size
                _row_differences(work.PD[:nb], p, p[state["ii"]])
                state["row"] = np.arange(nb)
                if _iterate(p, zeta, z2, rhoinv, state, work, sink, MAX_ITER) is not None:
                    raise RuntimeError(f"secular equation: roots of {m} did not converge in "
                                       f"{MAX_ITER} iterations")
        if not interior.all():
            tau, D, inv, dw = _last_root(p, zeta, z2, rr, _Block(1, m))
            for pos in order[~interior]:        # (the index m - 1, possibly repeated)
                _emit(sink, np.array([pos]), p, np.array([m - 1]), tau, D, inv, dw)


def _initial_state(p, z2, rhoinv, i, pos, work):
    """dlaed4's origin and initial guess for the roots ``i < m - 1`` (ascending)."""
    b = i.size
    D, inv, _ = work.view(b)
    ip1 = i + 1
    rows = np.arange(b)
    # w at the midpoint with the two nearest poles kept apart
    dl = p[ip1] - p[i]
    midpt = 0.5 * dl
    _row_differences(D, p, p[i], midpt)
    np.divide(1.0, D, out=inv)
    inv[rows, i] = 0.0
    inv[rows, ip1] = 0.0
    c = rhoinv + inv @ z2
    w = c - z2[i] / midpt + z2[ip1] / midpt
    orgati = w > 0.0                            # root in (p_i, midpoint]: origin p_i
    a_l = c * dl + z2[i] + z2[ip1]
    b_l = z2[i] * dl
    a_r = c * dl - z2[i] - z2[ip1]
    b_r = z2[ip1] * dl
    tau_l = np.where(a_l > 0.0, 2.0 * b_l / (a_l + np.sqrt(np.abs(a_l * a_l - 4.0 * b_l * c))),
                     (a_l - np.sqrt(np.abs(a_l * a_l - 4.0 * b_l * c))) / (2.0 * c))
    tau_r = np.where(a_r < 0.0, 2.0 * b_r / (a_r - np.sqrt(np.abs(a_r * a_r + 4.0 * b_r * c))),
                     -(a_r + np.sqrt(np.abs(a_r * a_r + 4.0 * b_r * c))) / (2.0 * c))
    tau = np.where(orgati, tau_l, tau_r)
    lb = np.where(orgati, 0.0, -midpt)
    ub = np.where(orgati, midpt, 0.0)
    bad = ~((tau > lb) & (tau < ub))            # a guess on or outside the bracket: its middle
    tau[bad] = 0.5 * (lb[bad] + ub[bad])
    zeros = np.zeros(b)
    ii = np.where(orgati, i, ip1)
    _row_differences(work.PD[:b], p, p[ii])      # kept for every iteration of the block
    return {"i": i, "pos": pos, "ii": ii, "orgati": orgati, "tau": tau,
            "lb": lb, "ub": ub, "nit": np.zeros(b, dtype=np.intp), "swtch": zeros > 0,
            "stalled": zeros > 0, "prew": zeros, "row": np.arange(b)}


def _iterate(p, zeta, z2, rhoinv, st, work, sink, max_iter):
    """At most ``max_iter`` middle-way iterations on the roots of ``st`` (dlaed4, ``I < N``).

    dlaed4's formulas are written relative to the origin ``o`` and the other end ``x``
    of each root's interval (``d_o = p_o - mu = -tau``, ``d_x = p_x - mu``), which makes
    them the same for both choices of origin.  Converged roots are handed to ``sink``
    and dropped, so that later iterations cost only the roots still moving; returns
    the state of those left, or None.
    """
    eps = np.finfo(float).eps
    for _ in range(max_iter):
        i, ii, orgati, tau, nit = st["i"], st["ii"], st["orgati"], st["tau"], st["nit"]
        b = i.size
        D, inv, sq = work.view(b)
        np.take(work.PD, st["row"], axis=0, out=D, mode="clip")   # the rows still moving
        w, dw, dpsi, dphi, errb = _evaluate(p, D, inv, sq, tau, ii, int(i[0]), int(i[-1]) + 1,
                                            zeta, z2, rhoinv, filled=True)
        prew = st["prew"]
        # after the first step dlaed4 sets the switch from w's sign (w on the origin's
        # side of 0 after a short step), then flips it whenever a step fails to reduce
        # |w| tenfold
        big = np.abs(w) > np.abs(prew) / 10.0
        swtch = np.where(nit == 1, big & ((w < 0.0) == orgati),
                         st["swtch"] ^ (big & (w * prew > 0.0) & (nit > 1)))
        done = st["stalled"] | (np.abs(w) <= eps * errb)
        ix = i + orgati                             # the other end: i + 1 if origin i, else i
        d_x = D[np.arange(b), ix]
        if done.any():
            _emit(sink, st["pos"][done], p, ii[done], tau[done], D[done], inv[done], dw[done])
            if done.all():
                return None
            keep = ~done
            st = {key: v[keep] for key, v in st.items()}
            i, ii, orgati, tau, nit = st["i"], st["ii"], st["orgati"], st["tau"], st["nit"]
            swtch, w, dw, dpsi, dphi, d_x, ix = (swtch[keep], w[keep], dw[keep], dpsi[keep],
                                                 dphi[keep], d_x[keep], ix[keep])
        lb, ub = st["lb"], st["ub"]
        lb = np.where(w <= 0.0, np.maximum(lb, tau), lb)
        ub = np.where(w > 0.0, np.minimum(ub, tau), ub)
        d_o = -tau
        t2 = z2[ii] / (tau * tau)                   # (zeta_o / d_o)^2
        # far sums on the origin's side and on the other side (dpsi below, dphi above)
        side_o = np.where(orgati, dpsi, dphi) + t2
        side_x = np.where(orgati, dphi, dpsi)
        dfar = dpsi + dphi
        # the fixed-weight model (far poles interpolated through w') or, when switched,
        # the two partial derivatives (the middle way, Li 1993)
        cc = np.where(swtch & (nit > 0), w - d_o * side_o - d_x * side_x,
                      w - d_x * dw - (p[ii] - p[ix]) * t2)
        aa = (d_o + d_x) * w - d_o * d_x * dw
        bb = d_o * d_x * w
        zero = cc == 0.0
        if zero.any():                              # (dlaed4's degenerate model)
            a0 = np.where(swtch, d_o * d_o * side_o + d_x * d_x * side_x,
                          z2[ii] + d_x * d_x * dfar)
            eta0 = bb / np.where(aa == 0.0, a0, aa)
        eta = _quadratic_root(aa, bb, cc)
        if zero.any():
            eta = np.where(zero, eta0, eta)
        eta = np.where(w * eta < 0.0, eta, -w / dw)  # wrong sign (or nan): a Newton step
        trial = tau + eta
        out = ~((trial > lb) & (trial < ub))         # outside the bracket (or nan): bisect
        if out.any():
            eta = np.where(out, np.where(w < 0.0, ub - tau, lb - tau) / 2.0, eta)
        new_tau = tau + eta
        st.update(tau=new_tau, lb=lb, ub=ub, swtch=swtch, prew=w, nit=nit + 1,
                  stalled=new_tau == tau)              # the step no longer changes the root
    return st


def _last_root(p, zeta, z2, rr, work):
    """The root in ``(p_m, p_m + rr)``, origin ``p_m`` (dlaed4, case ``I = N``)."""
    eps = np.finfo(float).eps
    m = p.size
    rhoinv = 1.0 / rr
    D, inv, sq = work.view(1)
    midpt = 0.5 * rr
    delta = (p - p[-1]) - midpt
    psi0 = float(np.sum(z2[:m - 2] / delta[:m - 2]))
    c = rhoinv + psi0
    w = c + z2[m - 2] / delta[m - 2] + z2[m - 1] / delta[m - 1]
    dl = p[-1] - p[-2]
    a = -c * dl + z2[m - 2] + z2[m - 1]
    b = z2[m - 1] * dl
    disc = np.sqrt(a * a + 4.0 * b * c) if a * a + 4.0 * b * c > 0 else 0.0
    tau = 2.0 * b / (disc - a) if a < 0 else (a + disc) / (2.0 * c)
    if w <= 0.0:
        if c <= z2[m - 2] / (dl + rr) + z2[m - 1] / rr:
            tau = rr
        lb, ub = midpt, rr
    else:
        lb, ub = 0.0, midpt
    if not (lb < tau <= ub) or not np.isfinite(tau):
        tau = 0.5 * (lb + ub)
    ii = np.array([m - 1])
    tau_a = np.array([tau])
    for it in range(MAX_ITER):
        w, dw, dpsi, dphi, errb = _evaluate(p, D, inv, sq, tau_a, ii, m - 1, m - 1, zeta, z2,
                                            rhoinv)
        w, dw, dpsi, dphi = float(w[0]), float(dw[0]), float(dpsi[0]), float(dphi[0])
        tau = float(tau_a[0])
        if abs(w) <= eps * float(errb[0]):
            return tau_a, D, inv, np.array([dw])
        if w <= 0.0:
            lb = max(lb, tau)
        else:
            ub = min(ub, tau)
        # dlaed4's model: dpsi over the poles below, dphi the origin's term
        dphi = dw - dpsi
        d_m1, d_m = D[0, m - 2], D[0, m - 1]
        cc = abs(w - d_m1 * dpsi - d_m * dphi)
        aa = (d_m1 + d_m) * w - d_m1 * d_m * dw
        bb = d_m1 * d_m * w
        if cc == 0.0:
            eta = -w / dw
        elif aa >= 0.0:
            eta = (aa + np.sqrt(abs(aa * aa - 4.0 * bb * cc))) / (2.0 * cc)
        else:
            eta = 2.0 * bb / (aa - np.sqrt(abs(aa * aa - 4.0 * bb * cc)))
        if not w * eta < 0.0:
            eta = -w / dw
        if not lb < tau + eta < ub:
            eta = ((ub if w < 0.0 else lb) - tau) / 2.0
        if tau + eta == tau:
            return tau_a, D, inv, np.array([dw])
        tau_a[0] = tau + eta
    raise RuntimeError(f"secular equation: the last root of {m} did not converge in "
                       f"{MAX_ITER} iterations")
