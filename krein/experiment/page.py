"""The report page of a comparison, made from its files alone.

A ``krein compare`` run writes a directory of plain files (the contract below);
:func:`write_report` turns such a directory into one static, self-contained
``report.html`` (no server, no JavaScript; the figures are embedded as base64
PNG data URIs and the CSS is inline) and writes the figures next to it as
``spectrum.png``, ``accuracy.png`` and, for 2-D feature data,
``boundaries.png``.  Nothing but the directory's files is read, so the page
can be rebuilt at any time (``krein report DIR``) and the figures are the
same wherever it is rebuilt.

The directory
-------------
* ``run.json``: one JSON object with ``krein_version``, ``created`` (ISO 8601),
  ``seconds``, ``command`` (or null), ``data`` (``name``, ``source``, ``kind``,
  ``n_samples``, ``n_features``, ``description``, ``classes`` as
  ``[[label, count], ...]`` with the original label names as strings,
  ``kernel``, ``kernel_params``, ``notes``), ``spectrum`` (``n, p, q, z,
  min_eigenvalue, max_eigenvalue, r_mm, r_neg``), ``protocol`` (``cv``,
  ``repeats``, ``inner_folds``, ``seed``, ``tuned``, ``scoring``, ``solver``,
  ``kernel_grid``, ``grids`` and ``fixed`` per method), ``methods`` and
  ``skipped`` (method -> reason).  Missing keys are shown as "not recorded".
* ``summary.csv``: one row per method (:data:`COMPARISON_COLUMNS`), ``status``
  one of :data:`STATUSES`, accuracies as fractions in [0, 1], ``best_params``
  a JSON object (the most frequent chosen value per tuned parameter).
* ``folds.csv``: one row per (method, repeat, fold), ``error`` empty when the
  fold succeeded (``accuracy`` NaN when it failed).
* ``spectrum.csv``: the column ``eigenvalue``, the eigenvalues of the kernel
  on all objects.
* Only for 2-D feature data, both or neither: ``points.csv`` (``x0, x1,
  label``) and ``boundaries.csv`` (``method, x0, x1, prediction,
  train_accuracy, error``: each method's predicted label on a regular grid,
  trained on all the data; a failed method has one row with empty
  coordinates and its error).

The columns of :data:`REQUIRED_COLUMNS` must be present (a
:class:`ValueError` names the file and the missing ones); the other columns
of :data:`COMPARISON_COLUMNS` are optional and read as empty.  Text columns
are read verbatim (a label ``"NA"`` stays ``"NA"``); every text from the
files is HTML-escaped on the page and ``$`` is escaped in the figures (no
mathtext from user labels).
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import textwrap
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from .._io import atomic_write_bytes, new_figure, save_png
from .validate import ResultFileError, read_json_object, scan_csv

__all__ = ["SavedComparison", "read_comparison", "spectrum_figure", "accuracy_figure",
           "boundary_figure", "write_report", "COMPARISON_COLUMNS", "REQUIRED_COLUMNS",
           "STATUSES", "RUN_FILE", "SUMMARY_FILE", "FOLDS_FILE", "SPECTRUM_FILE",
           "POINTS_FILE", "BOUNDARIES_FILE", "REPORT_FILE", "FIGURE_FILES"]

#: File names of a comparison directory.
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.csv"
FOLDS_FILE = "folds.csv"
SPECTRUM_FILE = "spectrum.csv"
POINTS_FILE = "points.csv"
BOUNDARIES_FILE = "boundaries.csv"
#: The page :func:`write_report` writes.
REPORT_FILE = "report.html"
#: Most data points drawn over the decision regions (a fixed random sample of larger data,
#: e.g. an approximated run on 1e5 points, said in the title).
BOUNDARY_POINTS_SHOWN = 3000

#: The figures :func:`write_report` writes (``boundaries`` only for 2-D data).
FIGURE_FILES = {"spectrum": "spectrum.png", "accuracy": "accuracy.png",
                "boundaries": "boundaries.png"}

#: Values of the ``status`` column of ``summary.csv``.
STATUSES = ("ok", "partial", "failed", "skipped")

#: The columns of each CSV file of a comparison directory, in the producer's order.
COMPARISON_COLUMNS = {
    SUMMARY_FILE: ("method", "status", "accuracy_mean", "accuracy_std", "best_params",
                   "fit_seconds_mean", "n_support_mean", "min_eigenvalue_mean", "r_mm_mean",
                   "r_neg_mean", "certificate", "n_folds", "n_errors", "note"),
    FOLDS_FILE: ("method", "repeat", "fold", "n_train", "n_test", "accuracy", "best_params",
                 "inner_score", "fit_seconds", "select_seconds", "n_support", "min_eigenvalue",
                 "r_mm", "r_neg", "solver_status", "gap", "error", "warnings"),
    SPECTRUM_FILE: ("eigenvalue",),
    POINTS_FILE: ("x0", "x1", "label"),
    BOUNDARIES_FILE: ("method", "x0", "x1", "prediction", "train_accuracy", "error"),
}

#: The columns without which a file is rejected (the others are read as empty).
REQUIRED_COLUMNS = {
    SUMMARY_FILE: ("method", "status", "accuracy_mean", "accuracy_std"),
    FOLDS_FILE: ("method", "accuracy", "error"),
    SPECTRUM_FILE: ("eigenvalue",),
    POINTS_FILE: ("x0", "x1", "label"),
    BOUNDARIES_FILE: ("method", "x0", "x1", "prediction"),
}

_NUMERIC = {
    SUMMARY_FILE: ("accuracy_mean", "accuracy_std", "fit_seconds_mean", "n_support_mean",
                   "min_eigenvalue_mean", "r_mm_mean", "r_neg_mean", "n_folds", "n_errors"),
    FOLDS_FILE: ("repeat", "fold", "n_train", "n_test", "accuracy", "inner_score",
                 "fit_seconds", "select_seconds", "n_support", "min_eigenvalue", "r_mm",
                 "r_neg", "gap"),
    SPECTRUM_FILE: ("eigenvalue",),
    POINTS_FILE: ("x0", "x1"),
    BOUNDARIES_FILE: ("x0", "x1", "train_accuracy"),
}
_INTEGER = ("n_folds", "n_errors", "repeat", "fold", "n_train", "n_test")
_MISSING_TEXT = {"", "nan", "na", "n/a", "none", "null"}

# colours (matplotlib's tab10, also used for the class swatches of the page)
_CLASS_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
_POS, _NEG, _ZERO = "#1f77b4", "#d62728", "#7f7f7f"
_MEAN, _FOLD, _BEST, _FAILED, _SKIPPED = "#1f3b5c", "#7aa6d6", "#1a7f37", "#b42318", "#8c959f"


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
        ``folds.csv``: one row per (method, repeat, fold).
    eigenvalues : numpy.ndarray of shape (n,)
        ``spectrum.csv``: the eigenvalues of the kernel on all objects, ascending.
    points : pandas.DataFrame or None
        ``points.csv`` (``x0, x1, label``; labels as strings) for 2-D feature
        data, else None.
    boundaries : pandas.DataFrame or None
        ``boundaries.csv`` (predictions on a grid, per method) for 2-D feature
        data, else None.
    """

    directory: str
    run: dict
    summary: pd.DataFrame
    folds: pd.DataFrame
    eigenvalues: np.ndarray
    points: pd.DataFrame | None = None
    boundaries: pd.DataFrame | None = None

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


