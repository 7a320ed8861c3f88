"""``krein compare --dask ADDRESS``: the comparison's cells on a Dask cluster.

Checked against the local run of the same comparison (the reference): on a
``dask.distributed.LocalCluster`` (one worker process, one thread) ``summary.csv``,
``folds.csv`` and the decision boundaries of 2-D data are those of ``--n-jobs 1``,
timing columns aside, and the cells ran in the worker's process; a
``dask.distributed.Client`` passed to :func:`krein.compare.run_comparison` is used
and left open.  A bad address, an unreachable scheduler, dask.distributed missing
and ``--n-jobs`` with ``--dask`` are one line naming the option, exit status 2,
nothing written.
"""

from __future__ import annotations

import json
import os
import socket
import sys

import pandas as pd
import pytest

from krein.cli import main
from krein.compare import InvalidArgument, run_comparison

distributed = pytest.importorskip("dask.distributed")

#: A tuned comparison on 2-D data (so the boundary cells run too), a few seconds.
ARGS = ["compare", "--dataset", "checkerboard", "--n-samples", "60", "--methods", "svm,flip",
        "--cv", "2", "--grid", "C=0.1,10", "--no-progress"]


def _timeless(frame):
    """A table without its timing columns (the only ones a cluster may change)."""
    return frame[[c for c in frame.columns if "seconds" not in c]]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as c:
        yield c


def test_dask_run_gives_the_local_tables(cluster, tmp_path, capsys):
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert main([*ARGS, "--n-jobs", "1", "--out", str(local)]) == 0
    assert main([*ARGS, "--dask", cluster.scheduler_address, "--out", str(remote)]) == 0
    capsys.readouterr()
    for name in ("summary.csv", "folds.csv", "boundaries.csv", "points.csv"):
        a, b = (pd.read_csv(d / name, keep_default_na=False) for d in (local, remote))
        pd.testing.assert_frame_equal(_timeless(a), _timeless(b), check_exact=True,
                                      obj=name)
    folds = pd.read_csv(remote / "folds.csv")
    assert len(folds) == 4 and folds["error"].isna().all()
    cells = pd.read_csv(remote / "cells" / "results.csv")
    assert len(cells) == 4 and (cells["pid"] != os.getpid()).all()  # ran in the worker
    assert (pd.read_csv(local / "cells" / "results.csv")["pid"] == os.getpid()).all()
    run = json.loads((remote / "run.json").read_text())
    assert f"--dask {cluster.scheduler_address}" in run["command"]


def test_a_client_is_used_and_left_open(cluster):
    kw = dict(n_samples=60, methods=["svm"], outer_folds=2, tune=False, progress=False)
    local = run_comparison("sonar", **kw)
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        remote = run_comparison("sonar", scheduler=client, **kw)
        assert client.status == "running"
        assert client.submit(sum, [1, 2]).result() == 3
    pd.testing.assert_frame_equal(_timeless(local.folds), _timeless(remote.folds))
    with pytest.raises(InvalidArgument, match="n_jobs"):
        run_comparison("sonar", scheduler=cluster.scheduler_address, n_jobs=2, **kw)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _refused(args, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        main([*args, "--out", str(out)])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err and "Exception ignored" not in err, err
    assert not out.exists()  # nothing written
    return err


@pytest.mark.parametrize("address, piece", [
    ("foo", "missing port number"),
    ("nonsense://x:1", "unknown address scheme"),
    ("unreachable", "Timed out trying to connect"),
])
def test_bad_address_is_one_line_exit_2_nothing_written(address, piece, tmp_path, capsys):
    import dask

    if address == "unreachable":
        address = f"tcp://127.0.0.1:{_free_port()}"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        err = _refused([*ARGS, "--dask", address], tmp_path, capsys)
    assert err.startswith(f"krein compare: error: --dask: no Dask scheduler at '{address}'")
    assert piece in err


def test_without_dask_installed(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails
    err = _refused([*ARGS, "--dask", "tcp://127.0.0.1:8786"], tmp_path, capsys)
    assert err.startswith("krein compare: error: --dask: ")
    assert 'pip install "krein[dask]"' in err


def test_n_jobs_is_not_for_a_cluster(tmp_path, capsys):
    err = _refused([*ARGS, "--dask", "tcp://127.0.0.1:8786", "--n-jobs", "2"], tmp_path,
                   capsys)
    assert err.startswith("krein compare: error: --n-jobs: not used with a Dask scheduler")
