"""Nested CV of ``krein compare``: the inner model selection is
scikit-learn's GridSearchCV on the same folds, the grids come from the registry, the
chosen parameters are recorded, the same seed gives the same table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score

from krein.compare import run_comparison
from krein.experiment import build_estimator, classification_cell, outer_splits
from krein.kernel_data import default_kernel_grid, load_kernel_data
from krein.registry import C_GRID, MU_GRID, RHO_GRID, default_grid, list_methods


@pytest.mark.parametrize("method, grid", [
    ("esvm", {"C": [0.01, 0.1, 1.0, 10.0]}),
    ("svm", {"C": [0.01, 0.1, 1.0, 10.0]}),
    ("clip-mds", {"C": [0.01, 1.0, 100.0]}),
    ("indefinite-svm", {"C": [0.1, 1.0], "rho": [0.1, 10.0]}),
    ("ch", {"mu": [0.1, 0.3, 1.0]}),
])
@pytest.mark.parametrize("fold", [0, 2])
def test_inner_selection_is_gridsearchcv_on_the_same_folds(method, grid, fold):
    """The parameters a cell chooses are those GridSearchCV chooses with the same inner
    folds on that outer training block (ties: the first in ParameterGrid order, both).

    The inner search fits IndefiniteSVC along C with warm starts, GridSearchCV cold:
    the two agree to the certified gap, so the comparison runs at a gap (tol 1e-9) far
    below the validation points' margins."""
    fixed = {"tol": 1e-9} if method == "indefinite-svm" else {}
    params = {"dataset": "sonar", "n_samples": 90, "method": method, "param_grid": grid,
              "outer_folds": 3, "fold": fold, "inner_folds": 3, "cv_seed": 7, "seed": 3,
              "save_trace": False, "method_params": fixed}
    out = classification_cell(params)
    data = load_kernel_data("sonar", n_samples=90, random_state=_data_seed(params))
    tr, te = list(StratifiedKFold(3, shuffle=True, random_state=7).split(data.K, data.y))[fold]
    np.testing.assert_array_equal(tr, outer_splits(params, data.y)[fold][0])
    est = build_estimator(method, fixed, random_state=_estimator_seed(params))
    search = GridSearchCV(est, grid, cv=StratifiedKFold(3, shuffle=True, random_state=7))
    search.fit(data.K[np.ix_(tr, tr)], data.y[tr])
    chosen = json.loads(out["best_params"])
    assert chosen == search.best_params_
    for k, v in search.best_params_.items():
        assert out[f"best_{k}"] == v
    assert out["inner_score"] == pytest.approx(search.best_score_, abs=1e-12)
    acc = search.score(data.K[np.ix_(te, tr)], data.y[te])
    assert out["accuracy"] == pytest.approx(acc, abs=1e-12)


def _data_seed(params):
    from krein.experiment.classification import _seeds

    return _seeds(params)["data"]


def _estimator_seed(params):
    from krein.experiment.classification import _seeds

    return _seeds(params)["estimator"]


def test_default_grids_live_in_the_registry():
    assert default_grid("esvm") == {"C": list(C_GRID)}
    assert default_grid("indefinite-svm") == {"C": list(C_GRID), "rho": list(RHO_GRID)}
    assert default_grid("ch") == {"mu": list(MU_GRID)}
    assert default_grid("rvm") == {}  # nothing to tune
    for m in list_methods(task="classifier"):
        accepted = build_estimator(m).get_params(deep=False)
        assert set(default_grid(m)) <= set(accepted), m
        if "C" in accepted:
            assert "C" in default_grid(m), m
    g = default_grid("esvm")
    g["C"].append(1e6)  # a copy: the registry is unchanged
    assert default_grid("esvm") == {"C": list(C_GRID)}
    assert default_kernel_grid("sigmoid", {"a": 0.1, "r": -1.0}) == {"a": [0.05, 0.1, 0.2]}
    assert default_kernel_grid("linear", {}) == {}
    assert default_kernel_grid("dissimilarity-linear", {}) == {}


