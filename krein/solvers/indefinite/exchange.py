"""Exchange method for the SIQCLP form of IndefiniteSVM (luss §3.4, Algorithm 3; Chen & Ye 2008).

Chen & Ye (2008) move the inner minimization of luss eq. (4) into the
constraints and get the semi-infinite quadratically constrained linear program
(luss eq. 8)::

    maximize   t
    subject to beta in A = {a'beta = b0, 0 <= beta <= U},
               t <= c'beta - 1/2 (M beta)'K (M beta) + rho ||K - K0||_F^2   for all K >= 0,

whose optimal value is that of the concave maximization (7) (eqs. 17, 20 for
SVR / one-class; see :class:`~krein.formulations.indefinite.ProxyKernelProblem`).
The exchange method keeps a finite set of kernels ``K_1, ..., K_p`` and solves
the QCLP (luss eq. 13, :class:`~krein.formulations.indefinite.ExchangeQCLP`)
with one second-order-cone constraint per kept kernel; the most violated
constraint at its solution ``beta_i`` is the proxy kernel
``K_{i+1} = X(beta_i)_+`` of Theorem 1 (eq. 5), which is added (Algorithm 3).

Bounds
------
* ``f(beta_i)`` (the objective of eq. 7 at the projected QCLP solution, and
  at the level point with the level step) is a lower bound on the optimal value.
* The QCLP value ``t_i`` is an upper bound *in exact arithmetic* (a relaxation
  keeping finitely many of the infinitely many constraints; luss Algorithm 3,
  step 2 stops when ``f(beta_i) >= t_i``).  A conic solver returns ``t_i`` only
  to its own tolerance, so ``t_i`` is recorded in the trace (column ``t``) but
  not used as a certificate.
* The certified "exchange" bound is the QCLP's Lagrangian dual function at the
  solver's cut multipliers.  For any ``lam`` in the simplex, every cut ``h_j``
  dominates ``f`` (``f(beta) = min_{K >= 0} h_K(beta)``; also with truncated
  factors, see ``rank_tol`` in :func:`exchange`), so::

      OPT <= max_{beta in A} sum_j lam_j h_j(beta)
           = omega(K_lam) + rho sum_j lam_j ||K_j - K0||_F^2,   K_lam = sum_j lam_j L_j L_j',

  and ``omega(K_lam)`` (a standard SVM dual value on the PSD ``K_lam``) is bounded
  above by the SVM primal value at ``v = M beta_i`` with the exact optimal
  intercept (:meth:`ProxyKernelProblem.omega_upper`).  ``lam`` are the cut duals
  clipped at zero and normalized, so the bound holds whatever the accuracy of
  the QCLP solver (up to floating-point round-off, like the Frank-Wolfe and
  libsvm bounds of :class:`~krein.solvers.indefinite.Certifier`); at an exact
  QCLP solution it equals ``t_i``.  It costs ``O(n sum_j r_j)``.
* The Frank-Wolfe bound (every iteration) and the libsvm bound on
  ``X(beta_i)_+`` (every ``gap_every`` iterations) of
  :class:`~krein.solvers.indefinite.Certifier` are offered as well; the
  reported gap is the least certified upper bound minus the best lower bound.
"""

from __future__ import annotations

import numbers
import time
import warnings

import cvxpy as cp
import numpy as np

from ...formulations.indefinite import ExchangeLevelProjection, ExchangeQCLP
from ...projections import project_box_hyperplane
from ..core import SolverError, check_solver, installed_solvers, solve
from .certifier import Certifier
from .driver import Step, check_options, run
from .oracle import ProxyKernelOracle

__all__ = ["exchange", "exchange_bound", "new_cut", "FALLBACK_SOLVERS"]


