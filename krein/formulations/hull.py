"""Haasdonk's convex-hull classifier (CH-DU) and its link to the SVM dual (Prop. 3).

Source: B. Haasdonk (2005), "Feature space interpretation of SVMs with indefinite
kernels", IEEE TPAMI 27(4) -- cited below as "haasdonk".

Symbols: ``K`` kernel matrix (any symmetric matrix), ``y`` in {-1, +1},
``Q = Y K Y``, ``alpha_bar`` the CH coefficients, ``u = y * alpha_bar``,
``mu`` the reduction bound of the reduced convex hulls (haasdonk §3.2).

The problem (haasdonk eqs. (4)-(5) and (CH-DU))
-----------------------------------------------
With the training points embedded in a pseudo-Euclidean space ``R^(p,q)``
(haasdonk Prop. 1), the closest points ``z+ = sum_{y_i=+1} alpha_bar_i Phi(x_i)``
and ``z- = sum_{y_i=-1} alpha_bar_i Phi(x_i)`` of the two reduced convex hulls
solve::

    minimize    F(alpha_bar) = ||z+ - z-||^2_pE = w'Mw = u'K u,   u = y * alpha_bar
    subject to  0 <= alpha_bar_i <= mu,
                sum_{y_i=+1} alpha_bar_i = 1,  sum_{y_i=-1} alpha_bar_i = 1.

haasdonk writes (CH-DU) as ``max 1/2 sum_ij alpha_bar_i alpha_bar_j y_i y_j d2_ij``
with ``d2`` the induced squared distance (eq. 1) and the constraints
``y'alpha_bar = 0``, ``1'alpha_bar = 2`` (the same two class sums); on the feasible
set ``1/2 u'D2 u = -u'K u`` because ``1'u = 0``, so it is this minimization (the
paper's remark after (CH-DU), via its Lemma 6).  The feasible set is the product
of two capped simplices; it is empty unless ``mu >= 1 / min(n+, n-)``, and
``mu >= 1`` gives the ordinary (non-reduced) hulls.

Convexity.  On the affine hull of the feasible set, ``u = P u + c0`` with ``P``
the orthogonal projector onto the complement of ``span{1+, 1-}`` (the class
indicator vectors, the constraint directions) and the fixed vector
``c0 = 1+ / n+ - 1- / n-``.  Hence on the feasible set::

    F = u' (P K P) u + 2 (P K c0)' u + c0' K c0,

and CH-DU is convex iff ``P K P`` is positive semidefinite (exactly: ``Q`` is PSD on
the feasible directions).  A conditionally positive definite kernel (PSD on
``1' v = 0``) satisfies this, since ``1`` lies in ``span{1+, 1-}``.
:func:`hull_convexity` checks it numerically and returns a factor
``P K P = L L'`` of the *checked* PSD matrix, which :class:`ConvexHullDual` uses
(``sum_squares(L' u)`` or ``quad_form`` on ``L L'``), never an unchecked
``psd_wrap``.  Otherwise CH-DU is a non-convex QP (haasdonk §4, §6: multiple
local optima, Lemma 4) and only local solvers apply (see
:mod:`krein.estimators.hull`).

Decision rule (haasdonk eqs. (6)-(7))
-------------------------------------
The minimum-distance classifier ``g(z) = ||z - z-||^2_pE - ||z - z+||^2_pE``
is, in kernel terms (the pE embedding and the functions ``h`` of haasdonk
eq. (3) cancel because ``1'u = 0``)::

    g(x) = 2 k(x, X) u - alpha_bar' K u  =  2 <Phi(x) - (z+ + z-)/2, w>_pE,

a hyperplane with normal ``w = z+ - z-`` through the midpoint of ``z+ z-``
(haasdonk §4, text below Fig. 1).  In distances: ``g(x) = -sum_i u_i d2(x_i, x) + b``
with ``b = 1/2 sum_ij alpha_bar_i alpha_bar_j y_i d2(x_i, x_j)``.

.. note:: **Deviation from the paper's eq. (7).**  The text of eq. (7) we have reads
   ``b = 1/2 sum_ij alpha_bar_i alpha_bar_j y_i y_j d2(x_i, x_j)`` (both labels).
   That value is ``-F`` and does not put the plane through the midpoint:
   two points ``x_+ = 1``, ``x_- = -1`` on the real line give
   ``g(x) = 4x - 4``, which is ``-4`` at the midpoint ``0``.  Expanding eq. (6)
   with the identity ``||z - sum_i a_i Phi_i||^2 = sum_i a_i d2(z, x_i) -
   1/2 sum_ij a_i a_j d2_ij`` (``sum a = 1``) gives the bias with a single
   ``y_i``, which equals ``1/2 (a+' D2 a+ - a-' D2 a-)``; we implement that one
   (and test it against eq. (6) evaluated in an explicit embedding).

Proposition 3 (SVM-DU <-> CH-DU)
--------------------------------
(The paper cites it as Proposition 3, cases 1-3, in §5 and §7.4; its statement is
headed "Proposition 7" in the text krein was written from.)
:func:`svm_to_hull`: a stationary point ``alpha`` of the C-SVM dual (SVM-DU)
gives the CH-DU stationary point ``alpha_bar = 2 alpha / sum(alpha)`` with
``mu = 2 C / sum(alpha)`` (Prop. 3, case 1).  :func:`hull_to_svm`: a CH-DU stationary
point with an unbounded coefficient in each class gives ``alpha = alpha_bar / rho``,
``C = mu / rho`` with ``rho = 1/2 alpha_bar' Q (e_k + e_l) > 0`` (Prop. 3, case 2).
The decision functions are then positive multiples of each other up to a constant
(parallel planes, Prop. 3, case 3).  :func:`svm_dual_stationarity` and
:func:`hull_stationarity` are the certificates used to check both directions.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
from scipy.linalg.lapack import dgeqrf, dorgqr

from .._validation import check_positive, check_square_kernel
from ..projections import project_box_hyperplane, project_capped_simplex
from ..spectrum import spectral_factor
from .base import Formulation, certified_psd_wrap, check_signed_labels

__all__ = [
    "SignedGram",
    "hull_convexity_features",
    "ConvexHullDual",
    "HullConvexity",
    "hull_convexity",
    "hull_mu_min",
    "check_hull_data",
    "check_hull_mu",
    "hull_face_basis",
    "hull_objective",
    "hull_lipschitz",
    "hull_gradient_scale",
    "project_hulls",
    "hull_plane",
    "hull_stationarity",
    "hull_local_minimality",
    "svm_to_hull",
    "hull_to_svm",
    "svm_dual_stationarity",
]


# ---------------------------------------------------------------------------- low rank
def _signed_root_eigenvalues(G, s):
    """Eigenvalues of ``G^(1/2) diag(s) G^(1/2)`` for a PSD Gram ``G = B'B`` (r x r):
    the nonzero eigenvalues of ``B diag(s) B'`` (ascending; ``r - rank`` of them zero)."""
    d, E = np.linalg.eigh(0.5 * (G + G.T))
    R = E * np.sqrt(np.maximum(d, 0.0))
    M = (R.T * s) @ R
    return np.linalg.eigvalsh(0.5 * (M + M.T))


