"""Tables and figures made from an experiment's results file only.

Part of :mod:`krein.experiment` (which re-exports the public names).

Tables (:func:`results_table`) follow the papers' layout: one row per setting
(data set, kernel parameters...), one column per method, each entry the mean
and, in brackets, the standard deviation of a metric, the best entry of each
row in bold (Loosli et al. 2013 Tables 2-3: "5-fold CV performance (%) ...
and the standard deviation on 10 runs"; Luss & d'Aspremont 2009 Table 2).
With several repeats the standard deviation is the one of the per-repeat
means (the mean over the folds of one repeat), as in Loosli et al.; with one
repeat, the one over the folds.  Failed cells are left out of the mean and
counted (marked † with a note).

No table averages over a grid dimension silently.  The settings of a
results file are its parameter columns (from ``config``, or inferred by the
rule of :func:`param_columns` when a slimmed file has none); by default a
table has one row per combination of the settings that split its cells
(:func:`summarize`), and whenever an entry still pools cells that differ in
a setting other than fold, repeat or seed (explicit ``rows``/``columns``),
a note under the table names those settings (:func:`pooled_columns`,
:func:`pooled_note`).

Figures: :mod:`krein.experiment.figures`.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pandas as pd

from .store import META_COLUMNS, PROVENANCE_COLUMNS, RESULTS_FILE, flatten_params
from .validate import ResultFileError, scan_results

__all__ = ["read_results", "param_columns", "pooled_columns", "pooled_note", "volatile_columns",
           "summarize", "results_table", "format_frame", "make_table", "TABLE_FORMATS",
           "PERCENT_METRICS", "REPLICATION_COLUMNS", "TEXT_RESULT_COLUMNS", "results_frame",
           "default_rows", "setting_label"]

#: Output formats of :func:`results_table`.
TABLE_FORMATS = ("markdown", "latex", "csv")

#: Metrics in [0, 1] shown in percent, higher is better.
PERCENT_METRICS = ("accuracy", "recall", "average", "sensitivity", "specificity",
                   "inner_score")

#: Replication dimensions of a cell: tables and figures average over them by design
#: (every other setting that varies inside an entry is reported as pooled).
REPLICATION_COLUMNS = ("fold", "repeat", "seed")

#: Text columns the classification task returns as results (not settings).
TEXT_RESULT_COLUMNS = ("solver_used", "solver_version", "solver_status", "test_correct",
                      "test_predictions")

_TEXT_COLUMNS = ("key", "experiment", "task", "status", "error", "warnings", "trace_file",
                 "config", "host", "timestamp", "test_correct", "test_predictions")


def results_frame(results):
    """The results as a DataFrame, and their directory.

    Parameters
    ----------
    results : pandas.DataFrame or str or path-like
        Results read by :func:`read_results` (or any DataFrame of results), a
        results file, or a results directory (its ``results.csv``).

    Returns
    -------
    frame : pandas.DataFrame
        The results (a DataFrame given is returned as it is).
    directory : str or None
        The results directory (``frame.attrs["directory"]``; None for a
        DataFrame that does not record it).

    Raises
    ------
    ValueError
        As :func:`read_results`, for a file or directory.
    """
    if isinstance(results, pd.DataFrame):
        return results, results.attrs.get("directory")
    path = os.fspath(results)
    if os.path.isdir(path):
        path = os.path.join(path, RESULTS_FILE)
    df = read_results(path)
    return df, df.attrs.get("directory")


def read_results(path):
    """Read a results file (or the ``results.csv`` of a results directory).

    Parameters
    ----------
    path : str or path-like
        ``DIR/results.csv`` or ``DIR``.

    Returns
    -------
    pandas.DataFrame
        One row per cell; the text columns (key, status, error, warnings,
        trace_file, config...) as strings with ``""`` for empty; ``attrs``
        holds ``directory`` and ``path``.

    Raises
    ------
    ValueError
        If the file does not exist or is not a krein results file.
    krein.experiment.validate.ResultFileError
        (a ValueError) If a row is damaged or inconsistent with the
        directory's ``experiment.json``: the message names the file and the
        line (:func:`krein.experiment.validate.scan_results`).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, RESULTS_FILE)
    if not os.path.isfile(path):
        raise ValueError(f"results: no such file {path!r}")
    try:
        scan_results(path).check()  # every row whole, typed, unique, a recorded cell
    except ResultFileError as exc:
        if exc.line == 1 and exc.problem.startswith("missing column"):
            raise ValueError(f"results: {path!r} is not a krein results file (no 'key' "
                             "column)") from None
        if exc.problem.startswith("the file is empty"):
            raise ValueError(f"results: {path!r} is empty, not a krein results file") from None
        raise
    dtypes = {c: str for c in _TEXT_COLUMNS}
    df = pd.read_csv(path, dtype=dtypes, keep_default_na=True)
    if "key" not in df.columns:
        raise ValueError(f"results: {path!r} is not a krein results file (no 'key' column)")
    for c in _TEXT_COLUMNS:
        if c in df.columns:
            df[c] = df[c].fillna("")
    df.attrs["directory"] = os.path.dirname(os.path.abspath(path))
    df.attrs["path"] = os.path.abspath(path)
    return df