def test_compare_tunes_by_default_and_records_the_choice():
    res = run_comparison("checkerboard", n_samples=60, kernel_params={"r": -0.5},
                         methods=["esvm", "rvm", "indefinite-svm"], outer_folds=3, progress=False,
                         grid={"C": [0.1, 10.0], "rho": [1.0]})
    assert res.tuned
    assert res.grids == {"esvm": {"C": [0.1, 10.0]}, "rvm": {},
                         "indefinite-svm": {"C": [0.1, 10.0], "rho": [1.0]}}
    a = res.data.kernel_params["a"]
    assert res.kernel_grid == {"a": [0.5 * a, a, 2 * a]}  # r given: only a is tuned
    f = res.folds.set_index(["method", "fold"])
    for fold in range(3):
        best = json.loads(f.loc[("esvm", fold), "best_params"])
        assert set(best) == {"C", "kernel_a"} and best["C"] in (0.1, 10.0)
        assert json.loads(f.loc[("rvm", fold), "best_params"]) == {
            "kernel_a": json.loads(f.loc[("rvm", fold), "best_params"])["kernel_a"]}
    s = res.summary.set_index("method")
    chosen = json.loads(s.loc["indefinite-svm", "best_params"])
    per_fold = [json.loads(b)["C"] for b in f.loc["indefinite-svm", "best_params"]]
    assert chosen["C"] == max(set(per_fold), key=per_fold.count)
    assert chosen["rho"] == 1.0


def test_no_tune_and_fixed_C():
    res = run_comparison("checkerboard", n_samples=60, methods=["esvm", "ch"], outer_folds=3,
                         progress=False, tune=False, C=10.0)
    assert not res.tuned and res.grids == {"esvm": {}, "ch": {}} and res.kernel_grid == {}
    assert (res.folds["best_params"] == "{}").all()
    res = run_comparison("checkerboard", n_samples=60, methods=["esvm"], outer_folds=3,
                         progress=False, C=10.0, grid={"a": [1.0, 2.0]})
    assert res.grids == {"esvm": {}} and res.kernel_grid == {"a": [1.0, 2.0]}


def test_same_seed_same_table():
    """Every estimator's random_state comes from the run's seed: ch (multi-start) and the
    RVM give identical tables in two runs."""
    kw = dict(n_samples=60, methods=["ch", "rvm"], outer_folds=3, progress=False,
              grid={"mu": [0.3, 1.0]}, kernel_params={"a": 4 / 60})
    a = run_comparison("sonar", **kw)
    b = run_comparison("sonar", **kw)
    cols = ["method", "fold", "accuracy", "best_params", "n_support"]
    pd.testing.assert_frame_equal(a.folds[cols], b.folds[cols])
    c = run_comparison("sonar", random_state=1, **kw)
    assert not a.folds["accuracy"].equals(c.folds["accuracy"])  # another seed, other folds