class _SignedColumns:
    """The columns ``K[:, idx]`` of a :class:`SignedGram`, as a product only."""

    def __init__(self, gram, idx):
        self.gram, self.idx = gram, idx

    def __matmul__(self, v):
        g = self.gram
        t = g.Z[self.idx].T @ v
        return g.Z @ ((g.signs if t.ndim == 1 else g.signs[:, None]) * t)


class SignedGram:
    """A kernel ``K = Z diag(s) Z'`` given by signed features, as the CH-DU solvers use it.

    The local solvers (:func:`krein.solvers.hull.hull_multistart`) and the
    certificates of this module (:func:`hull_stationarity`,
    :func:`hull_local_minimality`, :func:`hull_plane`) ask their kernel only for
    products ``K V``, columns ``K[:, idx] v``, small blocks ``K[np.ix_(idx, idx)]``,
    a Lipschitz bound and a gradient scale; this class answers them from the
    features in ``O(n r)`` per product (``K V = Z (s * (Z' V))``), so the same code
    runs on the pseudo-Euclidean embedding of a low-rank approximation
    (Haasdonk 2005, Prop. 1: the embedding of ``K`` is the features with the
    signature ``s``; the Nyström features of Oglic & Gärtner 2019, §3) without an
    ``n x n`` array.  Differences from a dense ``K``, all exact for the features:

    * :func:`hull_lipschitz` is ``2 ||K||_2`` (from the ``r x r`` problem
      ``G^(1/2) diag(s) G^(1/2)``, ``G = Z'Z``), not the row-sum bound;
    * :func:`hull_gradient_scale` is ``2 max_i ||z_i||^2`` (``>= 2 max |K_ij|``);
    * the reduced Hessian of :func:`hull_local_minimality` on a free set larger
      than ``r`` plus the number of classes is reduced to ``r x r``
      (:meth:`face_curvature`).

    Parameters
    ----------
    Z : ndarray of shape (n, r)
        Features.
    signs : ndarray of shape (r,)
        Signs in {-1, +1}.
    eigenvalues : ndarray of shape (r,), optional
        The nonzero eigenvalues of ``K`` when the columns of ``Z`` are its
        eigendecomposition (``Z'Z = diag(|eigenvalues|)``), which gives
        ``||K||_2`` without an ``r x r`` problem.

    Attributes
    ----------
    Z, signs : ndarray
        As given (float).
    shape : tuple
        ``(n, n)``.
    rank : int
        ``r``.

    References
    ----------
    B. Haasdonk (2005), "Feature space interpretation of SVMs with indefinite
    kernels", IEEE TPAMI 27(4), Prop. 1, §4.  Oglic & Gärtner (2019), "Scalable
    learning in reproducing kernel Krein spaces", ICML, §3.
    """

    ndim = 2

    def __init__(self, Z, signs, eigenvalues=None):
        self.Z = np.asarray(Z, dtype=float)
        self.signs = np.asarray(signs, dtype=float)
        self.eigenvalues = None if eigenvalues is None else np.asarray(eigenvalues, dtype=float)
        self.shape = (self.Z.shape[0], self.Z.shape[0])
        self.rank = self.Z.shape[1]
        self._gram = None

    def gram(self):
        """``Z'Z`` (r x r), computed once (``diag(|eigenvalues|)`` when they are given).

        Returns
        -------
        ndarray of shape (r, r)
            The Gram matrix of the features (stored; do not modify).
        """
        if self._gram is None:
            self._gram = np.diag(np.abs(self.eigenvalues)) if self.eigenvalues is not None \
                else self.Z.T @ self.Z
        return self._gram

    def __matmul__(self, V):
        V = np.asarray(V, dtype=float)
        t = self.Z.T @ V
        return self.Z @ ((self.signs if t.ndim == 1 else self.signs[:, None]) * t)

    def __getitem__(self, key):
        if isinstance(key, tuple) and len(key) == 2:
            rows, cols = key
            if isinstance(rows, slice) and rows == slice(None):
                return _SignedColumns(self, np.asarray(cols))
            if isinstance(rows, np.ndarray) and isinstance(cols, np.ndarray):
                return (self.Z[rows.ravel()] * self.signs) @ self.Z[cols.ravel()].T
        raise TypeError("a SignedGram gives K[:, idx] (a product) and K[np.ix_(rows, cols)]")

    def lipschitz(self):
        """``2 ||K||_2``, the Lipschitz constant of the CH-DU gradient.

        Returns
        -------
        float > 0
            1 if ``K = 0``.
        """
        if self.rank == 0:
            return 1.0
        if self.eigenvalues is not None:
            lam = self.eigenvalues
        else:
            lam = _signed_root_eigenvalues(self.gram(), self.signs)
        L = 2.0 * float(np.max(np.abs(lam)))
        return L if L > 0 else 1.0

    def gradient_scale(self):
        """``2 max_i ||z_i||^2``, a bound on ``2 max_ij |K_ij|`` (Cauchy-Schwarz).

        Returns
        -------
        float > 0
            1 if ``K = 0``.
        """
        s = 2.0 * float(np.max(np.einsum("ij,ij->i", self.Z, self.Z), initial=0.0))
        return s if s > 0 else 1.0

    def face_curvature(self, idx, y):
        """Least eigenvalue of the reduced Hessian ``Zb' 2 Y K_FF Y Zb`` on a face.

        ``Zb`` is :func:`hull_face_basis` of ``y[idx]`` (``k x (k - c)``, ``c`` the
        classes present), formed only when ``k - c <= r``.

        Parameters
        ----------
        idx : ndarray of int of shape (k,)
            The free coefficients.
        y : ndarray of shape (n,)
            Labels in {-1, +1}.

        Returns
        -------
        float
            The least eigenvalue (``inf`` when the face is a vertex, ``k = c``): from
            the ``(k - c) x (k - c)`` matrix when ``k - c <= r``, else from
            ``r x r`` (the nonzero eigenvalues of ``B diag(s) B'``,
            ``B = Zb' Y_F Z_F``, and a zero, which the ``k - c > r`` directions
            always contain); no ``k x k`` array in that case.
        """
        X = y[idx, None] * self.Z[idx]
        c = int(np.any(y[idx] > 0)) + int(np.any(y[idx] < 0))
        if idx.size - c <= 0:
            return np.inf
        if idx.size - c <= self.rank:
            B = hull_face_basis(y[idx]).T @ X
            M = 2.0 * ((B * self.signs) @ B.T)
            return float(np.linalg.eigvalsh(0.5 * (M + M.T))[0])
        # B'B = X' (I - class projector) X: the class-centred Gram of the free rows
        G = X.T @ X
        for cls in (1.0, -1.0):
            rows = y[idx] == cls
            if rows.any():
                m = X[rows].sum(axis=0)
                G -= np.outer(m, m) / rows.sum()
        lam = _signed_root_eigenvalues(G, self.signs)
        return float(min(2.0 * lam[0], 0.0))


