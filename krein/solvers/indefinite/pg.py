"""Projected gradient ascent for IndefiniteSVM (luss Algorithm 1).

The step of :func:`projected_gradient`; the iteration tail (gap checks, stopping
test, trace, status) is :func:`krein.solvers.indefinite.driver.run`.
"""

from __future__ import annotations

import time

import numpy as np

from ...projections import project_box_hyperplane
from .certifier import Certifier
from .driver import Step, check_options, run, start_point

__all__ = ["projected_gradient", "lipschitz_bound", "STEP_RULES"]

#: Step-size rules of :func:`projected_gradient`.
STEP_RULES = ("backtracking", "lipschitz", "diminishing")


def lipschitz_bound(problem, oracle):
    """A Lipschitz constant of ``grad f`` on the feasible set.

    ``grad_u g = -X(u)_+ u`` with ``||X_+(u) - X_+(v)||_F <= ||X(u) - X(v)||_F``
    (the projection is 1-Lipschitz) and ``||uu' - vv'||_F <= (|u| + |v|)|u - v|``
    give ``L_u <= lam_max(K0)_+ + 3 R^2 / (4 rho)`` with ``R = max |u|`` on the
    feasible set; ``L = ||M||^2 L_u`` (``||M||^2 = 2`` for svr), scaled by
    ``1 / min(h)`` with componentwise weights.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    oracle : ProxyKernelOracle
        The eigendecomposition of ``K0``.

    Returns
    -------
    float
        An upper bound on the Lipschitz constant of ``grad f``.
    """
    P = problem
    lmax = max(float(oracle.eigenvalues[-1]), 0.0)
    if P.model == "one-class":
        R2 = float(P.upper[0])  # sum a = 1, 0 <= a <= U  =>  |a|^2 <= U
    else:
        R2 = float(P.n) * float(P.C) ** 2
    hmin = 1.0 if P.weights is None else float(np.min(P.weights))
    L_u = (lmax + 3.0 * (R2 / hmin) / (4.0 * P.rho)) / hmin
    return (2.0 if P.model == "svr" else 1.0) * L_u


