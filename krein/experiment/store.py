"""The results file of an experiment: cell keys, tidy rows, atomic writes, resume.

Part of :mod:`krein.experiment`; the public entry points are
:func:`krein.experiment.run_experiment` and :func:`krein.experiment.read_results`.

Layout of a results directory ``DIR``
-------------------------------------
``DIR/results.csv``
    One row per finished cell (tidy: one column per parameter, metric, timing,
    provenance field).  Column groups, in this order: :data:`META_COLUMNS`
    (``key``, ``experiment``, ``task``, ``status``, ``error``), the cell's
    parameters sorted by name (nested dicts flattened with dots, e.g.
    ``kernel_params.a``; lists as JSON text; an empty dict gives no column),
    the cell's results in the order it returned them, then
    :data:`PROVENANCE_COLUMNS`
    (warnings, trace file, seconds, host, pid, timestamp, package versions and
    ``config``, the canonical JSON the key is the hash of).  Rows follow the
    order of the experiment's grid, so the file does not depend on the order
    in which parallel workers finished.
``DIR/traces/KEY.csv``
    Optional per-cell trace (e.g. objective and gap per iteration), written
    before the cell's row.
``DIR/experiment.json``
    Name, script, seed and table specification of the experiment that wrote
    the directory, the number of cells and their keys (``cell_keys``, against
    which ``results.csv`` is checked) and whether its script has its own
    table/figures functions (``hooks``; never run by ``krein experiment
    table``/``plot`` unless ``--script PATH`` is given).
``DIR/.lock``
    ``fcntl.flock``-ed by the running process: a second run on the same
    directory is refused instead of overwriting the first one's rows.

Why a whole-file atomic rewrite and not an append
-------------------------------------------------
After every finished cell the complete file is written to a fresh temporary
file in ``DIR``, flushed, ``fsync``-ed, and moved onto ``results.csv`` with
``os.replace`` (atomic on POSIX and Windows within one file system); then the
directory is ``fsync``-ed so the rename itself survives a power cut.  A reader
therefore sees either the previous complete file or the new complete file,
never a half-written row, whatever moment the writer is killed at (SIGKILL
included: the kill can only leave a stray temporary file, removed by the next
run).  An append (even ``O_APPEND`` with ``fsync``) can be cut inside a row by
a kill, and every reader would have to repair the tail.  The cost is writing
``O(rows)`` bytes per cell; each row's CSV line is cached, so a rewrite is a
join and a write (timings in ``benchmarks/README.md``).  Only the parent process writes;
parallel workers return their rows to it.

Reading
-------
Every row is read through :mod:`krein.experiment.validate`: a row that is
not whole (a field count other than the header's), repeats a key, has an
unknown status, text in a numeric column, or a key that ``experiment.json``
does not record is invalid.  Tables and figures refuse such a file (file and
line named); a resumed run drops the invalid rows and recomputes their cells.

Keys
----
A cell's key is the first 16 hex digits of the SHA-256 of the canonical JSON
(sorted keys, no spaces, NumPy scalars as Python numbers, tuples as lists) of
``{"params": params, "task": task}``, where ``params`` includes the
experiment's ``seed``.  Equal configurations give equal keys in any process,
on any machine, in any run; ``1`` and ``1.0`` are different configurations.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import numbers
import os

import numpy as np

from .._io import atomic_write_bytes, remove_stale_temporaries
from .validate import ResultFileError, read_experiment_json, scan_csv, scan_results

__all__ = ["canonical_json", "cell_key", "flatten_params", "format_value", "ResultsStore",
           "META_COLUMNS", "PROVENANCE_COLUMNS", "RESULTS_FILE",
           "TRACES_DIR", "VERSION_PACKAGES", "LOCK_FILE", "DirectoryInUse", "lock_directory",
           "lock_holder", "read_trace"]

#: File name of the results table inside a results directory.
RESULTS_FILE = "results.csv"

#: The lock file of a directory a run writes to (held with ``fcntl.flock`` for the run).
LOCK_FILE = ".lock"

#: Folder of per-cell trace files inside a results directory.
TRACES_DIR = "traces"

#: Leading columns of every row.
META_COLUMNS = ["key", "experiment", "task", "status", "error"]

#: Distribution names whose versions every row records, column ``version_<name>``.
VERSION_PACKAGES = ["krein", "numpy", "scipy", "cvxpy", "scikit-learn"]

#: Trailing columns of every row (filled by the runner, not by the cell).
PROVENANCE_COLUMNS = (["warnings", "trace_file", "cell_seconds", "host", "pid", "timestamp",
                       "version_python"]
                      + [f"version_{p}" for p in VERSION_PACKAGES] + ["config"])



# --------------------------------------------------------------------------- canonical form
def _normalize(obj, where="params"):
    """JSON-ready copy of ``obj``: NumPy scalars to Python, tuples/arrays to lists.

    Raises
    ------
    ValueError
        For a dict key that is not a string, a NaN, or a value of another type
        (the message names the offending entry ``where``).
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, np.generic):
        obj = obj.item()
        if not isinstance(obj, (bool, numbers.Number, str)):
            raise ValueError(f"{where}: unsupported NumPy scalar {obj!r}")
        return _normalize(obj, where)
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        v = float(obj)
        if math.isnan(v):
            raise ValueError(f"{where}: NaN is not a configuration value (NaN != NaN)")
        return v
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise ValueError(f"{where}: dict keys must be strings; got {k!r}")
            out[k] = _normalize(v, f"{where}.{k}")
        return out
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [_normalize(v, f"{where}[{i}]") for i, v in enumerate(list(obj))]
    raise ValueError(f"{where}: values must be None, bool, int, float, str or lists/dicts of "
                     f"them; got {type(obj).__name__} {obj!r}")


