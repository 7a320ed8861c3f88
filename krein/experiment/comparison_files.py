"""Every file of a comparison directory, defined once: names, columns, types, keys, reader.

``krein compare`` (:mod:`krein.compare`) writes a directory of plain files
whose tables are defined here (:data:`COMPARISON_FILES`: name, columns in the
writer's order, required columns, numeric and integer columns, the key of a
row); the writer takes its columns from these definitions
(:func:`write_table`) and the report page reads the files back through
:func:`read_comparison`, the one validating reader of a comparison directory.

The directory
-------------
The directory
-------------
* ``run.json``: one JSON object with ``krein_version``, ``created`` (ISO 8601),
  ``seconds`` (the whole run: cells, boundaries, files, figures, page), ``boundary_seconds``
  and ``output_seconds`` (its parts), ``command`` (or null), ``data`` (``name``, ``source``, ``kind``,
  ``n_samples``, ``n_features``, ``description``, ``classes`` as
  ``[[label, count], ...]`` with the original label names as strings,
  ``kernel``, ``kernel_params``, ``notes``), ``spectrum`` (``n, p, q, z,
  min_eigenvalue, max_eigenvalue, r_mm, r_neg``), ``protocol`` (``cv``,
  ``repeats``, ``inner_folds``, ``inner`` (``"3-fold"`` or ``"validation split 20 %"``),
  ``validation_fraction``, ``seed``, ``tuned``, ``scoring``, ``solver``,
  ``kernel_grid``, ``grids`` and ``fixed`` per method), ``methods`` and
  ``skipped`` (method -> reason).  Missing keys are shown as "not recorded".
* ``summary.csv``: one row per method (:data:`COMPARISON_COLUMNS`), ``status``
  one of :data:`STATUSES`, accuracies as fractions in [0, 1], ``best_params``
  a JSON object (the most frequent chosen value per tuned parameter),
  ``p_value`` the Holm-adjusted one-sided p-value of "worse than the best"
  and ``group`` one of ``best``, ``not worse``, ``worse`` (empty: not tested;
  :func:`krein.experiment.statistics.significance_groups`), ``edge`` the
  tuned parameters chosen at an end of their grid in most folds
  (:func:`krein.experiment.statistics.edge_of_grid`; empty: none; with the
  adaptive search only those at a limit of it), ``extended`` the grids the
  adaptive search extended (:func:`krein.experiment.statistics.grid_extensions`),
  ``auc_mean`` / ``auc_std`` the mean and standard deviation of the folds'
  ``auc`` (empty for a multiclass problem).  A regression (``protocol.task``
  ``"regression"`` in ``run.json``, with ``data.target``: the targets' count,
  mean, standard deviation, least and largest value, and ``data.classes``
  empty) leaves the accuracies and AUCs empty and writes ``rmse_mean``,
  ``rmse_std``, ``mae_mean``, ``mae_std``, ``r2_mean``, ``r2_std``; its
  ``p_value`` and ``group`` test the folds' RMSE (lower is better).  A novelty
  comparison (``protocol.task`` ``"novelty"``, labels 1 / -1) writes the
  classification columns; its ``auc`` is of inliers against outliers and its
  ``p_value`` and ``group`` test the folds' AUC.
* ``folds.csv``: one row per (method, repeat, fold), ``error`` empty when the
  fold succeeded (``accuracy`` NaN when it failed), ``auc`` the ROC AUC of
  the method's decision values on the fold's test part (binary problems;
  empty for multiclass, a test part with one class, or a failed fold:
  :func:`krein.experiment.metrics.fold_auc`), ``grid_search``
  the adaptive search of the inner CV as a JSON object (per tuned parameter:
  ``range`` searched, extensions ``down`` and ``up``, ``limit`` the limit its
  chosen end stopped at, ``feasible`` the range its values were placed in;
  :mod:`krein.experiment.tuning`; empty when the grids were searched as
  given) and ``n_grid_points`` the grid points it scored; a regression's folds
  have ``rmse``, ``mae`` and ``r2`` (the targets' unit; R^2 a ratio) and an empty
  ``accuracy`` and ``auc``.
* ``predictions.csv``: one row per (method, repeat, fold, test object) of
  every fold that succeeded: ``object`` the object's 0-based row in the file
  that holds it (the matrix file; with a predefined test part, the test
  file's row), ``name`` its name where the data have names, ``y_true`` and
  ``y_pred`` the labels as text (a regression: the true and predicted values
  as numbers in text, ``correct`` empty), ``correct`` 1 or 0, ``decision`` the
  decision value of the second class (binary problems), ``probability`` the
  estimated probability of the predicted class (methods fitted with
  ``probability=True``).  The reader rebuilds each fold's per-object
  ``test_correct`` (for McNemar's test) from it; a directory without the file
  reads the column from ``folds.csv``, where older versions wrote it.
* ``spectrum.csv``: the column ``eigenvalue``, the eigenvalues of the kernel
  on all objects.
* Only for 2-D feature data, both or neither: ``points.csv`` (``x0, x1,
  label``) and ``boundaries.csv`` (``method, x0, x1, prediction,
  train_accuracy, error``: each method's predicted label on a regular grid,
  trained on all the data; a failed method has one row with empty
  coordinates and its error).
* Only for a matrix whose objects have names (a named matrix file, an edge
  list): ``objects.csv`` (``part, index, name, label``), one row per object
  in the matrix's order (``part`` ``train``), then, for a named predefined
  test part, one per test object (``part`` ``test``, in the order of the
  test rows); ``index`` (from 0) is the object's position in its part: the
  index the folds' test parts are drawn from, and the order of
  ``test_correct`` in ``folds.csv`` on a predefined test part, so that every
  fold's objects can be named.

The columns of :data:`REQUIRED_COLUMNS` must be present (a
:class:`ValueError` names the file and the missing ones); the other columns
of :data:`COMPARISON_COLUMNS` are optional and read as empty (a directory
written before a column existed still reads).  Text columns are read
verbatim (a label ``"NA"`` stays ``"NA"``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._io import atomic_write_bytes, csv_bytes
from .validate import ResultFileError, read_json_object, scan_csv

__all__ = ["ComparisonFile", "COMPARISON_FILES", "SavedComparison", "read_comparison",
           "read_predictions", "write_table", "COMPARISON_COLUMNS", "REQUIRED_COLUMNS",
           "STATUSES", "RUN_FILE", "ARGS_FILE", "SUMMARY_FILE", "FOLDS_FILE", "PREDICTIONS_FILE",
           "SPECTRUM_FILE", "POINTS_FILE", "BOUNDARIES_FILE", "REPORT_FILE", "FIGURE_FILES",
           "SOLVER_OUTPUT_FILE", "CELLS_DIR", "OUTPUT_FILES", "SPECTRUM_KEYS", "status_text",
           "SUSPECT_REASON", "OBJECTS_FILE"]

#: File names of a comparison directory.
RUN_FILE = "run.json"
ARGS_FILE = "args.json"
SUMMARY_FILE = "summary.csv"
FOLDS_FILE = "folds.csv"
PREDICTIONS_FILE = "predictions.csv"
SPECTRUM_FILE = "spectrum.csv"
POINTS_FILE = "points.csv"
OBJECTS_FILE = "objects.csv"
BOUNDARIES_FILE = "boundaries.csv"
#: The page :func:`krein.experiment.page.write_report` writes.
REPORT_FILE = "report.html"
#: The figures of the page (``boundaries`` only for 2-D data).
FIGURE_FILES = {"spectrum": "spectrum.png", "accuracy": "accuracy.png",
                "boundaries": "boundaries.png"}
#: What the solvers printed during a command-line run.
SOLVER_OUTPUT_FILE = "solver_output.txt"
#: The runner's directory of a comparison: its cells, and the boundary cells in
#: ``cells/boundaries``.
CELLS_DIR = "cells"

#: Files (and the runner's directory) a comparison writes into its directory.
OUTPUT_FILES = (ARGS_FILE, RUN_FILE, SUMMARY_FILE, FOLDS_FILE, PREDICTIONS_FILE, SPECTRUM_FILE,
                POINTS_FILE, OBJECTS_FILE,
                BOUNDARIES_FILE, REPORT_FILE, FIGURE_FILES["accuracy"], FIGURE_FILES["spectrum"],
                FIGURE_FILES["boundaries"], SOLVER_OUTPUT_FILE, CELLS_DIR)

#: Entries of ``Spectrum.summary()`` recorded in ``run.json`` (and drawn on the page).
SPECTRUM_KEYS = ("n", "p", "q", "z", "min_eigenvalue", "max_eigenvalue", "r_mm", "r_neg")

#: Values of the ``status`` column of ``summary.csv``: ``ok`` only when every fold ran
#: without an error, a warning (e.g. a ``ConvergenceWarning`` at ``max_iter``) or a failed
#: inner fit; ``warning`` when every fold ran but one of those happened; ``suspect`` when
#: every fold ran but the method scores at or below the majority class on a matrix that looks
#: like a distance (:data:`SUSPECT_REASON`); ``partial`` when some folds failed, ``failed``
#: when all did.
STATUSES = ("ok", "warning", "suspect", "partial", "failed", "skipped")

#: Why a method is ``suspect``: every fold ran, but its mean accuracy is at or below the
#: majority-class rate on a matrix given as a kernel that looks like a distance matrix
#: (:func:`krein.diagnosis.kernel_suitability`): the classic sign of distances read as
#: similarities.
SUSPECT_REASON = ("at or below the majority-class rate on a matrix that looks like a distance "
                  "(use --dissimilarity)")

#: Counts of the per-fold inner model selection in ``folds.csv`` (fits that raised, warnings);
#: beside them ``inner_error``, the first failed inner fit's exception on one line.
_INNER = ("n_inner_failures", "n_inner_warnings")

#: The per-fold scores of a regression in ``folds.csv`` (empty in a classification), and their
#: means and sample standard deviations in ``summary.csv``.
_REGRESSION_SCORES = ("rmse", "mae", "r2")
_REGRESSION_SUMMARY = tuple(f"{k}_{s}" for k in _REGRESSION_SCORES for s in ("mean", "std"))

#: The column of ``folds.csv`` (``summary.csv``: with ``_mean``) that a fold without an
#: error always has, per task (``run.json``'s ``protocol.task``; classification when absent).
PRIMARY_SCORE = {"classification": "accuracy", "regression": "rmse", "novelty": "auc"}

#: Counts in ``summary.csv`` behind a ``warning`` status, per method: folds whose refit
#: warned, folds whose refit raised a ``ConvergenceWarning``, and the sums of :data:`_INNER`.
_HONEST = ("n_warnings", "n_not_converged", *_INNER)


def status_text(row):
    """The status of a ``summary.csv`` row as the table and the page show it.

    Parameters
    ----------
    row : mapping
        A row of ``summary.csv`` (``status``, ``n_folds``, ``n_errors`` and the
        counts of :data:`_HONEST`; missing or empty counts read as 0).

    Returns
    -------
    str
        ``"ok"``, ``"skipped"``, ``"suspect (...)"`` (short for
        :data:`SUSPECT_REASON`), or the status with its counts, e.g.
        ``"warning (5/5 not converged)"``, ``"partial (2/5 failed; 3 inner fits
        failed)"``.
    """
    def count(key):
        v = row.get(key) if hasattr(row, "get") else None
        try:
            v = float(v)
        except (TypeError, ValueError):
            return 0
        return int(v) if math.isfinite(v) else 0

    status, n = str(row["status"]), count("n_folds")
    if status in ("ok", "skipped"):
        return status
    if status == "suspect":
        return "suspect (<= majority class; the matrix looks like a distance: --dissimilarity)"
    parts = []
    if count("n_errors"):
        parts.append(f"{count('n_errors')}/{n} failed")
    if count("n_not_converged"):
        parts.append(f"{count('n_not_converged')}/{n} not converged")
    other = count("n_warnings") - count("n_not_converged")
    if other > 0:
        parts.append(f"{other}/{n} warned")
    if count("n_inner_failures"):
        parts.append(f"{count('n_inner_failures')} inner fits failed")
    if count("n_inner_warnings"):
        parts.append(f"{count('n_inner_warnings')} inner warnings")
    return f"{status} ({'; '.join(parts)})" if parts else status


@dataclass(frozen=True)
class ComparisonFile:
    """The definition of one CSV file of a comparison directory.

    Parameters
    ----------
    name : str
        File name.
    columns : tuple of str
        Every column, in the writer's order.
    required : tuple of str
        Columns without which the reader refuses the file.
    numeric : tuple of str, default ()
        Columns whose non-empty values are numbers (read as floats).
    integer : tuple of str, default ()
        Numeric columns read as integers when every value is a whole number.
    key : str or tuple of str or None, default None
        The column(s) identifying a row (unique in the file).
    """

    name: str
    columns: tuple
    required: tuple
    numeric: tuple = ()
    integer: tuple = ()
    key: object = None


#: Every CSV file of a comparison directory, by name.
COMPARISON_FILES = {f.name: f for f in (
    ComparisonFile(
        SUMMARY_FILE,
        columns=("method", "status", "accuracy_mean", "accuracy_std", "auc_mean", "auc_std",
                 *_REGRESSION_SUMMARY, "best_params",
                 "fit_seconds_mean", "n_support_mean", "min_eigenvalue_mean", "r_mm_mean",
                 "r_neg_mean", "certificate", "n_folds", "n_errors", "note", *_HONEST,
                 # significance vs the best and the edge-of-grid flag (krein.experiment.statistics)
                 "p_value", "group", "edge", "extended"),
        required=("method", "status", "accuracy_mean", "accuracy_std"),
        numeric=("accuracy_mean", "accuracy_std", "auc_mean", "auc_std", *_REGRESSION_SUMMARY,
                 "fit_seconds_mean",
                 "n_support_mean",
                 "min_eigenvalue_mean", "r_mm_mean", "r_neg_mean", "n_folds", "n_errors",
                 *_HONEST, "p_value"),
        integer=("n_folds", "n_errors", *_HONEST), key="method"),
    ComparisonFile(
        FOLDS_FILE,
        columns=("method", "repeat", "fold", "n_train", "n_test", "accuracy", "auc",
                 *_REGRESSION_SCORES, "best_params",
                 "inner_score", "fit_seconds", "select_seconds", "n_support", "min_eigenvalue",
                 "r_mm", "r_neg", "solver_status", "gap", "certificate", "certificate_value",
                 "error", "warnings", "solver_used", *_INNER, "inner_error",
                 # the adaptive search of the inner CV (krein.experiment.tuning)
                 "grid_search", "n_grid_points"),
        required=("method", "accuracy", "error"),
        numeric=("repeat", "fold", "n_train", "n_test", "accuracy", "auc", *_REGRESSION_SCORES,
                 "inner_score",
                 "fit_seconds", "select_seconds", "n_support", "min_eigenvalue", "r_mm",
                 "r_neg", "gap", "certificate_value", *_INNER, "n_grid_points"),
        integer=("repeat", "fold", "n_train", "n_test"), key=("method", "repeat", "fold")),
    ComparisonFile(
        PREDICTIONS_FILE,
        columns=("method", "repeat", "fold", "object", "name", "y_true", "y_pred", "correct",
                 "decision", "probability"),
        required=("method", "repeat", "fold", "object", "y_true", "y_pred"),
        numeric=("repeat", "fold", "object", "correct", "decision", "probability"),
        integer=("repeat", "fold", "object", "correct"),
        key=("method", "repeat", "fold", "object")),
    ComparisonFile(SPECTRUM_FILE, columns=("eigenvalue",), required=("eigenvalue",),
                   numeric=("eigenvalue",)),
    ComparisonFile(POINTS_FILE, columns=("x0", "x1", "label"), required=("x0", "x1", "label"),
                   numeric=("x0", "x1")),
    ComparisonFile(OBJECTS_FILE, columns=("part", "index", "name", "label"),
                   required=("part", "index", "name", "label"), numeric=("index",),
                   integer=("index",), key=("part", "index")),
    ComparisonFile(BOUNDARIES_FILE,
                   columns=("method", "x0", "x1", "prediction", "train_accuracy", "error"),
                   required=("method", "x0", "x1", "prediction"),
                   numeric=("x0", "x1", "train_accuracy")),
)}

#: The columns of each CSV file of a comparison directory, in the writer's order.
COMPARISON_COLUMNS = {name: f.columns for name, f in COMPARISON_FILES.items()}

#: The columns without which a file is rejected (the others are read as empty).
REQUIRED_COLUMNS = {name: f.required for name, f in COMPARISON_FILES.items()}

_MISSING_TEXT = {"", "nan", "na", "n/a", "none", "null"}


def write_table(directory, name, frame):
    """Write one CSV file of a comparison directory with its defined columns, atomically.

    Parameters
    ----------
    directory : str or path-like
        The comparison directory.
    name : str
        A file of :data:`COMPARISON_FILES`.
    frame : pandas.DataFrame
        The table; it must have every column of the definition (others are
        left out), written in the definition's order, without the index.

    Returns
    -------
    str
        The path written (:func:`krein._io.atomic_write_bytes`).

    Raises
    ------
    ValueError
        When ``frame`` lacks a defined column.
    """
    columns = list(COMPARISON_FILES[name].columns)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: the table lacks the column(s) {', '.join(missing)}")
    return atomic_write_bytes(os.path.join(os.fspath(directory), name),
                              csv_bytes(frame[columns], index=False))


# --------------------------------------------------------------------------- reading
@dataclass(eq=False)
class SavedComparison:
    """The files of one comparison directory, read by :func:`read_comparison`.

    Parameters
    ----------
    directory : str
        The directory the files were read from.
    run : dict
        The content of ``run.json`` (run information, data, spectrum, protocol).
    summary : pandas.DataFrame
        ``summary.csv``: one row per method, in the table's order; numeric
        columns as floats (counts as integers), text columns as strings.
    folds : pandas.DataFrame
        ``folds.csv``: one row per (method, repeat, fold); for a single split
        per method with ``test_correct`` rebuilt from ``predictions.csv``.
    eigenvalues : numpy.ndarray of shape (n,)
        ``spectrum.csv``: the eigenvalues of the kernel on all objects, ascending.
    points : pandas.DataFrame or None
        ``points.csv`` (``x0, x1, label``; labels as strings) for 2-D feature
        data, else None.
    boundaries : pandas.DataFrame or None
        ``boundaries.csv`` (predictions on a grid, per method) for 2-D feature
        data, else None.
    objects : pandas.DataFrame or None
        ``objects.csv`` (``part, index, name, label``) for a matrix with
        object names, else None.

    Notes
    -----
    The per-object predictions (``predictions.csv``) are read on demand by
    :func:`read_predictions`.
    """

    directory: str
    run: dict
    summary: pd.DataFrame
    folds: pd.DataFrame
    eigenvalues: np.ndarray
    points: pd.DataFrame | None = None
    boundaries: pd.DataFrame | None = None
    objects: pd.DataFrame | None = None

    @property
    def data(self):
        """The ``data`` object of ``run.json`` (an empty dict when absent).

        Returns
        -------
        dict
            Name, source, kind, sizes, classes, kernel and notes of the data.
        """
        return self.run.get("data") or {}

    @property
    def protocol(self):
        """The ``protocol`` object of ``run.json`` (an empty dict when absent).

        Returns
        -------
        dict
            Outer and inner folds, repeats, seed, grids and fixed parameters.
        """
        return self.run.get("protocol") or {}

    @property
    def classes(self):
        """The classes with their counts, from ``run.json``, else from ``points.csv``.

        Returns
        -------
        list of (str, int)
            ``(label, count)`` in the producer's order; empty when neither
            file records them.
        """
        out = []
        for item in self.data.get("classes") or []:
            if isinstance(item, (list, tuple)) and len(item) == 2:
                out.append((str(item[0]), _as_int(item[1])))
            elif isinstance(item, dict) and "label" in item:
                out.append((str(item["label"]), _as_int(item.get("count"))))
        if not out and self.points is not None:
            counts = self.points["label"].value_counts(sort=False)
            out = [(str(k), int(v)) for k, v in counts.items()]
        return out

    @property
    def majority_rate(self):
        """Accuracy of always predicting the largest class (NaN when unknown).

        Returns
        -------
        float
            ``max(count) / sum(count)`` over :attr:`classes`.
        """
        counts = [c for _, c in self.classes if c is not None]
        total = sum(counts)
        return max(counts) / total if counts and total > 0 else float("nan")

    @property
    def spectrum(self):
        """The spectrum figures of ``run.json``, completed from the eigenvalues.

        Returns
        -------
        dict
            ``n, p, q, z, min_eigenvalue, max_eigenvalue, r_mm, r_neg``: the
            values of ``run.json`` where recorded, else computed from
            :attr:`eigenvalues` (zero tolerance ``n * eps * max|lam|``, as
            :class:`krein.spectrum.Spectrum`).
        """
        lam = self.eigenvalues
        n = lam.size
        tol = n * np.finfo(float).eps * float(np.max(np.abs(lam))) if n else 0.0
        p, q = int(np.sum(lam > tol)), int(np.sum(lam < -tol))
        lmin, lmax = (float(lam.min()), float(lam.max())) if n else (math.nan, math.nan)
        if lmin >= -tol:
            r_mm = 0.0
        elif lmax <= tol:
            r_mm = math.inf
        else:
            r_mm = 100.0 * -lmin / lmax
        total = float(np.abs(lam).sum())
        r_neg = 100.0 * float(-lam[lam < 0].sum()) / total if total else 0.0
        computed = {"n": n, "p": p, "q": q, "z": n - p - q, "min_eigenvalue": lmin,
                    "max_eigenvalue": lmax, "r_mm": r_mm, "r_neg": r_neg}
        recorded = self.run.get("spectrum") or {}
        return {k: (recorded[k] if recorded.get(k) is not None else v)
                for k, v in computed.items()}


def _as_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _read_csv(directory, name, scans=None):
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file (a comparison directory holds "
                                f"{RUN_FILE}, {SUMMARY_FILE}, {FOLDS_FILE} and {SPECTRUM_FILE})")
    try:  # the one validating reader: whole rows, required columns, unique keys
        scan = scan_csv(path, required=REQUIRED_COLUMNS[name], key=COMPARISON_FILES[name].key,
                        what=f"{name} of a comparison").check()
    except ResultFileError as exc:
        if exc.line == 1 and exc.problem.startswith("missing column"):
            raise ResultFileError(path, f"{exc.problem} (expected "
                                        f"{', '.join(COMPARISON_COLUMNS[name])})") from None
        if exc.problem.startswith("the file is empty"):
            raise ValueError(f"{path}: the file is empty (expected the columns "
                             f"{', '.join(COMPARISON_COLUMNS[name])})") from None
        raise
    if scans is not None:
        scans[name] = scan
    df = pd.DataFrame([r.values for r in scan.rows], columns=scan.header, dtype=object)
    df = df.astype(str) if len(df) else pd.DataFrame({c: pd.Series([], dtype=str)
                                                      for c in scan.header})
    for column in COMPARISON_COLUMNS[name]:
        if column not in df.columns:
            df[column] = ""
    for column in COMPARISON_FILES[name].numeric:
        raw = df[column].str.strip()
        values = pd.to_numeric(raw, errors="coerce")
        bad = values.isna() & ~raw.str.lower().isin(_MISSING_TEXT)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ResultFileError(path, f"column {column} holds a non-numeric value "
                                        f"{raw.iloc[row]!r} (data row {row + 1})",
                                  scan.rows[row].line)
        values = values.astype(float)
        if column in COMPARISON_FILES[name].integer and len(values) and np.isfinite(values).all() \
                and (values == np.round(values)).all():
            values = values.astype(np.int64)
        df[column] = values
    return df


def _read_run(directory):
    path = os.path.join(directory, RUN_FILE)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file (a comparison directory holds "
                                f"{RUN_FILE}, {SUMMARY_FILE}, {FOLDS_FILE} and {SPECTRUM_FILE})")
    try:
        run = read_json_object(path, "the run's information")
    except ResultFileError as exc:
        raise ValueError(f"{path}: {exc.problem}") from None
    for key in ("data", "spectrum", "protocol", "skipped"):
        if run.get(key) is not None and not isinstance(run[key], dict):
            raise ValueError(f"{path}: {key!r} must be a JSON object, got "
                             f"{type(run[key]).__name__}")
    if run.get("methods") is not None and not isinstance(run["methods"], list):
        raise ValueError(f"{path}: 'methods' must be a list, got {type(run['methods']).__name__}")
    return run


def _count(value):
    """A count recorded in run.json (a non-negative int), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def _check_empty(directory, summary, folds, scans, task="classification"):
    """The task's score (:data:`PRIMARY_SCORE`: the accuracy, a regression's RMSE) is empty
    only where the writer leaves it empty: a failed fold (its ``error`` set), a method that
    failed or was skipped."""
    score = PRIMARY_SCORE.get(task, "accuracy")
    bad = folds[score].isna().to_numpy() & (folds["error"].str.strip() == "").to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ResultFileError(os.path.join(directory, FOLDS_FILE),
                              f"empty {score} in a fold without an error",
                              scans[FOLDS_FILE].rows[i].line)
    bad = (summary[f"{score}_mean"].isna().to_numpy()
           & summary["status"].isin(("ok", "warning", "suspect", "partial")).to_numpy())
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ResultFileError(os.path.join(directory, SUMMARY_FILE),
                              f"empty {score}_mean for a method with status "
                              f"{summary['status'].iloc[i]}", scans[SUMMARY_FILE].rows[i].line)