def hull_convexity_features(K, y, tol=None):
    """:func:`hull_convexity` for a :class:`SignedGram`, from ``r x r`` problems.

    ``P K P = B diag(s) B'`` with ``B = P Z`` (``P`` the projector of the module
    docstring, which centres the rows of each class); its eigenvalues on the
    feasible directions are the nonzero eigenvalues of ``G^(1/2) diag(s) G^(1/2)``,
    ``G = B'B = Z'Z - n+ m+ m+' - n- m- m-'`` (``m`` the class means of the rows of
    ``Z``), and zeros.  No factor is formed (the convex QP of :class:`ConvexHullDual`
    is not solved on features; the local solvers are, and the verdict says whether
    their Frank-Wolfe gap bounds the suboptimality).

    Parameters
    ----------
    K : SignedGram
        The kernel.
    y : ndarray of shape (n,) in {-1, +1}
        Labels (checked by the caller).
    tol : float, optional
        Eigenvalues ``>= -tol`` count as zero; default ``100 n eps ||K||_2``.

    Returns
    -------
    HullConvexity
        ``factor`` None; ``linear`` and ``constant`` as :func:`hull_convexity`'s.

    Raises
    ------
    ValueError
        For a negative or non-finite ``tol``.
    """
    n = y.size
    pos, neg = y > 0, y < 0
    G = K.gram().copy()
    for rows in (pos, neg):
        m = K.Z[rows].sum(axis=0)
        G -= np.outer(m, m) / rows.sum()
    lam = _signed_root_eigenvalues(G, K.signs) if K.rank else np.zeros(0)
    # r - (n - 2) of them are zero by construction when r > n - 2 (not eigenvalues of K on
    # the n - 2 feasible directions): drop the ones of least magnitude
    extra = lam.size - (n - 2)
    if extra > 0:
        lam = np.sort(lam[np.argsort(np.abs(lam))[extra:]])
    if tol is None:
        tol = 100 * n * np.finfo(float).eps * 0.5 * K.lipschitz()
    elif not isinstance(tol, numbers.Real) or not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}")
    min_eig = float(lam[0]) if lam.size else 0.0
    if lam.size < n - 2:                # the feasible directions off the range of B
        min_eig = min(min_eig, 0.0)
    c0 = pos / pos.sum() - neg / neg.sum()
    Kc0 = K @ c0
    lin = Kc0.copy()
    lin[pos] -= lin[pos].mean()
    lin[neg] -= lin[neg].mean()
    return HullConvexity(bool(min_eig >= -tol), min_eig, float(tol), None, 2.0 * lin,
                         float(c0 @ Kc0))


# ---------------------------------------------------------------------------- checks
def check_hull_data(K, y):
    """Check a CH-DU kernel and its labels.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,)
        Labels in {-1, +1}, both present.

    Returns
    -------
    K : ndarray of shape (n, n)
        The checked (symmetrized) kernel.
    y : ndarray of shape (n,), float
        The labels.

    Raises
    ------
    ValueError
        For a bad kernel, bad labels or a size mismatch.
    """
    y = check_signed_labels(y)
    K = check_square_kernel(K, "K")
    if K.shape[0] != y.size:
        raise ValueError(f"K has shape {K.shape} but y has {y.size} entries")
    return K, y


def hull_mu_min(y):
    """Smallest ``mu`` for which the reduced hulls are non-empty: ``1 / min(n+, n-)``.

    Parameters
    ----------
    y : array of shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    float
        ``1 / min(n+, n-)``.
    """
    y = check_signed_labels(y)
    return 1.0 / min(int(np.sum(y > 0)), int(np.sum(y < 0)))


def check_hull_mu(mu, y):
    """Check the reduction bound ``mu`` of CH-DU: positive and feasible for ``y``.

    Parameters
    ----------
    mu : float
        Reduction bound of the hulls (``alpha_bar <= mu``).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    float
        ``mu``.

    Raises
    ------
    ValueError
        If ``mu`` is not a positive number, or is below :func:`hull_mu_min` (an
        empty reduced hull, haasdonk §3.2).
    """
    mu = check_positive(mu, "mu")
    mu_min = hull_mu_min(y)
    if mu < mu_min * (1.0 - 1e-12):
        raise ValueError(
            f"mu={mu!r} is infeasible: a class with {int(round(1 / mu_min))} points has an "
            f"empty reduced convex hull for mu < 1/{int(round(1 / mu_min))} = {mu_min:.6g} "
            "(haasdonk §3.2); use mu >= 1 / (size of the smaller class)"
        )
    return mu


