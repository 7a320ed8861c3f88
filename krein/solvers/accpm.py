"""Analytic center cutting plane method for IndefiniteSVM (luss Algorithm 2).

Maximizes the concave ``f(beta)`` of a
:class:`~krein.formulations.indefinite.ProxyKernelProblem` (luss eqs. 7, 17, 20)
over ``A = {a'beta = b0, 0 <= beta <= U}`` by localization:

* ``L_0 = A`` written as ``{x : -x <= 0, x <= U, a'x = b0}`` (``2m`` box rows);
* step 1: ``x_k`` = analytic center of ``L_k``,
  ``argmax sum_i log(b_i - A_i x)  s.t.  a'x = b0``;
* step 2: ``f`` and ``grad f`` at ``x_k`` (the O(n^2) oracle of
  :mod:`krein.solvers.proxy`) and the cut ``grad'(x - x_k) >= 0``: by concavity
  ``f(x) <= f(x_k) + grad'(x - x_k)``, so every ``x`` better than ``x_k`` (and
  the optimum) stays in ``L_{k+1}``;
* step 3: when the cuts exceed ``max_cuts`` (``3m`` by default, the paper's
  ``3n`` rule of thumb) the least relevant are dropped by luss eq. (12);
* step 4: stop on the certified gap.

The cut is stored as the row ``-d / |d|`` with right-hand side
``-d'x_k / |d|``, where ``d`` is ``grad`` projected onto ``{a'd = 0}``: on the
affine set ``{a'x = b0}`` it is the same half-space, rows of unit norm keep the
Hessian well scaled, and the analytic center does not depend on row scaling.

Bounds.  The lower bound is the best ``f(x_k)``.  Upper bounds, all certified
(whatever the accuracy of the centers): the Frank-Wolfe bound at every center and
the libsvm bound every ``gap_every`` iterations (:class:`Certifier`, as in
:mod:`krein.solvers.indefinite`), and luss's own stopping rule (§3.3): maximize
the linearization of ``f`` at ``x_k`` over a set that covers ``L_k`` (which holds
the optimum).  We use both the covering ellipsoid ``{||z - x_k||_H <= R}``
(``R = sqrt(N (N - 1))`` for ``N`` rows at the exact center, enlarged for the
measured Newton decrement, :func:`outer_radius`) and an LP-duality bound built from
the same Newton system, usually several times tighter
(:func:`_localization_bound`).  Both converge linearly with the volume of
``L_k``: late in a run they are the tightest bound (by 10x or more), while early
the libsvm bound at the center is.

Centering (``center="newton"``, the fast path): damped Newton on the barrier
``phi(x) = -sum log(s(x))`` with the single equality row handled in closed form
(``dx = -H^-1 g + H^-1 a (a'H^-1 g) / (a'H^-1 a)``, one factorization for both
solves).  ``H = D_box + Ac' diag(1/s_c^2) Ac``: with ``p < m`` cuts through the
Woodbury identity (a ``p x p`` Cholesky), otherwise one ``m x m`` Cholesky of
``D_box + B'B`` (BLAS ``syrk``, the ``p m^2`` that dominates an iteration).
Warm start: the previous center lies on the new cut; the next one starts on the
ray along the Dikin direction ``H_a^-1 c`` of the new cut's normal ``c`` (the
deepest point of the old Dikin ellipsoid inside the new cut), at the minimizer of
the barrier along that ray (1-D, bisection).  From there one Newton step and a
few chord steps (same factorization) reach ``lambda^2 / 2 <= 1e-10``, certified
by self-concordance (:func:`_newton_center`): about one factorization per
center, plus one at the center itself every ``EXACT_EVERY`` iterations for the
localization bound and the relevance (12).  ``center="cvxpy"`` solves the same
problem with :class:`~krein.formulations.indefinite.AnalyticCenter` (DPP, one
compilation) and any exponential-cone solver; the two agree (tested).

Timings against projected gradient: ``benchmarks/README.md``
(``benchmarks/indefinite.py --kernel sigmoid``).

ACCPM needs about ``5 n`` centers, each dominated by the ``p m^2`` Hessian
product, as luss §5.3 found ("ACCPM clearly suffers from the complexity of the
analytic center problem").  Its lower bound is far better than its certificate
(relative error ~1e-5 when the gap is 1e-3): the centers approach the optimum
in value faster than in distance, and the bounds at a center are first order in
the distance.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.linalg import blas, cho_factor, cho_solve, solve_triangular

from ..formulations.indefinite import AnalyticCenter
from .core import SolverError, check_solver, solve
from .indefinite import Certifier, _check_common, _finish, _start

__all__ = ["accpm", "analytic_center", "cut_relevance", "outer_radius", "CENTERS"]

#: Ways to compute the analytic center of each localization set.
CENTERS = ("newton", "cvxpy")

#: Newton stops when ``lambda^2 / 2`` (Newton decrement) falls below this.
NEWTON_TOL = 1e-10
#: Newton steps allowed per center.
NEWTON_MAX_STEPS = 200
#: Every this many iterations the barrier Hessian is factorized at the center itself
#: (the Newton path otherwise reuses the factorization of the start point): it gives
#: the localization bound of luss §3.3 and refreshes the numerators ``c_j'H^-1 c_j`` of
#: the relevance (12) (``m^2 p`` each); in between, pruning uses these numerators with
#: current slacks ``b_j - c_j'x_k``.
EXACT_EVERY = 10


# ============================================================== linear algebra
class _HessianSolver:
    """Factorization of ``H = diag(D) + B'B`` (``B`` of shape ``(p, m)``) restricted to
    ``{a'dx = 0}``.

    ``p < m``: Woodbury, ``H^-1 = D^-1 - D^-1 B'(I + B D^-1 B')^-1 B D^-1`` with one
    ``p x p`` Cholesky; else one ``m x m`` Cholesky of ``D + B'B``.
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
        """``H^-1 R`` for ``R`` of shape ``(m,)`` or ``(m, k)``."""
        if self.kind == "diagonal":
            return (self.Dinv * R.T).T
        if self.kind == "dense":
            return cho_solve(self.cH, R, check_finite=False)
        DR = (self.Dinv * R.T).T
        T = cho_solve(self.cS, self.B @ DR, check_finite=False)
        return DR - (self.Dinv * (self.B.T @ T).T).T

    def norm2(self, v):
        """``v'H v``."""
        Bv = self.B @ v
        return float(np.sum(self.D * v * v) + Bv @ Bv)

    def newton_step(self, g):
        """Newton step ``dx`` (with ``a'dx = 0``) and the decrement ``lambda^2 = -g'dx``."""
        v = self.solve(g)
        dx = -(v - self.Ha * (float(self.a @ v) / self.aHa))
        return dx, -float(g @ dx)

    def restricted_quad_forms(self, X):
        """``x_j' H_a^-1 x_j`` for the rows ``x_j`` of ``X`` (shape ``(p, m)``), where
        ``H_a^-1 = H^-1 - H^-1 a a'H^-1 / (a'H^-1 a)`` is the inverse of ``H`` on
        ``{a'd = 0}`` (the affine hull of the localization set)."""
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


