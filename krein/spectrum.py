"""One eigendecomposition, reused: signature, indefiniteness measures and spectrum corrections.

Symbols follow Munoz & de Diego (2006, "munoz") and Loosli, Ong & Canu (2013,
"loosli"): ``K = V diag(lam) V'``, ``p``/``q`` positive/negative eigenvalues.

Spectrum corrections (the parameter ``correction`` everywhere; each ``g`` maps the
eigenvalues, the corrected kernel is ``V diag(g(lam)) V'``):

================  ==========================================  =========================
correction        g(lam)                                      source
================  ==========================================  =========================
``clip``          ``max(lam, 0)`` ("Trunc", "denoise")         loosli §6.1.1; munoz (1)
``mds``           ``lam if lam > eps else 0``                  munoz eq. (1)
``flip``          ``|lam|`` ("Abs")                            loosli §6.1.1; munoz (4)
``pseudo``        ``|lam| if |lam| >= eps else 0``             munoz eq. (4)
``shift``         ``lam - min(lam_min, 0)``  ("Shift")         loosli §6.1.1
``add_diagonal``  ``lam + lambda``                             munoz eq. (6)
``square``        ``lam**2``                                   munoz eq. (7)
================  ==========================================  =========================

Out-of-sample maps for new kernel rows ``k(x, X)`` (shape ``(m, n)``):

* ``"spectral"``: ``k(x, X) V diag(h) V'`` with ``h = g(lam) / lam`` on the
  non-null eigenvalues.  This is munoz eq. (3) for clip/mds (``h`` = indicator),
  eq. (5) for flip/pseudo (``h = sign``) and eq. (7) for square (``h = lam``, i.e.
  ``k(x, X) K``).  It reproduces the corrected training kernel on training rows
  (exactly for clip/flip/mds/pseudo/square; for shift/add_diagonal when ``K`` has
  no eigenvalue within the null tolerance, since ``h`` has ``1/lam`` there).
* ``"raw"``: the rows unchanged, as the heuristics of loosli Table 2 were
  evaluated.  For shift/add_diagonal this is the exact map of the kernel
  ``k(x, z) + lambda * [x == z]`` on new points (the added diagonal only touches
  pairs of identical points).
* ``"transductive"``: decompose the joint train+test kernel, correct it with the
  same correction, and read off the test-vs-train block (:func:`transductive_rows`).
* ``"auto"``: ``"raw"`` for shift/add_diagonal, ``"spectral"`` otherwise.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._cache import shared_computations_active, shared_eigh
from ._fitting import fit_wrapper
from ._memory import check_dense
from ._threads import loop_threads
from ._vocabulary import declared
from ._validation import check_kernel_rows, check_square_kernel

__all__ = [
    "Spectrum",
    "null_tolerance",
    "spectral_factor",
    "SpectrumCorrection",
    "correct_eigenvalues",
    "transductive_rows",
    "check_correction",
    "row_multipliers",
    "TRANSFORMS",
    "OUT_OF_SAMPLE",
]

#: The spectrum corrections (``correction``): every one of :mod:`krein._vocabulary`.
TRANSFORMS = declared("correction")
#: The out-of-sample maps of :class:`SpectrumCorrection` (``out_of_sample``).
OUT_OF_SAMPLE = declared("out_of_sample", "auto", "spectral", "raw", "transductive")

# Below this size a partial decomposition is done by a full eigh (faster than ARPACK).
_FULL_EIGH_BELOW = 300
# Above this size the memory of a full eigh (two more n x n arrays) is checked before it runs.
_CHECKED_EIGH_SIZE = 2048


def null_tolerance(eigenvalues, n):
    """The tolerance below which an eigenvalue is numerically zero (numpy's ``matrix_rank``).

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,)
        Eigenvalues of a symmetric matrix of side ``n`` (all of them, or the largest
        in magnitude among them).
    n : int
        Side of the matrix.

    Returns
    -------
    float
        ``n eps max |lam|`` (0 for no eigenvalues): ``|lam| <= tol`` counts as zero.
    """
    if eigenvalues.size == 0:
        return 0.0
    return float(n * np.finfo(float).eps * np.max(np.abs(eigenvalues)))


def correct_eigenvalues(eigenvalues, correction, *, eps=0.0, shift=None):
    """Apply a spectrum correction ``g`` to eigenvalues.

    Parameters
    ----------
    eigenvalues : array-like of shape (k,)
        Eigenvalues ``lam`` of a symmetric kernel matrix (any order).
    correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}
        See the module docstring for each ``g``.
    eps : float >= 0
        Threshold for ``mds`` (keep ``lam > eps``) and ``pseudo`` (keep
        ``|lam| >= eps``); munoz §2.1-2.2.
    shift : float, optional
        The constant ``lambda`` added by ``add_diagonal`` (munoz eq. 6). Default
        ``max(0, -lam_min)``, the smallest that makes the result PSD.
        For ``shift`` it is always ``max(0, -lam_min)`` (loosli §6.1.1).

    Returns
    -------
    g : ndarray of shape (k,)
        Corrected eigenvalues, all >= 0 except ``add_diagonal`` with a too-small
        user ``shift``.

    Raises
    ------
    ValueError
        For an unknown ``correction`` or a negative ``eps``.
    """
    lam = np.asarray(eigenvalues, dtype=float)
    if not isinstance(eps, numbers.Real) or eps < 0 or not np.isfinite(eps):
        raise ValueError(f"eps must be a finite number >= 0; got {eps!r}")
    if correction == "clip":
        return np.maximum(lam, 0.0)
    if correction == "mds":
        return np.where(lam > eps, lam, 0.0)
    if correction == "flip":
        return np.abs(lam)
    if correction == "pseudo":
        return np.where(np.abs(lam) >= eps, np.abs(lam), 0.0)
    if correction == "shift":
        return lam + max(0.0, -float(lam.min(initial=0.0)))
    if correction == "add_diagonal":
        if shift is None:
            shift = max(0.0, -float(lam.min(initial=0.0)))
        if not isinstance(shift, numbers.Real) or not np.isfinite(shift):
            raise ValueError(f"shift must be a finite number; got {shift!r}")
        return lam + float(shift)
    if correction == "square":
        return lam**2
    raise ValueError(f"unknown spectrum correction {correction!r}; accepted: {list(TRANSFORMS)}")


def check_correction(correction, out_of_sample="auto"):
    """Validate a spectrum correction and out-of-sample map; return the resolved map.

    Parameters
    ----------
    correction : str
        One of :data:`TRANSFORMS`.
    out_of_sample : str
        One of :data:`OUT_OF_SAMPLE`; ``"auto"`` resolves to ``"raw"`` for
        shift/add_diagonal and ``"spectral"`` otherwise (module docstring).

    Returns
    -------
    str
        The map actually used.

    Raises
    ------
    ValueError
        For an unknown correction or map.
    """
    if correction not in TRANSFORMS:
        raise ValueError(f"correction must be one of {list(TRANSFORMS)}; got {correction!r}")
    if out_of_sample not in OUT_OF_SAMPLE:
        raise ValueError(f"out_of_sample must be one of {list(OUT_OF_SAMPLE)}; got {out_of_sample!r}")
    if out_of_sample != "auto":
        return out_of_sample
    return "raw" if correction in ("shift", "add_diagonal") else "spectral"


def row_multipliers(lam, g_lam, correction, null_tol):
    """``h`` of the spectral out-of-sample map ``k(x, X) V diag(h) V'``.

    ``h = g(lam) / lam`` on eigenvalues beyond ``null_tol`` (0 on the others);
    for ``square`` ``h = lam`` (munoz eq. 7, ``k(x, X) K``).  This gives munoz
    eq. (3) for clip/mds and eq. (5) for flip/pseudo.

    Parameters
    ----------
    lam : ndarray of shape (k,)
        Eigenvalues of the training kernel.
    g_lam : ndarray of shape (k,)
        Corrected eigenvalues ``g(lam)`` (:func:`correct_eigenvalues`).
    correction : str
        The correction from :data:`TRANSFORMS` (only ``"square"`` is special).
    null_tol : float >= 0
        Eigenvalues with ``|lam| <= null_tol`` get ``h = 0``.

    Returns
    -------
    h : ndarray of shape (k,)
        The multipliers of the eigenvectors in the out-of-sample map.
    """
    if correction == "square":
        return lam.copy()
    h = np.zeros_like(lam)
    nz = np.abs(lam) > null_tol
    h[nz] = g_lam[nz] / lam[nz]
    return h


def spectral_factor(eigenvectors, values, keep):
    """The factor ``F = V[:, keep] diag(values[keep])^(1/2)`` of ``V diag(values) V'``.

    The one place krein turns an eigendecomposition into a factor: ``F F' =
    V diag(values) V'`` when ``values`` is zero off ``keep`` (the PSD factor of a
    corrected spectrum ``g``, :meth:`Spectrum.psd_factor`), and with ``values =
    |lam|`` the pseudo-Euclidean coordinates, ``F diag(s) F' = K`` with the signs
    ``s`` of the kept eigenvalues (:meth:`Spectrum.signed_factor`).

    Parameters
    ----------
    eigenvectors : ndarray of shape (n, k)
        ``V`` (or some of its rows).
    values : ndarray of shape (k,)
        Non-negative on ``keep``: the eigenvalues, corrected eigenvalues ``g`` or
        ``|lam|``.
    keep : ndarray of bool of shape (k,) or of int
        The columns kept (a mask, or indices in the order wanted).

    Returns
    -------
    F : ndarray of shape (n, r)
        ``V[:, keep] * sqrt(values[keep])``, ``r`` the number of kept columns.
    """
    return eigenvectors[:, keep] * np.sqrt(values[keep])


@dataclass(frozen=True)
class Spectrum:
    """Eigendecomposition of a symmetric kernel matrix, computed once and reused.

    Build it with :meth:`from_kernel`.  Eigenvalues are stored in ascending order
    (as ``numpy.linalg.eigh`` returns them); a partial decomposition keeps only the
    ``k`` components of largest ``|lam|``.

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,)
        Ascending.
    eigenvectors : ndarray of shape (n, k)
        Orthonormal columns.
    n : int
        Size of the kernel matrix.
    partial : bool
        True when ``k < n`` components were kept.
    total_abs : float or None
        ``sum |lam|`` over the full spectrum when known (full decomposition),
        else an upper bound (see :meth:`from_kernel`).
    tol : float
        Eigenvalues with ``|lam| <= tol`` count as zero in :attr:`signature`.
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    n: int
    partial: bool = False
    total_abs: float | None = None
    tol: float = 0.0

    # ------------------------------------------------------------------ build
    @classmethod
    def from_kernel(cls, K, *, n_components=None, energy=None, tol=None, check=True):
        """Decompose a symmetric kernel matrix once.

        Parameters
        ----------
        K : array of shape (n, n)
            Symmetric kernel (Gram) matrix; symmetrized if asymmetric within
            ``krein._validation.SYMMETRY_RTOL``, else ``ValueError``.
        n_components : int, optional
            Keep the ``n_components`` eigenpairs of largest ``|lam|`` (partial
            decomposition by ``scipy.sparse.linalg.eigsh(which="LM")``, or a full
            ``eigh`` truncated when ``n`` is small or ``n_components`` large).
        energy : float in (0, 1], optional
            Keep the fewest largest-``|lam|`` eigenpairs whose share of
            ``sum |lam|`` is at least ``energy`` (ESVM-L, loosli §4 and Table 2,
            ``energy=0.9``).  The full sum is not known from a partial
            decomposition, so eigenpairs are computed in growing batches and the
            unseen remainder is bounded from above by
            ``min((n-k) |lam_k|, sqrt((n-k) (||K||_F^2 - sum_{i<=k} lam_i^2)))``;
            the selection is therefore conservative (share >= ``energy``,
            possibly a few more components than the exact minimum).  When more
            than a quarter of the spectrum is needed, a full ``eigh`` is used and
            the selection is exact.
        tol : float, optional
            Zero tolerance of the signature; default
            ``n * machine_eps * max |lam|`` (as ``numpy.linalg.matrix_rank``).
        check : bool
            Validate ``K`` (square, finite, symmetric). Only skip for matrices
            built by this package.

        Returns
        -------
        spectrum : Spectrum
            The decomposition, with ``k = n``, ``n_components`` or the number of
            components selected by ``energy``.

        Raises
        ------
        ValueError
            On a bad ``K``, both ``n_components`` and ``energy`` given, or values
            out of range.

        Notes
        -----
        Inside :func:`krein._cache.shared_computations` the decomposition is
        shared by content: the full ``eigh`` of a matrix is computed once and
        found again by every later call on an equal matrix (whoever makes it:
        ESVM, the spectrum corrections, the diagnostics columns,
        :func:`krein.estimators.base.least_eigenvalue`), and a partial one is
        cut from it by the same selection rule as ARPACK's path (the same
        components up to round-off; in a fold that full decomposition is needed
        anyway, by the other methods and the diagnostics).  The arrays of a
        shared spectrum are read-only.  Outside the context nothing is stored.
        """
        if check:
            K = check_square_kernel(K)
        n = K.shape[0]
        if n_components is not None and energy is not None:
            raise ValueError("give at most one of n_components and energy")
        if n_components is not None:
            if not isinstance(n_components, numbers.Integral) or not 1 <= n_components <= n:
                raise ValueError(f"n_components must be an integer in [1, {n}]; got {n_components!r}")
            k = int(n_components)
            lam, V = _top_magnitude(K, k, _shared_full(K))
            partial = n_components < n
            total = float(np.abs(lam).sum()) if not partial else None
            spec = cls(lam, V, n, partial, total)
        elif energy is not None:
            if not isinstance(energy, numbers.Real) or not 0 < energy <= 1:
                raise ValueError(f"energy must be a number in (0, 1]; got {energy!r}")
            lam, V, partial, total = _energy_spectrum(K, float(energy), _shared_full(K))
            spec = cls(lam, V, n, partial, total)
        else:
            if n > _CHECKED_EIGH_SIZE:   # the eigenvectors and LAPACK's workspace, besides K
                check_dense(n, n, what="the eigendecomposition of the kernel", copies=2,
                            remedy="use approximation=IndefiniteNystroem(...) (krein compare: "
                                   "--approximation nystroem:M, or --landmarks with the n x m "
                                   "columns to m landmark objects), or fewer objects")
            lam, V = shared_eigh(K)
            spec = cls(lam, V, n, False, float(np.abs(lam).sum()))
        if tol is None:
            tol = null_tolerance(spec.eigenvalues, n)
        elif not isinstance(tol, numbers.Real) or tol < 0:
            raise ValueError(f"tol must be a number >= 0; got {tol!r}")
        object.__setattr__(spec, "tol", float(tol))
        return spec

    # ------------------------------------------------------------ properties
    @property
    def signature(self):
        """``(p, q, z)``: counts of eigenvalues ``> tol``, ``< -tol`` and the rest.

        For a partial decomposition ``z`` also counts the ``n - k`` components
        that were not computed.
        """
        lam = self.eigenvalues
        p = int(np.sum(lam > self.tol))
        q = int(np.sum(lam < -self.tol))
        return p, q, self.n - p - q

    @property
    def min_eigenvalue(self):
        """Least eigenvalue (of the kept components for a partial decomposition)."""
        return float(self.eigenvalues.min())

    @property
    def max_eigenvalue(self):
        """Largest eigenvalue (of the kept components for a partial decomposition)."""
        return float(self.eigenvalues.max())

    @property
    def r_mm(self):
        """``100 |lam_min| / lam_max`` (munoz eq. 2).

        0 when no eigenvalue is below ``-tol``; ``inf`` when there are negative
        eigenvalues but none above ``tol``.
        """
        lmax, lmin = self.max_eigenvalue, self.min_eigenvalue
        if lmin >= -self.tol:
            return 0.0
        if lmax <= self.tol:  # no positive eigenvalue beyond the null tolerance
            return float("inf")
        return 100.0 * -lmin / lmax

    @property
    def r_neg(self):
        """``100 sum_{lam<0} |lam| / sum |lam|`` (munoz eq. 2), over the kept components."""
        lam = self.eigenvalues
        total = np.abs(lam).sum()
        return 0.0 if total == 0 else 100.0 * float(-lam[lam < 0].sum()) / float(total)

    @property
    def energy_share(self):
        """Share of ``sum |lam|`` carried by the kept components (1.0 when full).

        For a partial decomposition this is a lower bound (the remainder is bounded).
        """
        if not self.partial:
            return 1.0
        kept = float(np.abs(self.eigenvalues).sum())
        return kept / self.total_abs if self.total_abs else float("nan")

    def summary(self):
        """Dictionary of the spectrum diagnostics (for tables and ``krein diagnose``).

        Returns
        -------
        summary : dict
            Keys ``n, p, q, z`` (sizes and :attr:`signature`), ``min_eigenvalue``,
            ``max_eigenvalue``, ``r_mm``, ``r_neg`` (munoz eq. 2), ``tol`` and
            ``partial``.
        """
        p, q, z = self.signature
        return {
            "n": self.n,
            "p": p,
            "q": q,
            "z": z,
            "min_eigenvalue": self.min_eigenvalue,
            "max_eigenvalue": self.max_eigenvalue,
            "r_mm": self.r_mm,
            "r_neg": self.r_neg,
            "tol": self.tol,
            "partial": self.partial,
        }

    # ------------------------------------------------------------ matrices
    def reconstruct(self, values=None):
        """Rebuild a matrix on the eigenvectors: ``V diag(values) V'``.

        Parameters
        ----------
        values : array-like of shape (k,), optional
            One value per kept eigenvector; default the eigenvalues themselves
            (then the result is ``K``, or its rank-``k`` part when partial).

        Returns
        -------
        M : ndarray of shape (n, n)
            ``V diag(values) V'``.
        """
        values = self.eigenvalues if values is None else np.asarray(values, dtype=float)
        return (self.eigenvectors * values) @ self.eigenvectors.T

    def corrected_eigenvalues(self, correction, **params):
        """Corrected eigenvalues ``g(lam)`` of the kept components.

        Parameters
        ----------
        correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}
            The correction ``g`` (module docstring table).
        **params
            ``eps`` and ``shift`` of :func:`correct_eigenvalues`.

        Returns
        -------
        g : ndarray of shape (k,)
            :func:`correct_eigenvalues` of :attr:`eigenvalues`.

        Raises
        ------
        ValueError
            For an unknown ``correction`` or bad ``eps``/``shift``.
        """
        return correct_eigenvalues(self.eigenvalues, correction, **params)

    def corrected_kernel(self, correction, **params):
        """The corrected training kernel ``V diag(g(lam)) V'`` of shape (n, n).

        For ``shift`` and ``add_diagonal`` with a full decomposition this equals
        ``K + lambda I``.  For a partial decomposition only the kept components
        are used.

        Parameters
        ----------
        correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}
            The correction ``g`` (module docstring table).
        **params
            ``eps`` and ``shift`` of :func:`correct_eigenvalues`.

        Returns
        -------
        K_corrected : ndarray of shape (n, n)
            ``V diag(g(lam)) V'``.
        """
        return self.reconstruct(self.corrected_eigenvalues(correction, **params))

    def psd_factor(self, values=None, *, tol=None, rows=None):
        """The factor ``F`` of the PSD matrix ``V diag(g) V'`` over ``g > tol``.

        ``F = V[rows][:, keep] diag(g[keep])^(1/2)`` with ``keep = g > tol``
        (:func:`spectral_factor`): ``F F' = V diag(g) V'`` restricted to ``rows``
        when ``g`` is zero up to ``tol`` on the other components (a corrected
        spectrum, :meth:`corrected_eigenvalues`).

        Parameters
        ----------
        values : array-like of shape (k,), optional
            ``g``: one value per kept eigenvector; default the eigenvalues.
        tol : float, optional
            Components with ``g <= tol`` are left out; default :attr:`tol`.
        rows : array-like of int or bool, optional
            Rows of ``V`` (a block of the kernel: ``F[I] F[I]'`` is ``Kc[I, I]``);
            default all.

        Returns
        -------
        F : ndarray of shape (n or len(rows), r)
            ``r`` the number of values above ``tol``.
        """
        g = self.eigenvalues if values is None else np.asarray(values, dtype=float)
        tol = self.tol if tol is None else tol
        V = self.eigenvectors if rows is None else self.eigenvectors[rows]
        return spectral_factor(V, g, g > tol)

    def signs(self):
        """The sign map ``s``: ``sign(lam)`` beyond the null tolerance, 0 on the others.

        The multipliers ``h = |lam| / lam`` of the flip correction's spectral row map
        (:func:`row_multipliers`): ``V diag(s) V'`` takes the flipped SVM's
        coefficients to the Krein coefficients (loosli Algorithm 1, ``c = V sign(lam)
        V' c~``), and ``F diag(s) F' = K`` for the :meth:`signed_factor` ``F``.

        Returns
        -------
        s : ndarray of shape (k,)
            ``+1``, ``-1`` or ``0`` (``|lam| <= tol``) per kept component.
        """
        lam = self.eigenvalues
        return row_multipliers(lam, correct_eigenvalues(lam, "flip"), "flip", self.tol)

    def signed_factor(self, keep=None):
        """The pseudo-Euclidean coordinates ``F = V[:, keep] |lam[keep]|^(1/2)``.

        ``F diag(s[keep]) F' = K`` (restricted to the kept components) with ``s`` the
        sign map :meth:`signs`; ``F F'`` is the flipped kernel ``V |lam| V'``.

        Parameters
        ----------
        keep : ndarray of bool of shape (k,) or of int, optional
            The components kept (a mask, or indices in the order wanted); default
            those with ``|lam| > tol``.

        Returns
        -------
        F : ndarray of shape (n, r)
            :func:`spectral_factor` of ``|lam|``.
        """
        absl = np.abs(self.eigenvalues)
        return spectral_factor(self.eigenvectors, absl, absl > self.tol if keep is None else keep)

    def flipped_kernel(self, K):
        """The flipped kernel ``V |lam| V'`` using the cheaper side of the spectrum.

        For a full decomposition ``K - 2 V_- lam_- V_-'`` (or ``2 V_+ lam_+ V_+' - K``),
        whichever side has fewer eigenvalues below ``-tol``: O(n^2 q) instead of the
        O(n^3) of a full product; eigenvalues within the null tolerance are left as they
        are (``|change| <= 2 tol``).  For a partial decomposition ``V |lam| V'`` of the
        kept components.  Not re-symmetrized: libsvm reads ``K[i, j]`` as given, and the
        CVXPY formulations symmetrize (within ``krein._validation.SYMMETRY_RTOL``) when
        they check their input.

        Parameters
        ----------
        K : ndarray of shape (n, n)
            The kernel this spectrum decomposes.

        Returns
        -------
        K_flipped : ndarray of shape (n, n)
            ``V |lam| V'`` (loosli §3.1, the flip correction).
        """
        lam, V = self.eigenvalues, self.eigenvectors
        if self.partial:
            return (V * np.abs(lam)) @ V.T
        neg = lam < -self.tol
        if 2 * np.count_nonzero(neg) <= lam.size:
            Vn = V[:, neg]
            Kf = (Vn * (-2.0 * lam[neg])) @ Vn.T   # adds 2|lam_-| on the negative part
            Kf += K
        else:
            pos = ~neg
            Vp = V[:, pos]
            Kf = (Vp * (2.0 * lam[pos])) @ Vp.T
            Kf -= K
        return Kf

    def row_map(self, correction, **params):
        """The ``(n, n)`` matrix ``M = V diag(h) V'`` of the spectral out-of-sample map.

        New rows ``k(x, X)`` are corrected as ``k(x, X) @ M`` (munoz eqs. 3, 5, 7),
        with ``h`` from :func:`row_multipliers`.

        Parameters
        ----------
        correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}
            The correction ``g`` (module docstring table).
        **params
            ``eps`` and ``shift`` of :func:`correct_eigenvalues`.

        Returns
        -------
        M : ndarray of shape (n, n)
            ``V diag(h) V'``.
        """
        lam = self.eigenvalues
        g = self.corrected_eigenvalues(correction, **params)
        h = row_multipliers(lam, g, correction, self.tol)
        return (self.eigenvectors * h) @ self.eigenvectors.T

    def apply_row_map(self, K_rows, correction, **params):
        """Spectral out-of-sample map ``k(x, X) V diag(h) V'`` without forming ``M``.

        Parameters
        ----------
        K_rows : array-like of shape (m, n)
            Kernel rows ``k(x, X)`` of ``m`` new points against the ``n``
            training points.
        correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}
            The correction ``g`` (module docstring table).
        **params
            ``eps`` and ``shift`` of :func:`correct_eigenvalues`.

        Returns
        -------
        K_rows_corrected : ndarray of shape (m, n)
            ``k(x, X) V diag(h) V'`` (munoz eqs. 3, 5, 7).

        Raises
        ------
        ValueError
            If ``K_rows`` is not ``(m, n)`` or has NaN/inf.
        """
        K_rows = check_kernel_rows(K_rows, self.n, "K_rows")
        lam = self.eigenvalues
        g = self.corrected_eigenvalues(correction, **params)
        h = row_multipliers(lam, g, correction, self.tol)
        V = self.eigenvectors
        return ((K_rows @ V) * h) @ V.T