def _parsed_config_names(results):
    """Parameter names from the ``config`` column, or None when no row has one."""
    names, found = set(), False
    for text in results.get("config", pd.Series([], dtype=str)):
        if not isinstance(text, str) or not text:
            continue
        try:
            names.update(flatten_params(json.loads(text).get("params", {})))
            found = True
        except (ValueError, AttributeError):
            continue
    return names if found else None


def _is_text(series):
    """True when a non-missing value of ``series`` is not a number (booleans are numbers)."""
    if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return False
    values = series.dropna()
    values = values[values.astype(str) != ""]
    return bool(len(values)) and pd.to_numeric(values, errors="coerce").isna().any()


def param_columns(results):
    """Setting columns (grid dimensions) of a results DataFrame, in column order.

    With a ``config`` column (every file the runner writes) these are the
    parameters of the cells' canonical configurations (nested dicts
    flattened with dots).  A slimmed results file without ``config`` (e.g.
    the committed ``experiments/results/*.csv``) has no record of which
    columns were parameters; they are then inferred by this rule:

    * never a setting: the meta columns (key, experiment, task, status,
      error), the provenance columns (warnings, trace file, host, pid,
      timestamp, versions, config) and the timings (``*seconds``);
    * a setting: a parameter of the classification task
      (:data:`~krein.experiment.CLASSIFICATION_DEFAULTS`: dataset, method,
      kernel, n_samples, binary, solver, fold, repeat...), any dotted column
      (only parameters are flattened, e.g. ``kernel_params.a``), ``seed``,
      and any other column holding text (a label of the setting), except the
      classification task's text results (:data:`TEXT_RESULT_COLUMNS`,
      ``best_*``);
    * every other (numeric) column is a result.

    Parameters
    ----------
    results : pandas.DataFrame
        A results file as read by :func:`read_results`.

    Returns
    -------
    list of str
        Column names, fold / repeat / seed included (see
        :data:`REPLICATION_COLUMNS`).
    """
    names = _parsed_config_names(results)
    if names is not None:
        return [c for c in results.columns if c in names]
    from .classification import CLASSIFICATION_DEFAULTS

    never = set(META_COLUMNS) | set(PROVENANCE_COLUMNS) | set(volatile_columns(results))
    out = []
    for c in results.columns:
        if c in never:
            continue
        if c in CLASSIFICATION_DEFAULTS or c in REPLICATION_COLUMNS or "." in c:
            out.append(c)
        elif (c not in TEXT_RESULT_COLUMNS and not c.startswith("best_")
              and _is_text(results[c])):
            out.append(c)
    return out


def _nunique_within(df, column, keys):
    """Largest number of distinct values of ``column`` within a group of ``keys``."""
    if not keys:
        return int(df[column].nunique(dropna=False))
    return int(df.groupby(keys, dropna=False, sort=False)[column].nunique(dropna=False).max())


