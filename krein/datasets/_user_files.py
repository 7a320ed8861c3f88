"""A researcher's own files, checked: a kernel or dissimilarity matrix and labels, a feature table.

The readers of :mod:`krein.datasets._files` (:func:`krein.datasets.read_matrix`,
:func:`krein.datasets.read_labels`) and :mod:`krein.datasets._features`
(:func:`krein.datasets.read_features`) check the FORMAT; this module checks
what the values must satisfy before the data door
(:func:`krein.kernel_data.load_kernel_file`,
:func:`krein.kernel_data.load_feature_file`) computes a kernel from them.
:func:`read_kernel_file` and :func:`read_feature_file` return the checked
values with where they came from (``source``), how they were prepared
(``description``) and what was done to them (``notes``, e.g. a
symmetrization): a :class:`UserFile`.

The checks, each an :class:`InvalidArgument` whose one-line message starts
with the file's path: a square matrix of at least 2 x 2 without NaN or inf;
as many labels as objects, at least two classes, not every object a class of
its own; symmetry up to :data:`FILE_SYMMETRY_RTOL` relative to ``max |K|``
(``(K + K')/2`` is used below it; above it only with ``symmetrize=True``,
recorded in ``notes``); dissimilarities that are ``>= 0`` with a zero
diagonal (up to :data:`FILE_DIAGONAL_RTOL` ``* max |D|``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._validation import InvalidArgument
from ._features import read_features_with_info
from ._file_basics import resolve_path
from ._files import read_labels, read_matrix
from ._loaders import scale_features

__all__ = ["UserFile", "TestPart", "LandmarkFile", "read_kernel_file", "read_landmark_file",
           "read_test_matrix", "read_feature_file", "check_feature_scale",
           "check_flag", "check_name", "path_text", "prefixed", "FILE_SYMMETRY_RTOL",
           "FILE_DIAGONAL_RTOL"]

#: Relative asymmetry ``max |K - K'| / max |K|`` of a matrix file up to which ``(K + K')/2`` is
#: used without a word; above it only with ``symmetrize=True`` (recorded in ``KernelData.notes``).
FILE_SYMMETRY_RTOL = 1e-10
#: Largest ``|D_ii|``, relative to ``max |D|``, of a dissimilarity file read as a zero diagonal.
FILE_DIAGONAL_RTOL = 1e-12


def _py(value):
    """A NumPy scalar as the Python value (for reprs in messages)."""
    return value.item() if isinstance(value, np.generic) else value


def path_text(path):
    """A file path as messages show it.

    Parameters
    ----------
    path : str, os.PathLike or object
        The path as given.

    Returns
    -------
    str
        The path as given, or the ``repr`` of anything that is not a path.
    """
    return os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)


def prefixed(exc, shown):
    """An InvalidArgument of an argument check, its message prefixed by the file's path.

    Parameters
    ----------
    exc : InvalidArgument
        The error of the check.
    shown : str
        The file's path (:func:`path_text`).

    Returns
    -------
    InvalidArgument
        Naming the same argument, the message ``"<shown>: <message>"``.
    """
    return InvalidArgument(exc.argument, f"{shown}: {exc.message}")


def check_flag(value, argument):
    """Check a True/False argument.

    Parameters
    ----------
    value : bool
        The value (``numpy.bool_`` too).
    argument : str
        The argument's name (``dissimilarity``, ``symmetrize``).

    Returns
    -------
    bool

    Raises
    ------
    InvalidArgument
        Naming ``argument``, for anything but a bool.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgument(argument, f"must be True or False; got {value!r}")
    return bool(value)


def check_name(name):
    """Check the ``name`` of a user's data.

    Parameters
    ----------
    name : str or None
        A non-empty name, or None (the file's stem).

    Returns
    -------
    str or None
        ``name``.

    Raises
    ------
    InvalidArgument
        Naming ``name``: not a string, or blank.
    """
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InvalidArgument("name", f"must be a non-empty string or None; got {name!r}")
    return name


