"""The linear C-SVM with many more points than features by a primal-dual interior-point method.

:func:`linear_svm_ipm` solves the binary linear C-SVM on explicit features
``Phi`` (``n x d``, ``n >> d``) with the UNREGULARIZED intercept, the problem
libsvm solves (``SVC(kernel="linear")``, :func:`krein.solvers.libsvm.libsvm_linear`)
and the exact kernel paths solve on ``K = Phi Phi'``::

    primal  min_{w, b, xi}  1/2 ||w||^2 + sum_i C_i xi_i
            s.t.            y_i (phi_i w + b) >= 1 - xi_i,  xi_i >= 0
    dual    min_alpha       1/2 alpha' Y Phi Phi' Y alpha - 1' alpha
            s.t.            y' alpha = 0,  0 <= alpha_i <= C_i.

liblinear (:func:`krein.solvers.liblinear.liblinear_solve`) solves a different
problem: it appends a bias column and so REGULARIZES the intercept
(``1/2 (||w||^2 + b^2 / s^2)``, no equality constraint in its dual).

The method is Mehrotra's predictor-corrector on the dual QP with the bounds
``alpha >= 0`` (multipliers ``z``, the margin surplus) and ``alpha <= C``
(multipliers ``s``, the slacks ``xi``) as in Ferris & Munson (2002), §2-3: the Newton
system ``(Theta + Y Phi Phi' Y) d_alpha + y d_b = r`` with the diagonal
``Theta = Z / A + S / (C - A)`` is reduced by the Sherman-Morrison-Woodbury
identity to the ``(d + 1) x (d + 1)`` positive definite system

    ``(E + Phi~' Theta^-1 Phi~) [u; d_b] = Phi~' (y Theta^-1 r) - [0; r_e]``,
    ``Phi~ = [Phi, 1]``,  ``E = diag(1, ..., 1, 0)``,
    ``d_alpha = Theta^-1 (r - y (Phi~ [u; d_b]))``,

(the normal equations of the primal in ``(w, b)``; Fine & Scheinberg 2001 use the
same low-rank structure), one preconditioner per iteration, reused by the corrector:
for ``d >= 256`` conjugate gradients on the exact system, preconditioned by the
Cholesky factor of the part of the normal matrix that the rows of large estimated
leverage carry (:class:`_NormalEquations`: every row in the first iterations, a
shrinking fraction near the solution, where most rows are far from the margin).  An
iteration costs at most ``O(n d^2)`` (forming ``Phi' Theta^-1 Phi``) and ``O(d^3)``;
the number of iterations hardly depends on ``n`` (typically
15-40), where dual coordinate descent needs many passes when
``C max ||phi_i||^2`` is large or the features are collinear.

The point returned is certified by the relative duality gap of
:func:`krein.solvers.linear.linear_svm_certificate` (the loop stops when it is
at most ``tol``), on an exactly feasible dual point (the equality ``y' alpha = 0``
restored in the box) and the primal point ``w = Phi' (y alpha)`` with the intercept
that minimizes the primal for this ``w`` (an exact one-dimensional problem).

References
----------
M. C. Ferris & T. S. Munson (2002), "Interior-point methods for massive support
vector machines", SIAM J. Optim. 13(3), 783-804.  S. Fine & K. Scheinberg (2001),
"Efficient SVM training using low-rank kernel representations", JMLR 2, 243-264.
S. Mehrotra (1992), "On the implementation of a primal-dual interior point
method", SIAM J. Optim. 2(4), 575-601.  J. Gondzio (2012), "Matrix-free interior point
method", Comput. Optim. Appl. 51(2), 457-480.  E. M. Gertz & J. D. Griffin (2010),
"Using an iterative linear solver in an interior-point method for generating support
vector machines", Comput. Optim. Appl. 47(3), 431-453.  P. Drineas, M. Magdon-Ismail,
M. W. Mahoney & D. P. Woodruff (2012), "Fast approximation of matrix coherence and
statistical leverage", JMLR 13, 3475-3506.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular

__all__ = ["linear_svm_ipm", "optimal_intercept", "IPM_MAX_ITER"]

#: Iteration limit of :func:`linear_svm_ipm` standing for ``max_iter=-1``.
IPM_MAX_ITER = 200

#: Fraction of the step to the boundary (Mehrotra 1992 uses 0.95-0.995).
_STEP_FRACTION = 0.995

#: Iterations without halving the best gap, once below _STALL_GAP, after which the
#: method stops ("stalled": the gap is then at the level of the round-off).
_STALL_ITERATIONS = 5
_STALL_GAP = 1e-6

#: Fewest features for which the normal equations are preconditioned (below, the direct
#: float64 factorization is cheap).
_PRECONDITION_MIN_D = 256

#: Leverage left out of the preconditioner: the rows of least estimated leverage
#: ``theta_i phi~_i' P^-1 phi~_i`` (``P`` the previous Newton system's preconditioner) whose
#: sum stays below this; the left-out part of the normal matrix then has
#: ``tr(P^-1/2 G_out P^-1/2)`` of about this size, so the preconditioned matrix has its
#: eigenvalues in about ``[1, 1 + _DROPPED_LEVERAGE]``.
_DROPPED_LEVERAGE = 0.5

#: Least fraction of the rows left out for the reduced preconditioner to be used (below,
#: every row is kept: the few rows saved do not pay for the extra CG iterations).
_MIN_DROPPED_FRACTION = 0.1

#: Columns of the Gaussian sketch that estimates the leverages (Johnson-Lindenstrauss).
_SKETCH_COLUMNS = 24

#: At most this fraction of the rows kept: the preconditioner is formed in double
#: precision (near the solution ``theta`` spans many decades and the single-precision
#: product is too coarse a preconditioner; the few kept rows make double precision cheap).
_DOUBLE_FRACTION = 0.25

#: Rows per block of the normal matrix's product with a vector (a block of 128 x 1000
#: float64 stays in cache between its two products).
_BLOCK_ROWS = 128

#: Conjugate-gradient iterations on the reduced preconditioner after which every row is
#: put into it, in this and every later iteration (the rows left out carry more of the
#: normal matrix than estimated: such ill-conditioned systems keep the full preconditioner).
_CG_REDUCED_MAX_ITER = 12

#: Conjugate-gradient iterations on the preconditioned normal equations before the
#: direct factorization is used instead, and their relative residual.
_CG_MAX_ITER = 40
_CG_TOL = 1e-11
#: The relative residual of CG on the reduced preconditioner: the full preconditioner's CG
#: ends far below _CG_TOL (its first iterate is already at the single-precision rounding),
#: and the reduced one reaches the same accuracy of the Newton directions only when it is
#: held to the residual that the full one attains.
_CG_TOL_REDUCED = 1e-13


def _regularized_cholesky(G):
    """Cholesky factor of ``G + delta I``, ``delta`` the least of ``0`` and ``10^k eps
    max diag(G)`` (k = 0, 2, 4, ...) for which the factorization succeeds."""
    scale = float(np.max(np.abs(np.diag(G)))) * np.finfo(float).eps
    delta = 0.0
    while True:
        try:
            return cho_factor(G + delta * np.eye(G.shape[0]), lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            delta = scale if delta == 0.0 else 100.0 * delta


class _NormalEquations:
    """The normal equations ``G x = r``, ``G = E + Phi~' diag(theta_inv) Phi~``, of one iteration.

    ``G`` is applied exactly in float64 through ``Phi`` (``O(n d)``); it is solved by
    conjugate gradients preconditioned with the Cholesky factor of ``P = E + sum over the
    kept rows theta_inv_i phi~_i phi~_i'``, to a relative residual :data:`_CG_TOL`
    (Golub & Van Loan 2013, §11.5: the preconditioned matrix is the identity plus a
    perturbation of the size of the rounding and of the left-out rows).

    The kept rows carry the normal matrix.  Row ``i`` has the leverage ``l_i = theta_i
    phi~_i' G^-1 phi~_i`` (``sum_i l_i <= d + 1``); leaving out rows of total leverage
    ``L`` leaves ``P^-1 G`` with eigenvalues in about ``[1, 1 + L]``, so CG still needs
    only a few iterations, while the product over the kept rows, the ``O(n_kept d^2)``
    cost of an iteration, shrinks as the iterates approach the solution (most rows are
    then far from the margin, ``theta_inv_i -> 0``).  The leverages are estimated against
    the previous iteration's preconditioner ``P' = R' R`` with a Gaussian sketch ``Omega``
    of :data:`_SKETCH_COLUMNS` columns, ``l_i ~ theta_i ||phi~_i' R^-1 Omega||^2 / k``
    (``O(k n d)``; Drineas, Magdon-Ismail, Mahoney & Woodruff 2012), and the rows of
    least estimate summing to at most :data:`_DROPPED_LEVERAGE` are left out when they
    are at least :data:`_MIN_DROPPED_FRACTION` of the rows; the first system keeps every
    row.  This is the preconditioner of the SVM interior-point method of Gertz & Griffin
    (2010), formed from the rows of large weight, and of Gondzio's (2012) matrix-free
    interior point (the dominant part of the normal matrix); the CG residual test keeps
    the solve exact.  Held to :data:`_CG_TOL_REDUCED` (the residual the full
    preconditioner's CG attains), it gives the Newton directions of the full one; where
    it needs more than :data:`_CG_REDUCED_MAX_ITER` CG iterations every row is put back,
    in this and every later iteration.

    ``P`` is formed in single precision, or in double precision when at most
    :data:`_DOUBLE_FRACTION` of the rows are kept (near the solution, where ``theta_inv``
    spans many decades) or the single-precision matrix is not positive definite.  When
    CG does not reach the tolerance in :data:`_CG_MAX_ITER` iterations, ``G`` is formed in
    float64 and factored directly (``direct``; where round-off makes it numerically
    indefinite, ``G + delta I`` with the least ``delta`` that factors, as the
    preconditioner of CG on the exact ``G``).

    Parameters
    ----------
    Phi : ndarray of shape (n, d)
        Features.
    theta_inv : ndarray of shape (n,)
        Row weights (positive).
    Phi32 : ndarray of shape (n, d + 1), float32, or None
        The bordered rows ``[Phi, 1]`` in single precision; None: ``G`` is factored directly.
    previous : _NormalEquations or None
        The previous iteration's system, whose preconditioner estimates the leverages.
    rng : numpy.random.Generator or None
        Draws the sketch.

    Attributes
    ----------
    n_kept : int
        Rows in the preconditioner (``n`` for a direct factorization).
    applies : int
        Products with ``G`` made by the solves (CG iterations and initial residuals).
    """

    def __init__(self, Phi, theta_inv, Phi32, previous=None, rng=None):
        self.Phi, self.theta_inv = Phi, theta_inv
        n, self.d = Phi.shape
        self.direct = 0
        self.applies = 0
        self.factor = None
        self.n_kept = n
        # once the reduced preconditioner has failed, every later system keeps every row
        self.reduction_failed = previous is not None and previous.reduction_failed
        self._Phi32 = Phi32
        self.exact = Phi32 is None
        if self.exact:
            self._direct()
            return
        keep = None
        if (previous is not None and previous.factor is not None and rng is not None
                and not self.reduction_failed):
            lev = self._leverage_estimate(Phi32, previous.factor[0], rng)
            order = np.argsort(lev)
            n_drop = int(np.searchsorted(np.cumsum(lev[order]), _DROPPED_LEVERAGE, side="right"))
            if n_drop >= _MIN_DROPPED_FRACTION * n:
                keep = np.sort(order[n_drop:])
                self.n_kept = keep.size
        self._factor_kept(Phi32, keep)

    def _factor_kept(self, Phi32, keep):
        """The Cholesky factor of ``P`` on the kept rows (None: every row).  The left-out
        rows' part is not compensated by its diagonal: that makes ``P^-1 G`` spread on both
        sides of 1 and costs more CG iterations than the part itself."""
        Phi, theta_inv = self.Phi, self.theta_inv
        if keep is not None and keep.size <= _DOUBLE_FRACTION * Phi.shape[0]:
            self.factor = _regularized_cholesky(self._normal(Phi[keep], theta_inv[keep]))
            return
        try:
            self.factor = cho_factor(self._bordered_normal(Phi32, keep, theta_inv),
                                     lower=False, check_finite=False)
            return
        except np.linalg.LinAlgError:
            pass
        # single precision too coarse for this theta: the kept rows in float64
        if keep is None:
            self.factor = _regularized_cholesky(self._normal(Phi, theta_inv))
        else:
            self.factor = _regularized_cholesky(self._normal(Phi[keep], theta_inv[keep]))

    def _leverage_estimate(self, Phi32, R, rng):
        """``theta_i ||phi~_i' R^-1 Omega||^2 / k`` for a Gaussian ``Omega`` of ``k`` columns:
        an unbiased estimate of ``theta_i phi~_i' (R' R)^-1 phi~_i``."""
        k = _SKETCH_COLUMNS
        omega = rng.standard_normal((self.d + 1, k))
        M = solve_triangular(R, omega, lower=False, check_finite=False).astype(np.float32)
        U = Phi32 @ M
        return self.theta_inv * (np.einsum("ij,ij->i", U, U, dtype=float) / k)

    def _bordered_normal(self, Phi32, keep, theta):
        """``E + sum_{i in keep} theta_i phi~_i phi~_i'`` from the single-precision
        bordered rows ``Phi32 = [Phi, 1]`` (``keep`` None: every row; ``theta`` over every
        row): one scaled copy of the kept rows and one symmetric rank-k product (BLAS
        ``ssyrk``) that yields the intercept's row too."""
        if keep is None:
            B = Phi32 * np.sqrt(theta).astype(np.float32)[:, None]
        else:
            B = Phi32[keep]
            B *= np.sqrt(theta[keep]).astype(np.float32)[:, None]
        G = (B.T @ B).astype(float)
        del B
        G.flat[: self.d * (self.d + 2): self.d + 2] += 1.0
        return G

    def _normal(self, F, theta):
        d = self.d
        B = F * np.sqrt(theta).astype(F.dtype)[:, None]
        G = np.empty((d + 1, d + 1))
        G[:d, :d] = B.T @ B
        del B
        G[:d, :d].flat[:: d + 1] += 1.0
        G[:d, d] = G[d, :d] = F.T @ theta.astype(F.dtype)
        G[d, d] = float(theta.sum())
        return G

    def _direct(self):
        self.direct = 1
        self.n_kept = self.Phi.shape[0]
        G = self._normal(self.Phi, self.theta_inv)
        try:
            self.factor = cho_factor(G, lower=False, check_finite=False)
            self.exact = True
        except np.linalg.LinAlgError:
            # round-off (theta_inv spans many decades near the solution): a shifted
            # factor, used as the preconditioner of CG on the exact G
            self.factor = _regularized_cholesky(G)
            self.exact = False

    def _apply(self, x):
        """``G x`` in float64, one pass over ``Phi`` in blocks of :data:`_BLOCK_ROWS` rows
        (each block's two products while it is in cache)."""
        self.applies += 1
        d = self.d
        xd, xb = x[:d], float(x[d])
        out = np.zeros(d + 1)
        acc = out[:d]
        total = 0.0
        for start in range(0, self.Phi.shape[0], _BLOCK_ROWS):
            B = self.Phi[start:start + _BLOCK_ROWS]
            v = self.theta_inv[start:start + _BLOCK_ROWS] * (B @ xd + xb)
            acc += B.T @ v
            total += float(v.sum())
        acc += xd
        out[d] = total
        return out

    def solve(self, r):
        """``G^-1 r``."""
        if self.exact:
            return cho_solve(self.factor, r, check_finite=False)
        x = cho_solve(self.factor, r, check_finite=False)
        res = r - self._apply(x)
        norm_r = float(np.linalg.norm(r))
        p = cho_solve(self.factor, res, check_finite=False)
        rz = float(res @ p)
        reduced = self.n_kept < self.Phi.shape[0] and not self.direct
        tol = _CG_TOL_REDUCED if reduced else _CG_TOL
        for k in range(_CG_MAX_ITER):
            if float(np.linalg.norm(res)) <= tol * norm_r:
                return x
            if reduced and k == _CG_REDUCED_MAX_ITER:
                # the left-out rows carry more than estimated: every row in P
                self.reduction_failed = True
                self.n_kept = self.Phi.shape[0]
                self._factor_kept(self._Phi32, None)
                return self.solve(r)
            Gp = self._apply(p)
            step = rz / float(p @ Gp)
            x += step * p
            res -= step * Gp
            zr = cho_solve(self.factor, res, check_finite=False)
            rz, rz_old = float(res @ zr), rz
            p = zr + (rz / rz_old) * p
        if float(np.linalg.norm(res)) <= _CG_TOL * norm_r or self.direct:
            return x
        self._direct()
        return self.solve(r)


