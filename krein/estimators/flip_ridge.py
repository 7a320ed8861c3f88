"""Kernel ridge classification on the flipped kernel, one-vs-rest.

The flip correction makes any symmetric kernel PSD: ``K = V diag(lam) V'`` becomes
``|K| = V diag(|lam|) V'`` (Loosli, Canu & Ong 2016, §3.1; Graepel et al. 1999).  On
``|K|`` the kernel ridge problem of each class ``k`` against the rest,

    ``min_c~  1/2 c~' |K| c~ + 1/2 sum_i C_i (t_i - (|K| c~)_i)^2``,
    ``t = y - b``,  ``b = sum_i C_i y_i / sum_i C_i``,

with ``y_i = +1`` on class ``k`` and ``-1`` elsewhere, is solved in closed form,
``(|K| + diag(1 / C_i)) c~ = t`` (Saunders, Gammerman & Vovk 1998).  As in ESVM
(Loosli et al. 2016, Algorithm 1), the coefficients are mapped back to the Krein space,
``c = V sign(lam) V' c~``, so that the decision function ``f(x) = k(x, X) c + b`` uses
the ORIGINAL kernel rows and equals ``|K| c~ + b`` on the training points.

Large data: ridge regression on the signed Nyström features
------------------------------------------------------------
With ``approximation=IndefiniteNystroem(...)`` the training kernel is its low-rank
approximation ``K_approx = Psi diag(s) Psi'`` (``Psi`` of shape ``(n, r)``,
``Psi'Psi = diag(|lam|)``; Oglic & Gärtner 2019, §3), whose flip is
``|K_approx| = Psi Psi'``.  With ``w = Psi' c~`` the push-through identity
``Psi' (Psi Psi' + D^(-1))^(-1) = (I + Psi' D Psi)^(-1) Psi' D``
(``D = diag(C_i)``) turns the ``n x n`` system into the ``r x r`` ridge regression

    ``(I + Psi' D Psi) w = Psi' D (y - b)``,

i.e. ``min_w ||w||^2 + sum_i C_i (y_i - b - psi_i w)^2`` (the primal of the kernel
ridge problem, Saunders, Gammerman & Vovk 1998, eqs. (2)-(3)), solved once for every
class (``D`` is the same for all of them).  The Krein coefficients give
``k_approx(x, X) c = psi(x) diag(s) Psi' V sign(lam) V' c~ = psi(x) w``
(``V = Psi |lam|^(-1/2)``, ``Psi'V = diag(|lam|^(1/2))``), so ``f(x) = psi(x) w + b``
with ``psi(x)`` the Nyström features of a new point: ``O(n r^2)`` time, ``O(n r)``
memory, no ``n x n`` array.  With every training point a landmark ``K_approx = K``
and the decision values are the exact path's.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ..spectrum import Spectrum
from .approximate import FrontEndMixin
from .base import BinaryModel, KernelClassifierBase
from .approximate import APPROXIMATION_CONSTRAINT as _APPROXIMATION

__all__ = ["FlippedKernelRidgeClassifier"]


class FlippedKernelRidgeClassifier(FrontEndMixin, KernelClassifierBase):
    """Kernel ridge classifier on the flipped kernel ``|K|``, one-vs-rest, Krein coefficients.

    Each class ``k`` gets the kernel ridge solution ``(|K| + diag(1 / C_i)) c~ = y - b``
    on ``y = +1`` for ``k`` and ``-1`` for the other classes, with ``b`` the
    ``C``-weighted mean of ``y`` (module docstring).  Its Krein coefficients
    ``c = V sign(lam) V' c~`` give ``f(x) = k(x, X) c + b`` on new points, the
    flip's training decisions ``|K| c~ + b`` on the training points.  ``predict`` is
    the class of the largest decision value.

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the squared residuals (the ridge parameter is ``1 / C``); with
        ``class_weight``, sample ``i`` of class ``c`` weighs ``C * class_weight_[c]``.
        ``K -> s K`` is compensated by ``C -> C / s``.
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
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers of ``C``.
    approximation : transformer or None, default=None
        A low-rank front end (:class:`krein.approximation.IndefiniteNystroem`);
        None keeps the exact path.  It is cloned and given the estimator's
        ``kernel`` and ``kernel_params``; ``fit`` then takes its input (feature
        vectors, or with ``kernel="precomputed"`` the kernel columns against the
        landmarks) and solves the ridge regression on its features ``Psi``
        (``|K_approx| = Psi Psi'``, module docstring); ``f(x) = psi(x) w + b``.
        No ``n x n`` array is formed.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation
        (:class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    binary_models_ : list of BinaryModel
        One per class (two classes: one model, positive for ``classes_[1]``).
    dual_coef_ : ndarray of shape (n_models, n_SV)
        The Krein coefficients ``c`` of each model on ``support_``.
    intercept_ : ndarray of shape (n_models,)
    spectrum_ : krein.spectrum.Spectrum
        The eigendecomposition of the training kernel (computed once per fit).
    min_eigenvalue_ : float
        Least eigenvalue of the training kernel (with an approximation: of
        ``K_approx``, 0 when it is PSD and of lower rank than ``n``).
    approximation_ : transformer
        With an approximation: the fitted clone.
    coef_ : ndarray of shape (n_models, r)
        With an approximation: the weights ``w`` on its features.
    eigenvalues_ : ndarray of shape (r,)
        With an approximation: the nonzero eigenvalues of ``K_approx``.

    References
    ----------
    Loosli, Canu & Ong (2016), "Learning SVM in Kreĭn spaces", IEEE TPAMI 38(6), §3.1
    and Algorithm 1.  Saunders, Gammerman & Vovk (1998), "Ridge regression learning
    algorithm in dual variables", ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.estimators.flip_ridge import FlippedKernelRidgeClassifier
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2], [2.0], [2.2]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> clf = FlippedKernelRidgeClassifier(kernel="sigmoid").fit(X, y)
    >>> clf.decision_function(X).shape
    (6, 3)
    """

    _multiclass = "ovr"

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "approximation": _APPROXIMATION,
    }

    def __init__(self, C=1.0, *, kernel="gaussian", kernel_params=None, class_weight=None,
                 approximation=None, probability=False):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.approximation = approximation
        self.probability = probability

    def _check_params(self):
        self._check_approximation()

    def _pair_kernel(self, K, y_idx):
        # every one-vs-rest problem has the whole training kernel: one eigendecomposition
        self.spectrum_ = Spectrum.from_kernel(K)
        return K

    def _fit_binary(self, K, y, idx, C):
        spec = self.spectrum_
        weights = np.broadcast_to(np.asarray(C, dtype=float), y.shape)
        b = float(weights @ y / weights.sum())
        V = spec.eigenvectors
        if not spec.partial and np.all(weights == weights[0]):
            # one weight c: |K| + I / c = V (|lam| + 1 / c) V', solved in K's own
            # eigenvectors in n^2 (|lam| = lam * sign(lam), 0 within the null tolerance)
            s = spec.signs()
            den = spec.eigenvalues * s + 1.0 / weights[0]
            coef = V @ (s * ((V.T @ (y - b)) / den))
            return BinaryModel(idx, coef, b, {"n_iter": 0})
        system = spec.flipped_kernel(K) + np.diag(1.0 / weights)
        c_flip = scipy.linalg.solve(system, y - b, assume_a="pos")
        coef = V @ (spec.signs() * (V.T @ c_flip))
        return BinaryModel(idx, coef, b, {"n_iter": 0})

    def _after_fit(self, K):
        self.min_eigenvalue_ = self.spectrum_.min_eigenvalue

    # ---------------------------------------------------------------- approximate path
    def _fit(self, X, y):
        if not self._approximate():
            return super()._fit(X, y)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_idx = self._encode_labels(y)
        approx, rep = self._fit_front_end(X)
        Psi, lam = rep.Z, rep.eigenvalues
        n, r = Psi.shape
        # the same weights D = diag(C_i) for every one-vs-rest model: one factorization
        weights = np.broadcast_to(np.asarray(self._per_sample_C(y_idx), dtype=float), (n,))
        positives = [1] if classes.size == 2 else list(range(classes.size))
        Y = np.column_stack([np.where(y_idx == k, 1.0, -1.0) for k in positives])
        b = weights @ Y / weights.sum()
        DPsi = weights[:, None] * Psi
        system = Psi.T @ DPsi
        system[np.diag_indices(r)] += 1.0
        W = scipy.linalg.solve(system, DPsi.T @ (Y - b), assume_a="pos") if r else \
            np.zeros((0, len(positives)))
        self.classes_ = classes
        self.approximation_ = approx
        self.coef_ = np.ascontiguousarray(W.T)
        self.intercept_ = np.asarray(b, dtype=float)
        self.binary_models_ = [BinaryModel(np.arange(0), W[:, k], float(b[k]), {"n_iter": 0})
                               for k in range(len(positives))]
        self.n_iter_ = np.zeros(len(positives), dtype=int)
        self.class_weight_ = self._class_weight
        self.eigenvalues_ = lam
        self.min_eigenvalue_ = float(min(lam.min(initial=0.0), 0.0)) if r < n \
            else float(lam.min())
        return self

    def _test_rows(self, X):
        if not self._approximate():
            return super()._test_rows(X)
        return self._front_end_rows(X), None

    def _binary_decisions(self, K_rows, extra=None):
        if not self._approximate():
            return super()._binary_decisions(K_rows, extra)
        return K_rows @ self.coef_.T + self.intercept_