def _file_source(path):
    """The absolute path of a readable file path, with its ``:key``."""
    file, key, _ = resolve_path(path, "path")
    return os.path.abspath(file) + (f":{key}" if key is not None else ""), file.stem


def _check_file_matrix(M, shown, what):
    """Square, at least 2 x 2, finite; returns n."""
    r, c = M.shape
    if r != c:
        raise InvalidArgument("kernel_file", f"{shown}: a {what} must be square; got a {r} x {c} "
                                             "matrix")
    if r < 2:
        raise InvalidArgument("kernel_file", f"{shown}: a {r} x {c} matrix; a {what} needs at "
                                             "least 2 x 2 (two objects)")
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidArgument("kernel_file", f"{shown}: {int(bad.sum())} NaN or inf entries (the "
                                             f"first, {M[i, j]}, at row {i + 1}, column "
                                             f"{j + 1}); a {what} must be finite")
    return r


def _file_labels(labels, argument="labels"):
    """``(y, shown, source)`` of a labels path or array-like (errors name ``argument``)."""
    if isinstance(labels, (str, os.PathLike)):
        y = read_labels(labels, argument=argument)
        return y, os.fspath(labels), f"{argument.replace('_', ' ')} {_file_source(labels)[0]}"
    shown = f"{argument.replace('_', ' ')} array"
    try:
        y = np.asarray(labels)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(argument, f"{shown}: not an array of labels ({exc})") from None
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1:
        raise InvalidArgument(argument, f"{shown}: must be a path or a vector of shape (n,); got "
                                        f"shape {y.shape}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise InvalidArgument(argument, f"{shown}: {int((~np.isfinite(y)).sum())} labels are NaN "
                                        "or inf")
    return y, shown, f"{argument.replace('_', ' ')} given as an array"


def _check_test_classes(y_test, y_train, shown, argument):
    """Every test label is a class of the training part (a classifier knows no other)."""
    unseen = np.setdiff1d(np.unique(y_test), np.unique(y_train))
    if unseen.size:
        known = ", ".join(repr(_py(v)) for v in np.unique(y_train)[:10])
        raise InvalidArgument(argument, f"{shown}: test label(s) "
                                        f"{', '.join(repr(_py(v)) for v in unseen[:5])} are no "
                                        f"class of the training labels ({known})")


def _check_file_labels(y, shown, argument, hint=""):
    """At least two classes, and not every object a class of its own; ``hint`` ends the messages."""
    classes = np.unique(y)
    n = y.shape[0]
    if classes.size < 2:
        raise InvalidArgument(argument, f"{shown}: a single class ({_py(classes[0])!r}) in all "
                                        f"{n} labels; need at least two classes{hint}")
    if classes.size == n and n >= 3:
        first = ", ".join(repr(_py(v)) for v in y[:3])
        raise InvalidArgument(argument, f"{shown}: all {n} labels are different ({first}, ...): "
                                        "every object would be a class of its own; expected one "
                                        f"class label per object{hint}")


def _symmetrized(M, shown, letter, symmetrize, notes):
    """``(M + M')/2``; an error above :data:`FILE_SYMMETRY_RTOL` unless ``symmetrize``."""
    A = np.abs(M - M.T)
    i, j = np.unravel_index(np.argmax(A), A.shape)
    asym = float(A[i, j])
    top = float(np.max(np.abs(M)))
    rel = asym / top if top > 0 else 0.0
    if rel > FILE_SYMMETRY_RTOL:
        how = (f"max |{letter} - {letter}'| = {asym:.3g} ({100 * rel:.3g} % of max |{letter}|)")
        if not symmetrize:
            raise InvalidArgument("kernel_file", f"{shown}: not symmetric: {how}, at row {i + 1}, "
                                                 f"column {j + 1} ({letter}[{i}, {j}] = "
                                                 f"{M[i, j]:.6g}, {letter}[{j}, {i}] = "
                                                 f"{M[j, i]:.6g}); symmetrize=True (--symmetrize "
                                                 f"on the command line) uses ({letter} + "
                                                 f"{letter}')/2")
        notes.append(f"symmetrized: {how} before ({letter} + {letter}')/2")
    return 0.5 * (M + M.T)


