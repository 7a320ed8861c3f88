"""HOW problems are solved: one table of every solver, one dispatch, custom loops.

``solve_problem(problem, solver, **options) -> Solution`` dispatches any problem to
any entry of :data:`SOLVERS` (:mod:`krein.solvers.table`), THE table of every way of
solving -- libsvm, liblinear, each CVXPY solver, each custom loop -- with the problem
classes and install hint of each: a CVXPY formulation to a CVXPY solver
(:func:`solve`, ``solve(formulation, solver="CLARABEL", **options)``), a
``ProxyKernelProblem`` to the IndefiniteSVM loops (:func:`projected_gradient`,
:func:`accelerated_gradient`, :func:`accpm`, :func:`exchange`), the problems of
:mod:`krein.formulations.problems` to KSVM's :func:`ksvm_active_set`, the RVM's
:func:`sparse_bayes`, the convex-hull local solvers :func:`hull_nu_svm` and
:func:`hull_multistart`, Munoz & de Diego's :func:`bending`, :func:`conformal_fit`,
:func:`alternating_projections`, :func:`nearest_psd_newton`, IKSVM-DC's DCA, through
the thin adapters of :mod:`krein.solvers.adapters`.  Every one returns a
:class:`Solution` (the custom loops with a trace).  :func:`resolve_solver` is the one
check of a solver name; :func:`solver_capabilities` (``krein solvers``) is generated
from the table.

:data:`INDEFINITE_SOLVERS` is the IndefiniteSVM part of the table (name -> callable;
:func:`solve_indefinite` and the estimators validate options on it); their solutions
carry the intercept and the out-of-sample test coefficients, so an estimator only
stores them.
"""

from .core import (CERTIFICATE_KINDS, STATUSES, Solution, SolverError, check_solver,
                   installed_solvers, solve, solve_problem)
from .table import (PROBLEM_CLASSES, SOLVERS, SolverEntry, SolverName, resolve_comparison_solver,
                    resolve_solver, solver_capabilities, solver_names)
from .indefinite import (Certifier, ProxyKernelOracle, accelerated_gradient, accpm, exchange,
                         projected_gradient)
from .alternating import alternating_projections, project_diagonal, project_psd  # noqa: E402
from .psd_newton import nearest_psd_newton  # noqa: E402
from .bending import bending  # noqa: E402
from .conformal import conformal_fit  # noqa: E402
from .hull import hull_multistart, hull_nu_svm  # noqa: E402
from .ksvm import ksvm_active_set  # noqa: E402
from .rvm import sparse_bayes  # noqa: E402

__all__ = ["Solution", "SolverError", "installed_solvers", "solver_capabilities", "solve",
           "solve_problem",
           "check_solver", "CERTIFICATE_KINDS", "STATUSES", "SOLVERS", "SolverEntry", "SolverName",
           "PROBLEM_CLASSES", "resolve_solver", "resolve_comparison_solver", "solver_names",
           "ProxyKernelOracle", "Certifier", "projected_gradient", "accelerated_gradient",
           "accpm", "exchange", "solve_indefinite", "INDEFINITE_SOLVERS", "INDEFINITE_ALGORITHMS",
           "indefinite_options",
           "ksvm_active_set", "sparse_bayes", "hull_multistart", "hull_nu_svm", "bending",
           "conformal_fit", "alternating_projections", "project_psd", "project_diagonal",
           "nearest_psd_newton"]

#: The algorithms for the IndefiniteSVM problem (luss Algorithms 1-3 and FISTA), by name:
#: the ``"proxy-kernel"`` entries of :data:`SOLVERS`, as a view (name -> callable) that
#: :func:`solve_indefinite` and the estimators of :mod:`krein.estimators.indefinite`
#: validate and dispatch on.
INDEFINITE_SOLVERS = {name: SOLVERS[name].function
                      for name in solver_names(problem_class="proxy-kernel")}

#: Names of :data:`INDEFINITE_SOLVERS`, in order.
INDEFINITE_ALGORITHMS = tuple(INDEFINITE_SOLVERS)


def indefinite_options(solver):
    """Keyword options accepted by an IndefiniteSVM solver (its signature, less ``problem``).

    Parameters
    ----------
    solver : {"pg", "apg", "accpm", "exchange"}
        A key of :data:`INDEFINITE_SOLVERS`.

    Returns
    -------
    list of str
        The names of the keyword options, in signature order.

    Raises
    ------
    ValueError
        For an unknown solver.
    """
    import inspect

    if solver not in INDEFINITE_SOLVERS:
        raise ValueError(f"solver must be one of {INDEFINITE_ALGORITHMS}; got {solver!r}")
    return [k for k in inspect.signature(INDEFINITE_SOLVERS[solver]).parameters if k != "problem"]


def solve_indefinite(problem, solver="pg", **options):
    """Solve a :class:`~krein.formulations.indefinite.ProxyKernelProblem` by name.

    Parameters
    ----------
    problem : ProxyKernelProblem
        The IndefiniteSVM problem (luss eq. 7): kernel ``K0``, labels, task,
        ``C`` and ``rho``.
    solver : {"pg", "apg", "accpm", "exchange"}
        A key of :data:`INDEFINITE_SOLVERS`: projected gradient (luss Algorithm 1),
        accelerated projected gradient (FISTA), ACCPM (Algorithm 2) or the
        exchange method (Algorithm 3).
    **options
        Passed to the solver (``tol``, ``atol``, ``max_iter``, ``gap_every``,
        ``oracle``, ``out_of_sample``, ...).

    Returns
    -------
    Solution
        With the intercept (and, given ``out_of_sample``, the test coefficients)
        of the decision function at the returned point.

    Raises
    ------
    ValueError
        For an unknown solver or option.
    """
    accepted = indefinite_options(solver)
    bad = sorted(set(options) - set(accepted))
    if bad:
        raise ValueError(f"unknown option(s) {bad} for solver {solver!r}; accepted: {accepted}")
    return solve_problem(problem, solver, **options)
