"""Alternating projections for the nearest PSD matrix with a fixed diagonal (munoz §3.3).

Problem (9) of Munoz & de Diego (2006, "munoz"), see
:mod:`krein.formulations.nearest_psd`::

    minimize ||K - X||_W   s.t.  X PSD,  diag(X) = c,      ||A||_W = ||W^(1/2) A W^(1/2)||_F

``S`` = the PSD matrices, ``U`` = the symmetric matrices with diagonal ``c``.

Projections in the ``W`` inner product
--------------------------------------
* munoz eq. (11) (Higham 2002, Theorem 3.1):
  ``P_S(A) = W^(-1/2) (W^(1/2) A W^(1/2))_+ W^(-1/2)``, where ``(B)_+`` keeps
  the nonnegative part of the spectrum of ``B`` (the MDS kernel of munoz eq. 1
  with ``eps = 0``, i.e. the clip correction).
* munoz eq. (12) (Higham 2002, Theorem 3.2): for a diagonal ``W``,
  ``P_U(A) = A - Diag(diag(A) - c)`` (munoz prints ``A - (diag(A) - c)``, a
  vector subtracted from a matrix; the diagonal matrix is meant), i.e. reset the
  diagonal.  For a general SPD ``W``,
  ``P_U(A) = A - W^-1 Diag(theta) W^-1`` with ``(W^-1 o W^-1) theta = diag(A) - c``
  (``o`` the Hadamard product; ``W^-1 o W^-1`` is positive definite by the Schur
  product theorem and is Cholesky-factored once).

The loops run on ``A~ = W^(1/2) A W^(1/2)``, where the ``W``-norm is the
Frobenius norm: there ``P_S`` is the plain eigenvalue clip (no products with
``W^(+-1/2)`` per iteration), and ``P_U`` resets the diagonal to ``w o c`` for
a diagonal ``W`` or subtracts ``W^(-1/2) Diag(theta) W^(-1/2)`` for a general one
(two extra matrix products per iteration).  The result is mapped back once.

Methods
-------
* ``"plain"``: munoz eq. (10), ``A <- P_U(P_S(A))`` from ``A = K`` (von Neumann's
  alternating projections).  For two closed convex sets this converges to *a*
  point of ``S n U``, but not in general to the point nearest ``K``: von
  Neumann's theorem gives the nearest point only for subspaces, and ``S`` is a
  cone.  munoz cite the nearest-point property ([14], [7]) but iterate (10); the
  tests show a 3 x 3 example (Higham's) where (10) stops at a strictly larger
  distance than the minimum.
* ``"dykstra"`` (default): Dykstra's correction, Higham (2002) Algorithm 3.3::

      dS_0 = 0, Y_0 = K
      for k = 1, 2, ...
          R_k = Y_{k-1} - dS_{k-1}
          X_k = P_S(R_k)
          dS_k = X_k - R_k
          Y_k = P_U(X_k)

  Both ``X_k`` and ``Y_k`` converge to the solution of (9) (Boyle & Dykstra
  1986); no correction is needed for ``P_U`` because ``U`` is affine.
  Eliminating ``dS`` and ``Y``, the loop is the fixed-point iteration
  ``Z <- g(Z) = Z + P_U(P_S(Z)) - P_S(Z)`` in the single matrix ``Z = R_k``
  (``Z_0 = K``), which is how it is coded (no ``dS`` array is kept).  Every
  ``P_U`` step moves ``Z`` along the normal space of ``U``, so
  ``Z - K~ = -W^(-1/2) Diag(theta) W^(-1/2)`` in the scaled coordinates, and at
  the limit ``W (K - X) W = Diag(theta) + N`` with
  ``N = W^(1/2) (Z - X~) W^(1/2)`` negative semidefinite and ``X N = 0`` (``X~``
  is the clip of ``Z``): the KKT conditions of (9).  ``theta`` is returned.
* ``"anderson"``: the same fixed-point map ``g`` with Anderson acceleration
  (depth ``m``, default 5), Higham & Strabic (2016): the next ``Z`` is the
  affine combination of the last ``m + 1`` values of ``g`` whose residuals
  ``g(Z) - Z`` combine to the least norm.  The combination stays in
  ``K~ + (normal space of U)``, so the multiplier is read the same way.  Not
  covered by a convergence theorem (Higham & Strabic report no failure on
  their tests; the certificate of the returned point tells), but far fewer
  iterations on kernel matrices (measured in ``benchmarks/README.md``), at
  the same cost per iteration (it works on ``n``-vectors, see below).

For ``W = I`` or a diagonal ``W`` the semismooth Newton method of Qi & Sun
(2006), :func:`krein.solvers.psd_newton.nearest_psd_newton`, solves the same
problem in a handful of eigendecompositions and is the default of
:class:`krein.estimators.nearest_psd.NearestPSD`; Dykstra's method remains the
solver for a general SPD ``W`` and the cross-check of the Newton method, and
``"plain"`` reproduces munoz's iteration.

Without a diagonal constraint (``diagonal=None``) ``U`` is everything and all
methods return ``P_S(K)``, the ``W``-weighted clip, after one eigendecomposition.

Stopping rule (Higham 2002, §4)
-------------------------------
Stop at the first ``k`` with::

    max(||X_k - X_{k-1}|| / ||X_k||,  ||Y_k - Y_{k-1}|| / ||Y_k||,  ||X_k - Y_k|| / ||Y_k||) <= tol

in the ``W``-norm, with ``X_0 = Y_0 = K``: the iterates have stopped moving and
the two projections agree.  The rate of ``"plain"`` and ``"dykstra"`` is linear only; on kernel
matrices whose nearest fixed-diagonal PSD matrix has low rank (many zero
eigenvalues, common for smooth kernels) the number of iterations grows roughly
like ``n`` (measured in ``benchmarks/README.md``).  The distance to the
solution at the stop is a few times ``tol`` (relative).

Returned matrix
---------------
``X_k`` is PSD (an eigenvalue clip) and ``Y_k`` has the exact diagonal; they
differ by ``O(tol)``.  The returned ``X`` is ``X_k`` mapped back and, with a
fixed diagonal, scaled by the congruence ``D X_k D`` with ``d_i = sqrt(c_i / (X_k)_ii)``:
a congruence keeps it PSD, and the diagonal becomes exactly ``c`` (to rounding).
The scaling moves ``X`` by ``O(tol)``; it is skipped (and recorded in the
certificate as ``scaled = False``) if some ``(X_k)_ii <= 0`` with ``c_i > 0``.

Implementation and cost
-----------------------
Every ``P_U`` step moves ``Z`` by ``Diag(f)`` (diagonal ``W``) or
``W^(-1/2) Diag(f) W^(-1/2)`` (general ``W``), so for ``"dykstra"`` and
``"anderson"`` the state is the ``n``-vector ``phi`` with
``Z = K~ + Diag(phi)`` (resp. ``K~ + W^(-1/2) Diag(phi) W^(-1/2)``): Dykstra's
step is ``phi <- phi + f`` and Anderson acceleration works on ``n``-vectors
(``O(m n)`` memory, not ``O(m n^2)``).  With a diagonal ``W``, ``Y_k`` is never
formed inside the loop (it is ``X_k`` with the diagonal reset; the stopping rule
needs only ``||X_k||``, ``||X_k - X_{k-1}||`` and diagonals).  An iteration then
costs one symmetric eigendecomposition (LAPACK ``syevd`` through
:func:`scipy.linalg.eigh`), the rebuilding of ``X_k`` from the eigenpairs on the
smaller side of the spectrum (``Z - V_- Lam_- V_-'`` when fewer eigenvalues are
negative than positive, else ``V_+ Lam_+ V_+'``; ``2 n^2 min(p, q)`` flops) and a
few ``O(n^2)`` passes (building ``Z``, two norms, the objective of the trace),
in preallocated buffers where possible.  A general SPD ``W`` adds three
``n x n`` matrix products; ``"plain"`` forms ``Y_k`` (it is the next ``Z``).
The measured cost per iteration is in ``benchmarks/README.md``.

References
----------
A. Munoz and I. Martin de Diego (2006), §3.3, eqs. (9)-(12).
N. J. Higham (2002), "Computing the nearest correlation matrix -- a problem from
finance", IMA J. Numer. Anal. 22, 329-343, Theorems 3.1-3.2, Algorithm 3.3.
J. P. Boyle and R. L. Dykstra (1986), "A method for finding projections onto the
intersection of convex sets in Hilbert spaces", Lecture Notes in Statistics 37.
N. J. Higham and N. Strabic (2016), "Anderson acceleration of the alternating
projections method for computing the nearest correlation matrix", Numer.
Algorithms 72, 1021-1042.
H. F. Walker and P. Ni (2011), "Anderson acceleration for fixed-point
iterations", SIAM J. Numer. Anal. 49, 1715-1735.
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import pandas as pd
import scipy.linalg as sla
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_square_kernel
from .._vocabulary import declared
from ..formulations.nearest_psd import (check_weights, nearest_psd_certificate,
                                        resolve_diagonal)
from .core import Solution

__all__ = ["alternating_projections", "project_psd", "project_diagonal", "ALTERNATING_METHODS"]

#: Higham (2002) Algorithm 3.3, munoz eq. (10), and Algorithm 3.3 with Anderson
#: acceleration (Higham & Strabic 2016): the values of ``solver`` (:mod:`krein._vocabulary`).
ALTERNATING_METHODS = declared("solver", "dykstra", "plain", "anderson")


# ------------------------------------------------------------------ projections
def _clip_scaled(R):
    """``(R)_+`` of a symmetric matrix: one eigendecomposition, rebuilt on the smaller side.

    Returns
    -------
    X : ndarray of shape (n, n)
        ``V max(Lam, 0) V'``.
    q : int
        Number of negative eigenvalues of ``R``.
    """
    lam, V = sla.eigh(R, driver="evd", check_finite=False)
    n = lam.size
    q = int(np.searchsorted(lam, 0.0))  # ascending: lam[:q] < 0 <= lam[q:]
    if q == 0:
        return np.array(R, dtype=float), 0
    if q <= n - q:
        Vq = V[:, :q]
        X = R - (Vq * lam[:q]) @ Vq.T
    else:
        Vp = V[:, q:]
        X = (Vp * lam[q:]) @ Vp.T
    return X, q


def project_psd(A, weights=None):
    """Projection onto the PSD matrices in the ``W``-norm, munoz eq. (11).

    ``P_S(A) = W^(-1/2) (W^(1/2) A W^(1/2))_+ W^(-1/2)`` (Higham 2002, Theorem 3.1).

    Parameters
    ----------
    A : array of shape (n, n)
        Symmetric matrix.
    weights : None, array of shape (n,) or (n, n)
        ``W`` (:func:`krein.formulations.nearest_psd.check_weights`).

    Returns
    -------
    ndarray of shape (n, n)
        PSD (to rounding), symmetric.

    Raises
    ------
    ValueError
        On a bad ``A`` or ``weights``.
    """
    A = check_square_kernel(A, "A")
    norm = check_weights(weights, A.shape[0])
    X, _ = _clip_scaled(norm.to_scaled(A))
    X = norm.from_scaled(X)
    return 0.5 * (X + X.T)


class _DiagonalProjector:
    """``P_U`` on the scaled matrices ``A~ = W^(1/2) A W^(1/2)`` (module docstring).

    ``apply(X)`` returns ``(Y, step)``: ``Y = P_U(X)`` and the step ``Y - X`` as
    an ``n``-vector ``f`` (``Y - X = Diag(f)`` for a diagonal ``W``,
    ``Y - X = W^(-1/2) Diag(f) W^(-1/2)`` for a general one, with ``f = -theta``
    of Higham's Theorem 3.2).  ``step(X)`` returns ``f`` alone.
    """

    def __init__(self, norm, c):
        self.norm = norm
        self.c = c
        self.diagonal_kind = norm.kind != "matrix"
        if norm.kind == "identity":
            self.target = c.copy()
        elif norm.kind == "diagonal":
            self.target = norm.w * c
        else:
            Winv = norm.inv_sqrt @ norm.inv_sqrt
            self.cho = sla.cho_factor(Winv * Winv)

    def step(self, X):
        if self.diagonal_kind:
            return self.target - np.diag(X)
        B = self.norm.inv_sqrt
        d = np.einsum("ij,ij->i", B @ X, B)  # diag(B X B) = diag(A)
        return -sla.cho_solve(self.cho, d - self.c)

    def expand(self, f):
        """The matrix ``Diag(f)`` or ``W^(-1/2) Diag(f) W^(-1/2)``."""
        if self.diagonal_kind:
            return np.diag(f)
        B = self.norm.inv_sqrt
        return (B * f) @ B

    def add(self, A, f):
        """``A + expand(f)`` as a new array."""
        if self.diagonal_kind:
            out = A.copy()
            out.flat[::A.shape[0] + 1] += f
            return out
        return A + self.expand(f)

    def apply(self, X):
        f = self.step(X)
        return self.add(X, f), f


def project_diagonal(A, diagonal, weights=None):
    """Projection onto ``{X symmetric: diag(X) = c}`` in the ``W``-norm, munoz eq. (12).

    For a diagonal ``W``: ``P_U(A) = A - Diag(diag(A) - c)``.  For a general SPD
    ``W``: ``P_U(A) = A - W^-1 Diag(theta) W^-1`` with
    ``(W^-1 o W^-1) theta = diag(A) - c`` (Higham 2002, Theorem 3.2).

    Parameters
    ----------
    A : array of shape (n, n)
        Symmetric matrix.
    diagonal : "keep", float or array of shape (n,)
        ``c`` (:func:`krein.formulations.nearest_psd.resolve_diagonal`; ``"keep"``
        refers to ``A`` itself and returns ``A``).
    weights : None, array of shape (n,) or (n, n)
        The weights ``W`` of the norm (:func:`krein.formulations.nearest_psd.check_weights`).

    Returns
    -------
    ndarray of shape (n, n)
        The projection of ``A`` onto ``{X : diag X = c}`` in the ``W``-norm.

    Raises
    ------
    ValueError
        On a bad ``A``, ``diagonal`` (``None`` is refused here: there is nothing
        to project on) or ``weights``.
    """
    A = check_square_kernel(A, "A")
    if diagonal is None:
        raise ValueError("diagonal must be 'keep', a number >= 0 or an array for project_diagonal")
    c = resolve_diagonal(diagonal, A)
    norm = check_weights(weights, A.shape[0])
    Y, _ = _DiagonalProjector(norm, c).apply(norm.to_scaled(A))
    Y = norm.from_scaled(Y)
    return 0.5 * (Y + Y.T)


# ------------------------------------------------------------------ the loops
class _Anderson:
    """Anderson acceleration (type II, Walker & Ni 2011; Higham & Strabic 2016, Alg. 2.1).

    For a fixed-point map ``g`` with residual ``f(x) = g(x) - x``, keep the last
    ``m`` differences ``dF_j = f_{j+1} - f_j`` and ``dG_j = g_{j+1} - g_j``; the
    next iterate is ``g_k - dG gamma`` with ``gamma = argmin ||f_k - dF gamma||_F``
    (an affine combination of the last ``m + 1`` values of ``g``).  The small
    least-squares problem is solved through its ``m x m`` Gram matrix, scaled to
    unit diagonal, by ``lstsq`` with ``rcond = 1e-10`` (dependent directions
    dropped).
    """

    def __init__(self, depth):
        self.depth = int(depth)
        self.dF, self.dG = [], []
        self.f_prev = self.g_prev = None

    def step(self, f, g):
        if self.f_prev is not None:
            self.dF.append(f - self.f_prev)
            self.dG.append(g - self.g_prev)
            if len(self.dF) > self.depth:
                self.dF.pop(0)
                self.dG.pop(0)
        self.f_prev, self.g_prev = f, g
        if not self.dF:
            return g
        m = len(self.dF)
        flat = [d.ravel() for d in self.dF]
        gram = np.empty((m, m))
        for i in range(m):
            for j in range(i, m):
                gram[i, j] = gram[j, i] = flat[i] @ flat[j]
        rhs = np.array([d @ f.ravel() for d in flat])
        # Differences at round-off level relative to the largest (a stalled iteration) are
        # dropped: scaling them to unit diagonal would overflow and break the lstsq.
        diag = np.diag(gram)
        keep = diag > np.finfo(float).eps ** 2 * diag.max(initial=0.0)
        gamma = np.zeros(m)
        if keep.any():
            scale = np.sqrt(diag[keep])
            sub = gram[np.ix_(keep, keep)] / np.outer(scale, scale)
            gamma[keep] = np.linalg.lstsq(sub, rhs[keep] / scale, rcond=1e-10)[0] / scale
        out = g.copy()
        for gj, dg in zip(gamma, self.dG):
            out -= gj * dg
        return out


def _check_options(method, tol, max_iter, anderson_depth=5):
    if method not in ALTERNATING_METHODS:
        raise ValueError(f"solver must be one of {list(ALTERNATING_METHODS)}; got {method!r}")
    if (isinstance(anderson_depth, bool) or not isinstance(anderson_depth, numbers.Integral)
            or anderson_depth < 1):
        raise ValueError(f"anderson_depth must be an integer >= 1; got {anderson_depth!r}")
    if (isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not np.isfinite(tol)
            or not 0 < tol < 1):
        raise ValueError(f"tol must be a number in (0, 1); got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1; got {max_iter!r}")
    return float(tol), int(max_iter)


def _rel(a, b, buf, denom):
    np.subtract(a, b, out=buf)
    return float(np.linalg.norm(buf)) / denom if denom > 0 else 0.0


def alternating_projections(K, diagonal="keep", weights=None, *, solver="dykstra", tol=1e-6,
                            max_iter=1000, anderson_depth=5, verbose=False, check_input=True,
                            certify=True):
    """Nearest PSD matrix with a fixed diagonal in the ``W``-norm (munoz eqs. 9-12).

    See the module docstring for the projections, the methods, the stopping rule
    and the returned matrix.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric matrix (any signature).
    diagonal : None, "keep", float or array of shape (n,)
        The fixed diagonal ``c``
        (:func:`krein.formulations.nearest_psd.resolve_diagonal`); ``None``: no
        constraint, the result is the ``W``-weighted clip ``P_S(K)``.
    weights : None, array of shape (n,) or (n, n)
        ``W``: ``None`` (identity), positive weights (``W = Diag(w)``) or an SPD
        matrix (:func:`krein.formulations.nearest_psd.check_weights`).
    solver : {"dykstra", "plain", "anderson"}
        Higham's Algorithm 3.3 (converges to the nearest point), munoz eq. (10)
        (converges to a point of the intersection only), or Algorithm 3.3 with
        Anderson acceleration (module docstring).
    tol : float in (0, 1)
        Tolerance of the stopping rule.
    max_iter : int >= 1
        Maximum number of iterations (eigendecompositions).
    anderson_depth : int >= 1
        Number ``m`` of differences kept by ``solver="anderson"``.
    verbose : bool
        Print the criterion every 50 iterations and at the end.
    check_input : bool
        Validate ``K``; ``False`` skips the O(n^2) checks for callers that made them.
    certify : bool
        Compute the certificate
        (:func:`krein.formulations.nearest_psd.nearest_psd_certificate`: two
        ``eigvalsh`` and one ``n x n`` product); ``False`` leaves the residuals NaN.

    Returns
    -------
    Solution
        ``solver``: ``"dykstra"``, ``"alternating-projections"`` (plain) or
        ``"dykstra-anderson"``; ``"weighted-clip"`` without a diagonal constraint; ``status``
        ``"converged"`` or ``"max_iter"``; ``objective`` = ``||K - X||_W``;
        ``primal``: ``X`` (n, n) the returned matrix (PSD, diagonal ``c``),
        ``X_last`` the last ``P_S`` iterate, ``Y`` the last ``P_U`` iterate, both
        in original coordinates; ``dual``: ``theta`` (n,), the diagonal multiplier
        read from the last ``Z`` (None for ``"plain"``, zeros without a constraint);
        ``iterations``; residuals and ``gap`` from the certificate, which also
        holds ``scaled`` and ``scaling_change`` (``||X - X_last||_W / ||X||_W``);
        ``trace``: DataFrame with one row per iteration: ``iter``, ``objective``
        (``||K - X_k||_W``), ``change_X``, ``change_Y``, ``gap_XY`` (the three
        terms of the stopping rule), ``criterion`` (their max), ``n_negative``
        (eigenvalues clipped by ``P_S``), ``seconds`` (cumulative).

    Raises
    ------
    ValueError
        Bad ``K``, ``diagonal``, ``weights``, ``solver``, ``tol``, ``max_iter`` or
        ``anderson_depth``.
    TypeError
        An unknown keyword argument.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` iterations did not reach ``tol`` (status ``"max_iter"``;
        the last iterate is returned, scaled as usual).

    References
    ----------
    munoz §3.3, eqs. (9)-(12); Higham (2002), Algorithm 3.3 and §4; Higham &
    Strabic (2016), Algorithm 2.1 (Anderson acceleration).
    """
    t0 = time.perf_counter()
    method = solver  # ``solver`` names the Solution below
    K = check_square_kernel(K, "K") if check_input else np.asarray(K, dtype=float)
    n = K.shape[0]
    tol, max_iter = _check_options(method, tol, max_iter, anderson_depth)
    c = resolve_diagonal(diagonal, K)
    norm = check_weights(weights, n)
    Kt = norm.to_scaled(K)
    t_setup = time.perf_counter() - t0
    rows = []

    def record(k, X, cX, cY, cXY, q, buf):
        obj = _rel(Kt, X, buf, 1.0)
        crit = max(cX, cY, cXY)
        rows.append({"iter": k, "objective": obj, "change_X": cX, "change_Y": cY, "gap_XY": cXY,
                     "criterion": crit, "n_negative": q, "seconds": time.perf_counter() - t0})
        return crit

    buf = np.empty_like(Kt)
    if c is None:
        X, q = _clip_scaled(Kt)
        nX = float(np.linalg.norm(X))
        cX = _rel(X, Kt, buf, nX)
        record(1, X, cX, cX, 0.0, q, buf)
        Y, it, converged, theta = X, 1, True, np.zeros(n)
        solver = "weighted-clip"
    else:
        proj = _DiagonalProjector(norm, c)
        solver = {"dykstra": "dykstra", "plain": "alternating-projections",
                  "anderson": "dykstra-anderson"}[method]
        accel = _Anderson(anderson_depth) if method == "anderson" else None
        # Dykstra/Anderson: Z = K~ + expand(phi), phi an n-vector (module docstring);
        # with a diagonal W the P_U iterate Y is then never formed: it is X with the
        # diagonal reset, and the stopping rule only needs norms of X and of its diagonal.
        implicit_Y = method != "plain" and proj.diagonal_kind
        phi = np.zeros(n)
        Z = Kt                     # the input of P_S: R_k of Algorithm 3.3, A of eq. (10)
        X_prev, Y_prev = Kt, Kt
        Ydiag_prev = np.diag(Kt).copy()
        Y = None
        converged = False
        it = 0
        for it in range(1, max_iter + 1):
            X, q = _clip_scaled(Z)
            nX = float(np.linalg.norm(X))
            np.subtract(X, X_prev, out=buf)
            cX = float(np.linalg.norm(buf)) / nX if nX > 0 else 0.0
            if implicit_Y:
                f = proj.step(X)
                dX = np.diag(X)
                t = proj.target
                nY = float(np.sqrt(max(nX * nX - dX @ dX + t @ t, 0.0)))
                buf.flat[::n + 1] = 0.0          # off-diagonal change of X = that of Y
                dY = t - Ydiag_prev
                cY = float(np.sqrt(np.linalg.norm(buf) ** 2 + dY @ dY)) / nY if nY > 0 else 0.0
                cXY = float(np.linalg.norm(f)) / nY if nY > 0 else 0.0
                Ydiag_prev = t
            else:
                Y, f = proj.apply(X)
                nY = float(np.linalg.norm(Y))
                cY = _rel(Y, Y_prev, buf, nY)
                cXY = _rel(X, Y, buf, nY)
                Y_prev = Y
            crit = record(it, X, cX, cY, cXY, q, buf)
            if verbose and (it % 50 == 0 or crit <= tol):
                print(f"{solver} it {it}: criterion {crit:.3e}, objective "
                      f"{rows[-1]['objective']:.8g}, {q} negative eigenvalues")
            X_prev = X
            if crit <= tol or it == max_iter:
                converged = crit <= tol
                break
            if method == "plain":
                Z = Y
            else:
                # Dykstra's map g(Z) = Z + P_U(P_S(Z)) - P_S(Z) is phi -> phi + f
                phi = phi + f if accel is None else accel.step(f, phi + f)
                Z = proj.add(Kt, phi)
        if Y is None or implicit_Y:
            Y, _ = proj.apply(X)
        # multiplier (module docstring): W(K - X)W = Diag(theta) + N with
        # Diag(theta) = -W^(1/2) (Z - K~) W^(1/2) = -W^(1/2) expand(phi) W^(1/2)
        if method == "plain":
            theta = None
        elif norm.kind == "diagonal":
            theta = -norm.w * phi
        else:
            theta = -phi
    # ---- back to original coordinates
    X_last = norm.from_scaled(X)
    X_last = 0.5 * (X_last + X_last.T)
    Y_orig = norm.from_scaled(Y)
    Y_orig = 0.5 * (Y_orig + Y_orig.T)
    Xr, scaled = X_last, False
    if c is not None:
        d = np.diag(X_last)
        if np.all((d > 0) | (c == 0)):
            s = np.sqrt(np.divide(c, d, out=np.zeros(n), where=d > 0))
            Xr = X_last * np.outer(s, s)
            np.fill_diagonal(Xr, c)
            scaled = True
    t_solve = time.perf_counter() - t0 - t_setup
    if not converged:
        warnings.warn(f"alternating_projections ({solver}) stopped at max_iter={max_iter} before "
                      f"reaching tol={tol:g} (criterion {rows[-1]['criterion']:.3g})",
                      ConvergenceWarning, stacklevel=2)
    obj = norm.norm(K - Xr)
    if certify:
        cert = nearest_psd_certificate(K, Xr, c, norm)
    else:
        cert = {"primal_residual": float("nan"), "dual_residual": float("nan"), "gap": float("nan")}
    nXr = norm.norm(Xr)
    cert["scaled"] = scaled
    cert["scaling_change"] = norm.norm(Xr - X_last) / nXr if nXr > 0 else 0.0
    if verbose:
        print(f"{solver}: {'converged' if converged else 'max_iter'} after {it} iterations, "
              f"||K - X||_W = {obj:.10g}")
    return Solution(
        solver=solver, status="converged" if converged else "max_iter", objective=obj,
        primal={"X": Xr, "X_last": X_last, "Y": Y_orig}, dual={"theta": theta},
        setup_time=t_setup, solve_time=t_solve, iterations=it,
        primal_residual=float(cert["primal_residual"]), dual_residual=float(cert["dual_residual"]),
        gap=float(cert["gap"]), certificate=cert, certificate_kind="gap" if certify else "",
        trace=pd.DataFrame(rows))