def _shared_full(K):
    """The full ``(lam, V)`` of ``K`` for a partial decomposition, or None.

    Inside :func:`krein._cache.shared_computations` a partial decomposition is
    cut from the full one of the store, computed there first when no method has
    done it yet: in a fold the other methods and the diagnostics need the full
    one anyway (:func:`krein.estimators.base.least_eigenvalue` reads it too), and
    the cut is then the same whichever method came first.  Outside: None (the
    partial decomposition is computed as always, by ARPACK or a full ``eigh``).
    """
    return shared_eigh(K) if shared_computations_active() else None


def _by_magnitude(lam, V, k):
    """The ``k`` eigenpairs of largest ``|lam|`` of a full ascending decomposition,
    ascending (as ``eigsh(which="LM")`` sorted by :func:`_top_magnitude`)."""
    idx = np.sort(np.argsort(-np.abs(lam), kind="stable")[:k])
    return lam[idx], V[:, idx]


def _arpack(K, k):
    """ARPACK's ``k`` eigenpairs of largest ``|lam|``, on one BLAS thread (policy ``"auto"``).

    Its implicit restarts apply rotations and small updates to the ``n x ncv``
    Lanczos basis, level-1 and level-2 BLAS that threads slow down more than they
    speed up its products with ``K`` (ESVM-L in ``benchmarks/estimator_threads.py``;
    :func:`krein._threads.loop_threads`).
    """
    with loop_threads(K.shape[0], up_to=np.inf):
        return scipy.sparse.linalg.eigsh(K, k=k, which="LM")


