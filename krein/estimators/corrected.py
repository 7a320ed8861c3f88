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

from sklearn.utils._param_validation import HasMethods

from .._cache import cached, parameters_token, shared_computations_active
from .._validation import LIBSVM_MAX_ITER, POSITIVE
from ..combinations import check_stacked_kernel, check_stacked_rows
from ..kernels import pairwise_kernel
from ..spectrum import Spectrum
from .base import (BinaryModel, KernelClassifierBase, check_square_kernel, fit_pairs,
                   libsvm_solve, pair_indices)

__all__ = ["CorrectedKernelSVC"]


def _base_kernel_spec(spec, i):
    """``(kernel, params)`` of one entry of ``base_kernels``."""
    if isinstance(spec, str) or callable(spec):
        return spec, {}
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[1], dict) and (
            isinstance(spec[0], str) or callable(spec[0])):
        return spec[0], spec[1]
    raise ValueError(f"base_kernels[{i}] must be a kernel name, a callable or a (name, params) "
                     f"pair; got {spec!r}")


class CorrectedKernelSVC(KernelClassifierBase):
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

    Parameters
    ----------
    correction : transformer or None
        A kernel-correction transformer (cloned in ``fit``); None trains libsvm
        on the raw kernel (then equal to :class:`~krein.estimators.DirectSVC`).
    C : float > 0
        Box bound of the SVM.
    kernel : "precomputed", str or callable
        See :class:`~krein.estimators.base.KernelClassifierBase`.
    kernel_params : dict, optional
        Parameters of a named or callable ``kernel``.
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

    Raises
    ------
    ValueError
        Bad parameters; a stacked input with a correction that does not take
        one; ``base_kernels`` with a precomputed kernel or with a correction
        that does not take stacked kernels; what the correction raises.

    Examples
    --------
    >>> from krein import SpectrumCorrection
    >>> est = CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip"), kernel="precomputed")
    >>> est = est.set_params(C=10.0, correction__correction="flip")
    >>> est.get_params()["correction__correction"]
    'flip'

    References
    ----------
    A. Munoz, I. Martin de Diego (2006), "From indefinite to positive
    semi-definite matrices" (corrections §2-3, eq. 2 for ``r_mm``/``r_neg``).
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "correction": [HasMethods(["fit_transform", "transform"]), None],
        "base_kernels": [list, tuple, None],
        "tol": [POSITIVE],
        "max_iter": LIBSVM_MAX_ITER,
    }

    def __init__(self, *, correction=None, C=1.0, kernel="gaussian", kernel_params=None,
                 class_weight=None, base_kernels=None, tol=1e-3, max_iter=-1, probability=False):
        self.correction = correction
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.base_kernels = base_kernels
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability

    @property
    def accepts_stacked_kernels(self):
        """True when ``correction`` takes stacked ``(n, n, 1 + M)`` kernels."""
        return bool(getattr(self.correction, "accepts_stacked_kernels", False))

    # ---------------------------------------------------------------- checks
    def _check_params(self):
        c = self.correction
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
            correction = clone(self.correction)
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

    # ---------------------------------------------------------------- predict
    def _test_rows(self, X):
        """Corrected ``(m, n_train)`` rows of new points (the correction's out-of-sample map)."""
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
