"""TrIK: the Krein-space flip through an LDL' factorization instead of ``eigh``.

Loosli (2019), "TrIK-SVM: an alternative decomposition for kernel methods in Krein
spaces" (ESANN; arXiv 1902.10569): write the indefinite kernel as ``K = L D L'``,
train the stabilized problem on the PSD kernel ``K~ = L |D| L'`` and map its
coefficients back to the Krein space by

    ``c = L^{-T} S L' c~``,  ``S = sign(D)``,

so that ``K c = L D S L' c~ = L |D| L' c~ = K~ c~``: on the training set the Krein
model's decision values are those of the model trained on ``K~`` (the same
identity as ESVM's ``c = V sign(lam) V' c~``, loosli 2013 Alg. 1).  The new
points use the ORIGINAL kernel, ``f(x) = k(x, X) c + b``.

**Which L D L'.**  Loosli's reference code (``gloosli/SimpleSVM``,
``solvers/activeSetSVM.py``, ``preKSVM2``/``postKSVM2``) factors ``K`` by Gaussian
elimination WITHOUT pivoting (a Python loop; it stops at a pivot below ``1e-6``),
which exists only when every leading principal minor of ``K`` is nonzero and is
unstable near a zero one.  krein uses LAPACK's ``?sytrf`` through
:func:`scipy.linalg.ldl` (lower triangle, the rows in the order given): the
Bunch-Kaufman factorization ``K = P' (L_t D L_t') P`` (``lu = P' L_t``), ``D``
block diagonal with 1x1 and 2x2 blocks.  ``|D|`` and ``sign(D)`` are the matrix
absolute value and sign of each block (the eigen-flip of a 2x2 block), so
``D sign(D) = |D|`` still holds blockwise and ``K c = K~ c~`` is exact.  This is
"the" TrIK model wherever the paper's factorization is defined and stable:

* Bunch-Kaufman takes a 1x1 pivot without interchange whenever
  ``|a_kk| >= 0.64 max_i |a_ik|`` in the current Schur complement; if that holds at
  every step (e.g. kernels with a dominant unit diagonal) krein's ``L``, ``D`` ARE
  the unpivoted ones of the reference code, and so is ``K~``;
* otherwise the unpivoted factorization is undefined or unstable, and
  Bunch-Kaufman is its backward-stable replacement: ``K~`` is then a different PSD
  kernel (``L|D|L'`` depends on the pivoting, unlike ``V|lam|V'``), but it keeps
  every property the paper uses: PSD, ``K~ = K`` on a PSD ``K`` (a PSD Schur
  complement never takes a 2x2 pivot, whose determinant is negative, and its 1x1
  pivots are ``>= 0``), ``K c = K~ c~`` and the inertia of ``D`` equal to the
  signature of ``K`` (Sylvester's law of inertia).

``benchmarks/trik.py`` runs the reference code beside krein and prints where they
agree.  Cost: ``sytrf`` is ``n^3 / 3`` flops against about ``4 n^3`` for a full
``eigh``; ``K~`` is formed from the side of ``D`` with fewer negative (or positive)
directions, ``K~ = K - 2 L D_- L'``, in ``O(n^2 q)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

__all__ = ["LDLFlip"]


@dataclass(frozen=True)
class LDLFlip:
    """The TrIK pieces of one kernel: ``K = lu D lu'`` and its flip ``K~ = lu |D| lu'``.

    Build it with :meth:`from_kernel`.

    Parameters
    ----------
    lu : ndarray of shape (n, n)
        The factor of :func:`scipy.linalg.ldl`: ``lu[perm]`` is unit lower
        triangular.
    perm : ndarray of shape (n,)
        Row permutation making ``lu[perm]`` triangular.
    pivots : ndarray of shape (n,)
        The eigenvalues of ``D`` block by block (a 1x1 block's pivot, a 2x2 block's
        two eigenvalues, ascending).
    vectors : ndarray of shape (n, 2)
        For position ``k``: the eigenvector of its block, in the block's coordinates
        (``(1, 0)`` for a 1x1 block).
    start : ndarray of shape (n,)
        First index of the block of each position.
    tol : float
        Pivots with ``|d| <= tol`` count as zero (``sign = 0``), as
        :attr:`krein.spectrum.Spectrum.tol`: ``n eps max|d|``.

    References
    ----------
    G. Loosli (2019), "TrIK-SVM", arXiv 1902.10569 (and her preKSVM2 / postKSVM2);
    Bunch & Kaufman (1977),
    LAPACK ``?sytrf``.
    """

    lu: np.ndarray
    perm: np.ndarray
    pivots: np.ndarray
    vectors: np.ndarray
    start: np.ndarray
    tol: float

    @classmethod
    def from_kernel(cls, K):
        """Factor a symmetric ``K`` by Bunch-Kaufman (:func:`scipy.linalg.ldl`).

        Parameters
        ----------
        K : ndarray of shape (n, n)
            Symmetric kernel matrix (any signature; only its lower triangle is read).

        Returns
        -------
        LDLFlip

        Raises
        ------
        ValueError
            If ``K`` is not square or has a non-finite entry.
        """
        K = np.asarray(K, dtype=float)
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square matrix; got shape {K.shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError("K must contain only finite numbers")
        n = K.shape[0]
        lu, d, perm = scipy.linalg.ldl(K, lower=True, hermitian=True, check_finite=False)
        off = np.abs(np.diagonal(d, -1)) > 0          # d[k+1, k] != 0: a 2x2 block at k
        first = np.flatnonzero(off)
        start = np.arange(n)
        start[first + 1] = first
        pivots = np.diagonal(d).copy()
        vectors = np.zeros((n, 2))
        vectors[:, 0] = 1.0
        if first.size:
            blocks = np.empty((first.size, 2, 2))
            blocks[:, 0, 0] = d[first, first]
            blocks[:, 1, 1] = d[first + 1, first + 1]
            blocks[:, 0, 1] = blocks[:, 1, 0] = d[first + 1, first]
            mu, W = np.linalg.eigh(blocks)               # vectorized over the 2x2 blocks
            pivots[first], pivots[first + 1] = mu[:, 0], mu[:, 1]
            vectors[first], vectors[first + 1] = W[:, :, 0], W[:, :, 1]
        tol = float(n * np.finfo(float).eps * np.max(np.abs(pivots), initial=0.0))
        return cls(lu, np.asarray(perm), pivots, vectors, start, tol)

    @property
    def n_blocks_2x2(self):
        """Number of 2x2 blocks of ``D`` (0 when Bunch-Kaufman took only 1x1 pivots)."""
        return int(np.count_nonzero(self.start != np.arange(self.start.size)))

    @property
    def signature(self):
        """``(p, q, z)``: pivots ``> tol``, ``< -tol`` and the rest (the inertia of ``D``,
        which is that of ``K`` by Sylvester's law of inertia)."""
        d = self.pivots
        p = int(np.count_nonzero(d > self.tol))
        q = int(np.count_nonzero(d < -self.tol))
        return p, q, d.size - p - q

    def directions(self, mask=None):
        """``lu`` times the block eigenvectors: ``K = U diag(pivots) U'`` with ``U`` these.

        Parameters
        ----------
        mask : ndarray of bool of shape (n,), optional
            Columns to return (all by default).

        Returns
        -------
        ndarray of shape (n, mask.sum())
            Column ``k``: ``lu[:, start_k] v_k0 + lu[:, start_k + 1] v_k1`` (``lu[:, k]``
            for a 1x1 block).
        """
        idx = np.arange(self.pivots.size) if mask is None else np.flatnonzero(mask)
        s = self.start[idx]
        U = self.lu[:, s] * self.vectors[idx, 0]
        two = self.vectors[idx, 1] != 0
        if np.any(two):
            U[:, two] += self.lu[:, s[two] + 1] * self.vectors[idx[two], 1]
        return U

    def flipped_kernel(self, K):
        """``K~ = lu |D| lu'``, from the cheaper side of ``D``.

        ``K + 2 U_- |d_-| U_-'`` when at most half the pivots are negative, else
        ``2 U_+ d_+ U_+' - K`` (``U`` of :meth:`directions`): ``O(n^2 q)``.

        Parameters
        ----------
        K : ndarray of shape (n, n)
            The kernel that was factored.

        Returns
        -------
        ndarray of shape (n, n)
            The PSD kernel of the TrIK stabilization problem.
        """
        d = self.pivots
        neg = d < -self.tol
        if 2 * np.count_nonzero(neg) <= d.size:
            U = self.directions(neg)
            return (U * (-2.0 * d[neg])) @ U.T + K
        pos = ~neg
        U = self.directions(pos)
        return (U * (2.0 * d[pos])) @ U.T - K

    def factor(self):
        """A thin factor ``F`` with ``F F' = lu |D| lu'`` (the columns of nonzero pivots).

        Returns
        -------
        ndarray of shape (n, r)
            ``U diag(sqrt|d|)`` over the pivots beyond ``tol``.
        """
        keep = np.abs(self.pivots) > self.tol
        return self.directions(keep) * np.sqrt(np.abs(self.pivots[keep]))

    def krein_coefficients(self, u):
        """Map coefficients on ``K~`` back to the Krein space: ``c = lu^{-T} S lu' u``.

        ``S = sign(D)`` block by block (0 on the pivots within ``tol``); two
        triangular solves, ``O(n^2)``.

        Parameters
        ----------
        u : ndarray of shape (n,)
            Coefficients ``c~`` of the model trained on ``K~`` (``y * alpha~`` for
            the SVM, ``alpha+ - alpha-`` for the SVR).

        Returns
        -------
        ndarray of shape (n,)
            ``c`` with ``K c = K~ u`` (exact up to round-off; Loosli 2019, postKSVM2).
        """
        u = np.asarray(u, dtype=float)
        z = self.lu.T @ u                                  # lu' u
        sign = np.sign(self.pivots)
        sign[np.abs(self.pivots) <= self.tol] = 0.0
        # S z blockwise: S_b = W_b diag(sign) W_b'; in block coordinates
        s = self.start
        n = z.size
        two = s != np.arange(n)                             # second rows of 2x2 blocks
        first = s[two]
        proj = self.vectors[:, 0] * z[s]                    # v_k' z_block per position k
        nxt = np.minimum(s + 1, n - 1)
        has2 = np.zeros(n, dtype=bool)
        has2[first] = True
        has2[first + 1] = True
        proj = proj + np.where(has2, self.vectors[:, 1] * z[nxt], 0.0)
        w = sign * proj                                     # diag(sign) W' z
        Sz = np.where(has2, 0.0, w)                         # 1x1 blocks: sign * z
        if first.size:
            # rows start and start+1 of each 2x2 block: W w
            Sz[first] = self.vectors[first, 0] * w[first] + self.vectors[first + 1, 0] * w[first + 1]
            Sz[first + 1] = (self.vectors[first, 1] * w[first]
                             + self.vectors[first + 1, 1] * w[first + 1])
        Lt = self.lu[self.perm]                             # unit lower triangular
        cp = scipy.linalg.solve_triangular(Lt.T, Sz, lower=False, unit_diagonal=True,
                                           check_finite=False)
        c = np.empty(n)
        c[self.perm] = cp                                   # lu' = Lt' P: lu' c = Lt' c[perm]
        return c
