"""What one comparison produced: its result, its summary and fold tables, its files.

:class:`ComparisonResult` is what :func:`krein.compare.run_comparison`
returns; :func:`fold_table` and :func:`summarize` make the ``folds.csv`` and
``summary.csv`` tables from the runner's rows, :func:`run_info` the
``run.json`` record and :func:`write_outputs` writes every file of the
directory with the columns of :mod:`krein.experiment.comparison_files`.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._io import atomic_write_text
from .classification import outer_splits
from .statistics import edge_of_grid, grid_extensions, significance_groups
from .comparison_files import (BOUNDARIES_FILE, COMPARISON_COLUMNS, FIGURE_FILES, FOLDS_FILE,
                               OBJECTS_FILE, POINTS_FILE, PREDICTIONS_FILE, RUN_FILE,
                               SPECTRUM_FILE, SPECTRUM_KEYS, SUMMARY_FILE, SUSPECT_REASON,
                               write_table)

__all__ = ["ComparisonResult", "fold_table", "prediction_table", "summarize", "flag_suspect",
           "run_info", "write_outputs", "kernel_record", "inner_protocol_text",
           "SUMMARY_COLUMNS", "FOLD_COLUMNS"]

#: Columns of the summary table (``summary.csv``).
SUMMARY_COLUMNS = list(COMPARISON_COLUMNS[SUMMARY_FILE])

#: Columns of the per-cell table: those of ``folds.csv`` and, in memory only, the
#: per-object ``test_correct`` and ``test_predictions`` (written as ``predictions.csv``).
FOLD_COLUMNS = list(COMPARISON_COLUMNS[FOLDS_FILE]) + ["test_correct", "test_predictions"]


@dataclass(kw_only=True)
class ComparisonResult:
    """Everything one comparison produced, as :func:`krein.compare.run_comparison` returns it.

    Parameters
    ----------
    comparison : krein.compare.Comparison
        The comparison that was run (data, kernel, methods, folds, grids, seed).
    summary : pandas.DataFrame
        One row per method, columns :data:`SUMMARY_COLUMNS`; skipped methods
        included (``status == "skipped"``, the reason in ``note``).
    folds : pandas.DataFrame
        One row per (method, repeat, fold) cell, columns :data:`FOLD_COLUMNS`.
    data : krein.kernel_data.KernelData
        The data set and kernel.
    methods : list of str
        Registry names of the methods run, in the order given (skipped ones left out).
    experiment : krein.experiment.Experiment or None
        The cells that were run (one per method, repeat and fold).
    grids : dict, default {}
        Method -> its inner-CV grid (``{}``: nothing tuned).
    kernel_grid : dict, default {}
        The kernel parameters tuned, ``{name: list of values}``.
    skipped : dict, default {}
        Method -> why it was not run (inputs the data do not have).
    notes : dict, default {}
        Method -> what the approximated run changed in it, one text.
    files : list of str, default []
        Paths written (empty without an output directory).
    seconds : float, default nan
        Wall time of the whole run: the data, every fold, the boundary cells and
        (with a directory) the files, the figures and the page.
    boundary_seconds : float, default nan
        Wall time of the boundary cells (nan when none ran).
    output_seconds : float, default nan
        Wall time of writing the directory's files, figures and page.
    directory : str or None, default None
        The output directory (None without one).
    n_reused : int, default 0
        Cells found finished in ``directory/cells`` and not recomputed (``resume``).
    points : pandas.DataFrame or None, default None
        ``points.csv`` of 2-D feature data written to a directory, else None.
    boundaries : pandas.DataFrame or None, default None
        ``boundaries.csv``: each method's predictions on a grid, fitted on all
        the data by the boundary cells (:mod:`krein.experiment.boundaries`).
    boundary_experiment : krein.experiment.Experiment or None, default None
        The boundary cells that were run.
    kernel_scale : float, default 1.0
        The scale ``s`` of the training kernel the default grids are relative to
        (:func:`krein.registry.default_grid`, :func:`krein.kernels.kernel_scale`).
    kernel_scale_measure : str, default "1"
        How ``s`` was measured (``"mean |K_ii|"``, ``"mean |K_ij|"``...).
    diagnosis : dict or None, default None
        :func:`krein.diagnosis.kernel_suitability` of a matrix given as a kernel
        (None for other data).
    target_scale : float or None, default None
        A regression's targets' spread ``std(y)`` that ``C``, ``epsilon``,
        ``rho`` and ``radius_squared`` were placed relative to
        (:data:`krein.compare.TARGET_EXPONENTS`); None for a classification.
    """

    comparison: object
    summary: pd.DataFrame
    folds: pd.DataFrame
    data: object
    methods: list
    experiment: object = field(default=None, repr=False)
    grids: dict = field(default_factory=dict)
    kernel_grid: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    files: list = field(default_factory=list)
    seconds: float = float("nan")
    boundary_seconds: float = float("nan")
    output_seconds: float = float("nan")
    directory: str | None = None
    n_reused: int = 0
    points: pd.DataFrame | None = field(default=None, repr=False)
    boundaries: pd.DataFrame | None = field(default=None, repr=False)
    boundary_experiment: object = field(default=None, repr=False)
    kernel_scale: float = 1.0
    kernel_scale_measure: str = "1"
    diagnosis: dict | None = field(default=None, repr=False)
    target_scale: float | None = None
    _lock: object = field(default=None, init=False, repr=False, compare=False)

    @property
    def task(self):
        """The comparison's task, ``"classification"`` or ``"regression"``."""
        return getattr(self.comparison, "task", "classification")

    @property
    def predictions(self):
        """Per-object predictions of every successful fold (``predictions.csv``).

        Returns
        -------
        pandas.DataFrame
            :func:`prediction_table` of this comparison.
        """
        return prediction_table(self)

    @property
    def outer_folds(self):
        """Number of outer folds."""
        return self.comparison.outer_folds

    @property
    def repeats(self):
        """Repetitions of the outer split."""
        return self.comparison.repeats

    @property
    def inner_folds(self):
        """Folds of the inner cross-validation as run (1: one validation split).

        Those of the cells (the comparison's ``inner_folds``, or when it was not
        given the one :func:`krein.comparison_arguments.resolve_inner_folds`
        chose for the data's size).
        """
        if self.experiment is not None and self.experiment.cells:
            return int(self.experiment.cells[0].params["inner_folds"])
        given = self.comparison.inner_folds
        return given if given is not None else 3

    @property
    def validation_fraction(self):
        """The validation part's share of each outer training part with
        ``inner_folds == 1``, else None."""
        return (getattr(self.comparison, "validation_fraction", 0.2) if self.inner_folds == 1
                else None)

    @property
    def inner_protocol(self):
        """The inner model selection in a few words: ``"3-fold"`` or
        ``"validation split 20 %"`` (:func:`inner_protocol_text`)."""
        return inner_protocol_text(self.inner_folds, self.validation_fraction)

    @property
    def C(self):
        """A ``C`` fixed for every method that has one, or None."""
        return self.comparison.C

    @property
    def solver(self):
        """The solver given to the methods (None: their own)."""
        return self.comparison.solver

    @property
    def random_state(self):
        """The run's seed."""
        return self.comparison.random_state

    @property
    def tuned(self):
        """Whether parameters were chosen by inner cross-validation."""
        return self.comparison.tune

    @property
    def grid_extension(self):
        """The adaptive search of the inner CV as run: ``{"steps": N, "fixed": [names]}``
        (``steps`` 0: every grid searched as given; :mod:`krein.experiment.tuning`)."""
        cells = self.experiment.cells if self.experiment is not None else []
        p = cells[0].params if cells else {}
        return {"steps": int(p.get("grid_extension") or 0),
                "fixed": list(p.get("grid_fixed") or [])}

    @property
    def approximation(self):
        """The low-rank front end (``"nystroem:M"``), else None."""
        return self.comparison.approximation

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
            ``outer_folds`` pairs of training and test indices into ``data.y``
            (:func:`krein.experiment.outer_splits`); with a predefined split one
            pair: all training indices and the indices into ``data.y_test``.

        Raises
        ------
        ValueError
            For a repeat outside the comparison's.
        """
        if isinstance(repeat, bool) or not isinstance(repeat, int) \
                or not 0 <= repeat < self.repeats:
            raise ValueError(f"repeat must be an integer in [0, {self.repeats}); got {repeat!r}")
        cell = next(c for c in self.experiment.cells if c.params["repeat"] == repeat)
        return outer_splits(cell.params, self.data.y)

    def method_params(self, method):
        """The fixed parameters of a method's cells (``C``, an approximated run's changes).

        Parameters
        ----------
        method : str
            A method run.

        Returns
        -------
        dict
            The method's estimator parameters in this comparison.
        """
        cell = next((c for c in self.experiment.cells if c.params["method"] == method), None)
        return dict(cell.params.get("method_params") or {}) if cell is not None else {}


# --------------------------------------------------------------------------- tables
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


def _honest_counts(ok):
    """What the status counts besides errors, over the folds that ran: folds whose refit
    warned, folds with a ``ConvergenceWarning`` (e.g. ``max_iter`` reached), and the inner
    model selection's failed fits and warnings (:data:`comparison_files.STATUSES`)."""
    warned = ok["warnings"].fillna("").astype(str)
    inner = {k: int(pd.to_numeric(ok[k], errors="coerce").fillna(0).sum())
             for k in ("n_inner_failures", "n_inner_warnings")}
    return {"n_warnings": int((warned.str.strip() != "").sum()),
            "n_not_converged": int(warned.str.contains("ConvergenceWarning").sum()), **inner}


