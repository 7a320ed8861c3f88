"""DCSVC: IKSVM-DC, the primal squared-hinge SVM on an indefinite kernel solved by DCA.

Xu, Xue, Chen & Wang (2017), "Solving indefinite kernel support vector machine with
difference of convex functions programming", AAAI ("xu"); journal version Xue, Xu,
Chen & Wang (2020), "A primal perspective for indefinite kernel SVM problem", Front.
Comput. Sci. 14:349-363.  The algorithm is :mod:`krein.solvers.dca`, its convex
subproblem :mod:`krein.formulations.dc`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval

from .._fitting import fit_wrapper
from ..solvers import SolverName, resolve_solver
from ..solvers.dca import dca, dca_landmarks
from .base import BinaryModel, KernelClassifierBase, OrderedDraws, positive_weight_rows
from .reduced import LandmarkExpansionMixin

__all__ = ["DCSVC"]


class DCSVC(LandmarkExpansionMixin, KernelClassifierBase):
    """IKSVM-DC: the squared-hinge SVM in the kernel expansion, DCA with an Armijo step.

    For each binary problem (labels ``y`` in {-1, +1}) minimizes, over the expansion
    ``f(x) = k(x, X) beta + b`` with the ORIGINAL (possibly indefinite) kernel,

        ``F(beta, b) = 1/2 beta'K beta + C/2 sum_i max(0, 1 - y_i (K beta + b)_i)^2``,

    xu's primal objective ``1/2 (gamma beta'K beta + sum_i max(0, ...)^2)`` times
    ``C = 1 / gamma`` (xu's demo ``gamma = 2^3`` is ``C = 0.125``).  ``F`` is
    non-convex when ``K`` is indefinite; the DC split ``K = rho I - (rho I - K)``,
    ``rho = lambda_max(K) + 1e-4 * scale`` (xu (12)), gives DCA, each step a strongly
    convex subproblem solved exactly (finite Newton on the active set, or a CVXPY
    solver), followed by xu's Armijo step (``armijoRule.m``: 3, 0.4, 0.5); see
    :func:`krein.solvers.dca.dca`.  The objective never increases along the
    iterations (``trace_``).

    Stopping (``IKSVMDC.m``).  The step test ``scale^2 ||beta_{t+1} - beta_t||^2 <= tol``
    with ``scale = max |K_ij|`` (relative, so ``K`` and ``s K`` with ``C / s`` take the
    same iterations; xu's absolute ``delta`` on a kernel of scale ``s`` is
    ``tol = delta * s^2``, e.g. ``delta = 1e-3`` on a kernel with ``max |K_ij| = 1``
    is ``tol = 1e-3``), ``max_iter`` (``ConvergenceWarning``), and xu's guard: an
    iterate with ``F < 0`` is not taken, the last one with ``F >= 0`` is returned.
    ``F`` is unbounded below as soon as some ``(beta, b)`` with ``beta'K beta < 0``
    classifies every training point correctly (``y_i (K beta + b)_i >= 0``): on a
    strongly indefinite kernel (sonar's sigmoid kernel, dissimilarities used as
    kernels) that is the rule, and the guard then stops DCA after a few iterations
    (an early-stopped point, ``solution_.certificate["stop"] == "negative_objective"``,
    not a critical point).  On a positive semidefinite kernel ``F`` is convex and the
    result is the squared-hinge SVM.

    With ``approximation`` the expansion points are the ``m`` landmarks:
    ``f(x) = k(x, L) beta + b`` and

        ``F(beta, b) = 1/2 beta'W beta + C/2 sum_i max(0, 1 - y_i (C_L beta + b)_i)^2``

    with the landmark columns ``C_L = K(X, L)`` (``n x m``) and block ``W = K(L, L)``:
    the kernel term is the same squared (Krein) norm of the expansion, now on the
    landmarks, and every training point keeps its loss (the reduced expansion of
    Lee & Mangasarian 2001, RSVM, on xu's objective).  DCA splits ``W`` as xu (12)
    splits ``K``; each step is solved exactly by the primal finite Newton method in
    ``m + 1`` unknowns (:func:`krein.solvers.dca.dca_landmarks`; ``solver="dca"``
    only).  The landmarks' labels are not used (:mod:`krein.estimators.reduced`).
    With every training point a landmark the two paths run the same iterations.
    Each DCA subproblem starts at the minimizer predicted from the last two, so that
    a DCA step costs about one product with the ``n x m`` columns
    (:func:`krein.solvers.dca.dca_landmarks`).  Measured on one core (sigmoid
    checkerboard, two classes, front end included): 6 s at n = 20 000, m = 500 and
    58 s, 1.7 GB (the benchmark's own copy of the columns included) at n = 10^5,
    m = 1000 (27 DCA iterations); words of five languages (``benchmarks/large_data.py``,
    n = 50 000, m = 1000, ten pairs of 20 000 words, 300 DCA iterations each): 70 s of
    CPU, about 7 s per pair, 1.1-1.5 Newton steps per DCA step.

    Sample weights
    --------------
    ``fit(X, y, sample_weight=w)`` minimizes ``F_w(beta, b) = 1/2 beta'K beta +
    sum_i C_i w_i / 2 max(0, 1 - y_i (K beta + b)_i)^2`` (``C_i = C *
    class_weight[y_i]``; a sample of weight 0 removed, row and column), the objective
    of the samples repeated: with ``R`` the ``N x n`` repetition matrix the repeated
    kernel is ``R K R'``, so ``F_rep(beta_rep) = F_w(R' beta_rep)`` for every
    ``beta_rep`` (the kernel term ``beta_rep' R K R' beta_rep`` depends on the copies
    only through their sum ``R' beta_rep``), and ``grad F_rep(beta_rep) = R grad
    F_w(R' beta_rep)``: the two problems have the same values and the same critical
    points, mapped by ``R'``.  On a positive semidefinite kernel ``F_w`` is convex
    and the model is the repeated one to the stopping tolerance.  On an indefinite
    kernel DCA is a local method whose start (random in ``R^n``, not ``R^N``) and DC
    constant (``lambda_max`` of ``K``, not of ``R K R'``) differ from the repeated
    fit's, so the two runs may end at different critical points of the same
    objective.

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the squared slacks, ``1 / gamma`` of xu.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix of the
        training points and ``predict``/``decision_function`` the ``(m, n)`` matrix
        of new points against them. A name of :data:`krein.kernels.KERNELS`:
        ``"gaussian"`` (``exp(-gamma ||x - z||^2)``, parameter ``gamma``),
        ``"sigmoid"`` (``tanh(a <x, z> + r)``, parameters ``a`` and ``r``; indefinite
        for most of them), ``"linear"``, ``"epanechnikov"``, ``"simpson"``,
        ``"tangent-distance"``; the kernel matrices are then computed from feature
        rows ``X``. Or a callable ``kernel(X, Z, **kernel_params)`` returning the
        ``(len(X), len(Z))`` matrix.
    kernel_params : dict, optional
        Keyword arguments of the named or callable kernel, e.g. ``{"gamma": 0.5}``
        for the Gaussian or ``{"a": 0.5, "r": -1.0}`` for the sigmoid; None takes
        the kernel's defaults.
    class_weight : None, "balanced" or dict, default=None
        Per-class slack weights ``C_i = C * weight[y_i]`` (scikit-learn SVC's meaning).
    tol : float > 0, default=1e-6
        The relative step test above.
    max_iter : int >= 1, default=300
        DCA iterations at most (xu's demo: 300).
    random_state : None, int or RandomState, default=None
        Seed of the start ``beta_0`` uniform in ``[-1, 1]^n / scale`` (``b_0 = 1``).
    solver : "dca" or str, default="dca"
        ``"dca"``: each subproblem by the finite Newton method; or an installed CVXPY
        solver name ("CLARABEL"...): each subproblem by
        :class:`krein.formulations.dc.DCSubproblem`.
    solver_options : dict, optional
        Passed to the CVXPY solver (CVXPY subproblems only).
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
    accelerate : bool, default=False
        With ``approximation`` only: the accelerated DCA of Phan, Le & Le Thi (2018,
        "Accelerated difference of convex functions algorithm and its application to
        sparse binary logistic regression", IJCAI), each DCA step linearized at the
        extrapolation ``x_t + (s_{t-1} - 1) / s_t (x_t - x_{t-1})`` (Nesterov's ``s_t``)
        when it does not increase ``F``, else at ``x_t``; the objective still never
        increases, the step test and the stationarity certificate are the same
        (:func:`krein.solvers.dca.dca_landmarks`).  Default False: xu's iterates (the
        full-rank landmark path equals the exact one).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        The expansion coefficients ``beta`` on ``support_`` (landmark indices with an
        approximation).
    approximation_ : IndefiniteNystroem
        The fitted front end (with an approximation).
    support_, intercept_, classes_, support_vectors_, class_weight_ :
        As :class:`~krein.estimators.base.KernelClassifierBase`.
    n_iter_ : ndarray of shape (n_pairs,)
        DCA iterations of each binary model.
    objective_ : ndarray of shape (n_pairs,)
        ``F`` at the returned point.
    stationarity_ : ndarray of shape (n_pairs,)
        Relative stationarity residual of ``F`` there
        (:func:`krein.formulations.dc.dc_stationarity`).
    dc_constant_ : ndarray of shape (n_pairs,)
        xu's ``rho`` of each binary problem.
    trace_ : pandas.DataFrame
        Per-iteration records (``pair``, ``iter``, ``objective``, ``step``,
        ``armijo``, ``subproblem_iter``, ``subproblem_residual``, ``time``).
    solutions_, solution_, min_eigenvalue_ :
        As :class:`~krein.estimators.base.KernelClassifierBase`.

    Raises
    ------
    ValueError
        From ``fit``: bad parameters, NaN/inf, a non-square or asymmetric precomputed
        kernel, fewer than two classes.
    krein.solvers.SolverError
        A subproblem the CVXPY solver fails on, or non-finite iterates; the estimator is
        then left unfitted.

    References
    ----------
    Xu, Xue, Chen & Wang (2017), AAAI, the DC split (12), DCA with a line search;
    Xue, Xu, Chen & Wang (2020), Front. Comput. Sci. 14:349-363; Tao & An (1997), DCA;
    Lee & Mangasarian (2001), "RSVM: reduced support vector machines", SDM.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import DCSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = DCSVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5},
    ...             random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "solver": [SolverName(("dca",))],
        "solver_options": [dict, None],
        "approximation": [HasMethods(["fit_transform", "transform"]), None],
        "accelerate": ["boolean"],
    }

    def __init__(self, *, C=1.0, kernel="gaussian", kernel_params=None, class_weight=None,
                 tol=1e-6, max_iter=300, random_state=None, solver="dca", solver_options=None,
                 probability=False, approximation=None, accelerate=False):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.solver = solver
        self.solver_options = solver_options
        self.probability = probability
        self.approximation = approximation
        self.accelerate = accelerate

    def _check_params(self):
        self._check_approximation()
        self._solver = resolve_solver(self.solver, ("dca",))
        if self._approximate() and self._solver != "dca":
            raise ValueError("with an approximation IKSVM-DC solves its subproblems by the "
                             f"finite Newton method: solver='dca', not {self.solver!r}")
        if self.accelerate and not self._approximate():
            raise ValueError("accelerate=True applies to the landmark path (approximation=...); "
                             "the exact path runs xu's DCA")
        if self.solver_options and self._solver == "dca":
            raise ValueError("solver_options apply to a CVXPY solver; solver='dca' takes none "
                             f"(got {sorted(self.solver_options)})")

    #: The binary problems run concurrently (:func:`~krein.estimators.base.fit_pairs`): their
    #: starts are drawn from the one ``random_state`` stream in the problems' order
    #: (:class:`~krein.estimators.base.OrderedDraws`), as in a serial fit.
    _parallel_pairs = True

    def _fit(self, X, y):
        from sklearn.utils import check_random_state

        self._draws = OrderedDraws(check_random_state(self.random_state))
        try:
            return super()._fit(X, y)
        finally:
            self.__dict__.pop("_draws", None)

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
            Non-negative weights: sample ``i``'s squared hinge is weighted by ``C *
            class_weight[y_i] * sample_weight[i]``; a sample of weight 0 leaves the
            problem (its row and its expansion column).  The objective is that of
            the samples repeated (class docstring, "Sample weights"): the same
            critical points, and on a positive semidefinite kernel the same model.
            With an approximation the weights weigh the rows only (the landmarks are
            the expansion points).  With ``probability=True`` they also weigh Platt's
            sigmoid.

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
        # the start first (OrderedDraws: nothing may raise before it), of the kept rows' size
        start = self._draws.uniform(int(np.count_nonzero(np.broadcast_to(C, y.shape) > 0)))
        keep = positive_weight_rows(C, y)
        if keep is not None:      # weight 0: the sample's row and column removed
            K, y, C = K[np.ix_(keep, keep)], y[keep], C[keep]
        sol = dca(K, y, C, tol=self.tol, max_iter=self.max_iter, start=start,
                  solver=self._solver, solver_options=self.solver_options)
        info = {"n_iter": int(sol.iterations), "solution": sol, "objective": sol.objective,
                "stationarity": sol.certificate["grad_norm"],
                "dc_constant": sol.certificate["dc_constant"]}
        beta = np.asarray(sol.primal["beta"], dtype=float)
        if keep is not None:
            beta = np.zeros(idx.size)
            beta[keep] = sol.primal["beta"]
        return BinaryModel(idx, beta, float(sol.primal["b"]), info)

    def _fit_landmarks(self, C_rows, W, y, C_box):
        sol = dca_landmarks(C_rows, W, y, C_box, tol=self.tol, max_iter=self.max_iter,
                            start=self._draws.uniform(W.shape[0]), accelerate=self.accelerate)
        info = {"n_iter": int(sol.iterations), "solution": sol, "objective": sol.objective,
                "stationarity": sol.certificate["grad_norm"],
                "dc_constant": sol.certificate["dc_constant"]}
        return np.asarray(sol.primal["beta"], dtype=float), float(sol.primal["b"]), info

    def _after_fit(self, K):
        models = self.binary_models_
        self.objective_ = np.array([m.info["objective"] for m in models])
        self.stationarity_ = np.array([m.info["stationarity"] for m in models])
        self.dc_constant_ = np.array([m.info["dc_constant"] for m in models])
