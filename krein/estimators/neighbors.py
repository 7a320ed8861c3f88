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

Large data: signed Nyström features
-----------------------------------
With ``approximation=IndefiniteNystroem(...)`` the kernel is its low-rank
approximation ``K_approx = Psi S Psi'`` (``Psi`` the signed features, shape
``(n, r)``, ``S = diag(signs)``; Oglic & Gärtner 2019, §3) and a new point's row is
the Nyström extension ``k_approx(x, X) = psi(x) S Psi'`` (Williams & Seeger 2001).
The kernel-induced distance of the approximation is the indefinite squared norm in
the signature ``S``,

    d2(x, x_j) = k_approx(x, x) + k_approx(x_j, x_j) - 2 k_approx(x, x_j)
               = (psi(x) - psi_j) S (psi(x) - psi_j)',

(Pekalska & Duin 2005, the pseudo-Euclidean distance of an embedding; Haasdonk 2005,
Prop. 1), and the rule above orders the training points by
``||psi_j||_S^2 - 2 psi(x) S psi_j'`` (``||v||_S^2 = v S v'``, the training diagonal of
``K_approx``): one matrix product per block of test rows (the BLAS identity
``||a||^2 + ||b||^2 - 2 a.b`` in the signature), ``argpartition`` for the ``k``
smallest, and the same tie rule (lower training index first) applied exactly
(:func:`nearest_in_signature`).  The test points are taken in blocks of rows whose
``(block, n)`` arrays fit :data:`NEIGHBOUR_BLOCK_BYTES` (and the memory available,
:func:`krein._memory.available_memory`): no ``n x n`` or ``n_test x n`` array is
formed.  Time ``O(n_test n r)``, memory ``O(n r + block n)``.  With every training
point a landmark ``K_approx = K`` and the predictions are the exact estimator's
(where no tie in the distances is decided by round-off).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .._memory import available_memory
from .approximate import FrontEndMixin
from .base import (KERNEL_CONSTRAINTS, PROBABILITY_CONSTRAINTS, KernelMixin, ProbabilityMixin,
                   encode_classes)

__all__ = ["KernelKNeighborsClassifier", "AffinityKNeighborsClassifier",
           "nearest_in_signature", "NEIGHBOUR_BLOCK_BYTES"]

#: Bytes of the ``(block, n)`` arrays of one block of test rows in the neighbour search
#: on features (:func:`nearest_in_signature`); less when less memory is available.
NEIGHBOUR_BLOCK_BYTES = 256 * 1024 ** 2

#: ``(block, n)`` arrays of 8 bytes held at once by :func:`nearest_in_signature`: the
#: distances (formed in place), argpartition's indices and one for the comparisons.
_BLOCK_ARRAYS = 3

#: Constraint of ``approximation`` (a low-rank front end such as IndefiniteNystroem).
APPROXIMATION_CONSTRAINT = [HasMethods(["fit_transform", "transform"]), None]