def exchange_bound(problem, factors, dists, weights, beta):
    """Certified upper bound from the QCLP's cut multipliers (the MKL dual of eq. 13).

    ``omega_upper(K_lam, v = M beta) + rho sum_j lam_j d_j`` with
    ``K_lam = sum_j lam_j L_j L_j'`` and ``lam = max(weights, 0) / sum(max(weights, 0))``.
    Valid for *any* non-negative weights and any ``beta``, as long as every cut
    ``(L_j, d_j)`` dominates ``f`` (see the module docstring).

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    factors : list of arrays of shape (n, r_j)
        Factors ``L_j`` of the kept proxy kernels ``K_j = L_j L_j'``.
    dists : list of float
        ``d_j`` of the cuts (``||K_j - K0||_F^2`` of the untruncated proxy kernel).
    weights : array of shape (p,)
        Cut multipliers (any scale; negative entries are treated as zero).
    beta : array of shape (m,)
        The current point of the dual problem.

    Returns
    -------
    bound : float
        ``+inf`` when the weights are all non-positive or not finite.
    lam : ndarray of shape (p,)
        The normalized weights used.
    """
    P = problem
    w = np.maximum(np.nan_to_num(np.asarray(weights, dtype=float), nan=0.0, posinf=0.0), 0.0)
    s = float(w.sum())
    if not s > 0 or not np.isfinite(s):
        return np.inf, np.full(len(factors), np.nan)
    lam = w / s
    v = P.u_of(beta)
    Kv = np.zeros(P.n)
    vKv = 0.0
    for lj, L in zip(lam, factors):
        if lj == 0.0:
            continue
        Lv = L.T @ v
        Kv += lj * (L @ Lv)
        vKv += lj * float(Lv @ Lv)
    ub, _ = P.omega_upper(Kv, vKv)
    return float(ub + P.rho * float(lam @ np.asarray(dists, dtype=float))), lam


def new_cut(problem, oracle, u, ev, rank_tol):
    """Factor of ``X(u)_+`` and the distance ``||X(u)_+ - K0||_F^2`` of the cut (Theorem 1).

    Eigen-columns at or below ``rank_tol * (lam_max(K0') + |u'|^2 / (4 rho))`` (an
    upper bound on the largest eigenvalue of ``X(u)``; ``u' = u / sqrt(h)`` with
    weights) are dropped.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (``rho``, weights).
    oracle : ProxyKernelOracle
        The eigendecomposition of ``K0``.
    u : ndarray of shape (n,)
        The point ``M beta`` of the new kernel.
    ev : ProxyEval
        The oracle's record at ``u`` (for the distance).
    rank_tol : float in [0, 1)
        Relative eigenvalue threshold (see above).

    Returns
    -------
    L : ndarray of shape (n, r)
        Factor of the new kernel ``K = L L'``.
    dist : float
        ``||X(u)_+ - K0||_F^2`` of the untruncated proxy kernel.
    """
    ut = u if problem.weights is None else u / np.sqrt(problem.weights)
    mu_bound = max(float(oracle.eigenvalues[-1]), 0.0) + float(ut @ ut) / (4.0 * problem.rho)
    L = oracle.proxy_factor(u, tol=rank_tol * mu_bound)
    return L, float(ev.dist2)


def _check_exchange(solver, prune, prune_tol, solver_options, libsvm_tol, rank_tol, oracle,
                    problem, stabilization="level", level=0.5):
    name = check_solver(solver)
    if stabilization not in ("level", None):
        raise ValueError(f"stabilization must be 'level' or None; got {stabilization!r}")
    if not (isinstance(level, numbers.Real) and 0 < level < 1):
        raise ValueError(f"level must be a number in (0, 1); got {level!r}")
    if not isinstance(prune, (bool, np.bool_)):
        raise ValueError(f"prune must be True or False; got {prune!r}")
    for arg, v in (("prune_tol", prune_tol), ("rank_tol", rank_tol)):
        if not (isinstance(v, numbers.Real) and np.isfinite(v) and 0 <= v < 1):
            raise ValueError(f"{arg} must be a number in [0, 1); got {v!r}")
    if not (isinstance(libsvm_tol, numbers.Real) and np.isfinite(libsvm_tol) and libsvm_tol > 0):
        raise ValueError(f"libsvm_tol must be a finite number > 0; got {libsvm_tol!r}")
    if solver_options is None:
        solver_options = {}
    elif not isinstance(solver_options, dict):
        raise ValueError(f"solver_options must be a dict of CVXPY solver options or None; "
                         f"got {type(solver_options).__name__}")
    if oracle is not None:
        if not isinstance(oracle, ProxyKernelOracle):
            raise ValueError("oracle must be a krein.solvers.ProxyKernelOracle or None")
        if oracle.n != problem.n or oracle.rho != problem.rho or not (
                oracle.K0 is problem.K0 or np.array_equal(oracle.K0, problem.K0)):
            raise ValueError(f"oracle does not match the problem: oracle (n={oracle.n}, "
                             f"rho={oracle.rho}) vs problem (n={problem.n}, rho={problem.rho}), "
                             "or a different K0")
    return name, dict(solver_options)


