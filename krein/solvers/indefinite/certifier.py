"""Bounds and the certified duality gap of the IndefiniteSVM loops (Luss & d'Aspremont 2009).

All algorithms of :mod:`krein.solvers.indefinite` maximize the concave ``f(beta) = c'beta + g(M beta)`` of luss eq.
(7) (eqs. 17, 20 for SVR / one-class; see
:class:`~krein.formulations.indefinite.ProxyKernelProblem`) over
``A = {a'beta = b0, 0 <= beta <= U}``, where ``g`` and its gradient come from
the O(n^2) oracle :class:`~krein.solvers.indefinite.oracle.ProxyKernelOracle`.

Certified duality gap (luss §2.4 and §3.2 "Stopping criterion").  For any PSD
``K_i``, ``omega(K_i) + rho ||K_i - K0||_F^2`` bounds the optimal value from
above (weak duality of the saddle problem eq. 3-4).  We use
``K_i = X(beta_i)_+`` and bound ``omega(K_i)`` from above by the SVM primal value
at a point ``v`` (:meth:`ProxyKernelProblem.omega_upper`, exact optimal
intercept), so the bound holds whatever the accuracy of the SVM solver:

* every iteration with ``v = u_i`` — free, since ``K_i u_i`` is the gradient; this
  equals the Frank-Wolfe gap ``max_{beta in A} grad f(beta_i)'(beta - beta_i)``;
* at the gap checks, with ``v`` from a solve of the SVM dual on ``K_i``, which is
  tighter.  How (:data:`CHECK_METHODS`, ``checks="auto"``): above
  :data:`INNER_CHECK_MIN_N` training points by the *inner check*
  (:meth:`Certifier.inner_bound`), at or below it by libsvm as described next (as the
  MATLAB IndefiniteSVM does: the proxy kernel is formed, all roots of the secular
  equation and one ``n x n`` product, and one SVM is solved).

Inner checks.  The SVM dual on ``K_i`` is a QP over the same set ``A`` the loop
projects onto; the check solves it by projected gradient steps alternating with
conjugate gradients on the face of the current point (free coordinates, ``a'b`` kept;
Moré & Toraldo 1991), never forming ``K_i``: each product ``K_i v`` is the oracle's
sign rule applied to ``v``
(:meth:`~krein.solvers.indefinite.oracle.ProxyKernelOracle.proxy_operator`, the cost
of one oracle call).  It starts from the better of the iterate (whose product is the
oracle's, free) and the previous check's point, and every point ``b`` it visits gives
the certified bound ``omega_upper(K_i M b)`` plus the penalty and the dual value
``h(b)`` plus the penalty, below which no bound from ``K_i`` can go.  It stops when
its own duality gap is at most :data:`INNER_SHARE` of the certified gap, when its
dual value shows that ``K_i`` cannot give a gap within the tolerance of the last
:meth:`Certifier.converged` (the check could not stop the loop: most checks end
here after a few products), when the certified gap meets that tolerance, when a
round does not raise ``h``, or after :data:`INNER_MAX_PRODUCTS` products.  Where the
check could stop the loop, its own point did not certify it, and the Frank-Wolfe bound
is not predicted to stop the loop soon (its geometric rate over the last
:data:`_FW_WINDOW` iterations, slowed down by :data:`_FW_SLOWDOWN`, needs more than
:data:`INNER_LIBSVM_PRODUCTS` oracle calls), libsvm is solved on the formed ``K_i`` as below (counted in
``n_inner_fallback``; ``upper_source`` says which bound is the least): on the
near-singular proxy kernels of the benchmark kernels the inner solve raises ``h``
quickly but its primal value converges slowly, where libsvm's stopping rule on the
KKT violation makes its primal value tight.  The checks are scheduled by their
cost (:meth:`Certifier.check_due`): at least ``gap_every`` iterations apart, and only
once the loop's oracle calls since the last check reach its products over
:data:`CHECK_SHARE`.  The bound is certified whatever solver produced ``v``.

Accuracy of the libsvm bound (``checks="libsvm"``, and the fallback of an inner
check).  libsvm's point at its default tolerance (1e-4)
gives an SVM primal value far above ``omega(K_i)`` near the optimum (its primal
converges at first order where its dual converges at second order): with C = 10
the single libsvm bound at the returned point was 36x the exact gap there (sonar,
sigmoid kernel) and 4.8x (USPS-SS, n = 200), and at a near-optimal point 2e-2
against at most 3e-5 (``benchmarks/README.md``, "Certificates").
So each check also computes libsvm's dual value (a lower bound on ``omega(K_i)``,
free from its ``alpha``): no solve on ``K_i`` can give a bound below it.  While
the least upper bound minus that dual value (plus the penalty) exceeds
``LIBSVM_SHARE`` (a half) of the certified gap, i.e. while a more accurate solve
could take more than half off the gap, libsvm is solved again with a tolerance
10x smaller (down to ``1e-6``; at most ``20 x`` the SMO iterations of the first
solve, so a near-singular proxy kernel cannot stall the check), and later checks
start from the tolerance reached.  When the libsvm bound is the least one, this
stops once libsvm's own duality gap is at most half the certified gap, so the
reported gap is within a factor ``1 / (1 - LIBSVM_SHARE) = 2`` of the gap with the
exact ``omega(K_i)``, for at most two extra libsvm calls per run while the
refinement keeps lowering the bound (unless ``1e-6`` or the iteration cap stops it
first).  A tighter solve that does not lower the least upper bound (near the
optimum of a run to a tight ``tol`` the Frank-Wolfe bound wins) sends the checks
back to ``libsvm_tol`` and skips the refinement at the next 1, 2, 4, ... checks.
During the loop a check refines only where a more accurate bound could stop the
loop now (libsvm's dual value says the gap could meet the tolerance); after the
loop, the last check is refined if it was at the returned point and a tighter
solve could still take more than half off the reported gap.
For a small classification problem (``n <= EXACT_SVM_MAX_N``, the one-vs-one pairs of
many classes and the binary sets of the papers) a refinement is instead one solve of
the SVC dual on ``K_i`` to ~1e-12 by a dense interior-point method
(:mod:`~krein.solvers.indefinite.svm_qp`): on near-singular proxy kernels with a large
``C`` the refined SMO solves took ~2e5 iterations and often stopped at their cap, and
the exact solve leaves nothing to refine, so the reported gap is the exact gap at the
checked point.  The first solve of each check stays libsvm's: where it is enough it is
the cheaper one.
The bound stays the SVM primal value at libsvm's point: certified whatever
libsvm's accuracy.  Steps of 10x, not 100x: the SMO iterations grow quickly with
the tolerance on these kernels (12-27x from ``1e-4`` to ``1e-6``), and ``1e-5``
is often enough.

The loops keep the best lower bound ``f(beta_best)`` and the least upper bound
seen; ``gap = upper - lower`` is a certificate for the returned ``beta_best``.
They stop when ``gap <= max(atol * unit, tol * scale)`` and report
``relative_gap = gap / scale`` (:attr:`Certifier.scale`), with::

    scale = max(|lower - g(0)|,  1/2 u'|K0| u)   at the best point,

* ``f - g(0)``: the objective minus its constant part ``g(0) = rho ||(K0)_-||_F^2``
  (the value of (7) at ``alpha = 0``), which dominates (7) when ``rho`` is large
  (as ``rho -> infinity``, ``f - g(0)`` tends to the dual objective of the SVM on
  the clipped kernel, luss §2.3);
* ``1/2 u'|K0| u`` (``|K0| = V |Lambda| V'``, with the weights of Theorem 3 as
  the oracle applies them): the size of the kernel term of (7) at the best point.
  ``f - g(0)`` can be near zero at the optimum although the problem is not: the
  one-class optimum of an indefinite kernel puts ``u`` in the negative eigenspace
  of ``K0``, where ``K* u ~ 0`` and ``f - g(0)`` was ``-2e-7`` against a kernel
  term of order one (sonar, sigmoid kernel), and the loops ran to ``max_iter``
  for a relative gap of ``1e4``.  For the SVC the kernel term is below
  ``f - g(0)`` on a PSD kernel (so ``tol`` keeps its old meaning there) and of the
  same order on an indefinite one.  A fixed ``max(1, |f|)`` was rejected: ``f``
  contains ``g(0)`` (any ``tol`` is met at once when ``rho`` is large) and ``1``
  is not a scale of the data.

Every loop returns a :class:`~krein.solvers.Solution` for ``beta_best`` that also
holds the decision function there (:meth:`Certifier.solution`): the intercept
(from the oracle record of the best point, no extra oracle call) and, when asked
with ``out_of_sample``, the coefficients of the test rows
(:func:`out_of_sample_coef`).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..core import Solution
from ..libsvm import libsvm_dual_point
from ...projections import box_hyperplane_lp, check_feasible_set, project_box_hyperplane
from .lowrank import LowRankProxyOracle, linear_svm_bound
from .oracle import ProxyKernelOracle
from .svm_qp import box_qp_interior_point

__all__ = ["Certifier", "libsvm_point", "svm_dual_value", "out_of_sample_coef",
           "OUT_OF_SAMPLE_MAPS", "LIBSVM_SHARE", "STATUS_OPTIMAL", "STATUS_MAX_ITER",
           "EXACT_SVM_MAX_N", "CHECK_METHODS", "INNER_CHECK_MIN_N"]

#: Status of a loop that met its gap tolerance (the one spelling of every CVXPY solve too).
STATUS_OPTIMAL = "optimal"
#: Status of a loop stopped by ``max_iter`` before its gap tolerance.
STATUS_MAX_ITER = "max_iter"

#: Out-of-sample maps of the proxy kernel (:func:`out_of_sample_coef`; the module
#: docstring of :mod:`krein.estimators.indefinite` compares them).
OUT_OF_SAMPLE_MAPS = ("spectral", "transductive", "clip", "raw")

#: A libsvm gap check is solved again with a 10x smaller tolerance while a tighter solve
#: could take more than this share off the certified gap (module docstring).
LIBSVM_SHARE = 0.5
#: Tolerance floor of the refined libsvm solves, and the cap on their SMO iterations
#: as a multiple of the first solve's (at 1e-8 one USPS-SS check, n = 200, took 580 s;
#: at 1e-6 libsvm needed 12-27x the SMO iterations of 1e-4).
_LIBSVM_TOL_FLOOR = 1e-6
_LIBSVM_ITER_FACTOR = 20
_LIBSVM_TOL_STEP = 0.1
#: Cap on the SMO iterations of every libsvm solve of a gap check, per training point
#: (libsvm's own default is no cap: on a one-class kernel scaled by 1e4 one solve ran
#: 47 s).  A capped solve still gives a certified bound, only a looser one.
_LIBSVM_ITER_PER_POINT = 1000
#: Spacing of the gap checks on a low-rank oracle (:meth:`Certifier._linear_bound`): after
#: the ``c``-th call the next check is made at call ``c + max(1, c // _LINEAR_SPACING)``.
_LINEAR_SPACING = 4
#: A gap check on a low-rank oracle is made only once the certified gap is within this
#: factor of the tolerance (:meth:`Certifier._linear_bound`).  A check (liblinear, 100
#: epochs) costs about 150 iterations of the low-rank oracle (0.5 s against 3 ms at
#: n = 8000, rank 160); at a factor 4 two checks per pair were typical and the first one
#: did not stop the loop, at 2 the loops stopped at the same iterations with half the
#: checks (the large-data benchmark, 5 languages, 10 pairs).
_LINEAR_REACH = 2.0
#: Up to this many training points, a classification (``"svc"``) gap check that would
#: refine libsvm's solve (a 10x smaller tolerance, up to ``1e-6``) solves the SVM dual
#: on ``K_i`` once by the dense interior-point method of
#: :mod:`~krein.solvers.indefinite.svm_qp` instead (to ~1e-12 relative, one Cholesky
#: factorization of an ``n x n`` matrix per iteration, 15-20 iterations): on the
#: one-vs-one pairs of a many-class set, where the proxy kernel is near singular and
#: ``C`` large, the SMO refinements took ~2e5 iterations and half of them stopped at
#: their cap (``benchmarks/README.md``, "Many classes").  The first solve of each check
#: stays libsvm's: where it is enough it is the cheaper one (18 ms against 20-30 ms on
#: sonar, n = 208).  Above this size, and for svr / one-class, libsvm's refinement.
#: 0: libsvm only (the MATLAB IndefiniteSVM's check).
EXACT_SVM_MAX_N = 300


#: How the gap checks of a dense oracle get their point ``v`` (:class:`Certifier`):
#: ``"inner"``, the gradient projection and conjugate gradients of
#: :meth:`Certifier.inner_bound` on the SVM dual over ``K_i``, matrix-free and warm-started; ``"libsvm"``, libsvm's solve on the
#: formed ``K_i`` (refined as :meth:`Certifier.libsvm_bound` describes); ``"auto"``:
#: ``"inner"`` above :data:`INNER_CHECK_MIN_N` training points, ``"libsvm"`` (with the
#: interior-point refinement of a small svc) at or below it.
CHECK_METHODS = ("auto", "inner", "libsvm")
#: Up to this many training points ``checks="auto"`` keeps libsvm's checks: there
#: forming ``K_i`` and one SMO solve cost little, and a small svc's refinement is exact
#: (:data:`EXACT_SVM_MAX_N`).
INNER_CHECK_MIN_N = 300
#: An inner check stops once its own duality gap (the bound at its point minus its
#: dual value) is at most this share of the certified gap: the reported gap is then
#: within ``1 / (1 - INNER_SHARE) = 2`` of the one the exact ``omega(K_i)`` gives.
INNER_SHARE = 0.5
#: Products with ``K_i`` an inner check may spend (each costs about one oracle call);
#: after the loop (:meth:`Certifier.final_check`) it may spend :data:`INNER_FINAL_PRODUCTS`.
INNER_MAX_PRODUCTS = 30
INNER_FINAL_PRODUCTS = 400
#: A libsvm solve of a check, in oracle calls: forming ``K_i`` and one SMO solve took
#: 150-1000 times one oracle call at n = 2000 on the benchmark kernels
#: (``benchmarks/certified_fit.py``).  An inner check falls back to libsvm only where the
#: Frank-Wolfe bound is predicted to need more oracle calls than this to stop the loop.
INNER_LIBSVM_PRODUCTS = 150
#: Iterations over which the Frank-Wolfe bound's rate is measured (:meth:`Certifier._frank_wolfe_evals`).
_FW_WINDOW = 10
#: The Frank-Wolfe bound slows down near the optimum, so its prediction is taken times
#: this factor (on ``sigmoid-2d`` at n = 2000 it predicted 142 oracle calls where more than
#: 120 were not enough; on ``truncated-l1`` it predicted 6 and needed 3 iterations).
_FW_SLOWDOWN = 2.0
#: The inner checks' share of the loop's work: a check is made only once the oracle
#: calls of the loop since the last check are at least the products of that check
#: divided by this share (:meth:`Certifier.check_due`), so the checks cost at most
#: about this share of the iterations (plus one check).
CHECK_SHARE = 0.5


def _null_tol(lam):
    lam = np.asarray(lam)
    return lam.size * np.finfo(float).eps * max(float(np.max(np.abs(lam))) if lam.size else 0.0, 1e-300)


def out_of_sample_coef(oracle, u, out_of_sample):
    """Coefficients applied to the raw kernel rows of new points, for one out-of-sample map.

    A new point ``x`` has no coefficient in the rank-one update of the proxy
    kernel ``K* = X(u)_+``, ``X(u) = K0 + u u'/(4 rho)`` (luss Theorem 1, eq. 5),
    so the map decides how ``k*(x, X)`` extends it; for all maps but
    ``"transductive"`` the decision value is ``f(x) = k(x, X) coef + b``.

    * ``"spectral"``: ``k*(x, X) = k(x, X) P_+`` with ``P_+`` the projector on the
      positive eigenspace of ``X(u)``, so ``coef = P_+ u`` (one full
      eigendecomposition of ``X(u)`` by the secular equation);
    * ``"clip"``: the ``rho -> infinity`` limit, ``coef = V_+ V_+' u`` with ``V_+``
      the positive eigenvectors of ``K0``;
    * ``"raw"`` (luss §4.3, PerturbSVM) and ``"transductive"`` (luss §2.3, which
      needs the test-test block at prediction time): ``coef = u``.

    With the low-rank oracle (:class:`~krein.solvers.indefinite.lowrank.LowRankProxyOracle`)
    the same maps act on the Nyström rows ``k(x, X) = psi(x) diag(s) Z'`` and the
    coefficients are folded into weights on the eigenfeatures ``psi(x)``
    (:meth:`~krein.solvers.indefinite.lowrank.LowRankProxyOracle.out_of_sample_coef`).

    Parameters
    ----------
    oracle : ProxyKernelOracle
        Holds the eigendecomposition of ``K0`` and ``rho``.
    u : array of shape (n,)
        ``M beta`` at the solution (``y * alpha`` for svc).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}
        The out-of-sample map (see above).

    Returns
    -------
    coef : ndarray of shape (n,), or (r,) with the low-rank oracle
        Coefficients of the raw kernel rows ``k(x, X)`` of new points (weights on
        their ``r`` eigenfeatures with the low-rank oracle).

    Raises
    ------
    ValueError
        For an unknown map.
    """
    if out_of_sample not in OUT_OF_SAMPLE_MAPS:
        raise ValueError(f"out_of_sample must be one of {OUT_OF_SAMPLE_MAPS}; got {out_of_sample!r}")
    if getattr(oracle, "low_rank", False):
        # weights on the eigenfeatures of new points (krein.solvers.indefinite.lowrank)
        return oracle.out_of_sample_coef(u, out_of_sample)
    if out_of_sample in ("raw", "transductive"):
        return u
    Q = oracle.eigenvectors
    if out_of_sample == "clip":
        keep = oracle.eigenvalues > _null_tol(oracle.eigenvalues)
        return Q[:, keep] @ (Q[:, keep].T @ u)
    mu, W = oracle.eigendecomposition(u)   # "spectral": P_+ u
    pos = mu > _null_tol(mu)
    Wp = W[:, pos]
    return Q @ (Wp @ (Wp.T @ (Q.T @ u)))


def libsvm_point(problem, K, tol=1e-4):
    """A near-optimal ``v`` of ``omega(K)`` from libsvm on the PSD kernel ``K``.

    ``omega(K) = max_{beta in A} c'beta - 1/2 u'K u`` is the standard SVM (SVR,
    one-class SVM) dual on ``K`` (luss eqs. 7, 17, 20 with ``K`` fixed); libsvm's
    solution gives the point at which :meth:`ProxyKernelProblem.omega_upper
    <krein.formulations.indefinite.ProxyKernelProblem.omega_upper>` bounds it
    from above (the libsvm gap check of luss §3.2, "Stopping criterion").

    Parameters
    ----------
    problem : ProxyKernelProblem
        Task, labels/targets and ``C`` / ``epsilon`` / ``nu`` of the SVM.
    K : array of shape (n, n)
        PSD proxy kernel.
    tol : float
        libsvm stopping tolerance.

    Returns
    -------
    v : ndarray of shape (n,)
        In u-space (``y * alpha`` for svc, ``alpha+ - alpha-`` for svr, ``alpha``
        scaled to sum to one for one-class).
    """
    return _libsvm_fit(problem, K, tol)[0]


def _libsvm_fit(problem, K, tol, max_iter=-1):
    """libsvm's point (as :func:`libsvm_point`) and the SMO iterations it took
    (:func:`krein.solvers.libsvm.libsvm_dual_point`; ``max_iter`` -1:
    ``_LIBSVM_ITER_PER_POINT * n``)."""
    P = problem
    if max_iter is None or max_iter < 0:
        max_iter = _LIBSVM_ITER_PER_POINT * max(P.n, 1)
    if P.model == "one-class":
        return libsvm_dual_point(K, "one-class", nu=P.nu, tol=tol, max_iter=max_iter)
    return libsvm_dual_point(K, P.model, y=P.y, C=P.C_per_sample,
                             epsilon=getattr(P, "epsilon", None), tol=tol, max_iter=max_iter)


def svm_dual_value(problem, v, vKv):
    """The SVM dual value ``c'beta - 1/2 v'K v`` at libsvm's point ``v = M beta``.

    A lower bound on ``omega(K)`` (up to libsvm's rounding of the constraints; used
    only to decide whether to re-solve, never as a certificate).

    Parameters
    ----------
    problem : ProxyKernelProblem
        The model (svc, svr, one-class) and its labels / ``epsilon``.
    v : ndarray of shape (n,)
        libsvm's point in u-space (:func:`libsvm_point`).
    vKv : float
        ``v'K v`` on the kernel libsvm solved.

    Returns
    -------
    float
        The dual value.
    """
    P = problem
    if P.model == "svc":
        lin = float(np.sum(P.y * v))
    elif P.model == "svr":
        lin = float(P.y @ v) - P.epsilon * float(np.sum(np.abs(v)))
    else:
        lin = 0.0
    return lin - 0.5 * vKv


class Certifier:
    """Objective, gradient and certified upper bounds for a :class:`ProxyKernelProblem`.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    oracle : ProxyKernelOracle, optional
        Built from ``problem`` if not given (one ``eigh`` of ``K0``).
    libsvm_tol : float
        Starting tolerance of the SVM solved on the proxy kernel at gap checks.
        The bound is rigorous whatever this tolerance (it is the SVM primal value
        at libsvm's point); a check re-solves with a 10x smaller tolerance while
        a more accurate solve could take more than :data:`LIBSVM_SHARE` off the
        certified gap (:meth:`libsvm_bound`, module docstring).  1e-4 keeps the
        early checks cheap (1e-6 made libsvm 5-10x slower on near-singular proxy
        kernels).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, optional
        Out-of-sample map whose test coefficients :meth:`solution` returns
        (:func:`out_of_sample_coef`); ``None``: none.
    checks : {"auto", "inner", "libsvm"}
        How the gap checks of a dense oracle solve the SVM on ``K_i``
        (:data:`CHECK_METHODS`, module docstring); a low-rank oracle keeps its
        liblinear checks.

    Attributes
    ----------
    lower : float
        Best objective value seen (``-inf`` before any evaluation).
    upper : float
        Least certified upper bound seen (``+inf`` before any).
    best_beta : ndarray or None
    best_eval : ProxyEval or None
        The oracle record at ``best_beta`` (gives the intercept without another
        oracle call).
    upper_source : str
        "frank-wolfe", "libsvm" or an algorithm's own bound.
    n_libsvm : int
        Number of libsvm solves (refinements included).
    n_libsvm_refined : int
        Of which re-solves with a smaller tolerance.
    libsvm_max_smo : int
        The most SMO iterations of one libsvm solve (every solve is capped at
        ``_LIBSVM_ITER_PER_POINT * n``, refinements at less, see :meth:`libsvm_bound`).
    n_libsvm_capped : int
        Solves stopped by their cap (their bounds are certified, only looser).
    n_interior_point : int
        Gap checks solved by the interior-point method instead of libsvm
        (:data:`EXACT_SVM_MAX_N`).
    unit : float
        ``1/2 max|lam(K0)| max_i upper_i^2``, the kernel term of one point at its
        bound: the unit of ``atol`` in :meth:`converged` (it follows the objective
        under ``K0 -> s K0`` with ``C`` / ``rho`` scaled to match, unlike ``1``).
    checks : str
        ``"inner"`` or ``"libsvm"``: the checks in use.
    n_inner, n_inner_products, n_inner_fallback : int
        Inner checks made, their products with ``K_i``, and those finished by libsvm.
    inner_seconds : float
        Seconds of the inner checks (their libsvm fallbacks included).
    libsvm_tol_reached : float
        The tolerance the next gap check starts from.
    last_libsvm : tuple of float or None
        libsvm's dual value plus the penalty (a lower bound on what any bound from
        that proxy kernel can give) and the tolerance, of the last libsvm solve.
    """

    def __init__(self, problem, oracle=None, libsvm_tol=1e-4, out_of_sample=None,
                 checks="auto"):
        if out_of_sample is not None and out_of_sample not in OUT_OF_SAMPLE_MAPS:
            raise ValueError(f"out_of_sample must be one of {OUT_OF_SAMPLE_MAPS} or None; "
                             f"got {out_of_sample!r}")
        if checks not in CHECK_METHODS:
            raise ValueError(f"checks must be one of {CHECK_METHODS}; got {checks!r}")
        self.problem = problem
        # the feasible set, validated once: frank_wolfe's LP skips the check per iteration
        check_feasible_set(problem.a, problem.b0, problem.upper)
        self.out_of_sample = out_of_sample
        if oracle is not None:
            self.oracle = oracle
        elif getattr(problem, "low_rank", False):
            self.oracle = LowRankProxyOracle.from_representation(problem.K0, problem.rho)
        else:
            self.oracle = ProxyKernelOracle(problem.K0, problem.rho, weights=problem.weights,
                                            check=False)
        self.libsvm_tol = libsvm_tol
        self.lower = -np.inf
        self.upper = np.inf
        self.best_beta = None
        self.best_eval = None
        self.upper_source = ""
        self.n_libsvm = 0
        self.n_libsvm_refined = 0
        self.libsvm_tol_reached = float(libsvm_tol)
        self._libsvm_cap = 0
        self._skip_refine = 0          # checks left without refinement (after a futile one)
        self._refine_backoff = 1
        self._stop = None              # (tol, atol) of the last converged() call
        #: (libsvm's dual value + penalty, tolerance) of the last libsvm solve
        self.last_libsvm = None
        self.libsvm_seconds = 0.0
        self.libsvm_max_smo = 0
        self.n_libsvm_capped = 0
        self.n_interior_point = 0
        self._kernel_term = (None, 0.0)   # (beta it was computed at, 1/2 u'|K0| u)
        self._linear_calls = 0             # gap checks asked of a low-rank oracle so far
        self._linear_next = 1              # ... and the call of the next one made
        self._linear_reach = _LINEAR_REACH  # checks only within this factor of the target
        if getattr(self.oracle, "low_rank", False):
            checks = "libsvm"               # the liblinear checks of _linear_bound
        elif checks == "auto":
            checks = "inner" if problem.n > INNER_CHECK_MIN_N else "libsvm"
        #: "inner" or "libsvm": how the gap checks solve the SVM on ``K_i``
        self.checks = checks
        self.n_inner = 0                   # inner checks made
        self.n_inner_products = 0          # products with K_i they took
        self.n_inner_fallback = 0          # inner checks finished by libsvm
        self.inner_seconds = 0.0           # seconds of the inner checks
        self._inner_point = None           # the last inner check's best dual point
        self._fw_history = []              # (oracle calls, Frank-Wolfe gap) per iteration
        self._inner_t = None               # and its step
        self._last_check_cost = 0          # products of the last inner check
        self._evals_at_check = 0           # oracle calls of the loop at the last check
        self._iter_at_check = 0
        lam = self.oracle.eigenvalues
        self._abs_lam = np.abs(lam)
        self._abs_lam_max = float(self._abs_lam.max()) if lam.size else 0.0
        #: g(0) = rho ||(K0)_-||_F^2: the constant part of f (reference for relative gaps)
        self.offset = self.oracle.constant_term()
        #: ``1/2 max|lam(K0)| max_i upper_i^2``: the kernel term of one point at its
        #: bound, the unit of ``atol`` (scales with the objective under
        #: ``(K0, C) -> (s K0, C / s)``; ``g(0)`` is left out: it grows with ``rho``)
        self.unit = 0.5 * self._abs_lam_max * float(np.max(problem.upper)) ** 2

    def evaluate(self, beta, record=True):
        """``f(beta)``, ``grad f(beta)`` and the oracle record.

        With ``record`` (only for feasible ``beta``) the lower bound is updated.

        Parameters
        ----------
        beta : ndarray of shape (m,)
            A point of the dual problem.
        record : bool, default=True
            Update the lower bound and the best point when ``f`` improves.

        Returns
        -------
        f : float
            The objective ``c'beta + g(M beta)`` of luss eq. (7).
        grad : ndarray of shape (m,)
            Its gradient ``c + M' grad g``.
        ev : ProxyEval
            The oracle's record at ``u = M beta``.
        """
        P = self.problem
        ev = self.oracle.evaluate(P.u_of(beta))
        f = float(P.c @ beta) + ev.value
        grad = P.c + P.pullback(ev.grad)
        if record and f > self.lower:
            self.lower = f
            self.best_beta = np.array(beta, copy=True)
            self.best_eval = ev
        return f, grad, ev

    def offer_upper(self, value, source):
        """Record an upper bound if it improves the least one.

        Parameters
        ----------
        value : float
            A certified upper bound on the optimal value.
        source : str
            Where it comes from (reported as ``upper_source``).
        """
        if value < self.upper:
            self.upper = float(value)
            self.upper_source = source

    def frank_wolfe(self, beta, f, grad):
        """Certified bound ``f + max_{b in A} grad'(b - beta)`` (free); recorded.

        ``f`` is concave, so its linearization at ``beta`` bounds it from above
        on the whole feasible set ``A``; the maximum is an exact LP.

        Parameters
        ----------
        beta : ndarray of shape (m,)
            A feasible point of the dual problem.
        f : float
            ``f(beta)``.
        grad : ndarray of shape (m,)
            ``grad f(beta)``.

        Returns
        -------
        upper : float
            The Frank-Wolfe upper bound.
        """
        P = self.problem
        val, _ = box_hyperplane_lp(grad, P.a, P.b0, P.upper, check=False)
        ub = f + val - float(grad @ beta)
        self.offer_upper(ub, "frank-wolfe")
        self._fw_history.append((self.oracle.n_evals, ub - self.lower))
        del self._fw_history[:-_FW_WINDOW - 1]
        return ub

    def _frank_wolfe_evals(self, target):
        """Oracle calls the Frank-Wolfe bound is predicted to need to meet ``target``.

        From its geometric rate of decrease per oracle call over the last
        :data:`_FW_WINDOW` iterations (``inf`` when it has not decreased, or without
        that history)."""
        h = self._fw_history
        if target is None or len(h) < 2:
            return np.inf
        (e0, g0), (e1, g1) = h[0], h[-1]
        if g1 <= target:
            return 0.0
        if not (0.0 < g1 < g0) or e1 <= e0:
            return np.inf
        rate = np.log(g1 / g0) / (e1 - e0)          # < 0
        return float(np.log(target / g1) / rate)

    def libsvm_bound(self, beta, ev, final=False, start_tol=None):
        """Certified bound from libsvm on ``K_i = X(beta)_+`` (luss §3.2); recorded.

        libsvm is solved at :attr:`libsvm_tol_reached`, then again with a 10x
        smaller tolerance (down to ``1e-6``) while a more accurate solve could take
        more than :data:`LIBSVM_SHARE` off the certified gap: the least upper bound
        minus libsvm's dual value (a lower bound on ``omega(K_i)``) and the penalty
        exceeds that share (module docstring).  Solves below ``libsvm_tol`` are
        capped at ``20 x`` the SMO iterations of the first solve.  A solve below
        ``libsvm_tol`` that is capped or does not lower the least upper bound
        (near the optimum the Frank-Wolfe bound often is the least) sends later
        checks back to ``libsvm_tol`` and skips the refinement at the next 1, 2,
        4, ... checks, so runs to a tight ``tol`` do not pay ``1e-6`` solves for
        nothing.  Before the loop's last check (``final``), a refinement is tried
        only where a more accurate bound could stop the loop now (its dual-value
        estimate of the gap within the tolerance of the last :meth:`converged`).
        For a small svc (:data:`EXACT_SVM_MAX_N`) the refinement is one exact solve
        (:func:`~krein.solvers.indefinite.svm_qp.box_qp_interior_point`), after which
        nothing is refined.

        Parameters
        ----------
        beta : ndarray of shape (m,)
            A feasible point of the dual problem.
        ev : ProxyEval
            The oracle's record at ``beta`` (for ``||K_i - K0||_F^2``).
        final : bool, default=False
            The check of the returned point after the loop: refine whenever that
            could take more than :data:`LIBSVM_SHARE` off the reported gap.
        start_tol : float, optional
            First libsvm tolerance (default :attr:`libsvm_tol_reached`); given, a
            small svc is solved exactly at once.

        Returns
        -------
        upper : float
            The least bound of this check: the SVM primal value at libsvm's point
            plus the penalty term ``rho ||K_i - K0||_F^2``.

        Notes
        -----
        With :attr:`checks` ``"inner"`` the check is :meth:`inner_bound` (which calls
        this method with libsvm's checks as its fallback); on a low-rank oracle it is
        :meth:`_linear_bound`.
        """
        if getattr(self.oracle, "low_rank", False):
            return self._linear_bound(beta, ev, final)
        if self.checks == "inner":
            return self.inner_bound(beta, ev, final=final)
        t0 = time.perf_counter()
        P = self.problem
        K = self.oracle.proxy_kernel(P.u_of(beta))
        penalty = P.rho * ev.dist2
        exact = P.model == "svc" and P.n <= EXACT_SVM_MAX_N
        if exact and start_tol is not None:
            # the refinement of final_check: straight to the exact solve
            best = self._exact_bound(K, penalty)
            if best is not None:
                self.libsvm_seconds += time.perf_counter() - t0
                return best
        tol = self.libsvm_tol_reached if start_tol is None else float(start_tol)
        may_refine = final or self._skip_refine == 0
        self._skip_refine = max(self._skip_refine - 1, 0)
        best = np.inf
        while True:
            cap = -1 if tol >= self.libsvm_tol else self._libsvm_cap
            v, n_iter = _libsvm_fit(P, K, tol, cap)
            self.n_libsvm += 1
            self.libsvm_max_smo = max(self.libsvm_max_smo, n_iter)
            if n_iter >= (cap if cap > 0 else _LIBSVM_ITER_PER_POINT * max(P.n, 1)):
                self.n_libsvm_capped += 1
            if cap < 0:
                self._libsvm_cap = max(self._libsvm_cap, _LIBSVM_ITER_FACTOR * max(n_iter, P.n))
            Kv = K @ v
            vKv = float(v @ Kv)
            ub, _ = P.omega_upper(Kv, vKv)
            lb = svm_dual_value(P, v, vKv)
            best = min(best, ub + penalty)
            before = self.upper
            self.offer_upper(ub + penalty, "libsvm")
            if cap > 0 and (n_iter >= cap or ub + penalty >= before):
                # capped, or the tighter solve did not lower the least upper bound (near
                # the optimum the Frank-Wolfe bound often wins): back to libsvm_tol, and
                # no refinement at the next 1, 2, 4, ... checks
                self.libsvm_tol_reached = self.libsvm_tol
                self._skip_refine = self._refine_backoff
                self._refine_backoff *= 2
                break
            if cap > 0:
                self._refine_backoff = 1
            self.last_libsvm = (lb + penalty, tol)
            could_stop = final or self._stop is None or (
                lb + penalty - self.lower <= max(self._floor(self._stop[1]),
                                                 self._stop[0] * self.scale))
            if (not may_refine or not could_stop or tol <= _LIBSVM_TOL_FLOOR
                    or self.upper - (lb + penalty) <= LIBSVM_SHARE * self.gap):
                # no solve on this K_i can take more than LIBSVM_SHARE off the gap
                # (omega(K_i) >= libsvm's dual value); when this check gives the least
                # upper bound, that is libsvm's duality gap <= LIBSVM_SHARE * gap
                break
            if exact:
                # a small svc: the interior-point method instead of 10x tighter SMO solves
                ub = self._exact_bound(K, penalty)
                if ub is not None:
                    best = min(best, ub)
                    break
            tol = max(_LIBSVM_TOL_STEP * tol, _LIBSVM_TOL_FLOOR)
            self.n_libsvm_refined += 1
            self.libsvm_tol_reached = tol
        self.libsvm_seconds += time.perf_counter() - t0
        return best

    def check_due(self, k, gap_every):
        """Whether the loop's iteration ``k`` makes a gap check.

        With libsvm checks (:attr:`checks` ``"libsvm"``): every ``gap_every``
        iterations.  With inner checks: at least ``gap_every`` iterations after the
        last check, and only once the oracle calls of the loop since that check are
        at least its products with ``K_i`` divided by :data:`CHECK_SHARE`, so the
        checks cost at most about that share of the loop.  A check that cannot stop
        the loop stops early (:meth:`inner_bound`), so checks stay frequent while they
        are cheap and thin out when they are not.

        Parameters
        ----------
        k : int
            The iteration (1, 2, ...).
        gap_every : int
            Iterations between checks (libsvm), or the least spacing (inner); 0: never.

        Returns
        -------
        bool
            True when iteration ``k`` makes a check (then recorded as the last one).
        """
        if not gap_every:
            return False
        if self.checks != "inner":
            return k % gap_every == 0
        if k - self._iter_at_check < gap_every:
            return False
        since = self.oracle.n_evals - self._evals_at_check
        if CHECK_SHARE * since < self._last_check_cost:
            return False
        self._iter_at_check = k
        return True

    def inner_bound(self, beta, ev, final=False, max_products=None):
        """Certified bound from the SVM dual on ``K_i = X(beta)_+`` solved inexactly; recorded.

        ``omega(K_i) = max_{b in A} h(b)``, ``h(b) = c'b - 1/2 (M b)'K_i (M b)``, is a
        QP over the feasible set ``A`` of the loop.  The check alternates one projected
        gradient step (backtracking on the sufficient-ascent condition, exact
        projection onto ``A``), which moves the active set, with conjugate gradients
        on the face of the current point (the free coordinates, ``a'b`` kept), cut
        where a coordinate reaches its bound (gradient projection with conjugate
        gradients, Moré & Toraldo 1991).  Each product with ``K_i`` comes from
        :meth:`~krein.solvers.indefinite.oracle.ProxyKernelOracle.proxy_operator`
        (the proxy kernel is never formed; along a conjugate direction the product
        follows by linearity), and every point ``b`` gives two numbers:

        * the bound ``omega_upper(K_i M b) + rho ||K_i - K0||_F^2``
          (:meth:`ProxyKernelProblem.omega_upper
          <krein.formulations.indefinite.ProxyKernelProblem.omega_upper>`, the SVM
          primal value at ``v = M b`` with the exact optimal intercept): certified
          whatever the accuracy of ``b`` (luss §3.2, "Stopping criterion");
        * ``h(b) + rho ||K_i - K0||_F^2``: no bound from ``K_i`` can be below it.

        It starts from the better (higher ``h``) of ``beta`` (where ``K_i M beta`` is
        the oracle's, free, and the bound is the Frank-Wolfe one) and the last check's
        point (warm start), and stops when its duality gap is at most
        :data:`INNER_SHARE` of the certified gap (so the reported gap is within a
        factor 2 of the gap with the exact ``omega(K_i)``); when ``h`` shows that no
        bound from ``K_i`` can meet the tolerance of the last :meth:`converged`
        (except for the check after the loop, ``final``); when the certified gap meets
        that tolerance; when three rounds do not raise ``h``; or after
        :data:`INNER_MAX_PRODUCTS` products (:data:`INNER_FINAL_PRODUCTS` when
        ``final``).  If then the check could stop the loop, its duality gap is above
        that share, the gap above the tolerance, and the Frank-Wolfe bound is not
        predicted to meet the tolerance within :data:`INNER_LIBSVM_PRODUCTS` oracle
        calls (:meth:`_frank_wolfe_evals` times :data:`_FW_SLOWDOWN`), libsvm finishes it (:meth:`libsvm_bound`
        with libsvm's checks; ``n_inner_fallback``); after the loop (``final``) it
        does whenever the duality gap is above the share.

        Parameters
        ----------
        beta : ndarray of shape (m,)
            A feasible point of the dual problem.
        ev : ProxyEval
            The oracle's record at ``beta``.
        final : bool, default=False
            The check of the returned point after the loop.
        max_products : int, optional
            Cap on the products with ``K_i`` (default from ``final``, see above).

        Returns
        -------
        upper : float
            The least bound of this check.
        """
        t0 = time.perf_counter()
        P = self.problem
        apply = self.oracle.proxy_operator(P.u_of(beta))
        penalty = P.rho * ev.dist2
        cap = (INNER_FINAL_PRODUCTS if final else INNER_MAX_PRODUCTS) \
            if max_products is None else int(max_products)
        target = None
        if not final and self._stop is not None:
            target = max(self._floor(self._stop[1]), self._stop[0] * self.scale)
        products = 0

        def at(b, Kv=None):
            nonlocal products
            v = P.u_of(b)
            if Kv is None:
                Kv = apply(v)
                products += 1
            vKv = float(v @ Kv)
            return Kv, vKv, float(P.c @ b) - 0.5 * vKv

        b = np.array(beta, dtype=float)
        Kb, vKv, hb = at(b, ev.Ku)
        prev = self._inner_point
        if prev is not None:
            Kp, pKp, hp = at(prev)
            if hp > hb:
                b, Kb, vKv, hb = prev.copy(), Kp, pKp, hp
        best = np.inf
        lb = hb
        b_best = b.copy()
        t = self._inner_t
        if t is None:
            # 1 / L for L = ||M||^2 lam_max(K_i) <= ||M||^2 (lam_max(K0') + |z|^2 / (4 rho)) / min h
            z2 = self._u_norm2(b)
            hmin = 1.0 if P.weights is None else float(np.min(P.weights))
            lmax = max(float(self.oracle.eigenvalues[-1]), 0.0) + z2 / (4.0 * P.rho)
            t = hmin / ((2.0 if P.model == "svr" else 1.0) * max(lmax, 1e-300))
        U, a = P.upper, P.a
        stall = 0
        lb_round = -np.inf
        while True:
            # the bound at b, and the stopping tests
            ub, _ = P.omega_upper(Kb, float(P.u_of(b) @ Kb))
            best = min(best, ub + penalty)
            self.offer_upper(ub + penalty, "inner")
            if hb > lb:
                lb, b_best = hb, b.copy()
            # a round (gradient step and conjugate gradients) that does not raise h
            stall = stall + 1 if lb <= lb_round + 1e-12 * max(abs(lb), self.unit) else 0
            lb_round = lb
            if (best - (lb + penalty) <= INNER_SHARE * self.gap or products >= cap
                    or (target is not None and (lb + penalty - self.lower > target
                                                or self.gap <= target))
                    or stall >= 3):
                break
            # one projected gradient step (backtracking): moves the active set
            g = P.c - P.pullback(Kb)
            while True:
                bn = project_box_hyperplane(b + t * g, a, P.b0, U, check=False)
                Kn, _, hn = at(bn)
                d = bn - b
                if hn >= hb + g @ d - (d @ d) / (2.0 * t) - 1e-12 * abs(hb) or products >= cap:
                    break
                t *= 0.5
            t *= 1.5
            b, Kb, hb = bn, Kn, hn
            # conjugate gradient on the face of b: the free coordinates, a'b = b0 kept
            free = (b > 1e-12 * U) & (b < U * (1.0 - 1e-12))
            nf = int(np.count_nonzero(free))
            if nf < 2:
                continue
            af = a[free]

            def face(gr):
                r = np.zeros_like(gr)
                gf = gr[free]
                r[free] = gf - af * (float(af @ gf) / nf)     # a = +-1: |a_F|^2 = nf
                return r

            g = P.c - P.pullback(Kb)
            r = face(g)
            rr = float(r @ r)
            pdir = r.copy()
            for _ in range(cap):
                if products >= cap or rr <= 0.0:
                    break
                Kp = apply(P.u_of(pdir))
                products += 1
                Hp = P.pullback(Kp)
                pHp = float(pdir @ Hp)
                with np.errstate(divide="ignore", invalid="ignore"):
                    lim = np.where(pdir > 0, (U - b) / pdir, np.where(pdir < 0, -b / pdir, np.inf))
                amax = float(np.min(lim[free])) if nf else np.inf
                amax = max(amax, 0.0)
                alpha = rr / pHp if pHp > 0 else np.inf
                hit = alpha >= amax
                alpha = min(alpha, amax)
                if not np.isfinite(alpha):
                    break
                b = b + alpha * pdir
                Kb = Kb + alpha * Kp
                if hit:
                    b = np.clip(b, 0.0, U)
                    uvb = P.u_of(b)
                    hb = float(P.c @ b) - 0.5 * float(uvb @ Kb)
                    break
                g = g - alpha * Hp
                r_new = face(g)
                rr_new = float(r_new @ r_new)
                pdir = r_new + (rr_new / rr) * pdir
                rr = rr_new
                uvb = P.u_of(b)
                hb = float(P.c @ b) - 0.5 * float(uvb @ Kb)
                ub, _ = P.omega_upper(Kb, float(uvb @ Kb))
                best = min(best, ub + penalty)
                self.offer_upper(ub + penalty, "inner")
                if hb > lb:
                    lb, b_best = hb, b.copy()
                if (best - (lb + penalty) <= INNER_SHARE * self.gap
                        or (target is not None and (lb + penalty - self.lower > target
                                                    or self.gap <= target))):
                    break
            uvb = P.u_of(b)
            hb = float(P.c @ b) - 0.5 * float(uvb @ Kb)
        self._inner_point = b_best
        self._inner_t = t
        could_stop = target is None or lb + penalty - self.lower <= target
        if (could_stop and best - (lb + penalty) > INNER_SHARE * self.gap
                and (final or target is None or self.gap > target)
                and (final or _FW_SLOWDOWN * self._frank_wolfe_evals(target)
                     > INNER_LIBSVM_PRODUCTS)):
            # the inner solve could not certify what K_i may, and the Frank-Wolfe bound
            # is not about to stop the loop: libsvm on the formed K_i
            self.checks = "libsvm"
            try:
                best = min(best, self.libsvm_bound(beta, ev, final=final))
            finally:
                self.checks = "inner"
            self.n_inner_fallback += 1
        self._last_check_cost = products
        self._evals_at_check = self.oracle.n_evals
        self.n_inner += 1
        self.n_inner_products += products
        self.last_libsvm = (lb + penalty, 0.0)
        self.inner_seconds += time.perf_counter() - t0
        return best

    def _linear_bound(self, beta, ev, final=False):
        """The check of :meth:`libsvm_bound` on a low-rank oracle; recorded.

        ``K_i = Phi Phi'`` (:meth:`LowRankProxyOracle.proxy_features
        <krein.solvers.indefinite.lowrank.LowRankProxyOracle.proxy_features>`, O(n r p))
        and the SVM on it is a linear SVM on ``Phi``: the bound is its primal value at
        liblinear's weight with the exact optimal intercept, plus ``rho ||K_i - K0||_F^2``
        (:func:`~krein.solvers.indefinite.lowrank.linear_svm_bound`), certified whatever
        liblinear's accuracy.  liblinear returns no dual point, so nothing is refined.
        The checks thin out as the loop goes on: after a check at the ``c``-th call the
        next one is at call ``c + max(1, c // _LINEAR_SPACING)`` (every call up to the
        8th, then about every quarter of the iterations run so far), so a long run makes
        O(log k) checks and stops at most ~25% of its iterations after the first check
        that could stop it; and no check is made while the certified gap exceeds
        ``_LINEAR_REACH`` times the tolerance of the last :meth:`converged` (the bound
        of a check was 1.7-4x below the Frank-Wolfe bound at n = 5000, 2.2x at
        n = 20000; a check costs ~150 iterations, so checking only within twice the
        tolerance makes the loop stop at the same or a later iterate, certified to
        the same tolerance, with fewer checks).  After a check the factor is what that
        check took off the gap (its gap before over its gap after, between 1 and
        ``_LINEAR_REACH``): the next check is made only where a check that does as well
        could stop the loop.  The check after the loop (``final``) is always made.  The
        one-class model has no linear solver: its checks keep the Frank-Wolfe bound
        (returns ``inf``, records nothing); a skipped check also returns ``inf``.
        """
        P = self.problem
        if P.model == "one-class":
            return np.inf
        if not final and self._stop is not None and self.gap > self._linear_reach * max(
                self._floor(self._stop[1]), self._stop[0] * self.scale):
            return np.inf                  # no check could stop the loop yet
        self._linear_calls += 1
        if not final and self._linear_calls < self._linear_next:
            return np.inf
        self._linear_next = self._linear_calls + max(1, self._linear_calls // _LINEAR_SPACING)
        t0 = time.perf_counter()
        Phi = self.oracle.proxy_features(P.u_of(beta))
        ub, n_iter = linear_svm_bound(P, Phi, tol=self.libsvm_tol)
        del Phi
        self.n_libsvm += 1
        self.libsvm_max_smo = max(self.libsvm_max_smo, n_iter)
        bound = ub + P.rho * ev.dist2
        before = self.gap
        self.offer_upper(bound, "liblinear")
        after = self.gap
        if not final and np.isfinite(before) and after > 0.0:
            # what this check took off the gap predicts the next one's: check again only
            # where a check that does as well could stop the loop
            self._linear_reach = min(_LINEAR_REACH, max(1.0, before / after))
        self.libsvm_seconds += time.perf_counter() - t0
        return bound

    def _exact_bound(self, K, penalty):
        """The check of :meth:`libsvm_bound` with the SVC dual on ``K`` solved by
        :func:`~krein.solvers.indefinite.svm_qp.box_qp_interior_point`; recorded.

        Returns the bound, or None (libsvm then checks) if the interior-point method
        did not converge."""
        P = self.problem
        x, _, n_iter, ok = box_qp_interior_point(np.outer(P.y, P.y) * K, P.c, P.a, P.b0,
                                                 P.upper)
        self.n_interior_point += 1
        if not ok:
            return None
        v = P.u_of(np.clip(x, 0.0, P.upper))
        Kv = K @ v
        vKv = float(v @ Kv)
        ub, _ = P.omega_upper(Kv, vKv)
        self.offer_upper(ub + penalty, "interior-point")
        # tolerance 0: no solve on this K_i can do better, so nothing is refined
        self.last_libsvm = (svm_dual_value(P, v, vKv) + penalty, 0.0)
        return ub + penalty

    @property
    def gap(self):
        """``upper - lower`` (>= 0 up to round-off)."""
        return self.upper - self.lower

    def _kernel_scale(self):
        """``1/2 u'|K0| u`` at the best point (``|K0|`` in the oracle's weighted
        coordinates); one ``O(n^2)`` product, cached per best point."""
        beta, val = self._kernel_term
        if beta is not self.best_beta:
            u = self.problem.u_of(self.best_beta)
            w = self.problem.weights
            z = self.oracle.eigenvectors.T @ (u if w is None else u / np.sqrt(w))
            val = 0.5 * float(self._abs_lam @ (z * z))
            self._kernel_term = (self.best_beta, val)
        return val

    @property
    def scale(self):
        """``max(|lower - g(0)|, 1/2 u'|K0| u)`` at the best point: the denominator of
        the relative gap (see the module docstring); 0 before any point."""
        if self.best_beta is None:
            return 0.0
        return max(abs(self.lower - self.offset), self._kernel_scale())

    @property
    def relative_gap(self):
        """``gap / scale`` (:attr:`scale`, see the module docstring); ``inf`` while the
        scale is zero (e.g. the best point is ``beta = 0``) with a positive gap."""
        den = self.scale
        if den == 0.0:
            return 0.0 if self.gap == 0.0 else float("inf")
        return self.gap / den

    def converged(self, tol, atol):
        """Whether ``gap <= max(atol * unit, tol * scale)`` (:attr:`unit`, :attr:`scale`).

        Parameters
        ----------
        tol : float
            Relative tolerance.
        atol : float
            Floor of the gap in the unit of the data, :attr:`unit`.

        Returns
        -------
        bool
            True when the certified gap is finite and within tolerance.
        """
        self._stop = (tol, atol)
        gap = self.gap
        if not np.isfinite(gap):
            return False
        # atol is in the unit of the data (unit), not absolute: an absolute floor
        # certified any point of a kernel scaled by 1e-8
        if gap <= max(self._floor(atol), tol * abs(self.lower - self.offset)):
            return True
        if self.best_beta is None:
            return False
        # the kernel term is at most 1/2 max|lam| |u|^2: skip its O(n^2) product when
        # even that bound would not stop the loop
        z2 = self._u_norm2(self.best_beta)
        if gap > tol * 0.5 * self._abs_lam_max * z2:
            return False
        return gap <= tol * self.scale

    def _floor(self, atol):
        """``atol * unit``: the gap floor in the unit of the problem's data,
        :attr:`unit` (an absolute floor certified any point of a kernel scaled by
        1e-8)."""
        return atol * self.unit

    def _u_norm2(self, beta):
        u = self.problem.u_of(beta)
        w = self.problem.weights
        return float(u @ u) if w is None else float(np.sum(u * u / w))

    def final_check(self, last_checked, converged):
        """The last libsvm check, after a loop: at the returned point, or refined there.

        When the loop did not converge and its last check was not at the best point,
        libsvm is solved at the best point (so that the reported gap is certified
        there); when the last check was at the best point and a more accurate solve
        could take more than :data:`LIBSVM_SHARE` off the reported gap, it is
        refined with a 10x smaller tolerance (:meth:`libsvm_bound`).

        Parameters
        ----------
        last_checked : ndarray or None
            The point of the loop's last libsvm check (None: none was made).  A
            loop without libsvm checks (``gap_every = 0``) does not call this.
        converged : bool
            Whether the loop met its tolerance.
        """
        best = self.best_beta
        at_best = last_checked is not None and best is not None and np.array_equal(
            last_checked, best)
        if self.checks == "inner" and not getattr(self.oracle, "low_rank", False):
            if best is not None and not converged:
                # warm-started at the last check's point: cheap where that check was good
                _, _, ev = self.evaluate(best)
                self.inner_bound(best, ev, final=True)
            return
        if best is not None and not converged and not at_best:
            _, _, ev = self.evaluate(best)
            self.libsvm_bound(best, ev, final=True)
        elif at_best and self.last_libsvm is not None:
            dual, tol = self.last_libsvm
            if tol > _LIBSVM_TOL_FLOOR and self.upper - dual > LIBSVM_SHARE * self.gap:
                _, _, ev = self.evaluate(best)
                self.n_libsvm_refined += 1
                self.libsvm_bound(best, ev, final=True,
                                  start_tol=max(_LIBSVM_TOL_STEP * tol, _LIBSVM_TOL_FLOOR))

    def solution(self, name, status, n_iter, trace, t_setup, t_solve, *, dual=None,
                 certificate=None):
        """Pack the best point as a complete :class:`~krein.solvers.Solution`.

        Besides the certificate, the solution carries the decision function at the
        best point: ``intercept``, the multiplier of ``a'beta = b0`` at the exact
        SVM bound with ``v = u`` (:meth:`ProxyKernelProblem.omega_upper
        <krein.formulations.indefinite.ProxyKernelProblem.omega_upper>`, from the
        oracle record of the best point), and ``coef`` for ``out_of_sample``.  Its
        ``certificate_kind`` is ``"relative_gap"``.

        Parameters
        ----------
        name : str
            The algorithm's name (``solver``).
        status : {"optimal", "max_iter"}
            :data:`STATUS_OPTIMAL` (the gap tolerance was met) or
            :data:`STATUS_MAX_ITER`.
        n_iter : int
            Iterations run.
        trace : list of dict
            One record per iteration.
        t_setup, t_solve : float
            Seconds of setup and of the iterations.
        dual : dict, optional
            The algorithm's dual values (default none).
        certificate : dict, optional
            The algorithm's own certificate entries, added after the common ones.

        Returns
        -------
        Solution
            ``primal`` holds ``beta``, ``alpha`` and ``u`` of the best point;
            ``certificate`` the bounds, gaps and counters; ``intercept`` and
            ``coef`` the decision function at the best point.
        """
        P = self.problem
        beta = self.best_beta
        viol = max(abs(float(P.a @ beta) - P.b0), float(np.max(-beta)), float(np.max(beta - P.upper)), 0.0)
        cert = {"lower": self.lower, "upper": self.upper, "gap": self.gap,
                "relative_gap": self.relative_gap, "objective_offset": self.offset,
                "scale": self.scale, "unit": self.unit,
                "upper_source": self.upper_source, "n_oracle": self.oracle.n_evals,
                "n_libsvm": self.n_libsvm, "n_libsvm_refined": self.n_libsvm_refined,
                "libsvm_tol": self.libsvm_tol_reached, "libsvm_seconds": self.libsvm_seconds,
                "libsvm_max_smo": self.libsvm_max_smo, "n_libsvm_capped": self.n_libsvm_capped,
                "n_interior_point": self.n_interior_point, "checks": self.checks,
                "n_inner_checks": self.n_inner, "n_inner_products": self.n_inner_products,
                "n_inner_fallback": self.n_inner_fallback,
                "inner_seconds": self.inner_seconds,
                # an inner check's libsvm fallback runs inside it
                "check_seconds": self.inner_seconds + (
                    0.0 if self.checks == "inner" else self.libsvm_seconds),
                **(certificate or {})}
        u = P.u_of(beta)
        intercept = None
        if self.best_eval is not None:
            _, intercept = P.omega_upper(self.best_eval.Ku, self.best_eval.uKu)
        coef = None if self.out_of_sample is None else out_of_sample_coef(self.oracle, u,
                                                                           self.out_of_sample)
        return Solution(
            solver=name, status=status, objective=self.lower,
            primal={"beta": beta, "alpha": P.alpha_of(beta), "u": u}, dual=dict(dual or {}),
            setup_time=t_setup, solve_time=t_solve, iterations=n_iter, primal_residual=viol,
            dual_residual=float("nan"), gap=self.gap, certificate=cert,
            trace=pd.DataFrame(trace), intercept=intercept, coef=coef,
            certificate_kind="relative_gap")
