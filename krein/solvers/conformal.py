"""Conformal transformation of a PSD kernel towards an indefinite one (munoz §3.4, eqs. 13-14).

Given an indefinite ``K`` and a PSD "a priori" kernel ``A`` (same points), munoz
eq. (13) looks for a diagonal ``W = diag(w)``::

    minimize_w  f(w) = ||K - W A W||_F^2 = ||K - A o (w w')||_F^2          (13)

(``W A W = A o w w'``: a conformal transformation ``w(x) A(x, z) w(z)`` of ``A``),
and extends it to ``r`` columns, ``V`` of shape ``(n, r)``::

    minimize_V  f(V) = ||K - A o (V V')||_F^2                               (13, r columns)

``A o (V V')`` is PSD whenever ``A`` is (Schur product theorem), so the result is
a PSD kernel for any ``V``.

Three solvers, from the same start:

* :func:`conformal_search` -- the paper's method: "W is initialized as the
  identity matrix of order n.  The elements of W are modified iteratively
  (adding or subtracting a fix constant), while a better approximation between
  matrices W A W and K (a lower Frobenius norm value) is being obtained."
  Implemented as sweeps over the coordinates ``V_ik`` (row-major order): try
  ``V_ik + step``, keep it if ``f`` decreases, else try ``V_ik - step`` and keep
  it if ``f`` decreases; stop after a sweep that changes nothing.  The result is
  therefore a point where no single coordinate move of ``+-step`` lowers ``f``
  (checked in the tests), not a stationary point.  Each trial costs O(n): only
  row and column ``i`` of the residual change.
* :func:`conformal_lbfgs` -- L-BFGS-B (:func:`scipy.optimize.minimize`) on
  ``vec(V)`` with the analytic gradient.  With ``R = A o (V V') - K``
  (symmetric), ``df = 2 <R, A o (dV V' + V dV')> = 4 <(A o R) V, dV>``, so::

      grad f(V) = 4 (A o R) V.

  ``f`` is a quartic in ``V``, not convex; both methods find local minima.
* :func:`conformal_fit` with ``method="optimize"`` -- the best of L-BFGS-B from
  the start and L-BFGS-B from the search's end point, so its objective is never
  above the search's (L-BFGS-B only accepts descent steps) and it ends at a
  stationary point.  Plain L-BFGS-B from the start is *not* enough for that:
  the search moves one coordinate at a time and can cross into another basin
  (typically a ``w_i`` changing sign), while the gradient path stays in the
  start's basin.  Measured on 90 small problems (30-point sigmoid ``K``; ``A``
  Gaussian with two widths or ``|K|``; ``r = 1, 2``; 15 seeds), L-BFGS-B from
  ``w = 1`` ended above the search's objective in 18 (by up to 1.2%), all with
  a Gaussian ``A``; ``"optimize"`` ended below it in all 90 (median relative
  gain 8e-6: the search stops within a step of a stationary point).

Initial point: the paper's ``W = I``, i.e. ``w = 1`` (``r = 1``).  For ``r > 1``
the first column is 1 and the others are small random numbers
(``0.01 N(0, 1)``): a zero column has zero gradient (it is a stationary
direction), so the gradient method needs a nonzero start there.

New points (eq. 14)
-------------------
munoz eq. (14): ``w_x = sum_i w_i K(i, x) A(i, x) / sum_i (w_i A(i, x))^2`` -- the
least-squares fit of the row, ``w_x = argmin_c sum_i (K(x, i) - c A(x, i) w_i)^2``.
For ``r`` columns the same least squares gives
``v_x = argmin_v sum_i (K(x, i) - A(x, i) v' v_i)^2 = pinv(B_x) k_x`` with
``B_x = diag(A(x, .)) V`` (minimum-norm solution; eq. 14 when ``r = 1``).  The
transformed row is ``K*(x, X_j) = A(x, X_j) v_x' v_j``.

On a training row this reproduces the fitted block at a stationary point: row
``i`` of ``grad f = 0`` reads ``sum_j A_ij^2 (v_j v_j') v_i = sum_j K_ij A_ij v_j``,
the normal equations of that least squares.  Exactly,
``w_x(row i) - w_i = -grad_i / (4 sum_j (A_ij w_j)^2)`` for ``r = 1``, so the
error is the stationarity residual (tested); the paper's fixed-step search is
not stationary, and its training rows are reproduced only up to that residual.

References
----------
A. Munoz and I. Martin de Diego (2006), "From indefinite to positive
semi-definite matrices", §3.4, eqs. (13)-(14).
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import pandas as pd
import scipy.optimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._validation import check_int, check_square_kernel
from .core import Solution

__all__ = ["conformal_objective", "conformal_search", "conformal_lbfgs", "conformal_fit",
           "conformal_extend", "conformal_rows", "conformal_start", "CONFORMAL_METHODS"]

#: Solvers of eq. (13) accepted by :func:`conformal_fit`.
CONFORMAL_METHODS = ("optimize", "search", "lbfgs")


def _check_pair(K, A):
    K = check_square_kernel(K, "K")
    A = check_square_kernel(A, "A")
    if A.shape != K.shape:
        raise ValueError(f"A must have the shape of K {K.shape}; got {A.shape}")
    return K, A


def _check_V(V, n, name="V0"):
    V = np.array(V, dtype=float)
    if V.ndim == 1:
        V = V[:, None]
    if V.ndim != 2 or V.shape[0] != n or V.shape[1] < 1 or not np.all(np.isfinite(V)):
        raise ValueError(f"{name} must be a finite array of shape ({n},) or ({n}, r); "
                         f"got shape {V.shape}")
    return V


def _check_tol(tol, name="tol"):
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not np.isfinite(tol) or tol < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {tol!r}")
    return float(tol)


def conformal_start(n, r=1, random_state=None):
    """The common initial point: ``w = 1`` (munoz's ``W = I``), plus small random columns.

    Parameters
    ----------
    n : int
        Number of training points.
    r : int >= 1
        Number of columns of ``V``.
    random_state : int, RandomState or None
        For the columns beyond the first (``0.01 N(0, 1)``).

    Returns
    -------
    V0 : ndarray of shape (n, r)
        First column ones (``w = 1``), the others small random numbers.
    """
    r = check_int(r, "r", low=1)
    V0 = np.zeros((n, r))
    V0[:, 0] = 1.0
    if r > 1:
        V0[:, 1:] = 0.01 * check_random_state(random_state).standard_normal((n, r - 1))
    return V0


def conformal_objective(V, K, A):
    """``f(V) = ||K - A o (V V')||_F^2`` (munoz eq. 13) and its gradient ``4 (A o R) V``.

    Parameters
    ----------
    V : array of shape (n,) or (n, r)
        ``w`` (``W = diag(w)``) or the ``r`` columns of weights.
    K, A : arrays of shape (n, n)
        Target and base kernels (not validated here: inner loop).

    Returns
    -------
    f : float
        The objective ``||K - A o (V V')||_F^2``.
    grad : ndarray of the shape of ``V``
        Its gradient ``4 (A o R) V`` with ``R = A o (V V') - K``.
    """
    V = np.asarray(V, dtype=float)
    Vm = V[:, None] if V.ndim == 1 else V
    R = A * (Vm @ Vm.T) - K
    AR = A * R
    return float(np.sum(R * R)), (4.0 * (AR @ Vm)).reshape(V.shape)


def _solution(name, status, V, K, A, n_iter, trace, t_setup, t_solve, extra):
    f, grad = conformal_objective(V, K, A)
    scale = float(np.sum(K * K)) or 1.0
    cert = {"objective": f, "relative_objective": f / scale,
            "grad_norm": float(np.linalg.norm(grad)), **extra}
    return Solution(solver=name, status=status, objective=f,
                    primal={"V": V, "kernel": A * (V @ V.T)}, dual={}, setup_time=t_setup,
                    solve_time=t_solve, iterations=n_iter, primal_residual=float("nan"),
                    dual_residual=float(np.linalg.norm(grad)), gap=float("nan"),
                    certificate=cert, certificate_kind="grad_norm", trace=pd.DataFrame(trace))


def conformal_search(K, A, V0=None, *, step=0.01, max_iter=1000):
    """The paper's fixed-step coordinate search for eq. (13) (munoz §3.4).

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric (indefinite) target kernel.
    A : array of shape (n, n)
        Symmetric base kernel (PSD for a PSD result; not required by the search).
    V0 : array of shape (n,) or (n, r), optional
        Start; default ``w = 1`` (``W = I``, as in the paper).
    step : float > 0
        The fixed constant added to or subtracted from one entry at a time.
    max_iter : int >= 1
        Maximum number of sweeps over all ``n r`` coordinates.

    Returns
    -------
    Solution
        ``primal["V"]`` (n, r), ``primal["kernel"]`` = ``A o (V V')``;
        ``objective`` = ``f(V)``; ``dual_residual`` = ``||grad f(V)||_F``;
        ``iterations`` = sweeps; ``certificate`` has ``objective``,
        ``relative_objective`` (``f / ||K||_F^2``), ``grad_norm``, ``n_moves``;
        ``trace`` one row per sweep: ``iter, objective, n_moves, grad_norm, seconds``.

    Raises
    ------
    ValueError
        Bad ``K``, ``A``, ``V0``, ``step`` or ``max_iter``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` sweeps all still improved ``f``.
    """
    t0 = time.perf_counter()
    K, A = _check_pair(K, A)
    n = K.shape[0]
    V = conformal_start(n) if V0 is None else _check_V(V0, n)
    if isinstance(step, bool) or not isinstance(step, numbers.Real) or not np.isfinite(step) \
            or step <= 0:
        raise ValueError(f"step must be a finite number > 0; got {step!r}")
    max_iter = check_int(max_iter, "max_iter", low=1)
    step = float(step)
    r = V.shape[1]
    R = A * (V @ V.T) - K
    f = float(np.sum(R * R))
    # a move must lower f by more than rounding can fake (no +step/-step cycling)
    thresh = 64 * np.finfo(float).eps * max(float(np.sum(K * K)), np.finfo(float).tiny)
    t_setup = time.perf_counter() - t0
    trace, total_moves, converged, sweep = [], 0, False, 0
    while sweep < max_iter:
        ts = time.perf_counter()
        moves = 0
        for i in range(n):
            Ai, Ri = A[i], R[i]
            for k in range(r):
                vik = V[i, k]
                for d in (step, -step):
                    u = Ai * V[:, k] * d
                    u[i] = Ai[i] * (2.0 * d * vik + d * d)
                    delta = 2.0 * (2.0 * Ri @ u + u @ u) - (2.0 * Ri[i] * u[i] + u[i] * u[i])
                    if delta < -thresh:
                        Ri += u           # row i (a view of R) ...
                        R[:, i] = Ri      # ... and column i
                        V[i, k] = vik + d
                        f += delta
                        moves += 1
                        break
        sweep += 1
        total_moves += moves
        R = A * (V @ V.T) - K  # refresh (no drift of the running updates)
        f = float(np.sum(R * R))
        grad = 4.0 * ((A * R) @ V)
        trace.append({"iter": sweep, "objective": f, "n_moves": moves,
                      "grad_norm": float(np.linalg.norm(grad)),
                      "seconds": time.perf_counter() - ts})
        if moves == 0:
            converged = True
            break
    if not converged:
        warnings.warn(f"conformal search stopped at max_iter={max_iter} sweeps while still "
                      f"improving (objective {f:.6g}); raise max_iter or step",
                      ConvergenceWarning, stacklevel=2)
    elapsed = time.perf_counter() - t0
    return _solution("conformal-search", "converged" if converged else "max_iter", V, K, A,
                     sweep, trace, t_setup, elapsed - t_setup,
                     {"n_moves": total_moves, "step": step})


def conformal_lbfgs(K, A, V0=None, *, tol=1e-10, max_iter=1000):
    """Minimize eq. (13) by L-BFGS-B with the analytic gradient ``4 (A o R) V``.

    The objective is scaled by ``1 / ||K||_F^2`` inside the optimizer, so ``tol``
    is relative: L-BFGS-B stops when the largest entry of the scaled gradient is
    at most ``tol`` (``gtol``) or when the relative decrease of the objective
    reaches machine precision (``ftol = eps``; a looser ``ftol`` stopped it with
    a relative gradient of 1e-8 on the test problems, ``eps`` gives about 1e-9).

    Parameters
    ----------
    K, A : arrays of shape (n, n)
        Target and base kernels.
    V0 : array of shape (n,) or (n, r), optional
        Start; default ``w = 1``.
    tol : float >= 0
        Tolerance on the projected gradient of the scaled objective
        (L-BFGS-B's ``gtol``; see above).
    max_iter : int >= 1
        L-BFGS-B iterations.

    Returns
    -------
    Solution
        As :func:`conformal_search`; ``status`` is ``"converged"``, ``"max_iter"``
        or ``"abnormal"`` (line search could not progress; the point returned is
        the best found); ``certificate["message"]`` is SciPy's;
        ``trace`` one row per iteration: ``iter, objective, grad_norm, seconds``.

    Raises
    ------
    ValueError
        Bad ``K``, ``A``, ``V0``, ``tol`` or ``max_iter``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached.
    """
    t0 = time.perf_counter()
    K, A = _check_pair(K, A)
    n = K.shape[0]
    V = conformal_start(n) if V0 is None else _check_V(V0, n)
    tol = _check_tol(tol)
    max_iter = check_int(max_iter, "max_iter", low=1)
    shape = V.shape
    scale = float(np.sum(K * K)) or 1.0
    last = {}

    def fun(x):
        f, g = conformal_objective(x.reshape(shape), K, A)
        last["x"], last["f"], last["g"] = x.copy(), f, g
        return f / scale, g.ravel() / scale

    trace = []
    tick = [time.perf_counter()]

    def callback(intermediate_result):
        x = intermediate_result.x
        if "x" not in last or not np.array_equal(last["x"], x):
            fun(x)
        now = time.perf_counter()
        trace.append({"iter": len(trace) + 1, "objective": last["f"],
                      "grad_norm": float(np.linalg.norm(last["g"])), "seconds": now - tick[0]})
        tick[0] = now

    t_setup = time.perf_counter() - t0
    res = scipy.optimize.minimize(fun, V.ravel(), jac=True, method="L-BFGS-B", callback=callback,
                                  options={"maxiter": max_iter, "gtol": tol, "ftol": np.finfo(float).eps,
                                           "maxcor": 20})
    V = res.x.reshape(shape)
    if res.status == 0:
        status = "converged"
    elif res.status == 1:
        status = "max_iter"
        warnings.warn(f"conformal L-BFGS-B stopped at max_iter={max_iter} "
                      f"(objective {res.fun * scale:.6g}): {res.message}",
                      ConvergenceWarning, stacklevel=2)
    else:
        status = "abnormal"
    elapsed = time.perf_counter() - t0
    return _solution("conformal-lbfgs", status, V, K, A, int(res.nit), trace, t_setup,
                     elapsed - t_setup, {"message": str(res.message), "n_evaluations": int(res.nfev)})


def conformal_fit(K, A, V0=None, *, solver="optimize", step=0.01, tol=1e-10, max_iter=1000):
    """Solve eq. (13) by name: ``"optimize"``, ``"search"`` or ``"lbfgs"``.

    Parameters
    ----------
    K, A : arrays of shape (n, n)
        Target and base kernels.
    V0 : array of shape (n,) or (n, r), optional
        Common start; default ``w = 1``.
    solver : {"optimize", "search", "lbfgs"}
        ``"search"``: :func:`conformal_search`; ``"lbfgs"``: :func:`conformal_lbfgs`
        from ``V0``; ``"optimize"``: L-BFGS-B from ``V0`` and L-BFGS-B from the
        search's end point, the better of the two (module docstring).
    step : float > 0
        Step of the search.
    tol : float >= 0
        Tolerance of L-BFGS-B.
    max_iter : int >= 1
        Per solver run (sweeps of the search, iterations of L-BFGS-B).

    Returns
    -------
    Solution
        For ``"optimize"``: the better run, with ``certificate["objectives"]``
        (``{"lbfgs": ..., "search": ..., "search+lbfgs": ...}``),
        ``certificate["chosen"]``, ``iterations`` summed over the three runs and
        ``trace`` their traces stacked with a ``phase`` column.

    Raises
    ------
    ValueError
        Unknown ``solver`` or bad arguments of the solvers.
    """
    if solver not in CONFORMAL_METHODS:
        raise ValueError(f"solver must be one of {list(CONFORMAL_METHODS)}; got {solver!r}")
    if solver == "search":
        return conformal_search(K, A, V0, step=step, max_iter=max_iter)
    if solver == "lbfgs":
        return conformal_lbfgs(K, A, V0, tol=tol, max_iter=max_iter)
    t0 = time.perf_counter()
    direct = conformal_lbfgs(K, A, V0, tol=tol, max_iter=max_iter)
    search = conformal_search(K, A, V0, step=step, max_iter=max_iter)
    polish = conformal_lbfgs(K, A, search.primal["V"], tol=tol, max_iter=max_iter)
    runs = {"lbfgs": direct, "search": search, "search+lbfgs": polish}
    chosen = "search+lbfgs" if polish.objective <= direct.objective else "lbfgs"
    best = runs[chosen]
    traces = [r.trace.assign(phase=name) for name, r in runs.items()]
    trace = pd.concat(traces, ignore_index=True)
    cert = dict(best.certificate)
    cert.update({"objectives": {name: r.objective for name, r in runs.items()},
                 "chosen": chosen})
    elapsed = time.perf_counter() - t0
    return Solution(solver="conformal-optimize", status=best.status, objective=best.objective,
                    primal=best.primal, dual={}, setup_time=0.0, solve_time=elapsed,
                    iterations=sum(int(r.iterations) for r in runs.values()),
                    primal_residual=float("nan"), dual_residual=best.dual_residual,
                    gap=float("nan"), certificate=cert, certificate_kind=best.certificate_kind,
                    trace=trace)


def conformal_extend(K_rows, A_rows, V):
    """Weights of new points by munoz eq. (14) (least squares on their kernel row).

    ``r = 1``: ``w_x = sum_i w_i K(i, x) A(i, x) / sum_i (w_i A(i, x))^2`` (0 when
    the denominator is 0).  ``r > 1``: ``v_x = pinv(B_x) K(x, .)'`` with
    ``B_x = diag(A(x, .)) V``, the minimum-norm least-squares solution.

    Parameters
    ----------
    K_rows : array of shape (m, n)
        Kernel ``K`` between new and training points.
    A_rows : array of shape (m, n)
        Base kernel ``A`` between new and training points.
    V : array of shape (n,) or (n, r)
        Fitted weights.

    Returns
    -------
    V_rows : ndarray of shape (m, r)
        The weights ``v_x`` of the new points.

    Raises
    ------
    ValueError
        On mismatched shapes.
    """
    K_rows = np.asarray(K_rows, dtype=float)
    A_rows = np.asarray(A_rows, dtype=float)
    V = np.asarray(V, dtype=float)
    V = V[:, None] if V.ndim == 1 else V
    if K_rows.ndim != 2 or A_rows.shape != K_rows.shape or K_rows.shape[1] != V.shape[0]:
        raise ValueError(f"K_rows and A_rows must both have shape (m, {V.shape[0]}); got "
                         f"{K_rows.shape} and {A_rows.shape}")
    if V.shape[1] == 1:
        B = A_rows * V[:, 0]
        num = np.sum(K_rows * B, axis=1)
        den = np.sum(B * B, axis=1)
        out = np.zeros_like(num)
        ok = den > 0
        out[ok] = num[ok] / den[ok]
        return out[:, None]
    # normal equations, one (r, r) system per row: G_x = V' diag(a_x^2) V, b_x = V'(a_x o k_x)
    G = np.einsum("mj,jk,jl->mkl", A_rows**2, V, V)
    b = (A_rows * K_rows) @ V
    return np.einsum("mkl,ml->mk", np.linalg.pinv(G, hermitian=True), b)


def conformal_rows(K_rows, A_rows, V):
    """Transformed rows ``K*(x, X_j) = A(x, X_j) v_x' v_j`` with ``v_x`` from eq. (14).

    Parameters
    ----------
    K_rows, A_rows : arrays of shape (m, n)
        Kernel ``K`` and base kernel ``A`` between new and training points.
    V : array of shape (n,) or (n, r)
        Fitted weights.

    Returns
    -------
    ndarray of shape (m, n)
        The rows ``K*(x, X)`` of the conformally transformed kernel.
    """
    V = np.asarray(V, dtype=float)
    V = V[:, None] if V.ndim == 1 else V
    Vx = conformal_extend(K_rows, A_rows, V)
    return np.asarray(A_rows, dtype=float) * (Vx @ V.T)