def test_same_file_in_another_directory_same_table(tmp_path, monkeypatch):
    """The estimator's seed does not depend on where the user's file lies: the same
    kernel file in two directories, one named by a relative path, gives the same table
    for the multi-start ch and the RVM (their random starts come from that seed, which
    leaves the paths out: otherwise every temporary directory would give ch other starts,
    other local optima and other accuracies)."""
    data = load_kernel_data("sonar", n_samples=60, kernel_params={"a": 4 / 60})
    for sub in ("a", "b/deeper"):
        (tmp_path / sub).mkdir(parents=True)
        np.save(tmp_path / sub / "mine.npy", data.K)
        np.savetxt(tmp_path / sub / "mine-labels.txt", data.y, fmt="%d")
    kw = dict(methods=["ch", "rvm"], outer_folds=3, progress=False, grid={"mu": [0.3, 1.0]})
    def cells(out, **more):   # the per-cell results (with the iterations of the refit)
        res = pd.read_csv(out / "cells" / "results.csv").sort_values(["method", "fold"])
        return res[["method", "fold", "accuracy", "inner_score", "best_params", "n_support",
                    "n_iter", "test_correct"]].reset_index(drop=True)

    run_comparison(kernel_file=tmp_path / "a" / "mine.npy",
                   labels=tmp_path / "a" / "mine-labels.txt", out=tmp_path / "ra", **kw)
    monkeypatch.chdir(tmp_path / "b")
    run_comparison(kernel_file="deeper/mine.npy", labels="deeper/mine-labels.txt",
                   out=tmp_path / "rb", **kw)
    a, b = cells(tmp_path / "ra"), cells(tmp_path / "rb")
    pd.testing.assert_frame_equal(a, b)
    run_comparison(kernel_file="deeper/mine.npy", labels="deeper/mine-labels.txt",
                   out=tmp_path / "rc", random_state=1, **kw)
    assert not cells(tmp_path / "rc")["n_iter"].equals(a["n_iter"])   # the seed does count


def test_seeds_of_a_cell_ignore_the_file_location_only():
    """location_free reduces the data files' paths to their names and leaves a catalogue
    cell as it is (the seeds of every paper reproduction stay what they were)."""
    from krein.experiment.classification import _seeds
    from krein.experiment.seeds import cell_seed, location_free

    def cell(path, labels, **extra):
        spec = {"kind": "kernel", "path": path, "labels": labels, "label_column": None,
                "symmetrize": False, **extra}
        return {"seed": 0, "dataset": "mine", "method": "ch", "fold": 1, "data_file": spec}

    a = cell("/home/u/data/mine.npy", "/home/u/data/y.txt")
    b = cell("mine.npy", "../y.txt")
    c = cell("C:\\Users\\u\\mine.npy", "C:\\Users\\u\\y.txt")
    assert _seeds(a) == _seeds(b) == _seeds(c)
    assert location_free(a)["data_file"]["path"] == "mine.npy" and a["data_file"]["path"] \
        == "/home/u/data/mine.npy"                                   # the cell is not changed
    other = cell("/home/u/data/other.npy", "/home/u/data/y.txt")     # another file name
    assert _seeds(other)["estimator"] != _seeds(a)["estimator"]
    assert _seeds(cell("/x/mine.npy", "/x/y.txt", symmetrize=True))["estimator"] \
        != _seeds(a)["estimator"]                                    # another option
    catalogue = {"seed": 0, "dataset": "sonar", "method": "ch", "fold": 1}
    assert location_free(catalogue) is catalogue
    assert _seeds(catalogue)["estimator"] == cell_seed(catalogue, salt="estimator")


def test_readme_python_example_matches_the_main_job():
    """cross_val_score over GridSearchCV with StratifiedKFold(..., shuffle=True,
    random_state=seed) gives the accuracy of `krein compare --grid-extension 0` (the
    grids searched as given) with that seed."""
    from krein import ESVC
    from krein.kernels import kernel_scale

    res = run_comparison("sonar", methods=["esvm"], progress=False, n_samples=100,
                         grid_extension=0)
    data = res.data
    a = data.kernel_params["a"]
    outer = StratifiedKFold(5, shuffle=True, random_state=0)
    inner = StratifiedKFold(3, shuffle=True, random_state=0)
    s = kernel_scale(data.K)  # the default grid of C is relative to the kernel's scale
    assert res.kernel_scale == s
    grid = [{"kernel_params": [{"a": f * a, "r": -2.0}], "C": [c / s for c in C_GRID]}
            for f in (0.5, 1.0, 2.0)]
    search = GridSearchCV(ESVC(kernel="sigmoid"), grid, cv=inner)
    scores = cross_val_score(search, data.X, data.y, cv=outer)
    np.testing.assert_allclose(scores, res.folds["accuracy"].to_numpy(), atol=1e-12)
