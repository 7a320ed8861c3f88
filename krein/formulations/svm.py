"""C-SVM formulations in CVXPY: the dual QP and the primal in an explicit feature map.

Symbols: ``K`` kernel (PSD here), ``y`` in {-1, +1}, ``Y = diag(y)``,
``G = Y K Y``, ``alpha`` dual variables, ``C`` box bound, ``u = y * alpha``.

Dual (e.g. loosli eq. 17; Luss & d'Aspremont eq. 1)::

    maximize    1'alpha - 1/2 u'K u
    subject to  y'alpha = 0,  0 <= alpha <= C

Primal in a feature map with rows ``L_i`` (``K = L L'``, e.g. ``L = V |lam|^(1/2)``)::

    minimize    1/2 ||w||^2 + C sum(xi)
    subject to  y_i (L_i w + b) >= 1 - xi_i,  xi >= 0

Both are DPP with ``C`` a ``cvxpy.Parameter``.

Choice of the quadratic term: with a dense full-rank ``K`` the dual written as
``quad_form(alpha, G)`` on a checked-PSD ``G`` is passed to QP-capable solvers
(Clarabel, OSQP, SCS) as the objective matrix directly, while
``sum_squares(L' u)`` adds ``r`` auxiliary variables and a dense ``r x n``
constraint block; ECOS has no quadratic objective (CVXPY must factor ``G``
itself and rejects ``quad_form`` on round-off-level negative eigenvalues), so
ECOS always gets the factor form.  The factor form wins when ``L`` is thin
(``4 r <= n``: ESVM-L, or kernels of low numerical rank).  The timings behind
this rule are in ``benchmarks/README.md`` (``benchmarks/esvm.py --forms``).
:func:`preferred_form` encodes this rule.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_positive, check_square_kernel
from ..spectrum import spectral_factor
from .base import Formulation, certified_psd_wrap, check_signed_labels

__all__ = ["SVMDual", "SVMPrimal", "optimal_intercept", "preferred_form", "psd_factor"]

#: Solvers that take a quadratic objective natively (quad_form is passed through).
_QP_NATIVE = {"CLARABEL", "OSQP", "SCS", "PIQP", "PROXQP", "QPALM", "CVXOPT", "GUROBI",
              "MOSEK", "CPLEX", "XPRESS", "HIGHS", "COPT", "DAQP", "QOCO"}


def preferred_form(solver, n, rank=None):
    """Pick the dual's quadratic form for a solver by the measured rule above.

    Parameters
    ----------
    solver : str
        CVXPY solver name.
    n : int
        Number of training points.
    rank : int, optional
        Number of columns of the available factor ``L``.

    Returns
    -------
    {"quad_form", "factor"}
        ``"factor"`` (``sum_squares(L' u)``) for solvers without a native QP
        interface or when ``4 rank <= n``, else ``"quad_form"``.
    """
    rank = n if rank is None else rank
    if str(solver).upper() not in _QP_NATIVE:
        return "factor"
    return "factor" if 4 * rank <= n else "quad_form"


def psd_factor(K, tol=None):
    """A factor ``L`` with ``L L' = K`` for a PSD ``K``, after checking it is PSD.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix expected to be PSD.
    tol : float, optional
        Eigenvalues above ``-tol`` count as zero; default
        ``sqrt(machine_eps) * max |lam|``-style relative tolerance ``n * eps * max|lam| * 100``.

    Returns
    -------
    L : ndarray of shape (n, r)
        ``V_r diag(lam_r)^(1/2)`` over the ``r`` eigenvalues ``> tol``.

    Raises
    ------
    ValueError
        If ``K`` has an eigenvalue below ``-tol`` (not PSD).
    """
    K = check_square_kernel(K)
    lam, V = np.linalg.eigh(K)
    scale = max(np.max(np.abs(lam)), 1e-300)
    if tol is None:
        tol = 100 * K.shape[0] * np.finfo(float).eps * scale
    if lam[0] < -tol:
        raise ValueError(
            f"K is not positive semidefinite: least eigenvalue {lam[0]:.6g} < -{tol:.3g}; "
            "correct its spectrum (krein.spectrum) or use an indefinite-kernel method (ESVC)"
        )
    return spectral_factor(V, lam, lam > tol)


def _C_parameter(C, n):
    """``cvxpy.Parameter`` for a box bound: scalar ``C``, or one bound per sample
    (``class_weight``: ``C_i = C * w[y_i]``, shape ``(n,)``); both DPP."""
    if np.ndim(C) == 0:
        return cp.Parameter(nonneg=True, name="C", value=check_positive(C, "C"))
    C = np.asarray(C, dtype=float)
    if C.shape != (n,) or not np.all(np.isfinite(C) & (C > 0)):
        raise ValueError(f"C must be a positive finite number or shape ({n},) array; "
                         f"got shape {C.shape}")
    return cp.Parameter(n, nonneg=True, name="C", value=C)


def _C_value(param):
    """The value of a ``C`` parameter: a float, or an ndarray of per-sample bounds."""
    v = param.value
    return float(v) if np.ndim(v) == 0 else np.asarray(v, dtype=float)


def optimal_intercept(f, y, C=1.0):
    """The bias minimizing the (weighted) hinge loss for fixed decision values.

    Minimizes ``H(b) = sum_i C_i max(0, 1 - y_i (f_i + b))`` exactly (a convex
    piecewise-linear function: its minimum is at a breakpoint ``b = y_i - f_i``);
    when the minimizers form an interval, its midpoint is returned (the choice
    libsvm makes when no alpha is free).

    Parameters
    ----------
    f : array of shape (n,)
        Decision values without bias, ``(K u)_i``.
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float or array of shape (n,)
        Slack weights: a scalar does not change the minimizer (kept for symmetry
        with the primal objective); per-sample weights ``C_i`` (``class_weight``)
        do.

    Returns
    -------
    b : float
        The hinge-optimal bias (midpoint of the minimizing interval).
    """
    f = np.asarray(f, dtype=float)
    y = np.asarray(y, dtype=float)
    if np.ndim(C) == 0:
        wgt = np.ones_like(f)
    else:
        wgt = np.broadcast_to(np.asarray(C, dtype=float), f.shape)
    pos, neg = y > 0, y < 0
    ot = np.argsort(1.0 - f[pos])
    t = (1.0 - f[pos])[ot]        # positive class: w_i max(0, t_i - b)
    wt = wgt[pos][ot]
    os_ = np.argsort(-1.0 - f[neg])
    s = (-1.0 - f[neg])[os_]      # negative class: w_i max(0, b - s_i)
    ws = wgt[neg][os_]
    ct = np.r_[0.0, np.cumsum(wt * t)]
    cwt = np.r_[0.0, np.cumsum(wt)]
    cs = np.r_[0.0, np.cumsum(ws * s)]
    cws = np.r_[0.0, np.cumsum(ws)]
    cand = np.unique(np.r_[t, s])

    def hinge(b):
        i = np.searchsorted(t, b, side="right")  # t[:i] <= b
        pos = (ct[-1] - ct[i]) - (cwt[-1] - cwt[i]) * b
        j = np.searchsorted(s, b, side="left")  # s[:j] < b
        neg = cws[j] * b - cs[j]
        return pos + neg

    H = hinge(cand)
    hmin = H.min()
    tol = 1e-12 * max(1.0, abs(hmin)) + 1e-12 * cand.size * float(wgt.max(initial=1.0))
    arg = cand[H <= hmin + tol]
    return float(0.5 * (arg.min() + arg.max()))


def _svm_certificate(alpha, y, C, Ku, uKu):
    """Primal/dual residuals and duality gap of the C-SVM at a dual point alpha.

    ``C`` is a float or one bound per sample (``class_weight``)."""
    u = y * alpha
    primal_res = max(abs(float(y @ alpha)), float(np.max(-alpha, initial=0.0)),
                     float(np.max(alpha - C, initial=0.0)))
    b = optimal_intercept(Ku, y, C)
    margins = y * (Ku + b)
    dual_obj = float(alpha.sum() - 0.5 * uKu)
    primal_obj = float(0.5 * uKu + np.sum(C * np.maximum(0.0, 1.0 - margins)))
    # scaled complementarity: alpha_i > 0 needs margin <= 1, alpha_i < C needs margin >= 1
    a = np.clip(alpha / C, 0.0, 1.0)
    kkt = np.maximum(a * np.maximum(0.0, margins - 1.0), (1.0 - a) * np.maximum(0.0, 1.0 - margins))
    return {
        "primal_residual": primal_res,
        "dual_residual": float(kkt.max(initial=0.0)),
        "gap": primal_obj - dual_obj,
        "primal_objective": primal_obj,
        "dual_objective": dual_obj,
        "intercept": b,
    }


class SVMDual(Formulation):
    """The C-SVM dual QP on a PSD kernel, DPP in ``C``.

    Parameters
    ----------
    y : array of shape (n,)
        Labels in {-1, +1}.
    K : array of shape (n, n), optional
        PSD kernel matrix.  Checked PSD (:func:`psd_factor`) unless
        ``psd_checked=True``.
    L : array of shape (n, r), optional
        Factor with ``K = L L'`` (PSD by construction).  Give ``K`` or ``L``
        (or both, consistent).
    C : float > 0, or array of shape (n,) of floats > 0
        Initial value of the ``C`` parameter: one box bound, or one per sample
        (``class_weight``: ``0 <= alpha_i <= C_i``).
    form : {"quad_form", "factor"}
        ``quad_form(alpha, Y K Y)`` or ``sum_squares((L' Y) alpha)``; see the
        module docstring and :func:`preferred_form`.
    psd_checked : bool
        The caller guarantees ``K`` is PSD by construction (for instance
        ``V |lam| V'`` from :class:`krein.spectrum.Spectrum`): ``form="factor"``
        then factors it without the PSD check.  ``form="quad_form"`` certifies
        ``K`` by its own eigenvalues either way before ``cvxpy.psd_wrap``
        (:func:`krein.formulations.base.certified_psd_wrap`; cvxpy issue #2362:
        a wrapped indefinite matrix gives "optimal" infeasible points).
    eigenvalues : array of shape (n,), optional
        The eigenvalues of ``K`` from the caller's own eigendecomposition (e.g.
        ``|lam|`` for the flipped kernel ``V |lam| V'`` it built), used by
        ``form="quad_form"`` to certify ``K`` instead of a second
        ``numpy.linalg.eigvalsh(K)`` here; they must be those of the ``K`` passed.

    Attributes
    ----------
    variables : {"alpha"}
    parameters : {"C"}
    constraints : {"balance": y'alpha = 0, "lower", "upper"}

    Raises
    ------
    ValueError
        On bad labels, shapes, ``C <= 0``, a non-PSD ``K`` or an unknown ``form``.

    References
    ----------
    Loosli, Ong & Canu (2013) eq. (17); Luss & d'Aspremont (2009) eq. (1).
    """

    name = "svm-dual"
    problem_class = "QP"

    def __init__(self, y, K=None, L=None, C=1.0, form="quad_form", psd_checked=False,
                 eigenvalues=None):
        y = check_signed_labels(y)
        n = y.size
        Cp = _C_parameter(C, n)
        if K is None and L is None:
            raise ValueError("give the PSD kernel K or a factor L (K = L L')")
        if form not in ("quad_form", "factor"):
            raise ValueError(f"form must be 'quad_form' or 'factor'; got {form!r}")
        if K is not None:
            K = check_square_kernel(K)
            if K.shape[0] != n:
                raise ValueError(f"K is {K.shape} but y has {n} entries")
        if L is not None:
            L = np.asarray(L, dtype=float)
            if L.ndim != 2 or L.shape[0] != n or not np.all(np.isfinite(L)):
                raise ValueError(f"L must be a finite (n, r) = ({n}, r) array; got shape {L.shape}")
        if form == "quad_form":
            if K is None:
                K = L @ L.T
                K = 0.5 * (K + K.T)
            # psd_wrap only on a matrix certified by its eigenvalues (cvxpy #2362), psd_checked
            # or not: Y K Y has the spectrum of K (Y orthogonal)
            lam = np.linalg.eigvalsh(K) if eigenvalues is None else eigenvalues
        elif L is None:
            L = psd_factor(K) if not psd_checked else _factor_trusted(K)
        self.y, self.K, self.L, self.form = y, K, L, form
        alpha = cp.Variable(n, name="alpha")
        if form == "quad_form":
            G = (y[:, None] * K) * y[None, :]
            quad = cp.quad_form(alpha, certified_psd_wrap(G, lam, name="K (the kernel of Y K Y)"))
        else:
            quad = cp.sum_squares((L.T * y) @ alpha)
        cons = {"balance": y @ alpha == 0, "lower": alpha >= 0, "upper": alpha <= Cp}
        problem = cp.Problem(cp.Maximize(cp.sum(alpha) - 0.5 * quad), list(cons.values()))
        super().__init__(problem, {"C": Cp}, {"alpha": alpha}, cons)

    def _Ku(self, u):
        return self.K @ u if self.K is not None else self.L @ (self.L.T @ u)

    def certificate(self):
        """KKT residual and duality gap of the C-SVM at the current ``alpha``.

        ``dual_residual`` is the largest scaled complementarity violation
        ``max_i max((alpha_i/C) [m_i - 1]_+, (1 - alpha_i/C) [1 - m_i]_+)`` with
        margins ``m = y (K u + b*)``; it is 0 exactly at a KKT point.

        ``gap = P(w, b*) - D(alpha)`` with ``w`` from ``u = y * alpha``, ``b*`` the
        hinge-optimal bias (:func:`optimal_intercept`) and the hinge slack; by weak
        duality it is >= 0 for feasible alpha and 0 exactly at the optimum.

        Returns
        -------
        certificate : dict
            ``primal_residual``, ``dual_residual``, ``gap``, ``primal_objective``,
            ``dual_objective`` and ``intercept``.
        """
        alpha = np.asarray(self.variables["alpha"].value, dtype=float)
        u = self.y * alpha
        Ku = self._Ku(u)
        return _svm_certificate(alpha, self.y, _C_value(self.parameters["C"]), Ku, float(u @ Ku))

    def coefficients(self, sv_tol=1e-7):
        """``(u, b)``: expansion coefficients ``y * alpha`` and the hinge-optimal bias.

        ``alpha`` is clipped to ``[0, C_i]`` and entries below ``sv_tol * C_i`` are set
        to zero: interior-point and first-order solvers return tiny positive
        values instead of exact zeros, which would otherwise all count as
        support vectors.

        Parameters
        ----------
        sv_tol : float, default=1e-7
            Relative threshold (a share of ``C``) below which ``alpha_i`` is zero.

        Returns
        -------
        u : ndarray of shape (n,)
            Expansion coefficients ``y * alpha``.
        b : float
            The bias of :func:`optimal_intercept`.
        """
        C = _C_value(self.parameters["C"])
        alpha = np.clip(np.asarray(self.variables["alpha"].value, dtype=float), 0.0, C)
        alpha[alpha <= sv_tol * C] = 0.0
        u = self.y * alpha
        return u, optimal_intercept(self._Ku(u), self.y, C)


def _factor_trusted(K):
    lam, V = np.linalg.eigh(K)
    return spectral_factor(V, lam, lam > 0)


class SVMPrimal(Formulation):
    """The C-SVM primal in an explicit feature map ``L`` (rows ``L_i``), DPP in ``C``.

    Parameters
    ----------
    y : array of shape (n,)
        Labels in {-1, +1}.
    L : array of shape (n, r)
        Feature map of the training points, e.g. ``V |lam|^(1/2)``.
    C : float > 0, or array of shape (n,) of floats > 0
        Weight of the slacks (a cvxpy Parameter: re-solves are DPP), or one
        weight per sample (``class_weight``: slack cost ``C' xi``, still DPP).

    Attributes
    ----------
    variables : {"w", "b", "xi"}
    parameters : {"C"}
    constraints : {"margin": y * (L w + b) >= 1 - xi (dual: alpha), "slack"}

    Raises
    ------
    ValueError
        On bad labels, shapes, NaN/inf or ``C <= 0``.
    """

    name = "svm-primal"
    problem_class = "QP"

    def __init__(self, y, L, C=1.0):
        y = check_signed_labels(y)
        n = y.size
        Cp = _C_parameter(C, n)
        L = np.asarray(L, dtype=float)
        if L.ndim != 2 or L.shape[0] != n or not np.all(np.isfinite(L)):
            raise ValueError(f"L must be a finite (n, r) = ({n}, r) array; got shape {np.shape(L)}")
        self.y, self.L = y, L
        w = cp.Variable(L.shape[1], name="w")
        b = cp.Variable(name="b")
        xi = cp.Variable(n, name="xi")
        slack_cost = Cp * cp.sum(xi) if Cp.ndim == 0 else Cp @ xi
        cons = {"margin": cp.multiply(y, L @ w + b) >= 1 - xi, "slack": xi >= 0}
        problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + slack_cost), list(cons.values()))
        super().__init__(problem, {"C": Cp}, {"w": w, "b": b, "xi": xi}, cons)

    def certificate(self):
        """Residuals and duality gap of the C-SVM primal at the current point.

        The gap is the primal objective at ``(w, b)`` with the exact hinge slack
        minus the dual objective at ``alpha`` = the margin constraint's dual
        value clipped to ``[0, C_i]``.

        Returns
        -------
        certificate : dict
            ``primal_residual``, ``dual_residual`` and ``gap`` (NaN before a
            solve gives duals), plus the objectives when the duals are known.
        """
        C = _C_value(self.parameters["C"])
        w = np.asarray(self.variables["w"].value, dtype=float)
        b = float(self.variables["b"].value)
        xi = np.asarray(self.variables["xi"].value, dtype=float)
        f = self.L @ w + b
        viol = np.maximum(0.0, 1.0 - xi - self.y * f)
        primal_res = float(max(viol.max(initial=0.0), np.max(-xi, initial=0.0)))
        P = 0.5 * float(w @ w) + float(np.sum(C * np.maximum(0.0, 1.0 - self.y * f)))
        dual = self.constraints["margin"].dual_value
        if dual is None:
            return {"primal_residual": primal_res, "dual_residual": float("nan"), "gap": float("nan")}
        alpha = np.clip(np.asarray(dual, dtype=float), 0.0, C)
        v = self.L.T @ (self.y * alpha)
        D = float(alpha.sum() - 0.5 * v @ v)
        return {
            "primal_residual": primal_res,
            "dual_residual": abs(float(self.y @ alpha)),
            "gap": P - D,
            "primal_objective": P,
            "dual_objective": D,
        }