def summarize(folds, skipped, order, notes=None, grids=None, kernel_grid=None,
              task="classification"):
    """The summary table: one row per method of ``order`` (:data:`SUMMARY_COLUMNS`).

    Parameters
    ----------
    folds : pandas.DataFrame
        The fold table (:func:`fold_table`).
    skipped : dict
        Method -> why it was skipped.
    order : list of str
        Every method, in the table's order.
    notes : dict, optional
        Method -> a note (an approximated run's changes).
    grids, kernel_grid : dict, optional
        The grids as run (``ComparisonResult.grids`` / ``kernel_grid``), for
        the ``edge`` column; without them ``edge`` is empty.
    task : {"classification", "regression", "novelty"}, default "classification"
        A novelty comparison's best method and paired tests are on the folds'
        AUC.  A regression has ``rmse_mean``, ``rmse_std``, ``mae_mean``,
        ``mae_std``, ``r2_mean``, ``r2_std`` (the mean and sample standard
        deviation over the successful folds) instead of the accuracies and
        AUCs, and its best method and paired tests are on the folds' RMSE
        (lower is better).

    Returns
    -------
    pandas.DataFrame
        ``status`` ok / warning / partial / failed / skipped (``ok`` only
        when no fold failed, warned or had a failed or warning inner fit; the
        counts in ``n_warnings``, ``n_not_converged``, ``n_inner_failures``,
        ``n_inner_warnings``), mean and sample standard
        deviation of the successful folds' accuracies and of their ROC AUCs
        (``auc_mean``, ``auc_std``; NaN for a multiclass problem), the most frequent
        chosen parameters, means of the diagnostics, the largest certificate,
        the counts and the note (with the first error); ``p_value`` and
        ``group`` against the best method
        (:func:`krein.experiment.statistics.significance_groups`; the
        sentence naming the test in ``attrs["test"]``) and ``edge``
        (:func:`krein.experiment.statistics.edge_of_grid`).
    """
    rows = []
    for m in order:
        if m in skipped:
            rows.append({"method": m, "status": "skipped", "best_params": "{}", "n_folds": 0,
                         "n_errors": 0, "note": skipped[m], "certificate": "",
                         **_honest_counts(folds.iloc[:0])})
            continue
        f = folds[folds["method"] == m]
        ok = f[f["error"] == ""]
        n_err = int((f["error"] != "").sum())
        honest = _honest_counts(ok)
        status = ("failed" if len(ok) == 0 else "partial" if n_err else
                  "warning" if any(honest.values()) else "ok")
        scores = (_regression_summary(ok) if task == "regression" else {
            "accuracy_mean": _exact_accuracy_mean(ok),
            "accuracy_std": ok["accuracy"].std() if len(ok) > 1 else (0.0 if len(ok) else np.nan),
            **_auc_summary(ok)})
        rows.append({
            "method": m,
            "status": status,
            **scores,
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
            **honest,
        })
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    # significance against the best and the edge-of-grid flag
    sig = significance_groups(folds[folds["method"].isin(order) & ~folds["method"].isin(
        list(skipped))], score=SIGNIFICANCE_SCORE[task])
    test, sig = sig.attrs["test"], sig.set_index("method")
    summary["p_value"] = summary["method"].map(sig["p_value"]).astype(float)
    summary["group"] = [sig["group"].get(m, "") for m in summary["method"]]
    edges = edge_of_grid(folds, grids or {}, kernel_grid) if grids or kernel_grid else {}
    summary["edge"] = [edges.get(m, "") for m in summary["method"]]
    extended = grid_extensions(folds)
    summary["extended"] = [extended.get(m, "") for m in summary["method"]]
    summary.attrs["test"] = test
    return summary


