"""Haasdonk's convex-hull classifier (CH-DU) with a global (convex) and two local solvers.

The problem, the decision rule and the Prop. 7 maps are in
:mod:`krein.formulations.hull`; the two local solvers for the non-convex case
(haasdonk §7.2), :func:`~krein.solvers.hull.hull_nu_svm` and
:func:`~krein.solvers.hull.hull_multistart`, are in :mod:`krein.solvers.hull`
(re-exported here).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from .._validation import NONNEGATIVE, POSITIVE, check_int, check_positive
from ..formulations.hull import check_hull_data, check_hull_mu, hull_convexity, hull_plane
from ..formulations.svm import preferred_form
from ..solvers import SolverName, resolve_solver
from ..solvers.hull import hull_convex, hull_multistart, hull_nu_svm, optimum_row
from .base import BinaryModel, KernelClassifierBase

__all__ = ["ConvexHullClassifier", "hull_multistart", "hull_nu_svm", "HULL_SOLVERS"]

#: The own values of ``ConvexHullClassifier(solver=...)``; any installed CVXPY solver
#: name is accepted too (the convex path with that solver).
HULL_SOLVERS = ("auto", "nu-svm", "multistart")

#: CVXPY solver of the convex path under ``solver="auto"``.
_AUTO_CVXPY = "CLARABEL"


# ---------------------------------------------------------------------------- estimator
class ConvexHullClassifier(KernelClassifierBase):
    """Haasdonk's convex-hull (CH) classifier: closest points of reduced hulls in pE space.

    Solves CH-DU (haasdonk §4): the closest points ``z+``, ``z-`` of the reduced
    convex hulls (bound ``mu``) of the two classes in the pseudo-Euclidean
    embedding of the kernel, and classifies by the minimum-distance rule
    (haasdonk eqs. (6)-(7))::

        f(x) = ||Phi(x) - z-||^2_pE - ||Phi(x) - z+||^2_pE = 2 k(x, X) u - alpha_bar' K u,

    ``u = y * alpha_bar``: the plane through the midpoint of ``z+ z-``, pE-orthogonal
    to ``w = z+ - z-`` (bias corrected from the paper's eq. (7), see
    :mod:`krein.formulations.hull`).  Multiclass: one-vs-one (base class).

    Parameters
    ----------
    mu : float > 0
        Reduction bound of the hulls, ``1 / min(n+, n-) <= mu``; ``mu >= 1`` gives
        the ordinary hulls (haasdonk Fig. 1a, the hard-margin SVM), smaller values
        shrink the hulls towards the class means (Figs. 1b, 1d; the nu-SVM with
        ``nu = 2 / (mu n)``).  A ``mu`` below ``1 / (size of a class)`` is a
        ``ValueError`` at fit time.  ``mu`` bounds every coefficient alike; the
        hull problem has no per-sample box ``C``, so there is no ``class_weight``
        (the hulls are normalized per class already: each class's coefficients
        sum to one).
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
        ``predict``/``decision_function`` an ``(m, n)`` matrix against the
        training points), a name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)`` (the default Gaussian is PD: CH-DU is then convex).
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    solver : {"auto", "nu-svm", "multistart"} or str
        An installed CVXPY solver name ("CLARABEL", "SCS", "ECOS", "OSQP"...;
        case-insensitive): the convex QP
        (:class:`~krein.formulations.hull.ConvexHullDual`) solved by it, only when
        CH-DU is convex on the kernel (checked; ``ValueError`` otherwise); the
        global optimum.  ``"nu-svm"``: libsvm's nu-SVM on the kernel, polished
        (:func:`hull_nu_svm`); a stationary point.  ``"multistart"``: projected
        gradient from ``n_starts`` random points (:func:`hull_multistart`); the best
        stationary point found, with the table of the distinct ones.  ``"auto"``:
        the convex QP with CLARABEL when the convexity check passes, else
        ``"multistart"``.
    solver_options : dict, optional
        Passed to the CVXPY solver.
    n_starts : int >= 1
        Random starts of ``"multistart"``.
    tol : float > 0
        Stationarity target of the local solvers (residual of
        :func:`~krein.formulations.hull.hull_stationarity`).
    max_iter : int >= 1
        Projected-gradient iterations per start (``ConvergenceWarning`` when hit).
    libsvm_tol : float > 0
        libsvm's tolerance on the ``"nu-svm"`` path.
    psd_tol : float >= 0, optional
        Tolerance of the convexity check (:func:`~krein.formulations.hull.hull_convexity`).
    random_state : None, int or RandomState
        Seeds the random starts.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        ``2 u = 2 y * alpha_bar`` on ``support_`` (the coefficients of ``k(x, X)`` in
        ``f``; ``alpha_bar_i > 0`` marks the support vectors of haasdonk Fig. 1).
    support_ : ndarray of shape (n_SV,)
    intercept_ : ndarray of shape (n_pairs,)
        ``-alpha_bar' K u``.
    alpha_bar_ : list of ndarray
        Per pair, the CH coefficients on that pair's training points.
    stationarity_ : ndarray of shape (n_pairs,)
        Projected-gradient residual of the returned point (0 iff stationary).
    fw_gap_ : ndarray of shape (n_pairs,)
        Frank-Wolfe gap (a bound on ``F - F*`` when the problem is convex).
    w_norm_pe_ : ndarray of shape (n_pairs,)
        ``w'Mw = ||z+ - z-||^2_pE``, the CH-DU objective (haasdonk §7.4: a
        non-positive value flags an unsuitable solution).
    convex_ : ndarray of shape (n_pairs,), dtype object
        Result of the convexity check (None where it was not run).
    solver_ : list of str
        The path used per pair ("cvxpy", "nu-svm" or "multistart").
    local_optima_ : pandas.DataFrame
        The distinct stationary points found per pair (column ``pair``; see
        :func:`hull_multistart` for the other columns; one row for the convex and
        nu-SVM paths).
    solutions_ : list of krein.solvers.Solution
    classes_, n_iter_ :
        See the base class.

    References
    ----------
    B. Haasdonk (2005), "Feature space interpretation of SVMs with indefinite
    kernels", IEEE TPAMI 27(4): §4 (CH-DU, eqs. (4)-(7)), Prop. 7, §7.2.
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "mu": [POSITIVE],
        "solver": [SolverName(HULL_SOLVERS)],
        "solver_options": [dict, None],
        "n_starts": [Interval(Integral, 1, None, closed="left")],
        "tol": [POSITIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "libsvm_tol": [POSITIVE],
        "psd_tol": [NONNEGATIVE, None],
        "random_state": ["random_state"],
    }
    # no box bound C per sample: mu bounds the hull coefficients (docstring)
    _parameter_constraints.pop("C")
    _parameter_constraints.pop("class_weight")

    def __init__(self, *, mu=1.0, kernel="gaussian", kernel_params=None, solver="auto",
                 solver_options=None, n_starts=10, tol=1e-6, max_iter=10000, libsvm_tol=1e-3,
                 psd_tol=None, random_state=None, probability=False):
        self.mu = mu
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.solver = solver
        self.solver_options = solver_options
        self.n_starts = n_starts
        self.tol = tol
        self.max_iter = max_iter
        self.libsvm_tol = libsvm_tol
        self.psd_tol = psd_tol
        self.random_state = random_state
        self.probability = probability

    def _check_params(self):
        name = resolve_solver(self.solver, HULL_SOLVERS)
        # the path ("auto", "cvxpy", "nu-svm", "multistart") and the convex path's solver
        self._path = name if name in HULL_SOLVERS else "cvxpy"
        self._cvxpy_solver = _AUTO_CVXPY if name in HULL_SOLVERS else name
        self._rng = check_random_state(self.random_state)

    def _fit_binary(self, K, y, idx, C):
        # the pair's kernel and labels are checked once here; the calls below skip the checks
        K, y = check_hull_data(K, y)
        mu = check_hull_mu(self.mu, y)
        path, conv = self._path, None
        if path in ("auto", "cvxpy"):
            conv = hull_convexity(K, y, self.psd_tol, check_input=False)
            if path == "auto":
                path = "cvxpy" if conv.is_convex else "multistart"
        if path == "cvxpy":
            form = preferred_form(self._cvxpy_solver, y.size, conv.factor.shape[1]) \
                if conv.is_convex else "factor"
            sol = hull_convex(K, y, mu, self._cvxpy_solver, convexity=conv, form=form,
                              **(self.solver_options or {}))   # raises if not convex
            table = [optimum_row(sol, K, y, mu, global_opt=True)]
        elif path == "nu-svm":
            sol = hull_nu_svm(K, y, mu, tol=self.tol, libsvm_tol=self.libsvm_tol,
                              max_iter=self.max_iter)
            table = [optimum_row(sol, K, y, mu, global_opt=False)]
        else:
            # the table's rows as dicts (one table in _after_fit)
            sol, table = hull_multistart(
                K, y, mu, n_starts=check_int(self.n_starts, "n_starts", low=1),
                tol=check_positive(self.tol, "tol"),
                max_iter=check_int(self.max_iter, "max_iter", low=1), random_state=self._rng,
                check_input=False, as_frame=False)
        a = sol.primal["alpha_bar"]
        coef, b = hull_plane(a, K, y, check_input=False)
        info = {"n_iter": sol.iterations or 0, "solution": sol, "table": table, "path": path,
                "convexity": conv, "alpha_bar": a}
        return BinaryModel(idx, coef, b, info)

    def _after_fit(self, K):
        ms = self.binary_models_
        self.solutions_ = [m.info["solution"] for m in ms]
        self.solver_ = [m.info["path"] for m in ms]
        self.alpha_bar_ = [m.info["alpha_bar"] for m in ms]
        self.stationarity_ = np.array([s.dual_residual for s in self.solutions_])
        self.fw_gap_ = np.array([s.gap for s in self.solutions_])
        self.w_norm_pe_ = np.array([s.objective for s in self.solutions_])
        self.convex_ = np.array([None if m.info["convexity"] is None else m.info["convexity"].is_convex
                                 for m in ms], dtype=object)
        # one table from the pairs' row dicts (a DataFrame per pair and their concatenation
        # cost more than the small fits)
        self.local_optima_ = pd.DataFrame([{"pair": self.pairs_[r], **row}
                                           for r, m in enumerate(ms) for row in m.info["table"]])
