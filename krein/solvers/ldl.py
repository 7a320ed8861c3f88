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

**Which L D L'.**  Loosli's TrIK-SVM factors ``K`` by Gaussian elimination WITHOUT
pivoting (her reference code ``gloosli/SimpleSVM``, ``solvers/activeSetSVM.py``,
``lunopiv``/``preKSVM2``/``postKSVM2``): ``L`` unit lower triangular, ``D``
diagonal, the pivots the ratios of consecutive leading principal minors.  This is
what ``pivoting="none"`` (the default) computes, by a blocked left-looking (Crout)
elimination whose panels are BLAS-3 products (:func:`ldl_unpivoted`).  The
unpivoted factorization exists when no leading principal minor vanishes, and is
unstable near one; ``L|D|L'`` depends on the pivot order (unlike ``V|lam|V'``), so
another pivoting gives another PSD kernel and another classifier.  Two cases are
handled as follows:

* a zero pivot (``|d_k| <= sqrt(eps) max|K|``) whose whole column of the current
  Schur complement is as small (a rank-deficient ``K``, e.g. a PSD kernel of rank
  ``r < n``, or one whose spectrum decays to round-off): ``d_k = 0`` and ``L``'s
  column ``k`` is the unit vector, exact within that tolerance;
* a small pivot with a larger column (the factorization does not exist, or its
  multipliers would grow beyond ``1 / sqrt(eps)``), or a
  factorization whose backward error on two seeded random vectors exceeds
  ``sqrt(eps)`` relative (catastrophic growth): the Bunch-Kaufman factorization
  below is used instead, with a :class:`LDLPivotingWarning` saying so, and
  ``pivoting`` records it.