def _exact_accuracy_mean(ok):
    """The mean accuracy of the successful folds: the float of the exact mean of
    ``correct / n_test`` (:func:`krein.experiment.statistics.exact_mean`), so that
    equal means are equal floats whatever the order of the folds."""
    from .statistics import exact_accuracy, exact_mean

    if not len(ok):
        return np.nan
    return float(exact_mean(exact_accuracy(a, n) for a, n in zip(
        ok["accuracy"].to_numpy(dtype=float), ok["n_test"].to_numpy(dtype=float))))


def flag_suspect(summary, diagnosis, y):
    """Mark ``suspect`` the methods at or below the majority class on a distance-like "kernel".

    A distance matrix given as a kernel (without ``dissimilarity``) makes
    nearest neighbours the farthest objects: k-NN, flip, clip and the SVM then
    score at or below always predicting the largest class, and nothing fails.
    When :func:`krein.diagnosis.kernel_suitability` calls the matrix
    distance-like, every method whose folds all ran (status ``ok`` or
    ``warning``) with a mean accuracy at or below the majority-class rate of
    the scored objects gets the status ``suspect`` and the note
    :data:`~krein.experiment.comparison_files.SUSPECT_REASON` (with the rate).

    Parameters
    ----------
    summary : pandas.DataFrame
        The summary table (:func:`summarize`), changed in place.
    diagnosis : dict or None
        :func:`krein.diagnosis.kernel_suitability` of the matrix (None: data
        not given as a kernel matrix; nothing is marked).
    y : array-like of shape (n,)
        The labels of the scored objects (the test part when there is one).

    Returns
    -------
    list of str
        The methods marked.
    """
    if not diagnosis or not diagnosis.get("distance_like"):
        return []
    _, counts = np.unique(np.asarray(y), return_counts=True)
    majority = counts.max() / counts.sum()
    acc = pd.to_numeric(summary["accuracy_mean"], errors="coerce")
    hit = summary["status"].isin(["ok", "warning"]) & (acc <= majority + 1e-12)
    for i in summary.index[hit]:
        note = str(summary.at[i, "note"] or "")
        why = f"{SUSPECT_REASON}: majority class {100 * majority:.1f} %"
        summary.at[i, "note"] = f"{why}; {note}" if note else why
        summary.at[i, "status"] = "suspect"
    return summary.loc[hit, "method"].tolist()