def canonical_json(obj, where="params"):
    """Canonical JSON text of a configuration (the input of :func:`cell_key`).

    Parameters
    ----------
    obj : dict, list or scalar
        None, bool, int, float (not NaN), str, and lists/tuples/dicts of them;
        NumPy scalars and arrays are converted.
    where : str
        Name used in error messages.

    Returns
    -------
    str
        ``json.dumps`` with sorted keys and no spaces.

    Raises
    ------
    ValueError
        For an unsupported value (see :func:`_normalize`).
    """
    return json.dumps(_normalize(obj, where), sort_keys=True, separators=(",", ":"),
                      allow_nan=True)


def cell_key(task, params):
    """Key of a cell: 16 hex digits of SHA-256 of its canonical configuration.

    Parameters
    ----------
    task : str
        Name of the cell function (:attr:`krein.experiment.Experiment.task`).
    params : dict
        The cell's parameters, including ``seed``.

    Returns
    -------
    key : str
        16 lower-case hex digits.
    config : str
        The canonical JSON that was hashed (stored in the ``config`` column).
    """
    config = canonical_json({"params": params, "task": task})
    return hashlib.sha256(config.encode()).hexdigest()[:16], config


def flatten_params(params, prefix=""):
    """Flatten nested dicts into dotted column names; lists become JSON text.

    Parameters
    ----------
    params : dict
        A normalized configuration (:func:`canonical_json` accepts it).
    prefix : str
        Prepended to every column name (the recursion passes ``"name."`` for
        the entries of a nested dict ``name``).

    Returns
    -------
    dict
        ``{"kernel_params.a": 0.1, "param_grid.C": "[0.1,1]", ...}``; an empty
        nested dict gives no column.
    """
    out = {}
    for k, v in params.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten_params(v, name + "."))
        elif isinstance(v, (list, tuple)):
            out[name] = canonical_json(v, name)
        else:
            out[name] = v
    return out


def format_value(v):
    """Text of one CSV cell.

    Parameters
    ----------
    v : object
        A value of a row: None, bool, int, float, str or a NumPy scalar
        (anything else is written as its ``str``).

    Returns
    -------
    str
        ``""`` for None and NaN (missing), the shortest round-trip ``repr`` for
        a float (``float(text) == v`` exactly), ``"True"``/``"False"`` for a
        bool, the Python value's text for a NumPy scalar, else ``str(v)``.
    """
    if v is None:
        return ""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return repr(v)
    return str(v)