def optimal_intercept(f, y, C):
    """The intercept minimizing ``sum_i C_i max(0, 1 - y_i (f_i + b))`` for fixed scores ``f``.

    The objective is convex and piecewise linear in ``b`` with breakpoints
    ``b_i = y_i - f_i``; its slope ``-sum_{y_i = 1, b_i > b} C_i + sum_{y_i = -1,
    b_i < b} C_i`` increases through the sorted breakpoints, and a breakpoint where
    it changes sign is a minimizer.

    Parameters
    ----------
    f : ndarray of shape (n,)
        Scores without the intercept, ``Phi w``.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : ndarray of shape (n,)
        Weights of the hinge terms (> 0).

    Returns
    -------
    float
        A minimizing intercept.
    """
    bp = y - f
    order = np.argsort(bp, kind="stable")
    bs, ys, cs = bp[order], y[order], C[order]
    # slope just right of breakpoint k: the +1 terms with b_i > bs[k] and -1 terms with b_i <= bs[k]
    pos_right = np.sum(cs[ys > 0]) - np.cumsum(np.where(ys > 0, cs, 0.0))
    neg_left = np.cumsum(np.where(ys < 0, cs, 0.0))
    slope = neg_left - pos_right
    k = int(np.searchsorted(slope, 0.0, side="left"))
    return float(bs[min(k, bs.size - 1)])


