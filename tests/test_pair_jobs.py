"""The runner's joblib context around each cell.

A cell reads joblib's active configuration (the ``n_jobs`` a ``joblib.Parallel()``
without arguments takes, which ``fit_pairs`` resolves; ``joblib.effective_n_jobs``
would cap it at this machine's cores): all free cores when the cells run serially or fewer
cells are in flight than cores, one when the cells occupy every core.
"""

from __future__ import annotations

import joblib
import pytest

from krein.experiment import Experiment, cartesian, run_experiment
from krein.experiment import runner


def _pair_workers(params):
    return {"pair_jobs": int(joblib.Parallel().n_jobs)}


@pytest.mark.parametrize("n_jobs, n_cells, cores, expected", [
    (1, 10, 8, 8),      # serial: one cell in flight, every core for its pairs
    (2, 10, 8, 4),      # two workers: half each
    (4, 2, 8, 4),       # two cells left for four workers: two in flight
    (8, 10, 8, 1),      # cells on all cores: one (as before)
    (-1, 10, 8, 1),     # -1: all cores
    (3, 10, 2, 1),      # more workers than cores: never below one
    (1, 0, 4, 4),
])
def test_pair_jobs_share_of_free_cores(n_jobs, n_cells, cores, expected):
    assert runner.pair_jobs(n_jobs, n_cells, cores=cores) == expected


def test_serial_cells_get_every_core(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "_cores", lambda: 6)
    exp = Experiment("pairs", cartesian(i=range(2)), cell=_pair_workers)
    report = run_experiment(exp, tmp_path, n_jobs=1, progress=False)
    assert report.n_errors == 0
    assert list(report.results["pair_jobs"]) == [6, 6]
    # outside the run joblib's configuration is untouched
    assert joblib.Parallel().n_jobs in (None, 1)


def test_joblib_cells_on_all_cores_get_one(tmp_path, monkeypatch):
    # two workers on "two cores": the cells fill the machine, the pairs stay serial;
    # two workers on "eight cores": each cell gets four
    monkeypatch.setattr(runner, "_cores", lambda: 2)
    exp = Experiment("pairs", cartesian(i=range(2)), cell=_pair_workers)
    full = run_experiment(exp, tmp_path / "full", n_jobs=2, progress=False)
    assert list(full.results["pair_jobs"]) == [1, 1]
    monkeypatch.setattr(runner, "_cores", lambda: 8)
    share = run_experiment(exp, tmp_path / "share", n_jobs=2, progress=False)
    assert list(share.results["pair_jobs"]) == [4, 4]


def test_rvc_one_vs_rest_problems_over_joblib_processes(monkeypatch):
    # RVC's one-vs-rest problems go through the base's fit_pairs in processes (its IRLS
    # is Python-bound); two workers give the very models of the serial fit
    import numpy as np
    from sklearn.datasets import make_blobs

    from krein.estimators import base as base_module
    from krein.estimators.rvm import RVC

    calls = []
    real = base_module.fit_pairs

    def recording(fit_binary, problems, n_problems, **kw):
        calls.append((n_problems, kw.get("prefer"), joblib.Parallel().n_jobs))
        return real(fit_binary, problems, n_problems, **kw)

    monkeypatch.setattr(base_module, "fit_pairs", recording)
    X, y = make_blobs(n_samples=45, centers=3, cluster_std=2.0, random_state=0)
    serial = RVC(kernel="rbf", kernel_params={"gamma": 0.5}).fit(X, y)
    with joblib.parallel_config(n_jobs=2):
        workers = RVC(kernel="rbf", kernel_params={"gamma": 0.5}).fit(X, y)
    assert calls == [(3, "processes", 1), (3, "processes", 2)]
    np.testing.assert_array_equal(serial.decision_function(X), workers.decision_function(X))
    np.testing.assert_array_equal(serial.predict(X), workers.predict(X))