# --------------------------------------------------------------------------- the lock
class DirectoryInUse(RuntimeError):
    """Another live process holds the lock of a directory (:func:`lock_directory`).

    Parameters
    ----------
    directory : str
        The directory.
    pid : int or None
        The process id recorded by the holder, when readable.
    """

    def __init__(self, directory, pid=None):
        self.directory, self.pid = directory, pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(f"{directory} is in use by another krein run ({holder} holds "
                         f"{os.path.join(directory, LOCK_FILE)}); wait for it to finish or "
                         "choose another output directory")


def lock_directory(directory):
    """Take the exclusive lock of a directory for this process, without waiting.

    ``fcntl.flock(LOCK_EX | LOCK_NB)`` on ``directory/.lock`` (created if
    missing; this process's id is written into it).  The lock is held until the
    returned file is closed, and released by the kernel when the process ends
    however it ends (SIGKILL included), so a crashed run never leaves a stale
    lock.  Without ``fcntl`` (Windows) nothing is locked.

    Parameters
    ----------
    directory : str or path-like
        An existing directory.

    Returns
    -------
    file object
        The open lock file; ``close()`` releases the lock.

    Raises
    ------
    DirectoryInUse
        (a ``RuntimeError``) if another open lock (another process, or another
        run in this one) holds it.
    """
    directory = os.fspath(directory)
    lock_path = os.path.join(directory, LOCK_FILE)
    f = open(lock_path, "a+")
    try:
        import fcntl
    except ImportError:  # no flock (Windows): single-writer by convention only
        return f
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            f.seek(0)
            pid = int(f.read().strip() or 0) or None
        except (OSError, ValueError):
            pid = None
        f.close()
        raise DirectoryInUse(directory, pid) from None
    try:  # unbuffered: nothing left to fail when the lock file is closed
        os.ftruncate(f.fileno(), 0)
        os.pwrite(f.fileno(), f"{os.getpid()}\n".encode(), 0)
    except OSError:  # a full disk: the lock holds all the same
        pass
    return f


def lock_holder(directory):
    """Whether a live process holds the lock of a directory, probed without creating anything.

    Parameters
    ----------
    directory : str or path-like
        A directory (its ``.lock`` file need not exist).

    Returns
    -------
    DirectoryInUse or None
        The error to raise when another open lock holds ``directory/.lock``
        (with the holder's process id when readable), else None (no lock file,
        an unheld one, or no ``fcntl``).
    """
    directory = os.fspath(directory)
    lock_path = os.path.join(directory, LOCK_FILE)
    if not os.path.exists(lock_path):
        return None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    try:
        f = open(lock_path)
    except OSError:
        return None
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            try:
                pid = int(f.read().strip() or 0) or None
            except (OSError, ValueError):
                pid = None
            return DirectoryInUse(directory, pid)
    return None


def read_trace(directory, trace_file, text_columns=()):
    """A cell's trace (``traces/KEY.csv``, :meth:`ResultsStore.write_trace`), checked.

    Parameters
    ----------
    directory : str or path-like
        The results directory.
    trace_file : str
        The row's ``trace_file`` (relative to ``directory``).
    text_columns : sequence of str
        Columns read verbatim as text (e.g. labels: ``"NA"`` stays ``"NA"``);
        the others are numbers (floats written by :meth:`ResultsStore.write_trace`
        read back as written).

    Returns
    -------
    pandas.DataFrame or None
        The trace; None when ``trace_file`` is empty or the file is gone.

    Raises
    ------
    krein.experiment.validate.ResultFileError
        (a ValueError) A damaged trace: a row cut short, text in a numeric
        column (file and line named).
    """
    import pandas as pd

    if not trace_file:
        return None
    path = os.path.join(os.fspath(directory), trace_file)
    if not os.path.isfile(path):
        return None
    scan = scan_csv(path, required=tuple(text_columns), infer_numeric=not text_columns,
                    what="trace file")
    if text_columns:
        scan = scan_csv(path, numeric=[c for c in scan.header if c not in text_columns],
                        what="trace file")
    scan.check()
    missing = {c: ["", "nan", "NaN"] for c in scan.header if c not in text_columns}
    return pd.read_csv(path, dtype={c: str for c in text_columns}, keep_default_na=False,
                       na_values=missing)


