"""Checks of the Luss & d'Aspremont (2009) Figs. 1-2 reproduction (``experiments/luss_fig*.py``).

Each script runs with ``--quick``; its numbers are then checked against
computations that do not share the script's path:

* Fig. 1: the script's written-out projected gradient (step 5/k) follows the
  library's ``projected_gradient(step="diminishing")`` iterate by iterate; every
  recorded bound is at least the true error ``f* - f``; ``f*`` of the script
  equals the optimal value of the joint SDP (luss eq. 10) solved by CLARABEL on a
  tiny subset;
* Fig. 2: a converged cell's recorded objective is ``f`` at the point the same
  solver returns, recomputed by a fresh oracle, and the SDP optimum is within the
  recorded gap (at most the paper's 0.1) of it.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from krein.experiment import import_script

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="module")
def fig1(tmp_path_factory, run_quick_script):
    return run_quick_script("luss_fig1", tmp_path_factory.mktemp("luss1"))


@pytest.fixture(scope="module")
def fig2(tmp_path_factory, run_quick_script):
    return run_quick_script("luss_fig2", tmp_path_factory.mktemp("luss2"))


def _sdp_value(K, y, C, rho):
    from krein.formulations import IndefiniteSVMSDP
    from krein.solvers import solve

    return solve(IndefiniteSVMSDP(K, y, C, rho), "CLARABEL", tol_gap_abs=1e-7,
                 tol_gap_rel=1e-7, tol_feas=1e-7).objective


# --------------------------------------------------------------------------- Fig. 1
def test_fig1_quick_cells_and_figure(fig1):
    df, figs = fig1
    assert figs == ["luss_fig1.png"]
    assert set(df["algorithm"]) == {"accpm", "pg"}
    for _, row in df.iterrows():
        c = json.loads(row["curves"])
        assert c["iter"] == sorted(set(c["iter"])) and c["iter"][-1] == row["max_iter"]
        # every bound is at least the true error (f* from an independent run)
        err = np.asarray(c["subopt"])
        assert err.min() >= -1e-9 * abs(row["fstar"])
        best_err = row["fstar"] - np.asarray(c["lower"])     # at the best point so far
        assert np.all(np.asarray(c["gap_cert"]) >= best_err - 1e-9 * abs(row["fstar"]))
        assert np.all(best_err <= err + 1e-12 * abs(row["fstar"]))
        if row["algorithm"] == "pg":
            assert np.all(np.asarray(c["gap_libsvm"]) >= err - 1e-9 * abs(row["fstar"]))


def test_fig1_written_out_pg_is_the_librarys_diminishing_step(fig1):
    """The script's 5/k loop against projected_gradient(step='diminishing')."""
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.solvers.indefinite import projected_gradient

    mod = import_script(EXPERIMENTS / "luss_fig1.py")
    df = fig1[0]
    row = df[df["algorithm"] == "pg"].iloc[0]
    K, y = mod._subset(row.to_dict())
    P = ProxyKernelProblem(K, y, model="svc", C=row["C"], rho=row["rho"], check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = projected_gradient(P, step="diminishing", step0=5.0, tol=0.0, atol=0.0,
                                 max_iter=int(row["max_iter"]))
    c = json.loads(row["curves"])
    lib = sol.trace.set_index("iter")["objective"].loc[c["iter"]].to_numpy()
    np.testing.assert_allclose(c["objective"], lib, rtol=1e-10, atol=1e-10)


def test_fig1_reference_optimum_is_the_sdp_value():
    """f* of the script (backtracking PG) against CLARABEL on the joint SDP (10)."""
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.solvers.indefinite import Certifier

    mod = import_script(EXPERIMENTS / "luss_fig1.py")
    K, y = mod._subset({"setting": "sdp", "repeat": 0, "n": 16, "seed": 0})
    assert np.linalg.eigvalsh(K)[0] < 0
    for C, rho in [(10.0, 1.0), (10.0, 100.0)]:
        P = ProxyKernelProblem(K, y, model="svc", C=C, rho=rho, check=False)
        fstar, gap = mod.reference_optimum(P, Certifier(P).oracle, 300)
        sdp = _sdp_value(K, y, C, rho)
        assert abs(fstar - sdp) <= 1e-5 * abs(sdp) + gap, (fstar, sdp, gap)


# --------------------------------------------------------------------------- Fig. 2
def test_fig2_quick_cells_and_figure(fig2):
    df, figs = fig2
    assert figs == ["luss_fig2.png"]
    assert set(df["algorithm"]) == {"pg", "pg-bt", "apg", "accpm", "exchange"}
    assert df["converged"].all()
    assert (df["final_gap"] <= df["gap"]).all()
    assert (df["total_seconds"] >= df["seconds_per_iter"] * df["n_iter"] * 0.999).all()


@pytest.mark.parametrize("algorithm", ["pg", "accpm"])
def test_fig2_recorded_gap_holds_at_the_returned_point(fig2, algorithm):
    """Objective recomputed at the returned point; the SDP optimum is within the gap."""
    from krein.datasets import load
    from krein.experiment import cell_seed
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.kernels import simpson_kernel
    from krein.solvers.indefinite import accpm
    from krein.solvers.indefinite import projected_gradient
    from krein.solvers.indefinite import ProxyKernelOracle

    df = fig2[0]
    row = df[(df["algorithm"] == algorithm) & (df["n"] == 20)].iloc[0].to_dict()
    X, yall = load("usps", binary=(3, 5))
    rng = np.random.default_rng(cell_seed(row, "n", "repeat", salt="subset"))
    idx = np.sort(rng.choice(yall.shape[0], size=20, replace=False))
    K, y = simpson_kernel(X[idx]), yall[idx].astype(float)
    P = ProxyKernelProblem(K, y, model="svc", C=row["C"], rho=row["rho"], check=False)
    atol = import_script(EXPERIMENTS / "luss_fig2.py").absolute_gap_atol(K, row["C"], row["gap"])
    kw = dict(tol=0.0, atol=atol, max_iter=int(row["max_iter"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = (projected_gradient(P, step="diminishing", step0=5.0, **kw)
               if algorithm == "pg" else accpm(P, **kw))
    assert len(sol.trace) == row["n_iter"]
    beta = sol.primal["beta"]
    f = P.c @ beta + ProxyKernelOracle(K, P.rho).evaluate(P.u_of(beta)).value
    assert abs(f - row["objective"]) <= 1e-9 * abs(f)
    sdp = _sdp_value(K, y, row["C"], row["rho"])
    assert -1e-5 * abs(sdp) <= sdp - f <= row["final_gap"] + 1e-5 * abs(sdp)


def test_convergence_py_is_an_alias_of_fig1():
    old = import_script(EXPERIMENTS / "convergence.py").experiment(quick=True)
    new = import_script(EXPERIMENTS / "luss_fig1.py").experiment(quick=True)
    assert old.name == new.name == "luss_fig1" and old.grid == new.grid
