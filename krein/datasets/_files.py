"""Readers of a researcher's own files: a matrix and a label vector (feature tables:
:mod:`krein.datasets._features`; paths, errors and text lines:
:mod:`krein.datasets._file_basics`).

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
:mod:`krein.datasets._features` with the path and text pieces of
:mod:`krein.datasets._file_basics`.

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
import warnings

import numpy as np

from ._file_basics import (TEXT_SUFFIXES, data_lines, field_separator, file_error,
                           first_data_line, is_number, resolve_path, typed_labels)

__all__ = ["read_matrix", "read_array", "read_text_matrix", "read_labels", "MATRIX_FORMATS", "LABEL_FORMATS"]

#: Accepted matrix formats, as error messages list them.
MATRIX_FORMATS = (".npy, .npz (one array or file.npz:key), .csv (comma-separated), "
                  ".txt/.dat/.tsv (whitespace-separated), .mat (MATLAB up to v7; file.mat:key)")
#: Accepted label formats, as error messages list them.
LABEL_FORMATS = ("a text file with one label per line, or one vector in .npy, "
                 ".npz (file.npz:key), .mat (file.mat:key) or .csv")
_NUMERIC_KINDS = "biuf"


# ---------------------------------------------------------------------------- messages
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
        raise file_error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    if head != magic:
        raise file_error(argument, shown, f"is not a {what} file (its first bytes are not the "
                                          f"{what} header)")


def _read_npy(file, shown, argument):
    _check_magic(file, shown, argument, b"\x93NUMPY", ".npy")
    try:
        return np.load(file, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise file_error(argument, shown, "holds Python objects (a pickled object array); "
                                              "save a numeric or string array") from None
        raise file_error(argument, shown, f"is not a readable .npy file ({exc})") from None
    except (OSError, EOFError) as exc:
        raise file_error(argument, shown, f"is not a readable .npy file ({exc})") from None


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
            raise file_error(argument, shown, "holds Python objects (a pickled object array); "
                                              "save numeric or string arrays") from None
        raise file_error(argument, shown, f"is not a readable .npz file ({exc})") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise file_error(argument, shown, f"is not a readable .npz file ({exc})") from None


def _mat_variables(file, shown, argument):
    """The variables of a MATLAB file (names without leading ``__``), sparse ones densified."""
    import scipy.io
    import scipy.sparse

    try:
        data = scipy.io.loadmat(str(file))
    except NotImplementedError:
        raise file_error(argument, shown, "is a MATLAB v7.3 (HDF5) file, which is not read; "
                                          "save it with save(..., '-v7') in MATLAB or export "
                                          "the array to "
                                          ".npy") from None
    except Exception as exc:  # scipy raises ValueError, TypeError, MatReadError, zlib errors...
        raise file_error(argument, shown, f"is not a readable MATLAB .mat file "
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
            raise file_error(argument, shown, f"has no array {key!r}; it holds: "
                                              f"{_listing(arrays)}")
        return arrays[key]
    if len(candidates) == 1:
        return arrays[candidates[0]]
    if not candidates:
        raise file_error(argument, shown, f"holds no {what}; it holds: {_listing(arrays)}")
    listed = _listing({k: arrays[k] for k in candidates})
    raise file_error(argument, shown, f"holds several {whats}: {listed}; name one as "
                                      f"{shown}:NAME")


# ---------------------------------------------------------------------------- text formats
def _split(content, sep):
    return [s.strip() for s in content.split(sep)] if sep else content.split()


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
            if not is_number(field):
                hint = (" (a header row? a matrix file holds numbers only)" if number == first
                        else "")
                what = "an empty field" if field == "" else f"{field!r} is not a number"
                return f"line {number}, column {j}: {what}{hint}"
    return None


def read_text_matrix(file, shown, argument):
    """Read a text file of numbers (``numpy.loadtxt``; the separator of its first line).

    Parameters
    ----------
    file : pathlib.Path
        The existing file.
    shown : str
        The path as given (for the messages).
    argument : str
        Argument name the errors carry.

    Returns
    -------
    ndarray of shape (r, c)
        The numbers (a one-line file is one row).

    Raises
    ------
    InvalidArgument
        Naming ``argument``: rows of different lengths, a field that is not a
        number (with its line and column), an empty file.
    """
    sep = field_separator(first_data_line(file, shown, argument))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data": checked below
            A = np.loadtxt(file, delimiter=sep, comments="#", ndmin=2, dtype=float,
                           encoding="utf-8-sig")
    except (ValueError, UnicodeDecodeError) as exc:
        problem = _diagnose_numeric(data_lines(file, shown, argument), sep)
        kind = "comma-separated" if sep == "," else "whitespace-separated" if sep is None else (
            f"{sep!r}-separated")
        raise file_error(argument, shown, (problem or f"cannot be read as a {kind} numeric matrix "
                                                      f"({exc})")) from None
    if A.size == 0:
        raise file_error(argument, shown, "holds no numbers (an empty file)")
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
    A = read_array(path, argument)
    shown = os.fspath(path)
    if A.ndim != 2:
        got = (f"a 1-D array of length {A.shape[0]}" if A.ndim == 1 else
               "a single number" if A.ndim == 0 else f"a {A.ndim}-D array of shape {A.shape}")
        raise file_error(argument, shown, f"holds {got}; expected a 2-D matrix")
    return A


def read_array(path, argument):
    """Read the numeric array of a matrix file, of any number of dimensions, as float64.

    :func:`read_matrix` without its 2-D check: a 1-D array (a condensed
    distance vector) is returned as it is stored.

    Parameters
    ----------
    path : str or os.PathLike
        The file (:func:`read_matrix`'s formats and ``:key`` rule).
    argument : str
        Argument name the errors carry.

    Returns
    -------
    ndarray
        The array as float64 (a text file is 2-D).

    Raises
    ------
    InvalidArgument
        Naming ``argument``: every error of :func:`read_matrix` but the shape.
    """
    file, key, shown = resolve_path(path, argument)
    suffix = file.suffix.lower()
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
        A = read_text_matrix(file, shown, argument)
    else:
        raise file_error(argument, shown, f"unknown matrix format {suffix or '(no extension)'!r}; "
                                          f"accepted: {MATRIX_FORMATS}")
    A = np.asarray(A)
    if A.dtype.kind == "c":
        raise file_error(argument, shown, "holds complex numbers; a kernel or dissimilarity "
                                          "matrix is real")
    if A.dtype.kind not in _NUMERIC_KINDS:
        raise file_error(argument, shown, f"holds {A.dtype} values, not numbers; expected a "
                                          "numeric matrix")
    return A.astype(float)


# ---------------------------------------------------------------------------- labels
def _label_array(A, shown, argument):
    """A stored array as a label vector (column or row), with its checks."""
    A = np.asarray(A)
    if A.dtype.kind == "O" and A.size:  # MATLAB cell array of strings
        try:
            A = np.array([np.asarray(a).ravel()[0] if np.size(a) == 1 else str(a)
                          for a in A.ravel(order="F")])
        except (TypeError, ValueError, IndexError):
            raise file_error(argument, shown, "holds a cell array that is not one label per "
                                              "cell") from None
    if A.ndim == 2 and 1 in A.shape:
        A = A.ravel()
    if A.ndim != 1:
        got = "a single value" if A.ndim == 0 else f"an array of shape {A.shape}"
        raise file_error(argument, shown, f"holds {got}; expected one vector of labels (a column "
                                          "or a row)")
    if A.size == 0:
        raise file_error(argument, shown, "holds no labels (an empty vector)")
    if A.dtype.kind == "S":
        A = A.astype(str)
    if A.dtype.kind == "c":
        raise file_error(argument, shown, "holds complex numbers; labels are integers, numbers or "
                                          "strings")
    if A.dtype.kind not in _NUMERIC_KINDS + "U":
        raise file_error(argument, shown, f"holds {A.dtype} values; labels are integers, "
                                          "numbers or strings")
    if A.dtype.kind == "f" and not np.all(np.isfinite(A)):
        bad = np.flatnonzero(~np.isfinite(A))
        raise file_error(argument, shown, f"{bad.size} labels are NaN or inf (the first is entry "
                                          f"{bad[0] + 1})")
    if A.dtype.kind == "U":
        A = np.char.strip(A)
    return A


def _text_labels(file, shown, argument, sep):
    try:
        with open(file, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise file_error(argument, shown, "is not a text file (cannot be decoded as "
                                          "UTF-8)") from None
    except OSError as exc:
        raise file_error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None
    if sep == ",":
        rows = [[s.strip() for s in r] for r in csv.reader(text.splitlines(),
                                                           skipinitialspace=True)]
    else:
        rows = [[line.strip()] for line in text.splitlines()]
    entries = [(i + 1, r) for i, r in enumerate(rows)]
    while entries and not any(entries[-1][1]):
        entries.pop()
    if not entries:
        raise file_error(argument, shown, "holds no labels (an empty file)")
    for number, row in entries:
        if not any(row):
            raise file_error(argument, shown, f"line {number} is empty (one label per line; only "
                                              "trailing empty lines are ignored)")
    if len(entries) == 1:  # one row: the labels side by side
        row = entries[0][1] if sep == "," else entries[0][1][0].split()
        return typed_labels(row, shown, argument)
    widths = {len(r) for _, r in entries}
    if widths != {1}:
        raise file_error(argument, shown, f"holds a table of {len(entries)} rows and up to "
                                          f"{max(widths)} columns; expected one label per line (a "
                                          "column) or one row of labels")
    values = [r[0] for _, r in entries]
    line_numbers = [n for n, _ in entries]
    # a header line: a word above numbers
    if not is_number(values[0]) and all(is_number(v) for v in values[1:]):
        values, line_numbers = values[1:], line_numbers[1:]
    return typed_labels(values, shown, argument, line_numbers)


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
    file, key, shown = resolve_path(path, argument)
    suffix = file.suffix.lower()
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
    if key is not None:  # pragma: no cover - resolve_path splits keys of .npz/.mat only
        raise file_error(argument, shown, "a ':key' applies to .npz and .mat files only")
    return _text_labels(file, shown, argument, "," if suffix == ".csv" else None)