def _top_magnitude(K, k, full=None):
    n = K.shape[0]
    if full is not None:
        return _by_magnitude(full[0], full[1], k)
    if n < _FULL_EIGH_BELOW or k > n // 4:
        lam, V = shared_eigh(K)
        return _by_magnitude(lam, V, k)
    lam, V = _arpack(K, k)
    order = np.argsort(lam)
    return lam[order], V[:, order]


def _energy_spectrum(K, energy, full=None):
    """``(lam, V, partial, total)`` of the energy selection (see :meth:`Spectrum.from_kernel`).

    With ``full`` (the full decomposition, from the store) the same selection
    rule is applied to its largest-``|lam|`` eigenpairs instead of ARPACK's, so
    that the result does not depend on whether the store was used (up to the
    round-off of the two eigensolvers).
    """
    n = K.shape[0]
    fro2 = float(np.sum(K * K))
    k = max(8, int(np.ceil(0.05 * n)))
    while n >= _FULL_EIGH_BELOW and k <= n // 4:
        if full is None:
            lam, V = _arpack(K, k)
            order = np.argsort(-np.abs(lam), kind="stable")
        else:
            lam, V = full
            order = np.argsort(-np.abs(lam), kind="stable")[:k]
        lam, V = lam[order], V[:, order]
        a = np.abs(lam)
        seen = np.cumsum(a)
        rest_seen = seen[-1] - seen  # kept-but-unselected part for each prefix
        rest2 = max(0.0, fro2 - float(np.sum(lam**2)))
        unseen = min((n - k) * a[-1], np.sqrt((n - k) * rest2))
        upper_total = seen + rest_seen + unseen
        ok = np.flatnonzero(seen >= energy * upper_total)
        if ok.size:
            m = int(ok[0]) + 1
            sel = np.argsort(lam[:m])
            return lam[:m][sel], V[:, :m][:, sel], m < n, float(upper_total[ok[0]])
        k *= 2
    lam, V = shared_eigh(K) if full is None else full
    a = np.abs(lam)
    order = np.argsort(-a, kind="stable")
    total = float(a.sum())
    m = int(np.searchsorted(np.cumsum(a[order]), energy * total * (1 - 1e-12))) + 1
    m = min(m, n)
    idx = np.sort(order[:m])
    return lam[idx], V[:, idx], m < n, total


