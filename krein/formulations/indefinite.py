"""IndefiniteSVM (Luss & d'Aspremont 2009, "luss"): the proxy-kernel problem.

The saddle problem (luss eq. 4, and eqs. 15 and 19 for SVR and one-class)::

    max_{beta in A}  min_{K >= 0}  c'beta - 1/2 u'K u + rho ||K - K0||_F^2,   u = M beta,

has the inner minimizer ``K* = (K0 + u u'/(4 rho))_+`` (Theorem 1, eq. 5;
Corollary 2, eq. 16) and reduces to the concave maximization (7) / (17) / (20).
The three models differ only in ``(c, M, A)``:

=========  ==========================  =================  =====================================
model      variable beta               u = M beta         feasible set A
=========  ==========================  =================  =====================================
svc        alpha (n,)                  y * alpha          y'alpha = 0, 0 <= alpha <= C   (7)
svr        [alpha+; alpha-] (2n,)      alpha+ - alpha-    1'u = 0, 0 <= alpha+- <= C      (17)
one-class  alpha (n,)                  alpha              1'alpha = 1, 0 <= alpha <= 1/(nu n)  (20)
=========  ==========================  =================  =====================================

with ``c = 1`` (svc), ``c = [y - eps; -y - eps]`` (svr, luss eq. 14 with the
epsilon-insensitive loss written out; the paper's text drops the ``eps``) and
``c = 0`` (one-class).  Every set is ``{a'beta = b0, 0 <= beta <= U}`` with
``a`` in {-1, +1}, so one exact projection serves all
(:mod:`krein.projections`).

This module holds :class:`ProxyKernelProblem` (the data of the problem and its
upper bounds) and the CVXPY formulations used by the algorithms and the tests:

* :class:`ProxyKernelProjection` — the inner problem of eq. (4) (or eq. 23 with a
  rank-one ``H``) as an SDP; its solution is Theorem 1's (Theorem 3's) closed form;
* :class:`IndefiniteSVMSDP` — the joint minimization (10) (an SDP with a matrix
  fractional term), an independent path to the optimal value of (7) for small n;
* :class:`ExchangeQCLP` — the exchange subproblem (13);
* :class:`AnalyticCenter` — the analytic-center problem of ACCPM (Algorithm 2);
* :class:`PerturbSVM` — problem (22) for PSD kernels.
"""

from __future__ import annotations

import numbers

import cvxpy as cp
import numpy as np

from .._cache import shared_eigh
from .._validation import check_positive, check_square_kernel
from ..projections import box_hyperplane_lp, project_box_hyperplane
from ..representation import KernelRepresentation
from ..spectrum import spectral_factor
from .base import Formulation


def _check_pm1(y, n, name="y"):
    y = np.asarray(y, dtype=float).ravel()
    if y.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},); got {y.shape}")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError(f"{name} must contain only -1 and +1")
    return y


def _check_weights(weights, n):
    if weights is None:
        return np.ones(n)
    h = np.asarray(weights, dtype=float).ravel()
    if h.shape != (n,) or not np.all(np.isfinite(h)) or np.any(h <= 0):
        raise ValueError(f"weights must be positive and finite with shape ({n},)")
    return h


__all__ = ["ProxyKernelProblem", "proxy_kernel", "ProxyKernelProjection", "IndefiniteSVMSDP",
           "ExchangeQCLP", "ExchangeLevelProjection", "AnalyticCenter", "PerturbSVM", "MODELS"]

#: The models of the IndefiniteSVM problem (the ``model`` of :class:`ProxyKernelProblem`):
#: SVM classification, SVR and the one-class SVM (luss eqs. 7, 17, 20).
MODELS = ("svc", "svr", "one-class")


