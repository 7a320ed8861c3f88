"""libsvm (scikit-learn's SVC on a precomputed kernel) as a krein solver.

The C-SVM dual by SMO (Chang & Lin 2011); on an indefinite kernel SMO still ends at a
stationary point (Lin & Lin 2003).  Every point is certified by krein's own code
(:func:`libsvm_solution`), not by libsvm's stopping test.
"""

from __future__ import annotations

import time

import numpy as np

from .core import Solution

__all__ = ["libsvm_binary", "libsvm_solution", "libsvm_solve", "libsvm_svc", "libsvm_dual", "libsvm_nu_binary",
           "libsvm_mod_svm", "libsvm_svr", "svr_dual_stationarity"]


def libsvm_binary(K, y, C, tol=1e-3, max_iter=-1, cache_size=200):
    """Solve the C-SVM dual on a precomputed kernel with libsvm (scikit-learn's SVC).

    On an indefinite ``K`` libsvm's SMO still terminates at a stationary point
    (Lin & Lin 2003), which is what the "direct SVM" baseline uses.

    Parameters
    ----------
    K : array of shape (n, n)
        Precomputed (possibly indefinite) training kernel.
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or array of shape (n,)
        Box bound, or one bound ``C_i`` per sample (``0 <= alpha_i <= C_i``; passed
        to libsvm as ``C = 1`` with ``sample_weight = C_i``, which libsvm reads as a
        per-sample box, as scikit-learn's ``class_weight``).
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        -1 for no limit.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    u : ndarray of shape (n,)
        ``y * alpha`` (zero off the support vectors).
    b : float
        Intercept, so that ``f(x) = k(x, X) u + b``.
    n_iter : int
        Number of libsvm (SMO) iterations.
    """
    from sklearn.svm import SVC

    if np.ndim(C) == 0:
        svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter, cache_size=cache_size)
        svc.fit(K, y)
    else:
        svc = SVC(kernel="precomputed", C=1.0, tol=tol, max_iter=max_iter, cache_size=cache_size)
        svc.fit(K, y, sample_weight=np.asarray(C, dtype=float))
    u = np.zeros(K.shape[0])
    u[svc.support_] = svc.dual_coef_[0]
    # SVC orders classes [-1, +1], so its decision is positive for +1: f = K u + b.
    n_iter = int(np.sum(getattr(svc, "n_iter_", [0])))
    return u, float(svc.intercept_[0]), n_iter


def libsvm_solution(K, y, C, u, b, n_iter, *, max_iter=-1, solve_time=float("nan")):
    """A :class:`~krein.solvers.Solution` for a libsvm point, certified by krein.

    The certificate does not trust libsvm's own stopping test: it is the
    stationarity residual of the C-SVM dual (SVM-DU) at ``alpha = y * u``
    computed from ``K``, ``y`` and ``C``
    (:func:`krein.formulations.hull.svm_dual_stationarity`, the projected-gradient
    mapping, zero iff ``alpha`` is a KKT point of the box-constrained QP, in the
    units of libsvm's ``tol``).  It holds for any symmetric ``K``, so it also
    certifies the stationary points libsvm returns on indefinite kernels.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel libsvm was given.
    y : ndarray of shape (n,) in {-1, +1}
    C : float > 0 or ndarray of shape (n,)
        Box bound(s) given to libsvm.
    u : ndarray of shape (n,)
        ``y * alpha``, as :func:`libsvm_binary` returned it.
    b : float
        libsvm's intercept.
    n_iter : int
        libsvm's iteration count.
    max_iter : int
        libsvm's iteration limit (-1: none); reaching it gives status ``"max_iter"``.
    solve_time : float
        Seconds spent in libsvm.

    Returns
    -------
    krein.solvers.Solution
        ``solver="libsvm"``, ``status`` ``"converged"`` or ``"max_iter"``,
        ``objective`` the dual objective ``W(alpha)``, ``primal`` ``{"alpha", "u"}``,
        ``dual`` ``{"intercept"}``, ``primal_residual`` the largest constraint
        violation, ``dual_residual`` the stationarity residual, ``gap`` NaN (no
        duality gap on an indefinite kernel), ``certificate`` the dict of
        :func:`~krein.formulations.hull.svm_dual_stationarity`, ``intercept`` ``b``,
        ``certificate_kind`` ``"residual"`` (the stationarity residual).
    """
    from ..formulations.hull import svm_dual_stationarity

    y = np.asarray(y, dtype=float)
    u = np.asarray(u, dtype=float)
    alpha = y * u
    cert = svm_dual_stationarity(alpha, K, y, C)
    status = "max_iter" if (max_iter is not None and max_iter > 0 and n_iter >= max_iter) \
        else "converged"
    return Solution(solver="libsvm", status=status, objective=cert["objective"],
                    primal={"alpha": alpha, "u": u}, dual={"intercept": float(b)},
                    setup_time=0.0, solve_time=float(solve_time), iterations=int(n_iter),
                    primal_residual=cert["violation"], dual_residual=cert["residual"],
                    gap=float("nan"), certificate=dict(cert), intercept=float(b),
                    certificate_kind="residual")


