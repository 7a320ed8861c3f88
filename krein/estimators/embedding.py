"""Indefinite kernel PCA: the pseudo-Euclidean embedding as a transformer, and k-NN in it.

scikit-learn's ``KernelPCA`` refuses a kernel with significant negative eigenvalues
(its PR #12145, after issue #8368); an indefinite kernel still embeds isometrically
in a pseudo-Euclidean space ``R^(p,q)`` (Haasdonk 2005, Prop. 1; Pekalska & Duin
2005, the dissimilarity representation, DisTools ``pe_em``).  With
``J K J = V diag(lam) V'`` (``J = I - 1 1'/n``) the coordinates are
``Phi = V |lam|^(1/2)`` and the indefinite inner product ``<u, v> = u' M v``,
``M = diag(I_p, -I_q)``, gives back the centered kernel: ``Phi M Phi' = J K J``.
The mathematics lives in :mod:`krein.geometry`
(:func:`~krein.geometry.pseudo_euclidean_embedding`,
:meth:`~krein.geometry.PseudoEuclideanEmbedding.transform`); this module makes it a
scikit-learn transformer (:class:`PseudoEuclideanPCA`: Pipelines, GridSearchCV,
precomputed kernels) and adds the k-NN classifier of DisTools ``pe_knnc``
(:class:`PseudoEuclideanKNeighbors`, registry "pe-knn").

Component selection (``n_components`` / ``energy``) follows DisTools ``pe_em(D, ALF)``
(its help: ``ALF`` in (0, 1) is the "fraction of the total (absolute value) preserved
variance", ``Inf`` keeps every dimension, the default, ``1 .. N`` the "number of
dimensions in total"): ``energy`` keeps the fewest eigenvalues of largest ``|lam|``
that carry that share of ``sum |lam|``; ``n_components`` keeps that many of largest
``|lam|`` (the help does not say which ``N``; the largest magnitudes, as its fraction
rule ranks them, is the rule here); None keeps all significant ones.  Either way the
sign does not matter for the ranking, so the signature ``(p, q)`` of the kept space
follows the spectrum.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper
from .._validation import check_kernel_rows, check_square_kernel
from ..geometry import pseudo_euclidean_embedding
from ..spectrum import Spectrum
from .base import KERNEL_CONSTRAINTS, KernelMixin
from .neighbors import KernelKNeighborsClassifier

__all__ = ["PseudoEuclideanPCA", "PseudoEuclideanKNeighbors", "select_components"]

_SELECTION_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None, closed="left"), None],
    "energy": [Interval(Real, 0, 1, closed="right"), None],
    "tol": [Interval(Real, 0, None, closed="left"), None],
}


def select_components(eigenvalues, n_components=None, energy=None):
    """Indices of the retained eigenvalues: the largest ``|lam|`` (DisTools ``pe_em``).

    Parameters
    ----------
    eigenvalues : ndarray of shape (r,)
        The significant eigenvalues, in the embedding's column order (positive
        block, then negative block).
    n_components : int >= 1, optional
        Keep the ``n_components`` of largest ``|lam|`` (all of them when there are
        fewer).
    energy : float in (0, 1], optional
        Keep the fewest of largest ``|lam|`` whose ``|lam|`` sum to at least
        ``energy * sum |lam|`` (``pe_em``'s fraction of the total absolute
        "variance").

    Returns
    -------
    keep : ndarray of int, shape (r_kept,)
        Increasing column indices, so the kept columns stay in the column order
        (positive block first).  All ``r`` when neither is given.

    Raises
    ------
    ValueError
        If both ``n_components`` and ``energy`` are given.
    """
    lam = np.abs(np.asarray(eigenvalues, dtype=float))
    if n_components is not None and energy is not None:
        raise ValueError("give at most one of n_components (a number of components) and energy "
                         f"(a share of sum |lambda|); got n_components={n_components!r}, "
                         f"energy={energy!r}")
    order = np.argsort(-lam, kind="stable")
    if n_components is not None:
        m = min(int(n_components), lam.size)
    elif energy is not None and lam.size:
        # (1 - 1e-12): energy = 1 keeps every component despite round-off in the sum
        m = int(np.searchsorted(np.cumsum(lam[order]), energy * lam.sum() * (1 - 1e-12))) + 1
        m = min(m, lam.size)
    else:
        m = lam.size
    return np.sort(order[:m])


class PseudoEuclideanPCA(ClassNamePrefixFeaturesOutMixin, KernelMixin, TransformerMixin,
                         BaseEstimator):
    """Indefinite kernel PCA: signed coordinates of the pseudo-Euclidean embedding.

    ``fit`` eigendecomposes the centered kernel ``J K J = V diag(lam) V'``
    (:func:`krein.geometry.pseudo_euclidean_embedding`, Haasdonk 2005 Prop. 1;
    Pekalska & Duin 2005, DisTools ``pe_em``), drops the null space (``|lam| <=
    tol``), keeps the components chosen by ``n_components`` / ``energy`` (largest
    ``|lam|``, any sign: :func:`select_components`) and returns the coordinates
    ``Z = V |lam|^(1/2)``, shape ``(n, p + q)``: the ``p`` positive components first
    (decreasing ``lam``), then the ``q`` negative ones (decreasing ``|lam|``), so
    that ``Z diag(signs_) Z'`` is the centered kernel restricted to the kept
    components (all of ``J K J`` when every significant one is kept).
    ``transform`` maps new kernel rows by the kernel-PCA (Gower) map
    ``z(x) = k~(x) V sign(lam) |lam|^(-1/2)`` with ``k~(x)`` the row centered like
    the training kernel (:meth:`krein.geometry.PseudoEuclideanEmbedding.transform`):
    a training object's row returns its training coordinates, and
    ``z(x) diag(signs_) Z'`` is the centered row projected on the kept
    eigenvectors (the centered row itself when it lies in their span).

    Unlike scikit-learn's ``KernelPCA`` the negative eigenvalues are kept as
    coordinates of the negative block rather than refused or zeroed; a vector
    classifier after it (a Pipeline) sees the ``p + q`` signed coordinates as
    ordinary features, and ``signs_`` says which block each column is in.

    Parameters
    ----------
    n_components : int >= 1, optional
        Number of components kept, those of largest ``|lam|`` (any sign); None:
        every significant one.  More than there are keeps all of them.
    energy : float in (0, 1], optional
        Alternative to ``n_components``: keep the fewest largest-``|lam|``
        components that carry this share of ``sum |lam|`` (DisTools ``pe_em``
        fraction).  At most one of the two.
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix and
        ``transform`` the ``(m, n)`` rows ``K(new, train)``; a name of
        :data:`krein.kernels.KERNELS` or a callable ``kernel(X, Z,
        **kernel_params)`` is evaluated on feature vectors.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    center : bool, default=True
        True: embed ``J K J`` (kernel PCA and the pseudo-Euclidean embedding
        center, Haasdonk Prop. 1): the coordinates have mean zero, the embedding
        depends only on the kernel-induced distances (the same for ``K`` and
        ``K + h 1' + 1 h'``), and it is the embedding of dissimilarity data.
        False: embed ``K`` itself (``Z M Z' = K``), the map an SVM's decision
        function ``k(x, X) c`` uses; new rows are then not centered.
    tol : float >= 0, optional
        Eigenvalues with ``|lam| <= tol`` are the null space and dropped; default
        ``10 n eps ||K||_F`` (round-off of forming ``J K J``; as
        :func:`krein.geometry.pseudo_euclidean_embedding`).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (``n_components_``,)
        The kept eigenvalues, in the column order (positive block decreasing,
        then negative block by decreasing ``|lam|``).
    eigenvectors_ : ndarray of shape (n, ``n_components_``)
        The matching unit eigenvectors ``V`` (of ``J K J``, or ``K``).
    signs_ : ndarray of shape (``n_components_``,)
        ``sign(eigenvalues_)``: the diagonal of ``M``.
    signature_ : tuple of int
        ``(p, q)``: kept positive and negative components.
    n_components_ : int
        ``p + q``.
    embedding_ : krein.geometry.PseudoEuclideanEmbedding or None
        The full centered embedding (every significant component), or None with
        ``center=False``.
    kept_indices_ : ndarray of int, shape (``n_components_``,)
        The kept columns among the significant ones (:func:`select_components`).
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"``).
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel).

    Notes
    -----
    Eigenvectors are unique up to sign (and rotation inside a repeated
    eigenvalue); LAPACK decides, so compare invariants (``Z M Z'``, ``|Z|``)
    across libraries.  Scale: ``K -> s K`` scales the coordinates by ``sqrt(s)``
    and keeps the selection.
    """

    _parameter_constraints: dict = {**KERNEL_CONSTRAINTS, **_SELECTION_CONSTRAINTS,
                                    "center": ["boolean"]}

    def __init__(self, *, n_components=None, energy=None, kernel="gaussian", kernel_params=None,
                 center=True, tol=None):
        self.n_components = n_components
        self.energy = energy
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.center = center
        self.tol = tol

    @fit_wrapper
    def fit(self, X, y=None):
        """Eigendecompose the (centered) training kernel and keep the chosen components.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            Training feature vectors, or the square training kernel matrix.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted transformer.

        Raises
        ------
        ValueError
            Bad parameters (both ``n_components`` and ``energy``), NaN/inf, a
            non-square or asymmetric precomputed kernel.
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the training coordinates ``Z = V |lam|^(1/2)``.

        Parameters
        ----------
        X : array of shape (n, n_features), or (n, n) with ``kernel="precomputed"``
            As in :meth:`fit`.
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n, ``n_components_``)
            Positive block then negative block (class docstring).
        """
        self.fit(X)
        return self.eigenvectors_ * np.sqrt(np.abs(self.eigenvalues_))

    def _fit(self, X):
        if self.n_components is not None and self.energy is not None:
            select_components(np.zeros(0), self.n_components, self.energy)   # raises
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=1)
        if self._precomputed():
            K = check_square_kernel(X, "X (precomputed kernel)")
        else:
            K = check_square_kernel(self._gram(X), "kernel matrix")
            self.X_fit_ = X
        if self.center:
            emb = pseudo_euclidean_embedding(K, tol=self.tol)
            lam, Z = emb.eigenvalues, emb.coordinates
            self.embedding_ = emb
        else:
            n = K.shape[0]
            tol = 10.0 * n * np.finfo(float).eps * np.linalg.norm(K) if self.tol is None else self.tol
            spec = Spectrum.from_kernel(K, tol=tol, check=False)
            idx = np.r_[np.flatnonzero(spec.eigenvalues > spec.tol)[::-1],
                        np.flatnonzero(spec.eigenvalues < -spec.tol)]
            lam = spec.eigenvalues[idx]
            Z = spec.signed_factor(idx)
            self.embedding_ = None
        keep = select_components(lam, self.n_components, self.energy)
        self.eigenvalues_ = lam[keep]
        self.eigenvectors_ = Z[:, keep] / np.sqrt(np.abs(self.eigenvalues_))
        self.signs_ = np.sign(self.eigenvalues_)
        self.signature_ = (int(np.sum(self.signs_ > 0)), int(np.sum(self.signs_ < 0)))
        self.n_components_ = int(keep.size)
        self.kept_indices_ = keep

    @property
    def _n_features_out(self):
        """Number of output features (scikit-learn's feature-name machinery)."""
        return self.n_components_

    def _rows(self, X):
        """Validated kernel rows ``k(x, X_train)`` of new inputs, shape (m, n)."""
        check_is_fitted(self, "eigenvalues_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        n = self.eigenvectors_.shape[0]
        return check_kernel_rows(X if self._precomputed() else self._gram(X, self.X_fit_), n,
                                 "X (kernel rows)" if self._precomputed() else "kernel rows")

    def transform(self, X):
        """Out-of-sample coordinates of new objects from their kernel rows.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            New feature vectors, or the kernel rows ``K(new, train)``.

        Returns
        -------
        Z : ndarray of shape (m, ``n_components_``)
            ``k~(x) V sign(lam) |lam|^(-1/2)`` (class docstring); a training
            object's row gives its training coordinates.

        Raises
        ------
        ValueError
            On NaN/inf or rows of the wrong width.
        """
        rows = self._rows(X)
        if self.center:
            return self.embedding_.transform(rows)[:, self.kept_indices_]
        return rows @ (self.eigenvectors_ * (self.signs_ / np.sqrt(np.abs(self.eigenvalues_))))

    def inner(self, A, B=None):
        """Indefinite inner products ``A M B'`` of coordinates (``M = diag(signs_)``).

        Parameters
        ----------
        A : array of shape (m_a, ``n_components_``)
            Coordinates (rows), e.g. from :meth:`transform`.
        B : array of shape (m_b, ``n_components_``), optional
            Coordinates; default ``A``.

        Returns
        -------
        G : ndarray of shape (m_a, m_b)
            With every significant component kept and ``center=True``, on
            training coordinates this is ``J K J``.
        """
        check_is_fitted(self, "eigenvalues_")
        A = np.asarray(A, dtype=float)
        B = A if B is None else np.asarray(B, dtype=float)
        return (A * self.signs_) @ B.T


class PseudoEuclideanKNeighbors(KernelKNeighborsClassifier):
    """Nearest neighbours (k-NN) in the pseudo-Euclidean embedding of a kernel (DisTools ``pe_knnc``).

    The training objects are embedded by :class:`PseudoEuclideanPCA` (centered,
    with the components chosen by ``n_components`` / ``energy``); a test object is
    mapped by its kernel row (:meth:`PseudoEuclideanPCA.transform`) and takes the
    majority label of the ``n_neighbors`` training objects nearest in the
    indefinite squared distance of the embedding,
    ``d2(x, x_j) = (z(x) - z_j)' M (z(x) - z_j)`` (Pekalska & Duin 2005; negative
    values kept, not clipped: the more negative, the nearer).

    How it differs from "knn" (:class:`KernelKNeighborsClassifier`): "knn" orders
    by the kernel-induced distance ``k(x, x) + K_jj - 2 k(x, x_j)``.  With every
    significant component kept the two are the same model: between training
    objects the embedding reproduces the kernel-induced distances exactly
    (Haasdonk Prop. 1), and for a test object whose centered row lies in the span
    of the eigenvectors (always when ``J K J`` has rank ``n - 1``, or for a
    finite-rank kernel) ``d2`` differs from the kernel-induced one by a constant
    per test object, so the neighbours coincide.  pe-knn differs when components
    are dropped: the distances are then those of the projection on the kept
    largest-``|lam|`` directions (``pe_em``'s denoising), and the null space of
    ``J K J`` is never seen.  The registry tunes ``energy`` beside ``k`` so the
    comparison can choose.

    Parameters
    ----------
    n_neighbors : int >= 1, default=5
        Number of neighbours ``k`` that vote; at most the number of training
        points.
    n_components, energy : optional
        Components kept, as :class:`PseudoEuclideanPCA` (at most one of them).
    kernel : "precomputed", str or callable, default="gaussian"
        ``"precomputed"``: ``fit`` takes the square ``(n, n)`` kernel matrix and
        ``predict`` the ``(m, n)`` rows ``K(test, train)``; else a kernel name or
        callable evaluated on feature vectors.
    kernel_params : dict, optional
        Parameters of the named or callable kernel.
    tol : float >= 0, optional
        Null-space cutoff of the embedding (:class:`PseudoEuclideanPCA`).
    probability : bool, default=False
        Whether ``fit`` also fits Platt scaling on internal 5-fold cross-validation
        decision values (:class:`~krein.estimators.base.ProbabilityMixin`); without it
        ``predict_proba`` returns the vote shares.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    embedding_ : PseudoEuclideanPCA
        The fitted embedding (``kernel="precomputed"`` on the training kernel).
    coordinates_ : ndarray of shape (n, n_components)
        Training coordinates ``z_j``.
    signature_ : tuple of int
        ``(p, q)`` of the kept components.
    squared_norms_ : ndarray of shape (n,)
        ``z_j' M z_j`` of the training coordinates.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"``).
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel).

    Notes
    -----
    Multiclass is native; a tied vote goes to the first class in ``classes_``,
    ties in distance to the lower training index.  Scale: ``K -> s K`` scales every
    ``d2`` by ``s`` and changes no prediction.
    """

    _parameter_constraints: dict = {**KernelKNeighborsClassifier._parameter_constraints,
                                    **_SELECTION_CONSTRAINTS}

    def __init__(self, *, n_neighbors=5, n_components=None, energy=None, kernel="gaussian",
                 kernel_params=None, tol=None, probability=False):
        super().__init__(n_neighbors=n_neighbors, kernel=kernel, kernel_params=kernel_params,
                         probability=probability)
        self.n_components = n_components
        self.energy = energy
        self.tol = tol

    def _fit_neighbours(self, K):
        """Embed the training kernel ``K`` (:class:`PseudoEuclideanPCA`; the neighbour
        search reads the coordinates and their squared norms)."""
        pca = PseudoEuclideanPCA(n_components=self.n_components, energy=self.energy,
                                 kernel="precomputed", tol=self.tol)
        self.coordinates_ = pca.fit_transform(K)
        self.embedding_ = pca
        self.signature_ = pca.signature_
        self.squared_norms_ = np.sum(self.coordinates_ ** 2 * pca.signs_, axis=1)

    def _test_coordinates(self, X):
        check_is_fitted(self, "coordinates_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        rows = X if self._precomputed() else self._gram(X, self.X_fit_)
        return rows, self.embedding_.transform(rows)

    def _neighbours(self, X):
        """Kernel rows and the indices of the ``n_neighbors`` nearest in the embedding."""
        rows, Zt = self._test_coordinates(X)
        # d2 - <z(x), z(x)>_M: the same order for each test object
        score = self.squared_norms_[None, :] - 2.0 * self.embedding_.inner(Zt, self.coordinates_)
        order = np.argsort(score, axis=1, kind="stable")
        return rows, order[:, :self.n_neighbors]

    def squared_distances(self, X):
        """Indefinite squared distances in the embedding from new objects to the training objects.

        Parameters
        ----------
        X : array of shape (m, n_features), or (m, n_train) with ``kernel="precomputed"``
            Test feature vectors, or the kernel rows ``K(test, train)``.

        Returns
        -------
        D2 : ndarray of shape (m, n_train)
            ``(z(x) - z_j)' M (z(x) - z_j)``; negative entries possible.
        """
        _, Zt = self._test_coordinates(X)
        own = np.sum(Zt ** 2 * self.embedding_.signs_, axis=1)
        return own[:, None] + self.squared_norms_[None, :] - 2.0 * self.embedding_.inner(Zt, self.coordinates_)