#: Columns identifying a row (unique in the file) of each CSV file of a comparison.
_KEYS = {SUMMARY_FILE: "method", FOLDS_FILE: ("method", "repeat", "fold")}


def _read_csv(directory, name, scans=None):
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file (a comparison directory holds "
                                f"{RUN_FILE}, {SUMMARY_FILE}, {FOLDS_FILE} and {SPECTRUM_FILE})")
    try:  # the one validating reader: whole rows, required columns, unique keys
        scan = scan_csv(path, required=REQUIRED_COLUMNS[name], key=_KEYS.get(name),
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
    for column in _NUMERIC[name]:
        raw = df[column].str.strip()
        values = pd.to_numeric(raw, errors="coerce")
        bad = values.isna() & ~raw.str.lower().isin(_MISSING_TEXT)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ResultFileError(path, f"column {column} holds a non-numeric value "
                                        f"{raw.iloc[row]!r} (data row {row + 1})",
                                  scan.rows[row].line)
        values = values.astype(float)
        if column in _INTEGER and len(values) and np.isfinite(values).all() \
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


def _check_empty(directory, summary, folds, scans):
    """An accuracy is empty only where the writer leaves it empty: a failed fold (its
    ``error`` set), a method that failed or was skipped."""
    bad = folds["accuracy"].isna().to_numpy() & (folds["error"].str.strip() == "").to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ResultFileError(os.path.join(directory, FOLDS_FILE),
                              "empty accuracy in a fold without an error",
                              scans[FOLDS_FILE].rows[i].line)
    bad = (summary["accuracy_mean"].isna().to_numpy()
           & summary["status"].isin(("ok", "partial")).to_numpy())
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ResultFileError(os.path.join(directory, SUMMARY_FILE),
                              f"empty accuracy_mean for a method with status "
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
    spectrum = _read_csv(directory, SPECTRUM_FILE, scans)
    eigenvalues = spectrum["eigenvalue"].to_numpy(dtype=float)
    if eigenvalues.size == 0 or not np.isfinite(eigenvalues).all():
        raise ValueError(f"{os.path.join(directory, SPECTRUM_FILE)}: expected one finite "
                         f"eigenvalue per object, got {eigenvalues.size} values"
                         + ("" if np.isfinite(eigenvalues).all() else " with NaN or inf"))
    _check_empty(directory, summary, folds, scans)
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
    return SavedComparison(directory=directory, run=run, summary=summary, folds=folds,
                           eigenvalues=np.sort(eigenvalues), points=points,
                           boundaries=boundaries)


def _as_comparison(comparison):
    if isinstance(comparison, SavedComparison):
        return comparison
    return read_comparison(comparison)


# --------------------------------------------------------------------------- formatting
def _num(v, digits=3):
    """A number for humans: ``digits`` significant digits, '–' when missing."""
    if v is None or isinstance(v, bool):
        return "–" if v is None else str(v)
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(x):
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    if 1 <= abs(x) < 1e6:  # no exponent for numbers a reader reads whole: 2521, not 2.52e+03
        digits = max(digits, int(math.log10(abs(x))) + 1)
    return f"{x:.{digits}g}"


def _value(v):
    """A parameter value: numbers with 4 significant digits, lists and dicts as JSON."""
    if isinstance(v, float):
        return _num(v, 4)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(u) for u in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(u)}" for k, u in v.items()) + "}"
    if v is None:
        return "none"
    return str(v)


def _params(d, sep=", "):
    return sep.join(f"{k}={_value(v)}" for k, v in d.items())


def _json_object(text):
    """Parse a JSON object of a CSV cell; None when empty or not an object."""
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _kernel_label(data):
    kernel = data.get("kernel")
    if not kernel:
        return "kernel not recorded"
    params = data.get("kernel_params") or {}
    return f"{kernel}({_params(params)})" if params else str(kernel)


def _mpl(text):
    """User text for Matplotlib: ``$`` escaped so labels never turn into mathtext."""
    return str(text).replace("$", r"\$")


def _percent(x, digits=1):
    return "–" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}"


def _duration(seconds):
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return "not recorded"
    if not math.isfinite(s):
        return "not recorded"
    if s < 60:
        return f"{s:.3g} s" if s < 10 else f"{s:.0f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(round(s % 60))} s"
    return f"{int(s // 3600)} h {int(round(s % 3600 / 60))} min"


def _seconds(v):
    if v is None or not np.isfinite(v):
        return "–"
    if v < 0.01:
        return f"{v * 1000:.2g} ms"
    return f"{v:.2g} s" if v < 10 else f"{v:.0f} s"


def _created(text):
    if not text:
        return "not recorded"
    try:
        t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return str(text)
    zone = " UTC" if t.utcoffset() is not None and t.utcoffset().total_seconds() == 0 else ""
    return t.strftime("%Y-%m-%d %H:%M") + zone


def _class_order(comparison, extra=()):
    names = [name for name, _ in comparison.classes]
    for label in extra:
        if label not in names:
            names.append(label)
    return names


def _best_rows(summary):
    """Indices of the rows with the highest mean accuracy among the methods that ran."""
    ran = summary["status"].isin(["ok", "partial"]) & np.isfinite(summary["accuracy_mean"])
    if not ran.any():
        return set()
    best = summary.loc[ran, "accuracy_mean"].max()
    return set(summary.index[ran & np.isclose(summary["accuracy_mean"], best, rtol=0, atol=1e-12)])


def _fold_accuracies(folds, method):
    f = folds[(folds["method"] == method) & (folds["error"].str.strip() == "")]
    acc = f["accuracy"].to_numpy(dtype=float)
    return acc[np.isfinite(acc)]


