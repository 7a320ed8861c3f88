"""The relevance vector classifier (Tipping 2001; loosli §6.1.2's "RVM" baseline)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import NONNEGATIVE
from ..solvers.rvm import sparse_bayes
from .base import BinaryModel, KernelClassifierBase
from .reduced import LandmarkExpansionMixin

__all__ = ["RVC"]


class RVC(LandmarkExpansionMixin, KernelClassifierBase):
    """Relevance vector classifier: sparse Bayesian logistic regression on kernel columns.

    The model is ``p(c = +1 | x) = sigma(f(x))`` with ``f(x) = k(x, X) w + b``: the
    design matrix is ``Phi = [K | 1]`` (the column of ones only with ``bias=True``)
    and every weight (bias included) has its own Gaussian prior precision
    ``alpha_i`` (Tipping 2001, §2.1 and §4).  The ``alpha_i`` maximize the Laplace
    approximation of the marginal likelihood (tipping §4) by the fast sequential
    algorithm of Tipping & Faul (2003) §4 (SparseBayes v2), in
    :func:`krein.solvers.rvm.sparse_bayes`; most ``alpha_i`` go to infinity and
    the surviving kernel columns are the *relevance vectors*.  Each step is
    accepted only if the recomputed Laplace log marginal likelihood does not
    decrease, so ``trace_["log_marginal_likelihood"]`` is non-decreasing
    (SparseBayes applies the best predicted step unconditionally; see the solver's
    docstring).

    The RVM has no box bound ``C`` (the weights' precisions are learned), so it
    takes neither ``C`` nor ``class_weight``.

    The kernel is only a design matrix: it need not be positive semi-definite,
    symmetric kernels such as the sigmoid are used as they are (Loosli, Ong & Canu
    2013, §6.1.2, use the RVM as a baseline on indefinite kernels).

    With ``approximation`` the basis functions are the kernel columns of the ``m``
    landmarks: the design matrix is ``Phi = [K(X, L) | 1]`` (``n x (m + 1)``) and
    ``f(x) = k(x, L) w + b``.  Tipping (2001, §2) allows any set of basis functions
    ("the basis functions ... need not be kernels centred on the data"), so this is
    the same model and algorithm on a smaller dictionary; the relevance vectors are
    then landmarks, and the landmarks' labels are not used
    (:mod:`krein.estimators.reduced`).  This path runs the solver's incremental
    loop (``sparse_bayes(..., incremental=True)``: the same iterations up to
    round-off, with the statistics product over the inactive columns only and the
    first Newton step of each candidate from statistics already at hand).  One
    iteration still costs ``O(n (m - M) M)`` for ``M`` active columns (the sparsity
    factors of every inactive column at the new mode, faul eq. 22) plus one IRLS of
    ``O(n M^2)`` per Newton step for every candidate tried, and the fit holds three
    copies of the ``n x m`` design matrix.  The number of relevance vectors grows
    with n and the loop adds one per iteration, each a full pass over the design,
    so ``krein compare`` leaves this path out of its default list above
    :data:`krein.registry.RVM_APPROXIMATE_MAX_N` training objects
    (:func:`krein.registry.approximate_size_limit`).

    Parameters
    ----------
    kernel : str or callable
        "precomputed" (``fit`` takes the square ``(n, n)`` Gram matrix, ``predict``
        an ``(m, n)`` matrix of kernel values against the training points), a name
        from :data:`krein.kernels.KERNELS` or a callable ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Parameters of a named or callable kernel.
    bias : bool
        Add a column of ones (an intercept with its own ARD prior; it can be pruned,
        then ``intercept_`` is 0).
    tol : float >= 0
        A candidate action needs a predicted increase of the log marginal
        likelihood above ``tol``; the fit stops when no candidate increases it.
    max_iter : int >= 1
        Maximum iterations (one add/re-estimate/delete each) per binary model;
        ``ConvergenceWarning`` when reached.
    alpha_max : float > 1
        Precision (on unit-norm columns) above which a basis function is pruned.
    min_delta_log_alpha : float >= 0
        Re-estimates that change ``log alpha_i`` by less are not attempted
        (SparseBayes' convergence test).
    moderated : bool
        False (default): ``predict_proba`` is ``sigma(f(x))`` at the posterior mode
        (tipping §4, as SparseBayes).  True: MacKay's (1992) moderated output
        ``sigma(kappa f(x))``, ``kappa = (1 + pi s^2(x) / 8)^-1/2`` with the
        posterior variance ``s^2(x) = phi(x)' Sigma phi(x)`` of ``f(x)``, which
        approximates ``E[sigma(f(x))]`` under the Laplace posterior; then
        ``decision_function`` returns ``kappa f(x)`` so that predictions, decision
        values and probabilities agree.
    verbose : bool
        Print one line per iteration.
    probability : bool, default=False
        False: ``predict_proba`` is the model's own (above).  True: ``fit`` also
        fits Platt scaling on internal 5-fold cross-validation of the decision
        values, which ``predict_proba`` then returns
        (:class:`krein.estimators.base.ProbabilityMixin`).
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`)
        whose landmarks give the basis functions (above); ``fit`` then takes its
        input (feature vectors, or the landmark columns ``K(X, L)`` of shape
        ``(n, m)`` with ``kernel="precomputed"``), as do ``predict``,
        ``decision_function`` and ``predict_proba`` for new points.  None: the
        exact path.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    relevance_vectors_ : ndarray of shape (n_RV,)
        Training indices of the kernel columns kept by some binary model (sorted);
        landmark indices with an approximation.
    approximation_ : IndefiniteNystroem
        The fitted front end (with an approximation).
    support_ : ndarray of shape (n_RV,)
        Same as ``relevance_vectors_`` (the base-class name).
    support_vectors_ : ndarray of shape (n_RV, n_features)
        The relevance vectors themselves (not with ``kernel="precomputed"``).
    dual_coef_ : ndarray of shape (n_models, n_RV)
        Posterior-mode weights ``w`` on ``relevance_vectors_`` (zero where a model
        pruned the column).
    intercept_ : ndarray of shape (n_models,)
        Posterior-mode bias weight (0 if pruned or ``bias=False``).
    alpha_ : ndarray of shape (n_models, n_RV + bias)
        Prior precisions of the weights on ``[relevance_vectors_, bias]``, ``inf``
        where pruned (on the given kernel's scale).
    sigma_ : ndarray of shape (n_models, n_RV + bias, n_RV + bias)
        Posterior covariance ``(Phi' B Phi + A)^-1`` (tipping §4) of the same
        weights; zero rows/columns where pruned (prior variance ``1/alpha = 0``).
    log_marginal_likelihood_ : ndarray of shape (n_models,)
        Final Laplace log marginal likelihood per model.
    n_iter_ : ndarray of shape (n_models,)
        Iterations of each binary model (including the one that found no
        improving action).
    trace_ : pandas.DataFrame
        One row per iteration of every binary model: ``model`` (its index), then
        the solver trace: ``iter, action, basis, alpha, predicted_gain, gain,
        log_marginal_likelihood, n_basis, n_relevance, n_rejected, newton_steps,
        seconds`` (:func:`krein.solvers.rvm.sparse_bayes`; ``basis`` indexes the
        columns of ``[K | 1]``).
    solutions_ : list of krein.solvers.Solution
        One per binary model.
    binary_models_ : list of BinaryModel

    Multiclass
    ----------
    One-vs-rest (the base's ``_multiclass = "ovr"``): model ``k`` separates
    ``classes_[k]`` (target 1) from the other classes (target 0) on all training
    points, and ``decision_function`` returns the ``(m, n_classes)`` latent values
    ``f_k(x)`` (``kappa f_k`` with ``moderated``); ``predict`` is their argmax and
    ``predict_proba`` is ``sigma(f_k)`` normalized over ``k`` (same argmax, rows
    sum to one).  For two classes there is one model, positive for ``classes_[1]``,
    and ``decision_function`` has shape ``(m,)``.  (Tipping 2001 §4 suggests a
    multinomial likelihood; one-vs-rest keeps the binary fast algorithm.)

    References
    ----------
    M. E. Tipping (2001), "Sparse Bayesian learning and the relevance vector
    machine", JMLR 1:211-244, §4.
    M. E. Tipping & A. C. Faul (2003), "Fast marginal likelihood maximisation for
    sparse Bayesian models", AISTATS, §4.
    D. J. C. MacKay (1992), "The evidence framework applied to classification
    networks", Neural Computation 4(5) (moderated output).
    G. Loosli, C. S. Ong & S. Canu (2013), "SVM in Krein spaces", §6.1.2.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import RVC
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = RVC(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    def __init__(self, *, kernel="gaussian", kernel_params=None, bias=True, tol=1e-6, max_iter=1000,
                 alpha_max=1e9, min_delta_log_alpha=1e-3, moderated=False, verbose=False,
                 probability=False, approximation=None):
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.bias = bias
        self.tol = tol
        self.max_iter = max_iter
        self.alpha_max = alpha_max
        self.min_delta_log_alpha = min_delta_log_alpha
        self.moderated = moderated
        self.verbose = verbose
        self.probability = probability
        self.approximation = approximation

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "bias": ["boolean"],
        "tol": [NONNEGATIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "alpha_max": [Interval(Real, 1, np.inf, closed="neither")],
        "min_delta_log_alpha": [NONNEGATIVE],
        "moderated": ["boolean"],
        "verbose": ["boolean"],
        "approximation": [HasMethods(["fit_transform", "transform"]), None],
    }
    # no box bound: the weights have learned prior precisions (docstring)
    _parameter_constraints.pop("C")
    _parameter_constraints.pop("class_weight")

    # ---------------------------------------------------------------- fit
    _multiclass = "ovr"

    # the one-vs-rest problems are independent: over joblib.parallel_config's workers
    # (serial outside one), in processes: the IRLS loop is Python-bound (on gauss14,
    # 14 problems of 638 objects, two threads measured 1.1x, two processes 2.0x)
    _parallel_pairs = True
    _pair_prefer = "processes"

    def _check_params(self):
        self._check_approximation()

    def _fit_binary(self, K, y, idx, C=None):
        coef, b, info = self._sparse_bayes(K, y)
        return BinaryModel(idx, coef, b, info)

    def _fit_landmarks(self, C_rows, W, y, C_box=None):
        # the landmarks' kernel columns are the basis functions (class docstring); the
        # solver's incremental bookkeeping (same iterations, up to round-off)
        return self._sparse_bayes(C_rows, y, incremental=True)

    def _sparse_bayes(self, K, y, incremental=False):
        """One binary model on the kernel columns ``K`` (n, m): weights (m,), bias, info."""
        n, m = K.shape
        Phi = np.column_stack([K, np.ones(n)]) if self.bias else K
        sol = sparse_bayes(Phi, (y > 0).astype(float), bias_column=m if self.bias else None,
                           tol=self.tol, max_iter=self.max_iter, alpha_max=self.alpha_max,
                           min_delta_log_alpha=self.min_delta_log_alpha,
                           incremental=incremental, verbose=self.verbose)
        w = sol.primal["weights"]
        coef = w[:m].copy()
        b = float(w[m]) if self.bias else 0.0
        return coef, b, {"n_iter": sol.iterations, "solution": sol}

    def _set_fitted(self, classes, pairs, models, X_fit, K):
        """The fitted attributes (class docstring) from the one-vs-rest models' solutions."""
        n = K.shape[0]
        n_models = len(models)
        sols = [m.info["solution"] for m in models]
        support = np.unique(np.concatenate(
            [s.primal["active"][s.primal["active"] < n] for s in sols])).astype(int)
        n_sv = support.size
        width = n_sv + int(bool(self.bias))
        dual = np.zeros((n_models, n_sv))
        alpha = np.full((n_models, width), np.inf)
        sigma = np.zeros((n_models, width, width))
        for r, s in enumerate(sols):
            act = s.primal["active"]
            # positions of the model's active columns among [support, bias]
            pos = np.where(act < n, np.searchsorted(support, act), n_sv)
            dual[r] = s.primal["weights"][support]
            alpha[r, pos] = s.primal["alpha"][act]
            sigma[r][np.ix_(pos, pos)] = s.primal["sigma"]
        traces = []
        for r, s in enumerate(sols):
            tr = s.trace.copy()
            tr.insert(0, "model", r)
            traces.append(tr)
        self.classes_ = classes
        self.binary_models_ = models
        self.support_ = support
        self.relevance_vectors_ = support
        self.dual_coef_ = dual
        self.intercept_ = np.array([m.intercept for m in models])
        self.alpha_ = alpha
        self.sigma_ = sigma
        self.log_marginal_likelihood_ = np.array([s.objective for s in sols])
        self.n_iter_ = np.array([s.iterations for s in sols])
        self.trace_ = pd.concat(traces, ignore_index=True)
        self.solutions_ = sols
        self.shape_fit_ = (n,) if X_fit is None else X_fit.shape
        if X_fit is not None:
            self.support_vectors_ = X_fit[support]

    # ---------------------------------------------------------------- predict
    def _test_rows(self, X):
        """``(m, n_RV)`` kernel values between ``X`` and the relevance vectors (the only
        columns the models use), and None."""
        check_is_fitted(self, "binary_models_")
        if self._approximate():
            return self._landmark_rows(X)[:, self.support_], None
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self._precomputed():
            if not np.all(np.isfinite(X)):
                raise ValueError("X (precomputed kernel rows) contains NaN or inf")
            return X[:, self.support_], None
        if self.support_.size == 0:
            return np.zeros((X.shape[0], 0)), None
        return self._gram(X, self.support_vectors_), None

    def _binary_decisions(self, R, extra=None):
        """``(m, n_models)`` latent values ``f`` on the relevance-vector rows ``R``
        (moderated by ``kappa`` if requested)."""
        F = R @ self.dual_coef_.T + self.intercept_
        if self.moderated:
            Phi_x = np.column_stack([R, np.ones(R.shape[0])]) if self.bias else R
            var = np.einsum("mi,kij,mj->mk", Phi_x, self.sigma_, Phi_x)
            F = F / np.sqrt(1.0 + np.pi * np.maximum(var, 0.0) / 8.0)
        return F

    def _latent(self, X):
        """``(m, n_models)`` latent values ``f`` of ``X`` (:meth:`_binary_decisions`)."""
        return self._binary_decisions(*self._test_rows(X))

    def predict_proba(self, X):
        """Class probabilities, shape (m, n_classes), rows summing to one.

        Two classes: ``[1 - sigma(f), sigma(f)]``.  More: ``sigma(f_k)`` normalized
        over the one-vs-rest models (computed in log space).  ``f`` is the
        moderated value with ``moderated=True`` (class docstring).

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m, n_classes)
            Probability of each class of ``classes_``; rows sum to one (Platt's,
            when fitted with ``probability=True``).
        """
        if hasattr(self, "calibrator_"):
            return self._platt_proba(X)
        F = self._latent(X)
        if len(self.classes_) == 2:
            p = expit(F[:, 0])
            return np.column_stack([expit(-F[:, 0]), p])
        logp = -np.logaddexp(0.0, -F)
        logp -= logp.max(axis=1, keepdims=True)
        P = np.exp(logp)
        return P / P.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed in log space.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m, n_classes)
            Log-probability of each class of ``classes_`` (Platt's, when fitted
            with ``probability=True``).
        """
        if hasattr(self, "calibrator_"):
            with np.errstate(divide="ignore"):
                return np.log(self._platt_proba(X))
        F = self._latent(X)
        if len(self.classes_) == 2:
            return np.column_stack([-np.logaddexp(0.0, F[:, 0]), -np.logaddexp(0.0, -F[:, 0])])
        logp = -np.logaddexp(0.0, -F)
        return logp - np.logaddexp.reduce(logp, axis=1, keepdims=True)