def pooled_columns(results, keys, params=None):
    """Setting columns that vary inside the groups of ``keys`` (what a summary pools).

    A table entry or a figure point that averages the cells of one group
    of ``keys`` also averages over these columns, besides the replication
    dimensions (:data:`REPLICATION_COLUMNS`), which are averaged by design.

    Parameters
    ----------
    results : pandas.DataFrame
        The results table (:func:`read_results`), or the path of a results file or directory.
    keys : list of str
        The grouping columns.
    params : list of str, optional
        The setting columns; default :func:`param_columns` of ``results``.

    Returns
    -------
    dict
        ``{column: largest number of its distinct values in one group}``,
        in column order; empty when nothing is pooled.
    """
    params = param_columns(results) if params is None else params
    keys = list(keys)
    out = {}
    if not len(results):
        return out
    for c in params:
        if c in keys or c in REPLICATION_COLUMNS or c not in results.columns:
            continue
        n = _nunique_within(results, c, keys)
        if n > 1:
            out[c] = n
    return out


def pooled_note(pooled):
    """One line saying which setting columns an output pools, or ``""``.

    Parameters
    ----------
    pooled : dict
        As returned by :func:`pooled_columns`.

    Returns
    -------
    str
        The note (``""`` when nothing was pooled).
    """
    if not pooled:
        return ""
    parts = [f"{c} ({n} values)" for c, n in pooled.items()]
    return ("note: pooled over " + ", ".join(parts) + " -- each entry averages cells that "
            "differ in these settings (not only in fold/repeat/seed); group by them to split")


def volatile_columns(results):
    """Columns that legitimately differ between two runs of the same cells.

    Timing (every column whose name ends in ``seconds``), host, pid, timestamp,
    and package versions (``version_*``).

    Parameters
    ----------
    results : pandas.DataFrame or iterable of str
        A results table, or its column names.

    Returns
    -------
    list of str
        The volatile column names, in column order.
    """
    cols = results.columns if isinstance(results, pd.DataFrame) else list(results)
    return [c for c in cols if c.endswith("seconds") or c in ("host", "pid", "timestamp")
            or c.startswith("version_")]


# --------------------------------------------------------------------------- tables
def _as_list(v):
    if v is None:
        return []
    return [v] if isinstance(v, str) else list(v)


def default_rows(df, columns, params):
    """Default row columns of a table: every varying setting that splits the cells.

    In column order, a setting (:func:`param_columns`) becomes a row column
    unless it is a table column, a replication dimension
    (:data:`REPLICATION_COLUMNS`), constant, or constant within every group
    of the table's columns and the row columns chosen before it (an
    attribute of a method, e.g. its own inner-CV grid, or of a data set,
    e.g. the kernel parameters calibrated for it): such a column splits no
    group, so leaving it out pools nothing.  The figures choose their panels
    by the same rule.

    Parameters
    ----------
    df : pandas.DataFrame
        The results.
    columns : list of str
        The table's columns (e.g. ``["method"]``).
    params : list of str
        The settings of the results (:func:`param_columns`), in column order.

    Returns
    -------
    list of str
        The row columns.
    """
    skip = set(columns) | set(REPLICATION_COLUMNS)
    rows = []
    for c in params:
        if c in skip or c not in df.columns or df[c].nunique(dropna=False) <= 1:
            continue
        if _nunique_within(df, c, list(columns) + rows) <= 1:
            continue
        rows.append(c)
    return rows


