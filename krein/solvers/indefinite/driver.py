"""The one iteration driver of the IndefiniteSVM loops (PG, APG, ACCPM, exchange).

Each algorithm supplies only its step: a function ``step(k)`` that moves to the
next iterate, evaluates ``f`` there through the :class:`~.certifier.Certifier`
(which records the best point and the free Frank-Wolfe bound) and returns a
:class:`Step`.  :func:`run` does the rest, the same for all four:

1. the gap check where :meth:`Certifier.check_due` says (every ``gap_every``
   iterations with libsvm's checks; with the inner checks at least ``gap_every``
   apart and as their cost allows) (:meth:`Certifier.libsvm_bound`);
2. the stopping test on the certified gap (:meth:`Certifier.converged`), or the
   algorithm's own optimality test (:attr:`Step.stationary`);
3. when the loop goes on, the algorithm's work between iterations (``after``:
   ACCPM's new cut, the exchange method's pruning and new kernel), timed with the
   iteration;
4. one trace row: ``iter, objective, lower, upper, gap, bound`` (``bound``: the
   source of the least upper bound so far, :attr:`Certifier.upper_source`: e.g.
   ``"frank-wolfe"``, ``"inner"``, ``"libsvm"``), the algorithm's own columns,
   ``seconds, gap_seconds``;
5. after the loop, the last check at the returned point
   (:meth:`Certifier.final_check`), the status (``"optimal"`` when the tolerance
   was met, ``"max_iter"`` otherwise, with a ``ConvergenceWarning``) and the
   complete :class:`~krein.solvers.Solution` (:meth:`Certifier.solution`).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...formulations.indefinite import ProxyKernelProblem
from ...projections import project_box_hyperplane
from .certifier import STATUS_MAX_ITER, STATUS_OPTIMAL

__all__ = ["Step", "run", "check_options", "start_point"]


@dataclass
class Step:
    """What one iteration of an algorithm reports to :func:`run`.

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    beta : ndarray of shape (m,)
        The iterate (feasible).
    f : float
        ``f(beta)`` (the trace column ``objective``).
    ev : ProxyEval
        The oracle record at ``beta`` (for the libsvm gap check).
    columns : dict
        The algorithm's own trace columns, in order; ``after`` may update them.
    check : tuple of (ndarray, ProxyEval), optional
        The point the libsvm gap check takes instead of ``(beta, ev)``.
    stationary : bool
        The algorithm's own optimality test holds at ``beta`` (the loop stops as
        converged).
    describe : callable, optional
        ``describe(gap) -> str``: the line printed with ``verbose`` (given the gap
        after the check).
    """

    beta: np.ndarray
    f: float
    ev: object
    columns: dict = field(default_factory=dict)
    check: tuple | None = None
    stationary: bool = False
    describe: Callable | None = None


def check_options(problem, tol, atol, max_iter, gap_every, dense_only=None):
    """Validate the options every IndefiniteSVM loop takes.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The problem.
    tol, atol : float
        Gap tolerances (finite, >= 0).
    max_iter : int
        Iteration limit (>= 1).
    gap_every : int
        Iterations between libsvm gap checks (>= 0).
    dense_only : str, optional
        ``"name: why"`` of an algorithm that needs the dense ``K0``: a low-rank
        problem (:attr:`ProxyKernelProblem.low_rank`) is refused with it.

    Raises
    ------
    TypeError
        When ``problem`` is not a :class:`ProxyKernelProblem`.
    ValueError
        For a bad option (the message names it), or a low-rank problem given to an
        algorithm that needs the dense ``K0``.
    """
    if not isinstance(problem, ProxyKernelProblem):
        raise TypeError("problem must be a krein.formulations.indefinite.ProxyKernelProblem")
    if dense_only is not None and problem.low_rank:
        raise ValueError(f"{dense_only}; a low-rank K0 runs with 'pg' or 'apg'")
    for name, v in (("tol", tol), ("atol", atol)):
        if not (isinstance(v, (int, float, np.floating)) and np.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
    if not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
        raise ValueError(f"max_iter must be an integer >= 1; got {max_iter!r}")
    if not (isinstance(gap_every, (int, np.integer)) and gap_every >= 0):
        raise ValueError(f"gap_every must be an integer >= 0 (0: never call libsvm); got {gap_every!r}")


def start_point(problem, beta0):
    """The starting point of a loop: ``beta0`` projected onto the feasible set.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The problem.
    beta0 : array of shape (m,) or None
        A given point; ``None``: :meth:`ProxyKernelProblem.initial_point`.

    Returns
    -------
    ndarray of shape (m,)
        A feasible point.

    Raises
    ------
    ValueError
        When ``beta0`` has the wrong shape.
    """
    P = problem
    if beta0 is None:
        return P.initial_point()
    beta0 = np.asarray(beta0, dtype=float)
    if beta0.shape != (P.m,):
        raise ValueError(f"beta0 must have shape ({P.m},); got {beta0.shape}")
    return project_box_hyperplane(beta0, P.a, P.b0, P.upper)


def run(cert, name, step, *, tol, atol, max_iter, gap_every, t0, t_setup, verbose=False,
        after=None, converged=False, extras=None):
    """Iterate ``step`` until the certified gap meets the tolerance or ``max_iter``.

    Parameters
    ----------
    cert : Certifier
        Bounds, best point and stopping test of the run.
    name : str
        The algorithm's name (``Solution.solver``, the verbose lines).
    step : callable
        ``step(k) -> Step`` for ``k = 1, 2, ...``: the algorithm's iteration.
    tol, atol : float
        Gap tolerances (:meth:`Certifier.converged`).
    max_iter : int
        Iteration limit.
    gap_every : int
        Iterations between libsvm gap checks (0: none).
    t0 : float
        ``time.perf_counter()`` at the start of the call (setup included).
    t_setup : float
        Seconds of setup.
    verbose : bool
        Print one line per iteration.
    after : callable, optional
        ``after(k, columns)``: the algorithm's work between iterations, called when
        the loop goes on; may update the trace columns of iteration ``k``.
    converged : bool
        Already converged before the first iteration (no iteration is run).
    extras : callable, optional
        ``extras() -> (dual, certificate)``: the algorithm's dual values and own
        certificate entries, asked once after the loop.

    Returns
    -------
    Solution
        Complete (:meth:`Certifier.solution`); status ``"optimal"`` or ``"max_iter"``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` is reached before the gap tolerance.
    """
    trace = []
    last_checked = None
    k = 0
    for k in range(1, 0 if converged else max_iter + 1):
        it0 = time.perf_counter()
        s = step(k)
        it_s = time.perf_counter() - it0
        g0 = time.perf_counter()
        if cert.check_due(k, gap_every):
            point, ev = s.check if s.check is not None else (s.beta, s.ev)
            cert.libsvm_bound(point, ev)
            last_checked = point
        gap_s = time.perf_counter() - g0
        done = cert.converged(tol, atol) or s.stationary
        if not done and after is not None:
            t1 = time.perf_counter()
            after(k, s.columns)
            it_s += time.perf_counter() - t1
        trace.append({"iter": k, "objective": s.f, "lower": cert.lower, "upper": cert.upper,
                      "gap": cert.gap, "bound": cert.upper_source, **s.columns, "seconds": it_s, "gap_seconds": gap_s})
        if verbose:
            print(s.describe(cert.gap) if s.describe is not None
                  else f"{name} {k:5d}  f={s.f:.8g}  gap={cert.gap:.3g}")
        if done:
            converged = True
            break
    if gap_every:
        cert.final_check(last_checked, converged)
    if not converged:
        warnings.warn(f"{name} stopped at max_iter={max_iter} with gap {cert.gap:.3g} "
                      f"(relative {cert.relative_gap:.3g})", ConvergenceWarning,
                      stacklevel=3)
    dual, own = extras() if extras is not None else (None, None)
    return cert.solution(name, STATUS_OPTIMAL if converged else STATUS_MAX_ITER, k, trace,
                         t_setup, time.perf_counter() - t0, dual=dual, certificate=own)
