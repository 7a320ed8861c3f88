"""AUC in comparisons: ``auc`` per fold, ``auc_mean``/``auc_std`` per method.

The ``auc`` of a fold is recomputed here independently of the comparison: the
same outer folds drawn with scikit-learn's ``StratifiedKFold`` (the seed of
``krein compare``), each method fitted on the training block, and
scikit-learn's ``roc_auc_score`` on its decision values over the test rows.
A multiclass problem has no AUC (empty column, no AUC column in the tables);
directories written before the columns existed still read.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

from krein.cli_format import comparison_lines
from krein.compare import run_comparison
from krein.experiment.comparison_files import SUMMARY_FILE, FOLDS_FILE
from krein.experiment.metrics import fold_auc
from krein.experiment.page import read_comparison, write_report
from krein.registry import make_method

METHODS = ["svm", "knn", "pe-nearest-mean"]


@pytest.fixture(scope="module")
def binary_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("auc") / "sonar")
    res = run_comparison("sonar", n_samples=60, methods=METHODS, outer_folds=3, tune=False,
                         progress=False, out=out)
    return res, out


def test_fold_auc_is_roc_auc_of_the_decision_values(binary_run):
    res, _ = binary_run
    K, y = res.data.K, res.data.y
    classes = np.unique(y)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(K, y))
    for method in METHODS:
        rows = res.folds[res.folds["method"] == method].sort_values("fold")
        assert len(rows) == 3
        for (_, row), (tr, te) in zip(rows.iterrows(), folds):
            est = make_method(method, kernel="precomputed").fit(K[np.ix_(tr, tr)], y[tr])
            K_te = K[np.ix_(te, tr)]
            assert row["accuracy"] == pytest.approx(np.mean(est.predict(K_te) == y[te]), abs=1e-12)
            expected = roc_auc_score(y[te] == classes[1], est.decision_function(K_te))
            assert row["auc"] == pytest.approx(expected, abs=1e-12), (method, row["fold"])
    s = res.summary.set_index("method")
    for method in METHODS:
        auc = res.folds.loc[res.folds["method"] == method, "auc"].to_numpy(float)
        assert s.loc[method, "auc_mean"] == pytest.approx(auc.mean(), abs=1e-12)
        assert s.loc[method, "auc_std"] == pytest.approx(auc.std(ddof=1), abs=1e-12)
        assert 0.5 < s.loc[method, "auc_mean"] <= 1.0


def test_files_page_and_terminal_show_auc(binary_run):
    res, out = binary_run
    saved = read_comparison(out)
    np.testing.assert_allclose(saved.summary["auc_mean"].to_numpy(float),
                               res.summary["auc_mean"].to_numpy(float), rtol=1e-12)
    np.testing.assert_allclose(saved.folds["auc"].to_numpy(float),
                               res.folds["auc"].to_numpy(float), rtol=1e-12)
    page = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    head = page[page.index('id="results-table"'):]
    head = head[:head.index("</thead>")]
    assert re.search(r"accuracy \(%\)</th><th class=\"num\">AUC</th>", head)
    for _, r in res.summary.iterrows():
        assert f"{r['auc_mean']:.3f}" in page
    text = "\n".join(comparison_lines(res))
    assert re.search(r"^method\s+accuracy %\s+vs best\s+AUC", text, re.M)
    for _, r in res.summary.iterrows():
        assert re.search(rf"^{r['method']}\s.*{r['auc_mean']:.3f} ± {r['auc_std']:.3f}", text,
                         re.M)


def test_files_without_the_auc_columns_still_read(binary_run, tmp_path):
    _, out = binary_run
    old = tmp_path / "old"
    old.mkdir()
    for name in os.listdir(out):
        path = os.path.join(out, name)
        if not os.path.isfile(path) or name.startswith("."):
            continue
        if name in (SUMMARY_FILE, FOLDS_FILE):
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
            frame.drop(columns=[c for c in ("auc", "auc_mean", "auc_std") if c in frame])\
                .to_csv(old / name, index=False)
        else:
            (old / name).write_bytes(open(path, "rb").read())
    saved = read_comparison(str(old))
    assert saved.summary["auc_mean"].isna().all() and saved.folds["auc"].isna().all()
    page = open(write_report(str(old)), encoding="utf-8").read()
    assert '<th class="num">AUC</th>' not in page and "accuracy (%)" in page


def test_multiclass_has_no_auc(tmp_path):
    res = run_comparison("catcortex", methods=["knn", "pe-nearest-mean"], outer_folds=3,
                         tune=False, progress=False, out=str(tmp_path / "cat"))
    assert np.unique(res.data.y).size == 4
    assert res.folds["auc"].isna().all() and res.summary["auc_mean"].isna().all()
    assert np.isfinite(res.summary["accuracy_mean"].to_numpy(float)).all()
    page = open(tmp_path / "cat" / "report.html", encoding="utf-8").read()
    assert '<th class="num">AUC</th>' not in page
    assert not re.search(r"^method\s.*\bAUC\b", "\n".join(comparison_lines(res)), re.M)


def test_fold_auc_uses_predict_proba_without_a_decision_function():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-1, 1, (20, 2)), rng.normal(1, 1, (20, 2))]
    y = np.repeat(["a", "b"], 20)
    est = KNeighborsClassifier(n_neighbors=7).fit(X[::2], y[::2])
    assert not hasattr(est, "decision_function")
    expected = roc_auc_score(y[1::2] == "b", est.predict_proba(X[1::2])[:, 1])
    assert fold_auc(est, X[1::2], y[1::2], np.array(["a", "b"])) == pytest.approx(expected)
    # undefined: one class in the test part, or more than two classes
    assert np.isnan(fold_auc(est, X[1::2][:5], y[1::2][:5], np.array(["a", "b"])))
    assert np.isnan(fold_auc(est, X[1::2], y[1::2], np.array(["a", "b", "c"])))
