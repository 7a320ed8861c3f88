"""Running an experiment: serial, joblib or Dask, every finished cell written at once, resume.

:func:`run_experiment` runs every cell of an :class:`~krein.experiment.grid.Experiment`
not yet in its results file (:mod:`krein.experiment.store`), in the parent
process, with joblib workers or on a Dask cluster; the parent writes each
finished cell at once.  A cell function exception becomes a row with
``status="error"`` and the error text of :func:`error_text` (the one error
format of krein's tables); the grid goes on.
"""

from __future__ import annotations

import copy
import functools
import json
import numbers
import os
import platform
import secrets
import socket
import sys
import time
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from .._io import atomic_write_bytes, progress_bar
from .._threads import blas_policy, resolve_blas_threads
from .grid import Experiment, json_default
from .report import read_results
from .validate import read_experiment_json
from .store import (META_COLUMNS, PROVENANCE_COLUMNS, RESULTS_FILE, VERSION_PACKAGES,
                    ResultsStore, flatten_params)

__all__ = ["run_experiment", "RunReport", "default_directory", "read_sidecar", "error_text",
           "pair_jobs", "cloudpickle_module", "connect_scheduler", "BACKENDS"]

#: Execution backends of :func:`run_experiment`.
BACKENDS = ("serial", "joblib", "dask")


@functools.lru_cache(maxsize=1)
def _versions():
    from importlib import metadata

    out = {"version_python": platform.python_version()}
    for dist in VERSION_PACKAGES:
        try:
            out[f"version_{dist}"] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[f"version_{dist}"] = "unknown"
    return out


def error_text(exc):
    """One-line text of an exception: ``"Type: message [at file:line in function]"``.

    Parameters
    ----------
    exc : BaseException
        The exception (with its traceback, if it was raised).

    Returns
    -------
    str
        Whitespace collapsed to single spaces; the innermost frame appended.
    """
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    tb = traceback.extract_tb(exc.__traceback__)
    if tb:
        last = tb[-1]
        text += f" [at {os.path.basename(last.filename)}:{last.lineno} in {last.name}]"
    return text


def _script_frames(text, cell):
    """Name the script in an error text from a worker as the serial run does.

    cloudpickle (>= 3.1) ships the functions of a script that workers cannot import
    by value with the file name ``<dynamic-code>``; those functions come from the
    script that defines the cell, so its file name is put back.
    """
    if "[at <dynamic-code>:" not in text:
        return text
    code = getattr(cell, "__code__", None)
    name = os.path.basename(code.co_filename) if code is not None else ""
    return text.replace("[at <dynamic-code>:", f"[at {name}:") if name else text


_RESERVED = set(META_COLUMNS) | set(PROVENANCE_COLUMNS)


def _clean_results(out, param_columns):
    """Validate a cell function's return value: (results dict, trace DataFrame or None)."""
    if out is None:
        return {}, None
    if not isinstance(out, dict):
        raise TypeError(f"the cell function must return a dict (or None); got "
                        f"{type(out).__name__}")
    results, trace = {}, None
    for k, v in out.items():
        if not isinstance(k, str) or not k:
            raise TypeError(f"result names must be non-empty strings; got {k!r}")
        if k == "trace":
            if v is not None and not (hasattr(v, "to_csv") and hasattr(v, "columns")):
                raise TypeError(f"'trace' must be a pandas DataFrame or None; got "
                                f"{type(v).__name__}")
            trace = v
            continue
        if k in _RESERVED or k in param_columns:
            raise ValueError(f"result {k!r} has the name of a "
                             f"{'parameter' if k in param_columns else 'runner'} column; "
                             "rename it")
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, (list, tuple, dict, np.ndarray)):
            v = json.dumps(v, default=json_default, sort_keys=True)
        if v is not None and not isinstance(v, (bool, int, float, str)):
            raise TypeError(f"result {k!r} must be None, bool, int, float, str (or a list/dict "
                            f"stored as JSON); got {type(v).__name__}")
        results[k] = v
    return results, trace


