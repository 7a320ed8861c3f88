"""HOW problems are solved: :func:`solve` for any installed CVXPY solver, and custom loops.

``solve(formulation, solver="CLARABEL", **options) -> Solution``.  The custom
loops (IndefiniteSVM: :func:`projected_gradient`, :func:`accelerated_gradient`,
:func:`accpm`, :func:`exchange`; KSVM's :func:`ksvm_active_set`; the RVM's
:func:`sparse_bayes`; the convex-hull local solvers :func:`hull_nu_svm` and
:func:`hull_multistart`; Munoz & de Diego's :func:`bending` and
:func:`conformal_fit`, :func:`alternating_projections`) return the same :class:`Solution` plus a trace.
"""

from .core import Solution, SolverError, check_solver, installed_solvers, solve
from .indefinite import Certifier, accelerated_gradient, projected_gradient
from .proxy import ProxyKernelOracle
# the functions (not the submodules of the same name) are the package attributes
from .accpm import accpm  # noqa: E402
from .exchange import exchange  # noqa: E402
from .alternating import alternating_projections, project_diagonal, project_psd  # noqa: E402
from .bending import bending  # noqa: E402
from .conformal import conformal_fit  # noqa: E402
from .hull import hull_multistart, hull_nu_svm  # noqa: E402
from .ksvm import ksvm_active_set  # noqa: E402
from .rvm import sparse_bayes  # noqa: E402

__all__ = ["Solution", "SolverError", "installed_solvers", "solve", "check_solver",
           "ProxyKernelOracle", "Certifier", "projected_gradient", "accelerated_gradient",
           "accpm", "exchange", "solve_indefinite", "INDEFINITE_ALGORITHMS",
           "ksvm_active_set", "sparse_bayes", "hull_multistart", "hull_nu_svm", "bending",
           "conformal_fit", "alternating_projections", "project_psd", "project_diagonal"]

#: Algorithms for the IndefiniteSVM problem (luss Algorithms 1-3 and FISTA).
INDEFINITE_ALGORITHMS = ("pg", "apg", "accpm", "exchange")


def solve_indefinite(problem, algorithm="pg", **options):
    """Solve a :class:`~krein.formulations.indefinite.ProxyKernelProblem` by name.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, task,
        ``C`` and ``rho``.
    algorithm : {"pg", "apg", "accpm", "exchange"}
        :func:`projected_gradient`, :func:`accelerated_gradient`,
        :func:`accpm` or :func:`exchange` (luss Algorithms 1-3 and FISTA).
    **options
        Passed to the algorithm (``tol``, ``atol``, ``max_iter``, ``gap_every``,
        ``oracle``, ...).

    Returns
    -------
    Solution
        The algorithm's solution with its certified gap.

    Raises
    ------
    ValueError
        For an unknown algorithm or an option it does not accept.
    """
    import inspect

    funcs = {"pg": projected_gradient, "apg": accelerated_gradient, "accpm": accpm,
             "exchange": exchange}
    if algorithm not in funcs:
        raise ValueError(f"algorithm must be one of {INDEFINITE_ALGORITHMS}; got {algorithm!r}")
    func = funcs[algorithm]
    accepted = [k for k in inspect.signature(func).parameters if k != "problem"]
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"unknown option(s) {bad} for algorithm {algorithm!r}; accepted: {accepted}")
    return func(problem, **options)