#: The per-fold score each task's paired tests compare (a novelty comparison: the AUC).
SIGNIFICANCE_SCORE = {"classification": "accuracy", "regression": "rmse", "novelty": "auc"}

#: The per-fold scores of a regression (``folds.csv``) summarised as ``<score>_mean`` and
#: ``<score>_std`` in ``summary.csv``.
REGRESSION_SCORES = ("rmse", "mae", "r2")


def _regression_summary(ok):
    """Mean and sample standard deviation of each of :data:`REGRESSION_SCORES` over the
    successful folds (NaN without one; a standard deviation of 0 for one fold)."""
    out = {}
    for k in REGRESSION_SCORES:
        v = pd.to_numeric(ok[k], errors="coerce").to_numpy(dtype=float)
        out[f"{k}_mean"] = float(np.mean(v)) if v.size else np.nan
        out[f"{k}_std"] = float(np.std(v, ddof=1)) if v.size > 1 else (0.0 if v.size else np.nan)
    return out


def _auc_summary(ok):
    """``auc_mean`` / ``auc_std`` over the successful folds with an AUC (NaN for multiclass)."""
    auc = pd.to_numeric(ok["auc"], errors="coerce").dropna() if "auc" in ok else ok.iloc[:0]
    return {"auc_mean": float(auc.mean()) if len(auc) else np.nan,
            "auc_std": float(auc.std()) if len(auc) > 1 else (0.0 if len(auc) else np.nan)}


