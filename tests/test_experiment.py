"""Tests of the experiment runner (krein.experiment, krein.experiment.store, krein.experiment.report, the CLI).

What is checked, and against what:

* keys: every row's key is the SHA-256 of its stored configuration, recomputed
  here with hashlib/json (not with krein's function);
* model selection: :func:`classification_cell` picks the same ``C`` (and
  kernel parameter), inner score and test accuracy as scikit-learn's
  ``GridSearchCV`` on the sliced kernel; the per-fold dissimilarity kernel
  matches :func:`krein.kernels.dissimilarity_kernel` on the training objects;
* metrics: :func:`classification_metrics` against ``sklearn.metrics``; the
  solver axis records the solver, its installed version and the CVXPY status;
* determinism, joblib and Dask: the result tables of two serial runs, a joblib
  run and a Dask ``LocalCluster`` run (worker processes, so the script's cell
  function travels by value) are equal, volatile columns aside;
* failures: a raising cell is a row with its error, the grid completes, a rerun
  skips it and ``retry_errors`` recomputes it; a grown or different grid keeps
  the finished rows (read back and rewritten byte for byte);
* resume: a CLI run killed with SIGKILL after k rows, then restarted, ends with
  every cell once, and the cells finished before the kill are neither run
  again (counter file) nor rewritten (row text unchanged); the same after a
  KeyboardInterrupt in-process;
* atomicity: a writer rewriting a growing results file is SIGKILLed at random
  moments; the file always parses to a complete prefix of rows;
* tables and figures from a results file only, against pandas aggregates;
* every script in ``experiments/`` runs with ``--quick`` (discovered, so new
  scripts are covered) with every cell ``ok``.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krein.experiment.store import ResultsStore, flatten_params
from krein.cli import main
from krein.experiment import (Experiment, cartesian, cell_seed, classification_cell,
                              classification_grid, classification_metrics, load_experiment,
                              plot_results, read_results, results_table, run_experiment,
                              summarize, volatile_columns)

REPO = Path(__file__).resolve().parents[1]
EXPERIMENTS = sorted(p for p in (REPO / "experiments").glob("*.py") if not p.name.startswith("_"))
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
       "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}

#: A small classification grid plus one cell that raises (run serially, with joblib, Dask).
TINY_SCRIPT = textwrap.dedent('''
    from krein.experiment import Experiment, classification_cell, classification_grid

    def cell(params):
        if params.pop("fail"):
            raise RuntimeError("boom in a cell")
        return classification_cell(params)

    def experiment(quick=False):
        grid = classification_grid(
            [{"dataset": "checkerboard", "n_samples": 60}], ["esvm", "svm", "indefinite-svm"],
            kernels=[{"kernel": "sigmoid", "params": {"a": 1.0, "r": -0.5}}],
            param_grid={"C": [0.1, 1.0]}, outer_folds=2, repeats=2, inner_folds=2)
        grid = [dict(g, fail=False) for g in grid] + [{"fail": True}]
        return Experiment("tiny", grid, cell=cell)
''')

#: Cells that sleep and append their key to a counter file when they start.
SLOW_SCRIPT = textwrap.dedent('''
    import os, time
    from krein.experiment import Experiment, cartesian

    COUNTER = {counter!r}
    STOP_AFTER = {stop_after!r}

    def slow(params):
        with open(COUNTER, "a") as f:
            f.write(f"{{params['i']}}\\n")
        if STOP_AFTER is not None:
            with open(COUNTER) as f:
                if len(f.read().split()) > STOP_AFTER:
                    raise KeyboardInterrupt
        time.sleep(params["sleep"])
        return {{"square": params["i"] ** 2, "pid_seen": os.getpid() > 0}}

    EXPERIMENT = Experiment("slow", cartesian(i=range(12), sleep={sleep}), cell=slow)
    QUICK_EXPERIMENT = EXPERIMENT
''')


def _strip(df):
    return df.drop(columns=volatile_columns(df)).reset_index(drop=True)


@pytest.fixture(scope="module")
def tiny_script(tmp_path_factory):
    path = tmp_path_factory.mktemp("scripts") / "tiny.py"
    path.write_text(TINY_SCRIPT)
    return path


@pytest.fixture(scope="module")
def tiny_run(tiny_script, tmp_path_factory):
    exp = load_experiment(tiny_script)
    out = tmp_path_factory.mktemp("tiny_serial")
    return exp, run_experiment(exp, out, progress=False)


# --------------------------------------------------------------------------- declaration
def test_keys_are_hashes_of_the_stored_configuration(tiny_run):
    exp, report = tiny_run
    df = report.results
    assert len(df) == len(exp.cells) == 13 and df["key"].is_unique
    assert list(df["key"]) == [c.key for c in exp.cells]  # rows in grid order
    for _, row in df.iterrows():
        cfg = json.loads(row["config"])
        text = json.dumps(cfg, sort_keys=True, separators=(",", ":"))
        assert hashlib.sha256(text.encode()).hexdigest()[:16] == row["key"]
        assert cfg["task"] == "cell" and cfg["params"]["seed"] == 0
        for col, v in flatten_params(cfg["params"]).items():  # tidy parameter columns
            if v is None:
                assert pd.isna(row[col])
            elif isinstance(v, (bool, str)):
                assert str(row[col]) == str(v), col
            else:
                assert float(row[col]) == float(v), col
    assert report.n_cells == 13 and report.n_run == 13 and report.n_skipped == 0
    for col in ["version_krein", "version_numpy", "version_scipy", "version_cvxpy",
                "version_scikit-learn", "host", "timestamp", "solver_version", "fit_seconds",
                "predict_seconds", "n_support", "min_eigenvalue", "sensitivity",
                "specificity", "recall", "average", "solver_status"]:
        assert col in df.columns, col
    ok = df[df["status"] == "ok"]
    assert (ok["solver_used"][ok["method"] == "esvm"] == "libsvm").all()
    assert (ok["solver_version"][ok["method"] == "esvm"] != "").all()
    assert (ok["n_train"] + ok["n_test"] == 60).all()


def test_same_folds_for_every_method(tiny_run):
    _, report = tiny_run
    ok = report.results[report.results["status"] == "ok"]
    per = ok.groupby(["repeat", "fold"])[["n_test", "min_eigenvalue"]].nunique()
    assert (per == 1).all().all()  # one training block per (repeat, fold), whatever the method
    # another repeat draws another board and other folds
    eig = ok.groupby("repeat")["min_eigenvalue"].first()
    assert eig.nunique() == 2


def test_experiment_rejects_bad_declarations():
    with pytest.raises(ValueError, match="name"):
        Experiment("a b", [{"x": 1}], cell=lambda p: {})
    with pytest.raises(ValueError, match="empty"):
        Experiment("e", [], cell=lambda p: {})
    with pytest.raises(ValueError, match="reserved"):
        Experiment("e", [{"seed": 1}], cell=lambda p: {})
    with pytest.raises(ValueError, match="same configuration"):
        Experiment("e", [{"x": 1}, {"x": 1}], cell=lambda p: {})
    with pytest.raises(ValueError, match=r"grid\[0\]\.x"):
        Experiment("e", [{"x": object()}], cell=lambda p: {})
    with pytest.raises(ValueError, match="random_state"):
        Experiment("e", [{"x": 1}], cell=lambda p: {}, random_state=-1)
    with pytest.raises(ValueError, match="cell"):
        Experiment("e", [{"x": 1}], cell=3)
    with pytest.raises(ValueError, match="unknown data set"):
        classification_grid(["nope"], ["esvm"])
    with pytest.raises(ValueError, match="has no parameter"):
        classification_grid(["sonar"], [{"method": "esvm", "grid": {"rho": [1.0]}}])
    with pytest.raises(ValueError, match="unknown method"):
        classification_grid(["sonar"], ["nope"])
    with pytest.raises(ValueError, match="folds"):
        classification_grid(["sonar"], ["esvm"], outer_folds=1)
    exp = Experiment("e", [{"x": 1}], cell=lambda p: {})
    with pytest.raises(ValueError, match="n_jobs"):
        run_experiment(exp, "unused", n_jobs=0)
    with pytest.raises(ValueError, match="scheduler"):
        run_experiment(exp, "unused", backend="dask")
    with pytest.raises(ValueError, match="backend"):
        run_experiment(exp, "unused", backend="threads")
    with pytest.raises(ValueError, match="no such file"):
        load_experiment("does/not/exist.py")


def test_cartesian_and_cell_seed():
    g = cartesian(a=[1, 2], b=range(3), c={"k": 1})
    assert len(g) == 6 and g[1] == {"a": 1, "b": 1, "c": {"k": 1}}
    p = {"dataset": "x", "repeat": 0, "method": "esvm", "seed": 0}
    q = dict(p, method="svm")
    assert cell_seed(p, "dataset", "repeat") == cell_seed(q, "dataset", "repeat")
    assert cell_seed(p) != cell_seed(q)
    assert cell_seed(p, "dataset", salt="a") != cell_seed(p, "dataset", salt="b")
    assert cell_seed(dict(p, seed=1), "dataset") != cell_seed(p, "dataset")
    assert 0 <= cell_seed(p) < 2**32


# --------------------------------------------------------------------------- classification
def test_classification_metrics_match_sklearn():
    from sklearn.metrics import accuracy_score, confusion_matrix, recall_score

    rng = np.random.default_rng(3)
    y = rng.choice([-1, 1], 50)
    p = np.where(rng.random(50) < 0.7, y, -y)
    m = classification_metrics(y, p)
    (tn, fp), (fn, tp) = confusion_matrix(y, p, labels=[-1, 1])
    assert m["accuracy"] == pytest.approx(accuracy_score(y, p))
    assert m["recall"] == pytest.approx(recall_score(y, p, pos_label=1))
    assert m["sensitivity"] == pytest.approx(tp / (tp + fn))
    assert m["specificity"] == pytest.approx(tn / (tn + fp))
    assert m["average"] == pytest.approx((m["accuracy"] + m["recall"]) / 2)
    y3 = rng.integers(0, 3, 40)
    p3 = np.where(rng.random(40) < 0.6, y3, (y3 + 1) % 3)
    m3 = classification_metrics(y3, p3)
    assert m3["recall"] == pytest.approx(recall_score(y3, p3, average="macro"))
    assert np.isnan(m3["sensitivity"]) and np.isnan(m3["specificity"])
    with pytest.raises(ValueError, match="y_true"):
        classification_metrics([1, 2], [1])


def test_inner_cv_agrees_with_gridsearchcv():
    """The manual inner CV chooses what GridSearchCV chooses on the sliced kernel block."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from krein import make_method
    from krein.kernel_data import load_kernel_data

    C_grid, a_grid = [0.01, 0.1, 1.0, 10.0], [0.25, 1.0]
    params = {"dataset": "checkerboard", "n_samples": 90, "kernel": "sigmoid",
              "kernel_params": {"r": -0.5}, "kernel_grid": {"a": a_grid}, "method": "esvm",
              "param_grid": {"C": C_grid}, "outer_folds": 3, "fold": 1, "repeat": 0,
              "inner_folds": 3, "seed": 7, "save_trace": False}
    out = classification_cell(params)
    base = ("dataset", "n_samples", "binary", "repeat")
    data_seed = cell_seed(params, *base, salt="data")
    outer = StratifiedKFold(3, shuffle=True,
                            random_state=cell_seed(params, *base, "outer_folds", salt="outer"))
    inner = StratifiedKFold(3, shuffle=True, random_state=cell_seed(
        params, *base, "outer_folds", "fold", "inner_folds", salt="inner"))
    best = None
    for a in a_grid:  # kernel parameters vary slowest; the first maximum wins
        d = load_kernel_data("checkerboard", "sigmoid", {"a": a, "r": -0.5}, n_samples=90,
                             random_state=data_seed)
        tr, te = list(outer.split(np.zeros((90, 1)), d.y))[1]
        gs = GridSearchCV(make_method("esvm", kernel="precomputed"), {"C": C_grid}, cv=inner,
                          scoring="accuracy").fit(d.K[np.ix_(tr, tr)], d.y[tr])
        if best is None or gs.best_score_ > best[0]:
            best = (gs.best_score_, a, gs, d, tr, te)
    score, a, gs, d, tr, te = best
    assert out["best_kernel_a"] == a and out["best_C"] == gs.best_params_["C"]
    assert out["inner_score"] == pytest.approx(score, abs=1e-12)
    assert out["accuracy"] == pytest.approx(gs.score(d.K[np.ix_(te, tr)], d.y[te]), abs=1e-12)
    assert out["n_train"] == tr.size and out["n_test"] == te.size
    assert out["min_eigenvalue"] == pytest.approx(
        np.linalg.eigvalsh(d.K[np.ix_(tr, tr)])[0], rel=1e-9)


