"""Nothing lost, nothing silently wrong: output files and directories.

* One run per directory (``krein/compare.py`` ``_claim_new_directory``/``_claim_out``,
  ``krein/experiment/store.py`` ``lock_directory``): two real ``krein compare``
  processes on two files with the same stem end in two directories, each holding only
  its own data; a directory whose lock a live process holds is skipped by a new run
  and refused by ``--force`` (exit 2, nothing touched).
* A full disk is an error, never an empty file (``krein/_io.py`` ``atomic_write_bytes``):
  a file that fails at write/flush/close with ``ENOSPC`` (monkeypatched) in
  ``krein compare --out``, ``krein experiment run`` and ``krein experiment table
  --output``, and a real 48 KiB tmpfs under ``krein compare --out`` (root only):
  one line naming the file, exit 1, no empty or temporary file left.
* File names the OS accepts become safe run names (``krein.compare.safe_name``).
* ``--resume`` (``run_comparison(resume=True)``) recomputes only the missing cells and
  gives the uninterrupted run's table; a directory of another comparison is refused.
* The joblib workers of a ``--n-jobs 2`` run end with their parent
  (``krein/experiment/runner.py`` ``_watchdog_initializer``).
"""

from __future__ import annotations

import builtins
import contextlib
import csv
import errno
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krein.cli import main

fcntl = pytest.importorskip("fcntl")  # the locks are flock(2) locks (POSIX)

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
       "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
TINY = ["--methods", "svm,flip", "--cv", "2", "--no-tune", "--n-jobs", "1", "--no-progress"]
DETERMINISTIC = ["method", "repeat", "fold", "n_train", "n_test", "accuracy", "best_params",
                 "n_support", "error"]
ENOSPC = f"[Errno {errno.ENOSPC}] {os.strerror(errno.ENOSPC)}"


def _kernel(directory, n, seed):
    """A small indefinite (sigmoid) kernel of ``n`` objects and its labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    y[:3], y[3:6] = 1, -1  # both classes, at least 3 objects each
    directory.mkdir(parents=True, exist_ok=True)
    np.save(directory / "K.npy", np.tanh(X @ X.T - 0.5))
    np.savetxt(directory / "y.txt", y, fmt="%d")
    return directory / "K.npy", directory / "y.txt"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """``a/K.npy`` (30 objects) and ``b/K.npy`` (40 objects): two files, one stem."""
    d = tmp_path_factory.mktemp("kernels")
    return {"a": _kernel(d / "a", 30, 0), "b": _kernel(d / "b", 40, 1), "n": {"a": 30, "b": 40}}


def _compare(kernel, out=None, *extra):
    K, y = kernel
    args = ["compare", "--kernel-file", str(K), "--labels", str(y), *TINY, *extra]
    return args + (["--out", str(out)] if out is not None else [])


def _run(args, capsys):
    try:
        rc = main(args)
    except SystemExit as exc:
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@contextlib.contextmanager
def _held(directory):
    """Hold ``directory/.lock`` as a live run does (flock, exclusive) in this process."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield


def _n_objects(directory):
    folds = pd.read_csv(directory / "folds.csv")
    return set((folds["n_train"] + folds["n_test"]).tolist())


# ----------------------------------------------------------------- 2. one run per directory
#: `krein compare` as a real process, with a barrier in its data load (between the start of
#: the run and the creation of its directory): it says it got there and waits for "go".
BARRIER_MAIN = textwrap.dedent('''
    import os, sys, time
    import krein.compare

    _load = krein.compare._load

    def load(*args, **kwargs):
        open(os.environ["KREIN_TEST_MARK"], "w").close()
        while not os.path.exists(os.environ["KREIN_TEST_GO"]):
            time.sleep(0.02)
        return _load(*args, **kwargs)

    krein.compare._load = load
    from krein.cli import main
    sys.exit(main(sys.argv[1:]))
''')


def test_two_processes_same_stem_get_two_directories(kernels, tmp_path):
    """Two real `krein compare` runs started together on a/K.npy and b/K.npy (one stem).

    Each run waits in its data load until BOTH runs are there, so both are provably past
    the start of the run before either creates anything: the interleaving in which two
    runs that chose the directory's name at the start would share one directory.
    """
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", BARRIER_MAIN, *_compare(kernels[k])],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**ENV, "KREIN_TEST_MARK": str(tmp_path / k),
                                              "KREIN_TEST_GO": str(go)})
             for k in ("a", "b")]
    try:
        deadline = time.time() + 120
        while not ((tmp_path / "a").exists() and (tmp_path / "b").exists()):
            dead = [p.communicate()[1] for p in procs if p.poll() is not None]
            assert time.time() < deadline and not dead, dead
            time.sleep(0.05)
        go.touch()
        outs = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    dirs = []
    for text, _ in outs:
        found = re.findall(r"files written to (\S+)/:", text)
        assert len(found) == 1
        dirs.append(tmp_path / found[0])
    assert dirs[0] != dirs[1]
    assert sorted(p.name for p in (tmp_path / "krein-results").iterdir()) == ["K", "K-2"]
    for key, d in zip(("a", "b"), dirs):  # each directory holds its own data only
        assert _n_objects(d) == {kernels["n"][key]}
        assert len(pd.read_csv(d / "folds.csv")) == 4
        assert str(kernels[key][0]) in (d / "run.json").read_text()