def _check_counts(directory, run, summary, folds, eigenvalues, scans):
    """Counts of the files against run.json: one summary row per method, ``cv * repeats``
    fold rows per method run, ``n`` eigenvalues (each only when run.json records it)."""
    def last_line(name):
        rows = scans[name].rows
        return rows[-1].line if rows else 1

    spath = os.path.join(directory, SUMMARY_FILE)
    methods = run.get("methods")
    skipped = run.get("skipped") or {}
    if isinstance(methods, list) and all(isinstance(m, str) for m in methods):
        names = list(summary["method"])
        extra = [i for i, m in enumerate(names) if m not in methods]
        if extra:
            i = extra[0]
            raise ResultFileError(spath, f"method {names[i]!r} is not among the methods of "
                                         f"{RUN_FILE} ({', '.join(methods)})",
                                  scans[SUMMARY_FILE].rows[i].line)
        missing = [m for m in methods if m not in names]
        if missing:
            raise ResultFileError(spath, f"the file ends with {len(names)} of {len(methods)} "
                                         f"method rows of {RUN_FILE} (missing: "
                                         f"{', '.join(missing)})", last_line(SUMMARY_FILE))
        protocol = run.get("protocol") or {}
        cv, repeats = _count(protocol.get("cv")), _count(protocol.get("repeats"))
        if cv is not None and repeats is not None:
            fpath = os.path.join(directory, FOLDS_FILE)
            status = dict(zip(summary["method"], summary["status"]))
            counts = folds["method"].value_counts()
            for m in folds["method"]:
                if m not in methods or m in skipped:
                    i = int(np.flatnonzero((folds["method"] == m).to_numpy())[0])
                    raise ResultFileError(fpath, f"fold row of method {m!r}, which {RUN_FILE} "
                                                 "does not list as run",
                                          scans[FOLDS_FILE].rows[i].line)
            for m in methods:
                if m in skipped or status.get(m) == "skipped":
                    continue
                got = int(counts.get(m, 0))
                if got != cv * repeats:
                    raise ResultFileError(fpath, f"{got} fold row(s) of method {m!r}, expected "
                                                 f"cv * repeats = {cv} * {repeats} = "
                                                 f"{cv * repeats} ({RUN_FILE})",
                                          last_line(FOLDS_FILE))
    spectrum = run.get("spectrum") or {}
    n = _count(spectrum.get("n"))
    if n is None:
        n = _count((run.get("data") or {}).get("n_samples"))
    if n is not None and eigenvalues.size != n:
        # an approximated run stores the nonzero eigenvalues of its rank-r approximation
        if not (spectrum.get("approximation") and eigenvalues.size < n):
            raise ResultFileError(os.path.join(directory, SPECTRUM_FILE),
                                  f"{eigenvalues.size} eigenvalues, {RUN_FILE} records n = {n}",
                                  last_line(SPECTRUM_FILE))


