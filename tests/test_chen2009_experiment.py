"""experiments/chen2009.py: the protocol of Chen et al. (2009) and its table and figure hooks.

The table code is checked on a synthetic results frame against numpy (means and
sample standard deviations of ``100 (1 - accuracy)`` computed here); the
``--quick`` run goes through the command line (``krein experiment run``) and its
ranks and Friedman line are checked against the functions of
:mod:`krein.experiment.statistics` called here on the same accuracies.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krein.experiment import import_script, load_experiment

SCRIPT = Path(__file__).resolve().parents[1] / "experiments" / "chen2009.py"


@pytest.fixture(scope="module")
def chen():
    return import_script(SCRIPT)


def _synthetic():
    """Two data sets (3 splits; 1 split), three methods; one error row; knn misses coilyork."""
    acc = {("aural-sonar", "esvm"): [0.90, 0.85, 0.80], ("aural-sonar", "flip"): [0.70, 0.75, 0.95],
           ("aural-sonar", "knn"): [0.60, 0.65, 0.70], ("coilyork", "esvm"): [0.75],
           ("coilyork", "flip"): [0.8125]}
    rows = []
    for (d, m), values in acc.items():
        for f, a in enumerate(values):
            rows.append({"status": "ok", "error": "", "dataset": d, "method": m, "repeat": 0,
                         "fold": f, "accuracy": a})
    rows.append({"status": "error", "error": "ValueError: boom", "dataset": "coilyork",
                 "method": "knn", "repeat": 0, "fold": 0, "accuracy": np.nan})
    return pd.DataFrame(rows), acc


def test_error_summary_and_table_of_a_synthetic_results_frame(chen):
    df, acc = _synthetic()
    mean, sd, count = chen.error_summary(df)
    assert list(mean.columns) == ["aural-sonar", "coilyork"]  # DATASETS order
    assert list(mean.index) == ["esvm", "flip", "knn"]
    for (d, m), values in acc.items():
        err = 100 * (1 - np.asarray(values))
        assert mean.at[m, d] == pytest.approx(err.mean())
        assert count.at[m, d] == len(values)
        if len(values) > 1:
            assert sd.at[m, d] == pytest.approx(err.std(ddof=1))
        else:
            assert np.isnan(sd.at[m, d])
    assert np.isnan(mean.at["knn", "coilyork"])  # the error row is not a result
    table, dropped = chen.accuracy_table(df)
    assert dropped == ["knn"] and list(table.columns) == ["esvm", "flip"]
    assert list(table.index) == ["aural-sonar", "coilyork"]
    assert table.at["coilyork", "flip"] == pytest.approx(0.8125)

    df["n_inner_failures"] = [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    df["warnings"] = [None, None, None, "ConvergenceWarning: max_iter", None, None, None, None,
                      None, None, None, None]
    status = chen.status_summary(df)
    assert status.to_dict() == {"esvm": "2 inner fits failed", "flip": "1 cell warned",
                                "knn": "1 error cell"}
    ranks = pd.Series({"esvm": 1.25, "flip": 1.75})
    out = chen.format_table(mean, sd, count, ranks=ranks, summary_line="Friedman line",
                            paper={("aural-sonar", "flip"): (12.0, 3.5)}, status=status)
    assert list(out.columns) == ["method", "aural-sonar (3)", "coilyork (1)", "avg rank",
                                 "status"]
    assert list(out["status"][:3]) == ["2 inner fits failed", "1 cell warned", "1 error cell"]
    assert list(out["method"]) == ["esvm", "flip", "knn", "Friedman line"]  # sorted by rank
    e = 100 * (1 - np.asarray(acc[("aural-sonar", "esvm")]))
    assert out.iloc[0]["aural-sonar (3)"] == f"{e.mean():.1f} ± {e.std(ddof=1):.1f}"
    assert out.iloc[0]["coilyork (1)"] == "25.0"  # one split: no sd
    assert out.iloc[1]["aural-sonar (3)"].endswith(" (12.0 ± 3.5)")  # the paper beside ours
    assert out.iloc[2]["coilyork (1)"] == "-" and out.iloc[2]["avg rank"] == "-"
    assert list(out["avg rank"][:2]) == ["1.25", "1.75"]


def test_methods_are_the_default_comparison_and_every_baseline(chen):
    from krein.registry import list_methods, method_requirements

    methods = chen.default_methods()
    default = [m for m in list_methods(task="classifier", compare=True)
               if not method_requirements(m)]
    assert methods[:len(default)] == default
    assert set(chen.BASELINES) <= set(methods) and len(set(methods)) == len(methods)
    assert not {"clc", "akm"} & set(methods)  # need stacked base kernels


def test_quick_run_through_the_runner_ranks_from_the_statistics_module(tmp_path, chen,
                                                                         run_quick_script):
    from krein.experiment.statistics import average_ranks, friedman_nemenyi
    from krein.kernel_data import load_kernel_data
    from krein.kernels import kernel_scale
    from krein.registry import default_grid

    df, figures = run_quick_script("chen2009", tmp_path)
    assert "chen2009_cd.png" in figures
    exp = load_experiment(SCRIPT, quick=True)
    assert len(df) == len(exp.cells) == 5 * 2 + 5 * 1
    sonar = df[df["dataset"] == "aural-sonar"]
    assert sorted(set(sonar["fold"])) == [0, 1] and (sonar["n_test"] == 20).all()
    coil = df[df["dataset"] == "coilyork"]
    assert set(coil["fold"]) == {0} and (coil["n_test"] == coil["n_test"].iloc[0]).all()
    # one 0/1 per test object, and the accuracy is their mean
    for _, r in df.iterrows():
        bits = str(r["test_correct"])
        assert len(bits) == r["n_test"] and set(bits) <= {"0", "1"}
        assert r["accuracy"] == pytest.approx(bits.count("1") / len(bits))
    # the grids: default_grid around the kernel's scale (first and last values in --quick)
    s = kernel_scale(load_kernel_data("aural-sonar", "precomputed").K)
    cs = default_grid("esvm", scale=s)["C"]
    cell = next(c.params for c in exp.cells if c.params["dataset"] == "aural-sonar"
                and c.params["method"] == "esvm")
    assert cell["param_grid"]["C"] == pytest.approx([cs[0], cs[-1]], rel=1e-3)

    table = chen.chen2009_table(df)
    acc, dropped = chen.accuracy_table(df)
    assert dropped == [] and acc.shape == (2, 5)
    ranks = pd.Series(average_ranks(acc))
    for _, row in table.iloc[:-1].iterrows():
        assert row["avg rank"] == f"{ranks[row['method']]:.2f}"
    order = [ranks[m] for m in table["method"][:-1]]
    assert sorted(table["method"][:-1]) == sorted(ranks.index) and order == sorted(order)
    stats = chen.rank_statistics(df)
    res = friedman_nemenyi(acc, alpha=0.05)
    for k in ("chi2", "p", "F", "p_F", "cd"):
        assert stats[k] == pytest.approx(res[k])
    line = table.iloc[-1]["method"]
    assert line.startswith(f"Friedman chi2 = {res['chi2']:.2f}, p = {res['p']:.2g}; "
                           f"Iman-Davenport F = {res['F']:.2f}")
    assert f"Nemenyi CD (alpha 0.05) = {res['cd']:.2f}" in line
    md = (tmp_path / "out" / "table.md").read_text()
    assert "avg rank" in md and "Friedman chi2" in md and "aural-sonar (2)" in md


def test_full_grid_is_the_protocol(chen):
    from krein.kernel_data import load_kernel_data
    from krein.kernels import kernel_scale
    from krein.registry import default_grid

    exp = chen.experiment(quick=False)
    cells = pd.DataFrame([c.params for c in exp.cells])
    methods = chen.default_methods()
    per = cells.groupby(["dataset", "method"]).size()
    assert set(cells["dataset"]) == set(chen.DATASETS) and set(cells["method"]) == set(methods)
    for d in chen.DATASETS:
        n = 1 if d == "coilyork" else 20
        assert (per[d] == n).all() and len(per[d]) == len(methods)
    shuffle = cells[cells["dataset"] != "coilyork"]
    assert (shuffle["outer_split"] == "shuffle").all() and (shuffle["test_size"] == 0.2).all()
    assert (cells.loc[cells["dataset"] == "coilyork", "outer_split"] == "predefined").all()
    assert (cells["inner_folds"] == 3).all()
    # IndefiniteSVM: the C grid around the scale, rho at the middle of its scaled grid
    s = kernel_scale(load_kernel_data("voting", "precomputed").K)
    full = default_grid("indefinite-svm", scale=s)
    grid = cells[(cells["dataset"] == "voting")
                 & (cells["method"] == "indefinite-svm")]["param_grid"].iloc[0]
    assert grid["C"] == pytest.approx(full["C"], rel=1e-3)
    assert grid["rho"] == pytest.approx([full["rho"][1]], rel=1e-3)
    # every other method: its whole scaled default grid
    esvm = cells[(cells["dataset"] == "voting") & (cells["method"] == "esvm")]["param_grid"]
    assert esvm.iloc[0]["C"] == pytest.approx(default_grid("esvm", scale=s)["C"], rel=1e-3)


def test_committed_results_give_the_table_in_experiments_readme(chen):
    # The table in experiments/README.md was printed from the run directory; the committed
    # file rounds accuracies to six digits.  Recomputed from the committed file, every
    # average rank and the Friedman line must be the same: the ranks may not depend on
    # how the accuracies were rounded (a tie between two methods with the same correct
    # counts on every split was broken by the 8th digit: p 0.0091 against 0.0079).
    from krein.experiment import read_results

    root = SCRIPT.parents[1]
    stats = chen.rank_statistics(read_results(root / "experiments" / "results" / "chen2009.csv"))
    text = (root / "experiments" / "README.md").read_text()
    block = text[text.index("<!-- BEGIN chen2009 -->"):text.index("<!-- END chen2009 -->")]
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")
            for line in block.splitlines() if line.startswith("| ") and " ± " in line}
    assert len(rows) == stats["n_methods"]
    for method, rank in stats["ranks"].items():
        assert rows[method][-2] == f"{rank:.2f}", method
    assert f"p = {stats['p']:.2g};" in block