def _check_dissimilarities(D, shown):
    """Check ``D >= 0`` and a zero diagonal (:data:`FILE_DIAGONAL_RTOL`), set exactly to 0."""
    hint = "(is it a kernel, i.e. similarity, matrix? then leave out dissimilarity=True)"
    neg = D < 0
    if neg.any():
        i, j = np.unravel_index(np.argmin(D), D.shape)
        raise InvalidArgument("kernel_file", f"{shown}: {int(neg.sum())} negative entries (the "
                                             f"most negative {D[i, j]:.6g} at row {i + 1}, column "
                                             f"{j + 1}); dissimilarities are >= 0 {hint}")
    diag = np.abs(np.diag(D))
    i = int(np.argmax(diag))
    if diag[i] > FILE_DIAGONAL_RTOL * float(np.max(D)):
        nonzero = int(np.count_nonzero(diag))
        raise InvalidArgument("kernel_file", f"{shown}: the diagonal is not zero (max |D_ii| = "
                                             f"{diag[i]:.6g} at row {i + 1}; {nonzero} nonzero); "
                                             f"an object's dissimilarity to itself is 0 {hint}")
    if diag[i] > 0:
        D = D.copy()
        np.fill_diagonal(D, 0.0)
    return D


#: The feature scalings of a feature file (:func:`check_feature_scale`), as described.
_SCALE_TEXT = {None: "raw features (not scaled)",
               "standard": "standardized: zero mean, unit variance per feature",
               "minmax": "each feature mapped onto [-1, 1]"}


@dataclass(frozen=True)
class UserFile:
    """A user's file, read and checked, before any kernel is computed.

    Parameters
    ----------
    values : ndarray
        The matrix (kernel file: ``K`` symmetrized; dissimilarity file: ``D``
        symmetrized with an exact zero diagonal) or the scaled features ``X``
        of shape (n, d).
    y : ndarray of shape (n,)
        The labels as read.
    source : str
        Where the data came from (``KernelData.source``).
    stem : str
        The file's stem (the default ``KernelData.dataset``).
    description : str
        One line on how the data were prepared (``KernelData.description``).
    notes : tuple of str
        What was done to the data on reading (``KernelData.notes``).
    test : TestPart or None
        The predefined test part of a feature file (``test_path``), else None.
    """

    values: np.ndarray
    y: np.ndarray
    source: str
    stem: str
    description: str
    notes: tuple = ()
    test: object = None


def check_feature_scale(scale, shown):
    """Check the ``scale`` argument of a feature file.

    Parameters
    ----------
    scale : {"standard", "minmax", "raw", None}
        The feature scaling asked for (``"raw"`` is None: the features as read).
    shown : str
        The file's path as given (starts the message).

    Returns
    -------
    str or None
        ``"standard"``, ``"minmax"`` or None.

    Raises
    ------
    InvalidArgument
        Naming ``scale``, for any other value.
    """
    if scale == "raw":
        scale = None
    if not (scale is None or isinstance(scale, str)) or scale not in _SCALE_TEXT:
        raise InvalidArgument("scale", f"{shown}: scale must be 'standard', 'minmax' or None (raw "
                                       f"features); got {scale!r}")
    return scale


