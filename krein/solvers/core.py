"""The solver contract: :class:`Solution`, :class:`SolverError` and the dispatch.

``solve_problem(problem, solver, **options) -> Solution`` calls any entry of the solver
table (:data:`krein.solvers.table.SOLVERS`) on a problem of a class it solves;
``solve(formulation, solver=..., **options) -> Solution`` is its CVXPY entry, over any
installed CVXPY solver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

from .table import SOLVERS, installed_solvers, resolve_solver

__all__ = ["Solution", "SolverError", "CERTIFICATE_KINDS", "STATUSES", "installed_solvers", "solve",
           "check_solver", "solve_problem"]

#: What a solution's one-number certificate measures: ``Solution.certificate_kind`` is a
#: key, ``Solution.certificate[kind]`` the number, the value the words shown in tables.
CERTIFICATE_KINDS = {"relative_gap": "relative duality gap", "kkt_residual": "KKT residual",
                     "fw_gap": "stationarity (Frank-Wolfe gap)", "gap": "duality gap",
                     "residual": "KKT residual", "max_abs_gradient": "gradient",
                     "grad_norm": "gradient norm"}

#: The one set of statuses: every :class:`Solution` has one of these (``Solution``
#: rejects others), and :class:`SolverError` carries one (or CVXPY's own status).
STATUSES = {
    "optimal": "optimal to the solver's tolerance (CVXPY; a convex custom loop's certificate met)",
    "optimal_inaccurate": "CVXPY's optimal to a reduced accuracy (the exchange method's "
                          "subproblems)",
    "converged": "the loop's stopping test met (a point, not a proven optimum: libsvm, "
                 "liblinear, RVM, bending, the nearest-PSD loops, conformal fits)",
    "stationary": "a certified stationary point of a non-convex problem (the hull's loops)",
    "max_iter": "stopped at max_iter before the stopping test (ConvergenceWarning)",
    "stalled": "no further progress possible before the stopping test (KSVM's active set)",
    "abnormal": "the optimizer reported an abnormal end (scipy's L-BFGS-B, conformal fits)",
    "diverged": "non-finite iterates (SolverError only)",
    "failed": "a sub-step failed (SolverError only)",
    "solver_error": "the solver raised (SolverError only)",
}

#: CVXPY statuses accepted as a solution.
_OK = {cp.OPTIMAL}


class SolverError(RuntimeError):
    """A solver ended with a status other than optimal, or failed outright.

    Parameters
    ----------
    message : str
        The error message.
    solver : str, optional
        Name of the solver that failed.
    status : str, optional
        The status it ended with.
    size : dict, optional
        Numbers of variables and constraints of the problem.

    Attributes
    ----------
    solver : str
        Name of the solver that failed.
    status : str
        The status it ended with.
    size : dict
        Numbers of variables and constraints of the problem.
    """

    def __init__(self, message, solver=None, status=None, size=None):
        super().__init__(message)
        self.solver = solver
        self.status = status
        self.size = size or {}


@dataclass
class Solution:
    """The result of a solve, with an optimality certificate computed by krein.

    The fields are the constructor's parameters and the attributes.

    Parameters
    ----------
    solver : str
        Name of the CVXPY solver or custom loop that produced the point.
    status : str
        A key of :data:`STATUSES` (``ValueError`` otherwise).
    objective : float
        Objective value reported for the returned point.
    primal : dict[str, ndarray]
        Variable values by name.
    dual : dict[str, ndarray]
        Dual values of the formulation's named constraints.
    setup_time, solve_time : float
        Seconds spent compiling/setting up and inside the solver.
    iterations : int or None
        Iterations reported by the solver (None when it reports none).
    primal_residual, dual_residual, gap : float
        Computed by the formulation's :meth:`~krein.formulations.Formulation.certificate`
        from the returned point (NaN where undefined).
    certificate : dict
        Everything the certificate returned (may include primal/dual objectives).
    trace : pandas.DataFrame or None
        Per-iteration records of custom loops.
    intercept : float or None
        For solvers of a model with a decision function (the IndefiniteSVM
        loops): its intercept at the returned point, the multiplier of the
        equality constraint (SVM / SVR intercept ``b``, minus the one-class
        offset); ``None`` otherwise.
    coef : ndarray of shape (n,) or None
        For the same solvers, when asked for an out-of-sample map: the
        coefficients applied to the raw kernel rows ``k(x, X)`` of new points
        (the map folded in); ``None`` otherwise.
    certificate_kind : str
        What the solution's one-number certificate measures, a key of
        :data:`CERTIFICATE_KINDS` (``""``: none); the number is
        ``certificate[certificate_kind]``.  Set by the solver that made the
        point: nobody re-derives it from the certificate's keys.
    """

    solver: str
    status: str
    objective: float
    primal: dict
    dual: dict
    setup_time: float
    solve_time: float
    iterations: int | None
    primal_residual: float
    dual_residual: float
    gap: float
    certificate: dict = field(default_factory=dict)
    trace: object = None
    intercept: float | None = None
    coef: object = None
    certificate_kind: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"Solution status must be one of {sorted(STATUSES)} "
                             f"(krein.solvers.core.STATUSES); got {self.status!r}")
        if self.certificate_kind and self.certificate_kind not in CERTIFICATE_KINDS:
            raise ValueError(f"Solution certificate_kind must be '' or one of "
                             f"{sorted(CERTIFICATE_KINDS)}; got {self.certificate_kind!r}")


def check_solver(solver):
    """Normalize a CVXPY solver name and check that it is installed.

    The CVXPY part of :func:`krein.solvers.table.resolve_solver` (the one resolution).

    Parameters
    ----------
    solver : str
        Case-insensitive CVXPY solver name.

    Returns
    -------
    str
        The upper-case name.

    Raises
    ------
    ValueError
        For a non-string, unknown or missing solver; the message lists the installed
        solvers and how to install the requested one.
    """
    return resolve_solver(solver, (), cvxpy=True)


def solve(formulation, solver="CLARABEL", *, verbose=False, warm_start=False,
          certificate_kind=None, **options):
    """Solve a formulation with any installed CVXPY solver.

    Parameters
    ----------
    formulation : krein.formulations.Formulation
        The problem to solve (built once, re-solvable after ``set``).
    solver : str
        A name from :func:`installed_solvers` (case-insensitive), e.g. "CLARABEL",
        "SCS", "ECOS", "OSQP".
    verbose : bool
        Passed to CVXPY.
    warm_start : bool
        Passed to CVXPY (used by re-solves with new parameter values).
    certificate_kind : str, optional
        What the formulation's certificate measures as one number, a key of
        :data:`CERTIFICATE_KINDS`; default the formulation's ``certificate_kind``
        (``"gap"`` for the base class).
    **options
        Solver-specific options passed through (e.g. ``eps_abs`` for SCS).

    Returns
    -------
    Solution
        With residuals and gap from ``formulation.certificate()``.

    Raises
    ------
    ValueError
        Unknown or missing solver, a solver that cannot handle this problem class
        (CVXPY cannot build a reduction chain to it: ``problem.get_problem_data``
        fails), or an option the solver does not take (the solve raised a
        ``TypeError`` that goes away without the options).
    SolverError
        When the solver fails or ends with a status other than optimal; nothing
        is returned in that case.
    """
    name = check_solver(solver)
    kind = certificate_kind if certificate_kind is not None else \
        getattr(formulation, "certificate_kind", "gap")
    problem = formulation.problem
    t0 = time.perf_counter()
    try:
        problem.solve(solver=name, verbose=verbose, warm_start=warm_start, **options)
    except cp.error.SolverError as exc:
        if not _chain_exists(problem, name):
            raise ValueError(
                f"solver {name} cannot solve {formulation.name} "
                f"({formulation.problem_class}): {exc}"
            ) from exc
        raise SolverError(
            f"solver {name} failed on {formulation.name} {formulation.size}: {exc}",
            solver=name, status="solver_error", size=formulation.size,
        ) from exc
    except TypeError as exc:
        if options and _solves_without_options(problem, name):
            raise ValueError(f"bad option for solver {name} (options "
                             f"{sorted(options)}): {exc}") from exc
        raise SolverError(
            f"solver {name} raised TypeError on {formulation.name} {formulation.size}: {exc}",
            solver=name, status="solver_error", size=formulation.size,
        ) from exc
    wall = time.perf_counter() - t0
    status = problem.status
    if status not in _OK:
        raise SolverError(
            f"solver {name} ended with status {status!r} on {formulation.name} "
            f"{formulation.size}",
            solver=name, status=status, size=formulation.size,
        )
    stats = problem.solver_stats
    solve_time = float(stats.solve_time) if stats and stats.solve_time is not None else float("nan")
    setup_time = wall - solve_time if np.isfinite(solve_time) else wall
    cert = formulation.certificate()
    return Solution(
        solver=name,
        status=status,
        objective=float(problem.value),
        primal=formulation.values(),
        dual=formulation.dual_values(),
        setup_time=float(setup_time),
        solve_time=solve_time,
        iterations=None if stats is None or stats.num_iters is None else int(stats.num_iters),
        primal_residual=float(cert.get("primal_residual", float("nan"))),
        dual_residual=float(cert.get("dual_residual", float("nan"))),
        gap=float(cert.get("gap", float("nan"))),
        certificate=cert,
        certificate_kind=kind,
    )


def solve_problem(problem, solver, **options):
    """Solve a problem with a solver of the table, by name: THE dispatch.

    ``solver`` is resolved by :func:`~krein.solvers.table.resolve_solver` (any entry of
    :data:`~krein.solvers.table.SOLVERS`,
    CVXPY's installed solvers in any case); the entry must solve the problem's class
    (``problem.problem_class``, a key of
    :data:`~krein.solvers.table.PROBLEM_CLASSES`); it is then called through its adapter
    (:attr:`~krein.solvers.table.SolverEntry.dispatch`) with ``options``.

    Parameters
    ----------
    problem : object
        A :class:`~krein.formulations.Formulation` (for a CVXPY solver), a
        :class:`~krein.formulations.indefinite.ProxyKernelProblem` (the IndefiniteSVM
        loops) or a problem of :mod:`krein.formulations.problems`.
    solver : str
        A name of :data:`~krein.solvers.table.SOLVERS` (``"libsvm"``, ``"pg"``, ``"multistart"``,
        ``"CLARABEL"``...).
    **options
        The solver's keyword options.

    Returns
    -------
    Solution
        The solver's solution, as it made it.

    Raises
    ------
    ValueError
        For an unknown or uninstalled solver (as
        :func:`~krein.solvers.table.resolve_solver`), or one that
        does not solve the problem's class.
    TypeError
        For an entry whose call returns something other than a ``Solution`` (a table
        entry without its adapter).
    """
    problem_class = getattr(problem, "problem_class", None)
    own = tuple(n for n, e in SOLVERS.items() if e.backend != "cvxpy")
    name = resolve_solver(solver, own, problem_class=problem_class, approximation=True)
    entry = SOLVERS[name]
    if problem_class not in entry.problem_classes:
        raise ValueError(f"solver {name!r} solves {list(entry.problem_classes)} problems; got "
                         f"{type(problem).__name__} (problem class {problem_class!r})")
    sol = entry.dispatch(problem, **options)
    if not isinstance(sol, Solution):
        raise TypeError(f"solver {name!r} returned {type(sol).__name__}, not a Solution: its "
                        "table entry needs an adapter (krein.solvers.adapters)")
    return sol


def _chain_exists(problem, name):
    """Whether CVXPY can reduce ``problem`` to solver ``name`` (its own check, by type:
    ``get_problem_data`` raises ``cvxpy.error.SolverError`` when no chain exists)."""
    try:
        problem.get_problem_data(name)
    except cp.error.SolverError:
        return False
    return True


def _solves_without_options(problem, name):
    """Whether the solve that raised ``TypeError`` with options runs without them: then
    the options (not the solver) raised it.  Only on the error path."""
    try:
        problem.solve(solver=name)
    except TypeError:
        return False
    except Exception:    # any other end: the TypeError came with the options
        return True
    return True
