"""Reader of a researcher's feature tables: CSV, whitespace text, LIBSVM/svmlight.

Feature tables (:func:`read_features`): CSV or whitespace text, one object per
line, with an optional header row; the labels are one of the columns (by
default the last).  LIBSVM/svmlight files (``label index:value ...``) are read
by :func:`sklearn.datasets.load_svmlight_file` and densified.  Paths, text
lines and label types follow the readers of matrices and labels
(:mod:`krein.datasets._files`: module docstring there, "Formats" and
"Errors"; the shared pieces in :mod:`krein.datasets._file_basics`); what the
values must satisfy (two classes) is checked by
:func:`krein.kernel_data.load_feature_file`.
"""

from __future__ import annotations

import csv
import numbers
import re

import numpy as np

from ._file_basics import (KEYED_SUFFIXES, TEXT_SUFFIXES, data_lines, field_separator,
                           file_error, first_data_line, is_number, resolve_path, typed_labels)

__all__ = ["read_features", "FEATURE_FORMATS", "MAX_DENSE_BYTES"]

#: Extensions of LIBSVM/svmlight feature files.
SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm")
#: Accepted feature-table formats, as error messages list them.
FEATURE_FORMATS = (".csv (comma-separated), .txt/.dat/.tsv (whitespace-separated), optional "
                   "header row; LIBSVM/svmlight (.svm, .svmlight, .libsvm, or lines "
                   "'label index:value ...')")
#: Largest dense feature matrix made from a sparse svmlight file (bytes).
MAX_DENSE_BYTES = 2 * 1024**3

_SVMLIGHT_LINE = re.compile(r"^\s*[^\s:#]+(\s+qid:\S+)?(\s+\d+:[^\s#]+)+\s*(#.*)?$")


# ---------------------------------------------------------------------------- feature tables
def _table_rows(file, shown, argument, sep):
    """``(line numbers, rows of stripped fields)`` of a text table (comments, blanks dropped)."""
    line_numbers, rows = [], []
    try:
        with open(file, encoding="utf-8-sig", newline="") as f:
            if sep is None:
                for number, line in enumerate(f, 1):
                    fields = line.split("#", 1)[0].split()
                    if fields:
                        line_numbers.append(number)
                        rows.append(fields)
            else:
                reader = csv.reader(f, delimiter=sep, skipinitialspace=True)
                for fields in reader:
                    fields = [s.strip() for s in fields]
                    if not any(fields) or fields[0].startswith("#"):
                        continue
                    line_numbers.append(reader.line_num)
                    rows.append(fields)
    except UnicodeDecodeError:
        raise file_error(argument, shown, "is not a text file (cannot be decoded as "
                                          "UTF-8)") from None
    except csv.Error as exc:
        raise file_error(argument, shown, f"cannot be read as CSV ({exc})") from None
    except OSError as exc:
        raise file_error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    return line_numbers, rows


def _numeric_column(column):
    """The column as float64, or None when some entry is not a number."""
    try:
        return column.astype(float)
    except ValueError:
        return None


def _has_header(T):
    """Whether the first row of a string table is a header: some column votes for it.

    A column votes for a header when its first entry is not a number and the
    rest are numbers, or when the rest are not all numbers but repeat (a
    column of string labels) and its first entry, not a number either, is
    none of them.
    """
    for j in range(T.shape[1]):
        first = str(T[0, j])
        if is_number(first):
            continue
        rest = T[1:, j]
        if _numeric_column(rest) is not None:
            return True
        values = set(rest.tolist())
        if len(values) < rest.size and first not in values:
            return True
    return False


def _column_name(j, names):
    return f"column {j + 1} ({names[j]!r})" if names is not None else f"column {j + 1}"


def _label_index(label_column, names, width, shown):
    """0-based index of the label column (``label_column``: None, a name or an index)."""
    if label_column is None:
        return width - 1
    if isinstance(label_column, str):
        if names is None:
            raise file_error("label_column", shown, f"has no header row, so no column is named "
                                                    f"{label_column!r}; give the column index "
                                                    f"(0 to {width - 1}, or -1 for the last)")
        if label_column not in names:
            shown_names = ", ".join(repr(n) for n in names[:20]) + (
                ", ..." if len(names) > 20 else "")
            raise file_error("label_column", shown, f"has no column named {label_column!r}; its "
                                                    f"columns: {shown_names}")
        return names.index(label_column)
    if isinstance(label_column, numbers.Integral) and not isinstance(label_column, bool):
        j = int(label_column)
        if not -width <= j < width:
            raise file_error("label_column", shown, f"label_column {j} is out of range for a "
                                                    f"table of {width} columns (0 to "
                                                    f"{width - 1}, or -{width} to -1)")
        return j % width
    raise file_error("label_column", shown, f"label_column must be a column name (str), a column "
                                            f"index (int) or None; got {label_column!r}")


