"""KSVM's least-squares problem (Loosli, Ong & Canu 2013, "loosli", §5.1.2, eq. 26).

With ``G = Y K Y`` (symmetric, possibly indefinite) the SVM dual (loosli eq. 21)
only has a stationary point, not a minimum, when ``K`` is indefinite.  loosli
replaces "stabilize ``J(alpha) = alpha'G alpha / 2 - 1'alpha``" (eq. 24) by
"minimize the squared norm of its gradient" (eq. 25), under the SVM constraints::

    minimize    ||G alpha - 1||^2
    subject to  y'alpha = 0,  0 <= alpha <= C                          (26)

(with ``class_weight`` the box is per sample, ``0 <= alpha_i <= C_i``; everything
below holds with ``C`` read as ``C_i`` componentwise), which is a convex
(least-squares) QP whatever the sign of ``K``: its Hessian is
``2 G'G = 2 G^2``.  When ``G`` is singular the minimizer need not be unique; the
optimal VALUE is.

Exact KKT conditions of (26) (Lagrangian ``||G alpha - 1||^2 + lambda y'alpha
- mu'alpha + eta'(alpha - C)``)::

    2 G (G alpha - 1) + lambda y - mu + eta = 0          (stationarity)
    y'alpha = 0,  0 <= alpha <= C                        (primal)
    mu >= 0, eta >= 0, mu_i alpha_i = 0, eta_i (alpha_i - C) = 0

loosli's eq. (27) writes ``(alpha'G - 1' + lambda y' - mu' + eta') G' = 0``: the
multipliers sit INSIDE the product with ``G`` (eq. 27 is the SVM stationarity
(22) multiplied by ``G``, the "normal residuals" of §5.1.1), which is not the
gradient of the Lagrangian of (26).  krein follows the exact conditions above;
:func:`ksvm_kkt_residual` measures them.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_positive
from .base import Formulation, check_signed_labels

__all__ = ["KSVMLeastSquares", "KSVMLeastSquaresFactor", "ksvm_gram", "ksvm_kkt_residual",
           "ksvm_kkt_residual_factor", "ksvm_kkt_from_gradient", "best_multiplier", "check_box",
           "alpha_scale"]


def check_box(C, n):
    """Checked box bound of (26): a float ``C > 0``, or per-sample bounds ``C_i > 0``.

    Parameters
    ----------
    C : float or array-like of shape (n,)
        One bound, or one per point (``class_weight``: ``C_i = C * w[y_i]``).
    n : int
        Number of points.

    Returns
    -------
    float or ndarray of shape (n,)
        ``C`` as a float, or as a float array.

    Raises
    ------
    ValueError
        ``C <= 0``, NaN/inf, or an array of the wrong shape.
    """
    if np.ndim(C) == 0:
        return check_positive(C, "C")
    C = np.asarray(C, dtype=float)
    if C.shape != (n,) or not np.all(np.isfinite(C) & (C > 0)):
        raise ValueError(f"C must be a positive finite number or shape ({n},) array; "
                         f"got shape {C.shape}")
    return C


def check_signed_features(Psi, signs, n):
    """Checked signed features ``K = Psi diag(signs) Psi'`` of ``n`` points.

    Parameters
    ----------
    Psi : array-like of shape (n, r)
        Features.
    signs : array-like of shape (r,)
        Their signs (+-1).
    n : int
        Number of points.

    Returns
    -------
    Psi : ndarray of shape (n, r)
        As float.
    signs : ndarray of shape (r,)
        As float.

    Raises
    ------
    ValueError
        ``Psi`` not a finite ``(n, r)`` array, or ``signs`` of the wrong shape or not +-1.
    """
    Psi = np.asarray(Psi, dtype=float)
    signs = np.asarray(signs, dtype=float)
    if Psi.ndim != 2 or Psi.shape[0] != n or not np.all(np.isfinite(Psi)):
        raise ValueError(f"Psi must be a finite (n, r) = ({n}, r) array; got shape "
                         f"{np.shape(Psi)}")
    if signs.shape != (Psi.shape[1],) or not np.all(np.abs(signs) == 1.0):
        raise ValueError(f"signs must have shape ({Psi.shape[1]},) with entries +-1")
    return Psi, signs


def ksvm_gram(K, y):
    """``G = Y K Y`` (``G_ij = y_i y_j K_ij``), shape (n, n).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.

    Returns
    -------
    G : ndarray of shape (n, n)
        ``Y K Y`` with ``Y = diag(y)``.
    """
    return (y[:, None] * K) * y[None, :]


def _natural_residual(alpha, s, C):
    """``alpha - clip(alpha - s, 0, C)`` componentwise (zero iff the box KKT hold for ``s``)."""
    return alpha - np.clip(alpha - s, 0.0, C)


def alpha_scale(C, hdiag):
    """The scale ``a_i = min(C_i, 1 / ||G_(:,i)||)`` of ``alpha_i`` in problem (26).

    ``1 / ||G_(:,i)||`` is the move of ``alpha_i`` that changes the residual
    ``G alpha - 1`` by as much as its target ``1`` (in norm); a larger box bound
    does not make a move of that size negligible.  Dividing the KKT residuals by
    ``a`` instead of ``C`` keeps them meaningful when ``C`` is far above the scale
    of the solution (at ``C = 1e6`` a division by ``C`` certified ``alpha = 0``,
    a constant classifier, with a residual of ``6e-7``) and makes them invariant
    to ``(K, C) -> (s K, C / s)``, under which the minimizers scale as ``alpha / s``.

    Parameters
    ----------
    C : float or ndarray of shape (n,)
        Box bound(s).
    hdiag : ndarray of shape (n,)
        The Hessian diagonal ``2 (G^2)_ii = 2 ||G_(:,i)||^2``.

    Returns
    -------
    ndarray of shape (n,)
        ``min(C_i, 1 / ||G_(:,i)||)`` (positive).
    """
    hdiag = np.maximum(np.asarray(hdiag, dtype=float), np.finfo(float).tiny)
    return np.minimum(C, 1.0 / np.sqrt(0.5 * hdiag))


def best_multiplier(alpha, grad, y, C, hdiag):
    """The multiplier ``lambda`` of ``y'alpha = 0`` that minimizes the KKT residual.

    The scaled natural residual ``rho_i(lambda) = alpha_i - clip(alpha_i -
    (grad_i + lambda y_i) / h_i, 0, C)`` makes ``y_i rho_i`` non-decreasing in
    ``lambda`` for every ``i``, so ``max_i |rho_i|`` is the maximum of a
    non-decreasing and a non-increasing function of ``lambda``; its minimizer is
    their crossing, found by bisection on ``[min_i(-y_i grad_i), max_i(-y_i grad_i)]``
    (outside that interval every component gets worse).

    Parameters
    ----------
    alpha : ndarray of shape (n,)
        Current point of problem (26).
    grad : ndarray of shape (n,)
        Gradient ``2 G (G alpha - 1)`` of the objective of (26).
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    C : float or ndarray of shape (n,)
        Box bound, or per-sample bounds.
    hdiag : ndarray of shape (n,)
        Positive scaling (the Hessian diagonal ``2 (G^2)_ii``).

    Returns
    -------
    lam : float
        The multiplier (a bisection end point) with the smaller residual.
    """
    t = -y * grad
    lo, hi = float(np.min(t)), float(np.max(t))
    # The bisection's test "up(lam) > down(lam)" is monotone in lam (in floating point
    # too: every operation in it is), so bisection ends at the two adjacent floats around
    # its switch.  Testing _SEARCH points of [lo, hi] per round (the midpoint where they
    # all round to lo or hi; the bisection's own stopping test) reaches the same two
    # floats in ~10 rounds of NumPy calls instead of ~60: the same answer, faster.  (Only
    # where the bisection stopped at its 200 halvings, a switch within 2^-200 of the
    # bracket's width from zero, do they differ: both end that close to the switch.)
    frac = np.arange(1, _SEARCH + 1) / (_SEARCH + 1)
    alpha_c, grad_c, y_c, h_c = alpha[None, :], grad[None, :], y[None, :], hdiag[None, :]
    C_c = C[None, :] if np.ndim(C) else C
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        pts = lo + (hi - lo) * frac           # non-decreasing (rounding is monotone)
        pts = pts[(pts > lo) & (pts < hi)]
        if not pts.size:                       # a gap of a few floats: the midpoint
            pts = np.array([mid])
        v = y_c * _natural_residual(alpha_c, (grad_c + pts[:, None] * y_c) / h_c, C_c)
        up = np.maximum(v.max(axis=1), 0.0)
        down = np.maximum((-v).max(axis=1), 0.0)
        above = up > down                      # False ... False True ... True
        k = int(np.searchsorted(above, True))
        if k > 0:
            lo = float(pts[k - 1])
        if k < pts.size:
            hi = float(pts[k])

    def parts(lam):
        v = y * _natural_residual(alpha, (grad + lam * y) / hdiag, C)
        return max(float(np.max(v)), 0.0), max(float(np.max(-v)), 0.0)

    a_lo, b_lo = parts(lo)
    a_hi, b_hi = parts(hi)
    return lo if max(a_lo, b_lo) <= max(a_hi, b_hi) else hi


#: Points per round of the search in :func:`best_multiplier`.
_SEARCH = 63


def ksvm_kkt_residual(K, y, C, alpha, lam=None, *, G=None):
    """KKT residuals of problem (26) at ``alpha`` (exact conditions, module docstring).

    Two numbers, both relative to the scale ``a_i = min(C_i, 1 / ||G_(:,i)||)`` of
    ``alpha_i`` (:func:`alpha_scale`; dimensionless, invariant to
    ``(K, C) -> (s K, C / s)``; ``|y'alpha|`` is relative to ``max a_i``):

    * ``primal = max(|y'alpha| / max(a), max(-alpha / a), max((alpha - C) / a))``;
    * ``stationarity = max_i |alpha_i - clip(alpha_i - (grad_i + lambda y_i) / h_i,
      0, C)| / a_i`` with ``grad = 2 G (G alpha - 1)`` and ``h_i = 2 (G^2)_ii`` the
      Hessian diagonal: the move of ``alpha_i`` (as a share of its scale) that an
      exact minimization along coordinate ``i`` of the Lagrangian would make,
      clipped to the box.  It is zero iff ``mu = max(grad + lambda y, 0)`` and
      ``eta = max(-(grad + lambda y), 0)`` satisfy stationarity, sign and
      complementarity conditions.  Relative to ``C`` alone it would vanish as
      ``C`` grows at any point, ``alpha = 0`` included.

    Objective gap: when ``alpha`` is feasible and no component is clipped,
    convexity gives ``f(alpha) - f* <= sum_i |grad_i + lambda y_i| |alpha_i - alpha*_i|
    <= stationarity * sum_i a_i C_i h_i``; on a nearly singular ``G`` (flat
    directions) a tiny residual can thus leave a visible, bounded objective gap.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    C : float > 0 or ndarray of shape (n,)
        Box bound, or per-sample bounds ``C_i`` (``class_weight``).
    alpha : ndarray of shape (n,)
        The point to certify.
    lam : float, optional
        Multiplier of ``y'alpha = 0``.  Default: the one minimizing the residual
        (:func:`best_multiplier`), so the residual certifies ``alpha`` alone.
    G : ndarray of shape (n, n), optional
        Precomputed ``Y K Y`` (then ``K`` is not used).

    Returns
    -------
    dict
        ``primal``, ``stationarity``, ``residual`` (their maximum), ``lam``,
        ``objective`` (``||G alpha - 1||^2``).

    Raises
    ------
    ValueError
        On shape mismatch, NaN/inf or a bad ``C``.
    """
    y = np.asarray(y, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    if G is None:
        K = np.asarray(K, dtype=float)
        if K.ndim != 2 or K.shape != (y.size, y.size):
            raise ValueError(f"K must have shape ({y.size}, {y.size}); got {K.shape}")
        G = ksvm_gram(K, y)
    if alpha.shape != y.shape:
        raise ValueError(f"alpha must have shape {y.shape}; got {alpha.shape}")
    if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(G))):
        raise ValueError("alpha or K contains NaN or inf")
    C = check_box(C, y.size)
    r = G @ alpha - 1.0
    grad = 2.0 * (G @ r)
    hdiag = 2.0 * np.einsum("ij,ij->j", G, G)
    return ksvm_kkt_from_gradient(y, C, alpha, r, grad, hdiag, lam)


def ksvm_kkt_from_gradient(y, C, alpha, r, grad, hdiag, lam):
    """:func:`ksvm_kkt_residual` from the residual, the gradient and the Hessian diagonal.

    The part shared by the dense form (:func:`ksvm_kkt_residual`), the factored form
    (:func:`ksvm_kkt_residual_factor`) and the active-set solver, which has these
    quantities at hand (loosli eq. 26: ``min ||G alpha - 1||^2`` on the box).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Box bound(s).
    alpha : ndarray of shape (n,)
        The point.
    r : ndarray of shape (n,)
        The residual ``G alpha - 1``.
    grad : ndarray of shape (n,)
        The gradient ``2 G' r``.
    hdiag : ndarray of shape (n,)
        The Hessian diagonal ``2 diag(G'G)`` (floored here at the smallest positive float).
    lam : float or None
        The multiplier of ``y'alpha = 0``; None: :func:`best_multiplier`.

    Returns
    -------
    dict
        As :func:`ksvm_kkt_residual`: ``primal``, ``stationarity``, ``residual``,
        ``lam``, ``objective`` (``||r||^2``).
    """
    hdiag = np.maximum(hdiag, np.finfo(float).tiny)
    if lam is None:
        lam = best_multiplier(alpha, grad, y, C, hdiag)
    a = alpha_scale(C, hdiag)
    stat = float(np.max(np.abs(_natural_residual(alpha, (grad + lam * y) / hdiag, C)) / a))
    primal = max(abs(float(y @ alpha)) / float(np.max(a)), float(np.max(-alpha / a)),
                 float(np.max((alpha - C) / a)), 0.0)
    return {"primal": primal, "stationarity": stat, "residual": max(primal, stat),
            "lam": float(lam), "objective": float(r @ r)}


class KSVMLeastSquares(Formulation):
    """Problem (26) of loosli as a CVXPY problem, DPP in ``C``.

    ``minimize cp.sum_squares(G @ alpha - 1)`` subject to ``y'alpha = 0`` and
    ``0 <= alpha <= C``, with ``G = Y K Y`` a NumPy constant.  ``sum_squares`` of
    an affine expression is convex whatever the sign of ``K`` (no PSD check or
    factor needed).

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric kernel matrix, possibly indefinite.
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or array of shape (n,)
        Box constraint ``alpha <= C`` (a cvxpy Parameter: re-solves are DPP), or
        per-sample bounds ``alpha_i <= C_i`` (``class_weight``; still DPP).

    Attributes
    ----------
    variables : {"alpha"}
    parameters : {"C"}
    constraints : {"equality" (dual: lambda), "lower" (dual: mu), "upper" (dual: eta)}
        With CVXPY's sign conventions these are exactly the multipliers of the
        Lagrangian in the module docstring.
    G : ndarray of shape (n, n)

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, an asymmetric ``K``, labels not in {-1, +1} or
        ``C <= 0``.

    References
    ----------
    Loosli, Ong & Canu (2013), §5.1.2, eqs. (25)-(27).
    """

    name = "ksvm-least-squares"
    problem_class = "QP"

    def __init__(self, K, y, C=1.0):
        from .._validation import check_square_kernel

        y = check_signed_labels(y)
        C = check_box(C, y.size)
        K = check_square_kernel(K, "K")
        if K.shape[0] != y.size:
            raise ValueError(f"K must have shape ({y.size}, {y.size}); got {K.shape}")
        self.K, self.y = K, y
        self.G = ksvm_gram(K, y)
        n = y.size
        alpha = cp.Variable(n, name="alpha")
        Cp = (cp.Parameter(nonneg=True, name="C", value=C) if np.ndim(C) == 0
              else cp.Parameter(n, nonneg=True, name="C", value=C))
        cons = {"equality": y @ alpha == 0, "lower": alpha >= 0, "upper": alpha <= Cp}
        problem = cp.Problem(cp.Minimize(cp.sum_squares(self.G @ alpha - 1.0)), list(cons.values()))
        super().__init__(problem, {"C": Cp}, {"alpha": alpha}, cons)

    def certificate(self):
        """Residuals at the current point, computed by krein.

        Returns
        -------
        dict
            ``primal_residual`` (largest constraint violation over ``C``),
            ``dual_residual`` (``||2 G (G alpha - 1) + lambda y - mu + eta||_inf``
            with the solver's multipliers, relative to the largest of its terms),
            ``gap`` (the complementarity ``mu'alpha + eta'(C - alpha) - lambda
            y'alpha``, which is the Lagrangian duality gap when stationarity holds),
            ``kkt_residual`` (:func:`ksvm_kkt_residual` with the best multiplier)
            and ``objective``.
        """
        C = self.parameters["C"].value
        C = float(C) if np.ndim(C) == 0 else np.asarray(C, dtype=float)
        alpha = np.asarray(self.variables["alpha"].value, dtype=float)
        kkt = ksvm_kkt_residual(None, self.y, C, alpha, G=self.G)
        out = {"primal_residual": kkt["primal"], "kkt_residual": kkt["residual"],
               "objective": kkt["objective"], "dual_residual": float("nan"), "gap": float("nan")}
        duals = self.dual_values()
        if any(v is None for v in duals.values()):
            return out
        lam = float(np.asarray(duals["equality"]).reshape(()))
        mu = np.asarray(duals["lower"], dtype=float)
        eta = np.asarray(duals["upper"], dtype=float)
        grad = 2.0 * (self.G @ (self.G @ alpha - 1.0))
        stat = grad + lam * self.y - mu + eta
        scale = max(1.0, float(np.max(np.abs(grad))), abs(lam), float(np.max(np.abs(mu))),
                    float(np.max(np.abs(eta))))
        out["dual_residual"] = float(np.max(np.abs(stat))) / scale
        out["gap"] = float(mu @ alpha + eta @ (C - alpha) - lam * (self.y @ alpha))
        out["lam"] = lam
        return out


def ksvm_kkt_residual_factor(Psi, signs, y, C, alpha, lam=None):
    """:func:`ksvm_kkt_residual` for ``K = Psi diag(signs) Psi'``, without forming ``K``.

    With ``v = Psi' (y alpha)``: ``G alpha - 1 = y * (Psi (signs * v)) - 1``, the
    gradient ``2 G (G alpha - 1) = 2 y * (Psi (signs * Psi' (y * r)))`` and the Hessian
    diagonal ``2 (G^2)_ii = 2 psi_i S (Psi'Psi) S psi_i'``: ``O(n r^2)`` time, ``O(n r)``
    memory.

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Features of the kernel.
    signs : ndarray of shape (r,)
        Their signs.
    y : ndarray of shape (n,) in {-1, +1}
        Labels.
    C : float > 0 or ndarray of shape (n,)
        Box bound(s).
    alpha : ndarray of shape (n,)
        The point to certify.
    lam : float, optional
        Multiplier of ``y'alpha = 0`` (default: the best one).

    Returns
    -------
    dict
        As :func:`ksvm_kkt_residual`.
    """
    y = np.asarray(y, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    C = check_box(C, y.size)
    PS = Psi * signs
    r = y * (PS @ (Psi.T @ (y * alpha))) - 1.0
    grad = 2.0 * y * (PS @ (Psi.T @ (y * r)))
    hdiag = 2.0 * np.einsum("ij,ij->i", PS @ (Psi.T @ Psi), PS)
    return ksvm_kkt_from_gradient(y, C, alpha, r, grad, hdiag, lam)


class KSVMLeastSquaresFactor(Formulation):
    """Problem (26) of loosli for a kernel given by signed features, ``K = Psi S Psi'``.

    With ``v = Psi' (y alpha)`` (``r`` numbers), ``G alpha - 1 = y * (Psi S v) - 1``
    and (rows multiplied by ``y_i = +-1``) ``||G alpha - 1|| = ||Psi S v - y||``.  With
    ``Psi = Q R`` (``R'R = Psi'Psi``, ``Q`` orthonormal) this is
    ``||R S v - Q'y||^2 + ||y||^2 - ||Q'y||^2``, so (26) becomes::

        minimize    ||R S v - Q'y||^2
        subject to  v = Psi' (y alpha),  y'alpha = 0,  0 <= alpha <= C

    with ``r`` residuals instead of ``n`` and ``n r`` nonzeros (the definition of
    ``v``) instead of the ``n^2`` of ``G``: the form for a low-rank approximation
    (:class:`krein.approximation.IndefiniteNystroem`).  The same minimizers as
    :class:`KSVMLeastSquares` on ``K = Psi S Psi'``; the objective differs by the
    constant ``||y||^2 - ||Q'y||^2``, which :meth:`certificate` adds back.

    Parameters
    ----------
    Psi : array of shape (n, r)
        Features.
    signs : array of shape (r,)
        Signs in {-1, +1} (``S = diag(signs)``).
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or array of shape (n,)
        Box bound(s) (a cvxpy Parameter: re-solves are DPP).

    Attributes
    ----------
    variables : {"alpha", "v"}
    parameters : {"C"}
    constraints : {"factor", "equality", "lower", "upper"}

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, signs not in {-1, +1}, labels not in {-1, +1} or
        ``C <= 0``.

    References
    ----------
    Loosli, Ong & Canu (2013), §5.1.2, eq. (26); Oglic & Gärtner (2019) for the
    signed features.
    """

    name = "ksvm-least-squares-factor"
    problem_class = "QP"

    def __init__(self, Psi, signs, y, C=1.0):
        y = check_signed_labels(y)
        n = y.size
        C = check_box(C, n)
        Psi, signs = check_signed_features(Psi, signs, n)
        self.Psi, self.signs, self.y = Psi, signs, y
        G = Psi.T @ Psi
        D, E = np.linalg.eigh(0.5 * (G + G.T))
        good = D > 1e-12 * max(float(D.max(initial=0.0)), 0.0)
        R = np.sqrt(D[good])[:, None] * E[:, good].T          # R'R = Psi'Psi (rank part)
        Qty = (E[:, good].T @ (Psi.T @ y)) / np.sqrt(D[good])  # Q'y
        self._const = float(y @ y - Qty @ Qty)
        alpha = cp.Variable(n, name="alpha")
        v = cp.Variable(Psi.shape[1], name="v")
        Cp = (cp.Parameter(nonneg=True, name="C", value=C) if np.ndim(C) == 0
              else cp.Parameter(n, nonneg=True, name="C", value=C))
        cons = {"factor": v == (Psi * y[:, None]).T @ alpha, "equality": y @ alpha == 0,
                "lower": alpha >= 0, "upper": alpha <= Cp}
        objective = cp.sum_squares((R * signs) @ v - Qty)
        problem = cp.Problem(cp.Minimize(objective), list(cons.values()))
        super().__init__(problem, {"C": Cp}, {"alpha": alpha, "v": v}, cons)

    def certificate(self):
        """KKT residuals of (26) at the current ``alpha`` (:func:`ksvm_kkt_residual_factor`).

        Returns
        -------
        dict
            ``primal_residual``, ``kkt_residual`` (best multiplier), ``objective``
            (``||G alpha - 1||^2``), ``dual_residual`` (the stationarity part) and
            ``gap`` (NaN: the multipliers of the factored problem are not those of
            (26)).
        """
        C = self.parameters["C"].value
        C = float(C) if np.ndim(C) == 0 else np.asarray(C, dtype=float)
        alpha = np.asarray(self.variables["alpha"].value, dtype=float)
        kkt = ksvm_kkt_residual_factor(self.Psi, self.signs, self.y, C, alpha)
        return {"primal_residual": kkt["primal"], "kkt_residual": kkt["residual"],
                "objective": kkt["objective"], "dual_residual": kkt["stationarity"],
                "gap": float("nan")}