def _cores():
    """Cores of this machine (``os.cpu_count()``, 1 if unknown)."""
    return os.cpu_count() or 1


def pair_jobs(n_jobs, n_cells, cores=None):
    """The joblib workers each cell may use for its one-vs-one pairs (``fit_pairs``).

    With fewer cells in flight than cores (a serial run, or fewer workers or cells
    than cores) each cell gets its share of the free cores, so that the pairs of a
    many-class fit run on threads; with the cells on all cores, one.

    Parameters
    ----------
    n_jobs : int
        Cells the backend runs at once (1 for the serial backend; -1: all cores),
        :func:`run_experiment`'s ``n_jobs``.
    n_cells : int
        Cells still to run.
    cores : int, optional
        Cores of the machine (default ``os.cpu_count()``).

    Returns
    -------
    int
        ``max(1, cores // min(n_jobs, n_cells))``, the ``n_jobs`` of the
        :func:`joblib.parallel_config` around each cell.
    """
    cores = _cores() if cores is None else int(cores)
    workers = cores if n_jobs == -1 else int(n_jobs)
    in_flight = max(1, min(workers, int(n_cells)))
    return max(1, cores // in_flight)


def _execute(cell, key, params, param_columns, blas_threads="auto", n_pair_jobs=1):
    """Run one cell under the BLAS-thread policy ``blas_threads`` (:mod:`krein._threads`)
    and ``joblib.parallel_config(n_jobs=n_pair_jobs)`` (:func:`pair_jobs`); never
    raises an ``Exception`` (it becomes an error record)."""
    import joblib

    t0 = time.perf_counter()
    status, error, results, trace = "ok", "", {}, None
    with warnings.catch_warnings(record=True) as caught, blas_policy(blas_threads), \
            joblib.parallel_config(n_jobs=n_pair_jobs):
        warnings.simplefilter("always")
        try:
            results, trace = _clean_results(cell(copy.deepcopy(params)), param_columns)
        except Exception as exc:  # the cell becomes an error row, the grid goes on
            status, error, results, trace = "error", error_text(exc), {}, None
    msgs = list(dict.fromkeys(" ".join(f"{w.category.__name__}: {w.message}".split())
                              for w in caught))
    return {"key": key, "status": status, "error": error, "results": results, "trace": trace,
            "warnings": " | ".join(msgs), "cell_seconds": time.perf_counter() - t0,
            "host": socket.gethostname(), "pid": os.getpid(),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **_versions()}


def cloudpickle_module():
    """The cloudpickle module that sends cell functions to joblib and Dask workers.

    cloudpickle pickles the functions of a script by value, so that workers that
    cannot import the script receive them
    (:func:`krein.experiment.scripts.import_script` registers a script with it).

    Returns
    -------
    module
        ``cloudpickle`` (a dependency of joblib >= 1.5), or the copy that older
        joblib versions vendor (``joblib.externals.cloudpickle``).
    """
    try:
        import cloudpickle
    except ImportError:  # older joblib
        from joblib.externals import cloudpickle
    return cloudpickle


def _execute_payload(payload, key, params, param_columns, blas_threads="auto", n_pair_jobs=1):
    """Worker side of joblib/Dask: unpickle the cell function, run :func:`_execute`."""
    import pickle

    return _execute(pickle.loads(payload), key, params, param_columns, blas_threads, n_pair_jobs)


#: Seconds between two checks of a joblib worker's watchdog (:func:`_watchdog_initializer`).
WATCHDOG_INTERVAL = 0.25

#: What every joblib worker runs first (standard library only: it starts before the
#: worker has imported anything of krein, NumPy or SciPy, which takes seconds).
_WATCHDOG_CODE = """
import os, signal, threading, time

def _krein_watch_parent(parent_pid={parent}, interval={interval}):
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), signal.SIGKILL)
    while True:
        time.sleep(interval)
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)

threading.Thread(target=_krein_watch_parent, name="krein-parent-watchdog", daemon=True).start()
"""


def _watchdog_initializer(parent_pid):
    """The loky worker initializer that ends a worker as soon as its run is gone.

    A joblib (loky) worker notices a dead parent only between tasks, so a killed
    run (SIGKILL or SIGTERM of the parent) would leave its workers finishing
    their current cells, for minutes.  Each worker starts, before anything else,
    a daemon thread that checks every :data:`WATCHDOG_INTERVAL` seconds that
    ``os.getppid()`` is still ``parent_pid`` and kills its own process
    otherwise (an orphan is re-parented).  The initializer is the built-in
    ``exec`` of standard-library code, so the worker needs no import of krein
    to run it.  (Not ``prctl(PR_SET_PDEATHSIG)``: it fires when the parent's
    *thread* that started the worker ends, and loky starts workers from a
    management thread.)

    Parameters
    ----------
    parent_pid : int
        The process id of the run that starts the workers.

    Returns
    -------
    dict
        ``{"initializer": exec, "initargs": (code, {})}``, keyword arguments of
        joblib's ``LokyBackend``.
    """
    code = _WATCHDOG_CODE.format(parent=int(parent_pid), interval=WATCHDOG_INTERVAL)
    return {"initializer": exec, "initargs": (code, {})}


def _failure_record(key, exc):
    """Record of a cell whose worker failed outside the cell (e.g. a killed Dask worker)."""
    return {"key": key, "status": "error", "error": error_text(exc), "results": {},
            "trace": None, "warnings": "", "cell_seconds": float("nan"), "host": "",
            "pid": "", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **{c: "" for c in _versions()}}


def _serial(experiment, todo, param_columns, blas_threads, on_start=None):
    jobs = pair_jobs(1, len(todo))
    for c in todo:
        if on_start is not None:
            on_start(c)
        yield _execute(experiment.cell, c.key, c.params, param_columns[c.key], blas_threads,
                       jobs)


def _joblib(payload, todo, param_columns, n_jobs, blas_threads, on_start=None):
    from joblib import Parallel, delayed
    from joblib.parallel import LokyBackend

    # workers that end with the run, however it ends (_watchdog_initializer)
    backend = LokyBackend(**_watchdog_initializer(os.getpid())) if n_jobs != 1 else None
    n_pair = pair_jobs(n_jobs, len(todo))

    def jobs():
        for c in todo:
            if on_start is not None:  # joblib takes the next job when a worker is free
                on_start(c)
            yield delayed(_execute_payload)(payload, c.key, c.params, param_columns[c.key],
                                            blas_threads, n_pair)

    # with a progress label: one job per worker at a time, so that the jobs taken
    # and not finished are the ones running
    kw = {"pre_dispatch": "n_jobs", "batch_size": 1} if on_start is not None else {}
    try:
        par = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered", **kw)
    except (TypeError, ValueError):  # joblib < 1.4: ordered generator
        par = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator", **kw)
    yield from par(jobs())


def connect_scheduler(scheduler):
    """A ``dask.distributed`` client of a scheduler, or the client given.

    A failed connection leaves nothing behind: the half-made client is
    collected at once with its complaints silenced, so that the caller reports
    the failure on one line.

    Parameters
    ----------
    scheduler : str or dask.distributed.Client
        The scheduler's address (``"tcp://127.0.0.1:8786"``), connected
        within dask's ``distributed.comm.timeouts.connect`` (30 s by default),
        or a client (returned as it is).

    Returns
    -------
    dask.distributed.Client
        A client (``set_as_default=False``); the caller closes one it did not pass.

    Raises
    ------
    ImportError
        dask.distributed is not installed (the message names the extra).
    ValueError
        An address dask cannot parse (no port, an unknown scheme).
    OSError
        No scheduler answered at the address in time.
    """
    try:
        from dask.distributed import Client
    except ImportError:
        raise ImportError('backend="dask" needs dask.distributed: pip install "krein[dask]" '
                          '(or pip install "dask[distributed]")') from None
    if isinstance(scheduler, Client):
        return scheduler
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be an address or a dask.distributed.Client; got "
                        f"{type(scheduler).__name__}")
    failure = None
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None  # the failed client's __del__ complains
    try:
        try:
            return Client(scheduler, set_as_default=False)
        except (ValueError, OSError, TypeError) as exc:
            failure = (type(exc), " ".join(str(exc).split()))
        import gc

        gc.collect()
    finally:
        sys.unraisablehook = hook
    kind, text = failure
    kind = kind if kind in (ValueError, OSError) else ValueError
    raise kind(f"no Dask scheduler at {scheduler!r}: {text}")