def test_a_held_directory_is_skipped_and_force_refused(kernels, tmp_path, monkeypatch, capsys):
    """A directory whose lock a live process (this one) holds: a new run without --out
    takes the next name; --force on it is refused (exit 2, one line, nothing touched)."""
    monkeypatch.chdir(tmp_path)
    claimed = tmp_path / "krein-results" / "K"
    with _held(claimed):  # a run that has created K and not written yet
        rc, text, err = _run(_compare(kernels["a"]), capsys)
        assert rc == 0, err
        assert "files written to krein-results/K-2/" in text
        assert os.listdir(claimed) == [".lock"]
    done = tmp_path / "krein-results" / "K-2"
    before = {p: p.stat().st_mtime_ns for p in done.rglob("*")}
    with _held(done):
        rc, text, err = _run(_compare(kernels["b"], done, "--force"), capsys)
    assert rc == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--out" in err and "in use by another krein run" in err
    assert {p: p.stat().st_mtime_ns for p in done.rglob("*")} == before
    assert _n_objects(done) == {kernels["n"]["a"]}


# --------------------------------------------------------------------------- 3. a full disk
class _FullDisk:
    """A file on a full disk: writes are buffered and accepted, flush and close fail."""

    def __init__(self, real):
        self._real = real

    def write(self, data):
        return len(data)

    def flush(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def close(self):
        self._real.close()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getattr__(self, name):
        return getattr(self._real, name)


def _full_disk(monkeypatch, target):
    """Every file opened for writing whose name starts with ``target`` or ``.target.``
    (its temporary) is on a full disk: through ``open`` and ``os.fdopen``."""
    real_open, real_fdopen = builtins.open, os.fdopen

    def hit(name, mode):
        base = os.path.basename(str(name))
        return any(c in mode for c in "wax+") and (base == target
                                                   or base.startswith(f".{target}."))

    def fake_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        return _FullDisk(f) if isinstance(file, (str, os.PathLike)) and hit(file, mode) else f

    def fake_fdopen(fd, mode="r", *args, **kwargs):
        f = real_fdopen(fd, mode, *args, **kwargs)
        with contextlib.suppress(OSError):
            if hit(os.readlink(f"/proc/self/fd/{fd}"), mode):
                return _FullDisk(f)
        return f

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "fdopen", fake_fdopen)


def _assert_write_error(rc, err, path, directory):
    assert rc == 1
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"error: cannot write {path}: {ENOSPC}" in err, err
    assert not os.path.exists(path)  # never an empty file in place
    left = [p for p in Path(directory).rglob("*") if p.name.endswith(".tmp")]
    assert not left  # temporaries removed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd")