def _restore_equality(alpha, y, C):
    """``alpha`` moved to ``y' alpha = 0`` inside ``[0, C]`` (each entry by at most its
    distance to the box times ``|y' alpha| / sum of those distances``); unchanged when
    that fraction exceeds one."""
    r = float(y @ alpha)
    room = np.minimum(alpha, C - alpha)
    total = float(room.sum())
    if r == 0.0 or total <= abs(r):
        return alpha
    out = alpha - (r / total) * y * room
    return np.clip(out, 0.0, C)


def _gap(Phi, y, C, alpha):
    """``(relative gap, w, b, P, D)`` at the dual point ``alpha`` (box-feasible)."""
    w = Phi.T @ (y * alpha)
    f = Phi @ w
    b = optimal_intercept(f, y, C)
    ww = float(w @ w)
    P = 0.5 * ww + float(C @ np.maximum(0.0, 1.0 - y * (f + b)))
    D = float(alpha.sum()) - 0.5 * ww
    return (P - D) / max(1.0, abs(P)), w, b, P, D


def linear_svm_ipm(Phi, y, C, tol=1e-6, max_iter=-1):
    """Train the binary linear C-SVM (free intercept) by a primal-dual interior-point method.

    The problem and the algorithm are in the module docstring (Ferris & Munson
    2002; Mehrotra's predictor-corrector).  Memory ``O(n d)`` (one scaled copy of
    ``Phi``), time ``O(n d^2)`` per iteration.

    Parameters
    ----------
    Phi : ndarray of shape (n, d)
        Features (rows ``phi_i``).
    y : ndarray of shape (n,)
        Labels in {-1, +1}, both present.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or per-sample bounds ``C_i > 0``.
    tol : float > 0
        Target of the relative duality gap ``(P - D) / max(1, |P|)``
        (:func:`krein.solvers.linear.linear_svm_certificate`).
    max_iter : int
        Iteration limit (-1: :data:`IPM_MAX_ITER`).

    Returns
    -------
    alpha : ndarray of shape (n,)
        Dual point, ``0 <= alpha <= C`` and ``y' alpha = 0`` (to round-off).
    w : ndarray of shape (d,)
        ``Phi' (y * alpha)``.
    b : float
        The intercept minimizing the primal for ``w``.
    info : dict
        ``iterations``, ``status`` ("converged"; "max_iter"; "stalled": the best gap,
        below 1e-6, not halved in 5 iterations: round-off bounds it above ``tol``), ``gap`` (relative),
        ``primal_objective``, ``dual_objective``, ``direct_factorizations`` (Newton
        systems whose CG fell back to the factored float64 normal matrix),
        ``preconditioner_rows`` (list, per Newton system: the rows in its preconditioner,
        ``n`` for every row) and ``products`` (products with the normal matrix in CG).

    Raises
    ------
    ValueError
        When ``y`` holds one class only (the equality ``y' alpha = 0`` then forces
        ``alpha = 0`` and the intercept is unbounded).
    """
    Phi = np.asarray(Phi, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = Phi.shape
    C = np.broadcast_to(np.asarray(C, dtype=float), (n,)).copy()
    if not (np.any(y > 0) and np.any(y < 0)):
        raise ValueError("linear_svm_ipm needs both classes in y")
    limit = IPM_MAX_ITER if max_iter == -1 else int(max_iter)
    # single-precision copy of the bordered rows [Phi, 1] for the preconditioner's
    # product (half the time of float64)
    Phi32 = None
    if d >= _PRECONDITION_MIN_D:
        Phi32 = np.empty((n, d + 1), dtype=np.float32)
        Phi32[:, :d] = Phi
        Phi32[:, d] = 1.0
    n_direct = 0
    rows_kept, applies = [], 0
    normal = None
    rng = np.random.default_rng(0)      # the leverage sketches (only the CG's path depends on it)

    # interior starting point: the middle of the box, unit multipliers
    alpha = 0.5 * C
    b = 0.0
    z = np.ones(n)
    s = np.ones(n)
    best = None
    since_best = 0
    status, it = "max_iter", 0
    for it in range(1, limit + 1):
        t = C - alpha
        w = Phi.T @ (y * alpha)
        f = Phi @ w
        r_d = y * f - 1.0 + b * y - z + s          # dual stationarity residual
        r_e = float(y @ alpha)                      # equality residual
        mu = (float(alpha @ z) + float(t @ s)) / (2 * n)

        # the certificate at the current point (made exactly feasible)
        feasible = _restore_equality(alpha, y, C)
        gap, w_c, b_c, P, Dobj = _gap(Phi, y, C, feasible)
        if best is None or gap < 0.5 * best[0] or best[0] > _STALL_GAP:
            since_best = 0
        else:
            since_best += 1
        if best is None or gap < best[0]:
            best = (gap, feasible, w_c, b_c, P, Dobj)
        if gap <= tol and abs(float(y @ feasible)) <= tol * float(C.max()):
            status = "converged"
            break
        if since_best >= _STALL_ITERATIONS or not (np.all(alpha > 0) and np.all(t > 0)
                                                  and np.isfinite(mu)):
            status = "stalled"          # round-off bounds the gap above tol
            break

        theta_inv = 1.0 / (z / alpha + s / t)
        if normal is not None:
            applies += normal.applies
        normal = _NormalEquations(Phi, theta_inv, Phi32, previous=normal, rng=rng)

        def newton(r_z, r_s):
            rhs = -r_d + r_z / alpha - r_s / t
            q = theta_inv * y * rhs
            top = np.empty(d + 1)
            top[:d] = Phi.T @ q
            top[d] = float(q.sum()) - (-r_e)
            sol = normal.solve(top)
            d_alpha = theta_inv * (rhs - y * (Phi @ sol[:d] + sol[d]))
            d_z = (r_z - z * d_alpha) / alpha
            d_s = (r_s + s * d_alpha) / t
            return d_alpha, float(sol[d]), d_z, d_s

        def max_step(d_alpha, d_z, d_s):
            step = 1.0
            for v, dv in ((alpha, d_alpha), (t, -d_alpha), (z, d_z), (s, d_s)):
                neg = dv < 0
                if np.any(neg):
                    step = min(step, float(np.min(-v[neg] / dv[neg])))
            return step

        # predictor (affine scaling)
        da, db, dz, ds = newton(-alpha * z, -t * s)
        step = max_step(da, dz, ds)
        mu_aff = (float((alpha + step * da) @ (z + step * dz))
                  + float((t - step * da) @ (s + step * ds))) / (2 * n)
        sigma = (mu_aff / mu) ** 3
        # corrector (centering and the second-order term)
        da, db, dz, ds = newton(sigma * mu - alpha * z - da * dz,
                                sigma * mu - t * s + da * ds)
        step = min(1.0, _STEP_FRACTION * max_step(da, dz, ds))
        alpha = alpha + step * da
        b = b + step * db
        z = z + step * dz
        s = s + step * ds
        n_direct += normal.direct
        rows_kept.append(normal.n_kept)
    if normal is not None:
        applies += normal.applies
    gap, alpha, w, b, P, Dobj = best
    return alpha, w, b, {"iterations": it, "status": status, "gap": gap,
                         "primal_objective": P, "dual_objective": Dobj,
                         "direct_factorizations": n_direct, "preconditioner_rows": rows_kept,
                         "products": applies}
