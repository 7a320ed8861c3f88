"""Files as researchers write them: named matrices, label tables, condensed vectors, edge lists.

The plain readers of :mod:`krein.datasets._files` take a matrix of numbers and
one label per line.  The files that R, pandas, SciPy, BLAST/DIAMOND and graph
tools write carry more: object names in a header row and an index column, a
``name,label`` table, quoted strings, a condensed distance vector, a list of
scored pairs.  This module reads them; :mod:`krein.datasets._user_files`
checks the values and matches the labels to the matrix by name.

Named matrices (:func:`read_named_matrix`)
------------------------------------------
A text table (``.csv``, ``.tsv``, ``.txt``, ``.dat``; the separator is the
first of ``,`` ``;`` TAB found in the first data line, else whitespace; CSV
quoting as in R and pandas) may carry the objects' names.  With
``names="auto"`` (the default):

* the first line is a **header row** when one of its fields (after the
  first, when there is an index column) is not a number, is quoted, or when
  its first field is empty (R's ``write.csv`` corner ``""``, pandas'
  ``to_csv()`` corner);
* the first field of each row is an **index column** when the second data
  line's first field is not a number or is quoted, when the header's first
  field is empty, or when the header row has one field fewer than the rows
  (R's ``write.table``, which writes no corner).

``names="header"``, ``"index"``, ``"both"`` and ``"none"`` force the layout.
Numbers written without quotes in both places (a header ``1,2,3`` above an
unnamed index) are read as numbers under ``"auto"``: name the layout then.
Binary formats (``.npy``, ``.npz``, ``.mat``) hold no names.

Condensed vectors
-----------------
A 1-D array (``.npy``, a one-line or one-column text file, an ``.npz`` or
``.mat`` vector named by ``:key``) of length ``n (n - 1) / 2`` is the upper
triangle of an ``n x n`` dissimilarity matrix, row by row: what
``scipy.spatial.distance.pdist`` returns and R's ``as.vector(dist(x))``
writes (R stores the lower triangle column by column, which is the same
order).  :func:`condensed_size` gives ``n``; the square matrix is
``scipy.spatial.distance.squareform(v)`` with a zero diagonal.

Label tables (:func:`read_label_table`)
---------------------------------------
A text file of labels is one of:

* one label per line (or one line of labels side by side);
* a table of two columns ``name,label`` (comma, semicolon or TAB
  separated, or whitespace separated when every line has the same number of
  fields and the first column's values are all different);
* either of them as R writes a data frame: a first column of row names
  (below a header with an empty corner, or a header one field short) is
  dropped when two more columns follow, else it is the names.

Quoted fields are unquoted (``"setosa"`` is ``setosa``).  The first line is
a **header** (skipped) when its label does not occur again in the file
(a header is not a class) and either it is one of :data:`HEADER_WORDS`
(``label``, ``class``, ``y``, ``target``, ..., R's default ``x`` and
``V1``; any case), or it is a word
above numeric labels, or the caller knows the number of objects ``n`` and
the file holds ``n + 1`` labels.  In a table, a first line whose name field
is one of :data:`NAME_WORDS` (``name``, ``id``, ...) or whose first field is
empty is a header as well.

Edge lists (:func:`read_edge_list`)
-----------------------------------
One scored pair per line, ``name_a name_b score`` (whitespace, comma or TAB
separated), as BLAST/DIAMOND tabular output (``-outfmt 6``: query, subject,
..., bitscore in column 12), graph tools and pairwise aligners write; the
columns of the two names and the score are chosen by ``columns`` (counted
from 1 on the command line, ``--edge-columns 1,2,12``).  A first line whose
score is not a number above lines whose scores are is a header.  How pairs
become a matrix (both directions, repeated and missing pairs, self-scores)
is decided by :func:`krein.datasets._user_files.edge_list_matrix`.
"""

from __future__ import annotations

import csv
import math
import re

import numpy as np

from ._file_basics import TEXT_SUFFIXES, file_error, is_number, resolve_path, typed_labels
from ._files import read_array, read_labels, read_text_matrix

