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

Large data: the embedding of the Nyström approximation
-------------------------------------------------------
With ``approximation=IndefiniteNystroem(...)`` :class:`PseudoEuclideanKNeighbors`
embeds the approximation ``K_approx = Psi S Psi'`` (signed features ``Psi`` of shape
``(n, r)``, ``S = diag(signs)``; Oglic & Gärtner 2019, §3) instead of ``K``.  Its
centered kernel is ``J K_approx J = Psi_c S Psi_c'`` with ``Psi_c = Psi - 1 mu'`` (``mu``
the mean feature vector), whose exact eigendecomposition comes from ``r x r``
problems, as the approximation's own (:func:`centered_signed_embedding`): with
``G = Psi_c' Psi_c = Psi' Psi - n mu mu' = E diag(D) E'``, ``R = diag(D)^(1/2) E'`` and
``R S R' = U diag(lam) U'``, the coordinates are ``Z = Psi_c T`` with
``T = E diag(D)^(-1/2) U |lam|^(1/2)`` (``Z diag(sign(lam)) Z' = J K_approx J``).
The same null-space cutoff (``10 n eps ||K_approx||_F``) and the same component
selection (:func:`select_components`) as the exact embedding follow; a new point's
row ``k_approx(x, X) = psi(x) S Psi'``, centered like the training kernel, is
``(psi(x) - mu) S Psi_c'``, so its Gower map ``z(x) = k~(x) Z diag(1 / lam)`` is
``(psi(x) - mu) S G T diag(1 / lam)``: an ``r x q`` matrix on the features.  Time
``O(n r^2)``, memory ``O(n r)``; no ``n x n`` array.  With every training point a
landmark ``K_approx = K``: the exact embedding.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitting import fit_wrapper, numpy_output
from .._validation import check_kernel_rows, check_square_kernel
from ..geometry import pseudo_euclidean_embedding
from ..spectrum import Spectrum
from .base import KERNEL_CONSTRAINTS, KernelMixin
from .neighbors import KernelKNeighborsClassifier, nearest_in_signature

__all__ = ["PseudoEuclideanPCA", "PseudoEuclideanKNeighbors", "select_components",
           "centered_signed_embedding"]

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


def centered_signed_embedding(Psi, signs, n_components=None, energy=None, tol=None):
    """The centered pseudo-Euclidean embedding of ``K = Psi S Psi'`` from its features.

    The kernel-PCA embedding of :class:`PseudoEuclideanPCA` (``center=True``)
    computed on signed features instead of the ``n x n`` kernel (module docstring,
    "Large data"; Haasdonk 2005, Prop. 1; Pekalska & Duin 2005; Oglic & Gärtner
    2019, §3 for the ``r x r`` eigenproblems).

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Signed features, ``K = Psi diag(signs) Psi'``.
    signs : ndarray of shape (r,)
        Their signature, entries in {-1, +1}.
    n_components, energy : optional
        Components kept, as :func:`select_components`.
    tol : float >= 0, optional
        Eigenvalues of the centered kernel with ``|lam| <= tol`` are dropped; default
        ``10 n eps ||K||_F`` (as :func:`krein.geometry.pseudo_euclidean_embedding`),
        with ``||K||_F^2 = tr((S Psi' Psi)^2)``.

    Returns
    -------
    coordinates : ndarray of shape (n, q)
        ``Z``: positive block (decreasing ``lam``), then negative block (decreasing
        ``|lam|``), the kept components only.
    eigenvalues : ndarray of shape (q,)
        The kept eigenvalues of the centered kernel, in the column order.
    mean : ndarray of shape (r,)
        ``mu``, the mean of the rows of ``Psi``.
    test_map : ndarray of shape (r, q)
        ``S G T diag(1 / lam)``: a new point's coordinates are
        ``(psi(x) - mu) test_map`` (the Gower map of its centered row).
    """
    Psi = np.asarray(Psi, dtype=float)
    signs = np.asarray(signs, dtype=float)
    n = Psi.shape[0]
    mu = Psi.mean(axis=0)
    G0 = Psi.T @ Psi
    if tol is None:
        frobenius = np.sqrt(max(float(np.sum(np.outer(signs, signs) * G0 ** 2)), 0.0))
        tol = 10.0 * n * np.finfo(float).eps * frobenius
    G = G0 - n * np.outer(mu, mu)
    G = 0.5 * (G + G.T)
    D, E = np.linalg.eigh(G)
    # the relative cutoff of krein.representation.signed_refactor on G's eigenvalues
    good = D > 1e-12 * max(float(D.max(initial=0.0)), 0.0)
    D, E = D[good], E[:, good]
    R = np.sqrt(D)[:, None] * E.T
    M = (R * signs) @ R.T
    lam, U = np.linalg.eigh(0.5 * (M + M.T))
    idx = np.r_[np.flatnonzero(lam > tol)[::-1], np.flatnonzero(lam < -tol)]
    lam, U = lam[idx], U[:, idx]
    keep = select_components(lam, n_components, energy)
    lam, U = lam[keep], U[:, keep]
    T = (E / np.sqrt(D)) @ (U * np.sqrt(np.abs(lam)))
    Z = Psi @ T - mu @ T
    test_map = (signs[:, None] * (G @ T)) / lam
    return Z, lam, mu, test_map


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

    Examples
    --------
    The embedding of the points in the pseudo-Euclidean space of the sigmoid kernel has negative
    directions:

    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from krein import PseudoEuclideanPCA
    >>> X, _ = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> pca = PseudoEuclideanPCA(kernel="sigmoid", kernel_params={"a": 0.05, "r": -0.5})
    >>> Z = pca.fit_transform(X)
    >>> Z.shape == (40, pca.n_components_)
    True
    >>> bool((pca.signs_ < 0).any())
    True
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
    approximation : transformer or None, default=None
        A low-rank front end, e.g. :class:`krein.approximation.IndefiniteNystroem`
        (cloned, given the estimator's ``kernel`` and ``kernel_params``); None:
        the exact kernel.  With it, ``fit`` and ``predict`` take the front end's
        input (feature vectors with a named kernel, or with
        ``kernel="precomputed"`` the columns ``K(objects, landmarks)``) and the
        embedded kernel is ``K_approx = Psi S Psi'``, embedded from its features
        (module docstring, "Large data"; :func:`centered_signed_embedding`); the
        neighbours are found block by block of test rows
        (:func:`krein.estimators.neighbors.nearest_in_signature`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_index_ : ndarray of shape (n,)
        Index in ``classes_`` of each training label.
    embedding_ : PseudoEuclideanPCA or None
        The fitted embedding (``kernel="precomputed"`` on the training kernel);
        None with an approximation.
    coordinates_ : ndarray of shape (n, n_components)
        Training coordinates ``z_j``.
    signature_ : tuple of int
        ``(p, q)`` of the kept components.
    squared_norms_ : ndarray of shape (n,)
        ``z_j' M z_j`` of the training coordinates.
    X_fit_ : ndarray of shape (n, n_features)
        Training feature vectors (not with ``kernel="precomputed"`` nor with an
        approximation).
    approximation_ : transformer
        With an approximation: the fitted clone.
    signs_ : ndarray of shape (n_components,)
        With an approximation: the diagonal of ``M`` (signs of the kept eigenvalues).
    eigenvalues_ : ndarray of shape (n_components,)
        With an approximation: the kept eigenvalues of ``J K_approx J``.
    feature_mean_ : ndarray of shape (r,)
        With an approximation: the mean training feature vector ``mu``.
    test_map_ : ndarray of shape (r, n_components)
        With an approximation: new coordinates are ``(psi(x) - mu) test_map_``.
    n_features_in_ : int
        Features seen by ``fit`` (``n`` with a precomputed kernel, ``m`` with
        precomputed landmark columns).

    Notes
    -----
    Multiclass is native; a tied vote goes to the first class in ``classes_``,
    ties in distance to the lower training index.  Scale: ``K -> s K`` scales every
    ``d2`` by ``s`` and changes no prediction.

    Examples
    --------
    Two Gaussian blobs under the sigmoid kernel, which is indefinite on them:

    >>> from sklearn.datasets import make_blobs
    >>> from krein import PseudoEuclideanKNeighbors
    >>> X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> clf = PseudoEuclideanKNeighbors(n_neighbors=5, kernel="sigmoid",
    ...                                 kernel_params={"a": 0.05, "r": -0.5}).fit(X, y)
    >>> bool(clf.score(X, y) >= 0.7)
    True
    """

    _parameter_constraints: dict = {**KernelKNeighborsClassifier._parameter_constraints,
                                    **_SELECTION_CONSTRAINTS}

    def __init__(self, *, n_neighbors=5, n_components=None, energy=None, kernel="gaussian",
                 kernel_params=None, tol=None, probability=False, approximation=None):
        super().__init__(n_neighbors=n_neighbors, kernel=kernel, kernel_params=kernel_params,
                         probability=probability, approximation=approximation)
        self.n_components = n_components
        self.energy = energy
        self.tol = tol

    def _fit_neighbours(self, K):
        """Embed the training kernel ``K`` (:class:`PseudoEuclideanPCA`; the neighbour
        search reads the coordinates and their squared norms)."""
        pca = numpy_output(PseudoEuclideanPCA(n_components=self.n_components, energy=self.energy,
                                              kernel="precomputed", tol=self.tol))
        self.coordinates_ = pca.fit_transform(K)
        self.embedding_ = pca
        self.signature_ = pca.signature_
        self.squared_norms_ = np.sum(self.coordinates_ ** 2 * pca.signs_, axis=1)

    def _fit_features(self, Psi, signs):
        """Embed ``K_approx = Psi S Psi'`` from its features
        (:func:`centered_signed_embedding`; module docstring, "Large data")."""
        if self.n_components is not None and self.energy is not None:
            select_components(np.zeros(0), self.n_components, self.energy)   # raises
        Z, lam, mu, test_map = centered_signed_embedding(
            Psi, signs, n_components=self.n_components, energy=self.energy, tol=self.tol)
        self.coordinates_ = Z
        self.eigenvalues_ = lam
        self.signs_ = np.sign(lam)
        self.signature_ = (int(np.sum(lam > 0)), int(np.sum(lam < 0)))
        self.squared_norms_ = np.einsum("ij,ij,j->i", Z, Z, self.signs_)
        self.feature_mean_ = mu
        self.test_map_ = test_map
        self.embedding_ = None

    def _nearest_approximate(self, X):
        """The nearest training coordinates, block by block of test rows."""
        _, Zt = self._test_coordinates(X)
        return nearest_in_signature(Zt, self.coordinates_, self.signs_, self.n_neighbors,
                                    squared_norms=self.squared_norms_)

    def _test_coordinates(self, X):
        if self._approximate():
            check_is_fitted(self, "test_map_")
            return None, (self._front_end_rows(X) - self.feature_mean_) @ self.test_map_
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
        if self.embedding_ is None:
            own = np.sum(Zt ** 2 * self.signs_, axis=1)
            return own[:, None] + self.squared_norms_[None, :] - 2.0 * (Zt * self.signs_) @ \
                self.coordinates_.T
        own = np.sum(Zt ** 2 * self.embedding_.signs_, axis=1)
        return own[:, None] + self.squared_norms_[None, :] - 2.0 * self.embedding_.inner(Zt, self.coordinates_)
