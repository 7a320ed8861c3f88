"""Compare every registered method on one data set and one kernel: ``krein compare``.

A thin client of :mod:`krein.experiment`: :func:`run_comparison` declares the
cells of :func:`krein.experiment.classification_grid` (one per method, repeat
and outer fold), runs them with :func:`krein.experiment.run_experiment` and
summarizes the rows.  So the data (:func:`krein.kernel_data.load_kernel_data`
for a bundled set, :func:`krein.kernel_data.load_kernel_file` /
:func:`krein.kernel_data.load_feature_file` for the user's own file), the folds,
the inner model selection, the estimator builder
(:func:`krein.experiment.build_estimator`), the per-fold rules and the error
text are the experiments' own.

A fair comparison by default
----------------------------
Every method's parameters are chosen by inner stratified cross-validation on
each outer training fold (nested CV): the method's default grid from the
registry (:func:`krein.registry.default_grid`: ``C`` for every method that has
it, ``C`` x ``rho`` for IndefiniteSVM, ``mu`` for the hull classifier) and,
when the kernel is computed from feature vectors, the kernel's scale parameter
(:func:`krein.kernel_data.default_kernel_grid`).  ``grid`` overrides entries,
a fixed ``C`` takes ``C`` out of the grids, ``tune=False`` fixes everything.

Folds: repeat ``r`` splits with ``StratifiedKFold(cv, shuffle=True,
random_state=random_state + r)`` and each outer training split again with
``StratifiedKFold(inner_folds, shuffle=True, random_state=random_state + r)``
(``cv_seed`` of :func:`krein.experiment.classification_cell`); so
``cross_val_score(GridSearchCV(est, grid, cv=inner), K, y, cv=outer)`` with
those splitters gives the table's numbers for repeat 0, and every method sees
the same folds.  Estimators with a ``random_state`` get one derived from the
run's seed: the same input and seed give the same table.

Cells run fold by fold (all methods of a fold, then the next fold), inside
:func:`krein._cache.shared_computations` where available, so the methods of a
fold share one eigendecomposition of its training block.

Data too large for the n x n kernel
-----------------------------------
With ``approximation="nystroem:M"`` no ``n x n`` array is formed anywhere:
the data are loaded without a kernel matrix (:class:`krein.kernel_data.KernelData`
with ``K`` None), each fit gets the feature rows of its split, the named
kernel with the grid point's parameters and an
:class:`krein.approximation.IndefiniteNystroem` of ``M`` landmarks (drawn
among the fit's training rows with the fold's seed, ``random_state +
repeat``, so every method of a fold gets the same landmarks), and the
method trains its linear model on the signed features.  The front end is
refitted by every fit (inner CV included: ``O(n M^2)`` each, never
``O(n^2)``).  Methods without an approximate path (no ``approximation``
parameter) are listed as skipped; the others may run with a changed solver
or out-of-sample map (:func:`krein.experiment.classification.approximation_defaults`),
said in their ``note``.  The spectrum figures are those of the
approximation.

Output directory
----------------
With ``out``, the run writes ``run.json`` (data, spectrum summary, protocol),
``summary.csv``, ``folds.csv``, ``spectrum.csv``, on 2-D feature data
``points.csv`` and ``boundaries.csv``, the figures and ``report.html``
(:mod:`krein.experiment.page`), and the runner's per-cell file in ``cells/``
(written as each cell finishes, so an interrupted run loses nothing it
finished), and ``args.json`` (which comparison the directory holds).  A
directory that already holds a comparison is refused unless ``force``
(replace it) or ``resume`` (finish it: the cells in ``cells/`` are reused when
they belong to the same comparison).  One run per directory: the run holds
``fcntl.flock`` on ``out/.lock`` from before its first write to its last, and
``force`` refuses a directory whose lock a live run holds; with ``fresh=True``
(``krein compare`` without ``--out``) the run creates the first free one of
``out``, ``out-2``... with ``os.mkdir`` (atomic), so runs started together never
share one.  Every file is written by :func:`krein._io.atomic_write_bytes`: never
partial or empty; a full disk is an error naming the file.
"""

from __future__ import annotations

import json
import numbers
import os
import shutil
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import __version__
from ._io import atomic_write_bytes, atomic_write_text, csv_bytes
from ._threads import resolve_blas_threads
from ._validation import InvalidArgument
from .combinations import accepts_stacked_kernels
from .experiment import (Experiment, build_estimator, cell_kernel_data, classification_grid,
                         outer_splits, run_experiment)
from .experiment.classification import approximation_defaults
from .experiment.runner import error_text
from .experiment.store import LOCK_FILE, RESULTS_FILE, DirectoryInUse, lock_directory
from .kernel_data import (KernelData, check_approximation, check_data_arguments,
                          default_kernel_grid, make_approximation)
from .registry import REQUIREMENTS, default_grid, list_methods, method_requirements

__all__ = [
    "compare",
    "run_comparison",
    "ComparisonResult",
    "InvalidArgument",
    "new_run_directory",
    "run_name",
    "safe_name",
    "DirectoryInUse",
    "run_info",
    "load_comparison_data",
    "spectrum_plot",
    "SUMMARY_COLUMNS",
    "FOLD_COLUMNS",
    "OUTPUT_FILES",
]


#: Columns of the summary table returned by :func:`compare` (``summary.csv``).
SUMMARY_COLUMNS = ["method", "status", "accuracy_mean", "accuracy_std", "best_params",
                   "fit_seconds_mean", "n_support_mean", "min_eigenvalue_mean", "r_mm_mean",
                   "r_neg_mean", "certificate", "n_folds", "n_errors", "note"]

#: Columns of the per-cell table (``ComparisonResult.folds``, ``folds.csv``).
FOLD_COLUMNS = ["method", "repeat", "fold", "n_train", "n_test", "accuracy", "best_params",
                "inner_score", "fit_seconds", "select_seconds", "n_support", "min_eigenvalue",
                "r_mm", "r_neg", "solver_status", "gap", "certificate", "certificate_value",
                "error", "warnings", "solver_used"]

#: Files (and the runner's directory) a comparison writes into ``out``.
OUTPUT_FILES = ("args.json", "run.json", "summary.csv", "folds.csv", "spectrum.csv", "points.csv",
                "boundaries.csv", "report.html", "accuracy.png", "spectrum.png",
                "boundaries.png", "solver_output.txt", "cells")

