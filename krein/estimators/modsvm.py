"""Lin & Lin's modified SVM ("Mod SVM", Luss & d'Aspremont 2009 §5.1) as a classifier."""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import HasMethods

from .._fitting import fit_wrapper
from ..formulations.modsvm import ModSVM
from ..solvers import SolverName, resolve_solver
from ..solvers.libsvm import libsvm_mod_svm
from ..solvers.linear import linear_svm
from .base import BinaryModel, KernelClassifierBase, kernel_unit, positive_weight_rows, warn_gap
from .lpsvm import solve_margin
from .reduced import LandmarkExpansionMixin

__all__ = ["ModSVC"]


class ModSVC(LandmarkExpansionMixin, KernelClassifierBase):
    """Lin & Lin's convexified SVM: ``min 1/2 ||alpha||^2 + C sum(xi)``, kernel only in the constraints.

    Solves :class:`krein.formulations.ModSVM`::

        minimize    1/2 ||alpha||^2 + C sum_i xi_i
        subject to  y_i (sum_j alpha_j k(x_i, x_j) + b) >= 1 - xi_i,  xi >= 0

    and predicts with ``f(x) = sum_j alpha_j k(x, x_j) + b``.  Convex for any
    (indefinite) kernel: it is the linear SVM on the empirical kernel map
    ``x -> k(x, X)``.  Multiclass: one-vs-one (base class).

    With ``approximation`` the expansion points are the ``m`` landmarks,
    ``f(x) = k(x, L) alpha + b``, and the problem is the same one on the landmark
    columns ``C = K(X, L)`` (``n x m``): the linear SVM on the empirical kernel map
    restricted to the landmarks ``x -> k(x, L)``, i.e. Lee & Mangasarian's (2001)
    reduced SVM (RSVM, §2: the rectangular kernel ``K(A, Abar')`` and the identity
    regularizer on the reduced coefficients, with the plain hinge loss of Mod
    SVM instead of RSVM's smoothed squared one).  The landmarks' labels are not used
    (:mod:`krein.estimators.reduced`).  ``solver="libsvm"`` solves it by
    ``SVC(kernel="linear")`` on
    the features ``C`` (the same problem, ``O(n^2)`` kernel evaluations through
    libsvm's cache, no ``n x n`` array); ``"liblinear"`` (approximation only) by
    liblinear on ``C``, which also regularizes the intercept
    (:func:`krein.solvers.liblinear.liblinear_solve`); a CVXPY solver by
    :class:`krein.formulations.ModSVM` on ``C``.  Kernel columns are strongly
    collinear, which slows both dual methods: measured on one core (sigmoid
    checkerboard, two classes, ``tol=1e-3``), libsvm took 5.3 s at n = 4000,
    m = 1000 and 64 s at n = 20 000, m = 500; liblinear 55 s at n = 4000, m = 1000
    (2.6 * 10^5 passes) and more than 100 s at n = 20 000, m = 500.  Neither
    reaches n = 10^5 with m = 1000 within 60 s.  ``"ipm"`` (the approximate path's
    default in ``krein compare``) solves the problem of
    ``"libsvm"`` by a primal-dual interior-point method (Ferris & Munson 2002;
    :func:`krein.solvers.linear_ipm.linear_svm_ipm`): ``O(n m^2)`` per iteration
    and a number of iterations that hardly depends on ``n`` or the collinearity,
    certified by the duality gap of the linear SVM.

    Sample weights
    --------------
    ``fit(X, y, sample_weight=w)`` solves the problem of the samples repeated ``w_i``
    times, merged.  The ``k`` copies of row ``i`` have the same margin, so their
    slacks cost ``C_i k xi_i``; the ``k`` copies of column ``i`` enter ``f`` only
    through the sum ``alpha_i`` of their coefficients, and ``sum_r (alpha_i^(r))^2 >=
    alpha_i^2 / k`` with equality at the even split ``alpha_i / k``.  The repeated
    problem is therefore::

        minimize    1/2 sum_i alpha_i^2 / w_i + sum_i C_i w_i xi_i
        subject to  y_i (sum_j alpha_j k(x_i, x_j) + b) >= 1 - xi_i,  xi >= 0

    (``C_i = C * class_weight[y_i]``), and with ``alpha = sqrt(w) * gamma`` it is the
    problem of :class:`krein.formulations.ModSVM` (the identity regularizer
    ``1/2 ||gamma||^2``) on the kernel with columns scaled, ``K diag(sqrt(w))``, and
    slack weights ``C_i w_i``: every solver runs unchanged on it, and
    ``solutions_`` are those of that problem (in ``gamma``).  A sample of weight 0
    is removed (its row and its column; ``alpha_i = 0``).

    Parameters
    ----------
    C : float > 0
        Weight of the slacks.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix,
        ``predict``/``decision_function`` an ``(m, n)`` matrix against the
        training points), a name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    class_weight : None, "balanced" or dict {label: weight}
        Per-class slack weights ``C * weight`` (scikit-learn SVC's meaning): the
        weights of the slacks in the CVXPY problem, the box bounds of the
        equivalent dual with libsvm.
    solver : str
        An installed CVXPY solver ("CLARABEL" default; "SCS", "ECOS", "OSQP", ...),
        or "libsvm": the equivalent C-SVM dual on the PSD Gram matrix ``K K'`` of the
        empirical kernel map (``alpha = K (y * beta)``), solved by scikit-learn's SVC
        (with an approximation: ``SVC(kernel="linear")`` on the landmark columns);
        or "liblinear" (approximation only): liblinear on the landmark columns,
        intercept regularized (above); or "ipm" (approximation only): the same
        problem as "libsvm" by the interior-point method of
        :func:`krein.solvers.linear_ipm.linear_svm_ipm` (above).
    solver_options : dict, optional
        Passed to the CVXPY solver; for "libsvm" the keys ``tol`` (default 1e-3),
        ``max_iter``, ``cache_size`` of :func:`krein.estimators.base.libsvm_binary`
        (``cache_size`` not with an approximation); for "liblinear" ``tol``
        (default 1e-3) and ``max_iter``; for "ipm" ``tol`` (the relative duality
        gap is at most ``min(tol, 1e-6)``) and ``max_iter``.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`)
        whose landmarks are the expansion points (above); ``fit`` then takes its
        input (feature vectors, or the landmark columns ``K(X, L)`` of shape
        ``(n, m)`` with ``kernel="precomputed"``), as do ``predict`` and
        ``decision_function`` for new points.  None: the exact path.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        The expansion coefficients ``alpha`` on ``support_`` (in general every
        training point: ``alpha = K (y * beta)`` is dense; with an approximation
        every landmark).
    approximation_ : IndefiniteNystroem
        The fitted front end (with an approximation).
    support_, intercept_, classes_, n_iter_ :
        See the base class.
    solutions_ : list
        One :class:`krein.solvers.Solution` per binary problem (CVXPY solvers: with
        the primal/dual gap and ``relative_gap``, a ``ConvergenceWarning`` above
        ``1e-6``, of the problem solved on ``K / unit`` with ``C * unit^2``,
        ``unit`` a power of two near ``max|K|``
        (:func:`~krein.estimators.base.kernel_unit`), so that the solver's absolute
        tolerances mean the same at any scale of ``K``; libsvm: the SVM-dual stationarity residual on
        ``G = K K'``, ``primal["beta"]`` the dual point).  ``solution_``,
        ``min_eigenvalue_``: see the base class.

    References
    ----------
    H.-T. Lin & C.-J. Lin (2003), "A study on sigmoid kernels for SVM and the
    training of non-PSD kernels by SMO-type methods"; R. Luss & A. d'Aspremont
    (2009), "Support vector machine classification with indefinite kernels",
    §5.1 ("Mod SVM"); Y.-J. Lee & O. L. Mangasarian (2001), "RSVM: reduced support
    vector machines", SDM.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import ModSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = ModSVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "solver": [SolverName(("libsvm", "liblinear", "ipm"))],
        "solver_options": [dict, None],
        "approximation": [HasMethods(["fit_transform", "transform"]), None],
    }

    def __init__(self, *, C=1.0, kernel="gaussian", kernel_params=None, class_weight=None,
                 solver="CLARABEL", solver_options=None, probability=False, approximation=None):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.solver = solver
        self.solver_options = solver_options
        self.probability = probability
        self.approximation = approximation

    def _check_params(self):
        self._check_approximation()
        self._solver = resolve_solver(self.solver, ("libsvm", "liblinear", "ipm"),
                                      approximation=self._approximate())
        own = {"libsvm": {"tol", "max_iter"} | (set() if self._approximate() else {"cache_size"}),
               "liblinear": {"tol", "max_iter"}, "ipm": {"tol", "max_iter"}}.get(self._solver)
        if own is not None:
            bad = sorted(set(self.solver_options or {}) - own)
            if bad:
                raise ValueError(f"unknown solver_options {bad} for solver='{self._solver}'; "
                                 f"accepted: {sorted(own)}")

    @property
    def _parallel_pairs(self):
        """The binary problems run concurrently (:func:`~krein.estimators.base.fit_pairs`)
        with the linear solvers (each reads its arguments only), serially through CVXPY."""
        return getattr(self, "_solver", None) in ("libsvm", "liblinear", "ipm")

    def _fit_landmarks(self, C_rows, W, y, C_box):
        # the same problem on the landmark columns: the linear SVM on the features C_rows
        if self._solver in ("libsvm", "liblinear", "ipm"):
            alpha, b, sol = linear_svm(C_rows, y, C_box, solver=self._solver,
                                       **(self.solver_options or {}))
            return alpha, b, {"n_iter": sol.iterations or 0, "solution": sol}
        unit = kernel_unit(C_rows)
        sol = solve_margin(ModSVM, C_rows / unit, y, C_box * unit ** 2, self._solver,
                           self.solver_options or {})
        warn_gap(sol, "ModSVC")
        alpha = np.asarray(sol.primal["alpha"], dtype=float) / unit
        return alpha, float(sol.primal["b"]), {"n_iter": sol.iterations or 0, "solution": sol}

    @fit_wrapper
    def fit(self, X, y, sample_weight=None):
        """Fit the classifier, with optional per-sample weights.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix (with an
            approximation: the front end's input, e.g. the landmark columns).
        y : array of shape (n,)
            Class labels (at least two classes).
        sample_weight : array of shape (n,), optional
            Non-negative weights ``w``: the problem of the samples repeated ``w_i``
            times (class docstring, "Sample weights"): slack weights ``C *
            class_weight[y_i] * w_i`` and the regularizer ``1/2 sum_i alpha_i^2 /
            w_i``; a sample of weight 0 leaves the problem (its row and its
            expansion column).  With an approximation the weights weigh the rows only
            (the landmarks are the expansion points, regularized by ``||alpha||^2``).
            With ``probability=True`` they also weigh Platt's sigmoid.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            As :meth:`KernelClassifierBase.fit`, and for a negative weight, a
            ``sample_weight`` of the wrong length, or a class whose weights are all 0.
        """
        return self._fit_and_diagnose(X, y, sample_weight)

    def _fit_binary(self, K, y, idx, C):
        sw = self._sample_weight_of(idx)
        if sw is None:
            alpha, b, info = self._solve(K, y, C)
            return BinaryModel(idx, alpha, b, info)
        # the repeated problem merged (class docstring): weight 0 removes the sample's row
        # and column; alpha = sqrt(w) * gamma with 1/2 ||gamma||^2 on the columns K sqrt(w)
        keep = positive_weight_rows(C, y)
        keep = np.arange(y.size) if keep is None else keep
        root = np.sqrt(sw[keep])
        gamma, b, info = self._solve(K[np.ix_(keep, keep)] * root, y[keep], C[keep])
        alpha = np.zeros(y.size)
        alpha[keep] = root * gamma
        return BinaryModel(idx, alpha, b, info)

    def _solve(self, K, y, C):
        """Mod SVM on one block: coefficients on the columns of ``K``, intercept, info."""
        if self._solver == "libsvm":
            sol = libsvm_mod_svm(K, y, C, **(self.solver_options or {}))
            return sol.coef, sol.intercept, {"n_iter": sol.iterations, "solution": sol}
        # solved in the unit of K (exact power of two): the problem on
        # (K / unit, C * unit^2) has the minimizers (unit * alpha, b)
        unit = kernel_unit(K)
        sol = solve_margin(ModSVM, K / unit, y, C * unit ** 2, self._solver,
                           self.solver_options or {})
        warn_gap(sol, "ModSVC")
        alpha = np.asarray(sol.primal["alpha"], dtype=float) / unit
        return alpha, float(sol.primal["b"]), {"n_iter": sol.iterations or 0, "solution": sol}

