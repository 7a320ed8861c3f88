"""IKSVM-DC's convex subproblem (Xu, Xue, Chen & Wang, AAAI 2017, "xu"; journal version
Xue, Xu, Chen & Wang, Front. Comput. Sci. 14:349-363, 2020).

xu solve the primal squared-hinge SVM in the kernel expansion ``f(x) = k(x, X) beta + b``,

    ``min_{beta, b}  1/2 (gamma beta'K beta + sum_i max(0, 1 - y_i (K beta + b)_i)^2)``,

which is non-convex when ``K`` is indefinite.  With ``rho > lambda_max(K)`` the DC split
(xu (12); ``DCdecomposition.m``) writes the quadratic term as
``rho ||beta||^2 - beta'(rho I - K) beta``, a difference of two convex functions.  DCA
(Tao & An 1997) replaces the concave part by its linearization at ``beta_t``,
``theta_t = gamma (rho I - K) beta_t``, and solves the strongly convex subproblem

    ``min  gamma rho / 2 ||beta||^2 + 1/2 sum_i max(0, 1 - y_i (K beta + b)_i)^2
    - theta_t' beta``

(``IKSVMDC.m``, its CVX block).  krein writes every problem in the SVM's ``C = 1 /
gamma`` (docs/design.md "Parameter vocabulary"), i.e. the subproblem above times ``C``::

    min_{beta, b}  rho / 2 ||beta||^2 + sum_i C_i / 2 max(0, 1 - y_i (K beta + b)_i)^2
                   - theta' beta,          theta = (rho I - K) beta_t            (S)

(the same minimizer; ``theta`` here is xu's ``theta_t / gamma``; with ``class_weight``
the slack weight is per sample).  :class:`DCSubproblem` is (S) in CVXPY, DPP in
``C``, ``rho`` and ``theta`` (re-solved along the DCA iterations without recompiling):
the independent check of :func:`krein.solvers.dca.dc_subproblem`, the fast solver.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .base import Formulation, check_signed_labels

__all__ = ["DCSubproblem", "dc_objective", "dc_subproblem_objective", "dc_subproblem_gradient",
           "dc_stationarity"]


def _margins(K, y, beta, b):
    """``r = 1 - y * (K beta + b)`` and ``K beta``."""
    Kb = K @ beta
    return 1.0 - y * (Kb + b), Kb


def dc_objective(K, y, C, beta, b):
    """The non-convex IKSVM-DC objective at ``(beta, b)``, in krein's ``C`` form.

    ``F(beta, b) = 1/2 beta'K beta + sum_i C_i / 2 max(0, 1 - y_i (K beta + b)_i)^2``:
    xu's primal objective (``getObjectiveFunctionValue.m``) times ``C = 1 / gamma``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Slack weight (``1 / gamma``), or one per point.
    beta : ndarray of shape (n,)
        Expansion coefficients.
    b : float
        Intercept.

    Returns
    -------
    float
        ``F(beta, b)``.
    """
    r, Kb = _margins(K, y, beta, b)
    return float(0.5 * beta @ Kb + 0.5 * np.sum(C * np.maximum(r, 0.0) ** 2))


def dc_subproblem_objective(K, y, C, dc_constant, theta, beta, b):
    """The value of subproblem (S) (module docstring) at ``(beta, b)``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Slack weight(s).
    dc_constant : float > 0
        xu's ``rho`` of the DC split (12), ``> lambda_max(K)`` (named apart from the
        vocabulary's ``rho``, the proxy-kernel penalty).
    theta : ndarray of shape (n,)
        The linearization ``(rho I - K) beta_t``.
    beta : ndarray of shape (n,)
        Expansion coefficients.
    b : float
        Intercept.

    Returns
    -------
    float
        ``rho / 2 ||beta||^2 + sum_i C_i / 2 max(0, r_i)^2 - theta'beta``.
    """
    r, _ = _margins(K, y, beta, b)
    return float(0.5 * dc_constant * beta @ beta + 0.5 * np.sum(C * np.maximum(r, 0.0) ** 2)
                 - theta @ beta)


def dc_subproblem_gradient(K, y, C, dc_constant, theta, beta, b):
    """Gradient of (S) at ``(beta, b)`` and its size relative to the data: the certificate.

    ``g_beta = rho beta - theta - K w`` and ``g_b = -1'w`` with ``w = C y max(0, r)``
    (``r = 1 - y (K beta + b)``).  (S) is strongly convex and continuously differentiable,
    so ``g = 0`` exactly at its minimizer.  The residual is
    ``max(||g_beta|| / (||rho beta|| + ||theta|| + ||K w||), |g_b| / ||w||_1)``: each part
    relative to the terms it sums (invariant to ``(K, C, rho, beta) -> (s K, C / s, s rho,
    beta / s)``), 1 for a point whose terms cancel by no means.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Slack weight(s).
    dc_constant : float > 0
        xu's ``rho``.
    theta : ndarray of shape (n,)
        The linearization ``(rho I - K) beta_t``.
    beta : ndarray of shape (n,)
        Expansion coefficients.
    b : float
        Intercept.

    Returns
    -------
    dict
        ``grad_beta`` (n,), ``grad_b`` (float), ``residual`` (float, the relative size).
    """
    r, _ = _margins(K, y, beta, b)
    w = C * y * np.maximum(r, 0.0)
    Kw = K @ w
    rho = dc_constant
    g_beta = rho * beta - theta - Kw
    g_b = -float(np.sum(w))
    den_beta = np.linalg.norm(rho * beta) + np.linalg.norm(theta) + np.linalg.norm(Kw)
    den_b = float(np.sum(np.abs(w)))
    res_beta = np.linalg.norm(g_beta) / den_beta if den_beta > 0 else 0.0
    res_b = abs(g_b) / den_b if den_b > 0 else 0.0
    return {"grad_beta": g_beta, "grad_b": g_b, "residual": float(max(res_beta, res_b))}


def dc_stationarity(K, y, C, beta, b):
    """Stationarity residual of the non-convex objective :func:`dc_objective`, relative.

    ``F`` is continuously differentiable (the squared hinge is C^1):
    ``grad_beta F = K (beta - w)``, ``grad_b F = -1'w`` with ``w = C y max(0, r)``.  A
    critical point (a DCA limit, xu's convergence theorem) has both zero.  Returned:
    ``max(||K (beta - w)|| / (||K beta|| + ||K w||), |1'w| / ||w||_1)`` (0 where a
    denominator is 0); invariant to ``(K, C, beta) -> (s K, C / s, beta / s)``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Slack weight(s).
    beta : ndarray of shape (n,)
        Expansion coefficients.
    b : float
        Intercept.

    Returns
    -------
    float
        The relative stationarity residual.
    """
    r, Kb = _margins(K, y, beta, b)
    w = C * y * np.maximum(r, 0.0)
    Kw = K @ w
    den_beta = np.linalg.norm(Kb) + np.linalg.norm(Kw)
    den_b = float(np.sum(np.abs(w)))
    res_beta = np.linalg.norm(Kb - Kw) / den_beta if den_beta > 0 else 0.0
    res_b = abs(float(np.sum(w))) / den_b if den_b > 0 else 0.0
    return float(max(res_beta, res_b))


class DCSubproblem(Formulation):
    """Subproblem (S) of IKSVM-DC (module docstring) as a DPP CVXPY problem.

    Variables ``beta`` (n,) and ``b``; parameters ``C`` (scalar, or (n,) when ``C`` is
    given per sample), ``dc_constant`` (the ``rho`` of (S)) and ``theta`` (n,).  The
    kernel ``K`` is data (it enters affinely, ``K beta``: no factor or PSD certificate
    is needed whatever its signature); the quadratic terms are ``sum_squares`` of
    affine expressions.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric kernel matrix (any signature).
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or array of shape (n,)
        Slack weight ``1 / gamma`` (per sample with ``class_weight``).
    dc_constant : float > 0
        xu's ``rho`` of the DC split (12) (named apart from the vocabulary's ``rho``, the
        proxy-kernel penalty); ``dc_constant > lambda_max(K)`` makes (S) strongly convex
        and its DCA model a majorizer.
    theta : array-like of shape (n,), optional
        The linearization ``(rho I - K) beta_t`` (default zeros).

    Raises
    ------
    ValueError
        Labels not in {-1, +1}, shapes that do not match, ``C <= 0`` or
        ``dc_constant <= 0``.

    References
    ----------
    Xu, Xue, Chen & Wang (2017), AAAI, the DC split (12) and its DCA subproblem
    (``IKSVMDC.m``'s CVX block); Tao & An (1997), DCA.
    """

    name = "iksvm-dc subproblem"
    problem_class = "QP"
    strictly_positive = ("C", "dc_constant")
    certificate_kind = "grad_norm"

    def __init__(self, K, y, C=1.0, dc_constant=1.0, theta=None):
        K = np.asarray(K, dtype=float)
        y = check_signed_labels(y)
        n = y.size
        if K.shape != (n, n):
            raise ValueError(f"K must have shape ({n}, {n}) to match y; got {K.shape}")
        self.K, self.y = K, y
        per_sample = np.ndim(C) > 0
        C_par = cp.Parameter(n if per_sample else (), nonneg=True, name="C")
        rho_par = cp.Parameter(nonneg=True, name="dc_constant")
        theta_par = cp.Parameter(n, name="theta")
        beta = cp.Variable(n, name="beta")
        b = cp.Variable(name="b")
        slack = cp.pos(1 - cp.multiply(y, K @ beta + b))
        if per_sample:
            loss = 0.5 * cp.sum(cp.multiply(C_par, cp.square(slack)))
        else:
            loss = 0.5 * C_par * cp.sum_squares(slack)
        objective = 0.5 * rho_par * cp.sum_squares(beta) + loss - theta_par @ beta
        problem = cp.Problem(cp.Minimize(objective))
        super().__init__(problem, variables={"beta": beta, "b": b},
                         parameters={"C": C_par, "dc_constant": rho_par, "theta": theta_par})
        self.set(C=C, dc_constant=dc_constant, theta=np.zeros(n) if theta is None else theta)

    def certificate(self):
        """Gradient certificate of (S) at the current point (:func:`dc_subproblem_gradient`).

        Returns
        -------
        dict
            ``primal_residual`` 0 (no constraints), ``dual_residual`` and ``grad_norm``:
            the relative gradient residual; ``gap`` NaN (no dual is formed).
        """
        beta = self.variables["beta"].value
        b = self.variables["b"].value
        if beta is None or b is None:
            nan = float("nan")
            return {"primal_residual": nan, "dual_residual": nan, "gap": nan, "grad_norm": nan}
        p = self.parameters
        res = dc_subproblem_gradient(self.K, self.y, p["C"].value, float(p["dc_constant"].value),
                                     p["theta"].value, np.asarray(beta), float(b))["residual"]
        return {"primal_residual": 0.0, "dual_residual": res, "gap": float("nan"),
                "grad_norm": res}