def read_kernel_file(path, labels, *, dissimilarity, symmetrize):
    """Read and check a kernel or dissimilarity matrix file and its labels.

    Parameters
    ----------
    path : str or os.PathLike
        The matrix file (:func:`krein.datasets.read_matrix`).
    labels : str, os.PathLike or array-like of shape (n,)
        A labels file (:func:`krein.datasets.read_labels`) or the labels.
    dissimilarity : bool
        The file holds dissimilarities (``>= 0``, zero diagonal).
    symmetrize : bool
        Use ``(M + M')/2`` even above :data:`FILE_SYMMETRY_RTOL` (recorded in
        ``notes``).

    Returns
    -------
    UserFile
        ``values`` the symmetrized matrix (dissimilarities with an exact zero
        diagonal), the labels, ``source``, ``stem``, ``description``, ``notes``.

    Raises
    ------
    InvalidArgument
        Naming ``kernel_file`` or ``labels``, the message starting with the
        path (:func:`krein.kernel_data.load_kernel_file`, "Raises").
    """
    shown = path_text(path)
    letter, what = ("D", "dissimilarity matrix") if dissimilarity else ("K", "kernel matrix")
    M = read_matrix(path, argument="kernel_file")
    n = _check_file_matrix(M, shown, what)
    y, labels_shown, labels_source = _file_labels(labels)
    if y.shape[0] != n:
        raise InvalidArgument("labels", f"{labels_shown}: {y.shape[0]} labels for a {n} x {n} "
                                        f"matrix ({shown}); give one label per object")
    _check_file_labels(y, labels_shown, "labels")
    notes = []
    M = _symmetrized(M, shown, letter, symmetrize, notes)
    source, stem = _file_source(path)
    desc = f"{what} read from a file, {n} objects"
    if notes:
        desc += f", symmetrized ({letter} + {letter}')/2"
    if dissimilarity:
        M = _check_dissimilarities(M, shown)
    return UserFile(M, y, f"{'dissimilarity' if dissimilarity else 'kernel'} file {source}, "
                          f"{labels_source}", stem, desc, tuple(notes))


@dataclass(frozen=True)
class LandmarkFile:
    """A researcher's landmark columns, read and checked (:func:`read_landmark_file`).

    Parameters
    ----------
    values : ndarray of shape (n, m)
        Kernel values or dissimilarities of every object (rows) to the ``m``
        landmark objects (columns); the landmarks' own rows ``values[landmarks]``
        are the symmetrized landmark block (dissimilarities: with an exact zero
        diagonal).
    landmarks : ndarray of int of shape (m,)
        The rows that are the landmarks, in the order of the columns.
    y : ndarray of shape (n,)
        One label per row.
    source : str
        One line on where the data came from (absolute paths).
    stem : str
        The matrix file's name without its extension.
    description : str
        One line on what was read.
    notes : tuple of str
        What was done to the values (a symmetrization of the landmark block).
    """

    values: np.ndarray
    landmarks: np.ndarray
    y: np.ndarray
    source: str
    stem: str
    description: str
    notes: tuple


def _landmark_indices(landmarks, n, m):
    """The landmark row indices from a file or an array, checked (errors name ``landmarks``)."""
    if isinstance(landmarks, (str, os.PathLike)):
        shown = os.fspath(landmarks)
        idx = read_labels(landmarks, argument="landmarks")
    else:
        shown = "landmarks array"
        idx = np.asarray(landmarks)
    if idx.ndim == 2 and 1 in idx.shape:
        idx = idx.ravel()
    if idx.dtype.kind == "f" and idx.size and np.all(np.isfinite(idx)) \
            and np.all(idx == np.round(idx)):
        idx = idx.astype(np.int64)
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise InvalidArgument("landmarks", f"{shown}: must hold the landmarks' row indices, one "
                                           f"integer per line; got {idx.size} values of type "
                                           f"{idx.dtype}")
    if idx.size != m:
        raise InvalidArgument("landmarks", f"{shown}: {idx.size} row indices for a matrix of {m} "
                                           "landmark columns; give one index per column, in the "
                                           "columns' order")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)]
        hint = ("; row indices count from 0 (indices from R or MATLAB count from 1: subtract 1)"
                if idx.max() == n and idx.min() >= 1 else "")
        raise InvalidArgument("landmarks", f"{shown}: row index {int(bad[0])} is out of range for "
                                           f"{n} rows (0 to {n - 1}){hint}")
    uniq, counts = np.unique(idx, return_counts=True)
    if uniq.size != idx.size:
        raise InvalidArgument("landmarks", f"{shown}: row index {int(uniq[counts > 1][0])} is "
                                           "given twice; each landmark is one distinct object")
    return idx.astype(np.intp)


