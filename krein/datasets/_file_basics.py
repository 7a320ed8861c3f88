"""What every reader of a researcher's file shares: its errors, its path, its text lines.

The readers of matrices and labels (:mod:`krein.datasets._files`) and of feature
tables (:mod:`krein.datasets._features`) build on these pieces:

* :func:`file_error`: the one-line :class:`~krein._validation.InvalidArgument`
  that starts with the path as given (module docstring of
  :mod:`krein.datasets._files`, "Errors");
* :func:`resolve_path`: the file to open, with the ``:key`` suffix that names one
  array of an ``.npz`` or ``.mat`` file split off at the last colon;
* :func:`data_lines`, :func:`first_data_line`, :func:`field_separator`: the lines
  of a text file that hold data (``#`` comments and blank lines dropped) and the
  separator its first data line shows;
* :func:`is_number`, :func:`typed_labels`: the int/float/str rule of text labels.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from .._validation import InvalidArgument

__all__ = ["TEXT_SUFFIXES", "KEYED_SUFFIXES", "file_error", "resolve_path", "data_lines",
           "first_data_line", "field_separator", "is_number", "typed_labels"]

#: Text formats of matrices, labels and feature tables.
TEXT_SUFFIXES = (".csv", ".txt", ".dat", ".tsv")
#: Formats whose path may end in ``:key`` (one array among several).
KEYED_SUFFIXES = (".npz", ".mat")


# ---------------------------------------------------------------------------- errors and paths
def file_error(argument, shown, what):
    """The error of a file: ``"<path>: <what>"`` on one line.

    Parameters
    ----------
    argument : str
        Name of the argument the file was given as (e.g. ``"kernel_file"``).
    shown : str
        The path as given.
    what : str
        What is wrong (line breaks and the whitespace around them become one space).

    Returns
    -------
    InvalidArgument
        Naming ``argument``, with the one-line message (to be raised).
    """
    message = re.sub(r"\s*[\r\n]+\s*", " ", f"{shown}: {what}").strip()
    return InvalidArgument(argument, message)


def resolve_path(path, argument):
    """The file to open, the ``:key`` that names an array in it, and the path as given.

    A ``:key`` suffix is split off at the LAST colon, and only when the part before
    it is an existing ``.npz`` or ``.mat`` file (so ``C:\\data\\K.npy`` stays one
    path).

    Parameters
    ----------
    path : str or os.PathLike
        The file, optionally followed by ``:key``.
    argument : str
        Name of the argument the errors carry.

    Returns
    -------
    file : pathlib.Path
        The existing, readable regular file.
    key : str or None
        The ``:key`` suffix, or None.
    shown : str
        The path as given (for the messages).

    Raises
    ------
    InvalidArgument
        Naming ``argument``: not a path, an empty path, nothing after the ``:``, a
        ``:key`` on a file that is not ``.npz``/``.mat``, no such file, a directory,
        not a regular file, or a file that cannot be read.
    """
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
                raise file_error(argument, shown, "nothing after the ':'; name an array, as in "
                                                  f"{head}:NAME")
            file, key = hp, tail
        elif hp.is_file():
            raise file_error(argument, shown, f"no such file; a ':key' suffix names an array "
                                              f"only in .npz and .mat files, and {head} is not "
                                              "one")
        elif hp.suffix.lower() in KEYED_SUFFIXES:
            raise file_error(argument, shown, f"no such file ({head} does not exist either)")
    if file.is_dir():
        raise file_error(argument, shown, "is a directory, not a file")
    if not file.exists():
        raise file_error(argument, shown, "no such file")
    if not file.is_file():
        raise file_error(argument, shown, "is not a regular file")
    if not os.access(file, os.R_OK):
        raise file_error(argument, shown, "cannot be read (permission denied)")
    return file, key, shown


# ---------------------------------------------------------------------------- text lines
def data_lines(file, shown, argument):
    """The lines of a text file that hold data: ``#`` comments and blank lines dropped.

    Parameters
    ----------
    file : pathlib.Path
        The file (read as UTF-8, a byte-order mark skipped).
    shown : str
        The path as given (for the messages).
    argument : str
        Name of the argument the errors carry.

    Returns
    -------
    list of (int, str)
        ``(line number counted from 1, content)``: the text before any ``#``,
        stripped, of every line where it is not empty.

    Raises
    ------
    InvalidArgument
        Naming ``argument``: a file that is not UTF-8 text or cannot be read.
    """
    return list(_iter_data_lines(file, shown, argument))


def _iter_data_lines(file, shown, argument):
    """``(number, content)`` of the data lines of a text file, read lazily (:func:`data_lines`)."""
    try:
        with open(file, encoding="utf-8-sig") as f:
            for number, line in enumerate(f, 1):
                content = line.split("#", 1)[0].strip()
                if content:
                    yield number, content
    except UnicodeDecodeError:
        raise file_error(argument, shown, "is not a text file (cannot be decoded as "
                                          "UTF-8)") from None
    except OSError as exc:
        raise file_error(argument, shown, f"cannot be read ({exc.strerror or exc})") from None


def first_data_line(file, shown, argument):
    """The content of the first line of a text file that holds data (:func:`data_lines`).

    Parameters
    ----------
    file : pathlib.Path
        The file (read as UTF-8, a byte-order mark skipped).
    shown : str
        The path as given (for the messages).
    argument : str
        Name of the argument the errors carry.

    Returns
    -------
    str or None
        The text before any ``#``, stripped, of the first line where it is not
        empty; None when no line holds data.

    Raises
    ------
    InvalidArgument
        Naming ``argument``: a file that is not UTF-8 text or cannot be read.
    """
    return next((content for _, content in _iter_data_lines(file, shown, argument)), None)


def field_separator(line):
    """The field separator of a text table, from its first data line.

    Parameters
    ----------
    line : str or None
        The first data line (:func:`first_data_line`).

    Returns
    -------
    str or None
        ``","`` when the line holds a comma, else ``";"`` when it holds a
        semicolon, else None (fields separated by whitespace).
    """
    if line is not None:
        for sep in (",", ";"):
            if sep in line:
                return sep
    return None


# ---------------------------------------------------------------------------- text values
def is_number(s):
    """Whether a text is a number (``float`` reads it; ``nan`` and ``inf`` included).

    Parameters
    ----------
    s : str
        The text.

    Returns
    -------
    bool
        True when ``float(s)`` succeeds.
    """
    try:
        float(s)
    except ValueError:
        return False
    return True


def typed_labels(values, shown, argument, line_numbers=None):
    """Labels from texts: int64 when all are integers, float64 when all are numbers, else str.

    Parameters
    ----------
    values : list of str
        The labels as read, stripped.
    shown : str
        The path as given (for the messages).
    argument : str
        Name of the argument the errors carry.
    line_numbers : list of int, optional
        The line of each value, for the messages; without them a message names
        the entry (counted from 1).

    Returns
    -------
    ndarray of shape (len(values),)
        int64 when every value is an integer, float64 when every value is a
        finite number, else str.

    Raises
    ------
    InvalidArgument
        Naming ``argument``: an empty label, or numeric labels of which one is
        NaN or inf (with its line or entry).
    """
    where = (lambda i: f"line {line_numbers[i]}") if line_numbers is not None else (
        lambda i: f"entry {i + 1}")
    for i, v in enumerate(values):
        if v == "":
            raise file_error(argument, shown, f"{where(i)}: empty label")
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
        raise file_error(argument, shown, f"{where(bad[0])}: label {values[bad[0]]!r} is not a "
                                          "finite number")
    return y
