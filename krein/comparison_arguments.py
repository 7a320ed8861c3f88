"""The arguments of a comparison, checked one by one: what :class:`krein.compare.Comparison`
validates (methods, solver, counts, ``C``, ``--grid`` values), the data-set entry of its
cells (a catalogue name, or the user's files with their predefined test part), and the
run's name.  Each check raises :class:`krein._validation.InvalidArgument` naming the
argument and what it accepts (one line on the command line, exit status 2).
"""

from __future__ import annotations

import numbers
import os

import numpy as np

from ._validation import InvalidArgument
from .experiment import build_estimator
from .registry import list_methods

__all__ = ["run_name", "safe_name"]


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


# --------------------------------------------------------------------------- the declaration
def _check_methods(methods):
    registered = list(list_methods(task="classifier"))
    if methods is None:
        return tuple(list_methods(task="classifier", compare=True))
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    try:
        methods = list(methods)
    except TypeError:
        raise InvalidArgument("methods", f"must be a list of names; got {methods!r}") from None
    if not methods:
        raise InvalidArgument("methods", f"no method given; registered: {', '.join(registered)}")
    bad = [m for m in methods if m not in registered]
    if bad:
        raise InvalidArgument("methods", f"unknown method(s) {', '.join(map(repr, bad))}; "
                                         f"registered: {', '.join(registered)}")
    return tuple(dict.fromkeys(methods))


def _check_solver(solver, approximation=None):
    """The comparison's solver through the one resolution of the solver table."""
    from .solvers import resolve_comparison_solver

    try:
        return resolve_comparison_solver(solver, approximation)
    except ValueError as exc:
        raise InvalidArgument("solver", str(exc)) from None


def _check_count(name, value, low, what=""):
    if not _is_int(value) or value < low:
        raise InvalidArgument(name, f"must be an integer >= {low}{what}; got {value!r}")
    return int(value)


def _check_C(C):
    if C is None:
        return None
    ok = isinstance(C, numbers.Real) and not isinstance(C, bool) and np.isfinite(C) and C > 0
    if not ok:
        raise InvalidArgument("C", f"must be a positive finite number; got {C!r}")
    return float(C)


def _check_grid(grid, methods=()):
    """The ``grid`` overrides as ``{name: list}``, each value checked against the
    ``_parameter_constraints`` of every method of ``methods`` whose estimator has that
    parameter (scikit-learn's ``validate_parameter_constraints``); kernel parameters are
    checked in :func:`_check_kernel_grid` once the kernel is known."""
    from sklearn.utils._param_validation import (InvalidParameterError,
                                                 validate_parameter_constraints)

    if grid is None:
        return {}
    if not isinstance(grid, dict):
        raise InvalidArgument("grid", f"must be a dict parameter -> list of values; got {grid!r}")
    out = {}
    estimators = [build_estimator(m) for m in methods]
    for k, v in grid.items():
        if isinstance(v, (numbers.Real, str)) and not isinstance(v, bool):
            v = [v]
        if not isinstance(k, str) or not isinstance(v, (list, tuple)) or len(v) == 0:
            raise InvalidArgument("grid", f"entry {k!r} must be a non-empty list of values; got "
                                          f"{v!r}")
        for est in estimators:
            constraints = getattr(est, "_parameter_constraints", {})
            if k not in constraints:
                continue
            for value in v:
                try:
                    validate_parameter_constraints({k: constraints[k]}, {k: value},
                                                   type(est).__name__)
                except InvalidParameterError as exc:
                    raise InvalidArgument("grid", f"{k}={value!r} rejected: {exc}") from None
        out[k] = list(v)
    return out


def _test_files(kernel_file, data_file, test_kernel_file, test_labels, test_data_file):
    """The ``test_path``/``test_labels`` keys of a file entry: a user's predefined test part."""
    if test_kernel_file is not None and kernel_file is None:
        raise InvalidArgument("test_kernel_file", "is the test rows of a user's matrix: needs "
                                                  "kernel_file (and test_labels)")
    if test_data_file is not None and data_file is None:
        raise InvalidArgument("test_data_file", "is the test part of a user's feature file: "
                                                "needs data_file")
    if (test_labels is None) != (test_kernel_file is None):
        raise InvalidArgument("test_labels", "the test rows of a matrix (test_kernel_file) and "
                                             "their labels (test_labels) come together")
    path = test_kernel_file if test_kernel_file is not None else test_data_file
    if path is None:
        return {}
    out = {"test_path": os.path.abspath(os.fspath(path))}
    if test_labels is not None:
        out["test_labels"] = os.path.abspath(os.fspath(test_labels))
    return out