def read_landmark_file(path, landmarks, labels, *, dissimilarity, symmetrize=False):
    """Read and check landmark columns: an ``n x m`` matrix, its landmarks' rows and labels.

    Parameters
    ----------
    path : str or os.PathLike
        The matrix file (:func:`krein.datasets.read_matrix`) of shape ``(n, m)``:
        kernel values (or dissimilarities) of every object to the ``m`` landmark
        objects.
    landmarks : str, os.PathLike or array-like of int of shape (m,)
        The rows of the matrix that are the landmarks, in the order of its
        columns (a file of one integer per line, :func:`krein.datasets.read_labels`,
        or the indices); they count from 0, so that ``values[landmarks]`` is the
        ``m x m`` landmark block.
    labels : str, os.PathLike or array-like of shape (n,)
        One label per row (:func:`krein.datasets.read_labels`, or the labels).
    dissimilarity : bool
        The values are dissimilarities (``>= 0``; the landmark block has a zero
        diagonal).
    symmetrize : bool, default=False
        Use the symmetrized landmark block even when it is asymmetric beyond
        :data:`FILE_SYMMETRY_RTOL` (recorded in ``notes``).

    Returns
    -------
    LandmarkFile
        The checked columns (the landmark rows replaced by the symmetrized block),
        the landmark indices, the labels and where they came from.

    Raises
    ------
    InvalidArgument
        Naming ``kernel_file`` (any error of :func:`krein.datasets.read_matrix`,
        fewer than two rows, NaN or inf, negative dissimilarities, a landmark
        block that is not symmetric to round-off or whose diagonal is not zero),
        ``landmarks`` (not integers, not one per column, out of range,
        repeated) or ``labels`` (as :func:`read_kernel_file`), the message
        starting with the file.
    """
    shown = path_text(path)
    what = "matrix of landmark dissimilarities" if dissimilarity else "matrix of landmark columns"
    M = read_matrix(path, argument="kernel_file")
    n, m = M.shape
    if n < 2:
        raise InvalidArgument("kernel_file", f"{shown}: a {n} x {m} matrix; a {what} needs a row "
                                             "per object and at least two objects")
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidArgument("kernel_file", f"{shown}: {int(bad.sum())} NaN or inf entries (the "
                                             f"first, {M[i, j]}, at row {i + 1}, column {j + 1}); "
                                             f"a {what} must be finite")
    idx = _landmark_indices(landmarks, n, m)
    y, labels_shown, labels_source = _file_labels(labels)
    if y.shape[0] != n:
        raise InvalidArgument("labels", f"{labels_shown}: {y.shape[0]} labels for a {n} x {m} "
                                        f"{what} ({shown}); give one label per row (object)")
    _check_file_labels(y, labels_shown, "labels")
    letter = "D" if dissimilarity else "K"
    notes = []
    try:
        W = _symmetrized(M[idx], shown, f"{letter}[landmarks]", symmetrize, notes)
    except InvalidArgument as exc:
        raise InvalidArgument("kernel_file", str(exc).split(": ", 1)[-1].replace(
            "not symmetric", "the landmark block (the landmarks' rows) is not symmetric",
            1)) from None
    if dissimilarity:
        if (M < 0).any():
            i, j = np.unravel_index(np.argmin(M), M.shape)
            raise InvalidArgument("kernel_file", f"{shown}: {int((M < 0).sum())} negative entries "
                                                 f"(the most negative {M[i, j]:.6g} at row "
                                                 f"{i + 1}, column {j + 1}); dissimilarities are "
                                                 ">= 0 (is it a kernel, i.e. similarity, matrix? "
                                                 "then leave out dissimilarity=True)")
        try:
            W = _check_dissimilarities(W, shown)
        except InvalidArgument as exc:
            raise InvalidArgument("kernel_file", str(exc).split(": ", 1)[-1].replace(
                "the diagonal is not zero", "the landmark block's diagonal (each landmark's "
                                            "column in its own row) is not zero", 1)) from None
    if not M.flags.writeable:
        M = M.copy()
    M[idx] = W
    source, stem = _file_source(path)
    idx_source = (f"landmarks {_file_source(landmarks)[0]}"
                  if isinstance(landmarks, (str, os.PathLike)) else "landmarks given as an array")
    desc = f"{what} read from a file, {n} objects x {m} landmarks"
    return LandmarkFile(M, idx, y, f"{'dissimilarity' if dissimilarity else 'kernel'} "
                                   f"columns file {source}, {idx_source}, {labels_source}",
                        stem, desc, tuple(notes))


