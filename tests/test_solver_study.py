"""The solver-swapping study (krein.experiment.solver_study): formulations, cells and summaries."""

import numpy as np
import pandas as pd
import pytest

from krein.experiment.solver_study import (FORMULATIONS, make_formulation, plot_times,
                                shifted_geometric_mean, solve_cell, summarize)
from krein.solvers import installed_solvers

CONIC = {"exchange-qclp", "analytic-center", "perturb-svm", "nearest-psd-sdp", "indefinite-svm-sdp"}


@pytest.mark.parametrize("name", sorted(FORMULATIONS))
def test_every_formulation_gives_one_optimum_across_two_solvers(name):
    """Two solvers on the same random problem: both succeed and agree on the objective
    (Clarabel against SCS for the conic problems, against OSQP / HiGHS otherwise)."""
    other = "SCS" if name in CONIC else ("HIGHS" if name == "lp-svm" else "OSQP")
    rows = [solve_cell(name, s, 12, random_state=3) for s in ("SCS" if name == "indefinite-svm-sdp"
                                                       else "CLARABEL", other)]
    for r in rows:
        assert r["status"] in ("optimal", "optimal_inaccurate"), r
        assert r["problem_class"]
        assert np.isfinite(r["objective"])
        assert r["primal_residual"] <= 1e-4 * max(1.0, abs(r["objective"]))
    a, b = rows[0]["objective"], rows[1]["objective"]
    assert abs(a - b) <= 1e-3 * max(1.0, abs(a))


def test_same_seed_same_problem_and_bad_input():
    f1, f2 = make_formulation("lp-svm", 10, 5), make_formulation("lp-svm", 10, 5)
    assert np.array_equal(f1.K, f2.K)
    assert not np.array_equal(f1.K, make_formulation("lp-svm", 10, 6).K)
    with pytest.raises(ValueError, match="unknown formulation"):
        make_formulation("nope", 10)
    with pytest.raises(ValueError, match="n must be"):
        make_formulation("lp-svm", 2)


def test_unsupported_and_missing_solvers_are_rows_not_crashes():
    r = solve_cell("perturb-svm", "OSQP", 8)          # SOCP given to a QP solver
    assert r["status"] == "unsupported" and "OSQP" in r["error"]
    assert "NOT_A_SOLVER" not in installed_solvers()
    assert solve_cell("lp-svm", "NOT_A_SOLVER", 8)["status"] == "not-installed"


def test_shifted_geometric_mean():
    # (1 + 1)(3 + 1) = 8 -> sqrt(8) - 1
    assert shifted_geometric_mean([1.0, 3.0], 1.0) == pytest.approx(np.sqrt(8.0) - 1.0)
    assert shifted_geometric_mean([2.0, 2.0, 2.0], 0.5) == pytest.approx(2.0)
    assert np.isnan(shifted_geometric_mean([], 1.0))
    with pytest.raises(ValueError):
        shifted_geometric_mean([-1.0], 1.0)
    with pytest.raises(ValueError):
        shifted_geometric_mean([1.0], 0.0)


def _row(solver, status, seconds, n=10, objective=1.0, residual=1e-9, gap=1e-9):
    return {"formulation": "f", "problem_class": "QP", "n": n, "seed": 0, "solver": solver,
            "status": status, "objective": objective, "primal_residual": residual,
            "dual_residual": np.nan, "gap": gap, "setup_seconds": 0.0, "solve_seconds": seconds,
            "iterations": 1, "error": ""}


def test_summary_success_rates_penalties_and_normalization():
    rows = [_row("A", "optimal", 0.01, n=10), _row("A", "optimal", 0.02, n=20),
            _row("B", "optimal", 0.04, n=10, objective=1.1), _row("B", "solver_error", np.nan, n=20),
            _row("C", "unsupported", np.nan, n=10)]
    s = summarize(pd.DataFrame(rows)).set_index("solver")
    assert "C" not in s.index                                   # unsupported cells left out
    assert s.loc["A", "success_rate"] == 1.0 and s.loc["B", "success_rate"] == 0.5
    assert s.loc["A", "time_shgeom"] == 1.0                     # the fastest
    # B: 0.04 s and the failure at 10 x the slowest success of its problem (0.02 s)
    sh = 0.010
    tb = np.exp(np.mean(np.log(np.array([0.04, 0.2]) + sh))) - sh
    ta = np.exp(np.mean(np.log(np.array([0.01, 0.02]) + sh))) - sh
    assert s.loc["B", "time_shgeom"] == pytest.approx(tb / ta)
    # objective error against the median objective of the successful solvers (1.05 at n=10)
    assert s.loc["B", "objective_error"] == pytest.approx(0.05 / 1.05)
    # the failure counts with residual 1
    sh = 1e-9
    assert s.loc["B", "primal_residual_shgeom"] == pytest.approx(
        np.sqrt((1e-9 + sh) * (1.0 + sh)) - sh)
    assert s.loc["A", "primal_residual_shgeom"] == pytest.approx(1e-9)


def test_plot_times(tmp_path):
    rows = [_row(s, "optimal", t * n / 10, n=n) for s, t in (("A", 0.01), ("B", 0.02))
            for n in (10, 20, 40)]
    path = plot_times(pd.DataFrame(rows), tmp_path / "times.png")
    assert path.is_file() and path.stat().st_size > 0
    with pytest.raises(ValueError, match="no successful"):
        plot_times(pd.DataFrame([_row("A", "solver_error", 0.1)]), tmp_path / "x.png")