def summarize(results, value="accuracy", rows=None, columns="method"):
    """Mean and standard deviation of a metric per (row setting, column) group.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
        The results table (:func:`read_results`), or the path of a results file or directory.
    value : str
        A numeric result column (e.g. ``"accuracy"``, ``"fit_seconds"``).
    rows : str or list of str, optional
        Columns identifying a table row; default the settings
        (:func:`param_columns`, inferred when the file has no ``config``)
        that vary, other than ``columns``, ``fold``, ``repeat``, ``seed`` and
        those that split no group (fixed by the column variable, e.g. a
        method's own grid, or by the row columns before them, e.g. a data
        set's kernel parameters).
    columns : str or list of str
        Columns identifying a table column (default ``"method"``).

    Returns
    -------
    pandas.DataFrame
        One row per group: the ``rows`` and ``columns`` values, ``value_mean``,
        ``value_std`` (of the per-repeat means when the group has several
        repeats, else of the cells; NaN for one value), ``n_ok`` (successful
        cells), ``n_errors``, ``min_eigenvalue_mean`` (when recorded) and
        ``pooled`` (the settings other than fold/repeat/seed that vary among
        the group's cells, ``"name=count;..."``, ``""`` for none).
        ``attrs["rows"]``, ``attrs["columns"]``, ``attrs["std_over"]``,
        ``attrs["pooled"]`` (:func:`pooled_columns` of the grouping: never
        empty when an entry averages over a setting).

    Raises
    ------
    ValueError
        Unknown ``value``/``rows``/``columns`` column, a non-numeric ``value``,
        or a row/column name that is one of the summary's own columns.
    """
    df, _ = results_frame(results)
    columns = _as_list(columns)
    params = param_columns(df)
    rows = default_rows(df, columns, params) if rows is None else _as_list(rows)
    clash = set(rows + columns) & {"value_mean", "value_std", "n_ok", "n_errors",
                                   "min_eigenvalue_mean", "pooled"}
    if clash:
        raise ValueError(f"rows/columns: {sorted(clash)} are names of the summary's columns")
    for what, names in (("rows", rows), ("columns", columns), ("value", [value])):
        missing = [c for c in names if c not in df.columns]
        if missing:
            raise ValueError(f"{what}: no column(s) {missing} in the results; columns: "
                             f"{list(df.columns)}")
    status = df["status"] if "status" in df.columns else pd.Series("ok", index=df.index)
    ok = status == "ok"
    vals = pd.to_numeric(df[value], errors="coerce")
    if ok.any() and vals[ok].isna().all() and df.loc[ok, value].notna().any():
        raise ValueError(f"value: column {value!r} is not numeric")
    work = df.assign(_v=vals, _ok=ok)
    keys = rows + columns
    pool_params = [c for c in params if c not in keys and c not in REPLICATION_COLUMNS]
    out = []
    std_over = set()
    grouped = work.groupby(keys, dropna=False, sort=False) if keys else [((), work)]
    for gkey, g in grouped:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        good = g[g["_ok"] & g["_v"].notna()]
        if "repeat" in good.columns and good["repeat"].nunique() > 1:
            per = good.groupby("repeat")["_v"].mean()
            mean, std = float(per.mean()), float(per.std(ddof=1))
            std_over.add("repeats")
        else:
            mean = float(good["_v"].mean()) if len(good) else math.nan
            std = float(good["_v"].std(ddof=1)) if len(good) > 1 else math.nan
            if len(good) > 1:
                std_over.add("cells")
        rec = dict(zip(keys, gkey))
        rec.update({"value_mean": mean, "value_std": std, "n_ok": int(len(good)),
                    "n_errors": int((~g["_ok"]).sum())})
        if "min_eigenvalue" in g.columns:
            rec["min_eigenvalue_mean"] = float(pd.to_numeric(g["min_eigenvalue"],
                                                             errors="coerce").mean())
        rec["pooled"] = ";".join(f"{c}={g[c].nunique(dropna=False)}" for c in pool_params
                                 if g[c].nunique(dropna=False) > 1)
        out.append(rec)
    s = pd.DataFrame(out)
    s.attrs.update({"rows": rows, "columns": columns, "value": value,
                    "std_over": sorted(std_over),
                    "pooled": pooled_columns(df, keys, params)})
    return s


def setting_label(values):
    """The label of a setting's values in a table or a figure, joined by "/".

    Parameters
    ----------
    values : sequence
        The values (one per setting of a row or column key).

    Returns
    -------
    str
        Each value as text: None and NaN as "-", an integral float without
        decimals, other floats with 4 significant digits; joined by "/".
    """
    parts = []
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            parts.append("-")
        elif isinstance(v, float) and v.is_integer():
            parts.append(str(int(v)))
        elif isinstance(v, float):
            parts.append(f"{v:.4g}")
        else:
            parts.append(str(v))
    return "/".join(parts)