#: Second-order-cone solvers tried, in this order, after the requested one fails on a QCLP.
FALLBACK_SOLVERS = ("CLARABEL", "ECOS", "SCS")


def _solve_once(problem, factors, shifted, solver, options):
    form = ExchangeQCLP(problem, factors, shifted)
    try:
        with warnings.catch_warnings():   # the status is recorded in the trace instead
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
            sol = solve(form, solver, **options)
        duals = [sol.dual[f"cut_{j}"] for j in range(len(factors))]
        return sol.objective, sol.primal["beta"], duals, False
    except SolverError as exc:
        beta_var = form.variables["beta"]
        if exc.status != cp.OPTIMAL_INACCURATE or beta_var.value is None:
            raise
        duals = [form.constraints[f"cut_{j}"].dual_value for j in range(len(factors))]
        return float(form.problem.value), np.array(beta_var.value), duals, True


def _solve_qclp(problem, factors, dists, solver, options):
    """Solve eq. (13) with :class:`ExchangeQCLP`; returns ``(t, beta, duals, status, solver, s)``.

    The constant ``rho min_j d_j`` is taken out of every cut (the optimal ``beta``
    and multipliers do not change; ``t`` is shifted back), which keeps the
    conic solver's scaling sane when the distances are large.  A solution with
    status ``optimal_inaccurate`` is accepted (nothing certified depends on its
    accuracy); when the solver fails outright, the other installed solvers of
    :data:`FALLBACK_SOLVERS` are tried with their default options.
    """
    t0 = time.perf_counter()
    d0 = float(min(dists))
    shifted = [float(d) - d0 for d in dists]
    installed = set(installed_solvers())
    tries = [(solver, options)] + [(s, {}) for s in FALLBACK_SOLVERS
                                   if s != solver and s in installed]
    errors = []
    for name, opts in tries:
        try:
            t, beta, duals, inaccurate = _solve_once(problem, factors, shifted, name, opts)
        except (SolverError, ValueError) as exc:
            if name == solver and isinstance(exc, ValueError):
                raise      # the requested solver cannot do SOCPs or got a bad option
            errors.append(f"{name}: {exc}")
            continue
        duals = np.array([np.nan if d is None else float(np.asarray(d).ravel()[0]) for d in duals])
        status = "optimal_inaccurate" if inaccurate else "optimal"
        return (float(t) + problem.rho * d0, np.asarray(beta, dtype=float), duals, status, name,
                time.perf_counter() - t0)
    raise SolverError(f"every solver failed on the exchange QCLP with {len(factors)} cuts: "
                      + "; ".join(errors), solver=solver, status="solver_error")


def _active_cuts(duals, prune_tol):
    """Cuts whose multiplier is at least ``prune_tol`` times the sum (unknown: kept)."""
    duals = np.asarray(duals, dtype=float)
    w = np.where(np.isfinite(duals), duals, np.inf)
    return w >= prune_tol * float(np.sum(np.maximum(duals[np.isfinite(duals)], 0.0)))