def projected_gradient(problem, *, step="backtracking", step0=None, tol=1e-3, atol=1e-8,
                       max_iter=1000, gap_every=10, beta0=None, libsvm_tol=1e-4,
                       oracle=None, out_of_sample=None, verbose=False, checks="auto"):
    """Projected gradient ascent on luss eq. (7) (luss Algorithm 1).

    ``beta_{k+1} = P_A(beta_k + t_k grad f(beta_k))`` with the exact projection of
    :func:`~krein.projections.project_box_hyperplane`.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    step : {"backtracking", "lipschitz", "diminishing"}
        ``"diminishing"``: the paper's ``t_k = step0 / k`` (luss §3.2 used 5/k
        for IndefiniteSVM and 10/k for PerturbSVM; default ``step0 = 5``), an
        absolute step kept to reproduce the paper: it is not scale-free (on
        CoilYork's classical-scaling kernel, scale ~2e4, it runs to ``max_iter``;
        ``benchmarks/scale.py``);
        ``"lipschitz"``: ``t = 1/L`` from :func:`lipschitz_bound` (safe, often
        small); ``"backtracking"`` (default): start from ``1/lam_max(K0)``, halve
        until the sufficient-ascent condition
        ``f(b+) >= f(b) + grad'(b+ - b) - |b+ - b|^2 / (2t)`` holds (both rules
        scale-free: under ``K0 -> c K0, C -> C/c, rho -> rho/c^3`` the step follows
        ``beta ~ 1/c`` and the same iterations are made), and try a
        1.5x longer step at the next iteration.  Oracle calls per iteration:
        one for "diminishing" and "lipschitz"; one plus one per halving for
        "backtracking", whose 1.5x trial overshoots the local curvature about
        every other iteration (measured 1.4-1.7 calls per iteration at n = 2000,
        ``benchmarks/indefinite.py``).  Each halving needs ``f`` at the new trial point, a full
        oracle call; no certificate calls the oracle inside the loop.
    step0 : float, optional
        Initial / base step.
    tol, atol : float
        Relative tolerances on the certified gap: stop when
        ``gap <= max(atol * unit, tol * scale)`` with ``scale = max(|f - g(0)|,
        1/2 u'|K0| u)`` at the best point (:attr:`Certifier.scale`, module docstring).
    max_iter : int
        Maximum number of iterations.
    gap_every : int
        Iterations between libsvm gap checks (0: only the free Frank-Wolfe bound).
    beta0 : array of shape (m,), optional
        Starting point (projected onto the feasible set).
    libsvm_tol : float
        Tolerance of libsvm at the gap checks.
    oracle : ProxyKernelOracle, optional
        Reuse an eigendecomposition of ``K0`` (e.g. across C values).
    out_of_sample : {"spectral", "transductive", "clip", "raw"}, optional
        Also return the test coefficients of this out-of-sample map
        (:func:`out_of_sample_coef`) in ``Solution.coef``.
    verbose : bool
        Print one line per iteration.
    checks : {"auto", "inner", "libsvm"}
        How the gap checks solve the SVM on the proxy kernel
        (:data:`~krein.solvers.indefinite.certifier.CHECK_METHODS`): ``"auto"``
        (default) the matrix-free inner solver above ``EXACT_SVM_MAX_N`` training
        points (:meth:`Certifier.inner_bound`), libsvm at or below it.

    Returns
    -------
    Solution
        Complete (:func:`~krein.solvers.indefinite.driver.run`): ``status`` is
        ``"optimal"`` when the gap tolerance was met, ``"max_iter"`` otherwise;
        ``certificate_kind`` is ``"relative_gap"``;
        ``primal`` holds ``beta``, ``alpha`` and ``u``; ``gap`` is certified;
        ``intercept`` is the intercept (minus the offset for one-class) at
        ``beta`` and ``coef`` the test coefficients for ``out_of_sample``
        (:meth:`Certifier.solution`);
        ``trace`` has one row per iteration (``iter, objective, lower, upper, gap,
        bound, step, n_negative, seconds, gap_seconds``; ``bound`` names the source
        of the least upper bound).

    Raises
    ------
    ValueError
        Bad parameters.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the gap tolerance.
    """
    check_options(problem, tol, atol, max_iter, gap_every)
    if step not in STEP_RULES:
        raise ValueError(f"step must be one of {STEP_RULES}; got {step!r}")
    t0 = time.perf_counter()
    cert = Certifier(problem, oracle, libsvm_tol, out_of_sample, checks)
    t_setup = time.perf_counter() - t0
    P = problem
    L = lipschitz_bound(P, cert.oracle)
    if step == "diminishing":
        base = 5.0 if step0 is None else float(step0)
    elif step == "lipschitz":
        base = 1.0 / L if step0 is None else float(step0)
    else:
        lmax = max(float(cert.oracle.eigenvalues[-1]), 1e-12)
        base = (1.0 / lmax) if step0 is None else float(step0)
    if not base > 0:
        raise ValueError(f"step0 must be > 0; got {step0!r}")
    beta = start_point(P, beta0)     # validates the feasible set once (projected there)
    f, grad, ev = cert.evaluate(beta)
    state = {"beta": beta, "f": f, "grad": grad, "ev": ev, "t": base}

    def pg_step(k):
        beta, f, grad, t = state["beta"], state["f"], state["grad"], state["t"]
        if step == "diminishing":
            t = base / k
        beta_new = project_box_hyperplane(beta + t * grad, P.a, P.b0, P.upper,
                                          check=False)
        f_new, grad_new, ev_new = cert.evaluate(beta_new)
        if step == "backtracking":
            for _ in range(60):
                d = beta_new - beta
                if f_new >= f + grad @ d - (d @ d) / (2.0 * t) - 1e-12 * abs(f):
                    break
                t *= 0.5
                beta_new = project_box_hyperplane(beta + t * grad, P.a, P.b0, P.upper,
                                          check=False)
                f_new, grad_new, ev_new = cert.evaluate(beta_new)
        used = t
        if step == "backtracking":
            t *= 1.5
        state.update(beta=beta_new, f=f_new, grad=grad_new, ev=ev_new, t=t)
        cert.frank_wolfe(beta_new, f_new, grad_new)
        return Step(beta_new, f_new, ev_new,
                    {"step": used, "n_negative": ev_new.n_negative},
                    describe=lambda gap: f"pg {k:5d}  f={f_new:.8g}  gap={gap:.3g}  t={used:.3g}")

    return run(cert, "pg", pg_step, tol=tol, atol=atol, max_iter=max_iter, gap_every=gap_every,
               t0=t0, t_setup=t_setup, verbose=verbose)