def _check_alpha_bar(alpha_bar, n):
    a = np.asarray(alpha_bar, dtype=float)
    if a.ndim not in (1, 2) or a.shape[0] != n:
        raise ValueError(f"alpha_bar must have shape ({n},) or ({n}, S); got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("alpha_bar contains NaN or inf")
    return a


# ---------------------------------------------------------------------------- values
def hull_objective(alpha_bar, K, y):
    """CH-DU objective ``F = u'K u = ||z+ - z-||^2_pE = w'Mw`` with ``u = y * alpha_bar``.

    Parameters
    ----------
    alpha_bar : array of shape (n,) or (n, S)
        One point or ``S`` points (columns).
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.

    Returns
    -------
    float, or ndarray of shape (S,)
        The squared pE distance of the hull points (haasdonk eq. (4); §7.4 "sign of
        w'Mw").  Negative values are possible for indefinite kernels.
    """
    K, y = check_hull_data(K, y)
    a = _check_alpha_bar(alpha_bar, y.size)
    U = (y * a.T).T
    val = np.sum(U * (K @ U), axis=0)
    return float(val) if a.ndim == 1 else val


def hull_lipschitz(K):
    """``L = 2 max_i sum_j |K_ij|`` (``= 2 ||K||_inf >= 2 ||K||_2``), an upper bound on the
    Lipschitz constant of the CH-DU gradient (the first step of the local solvers).

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).

    Returns
    -------
    float > 0
        The bound (1 if ``K = 0``).  For a :class:`SignedGram` ``2 ||K||_2`` itself
        (the least Lipschitz constant, from an ``r x r`` problem).
    """
    if isinstance(K, SignedGram):
        return K.lipschitz()
    K = np.asarray(K, dtype=float)
    L = 2.0 * float(np.max(np.sum(np.abs(K), axis=1)))
    return L if L > 0 else 1.0


def hull_gradient_scale(K):
    """``s = 2 max_ij |K_ij|``, the natural size of the CH-DU gradient.

    ``|grad F_i| = 2 |(K u)_i| <= 2 max|K| ||u||_1 = 2 s`` on the feasible set, so
    ``grad F / s`` is dimensionless and does not grow with ``n``; the stationarity
    residual of :func:`hull_stationarity` uses the step ``1 / s``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).

    Returns
    -------
    float > 0
        The bound (1 if ``K = 0``).  For a :class:`SignedGram` ``K = Z diag(s) Z'``:
        ``2 max_i ||z_i||^2`` (``>= 2 max_ij |K_ij|`` by Cauchy-Schwarz, so the bound
        on the gradient holds; equal to it for a PSD kernel).
    """
    if isinstance(K, SignedGram):
        return K.gradient_scale()
    s = 2.0 * float(np.max(np.abs(np.asarray(K, dtype=float))))
    return s if s > 0 else 1.0


# ---------------------------------------------------------------------------- projection
def project_hulls(V, y, mu, *, rows=None, check_input=True):
    """Euclidean projection onto the CH-DU feasible set (product of two capped simplices).

    Parameters
    ----------
    V : array of shape (n,) or (n, S)
        Point(s) to project (columns).
    y : array of shape (n,) in {-1, +1}
    mu : float > 0
        Upper bound; must be ``>= 1 / min(n+, n-)``.
    rows : tuple of two int arrays, optional
        ``(flatnonzero(y > 0), flatnonzero(y < 0))`` when the caller has them (a loop).
    check_input : bool, default=True
        Check ``V``, ``y`` and ``mu``; ``False`` for the solvers' loops on checked
        input (``V`` a float array, ``y`` in {-1, +1}, ``mu`` feasible).

    Returns
    -------
    ndarray, same shape as ``V``
        ``argmin ||x - v||`` over ``{0 <= x <= mu, sum_{y=+1} x = 1, sum_{y=-1} x = 1}``.

    Raises
    ------
    ValueError
        For bad labels, an infeasible ``mu`` or a shape mismatch (``check_input``).
    """
    if check_input:
        y = check_signed_labels(y)
        mu = check_hull_mu(mu, y)
        V = _check_alpha_bar(V, y.size)
    return _project(V, y, mu, rows)


def _project(V, y, mu, rows=None):
    """:func:`project_hulls` without the input checks.

    Both classes' capped simplices are projected at once when the larger class has at
    most :data:`_SORT_MAX` points and ``(its size) x (columns) <= _SORT_WORK``
    (:func:`_project_sorted`), else per class by
    :func:`krein.projections.project_capped_simplex` (the same projection by a
    safeguarded Newton iteration, fewer flops, more numpy calls).
    """
    one = V.ndim == 1
    V2 = V[:, None] if one else V
    pos, neg = (np.flatnonzero(y > 0), np.flatnonzero(y < 0)) if rows is None else rows
    m = max(pos.size, neg.size)
    if m <= _SORT_MAX and m * V2.shape[1] <= _SORT_WORK:
        out = _project_sorted(V2, pos, neg, mu)
    else:
        out = np.empty_like(V2)
        for rows in (pos, neg):
            out[rows] = project_capped_simplex(V2[rows], mu)
    return out[:, 0] if one else out


#: Largest class size ``m`` and largest ``m x columns`` of the sort-based projection
#: (:func:`_project_sorted`, O(m log m) per column in one pass); above them the Newton
#: iteration of :func:`krein.projections.project_capped_simplex` (O(m) per pass, a few
#: passes) is used.  Measured (``benchmarks/hull_dc_paths.py --projection``, one BLAS
#: thread, CPU time, points as the loop projects them; Newton / sorted): 2 columns
#: 2.6-15x at n = 2m = 50-1600; 20 columns 3.2-17x at n = 50-100, 2.2-11x at 200,
#: 1.5-6x at 400 (m x columns = 4000), 0.6-2.2x at 800, 0.4-1.6x at 1600.
_SORT_MAX = 800
_SORT_WORK = 4000


def _project_sorted(V, pos, neg, cap):
    """Projection of the columns of ``V`` (n, S) onto the product of the capped simplices
    ``{x_c : 0 <= x_c <= cap, sum x_c = 1}`` of the rows ``pos`` and ``neg``, exactly by
    sorting the breakpoints.

    ``x = clip(v - tau, 0, cap)`` with ``tau`` the root of the piecewise-linear
    non-increasing ``h(tau) = sum_i clip(v_i - tau, 0, cap) - 1`` (as
    :func:`~krein.projections.project_capped_simplex`).  Its breakpoints are the
    ``v_i`` (slope -1 starts) and ``v_i - cap`` (slope +1 back); sorted in decreasing
    order ``b_1 >= b_2 >= ...`` with signs ``s_j``, ``h(b_k) + 1 = sum_{j<k} s_j (b_j - b_k)``
    (cumulative sums), and ``tau`` is on the linear piece where ``h`` first reaches 0.
    The two classes are the two halves of one ``(max(n+, n-), 2 S)`` problem (the
    shorter class padded below every breakpoint, where it contributes nothing), so
    the whole projection is one sort and a fixed number of numpy calls (the safeguarded
    Newton iteration costs a few passes of about as many calls each, per class).
    """
    n, S = V.shape
    m = max(pos.size, neg.size)
    pad = float(V.min()) - cap - 1.0
    W = np.full((m, 2 * S), pad)
    W[:pos.size, :S] = V[pos]
    W[:neg.size, S:] = V[neg]
    B = np.concatenate([W, W - cap], axis=0)
    order = np.argsort(B, axis=0)[::-1]                   # decreasing breakpoints
    cols = np.arange(2 * S)
    Bs = B[order, cols]                                   # np.take_along_axis(B, order, 0)
    Ss = (order < m) * 2.0 - 1.0                          # +1 for a v_i, -1 for a v_i - cap
    SB = Ss * Bs
    csx = np.cumsum(Ss, axis=0) - Ss                      # sum_{j<k} s_j
    cbx = np.cumsum(SB, axis=0) - SB                      # sum_{j<k} s_j b_j
    reach = cbx - csx * Bs >= 1.0                         # h(b_k) >= 0
    # no breakpoint reaches it only by round-off when n_c cap = 1 (every entry at cap)
    k = reach.argmax(axis=0)                              # 0 where no entry reaches it
    k[~reach[k, cols]] = 2 * m - 1
    c, b, bk, bprev = csx[k, cols], cbx[k, cols], Bs[k, cols], Bs[np.maximum(k - 1, 0), cols]
    tau = bk.copy()
    np.divide(b - 1.0, c, out=tau, where=c > 0)
    tau = np.minimum(np.maximum(tau, bk), bprev)
    X = np.clip(W - tau, 0.0, cap)
    X[pos.size:, :S] = 0.0
    X[neg.size:, S:] = 0.0
    # remove the last round-off from the sum on the free entries
    free = (X > 0) & (X < cap)
    nf = free.sum(axis=0)
    corr = (1.0 - X.sum(axis=0)) / np.maximum(nf, 1)      # times free: 0 where nf = 0
    X = np.clip(X + free * corr, 0.0, cap)
    out = np.empty_like(V)
    out[pos] = X[:pos.size, :S]
    out[neg] = X[:neg.size, S:]
    return out


def _lmo(G, y, mu):
    """``argmin_{s in feasible set} g's`` per column (greedy fill of the smallest entries)."""
    S = np.zeros_like(G)
    cap = min(mu, 1.0)
    k_full = int(np.floor(1.0 / cap + 1e-12))
    for cls in (1.0, -1.0):
        rows = np.flatnonzero(y == cls)
        order = np.argsort(G[rows], axis=0, kind="stable")
        Sc = np.zeros((rows.size, G.shape[1]))
        cols = np.arange(G.shape[1])
        k = min(k_full, rows.size)
        Sc[order[:k], cols] = cap       # the k smallest entries of each column
        rest = 1.0 - k * cap
        if k < rows.size and rest > 0:
            Sc[order[k], cols] = rest
        S[rows] = Sc
    return S


# ---------------------------------------------------------------------------- certificates
def hull_stationarity(alpha_bar, K, y, mu, scale=None, *, check_input=True):
    """Stationarity certificates of a CH-DU point (computed by our code, not a solver's).

    * ``residual = ||alpha_bar - P(alpha_bar - grad F / s)||_inf`` with ``P`` the exact
      projection onto the feasible set and ``s`` = :func:`hull_gradient_scale`: zero
      iff the point is stationary (the KKT conditions of CH-DU hold).  It is
      dimensionless (``alpha_bar`` is in [0, 1] and ``grad F / s`` is O(1)); near a
      stationary point it is the largest KKT violation ``|grad F_i - lambda_class|``
      relative to ``s``.
    * ``fw_gap = grad F' (alpha_bar - s*)``, ``s*`` minimizing ``grad F' s`` over the
      feasible set (the Frank-Wolfe gap): zero iff stationary; when CH-DU is convex
      it bounds the suboptimality, ``F - F* <= fw_gap`` (a global certificate).
    * ``violation``: largest violation of the constraints.

    Parameters
    ----------
    alpha_bar : array-like of shape (n,) or (n, S)
        One point or ``S`` points (columns).
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.
    mu : float
        Reduction bound of the hulls (``alpha_bar <= mu``).
    scale : float, optional
        Default :func:`hull_gradient_scale` ``(K)``.
    check_input : bool, default=True
        Check the arguments; ``False`` for the solvers' loops on checked input
        (``alpha_bar`` a float array, ``K`` and ``y`` from :func:`check_hull_data`,
        ``mu`` from :func:`check_hull_mu`).

    Returns
    -------
    dict
        ``residual``, ``fw_gap``, ``violation``, ``objective`` (floats, or
        arrays of shape (S,) for several points).
    """
    if check_input:
        K, y = check_hull_data(K, y)
        mu = check_hull_mu(mu, y)
        alpha_bar = _check_alpha_bar(alpha_bar, y.size)
    return _stationarity(alpha_bar, K, y, mu, scale)


def _stationarity(a, K, y, mu, scale=None):
    """:func:`hull_stationarity` without the input checks."""
    one = a.ndim == 1
    A = a[:, None] if one else a
    L = hull_gradient_scale(K) if scale is None else float(scale)
    U = y[:, None] * A
    KU = K @ U
    G = 2.0 * y[:, None] * KU
    Ap = _project(A - G / L, y, mu)
    res = np.max(np.abs(A - Ap), axis=0)
    S = _lmo(G, y, mu)
    fw = np.sum(G * (A - S), axis=0)
    pos, neg = y > 0, y < 0
    viol = np.maximum.reduce([
        np.max(-A, axis=0, initial=0.0), np.max(A - mu, axis=0, initial=0.0),
        np.abs(A[pos].sum(axis=0) - 1.0), np.abs(A[neg].sum(axis=0) - 1.0)])
    obj = np.sum(U * KU, axis=0)
    out = {"residual": res, "fw_gap": fw, "violation": viol, "objective": obj}
    if one:
        out = {k: float(v[0]) for k, v in out.items()}
    return out


def hull_local_minimality(alpha_bar, K, y, mu, *, bound_tol=1e-7, sc_tol=None, curv_tol=None,
                          check_input=True):
    """Second-order test at a CH-DU stationary point: local minimum, saddle, or undecided.

    For a QP, a KKT point is a local minimum iff the Hessian ``2 Q`` is copositive on
    the critical cone.  Under strict complementarity (every coefficient at a bound has a
    multiplier bounded away from zero) the critical cone is the subspace of directions
    supported on the free coefficients with zero sum per class, and the test is the
    sign of the least eigenvalue of the reduced Hessian there.  A negative eigenvalue
    there proves a saddle whether or not strict complementarity holds.

    Parameters
    ----------
    alpha_bar : array of shape (n,)
        A (numerically) stationary point.
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.
    mu : float
        Reduction bound of the hulls (``alpha_bar <= mu``).
    bound_tol : float
        Coefficients within ``bound_tol`` of 0 or ``mu`` count as at the bound.
    sc_tol, curv_tol : float, optional
        Margins for strict complementarity and for the least reduced eigenvalue;
        default ``1e-7 s`` and ``1e-9 s`` with ``s`` = :func:`hull_gradient_scale`.
    check_input : bool, default=True
        Check the arguments; ``False`` for the solvers on checked input (as
        :func:`hull_stationarity`).

    Returns
    -------
    dict
        ``local_min`` (True, False, or None when strict complementarity fails and the
        reduced Hessian is PSD: undecided), ``strict_complementarity`` (bool),
        ``min_curvature`` (least reduced eigenvalue; ``inf`` if the face is a vertex),
        ``n_free`` (int).

    Raises
    ------
    ValueError
        If ``alpha_bar`` is not one point of shape (n,) (``check_input``).
    """
    if check_input:
        K, y = check_hull_data(K, y)
        mu = check_hull_mu(mu, y)
        alpha_bar = _check_alpha_bar(alpha_bar, y.size)
        if alpha_bar.ndim != 1:
            raise ValueError("alpha_bar must be one point of shape (n,)")
    return _local_minimality(alpha_bar, K, y, mu, bound_tol, sc_tol, curv_tol)


def hull_face_basis(yF):
    """Orthonormal basis of the directions with zero sum per class on a set of coefficients.

    The face of the CH-DU feasible set on which the coefficients ``F`` are free and
    the others fixed: the directions ``d`` supported on ``F`` with ``sum_{y=+1} d = 0``
    and ``sum_{y=-1} d = 0`` (the critical cone of :func:`hull_local_minimality`).

    Parameters
    ----------
    yF : ndarray of shape (k,)
        Labels in {-1, +1} of the free coefficients.

    Returns
    -------
    Z : ndarray of shape (k, k - c)
        Orthonormal columns, ``c`` the number of classes present in ``yF``.

    Notes
    -----
    The last columns of the complete QR of the class indicators ``B' = [1+, 1-]``
    (k, 1 or 2), computed by the LAPACK routines of ``numpy.linalg.qr(B',
    mode="complete")`` (``dgeqrf``, then ``dorgqr`` on the padded square) called
    directly: the same basis (``tests/test_hull_fast_paths.py``), without the wrapper's
    overhead (``benchmarks/lapack_calls.py``, "face-qr": 1.2-2.3x per call at k = 8-128,
    ch 1.05-1.12x), and ch's results independent of NumPy's own LAPACK build.
    """
    B = np.vstack([(yF > 0), (yF < 0)]).astype(float)
    Bt = B[B.sum(axis=1) > 0].T
    k, nb = Bt.shape
    qr, tau, _, info = dgeqrf(Bt)       # benchmarks/lapack_calls.py, "face-qr"
    if info == 0:
        Q = np.zeros((k, k), order="F")
        Q[:, :nb] = qr
        Q, _, info = dorgqr(Q, tau)
    if info != 0:                                 # not expected; numpy raises its error
        Q = np.linalg.qr(Bt, mode="complete")[0]
    # row-major, as numpy returns it: the products with Z then take the same BLAS paths
    return np.ascontiguousarray(Q)[:, nb:]


def _local_minimality(a, K, y, mu, bound_tol=1e-7, sc_tol=None, curv_tol=None):
    """:func:`hull_local_minimality` without the input checks."""
    L = hull_gradient_scale(K)
    sc_tol = 1e-7 * L if sc_tol is None else sc_tol
    curv_tol = 1e-9 * L if curv_tol is None else curv_tol
    u = y * a
    g = 2.0 * y * (K @ u)
    at0 = a <= bound_tol
    # with mu >= 1 the cap is redundant (class sums are 1): never an active constraint
    atU = (a >= mu - bound_tol) if mu < 1.0 else np.zeros_like(at0)
    free = ~at0 & ~atU
    strict = True
    for cls in (1.0, -1.0):
        c = y == cls
        F, Z, U = free & c, at0 & c, atU & c
        if F.any():
            lam = float(np.mean(g[F]))
            if Z.any() and np.min(g[Z]) - lam <= sc_tol:
                strict = False
            if U.any() and np.max(g[U]) - lam >= -sc_tol:
                strict = False
        else:
            lo_ = np.max(g[U]) if U.any() else -np.inf
            hi_ = np.min(g[Z]) if Z.any() else np.inf
            if not hi_ - lo_ > 2 * sc_tol:
                strict = False
    idx = np.flatnonzero(free)
    if idx.size == 0:
        min_curv = np.inf
    else:
        # orthonormal basis of the directions with zero sum per class on the free set
        if isinstance(K, SignedGram):
            min_curv = K.face_curvature(idx, y)
        elif (Z := hull_face_basis(y[idx])).shape[1] == 0:
            min_curv = np.inf
        else:
            H = 2.0 * (y[idx, None] * K[np.ix_(idx, idx)] * y[None, idx])
            min_curv = float(np.linalg.eigvalsh(Z.T @ H @ Z)[0])
    if min_curv < -curv_tol:
        local = False
    elif strict:
        local = True
    else:
        local = None
    return {"local_min": local, "strict_complementarity": strict,
            "min_curvature": min_curv, "n_free": int(idx.size)}


# ---------------------------------------------------------------------------- plane
def hull_plane(alpha_bar, K, y, *, check_input=True):
    """Coefficients and bias of the minimum-distance rule (haasdonk eqs. (6)-(7)).

    ``g(x) = ||Phi(x) - z-||^2_pE - ||Phi(x) - z+||^2_pE = k(x, X) coef + intercept``
    with ``coef = 2 u`` and ``intercept = -alpha_bar' K u``: the plane through the
    midpoint of ``z+ z-`` with pE normal ``w = z+ - z-`` (see the module docstring
    for the corrected bias of eq. (7)).

    Parameters
    ----------
    alpha_bar : array-like of shape (n,)
        A CH-DU point (convex weights of each class's hull).
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.
    check_input : bool, default=True
        Check the arguments; ``False`` on checked input (:func:`check_hull_data`).

    Returns
    -------
    coef : ndarray of shape (n,)
        ``2 u`` with ``u = y * alpha_bar``: the rule is ``k(x, X) coef + intercept``.
    intercept : float
        ``-alpha_bar' K u``.

    Raises
    ------
    ValueError
        If ``alpha_bar`` is not one point of shape (n,) (``check_input``).
    """
    if check_input:
        K, y = check_hull_data(K, y)
        alpha_bar = _check_alpha_bar(alpha_bar, y.size)
        if alpha_bar.ndim != 1:
            raise ValueError("alpha_bar must be one point of shape (n,)")
    a = alpha_bar
    u = y * a
    Ku = K @ u
    return 2.0 * u, -float(a @ Ku)


# ---------------------------------------------------------------------------- convexity
@dataclass(frozen=True)
class HullConvexity:
    """Result of :func:`hull_convexity`.

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    is_convex : bool
        Whether ``P K P`` is PSD within ``tol`` (CH-DU convex on its feasible set).
    min_eigenvalue : float
        Least eigenvalue of ``K`` restricted to the feasible directions (the range of
        ``P``, which projects out ``span{1+, 1-}``), i.e. of ``Z'QZ`` for an
        orthonormal basis ``Z`` of the directions with zero class sums.
    tol : float
        Tolerance used.
    factor : ndarray of shape (n, r) or None
        ``L`` with ``L L' = `` the PSD part of ``P K P`` (eigenvalues ``> tol``);
        only when ``is_convex``.
    linear : ndarray of shape (n,)
        ``2 P K c0``, the linear term of ``F`` on the feasible set.
    constant : float
        ``c0' K c0`` (the squared pE distance of the class means, haasdonk §7.3 "DCM").
    """

    is_convex: bool
    min_eigenvalue: float
    tol: float
    factor: np.ndarray | None
    linear: np.ndarray
    constant: float


def hull_convexity(K, y, tol=None, *, check_input=True):
    """Check numerically whether CH-DU is convex on its feasible set, and factor it.

    CH-DU is convex iff ``P K P`` is PSD, ``P = I - 1+ 1+'/n+ - 1- 1-'/n-`` (the
    projector onto the directions of the feasible set; see the module docstring).
    A conditionally positive definite kernel always passes.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.
    tol : float, optional
        Eigenvalues ``>= -tol`` count as zero.  Default ``100 n eps ||K||_inf``
        (the round-off of forming ``P K P`` scales with ``K``; ``||K||_inf`` is the
        cheap upper bound of ``||K||_2`` used by
        :func:`krein.formulations.psd_factor`'s ``100 n eps max|lam|``).
    check_input : bool, default=True
        Check ``K`` and ``y``; ``False`` on checked input (:func:`check_hull_data`).

    Returns
    -------
    convexity : HullConvexity
        The verdict, the least feasible-direction eigenvalue and, when convex,
        the factor and terms of the convex reformulation.

    Raises
    ------
    ValueError
        On bad ``K``/``y`` or a negative ``tol``.
    """
    if check_input:
        K, y = check_hull_data(K, y)
    n = y.size
    pos, neg = y > 0, y < 0
    c0 = pos / pos.sum() - neg / neg.sum()

    def proj_cols(A):  # P A (P acts on rows)
        A = A.copy()
        A[pos] -= A[pos].mean(axis=0)
        A[neg] -= A[neg].mean(axis=0)
        return A

    PKP = proj_cols(proj_cols(K).T)
    # move the two directions P removes (1+/sqrt(n+), 1-/sqrt(n-), eigenvalue 0 of P K P)
    # above the whole spectrum, so that the remaining eigenpairs are exactly those of
    # K restricted to the feasible directions: the two largest are then dropped
    shift = 1.0 + hull_lipschitz(K)
    M = PKP + shift * (np.outer(pos, pos) / pos.sum() + np.outer(neg, neg) / neg.sum())
    lam, V = np.linalg.eigh(0.5 * (M + M.T))
    lam, V = lam[:-2], V[:, :-2]
    if tol is None:
        scale = 0.5 * hull_lipschitz(K)   # max row sum of |K| >= ||K||_2
        tol = 100 * n * np.finfo(float).eps * scale
    elif not isinstance(tol, numbers.Real) or not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}")
    Kc0 = K @ c0
    linear = 2.0 * proj_cols(Kc0[:, None])[:, 0]
    constant = float(c0 @ Kc0)
    min_eig = float(lam[0]) if lam.size else 0.0
    convex = bool(min_eig >= -tol)
    factor = None
    if convex:
        factor = spectral_factor(V, lam, lam > tol)
    return HullConvexity(convex, min_eig, float(tol), factor, linear, constant)


