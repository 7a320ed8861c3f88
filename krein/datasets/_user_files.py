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

import contextlib
import contextvars
import os
from dataclasses import dataclass

import numpy as np

from .._validation import InvalidArgument
from ._features import read_features_with_info
from ._file_basics import resolve_path
from ._files import read_labels, read_matrix
from ._tables import (NAMES_LAYOUTS, condensed_hint, condensed_size, looks_like_edge_list,
                      read_edge_list, read_label_table, read_named_matrix)
from ._loaders import scale_features

__all__ = ["UserFile", "TestPart", "LandmarkFile", "read_kernel_file", "read_landmark_file",
           "read_test_matrix", "read_feature_file", "check_feature_scale",
           "check_flag", "check_name", "check_symmetrize", "check_names_layout",
           "check_edge_columns", "check_missing", "edge_list_matrix", "match_labels",
           "path_text", "prefixed", "FILE_SYMMETRY_RTOL", "FILE_DIAGONAL_RTOL",
           "SYMMETRIZE_RULES"]

#: Relative asymmetry ``max |K - K'| / max |K|`` of a matrix file up to which ``(K + K')/2`` is
#: used without a word; above it only with ``symmetrize=True`` (recorded in ``KernelData.notes``).
FILE_SYMMETRY_RTOL = 1e-10
#: Largest ``|D_ii|``, relative to ``max |D|``, of a dissimilarity file read as a zero diagonal.
FILE_DIAGONAL_RTOL = 1e-12
#: How two scores of one pair (``M[i, j]`` and ``M[j, i]``) become one (``symmetrize``).
SYMMETRIZE_RULES = {"mean": lambda a, b: 0.5 * (a + b), "max": np.maximum, "min": np.minimum}
_RULE_TEXT = {"mean": "({0} + {0}')/2", "max": "max({0}, {0}')", "min": "min({0}, {0}')"}


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


def check_symmetrize(value):
    """Check ``symmetrize``: False, True (``"mean"``), or a rule of :data:`SYMMETRIZE_RULES`.

    Parameters
    ----------
    value : bool or {"mean", "max", "min"}
        False: an asymmetric matrix is an error (an edge list's pairs are then
        combined by their mean); True or ``"mean"``: ``(M + M')/2``;
        ``"max"`` / ``"min"``: the larger / smaller of ``M[i, j]`` and ``M[j, i]``.

    Returns
    -------
    str or None
        None for False, else the rule's name.

    Raises
    ------
    InvalidArgument
        Naming ``symmetrize``, for any other value.
    """
    if isinstance(value, (bool, np.bool_)):
        return "mean" if value else None
    if isinstance(value, str) and value in SYMMETRIZE_RULES:
        return value
    raise InvalidArgument("symmetrize", f"must be True or False, or a rule 'mean', 'max' or "
                                        f"'min'; got {value!r}")


def check_names_layout(value):
    """Check ``names``: where a matrix file's object names are.

    Parameters
    ----------
    value : {"auto", "header", "index", "both", "none"} or None
        None is ``"auto"`` (:mod:`krein.datasets._tables`, "Named matrices").

    Returns
    -------
    str

    Raises
    ------
    InvalidArgument
        Naming ``names``, for any other value.
    """
    if value is None:
        return "auto"
    if not isinstance(value, str) or value not in NAMES_LAYOUTS:
        raise InvalidArgument("names", f"must be one of {', '.join(NAMES_LAYOUTS)}; got "
                                       f"{value!r}")
    return value


def check_edge_columns(value):
    """Check ``edge_columns``: the columns (from 1) of an edge list's two names and score.

    Parameters
    ----------
    value : str, sequence of 3 int, or None
        ``"1,2,12"``, ``(1, 2, 12)``, or None (``(1, 2, 3)``).

    Returns
    -------
    tuple of 3 int

    Raises
    ------
    InvalidArgument
        Naming ``edge_columns``: not three distinct integers >= 1.
    """
    if value is None:
        return (1, 2, 3)
    try:
        parts = value.split(",") if isinstance(value, str) else list(value)
        cols = tuple(int(str(p).strip()) for p in parts)
    except (TypeError, ValueError):
        cols = ()
    if len(cols) != 3 or min(cols) < 1 or len(set(cols)) != 3:
        raise InvalidArgument("edge_columns", f"must be three different column numbers from 1, "
                                              f"NAME_A,NAME_B,SCORE (e.g. 1,2,12 for BLAST "
                                              f"-outfmt 6 bitscores); got {value!r}")
    return cols


