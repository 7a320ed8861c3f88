"""Pseudo-Euclidean geometry of indefinite kernels (Haasdonk 2005).

A symmetric kernel ``k`` induces the squared "distance"
``d^2(x, x') = k(x, x) + k(x', x') - 2 k(x, x')`` (Haasdonk eq. 1), which can be
negative.  Proposition 1: the points embed isometrically in a pseudo-Euclidean
space ``R^(p,q)`` whose inner product is ``<u, v> = u' M v`` with the reflection
``M = diag(I_p, -I_q)``; the embedding is read off the centered kernel
``J K J = -1/2 J D2 J``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_binary_labels, check_square_kernel
from .kernels import centering_matrix
from .spectrum import Spectrum

__all__ = [
    "PseudoEuclideanEmbedding",
    "pseudo_euclidean_embedding",
    "squared_distances_from_kernel",
    "class_mean_distance",
]


@dataclass(frozen=True)
class PseudoEuclideanEmbedding:
    """Centered isometric embedding in ``R^(p,q)`` (Haasdonk Prop. 1).

    Attributes
    ----------
    coordinates : ndarray of shape (n, p + q)
        Rows are the embedded points; the first ``p`` columns are the "real"
        (positive) directions, the last ``q`` the "imaginary" (negative) ones.
    p, q : int
        Signature.
    eigenvalues : ndarray of shape (p + q,)
        Non-zero eigenvalues of the centered kernel, in the column order.
    """

    coordinates: np.ndarray
    p: int
    q: int
    eigenvalues: np.ndarray

    @property
    def signature(self):
        """``(p, q)``."""
        return self.p, self.q

    @property
    def reflection(self):
        """``M = diag(I_p, -I_q)``, shape (p + q, p + q)."""
        return np.diag(np.r_[np.ones(self.p), -np.ones(self.q)])

    def inner(self, A=None, B=None):
        """pE inner products ``A M B'`` (default all embedded points), shape (len(A), len(B))."""
        A = self.coordinates if A is None else np.asarray(A, dtype=float)
        B = A if B is None else np.asarray(B, dtype=float)
        s = np.r_[np.ones(self.p), -np.ones(self.q)]
        return (A * s) @ B.T

    def squared_distances(self):
        """pE squared distances ``(x_i - x_j)' M (x_i - x_j)``, shape (n, n)."""
        G = self.inner()
        d = np.diag(G)
        return d[:, None] + d[None, :] - 2.0 * G


def squared_distances_from_kernel(K):
    """Squared distances ``d2_ij = K_ii + K_jj - 2 K_ij`` induced by a kernel (Haasdonk eq. 1).

    Parameters
    ----------
    K : array of shape (n, n)

    Returns
    -------
    D2 : ndarray of shape (n, n)
        Symmetric with zero diagonal; negative entries are possible.
    """
    K = check_square_kernel(K)
    d = np.diag(K)
    return d[:, None] + d[None, :] - 2.0 * K


def pseudo_euclidean_embedding(K=None, *, D2=None, tol=None):
    """Centered pseudo-Euclidean embedding of a kernel or of squared distances.

    Exactly one of ``K`` and ``D2`` is given.  The centered kernel is
    ``Kc = J K J`` or ``Kc = -1/2 J D2 J`` (the same matrix when ``D2`` is induced
    by ``K``); with ``Kc = V diag(lam) V'`` the coordinates are
    ``V_(p+q) |lam|^(1/2)`` (Haasdonk Prop. 1, proof in the appendix), so that
    ``X M X' = Kc`` and pE squared distances reproduce ``D2``.

    Parameters
    ----------
    K : array of shape (n, n), optional
        Symmetric kernel matrix.
    D2 : array of shape (n, n), optional
        Symmetric squared dissimilarities with zero diagonal (pass ``D * D`` for
        a dissimilarity ``D``).
    tol : float, optional
        Eigenvalues with ``|lam| <= tol`` are dropped.  Default
        ``10 n eps ||A||_F`` with ``A`` the given ``K`` (or ``D2 / 2``): the
        round-off of forming ``J A J`` scales with ``A``, not with the centered
        matrix, which can be much smaller (e.g. all points nearly coinciding).

    Returns
    -------
    PseudoEuclideanEmbedding

    Raises
    ------
    ValueError
        If both or neither of ``K`` and ``D2`` are given, or on a bad matrix
        (non-square, NaN/inf, asymmetric, ``D2`` with non-zero diagonal).
    """
    if (K is None) == (D2 is None):
        raise ValueError("give exactly one of K (kernel matrix) and D2 (squared dissimilarities)")
    if K is not None:
        K = check_square_kernel(K, "K")
        n = K.shape[0]
        J = centering_matrix(n)
        Kc = J @ K @ J
        scale = np.linalg.norm(K)
    else:
        D2 = check_square_kernel(D2, "D2")
        if np.max(np.abs(np.diag(D2))) > 1e-12 * max(1.0, np.max(np.abs(D2))):
            raise ValueError("D2 must have a zero diagonal (squared dissimilarity of a point to itself)")
        n = D2.shape[0]
        J = centering_matrix(n)
        Kc = -0.5 * (J @ D2 @ J)
        scale = 0.5 * np.linalg.norm(D2)
    Kc = 0.5 * (Kc + Kc.T)
    if tol is None:
        tol = 10.0 * n * np.finfo(float).eps * scale
    spec = Spectrum.from_kernel(Kc, tol=tol, check=False)
    lam, V = spec.eigenvalues, spec.eigenvectors
    pos = np.flatnonzero(lam > spec.tol)[::-1]
    neg = np.flatnonzero(lam < -spec.tol)
    idx = np.r_[pos, neg]
    coords = V[:, idx] * np.sqrt(np.abs(lam[idx]))
    return PseudoEuclideanEmbedding(coords, int(pos.size), int(neg.size), lam[idx])


def class_mean_distance(K, y):
    """Squared pE distance of the class means, ``c' K c`` ("DCM", Haasdonk §7.3).

    ``c_i = 1/n_+`` for ``y_i = +1`` and ``-1/n_-`` otherwise.  A negative value
    means every convex-hull/SVM solution has ``w'Mw < 0`` (Haasdonk §7.3).

    Parameters
    ----------
    K : array of shape (n, n)
        Kernel matrix (centering is not needed: ``c' 1 = 0``).
    y : array of shape (n,)
        Two-class labels; the larger label plays ``+1`` (the value is symmetric).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``y`` does not have exactly two classes or its length differs from ``K``.
    """
    K = check_square_kernel(K)
    y = np.asarray(y)
    if y.shape != (K.shape[0],):
        raise ValueError(f"y must have shape ({K.shape[0]},); got {y.shape}")
    _, y_pm = check_binary_labels(y)
    c = np.where(y_pm > 0, 1.0 / np.sum(y_pm > 0), -1.0 / np.sum(y_pm < 0))
    return float(c @ K @ c)