# --------------------------------------------------------------------------- figures
def spectrum_figure(comparison):
    """The eigenvalues of the kernel: sorted values and magnitudes on a log scale.

    Left, the eigenvalues in ascending order (negative ones red, positive
    blue, numerically zero grey) with the zero line; right, ``|lam|`` in
    decreasing order on a log scale, coloured by sign, so that the weight of
    the negative part is readable even when it is small.  The title gives the
    signature ``(p, q, z)``, the least eigenvalue, ``r_mm`` and ``r_neg``
    (Munoz & de Diego 2006 eq. 2, in percent).

    Parameters
    ----------
    comparison : SavedComparison or str or path-like
        A comparison read by :func:`read_comparison`, or its directory.

    Returns
    -------
    matplotlib.figure.Figure
        A figure made with :func:`krein._io.new_figure`.
    """
    from matplotlib.ticker import MaxNLocator

    comparison = _as_comparison(comparison)
    lam = comparison.eigenvalues
    s = comparison.spectrum
    n = lam.size
    tol = n * np.finfo(float).eps * float(np.max(np.abs(lam)))
    sign = np.where(lam > tol, 1, np.where(lam < -tol, -1, 0))
    colors = {1: _POS, -1: _NEG, 0: _ZERO}
    names = {1: f"positive (p = {s['p']})", -1: f"negative (q = {s['q']})",
             0: f"zero (z = {s['z']})"}
    size = 10 if n <= 300 else 5 if n <= 2000 else 2

    fig = new_figure((9.0, 3.5))
    ax = fig.add_subplot(1, 2, 1)
    idx = np.arange(1, n + 1)
    ax.plot(idx, lam, color="0.75", lw=0.8, zorder=1)
    for sg in (-1, 0, 1):
        m = sign == sg
        if m.any():
            ax.scatter(idx[m], lam[m], s=size, color=colors[sg], label=names[sg], zorder=2,
                       linewidths=0)
    ax.axhline(0, color="k", lw=0.8, zorder=0)
    if (sign < 0).any():
        ax.axvspan(0.5, np.flatnonzero(sign < 0)[-1] + 1.5, color=_NEG, alpha=0.06, lw=0)
    for at, va in ((0, "bottom"), (n - 1, "top")):  # the extremes, visible at any n
        ax.scatter([idx[at]], [lam[at]], s=28, color=colors[int(sign[at])], zorder=3,
                   edgecolors="k", linewidths=0.5)
        ax.annotate(f"{'λ_min' if at == 0 else 'λ_max'} = {_num(lam[at])}", (idx[at], lam[at]),
                    xytext=(8 if at == 0 else -8, 0), textcoords="offset points",
                    ha="left" if at == 0 else "right", va="center", fontsize=8)
    pad = max(1.0, 0.015 * n)
    ax.set_xlim(1 - pad, n + pad)
    ax.set_xlabel("index (ascending order)")
    ax.set_ylabel("eigenvalue λ")
    ax.set_title("eigenvalues", fontsize=10)
    ax.legend(fontsize=8, loc="lower right", frameon=False)  # empty: the values ascend
    ax.grid(alpha=0.25, lw=0.5)

    ax = fig.add_subplot(1, 2, 2)
    top = 1
    for sg in (1, -1):
        mag = np.sort(np.abs(lam[sign == sg]))[::-1]
        if mag.size:
            rank = np.arange(1, mag.size + 1)
            ax.plot(rank, mag, color=colors[sg], lw=1.0, marker="o", ms=2.5 if n <= 300 else 0,
                    label=f"{'positive' if sg > 0 else 'negative'} part: Σ|λ| = "
                          f"{_num(float(mag.sum()))}")
            top = max(top, mag.size)
    if (sign != 0).any():
        ax.set_yscale("log")
        ax.legend(fontsize=8, loc="upper right", frameon=False)
    if not (sign < 0).any():
        ax.text(0.97, 0.05, "no negative eigenvalue beyond the zero tolerance",
                transform=ax.transAxes, ha="right", va="bottom", fontsize=8, color=_NEG,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    pad = max(1.0, 0.015 * top)
    ax.set_xlim(1 - pad, top + pad)
    ax.set_xlabel("rank by magnitude, within each sign")
    ax.set_ylabel("|λ| (log scale)")
    ax.set_title("magnitudes of the positive and negative parts", fontsize=10)
    ax.grid(alpha=0.25, lw=0.5, which="major")

    approx = _approximation(comparison)
    what = (f"Spectrum of the {approx} approximation (rank {n}, n = {_num(s['n'])})"
            if approx else f"Kernel spectrum (n = {n})")
    fig.suptitle(f"{what}: signature (p, q, z) = ({s['p']}, {s['q']}, "
                 f"{s['z']}), λ_min = {_num(s['min_eigenvalue'])}, "
                 f"r_mm = {_num(s['r_mm'])}%, r_neg = {_num(s['r_neg'])}%", fontsize=10.5)
    fig.tight_layout()
    return fig


def accuracy_figure(comparison):
    """Test accuracy per method: mean ± std and every fold, methods as in the table.

    One row per method of ``summary.csv`` (top to bottom in the table's
    order): the mean with a ± one standard deviation bar (the best mean in
    green), every successful fold's accuracy as a dot spread vertically, the
    majority-class rate as a dashed line; on the right, the mean ± std and
    the number of failed folds.  Skipped and failed methods keep their row,
    greyed or red, with "skipped" / "failed" written in it.

    Parameters
    ----------
    comparison : SavedComparison or str or path-like
        A comparison read by :func:`read_comparison`, or its directory.

    Returns
    -------
    matplotlib.figure.Figure
        A figure made with :func:`krein._io.new_figure`.
    """
    from matplotlib.transforms import blended_transform_factory, offset_copy

    comparison = _as_comparison(comparison)
    s = comparison.summary.reset_index(drop=True)
    m = len(s)
    best = _best_rows(s)
    majority = comparison.majority_rate
    fig = new_figure((8.5, max(2.6, 0.36 * m + 1.5)))
    ax = fig.add_subplot(1, 1, 1)
    if not m:
        ax.text(0.5, 0.5, "no method in summary.csv", ha="center", va="center",
                transform=ax.transAxes, color=_SKIPPED)
        ax.set_axis_off()
        return fig
    across = blended_transform_factory(ax.transAxes, ax.transData)
    right_labels, right_colors, lows = [], [], []
    for i, row in s.iterrows():
        status = row["status"]
        acc = _fold_accuracies(comparison.folds, row["method"])
        if status in ("skipped", "failed") or not np.isfinite(row["accuracy_mean"]):
            color = _SKIPPED if status == "skipped" else _FAILED
            band = "#f1f3f5" if status == "skipped" else "#fbeaea"
            ax.axhspan(i - 0.4, i + 0.4, color=band, lw=0, zorder=0)
            word = "skipped" if status == "skipped" else "failed"
            note = str(row["note"]).strip()
            text = f"{word}: {note}" if note else word
            ax.text(0.01, i, _mpl(textwrap.shorten(text, 90, placeholder="…")),
                    transform=across, va="center", ha="left", fontsize=8, color=color,
                    style="italic", zorder=4,
                    bbox={"facecolor": band, "edgecolor": "none", "pad": 1.5})
            right_labels.append(word)
            right_colors.append(color)
            continue
        k = len(acc)
        if k:
            offsets = np.linspace(-0.22, 0.22, k) if k > 1 else np.zeros(1)
            ax.scatter(100 * acc, i + offsets, s=14, color=_FOLD, alpha=0.8, linewidths=0,
                       zorder=2, label="one fold" if not lows else None)
            lows.append(acc.min())
        mean = 100 * row["accuracy_mean"]
        std = 100 * row["accuracy_std"] if np.isfinite(row["accuracy_std"]) else 0.0
        lows.append(row["accuracy_mean"] - (std / 100))
        color = _BEST if i in best else _MEAN
        ax.errorbar(mean, i, xerr=std, fmt="D", ms=6, color=color, ecolor=color,
                    elinewidth=1.6, capsize=4, zorder=3)
        label = f"{mean:.1f} ± {std:.1f}"
        n_err = row["n_errors"]
        if status == "partial" or (np.isfinite(n_err) and n_err > 0):
            n_all = row["n_folds"]
            label += (f"  ({_num(n_err)} of {_num(n_all)} folds failed)" if np.isfinite(n_all)
                      else "  (some folds failed)")
            color = "#9a6700"
        right_labels.append(label)
        right_colors.append(color)
    if np.isfinite(majority):
        ax.axvline(100 * majority, color="0.35", ls="--", lw=1.1, zorder=1,
                   label=f"majority class ({100 * majority:.1f}%)")
        lows.append(majority)
    lo = min(lows) if lows else 0.5
    ax.set_xlim(max(0.0, 100 * lo - 5), 100.5)
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_yticks(range(m))
    ax.set_yticklabels([_mpl(x) for x in s["method"]], fontsize=9)
    for tick, status in zip(ax.get_yticklabels(), s["status"]):
        if status in ("skipped", "failed"):
            tick.set_color(_SKIPPED if status == "skipped" else _FAILED)
    right = ax.twinx()
    right.set_ylim(ax.get_ylim())
    right.set_yticks(range(m))
    right.set_yticklabels(right_labels, fontsize=8.5)
    for tick, color in zip(right.get_yticklabels(), right_colors):
        tick.set_color(color)
    right.tick_params(length=0)
    for spine in ("top",):
        ax.spines[spine].set_visible(False)
        right.spines[spine].set_visible(False)
    ax.grid(axis="x", alpha=0.3, lw=0.5)
    ax.set_xlabel("test accuracy (%)")
    ax.errorbar([], [], xerr=[], fmt="D", ms=6, color=_MEAN, capsize=4,
                label="mean ± std over folds")
    below = offset_copy(ax.transAxes, fig=fig, y=-34, units="points")  # under the x label
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below, ncol=3,
              fontsize=8, frameon=False)
    data = comparison.data
    protocol = comparison.protocol
    cv = protocol.get("cv")
    repeats = protocol.get("repeats")
    how = f", {cv}-fold CV × {repeats}" if cv and repeats else ""
    ax.set_title(_mpl(f"{data.get('name', 'data')}, {_kernel_label(data)}{how}"), fontsize=10)
    fig.tight_layout()
    return fig