def _read_table(file, shown, argument, sep, label_column):
    line_numbers, rows = _table_rows(file, shown, argument, sep)
    if not rows:
        raise file_error(argument, shown, "holds no data (an empty file)")
    if all(r[-1] == "" for r in rows) and len(rows[0]) > 1:  # a separator ending every line
        rows = [r[:-1] for r in rows]
    width = len(rows[0])
    for number, row in zip(line_numbers, rows):
        if len(row) != width:
            raise file_error(argument, shown, f"line {number} has {len(row)} fields but line "
                                              f"{line_numbers[0]} has {width} (rows of different "
                                              "lengths)")
    T = np.array(rows, dtype=str)
    header = _has_header(T)
    names = T[0].tolist() if header else None
    if header:
        T, line_numbers = T[1:], line_numbers[1:]
    if T.shape[0] == 0:
        raise file_error(argument, shown, "has a header row but no data rows")
    if width < 2:
        raise file_error(argument, shown, "has a single column; a feature table has feature "
                                          "columns and a label column")
    j = _label_index(label_column, names, width, shown)
    feature_cols = [c for c in range(width) if c != j]
    X = np.empty((T.shape[0], len(feature_cols)))
    for k, c in enumerate(feature_cols):
        col = _numeric_column(T[:, c])
        if col is None:
            i = next(i for i, s in enumerate(T[:, c].tolist()) if not is_number(s))
            value = str(T[i, c])
            what = "an empty field" if value == "" else f"non-numeric value {value!r}"
            raise file_error(argument, shown, f"{what} in feature {_column_name(c, names)} on "
                                              f"line {line_numbers[i]}; features must be numbers "
                                              f"(the labels are {_column_name(j, names)}; choose "
                                              "it with label_column)")
        bad = np.flatnonzero(~np.isfinite(col))
        if bad.size:
            raise file_error(argument, shown, f"{bad.size} NaN or inf values in feature "
                                              f"{_column_name(c, names)} (the first on line "
                                              f"{line_numbers[bad[0]]}); features must be finite")
        X[:, k] = col
    y = typed_labels(T[:, j].tolist(), shown, argument, line_numbers)
    feature_names = ([names[c] for c in feature_cols] if names is not None
                     else [f"x{k + 1}" for k in range(len(feature_cols))])
    info = {"format": "table", "header": header, "label_index": j,
            "label_name": names[j] if names is not None else None, "width": width}
    return X, y, feature_names, info


def _svmlight_problem(content):
    """What is wrong with one data line of an svmlight file, or None."""
    fields = content.split()
    if not is_number(fields[0]):
        return f"label {fields[0]!r} is not a number"
    for pair in fields[1:]:
        index, sep, value = pair.partition(":")
        if not sep or (index != "qid" and not index.isdigit()):
            return f"{pair!r} is not index:value"
        if not is_number(value):
            return f"value {value!r} of {pair!r} is not a number"
    return None


def _read_svmlight(file, shown, argument, label_column):
    from sklearn.datasets import load_svmlight_file

    if label_column is not None:
        raise file_error("label_column", shown, "is a LIBSVM/svmlight file, whose label is the "
                                                "first field of every line; label_column does "
                                                f"not apply (got {label_column!r})")
    try:
        Xs, y = load_svmlight_file(str(file))
    except (ValueError, OSError, UnicodeDecodeError, TypeError) as exc:
        problem = None
        for number, content in data_lines(file, shown, argument):
            what = _svmlight_problem(content)
            if what:
                problem = f"line {number}: {what}; expected 'label index:value ...'"
                break
        raise file_error(argument, shown, problem or f"is not a valid LIBSVM/svmlight file "
                                                     f"({exc})") from None
    n, d = Xs.shape
    if n == 0 or d == 0:
        raise file_error(argument, shown, f"holds {n} objects with {d} features")
    size = 8 * n * d
    if size > MAX_DENSE_BYTES:
        raise file_error(argument, shown, f"{n} objects x {d} features take "
                                          f"{size / 1024**3:.1f} GiB as a dense matrix (limit "
                                          f"{MAX_DENSE_BYTES / 1024**3:.0f} GiB); select "
                                          "features or objects first")
    X = Xs.toarray()
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        raise file_error(argument, shown, f"{len(bad)} NaN or inf feature values (the first of "
                                          f"object {bad[0][0] + 1}, feature {bad[0][1] + 1})")
    y = np.asarray(y, dtype=float)
    if not np.all(np.isfinite(y)):
        raise file_error(argument, shown, "has NaN or inf labels")
    if np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53):
        y = y.astype(np.int64)
    info = {"format": "svmlight", "header": False, "label_index": 0, "label_name": None,
            "width": d + 1}
    return X, y, [f"x{k + 1}" for k in range(d)], info