def _dask(payload, todo, param_columns, scheduler, name, blas_threads):
    client = connect_scheduler(scheduler)
    own = client is not scheduler
    from dask.distributed import as_completed

    futures = {}
    try:
        token = secrets.token_hex(4)
        for c in todo:
            fut = client.submit(_execute_payload, payload, c.key, c.params,
                                param_columns[c.key], blas_threads,
                                key=f"krein-{name}-{c.key}-{token}",
                                pure=False)
            futures[fut] = c.key
        for fut in as_completed(list(futures), loop=client.loop):
            try:
                rec = fut.result()
            except Exception as exc:  # the worker died or the task was lost
                rec = _failure_record(futures[fut], exc)
            yield rec
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        if own:
            client.close()


@dataclass
class RunReport:
    """What :func:`run_experiment` did.

    Parameters
    ----------
    experiment : Experiment
        The experiment that was run.
    directory : str
        Results directory.
    path : str
        ``directory/results.csv``.
    n_cells : int
        Cells in the grid.
    n_skipped : int
        Cells already in the file (not recomputed).
    n_run : int
        Cells computed in this run.
    n_errors : int
        Grid cells whose row has ``status == "error"`` (this run or earlier).
    seconds : float
        Wall time of this run.
    results : pandas.DataFrame
        The results file read back (:func:`read_results`): every row, not only
        this grid's.
    """

    experiment: Experiment
    directory: str
    path: str
    n_cells: int
    n_skipped: int
    n_run: int
    n_errors: int
    seconds: float
    results: object = None


