"""The directory of a comparison: claimed by one run, checked before a resume, cleared.

One run per directory: the run holds ``fcntl.flock`` on ``DIR/.lock``
(:func:`krein.experiment.store.lock_directory`) from before its first write
to its last.  :func:`check_out` refuses, before anything is written, a
directory that holds an earlier comparison (unless ``force`` or ``resume``) or
that a live run holds; :func:`claim_out` takes the lock and checks again under
it, clears the directory with ``force``, matches it against the run with
``resume`` and records which comparison it holds (``args.json``: the
fingerprint of the cells' keys).  With a stem (``fresh``), the run creates the
first free one of ``stem``, ``stem-2``... with ``os.mkdir`` (atomic), so runs
started together never share one.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import sys

from .._io import atomic_write_text
from .._validation import InvalidArgument
from .comparison_files import ARGS_FILE, CELLS_DIR, OUTPUT_FILES
from .store import LOCK_FILE, RESULTS_FILE, DirectoryInUse, lock_directory, lock_holder

__all__ = ["new_run_directory", "check_out", "claim_out", "grid_fingerprint"]

#: Entries of a directory that hold no comparison (a new directory, claimed and locked).
_EMPTY_ENTRIES = {LOCK_FILE}


def _holds_nothing(path):
    try:
        return set(os.listdir(path)) <= _EMPTY_ENTRIES
    except OSError:
        return False


def new_run_directory(name, root="krein-results"):
    """The name a new run would get: ``root/name``, ``root/name-2``... (nothing created).

    Only a guess: :func:`krein.compare.run_comparison` with ``fresh=True``
    claims the directory itself, atomically (two runs started together never
    share one).

    Parameters
    ----------
    name : str
        The data set's name.
    root : str or path-like
        Parent directory.

    Returns
    -------
    str
        The first of ``root/name``, ``root/name-2``, ``root/name-3``, ... that
        does not exist or is an empty directory (not created here).
    """
    root = os.fspath(root)
    i = 1
    while True:
        path = os.path.join(root, name if i == 1 else f"{name}-{i}")
        if not os.path.exists(path) or (os.path.isdir(path) and _holds_nothing(path)):
            return path
        i += 1


def _claim_new_directory(stem):
    """Create and lock the first free one of ``stem``, ``stem-2``, ``stem-3``...

    ``os.mkdir`` is atomic: of two runs trying the same name one gets
    ``FileExistsError`` and goes on to the next name.  An existing directory
    that holds nothing (or only an unheld lock file) is taken when its lock can be
    taken and it still holds nothing under the lock.
    """
    root, name = os.path.split(os.fspath(stem))
    if root:
        os.makedirs(root, exist_ok=True)
    i = 1
    while True:
        path = os.path.join(root, name if i == 1 else f"{name}-{i}")
        i += 1
        try:
            os.mkdir(path)
        except FileExistsError:
            if not (os.path.isdir(path) and _holds_nothing(path)):
                continue
        try:
            lock = lock_directory(path)
        except DirectoryInUse:  # another run created or took it first
            continue
        if _holds_nothing(path):
            return path, lock
        lock.close()


def _found_outputs(out):
    return [f for f in OUTPUT_FILES if os.path.exists(os.path.join(out, f))]


def _refuse_earlier(out, found):
    raise InvalidArgument("out", f"{out} already holds a comparison ({', '.join(found[:3])}"
                                 f"{', ...' if len(found) > 3 else ''}); pass --force "
                                 "(force=True) to replace it, --resume (resume=True) to "
                                 "finish it, or choose another directory")


def check_out(out, force, resume=False):
    """Refuse a directory that holds an earlier comparison (unless ``force`` or ``resume``),
    or one another run holds; nothing written.

    Parameters
    ----------
    out : str or path-like or None
        The output directory (None: nothing is written, nothing checked).
    force : bool
        Replacing an earlier comparison is allowed.
    resume : bool
        Finishing an earlier comparison is allowed.

    Returns
    -------
    str or None
        ``out`` as a string.

    Raises
    ------
    InvalidArgument
        (``"out"``) A file, a directory holding a comparison, or one a live run holds.
    """
    if out is None:
        return None
    out = os.fspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise InvalidArgument("out", f"{out} is a file, not a directory")
    if os.path.isdir(out):
        found = _found_outputs(out)
        if found and not (force or resume):
            _refuse_earlier(out, found)
        held = lock_holder(out)
        if held is not None:
            raise InvalidArgument("out", str(held))
    return out


def grid_fingerprint(experiment):
    """What makes two comparisons the same: the SHA-256 of their cells' keys (each key the
    hash of a cell's data, kernel, method, grid, folds and seed).

    Parameters
    ----------
    experiment : krein.experiment.Experiment
        The comparison's cells.

    Returns
    -------
    fingerprint : str
        16 hex digits.
    keys : list of str
        The cells' keys, sorted.
    """
    keys = sorted(c.key for c in experiment.cells)
    return hashlib.sha256(",".join(keys).encode()).hexdigest()[:16], keys


def _check_resume(out, experiment):
    """Refuse to resume a directory written by another comparison; the number of cells reused."""
    fingerprint, keys = grid_fingerprint(experiment)
    args_path = os.path.join(out, ARGS_FILE)
    if os.path.exists(args_path):
        try:
            with open(args_path, encoding="utf-8") as f:
                stored = json.load(f).get("grid")
        except (OSError, ValueError, AttributeError):
            stored = None
        if stored != fingerprint:
            raise InvalidArgument("resume", f"{out} holds another comparison (other data, kernel, "
                                            "methods, folds, grid or seed: its args.json does not "
                                            "match this run's arguments); rerun it with its own "
                                            "arguments, or use --force to replace it")
    results = os.path.join(out, CELLS_DIR, RESULTS_FILE)
    if not os.path.exists(results):
        return 0
    try:
        with open(results, newline="", encoding="utf-8") as f:
            done = {row.get("key") for row in csv.DictReader(f)}
    except (OSError, ValueError, csv.Error) as exc:
        raise InvalidArgument("resume", f"{results} cannot be read ({exc})") from None
    if not done <= set(keys):
        raise InvalidArgument("resume", f"{out} holds cells of another comparison (other data, "
                                        "kernel, methods, folds, grid or seed); rerun it with its "
                                        "own arguments, or use --force to replace it")
    return len(done)


def _clear_out(out):
    for f in OUTPUT_FILES:
        path = os.path.join(out, f)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)


def claim_out(out, force, resume, fresh, experiment, command):
    """Create (or take) the output directory and lock it for the run.

    Under the lock the directory is checked again (another run may have written
    it since :func:`check_out`), cleared with ``force``, matched against this
    run with ``resume``; ``args.json`` records which comparison it holds.

    Parameters
    ----------
    out : str
        The directory, or with ``fresh`` the stem of a new one.
    force, resume : bool
        Replace, or finish, an earlier comparison in ``out``.
    fresh : bool
        Claim the first free one of ``out``, ``out-2``...
    experiment : krein.experiment.Experiment
        The comparison's cells (:func:`grid_fingerprint`).
    command : str or None
        The command line, recorded in ``args.json``.

    Returns
    -------
    directory : str
        The directory claimed.
    lock : file object
        Its held lock (``close()`` releases it).

    Raises
    ------
    InvalidArgument
        (``"out"``, ``"resume"``) The directory is held, holds an earlier or
        another comparison; nothing written.
    """
    if fresh:
        out, lock = _claim_new_directory(out)
        n_reused = 0
    else:
        if resume:  # another comparison's directory is refused before anything is written
            _check_resume(out, experiment)
        os.makedirs(out, exist_ok=True)
        try:
            lock = lock_directory(out)
        except DirectoryInUse as exc:
            raise InvalidArgument("out", str(exc)) from None
        try:
            found = _found_outputs(out)
            if found and not (force or resume):
                _refuse_earlier(out, found)
            n_reused = _check_resume(out, experiment) if resume else 0
            if force:
                _clear_out(out)
        except BaseException:
            lock.close()
            raise
    try:
        fingerprint, keys = grid_fingerprint(experiment)
        atomic_write_text(os.path.join(out, ARGS_FILE), json.dumps(
            {"experiment": experiment.name, "grid": fingerprint, "n_cells": len(keys),
             "command": command}, indent=1) + "\n")
        if resume:
            sys.stderr.write(f"resuming {out}: {n_reused} of {len(keys)} cells reused from "
                             f"{os.path.join(out, CELLS_DIR)}, {len(keys) - n_reused} to "
                             "compute\n")
    except BaseException:
        lock.close()
        raise
    return out, lock