def libsvm_svc(K, y, C=1.0):
    """Fit scikit-learn's ``SVC(kernel="precomputed", C=C)`` on ``K``: libsvm's model itself.

    For the callers that need libsvm's own multiclass model rather than one binary
    problem: the support vectors of an SVC on an MDS kernel (the weights of munoz
    §4 in :class:`~krein.estimators.Bending` and :class:`~krein.estimators.NearestPSD`)
    and the stationary point Haasdonk's after-training criteria read (§7.4).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Precomputed kernel.
    y : array of shape (n,)
        Labels (two or more classes; one-vs-one as scikit-learn).
    C : float > 0
        Box bound.

    Returns
    -------
    sklearn.svm.SVC
        The fitted model (``support_``, ``dual_coef_``, ``intercept_``, ``classes_``).
    """
    from sklearn.svm import SVC

    return SVC(kernel="precomputed", C=float(C)).fit(K, y)


def libsvm_dual(K, y, C, tol=1e-3, max_iter=-1, cache_size=200):
    """The ``"libsvm"`` entry of the solver table: the C-SVM dual, as a Solution only.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix given to libsvm.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    C : float > 0 or ndarray of shape (n,)
        Box bound(s).
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        -1 for no limit.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    krein.solvers.Solution
        :func:`libsvm_solution`: ``primal["u"]`` is ``y * alpha``, ``intercept`` b.
    """
    return libsvm_solve(K, y, C, tol=tol, max_iter=max_iter, cache_size=cache_size)[2]


def libsvm_mod_svm(K, y, C, tol=1e-3, max_iter=-1, cache_size=200):
    """Mod SVM (luss §5.1) by libsvm: the C-SVM dual on ``G = K K'``, as a complete Solution.

    The kernel enters only the separation constraints, so the dual is the C-SVM dual
    on ``G = K K'``; its point ``beta = y * u`` gives the model's coefficients
    ``alpha = K' u`` on the kernel rows, ``f(x) = k(x, X) alpha + b``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Training kernel.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    C : float > 0 or ndarray of shape (n,)
        Box bound(s).
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        -1 for no limit.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    krein.solvers.Solution
        :func:`libsvm_solution` on ``G`` (the SVM-dual stationarity residual on ``G``),
        with ``primal["beta"]`` the dual point and ``coef`` the coefficients
        ``K' u`` applied to the raw kernel rows.
    """
    import dataclasses

    G = K @ K.T
    t0 = time.perf_counter()
    u, b, n_iter = libsvm_binary(G, y, C, tol=tol, max_iter=max_iter, cache_size=cache_size)
    seconds = time.perf_counter() - t0
    sol = libsvm_solution(G, y, C, u, b, n_iter, max_iter=max_iter, solve_time=seconds)
    primal = {**sol.primal, "beta": np.asarray(y, dtype=float) * u}
    return dataclasses.replace(sol, primal=primal, coef=K.T @ u)


def libsvm_nu_binary(K, y, nu, tol=1e-3, cache_size=200):
    """The nu-SVC dual of libsvm on a precomputed kernel (scikit-learn's NuSVC).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Precomputed (possibly indefinite) kernel.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    nu : float in (0, 1]
        libsvm's ``nu``.
    tol : float
        libsvm stopping tolerance.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    alpha : ndarray of shape (n,) or None
        ``|y_i alpha_i|`` of the nu-SVC dual (zero off the support vectors); None when
        libsvm returned non-finite coefficients (no free support vector: its margin
        ``r`` is 0 and scikit-learn rejects the rescaled point).
    n_iter : int
        libsvm's iterations (0 when ``alpha`` is None).
    """
    from sklearn.svm import NuSVC

    svc = NuSVC(kernel="precomputed", nu=nu, tol=tol, cache_size=cache_size)
    try:
        svc.fit(K, y)
    except ValueError as exc:
        if "not finite" not in str(exc):
            raise
        return None, 0
    alpha = np.zeros(K.shape[0])
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha, int(np.sum(getattr(svc, "n_iter_", [0])))