def transductive_rows(K_joint, n_train, correction, **params):
    """Transductive correction: decompose the joint kernel and read the test rows.

    Parameters
    ----------
    K_joint : array of shape (n + m, n + m)
        Kernel on training points (first ``n_train``) then test points.
    n_train : int
        Number of training points ``n``, ``0 < n_train < n + m``.
    correction : str
        A correction from :data:`TRANSFORMS`.
    **params
        ``eps`` / ``shift`` as in :func:`correct_eigenvalues`.

    Returns
    -------
    K_rows : ndarray of shape (m, n_train)
        The test-vs-train block of the corrected joint kernel.

    Raises
    ------
    ValueError
        On a bad ``K_joint``, an ``n_train`` out of range or an unknown ``correction``.

    Notes
    -----
    The training block of the corrected joint kernel differs from the corrected
    training kernel the model was fitted on; this is the usual transductive
    heuristic (e.g. Wu, Chang & Zhang 2005), not an exact map.
    """
    K_joint = check_square_kernel(K_joint, "K_joint")
    if not isinstance(n_train, numbers.Integral) or not 0 < n_train < K_joint.shape[0]:
        raise ValueError(f"n_train must be an integer in (0, {K_joint.shape[0]}); got {n_train!r}")
    spec = Spectrum.from_kernel(K_joint, check=False)
    V = spec.eigenvectors
    g = spec.corrected_eigenvalues(correction, **params)
    return (V[n_train:] * g) @ V[:n_train].T