def default_directory(experiment):
    """The default results directory of an experiment, relative to the working directory.

    Parameters
    ----------
    experiment : Experiment
        The experiment; its ``name`` and ``quick`` are used.

    Returns
    -------
    str
        ``results/NAME``, or ``results/NAME-quick`` for the quick variant.
    """
    return os.path.join("results", experiment.name + ("-quick" if experiment.quick else ""))


def _check_run_args(n_jobs, backend, scheduler):
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer (-1: all cores); got {n_jobs!r}")
    if backend is None:
        backend = "dask" if scheduler is not None else ("serial" if n_jobs == 1 else "joblib")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or None; got {backend!r}")
    if backend == "dask" and scheduler is None:
        raise ValueError('scheduler: backend="dask" needs a scheduler address (e.g. '
                         '"tcp://127.0.0.1:8786") or a dask.distributed.Client')
    if backend != "dask" and scheduler is not None:
        raise ValueError(f"scheduler is only used with backend='dask'; got backend={backend!r}")
    return int(n_jobs), backend


def run_experiment(experiment, out=None, *, n_jobs=1, backend=None, scheduler=None,
                   progress=True, retry_errors=False, describe=None, blas_threads=None):
    """Run the cells of an experiment that are not in its results file yet.

    Parameters
    ----------
    experiment : Experiment
        The experiment whose cells are run.
    out : str or path-like, optional
        Results directory; default :func:`default_directory` (``results/NAME``).
    n_jobs : int, default 1
        Parallel joblib workers (``-1``: all cores) when ``backend`` is None or
        ``"joblib"``.
    backend : {None, "serial", "joblib", "dask"}
        None: ``"dask"`` if ``scheduler`` is given, else ``"serial"`` for
        ``n_jobs == 1`` and ``"joblib"`` otherwise.
    scheduler : str or dask.distributed.Client, optional
        Dask scheduler address (``"tcp://host:8786"``) or a client (left open).
    progress : bool
        A tqdm bar over the cells to run, with the ETA (stderr).
    retry_errors : bool
        Recompute cells whose row has ``status == "error"`` (their row is replaced).
    describe : callable, optional
        ``describe(params) -> str``, a short name of a cell (e.g. its method):
        the progress bar then shows the cells RUNNING now (serial and joblib
        backends; with joblib, one cell per worker is taken at a time).
    blas_threads : {"auto", "default"} or int >= 1, optional
        BLAS threads of the cells' fits (:mod:`krein._threads`), in whatever
        process runs them: ``"auto"`` (one thread for kernels of at most
        :data:`krein._threads.SMALL_KERNEL` objects and for solver loops on at
        most :data:`krein._threads.LOOP_KERNEL`, the libraries' default
        elsewhere), ``k`` threads at most, or ``"default"`` (no limit).  None: the
        environment variable ``KREIN_BLAS_THREADS``, else ``"auto"``.

    Returns
    -------
    RunReport
        The directory, the counts of cells (in the grid, skipped, run, error
        rows), the wall time and the results file read back.

    Raises
    ------
    ValueError
        If ``experiment`` is not an :class:`~krein.experiment.grid.Experiment`;
        bad ``n_jobs``/``backend``/``scheduler``/``blas_threads``, or an existing
        file that is not a krein results file.
    RuntimeError
        If another run holds the directory.
    ImportError
        ``backend="dask"`` without dask.distributed installed.
    KeyboardInterrupt
        Propagated; every cell finished before it is in the file.

    Notes
    -----
    Each finished cell is written at once (trace file first, then the whole
    results file atomically); see :mod:`krein.experiment.store`.  A cell function
    exception becomes a row with ``status="error"``.  Rows of an existing file
    that are not valid (:func:`krein.experiment.validate.scan_results`: cut
    short, a repeated key, text in a numeric column...) are dropped and their
    cells recomputed, said in one line on stderr per file
    (``"DIR/results.csv line 7: truncated row (3 of 40 fields); cell recomputed"``).
    ``experiment.json`` records the cells' keys (``cell_keys``) for that check.
    """
    if not isinstance(experiment, Experiment):
        raise ValueError(f"experiment must be an Experiment; got {type(experiment).__name__}")
    n_jobs, backend = _check_run_args(n_jobs, backend, scheduler)
    blas_threads = resolve_blas_threads(blas_threads)
    directory = os.fspath(out) if out is not None else default_directory(experiment)
    t_start = time.perf_counter()
    cells = {c.key: c for c in experiment.cells}
    param_columns = {c.key: list(flatten_params(json.loads(c.config)["params"]))
                     for c in experiment.cells}
    with ResultsStore(directory) as store:
        note = store.invalid_note()
        if note is not None:  # damaged rows were dropped: their cells are run again
            sys.stderr.write(note + "\n")
            sys.stderr.flush()
        store.set_order(list(cells))
        _write_sidecar(experiment, directory, list(store.rows))
        done = store.done_keys(retry_errors)
        todo = [c for c in experiment.cells if c.key not in done]
        n_skipped = len(cells) - len(todo)
        if not os.path.exists(store.path):
            store.write()  # header only: the file exists from the start
        bar = progress_bar(len(todo), experiment.name, progress and bool(todo), unit="cell",
                           leave=True)
        n_run = n_err_now = 0
        running = {}

        # joblib hands cells to free workers in order: the oldest cells taken and not
        # finished are the ones running (a newer one may wait for a worker)
        n_workers = 1 if backend == "serial" else (os.cpu_count() or 1) if n_jobs == -1 else n_jobs

        def show():
            now = list(running.values())[:n_workers]
            parts = [f"running {', '.join(now)}" if now else "",
                     f"{n_err_now} error(s)" if n_err_now else ""]
            bar.set_postfix_str("; ".join(p for p in parts if p), refresh=True)

        on_start = None
        if bar is not None and describe is not None and backend in ("serial", "joblib"):
            def on_start(c):
                running[c.key] = str(describe(c.params))
                show()
        try:
            if backend == "serial":
                records = _serial(experiment, todo, param_columns, blas_threads, on_start)
            else:
                cp = cloudpickle_module()
                payload = cp.dumps(experiment.cell)
                records = (_joblib(payload, todo, param_columns, n_jobs, blas_threads, on_start)
                           if backend == "joblib"
                           else _dask(payload, todo, param_columns, scheduler, experiment.name,
                                      blas_threads))
            try:
                for rec in records:
                    if backend != "serial":
                        rec["error"] = _script_frames(rec["error"], experiment.cell)
                    _store_record(store, experiment, cells[rec["key"]],
                                  param_columns[rec["key"]], rec)
                    store.write()
                    n_run += 1
                    n_err_now += rec["status"] == "error"
                    running.pop(rec["key"], None)
                    if bar is not None:
                        bar.update(1)
                        if n_err_now or on_start is not None:
                            show()
            finally:
                close = getattr(records, "close", None)
                if close is not None:
                    close()
        finally:
            if bar is not None:
                bar.close()
        n_errors = sum(1 for k in cells if store.rows.get(k, {}).get("status") == "error")
    results = read_results(os.path.join(directory, RESULTS_FILE))
    return RunReport(experiment, directory, os.path.join(directory, RESULTS_FILE), len(cells),
                     n_skipped, n_run, n_errors, time.perf_counter() - t_start, results)