def proxy_kernel(K0, u, rho, weights=None):
    """Closed-form proxy kernel by a dense eigendecomposition (reference path).

    ``K* = (K0 + u u'/(4 rho))_+`` (luss Theorem 1, eq. 5; Corollary 2, eq. 16).
    With ``weights = h`` (componentwise penalty ``H = rho h h'``, luss Theorem 3,
    eq. 24): ``K* = W^-1/2 (W^1/2 K0 W^1/2 + (W^-1/2 u)(W^-1/2 u)'/(4 rho))_+ W^-1/2``
    with ``W = diag(h)``.

    Parameters
    ----------
    K0 : array-like of shape (n, n)
        The given (indefinite) kernel matrix.
    u : array-like of shape (n,)
        ``y * alpha`` (svc) or ``alpha`` (svr, one-class).
    rho : float > 0
        Weight of the penalty ``rho ||K - K0||_F^2`` (luss eq. 4).
    weights : array-like of shape (n,), optional
        Positive ``h`` (luss Theorem 3); default all ones.

    Returns
    -------
    K : ndarray of shape (n, n)
        The PSD proxy kernel ``K*``, exactly symmetric.

    Raises
    ------
    ValueError
        On a bad ``K0``, ``rho <= 0``, ``u`` not of shape (n,) or bad weights.

    Notes
    -----
    luss eq. (25) (the PSD case of Theorem 3) prints ``W^-1/2 Y alpha``; the
    rank-one term of eq. (24) without projection is
    ``W^-1/2 (W^-1/2 u)(W^-1/2 u)' W^-1/2 / (4 rho) = W^-1 u u' W^-1 / (4 rho)``, i.e.
    ``W^-1`` — which reduces to Theorem 1's ``u u'/(4 rho)`` for ``h = 1`` while
    the printed form does not.  We implement the derivation.
    """
    K0 = check_square_kernel(K0, "K0")
    rho = check_positive(rho, "rho")
    n = K0.shape[0]
    u = np.asarray(u, dtype=float)
    if u.shape != (n,):
        raise ValueError(f"u must have shape ({n},); got {u.shape}")
    s = np.sqrt(_check_weights(weights, n))
    X = K0 * np.outer(s, s) + np.outer(u / s, u / s) / (4.0 * rho)
    lam, V = np.linalg.eigh(X)
    Kp = (V * np.maximum(lam, 0.0)) @ V.T
    Kp = Kp / np.outer(s, s)
    return 0.5 * (Kp + Kp.T)


