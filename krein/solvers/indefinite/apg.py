"""Accelerated projected gradient (FISTA) for IndefiniteSVM.

The step of :func:`accelerated_gradient`; the iteration tail (gap checks, stopping
test, trace, status) is :func:`krein.solvers.indefinite.driver.run`.
"""

from __future__ import annotations

import time

import numpy as np

from ...projections import project_box_hyperplane
from .certifier import Certifier
from .driver import Step, check_options, run, start_point

__all__ = ["accelerated_gradient"]


def accelerated_gradient(problem, *, step0=None, tol=1e-3, atol=1e-8, max_iter=1000,
                         gap_every=10, beta0=None, libsvm_tol=1e-4, oracle=None, restart=True,
                         out_of_sample=None, verbose=False, checks="auto"):
    """Accelerated projected gradient (FISTA, Beck & Teboulle 2009) on luss eq. (7).

    ``grad f`` is Lipschitz (:func:`~krein.solvers.indefinite.pg.lipschitz_bound`), so Nesterov's method
    applies: extrapolate ``w = beta_k + (theta_{k-1} - 1)/theta_k (beta_k - beta_{k-1})``,
    take a projected step from ``w`` with backtracking on the sufficient-ascent
    condition, and restart the momentum when ``f`` decreases (O'Donoghue &
    Candes 2015 function-value restart).  After a restart the step may grow again
    (x1.5), since the local curvature is usually far below the global bound.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, model,
        ``C`` and ``rho``.
    step0 : float, optional
        Initial step (default ``1 / lam_max(K0)``).
    tol, atol : float
        Relative tolerances on the certified gap (as in
        :func:`~krein.solvers.indefinite.pg.projected_gradient`).
    max_iter : int
        Maximum number of iterations.
    gap_every : int
        Iterations between libsvm gap checks (0: only the free Frank-Wolfe bound).
    beta0 : array of shape (m,), optional
        Starting point (projected onto the feasible set).
    libsvm_tol : float
        Tolerance of libsvm at the gap checks.
    oracle : ProxyKernelOracle, optional
        Reuse an eigendecomposition of ``K0``.
    restart : bool
        Adaptive restart (recommended).
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
        As :func:`~krein.solvers.indefinite.pg.projected_gradient` (status
        ``"optimal"`` or ``"max_iter"``); the trace adds ``restart``.

    Raises
    ------
    ValueError
        Bad parameters (e.g. ``step0 <= 0``).

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the gap tolerance.
    """
    check_options(problem, tol, atol, max_iter, gap_every)
    t0 = time.perf_counter()
    cert = Certifier(problem, oracle, libsvm_tol, out_of_sample, checks)
    t_setup = time.perf_counter() - t0
    P = problem
    lmax = max(float(cert.oracle.eigenvalues[-1]), 1e-12)
    t = (1.0 / lmax) if step0 is None else float(step0)
    if not t > 0:
        raise ValueError(f"step0 must be > 0; got {step0!r}")
    beta = start_point(P, beta0)     # validates the feasible set once (projected there)
    f, grad, ev = cert.evaluate(beta)
    # the iterate, the extrapolated point w and the momentum, carried between steps
    state = {"beta": beta, "f": f, "grad": grad, "t": t, "theta": 1.0,
             "w": beta, "fw": f, "gw": grad}

    def apg_step(k):
        t, theta, f = state["t"], state["theta"], state["f"]
        w, fw, gw = state["w"], state["fw"], state["gw"]
        for _ in range(60):
            beta_new = project_box_hyperplane(w + t * gw, P.a, P.b0, P.upper, check=False)
            f_new, grad_new, ev_new = cert.evaluate(beta_new)
            d = beta_new - w
            if f_new >= fw + gw @ d - (d @ d) / (2.0 * t) - 1e-12 * abs(fw):
                break
            t *= 0.5
        used = t
        restarted = False
        if restart and f_new < f:
            # momentum overshoot: restart from the better of the two points
            theta = 1.0
            restarted = True
            t *= 1.5
        theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
        mom = (theta - 1.0) / theta_new
        beta_prev, beta = state["beta"], beta_new
        if restarted:
            w, fw, gw = beta, f_new, grad_new
        elif mom > 0:
            # the extrapolated point may leave A; f is defined everywhere (not recorded)
            w = beta + mom * (beta - beta_prev)
            fw, gw, _ = cert.evaluate(w, record=False)
        else:
            w, fw, gw = beta, f_new, grad_new
        state.update(beta=beta, f=f_new, grad=grad_new, t=t, theta=theta_new, w=w, fw=fw,
                     gw=gw)
        cert.frank_wolfe(beta, f_new, grad_new)
        return Step(beta, f_new, ev_new,
                    {"step": used, "n_negative": ev_new.n_negative, "restart": restarted},
                    describe=lambda gap: f"apg {k:5d}  f={f_new:.8g}  gap={gap:.3g}  t={used:.3g}")

    return run(cert, "apg", apg_step, tol=tol, atol=atol, max_iter=max_iter,
               gap_every=gap_every, t0=t0, t_setup=t_setup, verbose=verbose)
