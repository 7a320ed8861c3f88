"""Nearest class mean in the pseudo-Euclidean embedding of a kernel (registry "pe-nearest-mean").

The nearest-mean classifier in the pseudo-Euclidean embedding of Pekalska & Duin
2005 ("The dissimilarity representation for pattern recognition", World
Scientific; the pseudo-Euclidean embedding and the nearest mean classifier built
on it; section not checked against the book here): a test object goes to the class whose mean in
the (pseudo-Euclidean) feature space is nearest in the indefinite squared
distance.  With the class ``c`` of ``n_c`` training objects and its mean
``m_c = 1/n_c sum_{i in c} phi(x_i)``,

    d^2(x, m_c) = k(x, x) - 2/n_c sum_{i in c} k(x, x_i) + 1/n_c^2 sum_{i, j in c} K_ij,

which may be negative on an indefinite kernel (it is the pseudo-Euclidean
"squared" norm ``<phi(x) - m_c, phi(x) - m_c>_M``).  ``k(x, x)`` is the same for
every class, so the order of the classes, hence the prediction, needs only the
test rows ``k(x, X)`` and the training kernel: the classifier works with
``d^2(x, m_c) - k(x, x)``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .base import KERNEL_CONSTRAINTS, PROBABILITY_CONSTRAINTS, KernelMixin, ProbabilityMixin

__all__ = ["PseudoEuclideanNearestMean"]


class PseudoEuclideanNearestMean(ProbabilityMixin, KernelMixin, ClassifierMixin, BaseEstimator):
    """Nearest class mean in the pseudo-Euclidean space of a (possibly indefinite) kernel.

    Predicts the class ``c`` minimizing ``d^2(x, m_c) = k(x, x) - 2/n_c sum_{i in
    c} k(x, x_i) + 1/n_c^2 sum_{i, j in c} K_ij`` (module docstring; Pekalska & Duin
    2005).  Input needed: the training kernel in ``fit`` (its class blocks) and
    the test rows ``k(x, X)`` in ``predict`` (``k(x, x)`` is common to every class
    and not needed).  Multiclass is native (one mean per class); nothing is
    tuned and no optimization problem is solved.

    Parameters
    ----------
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix and
        ``predict`` the ``(m, n)`` rows ``K(test, train)``; a name of
        :data:`krein.kernels.KERNELS` or a callable ``kernel(X, Z,
        **kernel_params)`` is evaluated on feature vectors.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    probability : bool, default=False
        Also fit Platt scaling on internal 5-fold cross-validation, so that
        ``predict_proba`` / ``predict_log_proba`` exist (as scikit-learn's
        ``SVC(probability=True)``; :class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    mean_norms_ : ndarray of shape (n_classes,)
        ``<m_c, m_c>_M = 1/n_c^2 sum_{i, j in c} K_ij`` of each class mean.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"``).
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel).

    Notes
    -----
    Ties in the distance go to the first class in ``classes_``.  Scale: ``K -> s
    K`` (``s > 0``) scales every ``d^2`` by ``s`` and changes no prediction.
    """

    _parameter_constraints: dict = {**KERNEL_CONSTRAINTS, **PROBABILITY_CONSTRAINTS}

    def __init__(self, *, kernel="gaussian", kernel_params=None, probability=False):
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.probability = probability

    #: Multiclass strategy (as :attr:`krein.estimators.base.KernelClassifierBase._multiclass`):
    #: one mean per class.
    _multiclass = "native"

    @fit_wrapper
    def fit(self, X, y):
        """Keep each class's membership and the squared norm of its mean.

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
            Bad parameters, NaN/inf, a non-square or asymmetric precomputed
            kernel, or fewer than two classes.
        """
        X, K, classes, index = self._training_kernel(X, y)
        self.classes_ = classes
        self.class_index_ = index
        self.mean_norms_ = np.array([K[np.ix_(index == c, index == c)].mean()
                                     for c in range(classes.size)])
        if not self._precomputed():
            self.X_fit_ = X
        return self

    def _shifted_distances(self, X):
        """``(m, n_classes)`` values ``d^2(x, m_c) - k(x, x)``."""
        check_is_fitted(self, "mean_norms_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = X if self._precomputed() else self._gram(X, self.X_fit_)
        means = np.column_stack([rows[:, self.class_index_ == c].mean(axis=1)
                                 for c in range(self.classes_.size)])
        return self.mean_norms_[None, :] - 2.0 * means

    def decision_function(self, X):
        """Distance margins between the class means.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes)
            Two classes: ``d^2(x, m_0) - d^2(x, m_1)`` (positive means
            ``classes_[1]``); more: ``-(d^2(x, m_c) - k(x, x))`` per class (the
            largest is the prediction).
        """
        score = -self._shifted_distances(X)
        if score.shape[1] == 2:
            return score[:, 1] - score[:, 0]
        return score

    def predict(self, X):
        """Label of the nearest class mean.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_`` (a tie goes to the first class).
        """
        d2 = self._shifted_distances(X)
        return self.classes_[np.argmin(d2, axis=1)]