def validate_fit_kernel(est, K, name="K"):
    """Validate a training kernel for a transformer's ``fit``; set ``n_features_in_``.

    scikit-learn's checks first (``validate_data``: a sparse matrix is refused with
    a ``TypeError``; complex, NaN/inf, empty or 1-D input with a ``ValueError``),
    then square and symmetric (:func:`krein._validation.check_square_kernel`).

    Returns
    -------
    K : ndarray of shape (n, n), float64, exactly symmetric
    """
    try:
        checked = check_array(K, dtype=np.float64, ensure_min_samples=1, input_name=name,
                              estimator=est)
        # n_features_in_, and feature_names_in_ from a DataFrame's columns (the training
        # objects' names, which get_feature_names_out and set_output give the output columns)
        validate_data(est, K, skip_check_array=True)
        K = checked
    except ValueError as exc:
        raise _named(exc, name) from exc
    return check_square_kernel(K, name)


def validate_kernel_rows(est, K_rows, fitted_attr, name="K_rows"):
    """Validate ``(m, n)`` kernel rows against the fitted training size (``transform``)."""
    check_is_fitted(est, fitted_attr)
    try:
        checked = check_array(K_rows, dtype=np.float64, input_name=name, estimator=est)
        validate_data(est, K_rows, skip_check_array=True, reset=False)
        K_rows = checked
    except ValueError as exc:
        raise _named(exc, name) from exc
    return check_kernel_rows(K_rows, est.n_features_in_, name)


