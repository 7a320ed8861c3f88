"""IndefiniteSVM estimators (Luss & d'Aspremont 2009, "luss"): SVC, SVR, one-class, PerturbSVM.

Each estimator builds a :class:`~krein.formulations.indefinite.ProxyKernelProblem`
from the training kernel ``K0`` and hands it to an algorithm of
:mod:`krein.solvers` (projected gradient, accelerated gradient, ACCPM or the
exchange method), all of which stop on a certified duality gap.  The learned
proxy kernel is ``K* = (K0 + u u'/(4 rho))_+`` (Theorem 1) with ``u = y * alpha``
(SVC) or ``u = alpha`` (SVR, one-class); on the training points the decision
values are ``K* u + b``.

Out-of-sample maps (``out_of_sample``): a new point ``x`` has no coefficient in the
rank-one update, so the proxy kernel must be extended somehow.

* ``"spectral"`` (default): ``k*(x, X) = k(x, X) P_+`` with ``P_+`` the projector
  on the positive eigenspace of ``X(u) = K0 + u u'/(4 rho)``, the Nystroem-type
  extension of ``K* = X P_+`` (as Munoz & de Diego's clip map, applied to
  ``X(u)``); folded into the coefficients, so ``f(x) = k(x, X) (P_+ u) + b``.
* ``"transductive"``: luss §2.3 — add ``u u'/(4 rho)`` to the training block of the
  joint train+test kernel, clip the joint spectrum and read the test rows (with
  ``kernel="precomputed"``, pass ``(m, n + m)`` rows ``[K(test, train), K(test, test)]``).
  This is how luss Table 2 was evaluated; it is O((n + m)^3) per prediction.
* ``"clip"``: the ``rho -> infinity`` limit, ``k(x, X) V_+ V_+'`` with ``V_+`` the
  positive eigenvectors of ``K0``.
* ``"raw"``: the original kernel rows, ``f(x) = k(x, X) u + b`` (what PerturbSVM
  uses, luss §4.3: "only the support vectors are perturbed").

Large data (``approximation=``: :class:`IndefiniteSVC`, :class:`IndefiniteSVR`,
:class:`IndefiniteOneClassSVM`).  With a low-rank front end
(:class:`krein.approximation.IndefiniteNystroem`) the training kernel is its
approximation ``K0 = Z diag(s) Z'`` of rank ``r`` (signed Nyström features ``Z``,
Oglic & Gärtner 2019, §3), and the same algorithm ("pg" or "apg", the same step
rules and stopping test) runs on the O(n r) oracle of
:mod:`krein.solvers.indefinite.lowrank`: ``X(u) = K0 + u u'/(4 rho)`` lies in the
span of ``[Z, u]``, so the proxy kernel ``K*`` has rank at most ``r + 1`` and every
iteration is one ``(r + 1)``-dimensional diagonal-plus-rank-one problem after a
Gram-Schmidt step of ``u`` against ``Z`` (the rank-one update of luss Theorem 1 on
a factored kernel: O(n r + N r) per iteration, never ``n x n``).  The certificate is
the same duality gap, its SVM on ``K* = Phi Phi'`` a linear SVM on ``Phi``
(liblinear's SVC or SVR; the one-class model, without a linear solver, keeps the
Frank-Wolfe bounds of every iteration).  New points: their approximated
kernel rows are the Nyström extension ``k(x, X) = psi(x) diag(s) Z'`` (``psi(x)``
the front end's ``transform``), and the out-of-sample maps above apply to these rows
unchanged ("spectral": ``k(x, X) P_+`` with ``P_+`` the projector on the positive
eigenspace of ``X(u)``, which lies in the span of ``[Z, u]``), folded into weights on
``psi(x)``; "transductive" needs the exact test-test block and is refused.  With
every training point a landmark the approximation is exact and so is the path
(tests/test_indefinite_lowrank.py).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._fitting import fit_wrapper, warm_starts
from .._validation import NONNEGATIVE, POSITIVE, check_square_kernel
from ..formulations.indefinite import ProxyKernelProblem
from ..kernels import kernel_scale
from ..representation import SignedFeatures
from ..solvers import (INDEFINITE_ALGORITHMS, SolverName, indefinite_options, resolve_solver,
                       solve_indefinite)
from ..solvers.indefinite import (LOW_RANK_SOLVERS, OUT_OF_SAMPLE_MAPS, ProxyKernelOracle,
                                  perturb_svm_cvxpy)
from .approximate import ApproximationMixin, FrontEndMixin
from .base import KERNEL_CONSTRAINTS, N_JOBS, BinaryModel, KernelClassifierBase, KernelMixin
from .approximate import APPROXIMATION_CONSTRAINT as _APPROXIMATION

__all__ = ["IndefiniteSVC", "IndefiniteSVR", "IndefiniteOneClassSVM", "PerturbSVC",
           "OUT_OF_SAMPLE_MAPS"]

#: Out-of-sample maps of the proxy kernel (module docstring).
#: (imported from krein.solvers.indefinite, where the maps are computed)
#: Constraints shared by the proxy-kernel estimators (besides the kernel's and the model's).
_PROXY_CONSTRAINTS = {
    "rho": [POSITIVE],
    "solver": [SolverName(INDEFINITE_ALGORITHMS, cvxpy=False)],
    "out_of_sample": [StrOptions(set(OUT_OF_SAMPLE_MAPS))],
    "tol": [NONNEGATIVE],
    "atol": [NONNEGATIVE],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "gap_every": [Interval(Integral, 0, None, closed="left")],
    "solver_options": [dict, None],
}


#: Default tube width of :class:`IndefiniteSVR`, as a share of the targets' standard
#: deviation (libsvm's ``epsilon = 0.1`` on standardized targets).
EPSILON_SHARE = 0.1

#: Default ``rho`` of :class:`IndefiniteSVR`: the largest perturbation ``n C^2 / (4 rho)``
#: of the proxy kernel (luss eq. 16) is this share of ``||K0||_F``.
PROXY_PERTURBATION_SHARE = 0.1


# ---------------------------------------------------------------------------- shared
class _ProxyMixin:
    """Cross-parameter checks, the solve, and the out-of-sample maps shared by the estimators."""

    def _check_params(self):
        self._solver = resolve_solver(self.solver, INDEFINITE_ALGORITHMS, cvxpy=False)
        _check_solver_options(self._solver, self.solver_options)
        if getattr(self, "approximation", None) is not None:
            self._check_approximation()
            if self._solver not in LOW_RANK_SOLVERS:
                raise ValueError(f"with an approximation, solver must be one of "
                                 f"{LOW_RANK_SOLVERS} (the algorithms on the low-rank oracle); "
                                 f"got {self.solver!r}")
            if self.out_of_sample == "transductive":
                raise ValueError("out_of_sample='transductive' needs the test-test block of the "
                                 "exact kernel; with an approximation use 'spectral', 'clip' or "
                                 "'raw'")

    def _solve_proxy(self, P, beta0=None):
        """Solve ``P``; the Solution carries ``u`` (``primal["u"]``), the intercept and the
        coefficients for test rows (``coef``, the out-of-sample map folded in).  ``beta0``
        (a warm start) is the algorithm's starting point where it takes one."""
        opts = dict(self.solver_options or {})
        if beta0 is not None and "beta0" in indefinite_options(self._solver):
            opts["beta0"] = beta0
        return solve_indefinite(P, self._solver, tol=self.tol, atol=self.atol,
                                max_iter=self.max_iter, gap_every=self.gap_every,
                                out_of_sample=self.out_of_sample, **opts)

    def _transductive_values(self, K_fit, u, rows, K_tt):
        """luss §2.3: decision values (without intercept) of the test rows."""
        n = K_fit.shape[0]
        Ktr = K_fit + np.outer(u, u) / (4.0 * getattr(self, "rho_", self.rho))
        joint = np.block([[Ktr, rows.T], [rows, K_tt]])
        joint = 0.5 * (joint + joint.T)
        lam, V = np.linalg.eigh(joint)
        Vt = V[n:] * np.maximum(lam, 0.0)
        return (Vt @ V[:n].T) @ u


#: options the estimators set themselves (not accepted in ``solver_options``)
_RESERVED = ("problem", "tol", "atol", "max_iter", "gap_every", "oracle", "out_of_sample")


def _check_solver_options(solver, options):
    """``solver_options`` must be keywords that the algorithm ``solver`` accepts."""
    if not options:
        return
    accepted = [k for k in indefinite_options(solver) if k not in _RESERVED]
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"solver_options has unknown key(s) {bad} for solver={solver!r}; "
                         f"accepted: {accepted} (tol, atol, max_iter, gap_every are estimator "
                         f"parameters)")


# ---------------------------------------------------------------------------- SVC
class IndefiniteSVC(ApproximationMixin, _ProxyMixin, KernelClassifierBase):
    """SVM classification with an indefinite kernel through a learned proxy kernel.

    Solves luss eq. (4)/(7): ``max_{alpha} min_{K >= 0} 1'alpha - 1/2 u'K u +
    rho ||K - K0||_F^2`` with ``u = y * alpha``, ``y'alpha = 0``, ``0 <= alpha <= C``.

    Class weights.  ``class_weight`` gives per-sample box bounds ``0 <= alpha_i <=
    C_i = C * weight[y_i]`` (scikit-learn SVC's meaning), which every algorithm
    takes: the projection of "pg"/"apg" onto ``{y'alpha = 0, 0 <= alpha <= C_i}``,
    the cuts of "accpm"/"exchange" and the certified bounds all use the vector of
    bounds.  Luss & d'Aspremont's own code weights ``C`` by the class ratio on
    unbalanced data (the paper does not say so); ``class_weight="balanced"``
    (``n / (2 n_c)`` per class) gives the two classes bounds in that ratio,
    ``C_+ / C_- = n_- / n_+``, up to the overall scale of ``C``.

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound ``0 <= alpha_i <= C`` (luss eq. 4).
    rho : float > 0, default=1.0
        Penalty on ``||K - K0||_F^2`` (luss eq. 3); large ``rho`` keeps the proxy
        kernel close to ``K0`` (the clipped kernel in the limit).
    solver : {"pg", "apg", "accpm", "exchange"}, default="pg"
        The algorithm (case-insensitive): projected gradient (luss Algorithm 1),
        accelerated projected gradient (FISTA), ACCPM (Algorithm 2) or the
        exchange method (Algorithm 3); all stop on a certified duality gap.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix, the
        prediction methods an ``(m, n)`` matrix against the training points, or
        ``(m, n + m)`` rows ``[K(test, train), K(test, test)]`` with
        ``out_of_sample="transductive"``), a name of :data:`krein.kernels.KERNELS`
        or a callable ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    class_weight : None, "balanced" or dict {label: weight}, default=None
        Per-class box bounds ``C * weight`` (see above).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, default="spectral"
        Out-of-sample map of the proxy kernel (module docstring of
        :mod:`krein.estimators.indefinite`; :func:`krein.solvers.indefinite.out_of_sample_coef`).
    tol : float >= 0, default=1e-3
        Relative tolerance on the certified duality gap, relative to
        ``max(|f - g(0)|, 1/2 u'|K0| u)`` (the objective minus its constant part, or
        the kernel term where that is near zero; :attr:`Certifier.scale
        <krein.solvers.indefinite.Certifier.scale>`).
    atol : float >= 0, default=1e-8
        Floor of the certified duality gap in the unit of the data: stop when
        ``gap <= atol * unit``, ``unit = 1/2 max|lam(K)| max_i C_i^2`` (the
        kernel term of one point at its bound; :attr:`Certifier.unit
        <krein.solvers.indefinite.Certifier.unit>`); an absolute floor
        certified every point of a kernel scaled by ``1e-8``.
    max_iter : int >= 1, default=1000
        Iteration limit of the algorithm (a ``ConvergenceWarning`` when it is hit).
    gap_every : int >= 0, default=10
        Iterations between libsvm gap checks (0: only the free Frank-Wolfe bound).
    solver_options : dict, optional
        Extra keyword options of the algorithm (e.g. ``{"step": "diminishing",
        "step0": 5}`` for "pg", ``{"solver": "SCS"}`` (the CVXPY solver of its master
        problem) for "exchange"); ``tol``, ``atol``, ``max_iter``, ``gap_every``,
        ``oracle`` and ``out_of_sample`` are set by the estimator, and an unknown key
        is a ``ValueError`` at fit time.
    warm_start : bool, default=False
        Start each binary problem's algorithm ("pg", "apg", "accpm") at the previous
        fit's ``alpha`` of the same training points, projected onto the new feasible set
        (scikit-learn's ``warm_start``): along a path of ``C`` or ``rho`` the algorithm
        stops after fewer iterations at a point certified to the same ``tol``.  The
        solution is the same up to that certificate, not bit for bit.  Without a
        previous exact-path fit on the same points (or with "exchange", or the
        calibration fits of ``probability=True``) the fit starts cold.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    n_jobs : int or None, default=None
        joblib workers (threads: the oracle's NumPy / LAPACK work releases the
        GIL) over the one-vs-one pairs; None: joblib's ``parallel_config`` (one
        outside it, and inside ``krein compare``'s workers); -1: all cores.
        Changes the time, never the result (:func:`krein.estimators.base.fit_pairs`).
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`; None:
        the exact kernel).  With it ``fit`` takes the front end's input (feature
        vectors, or with ``kernel="precomputed"`` the columns ``K(objects,
        landmarks)``, the front end holding the landmark block), the prediction
        methods the same kind of rows for new points, and the algorithm ("pg" or
        "apg") runs on the O(n r) oracle of :mod:`krein.solvers.indefinite.lowrank`,
        one-vs-one on each pair's sub-kernel, never forming an ``n x n`` array
        (module docstring, "Large data").

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        Weight of each class.
    objective_ : ndarray of shape (n_pairs,)
        Final value of (7) for each binary problem (the certified lower bound).
    duality_gap_ : ndarray of shape (n_pairs,)
        Certified gap (upper bound minus ``objective_``).
    n_iter_ : ndarray of shape (n_pairs,)
        Iterations of the algorithm for each binary problem.
    trace_ : pandas.DataFrame
        Per-iteration records of all binary problems (column ``pair``):
        objective, bounds, gap, step, seconds.
    alpha_ : ndarray of shape (n_pairs, n_train)
        Dual variables (zero off each pair; exact path only, the approximate path
        keeps each pair's in ``solutions_[k].primal["alpha"]``).
    proxy_dual_coef_ : ndarray of shape (n_pairs, n_train)
        ``u = y * alpha``: the coefficients on the proxy kernel ``K*`` (exact path only).
    approximation_ : transformer
        With an approximation: the fitted clone.
    coef_ : ndarray of shape (n_pairs, r)
        With an approximation: the weights on the front end's features of new
        points, ``f(x) = psi(x) coef + b`` (the out-of-sample map folded in).
    eigenvalues_ : ndarray of shape (r,)
        With an approximation: the nonzero eigenvalues of ``K_approx``.
    kernel_scale_ : float
        ``kernel_scale(K)`` of the training kernel (:func:`krein.kernels.kernel_scale`),
        the unit of the model: under ``K -> c K`` with ``C -> C/c`` and
        ``rho -> rho/c^3`` (the registry's exponents) the default step rules
        (backtracking from ``1/lam_max``, ``1/L``) and the relative stopping rule
        make the same iterations and predictions (tests/test_scale_invariance.py);
        ``solver_options={"step": "diminishing"}`` is the paper's absolute ``5/k``
        and is not scale-free.
    dual_coef_, support_, intercept_, classes_ :
        As :class:`~krein.estimators.base.KernelClassifierBase`; ``dual_coef_`` are
        the coefficients applied to the raw test rows (the out-of-sample map
        folded in, except for "transductive").

    References
    ----------
    Luss & d'Aspremont (2009), eqs. (4), (5), (7), §2.3, Algorithms 1-3.  The
    approximate path: Oglic & Gärtner (2019), "Scalable learning in reproducing
    kernel Krein spaces", ICML, §3 (the Nyström eigenfeatures), with luss Theorem 1's
    rank-one update on the factored kernel (module docstring, "Large data").

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import IndefiniteSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = IndefiniteSVC(rho=1.0, kernel="sigmoid",
    ...                     kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {**KernelClassifierBase._parameter_constraints,
                                    **_PROXY_CONSTRAINTS, "n_jobs": N_JOBS,
                                    "approximation": _APPROXIMATION, "warm_start": ["boolean"]}

    _parallel_pairs = True

    def __init__(self, *, C=1.0, rho=1.0, solver="pg", kernel="gaussian", kernel_params=None,
                 class_weight=None, out_of_sample="spectral", tol=1e-3, atol=1e-8, max_iter=1000,
                 gap_every=10, solver_options=None, warm_start=False, probability=False,
                 n_jobs=None, approximation=None):
        self.C = C
        self.rho = rho
        self.solver = solver
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.out_of_sample = out_of_sample
        self.tol = tol
        self.atol = atol
        self.max_iter = max_iter
        self.gap_every = gap_every
        self.solver_options = solver_options
        self.warm_start = warm_start
        self.probability = probability
        self.n_jobs = n_jobs
        self.approximation = approximation

    def _warm_start_points(self):
        """The previous fit's ``alpha`` of each binary problem, keyed by its training
        indices (:func:`krein._fitting.warm_starts`); None when not fitted on the exact path."""
        models = getattr(self, "binary_models_", None)
        if not models or getattr(self, "approximation_", None) is not None:
            return None
        return {np.asarray(m.idx).tobytes(): m.info["alpha"] for m in models}

    def _fit_binary(self, K, y, idx, C):
        P = ProxyKernelProblem(K, y, model="svc", C=C, rho=self.rho, check=False)
        sol = self._solve_proxy(P, warm_starts(self).get(np.asarray(idx).tobytes()))
        info = {"n_iter": sol.iterations, "solution": sol, "u": sol.primal["u"],
                "alpha": sol.primal["alpha"]}
        return BinaryModel(idx, sol.coef, sol.intercept, info)

    def _fit_features(self, rep, y, C):
        """One binary model on a low-rank representation (the approximate path).

        The pair's eigenfeatures ``F`` (``rep.eigenfeatures()``: the approximation's
        features, or a pair's refactored sub-kernel) are the problem's ``K0 = F diag(s) F'``;
        the solver's weights on the eigenfeatures of new points are mapped to the
        front end's features (``f(x) = psi(x) coef + b``)."""
        ef = rep.eigenfeatures()
        K0 = SignedFeatures(ef.features, ef.signs, eigenvalues=ef.eigenvalues, check_input=False)
        P = ProxyKernelProblem(K0, y, model="svc", C=C, rho=self.rho)
        sol = self._solve_proxy(P)
        info = {"n_iter": sol.iterations, "solution": sol, "u": sol.primal["u"],
                "alpha": sol.primal["alpha"]}
        return ef.to_rows(sol.coef), sol.intercept, info

    def _after_fit(self, K):
        _proxy_after_fit(self, K)

    def _after_fit_approximate(self):
        models = self.binary_models_
        self.objective_ = np.array([m.info["solution"].objective for m in models])
        self.duality_gap_ = np.array([m.info["solution"].gap for m in models])

    def _test_rows(self, X):
        if self.out_of_sample != "transductive":
            return super()._test_rows(X)
        return _transductive_rows(self, X, super()._test_rows)

    def _binary_decisions(self, K_rows, extra=None):
        if self.out_of_sample != "transductive":
            return super()._binary_decisions(K_rows, extra)
        out = []
        for m in self.binary_models_:
            Kb = self.K_fit_[np.ix_(m.idx, m.idx)]
            out.append(self._transductive_values(Kb, m.info["u"], K_rows[:, m.idx], extra)
                       + m.intercept)
        return np.column_stack(out)


def _proxy_after_fit(est, K):
    import pandas as pd

    models = est.binary_models_
    n = K.shape[0]
    est.objective_ = np.array([m.info["solution"].objective for m in models])
    est.kernel_scale_ = kernel_scale(K)
    est.duality_gap_ = np.array([m.info["solution"].gap for m in models])
    est.alpha_ = np.zeros((len(models), n))
    est.proxy_dual_coef_ = np.zeros((len(models), n))
    frames = []
    for r, m in enumerate(models):
        est.alpha_[r, m.idx] = m.info["alpha"]
        est.proxy_dual_coef_[r, m.idx] = m.info["u"]
        tr = m.info["solution"].trace
        if tr is not None and len(tr):
            tr = tr.copy()
            tr.insert(0, "pair", r)
            frames.append(tr)
    est.trace_ = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if getattr(est, "out_of_sample", None) == "transductive":
        est.K_fit_ = K
        est.support_ = np.arange(n)
        est.dual_coef_ = est.proxy_dual_coef_.copy()
        if hasattr(est, "X_fit_"):
            est.support_vectors_ = est.X_fit_


def _transductive_rows(est, X, default_rows):
    """Test rows and the test-test block for the transductive map."""
    check_is_fitted(est, "K_fit_")
    n = est.K_fit_.shape[0]
    if est._precomputed():
        X = check_array(X, dtype=np.float64)
        m = X.shape[0]
        if X.shape[1] != n + m:
            raise ValueError(
                f"with out_of_sample='transductive' and a precomputed kernel, pass (m, n + m) rows "
                f"[K(test, train), K(test, test)] with n = {n}; got shape {X.shape}")
        return X[:, :n], X[:, n:]
    rows, Xv = default_rows(X)
    return rows, est._gram(Xv)


