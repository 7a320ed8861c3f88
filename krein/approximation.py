"""Indefinite Nyström features: a low-rank front end that is safe for indefinite kernels.

With ``m`` landmarks, ``C = K(X, landmarks)`` of shape ``(n, m)`` and
``W = K(landmarks, landmarks)``, the Nyström approximation is ``K ~ C W^+ C'``
(Williams & Seeger 2001).  For an indefinite kernel ``W`` is indefinite, and the
pseudo-inverse must drop its eigenvalues of small *magnitude*, not its negative
ones: ``W = U diag(L) U'``, keep ``|L_i| > rcond * max|L|`` (Nakatsukasa 2020;
Park & Nakatsukasa on the instability of plain Nyström for indefinite matrices).
Then, following Oglic & Gärtner (ICML 2019, "Scalable learning in reproducing
kernel Krein spaces", §3), with ``S = sign(L_r)`` and ``B = C U_r |L_r|^(-1/2)``
(``n x r``)::

    K_approx = C U_r L_r^(-1) U_r' C' = B S B'.

The exact eigendecomposition of ``B S B'`` comes from an ``r x r`` problem.  Their
derivation takes a thin QR of ``B``; here a square root of the Gram matrix
``G = B'B = E diag(D) E'`` plays the part of ``R`` (``R = D^(1/2) E'``, ``R'R = G``,
so ``B = Q R`` with ``Q = B E D^(-1/2)`` orthonormal), which needs only ``G``,
accumulated over row blocks, so ``B`` and ``Q`` are never stored::

    B S B' = Q (R S R') Q' = (Q V) diag(lam) (Q V)'     (R S R' = V diag(lam) V').

The features are ``Psi = Q V |lam|^(1/2)`` and the signs ``s = sign(lam)``:
``K_approx = Psi diag(s) Psi'`` and ``|K_approx| = Psi Psi'`` (the flipped
approximation).  Since ``R^(-1) V = S R' V diag(lam)^(-1)`` (from ``R S R' V = V
diag(lam)``), ``Psi = C T`` with::

    T = U_r |L_r|^(-1/2) S R' V diag(sign(lam) |lam|^(-1/2)),

no inverse of ``R`` needed; a new point's features are ``K(x, landmarks) T``, which
reproduces the Nyström extension ``K_approx(x, z) = k_x W^+ k_z'``.  Components with
``|lam| <= rcond * max|lam|`` or ``D <= rcond^2 * max D`` are dropped.

Time ``O(n m r + m^3)``, memory ``O(n r + block m)``: no ``n x n`` array is formed,
and ``C`` is computed in row blocks of ``block_size`` rows.  Squaring ``B`` into
``G`` costs accuracy where ``B`` is ill-conditioned: features are accurate to about
``sqrt(eps) cond(B)`` relative, against ``eps cond(B)`` for a QR of the stored
``B``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .kernels import KERNELS, pairwise_kernel

__all__ = ["IndefiniteNystroem", "LANDMARK_METHODS", "N_VALIDATION_PAIRS"]

#: Ways of choosing the landmarks of :class:`IndefiniteNystroem`.
LANDMARK_METHODS = ("uniform", "kmeans++")

#: Random pairs of training points on which ``rcond="auto"`` measures the error.
N_VALIDATION_PAIRS = 2000

_TINY = 1e-12


class IndefiniteNystroem(TransformerMixin, BaseEstimator):
    """Signed low-rank features of an indefinite kernel by the Nyström method.

    ``fit(X)`` chooses ``n_components`` landmarks among the rows of ``X`` and
    ``fit_transform(X)`` returns features ``Psi`` of shape ``(n, r)`` with signs
    ``signs_`` such that ``Psi diag(signs_) Psi'`` is the exact eigendecomposition
    of the Nyström approximation ``C W^+ C'`` of the kernel matrix (module
    docstring: the derivation, after Oglic & Gärtner 2019).  ``transform(X_new)``
    maps new points with the same landmarks.  No ``n x n`` array is formed.

    Parameters
    ----------
    kernel : str or callable, default="sigmoid"
        A name of :data:`krein.kernels.KERNELS` or a callable
        ``kernel(X, Z, **kernel_params)``.
    kernel_params : dict, optional
        Keyword parameters of the kernel (e.g. ``{"a": 1.0, "r": -1.0}``).
    n_components : int >= 1, default=100
        Number of landmarks ``m`` (at most ``n``: more is reduced to ``n`` with a
        warning, as scikit-learn's ``Nystroem`` does).
    landmarks : {"uniform", "kmeans++"}, default="uniform"
        ``"uniform"``: rows of ``X`` drawn without replacement; ``"kmeans++"``:
        the seeding of k-means++ (Arthur & Vassilvitskii 2007,
        :func:`sklearn.cluster.kmeans_plusplus`), which spreads them over the
        data (rows of ``X`` too).
    rcond : "auto" or float in (0, 1), default="auto"
        Relative cutoff on the eigenvalues of ``W``: those with
        ``|L| <= rcond max|L|`` are dropped.  With an indefinite ``W`` the
        cutoff decides the quality: the pseudo-inverse of small eigenvalues of
        either sign can blow the approximation up (measured: a relative error of
        14 with 10 landmarks of a strongly indefinite sigmoid kernel at
        ``rcond = 1e-10``, 0.85 at ``1e-3``), while on a nearly PSD kernel a
        tiny cutoff is best.  ``"auto"``: keep the ``k`` largest ``|L|``, with
        ``k`` minimizing the error of the approximation on
        :data:`N_VALIDATION_PAIRS` random pairs of training points (their exact
        kernel values are computed, ``O(pairs m)`` kernel evaluations); all
        ``m`` when every landmark is a training point and ``n = m``.
        Components of the final approximation with
        ``|lam| <= 1e-12 max|lam|`` are dropped in either case.
    block_size : int >= 1, default=4096
        Rows of ``C = K(X, landmarks)`` computed at a time.
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark choice.

    Attributes
    ----------
    landmarks_ : ndarray of shape (m, d)
        The landmarks.
    landmark_indices_ : ndarray of shape (m,)
        Their rows in the training data.
    n_components_ : int
        ``r``, the rank of the approximation (features returned).
    eigenvalues_ : ndarray of shape (r,)
        The nonzero eigenvalues ``lam`` of the approximation ``C W^+ C'`` of the
        training kernel, ascending.
    signs_ : ndarray of shape (r,)
        ``sign(eigenvalues_)``: ``K_approx = Psi diag(signs_) Psi'``.
    normalization_ : ndarray of shape (m, r)
        ``T``: features of any point are ``K(x, landmarks_) T``.
    n_features_in_ : int
        Number of features of ``X``.

    References
    ----------
    Williams & Seeger (2001), "Using the Nyström method to speed up kernel
    machines".  Oglic & Gärtner (2019), "Scalable learning in reproducing kernel
    Krein spaces", ICML.  Nakatsukasa (2020), "Fast and stable randomized low-rank
    matrix approximation".

    Examples
    --------
    >>> import numpy as np
    >>> from krein.approximation import IndefiniteNystroem
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(500, 2))
    >>> ny = IndefiniteNystroem(kernel_params={"a": 9.0, "r": -1.0}, n_components=50,
    ...                         random_state=0)
    >>> Psi = ny.fit_transform(X)
    >>> Psi.shape[1] == ny.n_components_, bool((ny.signs_ < 0).any())
    (True, True)
    """

    _parameter_constraints = {
        "kernel": [StrOptions(set(KERNELS)), callable],
        "kernel_params": [dict, None],
        "n_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "landmarks": [StrOptions(set(LANDMARK_METHODS))],
        "rcond": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="neither")],
        "block_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel="sigmoid", kernel_params=None, n_components=100,
                 landmarks="uniform", rcond="auto", block_size=4096, random_state=None):
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.n_components = n_components
        self.landmarks = landmarks
        self.rcond = rcond
        self.block_size = block_size
        self.random_state = random_state

    # ------------------------------------------------------------------ helpers
    def _k(self, X, Z):
        return pairwise_kernel(self.kernel, X, Z, self.kernel_params)

    def _choose_landmarks(self, X, m, rng):
        n = X.shape[0]
        if self.landmarks == "uniform":
            return np.sort(rng.choice(n, size=m, replace=False))
        from sklearn.cluster import kmeans_plusplus

        _, idx = kmeans_plusplus(X, m, random_state=rng)
        return np.asarray(idx)

    def _blocks(self, X, Z):
        for a in range(0, X.shape[0], self.block_size):
            yield a, self._k(X[a:a + self.block_size], Z)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None):
        """Choose the landmarks and compute the features' map (module docstring).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Training feature vectors.
        y : None
            Ignored.

        Returns
        -------
        self : IndefiniteNystroem
            The fitted transformer.

        Raises
        ------
        ValueError
            For bad parameters or data, or a kernel whose landmark block ``W`` is
            zero to working precision.
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the training features ``Psi`` (computed with the fit).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Training feature vectors.
        y : None
            Ignored.

        Returns
        -------
        Psi : ndarray of shape (n, n_components_)
            ``Psi diag(signs_) Psi'`` is the Nyström approximation of ``K(X, X)``.
        """
        return self._fit(X)

    def _fit(self, X):
        self._validate_params()
        X = validate_data(self, X, reset=True, dtype=np.float64)
        n = X.shape[0]
        m = int(self.n_components)
        if m > n:
            warnings.warn(f"n_components={m} > n_samples={n}: n_components set to {n}",
                          UserWarning, stacklevel=3)
            m = n
        rng = check_random_state(self.random_state)
        idx = self._choose_landmarks(X, m, rng)
        Z = X[idx]
        W = self._k(Z, Z)
        W = 0.5 * (W + W.T)
        L, U = np.linalg.eigh(W)
        top = float(np.max(np.abs(L))) if L.size else 0.0
        if top == 0.0:
            raise ValueError("IndefiniteNystroem: the kernel of the landmarks is zero; no "
                             "features can be formed")
        if self.rcond == "auto":
            keep = self._auto_keep(X, Z, L, U, rng)
        else:
            keep = np.abs(L) > self.rcond * top
        Ur = U[:, keep] / np.sqrt(np.abs(L[keep]))          # U_r |L_r|^(-1/2), (m, r0)
        S = np.sign(L[keep])
        # G = B'B over row blocks of C (B = C Ur), never storing C or B
        G = np.zeros((Ur.shape[1], Ur.shape[1]))
        for _, Cb in self._blocks(X, Z):
            Bb = Cb @ Ur
            G += Bb.T @ Bb
        G = 0.5 * (G + G.T)
        D, E = np.linalg.eigh(G)
        good = D > _TINY * max(float(D.max()), 0.0)
        D, E = D[good], E[:, good]
        R = np.sqrt(D)[:, None] * E.T                       # R'R = G, (q, r0)
        M = (R * S) @ R.T                                   # R S R'
        lam, V = np.linalg.eigh(0.5 * (M + M.T))
        nz = np.abs(lam) > _TINY * float(np.max(np.abs(lam)))
        lam, V = lam[nz], V[:, nz]
        T = Ur @ ((S[:, None] * R.T) @ (V * (np.sign(lam) / np.sqrt(np.abs(lam)))))
        # training features Psi = C T, computed block by block
        Psi = np.empty((n, lam.size))
        for a, Cb in self._blocks(X, Z):
            Psi[a:a + Cb.shape[0]] = Cb @ T
        self.landmarks_ = Z
        self.landmark_indices_ = idx
        self.eigenvalues_ = lam
        self.signs_ = np.sign(lam)
        self.normalization_ = T
        self.n_components_ = int(lam.size)
        return Psi

    def _auto_keep(self, X, Z, L, U, rng):
        """Eigenvalues of ``W`` kept by ``rcond="auto"``: the ``k`` largest ``|L|`` with the
        least error on random training pairs (every ``k`` at once by cumulative sums)."""
        n = X.shape[0]
        order = np.argsort(-np.abs(L))
        order = order[np.abs(L[order]) > _TINY * np.abs(L[order[0]])]
        i = rng.randint(n, size=N_VALIDATION_PAIRS)
        j = rng.randint(n, size=N_VALIDATION_PAIRS)
        Ai = self._k(X[i], Z) @ U[:, order]
        Aj = self._k(X[j], Z) @ U[:, order]
        exact = np.concatenate([np.diagonal(self._k(X[i[a:a + 256]], X[j[a:a + 256]]))
                                for a in range(0, i.size, 256)])
        approx = np.cumsum(Ai * Aj / L[order], axis=1)       # rank 1, 2, ... by |L|
        err = np.sum((approx - exact[:, None]) ** 2, axis=0)
        k = int(np.argmin(err)) + 1
        keep = np.zeros(L.size, dtype=bool)
        keep[order[:k]] = True
        return keep

    def transform(self, X):
        """Features of new points: ``K(X, landmarks_) normalization_``.

        Parameters
        ----------
        X : array-like of shape (n_new, d)
            Feature vectors.

        Returns
        -------
        Psi : ndarray of shape (n_new, n_components_)
            ``Psi_new diag(signs_) Psi_train'`` is the Nyström extension
            ``K(X, landmarks) W^+ C'`` of the kernel rows.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            For data with another number of features.
        """
        check_is_fitted(self, "normalization_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        out = np.empty((X.shape[0], self.n_components_))
        for a, Cb in self._blocks(X, self.landmarks_):
            out[a:a + Cb.shape[0]] = Cb @ self.normalization_
        return out

    def approximation_error(self, X, n_entries=10000, random_state=None):
        """Relative error of the approximation on a sample of kernel entries of ``X``.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Points (the training data or others).
        n_entries : int >= 1
            Pairs ``(i, j)`` drawn uniformly (with replacement).
        random_state : int, RandomState instance or None
            Seed of the draw.

        Returns
        -------
        float
            ``||K_s - K_approx_s|| / ||K_s||`` over the sampled entries (only those
            kernel values are computed).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        check_is_fitted(self, "normalization_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        rng = check_random_state(random_state)
        i = rng.randint(X.shape[0], size=int(n_entries))
        j = rng.randint(X.shape[0], size=int(n_entries))
        Fi, Fj = self.transform(X[i]), self.transform(X[j])
        approx = np.einsum("ij,ij->i", Fi * self.signs_, Fj)
        exact = np.concatenate([np.diagonal(self._k(X[i[a:a + 256]], X[j[a:a + 256]]))
                                for a in range(0, i.size, 256)])
        den = float(np.linalg.norm(exact))
        return float(np.linalg.norm(exact - approx)) / den if den > 0 else float(
            np.linalg.norm(approx))
