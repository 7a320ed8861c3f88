"""Readers of a researcher's own files: a matrix and a label vector (feature tables:
:mod:`krein.datasets._features`, with the path and text helpers here).

These readers only read and check the FORMAT; what the numbers must satisfy
(a square, symmetric, finite kernel; as many labels as objects; two classes)
is checked by :mod:`krein.datasets._user_files`, whose results
:func:`krein.kernel_data.load_kernel_file` and
:func:`krein.kernel_data.load_feature_file` turn into a
:class:`krein.kernel_data.KernelData` like the bundled sets.

Formats
-------
Matrices (:func:`read_matrix`), chosen by the file's extension (any case):

* ``.npy`` (``numpy.save``);
* ``.npz`` (``numpy.savez``): the only array, or the one named after the
  last colon, ``K.npz:K``; a ``scipy.sparse.save_npz`` file is densified;
* ``.csv``: comma-separated numbers (spaces around the commas allowed);
* ``.txt``, ``.dat``, ``.tsv``: numbers separated by spaces or tabs;
* ``.mat`` (MATLAB up to v7, ``scipy.io.loadmat``): the only numeric matrix
  among the variables, or the one named after the last colon,
  ``data.mat:D``.  MATLAB v7.3 files (HDF5) are not read: save with
  ``save(..., '-v7')`` or export to ``.npy``.

The text formats allow ``#`` comments and blank lines and use
``numpy.loadtxt``; a text file whose first line holds a comma (or a
semicolon) is read with that separator whatever its extension.  The ``:key``
suffix is split off at the LAST colon, and only when the part before it is an
existing ``.npz`` or ``.mat`` file (so ``C:\\data\\K.npy`` stays one path).

Labels (:func:`read_labels`): a text file with one label per line, or a
``.npy``, ``.npz[:key]``, ``.mat[:key]`` or ``.csv`` file holding one vector
(a column or a row).  Text labels are integers when every line is an integer,
floats when every line is a number, else strings; surrounding whitespace is
stripped, trailing empty lines are ignored.

Feature tables (:func:`krein.datasets.read_features`): read by
:mod:`krein.datasets._features` with the path and text helpers here.

Errors
------
Every error is a :class:`krein._validation.InvalidArgument` naming the
argument (``argument=``, e.g. ``"kernel_file"``) whose message is ONE line
that starts with the path as given, says what is wrong (with the line number
where there is one) and what is accepted.  Line and column numbers in messages
count from 1.
"""

from __future__ import annotations

import csv
import os
import re
import warnings
from pathlib import Path

import numpy as np

from .._validation import InvalidArgument

__all__ = ["read_matrix", "read_labels", "MATRIX_FORMATS", "LABEL_FORMATS"]

#: Text formats of matrices, labels and feature tables.
TEXT_SUFFIXES = (".csv", ".txt", ".dat", ".tsv")
#: Formats whose path may end in ``:key`` (one array among several).
KEYED_SUFFIXES = (".npz", ".mat")
#: Accepted matrix formats, as error messages list them.
MATRIX_FORMATS = (".npy, .npz (one array or file.npz:key), .csv (comma-separated), "
                  ".txt/.dat/.tsv (whitespace-separated), .mat (MATLAB up to v7; file.mat:key)")
#: Accepted label formats, as error messages list them.
LABEL_FORMATS = ("a text file with one label per line, or one vector in .npy, "
                 ".npz (file.npz:key), .mat (file.mat:key) or .csv")
_NUMERIC_KINDS = "biuf"


# ---------------------------------------------------------------------------- errors and paths
def _error(argument, shown, what):
    """The InvalidArgument of a file: ``"<path>: <what>"`` on one line."""
    message = re.sub(r"\s*[\r\n]+\s*", " ", f"{shown}: {what}").strip()
    return InvalidArgument(argument, message)