def _solve_projection(problem, factors, dists, center, level, solver, options):
    """Level step: project ``center`` onto the level set of the cut model.

    Solves :class:`ExchangeLevelProjection` (with the same constant shift as
    :func:`_solve_qclp`) by ``solver`` and then the installed fallbacks; a
    point with status ``optimal_inaccurate`` is accepted (for Clarabel,
    ``accept_unknown`` is set: an "insufficient progress" end still returns its
    last iterate), since the trial point needs no accuracy for any bound to
    hold.  Returns ``(beta, duals, status, solver, seconds)``, or ``None``
    when every solver fails (the caller then takes the QCLP point).
    """
    t0 = time.perf_counter()
    d0 = float(min(dists))
    shifted = [float(d) - d0 for d in dists]
    shifted_level = float(level) - problem.rho * d0
    installed = set(installed_solvers())
    tries = [(solver, options)] + [(s, {}) for s in FALLBACK_SOLVERS
                                   if s != solver and s in installed]
    for name, opts in tries:
        opts = dict(opts)
        if name == "CLARABEL":
            opts.setdefault("accept_unknown", True)
        form = ExchangeLevelProjection(problem, factors, shifted, center, shifted_level)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                solve(form, name, **opts)
            status = "optimal"
        except (SolverError, ValueError) as exc:
            if not (isinstance(exc, SolverError) and exc.status == cp.OPTIMAL_INACCURATE):
                continue
            status = "optimal_inaccurate"
        beta = form.variables["beta"].value
        if beta is None or not np.all(np.isfinite(beta)):
            continue
        duals = np.array([np.nan if form.constraints[f"cut_{j}"].dual_value is None
                          else float(np.ravel(form.constraints[f"cut_{j}"].dual_value)[0])
                          for j in range(len(factors))])
        return np.asarray(beta, dtype=float), duals, status, name, time.perf_counter() - t0
    return None