def fold_table(rows):
    """The runner's rows as the per-fold table (:data:`FOLD_COLUMNS`), in grid order.

    Parameters
    ----------
    rows : pandas.DataFrame
        The classification cells' rows (:func:`krein.experiment.read_results`).

    Returns
    -------
    pandas.DataFrame
        Missing columns as NaN, text columns with ``""`` for empty.
    """
    df = rows.copy()
    for col in FOLD_COLUMNS:
        if col not in df.columns:
            df[col] = np.nan
    for col in ("error", "warnings", "certificate", "solver_status", "best_params",
                "inner_error", "test_correct", "test_predictions", "grid_search"):
        df[col] = [("" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v))
                   for v in df[col].astype(object)]
    return df[FOLD_COLUMNS].reset_index(drop=True)


def prediction_table(result):
    """One row per (method, repeat, fold, test object): the tidy per-object results.

    Parameters
    ----------
    result : ComparisonResult
        A finished comparison (its fold table carries each cell's
        ``test_predictions``).

    Returns
    -------
    pandas.DataFrame
        The columns of ``predictions.csv``
        (:data:`krein.experiment.comparison_files.COMPARISON_COLUMNS`):
        ``method``, ``repeat``, ``fold``; ``object`` the 0-based row of the
        object in its file (with a predefined test part: in the test file),
        ``name`` its name (``""`` for data without names); ``y_true`` and
        ``y_pred`` as text; ``correct`` 1/0; ``decision`` and ``probability``
        (NaN where the cell recorded none).  Failed folds have no rows; the
        objects of a fold come in test-index order.
    """
    data = result.data
    columns = list(COMPARISON_COLUMNS[PREDICTIONS_FILE])
    splits = {r: result.splits(r) for r in range(result.repeats)} if len(result.folds) else {}
    parts = []
    for row in result.folds.itertuples(index=False):
        text = getattr(row, "test_predictions", "")
        if row.error or not text:
            continue
        rec = json.loads(text)
        test = np.asarray(splits[int(row.repeat)][int(row.fold)][1])
        predefined = getattr(data, "n_test", 0) and len(splits[int(row.repeat)]) == 1 \
            and getattr(data, "y_test", None) is not None
        y_true = np.asarray(data.y_test if predefined else data.y)[test]
        names = getattr(data, "test_names" if predefined else "names", None)
        if "value" in rec:     # a regression: the predicted values
            parts.append(_regression_rows(row, test, y_true, rec["value"], names, columns))
            continue
        classes = np.unique(np.concatenate([np.asarray(data.y), y_true]))
        y_pred = classes[np.asarray(rec["pred"], dtype=int)]
        n = test.size
        parts.append(pd.DataFrame({
            "method": row.method, "repeat": int(row.repeat), "fold": int(row.fold),
            "object": test, "name": (np.asarray(names, dtype=object)[test] if names is not None
                                     else np.full(n, "", dtype=object)),
            "y_true": y_true.astype(str), "y_pred": y_pred.astype(str),
            "correct": (y_true == y_pred).astype(int),
            "decision": np.asarray(rec.get("decision", np.full(n, np.nan)), dtype=float),
            "probability": np.asarray(rec.get("probability", np.full(n, np.nan)), dtype=float),
        }, columns=columns))
    if not parts:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})
    return pd.concat(parts, ignore_index=True)


def _regression_rows(row, test, y_true, values, names, columns):
    """The ``predictions.csv`` rows of one regression fold: the true and predicted targets
    as numbers in text (``repr`` of the float), ``correct``, ``decision`` and
    ``probability`` empty."""
    n = test.size
    empty = np.full(n, np.nan)
    return pd.DataFrame({
        "method": row.method, "repeat": int(row.repeat), "fold": int(row.fold),
        "object": test, "name": (np.asarray(names, dtype=object)[test] if names is not None
                                 else np.full(n, "", dtype=object)),
        "y_true": [repr(float(v)) for v in np.asarray(y_true).astype(float)],
        "y_pred": [repr(float(v)) for v in values],
        "correct": empty, "decision": empty, "probability": empty}, columns=columns)