def test_full_disk_compare_out(kernels, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    _full_disk(monkeypatch, "run.json")
    rc, _, err = _run(_compare(kernels["a"], out), capsys)
    _assert_write_error(rc, err, out / "run.json", out)


TABLE_SCRIPT = textwrap.dedent('''
    from krein.experiment import Experiment, cartesian

    def cell(params):
        return {"accuracy": 0.5 + 0.1 * params["i"]}

    EXPERIMENT = Experiment("tiny", cartesian(method=["a", "b"], i=[0, 1]), cell=cell)
    QUICK_EXPERIMENT = EXPERIMENT
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd")
def test_full_disk_experiment_run_and_table(tmp_path, monkeypatch, capsys):
    script = tmp_path / "tiny.py"
    script.write_text(TABLE_SCRIPT)
    out = tmp_path / "res"
    with monkeypatch.context() as m:
        _full_disk(m, "table.md")
        rc, _, err = _run(["experiment", "run", str(script), "--out", str(out),
                           "--no-progress", "--no-figures"], capsys)
    _assert_write_error(rc, err, os.path.join(str(out), "table.md"), out)
    assert len(pd.read_csv(out / "results.csv")) == 4  # the finished cells are kept
    target = tmp_path / "t.csv"
    with monkeypatch.context() as m:
        _full_disk(m, "t.csv")
        rc, _, err = _run(["experiment", "table", str(out), "--format", "csv", "--output",
                           str(target)], capsys)
    _assert_write_error(rc, err, str(target), tmp_path)
    rc, _, _ = _run(["experiment", "table", str(out), "--output", str(target)], capsys)
    assert rc == 0 and target.stat().st_size > 0  # the same command on a free disk


def _mount_tmpfs(directory, size):
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root on Linux")
    directory.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here ({r.stderr.strip()})")


def test_full_tmpfs_compare_out(kernels, tmp_path, capsys):
    """A real full disk: `krein compare --out` on a 48 KiB tmpfs."""
    mnt = tmp_path / "small"
    _mount_tmpfs(mnt, "48k")
    try:
        rc, _, err = _run(_compare(kernels["a"], mnt / "run"), capsys)
        assert rc == 1, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err, err
        m = re.fullmatch(rf"krein compare: error: cannot write (\S+): {re.escape(ENOSPC)}",
                         lines[0])
        assert m and m.group(1).startswith(str(mnt / "run")), lines[0]
        files = [p for p in (mnt / "run").rglob("*") if p.is_file() and p.name != ".lock"]
        assert not [p for p in files if p.name.endswith(".tmp")]
        assert all(p.stat().st_size > 0 for p in files)  # never an empty file
        assert not os.path.exists(m.group(1))
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


# ----------------------------------------------------------------- 7. names, resume, workers
@pytest.mark.parametrize("name,safe", [("my kernel.npy", "my_kernel"), ("K (1).npy", "K_1"),
                                       ("noyau_é.npy", "noyau_e")])
def test_any_file_name_gives_a_run_name(kernels, name, safe, tmp_path, monkeypatch, capsys):
    K, y = kernels["a"]
    (tmp_path / name).write_bytes(K.read_bytes())
    monkeypatch.chdir(tmp_path)
    save = [] if safe == "noyau_e" else ["--no-save"]  # the page's figures take seconds
    rc, text, err = _run(_compare((tmp_path / name, y), None, "--methods", "svm", *save), capsys)
    assert rc == 0, err
    assert f"dataset: {safe} (kernel, 30 x 30" in text
    if not save:
        assert f"files written to krein-results/{safe}/" in text
        assert _n_objects(tmp_path / "krein-results" / safe) == {30}


def _drop_rows(results, n):
    """Delete the last ``n`` rows of a results file (an interrupted run): their keys."""
    with open(results, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header] + body[:-n])
    results.write_text(buf.getvalue(), encoding="utf-8")
    return {r[header.index("key")] for r in body[-n:]}


def test_resume_recomputes_only_missing_cells(kernels, tmp_path, monkeypatch, capsys):
    from krein.experiment import runner

    out = tmp_path / "run"
    rc, _, err = _run(_compare(kernels["a"], out), capsys)
    assert rc == 0, err
    full = pd.read_csv(out / "folds.csv")
    assert len(full) == 4
    missing = _drop_rows(out / "cells" / "results.csv", 2)  # interrupted after 2 of 4 cells
    for f in ("run.json", "summary.csv", "folds.csv", "report.html"):
        (out / f).unlink()
    ran = []
    execute = runner._execute
    monkeypatch.setattr(runner, "_execute", lambda cell, key, *a: (ran.append(key),
                                                                     execute(cell, key, *a))[1])
    rc, _, err = _run(_compare(kernels["a"], out, "--resume"), capsys)
    assert rc == 0, err
    assert "2 of 4 cells reused" in err
    assert set(ran) == missing and len(ran) == 2  # only the missing cells were computed
    resumed = pd.read_csv(out / "folds.csv")
    pd.testing.assert_frame_equal(resumed[DETERMINISTIC], full[DETERMINISTIC])
    # a directory made by another comparison (another seed): refused, nothing touched
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    rc, _, err = _run(_compare(kernels["a"], out, "--resume", "--seed", "1"), capsys)
    assert rc == 2 and err.count("\n") == 1 and "--resume" in err and "another comparison" in err
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
    rc, _, err = _run(_compare(kernels["b"], out, "--resume"), capsys)
    assert rc == 2 and "another comparison" in err


SLEEPY_SCRIPT = textwrap.dedent('''
    import os, time
    from krein.experiment import Experiment, cartesian

    MARKS = {marks!r}

    def nap(params):
        open(os.path.join(MARKS, f"{{os.getpid()}}-{{params['i']}}"), "w").close()
        time.sleep(120)
        return {{"i": params["i"]}}

    EXPERIMENT = Experiment("sleepy", cartesian(i=range(4)), cell=nap)
    QUICK_EXPERIMENT = EXPERIMENT
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process tree")
def test_workers_end_with_a_killed_parent(tmp_path):
    psutil = pytest.importorskip("psutil")
    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "sleepy.py"
    script.write_text(SLEEPY_SCRIPT.format(marks=str(marks)))
    proc = subprocess.Popen([sys.executable, "-m", "krein.cli", "experiment", "run", str(script),
                             "--out", str(tmp_path / "out"), "--n-jobs", "2", "--no-progress",
                             "--no-figures", "--no-table"], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.time() + 120
        while len(os.listdir(marks)) < 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert len(os.listdir(marks)) >= 2  # both workers are inside a 120 s cell
        pids = {int(n.split("-")[0]) for n in os.listdir(marks)}
        children = psutil.Process(proc.pid).children(recursive=True)
        workers = [c for c in children if c.pid in pids]
        assert len(workers) == 2
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        t0 = time.time()
        _, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, f"alive {time.time() - t0:.1f} s after the parent's SIGKILL: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for c in workers:
            with contextlib.suppress(psutil.Error):
                c.kill()
