"""Haasdonk's convex-hull classifier (CH-DU) with a global (convex) and two local solvers.

The problem, the decision rule and the Prop. 3 maps are in
:mod:`krein.formulations.hull`; the two local solvers for the non-convex case
(haasdonk §7.2), :func:`~krein.solvers.hull.hull_nu_svm` and
:func:`~krein.solvers.hull.hull_multistart`, are in :mod:`krein.solvers.hull`
(re-exported here).

Large data: the hulls in the embedding of the Nyström features
--------------------------------------------------------------
With ``approximation=IndefiniteNystroem(...)`` the training kernel is its low-rank
approximation ``K_approx = Psi diag(s) Psi'`` (Oglic & Gärtner 2019, §3), whose
pseudo-Euclidean embedding (haasdonk Prop. 1) is the features ``Psi`` (n, r) with the
signature ``s``.  CH-DU is solved there by the same multi-start spectral projected
gradient (:func:`hull_multistart`) on a :class:`~krein.formulations.hull.SignedGram`:
every product ``K V = Psi (s * (Psi' V))`` costs ``O(n r)`` per start and
iteration, the face steps are taken on free sets of at most ``max(64, 2 (n r)^(1/3))``
coefficients, and the certificates (stationarity residual, Frank-Wolfe gap, the
second-order test) are computed the same way, with the Lipschitz constant
``2 ||K_approx||_2`` and the gradient scale ``2 max_i ||psi_i||^2`` (module
:mod:`krein.formulations.hull`).  ``solver="auto"`` checks convexity from an
``r x r`` problem (:func:`~krein.formulations.hull.hull_convexity_features`): convex,
one start (its Frank-Wolfe gap bounds the suboptimality, as the exact path's CVXPY
solve is certified); else ``n_starts`` starts.  The rule is linear in the features:
``g(x) = 2 k_approx(x, X) u - alpha_bar' K u = psi(x) w + b`` with
``w = 2 s * (Psi' u)``, ``u = y * alpha_bar``.  No ``n x n`` array is formed.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from .._validation import NONNEGATIVE, POSITIVE, check_int, check_positive
from ..formulations.base import check_signed_labels
from ..formulations.hull import (SignedGram, check_hull_data, check_hull_mu, hull_convexity,
                                 hull_convexity_features, hull_plane)
from ..formulations.svm import preferred_form
from ..solvers import SolverName, resolve_solver
from ..solvers.hull import hull_convex, hull_multistart, hull_nu_svm, optimum_row
from .approximate import ApproximationMixin
from .base import BinaryModel, KernelClassifierBase
from .approximate import APPROXIMATION_CONSTRAINT as _APPROXIMATION

__all__ = ["ConvexHullClassifier", "hull_multistart", "hull_nu_svm", "HULL_SOLVERS"]

#: The own values of ``ConvexHullClassifier(solver=...)``; any installed CVXPY solver
#: name is accepted too (the convex path with that solver).
HULL_SOLVERS = ("auto", "nu-svm", "multistart")

#: CVXPY solver of the convex path under ``solver="auto"``.
_AUTO_CVXPY = "CLARABEL"


# ---------------------------------------------------------------------------- estimator
class ConvexHullClassifier(ApproximationMixin, KernelClassifierBase):
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
        ``"multistart"``.  With an ``approximation``: ``"auto"`` or
        ``"multistart"`` (module docstring); the others need the ``n x n`` kernel
        (``ValueError``).
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
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`);
        None keeps the exact path.  It is cloned and given the estimator's
        ``kernel`` and ``kernel_params``; ``fit`` then takes its input (feature
        vectors, or with ``kernel="precomputed"`` the kernel columns against the
        landmarks) and solves CH-DU in the embedding of its features ``Psi``
        (module docstring); ``decision_function`` is ``psi(x) w + b``.  No
        ``n x n`` array is formed.
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
    approximation_ : transformer
        With an approximation: the fitted clone.
    coef_ : ndarray of shape (n_pairs, r)
        With an approximation: the weights on its features, ``g(x) = psi(x) coef +
        intercept`` (``2 s * (Psi' u)`` for two classes; a pair of more classes
        solves on the eigenfeatures of its own sub-kernel, whose map to ``psi(x)``
        is folded in); ``dual_coef_`` and ``support_`` are not set.
    eigenvalues_ : ndarray of shape (r,)
        With an approximation: the nonzero eigenvalues of ``K_approx``.

    References
    ----------
    B. Haasdonk (2005), "Feature space interpretation of SVMs with indefinite
    kernels", IEEE TPAMI 27(4): §4 (CH-DU, eqs. (4)-(7)), Prop. 1 (the embedding),
    Prop. 3, §7.2.  Oglic & Gärtner (2019), "Scalable learning in reproducing kernel
    Krein spaces", ICML, §3 (the signed Nyström features).

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import ConvexHullClassifier
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = ConvexHullClassifier(kernel="sigmoid",
    ...                            kernel_params={"a": 0.05, "r": -0.5}, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.6)
    True
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
        "approximation": _APPROXIMATION,
    }
    # no box bound C per sample: mu bounds the hull coefficients (docstring)
    _parameter_constraints.pop("C")
    _parameter_constraints.pop("class_weight")

    def __init__(self, *, mu=1.0, kernel="gaussian", kernel_params=None, solver="auto",
                 solver_options=None, n_starts=10, tol=1e-6, max_iter=10000, libsvm_tol=1e-3,
                 psd_tol=None, random_state=None, approximation=None, probability=False):
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
        self.approximation = approximation
        self.probability = probability

    def _check_params(self):
        name = resolve_solver(self.solver, HULL_SOLVERS)
        # the path ("auto", "cvxpy", "nu-svm", "multistart") and the convex path's solver
        self._path = name if name in HULL_SOLVERS else "cvxpy"
        self._cvxpy_solver = _AUTO_CVXPY if name in HULL_SOLVERS else name
        self._rng = check_random_state(self.random_state)
        self._check_approximation()
        if self._approximate() and self._path not in ("auto", "multistart"):
            raise ValueError(f"solver={self.solver!r} needs the n x n kernel; with an "
                             "approximation CH-DU is solved by projected gradient on the "
                             "features: solver='auto' or 'multistart'")

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

    def _fit_features(self, rep, y, C):
        """CH-DU of one pair in the embedding of its signed eigenfeatures (module docstring):
        the eigendecomposition of the pair's kernel given by any representation ``rep``."""
        y = check_signed_labels(y)
        mu = check_hull_mu(self.mu, y)
        eig = rep.eigenfeatures()
        F, signs = eig.features, eig.signs
        K = SignedGram(F, signs, eig.eigenvalues)
        conv, n_starts = None, check_int(self.n_starts, "n_starts", low=1)
        if self._path == "auto":
            conv = hull_convexity_features(K, y, self.psd_tol)
            if conv.is_convex:
                n_starts = 1
        sol, table = hull_multistart(
            K, y, mu, n_starts=n_starts, tol=check_positive(self.tol, "tol"),
            max_iter=check_int(self.max_iter, "max_iter", low=1), random_state=self._rng,
            check_input=False, as_frame=False)
        a = sol.primal["alpha_bar"]
        u = y * a
        t = F.T @ u
        coef = eig.to_rows(2.0 * signs * t)
        b = -float(a @ (F @ (signs * t)))
        info = {"n_iter": sol.iterations or 0, "solution": sol, "table": table,
                "path": "multistart", "convexity": conv, "alpha_bar": a}
        return coef, b, info

    def _after_fit_approximate(self):
        self._after_fit(None)

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
