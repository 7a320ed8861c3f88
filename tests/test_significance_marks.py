"""Significance marks and edge-of-grid flags of a comparison: ``summarize``
(``krein/experiment/comparison_result.py``), ``summary.csv`` (``comparison_files.py``), the
terminal table (``krein/cli_format.py``) and the report page (``page.py``, ``page_figures.py``).

What is shown is checked against :mod:`krein.experiment.statistics` run on the same fold
table (which ``tests/test_statistics.py`` checks against the papers' formulas): the groups
and p-values of ``summary.csv``, the ``vs best`` column and the "Not significantly worse
than the best" line of ``krein compare``, the page's headline, marks and paragraph; a
two-value grid puts every choice at an edge, so the flag is certain.
"""

from __future__ import annotations

import json
import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from krein.cli_format import comparison_lines
from krein.compare import run_comparison
from krein.experiment.comparison_files import read_comparison
from krein.experiment.comparison_result import fold_table, summarize
from krein.experiment.statistics import edge_of_grid, significance_groups
from krein.experiment.validate import ResultFileError

METHODS = ["flip", "knn"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sig") / "run"
    res = run_comparison("checkerboard", kernel_params={"a": 1.0, "r": -0.5}, n_samples=30,
                         methods=METHODS, outer_folds=5, inner_folds=2, progress=False,
                         grid={"C": [0.1, 1.0], "n_neighbors": [1, 3]}, out=str(out))
    return res, str(out)


def _fold_rows():
    rows, rng = [], np.random.default_rng(5)
    for m, level in (("esvm", 0.9), ("flip", 0.6), ("clip", 0.895)):
        for j in range(10):
            rows.append({"method": m, "repeat": j // 5, "fold": j % 5, "n_train": 80,
                         "n_test": 20, "accuracy": level + rng.normal(0, 0.02),
                         "best_params": json.dumps({"C": 10.0 if m == "flip" else 1.0}),
                         "error": ""})
    return fold_table(pd.DataFrame(rows))


def test_summarize_adds_groups_p_values_and_edges():
    folds = _fold_rows()
    grids = {m: {"C": [0.1, 1.0, 10.0]} for m in ("esvm", "flip", "clip")}
    s = summarize(folds, {"ksvm": "needs base kernels"}, ["esvm", "flip", "clip", "ksvm"],
                  grids=grids).set_index("method")
    sig = significance_groups(folds).set_index("method")
    assert list(s.loc[["esvm", "flip", "clip"], "group"]) == list(sig["group"])
    assert list(s["group"]) == ["best", "worse", "not worse", ""]
    np.testing.assert_allclose(s.loc[["flip", "clip"], "p_value"],
                               sig.loc[["flip", "clip"], "p_value"])
    assert s.loc["flip", "edge"] == "C at top of grid (10 of 10 folds)"
    assert (s.loc[["esvm", "clip", "ksvm"], "edge"] == "").all()
    assert "corrected resampled t-test" in summarize(folds, {}, ["esvm"]).attrs["test"]
    # without the grids no edge is claimed
    assert (summarize(folds, {}, ["esvm", "flip", "clip"])["edge"] == "").all()


def test_summary_csv_and_terminal_table(run):
    res, out = run
    saved = read_comparison(out)
    sig = significance_groups(res.folds).set_index("method")
    assert list(saved.summary["group"]) == list(sig.loc[METHODS, "group"])
    np.testing.assert_allclose(saved.summary["p_value"], sig.loc[METHODS, "p_value"])
    text = "\n".join(comparison_lines(res))
    assert re.search(r"^method\s+accuracy %\s+vs best", text, re.M)
    best = significance_groups(res.folds).attrs["best"]
    assert re.search(rf"^{best}\s+\d+\.\d ± \d+\.\d\s+best\b", text, re.M)
    group = [best] + [m for m in METHODS if sig.loc[m, "group"] == "not worse"]
    line = ("Not significantly worse than the best (corrected resampled t-test of Nadeau & "
            "Bengio 2003 over 5 paired splits (4 df), alpha 0.05): "
            + ", ".join(f"{m} (best)" if m == best else m for m in group))
    assert line in text.splitlines()
    assert "vs best: '=' not significantly worse than the best" in text
    # a two-value grid given with --grid, searched as given: every method's choice is at
    # an end of it, flagged in the table as a limit of the search, the given grid
    for m in METHODS:
        assert re.search(rf"^{m}\s.*\[edge\]", text, re.M), m
        assert re.search(rf"^  {m}: (C|n_neighbors) at (top|bottom) limit \(\d of 5 folds: "
                         r"grid given \(not extended\)\)", text, re.M), m


def test_page_states_the_test_and_marks_the_group(run):
    res, out = run
    page = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    assert "Best:" not in page
    assert "Not significantly worse than the best (corrected resampled t-test" in page
    assert "<th>vs best</th>" in page
    assert 'id="significance"' in page and "Nadeau &amp; Bengio 2003" in page
    sig = significance_groups(res.folds)
    for m, g in zip(sig["method"], sig["group"]):
        row = re.search(rf'<tr class="([^"]*)" data-method="{m}">(.*?)</tr>', page).group(2)
        mark = {"best": "best", "not worse": "=", "worse": "&lt;"}[g]
        assert f'<td class="mark">{mark}' in row, (m, row)
        # the edge flag: an end of the grid given with --grid, searched as given
        assert re.search(r"at (top|bottom) limit \(\d of 5 folds: grid given", row), row


def test_reader_refuses_a_garbled_p_value(run, tmp_path):
    _, out = run
    d = tmp_path / "copy"
    shutil.copytree(out, d, ignore=shutil.ignore_patterns("cells"))
    path = d / "summary.csv"
    s = pd.read_csv(path, keep_default_na=False, dtype=str)
    s.loc[0, "p_value"] = "abc"
    s.to_csv(path, index=False)
    with pytest.raises(ResultFileError, match="p_value"):
        read_comparison(d)


def test_edge_text_matches_the_grids_as_run(run):
    res, _ = run
    edges = edge_of_grid(res.folds, res.grids, res.kernel_grid)
    assert set(edges) == set(METHODS)


def test_page_marks_a_significantly_worse_method(run, tmp_path):
    from krein.experiment.page import write_report

    _, out = run
    d = tmp_path / "worse"
    shutil.copytree(out, d, ignore=shutil.ignore_patterns("cells"))
    folds = pd.read_csv(d / "folds.csv", keep_default_na=False, dtype=str)
    other = folds["method"] == "knn"
    flip = folds.loc[folds["method"] == "flip", "accuracy"].astype(float).to_numpy()
    folds.loc[other, "accuracy"] = [f"{v:.6f}" for v in np.clip(flip, 0.5, 1) - 0.4
                                    - 0.01 * np.arange(5)]
    folds.to_csv(d / "folds.csv", index=False)
    page = open(write_report(d), encoding="utf-8").read()
    row = re.search(r'<tr class="[^"]*" data-method="knn">(.*?)</tr>', page).group(1)
    assert '<td class="mark">&lt; <span class="pm">p ' in row
    assert "Not significantly worse than the best (corrected resampled t-test" in page
    assert "<strong>flip</strong> (best" in page


def test_page_of_a_directory_without_the_significance_columns(run, tmp_path):
    """summary.csv without p_value/group/edge: the page computes them from
    folds.csv and run.json's grids."""
    from krein.experiment.page import write_report

    res, out = run
    d = tmp_path / "old"
    shutil.copytree(out, d, ignore=shutil.ignore_patterns("cells"))
    s = pd.read_csv(d / "summary.csv", keep_default_na=False, dtype=str)
    s.drop(columns=["p_value", "group", "edge"]).to_csv(d / "summary.csv", index=False)
    page = open(write_report(d), encoding="utf-8").read()
    best = significance_groups(res.folds).attrs["best"]
    assert f"<strong>{best}</strong> (best" in page and "Best:" not in page
    for m in METHODS:
        row = re.search(rf'<tr class="[^"]*" data-method="{m}">(.*?)</tr>', page).group(1)
        # computed again from folds.csv's grid_search: the end of the given grid
        assert re.search(r"(C|n_neighbors) at (top|bottom) limit \(\d of 5 folds: grid "
                         r"given \(not extended\)\)", row), m