def check_missing(value):
    """Check ``missing``: the value of a pair an edge list does not hold.

    Parameters
    ----------
    value : float or None
        A finite number, or None (similarities: 0; dissimilarities: refused).

    Returns
    -------
    float or None

    Raises
    ------
    InvalidArgument
        Naming ``missing``: not a finite number.
    """
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not np.isfinite(v) or isinstance(value, bool):
        raise InvalidArgument("missing", f"must be a finite number; got {value!r}")
    return v


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
    if unseen.size and not _REAL_LABELS.get():
        known = ", ".join(repr(_py(v)) for v in np.unique(y_train)[:10])
        raise InvalidArgument(argument, f"{shown}: test label(s) "
                                        f"{', '.join(repr(_py(v)) for v in unseen[:5])} are no "
                                        f"class of the training labels ({known})")


#: Whether the labels being read are real-valued targets (a regression): then every object
#: may have a value of its own and a test value need not occur among the training values.
_REAL_LABELS = contextvars.ContextVar("krein_real_labels", default=False)


@contextlib.contextmanager
def real_labels():
    """Read the user's labels as real-valued targets inside the block (``--task regression``).

    The label checks that make sense for classes only are off: all labels distinct (every
    object a class of its own) and test labels that are no training label.
    """
    token = _REAL_LABELS.set(True)
    try:
        yield
    finally:
        _REAL_LABELS.reset(token)


def _check_file_labels(y, shown, argument, hint=""):
    """At least two classes, and not every object a class of its own; ``hint`` ends the messages."""
    classes = np.unique(y)
    n = y.shape[0]
    if classes.size < 2:
        raise InvalidArgument(argument, f"{shown}: a single class ({_py(classes[0])!r}) in all "
                                        f"{n} labels; need at least two classes{hint}")
    if classes.size == n and n >= 3 and not _REAL_LABELS.get():
        first = ", ".join(repr(_py(v)) for v in y[:3])
        raise InvalidArgument(argument, f"{shown}: all {n} labels are different ({first}, ...): "
                                        "every object would be a class of its own; expected one "
                                        f"class label per object{hint}")


def _symmetrized(M, shown, letter, symmetrize, notes):
    """``(M + M')/2`` (or the rule ``symmetrize``); an error above :data:`FILE_SYMMETRY_RTOL`
    unless ``symmetrize``."""
    rule = symmetrize if isinstance(symmetrize, str) else "mean"
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
        notes.append(f"symmetrized: {how} before {_RULE_TEXT[rule].format(letter)}")
        return SYMMETRIZE_RULES[rule](M, M.T)
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
    names : ndarray of str of shape (n,) or None
        The objects' names of a named matrix or an edge list, else None.
    """

    values: np.ndarray
    y: np.ndarray
    source: str
    stem: str
    description: str
    notes: tuple = ()
    test: object = None
    names: object = None


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


def _shown_names(names, k=3):
    return ", ".join(repr(str(v)) for v in names[:k]) + (", ..." if len(names) > k else "")


def _check_names(names, shown, what="matrix"):
    """Names of a matrix's objects: none blank, none repeated."""
    blank = [i for i, v in enumerate(names) if not str(v).strip()]
    if blank:
        raise InvalidArgument("kernel_file", f"{shown}: object {blank[0] + 1} of the {what} has "
                                             "an empty name")
    seen = {}
    for i, v in enumerate(names):
        if v in seen:
            raise InvalidArgument("kernel_file", f"{shown}: the name {v!r} is given twice (objects "
                                                 f"{seen[v] + 1} and {i + 1}); each object's "
                                                 "name is its own")
        seen[v] = i


def _matrix_names(nm, shown):
    """The objects' names of a :class:`~krein.datasets._tables.NamedMatrix` (rows = columns)."""
    rows, cols = nm.row_names, nm.column_names
    if rows is not None and cols is not None:
        if len(rows) != len(cols):
            return rows  # the shape check names the problem
        for i, (r, c) in enumerate(zip(rows, cols)):
            if r != c:
                raise InvalidArgument("kernel_file", f"{shown}: row and column names differ: row "
                                                     f"{i + 1} is {r!r} but column {i + 1} is "
                                                     f"{c!r}; a kernel or dissimilarity matrix "
                                                     "lists the same objects in the same order "
                                                     "in its header row and index column")
    names = rows if rows is not None else cols
    if names is not None:
        _check_names(names, shown)
    return names