class ProxyKernelProblem:
    """Data of the IndefiniteSVM problem for one model (luss eqs. 7, 17, 20).

    Parameters
    ----------
    K0 : array of shape (n, n), or KernelRepresentation
        Symmetric (possibly indefinite) training kernel, or a low-rank representation
        of it (:class:`~krein.representation.SignedFeatures` of a Nyström
        approximation): the solvers then use the O(n r) oracle of
        :mod:`krein.solvers.indefinite.lowrank` and never form an ``n x n`` array.
    y : array of shape (n,)
        Labels in {-1, +1} (svc) or real targets (svr); ignored for one-class.
    model : {"svc", "svr", "one-class"}
        The SVM whose kernel is learned (:data:`MODELS`): classification, regression
        or the one-class SVM.
    C : float > 0 or array of shape (n,)
        Box bound (svc, svr), or one bound per sample (class weights; for svr both
        ``alpha+_i`` and ``alpha-_i`` get ``C_i``).  ``self.C`` is then ``max C_i``
        (a bound on every ``|alpha_i|``), ``self.upper`` has the per-sample bounds.
    rho : float > 0
        Penalty on ``||K - K0||_F^2``.
    epsilon : float >= 0
        Width of the insensitive tube (svr).
    nu : float in (0, 1]
        One-class parameter: the box is ``1/(nu n)``.
    weights : array of shape (n,), optional
        ``h`` of a componentwise penalty ``H = rho h h'`` (luss eq. 23, Theorem 3).
    check : bool
        Validate ``K0``.

    Attributes
    ----------
    n : int
        Number of training points.
    m : int
        Dimension of ``beta`` (``2n`` for svr, else ``n``).
    c, a, upper : ndarray of shape (m,)
        Linear term, equality normal (entries +-1) and box of ``beta``.
    b0 : float
        Right-hand side of ``a'beta = b0``.
    model : str
        One of :data:`MODELS`.
    low_rank : bool
        Whether ``K0`` is a low-rank representation (no ``n x n`` matrix).
    per_sample : bool
        Whether ``C`` was given per sample (svc, svr); ``C_per_sample`` holds the
        bounds either way.

    Raises
    ------
    ValueError
        Unknown model, bad ``K0``, labels not in {-1, +1} for svc, ``C``/``rho``
        not positive, ``nu`` outside (0, 1], shape mismatches.
    """

    #: Its class in the solver table (:data:`krein.solvers.PROBLEM_CLASSES`).
    problem_class = "proxy-kernel"

    def __init__(self, K0, y=None, model="svc", C=1.0, rho=1.0, epsilon=0.1, nu=0.5,
                 weights=None, check=True):
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}; got {model!r}")
        self.low_rank = isinstance(K0, KernelRepresentation)
        if self.low_rank:
            if weights is not None:
                raise ValueError("componentwise weights (luss Theorem 3) need the dense K0; "
                                 "a low-rank K0 takes weights=None")
            n = K0.n
        else:
            K0 = check_square_kernel(K0, "K0") if check else np.asarray(K0, dtype=float)
            n = K0.shape[0]
        self.K0 = K0
        self.n = n
        self.model = model
        self.rho = check_positive(rho, "rho")
        self.weights = None if weights is None else _check_weights(weights, n)
        if model == "one-class":
            if isinstance(nu, bool) or not (isinstance(nu, (int, float, np.integer, np.floating))
                                            and 0 < nu <= 1):
                raise ValueError(f"nu must be in (0, 1]; got {nu!r}")
            self.nu = float(nu)
            self.y = None
            self.C = None
            self.m = n
            self.c = np.zeros(n)
            self.a = np.ones(n)
            self.b0 = 1.0
            self.upper = np.full(n, 1.0 / (self.nu * n))
            return
        self.per_sample = np.ndim(C) != 0
        if not self.per_sample:
            self.C = check_positive(C, "C")
            C_vec = np.full(n, self.C)
        else:
            C_vec = np.asarray(C, dtype=float)
            if C_vec.shape != (n,) or not np.all(np.isfinite(C_vec) & (C_vec > 0)):
                raise ValueError(f"C must be a positive finite number or shape ({n},) array of "
                                 f"them; got shape {C_vec.shape}")
            self.C = float(C_vec.max())
        self.C_per_sample = C_vec
        y = np.asarray(y, dtype=float).ravel()
        if y.shape != (n,):
            raise ValueError(f"y must have shape ({n},); got {y.shape}")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or inf")
        self.y = y
        if model == "svc":
            if not np.all(np.abs(y) == 1.0):
                raise ValueError("y must be in {-1, +1} for model='svc'")
            self.m = n
            self.c = np.ones(n)
            self.a = y.copy()
            self.b0 = 0.0
            self.upper = C_vec.copy()
        else:  # svr
            eps = float(epsilon)
            if not np.isfinite(eps) or eps < 0:
                raise ValueError(f"epsilon must be a finite number >= 0; got {epsilon!r}")
            self.epsilon = eps
            self.m = 2 * n
            self.c = np.concatenate([y - eps, -y - eps])
            self.a = np.concatenate([np.ones(n), -np.ones(n)])
            self.b0 = 0.0
            self.upper = np.concatenate([C_vec, C_vec])

    # ------------------------------------------------------------- the map M
    def u_of(self, beta):
        """Map the dual variables to the kernel expansion coefficients: ``u = M beta``.

        Parameters
        ----------
        beta : array-like of shape (m,)
            Dual variables (``m = n``, or ``2 n`` for svr: ``alpha+`` then ``alpha-``).

        Returns
        -------
        u : ndarray of shape (n,)
            ``y * beta`` (svc), ``alpha+ - alpha-`` (svr) or ``beta`` (one-class).
        """
        beta = np.asarray(beta, dtype=float)
        if self.model == "svc":
            return self.y * beta
        if self.model == "svr":
            return beta[: self.n] - beta[self.n:]
        return beta.copy()

    def pullback(self, g_u):
        """Pull a u-space vector back to beta-space: ``M' g``.

        Parameters
        ----------
        g_u : array-like of shape (n,)
            A vector in u-space (e.g. a gradient in ``u``).

        Returns
        -------
        g_beta : ndarray of shape (m,)
            ``M' g_u``.
        """
        if self.model == "svc":
            return self.y * g_u
        if self.model == "svr":
            return np.concatenate([g_u, -g_u])
        return np.asarray(g_u, dtype=float).copy()

    def alpha_of(self, beta):
        """The paper's ``alpha`` from the dual variables.

        Parameters
        ----------
        beta : array-like of shape (m,)
            Dual variables.

        Returns
        -------
        alpha : ndarray of shape (n,)
            ``beta`` (svc, one-class) or ``alpha+ - alpha-`` (svr).
        """
        return self.u_of(beta) if self.model == "svr" else np.asarray(beta, dtype=float)

    def initial_point(self):
        """A feasible starting point of the dual problem.

        Returns
        -------
        beta : ndarray of shape (m,)
            The projection of the box midpoint onto the feasible set (svc/svr)
            or the uniform weights ``1/n`` (one-class).
        """
        if self.model == "one-class":
            return np.full(self.n, 1.0 / self.n)
        return project_box_hyperplane(0.5 * self.upper, self.a, self.b0, self.upper)

    # ------------------------------------------------------------- bounds
    def omega_upper(self, Kv, vKv):
        """Upper bound on ``omega(K) = max_{beta in A} c'beta - 1/2 u'K u`` from any ``v``.

        For PSD ``K``, ``1/2 (u - v)'K(u - v) >= 0`` gives
        ``omega(K) <= 1/2 v'K v + max_{beta in A} (c - M'K v)'beta`` for every ``v``
        (the value of the SVM primal at ``w = Phi' v`` with the optimal intercept /
        offset); the maximum is an exact LP over ``A``.

        Parameters
        ----------
        Kv : array of shape (n,)
            ``K v``.
        vKv : float
            ``v'K v``.

        Returns
        -------
        bound : float
            The upper bound on ``omega(K)``.
        nu : float
            Multiplier of ``a'beta = b0`` at the bound: the SVM intercept (svc,
            svr) or minus the one-class offset.
        """
        w = self.c - self.pullback(Kv)
        val, nu = box_hyperplane_lp(w, self.a, self.b0, self.upper)
        return 0.5 * vKv + val, nu


