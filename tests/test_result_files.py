"""The result files of ``krein compare`` as another program reads them.

Checked against independent computations: ``pandas.read_csv`` (not krein's reader) gets
every per-object result of ``predictions.csv`` right, including folds whose first test
objects are wrong (the case a ``"0110..."`` string loses to integer parsing); the
per-object rows agree with each fold's accuracy and ``n_test`` and with the estimator
refitted by hand (its predictions and decision values); McNemar's test of a predefined
split reads its pairs back from the file; and the data dictionary of the documentation
(``docs/user_guide/result_files.rst``) names every column the writers write.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krein.compare import Comparison, run_comparison
from krein.experiment import build_estimator, outer_splits
from krein.experiment.comparison_files import (COMPARISON_COLUMNS, PREDICTIONS_FILE,
                                               read_comparison, read_predictions)

ROOT = Path(__file__).resolve().parents[1]
DICTIONARY = ROOT / "docs" / "user_guide" / "result_files.rst"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two overlapping Gaussian classes as a sigmoid kernel (45 objects) with a 15-object
    test part, so that folds hold wrong predictions."""
    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 30)
    X = rng.normal(size=(60, 4)) + 0.6 * (y[:, None] == "b")
    K = np.tanh(0.2 * X @ X.T - 0.5)
    perm = rng.permutation(60)
    tr, te = perm[:45], perm[45:]
    d = tmp_path_factory.mktemp("results")
    np.save(d / "K.npy", K[np.ix_(tr, tr)])
    np.save(d / "K_test.npy", K[np.ix_(te, tr)])
    (d / "y.txt").write_text("".join(f"{v}\n" for v in y[tr]))
    (d / "y_test.txt").write_text("".join(f"{v}\n" for v in y[te]))
    return d


@pytest.fixture(scope="module")
def kfold_run(files, tmp_path_factory):
    out = tmp_path_factory.mktemp("kfold") / "run"
    res = run_comparison(Comparison(kernel_file=files / "K.npy", labels=files / "y.txt",
                                    methods="knn,esvm", tune=False, outer_folds=3),
                         progress=False, out=out)
    return res, out


def test_pandas_reads_every_per_object_result(kfold_run, files):
    res, out = kfold_run
    pred = pd.read_csv(out / PREDICTIONS_FILE)
    assert list(pred.columns) == list(COMPARISON_COLUMNS[PREDICTIONS_FILE])
    y = np.loadtxt(files / "y.txt", dtype=str)
    folds = pd.read_csv(out / "folds.csv")
    assert "test_correct" not in folds.columns    # no per-object string a reader can mangle
    for f in folds.itertuples():
        rows = pred[(pred["method"] == f.method) & (pred["repeat"] == f.repeat)
                    & (pred["fold"] == f.fold)]
        test = outer_splits(res.experiment.cells[0].params, res.data.y)[f.fold][1]
        assert rows["object"].tolist() == test.tolist()
        assert rows["y_true"].tolist() == y[test].tolist()
        assert len(rows) == f.n_test
        assert rows["correct"].sum() == round(f.accuracy * f.n_test)
        assert (rows["correct"] == (rows["y_true"] == rows["y_pred"])).all()
    assert (pred["correct"] == 0).any() and (pred["correct"] == 1).any()


def test_predictions_are_those_of_the_refitted_estimator(kfold_run, files):
    res, out = kfold_run
    pred = read_predictions(out)
    K = np.load(files / "K.npy")
    cell = next(c for c in res.experiment.cells if c.params["method"] == "esvm"
                and c.params["fold"] == 1)
    train, test = outer_splits(cell.params, res.data.y)[1]
    est = build_estimator("esvm", dict(res.method_params("esvm")), None, 0,
                          kernel="precomputed", kernel_params={})
    est.fit(K[np.ix_(train, train)], res.data.y[train])
    rows = pred[(pred["method"] == "esvm") & (pred["fold"] == 1)]
    np.testing.assert_array_equal(rows["y_pred"].to_numpy(),
                                  est.predict(K[np.ix_(test, train)]).astype(str))
    np.testing.assert_allclose(rows["decision"].to_numpy(),
                               est.decision_function(K[np.ix_(test, train)]), rtol=1e-6,
                               atol=1e-7)
    # no method was fitted with probability=True: the column is empty, read as NaN
    assert pred["probability"].isna().all() and pred["decision"].notna().all()


