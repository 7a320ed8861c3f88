"""`krein compare` as a thin client: one declaration, the runner does
every fit, one definition of the comparison files.

Checked against: the keyword form and the declaration (`Comparison`) give the same
folds; the decision-boundary fits are cells of `krein.experiment.run_experiment`
(counted through the runner's `_execute`, resumed without a fit, a failed fit recorded
with the runner's error text); the columns the writer writes are the columns the
reader defines, and the reader type-checks every one of them.
"""

import dataclasses
import json
import os

import pandas as pd
import pytest

from krein.compare import FOLD_COLUMNS, SUMMARY_COLUMNS, InvalidArgument, run_comparison
from krein.experiment import page, runner
from krein.experiment.validate import ResultFileError

#: A small 2-D run: lp-svm rejects libsvm, so its folds and its boundary fit fail.
SMALL = dict(dataset="checkerboard", n_samples=40, methods=["svm", "lp-svm"], tune=False,
             solver="libsvm")


def _counting(monkeypatch):
    """Record the task of every cell the runner executes."""
    ran = []
    execute = runner._execute

    def spy(cell, key, *args):
        ran.append(cell.__name__)
        return execute(cell, key, *args)

    monkeypatch.setattr(runner, "_execute", spy)
    return ran


@pytest.fixture(scope="module")
def two_d_run(tmp_path_factory):
    from krein.compare import Comparison

    out = tmp_path_factory.mktemp("spine") / "run"
    spec = Comparison(outer_folds=2, random_state=1, **SMALL)
    with pytest.MonkeyPatch.context() as m:
        ran = _counting(m)
        result = run_comparison(spec, out=out, progress=False)
    return spec, result, out, ran


def test_one_declaration_validated_once():
    from krein.compare import Comparison

    spec = Comparison(dataset="checkerboard", n_samples=40, methods="svm, flip",
                      outer_folds=2, tune=False, C=2)
    assert spec.methods == ("svm", "flip") and spec.C == 2.0 and spec.grid == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.outer_folds = 3
    with pytest.raises(TypeError):
        Comparison("checkerboard")  # keyword-only
    with pytest.raises(InvalidArgument) as exc:
        Comparison(outer_folds=1)
    assert exc.value.argument == "outer_folds" and ">= 2" in exc.value.message
    with pytest.raises(TypeError, match="cv"):  # one name: outer_folds, never cv
        run_comparison(dataset="checkerboard", n_samples=40, cv=2, progress=False)
    a = run_comparison(spec, progress=False)
    b = run_comparison(dataset="checkerboard", n_samples=40, methods=["svm", "flip"], outer_folds=2,
                       tune=False, C=2, progress=False)
    assert a.comparison == b.comparison == spec
    assert a.outer_folds == 2 and a.random_state == 0
    cols = ["method", "repeat", "fold", "accuracy", "n_support", "error"]
    pd.testing.assert_frame_equal(a.folds[cols], b.folds[cols])
    assert list(a.summary.columns) == SUMMARY_COLUMNS and list(a.folds.columns) == FOLD_COLUMNS


def test_boundary_fits_are_cells_of_the_runner(two_d_run, monkeypatch):
    spec, result, out, ran = two_d_run
    assert ran.count("boundary_cell") == 2  # one per method, run by the runner
    assert [c.params["method"] for c in result.boundary_experiment.cells] == ["svm", "lp-svm"]
    cells = pd.read_csv(out / "cells" / "boundaries" / "results.csv", keep_default_na=False)
    status = dict(zip(cells["method"], cells["status"]))
    assert status == {"svm": "ok", "lp-svm": "error"}
    error = cells.set_index("method").loc["lp-svm", "error"]
    assert error.startswith("InvalidParameterError") and "libsvm" in error
    b = pd.read_csv(out / "boundaries.csv", keep_default_na=False)
    assert b[b["method"] == "lp-svm"]["error"].tolist() == [error]  # recorded, not swallowed
    svm = b[b["method"] == "svm"]
    assert len(svm) == 120 * 120 and (svm["error"] == "").all()
    # a resumed run reuses every cell, the boundary fits included
    again = _counting(monkeypatch)
    run_comparison(spec, out=out, progress=False, resume=True)
    assert again == []
    pd.testing.assert_frame_equal(pd.read_csv(out / "boundaries.csv", keep_default_na=False), b)


def test_the_files_are_defined_once(two_d_run):
    _, result, out, _ = two_d_run
    # the in-memory fold table adds the per-object records that predictions.csv holds
    assert tuple(FOLD_COLUMNS) == page.COMPARISON_COLUMNS["folds.csv"] + ("test_correct",
                                                                           "test_predictions")
    assert tuple(SUMMARY_COLUMNS) == page.COMPARISON_COLUMNS["summary.csv"]
    for name in ("summary.csv", "folds.csv", "predictions.csv", "points.csv", "boundaries.csv"):
        written = pd.read_csv(out / name, nrows=0).columns
        assert tuple(written) == page.COMPARISON_COLUMNS[name], name
    folds = pd.read_csv(out / "folds.csv", dtype=str, keep_default_na=False)
    assert (folds["certificate_value"][folds["method"] == "svm"] != "").all()
    folds.loc[0, "certificate_value"] = "garbled"
    folds.to_csv(out / "folds.csv", index=False)
    with pytest.raises(ResultFileError, match="certificate_value"):
        page.read_comparison(out)
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["cv"] == 2 and os.path.isfile(out / "report.html")