def exchange(problem, *, solver="CLARABEL", tol=1e-3, atol=1e-8, max_iter=200, gap_every=1,
             libsvm_tol=1e-4, oracle=None, prune=True, prune_tol=1e-8, rank_tol=1e-10,
             stabilization="level", level=0.5, solver_options=None, out_of_sample=None,
             verbose=False):
    """Exchange method of Chen & Ye (2008) for the SIQCLP (luss eq. 8; §3.4, Algorithm 3).

    Start from ``K_1 = (K0)_+`` (the proxy kernel at ``u = 0``).  At iteration
    ``i`` solve the QCLP (luss eq. 13) with the kept kernels to get
    ``(t_i, beta_i)``; choose the trial point (below); evaluate ``f`` there
    (lower bound) and the certified upper bounds; stop when the certified gap
    is at most ``max(atol * unit, tol * scale)``, ``scale = max(|f - g(0)|, 1/2 u'|K0| u)``
    with ``g(0) = rho ||(K0)_-||_F^2``,
    as in :meth:`Certifier.converged <krein.solvers.indefinite.Certifier.converged>`
    (luss step 2 stops when ``f(beta_i) >= t_i``); otherwise prune the inactive
    cuts and add the kernel ``X(beta)_+`` of the trial point (Theorem 1, step 1).

    Trial point (``stabilization``)
    -------------------------------
    * ``None`` — **luss Algorithm 3 as written**: the trial point is the QCLP
      maximizer ``beta_i``.  This is a Kelley-type cutting-plane method on
      quadratic cuts.  Each cut misses the quartic term ``-|u|^4 / (16 rho)``
      of eq. (7), so the maximizers overshoot to large ``|u|`` and the method
      crawls unless ``rho`` is large (timings in ``benchmarks/README.md``).
    * ``"level"`` (default) — the **level method** of Lemarechal, Nemirovskii &
      Nesterov (1995) on the same cuts.  Let ``f*`` be the best value found and
      ``t_i`` the QCLP value (capped by the best certified upper bound).  The
      trial point is the projection of the best point onto
      ``{beta in A : every kept cut >= f* + level (t_i - f*)}``
      (:class:`~krein.formulations.indefinite.ExchangeLevelProjection`; a
      second conic solve per iteration).  The QCLP, its cuts, the kernel added
      (Theorem 1 at the trial point) and every bound are those of Algorithm 3;
      only the point where the next cut is taken changes.  That keeps the
      iterates near the best point and removes the overshoot.  If the projection
      fails with every solver, the QCLP point is used for that iteration
      (trace column ``step``).  This variant is ours, not the paper's: keep
      ``stabilization=None`` to reproduce luss Fig. 2.

    Measured iteration counts and times of both trial points (USPS Simpson
    kernel, sigmoid kernel) are in ``benchmarks/README.md``.

    Parameters
    ----------
    problem : ProxyKernelProblem
        Model "svc", "svr" or "one-class", optionally with componentwise weights.
    solver : str
        Any installed CVXPY solver that handles second-order cones (default
        "CLARABEL"; "ECOS" was about 2x faster on these QCLPs at ``n = 300``
        and as fast at ``n = 500``; "SCS" was no faster and is less accurate).
        A solution with status ``optimal_inaccurate`` is accepted: every
        reported bound is certified independently of the QCLP's accuracy.
    tol, atol : float
        Relative (to ``max(|f - g(0)|, 1/2 u'|K0| u)``, :attr:`Certifier.scale
        <krein.solvers.indefinite.Certifier.scale>`) and absolute tolerance on the
        certified gap.
    max_iter : int
        Maximum number of QCLPs solved.
    gap_every : int
        Iterations between libsvm gap checks on ``X(beta_i)_+`` (0: never).
    libsvm_tol : float
        Tolerance of libsvm at the gap checks.
    oracle : ProxyKernelOracle, optional
        Reuse an eigendecomposition of ``K0`` (must match ``problem``'s ``K0`` and ``rho``).
    prune : bool
        Drop inactive cuts (Chen & Ye): before adding the new kernel, every kept
        kernel whose cut multiplier is below ``prune_tol`` times the sum of the
        cut multipliers is removed, except the newest one.  Removing cuts with
        zero multipliers leaves the QCLP's optimal value unchanged.  With
        the level step a cut is kept when it passes this test in the QCLP or
        in the projection.
    prune_tol : float in [0, 1)
        Relative threshold of the pruning test above.
    rank_tol : float in [0, 1)
        Eigen-columns of the factor ``L_i`` of ``K_i = X(u_i)_+`` with eigenvalue
        at or below ``rank_tol * (lam_max(K0) + |u_i|^2 / (4 rho))`` (an upper
        bound on the largest one) are dropped: fewer cone rows.  The truncated
        ``K_i'`` satisfies ``K_i' <= K_i`` (Loewner order), so the cut
        ``c'beta - 1/2 u'K_i' u + rho ||K_i - K0||_F^2`` (with the untruncated
        distance) still dominates ``f`` and every bound stays valid; it is looser
        by at most ``|u|^2`` times the threshold over 2.  Default ``1e-10``:
        negligible, and it removes numerically zero columns; 0 keeps every
        positive eigenvalue.  (On sigmoid kernels the spectrum of ``X_+`` does
        not decay, so truncation saves little there; it helps on smooth
        kernels such as wide Gaussians.)
    stabilization : {"level", None}
        Trial point: the level-set projection (default) or the QCLP
        maximizer (luss Algorithm 3 as written); see above.
    level : float in (0, 1)
        Level parameter of the level method (ignored with
        ``stabilization=None``): the target is ``f* + level (t_i - f*)``.
    solver_options : dict, optional
        Passed to the CVXPY solver (e.g. ``{"eps_abs": 1e-6}`` for SCS).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, optional
        Also return the test coefficients of this out-of-sample map in
        ``Solution.coef`` (:func:`~krein.solvers.indefinite.out_of_sample_coef`).
    verbose : bool
        Print one line per iteration.

    Returns
    -------
    Solution
        ``solver="exchange"``; ``status`` ``"optimal"`` when the gap tolerance was met,
        ``"max_iter"`` otherwise; ``primal`` holds ``beta``, ``alpha`` and ``u`` of the
        best point; ``gap`` is certified (see the module docstring for which
        bounds are); ``intercept`` and ``coef`` as in
        :func:`~krein.solvers.projected_gradient`; ``dual["kernel_weights"]`` are the normalized cut
        multipliers of the last QCLP (the weights of the kept kernels in the MKL
        reading of eq. 13) and ``certificate`` adds ``t`` (last QCLP value, not
        certified), ``exchange_upper``, ``n_cuts``, ``qclp_seconds``,
        ``qclp_solver``, ``n_inaccurate`` (QCLPs accepted as
        ``optimal_inaccurate``) and ``n_fallback`` (QCLPs solved by a fallback
        solver).  ``trace`` has one row per iteration: ``iter, objective, lower,
        upper, gap, bound, t, exchange_upper, n_cuts, n_pruned, qclp_status,
        qclp_solver, qclp_seconds, qclp_objective, step, level, projection_status,
        projection_seconds, seconds, gap_seconds`` (``objective`` is ``f`` at the
        trial point, ``qclp_objective`` at the QCLP point (with the level step
        both are evaluated and both are lower bounds), ``step`` "qclp" or "level", ``level`` the target of the
        level step, ``t`` the QCLP value ``t_i``, ``exchange_upper`` the
        certified bound from its multipliers, ``n_cuts`` the number of kernels in
        the QCLP, ``gap_seconds`` the libsvm check).

    Raises
    ------
    ValueError
        Bad parameters (each names the argument), or a solver that is not
        installed or cannot solve an SOCP.
    SolverError
        When a QCLP fails (status other than optimal / optimal_inaccurate)
        with the requested solver and with every installed fallback of
        :data:`FALLBACK_SOLVERS` (tried with default options; recorded in the
        trace column ``qclp_solver``).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the gap tolerance.

    Notes
    -----
    Each QCLP has one second-order cone with ``r_i`` rows per kept kernel
    (``r_i`` the number of positive eigenvalues of ``X(beta_i)``, about the
    number of positive eigenvalues of ``K0``), so its cost grows with the
    number of kept cuts (at ``n = 300`` with 15 cuts: several seconds per
    QCLP; CVXPY's compilation dominates for ``n < 100``).  Pruning at the
    default ``prune_tol`` removes few cuts, because an interior-point solver
    leaves multipliers between about ``1e-9`` and ``1e-4`` on inactive cuts
    (``prune_tol=1e-4`` prunes more with the same iterations on small problems,
    but did not make the ``n = 300`` sigmoid run of ``benchmarks/README.md``
    faster).

    With ``stabilization=None`` no rate of convergence is known, only a
    monotone decrease of ``t_i`` (Chen & Ye 2008), and luss §5 found the
    method slower than projected gradient; it is quick when ``rho`` is large
    relative to ``|u|^2`` (``K* ~ (K0)_+``) and very slow otherwise.  The
    level method converges for any concave ``f`` with a rate of
    ``O(1 / eps^2)`` iterations (Lemarechal, Nemirovskii & Nesterov 1995,
    for linear cuts; quadratic cuts only tighten the model).

    References
    ----------
    Luss & d'Aspremont (2009), §3.4, eqs. (8), (13), Algorithm 3.
    Chen & Ye (2008), "Training SVM with indefinite kernels", ICML.
    C. Lemarechal, A. Nemirovskii, Y. Nesterov (1995), "New variants of bundle
    methods", Math. Programming 69.
    """
    check_options(problem, tol, atol, max_iter, gap_every,
                  dense_only=("exchange needs the dense K0 (its cuts are dense proxy "
                              "kernels, its master problem a QCLP in them)"))
    solver_name, options = _check_exchange(solver, prune, prune_tol, solver_options, libsvm_tol,
                                           rank_tol, oracle, problem, stabilization, level)
    t0 = time.perf_counter()
    cert = Certifier(problem, oracle, libsvm_tol, out_of_sample)
    orc = cert.oracle
    P = problem
    zeros = np.zeros(P.n)
    L1, d1 = new_cut(P, orc, zeros, orc.evaluate(zeros), rank_tol)   # K_1 = (K0)_+
    # the kept kernels and what the run reports of them
    st = {"factors": [L1], "dists": [d1], "qclp_total": 0.0, "proj_total": 0.0,
          "n_inaccurate": 0, "n_fallback": 0, "t": np.nan, "xb": np.inf, "lam": np.array([1.0])}
    t_setup = time.perf_counter() - t0

    def exchange_step(k):
        factors, dists = st["factors"], st["dists"]
        t_val, beta_raw, duals, q_status, q_solver, q_s = _solve_qclp(P, factors, dists,
                                                                      solver_name, options)
        st["qclp_total"] += q_s
        st["n_inaccurate"] += int(q_status != "optimal")
        st["n_fallback"] += int(q_solver != solver_name)
        beta_q = project_box_hyperplane(beta_raw, P.a, P.b0, P.upper)
        xb, lam = exchange_bound(P, factors, dists, duals, beta_q)
        cert.offer_upper(xb, "exchange")
        step, lev, p_status, p_s, p_duals = "qclp", np.nan, "", 0.0, None
        f_q = -np.inf
        beta = beta_q
        if stabilization == "level" and cert.best_beta is not None:
            # the QCLP point is a candidate too (an O(n^2) evaluation, no cut): near the
            # optimum, where the model is accurate, it is the better of the two points
            f_q, grad_q, ev_q = cert.evaluate(beta_q)
            cert.frank_wolfe(beta_q, f_q, grad_q)
            lev = cert.lower + level * (min(t_val, cert.upper) - cert.lower)
            proj = _solve_projection(P, factors, dists, cert.best_beta, lev, solver_name,
                                     options)
            if proj is None:
                p_status = "failed"
            else:
                beta_l, p_duals, p_status, _, p_s = proj
                beta = project_box_hyperplane(beta_l, P.a, P.b0, P.upper)
                step = "level"
            st["proj_total"] += p_s
        f, grad, ev = cert.evaluate(beta)
        cert.frank_wolfe(beta, f, grad)
        st.update(t=t_val, xb=xb, lam=lam, beta=beta, ev=ev, duals=duals, p_duals=p_duals)
        n_cuts = len(factors)
        # the libsvm check takes the QCLP point when it is the better one
        check = (beta_q, ev_q) if step == "level" and f_q > f else None
        columns = {"t": t_val, "exchange_upper": xb, "n_cuts": n_cuts, "n_pruned": 0,
                   "qclp_status": q_status, "qclp_solver": q_solver, "qclp_seconds": q_s,
                   "qclp_objective": f_q if step == "level" else f, "step": step,
                   "level": lev, "projection_status": p_status, "projection_seconds": p_s}
        return Step(beta, f, ev, columns, check=check, describe=lambda gap: (
            f"exchange {k:4d}  f={f:.10g}  t={t_val:.10g}  gap={gap:.3g} "
            f"({cert.upper_source})  cuts={n_cuts}  step={step}  qclp={q_s:.2f}s "
            f"proj={p_s:.2f}s"))

    def next_kernel(k, columns):
        if k >= max_iter:
            return
        factors, dists = st["factors"], st["dists"]
        if prune and len(factors) > 1:
            active = _active_cuts(st["duals"], prune_tol)
            if st["p_duals"] is not None:   # level step: keep the cuts active in either problem
                active |= _active_cuts(st["p_duals"], prune_tol)
            active[-1] = True                                   # never drop the newest cut
            columns["n_pruned"] = int(len(factors) - active.sum())
            factors = [F for F, a in zip(factors, active) if a]
            dists = [d for d, a in zip(dists, active) if a]
        L_new, d_new = new_cut(P, orc, P.u_of(st["beta"]), st["ev"], rank_tol)  # X(beta)_+
        st["factors"] = factors + [L_new]
        st["dists"] = dists + [d_new]

    def extras():
        return {"kernel_weights": st["lam"]}, {
            "t": st["t"], "exchange_upper": st["xb"], "n_cuts": len(st["factors"]),
            "qclp_seconds": st["qclp_total"], "projection_seconds": st["proj_total"],
            "stabilization": stabilization, "qclp_solver": solver_name,
            "n_inaccurate": st["n_inaccurate"], "n_fallback": st["n_fallback"]}

    return run(cert, "exchange", exchange_step, tol=tol, atol=atol, max_iter=max_iter,
               gap_every=gap_every, t0=t0, t_setup=t_setup, verbose=verbose, after=next_kernel,
               extras=extras)