def match_labels(y, label_names, names, labels_shown, matrix_shown, notes):
    """The labels in the matrix's order: matched by name when both have names.

    Parameters
    ----------
    y : ndarray of shape (m,)
        The labels as read.
    label_names : list of str or None
        The names of a ``name,label`` table, else None.
    names : list of str or None
        The matrix's object names, else None.
    labels_shown, matrix_shown : str
        The two files' paths (for the messages).
    notes : list of str
        Appended to: extra labels ignored, names ignored.

    Returns
    -------
    ndarray of shape (n,)
        One label per object of the matrix (in its order).

    Raises
    ------
    InvalidArgument
        Naming ``labels``: a name given twice, objects of the matrix without a
        label (the count and the first names), all in one line.
    """
    if label_names is None or names is None:
        if label_names is not None:
            notes.append("the label file's names were not used: the matrix has none (labels "
                         "taken in the file's order)")
        return y
    index, twice = {}, []
    for i, v in enumerate(label_names):
        if v in index and v not in twice:
            twice.append(v)
        index[v] = i
    missing = [v for v in names if v not in index]
    problems = []
    if twice:
        problems.append(f"{len(twice)} names given twice ({_shown_names(twice)})")
    if missing:
        problems.append(f"{len(missing)} objects of {matrix_shown} have no label "
                        f"({_shown_names(missing)})")
    if problems:
        raise InvalidArgument("labels", f"{labels_shown}: {'; '.join(problems)}; labels are "
                                        "matched to the matrix's objects by name")
    extra = len(label_names) - len(names)
    if extra:
        notes.append(f"{extra} labels of objects not in the matrix ignored")
    order = [index[v] for v in names]
    if order != list(range(len(order))) or extra:
        notes.append(f"labels matched to the matrix's objects by name ({labels_shown})")
    return np.asarray(y)[order]