# ====================================================================== CVXPY
class ProxyKernelProjection(Formulation):
    """The inner problem of luss eq. (4) (eq. 23 with ``H = rho h h'``) as an SDP.

    ``minimize  -1/2 u'K u + sum_ij H_ij (K_ij - K0_ij)^2  subject to  K >= 0``
    in the variable ``K`` (symmetric ``n x n``).  Its solution is the closed form
    of Theorem 1 (Theorem 3), so this formulation exists to test it; use small
    ``n`` (<= 30).

    Parameters
    ----------
    K0 : array-like of shape (n, n)
        The given (indefinite) kernel matrix.
    u : array-like of shape (n,)
        ``y * alpha`` (svc) or ``alpha`` (svr, one-class).
    rho : float > 0
        Weight of the penalty (``H = rho h h'``).
    weights : array-like of shape (n,), optional
        Positive ``h``; default all ones.

    Attributes
    ----------
    variables : {"K"}
    """

    name = "proxy-kernel-projection"
    problem_class = "SDP"

    def __init__(self, K0, u, rho, weights=None):
        K0 = check_square_kernel(K0, "K0")
        rho = check_positive(rho, "rho")
        n = K0.shape[0]
        u = np.asarray(u, dtype=float)
        if u.shape != (n,):
            raise ValueError(f"u must have shape ({n},); got {u.shape}")
        h = _check_weights(weights, n)
        sqrtH = np.sqrt(rho * np.outer(h, h))
        K = cp.Variable((n, n), PSD=True, name="K")
        obj = -0.5 * cp.sum(cp.multiply(np.outer(u, u), K)) \
            + cp.sum_squares(cp.multiply(sqrtH, K - K0))
        super().__init__(cp.Problem(cp.Minimize(obj)), variables={"K": K})


