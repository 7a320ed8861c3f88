"""The nearest PSD matrix with a fixed diagonal in a weighted Frobenius norm (munoz eq. 9).

Munoz & de Diego (2006, "munoz") §3.3, problem (9)::

    minimize    ||K - X||_W        ||A||_W = ||W^(1/2) A W^(1/2)||_F
    subject to  X = X',  X PSD,  diag(X) = c

with ``W`` symmetric positive definite (munoz writes "PSD"; ``W^(-1/2)`` in
their eq. (11) needs it definite, and a singular ``W`` makes ``||.||_W`` a
seminorm, the minimizer then not unique).  This is Higham's (2002) ``W``-norm
nearest correlation matrix problem when ``c = 1``; ``c`` may be any nonnegative
vector here, or absent (no diagonal constraint: the minimizer is then the
``W``-weighted clip ``W^(-1/2) (W^(1/2) K W^(1/2))_+ W^(-1/2)``, munoz eq. 11).

This module holds WHAT is optimized: the validation of the weights and of the
diagonal shared by the solver and the estimator (:class:`WeightedNorm`,
:func:`check_weights`, :func:`resolve_diagonal`), the CVXPY semidefinite program
(:class:`NearestPSDSDP`, the reference for small ``n``) and an optimality
certificate computed from a candidate ``X`` alone (:func:`nearest_psd_certificate`).

Optimality conditions
---------------------
With ``f(X) = ||K - X||_W^2 / 2``, ``grad f = W (X - K) W``.  The Lagrangian
``f(X) - <Z, X> - theta'(diag X - c)`` (``Z`` PSD, ``theta`` free) gives the
KKT conditions of this convex problem (Slater holds when ``c > 0``: ``Diag(c)``
is an interior point of the PSD cone):

* primal: ``X`` PSD and ``diag(X) = c``;
* stationarity: ``W (K - X) W = Diag(theta) + N`` with ``N = -Z``;
* dual: ``N`` negative semidefinite;
* complementarity: ``X N = 0`` (equivalently ``<X, N> = 0`` for ``X`` PSD, ``N`` NSD).

So the diagonal multiplier is *diagonal* in the original coordinates for any
SPD ``W`` (in Higham's projection formula it appears as ``W^-1 Diag(theta) W^-1``
because it is expressed there as a step in the ``W`` inner product).  Given a
candidate ``X``, :func:`nearest_psd_certificate` recovers ``theta`` from
complementarity, ``X (G - Diag(theta)) = 0`` with ``G = W (K - X) W``, column by
column in the least-squares sense: ``theta_j = <x_j, (X G)_j> / ||x_j||^2``
(``x_j`` the j-th column of ``X``), and measures what is left of the conditions.
This uses nothing of the algorithm that produced ``X``.

The dual (Qi & Sun 2006)
------------------------
For ``W = I`` (a diagonal ``W`` reduces to it with ``Y = W^(1/2) X W^(1/2)``)
the Lagrangian dual of ``min 1/2 ||X - K||_F^2`` over the PSD matrices with
``diag(X) = c`` is ``max_y  1/2 ||K||_F^2 + c'y - 1/2 ||(K + Diag(y))_+||_F^2``,
attained at ``y = -theta``, with primal solution ``X = (K + Diag(y))_+``.  Every
``y`` gives a lower bound on the optimal value, hence a duality gap for any
feasible ``X``; :func:`krein.solvers.psd_newton.nearest_psd_newton` solves this
dual by a semismooth Newton method and reports the gap.

References
----------
A. Munoz and I. Martin de Diego (2006), "From indefinite to positive
semi-definite matrices", §3.3, eqs. (9)-(12).
N. J. Higham (2002), "Computing the nearest correlation matrix -- a problem
from finance", IMA J. Numer. Anal. 22, 329-343 (W-norm, Theorems 3.1-3.2).
H. Qi and D. Sun (2006), "A quadratically convergent Newton method for computing
the nearest correlation matrix", SIAM J. Matrix Anal. Appl. 28, 360-385.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from .._validation import SYMMETRY_RTOL, check_square_kernel
from ..kernels import kernel_scale
from .base import Formulation

__all__ = ["WeightedNorm", "check_weights", "resolve_diagonal", "nearest_psd_certificate",
           "NearestPSDSDP", "DIAGONAL_OPTIONS"]

#: String values accepted for ``diagonal`` (besides ``None``, a number or an array).
DIAGONAL_OPTIONS = ("keep", "scale")


@dataclass(frozen=True)
class WeightedNorm:
    """The weighted Frobenius norm ``||A||_W = ||W^(1/2) A W^(1/2)||_F`` of munoz (9).

    Build it with :func:`check_weights`.  Three kinds, each with the cheapest
    arithmetic: ``"identity"`` (``W = I``), ``"diagonal"`` (``W = Diag(w)``:
    ``W^(1/2) A W^(1/2) = A o (s s')`` with ``s = sqrt(w)``) and ``"matrix"``
    (a general SPD ``W``, square roots from its eigendecomposition).

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    kind : {"identity", "diagonal", "matrix"}
        Which form ``W`` has.
    n : int
        Size of the matrices the norm applies to.
    w : ndarray of shape (n,) or None
        Diagonal of ``W`` (``"diagonal"``), else None.
    W : ndarray of shape (n, n) or None
        ``W`` (``"matrix"``), else None.
    sqrt : ndarray of shape (n,) or (n, n) or None
        ``s = sqrt(w)`` or ``W^(1/2)``.
    inv_sqrt : ndarray of shape (n,) or (n, n) or None
        ``1 / s`` or ``W^(-1/2)``.
    """

    kind: str
    n: int
    w: np.ndarray | None = None
    W: np.ndarray | None = None
    sqrt: np.ndarray | None = None
    inv_sqrt: np.ndarray | None = None

    def to_scaled(self, A):
        """Scale a matrix into the unweighted space: ``W^(1/2) A W^(1/2)``.

        Parameters
        ----------
        A : ndarray of shape (n, n)
            A symmetric matrix.

        Returns
        -------
        ndarray of shape (n, n)
            ``W^(1/2) A W^(1/2)`` (a new array).
        """
        if self.kind == "identity":
            return np.array(A, dtype=float)
        if self.kind == "diagonal":
            return A * np.outer(self.sqrt, self.sqrt)
        return self.sqrt @ A @ self.sqrt

    def from_scaled(self, A):
        """Scale back from the unweighted space: ``W^(-1/2) A W^(-1/2)``.

        Parameters
        ----------
        A : ndarray of shape (n, n)
            A symmetric matrix.

        Returns
        -------
        ndarray of shape (n, n)
            ``W^(-1/2) A W^(-1/2)`` (a new array).
        """
        if self.kind == "identity":
            return np.array(A, dtype=float)
        if self.kind == "diagonal":
            return A * np.outer(self.inv_sqrt, self.inv_sqrt)
        return self.inv_sqrt @ A @ self.inv_sqrt

    def sandwich(self, A):
        """The gradient map of ``||.||_W^2 / 2``: ``W A W``.

        Parameters
        ----------
        A : ndarray of shape (n, n)
            A symmetric matrix.

        Returns
        -------
        ndarray of shape (n, n)
            ``W A W`` (a new array).
        """
        if self.kind == "identity":
            return np.array(A, dtype=float)
        if self.kind == "diagonal":
            return A * np.outer(self.w, self.w)
        return self.W @ A @ self.W

    def norm(self, A):
        """The weighted Frobenius norm ``||A||_W = ||W^(1/2) A W^(1/2)||_F`` (munoz 9).

        Parameters
        ----------
        A : ndarray of shape (n, n)
            A symmetric matrix.

        Returns
        -------
        float
            ``||A||_W``.
        """
        return float(np.linalg.norm(self.to_scaled(A)))

    def matrix(self):
        """The weight matrix as a dense array.

        Returns
        -------
        W : ndarray of shape (n, n)
            ``W`` (a new array).
        """
        if self.kind == "identity":
            return np.eye(self.n)
        if self.kind == "diagonal":
            return np.diag(self.w)
        return self.W.copy()


def check_weights(weights, n, name="weights"):
    """Validate the weights of munoz (9) and return the :class:`WeightedNorm`.

    Parameters
    ----------
    weights : None, array of shape (n,) or (n, n), or WeightedNorm
        ``None``: ``W = I`` (the Frobenius norm).  A vector of positive finite
        numbers: ``W = Diag(weights)`` (munoz: "In practice, we suggest to use a
        diagonal matrix W").  A symmetric positive definite matrix (symmetrized
        within :data:`krein._validation.SYMMETRY_RTOL`); a matrix with zero
        off-diagonal entries is treated as diagonal.
    n : int
        Size of the kernel matrix.
    name : str
        Argument name for error messages.

    Returns
    -------
    norm : WeightedNorm
        The norm ``||.||_W`` of the given weights.

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, a non-positive diagonal weight, an asymmetric
        matrix, or a matrix that is not positive definite (least eigenvalue at or
        below ``n * machine_eps * largest``).
    """
    if isinstance(weights, WeightedNorm):
        if weights.n != n:
            raise ValueError(f"{name} is for size {weights.n}; the kernel has size {n}")
        return weights
    if weights is None:
        return WeightedNorm("identity", n)
    if isinstance(weights, str):
        raise ValueError(f"{name} must be None, an array of shape ({n},) of positive weights or "
                         f"a symmetric positive definite array of shape ({n}, {n}); "
                         f"got {weights!r}")
    arr = np.asarray(weights, dtype=float)
    if arr.ndim == 1:
        if arr.shape != (n,):
            raise ValueError(f"{name} as a vector must have shape ({n},) (one weight per training "
                             f"point); got {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"{name} must be positive finite numbers (W = Diag(weights) must be "
                             f"positive definite); got min {np.nanmin(arr) if arr.size else arr!r}")
        s = np.sqrt(arr)
        return WeightedNorm("diagonal", n, w=arr.copy(), sqrt=s, inv_sqrt=1.0 / s)
    if arr.ndim == 2:
        if arr.shape != (n, n):
            raise ValueError(f"{name} as a matrix must have shape ({n}, {n}); got {arr.shape}")
        W = check_square_kernel(arr, name, sym_rtol=SYMMETRY_RTOL, copy=True)
        d = np.diag(W).copy()
        if np.count_nonzero(W - np.diag(d)) == 0:
            return check_weights(d, n, name)
        mu, Q = np.linalg.eigh(W)
        if mu[0] <= n * np.finfo(float).eps * max(mu[-1], 0.0) or mu[-1] <= 0:
            raise ValueError(f"{name} must be positive definite; its least eigenvalue is "
                             f"{mu[0]:.3g} (largest {mu[-1]:.3g})")
        rt = np.sqrt(mu)
        S = (Q * rt) @ Q.T
        B = (Q / rt) @ Q.T
        return WeightedNorm("matrix", n, W=W, sqrt=0.5 * (S + S.T), inv_sqrt=0.5 * (B + B.T))
    raise ValueError(f"{name} must be None, a vector of shape ({n},) or a matrix of shape "
                     f"({n}, {n}); got an array of shape {arr.shape}")


def resolve_diagonal(diagonal, K, name="diagonal"):
    """The fixed diagonal ``c`` of munoz (9) for a kernel ``K``.

    Parameters
    ----------
    diagonal : None, "keep", "scale", float or array of shape (n,)
        ``None``: no diagonal constraint.  ``"keep"``: ``c = diag(K)`` (the
        input's self-similarities are kept).  ``"scale"``: ``c = s 1`` with ``s =
        kernel_scale(K)`` (:func:`krein.kernels.kernel_scale`, mean ``|K_ii|``): the
        unit diagonal of munoz's Ionosphere setting for the kernel divided by its
        scale, positive whatever the signs of ``diag(K)``.  A number: ``c = diagonal * 1``
        (``1.0`` gives the nearest correlation matrix, Higham 2002).  An array:
        the values themselves.
    K : ndarray of shape (n, n)
        The kernel matrix (its diagonal for ``"keep"``, its size otherwise).
    name : str
        Argument name for error messages.

    Returns
    -------
    c : ndarray of shape (n,) or None
        The required diagonal of the corrected matrix, or None for no constraint.

    Raises
    ------
    ValueError
        An unknown string, a wrong length, NaN/inf, or a negative entry (a PSD
        matrix has a nonnegative diagonal, so the problem would be infeasible).
    """
    n = K.shape[0]
    if diagonal is None:
        return None
    if isinstance(diagonal, str):
        if diagonal not in DIAGONAL_OPTIONS:
            raise ValueError(f"{name} must be None, 'keep', 'scale', a number >= 0 or an array "
                             f"of shape ({n},); got {diagonal!r}")
        if diagonal == "scale":
            return np.full(n, kernel_scale(K))
        c = np.diag(K).astype(float).copy()
        if np.any(c < 0):
            raise ValueError(f"{name}='keep' needs a nonnegative diagonal of K (a PSD matrix has "
                             f"one); K has {int(np.sum(c < 0))} negative diagonal entries (least "
                             f"{c.min():.3g}); use 'scale', a number (e.g. 1.0) or None")
        return c
    if isinstance(diagonal, numbers.Real) and not isinstance(diagonal, bool):
        if not np.isfinite(diagonal) or diagonal < 0:
            raise ValueError(f"{name} must be a finite number >= 0; got {diagonal!r}")
        return np.full(n, float(diagonal))
    if isinstance(diagonal, bool):
        raise ValueError(f"{name} must be None, 'keep', a number >= 0 or an array; "
                         f"got {diagonal!r}")
    c = np.asarray(diagonal, dtype=float)
    if c.shape != (n,):
        raise ValueError(f"{name} as an array must have shape ({n},) (one value per training "
                         f"point); got {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError(f"{name} must have finite entries >= 0 (a PSD matrix has a "
                         f"nonnegative diagonal)")
    return c.copy()


def nearest_psd_certificate(K, X, diagonal=None, weights=None, theta=None):
    """Optimality certificate of a candidate ``X`` for munoz (9), from ``X`` alone.

    See the module docstring for the KKT conditions.  With ``G = W (K - X) W``
    and ``N = G - Diag(theta)`` (``theta = 0`` without a diagonal constraint):

    Parameters
    ----------
    K : array of shape (n, n)
        The matrix being approximated.
    X : array of shape (n, n)
        Candidate (symmetrized here).
    diagonal : ndarray of shape (n,) or None
        The resolved fixed diagonal ``c`` (:func:`resolve_diagonal`).
    weights : None, array or WeightedNorm
        As in :func:`check_weights`.
    theta : array of shape (n,), optional
        A diagonal multiplier to test; default: the least-squares solution of
        ``X (G - Diag(theta)) = 0`` column by column (for a column of ``X`` with
        norm below ``1e-12 * ||X||_F``, ``theta_j = G_jj``).

    Returns
    -------
    dict
        ``objective`` (``||K - X||_W``), ``psd_violation``
        (``max(0, -lam_min(X)) / max(1, ||X||_F)``), ``diagonal_violation``
        (``max |diag X - c| / max(1, max c)``), ``dual_violation``
        (``max(0, lam_max(N)) / max(1, ||G||_F)``), ``complementarity``
        (``||X N||_F / (||X||_F ||G||_F)``, 0 when ``G = 0``), ``gap``
        (``|-<X, N> + theta'(diag X - c)| / (||X||_F ||G||_F)``, the duality gap
        of the pair ``(theta, Z = -N)`` scaled like the complementarity),
        ``theta``; and the summary ``primal_residual`` (max of the two primal
        violations) and ``dual_residual`` (``max(dual_violation, complementarity)``).

    Raises
    ------
    ValueError
        On shape mismatches.
    """
    K = np.asarray(K, dtype=float)
    X = np.asarray(X, dtype=float)
    n = K.shape[0]
    if K.shape != (n, n) or X.shape != (n, n):
        raise ValueError(f"K and X must both have shape (n, n); got {K.shape} and {X.shape}")
    X = 0.5 * (X + X.T)
    norm = check_weights(weights, n)
    D = K - X
    G = norm.sandwich(D)
    G = 0.5 * (G + G.T)
    nX = float(np.linalg.norm(X))
    nG = float(np.linalg.norm(G))
    XG = X @ G  # X N = X G - X Diag(theta): one product serves theta and the complementarity
    if diagonal is None:
        th = np.zeros(n)
        dviol = 0.0
        dres = np.zeros(n)
    else:
        c = np.asarray(diagonal, dtype=float)
        dres = np.diag(X) - c
        dviol = float(np.max(np.abs(dres))) / max(1.0, float(np.max(c)))
        if theta is None:
            col2 = np.einsum("ij,ij->j", X, X)
            num = np.einsum("ij,ij->j", X, XG)
            small = col2 <= (1e-12 * max(nX, np.finfo(float).tiny)) ** 2
            th = np.where(small, np.diag(G), num / np.where(small, 1.0, col2))
        else:
            th = np.asarray(theta, dtype=float)
            if th.shape != (n,):
                raise ValueError(f"theta must have shape ({n},); got {th.shape}")
    N = G - np.diag(th)
    lam_X = np.linalg.eigvalsh(X)
    lam_N = np.linalg.eigvalsh(N)
    psd = max(0.0, -float(lam_X[0])) / max(1.0, nX)
    dual = max(0.0, float(lam_N[-1])) / max(1.0, nG)
    scale = nX * nG
    if scale > 0:
        XG -= X * th[None, :]
        comp = float(np.linalg.norm(XG)) / scale
        gap = abs(-float(np.sum(X * N)) + float(th @ dres)) / scale
    else:
        comp = gap = 0.0
    return {
        "objective": norm.norm(D),
        "psd_violation": psd,
        "diagonal_violation": dviol,
        "dual_violation": dual,
        "complementarity": comp,
        "gap": gap,
        "theta": th,
        "primal_residual": max(psd, dviol),
        "dual_residual": max(dual, comp),
    }


class NearestPSDSDP(Formulation):
    """Munoz (9) as a CVXPY semidefinite program (DPP in ``K`` and ``c`` on request).

    ``minimize ||W^(1/2) (K - X) W^(1/2)||_F  s.t.  X >> 0,  diag(X) == c``
    (the constraint on the diagonal only when ``diagonal`` is not None).  The
    reference for small ``n`` (the problem has ``n (n + 1) / 2`` variables, a PSD
    cone of order ``n`` and a second-order cone of dimension ``n^2 + 1``); any
    installed solver with PSD cones solves it (CLARABEL, SCS).  The fast paths are
    :func:`krein.solvers.psd_newton.nearest_psd_newton` (``W = I`` or diagonal) and
    :func:`krein.solvers.alternating.alternating_projections` (any SPD ``W``).

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric matrix to approximate (validated, symmetrized within tolerance).
    diagonal : None, "keep", float or array of shape (n,)
        See :func:`resolve_diagonal`.
    weights : None, array of shape (n,) or (n, n)
        See :func:`check_weights`.
    parametric : bool
        ``True``: ``K`` and ``c`` are ``cvxpy.Parameter`` objects (the problem is
        DPP; :meth:`set` and a re-solve skip recompiling).  ``False`` (default):
        they are constants.  CVXPY's DPP compilation keeps a map from every
        parameter entry to the problem data, which for an ``n x n`` parameter
        grows far faster than the problem: measured with SCS, compiling took
        1.6-15 s at ``n = 200`` (against 0.1 s with constants) and at ``n = 400``
        tried to allocate 48 GiB.  Use it for repeated small problems only.

    Attributes
    ----------
    variables : {"X"}
        Symmetric (n, n).
    parameters : {"K"} and {"c"} with a diagonal constraint, when ``parametric``
        (else empty)
    constraints : {"psd"} and {"diagonal"} with a diagonal constraint
    K : ndarray of shape (n, n)
        The validated input (the value of the ``K`` parameter at construction).
    diagonal : ndarray of shape (n,) or None
        The resolved ``c``.
    norm : WeightedNorm

    Raises
    ------
    ValueError
        On a bad ``K``, ``diagonal`` or ``weights``.

    Notes
    -----
    For a general ``W`` the objective is written ``||L' (K - X) L||_F`` with the
    Cholesky factor ``W = L L'`` (equal to the ``W``-norm since
    ``tr(W A W A) = tr((L'AL)^2)``; the triangular factor halves the nonzeros).
    The objective is the norm itself (not its square), so the solver's
    objective value is ``||K - X||_W`` and the dual value of the diagonal
    constraint is ``theta / ||K - X||_W``; :meth:`certificate` does not use it
    (it recovers ``theta`` from ``X``, :func:`nearest_psd_certificate`).

    References
    ----------
    munoz eq. (9); Higham (2002) §2-3.
    """

    name = "nearest-psd-sdp"
    problem_class = "SDP"

    def __init__(self, K, diagonal=None, weights=None, parametric=False):
        K = check_square_kernel(K, "K")
        n = K.shape[0]
        c = resolve_diagonal(diagonal, K)
        norm = check_weights(weights, n)
        self.diagonal = c
        self.norm = norm
        self.K = K
        X = cp.Variable((n, n), symmetric=True, name="X")
        params = {}
        if parametric:
            Kp = params["K"] = cp.Parameter((n, n), symmetric=True, name="K", value=K)
        else:
            Kp = K
        D = Kp - X
        if norm.kind == "identity":
            R = D
        elif norm.kind == "diagonal":
            R = cp.multiply(np.outer(norm.sqrt, norm.sqrt), D)
        else:  # ||W^(1/2) A W^(1/2)||_F = ||L' A L||_F with W = L L' (triangular: sparser)
            L = np.linalg.cholesky(norm.W)
            R = L.T @ D @ L
        cons = {"psd": X >> 0}
        if c is not None:
            if parametric:
                cpar = params["c"] = cp.Parameter(n, name="c", value=c)
            else:
                cpar = c
            cons["diagonal"] = cp.diag(X) == cpar
        problem = cp.Problem(cp.Minimize(cp.norm(R, "fro")), list(cons.values()))
        super().__init__(problem, params, {"X": X}, cons)

    def certificate(self):
        """:func:`nearest_psd_certificate` at the solver's ``X`` (NaN before a solve).

        Returns
        -------
        certificate : dict
            The residuals of :func:`nearest_psd_certificate` (NaN entries before
            a solve).
        """
        X = self.variables["X"].value
        if X is None:
            return {"primal_residual": float("nan"), "dual_residual": float("nan"),
                    "gap": float("nan")}
        if self.parameters:  # current parameter values (set() may have changed them)
            K = np.asarray(self.parameters["K"].value, dtype=float)
            c = None if "c" not in self.parameters else np.asarray(self.parameters["c"].value,
                                                                    float)
        else:
            K, c = self.K, self.diagonal
        return nearest_psd_certificate(K, np.asarray(X, dtype=float), c, self.norm)
