"""Representations of the kernel: one interface, three forms.

The same kernel ``K`` of ``n`` objects reaches a method in one of three forms
(docs/design.md, "Representations of the kernel"):

* :class:`ExactKernel` -- the ``n x n`` matrix ``K`` itself;
* :class:`SignedFeatures` -- features ``Z`` (``n x r``) and signs ``s`` in {-1, +1}
  with ``K ~ Z diag(s) Z'`` (the Nyström map of a kernel on feature vectors,
  :class:`krein.approximation.IndefiniteNystroem`, or any signed factor);
* :class:`LandmarkColumns` -- the block ``C`` (``n x m``) of kernel values between
  the objects and ``m`` landmark objects, with the landmark block ``W = C[idx]``;
  the kernel is its Nyström approximation ``K ~ C W^+ C'`` (Williams & Seeger
  2001) with the indefinite cutoff of Oglic & Gärtner (2019) and the
  ``rcond`` rules of :class:`~krein.approximation.IndefiniteNystroem` (whose
  precomputed-columns path runs on the functions of this module).

A method asks the representation (the interface :class:`KernelRepresentation`)
for what it needs -- products ``K V`` (:meth:`~KernelRepresentation.dot`), the
diagonal, the spectrum as signed eigenfeatures
(:meth:`~KernelRepresentation.eigenfeatures`), the sub-kernel of a subset of the
objects (:meth:`~KernelRepresentation.subset`, e.g. a pair of classes), the rows of
new objects (:meth:`~KernelRepresentation.rows`) -- and never for the ``n x n``
matrix: :meth:`~KernelRepresentation.dense` is an explicit request, refused beyond
:data:`MAX_DENSE_ENTRIES` entries.

Coordinates of new objects
--------------------------
``rows(new)`` gives new objects in the representation's own coordinates: the
``(n_new, n)`` kernel block for :class:`ExactKernel`, the features ``psi(x)``
(``n_new x r``) for :class:`SignedFeatures`, and the new objects' ``m`` kernel
columns mapped by the Nyström map, ``psi(x) = k(x, landmarks) T``, for
:class:`LandmarkColumns`.  A model trained on a representation is linear in these
rows, ``f(x) = rows(x) coef + b``.

Signed eigenfeatures
--------------------
:meth:`~KernelRepresentation.eigenfeatures` returns :class:`Eigenfeatures`
``(F, lam, M)``: the exact eigendecomposition of the represented kernel as features,
``K = F diag(sign(lam)) F' = V diag(lam) V'``, ``F = V |lam|^(1/2)``
(``F'F = diag(|lam|)``, nonzero ``lam`` ascending), and the extension ``M`` that maps
the rows of new objects to their eigenfeatures, ``f(x) = rows(x) M`` (Nyström
extension ``k(x, X) V diag(lam)^(-1) |lam|^(1/2)``; ``M = None`` when the rows are
the eigenfeatures already).  A model ``eig_rows(x) w + b`` on the eigenfeatures is
``rows(x) (M w) + b`` (:meth:`Eigenfeatures.to_rows`).

* exact: ``K = V diag(lam) V'`` by :class:`krein.spectrum.Spectrum`, the null space
  (``|lam| <= n eps max|lam|``) dropped; ``M = V diag(sign(lam) |lam|^(-1/2))``;
* signed features: from an ``r x r`` problem (:func:`signed_refactor`, Oglic &
  Gärtner 2019, §3): ``F = Z T``, ``M = diag(s) Z' F |lam|^(-1) diag(sign(lam))``
  (``Z M = F`` on the training objects; the map of a new point is its Nyström
  extension ``k(x, X) F |lam|^(-1) diag(sign(lam))``, not ``psi(x) T``, which
  differs off the row space of ``Z``).  Features whose columns already are the
  eigendecomposition (``Z'Z = diag(|lam|)``, as
  :class:`~krein.approximation.IndefiniteNystroem` returns them) are given with
  their ``eigenvalues`` and returned as they are (``M = None``);
* landmark columns: the eigenfeatures of its Nyström features ``C T``.

Sub-representations
-------------------
``subset(idx)`` represents ``K[idx][:, idx]`` in the same form.  The rows of new
objects keep the parent's coordinates where the form allows: the same features
``psi(x)`` for :class:`SignedFeatures` and the same ``m`` columns (and Nyström map)
for :class:`LandmarkColumns`; the columns ``idx`` of the ``(n_new, n)`` block for
:class:`ExactKernel`.

References
----------
Williams & Seeger (2001), "Using the Nyström method to speed up kernel machines",
NIPS.  Oglic & Gärtner (2019), "Scalable learning in reproducing kernel Krein
spaces", ICML, §3.  Nakatsukasa (2020), "Fast and stable randomized low-rank matrix
approximation", arXiv:2009.11392.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from ._validation import check_kernel_rows, check_square_kernel
from .spectrum import Spectrum

__all__ = ["KernelRepresentation", "ExactKernel", "SignedFeatures", "LandmarkColumns",
           "Eigenfeatures", "REPRESENTATION_KINDS", "MAX_DENSE_ENTRIES", "signed_refactor",
           "check_landmark_indices", "check_landmark_block", "landmark_cutoff",
           "nystroem_normalization", "N_VALIDATION_PAIRS", "N_HOLDOUT_SPLITS",
           "HOLDOUT_FRACTION", "SYMMETRY_RTOL"]

#: The ``kind`` of each representation.
REPRESENTATION_KINDS = ("exact", "signed-features", "landmark-columns")

#: :meth:`KernelRepresentation.dense` refuses a kernel of more entries than this
#: (10^8 float64 entries: 800 MB).
MAX_DENSE_ENTRIES = 10 ** 8

#: Random pairs of objects on which a cutoff ``rcond="auto"`` measures the error.
N_VALIDATION_PAIRS = 2000

#: Largest ``max|W - W'| / max|W|`` accepted for a landmark block ``W`` given as
#: kernel values (it is then symmetrized as ``(W + W') / 2``).
SYMMETRY_RTOL = 1e-6

#: ``rcond="auto"`` on landmark columns: random splits of the landmarks
#: (:func:`landmark_cutoff`).
N_HOLDOUT_SPLITS = 5

#: ``rcond="auto"`` on landmark columns: the fraction of the landmarks that
#: approximates random pairs of the held-out rest in each split (2/3 measured better
#: than 1/2 and 3/4 at 10 to 40 landmarks; :class:`~krein.approximation.IndefiniteNystroem`,
#: ``rcond``).
HOLDOUT_FRACTION = 2 / 3

#: Relative size below which a component (eigenvalue or Gram eigenvalue) is dropped.
_TINY = 1e-12

#: Rows of ``C`` multiplied at a time by :class:`LandmarkColumns` (as the default
#: ``block_size`` of :class:`~krein.approximation.IndefiniteNystroem`).
_BLOCK_SIZE = 4096


# ============================================================== the shared mathematics
def signed_refactor(Psi, signs):
    """Exact eigendecomposition of ``Psi diag(signs) Psi'`` as signed features.

    With ``Psi' Psi = E diag(D) E'`` and ``R = diag(D)^(1/2) E'`` (``R'R = Psi'Psi``,
    ``Psi = Q R`` with ``Q`` orthonormal) and ``R diag(signs) R' = U diag(lam) U'``,
    ``Psi diag(signs) Psi' = (Q U) diag(lam) (Q U)'``; the new features are
    ``Psi T`` with ``T = E diag(D)^(-1/2) U |lam|^(1/2)`` (Oglic & Gärtner 2019, §3).

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Features of the kernel ``Psi diag(signs) Psi'``.
    signs : ndarray of shape (r,)
        Signs in {-1, +1}.

    Returns
    -------
    T : ndarray of shape (r, q)
        New features ``Psi T`` (orthogonal columns, norms ``|lam|^(1/2)``).
    lam : ndarray of shape (q,)
        The nonzero eigenvalues of ``Psi diag(signs) Psi'``, ascending.
    """
    G = Psi.T @ Psi
    D, E = np.linalg.eigh(0.5 * (G + G.T))
    good = D > _TINY * max(float(D.max(initial=0.0)), 0.0)
    D, E = D[good], E[:, good]
    R = np.sqrt(D)[:, None] * E.T
    M = (R * signs) @ R.T
    lam, U = np.linalg.eigh(0.5 * (M + M.T))
    nz = np.abs(lam) > _TINY * float(np.max(np.abs(lam), initial=0.0))
    lam, U = lam[nz], U[:, nz]
    T = (E / np.sqrt(D)) @ (U * np.sqrt(np.abs(lam)))
    return T, lam


def check_landmark_indices(landmarks, n, m_expected=None, columns="X", context=""):
    """Validate the row indices of the landmarks among ``n`` objects.

    Parameters
    ----------
    landmarks : array-like of int of shape (m,)
        Distinct row indices in ``[0, n)``.
    n : int
        Number of objects (rows of the columns ``C``).
    m_expected : int or None, default=None
        The number of landmark columns that ``landmarks`` must match (None: any).
    columns : str, default="X"
        Name of the columns argument in messages.
    context : str, default=""
        Words put before the explanation of ``m_expected`` in its message.

    Returns
    -------
    ndarray of int of shape (m,)
        The indices as ``intp``.

    Raises
    ------
    ValueError
        Naming ``landmarks``: not a non-empty 1-D integer array, an index out of
        range, repeated indices, or not ``m_expected`` of them.
    """
    idx = np.asarray(landmarks)
    if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu":
        raise ValueError("landmarks must be a non-empty 1-D array of integer row indices; got "
                         f"an array of shape {idx.shape} and dtype {idx.dtype}")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"landmarks: row indices must lie in [0, {n}) for {columns} with {n} "
                         f"rows; got [{idx.min()}, {idx.max()}]")
    if np.unique(idx).size != idx.size:
        raise ValueError("landmarks: row indices must be distinct")
    if m_expected is not None and idx.size != m_expected:
        raise ValueError(
            f"landmarks has {idx.size} indices but {columns} has {m_expected} columns: "
            f"{context}{columns} = K(objects, landmarks) has one column per landmark, in the "
            "order of landmarks")
    return idx.astype(np.intp)


def check_landmark_block(W, m, name):
    """Validate a landmark block: finite, ``(m, m)``, symmetric to :data:`SYMMETRY_RTOL`.

    Parameters
    ----------
    W : array-like of shape (m, m)
        Kernel values among the ``m`` landmarks.
    m : int
        Number of landmarks.
    name : str
        Argument name in messages (``"K_mm"``, ``"C[landmarks]"``, ...).

    Returns
    -------
    ndarray of shape (m, m)
        ``(W + W') / 2`` as float64.

    Raises
    ------
    ValueError
        Naming ``name``: wrong shape, NaN or inf, or asymmetric beyond
        :data:`SYMMETRY_RTOL` relative to ``max |W|``.
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape != (m, m):
        raise ValueError(f"{name} must be the square (m, m) kernel matrix of the m = {m} "
                         f"landmarks (m = the number of columns of X); got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError(f"{name} must not contain NaN or inf")
    scale = float(np.max(np.abs(W))) if W.size else 0.0
    asym = float(np.max(np.abs(W - W.T))) if W.size else 0.0
    if asym > SYMMETRY_RTOL * scale:
        raise ValueError(f"{name} is not symmetric: max |W - W'| = {asym:.3g} against "
                         f"max |W| = {scale:.3g} (tolerance {SYMMETRY_RTOL:g} relative); "
                         "symmetrize it first, e.g. (W + W.T) / 2, or check that its rows "
                         "and columns list the landmarks in the same order")
    return 0.5 * (W + W.T)


def cumulative_errors(Ci, Cj, exact, L, U):
    """Squared errors of the Nyström approximations of kernel entries at every rank.

    ``Ci U_k L_k^(-1) U_k' Cj'`` against ``exact`` on the pairs, for the ``k = 1, 2,
    ...`` eigenvalues of largest ``|L|`` (every ``k`` at once by cumulative sums).

    Parameters
    ----------
    Ci, Cj : ndarray of shape (p, m)
        Kernel values of the first and second objects of ``p`` pairs against the
        landmarks.
    exact : ndarray of shape (p,)
        The exact kernel values of the pairs.
    L : ndarray of shape (m,)
        Eigenvalues of the landmark block.
    U : ndarray of shape (m, m)
        Its eigenvectors.

    Returns
    -------
    order : ndarray of int
        Indices of ``L`` by decreasing magnitude (those above ``1e-12`` of the
        largest).
    err : ndarray of shape (order.size,)
        The summed squared error at rank ``1, 2, ..., order.size``.
    """
    order = np.argsort(-np.abs(L))
    order = order[np.abs(L[order]) > _TINY * np.abs(L[order[0]])]
    Ai = Ci @ U[:, order]
    Aj = Cj @ U[:, order]
    approx = np.cumsum(Ai * Aj / L[order], axis=1)       # rank 1, 2, ... by |L|
    return order, np.sum((approx - exact[:, None]) ** 2, axis=0)


def _holdout_keep(W, L, rng):
    """``rcond="auto"`` from ``W`` alone: the relative cutoff with the least error summed
    over :data:`N_HOLDOUT_SPLITS` random splits of the landmarks, each approximating
    held-out pairs from the rest."""
    m = W.shape[0]
    top = float(np.max(np.abs(L)))
    mags = np.sort(np.abs(L))[::-1] / top
    mags = mags[mags > _TINY]
    # candidate cutoffs: between consecutive |L| of W (keep 1, 2, ..., all)
    cuts = np.append(np.sqrt(mags[:-1] * mags[1:]), _TINY)
    total = np.zeros(cuts.size)
    n_a = max(1, int(round(HOLDOUT_FRACTION * m)))
    for _ in range(N_HOLDOUT_SPLITS):
        perm = rng.permutation(m)
        A, B = perm[:n_a], perm[n_a:]
        La, Ua = np.linalg.eigh(W[np.ix_(A, A)])
        i = B[rng.randint(B.size, size=N_VALIDATION_PAIRS)]
        j = B[rng.randint(B.size, size=N_VALIDATION_PAIRS)]
        exact = W[i, j]
        order, err = cumulative_errors(W[np.ix_(i, A)], W[np.ix_(j, A)], exact, La, Ua)
        mags_a = np.abs(La[order]) / np.abs(La[order[0]])
        count = np.searchsorted(-mags_a, -cuts, side="left")   # #(mags_a > cut)
        total += np.concatenate([[np.sum(exact ** 2)], err])[count]
    k = int(np.argmin(total))
    return np.abs(L) > cuts[k] * top


def landmark_cutoff(W, L, rcond, complete, random_state=None):
    """The eigenvalues of the landmark block kept by the pseudo-inverse ``W^+``.

    ``rcond`` a float: ``|L| > rcond max|L|``.  ``rcond="auto"`` on landmark columns
    (the columns give no exact kernel value between two non-landmarks): all nonzero
    eigenvalues when ``complete`` (every object is a landmark: nothing is left to
    approximate) or ``m < 4``; else the cutoff relative to the largest ``|L|``
    (candidates between consecutive ``|L|``) with the least error over
    :data:`N_HOLDOUT_SPLITS` random splits of the landmarks, a fraction
    :data:`HOLDOUT_FRACTION` of them approximating random pairs of the others,
    whose exact values are entries of ``W``.

    Parameters
    ----------
    W : ndarray of shape (m, m)
        The symmetric landmark block.
    L : ndarray of shape (m,)
        Its eigenvalues (ascending, as ``numpy.linalg.eigh``), not all zero.
    rcond : "auto" or float in (0, 1)
        The relative cutoff.
    complete : bool
        Whether every object is a landmark.
    random_state : int, RandomState instance or None, default=None
        Draws the splits and pairs of ``rcond="auto"`` (a RandomState instance is used
        as it is: the draws continue its stream).

    Returns
    -------
    ndarray of bool of shape (m,)
        The eigenvalues kept.
    """
    top = float(np.max(np.abs(L)))
    if rcond != "auto":
        return np.abs(L) > rcond * top
    if complete or L.size < 4:
        return np.abs(L) > _TINY * top
    return _holdout_keep(W, L, check_random_state(random_state))


def nystroem_normalization(Ur, S, G):
    """The Nyström map ``T`` and the eigenvalues of ``B diag(S) B'``, ``B = C Ur``.

    With ``G = B'B = E diag(D) E'`` and ``R = D^(1/2) E'`` (``B = Q R``, ``Q``
    orthonormal) and ``R S R' = V diag(lam) V'``: ``B S B' = (Q V) diag(lam) (Q V)'``,
    and the features ``Psi = Q V |lam|^(1/2) = C T`` with
    ``T = Ur S R' V diag(sign(lam) |lam|^(-1/2))`` (Oglic & Gärtner 2019, §3; the
    derivation in :mod:`krein.approximation`).  Components with ``D <= 1e-12 max D``
    or ``|lam| <= 1e-12 max|lam|`` are dropped; each column of ``T`` has its largest
    entry positive (as scikit-learn's ``svd_flip``), so the same landmarks give the
    same features however ``G`` was summed.

    Parameters
    ----------
    Ur : ndarray of shape (m, r0)
        ``U_r |L_r|^(-1/2)``: the kept eigenvectors of the landmark block, scaled.
    S : ndarray of shape (r0,)
        ``sign(L_r)``.
    G : ndarray of shape (r0, r0)
        ``B'B`` (symmetrized here).

    Returns
    -------
    T : ndarray of shape (m, r)
        The map: the features of any object are ``k(x, landmarks) T``.
    lam : ndarray of shape (r,)
        The nonzero eigenvalues of the approximation ``C W_r^+ C'``, ascending.
    """
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
    # one sign per feature, whatever the rounding of the sums: the largest |T| positive
    # (as sklearn's svd_flip), so in-memory, blocked and dask fits give the same columns
    T = T * np.where(T[np.argmax(np.abs(T), axis=0), np.arange(T.shape[1])] < 0, -1.0, 1.0)
    return T, lam


def _blocked_gram(C, Ur, block_size):
    """``B'B`` with ``B = C Ur``, ``block_size`` rows of ``C`` at a time."""
    G = np.zeros((Ur.shape[1], Ur.shape[1]))
    for a in range(0, C.shape[0], block_size):
        Bb = C[a:a + block_size] @ Ur
        G += Bb.T @ Bb
    return G


def _blocked_product(C, T, block_size):
    """``C T``, ``block_size`` rows of ``C`` at a time."""
    out = np.empty((C.shape[0], T.shape[1]))
    for a in range(0, C.shape[0], block_size):
        out[a:a + block_size] = C[a:a + block_size] @ T
    return out


def _finite_matrix(A, name, ndim=2):
    """``A`` as a float64 array of ``ndim`` dimensions with finite entries."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array; got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must not contain NaN or inf")
    return A


# ======================================================================= the interface
@dataclass(frozen=True)
class Eigenfeatures:
    """The exact eigendecomposition of a represented kernel, as signed features.

    ``K = features diag(sign(eigenvalues)) features'`` with ``features' features =
    diag(|eigenvalues|)``; the eigenfeatures of new objects are ``rows(new) @
    extension`` (module docstring, "Signed eigenfeatures").

    Parameters
    ----------
    features : ndarray of shape (n, q)
        ``F = V |lam|^(1/2)``.
    eigenvalues : ndarray of shape (q,)
        The nonzero eigenvalues ``lam``, ascending.
    extension : ndarray of shape (p, q) or None
        ``M``: maps the ``p`` coordinates of ``rows(new)`` to eigenfeatures; None
        when ``rows(new)`` are the eigenfeatures.
    """

    features: np.ndarray
    eigenvalues: np.ndarray
    extension: np.ndarray | None = None

    @property
    def signs(self):
        """The signs ``sign(eigenvalues)``, an ndarray of shape (q,)."""
        return np.sign(self.eigenvalues)

    def to_rows(self, coef):
        """Coefficients of a model on the eigenfeatures, mapped to the rows' coordinates.

        ``f(x) = eig(x) coef + b = rows(x) (M coef) + b``.

        Parameters
        ----------
        coef : ndarray of shape (q,)
            Weights of the eigenfeatures.

        Returns
        -------
        ndarray of shape (p,)
            ``M coef`` (``coef`` itself when ``extension`` is None).
        """
        return coef if self.extension is None else self.extension @ coef


class KernelRepresentation(ABC):
    """The interface of a kernel's representation (module docstring).

    Subclasses set :attr:`kind` (one of :data:`REPRESENTATION_KINDS`) and
    :attr:`operations` (the methods they support) and implement them.

    Attributes
    ----------
    kind : str
        ``"exact"``, ``"signed-features"`` or ``"landmark-columns"``.
    operations : tuple of str
        The methods of the interface that the representation supports.
    """

    kind = None
    operations = ("dot", "diagonal", "eigenfeatures", "subset", "rows", "to_signed_features",
                  "dense")

    @property
    @abstractmethod
    def n(self):
        """The number of objects ``n`` (int)."""

    @abstractmethod
    def dot(self, V):
        """Products with the represented kernel, ``K @ V``.

        Parameters
        ----------
        V : ndarray of shape (n,) or (n, k)
            Vectors.

        Returns
        -------
        ndarray of shape (n,) or (n, k)
            ``K V``.
        """

    @abstractmethod
    def diagonal(self):
        """The diagonal ``K_ii`` of the represented kernel.

        Returns
        -------
        ndarray of shape (n,)
            The diagonal.
        """

    @abstractmethod
    def eigenfeatures(self):
        """The exact eigendecomposition of the represented kernel as signed features.

        Returns
        -------
        Eigenfeatures
            ``(features, eigenvalues, extension)`` (module docstring).
        """

    @abstractmethod
    def subset(self, idx):
        """The representation of ``K[idx][:, idx]``, in the same form.

        Parameters
        ----------
        idx : array-like of int of shape (k,)
            Indices of the objects.

        Returns
        -------
        KernelRepresentation
            The sub-kernel (module docstring, "Sub-representations").
        """

    @abstractmethod
    def rows(self, new):
        """The rows of new objects in the representation's coordinates.

        Parameters
        ----------
        new : array-like of shape (n_new, p_in)
            The new objects as the representation takes them (module docstring).

        Returns
        -------
        ndarray of shape (n_new, p)
            Their rows (``f(x) = rows(x) coef + b`` for a model on the representation).
        """

    @abstractmethod
    def to_signed_features(self):
        """The represented kernel as :class:`SignedFeatures`.

        Returns
        -------
        SignedFeatures
            Features ``Z`` and signs with ``Z diag(s) Z'`` the represented kernel.
        """

    @abstractmethod
    def dense(self, max_entries=MAX_DENSE_ENTRIES):
        """The ``n x n`` kernel matrix: an explicit request, never made by a solver
        whose mathematics does not need it.

        Parameters
        ----------
        max_entries : int, default=MAX_DENSE_ENTRIES
            Refuse a matrix of more entries.

        Returns
        -------
        ndarray of shape (n, n)
            The represented kernel.
        """

    def _check_dense_size(self, max_entries):
        n = self.n
        if n * n > max_entries:
            raise ValueError(
                f"dense(): the kernel of n = {n} objects has {n * n} entries, more than "
                f"max_entries = {max_entries}; work with the {self.kind} representation "
                "(dot, diagonal, eigenfeatures, rows) instead of the n x n matrix")

    def __repr__(self):
        return f"{type(self).__name__}(n={self.n}, kind={self.kind!r})"


class ExactKernel(KernelRepresentation):
    """The exact ``n x n`` kernel matrix.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Square, finite, symmetric kernel matrix (symmetrized within
        :data:`krein._validation.SYMMETRY_RTOL`), possibly indefinite.

    Attributes
    ----------
    K : ndarray of shape (n, n)
        The matrix.

    Raises
    ------
    ValueError
        Naming ``K``: not square, empty, NaN/inf, or asymmetric.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.representation import ExactKernel
    >>> rep = ExactKernel(np.array([[2.0, 1.0], [1.0, -1.0]]))
    >>> rep.kind, rep.n, rep.diagonal().tolist()
    ('exact', 2, [2.0, -1.0])
    """

    kind = "exact"

    def __init__(self, K):
        self.K = check_square_kernel(K, "K")
        self._eigenfeatures = None

    @property
    def n(self):
        """The number of objects ``n`` (int)."""
        return self.K.shape[0]

    def dot(self, V):
        """Products ``K @ V``.

        Parameters
        ----------
        V : ndarray of shape (n,) or (n, k)
            Vectors.

        Returns
        -------
        ndarray of shape (n,) or (n, k)
            ``K V``.
        """
        return self.K @ V

    def diagonal(self):
        """The diagonal of ``K``.

        Returns
        -------
        ndarray of shape (n,)
            ``K_ii``.
        """
        return np.diag(self.K).copy()

    def eigenfeatures(self):
        """The eigendecomposition of ``K`` (its null space dropped) as signed features.

        ``K = V diag(lam) V'`` (:meth:`krein.spectrum.Spectrum.from_kernel`); the
        eigenvalues with ``|lam| <= n eps max|lam|`` are dropped; ``F = V |lam|^(1/2)``
        and ``M = V diag(sign(lam) |lam|^(-1/2))``: a new object's eigenfeatures are
        its kernel row times ``M`` (the Nyström extension, ``K M = F``).

        Returns
        -------
        Eigenfeatures
            ``(F, lam, M)``.
        """
        if self._eigenfeatures is None:
            spec = Spectrum.from_kernel(self.K, check=False)
            keep = np.abs(spec.eigenvalues) > spec.tol
            lam, V = spec.eigenvalues[keep], spec.eigenvectors[:, keep]
            root = np.sqrt(np.abs(lam))
            self._eigenfeatures = Eigenfeatures(V * root, lam, V * (np.sign(lam) / root))
        return self._eigenfeatures

    def subset(self, idx):
        """``K[idx][:, idx]`` as an :class:`ExactKernel`.

        Parameters
        ----------
        idx : array-like of int of shape (k,)
            Indices of the objects.

        Returns
        -------
        ExactKernel
            The sub-kernel; its rows of new objects are the columns ``idx`` of theirs.
        """
        idx = np.asarray(idx)
        return ExactKernel(self.K[np.ix_(idx, idx)])

    def rows(self, new):
        """The given kernel block of new objects, validated.

        Parameters
        ----------
        new : array-like of shape (n_new, n)
            ``K(new objects, objects)``.

        Returns
        -------
        ndarray of shape (n_new, n)
            The block as float64.

        Raises
        ------
        ValueError
            Naming ``new``: not 2-D, not ``n`` columns, or NaN/inf.
        """
        return check_kernel_rows(new, self.n, "new")

    def to_signed_features(self):
        """The eigenfeatures of ``K`` as :class:`SignedFeatures` (an ``O(n^3)`` eigensolve).

        Returns
        -------
        SignedFeatures
            ``F`` with signs ``sign(lam)`` and eigenvalues ``lam``; its rows of new
            objects are their eigenfeatures, ``K(new, objects) M``.
        """
        eig = self.eigenfeatures()
        return SignedFeatures(eig.features, eig.signs, eigenvalues=eig.eigenvalues)

    def dense(self, max_entries=MAX_DENSE_ENTRIES):
        """The matrix ``K`` itself (already formed: ``max_entries`` is not checked).

        Parameters
        ----------
        max_entries : int, default=MAX_DENSE_ENTRIES
            Unused (``K`` exists).

        Returns
        -------
        ndarray of shape (n, n)
            ``K``.
        """
        return self.K


class SignedFeatures(KernelRepresentation):
    """Signed features: ``K = Z diag(signs) Z'``.

    Parameters
    ----------
    Z : array-like of shape (n, r)
        Features of the objects.
    signs : array-like of shape (r,)
        Signs in {-1, +1}.
    eigenvalues : array-like of shape (r,) or None, default=None
        When the columns of ``Z`` are already the eigendecomposition of the kernel
        (``Z'Z = diag(|eigenvalues|)``, as
        :meth:`krein.approximation.IndefiniteNystroem.fit_transform` returns them):
        its nonzero eigenvalues, ascending, with ``sign(eigenvalues) = signs``;
        :meth:`eigenfeatures` then returns ``Z`` as it is.  None: the
        eigendecomposition is computed from an ``r x r`` problem when asked for.
    check_input : bool, default=True
        Check that ``Z`` is finite (one pass over its ``n r`` entries); skip only for
        features computed by this package.

    Attributes
    ----------
    Z : ndarray of shape (n, r)
        The features.
    signs : ndarray of shape (r,)
        The signs (float).
    eigenvalues : ndarray of shape (r,) or None
        As given.

    Raises
    ------
    ValueError
        Naming the argument: ``Z`` not 2-D or with NaN/inf; ``signs`` not of length
        ``r`` or not in {-1, +1}; ``eigenvalues`` not of length ``r``, zero, or of
        other signs than ``signs``.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.representation import SignedFeatures
    >>> rep = SignedFeatures(np.array([[1.0, 0.0], [1.0, 1.0]]), [1, -1])
    >>> rep.dense().tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """

    kind = "signed-features"

    def __init__(self, Z, signs, *, eigenvalues=None, check_input=True):
        Z = _finite_matrix(Z, "Z") if check_input else np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2:
            raise ValueError(f"Z must be a 2-D array; got shape {Z.shape}")
        signs = np.asarray(signs, dtype=np.float64)
        if signs.shape != (Z.shape[1],):
            raise ValueError(f"signs must have one entry per column of Z ({Z.shape[1]}); got "
                             f"shape {signs.shape}")
        if not np.all(np.abs(signs) == 1.0):
            raise ValueError("signs must be -1 or +1; got values "
                             f"{np.unique(signs[np.abs(signs) != 1.0])[:5].tolist()}")
        if eigenvalues is not None:
            eigenvalues = np.asarray(eigenvalues, dtype=np.float64)
            if eigenvalues.shape != signs.shape:
                raise ValueError(f"eigenvalues must have one entry per column of Z "
                                 f"({Z.shape[1]}); got shape {eigenvalues.shape}")
            if not np.array_equal(np.sign(eigenvalues), signs):
                raise ValueError("eigenvalues must be nonzero with the signs of signs")
        self.Z = Z
        self.signs = signs
        self.eigenvalues = eigenvalues
        self._eigenfeatures = None

    @property
    def n(self):
        """The number of objects ``n`` (int)."""
        return self.Z.shape[0]

    def dot(self, V):
        """Products ``Z diag(s) Z' V``, never forming ``n x n``.

        Parameters
        ----------
        V : ndarray of shape (n,) or (n, k)
            Vectors.

        Returns
        -------
        ndarray of shape (n,) or (n, k)
            ``K V``.
        """
        V = np.asarray(V, dtype=np.float64)
        s = self.signs if V.ndim == 1 else self.signs[:, None]
        return self.Z @ (s * (self.Z.T @ V))

    def diagonal(self):
        """The diagonal ``sum_j s_j Z_ij^2``.

        Returns
        -------
        ndarray of shape (n,)
            ``K_ii``.
        """
        return (self.Z * self.Z) @ self.signs

    def eigenfeatures(self):
        """The exact eigendecomposition of ``Z diag(s) Z'`` from an ``r x r`` problem.

        With ``eigenvalues`` given, ``(Z, eigenvalues, None)``; else
        :func:`signed_refactor` gives ``F = Z T`` and the eigenvalues ``lam``, and
        ``M = diag(s) Z' F |lam|^(-1) diag(sign(lam))`` maps the features of new
        objects to their eigenfeatures (their Nyström extension; ``Z M = F``).

        Returns
        -------
        Eigenfeatures
            ``(F, lam, M)``.
        """
        if self._eigenfeatures is None:
            if self.eigenvalues is not None:
                self._eigenfeatures = Eigenfeatures(self.Z, self.eigenvalues, None)
            else:
                Z, s = self.Z, self.signs
                T, lam = signed_refactor(Z, s)
                F = Z @ T
                # the Nystrom eigenfeatures of a new point: k(x, X) F |lam|^-1 sign(lam)
                # = psi(x) M (equal to F on the training points)
                M = (s[:, None] * (Z.T @ F)) * (np.sign(lam) / np.abs(lam))
                self._eigenfeatures = Eigenfeatures(F, lam, M)
        return self._eigenfeatures

    def subset(self, idx):
        """``Z[idx] diag(s) Z[idx]'`` as :class:`SignedFeatures` (the same features of
        new objects).

        Parameters
        ----------
        idx : array-like of int of shape (k,)
            Indices of the objects.

        Returns
        -------
        SignedFeatures
            The rows ``idx`` of ``Z`` with the same signs (no eigenvalues: the
            sub-kernel has its own spectrum).
        """
        return SignedFeatures(self.Z[np.asarray(idx)], self.signs, check_input=False)

    def rows(self, new):
        """The features ``psi(x)`` of new objects, validated.

        Parameters
        ----------
        new : array-like of shape (n_new, r)
            Their features (``k(x, X) = psi(x) diag(s) Z'``).

        Returns
        -------
        ndarray of shape (n_new, r)
            As float64.

        Raises
        ------
        ValueError
            Naming ``new``: not 2-D, not ``r`` columns, or NaN/inf.
        """
        new = _finite_matrix(new, "new")
        if new.shape[1] != self.Z.shape[1]:
            raise ValueError(f"new must have the r = {self.Z.shape[1]} features of Z as its "
                             f"columns; got shape {new.shape}")
        return new

    def to_signed_features(self):
        """The representation itself.

        Returns
        -------
        SignedFeatures
            ``self``.
        """
        return self

    def dense(self, max_entries=MAX_DENSE_ENTRIES):
        """``Z diag(s) Z'``: the ``n x n`` matrix, refused beyond ``max_entries`` entries.

        Parameters
        ----------
        max_entries : int, default=MAX_DENSE_ENTRIES
            Refuse a matrix of more entries.

        Returns
        -------
        ndarray of shape (n, n)
            The represented kernel.

        Raises
        ------
        ValueError
            When ``n^2 > max_entries``.
        """
        self._check_dense_size(max_entries)
        return (self.Z * self.signs) @ self.Z.T


class LandmarkColumns(KernelRepresentation):
    """Landmark columns: the Nyström approximation ``K ~ C W^+ C'`` of an ``n x m`` block.

    ``C`` holds the kernel between the ``n`` objects and ``m`` landmark objects, and
    the landmarks are the rows ``landmarks`` of ``C`` (``W = C[landmarks]``,
    symmetrized).  The pseudo-inverse drops the eigenvalues of ``W`` of small
    magnitude (:func:`landmark_cutoff`: ``rcond``), and the approximation is
    represented by its exact eigendecomposition as features ``Psi = C T`` with signs
    (:func:`nystroem_normalization`; Oglic & Gärtner 2019): the same numbers as
    ``IndefiniteNystroem(kernel="precomputed", landmarks=landmarks, rcond=rcond,
    random_state=random_state).fit_transform(C)``.  New objects are given by their
    ``m`` columns, ``k(x, landmarks)``, and mapped to ``k(x, landmarks) T``.

    Parameters
    ----------
    C : array-like of shape (n, m)
        Kernel values ``K(objects, landmarks)``, columns in the order of
        ``landmarks``.
    landmarks : array-like of int of shape (m,)
        The distinct rows of ``C`` that are the landmarks.
    rcond : "auto" or float in (0, 1), default="auto"
        Relative cutoff on ``|eig(W)|`` (:func:`landmark_cutoff`; ``"auto"``: chosen
        from ``W`` alone on held-out landmark pairs, every eigenvalue when every
        object is a landmark).
    random_state : int, RandomState instance or None, default=None
        Seed of the held-out splits of ``rcond="auto"``.

    Attributes
    ----------
    C : ndarray of shape (n, m)
        The columns.
    landmarks : ndarray of int of shape (m,) or None
        The landmark rows; None for a sub-representation (:meth:`subset`), whose
        objects need not include the landmarks.
    landmark_block : ndarray of shape (m, m)
        ``W``, symmetrized.
    normalization : ndarray of shape (m, r)
        ``T``: the features of an object are ``k(x, landmarks) T``.
    eigenvalues : ndarray of shape (r,)
        The nonzero eigenvalues of the approximation ``C W^+ C'``, ascending.

    Raises
    ------
    ValueError
        Naming the argument: ``C`` not 2-D or with NaN/inf; ``landmarks`` not distinct
        integer rows of ``C`` in range, one per column; ``C[landmarks]`` not
        symmetric; ``rcond`` not ``"auto"`` or in (0, 1); a zero landmark block.

    Examples
    --------
    >>> import numpy as np
    >>> from krein.representation import LandmarkColumns
    >>> K = np.array([[2.0, 1.0, 0.5], [1.0, -1.0, 0.2], [0.5, 0.2, 1.0]])
    >>> rep = LandmarkColumns(K, np.arange(3))          # every object a landmark
    >>> bool(np.allclose(rep.dense(), K))
    True
    """

    kind = "landmark-columns"

    def __init__(self, C, landmarks, *, rcond="auto", random_state=None):
        C = _finite_matrix(C, "C")
        n, m = C.shape
        if not (isinstance(rcond, str) and rcond == "auto") and not (
                isinstance(rcond, numbers.Real) and not isinstance(rcond, bool)
                and 0.0 < rcond < 1.0):
            raise ValueError(f"rcond must be 'auto' or a number in (0, 1); got {rcond!r}")
        idx = check_landmark_indices(landmarks, n, m_expected=m, columns="C")
        W = check_landmark_block(C[idx], m, "C[landmarks]")
        L, U = np.linalg.eigh(W)
        if float(np.max(np.abs(L))) == 0.0:
            raise ValueError("C[landmarks]: the kernel of the landmarks is zero; no "
                             "features can be formed")
        keep = landmark_cutoff(W, L, rcond, idx.size == n, random_state)
        Ur = U[:, keep] / np.sqrt(np.abs(L[keep]))          # U_r |L_r|^(-1/2), (m, r0)
        S = np.sign(L[keep])
        T, lam = nystroem_normalization(Ur, S, _blocked_gram(C, Ur, _BLOCK_SIZE))
        self.C = C
        self.landmarks = idx
        self.landmark_block = W
        self.normalization = T
        self.eigenvalues = lam
        self._features = SignedFeatures(_blocked_product(C, T, _BLOCK_SIZE), np.sign(lam),
                                        eigenvalues=lam, check_input=False)

    @property
    def n(self):
        """The number of objects ``n`` (int)."""
        return self.C.shape[0]

    def dot(self, V):
        """Products with the approximation, ``Psi diag(s) Psi' V``.

        Parameters
        ----------
        V : ndarray of shape (n,) or (n, k)
            Vectors.

        Returns
        -------
        ndarray of shape (n,) or (n, k)
            ``C W^+ C' V``.
        """
        return self._features.dot(V)

    def diagonal(self):
        """The diagonal of the approximation.

        Returns
        -------
        ndarray of shape (n,)
            ``(C W^+ C')_ii``.
        """
        return self._features.diagonal()

    def eigenfeatures(self):
        """The exact eigendecomposition of the approximation (of its features ``C T``).

        Returns
        -------
        Eigenfeatures
            ``(C T, eigenvalues, None)``; for a sub-representation the refactored
            eigenfeatures with their extension from ``k(x, landmarks) T``.
        """
        return self._features.eigenfeatures()

    def subset(self, idx):
        """The approximation among the objects ``idx``, with the same Nyström map.

        Parameters
        ----------
        idx : array-like of int of shape (k,)
            Indices of the objects.

        Returns
        -------
        LandmarkColumns
            ``C[idx] W^+ C[idx]'``: columns ``C[idx]``, the same landmark block and
            map ``T`` (new objects are still given by their ``m`` columns),
            ``landmarks`` None.
        """
        idx = np.asarray(idx)
        sub = object.__new__(LandmarkColumns)
        sub.C = self.C[idx]
        sub.landmarks = None
        sub.landmark_block = self.landmark_block
        sub.normalization = self.normalization
        sub._features = self._features.subset(idx)
        sub.eigenvalues = sub._features.eigenfeatures().eigenvalues
        return sub

    def rows(self, new):
        """The features of new objects, ``k(x, landmarks) T``.

        Parameters
        ----------
        new : array-like of shape (n_new, m)
            Their kernel values against the landmarks, in the order of the columns
            of ``C``.

        Returns
        -------
        ndarray of shape (n_new, r)
            ``psi(x)``: ``psi(x) diag(s) Psi'`` is the Nyström extension
            ``k(x, landmarks) W^+ C'``.

        Raises
        ------
        ValueError
            Naming ``new``: not 2-D, not ``m`` columns, or NaN/inf.
        """
        new = _finite_matrix(new, "new")
        if new.shape[1] != self.C.shape[1]:
            raise ValueError(f"new must have one column per landmark (m = {self.C.shape[1]}); "
                             f"got shape {new.shape}")
        return _blocked_product(new, self.normalization, _BLOCK_SIZE)

    def to_signed_features(self):
        """The Nyström features ``Psi = C T`` with their signs.

        Returns
        -------
        SignedFeatures
            ``Psi`` (with its eigenvalues unless this is a sub-representation); its
            rows of new objects are their features ``k(x, landmarks) T``.
        """
        return self._features

    def dense(self, max_entries=MAX_DENSE_ENTRIES):
        """``C W^+ C'`` as an ``n x n`` matrix, refused beyond ``max_entries`` entries.

        Parameters
        ----------
        max_entries : int, default=MAX_DENSE_ENTRIES
            Refuse a matrix of more entries.

        Returns
        -------
        ndarray of shape (n, n)
            The approximation.

        Raises
        ------
        ValueError
            When ``n^2 > max_entries``.
        """
        return self._features.dense(max_entries)
