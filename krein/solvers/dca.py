"""IKSVM-DC: DCA with an Armijo step for the squared-hinge SVM with an indefinite kernel.

Xu, Xue, Chen & Wang (2017), "Solving indefinite kernel support vector machine with
difference of convex functions programming", AAAI ("xu"); journal version Xue, Xu,
Chen & Wang (2020), Front. Comput. Sci. 14:349-363.  The authors' MATLAB code
(``HeimingX/IKSVM-DC``: ``IKSVMDC.m``, ``DCdecomposition.m``, ``armijoRule.m``) was
read, not copied.  In krein's ``C = 1 / gamma`` form the model is

    ``min_{beta, b}  F(beta, b) = 1/2 beta'K beta + sum_i C_i / 2 max(0, 1 - y_i (K beta + b)_i)^2``

(:func:`krein.formulations.dc.dc_objective`; xu's objective times ``C``), with the DC
split (xu (12)) ``1/2 beta'K beta = rho/2 ||beta||^2 - 1/2 beta'(rho I - K) beta``,
``rho = lambda_max(K) + 1e-4 * scale`` (``DCdecomposition.m``: ``+ 1e-4``; krein's
``scale = max |K_ij|`` makes the salt follow ``K -> s K``; ``scale = 1`` is the paper's).
One iteration (``IKSVMDC.m``):

1. DCA step: ``theta = (rho I - K) beta_t`` and ``(beta^, b^)`` = the minimizer of the
   strongly convex subproblem (S) of :mod:`krein.formulations.dc`;
2. Armijo step along ``d = (beta^, b^) - (beta_t, b_t)`` from the DCA point
   (``armijoRule.m``): the largest ``u = 3 * 0.5^k`` with
   ``F(x^ + u d) <= F(x^) - 0.4 u ||d||^2`` (the "boosted" DCA: ``d`` is a descent
   direction of ``F`` at ``x^``); krein measures ``||d||^2`` as
   ``scale ||d_beta||^2 + d_b^2 / scale`` (the paper's norm at ``scale = 1``; it scales
   as ``F`` does under ``(K, C) -> (s K, C / s)``, so the test picks the same ``u``) and takes ``u = 0`` (the DCA point) when the directional derivative of
   ``F`` along ``d`` is not below ``-0.4 ||d||^2`` (then no ``u`` passes the test and
   ``armijoRule.m`` would loop forever) or after 40 halvings;
3. stop when ``scale^2 ||beta_{t+1} - beta_t||^2 <= tol`` (``IKSVMDC.m``:
   ``||beta_{t+1} - beta_t||^2 <= delta``; the paper's absolute ``delta`` is
   ``tol = delta * scale^2``) or after ``max_iter`` iterations (``ConvergenceWarning``).

Start: ``beta_0`` uniform in ``[-1, 1]^n / scale`` (``IKSVMDC.m``: ``[-1, 1]^n``, seed
123), ``b_0 = 1``.  Both steps decrease ``F``: the trace's objective is
non-increasing.  As ``IKSVMDC.m``, an iterate with ``F < 0`` is not taken: the loop stops
and returns the last iterate with ``F >= 0`` (``certificate["stop"] ==
"negative_objective"``).  The guard matters: ``F`` is unbounded below as soon as some
``(beta, b)`` with ``beta'K beta < 0`` has ``y_i (K beta + b)_i >= 0`` for every ``i``
(scale it up), which on a strongly indefinite kernel is the rule (sonar's sigmoid kernel,
a dissimilarity used as a kernel); without the guard DCA then follows the objective to
``-inf`` (overflow after a few hundred iterations on sonar).  The point returned is then
an early-stopped one, not a critical point of ``F``; on a kernel where ``F`` is bounded
below (PSD kernels, mildly indefinite ones) DCA converges to a critical point.

Subproblem solver (:func:`dc_subproblem`).  (S) is a strongly convex piecewise
quadratic in ``(beta, b)``; on a fixed active set ``A = {i : y_i f_i < 1}`` its
minimizer has ``beta = (theta + K_(:,A) w) / rho`` with ``w = C_A y_A r_A``, and
``w``, ``b`` solve the ``|A| + 1`` system

    ``(rho diag(1 / C_A) + (K^2)_AA) w + rho b 1 = rho y_A - (K theta)_A,   1'w = 0``

(``(K^2)_AA`` is PSD: the matrix is positive definite whatever the sign of ``K``).
This Newton point on ``A`` is accepted when ``A`` is its own active set (then it is the
exact minimizer of (S)); else an exact line search (the root of the piecewise-linear,
increasing derivative, exactly on its sorted pieces) moves towards it and ``A`` is
updated: the finite Newton method of Keerthi & DeCoste (2005) in Chapelle's (2007)
kernel form.  ``K^2`` is formed once per fit (one O(n^3) product); an iteration costs a
Cholesky factorization of size ``|A|`` and O(n |A|) products.  Each subproblem's
certificate is its relative gradient norm
(:func:`krein.formulations.dc.dc_subproblem_gradient`).  With a CVXPY solver name
instead, each (S) is solved by :class:`krein.formulations.dc.DCSubproblem` (DPP: one
compilation per fit): the independent path.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..formulations.dc import (DCSubproblem, dc_objective, dc_stationarity,
                               dc_subproblem_gradient)
from .._threads import loop_threads_of
from .core import Solution, SolverError, solve
from .table import resolve_solver

_potrf, _potrs = scipy.linalg.lapack.dpotrf, scipy.linalg.lapack.dpotrs
_syrk = scipy.linalg.blas.dsyrk

__all__ = ["dca", "dc_subproblem", "dc_constant", "ARMIJO", "DC_SALT", "dca_landmarks",
           "landmark_dc_subproblem", "landmark_dc_objective", "landmark_dc_stationarity"]

#: ``armijoRule.m``'s constants: initial step ``upsilon``, sufficient decrease ``mu``,
#: reduction ``eta``.
ARMIJO = {"upsilon": 3.0, "mu": 0.4, "eta": 0.5}

#: Halvings of the Armijo step before the DCA point itself is taken.
ARMIJO_HALVINGS = 40

#: ``DCdecomposition.m``'s salt: ``rho = lambda_max + DC_SALT * scale``.
DC_SALT = 1e-4

#: Relative gradient norm a subproblem (S) must reach (:func:`dc_subproblem`).
SUBPROBLEM_TOL = 1e-8


def dc_constant(K, scale=None):
    """The DC constant (xu's ``rho`` of the split (12)): ``lambda_max(K) + DC_SALT * scale``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix.
    scale : float, optional
        The kernel's scale (default ``max |K_ij|``, 1 for a zero matrix).

    Returns
    -------
    float
        ``rho > lambda_max(K)`` (LAPACK's ``syevr`` restricted to the largest eigenvalue).
    """
    if scale is None:
        scale = _scale(K)
    n = K.shape[0]
    lam = float(scipy.linalg.eigvalsh(K, subset_by_index=[n - 1, n - 1])[0])
    return max(lam, 0.0) + DC_SALT * scale


def _scale(K):
    m = float(np.max(np.abs(K))) if K.size else 0.0
    return m if np.isfinite(m) and m > 0 else 1.0


def _start(start, random_state, size):
    """The uniform draws in ``[-1, 1]^size`` of a DCA start: ``start`` if given (checked),
    else drawn from ``random_state``."""
    if start is None:
        return check_random_state(random_state).uniform(-1.0, 1.0, size)
    start = np.asarray(start, dtype=float)
    if start.shape != (size,) or not np.all(np.isfinite(start)):
        raise ValueError(f"start must be a finite array of shape ({size},); got shape "
                         f"{start.shape}")
    return start


def _exact_line_search(r, ye, Cv, a0, a1):
    """Exact minimizer ``t > 0`` of the convex piecewise quadratic along a direction:
    the root of the increasing piecewise-linear
    ``phi(t) = a0 + a1 t - sum C_i ye_i max(0, r_i - t ye_i)``, found on its pieces.

    Term ``i`` is active (``r_i - t ye_i > 0``) on one side of ``t_i = r_i / ye_i``:
    below it when ``ye_i > 0`` (it leaves there), above it when ``ye_i < 0`` (it enters).
    With the active sums ``A = sum C_i ye_i r_i`` and ``B = sum C_i ye_i^2`` on a piece,
    ``phi(t) = a0 - A + (a1 + B) t``; the breakpoints ``t_i > 0`` are sorted, ``A`` and
    ``B`` follow them by cumulative sums, and the root is on the first piece whose right
    end has ``phi >= 0``.  Returns 0 when ``phi(0) >= 0`` and ``2^40`` when there is no
    root below ``2^39`` (as the doubling search it replaces).
    """
    c, q = Cv * ye * r, Cv * ye * ye
    act0 = (r > 0) | ((r == 0) & (ye < 0))            # active just right of t = 0
    A0, B0 = float(np.sum(c[act0])), float(np.sum(q[act0]))
    if a0 - A0 >= 0.0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = r / ye
    cross = (ye != 0) & (tb > 0)
    order = np.argsort(tb[cross], kind="stable")
    tv = tb[cross][order]
    sgn = np.where(ye[cross] > 0, -1.0, 1.0)[order]       # ye > 0 leaves, ye < 0 enters
    A = A0 + np.cumsum(sgn * c[cross][order])
    B = B0 + np.cumsum(sgn * q[cross][order])
    Ab, Bb = np.r_[A0, A[:-1]], np.r_[B0, B[:-1]]            # sums on the piece left of tv
    reach = a0 - Ab + (a1 + Bb) * tv >= 0.0
    if reach.any():
        k = int(np.argmax(reach))
        Ap, Bp, lo, hi = Ab[k], Bb[k], (tv[k - 1] if k else 0.0), tv[k]
    else:
        Ap, Bp = (A[-1], B[-1]) if tv.size else (A0, B0)
        lo, hi = (tv[-1] if tv.size else 0.0), np.inf
        if not a1 + Bp > 0 or (Ap - a0) / (a1 + Bp) > 2.0 ** 39:
            return 2.0 ** 40
    return float(min(max((Ap - a0) / (a1 + Bp), lo), hi))


def dc_subproblem(K, K2, y, C, rho, theta, beta, b, *, Kbeta=None, tol=SUBPROBLEM_TOL,
                  max_iter=100):
    """Minimize subproblem (S) by the finite Newton method on the active set.

    See the module docstring for the method; (S) is
    ``rho/2 ||beta||^2 + sum_i C_i/2 max(0, 1 - y_i (K beta + b)_i)^2 - theta'beta``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix (any signature).
    K2 : ndarray of shape (n, n)
        ``K @ K`` (formed once by the caller).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Slack weights ``C_i > 0``.
    rho : float > 0
        xu's DC constant.
    theta : ndarray of shape (n,)
        The linearization ``(rho I - K) beta_t``.
    beta, b : ndarray of shape (n,), float
        The starting point (warm start: the current DCA iterate).
    Kbeta : ndarray of shape (n,), optional
        ``K @ beta`` if the caller has it.
    tol : float
        Relative gradient norm at which the iteration stops when no Newton point has
        been accepted yet.
    max_iter : int
        Newton iterations at most.

    Returns
    -------
    beta : ndarray of shape (n,)
        The minimizer's coefficients.
    b : float
        Its intercept.
    info : dict
        ``Kbeta`` (``K @ beta``), ``n_iter`` (Newton iterations), ``residual`` (relative
        gradient norm, :func:`~krein.formulations.dc.dc_subproblem_gradient`).

    Raises
    ------
    numpy.linalg.LinAlgError
        If a Newton system ``rho diag(1 / C_A) + (K^2)_AA`` is not numerically positive
        definite (``K^2`` PSD and ``rho / C > 0`` make it so; a non-finite ``K`` or ``C``
        does not).
    """
    n = y.size
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    Kbeta = K @ beta if Kbeta is None else Kbeta
    Ktheta = K @ theta
    beta = np.array(beta, dtype=float)
    b = float(b)
    it = 0
    for it in range(1, max_iter + 1):
        r = 1.0 - y * (Kbeta + b)
        active = r > 0
        idx = np.flatnonzero(active)
        if idx.size == 0:
            beta_n, b_n, Kbeta_n = theta / rho, b, Ktheta / rho
        else:
            M = K2[np.ix_(idx, idx)]
            M.flat[::idx.size + 1] += rho / Cv[idx]
            # LAPACK's Cholesky and one solve with both right-hand sides (scipy.linalg's
            # cho_factor / cho_solve wrappers cost more than the factorization at n ~ 60;
            # benchmarks/lapack_calls.py, "dca-potrf")
            L, info = _potrf(M, lower=1, clean=0)
            if info != 0:
                raise np.linalg.LinAlgError(f"finite Newton system not positive definite ({info})")
            UV, _ = _potrs(L, np.column_stack([rho * y[idx] - Ktheta[idx], np.ones(idx.size)]),
                           lower=1)
            u, v = UV[:, 0], UV[:, 1]
            rb = u.sum() / v.sum()
            w = u - rb * v
            b_n = rb / rho
            beta_n = (theta + K[:, idx] @ w) / rho
            Kbeta_n = (Ktheta + K2[:, idx] @ w) / rho
        r_n = 1.0 - y * (Kbeta_n + b_n)
        if np.array_equal(r_n > 0, active):
            beta, b, Kbeta = beta_n, b_n, Kbeta_n          # the exact minimizer of (S)
            break
        d_beta, d_b = beta_n - beta, b_n - b
        ye = y * (Kbeta_n - Kbeta + d_b)
        a0 = rho * beta @ d_beta - theta @ d_beta
        t = _exact_line_search(r, ye, Cv, a0, rho * d_beta @ d_beta)
        beta, b, Kbeta = beta + t * d_beta, b + t * d_b, Kbeta + t * (Kbeta_n - Kbeta)
        if dc_subproblem_gradient(K, y, Cv, rho, theta, beta, b)["residual"] <= tol:
            break
    res = dc_subproblem_gradient(K, y, Cv, rho, theta, beta, b)["residual"]
    return beta, b, {"Kbeta": Kbeta, "n_iter": it, "residual": res}


def _armijo(K_beta_hat, K_d, beta_hat, b_hat, d_beta, d_b, y, Cv, scale, F_hat):
    """``armijoRule.m`` from the DCA point: the step ``u`` and the new objective."""
    norm2 = scale * float(d_beta @ d_beta) + d_b ** 2 / scale
    # the directional derivative of F at the DCA point: (F(x^ + u d) - F(x^)) / u tends to
    # it, so no u passes the test when it is above -mu ||d||^2 (armijoRule.m loops forever)
    w = Cv * y * np.maximum(1.0 - y * (K_beta_hat + b_hat), 0.0)
    slope = float(beta_hat @ K_d - w @ (K_d + d_b))
    if not slope < -ARMIJO["mu"] * norm2:
        return 0.0, F_hat
    u = ARMIJO["upsilon"]
    for _ in range(ARMIJO_HALVINGS):
        Kb = K_beta_hat + u * K_d
        beta = beta_hat + u * d_beta
        b = b_hat + u * d_b
        F = float(0.5 * beta @ Kb + 0.5 * np.sum(Cv * np.maximum(1.0 - y * (Kb + b), 0.0) ** 2))
        if F <= F_hat - ARMIJO["mu"] * u * norm2:
            return u, F
        u *= ARMIJO["eta"]
    return 0.0, F_hat


def _outer_step(it, beta_h, b_h, beta, F_h, scale, tol, u, sub_it, verbose, size, n_variables):
    """The DCA outer step's test: ``(step, stop)`` with ``stop`` ``"step"`` (the scaled step
    is within ``tol``), ``"negative_objective"`` (IKSVMDC.m keeps the last point with
    ``F >= 0``) or ``"max_iter"`` (go on: the loop ends by its iteration limit unless a later
    step stops it); ``SolverError`` for a non-finite iterate."""
    if not (np.all(np.isfinite(beta_h)) and np.isfinite(b_h)):
        raise SolverError(f"IKSVM-DC: non-finite iterate at iteration {it} ({size})",
                          solver="dca", status="diverged", size={"n_variables": n_variables})
    step = scale ** 2 * float(np.sum((beta_h - beta) ** 2))
    if verbose:
        print(f"dca {it:4d}  F={F_h:.10g}  step={step:.3g}  u={u:g}  sub={sub_it}")
    if step <= tol:
        return step, "step"
    if F_h < 0:
        return step, "negative_objective"
    return step, "max_iter"


def _outer_row(it, F, step, u, sub_it, sub_res, t0):
    """One row of the DCA trace."""
    return {"iter": it, "objective": F, "step": step, "armijo": u,
            "subproblem_iter": sub_it, "subproblem_residual": sub_res,
            "time": time.perf_counter() - t0}


def _final_status(stop, max_iter, rows, tol):
    """``"max_iter"`` (with a ``ConvergenceWarning``) or ``"converged"``."""
    if stop != "max_iter":
        return "converged"
    warnings.warn(f"IKSVM-DC reached max_iter={max_iter} before the step test "
                  f"(last scaled step {rows[-1]['step']:.3g} > tol={tol:g})",
                  ConvergenceWarning, stacklevel=3)
    return "max_iter"


@loop_threads_of(lambda K, y, *args, **kwargs: len(y))
def dca(K, y, C=1.0, *, tol=1e-6, max_iter=300, random_state=None, start=None, solver="dca",
        line_search=True, solver_options=None, verbose=False):
    """IKSVM-DC: DCA with the Armijo step (xu; module docstring) on one binary problem.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature; checked by the caller).
    y : array-like of shape (n,)
        Labels in {-1, +1}, both present.
    C : float > 0 or array of shape (n,)
        Slack weight ``1 / gamma`` (xu's demo ``gamma = 2^3`` is ``C = 0.125``), or one
        per point (``class_weight``).
    tol : float > 0
        Stop when ``scale^2 ||beta_{t+1} - beta_t||^2 <= tol`` (``scale = max |K_ij|``;
        the paper's ``delta`` on a kernel of scale ``s`` is ``tol = delta * s^2``).
    max_iter : int >= 1
        DCA iterations at most (``ConvergenceWarning`` when reached; xu's demo: 300).
    random_state : None, int or RandomState
        Seed of the start ``beta_0`` (uniform in ``[-1, 1]^n / scale``).
    start : ndarray of shape (n,), optional
        The uniform draws themselves (``beta_0 = start / scale``), for a caller that
        draws them in its own order (:class:`krein.estimators.base.OrderedDraws`);
        ``random_state`` is then not used.
    solver : str
        ``"dca"``: each subproblem by the finite Newton method (:func:`dc_subproblem`);
        an installed CVXPY solver name: by :class:`~krein.formulations.dc.DCSubproblem`.
    line_search : bool
        Whether to take the Armijo step after each DCA step (xu); False: plain DCA.
    solver_options : dict, optional
        Passed to the CVXPY solver (CVXPY subproblems only).
    verbose : bool
        Print one line per iteration.

    Returns
    -------
    Solution
        ``solver="dca"`` (or ``"dca+NAME"``); ``primal``: ``beta`` (n,), ``b``;
        ``objective``: ``F`` at the returned point; ``dual_residual`` and
        ``certificate["grad_norm"]``: the relative stationarity residual of ``F``
        (:func:`~krein.formulations.dc.dc_stationarity`); ``certificate`` also holds
        ``dc_constant`` (``rho``), ``scale`` and ``subproblem_residual`` (the largest
        over the iterations); ``trace``: one row per iteration with ``iter``,
        ``objective``, ``step`` (``scale^2 ||beta_{t+1} - beta_t||^2``), ``armijo``
        (the step ``u``), ``subproblem_iter``, ``subproblem_residual`` and ``time``;
        ``intercept`` ``b``, ``coef`` ``beta`` (``f(x) = k(x, X) beta + b``).  Status
        ``"converged"`` or ``"max_iter"``.

    Raises
    ------
    ValueError
        Labels not in {-1, +1}, an unknown solver.
    krein.solvers.SolverError
        A subproblem the CVXPY solver does not solve, or non-finite iterates.
    """
    import pandas as pd

    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    if not np.all(np.isin(y, (-1.0, 1.0))) or np.unique(y).size < 2:
        raise ValueError("y must contain both classes and only -1 and +1")
    solver = resolve_solver(solver, ("dca",))
    n = y.size
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    t0 = time.perf_counter()
    scale = _scale(K)
    rho = dc_constant(K, scale)
    if solver == "dca":
        K2 = K @ K
    else:
        form = DCSubproblem(K, y, C=C, dc_constant=rho)
    setup = time.perf_counter() - t0
    beta = _start(start, random_state, n) / scale
    b = 1.0
    Kbeta = K @ beta
    F = dc_objective(K, y, Cv, beta, b)
    rows = [{"iter": 0, "objective": F, "step": np.nan, "armijo": np.nan, "subproblem_iter": 0,
             "subproblem_residual": np.nan, "time": time.perf_counter() - t0}]
    stop, worst = "max_iter", 0.0
    for it in range(1, max_iter + 1):
        theta = rho * beta - Kbeta
        if solver == "dca":
            beta_h, b_h, info = dc_subproblem(K, K2, y, Cv, rho, theta, beta, b, Kbeta=Kbeta)
            Kbeta_h, sub_it, sub_res = info["Kbeta"], info["n_iter"], info["residual"]
        else:
            form.set(theta=theta)
            sol = solve(form, solver, warm_start=True, **dict(solver_options or {}))
            beta_h, b_h = np.asarray(sol.primal["beta"], float), float(sol.primal["b"])
            Kbeta_h, sub_it, sub_res = K @ beta_h, sol.iterations or 0, sol.certificate["grad_norm"]
        worst = max(worst, sub_res)
        F_h = dc_objective(K, y, Cv, beta_h, b_h)
        u = 0.0
        if line_search:
            d_beta, d_b = beta_h - beta, b_h - b
            u, F_h = _armijo(Kbeta_h, Kbeta_h - Kbeta, beta_h, b_h, d_beta, d_b, y, Cv,
                             scale, F_h)
            beta_h, b_h, Kbeta_h = beta_h + u * d_beta, b_h + u * d_b, Kbeta_h + u * (Kbeta_h - Kbeta)
        step, stop = _outer_step(it, beta_h, b_h, beta, F_h, scale, tol, u, sub_it, verbose,
                                 f"n={n}", n + 1)
        if stop == "negative_objective":      # IKSVMDC.m: keep the last point with F >= 0
            break
        beta, b, Kbeta, F = beta_h, b_h, Kbeta_h, F_h
        rows.append(_outer_row(it, F, step, u, sub_it, sub_res, t0))
        if stop == "step":
            break
    wall = time.perf_counter() - t0
    status = _final_status(stop, max_iter, rows, tol)
    stat = dc_stationarity(K, y, Cv, beta, b)
    name = "dca" if solver == "dca" else f"dca+{solver}"
    return Solution(solver=name, status=status, objective=F, primal={"beta": beta, "b": b},
                    dual={}, setup_time=setup, solve_time=wall - setup, iterations=it,
                    primal_residual=0.0, dual_residual=stat, gap=float("nan"),
                    certificate={"grad_norm": stat, "dc_constant": rho, "scale": scale,
                                 "subproblem_residual": worst, "stop": stop},
                    trace=pd.DataFrame(rows), intercept=b, coef=beta,
                    certificate_kind="grad_norm")


# --------------------------------------------------------------------------- landmarks
def landmark_dc_objective(C, W, y, Cv, beta, b):
    """IKSVM-DC's objective on the landmark expansion ``f(x) = k(x, L) beta + b``.

    ``F(beta, b) = 1/2 beta'W beta + sum_i C_i / 2 max(0, 1 - y_i (C beta + b)_i)^2``
    with the landmark columns ``C = K(X, L)`` and the landmark block ``W = K(L, L)``
    (:func:`dca_landmarks`); at ``C = W = K`` it is
    :func:`krein.formulations.dc.dc_objective`.

    Parameters
    ----------
    C : ndarray of shape (n, m)
        Kernel between the training points and the landmarks.
    W : ndarray of shape (m, m)
        Kernel among the landmarks (symmetric, any signature).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    Cv : float or ndarray of shape (n,)
        Slack weight(s).
    beta : ndarray of shape (m,)
        Expansion coefficients on the landmarks.
    b : float
        Intercept.

    Returns
    -------
    float
        ``F(beta, b)``.
    """
    r = 1.0 - y * (C @ beta + b)
    return float(0.5 * beta @ (W @ beta) + 0.5 * np.sum(Cv * np.maximum(r, 0.0) ** 2))


def landmark_dc_stationarity(C, W, y, Cv, beta, b):
    """Relative stationarity residual of :func:`landmark_dc_objective` at ``(beta, b)``.

    ``grad_beta F = W beta - C'w``, ``grad_b F = -1'w`` with ``w = C_i y max(0, r)``;
    returned ``max(||W beta - C'w|| / (||W beta|| + ||C'w||), |1'w| / ||w||_1)`` (0
    where a denominator is 0): :func:`krein.formulations.dc.dc_stationarity` at
    ``C = W = K``.

    Parameters
    ----------
    C : ndarray of shape (n, m)
        Kernel between the training points and the landmarks.
    W : ndarray of shape (m, m)
        Kernel among the landmarks.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    Cv : float or ndarray of shape (n,)
        Slack weight(s).
    beta : ndarray of shape (m,)
        Expansion coefficients on the landmarks.
    b : float
        Intercept.

    Returns
    -------
    float
        The relative stationarity residual.
    """
    r = 1.0 - y * (C @ beta + b)
    w = Cv * y * np.maximum(r, 0.0)
    Wb, Cw = W @ beta, C.T @ w
    den_beta = np.linalg.norm(Wb) + np.linalg.norm(Cw)
    den_b = float(np.sum(np.abs(w)))
    res_beta = np.linalg.norm(Wb - Cw) / den_beta if den_beta > 0 else 0.0
    res_b = abs(float(np.sum(w))) / den_b if den_b > 0 else 0.0
    return float(max(res_beta, res_b))


def _landmark_subproblem_gradient(C, y, Cv, rho, theta, beta, b, Cbeta):
    """Relative gradient residual of the landmark subproblem (S_L) (:func:`dca_landmarks`):
    ``g_beta = rho beta - theta - C'w``, ``g_b = -1'w``, each part relative to the terms
    it sums (:func:`krein.formulations.dc.dc_subproblem_gradient` at ``C = K``)."""
    w = Cv * y * np.maximum(1.0 - y * (Cbeta + b), 0.0)
    Cw = C.T @ w
    g_beta = rho * beta - theta - Cw
    den_beta = np.linalg.norm(rho * beta) + np.linalg.norm(theta) + np.linalg.norm(Cw)
    den_b = float(np.sum(np.abs(w)))
    res_beta = np.linalg.norm(g_beta) / den_beta if den_beta > 0 else 0.0
    res_b = abs(float(np.sum(w))) / den_b if den_b > 0 else 0.0
    return float(max(res_beta, res_b))


class _ActiveGram:
    """The Newton systems of (S_L): ``(G_A + rho E) z = rhs`` with the Gram matrix
    ``G_A = [C_A' D C_A, C_A' D 1; ., 1'D 1]`` of the active rows (``D = diag(C_i)``),
    ``E = diag(1, ..., 1, 0)`` and ``rhs = (theta + C_A' D y_A, 1'D y_A)``.

    ``G`` is kept for a reference active set ``R`` (:meth:`set`: the rows that change are
    added and removed by BLAS ``syrk`` in place, ``O(|change| m^2)``, or all rows summed
    again when that is cheaper or after ``2 n`` row updates, which bounds the rounding
    that the updates accumulate), with the loss part ``(C_R'D y_R, 1'D y_R)`` of the
    right-hand side updated alongside and the Cholesky factor ``L`` of ``G_R + rho E``
    (LAPACK ``potrf``).  For an active set ``A`` near ``R`` (the finite Newton steps of
    one subproblem and the subproblems of consecutive DCA steps move a few rows across
    the margin), ``G_A + rho E = (G_R + rho E) + U' S U`` with the rows ``U = [c_i, 1]``
    of the ``k`` points in ``A`` xor ``R`` and ``S = diag(+C_i`` gained, ``-C_i`` lost),
    and the system is solved by the Sherman-Morrison-Woodbury formula from ``L``
    (Golub & Van Loan, "Matrix Computations", 4th ed., §2.1.4; the capacitance matrix
    ``S^-1 + Z'Z``, ``Z = L^-1 U'``, ``k x k``) in ``O(k m^2)`` for the new rows of
    ``Z`` (kept per row) and ``O(k^2 m + m^2)`` besides, instead of an ``O(m^3)``
    factorization.  The solution is checked by its residual against
    ``G_A + rho E`` (iterative refinement, at most :attr:`refinements` steps) and the
    reference is refactored at ``A`` when the residual stays above the backward-error
    bound ``refine_tol (max_i G_ii ||z||_1 + ||rhs||_inf)``, when ``k`` exceeds
    :attr:`max_rank`, or when ``rho`` changes: every solve is a backward-stable solve of
    the current system, as a fresh Cholesky solve is.
    """

    #: Rows gathered at a time (memory ``O(block m)`` besides ``C``).
    block = 4096
    #: Relative backward error a low-rank solve must reach (else refinement, refactor).
    refine_tol = 1e-12
    #: Refinement steps of a low-rank solve before the reference is refactored.
    refinements = 2

    def __init__(self, C, Cv, max_rank=None):
        self.C, self.Cv = C, Cv
        #: Largest ``|A xor R|`` solved from the reference factor.
        self.max_rank = max(8, C.shape[1] // 4) if max_rank is None else int(max_rank)
        self.factorizations = 0   # Cholesky factorizations (references)
        self.low_rank_solves = 0  # systems solved from the reference factor
        self.y = None
        self._reset()

    def _reset(self):
        """An empty reference set and no factor."""
        m = self.C.shape[1]
        self.active = np.zeros(self.C.shape[0], dtype=bool)
        # G_R in blocks: GF = C_R'D C_R (m x m, its lower triangle, Fortran order: BLAS
        # updates it in place), g = C_R'D 1, g0 = 1'D 1; h = (C_R'D y_R, 1'D y_R), the
        # loss part of the rhs
        self.GF = np.zeros((m, m), order="F")
        self.g, self.g0 = np.zeros(m), 0.0
        self.h = np.zeros(m + 1)
        self.updated = 0
        self.factor = None        # (rho, L, G_R + rho E, C_R' D y_R and 1'D y_R)
        self.Z, self.Zrows, self.ZZ = {}, None, None
        self.system = None        # the last solved system: (M_R, U, S, rhs), U = S = None if k = 0
        self._solved = None       # (z, rhs - M z) of the last Woodbury solve

    def _add(self, idx, sign):
        """Add (``sign = 1``) or remove (``-1``) the rows ``idx`` from ``G_R`` and ``h``."""
        for a in range(0, idx.size, self.block):
            rows = idx[a:a + self.block]
            Ca = np.take(self.C, rows, axis=0)
            d = self.Cv[rows]
            # GF += sign Ca'D Ca on its lower triangle, in place (BLAS syrk on Ca', which is
            # Fortran-ordered; D = d_0 I by the scalar, else by the rows' sqrt(d))
            if np.all(d == d[0]):
                _syrk(sign * float(d[0]), Ca.T, beta=1.0, c=self.GF, lower=1, overwrite_c=1)
            else:
                _syrk(sign, (np.sqrt(d)[:, None] * Ca).T, beta=1.0, c=self.GF, lower=1,
                      overwrite_c=1)
            dv = np.column_stack([d, d * self.y[rows]])
            gy = Ca.T @ dv
            self.g += sign * gy[:, 0]
            self.g0 += sign * float(d.sum())
            self.h[:-1] += sign * gy[:, 1]
            self.h[-1] += sign * float(dv[:, 1].sum())

    def set(self, active):
        """Make ``active`` the reference set (``G_R``, ``h`` updated by the rows that change,
        or summed again when that is cheaper or after ``2 n`` row updates)."""
        gained = np.flatnonzero(active & ~self.active)
        lost = np.flatnonzero(self.active & ~active)
        change = gained.size + lost.size
        if change == 0:
            return
        n_active = int(np.count_nonzero(active))
        if change >= n_active or self.updated + change > 2 * self.C.shape[0]:
            self.GF[:] = 0.0
            self.g[:], self.g0, self.h[:] = 0.0, 0.0, 0.0
            self._add(np.flatnonzero(active), 1.0)
            self.updated = 0
        else:
            if gained.size:
                self._add(gained, 1.0)
            if lost.size:
                self._add(lost, -1.0)
            self.updated += change
        self.active = active.copy()

    def _refactor(self, active, y, rho):
        m = self.C.shape[1]
        self.set(active)
        G = np.empty((m + 1, m + 1))
        G[:m, :m] = np.tril(self.GF)
        G[:m, :m] += np.tril(self.GF, -1).T
        G[:m, m] = G[m, :m] = self.g
        G[m, m] = self.g0
        G.flat[:m * (m + 2):m + 2] += rho        # rho on the beta block's diagonal
        L, info = _potrf(G, lower=1, clean=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"finite Newton system not positive definite ({info})")
        self.factor = (rho, L, G, self.h.copy())
        self.Z, self.Zrows, self.ZZ = {}, None, None
        self.factorizations += 1

    def _columns(self, L, rows, U):
        """``Z = L^-1 U'`` for the Woodbury rows ``rows`` (rows of ``U``) and ``Z'Z``.

        The columns and their inner products are kept per reference factor
        (``self.Z``: row -> position; ``self.Zrows`` holds ``Z'`` row by row and
        ``self.ZZ`` the inner products, both in buffers of ``4 max_rank`` slots): only the
        rows not kept yet cost a triangular solve, ``O(m^2)`` each, and a column of inner
        products, ``O(m k)``.  When the slots run out, the rows not in ``rows`` are
        dropped.
        """
        m1 = self.C.shape[1] + 1
        cap = 4 * self.max_rank
        pos = self.Z
        new = [i for i, r in enumerate(rows) if r not in pos]
        if self.Zrows is None:
            self.Zrows, self.ZZ = np.empty((cap, m1)), np.empty((cap, cap))
        if new and len(pos) + len(new) > cap:                   # memory bound
            keep = np.array([pos[r] for r in rows if r in pos], dtype=np.intp)
            self.Zrows[:keep.size] = self.Zrows[keep]
            self.ZZ[:keep.size, :keep.size] = self.ZZ[np.ix_(keep, keep)]
            self.Z = pos = {r: j for j, r in enumerate(r for r in rows if r in pos)}
        if new:
            if len(pos) + len(new) > cap:        # more new rows than slots: grow
                cap = len(pos) + len(new)
                Zr, ZZ = np.empty((cap, m1)), np.empty((cap, cap))
                Zr[:len(pos)], ZZ[:len(pos), :len(pos)] = self.Zrows[:len(pos)], \
                    self.ZZ[:len(pos), :len(pos)]
                self.Zrows, self.ZZ = Zr, ZZ
            k0, k1 = len(pos), len(pos) + len(new)
            Zn = scipy.linalg.solve_triangular(L, U[new].T, lower=True, check_finite=False)
            self.Zrows[k0:k1] = Zn.T
            cross = self.Zrows[:k1] @ Zn
            self.ZZ[:k1, k0:k1] = cross
            self.ZZ[k0:k1, :k1] = cross.T
            for j, i in enumerate(new):
                pos[rows[i]] = k0 + j
        ix = np.fromiter((pos[r] for r in rows), dtype=np.intp, count=len(rows))
        return self.Zrows[ix].T, self.ZZ[np.ix_(ix, ix)]

    def solve(self, active, theta, rho, y):
        """The Newton point ``z = (beta, b)`` of (S_L) on the active rows ``active``.

        Parameters
        ----------
        active : ndarray of bool, shape (n,)
            The active set ``A`` (at least one row).
        theta : ndarray of shape (m,)
            The DCA linearization.
        rho : float
            The DC constant.
        y : ndarray of shape (n,)
            Labels in {-1, +1}.

        Returns
        -------
        ndarray of shape (m + 1,)
            The solution of ``(G_A + rho E) z = (theta + C_A' D y_A, 1'D y_A)``.

        Raises
        ------
        numpy.linalg.LinAlgError
            If a Newton matrix is not numerically positive definite.
        """
        m = self.C.shape[1]
        if self.y is None or (y is not self.y and not np.array_equal(y, self.y)):
            self._reset()                  # h depends on the labels: start afresh
            self.y = np.asarray(y, dtype=float)
        fresh = self.factorizations
        if self.factor is None or self.factor[0] != rho:
            self._refactor(active, y, rho)
        for attempt in range(2):
            _, L, Gr, rhs_loss = self.factor
            gained = np.flatnonzero(active & ~self.active)
            lost = np.flatnonzero(self.active & ~active)
            k = gained.size + lost.size
            if k > self.max_rank:
                self._refactor(active, y, rho)
                continue
            rows = np.r_[gained, lost]
            sgn = np.r_[np.ones(gained.size), -np.ones(lost.size)]
            rhs = rhs_loss.copy()
            rhs[:m] += theta
            self._solved = None
            if k == 0:
                z, _ = _potrs(L, rhs, lower=1)
                self.system = (Gr, None, None, rhs)
                if self.factorizations == fresh:     # the kept factor's own set
                    self.low_rank_solves += 1
                return z
            U = np.empty((k, m + 1))
            U[:, :m] = self.C[rows]
            U[:, m] = 1.0
            s = sgn * self.Cv[rows]
            rhs += U.T @ (s * y[rows])
            Z, cap = self._columns(L, rows, U)
            cap.flat[::k + 1] += 1.0 / s
            try:
                cap_lu = scipy.linalg.lu_factor(cap, check_finite=False)
            except (ValueError, np.linalg.LinAlgError):
                self._refactor(active, y, rho)
                continue

            def apply_inverse(v):
                w = scipy.linalg.solve_triangular(L, v, lower=True, check_finite=False)
                w -= Z @ scipy.linalg.lu_solve(cap_lu, Z.T @ w, check_finite=False)
                return scipy.linalg.solve_triangular(L, w, lower=True, trans=1,
                                                     check_finite=False)

            def residual(z):
                return rhs - Gr @ z - U.T @ (s * (U @ z))

            gmax = float(np.max(np.diag(Gr))) + float(np.max(np.abs(s), initial=0.0)) * \
                float(np.max(np.sum(U * U, axis=1)))
            z = apply_inverse(rhs)
            for _ in range(self.refinements + 1):
                res = residual(z)
                bound = self.refine_tol * (gmax * float(np.sum(np.abs(z)))
                                           + float(np.max(np.abs(rhs))))
                if np.all(np.isfinite(res)) and float(np.max(np.abs(res))) <= bound:
                    self.low_rank_solves += 1
                    self.system = (Gr, U, s, rhs)
                    self._solved = (z, res)          # the system's residual at z
                    return z
                z = z + apply_inverse(res)
            self._refactor(active, y, rho)
        z, _ = _potrs(self.factor[1], self.factor[3] + np.r_[theta, 0.0], lower=1)
        self.system = (self.factor[2], None, None, self.factor[3] + np.r_[theta, 0.0])
        self._solved = None
        return z

    def gradient_residual(self, z, theta, rho, w):
        """Relative gradient residual of (S_L) at ``z = (beta, b)`` from the last solved system.

        With ``A`` the active set of the last :meth:`solve` and ``A`` also the active set
        of ``z``, the gradient of (S_L) at ``z`` is the residual ``(G_A + rho E) z - rhs``
        of that Newton system (``g_beta = rho beta - theta - C_A'D (y_A - C_A beta - b)``,
        ``g_b = -1'w``), and ``C'w = (rhs - (G_A + rho E) z)_beta + theta``: the value of
        :func:`_landmark_subproblem_gradient` computed in ``O(m^2 + k m)`` from the kept
        Gram matrix (the ``k`` Woodbury rows) instead of a product with ``C``.

        Parameters
        ----------
        z : ndarray of shape (m + 1,)
            The point, whose active set is the last solved system's.
        theta : ndarray of shape (m,)
            The DCA linearization of that system.
        rho : float
            The DC constant.
        w : ndarray of shape (n,)
            ``C_i y_i max(0, r_i)`` at ``z`` (its ``b`` part is computed from it directly).

        Returns
        -------
        float
            ``max(||g_beta|| / (||rho beta|| + ||theta|| + ||C'w||), |1'w| / ||w||_1)``
            (0 where a denominator is 0).
        """
        m = self.C.shape[1]
        M, U, s, rhs = self.system
        if self._solved is not None and z is self._solved[0]:
            Mz = rhs - self._solved[1]                # the solve's own residual check
        else:
            Mz = M @ z
            if U is not None:
                Mz += U.T @ (s * (U @ z))
        g_beta = Mz[:m] - rhs[:m]
        Cw = rhs[:m] - theta - (Mz[:m] - rho * z[:m])
        den_beta = np.linalg.norm(rho * z[:m]) + np.linalg.norm(theta) + np.linalg.norm(Cw)
        den_b = float(np.sum(np.abs(w)))
        res_beta = np.linalg.norm(g_beta) / den_beta if den_beta > 0 else 0.0
        res_b = abs(float(np.sum(w))) / den_b if den_b > 0 else 0.0
        return float(max(res_beta, res_b))


def landmark_dc_subproblem(C, y, Cv, rho, theta, beta, b, gram, *, Cbeta=None,
                           tol=SUBPROBLEM_TOL, max_iter=100):
    """Minimize the landmark subproblem (S_L) of :func:`dca_landmarks` by primal finite Newton.

    (S_L) is ``rho/2 ||beta||^2 + sum_i C_i/2 max(0, 1 - y_i (C beta + b)_i)^2 -
    theta'beta`` over ``(beta, b)`` in ``R^(m+1)``: strongly convex and piecewise
    quadratic.  On the active set ``A = {i : y_i f_i < 1}`` its minimizer solves the
    ``(m+1)``-system ``[rho I + C_A'D C_A, C_A'D 1; 1'D C_A, 1'D 1] (beta, b) =
    (theta + C_A'D y_A, 1'D y_A)`` (``D = diag(C_A)``, positive definite);
    accepted when ``A`` is its own active set (the exact minimizer), else an exact
    line search towards it and ``A`` is updated: the primal finite Newton method
    of Keerthi & DeCoste (2005, "A modified finite Newton method for fast solution
    of large scale linear SVMs", JMLR 6, §2-3) with the regularizer ``rho I``.  The
    Gram matrix of the active rows and its Cholesky factor are kept across iterations
    and subproblems (``gram``): a system whose active set differs from the factored one
    in a few rows is solved by the Woodbury formula (:meth:`_ActiveGram.solve`).  The
    relative gradient residual (the test after a line search, and ``residual``) is the
    residual of the Newton system of the point's own active set
    (:meth:`_ActiveGram.gradient_residual`): no product ``C'w``, one product ``C beta``
    per Newton step.

    Parameters
    ----------
    C : ndarray of shape (n, m)
        Landmark columns.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    Cv : ndarray of shape (n,)
        Slack weights ``C_i > 0``.
    rho : float > 0
        The DC constant.
    theta : ndarray of shape (m,)
        The linearization ``(rho I - W) beta_t``.
    beta, b : ndarray of shape (m,), float
        The starting point (the current DCA iterate).
    gram : _ActiveGram
        The active rows' Gram matrix, kept by the caller across subproblems.
    Cbeta : ndarray of shape (n,), optional
        ``C @ beta`` if the caller has it.
    tol : float
        Relative gradient residual at which the iteration stops when no Newton point
        has been accepted.
    max_iter : int
        Newton iterations at most.

    Returns
    -------
    beta : ndarray of shape (m,)
        The minimizer's coefficients.
    b : float
        Its intercept.
    info : dict
        ``Cbeta`` (``C @ beta``), ``n_iter``, ``residual`` (relative gradient).

    Raises
    ------
    numpy.linalg.LinAlgError
        If a Newton system is not numerically positive definite (non-finite data).
    """
    m = C.shape[1]
    Cbeta = C @ beta if Cbeta is None else Cbeta
    beta = np.array(beta, dtype=float)
    b = float(b)
    it = 0
    res = None
    for it in range(1, max_iter + 1):
        r = 1.0 - y * (Cbeta + b)
        active = r > 0
        if not active.any():
            z = np.r_[theta / rho, b]
        else:
            z = gram.solve(active, theta, rho, y)
        if it > 1:
            # after a line search: the gradient at the current point, from the Newton
            # system of its own active set
            res = _gram_residual(gram, active, np.r_[beta, b], theta, rho,
                                 Cv * y * np.maximum(r, 0.0))
            if res <= tol:
                it -= 1                   # the line search of the previous iteration ended it
                break
        beta_n, b_n = z[:m], float(z[m])
        Cbeta_n = C @ beta_n
        r_n = 1.0 - y * (Cbeta_n + b_n)
        if np.array_equal(r_n > 0, active):
            beta, b, Cbeta = beta_n, b_n, Cbeta_n          # the exact minimizer of (S_L)
            res = _gram_residual(gram, active, z, theta, rho, Cv * y * np.maximum(r_n, 0.0))
            break
        d_beta, d_b = beta_n - beta, b_n - b
        ye = y * (Cbeta_n - Cbeta + d_b)
        a0 = rho * beta @ d_beta - theta @ d_beta
        t = _exact_line_search(r, ye, Cv, a0, rho * d_beta @ d_beta)
        beta, b, Cbeta = beta + t * d_beta, b + t * d_b, Cbeta + t * (Cbeta_n - Cbeta)
        res = None
    if res is None:          # Newton iterations exhausted after a line search
        res = _landmark_subproblem_gradient(C, y, Cv, rho, theta, beta, b, Cbeta)
    return beta, b, {"Cbeta": Cbeta, "n_iter": it, "residual": res}


def _gram_residual(gram, active, z, theta, rho, w):
    """:func:`_landmark_subproblem_gradient` at ``z`` whose active set is ``active``, the
    set of the last system ``gram`` solved (:meth:`_ActiveGram.gradient_residual`; with no
    active row ``C'w = 0``)."""
    if active.any():
        return gram.gradient_residual(z, theta, rho, w)
    m = theta.size
    g = rho * z[:m] - theta
    den = np.linalg.norm(rho * z[:m]) + np.linalg.norm(theta)
    return float(np.linalg.norm(g) / den) if den > 0 else 0.0


#: Largest step ratio by which :func:`_predicted_start` extrapolates the minimizers.
PREDICTION_RATIO = 8.0


def _predicted_start(history, v_beta, v_b, v_Cbeta):
    """The starting point of the finite Newton method for the next DCA subproblem.

    The minimizer ``z*(v)`` of (S_L) is piecewise affine in the linearization point ``v``
    (affine while its active set stays: the Newton system's right-hand side is linear in
    ``theta = (rho I - W) v``), so with the last two points ``v_0, v_1`` and minimizers
    ``z_0, z_1`` the extrapolation ``z_1 + a (z_1 - z_0)``, ``a = <v - v_1, v_1 - v_0> /
    ||v_1 - v_0||^2`` (the new step measured along the previous one), predicts the next
    minimizer and, above all, its active set: its Newton point is then the exact minimizer
    at the first iteration.  ``C beta`` of the prediction is the same combination of the
    minimizers' ``C beta`` (no product with ``C``).  Any point is a valid start of the
    finite Newton method (Keerthi & DeCoste 2005: finite convergence from any start), and
    the strongly convex subproblem has one minimizer, so the start changes the Newton
    iterations, not the DCA point.  Returns ``v`` itself before two minimizers are known or
    when ``a`` is not in ``(0, PREDICTION_RATIO]``.
    """
    if len(history) < 2:
        return v_beta, v_b, v_Cbeta
    (v0, beta0, b0, Cbeta0), (v1, beta1, b1, Cbeta1) = history
    dv = v1 - v0
    den = float(dv @ dv)
    a = float((v_beta - v1) @ dv) / den if den > 0 else 0.0
    if not 0.0 < a <= PREDICTION_RATIO:
        return v_beta, v_b, v_Cbeta
    return (beta1 + a * (beta1 - beta0), b1 + a * (b1 - b0), Cbeta1 + a * (Cbeta1 - Cbeta0))


def dca_landmarks(C, W, y, Cw=1.0, *, tol=1e-6, max_iter=300, random_state=None, start=None,
                  line_search=True, accelerate=False, verbose=False):
    """IKSVM-DC on the landmark expansion ``f(x) = k(x, L) beta + b`` (DCA with the Armijo step).

    The reduced-set form of :func:`dca`: the expansion runs over the ``m`` landmarks
    instead of the ``n`` training points, so the model is

        ``min  F(beta, b) = 1/2 beta'W beta + sum_i C_i / 2 max(0, 1 - y_i (C beta + b)_i)^2``

    over ``beta`` in ``R^m`` (:func:`landmark_dc_objective`; ``C = K(X, L)``,
    ``W = K(L, L)``): xu's objective with the kernel term ``beta'K beta`` the
    squared (Krein) norm of the expansion, here ``beta'W beta`` of the expansion on
    the landmarks, and the loss on every training point (Lee & Mangasarian's 2001
    reduced expansion, ``K(A, Abar')``).  The DC split is xu's (12) on ``W``:
    ``rho = lambda_max(W) + DC_SALT * scale`` (``scale = max |W_ij|``); each DCA step
    minimizes (S_L), ``rho/2 ||beta||^2 + sum_i C_i/2 max(0, 1 - y_i (C beta + b)_i)^2
    - theta'beta`` with ``theta = (rho I - W) beta_t``, exactly by the primal finite
    Newton method (:func:`landmark_dc_subproblem`: an ``(m+1)``-system per step,
    solved from a kept Cholesky factor by the Woodbury formula while the active set
    moves by few rows, one product ``C beta`` per Newton step besides), started at the
    minimizer predicted from the last two (:func:`_predicted_start`: the first Newton
    point is then mostly the exact minimizer, one product with ``C`` per DCA step; the
    start changes the Newton iterations, not the subproblem's minimizer), then xu's
    Armijo step (the norm ``scale ||d_beta||^2 + d_b^2 /
    scale``), the step test ``scale^2 ||beta_{t+1} - beta_t||^2 <= tol`` and the
    guard against ``F < 0``, all as :func:`dca`.  Start ``beta_0`` uniform in
    ``[-1, 1]^m / scale``, ``b_0 = 1``.  No ``n x n`` array is formed (memory
    ``O(n m + m^2)``).  With every training point a landmark (``C = W = K``) it is
    :func:`dca` on ``K`` (the same iterates, the subproblems solved exactly by both).

    Parameters
    ----------
    C : array-like of shape (n, m)
        Kernel between the training points and the landmarks.
    W : array-like of shape (m, m)
        Kernel among the landmarks (symmetric, any signature).
    y : array-like of shape (n,)
        Labels in {-1, +1}, both present.
    Cw : float > 0 or array of shape (n,)
        Slack weight ``1 / gamma``, or one per point.
    tol : float > 0
        Step test (above).
    max_iter : int >= 1
        DCA iterations at most (``ConvergenceWarning`` when reached).
    random_state : None, int or RandomState
        Seed of ``beta_0``.
    start : ndarray of shape (m,), optional
        The uniform draws of ``beta_0`` themselves (``beta_0 = start / scale``), as
        for :func:`dca`; ``random_state`` is then not used.
    line_search : bool
        Whether to take the Armijo step after each DCA step.
    accelerate : bool
        The accelerated DCA of Phan, Le & Le Thi (2018, IJCAI, ADCA with ``q = 0``):
        step ``t`` linearizes ``W``'s concave part at ``z = x_t + (s_{t-1} - 1) / s_t
        (x_t - x_{t-1})`` (``s_0 = 1``, ``s_t = (1 + sqrt(1 + 4 s_{t-1}^2)) / 2``)
        when ``F(z) <= F(x_t)``, else at ``x_t``; the DCA point and the Armijo step
        (along ``d`` from the linearization point) then decrease ``F`` below ``F(z)``,
        so the objective still never increases.  The step test (on ``x_{t+1} - x_t``),
        the guard and the certificate are unchanged.  False: xu's iterates.
    verbose : bool
        Print one line per iteration.

    Returns
    -------
    Solution
        As :func:`dca` (``solver="dca"``): ``primal`` ``beta`` (m,), ``b``;
        ``certificate["grad_norm"]`` the relative stationarity residual of ``F``
        (:func:`landmark_dc_stationarity`), ``dc_constant``, ``scale``,
        ``subproblem_residual``, ``stop``, ``factorizations`` (Cholesky factorizations of
        a Newton matrix), ``low_rank_solves`` (Newton systems solved from a kept factor by
        the Woodbury formula, :class:`_ActiveGram`), ``extrapolations`` (accepted
        extrapolated points, ``accelerate=True``) and ``predicted_starts`` (subproblems
        started at the predicted minimizer, :func:`_predicted_start`); ``trace`` one row
        per iteration.

    Raises
    ------
    ValueError
        Labels not in {-1, +1}, or shapes that do not match.
    krein.solvers.SolverError
        Non-finite iterates.

    References
    ----------
    Xu, Xue, Chen & Wang (2017), AAAI, (12) and DCA with the Armijo step; Lee &
    Mangasarian (2001), "RSVM: reduced support vector machines", SDM; Keerthi &
    DeCoste (2005), JMLR 6.
    """
    import pandas as pd

    C = np.asarray(C, dtype=float)
    W = np.asarray(W, dtype=float)
    y = np.asarray(y, dtype=float)
    if not np.all(np.isin(y, (-1.0, 1.0))) or np.unique(y).size < 2:
        raise ValueError("y must contain both classes and only -1 and +1")
    n, m = C.shape
    if y.shape != (n,) or W.shape != (m, m):
        raise ValueError(f"C must be (n, m) = ({y.size}, m) and W (m, m); got {C.shape}, {W.shape}")
    Cv = np.array(np.broadcast_to(np.asarray(Cw, dtype=float), (n,)))
    t0 = time.perf_counter()
    scale = _scale(W)
    rho = dc_constant(W, scale)
    gram = _ActiveGram(C, Cv)
    setup = time.perf_counter() - t0
    beta = _start(start, random_state, m) / scale
    b = 1.0
    Cbeta = C @ beta
    F = landmark_dc_objective(C, W, y, Cv, beta, b)
    rows = [{"iter": 0, "objective": F, "step": np.nan, "armijo": np.nan, "subproblem_iter": 0,
             "subproblem_residual": np.nan, "time": time.perf_counter() - t0}]
    stop, worst = "max_iter", 0.0

    def objective(beta, Cbeta, b, parts=False):
        r = 1.0 - y * (Cbeta + b)
        quad = float(beta @ (W @ beta))
        F = float(0.5 * quad + 0.5 * np.sum(Cv * np.maximum(r, 0.0) ** 2))
        return (F, quad) if parts else F

    it = 0
    t_mom, n_extrapolated = 1.0, 0
    history = []                # the last two (linearization point, subproblem minimizer)
    n_predicted = 0
    beta_prev, b_prev, Cbeta_prev = beta, b, Cbeta
    for it in range(1, max_iter + 1):
        # the linearization point v: the iterate, or (accelerate) its extrapolation when
        # that does not increase F (Phan, Le & Le Thi 2018, ADCA with q = 0)
        v_beta, v_b, v_Cbeta, F_v = beta, b, Cbeta, F
        if accelerate:
            t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t_mom * t_mom))
            gamma = (t_mom - 1.0) / t_next
            t_mom = t_next
            if gamma > 0.0:
                z_beta = beta + gamma * (beta - beta_prev)
                z_b = b + gamma * (b - b_prev)
                z_Cbeta = Cbeta + gamma * (Cbeta - Cbeta_prev)
                F_z = objective(z_beta, z_Cbeta, z_b)
                if F_z <= F:
                    v_beta, v_b, v_Cbeta, F_v = z_beta, z_b, z_Cbeta, F_z
                    n_extrapolated += 1
        theta = rho * v_beta - W @ v_beta
        s_beta, s_b, s_Cbeta = _predicted_start(history, v_beta, v_b, v_Cbeta)
        n_predicted += s_beta is not v_beta
        beta_h, b_h, info = landmark_dc_subproblem(C, y, Cv, rho, theta, s_beta, s_b, gram,
                                                   Cbeta=s_Cbeta)
        Cbeta_h, sub_it, sub_res = info["Cbeta"], info["n_iter"], info["residual"]
        history = [history[-1], (v_beta, beta_h, b_h, Cbeta_h)] if history else \
            [(v_beta, beta_h, b_h, Cbeta_h)]
        worst = max(worst, sub_res)
        F_h, q0 = objective(beta_h, Cbeta_h, b_h, parts=True)
        u = 0.0
        if line_search:
            d_beta, d_b = beta_h - v_beta, b_h - v_b
            C_d = Cbeta_h - v_Cbeta
            norm2 = scale * float(d_beta @ d_beta) + d_b ** 2 / scale
            w = Cv * y * np.maximum(1.0 - y * (Cbeta_h + b_h), 0.0)
            W_d = W @ d_beta
            q1, q2 = float(beta_h @ W_d), float(d_beta @ W_d)
            slope = q1 - float(w @ (C_d + d_b))
            if slope < -ARMIJO["mu"] * norm2:
                step_u = ARMIJO["upsilon"]
                for _ in range(ARMIJO_HALVINGS):
                    # F along beta_h + u d: the quadratic term q0 + 2 u q1 + u^2 q2 from the
                    # products with W formed once, the loss from C beta_h + u C d
                    r_u = 1.0 - y * (Cbeta_h + step_u * C_d + (b_h + step_u * d_b))
                    F_u = float(0.5 * (q0 + step_u * (2.0 * q1 + step_u * q2))
                                + 0.5 * np.sum(Cv * np.maximum(r_u, 0.0) ** 2))
                    if F_u <= F_h - ARMIJO["mu"] * step_u * norm2:
                        u, F_h = step_u, F_u
                        break
                    step_u *= ARMIJO["eta"]
            beta_h, b_h, Cbeta_h = beta_h + u * d_beta, b_h + u * d_b, Cbeta_h + u * C_d
        step, stop = _outer_step(it, beta_h, b_h, beta, F_h, scale, tol, u, sub_it, verbose,
                                 f"n={n}, m={m}", m + 1)
        if stop == "negative_objective":      # IKSVMDC.m: keep the last point with F >= 0
            break
        beta_prev, b_prev, Cbeta_prev = beta, b, Cbeta
        beta, b, Cbeta, F = beta_h, b_h, Cbeta_h, F_h
        rows.append(_outer_row(it, F, step, u, sub_it, sub_res, t0))
        if stop == "step":
            break
    wall = time.perf_counter() - t0
    status = _final_status(stop, max_iter, rows, tol)
    stat = landmark_dc_stationarity(C, W, y, Cv, beta, b)
    return Solution(solver="dca", status=status, objective=F, primal={"beta": beta, "b": b},
                    dual={}, setup_time=setup, solve_time=wall - setup, iterations=it,
                    primal_residual=0.0, dual_residual=stat, gap=float("nan"),
                    certificate={"grad_norm": stat, "dc_constant": rho, "scale": scale,
                                 "subproblem_residual": worst, "stop": stop,
                                 "factorizations": gram.factorizations,
                                 "low_rank_solves": gram.low_rank_solves,
                                 "extrapolations": n_extrapolated,
                                 "predicted_starts": n_predicted},
                    trace=pd.DataFrame(rows), intercept=b, coef=beta,
                    certificate_kind="grad_norm")
