"""Pseudo-Euclidean geometry of indefinite kernels (Haasdonk 2005).

A symmetric kernel ``k`` induces the squared "distance"
``d^2(x, x') = k(x, x) + k(x', x') - 2 k(x, x')`` (Haasdonk eq. 1), which can be
negative.  Proposition 1: the points embed isometrically in a pseudo-Euclidean
space ``R^(p,q)`` whose inner product is ``<u, v> = u' M v`` with the reflection
``M = diag(I_p, -I_q)``; the embedding is read off the centered kernel
``J K J = -1/2 J D2 J``, and the kernel is recovered up to a function of one
argument (eq. 3)::

    k(x_i, x_j) = Phi(x_i)' M Phi(x_j) + h(x_i) + h(x_j).

On top of the embedding this module computes Haasdonk's suitability criteria
for an SVM with an indefinite kernel:

* before training (§7.3, :func:`suitability_before`): negated-cpd kernels, the
  number of negative eigenvalues, the squared distance of the class means
  (DCM, :func:`class_mean_distance`);
* after training (§7.4, :func:`suitability_after`): the sign and value of
  ``w'Mw`` (:func:`pe_squared_norm`) and the bounded support vectors as a bound on
  the training error (Prop. 2).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._validation import check_binary_labels, check_kernel_rows, check_positive, check_square_kernel
from .spectrum import Spectrum

__all__ = [
    "PseudoEuclideanEmbedding",
    "pseudo_euclidean_embedding",
    "squared_distances_from_kernel",
    "class_mean_distance",
    "pe_squared_norm",
    "suitability_before",
    "suitability_after",
    "suitability_report",
]


@dataclass(frozen=True)
class PseudoEuclideanEmbedding:
    """Centered isometric embedding in ``R^(p,q)`` (Haasdonk Prop. 1 and eq. 3).

    Build it with :func:`pseudo_euclidean_embedding`.  Write ``A`` for the
    matrix the embedding was computed from: ``A = K`` (a kernel) or
    ``A = -D2 / 2`` (squared distances).  With ``J = I - 1 1'/n`` and
    ``J A J = V diag(lam) V'`` the coordinates are ``Phi = V |lam|^(1/2)``, so
    ``Phi M Phi' = J A J`` and, with ``h`` below, ``Phi M Phi' + h 1' + 1 h'``
    is the kernel (eq. 3).

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    coordinates : ndarray of shape (n, p + q)
        Rows are the embedded points ``Phi(x_i)``; the first ``p`` columns are the
        "real" (positive) directions, the last ``q`` the "imaginary" (negative)
        ones.  The columns have mean zero (centered embedding).
    p, q : int
        Signature.
    eigenvalues : ndarray of shape (p + q,)
        Non-zero eigenvalues of the centered kernel, in the column order.
    h : ndarray of shape (n,) or None
        The function ``h`` of eq. 3 on the training points: the kernel is
        ``Phi M Phi' + h 1' + 1 h'``.  For a kernel ``K``,
        ``h = K 1/n - (1'K1 / (2 n^2)) 1``.  For squared distances, the kernel
        is only defined up to ``h'`` (eq. 3, first line: ``k = -d2/2 + h'(x) +
        h'(x')``); ``h'(x) = k(x, x)/2`` when the kernel diagonal is given
        (``kernel_diagonal``) and ``h' = 0`` otherwise, i.e. the kernel
        ``k = -d2/2`` of Haasdonk §7.1.  None when the embedding was built by hand.
    source : {"kernel", "distances"} or None
        What the embedding was computed from; decides what :meth:`transform` and
        :meth:`offsets` take as rows.
    column_means : ndarray of shape (n,) or None
        Column means ``A' 1 / n`` (needed to center new rows).
    grand_mean : float or None
        ``1' A 1 / n^2``.
    has_diagonal : bool
        True when a distance embedding was given ``kernel_diagonal``.
    """

    coordinates: np.ndarray
    p: int
    q: int
    eigenvalues: np.ndarray
    h: np.ndarray | None = None
    source: str | None = None
    column_means: np.ndarray | None = None
    grand_mean: float | None = None
    has_diagonal: bool = False

    @property
    def n(self):
        """Number of embedded training points."""
        return int(self.coordinates.shape[0])

    @property
    def signature(self):
        """``(p, q)``."""
        return self.p, self.q

    @property
    def reflection(self):
        """``M = diag(I_p, -I_q)``, shape (p + q, p + q) (Haasdonk §3.2)."""
        return np.diag(np.r_[np.ones(self.p), -np.ones(self.q)])

    def inner(self, A=None, B=None):
        """Pseudo-Euclidean inner products ``A M B'`` of embedded points (Haasdonk eq. 2).

        Parameters
        ----------
        A : array-like of shape (m_a, p + q), optional
            Embedded points (rows), e.g. from :meth:`transform`; default the
            training coordinates.
        B : array-like of shape (m_b, p + q), optional
            Embedded points; default ``A``.

        Returns
        -------
        G : ndarray of shape (m_a, m_b)
            ``G[i, j] = A[i]' M B[j]`` with ``M = diag(I_p, -I_q)``.
        """
        A = self.coordinates if A is None else np.asarray(A, dtype=float)
        B = A if B is None else np.asarray(B, dtype=float)
        s = np.r_[np.ones(self.p), -np.ones(self.q)]
        return (A * s) @ B.T

    def squared_distances(self):
        """Pseudo-Euclidean squared distances of the embedded training points (Haasdonk eq. 2).

        Returns
        -------
        D2 : ndarray of shape (n, n)
            ``D2[i, j] = (x_i - x_j)' M (x_i - x_j)``; symmetric, zero diagonal,
            negative entries possible.
        """
        G = self.inner()
        d = np.diag(G)
        return d[:, None] + d[None, :] - 2.0 * G

    def kernel(self):
        """The kernel rebuilt by eq. 3: ``Phi M Phi' + h 1' + 1 h'``, shape (n, n).

        Equals the given ``K`` (kernel embedding), or ``-D2/2 + h' 1' + 1 h'``
        with ``h' = kernel_diagonal / 2`` (distance embedding), up to the
        eigenvalues dropped below the tolerance.

        Returns
        -------
        K : ndarray of shape (n, n)
            The rebuilt kernel of the training points.

        Raises
        ------
        ValueError
            If the embedding has no ``h`` (built by hand).
        """
        self._require_source("kernel()")
        return self.inner() + self.h[:, None] + self.h[None, :]

    # ------------------------------------------------------------ new points
    def _require_source(self, what):
        if self.source is None:
            raise ValueError(f"{what} needs an embedding built by pseudo_euclidean_embedding "
                             "(this one has no h / column means)")

    def _centered_rows(self, rows, name):
        rows = check_kernel_rows(rows, self.n, name)
        A = rows if self.source == "kernel" else -0.5 * rows
        return A, A - A.mean(axis=1, keepdims=True) - self.column_means[None, :] + self.grand_mean

    def transform(self, rows):
        """Out-of-sample embedding of new points from their rows.

        The row of a new point is centered like the training matrix,
        ``a~(x)_j = a(x)_j - mean_l a(x)_l - mean_l A_lj + mean(A)``, and
        projected on the eigenvectors: ``Phi(x) = a~(x) V |lam|^(-1/2) M``, i.e.
        ``Phi(x)_r = a~(x) . Phi_r / lam_r`` (the usual kernel-PCA/Gower map).
        On a training row this returns that point's coordinates exactly, and
        ``Phi(x)' M Phi(x_j)`` is the projection of ``a~(x)`` on the retained
        eigenvectors (all of ``a~(x)`` when it lies in their span, e.g. for a
        kernel of finite rank, or a point already in the training set).

        Parameters
        ----------
        rows : array of shape (m, n)
            Kernel rows ``k(x, X)`` for an embedding of a kernel, squared
            distance rows ``d2(x, X)`` for an embedding of distances.

        Returns
        -------
        coordinates : ndarray of shape (m, p + q)
            The embedded new points, in the column order of :attr:`coordinates`.

        Raises
        ------
        ValueError
            If ``rows`` is not ``(m, n)``, has NaN/inf, or the embedding was built by hand.
        """
        self._require_source("transform")
        _, centered = self._centered_rows(rows, "rows")
        return centered @ self.coordinates / self.eigenvalues[None, :]

    def offsets(self, rows, kernel_diagonal=None):
        """The function ``h`` of eq. 3 at new points.

        ``h(x) = mean_l a(x)_l - mean(A) / 2 + h'(x)`` with ``a(x)`` the kernel
        row (``h' = 0``) or ``-d2(x, X)/2`` (``h'(x) = k(x, x)/2`` from
        ``kernel_diagonal``, or 0).  Then
        ``k(x, x_j) = Phi(x)' M Phi(x_j) + h(x) + h(x_j)`` whenever the centered
        row lies in the span of the embedding (see :meth:`transform`), and the
        same holds between two new points ``x, x'`` when the kernel's centered
        feature map has finite rank (e.g. a bilinear form).

        Parameters
        ----------
        rows : array of shape (m, n)
            As in :meth:`transform`.
        kernel_diagonal : array of shape (m,), optional
            ``k(x, x)`` of the new points; only for an embedding of distances,
            and required when the embedding itself was given ``kernel_diagonal``.

        Returns
        -------
        h : ndarray of shape (m,)
            ``h(x)`` of eq. 3 at each new point.

        Raises
        ------
        ValueError
            On bad ``rows``, a ``kernel_diagonal`` for a kernel embedding, a
            missing one for a distance embedding built with a diagonal, or a
            wrong shape.
        """
        self._require_source("offsets")
        A, _ = self._centered_rows(rows, "rows")
        h = A.mean(axis=1) - 0.5 * self.grand_mean
        if self.source == "kernel":
            if kernel_diagonal is not None:
                raise ValueError("kernel_diagonal is only for an embedding of distances: the kernel "
                                 "rows already fix h")
            return h
        if kernel_diagonal is None:
            if self.has_diagonal:
                raise ValueError("kernel_diagonal (k(x, x) of the new points, shape (m,)) is required: "
                                 "the embedding was built with kernel_diagonal")
            return h
        if not self.has_diagonal:
            raise ValueError("kernel_diagonal given for new points but the embedding was built without "
                             "one (h' = 0, kernel -d2/2); rebuild it with kernel_diagonal")
        diag = _check_vector(kernel_diagonal, "kernel_diagonal", A.shape[0])
        return h + 0.5 * diag


def _check_vector(v, name, n):
    v = np.asarray(v, dtype=float)
    if v.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},); got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or inf")
    return v


def squared_distances_from_kernel(K):
    """Squared distances ``d2_ij = K_ii + K_jj - 2 K_ij`` induced by a kernel (Haasdonk eq. 1).

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (possibly indefinite).

    Returns
    -------
    D2 : ndarray of shape (n, n)
        Symmetric with zero diagonal; negative entries are possible.

    Raises
    ------
    ValueError
        If ``K`` is not square, has NaN/inf or is not symmetric.
    """
    K = check_square_kernel(K)
    d = np.diag(K)
    return d[:, None] + d[None, :] - 2.0 * K


def pseudo_euclidean_embedding(K=None, *, D2=None, tol=None, kernel_diagonal=None):
    """Centered pseudo-Euclidean embedding of a kernel or of squared distances.

    Exactly one of ``K`` and ``D2`` is given.  The centered kernel is
    ``Kc = J K J`` or ``Kc = -1/2 J D2 J`` (the same matrix when ``D2`` is induced
    by ``K``); with ``Kc = V diag(lam) V'`` the coordinates are
    ``V_(p+q) |lam|^(1/2)`` (Haasdonk Prop. 1, proof in the appendix), so that
    ``X M X' = Kc`` and pE squared distances reproduce ``D2`` (eq. 2).  The
    returned object also carries ``h`` of eq. 3 (the kernel is
    ``X M X' + h 1' + 1 h'``) and what is needed to embed new points
    (:meth:`PseudoEuclideanEmbedding.transform`).

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
    kernel_diagonal : array of shape (n,), optional
        Only with ``D2``: the values ``k(x_i, x_i)`` of the kernel that induced
        ``D2`` (eq. 1).  A distance determines the kernel only up to ``h'`` in
        ``k = -d2/2 + h'(x) + h'(x')`` (eq. 3); with ``h' = diag/2`` the kernel
        is recovered exactly.  Default: ``h' = 0``, the kernel ``-d2/2``.

    Returns
    -------
    embedding : PseudoEuclideanEmbedding
        Coordinates ``(n, p + q)``, signature ``(p, q)``, eigenvalues, ``h`` and
        the means needed for :meth:`~PseudoEuclideanEmbedding.transform`.

    Raises
    ------
    ValueError
        If both or neither of ``K`` and ``D2`` are given, on a bad matrix
        (non-square, NaN/inf, asymmetric, ``D2`` with non-zero diagonal), or a
        ``kernel_diagonal`` with ``K`` or of the wrong shape.
    """
    if (K is None) == (D2 is None):
        raise ValueError("give exactly one of K (kernel matrix) and D2 (squared dissimilarities)")
    if K is not None:
        if kernel_diagonal is not None:
            raise ValueError("kernel_diagonal is only for D2 (the diagonal of K is already given)")
        K = check_square_kernel(K, "K")
        A = K
        scale = np.linalg.norm(K)
    else:
        D2 = check_square_kernel(D2, "D2")
        if np.max(np.abs(np.diag(D2))) > 1e-12 * max(1.0, np.max(np.abs(D2))):
            raise ValueError("D2 must have a zero diagonal (squared dissimilarity of a point to itself)")
        A = -0.5 * D2
        scale = 0.5 * np.linalg.norm(D2)
    n = A.shape[0]
    # J A J without the two dense n^3 products: subtract row and column means, add the grand mean
    col = A.mean(axis=0)
    Kc = A - col[None, :] - A.mean(axis=1)[:, None] + col.mean()
    Kc = 0.5 * (Kc + Kc.T)
    if tol is None:
        tol = 10.0 * n * np.finfo(float).eps * scale
    spec = Spectrum.from_kernel(Kc, tol=tol, check=False)
    lam = spec.eigenvalues
    pos = np.flatnonzero(lam > spec.tol)[::-1]
    neg = np.flatnonzero(lam < -spec.tol)
    idx = np.r_[pos, neg]
    coords = spec.signed_factor(idx)
    col_means = A.mean(axis=0)
    grand = float(col_means.mean())
    # A = Kc + g 1' + 1 g' with g = A 1/n - mean(A)/2 (expand J A J).
    h = col_means - 0.5 * grand
    if kernel_diagonal is not None:
        h = h + 0.5 * _check_vector(kernel_diagonal, "kernel_diagonal", n)
    return PseudoEuclideanEmbedding(coords, int(pos.size), int(neg.size), lam[idx], h,
                                    "kernel" if K is not None else "distances", col_means, grand,
                                    kernel_diagonal is not None)


def _check_labels(y, n):
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},); got {y.shape}")
    return check_binary_labels(y)


def class_mean_distance(K, y):
    """Squared pE distance of the class means, ``c' K c`` ("DCM", Haasdonk §7.3).

    ``c_i = 1/n_+`` for ``y_i = +1`` and ``-1/n_-`` otherwise, so
    ``c'Kc = ||m+ - m-||^2_pE`` for the class means ``m+-`` of the embedding
    (``c'1 = 0``, see :func:`pe_squared_norm`).  The means lie in every reduced
    convex hull an SVM solution corresponds to, so the DCM bounds ``w'Mw`` of
    the globally optimal CH solution from above; a negative value means that
    solution has ``w'Mw < 0``.  Haasdonk §7.3 says "every CH/SVM classifier";
    that needs the global optimum (a local solution of the non-convex problem
    can lie above the means' value).  See :func:`suitability_before`.

    Parameters
    ----------
    K : array of shape (n, n)
        Kernel matrix (centering is not needed: ``c' 1 = 0``).
    y : array of shape (n,)
        Two-class labels; the larger label plays ``+1`` (the value is symmetric).

    Returns
    -------
    dcm : float
        ``c' K c``, the squared pE distance of the two class means (may be negative).

    Raises
    ------
    ValueError
        If ``y`` does not have exactly two classes or its length differs from ``K``.
    """
    K = check_square_kernel(K)
    _, y_pm = _check_labels(y, K.shape[0])
    c = np.where(y_pm > 0, 1.0 / np.sum(y_pm > 0), -1.0 / np.sum(y_pm < 0))
    return float(c @ K @ c)


def pe_squared_norm(K, c, *, D2=None):
    """``w'Mw`` for ``w = sum_i c_i Phi(x_i)`` in the centered embedding (Haasdonk §7.4).

    With ``Phi`` the centered embedding of Prop. 1, ``Phi M Phi' = J K J``, so
    ``w'Mw = c' J K J c = c~' K c~`` with ``c~ = c - mean(c)``.  By eq. 3
    (``K = Phi M Phi' + h 1' + 1 h'``) this is ``c'Kc - 2 (1'c)(h'c)``: it equals
    Haasdonk's ``c'Kc`` exactly when ``sum_i c_i = 0``, which holds for SVM dual
    coefficients ``c = y * alpha`` (constraint ``y'alpha = 0`` of SVM-DU) and for
    the class-mean vector of the DCM.  When ``sum c != 0`` the vector ``w``
    depends on where the origin of the embedding is put; the centered embedding
    is used (the one :func:`pseudo_euclidean_embedding` returns).

    For squared distances ``D2`` the same vector gives ``-1/2 c~' D2 c~``.

    Parameters
    ----------
    K : array of shape (n, n) or None
        Kernel matrix; None when ``D2`` is given.
    c : array of shape (n,)
        Expansion coefficients, e.g. ``y * alpha`` on all training points (zeros
        off the support), or scikit-learn's ``dual_coef_`` scattered to length n.
    D2 : array of shape (n, n), optional
        Squared distances instead of ``K``.

    Returns
    -------
    float
        ``w'Mw``; may be negative.  The CH normal of Haasdonk §7.4 is
        ``(2 / sum alpha)^2`` times this.

    Raises
    ------
    ValueError
        If both or neither of ``K`` and ``D2`` are given, on a bad matrix, or if
        ``c`` has the wrong shape or NaN/inf.
    """
    if (K is None) == (D2 is None):
        raise ValueError("give exactly one of K (kernel matrix) and D2 (squared dissimilarities)")
    if K is not None:
        A = check_square_kernel(K, "K")
    else:
        A = -0.5 * check_square_kernel(D2, "D2")
    c = _check_vector(c, "c", A.shape[0])
    cc = c - c.mean()
    return float(cc @ A @ cc)


def suitability_before(K, y=None, *, tol=None):
    """Haasdonk's suitability criteria of an indefinite kernel before SVM training (§7.3).

    All spectral quantities are those of the centered kernel ``J K J``, the
    Gram matrix of the pE embedding (Prop. 1, ``p + q < n``); Haasdonk's
    experiments (§7.5, Table 1) report these.  ``J K J`` restricted to
    ``1-perp`` is a compression of ``K``, so by Cauchy interlacing its number of
    negative eigenvalues is that of ``K`` or one less (``q_kernel`` below).

    Criteria (keys of the returned dict):

    * ``negated_cpd`` -- "Negated cpd kernels": ``-K`` is conditionally
      positive definite (``v'Kv <= 0`` for every ``v`` with ``1'v = 0``,
      i.e. ``J K J <= 0``, ``p = 0``).  Then ``M`` "has only negative entries"
      and ``w'Mw <= 0`` for every labelling and every ``alpha``: the kernel is an
      inadequate choice for an SVM independently of the data labels (Haasdonk's
      examples: ``-<x, x'>``, ``-exp(-gamma ||x - x'||^2)``, and any ``k`` whose
      negative is cpd, e.g. ``||x - x'||^2``).  Our remark, not the paper's: the
      objective of SVM-DU is then convex on its feasible set, so its maximum
      lies at a vertex of the polytope ``{0 <= alpha <= C, y'alpha = 0}``.
    * ``cpd`` -- ``K`` itself is cpd (``J K J >= 0``, ``q = 0``): the embedding is
      Euclidean, SVM-DU is convex, the classical interpretation applies
      (§3.1, §3.2; "for cpd kernels this resulting space will be Euclidean").
    * ``q``, ``negative_share`` -- "Number of negative eigenvalues": a rough
      criterion; more negative eigenvalues make ``w'Mw <= 0`` more likely.  The
      share of ``sum |lam|`` carried by the negative ones is added as a measure
      of their weight (cf. Table 1 discussion: proteins "slightly", cat-cortex
      "strongly" indefinite).
    * ``dcm`` -- "Squared distance of class means" ``||m+ - m-||^2_pE = c'Kc``
      (:func:`class_mean_distance`).  The means lie in every reduced convex
      hull reachable from an SVM solution (``mu = 2C / sum alpha >= 1/n_+-``),
      so the DCM bounds ``w'Mw`` of the *globally* optimal CH solution from
      above: DCM < 0 means that solution has ``w'Mw < 0``.  Haasdonk writes
      "every CH/SVM classifier"; for a merely stationary point of a non-convex
      SVM-DU (what libsvm returns) the bound is not guaranteed.  With
      ``n_+ = n_-`` and DCM > 0 some solution with ``w'Mw > 0`` exists for
      small enough ``mu`` or ``C``.
    * ``unsuitable`` -- ``negated_cpd`` or ``dcm <= 0`` (only ``negated_cpd``
      without labels): the conditions under which Haasdonk predicts
      ``w'Mw <= 0`` before training.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric kernel matrix.
    y : array of shape (n,), optional
        Two-class labels (the larger label plays +1).  Without labels the
        label-dependent entries are None.
    tol : float, optional
        Zero tolerance of the eigenvalues of ``J K J``; default as
        :func:`pseudo_euclidean_embedding` (``10 n eps ||K||_F``).  The same
        tolerance counts the negative eigenvalues of ``K`` (``q_kernel``).

    Returns
    -------
    dict
        ``n``, ``p``, ``q``, ``z`` (``n - p - q``, at least 1: the constant
        vector), ``q_kernel``, ``negative_share`` (in [0, 1]),
        ``min_eigenvalue``, ``max_eigenvalue`` (of ``J K J``, 0.0 if none
        retained), ``cpd``, ``negated_cpd``, ``tol``, and with labels ``n_plus``,
        ``n_minus``, ``balanced``, ``dcm``; ``unsuitable``.

    Raises
    ------
    ValueError
        On a bad ``K``, or ``y`` without exactly two classes or of the wrong length.
    """
    K = check_square_kernel(K, "K")
    n = K.shape[0]
    emb = pseudo_euclidean_embedding(K, tol=tol)
    lam = emb.eigenvalues
    total = float(np.abs(lam).sum())
    thr = float(10.0 * n * np.finfo(float).eps * np.linalg.norm(K)) if tol is None else float(tol)
    lam_k = np.linalg.eigvalsh(K)
    out = {
        "n": n,
        "p": emb.p,
        "q": emb.q,
        "z": n - emb.p - emb.q,
        "q_kernel": int(np.sum(lam_k < -thr)),
        "negative_share": 0.0 if total == 0 else float(-lam[emb.p:].sum()) / total,
        "min_eigenvalue": float(lam.min()) if lam.size else 0.0,
        "max_eigenvalue": float(lam.max()) if lam.size else 0.0,
        "cpd": emb.q == 0,
        "negated_cpd": emb.p == 0,
        "tol": thr,
        "n_plus": None,
        "n_minus": None,
        "balanced": None,
        "dcm": None,
    }
    if y is not None:
        _, y_pm = _check_labels(y, n)
        out["n_plus"], out["n_minus"] = int(np.sum(y_pm > 0)), int(np.sum(y_pm < 0))
        out["balanced"] = out["n_plus"] == out["n_minus"]
        out["dcm"] = class_mean_distance(K, y)
    out["unsuitable"] = bool(out["negated_cpd"] or (out["dcm"] is not None and out["dcm"] <= 0))
    return out


def suitability_after(K, y, dual_coef, support, intercept, C, *, bound_rtol=1e-8):
    """Haasdonk's suitability criteria of a trained SVM (§7.4, Prop. 2, Prop. 3).

    The SVM is ``f(x) = sum_i c_i k(x_i, x) + b`` with ``c = y * alpha`` a
    (stationary) point of SVM-DU, as returned by libsvm (scikit-learn's ``SVC``
    with ``kernel="precomputed"``: ``dual_coef_``, ``support_``, ``intercept_``).

    Criteria (keys of the returned dict):

    * ``wMw`` -- ``w'Mw`` of the SVM primal normal ``w = sum_i alpha_i y_i
      Phi(x_i)`` (Prop. 2, eq. 9), ``= c'Kc`` (:func:`pe_squared_norm`);
      ``wMw_ch = (2 / sum alpha)^2 wMw`` is the squared norm of the CH normal
      ``w = z+ - z-`` (§7.4 formula, Prop. 3 scaling; Table 1 lists this one).
      "Sign of w'Mw": a suitable solution needs ``w'Mw > 0``; otherwise the SVM
      acts as a counter-intuitive CH classifier.  ``margin = 2 / sqrt(wMw)``
      when positive (remark after Prop. 2), else NaN.  ``mu = 2C / sum alpha``
      is the reduction of the equivalent CH problem (Prop. 3).
    * ``n_bounded`` -- "Bound on the training error": at a stationary point
      (Prop. 2) every point with ``alpha_i < C`` satisfies ``y_i f(x_i) >= 1``,
      so only bounded support vectors (``alpha_i = C``) can be misclassified and
      ``n_bounded / n`` bounds the training error rate.  ``n_errors`` (points
      with ``y_i f(x_i) <= 0``; a tie counts as an error) is the actual count
      for comparison, ``n_errors_unbounded`` those among ``alpha_i < C`` (0 at a
      stationary point), ``bound_holds`` is ``n_errors <= n_bounded``.
    * ``kkt_violation`` -- how far ``(alpha, b)`` is from a stationary point of
      SVM-DU (the premise of Prop. 2): the largest of ``1 - y_i f_i`` over
      ``alpha_i = 0``, ``|1 - y_i f_i|`` over ``0 < alpha_i < C`` and
      ``y_i f_i - 1`` over ``alpha_i = C`` (0 when none is violated); of the
      order of libsvm's ``tol`` for a converged fit.

    Parameters
    ----------
    K : array of shape (n, n)
        The training kernel the SVM was fitted on.
    y : array of shape (n,)
        Two-class labels; the larger label plays +1 (scikit-learn: a positive
        decision value predicts ``classes_[1]``).
    dual_coef : array of shape (n_SV,) or (1, n_SV)
        ``c_i = y_i alpha_i`` on the support vectors.
    support : array of int, shape (n_SV,)
        Indices of the support vectors in ``0..n-1``.
    intercept : float or array of shape (1,)
        ``b``.
    C : float > 0
        The box bound of SVM-DU.
    bound_rtol : float
        ``alpha_i >= C (1 - bound_rtol)`` counts as bounded (libsvm sets bounded
        coefficients exactly to ``C``).

    Returns
    -------
    dict
        ``n``, ``C``, ``n_support``, ``n_bounded``, ``bounded_share``,
        ``n_errors``, ``error_rate``, ``n_errors_unbounded``, ``bound_holds``,
        ``sum_alpha``, ``sum_dual_coef`` (``y'alpha``, 0 at a feasible point),
        ``wMw``, ``wMw_ch``, ``ch_scale``, ``mu``, ``wMw_positive``, ``margin``,
        ``kkt_violation``, ``decision`` (ndarray of shape (n,): ``f(x_i)``).

    Raises
    ------
    ValueError
        On a bad ``K`` or ``y``; ``dual_coef``/``support`` of different lengths,
        out-of-range or repeated indices; ``C <= 0``; a non-finite intercept; or
        ``alpha = y * dual_coef`` outside ``[0, C]`` (wrong sign convention or C).
    """
    K = check_square_kernel(K, "K")
    n = K.shape[0]
    _, y_pm = _check_labels(y, n)
    C = check_positive(C, "C")
    coef = np.asarray(dual_coef, dtype=float)
    if coef.ndim == 2 and coef.shape[0] == 1:
        coef = coef[0]
    if coef.ndim != 1:
        raise ValueError(f"dual_coef must have shape (n_SV,) or (1, n_SV); got {np.shape(dual_coef)}")
    if not np.all(np.isfinite(coef)):
        raise ValueError("dual_coef contains NaN or inf")
    sup = np.asarray(support)
    if sup.shape != coef.shape or (sup.size and not np.issubdtype(sup.dtype, np.integer)):
        raise ValueError(f"support must be integer indices of shape {coef.shape} (like dual_coef); "
                         f"got shape {sup.shape}, dtype {sup.dtype}")
    if sup.size and (sup.min() < 0 or sup.max() >= n or np.unique(sup).size != sup.size):
        raise ValueError(f"support must hold distinct indices in 0..{n - 1}")
    b = np.asarray(intercept, dtype=float)
    if b.size != 1 or not np.isfinite(b).all():
        raise ValueError(f"intercept must be one finite number; got {intercept!r}")
    b = float(b.ravel()[0])
    if not isinstance(bound_rtol, numbers.Real) or not 0 <= bound_rtol < 1:
        raise ValueError(f"bound_rtol must be a number in [0, 1); got {bound_rtol!r}")

    c = np.zeros(n)
    c[sup] = coef
    alpha = y_pm * c
    slack = 1e-8 * C
    if np.any(alpha < -slack) or np.any(alpha > C + slack):
        raise ValueError(f"alpha = y * dual_coef must lie in [0, C={C:g}]; got range "
                         f"[{alpha.min():.4g}, {alpha.max():.4g}] (dual_coef must be y_i alpha_i "
                         "with y = +1 for the larger label, as scikit-learn's SVC; check C)")
    alpha = np.clip(alpha, 0.0, C)
    bounded = alpha >= C * (1.0 - bound_rtol)
    free = (alpha > 0) & ~bounded
    f = K[:, sup] @ coef + b
    yf = y_pm * f
    err = yf <= 0
    viol = np.zeros(n)
    viol[alpha == 0] = np.maximum(0.0, 1.0 - yf[alpha == 0])
    viol[free] = np.abs(1.0 - yf[free])
    viol[bounded] = np.maximum(0.0, yf[bounded] - 1.0)
    wMw = pe_squared_norm(K, c)
    s = float(alpha.sum())
    scale = (2.0 / s) ** 2 if s > 0 else float("nan")
    return {
        "n": n,
        "C": C,
        "n_support": int(np.sum(alpha > 0)),
        "n_bounded": int(bounded.sum()),
        "bounded_share": float(bounded.sum()) / n,
        "n_errors": int(err.sum()),
        "error_rate": float(err.sum()) / n,
        "n_errors_unbounded": int(np.sum(err & ~bounded)),
        "bound_holds": bool(err.sum() <= bounded.sum()),
        "sum_alpha": s,
        "sum_dual_coef": float(c.sum()),
        "wMw": wMw,
        "wMw_ch": scale * wMw,
        "ch_scale": scale,
        "mu": 2.0 * C / s if s > 0 else float("inf"),
        "wMw_positive": bool(wMw > 0),
        "margin": float(2.0 / np.sqrt(wMw)) if wMw > 0 else float("nan"),
        "kkt_violation": float(viol.max()) if n else 0.0,
        "decision": f,
    }


def _yes_no(flag):
    return "yes" if flag else "no"


def suitability_report(K, y, C=1.0, svm=None):
    """Haasdonk (2005) suitability criteria as tables of criterion, value and meaning.

    Before training: :func:`suitability_before` (§7.3); after training:
    :func:`suitability_after` (§7.4) of a libsvm ``SVC(kernel="precomputed",
    C=C)`` fitted on ``K`` -- the stationary point of SVM-DU that Haasdonk
    interprets (§5, Prop. 2).  Labels with more than two classes get the
    label-free criteria only.  ``krein diagnose`` prints it.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric (indefinite) kernel matrix.
    y : array of shape (n,)
        Labels.
    C : float > 0
        Box bound of the SVM fitted for the after-training criteria.
    svm : fitted sklearn.svm.SVC, optional
        That SVM, fitted on ``K`` and the labels as class indices 0/1 (the caller
        fits it with :func:`krein.solvers.libsvm.libsvm_svc`: libsvm is called
        from the solver layer only); needed for two classes.

    Returns
    -------
    list of (str, list of dict)
        Sections ``(title, rows)``; each row has the keys ``criterion``,
        ``value`` (text) and ``meaning``.  The second section has no rows
        for more than two classes (its title says why).

    Raises
    ------
    ValueError
        For two classes without ``svm``.
    """

    binary = np.unique(y).size == 2
    b = suitability_before(K, y if binary else None)
    title = ("Haasdonk (2005) suitability criteria, pseudo-Euclidean (pE) geometry of the kernel\n"
             "before training (§7.3), on the centered kernel J K J = Gram matrix of the pE "
             "embedding (Prop. 1):")
    rows = [
        {"criterion": "pE signature (p, q), z = n - p - q",
         "value": f"({b['p']}, {b['q']}), z = {b['z']}",
         "meaning": f"embedding in R^(p,q), Prop. 1 (|lambda| <= {b['tol']:.2g} counts as zero)"},
        {"criterion": "negative eigenvalues: J K J (K)",
         "value": f"{b['q']} ({b['q_kernel']})",
         "meaning": "rough criterion: more make w'Mw <= 0 more likely"},
        {"criterion": "their share of sum|lambda| (J K J)",
         "value": f"{100 * b['negative_share']:.3g} %",
         "meaning": "small: slightly indefinite; large: strongly indefinite (§7.5)"},
        {"criterion": "K conditionally PD (J K J >= 0)",
         "value": _yes_no(b["cpd"]),
         "meaning": "yes: Euclidean embedding, SVM-DU convex, classical SVM geometry"},
        {"criterion": "-K conditionally PD (J K J <= 0)",
         "value": _yes_no(b["negated_cpd"]),
         "meaning": "yes: w'Mw <= 0 for all labels and alpha -> unsuitable kernel"},
    ]
    if binary:
        rows.append({"criterion": "DCM = ||m+ - m-||^2_pE = c'Kc",
                     "value": f"{b['dcm']:.4g}",
                     "meaning": ("> 0: a solution with w'Mw > 0 can exist" if b["dcm"] > 0 else
                                 "<= 0: the optimal CH/SVM solution has w'Mw <= 0")
                     + "; bounds w'Mw of the global CH optimum"})
    rows.append({"criterion": "verdict before training",
                 "value": "unsuitable" if b["unsuitable"] else "not ruled out",
                 "meaning": ("-K cpd or DCM <= 0" if b["unsuitable"] else
                             "neither -K cpd nor DCM <= 0" if binary else
                             "-K not cpd (DCM needs two classes)")})
    sections = [(title, rows)]
    if not binary:
        sections.append((f"after training: not computed for {np.unique(y).size} classes "
                         "(use --binary)", []))
        return sections

    classes, y_idx = np.unique(y, return_inverse=True)
    if svm is None:
        raise ValueError("suitability_report: two classes need svm, an SVC fitted on K "
                         "(krein.solvers.libsvm.libsvm_svc(K, y_idx, C))")
    model = svm
    a = suitability_after(K, y_idx, model.dual_coef_, model.support_, model.intercept_, C)
    n = a["n"]
    title = (f"after training (§7.4): libsvm SVC(kernel=\"precomputed\", C={C:g}) on K, a "
             "stationary point of SVM-DU (Prop. 2); +1 = class "
             f"{classes.tolist()[1]}:")
    margin = f"{a['margin']:.4g}" if a["wMw_positive"] else "-"
    rows = [
        {"criterion": "w'Mw = c'Kc (SVM normal, eq. 9)",
         "value": f"{a['wMw']:.4g}",
         "meaning": ("> 0: suitable solution" if a["wMw_positive"] else
                     "<= 0: acts as a counter-intuitive CH classifier; try a smaller C")},
        {"criterion": "w'Mw of the CH normal (2/sum alpha)^2 c'Kc",
         "value": f"{a['wMw_ch']:.4g}",
         "meaning": f"Table 1 column; CH reduction mu = 2C/sum alpha = {a['mu']:.3g}"},
        {"criterion": "margin 2 / sqrt(w'Mw)",
         "value": margin,
         "meaning": "defined when w'Mw > 0 (remark after Prop. 2)"},
        {"criterion": "support vectors, bounded (alpha = C)",
         "value": f"{a['n_support']}, {a['n_bounded']}",
         "meaning": f"{100 * a['bounded_share']:.3g} % of n = {n} bounded"},
        {"criterion": "training errors <= bounded SVs",
         "value": f"{a['n_errors']} <= {a['n_bounded']}",
         "meaning": (f"error rate {100 * a['error_rate']:.3g} % <= bound "
                     f"{100 * a['bounded_share']:.3g} % ({'holds' if a['bound_holds'] else 'FAILS'})")},
        {"criterion": "errors among alpha < C",
         "value": str(a["n_errors_unbounded"]),
         "meaning": "0 at a stationary point (Prop. 2)"},
        {"criterion": "stationarity (KKT) violation",
         "value": f"{a['kkt_violation']:.2g}",
         "meaning": "max over i of the SVM-DU KKT residual in y_i f(x_i); libsvm tol 1e-3"},
    ]
    sections.append((title, rows))
    return sections
