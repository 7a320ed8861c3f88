"""Ties decided by the data: exact mean accuracies, ranks, the best method, invariance to order.

A mean accuracy is a ratio of counts; two methods with the same number of
correct predictions tie whatever the order in which the per-split fractions
were summed.  The checks: the fractions themselves (independent of the
module: :class:`fractions.Fraction` arithmetic), tied ranks where float means
differ in the last bits, and the permutation test -- reordering the splits
and the methods of a comparison (one data set) or of a table of data sets
changes neither the best method, nor any p-value, rank, Friedman statistic
or the critical-difference diagram.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krein.experiment.comparison_result import summarize
from krein.experiment.statistics import (TIE_RTOL, average_ranks, cd_diagram, exact_accuracy,
                                         exact_mean, friedman_nemenyi, significance_groups,
                                         tie_break_key, tie_codes)

ROOT = Path(__file__).resolve().parents[1]

# Two methods with the same 33 correct of 60 over three splits of 20: summed left to right
# in IEEE double precision (Python floats), the means differ in the last bit; the exact
# means do not.
SPREAD_A, SPREAD_B = (10, 10, 13), (11, 11, 11)


def _float_mean(counts):
    total = 0.0
    for c in counts:
        total += c / 20
    return total / len(counts)


def test_the_float_means_of_the_example_differ():
    # the premise of the tests below: a summation breaks the tie in floating point
    assert _float_mean(SPREAD_A) != _float_mean(SPREAD_B)
    assert exact_mean(Fraction(c, 20) for c in SPREAD_A) == Fraction(33, 60)
    assert exact_mean(Fraction(c, 20) for c in SPREAD_B) == Fraction(33, 60)


def test_exact_accuracy_reads_counts_and_leaves_other_scores_alone():
    assert exact_accuracy(17 / 20, 20) == Fraction(17, 20)
    assert exact_accuracy(round(331 / 400, 6), 400) == Fraction(331, 400)  # a rounded file
    assert exact_accuracy(0.8734, 20) == 0.8734          # no count over 20
    assert exact_accuracy(0.85, float("nan")) == 0.85    # no denominator
    assert exact_accuracy(0.85, 2.5) == 0.85
    assert exact_mean([Fraction(1, 3), 0.5]) == pytest.approx((1 / 3 + 0.5) / 2)
    assert np.isnan(exact_mean([]))


def test_tie_codes_are_exact_for_fractions_and_tolerant_for_floats():
    assert tie_codes([Fraction(37, 40), Fraction(1, 2), Fraction(74, 80)]).tolist() == [1, 0, 1]
    # fractions one part in 10^12 apart are different
    assert tie_codes([Fraction(10**12 + 1, 10**12), Fraction(1)]).tolist() == [1, 0]
    x = 0.925
    assert tie_codes([x, x * (1 + TIE_RTOL / 2), 0.5]).tolist() == [1, 1, 0]
    assert tie_codes([x, x * (1 + 10 * TIE_RTOL), 0.5]).tolist() == [1, 2, 0]


def test_average_ranks_tie_equal_fractions_whose_floats_differ():
    a = exact_mean(Fraction(c, 20) for c in SPREAD_A)
    b = exact_mean(Fraction(c, 20) for c in SPREAD_B)
    table = pd.DataFrame([[a, b, Fraction(1, 4)], [Fraction(3, 4), Fraction(1, 4), Fraction(1, 2)]],
                         columns=["x", "y", "z"], dtype=object)
    # row 1: x and y tie (1.5, 1.5, 3); row 2: (1, 3, 2)
    assert average_ranks(table).tolist() == [1.25, 2.25, 2.5]
    floats = table.map(float)
    floats.iloc[0, 0] = _float_mean(SPREAD_A)
    floats.iloc[0, 1] = _float_mean(SPREAD_B)
    # the floats of the summation differ below TIE_RTOL: tied as well
    assert average_ranks(floats).tolist() == [1.25, 2.25, 2.5]


def _comparison_folds(seed=0):
    """Five methods on ten 80/20 splits of 20 test objects, two tied for best."""
    rng = np.random.default_rng(seed)
    counts = {"flip": rng.integers(12, 17, 10), "clip": rng.integers(10, 15, 10),
              "knn": rng.integers(13, 18, 10)}
    best = np.array([17, 20, 18, 19, 17, 20, 18, 19, 18, 19])
    counts["ksvm"] = best                          # 185 of 200
    counts["esvm"] = best[[2, 3, 0, 1, 6, 7, 4, 5, 9, 8]] + np.array(
        [0, 0, 0, 0, 0, 0, 0, 0, -1, 1])           # 185 of 200 spread differently
    rows = []
    for m, c in counts.items():
        for j, k in enumerate(c):
            rows.append({"method": m, "repeat": j // 5, "fold": j % 5, "n_train": 80,
                         "n_test": 20, "accuracy": float(k) / 20, "error": "",
                         "best_params": "{}", "test_correct": ""})
    return pd.DataFrame(rows)


def _permuted(folds, rng):
    methods = list(dict.fromkeys(folds["method"]))
    order = {m: i for i, m in enumerate(rng.permutation(methods))}
    splits = rng.permutation(10)
    out = folds.assign(_m=folds["method"].map(order),
                       _s=[int(np.flatnonzero(splits == 5 * r + f)[0])
                           for r, f in zip(folds["repeat"], folds["fold"])])
    return out.sort_values(["_m", "_s"]).drop(columns=["_m", "_s"]).reset_index(drop=True)


def test_the_example_ties_exactly():
    folds = _comparison_folds()
    sums = folds.assign(k=(folds["accuracy"] * 20).round()).groupby("method")["k"].sum()
    assert sums["esvm"] == sums["ksvm"] == 185 and sums.max() == 185


def test_best_method_and_p_values_do_not_depend_on_the_order():
    folds = _comparison_folds()
    ref = significance_groups(folds).set_index("method")
    # the tie is broken by the registry's order, not by the table's
    assert ref.attrs["best"] == min(["esvm", "ksvm"], key=tie_break_key) == "esvm"
    assert ref.loc["esvm", "accuracy_mean"] == ref.loc["ksvm", "accuracy_mean"] == 185 / 200
    rng = np.random.default_rng(1)
    for _ in range(12):
        got = significance_groups(_permuted(folds, rng)).set_index("method")
        assert got.attrs["best"] == ref.attrs["best"]
        got = got.loc[ref.index]
        for col in ("accuracy_mean", "p_raw", "p_value"):
            np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy())
        assert got["group"].tolist() == ref["group"].tolist()


def test_compare_summary_does_not_depend_on_the_order():
    # the summary krein compare writes: best, group, p-value and mean per method
    folds = _comparison_folds()
    for col, v in (("fit_seconds", 0.1), ("n_support", 5), ("min_eigenvalue", -1.0),
                   ("r_mm", 0.1), ("r_neg", 0.1), ("warnings", ""), ("certificate", ""),
                   ("solver_status", ""), ("n_inner_failures", 0), ("n_inner_warnings", 0),
                   ("auc", np.nan)):
        folds[col] = v
    order = list(dict.fromkeys(folds["method"]))
    cols = ["method", "accuracy_mean", "group", "p_value"]
    ref = summarize(folds, {}, order).set_index("method")[cols[1:]]
    assert ref.loc["esvm", "group"] == "best" and ref.loc["ksvm", "group"] == "not worse"
    rng = np.random.default_rng(2)
    for _ in range(6):
        p = _permuted(folds, rng)
        got = summarize(p, {}, list(dict.fromkeys(p["method"]))).set_index("method")[cols[1:]]
        pd.testing.assert_frame_equal(got.loc[ref.index], ref)


def _dataset_table(seed=0):
    """Eight data sets x six methods of exact mean accuracies, with ties in every row."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(8):
        n = int(rng.integers(30, 60))
        c = rng.integers(n // 2, n, 6)
        c[3] = c[1]                                   # an exact tie in every data set
        rows.append([Fraction(int(k), n) for k in c])
    return pd.DataFrame(rows, columns=["esvm", "flip", "clip", "knn", "ksvm", "svm"],
                        index=[f"set{i}" for i in range(8)], dtype=object)


def test_ranks_friedman_and_cd_diagram_do_not_depend_on_the_order():
    table = _dataset_table()
    ref = friedman_nemenyi(table)
    assert ref["ranks"]["flip"] == ref["ranks"]["knn"]
    ref_labels = [t.get_text() for t in cd_diagram(ref["ranks"], ref["cd"]).texts]
    ref_groups = cd_diagram(ref["ranks"], ref["cd"]).krein_groups
    rng = np.random.default_rng(3)
    for _ in range(8):
        p = table.iloc[rng.permutation(8), rng.permutation(6)]
        got = friedman_nemenyi(p)
        pd.testing.assert_series_equal(got["ranks"][ref["ranks"].index], ref["ranks"])
        for k in ("chi2", "p", "F", "p_F", "cd"):
            assert got[k] == ref[k]
        ax = cd_diagram(got["ranks"], got["cd"])
        assert [t.get_text() for t in ax.texts] == ref_labels
        assert ax.krein_groups == ref_groups


def test_friedman_counts_exact_ties_in_its_tie_correction():
    # two methods tied in every row: their ranks are 1.5 each, the third 3
    table = pd.DataFrame([[Fraction(9, 10), Fraction(18, 20), Fraction(1, 2)]] * 4,
                         columns=list("abc"), dtype=object)
    res = friedman_nemenyi(table)
    assert res["ranks"].tolist() == [1.5, 1.5, 3.0]
    # Friedman with ties (Conover): R = (6, 6, 12); the statistic is 8 (N = 4, k = 3)
    assert res["chi2"] == pytest.approx(8.0)


def test_chen2009_voting_ties_are_exact_in_the_committed_results():
    sys.path.insert(0, str(ROOT / "experiments"))
    try:
        import chen2009
    finally:
        sys.path.pop(0)
    results = pd.read_csv(ROOT / "experiments" / "results" / "chen2009.csv")
    table, dropped = chen2009.accuracy_table(results)
    voting = table.loc["voting"]
    tied = ["svm", "clip", "mod-svm", "similarity-linear"]
    assert len({voting[m] for m in tied}) == 1       # the same exact mean
    ok = results[(results["status"] == "ok") & (results["dataset"] == "voting")]
    correct = (ok["accuracy"] * ok["n_test"]).round().groupby(ok["method"]).sum()
    assert len({correct[m] for m in tied}) == 1      # the same number of correct predictions
    ranks = pd.DataFrame({d: average_ranks(table.loc[[d]]) for d in ["voting"]})
    assert ranks.loc[tied, "voting"].nunique() == 1
    stats = chen2009.rank_statistics(results)
    shuffled = results.sample(frac=1.0, random_state=0)
    again = chen2009.rank_statistics(shuffled)
    for k in ("chi2", "p", "F", "p_F", "cd"):
        assert again[k] == stats[k]
    pd.testing.assert_series_equal(again["ranks"][stats["ranks"].index], stats["ranks"])


def test_the_inner_search_takes_the_first_of_equal_mean_accuracies():
    from krein.experiment.classification import _best_combination, _exact_mean_scores

    # two grid points with 33 of 60 correct, spread differently over three inner folds
    fold_scores = np.array([[c / 20 for c in SPREAD_A], [c / 20 for c in SPREAD_B],
                            [0.5, 0.5, 0.5]])
    floats = np.array([[_float_mean(SPREAD_A), _float_mean(SPREAD_B), 0.5]])
    exact = np.empty((1, 3), dtype=object)
    exact[0] = _exact_mean_scores(fold_scores, [20, 20, 20])
    assert exact[0, 0] == exact[0, 1] == Fraction(33, 60)
    assert _best_combination(floats, None, exact) == (0, 0)
    # reversed grid order: again the first of the two
    assert _best_combination(floats[:, [1, 0, 2]], None, exact[:, [1, 0, 2]]) == (0, 0)
    # a failed combination (-inf, None) is never chosen
    floats[0, 0], exact[0, 0] = -np.inf, None
    assert _best_combination(floats, None, exact) == (0, 1)