def test_solver_axis_status_and_version():
    from importlib import metadata

    grid = classification_grid([{"dataset": "checkerboard", "n_samples": 40}], ["esvm", "svm"],
                               kernels=[{"kernel": "sigmoid", "params": {"a": 1.0, "r": -0.5}}],
                               solvers=["libsvm", "CLARABEL"], outer_folds=2)
    # svm (libsvm only, no solver parameter) is not crossed with the solvers
    assert [(c["method"], c["solver"]) for c in grid[::2]] == [
        ("esvm", "libsvm"), ("esvm", "CLARABEL"), ("svm", None)]
    out = classification_cell(dict(grid[2], seed=0))
    assert out["solver_used"] == "CLARABEL" and out["solver_status"] == "optimal"
    assert out["solver_version"] == metadata.version("clarabel")
    assert np.isfinite(out["objective"]) and abs(out["gap"]) < 1e-5
    out = classification_cell(dict(grid[0], seed=0))
    assert out["solver_used"] == "libsvm" and out["solver_status"] == "converged"
    assert out["solver_version"] == metadata.version("scikit-learn")


def test_per_fold_dissimilarity_kernel():
    """dissimilarity-linear folds use the training centering (krein.compare's rule)."""
    from sklearn.model_selection import StratifiedKFold

    from krein.datasets import load_dissimilarity
    from krein.kernels import dissimilarity_kernel

    params = {"dataset": "catcortex", "binary": "paper", "kernel": "dissimilarity-linear",
              "method": "svm", "param_grid": {"C": [0.1, 1.0]}, "outer_folds": 2, "fold": 0,
              "inner_folds": 2, "seed": 0}
    out = classification_cell(params)
    D, y = load_dissimilarity("catcortex", binary="paper")
    skf = StratifiedKFold(2, shuffle=True, random_state=cell_seed(
        params, "dataset", "n_samples", "binary", "repeat", "outer_folds", salt="outer"))
    tr, _ = next(skf.split(np.zeros((y.size, 1)), y))
    K_tr = dissimilarity_kernel(D[np.ix_(tr, tr)], kind="linear")
    assert out["min_eigenvalue"] == pytest.approx(np.linalg.eigvalsh(K_tr)[0], rel=1e-9)
    assert out["min_eigenvalue"] < 0 and 0 <= out["accuracy"] <= 1
    with pytest.raises(ValueError, match="unknown parameter"):
        classification_cell(dict(params, C=1.0))
    with pytest.raises(ValueError, match="fold"):
        classification_cell(dict(params, fold=2))


