"""Analytic center cutting plane method for IndefiniteSVM (luss Algorithm 2).

Maximizes the concave ``f(beta)`` of a
:class:`~krein.formulations.indefinite.ProxyKernelProblem` (luss eqs. 7, 17, 20)
over ``A = {a'beta = b0, 0 <= beta <= U}`` by localization:

* ``L_0 = A`` written as ``{x : -x <= 0, x <= U, a'x = b0}`` (``2m`` box rows);
* step 1: ``x_k`` = analytic center of ``L_k``,
  ``argmax sum_i log(b_i - A_i x)  s.t.  a'x = b0``;
* step 2: ``f`` and ``grad f`` at ``x_k`` (the O(n^2) oracle of
  :mod:`krein.solvers.indefinite.oracle`) and the cut ``grad'(x - x_k) >= 0``: by concavity
  ``f(x) <= f(x_k) + grad'(x - x_k)``, so every ``x`` better than ``x_k`` (and
  the optimum) stays in ``L_{k+1}``;
* step 3: when the cuts exceed ``max_cuts`` (``3m`` by default, the paper's
  ``3n`` rule of thumb) the least relevant are dropped by luss eq. (12);
* step 4: stop on the certified gap.

The cut is stored as the row ``-d / |d|`` with right-hand side
``-d'x_k / |d|``, where ``d`` is ``grad`` projected onto ``{a'd = 0}``: on the
affine set ``{a'x = b0}`` it is the same half-space, rows of unit norm keep the
Hessian well scaled, and the analytic center does not depend on row scaling.

Bounds.  The lower bound is the best ``f(x_k)``.  Upper bounds, all certified
(whatever the accuracy of the centers): the Frank-Wolfe bound at every center and
the libsvm bound every ``gap_every`` iterations (:class:`Certifier`, as in
:mod:`krein.solvers.indefinite`), and luss's own stopping rule (§3.3): maximize
the linearization of ``f`` at ``x_k`` over a set that covers ``L_k`` (which holds
the optimum).  We use both the covering ellipsoid ``{||z - x_k||_H <= R}``
(``R = sqrt(N (N - 1))`` for ``N`` rows at the exact center, enlarged for the
measured Newton decrement, :func:`~krein.solvers.indefinite.analytic_center.outer_radius`)
and an LP-duality bound built from the same Newton system, usually several times
tighter (:func:`~krein.solvers.indefinite.analytic_center.localization_bound`).  Both
converge linearly with the volume of ``L_k``: late in a run they are the tightest
bound (by 10x or more), while early the libsvm bound at the center is.

Centering: each ``x_k`` comes from :mod:`krein.solvers.indefinite.analytic_center`
(``center="newton"``, damped Newton warm-started on the Dikin ray of the new cut,
about one factorization per center; or ``center="cvxpy"``, one DPP
:class:`~krein.formulations.indefinite.AnalyticCenter` for the whole run).

Cost: ACCPM needs about ``5 n`` centers, each dominated by the ``p m^2`` Hessian
product, as luss §5.3 found ("ACCPM clearly suffers from the complexity of the
analytic center problem"); measured times against projected gradient are in
``benchmarks/README.md`` (``benchmarks/indefinite.py``).  Its lower bound is
usually far better than its certificate: the centers approach the optimum in
value faster than in distance, and the bounds at a center are first order in
the distance.

References
----------
R. Luss and A. d'Aspremont (2009), "Support vector machine classification with
indefinite kernels", Math. Prog. Comp. 1 -- "luss", §3.3, Algorithm 2, eq. (12).
"""

from __future__ import annotations

import time

import numpy as np

from ...formulations.indefinite import AnalyticCenter
from ..core import SolverError, check_solver, solve
from .analytic_center import (CENTERS, HessianSolver, barrier_at, interior_point,
                              localization_bound, newton_center, ray_start, scaled_rows, slacks)
from .certifier import Certifier
from .driver import Step, check_options, run, start_point