#: Entries of ``Spectrum.summary()`` recorded in ``run.json`` (and drawn on the page).
SPECTRUM_KEYS = ("n", "p", "q", "z", "min_eigenvalue", "max_eigenvalue", "r_mm", "r_neg")

#: Points per axis of the decision-boundary grid (2-D feature data).
BOUNDARY_GRID = 120


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_methods(methods):
    registered = list(list_methods(task="classifier"))
    if methods is None:
        return list(list_methods(task="classifier", compare=True))
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
    return list(dict.fromkeys(methods))


def _check_solver(solver, approximation=None):
    if solver is None:
        return None
    from .solvers import installed_solvers

    accepted = ["libsvm"] + installed_solvers()
    if isinstance(solver, str):
        if solver.lower() == "libsvm":
            return "libsvm"
        if solver.upper() in installed_solvers():
            return solver.upper()
        if solver.lower() == "liblinear":
            if approximation is None:
                raise InvalidArgument("solver", "liblinear trains a linear model on features: "
                                                "it needs an approximation (e.g. "
                                                "nystroem:1000)")
            return "liblinear"
    if approximation is not None:
        accepted.insert(1, "liblinear")
    raise InvalidArgument("solver", f"unknown or not installed solver {solver!r}; accepted: "
                                    f"{', '.join(accepted)}")


def _check_options(cv, repeats, C, inner_folds, n_jobs):
    if not _is_int(cv) or cv < 2:
        raise InvalidArgument("cv", f"must be an integer >= 2 (number of folds); got {cv!r}")
    if not _is_int(repeats) or repeats < 1:
        raise InvalidArgument("repeats", f"must be an integer >= 1; got {repeats!r}")
    if not _is_int(inner_folds) or inner_folds < 2:
        raise InvalidArgument("inner_folds", f"must be an integer >= 2; got {inner_folds!r}")
    if not _is_int(n_jobs) or n_jobs == 0 or n_jobs < -1:
        raise InvalidArgument("n_jobs", f"must be a positive integer or -1 (all cores); got "
                                        f"{n_jobs!r}")
    if C is not None:
        ok = isinstance(C, numbers.Real) and not isinstance(C, bool) and np.isfinite(C) and C > 0
        if not ok:
            raise InvalidArgument("C", f"must be a positive finite number; got {C!r}")
        C = float(C)
    return int(cv), int(repeats), C, int(inner_folds), int(n_jobs)


def _check_grid(grid):
    if grid is None:
        return {}
    if not isinstance(grid, dict):
        raise InvalidArgument("grid", f"must be a dict parameter -> list of values; got {grid!r}")
    out = {}
    for k, v in grid.items():
        if isinstance(v, (numbers.Real, str)) and not isinstance(v, bool):
            v = [v]
        if not isinstance(k, str) or not isinstance(v, (list, tuple)) or len(v) == 0:
            raise InvalidArgument("grid", f"entry {k!r} must be a non-empty list of values; got "
                                          f"{v!r}")
        out[k] = list(v)
    return out


# --------------------------------------------------------------------------- data
def _data_entry(dataset, n_samples, binary, kernel_file, labels, dissimilarity, symmetrize,
                data_file, label_column, approximation=None):
    """The data-set entry of the grid: a catalogue name or a user's file."""
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
    return {"dataset": run_name(dataset, kernel_file, data_file), "data_file": spec}


def _load(entry, kernel, kernel_params, random_state, approximation=None):
    """The KernelData of a grid's data entry, through the cells' own (cached) loader."""
    if entry.get("data_file") is None:
        check_data_arguments(entry["dataset"], kernel, kernel_params)
    try:
        probe = classification_grid([entry], [next(iter(list_methods(task="classifier")))],
                                    [{"kernel": kernel, "params": dict(kernel_params or {})}],
                                    cv_seed=int(random_state), approximation=approximation)[0]
    except InvalidArgument:
        raise
    except ValueError as exc:  # a kernel that does not fit the data's kind
        raise InvalidArgument("kernel", str(exc).split(": ", 1)[-1]) from None
    data = cell_kernel_data({**probe, "seed": int(random_state)})[0]
    if approximation is not None:  # the landmarks of the spectrum: the run's seed
        from dataclasses import replace

        data = replace(data, approximation_seed=int(random_state), _spectrum=None)
    labels, _ = data.classes
    if labels.size < 2:
        raise InvalidArgument("labels", f"{data.dataset!r} has a single class; need at least two")
    return data


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


def load_comparison_data(dataset="sonar", kernel=None, kernel_params=None, n_samples=None,
                         binary=None, random_state=0, *, kernel_file=None, labels=None,
                         dissimilarity=False, symmetrize=False, data_file=None,
                         label_column=None):
    """The data and kernel a comparison with these arguments uses (``krein diagnose``).

    Parameters
    ----------
    dataset : str
        Bundled data set, as in :func:`compare`.
    kernel : str, optional
        Kernel name, as in :func:`compare`.
    kernel_params : dict, optional
        Kernel parameters, as in :func:`compare`.
    n_samples : int, optional
        Synthetic size or subsample, as in :func:`compare`.
    binary : optional
        Binary task, as in :func:`compare`.
    random_state : int
        Seed, as in :func:`compare`.
    kernel_file : str or path-like, optional
        The user's matrix, as in :func:`compare`.
    labels : str or path-like, optional
        Its labels, as in :func:`compare`.
    dissimilarity : bool
        The matrix holds dissimilarities, as in :func:`compare`.
    symmetrize : bool
        Accept an asymmetric matrix, as in :func:`compare`.
    data_file : str or path-like, optional
        The user's feature file, as in :func:`compare`.
    label_column : str or int, optional
        Its label column, as in :func:`compare`.

    Returns
    -------
    krein.kernel_data.KernelData
        The labels, the kernel on all objects and what it was built from.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument or file.
    """
    entry = _data_entry(dataset, n_samples, binary, kernel_file, labels, dissimilarity,
                        symmetrize, data_file, label_column)
    return _load(entry, kernel, kernel_params, random_state)