class IndefiniteSVMSDP(Formulation):
    """The joint minimization (luss eq. 10): an SDP whose optimal value is that of (7).

    Dualizing the SVM (inner maximization of eq. 3) for fixed ``K`` gives::

        minimize   1/2 w' (Y K Y)^-1 w + C 1'mu + rho ||K - K0||_F^2
        subject to w = 1 + delta - mu + nu y,  delta, mu >= 0,  K >= 0

    (``delta``, ``mu``, ``nu`` the multipliers of ``alpha >= 0``, ``alpha <= C``,
    ``y'alpha = 0``).  ``w'(YKY)^-1 w = (Y w)'K^-1 (Y w)`` is CVXPY's jointly
    convex ``matrix_frac`` (infinite outside the range of a singular ``K``).
    luss prints the same problem with the opposite sign convention on
    ``delta``/``mu``.  For small ``n`` (<= 30): one SDP with an ``(n+1)``-square LMI.

    Parameters
    ----------
    K0 : array-like of shape (n, n)
        The given (indefinite) kernel matrix.
    y : array of shape (n,) in {-1, +1}
    C, rho : float > 0
        The SVM box bound and the weight of ``||K - K0||_F^2``.

    Attributes
    ----------
    variables : {"K", "delta", "mu", "nu"}
    """

    name = "indefinite-svm-sdp"
    problem_class = "SDP"

    def __init__(self, K0, y, C, rho):
        K0 = check_square_kernel(K0, "K0")
        n = K0.shape[0]
        y = _check_pm1(y, n)
        C = check_positive(C, "C")
        rho = check_positive(rho, "rho")
        K = cp.Variable((n, n), PSD=True, name="K")
        delta = cp.Variable(n, nonneg=True, name="delta")
        mu = cp.Variable(n, nonneg=True, name="mu")
        nu = cp.Variable(name="nu")
        w = 1.0 + delta - mu + nu * y
        obj = 0.5 * cp.matrix_frac(cp.multiply(y, w), K) + C * cp.sum(mu) \
            + rho * cp.sum_squares(K - K0)
        super().__init__(cp.Problem(cp.Minimize(obj)),
                         variables={"K": K, "delta": delta, "mu": mu, "nu": nu})


def _cut_model(P, beta, factors, dists):
    """The exchange cuts ``c'beta - 1/2 ||L_i' M beta||^2 + rho d_i`` and the feasible set.

    Returns ``(cuts, cons, box)``: the list of CVXPY cut expressions, the dict
    ``{"equality": a'beta == b0}`` and the box constraints ``0 <= beta <= U``.
    """
    if P.model == "svc":
        u = cp.multiply(P.y, beta)
    elif P.model == "svr":
        u = beta[: P.n] - beta[P.n:]
    else:
        u = beta
    cuts = [P.c @ beta - 0.5 * cp.sum_squares(L.T @ u) + P.rho * float(d)
            for L, d in zip(factors, dists)]
    return cuts, {"equality": P.a @ beta == P.b0}, [beta >= 0, beta <= P.upper]


class ExchangeQCLP(Formulation):
    """The exchange subproblem (luss eq. 13; Chen & Ye 2008) for any model.

    ::

        maximize   t
        subject to a'beta = b0,  0 <= beta <= U,
                   t <= c'beta - 1/2 ||L_i' M beta||^2 + rho ||K_i - K0||_F^2,  i = 1..p

    with ``K_i = L_i L_i'`` the kept proxy kernels (one second-order-cone
    constraint each, through the factor: never an unchecked ``quad_form``).

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (model, labels, ``C``, ``rho``).
    factors : list of arrays of shape (n, r_i)
        ``L_i`` with ``K_i = L_i L_i'``.
    dists : list of float
        ``||K_i - K0||_F^2`` (weighted when the problem has weights).

    Attributes
    ----------
    variables : {"beta", "t"}
    constraints : {"cut_0", ..., "cut_{p-1}", "equality"}
        The cut duals are the weights of the kernels in the MKL reading of (13).
    """

    name = "exchange-qclp"
    problem_class = "SOCP"

    def __init__(self, problem, factors, dists):
        if len(factors) != len(dists) or not factors:
            raise ValueError("factors and dists must be non-empty lists of equal length")
        P = problem
        beta = cp.Variable(P.m, name="beta")
        t = cp.Variable(name="t")
        cuts, cons, box = _cut_model(P, beta, factors, dists)
        cons.update({f"cut_{i}": t <= h for i, h in enumerate(cuts)})
        prob = cp.Problem(cp.Maximize(t), list(cons.values()) + box)
        super().__init__(prob, variables={"beta": beta, "t": t}, constraints=cons)


