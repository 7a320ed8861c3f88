"""The 1-norm LP machine on a dense rectangular block: interior point, row chunking.

The LP of :class:`krein.formulations.LPSVM` on a block ``K`` of shape ``(n, m)``::

    minimize    ||c||_1 + sum_i C_i xi_i
    subject to  y_i (K_i c + b) >= 1 - xi_i,  xi >= 0

and its dual::

    maximize    1'alpha
    subject to  ||K'(y * alpha)||_inf <= 1,  y'alpha = 0,  0 <= alpha_i <= C_i.

A row ``i`` with ``y_i f(x_i) > 1`` at the optimum has ``alpha_i = 0``: the LP
restricted to a working set ``R`` of rows (the other rows and their slacks dropped)
is a relaxation of the full LP (every dropped slack costs ``>= 0``), so when its
solution ``(c, b)`` satisfies ``y_i f(x_i) >= 1`` on every row outside ``R`` it is
optimal for the full LP (with ``xi_i = 0`` there, and the restricted dual point
extended by ``alpha_i = 0`` feasible for the full dual).  Otherwise the violated rows
join ``R`` and the LP is solved again: the row chunking of Bradley & Mangasarian
(2000), "Massive data discrimination via linear support vector machines",
Optimization Methods and Software 13, §2 (the same argument with columns is the
column generation of LPBoost, Demiriz, Bennett & Shawe-Taylor 2002, Machine
Learning 46; here every column stays in the LP: the landmark block's solutions use
most of the ``m`` columns, and the certificate checks all of them).

Each restricted LP is solved in its dual form (``|R|`` box-bounded variables,
``m + 1`` rows) by a primal-dual interior-point method with Mehrotra's
predictor-corrector (Mehrotra 1992, SIAM J. Optim. 2; Wright 1997, "Primal-Dual
Interior-Point Methods", ch. 10-11), whose normal equations are one dense
``(m + 1) x (m + 1)`` Cholesky factorization per iteration (BLAS ``M' Theta M``).
Two savings change the steps, not the problem or its certificate: a row whose weight
``theta_i`` has fallen below :data:`DROP` times the largest (its multiplier has
settled on ``0`` or ``C_i``) leaves the normal matrix, so that the late iterations
factor a matrix built from the ~``m`` undecided rows only (the working set within
the method; the residuals are always those of all rows), and while the relative gap
exceeds :data:`SINGLE_PRECISION_GAP` the normal matrix is formed in single precision
with the rows above :data:`DROP_SINGLE` (an inexact Newton step far from the optimum;
the residuals stay in double; a single-precision matrix that is not numerically
positive definite ends that phase).
The point is then polished to a vertex: the interior multipliers
(``0 < alpha_i < C_i``) and the nonzero coefficients identify the optimal basis,
whose two square linear systems give the vertex (the crossover step of
interior-point LP codes; Megiddo 1991, ORSA J. Computing 3; Andersen & Ye 1996,
Math. Programming 74); the vertex replaces the interior point when its
certificate is at least as good.  The simplex method on this dense LP needs
thousands of pivots on a dense ``(m + 1)``-row basis (HiGHS: ~7 ms a pivot at
m = 1000); the interior-point method needs about 20 factorizations.

By default the first working set is every row (one round): each round starts the
interior-point method afresh, and on the large-data benchmark's pairs four rounds
from a sample cost four times the iterations of one round on all rows
(:data:`CHUNK_INITIAL_ROWS`).

The certificate (:func:`lp_machine_certificate`) is computed on the FULL problem:
the hinge slacks of every row, the dual point ``alpha`` (zero outside ``R``) clipped
to its box, the dual residual ``max(||K'(y alpha)||_inf - 1, |y'alpha|, 0)`` over all
``m`` columns, and the relative gap of the primal and dual objectives.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg as sla

from ..formulations.base import relative_gap
from .core import Solution

__all__ = ["solve_lp_machine_chunked", "lp_machine_certificate", "CHUNK_INITIAL_ROWS", "DROP",
           "SINGLE_PRECISION_GAP", "DROP_SINGLE"]

#: Default size of the first working set of rows (None: all rows, one round).  Each
#: round starts the interior-point method afresh; on a one-vs-one pair of the large-data
#: benchmark (n = 20 000, m = 1000) four rounds from 4000 rows (the set grew to 12 526
#: rows) took about three times the CPU of one round on all rows, in which the rows
#: whose multipliers settle on a bound leave the normal matrix (``normal_rows``).
CHUNK_INITIAL_ROWS = None

#: Relative weight below which a row leaves the normal matrix of an interior-point step.
DROP = 1e-8

#: Relative gap above which the normal matrix is formed in single precision.
SINGLE_PRECISION_GAP = 1e-4

#: :data:`DROP` while the normal matrix is in single precision.
DROP_SINGLE = 1e-3


def lp_machine_certificate(K, y, C, c, b, alpha):
    """The LP-SVM certificate of a point on the full problem.

    Parameters
    ----------
    K : ndarray of shape (n, m)
        The block (rows: training points, columns: expansion points).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Slack weights.
    c : ndarray of shape (m,)
        Expansion coefficients.
    b : float
        Intercept.
    alpha : ndarray of shape (n,)
        Dual point (margin multipliers); clipped to ``[0, C_i]``.

    Returns
    -------
    dict
        ``primal_residual`` (0: the slacks are the hinge values, always feasible),
        ``dual_residual`` ``max(||K'(y alpha)||_inf - 1, |y'alpha|, 0)``, ``gap``
        ``P - D``, ``relative_gap`` ``|P - D| / max(|P|, |D|)``,
        ``primal_objective`` ``P = ||c||_1 + sum C_i max(0, 1 - y_i f_i)`` and
        ``dual_objective`` ``D = 1'alpha`` (the keys of
        :meth:`krein.formulations.LPSVM.certificate`).
    """
    Cv = np.broadcast_to(np.asarray(C, dtype=float), y.shape)
    f = K @ c + b
    P = float(np.abs(c).sum() + Cv @ np.maximum(0.0, 1.0 - y * f))
    a = np.clip(alpha, 0.0, Cv)
    D = float(a.sum())
    dual_res = max(float(np.max(np.abs(K.T @ (y * a)), initial=0.0)) - 1.0, abs(float(y @ a)), 0.0)
    return {"primal_residual": 0.0, "dual_residual": dual_res, "gap": P - D,
            "relative_gap": relative_gap(P, D), "primal_objective": P, "dual_objective": D}


def _ipm(M, y, C, tol, feas_tol, max_iter):
    """Mehrotra's predictor-corrector on the dual LP of rows ``M = diag(y) K_R``.

    Variables ``x = (alpha, r)`` with ``M'alpha - r = 0``, ``y'alpha = 0``,
    ``0 <= alpha <= C``, ``-1 <= r <= 1``; minimizes ``-1'alpha``.  The multipliers of
    the equality rows are ``(-c, -b)`` (Wright 1997, ch. 10-11, with bounds on every
    variable).

    Returns
    -------
    alpha : ndarray of shape (n_R,)
    c : ndarray of shape (m,)
    b : float
    iterations : int
    score : float
        ``max(relative gap, dual residual)`` of the restricted LP at the point.
    kept : list of int
        Rows in the normal matrix at each iteration (a row whose weight
        ``theta_i`` has fallen below ``DROP`` times the largest is left out: its
        multiplier has settled on a bound).
    """
    n, m = M.shape
    N = n + m
    lo = np.r_[np.zeros(n), -np.ones(m)]
    up = np.r_[C, np.ones(m)]
    cost = np.r_[-np.ones(n), np.zeros(m)]
    x = (lo + up) / 2.0
    # the distances to the bounds are kept as variables of their own (recomputed as
    # x - lo they round to 0 next to a bound)
    wl = x - lo
    wu = up - x
    zl = np.ones(N)
    zu = np.ones(N)
    lam = np.zeros(m + 1)

    def A(v):
        return np.r_[M.T @ v[:n] - v[n:], y @ v[:n]]

    def AT(u):
        return np.r_[M @ u[:m] + y * u[m], -u[:m]]

    best = None
    it = 0
    kept = []
    M32 = None
    double_only = False
    for it in range(1, max_iter + 1):
        Ax = A(x)
        ATl = AT(lam)
        rp = -Ax
        rd = cost - ATl - zl + zu
        mu = (wl @ zl + wu @ zu) / (2 * N)
        c, b = -lam[:m], -lam[m]
        # x stays inside its bounds: alpha = x[:n] is in the box, and the margins
        # M c + y b are -ATl[:n]
        a = x[:n]
        P = np.abs(c).sum() + C @ np.maximum(0.0, 1.0 + ATl[:n])
        D = a.sum()
        rel = abs(P - D) / max(abs(P), abs(D), np.finfo(float).tiny)
        dres = max(np.abs(Ax[:m] + x[n:]).max() - 1.0, abs(Ax[m]), 0.0)
        score = max(rel, dres)
        if best is None or score < best[0]:
            best = (score, x[:n].copy(), c.copy(), float(b))
        if (rel < tol and dres < feas_tol) or mu < 1e-15:
            break
        theta = 1.0 / (zl / wl + zu / wu)
        ta, tr = theta[:n], theta[n:]
        # far from the optimum the step needs no more than single precision: the
        # normal matrix in float32 (the residuals stay float64); a float32 matrix
        # that is not numerically positive definite ends the single-precision phase
        single = rel > SINGLE_PRECISION_GAP and not double_only
        factor = None
        while factor is None:
            # rows whose multiplier has settled on a bound weigh ~0 in the normal matrix
            keep = np.flatnonzero(ta > (DROP_SINGLE if single else DROP) * ta.max())
            if single and M32 is None:
                M32 = M.astype(np.float32)
            Ms = M32 if single else M
            root = np.sqrt(ta[keep]).astype(Ms.dtype)[:, None]
            Mk = Ms * root if keep.size == n else Ms[keep] * root
            G = np.empty((m + 1, m + 1))
            G[:m, :m] = Mk.T @ Mk
            del Mk
            G[np.arange(m), np.arange(m)] += tr
            tk = np.zeros(n)
            tk[keep] = ta[keep]
            G[:m, m] = G[m, :m] = M.T @ (tk * y)
            G[m, m] = tk @ (y * y)
            G[np.diag_indices(m + 1)] += 1e-14 * np.trace(G) / (m + 1)
            try:
                factor = sla.cho_factor(G, check_finite=False)
            except np.linalg.LinAlgError:
                if not single:
                    break
                single, double_only = False, True
        if factor is None:
            break
        kept.append(int(keep.size))

        def direction(rl, ru):
            # the step's products with M in the normal matrix's precision
            h = rd - rl / wl + ru / wu
            v = theta * h
            Av = np.r_[Ms.T @ v[:n].astype(Ms.dtype) - v[n:], y @ v[:n]]
            dlam = sla.cho_solve(factor, rp + Av, check_finite=False)
            ATd = np.r_[Ms @ dlam[:m].astype(Ms.dtype) + y * dlam[m], -dlam[:m]]
            dx = theta * (ATd - h)
            return dx, dlam, (rl - zl * dx) / wl, (ru + zu * dx) / wu

        def step(v, dv):
            neg = dv < 0
            return min(1.0, float(np.min(-v[neg] / dv[neg], initial=np.inf)))

        dx, dlam, dzl, dzu = direction(-wl * zl, -wu * zu)
        ap = min(step(wl, dx), step(wu, -dx))
        ad = min(step(zl, dzl), step(zu, dzu))
        mu_aff = ((wl + ap * dx) @ (zl + ad * dzl) + (wu - ap * dx) @ (zu + ad * dzu)) / (2 * N)
        sigma = (mu_aff / mu) ** 3
        dx, dlam, dzl, dzu = direction(sigma * mu - wl * zl - dx * dzl,
                                       sigma * mu - wu * zu + dx * dzu)
        ap = 0.995 * min(step(wl, dx), step(wu, -dx))
        ad = 0.995 * min(step(zl, dzl), step(zu, dzu))
        if not (np.all(np.isfinite(dx)) and np.all(np.isfinite(dlam))):
            break
        x = x + ap * dx
        wl = wl + ap * dx
        wu = wu - ap * dx
        lam = lam + ad * dlam
        zl = zl + ad * dzl
        zu = zu + ad * dzu
    score, alpha, c, b = best
    return alpha, c, b, it, score, kept


def _vertex(M, y, C, alpha, c, b):
    """The vertex of the basis identified by an interior point (crossover).

    Interior multipliers ``I`` (``0 < alpha_i < C_i``), multipliers on the upper
    bound ``U`` and nonzero coefficients ``S``: the vertex solves
    ``M_{I,S} c_S + y_I b = 1`` and ``M_{I,S}' alpha_I = sign(c_S) - M_{U,S}' C_U``,
    ``y_I' alpha_I = -y_U' C_U``.  With fewer interior multipliers than ``|S| + 1``
    (a degenerate vertex) the bound rows nearest the margin complete ``I``.  None
    when the identified system is not square or not solvable; the caller keeps the
    vertex only when its certificate is at least as good as the interior point's.
    """
    scale = max(float(np.abs(c).max(initial=0.0)), 1e-300)
    S = np.flatnonzero(np.abs(c) > 1e-6 * scale)
    frac = alpha / C
    Iset = np.flatnonzero((frac > 1e-6) & (frac < 1 - 1e-6))
    U = np.flatnonzero(frac >= 1 - 1e-6)
    if Iset.size < S.size + 1:
        # degenerate: complete with the bound rows nearest the margin (y f = 1)
        slack = np.abs(M @ c + y * b - 1.0)
        slack[Iset] = np.inf
        extra = np.argsort(slack, kind="stable")[:S.size + 1 - Iset.size]
        Iset = np.sort(np.r_[Iset, extra])
        U = np.setdiff1d(U, extra)
    if Iset.size != S.size + 1:
        return None
    B = np.column_stack([M[np.ix_(Iset, S)], y[Iset]])
    try:
        lu = sla.lu_factor(B, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return None
    cb = sla.lu_solve(lu, np.ones(Iset.size), check_finite=False)
    rhs = np.r_[np.sign(c[S]) - M[np.ix_(U, S)].T @ C[U], -(y[U] @ C[U])]
    aI = sla.lu_solve(lu, rhs, trans=1, check_finite=False)
    if not (np.all(np.isfinite(cb)) and np.all(np.isfinite(aI))):
        return None
    a = np.zeros_like(alpha)
    a[U] = C[U]
    a[Iset] = aI
    cv = np.zeros_like(c)
    cv[S] = cb[:-1]
    return a, cv, float(cb[-1])


def _stratified_rows(y, size, rng):
    """A sample of ``size`` rows with the class proportions of ``y`` (both classes present)."""
    n = y.size
    if size >= n:
        return np.arange(n)
    rows = []
    for label in (-1.0, 1.0):
        idx = np.flatnonzero(y == label)
        k = min(idx.size, max(1, int(round(size * idx.size / n))))
        rows.append(rng.choice(idx, k, replace=False))
    return np.sort(np.concatenate(rows))


def solve_lp_machine_chunked(K, y, C, *, initial_rows=CHUNK_INITIAL_ROWS, batch=None,
                             tol=1e-10, feas_tol=1e-8, viol_tol=1e-9, max_rounds=50, shrink_rounds=10,
                             buffer=0.2, max_iter=200, random_state=0):
    """Solve the 1-norm LP machine by row chunking, certified on the full problem.

    Rounds (module docstring): solve the LP on a working set of rows (first a
    stratified sample of ``initial_rows``, by default all rows), add the rows
    outside it with ``y_i f(x_i) < 1 + buffer`` (the most violated first, at most
    ``batch`` per round), stop when none outside has ``y_i f(x_i) < 1``.  In the
    first ``shrink_rounds`` rounds the rows of the set with multiplier 0 and
    ``y_i f(x_i) > 1 + buffer`` leave it (each restricted LP stays a relaxation of
    the full one); afterwards the set only grows, so the rounds end.  The returned point is optimal for the full LP: the
    certificate (:func:`lp_machine_certificate`) is computed on all ``n`` rows and
    all ``m`` columns.

    Parameters
    ----------
    K : ndarray of shape (n, m)
        The block (rows: training points, columns: expansion points), in the unit
        the problem is solved in.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or ndarray of shape (n,)
        Slack weight(s).
    initial_rows : int or None, default=CHUNK_INITIAL_ROWS
        Size of the first working set (None: all ``n`` rows, one round).
    batch : int or None, default=None
        Most rows added per round (None: every violated row).
    tol : float, default=1e-10
        Relative gap at which the interior-point method stops ...
    feas_tol : float, default=1e-8
        ... when the dual residual is below this as well (HiGHS's default primal
        and dual feasibility tolerances are 1e-7).
    viol_tol : float, default=1e-9
        A row outside the working set is violated when ``y_i f(x_i) < 1 - viol_tol``.
    max_rounds : int, default=50
        Most rounds; the last point is returned with status ``"max_iter"`` when
        violated rows remain.
    shrink_rounds : int, default=10
        Rounds in which rows may leave the working set.
    buffer : float, default=0.2
        Width of the band around the margin ``y f = 1`` that decides which rows
        join and leave the working set.
    max_iter : int, default=200
        Most interior-point iterations per round.
    random_state : int, default=0
        Seed of the first sample.

    Returns
    -------
    krein.solvers.Solution
        ``solver="ipm-lp-machine"``; ``primal`` ``{"c" (m,), "b", "xi" (n,)}``,
        ``dual`` ``{"margin": alpha (n,)}`` (zero outside the working set), the full
        certificate (``certificate_kind="relative_gap"``) with ``n_rounds``,
        ``working_set_sizes`` (rows per round), ``ipm_iterations`` (per round),
        ``normal_rows`` (per round, the rows in the normal matrix at each
        interior-point iteration),
        ``vertex`` (whether the polished vertex was taken) and ``violated_rows``
        (rows outside the working set with ``y_i f_i < 1`` at the end, 0 when
        optimal); ``iterations``: interior-point iterations of all rounds.

    Raises
    ------
    ValueError
        Bad shapes, labels, ``C`` or a non-finite block.

    References
    ----------
    P. S. Bradley & O. L. Mangasarian (2000), "Massive data discrimination via
    linear support vector machines", Optimization Methods and Software 13, 1-10;
    A. Demiriz, K. P. Bennett & J. Shawe-Taylor (2002), "Linear programming
    boosting via column generation", Machine Learning 46, 225-254;
    S. Mehrotra (1992), "On the implementation of a primal-dual interior point
    method", SIAM J. Optimization 2, 575-601.
    """
    from ..formulations.lpsvm import check_margin_problem

    t0 = time.perf_counter()
    y = np.asarray(y, dtype=float).ravel()
    per_sample = np.ndim(C) > 0
    K, y = check_margin_problem(K, y, 1.0 if per_sample else C)
    n, m = K.shape
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,)).astype(float)
    if Cv.shape != (n,) or not np.all(np.isfinite(Cv) & (Cv > 0)):
        raise ValueError(f"C must be a positive finite number or shape ({n},) array")
    rng = np.random.default_rng(random_state)
    in_set = np.zeros(n, dtype=bool)
    in_set[_stratified_rows(y, n if initial_rows is None else int(initial_rows), rng)] = True
    sizes, iters, normal_rows = [], [], []
    vertex_taken = False
    violated = np.empty(0, dtype=int)
    for rnd in range(max_rounds):
        R = np.flatnonzero(in_set)
        M = K[R] * y[R, None]
        aR, c, b, it, _, kept = _ipm(M, y[R], Cv[R], tol, feas_tol, max_iter)
        sizes.append(int(R.size))
        iters.append(int(it))
        normal_rows.append(kept)
        alpha = np.zeros(n)
        alpha[R] = aR
        cert = lp_machine_certificate(K, y, Cv, c, b, alpha)
        vertex_taken = False
        vert = _vertex(M, y[R], Cv[R], aR, c, b)
        if vert is not None:
            alpha_v = np.zeros(n)
            alpha_v[R] = vert[0]
            cert_v = lp_machine_certificate(K, y, Cv, vert[1], vert[2], alpha_v)
            if max(cert_v["relative_gap"], cert_v["dual_residual"]) <= \
                    max(cert["relative_gap"], cert["dual_residual"]):
                alpha, c, b, cert, vertex_taken = alpha_v, vert[1], vert[2], cert_v, True
        yf = y * (K @ c + b)
        # the restricted LP is a relaxation (a dropped row's hinge is >= 0): its
        # solution is optimal when no dropped row has y f < 1
        violated = np.flatnonzero(~in_set & (yf < 1.0 - viol_tol))
        if violated.size == 0:
            break
        # the violated rows, then the dropped rows within ``buffer`` of the margin
        near = np.flatnonzero(~in_set & (yf < 1.0 + buffer))
        add = near[np.argsort(yf[near], kind="stable")]
        if batch is not None:
            add = add[:int(batch)]
        if rnd < shrink_rounds:
            # rows with multiplier 0 beyond the buffer leave the working set (the
            # first rounds only: afterwards the set only grows, so the rounds end)
            in_set[R[(aR <= 1e-9 * Cv[R]) & (yf[R] > 1.0 + buffer)]] = False
        in_set[add] = True
    xi = np.maximum(0.0, 1.0 - yf)
    cert.update(n_rounds=len(sizes), working_set_sizes=sizes, ipm_iterations=iters,
                normal_rows=normal_rows,
                vertex=vertex_taken, violated_rows=int(violated.size))
    wall = time.perf_counter() - t0
    return Solution(solver="ipm-lp-machine",
                    status="optimal" if violated.size == 0 else "max_iter",
                    objective=cert["primal_objective"], primal={"c": c, "b": b, "xi": xi},
                    dual={"margin": alpha}, setup_time=0.0, solve_time=wall,
                    iterations=int(sum(iters)), primal_residual=cert["primal_residual"],
                    dual_residual=cert["dual_residual"], gap=cert["gap"], certificate=cert,
                    certificate_kind="relative_gap")
