"""``krein/experiment/statistics.py``: the paired tests of one comparison and the ranks across data sets.

Each number is checked against something independent of the module: the
corrected resampled t-test against Nadeau & Bengio's formula written out and
against :func:`scipy.stats.ttest_rel` where the correction vanishes
(n_test/n_train -> 0); McNemar's exact test against the binomial sum by hand;
Holm against its definition on a small example; the Nemenyi critical values
against Demšar (2006) Table 5(a) and his worked CD (k = 4, N = 14: 1.25);
Friedman's statistic and the Iman-Davenport F against the formulas of
Demšar §3.2.2 on a tie-free table computed by hand; the average ranks on a
table with a tie.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from krein.experiment.statistics import (GROUPS, average_ranks, cd_diagram,
                                         corrected_resampled_ttest, detectable_difference,
                                         edge_of_grid, friedman_nemenyi, holm, mcnemar_test,
                                         nemenyi_q, significance_groups)

# Demšar (2006), Table 5(a), q_0.05 for k = 2..10
DEMSAR_Q05 = (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164)


# --------------------------------------------------------------------------- t-test
def test_corrected_ttest_is_the_papers_formula():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.7, 0.9, 10), rng.uniform(0.6, 0.9, 10)
    d = a - b
    t_direct = d.mean() / math.sqrt((1 / 10 + 20 / 80) * d.var(ddof=1))
    t, p = corrected_resampled_ttest(a, b, 80, 20)
    assert t == pytest.approx(t_direct, rel=1e-12)
    assert p == pytest.approx(2 * stats.t.sf(abs(t_direct), 9), rel=1e-10)
    # per-split sizes: the mean ratio
    t2, _ = corrected_resampled_ttest(a, b, np.full(10, 80), np.full(10, 20))
    assert t2 == pytest.approx(t_direct, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_without_correction_it_is_the_paired_ttest(alternative):
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.8, 0.05, 8), rng.normal(0.78, 0.05, 8)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    t, p = corrected_resampled_ttest(a, b, n_train=100, n_test=0, alternative=alternative)
    assert t == pytest.approx(ref.statistic, rel=1e-10)
    assert p == pytest.approx(ref.pvalue, rel=1e-10)


def test_correction_widens_the_test():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.8, 0.03, 10), rng.normal(0.77, 0.03, 10)
    p_plain = corrected_resampled_ttest(a, b, 90, 0, "greater")[1]
    p_corr = corrected_resampled_ttest(a, b, 90, 10, "greater")[1]
    assert p_corr > p_plain


def test_ttest_degenerate_and_bad_input():
    assert corrected_resampled_ttest([0.8, 0.9], [0.8, 0.9], 4, 1)[1] == 1.0
    assert corrected_resampled_ttest([0.3, 0.9], [0.1 + 0.2, 0.9], 4, 1)[1] == 1.0
    t, p = corrected_resampled_ttest([0.9, 0.8], [0.8, 0.7], 4, 1, "greater")
    assert t == np.inf and p == 0.0
    for a, b in (([0.8], [0.7]), ([0.8, 0.7], [0.8]), ([np.nan, 0.7], [0.8, 0.7])):
        with pytest.raises(ValueError):
            corrected_resampled_ttest(a, b, 4, 1)
    with pytest.raises(ValueError, match="alternative"):
        corrected_resampled_ttest([0.8, 0.7], [0.7, 0.7], 4, 1, "bigger")


def test_detectable_difference_is_where_p_reaches_alpha():
    for J, frac in ((5, 0.25), (10, 0.25), (20, 0.25)):
        z = np.linspace(-1, 1, J)
        z = (z - z.mean()) / z.std(ddof=1)
        delta = detectable_difference(4.0, J, frac)
        d = delta + 4.0 * z
        p = corrected_resampled_ttest(d, np.zeros(J), 1.0, frac, "greater")[1]
        assert p == pytest.approx(0.05, rel=1e-9)
    # more repeats detect smaller differences, never below the bound of the correction
    vals = [detectable_difference(4.0, 5 * r, 0.25) for r in (1, 2, 3, 50)]
    assert vals == sorted(vals, reverse=True) and vals[-1] > stats.norm.ppf(0.95) * 0.5 * 4


# --------------------------------------------------------------------------- McNemar, Holm
def test_mcnemar_is_the_exact_binomial_on_discordant_pairs():
    a, b = "1101101111", "1001000110"  # right only for a: positions 1, 4, 6, 9
    n_ab, n_ba, p = mcnemar_test(a, b)
    assert (n_ab, n_ba) == (4, 0)
    assert p == pytest.approx(2 * 0.5 ** 4)
    assert mcnemar_test(a, b, "greater")[2] == pytest.approx(0.5 ** 4)
    # 7 against 2: two-sided sum of the tails of Binomial(9, 1/2) by hand
    ca = np.array([1] * 7 + [0] * 2 + [1] * 5, bool)
    cb = np.array([0] * 7 + [1] * 2 + [1] * 5, bool)
    tail = sum(math.comb(9, i) for i in range(0, 3)) / 2 ** 9
    assert mcnemar_test(ca, cb)[2] == pytest.approx(2 * tail)
    assert mcnemar_test("111", "111")[2] == 1.0
    with pytest.raises(ValueError):
        mcnemar_test("10", "102")
    with pytest.raises(ValueError):
        mcnemar_test("10", "101")


def test_holm_by_hand():
    p = [0.01, 0.04, 0.03, 0.20]
    # sorted 0.01, 0.03, 0.04, 0.20 -> 4*0.01, 3*0.03, 2*0.04, 1*0.20, running maximum
    np.testing.assert_allclose(holm(p), [0.04, 0.09, 0.09, 0.20])


# --------------------------------------------------------------------------- groups
def _folds(acc, n_train=80, n_test=20, errors=None, correct=None):
    rows = []
    for m, values in acc.items():
        for j, v in enumerate(values):
            err = (errors or {}).get((m, j), "")
            rows.append({"method": m, "repeat": j // 5, "fold": j % 5, "n_train": n_train,
                         "n_test": n_test, "accuracy": np.nan if err else v, "error": err,
                         "best_params": "{}",
                         "test_correct": (correct or {}).get(m, "")})
    return pd.DataFrame(rows)


def test_significance_groups_tests_against_the_best():
    rng = np.random.default_rng(3)
    base = rng.uniform(0.80, 0.90, 10)
    acc = {"clip": base - 0.25 + rng.normal(0, 0.01, 10),  # clearly worse
           "esvm": base + 0.02,                               # the best
           "flip": base + 0.02 - rng.normal(0.002, 0.02, 10),  # within noise
           "ksvm": base}
    folds = _folds(acc, errors={("ksvm", 3): "SolverError: boom"})
    assert significance_groups(folds).attrs["best"] == "esvm"
    g = significance_groups(folds).set_index("method")
    assert g.loc["esvm", "group"] == "best" and np.isnan(g.loc["esvm", "p_value"])
    assert g.loc["clip", "group"] == "worse" and g.loc["clip", "p_value"] < 0.05
    assert g.loc["flip", "group"] == "not worse"
    assert g.loc["ksvm", "group"] == "" and "1 of 10 splits failed" in g.loc["ksvm", "reason"]
    assert set(g["group"]) <= set(GROUPS) | {""}
    # the raw p-values are the one-sided corrected t-test, the reported ones Holm's
    raw = [corrected_resampled_ttest(acc["esvm"], acc[m], 80, 20, "greater")[1]
           for m in ("clip", "flip")]
    np.testing.assert_allclose(g.loc[["clip", "flip"], "p_raw"], raw, rtol=1e-12)
    np.testing.assert_allclose(g.loc[["clip", "flip"], "p_value"], holm(raw), rtol=1e-12)
    test = significance_groups(folds).attrs["test"]
    assert "corrected resampled t-test" in test and "alpha 0.05" in test and "9 df" in test
    assert "Holm" in test


def test_significance_groups_on_one_predefined_split_use_mcnemar():
    correct = {"a": "1" * 40 + "0" * 10, "b": "1" * 28 + "0" * 12 + "0" * 10,
               "c": "1" * 38 + "01" + "0" * 10}
    acc = {m: [c.count("1") / len(c)] for m, c in correct.items()}
    folds = _folds(acc, n_train=100, n_test=50, correct=correct)
    g = significance_groups(folds)
    assert "McNemar" in g.attrs["test"]
    g = g.set_index("method")
    p_b = mcnemar_test(correct["a"], correct["b"], "greater")[2]
    p_c = mcnemar_test(correct["a"], correct["c"], "greater")[2]
    np.testing.assert_allclose(g.loc[["b", "c"], "p_value"], holm([p_b, p_c]))
    assert list(g["group"]) == ["best", "worse", "not worse"]
    # without per-object results one split cannot be tested: said, not guessed
    g = significance_groups(_folds(acc)).set_index("method")
    assert g.loc["b", "group"] == "" and "no paired test" in g.loc["b", "reason"]


def test_significance_groups_bad_arguments():
    with pytest.raises(ValueError, match="alpha"):
        significance_groups(_folds({"a": [0.5, 0.6]}), alpha=1.5)
    with pytest.raises(ValueError, match="outer_split"):
        significance_groups(_folds({"a": [0.5, 0.6]}), outer_split="loo")


def test_edge_of_grid_uses_each_methods_own_grid():
    rows = []
    for m, Cs in (("flip", [10, 10, 10, 1, 0.1]), ("clip", [10, 10, 1, 1, 0.1]),
                  ("esvm", [1e3, 1e3, 1e3, 1e3, 1e3])):
        for j, C in enumerate(Cs):
            rows.append({"method": m, "error": "", "best_params":
                         json.dumps({"C": C, "kernel_a": 0.5 if m == "clip" else 1.0})})
    folds = pd.DataFrame(rows)
    grids = {"flip": {"C": [0.1, 1, 10]}, "clip": {"C": [0.1, 1, 10]},
             "esvm": {"C": [10.0, 1e3, 1e5]}}  # scaled grid: 1e3 is inside
    edges = edge_of_grid(folds, grids, {"a": [0.5, 1.0, 2.0]})
    assert edges == {"flip": "C at top of grid (3 of 5 folds)",
                     "clip": "kernel_a at bottom of grid (5 of 5 folds)"}
    assert edge_of_grid(folds, {"flip": {"C": [10]}}) == {}  # one value: no edge


# --------------------------------------------------------------------------- across data sets
def test_average_ranks_with_ties():
    table = pd.DataFrame([[0.9, 0.8, 0.7], [0.85, 0.9, 0.6], [0.7, 0.7, 0.5]],
                         columns=["x", "y", "z"])
    # per row: (1, 2, 3), (2, 1, 3), (1.5, 1.5, 3)
    pd.testing.assert_series_equal(average_ranks(table),
                                   pd.Series([1.5, 1.5, 3.0], index=["x", "y", "z"],
                                             name="average rank"))
    with pytest.raises(ValueError):
        average_ranks(pd.DataFrame([[0.9, np.nan]]))


def test_friedman_and_iman_davenport_by_hand():
    table = pd.DataFrame([[3, 2, 1], [3, 1, 2], [3, 2, 1], [2, 3, 1]], columns=list("abc"),
                         dtype=float)
    res = friedman_nemenyi(table)
    np.testing.assert_allclose(res["ranks"], [1.25, 2.0, 2.75])
    # Demšar eq. (1): 12N/(k(k+1)) [sum R_j^2 - k(k+1)^2/4] = 4 (13.125 - 12) = 4.5
    assert res["chi2"] == pytest.approx(4.5)
    assert res["p"] == pytest.approx(math.exp(-4.5 / 2))  # chi2 with 2 df
    # Iman-Davenport: (N-1) chi2 / (N(k-1) - chi2) = 3 * 4.5 / 3.5 on (2, 6) df
    assert res["F"] == pytest.approx(13.5 / 3.5)
    assert res["p_F"] == pytest.approx(stats.f.sf(13.5 / 3.5, 2, 6))
    assert res["cd"] == pytest.approx(2.343 * math.sqrt(3 * 4 / 24), abs=1e-3)


def test_nemenyi_critical_values_are_demsars_table():
    for k, q in zip(range(2, 11), DEMSAR_Q05):
        assert nemenyi_q(k) == pytest.approx(q, abs=1.5e-3)
    # Demšar's worked example (§3.2.2): k = 4 classifiers, N = 14 data sets, CD = 1.25
    table = pd.DataFrame(np.random.default_rng(4).uniform(size=(14, 4)))
    assert friedman_nemenyi(table)["cd"] == pytest.approx(1.25, abs=5e-3)


def test_cd_diagram_joins_the_groups():
    ax = cd_diagram(pd.Series({"a": 1.0, "b": 1.8, "c": 2.6, "d": 4.0}), cd=1.0)
    assert ax.krein_groups == [("a", "b"), ("b", "c")]
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "CD = 1.00" in texts and "d (4.00)" in texts
    ax = cd_diagram({"x": 1.2, "y": 1.4}, cd=0.1)
    assert ax.krein_groups == []


def test_results_table_ranks_the_columns_over_the_data_sets():
    import io
    from pathlib import Path

    from krein.experiment.report import read_results, results_table

    df = read_results(Path(__file__).resolve().parents[1] / "experiments" / "results"
                      / "loosli_table2.csv")
    assert "Average rank" not in results_table(df)  # only when asked
    wide = pd.read_csv(io.StringIO(results_table(df, fmt="csv"))).set_index("dataset")
    methods = [c for c in wide.columns if c not in ("best", "least_eigenvalue")
               and not c.endswith((" std", " n_errors"))]
    means = wide[methods].dropna()
    expected = means.rank(axis=1, ascending=False).mean()  # pandas' average ranks of ties
    res = friedman_nemenyi(means)
    md = results_table(df, ranks=True)
    line = next(t for t in md.splitlines() if t.startswith("Average rank over the rows"))
    for m in methods:
        assert f"{m} {expected[m]:.2f}" in line
    assert f"Nemenyi critical difference {res['cd']:.2f}" in line
    assert f"N = {len(means)}" in line and f"k = {len(methods)}" in line
    assert r"\multicolumn" in results_table(df, fmt="latex", ranks=True)