class ExchangeLevelProjection(Formulation):
    """Projection onto a level set of the exchange model (level-stabilized exchange step).

    ::

        minimize   ||beta - center||^2
        subject to a'beta = b0,  0 <= beta <= U,
                   c'beta - 1/2 ||L_i' M beta||^2 + rho ||K_i - K0||_F^2 >= level,  i = 1..p

    the Euclidean projection of the best point found so far onto the set where
    every kept cut of the QCLP (luss eq. 13) reaches ``level``: the step of the
    level method of Lemarechal, Nemirovskii & Nesterov (1995) applied to the
    quadratic cuts of the exchange method (see :func:`krein.solvers.indefinite.exchange`).
    Non-empty whenever ``level`` is at most the optimal value of
    :class:`ExchangeQCLP` with the same cuts.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (model, labels, ``C``, ``rho``).
    factors : list of arrays of shape (n, r_i)
        ``L_i`` with ``K_i = L_i L_i'``.
    dists : list of float
        ``rho``-free distances ``||K_i - K0||_F^2`` (any common constant may be
        subtracted from them and from ``level`` / ``rho``).
    center : array of shape (m,)
        The point projected (the best point of the exchange run).
    level : float
        The level every kept cut must reach.

    Attributes
    ----------
    variables : {"beta"}
    constraints : {"cut_0", ..., "cut_{p-1}", "equality"}
    """

    name = "exchange-level-projection"
    problem_class = "SOCP"

    def __init__(self, problem, factors, dists, center, level):
        if len(factors) != len(dists) or not factors:
            raise ValueError("factors and dists must be non-empty lists of equal length")
        P = problem
        center = np.asarray(center, dtype=float)
        if center.shape != (P.m,):
            raise ValueError(f"center must have shape ({P.m},); got {center.shape}")
        beta = cp.Variable(P.m, name="beta")
        cuts, cons, box = _cut_model(P, beta, factors, dists)
        cons.update({f"cut_{i}": h >= float(level) for i, h in enumerate(cuts)})
        prob = cp.Problem(cp.Minimize(cp.sum_squares(beta - center)), list(cons.values()) + box)
        super().__init__(prob, variables={"beta": beta}, constraints=cons)


class AnalyticCenter(Formulation):
    """Analytic center of ``{x : A x <= b, a'x = b0}`` (luss Algorithm 2, step 1).

    ``maximize sum(log(b - A x))  subject to  a'x = b0``, written with ``A`` and
    ``b`` as CVXPY parameters of a fixed number of rows (unused rows are
    ``0 x <= 1``, which add ``log 1 = 0``), so the problem is DPP and is compiled
    once for all ACCPM iterations.

    Parameters
    ----------
    n : int
        Dimension of ``x``.
    max_rows : int
        Number of rows allocated for ``A``.
    a : array of shape (n,)
        Normal of the equality constraint ``a'x = b0``.
    b0 : float
        Right-hand side of the equality constraint.

    Attributes
    ----------
    parameters : {"A", "b"}
    variables : {"x"}
    """

    name = "analytic-center"
    problem_class = "EXP"

    def __init__(self, n, max_rows, a, b0):
        A = cp.Parameter((max_rows, n), name="A")
        b = cp.Parameter(max_rows, name="b")
        x = cp.Variable(n, name="x")
        cons = {"equality": np.asarray(a, dtype=float) @ x == float(b0)}
        prob = cp.Problem(cp.Maximize(cp.sum(cp.log(b - A @ x))), list(cons.values()))
        super().__init__(prob, parameters={"A": A, "b": b}, variables={"x": x}, constraints=cons)
        self.max_rows = max_rows

    def set_rows(self, A, b):
        """Load the rows ``A x <= b`` (at most ``max_rows``), padding with ``0 x <= 1``.

        Parameters
        ----------
        A : array-like of shape (k, n)
            The cut normals, ``k <= max_rows``.
        b : array-like of shape (k,)
            The right-hand sides.

        Returns
        -------
        self : AnalyticCenter
            The formulation, for chaining.

        Raises
        ------
        ValueError
            If ``A`` has more than ``max_rows`` rows.
        """
        A = np.asarray(A, dtype=float)
        b = np.asarray(b, dtype=float)
        if A.shape[0] > self.max_rows:
            raise ValueError(f"{A.shape[0]} rows exceed max_rows={self.max_rows}")
        Ap = np.zeros(self.parameters["A"].shape)
        bp = np.ones(self.max_rows)
        Ap[: A.shape[0]] = A
        bp[: A.shape[0]] = b
        self.parameters["A"].value = Ap
        self.parameters["b"].value = bp
        return self