# ---------------------------------------------------------------------------- CVXPY
class ConvexHullDual(Formulation):
    """CH-DU (haasdonk §4) as a convex QP in CVXPY, for kernels where it is convex.

    Minimizes ``F = ||L' u||^2 + linear' u + constant`` (``= u'K u`` on the
    feasible set, module docstring) over ``u = y * alpha_bar``,
    ``0 <= alpha_bar <= mu``, class sums 1.  DPP in ``mu``.

    Parameters
    ----------
    K : array of shape (n, n)
        Kernel matrix; CH-DU must be convex on it (checked by
        :func:`hull_convexity`).
    y : array of shape (n,) in {-1, +1}
    mu : float
        Reduction bound, ``>= 1 / min(n+, n-)``.
    convexity : HullConvexity, optional
        A result of :func:`hull_convexity` on the same ``K, y`` (to skip the check).
    psd_tol : float, optional
        Tolerance of the convexity check.
    form : {"factor", "quad_form"}
        ``sum_squares(L' u)`` or ``quad_form(u, psd_wrap(L L'))`` (``L L'`` is PSD
        by construction, from the checked eigendecomposition, and certified by its
        own eigenvalues before the wrap: :func:`~krein.formulations.base.certified_psd_wrap`).

    Attributes
    ----------
    variables : {"alpha_bar"}
    parameters : {"mu"}
    constraints : {"lower", "upper", "sum_pos", "sum_neg"}
        The multipliers of the class sums are ``-lambda_+-`` of the KKT conditions.
    convexity : HullConvexity

    Raises
    ------
    ValueError
        If CH-DU is not convex on ``K`` (the message gives the least eigenvalue and
        points to the local solvers), or on bad input.

    References
    ----------
    B. Haasdonk (2005), §4 (CH-DU) and §3.2 (reduced convex hulls); K. P. Bennett &
    E. J. Bredensteiner (2000) and D. J. Crisp & C. J. C. Burges (2000) for the
    Euclidean case.
    """

    name = "ch-du"
    problem_class = "QP"

    def __init__(self, K, y, mu=1.0, *, convexity=None, psd_tol=None, form="factor"):
        K, y = check_hull_data(K, y)
        mu = check_hull_mu(mu, y)
        if form not in ("factor", "quad_form"):
            raise ValueError(f"form must be 'factor' or 'quad_form'; got {form!r}")
        conv = hull_convexity(K, y, psd_tol) if convexity is None else convexity
        if not isinstance(conv, HullConvexity) or conv.linear.shape != (y.size,):
            raise ValueError("convexity must be the HullConvexity of this K and y")
        if not conv.is_convex:
            raise ValueError(
                "CH-DU is not convex for this kernel: the kernel projected onto the feasible "
                f"directions (orthogonal to both class indicators) has eigenvalue "
                f"{conv.min_eigenvalue:.6g} < -{conv.tol:.3g}; it is not conditionally "
                "positive definite.  Use a local solver (ConvexHullClassifier(solver="
                "'multistart') or solver='nu-svm')"
            )
        self.K, self.y, self.convexity = K, y, conv
        n = y.size
        a = cp.Variable(n, name="alpha_bar")
        mup = cp.Parameter(nonneg=True, name="mu", value=float(mu))
        u = cp.multiply(y, a)
        L = conv.factor
        if L.shape[1] == 0:
            quad = 0.0
        elif form == "factor":
            quad = cp.sum_squares(L.T @ u)
        else:
            quad = cp.quad_form(u, certified_psd_wrap(L @ L.T, name="L L' (the CH-DU factor)"))
        obj = quad + conv.linear @ u + conv.constant
        pos, neg = y > 0, y < 0
        cons = {"lower": a >= 0, "upper": a <= mup,
                "sum_pos": cp.sum(a[np.flatnonzero(pos)]) == 1,
                "sum_neg": cp.sum(a[np.flatnonzero(neg)]) == 1}
        problem = cp.Problem(cp.Minimize(obj), list(cons.values()))
        super().__init__(problem, {"mu": mup}, {"alpha_bar": a}, cons)

    def set(self, **values):  # noqa: D102 - documented in the base class
        """Set parameter values by name, checking ``mu`` against the class sizes.

        Parameters
        ----------
        **values
            ``mu=`` the reduction bound (at least :func:`hull_mu_min`).

        Returns
        -------
        self : ConvexHullDual
            The formulation, for chaining.

        Raises
        ------
        ValueError
            For an unknown name or a ``mu`` out of range.
        """
        if "mu" in values:
            check_hull_mu(values["mu"], self.y)
        return super().set(**values)

    def certificate(self):
        """Constraint violation, stationarity residual and Frank-Wolfe gap at the solver's point.

        ``gap`` is the Frank-Wolfe gap, an upper bound on ``F - F*`` (CH-DU is convex
        here); ``dual_residual`` is the projected-gradient residual of
        :func:`hull_stationarity`; ``objective_direct`` is ``u'K u`` recomputed.

        Returns
        -------
        certificate : dict
            ``primal_residual``, ``dual_residual``, ``gap`` and ``objective_direct``.
        """
        a = np.asarray(self.variables["alpha_bar"].value, dtype=float)
        mu = float(self.parameters["mu"].value)
        st = hull_stationarity(a, self.K, self.y, mu)
        return {"primal_residual": st["violation"], "dual_residual": st["residual"],
                "gap": st["fw_gap"], "objective_direct": st["objective"]}