def _check_kernel_grid(data, kernel_over):
    """Each value of a kernel parameter's ``grid`` override: a finite number the kernel
    accepts (evaluated on two objects of the data)."""
    from .kernel_catalogue import check_kernel_params
    from .kernels import pairwise_kernel

    for k, values in kernel_over.items():
        for value in values:
            params = {**data.kernel_params, k: value}
            try:
                check_kernel_params(data.kernel, params)
                if data.X is not None and k not in ("metric", "scale"):
                    pairwise_kernel(data.kernel, data.X[:2], params=params)
            except (InvalidArgument, ValueError, TypeError) as exc:
                msg = getattr(exc, "message", None) or str(exc)
                raise InvalidArgument("grid", f"{k}={value!r} rejected by the kernel "
                                              f"{data.kernel!r}: {msg}") from None


def _data_entry(dataset, n_samples, binary, kernel_file, labels, dissimilarity, symmetrize,
                data_file, label_column, approximation=None, test_kernel_file=None,
                test_labels=None, test_data_file=None):
    """The data-set entry of the grid: a catalogue name or a user's file (and its test part)."""
    test = _test_files(kernel_file, data_file, test_kernel_file, test_labels, test_data_file)
    if kernel_file is not None and data_file is not None:
        raise InvalidArgument("kernel_file", "give a kernel/dissimilarity matrix (kernel_file) or "
                                             "a feature file (data_file), not both")
    if kernel_file is not None and approximation is not None:
        what = "a dissimilarity" if dissimilarity else "a kernel"
        raise InvalidArgument("approximation", f"the file holds {what} matrix, already n x n: "
                                               "only feature vectors (a vector or synthetic data "
                                               "set, a feature file) are approximated")
    if kernel_file is None and data_file is None:
        for name, v in (("labels", labels), ("label_column", label_column)):
            if v is not None:
                raise InvalidArgument(name, "is for a user's file (kernel_file or data_file)")
        if dissimilarity or symmetrize:
            raise InvalidArgument("dissimilarity" if dissimilarity else "symmetrize",
                                  "is for a user's matrix (kernel_file)")
        return {"dataset": dataset, "n_samples": n_samples, "binary": binary}
    if n_samples is not None or binary is not None:
        raise InvalidArgument("n_samples" if n_samples is not None else "binary",
                              "is for the bundled data sets, not a user's file")
    if kernel_file is not None:
        if labels is None:
            raise InvalidArgument("labels", "a kernel or dissimilarity matrix needs its labels "
                                            "(a file with one label per line)")
        if label_column is not None:
            raise InvalidArgument("label_column", "is for a feature file (data_file)")
        spec = {"kind": "dissimilarity" if dissimilarity else "kernel",
                "path": os.path.abspath(os.fspath(kernel_file)),
                "labels": os.path.abspath(os.fspath(labels)), "symmetrize": bool(symmetrize)}
    else:
        if labels is not None:
            raise InvalidArgument("labels", "a feature file holds its labels (use label_column)")
        if dissimilarity or symmetrize:
            raise InvalidArgument("dissimilarity" if dissimilarity else "symmetrize",
                                  "is for a matrix file (kernel_file), not a feature file")
        spec = {"kind": "features", "path": os.path.abspath(os.fspath(data_file)),
                "label_column": label_column}
    return {"dataset": run_name(dataset, kernel_file, data_file), "data_file": {**spec, **test}}


def run_name(dataset="sonar", kernel_file=None, data_file=None):
    """The name of a comparison's data: the data set, or the stem of the user's file.

    Parameters
    ----------
    dataset : str
        Bundled data set name (used without a file).
    kernel_file : str or path-like, optional
        The user's matrix file (``file.npz:key`` allowed).
    data_file : str or path-like, optional
        The user's feature file.

    Returns
    -------
    str
        ``"sonar"``, or ``"K"`` for ``/path/K.npy`` (and for ``K.npz:key``).
    """
    path = kernel_file if kernel_file is not None else data_file
    if path is None:
        return str(dataset)
    base = os.path.basename(os.fspath(path))
    head, sep, _ = base.rpartition(":")
    if sep and os.path.splitext(head)[1].lower() in (".npz", ".mat"):
        base = head  # "file.npz:key" names an array inside the file
    return safe_name(os.path.splitext(base)[0])


def safe_name(text):
    """A file's stem as a run name: ASCII letters, digits, ``-``, ``_``, ``.`` only.

    Accented letters lose their accent (``é`` -> ``e``, Unicode NFKD), every
    run of other characters (spaces, brackets, other scripts...) becomes one
    ``_``, leading dots and underscores are dropped (no hidden directory).

    Parameters
    ----------
    text : str
        Any text the operating system accepts as a file name.

    Returns
    -------
    str
        A non-empty name (``"data"`` when nothing is left), e.g. ``"my_kernel"``
        for ``"my kernel"``, ``"K_1"`` for ``"K (1)"``, ``"noyau_e"`` for ``"noyau_é"``.
    """
    import re
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_text).lstrip("._").rstrip("_")
    return name or "data"
