"""The linear epsilon-SVR on explicit features: liblinear or libsvm, with krein's certificate.

The approximate path of the Krein SVR (:class:`krein.estimators.esvr.ESVR` with an
``approximation``) is the epsilon-SVR on the flipped approximation
``|K_approx| = Psi Psi'``, i.e. the LINEAR epsilon-SVR on the features ``Psi``
(Smola & Schoelkopf 2004, eqs. (2)-(3) with ``Phi = Psi``)::

    min_{w, b}  1/2 ||w||^2 + sum_i C_i max(0, |y_i - phi_i w - b| - epsilon).

* ``solver="libsvm"``: scikit-learn's ``SVR(kernel="linear")``, exactly this problem
  (the intercept unregularized, as the exact path's ``SVR(kernel="precomputed")``),
  ``O(n^2)`` kernel evaluations: small ``n``.  Its dual point ``u = alpha+ - alpha-``
  (``w = Phi' u``) is certified by the stationarity residual of the SVR dual
  (:func:`linear_svr_certificate`, the residual of
  :func:`krein.solvers.libsvm.svr_dual_stationarity` on ``K = Phi Phi'`` without
  forming it).
* ``solver="liblinear"``: scikit-learn's ``LinearSVR(loss="epsilon_insensitive",
  dual=True)`` (liblinear's dual coordinate descent for the L1-loss SVR, Ho & Lin
  2012), which scales to millions of points but REGULARIZES THE INTERCEPT: it solves
  ``min 1/2 (||w||^2 + b^2 / s^2) + sum_i C_i max(0, |y_i - phi_i w - b| - epsilon)``
  with the intercept scaling ``s = max_i ||phi_i||`` (the bias column has the size of
  the largest feature vector); it returns no dual point, so its certificate is the
  primal objective only.  Its coordinate order is drawn from a fixed seed
  (``random_state=0``), so a fit is reproducible.

References
----------
Smola & Schoelkopf (2004), "A tutorial on support vector regression", eqs. (2)-(3),
(10).  Ho & Lin (2012), "Large-scale linear support vector regression", JMLR 13.
Fan, Chang, Hsieh, Wang & Lin (2008), "LIBLINEAR".
"""

from __future__ import annotations

import time

import numpy as np

from ..projections import project_box_hyperplane
from .core import Solution
from .liblinear import LIBLINEAR_NO_LIMIT

__all__ = ["linear_svr", "linear_svr_certificate", "LINEAR_SVR_SOLVERS"]

#: The solvers of :func:`linear_svr`.
LINEAR_SVR_SOLVERS = ("libsvm", "liblinear")