# --------------------------------------------------------------------------- runs
def test_determinism_rerun_and_errors(tiny_script, tiny_run, tmp_path):
    exp, first = tiny_run
    second = run_experiment(load_experiment(tiny_script), tmp_path / "again", progress=False)
    pd.testing.assert_frame_equal(_strip(first.results), _strip(second.results))
    # the failing cell: a row with its error; every other cell finished
    df = first.results
    err = df[df["status"] == "error"]
    assert len(err) == 1 and first.n_errors == 1
    assert err["error"].iloc[0].startswith("RuntimeError: boom in a cell [at tiny.py:")
    assert (df["status"] == "ok").sum() == 12
    assert (df.loc[df["status"] == "ok", "error"] == "").all()
    assert df.loc[df["status"] == "ok", "accuracy"].between(0, 1).all()
    # a rerun computes nothing; retry_errors recomputes only the error row
    again = run_experiment(exp, tmp_path / "again", progress=False)
    assert again.n_run == 0 and again.n_skipped == 13
    retry = run_experiment(exp, tmp_path / "again", progress=False, retry_errors=True)
    assert retry.n_run == 1 and retry.n_errors == 1 and len(retry.results) == 13


def test_grid_changes_keep_finished_rows(tmp_path):
    def square(params):
        return {"square": params["i"] ** 2}

    first = run_experiment(Experiment("g", cartesian(i=range(3)), cell=square), tmp_path,
                           progress=False)
    text = Path(first.path).read_text()
    with ResultsStore(tmp_path) as store:  # read back and rewritten byte for byte
        assert store.text() == text
    grown = run_experiment(Experiment("g", cartesian(i=range(5)), cell=square), tmp_path,
                           progress=False)
    assert grown.n_skipped == 3 and grown.n_run == 2
    assert list(grown.results["i"]) == [0, 1, 2, 3, 4]
    other = run_experiment(Experiment("g", cartesian(i=[9]), cell=square), tmp_path,
                           progress=False)  # another grid: its row first, the others kept
    assert list(other.results["i"]) == [9, 0, 1, 2, 3, 4] and other.n_cells == 1
    reseeded = run_experiment(Experiment("g", cartesian(i=[9]), cell=square, random_state=1), tmp_path,
                              progress=False)  # the seed is part of the configuration
    assert reseeded.n_run == 1 and len(reseeded.results) == 7


