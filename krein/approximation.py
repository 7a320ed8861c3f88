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
The map and the cutoff on ``W`` of precomputed columns are the functions
:func:`krein.representation.nystroem_normalization` and
:func:`krein.representation.landmark_cutoff`, which the landmark-columns
representation :class:`krein.representation.LandmarkColumns` shares.

Time ``O(n m r + m^3)``, memory ``O(n r + block m)``: no ``n x n`` array is formed,
and ``C`` is computed in row blocks of ``block_size`` rows (with ``verbose``, a tqdm
bar counts them).  Squaring ``B`` into ``G`` costs accuracy where ``B`` is
ill-conditioned: features are accurate to about ``sqrt(eps) cond(B)`` relative,
against ``eps cond(B)`` for a QR of the stored ``B``.  Each feature's sign is fixed
(its largest entry of ``T`` positive, as scikit-learn's ``svd_flip``), so the same
landmarks give the same columns however the sums were blocked.

Inputs
------
* Feature vectors ``X`` of shape ``(n, d)`` and a kernel (a name of
  :data:`krein.kernels.KERNELS` or a callable): the landmarks are rows of ``X``,
  drawn (``"uniform"``, ``"kmeans++"``) or given as an index array.
* ``kernel="precomputed"``, for dissimilarity data where only the kernel against
  the landmarks is computed: ``X = C = K(objects, landmarks)`` of shape ``(n, m)``
  and ``W = K(landmarks, landmarks)`` either ``X[landmarks]`` (``landmarks`` the
  index array of the rows of ``X`` that are the landmarks, in the order of the
  columns) or ``fit(X, K_mm=W)``.  ``transform`` takes ``K(new, landmarks)``.  The
  columns give no exact kernel value between two other objects, so
  ``rcond="auto"`` is chosen from ``W`` alone (held-out landmark pairs; class
  docstring) and ``approximation_error`` needs the exact kernel as ``K_nn`` (a
  matrix or a function of the sampled index pairs).
* A dask array (``dask.array``, the optional extra ``krein[dask]``) of shape
  ``(n, d)`` (or ``(n, m)`` precomputed columns) chunked by rows: the landmark
  rows and the ``rcond="auto"`` validation rows are pulled with
  ``X[idx].compute()``; ``G`` is the sum over the chunks of ``B_b' B_b``, one task
  per chunk on dask's current scheduler (threads, processes or a
  ``dask.distributed`` client); ``fit_transform`` and ``transform`` return a lazy
  dask array ``C_b T`` chunked like ``X``.  The input is checked lazily (shape and
  dtype at once, NaN/inf chunk by chunk when the kernel blocks are computed);
  dask is imported only when a dask array is passed.

References
----------
Williams & Seeger (2001), "Using the Nyström method to speed up kernel machines",
NIPS.  Oglic & Gärtner (2019), "Scalable learning in reproducing kernel Krein
spaces", ICML.  Nakatsukasa (2020), "Fast and stable randomized low-rank matrix
approximation", arXiv:2009.11392.
"""

from __future__ import annotations

import functools
import numbers
import sys
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._fitting import fit_wrapper
from ._io import progress_bar
from .kernels import KERNELS, pairwise_kernel
# the Nyström mathematics shared with the landmark-columns representation; its constants
# are re-exported here, where the transformer's parameters refer to them
from .representation import (HOLDOUT_FRACTION, N_HOLDOUT_SPLITS, N_VALIDATION_PAIRS,
                             SYMMETRY_RTOL, check_landmark_block, check_landmark_indices,
                             cumulative_errors, landmark_cutoff, nystroem_normalization)

__all__ = ["IndefiniteNystroem", "LANDMARK_METHODS", "N_VALIDATION_PAIRS", "N_HOLDOUT_SPLITS",
           "HOLDOUT_FRACTION", "SYMMETRY_RTOL"]

#: Ways of choosing the landmarks of :class:`IndefiniteNystroem`.
LANDMARK_METHODS = ("uniform", "kmeans++")


def _is_dask(X):
    """Whether ``X`` is a dask array (without importing dask when it is not loaded)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(X, da.Array)