# ---------------------------------------------------------------------------- Prop. 3
def svm_to_hull(alpha, C):
    """Prop. 3, case 1: SVM-DU point -> CH-DU point, ``alpha_bar = 2 alpha / sum(alpha)``,
    ``mu = 2 C / sum(alpha)``.

    Parameters
    ----------
    alpha : array of shape (n,)
        Non-negative SVM dual variables with ``y'alpha = 0`` (not all zero).
    C : float > 0
        Box bound of SVM-DU.

    Returns
    -------
    alpha_bar : ndarray of shape (n,)
        ``2 alpha / sum(alpha)``; each class sums to 1.
    mu : float
        ``2 C / sum(alpha)``, the reduction bound.

    Raises
    ------
    ValueError
        If ``alpha`` has negative or non-finite entries or is zero, or ``C <= 0``.

    Notes
    -----
    The class sums of ``alpha`` are equal (``y'alpha = 0``), so each class sum of
    ``alpha_bar`` is 1.  Stationary points map to stationary points and local optima
    to local optima (haasdonk Prop. 3, case 1).
    """
    C = check_positive(C, "C", allow_inf=False)
    alpha = np.asarray(alpha, dtype=float)
    if alpha.ndim != 1 or not np.all(np.isfinite(alpha)):
        raise ValueError("alpha must be a finite 1-d array")
    if np.any(alpha < -1e-12 * max(1.0, C)):
        raise ValueError("alpha must be non-negative (SVM dual variables)")
    s = float(np.sum(np.maximum(alpha, 0.0)))
    if s <= 0:
        raise ValueError("alpha is zero: Prop. 3, case 1 needs a nonzero stationary point")
    return 2.0 * np.maximum(alpha, 0.0) / s, 2.0 * C / s