__all__ = ["accpm", "EXACT_EVERY"]

#: Every this many iterations the barrier Hessian is factorized at the center itself
#: (the Newton path otherwise reuses the factorization of the start point): it gives
#: the localization bound of luss §3.3 and refreshes the numerators ``c_j'H^-1 c_j`` of
#: the relevance (12) (``m^2 p`` each); in between, pruning uses these numerators with
#: current slacks ``b_j - c_j'x_k``.
EXACT_EVERY = 10


# ============================================================== the loop
class _CvxpyCenter:
    """One DPP :class:`AnalyticCenter` for all iterations (rows padded with ``0 x <= 1``)."""

    def __init__(self, m, max_cuts, a, b0, U, solver, options):
        self.form = AnalyticCenter(m, 2 * m + max_cuts, a, b0)
        self.options = dict(options or {})
        self.m = m
        self.U = U
        self.solver = solver
        self.box = np.vstack([-np.eye(m), np.eye(m)])

    def __call__(self, Cm, d, x_safe):
        m, U = self.m, self.U
        self.form.set_rows(np.vstack([self.box, Cm]), np.concatenate([np.zeros(m), U, d]))
        try:
            sol = solve(self.form, self.solver, warm_start=True, **self.options)
            x, iters, accurate = np.asarray(sol.primal["x"], dtype=float), sol.iterations, True
        except SolverError as exc:
            # thin localization sets late in a run can end 'optimal_inaccurate'; any strictly
            # feasible point is a valid query point (cuts are valid anywhere), so use it
            xv = self.form.variables["x"].value
            if exc.status != "optimal_inaccurate" or xv is None:
                raise
            x, iters, accurate = np.asarray(xv, dtype=float), None, False
        # guard against solver tolerance only: pull towards a strictly feasible point
        for _ in range(60):
            if np.isfinite(barrier_at(*slacks(x, U, Cm, d))):
                break
            x = 0.5 * (x + x_safe)
        else:
            x = x_safe
        return x, (iters or 0), accurate


def _check_accpm(center, center_solver, max_cuts, center_options, m):
    if center not in CENTERS:
        raise ValueError(f"center must be one of {CENTERS}; got {center!r}")
    if center_options is not None and not isinstance(center_options, dict):
        raise ValueError(f"center_options must be a dict of solver options or None; "
                         f"got {center_options!r}")
    if center == "cvxpy":
        center_solver = check_solver(center_solver)
    if max_cuts is None:
        max_cuts = 3 * m
    if not (isinstance(max_cuts, (int, np.integer)) and not isinstance(max_cuts, bool)
            and max_cuts >= 1):
        raise ValueError(f"max_cuts must be an integer >= 1 (or None for 3m); got {max_cuts!r}")
    return center_solver, int(max_cuts)


