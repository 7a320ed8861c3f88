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

Large data: signed Nyström features
-----------------------------------
With ``approximation=IndefiniteNystroem(...)`` the kernel is ``K_approx = Psi S Psi'``
(signed features ``Psi`` of shape ``(n, r)``, ``S = diag(signs)``; Oglic & Gärtner
2019, §3) and a new point's features are its Nyström extension ``psi(x)``.  The
class means are then explicit vectors of the feature space, ``mu_c = 1/n_c
sum_{i in c} psi_i`` (``O(n r)``), and

    d^2(x, m_c) - k(x, x) = mu_c S mu_c' - 2 psi(x) S mu_c'

is the formula above on ``K_approx`` (``1/n_c^2 sum K_ij = mu_c S mu_c'``,
``1/n_c sum k(x, x_i) = psi(x) S mu_c'``): time ``O((n + n_test) r)``, no ``n x n``
or ``n_test x n`` array.  With every training point a landmark ``K_approx = K`` and
the decision values are the exact ones (to round-off).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn.utils.multiclass import check_classification_targets

from .._fitting import fit_wrapper
from .approximate import FrontEndMixin
from .base import (KERNEL_CONSTRAINTS, PROBABILITY_CONSTRAINTS, KernelMixin, ProbabilityMixin,
                   encode_classes)
from .neighbors import APPROXIMATION_CONSTRAINT

__all__ = ["PseudoEuclideanNearestMean"]


class PseudoEuclideanNearestMean(FrontEndMixin, ProbabilityMixin, KernelMixin, ClassifierMixin,
                                 BaseEstimator):
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
    approximation : transformer or None, default=None
        A low-rank front end, e.g. :class:`krein.approximation.IndefiniteNystroem`
        (cloned, given the estimator's ``kernel`` and ``kernel_params``); None:
        the exact kernel.  With it, ``fit`` and ``predict`` take the front end's
        input (feature vectors with a named kernel, or with
        ``kernel="precomputed"`` the columns ``K(objects, landmarks)``) and the
        class means are vectors of its signed features (module docstring,
        "Large data").

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    mean_norms_ : ndarray of shape (n_classes,)
        ``<m_c, m_c>_M = 1/n_c^2 sum_{i, j in c} K_ij`` of each class mean (with an
        approximation: ``mu_c S mu_c'``).
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"`` nor with an
        approximation).
    approximation_ : transformer
        With an approximation: the fitted clone.
    class_means_ : ndarray of shape (n_classes, r)
        With an approximation: the class means ``mu_c`` of the features.
    signs_ : ndarray of shape (r,)
        With an approximation: the signature ``S`` of the features.
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel, ``m`` with
        precomputed landmark columns).

    Notes
    -----
    Ties in the distance go to the first class in ``classes_``.  Scale: ``K -> s
    K`` (``s > 0``) scales every ``d^2`` by ``s`` and changes no prediction.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein.estimators import PseudoEuclideanNearestMean
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = PseudoEuclideanNearestMean(kernel="sigmoid",
    ...                                  kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {**KERNEL_CONSTRAINTS, **PROBABILITY_CONSTRAINTS,
                                    "approximation": APPROXIMATION_CONSTRAINT}

    def __init__(self, *, kernel="gaussian", kernel_params=None, probability=False,
                 approximation=None):
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.probability = probability
        self.approximation = approximation

    def _check_params(self):
        self._check_approximation()

    #: Multiclass strategy (as :attr:`krein.estimators.base.KernelClassifierBase._multiclass`):
    #: one mean per class.
    _multiclass = "native"

    @fit_wrapper
    def fit(self, X, y):
        """Keep each class's membership and the squared norm of its mean.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix (with
            an approximation and ``kernel="precomputed"``: the ``(n, m)`` columns
            ``K(objects, landmarks)``).
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
        if self._approximate():
            return self._fit_approximate(X, y)
        X, K, classes, index = self._training_kernel(X, y)
        self.classes_ = classes
        self.class_index_ = index
        self.mean_norms_ = np.array([K[np.ix_(index == c, index == c)].mean()
                                     for c in range(classes.size)])
        if not self._precomputed():
            self.X_fit_ = X
        return self

    def _fit_approximate(self, X, y):
        """Fit through ``approximation``: the class means of the signed features and
        their squared norms in the signature (module docstring, "Large data")."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, index = encode_classes(y)
        approx, rep = self._fit_front_end(X)
        Psi, signs = np.asarray(rep.Z, dtype=float), np.asarray(rep.signs, dtype=float)
        means = np.vstack([Psi[index == c].mean(axis=0) for c in range(classes.size)])
        self.approximation_ = approx
        self.classes_ = classes
        self.class_index_ = index
        self.class_means_ = means
        self.signs_ = signs
        self.mean_norms_ = np.einsum("ij,ij->i", means * signs, means)
        return self

    def _shifted_distances(self, X):
        """``(m, n_classes)`` values ``d^2(x, m_c) - k(x, x)``."""
        if self._approximate():
            check_is_fitted(self, "class_means_")
            features = self._front_end_rows(X)
            return self.mean_norms_[None, :] - 2.0 * (features * self.signs_) @ self.class_means_.T
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
            Test feature vectors, or the kernel rows ``K(test, train)`` (with an
            approximation: the front end's input, e.g. ``K(test, landmarks)``).

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
            Test feature vectors, or the kernel rows ``K(test, train)`` (with an
            approximation: the front end's input, e.g. ``K(test, landmarks)``).

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_`` (a tie goes to the first class).
        """
        d2 = self._shifted_distances(X)
        return self.classes_[np.argmin(d2, axis=1)]
