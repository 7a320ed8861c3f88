"""Analytic center of an ACCPM localization set, and the bounds it gives (luss Algorithm 2).

The localization set of :func:`krein.solvers.indefinite.accpm.accpm` is
``L = {x : 0 <= x <= U, C x <= d, a'x = b0}`` (the feasible set ``A`` of a
:class:`~krein.formulations.indefinite.ProxyKernelProblem` cut by ``p`` rows);
its analytic center (luss Algorithm 2, step 1) is

    ``argmax  sum_i log(x_i) + sum_i log(U_i - x_i) + sum_j log(d_j - C_j'x)``
    subject to ``a'x = b0``.

Centering (``method="newton"``, ``center="newton"`` in ACCPM, the fast path):
damped Newton on the barrier ``phi(x) = -sum log(s(x))`` with the single
equality row handled in closed form (``dx = -H^-1 g + H^-1 a (a'H^-1 g) /
(a'H^-1 a)``, one factorization for both solves).  ``H = D_box + Ac'
diag(1/s_c^2) Ac``: with ``p < m`` cuts through the Woodbury identity (a
``p x p`` Cholesky), otherwise one ``m x m`` Cholesky of ``D_box + B'B`` (BLAS
``syrk``, the ``p m^2`` that dominates an iteration).  Warm start: the previous
center lies on the new cut; the next one starts on the ray along the Dikin
direction ``H_a^-1 c`` of the new cut's normal ``c`` (the deepest point of the
old Dikin ellipsoid inside the new cut), at the minimizer of the barrier along
that ray (1-D, bisection, :func:`ray_start`).  From there one Newton step and a
few chord steps (same factorization) reach ``lambda^2 / 2 <= 1e-10``, certified
by self-concordance (:func:`newton_center`): about one factorization per
center, plus one at the center itself every
:data:`~krein.solvers.indefinite.accpm.EXACT_EVERY` iterations for the localization bound
and the relevance (12).  ``method="cvxpy"`` (``center="cvxpy"`` in ACCPM) solves
the same problem with :class:`~krein.formulations.indefinite.AnalyticCenter`
(DPP, one compilation) and any exponential-cone solver; the two agree (tested).

The same barrier geometry gives the relevance of a cut (luss eq. 12,
:func:`cut_relevance`) and two certified upper bounds from a point of ``L``
(luss §3.3 stopping rule): the covering ellipsoid of radius
:func:`outer_radius` and an LP-duality bound from the same Newton system
(:func:`localization_bound`).

References
----------
R. Luss and A. d'Aspremont (2009), "Support vector machine classification with
indefinite kernels", Math. Prog. Comp. 1 -- "luss", §3.3, Algorithm 2, eq. (12).
S. Boyd and L. Vandenberghe (2004), *Convex Optimization*, §8.5.3 and §9.6.
Y. Nesterov and A. Nemirovski (1994), *Interior-Point Polynomial Algorithms in
Convex Programming* (self-concordance).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas, cho_factor, cho_solve, solve_triangular

from ...formulations.indefinite import AnalyticCenter
from ..core import check_solver, solve

__all__ = ["analytic_center", "cut_relevance", "outer_radius", "localization_bound",
           "newton_center", "ray_start", "interior_point", "slacks", "barrier_at", "scaled_rows",
           "HessianSolver", "CENTERS", "NEWTON_TOL", "NEWTON_MAX_STEPS"]

#: Ways to compute the analytic center of each localization set.
CENTERS = ("newton", "cvxpy")

#: Newton stops when ``lambda^2 / 2`` (Newton decrement) falls below this.
NEWTON_TOL = 1e-10
#: Newton steps allowed per center.
NEWTON_MAX_STEPS = 200


# ============================================================== linear algebra
class HessianSolver:
    """Factorization of ``H = diag(D) + B'B`` (``B`` of shape ``(p, m)``) restricted to
    ``{a'dx = 0}``.

    ``p < m``: Woodbury, ``H^-1 = D^-1 - D^-1 B'(I + B D^-1 B')^-1 B D^-1`` with one
    ``p x p`` Cholesky; else one ``m x m`` Cholesky of ``D + B'B``.

    Parameters
    ----------
    D : ndarray of shape (m,)
        Positive diagonal (the box rows of the barrier Hessian).
    B : ndarray of shape (p, m)
        Scaled cut rows (:func:`scaled_rows`).
    a : ndarray of shape (m,)
        Normal of the equality ``a'x = b0``.

    Attributes
    ----------
    kind : {"diagonal", "woodbury", "dense"}
        How ``H`` is factorized.
    Ha : ndarray of shape (m,)
        ``H^-1 a``.
    aHa : float
        ``a'H^-1 a``.
    """

    def __init__(self, D, B, a):
        p, m = B.shape
        self.a = a
        self.D = D
        self.B = B
        self.woodbury = 0 < p < m
        if p == 0:
            self.Dinv = 1.0 / D
            self.kind = "diagonal"
        elif self.woodbury:
            self.kind = "woodbury"
            self.Dinv = 1.0 / D
            Bs = B * np.sqrt(self.Dinv)                       # (p, m)
            S = blas.dsyrk(1.0, Bs.T, trans=1)                # upper triangle of Bs Bs'
            S[np.diag_indices(p)] += 1.0
            self.cS = cho_factor(S, lower=False, overwrite_a=True, check_finite=False)
        else:
            self.kind = "dense"
            H = blas.dsyrk(1.0, B.T, trans=0)                 # upper triangle of B'B
            H[np.diag_indices(m)] += D
            self.cH = cho_factor(H, lower=False, overwrite_a=True, check_finite=False)
        Ha = self.solve(a)
        self.Ha = Ha
        self.aHa = float(a @ Ha)

    def solve(self, R):
        """Apply ``H^-1``.

        Parameters
        ----------
        R : ndarray of shape (m,) or (m, k)
            Right-hand side(s).

        Returns
        -------
        ndarray of the shape of ``R``
            ``H^-1 R``.
        """
        if self.kind == "diagonal":
            return (self.Dinv * R.T).T
        if self.kind == "dense":
            return cho_solve(self.cH, R, check_finite=False)
        DR = (self.Dinv * R.T).T
        T = cho_solve(self.cS, self.B @ DR, check_finite=False)
        return DR - (self.Dinv * (self.B.T @ T).T).T

    def norm2(self, v):
        """The squared ``H``-norm of a vector.

        Parameters
        ----------
        v : ndarray of shape (m,)
            A vector.

        Returns
        -------
        float
            ``v'H v``.
        """
        Bv = self.B @ v
        return float(np.sum(self.D * v * v) + Bv @ Bv)

    def newton_step(self, g):
        """Newton step on ``{a'dx = 0}`` for the gradient ``g``.

        Parameters
        ----------
        g : ndarray of shape (m,)
            Gradient of the barrier.

        Returns
        -------
        dx : ndarray of shape (m,)
            The step (``a'dx = 0``).
        lam2 : float
            The squared Newton decrement ``-g'dx``.
        """
        v = self.solve(g)
        dx = -(v - self.Ha * (float(self.a @ v) / self.aHa))
        return dx, -float(g @ dx)

    def restricted_quad_forms(self, X):
        """``x_j' H_a^-1 x_j`` for the rows ``x_j`` of ``X``.

        ``H_a^-1 = H^-1 - H^-1 a a'H^-1 / (a'H^-1 a)`` is the inverse of ``H`` on
        ``{a'd = 0}`` (the affine hull of the localization set).

        Parameters
        ----------
        X : ndarray of shape (p, m)
            The rows (cut normals).

        Returns
        -------
        ndarray of shape (p,)
            The quadratic forms (clipped at 0).
        """
        if X.shape[0] == 0:
            return np.zeros(0)
        if self.kind == "dense":
            W = solve_triangular(self.cH[0], X.T, trans="T", lower=False, check_finite=False)
            q = np.einsum("ij,ij->j", W, W)
        else:
            q = np.einsum("ij,ij->i", X * self.Dinv, X)
            if self.kind == "woodbury":
                G = self.B @ (X * self.Dinv).T                   # (p_B, p_X)
                W = solve_triangular(self.cS[0], G, trans="T", lower=False, check_finite=False)
                q -= np.einsum("ij,ij->j", W, W)
        xa = X @ self.Ha
        return np.maximum(q - xa * xa / self.aHa, 0.0)


def slacks(x, U, Cm, d):
    """Slacks of the localization set ``{0 <= x <= U, Cm x <= d}`` at ``x``.

    Parameters
    ----------
    x : ndarray of shape (m,)
        A point.
    U : ndarray of shape (m,)
        Upper bounds of the box.
    Cm : ndarray of shape (p, m)
        Cut rows.
    d : ndarray of shape (p,)
        Their right-hand sides.

    Returns
    -------
    sl, su, sc : ndarray
        ``x``, ``U - x`` and ``d - Cm x``.
    """
    return x, U - x, d - Cm @ x


def barrier_at(sl, su, sc):
    """The log barrier ``-sum log(s)`` of the slacks (``+inf`` outside the set).

    Parameters
    ----------
    sl, su, sc : ndarray
        The slacks of :func:`slacks`.

    Returns
    -------
    float
        The barrier value, ``inf`` when a slack is not positive.
    """
    if sl.min(initial=np.inf) <= 0 or su.min(initial=np.inf) <= 0 or sc.min(initial=np.inf) <= 0:
        return np.inf
    return -(np.sum(np.log(sl)) + np.sum(np.log(su)) + np.sum(np.log(sc)))


def _max_step(s, r):
    """Largest ``t`` with ``s - t r >= 0`` (``inf`` if none binds)."""
    pos = r > 0
    if not np.any(pos):
        return np.inf
    return float(np.min(s[pos] / r[pos]))


def scaled_rows(Cm, isc, work):
    """``diag(isc) Cm``, written into ``work`` (a reused buffer) when given.

    Parameters
    ----------
    Cm : ndarray of shape (p, m)
        Cut rows.
    isc : ndarray of shape (p,)
        Row scales (inverse slacks).
    work : ndarray of shape (>= p, m) or None
        Buffer for the result.

    Returns
    -------
    ndarray of shape (p, m)
        The scaled rows.
    """
    if work is None:
        return Cm * isc[:, None]
    return np.multiply(Cm, isc[:, None], out=work[: Cm.shape[0]])


def newton_center(x, U, a, Cm, d, tol=NEWTON_TOL, max_steps=NEWTON_MAX_STEPS, work=None):
    """Damped Newton for ``min -sum log(s(x))`` s.t. ``a'x = b0`` from a strictly feasible
    ``x`` (``a'x = b0`` already).

    One Hessian factorization usually serves a whole center: the first step is a
    Newton step at the start point ``x_f``; the following are chord steps with the
    same factor (``H(x_f)`` instead of ``H(x)``), refactorizing only when they
    stop contracting fast.  Stopping rule ``lambda(x)^2 / 2 <= tol`` with
    ``lambda(x)^2 = g' H_a(x)^-1 g`` the Newton decrement, certified through
    self-concordance of the barrier (Nesterov & Nemirovski; Boyd & Vandenberghe
    §9.6): with ``r = ||x - x_f||_{H(x_f)} < 1``,
    ``H(x) >= (1 - r)^2 H(x_f)``, so ``lambda(x)^2 <= g'H_a(x_f)^-1 g / (1 - r)^2``;
    and after a full Newton step from a point with ``lambda < 1``,
    ``lambda(x+) <= (lambda / (1 - lambda))^2``.

    ``work`` (shape at least ``(p, m)``) receives the scaled rows ``B`` of each
    factorization, saving an allocation of ``p m`` doubles per center; the returned
    ``hs`` refers to it.

    Parameters
    ----------
    x : ndarray of shape (m,)
        Strictly feasible start with ``a'x = b0``.
    U : ndarray of shape (m,)
        Upper bounds of the box.
    a : ndarray of shape (m,)
        Normal of the equality.
    Cm : ndarray of shape (p, m)
        Cut rows.
    d : ndarray of shape (p,)
        Their right-hand sides.
    tol : float
        Stop when the certified ``lambda^2 / 2 <= tol``.
    max_steps : int
        Step limit.
    work : ndarray, optional
        Buffer for the scaled rows (see above).

    Returns
    -------
    x : ndarray
        The center.
    steps : int
        Steps taken (Newton and chord).
    lam2 : float
        Certified bound on ``lambda(x)^2``.
    hs : HessianSolver
        The last factorization (at a point within Hessian-distance ``r < 1`` of
        ``x``, its Hessian within a factor ``(1 - r)^+-2`` of ``H(x)``).
    """
    steps = 0
    hs = None
    x_f = None
    prev = np.inf
    predicted = np.inf
    while True:
        sl, su, sc = slacks(x, U, Cm, d)
        isl, isu, isc = 1.0 / sl, 1.0 / su, 1.0 / sc
        g = isu - isl + Cm.T @ isc
        if hs is not None:
            dx, lam2 = hs.newton_step(g)
            r = np.sqrt(hs.norm2(x - x_f))
            bound = lam2 / (1.0 - r) ** 2 if r < 1.0 else np.inf
            bound = min(bound, predicted)
            if bound / 2.0 <= tol or steps >= max_steps:
                return x, steps, bound, hs
            if r >= 0.5 or lam2 > 0.1 * prev:
                hs = None  # chord steps no longer contract fast: refactorize here
        if hs is None:
            hs = HessianSolver(isl * isl + isu * isu, scaled_rows(Cm, isc, work), a)
            hs.x_ref = x_f = x
            dx, lam2 = hs.newton_step(g)
            if lam2 / 2.0 <= tol or steps >= max_steps:
                return x, steps, lam2, hs
        exact = x is x_f
        prev = lam2
        rc = Cm @ dx
        tmax = min(_max_step(sl, -dx), _max_step(su, dx), _max_step(sc, rc))
        t = min(1.0, 0.99 * tmax)
        phi0 = barrier_at(sl, su, sc)
        for _ in range(60):
            phi = barrier_at(sl + t * dx, su - t * dx, sc - t * rc)
            if phi <= phi0 - 0.1 * t * lam2:
                break
            t *= 0.5
        else:
            # no decrease representable in floating point: x is the center to round-off
            return x, steps, lam2, hs
        x = x + t * dx
        steps += 1
        predicted = np.inf
        if exact and t == 1.0 and lam2 < 1.0:
            lam = np.sqrt(max(lam2, 0.0))
            predicted = (lam / (1.0 - lam)) ** 4
            if predicted / 2.0 <= tol:
                return x, steps, predicted, hs


def ray_start(x, U, Cm, d, n_hat, direction=None):
    """Strictly feasible start ``x + t v`` for the next center.

    ``x`` (the old center) lies on the new cut ``n_hat'(y - x) >= 0``.  The ray
    ``v`` is the Dikin direction ``H_a^-1 n_hat`` of the old barrier (the point of
    the Dikin ellipsoid that is deepest inside the new cut) when ``direction`` is
    given, else the Euclidean normal ``n_hat``; ``t`` minimizes the barrier of the
    old rows plus ``-log(new slack)`` along the ray (1-D convex, bisection on the
    cached slacks).

    Parameters
    ----------
    x : ndarray of shape (m,)
        The old center.
    U : ndarray of shape (m,)
        Upper bounds of the box.
    Cm : ndarray of shape (p, m)
        The old cut rows.
    d : ndarray of shape (p,)
        Their right-hand sides.
    n_hat : ndarray of shape (m,)
        Unit normal of the new cut.
    direction : ndarray of shape (m,), optional
        The Dikin direction ``H_a^-1 n_hat``.

    Returns
    -------
    ndarray of shape (m,)
        The start point.
    """
    v = n_hat if direction is None else direction
    slope = float(n_hat @ v)
    if not slope > 0:
        v, slope = n_hat, float(n_hat @ n_hat)
    sl, su, sc = slacks(x, U, Cm, d)
    s = np.concatenate([sl, su, sc])
    r = np.concatenate([-v, v, Cm @ v])  # slack_i(t) = s_i - t r_i
    tmax = _max_step(s, r)
    if not np.isfinite(tmax):
        tmax = float(np.max(U)) * np.sqrt(x.size) / float(np.linalg.norm(v))
    lo, hi = 0.0, tmax
    for _ in range(100):
        t = 0.5 * (lo + hi)
        dphi = float(np.sum(r / (s - t * r))) - 1.0 / t
        if dphi > 0:
            hi = t
        else:
            lo = t
        if hi - lo <= 1e-6 * hi:
            break
    t = min(0.5 * (lo + hi), 0.999 * tmax)
    return x + t * v


def interior_point(a, b0, U):
    """A point of the relative interior of ``{a'x = b0, 0 <= x <= U}`` (``a`` in {-1, +1}).

    ``x = t_+ U`` on ``a = +1`` and ``t_- U`` on ``a = -1`` with ``t_+-`` in (0, 1).

    Parameters
    ----------
    a : ndarray of shape (m,)
        Normal of the equality (entries +-1).
    b0 : float
        Its right-hand side.
    U : ndarray of shape (m,)
        Upper bounds of the box.

    Returns
    -------
    ndarray of shape (m,)
        The interior point.

    Raises
    ------
    ValueError
        If the set has an empty relative interior (ACCPM needs an interior).
    """
    if np.any(U <= 0):
        raise ValueError("ACCPM needs upper bounds U > 0 (the box has no interior)")
    Sp = float(np.sum(U[a > 0]))
    Sm = float(np.sum(U[a < 0]))
    msg = ("the feasible set {a'x = b0, 0 <= x <= U} has an empty relative interior "
           "(for svc: both classes must be present); ACCPM needs an interior point")
    if Sm == 0.0:
        tp = b0 / Sp
        if not 0.0 < tp < 1.0:
            raise ValueError(msg)
        tm = 0.5
    elif Sp == 0.0:
        tm = -b0 / Sm
        if not 0.0 < tm < 1.0:
            raise ValueError(msg)
        tp = 0.5
    else:
        lo = max(0.0, -b0 / Sm)
        hi = min(1.0, (Sp - b0) / Sm)
        if not lo < hi:
            raise ValueError(msg)
        tm = 0.5 * (lo + hi)
        tp = (b0 + tm * Sm) / Sp
        if not 0.0 < tp < 1.0:
            raise ValueError(msg)
    return np.where(a > 0, tp * U, tm * U)


def _as_cuts(m, cuts, rhs):
    if cuts is None:
        return np.zeros((0, m)), np.zeros(0)
    Cm = np.atleast_2d(np.asarray(cuts, dtype=float))
    d = np.asarray(rhs, dtype=float).ravel()
    if Cm.shape[1] != m or d.shape != (Cm.shape[0],):
        raise ValueError(f"cuts must have shape (p, {m}) and rhs shape (p,); "
                         f"got {Cm.shape} and {d.shape}")
    return Cm, d


def analytic_center(upper, a, b0, cuts=None, rhs=None, *, x0=None, method="newton",
                    solver="CLARABEL", solver_options=None, tol=NEWTON_TOL,
                    max_steps=NEWTON_MAX_STEPS):
    """Analytic center of ``{x : 0 <= x <= U, cuts @ x <= rhs, a'x = b0}`` (luss Alg. 2, step 1).

    ``argmax  sum_i log(x_i) + sum_i log(U_i - x_i) + sum_j log(rhs_j - cuts_j'x)``
    subject to ``a'x = b0``.

    Parameters
    ----------
    upper : array of shape (m,)
        Box ``U > 0``.
    a : array of shape (m,)
        Equality normal (entries +-1).
    b0 : float
        Right-hand side of the equality ``a'x = b0``.
    cuts : array of shape (p, m), optional
        Normals of the ``p`` cutting planes ``cuts @ x <= rhs`` (default: none).
    rhs : array of shape (p,), optional
        Right-hand sides of the cuts (required with ``cuts``).
    x0 : array of shape (m,), optional
        Strictly feasible start for Newton (default: an interior point of the box
        and hyperplane, which must then satisfy the cuts strictly).
    method : {"newton", "cvxpy"}
        Damped Newton on the barrier (the fast path) or a CVXPY exponential-cone
        model (:class:`~krein.formulations.indefinite.AnalyticCenter`).
    solver : str
        CVXPY solver for ``method="cvxpy"`` (an exponential-cone solver).
    solver_options : dict, optional
        Passed to :func:`~krein.solvers.solve` (e.g. CLARABEL's ``tol_gap_rel``; at
        its defaults CLARABEL's center is accurate to ~2e-5 relative, with
        ``tol_gap_abs = tol_gap_rel = tol_feas = 1e-12`` to ~1e-7).
    tol : float
        Newton stops when ``lambda^2 / 2 <= tol``.
    max_steps : int
        Maximum number of Newton (and chord) steps.

    Returns
    -------
    x : ndarray of shape (m,)
        The analytic center (to the certified decrement of ``info``).
    info : dict
        ``steps`` (Newton steps or solver iterations) and ``decrement2``
        (``lambda^2`` at ``x``, NaN for cvxpy).

    Raises
    ------
    ValueError
        Unknown method or solver, bad shapes, or a start that is not strictly feasible.
    """
    if method not in CENTERS:
        raise ValueError(f"method must be one of {CENTERS}; got {method!r}")
    U = np.asarray(upper, dtype=float).ravel()
    a = np.asarray(a, dtype=float).ravel()
    m = U.size
    Cm, d = _as_cuts(m, cuts, rhs)
    if method == "cvxpy":
        check_solver(solver)
        ac = AnalyticCenter(m, 2 * m + Cm.shape[0], a, b0)
        ac.set_rows(np.vstack([-np.eye(m), np.eye(m), Cm]), np.concatenate([np.zeros(m), U, d]))
        sol = solve(ac, solver, **(solver_options or {}))
        return np.asarray(sol.primal["x"], dtype=float), {"steps": sol.iterations,
                                                          "decrement2": float("nan")}
    x = interior_point(a, float(b0), U) if x0 is None else np.asarray(x0, dtype=float).ravel()
    if not np.isfinite(barrier_at(*slacks(x, U, Cm, d))):
        raise ValueError("x0 must be strictly feasible (0 < x < U and cuts @ x < rhs)")
    x, steps, lam2, _ = newton_center(x, U, a, Cm, d, tol, max_steps)
    return x, {"steps": steps, "decrement2": lam2}


def cut_relevance(x, upper, a, cuts, rhs):
    """Relevance of each cut at ``x`` (luss eq. 12): ``c_j' H^-1 c_j / (rhs_j - c_j'x)^2``.

    ``H`` is the Hessian of the barrier ``-sum log(b - A x)`` of the whole
    localization set (box rows included) at ``x``, inverted on ``{a'd = 0}``.
    ``(rhs_j - c_j'x) / sqrt(c_j' H^-1 c_j)`` is the distance from ``x`` to the
    hyperplane ``j`` measured in the norm of the Dikin ellipsoid
    ``{x + d : d'H d <= 1}``, so (12) is one over its square: a LARGE value is a
    cut close to the center (relevant), a small value a far one (likely redundant;
    certainly redundant when the distance exceeds the number of rows, Boyd &
    Vandenberghe's EE364b notes on ACCPM).  Pruning keeps the largest values.

    Parameters
    ----------
    x : array of shape (m,)
        Strictly feasible point (the analytic center).
    upper : array of shape (m,)
        Box ``U > 0`` of the localization set.
    a : array of shape (m,)
        Equality normal (entries +-1); the Hessian is inverted on ``{a'd = 0}``.
    cuts : array of shape (p, m)
        Normals ``c_j`` of the cuts.
    rhs : array of shape (p,)
        Right-hand sides of the cuts (``cuts @ x < rhs``).

    Returns
    -------
    ndarray of shape (p,)
        The relevance (12) of each cut; larger is closer to ``x``.

    Raises
    ------
    ValueError
        If ``cuts`` and ``rhs`` have inconsistent shapes (raised by the shape check).
    """
    U = np.asarray(upper, dtype=float)
    a = np.asarray(a, dtype=float)
    x = np.asarray(x, dtype=float)
    Cm, d = _as_cuts(U.size, cuts, rhs)
    sl, su, sc = slacks(x, U, Cm, d)
    hs = HessianSolver(1.0 / sl ** 2 + 1.0 / su ** 2, Cm / sc[:, None], a)
    return _relevance(hs, Cm, sc)


def _relevance(hs, Cm, sc):
    return hs.restricted_quad_forms(Cm) / sc ** 2


def outer_radius(n_rows, lam):
    """Radius ``R`` with ``L subset {z : ||z - x||_x <= R}`` for a point ``x`` of Newton
    decrement ``lam < 1`` of the log barrier of ``n_rows`` inequalities (on an affine set).

    With ``w_i = s_i(z) / s_i(x) >= 0`` for ``z`` in ``L``: ``||z - x||_x^2 =
    sum (1 - w_i)^2 <= N - 2 S + S^2`` with ``S = sum w_i = N - grad phi(x)'(z - x)
    <= N + lam ||z - x||_x``, hence ``t^2 <= (N - 1 + lam t)^2 + N - 1``.  At the
    exact center (``lam = 0``) this is ``sqrt(N (N - 1))``, the covering ellipsoid
    of Boyd & Vandenberghe §8.5.3 that luss §3.3 maximizes the linearization over.

    Parameters
    ----------
    n_rows : int
        Number ``N`` of inequality rows of the barrier (``2 m + p`` for the box and
        ``p`` cuts).
    lam : float
        Newton decrement ``lambda`` at ``x`` (not squared).

    Returns
    -------
    float
        The radius ``R`` in the local norm ``||.||_x``; ``+inf`` when ``lam >= 1``.
    """
    N = float(n_rows)
    if not lam < 1.0:
        return np.inf
    lam = max(float(lam), 0.0)
    q = 1.0 - lam * lam
    return (lam * (N - 1.0) + np.sqrt(lam * lam * (N - 1.0) ** 2 + q * N * (N - 1.0))) / q


def localization_bound(hs, x, lam2, f, grad, U, Cm, d):
    """Certified upper bound ``f(x) + max {grad'(z - x) : z in L}`` (luss §3.3 stopping rule).

    ``f* <= f(x) + grad'(x* - x)`` by concavity, and the optimum ``x*`` lies in the
    localization set ``L = {z : A z <= b, a'z = b0}`` (a cut never removes a point
    better than its center; pruning only enlarges ``L``).  With ``d``
    (``a'd = 0``) from the factorization ``hs`` and the residual
    ``rho = grad - H(x) d`` computed with the exact ``H(x) = A'S^-2 A``, two bounds
    on the linear maximum:

    * the covering ellipsoid of luss §3.3 (``L subset {||z - x||_x <= R}``,
      :func:`outer_radius`): ``R (||d||_x + ||rho||_x*)``;
    * LP duality with the multipliers ``mu = S^-1 (S^-1 A d + c 1) >= 0``,
      ``c = max(0, max_i -A_i d / s_i)``:  ``A'mu = H d + c grad phi(x)``, so
      ``grad'(z - x) <= mu's - c grad phi'(z - x) + rho'(z - x)
      <= c (N + lam R) + lam ||d||_x + R ||rho||_x*`` (``mu's = grad phi'd + c N``,
      ``|grad phi'v| <= lam ||v||_x`` on ``{a'v = 0}``).  Usually several times
      tighter than the ellipsoid (``max_i |A_i d| / s_i <= ||d||_x``).

    ``lam2`` bounds the squared Newton decrement at ``x``; if ``hs`` was factorized
    at ``x_f != x``, dual norms at ``x`` are bounded through
    ``H(x) >= (1 - r)^2 H(x_f)``, ``r = ||x - x_f||_{x_f} < 1`` (self-concordance).
    The loop calls it with ``hs`` factorized at ``x`` (``r = 0``, ``rho ~ 0``).

    Parameters
    ----------
    hs : HessianSolver
        A factorization of the barrier Hessian (at ``hs.x_ref``, default ``x``).
    x : ndarray of shape (m,)
        A strictly feasible point of the localization set.
    lam2 : float
        Bound on the squared Newton decrement at ``x``.
    f : float
        ``f(x)``.
    grad : ndarray of shape (m,)
        ``grad f(x)``.
    U : ndarray of shape (m,)
        Upper bounds of the box.
    Cm : ndarray of shape (p, m)
        Cut rows.
    d : ndarray of shape (p,)
        Their right-hand sides.

    Returns
    -------
    float
        The bound (``+inf`` when ``lam >= 1`` or ``r >= 1``).
    """
    N = 2 * x.size + Cm.shape[0]
    lam = np.sqrt(max(lam2, 0.0))
    R = outer_radius(N, lam)
    x_ref = getattr(hs, "x_ref", x)
    r = np.sqrt(hs.norm2(x - x_ref)) if x_ref is not x else 0.0
    if not (np.isfinite(R) and r < 1.0):
        return np.inf
    sl, su, sc = slacks(x, U, Cm, d)
    a = hs.a

    def solve_a(v):
        z = hs.solve(v)
        return z - hs.Ha * (float(a @ z) / hs.aHa)

    dvec = solve_a(grad)
    rho = grad - ((1.0 / sl ** 2 + 1.0 / su ** 2) * dvec + Cm.T @ ((Cm @ dvec) / sc ** 2))
    rho_norm = np.sqrt(max(float(rho @ solve_a(rho)), 0.0)) / (1.0 - r)
    Ad_s = np.concatenate([-dvec / sl, dvec / su, (Cm @ dvec) / sc])
    d_norm = float(np.sqrt(Ad_s @ Ad_s))                  # ||d||_x, exact
    c = max(0.0, float(np.max(-Ad_s)))
    ellipsoid = R * (d_norm + rho_norm)
    dual = c * (N + lam * R) + lam * d_norm + R * rho_norm
    return f + min(ellipsoid, dual)