def _default_best(value):
    if value in PERCENT_METRICS or "score" in value:
        return "max"
    if value.endswith("seconds") or value in ("n_support", "n_iter") or "gap" in value \
            or "residual" in value:
        return "min"
    return None


def _latex_escape(text):
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"),
                 ("#", r"\#"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        text = text.replace(a, b)
    return text


def _rank_line(table, labels, best, alpha=0.05):
    """Average ranks, Friedman and Nemenyi over the rows of a table (Demšar 2006), one line."""
    from .statistics import friedman_nemenyi

    M = np.array([[c["mean"] for c in cells] for _, _, cells in table], dtype=float)
    keep = np.isfinite(M).all(axis=1) if M.size else np.zeros(0, bool)
    if best is None or M.ndim != 2 or M.shape[1] < 2 or keep.sum() < 2:
        return ""
    res = friedman_nemenyi(pd.DataFrame((1 if best == "max" else -1) * M[keep],
                                        columns=labels), alpha)
    text = ("Average rank over the rows (1 = best; Demšar 2006): "
            + ", ".join(f"{m} {r:.2f}" for m, r in res["ranks"].items()))
    if np.isfinite(res["chi2"]):
        text += (f"; Friedman chi2 = {res['chi2']:.2f} (p = {res['p']:.2g}), Iman-Davenport "
                 f"F = {res['F']:.2f} (p = {res['p_F']:.2g})")
    text += (f"; Nemenyi critical difference {res['cd']:.2f} (alpha {alpha:g}, "
             f"k = {res['k']}, N = {res['N']})")
    if (~keep).any():
        text += f"; {int((~keep).sum())} row(s) with a missing entry left out"
    return text + "."


def results_table(results, value="accuracy", rows=None, columns="method", fmt="markdown", *,
                  scale=None, digits=None, best=None, eigenvalue=True, ranks=False):
    """A paper-style table of a metric: mean (std) per row setting and column, best in bold.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
        The results table (:func:`read_results`), or the path of a results file or directory.
    value : str
        The metric column (as :func:`summarize`).
    rows : str or list of str, optional
        Columns identifying a table row (as :func:`summarize`).
    columns : str or list of str
        Columns identifying a table column (as :func:`summarize`).
    fmt : {"markdown", "latex", "csv"}
        Markdown pipe table, LaTeX ``tabular`` (booktabs rules,
        ``\\textbf`` for the best), or CSV with numeric ``COL`` (mean) and
        ``COL std`` columns and a ``best`` column.
    scale : float, optional
        Multiply means and stds (default 100 for the metrics in [0, 1]:
        percent, as the papers; else 1).
    digits : int, optional
        Decimals (default 2 for percentages); without it other values get 4
        significant digits.
    best : {"max", "min", None}, optional
        Which entry of a row is marked; default ``"max"`` for accuracy-like
        metrics, ``"min"`` for times, gaps and residuals, else none.  Entries
        whose displayed mean equals the best are all marked.
    eigenvalue : bool
        Add a column with the mean least eigenvalue of the row's training
        kernels (Loosli et al. print it after the data set name).
    ranks : bool, default False
        Markdown and LaTeX: a line under the table with the average rank of
        each column over the rows (e.g. data sets), the Friedman test, the
        Iman-Davenport F and the Nemenyi critical difference
        (:func:`krein.experiment.statistics.friedman_nemenyi`; rows with a
        missing entry left out and counted; nothing without ``best`` or with
        fewer than two complete rows).  An experiment's ``table`` may set it.

    Returns
    -------
    str
        The table, a caption line first (Markdown/LaTeX: as text / comment).
        When an entry pools cells that differ in a setting other than fold,
        repeat or seed (:func:`pooled_columns`), a note line says which
        (Markdown: under the table; LaTeX: a last row spanning the table;
        CSV: a ``pooled`` column).

    Raises
    ------
    ValueError
        Bad ``fmt``/``best`` or column names (see :func:`summarize`).
    """
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"fmt must be one of {TABLE_FORMATS}; got {fmt!r}")
    s = summarize(results, value, rows, columns)
    rows, columns = s.attrs["rows"], s.attrs["columns"]
    if best is None:
        best = _default_best(value)
    if best not in (None, "max", "min"):
        raise ValueError(f"best must be 'max', 'min' or None; got {best!r}")
    if scale is None:
        scale = 100.0 if value in PERCENT_METRICS else 1.0
    if digits is None and scale == 100.0:
        digits = 2

    def num(v):
        if v is None or not np.isfinite(v):
            return "-"
        return f"{v:.{digits}f}" if digits is not None else f"{v:.4g}"

    row_keys = list(dict.fromkeys(tuple(r) for r in s[rows].itertuples(index=False))) \
        if rows else [()]
    col_keys = list(dict.fromkeys(tuple(r) for r in s[columns].itertuples(index=False))) \
        if columns else [()]
    col_labels = [setting_label(c) or value for c in col_keys]
    lookup = {}
    for rec in s.to_dict("records"):
        lookup[(tuple(rec[c] for c in rows), tuple(rec[c] for c in columns))] = rec

    def find(rk, ck):
        for (a, b), rec in lookup.items():
            if _same(a, rk) and _same(b, ck):
                return rec
        return None

    show_eig = (eigenvalue and "min_eigenvalue_mean" in s.columns
                and value != "min_eigenvalue")
    table, any_err = [], False
    for rk in row_keys:
        recs = [find(rk, ck) for ck in col_keys]
        means = [rec["value_mean"] * scale if rec else math.nan for rec in recs]
        shown = [num(m) for m in means]
        finite = [float(t) for t, m in zip(shown, means) if np.isfinite(m) and t != "-"]
        target = None
        if best and finite:
            target = max(finite) if best == "max" else min(finite)
        cells = []
        for rec, m, t in zip(recs, means, shown):
            sd = rec["value_std"] * scale if rec else math.nan
            err = bool(rec and rec["n_errors"])
            any_err |= err
            cells.append({"mean": m, "std": sd, "text": t, "std_text": num(sd) if
                          np.isfinite(sd) else "", "best": target is not None and t != "-"
                          and float(t) == target, "err": err,
                          "n_errors": rec["n_errors"] if rec else 0,
                          "pooled": rec["pooled"] if rec else ""})
        eig = math.nan
        if show_eig:
            vals = [rec["min_eigenvalue_mean"] for rec in recs if rec]
            eig = float(np.nanmean(vals)) if vals and np.isfinite(vals).any() else math.nan
        table.append((rk, eig, cells))

    unit = " (%)" if scale == 100.0 else (f" (x{scale:g})" if scale != 1.0 else "")
    over = " or ".join({"repeats": "repeats", "cells": "folds"}.get(o, o)
                       for o in s.attrs["std_over"]) or "folds"
    caption = (f"{value}{unit}: mean (std over {over})"
               + (f"; best per row ({'highest' if best == 'max' else 'lowest'}) marked"
                  if best else "")
               + ("; † some cells failed (left out)" if any_err else ""))
    note = pooled_note(s.attrs["pooled"])
    rank_line = _rank_line(table, col_labels, best) if ranks else ""
    head = list(rows) or ["setting"]
    if show_eig:
        head = head + ["least eig."]

    if fmt == "csv":
        recs = []
        for rk, eig, cells in table:
            rec = dict(zip(rows, rk)) if rows else {"setting": "all"}
            if show_eig:
                rec["least_eigenvalue"] = eig
            for lab, c in zip(col_labels, cells):
                rec[lab] = c["mean"]
                rec[f"{lab} std"] = c["std"]
                rec[f"{lab} n_errors"] = c["n_errors"]
            rec["best"] = ";".join(lab for lab, c in zip(col_labels, cells) if c["best"])
            if note:
                rec["pooled"] = ";".join(dict.fromkeys(
                    p for c in cells for p in c["pooled"].split(";") if p))
            recs.append(rec)
        return pd.DataFrame(recs).to_csv(index=False)

    def entry(c, bold):
        t = c["text"]
        if c["best"]:
            t = bold(t)
        if c["std_text"]:
            t += f" ({c['std_text']})"
        if c["err"]:
            t += " †"
        return t

    lines = []
    if fmt == "markdown":
        lines.append(caption)
        lines.append("")
        lines.append("| " + " | ".join(head + col_labels) + " |")
        lines.append("|" + "|".join(["---"] * len(head) + ["---:"] * len(col_labels)) + "|")
        for rk, eig, cells in table:
            lab = [setting_label([v]) for v in rk] or ["all"]
            if show_eig:
                lab.append(f"{eig:.4g}" if np.isfinite(eig) else "-")
            lines.append("| " + " | ".join(lab + [entry(c, lambda t: f"**{t}**")
                                              for c in cells]) + " |")
        lines += [x for t in (note, rank_line) if t for x in ("", t)]
    else:
        lines.append("% " + caption)
        lines.append(r"\begin{tabular}{" + "l" * len(head) + "r" * len(col_labels) + "}")
        lines.append(r"\toprule")
        lines.append(" & ".join(_latex_escape(h) for h in head + col_labels) + r" \\")
        lines.append(r"\midrule")
        for rk, eig, cells in table:
            lab = [_latex_escape(setting_label([v])) for v in rk] or ["all"]
            if show_eig:
                lab.append(f"{eig:.4g}" if np.isfinite(eig) else "-")
            body = [entry(c, lambda t: r"\textbf{" + t + "}").replace("†", r"$^\dagger$")
                    for c in cells]
            lines.append(" & ".join(lab + body) + r" \\")
        lines.append(r"\bottomrule")
        for t in (note, rank_line):
            if t:
                lines.append(r"\multicolumn{" + str(len(head) + len(col_labels))
                             + r"}{l}{\footnotesize " + _latex_escape(t) + r"} \\")
        lines.append(r"\end{tabular}")
    return "\n".join(lines) + "\n"