def edge_list_matrix(path, *, columns, dissimilarity, symmetrize, missing):
    """The square matrix of an edge list ``name_a name_b score`` (one pair per line).

    The rules:

    * objects: every name of the two name columns, in the order of first
      appearance;
    * a pair listed more than once in the same direction (BLAST's several
      HSPs of one query and subject): its best score, the largest similarity
      or the smallest dissimilarity;
    * a pair listed in both directions with two scores: combined by
      ``symmetrize`` (``"mean"`` by default, ``"max"``, ``"min"``); listed
      in one direction only: that score for both;
    * a pair listed in neither direction: ``missing``; for similarities 0 by
      default, for dissimilarities no default (an error naming ``--missing``:
      a missing distance is not 0 and not known);
    * self-scores ``a a s``: from the file where present; otherwise, for
      similarities the largest score of the object's row (an object is at
      least as similar to itself as to any other), for dissimilarities 0.

    Parameters
    ----------
    path : str or os.PathLike
        The edge list (:func:`krein.datasets._tables.read_edge_list`).
    columns : tuple of 3 int
        The columns (from 1) of the two names and the score.
    dissimilarity : bool
        The scores are dissimilarities.
    symmetrize : {"mean", "max", "min"} or None
        How two directions are combined (None: ``"mean"``).
    missing : float or None
        The value of a pair listed in neither direction.

    Returns
    -------
    M : ndarray of shape (n, n)
        The symmetric matrix.
    names : list of str
        The objects, in the matrix's order.
    notes : list of str
        What the rules did (pairs combined, missing, self-scores).

    Raises
    ------
    InvalidArgument
        Naming ``kernel_file``: any error of the reader, fewer than two
        objects, a negative dissimilarity; ``missing``: dissimilarities with
        pairs missing and no ``missing``.
    """
    shown = path_text(path)
    a, b, scores, header = read_edge_list(path, columns=columns)
    names = list(dict.fromkeys(a + b))
    n = len(names)
    if n < 2:
        raise InvalidArgument("kernel_file", f"{shown}: the edge list names {n} object; a "
                                             "kernel needs at least two")
    pos = {v: i for i, v in enumerate(names)}
    I = np.array([pos[v] for v in a])
    J = np.array([pos[v] for v in b])
    notes = [f"read as an edge list: {scores.size} pairs of {n} objects (columns "
             f"{','.join(str(c) for c in columns)}" + (f", header {header!r} skipped" if header
                                                       else "") + ")"]
    if dissimilarity and (scores < 0).any():
        k = int(np.argmin(scores))
        raise InvalidArgument("kernel_file", f"{shown}: the score {scores[k]:.6g} of {a[k]!r} - "
                                             f"{b[k]!r} is negative; dissimilarities are >= 0")
    M = np.full((n, n), np.nan)
    (np.fmin if dissimilarity else np.fmax).at(M, (I, J), scores)
    repeated = scores.size - np.count_nonzero(~np.isnan(M))
    if repeated:
        notes.append(f"{repeated} repeated pairs: the {'smallest' if dissimilarity else 'largest'}"
                     " score kept")
    diag = np.diag(M).copy()
    np.fill_diagonal(M, np.nan)
    T = M.T
    rule = symmetrize or "mean"
    both = ~np.isnan(M) & ~np.isnan(T)
    with np.errstate(invalid="ignore"):
        C = np.where(np.isnan(M), T, np.where(np.isnan(T), M, SYMMETRIZE_RULES[rule](M, T)))
    differ = int(np.count_nonzero(both & (M != T)) // 2)
    one_way = int(np.count_nonzero(np.isnan(M) ^ np.isnan(T)) // 2)
    if differ:
        notes.append(f"{differ} pairs with two different scores combined by "
                     f"{_RULE_TEXT[rule].format('S')}")
    if one_way:
        notes.append(f"{one_way} pairs listed in one direction: that score used for both")
    off = ~np.eye(n, dtype=bool)
    gaps = np.isnan(C) & off
    n_gaps = int(np.count_nonzero(gaps) // 2)
    if n_gaps:
        if missing is None and dissimilarity:
            i, j = np.argwhere(np.triu(gaps))[0]
            raise InvalidArgument("missing", f"{shown}: {n_gaps} of the {n * (n - 1) // 2} pairs "
                                             f"are not in the edge list (the first: {names[i]!r} "
                                             f"- {names[j]!r}); a missing dissimilarity has no "
                                             "default: give its value with --missing VALUE "
                                             "(missing=VALUE), e.g. the largest distance")
        value = 0.0 if missing is None else missing
        C[gaps] = value
        notes.append(f"{n_gaps} of the {n * (n - 1) // 2} pairs not in the file set to "
                     f"{value:g}" + (" (the default for similarities)" if missing is None
                                     else " (missing)"))
    absent = np.isnan(diag)
    if absent.any():
        if dissimilarity:
            diag[absent] = 0.0
            how = "0"
        else:
            diag[absent] = np.max(np.where(off, C, -np.inf), axis=1)[absent]
            how = "the largest score of its row"
        notes.append(f"{int(absent.sum())} objects without a self-score: set to {how}")
    C[~off] = diag
    return C, names, notes


def _condensed_matrix(v, shown, dissimilarity, notes):
    """The square matrix of a condensed vector (:func:`scipy.spatial.distance.squareform`)."""
    import scipy.spatial.distance

    L = v.shape[0]
    n = condensed_size(L)
    if n is None:
        raise InvalidArgument("kernel_file", f"{shown}: holds a 1-D array of length {L}, which is "
                                             "not n(n-1)/2 for any n, so neither a matrix nor a "
                                             "condensed distance vector (scipy pdist, R dist; "
                                             "scipy.spatial.distance.squareform): "
                                             f"{condensed_hint(L)}")
    if not dissimilarity:
        raise InvalidArgument("kernel_file", f"{shown}: a 1-D array of length {L} = n(n-1)/2 for "
                                             f"n = {n}: a condensed vector (scipy pdist, R dist) "
                                             "holds no diagonal, so it is read only as "
                                             "dissimilarities (--dissimilarity, zero diagonal); "
                                             "for similarities write the square matrix "
                                             "(scipy.spatial.distance.squareform and the "
                                             "diagonal)")
    if not np.all(np.isfinite(v)):
        k = int(np.flatnonzero(~np.isfinite(v))[0])
        raise InvalidArgument("kernel_file", f"{shown}: entry {k + 1} of the condensed vector is "
                                             f"{v[k]}; dissimilarities must be finite")
    notes.append(f"read as a condensed distance vector of length {L}: "
                 f"scipy.spatial.distance.squareform, {n} x {n}, zero diagonal")
    return scipy.spatial.distance.squareform(v, checks=False)


def read_kernel_file(path, labels, *, dissimilarity, symmetrize, names="auto", edge_list=None,
                     edge_columns=None, missing=None):
    """Read and check a kernel or dissimilarity matrix file and its labels.

    Parameters
    ----------
    path : str or os.PathLike
        The matrix file (:func:`krein.datasets._tables.read_named_matrix`: a
        matrix, a named matrix, a condensed vector), or an edge list.
    labels : str, os.PathLike or array-like of shape (n,)
        A labels file (:func:`krein.datasets._tables.read_label_table`: one
        label per line or a ``name,label`` table) or the labels.
    dissimilarity : bool
        The file holds dissimilarities (``>= 0``, zero diagonal).
    symmetrize : bool or {"mean", "max", "min"}
        Accept an asymmetric matrix and combine ``M[i, j]`` and ``M[j, i]``
        by the rule (True: ``"mean"``; recorded in ``notes``); for an edge
        list the rule of two scores of a pair (default ``"mean"``).
    names : {"auto", "header", "index", "both", "none"}, default="auto"
        Where the matrix's object names are.
    edge_list : bool or None, default=None
        The file is an edge list (None: detected,
        :func:`krein.datasets._tables.looks_like_edge_list`, unless ``names``
        is given: then a matrix).
    edge_columns : tuple of 3 int, optional
        The columns (from 1) of an edge list's names and score (``(1, 2, 3)``).
    missing : float, optional
        The value of a pair an edge list does not hold (:func:`edge_list_matrix`).

    Returns
    -------
    UserFile
        ``values`` the symmetrized matrix (dissimilarities with an exact zero
        diagonal), the labels (matched by name where both files have names),
        the objects' ``names`` (or None), ``source``, ``stem``,
        ``description``, ``notes``.

    Raises
    ------
    InvalidArgument
        Naming ``kernel_file``, ``labels`` or ``missing``, the message starting
        with the path (:func:`krein.kernel_data.load_kernel_file`, "Raises").
    """
    shown = path_text(path)
    rule = check_symmetrize(symmetrize)
    names = check_names_layout(names)
    letter, what = ("D", "dissimilarity matrix") if dissimilarity else ("K", "kernel matrix")
    notes = []
    if edge_list is None:  # a layout of names given: a matrix
        edge_list = names == "auto" and looks_like_edge_list(path)
    if edge_list:
        M, object_names, notes = edge_list_matrix(path, columns=check_edge_columns(edge_columns),
                                                  dissimilarity=dissimilarity, symmetrize=rule,
                                                  missing=check_missing(missing))
        n = M.shape[0]
        _check_names(object_names, shown)
    else:
        nm = read_named_matrix(path, names=names, argument="kernel_file")
        M = nm.values
        if M.ndim == 1:
            M = _condensed_matrix(M, shown, dissimilarity, notes)
        n = _check_file_matrix(M, shown, what)
        object_names = _matrix_names(nm, shown)
        if object_names is not None and len(object_names) != n:
            raise InvalidArgument("kernel_file", f"{shown}: {len(object_names)} names for a "
                                                 f"{n} x {n} matrix")
        if object_names is not None:
            notes.append(f"object names read from the {_LAYOUT_TEXT[nm.layout]}")
    y, labels_shown, labels_source, label_names, header = _file_labels_named(labels, n)
    if header is not None:
        notes.append(f"the first line of the labels, {header!r}, read as a header")
    if edge_list and label_names is None:
        raise InvalidArgument("labels", f"{labels_shown}: the objects of an edge list are named "
                                        f"by it ({shown}): give the labels as a name,label "
                                        "table, one object per line")
    if label_names is not None and object_names is not None:
        y = match_labels(y, label_names, object_names, labels_shown, shown, notes)
    else:
        match_labels(y, label_names, object_names, labels_shown, shown, notes)
        if y.shape[0] != n:
            raise InvalidArgument("labels", f"{labels_shown}: {y.shape[0]} labels for a {n} x {n} "
                                            f"matrix ({shown}); give one label per object")
    _check_file_labels(y, labels_shown, "labels")
    if not edge_list:
        M = _symmetrized(M, shown, letter, rule or False, notes)
    source, stem = _file_source(path)
    desc = f"{what} read from {'an edge list' if edge_list else 'a file'}, {n} objects"
    if rule is not None and not edge_list and any(t.startswith("symmetrized") for t in notes):
        desc += f", symmetrized {_RULE_TEXT[rule].format(letter)}"
    if dissimilarity:
        M = _check_dissimilarities(M, shown)
    return UserFile(M, y, f"{'dissimilarity' if dissimilarity else 'kernel'} file {source}, "
                          f"{labels_source}", stem, desc, tuple(notes),
                    names=None if object_names is None else np.array(object_names, dtype=str))


_LAYOUT_TEXT = {"header": "header row", "index": "index column",
                "both": "header row and index column"}


def _file_labels_named(labels, n):
    """``(y, shown, source, names, header)``: :func:`_file_labels` with a label table's names
    and the header line skipped."""
    if isinstance(labels, (str, os.PathLike)):
        y, label_names, header = read_label_table(labels, n=n, argument="labels")
        return (y, os.fspath(labels), f"labels {_file_source(labels)[0]}", label_names, header)
    return (*_file_labels(labels), None, None)


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
    names : ndarray of str of shape (n_test,) or None
        The test objects' names (the index column of a named test matrix).
    notes : tuple of str
        What was done on reading (columns or labels matched by name).
    """

    values: np.ndarray
    y: np.ndarray
    source: str
    names: object = None
    notes: tuple = ()


def _test_columns(M, column_names, train_names, shown):
    """The test rows' columns in the training objects' order, matched by name."""
    if column_names is None or train_names is None:
        return M, []
    train = [str(v) for v in train_names]
    if list(column_names) == train:
        return M, []
    pos = {v: j for j, v in enumerate(column_names)}
    missing = [v for v in train if v not in pos]
    if missing or len(pos) != len(column_names):
        first = ", ".join(map(repr, missing[:3])) + (", ..." if len(missing) > 3 else "")
        what = (f"{len(missing)} training objects have no column ({first})" if missing
                else "a column name is given twice")
        raise InvalidArgument("test_kernel_file", f"{shown}: {what}; the columns of the test rows "
                                                  "are the training objects, matched by name")
    extra = len(column_names) - len(train)
    note = ["test columns matched to the training objects by name"
            + (f" ({extra} columns of other objects ignored)" if extra else "")]
    return M[:, [pos[v] for v in train]], note


def read_test_matrix(path, labels, *, train_y, dissimilarity, n_landmarks=None,
                     train_names=None):
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
    train_names : array-like of str, optional
        The training objects' names (a named training matrix): a header row of
        the test rows is then matched to them by name (columns reordered), and
        test labels given as a ``name,label`` table are matched to the test
        rows' names.

    Returns
    -------
    TestPart
        The rows, the labels, their source, the test objects' ``names`` (an
        index column; else None) and ``notes``.

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
    notes = []
    if n_landmarks is None:
        nm = read_named_matrix(path, argument="test_kernel_file")
        M, row_names = nm.values, nm.row_names
        if M.ndim == 1:  # no condensed test part: the matrix as stored, or its error
            M = read_matrix(path, argument="test_kernel_file")
        M, notes = _test_columns(M, nm.column_names, train_names, shown)
        if row_names is not None:
            _check_names(row_names, shown, "test rows")
    else:
        M, row_names = read_matrix(path, argument="test_kernel_file"), None
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
    if isinstance(labels, (str, os.PathLike)) and n_landmarks is None:
        y, label_names, _ = read_label_table(labels, n=r, argument="test_labels")
        labels_shown = os.fspath(labels)
        labels_source = f"test labels {_file_source(labels)[0]}"
        if label_names is not None and row_names is not None:
            try:
                y = match_labels(y, label_names, row_names, labels_shown, shown, notes)
            except InvalidArgument as exc:
                raise InvalidArgument("test_labels", exc.message) from None
    else:
        y, labels_shown, labels_source = _file_labels(labels, "test_labels")
    if y.shape[0] != r:
        raise InvalidArgument("test_labels", f"{labels_shown}: {y.shape[0]} labels for the {r} "
                                             f"test rows of {shown}; give one label per test "
                                             "object")
    _check_test_classes(y, train_y, labels_shown, "test_labels")
    return TestPart(M, y, f"test {'dissimilarity' if dissimilarity else 'kernel'} file "
                          f"{_file_source(path)[0]}, {labels_source}",
                    None if row_names is None else np.array(row_names, dtype=str), tuple(notes))


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