def neighbour_block_rows(n_train, block_bytes=None):
    """Test rows per block of the neighbour search on features: ``(rows, n_train)`` arrays
    within :data:`NEIGHBOUR_BLOCK_BYTES` and a quarter of the memory available.

    Parameters
    ----------
    n_train : int
        Number of training points (columns of a block).
    block_bytes : int, optional
        Budget of one block's arrays; default :data:`NEIGHBOUR_BLOCK_BYTES`, capped by
        a quarter of :func:`krein._memory.available_memory`.

    Returns
    -------
    int
        At least 1.
    """
    if block_bytes is None:
        block_bytes = NEIGHBOUR_BLOCK_BYTES
        available = available_memory()
        if available is not None:
            block_bytes = min(block_bytes, available // 4)
    return max(1, int(block_bytes) // (8 * _BLOCK_ARRAYS * max(int(n_train), 1)))


def nearest_in_signature(A, B, signs, k, *, squared_norms=None, block_rows=None):
    """The ``k`` training points nearest to each test point in an indefinite squared distance.

    For test features ``a`` (rows of ``A``) and training features ``b_j`` (rows of ``B``)
    in the signature ``S = diag(signs)``, the distance is
    ``d2(a, b_j) = (a - b_j) S (a - b_j)' = a S a' + b_j S b_j' - 2 a S b_j'`` (may be
    negative); for one test point ``a S a'`` is a constant, so the order of the
    training points is that of ``b_j S b_j' - 2 a S b_j'``.  The ``k`` smallest are
    found by ``argpartition`` and the ties at the ``k``-th value go to the lower
    training indices, so the result is the first ``k`` of a stable sort of those
    values (:class:`KernelKNeighborsClassifier`'s rule), in that order.  The test
    rows are processed in blocks of ``block_rows`` (:func:`neighbour_block_rows`):
    no ``(len(A), len(B))`` array is formed.

    Parameters
    ----------
    A : ndarray of shape (m, r)
        Test features ``psi(x)``.
    B : ndarray of shape (n, r)
        Training features.
    signs : ndarray of shape (r,)
        The signature, entries in {-1, +1}.
    k : int
        Number of neighbours, ``1 <= k <= n``.
    squared_norms : ndarray of shape (n,), optional
        ``b_j S b_j'`` (computed when not given).
    block_rows : int, optional
        Test rows per block; default :func:`neighbour_block_rows`.

    Returns
    -------
    nearest : ndarray of int, shape (m, k)
        Indices of the ``k`` nearest training points, nearest first (ties: lower
        index first).
    inner : ndarray of shape (m, k)
        ``a S b_j'`` of those neighbours: the (approximate) kernel values
        ``k(x, x_j)`` when the features are signed Nyström features.

    References
    ----------
    Pekalska & Duin (2005), "The dissimilarity representation for pattern
    recognition", the pseudo-Euclidean distance; Oglic & Gärtner (2019), §3, the
    signed features ``K_approx = Psi S Psi'``.
    """
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    signs = np.asarray(signs, dtype=float)
    n = B.shape[0]
    k = int(k)
    if squared_norms is None:
        squared_norms = np.einsum("ij,ij,j->i", B, B, signs)
    if block_rows is None:
        block_rows = neighbour_block_rows(n)
    m = A.shape[0]
    block_rows = max(1, min(int(block_rows), m))
    nearest = np.empty((m, k), dtype=np.intp)
    inner = np.empty((m, k))
    As = A * signs
    buffer = np.empty((block_rows, n))                      # reused by every block
    for a in range(0, m, block_rows):
        D = buffer[:min(block_rows, m - a)]
        # d2 - a S a' = b_j S b_j' - 2 a S b_j', formed in place (one array per block)
        np.matmul(As[a:a + block_rows], B.T, out=D)
        np.multiply(D, -2.0, out=D)
        np.add(D, squared_norms, out=D)
        if k < n:
            part = np.argpartition(D, k - 1, axis=1)[:, :k]
        else:
            part = np.broadcast_to(np.arange(n), D.shape).copy()
        vals = np.take_along_axis(D, part, axis=1)
        kth = vals.max(axis=1)
        # rows where more than k values are <= the k-th: the tie at the k-th value goes
        # to the lower training indices (the stable sort's choice)
        for i in np.flatnonzero(np.count_nonzero(D <= kth[:, None], axis=1) > k):
            below = np.flatnonzero(D[i] < kth[i])
            tied = np.flatnonzero(D[i] == kth[i])[:k - below.size]
            part[i] = np.r_[below, tied]
        vals = np.take_along_axis(D, part, axis=1)
        order = np.lexsort((part, vals), axis=-1)            # by value, then by index
        part = np.take_along_axis(part, order, axis=1)
        nearest[a:a + block_rows] = part
        inner[a:a + block_rows] = np.einsum("ir,ikr->ik", As[a:a + block_rows], B[part])
    return nearest, inner


class KernelKNeighborsClassifier(FrontEndMixin, ProbabilityMixin, KernelMixin, ClassifierMixin,
                                 BaseEstimator):
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
    approximation : transformer or None, default=None
        A low-rank front end, e.g. :class:`krein.approximation.IndefiniteNystroem`
        (cloned, given the estimator's ``kernel`` and ``kernel_params``); None:
        the exact kernel.  With it, ``fit`` and ``predict`` take the front end's
        input (feature vectors with a named kernel, or with
        ``kernel="precomputed"`` the kernel columns ``K(objects, landmarks)``, and
        the landmark block given to the front end), the distances are those of
        ``K_approx = Psi S Psi'`` in the signature ``S``, and the neighbours are
        found block by block of test rows (module docstring, "Large data").

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    train_diagonal_ : ndarray of shape (n,)
        ``K_jj`` of the training points (with an approximation: of ``K_approx``,
        ``psi_j S psi_j'``).
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"`` nor with an
        approximation).
    approximation_ : transformer
        With an approximation: the fitted clone.
    features_ : ndarray of shape (n, r)
        With an approximation: the training features ``Psi``.
    signs_ : ndarray of shape (r,)
        With an approximation: the signature ``S`` of the features.
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel, ``m`` with
        precomputed landmark columns).

    Notes
    -----
    Multiclass is native: the vote counts every class.  A tied vote goes to the
    first class in ``classes_``, as scikit-learn's ``KNeighborsClassifier``.
    Scale: ``K -> s K`` (``s > 0``) scales every ``d^2`` by ``s`` and changes no
    prediction.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein.estimators import KernelKNeighborsClassifier
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = KernelKNeighborsClassifier(n_neighbors=5, kernel="sigmoid",
    ...                                  kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        **PROBABILITY_CONSTRAINTS,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "approximation": APPROXIMATION_CONSTRAINT,
    }

    def __init__(self, *, n_neighbors=5, kernel="gaussian", kernel_params=None, probability=False,
                 approximation=None):
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.probability = probability
        self.approximation = approximation

    def _check_params(self):
        self._check_approximation()

    #: Multiclass strategy (as :attr:`krein.estimators.base.KernelClassifierBase._multiclass`):
    #: the vote counts every class.
    _multiclass = "native"

    @fit_wrapper
    def fit(self, X, y):
        """Keep the training points' labels and self-similarities.

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
            kernel, fewer than two classes, or ``n_neighbors`` above ``n``.
        """
        if self._approximate():
            return self._fit_approximate(X, y)
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

    def _fit_approximate(self, X, y):
        """Fit through ``approximation``: the training features ``Psi``, their signs and
        the diagonal of ``K_approx`` (module docstring, "Large data")."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, index = encode_classes(y)
        if self.n_neighbors > X.shape[0]:
            raise ValueError(f"n_neighbors = {self.n_neighbors} exceeds the {X.shape[0]} "
                             "training points")
        approx, rep = self._fit_front_end(X)
        self._fit_features(np.asarray(rep.Z, dtype=float), np.asarray(rep.signs, dtype=float))
        self.approximation_ = approx
        self.classes_ = classes
        self.class_index_ = index
        return self

    def _fit_features(self, Psi, signs):
        """Keep what the neighbour search on features needs: ``Psi``, ``S`` and the
        diagonal ``psi_j S psi_j'`` of ``K_approx``."""
        self.features_ = Psi
        self.signs_ = signs
        self.train_diagonal_ = np.einsum("ij,ij,j->i", Psi, Psi, signs)

    def _nearest_approximate(self, X):
        """Indices of the ``n_neighbors`` nearest training points and their kernel values
        ``k_approx(x, x_j)``, on the features (:func:`nearest_in_signature`)."""
        return nearest_in_signature(self._front_end_rows(X), self.features_, self.signs_,
                                    self.n_neighbors, squared_norms=self.train_diagonal_)

    def _nearest(self, X):
        """``(m, n_neighbors)`` indices of the nearest training points and their kernel
        values ``k(x, x_j)`` (of ``K_approx`` with an approximation)."""
        if self._approximate():
            check_is_fitted(self, "approximation_")
            return self._nearest_approximate(X)
        rows, nearest = self._neighbours(X)
        return nearest, np.take_along_axis(rows, nearest, axis=1)

    def _neighbours(self, X):
        """Test rows ``k(x, X)`` and the indices of the ``n_neighbors`` nearest training points."""
        check_is_fitted(self, "train_diagonal_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = X if self._precomputed() else self._gram(X, self.X_fit_)
        # d^2 - k(x, x): the same order as d^2 for each test row (module docstring)
        order = np.argsort(self.train_diagonal_[None, :] - 2.0 * rows, axis=1, kind="stable")
        return rows, order[:, :self.n_neighbors]

    def _vote_weights(self, values):
        """``(m, n_neighbors)`` weight of each neighbour's vote from its kernel values
        ``k(x, x_j)``: one each (majority vote)."""
        return np.ones(values.shape)

    def _votes(self, X):
        """``(m, n_classes)`` summed vote weights of the ``n_neighbors`` nearest training points."""
        nearest, values = self._nearest(X)
        weights = self._vote_weights(values)
        labels = self.class_index_[nearest]
        votes = np.zeros((nearest.shape[0], self.classes_.size))
        for c in range(self.classes_.size):
            votes[:, c] = np.sum(np.where(labels == c, weights, 0.0), axis=1)
        return votes

    def predict_proba(self, X):
        """Share of the neighbours' votes per class.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)`` (with an
            approximation: the front end's input, e.g. ``K(test, landmarks)``).

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
            Test feature vectors, or the kernel rows ``K(test, train)`` (with an
            approximation: the front end's input, e.g. ``K(test, landmarks)``).

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
            Test feature vectors, or the kernel rows ``K(test, train)`` (with an
            approximation: the front end's input, e.g. ``K(test, landmarks)``).

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
        ``"precomputed"`` takes the ``(n, n)`` training kernel in ``fit`` and the
        ``(m, n)`` rows ``K(test, train)`` in ``predict``; a name of
        :data:`krein.kernels.KERNELS` or a callable ``kernel(X, Z, **kernel_params)``
        is evaluated on feature vectors.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    probability : bool, default=False
        As :class:`KernelKNeighborsClassifier`: False, ``predict_proba`` is the
        share of the weighted vote; True, Platt scaling on internal 5-fold
        cross-validation of the vote margins.
    approximation : transformer or None, default=None
        As :class:`KernelKNeighborsClassifier`: a low-rank front end
        (:class:`krein.approximation.IndefiniteNystroem`); the neighbours are those
        of ``K_approx = Psi S Psi'`` and a neighbour's weight is
        ``max(k_approx(x, x_i), 0)`` with ``k_approx(x, x_i) = psi(x) S psi_i'``
        (module docstring, "Large data").

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    train_diagonal_ : ndarray of shape (n,)
        ``K_jj`` of the training points.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"`` nor with an
        approximation).
    approximation_, features_, signs_ : transformer, ndarray, ndarray
        With an approximation: as :class:`KernelKNeighborsClassifier`.
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

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein.estimators import AffinityKNeighborsClassifier
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = AffinityKNeighborsClassifier(n_neighbors=5, kernel="sigmoid",
    ...                                    kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    def _vote_weights(self, values):
        """``max(k(x, x_i), 0)`` of each neighbour; rows with no positive weight get ones."""
        weights = np.maximum(values, 0.0)
        none = ~np.any(weights > 0, axis=1)
        weights[none] = 1.0
        return weights
