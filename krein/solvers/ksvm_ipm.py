"""KSVM's problem (26) on signed features: a primal-dual interior point in O(n r^2) per step.

For a kernel given by signed features, ``K = Psi S Psi'`` (``Psi`` of shape (n, r),
``S = diag(signs)``; the approximation's eigenfeatures), problem (26) of Loosli, Ong &
Canu (2013, "loosli"),

    ``minimize ||G alpha - 1||^2``  s.t.  ``y'alpha = 0``, ``0 <= alpha <= C``,
    ``G = Y K Y``,

is the problem of :class:`krein.formulations.ksvm.KSVMLeastSquaresFactor`.  With
``B = Y Psi`` and ``Psi'Psi = E D E'`` (``R = D^(1/2) E'``, ``Q'y = R^(-T) Psi'y``) its
objective is ``||R S B' alpha - Q'y||^2 + ||y||^2 - ||Q'y||^2``: a least squares whose
Hessian ``2 B S Psi'Psi S B' = F F'`` has rank ``k <= r`` (``F = 2^(1/2) B S R'``,
shape (n, k)).  In the scaled variables ``a = alpha / C`` (componentwise for per-sample
bounds) the problem is

    ``minimize 1/2 ||F_C' a - g||^2``  s.t.  ``q'a = 0``,  ``0 <= a <= 1``

with ``F_C = diag(C) F``, ``g = 2^(1/2) Q'y``, ``q = C y``, the same value as
``||R S B' alpha - Q'y||^2``.

The algorithm is Mehrotra's predictor-corrector primal-dual interior point for
box-constrained convex QPs (Mehrotra 1992; Gertz & Wright 2003, OOQP's "QpBound"
formulation; Nocedal & Wright 2006, Algorithm 16.4), on the form with the residual
``w = F_C'a - g`` as a variable (the form CLARABEL gets, with ``v`` as a variable):

    ``minimize 1/2 |w|^2``  s.t.  ``F_C'a - w = g``,  ``q'a = 0``,  ``0 <= a <= 1``,

multipliers ``w`` of the ``k`` equalities (stationarity in ``w`` makes them equal to
``w``), ``lambda`` of ``q'a = 0``, ``z >= 0`` of ``a >= 0`` and ``s >= 0`` of ``a <= 1``.
Its residuals are formed from the iterates without the cancellation of
``F_C (F_C'a - g)`` near a zero objective (the low-rank problems of large ``n`` are
consistent: ``||G alpha - 1||`` reaches its floor with every point free).  Each Newton
step solves

    ``(D + F_C F_C') da + q dlambda = v``,  ``q'da = -r_p``,
    ``D = z / a + s / (1 - a) + rho``  (diagonal),

by the Sherman-Morrison-Woodbury identity on the low-rank Hessian: with ``u`` the
solution of the ``k x k`` system ``(I + F_C' D^(-1) F_C) u = F_C' D^(-1) v``,
``(D + F_C F_C')^(-1) v = D^(-1) (v - F_C u)`` and ``F_C' (D + F_C F_C')^(-1) v = u``
(Ferris & Munson 2002, §3, for the linear SVM in n >> features; Fine & Scheinberg 2001,
§4, for low-rank kernels), and the one equality by its scalar Schur complement.  The
step of ``w`` is taken as ``u``-based (``dw = F_C'da + r_e`` with ``F_C'da`` from the
identity), so that the dual residual of the step holds by construction.  The ``k x k``
matrix costs one ``n k^2`` product and one Cholesky factorization per iteration,
shared by the predictor and the corrector; every other operation is ``O(n k)``.  The
KKT system CLARABEL factors for the same problem has the dense ``n x r`` block of the
definition ``v = Psi'(y alpha)`` (measured: 2 s per iteration at n = 8000, r = 190).

``rho = 1e-9 max_i |F_C[i]|^2`` is a primal proximal regularization of the Newton
systems (Altman & Gondzio 1999; Friedlander & Orban 2012; CLARABEL's "static
regularization" plays the same role): it bounds ``D`` away from zero where every
multiplier vanishes (the free points of a consistent problem), where the Woodbury
solve would otherwise lose all digits of ``F_C'da``; its effect on the step is the
term ``rho da`` of the dual residual, which vanishes with the step, and the stopping
test below measures the unregularized residuals.

Stopping test: CLARABEL's default tolerances on the same quantities: relative primal
residuals ``|F_C'a - w - g|_inf / max(|g|_inf, |F_C'a|_inf, 1)`` and
``|q'a| / max(1, |q|)``, relative dual residual, and complementarity gap
``a'z + (1 - a)'s`` (in the units of the objective), each at most ``tol = 1e-8``.  The
returned Solution carries krein's KKT residual of (26),
:func:`krein.formulations.ksvm.ksvm_kkt_residual_factor` (best multiplier), computed
from scratch at the returned ``alpha``: the certificate of the CVXPY path.

A primal-dual path-following method converges to a point of the relative interior of
the optimal face (Güler & Ye 1993): ``v = Psi'(y alpha)`` is unique (the objective is
strictly convex in ``v``) and the set of points strictly between their bounds at the
returned ``alpha`` is that of the optimal face, as for CLARABEL's interior point; the
intercept (:func:`krein.solvers.ksvm.ksvm_intercept_from_scores`) depends on ``v`` and
on that set only.

References
----------
Loosli, Ong & Canu (2013), §5.1.2, eq. (26).  Mehrotra (1992), "On the implementation of
a primal-dual interior point method", SIAM J. Optim. 2(4).  Gertz & Wright (2003),
"Object-oriented software for quadratic programming", ACM TOMS 29(1).  Ferris & Munson
(2002), "Interior-point methods for massive support vector machines", SIAM J. Optim.
13(3).  Fine & Scheinberg (2001), "Efficient SVM training using low-rank kernel
representations", JMLR 2.  Güler & Ye (1993), "Convergence behavior of interior-point
algorithms", Math. Programming 60.  Altman & Gondzio (1999), "Regularized symmetric
indefinite systems in interior point methods for linear and quadratic optimization",
Optim. Methods Softw. 11.  Friedlander & Orban (2012), "A primal-dual regularized
interior-point method for convex quadratic programs", Math. Prog. Comp. 4.  Nocedal & Wright (2006), *Numerical Optimization*,
§16.6.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.linalg as sla
from sklearn.exceptions import ConvergenceWarning

from ..formulations.base import check_signed_labels
from ..formulations.ksvm import check_box, check_signed_features, ksvm_kkt_residual_factor
from .core import Solution

__all__ = ["ksvm_interior_point", "ksvm_factor_data"]

#: CLARABEL's default tolerances (``tol_feas``, ``tol_gap_abs``, ``tol_gap_rel``).
_TOL = 1e-8

#: Fraction of the step to the boundary (CLARABEL's ``max_step_fraction``).
_STEP_FRACTION = 0.99

#: Primal (proximal) regularization of each Newton system, relative to the largest
#: Hessian diagonal ``max_i |F_C[i]|^2`` (module docstring).
_REG_REL = 1e-9


def ksvm_factor_data(Psi, signs, y):
    """The low-rank data of problem (26) on ``K = Psi S Psi'`` (module docstring).

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Features.
    signs : ndarray of shape (r,)
        Their signs (+-1).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    F : ndarray of shape (n, k)
        ``2^(1/2) Y Psi S R'`` with ``R'R = Psi'Psi`` (``k`` the numerical rank of
        ``Psi``): the Hessian of the objective is ``F F'``.
    g : ndarray of shape (k,)
        ``2^(1/2) Q'y``: the objective is ``1/2 ||F'alpha - g||^2 + ||y||^2 - ||Q'y||^2``.
    const : float
        ``||y||^2 - ||Q'y||^2``.
    """
    M = Psi.T @ Psi
    D, E = np.linalg.eigh(0.5 * (M + M.T))
    # the rank part of Psi'Psi, as KSVMLeastSquaresFactor keeps it
    good = D > 1e-12 * max(float(D.max(initial=0.0)), 0.0)
    E, D = E[:, good], D[good]
    root = np.sqrt(D)
    Qty = (E.T @ (Psi.T @ y)) / root
    # F = sqrt(2) * Y Psi S E D^(1/2): one n x r by r x k product
    F = (np.sqrt(2.0) * y)[:, None] * (Psi @ (signs[:, None] * (E * root)))
    return np.ascontiguousarray(F), np.sqrt(2.0) * Qty, float(y @ y - Qty @ Qty)


def ksvm_interior_point(Psi, signs, y, C=1.0, *, max_iter=100, tol=_TOL):
    """Solve problem (26) on ``K = Psi S Psi'`` by a low-rank primal-dual interior point.

    The algorithm of the module docstring: Mehrotra's predictor-corrector on the
    scaled box QP, each Newton system solved through the Sherman-Morrison-Woodbury
    identity in ``O(n k^2)`` (``k <= r``).

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Features of the kernel, ``K = Psi diag(signs) Psi'``.
    signs : ndarray of shape (r,)
        Signs in {-1, +1}.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or ndarray of shape (n,), default=1.0
        Box bound, or per-sample bounds ``C_i`` (``class_weight``).
    max_iter : int >= 1, default=100
        Iteration limit (the interior point typically takes 10-30).
    tol : float in (0, 1), default=1e-8
        Relative primal and dual residual and complementarity gap at the stop
        (CLARABEL's defaults).

    Returns
    -------
    Solution
        ``primal["alpha"]`` (n,), ``primal["v"] = Psi'(y alpha)`` (r,); ``dual``
        ``lambda``, ``mu`` (of ``alpha >= 0``) and ``eta`` (of ``alpha <= C``), in the
        units of (26); ``objective`` ``||G alpha - 1||^2``; ``certificate`` the KKT
        residuals of :func:`~krein.formulations.ksvm.ksvm_kkt_residual_factor`
        (``kkt_residual``), the interior point's own ``gap``, ``primal_residual``
        and ``dual_residual``; ``certificate_kind`` ``"kkt_residual"``; ``trace``
        one row per iteration.

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, signs or labels not in {-1, +1}, ``C <= 0``.
    numpy.linalg.LinAlgError
        When a Newton system is not positive definite (not for finite input).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` iterations end before the stopping test (status
        ``"max_iter"``); the returned point is the last iterate.

    References
    ----------
    Loosli, Ong & Canu (2013), eq. (26); Mehrotra (1992); Gertz & Wright (2003); Ferris
    & Munson (2002), §3; Fine & Scheinberg (2001), §4 (module docstring).
    """
    import pandas as pd

    t0 = time.perf_counter()
    y = check_signed_labels(y)
    n = y.size
    C = check_box(C, n)
    Psi, signs = check_signed_features(Psi, signs, n)
    if not (0 < tol < 1) or int(max_iter) < 1:
        raise ValueError(f"tol must be in (0, 1) and max_iter >= 1; got {tol!r}, {max_iter!r}")
    F, g, const = ksvm_factor_data(Psi, signs, y)
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    F *= Cv[:, None]                          # F_C: the Hessian in a = alpha / C
    q = Cv * y
    k = F.shape[1]
    qnorm = max(1.0, float(np.linalg.norm(q)))
    reg = _REG_REL * max(float(np.max(np.einsum("ij,ij->i", F, F))), np.finfo(float).tiny)
    t_setup = time.perf_counter() - t0

    # start: the middle of the box, w = 0 (no force of the objective yet), equal bound
    # multipliers (r_d = 0); the residual of F'a - w = g is reduced with every step
    a = np.full(n, 0.5)
    w = np.zeros(k)
    z = np.ones(n)
    s = np.ones(n)
    lam = 0.0
    gscale = max(1.0, float(np.max(np.abs(g), initial=0.0)))
    rows = []
    status = "max_iter"
    it = 0
    zero = np.zeros(n)
    for it in range(1, int(max_iter) + 1):
        t = 1.0 - a
        Fta = F.T @ a
        Fw = F @ w
        r_e = Fta - w - g
        r_d = Fw + lam * q - z + s
        r_p = float(q @ a)
        gap = float(a @ z + t @ s)
        obj = 0.5 * float(w @ w)
        pres = max(float(np.max(np.abs(r_e), initial=0.0)) /
                   max(gscale, float(np.max(np.abs(Fta), initial=0.0))), abs(r_p) / qnorm)
        dres = float(np.max(np.abs(r_d))) / max(1.0, float(np.max(np.abs(Fw))),
                                                abs(lam) * float(np.max(np.abs(q))))
        rows.append((it - 1, obj, gap, pres, dres, time.perf_counter() - t0))
        if pres <= tol and dres <= tol and gap <= tol:
            status = "optimal"
            break
        mu = gap / (2 * n)
        dinv = 1.0 / (z / a + s / t + reg)
        # the k x k Woodbury matrix I + F' D^-1 F, one factorization per iteration
        Fs = F * np.sqrt(dinv)[:, None]
        W = Fs.T @ Fs
        W[np.diag_indices_from(W)] += 1.0
        cho = sla.cho_factor(W, lower=True, check_finite=False)

        def kinv(v):
            # x = (D + F F')^-1 v = D^-1 (v - F u) with (I + F' D^-1 F) u = F' D^-1 v;
            # u = F'x without the cancellation of forming F'x from a large x
            u = sla.cho_solve(cho, F.T @ (dinv * v), check_finite=False)
            return dinv * (v - F @ u), u

        kq, uq = kinv(q)
        qkq = float(q @ kq)

        def directions(tz, ts):
            v = -r_d + (tz / a - z) - (ts / t - s)
            x, ux = kinv(v - F @ r_e)
            dlam = (float(q @ x) + r_p) / qkq
            da = x - dlam * kq
            # dw = F'da + r_e, with F'da from the Woodbury solve: the dual residual
            # F dw + q dlam - dz + ds = -r_d then holds by construction
            dw = ux - dlam * uq + r_e
            dz = (tz - a * z - z * da) / a
            ds = (ts - t * s + s * da) / t
            return da, dlam, dw, dz, ds

        def max_step(da, dz, ds):
            step = 1.0
            for x, dx in ((a, da), (t, -da), (z, dz), (s, ds)):
                neg = dx < 0
                if np.any(neg):
                    step = min(step, float(np.min(-x[neg] / dx[neg])))
            return step

        da, dlam, dw, dz, ds = directions(zero, zero)
        step = max_step(da, dz, ds)
        mu_aff = float((a + step * da) @ (z + step * dz)
                       + (t - step * da) @ (s + step * ds)) / (2 * n)
        sigma = (mu_aff / mu) ** 3
        da, dlam, dw, dz, ds = directions(sigma * mu - da * dz, sigma * mu + da * ds)
        step = min(1.0, _STEP_FRACTION * max_step(da, dz, ds))
        a = a + step * da
        w = w + step * dw
        z = z + step * dz
        s = s + step * ds
        lam += step * dlam
    if status != "optimal":
        warnings.warn(f"ksvm_interior_point stopped at max_iter={max_iter} before reaching "
                      f"tol={tol:g}", ConvergenceWarning, stacklevel=2)
    t_solve = time.perf_counter() - t0 - t_setup
    alpha = Cv * a
    Cs = C
    kkt = ksvm_kkt_residual_factor(Psi, signs, y, Cs, alpha)
    v = Psi.T @ (y * alpha)
    cert = {"kkt_residual": kkt["residual"], "objective": kkt["objective"],
            "primal_residual": kkt["primal"], "dual_residual": kkt["stationarity"],
            "gap": gap, "ipm_primal_residual": pres, "ipm_dual_residual": dres,
            "best_lambda": kkt["lam"]}
    trace = pd.DataFrame(rows, columns=["iter", "objective", "gap", "primal_residual",
                                        "dual_residual", "seconds"])
    return Solution(
        solver="ksvm-interior-point", status=status, objective=kkt["objective"],
        primal={"alpha": alpha, "v": v},
        dual={"lambda": lam, "mu": z / Cv, "eta": s / Cv},
        setup_time=t_setup, solve_time=t_solve, iterations=it,
        primal_residual=kkt["primal"], dual_residual=kkt["stationarity"], gap=gap,
        certificate=cert, certificate_kind="kkt_residual", trace=trace)