def hull_to_svm(alpha_bar, mu, K, y, *, free_tol=1e-8):
    """Prop. 3, case 2: CH-DU stationary point -> SVM-DU point ``alpha = alpha_bar / rho``,
    ``C = mu / rho``, with the SVM bias.

    ``rho = 1/2 alpha_bar' Q (e_k + e_l)`` for unbounded ``0 < alpha_bar_k, alpha_bar_l < mu``
    with ``y_k = +1``, ``y_l = -1``.  At an exact stationary point ``(Q alpha_bar)_k``
    is the same for every free ``k`` of a class (it is half the class multiplier), so
    ``rho`` does not depend on the choice; numerically we average ``(Q alpha_bar)_k``
    over the free coefficients of each class.

    Parameters
    ----------
    alpha_bar : array-like of shape (n,)
        A CH-DU stationary point.
    mu : float
        Its reduction bound (``mu >= 1`` means unbounded: the map then gives ``C``
        with no bounded ``alpha``).
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.
    free_tol : float
        ``alpha_bar_i`` in ``(free_tol, mu - free_tol)`` counts as unbounded.

    Returns
    -------
    alpha : ndarray of shape (n,)
        SVM-DU dual variables ``alpha_bar / rho``.
    C : float
        Box bound ``mu / rho``.
    b : float
        Intercept of ``f(x) = k(x, X) (y * alpha) + b`` with ``y_k f(x_k) = 1`` on
        the free points (haasdonk eq. (8)).

    Raises
    ------
    ValueError
        If a class has no unbounded coefficient, or ``rho <= 0`` (Prop. 3, case 2 then
        gives no SVM point; e.g. haasdonk Fig. 1c).
    """
    K, y = check_hull_data(K, y)
    mu = check_positive(mu, "mu")
    a = _check_alpha_bar(alpha_bar, y.size)
    if a.ndim != 1:
        raise ValueError("alpha_bar must be one point of shape (n,)")
    g = y * (K @ (y * a))           # (Q alpha_bar)_i
    free = (a > free_tol) & ((a < mu - free_tol) | (mu >= 1.0))
    Fp, Fm = free & (y > 0), free & (y < 0)
    if not Fp.any() or not Fm.any():
        raise ValueError("Prop. 3, case 2 needs an unbounded coefficient (0 < alpha_bar < mu) in "
                         "each class; this point has none in "
                         + ("the positive class" if not Fp.any() else "the negative class"))
    gp, gm = float(np.mean(g[Fp])), float(np.mean(g[Fm]))
    rho = 0.5 * (gp + gm)
    if not rho > 0:
        raise ValueError(f"rho = 1/2 alpha_bar' Q (e_k + e_l) = {rho:.6g} is not positive: "
                         "Prop. 3, case 2 gives no SVM-DU point")
    return a / rho, float(mu / rho), (gm - gp) / (2.0 * rho)