``pivoting="bunch-kaufman"`` (``ESVC(decomposition="ldl-pivoted")``) is LAPACK's
``?sytrf`` through :func:`scipy.linalg.ldl` (lower triangle, the rows in the order
given): ``K = P' (L_t D L_t') P`` (``lu = P' L_t``), ``D`` block diagonal with 1x1
and 2x2 blocks.  ``|D|`` and ``sign(D)`` are the matrix absolute value and sign of
each block (the eigen-flip of a 2x2 block), so ``D sign(D) = |D|`` still holds
blockwise and ``K c = K~ c~`` is exact.  It coincides with the unpivoted one when
Bunch-Kaufman takes a 1x1 pivot without interchange at every step
(``|a_kk| >= 0.64 max_i |a_ik|`` in the current Schur complement).  Both keep every
property the paper uses: PSD, ``K~ = K`` on a PSD ``K``, ``K c = K~ c~`` and the
inertia of ``D`` equal to the signature of ``K`` (Sylvester's law of inertia).

``benchmarks/trik.py`` runs the reference code beside krein and prints where they
agree.  Cost: either factorization is ``n^3 / 3`` flops against about ``4 n^3`` for a
full ``eigh``; ``K~`` is formed from the side of ``D`` with fewer negative (or positive)
directions, ``K~ = K - 2 L D_- L'``, in ``O(n^2 q)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import warnings

import numpy as np
import scipy.linalg

__all__ = ["LDLFlip", "LDLPivotingWarning", "ldl_unpivoted", "PIVOTING"]

#: Values of ``pivoting``: Loosli's elimination without pivoting, or Bunch-Kaufman.
PIVOTING = ("none", "bunch-kaufman")


class LDLPivotingWarning(UserWarning):
    """The unpivoted ``L D L'`` does not exist or is unstable: Bunch-Kaufman was used."""


def ldl_unpivoted(K, block=64):
    """The unpivoted ``K = L D L'`` (Gaussian elimination without pivoting), or None.

    A blocked left-looking (Crout) elimination: each panel of ``block`` columns
    is the current Schur complement ``K[j0:, j0:j1] - L[j0:, :j0] D L[j0:j1, :j0]'``
    (one matrix product), factored column by column.  A pivot with ``|d_k| <=
    sqrt(eps) max|K|`` whose Schur-complement column is as small is a zero pivot
    (``d_k = 0``, column ``k`` of ``L`` the unit vector: a numerically
    rank-deficient ``K``, the column dropped within that tolerance); with a larger
    column the factorization does not exist (or is unstable: the multipliers would
    exceed ``1 / sqrt(eps)`` of ``K``'s scale).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric matrix (only its lower triangle is read).
    block : int, default 64
        Columns per panel.

    Returns
    -------
    (L, d) or None
        ``L`` of shape (n, n) unit lower triangular and the pivots ``d`` of shape
        (n,), with ``K = L diag(d) L'`` up to round-off; None when a zero pivot
        has a larger column (the factorization does not exist or is unstable).

    References
    ----------
    G. Loosli (2019), "TrIK-SVM", arXiv 1902.10569 (``lunopiv`` of her code);
    G. H. Golub & C. F. Van Loan, *Matrix Computations*, 4th ed., Alg. 4.1.2.
    """
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    Kl = np.tril(K)
    Kl = Kl + np.tril(Kl, -1).T                       # symmetric from the lower triangle
    tol = float(np.sqrt(np.finfo(float).eps) * np.max(np.abs(Kl), initial=0.0))
    L = np.zeros((n, n))
    d = np.zeros(n)
    for j0 in range(0, n, block):
        j1 = min(j0 + block, n)
        P = Kl[j0:, j0:j1] - L[j0:, :j0] @ (d[:j0, None] * L[j0:j1, :j0].T)
        for c in range(j1 - j0):
            k = j0 + c
            piv = P[c, c]
            col = P[c + 1:, c]
            L[k, k] = 1.0
            if abs(piv) <= tol:
                if col.size and np.max(np.abs(col)) > tol:
                    return None
                continue                              # an exact zero pivot: d_k = 0
            d[k] = piv
            L[k + 1:, k] = col / piv
            if c + 1 < j1 - j0:
                P[c + 1:, c + 1:] -= np.outer(L[k + 1:, k], piv * L[k + 1:j1, k])
    return L, d


def _backward_error(K, L, d):
    """``max_i |K x - L d L' x|_inf / (|K|_inf |x|_inf)`` over two seeded random vectors."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((K.shape[0], 2))
    R = K @ X - L @ (d[:, None] * (L.T @ X))
    norm = max(float(np.abs(K).sum(axis=1).max()), np.finfo(float).tiny)
    return float(np.abs(R).max() / (norm * np.abs(X).max()))


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
    pivoting : {"none", "bunch-kaufman"}, default "bunch-kaufman"
        The factorization computed: Loosli's unpivoted elimination (``perm`` the
        identity, every block 1x1) or Bunch-Kaufman.

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
    pivoting: str = "bunch-kaufman"

    @classmethod
    def from_kernel(cls, K, pivoting="none"):
        """Factor a symmetric ``K`` as ``L D L'``: unpivoted (Loosli) or Bunch-Kaufman.

        Parameters
        ----------
        K : ndarray of shape (n, n)
            Symmetric kernel matrix (any signature; only its lower triangle is read).
        pivoting : {"none", "bunch-kaufman"}, default "none"
            ``"none"``: :func:`ldl_unpivoted` (TrIK-SVM as Loosli 2019 defines
            it), replaced by Bunch-Kaufman with a :class:`LDLPivotingWarning`
            where it does not exist or its backward error exceeds ``sqrt(eps)``
            (module docstring); ``"bunch-kaufman"``: :func:`scipy.linalg.ldl`.

        Returns
        -------
        LDLFlip
            Its ``pivoting`` says which factorization was computed.

        Raises
        ------
        ValueError
            If ``K`` is not square, has a non-finite entry, or ``pivoting`` is
            not one of :data:`PIVOTING`.
        """
        K = np.asarray(K, dtype=float)
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square matrix; got shape {K.shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError("K must contain only finite numbers")
        if pivoting not in PIVOTING:
            raise ValueError(f"pivoting must be one of {list(PIVOTING)}; got {pivoting!r}")
        n = K.shape[0]
        if pivoting == "none":
            fac = ldl_unpivoted(K)
            why = ("a pivot below sqrt(eps) max|K| with a larger column: a vanishing leading "
                   "principal minor or multipliers beyond 1 / sqrt(eps)")
            if fac is not None:
                err = _backward_error(np.tril(K) + np.tril(K, -1).T, *fac)
                why = f"its backward error {err:.1e} exceeds sqrt(eps) (pivot growth)"
                if err <= np.sqrt(np.finfo(float).eps):
                    L, d = fac
                    tol = float(n * np.finfo(float).eps * np.max(np.abs(d), initial=0.0))
                    vectors = np.zeros((n, 2))
                    vectors[:, 0] = 1.0
                    return cls(L, np.arange(n), d, vectors, np.arange(n), tol, "none")
            warnings.warn(f"the unpivoted L D L' of K does not exist or is unstable ({why}); "
                          "the Bunch-Kaufman factorization is used instead (another PSD "
                          "kernel L|D|L' than Loosli's TrIK-SVM)", LDLPivotingWarning,
                          stacklevel=2)
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
        return cls(lu, np.asarray(perm), pivots, vectors, start, tol, "bunch-kaufman")

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