def test_a_predefined_split_pairs_its_objects_from_predictions(files, tmp_path):
    out = tmp_path / "run"
    res = run_comparison(Comparison(kernel_file=files / "K.npy", labels=files / "y.txt",
                                    methods="knn,svm,esvm", test_kernel_file=files / "K_test.npy",
                                    test_labels=files / "y_test.txt", tune=False),
                         progress=False, out=out)
    saved = read_comparison(out)
    # McNemar's pairs: the per-object record of each method, read back from the file
    assert list(saved.folds["test_correct"]) == list(res.folds["test_correct"])
    pred = pd.read_csv(out / PREDICTIONS_FILE)
    y_test = np.loadtxt(files / "y_test.txt", dtype=str)
    for m in ("knn", "svm", "esvm"):
        rows = pred[pred["method"] == m]
        assert rows["object"].tolist() == list(range(15))
        assert rows["y_true"].tolist() == y_test.tolist()


def _dictionary():
    """File -> the columns named in the data dictionary's tables."""
    text = DICTIONARY.read_text()
    out, current = {}, None
    for line in text.splitlines():
        head = re.match(r"^([a-z_]+\.csv)( and [a-z_]+\.csv)?$", line.strip())
        table = re.match(r"^\.\. list-table:: ([a-z_]+\.csv)$", line.strip())
        if table:
            current = table.group(1)
        elif head and not line.startswith(" "):
            current = head.group(1)
        cell = re.match(r"^   \* - ``([a-z0-9_]+)``$", line)
        if cell and current:
            out.setdefault(current, []).append(cell.group(1))
    return out


def test_the_data_dictionary_covers_every_column():
    documented = _dictionary()
    for name, columns in COMPARISON_COLUMNS.items():
        assert documented.get(name) == list(columns), name
    text = DICTIONARY.read_text()
    for entry in ("run.json", "args.json", "report.html", "cells/", ".lock", "percent",
                  "fraction"):
        assert entry in text, entry


def test_fold_predictions_record_the_probability_of_the_predicted_label():
    import json

    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.linear_model import LogisticRegression

    from krein.experiment.metrics import fold_predictions

    class Calibrated(ClassifierMixin, BaseEstimator):
        """A classifier with krein's ``probability`` switch (logistic regression inside)."""

        def __init__(self, probability=False):
            self.probability = probability

        def fit(self, X, y):
            self.model_ = LogisticRegression().fit(X, y)
            self.classes_ = self.model_.classes_
            return self

        def predict(self, X):
            return self.model_.predict(X)

        def decision_function(self, X):
            return self.model_.decision_function(X)

        def predict_proba(self, X):
            return self.model_.predict_proba(X)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, "p", "n")
    classes = np.unique(y)
    est = Calibrated(probability=True).fit(X[:40], y[:40])
    pred = est.predict(X[40:])
    rec = json.loads(fold_predictions(est, X[40:], pred, classes))
    idx = np.searchsorted(classes, pred)
    assert rec["pred"] == idx.tolist()
    proba = est.predict_proba(X[40:])[np.arange(20), idx]
    np.testing.assert_allclose(rec["probability"], proba, rtol=1e-7)
    np.testing.assert_allclose(rec["decision"], est.decision_function(X[40:]), rtol=1e-7)
    # without probability=True nothing is spent on it
    rec = json.loads(fold_predictions(Calibrated().fit(X[:40], y[:40]), X[40:], pred, classes))
    assert "probability" not in rec


def test_predictions_carry_the_object_names(files, tmp_path):
    K = np.load(files / "K.npy")
    y = np.loadtxt(files / "y.txt", dtype=str)
    names = [f"obj{i:02d}" for i in range(K.shape[0])]
    frame = pd.DataFrame(K, index=names, columns=names)
    frame.to_csv(tmp_path / "K.csv")                       # pandas: header row and index
    order = np.random.default_rng(0).permutation(len(names))  # labels in another order
    pd.DataFrame({"name": np.asarray(names)[order], "label": y[order]}).to_csv(
        tmp_path / "labels.csv", index=False)
    out = tmp_path / "run"
    run_comparison(Comparison(kernel_file=tmp_path / "K.csv", labels=tmp_path / "labels.csv",
                              methods="knn", tune=False, outer_folds=3), progress=False, out=out)
    pred = pd.read_csv(out / PREDICTIONS_FILE)
    assert pred["name"].tolist() == [names[i] for i in pred["object"]]
    assert pred["y_true"].tolist() == [y[i] for i in pred["object"]]
