"""Experiments: declared grids of cells, resumable tidy results, joblib or Dask, tables, figures.

An **experiment** is a grid of *cells* (configurations: plain dicts of JSON
values) and a *cell function* ``cell(params) -> dict`` that computes one cell.
:func:`run_experiment` runs every cell not yet in the results file, in the
parent process, in parallel with joblib, or on a Dask cluster, and writes each
finished cell at once (atomically) to ``DIR/results.csv``; the table and the
figures are made from that file only (:func:`results_table`,
:func:`plot_results`).  On the command line::

    krein experiment run experiments/loosli_table2.py [--quick] [--n-jobs N]
                                                      [--dask ADDRESS] [--out DIR]
    krein experiment table results/loosli_table2 [--format markdown|latex|csv]
    krein experiment plot results/loosli_table2 [--out figures]

Declaring an experiment
-----------------------
A script ``experiments/NAME.py`` defines ``experiment(quick=False) ->
Experiment`` (``quick=True`` shrinks every grid so the script runs in seconds),
or the constants ``EXPERIMENT`` and ``QUICK_EXPERIMENT``::

    from krein.experiment import Experiment, classification_grid

    def experiment(quick=False):
        grid = classification_grid(
            datasets=["sonar", "heart"],
            kernels=[{"kernel": "sigmoid"}],
            methods=["esvm", {"method": "indefinite-svm",
                              "grid": {"C": [0.1, 1, 10], "rho": [0.1, 1, 10]}}],
            param_grid={"C": [0.1, 1, 10]},          # inner CV grid of every method
            folds=2 if quick else 5, repeats=1 if quick else 10)
        return Experiment("sonar_heart", grid, seed=0)

Any other task is a cell function and a grid, e.g. with :func:`cartesian`::

    def solve_one(params):                # runs in a worker: import inside if heavy
        ...
        return {"status_solver": sol.status, "objective": sol.objective,
                "solve_seconds": sol.solve_time, "trace": trace_dataframe}

    EXPERIMENT = Experiment("solvers", cartesian(formulation=["svm-dual", "lp-svm"],
                                                  solver=["CLARABEL", "SCS"], n=[50, 100]),
                            cell=solve_one)

The cell function
-----------------
``cell(params)`` receives a deep copy of the cell's parameters plus ``"seed"``
(the experiment's seed) and returns a flat dict: metric name -> None, bool,
int, float or str (lists, dicts and arrays are stored as JSON text).  The
optional key ``"trace"`` holds a :class:`pandas.DataFrame` written to
``DIR/traces/KEY.csv`` (e.g. objective and gap per iteration).  Timing metrics
must end in ``seconds`` (comparisons of runs ignore them, see
:func:`volatile_columns`).  Names may not repeat a parameter or a runner column
(:data:`krein._results.META_COLUMNS`, :data:`krein._results.PROVENANCE_COLUMNS`).
An exception makes the cell a row with ``status="error"`` and the error text;
the grid goes on.  Random numbers come from :func:`cell_seed` (derived from
the experiment's seed and chosen parameters), never from global state, so a
rerun, another process or another machine gives the same numbers.  The
function must be picklable for joblib and Dask: functions of an experiment
script loaded by :func:`load_experiment` are sent by value.

Results that are never lost
---------------------------
Every row carries the cell's key, the SHA-256 of its canonical configuration
(task name and parameters, seed included; :func:`krein._results.cell_key`).  A
rerun skips the keys already in the file (``retry_errors=True`` recomputes the
error rows), so a run killed at any moment, even by SIGKILL, resumes where it
stopped without recomputing a finished cell.  The file is rewritten whole,
atomically (temporary file, ``fsync``, ``os.replace``), by the parent process
only: it is always a complete, parseable table (the module docstring of
:mod:`krein._results` explains why not an append).  A lock file keeps a
second run off the same directory.

Parallel runs
-------------
``n_jobs != 1`` runs cells with joblib (``return_as="generator_unordered"``;
the parent writes each result as it arrives); ``backend="dask"`` with a
scheduler address (or a ``dask.distributed.Client``) submits them to a Dask
cluster (``Client.submit``, ``as_completed``).  Every random number depends
only on the cell's configuration and the rows are stored in grid order, so the
results are identical to the serial run's except for the
:func:`volatile_columns` (timings, host, pid, timestamp, versions).  Warnings
are recorded per cell with :func:`warnings.catch_warnings`, which is
process-global: in a threaded worker (Dask ``processes=False`` with several
threads) a warning may land in a neighbouring cell's ``warnings`` column.

The classification task (Loosli et al. 2013 §6.3, Luss & d'Aspremont 2009 §5.1)
---------------------------------------------------------------------------------
:func:`classification_cell` is one outer fold of a repeated stratified K-fold
cross-validation with model selection inside: inner stratified K-fold CV on
the outer training split over the experiment's grid of method parameters
(``C``, ``rho``, ...) and kernel parameters, refit with the best ones on the
whole outer training split, score on the outer test split.  Luss &
d'Aspremont select ``C``, ``rho`` and the kernel inputs by five-fold CV on the
training data "using an average of the accuracy and recall" (``scoring =
"average"``), then "train a model with the full training set and optimal
parameters and test on the independent test set"; Loosli et al. report 5-fold
CV accuracies, mean (std) over 10 runs, ``C`` found by cross-validation
(Table 3).  Metrics: accuracy, recall and their average (luss Table 2),
sensitivity and specificity (munoz §4), fit/predict/selection seconds,
support vectors, least eigenvalue, ``r_mm`` and ``r_neg`` of the training
kernel block, and the solver, its version and status.  Data and kernels come
from :func:`krein.compare.load_kernel_data`, with its per-fold rules
(dissimilarity-linear centering, label-dependent pick-out kernels, stacked
base kernels) applied to the inner splits too.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import importlib.util
import json
import numbers
import os
import platform
import re
import secrets
import socket
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._report import (TABLE_FORMATS, format_frame, plot_accuracy, plot_accuracy_vs_eigenvalue,
                      plot_convergence, plot_results, plot_time_vs_n, read_results,
                      results_table, save_png, summarize, volatile_columns)
from ._results import (META_COLUMNS, PROVENANCE_COLUMNS, RESULTS_FILE, VERSION_PACKAGES,
                       ResultsStore, atomic_write_bytes, canonical_json, cell_key,
                       flatten_params)

__all__ = [
    "Experiment",
    "Cell",
    "RunReport",
    "cartesian",
    "cell_seed",
    "classification_grid",
    "classification_cell",
    "classification_metrics",
    "solver_version",
    "run_experiment",
    "load_experiment",
    "import_script",
    "read_results",
    "results_table",
    "summarize",
    "plot_results",
    "plot_accuracy",
    "plot_accuracy_vs_eigenvalue",
    "plot_time_vs_n",
    "plot_convergence",
    "save_png",
    "volatile_columns",
    "format_frame",
    "make_table",
    "make_figures",
    "default_directory",
    "read_sidecar",
    "CLASSIFICATION_DEFAULTS",
    "SCORINGS",
    "TABLE_FORMATS",
    "BACKENDS",
]

#: Execution backends of :func:`run_experiment`.
BACKENDS = ("serial", "joblib", "dask")


# --------------------------------------------------------------------------- declaration
@dataclass(frozen=True)
class Cell:
    """One cell of an experiment.

    Attributes
    ----------
    key : str
        16 hex digits, the hash of ``config``.
    params : dict
        The parameters the cell function receives (the experiment's ``seed`` included).
    config : str
        Canonical JSON of ``{"params": params, "task": task}``.
    """

    key: str
    params: dict
    config: str


@dataclass(frozen=True)
class Experiment:
    """A declared experiment: a grid of cell configurations and the function computing a cell.

    Parameters
    ----------
    name : str
        Short name (letters, digits, ``-``, ``_``, ``.``); the default results
        directory is ``results/NAME`` (``results/NAME-quick`` for a quick run).
    grid : sequence of dict
        One dict of parameters per cell (JSON values: None, bool, int, float,
        str, lists and dicts of them; NumPy scalars are converted).  Build it
        with :func:`cartesian`, :func:`classification_grid` or by hand; lists
        of grids concatenate with ``+``.  The key ``"seed"`` is reserved.
    cell : callable, default :func:`classification_cell`
        ``cell(params) -> dict`` (module docstring, "The cell function").
    seed : int >= 0
        The one seed every random choice is derived from (:func:`cell_seed`);
        part of every cell's configuration.
    task : str, optional
        Name of the task in the keys; default the cell function's ``__name__``.
        Two experiments with the same task and cell parameters share keys.
    description : str
        One line shown by the command line.
    table : dict or callable, optional
        Default table: keyword arguments of :func:`results_table` (``value``,
        ``rows``, ``columns``, ...), or ``table(results) -> DataFrame`` making
        the table itself from the results DataFrame.
    figures : callable, optional
        ``figures(results, out_dir) -> list of paths``: figures besides the
        standard ones of :func:`plot_results`.
    script : str, optional
        Path of the script that declared it (set by :func:`load_experiment`).
    quick : bool
        Whether this is the ``--quick`` variant (set by :func:`load_experiment`).

    Attributes
    ----------
    cells : list of Cell
        Keys and parameters, in grid order.

    Raises
    ------
    ValueError
        Bad name, empty grid, a non-dict cell, a value that is not JSON, the
        reserved ``seed`` key, two cells with the same configuration, bad seed,
        non-callable ``cell``/``figures``, or a ``table`` that is neither a dict
        nor callable.
    """

    name: str
    grid: tuple
    cell: Callable = None
    seed: int = 0
    task: str | None = None
    description: str = ""
    table: object = None
    figures: Callable | None = None
    script: str | None = None
    quick: bool = False
    cells: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        set_ = functools.partial(object.__setattr__, self)
        if not isinstance(self.name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", self.name):
            raise ValueError(f"name must be a non-empty string of letters, digits, '-', '_', "
                             f"'.'; got {self.name!r}")
        cell = classification_cell if self.cell is None else self.cell
        if not callable(cell):
            raise ValueError(f"cell must be a callable cell(params) -> dict; got {cell!r}")
        set_("cell", cell)
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral) \
                or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0; got {self.seed!r}")
        set_("seed", int(self.seed))
        task = self.task if self.task is not None else getattr(cell, "__name__", None)
        if not isinstance(task, str) or not task:
            raise ValueError(f"task must be a non-empty string; got {task!r}")
        set_("task", task)
        if self.table is not None and not (isinstance(self.table, dict) or callable(self.table)):
            raise ValueError(f"table must be None, a dict of results_table arguments or a "
                             f"callable; got {self.table!r}")
        if self.figures is not None and not callable(self.figures):
            raise ValueError(f"figures must be None or a callable; got {self.figures!r}")
        if isinstance(self.grid, dict) or not hasattr(self.grid, "__iter__"):
            raise ValueError("grid must be a list of dicts (one per cell); got "
                             f"{type(self.grid).__name__}")
        grid = tuple(self.grid)
        if not grid:
            raise ValueError("grid is empty: an experiment needs at least one cell")
        cells, seen = [], {}
        for i, params in enumerate(grid):
            if not isinstance(params, dict):
                raise ValueError(f"grid[{i}] must be a dict of parameters; got "
                                 f"{type(params).__name__}")
            if "seed" in params:
                raise ValueError(f"grid[{i}] has the key 'seed', which is reserved: the cell "
                                 "receives the experiment's seed (Experiment(seed=...))")
            full = json.loads(canonical_json({**params, "seed": self.seed}, f"grid[{i}]"))
            key, config = cell_key(task, full)
            if key in seen:
                raise ValueError(f"grid[{seen[key]}] and grid[{i}] have the same configuration "
                                 f"{config}; every cell must be distinct")
            seen[key] = i
            # the parameters keep their declared order (the key uses the sorted form)
            ordered = json.loads(json.dumps({**_plain(params), "seed": self.seed}))
            cells.append(Cell(key, ordered, config))
        set_("grid", grid)
        set_("cells", tuple(cells))

    def __len__(self):
        return len(self.cells)


def _plain(params):
    """JSON-ready copy in declared order (canonical_json has already validated it)."""
    return json.loads(json.dumps(params, default=_json_default))


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON: {obj!r}")


def cartesian(**axes):
    """The Cartesian product of parameter axes, as a list of cell dicts.

    Parameters
    ----------
    **axes
        ``name=[v1, v2, ...]`` (a list or tuple: one axis; ``range`` works too)
        or ``name=value`` (any other value, dicts and strings included: the
        same in every cell).  The first axis varies slowest.

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        For an empty axis.

    Examples
    --------
    >>> cartesian(solver=["CLARABEL", "SCS"], n=[50, 100], tol=1e-6)[1]
    {'solver': 'CLARABEL', 'n': 100, 'tol': 1e-06}
    """
    import itertools

    names, values = [], []
    for name, v in axes.items():
        if isinstance(v, (list, tuple, range)):
            v = list(v)
            if not v:
                raise ValueError(f"{name}: empty axis; give at least one value")
        else:
            v = [v]
        names.append(name)
        values.append(v)
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def cell_seed(params, *names, salt=""):
    """A seed derived from the experiment's seed and some of the cell's parameters.

    Cells that agree on ``names`` (and the seed) get the same number, e.g.
    ``cell_seed(params, "dataset", "repeat", salt="folds")`` gives every method
    and kernel of a repeat the same folds; without names every parameter
    counts.

    Parameters
    ----------
    params : dict
        The cell's parameters (with ``"seed"``).
    *names : str
        Parameters the seed depends on (missing ones count as None).
    salt : str
        Distinguishes several seeds drawn from the same parameters.

    Returns
    -------
    int
        In ``[0, 2**32)``: the first four bytes of SHA-256 of the canonical
        JSON of ``{"names": {...}, "salt": salt, "seed": seed}``.

    Raises
    ------
    ValueError
        If ``params`` has no ``"seed"``.
    """
    if "seed" not in params:
        raise ValueError("params has no 'seed' (cells receive the experiment's seed)")
    chosen = ({n: params.get(n) for n in names} if names
              else {k: v for k, v in params.items() if k != "seed"})
    text = canonical_json({"names": chosen, "salt": salt, "seed": params["seed"]})
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


# --------------------------------------------------------------------------- metrics
def classification_metrics(y_true, y_pred, classes=None):
    """Accuracy, recall, their average (luss §5.1), sensitivity and specificity (munoz §4).

    Parameters
    ----------
    y_true, y_pred : array of shape (m,)
        True and predicted labels.
    classes : array of shape (n_classes,), optional
        All class labels (sorted); default ``np.unique(y_true)``.  With two
        classes the positive class is ``classes[1]`` (+1 for labels -1/+1).

    Returns
    -------
    dict
        ``accuracy = (TP + TN) / m``; ``recall = TP / (TP + FN)`` (two classes;
        the mean per-class recall for more); ``average = (accuracy + recall) /
        2`` (Luss & d'Aspremont 2009 §5.1); ``sensitivity = TP / (TP + FN)``
        ("true + recovered / total true +") and ``specificity = TN / (TN + FP)``
        (Munoz & de Diego 2006 §4), NaN for more than two classes or when the
        test set lacks the class.

    Raises
    ------
    ValueError
        If the label arrays differ in length or are empty.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 1 or y_true.size == 0:
        raise ValueError(f"y_true and y_pred must be non-empty 1-D arrays of one length; got "
                         f"shapes {y_true.shape} and {y_pred.shape}")
    classes = np.unique(y_true) if classes is None else np.asarray(classes)
    acc = float(np.mean(y_pred == y_true))

    def rate(c):
        mask = y_true == c
        return float(np.mean(y_pred[mask] == c)) if mask.any() else float("nan")

    if classes.size == 2:
        sens, spec = rate(classes[1]), rate(classes[0])
        recall = sens
    else:
        rates = [rate(c) for c in classes]
        recall = float(np.nanmean(rates)) if np.isfinite(rates).any() else float("nan")
        sens = spec = float("nan")
    return {"accuracy": acc, "recall": recall, "average": 0.5 * (acc + recall),
            "sensitivity": sens, "specificity": spec}


#: Scores accepted by ``scoring`` of :func:`classification_cell` (keys of
#: :func:`classification_metrics`).
SCORINGS = ("accuracy", "recall", "average", "sensitivity", "specificity")

#: Distribution that provides each CVXPY solver (for :func:`solver_version`).
_SOLVER_DISTRIBUTIONS = {
    "CLARABEL": "clarabel", "SCS": "scs", "ECOS": "ecos", "ECOS_BB": "ecos", "OSQP": "osqp",
    "HIGHS": "highspy", "SCIPY": "scipy", "CVXOPT": "cvxopt", "GLPK": "cvxopt",
    "GLPK_MI": "cvxopt", "PIQP": "piqp", "PROXQP": "proxsuite", "DAQP": "daqp",
    "QOCO": "qoco", "MOSEK": "mosek", "GUROBI": "gurobipy", "CPLEX": "cplex",
    "XPRESS": "xpress", "COPT": "coptpy", "SCIP": "pyscipopt", "CBC": "cylp",
    "SDPA": "sdpa-python", "NAG": "naginterfaces", "CUCLARABEL": "cuclarabel",
    "LIBSVM": "scikit-learn", "KNITRO": "knitro",
}


def solver_version(solver):
    """Version of the package that provides a solver.

    Parameters
    ----------
    solver : str or None
        A CVXPY solver name (any case) or ``"libsvm"`` (scikit-learn's).

    Returns
    -------
    str
        The installed version, ``""`` for None/empty, ``"unknown"`` when the
        distribution is not found.
    """
    if not solver:
        return ""
    from importlib import metadata

    dist = _SOLVER_DISTRIBUTIONS.get(str(solver).upper(), str(solver).lower())
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------- classification task
#: Parameters of :func:`classification_cell` and their defaults (``dataset`` and
#: ``method`` are required).
CLASSIFICATION_DEFAULTS = {
    "dataset": None,
    "n_samples": None,
    "binary": None,
    "kernel": None,
    "kernel_params": {},
    "kernel_grid": {},
    "method": None,
    "method_params": {},
    "param_grid": {},
    "solver": None,
    "outer_folds": 5,
    "fold": 0,
    "repeat": 0,
    "inner_folds": 3,
    "scoring": "accuracy",
    "save_trace": True,
}


def _as_grid(grid, name):
    """Validate a parameter grid (dict of non-empty lists); return its combinations in order."""
    from sklearn.model_selection import ParameterGrid

    if grid is None or grid == {}:
        return [{}]
    if not isinstance(grid, dict):
        raise ValueError(f"{name} must be a dict of lists of values; got {grid!r}")
    for k, v in grid.items():
        if not isinstance(v, (list, tuple)) or len(v) == 0:
            raise ValueError(f"{name}[{k!r}] must be a non-empty list of values; got {v!r}")
    return list(ParameterGrid({k: list(v) for k, v in grid.items()}))


def _tuples(v):
    if isinstance(v, list):
        return tuple(_tuples(x) for x in v)
    return v


@functools.lru_cache(maxsize=16)
def _kernel_data(dataset, kernel, params_json, n_samples, binary_json, random_state):
    from .compare import load_kernel_data

    params = json.loads(params_json)
    return load_kernel_data(dataset, kernel, params or None, n_samples=n_samples,
                            binary=_tuples(json.loads(binary_json)), random_state=random_state)


def _method_accepts(method, names):
    from .registry import make_method

    accepted = make_method(method).get_params(deep=False)
    return [n for n in names if n not in accepted], sorted(accepted)


def _build_estimator(method, params, solver, random_state):
    from .registry import make_method

    est = make_method(method, kernel="precomputed")
    accepted = est.get_params(deep=False)
    params = dict(params)
    if solver is not None:
        if "solver" not in accepted:
            raise ValueError(f"solver: method {method!r} has no solver parameter; got "
                             f"{solver!r}")
        params["solver"] = solver
    if "random_state" in accepted and "random_state" not in params:
        params["random_state"] = random_state
    est.set_params(**params)
    return est


def _solutions(est):
    from .solvers import Solution

    sols = []
    s = getattr(est, "solution_", None)
    if isinstance(s, Solution):
        sols.append(s)
    for m in getattr(est, "binary_models_", None) or []:
        s = getattr(m, "info", {}).get("solution")
        if isinstance(s, Solution) and all(s is not t for t in sols):
            sols.append(s)
    return sols


def classification_cell(params):
    """One outer fold of repeated stratified K-fold CV with inner-CV model selection.

    The cell (Loosli et al. 2013 §6.3; Luss & d'Aspremont 2009 §5.1):

    1. loads the data set and, for each combination of ``kernel_grid`` on top
       of ``kernel_params``, its kernel (:func:`krein.compare.load_kernel_data`;
       synthetic data and subsamples drawn with
       ``cell_seed(params, "dataset", "n_samples", "binary", "repeat", salt="data")``);
    2. splits it with ``StratifiedKFold(outer_folds, shuffle=True)`` seeded by
       ``cell_seed(..., "repeat", "outer_folds", salt="outer")`` and keeps fold
       ``fold``: every method, kernel and solver of a repeat sees the same folds;
    3. if there is more than one (kernel, method parameter) combination,
       scores each by ``StratifiedKFold(inner_folds, shuffle=True)`` on the
       outer training split (mean of the inner ``scoring``; a combination with
       a failed inner fit is out; ties go to the first combination, kernel
       parameters varying slowest, in ``ParameterGrid`` order) -- the same
       choice as :class:`sklearn.model_selection.GridSearchCV` where a kernel
       block can be sliced, but with the fold kernels of
       :meth:`krein.compare.KernelData.blocks` (training centering,
       training-label pick-out) where it cannot;
    4. refits the method with the best parameters on the outer training block
       and scores it on the outer test rows.

    Parameters
    ----------
    params : dict
        Keys of :data:`CLASSIFICATION_DEFAULTS`; required: ``dataset``,
        ``method``, ``seed``.

        * ``dataset``, ``n_samples``, ``binary``, ``kernel``, ``kernel_params``:
          as :func:`krein.compare.load_kernel_data` (``binary`` lists are read
          as tuples);
        * ``kernel_grid``: dict kernel parameter -> list of values, selected
          by inner CV;
        * ``method``: registry name (:func:`krein.list_methods`), built with
          ``kernel="precomputed"``; ``method_params``: fixed estimator
          parameters; ``param_grid``: dict estimator parameter -> list, selected
          by inner CV (e.g. ``{"C": [0.1, 1, 10], "rho": [1, 10]}``);
        * ``solver``: None (the method's default) or a solver for the
          estimator's ``solver`` parameter;
        * ``outer_folds``, ``fold``, ``repeat``, ``inner_folds``;
        * ``scoring``: one of :data:`SCORINGS` for the inner CV (luss:
          ``"average"``);
        * ``save_trace``: return the estimator's ``trace_`` (if any).

        Estimators with a ``random_state`` parameter get
        ``cell_seed(params, salt="estimator")`` unless ``method_params`` sets it.

    Returns
    -------
    dict
        ``n_train``, ``n_test``; :func:`classification_metrics` on the outer
        test split; ``train_accuracy`` (accuracy on the outer training split,
        the kernel as given: Loosli et al. Figs. 6-7, bottom); ``inner_score`` (best mean inner score, NaN without model
        selection); ``best_<p>`` and ``best_kernel_<p>`` for the grid
        parameters; ``fit_seconds``, ``predict_seconds``, ``select_seconds``;
        ``n_support`` (``len(support_)``), ``n_iter`` (sum of ``n_iter_``);
        ``min_eigenvalue``, ``r_mm``, ``r_neg`` of the outer training block
        (:class:`krein.spectrum.Spectrum`); ``solver_used``,
        ``solver_version``, ``solver_status`` (statuses of the
        :class:`krein.solvers.Solution` objects the estimator keeps, ``""`` if
        none), ``objective`` and ``gap`` (of a single such solution, else NaN),
        ``n_inner_failures``, ``n_inner_warnings``; and ``trace``
        (``trace_``) when ``save_trace``.

    Raises
    ------
    ValueError
        Unknown parameter, missing ``dataset``/``method``, ``fold`` out of
        range, bad ``scoring``, bad grids, or a method that rejects a
        parameter (InvalidArgument of :mod:`krein.compare` for data/kernel).
    RuntimeError
        If every parameter combination failed in the inner CV.
    Exception
        Whatever the refit raises (the runner records it).
    """
    from sklearn.model_selection import StratifiedKFold

    from .combinations import accepts_stacked_kernels
    from .spectrum import Spectrum

    unknown = sorted(set(params) - set(CLASSIFICATION_DEFAULTS) - {"seed"})
    if unknown:
        raise ValueError(f"classification_cell: unknown parameter(s) {unknown}; accepted: "
                         f"{sorted(CLASSIFICATION_DEFAULTS)}")
    p = {**CLASSIFICATION_DEFAULTS, **params}
    for req in ("dataset", "method", "seed"):
        if p.get(req) is None:
            raise ValueError(f"classification_cell: parameter {req!r} is required")
    if p["scoring"] not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}; got {p['scoring']!r}")
    outer, fold, inner = p["outer_folds"], p["fold"], p["inner_folds"]
    for name, v, lo in (("outer_folds", outer, 2), ("inner_folds", inner, 2),
                        ("repeat", p["repeat"], 0), ("fold", fold, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    if fold >= outer:
        raise ValueError(f"fold must be < outer_folds = {outer}; got {fold}")
    kernel_combos = _as_grid(p["kernel_grid"], "kernel_grid")
    method_combos = _as_grid(p["param_grid"], "param_grid")
    if not isinstance(p["method_params"], dict) or not isinstance(p["kernel_params"], dict):
        raise ValueError("method_params and kernel_params must be dicts")

    base = ("dataset", "n_samples", "binary", "repeat")
    data_seed = cell_seed(params, *base, salt="data")
    outer_seed = cell_seed(params, *base, "outer_folds", salt="outer")
    inner_seed = cell_seed(params, *base, "outer_folds", "fold", "inner_folds", salt="inner")
    est_seed = cell_seed(params, salt="estimator")

    binary_json = json.dumps(p["binary"])
    datas = [_kernel_data(p["dataset"], p["kernel"],
                          json.dumps({**p["kernel_params"], **kc}, sort_keys=True),
                          p["n_samples"], binary_json, data_seed) for kc in kernel_combos]
    y = datas[0].y
    classes = np.unique(y)
    splits = list(StratifiedKFold(outer, shuffle=True, random_state=outer_seed)
                  .split(np.zeros((y.shape[0], 1)), y))
    tr, te = splits[fold]

    def build(mc):
        return _build_estimator(p["method"], {**p["method_params"], **mc}, p["solver"],
                                est_seed)

    probe = build(method_combos[0])
    stacked = datas[0].base_kernels is not None and accepts_stacked_kernels(probe)

    # ---- model selection (inner CV on the outer training split)
    t_sel = time.perf_counter()
    best_k, best_m, inner_score = 0, 0, float("nan")
    n_fail = n_warn = 0
    if len(kernel_combos) * len(method_combos) > 1:
        skf = StratifiedKFold(inner, shuffle=True, random_state=inner_seed)
        inner_splits = [(tr[a], tr[b]) for a, b in skf.split(np.zeros((tr.size, 1)), y[tr])]
        scores = np.full((len(kernel_combos), len(method_combos)), -np.inf)
        first_error = None
        for i, data in enumerate(datas):
            fold_scores = np.zeros((len(method_combos), len(inner_splits)))
            for s, (a, b) in enumerate(inner_splits):
                K_a, K_b = data.blocks(a, b, stacked=stacked)
                for j, mc in enumerate(method_combos):
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        try:
                            est = build(mc).fit(K_a, y[a])
                            m = classification_metrics(y[b], est.predict(K_b), classes)
                            fold_scores[j, s] = m[p["scoring"]]
                        except Exception as exc:
                            n_fail += 1
                            fold_scores[j, s] = np.nan
                            first_error = first_error or exc
                    n_warn += len(caught)
            for j in range(len(method_combos)):
                if np.all(np.isfinite(fold_scores[j])):
                    scores[i, j] = float(np.mean(fold_scores[j]))
        if not np.isfinite(scores).any():
            raise RuntimeError(f"every parameter combination failed in the inner CV; first "
                               f"error: {type(first_error).__name__}: {first_error}")
        flat = int(np.argmax(scores))  # first maximum: kernel combinations vary slowest
        best_k, best_m = divmod(flat, len(method_combos))
        inner_score = float(scores[best_k, best_m])
    select_seconds = time.perf_counter() - t_sel

    # ---- refit on the outer training split, score on the outer test split
    data = datas[best_k]
    K_tr, K_te = data.blocks(tr, te, stacked=stacked)
    est = build(method_combos[best_m])
    t0 = time.perf_counter()
    est.fit(K_tr, y[tr])
    fit_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    pred = est.predict(K_te)
    predict_seconds = time.perf_counter() - t0

    out = {"n_train": int(tr.size), "n_test": int(te.size)}
    out.update(classification_metrics(y[te], pred, classes))
    # training accuracy with the kernel the method was given (Loosli Figs. 6-7, bottom)
    out["train_accuracy"] = float(np.mean(est.predict(K_tr) == y[tr]))
    out["inner_score"] = inner_score
    for k, v in method_combos[best_m].items():
        out[f"best_{k}"] = v
    for k, v in kernel_combos[best_k].items():
        out[f"best_kernel_{k}"] = v
    out.update({"fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
                "select_seconds": select_seconds})
    support = getattr(est, "support_", None)
    out["n_support"] = int(len(support)) if support is not None else None
    n_iter = getattr(est, "n_iter_", None)
    out["n_iter"] = int(np.sum(n_iter)) if n_iter is not None else None
    spec = Spectrum.from_kernel(K_tr[:, :, 0] if K_tr.ndim == 3 else K_tr)
    out.update({"min_eigenvalue": float(spec.min_eigenvalue), "r_mm": float(spec.r_mm),
                "r_neg": float(spec.r_neg)})
    used = est.get_params(deep=False).get("solver")
    out["solver_used"] = used if isinstance(used, str) else ""
    out["solver_version"] = solver_version(out["solver_used"])
    sols = _solutions(est)
    out["solver_status"] = ";".join(dict.fromkeys(str(s.status) for s in sols))
    out["objective"] = float(sols[0].objective) if len(sols) == 1 else float("nan")
    out["gap"] = float(sols[0].gap) if len(sols) == 1 else float("nan")
    out["n_inner_failures"] = n_fail
    out["n_inner_warnings"] = n_warn
    trace = getattr(est, "trace_", None)
    if p["save_trace"] and trace is not None and hasattr(trace, "to_csv") and len(trace):
        out["trace"] = trace
    return out


def _spec(item, main, what, allowed):
    """Normalize a data set / kernel / method entry: a name or a dict with ``main``."""
    if isinstance(item, str) or item is None:
        return {main: item}
    if not isinstance(item, dict) or main not in item:
        raise ValueError(f"{what}: each entry must be a name or a dict with key {main!r}; got "
                         f"{item!r}")
    bad = sorted(set(item) - set(allowed))
    if bad:
        raise ValueError(f"{what}: unknown key(s) {bad} in {item!r}; accepted: {list(allowed)}")
    return dict(item)


def classification_grid(datasets, methods, kernels=(None,), *, param_grid=None, folds=5,
                        repeats=1, solvers=(None,), inner_folds=3, scoring="accuracy",
                        save_trace=True):
    """Cells of :func:`classification_cell`: data sets x kernels x methods x solvers x folds.

    Parameters
    ----------
    datasets : list
        Names (:func:`krein.compare.available_datasets`) or dicts with keys
        ``dataset``, ``n_samples``, ``binary``.
    methods : list
        Registry names or dicts with keys ``method``, ``params`` (fixed
        estimator parameters) and ``grid`` (inner-CV grid, replacing
        ``param_grid`` for this method; ``{}`` for no selection).
    kernels : list
        Names (None: the data set's default) or dicts with keys ``kernel``,
        ``params`` (fixed kernel parameters) and ``grid`` (kernel parameters
        selected by inner CV).
    param_grid : dict, optional
        Inner-CV grid of every method without its own ``grid``; only the keys
        the method's estimator has are kept (``C`` is dropped for RVM).
    folds : int >= 2
        Outer folds; every fold is a cell.
    repeats : int >= 1
        Repetitions of the outer K-fold split.
    solvers : list
        Solvers crossed with the methods that have a ``solver`` parameter;
        other methods get one cell with ``solver=None`` (their own).  A method
        that rejects a solver (e.g. ``lp-svm`` with ``"libsvm"``) records
        error rows.
    inner_folds : int >= 2
    scoring : str
        Inner-CV score, one of :data:`SCORINGS`.
    save_trace : bool

    Returns
    -------
    list of dict
        In the order data set, kernel, method, solver, repeat, fold (fastest).

    Raises
    ------
    ValueError
        Unknown data set, kernel for the data set's kind, method, estimator
        parameter, or bad counts.
    """
    from .compare import _dataset_kind, available_datasets, available_kernels

    for name, v, lo in (("folds", folds, 2), ("repeats", repeats, 1),
                        ("inner_folds", inner_folds, 2)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}; got {scoring!r}")
    if param_grid is not None:
        _as_grid(param_grid, "param_grid")
    known = available_datasets()
    ds_specs = [_spec(d, "dataset", "datasets", ("dataset", "n_samples", "binary"))
                for d in datasets]
    k_specs = [_spec(k, "kernel", "kernels", ("kernel", "params", "grid")) for k in kernels]
    m_specs = [_spec(m, "method", "methods", ("method", "params", "grid")) for m in methods]
    if not ds_specs or not k_specs or not m_specs:
        raise ValueError("datasets, kernels and methods must each have at least one entry")
    for d in ds_specs:
        if d["dataset"] not in known:
            raise ValueError(f"datasets: unknown data set {d['dataset']!r}; accepted: "
                             f"{', '.join(known)}")
    methods_out = []
    for m in m_specs:
        params = dict(m.get("params") or {})
        if "grid" in m:
            grid = dict(m["grid"] or {})
        else:
            missing, _ = _method_accepts(m["method"], list(param_grid or {}))
            grid = {k: v for k, v in (param_grid or {}).items() if k not in missing}
        _as_grid(grid, f"methods[{m['method']!r}].grid")
        bad, accepted = _method_accepts(m["method"], list(params) + list(grid))
        if bad:
            raise ValueError(f"methods: {m['method']!r} has no parameter(s) {bad}; accepted: "
                             f"{accepted}")
        has_solver = "solver" in accepted
        msolvers = list(solvers) if has_solver else [None]
        methods_out.append((m["method"], params, grid, msolvers))
    cells = []
    for d in ds_specs:
        kind = _dataset_kind(d["dataset"])
        for k in k_specs:
            if k["kernel"] is not None and k["kernel"] not in available_kernels(kind):
                raise ValueError(f"kernels: {k['kernel']!r} is not a kernel for the {kind} data "
                                 f"set {d['dataset']!r}; accepted: "
                                 f"{', '.join(available_kernels(kind))}")
            if k.get("grid"):
                _as_grid(k["grid"], "kernels.grid")
            for method, mparams, grid, msolvers in methods_out:
                for solver in msolvers:
                    for r in range(int(repeats)):
                        for f in range(int(folds)):
                            cells.append({
                                "dataset": d["dataset"], "n_samples": d.get("n_samples"),
                                "binary": d.get("binary"), "kernel": k["kernel"],
                                "kernel_params": dict(k.get("params") or {}),
                                "kernel_grid": dict(k.get("grid") or {}),
                                "method": method, "method_params": mparams,
                                "param_grid": grid, "solver": solver,
                                "outer_folds": int(folds), "fold": f, "repeat": r,
                                "inner_folds": int(inner_folds), "scoring": scoring,
                                "save_trace": bool(save_trace)})
    return cells


# --------------------------------------------------------------------------- execution
@functools.lru_cache(maxsize=1)
def _versions():
    from importlib import metadata

    out = {"version_python": platform.python_version()}
    for dist in VERSION_PACKAGES:
        try:
            out[f"version_{dist}"] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[f"version_{dist}"] = "unknown"
    return out


def _error_text(exc):
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    tb = traceback.extract_tb(exc.__traceback__)
    if tb:
        last = tb[-1]
        text += f" [at {os.path.basename(last.filename)}:{last.lineno} in {last.name}]"
    return text


_RESERVED = set(META_COLUMNS) | set(PROVENANCE_COLUMNS)


def _clean_results(out, param_columns):
    """Validate a cell function's return value: (results dict, trace DataFrame or None)."""
    if out is None:
        return {}, None
    if not isinstance(out, dict):
        raise TypeError(f"the cell function must return a dict (or None); got "
                        f"{type(out).__name__}")
    results, trace = {}, None
    for k, v in out.items():
        if not isinstance(k, str) or not k:
            raise TypeError(f"result names must be non-empty strings; got {k!r}")
        if k == "trace":
            if v is not None and not (hasattr(v, "to_csv") and hasattr(v, "columns")):
                raise TypeError(f"'trace' must be a pandas DataFrame or None; got "
                                f"{type(v).__name__}")
            trace = v
            continue
        if k in _RESERVED or k in param_columns:
            raise ValueError(f"result {k!r} has the name of a "
                             f"{'parameter' if k in param_columns else 'runner'} column; "
                             "rename it")
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, (list, tuple, dict, np.ndarray)):
            v = json.dumps(v, default=_json_default, sort_keys=True)
        if v is not None and not isinstance(v, (bool, int, float, str)):
            raise TypeError(f"result {k!r} must be None, bool, int, float, str (or a list/dict "
                            f"stored as JSON); got {type(v).__name__}")
        results[k] = v
    return results, trace


def _execute(cell, key, params, param_columns):
    """Run one cell; never raises an ``Exception`` (it becomes an error record)."""
    t0 = time.perf_counter()
    status, error, results, trace = "ok", "", {}, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            results, trace = _clean_results(cell(copy.deepcopy(params)), param_columns)
        except Exception as exc:  # the cell becomes an error row, the grid goes on
            status, error, results, trace = "error", _error_text(exc), {}, None
    msgs = list(dict.fromkeys(" ".join(f"{w.category.__name__}: {w.message}".split())
                              for w in caught))
    return {"key": key, "status": status, "error": error, "results": results, "trace": trace,
            "warnings": " | ".join(msgs), "cell_seconds": time.perf_counter() - t0,
            "host": socket.gethostname(), "pid": os.getpid(),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **_versions()}


def _cloudpickle():
    """cloudpickle (a dependency of joblib >= 1.5, which vendored it before)."""
    try:
        import cloudpickle
    except ImportError:  # older joblib
        from joblib.externals import cloudpickle
    return cloudpickle


def _execute_payload(payload, key, params, param_columns):
    """Worker side of joblib/Dask: unpickle the cell function, run :func:`_execute`."""
    import pickle

    return _execute(pickle.loads(payload), key, params, param_columns)


def _failure_record(key, exc):
    """Record of a cell whose worker failed outside the cell (e.g. a killed Dask worker)."""
    return {"key": key, "status": "error", "error": _error_text(exc), "results": {},
            "trace": None, "warnings": "", "cell_seconds": float("nan"), "host": "",
            "pid": "", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **{c: "" for c in _versions()}}


def _serial(experiment, todo, param_columns):
    for c in todo:
        yield _execute(experiment.cell, c.key, c.params, param_columns[c.key])


def _joblib(payload, todo, param_columns, n_jobs):
    from joblib import Parallel, delayed

    jobs = (delayed(_execute_payload)(payload, c.key, c.params, param_columns[c.key])
            for c in todo)
    try:
        par = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    except (TypeError, ValueError):  # joblib < 1.4: ordered generator
        par = Parallel(n_jobs=n_jobs, return_as="generator")
    yield from par(jobs)


def _dask(payload, todo, param_columns, scheduler, name):
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise ImportError('backend="dask" needs dask.distributed: pip install "krein[dask]" '
                          '(or pip install "dask[distributed]")') from None
    own = not isinstance(scheduler, Client)
    client = Client(scheduler, set_as_default=False) if own else scheduler
    futures = {}
    try:
        token = secrets.token_hex(4)
        for c in todo:
            fut = client.submit(_execute_payload, payload, c.key, c.params,
                                param_columns[c.key], key=f"krein-{name}-{c.key}-{token}",
                                pure=False)
            futures[fut] = c.key
        for fut in as_completed(list(futures), loop=client.loop):
            try:
                rec = fut.result()
            except Exception as exc:  # the worker died or the task was lost
                rec = _failure_record(futures[fut], exc)
            yield rec
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        if own:
            client.close()


@dataclass
class RunReport:
    """What :func:`run_experiment` did.

    Attributes
    ----------
    experiment : Experiment
    directory : str
        Results directory.
    path : str
        ``directory/results.csv``.
    n_cells : int
        Cells in the grid.
    n_skipped : int
        Cells already in the file (not recomputed).
    n_run : int
        Cells computed in this run.
    n_errors : int
        Grid cells whose row has ``status == "error"`` (this run or earlier).
    seconds : float
        Wall time of this run.
    results : pandas.DataFrame
        The results file read back (:func:`read_results`): every row, not only
        this grid's.
    """

    experiment: Experiment
    directory: str
    path: str
    n_cells: int
    n_skipped: int
    n_run: int
    n_errors: int
    seconds: float
    results: object = None


def default_directory(experiment):
    """``results/NAME`` (``results/NAME-quick`` for the quick variant)."""
    return os.path.join("results", experiment.name + ("-quick" if experiment.quick else ""))


def _check_run_args(n_jobs, backend, scheduler):
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer (-1: all cores); got {n_jobs!r}")
    if backend is None:
        backend = "dask" if scheduler is not None else ("serial" if n_jobs == 1 else "joblib")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or None; got {backend!r}")
    if backend == "dask" and scheduler is None:
        raise ValueError('scheduler: backend="dask" needs a scheduler address (e.g. '
                         '"tcp://127.0.0.1:8786") or a dask.distributed.Client')
    if backend != "dask" and scheduler is not None:
        raise ValueError(f"scheduler is only used with backend='dask'; got backend={backend!r}")
    return int(n_jobs), backend


def run_experiment(experiment, out=None, *, n_jobs=1, backend=None, scheduler=None,
                   progress=True, retry_errors=False):
    """Run the cells of an experiment that are not in its results file yet.

    Parameters
    ----------
    experiment : Experiment
    out : str or path-like, optional
        Results directory; default :func:`default_directory` (``results/NAME``).
    n_jobs : int, default 1
        Parallel joblib workers (``-1``: all cores) when ``backend`` is None or
        ``"joblib"``.
    backend : {None, "serial", "joblib", "dask"}
        None: ``"dask"`` if ``scheduler`` is given, else ``"serial"`` for
        ``n_jobs == 1`` and ``"joblib"`` otherwise.
    scheduler : str or dask.distributed.Client, optional
        Dask scheduler address (``"tcp://host:8786"``) or a client (left open).
    progress : bool
        A tqdm bar over the cells to run, with the ETA (stderr).
    retry_errors : bool
        Recompute cells whose row has ``status == "error"`` (their row is replaced).

    Returns
    -------
    RunReport

    Raises
    ------
    ValueError
        Bad ``n_jobs``/``backend``/``scheduler``, or an existing file that is
        not a krein results file.
    RuntimeError
        If another run holds the directory.
    ImportError
        ``backend="dask"`` without dask.distributed installed.
    KeyboardInterrupt
        Propagated; every cell finished before it is in the file.

    Notes
    -----
    Each finished cell is written at once (trace file first, then the whole
    results file atomically); see :mod:`krein._results`.  A cell function
    exception becomes a row with ``status="error"``.
    """
    if not isinstance(experiment, Experiment):
        raise ValueError(f"experiment must be an Experiment; got {type(experiment).__name__}")
    n_jobs, backend = _check_run_args(n_jobs, backend, scheduler)
    directory = os.fspath(out) if out is not None else default_directory(experiment)
    t_start = time.perf_counter()
    cells = {c.key: c for c in experiment.cells}
    param_columns = {c.key: list(flatten_params(json.loads(c.config)["params"]))
                     for c in experiment.cells}
    with ResultsStore(directory) as store:
        store.set_order(list(cells))
        _write_sidecar(experiment, directory)
        done = store.done_keys(retry_errors)
        todo = [c for c in experiment.cells if c.key not in done]
        n_skipped = len(cells) - len(todo)
        if not os.path.exists(store.path):
            store.write()  # header only: the file exists from the start
        bar = None
        if progress and todo:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(todo), desc=experiment.name, unit="cell", file=sys.stderr,
                       dynamic_ncols=True)
        n_run = n_err_now = 0
        try:
            if backend == "serial":
                records = _serial(experiment, todo, param_columns)
            else:
                cp = _cloudpickle()
                payload = cp.dumps(experiment.cell)
                records = (_joblib(payload, todo, param_columns, n_jobs) if backend == "joblib"
                           else _dask(payload, todo, param_columns, scheduler, experiment.name))
            try:
                for rec in records:
                    _store_record(store, experiment, cells[rec["key"]],
                                  param_columns[rec["key"]], rec)
                    store.write()
                    n_run += 1
                    n_err_now += rec["status"] == "error"
                    if bar is not None:
                        bar.update(1)
                        if n_err_now:
                            bar.set_postfix_str(f"{n_err_now} error(s)", refresh=False)
            finally:
                close = getattr(records, "close", None)
                if close is not None:
                    close()
        finally:
            if bar is not None:
                bar.close()
        n_errors = sum(1 for k in cells if store.rows.get(k, {}).get("status") == "error")
    results = read_results(os.path.join(directory, RESULTS_FILE))
    return RunReport(experiment, directory, os.path.join(directory, RESULTS_FILE), len(cells),
                     n_skipped, n_run, n_errors, time.perf_counter() - t_start, results)


def _store_record(store, experiment, cell, param_columns, rec):
    row = {"key": cell.key, "experiment": experiment.name, "task": experiment.task,
           "status": rec["status"], "error": rec["error"]}
    row.update(flatten_params(json.loads(cell.config)["params"]))
    row.update(rec["results"])
    trace_file = ""
    if rec["status"] == "ok" and rec.get("trace") is not None and len(rec["trace"]):
        trace_file = store.write_trace(cell.key, rec["trace"])
    row.update({"warnings": rec["warnings"], "trace_file": trace_file,
                "cell_seconds": rec["cell_seconds"], "host": rec["host"], "pid": rec["pid"],
                "timestamp": rec["timestamp"], "config": cell.config})
    row.update({c: rec.get(c, "") for c in _versions()})
    store.add(row, param_columns, list(rec["results"]))


def _write_sidecar(experiment, directory):
    info = {"name": experiment.name, "description": experiment.description,
            "task": experiment.task, "seed": experiment.seed, "quick": experiment.quick,
            "script": experiment.script, "n_cells": len(experiment.cells),
            "table": experiment.table if isinstance(experiment.table, dict) else None}
    try:
        text = json.dumps(info, indent=2, default=str)
    except (TypeError, ValueError):
        info["table"] = None
        text = json.dumps(info, indent=2, default=str)
    atomic_write_bytes(os.path.join(directory, "experiment.json"), text.encode())


def read_sidecar(directory):
    """The ``experiment.json`` of a results directory, or ``{}``."""
    path = os.path.join(os.fspath(directory), "experiment.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


# --------------------------------------------------------------------------- scripts
def import_script(path):
    """Import a Python script by path (an experiment script or one it builds on).

    The module gets a private name derived from the path and is registered
    with cloudpickle to be pickled by value, so functions defined in it reach
    joblib and Dask workers that cannot import it.  Every call executes the
    file afresh.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    module

    Raises
    ------
    ValueError
        Missing file or a file that cannot be imported as Python.
    Exception
        Whatever executing the script raises.
    """
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise ValueError(f"script: no such file {path!r}")
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    modname = f"_krein_experiment_{stem}_{hashlib.sha256(path.encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"script: cannot import {path!r} (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    _cloudpickle().register_pickle_by_value(module)
    return module


def load_experiment(path, quick=False):
    """Import an experiment script and return its :class:`Experiment`.

    The script defines ``experiment(quick=False) -> Experiment`` or the
    constants ``EXPERIMENT`` (and ``QUICK_EXPERIMENT`` for ``quick=True``).
    It is imported under a private module name and registered with
    cloudpickle to be pickled by value, so its cell functions reach joblib
    and Dask workers that cannot import it.

    Parameters
    ----------
    path : str or path-like
        The script (``experiments/NAME.py``).
    quick : bool
        The shrunken variant (``--quick``).

    Returns
    -------
    Experiment
        With ``script`` (absolute path) and ``quick`` set.

    Raises
    ------
    ValueError
        Missing file, no ``experiment``/``EXPERIMENT``, no quick variant, or a
        value that is not an :class:`Experiment`.
    """
    path = os.path.abspath(os.fspath(path))
    module = import_script(path)
    if callable(getattr(module, "experiment", None)):
        exp = module.experiment(quick=bool(quick))
    elif hasattr(module, "EXPERIMENT"):
        if quick and not hasattr(module, "QUICK_EXPERIMENT"):
            raise ValueError(f"script: {path} has no quick variant (define QUICK_EXPERIMENT or "
                             "experiment(quick))")
        exp = module.QUICK_EXPERIMENT if quick else module.EXPERIMENT
    else:
        raise ValueError(f"script: {path} defines neither experiment(quick) nor EXPERIMENT")
    if not isinstance(exp, Experiment):
        raise ValueError(f"script: {path} returned {type(exp).__name__}, not a "
                         "krein.experiment.Experiment")
    return dataclasses.replace(exp, script=path, quick=bool(quick))


# --------------------------------------------------------------------------- reports
def make_table(results, experiment=None, fmt="markdown", **overrides):
    """The experiment's table of a results file.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
    experiment : Experiment, optional
        Its ``table`` (a dict of :func:`results_table` arguments or a callable
        returning a DataFrame) is used; without it (or with ``table=None``)
        the defaults of :func:`results_table`.
    fmt : {"markdown", "latex", "csv"}
    **overrides
        :func:`results_table` arguments (``value``, ``rows``, ``columns``...)
        that replace the experiment's; with any of them a callable ``table``
        is not used.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Bad format or columns (see :func:`results_table`).
    """
    spec = experiment.table if experiment is not None else None
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if callable(spec) and not overrides:
        df = results if not isinstance(results, (str, os.PathLike)) else read_results(results)
        return format_frame(spec(df), fmt)
    kwargs = dict(spec) if isinstance(spec, dict) else {}
    kwargs.update(overrides)
    return results_table(results, fmt=fmt, **kwargs)


def make_figures(results, out, experiment=None):
    """The standard figures (:func:`plot_results`) plus the experiment's own.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
    out : str
        Directory for the PNG files.
    experiment : Experiment, optional
        Its ``figures(results, out)`` hook is called after the standard figures.

    Returns
    -------
    list of str
        Paths written.
    """
    df = results if not isinstance(results, (str, os.PathLike)) else read_results(results)
    paths = plot_results(df, out)
    if experiment is not None and experiment.figures is not None:
        paths += [os.fspath(p) for p in (experiment.figures(df, out) or [])]
    return paths