def _kernel_rows(Xb, kernel, params, Z):
    """``C`` for a block of rows: ``K(Xb, Z)``, or ``Xb`` itself with ``kernel="precomputed"``."""
    Xb = np.asarray(Xb, dtype=np.float64)
    if not np.all(np.isfinite(Xb)):
        raise ValueError("X must not contain NaN or inf")
    if kernel == "precomputed":
        return Xb
    return pairwise_kernel(kernel, Xb, Z, params)


def _block_gram(Xb, kernel, params, Z, Ur, block_size):
    """``sum_b B_b' B_b`` with ``B_b = C_b Ur`` over the row blocks of ``Xb``."""
    G = np.zeros((Ur.shape[1], Ur.shape[1]))
    for a in range(0, Xb.shape[0], block_size):
        Bb = _kernel_rows(Xb[a:a + block_size], kernel, params, Z) @ Ur
        G += Bb.T @ Bb
    return G


def _block_features(Xb, kernel, params, Z, T, block_size):
    """Features ``C_b T`` of the rows of ``Xb``, ``block_size`` rows of ``C`` at a time."""
    out = np.empty((Xb.shape[0], T.shape[1]))
    for a in range(0, Xb.shape[0], block_size):
        out[a:a + block_size] = _kernel_rows(Xb[a:a + block_size], kernel, params, Z) @ T
    return out


def _take_rows(X, idx):
    """``X[idx]`` as an ndarray; for a dask array only the distinct rows are computed."""
    if not _is_dask(X):
        return X[idx]
    rows, inverse = np.unique(idx, return_inverse=True)
    return np.asarray(X[rows].compute())[inverse]