# --------------------------------------------------------------------------- result
@dataclass
class ComparisonResult:
    """Everything one comparison produced, as :func:`run_comparison` returns it.

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per method, columns :data:`SUMMARY_COLUMNS` (the table
        :func:`compare` returns); skipped methods included (``status ==
        "skipped"``, the reason in ``note``).
    folds : pandas.DataFrame
        One row per (method, repeat, fold) cell, columns :data:`FOLD_COLUMNS`.
    data : krein.kernel_data.KernelData
        The data set and kernel.
    methods : list of str
        Registry names of the methods run, in the order given (skipped ones left out).
    cv : int
        Number of outer folds.
    repeats : int
        Number of repetitions of the ``cv``-fold split.
    C : float or None
        A ``C`` fixed for every method that has one, or None (tuned, or the
        methods' default ``C = 1`` without tuning).
    solver : str or None
        The solver given to the methods that have a ``solver`` parameter
        (None: their own default).
    random_state : int
        The run's seed (folds, synthetic data, subsample, estimators).
    files : list of str, default []
        Paths written (empty without ``out``).
    experiment : krein.experiment.Experiment or None
        The cells that were run (one per method, repeat and fold).
    tuned : bool, default True
        Whether parameters were chosen by inner cross-validation.
    grids : dict, default {}
        Method -> its inner-CV grid (``{}``: nothing tuned).
    kernel_grid : dict, default {}
        The kernel parameters tuned, ``{name: list of values}``.
    inner_folds : int, default 3
        Folds of the inner cross-validation.
    skipped : dict, default {}
        Method -> why it was not run (inputs the data do not have).
    seconds : float, default nan
        Wall time of the run.
    directory : str or None, default None
        The output directory (None without ``out``).
    approximation : str or None, default None
        The low-rank front end of an approximated run (``"nystroem:M"``), else None.
    notes : dict, default {}
        Method -> what the approximated run changed in it (out-of-sample map,
        default solver), one text.
    n_reused : int, default 0
        Cells found finished in ``directory/cells`` and not recomputed (``resume``).
    _lock : file object or None
        The held lock of ``directory`` (``hold_lock=True``); see :meth:`release`.
    """

    summary: pd.DataFrame
    folds: pd.DataFrame
    data: KernelData
    methods: list
    cv: int
    repeats: int
    C: float | None
    solver: str | None
    random_state: int
    files: list = field(default_factory=list)
    experiment: Experiment | None = field(default=None, repr=False)
    tuned: bool = True
    grids: dict = field(default_factory=dict)
    kernel_grid: dict = field(default_factory=dict)
    inner_folds: int = 3
    skipped: dict = field(default_factory=dict)
    seconds: float = float("nan")
    directory: str | None = None
    approximation: str | None = None
    notes: dict = field(default_factory=dict)
    n_reused: int = 0
    _lock: object = field(default=None, repr=False, compare=False)

    def release(self):
        """Release the lock of the output directory (held with ``hold_lock=True``)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @property
    def all_failed(self):
        """True when no fit of any method succeeded (the command line exits non-zero)."""
        return bool(len(self.folds)) and bool((self.folds["error"] != "").all())

    def splits(self, repeat=0):
        """The outer folds of one repeat, as every method saw them.

        Parameters
        ----------
        repeat : int
            Repeat index, ``0 <= repeat < repeats``.

        Returns
        -------
        list of (ndarray, ndarray)
            ``cv`` pairs of training and test indices into ``data.y``
            (:func:`krein.experiment.outer_splits`).

        Raises
        ------
        ValueError
            For a repeat outside the comparison's.
        """
        if not _is_int(repeat) or not 0 <= repeat < self.repeats:
            raise ValueError(f"repeat must be an integer in [0, {self.repeats}); got {repeat!r}")
        cell = next(c for c in self.experiment.cells if c.params["repeat"] == repeat)
        return outer_splits(cell.params, self.data.y)


def _most_frequent(values):
    """Most frequent value (first seen among ties)."""
    counts = Counter(json.dumps(v, sort_keys=True) for v in values)
    best = max(counts.values())
    for v in values:
        if counts[json.dumps(v, sort_keys=True)] == best:
            return v
    return None


def _chosen_params(best_params):
    """Most frequent chosen value of each tuned parameter over the successful folds."""
    dicts = [json.loads(b) for b in best_params if isinstance(b, str) and b]
    keys = list(dict.fromkeys(k for d in dicts for k in d))
    return {k: _most_frequent([d[k] for d in dicts if k in d]) for k in keys}


def _certificate_text(f):
    kinds = f["certificate"].fillna("").astype(str)
    kinds = kinds[kinds != ""]
    if kinds.empty:
        status = ";".join(dict.fromkeys(s for s in f["solver_status"].fillna("").astype(str)
                                        for s in s.split(";") if s))
        return status
    kind = kinds.mode().iloc[0]
    vals = f.loc[kinds.index][kinds == kind]["certificate_value"].to_numpy(dtype=float)
    return f"{kind} <= {np.nanmax(vals):.1e}" if np.isfinite(vals).any() else kind


def _summarize(folds, methods, skipped, order, notes=None):
    rows = []
    for m in order:
        if m in skipped:
            rows.append({"method": m, "status": "skipped", "best_params": "{}", "n_folds": 0,
                         "n_errors": 0, "note": skipped[m], "certificate": ""})
            continue
        f = folds[folds["method"] == m]
        ok = f[f["error"] == ""]
        n_err = int((f["error"] != "").sum())
        status = "ok" if n_err == 0 else ("failed" if len(ok) == 0 else "partial")
        rows.append({
            "method": m,
            "status": status,
            "accuracy_mean": ok["accuracy"].mean() if len(ok) else np.nan,
            "accuracy_std": ok["accuracy"].std() if len(ok) > 1 else (0.0 if len(ok) else np.nan),
            "best_params": json.dumps(_chosen_params(ok["best_params"].tolist())),
            "fit_seconds_mean": ok["fit_seconds"].mean() if len(ok) else np.nan,
            "n_support_mean": ok["n_support"].mean() if len(ok) else np.nan,
            "min_eigenvalue_mean": f["min_eigenvalue"].mean(),
            "r_mm_mean": f["r_mm"].mean(),
            "r_neg_mean": f["r_neg"].mean(),
            "certificate": _certificate_text(ok) if len(ok) else "",
            "n_folds": int(len(f)),
            "n_errors": n_err,
            "note": "; ".join(t for t in ((notes or {}).get(m, ""),
                                          f[f["error"] != ""]["error"].iloc[0][:300]
                                          if n_err else "") if t),
        })
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def _fold_table(rows):
    """The runner's rows as the per-fold table (:data:`FOLD_COLUMNS`), in grid order."""
    df = rows.copy()
    for col in FOLD_COLUMNS:
        if col not in df.columns:
            df[col] = np.nan
    for col in ("error", "warnings", "certificate", "solver_status", "best_params"):
        df[col] = [("" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v))
                   for v in df[col].astype(object)]
    return df[FOLD_COLUMNS].reset_index(drop=True)


