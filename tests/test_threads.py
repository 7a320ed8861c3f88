"""The one-BLAS-thread session of ``conftest.py`` and its ``blas_threads`` opt-out."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_info


def _numpy_blas():
    """threadpoolctl's record of the BLAS NumPy links (``numpy.libs`` or a system one)."""
    info = [i for i in threadpool_info() if i["user_api"] == "blas"]
    own = [i for i in info if "numpy" in i["filepath"]]
    return (own or info)[0]


def test_session_runs_one_thread():
    assert all(i["num_threads"] == 1 for i in threadpool_info()), threadpool_info()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_child_processes_inherit_one_thread():
    code = ("import numpy; from threadpoolctl import threadpool_info; "
            "print(max(i['num_threads'] for i in threadpool_info()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


@pytest.mark.blas_threads(2)
def test_marker_lifts_the_limit():
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cpus or 1) < 2:
        pytest.skip("one CPU: OpenBLAS caps its threads at the CPU count")
    assert _numpy_blas()["num_threads"] == 2
    A = np.random.default_rng(0).normal(size=(50, 50))
    np.testing.assert_allclose(A @ np.linalg.inv(A), np.eye(50), atol=1e-8)


# ------------------------------------------------------------ krein's policy (krein._threads)
from krein import _threads  # noqa: E402
from krein.experiment import Experiment, run_experiment  # noqa: E402


def test_policy_values_and_errors(monkeypatch):
    assert _threads.check_blas_threads("AUTO") == "auto"
    assert _threads.check_blas_threads(" 3 ") == 3
    assert _threads.check_blas_threads("default") == "default"
    for bad in (0, -1, "0", "two", 1.5, True, None):
        with pytest.raises(ValueError, match="blas_threads: must be 'auto', 'default' or a "
                                             "positive integer"):
            _threads.check_blas_threads(bad)
    small, large = _threads.SMALL_KERNEL, _threads.SMALL_KERNEL + 1
    assert (_threads.threads_for(small, "auto"), _threads.threads_for(large, "auto")) == (1, None)
    assert (_threads.threads_for(large, 2), _threads.threads_for(small, "default")) == (2, None)
    monkeypatch.delenv(_threads.ENV_VAR, raising=False)
    assert _threads.resolve_blas_threads() == "auto"
    monkeypatch.setenv(_threads.ENV_VAR, "2")
    assert _threads.resolve_blas_threads() == 2
    assert _threads.resolve_blas_threads("default") == "default"   # the argument wins
    monkeypatch.setenv(_threads.ENV_VAR, "many")
    with pytest.raises(ValueError, match="environment variable KREIN_BLAS_THREADS"):
        _threads.resolve_blas_threads()


def _threads_seen(params):
    """A cell that reports the BLAS threads NumPy has inside ``fit_threads(n)``."""
    with _threads.fit_threads(params["n"]) as limit:
        inside = _numpy_blas()["num_threads"]
    return {"inside": inside, "limit": -1 if limit is None else limit,
            "after": _numpy_blas()["num_threads"]}


@pytest.mark.blas_threads(2)
@pytest.mark.parametrize("policy, expected", [
    ("auto", {10: 1, 5000: 2}), (1, {10: 1, 5000: 1}), ("default", {10: 2, 5000: 2})])
def test_runner_applies_the_policy_to_each_cell(tmp_path, policy, expected):
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cpus or 1) < 2:
        pytest.skip("one CPU: OpenBLAS caps its threads at the CPU count")
    exp = Experiment("threads", [{"n": 10}, {"n": 5000}], cell=_threads_seen)
    rows = run_experiment(exp, tmp_path, progress=False, blas_threads=policy).results
    seen = dict(zip(rows["n"], rows["inside"]))
    assert seen == expected
    assert set(rows["after"]) == {2}            # the limit ends with the fit
    assert _numpy_blas()["num_threads"] == 2    # and with the run


def test_classification_cell_fits_under_the_policy(monkeypatch):
    """The cell's selection and refit run inside ``fit_threads(n)`` of the whole data set."""
    import contextlib

    from krein.experiment import classification

    calls = []

    @contextlib.contextmanager
    def record(n):
        calls.append(n)
        yield 1

    monkeypatch.setattr(classification, "fit_threads", record)
    out = classification.classification_cell.__wrapped__(
        {"dataset": "checkerboard", "n_samples": 40, "method": "svm", "seed": 0,
         "kernel": "gaussian", "outer_folds": 2, "fold": 0})
    assert calls == [40] and out["n_train"] == 20
