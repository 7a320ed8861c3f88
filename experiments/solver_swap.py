"""Solver swapping: every CVXPY formulation of krein x every installed solver x sizes.

The table a user reads to pick a solver for a krein formulation
(:mod:`krein.experiment.solver_study` has the formulations, the cell and the summary):
for each formulation (SVM dual and primal, LP-SVM, Mod SVM, CH-DU in its convex
case, KSVM's least squares (26), the exchange QCLP (13), the ACCPM analytic
center, PerturbSVM (22), the nearest-correlation SDP (munoz 9), CLC (munoz 15),
the joint IndefiniteSVM SDP (luss 10)) and every installed CVXPY solver, a few
sizes and seeds: status, objective, krein's own primal residual and duality gap,
setup (CVXPY compilation) and solve seconds.  A solver that does not accept a
problem class gives a row with status ``unsupported`` (left out of the
summary).  Solvers run with their default options.

``krein experiment table --script experiments/solver_swap.py`` prints the summary: per
formulation and solver the
success rate and shifted geometric means (qpbenchmark convention; time relative
to the fastest solver of the formulation, residuals absolute);
``krein experiment plot --script experiments/solver_swap.py`` draws
``solver_swap_times.png`` (solve time vs n, one
panel per formulation, one line per solver).

Sizes: n = 50, 100, 200, 400 (SDPs: 10, 20, 40), 2 seeds.  ``--quick``: n = 10
and 20, SDPs n = 8, one seed.  More solvers: ``pip install "krein[solvers]"``.
"""

from krein.experiment import Experiment, cartesian

#: Solvers CVXPY lists that are not continuous-optimization solvers for this study.
EXCLUDED = ("ECOS_BB", "GLPK_MI", "CBC", "SCIP", "GUROBI", "MOSEK", "CPLEX", "XPRESS", "COPT")


def solve_one(params):
    """One (formulation, solver, n, problem) cell; columns of :func:`krein.experiment.solver_study.solve_cell`."""
    from krein.experiment import solver_version
    from krein.experiment.solver_study import solve_cell

    row = solve_cell(params["formulation"], params["solver"], params["n"], params["problem"])
    out = {k: v for k, v in row.items() if k not in ("formulation", "solver", "n", "seed",
                                                      "status", "error")}
    out["solver_status"] = row["status"]
    out["solver_error"] = row["error"][:300]
    out["solver_version"] = solver_version(params["solver"])
    return out


def _as_cells(results):
    df = results.rename(columns={"solver_status": "status_", "solver_error": "error_"})
    df = df.drop(columns=[c for c in ("status", "error", "seed") if c in df.columns])
    return df.rename(columns={"status_": "status", "error_": "error", "problem": "seed"})


def solver_table(results):
    """Summary table from the results (see :func:`krein.experiment.solver_study.summarize`)."""
    from krein.experiment.solver_study import summarize

    s = summarize(_as_cells(results[results["status"] == "ok"]))
    cols = ["formulation", "solver", "problem_class", "cells", "success_rate", "time_shgeom",
            "median_seconds", "primal_residual_shgeom", "gap_shgeom", "objective_error"]
    return s[cols].round({"success_rate": 2, "time_shgeom": 2, "median_seconds": 4})


def solver_figures(results, out_dir):
    """Solve time vs n per solver, one panel per formulation."""
    from pathlib import Path

    from krein.experiment.solver_study import plot_times

    return [plot_times(_as_cells(results[results["status"] == "ok"]),
                       Path(out_dir) / "solver_swap_times.png")]


def experiment(quick=False):
    """The study's grid (module docstring); ``quick``: tiny sizes, one seed."""
    from krein.experiment.solver_study import FORMULATIONS, SDP_FORMULATIONS
    from krein.solvers import installed_solvers

    solvers = sorted(s for s in installed_solvers() if s not in EXCLUDED)
    problems = [0] if quick else [0, 1]
    dense = [f for f in FORMULATIONS if f not in SDP_FORMULATIONS]
    sdp = [f for f in FORMULATIONS if f in SDP_FORMULATIONS]
    grid = (cartesian(formulation=dense, solver=solvers, n=[10, 20] if quick else [50, 100, 200, 400],
                      problem=problems)
            + cartesian(formulation=sdp, solver=solvers, n=[8] if quick else [10, 20, 40],
                        problem=problems))
    return Experiment("solver_swap", grid, cell=solve_one, random_state=0,
                      description="every CVXPY formulation x every installed solver x sizes "
                                  "(success rate, shifted geometric means)",
                      table=solver_table, figures=solver_figures)
