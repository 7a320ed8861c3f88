"""Lin & Lin's convexified SVM ("Mod SVM" of Luss & d'Aspremont 2009, §5.1).

Luss & d'Aspremont (2009, §5.1; also §1.1): "an SVM modification (denoted Mod SVM)
suggested in [Lin & Lin 2003] where a nonconvex quadratic objective function is
made convex by replacing the indefinite kernel with the identity matrix.  The
kernel only appears in linear inequality constraints that separate the data."

Luss & d'Aspremont do not write the problem out.  Substituting
``w = sum_j alpha_j y_j Phi(x_j)`` into the SVM primal gives
``min 1/2 alpha'Q alpha + C sum xi`` s.t. ``Q alpha + b y >= 1 - xi``, ``xi >= 0``
(``Q = Y K Y``); replacing the quadratic term ``alpha'Q alpha`` "by the identity"
gives ``1/2 alpha'alpha`` with the kernel left only in the separation constraints,
which is our reading of Lin & Lin (2003, "A study on sigmoid kernels for SVM and the
training of non-PSD kernels by SMO-type methods"; that report is not among the
sources here, so the statement above is the one we implement).  With the expansion
coefficients ``c = y * alpha`` (``||c|| = ||alpha||``; we call them ``alpha`` below)::

    minimize    1/2 ||alpha||^2 + C sum_i xi_i
    subject to  y_i (sum_j alpha_j k(x_i, x_j) + b) >= 1 - xi_i,   xi_i >= 0,

with ``f(x) = sum_j alpha_j k(x, x_j) + b``.  ``alpha`` is free in sign.  This is
exactly the linear soft-margin SVM (unregularized bias) on the *empirical kernel
map* ``x -> (k(x, x_1), ..., k(x, x_n))``, with weight vector ``w = alpha``: a
strictly convex QP for any symmetric (or even rectangular) ``K``.

Its Lagrange dual (multipliers ``beta`` of the margin constraints)::

    maximize    1'beta - 1/2 ||K' (y * beta)||^2
    subject to  y'beta = 0,  0 <= beta <= C,

with ``alpha = K' (y * beta)``: the C-SVM dual on the PSD kernel ``K K'``
(the Gram matrix of the empirical kernel map), which libsvm solves
(``solver="libsvm"`` in :class:`krein.estimators.modsvm.ModSVC`).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .base import Formulation, relative_gap
from .lpsvm import MarginData, margin_problem

__all__ = ["ModSVM"]


class ModSVM(MarginData, Formulation):
    """Lin & Lin's modified SVM: identity regularizer, kernel only in the margin constraints.

    Parameters
    ----------
    K : array of shape (n, m)
        Kernel between the training points (rows) and the expansion points
        (columns; usually the same points, ``m = n``).  Any real matrix: it only
        enters linear constraints.
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or array of shape (n,)
        Weight of the slacks (a DPP parameter), or one weight per sample (class weights).
    reusable : bool, default=False
        Make ``K`` and ``y`` Parameters as well
        (:func:`krein.formulations.lpsvm.margin_problem`), so that one compiled
        problem is re-solved for other blocks of the same shape after
        :meth:`set_data`; the same problem and solution.

    Attributes
    ----------
    variables : {"alpha", "b", "xi"}
        ``alpha`` of shape (m,), the expansion coefficients of ``f``.
    parameters : {"C"}
    constraints : {"margin" (dual: beta), "slack"}

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, labels or ``C <= 0``.

    References
    ----------
    H.-T. Lin & C.-J. Lin (2003), "A study on sigmoid kernels for SVM and the
    training of non-PSD kernels by SMO-type methods", Tech. report, National Taiwan
    University; R. Luss & A. d'Aspremont (2009), "Support vector machine
    classification with indefinite kernels", Math. Prog. Comp. 1, §5.1 ("Mod SVM").
    """

    name = "mod-svm"
    problem_class = "QP"

    def __init__(self, K, y, C=1.0, *, reusable=False):
        K, y, Cp, slack_cost, (alpha, b, xi), cons, data = margin_problem(K, y, C, "alpha",
                                                                          reusable)
        self.K, self.y, self._data = K, y, data
        obj = 0.5 * cp.sum_squares(alpha) + slack_cost
        problem = cp.Problem(cp.Minimize(obj), list(cons.values()))
        super().__init__(problem, {"C": Cp}, {"alpha": alpha, "b": b, "xi": xi}, cons)

    def primal_objective(self, alpha, b):
        """Primal objective ``1/2 ||alpha||^2 + sum_i C_i max(0, 1 - y (K alpha + b))``.

        The slacks are eliminated (set to the hinge losses); ``C`` may be a vector of
        per-sample bounds (``class_weight``).

        Parameters
        ----------
        alpha : ndarray of shape (n,)
            Expansion coefficients.
        b : float
            Intercept.

        Returns
        -------
        float
            The primal objective value.
        """
        C = np.asarray(self.parameters["C"].value, dtype=float)
        f = self.K @ alpha + b
        return float(0.5 * alpha @ alpha + np.sum(C * np.maximum(0.0, 1.0 - self.y * f)))

    def dual_objective(self, beta):
        """Dual objective ``1'beta - 1/2 ||K'(y * beta)||^2``.

        Parameters
        ----------
        beta : ndarray of shape (n,)
            Margin multipliers in ``[0, C]``.

        Returns
        -------
        float
            The dual objective value.
        """
        v = self.K.T @ (self.y * beta)
        return float(beta.sum() - 0.5 * v @ v)

    def certificate(self):
        """Primal residual, dual residual and duality gap from the returned point.

        The dual point is the margin multipliers ``beta`` clipped to ``[0, C]``;
        ``dual_residual`` is ``max(|y'beta|, ||alpha - K'(y*beta)||_inf)`` (dual
        feasibility and the stationarity condition in ``alpha``); ``gap`` is
        ``P(alpha, b) - D(beta)`` with the slacks eliminated (>= 0 by weak duality,
        up to the residuals).

        Returns
        -------
        certificate : dict
            ``primal_residual``, ``dual_residual`` and ``gap`` (NaN before a
            solve gives duals), plus ``primal_objective``, ``dual_objective`` and
            ``relative_gap`` (:func:`krein.formulations.base.relative_gap`:
            ``|P - D| / max(|P|, |D|)``, scale-free) when the duals are known.
        """
        C = np.asarray(self.parameters["C"].value, dtype=float)
        alpha = np.asarray(self.variables["alpha"].value, dtype=float)
        b = float(self.variables["b"].value)
        xi = np.asarray(self.variables["xi"].value, dtype=float)
        f = self.K @ alpha + b
        primal_res = float(max(np.max(1.0 - xi - self.y * f, initial=0.0), np.max(-xi, initial=0.0)))
        P = self.primal_objective(alpha, b)
        dual = self.constraints["margin"].dual_value
        if dual is None:
            return {"primal_residual": primal_res, "dual_residual": float("nan"), "gap": float("nan"),
                    "primal_objective": P}
        beta = np.clip(np.asarray(dual, dtype=float), 0.0, C)
        dual_res = max(abs(float(self.y @ beta)),
                       float(np.max(np.abs(alpha - self.K.T @ (self.y * beta)))))
        D = self.dual_objective(beta)
        return {"primal_residual": primal_res, "dual_residual": dual_res, "gap": P - D,
                "relative_gap": relative_gap(P, D), "primal_objective": P, "dual_objective": D}
