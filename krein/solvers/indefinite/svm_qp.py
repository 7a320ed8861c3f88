"""The SVM dual on a small PSD kernel to near machine accuracy: a dense interior-point method.

The gap checks of the IndefiniteSVM loops (:meth:`Certifier.libsvm_bound
<krein.solvers.indefinite.Certifier.libsvm_bound>`) need ``omega(K_i)``, the optimal
value of the SVM dual on the proxy kernel ``K_i = X(beta_i)_+`` (luss eq. 7 with ``K``
fixed).  libsvm's SMO reaches it slowly where ``K_i`` is near singular and ``C`` is
large: at ``C = 10`` on the 61-point one-vs-one pairs of a 14-class set, the
refinements to tolerance ``1e-5`` and ``1e-6`` took up to ~2e5 SMO iterations and half
of them stopped at their cap (``benchmarks/README.md``, "Many classes").  On a problem
that small, a primal-dual interior-point method with one dense Cholesky factorization
of an ``m x m`` matrix per iteration reaches the optimum to ~1e-12 in 15-30 iterations,
whatever the conditioning of ``K_i``.

This module solves the convex QP of the three models of
:class:`~krein.formulations.indefinite.ProxyKernelProblem`::

    maximize  c'beta - 1/2 beta' Q beta   subject to  a'beta = b0,  0 <= beta <= U,

with ``Q = M'K M`` PSD, by Mehrotra's predictor-corrector method (Nocedal & Wright 2006,
Algorithm 16.4, on the box-constrained form with one equality; Gertz & Wright 2003,
OOQP, for the same reduction of the Newton system).  Its point only decides which
``v = M beta`` the certificate evaluates: the bound itself is still the SVM primal value
at ``v`` (:meth:`ProxyKernelProblem.omega_upper
<krein.formulations.indefinite.ProxyKernelProblem.omega_upper>`), valid for any ``v``.
Checked against CVXPY (Clarabel) in ``tests/test_svm_qp.py``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

__all__ = ["box_qp_interior_point"]

#: Fraction of the way to the boundary an interior-point step may go.
_TO_BOUNDARY = 0.995


def _max_step(v, dv):
    """The largest ``t <= 1`` with ``v + t dv >= 0`` (``v > 0``), times the fraction."""
    with np.errstate(divide="ignore"):
        ratio = np.where(dv < 0, v / -dv, np.inf)
    return min(1.0, _TO_BOUNDARY * float(ratio.min()))


def _factor(Q, d):
    """Cholesky factor of ``Q + diag(d)``; where it fails in floating point (``Q``
    singular, ``d`` -> 0 on the free points near the optimum), of ``Q + diag(d) +
    delta I`` with ``delta`` from ``1e-12`` to ``1e-8`` of ``max diag`` (a primal
    regularization: the direction changes, the iterate stays strictly inside the box
    and the stopping test is unchanged).  Returns ``(factor, info)``."""
    m = d.size
    H = Q.copy()
    H.flat[::m + 1] += d
    # LAPACK directly, not cho_factor / cho_solve (benchmarks/lapack_calls.py, "svmqp-potrf")
    fac, info = lapack.dpotrf(H, lower=1, clean=0)
    top = float(np.max(np.diag(H)))
    for delta in (1e-12, 1e-10, 1e-8):
        if info == 0:
            break
        H2 = H.copy()
        H2.flat[::m + 1] += delta * top
        fac, info = lapack.dpotrf(H2, lower=1, clean=0, overwrite_a=1)
    return fac, info


def box_qp_interior_point(Q, c, a, b0, upper, *, tol=1e-12, max_iter=100):
    """Maximize ``c'x - 1/2 x'Q x`` over ``{a'x = b0, 0 <= x <= upper}`` (dense, small).

    Mehrotra's primal-dual predictor-corrector method on the box constraints written
    as ``x >= 0`` and ``upper - x >= 0`` with multipliers ``z_l, z_u`` and ``nu`` for
    the equality (Nocedal & Wright 2006, Alg. 16.4).  Each iteration factors
    ``Q + diag(z_l / x + z_u / (upper - x))`` once (Cholesky) and eliminates ``nu``
    by its Schur complement, a scalar.

    Parameters
    ----------
    Q : ndarray of shape (m, m)
        Symmetric positive semidefinite matrix (rank deficiency is fine: the barrier
        terms make every Newton matrix positive definite).
    c : ndarray of shape (m,)
        Linear term.
    a : ndarray of shape (m,)
        Normal of the equality constraint (nonzero).
    b0 : float
        Its right-hand side.
    upper : ndarray of shape (m,)
        Positive upper bounds.
    tol : float, default=1e-12
        Stop when the complementarity ``z_l'x + z_u'(upper - x)`` is at most ``tol``
        times ``|c'x| + x'Q x`` (at least ``1e-3`` of the same terms at the box's
        corner) and the residuals of stationarity and of the equality are at most
        ``sqrt(tol)`` times their sizes at the corner (all invariant under
        ``(Q, c) -> (t Q, t c)``).
    max_iter : int, default=100
        Iteration cap.

    Returns
    -------
    x : ndarray of shape (m,)
        The last iterate, strictly inside the box (so a feasible point up to the
        equality residual, which is at round-off when the method converges).
    nu : float
        The multiplier of ``a'x = b0``.
    n_iter : int
        Iterations taken.
    converged : bool
        Whether the stopping test was met (a Cholesky failure or ``max_iter`` ends the
        method early with ``False``; the point is still usable for a bound).

    Notes
    -----
    The caller validates the shapes (:class:`~krein.formulations.indefinite.ProxyKernelProblem`
    did); this function is on the path of every gap check and does not repeat it.
    """
    m = c.size
    x = 0.5 * upper
    s = upper - x
    nu = 0.0
    # the sizes of the terms at the box's corner: every test below is relative to them,
    # so that Q -> t Q, c -> t c (a kernel scaled by t) takes the same iterations
    size_q = float(np.max(np.abs(Q))) * float(upper @ upper)
    size_c = float(np.abs(c) @ upper)
    size = max(size_q, size_c) or 1.0
    scale_d = max(float(np.max(np.abs(c))), float(np.max(np.abs(Q))) * float(np.max(upper))) \
        or 1.0
    scale_p = max(abs(b0), float(np.max(np.abs(a))) * float(np.max(upper)))
    z0 = float(np.max(np.abs(Q @ x - c))) or scale_d
    zl = np.full(m, z0)
    zu = np.full(m, z0)
    conv = False
    it = 0
    for it in range(1, max_iter + 1):
        Qx = Q @ x
        rd = Qx - c - nu * a - zl + zu
        rp = float(a @ x) - b0
        comp = float(zl @ x + zu @ s)
        obj = max(abs(float(c @ x)) + float(x @ Qx), 1e-3 * size)
        if (comp <= tol * obj and float(np.max(np.abs(rd))) <= np.sqrt(tol) * scale_d
                and abs(rp) <= np.sqrt(tol) * scale_p):
            conv = True
            it -= 1
            break
        mu = comp / (2 * m)
        fac, info = _factor(Q, zl / x + zu / s)
        if info != 0:
            it -= 1
            break
        Hia, _ = lapack.dpotrs(fac, a, lower=1)
        aHia = float(a @ Hia)
        xs = np.concatenate([x, s, zl, zu])

        def direction(rl, ru):
            # (Q + D) dx - a dnu = -rd + rl / x - ru / s,  a'dx = -rp
            Hir, _ = lapack.dpotrs(fac, -rd + rl / x - ru / s, lower=1)
            dnu = (-rp - float(a @ Hir)) / aHia
            dx = Hir + dnu * Hia
            dzl, dzu = (rl - zl * dx) / x, (ru + zu * dx) / s
            return dx, dnu, dzl, dzu, _max_step(xs, np.concatenate([dx, -dx, dzl, dzu]))

        # predictor (affine scaling)
        dx, dnu, dzl, dzu, t = direction(-zl * x, -zu * s)
        mu_aff = float((zl + t * dzl) @ (x + t * dx) + (zu + t * dzu) @ (s - t * dx)) / (2 * m)
        sigma = (mu_aff / mu) ** 3 if mu > 0 else 0.0
        # corrector: centring plus the second-order terms of the predictor
        dx, dnu, dzl, dzu, t = direction(sigma * mu - zl * x - dx * dzl,
                                         sigma * mu - zu * s + dx * dzu)
        x = x + t * dx
        s = upper - x
        # keep the iterate strictly inside the box whatever the round-off of upper - x
        tiny = np.finfo(float).tiny
        x = np.maximum(x, tiny)
        s = np.maximum(s, tiny)
        nu += t * dnu
        zl = np.maximum(zl + t * dzl, tiny)
        zu = np.maximum(zu + t * dzu, tiny)
    return x, float(nu), it, conv