def read_features_with_info(path, *, label_column=None, argument="data"):
    """Read a feature file as :func:`read_features` does, and say how it was read.

    Parameters
    ----------
    path : str or os.PathLike
        The feature file.
    label_column : str or int, optional
        Column of the labels in a text table (:func:`read_features`).
    argument : str, default="data"
        Argument name the errors about the file carry.

    Returns
    -------
    X : ndarray of shape (n, d)
        The features as float64, unscaled.
    y : ndarray of shape (n,)
        The labels: int64, float64 or str.
    feature_names : list of str
        The ``d`` names of the feature columns.
    info : dict
        How the file was read: ``format`` (``"table"`` or ``"svmlight"``),
        ``header`` (bool), ``label_index`` (0-based column of the labels),
        ``label_name`` (its header name, or None) and ``width`` (columns of a
        table, ``d + 1`` for an svmlight file).

    Raises
    ------
    InvalidArgument
        As :func:`read_features`.
    """
    file, key, shown = resolve_path(path, argument)
    suffix = file.suffix.lower()
    if key is not None:  # pragma: no cover - resolve_path splits keys of .npz/.mat only
        raise file_error(argument, shown, "a ':key' applies to .npz and .mat files only")
    if suffix in SVMLIGHT_SUFFIXES:
        return _read_svmlight(file, shown, argument, label_column)
    if suffix in KEYED_SUFFIXES + (".npy",):
        raise file_error(argument, shown, f"is a {suffix} file; a feature file is a text table, "
                                          f"accepted: {FEATURE_FORMATS}")
    first = first_data_line(file, shown, argument)
    if first is not None and _SVMLIGHT_LINE.match(first):
        return _read_svmlight(file, shown, argument, label_column)
    if suffix not in TEXT_SUFFIXES + (".data",):
        raise file_error(argument, shown, f"unknown feature-file format "
                                          f"{suffix or '(no extension)'!r}; accepted: "
                                          f"{FEATURE_FORMATS}")
    return _read_table(file, shown, argument, field_separator(first), label_column)


def read_features(path, *, label_column=None, argument="data"):
    """Read feature vectors and their labels from a CSV, text or LIBSVM/svmlight file.

    Text tables (``.csv``, comma-separated; ``.txt``/``.dat``/``.tsv``,
    whitespace-separated; also ``.data``, the UCI name) hold one object per
    line.  The first row is a header when it names the columns: a column
    whose first entry is a word above numbers (or, in a column of repeated
    string labels, a word that is none of them) marks it.  The labels are the
    column ``label_column`` (default the last), with the int/float/str rule
    of :func:`read_labels`; every other column is a feature and must hold
    finite numbers.  LIBSVM/svmlight files (``.svm``, ``.svmlight``,
    ``.libsvm``, or any file whose first data line looks like ``label
    index:value ...``) are read by :func:`sklearn.datasets.load_svmlight_file`
    and densified; integral labels become integers.

    Parameters
    ----------
    path : str or os.PathLike
        The feature file.
    label_column : str or int, optional
        Column of the labels in a text table: a header name, or an index
        (0-based, negative counts from the end).  Default (None): the last
        column.  Must be None for svmlight files (the label comes first).
    argument : str, default="data"
        Argument name the errors about the file carry.

    Returns
    -------
    X : ndarray of shape (n, d)
        The features as float64, unscaled.
    y : ndarray of shape (n,)
        The labels: int64, float64 or str.
    feature_names : list of str
        The ``d`` header names of the feature columns, or ``"x1"``, ..., ``"xd"``.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) with a one-line message that starts with ``path``:
        naming ``argument`` for no such file, a directory, an unknown format
        (listing the accepted ones), rows of different lengths (with the line),
        a non-numeric, NaN or inf feature value (with column and line), an
        empty label, a malformed svmlight line, a dense matrix above
        :data:`MAX_DENSE_BYTES`; naming ``label_column`` for an unknown
        column name (listing the names), an index out of range, a name
        without header row, or a ``label_column`` given for an svmlight file.
    """
    X, y, feature_names, _ = read_features_with_info(path, label_column=label_column,
                                                     argument=argument)
    return X, y, feature_names