# ---------------------------------------------------------------------------- single-problem base
class _SingleProxyEstimator(FrontEndMixin, _ProxyMixin, KernelMixin, BaseEstimator):
    """Fit/predict machinery of the SVR and one-class estimators (one problem, no classes)."""

    _model = None

    _parameter_constraints: dict = {**KERNEL_CONSTRAINTS, **_PROXY_CONSTRAINTS,
                                    "approximation": _APPROXIMATION, "warm_start": ["boolean"]}

    @fit_wrapper
    def fit(self, X, y=None):
        """Fit the model.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix.
        y : array of shape (n,)
            Targets (SVR); ignored by the one-class SVM.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf, a non-square or asymmetric precomputed kernel.
        krein.solvers.SolverError
            If a CVXPY subproblem fails; the estimator is then left unfitted.
        """
        # fit_wrapper has run the parameter checks (and _check_params) before this body
        return self._fit(X, y)

    def _fit(self, X, y):
        self.__dict__.pop("_warm_point", None)   # set again by an exact-path fit only
        if self._model == "svr":
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=2)
        else:
            X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        if self._approximate():
            return self._fit_low_rank(X, y)
        if self._precomputed():
            K = check_square_kernel(X, "X (precomputed kernel)")
            X_fit = None
        else:
            X_fit = X
            K = check_square_kernel(self._gram(X), "kernel matrix")
        start = warm_starts(self)
        P = self._problem(K, y)
        beta0 = start.get("beta")
        if beta0 is not None and beta0.shape != (P.m,):
            beta0 = None
        if beta0 is not None and self._model == "svr" and self.rho is None:
            # the default rho follows C^2: scaling the point by the ratio of the C values
            # keeps the proxy kernel's update u u' / (4 rho) of the previous fit
            beta0 = beta0 * (float(self.C) / start["C"])
        sol = self._solve_proxy(P, beta0)
        self._set_fitted(K, X_fit, P, sol, sol.primal["u"], sol.intercept, sol.coef)
        return self

    def _warm_start_points(self):
        """The previous exact-path fit's point ``beta`` (:func:`krein._fitting.warm_starts`);
        None when not fitted, or fitted on the approximate path."""
        if getattr(self, "solution_", None) is None:
            return None
        return getattr(self, "_warm_point", None)

    def _set_fitted(self, K, X_fit, P, sol, u, nu, coef):
        n = K.shape[0]
        scale = self._coef_scale(n)
        self.alpha_ = P.alpha_of(sol.primal["beta"])
        self.proxy_dual_coef_ = u
        self.objective_ = float(sol.objective)
        self.duality_gap_ = float(sol.gap)
        self.n_iter_ = int(sol.iterations)
        self.trace_ = sol.trace
        self.solution_ = sol
        # the point a warm_start refit starts from, with the box bound it was solved at
        self._warm_point = {"beta": np.asarray(sol.primal["beta"]),
                            "C": float(getattr(self, "C", 1.0))}
        self.shape_fit_ = (n,) if X_fit is None else X_fit.shape
        if self.out_of_sample == "transductive":
            support = np.arange(n)
            self.K_fit_ = K
        else:
            support = np.flatnonzero(coef != 0)
        self.support_ = support
        self.dual_coef_ = (scale * coef[support])[None, :]
        if X_fit is not None:
            self.X_fit_ = X_fit
            self.support_vectors_ = X_fit[support]

    def _fit_low_rank(self, X, y):
        """The approximate path: the problem on the front end's eigenfeatures (module
        docstring, "Large data"); ``coef_`` weighs the features of new points."""
        approx, rep = self._fit_front_end(X)
        ef = rep.eigenfeatures()
        K0 = SignedFeatures(ef.features, ef.signs, eigenvalues=ef.eigenvalues, check_input=False)
        P = self._problem(K0, y)
        sol = self._solve_proxy(P)
        n = rep.n
        self.approximation_ = approx
        self.eigenvalues_ = ef.eigenvalues
        self.alpha_ = P.alpha_of(sol.primal["beta"])
        self.proxy_dual_coef_ = sol.primal["u"]
        self.objective_ = float(sol.objective)
        self.duality_gap_ = float(sol.gap)
        self.n_iter_ = int(sol.iterations)
        self.trace_ = sol.trace
        self.solution_ = sol
        self.coef_ = self._coef_scale(n) * ef.to_rows(sol.coef)
        self._set_offset(sol.intercept, n)
        return self

    def _set_offset(self, nu, n):
        """Hook: the intercept (SVR) or offset (one-class) from the LP multiplier ``nu``."""

    def _coef_scale(self, n):
        return 1.0

    def _raw_decision(self, X):
        """Kernel expansion without intercept/offset, shape (m,)."""
        if self._approximate():
            check_is_fitted(self, "coef_")
            return self._front_end_rows(X) @ self.coef_
        check_is_fitted(self, "dual_coef_")
        if self.out_of_sample == "transductive":
            rows, K_tt = _transductive_rows(self, X, self._rows)
            return self._coef_scale(self.K_fit_.shape[0]) * self._transductive_values(
                self.K_fit_, self.proxy_dual_coef_, rows, K_tt)
        rows, _ = self._rows(X)
        return rows[:, self.support_] @ self.dual_coef_[0]

    def _rows(self, X):
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self._precomputed():
            return X, None
        return self._gram(X, self.X_fit_), X


