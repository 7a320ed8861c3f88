"""Tables and figures made from an experiment's results file only.

Private helper of :mod:`krein.experiment` (which re-exports the public names).

Tables (:func:`results_table`) follow the papers' layout: one row per setting
(data set, kernel parameters...), one column per method, each entry the mean
and, in brackets, the standard deviation of a metric, the best entry of each
row in bold (Loosli et al. 2013 Tables 2-3: "5-fold CV performance (%) ...
and the standard deviation on 10 runs"; Luss & d'Aspremont 2009 Table 2).
With several repeats the standard deviation is the one of the per-repeat
means (the mean over the folds of one repeat), as in Loosli et al.; with one
repeat, the one over the folds.  Failed cells are left out of the mean and
counted (marked † with a note).

Figures (:func:`plot_results`) are PNG files drawn with Matplotlib's Agg
canvas (no pyplot, no global backend change), each written atomically:

* ``NAME_accuracy.png``: metric per method, mean ± std, one panel per row;
* ``NAME_accuracy_vs_eigenvalue.png``: accuracy against the least eigenvalue
  of the training kernel, one line per method over the kernel settings, one
  panel per data set (Loosli et al. 2013 Figs. 6-7);
* ``NAME_time_vs_n.png``: training time against the number of training
  points, log-log, one line per method (Loosli et al. 2013 Fig. 5);
* ``NAME_convergence.png``: duality gap (else objective) against the
  iteration, mean over cells with dashed lines at ± one standard deviation,
  one panel per method setting (Luss & d'Aspremont 2009 Fig. 1), from the
  per-cell trace files.

Each figure is drawn only when the results have what it needs (e.g. several
kernel settings for the eigenvalue plot, several ``n_samples`` for the time
plot, trace files with a ``gap`` or ``objective`` column).
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pandas as pd

from ._results import (META_COLUMNS, PROVENANCE_COLUMNS, RESULTS_FILE, flatten_params)

__all__ = ["read_results", "param_columns", "volatile_columns", "summarize", "results_table",
           "plot_results", "plot_accuracy", "plot_accuracy_vs_eigenvalue", "plot_time_vs_n",
           "plot_convergence", "format_frame", "TABLE_FORMATS"]

#: Output formats of :func:`results_table`.
TABLE_FORMATS = ("markdown", "latex", "csv")

#: Metrics in [0, 1] shown in percent, higher is better.
PERCENT_METRICS = ("accuracy", "recall", "average", "sensitivity", "specificity",
                   "inner_score")

_TEXT_COLUMNS = ("key", "experiment", "task", "status", "error", "warnings", "trace_file",
                 "config", "host", "timestamp")


def _resolve(results):
    """(DataFrame, directory) from a DataFrame, a results file or a results directory."""
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
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, RESULTS_FILE)
    if not os.path.isfile(path):
        raise ValueError(f"results: no such file {path!r}")
    dtypes = {c: str for c in _TEXT_COLUMNS}
    try:
        df = pd.read_csv(path, dtype=dtypes, keep_default_na=True)
    except pd.errors.EmptyDataError:
        raise ValueError(f"results: {path!r} is empty, not a krein results file") from None
    if "key" not in df.columns:
        raise ValueError(f"results: {path!r} is not a krein results file (no 'key' column)")
    for c in _TEXT_COLUMNS:
        if c in df.columns:
            df[c] = df[c].fillna("")
    df.attrs["directory"] = os.path.dirname(os.path.abspath(path))
    df.attrs["path"] = os.path.abspath(path)
    return df


def param_columns(results):
    """Parameter columns of a results DataFrame (from the ``config`` column), in column order."""
    names = set()
    for text in results.get("config", pd.Series([], dtype=str)):
        try:
            names.update(flatten_params(json.loads(text).get("params", {})))
        except (ValueError, AttributeError):
            continue
    return [c for c in results.columns if c in names]


def volatile_columns(results):
    """Columns that legitimately differ between two runs of the same cells.

    Timing (every column whose name ends in ``seconds``), host, pid, timestamp,
    and package versions (``version_*``).

    Parameters
    ----------
    results : pandas.DataFrame or iterable of str

    Returns
    -------
    list of str
    """
    cols = results.columns if isinstance(results, pd.DataFrame) else list(results)
    return [c for c in cols if c.endswith("seconds") or c in ("host", "pid", "timestamp")
            or c.startswith("version_")]


# --------------------------------------------------------------------------- tables
def _as_list(v):
    if v is None:
        return []
    return [v] if isinstance(v, str) else list(v)


def _default_rows(df, columns, params):
    """Varying parameter columns that are neither the table's columns, fold/repeat/seed, nor
    attributes of the column variable (constant within each of its values)."""
    skip = set(columns) | {"fold", "repeat", "seed"}
    rows = []
    for c in params:
        if c in skip or df[c].nunique(dropna=False) <= 1:
            continue
        if columns and df.groupby(columns, dropna=False)[c].nunique(dropna=False).max() <= 1:
            continue
        rows.append(c)
    return rows


def summarize(results, value="accuracy", rows=None, columns="method"):
    """Mean and standard deviation of a metric per (row setting, column) group.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
    value : str
        A numeric result column (e.g. ``"accuracy"``, ``"fit_seconds"``).
    rows : str or list of str, optional
        Columns identifying a table row; default the parameters that vary,
        other than ``columns``, ``fold``, ``repeat``, ``seed`` and the
        parameters fixed by the column variable (e.g. a method's own grid).
    columns : str or list of str
        Columns identifying a table column (default ``"method"``).

    Returns
    -------
    pandas.DataFrame
        One row per group: the ``rows`` and ``columns`` values, ``value_mean``,
        ``value_std`` (of the per-repeat means when the group has several
        repeats, else of the cells; NaN for one value), ``n_ok`` (successful
        cells), ``n_errors``, and ``min_eigenvalue_mean`` (when recorded).
        ``attrs["rows"]``, ``attrs["columns"]``, ``attrs["std_over"]``.

    Raises
    ------
    ValueError
        Unknown ``value``/``rows``/``columns`` column, a non-numeric ``value``,
        or a row/column name that is one of the summary's own columns.
    """
    df, _ = _resolve(results)
    columns = _as_list(columns)
    params = param_columns(df)
    rows = _default_rows(df, columns, params) if rows is None else _as_list(rows)
    clash = set(rows + columns) & {"value_mean", "value_std", "n_ok", "n_errors",
                                   "min_eigenvalue_mean"}
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
        out.append(rec)
    s = pd.DataFrame(out)
    s.attrs.update({"rows": rows, "columns": columns, "value": value,
                    "std_over": sorted(std_over)})
    return s


def _label(values):
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


def results_table(results, value="accuracy", rows=None, columns="method", fmt="markdown", *,
                  scale=None, digits=None, best=None, eigenvalue=True):
    """A paper-style table of a metric: mean (std) per row setting and column, best in bold.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
    value, rows, columns :
        As :func:`summarize`.
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

    Returns
    -------
    str
        The table, a caption line first (Markdown/LaTeX: as text / comment).

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
    col_labels = [_label(c) or value for c in col_keys]
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
                          "n_errors": rec["n_errors"] if rec else 0})
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
            lab = [_label([v]) for v in rk] or ["all"]
            if show_eig:
                lab.append(f"{eig:.4g}" if np.isfinite(eig) else "-")
            lines.append("| " + " | ".join(lab + [entry(c, lambda t: f"**{t}**")
                                              for c in cells]) + " |")
    else:
        lines.append("% " + caption)
        lines.append(r"\begin{tabular}{" + "l" * len(head) + "r" * len(col_labels) + "}")
        lines.append(r"\toprule")
        lines.append(" & ".join(_latex_escape(h) for h in head + col_labels) + r" \\")
        lines.append(r"\midrule")
        for rk, eig, cells in table:
            lab = [_latex_escape(_label([v])) for v in rk] or ["all"]
            if show_eig:
                lab.append(f"{eig:.4g}" if np.isfinite(eig) else "-")
            body = [entry(c, lambda t: r"\textbf{" + t + "}").replace("†", r"$^\dagger$")
                    for c in cells]
            lines.append(" & ".join(lab + body) + r" \\")
        lines.append(r"\bottomrule")
        lines.append(r"\end{tabular}")
    return "\n".join(lines) + "\n"


