"""KSVM: the active-set solver of Loosli, Ong & Canu (2013, "loosli") §5.2, Algorithm 2.

Problem (26), with ``G = Y K Y`` (:mod:`krein.formulations.ksvm`)::

    minimize ||G alpha - 1||^2   s.t.  y'alpha = 0,  0 <= alpha <= C

Points are split by Table 1 into ``I_0`` (``alpha = 0``), ``I_C`` (``alpha = C``)
and the free set ``I_w`` (``0 < alpha < C``).  Each iteration of Algorithm 2:

1. solves the equality-constrained least squares on ``I_w`` (the linear system
   (28), see below) for ``alpha_w``, the other points held at their bounds;
2. if that point leaves the box, steps from the current (feasible) point towards
   it up to the first bound hit and moves the blocking point to ``I_0`` / ``I_C``
   ("project the solution in the admissible domain": the step back to the
   boundary of the primal active-set method, Nocedal & Wright 2006, Alg. 16.3);
3. otherwise checks the sign conditions on ``I_0`` and ``I_C`` (loosli 29-30)
   and moves the most violating point into ``I_w``; stops when none is violated
   by more than ``tol``.

Start: loosli puts one random point of each class in ``I_w``, all others in
``I_0``.  Here the start is deterministic: ``alpha = 0`` (feasible) with the
single most violating point in ``I_w``; the next checks bring in the next
violators one by one (the first with a nonzero step is a pair of opposite
labels).  The optimal value does not depend on the start ("any other initial
situation ... does not change the algorithm", loosli §5.2).

Exact KKT conditions instead of loosli (27)-(30)
------------------------------------------------
The stationarity of (26) is ``2 G (G alpha - 1) + lambda y - mu + eta = 0``
(gradient of the Lagrangian).  loosli eq. (27) puts ``lambda y - mu + eta``
inside the product with ``G`` (it is the SVM stationarity (22) times ``G``), so
its free-set system (28), ``G_w'(G alpha - 1 + lambda y) = 0``, and its sign
tests (29)-(30), ``[(G alpha - 1 + lambda y)' G]_j > 0``, are not the optimality
conditions of (26): a point solving (28) on its free set satisfies
``2 G_w'(G alpha - 1) = -2 lambda G_w'y``, which is of the required form
``-lambda' y_w`` only when ``G_w'y`` is parallel to ``y_w``, so the paper's
iteration does not in general stop at a minimizer of (26).  Here the free-set
system is the exact one,

    2 G_(:,w)' (G alpha - 1) + lambda y_w = 0,   y_w'alpha_w = -C 1'y_C,

and the tests are ``g_j + lambda y_j >= 0`` on ``I_0`` and ``<= 0`` on ``I_C`` with
``g = 2 G (G alpha - 1)`` (the multipliers ``mu_j``, ``eta_j``).  The result
satisfies the KKT conditions of (26) (hence is a global minimizer: (26) is
convex) and matches the CVXPY solution of
:class:`~krein.formulations.ksvm.KSVMLeastSquares` in objective value (the
minimizer itself is not unique when ``G`` is singular).

Incremental factorization
-------------------------
The equality is eliminated with a pivot ``p`` (the first point of ``I_w``):
``alpha_p = y_p (d - sum_{i in w, i != p} y_i alpha_i)``, ``d = -C 1'y_C``; the
remaining unknowns solve the unconstrained least squares
``min ||B beta - c~||`` with columns ``b_i = G_(:,i) - y_i y_p G_(:,p)`` and
``c~ = 1 - C G_(:,C) 1 - y_p d G_(:,p)``.  An economic QR ``B = Q R`` is kept up
to date with :func:`scipy.linalg.qr_insert` (a point enters ``I_w``: one new
column), :func:`scipy.linalg.qr_delete` (a point leaves: one column removed) and,
when the pivot itself leaves, one delete plus one rank-one
:func:`scipy.linalg.qr_update` (``b_i <- b_i - y_i y_q b_q`` for the new pivot
``q``): O(n |I_w|) per change, never a refactorization.  loosli §5.2 proposes
exactly this ("QR decomposition ... rank one update at each step").
``B`` has full column rank iff the bordered KKT matrix of the free-set problem
is nonsingular; this is preserved by every move of the method (a point whose
column would make it singular has a zero multiplier at a free-set minimizer, so
it is never "most violating"); numerically dependent columns (reciprocal
condition below ``rcond``) are refused and the next violator is taken.

Gradient
--------
The sign tests need ``g = 2 G (G alpha - 1)`` at every point.  Instead of one
O(n^2) product per iteration (loosli's complexity paragraph), ``g = -2 G 1 +
2 C G^2 1_C + 2 (G^2)_(:,w) alpha_w`` is assembled from columns of ``G^2``, each
computed once, when its point first enters ``I_w`` (in blocks, see ``block``),
so an iteration costs O(n |I_w|); the ``I_C`` part is updated when a point
enters or leaves ``I_C`` and recomputed from scratch before the method stops.

Intercept
---------
In the SVM (loosli eq. 22) the multiplier ``lambda`` of ``y'alpha = 0`` is the
bias ``b`` of ``f(x) = sum_i alpha_i y_i k(x, x_i) + b``: the free points satisfy
``(G alpha)_i + lambda y_i = 1``, i.e. ``y_i (f(x_i) + b) = 1``, and loosli
computes ``lambda`` from the free-set equations (28).  The multiplier of (26)
is a different quantity (it balances ``2 G (G alpha - 1)``, the gradient of the
squared norm, and vanishes when the equality is not binding), so it is not a
bias.  :func:`ksvm_intercept` returns the least-squares solution of the free-set
equations of (22), ``(G alpha)_w + b y_w = 1_w``: ``b = mean_{i in I_w}(y_i - f_0(x_i))``
with ``f_0(x) = sum_i alpha_i y_i k(x, x_i)`` (libsvm's rule); when the minimizer
of (26) coincides with the SVM solution (positive definite kernel, see
:class:`krein.estimators.ksvm.KSVC`) it is exactly the SVM's bias.  With no free
point, the hinge-loss minimizing bias (:func:`krein.formulations.svm.optimal_intercept`,
libsvm's choice in that case).
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import pandas as pd
import scipy.linalg as sla
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_square_kernel
from ..formulations.base import check_signed_labels
from ..formulations.ksvm import (alpha_scale, best_multiplier, check_box, ksvm_gram,
                                 ksvm_kkt_from_gradient)
from ..formulations.svm import optimal_intercept
from .core import Solution

__all__ = ["ksvm_active_set", "ksvm_intercept", "ksvm_intercept_from_scores", "default_max_iter"]


def default_max_iter(n):
    """Iteration limit used when ``max_iter=None``: ``10 n + 100``.

    Each iteration adds or removes one point of ``I_w``; a run typically takes
    a small multiple of the number of support vectors.

    Parameters
    ----------
    n : int
        Number of training points.

    Returns
    -------
    int
        ``10 n + 100``.
    """
    return 10 * int(n) + 100


def ksvm_intercept(K, y, alpha, C, bound_rtol=0.0):
    """Bias ``b`` of ``f(x) = sum_i alpha_i y_i k(x, x_i) + b`` (module docstring).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    alpha : ndarray of shape (n,)
        Dual variables of problem (26), ``0 <= alpha <= C``.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or per-sample bounds ``C_i`` (``class_weight``).
    bound_rtol : float >= 0
        A point is free when ``bound_rtol * C_i < alpha_i < (1 - bound_rtol) * C_i``
        (0 for the exact sets of the active-set method; a small value for the
        inexact bounds of interior-point solvers).

    Returns
    -------
    float
        ``mean(y_i - f_0(x_i))`` over the free points; without free points the
        hinge-loss minimizing bias (weighted by ``C_i`` for per-sample bounds).
    """
    y = np.asarray(y, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    return ksvm_intercept_from_scores(np.asarray(K, dtype=float) @ (y * alpha), y, alpha, C,
                                      bound_rtol)


def ksvm_intercept_from_scores(f0, y, alpha, C, bound_rtol=0.0):
    """:func:`ksvm_intercept` from the training scores ``f0 = K (y alpha)`` (no ``K``).

    Parameters
    ----------
    f0 : ndarray of shape (n,)
        ``sum_j alpha_j y_j k(x_i, x_j)`` at the training points.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    alpha : ndarray of shape (n,)
        Dual variables of problem (26), ``0 <= alpha <= C``.
    C : float > 0 or ndarray of shape (n,)
        Box bound(s).
    bound_rtol : float >= 0
        Free-set tolerance, as :func:`ksvm_intercept`.

    Returns
    -------
    float
        The bias (:func:`ksvm_intercept`).
    """
    y = np.asarray(y, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    f0 = np.asarray(f0, dtype=float)
    free = (alpha > bound_rtol * C) & (alpha < (1.0 - bound_rtol) * C)
    if np.any(free):
        return float(np.mean(y[free] - f0[free]))
    return optimal_intercept(f0, y, C)


def _check_options(tol, max_iter, rcond, block, n):
    if not (isinstance(tol, numbers.Real) and not isinstance(tol, bool) and np.isfinite(tol)
            and 0 < tol < 1):
        raise ValueError(f"tol must be a number in (0, 1); got {tol!r}")
    if max_iter is None:
        max_iter = default_max_iter(n)
    elif not (isinstance(max_iter, numbers.Integral) and not isinstance(max_iter, bool)
              and max_iter >= 1):
        raise ValueError(f"max_iter must be None or an integer >= 1; got {max_iter!r}")
    if not (isinstance(rcond, numbers.Real) and 0 < rcond < 1):
        raise ValueError(f"rcond must be a number in (0, 1); got {rcond!r}")
    if not (isinstance(block, numbers.Integral) and not isinstance(block, bool) and block >= 1):
        raise ValueError(f"block must be an integer >= 1; got {block!r}")
    return float(tol), int(max_iter), float(rcond), int(block)


def _fresh_free_solution(G, y, C, w, at_C):
    """Solve the free-set problem from scratch (bordered KKT system, for ``verify``)."""
    A = G[:, w]
    Cc = np.broadcast_to(C, y.shape)[at_C]
    c = 1.0 - G[:, at_C] @ Cc
    d = -float(y[at_C] @ Cc)
    m = len(w)
    M = np.zeros((m + 1, m + 1))
    M[:m, :m] = 2.0 * (A.T @ A)
    M[:m, m] = y[w]
    M[m, :m] = y[w]
    rhs = np.r_[2.0 * (A.T @ c), d]
    return np.linalg.solve(M, rhs)[:m]


def ksvm_active_set(K, y, C=1.0, *, tol=1e-6, max_iter=None, rcond=1e-10, block=64,
                    verify=False, verbose=False, check_input=True):
    """Solve problem (26) with the active-set method of loosli Algorithm 2.

    See the module docstring for the method, the exact KKT conditions used
    instead of loosli (27)-(30), the incremental QR and the intercept.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array of shape (n,)
        Labels in {-1, +1}, both present.
    C : float > 0 or array of shape (n,)
        Box bound, or one bound per point ``0 <= alpha_i <= C_i`` (``class_weight``);
        ``I_C`` is then the set of points at their own bound, and tolerances are
        relative to each point's ``C_i``.
    tol : float in (0, 1)
        Stop when no point of ``I_0`` / ``I_C`` violates its sign condition by
        more than ``tol``, measured as in
        :func:`~krein.formulations.ksvm.ksvm_kkt_residual` (the clipped coordinate
        step ``|mu_j| / h_j`` or ``|eta_j| / h_j`` relative to the scale
        ``a_j = min(C_j, 1 / ||G_(:,j)||)`` of ``alpha_j``, with
        ``h = 2 diag(G^2)``; not relative to ``C`` alone, which certified
        ``alpha = 0`` at large ``C``).  The free-set conditions hold to rounding
        error.
    max_iter : int >= 1, optional
        Default :func:`default_max_iter` (``10 n + 100``).
    rcond : float in (0, 1)
        A point whose QR column has reciprocal condition below ``rcond`` against
        the current free set is not added (numerically singular free-set system).
    block : int >= 1
        The gradient ``2 G (G alpha - 1)`` is kept up to date from columns of
        ``G^2`` (one per point that ever enters ``I_w``, O(n^2) each, then
        ``O(n |I_w|)`` per iteration instead of O(n^2)); a missing column is computed
        together with those of the next ``block - 1`` most violating points in one
        matrix product (the kernel matrix is read once per block).
    verify : bool
        Also solve each free-set problem from scratch (bordered KKT system) and
        record ``max |alpha_w(incremental) - alpha_w(fresh)| / C`` in the trace
        column ``refactor_diff`` (``O(n |I_w|^2)`` per iteration: for tests).
    verbose : bool
        Print a line every 100 iterations.
    check_input : bool
        Check ``K`` (square, finite, symmetric); ``False`` skips the O(n^2) checks
        for callers that already made them (:class:`~krein.estimators.ksvm.KSVC`).

    Returns
    -------
    Solution
        ``solver="ksvm-active-set"``; ``primal`` holds ``alpha`` (n,), ``b``
        (intercept, :func:`ksvm_intercept`), ``free``/``at_C`` (index arrays);
        ``dual`` holds ``lambda``, ``mu`` and ``eta`` (n,) of the exact KKT
        conditions; ``objective`` is ``||G alpha - 1||^2``;
        ``primal_residual``/``dual_residual`` are the primal and stationarity
        parts of :func:`~krein.formulations.ksvm.ksvm_kkt_residual` recomputed from
        scratch at the returned point with the solver's multiplier, ``gap`` the
        complementarity ``mu'alpha + eta'(C - alpha)``; ``certificate`` adds the
        residual with the best multiplier (``kkt_residual``); ``trace`` is a
        DataFrame with one row per iteration: ``iter``, ``action`` ("start",
        "add from I_0", "add from I_C", "drop to I_0", "drop to I_C",
        "refused (rcond)", "refresh", "optimal", "stalled"), ``index`` (the point moved, -1 if
        none), ``step`` (fraction of the way to the free-set solution),
        ``n_free``, ``n_at_C``, ``pivot_changed``, ``objective``, ``lam``,
        ``kkt_residual`` (with the current multiplier), ``seconds`` (cumulative),
        and ``refactor_diff`` when ``verify``.

    Raises
    ------
    ValueError
        Non-square, asymmetric or non-finite ``K``; labels not in {-1, +1} or one
        class only; ``C <= 0``; bad ``tol``, ``max_iter`` or ``rcond``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` iterations did not reach ``tol`` (status "max_iter"), or
        when every remaining violator was refused by ``rcond`` (status
        "stalled"); the returned point is feasible, with its residuals.

    References
    ----------
    Loosli, Ong & Canu (2013), §5.2, Table 1, eqs. (26)-(30), Algorithm 2;
    Nocedal & Wright (2006), §16.5 (active-set methods for convex QP).
    """
    t0 = time.perf_counter()
    y = check_signed_labels(y)
    if check_input:
        K = check_square_kernel(K, "K")
    else:
        K = np.asarray(K, dtype=float)
    if K.shape[0] != y.size:
        raise ValueError(f"K must have shape ({y.size}, {y.size}) to match y; got {K.shape}")
    n = y.size
    C = check_box(C, n)
    vec = np.ndim(C) > 0                      # per-sample bounds C_i (class_weight)
    tol, max_iter, rcond, block = _check_options(tol, max_iter, rcond, block, n)

    G = ksvm_gram(K, y)
    h = np.maximum(2.0 * np.einsum("ij,ij->j", G, G), np.finfo(float).tiny)
    a = alpha_scale(C, h)                     # the scale of each alpha_i (tests against tol)
    t_setup = time.perf_counter() - t0

    # Each iteration is O(n |I_w|); at the sizes of one-vs-one pairs (n ~ 50-100) its
    # cost is the number of NumPy calls, so the loop below calls ufuncs and LAPACK
    # directly (np.minimum/np.maximum for np.clip, trtrs for solve_triangular: the same
    # arithmetic; benchmarks/lapack_calls.py, "ksvm-trtrs") and keeps the trace as columns.
    trace = _Trace(verify)
    alpha = np.zeros(n)
    status = np.zeros(n, dtype=np.int8)       # 0: I_0, 1: I_w, 2: I_C
    sgn = -np.ones(n)                         # -1 on I_0, +1 on I_C, 0 on I_w (sign tests)
    n_at_C = 0
    w = []                                    # free set; w[0] is the pivot
    Q = np.zeros((n, 0))
    R = np.zeros((0, 0))
    zC = np.zeros(n)                          # C * G[:, I_C] @ 1
    sum_yC = 0                                # 1'y_C (exact integer)
    stale = 0                                 # updates of zC since its last recomputation
    blocked = set()
    trsolve = _TriangularSolve()

    # start (Algorithm 2, "Initialize"): alpha = 0 and the most violating point in I_w
    # (module docstring); the following checks bring in the next violators.
    r = -np.ones(n)
    g0 = -2.0 * G.sum(axis=1)                 # gradient at alpha = 0
    gC = np.zeros(n)                          # 2 C G^2 1_C
    H = _SquareColumns(G, block)              # columns of G^2, computed on demand
    g = g0.copy()
    lam = best_multiplier(alpha, g, y, C, h)
    s = (g + lam * y) / h
    viol = np.maximum(-s, 0.0)
    converged = False
    it = 0
    if np.max(viol / a) <= tol:
        converged = True
        trace.add(0, "optimal", -1, 0.0, 0, 0, False, float(r @ r), lam,
                  float(np.max(viol / a)), time.perf_counter() - t0)
    else:
        j = int(np.argmax(viol / a))
        w.append(j)
        status[j] = 1
        sgn[j] = 0.0
        H.ensure(j, viol)
        trace.add(0, "start", j, 0.0, 1, 0, False, float(r @ r), lam,
                  float(np.max(viol / a)), time.perf_counter() - t0)

    stalled = False
    minimum, maximum = np.minimum, np.maximum
    while not (converged or stalled) and it < max_iter:
        it += 1
        m = len(w)
        widx = np.array(w, dtype=np.intp)
        if vec:
            at = status == 2
            d = -float(y[at] @ C[at])
            Cw = C[widx]
        else:
            d = -C * sum_yC
            Cw = C
        # ---- 1. free-set solution (28, exact form) from the maintained QR
        alpha_hat = np.empty(m)
        if m:
            p = w[0]
            if m > 1:
                ct = 1.0 - zC - (y[p] * d) * G[:, p]
                beta = trsolve(R, Q.T @ ct)
                alpha_hat[1:] = beta
                alpha_hat[0] = y[p] * (d - y[widx[1:]] @ beta)
            else:
                alpha_hat[0] = y[p] * d
        diff = float("nan")
        if verify and m:
            fresh = _fresh_free_solution(G, y, C, widx, np.flatnonzero(status == 2))
            diff = float(np.max(np.abs(alpha_hat - fresh) / Cw))
        # ---- 2. step towards it, stopping at the first bound
        cur = alpha[widx]
        delta = alpha_hat - cur
        ratio = np.full(m, np.inf)
        dn, up = delta < 0, delta > 0
        np.divide(cur, -delta, out=ratio, where=dn)
        np.divide((Cw - cur) if vec else (C - cur), delta, out=ratio, where=up)
        step, k_pos = 1.0, None
        if m:
            k_min = int(ratio.argmin())
            if ratio[k_min] < 1.0:
                k_pos = k_min
        if k_pos is not None:
            step = max(float(ratio[k_pos]), 0.0)
            alpha[widx] = minimum(maximum(cur + step * delta, 0.0), Cw)
        else:
            alpha[widx] = alpha_hat
        action, moved, pivot_changed = None, -1, False
        if k_pos is not None:
            k = w[k_pos]
            moved = k
            to_C = delta[k_pos] > 0
            Ck = C[k] if vec else C
            alpha[k] = Ck if to_C else 0.0
            status[k] = 2 if to_C else 0
            sgn[k] = 1.0 if to_C else -1.0
            if to_C:
                zC += Ck * G[:, k]
                gC += (2.0 * Ck) * H.columns([k])[:, 0]
                sum_yC += int(y[k])
                n_at_C += 1
                stale += 1
            action = "drop to I_C" if to_C else "drop to I_0"
            Q, R, pivot_changed = _remove_from_free(Q, R, w, k_pos, G, y)
            blocked.clear()
            widx = np.array(w, dtype=np.intp)
        # ---- residual, gradient and multiplier at the new point
        if widx.size:
            aw = alpha[widx]
            r = G[:, widx] @ aw + zC - 1.0
            g = g0 + gC + 2.0 * (H.columns(widx) @ aw)
            lam = -float((y[widx] * g[widx]).sum() / widx.size)
        else:
            r = 0.0 + zC - 1.0
            g = g0 + gC + 0.0
            lam = best_multiplier(alpha, g, y, C, h)
        s = (g + lam * y) / h
        kkt = float((np.abs(alpha - minimum(maximum(alpha - s, 0.0), C)) / a).max())
        if action is None:
            # ---- 3. sign conditions on I_0 (29) and I_C (30), exact form
            viol = maximum(sgn * s, 0.0) / a
            worst = float(viol.max())
            if blocked:
                viol[list(blocked)] = 0.0
            j = int(viol.argmax())
            if viol[j] <= tol:
                if stale:
                    at = status == 2
                    zC = G[:, at] @ C[at] if vec else C * G[:, at].sum(axis=1)
                    gC = 2.0 * (G @ zC)
                    stale = 0
                    action = "refresh"
                elif worst > tol:
                    action, stalled = "stalled", True
                else:
                    action, converged = "optimal", True
            else:
                moved = j
                from_C = status[j] == 2
                ok, Q, R = _add_to_free(Q, R, w, j, G, y, rcond)
                if ok:
                    status[j] = 1
                    sgn[j] = 0.0
                    H.ensure(j, viol)
                    if from_C:
                        Cj = C[j] if vec else C
                        zC -= Cj * G[:, j]
                        gC -= (2.0 * Cj) * H.columns([j])[:, 0]
                        sum_yC -= int(y[j])
                        n_at_C -= 1
                        stale += 1
                    blocked.clear()
                    action = "add from I_C" if from_C else "add from I_0"
                else:
                    blocked.add(j)
                    action = "refused (rcond)"
        trace.add(it, action, moved, step, len(w), n_at_C, pivot_changed, float(r @ r), lam, kkt,
                  time.perf_counter() - t0, diff)
        if verbose and it % 100 == 0:
            print(f"ksvm it {it}: objective {r @ r:.6g}, |I_w| {len(w)}, "
                  f"|I_C| {n_at_C}, kkt {kkt:.3g}")

    if stalled:
        warnings.warn(f"ksvm_active_set stalled after {it} iterations: every point violating "
                      f"the KKT conditions by more than tol={tol:g} would make the free-set "
                      f"system numerically singular (rcond={rcond:g}); KKT residual "
                      f"{trace.last_kkt():.3g}", ConvergenceWarning, stacklevel=2)
    elif not converged:
        warnings.warn(f"ksvm_active_set stopped at max_iter={max_iter} before reaching "
                      f"tol={tol:g} (KKT residual {trace.last_kkt():.3g})",
                      ConvergenceWarning, stacklevel=2)
    t_solve = time.perf_counter() - t0 - t_setup
    # ---- certificate, recomputed from scratch at the returned point
    r = G @ alpha - 1.0
    g = 2.0 * (G @ r)
    s = g + lam * y
    mu = np.where(status == 0, np.maximum(s, 0.0), 0.0)
    eta = np.where(status == 2, np.maximum(-s, 0.0), 0.0)
    # ksvm_kkt_residual's arithmetic, with r, g and the Hessian diagonal computed once
    hd = 2.0 * np.einsum("ij,ij->j", G, G)
    with_lam = ksvm_kkt_from_gradient(y, C, alpha, r, g, hd, lam)
    best = ksvm_kkt_from_gradient(y, C, alpha, r, g, hd, None)
    free = np.flatnonzero(status == 1)
    at_C = np.flatnonzero(status == 2)
    b = ksvm_intercept(K, y, alpha, C)
    cert = {"kkt_residual": best["residual"], "kkt_residual_solver_lambda": with_lam["residual"],
            "best_lambda": best["lam"], "objective": with_lam["objective"]}
    return Solution(
        solver="ksvm-active-set",
        status="optimal" if converged else ("stalled" if stalled else "max_iter"),
        objective=with_lam["objective"],
        primal={"alpha": alpha, "b": b, "free": free, "at_C": at_C},
        dual={"lambda": lam, "mu": mu, "eta": eta},
        setup_time=t_setup, solve_time=t_solve, iterations=it,
        primal_residual=with_lam["primal"], dual_residual=with_lam["stationarity"],
        gap=float(mu @ alpha + eta @ (C - alpha)), certificate=cert, certificate_kind="kkt_residual",
        trace=trace.frame())


class _TriangularSolve:
    """``R^-1 b`` for upper triangular ``R``: LAPACK ``trtrs`` called as
    :func:`scipy.linalg.solve_triangular` calls it (same arithmetic), without its
    per-call input handling (``benchmarks/lapack_calls.py``, "ksvm-trtrs": 7-10x per call
    at k = 16-64, the active set 1.0-1.2x at n = 40-200)."""

    def __init__(self):
        self.trtrs = sla.get_lapack_funcs("trtrs", (np.zeros((1, 1)),))

    def __call__(self, R, b):
        if R.flags.f_contiguous:
            x, info = self.trtrs(R, b, lower=False, trans=0)
        else:
            x, info = self.trtrs(R.T, b, lower=True, trans=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"ksvm_active_set: triangular solve failed (info={info})")
        return x


class _Trace:
    """The per-iteration records of :func:`ksvm_active_set`, kept as columns (one
    DataFrame at the end, not one dict per row)."""

    NAMES = ("iter", "action", "index", "step", "n_free", "n_at_C", "pivot_changed",
             "objective", "lam", "kkt_residual", "seconds")

    def __init__(self, verify):
        self.verify = verify
        self.rows = []

    def add(self, it, action, index, step, n_free, n_at_C, pivot_changed, objective, lam, kkt,
            seconds, diff=float("nan")):
        self.rows.append((it, action, index, step, n_free, n_at_C, pivot_changed, objective, lam,
                          kkt, seconds, diff))

    def last_kkt(self):
        return self.rows[-1][9]

    def frame(self):
        # NumPy columns: pandas converts a list element by element (twice the time)
        cols = list(zip(*self.rows))
        data = {name: np.array(col, dtype=object if name == "action" else None)
                for name, col in zip(self.NAMES, cols)}
        if self.verify:
            data["refactor_diff"] = np.array(cols[-1], dtype=float)
        return pd.DataFrame(data, copy=False)


class _SquareColumns:
    """Columns of ``H = G^2`` (``G`` symmetric), computed on demand and kept.

    A miss computes ``G @ G[:, J]`` for the requested point and up to
    ``block - 1`` of the currently most violating points not yet known (one
    matrix product instead of ``block`` matrix-vector products: the kernel matrix
    is read once).
    """

    def __init__(self, G, block):
        self.G = G
        n = G.shape[0]
        self.slot = np.full(n, -1, dtype=np.intp)
        self.buf = np.empty((n, min(n, max(block, 16))))
        self.count = 0
        self.block = block

    def ensure(self, j, priority):
        if self.slot[j] >= 0:
            return
        want = [j]
        if self.block > 1:
            k = min(self.block, priority.size)
            top = np.argpartition(-priority, k - 1)[:k]
            top = top[(priority[top] > 0) & (self.slot[top] < 0) & (top != j)]
            want += list(top[np.argsort(-priority[top])][: self.block - 1])
        want = np.array(want, dtype=np.intp)
        need = self.count + want.size
        if need > self.buf.shape[1]:
            width = min(self.G.shape[0], max(need, 2 * self.buf.shape[1]))
            new = np.empty((self.buf.shape[0], width))
            new[:, : self.count] = self.buf[:, : self.count]
            self.buf = new
        self.buf[:, self.count:need] = self.G @ self.G[:, want]
        self.slot[want] = np.arange(self.count, need)
        self.count = need

    def columns(self, idx):
        return self.buf[:, self.slot[np.asarray(idx, dtype=np.intp)]]


def _column(G, y, i, p):
    """Column ``b_i = G_(:,i) - y_i y_p G_(:,p)`` of the pivot-eliminated matrix ``B``."""
    return G[:, i] - (y[i] * y[p]) * G[:, p]


def _add_to_free(Q, R, w, j, G, y, rcond):
    """Append ``j`` to ``w`` (one QR column insertion); False if numerically dependent."""
    n = G.shape[0]
    if not w:
        w.append(j)
        return True, np.zeros((n, 0)), np.zeros((0, 0))
    b = _column(G, y, j, w[0])
    try:
        Q, R = sla.qr_insert(Q, R, b, Q.shape[1], which="col", rcond=rcond, check_finite=False)
    except np.linalg.LinAlgError:
        return False, Q, R
    w.append(j)
    return True, Q, R


def _remove_from_free(Q, R, w, k_pos, G, y):
    """Remove ``w[k_pos]`` (one QR column deletion; a rank-one update if it is the pivot)."""
    n = G.shape[0]
    m = len(w)
    empty = (np.zeros((n, 0)), np.zeros((0, 0)))
    if k_pos > 0:
        w.pop(k_pos)
        if m - 2 == 0:
            return *empty, False
        Q, R = sla.qr_delete(Q, R, k_pos - 1, 1, which="col", check_finite=False)
        return Q, R, False
    # the pivot p leaves: new pivot q = w[1]; columns b_i <- b_i - y_i y_q b_q
    p = w.pop(0)
    if m == 1 or m == 2:
        return *empty, True
    q = w[0]
    b_q = _column(G, y, q, p)
    Q, R = sla.qr_delete(Q, R, 0, 1, which="col", check_finite=False)
    v = y[np.array(w[1:], dtype=np.intp)] * y[q]
    Q, R = sla.qr_update(Q, R, -b_q, v, check_finite=False)
    return Q, R, True