# ---------------------------------------------------------------------------- SVR
class IndefiniteSVR(RegressorMixin, _SingleProxyEstimator):
    """Support vector regression with an indefinite kernel (luss §4.1, Corollary 2, eq. 17).

    ``max_{alpha} min_{K >= 0} y'alpha - eps |alpha|_1 - 1/2 alpha'K alpha +
    rho ||K - K0||_F^2`` subject to ``1'alpha = 0``, ``-C <= alpha <= C``; the proxy
    kernel is ``(K0 + alpha alpha'/(4 rho))_+`` (eq. 16).  (luss eq. 14 prints
    ``alpha'y - |alpha|``; the tube width ``epsilon`` of the epsilon-insensitive
    loss is written out here.)  ``alpha = alpha+ - alpha-`` with both parts in
    ``[0, C]`` makes the feasible set a box with one equality.

    The defaults are relative to the data (:data:`EPSILON_SHARE`,
    :data:`PROXY_PERTURBATION_SHARE`): the tube is a tenth of the targets' standard
    deviation, as libsvm's ``epsilon = 0.1`` on standardized targets, and ``rho``
    allows the proxy kernel to move from ``K0`` by at most a tenth of ``||K0||_F``.
    The perturbation of eq. (16) is ``u u' / (4 rho)`` with ``|u_i| <= C``, so
    ``||K* - K0||_F <= n C^2 / (4 rho)`` before the projection, and the default
    ``rho = n C^2 / (4 * 0.1 * ||K0||_F)`` bounds it by ``0.1 ||K0||_F``.  Under
    ``K -> s K`` with ``C -> C / s`` (the registry's exponents) this ``rho`` follows
    ``s^-3``, the exponent of a fixed ``rho``, so the default fits the same model on
    ``K`` and ``s K``.  (A fixed ``rho = 1`` lets the fourth-order term
    ``|u|^4 / (16 rho)`` of the objective shrink ``alpha`` on a kernel of unit scale:
    training R^2 = 0.42 on scikit-learn's regression check data, against 0.8 for
    the rule.)

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound ``-C <= alpha_i <= C`` (luss eq. 17).
    epsilon : float >= 0 or None, default=None
        Width of the insensitive tube; None: ``0.1 * std(y)`` (``epsilon_``).
    rho : float > 0 or None, default=None
        Penalty on ``||K - K0||_F^2`` (luss eq. 3); large ``rho`` keeps the proxy
        kernel close to ``K0`` (the clipped kernel in the limit).  None:
        ``n C^2 / (4 * 0.1 * ||K0||_F)`` (``rho_``; class docstring).
    solver : {"pg", "apg", "accpm", "exchange"}, default="apg"
        The algorithm (case-insensitive): projected gradient (luss Algorithm 1),
        accelerated projected gradient (FISTA), ACCPM (Algorithm 2) or the
        exchange method (Algorithm 3); all stop on a certified duality gap.  The
        default is "apg": the SVR's problem has two variables per point, and plain
        projected gradient reaches ``max_iter`` at large ``C`` where the accelerated
        one certifies its gap in fewer iterations (``benchmarks/svr_solver.py``).
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix, the
        prediction methods an ``(m, n)`` matrix against the training points, or
        ``(m, n + m)`` rows ``[K(test, train), K(test, test)]`` with
        ``out_of_sample="transductive"``), a name of :data:`krein.kernels.KERNELS`
        or a callable ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, default="spectral"
        Out-of-sample map of the proxy kernel (module docstring of
        :mod:`krein.estimators.indefinite`; :func:`krein.solvers.indefinite.out_of_sample_coef`).
    tol : float >= 0, default=1e-3
        Relative tolerance on the certified duality gap, relative to
        ``max(|f - g(0)|, 1/2 u'|K0| u)`` (the objective minus its constant part, or
        the kernel term where that is near zero; :attr:`Certifier.scale
        <krein.solvers.indefinite.Certifier.scale>`).
    atol : float >= 0, default=1e-8
        Floor of the certified duality gap in the unit of the data: stop when
        ``gap <= atol * unit``, ``unit = 1/2 max|lam(K)| max_i C_i^2`` (the
        kernel term of one point at its bound; :attr:`Certifier.unit
        <krein.solvers.indefinite.Certifier.unit>`); an absolute floor
        certified every point of a kernel scaled by ``1e-8``.
    max_iter : int >= 1, default=1000
        Iteration limit of the algorithm (a ``ConvergenceWarning`` when it is hit).
    gap_every : int >= 0, default=10
        Iterations between libsvm gap checks (0: only the free Frank-Wolfe bound).
    solver_options : dict, optional
        Extra keyword options of the algorithm (e.g. ``{"step": "diminishing",
        "step0": 5}`` for "pg", ``{"solver": "SCS"}`` (the CVXPY solver of its master
        problem) for "exchange"); ``tol``, ``atol``, ``max_iter``, ``gap_every``,
        ``oracle`` and ``out_of_sample`` are set by the estimator, and an unknown key
        is a ``ValueError`` at fit time.
    warm_start : bool, default=False
        Start the algorithm ("pg", "apg", "accpm") at the previous exact-path fit's
        point on a training set of the same size, projected onto the new feasible set
        (scikit-learn's ``warm_start``; as :class:`IndefiniteSVC`): the same problem,
        certified to the same ``tol``, in fewer iterations along a path of the
        parameters.
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`; None:
        the exact kernel), as in :class:`IndefiniteSVC`: ``fit`` and the prediction
        methods take the front end's input, "pg" or "apg" run on the O(n r) oracle of
        :mod:`krein.solvers.indefinite.lowrank` (module docstring, "Large data";
        the gap checks of the one-class model keep the Frank-Wolfe bound: no linear
        one-class solver).

    Attributes
    ----------
    epsilon_ : float
        The tube width used (``epsilon``, or its default from the targets).
    rho_ : float
        The penalty used (``rho``, or its default from ``C`` and ``||K0||_F``).
    coef_ : ndarray of shape (r,)
        With an approximation: the weights on the front end's features of new points
        (the out-of-sample map and the coefficient scale folded in; without it the
        expansion is ``dual_coef_`` on ``support_``).
    approximation_ : transformer
        With an approximation: the fitted clone.
    dual_coef_ : ndarray of shape (1, n_SV)
        Coefficients applied to the raw test rows (map folded in).
    support_ : ndarray of shape (n_SV,)
    intercept_ : ndarray of shape (1,)
    alpha_ : ndarray of shape (n,)
        ``alpha+ - alpha-`` (the coefficients on the proxy kernel).
    objective_ : float
        Final value of (17).
    duality_gap_ : float
        Certified gap.
    n_iter_ : int
        Iterations of the algorithm.
    trace_ : pandas.DataFrame
        Per-iteration records: objective, bounds, gap, step, seconds.

    References
    ----------
    Luss & d'Aspremont (2009), §4.1, eqs. (14)-(17).

    Examples
    --------
    A sine on 40 points under the (indefinite) sigmoid kernel:

    >>> import numpy as np
    >>> from krein import IndefiniteSVR
    >>> X = np.linspace(-1, 1, 40)[:, None]
    >>> y = np.sin(3 * X[:, 0])
    >>> reg = IndefiniteSVR(kernel="sigmoid", kernel_params={"a": 1.0, "r": -0.5}).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    >>> bool(reg.score(X, y) >= 0.3)
    True
    """

    _model = "svr"

    _parameter_constraints: dict = {**_SingleProxyEstimator._parameter_constraints,
                                    "C": [POSITIVE], "epsilon": [NONNEGATIVE, None],
                                    "rho": [POSITIVE, None]}

    def __init__(self, *, C=1.0, epsilon=None, rho=None, solver="apg", kernel="gaussian",
                 kernel_params=None, out_of_sample="spectral", tol=1e-3, atol=1e-8, max_iter=1000,
                 gap_every=10, solver_options=None, warm_start=False, approximation=None):
        self.C = C
        self.epsilon = epsilon
        self.rho = rho
        self.solver = solver
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.out_of_sample = out_of_sample
        self.tol = tol
        self.atol = atol
        self.max_iter = max_iter
        self.gap_every = gap_every
        self.solver_options = solver_options
        self.warm_start = warm_start
        self.approximation = approximation

    def _problem(self, K, y):
        """Problem (17) on ``K`` (an array or the approximation's signed features), with
        the data-relative defaults of ``epsilon`` and ``rho`` resolved (class docstring)."""
        self.epsilon_ = (EPSILON_SHARE * float(np.std(y)) if self.epsilon is None
                         else float(self.epsilon))
        if self.rho is None:
            if isinstance(K, SignedFeatures):
                norm = float(np.linalg.norm(K.eigenvalues))
            else:
                norm = float(np.linalg.norm(K))
            n = np.shape(y)[0]
            self.rho_ = n * float(self.C) ** 2 / (4.0 * PROXY_PERTURBATION_SHARE
                                                  * (norm if norm > 0 else 1.0))
        else:
            self.rho_ = float(self.rho)
        return ProxyKernelProblem(K, y, model="svr", C=self.C, rho=self.rho_,
                                  epsilon=self.epsilon_, check=False)

    def _set_fitted(self, K, X_fit, P, sol, u, nu, coef):
        super()._set_fitted(K, X_fit, P, sol, u, nu, coef)
        self.intercept_ = np.array([nu])

    def _set_offset(self, nu, n):
        self.intercept_ = np.array([nu])

    def predict(self, X):
        """Predicted targets ``k*(x, X) alpha + b``.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``
            (``(m, n_train + m)`` rows ``[K(test, train), K(test, test)]`` with
            ``out_of_sample="transductive"``).

        Returns
        -------
        ndarray of shape (m,)
            The kernel expansion through the out-of-sample map, plus ``intercept_``.
        """
        return self._raw_decision(X) + self.intercept_[0]