__all__ = ["NAMES_LAYOUTS", "HEADER_WORDS", "NAME_WORDS", "NamedMatrix", "read_named_matrix",
           "read_label_table", "read_edge_list", "looks_like_edge_list", "condensed_size",
           "condensed_hint"]

#: Values of ``names`` (``--names``): where a matrix file's object names are.
NAMES_LAYOUTS = ("auto", "header", "index", "both", "none")
#: First lines of a label column that are a header, not a label (compared in lower case).
HEADER_WORDS = ("label", "labels", "class", "classes", "y", "target", "targets", "category",
                "group", "groups", "species", "type", "outcome", "response", "cluster",
                "truth", "class_label", "classlabel", "x", "v1")
#: First fields of a ``name,label`` table that are a header (compared in lower case).
NAME_WORDS = ("name", "names", "id", "ids", "object", "objects", "sample", "samples", "item",
              "items", "node", "protein", "sequence", "gene", "key", "index", "row",
              "rowname", "rownames")


# ---------------------------------------------------------------------------- text rows
def _read_text(file, shown, argument):
    try:
        with open(file, encoding="utf-8-sig", newline="") as f:
            return f.read()
    except UnicodeDecodeError:
        raise file_error(argument, shown, "is not a text file (cannot be decoded as "
                                          "UTF-8)") from None
    except OSError as exc:
        raise file_error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None


def _head_lines(file, k=2):
    """The first ``k`` data lines of a text file, ``(0, line)``, read lazily (None: unreadable);
    a ``#`` at the start of a line or after whitespace starts a comment."""
    head = []
    try:
        with open(file, encoding="utf-8-sig", newline="") as f:
            for line in f:
                s = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
                if s and not s.startswith("#"):
                    head.append((0, s))
                if len(head) == k:
                    break
    except (OSError, UnicodeDecodeError):
        return None
    return head