def format_frame(frame, fmt="markdown"):
    """A DataFrame as a Markdown pipe table, a LaTeX ``tabular`` or CSV text.

    For experiments whose ``table`` is a callable returning a DataFrame (e.g. a
    solver summary); numbers are printed with 4 significant digits.

    Parameters
    ----------
    frame : pandas.DataFrame
    fmt : {"markdown", "latex", "csv"}

    Returns
    -------
    str

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


# --------------------------------------------------------------------------- figures
def _figure(figsize):
    from .compare import _new_figure

    return _new_figure(figsize)


def save_png(fig, path, *, dpi=110, colors=128, bbox_inches="tight"):
    """Write a Matplotlib figure as a small PNG, atomically.

    The figure is rendered at ``dpi``, reduced to an adaptive palette of
    ``colors`` colours (Pillow's median cut; line plots and colour maps look
    the same and the file is 3-4 times smaller, which matters for figures
    committed to a repository), and moved onto ``path`` only when complete.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or path-like
        Destination; its directory is created.
    dpi : float > 0
    colors : int in [2, 256] or None
        Palette size; None keeps full RGBA.
    bbox_inches : str or None
        Passed to ``savefig``.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        On ``colors`` outside [2, 256].
    """
    import io

    from PIL import Image

    from .compare import _atomic_write

    if colors is not None and not (isinstance(colors, int) and 2 <= colors <= 256):
        raise ValueError(f"colors must be an integer in [2, 256] or None; got {colors!r}")
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches=bbox_inches)
    buf.seek(0)
    img = Image.open(buf)
    if colors is not None:
        img = img.convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    _atomic_write(path, lambda p: img.save(p, format="PNG", optimize=True))
    return path


def _save(fig, path):
    return save_png(fig, path, dpi=110)


def _ok(df):
    return df[df["status"] == "ok"] if "status" in df.columns else df


def _name(df, prefix):
    if prefix:
        return prefix
    if "experiment" in df.columns and len(df) and df["experiment"].iloc[0]:
        return str(df["experiment"].iloc[0])
    return "experiment"


def _panels(n):
    ncol = min(n, 3)
    return int(math.ceil(n / ncol)), ncol


def plot_accuracy(results, out="figures", value="accuracy", prefix=None):
    """Bar chart of a metric per method (mean ± std), one panel per row setting.

    Parameters
    ----------
    results : pandas.DataFrame or path
    out : str
        Directory of the PNG (created).
    value : str
    prefix : str, optional
        File name prefix (default the experiment name).

    Returns
    -------
    str or None
        ``out/PREFIX_accuracy.png``, or None without ``method``/``value`` columns.
    """
    df, _ = _resolve(results)
    if "method" not in df.columns or value not in df.columns or not len(_ok(df)):
        return None
    s = summarize(df, value, None, "method")
    rows = s.attrs["rows"]
    groups = list(s.groupby(rows, dropna=False, sort=False)) if rows else [((), s)]
    nr, nc = _panels(len(groups))
    methods = list(dict.fromkeys(s["method"]))
    fig = _figure((max(4.5, 0.5 * len(methods) + 2) * nc, 3.4 * nr))
    scale = 100.0 if value in PERCENT_METRICS else 1.0
    for i, (gk, g) in enumerate(groups):
        ax = fig.add_subplot(nr, nc, i + 1)
        g = g.set_index("method").reindex(methods)
        x = np.arange(len(methods))
        ax.bar(x, np.nan_to_num(g["value_mean"].to_numpy(float) * scale),
               yerr=np.nan_to_num(g["value_std"].to_numpy(float) * scale), capsize=3,
               color=["tab:red" if e else "tab:blue" for e in g["n_errors"].fillna(0)],
               alpha=0.85)
        ax.set_xticks(x)
        ax.set_xticklabels(methods, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(value + (" (%)" if scale == 100.0 else ""))
        gk = gk if isinstance(gk, tuple) else (gk,)
        ax.set_title(", ".join(f"{r}={_label([v])}" for r, v in zip(rows, gk)) or value,
                     fontsize=9)
        if scale == 100.0:
            ax.set_ylim(0, 100)
    fig.tight_layout()
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_accuracy.png"))


def plot_accuracy_vs_eigenvalue(results, out="figures", value="accuracy", prefix=None):
    """Accuracy against the least eigenvalue of the training kernel (Loosli et al. Figs. 6-7).

    One panel per data set, one line per method through its kernel settings
    (the varying parameters whose names start with ``kernel``: ``kernel``,
    ``kernel_params.*``, ``kernel_grid.*``), each point the mean over folds
    and repeats.

    Parameters
    ----------
    results : pandas.DataFrame or path
    out : str
    value : str
    prefix : str, optional

    Returns
    -------
    str or None
        ``out/PREFIX_accuracy_vs_eigenvalue.png``, or None when no method has
        two kernel settings or the columns are missing.
    """
    df, _ = _resolve(results)
    need = {"method", "min_eigenvalue", value}
    if not need <= set(df.columns):
        return None
    ok = _ok(df)
    if not len(ok):
        return None
    params = param_columns(df)
    panel = ["dataset"] if "dataset" in df.columns else []
    setting = [c for c in _default_rows(ok, ["method"], params)
               if c not in panel and c.startswith("kernel")]
    if not setting:
        return None
    keys = panel + ["method"] + setting
    agg = (ok.assign(_x=pd.to_numeric(ok["min_eigenvalue"], errors="coerce"),
                     _y=pd.to_numeric(ok[value], errors="coerce"))
           .groupby(keys, dropna=False, sort=False)[["_x", "_y"]].mean().reset_index())
    if agg.groupby(panel + ["method"], dropna=False).size().max() < 2:
        return None
    panels = list(agg.groupby(panel, dropna=False, sort=False)) if panel else [((), agg)]
    nr, nc = _panels(len(panels))
    fig = _figure((5.0 * nc, 3.8 * nr))
    scale = 100.0 if value in PERCENT_METRICS else 1.0
    for i, (pk, g) in enumerate(panels):
        ax = fig.add_subplot(nr, nc, i + 1)
        for m, gm in g.groupby("method", sort=False):
            gm = gm.sort_values("_x")
            ax.plot(gm["_x"], gm["_y"] * scale, marker="o", ms=3, lw=1, label=str(m))
        ax.set_xlabel("least eigenvalue of the training kernel")
        ax.set_ylabel(value + (" (%)" if scale == 100.0 else ""))
        pk = pk if isinstance(pk, tuple) else (pk,)
        ax.set_title(_label(pk) or value, fontsize=9)
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_accuracy_vs_eigenvalue.png"))


def plot_time_vs_n(results, out="figures", prefix=None):
    """Training time against the number of training points, log-log (Loosli et al. Fig. 5).

    Points: mean ``fit_seconds`` and mean ``n_train`` per (data set, method,
    ``n_samples``), averaged over folds and repeats, error bars ± one std.

    Parameters
    ----------
    results : pandas.DataFrame or path
    out : str
    prefix : str, optional

    Returns
    -------
    str or None
        ``out/PREFIX_time_vs_n.png``, or None without several ``n_samples``.
    """
    df, _ = _resolve(results)
    if not {"method", "fit_seconds", "n_train", "n_samples"} <= set(df.columns):
        return None
    ok = _ok(df)
    if ok["n_samples"].nunique() < 2:
        return None
    panel = ["dataset"] if "dataset" in ok.columns else []
    work = ok.assign(_n=pd.to_numeric(ok["n_train"], errors="coerce"),
                     _t=pd.to_numeric(ok["fit_seconds"], errors="coerce"))
    agg = (work.groupby(panel + ["method", "n_samples"], dropna=False, sort=False)
           .agg(n=("_n", "mean"), t=("_t", "mean"), sd=("_t", "std")).reset_index())
    panels = list(agg.groupby(panel, dropna=False, sort=False)) if panel else [((), agg)]
    nr, nc = _panels(len(panels))
    fig = _figure((5.0 * nc, 3.8 * nr))
    for i, (pk, g) in enumerate(panels):
        ax = fig.add_subplot(nr, nc, i + 1)
        for m, gm in g.groupby("method", sort=False):
            gm = gm.sort_values("n")
            ax.errorbar(gm["n"], gm["t"], yerr=np.nan_to_num(gm["sd"]), marker="o", ms=3,
                        lw=1, capsize=2, label=str(m))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training points n")
        ax.set_ylabel("training time (s)")
        pk = pk if isinstance(pk, tuple) else (pk,)
        ax.set_title(_label(pk) or "training time", fontsize=9)
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_time_vs_n.png"))


def _read_trace(directory, rel):
    try:
        t = pd.read_csv(os.path.join(directory, rel))
    except (OSError, ValueError, pd.errors.EmptyDataError):
        return None
    if "pair" in t.columns:
        t = t[t["pair"] == t["pair"].iloc[0]] if len(t) else t
    return t


def plot_convergence(results, out="figures", prefix=None, column=None, by=None):
    """Duality gap (else objective) against the iteration (Luss & d'Aspremont Fig. 1).

    One panel per method setting (method and its varying ``method_params``,
    e.g. the algorithm; without a ``method`` column, the varying parameters
    other than fold, repeat and seed); the mean over the cells' traces (those
    that reach the iteration), with dashed lines at ± one standard deviation
    and the individual traces faint; log scale for gaps and residuals (values
    clipped at the smallest positive one).

    Parameters
    ----------
    results : pandas.DataFrame or path
        With a ``trace_file`` column (traces under the results directory).
    out : str
    prefix : str, optional
    column : str, optional
        Trace column to plot; default ``gap`` if present, else ``objective``.
    by : str or list of str, optional
        Columns defining the panels (default above).

    Returns
    -------
    str or None
        ``out/PREFIX_convergence.png``, or None without usable traces.
    """
    df, directory = _resolve(results)
    if "trace_file" not in df.columns or directory is None:
        return None
    ok = _ok(df)
    ok = ok[ok["trace_file"] != ""]
    if not len(ok):
        return None
    params = param_columns(df)
    if by is not None:
        setting = _as_list(by)
    elif "method" in ok.columns:
        setting = ["method"] + [c for c in params if c.startswith("method_params.")
                                and ok[c].nunique(dropna=False) > 1]
    else:
        setting = [c for c in params if c not in ("fold", "repeat", "seed")
                   and ok[c].nunique(dropna=False) > 1]
    groups = list(ok.groupby(setting, dropna=False, sort=False)) if setting else [((), ok)]
    curves = []
    for gk, g in groups:
        series = []
        col = column
        for rel in g["trace_file"]:
            t = _read_trace(directory, rel)
            if t is None:
                continue
            c = col or ("gap" if "gap" in t.columns else
                        "objective" if "objective" in t.columns else None)
            if c is None or c not in t.columns:
                continue
            col = c
            it = t["iter"] if "iter" in t.columns else pd.Series(np.arange(len(t)))
            v = pd.Series(pd.to_numeric(t[c], errors="coerce").to_numpy(),
                          index=pd.to_numeric(it, errors="coerce").to_numpy()).dropna()
            v = v[~v.index.duplicated(keep="last")]
            if len(v):
                series.append(v)
        if series:
            gk = gk if isinstance(gk, tuple) else (gk,)
            curves.append((", ".join(_label([v]) for v in gk), col, series))
    if not curves:
        return None
    nr, nc = _panels(len(curves))
    fig = _figure((5.0 * nc, 3.6 * nr))
    for i, (label, col, series) in enumerate(curves):
        ax = fig.add_subplot(nr, nc, i + 1)
        M = pd.concat(series, axis=1).sort_index()
        positive = "gap" in col or "residual" in col  # log scale for certificates
        tiny = float(np.nanmin(M.where(M > 0).to_numpy())) if (M > 0).any().any() else 1e-16
        for s in series:
            ax.plot(s.index, s.clip(lower=tiny) if positive else s, color="0.8", lw=0.6)
        mean, sd = M.mean(axis=1), M.std(axis=1)
        ax.plot(mean.index, mean.clip(lower=tiny) if positive else mean, color="tab:blue",
                lw=1.5, label=f"mean of {len(series)}")
        if len(series) > 1:
            for sign in (-1, 1):
                band = mean + sign * sd.fillna(0)
                ax.plot(band.index, band.clip(lower=tiny) if positive else band,
                        color="tab:blue", lw=0.8, ls="--")
        if positive:
            ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel(col)
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_convergence.png"))


def plot_results(results, out="figures", prefix=None):
    """Every standard figure the results support (module docstring).

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
    out : str
        Directory for the PNG files (created).
    prefix : str, optional
        File name prefix; default the experiment name.

    Returns
    -------
    list of str
        Paths written.
    """
    df, _ = _resolve(results)
    paths = [plot_accuracy(df, out, prefix=prefix),
             plot_accuracy_vs_eigenvalue(df, out, prefix=prefix),
             plot_time_vs_n(df, out, prefix=prefix),
             plot_convergence(df, out, prefix=prefix)]
    return [p for p in paths if p]


# columns a results file always has (used by the tests)
STANDARD_COLUMNS = META_COLUMNS + PROVENANCE_COLUMNS