# ---------------------------------------------------------------------------- one-class
class IndefiniteOneClassSVM(OutlierMixin, _SingleProxyEstimator):
    """One-class SVM with an indefinite kernel (luss §4.2, eq. 20).

    ``max_{alpha} min_{K >= 0} -1/2 alpha'K alpha + rho ||K - K0||_F^2`` subject to
    ``1'alpha = 1``, ``0 <= alpha <= 1/(nu n)`` (luss eqs. 18-20, Schoelkopf et al.
    2001).  Scaled as scikit-learn's :class:`~sklearn.svm.OneClassSVM` (whose
    coefficients sum to ``nu n``): ``dual_coef_ = nu n alpha`` on the support, and
    ``decision_function = score_samples - offset_`` is positive for inliers.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        Upper bound on the fraction of outliers / lower bound on support vectors
        (box ``0 <= alpha_i <= 1/(nu n)``, luss eq. 20).
    rho : float > 0, default=1.0
        Penalty on ``||K - K0||_F^2`` (luss eq. 3); large ``rho`` keeps the proxy
        kernel close to ``K0`` (the clipped kernel in the limit).
    solver : {"pg", "apg", "accpm", "exchange"}, default="pg"
        The algorithm (case-insensitive): projected gradient (luss Algorithm 1),
        accelerated projected gradient (FISTA), ACCPM (Algorithm 2) or the
        exchange method (Algorithm 3); all stop on a certified duality gap.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix, the
        prediction methods an ``(m, n)`` matrix against the training points, or
        ``(m, n + m)`` rows ``[K(test, train), K(test, test)]`` with
        ``out_of_sample="transductive"``), a name of :data:`krein.kernels.KERNELS`
        or a callable ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, default="spectral"
        Out-of-sample map of the proxy kernel (module docstring of
        :mod:`krein.estimators.indefinite`; :func:`krein.solvers.indefinite.out_of_sample_coef`).
    tol : float >= 0, default=1e-3
        Relative tolerance on the certified duality gap, relative to
        ``max(|f - g(0)|, 1/2 u'|K0| u)`` (the objective minus its constant part, or
        the kernel term where that is near zero; :attr:`Certifier.scale
        <krein.solvers.indefinite.Certifier.scale>`).
    atol : float >= 0, default=1e-8
        Floor of the certified duality gap in the unit of the data: stop when
        ``gap <= atol * unit``, ``unit = 1/2 max|lam(K)| max_i C_i^2`` (the
        kernel term of one point at its bound; :attr:`Certifier.unit
        <krein.solvers.indefinite.Certifier.unit>`); an absolute floor
        certified every point of a kernel scaled by ``1e-8``.
    max_iter : int >= 1, default=1000
        Iteration limit of the algorithm (a ``ConvergenceWarning`` when it is hit).
    gap_every : int >= 0, default=10
        Iterations between libsvm gap checks (0: only the free Frank-Wolfe bound).
    solver_options : dict, optional
        Extra keyword options of the algorithm (e.g. ``{"step": "diminishing",
        "step0": 5}`` for "pg", ``{"solver": "SCS"}`` (the CVXPY solver of its master
        problem) for "exchange"); ``tol``, ``atol``, ``max_iter``, ``gap_every``,
        ``oracle`` and ``out_of_sample`` are set by the estimator, and an unknown key
        is a ``ValueError`` at fit time.
    warm_start : bool, default=False
        Start the algorithm ("pg", "apg", "accpm") at the previous exact-path fit's
        point on a training set of the same size, projected onto the new feasible set
        (scikit-learn's ``warm_start``; as :class:`IndefiniteSVC`): the same problem,
        certified to the same ``tol``, in fewer iterations along a path of the
        parameters.
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`; None:
        the exact kernel), as in :class:`IndefiniteSVC`: ``fit`` and the prediction
        methods take the front end's input, "pg" or "apg" run on the O(n r) oracle of
        :mod:`krein.solvers.indefinite.lowrank` (module docstring, "Large data";
        the gap checks of the one-class model keep the Frank-Wolfe bound: no linear
        one-class solver).

    Attributes
    ----------
    coef_ : ndarray of shape (r,)
        With an approximation: the weights on the front end's features of new points
        (the out-of-sample map and the coefficient scale folded in; without it the
        expansion is ``dual_coef_`` on ``support_``).
    approximation_ : transformer
        With an approximation: the fitted clone.
    dual_coef_ : ndarray of shape (1, n_SV)
    support_ : ndarray of shape (n_SV,)
    offset_ : float
        The offset ``rho'`` of the decision function (scaled by ``nu n``).
    alpha_ : ndarray of shape (n,)
        Dual variables (summing to one).
    objective_, duality_gap_, n_iter_, trace_ :
        As :class:`IndefiniteSVR`.

    References
    ----------
    Luss & d'Aspremont (2009), §4.2, eqs. (18)-(20).

    Examples
    --------
    Under the sigmoid kernel, with ``nu=0.5`` about half of the points are outliers:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import IndefiniteOneClassSVM
    >>> X, _ = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> oc = IndefiniteOneClassSVM(nu=0.5, kernel="sigmoid",
    ...                            kernel_params={"a": 0.05, "r": -0.5}).fit(X)
    >>> sorted(set(oc.predict(X).tolist()))
    [-1, 1]
    """

    _model = "one-class"

    _parameter_constraints: dict = {**_SingleProxyEstimator._parameter_constraints,
                                    "nu": [Interval(Real, 0, 1, closed="right")]}

    def __init__(self, *, nu=0.5, rho=1.0, solver="pg", kernel="gaussian", kernel_params=None,
                 out_of_sample="spectral", tol=1e-3, atol=1e-8, max_iter=1000, gap_every=10,
                 solver_options=None, warm_start=False, approximation=None):
        self.nu = nu
        self.rho = rho
        self.solver = solver
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.out_of_sample = out_of_sample
        self.tol = tol
        self.atol = atol
        self.max_iter = max_iter
        self.gap_every = gap_every
        self.solver_options = solver_options
        self.warm_start = warm_start
        self.approximation = approximation

    def _problem(self, K, y):
        return ProxyKernelProblem(K, None, model="one-class", nu=self.nu, rho=self.rho, check=False)

    def _coef_scale(self, n):
        return self.nu * n

    def _set_fitted(self, K, X_fit, P, sol, u, nu, coef):
        super()._set_fitted(K, X_fit, P, sol, u, nu, coef)
        # LP multiplier of 1'alpha = 1 is minus the offset of K* alpha
        self.offset_ = float(-nu) * self._coef_scale(K.shape[0])

    def _set_offset(self, nu, n):
        self.offset_ = float(-nu) * self._coef_scale(n)

    def score_samples(self, X):
        """Kernel expansion ``nu n k*(x, X) alpha`` (no offset).

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``
            (``(m, n_train + m)`` rows ``[K(test, train), K(test, test)]`` with
            ``out_of_sample="transductive"``).

        Returns
        -------
        ndarray of shape (m,)
            The scores, on scikit-learn's :class:`~sklearn.svm.OneClassSVM` scale.
        """
        return self._raw_decision(X)

    def decision_function(self, X):
        """Signed distance to the boundary, ``score_samples(X) - offset_``.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``
            (``(m, n_train + m)`` rows ``[K(test, train), K(test, test)]`` with
            ``out_of_sample="transductive"``).

        Returns
        -------
        ndarray of shape (m,)
            Positive for inliers, negative for outliers.
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """Label new points as inliers or outliers.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``
            (``(m, n_train + m)`` rows ``[K(test, train), K(test, test)]`` with
            ``out_of_sample="transductive"``).

        Returns
        -------
        ndarray of shape (m,)
            +1 for inliers (``decision_function >= 0``), -1 for outliers.
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def fit_predict(self, X, y=None):
        """Fit, then predict on the training points.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix; the
            same ``X`` is then passed to :meth:`predict`.
        y : None
            Ignored; present for scikit-learn API compatibility.

        Returns
        -------
        ndarray of shape (n,)
            +1 for inliers, -1 for outliers.
        """
        return self.fit(X).predict(X)