# --------------------------------------------------------------------------- output directory
#: Entries of a directory that hold no comparison (a new directory, claimed and locked).
_EMPTY_ENTRIES = {LOCK_FILE}


def _holds_nothing(path):
    try:
        return set(os.listdir(path)) <= _EMPTY_ENTRIES
    except OSError:
        return False


def new_run_directory(name, root="krein-results"):
    """The name a new run would get: ``root/name``, ``root/name-2``... (nothing created).

    Only a guess: :func:`run_comparison` with ``fresh=True`` claims the
    directory itself, atomically (two runs started together never share one).

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


def _check_out(out, force, resume=False):
    """Refuse a directory that holds an earlier comparison (unless ``force`` or ``resume``),
    or one another run holds; nothing written."""
    if out is None:
        return None
    out = os.fspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise InvalidArgument("out", f"{out} is a file, not a directory")
    if os.path.isdir(out):
        found = _found_outputs(out)
        if found and not (force or resume):
            raise InvalidArgument("out", f"{out} already holds a comparison ({', '.join(found[:3])}"
                                         f"{', ...' if len(found) > 3 else ''}); pass --force "
                                         "(force=True) to replace it, --resume (resume=True) to "
                                         "finish it, or choose another directory")
        _check_not_held(out)
    return out


def _check_not_held(out):
    """InvalidArgument if a live run holds ``out``'s lock (probed without creating anything)."""
    lock_path = os.path.join(out, LOCK_FILE)
    if not os.path.exists(lock_path):
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    try:
        f = open(lock_path)
    except OSError:
        return
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            try:
                pid = int(f.read().strip() or 0) or None
            except (OSError, ValueError):
                pid = None
            raise InvalidArgument("out", str(DirectoryInUse(out, pid))) from None


def _grid_fingerprint(experiment):
    """What makes two comparisons the same: the SHA-256 of their cells' keys (each key the
    hash of a cell's data, kernel, method, grid, folds and seed)."""
    import hashlib

    keys = sorted(c.key for c in experiment.cells)
    return hashlib.sha256(",".join(keys).encode()).hexdigest()[:16], keys


def _check_resume(out, experiment):
    """Refuse to resume a directory written by another comparison; the number of cells reused."""
    fingerprint, keys = _grid_fingerprint(experiment)
    args_path = os.path.join(out, "args.json")
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
    results = os.path.join(out, "cells", RESULTS_FILE)
    if not os.path.exists(results):
        return 0
    import csv

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