def _store_record(store, experiment, cell, param_columns, rec):
    row = {"key": cell.key, "experiment": experiment.name, "task": experiment.task,
           "status": rec["status"], "error": rec["error"]}
    row.update(flatten_params(json.loads(cell.config)["params"]))
    row.update(rec["results"])
    trace_file = ""
    if rec["status"] == "ok" and rec.get("trace") is not None and len(rec["trace"]):
        trace_file = store.write_trace(cell.key, rec["trace"])
    row.update({"warnings": rec["warnings"], "trace_file": trace_file,
                "cell_seconds": rec["cell_seconds"], "host": rec["host"], "pid": rec["pid"],
                "timestamp": rec["timestamp"], "config": cell.config})
    row.update({c: rec.get(c, "") for c in _versions()})
    store.add(row, param_columns, list(rec["results"]))


def _write_sidecar(experiment, directory, kept_keys=()):
    # cell_keys: this grid's keys, then the keys of valid rows kept from earlier runs (a
    # changed grid); results.csv is checked against them (krein.experiment.validate)
    keys = [c.key for c in experiment.cells]
    grid = set(keys)
    keys += [k for k in kept_keys if k not in grid]
    info = {"name": experiment.name, "description": experiment.description,
            "task": experiment.task, "seed": experiment.random_state, "quick": experiment.quick,
            "script": experiment.script, "n_cells": len(experiment.cells),
            "table": experiment.table if isinstance(experiment.table, dict) else None,
            "hooks": {"table": callable(experiment.table),
                      "figures": experiment.figures is not None},
            "cell_keys": keys}
    try:
        text = json.dumps(info, indent=2, default=str)
    except (TypeError, ValueError):
        info["table"] = None
        text = json.dumps(info, indent=2, default=str)
    atomic_write_bytes(os.path.join(directory, "experiment.json"), text.encode())


def read_sidecar(directory):
    """The ``experiment.json`` sidecar that :func:`run_experiment` writes in a results directory.

    Parameters
    ----------
    directory : str or path-like
        The results directory.

    Returns
    -------
    dict
        The experiment's ``name``, ``description``, ``task``, ``seed``,
        ``quick``, ``script``, ``n_cells``, ``table`` (the dict of
        :func:`results_table` arguments, or None), ``hooks`` (whether the
        script has its own ``table``/``figures`` functions) and ``cell_keys``
        (the keys of the cells, for :func:`krein.experiment.validate.scan_results`;
        the last three absent from files that do not record them); ``{}`` when the file is missing or damaged (the readers of
        tables use :func:`krein.experiment.validate.read_experiment_json`,
        which refuses a damaged file).
    """
    return read_experiment_json(directory, strict=False)
