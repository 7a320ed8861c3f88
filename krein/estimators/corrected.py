"""libsvm on a kernel corrected by any kernel-correction transformer.

:class:`CorrectedKernelSVC` turns a transformer on kernel matrices (the contract
of :class:`krein.spectrum.SpectrumCorrection`: ``fit_transform(K, y)`` returns the
corrected ``(n, n)`` training kernel, ``transform(K_rows)`` the corrected
``(m, n)`` rows of new points) into a classifier with the interface of every
krein estimator, so that a correction (bending, nearest PSD matrix, conformal
transformation, conformal linear combination of Munoz & de Diego 2006, or a
spectrum correction) can be a registry method run by ``krein compare``.
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn.utils._param_validation import HasMethods, StrOptions

from .._cache import cached, parameters_token, shared_computations_active
from .._fitting import numpy_output
from .._validation import LIBSVM_MAX_ITER, POSITIVE
from ..combinations import check_stacked_kernel, check_stacked_rows
from ..kernels import pairwise_kernel
from ..solvers.linear import linear_svm
from ..spectrum import Spectrum
from .approximate import FrontEndMixin
from .base import (BinaryModel, KernelClassifierBase, check_square_kernel, fit_pairs,
                   libsvm_solve, pair_indices)

__all__ = ["CorrectedKernelSVC", "landmark_feature_map", "psd_landmark_factor",
           "CORRECTED_SVC_SOLVERS"]

#: Values of :class:`CorrectedKernelSVC`'s ``solver``: libsvm on the corrected kernel (exact
#: path), or a linear SVM on the corrected landmark features (``approximation``).
CORRECTED_SVC_SOLVERS = ("auto", "libsvm", "liblinear")

#: A corrected landmark block whose least eigenvalue is below ``-PSD_RTOL * max|eigenvalue|``
#: is not PSD: no features realize it (:func:`psd_landmark_factor`).
PSD_RTOL = 1e-8


def psd_landmark_factor(Wc, what="corrected landmark block"):
    """Thin factors of a PSD landmark block: ``Wc = F F'`` and ``G = Wc^+ F``.

    ``Wc = V diag(l) V'``; the eigenvalues ``l > m eps max l`` are kept (the others
    are zero up to round-off), ``F = V_+ diag(l_+^(1/2))`` and
    ``G = V_+ diag(l_+^(-1/2))`` (so ``Wc G = F`` and ``F' G = I``).

    Parameters
    ----------
    Wc : ndarray of shape (m, m)
        Symmetric PSD matrix (the corrected kernel of the landmarks).
    what : str
        Its name in the error message.

    Returns
    -------
    F : ndarray of shape (m, k)
        ``V_+ diag(l_+^(1/2))``.
    G : ndarray of shape (m, k)
        ``V_+ diag(l_+^(-1/2))``.
    eigenvalues : ndarray of shape (m,)
        All eigenvalues ``l`` of ``Wc``, ascending.

    Raises
    ------
    ValueError
        If ``Wc`` has an eigenvalue below ``-PSD_RTOL * max|l|`` (not PSD), or is zero.
    """
    Wc = np.asarray(Wc, dtype=float)
    lam, V = np.linalg.eigh(0.5 * (Wc + Wc.T))
    top = float(np.max(np.abs(lam), initial=0.0))
    if top == 0.0:
        raise ValueError(f"the {what} is zero: no features can be formed")
    if lam[0] < -PSD_RTOL * top:
        raise ValueError(f"the {what} is not PSD (least eigenvalue {lam[0]:.4g}, largest "
                         f"|eigenvalue| {top:.4g}): a linear SVM needs a PSD correction")
    keep = lam > lam.size * np.finfo(float).eps * top
    root = np.sqrt(lam[keep])
    return V[:, keep] * root, V[:, keep] / root, lam


def landmark_feature_map(approximation, factor):
    """``M`` with ``C W^+ F = Psi M``: the Nyström extension of a landmark factor.

    With the fitted front end's ``Psi = C T`` (``T = normalization_``) and signs
    ``s``, ``T diag(s) T'`` is the pseudo-inverse ``W^+`` of the landmark block with
    the front end's cut (:mod:`krein.approximation`: ``C T diag(s) T' C'`` is its
    approximation ``C W^+ C'``), so ``C W^+ F = Psi diag(s) T' F``.  A matrix
    ``Wc = F F'`` on the landmarks is thereby extended to the PSD kernel
    ``C W^+ Wc W^+ C' = (Psi M)(Psi M)'`` of all points, which with every
    training point a landmark (``C = W = K``, nothing cut) is ``Wc`` itself.

    Parameters
    ----------
    approximation : IndefiniteNystroem
        Fitted front end (``normalization_``, ``signs_``).
    factor : ndarray of shape (m, k)
        ``F`` on the landmarks.

    Returns
    -------
    ndarray of shape (r, k)
        ``M = diag(s) T' F``.
    """
    T = np.asarray(approximation.normalization_, dtype=float)
    s = np.asarray(approximation.signs_, dtype=float)
    return s[:, None] * (T.T @ factor)


def _needs_labels(correction):
    """Whether a correction reads the labels (support-vector weights, also in a base)."""
    params = correction.get_params(deep=True)
    return any(isinstance(v, str) and v == "support-vectors" for v in params.values())


def _base_kernel_spec(spec, i):
    """``(kernel, params)`` of one entry of ``base_kernels``."""
    if isinstance(spec, str) or callable(spec):
        return spec, {}
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[1], dict) and (
            isinstance(spec[0], str) or callable(spec[0])):
        return spec[0], spec[1]
    raise ValueError(f"base_kernels[{i}] must be a kernel name, a callable or a (name, params) "
                     f"pair; got {spec!r}")


class CorrectedKernelSVC(FrontEndMixin, KernelClassifierBase):
    """C-SVM (libsvm) on a kernel corrected by a transformer, with its out-of-sample map.

    ``fit``: the training kernel ``K`` (precomputed, or computed from feature
    vectors) is corrected ONCE by a fresh clone of ``correction``,
    ``Kc = correction.fit_transform(K, y)`` (the labels are passed on, as
    weights of bending or alternating projections may come from a first SVC
    fit), and libsvm (scikit-learn's ``SVC(kernel="precomputed")``) is trained
    on ``Kc`` (one-vs-one blocks of ``Kc`` for more than two classes).
    ``predict``/``decision_function``: the kernel rows of the new points are
    mapped by ``correction.transform`` (the transformer's out-of-sample rule)
    and the SVM expansion is applied to the mapped rows.

    Inside :func:`krein._cache.shared_computations` the correction of a block is
    fitted once: ``fit`` memoizes ``(fitted correction, corrected kernel)`` on
    the content of ``K`` and ``y``, the correction's class and its parameters,
    so that an inner cross-validation over ``C`` (which the correction does not
    see) reuses it; each estimator gets its own deep copy of the fitted
    correction, the corrected kernel is shared read-only, and the fit's warnings
    are emitted again.  Outside the context every ``fit`` corrects afresh.

    Stacked kernels
    ---------------
    Corrections with ``accepts_stacked_kernels = True`` (e.g.
    :class:`~krein.estimators.clc.ConformalLinearCombination`) need base
    kernels besides ``K``.  With ``kernel="precomputed"`` pass the stacked
    array of :mod:`krein.combinations`: ``(n, n, 1 + M)`` to ``fit`` and
    ``(m, n, 1 + M)`` to ``predict``; slice 0 is ``K`` (used for the
    diagnostics below).  With feature vectors give ``base_kernels`` and the
    estimator stacks ``[kernel, base_1, ..., base_M]`` itself.

    ``transform`` must take rows of the same width as the training kernel
    (``(m, n)``, or ``(m, n, 1 + M)`` stacked): the transductive map of
    :class:`~krein.spectrum.SpectrumCorrection`, which takes ``(m, n + m)``
    rows, is not supported here (use :class:`~krein.estimators.SpectrumSVC`).

Approximate path
----------------
With ``approximation`` (an :class:`~krein.approximation.IndefiniteNystroem`) no
``n x n`` array is formed.  The correction is fitted on the LANDMARK BLOCK
``W = approximation_.landmark_block_`` (``m x m``) instead of the training
kernel, ``Wc = correction.fit_transform(W, y_landmarks) = F F'`` (PSD;
:func:`psd_landmark_factor`; the corrections of munoz §3 need a symmetric
matrix, and the landmark block is the one available), and the SVM is the
linear C-SVM (:func:`krein.solvers.linear.linear_svm`, ``solver``) on features
``Phi`` with ``Phi Phi' ~ Kc``, one-vs-one on the rows of the ONE corrected
kernel as the exact path.  The Nyström method (Williams & Seeger 2001, eq. 9)
gives the features in one of two ways:

* a correction of the matrix (bending, nearest PSD, conformal, a spectrum
  correction): ``Wc`` is extended by the front end's Nyström map of the kernel,
  ``Kc ~ C W^+ Wc W^+ C' = Phi Phi'``, ``Phi = C W^+ F``
  (:func:`landmark_feature_map`; ``C = K(X, landmarks)``, ``W^+`` the front end's
  pseudo-inverse of the indefinite block by eigenvalue magnitude, Oglic & Gärtner
  2019, §3), and a new point gets the same map, ``phi(x) = k(x, landmarks) W^+
  F``.  The correction's own out-of-sample rule (munoz eqs. 3, 8, 14) is not
  used: it would map new points differently from the training rows, which at
  low rank costs accuracy (checkerboard-like data, sigmoid kernel, n = 1500,
  m = 40: conformal 0.95 with this map, 0.74 with eq. 14's rows);
* a corrected kernel FUNCTION (CLC, AKM: ``k* = sum_m beta_m k_m``, with
  ``base_kernels``): the Nyström features of ``k*`` itself, ``Phi = C* G`` with
  its columns ``C* = K*(X, landmarks)`` and ``G = Wc^+ F``, for training and new
  points alike (``Phi Phi' = C* Wc^+ C*'``).

Full rank: with every training point a landmark and no eigenvalue of ``W = K``
cut, ``Phi Phi' = Wc = Kc``, the exact path's corrected kernel, so the SVM solves
the exact path's problem (with ``solver="libsvm"``, to its certificate) and the
decision values of the training points are the exact path's; those of new
points are too where the exact out-of-sample rule is the Nyström extension
``k(x, X) K^-1 Kc`` (``out_of_sample="spectral"`` of bending and nearest PSD,
CLC and AKM), and differ by the rule otherwise.  Time ``O(n m r + m^3 +``
the correction of ``W``), memory ``O(n m)``.

Labels: a correction that reads them (``weights="support-vectors"`` of
:class:`~krein.estimators.Bending` and :class:`~krein.estimators.NearestPSD`)
gets the labels of the landmarks, which are known when the landmarks are
training rows (``approximation_.landmark_indices_``: named-kernel input, or
precomputed columns with an index array ``landmarks``).  With a
``landmark_block`` given apart from the rows (a landmark may lie outside the
training set, e.g. in a test fold) their labels are not known and ``fit``
raises ``ValueError``.  Stacked kernels (CLC, AKM) need feature vectors and
``base_kernels``: the base kernels' landmark blocks and columns are computed
against ``approximation_.landmarks_``.

    Parameters
    ----------
    correction : transformer or None
        A kernel-correction transformer (cloned in ``fit``); None trains libsvm
        on the raw kernel (then equal to :class:`~krein.estimators.DirectSVC`).
    C : float > 0
        Box bound of the SVM.
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
    class_weight : None, "balanced" or dict {label: weight}
        Per-class box bounds ``C * weight`` of the SVM (scikit-learn SVC's meaning;
        the correction itself does not see them).
    base_kernels : list, optional
        Feature-vector input only, for corrections that take stacked kernels:
        the base kernels, each a name of :data:`krein.kernels.KERNELS`, a
        callable ``k(X, Z)``, or a pair ``(name or callable, params dict)``.
    tol : float > 0
        libsvm stopping tolerance.
    max_iter : int >= 1 or -1
        libsvm iteration limit (-1: none).
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).
    solver : {"auto", "libsvm", "liblinear"}, default="auto"
        ``"auto"``: libsvm on the corrected kernel (exact path), liblinear on the
        corrected landmark features (approximate path).  ``"libsvm"`` with an
        approximation: scikit-learn's ``SVC(kernel="linear")`` on the features,
        the exact SVM problem (unregularized intercept) with a duality-gap
        certificate, ``O(n^2)``; ``"liblinear"`` (approximation only): dual
        coordinate descent, linear in ``n``, regularized intercept
        (:mod:`krein.solvers.linear`).
    approximation : transformer or None, default=None
        A low-rank front end, e.g. :class:`krein.approximation.IndefiniteNystroem`
        (cloned and given ``kernel`` and ``kernel_params``); None keeps the exact
        path.  With it ``fit`` and ``predict`` take the front end's input
        (feature vectors with a named kernel, or the columns ``K(objects,
        landmarks)`` of shape ``(n, m)`` with ``kernel="precomputed"``) and the
        model is the linear SVM on the corrected landmark features ("Approximate
        path" above).

    Attributes
    ----------
    correction_ : transformer or None
        The fitted clone of ``correction``.
    classes_, support_, dual_coef_, intercept_, n_iter_ :
        As in the base class; ``dual_coef_`` are ``y alpha`` of the SVM on the
        corrected kernel, applied to corrected rows.
    spectrum_ : krein.spectrum.Spectrum
        Eigendecomposition of the (uncorrected) training kernel ``K``.
    min_eigenvalue_ : float
        Least eigenvalue of ``K``.
    signature_ : tuple (p, q, z)
        Of ``K``.
    r_mm_, r_neg_ : float
        Deviation from Euclideanness of ``K`` (munoz eq. 2), in percent:
        ``100 |lambda_min| / lambda_max`` and ``100 sum_{lambda<0} |lambda| /
        sum |lambda|`` (:attr:`krein.spectrum.Spectrum.r_mm`, ``r_neg``).
    corrected_min_eigenvalue_ : float
        Least eigenvalue of the corrected training kernel (>= 0 up to round-off
        for a PSD correction).
    stack_depth_ : int or None
        ``1 + M`` for stacked input, None for a plain kernel.
    approximation_ : IndefiniteNystroem
        Approximate path: the fitted front end.  There ``correction_`` is fitted
        on its landmark block; ``coef_`` (n_pairs, k) and ``intercept_`` are the
        linear models on the features ``phi``; ``feature_map_`` (r, k) is ``M``
        with ``phi(x) = psi(x) M`` (``psi`` the front end's features) for a
        matrix correction, ``landmark_map_`` (m, k) is ``G`` with
        ``phi(x) = K*(x, landmarks) G`` for a kernel function (the other one is
        None); ``spectrum_`` is None, ``min_eigenvalue_`` and
        ``signature_`` are those of the approximation (its ``n - r`` null
        directions counted as zero), ``corrected_min_eigenvalue_`` is the least
        eigenvalue of the corrected landmark block; ``support_`` and
        ``dual_coef_`` are not set (liblinear returns no dual point).

    Raises
    ------
    ValueError
        Bad parameters; a stacked input with a correction that does not take
        one; ``base_kernels`` with a precomputed kernel or with a correction
        that does not take stacked kernels; what the correction raises.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import CorrectedKernelSVC, NearestPSD
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = CorrectedKernelSVC(correction=NearestPSD(), kernel="sigmoid",
    ...                          kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True

    >>> from krein import SpectrumCorrection
    >>> est = CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip"),
    ...                          kernel="precomputed")
    >>> est = est.set_params(C=10.0, correction__correction="flip")
    >>> est.get_params()["correction__correction"]
    'flip'

    References
    ----------
    A. Munoz, I. Martin de Diego (2006), "From indefinite to positive
    semi-definite matrices" (corrections §2-3, eq. 2 for ``r_mm``/``r_neg``).
    C. Williams, M. Seeger (2001), "Using the Nyström method to speed up kernel
    machines", NIPS (eq. 9).  D. Oglic, T. Gärtner (2019), "Scalable learning in
    reproducing kernel Krein spaces", ICML, §3 (the indefinite landmark block).
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "correction": [HasMethods(["fit_transform", "transform"]), None],
        "base_kernels": [list, tuple, None],
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
        "solver": [StrOptions(set(CORRECTED_SVC_SOLVERS))],
        "approximation": [HasMethods(["fit_transform", "transform"]), None],
    }

    def __init__(self, *, correction=None, C=1.0, kernel="gaussian", kernel_params=None,
                 class_weight=None, base_kernels=None, tol=1e-3, max_iter=-1, probability=False,
                 solver="auto", approximation=None):
        self.correction = correction
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.base_kernels = base_kernels
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability
        self.solver = solver
        self.approximation = approximation

    @property
    def accepts_stacked_kernels(self):
        """True when ``correction`` takes stacked ``(n, n, 1 + M)`` kernels."""
        return bool(getattr(self.correction, "accepts_stacked_kernels", False))

    # ---------------------------------------------------------------- checks
    def _check_params(self):
        c = self.correction
        self._check_approximation()     # liblinear needs an approximation
        if self._approximate():
            if c is None:
                raise ValueError("an approximation needs a correction: libsvm on the raw "
                                 "indefinite kernel has no linear-SVM equivalent on features")
            if self.solver == "auto":
                self.solver_ = "liblinear"
            else:
                self.solver_ = self.solver
        else:
            self.solver_ = "libsvm"
        if self.base_kernels is not None:
            if self._precomputed():
                raise ValueError("base_kernels is for feature-vector input; with "
                                 "kernel='precomputed' pass a stacked (n, n, 1 + M) kernel")
            if not self.accepts_stacked_kernels:
                raise ValueError("base_kernels needs a correction that takes stacked kernels "
                                 f"(e.g. ConformalLinearCombination); got {c!r}")
            if len(self.base_kernels) == 0:
                raise ValueError("base_kernels is empty: give at least one base kernel")
            for i, spec in enumerate(self.base_kernels):
                _base_kernel_spec(spec, i)

    def _base_stack(self, X, Z=None):
        mats = [pairwise_kernel(k, X, Z, p)
                for k, p in (_base_kernel_spec(s, i) for i, s in enumerate(self.base_kernels))]
        return np.stack(mats, axis=-1)

    # ---------------------------------------------------------------- fit
    def _fit(self, X, y):
        if self._approximate():
            return self._fit_approximate(X, y)
        stacked = (self._precomputed() and isinstance(X, np.ndarray) and X.ndim == 3)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2,
                             allow_nd=stacked)
        check_classification_targets(y)
        X_fit = None
        if stacked:
            if not self.accepts_stacked_kernels:
                raise ValueError(
                    f"a stacked (n, n, 1 + M) kernel needs a correction that takes stacked "
                    f"kernels (e.g. ConformalLinearCombination); got {self.correction!r}")
            K, _ = check_stacked_kernel(X, "X (stacked precomputed kernel)")
            K_in = X
        elif self._precomputed():
            K = check_square_kernel(X, "X (precomputed kernel)")
            K_in = K
        else:
            X_fit = X
            K = check_square_kernel(self._gram(X), "kernel matrix")
            K_in = K
            if self.base_kernels is not None:
                K_in = np.concatenate([K[:, :, None], self._base_stack(X)], axis=2)
        classes, y_idx = self._encode_labels(y)
        if self.correction is None:
            correction, Kc = None, K
        else:
            correction, Kc = self._fit_correction(K_in, K, y)
        pairs = list(itertools.combinations(range(classes.size), 2))

        def problems():     # the blocks of the ONE correction of the training kernel
            for i, j in pairs:
                idx = pair_indices(y_idx, i, j, classes.size)
                K_sub = Kc if classes.size == 2 else Kc[np.ix_(idx, idx)]
                yield K_sub, np.where(y_idx[idx] == j, 1.0, -1.0), idx, \
                    self._per_sample_C(y_idx[idx])

        # libsvm releases the GIL: the pairs over joblib threads when a
        # joblib.parallel_config asks for workers (serial otherwise; base.fit_pairs)
        models = fit_pairs(self._fit_binary, problems(), len(pairs))
        spec = getattr(correction, "spectrum_", None)
        if not isinstance(spec, Spectrum) or spec.partial or spec.n != K.shape[0]:
            spec = Spectrum.from_kernel(K, check=False)
        corrected_min = spec.min_eigenvalue if correction is None else cached(
            ("least-eigvalsh",), Kc, lambda: float(np.linalg.eigvalsh(Kc)[0]))
        # ---- everything computed: set the fitted attributes
        self._set_fitted(classes, pairs, models, X_fit, Kc)
        self.correction_ = correction
        self.spectrum_ = spec
        self.min_eigenvalue_ = spec.min_eigenvalue
        self.signature_ = spec.signature
        self.r_mm_ = spec.r_mm
        self.r_neg_ = spec.r_neg
        self.corrected_min_eigenvalue_ = corrected_min
        self.stack_depth_ = int(X.shape[2]) if stacked else None
        return self

    def _fit_binary(self, K, y, idx, C):
        """libsvm on one pair's block of the corrected kernel."""
        u, b, sol = libsvm_solve(K, y, C, tol=self.tol, max_iter=self.max_iter)
        return BinaryModel(idx, u, b, {"n_iter": sol.iterations, "solution": sol})

    def _fit_correction(self, K_in, K, y):
        """``(fitted clone of correction, corrected kernel)``, shared by content.

        Inside :func:`krein._cache.shared_computations` the fit is memoized on
        the content of ``K_in`` and ``y``, the correction's class and its
        parameters (:func:`krein._cache.parameters_token`): the inner CV over
        ``C`` (which the correction does not see) fits it once per block.  A hit
        returns a deep copy of the stored fitted correction and the stored
        (read-only) corrected kernel, and emits again the warnings the fit
        emitted.
        """
        def fit():
            correction = numpy_output(clone(self.correction))
            Kc = np.asarray(correction.fit_transform(K_in, y), dtype=float)
            if Kc.shape != K.shape:
                raise ValueError(f"the correction returned a kernel of shape {Kc.shape}; "
                                 f"expected {K.shape}")
            return correction, check_square_kernel(Kc, "corrected kernel")

        token = parameters_token(self.correction) if shared_computations_active() else None
        if token is None:
            return fit()
        correction, Kc = cached(("correction", token), (K_in, np.asarray(y)), fit,
                                record_warnings=True)
        return copy.deepcopy(correction), Kc

    # ---------------------------------------------------------------- approximate path
    def _fit_approximate(self, X, y):
        """The approximate path (class docstring): the correction of the landmark block,
        its Nyström features, one linear SVM per one-vs-one pair."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_idx = self._encode_labels(y)
        approx, rep = self._fit_front_end(X)
        W = np.asarray(approx.landmark_block_, dtype=float)
        W_in = W if self.base_kernels is None else np.concatenate(
            [W[:, :, None], self._base_stack(approx.landmarks_, approx.landmarks_)], axis=2)
        lm = approx.landmark_indices_
        y_lm = None if lm is None else y[np.asarray(lm)]
        if y_lm is None and _needs_labels(self.correction):
            raise ValueError(
                "the correction reads the labels of the landmarks (weights='support-vectors'), "
                "which are unknown when the landmark block is given apart from the training "
                "rows: give the landmarks as training rows (an index array) or use weights=None")
        if y_lm is None:
            correction = numpy_output(clone(self.correction))
            Wc = check_square_kernel(np.asarray(correction.fit_transform(W_in, None), dtype=float),
                                     "corrected landmark block")
        else:
            correction, Wc = self._fit_correction(W_in, W, y_lm)
        if Wc.shape != W.shape:
            raise ValueError(f"the correction returned a block of shape {Wc.shape}; expected "
                             f"{W.shape}")
        F, G, lc = psd_landmark_factor(Wc)
        if self.base_kernels is None:      # a matrix correction: C W^+ F = Psi M
            M, G = landmark_feature_map(approx, F), None
            Phi = rep.Z @ M
        else:                              # a kernel function: its own columns C* G
            M = None
            Phi = self._combined_columns(correction, approx, X) @ G
        pairs = list(itertools.combinations(range(classes.size), 2))
        coefs, intercepts, models = [], [], []
        for i, j in pairs:
            idx = pair_indices(y_idx, i, j, classes.size)
            sub = Phi if classes.size == 2 else Phi[idx]
            y_pm = np.where(y_idx[idx] == j, 1.0, -1.0)
            w, b, sol = linear_svm(sub, y_pm, self._per_sample_C(y_idx[idx]), self.solver_,
                                   self.tol, self.max_iter)
            coefs.append(w)
            intercepts.append(b)
            models.append(BinaryModel(np.arange(0), w, b,
                                      {"n_iter": sol.iterations or 0, "solution": sol}))
        lam = np.asarray(approx.eigenvalues_, dtype=float)
        n = X.shape[0]
        p, q = int(np.sum(lam > 0)), int(np.sum(lam < 0))
        # ---- everything computed: set the fitted attributes
        self.classes_ = classes
        self.pairs_ = pairs
        self.approximation_ = approx
        self.correction_ = correction
        self.binary_models_ = models
        self.coef_ = np.vstack(coefs)
        self.intercept_ = np.array(intercepts, dtype=float)
        self.n_iter_ = np.array([m.info["n_iter"] for m in models])
        self.class_weight_ = self._class_weight
        self.feature_map_ = M
        self.landmark_map_ = G
        self.eigenvalues_ = lam
        self.spectrum_ = None
        self.min_eigenvalue_ = float(lam.min()) if lam.size == n else \
            float(min(lam.min(initial=0.0), 0.0))
        self.signature_ = (p, q, n - p - q)
        self.r_mm_ = self.r_neg_ = None
        self.corrected_min_eigenvalue_ = float(lc[0])
        self.stack_depth_ = None if self.base_kernels is None else 1 + len(self.base_kernels)
        self.shape_fit_ = X.shape
        return self

    def _combined_columns(self, correction, approx, X):
        """``K*(X, landmarks)``: the fitted stacked correction applied to the stacked
        columns ``[K, K_1, ..., K_M](X, landmarks)``."""
        cols = np.asarray(approx.columns(X), dtype=float)
        rows_in = np.concatenate([cols[:, :, None], self._base_stack(X, approx.landmarks_)],
                                 axis=2)
        out = np.asarray(correction.transform(rows_in), dtype=float)
        if out.shape != cols.shape:
            raise ValueError(f"the correction's transform returned shape {out.shape}; expected "
                             f"{cols.shape}")
        return out

    def _approximate_rows(self, X):
        """Features ``phi(x)`` of new points (class docstring, Approximate path)."""
        if self.landmark_map_ is None:
            return self._front_end_rows(X) @ self.feature_map_
        check_is_fitted(self, "approximation_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._combined_columns(self.correction_, self.approximation_, X) @ \
            self.landmark_map_

    def _binary_decisions(self, K_rows, extra=None):
        if not self._approximate():
            return super()._binary_decisions(K_rows, extra)
        return K_rows @ self.coef_.T + self.intercept_

    # ---------------------------------------------------------------- predict
    def _test_rows(self, X):
        """Corrected ``(m, n_train)`` rows of new points (the correction's out-of-sample map);
        with an approximation, their features ``phi(x)``."""
        if self._approximate():
            return self._approximate_rows(X), None
        check_is_fitted(self, "binary_models_")
        stacked = self.stack_depth_ is not None
        X = validate_data(self, X, dtype=np.float64, reset=False, allow_nd=stacked)
        n = self.shape_fit_[0]
        if stacked:
            rows, _ = check_stacked_rows(X, n, self.stack_depth_, "X (stacked kernel rows)")
            rows_in = X
        elif self._precomputed():
            rows = rows_in = X
        else:
            rows = rows_in = self._gram(X, self.X_fit_)
            if self.base_kernels is not None:
                rows_in = np.concatenate([rows[:, :, None], self._base_stack(X, self.X_fit_)],
                                         axis=2)
        if self.correction_ is None:
            return rows, None
        out = np.asarray(self.correction_.transform(rows_in), dtype=float)
        if out.shape != (X.shape[0], n):
            raise ValueError(f"the correction's transform returned shape {out.shape}; expected "
                             f"{(X.shape[0], n)}")
        return out, None
