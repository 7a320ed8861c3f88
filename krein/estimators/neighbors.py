"""k nearest neighbours in the kernel-induced distance: the k-NN baseline (registry "knn").

The baseline of the similarity-based classification benchmark (Chen, Garcia, Gupta,
Rahimi & Cazzanti 2009, "Similarity-based classification: concepts and
algorithms", JMLR 10): a test point takes the majority label of its ``k``
nearest training points, with ``k`` chosen by cross-validation.  The distance
is the one the kernel induces in its (pseudo-Euclidean) feature space,

    d(x, x_j)^2 = k(x, x) + K_jj - 2 k(x, x_j),

which on an indefinite kernel can be negative (a pair closer than identical
in the negative subspace).

Test rows without the test points' self-similarities
-----------------------------------------------------
A precomputed test block holds the rows ``k(x, X)`` only, not ``k(x, x)``.  The
rule needs no more: for one test point ``k(x, x)`` adds the same number to its
distance to every training point, so the order of the training points by
``d^2`` is their order by ``K_jj - 2 k(x, x_j)``, computed from the training
diagonal (kept at ``fit``) and the test row.  The neighbours, hence the
predictions, are exactly those of the distance with the true ``k(x, x)``; the
same rule serves named kernels, so both routes agree.  Negative ``d^2`` are not
clipped at 0: clipping changes no order except by turning every negative value
into a tie at 0, and the unclipped values order those ties (the more negative,
the nearer).  On a kernel with a constant diagonal (Gaussian, normalized
similarities) the order is that of the similarity itself, ``k`` nearest = ``k``
most similar, as Chen et al. apply k-NN to similarities.  Ties in the order go to
the lower training index (a stable sort).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .base import KERNEL_CONSTRAINTS, PROBABILITY_CONSTRAINTS, KernelMixin, ProbabilityMixin

__all__ = ["KernelKNeighborsClassifier", "AffinityKNeighborsClassifier"]


class KernelKNeighborsClassifier(ProbabilityMixin, KernelMixin, ClassifierMixin, BaseEstimator):
    """Nearest-neighbour (k-NN) classifier in the distance a (possibly indefinite) kernel induces.

    Predicts the majority label of the ``n_neighbors`` training points nearest
    in ``d(x, x_j)^2 = k(x, x) + K_jj - 2 k(x, x_j)`` (module docstring: the
    order needs the training diagonal only, so precomputed test rows suffice;
    negative squared distances are kept, not clipped).  The k-NN baseline of
    Chen et al. 2009 (JMLR 10), with ``n_neighbors`` tuned by cross-validation
    (the registry's grid: 1, 3, 5, 7).

    Parameters
    ----------
    n_neighbors : int >= 1, default=5
        Number of neighbours ``k`` that vote; at most the number of training
        points.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix and
        ``predict`` the ``(m, n)`` rows ``K(test, train)``; a name of
        :data:`krein.kernels.KERNELS` or a callable ``kernel(X, Z,
        **kernel_params)`` is evaluated on feature vectors.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    probability : bool, default=False
        False: ``predict_proba`` is the model's own (above).  True: ``fit`` also
        fits Platt scaling on internal 5-fold cross-validation of the decision
        values, which ``predict_proba`` then returns
        (:class:`krein.estimators.base.ProbabilityMixin`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    train_diagonal_ : ndarray of shape (n,)
        ``K_jj`` of the training points.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"``).
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel).

    Notes
    -----
    Multiclass is native: the vote counts every class.  A tied vote goes to the
    first class in ``classes_``, as scikit-learn's ``KNeighborsClassifier``.
    Scale: ``K -> s K`` (``s > 0``) scales every ``d^2`` by ``s`` and changes no
    prediction.
    """

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        **PROBABILITY_CONSTRAINTS,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, n_neighbors=5, kernel="gaussian", kernel_params=None, probability=False):
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.probability = probability

    #: Multiclass strategy (as :attr:`krein.estimators.base.KernelClassifierBase._multiclass`):
    #: the vote counts every class.
    _multiclass = "native"

    @fit_wrapper
    def fit(self, X, y):
        """Keep the training points' labels and self-similarities.

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
            kernel, fewer than two classes, or ``n_neighbors`` above ``n``.
        """
        X, K, classes, index = self._training_kernel(X, y)
        if self.n_neighbors > K.shape[0]:
            raise ValueError(f"n_neighbors = {self.n_neighbors} exceeds the {K.shape[0]} "
                             "training points")
        self._fit_neighbours(K)
        self.classes_ = classes
        self.class_index_ = index
        if not self._precomputed():
            self.X_fit_ = X
        return self

    def _fit_neighbours(self, K):
        """Keep what the neighbour search needs of the training kernel ``K``: its diagonal."""
        self.train_diagonal_ = np.diag(K).copy()

    def _neighbours(self, X):
        """Test rows ``k(x, X)`` and the indices of the ``n_neighbors`` nearest training points."""
        check_is_fitted(self, "train_diagonal_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = X if self._precomputed() else self._gram(X, self.X_fit_)
        # d^2 - k(x, x): the same order as d^2 for each test row (module docstring)
        order = np.argsort(self.train_diagonal_[None, :] - 2.0 * rows, axis=1, kind="stable")
        return rows, order[:, :self.n_neighbors]

    def _vote_weights(self, rows, nearest):
        """``(m, n_neighbors)`` weight of each neighbour's vote: one each (majority vote)."""
        return np.ones(nearest.shape)

    def _votes(self, X):
        """``(m, n_classes)`` summed vote weights of the ``n_neighbors`` nearest training points."""
        rows, nearest = self._neighbours(X)
        weights = self._vote_weights(rows, nearest)
        labels = self.class_index_[nearest]
        votes = np.zeros((rows.shape[0], self.classes_.size))
        for c in range(self.classes_.size):
            votes[:, c] = np.sum(np.where(labels == c, weights, 0.0), axis=1)
        return votes

    def predict_proba(self, X):
        """Share of the neighbours' votes per class.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m, n_classes)
            Each class's votes divided by all votes (for the majority vote: by
            ``n_neighbors``), columns in ``classes_`` order; Platt's
            probabilities when fitted with ``probability=True``.
        """
        if hasattr(self, "calibrator_"):
            return self._platt_proba(X)
        votes = self._votes(X)
        return votes / np.sum(votes, axis=1, keepdims=True)

    def decision_function(self, X):
        """Vote margins.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,) or (m, n_classes)
            Two classes: ``(votes for classes_[1] - votes for classes_[0]) /
            n_neighbors`` (positive means ``classes_[1]``); more: the vote
            shares of the vote (the model's own :meth:`predict_proba`).
        """
        votes = self._votes(X)
        share = votes / np.sum(votes, axis=1, keepdims=True)
        if share.shape[1] == 2:
            return share[:, 1] - share[:, 0]
        return share

    def predict(self, X):
        """Majority label of the nearest training points.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_`` (a tie goes to the first class).
        """
        votes = self._votes(X)
        return self.classes_[np.argmax(votes, axis=1)]


class AffinityKNeighborsClassifier(KernelKNeighborsClassifier):
    """Weighted k-NN with affinity weights: each neighbour votes with its similarity to the test point.

    The weighted nearest-neighbour rule of Chen, Garcia, Gupta, Rahimi & Cazzanti
    2009 (JMLR 10), §4, "affinity weights": the ``k`` nearest training points
    ``x_1..x_k`` vote for their labels with the weights ``w_i = a k(x, x_i)``
    (``a > 0`` a normalization, which changes no prediction; here the shares of
    :meth:`predict_proba` normalize).  Chen et al. take the ``k`` most similar
    training points; here the neighbours are those of
    :class:`KernelKNeighborsClassifier` (registry "knn"): the ``k`` nearest in the
    kernel-induced distance ``d^2 = k(x, x) + K_jj - 2 k(x, x_j)``.  On a kernel with
    a constant diagonal (unit-diagonal similarities, Gaussian kernels) that order is
    the order of ``k(x, x_j)``, so the two rules coincide; on other kernels (the
    centred kernels of dissimilarity data) the distance is the one the
    dissimilarities define.

    Negative similarities
    ---------------------
    A vote weight is ``w_i = max(k(x, x_i), 0)``: a neighbour that is not similar to
    the test point at all (negative entries appear in the centred kernel
    ``-1/2 J D^2 J`` of dissimilarity data) does not vote for its class, and a
    negative weight never votes against it.  When all ``k`` weights of a test point
    are 0 (no neighbour with positive similarity) the point falls back to the
    majority vote of the same ``k`` neighbours (weights 1), so every test point has
    a well-defined vote.  Ties go to the first class in ``classes_``.

    Input needed: the training kernel in ``fit`` (its diagonal orders the
    neighbours) and, for ``predict``, the test rows ``k(x, X)`` only (module
    docstring: ``k(x, x)`` is not needed).

    Parameters
    ----------
    n_neighbors : int >= 1, default=5
        Number of neighbours ``k`` that vote; at most the number of training
        points (tuned in {1, 3, 5, 7} by the registry's grid).
    kernel : "precomputed", str or callable, default="gaussian"
        As :class:`KernelKNeighborsClassifier`: ``"precomputed"`` takes the
        ``(n, n)`` training kernel in ``fit`` and the ``(m, n)`` rows
        ``K(test, train)`` in ``predict``; a name of :data:`krein.kernels.KERNELS`
        or a callable is evaluated on feature vectors.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    probability : bool, default=False
        As :class:`KernelKNeighborsClassifier`: False, ``predict_proba`` is the
        share of the weighted vote; True, Platt scaling on internal 5-fold
        cross-validation of the vote margins.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    train_diagonal_ : ndarray of shape (n,)
        ``K_jj`` of the training points.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"``).
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel).

    Notes
    -----
    :meth:`predict_proba` returns each class's share of the summed weights and
    :meth:`decision_function` (two classes) the share of ``classes_[1]`` minus
    that of ``classes_[0]``.  Scale: ``K -> s K`` (``s > 0``) scales every weight
    by ``s`` and changes no prediction (registry scale exponents ``{}``).  The
    rule is §4's affinity weighting; the implementation is not checked against the
    paper's own text.
    """

    def _vote_weights(self, rows, nearest):
        """``max(k(x, x_i), 0)`` of each neighbour; rows with no positive weight get ones."""
        weights = np.maximum(np.take_along_axis(rows, nearest, axis=1), 0.0)
        none = ~np.any(weights > 0, axis=1)
        weights[none] = 1.0
        return weights