# --------------------------------------------------------------------------- the store
class ResultsStore:
    """The results file of one directory, owned by one process while open.

    Use as a context manager: entering takes the directory lock, removes the
    temporary files a killed writer left, and reads the existing rows (as the
    exact text they were written with, so rewriting the file never changes
    them); leaving releases the lock.

    Parameters
    ----------
    directory : str
        Results directory (created if needed).

    Attributes
    ----------
    path : str
        ``directory/results.csv``.
    rows : dict of str to dict
        Key -> row (column -> text), in file order: the valid rows of the
        file (:func:`krein.experiment.validate.scan_results`).
    invalid : list of (int, str)
        ``(line, problem)`` of the rows that were not valid (a row cut short,
        a missing field, a repeated key, an unknown status, text in a numeric
        column, a key that is not a cell recorded in ``experiment.json``):
        they are dropped, so their cells are not done and a run recomputes
        them (:meth:`invalid_note` is its one line saying so).

    Raises
    ------
    DirectoryInUse
        (a ``RuntimeError``, on entering) If another process holds the directory lock.
    ValueError
        (on entering) If ``results.csv`` exists but has no ``key`` column.
    """

    def __init__(self, directory):
        self.directory = os.fspath(directory)
        self.path = os.path.join(self.directory, RESULTS_FILE)
        self.rows = {}
        self._lock = None
        self._row_cols = {}   # key -> (parameter columns, result columns) of that row
        self._order = []
        self._lines = {}      # key -> the row's CSV line for the columns in _line_columns
        self._line_columns = None
        self._interned = {}   # one shared tuple per distinct (parameter, result) column lists
        self.invalid = []     # (line, problem) of the rows dropped on entering

    # ---------------------------------------------------------------- lock
    def __enter__(self):
        os.makedirs(self.directory, exist_ok=True)
        self._acquire_lock()
        try:
            remove_stale_temporaries(self.directory, RESULTS_FILE)
            remove_stale_temporaries(os.path.join(self.directory, TRACES_DIR), "")
            self._load()
        except BaseException:
            self._release_lock()
            raise
        return self

    def __exit__(self, *exc):
        self._release_lock()
        return False

    def _acquire_lock(self):
        self._lock = lock_directory(self.directory)

    def _release_lock(self):
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the flock
            self._lock = None

    # ---------------------------------------------------------------- read
    def _load(self):
        self.invalid = []
        if not os.path.exists(self.path):
            return
        try:
            scan = scan_results(self.path, read_experiment_json(self.directory, strict=False))
        except ResultFileError as exc:
            if exc.line == 1 and "missing column" in exc.problem and "key" in exc.problem:
                raise ValueError(f"{self.path} is not a krein results file (no 'key' column)") \
                    from None
            if exc.problem.startswith("the file is empty"):
                return  # an empty file: no rows (the run writes the header)
            raise
        header = scan.header
        self.invalid = scan.invalid
        for values in scan.valid:
            self.rows[values["key"]] = dict(values)
        fixed = set(META_COLUMNS) | set(PROVENANCE_COLUMNS)
        for key, row in self.rows.items():
            try:
                params = flatten_params(json.loads(row.get("config") or "{}").get("params", {}))
            except (ValueError, AttributeError):
                params = {}
            pcols = [c for c in params if c in header]
            # all the header's result columns: a resumed file keeps the header it had
            rcols = [c for c in header if c not in fixed and c not in params]
            self._row_cols[key] = self._intern(pcols, rcols)

    def invalid_note(self):
        """One line on the invalid rows found on entering (dropped, their cells recomputed).

        Returns
        -------
        str or None
            ``"PATH line 7: truncated row (3 of 40 fields); cell recomputed"``
            (the first invalid row, then how many more and on which lines), or
            None when every row was valid.
        """
        if not self.invalid:
            return None
        line, problem = self.invalid[0]
        text = f"{self.path} line {line}: {problem}; cell recomputed"
        rest = [str(ln) for ln, _ in self.invalid[1:]]
        if rest:
            text += (f" (and {len(rest)} more invalid row{'s' if len(rest) > 1 else ''}, "
                     f"line{'s' if len(rest) > 1 else ''} {', '.join(rest[:10])}"
                     f"{', ...' if len(rest) > 10 else ''}: dropped, cells recomputed)")
        return text

    def done_keys(self, retry_errors=False):
        """Keys of the finished cells, the cells a run skips.

        Parameters
        ----------
        retry_errors : bool, default False
            Leave out the keys of rows with ``status == "error"`` (so that they
            are recomputed).

        Returns
        -------
        set of str
            Keys of the rows in the file (and added since).
        """
        if not retry_errors:
            return set(self.rows)
        return {k for k, r in self.rows.items() if r.get("status") != "error"}

    # ---------------------------------------------------------------- write
    def set_order(self, keys):
        """Set the preferred row order: these keys first, other rows after, as found.

        Parameters
        ----------
        keys : list of str
            Cell keys in the experiment's grid order; keys without a row are
            ignored by :meth:`ordered_keys`.
        """
        self._order = list(keys)

    def add(self, row, param_columns, result_columns):
        """Add or replace one row (values are formatted with :func:`format_value`).

        Parameters
        ----------
        row : dict
            Column -> value; must contain ``key``.
        param_columns, result_columns : list of str
            Which of the row's columns are parameters and results (column order).
        """
        self.rows[row["key"]] = {k: format_value(v) for k, v in row.items()}
        self._row_cols[row["key"]] = self._intern(param_columns, result_columns)
        self._lines.pop(row["key"], None)

    def _intern(self, param_columns, result_columns):
        t = (tuple(param_columns), tuple(result_columns))
        return self._interned.setdefault(t, t)

    @property
    def columns(self):
        """Column order of the file: meta, parameters, results, provenance.

        Parameter columns are sorted by name (the order of the canonical
        configuration); result columns are collected row by row in file order
        (:meth:`ordered_keys`), each new row contributing its own columns in the
        order the cell returned them, each row read from an existing file the
        result columns of that file's header.  The header therefore depends
        only on the rows and the grid, not on the order in which cells
        finished; a resumed run keeps the header it found and appends result
        columns that appear only in new rows (compare files by column name).
        """
        params, results = {}, {}
        distinct = {}  # the interned column lists in order of first use
        for k in self.ordered_keys():
            t = self._row_cols.get(k, ((), ()))
            distinct.setdefault(id(t), t)
        for pcols, rcols in distinct.values():
            params.update(dict.fromkeys(pcols))
            results.update(dict.fromkeys(rcols))
        results = [c for c in results if c not in params]
        return META_COLUMNS + sorted(params) + results + PROVENANCE_COLUMNS

    def ordered_keys(self):
        """Row keys in file order.

        Returns
        -------
        list of str
            The :meth:`set_order` keys that have a row, in that order, then the
            other rows' keys in the order they were read or added.
        """
        first = [k for k in self._order if k in self.rows]
        seen = set(first)
        return first + [k for k in self.rows if k not in seen]

    def text(self):
        """The CSV text of the current rows.

        Each row's CSV line is cached until the column list changes, so a
        rewrite after one more cell costs a join, not a re-encoding of every row.

        Returns
        -------
        str
            The header (:attr:`columns`) and one line per row in
            :meth:`ordered_keys` order, ``"\\n"`` line ends; missing values
            are empty.
        """
        cols = self.columns
        if cols != self._line_columns:
            self._lines, self._line_columns = {}, cols
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(cols)
        parts = [buf.getvalue()]
        for k in self.ordered_keys():
            line = self._lines.get(k)
            if line is None:
                buf.seek(0)
                buf.truncate()
                row = self.rows[k]
                writer.writerow([row.get(c, "") for c in cols])
                line = self._lines[k] = buf.getvalue()
            parts.append(line)
        return "".join(parts)

    def write(self):
        """Rewrite ``results.csv`` atomically (:func:`atomic_write_bytes`)."""
        atomic_write_bytes(self.path, self.text().encode("utf-8"))

    def write_trace(self, key, frame):
        """Write a cell's trace to ``traces/KEY.csv`` atomically.

        Parameters
        ----------
        key : str
            The cell's key (the file name).
        frame : pandas.DataFrame
            The trace, written without its index.

        Returns
        -------
        str
            The path relative to the directory, ``"traces/KEY.csv"`` (the
            ``trace_file`` column of the row).
        """
        directory = os.path.join(self.directory, TRACES_DIR)
        os.makedirs(directory, exist_ok=True)
        rel = f"{TRACES_DIR}/{key}.csv"
        atomic_write_bytes(os.path.join(self.directory, rel),
                           frame.to_csv(index=False).encode("utf-8"))
        return rel
