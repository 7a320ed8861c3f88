"""Shared machinery of the kernel classifiers: kernels, labels, multiclass, prediction.

Estimators are thin: they resolve the kernel matrix, split a multiclass problem
into binary problems by the method's multiclass strategy (one-vs-one or
one-vs-rest, :attr:`KernelClassifierBase._multiclass`), and hand each binary
problem (a square kernel block, labels in {-1, +1} and per-sample box bounds) to
the subclass's ``_fit_binary``, which wires a formulation to a solver.  Every
``fit`` runs through :func:`krein._fitting.fit_wrapper`.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .._memory import check_dense
from .._validation import CLASS_WEIGHT, POSITIVE, check_square_kernel  # noqa: F401 (re-export)
from ..formulations.base import kernel_unit  # noqa: F401 (re-export)
from ..kernels import KERNELS, pairwise_kernel
from ..solvers.libsvm import libsvm_binary, libsvm_solution, libsvm_solve  # noqa: F401 (re-export)

__all__ = ["KernelClassifierBase", "KernelMixin", "ProbabilityMixin", "BinaryModel",
           "fit_pairs", "current_problem", "OrderedDraws", "pair_indices", "positive_weight_rows", "libsvm_binary", "libsvm_solve",
           "libsvm_solution", "least_eigenvalue"]


@dataclass
class BinaryModel:
    """One fitted two-class model inside a (possibly multiclass) estimator.

    The decision value of a new point ``x`` is ``k(x, X[idx]) @ coef + intercept``
    (on the estimator's possibly mapped kernel rows); positive means the second
    class of the pair.

    Parameters
    ----------
    idx : ndarray of shape (n_sub,)
        Training indices this model was fitted on.
    coef : ndarray of shape (n_sub,)
        Expansion coefficients on (mapped) kernel rows ``k(x, X[idx])``.
    intercept : float
        Intercept ``b`` of the decision function.
    info : dict, default={}
        Diagnostics (objective, iterations ``n_iter``, solution...).
    """

    idx: np.ndarray
    coef: np.ndarray
    intercept: float
    info: dict = field(default_factory=dict)


#: Restarts of ARPACK in :func:`least_eigenvalue` before LAPACK takes over (50 restarts of
#: 20 Lanczos vectors: 0.2 s on a 1540 x 1540 kernel whose bottom is a cluster of 1284 zeros).
ARPACK_RESTARTS = 50


#: Relative duality gap above which a CVXPY solve of a convex margin problem (LPSVC,
#: ModSVC) is not taken as converged (ConvergenceWarning); interior-point solvers
#: reach ~1e-9 on the normalized problem.
GAP_RTOL = 1e-6


def warn_gap(sol, name, rtol=GAP_RTOL):
    """ConvergenceWarning when a solution's relative duality gap exceeds ``rtol``.

    Parameters
    ----------
    sol : krein.solvers.Solution
        With ``certificate["relative_gap"]``.
    name : str
        The estimator, for the message.
    rtol : float
        Threshold (:data:`GAP_RTOL`).

    Returns
    -------
    bool
        True when the certificate holds (gap within ``rtol``).
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    rel = float((sol.certificate or {}).get("relative_gap", float("nan")))
    if rel <= rtol:
        return True
    warnings.warn(f"{name}: solver {sol.solver} returned a point with relative duality gap "
                  f"{rel:.3g} > {rtol:g} (gap {sol.gap:.3g}): not converged",
                  ConvergenceWarning, stacklevel=3)
    return False


def least_eigenvalue(K):
    """Least eigenvalue of a symmetric matrix by a partial eigensolver (no full ``eigh``).

    ARPACK's Lanczos on the shifted matrix ``s I - K`` with ``s = |lam|_max`` (two
    ``scipy.sparse.linalg.eigsh`` calls, ``k=1``, to machine precision, from a fixed
    random start): its LARGEST eigenvalue is ``s - lam_min``, so ARPACK's
    convergence test, relative to the eigenvalue sought, is well scaled even when
    ``lam_min`` is about 0.  (``which="SA"`` on ``K`` itself is not: on the linear
    kernel of 1540 USPS digits, rank 256, it returned 0.204 after 27 s instead of
    about 0.)  LAPACK's ``syevr`` restricted to the first eigenvalue when ARPACK
    does not converge within :data:`ARPACK_RESTARTS` restarts (a cluster of
    eigenvalues at the bottom) or ``n < 3``.

    Inside :func:`krein._cache.shared_computations` it is read from the full
    spectrum of ``K`` (:meth:`krein.spectrum.Spectrum.from_kernel`, computed
    and stored when no method of the fold has done it yet): the other methods of
    the fold need that decomposition anyway, so a block gets one ``eigh`` in all.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric matrix.

    Returns
    -------
    float
        Its least eigenvalue.
    """
    import scipy.linalg
    import scipy.sparse.linalg

    from .._cache import shared_computations_active

    K = np.asarray(K, dtype=float)
    if shared_computations_active():
        from ..spectrum import Spectrum

        return Spectrum.from_kernel(K, check=False).min_eigenvalue
    n = K.shape[0]
    if n >= 3:
        v0 = np.random.default_rng(0).standard_normal(n)
        try:
            top = float(scipy.sparse.linalg.eigsh(K, k=1, which="LM", v0=v0,
                                                  return_eigenvectors=False)[0])
            s = abs(top)
            if s == 0.0:
                return 0.0
            shifted = scipy.sparse.linalg.LinearOperator(
                K.shape, matvec=lambda x: s * x - K @ x, dtype=float)
            w = float(scipy.sparse.linalg.eigsh(shifted, k=1, which="LA", v0=v0,
                                                maxiter=ARPACK_RESTARTS,
                                                return_eigenvectors=False)[0])
            return s - w
        except scipy.sparse.linalg.ArpackNoConvergence:
            pass
    return float(scipy.linalg.eigh(K, eigvals_only=True, subset_by_index=[0, 0])[0])


#: Constraints of ``kernel`` and ``kernel_params`` (scikit-learn's ``_parameter_constraints``).
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(KERNELS) | {"precomputed"}), callable],
    "kernel_params": [dict, None],
}


