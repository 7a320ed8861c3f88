"""The one validating reader of the files that results live in.

Part of :mod:`krein.experiment`.  Every reader of a results directory
(``results.csv`` and ``experiment.json``, written by
:func:`krein.experiment.run_experiment`) and of a comparison directory
(``summary.csv``, ``folds.csv``, ``spectrum.csv``, ``points.csv``,
``boundaries.csv`` and ``run.json``, written by ``krein compare``) goes
through this module, so that a damaged file is detected, never trusted:

* the CSV text is parsed record by record with :mod:`csv`, each record's
  first line number kept, and every record must have as many fields as the
  header (a row cut by a crash or a missing field is reported, not shifted
  into phantom columns);
* required columns must be present, keys unique, statuses known, numeric
  columns numbers (an empty value only where the writer writes one);
* counts are checked against the run's metadata: ``results.csv`` keys
  against the cell keys recorded in ``experiment.json`` (directories
  written before the keys were recorded are accepted without that check),
  ``summary.csv`` rows against the methods of ``run.json``, ``folds.csv``
  rows per method against ``cv * repeats``, ``spectrum.csv`` eigenvalues
  against ``n``.

A problem is a :class:`ResultFileError` (a :class:`ValueError`) whose message
is ``"PATH line N: problem"``.  The readers of tables, figures and the report
page refuse such a file; the resume of :class:`~krein.experiment.store.ResultsStore`
drops the invalid rows instead and recomputes their cells
(:func:`scan_results` lists them).

Nothing read here is ever executed: the files are data.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field

__all__ = ["ResultFileError", "CsvRow", "CsvScan", "scan_csv", "scan_results",
           "read_experiment_json", "read_json_object", "RESULT_STATUSES",
           "NUMERIC_RESULT_COLUMNS", "EXPERIMENT_FILE"]

#: File name of the experiment's metadata inside a results directory.
EXPERIMENT_FILE = "experiment.json"

#: The values of the ``status`` column of ``results.csv`` (what the runner writes).
RESULT_STATUSES = ("ok", "error")

#: Columns of ``results.csv`` that are numbers whenever they are not empty (the
#: classification task's metrics and counts, the runner's timings); other columns
#: are numeric when at least :data:`_INFER_MIN` of their values and all but one are.
NUMERIC_RESULT_COLUMNS = ("accuracy", "auc", "recall", "average", "sensitivity", "specificity",
                          "train_accuracy", "inner_score", "n_train", "n_test", "fit_seconds",
                          "predict_seconds", "select_seconds", "n_support", "n_iter",
                          "min_eigenvalue", "r_mm", "r_neg", "objective", "gap",
                          "certificate_value", "cell_seconds", "fold", "repeat", "seed",
                          "n_inner_failures", "n_inner_warnings")

#: Columns that an ``ok`` row of the classification task always fills.
_CLASSIFICATION_FILLED = ("accuracy", "n_train", "n_test")
_INFER_MIN = 5
_TEXT_RESULT_COLUMNS = ("key", "experiment", "task", "status", "error", "warnings",
                        "trace_file", "config", "host", "timestamp", "test_correct",
                        "test_predictions", "inner_error")


class ResultFileError(ValueError):
    """A result file that is damaged or inconsistent with its run's metadata.

    Parameters
    ----------
    path : str
        The file.
    problem : str
        What is wrong (one line).
    line : int, optional
        The (1-based) line of the file where the problem is.

    Attributes
    ----------
    path, problem, line
        As given.
    """

    def __init__(self, path, problem, line=None):
        self.path, self.problem, self.line = os.fspath(path), problem, line
        where = f"{self.path} line {line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


@dataclass
class CsvRow:
    """One record of a CSV file.

    Parameters
    ----------
    line : int
        The 1-based line where the record starts.
    values : dict
        Column -> text (only for records with the header's number of fields).
    problem : str or None
        Why the record is invalid, None when it is valid.
    key : str or None
        The record's key (its first field), when it has one.
    """

    line: int
    values: dict
    problem: str | None = None
    key: str | None = None


@dataclass
class CsvScan:
    """A CSV file read record by record (:func:`scan_csv`).

    Parameters
    ----------
    path : str
        The file.
    header : list of str
        Its column names.
    rows : list of CsvRow
        Every record after the header, valid or not, in file order.
    problems : list of (int, str)
        ``(line, problem)`` of the file as a whole (counts), besides the rows'.
    """

    path: str
    header: list
    rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @property
    def valid(self):
        """The valid rows' values, in file order.

        Returns
        -------
        list of dict
            Column -> text of each valid row.
        """
        return [r.values for r in self.rows if r.problem is None]

    @property
    def invalid(self):
        """The problems of the file: its invalid rows and its counts.

        Returns
        -------
        list of (int, str)
            ``(line, problem)``, by line.
        """
        out = [(r.line, r.problem) for r in self.rows if r.problem is not None]
        return sorted(out + list(self.problems), key=lambda t: (t[0] is None, t[0] or 0))

    def error(self):
        """The first problem of the file.

        Returns
        -------
        ResultFileError or None
            The first problem (with the number of further ones), None when
            the file is valid.
        """
        bad = self.invalid
        if not bad:
            return None
        line, problem = bad[0]
        more = len(bad) - 1
        if more:
            problem += f" (and {more} more problem{'s' if more > 1 else ''})"
        return ResultFileError(self.path, problem, line)

    def check(self):
        """Raise the first problem of the file (:meth:`error`).

        Returns
        -------
        CsvScan
            ``self``, when the file is valid.

        Raises
        ------
        ResultFileError
            The first problem, naming the file and the line.
        """
        err = self.error()
        if err is not None:
            raise err
        return self


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def scan_csv(path, required=(), numeric=(), key=None, statuses=None, status_column="status",
             infer_numeric=False, filled=None, what="CSV file"):
    """Read a CSV file record by record and check every record.

    Parameters
    ----------
    path : str or path-like
        The file.
    required : sequence of str
        Columns the header must have (else :class:`ResultFileError`, line 1).
    numeric : sequence of str
        Columns whose non-empty values must parse as numbers.
    key : str or sequence of str, optional
        Column(s) whose values identify a row: empty or repeated values are
        invalid rows (every occurrence of a repeated key).
    statuses : sequence of str, optional
        Accepted values of ``status_column`` (when the file has it).
    status_column : str
        The status column.
    infer_numeric : bool
        Also treat as numeric any other column (not a known text column) whose
        non-empty values are numbers in at least five rows and all rows but one.
    filled : callable, optional
        ``filled(values) -> iterable of column names`` that the row must not
        leave empty.
    what : str
        What the file is, for the message on an empty file.

    Returns
    -------
    CsvScan
        The rows of the file, each with its line number and problem (None for
        a valid row); :meth:`CsvScan.check` raises the first problem.

    Raises
    ------
    ResultFileError
        When the file is missing, empty, not UTF-8 text or its header lacks a
        required column (a damaged row is not raised: it is marked in the scan).
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ResultFileError(path, "no such file")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as exc:
        raise ResultFileError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") \
            from None
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise ResultFileError(path, "NUL byte in the file (not a text file)", line)
    reader = csv.reader(text.splitlines(keepends=True))
    try:
        header = next(reader)
    except StopIteration:
        raise ResultFileError(path, f"the file is empty (not a {what})") from None
    except csv.Error as exc:
        raise ResultFileError(path, f"unreadable header ({exc})", 1) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise ResultFileError(path, f"missing column(s) {', '.join(missing)}", 1)
    dupes = sorted({c for c in header if header.count(c) > 1})
    if dupes:
        raise ResultFileError(path, f"repeated column name(s) {', '.join(dupes)}", 1)
    scan = CsvScan(path, header)
    n = len(header)
    start = reader.line_num + 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            scan.rows.append(CsvRow(start, {}, f"unreadable row ({exc})"))
            start = reader.line_num + 1
            continue
        line, start = start, reader.line_num + 1
        row = CsvRow(line, {}, key=fields[0] if fields else None)
        if not fields or fields == [""] and n > 1:
            row.problem = "empty line"
        elif len(fields) < n:
            row.problem = f"truncated row ({len(fields)} of {n} fields)"
        elif len(fields) > n:
            row.problem = f"row has {len(fields)} fields, the header {n}"
        else:
            row.values = dict(zip(header, fields))
        scan.rows.append(row)
    good = [r for r in scan.rows if r.problem is None]
    numeric = [c for c in numeric if c in header]
    if infer_numeric:
        for c in header:
            if c in numeric or c in _TEXT_RESULT_COLUMNS:
                continue
            values = [r.values[c] for r in good if r.values[c] != ""]
            n_num = sum(_is_number(v) for v in values)
            if n_num >= _INFER_MIN and n_num >= len(values) - 1:
                numeric.append(c)
    if statuses is not None and status_column in header:
        for r in good:
            s = r.values[status_column]
            if s not in statuses:
                r.problem = (f"unknown {status_column} {s!r} (expected one of "
                             f"{', '.join(statuses)})")
    for r in good:
        if r.problem is not None:
            continue
        for c in numeric:
            v = r.values[c].strip()
            if v and not _is_number(v):
                r.problem = f"column {c} holds {r.values[c][:40]!r}, not a number"
                break
        if r.problem is None and filled is not None:
            empty = [c for c in filled(r.values) if c in header and not r.values[c].strip()]
            if empty:
                r.problem = f"empty {', '.join(empty)} in a row with status ok"
    if key is not None:
        cols = [key] if isinstance(key, str) else list(key)
        cols = [c for c in cols if c in header]
        if cols:
            first = {}
            for r in scan.rows:
                if not r.values:
                    continue
                k = tuple(r.values[c] for c in cols)
                if len(cols) == 1 and not k[0]:
                    r.problem = r.problem or f"empty {cols[0]}"
                    continue
                if k in first:
                    name = "/".join(cols)
                    label = k[0] if len(k) == 1 else ", ".join(k)
                    r.problem = f"duplicate {name} {label} (also at line {first[k].line})"
                    if first[k].problem is None:
                        first[k].problem = (f"duplicate {name} {label} (also at line "
                                            f"{r.line})")
                else:
                    first[k] = r
    return scan


def read_json_object(path, what="JSON file"):
    """Read a file holding one JSON object.

    Parameters
    ----------
    path : str or path-like
        The file.
    what : str
        What it is, for messages.

    Returns
    -------
    dict
        The object the file holds.

    Raises
    ------
    ResultFileError
        When the file is missing, not JSON, or not an object.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ResultFileError(path, "no such file")
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except json.JSONDecodeError as exc:
        raise ResultFileError(path, f"not valid JSON ({exc.msg})", exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise ResultFileError(path, f"not UTF-8 text ({exc.reason})") from None
    if not isinstance(obj, dict):
        raise ResultFileError(path, f"expected a JSON object ({what}), got "
                                    f"{type(obj).__name__}")
    return obj


def read_experiment_json(directory, strict=True):
    """The ``experiment.json`` of a results directory, checked.

    Parameters
    ----------
    directory : str or path-like
        The results directory.
    strict : bool
        Raise on a damaged file; else return ``{}`` for it.

    Returns
    -------
    dict
        The recorded ``name``, ``script``, ``n_cells``, ``cell_keys``... ``{}``
        when the file does not exist.

    Raises
    ------
    ResultFileError
        (``strict``) When the file is not a JSON object, or ``n_cells`` /
        ``cell_keys`` have the wrong type or disagree.
    """
    path = os.path.join(os.fspath(directory), EXPERIMENT_FILE)
    if not os.path.exists(path):
        return {}
    try:
        info = read_json_object(path, "the experiment's metadata")
        keys = info.get("cell_keys")
        if keys is not None:
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise ResultFileError(path, "cell_keys must be a list of strings")
            n = info.get("n_cells")
            if isinstance(n, int) and n > len(keys):
                raise ResultFileError(path, f"cell_keys lists {len(keys)} keys, n_cells is {n}")
        n = info.get("n_cells")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ResultFileError(path, f"n_cells must be a non-negative integer; got {n!r}")
    except ResultFileError:
        if strict:
            raise
        return {}
    return info


def scan_results(path, info=None):
    """Read a ``results.csv`` record by record and mark its invalid rows.

    A row is invalid when it does not have the header's number of fields, its
    key is empty or repeated, its ``status`` is not one the runner writes
    (:data:`RESULT_STATUSES`), a numeric column holds text, an ``ok`` row of
    the classification task leaves its accuracy or sizes empty, or its key is
    not among the ``cell_keys`` recorded in ``experiment.json``.

    Parameters
    ----------
    path : str or path-like
        ``DIR/results.csv`` (or another results file, e.g. a slimmed one).
    info : dict, optional
        The directory's ``experiment.json`` (:func:`read_experiment_json`);
        None reads it from the file's directory when the file is named
        ``results.csv``.

    Returns
    -------
    CsvScan
        The rows of ``results.csv``, each with its line number and problem
        (None for a valid row).

    Raises
    ------
    ResultFileError
        When the file is missing, empty, not text, has no ``key`` column, or
        its ``experiment.json`` is damaged.
    """
    path = os.fspath(path)
    if info is None:
        info = (read_experiment_json(os.path.dirname(os.path.abspath(path)))
                if os.path.basename(path) == "results.csv" else {})

    def filled(values):
        if values.get("status") == "ok" and values.get("task") == "classification_cell":
            return _CLASSIFICATION_FILLED
        return ()

    scan = scan_csv(path, required=("key",), numeric=NUMERIC_RESULT_COLUMNS, key="key",
                    statuses=RESULT_STATUSES, infer_numeric=True, filled=filled,
                    what="krein results file")
    keys = info.get("cell_keys")
    if keys is not None:
        known = set(keys)
        where = os.path.join(os.path.dirname(path), EXPERIMENT_FILE)
        for r in scan.rows:
            if r.problem is None and r.values["key"] not in known:
                r.problem = f"key {r.values['key']} is not a cell recorded in {where}"
    return scan