class IndefiniteNystroem(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Signed low-rank features of an indefinite kernel by the Nyström method.

    ``fit(X)`` chooses ``m`` landmarks among the rows of ``X`` and
    ``fit_transform(X)`` returns features ``Psi`` of shape ``(n, r)`` with signs
    ``signs_`` such that ``Psi diag(signs_) Psi'`` is the exact eigendecomposition
    of the Nyström approximation ``C W^+ C'`` of the kernel matrix (module
    docstring: the derivation, after Oglic & Gärtner 2019).  ``transform(X_new)``
    maps new points with the same landmarks.  No ``n x n`` array is formed.

    Three kinds of input (module docstring, "Inputs"):

    * feature vectors ``X`` of shape ``(n, d)`` and a kernel (name or callable);
    * ``kernel="precomputed"``: ``X = K(objects, landmarks)`` of shape ``(n, m)``,
      for dissimilarity data where only the kernel against the landmarks is
      computed; the landmark block ``W = K(landmarks, landmarks)`` is ``X[landmarks]``
      when ``landmarks`` is the index array of the landmark rows, or
      ``fit(X, K_mm=W)``;
    * a dask array of feature vectors (or of precomputed columns) chunked by rows:
      the kernel blocks are computed chunk by chunk, and ``fit_transform`` /
      ``transform`` return a lazy dask array chunked like ``X``.

    Its output columns are the ``n_components_`` features (``get_feature_names_out``:
    ``indefinitenystroem0``, ...), so ``set_output(transform="pandas")`` returns them
    as DataFrames.

    Parameters
    ----------
    kernel : str or callable, default="sigmoid"
        A name of :data:`krein.kernels.KERNELS`, a callable
        ``kernel(X, Z, **kernel_params)``, or ``"precomputed"`` (``X`` holds
        kernel values against the landmarks, see above).
    kernel_params : dict, optional
        Keyword parameters of the kernel (e.g. ``{"a": 1.0, "r": -1.0}``);
        ignored with ``kernel="precomputed"``.
    n_components : int >= 1, default=100
        Number of landmarks ``m`` drawn by ``landmarks="uniform"`` or
        ``"kmeans++"`` (at most ``n``: more is reduced to ``n`` with a warning, as
        scikit-learn's ``Nystroem`` does).  Ignored when ``landmarks`` is an index
        array (``m = len(landmarks)``) and with ``kernel="precomputed"`` (``m`` is
        the number of columns of ``X``).
    landmarks : {"uniform", "kmeans++"}, array-like of int of shape (m,) or None, \
            default=None
        ``"uniform"`` (or None with feature vectors): rows of ``X`` drawn without
        replacement; ``"kmeans++"``: the seeding of k-means++ (Arthur &
        Vassilvitskii 2007, :func:`sklearn.cluster.kmeans_plusplus`), which spreads
        them over the data (rows of ``X`` too; not for a dask array, whose rows it
        would all need in memory); an array of distinct row indices: those rows of
        ``X`` are the landmarks, in that order.  With ``kernel="precomputed"`` only
        an index array (the rows of ``X`` that are the landmarks, its length equal
        to the number of columns of ``X``: ``W = X[landmarks]``) or None (then
        ``fit(X, K_mm=W)``) is accepted: the columns are already chosen.
    rcond : "auto" or float in (0, 1), default="auto"
        Relative cutoff on the eigenvalues of ``W``: those with
        ``|L| <= rcond max|L|`` are dropped.  With an indefinite ``W`` the
        cutoff decides the quality: the pseudo-inverse of small eigenvalues of
        either sign can blow the approximation up (measured: a relative error of
        14 with 10 landmarks of a strongly indefinite sigmoid kernel at
        ``rcond = 1e-10``, 0.85 at ``1e-3``), while on a nearly PSD kernel a
        tiny cutoff is best.  ``"auto"`` with feature vectors: keep the ``k``
        largest ``|L|``, with ``k`` minimizing the error of the approximation on
        :data:`N_VALIDATION_PAIRS` random pairs of training points (their exact
        kernel values are computed, ``O(pairs m)`` kernel evaluations); all ``m``
        when every landmark is a training point and ``n = m``.
        ``"auto"`` with ``kernel="precomputed"``: the columns give no exact kernel
        value between two non-landmarks, and every pair involving a landmark is
        reproduced the better the more eigenvalues are kept (``C W_k^+ W = C U_k
        U_k'``), so neither can choose the cutoff.  ``W`` alone can: in
        :data:`N_HOLDOUT_SPLITS` random splits, a fraction
        :data:`HOLDOUT_FRACTION` of the landmarks is the landmark set of a Nyström
        approximation of random pairs among the others, whose exact values are
        entries of ``W``; the cutoff relative to the largest ``|L|`` (candidates:
        between consecutive ``|L|`` of ``W``) with the least error summed over the
        splits is applied to ``W``.  The eigenvalues of ``W`` estimate ``m/n``
        times those of the kernel's integral operator, so a cutoff relative to the
        largest carries over from ``2m/3`` to ``m`` landmarks.  Measured (relative
        Frobenius error against the full kernel, mean of 3 seeds): on the sigmoid
        kernel above at n = 600, 0.49 / 0.15 / 0.004 with m = 10 / 40 / 300
        against 0.38 / 0.17 / 0.003 for ``"auto"`` on feature vectors and 3.0 /
        0.42 / 0.006 for ``rcond=1e-3``; on ``exp(-D^2 / median D^2)`` of the
        newsgroups dissimilarities, 0.14 / 0.026 with m = 40 / 300 against 0.16 /
        0.024 at ``1e-3`` and 0.41 / 0.19 at ``1e-10``.  All eigenvalues are kept
        when ``landmarks`` lists every row of ``X`` (nothing is left to
        approximate) or ``m < 4``.
        Components of the final approximation with
        ``|lam| <= 1e-12 max|lam|`` are dropped in either case.
    block_size : int >= 1, default=4096
        Rows of ``C = K(X, landmarks)`` computed at a time (memory
        ``O(block_size m)`` for ``C``, besides the ``O(n r)`` features).
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark choice and of the ``rcond="auto"`` pairs.
    verbose : bool or int, default=False
        Show a tqdm progress bar on stderr over the row blocks of ``C`` (the pass
        for ``G`` and, in ``fit_transform``/``transform``, the pass for the
        features).  Not for dask arrays: use dask's own diagnostics
        (``dask.diagnostics.ProgressBar``, the distributed dashboard).
    landmark_block : array-like of shape (m, m) or None, default=None
        With ``kernel="precomputed"`` and ``landmarks=None``: ``W = K(landmarks,
        landmarks)`` given with the transformer (as ``fit(X, K_mm=W)`` gives it with
        the data), so that the transformer built from precomputed columns goes into
        a Pipeline or ``GridSearchCV`` whose folds need not contain the landmarks'
        rows: the landmarks are only columns.  Symmetrized (:data:`SYMMETRY_RTOL`).

    Attributes
    ----------
    landmarks_ : ndarray of shape (m, d) or None
        The landmarks; None with ``kernel="precomputed"``.
    landmark_indices_ : ndarray of shape (m,) or None
        Their rows in the training data; None with ``fit(X, K_mm=W)``.
    n_components_ : int
        ``r``, the rank of the approximation (features returned).
    eigenvalues_ : ndarray of shape (r,)
        The nonzero eigenvalues ``lam`` of the approximation ``C W^+ C'`` of the
        training kernel, ascending.
    signs_ : ndarray of shape (r,)
        ``sign(eigenvalues_)``: ``K_approx = Psi diag(signs_) Psi'``.
    normalization_ : ndarray of shape (m, r)
        ``T``: features of any point are ``K(x, landmarks) T``.
    landmark_block_ : ndarray of shape (m, m)
        ``W = K(landmarks, landmarks)``, symmetrized (the kernel of the landmarks
        among themselves; :meth:`columns` gives any point's row against them).
    n_features_in_ : int
        Number of columns of ``X`` (``d``, or ``m`` with ``kernel="precomputed"``).

    See Also
    --------
    sklearn.kernel_approximation.Nystroem : the PSD version (``W^(-1/2)`` features).

    References
    ----------
    Williams & Seeger (2001), "Using the Nyström method to speed up kernel
    machines", NIPS.  Oglic & Gärtner (2019), "Scalable learning in reproducing
    kernel Krein spaces", ICML.  Nakatsukasa (2020), "Fast and stable randomized
    low-rank matrix approximation", arXiv:2009.11392.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.approximation import IndefiniteNystroem
    >>> from krein.kernels import sigmoid_kernel
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(500, 2))
    >>> ny = IndefiniteNystroem(kernel_params={"a": 9.0, "r": -1.0}, n_components=50,
    ...                         random_state=0)
    >>> Psi = ny.fit_transform(X)
    >>> Psi.shape[1] == ny.n_components_, bool((ny.signs_ < 0).any())
    (True, True)

    The same features from the kernel columns of the same landmarks:

    >>> idx = ny.landmark_indices_
    >>> pre = IndefiniteNystroem(kernel="precomputed", landmarks=idx)
    >>> Psi_pre = pre.fit_transform(sigmoid_kernel(X, X[idx], a=9.0, r=-1.0))
    >>> Psi_pre.shape == (500, pre.n_components_)
    True
    """

    _parameter_constraints = {
        "kernel": [StrOptions(set(KERNELS) | {"precomputed"}), callable],
        "kernel_params": [dict, None],
        "n_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "landmarks": [StrOptions(set(LANDMARK_METHODS)), "array-like", None],
        "rcond": [StrOptions({"auto"}), Interval(numbers.Real, 0, 1, closed="neither")],
        "block_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "landmark_block": ["array-like", None],
    }

    def __init__(self, *, kernel="sigmoid", kernel_params=None, n_components=100,
                 landmarks=None, rcond="auto", block_size=4096, random_state=None,
                 verbose=False, landmark_block=None):
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.n_components = n_components
        self.landmarks = landmarks
        self.landmark_block = landmark_block
        self.rcond = rcond
        self.block_size = block_size
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ helpers
    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _k(self, X, Z):
        return pairwise_kernel(self.kernel, X, Z, self.kernel_params)

    def _check_X(self, X, reset):
        """Validated ``X``: an ndarray through scikit-learn, or a dask array checked lazily
        (shape and dtype here, finiteness chunk by chunk when the blocks are computed)."""
        if not _is_dask(X):
            return validate_data(self, X, reset=reset, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D dask array; got {X.ndim} dimensions")
        if any(np.isnan(c) for c in X.shape):
            raise ValueError("X is a dask array with unknown chunk sizes; call "
                             "X.compute_chunk_sizes() first")
        if not (np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.bool_)) \
                or np.issubdtype(X.dtype, np.complexfloating):
            raise ValueError(f"X must hold real numbers; got dtype {X.dtype}")
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"X is empty: shape {X.shape}")
        d = int(X.shape[1])
        if reset:
            self.n_features_in_ = d
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif d != self.n_features_in_:
            raise ValueError(f"X has {d} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        X = X.astype(np.float64)
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        return X

    def _landmark_index_array(self, n, m_expected=None):
        """``landmarks`` given as an index array, validated against ``n`` rows."""
        idx = np.asarray(self.landmarks)
        if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu":
            raise ValueError(
                "landmarks must be 'uniform', 'kmeans++', None or a non-empty 1-D array of "
                f"integer row indices; got an array of shape {idx.shape} and dtype {idx.dtype}")
        return check_landmark_indices(idx, n, m_expected, columns="X",
                                      context="with kernel='precomputed', ")

    def _choose_landmarks(self, X, rng):
        """Row indices of the landmarks in feature-vector mode."""
        n = X.shape[0]
        method = "uniform" if self.landmarks is None else self.landmarks
        if not isinstance(method, str):
            return self._landmark_index_array(n)
        m = int(self.n_components)
        if m > n:
            warnings.warn(f"n_components={m} > n_samples={n}: n_components set to {n}",
                          UserWarning, stacklevel=7)  # the caller of fit (fit_wrapper: 3)
            m = n
        if method == "uniform":
            return np.sort(rng.choice(n, size=m, replace=False))
        if _is_dask(X):
            raise ValueError("landmarks='kmeans++' needs every row of X in memory; with a "
                             "dask array use landmarks='uniform' or an index array")
        from sklearn.cluster import kmeans_plusplus

        _, idx = kmeans_plusplus(X, m, random_state=rng)
        return np.asarray(idx)

    def _precomputed_block(self, X, K_mm):
        """``(landmark_indices, W)`` with ``kernel="precomputed"``: exactly one source of W."""
        n, m = X.shape
        lm = self.landmarks
        if self.landmark_block is not None:
            if K_mm is not None:
                raise ValueError("K_mm and landmark_block were both given: W comes from "
                                 "exactly one of them")
            if lm is not None:
                raise ValueError("landmark_block and an index array landmarks were both "
                                 "given: W comes from exactly one of them (landmarks: W = "
                                 "X[landmarks]; or landmarks=None and landmark_block=W)")
            K_mm = self.landmark_block
        if isinstance(lm, str):
            raise ValueError(
                f"landmarks={lm!r} cannot be used with kernel='precomputed': the columns of X "
                "are already the landmarks; pass landmarks as the integer index array of the "
                "rows of X that are the landmarks, or landmarks=None and fit(X, K_mm=W)")
        if lm is None and K_mm is None:
            raise ValueError(
                "kernel='precomputed' needs the (m, m) kernel of the landmarks: pass landmarks "
                "as the integer index array of the rows of X that are the landmarks "
                "(W = X[landmarks]), or fit(X, K_mm=W)")
        if lm is not None and K_mm is not None:
            raise ValueError(
                "K_mm and an index array landmarks were both given: W comes from exactly one "
                "of them (landmarks: W = X[landmarks]; or landmarks=None and fit(X, K_mm=W))")
        if K_mm is not None:
            if _is_dask(K_mm):
                K_mm = K_mm.compute()
            return None, check_landmark_block(K_mm, m, "K_mm")
        idx = self._landmark_index_array(n, m_expected=m)
        return idx, check_landmark_block(_take_rows(X, idx), m, "X[landmarks]")

    # ------------------------------------------------------------------ fitting
    @fit_wrapper
    def fit(self, X, y=None, K_mm=None):
        """Choose the landmarks and compute the features' map (module docstring).

        Parameters
        ----------
        X : array-like or dask array of shape (n, d), or (n, m) with kernel="precomputed"
            Training feature vectors, or ``K(objects, landmarks)`` with
            ``kernel="precomputed"``.
        y : None
            Ignored.
        K_mm : array-like of shape (m, m), optional
            ``W = K(landmarks, landmarks)`` with ``kernel="precomputed"`` and
            ``landmarks=None`` (symmetrized; see :data:`SYMMETRY_RTOL`).

        Returns
        -------
        self : IndefiniteNystroem
            The fitted transformer.

        Raises
        ------
        ValueError
            For bad parameters or data (naming the argument: ``X``, ``landmarks``,
            ``K_mm``), or a kernel whose landmark block ``W`` is zero to working
            precision.
        """
        self._fit(X, K_mm, features=False)
        return self

    @fit_wrapper
    def fit_transform(self, X, y=None, K_mm=None):
        """Fit and return the training features ``Psi`` (computed with the fit).

        Parameters
        ----------
        X : array-like or dask array of shape (n, d), or (n, m) with kernel="precomputed"
            Training feature vectors, or ``K(objects, landmarks)`` with
            ``kernel="precomputed"``.
        y : None
            Ignored.
        K_mm : array-like of shape (m, m), optional
            ``W = K(landmarks, landmarks)`` with ``kernel="precomputed"`` and
            ``landmarks=None``.

        Returns
        -------
        Psi : ndarray or dask array of shape (n, ``n_components_``)
            ``Psi diag(signs_) Psi'`` is the Nyström approximation of ``K(X, X)``.
            For a dask ``X``: a lazy dask array chunked by rows like ``X`` (its
            computation evaluates the kernel blocks again).

        Raises
        ------
        ValueError
            As :meth:`fit`.
        """
        return self._fit(X, K_mm, features=True)

    def _fit(self, X, K_mm, features):
        self._validate_params()
        if K_mm is not None and not self._precomputed:
            raise ValueError("K_mm is only accepted with kernel='precomputed'; with feature "
                             "vectors W is computed from the landmarks")
        if self.landmark_block is not None and not self._precomputed:
            raise ValueError("landmark_block is only accepted with kernel='precomputed'; "
                             "with feature vectors W is computed from the landmarks")
        X = self._check_X(X, reset=True)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        if self._precomputed:
            idx, W = self._precomputed_block(X, K_mm)
            Z = None
        else:
            idx = self._choose_landmarks(X, rng)
            Z = _take_rows(X, idx)
            W = self._k(Z, Z)
            W = 0.5 * (W + W.T)
        L, U = np.linalg.eigh(W)
        top = float(np.max(np.abs(L))) if L.size else 0.0
        if top == 0.0:
            raise ValueError("IndefiniteNystroem: the kernel of the landmarks is zero; no "
                             "features can be formed")
        if self.rcond == "auto" and not self._precomputed:
            keep = self._auto_keep(X, Z, L, U, rng)
        else:
            keep = landmark_cutoff(W, L, self.rcond, idx is not None and idx.size == n, rng)
        Ur = U[:, keep] / np.sqrt(np.abs(L[keep]))          # U_r |L_r|^(-1/2), (m, r0)
        S = np.sign(L[keep])
        kernel, params, bs = self.kernel, self.kernel_params, int(self.block_size)
        # G = B'B over row blocks of C (B = C Ur), never storing C or B
        if _is_dask(X):
            G = self._dask_gram(X, Z, Ur)
            bar = None
        else:
            n_blocks = -(-n // bs)
            bar = progress_bar(n_blocks * (2 if features else 1), "IndefiniteNystroem",
                               enabled=bool(self.verbose), unit="block")
            G = np.zeros((Ur.shape[1], Ur.shape[1]))
            for a in range(0, n, bs):
                G += _block_gram(X[a:a + bs], kernel, params, Z, Ur, bs)
                if bar is not None:
                    bar.update()
            if bar is not None and not features:
                bar.close()
        T, lam = nystroem_normalization(Ur, S, G)
        self.landmark_block_ = W
        self.landmarks_ = Z
        self.landmark_indices_ = idx
        self.eigenvalues_ = lam
        self.signs_ = np.sign(lam)
        self.normalization_ = T
        self.n_components_ = int(lam.size)
        if not features:
            return None
        return self._features(X, bar)

    def _features(self, X, bar=None):
        """``C T`` block by block (a lazy dask array for a dask ``X``)."""
        kernel, params, bs = self.kernel, self.kernel_params, int(self.block_size)
        T, Z = self.normalization_, self.landmarks_
        if _is_dask(X):
            fn = functools.partial(_block_features, kernel=kernel, params=params, Z=Z, T=T,
                                   block_size=bs)
            return X.map_blocks(fn, chunks=(X.chunks[0], (T.shape[1],)), dtype=np.float64)
        n = X.shape[0]
        if bar is None:
            bar = progress_bar(-(-n // bs), "IndefiniteNystroem", enabled=bool(self.verbose),
                               unit="block")
        out = np.empty((n, T.shape[1]))
        try:
            for a in range(0, n, bs):
                out[a:a + bs] = _block_features(X[a:a + bs], kernel, params, Z, T, bs)
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()
        return out

    def _dask_gram(self, X, Z, Ur):
        """``G = sum over the row chunks of X of B_b' B_b``, on dask's current scheduler."""
        import dask

        Zd = dask.delayed(Z, pure=True)
        Ud = dask.delayed(Ur, pure=True)
        part = dask.delayed(_block_gram, pure=True)
        parts = [part(b, self.kernel, self.kernel_params, Zd, Ud, int(self.block_size))
                 for b in X.to_delayed().ravel()]
        return functools.reduce(np.add, dask.compute(*parts))

    def _auto_keep(self, X, Z, L, U, rng):
        """Eigenvalues of ``W`` kept by ``rcond="auto"``: the ``k`` largest ``|L|`` with the
        least error on random training pairs (every ``k`` at once by cumulative sums)."""
        n = X.shape[0]
        i = rng.randint(n, size=N_VALIDATION_PAIRS)
        j = rng.randint(n, size=N_VALIDATION_PAIRS)
        Xij = _take_rows(X, np.concatenate([i, j]))
        Xi, Xj = Xij[:i.size], Xij[i.size:]
        exact = np.concatenate([np.diagonal(self._k(Xi[a:a + 256], Xj[a:a + 256]))
                                for a in range(0, i.size, 256)])
        order, err = cumulative_errors(self._k(Xi, Z), self._k(Xj, Z), exact, L, U)
        k = int(np.argmin(err)) + 1
        keep = np.zeros(L.size, dtype=bool)
        keep[order[:k]] = True
        return keep

    @property
    def _n_features_out(self):
        """Number of output features, ``n_components_`` (scikit-learn's feature names
        ``indefinitenystroem0``, ... of ``get_feature_names_out`` and ``set_output``)."""
        return self.n_components_

    def transform(self, X):
        """Features of new points: ``K(X, landmarks) normalization_``.

        Parameters
        ----------
        X : array-like or dask array of shape (n_new, d), or (n_new, m) with \
                kernel="precomputed"
            Feature vectors, or ``K(new objects, landmarks)`` with
            ``kernel="precomputed"`` (columns in the order of the landmarks).

        Returns
        -------
        Psi : ndarray or dask array of shape (n_new, ``n_components_``)
            ``Psi_new diag(signs_) Psi_train'`` is the Nyström extension
            ``K(X, landmarks) W^+ C'`` of the kernel rows.  For a dask ``X``: a
            lazy dask array chunked by rows like ``X`` (NaN or inf raise when it is
            computed).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            For data with another number of features (columns), NaN or inf.
        """
        check_is_fitted(self, "normalization_")
        X = self._check_X(X, reset=False)
        return self._features(X)

    def columns(self, X):
        """The kernel columns of points against the landmarks: ``K(X, landmarks)``.

        The raw Nyström input ``C`` (the features are ``C normalization_``), for the
        methods that work on the similarities to the landmarks themselves (the
        prototype form of the similarity-space SVMs, reduced-set expansions on the
        landmarks, corrections of the landmark block ``landmark_block_``).

        Parameters
        ----------
        X : array-like of shape (n_new, d), or (n_new, m) with kernel="precomputed"
            Feature vectors, or ``K(new objects, landmarks)`` (returned as they are,
            validated).

        Returns
        -------
        C : ndarray of shape (n_new, m)
            ``K(X, landmarks)``, columns in the order of the landmarks
            (``landmark_block_`` is these columns' block among the landmarks).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            For data with another number of features (columns), NaN or inf.
        """
        check_is_fitted(self, "normalization_")
        X = self._check_X(X, reset=False)
        if _is_dask(X):
            X = X.compute()
        X = np.asarray(X, dtype=np.float64)
        if self._precomputed:
            if not np.all(np.isfinite(X)):
                raise ValueError("X must not contain NaN or inf")
            return X
        bs = int(self.block_size)
        return np.vstack([_kernel_rows(X[a:a + bs], self.kernel, self.kernel_params,
                                       self.landmarks_) for a in range(0, X.shape[0], bs)]) \
            if X.shape[0] else np.empty((0, self.landmarks_.shape[0]))

    def approximation_error(self, X, n_entries=10000, random_state=None, K_nn=None):
        """Relative error of the approximation on a sample of kernel entries of ``X``.

        Parameters
        ----------
        X : array-like or dask array of shape (n, d), or (n, m) with kernel="precomputed"
            Points (the training data or others); with ``kernel="precomputed"``
            their kernel values against the landmarks.
        n_entries : int >= 1
            Pairs ``(i, j)`` drawn uniformly (with replacement).
        random_state : int, RandomState instance or None
            Seed of the draw.
        K_nn : array-like of shape (n, n) or callable, optional
            The exact kernel among the rows of ``X``: a matrix, or a function
            ``K_nn(i, j)`` of two integer arrays returning the ``len(i)`` values
            ``K(x_i, x_j)`` (so that only the sampled entries are computed, e.g.
            from the dissimilarities of those pairs).  Required with
            ``kernel="precomputed"``, whose columns give no exact entry between two
            non-landmarks; with feature vectors it replaces the kernel evaluation.

        Returns
        -------
        float
            ``||K_s - K_approx_s|| / ||K_s||`` over the sampled entries (only those
            kernel values are computed).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            With ``kernel="precomputed"`` and no ``K_nn``, or ``K_nn`` of the wrong
            shape or with NaN/inf.
        """
        check_is_fitted(self, "normalization_")
        X = self._check_X(X, reset=False)
        n = X.shape[0]
        if K_nn is None and self._precomputed:
            raise ValueError(
                "approximation_error with kernel='precomputed' needs the exact kernel: pass "
                "K_nn, the (n, n) kernel among the rows of X or a function K_nn(i, j) of the "
                "sampled index arrays; the columns against the landmarks give no exact entry "
                "between two other objects")
        rng = check_random_state(random_state)
        i = rng.randint(n, size=int(n_entries))
        j = rng.randint(n, size=int(n_entries))
        Fij = np.asarray(self.transform(_take_rows(X, np.concatenate([i, j]))))
        Fi, Fj = Fij[:i.size], Fij[i.size:]
        approx = np.einsum("ij,ij->i", Fi * self.signs_, Fj)
        if K_nn is None:
            Xij = _take_rows(X, np.concatenate([i, j]))
            Xi, Xj = Xij[:i.size], Xij[i.size:]
            exact = np.concatenate([np.diagonal(self._k(Xi[a:a + 256], Xj[a:a + 256]))
                                    for a in range(0, i.size, 256)])
        elif callable(K_nn):
            exact = np.asarray(K_nn(i, j), dtype=np.float64).reshape(-1)
            if exact.shape != (i.size,):
                raise ValueError(f"K_nn(i, j) must return {i.size} values; got {exact.size}")
        else:
            if _is_dask(K_nn):
                exact = np.asarray(K_nn.vindex[i, j].compute(), dtype=np.float64)
            else:
                K_nn = np.asarray(K_nn, dtype=np.float64)
                if K_nn.shape != (n, n):
                    raise ValueError(f"K_nn must be the (n, n) = ({n}, {n}) kernel among the "
                                     f"rows of X; got shape {K_nn.shape}")
                exact = K_nn[i, j]
        if not np.all(np.isfinite(exact)):
            raise ValueError("K_nn must not contain NaN or inf")
        den = float(np.linalg.norm(exact))
        return float(np.linalg.norm(exact - approx)) / den if den > 0 else float(
            np.linalg.norm(approx))