# --------------------------------------------------------------------------- the run
def run_comparison(dataset="sonar", kernel=None, kernel_params=None, methods=None, cv=5,
                   repeats=1, C=None, solver=None, random_state=0, out=None, progress=True,
                   n_samples=None, binary=None, *, kernel_file=None, labels=None,
                   dissimilarity=False, symmetrize=False, data_file=None, label_column=None,
                   tune=True, grid=None, inner_folds=3, n_jobs=1, blas_threads=None,
                   force=False, command=None, approximation=None, resume=False, fresh=False,
                   hold_lock=False):
    """Run :func:`compare` and return all its results (summary, folds, data, files).

    Parameters
    ----------
    dataset : str
        Data set name, as in :func:`compare`.
    kernel : str, optional
        Kernel name, as in :func:`compare`.
    kernel_params : dict, optional
        Kernel parameters, as in :func:`compare`.
    methods : list of str or str, optional
        Registry names (a string is split at commas), as in :func:`compare`.
    cv : int >= 2
        Number of folds, as in :func:`compare`.
    repeats : int >= 1
        Repetitions of the split, as in :func:`compare`.
    C : float > 0, optional
        A fixed ``C``, as in :func:`compare`.
    solver : str, optional
        ``"libsvm"`` or an installed CVXPY solver, as in :func:`compare`.
    random_state : int >= 0
        The run's seed, as in :func:`compare`.
    out : str or path-like, optional
        Output directory, as in :func:`compare`.
    progress : bool
        Progress bar, as in :func:`compare`.
    n_samples : int, optional
        Synthetic size or subsample, as in :func:`compare`.
    binary : optional
        Binary task of the data set, as in :func:`compare`.
    kernel_file : str or path-like, optional
        The user's matrix, as in :func:`compare`.
    labels : str or path-like, optional
        Its labels file, as in :func:`compare`.
    dissimilarity : bool
        The matrix holds dissimilarities, as in :func:`compare`.
    symmetrize : bool
        Use ``(K + K') / 2`` of an asymmetric matrix, as in :func:`compare`.
    data_file : str or path-like, optional
        The user's feature file, as in :func:`compare`.
    label_column : str or int, optional
        Its label column, as in :func:`compare`.
    tune : bool
        Nested CV over the grids, as in :func:`compare`.
    grid : dict, optional
        Grid overrides, as in :func:`compare`.
    inner_folds : int >= 2
        Folds of the inner CV, as in :func:`compare`.
    n_jobs : int
        Parallel workers, as in :func:`compare`.
    blas_threads : {"auto", "default"} or int >= 1, optional
        BLAS threads per fit, as in :func:`compare`.
    force : bool
        Replace an earlier comparison in ``out``, as in :func:`compare`.
    command : str, optional
        The command line that started the run, recorded in ``run.json``.
    approximation : str, optional
        A low-rank front end, as in :func:`compare` (``"nystroem:M"``).
    resume : bool
        Finish an interrupted comparison in ``out``, as in :func:`compare`.
    fresh : bool
        ``out`` is a stem: the run claims the first of ``out``, ``out-2``,
        ``out-3``... it can create (or that is empty and unheld), atomically
        (``os.mkdir``), and locks it; two runs started together with the same
        stem get two directories (``krein compare`` without ``--out``).
    hold_lock : bool
        Keep the lock of ``out`` after returning (``result.release()`` frees
        it): the command line writes ``solver_output.txt`` under it.

    Returns
    -------
    ComparisonResult
        The summary (the table :func:`compare` returns, with the same
        ``attrs``), the per-fold table, the data and kernel, the arguments
        used, the grids, the files written and the experiment that was run.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) for a bad argument or input file, before any model
        is fitted and before anything is written.
    """
    t_start = time.perf_counter()
    approximation = check_approximation(approximation)
    entry = _data_entry(dataset, n_samples, binary, kernel_file, labels, dissimilarity,
                        symmetrize, data_file, label_column, approximation)
    order = _check_methods(methods)
    solver = _check_solver(solver, approximation)
    cv, repeats, C, inner_folds, n_jobs = _check_options(cv, repeats, C, inner_folds, n_jobs)
    blas_threads = resolve_blas_threads(blas_threads)
    grid = _check_grid(grid)
    if not _is_int(random_state) or random_state < 0:
        raise InvalidArgument("random_state", f"must be an integer >= 0; got {random_state!r}")

    # the data every cell uses (the same cached computation): a bad file or kernel
    # argument fails here, before any model is fitted and before anything is written
    data = _load(entry, kernel, kernel_params, random_state, approximation)
    labels_, counts = data.classes
    if cv > counts.min():
        raise InvalidArgument("cv", f"{cv} folds but the smallest class of {data.dataset!r} has "
                                    f"{counts.min()} objects; use cv <= {counts.min()}")
    if resume and force:
        raise InvalidArgument("resume", "not with force: --resume keeps the finished cells, "
                                        "--force deletes them")
    if resume and (out is None or fresh):
        raise InvalidArgument("resume", "needs the output directory of the run to finish (--out)")
    if not fresh:
        out = _check_out(out, force, resume)

    # methods that need inputs these data do not have are skipped, with the reason
    skipped, approx_params, notes = {}, {}, {}
    for m in order:
        for req in method_requirements(m):
            if req == "base_kernels" and data.base_kernels is None:
                skipped[m] = REQUIREMENTS[req]
        if approximation is not None and m not in skipped:
            # with an approximation: the methods that have an approximate path, with the
            # out-of-sample map and solver it takes (approximation_defaults)
            try:
                approx_params[m], lines = approximation_defaults(m, solver)
            except ValueError as exc:
                skipped[m] = str(exc)
                continue
            notes[m] = "; ".join([f"approximation {approximation}"] + lines)
    run = [m for m in order if m not in skipped]
    if not run:
        raise InvalidArgument("methods", "no method can run on these data: " + "; ".join(
            f"{m} {why}" if why.startswith("needs") else f"{m} ({why})"
            for m, why in skipped.items()))

    # grids: the registry's per method, the kernel's scale on feature data; overrides
    kernel_keys = set(data.kernel_params)
    method_over = {k: v for k, v in grid.items() if k not in kernel_keys}
    kernel_over = {k: v for k, v in grid.items() if k in kernel_keys}
    entries, grids = [], {}
    accepted_params = {m: build_estimator(m).get_params(deep=False) for m in run}
    for m in run:
        accepted = accepted_params[m]
        fixed = {"C": C} if C is not None and "C" in accepted else {}
        fixed.update(approx_params.get(m, {}))
        g = default_grid(m) if tune else {}
        g.update({k: v for k, v in method_over.items() if k in accepted and tune})
        g = {k: v for k, v in g.items() if k not in fixed}
        grids[m] = g
        entries.append({"method": m, "params": fixed, "grid": g})
    unused = [k for k in method_over if not any(k in accepted_params[m] for m in run)]
    if unused:
        raise InvalidArgument("grid", f"parameter(s) {', '.join(unused)} belong to no method run "
                                      f"and not to the kernel {data.kernel!r} (kernel parameters:"
                                      f" {', '.join(sorted(kernel_keys)) or 'none'})")
    kernel_grid = {}
    if tune:
        if data.X is not None and not data.label_dependent:
            kernel_grid = default_kernel_grid(data.kernel, data.kernel_params)
        kernel_grid.update(kernel_over)
    given = dict(kernel_params or {})
    kernel_grid = {k: v for k, v in kernel_grid.items() if k not in given or k in kernel_over}
    kernels = [{"kernel": kernel, "params": given, "grid": kernel_grid}]
    cells = classification_grid([entry], entries, kernels, folds=cv, repeats=repeats,
                                solvers=[solver], inner_folds=inner_folds, save_trace=False,
                                cv_seed=int(random_state), order="fold",
                                approximation=approximation)
    experiment = Experiment(f"compare-{data.dataset}", cells, seed=int(random_state))
    data.spectrum()

    def describe(params):
        rep = f"repeat {params['repeat'] + 1}, " if repeats > 1 else ""
        return f"{params['method']} ({rep}fold {params['fold'] + 1}/{cv})"

    lock = None
    if out is not None:
        out, lock = _claim_out(out, force, resume, fresh, experiment, command)
    try:
        with tempfile.TemporaryDirectory(prefix="krein-compare-") as tmp:
            cells_dir = os.path.join(out, "cells") if out is not None else tmp
            try:
                report = run_experiment(experiment, cells_dir, progress=progress, n_jobs=n_jobs,
                                        blas_threads=blas_threads,
                                        describe=describe)
            finally:
                _clear_shared()
            rows = report.results
        folds = _fold_table(rows)
        summary = _summarize(folds, run, skipped, order, notes)
        result = ComparisonResult(summary, folds, data, run, cv, repeats, C, solver,
                                  int(random_state), experiment=experiment, tuned=bool(tune),
                                  grids=grids, kernel_grid=kernel_grid, inner_folds=inner_folds,
                                  skipped=skipped, directory=out, approximation=approximation,
                                  notes=notes)
        result.n_reused = report.n_skipped
        result.seconds = time.perf_counter() - t_start
        if out is not None:
            result.files = _write_outputs(result, out, command)
        summary.attrs.update({
            "dataset": data.dataset, "kernel": data.kernel,
            "kernel_params": dict(data.kernel_params), "n_samples": data.n_samples, "cv": cv,
            "repeats": repeats, "C": C, "tuned": bool(tune), "approximation": approximation,
            "files": list(result.files),
        })
    except BaseException:
        if lock is not None:
            lock.close()
        raise
    if lock is not None:
        if hold_lock:
            result._lock = lock
        else:
            lock.close()
    return result


