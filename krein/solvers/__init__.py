"""HOW problems are solved: :func:`solve` for any installed CVXPY solver.

``solve(formulation, solver="CLARABEL", **options) -> Solution``.  The custom
loops of later modules return the same :class:`Solution` plus a trace.
"""

from .core import Solution, SolverError, installed_solvers, solve, check_solver

__all__ = ["Solution", "SolverError", "installed_solvers", "solve", "check_solver"]