class KernelMixin:
    """Kernel handling shared by every kernel estimator (classifiers, SVR, one-class).

    Expects the attributes ``kernel`` ("precomputed", a name from
    :data:`krein.kernels.KERNELS` or a callable) and ``kernel_params``; their
    constraints are :data:`KERNEL_CONSTRAINTS`, which every estimator's
    ``_parameter_constraints`` table includes.
    """

    _parameter_constraints: dict = {}

    def _gram(self, X, Z=None):
        """The kernel matrix ``k(X, Z)`` (``Z = X`` when None), its memory checked first
        (:func:`krein._memory.check_dense`: ``MemoryBudgetError`` when it cannot fit)."""
        if Z is None:
            check_dense(X.shape[0], X.shape[0], what="the training kernel",
                        remedy="use approximation=IndefiniteNystroem(M) (krein methods "
                               "--large-data lists the methods that take one) or fewer objects")
        else:
            check_dense(X.shape[0], Z.shape[0], what="the kernel rows of the new points",
                        remedy="pass the new points in smaller blocks", copies=2)
        return pairwise_kernel(self.kernel, X, Z, self.kernel_params)

    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags

    def _training_kernel(self, X, y):
        """Validated training input of a classifier that keeps only kernel values.

        Returns ``(X, K, classes, index)``: the validated ``X``, the square
        training kernel (``X`` itself with ``kernel="precomputed"``, else its
        Gram matrix), the sorted class labels and each label's index in them.
        Raises ``ValueError`` for NaN/inf, a non-square or asymmetric kernel or
        fewer than two classes (the k-NN and nearest-mean baselines).
        """
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        if self._precomputed():
            K = check_square_kernel(X, "X (precomputed kernel)")
        else:
            K = check_square_kernel(self._gram(X), "kernel matrix")
        classes, index = encode_classes(y)
        return X, K, classes, index


def encode_classes(y):
    """Sorted class labels and each sample's class index; at least two classes.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Validated class labels.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The sorted distinct labels.
    y_idx : ndarray of shape (n,)
        Index in ``classes`` of each label.

    Raises
    ------
    ValueError
        Fewer than two classes.
    """
    classes, y_idx = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs at "
                         "least two classes")
    return classes, y_idx


#: Folds of the internal cross-validation of Platt scaling (``probability=True``), as
#: libsvm's ``svm_binary_svc_probability`` and scikit-learn's ``SVC(probability=True)``.
PLATT_FOLDS = 5

#: Seed of the shuffled stratified folds of Platt scaling for an estimator without a
#: ``random_state`` parameter (one with it uses its own).
PLATT_SEED = 0