def libsvm_solve(K, y, C, tol=1e-3, max_iter=-1, cache_size=200):
    """:func:`libsvm_binary` plus the krein-certified :func:`libsvm_solution`.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix given to libsvm.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    C : float > 0 or ndarray of shape (n,)
        Box bound(s).
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        -1 for no limit.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    u : ndarray of shape (n,)
        ``y * alpha``.
    b : float
        Intercept, so that ``f(x) = k(x, X) u + b``.
    solution : krein.solvers.Solution
        The point with krein's certificate (:func:`libsvm_solution`).
    """
    t0 = time.perf_counter()
    u, b, n_iter = libsvm_binary(K, y, C, tol=tol, max_iter=max_iter, cache_size=cache_size)
    seconds = time.perf_counter() - t0
    return u, b, libsvm_solution(K, y, C, u, b, n_iter, max_iter=max_iter, solve_time=seconds)


def libsvm_dual_point(K, model, *, y=None, C=None, epsilon=None, nu=None, tol=1e-4,
                      max_iter=-1):
    """libsvm's dual point of the standard SVM, SVR or one-class SVM on a PSD ``K``.

    The gap checks of the IndefiniteSVM loops (:class:`krein.solvers.indefinite.Certifier`)
    solve this on the proxy kernel.  A solve stopped by ``max_iter`` is not an error
    here (a bound at its point is certified all the same), so its
    ``ConvergenceWarning`` is silenced.  ``tol`` is relative to the scale of
    libsvm's gradient: for svc and svr (box ``C_i``) it is in the units of the margin
    and of ``y``, as libsvm measures it; for one-class (``alpha`` summing to
    ``nu n``, gradient ``K alpha``) libsvm's tolerance is multiplied by
    ``max_i K_ii``, so that ``K`` and ``s K`` take the same SMO iterations.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        PSD precomputed kernel.
    model : {"svc", "svr", "one-class"}
        The SVM (:data:`krein.formulations.indefinite.MODELS`).
    y : ndarray of shape (n,), optional
        Labels in {-1, +1} (svc) or targets (svr).
    C : ndarray of shape (n,), optional
        Per-sample box bounds (svc, svr; libsvm's ``C = 1`` with ``sample_weight = C_i``).
    epsilon : float, optional
        Tube width (svr).
    nu : float, optional
        One-class parameter.
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        Cap on the SMO iterations (-1: none).

    Returns
    -------
    v : ndarray of shape (n,)
        The point in u-space: ``y * alpha`` (svc), ``alpha+ - alpha-`` (svr), ``alpha``
        scaled to sum to one (one-class).
    n_iter : int
        SMO iterations.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC, SVR, OneClassSVM

    n = K.shape[0]
    v = np.zeros(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if model == "svc":
            # per-sample bounds (class_weight): libsvm's C = 1 with sample_weight = C_i
            est = SVC(kernel="precomputed", C=1.0, tol=tol, max_iter=max_iter).fit(
                K, y, sample_weight=C)
        elif model == "svr":
            est = SVR(kernel="precomputed", C=1.0, epsilon=epsilon, tol=tol,
                      max_iter=max_iter).fit(K, y, sample_weight=C)
        else:
            diag = float(np.max(np.diagonal(K))) if n else 0.0
            scale = diag if np.isfinite(diag) and diag > 0 else 1.0
            est = OneClassSVM(kernel="precomputed", nu=nu, tol=tol * scale,
                              max_iter=max_iter).fit(K)
    v[est.support_] = est.dual_coef_[0]
    if model == "one-class":
        v /= max(v.sum(), np.finfo(float).tiny)
    return v, int(np.sum(getattr(est, "n_iter_", 0)))


def libsvm_linear(Phi, y, C, tol=1e-3, max_iter=-1):
    """Solve the linear C-SVM on explicit features with libsvm (``SVC(kernel="linear")``).

    The same problem as the kernel SVM on ``Phi Phi'`` (unregularized intercept);
    ``O(n^2)`` kernel evaluations, so for small ``n``
    (:func:`krein.solvers.linear.linear_svm` certifies the point).

    Parameters
    ----------
    Phi : ndarray of shape (n, r)
        Features.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or per-sample bounds (libsvm's ``C = 1`` with ``sample_weight = C_i``).
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        -1 for no limit.

    Returns
    -------
    u : ndarray of shape (n,)
        ``y * alpha`` (zero off the support vectors); the weight is ``Phi' u``.
    b : float
        Intercept.
    n_iter : int
        SMO iterations.
    """
    from sklearn.svm import SVC

    per_sample = np.ndim(C) != 0
    svc = SVC(kernel="linear", C=1.0 if per_sample else float(C), tol=tol, max_iter=max_iter)
    svc.fit(Phi, y, sample_weight=np.asarray(C, dtype=float) if per_sample else None)
    u = np.zeros(Phi.shape[0])
    u[svc.support_] = svc.dual_coef_[0]
    return u, float(svc.intercept_[0]), int(np.sum(getattr(svc, "n_iter_", [0])))


def svr_dual_stationarity(u, K, y, C, epsilon):
    """Stationarity residual of a point of the epsilon-SVR dual (Smola & Schoelkopf 2004, eq. 10).

    The dual in ``beta = (alpha+, alpha-)``: minimize
    ``1/2 u'K u + epsilon 1'(alpha+ + alpha-) - y'u`` with ``u = alpha+ - alpha-``,
    ``0 <= beta <= C``, ``1'u = 0`` (libsvm's problem; any symmetric ``K``).  ``u``
    is split as ``alpha+ = max(u, 0)``, ``alpha- = max(-u, 0)`` (at a solution
    with ``epsilon > 0`` at most one of each pair is nonzero).  The residual is
    the gradient mapping ``L ||beta - P(beta - grad / L)||_inf``, ``P`` the exact
    projection onto the feasible set, ``L = 2 max_i sum_j |K_ij|`` (a bound on
    the Hessian's norm): zero iff ``beta`` is a KKT point, in the units of ``y``
    (libsvm's ``tol``).

    Parameters
    ----------
    u : array-like of shape (n,)
        ``alpha+ - alpha-``: the coefficients of ``f(x) = k(x, X) u + b``.
    K : array-like of shape (n, n)
        Symmetric kernel matrix.
    y : array-like of shape (n,)
        Targets.
    C : float > 0 or array-like of shape (n,)
        Box bound(s).
    epsilon : float >= 0
        Tube width.

    Returns
    -------
    dict
        ``residual`` (the gradient mapping), ``violation`` (largest violation of
        the box and of ``1'u = 0``) and ``objective`` (the dual objective, minimized).
    """
    from ..projections import project_box_hyperplane

    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    u = np.asarray(u, dtype=float)
    n = y.size
    Cv = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    beta = np.concatenate([np.maximum(u, 0.0), np.maximum(-u, 0.0)])
    Ku = K @ u
    grad = np.concatenate([Ku - y + epsilon, -(Ku - y) + epsilon])
    L = 2.0 * float(np.max(np.abs(K).sum(axis=1), initial=0.0)) or 1.0
    z = np.concatenate([np.ones(n), -np.ones(n)])
    p = project_box_hyperplane(beta - grad / L, z, 0.0, np.concatenate([Cv, Cv]))
    viol = max(float(np.max(np.abs(u) - Cv, initial=0.0)), abs(float(u.sum())))
    return {"residual": float(L * np.max(np.abs(beta - p), initial=0.0)), "violation": viol,
            "objective": float(0.5 * u @ Ku + epsilon * np.abs(u).sum() - y @ u)}


def libsvm_svr(K, y, C, epsilon, tol=1e-3, max_iter=-1, cache_size=200):
    """The epsilon-SVR dual on a precomputed kernel by libsvm (scikit-learn's SVR), certified.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Precomputed kernel (PSD for a global optimum; libsvm stops at a stationary
        point otherwise).
    y : ndarray of shape (n,)
        Targets.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or per-sample bounds (libsvm's ``C = 1`` with ``sample_weight = C_i``).
    epsilon : float >= 0
        Tube width.
    tol : float
        libsvm stopping tolerance.
    max_iter : int
        -1 for no limit.
    cache_size : float
        libsvm kernel cache (MB).

    Returns
    -------
    u : ndarray of shape (n,)
        ``alpha+ - alpha-`` (zero off the support vectors).
    b : float
        Intercept, so that ``f(x) = k(x, X) u + b``.
    solution : krein.solvers.Solution
        ``solver="libsvm"``, certified by :func:`svr_dual_stationarity`
        (``dual_residual``; ``certificate_kind="residual"``).
    """
    from sklearn.svm import SVR

    per_sample = np.ndim(C) != 0
    svr = SVR(kernel="precomputed", C=1.0 if per_sample else float(C), epsilon=float(epsilon),
              tol=tol, max_iter=max_iter, cache_size=cache_size)
    t0 = time.perf_counter()
    svr.fit(K, y, sample_weight=np.asarray(C, dtype=float) if per_sample else None)
    seconds = time.perf_counter() - t0
    u = np.zeros(K.shape[0])
    u[svr.support_] = svr.dual_coef_[0]
    b = float(svr.intercept_[0])
    n_iter = int(np.sum(getattr(svr, "n_iter_", 0)))
    cert = svr_dual_stationarity(u, K, y, C, epsilon)
    status = "max_iter" if (max_iter is not None and max_iter > 0 and n_iter >= max_iter) \
        else "converged"
    sol = Solution(solver="libsvm", status=status, objective=cert["objective"],
                   primal={"u": u}, dual={"intercept": b}, setup_time=0.0,
                   solve_time=float(seconds), iterations=n_iter,
                   primal_residual=cert["violation"], dual_residual=cert["residual"],
                   gap=float("nan"), certificate=dict(cert), intercept=b,
                   certificate_kind="residual")
    return u, b, sol
