"""Semismooth Newton-CG for the nearest PSD matrix with a fixed diagonal (Qi & Sun 2006).

Problem (9) of Munoz & de Diego (2006, "munoz"), see
:mod:`krein.formulations.nearest_psd`, for ``W = I`` or a diagonal ``W``,
optionally with a lower bound ``X >= tau I``::

    minimize  1/2 ||X - K||_W^2   s.t.  diag(X) = c,  X - tau I PSD

Reductions
----------
* Lower bound: ``X' = X - tau I``, ``K' = K - tau I``, ``c' = c - tau``
  (``X - K = X' - K'``), so ``X' PSD`` with ``diag(X') = c'`` (Qi & Sun 2006
  and their code's ``tau``).  Needs ``c >= tau``.
* Diagonal weights ``W = Diag(w)``: with ``Y = W^(1/2) X W^(1/2)`` the norm is
  the Frobenius norm, ``||X - K||_W = ||Y - W^(1/2) K W^(1/2)||_F``, ``Y`` is PSD
  iff ``X`` is, and ``diag(Y) = w o c``.  So the weighted problem is the
  unweighted one for ``G = W^(1/2) K' W^(1/2)`` and ``b = w o c'`` (Qi & Sun
  2006 discuss the weighted norm among their extensions).  A general SPD ``W``
  does not reduce this way (the constraint ``diag(X) = c`` becomes a general
  linear constraint on ``Y``); use Dykstra's method
  (:func:`krein.solvers.alternating.alternating_projections`) there.

The dual (Qi & Sun 2006)
------------------------
For ``min 1/2 ||X - G||_F^2  s.t.  diag(X) = b,  X PSD`` the Lagrangian dual is,
up to the constant ``1/2 ||G||_F^2``, the unconstrained convex problem::

    minimize_y  theta(y) = 1/2 ||(G + Diag(y))_+||_F^2 - b'y

(``(A)_+`` keeps the nonnegative part of the spectrum of ``A``), with dual value
``1/2 ||G||_F^2 - theta(y)`` and gradient::

    grad theta(y) = diag((G + Diag(y))_+) - b,

so a zero of the gradient gives the primal solution ``X = (G + Diag(y))_+``.
The gradient is strongly semismooth (the projection onto the PSD cone is), and
an element of its generalized Jacobian at ``y`` (Qi & Sun 2006; the formula of
their code) is::

    V h = diag( P (Omega o (P' Diag(h) P)) P' ),        G + Diag(y) = P Diag(lam) P'

with ``Omega`` the first divided differences of ``max(0, .)``: ``1`` for two
positive eigenvalues, ``0`` for two nonpositive ones and
``lam_i / (lam_i - lam_j)`` for ``lam_i > 0 >= lam_j``.  ``V`` is symmetric
positive semidefinite; it is positive definite at the solution under the
conditions of Qi & Sun (2006), which gives the quadratic rate.

Algorithm (Qi & Sun 2006, Algorithm 5.1)
----------------------------------------
The line search and the CG settings follow Qi and Sun's ``CorNewton`` code.
Start from ``y_0 = b - diag(G)`` (the diagonal of ``G + Diag(y_0)`` is ``b``;
``y_0 = 0`` for ``diagonal="keep"`` and ``tau = 0``, and when ``diag(K) = c``,
``W = I``, ``tau = 0``: then the first iterate is ``K``, and a caller that has
its eigendecomposition, e.g. :class:`krein.estimators.nearest_psd.NearestPSD`,
passes it as ``spectrum``).  At ``y_k``:

1. Newton direction: preconditioned conjugate gradients on the regularized
   system ``(V_k + eps_k I) d = -grad theta(y_k)`` with
   ``eps_k = min(1e-2, g_k)^2`` (``g_k`` the relative gradient norm below: a
   regularization that vanishes with the gradient; measured, the linear
   ``min(1e-2, g_k)`` took 9-12 Newton iterations instead of 6-8 on the
   pick-out kernel at ``n = 500, 1000``), the diagonal preconditioner
   ``max(diag(V_k), 1e-8) + eps_k``, stopped at a relative residual
   ``eta_k = min(1e-2, max(g_k, tol / (2 g_k)))`` or after ``cg_max_iter``
   iterations: the forcing term ``min(1e-2, g_k)`` of the quadratic rate, but not
   below what the step needs to reach ``tol`` (a gradient ``g_k`` times the
   relative residual, plus the quadratic term; Kelley 1995, eq. (6.20)), which
   spares the CG iterations of an oversolved last step (measured: 2 instead of
   4-5 on the ``randcorr`` and ``minkowski`` kernels of
   ``benchmarks/nearest_psd.py`` at ``n = 1000``, ``tol = 1e-8``).
2. Armijo line search on ``theta``: the first ``alpha`` in ``1, 1/2, 1/4, ...``
   (at most 20 halvings) with
   ``theta(y_k + alpha d) <= theta(y_k) + 1e-4 alpha grad' d`` (plus a rounding
   allowance ``1e-12 (|theta| + ||G||_F^2 / 2)``, relative to the data so that
   ``K`` and ``s K`` take the same steps).  Each trial is one eigendecomposition,
   and the accepted one is reused at the next iterate.
3. Stop when ``g_k = ||grad theta(y_k)|| / ||b|| <= tol``: the diagonal of
   ``(G + Diag(y))_+`` is then within ``tol`` of ``b`` (relative).

Only the smaller side of the spectrum enters the dense products (as in Qi and
Sun's code): with ``r`` positive and ``s = n - r`` nonpositive eigenvalues and
``k`` the smaller side, the block ``diag(P_k (P_k' Diag(h) P_k) P_k')`` of ``V h``
is ``((P_k P_k') o (P_k P_k')) h`` (an ``n x n`` matrix formed once per iterate,
``n^2 min(r, s)`` flops), and the mixed block takes two ``n x r x s`` products, so
``V h`` costs ``4 n r s + 2 n^2`` flops (for ``r > s`` through
``V h = h - diag(P ((1 - Omega) o P' Diag(h) P) P')``, ``1 - Omega`` being zero
on the positive block); ``diag(V)`` costs one ``n x r x s`` product.  The
gradient and ``theta`` come from the same side (``(A)_+ = A - (A)_-``).  An
iteration is then one eigendecomposition (LAPACK ``syevd``) plus a few such
products; the eigendecompositions are most of the time (measured in
``benchmarks/README.md``).

Returned matrix (the primal point of Qi and Sun's code)
--------------------------------------------------------
``X_y = (G + Diag(y))_+`` is PSD with ``diag(X_y) = b + grad theta(y)``.  It is
made exactly feasible by a PSD-preserving correction: ``d = max(diag(X_y), b)``,
``X <- X_y + Diag(d - diag(X_y))`` (adds a nonnegative diagonal), then the
congruence ``X <- D X D`` with ``D = Diag(sqrt(b / d))``, whose diagonal is
``b`` (Qi & Sun's ``PCA`` step; Higham 2002 scales the same way).  It moves
``X_y`` by ``O(||grad theta(y)||)``.  ``X`` is mapped back to the original
coordinates (``W^(-1/2) X W^(-1/2) + tau I``) and its diagonal set to ``c``
(a rounding-level change).

Certificates
------------
* the duality gap of the pair: primal value ``p = 1/2 ||X - K||_W^2`` of the
  returned (feasible) ``X`` and dual value ``1/2 ||G||_F^2 - theta(y)`` (a lower
  bound on the optimal value for every ``y``), recorded per iteration and at
  the end, absolute and relative (``(p - dual) / (1 + |p| + |dual|)``, Qi and
  Sun's measure);
* the KKT check of :func:`krein.formulations.nearest_psd.nearest_psd_certificate`,
  from ``X`` alone (as for Dykstra's method).  The multiplier of the diagonal
  constraint is ``theta = -w o y`` (``theta = -y`` for ``W = I``).

References
----------
C. T. Kelley (1995), "Iterative Methods for Linear and Nonlinear Equations",
SIAM, §6.3 (the forcing terms of inexact Newton methods, eq. (6.20): no smaller
than half the stopping tolerance over the current residual norm).
H. Qi and D. Sun (2006), "A quadratically convergent Newton method for
computing the nearest correlation matrix", SIAM J. Matrix Anal. Appl. 28,
360-385 (the dual, its generalized Jacobian, Algorithm 5.1, the extensions to
weighted norms and lower bounds).
N. J. Higham (2002), "Computing the nearest correlation matrix -- a problem from
finance", IMA J. Numer. Anal. 22, 329-343.
A. Munoz and I. Martin de Diego (2006), §3.3, eq. (9).
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import pandas as pd
import scipy.linalg as sla
from sklearn.exceptions import ConvergenceWarning

from .._threads import loop_threads_of
from .._validation import check_square_kernel
from ..formulations.nearest_psd import (check_weights, nearest_psd_certificate,
                                        resolve_diagonal)
from .core import Solution

__all__ = ["nearest_psd_newton", "NEWTON_TRACE_COLUMNS"]

#: Columns of the trace of :func:`nearest_psd_newton`.
NEWTON_TRACE_COLUMNS = ("iter", "objective", "dual_value", "relative_gap", "gradient",
                        "step", "cg_iterations", "n_positive", "eigh", "seconds")

_SIGMA = 1e-4          # Armijo constant (Qi & Sun's code)
_MAX_HALVINGS = 20     # line-search halvings (Qi & Sun's code)
_ETA = 1e-2            # CG relative residual and regularization cap
_OVERSOLVE = 0.5       # CG relative residual >= _OVERSOLVE * tol / g_k (Kelley 1995)
_ROUNDING = 8 * np.finfo(float).eps   # diag(K) = c "up to rounding", entrywise relative


class _DualPoint:
    """``theta``, its gradient and the Jacobian pieces at one ``y`` (one eigendecomposition).

    ``A = G + Diag(y) = P Diag(lam) P'``; eigenvalues ascending, ``lam[:s] <= 0 < lam[s:]``.
    """

    def __init__(self, G, dG, y, b, decomposition=None):
        n = y.size
        if decomposition is None:
            A = G.copy()
            A.flat[::n + 1] += y
            lam, P = sla.eigh(A, driver="evd", overwrite_a=True, check_finite=False)
        else:  # the eigendecomposition of G + Diag(y), given by the caller
            lam, P = decomposition
        s = int(np.searchsorted(lam, 0.0, side="right"))
        self.n, self.s, self.r = n, s, n - s
        self.y = y
        self.lam_pos, self.P_pos = lam[s:], P[:, s:]
        self.lam_neg, self.P_neg = lam[:s], P[:, :s]
        if self.r <= self.s:
            Fy = np.einsum("ij,ij->i", self.P_pos * self.lam_pos, self.P_pos)
        else:  # (A)_+ = A - (A)_-
            Fy = dG + y - np.einsum("ij,ij->i", self.P_neg * self.lam_neg, self.P_neg)
        lp = self.lam_pos
        self.theta = 0.5 * float(lp @ lp) - float(b @ y)
        self.grad = Fy - b
        self._omega = None
        self._pi2 = None

    # ---------------------------------------------------------------- Jacobian
    @property
    def omega(self):
        """The mixed block of ``Omega`` (``r x s``) if ``r <= s``, else ``1 - Omega`` there."""
        if self._omega is None and self.r and self.s:
            lp, ln = self.lam_pos[:, None], self.lam_neg[None, :]
            num = lp if self.r <= self.s else -ln
            self._omega = num / (lp - ln)
        return self._omega

    def _small_side_square(self):
        """``(P_k P_k') o (P_k P_k')``, ``k`` the smaller side (once per point, ``n^2 min(r, s)``)."""
        if self._pi2 is None:
            Pk = self.P_pos if self.r <= self.s else self.P_neg
            Pi = Pk @ Pk.T
            Pi *= Pi
            self._pi2 = Pi
        return self._pi2

    def jacobian(self, h):
        """``V h`` in ``4 n r s + 2 n^2`` flops (module docstring).

        The block of the smaller side ``k``, ``diag(P_k (P_k' Diag(h) P_k) P_k')``, is
        ``((P_k P_k') o (P_k P_k')) h`` (a matrix formed once per point); the mixed block
        takes two ``n x r x s`` products.
        """
        r, s = self.r, self.s
        if r == 0:
            return np.zeros_like(h)
        if s == 0:
            return h.copy()
        Pp, Pn, Om = self.P_pos, self.P_neg, self.omega
        M12 = (Pp * h[:, None]).T @ Pn
        M12 *= Om
        mixed = 2.0 * np.einsum("ij,ij->i", Pp @ M12, Pn)
        same = self._small_side_square() @ h
        if r <= s:
            return same + mixed
        return h - (same + mixed)

    def jacobian_diagonal(self):
        """``diag(V)`` in ``2 n r s`` flops: the preconditioner of Qi and Sun's code."""
        r, s = self.r, self.s
        if r == 0:
            return np.zeros(self.n)
        if s == 0:
            return np.ones(self.n)
        Q1, Q2 = self.P_pos ** 2, self.P_neg ** 2
        mixed = 2.0 * np.einsum("ij,ij->i", Q1 @ self.omega, Q2)
        if r <= s:
            return Q1.sum(axis=1) ** 2 + mixed
        return 1.0 - Q2.sum(axis=1) ** 2 - mixed

    # ---------------------------------------------------------------- primal points
    def positive_part(self, G):
        """``(G + Diag(y))_+`` rebuilt from the smaller side of the spectrum."""
        if self.r <= self.s:
            return (self.P_pos * self.lam_pos) @ self.P_pos.T
        X = G.copy()
        X.flat[::self.n + 1] += self.y
        X -= (self.P_neg * self.lam_neg) @ self.P_neg.T
        return X


def _feasible(X, b):
    """Qi and Sun's PSD-preserving correction of ``X`` to the diagonal ``b`` (in place)."""
    n = b.size
    dX = np.diag(X).copy()
    d = np.maximum(dX, b)
    X.flat[::n + 1] += d - dX
    s = np.sqrt(np.divide(b, d, out=np.zeros(n), where=d > 0))
    X *= s[:, None]
    X *= s[None, :]
    X.flat[::n + 1] = b
    return X


def _pcg(point, rhs, eps, tol, max_iter):
    """Preconditioned CG on ``(V + eps I) d = rhs`` from ``d = 0``; returns ``(d, iterations)``."""
    prec = np.maximum(point.jacobian_diagonal(), 1e-8) + eps
    d = np.zeros_like(rhs)
    res = rhs.copy()
    stop = tol * float(np.linalg.norm(rhs))
    z = res / prec
    p = z.copy()
    rz = float(res @ z)
    k = 0
    for k in range(1, max_iter + 1):
        w = point.jacobian(p)
        w += eps * p
        curv = float(p @ w)
        if curv <= 0:  # V + eps I is PD; rounding only
            if k == 1:
                d = p
            break
        a = rz / curv
        d += a * p
        res -= a * w
        if float(np.linalg.norm(res)) <= stop:
            break
        z = res / prec
        rz_new = float(res @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return d, k


def _check_spectrum(spectrum, n):
    """``spectrum`` as ``(eigenvalues, eigenvectors)`` of shapes ``(n,)``, ``(n, n)`` (or None)."""
    if spectrum is None:
        return None
    try:
        lam, P = spectrum
    except (TypeError, ValueError):
        raise ValueError("spectrum must be a pair (eigenvalues, eigenvectors)") from None
    lam, P = np.asarray(lam, dtype=float), np.asarray(P, dtype=float)
    if lam.shape != (n,) or P.shape != (n, n):
        raise ValueError(f"spectrum: eigenvalues of shape ({n},) and eigenvectors of shape "
                         f"({n}, {n}) expected; got {lam.shape} and {P.shape}")
    return lam, P


def _check_options(tau, tol, max_iter, cg_max_iter):
    if (isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not np.isfinite(tau)
            or tau < 0):
        raise ValueError(f"tau must be a finite number >= 0; got {tau!r}")
    if (isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not np.isfinite(tol)
            or not 0 < tol < 1):
        raise ValueError(f"tol must be a number in (0, 1); got {tol!r}")
    for name, val in (("max_iter", max_iter), ("cg_max_iter", cg_max_iter)):
        if isinstance(val, bool) or not isinstance(val, numbers.Integral) or val < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {val!r}")
    return float(tau), float(tol), int(max_iter), int(cg_max_iter)


@loop_threads_of(lambda K, *args, **kwargs: len(K))
def nearest_psd_newton(K, diagonal="keep", weights=None, *, tau=0.0, tol=1e-6, max_iter=200,
                       cg_max_iter=200, verbose=False, check_input=True, certify=True,
                       spectrum=None):
    """Nearest PSD matrix with a fixed diagonal by semismooth Newton-CG (Qi & Sun 2006).

    Solves ``min ||X - K||_W  s.t.  diag(X) = c,  X >= tau I`` (munoz eq. 9 when
    ``tau = 0``) for ``W = I`` or a diagonal ``W``, through the dual of Qi & Sun
    (2006): see the module docstring for the reductions (``X' = X - tau I``;
    ``Y = W^(1/2) X W^(1/2)`` for ``W = Diag(w)``), the dual, its generalized
    Jacobian, Algorithm 5.1 and the returned matrix.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric matrix (any signature).
    diagonal : None, "keep", float or array of shape (n,)
        The fixed diagonal ``c``
        (:func:`krein.formulations.nearest_psd.resolve_diagonal`); ``None``: no
        constraint, the result is the ``W``-weighted clip of ``K - tau I`` plus
        ``tau I`` (one eigendecomposition).
    weights : None, array of shape (n,) or WeightedNorm
        ``W = I`` or ``W = Diag(weights)`` (positive weights,
        :func:`krein.formulations.nearest_psd.check_weights`).  A general SPD
        matrix is refused (it does not reduce to the unweighted dual; use
        :func:`krein.solvers.alternating.alternating_projections`); a matrix with
        zero off-diagonal entries counts as diagonal.
    tau : float >= 0
        Lower bound ``X >= tau I`` (``tau = 0``: PSD).  Needs ``c >= tau``.
    tol : float in (0, 1)
        Stop when ``||grad theta(y)|| / ||w o (c - tau)|| <= tol`` (the diagonal of
        the dual's primal point is within ``tol`` of the target, relative).
    max_iter : int >= 1
        Maximum number of Newton iterations.
    cg_max_iter : int >= 1
        Maximum number of conjugate-gradient iterations per Newton step.
    verbose : bool
        Print one line per Newton iteration.
    check_input : bool
        Validate ``K``; ``False`` skips the O(n^2) checks for callers that made them.
    certify : bool
        Compute the KKT certificate
        (:func:`krein.formulations.nearest_psd.nearest_psd_certificate`: two
        ``eigvalsh`` and one ``n x n`` product); ``False`` leaves its residuals
        NaN (the duality gap is always computed).
    spectrum : tuple (eigenvalues, eigenvectors), optional
        The eigendecomposition of ``K`` (eigenvalues ascending, shape (n,);
        orthonormal eigenvectors, shape (n, n)), e.g. a
        :class:`krein.spectrum.Spectrum`'s.  Used as the first iterate's when
        that iterate is ``K`` itself (``W = I``, ``tau = 0`` and ``diag(K) = c``
        up to rounding, ``|K_ii - c_i| <= 8 eps max(|K_ii|, |c_i|)``, so
        ``y_0 = 0``; or no diagonal constraint with ``W = I``, ``tau = 0``),
        which saves one eigendecomposition; ignored otherwise.

    Returns
    -------
    Solution
        ``solver``: ``"newton"`` (``"weighted-clip"`` without a diagonal
        constraint); ``status`` ``"converged"`` or ``"max_iter"``; ``objective`` =
        ``||K - X||_W``; ``primal``: ``X`` (n, n), the returned matrix (``X - tau I``
        PSD, diagonal ``c``), and ``X_dual``, the dual's primal point
        ``W^(-1/2) (G + Diag(y))_+ W^(-1/2) + tau I`` before the diagonal
        correction; ``dual``: ``y`` (n,), the dual variable (in the scaled
        coordinates) and ``theta = -w o y`` (n,), the multiplier of the diagonal
        constraint in the KKT conditions of
        :mod:`krein.formulations.nearest_psd`; ``iterations``: Newton
        iterations; residuals and ``gap`` from the KKT certificate, which also
        holds ``primal_value`` (``||K - X||_W^2 / 2``), ``dual_value``,
        ``duality_gap`` (their difference, >= 0 up to rounding),
        ``relative_duality_gap``, ``gradient`` (the relative gradient norm at
        the end), ``eigh`` (eigendecompositions made) and ``scaling_change``
        (``||X - X_dual||_W / ||X||_W``); ``trace``: one row per iterate
        (:data:`NEWTON_TRACE_COLUMNS`): ``iter`` (0 = the start), ``objective``
        (``||K - X||_W`` of the returned point) and ``relative_gap`` on the last
        row only (NaN before: the corrected primal point costs a dense product,
        so it is formed once), ``dual_value``, ``gradient`` (relative), ``step``
        (the line-search ``alpha`` that led here), ``cg_iterations``, ``n_positive``, ``eigh``
        (cumulative), ``seconds`` (cumulative).

    Raises
    ------
    ValueError
        Bad ``K``, ``diagonal`` (or ``c < tau`` somewhere: infeasible),
        ``weights`` (a general SPD matrix included), ``tau``, ``tol``,
        ``max_iter``, ``cg_max_iter`` or ``spectrum`` (wrong shapes).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` Newton iterations did not reach ``tol`` (the last
        iterate is returned, corrected to be feasible as usual).

    References
    ----------
    H. Qi and D. Sun (2006), SIAM J. Matrix Anal. Appl. 28, 360-385, Algorithm 5.1.
    """
    t0 = time.perf_counter()
    K = check_square_kernel(K, "K") if check_input else np.asarray(K, dtype=float)
    n = K.shape[0]
    tau, tol, max_iter, cg_max_iter = _check_options(tau, tol, max_iter, cg_max_iter)
    c = resolve_diagonal(diagonal, K)
    norm = check_weights(weights, n)
    if norm.kind == "matrix":
        raise ValueError("weights: the Newton method needs W = I or a diagonal W (a vector of "
                         "positive weights); for a general SPD W use "
                         "krein.solvers.alternating.alternating_projections (method='dykstra')")
    if c is not None and np.any(c < tau):
        raise ValueError(f"diagonal: every entry must be >= tau = {tau:g} (X >= tau I forces "
                         f"diag(X) >= tau); the least is {c.min():.6g}")
    w = np.ones(n) if norm.kind == "identity" else norm.w
    Kshift = K.copy()
    Kshift.flat[::n + 1] -= tau
    G = norm.to_scaled(Kshift)
    dG = np.diag(G).copy()
    given = _check_spectrum(spectrum, n) if norm.kind == "identity" and tau == 0 else None
    t_setup = time.perf_counter() - t0
    rows = []
    if c is None:
        point = _DualPoint(G, dG, np.zeros(n), np.zeros(n), given)
        Xt = point.positive_part(G)
        Xd = Xt
        y = np.zeros(n)
        it, converged, n_eigh, solver = 0, True, int(given is None), "weighted-clip"
        p_val = 0.5 * float(np.linalg.norm(Xt - G) ** 2)
        dual_val, rel_g = p_val, 0.0
        rows.append({"iter": 0, "objective": np.sqrt(2 * p_val), "dual_value": dual_val,
                     "relative_gap": 0.0, "gradient": 0.0, "step": np.nan, "cg_iterations": 0,
                     "n_positive": point.r, "eigh": n_eigh, "seconds": time.perf_counter() - t0})
    else:
        solver = "newton"
        b = w * (c - tau)
        nb = float(np.linalg.norm(b))
        half_G2 = 0.5 * float(np.sum(G * G))
        y = b - dG
        n_eigh = 0

        def evaluate(y):
            nonlocal n_eigh
            n_eigh += 1
            return _DualPoint(G, dG, y, b)

        def record(k, point, step, cg_it):
            d_val = half_G2 - point.theta
            rel_g = float(np.linalg.norm(point.grad)) / nb if nb > 0 else 0.0
            rows.append({"iter": k, "objective": np.nan, "dual_value": d_val,
                         "relative_gap": np.nan, "gradient": rel_g, "step": step,
                         "cg_iterations": cg_it, "n_positive": point.r, "eigh": n_eigh,
                         "seconds": time.perf_counter() - t0})
            if verbose:
                print(f"newton it {k}: gradient {rel_g:.3e}, dual value {d_val:.10g}, "
                      f"step {step:g}, {cg_it} CG, {point.r} positive eigenvalues")
            return d_val, rel_g

        if given is not None and np.all(np.abs(y) <= _ROUNDING * np.maximum(np.abs(b),
                                                                           np.abs(dG))):
            # diag(K) = c up to rounding (a kernel scaled to unit diagonal): the first
            # iterate is K, whose decomposition is given
            y = np.zeros(n)
            point = _DualPoint(G, dG, y, b, given)
        else:
            point = evaluate(y)
        dual_val, rel_g = record(0, point, np.nan, 0)
        converged = rel_g <= tol
        it = 0
        while not converged and it < max_iter:
            it += 1
            g = point.grad
            eps = min(_ETA, rel_g) ** 2
            # forcing term min(1e-2, g_k), but no smaller than needed to reach tol at
            # this step (Kelley 1995, eq. 6.20)
            eta = min(_ETA, max(rel_g, _OVERSOLVE * tol / rel_g))
            d, cg_it = _pcg(point, -g, eps, eta, cg_max_iter)
            slope = float(g @ d)
            if not slope < 0:  # not a descent direction (rounding): preconditioned gradient
                d = -g / (np.maximum(point.jacobian_diagonal(), 1e-8) + eps)
                slope = float(g @ d)
            # rounding allowance relative to the data (theta and |G|^2/2 scale as s^2 under
            # K -> s K): an absolute 1 made the Armijo test depend on the kernel's scale
            slack = 1e-12 * (abs(point.theta) + half_G2)
            alpha = 1.0
            for _ in range(_MAX_HALVINGS + 1):
                trial = evaluate(point.y + alpha * d)
                if trial.theta <= point.theta + _SIGMA * alpha * slope + slack:
                    break
                alpha *= 0.5
            point = trial
            dual_val, rel_g = record(it, point, alpha, cg_it)
            converged = rel_g <= tol
        Xd = point.positive_part(G)
        Xt = _feasible(Xd.copy(), b)
        p_val = 0.5 * float(np.linalg.norm(Xt - G) ** 2)
        rows[-1]["objective"] = np.sqrt(2 * p_val)
        rows[-1]["relative_gap"] = (p_val - dual_val) / max(abs(p_val) + abs(dual_val),
                                                            np.finfo(float).tiny)
        y = point.y
        if not converged:
            warnings.warn(f"nearest_psd_newton stopped at max_iter={max_iter} before reaching "
                          f"tol={tol:g} (relative gradient {rel_g:.3g})", ConvergenceWarning,
                          stacklevel=2)
    # ---- back to original coordinates
    X = norm.from_scaled(Xt)
    X = 0.5 * (X + X.T)
    X.flat[::n + 1] += tau
    X_dual = norm.from_scaled(Xd)
    X_dual = 0.5 * (X_dual + X_dual.T)
    X_dual.flat[::n + 1] += tau
    if c is not None:
        np.fill_diagonal(X, c)
    t_solve = time.perf_counter() - t0 - t_setup
    obj = norm.norm(K - X)
    theta = -w * y
    if certify:
        if tau:
            cert = nearest_psd_certificate(Kshift, X - tau * np.eye(n), None if c is None else
                                           c - tau, norm)
        else:
            cert = nearest_psd_certificate(K, X, c, norm)
    else:
        cert = {"primal_residual": float("nan"), "dual_residual": float("nan"),
                "gap": float("nan")}
    p_final = 0.5 * obj * obj
    nX = norm.norm(X)
    cert.update({
        "primal_value": p_final, "dual_value": dual_val, "duality_gap": p_final - dual_val,
        "relative_duality_gap": (p_final - dual_val) / max(abs(p_final) + abs(dual_val), np.finfo(float).tiny),
        "gradient": rel_g, "eigh": n_eigh,
        "scaling_change": norm.norm(X - X_dual) / nX if nX > 0 else 0.0})
    if verbose:
        print(f"{solver}: {'converged' if converged else 'max_iter'} after {it} iterations "
              f"({n_eigh} eigendecompositions), ||K - X||_W = {obj:.10g}, duality gap "
              f"{cert['duality_gap']:.3g}")
    return Solution(
        solver=solver, status="converged" if converged else "max_iter", objective=obj,
        primal={"X": X, "X_dual": X_dual}, dual={"y": y, "theta": theta},
        setup_time=t_setup, solve_time=t_solve, iterations=it,
        primal_residual=float(cert["primal_residual"]), dual_residual=float(cert["dual_residual"]),
        gap=float(cert["gap"]), certificate=cert, certificate_kind="gap" if certify else "",
        trace=pd.DataFrame(rows, columns=list(NEWTON_TRACE_COLUMNS)))