def _test_correct(folds, predictions):
    """Each fold's ``"1"``/``"0"`` string of per-object correctness, from ``predictions.csv``.

    The objects of a fold come in the file's order (the writer's test-index
    order); a fold without rows (a failed fold) gets ``""``.
    """
    text = {}
    correct = predictions["correct"].to_numpy(dtype=float)
    keys = zip(predictions["method"], predictions["repeat"].astype(int),
               predictions["fold"].astype(int))
    for (m, r, f), c in zip(keys, correct):
        text.setdefault((m, r, f), []).append("1" if c == 1 else "0")
    return ["".join(text.get((m, int(r), int(f)), ())) for m, r, f in
            zip(folds["method"], folds["repeat"], folds["fold"])]


def read_predictions(directory):
    """``predictions.csv`` of a comparison directory: one row per test object and method.

    Parameters
    ----------
    directory : str or path-like
        The directory ``krein compare`` wrote.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`COMPARISON_COLUMNS` ``["predictions.csv"]``;
        ``repeat``, ``fold``, ``object`` and ``correct`` as integers,
        ``decision`` and ``probability`` as floats (NaN where not given),
        labels and names as text.

    Raises
    ------
    FileNotFoundError
        When the directory has no ``predictions.csv``.
    ValueError
        When the file is damaged (the message names the file and the line).
    """
    return _read_csv(os.fspath(directory), PREDICTIONS_FILE)