def _slacks(x, U, Cm, d):
    return x, U - x, d - Cm @ x


def _barrier_at(sl, su, sc):
    if sl.min(initial=np.inf) <= 0 or su.min(initial=np.inf) <= 0 or sc.min(initial=np.inf) <= 0:
        return np.inf
    return -(np.sum(np.log(sl)) + np.sum(np.log(su)) + np.sum(np.log(sc)))


def _max_step(s, r):
    """Largest ``t`` with ``s - t r >= 0`` (``inf`` if none binds)."""
    pos = r > 0
    if not np.any(pos):
        return np.inf
    return float(np.min(s[pos] / r[pos]))


def _scaled_rows(Cm, isc, work):
    """``diag(isc) Cm``, written into ``work`` (a reused buffer) when given."""
    if work is None:
        return Cm * isc[:, None]
    return np.multiply(Cm, isc[:, None], out=work[: Cm.shape[0]])


def _newton_center(x, U, a, Cm, d, tol=NEWTON_TOL, max_steps=NEWTON_MAX_STEPS, work=None):
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

    Returns
    -------
    x : ndarray
    steps : int
        Steps taken (Newton and chord).
    lam2 : float
        Certified bound on ``lambda(x)^2``.
    hs : _HessianSolver
        The last factorization (at a point within Hessian-distance ``r < 1`` of
        ``x``, its Hessian within a factor ``(1 - r)^+-2`` of ``H(x)``).

    ``work`` (shape at least ``(p, m)``) receives the scaled rows ``B`` of each
    factorization, saving an allocation of ``p m`` doubles per center; the returned
    ``hs`` refers to it.
    """
    steps = 0
    hs = None
    x_f = None
    prev = np.inf
    predicted = np.inf
    while True:
        sl, su, sc = _slacks(x, U, Cm, d)
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
            hs = _HessianSolver(isl * isl + isu * isu, _scaled_rows(Cm, isc, work), a)
            hs.x_ref = x_f = x
            dx, lam2 = hs.newton_step(g)
            if lam2 / 2.0 <= tol or steps >= max_steps:
                return x, steps, lam2, hs
        exact = x is x_f
        prev = lam2
        rc = Cm @ dx
        tmax = min(_max_step(sl, -dx), _max_step(su, dx), _max_step(sc, rc))
        t = min(1.0, 0.99 * tmax)
        phi0 = _barrier_at(sl, su, sc)
        for _ in range(60):
            phi = _barrier_at(sl + t * dx, su - t * dx, sc - t * rc)
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


def _ray_start(x, U, Cm, d, n_hat, direction=None):
    """Strictly feasible start ``x + t v`` for the next center.

    ``x`` (the old center) lies on the new cut ``n_hat'(y - x) >= 0``.  The ray
    ``v`` is the Dikin direction ``H_a^-1 n_hat`` of the old barrier (the point of
    the Dikin ellipsoid that is deepest inside the new cut) when ``direction`` is
    given, else the Euclidean normal ``n_hat``; ``t`` minimizes the barrier of the
    old rows plus ``-log(new slack)`` along the ray (1-D convex, bisection on the
    cached slacks).
    """
    v = n_hat if direction is None else direction
    slope = float(n_hat @ v)
    if not slope > 0:
        v, slope = n_hat, float(n_hat @ n_hat)
    sl, su, sc = _slacks(x, U, Cm, d)
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


def _interior_point(a, b0, U):
    """A point of the relative interior of ``{a'x = b0, 0 <= x <= U}`` (``a`` in {-1, +1}):
    ``x = t_+ U`` on ``a = +1`` and ``t_- U`` on ``a = -1`` with ``t_+-`` in (0, 1).

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
        Right-hand side of ``a'x = b0``.
    cuts : array of shape (p, m), optional
        Normals ``c_j`` of the cuts ``c_j'x <= rhs_j``; default none.
    rhs : array of shape (p,), optional
        Right-hand sides of the cuts.
    x0 : array of shape (m,), optional
        Strictly feasible start for Newton (default: an interior point of the box
        and hyperplane, which must then satisfy the cuts strictly).
    method : {"newton", "cvxpy"}
    solver : str
        CVXPY solver for ``method="cvxpy"`` (an exponential-cone solver).
    solver_options : dict, optional
        Passed to :func:`~krein.solvers.solve` (e.g. CLARABEL's ``tol_gap_rel``; at
        its defaults CLARABEL's center is accurate to ~2e-5 relative, with
        ``tol_gap_abs = tol_gap_rel = tol_feas = 1e-12`` to ~1e-7).
    tol : float
        Newton stops when ``lambda^2 / 2 <= tol``.
    max_steps : int
        Largest number of Newton steps.

    Returns
    -------
    x : ndarray of shape (m,)
        The analytic center of ``{0 < x < U, a'x = b0, cuts x < rhs}``.
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
    x = _interior_point(a, float(b0), U) if x0 is None else np.asarray(x0, dtype=float).ravel()
    if not np.isfinite(_barrier_at(*_slacks(x, U, Cm, d))):
        raise ValueError("x0 must be strictly feasible (0 < x < U and cuts @ x < rhs)")
    x, steps, lam2, _ = _newton_center(x, U, a, Cm, d, tol, max_steps)
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
    upper, a : array of shape (m,)
        Box ``U`` and equality normal of the localization set.
    cuts : array of shape (p, m)
        Normals of the cuts.
    rhs : array of shape (p,)
        Right-hand sides of the cuts.

    Returns
    -------
    relevance : ndarray of shape (p,)
        luss eq. (12) for each cut (large: relevant).
    """
    U = np.asarray(upper, dtype=float)
    a = np.asarray(a, dtype=float)
    x = np.asarray(x, dtype=float)
    Cm, d = _as_cuts(U.size, cuts, rhs)
    sl, su, sc = _slacks(x, U, Cm, d)
    hs = _HessianSolver(1.0 / sl ** 2 + 1.0 / su ** 2, Cm / sc[:, None], a)
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
        Number ``N`` of inequalities of the barrier.
    lam : float
        Newton decrement at ``x``.

    Returns
    -------
    float
        ``+inf`` when ``lam >= 1``.
    """
    N = float(n_rows)
    if not lam < 1.0:
        return np.inf
    lam = max(float(lam), 0.0)
    q = 1.0 - lam * lam
    return (lam * (N - 1.0) + np.sqrt(lam * lam * (N - 1.0) ** 2 + q * N * (N - 1.0))) / q


def _localization_bound(hs, x, lam2, f, grad, U, Cm, d):
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
    sl, su, sc = _slacks(x, U, Cm, d)
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


# ============================================================== the loop
class _CvxpyCenter:
    """One DPP :class:`AnalyticCenter` for all iterations (rows padded with ``0 x <= 1``)."""

    def __init__(self, m, max_cuts, a, b0, U, solver, options):
        self.form = AnalyticCenter(m, 2 * m + max_cuts, a, b0)
        self.options = dict(options or {})
        self.m = m
        self.U = U
        self.solver = solver
        self.box = np.vstack([-np.eye(m), np.eye(m)])

    def __call__(self, Cm, d, x_safe):
        m, U = self.m, self.U
        self.form.set_rows(np.vstack([self.box, Cm]), np.concatenate([np.zeros(m), U, d]))
        try:
            sol = solve(self.form, self.solver, warm_start=True, **self.options)
            x, iters, accurate = np.asarray(sol.primal["x"], dtype=float), sol.iterations, True
        except SolverError as exc:
            # thin localization sets late in a run can end 'optimal_inaccurate'; any strictly
            # feasible point is a valid query point (cuts are valid anywhere), so use it
            xv = self.form.variables["x"].value
            if exc.status != "optimal_inaccurate" or xv is None:
                raise
            x, iters, accurate = np.asarray(xv, dtype=float), None, False
        # guard against solver tolerance only: pull towards a strictly feasible point
        for _ in range(60):
            if np.isfinite(_barrier_at(*_slacks(x, U, Cm, d))):
                break
            x = 0.5 * (x + x_safe)
        else:
            x = x_safe
        return x, (iters or 0), accurate


def _check_accpm(center, center_solver, max_cuts, center_options, m):
    if center not in CENTERS:
        raise ValueError(f"center must be one of {CENTERS}; got {center!r}")
    if center_options is not None and not isinstance(center_options, dict):
        raise ValueError(f"center_options must be a dict of solver options or None; "
                         f"got {center_options!r}")
    if center == "cvxpy":
        center_solver = check_solver(center_solver)
    if max_cuts is None:
        max_cuts = 3 * m
    if not (isinstance(max_cuts, (int, np.integer)) and not isinstance(max_cuts, bool)
            and max_cuts >= 1):
        raise ValueError(f"max_cuts must be an integer >= 1 (or None for 3m); got {max_cuts!r}")
    return center_solver, int(max_cuts)


def accpm(problem, *, tol=1e-3, atol=1e-8, max_iter=1000, gap_every=10, beta0=None,
          libsvm_tol=1e-4, oracle=None, center="newton", center_solver="CLARABEL",
          max_cuts=None, center_options=None, verbose=False):
    """Analytic center cutting plane method on luss eq. (7) (luss Algorithm 2).

    At iteration ``k``: ``x_k`` = analytic center of the localization set ``L_k``
    (step 1); evaluate ``f`` and ``grad f`` at ``x_k`` and add the cut
    ``grad'(x - x_k) >= 0`` (step 2); if the cuts exceed ``max_cuts``, keep the
    ``max_cuts`` most relevant by luss eq. (12) (step 3); stop when the certified
    gap is small (step 4).  ``L_0 = A = {a'beta = b0, 0 <= beta <= U}``.

    Cut relevance (eq. 12), ``c_j'H^-1 c_j / (b_j - c_j'x_k)^2`` with ``H`` the
    barrier Hessian at the center (inverted on ``{a'd = 0}``), is one over the
    squared distance from ``x_k`` to cut ``j`` in the Dikin-ellipsoid norm:
    LARGE means the cut is near the center and shapes the set (kept), small means
    it is far away and likely redundant (dropped).  The newest cut passes through
    ``x_k`` (relevance ``+inf``) and is always kept.  Dropping cuts only enlarges
    the localization set, so the optimum stays inside it.  The numerators are
    computed with the Hessian at the center every ``EXACT_EVERY`` (10) iterations
    and kept in between (new cuts get theirs when added); the slacks are always
    current.

    Upper bounds (the least is reported, ``certificate["upper_source"]``):
    ``"frank-wolfe"`` (every center), ``"libsvm"`` (every ``gap_every``) and
    ``"accpm"``, luss §3.3's bound from a set covering ``L_k`` (every
    ``EXACT_EVERY`` iterations; see the module docstring).  The lower bound is the
    best ``f`` at a center.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, task,
        ``C`` and ``rho``.
    tol, atol : float
        Relative and absolute tolerance on the certified gap: stop when
        ``gap <= max(atol, tol * |lower - g(0)|)`` with ``g(0)`` the constant part
        of ``f`` (:meth:`Certifier.converged`).
    max_iter : int
        Number of centers (oracle calls).
    gap_every : int
        Iterations between libsvm gap checks (0: only the free bounds).  Each
        check forms the proxy kernel and solves an SVM: at ``libsvm_tol = 1e-6``
        libsvm's SMO may need 1e5-1e6 iterations on these kernels (0.1-0.5 s at
        n = 100); the default ``1e-4`` (as in the other loops) is much faster and
        the bound stays valid (only less tight).
    beta0 : array of shape (m,), optional
        A known point (projected onto ``A``): it is evaluated first and its cut
        ``grad f(beta0)'(x - beta0) >= 0`` is added to ``L_0``.
    libsvm_tol : float
        Tolerance of libsvm at the gap checks (default ``1e-4``, as in
        :func:`~krein.solvers.projected_gradient` and the exchange method).
    oracle : ProxyKernelOracle, optional
        Reuse an eigendecomposition of ``K0``.
    center : {"newton", "cvxpy"}
        ``"newton"`` (fast path): damped Newton with the equality row eliminated in
        closed form, Woodbury when the cuts are fewer than ``m``, warm-started on
        the Dikin ray of the new cut from the previous center, chord steps on one
        factorization; stops at a certified ``lambda^2 / 2 <= 1e-10``.  ``"cvxpy"``:
        :class:`~krein.formulations.indefinite.AnalyticCenter` solved by
        ``center_solver`` (small problems; for cross-checking).
    center_solver : str
        CVXPY solver for ``center="cvxpy"`` (needs exponential cones: CLARABEL,
        SCS, ECOS, ...).
    max_cuts : int, optional
        Cuts kept (box rows not counted); default ``3m`` (luss: "reduce the number
        of constraints to 3n", ``m = n`` for svc and one-class, ``2n`` for svr).
        Much smaller budgets can stall: with ``max_cuts = m`` we saw runs cycle
        between two centers, each cut dropping the other's.
    center_options : dict, optional
        Options for ``center_solver`` (passed to :func:`~krein.solvers.solve`).
    verbose : bool
        Print one line per center.

    Returns
    -------
    Solution
        ``solver = "accpm"``; ``primal`` holds ``beta``, ``alpha`` and ``u`` of the
        best center; ``gap`` is certified; ``trace`` has one row per center
        (``iter, objective, lower, upper, gap, n_cuts, newton_steps, seconds,
        gap_seconds``; ``n_cuts`` is the number of cuts of ``L_k``,
        ``newton_steps`` the Newton steps, or solver iterations with cvxpy, spent
        on ``x_k``); ``certificate`` adds ``n_cuts``, ``n_pruned``,
        ``newton_steps`` (total), ``center`` and ``inaccurate_centers`` (cvxpy
        centers the solver reported ``optimal_inaccurate``: still strictly
        feasible query points, so the cuts and bounds stay valid).

    Raises
    ------
    ValueError
        Bad parameters (``center``, ``center_solver``, ``max_cuts``, ``tol``, ...)
        or a feasible set with an empty relative interior.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the gap tolerance.

    References
    ----------
    Luss & d'Aspremont (2009), §3.3, Algorithm 2 and eq. (12).
    """
    _check_common(problem, tol, atol, max_iter, gap_every)
    P = problem
    m = P.m
    center_solver, max_cuts = _check_accpm(center, center_solver, max_cuts, center_options, m)
    t0 = time.perf_counter()
    cert = Certifier(problem, oracle, libsvm_tol)
    U = np.asarray(P.upper, dtype=float)
    a = np.asarray(P.a, dtype=float)
    b0 = float(P.b0)
    aa = float(a @ a)
    x_int = _interior_point(a, b0, U)
    cvx = _CvxpyCenter(m, max_cuts, a, b0, U, center_solver, center_options) \
        if center == "cvxpy" else None
    t_setup = time.perf_counter() - t0

    # cuts live in preallocated buffers (at most max_cuts + 1 rows at any time)
    Cbuf = np.empty((max_cuts + 1, m))
    dbuf = np.empty(max_cuts + 1)
    qbuf = np.zeros(max_cuts + 1)   # numerators c_j'H_a^-1 c_j of eq. (12)
    work = np.empty((max_cuts + 1, m))  # scaled rows of the current factorization
    p = 0
    n_pruned = 0
    total_steps = 0
    n_inaccurate = 0

    def projected(grad):
        return grad - a * (float(a @ grad) / aa)

    x_start = x_int
    trace = []
    converged = False
    last_checked = None
    k = 0
    if beta0 is not None:
        # L_0 gets the cut through beta0; the start must be strictly inside it
        b = _start(P, beta0)
        f, grad, _ = cert.evaluate(b)
        cert.frank_wolfe(b, f, grad)
        dvec = projected(grad)
        nd = float(np.linalg.norm(dvec))
        converged = cert.converged(tol, atol) or nd == 0.0
        if not converged:
            nh = dvec / nd
            Cbuf[0] = -nh
            dbuf[0] = -float(nh @ b)
            p = 1
            s0 = float(nh @ (x_int - b))
            if s0 <= 0:
                # a point of A strictly beyond the cut (a projected step from beta0),
                # then back towards the interior point of A
                xt = _start(P, b + float(np.max(U)) * np.sqrt(m) * nh)
                st = float(nh @ (xt - b))
                if st > 0:
                    theta = 0.5 * (-s0 / (st - s0) + 1.0)
                    x_start = (1.0 - theta) * x_int + theta * xt
                else:
                    converged = True  # beta0 maximizes its linearization over A: optimal

    hs = None
    for k in range(1, 0 if converged else max_iter + 1):
        it0 = time.perf_counter()
        Cm, d = Cbuf[:p], dbuf[:p]
        if cvx is None:
            x, steps, lam2, hs = _newton_center(x_start, U, a, Cm, d, work=work)
        else:
            x, steps, accurate = cvx(Cm, d, x_start)
            n_inaccurate += not accurate
        total_steps += steps
        res = float(a @ x) - b0
        if res != 0.0:  # round-off drift off a'x = b0: one exact correction along a
            xc = x - a * (res / aa)
            if np.isfinite(_barrier_at(*_slacks(xc, U, Cm, d))):
                x = xc
        exact = cvx is not None or k % EXACT_EVERY == 0
        if exact:
            # the Hessian and the exact Newton decrement at the center itself
            sl, su, sc = _slacks(x, U, Cm, d)
            hs = _HessianSolver(1.0 / sl ** 2 + 1.0 / su ** 2,
                                _scaled_rows(Cm, 1.0 / sc, work), a)
            hs.x_ref = x
            _, lam2 = hs.newton_step(1.0 / su - 1.0 / sl + Cm.T @ (1.0 / sc))
            if p >= max_cuts:
                qbuf[:p] = hs.restricted_quad_forms(Cm)
        f, grad, ev = cert.evaluate(x)
        cert.frank_wolfe(x, f, grad)
        if exact:
            cert.offer_upper(_localization_bound(hs, x, lam2, f, grad, U, Cm, d), "accpm")
        dvec = projected(grad)
        nd = float(np.linalg.norm(dvec))
        it_s = time.perf_counter() - it0
        g0 = time.perf_counter()
        if gap_every and (k % gap_every == 0):
            cert.libsvm_bound(x, ev)
            last_checked = x
        gap_s = time.perf_counter() - g0
        trace.append({"iter": k, "objective": f, "lower": cert.lower, "upper": cert.upper,
                      "gap": cert.gap, "n_cuts": p, "newton_steps": steps,
                      "seconds": it_s, "gap_seconds": gap_s})
        if verbose:
            print(f"accpm {k:5d}  f={f:.8g}  gap={cert.gap:.3g}  cuts={p}  newton={steps}")
        if cert.converged(tol, atol):
            converged = True
            break
        if nd <= 1e-14 * max(1.0, float(np.linalg.norm(grad))):
            # stationary on the affine hull at an interior point: x is optimal
            converged = True
            break
        c0 = time.perf_counter()
        nh = dvec / nd
        if p + 1 > max_cuts:
            # luss step 3 / eq. (12) at x_k; the new cut (through x_k) is always kept
            sc = d - Cm @ x
            rel = qbuf[:p] / sc ** 2
            keep = np.sort(np.argsort(-rel, kind="stable")[: max_cuts - 1])
            n_pruned += p - keep.size
            Cbuf[: keep.size] = Cm[keep]
            dbuf[: keep.size] = d[keep]
            qbuf[: keep.size] = qbuf[keep]
            p = keep.size
        Cbuf[p] = -nh
        dbuf[p] = -float(nh @ x)
        # strictly feasible start for the next center: x lies on the new cut
        direction = hs.solve(nh)
        qbuf[p] = max(float(nh @ direction) - float(a @ direction) ** 2 / hs.aHa, 0.0)
        direction -= hs.Ha * (float(a @ direction) / hs.aHa)
        x_start = _ray_start(x, U, Cbuf[:p], dbuf[:p], nh, direction)
        p += 1
        trace[-1]["seconds"] += time.perf_counter() - c0
    sol = _finish(cert, "accpm", k, converged, trace, t_setup, t0, gap_every, last_checked,
                  max_iter)
    sol.certificate.update({"n_cuts": p, "n_pruned": n_pruned, "newton_steps": total_steps,
                            "center": center, "inaccurate_centers": n_inaccurate})
    return sol
