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
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..spectrum import Spectrum
from .base import BinaryModel, KernelClassifierBase

__all__ = ["FlippedKernelRidgeClassifier"]


class FlippedKernelRidgeClassifier(KernelClassifierBase):
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
        See :class:`~krein.estimators.base.KernelClassifierBase`.
    kernel_params : dict, optional
        Parameters of a named or callable kernel.
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers of ``C``.
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
        Least eigenvalue of the training kernel.

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

    def __init__(self, C=1.0, *, kernel="gaussian", kernel_params=None, class_weight=None,
                 probability=False):
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.probability = probability

    def _pair_kernel(self, K, y_idx):
        # every one-vs-rest problem has the whole training kernel: one eigendecomposition
        self.spectrum_ = Spectrum.from_kernel(K)
        return K

    def _fit_binary(self, K, y, idx, C):
        spec = self.spectrum_
        weights = np.broadcast_to(np.asarray(C, dtype=float), y.shape)
        b = float(weights @ y / weights.sum())
        system = spec.flipped_kernel(K) + np.diag(1.0 / weights)
        c_flip = scipy.linalg.solve(system, y - b, assume_a="pos")
        V = spec.eigenvectors
        coef = V @ (spec.signs() * (V.T @ c_flip))
        return BinaryModel(idx, coef, b, {"n_iter": 0})

    def _after_fit(self, K):
        self.min_eigenvalue_ = self.spectrum_.min_eigenvalue