def _data_lines(text):
    """``(number, line)`` of the lines that hold data: blank lines and ``#`` lines dropped."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s and not s.startswith("#"):
            out.append((number, s))
    return out


def _separator(line):
    for sep in (",", ";", "\t"):
        if sep in line:
            return sep
    return None


def _fields(lines, sep):
    """The fields of each line, CSV quoting undone (``sep`` None: runs of whitespace)."""
    delimiter = " " if sep is None else sep
    texts = [re.sub(r"\s+", " ", s) if sep is None else s for _, s in lines]
    rows = list(csv.reader(texts, delimiter=delimiter, skipinitialspace=True))
    return [[f.strip() for f in r] for r in rows]


_QUOTED = re.compile(r'(^|[,;\t ])\s*["\']')


def _quoted_first(line):
    return line.lstrip().startswith(('"', "'"))


# ---------------------------------------------------------------------------- condensed
def condensed_size(length):
    """The ``n`` of a condensed distance vector of ``length = n (n - 1) / 2`` entries.

    Parameters
    ----------
    length : int
        The vector's length.

    Returns
    -------
    int or None
        ``n >= 2``, or None when ``length`` is not ``n (n - 1) / 2`` for any ``n``.
    """
    n = int(round((1 + math.sqrt(1 + 8 * length)) / 2))
    return n if length >= 1 and n * (n - 1) // 2 == length else None


def condensed_hint(length):
    """The lengths of condensed vectors around ``length``, as a message shows them.

    Parameters
    ----------
    length : int
        A vector's length.

    Returns
    -------
    str
        E.g. ``"36 for n = 9, 45 for n = 10"``.
    """
    n = max(2, int((1 + math.sqrt(1 + 8 * length)) / 2))
    return f"{n * (n - 1) // 2} for n = {n}, {(n + 1) * n // 2} for n = {n + 1}"


# ---------------------------------------------------------------------------- matrices
class NamedMatrix:
    """A matrix as read from a file, with the names its text table carried.

    Parameters
    ----------
    values : ndarray of shape (r, c) or (L,)
        The numbers (a 1-D array: a condensed vector, :func:`condensed_size`).
    row_names : list of str or None
        The index column.
    column_names : list of str or None
        The header row (without the corner).
    layout : str
        How the names were found: ``"header"``, ``"index"``, ``"both"`` or ``"none"``.
    """

    def __init__(self, values, row_names=None, column_names=None, layout="none"):
        self.values = values
        self.row_names = row_names
        self.column_names = column_names
        self.layout = layout


def _detect_layout(lines, sep):
    """``(header, index)`` of a text table from its first two data lines (module docstring)."""
    head = _fields(lines[:2], sep)
    first = head[0]
    second = head[1] if len(head) > 1 else None
    index = second is not None and (not is_number(second[0]) or _quoted_first(lines[1][1]))
    short = second is not None and len(first) == len(second) - 1
    corner = first[0] == ""
    index = index or corner or short
    rest = first if short or not index else first[1:]
    header = (corner or short or any(not is_number(f) for f in rest)
              or bool(_QUOTED.search(lines[0][1])))
    return header, index


def read_named_matrix(path, *, names="auto", argument="kernel_file"):
    """Read a matrix file with the object names of its header row and index column.

    Parameters
    ----------
    path : str or os.PathLike
        The file (:func:`krein.datasets.read_matrix`'s formats).
    names : {"auto", "header", "index", "both", "none"}, default="auto"
        Where the names are (module docstring, "Named matrices").
    argument : str, default="kernel_file"
        Argument name the errors carry.

    Returns
    -------
    NamedMatrix
        The numbers (2-D, or 1-D for a condensed vector) and the names found.

    Raises
    ------
    InvalidArgument
        Naming ``argument``: any error of :func:`krein.datasets.read_matrix`;
        names asked of a binary file; rows of different lengths; a field that
        is not a number (line and column); a header with another number of
        names than columns.
    """
    file, key, shown = resolve_path(path, argument)
    suffix = file.suffix.lower()
    if suffix not in TEXT_SUFFIXES:
        if names not in ("auto", "none"):
            raise file_error(argument, shown, f"a {suffix or 'binary'} file holds no object "
                                              f"names; names={names!r} (--names) applies to "
                                              "text tables (.csv, .tsv, .txt, .dat)")
        return NamedMatrix(read_array(path, argument))
    head = _head_lines(file)
    if not head:  # unreadable or empty: the numeric reader says which
        return NamedMatrix(read_text_matrix(file, shown, argument))
    sep = _separator(head[0][1])
    if names == "auto":
        header, index = _detect_layout(head, sep)
    else:
        header, index = names in ("header", "both"), names in ("index", "both")
    if not (header or index):  # numbers only: numpy's reader, the file read once
        A = read_text_matrix(file, shown, argument)
        if A.shape[0] == 1 or A.shape[1] == 1:
            A = A.ravel()
        return NamedMatrix(A)
    lines = _data_lines(_read_text(file, shown, argument))
    rows = _fields(lines, sep)
    numbers = [n for n, _ in lines]
    column_names = None
    if header:
        column_names, rows, numbers = rows[0], rows[1:], numbers[1:]
        if not rows:
            raise file_error(argument, shown, "holds a header row and no numbers")
    row_names = [r[0] for r in rows] if index else None
    body = [r[1:] for r in rows] if index else rows
    width = len(body[0])
    for number, r in zip(numbers, body):
        if len(r) != width:
            raise file_error(argument, shown, f"line {number} has {len(r)} values but line "
                                              f"{numbers[0]} has {width} (rows of different "
                                              "lengths)")
    try:
        A = np.array(body, dtype=float)
    except ValueError:
        for number, r in zip(numbers, body):
            for j, v in enumerate(r, 2 if index else 1):
                if not is_number(v):
                    what = "an empty field" if v == "" else f"{v!r} is not a number"
                    raise file_error(argument, shown, f"line {number}, column {j}: {what} (names "
                                                      f"read as: {_layout_text(header, index)}; "
                                                      "--names chooses)") from None
        raise
    if column_names is not None:
        if index and len(column_names) == width + 1:
            column_names = column_names[1:]  # the corner
        if len(column_names) != width:
            raise file_error(argument, shown, f"the header row (line {lines[0][0]}) holds "
                                              f"{len(column_names)} names for {width} columns")
    layout = "both" if header and index else "header" if header else "index"
    return NamedMatrix(A, row_names, column_names, layout)


def _layout_text(header, index):
    return {(True, True): "a header row and an index column", (True, False): "a header row",
            (False, True): "an index column", (False, False): "none"}[(header, index)]


# ---------------------------------------------------------------------------- labels
def _is_header_label(value, others, n_rows, n):
    """The header rule of a label column (module docstring, "Label tables")."""
    if value in others:
        return False
    return (value.lower() in HEADER_WORDS
            or (not is_number(value) and len(others) > 0 and all(is_number(v) for v in others))
            or (n is not None and n_rows == n + 1))


def read_label_table(path, *, n=None, argument="labels"):
    """Read labels, and the objects' names when the file is a ``name,label`` table.

    Parameters
    ----------
    path : str or os.PathLike
        The labels (module docstring, "Label tables"); ``.npy``, ``.npz``,
        ``.mat`` as :func:`krein.datasets.read_labels`.
    n : int, optional
        The number of objects of the matrix, for the header rule (``n + 1``
        lines: the first is a header when its value is no class).
    argument : str, default="labels"
        Argument name the errors carry.

    Returns
    -------
    y : ndarray of shape (m,)
        The labels (int64, float64 or str, :func:`typed_labels`).
    names : list of str or None
        The objects' names of a ``name,label`` table, else None.
    header : str or None
        The header line skipped, if any.

    Raises
    ------
    InvalidArgument
        Naming ``argument``: any error of :func:`krein.datasets.read_labels`;
        a table of another shape than one or two columns; rows of different
        lengths.
    """
    file, _, shown = resolve_path(path, argument)
    suffix = file.suffix.lower()
    if suffix in (".npy", ".npz", ".mat"):
        return read_labels(path, argument=argument), None, None
    text = _read_text(file, shown, argument)
    all_lines = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)]
    while all_lines and not all_lines[-1][1]:
        all_lines.pop()
    if not all_lines:
        raise file_error(argument, shown, "holds no labels (an empty file)")
    for number, line in all_lines:
        if not line:
            raise file_error(argument, shown, f"line {number} is empty (one label per line; only "
                                              "trailing empty lines are ignored)")
    lines = [(i, s) for i, s in all_lines if not s.startswith("#")]
    sep = "," if suffix == ".csv" and _separator(lines[0][1]) is None else _separator(
        lines[0][1])
    rows = _fields(lines, sep)
    numbers = [i for i, _ in lines]
    if sep is None:
        widths = {len(r) for r in rows}
        if len(rows) == 1:  # one line: the labels side by side
            return typed_labels(rows[0], shown, argument), None, None
        split = (len(widths) == 1 and widths != {1}
                 and len({r[0] for r in rows[1:]}) == len(rows) - 1) or (
            len(widths) == 2 and len(rows[0]) == min(widths) and len({len(r) for r in rows[1:]})
            == 1 and len({r[0] for r in rows[1:]}) == len(rows) - 1)
        if not split:
            rows = [[_unquote(s)] for _, s in lines]
    elif len(rows) == 1:
        return typed_labels(rows[0], shown, argument), None, None
    header_row = None
    first, rest = rows[0], rows[1:]
    widths = {len(r) for r in rest} or {len(first)}
    if len(widths) != 1:
        w = sorted(widths)
        raise file_error(argument, shown, f"rows of {w[0]} and {w[-1]} fields; expected one label "
                                          "per line or a name,label table")
    width = widths.pop()
    if len(first) == width - 1 or (len(first) == width and first[0] == "" and width > 1):
        header_row, rows, numbers = first, rest, numbers[1:]  # R: row names under no corner
        if width == 3:
            rows = [r[1:] for r in rows]
            header_row = header_row[-2:]
            width = 2
    elif len(first) != width:
        raise file_error(argument, shown, f"line {numbers[0]} has {len(first)} fields but the "
                                          f"others have {width}")
    if width > 2:
        raise file_error(argument, shown, f"holds a table of {len(rows)} rows and {width} "
                                          "columns; expected one label per line (a column), one "
                                          "row of labels, or two columns name,label")
    labels = [r[-1] for r in rows]
    names = [r[0] for r in rows] if width == 2 else None
    if header_row is None and len(rows) > 1:
        first_names = names[0].lower() if names is not None else None
        if _is_header_label(labels[0], set(labels[1:]), len(rows), n) or (
                first_names is not None and first_names in NAME_WORDS
                and names[0] not in names[1:]):
            header_row = rows[0]
            labels, rows, numbers = labels[1:], rows[1:], numbers[1:]
            names = names[1:] if names is not None else None
    y = typed_labels(labels, shown, argument, numbers)
    header = None if header_row is None else ",".join(header_row)
    return y, names, header


def _unquote(s):
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        return s[1:-1].replace(s[0] * 2, s[0]).strip()
    return s


# ---------------------------------------------------------------------------- edge lists
def read_edge_list(path, *, columns=(1, 2, 3), argument="kernel_file"):
    """Read scored pairs ``name_a name_b score``, one per line.

    Parameters
    ----------
    path : str or os.PathLike
        A text file (any extension); fields separated by the first of ``,``
        ``;`` TAB found in the first data line, else by whitespace.
    columns : tuple of 3 int, default=(1, 2, 3)
        The columns (counted from 1) of the first name, the second name and
        the score (BLAST ``-outfmt 6`` bitscore: ``(1, 2, 12)``).
    argument : str, default="kernel_file"
        Argument name the errors carry.

    Returns
    -------
    a, b : list of str
        The two names of each pair.
    scores : ndarray of shape (n_pairs,)
        The scores.
    header : str or None
        A header line skipped (a first line whose score is not a number).

    Raises
    ------
    InvalidArgument
        Naming ``argument``: an empty file, a line with too few fields, a
        score that is not a finite number (line and column).
    """
    file, _, shown = resolve_path(path, argument)
    if file.suffix.lower() in (".npy", ".npz", ".mat"):
        raise file_error(argument, shown, "an edge list is a text file of lines name_a name_b "
                                          "score")
    lines = _data_lines(_read_text(file, shown, argument))
    if not lines:
        raise file_error(argument, shown, "holds no pairs (an empty file)")
    rows = _fields(lines, _separator(lines[0][1]))
    ia, ib, isc = (c - 1 for c in columns)
    need = max(ia, ib, isc) + 1
    header = None
    if len(rows) > 1 and len(rows[0]) >= need and not is_number(rows[0][isc]):
        header, rows, lines = ",".join(rows[0]), rows[1:], lines[1:]
    a, b, s = [], [], []
    for (number, _), r in zip(lines, rows):
        if len(r) < need:
            raise file_error(argument, shown, f"line {number} has {len(r)} fields; the edge "
                                              f"columns {','.join(str(c) for c in columns)} need "
                                              f"{need} (--edge-columns chooses them)")
        v = r[isc]
        try:
            x = float(v)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            raise file_error(argument, shown, f"line {number}, column {isc + 1}: the score "
                                              f"{v!r} is not a finite number (--edge-columns "
                                              "chooses the score's column)")
        a.append(r[ia])
        b.append(r[ib])
        s.append(x)
    return a, b, np.array(s, dtype=float), header


def looks_like_edge_list(path):
    """Whether a text file looks like an edge list (module docstring, "Edge lists").

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    bool
        True when the first two data lines hold as many fields, at least 3,
        their first two fields are not numbers (the first not empty: a named
        matrix's corner), and the second line's third field is a number.
    """
    try:
        file, _, _ = resolve_path(path, "kernel_file")
    except ValueError:
        return False
    if file.suffix.lower() in (".npy", ".npz", ".mat"):
        return False
    head = _head_lines(file)
    if not head or len(head) < 2:
        return False
    rows = _fields(head, _separator(head[0][1]))
    if rows[0] and rows[0][0] == "":  # the empty corner of a named matrix
        return False
    return all(len(r) >= 3 and not is_number(r[0]) and not is_number(r[1]) for r in rows) \
        and is_number(rows[1][2]) and len(rows[0]) == len(rows[1])