def _resolve(path, argument):
    """``(file, key, shown)``: the file to open, the ``:key`` (or None), the path as given."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise InvalidArgument(argument, f"must be a file path (str or os.PathLike); got "
                                        f"{type(path).__name__} {path!r:.60}")
    shown = path
    if not path.strip():
        raise InvalidArgument(argument, "the file path is empty")
    file, key = Path(path), None
    if not file.exists() and ":" in path:
        head, _, tail = path.rpartition(":")
        hp = Path(head)
        if hp.suffix.lower() in KEYED_SUFFIXES and hp.is_file():
            if not tail:
                raise _error(argument, shown, "nothing after the ':'; name an array, as in "
                                              f"{head}:NAME")
            file, key = hp, tail
        elif hp.is_file():
            raise _error(argument, shown, f"no such file; a ':key' suffix names an array only "
                                          f"in .npz and .mat files, and {head} is not one")
        elif hp.suffix.lower() in KEYED_SUFFIXES:
            raise _error(argument, shown, f"no such file ({head} does not exist either)")
    if file.is_dir():
        raise _error(argument, shown, "is a directory, not a file")
    if not file.exists():
        raise _error(argument, shown, "no such file")
    if not file.is_file():
        raise _error(argument, shown, "is not a regular file")
    if not os.access(file, os.R_OK):
        raise _error(argument, shown, "cannot be read (permission denied)")
    return file, key, shown


def _suffix(file):
    return file.suffix.lower()


def _describe(name, value):
    shape = "x".join(str(s) for s in np.shape(value)) or "scalar"
    return f"{name} ({shape} {getattr(value, 'dtype', type(value).__name__)})"


def _listing(arrays):
    return ", ".join(_describe(k, v) for k, v in arrays.items()) or "none"


# ---------------------------------------------------------------------------- binary formats
def _check_magic(file, shown, argument, magic, what):
    try:
        with open(file, "rb") as f:
            head = f.read(len(magic))
    except OSError as exc:
        raise _error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    if head != magic:
        raise _error(argument, shown, f"is not a {what} file (its first bytes are not the "
                                      f"{what} header)")


def _read_npy(file, shown, argument):
    _check_magic(file, shown, argument, b"\x93NUMPY", ".npy")
    try:
        return np.load(file, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise _error(argument, shown, "holds Python objects (a pickled object array); "
                                          "save a numeric or string array") from None
        raise _error(argument, shown, f"is not a readable .npy file ({exc})") from None
    except (OSError, EOFError) as exc:
        raise _error(argument, shown, f"is not a readable .npy file ({exc})") from None


def _npz_arrays(file, shown, argument):
    """All arrays of an .npz file, name -> array (a sparse matrix file: one dense array)."""
    import zipfile

    _check_magic(file, shown, argument, b"PK", ".npz (zip)")
    try:
        with np.load(file, allow_pickle=False) as npz:
            names = list(npz.files)
            if {"data", "indices", "indptr", "format", "shape"} <= set(names):
                import scipy.sparse

                return {"sparse matrix": scipy.sparse.load_npz(file).toarray()}
            return {name: npz[name] for name in names}
    except ValueError as exc:
        if "pickle" in str(exc):
            raise _error(argument, shown, "holds Python objects (a pickled object array); "
                                          "save numeric or string arrays") from None
        raise _error(argument, shown, f"is not a readable .npz file ({exc})") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise _error(argument, shown, f"is not a readable .npz file ({exc})") from None


def _mat_variables(file, shown, argument):
    """The variables of a MATLAB file (names without leading ``__``), sparse ones densified."""
    import scipy.io
    import scipy.sparse

    try:
        data = scipy.io.loadmat(str(file))
    except NotImplementedError:
        raise _error(argument, shown, "is a MATLAB v7.3 (HDF5) file, which is not read; save it "
                                      "with save(..., '-v7') in MATLAB or export the array to "
                                      ".npy") from None
    except Exception as exc:  # scipy raises ValueError, TypeError, MatReadError, zlib errors...
        raise _error(argument, shown, f"is not a readable MATLAB .mat file "
                                      f"({type(exc).__name__}: {exc})") from None
    out = {}
    for name, value in data.items():
        if name.startswith("__"):
            continue
        out[name] = value.toarray() if scipy.sparse.issparse(value) else value
    return out


def _pick(arrays, key, shown, argument, candidates, what, whats):
    """The array named ``key``, or the only candidate; errors list the arrays with shapes."""
    if key is not None:
        if key not in arrays:
            raise _error(argument, shown, f"has no array {key!r}; it holds: {_listing(arrays)}")
        return arrays[key]
    if len(candidates) == 1:
        return arrays[candidates[0]]
    if not candidates:
        raise _error(argument, shown, f"holds no {what}; it holds: {_listing(arrays)}")
    listed = _listing({k: arrays[k] for k in candidates})
    raise _error(argument, shown, f"holds several {whats}: {listed}; name one as "
                                  f"{shown}:NAME")


# ---------------------------------------------------------------------------- text formats
def _data_lines(file, shown, argument):
    """``(line number, content)`` of the lines with data: comments (``#``) and blanks dropped."""
    out = []
    try:
        with open(file, encoding="utf-8-sig") as f:
            for number, line in enumerate(f, 1):
                content = line.split("#", 1)[0].strip()
                if content:
                    out.append((number, content))
    except UnicodeDecodeError:
        raise _error(argument, shown, "is not a text file (cannot be decoded as UTF-8)") from None
    except OSError as exc:
        raise _error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    return out


def _first_data_line(file, shown, argument):
    try:
        with open(file, encoding="utf-8-sig") as f:
            for line in f:
                content = line.split("#", 1)[0].strip()
                if content:
                    return content
    except UnicodeDecodeError:
        raise _error(argument, shown, "is not a text file (cannot be decoded as UTF-8)") from None
    except OSError as exc:
        raise _error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    return None


def _delimiter(line):
    """Field separator of a text table from its first data line: ',' or ';', else whitespace."""
    if line is not None:
        for sep in (",", ";"):
            if sep in line:
                return sep
    return None


def _split(content, sep):
    return [s.strip() for s in content.split(sep)] if sep else content.split()


def _is_number(s):
    try:
        float(s)
    except ValueError:
        return False
    return True


def _diagnose_numeric(lines, sep):
    """First problem of a numeric text table (ragged rows, text), with its line; or None."""
    width = first = None
    for number, content in lines:
        fields = _split(content, sep)
        if width is None:
            width, first = len(fields), number
        elif len(fields) != width:
            return (f"line {number} has {len(fields)} fields but line {first} has {width} "
                    "(rows of different lengths)")
        for j, field in enumerate(fields, 1):
            if not _is_number(field):
                hint = (" (a header row? a matrix file holds numbers only)" if number == first
                        else "")
                what = "an empty field" if field == "" else f"{field!r} is not a number"
                return f"line {number}, column {j}: {what}{hint}"
    return None


def _read_text_matrix(file, shown, argument):
    sep = _delimiter(_first_data_line(file, shown, argument))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data": checked below
            A = np.loadtxt(file, delimiter=sep, comments="#", ndmin=2, dtype=float,
                           encoding="utf-8-sig")
    except (ValueError, UnicodeDecodeError) as exc:
        problem = _diagnose_numeric(_data_lines(file, shown, argument), sep)
        kind = "comma-separated" if sep == "," else "whitespace-separated" if sep is None else (
            f"{sep!r}-separated")
        raise _error(argument, shown, (problem or f"cannot be read as a {kind} numeric matrix "
                                                  f"({exc})")) from None
    if A.size == 0:
        raise _error(argument, shown, "holds no numbers (an empty file)")
    return A


# ---------------------------------------------------------------------------- matrices
def read_matrix(path, *, argument="kernel_file"):
    """Read a numeric matrix from a ``.npy``, ``.npz``, ``.csv``, text or MATLAB file.

    The format follows the extension (module docstring, "Formats"): ``.npy``;
    ``.npz`` (the only array, or ``file.npz:key``); ``.csv`` (comma-separated);
    ``.txt``/``.dat``/``.tsv`` (whitespace-separated; a comma or semicolon in
    the first line makes it the separator); ``.mat`` (MATLAB up to v7: the
    only variable that is a numeric matrix with at least two rows and two
    columns, or ``file.mat:key``).  Only the format is checked here, not the
    shape or the values.

    Parameters
    ----------
    path : str or os.PathLike
        The file, optionally followed by ``:key`` to name an array of an
        ``.npz`` or ``.mat`` file (split at the last colon, only when the part
        before it is an existing ``.npz``/``.mat`` file).
    argument : str, default="kernel_file"
        Argument name the errors carry.

    Returns
    -------
    ndarray of shape (n_rows, n_columns)
        The matrix as float64 (a one-line text file is one row).

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming ``argument``, with a one-line message that
        starts with ``path``: no such file, a directory, an unknown extension
        (the message lists the accepted formats), a file that cannot be parsed
        (ragged rows or text in a numeric matrix: with the line number), an
        ``.npz``/``.mat`` file with several arrays and no ``:key`` (listing
        them with their shapes), an unknown key, a MATLAB v7.3 file, an array
        that is not numeric, is complex, or is not 2-D.
    """
    file, key, shown = _resolve(path, argument)
    suffix = _suffix(file)
    if suffix == ".npy":
        A = _read_npy(file, shown, argument)
    elif suffix == ".npz":
        arrays = _npz_arrays(file, shown, argument)
        A = _pick(arrays, key, shown, argument, list(arrays), "array", "arrays")
    elif suffix == ".mat":
        variables = _mat_variables(file, shown, argument)
        matrices = [k for k, v in variables.items()
                    if isinstance(v, np.ndarray) and v.dtype.kind in _NUMERIC_KINDS
                    and v.ndim == 2 and min(v.shape) >= 2]
        A = _pick(variables, key, shown, argument, matrices, "numeric matrix",
                  "numeric matrices")
    elif suffix in TEXT_SUFFIXES:
        A = _read_text_matrix(file, shown, argument)
    else:
        raise _error(argument, shown, f"unknown matrix format {suffix or '(no extension)'!r}; "
                                      f"accepted: {MATRIX_FORMATS}")
    A = np.asarray(A)
    if A.dtype.kind == "c":
        raise _error(argument, shown, "holds complex numbers; a kernel or dissimilarity matrix "
                                      "is real")
    if A.dtype.kind not in _NUMERIC_KINDS:
        raise _error(argument, shown, f"holds {A.dtype} values, not numbers; expected a numeric "
                                      "matrix")
    if A.ndim != 2:
        got = (f"a 1-D array of length {A.shape[0]}" if A.ndim == 1 else
               "a single number" if A.ndim == 0 else f"a {A.ndim}-D array of shape {A.shape}")
        raise _error(argument, shown, f"holds {got}; expected a 2-D matrix")
    return A.astype(float)


# ---------------------------------------------------------------------------- labels
def _typed_labels(values, shown, argument, numbers_=None):
    """Labels from strings: int64 when all are integers, float64 when all are numbers, else str.

    ``numbers_`` are the line numbers of ``values`` (for the messages).
    """
    where = (lambda i: f"line {numbers_[i]}") if numbers_ is not None else (
        lambda i: f"entry {i + 1}")
    for i, v in enumerate(values):
        if v == "":
            raise _error(argument, shown, f"{where(i)}: empty label")
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except (ValueError, OverflowError):
        pass
    try:
        y = np.array([float(v) for v in values], dtype=float)
    except ValueError:
        return np.array(values, dtype=str)
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise _error(argument, shown, f"{where(bad[0])}: label {values[bad[0]]!r} is not a "
                                      "finite number")
    return y


def _label_array(A, shown, argument):
    """A stored array as a label vector (column or row), with its checks."""
    A = np.asarray(A)
    if A.dtype.kind == "O" and A.size:  # MATLAB cell array of strings
        try:
            A = np.array([np.asarray(a).ravel()[0] if np.size(a) == 1 else str(a)
                          for a in A.ravel(order="F")])
        except (TypeError, ValueError, IndexError):
            raise _error(argument, shown, "holds a cell array that is not one label per "
                                          "cell") from None
    if A.ndim == 2 and 1 in A.shape:
        A = A.ravel()
    if A.ndim != 1:
        got = "a single value" if A.ndim == 0 else f"an array of shape {A.shape}"
        raise _error(argument, shown, f"holds {got}; expected one vector of labels (a column "
                                      "or a row)")
    if A.size == 0:
        raise _error(argument, shown, "holds no labels (an empty vector)")
    if A.dtype.kind == "S":
        A = A.astype(str)
    if A.dtype.kind == "c":
        raise _error(argument, shown, "holds complex numbers; labels are integers, numbers or "
                                      "strings")
    if A.dtype.kind not in _NUMERIC_KINDS + "U":
        raise _error(argument, shown, f"holds {A.dtype} values; labels are integers, numbers or "
                                      "strings")
    if A.dtype.kind == "f" and not np.all(np.isfinite(A)):
        bad = np.flatnonzero(~np.isfinite(A))
        raise _error(argument, shown, f"{bad.size} labels are NaN or inf (the first is entry "
                                      f"{bad[0] + 1})")
    if A.dtype.kind == "U":
        A = np.char.strip(A)
    return A


def _text_labels(file, shown, argument, sep):
    try:
        with open(file, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise _error(argument, shown, "is not a text file (cannot be decoded as UTF-8)") from None
    except OSError as exc:
        raise _error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    if sep == ",":
        rows = [[s.strip() for s in r] for r in csv.reader(text.splitlines(),
                                                           skipinitialspace=True)]
    else:
        rows = [[line.strip()] for line in text.splitlines()]
    entries = [(i + 1, r) for i, r in enumerate(rows)]
    while entries and not any(entries[-1][1]):
        entries.pop()
    if not entries:
        raise _error(argument, shown, "holds no labels (an empty file)")
    for number, row in entries:
        if not any(row):
            raise _error(argument, shown, f"line {number} is empty (one label per line; only "
                                          "trailing empty lines are ignored)")
    if len(entries) == 1:  # one row: the labels side by side
        row = entries[0][1] if sep == "," else entries[0][1][0].split()
        return _typed_labels(row, shown, argument)
    widths = {len(r) for _, r in entries}
    if widths != {1}:
        raise _error(argument, shown, f"holds a table of {len(entries)} rows and up to "
                                      f"{max(widths)} columns; expected one label per line (a "
                                      "column) or one row of labels")
    values = [r[0] for _, r in entries]
    numbers_ = [n for n, _ in entries]
    # a header line: a word above numbers
    if not _is_number(values[0]) and all(_is_number(v) for v in values[1:]):
        values, numbers_ = values[1:], numbers_[1:]
    return _typed_labels(values, shown, argument, numbers_)


def read_labels(path, *, argument="labels"):
    """Read a vector of class labels from a text, ``.csv``, ``.npy``, ``.npz`` or ``.mat`` file.

    A text file (any extension but ``.npy``, ``.npz``, ``.mat``, ``.csv``)
    holds one label per line: surrounding whitespace is stripped, trailing
    empty lines are ignored, an empty line before the last label is an error;
    a file of a single line holds the labels side by side, separated by
    whitespace.  A ``.csv`` file holds one column or one row.  A first line
    that is a word above lines of numbers is taken as a header and skipped.
    Text labels are integers when every label is an integer, floats when every
    label is a number, else strings.  ``.npy``, ``.npz`` (``file.npz:key``)
    and ``.mat`` (``file.mat:key``; numeric, character or cell-string
    vectors) keep their stored type.

    Parameters
    ----------
    path : str or os.PathLike
        The file, optionally with ``:key`` for an ``.npz``/``.mat`` array.
    argument : str, default="labels"
        Argument name the errors carry.

    Returns
    -------
    ndarray of shape (n,)
        The labels: int64, float64 or str (or the stored numeric type).

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming ``argument`` with a one-line message that
        starts with ``path``: no such file, a directory, an empty file, an
        empty line in the middle (with its number), a table of several
        columns, an array that is not a vector, NaN or inf labels, an
        ``.npz``/``.mat`` file with several vectors and no ``:key``.
    """
    file, key, shown = _resolve(path, argument)
    suffix = _suffix(file)
    if suffix == ".npy":
        return _label_array(_read_npy(file, shown, argument), shown, argument)
    if suffix == ".npz":
        arrays = _npz_arrays(file, shown, argument)
        return _label_array(_pick(arrays, key, shown, argument, list(arrays), "array", "arrays"),
                            shown, argument)
    if suffix == ".mat":
        variables = _mat_variables(file, shown, argument)
        vectors = [k for k, v in variables.items() if isinstance(v, np.ndarray)
                   and v.dtype.kind in _NUMERIC_KINDS + "UO" and v.ndim <= 2
                   and (v.ndim == 1 or 1 in v.shape) and v.size > 1]
        return _label_array(_pick(variables, key, shown, argument, vectors, "vector", "vectors"),
                            shown, argument)
    if key is not None:  # pragma: no cover - _resolve splits keys of .npz/.mat only
        raise _error(argument, shown, "a ':key' applies to .npz and .mat files only")
    return _text_labels(file, shown, argument, "," if suffix == ".csv" else None)