def input_precision(*arrays):
    """Machine precision of the coarsest floating dtype among the inputs (and their items).

    Tolerances that judge round-off in user input (is a base kernel PSD?) scale with
    it: a float32 kernel is exact only to about ``n * finfo(float32).eps`` relative,
    even after casting to float64.  Non-float input counts as float64.
    """
    eps = float(np.finfo(np.float64).eps)
    for a in arrays:
        items = a if isinstance(a, (list, tuple)) else [a]
        for item in items:
            dtype = getattr(item, "dtype", None)
            if dtype is not None and np.issubdtype(dtype, np.floating):
                eps = max(eps, float(np.finfo(dtype).eps))
    return eps


def _named(exc, name):
    """scikit-learn's message with the argument's name in front (once)."""
    msg = str(exc)
    return ValueError(msg if msg.startswith(f"Input {name} ") else f"{name}: {msg}")


class SpectrumCorrection(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scikit-learn transformer that corrects a precomputed kernel's spectrum.

    ``fit_transform(K_train)`` returns the corrected ``(n, n)`` training kernel;
    ``transform(K_rows)`` maps ``(m, n)`` kernel rows between new and training
    points.  So ``make_pipeline(SpectrumCorrection("clip"),
    SVC(kernel="precomputed"))`` works inside ``cross_val_score`` on a
    precomputed kernel.

    Its output columns are the training objects (``get_feature_names_out``: the
    columns' names of a fitted DataFrame kernel, else ``x0``, ``x1``, ...), so
    ``set_output(transform="pandas")`` returns the kernel rows as DataFrames.

    Parameters
    ----------
    correction : {"clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"}
        Spectrum correction ``g`` (module docstring; munoz §2-3 eqs. (1), (4),
        (6), (7); loosli §6.1.1).
    out_of_sample : {"auto", "spectral", "raw", "transductive"}
        Map for new rows (module docstring).  With ``"transductive"``,
        ``transform`` expects ``(m, n + m)`` rows ``[K(test, train), K(test, test)]``.
    eps : float >= 0
        Threshold of ``mds``/``pseudo`` (munoz §2.1-2.2).
    shift : float, optional
        Constant ``lambda`` of ``add_diagonal`` (munoz eq. 6); default
        ``max(0, -lam_min)``.
    center : bool
        Center the kernel before the correction (default False): the
        training kernel becomes ``J K J`` (``J = I - 11'/n``) and new rows are
        centered with the TRAINING statistics,
        ``k(x, x_j) - mean_i k(x, x_i) - mean_i K_ij + mean_il K_il`` (as
        :class:`sklearn.preprocessing.KernelCenterer`), before the
        out-of-sample map.  With ``"clip"`` this is Haasdonk's (2005, §7.5)
        CNE ("Cut off Negative Eigenvalues" of the centered kernel), with
        ``"flip"`` his RNE ("Reflect" them); ``J K J`` is the Gram matrix of
        the centered pseudo-Euclidean embedding, so its signature is that of
        the embedding (Haasdonk, Prop. 1).  Not with ``"transductive"``.

    Attributes
    ----------
    spectrum_ : Spectrum
        Decomposition of the training kernel (of ``J K J`` with ``center``).
    K_fit_rows_ : ndarray of shape (n,)
        Column means of the training kernel (only with ``center``).
    K_fit_all_ : float
        Mean of all its entries (only with ``center``).
    n_features_in_ : int
        Number of training points ``n``.
    min_eigenvalue_ : float
        Least eigenvalue of the uncorrected training kernel.
    K_fit_ : ndarray of shape (n, n)
        The training kernel (only with ``out_of_sample="transductive"``).

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        In ``fit`` (a ``ValueError``): a parameter outside the values above.
    ValueError
        In ``fit``: a kernel that is not square, symmetric and finite, complex,
        1-D or empty.  In ``transform``: rows of the wrong width or with NaN/inf.
    TypeError
        A sparse matrix (the eigendecomposition needs a dense kernel).

    Notes
    -----
    ``fit_transform`` returns the corrected kernel ``V g(lam) V'``; ``transform``
    always applies the out-of-sample map, which reproduces that block on the
    training rows for the spectral maps (not for ``"raw"``, by definition).

    References
    ----------
    A. Munoz and I. Martin de Diego (2006), "From indefinite to positive
    semi-definite matrices", §2-3, eqs. (1)-(7).
    G. Loosli, C. S. Ong and S. Canu (2013), "Learning SVM in Krein spaces",
    §6.1.1 and Table 2.

    Examples
    --------
    The sigmoid kernel matrix of two Gaussian blobs is indefinite; the corrected one is positive
    semi-definite:

    >>> import numpy as np
    >>> from sklearn.datasets import make_blobs
    >>> from krein import SpectrumCorrection
    >>> from krein.kernels import sigmoid_kernel
    >>> X, _ = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=0)
    >>> K = sigmoid_kernel(X, X, a=0.05, r=-0.5)
    >>> bool(np.linalg.eigvalsh(K).min() < 0)
    True
    >>> K_psd = SpectrumCorrection(correction="clip").fit_transform(K)
    >>> bool(np.linalg.eigvalsh(K_psd).min() >= -1e-8 * np.abs(K_psd).max())
    True
    """

    _parameter_constraints: dict = {
        "correction": [StrOptions(set(TRANSFORMS))],
        "out_of_sample": [StrOptions(set(OUT_OF_SAMPLE))],
        "eps": [Interval(numbers.Real, 0, None, closed="left")],
        "shift": [Interval(numbers.Real, None, None, closed="neither"), None],
        "center": ["boolean"],
    }

    def __init__(self, *, correction="clip", out_of_sample="auto", eps=0.0, shift=None,
                 center=False):
        self.correction = correction
        self.out_of_sample = out_of_sample
        self.eps = eps
        self.shift = shift
        self.center = center

    def _params(self):
        params = {"eps": self.eps}
        if self.correction == "add_diagonal":
            params["shift"] = self.shift
        return params

    def resolved_out_of_sample(self):
        """The out-of-sample map actually used (``"auto"`` resolved).

        Returns
        -------
        {"spectral", "raw", "transductive"}
            ``out_of_sample``, with ``"auto"`` resolved to ``"raw"`` for
            ``shift``/``add_diagonal`` and ``"spectral"`` otherwise
            (:func:`check_correction`).

        Raises
        ------
        ValueError
            For an unknown ``correction`` or ``out_of_sample`` (from
            :func:`check_correction`).
        """
        return check_correction(self.correction, self.out_of_sample)

    @fit_wrapper
    def fit(self, K, y=None):
        """Decompose the training kernel.

        Parameters
        ----------
        K : array of shape (n, n)
            Training kernel matrix (square, symmetric, finite).
        y : None
            Ignored; present for scikit-learn pipeline compatibility.

        Returns
        -------
        self : SpectrumCorrection
            The fitted transformer.

        Raises
        ------
        ValueError
            For a kernel that is not square, symmetric and finite, or a parameter
            outside its allowed values (raised by the validation helpers).
        """
        K = validate_fit_kernel(self, K)
        params = self._params()
        if self.center:
            if self.resolved_out_of_sample() == "transductive":
                raise ValueError("center=True is not available with out_of_sample='transductive'")
            self.K_fit_rows_ = K.mean(axis=0)
            self.K_fit_all_ = float(self.K_fit_rows_.mean())
            K = K - self.K_fit_rows_[None, :] - self.K_fit_rows_[:, None] + self.K_fit_all_
            K = 0.5 * (K + K.T)
        spec = Spectrum.from_kernel(K, check=False)
        correct_eigenvalues(spec.eigenvalues, self.correction, **params)  # finite eps/shift
        self.spectrum_ = spec
        self.min_eigenvalue_ = spec.min_eigenvalue
        if self.resolved_out_of_sample() == "transductive":
            self.K_fit_ = K
        return self

    def fit_transform(self, K, y=None):
        """Fit and return the corrected training kernel.

        Parameters
        ----------
        K : array of shape (n, n)
            Training kernel matrix (square, symmetric, finite).
        y : None
            Ignored; present for scikit-learn pipeline compatibility.

        Returns
        -------
        ndarray of shape (n, n)
            The corrected kernel ``V g(lam) V'`` (munoz eqs. (1)-(7)).
        """
        self.fit(K, y)
        return self.spectrum_.corrected_kernel(self.correction, **self._params())

    def transform(self, K_rows):
        """Correct kernel rows between new points and the training points.

        Parameters
        ----------
        K_rows : array of shape (m, n), or (m, n + m) for ``"transductive"``
            Kernel values ``K(new, train)``; for ``"transductive"`` the rows
            ``[K(new, train), K(new, new)]``.

        Returns
        -------
        ndarray of shape (m, n)
            The rows after the out-of-sample map (a copy for ``"raw"``), centered
            first with the training statistics when ``center``.

        Raises
        ------
        ValueError
            On a wrong width or NaN/inf.
        """
        check_is_fitted(self, "spectrum_")
        params = self._params()
        n = self.n_features_in_
        mode = self.resolved_out_of_sample()
        if mode == "transductive":
            try:  # (m, n + m): not n features, so check_array, not validate_data
                K_rows = check_array(K_rows, dtype=np.float64, input_name="K_rows")
            except ValueError as exc:
                raise _named(exc, "K_rows") from exc
            m = K_rows.shape[0]
            if K_rows.shape[1] != n + m:
                raise ValueError(
                    f"with out_of_sample='transductive', transform expects (m, n + m) rows "
                    f"[K(test, train), K(test, test)] with n = {n}; got shape {K_rows.shape}"
                )
            joint = np.block([[self.K_fit_, K_rows[:, :n].T], [K_rows[:, :n], K_rows[:, n:]]])
            return transductive_rows(joint, n, self.correction, **params)
        K_rows = validate_kernel_rows(self, K_rows, "spectrum_")
        if self.center:  # with the training statistics (KernelCenterer's rule)
            K_rows = (K_rows - K_rows.mean(axis=1, keepdims=True) - self.K_fit_rows_[None, :]
                      + self.K_fit_all_)
        if mode == "raw":
            return K_rows.copy()
        return self.spectrum_.apply_row_map(K_rows, self.correction, **params)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags
