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

__all__ = ["is_int", "check_task", "COMPARE_TASKS", "check_methods", "check_solver",
           "check_count", "check_C", "check_grid", "check_kernel_grid", "data_set_entry",
           "run_name", "safe_name",
           "check_validation_fraction", "resolve_inner_folds",
           "INNER_FOLDS", "VALIDATION_SPLIT_ABOVE", "VALIDATION_FRACTION"]

#: Folds of the inner cross-validation of a comparison by default (below
#: :data:`VALIDATION_SPLIT_ABOVE` training objects).
INNER_FOLDS = 3

#: Above this many objects in an outer training part, a comparison's inner model
#: selection uses one stratified validation split instead of :data:`INNER_FOLDS`
#: folds (unless ``inner_folds`` is given): ``INNER_FOLDS`` times fewer fits, each on
#: 80 % of the training part instead of 67 %.
VALIDATION_SPLIT_ABOVE = 20_000

#: The validation part's share of the outer training part by default (``inner_folds=1``).
VALIDATION_FRACTION = 0.2


def is_int(v):
    """Whether ``v`` is an integer (a :class:`numbers.Integral`), ``True``/``False`` excluded.

    Parameters
    ----------
    v : object
        Any value.

    Returns
    -------
    bool
        True for ``3``, ``np.int64(3)``; False for ``True``, ``3.0``, ``"3"``.
    """
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


# --------------------------------------------------------------------------- the declaration
#: The tasks of ``krein compare`` and the registry task of the methods each one runs.
COMPARE_TASKS = {"classification": "classifier", "regression": "regressor",
                 "novelty": "outlier"}


def check_task(task):
    """The comparison's task, one of :data:`COMPARE_TASKS`.

    Parameters
    ----------
    task : str
        ``"classification"``, ``"regression"`` or ``"novelty"``.

    Returns
    -------
    str
        ``task``.

    Raises
    ------
    InvalidArgument
        ``task``: any other value.
    """
    if not isinstance(task, str) or task not in COMPARE_TASKS:
        raise InvalidArgument("task", f"must be one of {', '.join(COMPARE_TASKS)}; got {task!r}")
    return task


def check_methods(methods, task="classification"):
    """The comparison's methods: registered names of the task's kind, in the order given, once.

    Parameters
    ----------
    methods : list of str, str or None
        Names of :func:`krein.list_methods` (a string is split at commas);
        None: the methods of the task's kind (classifiers; regressors with
        ``task="regression"``; outlier detectors with ``task="novelty"``)
        registered with ``compare=True``.
    task : {"classification", "regression", "novelty"}, default "classification"
        The comparison's task (:data:`COMPARE_TASKS`).

    Returns
    -------
    tuple of str
        The names, duplicates dropped (first occurrence kept).

    Raises
    ------
    InvalidArgument
        ``methods``: not a list, empty, or an unregistered name (the message
        lists the registered methods of the task).
    """
    kind = COMPARE_TASKS[task]
    registered = list(list_methods(task=kind))
    if methods is None:
        return tuple(list_methods(task=kind, compare=True))
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
        other = [m for m in bad if m in list_methods()]
        word = {"outlier": "outlier detector"}.get(kind, kind)
        what = (f"not a{'n' if word[0] in 'aeiou' else ''} {word} "
                f"({', '.join(map(repr, other))}: --task {task} runs {word}s)" if other
                else f"unknown method(s) {', '.join(map(repr, bad))}")
        raise InvalidArgument("methods", f"{what}; registered: {', '.join(registered)}")
    return tuple(dict.fromkeys(methods))


def check_solver(solver, approximation=None):
    """The comparison's solver through the one resolution of the solver table.

    Parameters
    ----------
    solver : str or None
        ``"libsvm"``, an installed CVXPY solver, ``"liblinear"`` (with an
        approximation), or None (each method's default).
    approximation : str, optional
        The run's checked approximation (:func:`krein.kernel_data.check_approximation`).

    Returns
    -------
    str or None
        :func:`krein.solvers.resolve_comparison_solver` of the arguments.

    Raises
    ------
    InvalidArgument
        ``solver``: unknown, not installed, or not for this kind of run.
    """
    from .solvers import resolve_comparison_solver

    try:
        return resolve_comparison_solver(solver, approximation)
    except ValueError as exc:
        raise InvalidArgument("solver", str(exc)) from None


def check_count(name, value, low, what=""):
    """An integer argument with a lower bound (folds, repeats, seed).

    Parameters
    ----------
    name : str
        The argument's name (in the error).
    value : object
        The value given.
    low : int
        The least accepted value.
    what : str, default ""
        Words after the bound in the error (``" (number of folds)"``).

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    InvalidArgument
        ``name``: not an integer (:func:`is_int`) or below ``low``.
    """
    if not is_int(value) or value < low:
        raise InvalidArgument(name, f"must be an integer >= {low}{what}; got {value!r}")
    return int(value)


def check_validation_fraction(fraction):
    """The validation part's share of an outer training part (``inner_folds=1``).

    Parameters
    ----------
    fraction : float
        The value given.

    Returns
    -------
    float
        ``fraction`` as a Python float.

    Raises
    ------
    InvalidArgument
        ``validation_fraction``: not a number strictly between 0 and 1.
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) \
            or not 0 < fraction < 1:
        raise InvalidArgument("validation_fraction", f"must be a number in (0, 1), e.g. 0.2; "
                                                     f"got {fraction!r}")
    return float(fraction)


def resolve_inner_folds(inner_folds, n_train, tune=True):
    """The inner folds a comparison runs: as given, or by the size of its training parts.

    Parameters
    ----------
    inner_folds : int >= 1 or None
        As given: ``k >= 2`` folds, ``1`` (one stratified validation split), or
        None: :data:`INNER_FOLDS`, or ``1`` when the outer training parts hold
        more than :data:`VALIDATION_SPLIT_ABOVE` objects and the parameters are
        tuned.
    n_train : int
        Objects of an outer training part: ``n - ceil(n / k)`` for ``k`` outer
        folds of ``n`` objects (a stratified fold's part, to within the classes'
        rounding, the same for every fold), the training part of a predefined split.
    tune : bool, default True
        Whether parameters are tuned (without tuning nothing is split: None
        gives :data:`INNER_FOLDS`, and the cells stay those of the small-n
        protocol).

    Returns
    -------
    int
        The ``inner_folds`` of the comparison's cells (1: a validation split).
    """
    if inner_folds is not None:
        return int(inner_folds)
    return 1 if tune and n_train > VALIDATION_SPLIT_ABOVE else INNER_FOLDS


def check_C(C):
    """A fixed box bound / slack weight ``C``, or None (tuned).

    Parameters
    ----------
    C : float or None
        The value given.

    Returns
    -------
    float or None
        ``C`` as a float; None for None.

    Raises
    ------
    InvalidArgument
        ``C``: not a positive finite real number.
    """
    if C is None:
        return None
    ok = isinstance(C, numbers.Real) and not isinstance(C, bool) and np.isfinite(C) and C > 0
    if not ok:
        raise InvalidArgument("C", f"must be a positive finite number; got {C!r}")
    return float(C)


def check_grid(grid, methods=()):
    """The ``grid`` overrides as ``{name: list}``, each value checked against the estimators.

    Each value is checked against the ``_parameter_constraints`` of every
    method of ``methods`` whose estimator has that parameter (scikit-learn's
    ``validate_parameter_constraints``); kernel parameters are checked by
    :func:`check_kernel_grid` once the kernel is known.

    Parameters
    ----------
    grid : dict or None
        ``{parameter: list of values}`` (a single number or string counts as
        a list of one).
    methods : sequence of str, default ()
        The comparison's methods (:func:`check_methods`).

    Returns
    -------
    dict
        ``{parameter: list}``; ``{}`` for None.

    Raises
    ------
    InvalidArgument
        ``grid``: not a dict, an entry that is not a non-empty list, or a
        value an estimator's constraints reject.
    """
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


def check_kernel_grid(data, kernel_over):
    """Check each value of a kernel parameter's ``grid`` override against the kernel.

    A value passes when :func:`krein.kernel_catalogue.check_kernel_params`
    accepts it and, on feature data, the kernel evaluates on two objects of
    the data with it.

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The comparison's data and kernel.
    kernel_over : dict
        ``{kernel parameter: list of values}``, the kernel part of ``grid``.

    Raises
    ------
    InvalidArgument
        ``grid``: a value the kernel rejects (the kernel's message).
    """
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


#: The options of a matrix file as researchers write it (:func:`data_set_entry`): their
#: defaults, left out of a cell's ``data_file`` entry (the keys of other files stay as
#: they were).
MATRIX_FORMAT_DEFAULTS = {"names": None, "edge_list": None, "edge_columns": None,
                          "missing": None}


def _matrix_format(options, kernel_file, landmarks):
    """The ``data_file`` keys of a matrix's format options (names, edge list), checked."""
    from .datasets._user_files import check_edge_columns, check_missing, check_names_layout

    given = {k: v for k, v in (options or {}).items() if v is not None}
    unknown = sorted(set(given) - set(MATRIX_FORMAT_DEFAULTS))
    if unknown:
        raise TypeError(f"unknown matrix format option(s) {unknown}")
    if not given:
        return {}
    first = next(iter(given))
    if kernel_file is None:
        raise InvalidArgument(first, "is for a user's matrix file (kernel_file)")
    if landmarks is not None:
        raise InvalidArgument(first, "is for an n x n matrix file, not landmark columns")
    out = {}
    if "names" in given:
        out["names"] = check_names_layout(given["names"])
    if "edge_list" in given:
        from .datasets._user_files import check_flag

        out["edge_list"] = check_flag(given["edge_list"], "edge_list")
    if "edge_columns" in given:
        out["edge_columns"] = list(check_edge_columns(given["edge_columns"]))
    if "missing" in given:
        out["missing"] = check_missing(given["missing"])
    if out.get("edge_list") and out.get("names") not in (None, "auto"):
        raise InvalidArgument("names", "an edge list names its objects in its name columns; "
                                       "names applies to matrices")
    return out


def data_set_entry(dataset, n_samples, binary, kernel_file, labels, dissimilarity, symmetrize,
                   data_file, label_column, approximation=None, test_kernel_file=None,
                   test_labels=None, test_data_file=None, landmarks=None, *,
                   matrix_format=None):
    """The data-set entry of a comparison's cells: a catalogue name or a user's file.

    Parameters
    ----------
    dataset : str
        The bundled data set (without a file).
    n_samples, binary : optional
        Subsample size and binary task of a bundled data set.
    kernel_file, labels : str or path-like, optional
        The user's matrix and its labels.
    dissimilarity, symmetrize : bool
        ``kernel_file`` holds dissimilarities; accept an asymmetric one.
    data_file, label_column : optional
        The user's feature file and its label column.
    approximation : str, optional
        The checked approximation (feature vectors only).
    test_kernel_file, test_labels, test_data_file : str or path-like, optional
        The predefined test part of the user's file.
    landmarks : str or path-like, optional
        The landmarks' row indices of landmark columns in ``kernel_file``
        (:func:`krein.kernel_data.load_landmark_file`).
    matrix_format : dict, optional
        ``names``, ``edge_list``, ``edge_columns``, ``missing`` of
        :func:`krein.kernel_data.load_kernel_file` (None values left out).

    Returns
    -------
    dict
        ``{"dataset", "n_samples", "binary"}`` for a bundled set;
        ``{"dataset": run_name(...), "data_file": {...}}`` for a file
        (:func:`krein.experiment.classification.check_data_file`: ``kind``,
        absolute ``path``, ``labels`` or ``label_column``, ``symmetrize``, and
        ``test_path``/``test_labels`` of a test part, ``landmarks`` of landmark
        columns).

    Raises
    ------
    InvalidArgument
        An argument that does not go with the others (a kernel file and a
        feature file, labels without a file, a matrix file to approximate, a
        test part without its file...).
    """
    test = _test_files(kernel_file, data_file, test_kernel_file, test_labels, test_data_file)
    fmt = _matrix_format(matrix_format, kernel_file, landmarks)
    if kernel_file is not None and data_file is not None:
        raise InvalidArgument("kernel_file", "give a kernel/dissimilarity matrix (kernel_file) or "
                                             "a feature file (data_file), not both")
    if landmarks is not None:
        if kernel_file is None:
            raise InvalidArgument("landmarks", "are the landmark rows of landmark columns in a "
                                               "matrix file (kernel_file)")
        if approximation is not None:
            raise InvalidArgument("approximation", "landmark columns (landmarks) are their own "
                                                   "approximation: leave out approximation")
    if kernel_file is not None and approximation is not None:
        what = "a dissimilarity" if dissimilarity else "a kernel"
        raise InvalidArgument("approximation", f"the file holds {what} matrix, already n x n: "
                                               "only feature vectors (a vector or synthetic data "
                                               "set, a feature file) are approximated; for a "
                                               "matrix too large, give its n x m columns to m "
                                               "landmark objects with landmarks (--landmarks)")
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
        from .datasets._user_files import check_symmetrize

        rule = check_symmetrize(symmetrize)
        spec = {"kind": "dissimilarity" if dissimilarity else "kernel",
                "path": os.path.abspath(os.fspath(kernel_file)),
                "labels": os.path.abspath(os.fspath(labels)),
                "symmetrize": rule if rule in ("max", "min") else rule is not None, **fmt}
        if landmarks is not None:
            spec["landmarks"] = os.path.abspath(os.fspath(landmarks))
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