def _levels(values):
    """Grid levels of one coordinate (values closer than 1e-9 of the span are one level)."""
    u = np.unique(values)
    if u.size > 1:
        u = u[np.r_[True, np.diff(u) > 1e-9 * (u[-1] - u[0])]]
    return u, np.clip(np.searchsorted(u, values, side="right") - 1, 0, max(u.size - 1, 0))


def _grid_image(rows, classes):
    """``(x0 levels, x1 levels, class index matrix)`` of a method's grid predictions."""
    r = rows.dropna(subset=["x0", "x1"])
    x0, j = _levels(r["x0"].to_numpy(float))
    x1, i = _levels(r["x1"].to_numpy(float))
    Z = np.full((x1.size, x0.size), np.nan)
    index = {c: k for k, c in enumerate(classes)}
    Z[i, j] = [index.get(p, np.nan) for p in r["prediction"]]
    return x0, x1, np.ma.masked_invalid(Z)


def boundary_figure(comparison):
    """Decision regions of every method on 2-D data, from the grid predictions.

    One panel per method of ``boundaries.csv`` (in the table's order): the
    predicted class of each grid point as a filled region with its border,
    the data points coloured by label; the title gives the method and its
    training accuracy, a failed method's panel shows its error text.

    Parameters
    ----------
    comparison : SavedComparison or str or path-like
        A comparison read by :func:`read_comparison`, or its directory.

    Returns
    -------
    matplotlib.figure.Figure or None
        A figure made with :func:`krein._io.new_figure`, or None when the
        comparison has no ``points.csv``/``boundaries.csv`` (not 2-D data).
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D

    comparison = _as_comparison(comparison)
    b, pts = comparison.boundaries, comparison.points
    if b is None or pts is None:
        return None
    in_table = list(comparison.summary["method"])
    methods = [x for x in in_table if x in set(b["method"])]
    methods += [x for x in dict.fromkeys(b["method"]) if x not in methods]
    classes = _class_order(comparison, list(dict.fromkeys(pts["label"]))
                           + list(dict.fromkeys(b["prediction"][b["prediction"] != ""])))
    colors = [_CLASS_COLORS[k % len(_CLASS_COLORS)] for k in range(len(classes))]
    cmap = ListedColormap(colors)
    label_index = np.array([classes.index(v) for v in pts["label"]], dtype=float)
    m = max(len(methods), 1)
    ncol = min(m, 4)
    nrow = int(math.ceil(m / ncol))
    fig = new_figure((2.9 * ncol, 2.85 * nrow + 0.7))
    px, py = pts["x0"].to_numpy(float), pts["x1"].to_numpy(float)
    shown = ""
    if px.size > BOUNDARY_POINTS_SHOWN:  # a sample, so that the regions stay visible
        keep = np.sort(np.random.default_rng(0).choice(px.size, BOUNDARY_POINTS_SHOWN,
                                                       replace=False))
        shown = f"; {BOUNDARY_POINTS_SHOWN} of {px.size} points shown"
        px, py, label_index = px[keep], py[keep], label_index[keep]
    for k, method in enumerate(methods):
        ax = fig.add_subplot(nrow, ncol, k + 1)
        rows = b[b["method"] == method]
        errors = [e for e in rows["error"] if str(e).strip()]
        x0, x1, Z = _grid_image(rows, classes)
        failed = bool(errors) or x0.size < 2 or x1.size < 2
        if failed:
            message = errors[0] if errors else "no grid predictions"
            wrapped = "\n".join(textwrap.wrap(str(message), 34)[:7])
            ax.text(0.5, 0.5, _mpl(wrapped), ha="center", va="center", fontsize=7,
                    color=_FAILED, transform=ax.transAxes, zorder=4,
                    bbox={"facecolor": "#fff5f5", "edgecolor": _FAILED, "linewidth": 0.6,
                          "boxstyle": "round,pad=0.5"})
            ax.set_facecolor("#f6f8fa")
            title = f"{method} (failed)"
        else:
            # one indicator per class, cut at 1/2: smooth borders and, unlike contours of
            # the class index, no sliver of a class between two others
            for kc, color in enumerate(colors):
                ind = np.ma.masked_array((Z.filled(-1) == kc).astype(float),
                                         mask=np.ma.getmaskarray(Z))
                if not ind.max() > 0:
                    continue
                ax.contourf(x0, x1, ind, levels=[0.5, 1.5], colors=[color], alpha=0.28,
                            zorder=0)
                if ind.min() < 1:
                    ax.contour(x0, x1, ind, levels=[0.5], colors="k", linewidths=0.8, zorder=1)
            acc = rows["train_accuracy"].to_numpy(float)
            acc = acc[np.isfinite(acc)]
            title = f"{method} (train {100 * acc[0]:.0f}%)" if acc.size else str(method)
        ax.scatter(px, py, c=label_index, cmap=cmap, vmin=-0.5, vmax=len(classes) - 0.5,
                   s=11, edgecolors="k", linewidths=0.3, zorder=2, alpha=0.3 if failed else 1)
        ax.set_title(_mpl(title), fontsize=9, color=_FAILED if failed else "k")
        ax.set_xticks([])
        ax.set_yticks([])
        if x0.size >= 2 and x1.size >= 2:
            ax.set_xlim(min(x0[0], px.min()), max(x0[-1], px.max()))
            ax.set_ylim(min(x1[0], py.min()), max(x1[-1], py.max()))
    handles = [Line2D([], [], marker="o", ls="", markerfacecolor=c, markeredgecolor="k",
                      markeredgewidth=0.3, markersize=6, label=_mpl(name))
               for name, c in zip(classes, colors)]
    data = comparison.data
    fig.suptitle(_mpl(f"{data.get('name', 'data')}, {_kernel_label(data)}: decision regions "
                      f"(each method trained on all the data{shown})"), fontsize=10)
    fig.legend(handles=handles, loc="lower center", ncol=min(len(classes), 6), fontsize=8,
               frameon=False, title="class", title_fontsize=8)
    fig.tight_layout(rect=(0, 0.45 / fig.get_size_inches()[1], 1, 1))
    return fig


# --------------------------------------------------------------------------- the page
_CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d8dee4; --soft:#f6f8fa; --accent:#0b5cad;
        --best:#e7f5ec; --bad:#b42318; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: #fff; color: var(--fg);
       font: 15px/1.55 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue",
             Arial, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1060px; margin: 0 auto; padding: 36px 32px 28px; }
header { border-bottom: 3px solid var(--accent); padding-bottom: 16px; }
.eyebrow { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: var(--accent);
           font-weight: 600; margin: 0 0 4px; }
h1 { font-size: 30px; line-height: 1.2; margin: 0 0 6px; letter-spacing: -.01em; }
.subtitle { color: var(--muted); margin: 0; }
.headline { margin: 14px 0 0; font-size: 16px; }
.headline strong { color: #116329; }
section { margin-top: 38px; }
h2 { font-size: 20px; margin: 0 0 14px; padding-bottom: 6px;
     border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; }
dl.facts { display: grid; grid-template-columns: 11em 1fr; gap: 7px 20px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ul.notes { margin: 0; padding-left: 1.2em; }
.classes { display: flex; flex-wrap: wrap; gap: 6px 16px; }
.class { white-space: nowrap; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px;
          margin-right: .35em; vertical-align: -.05em; border: 1px solid rgba(0,0,0,.25); }
.classbar { display: flex; height: 7px; border-radius: 4px; overflow: hidden; max-width: 420px;
            margin-top: 6px; }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; margin: 0 0 6px; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px;
        background: var(--soft); min-width: 118px; }
.tile .label { font-size: 12px; color: var(--muted); }
.tile .value { font-size: 19px; font-weight: 600; font-variant-numeric: tabular-nums; }
.tile.neg .value { color: var(--bad); }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { padding: 7px 10px; border-bottom: 1px solid var(--line); text-align: left;
         vertical-align: top; }
th { background: var(--soft); font-weight: 600; font-size: 12.5px; color: #3d444d;
     white-space: nowrap; border-bottom: 1px solid #c4ccd4; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.method { font-weight: 600; white-space: nowrap; }
td.params, td.cert { font-size: 13px; }
code, pre, td.params, td.cert { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas,
                                  "DejaVu Sans Mono", monospace; }
td.params, td.cert { font-size: 12.5px; color: #3d444d; }
tbody tr:hover td { background: #f3f6f9; }
tr.best td { background: var(--best); }
tr.best td.acc { font-weight: 700; color: #116329; }
tr.muted td, tr.muted td.params, tr.muted td.cert { color: #8c959f; }
tr.muted td.method { font-weight: 500; }
.pm { color: var(--muted); font-weight: 400; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px;
         font-weight: 600; font-family: inherit; }
.badge.ok { background: #dafbe1; color: #116329; }
.badge.partial { background: #fff1c2; color: #7a4d00; }
.badge.failed { background: #ffe2e0; color: var(--bad); }
.badge.skipped { background: #eaeef2; color: #57606a; }
.note { font-size: 12.5px; color: var(--muted); margin-top: 3px; max-width: 290px;
        overflow-wrap: anywhere; white-space: normal; }
tr.failed .note { color: var(--bad); }
.caption, figcaption { color: var(--muted); font-size: 13px; margin-top: 8px; }
figure { margin: 20px 0 0; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
pre.command { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
              padding: 8px 12px; margin: 14px 0 0; white-space: pre-wrap; overflow-wrap: anywhere;
              font-size: 12.5px; }
details { margin-top: 16px; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
details summary { cursor: pointer; font-weight: 600; font-size: 14px; }
table.grids th, table.grids td { padding: 4px 10px; }
details table { margin-top: 10px; font-size: 12.5px; }
details th, details td { padding: 4px 8px; border-bottom: 1px solid #eef1f4; }
details td.params, details td.method { white-space: nowrap; }
details tr.first td { border-top: 1px solid #c4ccd4; }
td.msg { font-size: 12px; color: var(--bad); max-width: 360px; overflow-wrap: anywhere; }
.missing { color: var(--muted); font-style: italic; }
footer { margin-top: 44px; padding-top: 12px; border-top: 1px solid var(--line);
         color: var(--muted); font-size: 13px; }
@media print { main { max-width: none; padding: 0; } details { display: none; } }
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _missing(text="not recorded"):
    return f'<span class="missing">{_e(text)}</span>'


def _img(png, alt):
    data = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{_e(alt)}">'


def _fact(label, value_html):
    return f"<dt>{_e(label)}</dt><dd>{value_html}</dd>"


def _data_section(c):
    d = c.data
    facts = [_fact("Data set", f"<strong>{_e(d['name'])}</strong>" if d.get("name")
                   else _missing())]
    facts.append(_fact("Source", _e(d["source"]) if d.get("source") else _missing()))
    facts.append(_fact("Kind", _e(d["kind"]) if d.get("kind") else _missing()))
    n, p = d.get("n_samples"), d.get("n_features")
    if n is not None:
        size = f"{_e(_num(n))} objects" + (f" × {_e(_num(p))} features" if p is not None else "")
    else:
        size = _missing()
    facts.append(_fact("Size", size))
    if d.get("description"):
        facts.append(_fact("Preprocessing", _e(d["description"])))
    classes = c.classes
    if classes:
        total = sum(k for _, k in classes if k is not None) or 0
        chips, bar = [], []
        for i, (name, count) in enumerate(classes):
            color = _CLASS_COLORS[i % len(_CLASS_COLORS)]
            share = f" ({100 * count / total:.1f}%)" if total and count is not None else ""
            chips.append(f'<span class="class"><span class="swatch" style="background:{color}">'
                         f'</span><strong>{_e(name)}</strong> {_e(_num(count))}{share}</span>')
            if total and count:
                bar.append(f'<span style="background:{color};width:{100 * count / total:.3f}%">'
                           "</span>")
        value = f'<div class="classes">{"".join(chips)}</div>'
        if bar:
            value += f'<div class="classbar" aria-hidden="true">{"".join(bar)}</div>'
        facts.append(_fact(f"Classes ({len(classes)})", value))
    else:
        facts.append(_fact("Classes", _missing()))
    kernel = _e(d["kernel"]) if d.get("kernel") else _missing()
    params = d.get("kernel_params") or {}
    if params and d.get("kernel"):
        kernel = (f"<strong>{kernel}</strong> with "
                  + ", ".join(f"<code>{_e(k)} = {_e(_value(v))}</code>"
                              for k, v in params.items()))
    elif d.get("kernel"):
        kernel = f"<strong>{kernel}</strong>"
    facts.append(_fact("Kernel", kernel))
    notes = d.get("notes") or []
    if isinstance(notes, str):
        notes = [notes]
    if notes:
        facts.append(_fact("Notes", '<ul class="notes">'
                           + "".join(f"<li>{_e(x)}</li>" for x in notes) + "</ul>"))
    return ('<section id="data"><h2>Data</h2><dl class="facts">' + "".join(facts)
            + "</dl></section>")


def _approximation(c):
    """The low-rank front end of an approximated run (``run.json``), else None."""
    approx = (c.run.get("spectrum") or {}).get("approximation")
    return str(approx) if approx else None


def _spectrum_section(c, png):
    s = c.spectrum
    approx = _approximation(c)
    tiles = [("objects n", _num(s["n"]), ""),
             ("signature (p, q, z)", f"({s['p']}, {s['q']}, {s['z']})", ""),
             ("least eigenvalue", _num(s["min_eigenvalue"]),
              "neg" if np.isfinite(s["min_eigenvalue"]) and s["min_eigenvalue"] < 0 else ""),
             ("largest eigenvalue", _num(s["max_eigenvalue"]), ""),
             ("r_mm", f"{_num(s['r_mm'])}%", ""),
             ("r_neg", f"{_num(s['r_neg'])}%", "")]
    html_tiles = "".join(f'<div class="tile {cls}"><div class="label">{_e(label)}</div>'
                         f'<div class="value">{_e(value)}</div></div>'
                         for label, value, cls in tiles)
    indefinite = ("The kernel is indefinite" if s["q"] else
                  "The kernel is positive semi-definite")
    line = (f"{indefinite}. Signature: the numbers of positive, negative and zero eigenvalues "
            "(|λ| ≤ n · eps · max|λ| counts as zero); r_mm = 100 |λ_min| / λ_max; r_neg = the "
            "share of Σ|λ| carried by the negative eigenvalues, in percent (Munoz & de Diego "
            "2006, eq. 2).")
    what = f"Eigenvalues of the kernel on all {_num(s['n'])} objects"
    title = "Kernel spectrum"
    if approx:  # no n x n kernel was formed: the approximation's eigenvalues
        line += (f" Approximated run: no n x n kernel was formed; these are the nonzero "
                 f"eigenvalues of the {approx} approximation of the kernel (the other "
                 f"eigenvalues count as zero), not the kernel's own.")
        what = (f"Nonzero eigenvalues of the {approx} approximation of the kernel on all "
                f"{_num(s['n'])} objects")
        title = f"Kernel spectrum ({approx} approximation)"
    line = _e(line)
    return (f'<section id="spectrum"><h2>{_e(title)}</h2><div class="tiles">{html_tiles}'
            f'</div><p class="caption">{line}</p><figure>{_img(png, "kernel spectrum")}'
            f'<figcaption>{_e(what)} '
            f"({_e(FIGURE_FILES['spectrum'])}).</figcaption></figure></section>")


def _grid_text(grid):
    if grid is None:
        return _missing()
    if not isinstance(grid, dict):
        return _e(_value(grid))
    if not grid:
        return _missing("nothing tuned")
    parts = []
    for k, v in grid.items():
        values = ", ".join(_value(u) for u in v) if isinstance(v, (list, tuple)) else _value(v)
        parts.append(f"<code>{_e(k)} ∈ {{{_e(values)}}}</code>")
    return "; ".join(parts)


def _protocol_section(c):
    p = c.protocol
    facts = []
    cv, repeats = p.get("cv"), p.get("repeats")
    if cv is not None:
        total = f" ({_num(cv * repeats)} test folds per method)" if isinstance(cv, int) \
            and isinstance(repeats, int) else ""
        facts.append(_fact("Evaluation", f"stratified {_e(_num(cv))}-fold cross-validation × "
                           f"{_e(_num(repeats if repeats is not None else 1))} "
                           f"repeat{'s' if repeats != 1 else ''}{_e(total)}; every method "
                           "sees the same folds"))
    else:
        facts.append(_fact("Evaluation", _missing()))
    tuned = p.get("tuned")
    if tuned:
        inner = p.get("inner_folds")
        scoring = p.get("scoring") or "accuracy"
        facts.append(_fact("Model selection",
                           f"tuned: inner {_e(_num(inner))}-fold cross-validation on each outer "
                           f"training part (scoring: {_e(scoring)}), then a refit on the whole "
                           "training part with the best parameters"))
    elif tuned is None:
        facts.append(_fact("Model selection", _missing()))
    else:
        facts.append(_fact("Model selection", "none: every method at fixed parameters"))
    facts.append(_fact("Seed", _e(_num(p["seed"])) if p.get("seed") is not None
                       else _missing()))
    facts.append(_fact("Solver", _e(p["solver"]) if p.get("solver")
                       else "each method's default"))
    if p.get("approximation"):
        facts.append(_fact("Approximation",
                           f"{_e(p['approximation'])}: every method fitted on signed Nyström "
                           "features of the kernel (no n x n kernel formed); methods without an "
                           "approximate path skipped"))
    kernel_grid = p.get("kernel_grid")
    if kernel_grid:
        facts.append(_fact("Kernel grid", _grid_text(kernel_grid)))
    elif tuned:
        facts.append(_fact("Kernel grid", "none (kernel parameters fixed)"))
    out = ['<section id="protocol"><h2>Protocol</h2><dl class="facts">', *facts, "</dl>"]
    grids, fixed = p.get("grids") or {}, p.get("fixed") or {}
    methods = list(c.summary["method"])
    methods += [m for m in list(grids) + list(fixed) if m not in methods]
    if grids or fixed:
        out.append('<h3>Parameters per method</h3><table class="grids"><thead><tr>'
                   "<th>method</th><th>searched grid</th><th>fixed</th></tr></thead><tbody>")
        skipped = set(c.summary.loc[c.summary["status"] == "skipped", "method"])
        for m in methods:
            g, f = grids.get(m), fixed.get(m)
            if g is None and f is None and m in skipped:
                continue
            fx = (", ".join(f"<code>{_e(k)} = {_e(_value(v))}</code>" for k, v in f.items())
                  if isinstance(f, dict) and f else '<span class="missing">–</span>')
            cls = ' class="muted"' if m in skipped else ""
            out.append(f'<tr{cls}><td class="method">{_e(m)}</td><td>{_grid_text(g)}</td>'
                       f"<td>{fx}</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "".join(out)


def _params_cell(text):
    params = _json_object(text)
    if params is None:
        return _e(text)
    if not params:
        return '<span class="missing">–</span>'
    return _e(_params(params))


def _results_section(c, png):
    s = c.summary.reset_index(drop=True)
    best = _best_rows(s)
    rows = []
    for i, r in s.iterrows():
        status = r["status"]
        classes = [status]
        if i in best:
            classes.append("best")
        if status in ("skipped", "failed"):
            classes.append("muted")
        ran = status in ("ok", "partial") and np.isfinite(r["accuracy_mean"])
        acc = (f'{_percent(r["accuracy_mean"])} <span class="pm">± '
               f'{_percent(r["accuracy_std"])}</span>' if ran else "–")
        n_err, n_folds = r["n_errors"], r["n_folds"]
        badge = f'<span class="badge {_e(status)}">{_e(status)}</span>'
        if status == "partial" and np.isfinite(n_err):
            badge += (f' <span class="pm">{_e(_num(n_err))}/{_e(_num(n_folds))} folds '
                      "failed</span>")
        note = str(r["note"]).strip()
        if note:
            badge += f'<div class="note">{_e(note)}</div>'
        sv = _num(r["n_support_mean"], 3) if np.isfinite(r["n_support_mean"]) else "–"
        if np.isfinite(r["n_support_mean"]) and r["n_support_mean"] >= 10:
            sv = f"{r['n_support_mean']:.0f}"
        rows.append(
            f'<tr class="{" ".join(classes)}" data-method="{_e(r["method"])}">'
            f'<td class="num rank">{i + 1}</td><td class="method">{_e(r["method"])}</td>'
            f'<td class="num acc">{acc}</td><td class="params">{_params_cell(r["best_params"])}'
            f'</td><td class="num">{_e(_seconds(r["fit_seconds_mean"]))}</td>'
            f'<td class="num">{_e(sv)}</td><td class="cert">{_e(r["certificate"]) or "–"}</td>'
            f"<td>{badge}</td></tr>")
    majority = c.majority_rate
    caption = ("Accuracy: mean ± standard deviation over the test folds, in percent"
               + (f"; always predicting the largest class scores {100 * majority:.1f}%"
                  if np.isfinite(majority) else "")
               + ". Parameters: the value chosen most often over the folds. Fit time and "
               "#SV: means over the folds. The best mean accuracy is highlighted.")
    out = ['<section id="results"><h2>Results</h2><table id="results-table"><thead><tr>'
           '<th class="num">#</th><th>method</th><th class="num">accuracy (%)</th>'
           '<th>chosen parameters</th><th class="num">fit time</th><th class="num">#SV</th>'
           "<th>certificate</th><th>status</th></tr></thead><tbody>", *rows,
           f'</tbody></table><p class="caption">{_e(caption)}</p>',
           f'<figure>{_img(png, "accuracy per method")}<figcaption>Test accuracy per method: '
           "diamonds with bars are the mean ± std over the folds, dots the single folds, the "
           f"dashed line the majority class ({_e(FIGURE_FILES['accuracy'])}).</figcaption>"
           "</figure>"]
    out.append(_folds_details(c))
    out.append("</section>")
    return "".join(out)


def _folds_details(c):
    f = c.folds
    if not len(f):
        return ""
    failed = int((f["error"].str.strip() != "").sum())
    head = (f"All folds ({len(f)} rows"
            + (f", {failed} failed" if failed else "") + ")")
    rows = []
    previous = None
    for _, r in f.iterrows():
        first = r["method"] != previous
        previous = r["method"]
        error = str(r["error"]).strip()
        warn = str(r["warnings"]).strip()
        msg = error or warn
        short = textwrap.shorten(msg, 160, placeholder="…")
        msg_cell = f'<td class="msg" title="{_e(msg)}">{_e(short)}</td>' if msg else "<td></td>"
        if warn and not error:
            msg_cell = msg_cell.replace('class="msg"', 'class="msg" style="color:#7a4d00"')
        classes = " ".join(x for x in ("first" if first else "", "failed" if error else "") if x)
        rows.append(
            f'<tr class="{classes}"><td class="method">{_e(r["method"]) if first else ""}</td>'
            f'<td class="num">{_e(_num(r["repeat"]))}</td>'
            f'<td class="num">{_e(_num(r["fold"]))}</td>'
            f'<td class="num">{_e(_percent(r["accuracy"]))}</td>'
            f'<td class="params">{_params_cell(r["best_params"])}</td>'
            f'<td class="num">{_e(_percent(r["inner_score"]))}</td>'
            f'<td class="num">{_e(_seconds(r["fit_seconds"]))}</td>'
            f'<td class="num">{_e(_num(r["n_support"]))}</td>'
            f'<td>{_e(r["solver_status"])}</td><td class="num">{_e(_num(r["gap"], 2))}</td>'
            f"{msg_cell}</tr>")
    return (f'<details id="folds"><summary>{_e(head)}</summary><table><thead><tr>'
            '<th>method</th><th class="num">repeat</th><th class="num">fold</th>'
            '<th class="num">accuracy (%)</th><th>chosen parameters</th>'
            '<th class="num">inner score (%)</th><th class="num">fit</th>'
            '<th class="num">#SV</th><th>solver status</th><th class="num">gap</th>'
            "<th>error / warnings</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></details>")


def _boundary_section(c, png):
    return ('<section id="boundaries"><h2>Decision boundaries</h2><figure>'
            f'{_img(png, "decision regions per method")}<figcaption>Predicted class on a grid '
            "for each method trained on all the data; dots are the data coloured by their "
            f"label ({_e(FIGURE_FILES['boundaries'])}).</figcaption></figure></section>")


def _page_html(c, images):
    run, d = c.run, c.data
    name = d.get("name") or os.path.basename(os.path.abspath(c.directory))
    kernel = d.get("kernel") or "unknown"
    title = f"{name} · {kernel} kernel"
    s = c.summary
    n_ran = int(s["status"].isin(["ok", "partial"]).sum())
    p = c.protocol
    bits = [f"{len(s)} method{'s' if len(s) != 1 else ''}"]
    if p.get("cv"):
        bits.append(f"{_num(p['cv'])}-fold CV × {_num(p.get('repeats') or 1)}")
    bits.append(_kernel_label(d))
    bits.append(f"created {_created(run.get('created'))}")
    best = sorted(_best_rows(s))
    if best:
        r = s.loc[best[0]]
        names = ", ".join(str(s.loc[i, "method"]) for i in best)
        headline = (f"Best: <strong>{_e(names)}</strong> with "
                    f"{_percent(r['accuracy_mean'])} ± {_percent(r['accuracy_std'])}% accuracy")
        if np.isfinite(c.majority_rate):
            headline += f" (majority class {100 * c.majority_rate:.1f}%)"
        headline += f"; {n_ran} of {len(s)} methods ran"
        not_ran = len(s) - n_ran
        if not_ran:
            headline += f", {not_ran} skipped or failed"
        headline += "."
    else:
        headline = "No method produced an accuracy."
    command = run.get("command")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="krein">',
        f"<title>{_e('krein compare: ' + title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        '<header><p class="eyebrow">krein compare</p>',
        f"<h1>{_e(title)}</h1>",
        f'<p class="subtitle">{_e(" · ".join(bits))}</p>',
        f'<p class="headline">{headline}</p>',
        (f'<pre class="command"><code>{_e(command)}</code></pre>' if command else ""),
        "</header>",
        _data_section(c),
        _spectrum_section(c, images["spectrum"]),
        _protocol_section(c),
        _results_section(c, images["accuracy"]),
    ]
    if "boundaries" in images:
        parts.append(_boundary_section(c, images["boundaries"]))
    skipped = run.get("skipped") or {}
    version = run.get("krein_version") or "unknown version"
    parts.append(
        f"<footer>Made by krein {_e(version)} · run created {_e(_created(run.get('created')))}"
        f" · run time {_e(_duration(run.get('seconds')))}"
        + (f" · {len(skipped)} method{'s' if len(skipped) != 1 else ''} skipped"
           if skipped else "")
        + f" · rebuilt from the files of this directory with <code>krein report "
        f"{_e(os.path.basename(os.path.abspath(c.directory)))}</code></footer>")
    parts.append("</main></body></html>\n")
    return "\n".join(x for x in parts if x)


def write_report(directory):
    """Write ``report.html`` and its figures from the files of a comparison directory.

    Reads the directory (:func:`read_comparison`), writes ``spectrum.png``,
    ``accuracy.png`` and, for 2-D feature data, ``boundaries.png``
    (:func:`krein._io.save_png`, atomically), then the page
    ``report.html`` (atomically): title and headline result, the data, the
    kernel spectrum, the protocol, the results table with the accuracy chart
    and every fold, the decision boundaries when present, and a footer with
    the krein version, the date and the run time.  The page is one static
    file: the figures are embedded as base64 PNG data URIs, the CSS inline,
    no script; every text from the files is HTML-escaped.

    Parameters
    ----------
    directory : str or path-like
        The directory ``krein compare`` wrote; the page and the figures are
        written into it.

    Returns
    -------
    str
        The path of ``report.html``.
    """
    c = read_comparison(directory)
    figures = {"spectrum": spectrum_figure(c), "accuracy": accuracy_figure(c)}
    boundaries = boundary_figure(c)
    if boundaries is not None:
        figures["boundaries"] = boundaries
    images = {}
    for key, fig in figures.items():
        path = save_png(fig, os.path.join(c.directory, FIGURE_FILES[key]), dpi=120)
        with open(path, "rb") as f:
            images[key] = f.read()
    page = _page_html(c, images)
    return atomic_write_bytes(os.path.join(c.directory, REPORT_FILE), page.encode("utf-8"))
