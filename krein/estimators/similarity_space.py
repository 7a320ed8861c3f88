"""The similarity space: the rows of K as feature vectors for a linear or RBF SVM.

Registry "similarity-linear" and "similarity-rbf": a training object ``x_i`` is
represented by its similarities to the ``n`` training objects, the row
``phi(x_i) = K[i, :]`` (Graepel, Herbrich, Bollmann-Sdorra & Obermayer, NIPS 1999,
"classification on pairwise proximity data"; Pekalska & Duin 2005, "The
dissimilarity representation for pattern recognition", the dissimilarity
space; Chen, Garcia, Gupta, Rahimi & Cazzanti 2009, JMLR 10, "similarities as
features"), and a new object by its row ``phi(x) = k(x, X)``.
An ordinary SVM is trained on these vectors: with the linear kernel
``<phi(x), phi(z)>`` (Gram matrix ``K K'``, test rows ``k(x, X) K``) or the RBF
kernel ``exp(-gamma_ ||phi(x) - phi(z)||^2)``.  Both are positive semidefinite
whatever ``K`` is, so the SVM dual is convex and libsvm solves it exactly.

On dissimilarity data the feature vectors are the rows of the kernel krein builds
from the dissimilarities (e.g. the centred ``-1/2 J D^2 J`` of ``--kernel
dissimilarity-linear``, or ``K = D`` itself with ``dissimilarity-raw``, which is
Pekalska & Duin's dissimilarity space), whatever the comparison gives as ``K``.

The linear similarity space is the SVM on ``K^2`` with the test rows
``k(x, X) K`` (Munoz & de Diego's "square" correction with its eq. (7) map,
registry "square"); it is registered again under the name the similarity-based
literature uses.

``gamma`` is relative to the spread of the feature vectors: ``gamma_ = gamma /
(n_features * Var(Phi))`` with ``Var(Phi)`` the variance of all entries of the
training feature matrix and ``n_features = n`` (scikit-learn's ``gamma="scale"``
at ``gamma = 1``), so the same ``gamma`` means the same model on ``K`` and on
``s K``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import Interval, StrOptions

from .base import BinaryModel, KernelClassifierBase, libsvm_solve

__all__ = ["SimilaritySpaceSVC"]

#: Kernels on the similarity-space feature vectors.
FEATURE_KERNELS = ("linear", "rbf")

#: Default inner-CV grid of the relative RBF width ``gamma`` (registry "similarity-rbf",
#: crossed with the C grid): a decade either side of scikit-learn's ``gamma="scale"``.
GAMMA_GRID = (0.1, 1.0, 10.0)


def similarity_feature_gamma(Phi, gamma):
    """The absolute RBF width on similarity-space features: ``gamma / (n_features * Var(Phi))``.

    Parameters
    ----------
    Phi : ndarray of shape (n, n_features)
        Training feature vectors (rows of the training kernel).
    gamma : float > 0
        Relative width (1: scikit-learn's ``gamma="scale"``).

    Returns
    -------
    float
        ``gamma / (n_features * Var(Phi))``; ``gamma`` itself when all entries of
        ``Phi`` are equal (variance 0), as scikit-learn does.
    """
    var = float(np.var(Phi))
    return float(gamma) / (Phi.shape[1] * var) if var > 0 else float(gamma)


class SimilaritySpaceSVC(KernelClassifierBase):
    """C-SVM on the similarity-space feature vectors ``phi(x) = k(x, X_train)`` (the rows of K).

    Module docstring: Graepel et al. 1999; Pekalska & Duin 2005; Chen et al. 2009
    (similarities as features).  The training objects' feature vectors are the rows of the ``(n, n)``
    training kernel, a test object's the row ``k(x, X)`` of its ``(m, n)`` test
    block: the test rows suffice (no ``k(x, x)``).  The SVM kernel on the features
    is ``feature_kernel``; libsvm solves each binary problem (convex: the feature
    kernel is PSD), one-vs-one for more classes, and krein certifies it
    (:func:`krein.solvers.libsvm.libsvm_solve`).

    Parameters
    ----------
    C : float > 0, default=1.0
        Box bound of the SVM on the features.  ``K -> s K`` multiplies the linear
        feature kernel by ``s^2`` (scale exponent of ``C``: -2) and leaves the RBF
        feature kernel unchanged (exponent 0).
    feature_kernel : {"linear", "rbf"}, default="linear"
        ``"linear"``: ``<phi(x), phi(z)>``; ``"rbf"``: ``exp(-gamma_ ||phi(x) -
        phi(z)||^2)``.
    gamma : float > 0, default=1.0
        RBF only: relative width, ``gamma_ = gamma / (n * Var(Phi))``
        (:func:`similarity_feature_gamma`); the registry tunes it in {0.1, 1, 10}.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the ``(n, n)`` training kernel (the
        similarity matrix) and ``predict`` the ``(m, n)`` rows ``K(test,
        train)``; a name of :data:`krein.kernels.KERNELS` or a callable is
        evaluated on feature vectors first.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    class_weight : None, "balanced" or dict, default=None
        As scikit-learn's SVC (box bound ``C * class_weight_[c]``).
    tol : float > 0, default=1e-3
        libsvm stopping tolerance.
    max_iter : int, default=-1
        libsvm iteration limit, -1 for none.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    features_ : ndarray of shape (n, n)
        The training feature vectors (the training kernel's rows).
    gamma_ : float
        The absolute RBF width used (``feature_kernel="rbf"``; NaN for linear).
    classes_, support_, dual_coef_, intercept_, n_iter_, solutions_, solution_,
    min_eigenvalue_
        As :class:`~krein.estimators.KernelClassifierBase`; ``dual_coef_`` are
        the coefficients ``y_i alpha_i`` of the SVM on the feature kernel and
        ``min_eigenvalue_`` is that of the input training kernel.
    """

    _parameter_constraints: dict = {
        **KernelClassifierBase._parameter_constraints,
        "feature_kernel": [StrOptions(set(FEATURE_KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
    }

    def __init__(self, *, C=1.0, feature_kernel="linear", gamma=1.0, kernel="gaussian",
                 kernel_params=None, class_weight=None, tol=1e-3, max_iter=-1, probability=False):
        self.C = C
        self.feature_kernel = feature_kernel
        self.gamma = gamma
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability

    def _feature_gram(self, rows):
        """The SVM kernel between feature vectors ``rows`` (m, n) and the training ones."""
        if self.feature_kernel == "linear":
            return rows @ self.features_.T
        return rbf_kernel(rows, self.features_, gamma=self.gamma_)

    def _fit_input(self, X, y):
        X_fit, K, classes, y_idx = super()._fit_input(X, y)
        self.features_ = K.copy()
        self.gamma_ = (similarity_feature_gamma(K, self.gamma) if self.feature_kernel == "rbf"
                       else float("nan"))
        G = self._feature_gram(K)
        return X_fit, 0.5 * (G + G.T), classes, y_idx

    def _fit_binary(self, K, y, idx, C):
        u, b, sol = libsvm_solve(K, y, C, tol=self.tol, max_iter=self.max_iter)
        return BinaryModel(idx, u, b, {"n_iter": sol.iterations, "solution": sol})

    def _test_rows(self, X):
        rows, Xv = super()._test_rows(X)
        return self._feature_gram(rows), Xv