class ProbabilityMixin:
    """Class probabilities by Platt scaling on internal cross-validation (``probability=True``).

    With ``probability=True`` the estimator's ``fit`` hands the data to
    scikit-learn's ``CalibratedClassifierCV(clone(self, probability=False),
    method="sigmoid", ensemble=False, cv=StratifiedKFold(5, shuffle=True))``:
    decision values of each training point from the model fitted on the other
    four folds (``cross_val_predict``), Platt's sigmoid ``P(y = 1 | f) = 1 / (1 +
    exp(A f + B))`` fitted to them with Platt's smoothed targets (Platt 2000,
    "Probabilistic outputs for support vector machines", eqs. 1-3 and §2.2;
    Lin, Lin & Weng 2007), one sigmoid per class column for more than two
    classes (one-vs-rest on the decision columns, then normalized), then the
    model fitted on all the data.  That full fit IS the estimator's fit: its
    fitted attributes are taken over, so the full model is fitted once (as
    libsvm does, five fold fits plus one).  The folds are seeded by the
    estimator's ``random_state`` where it has one, else by :data:`PLATT_SEED`.
    A precomputed kernel is sliced by the folds (rows and columns of the
    training part, rows of the held-out part) because the estimator declares
    ``pairwise`` in ``__sklearn_tags__``.  Every class needs at least
    :data:`PLATT_FOLDS` samples (else ``ValueError``).

    The one fit wrapper (:func:`krein._fitting.fit_wrapper`) takes this path
    for every classifier fitted with ``probability=True``, after the parameter
    checks and in place of the ``fit`` body; the clones fitted inside it have
    ``probability=False`` and run the body.

    ``predict_proba`` / ``predict_log_proba`` follow scikit-learn's SVC: absent
    (``AttributeError``, so ``hasattr`` is False) while ``probability=False``;
    ``NotFittedError`` when the estimator was fitted with ``probability=False``.
    Estimators with a probability model of their own (RVC, the k-NN classifiers)
    override ``predict_proba``: theirs with ``probability=False``, Platt's when
    fitted with ``probability=True``.

    Fitted attributes (``probability=True``)
    ----------------------------------------
    calibrator_ : sklearn.calibration.CalibratedClassifierCV
        The fitted calibration; its single ``calibrated_classifiers_[0]`` holds
        the full model (which shares its fitted arrays with this estimator) and
        the sigmoid(s).
    """

    def _fit_platt(self, X, y, sample_weight=None):
        """Fit the model and Platt's sigmoid on internal CV; take over the full model's fit.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training input of ``fit``.
        y : array of shape (n,)
            Class labels.
        sample_weight : array of shape (n,), optional
            Per-sample weights of an estimator whose ``fit`` takes them: passed to the
            model's fits and to the sigmoid's (scikit-learn's ``CalibratedClassifierCV``).

        Returns
        -------
        self : object
            The fitted estimator, with ``calibrator_``.
        """
        from sklearn.base import clone
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.model_selection import StratifiedKFold
        from sklearn.utils.validation import column_or_1d, has_fit_parameter

        if sample_weight is not None and not has_fit_parameter(self, "sample_weight"):
            raise TypeError(f"{type(self).__name__}.fit() got an unexpected keyword argument "
                            "'sample_weight'")
        y = column_or_1d(y, warn=True)   # a column y warns (DataConversionWarning), as in fit
        params = self.get_params(deep=False)
        seed = params["random_state"] if "random_state" in params else PLATT_SEED
        folds = StratifiedKFold(n_splits=PLATT_FOLDS, shuffle=True, random_state=seed)
        model = clone(self).set_params(probability=False)
        calibrator = CalibratedClassifierCV(model, method="sigmoid", cv=folds, ensemble=False)
        if sample_weight is None:
            calibrator.fit(X, y)
        else:
            calibrator.fit(X, y, sample_weight=sample_weight)
        full = calibrator.calibrated_classifiers_[0].estimator
        for key, value in vars(full).items():
            if key not in params:
                setattr(self, key, value)
        self.calibrator_ = calibrator
        return self

    def _check_proba(self):
        if not getattr(self, "probability", False):
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    def _platt_proba(self, X):
        check_is_fitted(self)
        if not hasattr(self, "calibrator_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False")
        return self.calibrator_.predict_proba(X)

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities by Platt scaling (``probability=True``; class docstring).

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m, n_classes)
            Probability of each class of ``classes_`` (rows sum to one).

        Raises
        ------
        AttributeError
            ``probability=False`` (the method is then absent).
        sklearn.exceptions.NotFittedError
            Not fitted, or fitted with ``probability=False``.
        """
        return self._platt_proba(X)

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m, n_classes)
            Log-probability of each class of ``classes_``.

        Raises
        ------
        AttributeError
            ``probability=False`` (the method is then absent).
        sklearn.exceptions.NotFittedError
            Not fitted, or fitted with ``probability=False``.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


#: Constraint of ``n_jobs`` (joblib workers over the one-vs-one pairs, :func:`fit_pairs`;
#: scikit-learn's constraint: an int, joblib refuses 0, or None).
N_JOBS = [Integral, None]

#: Constraint of ``probability`` (every classifier; :class:`ProbabilityMixin`).
PROBABILITY_CONSTRAINTS = {"probability": ["boolean"]}


#: The multiclass strategies of :attr:`KernelClassifierBase._multiclass`.
MULTICLASS_STRATEGIES = ("ovo", "ovr", "native")


class KernelClassifierBase(ProbabilityMixin, KernelMixin, ClassifierMixin, BaseEstimator):
    """Base class: kernel handling, the multiclass split, class weights and prediction.

    Subclasses set their ``__init__`` parameters (at least ``C``, ``kernel``,
    ``kernel_params``) and implement ``_fit_binary(K, y, idx, C) -> BinaryModel``
    for a square kernel block, labels in {-1, +1}, the block's training indices
    and its box bounds.  ``fit`` is the base's, run through the one fit wrapper
    (:func:`krein._fitting.fit_wrapper`: reset, parameter validation,
    ``_check_params``, Platt scaling with ``probability=True``, reset on failure).

    Kernel
    ------
    ``kernel="precomputed"``: ``fit`` takes the square ``(n, n)`` Gram matrix and
    ``predict``/``decision_function`` an ``(n_test, n)`` matrix.  A name from
    :data:`krein.kernels.KERNELS` (with ``kernel_params``) or a callable
    ``kernel(X, Z, **kernel_params)`` is evaluated on feature vectors.

    Multiclass
    ----------
    The class attribute ``_multiclass`` chooses the strategy; ``_fit``,
    ``decision_function`` and ``predict`` dispatch on it.  With two classes every
    strategy fits one binary model, positive for ``classes_[1]``;
    ``decision_function`` returns its ``(m,)`` values and ``predict`` their sign.

    ``"ovo"`` (default), one-vs-one: a binary model per pair of classes
    ``(i, j)``, ``i < j``, on the samples of the two classes, positive for
    ``classes_[j]`` (``pairs_``).  ``decision_function`` returns ``(m, n_classes)``
    vote counts plus a confidence term smaller than one vote (as scikit-learn's SVC
    with ``decision_function_shape="ovr"``); ``predict`` is its argmax.

    ``"ovr"``, one-vs-rest: binary model ``k`` separates ``classes_[k]``
    (positive) from all other classes, on every training sample;
    ``decision_function`` returns the ``(m, n_classes)`` decision values of the
    models, ``predict`` their argmax.

    ``"native"``: the method handles every class itself; the subclass's ``_fit``
    replaces the split, and ``decision_function`` returns its ``(m, n_classes)``
    scores.

    Fitted attributes (common)
    --------------------------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Training indices with a non-zero coefficient in some binary model.
    dual_coef_ : ndarray of shape (n_pairs, n_SV)
        Coefficients of each binary model on ``support_`` (``y_i alpha_i``-like;
        for ESVC the Krein coefficients), zero where a point is not in the pair.
    intercept_ : ndarray of shape (n_pairs,)
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Only for non-precomputed kernels.
    n_iter_ : ndarray of shape (n_pairs,)
        Iterations of each binary model's solver (one entry per model, not summed).
    class_weight_ : ndarray of shape (n_classes,)
        Weight of each class (all ones without ``class_weight``).

    Fitted diagnostics (every classifier)
    -------------------------------------
    Set in one place (:meth:`_set_diagnostics`) after a successful fit:

    solutions_ : list of krein.solvers.Solution
        One per binary model (``binary_models_[r].info["solution"]``), each with
        the certificate computed by krein (``dual_residual``: KKT / stationarity
        residual; ``gap``: duality gap where one exists).  The libsvm paths get
        one too (:func:`libsvm_solution`: the SVM-dual stationarity residual).
    solution_ : krein.solvers.Solution or None
        ``solutions_[0]`` when there is a single binary model (two classes); None
        for a multiclass problem (use ``solutions_``).
    min_eigenvalue_ : float
        Least eigenvalue of the training kernel the estimator was given (from an
        eigendecomposition the method computed, else :func:`least_eigenvalue`).
    trace_ : pandas.DataFrame
        Iterative methods only: the per-iteration records of every binary model,
        with a ``pair`` column (the model's index).

    Class weights
    -------------
    ``class_weight`` (None, ``"balanced"`` or ``{label: weight}``) has the meaning of
    scikit-learn's SVC: the box bound of a sample of class ``c`` is
    ``C * class_weight_[c]`` (``"balanced"``: ``n_samples / (n_classes * bincount(y))``,
    computed once on all of ``y``, then used in every binary problem, one-vs-one
    or one-vs-rest).  :meth:`_encode_labels` is the one place that computes the
    weights and :meth:`_per_sample_C` the one place that turns them into per-sample
    bounds; each subclass's ``_fit_binary(K, y, idx, C)`` receives them (a float
    when no weights are given, else an array of shape ``(n_sub,)``).  Estimators
    without a box bound (RVC, the hull classifier) pop ``C`` and ``class_weight``.

    Parameter validation
    --------------------
    Declarative, as scikit-learn: each estimator's ``_parameter_constraints``
    (inherited, extended, popped) is checked by the fit wrapper (scikit-learn's
    ``_fit_context``) when ``fit`` runs; checks that involve several parameters are
    in ``_check_params``, which the wrapper calls next.
    """

    _requires_square_kernel = True

    #: The multiclass strategy (class docstring, "Multiclass"): "ovo", "ovr" or "native".
    _multiclass = "ovo"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls._multiclass not in MULTICLASS_STRATEGIES:
            raise TypeError(f"{cls.__name__}._multiclass must be one of "
                            f"{MULTICLASS_STRATEGIES}; got {cls._multiclass!r}")

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        **PROBABILITY_CONSTRAINTS,
        "C": [POSITIVE],
        "class_weight": CLASS_WEIGHT,
    }

    # ---------------------------------------------------------------- checks
    def _check_params(self):
        """Hook for checks that involve several parameters (after the declarative ones)."""

    def _encode_labels(self, y):
        """Classes, each sample's class index, and the class weights of the fit.

        The one place where a classifier's labels become class indices and its
        ``class_weight`` becomes one weight per class (kept for
        :meth:`_per_sample_C` and set as ``class_weight_`` by :meth:`_set_fitted`).

        Parameters
        ----------
        y : ndarray of shape (n,)
            Validated class labels.

        Returns
        -------
        classes : ndarray of shape (n_classes,)
        y_idx : ndarray of shape (n,)
            Index in ``classes`` of each label.

        Raises
        ------
        ValueError
            Fewer than two classes, or a bad ``class_weight`` (:meth:`_class_weights`).
        """
        classes, y_idx = encode_classes(y)
        self._class_weight = self._class_weights(classes, y)
        return classes, y_idx

    def _class_weights(self, classes, y):
        """``class_weight_``: one weight per class (scikit-learn's ``compute_class_weight``)."""
        cw = getattr(self, "class_weight", None)
        if cw is None:
            return np.ones(classes.size)
        if isinstance(cw, dict):
            unknown = [k for k in cw if k not in set(classes.tolist())]
            if unknown:
                raise ValueError(f"class_weight has label(s) {unknown} that are not in y; "
                                 f"classes: {classes.tolist()}")
            bad = {k: v for k, v in cw.items() if not (np.isscalar(v) and np.isfinite(v) and v > 0)}
            if bad:
                raise ValueError(f"class_weight values must be finite numbers > 0; got {bad}")
        return compute_class_weight(cw, classes=classes, y=y)

    def _per_sample_C(self, y_idx_sub, idx=None):
        """Box bounds of one binary problem: ``C`` (a float) without class or sample
        weights, else ``C * class_weight_[class of each sample] * sample_weight[idx]`` (an
        array of shape ``(n_sub,)``; ``idx``: the problem's training indices)."""
        if not hasattr(self, "C"):
            return None        # no box bound (the hull classifier's mu, RVC)
        w = self._class_weight
        sw = getattr(self, "_sample_weight", None)
        if sw is not None:
            if idx is None:
                raise TypeError("_per_sample_C needs the problem's training indices idx "
                                "when the fit has sample weights")
            return float(self.C) * w[y_idx_sub] * sw[idx]
        if np.all(w == 1.0):
            return float(self.C)
        return float(self.C) * w[y_idx_sub]

    # ---------------------------------------------------------------- fit
    @fit_wrapper
    def fit(self, X, y):
        """Fit the classifier.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix.
        y : array of shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            Bad parameters (``C <= 0``, unknown kernel/solver...), NaN/inf,
            a non-square or asymmetric precomputed kernel, fewer than two classes.
        krein.solvers.SolverError
            If a solver fails; the estimator is then left unfitted.
        """
        # fit_wrapper has run the parameter checks (and Platt's path) before this body
        return self._fit_and_diagnose(X, y)

    def _fit_and_diagnose(self, X, y, sample_weight=None):
        """The body of :meth:`fit`: the model, then the uniform diagnostics.

        ``sample_weight`` (validated, non-negative, one per sample) multiplies each
        sample's box bound (:meth:`_per_sample_C`); only an estimator whose ``fit``
        takes it passes one.
        """
        if sample_weight is not None:
            self._sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                                       ensure_non_negative=True)
        try:
            self._fit(X, y)
            self._set_diagnostics(getattr(self, "_diag_K", None))
        finally:
            self.__dict__.pop("_diag_K", None)
            self.__dict__.pop("_sample_weight", None)
        return self

    def _sample_weight_of(self, idx):
        """The sample weights of one binary problem's training indices ``idx`` (shape
        ``(n_sub,)``), or None for a fit without ``sample_weight``."""
        sw = getattr(self, "_sample_weight", None)
        return None if sw is None else sw[idx]

    def _set_diagnostics(self, K):
        """The uniform fitted diagnostics (class docstring): ``solutions_``, ``solution_``,
        and, where the subclass did not set them, ``n_iter_``, ``trace_`` and
        ``min_eigenvalue_`` (of ``K``, the training kernel, by a partial eigensolver)."""
        from ..solvers import Solution

        models = getattr(self, "binary_models_", None) or []
        sols = [m.info.get("solution") for m in models]
        sols = [s if isinstance(s, Solution) else None for s in sols]
        self.solutions_ = sols
        self.solution_ = sols[0] if len(sols) == 1 else None
        if not hasattr(self, "n_iter_"):
            self.n_iter_ = np.array([m.info.get("n_iter", 0) for m in models])
        if not hasattr(self, "trace_"):
            frames = []
            for r, s in enumerate(sols):
                tr = getattr(s, "trace", None)
                if tr is not None and hasattr(tr, "copy") and len(tr):
                    tr = tr.copy()
                    tr.insert(0, "pair", r)
                    frames.append(tr)
            if frames:
                import pandas as pd

                self.trace_ = pd.concat(frames, ignore_index=True)
        if not hasattr(self, "min_eigenvalue_") and K is not None:
            self.min_eigenvalue_ = least_eigenvalue(K)

    def _fit_input(self, X, y):
        """Validate the data; return ``(X_fit, K, classes, y_idx)``.

        ``X_fit`` is ``None`` for a precomputed kernel; ``K`` the checked square
        training kernel; ``y_idx`` the class index of each sample.  Also sets the
        class weights used by :meth:`_per_sample_C`.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        if self._precomputed():
            K = check_square_kernel(X, "X (precomputed kernel)")
            X_fit = None
        else:
            X_fit = X
            K = check_square_kernel(self._gram(X), "kernel matrix")
        classes, y_idx = self._encode_labels(y)
        self._diag_K = K   # for _set_diagnostics (removed after the fit)
        return X_fit, K, classes, y_idx

    def _fit(self, X, y):
        """Split the problem by ``_multiclass`` and fit the binary models (class docstring)."""
        if self._multiclass == "native":
            raise NotImplementedError(f"{type(self).__name__} has _multiclass = 'native': "
                                      "its _fit handles the classes itself")
        X_fit, K, classes, y_idx = self._fit_input(X, y)
        K_fit = self._pair_kernel(K, y_idx)
        if self._multiclass == "ovr":
            pairs = None
            problems, n_problems = _ovr_problems(self, K_fit, classes, y_idx)
        else:
            pairs = list(itertools.combinations(range(classes.size), 2))
            problems, n_problems = _ovo_problems(self, K_fit, classes, y_idx, pairs)
        models = fit_pairs(self._fit_binary, problems, n_problems,
                           n_jobs=getattr(self, "n_jobs", None), parallel=self._parallel_pairs,
                           prefer=self._pair_prefer)
        # ---- all binary problems solved: now (and only now) set attributes
        self._set_fitted(classes, pairs, models, X_fit, K)
        return self

    #: Whether the binary problems may be fitted concurrently (:func:`fit_pairs`): True in
    #: a subclass whose ``_fit_binary`` reads only its arguments and the parameters (no
    #: random stream shared between the pairs, no attribute written).
    _parallel_pairs = False

    #: joblib's ``prefer`` for the pairs: "threads" (LAPACK, libsvm and NumPy's kernels
    #: release the GIL; on two cores IndefiniteSVC's 21 pairs of a 7-class fit take
    #: 1.3 s on two threads, 1.9 s on two warm loky processes and 19.7 s when the
    #: processes first start: benchmarks/many_classes.py --speedup).
    _pair_prefer = "threads"

    def _pair_kernel(self, K, y_idx):
        """Hook: the matrix whose principal submatrices the binary problems receive
        (``K`` itself here; SpectrumSVC's ``correction_scope="training"`` corrects it once)."""
        return K

    def _set_fitted(self, classes, pairs, models, X_fit, K):
        """Set the common fitted attributes (class docstring) from the binary models.

        ``pairs`` is the one-vs-one pairs (``pairs_``), None for one-vs-rest.
        """
        n = K.shape[0]
        self.classes_ = classes
        if pairs is not None:
            self.pairs_ = pairs
        self.binary_models_ = models
        full = np.zeros((len(models), n))
        for r, m in enumerate(models):
            full[r, m.idx] = m.coef
        support = np.flatnonzero(np.any(full != 0, axis=0))
        self.support_ = support
        self.dual_coef_ = full[:, support]
        self.intercept_ = np.array([m.intercept for m in models])
        self.n_iter_ = np.array([m.info.get("n_iter", 0) for m in models])
        if hasattr(self, "_class_weight"):
            self.class_weight_ = self._class_weight
        self.shape_fit_ = (n,) if X_fit is None else X_fit.shape
        if X_fit is not None:
            self.X_fit_ = X_fit
            self.support_vectors_ = X_fit[support]
        self._after_fit(K)

    def _after_fit(self, K):
        """Hook: set estimator-specific fitted attributes."""

    # ---------------------------------------------------------------- predict
    def _test_rows(self, X):
        """``(m, n_train)`` kernel rows between ``X`` and the training points, and extra data
        for subclasses (here the validated ``X``, or None when precomputed)."""
        check_is_fitted(self, "binary_models_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self._precomputed():
            return X, None
        return self._gram(X, self.X_fit_), X

    def _binary_decisions(self, K_rows, extra=None):
        return np.column_stack(
            [K_rows[:, m.idx] @ m.coef + m.intercept for m in self.binary_models_]
        )

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes)
            For two classes, ``(m,)`` decision values (positive means
            ``classes_[1]``); else ``(m, n_classes)``: one-vs-one votes plus
            confidences, or the one-vs-rest models' values (see Multiclass).
        """
        K_rows, Xv = self._test_rows(X)
        dec = self._binary_decisions(K_rows, Xv)
        if len(self.classes_) == 2:
            return dec[:, 0]
        if self._multiclass != "ovo":
            return dec
        return _ovo_to_ovr(dec, self.pairs_, len(self.classes_))

    def predict(self, X):
        """Predicted class labels.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_``: the sign of the decision for two classes,
            else the argmax of :meth:`decision_function` (one-vs-one votes, or
            one-vs-rest values).
        """
        dec = self.decision_function(X)
        if len(self.classes_) == 2:
            return self.classes_[(dec > 0).astype(int)]
        return self.classes_[np.argmax(dec, axis=1)]


def _ovo_problems(est, K_fit, classes, y_idx, pairs):
    """The one-vs-one binary problems ``(K_sub, y_pm, idx, C)`` of ``pairs`` (a generator:
    the blocks are sliced one at a time, as the workers take them) and their number."""

    def problems():
        for i, j in pairs:
            idx = pair_indices(y_idx, i, j, classes.size)
            K_sub = K_fit if classes.size == 2 else K_fit[np.ix_(idx, idx)]
            y_pm = np.where(y_idx[idx] == j, 1.0, -1.0)
            yield K_sub, y_pm, idx, est._per_sample_C(y_idx[idx], idx)

    return problems(), len(pairs)


def _ovr_problems(est, K_fit, classes, y_idx):
    """The one-vs-rest binary problems ``(K_fit, y_pm, idx, C)``: class ``k`` positive
    against all others on every sample, one problem (positive for ``classes[1]``) for
    two classes; and their number."""
    positives = [1] if classes.size == 2 else list(range(classes.size))
    idx = np.arange(K_fit.shape[0])
    problems = ((K_fit, np.where(y_idx == k, 1.0, -1.0), idx, est._per_sample_C(y_idx, idx))
                for k in positives)
    return problems, len(positives)


def positive_weight_rows(C, y):
    """The samples of a binary problem that a zero sample weight does not remove.

    A sample of weight 0 is a sample repeated 0 times: it is removed from the problem
    (its kernel row and its column), as :class:`~krein.estimators.DirectSVC` does.

    Parameters
    ----------
    C : float or ndarray of shape (n_sub,)
        The problem's box bounds (:meth:`KernelClassifierBase._per_sample_C`).
    y : ndarray of shape (n_sub,)
        Labels in {-1, +1}.

    Returns
    -------
    ndarray of shape (n_keep,) or None
        Sorted indices of the samples with a positive bound; None when every bound is
        positive (nothing to remove).

    Raises
    ------
    ValueError
        Every sample of one of the two classes has weight 0.
    """
    if not np.ndim(C) or np.all(np.asarray(C) > 0):
        return None
    keep = np.flatnonzero(np.asarray(C) > 0)
    if np.unique(y[keep]).size < 2:
        raise ValueError("sample_weight is zero on every sample of a class: each class "
                         "needs a sample of positive weight")
    return keep


def pair_indices(y_idx, i, j, n_classes):
    """Training indices of the one-vs-one problem of classes ``i`` and ``j``.

    Parameters
    ----------
    y_idx : ndarray of shape (n,)
        Class index of each training sample.
    i, j : int
        The pair's class indices, ``i < j``.
    n_classes : int
        Number of classes (two: every sample).

    Returns
    -------
    ndarray of shape (n_sub,)
        Sorted indices of the samples of class ``i`` or ``j``.
    """
    if n_classes == 2:
        return np.arange(y_idx.size)
    return np.flatnonzero((y_idx == i) | (y_idx == j))


#: The position of the binary problem being fitted in its fit's order (:func:`fit_pairs`,
#: :func:`current_problem`); set per thread around each problem.
_PROBLEM = contextvars.ContextVar("krein_binary_problem", default=0)


def current_problem():
    """The position of the binary problem being fitted, in the order of the fit's problems.

    Inside a ``fit_binary`` call of :func:`fit_pairs` (serial or on a worker thread) it is
    the problem's index in ``problems``; elsewhere 0.  An estimator whose problems share a
    random stream draws from it in this order (:class:`OrderedDraws`), so that the
    problems can be fitted concurrently with the results of the serial fit.

    Returns
    -------
    int
        The index of the current problem.
    """
    return _PROBLEM.get()


class OrderedDraws:
    """Draws from one random stream in the order of the binary problems, whichever asks first.

    ``uniform(size)`` called from the ``k``-th problem of :func:`fit_pairs` waits until the
    problems before it have drawn, then draws ``random_state.uniform(-1, 1, size)``: the
    same numbers as a serial fit whose problems draw in turn, whatever the threads'
    schedule.  Each problem must draw exactly once, before anything that can raise: a
    problem that never draws holds the later ones, which give up with a ``RuntimeError``
    after :attr:`patience` seconds (the problems before one start before it, and draw
    first, so a wait is normally the time of one draw).

    Parameters
    ----------
    random_state : numpy.random.RandomState
        The shared stream.
    """

    #: Seconds a problem waits for the earlier ones to draw before it raises.
    patience = 600.0

    def __init__(self, random_state):
        self.random_state = random_state
        self._next = 0
        self._turn = threading.Condition()

    def uniform(self, size):
        """``random_state.uniform(-1, 1, size)`` in the problems' order.

        Parameters
        ----------
        size : int
            Number of draws.

        Returns
        -------
        ndarray of shape (size,)
            Uniform on ``[-1, 1)``.

        Raises
        ------
        RuntimeError
            An earlier problem did not draw within :attr:`patience` seconds.
        """
        k = current_problem()
        with self._turn:
            if not self._turn.wait_for(lambda: self._next >= k, timeout=self.patience):
                raise RuntimeError(f"binary problem {k} waited {self.patience:g} s for problem "
                                   f"{self._next} to draw its start; it never did")
            draws = self.random_state.uniform(-1.0, 1.0, size)
            self._next = k + 1
            self._turn.notify_all()
        return draws


def _in_context(shared, fit_binary, problem, k=0):
    """``fit_binary(*problem)`` as the ``k``-th problem (:func:`current_problem`), inside a
    shared-computations context when the caller had one (the context is per thread: a
    worker thread enters its own)."""
    token = _PROBLEM.set(k)
    try:
        if not shared:
            return fit_binary(*problem)
        from .._cache import shared_computations

        with shared_computations():
            return fit_binary(*problem)
    finally:
        _PROBLEM.reset(token)


def fit_pairs(fit_binary, problems, n_problems, *, n_jobs=None, parallel=True,
              prefer="threads"):
    """Fit the one-vs-one binary problems, serially or over joblib workers.

    Each problem is a function of its own arguments only (the pair's kernel
    block, labels, indices and box bounds), so the models do not depend on
    the order or the worker that fits them: ``n_jobs`` changes the time, never
    the result.  Without an explicit ``n_jobs`` the number of workers is
    joblib's (:func:`joblib.parallel_config`; one outside such a context, and
    one inside a worker of ``krein compare``, whose parallelism is over its
    cells, so the pairs never oversubscribe the cores).  With threads the BLAS
    libraries are limited to ``cores // n_jobs`` threads each for the
    duration (threadpoolctl; never above the caller's own limit, e.g. the one
    BLAS thread of ``krein compare``'s small fits); joblib does the same in
    its worker processes.
    A shared-computations context of the caller (:mod:`krein._cache`) is
    entered in each worker thread; worker processes compute alone.

    Parameters
    ----------
    fit_binary : callable
        ``fit_binary(K_sub, y_pm, idx, C) -> BinaryModel``.
    problems : iterable of tuple
        One ``(K_sub, y_pm, idx, C)`` per pair, in the order of the pairs
        (a generator: the blocks are sliced as they are fitted).
    n_problems : int
        The number of problems.
    n_jobs : int or None, default=None
        Workers (joblib's meaning: -1 all cores; None joblib's active
        configuration, 1 outside one).
    parallel : bool, default=True
        False fits serially whatever ``n_jobs`` says (an estimator whose pairs
        share a random stream).
    prefer : {"threads", "processes"}, default="threads"
        joblib's backend preference.

    Returns
    -------
    list of BinaryModel
        One per problem, in the order of ``problems``.

    Raises
    ------
    Exception
        Whatever a binary fit raises (the first one, as joblib re-raises it).
    """
    import joblib

    from .._cache import shared_computations_active

    workers = joblib.effective_n_jobs(n_jobs) if parallel and n_problems > 1 else 1
    workers = min(workers, n_problems)
    if workers <= 1:
        return [_in_context(False, fit_binary, p, k) for k, p in enumerate(problems)]
    shared = prefer == "threads" and shared_computations_active()
    run = joblib.Parallel(n_jobs=workers, prefer=prefer)
    jobs = (joblib.delayed(_in_context)(shared, fit_binary, p, k)
            for k, p in enumerate(problems))
    if prefer != "threads":
        return list(run(jobs))
    import os

    from threadpoolctl import threadpool_info, threadpool_limits

    # each thread's BLAS gets its share of the cores, never more than the caller allowed
    now = [lib["num_threads"] for lib in threadpool_info()] or [1]
    with threadpool_limits(limits=max(1, min(min(now), (os.cpu_count() or 1) // workers))):
        return list(run(jobs))


def _ovo_to_ovr(dec, pairs, n_classes):
    """Votes plus bounded confidences (scikit-learn's ``_ovr_decision_function``)."""
    m = dec.shape[0]
    votes = np.zeros((m, n_classes))
    conf = np.zeros((m, n_classes))
    for k, (i, j) in enumerate(pairs):
        d = dec[:, k]
        votes[:, j] += d > 0
        votes[:, i] += d <= 0
        conf[:, j] += d
        conf[:, i] -= d
    conf = conf / (3 * (np.abs(conf) + 1))
    return votes + conf