# ---------------------------------------------------------------------------- PerturbSVM
class PerturbSVC(KernelClassifierBase):
    """PerturbSVM (luss §4.3, eq. 22): an SVM on a PSD kernel with perturbed support vectors.

    For PSD ``K0`` the proxy kernel of Theorem 1 is the rank-one update
    ``K0 + u u'/(4 rho)`` (eq. 21) and problem (4) becomes the standard SVM dual
    with a fourth-order penalty ``- ||alpha||^4 / (16 rho)`` (eq. 22), a convex
    problem solved directly in CVXPY (:class:`~krein.formulations.PerturbSVM`),
    or by the general IndefiniteSVM algorithms.  Test rows use the original
    kernel ("only the support vectors are perturbed"): ``f(x) = k(x, X) u + b``.

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound ``0 <= alpha_i <= C`` (luss eq. 22).
    rho : float > 0, default=1.0
        Weight of the perturbation: the penalty ``- ||alpha||^4 / (16 rho)`` of
        eq. (22), the rank-one update ``u u'/(4 rho)`` of eq. (21).
    solver : str, default="CLARABEL"
        An installed CVXPY solver name ("CLARABEL", the default, "SCS"...;
        case-insensitive) solves eq. (22) as a CVXPY problem; "pg", "apg", "accpm"
        or "exchange" run the general IndefiniteSVM algorithm (whose proxy kernel is
        then exactly the rank-one update).
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"`` (``fit`` takes the square ``(n, n)`` Gram matrix, the
        prediction methods an ``(m, n)`` matrix against the training points), a
        name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``; must give a PSD training kernel.
    kernel_params : dict, optional
        Parameters of a named or callable kernel (e.g. ``{"a": 0.5, "r": -1.0}``
        for the sigmoid).
    class_weight : None, "balanced" or dict {label: weight}
        Per-class box bounds ``C * weight`` (as :class:`IndefiniteSVC`), on every path.
    psd_tol : float >= 0, default=1e-8
        ``K0`` is accepted as PSD when ``lam_min >= -psd_tol * max|lam|``.
    tol : float >= 0, default=1e-3
        Relative tolerance on the certified duality gap (algorithms only).
    atol : float >= 0, default=1e-8
        Floor of the certified duality gap in the unit of the data,
        ``gap <= atol * unit`` (:attr:`Certifier.unit
        <krein.solvers.indefinite.Certifier.unit>`; algorithms only).
    max_iter : int >= 1, default=1000
        Iteration limit (algorithms only).
    gap_every : int >= 0, default=10
        Iterations between libsvm gap checks (algorithms only).
    solver_options : dict, optional
        Passed to :func:`~krein.solvers.solve` for a CVXPY solver, to the
        algorithm otherwise (as :class:`IndefiniteSVC`).
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    objective_, duality_gap_ : ndarray of shape (n_pairs,)
        Value of (22) and a certified gap (Frank-Wolfe bound at the returned point).
    alpha_, proxy_dual_coef_, dual_coef_, support_, intercept_, classes_, n_iter_, kernel_scale_ :
        As :class:`IndefiniteSVC` (``dual_coef_ = u`` on the raw kernel).

    Raises
    ------
    ValueError
        In ``fit``, if the kernel is not PSD.

    References
    ----------
    Luss & d'Aspremont (2009), §4.3, eqs. (21)-(22).

    Examples
    --------
    PerturbSVC needs a positive semi-definite kernel (the Gaussian here):

    >>> from sklearn.datasets import make_blobs
    >>> from krein import PerturbSVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = PerturbSVC(kernel="gaussian", kernel_params={"gamma": 0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        **_PROXY_CONSTRAINTS,
        "solver": [SolverName(INDEFINITE_ALGORITHMS)],
        "psd_tol": [NONNEGATIVE],
    }
    _parameter_constraints.pop("out_of_sample")   # always the raw kernel rows (luss §4.3)

    def __init__(self, *, C=1.0, rho=1.0, solver="CLARABEL", kernel="gaussian", kernel_params=None,
                 class_weight=None, psd_tol=1e-8, tol=1e-3, atol=1e-8, max_iter=1000,
                 gap_every=10, solver_options=None, probability=False):
        self.C = C
        self.rho = rho
        self.solver = solver
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.psd_tol = psd_tol
        self.tol = tol
        self.atol = atol
        self.max_iter = max_iter
        self.gap_every = gap_every
        self.solver_options = solver_options
        self.probability = probability

    def _check_params(self):
        self._solver = resolve_solver(self.solver, INDEFINITE_ALGORITHMS)
        if self._solver in INDEFINITE_ALGORITHMS:
            _check_solver_options(self._solver, self.solver_options)

    def _fit_binary(self, K, y, idx, C):
        P = ProxyKernelProblem(K, y, model="svc", C=C, rho=self.rho, check=False)
        oracle = ProxyKernelOracle(K, self.rho, check=False)
        lam = oracle.eigenvalues
        if lam[0] < -self.psd_tol * max(float(np.max(np.abs(lam))), 1e-300):
            raise ValueError(f"PerturbSVC needs a PSD kernel (least eigenvalue {lam[0]:.4g}); "
                             f"use IndefiniteSVC for indefinite kernels")
        if self._solver not in INDEFINITE_ALGORITHMS:   # a CVXPY solver: eq. (22) directly
            sol = perturb_svm_cvxpy(P, self._solver, oracle=oracle, tol=self.tol, atol=self.atol,
                                    psd_tol=self.psd_tol, solver_options=self.solver_options)
        else:
            sol = solve_indefinite(P, self._solver, tol=self.tol, atol=self.atol,
                                   max_iter=self.max_iter, gap_every=self.gap_every, oracle=oracle,
                                   out_of_sample="raw", **(self.solver_options or {}))
        u = sol.primal["u"]
        info = {"n_iter": sol.iterations, "solution": sol, "u": u, "alpha": sol.primal["alpha"]}
        return BinaryModel(idx, sol.coef, sol.intercept, info)

    def _after_fit(self, K):
        _proxy_after_fit(self, K)