@dataclass(frozen=True)
class TestPart:
    """The checked test part of a researcher's files (:func:`read_test_matrix`).

    Parameters
    ----------
    values : ndarray of shape (n_test, n_train) or (n_test, d)
        Kernel or dissimilarity rows of the test objects against the training
        objects, or their feature vectors (scaled with the training part's
        statistics).
    y : ndarray of shape (n_test,)
        Their labels, each a class of the training labels.
    source : str
        One line on where they came from (absolute paths).
    """

    values: np.ndarray
    y: np.ndarray
    source: str


def read_test_matrix(path, labels, *, train_y, dissimilarity, n_landmarks=None):
    """Read and check the test rows of a matrix file: one row per test object.

    Parameters
    ----------
    path : str or os.PathLike
        The matrix (:func:`krein.datasets.read_matrix`) of shape ``(n_test,
        n_train)``: rows the test objects, columns the training objects of the
        main file in the same order.
    labels : str, os.PathLike or array-like of shape (n_test,)
        The test labels (a file as :func:`krein.datasets.read_labels`, or the labels).
    train_y : ndarray of shape (n_train,)
        The training labels: the column count and the classes.
    dissimilarity : bool
        The rows are dissimilarities (``>= 0``).
    n_landmarks : int, optional
        Landmark columns (:func:`read_landmark_file`): the test rows hold one column
        per landmark (``n_landmarks`` of them), not one per training object.

    Returns
    -------
    TestPart
        The rows, the labels and their source.

    Raises
    ------
    InvalidArgument
        Naming ``test_kernel_file`` (any error of :func:`krein.datasets.read_matrix`,
        a column count other than ``n_train``, NaN or inf entries, negative
        dissimilarities) or ``test_labels`` (any error of
        :func:`krein.datasets.read_labels`, a count other than the rows, a
        class the training labels do not have), the message starting with the file.
    """
    shown = path_text(path)
    what = "test dissimilarities" if dissimilarity else "test kernel rows"
    M = read_matrix(path, argument="test_kernel_file")
    r, c = M.shape
    n = train_y.shape[0]
    if n_landmarks is not None and c != n_landmarks:
        raise InvalidArgument("test_kernel_file", f"{shown}: a {r} x {c} matrix; the {what} need "
                                                  f"one row per test object and one column per "
                                                  f"landmark ({n_landmarks}, in the order of the "
                                                  "training file's columns)")
    if n_landmarks is None and c != n:
        raise InvalidArgument("test_kernel_file", f"{shown}: a {r} x {c} matrix; the {what} need "
                                                  f"one row per test object and one column per "
                                                  f"training object ({n}, in the training "
                                                  "file's order)")
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidArgument("test_kernel_file", f"{shown}: {int(bad.sum())} NaN or inf entries "
                                                  f"(the first at row {i + 1}, column {j + 1}); "
                                                  f"the {what} must be finite")
    if dissimilarity and (M < 0).any():
        i, j = np.unravel_index(np.argmin(M), M.shape)
        raise InvalidArgument("test_kernel_file", f"{shown}: {int((M < 0).sum())} negative "
                                                  f"entries (the most negative {M[i, j]:.6g} at "
                                                  f"row {i + 1}, column {j + 1}); "
                                                  "dissimilarities are >= 0")
    y, labels_shown, labels_source = _file_labels(labels, "test_labels")
    if y.shape[0] != r:
        raise InvalidArgument("test_labels", f"{labels_shown}: {y.shape[0]} labels for the {r} "
                                             f"test rows of {shown}; give one label per test "
                                             "object")
    _check_test_classes(y, train_y, labels_shown, "test_labels")
    return TestPart(M, y, f"test {'dissimilarity' if dissimilarity else 'kernel'} file "
                          f"{_file_source(path)[0]}, {labels_source}")