# --------------------------------------------------------------------------- files
def _label_names(data):
    labels, counts = data.classes
    return [[str(v), int(c)] for v, c in zip(labels.tolist(), counts.tolist())]


def _target_record(data):
    """``run.json``'s ``data.target`` of a regression: the targets' count, mean, standard
    deviation (ddof 0: the spread the grids are relative to), least and largest value."""
    y = np.asarray(data.y).astype(float)
    return {"n": int(y.size), "mean": float(y.mean()), "std": float(y.std()),
            "min": float(y.min()), "max": float(y.max())}


def _json_default(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def _seconds_or_none(v):
    return None if v is None or np.isnan(v) else float(v)


def kernel_record(data):
    """The ``data`` and ``spectrum`` entries of ``run.json`` for a kernel on its own, JSON-ready.

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel.

    Returns
    -------
    dict
        ``{"data": {name, kernel, kernel_params, n_samples}, "spectrum":
        {SPECTRUM_KEYS}}`` (``krein diagnose``'s spectrum figure).
    """
    s = data.spectrum().summary()
    run = {"data": {"name": data.dataset, "kernel": data.kernel,
                    "kernel_params": dict(data.kernel_params), "n_samples": data.n_samples},
           "spectrum": {k: s[k] for k in SPECTRUM_KEYS}}
    return json.loads(json.dumps(run, default=_json_default))


def inner_protocol_text(inner_folds, validation_fraction):
    """The inner model selection in a few words (``run.json``'s ``protocol.inner``).

    Parameters
    ----------
    inner_folds : int >= 1
        The inner folds run (1: a validation split).
    validation_fraction : float
        The validation part's share (with ``inner_folds = 1``).

    Returns
    -------
    str
        ``"3-fold"``, or ``"validation split 20 %"``.
    """
    if inner_folds == 1:
        return f"validation split {100 * validation_fraction:g} %"
    return f"{int(inner_folds)}-fold"


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
        JSON-serializable: ``krein_version``, ``created``, ``seconds`` (the
        whole run), ``boundary_seconds`` and ``output_seconds`` (its parts; null
        when not run or not yet known), ``command``, ``data`` (name, source, kind, size, classes with counts,
        kernel and parameters, notes), ``spectrum`` (signature, extreme
        eigenvalues, r_mm, r_neg of the kernel on all objects; in an
        approximated run of its Nyström approximation, with ``approximation``
        and its ``rank``), ``protocol`` (``cv``: the outer folds, repeats,
        inner folds, ``inner`` (``"3-fold"`` or ``"validation split 20 %"``) and
        ``validation_fraction`` (null for k folds), seed, tuned, grids, fixed
        parameters, ``approximation``),
        ``approximation`` (None, or the front end, its landmarks and what it
        changed per method), ``methods`` and ``skipped``.
    """
    from .. import __version__
    from ..kernel_data import make_approximation
    from .classification import build_estimator

    data = result.data
    s = data.spectrum().summary()
    source = getattr(data, "source", "") or f"bundled data set {data.dataset}"
    fixed = {m: ({"C": result.C} if result.C is not None and "C" in
                 build_estimator(m).get_params(deep=False) else {}) for m in result.methods}
    if (result.approximation is not None or result.task == "novelty") \
            and result.experiment is not None:
        fixed = {m: result.method_params(m) for m in result.methods}
    spectrum = {k: s[k] for k in SPECTRUM_KEYS}
    approximation = None
    if result.approximation is not None:
        spectrum.update(approximation=result.approximation, rank=int(s["p"] + s["q"]))
        if data.landmark_block is not None:   # landmark columns given with the data
            approximation = {"name": result.approximation, "method": "landmark columns",
                             "n_components": int(data.landmark_block.shape[0]),
                             "landmarks": "given: rows " + ", ".join(
                                 str(int(i)) for i in data.landmarks[:10])
                             + (", ..." if data.landmarks.size > 10 else ""),
                             "landmarks_in_test_folds": "columns only: a landmark's label is "
                                                        "never used for training",
                             "notes": dict(result.notes)}
        else:
            front = make_approximation(result.approximation)
            approximation = {"name": result.approximation, "method": "nystroem",
                             "n_components": front.n_components, "landmarks": front.landmarks,
                             "seed": "outer split seed (run seed + repeat), per fold",
                             "notes": dict(result.notes)}
    return json.loads(json.dumps({
        "krein_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": result.seconds, "boundary_seconds": _seconds_or_none(result.boundary_seconds),
        "output_seconds": _seconds_or_none(result.output_seconds), "command": command,
        "data": {"name": data.dataset, "source": source, "kind": data.kind,
                 "n_samples": data.n_samples, "n_features": data.n_features,
                 "description": data.description,
                 "classes": _label_names(data) if result.task != "regression" else [],
                 **({"target": _target_record(data)} if result.task == "regression" else {}),
                 "kernel": data.kernel, "kernel_params": dict(data.kernel_params),
                 "notes": list(getattr(data, "notes", ()))},
        "spectrum": spectrum,
        "protocol": {"cv": result.outer_folds, "repeats": result.repeats,
                     "inner_folds": result.inner_folds, "inner": result.inner_protocol,
                     "validation_fraction": result.validation_fraction,
                     "seed": result.random_state,
                     "tuned": result.tuned, "task": result.task,
                     "scoring": {"regression": "rmse", "novelty": "auc"}.get(result.task,
                                                                             "accuracy"),
                     "target_scale": result.target_scale, "solver": result.solver,
                     "kernel_grid": result.kernel_grid, "grids": result.grids, "fixed": fixed,
                     "grid_extension": result.grid_extension,
                     "approximation": result.approximation, "kernel_scale": result.kernel_scale,
                     "kernel_scale_measure": result.kernel_scale_measure,
                     "outer_split": getattr(result.comparison, "outer_split", "kfold"),
                     "n_test": int(getattr(data, "n_test", 0))},
        "diagnosis": result.diagnosis,
        "approximation": approximation,
        "methods": list(result.methods) + [m for m in result.skipped],
        "skipped": dict(result.skipped),
    }, default=_json_default))


def write_outputs(result, out, command=None, t_start=None):
    """Write the files of a comparison into its directory, then the report page.

    With ``t_start`` the time of writing is part of the run: once the page and
    figures are written, ``result.output_seconds`` and ``result.seconds`` are
    set and ``run.json`` is written again with them (the page, written before,
    shows the run time up to its own writing).

    Parameters
    ----------
    result : ComparisonResult
        A finished comparison (with ``points`` and ``boundaries`` on 2-D data).
    out : str
        The directory (claimed by the run).
    command : str, optional
        The command line, recorded in ``run.json``.
    t_start : float, optional
        ``time.perf_counter()`` at the start of the run.

    Returns
    -------
    list of str
        The paths written: the tables, ``run.json``, the figures and ``report.html``.
    """
    from .page import write_report

    t_write = time.perf_counter()
    info = run_info(result, command)
    files = [write_table(out, SUMMARY_FILE, result.summary),
             write_table(out, FOLDS_FILE, result.folds),
             write_table(out, PREDICTIONS_FILE, result.predictions),
             write_table(out, SPECTRUM_FILE,
                         pd.DataFrame({"eigenvalue": result.data.spectrum().eigenvalues}))]
    if result.points is not None and result.boundaries is not None:
        files += [write_table(out, POINTS_FILE, result.points),
                  write_table(out, BOUNDARIES_FILE, result.boundaries)]
    parts = [(part, names, y) for part, names, y in (
        ("train", getattr(result.data, "names", None), result.data.y),
        ("test", getattr(result.data, "test_names", None), result.data.y_test))
        if names is not None]
    if parts:
        files.append(write_table(out, OBJECTS_FILE, pd.concat([pd.DataFrame(
            {"part": part, "index": np.arange(len(names)), "name": names,
             "label": [str(v) for v in y]}) for part, names, y in parts], ignore_index=True)))
    files.append(atomic_write_text(os.path.join(out, RUN_FILE),
                                   json.dumps(info, indent=1) + "\n"))
    report = write_report(out)
    if t_start is not None:
        now = time.perf_counter()
        result.output_seconds, result.seconds = now - t_write, now - t_start
        info.update(seconds=result.seconds, output_seconds=result.output_seconds)
        atomic_write_text(os.path.join(out, RUN_FILE), json.dumps(info, indent=1) + "\n")
    figures = [os.path.join(out, FIGURE_FILES[k]) for k in ("spectrum", "accuracy", "boundaries")]
    return files + [f for f in figures if os.path.exists(f)] + [report]