def _claim_out(out, force, resume, fresh, experiment, command):
    """Create (or take) the output directory and lock it for the run: (directory, lock).

    Under the lock the directory is checked again (another run may have written
    it since :func:`_check_out`), cleared with ``force``, matched against this
    run with ``resume``; ``args.json`` records which comparison it holds.
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
                raise InvalidArgument("out", f"{out} already holds a comparison "
                                             f"({', '.join(found[:3])}); pass --force "
                                             "(force=True) to replace it, --resume "
                                             "(resume=True) to finish it, or choose another "
                                             "directory")
            n_reused = _check_resume(out, experiment) if resume else 0
            if force:
                _clear_out(out)
        except BaseException:
            lock.close()
            raise
    try:
        fingerprint, keys = _grid_fingerprint(experiment)
        atomic_write_text(os.path.join(out, "args.json"), json.dumps(
            {"experiment": experiment.name, "grid": fingerprint, "n_cells": len(keys),
             "command": command}, indent=1) + "\n")
        if resume:
            import sys

            sys.stderr.write(f"resuming {out}: {n_reused} of {len(keys)} cells reused from "
                             f"{os.path.join(out, 'cells')}, {len(keys) - n_reused} to "
                             "compute\n")
    except BaseException:
        lock.close()
        raise
    return out, lock


def _clear_shared():
    try:
        from ._cache import clear_shared_computations
    except ImportError:  # pragma: no cover - before the shared cache exists
        return
    clear_shared_computations()


def compare(dataset="sonar", kernel=None, kernel_params=None, methods=None, cv=5, repeats=1,
            C=None, solver=None, random_state=0, out=None, progress=True, n_samples=None,
            binary=None, *, kernel_file=None, labels=None, dissimilarity=False,
            symmetrize=False, data_file=None, label_column=None, tune=True, grid=None,
            inner_folds=3, n_jobs=1, blas_threads=None, force=False, approximation=None,
            resume=False):
    """Cross-validate registered methods on one data set with one (indefinite) kernel.

    Nested cross-validation by default (module docstring): each repeat ``r``
    is a stratified ``cv``-fold split, the SAME for every method; on each
    outer training split an inner stratified ``inner_folds``-fold CV chooses
    the method's parameters from its registry grid
    (:func:`krein.registry.default_grid`) and, on feature data, the kernel's
    scale parameter (:func:`krein.kernel_data.default_kernel_grid`); the
    method is refitted with them and scored on the outer test split.  A method
    that raises is recorded as an error, not a crash; a method that needs
    inputs the data do not have is listed as skipped with the reason.

    Parameters
    ----------
    dataset : str
        A name from :func:`krein.datasets.available_datasets` (ignored with
        ``kernel_file`` or ``data_file``): a shipped vector data set,
        standardized (zero mean, unit variance per feature over all rows;
        ``"pick-out-munoz-ionosphere"`` keeps raw features by default); a
        dissimilarity data set; ``"checkerboard"``
        (``make_checkerboard(n_samples or 300, overlap=0.1)``, standardized);
        or ``"munoz-artificial"`` (raw coordinates, default kernel
        ``"pick-out-linear"``, built per fold from the training labels).
    kernel : str, optional
        Vector data: a name from :data:`krein.kernels.KERNELS` (default
        ``"sigmoid"``) or a pick-out kernel of
        :data:`krein.kernel_data.PICK_OUT_KERNELS`.  Dissimilarity data
        (bundled, or ``kernel_file`` with ``dissimilarity``):
        ``"dissimilarity-linear"`` (``-1/2 J D^2 J``, the default),
        ``"dissimilarity-raw"`` (``K = D``) or ``"dissimilarity-gaussian"``.
        A kernel matrix file: ``"precomputed"`` (the default; the only one).
    kernel_params : dict, optional
        Kernel parameters; missing ones get
        :func:`krein.kernel_data.default_kernel_params` (sigmoid: ``a = 4 /
        n_features``, ``r = -2``).  A parameter given here is not tuned
        unless ``grid`` names it.
    methods : list of str, optional
        Names of classifiers from :func:`krein.list_methods` (a string is split
        at commas); default the classifiers registered with ``compare=True``.
    cv : int >= 2
        Number of outer folds.
    repeats : int >= 1
        Number of repetitions of the K-fold split (different shuffles).
    C : float > 0, optional
        A fixed box bound / slack weight for every method that has one (then
        not tuned); None: tuned (or the methods' ``C = 1`` with ``tune=False``).
    solver : str, optional
        ``"libsvm"`` or an installed CVXPY solver, passed to the methods that
        have a ``solver`` parameter (a method that rejects it records errors).
    random_state : int >= 0
        The run's seed: the outer and inner splits of repeat ``r`` use
        ``random_state + r``; synthetic data, a subsample and every
        estimator's ``random_state`` derive from it
        (:func:`krein.experiment.cell_seed`).
    out : str or path-like, optional
        Directory (created if needed) for the output files (module docstring);
        one that already holds a comparison is refused unless ``force``.
        None: nothing is written.
    progress : bool
        Show a tqdm progress bar over the cells, naming the ones running (stderr).
    n_samples : int, optional
        Size of a synthetic data set, or a stratified subsample of a shipped one.
    binary : optional
        Binary task of the data set (see :func:`krein.kernel_data.load_kernel_data`).
    kernel_file : str or path-like, optional
        The user's kernel (or, with ``dissimilarity``, dissimilarity) matrix:
        ``.npy``, ``.npz`` (``file.npz:key`` names an array), ``.csv``,
        whitespace ``.txt``, MATLAB ``.mat`` (``file.mat:key``);
        :func:`krein.kernel_data.load_kernel_file`.
    labels : str or path-like, optional
        Labels of ``kernel_file``: one per line, any values (strings kept).
    dissimilarity : bool
        ``kernel_file`` holds dissimilarities (zero diagonal, non-negative).
    symmetrize : bool
        Accept an asymmetric ``kernel_file`` and use ``(K + K') / 2`` (recorded).
    data_file : str or path-like, optional
        The user's feature vectors: CSV or whitespace text with the label in a
        column, or LIBSVM/svmlight format;
        :func:`krein.kernel_data.load_feature_file` (standardized like the
        bundled sets).
    label_column : str or int, optional
        The label column of ``data_file`` (name or index; default the last).
    tune : bool
        Choose parameters by inner cross-validation (True), or fit every
        method with fixed values (``C``, else the estimators' defaults).
    grid : dict, optional
        Overrides of the grids, ``{parameter: list of values}``: a method
        parameter (``C``, ``rho``, ``mu``...) replaces that entry of every
        method that has the parameter; a kernel parameter (``a``, ``gamma``...)
        the kernel grid.
    inner_folds : int >= 2
        Folds of the inner cross-validation.
    n_jobs : int
        Parallel worker processes over the cells (``-1``: all cores).
    blas_threads : {"auto", "default"} or int >= 1, optional
        BLAS threads of each fit (:mod:`krein._threads`): ``"auto"`` gives
        the fits on kernels of at most 1000 objects one thread (threaded BLAS
        only spins on such matrices, and the parallelism is over the cells),
        larger ones the libraries' default; ``k``: at most ``k`` threads;
        ``"default"``: no limit.  None: ``$KREIN_BLAS_THREADS``, else ``"auto"``.
    force : bool
        Replace the files of an earlier comparison in ``out`` (refused while
        another run holds ``out``).
    approximation : str, optional
        ``"nystroem:M"`` (or ``"nystroem:M:kmeans++"``): run on data too large
        for the ``n x n`` kernel.  No kernel matrix is formed anywhere: every
        fit gets feature vectors, the named kernel and an
        :class:`krein.approximation.IndefiniteNystroem` with ``M`` landmarks
        (drawn among its training rows with the fold's seed, the same for
        every method; refitted by every fit, inner CV included), and trains
        the method's linear model on the signed Nyström features.  Only the
        methods with an approximate path run (ESVM, the spectrum corrections,
        KSVM: the estimators with an ``approximation`` parameter); the others
        are listed as skipped (:data:`krein.experiment.classification.NO_APPROXIMATE_PATH`).
        Without ``solver``, ESVM and the corrections use ``"liblinear"``, KSVM
        ``"CLARABEL"``; clip and shift map test points by
        ``out_of_sample="spectral"`` (their raw map needs dual coefficients);
        each change is in the method's ``note``.  The spectrum, ``min_eigenvalue``,
        ``r_mm`` and ``r_neg`` are those of the approximation (of all objects,
        of each training fold), ``n_support`` is NaN.  Feature data only (a
        shipped vector or synthetic set, ``data_file``) with a kernel of
        :data:`krein.kernels.KERNELS`; with a kernel or dissimilarity matrix
        it is an error.  None: the exact kernel.
    resume : bool
        Finish an interrupted comparison in ``out``: the cells already in
        ``out/cells`` are reused, only the missing ones are computed (a line
        on stderr says how many were reused), then every output file is
        written.  Refused (``InvalidArgument``) when ``out`` was written by a
        different comparison (other data, kernel, methods, folds, grids or
        seed: its ``args.json`` or its cells do not match), and with ``force``.

    Returns
    -------
    pandas.DataFrame
        One row per method (:data:`SUMMARY_COLUMNS`): ``status`` ("ok",
        "partial", "failed", "skipped"), ``accuracy_mean``, ``accuracy_std``
        (sample standard deviation over the repeat x fold cells),
        ``best_params`` (JSON: the most frequent chosen value of each tuned
        parameter, kernel ones as ``kernel_<name>``), ``fit_seconds_mean``,
        ``n_support_mean`` (``len(est.support_)``), ``min_eigenvalue_mean``,
        ``r_mm_mean``, ``r_neg_mean`` (of the training blocks, Munoz & de
        Diego eq. 2), ``certificate`` (the largest certificate value over the
        folds, :func:`krein.experiment.certificate_measure`), ``n_folds``,
        ``n_errors`` and ``note`` (skip reason or first error).  ``attrs``
        holds the data set, kernel, parameters used, the ``approximation``
        and the files written.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument (or file) and the accepted
        values, before any model is fitted and before anything is written.

    See Also
    --------
    run_comparison : the same, returning the per-fold table and diagnostics too.

    Examples
    --------
    >>> from krein.compare import compare
    >>> table = compare("checkerboard", kernel_params={"a": 1.0, "r": -0.5}, n_samples=80,
    ...                 methods=["esvm", "clip"], cv=3, progress=False)  # doctest: +SKIP
    """
    return run_comparison(dataset, kernel, kernel_params, methods, cv, repeats, C, solver,
                          random_state, out, progress, n_samples, binary,
                          kernel_file=kernel_file, labels=labels, dissimilarity=dissimilarity,
                          symmetrize=symmetrize, data_file=data_file, label_column=label_column,
                          tune=tune, grid=grid, inner_folds=inner_folds, n_jobs=n_jobs,
                          force=force, blas_threads=blas_threads,
                          approximation=approximation, resume=resume).summary


# --------------------------------------------------------------------------- output files
def _label_names(data):
    labels, counts = data.classes
    return [[str(v), int(c)] for v, c in zip(labels.tolist(), counts.tolist())]


def run_info(result, command=None):
    """The ``run.json`` record of a comparison: data, spectrum summary, protocol.

    Parameters
    ----------
    result : ComparisonResult
        A finished comparison.
    command : str, optional
        The command line that started it.

    Returns
    -------
    dict
        JSON-serializable: ``krein_version``, ``created``, ``seconds``,
        ``command``, ``data`` (name, source, kind, size, classes with counts,
        kernel and parameters, notes), ``spectrum`` (signature, extreme
        eigenvalues, r_mm, r_neg of the kernel on all objects; in an
        approximated run of its Nyström approximation, with ``approximation``
        and its ``rank``), ``protocol`` (folds, seed, tuned, grids, fixed
        parameters, ``approximation``), ``approximation`` (None, or the
        front end, its landmarks and what it changed per method), ``methods``
        and ``skipped``.
    """
    data = result.data
    s = data.spectrum().summary()
    source = getattr(data, "source", "") or f"bundled data set {data.dataset}"
    fixed = {m: ({"C": result.C} if result.C is not None and "C" in
                 build_estimator(m).get_params(deep=False) else {}) for m in result.methods}
    if result.approximation is not None and result.experiment is not None:
        fixed = {m: _method_params(result, m) for m in result.methods}
    spectrum = {k: s[k] for k in SPECTRUM_KEYS}
    approximation = None
    if result.approximation is not None:
        spectrum.update(approximation=result.approximation, rank=int(s["p"] + s["q"]))
        front = make_approximation(result.approximation)
        approximation = {"name": result.approximation, "method": "nystroem",
                         "n_components": front.n_components, "landmarks": front.landmarks,
                         "seed": "outer split seed (run seed + repeat), per fold",
                         "notes": dict(result.notes)}
    return json.loads(json.dumps({
        "krein_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": result.seconds, "command": command,
        "data": {"name": data.dataset, "source": source, "kind": data.kind,
                 "n_samples": data.n_samples, "n_features": data.n_features,
                 "description": data.description, "classes": _label_names(data),
                 "kernel": data.kernel, "kernel_params": dict(data.kernel_params),
                 "notes": list(getattr(data, "notes", ()))},
        "spectrum": spectrum,
        "protocol": {"cv": result.cv, "repeats": result.repeats,
                     "inner_folds": result.inner_folds, "seed": result.random_state,
                     "tuned": result.tuned, "scoring": "accuracy", "solver": result.solver,
                     "kernel_grid": result.kernel_grid, "grids": result.grids, "fixed": fixed,
                     "approximation": result.approximation},
        "approximation": approximation,
        "methods": list(result.methods) + [m for m in result.skipped],
        "skipped": dict(result.skipped),
    }, default=_json_default))


def _json_default(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def _write_outputs(result, out, command):
    data = result.data
    files = []
    info = run_info(result, command)

    def csv(name, df):
        files.append(atomic_write_bytes(os.path.join(out, name), csv_bytes(df, index=False)))

    csv("summary.csv", result.summary)
    csv("folds.csv", result.folds)
    csv("spectrum.csv", pd.DataFrame({"eigenvalue": data.spectrum().eigenvalues}))
    if data.X is not None and data.X.shape[1] == 2:
        points, boundaries = _boundaries(result)
        csv("points.csv", points)
        csv("boundaries.csv", boundaries)
    files.append(atomic_write_text(os.path.join(out, "run.json"),
                                   json.dumps(info, indent=1) + "\n"))
    try:
        from .experiment.page import write_report
    except ImportError:  # pragma: no cover - before the report page exists
        return files
    report = write_report(out)
    figures = [os.path.join(out, f) for f in ("spectrum.png", "accuracy.png", "boundaries.png")]
    files += [f for f in figures if os.path.exists(f)] + [report]
    return files


def spectrum_plot(data):
    """The spectrum figure of the report page for a kernel on its own (``krein diagnose``).

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel.

    Returns
    -------
    matplotlib.figure.Figure
        :func:`krein.experiment.page.spectrum_figure` of ``data.spectrum()``.
    """
    from .experiment.page import SavedComparison, spectrum_figure

    s = data.spectrum().summary()
    run = {"data": {"name": data.dataset, "kernel": data.kernel,
                    "kernel_params": dict(data.kernel_params), "n_samples": data.n_samples},
           "spectrum": {k: s[k] for k in SPECTRUM_KEYS}}
    run = json.loads(json.dumps(run, default=_json_default))
    return spectrum_figure(SavedComparison("", run, pd.DataFrame(), pd.DataFrame(),
                                           np.asarray(data.spectrum().eigenvalues, dtype=float)))


def _boundaries(result, grid=BOUNDARY_GRID):
    """Predictions of every method, trained on all the data with its most often chosen
    parameters, on a regular grid (Loosli et al. 2013 Fig. 3): ``points`` and
    ``boundaries`` tables."""
    data = result.data
    X, y = data.X, data.y
    points = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "label": [str(v) for v in y]})
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    G0, G1 = np.meshgrid(np.linspace(lo[0] - pad[0], hi[0] + pad[0], grid),
                         np.linspace(lo[1] - pad[1], hi[1] + pad[1], grid))
    grid_points = np.column_stack([G0.ravel(), G1.ravel()])
    frames = []
    chosen = dict(zip(result.summary["method"], result.summary["best_params"]))
    for name in result.methods:
        best = json.loads(chosen.get(name) or "{}")
        params = {k: v for k, v in best.items() if not k.startswith("kernel_")}
        kparams = {k[len("kernel_"):]: v for k, v in best.items() if k.startswith("kernel_")}
        if result.C is not None and "C" in build_estimator(name).get_params(deep=False):
            params.setdefault("C", result.C)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                d = _with_kernel_params(data, kparams) if kparams else data
                if result.approximation is not None:  # feature vectors, no n x n kernel
                    params.update({k: v for k, v in _method_params(result, name).items()
                                   if k not in params})
                    est = build_estimator(name, params, result.solver,
                                          random_state=result.random_state,
                                          approximation=make_approximation(
                                              result.approximation, result.random_state),
                                          kernel=d.kernel, kernel_params=d.kernel_params)
                    K_all, R = X, grid_points
                else:
                    est = build_estimator(name, params, result.solver,
                                          random_state=result.random_state)
                    K_all, R = d.K, d.rows(grid_points)
                if d.base_kernels is not None and accepts_stacked_kernels(est):
                    K_all, R = d.stacked_kernel(), d.rows(grid_points, stacked=True)
                est.fit(K_all, y)
                pred = est.predict(R)
                acc = float(np.mean(est.predict(K_all) == y))
            frames.append(pd.DataFrame({"method": name, "x0": grid_points[:, 0],
                                        "x1": grid_points[:, 1],
                                        "prediction": [str(v) for v in pred],
                                        "train_accuracy": acc, "error": ""}))
        except Exception as exc:
            frames.append(pd.DataFrame({"method": [name], "x0": [np.nan], "x1": [np.nan],
                                        "prediction": [""], "train_accuracy": [np.nan],
                                        "error": [error_text(exc)]}))
    return points, pd.concat(frames, ignore_index=True)


def _method_params(result, name):
    """The fixed parameters of a method's cells (``C``, an approximated run's changes)."""
    cell = next((c for c in result.experiment.cells if c.params["method"] == name), None)
    return dict(cell.params.get("method_params") or {}) if cell is not None else {}


def _with_kernel_params(data, kparams):
    """The same data with other kernel parameters (the kernel recomputed on all objects;
    in an approximated run only the parameters change)."""
    from dataclasses import replace

    from .kernels import pairwise_kernel

    params = {**data.kernel_params, **kparams}
    if data.K is None:
        return replace(data, kernel_params=params, _spectrum=None)
    K = pairwise_kernel(data.kernel, data.X, None, params)
    return replace(data, kernel_params=params, K=0.5 * (K + K.T), _spectrum=None)