def test_joblib_equals_serial(tiny_script, tiny_run, tmp_path):
    _, serial = tiny_run
    par = run_experiment(load_experiment(tiny_script), tmp_path, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(_strip(serial.results), _strip(par.results))
    assert par.results["pid"].ne(serial.results["pid"].iloc[0]).all()  # ran in workers


def test_dask_local_cluster_equals_serial(tiny_script, tiny_run, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    _, serial = tiny_run
    exp = load_experiment(tiny_script)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster:
        report = run_experiment(exp, tmp_path, scheduler=cluster.scheduler_address,
                                progress=False)
    pd.testing.assert_frame_equal(_strip(serial.results), _strip(report.results))
    assert report.results["pid"].ne(os.getpid()).all()  # the cells ran in the worker process
    assert report.n_errors == 1


def test_resume_after_sigkill(tmp_path):
    counter = tmp_path / "counter.txt"
    script = tmp_path / "slow.py"
    script.write_text(SLOW_SCRIPT.format(counter=str(counter), stop_after=None, sleep=0.15))
    out = tmp_path / "out"
    results = out / "results.csv"
    proc = subprocess.Popen([sys.executable, "-m", "krein.cli", "experiment", "run",
                             str(script), "--out", str(out), "--no-progress", "--no-figures"],
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            with contextlib.suppress(FileNotFoundError):
                if len(results.read_text().splitlines()) - 1 >= 4:
                    break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = read_results(results)  # parseable right after the kill
    assert 4 <= len(before) < 12 and (before["status"] == "ok").all()
    old_rows = {r["key"]: r for r in csv.DictReader(io.StringIO(results.read_text()))}
    report = run_experiment(load_experiment(script), out, progress=False)
    after = report.results
    assert len(after) == 12 and after["key"].is_unique and report.n_skipped == len(before)
    assert sorted(after["square"]) == [i * i for i in range(12)]
    runs = pd.Series(counter.read_text().split()).astype(int).value_counts()
    assert (runs[before["i"].to_numpy()] == 1).all()  # finished cells were not run again
    assert runs.index.nunique() == 12
    new_rows = {r["key"]: r for r in csv.DictReader(io.StringIO(results.read_text()))}
    for key, row in old_rows.items():  # finished rows kept verbatim (pid, timestamp...)
        assert new_rows[key] == row
    assert not [p for p in os.listdir(out) if p.endswith(".tmp")]


def test_resume_after_keyboard_interrupt(tmp_path):
    counter = tmp_path / "counter.txt"
    script = tmp_path / "slow.py"
    script.write_text(SLOW_SCRIPT.format(counter=str(counter), stop_after=5, sleep=0.0))
    with pytest.raises(KeyboardInterrupt):
        run_experiment(load_experiment(script), tmp_path / "out", progress=False)
    assert len(read_results(tmp_path / "out")) == 5
    script.write_text(SLOW_SCRIPT.format(counter=str(counter), stop_after=None, sleep=0.0))
    report = run_experiment(load_experiment(script), tmp_path / "out", progress=False)
    assert report.n_skipped == 5 and report.n_run == 7 and len(report.results) == 12
    runs = pd.Series(counter.read_text().split()).astype(int).value_counts()
    assert runs.sum() == 13 and runs.max() == 2 and (runs == 2).sum() == 1  # only the interrupted


WRITER = textwrap.dedent('''
    import importlib.util, os, sys, types

    # krein/experiment/store.py, validate.py and krein/_io.py alone (stdlib + NumPy), under a stub
    # package: starts fast (no cvxpy, scikit-learn), so the test can kill it often
    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    for pkg in ("stub", "stub.experiment"):
        sys.modules[pkg] = types.ModuleType(pkg)
        sys.modules[pkg].__path__ = []
    root = os.path.dirname(os.path.dirname(sys.argv[1]))
    load("stub._io", os.path.join(root, "_io.py"))
    load("stub.experiment.validate", os.path.join(os.path.dirname(sys.argv[1]), "validate.py"))
    mod = load("stub.experiment.store", sys.argv[1])
    with mod.ResultsStore(sys.argv[2]) as store:
        i = len(store.rows)
        print("ready", flush=True)
        while True:
            store.add({"key": f"k{i:06d}", "status": "ok", "n": i, "payload": "x" * 100_000,
                       "note": "comma, quote \\" and\\nnewline"}, [], ["n", "payload", "note"])
            store.write()
            i += 1
''')


def test_results_file_is_always_complete_under_sigkill(tmp_path):
    """Rewrite + fsync + os.replace: a kill leaves the old or the new file, never half a row.

    Rows of 100 kB make each rewrite spend its time writing, so kills land inside
    writes: a writer that streams the table into ``results.csv`` in place (64 kB
    chunks, as ``DataFrame.to_csv`` or ``csv.writer`` on the file would) failed this
    test in 9 of 10 runs when we tried it; the atomic writer cannot fail it.
    """
    writer = tmp_path / "writer.py"
    writer.write_text(WRITER)
    out = tmp_path / "out"
    rng = np.random.default_rng(0)
    n_before = 0
    for _ in range(12):
        proc = subprocess.Popen([sys.executable, str(writer),
                                 str(REPO / "krein" / "experiment" / "store.py"), str(out)], env=ENV,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert proc.stdout.readline().strip() == "ready"
            time.sleep(0.05 + 0.15 * rng.random())
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        df = pd.read_csv(out / "results.csv")
        n = len(df)
        assert n >= n_before  # nothing lost; it goes on from the rows it found
        assert list(df["n"]) == list(range(n))
        assert (df["payload"].str.len() == 100_000).all()
        assert (df["note"] == 'comma, quote " and\nnewline').all()
        n_before = n
    assert n_before > 0
    # the next owner removes what a killed writer left
    with ResultsStore(out) as store:
        assert len(store.rows) == n_before
    assert not [p for p in os.listdir(out) if p.endswith(".tmp")]


def test_second_writer_is_refused(tmp_path):
    with ResultsStore(tmp_path):
        with pytest.raises(RuntimeError, match="in use"):
            ResultsStore(tmp_path).__enter__()
    with ResultsStore(tmp_path):  # released on exit
        pass


# --------------------------------------------------------------------------- tables and figures
def test_table_from_results_matches_pandas(tiny_run, tmp_path):
    _, report = tiny_run
    path = report.path
    df = pd.read_csv(path)
    ok = df[df["status"] == "ok"]
    # mean over the per-repeat means and their std (Loosli: std over runs), per method
    per = ok.groupby(["method", "repeat"])["accuracy"].mean().groupby("method")
    expect_mean, expect_std = per.mean() * 100, per.std(ddof=1) * 100
    s = summarize(path, "accuracy")
    assert s.attrs["rows"] == [] and s.attrs["std_over"] == ["repeats"]
    got = s.dropna(subset=["method"]).set_index("method")  # the failing cell has no method
    np.testing.assert_allclose(got["value_mean"] * 100, expect_mean[got.index], rtol=1e-12)
    np.testing.assert_allclose(got["value_std"] * 100, expect_std[got.index], rtol=1e-12)

    md = results_table(path, fmt="markdown")
    best = expect_mean.round(2).max()
    for m, v in expect_mean.items():
        cell = f"**{v:.2f}**" if round(v, 2) == best else f"{v:.2f}"
        assert f"{cell} ({expect_std[m]:.2f})" in md, m
    tex = results_table(path, fmt="latex")
    assert r"\begin{tabular}" in tex and r"\textbf{" in tex and r"\bottomrule" in tex
    wide = pd.read_csv(io.StringIO(results_table(path, fmt="csv")))
    for m in expect_mean.index:
        assert wide[m].iloc[0] == pytest.approx(expect_mean[m], rel=1e-12)
    assert set(wide["best"].iloc[0].split(";")) == {m for m, v in expect_mean.items()
                                                    if round(v, 2) == best}
    times = results_table(path, value="fit_seconds", fmt="markdown")
    assert "fit_seconds: mean" in times and "lowest" in times
    with pytest.raises(ValueError, match="no column"):
        results_table(path, value="nope")
    with pytest.raises(ValueError, match="fmt"):
        results_table(path, fmt="html")


def test_figures_and_traces_from_results(tiny_run, tmp_path):
    _, report = tiny_run
    df = report.results
    traced = df[df["trace_file"] != ""]
    assert set(traced["method"]) == {"indefinite-svm"}  # the estimator with a trace_
    for rel in traced["trace_file"]:
        t = pd.read_csv(os.path.join(report.directory, rel))
        assert {"iter", "gap", "objective"} <= set(t.columns) and len(t)
    paths = plot_results(report.path, tmp_path / "figs")
    names = sorted(os.path.basename(p) for p in paths)
    assert names == ["tiny_accuracy.png", "tiny_convergence.png"]
    for p in paths:
        assert Path(p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_table_and_plot(tiny_run, tmp_path, capsys):
    _, report = tiny_run
    assert main(["experiment", "table", report.directory, "--format", "csv"]) == 0
    wide = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert {"esvm", "svm", "indefinite-svm", "best"} <= set(wide.columns)
    assert main(["experiment", "table", report.path, "--value", "fit_seconds",
                 "--output", str(tmp_path / "t.md")]) == 0
    assert "fit_seconds" in (tmp_path / "t.md").read_text()
    assert main(["experiment", "plot", report.path, "--out", str(tmp_path / "f")]) == 0
    assert (tmp_path / "f" / "tiny_accuracy.png").is_file()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(["experiment", "table", str(tmp_path / "missing.csv")])
    assert exc.value.code == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["experiment", "run", str(tmp_path / "missing.py")])
    assert exc.value.code == 2


# --------------------------------------------------------------------------- pooling
COMMITTED_TABLE2 = REPO / "experiments" / "results" / "loosli_table2.csv"


@pytest.fixture
def figure_texts(monkeypatch):
    """Titles and captions of every figure written, by file name (figures._save wrapped)."""
    from krein.experiment import figures

    seen = {}
    save = figures._save

    def spy(fig, path):
        seen[os.path.basename(path)] = {"titles": [ax.get_title() for ax in fig.axes],
                                        "texts": [t.get_text() for t in fig.texts]}
        return save(fig, path)

    monkeypatch.setattr(figures, "_save", spy)
    return seen


def test_committed_slim_results_split_by_data_set(tmp_path, figure_texts, capsys):
    from krein.experiment.report import param_columns

    df = read_results(COMMITTED_TABLE2)
    assert "config" not in df.columns  # a slimmed file: settings are inferred
    params = param_columns(df)
    assert {"dataset", "method", "kernel", "kernel_params.a", "kernel_params.r", "fold",
            "repeat"} <= set(params)
    assert not {"accuracy", "min_eigenvalue", "n_train", "best_C", "solver_used",
                "fit_seconds", "version_krein", "key", "status"} & set(params)
    s = summarize(df)
    assert s.attrs["rows"] == ["dataset"] and s.attrs["pooled"] == {}
    assert (s["pooled"] == "").all()
    per = (df.groupby(["dataset", "method", "repeat"])["accuracy"].mean()
           .groupby(["dataset", "method"]).mean())
    got = s.set_index(["dataset", "method"])["value_mean"]
    np.testing.assert_allclose(got.to_numpy(), per[got.index].to_numpy(), rtol=1e-12)
    # one row per data set, its best method marked (ties at 2 decimals all marked)
    wide = pd.read_csv(io.StringIO(results_table(df, fmt="csv"))).set_index("dataset")
    assert list(wide.index) == list(dict.fromkeys(df["dataset"]))
    assert "pooled" not in wide.columns
    for d, row in wide.iterrows():
        means = (per[d] * 100).round(2)
        assert set(row["best"].split(";")) == set(means[means == means.max()].index), d
    md = results_table(df)
    assert "| all |" not in md and "pooled" not in md
    # asking for fewer rows pools the data sets: said under the table
    md = results_table(df, rows=[])
    assert md.rstrip().splitlines()[-1].startswith("note: pooled over dataset (5 values)")
    tex = results_table(df, rows="kernel", fmt="latex")
    assert r"\multicolumn{12}{l}{\footnotesize note: pooled over dataset (5 values)" in tex
    assert tex.index("pooled over") < tex.index(r"\end{tabular}")
    # figures: one panel per data set, nothing pooled, no caption
    paths = plot_results(df, tmp_path / "figs")
    assert [os.path.basename(p) for p in paths] == ["loosli_table2_accuracy.png"]
    acc = figure_texts["loosli_table2_accuracy.png"]
    assert acc["titles"] == [f"dataset={d}" for d in dict.fromkeys(df["dataset"])]
    assert acc["texts"] == []
    # the CLI: table by data set; plot writes next to its results file, never figures/
    assert main(["experiment", "table", str(COMMITTED_TABLE2), "--no-script"]) == 0
    assert "| sonar |" in capsys.readouterr().out
    copy = tmp_path / "loosli_table2.csv"
    copy.write_bytes(COMMITTED_TABLE2.read_bytes())
    assert main(["experiment", "plot", str(copy)]) == 0
    assert (tmp_path / "loosli_table2-figures" / "loosli_table2_accuracy.png").is_file()
    assert "loosli_table2-figures" in capsys.readouterr().out


def _synthetic_results(with_config):
    """Two data sets x two kernel offsets x two methods x 2 repeats x 2 folds (no runner)."""
    from krein.experiment.store import cell_key

    rng = np.random.default_rng(0)
    rows = []
    for d, n in (("alpha", 50), ("beta", 80)):
        for r in (-1.0, -2.0):
            for m in ("esvm", "flip"):
                for rep in range(2):
                    for f in range(2):
                        params = {"dataset": d, "n_samples": n, "kernel": "sigmoid",
                                  "kernel_params": {"r": r}, "method": m, "repeat": rep,
                                  "fold": f, "seed": 0}
                        key, config = cell_key("classification_cell", params)
                        row = {"key": key, "status": "ok", "error": "", "dataset": d,
                               "fold": f, "kernel": "sigmoid", "kernel_params.r": r,
                               "method": m, "n_samples": n, "repeat": rep, "seed": 0,
                               "accuracy": float(rng.uniform(0.5, 1.0)),
                               "best_C": 1.0, "n_train": n // 2,
                               "min_eigenvalue": -abs(r) * n, "fit_seconds": 0.01,
                               "solver_used": "libsvm", "solver_status": "ok"}
                        if with_config:
                            row["config"] = config
                        rows.append(row)
    return pd.DataFrame(rows)


def test_synthetic_results_never_pool_silently(tmp_path, figure_texts):
    from krein.experiment.report import param_columns, pooled_columns

    slim, full = _synthetic_results(False), _synthetic_results(True)
    # the inference rule finds the same settings the configurations record
    assert param_columns(slim) == param_columns(full) == [
        "dataset", "fold", "kernel", "kernel_params.r", "method", "n_samples", "repeat", "seed"]
    for df in (slim, full):
        s = summarize(df)
        # n_samples is fixed by the data set: it splits no group, so no row of its own
        assert s.attrs["rows"] == ["dataset", "kernel_params.r"]
        assert s.attrs["pooled"] == {} and len(s) == 2 * 2 * 2
    # rows=dataset pools the two offsets: the entries are the means over them, and say so
    s = summarize(slim, rows="dataset")
    assert s.attrs["pooled"] == {"kernel_params.r": 2}
    assert set(s["pooled"]) == {"kernel_params.r=2"}
    expect = (slim.groupby(["dataset", "method", "repeat"])["accuracy"].mean()
              .groupby(["dataset", "method"]).mean())
    got = s.set_index(["dataset", "method"])["value_mean"]
    np.testing.assert_allclose(got.to_numpy(), expect[got.index].to_numpy(), rtol=1e-12)
    md = results_table(slim, rows="dataset")
    assert md.rstrip().splitlines()[-1] == (
        "note: pooled over kernel_params.r (2 values) -- each entry averages cells that differ "
        "in these settings (not only in fold/repeat/seed); group by them to split")
    wide = pd.read_csv(io.StringIO(results_table(slim, rows="dataset", fmt="csv")))
    assert list(wide["pooled"]) == ["kernel_params.r=2"] * 2
    # one table for everything: every varying setting named, with its count
    assert pooled_columns(slim, ["method"]) == {"dataset": 2, "kernel_params.r": 2,
                                                "n_samples": 2}
    assert "pooled over dataset (2 values), kernel_params.r (2 values), n_samples (2 values)" \
        in results_table(slim, rows=[])
    # figures: panels follow every varying setting; pooling is captioned
    names = [os.path.basename(p) for p in plot_results(slim, tmp_path / "f", prefix="syn")]
    assert "syn_accuracy.png" in names and "syn_accuracy_vs_eigenvalue.png" in names
    acc = figure_texts["syn_accuracy.png"]
    assert len(acc["titles"]) == 4 and acc["texts"] == []
    assert "dataset=alpha, kernel_params.r=-1" in acc["titles"]
    eig = figure_texts["syn_accuracy_vs_eigenvalue.png"]
    assert eig["titles"] == ["dataset=alpha", "dataset=beta"] and eig["texts"] == []
    # convergence panels by method only: the data sets and offsets it pools are captioned
    os.makedirs(tmp_path / "traces")
    traced = slim.assign(trace_file=[f"traces/{k}.csv" for k in slim["key"]])
    for k in slim["key"]:
        pd.DataFrame({"iter": [0, 1, 2], "gap": [1.0, 0.1, 0.01]}).to_csv(
            tmp_path / "traces" / f"{k}.csv", index=False)
    traced.attrs["directory"] = str(tmp_path)
    from krein.experiment import plot_convergence

    assert plot_convergence(traced, tmp_path / "f", prefix="syn")
    conv = figure_texts["syn_convergence.png"]
    assert conv["titles"] == ["esvm", "flip"]
    assert len(conv["texts"]) == 1 and "pooled over dataset (2 values)" in conv["texts"][0]


# --------------------------------------------------------------------------- every script
@pytest.mark.parametrize("script", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_every_experiment_script_runs_quick(script, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["experiment", "run", str(script), "--quick", "--out", str(out),
               "--no-progress", "--figures", str(tmp_path / "figs")])
    text = capsys.readouterr().out
    assert rc == 0
    exp = load_experiment(script, quick=True)
    df = read_results(out)
    assert len(df) == len(exp.cells) and set(df["key"]) == {c.key for c in exp.cells}
    bad = df[df["status"] != "ok"]
    assert bad.empty, bad["error"].tolist()[:3]
    assert (out / "table.md").is_file() and "table written" in text
    assert list((tmp_path / "figs").glob("*.png"))