def _scale_like(X_test, X_train, feature_scale):
    """Test features scaled with the training rows' statistics (:func:`scale_features`' rule)."""
    if feature_scale is None:
        return X_test
    lo, hi = np.nanmin(X_train, axis=0), np.nanmax(X_train, axis=0)
    const = hi == lo
    if feature_scale == "standard":
        sd = np.nanstd(X_train, axis=0)
        sd[const | (sd == 0)] = 1.0
        out = (X_test - np.nanmean(X_train, axis=0)) / sd
    else:
        out = 2.0 * (X_test - lo) / np.where(const, 1.0, hi - lo) - 1.0
    out[:, const] = 0.0
    return out


def read_feature_file(path, *, label_column, feature_scale, test_path=None):
    """Read and check a feature file, and scale its features.

    Parameters
    ----------
    path : str or os.PathLike
        The feature file (:func:`krein.datasets.read_features`).
    label_column : str or int, optional
        The labels' column in a text table (None: the last; svmlight: None).
    feature_scale : {"standard", "minmax", None}
        :func:`krein.datasets.scale_features` over all rows.
    test_path : str or os.PathLike, optional
        A feature file of test objects with the same columns and label
        column; its features are scaled with the TRAINING rows' statistics.

    Returns
    -------
    UserFile
        ``values`` the scaled features ``X`` of shape (n, d), the labels,
        ``source`` (absolute path, label column), ``stem``, ``description``
        (size and scaling), ``notes`` (how the table was read) and ``test``
        (a :class:`TestPart` with ``test_path``, else None).

    Raises
    ------
    InvalidArgument
        Naming ``data`` (any error of :func:`krein.datasets.read_features`
        about the file; a single class or every label different),
        ``label_column``, or ``test_data_file`` (the test file: any reading
        error, another number of features, a class the training labels do
        not have), the message starting with the path.
    """
    shown = path_text(path)
    X, y, _, info = read_features_with_info(path, label_column=label_column, argument="data")
    n, d = X.shape
    if info["format"] == "svmlight":
        where = "the first field (LIBSVM/svmlight)"
        notes = [f"read as a LIBSVM/svmlight file: {n} objects, {d} features (densified)"]
    else:
        j = info["label_index"]
        where = f"column {j + 1} of {info['width']}" + (
            f" ({info['label_name']!r})" if info["label_name"] is not None else "")
        notes = [f"read as a table {'with' if info['header'] else 'without'} a header row: "
                 f"{n} objects, {d} features, labels from {where}"
                 + (" (the last column by default; label_column chooses another)"
                    if label_column is None else "")]
    _check_file_labels(y, shown, "data", hint=f" (labels from {where}"
                       + ("; label_column chooses the column)" if info["format"] == "table"
                          else ")"))
    test = None
    if test_path is not None:
        test_shown = path_text(test_path)
        X_te, y_te, _, _ = read_features_with_info(test_path, label_column=label_column,
                                                   argument="test_data_file")
        if X_te.shape[1] != d:
            raise InvalidArgument("test_data_file", f"{test_shown}: {X_te.shape[1]} features; "
                                                    f"the training file {shown} has {d}")
        _check_test_classes(y_te, y, test_shown, "test_data_file")
        test = TestPart(_scale_like(X_te, X, feature_scale), y_te,
                        f"test feature file {_file_source(test_path)[0]}")
        notes.append(f"test part: {X_te.shape[0]} objects, scaled with the training rows' "
                     "statistics")
    X = scale_features(X, feature_scale)
    source, stem = _file_source(path)
    desc = f"feature file, {n} objects x {d} features, {_SCALE_TEXT[feature_scale]}"
    return UserFile(X, y, f"feature file {source}, labels from {where}", stem, desc,
                    tuple(notes), test)
