"""The linear C-SVM on explicit features: liblinear, libsvm or a CVXPY solver, certified.

The approximate path of the kernel classifiers
(:mod:`krein.estimators.approximate`) trains linear models on signed Nyström
features; :func:`linear_svm` solves the binary problem and returns the complete
:class:`~krein.solvers.Solution` (the duality gap of :func:`linear_svm_certificate`
and what it measures), which the estimators only store.

``solver="liblinear"``: scikit-learn's ``LinearSVC(loss="hinge", dual=True)``
(liblinear's dual coordinate descent), which REGULARIZES THE INTERCEPT (intercept
scaling ``max_i ||phi_i||``) and returns no dual point; ``"libsvm"``:
``SVC(kernel="linear")`` through :func:`krein.solvers.libsvm.libsvm_linear`, the
exact problem (``O(n^2)`` kernel evaluations); ``"ipm"``: the same exact problem by
the primal-dual interior-point method of :func:`krein.solvers.linear_ipm.linear_svm_ipm`
(Ferris & Munson 2002; ``O(n d^2)`` per iteration, for ``n >> d``), to a relative
duality gap of at most ``min(tol, 1e-6)``; a CVXPY solver name: the primal
:class:`~krein.formulations.SVMPrimal` (exact).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from ..formulations.svm import SVMPrimal
from .core import Solution, solve
from .liblinear import liblinear_solve
from .libsvm import libsvm_linear
from .linear_ipm import linear_svm_ipm

__all__ = ["linear_svm", "linear_svm_certificate", "IPM_GAP_TOL"]

#: The largest relative duality gap ``solver="ipm"`` stops at (``tol`` may ask for less).
IPM_GAP_TOL = 1e-6


def _kind(cert):
    """``"gap"`` when the certificate has a finite duality gap, else ``""`` (none)."""
    return "gap" if np.isfinite(cert["gap"]) else ""


def linear_svm_certificate(Phi, y, C, w, b, alpha=None):
    """Objectives and duality gap of the linear C-SVM at ``(w, b)`` (and ``alpha``).

    Primal ``P = 1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i (phi_i w + b))``; with a dual
    point ``alpha`` (clipped to ``[0, C_i]``) the dual
    ``D = sum alpha - 1/2 ||Phi' (y alpha)||^2`` and the gap ``P - D >= 0`` (zero at
    the optimum, where also ``w = Phi' (y alpha)`` and ``y' alpha = 0``).

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Box bound(s).
    w : ndarray of shape (r,)
        Weight.
    b : float
        Intercept.
    alpha : ndarray of shape (n,), optional
        Dual point.

    Returns
    -------
    dict
        ``objective`` (P), ``primal_residual`` (``|y' alpha|`` relative to
        ``max C``, NaN without ``alpha``), ``dual_residual`` (``||w - Phi'(y alpha)||``
        relative to ``max(1, ||w||)``), ``dual_objective`` and ``gap`` (relative to
        ``max(1, |P|)``); NaN where ``alpha`` is missing.
    """
    f = Phi @ w + b
    P = 0.5 * float(w @ w) + float(np.sum(C * np.maximum(0.0, 1.0 - y * f)))
    out = {"objective": P, "primal_residual": float("nan"), "dual_residual": float("nan"),
           "dual_objective": float("nan"), "gap": float("nan")}
    if alpha is None:
        return out
    alpha = np.clip(np.asarray(alpha, dtype=float), 0.0, C)
    v = Phi.T @ (y * alpha)
    D = float(alpha.sum() - 0.5 * v @ v)
    out.update({"dual_objective": D, "gap": (P - D) / max(1.0, abs(P)),
                "primal_residual": abs(float(y @ alpha)) / float(np.max(C)),
                "dual_residual": float(np.linalg.norm(w - v)) / max(1.0, float(np.linalg.norm(w)))})
    return out


def linear_svm(Phi, y, C, solver="liblinear", tol=1e-3, max_iter=-1, solver_options=None):
    """Train the binary linear C-SVM ``f(x) = phi(x) w + b`` on explicit features.

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features (rows ``phi_i``).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or per-sample bounds ``C_i`` (``class_weight``).
    solver : str
        ``"liblinear"`` (intercept regularized, module docstring), ``"libsvm"``
        (``SVC(kernel="linear")``, exact), ``"ipm"`` (the interior-point method of
        :func:`~krein.solvers.linear_ipm.linear_svm_ipm`, exact) or an installed
        CVXPY solver name (upper case; :class:`~krein.formulations.SVMPrimal`, exact).
    tol : float > 0
        Stopping tolerance of liblinear / libsvm; for ``"ipm"`` the relative
        duality gap it stops at is ``min(tol, IPM_GAP_TOL)``.
    max_iter : int
        Iteration limit of liblinear / libsvm / the interior-point method (-1: none;
        :data:`~krein.solvers.linear_ipm.IPM_MAX_ITER` for ``"ipm"``).
    solver_options : dict, optional
        Passed to the CVXPY solver.

    Returns
    -------
    w : ndarray of shape (r,)
        Weight on the features.
    b : float
        Intercept.
    solution : krein.solvers.Solution
        Complete: with :func:`linear_svm_certificate` (liblinear: the primal
        objective only), the intercept, and ``certificate_kind`` ``"gap"`` (the
        relative duality gap of the linear SVM; ``""`` for liblinear, which returns
        no dual point).  ``"ipm"`` records ``status`` ``"converged"`` (gap reached),
        ``"max_iter"`` or ``"stalled"`` (round-off) and its iterations.
    """
    y = np.asarray(y, dtype=float)
    n, r = Phi.shape
    t0 = time.perf_counter()
    alpha = None
    if solver == "liblinear":
        w, b, lin = liblinear_solve(Phi, y, C, tol=tol, max_iter=max_iter)
        n_iter, status = lin.iterations, lin.status
    elif solver == "libsvm":
        u, b, n_iter = libsvm_linear(Phi, y, C, tol=tol, max_iter=max_iter)
        alpha = y * u
        w = Phi.T @ u
        status = "max_iter" if max_iter > 0 and n_iter >= max_iter else "converged"
    elif solver == "ipm":
        alpha, w, b, info = linear_svm_ipm(Phi, y, C, tol=min(float(tol), IPM_GAP_TOL),
                                           max_iter=max_iter)
        n_iter, status = info["iterations"], info["status"]
    else:
        f = SVMPrimal(y, Phi, C=C)
        sol = solve(f, solver, **(solver_options or {}))
        w = np.asarray(f.variables["w"].value, dtype=float)
        b = float(f.variables["b"].value)
        alpha = np.asarray(f.constraints["margin"].dual_value, dtype=float)
        cert = linear_svm_certificate(Phi, y, C, w, b, alpha)
        # the CVXPY solution completed here, once: krein's certificate of the linear SVM
        # (its relative gap), the clipped dual point, the intercept
        sol = dataclasses.replace(sol, certificate={**sol.certificate, **cert},
                                  primal={**sol.primal, "alpha": np.clip(alpha, 0.0, C)},
                                  intercept=b, certificate_kind=_kind(cert))
        return w, b, sol
    seconds = time.perf_counter() - t0
    cert = linear_svm_certificate(Phi, y, C, w, b, alpha)
    sol = Solution(solver=solver, status=status, objective=cert["objective"],
                   primal={"w": w} if alpha is None else {"w": w, "alpha": alpha},
                   dual={"intercept": b}, setup_time=0.0, solve_time=seconds,
                   iterations=n_iter, primal_residual=cert["primal_residual"],
                   dual_residual=cert["dual_residual"], gap=cert["gap"], certificate=cert,
                   intercept=b, certificate_kind=_kind(cert))
    return w, b, sol