def accpm(problem, *, tol=1e-3, atol=1e-8, max_iter=1000, gap_every=10, beta0=None,
          libsvm_tol=1e-4, oracle=None, center="newton", center_solver="CLARABEL",
          max_cuts=None, center_options=None, out_of_sample=None, verbose=False):
    """Analytic center cutting plane method on luss eq. (7) (luss Algorithm 2).

    At iteration ``k``: ``x_k`` = analytic center of the localization set ``L_k``
    (step 1); evaluate ``f`` and ``grad f`` at ``x_k`` and add the cut
    ``grad'(x - x_k) >= 0`` (step 2); if the cuts exceed ``max_cuts``, keep the
    ``max_cuts`` most relevant by luss eq. (12) (step 3); stop when the certified
    gap is small (step 4).  ``L_0 = A = {a'beta = b0, 0 <= beta <= U}``.

    Cut relevance (eq. 12), ``c_j'H^-1 c_j / (b_j - c_j'x_k)^2`` with ``H`` the
    barrier Hessian at the center (inverted on ``{a'd = 0}``), is one over the
    squared distance from ``x_k`` to cut ``j`` in the Dikin-ellipsoid norm:
    LARGE means the cut is near the center and shapes the set (kept), small means
    it is far away and likely redundant (dropped).  The newest cut passes through
    ``x_k`` (relevance ``+inf``) and is always kept.  Dropping cuts only enlarges
    the localization set, so the optimum stays inside it.  The numerators are
    computed with the Hessian at the center every ``EXACT_EVERY`` (10) iterations
    and kept in between (new cuts get theirs when added); the slacks are always
    current.

    Upper bounds (the least is reported, ``certificate["upper_source"]``):
    ``"frank-wolfe"`` (every center), ``"libsvm"`` (every ``gap_every``) and
    ``"accpm"``, luss §3.3's bound from a set covering ``L_k`` (every
    ``EXACT_EVERY`` iterations; see the module docstring).  The lower bound is the
    best ``f`` at a center.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    tol, atol : float
        Relative tolerances on the certified gap: stop when
        ``gap <= max(atol * unit, tol * scale)`` with ``scale = max(|lower - g(0)|,
        1/2 u'|K0| u)`` at the best point, ``g(0)`` the constant part of ``f``
        (:meth:`Certifier.converged <krein.solvers.indefinite.Certifier.converged>`).
    max_iter : int
        Number of centers (oracle calls).
    gap_every : int
        Iterations between libsvm gap checks (0: only the free bounds).  Each
        check forms the proxy kernel and solves an SVM: at ``libsvm_tol = 1e-6``
        libsvm's SMO may need 1e5-1e6 iterations on these kernels (0.1-0.5 s at
        n = 100); the default ``1e-4`` (as in the other loops) is much faster and
        the bound stays valid, and a check re-solves at ``1e-6`` only when that
        could take more than half off the gap
        (:meth:`Certifier.libsvm_bound <krein.solvers.indefinite.Certifier.libsvm_bound>`).
    beta0 : array of shape (m,), optional
        A known point (projected onto ``A``): it is evaluated first (with a gap
        check there when ``gap_every > 0`` and the Frank-Wolfe bound does not already
        certify it) and its cut ``grad f(beta0)'(x - beta0) >= 0`` is added to ``L_0``.
    libsvm_tol : float
        Tolerance of libsvm at the gap checks (default ``1e-4``, as in
        :func:`~krein.solvers.projected_gradient` and the exchange method).
    oracle : ProxyKernelOracle, optional
        Reuse an eigendecomposition of ``K0``.
    center : {"newton", "cvxpy"}
        ``"newton"`` (fast path): damped Newton with the equality row eliminated in
        closed form, Woodbury when the cuts are fewer than ``m``, warm-started on
        the Dikin ray of the new cut from the previous center, chord steps on one
        factorization; stops at a certified ``lambda^2 / 2 <= 1e-10``.  ``"cvxpy"``:
        :class:`~krein.formulations.indefinite.AnalyticCenter` solved by
        ``center_solver`` (small problems; for cross-checking).
    center_solver : str
        CVXPY solver for ``center="cvxpy"`` (needs exponential cones: CLARABEL,
        SCS, ECOS, ...).
    max_cuts : int, optional
        Cuts kept (box rows not counted); default ``3m`` (luss: "reduce the number
        of constraints to 3n", ``m = n`` for svc and one-class, ``2n`` for svr).
        Much smaller budgets can stall: with ``max_cuts = m`` we saw runs cycle
        between two centers, each cut dropping the other's.
    center_options : dict, optional
        Options for ``center_solver`` (passed to :func:`~krein.solvers.solve`).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, optional
        Also return the test coefficients of this out-of-sample map in
        ``Solution.coef`` (:func:`~krein.solvers.indefinite.out_of_sample_coef`).
    verbose : bool
        Print one line per center.

    Returns
    -------
    Solution
        ``solver = "accpm"``; ``status`` ``"optimal"`` when the gap tolerance was met
        (or the center is stationary), ``"max_iter"`` otherwise; ``primal`` holds ``beta``, ``alpha`` and ``u`` of the
        best center; ``gap`` is certified; ``intercept`` and ``coef`` as in
        :func:`~krein.solvers.projected_gradient`; ``trace`` has one row per center
        (``iter, objective, lower, upper, gap, bound, n_cuts, newton_steps, seconds,
        gap_seconds``; ``bound`` the source of the least upper bound; ``n_cuts`` is the number of cuts of ``L_k``,
        ``newton_steps`` the Newton steps, or solver iterations with cvxpy, spent
        on ``x_k``); ``certificate`` adds ``n_cuts``, ``n_pruned``,
        ``newton_steps`` (total), ``center`` and ``inaccurate_centers`` (cvxpy
        centers the solver reported ``optimal_inaccurate``: still strictly
        feasible query points, so the cuts and bounds stay valid).

    Raises
    ------
    ValueError
        Bad parameters (``center``, ``center_solver``, ``max_cuts``, ``tol``, ...)
        or a feasible set with an empty relative interior.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the gap tolerance.

    References
    ----------
    Luss & d'Aspremont (2009), §3.3, Algorithm 2 and eq. (12).
    """
    check_options(problem, tol, atol, max_iter, gap_every,
                  dense_only=("accpm needs the dense K0 (its analytic centers factor an "
                              "n x n Hessian once the cuts outnumber the points)"))
    P = problem
    m = P.m
    center_solver, max_cuts = _check_accpm(center, center_solver, max_cuts, center_options, m)
    t0 = time.perf_counter()
    cert = Certifier(problem, oracle, libsvm_tol, out_of_sample)
    U = np.asarray(P.upper, dtype=float)
    a = np.asarray(P.a, dtype=float)
    b0 = float(P.b0)
    aa = float(a @ a)
    x_int = interior_point(a, b0, U)
    cvx = _CvxpyCenter(m, max_cuts, a, b0, U, center_solver, center_options) \
        if center == "cvxpy" else None
    t_setup = time.perf_counter() - t0

    # cuts live in preallocated buffers (at most max_cuts + 1 rows at any time)
    Cbuf = np.empty((max_cuts + 1, m))
    dbuf = np.empty(max_cuts + 1)
    qbuf = np.zeros(max_cuts + 1)   # numerators c_j'H_a^-1 c_j of eq. (12)
    work = np.empty((max_cuts + 1, m))  # scaled rows of the current factorization
    # the state carried between centers: cuts kept, start of the next center, counters
    st = {"p": 0, "x_start": x_int, "hs": None, "n_pruned": 0, "steps": 0, "n_inaccurate": 0}

    def projected(grad):
        return grad - a * (float(a @ grad) / aa)

    converged = False
    if beta0 is not None:
        # L_0 gets the cut through beta0; the start must be strictly inside it
        b = start_point(P, beta0)
        f, grad, ev0 = cert.evaluate(b)
        cert.frank_wolfe(b, f, grad)
        if gap_every and not cert.converged(tol, atol):
            # a gap check at the given point: the Frank-Wolfe bound is first order, so a
            # beta0 at the optimum to 1e-8 in f may leave it above tol where the SVM bound
            # on X(beta0)_+ certifies it at once
            cert.libsvm_bound(b, ev0)
        dvec = projected(grad)
        nd = float(np.linalg.norm(dvec))
        converged = cert.converged(tol, atol) or nd == 0.0
        if not converged:
            nh = dvec / nd
            Cbuf[0] = -nh
            dbuf[0] = -float(nh @ b)
            st["p"] = 1
            s0 = float(nh @ (x_int - b))
            if s0 <= 0:
                # a point of A strictly beyond the cut (a projected step from beta0),
                # then back towards the interior point of A
                xt = start_point(P, b + float(np.max(U)) * np.sqrt(m) * nh)
                s_t = float(nh @ (xt - b))
                if s_t > 0:
                    theta = 0.5 * (-s0 / (s_t - s0) + 1.0)
                    st["x_start"] = (1.0 - theta) * x_int + theta * xt
                else:
                    converged = True  # beta0 maximizes its linearization over A: optimal

    def center_step(k):
        p = st["p"]
        Cm, d = Cbuf[:p], dbuf[:p]
        if cvx is None:
            x, steps, lam2, st["hs"] = newton_center(st["x_start"], U, a, Cm, d, work=work)
        else:
            x, steps, accurate = cvx(Cm, d, st["x_start"])
            st["n_inaccurate"] += not accurate
        st["steps"] += steps
        res = float(a @ x) - b0
        if res != 0.0:  # round-off drift off a'x = b0: one exact correction along a
            xc = x - a * (res / aa)
            if np.isfinite(barrier_at(*slacks(xc, U, Cm, d))):
                x = xc
        exact = cvx is not None or k % EXACT_EVERY == 0
        if exact:
            # the Hessian and the exact Newton decrement at the center itself
            sl, su, sc = slacks(x, U, Cm, d)
            hs = HessianSolver(1.0 / sl ** 2 + 1.0 / su ** 2, scaled_rows(Cm, 1.0 / sc, work), a)
            hs.x_ref = x
            _, lam2 = hs.newton_step(1.0 / su - 1.0 / sl + Cm.T @ (1.0 / sc))
            if p >= max_cuts:
                qbuf[:p] = hs.restricted_quad_forms(Cm)
            st["hs"] = hs
        f, grad, ev = cert.evaluate(x)
        cert.frank_wolfe(x, f, grad)
        if exact:
            cert.offer_upper(localization_bound(st["hs"], x, lam2, f, grad, U, Cm, d), "accpm")
        dvec = projected(grad)
        nd = float(np.linalg.norm(dvec))
        st["x"], st["dvec"], st["nd"] = x, dvec, nd
        return Step(x, f, ev, {"n_cuts": p, "newton_steps": steps},
                    # stationary on the affine hull at an interior point: x is optimal
                    stationary=nd <= 1e-14 * max(1.0, float(np.linalg.norm(grad))),
                    describe=lambda gap: f"accpm {k:5d}  f={f:.8g}  gap={gap:.3g}  cuts={p}  "
                                         f"newton={steps}")

    def add_cut(k, columns):
        x, p, hs = st["x"], st["p"], st["hs"]
        nh = st["dvec"] / st["nd"]
        Cm, d = Cbuf[:p], dbuf[:p]
        if p + 1 > max_cuts:
            # luss step 3 / eq. (12) at x_k; the new cut (through x_k) is always kept
            sc = d - Cm @ x
            rel = qbuf[:p] / sc ** 2
            keep = np.sort(np.argsort(-rel, kind="stable")[: max_cuts - 1])
            st["n_pruned"] += p - keep.size
            Cbuf[: keep.size] = Cm[keep]
            dbuf[: keep.size] = d[keep]
            qbuf[: keep.size] = qbuf[keep]
            p = keep.size
        Cbuf[p] = -nh
        dbuf[p] = -float(nh @ x)
        # strictly feasible start for the next center: x lies on the new cut
        direction = hs.solve(nh)
        qbuf[p] = max(float(nh @ direction) - float(a @ direction) ** 2 / hs.aHa, 0.0)
        direction -= hs.Ha * (float(a @ direction) / hs.aHa)
        st["x_start"] = ray_start(x, U, Cbuf[:p], dbuf[:p], nh, direction)
        st["p"] = p + 1

    def extras():
        return None, {"n_cuts": st["p"], "n_pruned": st["n_pruned"], "newton_steps": st["steps"],
                      "center": center, "inaccurate_centers": st["n_inaccurate"]}

    return run(cert, "accpm", center_step, tol=tol, atol=atol, max_iter=max_iter,
               gap_every=gap_every, t0=t0, t_setup=t_setup, verbose=verbose, after=add_cut,
               converged=converged, extras=extras)