def read_comparison(directory):
    """Read the files of a comparison directory (the module docstring gives the contract).

    Parameters
    ----------
    directory : str or path-like
        The directory ``krein compare`` wrote.

    Returns
    -------
    SavedComparison
        The run information and the tables, numeric columns parsed, text
        columns verbatim.

    Raises
    ------
    FileNotFoundError
        When the directory or one of ``run.json``, ``summary.csv``,
        ``folds.csv``, ``spectrum.csv`` is missing, or only one of
        ``points.csv`` and ``boundaries.csv`` is there; the message names the file.
    ValueError
        When a file cannot be parsed, lacks a required column
        (:data:`REQUIRED_COLUMNS`), holds a non-numeric value in a numeric
        column, an unknown ``status``, or no eigenvalue; the message names
        the file.  A :class:`krein.experiment.validate.ResultFileError` (a
        ValueError whose message names the file and the line) when a row is
        truncated or has too many fields, a method or a (method, repeat,
        fold) appears twice, or the counts disagree with ``run.json``: one
        ``summary.csv`` row per method of ``methods``, ``cv * repeats``
        ``folds.csv`` rows per method run, ``n`` eigenvalues in
        ``spectrum.csv`` (at most ``n`` in an approximated run; each count
        checked only when ``run.json`` records it); an empty accuracy where
        the writer writes a number (a fold without an error, a method with
        status ok or partial).
    """
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{directory}: no such directory (expected the output "
                                "directory of krein compare)")
    run = _read_run(directory)
    scans = {}
    summary = _read_csv(directory, SUMMARY_FILE, scans)
    unknown = sorted(set(summary["status"]) - set(STATUSES))
    if unknown:
        i = int(np.flatnonzero(~summary["status"].isin(STATUSES).to_numpy())[0])
        raise ResultFileError(os.path.join(directory, SUMMARY_FILE),
                              f"unknown status {', '.join(map(repr, unknown))} (expected one "
                              f"of {', '.join(STATUSES)})", scans[SUMMARY_FILE].rows[i].line)
    folds = _read_csv(directory, FOLDS_FILE, scans)
    if "test_correct" not in folds.columns:
        # McNemar's test of a single split pairs the objects: read them back (a long
        # file is read only where it is needed)
        single = bool(len(folds)) and int(folds.groupby("method").size().max()) == 1
        if single and os.path.isfile(os.path.join(directory, PREDICTIONS_FILE)):
            folds["test_correct"] = _test_correct(folds, read_predictions(directory))
    spectrum = _read_csv(directory, SPECTRUM_FILE, scans)
    eigenvalues = spectrum["eigenvalue"].to_numpy(dtype=float)
    if eigenvalues.size == 0 or not np.isfinite(eigenvalues).all():
        raise ValueError(f"{os.path.join(directory, SPECTRUM_FILE)}: expected one finite "
                         f"eigenvalue per object, got {eigenvalues.size} values"
                         + ("" if np.isfinite(eigenvalues).all() else " with NaN or inf"))
    _check_empty(directory, summary, folds, scans,
                 (run.get("protocol") or {}).get("task", "classification"))
    _check_counts(directory, run, summary, folds, eigenvalues, scans)
    has = [os.path.isfile(os.path.join(directory, f)) for f in (POINTS_FILE, BOUNDARIES_FILE)]
    points = boundaries = None
    if any(has):
        if not all(has):
            missing = BOUNDARIES_FILE if has[0] else POINTS_FILE
            raise FileNotFoundError(f"{os.path.join(directory, missing)}: no such file (2-D "
                                    f"data has both {POINTS_FILE} and {BOUNDARIES_FILE})")
        points = _read_csv(directory, POINTS_FILE)
        boundaries = _read_csv(directory, BOUNDARIES_FILE)
    objects = (_read_csv(directory, OBJECTS_FILE)
               if os.path.isfile(os.path.join(directory, OBJECTS_FILE)) else None)
    return SavedComparison(directory=directory, run=run, summary=summary, folds=folds,
                           eigenvalues=np.sort(eigenvalues), points=points,
                           boundaries=boundaries, objects=objects)