def linear_svr_certificate(Phi, y, C, epsilon, u, b):
    """Stationarity of a dual point of the linear epsilon-SVR, and its primal objective.

    The dual (Smola & Schoelkopf 2004, eq. (10)) in ``beta = (alpha+, alpha-)``:
    minimize ``1/2 u' Phi Phi' u + epsilon 1'(alpha+ + alpha-) - y'u``,
    ``u = alpha+ - alpha-``, ``0 <= beta <= C``, ``1'u = 0``.  As
    :func:`krein.solvers.libsvm.svr_dual_stationarity` with ``K = Phi Phi'``, whose
    products ``K u = Phi (Phi' u)`` are formed from the features: the residual is
    ``L ||beta - P(beta - grad / L)||_inf`` with ``L = 2 ||Phi||_2^2`` (``2 ||K||_2``,
    the norm of the dual's Hessian; from the ``r x r`` matrix ``Phi'Phi``), zero iff
    ``beta`` is a KKT point, in the units of ``y``.

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features.
    y : ndarray of shape (n,)
        Targets.
    C : float > 0 or ndarray of shape (n,)
        Box bound(s).
    epsilon : float >= 0
        Tube width.
    u : ndarray of shape (n,)
        ``alpha+ - alpha-``.
    b : float
        Intercept (for the primal objective).

    Returns
    -------
    dict
        ``residual``, ``violation`` (box and ``1'u = 0``), ``objective`` (the dual,
        minimized) and ``primal_objective``.
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    w = Phi.T @ u
    Ku = Phi @ w
    beta = np.concatenate([np.maximum(u, 0.0), np.maximum(-u, 0.0)])
    grad = np.concatenate([Ku - y + epsilon, -(Ku - y) + epsilon])
    L = 2.0 * float(np.linalg.eigvalsh(Phi.T @ Phi)[-1]) if Phi.shape[1] else 0.0
    L = L or 1.0
    z = np.concatenate([np.ones(n), -np.ones(n)])
    p = project_box_hyperplane(beta - grad / L, z, 0.0, np.concatenate([Cv, Cv]))
    viol = max(float(np.max(np.abs(u) - Cv, initial=0.0)), abs(float(u.sum())))
    primal = 0.5 * float(w @ w) + float(np.sum(Cv * np.maximum(0.0, np.abs(y - Ku - b)
                                                                - epsilon)))
    return {"residual": float(L * np.max(np.abs(beta - p), initial=0.0)), "violation": viol,
            "objective": float(0.5 * u @ Ku + epsilon * np.abs(u).sum() - y @ u),
            "primal_objective": primal}


def linear_svr(Phi, y, C, epsilon, solver="liblinear", tol=1e-3, max_iter=-1):
    """Train the linear epsilon-SVR ``f(x) = phi(x) w + b`` on explicit features.

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features (rows ``phi_i``).
    y : ndarray of shape (n,)
        Targets.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or one bound per sample (``C = 1`` with ``sample_weight = C_i``).
    epsilon : float >= 0
        Tube width.
    solver : {"liblinear", "libsvm"}
        liblinear (intercept regularized, module docstring) or libsvm (exact).
    tol : float > 0
        Stopping tolerance of liblinear / libsvm.
    max_iter : int
        Iteration limit, -1 for none.

    Returns
    -------
    w : ndarray of shape (r,)
        Weight on the features.
    b : float
        Intercept.
    solution : krein.solvers.Solution
        libsvm: the dual point ``primal["u"]`` certified by
        :func:`linear_svr_certificate` (``dual_residual``, ``certificate_kind``
        ``"residual"``); liblinear: ``objective`` the primal of the problem it
        solves (module docstring), no dual point, no certificate kind.

    Raises
    ------
    ValueError
        For an unknown ``solver``.
    """
    from sklearn.svm import SVR, LinearSVR

    if solver not in LINEAR_SVR_SOLVERS:
        raise ValueError(f"solver must be one of {list(LINEAR_SVR_SOLVERS)}; got {solver!r}")
    y = np.asarray(y, dtype=float)
    per_sample = np.ndim(C) != 0
    weight = np.asarray(C, dtype=float) if per_sample else None
    Cfit = 1.0 if per_sample else float(C)
    t0 = time.perf_counter()
    if solver == "libsvm":
        svr = SVR(kernel="linear", C=Cfit, epsilon=float(epsilon), tol=tol, max_iter=max_iter)
        svr.fit(Phi, y, sample_weight=weight)
        seconds = time.perf_counter() - t0
        u = np.zeros(Phi.shape[0])
        u[svr.support_] = svr.dual_coef_[0]
        b = float(svr.intercept_[0])
        n_iter = int(np.sum(getattr(svr, "n_iter_", 0)))
        cert = linear_svr_certificate(Phi, y, C, epsilon, u, b)
        w = Phi.T @ u
        status = "max_iter" if max_iter > 0 and n_iter >= max_iter else "converged"
        return w, b, Solution(solver="libsvm", status=status, objective=cert["objective"],
                              primal={"u": u, "w": w}, dual={"intercept": b}, setup_time=0.0,
                              solve_time=float(seconds), iterations=n_iter,
                              primal_residual=cert["violation"],
                              dual_residual=cert["residual"], gap=float("nan"),
                              certificate=cert, intercept=b, certificate_kind="residual")
    scale = float(np.sqrt(np.max(np.einsum("ij,ij->i", Phi, Phi), initial=0.0)))
    svr = LinearSVR(loss="epsilon_insensitive", dual=True, C=Cfit, epsilon=float(epsilon),
                    tol=tol, max_iter=LIBLINEAR_NO_LIMIT if max_iter == -1 else int(max_iter),
                    intercept_scaling=max(scale, 1e-12), random_state=0)
    svr.fit(Phi, y, sample_weight=weight)
    seconds = time.perf_counter() - t0
    w = np.asarray(svr.coef_, dtype=float).ravel()
    b = float(np.ravel(svr.intercept_)[0])
    n_iter = int(np.max(svr.n_iter_))
    status = "max_iter" if max_iter != -1 and n_iter >= max_iter else "converged"
    Cv = np.broadcast_to(np.asarray(C, dtype=float), y.shape)
    P = 0.5 * float(w @ w) + 0.5 * (b / max(scale, 1e-12)) ** 2 + float(
        np.sum(Cv * np.maximum(0.0, np.abs(y - Phi @ w - b) - epsilon)))
    return w, b, Solution(solver="liblinear", status=status, objective=P, primal={"w": w},
                          dual={"intercept": b}, setup_time=0.0, solve_time=seconds,
                          iterations=n_iter, primal_residual=float("nan"),
                          dual_residual=float("nan"), gap=float("nan"),
                          certificate={"objective": P}, intercept=b)
