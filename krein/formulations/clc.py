"""Conformal linear combination (CLC) of kernels: Munoz & de Diego (2006, "munoz") eqs. (15)-(16).

Given an indefinite ``K`` and PSD kernels ``K_1, ..., K_M`` on the same objects,
munoz eq. (15) asks for the convex combination closest to ``K``::

    minimize_beta   || K - sum_m beta_m K_m ||_F^2
    subject to      sum_m beta_m = 1,  beta >= 0                          (15)

Expanding the norm, with the Gram matrix of the kernels ``G_ml = <K_m, K_l>_F``,
``c_m = <K, K_m>_F`` and ``k2 = ||K||_F^2``::

    || K - sum_m beta_m K_m ||_F^2 = k2 - 2 c'beta + beta' G beta

a QP in ``M`` variables whose size does not grow with ``n`` (the ``O(M^2 n^2)``
inner products are computed once by :func:`kernel_inner_products`).  ``G`` is a
Gram matrix, hence PSD; the quadratic term is written ``sum_squares(L' beta)``
with ``G = L L'`` from an eigendecomposition that keeps only the positive
eigenvalues, so the problem is DCP-convex by construction.  ``cvxpy.psd_wrap(G)``
is not used: it skips CVXPY's PSD check, and a Gram matrix formed in floating
point can have slightly negative eigenvalues.

For ``M = 2`` the minimizer over the line ``beta_2 = 1 - beta_1`` is munoz
eq. (16), ``beta_1 = <K_1 - K_2, K - K_2> / ||K_1 - K_2||_F^2``; the objective is
a convex quadratic in ``beta_1``, so clipping to ``[0, 1]`` gives the minimizer
on the simplex (:func:`clc_closed_form`).  munoz states (16) without the
clipping; without it the "combination" can leave the simplex and lose the PSD
guarantee.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from ..spectrum import spectral_factor
from .base import Formulation

__all__ = ["ConformalLinearCombinationQP", "kernel_inner_products", "clc_closed_form",
           "clc_objective", "simplex_optimality_gap"]


def kernel_inner_products(K, kernels):
    """Frobenius inner products of the CLC problem (munoz eq. 15).

    Parameters
    ----------
    K : array of shape (n_rows, n_cols)
        Target (indefinite) kernel.
    kernels : array of shape (n_rows, n_cols, M)
        Base kernels stacked along the last axis.

    Returns
    -------
    G : ndarray of shape (M, M)
        ``G_ml = <K_m, K_l>_F`` (symmetric PSD).
    c : ndarray of shape (M,)
        ``c_m = <K, K_m>_F``.
    k2 : float
        ``||K||_F^2``.

    Raises
    ------
    ValueError
        On shape mismatch.
    """
    K = np.asarray(K, dtype=float)
    B = np.asarray(kernels, dtype=float)
    if B.ndim != 3 or K.shape != B.shape[:2]:
        raise ValueError(f"kernels must have shape {K.shape + ('M',)}; got {B.shape}")
    flat = B.reshape(-1, B.shape[2])
    G = flat.T @ flat
    G = 0.5 * (G + G.T)
    c = flat.T @ K.ravel()
    k2 = float(np.vdot(K, K))
    return G, c, k2


def clc_objective(G, c, k2, beta):
    """``||K - sum_m beta_m K_m||_F^2 = k2 - 2 c'beta + beta'G beta`` (munoz eq. 15).

    Parameters
    ----------
    G : array-like of shape (M, M)
        Gram matrix ``<K_m, K_l>_F`` of the base kernels.
    c : array-like of shape (M,)
        Inner products ``<K, K_m>_F`` with the target kernel.
    k2 : float
        ``||K||_F^2``.
    beta : array-like of shape (M,)
        Combination weights.

    Returns
    -------
    value : float
        The squared Frobenius distance, clipped at 0 (the expansion can round slightly below 0 at an exact fit).
    """
    beta = np.asarray(beta, dtype=float)
    return max(0.0, float(k2 - 2.0 * c @ beta + beta @ G @ beta))


def simplex_optimality_gap(G, c, beta):
    """Frank-Wolfe gap of the CLC QP at ``beta``: an upper bound on its suboptimality.

    With ``f(beta) = k2 - 2 c'beta + beta'G beta`` convex and ``g = grad f(beta) =
    2 (G beta - c)``, for any feasible ``beta``:
    ``f(beta) - min_simplex f <= g'beta - min_m g_m`` (the linear minorant at
    ``beta`` is minimized at a vertex).  Zero exactly at a minimizer (the KKT
    conditions: ``g_m = min g`` wherever ``beta_m > 0``).

    Parameters
    ----------
    G : ndarray of shape (M, M)
        Gram matrix ``<K_m, K_l>_F`` of the base kernels.
    c : ndarray of shape (M,)
        Inner products ``<K, K_m>_F`` with the target kernel.
    beta : array-like of shape (M,)
        A point of the simplex.

    Returns
    -------
    gap : float
        ``g'beta - min_m g_m >= 0`` (0 at a minimizer).
    """
    beta = np.asarray(beta, dtype=float)
    g = 2.0 * (G @ beta - c)
    return float(g @ beta - g.min())


def clc_closed_form(G, c):
    """Munoz eq. (16) for two kernels, clipped to the simplex.

    ``beta_1 = (c_1 - c_2 - G_12 + G_22) / (G_11 - 2 G_12 + G_22)``, i.e.
    ``<K_1 - K_2, K - K_2> / ||K_1 - K_2||_F^2``, clipped to ``[0, 1]``, and
    ``beta_2 = 1 - beta_1``.  The objective restricted to the segment is a convex
    quadratic in ``beta_1``, so the clipped value is the minimizer of (15).

    Parameters
    ----------
    G : array of shape (2, 2)
        Gram matrix of the two kernels.
    c : array of shape (2,)
        Inner products with the target.

    Returns
    -------
    beta : ndarray of shape (2,)
        When ``K_1 = K_2`` (zero denominator, every point optimal) ``(1/2, 1/2)``.

    Raises
    ------
    ValueError
        If ``G`` is not 2 x 2 or ``c`` not of length 2.
    """
    G = np.asarray(G, dtype=float)
    c = np.asarray(c, dtype=float)
    if G.shape != (2, 2) or c.shape != (2,):
        raise ValueError(f"the closed form (munoz eq. 16) is for two kernels; got G of shape "
                         f"{G.shape} and c of shape {c.shape}")
    den = G[0, 0] - 2.0 * G[0, 1] + G[1, 1]
    num = c[0] - c[1] - G[0, 1] + G[1, 1]
    if den <= 1e-14 * max(G[0, 0], G[1, 1], np.finfo(float).tiny):
        return np.array([0.5, 0.5])
    b1 = float(np.clip(num / den, 0.0, 1.0))
    return np.array([b1, 1.0 - b1])


class ConformalLinearCombinationQP(Formulation):
    """Munoz eq. (15) as a CVXPY QP on the simplex, in the Gram matrix of the kernels.

    ::

        minimize    (||L' beta||^2 - 2 c'beta + k2) / s
        subject to  1'beta = 1            ("simplex")
                    beta >= 0             ("nonneg")

    with ``G = L L'``.  The scale ``s = max(1, max_m G_mm)`` (a constant) keeps
    the data near unit size for solvers with absolute tolerances (OSQP, SCS); it
    does not change the minimizer.  The problem is DPP in ``c`` and ``k2``: a new
    target kernel with the same base kernels is re-solved without recompiling
    (``set(c=..., k2=...)`` with values of the same scale as the originals).

    Parameters
    ----------
    G : array of shape (M, M)
        Gram matrix ``<K_m, K_l>_F`` of the base kernels; symmetric PSD (checked:
        eigenvalues below ``-psd_rtol * max|eig|`` raise).
    c : array of shape (M,)
        ``<K, K_m>_F``.
    k2 : float
        ``||K||_F^2`` (only shifts the objective).
    psd_rtol : float
        Relative tolerance of the PSD check of ``G``.

    Attributes
    ----------
    variables : {"beta"}
    parameters : {"c", "k2"}
        Unscaled values are given to :meth:`set`; they are divided by ``scale``.
    constraints : {"simplex", "nonneg"}
    scale : float
    G, c, k2 : the data (``c``/``k2`` updated by :meth:`set`)

    Raises
    ------
    ValueError
        On bad shapes, NaN/inf, or a ``G`` that is not PSD.

    References
    ----------
    A. Munoz, I. Martin de Diego (2006), "From indefinite to positive
    semi-definite matrices", §3.5, eq. (15).
    """

    name = "clc"
    problem_class = "QP"

    def __init__(self, G, c, k2=0.0, psd_rtol=1e-10):
        G = np.asarray(G, dtype=float)
        c = np.asarray(c, dtype=float)
        if G.ndim != 2 or G.shape[0] != G.shape[1] or G.shape[0] < 1:
            raise ValueError(f"G must be a square (M, M) matrix; got shape {G.shape}")
        M = G.shape[0]
        if c.shape != (M,):
            raise ValueError(f"c must have shape ({M},); got {c.shape}")
        if not (np.all(np.isfinite(G)) and np.all(np.isfinite(c)) and np.isfinite(k2)):
            raise ValueError("G, c and k2 must be finite")
        if np.max(np.abs(G - G.T)) > 1e-10 * max(1.0, float(np.max(np.abs(G)))):
            raise ValueError("G must be symmetric (a Gram matrix <K_m, K_l>_F)")
        G = 0.5 * (G + G.T)
        g, V = np.linalg.eigh(G)
        if g.min() < -psd_rtol * max(float(np.max(np.abs(g))), np.finfo(float).tiny):
            raise ValueError(f"G is not PSD (least eigenvalue {g.min():.3g}); it must be the "
                             "Gram matrix <K_m, K_l>_F of the base kernels")
        self.G, self.c, self.k2 = G, c, float(k2)
        self.scale = max(1.0, float(np.max(np.diag(G))))
        keep = g > 0
        L = spectral_factor(V, g / self.scale, keep)
        beta = cp.Variable(M, name="beta")
        c_par = cp.Parameter(M, name="c", value=c / self.scale)
        k2_par = cp.Parameter(name="k2", value=self.k2 / self.scale)
        quad = cp.sum_squares(L.T @ beta) if keep.any() else 0
        objective = cp.Minimize(quad - 2 * c_par @ beta + k2_par)
        cons = {"simplex": cp.sum(beta) == 1, "nonneg": beta >= 0}
        problem = cp.Problem(objective, list(cons.values()))
        super().__init__(problem, {"c": c_par, "k2": k2_par}, {"beta": beta}, cons)

    @classmethod
    def from_kernels(cls, K, kernels, **kwargs):
        """Build from the target kernel and the base kernels (munoz eq. 15).

        Parameters
        ----------
        K : array-like of shape (n_rows, n_cols)
            The (indefinite) kernel to approximate.
        kernels : array-like of shape (n_rows, n_cols, M) or sequence of M matrices
            The PSD base kernels ``K_1..K_M``.
        **kwargs
            Passed to the constructor (e.g. ``psd_rtol``).

        Returns
        -------
        ConformalLinearCombinationQP
            The QP on the inner products of :func:`kernel_inner_products`.
        """
        G, c, k2 = kernel_inner_products(K, kernels)
        return cls(G, c, k2, **kwargs)

    def set(self, **values):
        """Set the target's inner products ``c`` (shape (M,)) and/or ``k2`` (unscaled).

        Parameters
        ----------
        **values
            ``c=`` array of shape (M,), ``<K, K_m>_F``; ``k2=`` float,
            ``||K||_F^2``.

        Returns
        -------
        self : ConformalLinearCombinationQP
            The formulation, for chaining.

        Raises
        ------
        ValueError
            For an unknown name, a wrong shape or NaN/inf.
        """
        for key, value in values.items():
            if key not in self.parameters:
                raise ValueError(f"unknown parameter {key!r} for {self.name}; parameters: "
                                 f"{sorted(self.parameters)}")
            v = np.asarray(value, dtype=float)
            if v.shape != self.parameters[key].shape or not np.all(np.isfinite(v)):
                raise ValueError(f"{key} must be a finite array of shape "
                                 f"{self.parameters[key].shape}; got {value!r}")
            if key == "c":
                self.c = v
            else:
                self.k2 = float(v)
            self.parameters[key].value = v / self.scale
        return self

    def weights(self):
        """The solver's ``beta`` projected onto the simplex (clip at 0, renormalize).

        Returns
        -------
        beta : ndarray of shape (M,)
            Non-negative weights summing to 1 (uniform if all were clipped).

        Raises
        ------
        ValueError
            Before a solve.
        """
        beta = self.variables["beta"].value
        if beta is None:
            raise ValueError("no solution yet: solve the formulation first")
        b = np.clip(np.asarray(beta, dtype=float), 0.0, None)
        s = b.sum()
        return b / s if s > 0 else np.full(b.size, 1.0 / b.size)

    def certificate(self):
        """Feasibility of ``beta``, Frank-Wolfe gap and the objective, computed in NumPy.

        Returns
        -------
        dict
            ``primal_residual`` (``max(|1'beta - 1|, max(-beta))``),
            ``dual_residual`` (NaN: the gap certifies optimality),
            ``gap`` (:func:`simplex_optimality_gap` at the projected point, in
            the scaled objective's units), ``objective`` (unscaled
            ``||K - sum beta_m K_m||_F^2`` at the projected point) and ``beta``.
        """
        beta = self.variables["beta"].value
        if beta is None:
            return {"primal_residual": float("nan"), "dual_residual": float("nan"),
                    "gap": float("nan")}
        beta = np.asarray(beta, dtype=float)
        primal = max(abs(float(beta.sum()) - 1.0), float(np.max(-beta, initial=0.0)), 0.0)
        b = self.weights()
        gap = simplex_optimality_gap(self.G / self.scale, self.c / self.scale, b)
        return {"primal_residual": primal, "dual_residual": float("nan"), "gap": gap,
                "objective": clc_objective(self.G, self.c, self.k2, b), "beta": b}
