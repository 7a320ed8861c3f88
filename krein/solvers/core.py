"""``solve(formulation, solver=..., **options) -> Solution`` over any installed CVXPY solver."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

__all__ = ["Solution", "SolverError", "CERTIFICATE_KINDS", "installed_solvers", "solver_capabilities", "solve",
           "check_solver"]

#: How to install solvers that are not there by default.
_INSTALL_HINT = {
    "ECOS": "pip install ecos",
    "OSQP": "pip install osqp",
    "SCS": "pip install scs",
    "CLARABEL": "pip install clarabel",
    "MOSEK": "pip install mosek (licence needed)",
    "GUROBI": "pip install gurobipy (licence needed)",
    "HIGHS": "pip install highspy",
    "PIQP": "pip install piqp",
    "PROXQP": "pip install proxsuite",
    "CVXOPT": "pip install cvxopt",
}

#: What a solution's one-number certificate measures: ``Solution.certificate_kind`` is a
#: key, ``Solution.certificate[kind]`` the number, the value the words shown in tables.
CERTIFICATE_KINDS = {"relative_gap": "relative duality gap", "kkt_residual": "KKT residual",
                     "fw_gap": "stationarity (Frank-Wolfe gap)", "gap": "duality gap",
                     "residual": "KKT residual", "max_abs_gradient": "gradient"}

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
        CVXPY status (``"optimal"``) or a custom loop's.
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


def installed_solvers():
    """Names of the CVXPY solvers installed here (``cvxpy.installed_solvers()``).

    Returns
    -------
    list of str
        Solver names in CVXPY's spelling (upper case).
    """
    return list(cp.installed_solvers())


def solver_capabilities():
    """Problem classes each installed CVXPY solver accepts, plus the libsvm pseudo-solver.

    Read from CVXPY: ``QP_SOLVERS`` (native quadratic objective), and for conic
    solvers their ``SUPPORTED_CONSTRAINTS`` (``NonNeg`` -> LP, ``SOC`` -> SOCP,
    ``PSD``/``SvecPSD`` -> SDP, ``ExpCone``) and ``MIP_CAPABLE``.  A conic solver
    without a native quadratic objective still takes QPs (CVXPY rewrites them as
    SOCPs) when it supports ``SOC``.  (``krein solvers`` prints this table.)

    Returns
    -------
    list of dict
        One per solver of :func:`installed_solvers`, then ``libsvm``: ``name``,
        ``LP``, ``QP``, ``SOCP``, ``SDP``, ``EXP``, ``MIP`` (each ``"yes"``,
        ``"via SOCP"``, ``"SVM dual only"`` or ``"-"``) and ``notes``.
    """
    from cvxpy.reductions.solvers import defines

    rows = []
    for name in cp.installed_solvers():
        conic = defines.SOLVER_MAP_CONIC.get(name)
        qp = defines.SOLVER_MAP_QP.get(name)
        cons = {c.__name__ for c in getattr(conic, "SUPPORTED_CONSTRAINTS", [])} if conic else set()
        quad = bool(qp) or bool(conic and getattr(conic, "supports_quad_obj", lambda: False)())
        mip = any(getattr(s, "MIP_CAPABLE", False) for s in (conic, qp) if s is not None)
        rows.append({
            "name": name,
            "LP": "yes" if (qp or "NonNeg" in cons) else "-",
            "QP": "yes" if quad else ("via SOCP" if "SOC" in cons else "-"),
            "SOCP": "yes" if "SOC" in cons else "-",
            "SDP": "yes" if cons & {"PSD", "SvecPSD"} else "-",
            "EXP": "yes" if "ExpCone" in cons else "-",
            "MIP": "yes" if mip else "-",
            "notes": "",
        })
    rows.append({"name": "libsvm", "LP": "-", "QP": "SVM dual only", "SOCP": "-", "SDP": "-",
                 "EXP": "-", "MIP": "-",
                 "notes": "pseudo-solver: scikit-learn's SVC (SMO) on a precomputed kernel; the "
                          "default of esvm/flip/clip/shift/square..., not for lp-svm"})
    return rows


def check_solver(solver):
    """Normalize a CVXPY solver name and check that it is installed.

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
    if not isinstance(solver, str):
        raise ValueError(f"solver must be a CVXPY solver name (str); got {solver!r}")
    name = solver.upper()
    inst = installed_solvers()
    if name not in inst:
        hint = _INSTALL_HINT.get(name, f"pip install cvxpy[{name}] or see the CVXPY solver docs")
        raise ValueError(
            f"solver {solver!r} is not installed; installed CVXPY solvers: {inst}. "
            f"To add it: {hint}"
        )
    return name


def solve(formulation, solver="CLARABEL", *, verbose=False, warm_start=False, **options):
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
    **options
        Solver-specific options passed through (e.g. ``eps_abs`` for SCS).

    Returns
    -------
    Solution
        With residuals and gap from ``formulation.certificate()``.

    Raises
    ------
    ValueError
        Unknown or missing solver, or a solver that cannot handle this problem
        class (e.g. a QP given to an LP-only solver).
    SolverError
        When the solver fails or ends with a status other than optimal; nothing
        is returned in that case.
    """
    name = check_solver(solver)
    problem = formulation.problem
    t0 = time.perf_counter()
    try:
        problem.solve(solver=name, verbose=verbose, warm_start=warm_start, **options)
    except cp.error.SolverError as exc:
        msg = str(exc)
        if "support" in msg or "cannot" in msg.lower():
            raise ValueError(
                f"solver {name} cannot solve {formulation.name} "
                f"({formulation.problem_class}): {msg}"
            ) from exc
        raise SolverError(
            f"solver {name} failed on {formulation.name} {formulation.size}: {msg}",
            solver=name, status="solver_error", size=formulation.size,
        ) from exc
    except TypeError as exc:  # unknown solver option
        raise ValueError(f"bad option for solver {name}: {exc}") from exc
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
    )