class PerturbSVM(Formulation):
    """PerturbSVM (luss eq. 22): the SVM with a fourth-order penalty, for PSD ``K0``.

    ::

        maximize   1'alpha - 1/2 ||L'(y * alpha)||^2 - 1/(16 rho) ||alpha||_2^4
        subject to y'alpha = 0,  0 <= alpha <= C

    (``sum_ij (alpha_i alpha_j)^2 = ||alpha||^4``), with ``K0 = L L'``.  Written
    with an epigraph ``s >= ||alpha||^2`` and ``- s^2 / (16 rho)`` (concave and
    decreasing in ``s``, so ``s = ||alpha||^2`` at the optimum).  The proxy
    kernel is the rank-one update ``K0 + u u'/(4 rho)`` (eq. 21).

    Parameters
    ----------
    K0 : array of shape (n, n)
        PSD kernel (checked: the least eigenvalue must be >= ``-psd_tol * max|lam|``).
    y : array of shape (n,) in {-1, +1}
    C : float > 0 or array of shape (n,)
        Box bound, or one bound per sample (class weights).
    rho : float > 0
        Weight of the perturbation (luss eq. 22); :meth:`set` changes it without
        recompiling (the problem is DPP in ``C`` and the derived ``1/(16 rho)``).
    psd_tol : float
        Relative tolerance of the PSD check of ``K0``.

    Attributes
    ----------
    parameters : {"C"}
        The CVXPY parameters (``rho`` is set through :meth:`set`).
    rho : float
        The current ``rho``.
    variables : {"alpha", "s"}

    Raises
    ------
    ValueError
        If ``K0`` is not PSD (use the IndefiniteSVM algorithms instead).
    """

    name = "perturb-svm"
    problem_class = "SOCP"

    def __init__(self, K0, y, C=1.0, rho=1.0, psd_tol=1e-8):
        K0 = check_square_kernel(K0, "K0")
        lam, V = shared_eigh(K0)   # the oracle of PerturbSVC decomposes K0 too (krein._cache)
        scale = max(float(np.max(np.abs(lam))), 1e-300)
        if lam[0] < -psd_tol * scale:
            raise ValueError(f"PerturbSVM needs a PSD K0; least eigenvalue {lam[0]:.4g}")
        L = spectral_factor(V, lam, lam > psd_tol * scale)
        n = K0.shape[0]
        y = _check_pm1(y, n)
        if np.ndim(C) == 0:
            Cp = cp.Parameter(nonneg=True, name="C", value=check_positive(C, "C"))
        else:   # per-sample bounds (class weights)
            C = np.asarray(C, dtype=float)
            if C.shape != (n,) or not np.all(np.isfinite(C) & (C > 0)):
                raise ValueError(f"C must be a positive finite number or shape ({n},) array")
            Cp = cp.Parameter(n, nonneg=True, name="C", value=C)
        # DPP needs the coefficient 1/(16 rho) as the parameter: internal, set through rho
        q = cp.Parameter(nonneg=True, name="quartic_weight",
                         value=1.0 / (16.0 * check_positive(rho, "rho")))
        alpha = cp.Variable(n, name="alpha")
        s = cp.Variable(nonneg=True, name="s")
        obj = cp.sum(alpha) - 0.5 * cp.sum_squares(L.T @ cp.multiply(y, alpha)) - q * cp.square(s)
        cons = {"equality": y @ alpha == 0, "lower": alpha >= 0, "upper": alpha <= Cp,
                "epigraph": cp.sum_squares(alpha) <= s}
        super().__init__(cp.Problem(cp.Maximize(obj), list(cons.values())),
                         parameters={"C": Cp}, variables={"alpha": alpha, "s": s},
                         constraints=cons)
        self._quartic_weight = q
        self.rho = float(rho)
        self.factor = L

    def set(self, **values):
        """Set ``C`` and / or ``rho`` (luss eq. 22) for a re-solve without recompiling.

        Parameters
        ----------
        **values
            ``C=...`` (a positive number, or per-sample bounds when built with them)
            and ``rho=...`` (a positive number; the problem's DPP parameter is the
            derived ``1 / (16 rho)``).

        Returns
        -------
        self : PerturbSVM
            The formulation, for chaining.

        Raises
        ------
        ValueError
            For an unknown parameter name or an invalid value.
        """
        values = dict(values)
        if "rho" in values:
            rho = values.pop("rho")
            if not isinstance(rho, numbers.Real) or not np.isfinite(rho) or rho <= 0:
                raise ValueError(f"rho must be a positive finite number; got {rho!r}")
            self._quartic_weight.value = 1.0 / (16.0 * float(rho))
            self.rho = float(rho)
        return super().set(**values)
