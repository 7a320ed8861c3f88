"""The 1-norm linear-programming SVM (Mangasarian 1999; loosli §6.1.2, "LP SVM").

With expansion ``f(x) = sum_j c_j k(x, x_j) + b`` the kernel may be indefinite
(it only enters linear constraints)::

    minimize    ||c||_1 + sum_i C_i xi_i
    subject to  y_i (K_i c + b) >= 1 - xi_i,  xi >= 0

Its LP dual (derived from the Lagrangian, used as the certificate)::

    maximize    1'alpha
    subject to  ||K' (y * alpha)||_inf <= 1,  y'alpha = 0,  0 <= alpha_i <= C_i

``C_i = C`` for one scalar ``C``; a vector of per-sample weights ``C_i`` comes
from ``class_weight`` (``C_i = C * w[y_i]``).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_positive
from .base import Formulation, check_signed_labels, relative_gap

__all__ = ["LPSVM"]


def check_margin_problem(K, y, C):
    """Checked ``(K, y)`` of a kernel-expansion margin problem (LP-SVM, Mod SVM).

    ``K`` of shape ``(n, m)`` (rows: training points, columns: expansion points),
    ``y`` of shape ``(n,)`` in {-1, +1}, ``C > 0``.

    Raises
    ------
    ValueError
        Bad labels, ``C <= 0``, a shape mismatch, or NaN/inf in ``K``.
    """
    y = check_signed_labels(y)
    check_positive(C, "C")
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != y.size:
        raise ValueError(f"K must have shape ({y.size}, m); got {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or inf")
    return K, y


def margin_problem(K, y, C, name, reusable):
    """The variables, slack cost and constraints shared by LP-SVM and Mod SVM.

    ``y_i (K_i w + b) >= 1 - xi_i``, ``xi >= 0`` and the slack cost ``C' xi``
    (``C sum(xi)`` for a scalar ``C``), ``C`` a cvxpy Parameter.  With
    ``reusable=True`` the data are Parameters too (``YK = diag(y) K`` and ``y``:
    the margin is written ``YK w + y b``, the same linear map, DPP), so the one
    compiled problem is re-solved for any block of the same shape
    (:func:`krein.formulations.base.reusable_formulation`).

    Parameters
    ----------
    K : array of shape (n, m)
        Kernel block (rows: training points, columns: expansion points).
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or array of shape (n,)
        Slack weight, or one per sample.
    name : str
        Name of the expansion-coefficient variable (``"c"``, ``"alpha"``).
    reusable : bool
        Whether ``K`` and ``y`` enter as Parameters.

    Returns
    -------
    K, y : ndarray
        The checked data.
    C : cvxpy.Parameter
        Scalar or shape ``(n,)``.
    slack_cost : cvxpy.Expression
        ``C' xi`` (``C sum(xi)`` for a scalar ``C``).
    variables : tuple of cvxpy.Variable
        ``(w, b, xi)`` of shapes ``(m,)``, ``()``, ``(n,)``.
    constraints : dict
        ``{"margin", "slack"}``.
    data : dict of str to cvxpy.Parameter
        ``{"YK", "y"}`` when reusable, else empty.

    Raises
    ------
    ValueError
        As :func:`check_margin_problem`, or a per-sample ``C`` of the wrong shape or sign.
    """
    per_sample = np.ndim(C) > 0     # one slack weight per sample (class weights)
    K, y = check_margin_problem(K, y, 1.0 if per_sample else C)
    n, m = K.shape
    w = cp.Variable(m, name=name)
    b = cp.Variable(name="b")
    xi = cp.Variable(n, name="xi")
    if per_sample:
        C = np.asarray(C, dtype=float)
        if C.shape != (n,) or not np.all(np.isfinite(C) & (C > 0)):
            raise ValueError(f"C must be a positive finite number or shape ({n},) array")
        Cp = cp.Parameter(n, nonneg=True, name="C", value=C)
        slack_cost = Cp @ xi
    else:
        Cp = cp.Parameter(nonneg=True, name="C", value=float(C))
        slack_cost = Cp * cp.sum(xi)
    if reusable:
        data = {"YK": cp.Parameter((n, m), name="YK", value=y[:, None] * K),
                "y": cp.Parameter(n, name="y", value=y)}
        margin = data["YK"] @ w + cp.multiply(data["y"], b) >= 1 - xi
    else:
        data = {}
        margin = cp.multiply(y, K @ w + b) >= 1 - xi
    return K, y, Cp, slack_cost, (w, b, xi), {"margin": margin, "slack": xi >= 0}, data


def set_margin_data(formulation, K, y):
    """Put a new kernel block and labels into a ``reusable=True`` margin formulation.

    Parameters
    ----------
    formulation : LPSVM or ModSVM
        Built with ``reusable=True``.
    K : array of shape (n, m)
        The new block, of the formulation's shape.
    y : array of shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    formulation
        The same object, for chaining.

    Raises
    ------
    ValueError
        A formulation not built reusable, a block of another shape, bad labels or
        NaN/inf.
    """
    if not formulation._data:
        raise ValueError(f"{formulation.name} was built with reusable=False: its data are "
                         "constants (build it with reusable=True)")
    K, y = check_margin_problem(K, y, 1.0)
    if K.shape != formulation.K.shape:
        raise ValueError(f"K must have shape {formulation.K.shape} (the formulation's); "
                         f"got {K.shape}")
    formulation.K, formulation.y = K, y
    formulation._data["YK"].value = y[:, None] * K
    formulation._data["y"].value = y
    return formulation


class MarginData:
    """``set_data`` of the margin formulations (:class:`LPSVM`, ModSVM) built ``reusable=True``."""

    def set_data(self, K, y):
        """Put a new kernel block and labels into a ``reusable=True`` formulation.

        Parameters
        ----------
        K : array of shape (n, m)
            The new block, of this formulation's shape.
        y : array of shape (n,)
            Labels in {-1, +1}.

        Returns
        -------
        self
            The same formulation, for chaining (``set_data(K, y).set(C=...)``).

        Raises
        ------
        ValueError
            As :func:`set_margin_data`.
        """
        return set_margin_data(self, K, y)


class LPSVM(MarginData, Formulation):
    """The 1-norm LP-SVM on a (possibly indefinite, possibly rectangular) kernel, DPP in ``C``.

    Parameters
    ----------
    K : array of shape (n, m)
        Kernel between the training points (rows) and the expansion points
        (columns; usually the same training points, ``m = n``).
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float > 0, or array of shape (n,) of floats > 0
        Weight of the slacks (a cvxpy Parameter: re-solves are DPP), or one
        weight per training point (``class_weight``: ``C_i = C * w[y_i]``; the
        objective is then ``||c||_1 + C' xi``, still DPP).
    reusable : bool, default=False
        Make ``K`` and ``y`` Parameters as well (:func:`margin_problem`), so that
        one compiled problem is re-solved for other blocks of the same shape after
        :meth:`set_data`; the same problem and solution.

    Attributes
    ----------
    variables : {"c", "b", "xi"}
    parameters : {"C"}
    constraints : {"margin" (dual: alpha), "slack"}

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, labels, ``C <= 0`` or a per-sample ``C`` of the
        wrong shape.

    References
    ----------
    O. L. Mangasarian (1999), "Generalized support vector machines", in Advances
    in Large Margin Classifiers; Loosli, Ong & Canu (2013) §6.1.2.
    """

    name = "lp-svm"
    problem_class = "LP"

    def __init__(self, K, y, C=1.0, *, reusable=False):
        K, y, Cp, slack_cost, (c, b, xi), cons, data = margin_problem(K, y, C, "c", reusable)
        self.K, self.y, self._data = K, y, data
        problem = cp.Problem(cp.Minimize(cp.norm1(c) + slack_cost), list(cons.values()))
        super().__init__(problem, {"C": Cp}, {"c": c, "b": b, "xi": xi}, cons)

    def certificate(self):
        """Primal residual, LP-dual residual and gap ``P(c, b) - 1'alpha``.

        The dual point is the margin multipliers ``alpha`` clipped to ``[0, C_i]``;
        the LP dual requires ``||K'(y * alpha)||_inf <= 1`` and ``y'alpha = 0``.

        Returns
        -------
        certificate : dict
            ``primal_residual``, ``dual_residual`` and ``gap`` (NaN before a
            solve gives duals), plus ``primal_objective``, ``dual_objective`` and
            ``relative_gap`` (:func:`krein.formulations.base.relative_gap`:
            ``|P - D| / max(|P|, |D|)``, scale-free) when the duals are known.
        """
        C = np.asarray(self.parameters["C"].value, dtype=float)   # scalar or (n,)
        c = np.asarray(self.variables["c"].value, dtype=float)
        b = float(self.variables["b"].value)
        xi = np.asarray(self.variables["xi"].value, dtype=float)
        f = self.K @ c + b
        primal_res = float(max(np.max(1.0 - xi - self.y * f, initial=0.0), np.max(-xi, initial=0.0)))
        P = float(np.abs(c).sum() + np.sum(C * np.maximum(0.0, 1.0 - self.y * f)))
        dual = self.constraints["margin"].dual_value
        if dual is None:
            return {"primal_residual": primal_res, "dual_residual": float("nan"), "gap": float("nan")}
        alpha = np.clip(np.asarray(dual, dtype=float), 0.0, C)
        dual_res = max(float(np.max(np.abs(self.K.T @ (self.y * alpha)))) - 1.0,
                       abs(float(self.y @ alpha)), 0.0)
        D = float(alpha.sum())
        return {"primal_residual": primal_res, "dual_residual": dual_res, "gap": P - D,
                "relative_gap": relative_gap(P, D), "primal_objective": P, "dual_objective": D}
