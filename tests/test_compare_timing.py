"""The large-data comparison times everything it does.

* the boundary models are fitted on at most BOUNDARY_SAMPLE points (stratified, seeded);
* the printed / recorded total covers the boundary cells and the files, and the boundary
  time is its own field of ``run.json``;
* the approximation's features are computed once per training block and kernel
  parameters (krein._cache), with the fold accuracies of the uncached path.
"""

import json
import time

import numpy as np
import pytest

import krein.compare as compare_module
import krein.estimators.approximate as approximate_module
import krein.experiment.boundaries as boundaries_module
import krein.experiment.page as page_module
from krein.approximation import IndefiniteNystroem
from krein.compare import run_comparison
from krein.experiment.boundaries import BOUNDARY_SAMPLE, boundary_sample

SMALL = dict(dataset="checkerboard", kernel="sigmoid", outer_folds=2, progress=False)


def test_boundary_sample_rule():
    rng = np.random.default_rng(0)
    y = np.where(rng.random(5000) < 0.2, "a", "b")
    idx = boundary_sample(y, random_state=3)
    assert BOUNDARY_SAMPLE == 2000 and idx.size == BOUNDARY_SAMPLE
    assert np.all(np.diff(idx) > 0) and idx[-1] < y.size          # sorted, distinct rows
    # stratified: each class's share of the sample is its share of the data (to one point)
    for c in ("a", "b"):
        assert abs(np.sum(y[idx] == c) - BOUNDARY_SAMPLE * np.mean(y == c)) <= 1
    np.testing.assert_array_equal(idx, boundary_sample(y, random_state=3))   # seeded
    assert not np.array_equal(idx, boundary_sample(y, random_state=4))
    np.testing.assert_array_equal(boundary_sample(y[:BOUNDARY_SAMPLE], random_state=3),
                                  np.arange(BOUNDARY_SAMPLE))      # small data: every point


def test_boundary_models_are_fitted_on_the_sample(monkeypatch):
    """A boundary cell on 2 600 points fits on 2 000 of them and predicts the whole grid."""
    sizes = []
    build = boundaries_module.build_estimator

    def recording_build(*args, **kwargs):
        est = build(*args, **kwargs)
        fit = est.fit

        def fit_and_record(X, y):
            sizes.append(len(y))
            return fit(X, y)
        est.fit = fit_and_record
        return est

    monkeypatch.setattr(boundaries_module, "build_estimator", recording_build)
    data = {"dataset": "checkerboard", "n_samples": 2600, "kernel": "sigmoid",
            "approximation": "nystroem:30"}
    out = boundaries_module.boundary_cell({"data": data, "method": "esvm",
                                           "method_params": {"C": 1.0}, "kernel_choice": {},
                                           "solver": None, "grid": 20, "seed": 0})
    assert sizes == [BOUNDARY_SAMPLE] and out["n_fit"] == BOUNDARY_SAMPLE
    assert len(out["trace"]) == 20 * 20
    assert 0.5 < out["train_accuracy"] <= 1.0


def test_the_total_covers_the_boundaries_and_the_files(monkeypatch, tmp_path):
    """A slow boundary cell and a slow page show up in the total, printed and recorded."""
    cell, write_report = compare_module.boundary_cell, page_module.write_report

    def slow_cell(params):
        time.sleep(0.6)
        return cell(params)

    def slow_report(out):
        time.sleep(0.6)
        return write_report(out)

    monkeypatch.setattr(compare_module, "boundary_cell", slow_cell)
    monkeypatch.setattr(page_module, "write_report", slow_report)
    t0 = time.perf_counter()
    res = run_comparison(**SMALL, n_samples=60, methods=["esvm"], tune=False,
                         out=str(tmp_path / "run"))
    wall = time.perf_counter() - t0
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["boundary_seconds"] >= 0.6 and run["output_seconds"] >= 0.6
    assert run["seconds"] >= run["boundary_seconds"] + run["output_seconds"]
    assert run["seconds"] == pytest.approx(res.seconds) and res.seconds <= wall
    assert res.boundary_seconds == pytest.approx(run["boundary_seconds"])


def test_no_boundary_time_without_boundaries():
    res = run_comparison(**SMALL, n_samples=40, methods=["esvm"], tune=False)
    assert np.isnan(res.boundary_seconds) and np.isnan(res.output_seconds)


def test_cached_features_give_the_uncached_fold_accuracies(monkeypatch):
    """Tuning C on an approximated run: the features are computed once per block (not once
    per fit) and the folds are those of the uncached path."""
    calls = []
    fit = IndefiniteNystroem._fit

    def counting_fit(self, *args, **kwargs):
        calls.append(1)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(IndefiniteNystroem, "_fit", counting_fit)
    # fixed kernel parameters: no kernel grid, the grid is C's (3 values), searched as
    # given (grid_extension=0: the counts below are per grid point)
    kw = dict(SMALL, n_samples=200, methods=["esvm", "clip"], approximation="nystroem:30",
              inner_folds=2, kernel_params={"a": 2.0, "r": -2.0}, grid_extension=0)
    cached = run_comparison(**kw)
    n_cached = len(calls)
    calls.clear()
    monkeypatch.setattr(approximate_module, "shared_computations_active", lambda: False)
    uncached = run_comparison(**kw)
    n_uncached = len(calls)
    a, b = cached.folds, uncached.folds
    assert (a["error"] == "").all(), a["error"].tolist()
    np.testing.assert_array_equal(a["accuracy"].to_numpy(), b["accuracy"].to_numpy())
    assert a["best_params"].tolist() == b["best_params"].tolist()
    assert set(cached.grids["esvm"]) == {"C"} and len(cached.grids["esvm"]["C"]) == 3
    # both: one fit on all the data (the spectrum of run.json); uncached: one per method x
    # fold x (C x inner fold + refit); cached: one per training block (2 inner blocks and
    # the outer one per fold, shared by C's grid and by the two methods)
    assert n_uncached == 1 + 2 * 2 * (3 * 2 + 1)
    assert n_cached == 1 + 2 * (2 + 1)