def svm_dual_stationarity(alpha, K, y, C):
    """Stationarity residual of a point of the C-SVM dual (SVM-DU, haasdonk §5).

    SVM-DU: ``max W(alpha) = 1'alpha - 1/2 alpha' Q alpha`` s.t. ``0 <= alpha <= C``,
    ``y'alpha = 0`` (any symmetric ``K``).  The residual is the gradient mapping
    ``L ||alpha - P(alpha + grad W / L)||_inf`` with ``grad W = 1 - Q alpha``, ``P``
    the exact projection onto the feasible set and ``L = max_i sum_j |K_ij|``
    (``>= ||Q||_2``); it is in the units of ``grad W`` (margin violations,
    comparable to libsvm's ``tol``) and zero iff ``alpha`` is stationary.

    Parameters
    ----------
    alpha : array-like of shape (n,)
        A point of SVM-DU.
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,) in {-1, +1}
        Labels.
    C : float > 0 or array-like of shape (n,)
        Box bound, or one bound ``C_i > 0`` per sample (``0 <= alpha_i <= C_i``,
        as libsvm's per-sample weights / scikit-learn's ``class_weight``).

    Returns
    -------
    dict
        ``residual`` (the gradient mapping), ``violation`` (largest constraint
        violation) and ``objective`` (``W(alpha)``).

    Raises
    ------
    ValueError
        If ``alpha`` does not have the shape of ``y``.
    """
    K, y = check_hull_data(K, y)
    if np.ndim(C) == 0:
        C = check_positive(C, "C")
    else:
        C = np.asarray(C, dtype=float)
        if C.shape != y.shape or not np.all(np.isfinite(C) & (C > 0)):
            raise ValueError(f"per-sample C must be finite numbers > 0 of shape {y.shape}")
    alpha = np.asarray(alpha, dtype=float)
    if alpha.shape != y.shape:
        raise ValueError(f"alpha must have shape {y.shape}; got {alpha.shape}")
    L = 0.5 * hull_lipschitz(K)
    Qa = y * (K @ (y * alpha))
    grad = 1.0 - Qa
    p = project_box_hyperplane(alpha + grad / L, y, 0.0, C)
    viol = max(float(np.max(-alpha, initial=0.0)), float(np.max(alpha - C, initial=0.0)),
               abs(float(y @ alpha)))
    return {"residual": float(L * np.max(np.abs(alpha - p))), "violation": viol,
            "objective": float(alpha.sum() - 0.5 * alpha @ Qa)}