def format_frame(frame, fmt="markdown"):
    """A DataFrame as a Markdown pipe table, a LaTeX ``tabular`` or CSV text.

    For experiments whose ``table`` is a callable returning a DataFrame (e.g. a
    solver summary); numbers are printed with 4 significant digits.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to format (index and columns as they should be printed).
    fmt : {"markdown", "latex", "csv"}

    Returns
    -------
    str
        The formatted table.

    Raises
    ------
    ValueError
        For another ``fmt``.
    """
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"fmt must be one of {TABLE_FORMATS}; got {fmt!r}")
    if fmt == "csv":
        return frame.to_csv(index=False)

    def text(v):
        if isinstance(v, (float, np.floating)):
            return "-" if not np.isfinite(v) else f"{v:.4g}"
        return "-" if v is None else str(v)

    cols = [str(c) for c in frame.columns]
    body = [[text(v) for v in row] for row in frame.itertuples(index=False)]
    if fmt == "markdown":
        numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
        lines = ["| " + " | ".join(cols) + " |",
                 "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
    else:
        lines = [r"\begin{tabular}{" + "l" * len(cols) + "}", r"\toprule",
                 " & ".join(_latex_escape(c) for c in cols) + r" \\", r"\midrule"]
        lines += [" & ".join(_latex_escape(v) for v in r) + r" \\" for r in body]
        lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        xn = x is None or (isinstance(x, float) and math.isnan(x))
        yn = y is None or (isinstance(y, float) and math.isnan(y))
        if xn and yn:
            continue
        if xn != yn or x != y:
            return False
    return True


# --------------------------------------------------------------------------- reports
def make_table(results, experiment=None, fmt="markdown", **overrides):
    """The experiment's table of a results file.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
        The results table (:func:`read_results`), or the path of a results file or directory.
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
        The formatted table.

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
