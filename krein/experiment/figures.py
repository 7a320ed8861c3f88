"""Figures made from an experiment's results file only.

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

No figure averages over a grid dimension silently: panels, lines and points
follow the varying settings (:func:`krein.experiment.report.param_columns`,
inferred when the file has no ``config`` column), and when a bar or point
still pools cells that differ in a setting other than fold, repeat or seed
(:func:`krein.experiment.report.pooled_columns`), a caption under the
figure names those settings.
"""

from __future__ import annotations

import math
import os
import textwrap

import numpy as np
import pandas as pd

from .._io import new_figure, save_png
from .validate import scan_csv
from .report import (PERCENT_METRICS, default_rows, param_columns, pooled_columns, pooled_note,
                     read_results, results_frame, setting_label, summarize)

__all__ = ["plot_results", "plot_accuracy", "plot_accuracy_vs_eigenvalue", "plot_time_vs_n",
           "plot_convergence", "make_figures"]


# --------------------------------------------------------------------------- figures
def _figure(figsize):
    return new_figure(figsize)


def _save(fig, path):
    return save_png(fig, path, dpi=110)


def _layout(fig, note=""):
    """``tight_layout``, with ``note`` (what the figure pools) as a caption under the panels."""
    if not note:
        fig.tight_layout()
        return
    width_in = fig.get_size_inches()[0]
    lines = textwrap.wrap(note, width=max(40, int(width_in * 14)))
    fig.text(0.01, 0.005, "\n".join(lines), ha="left", va="bottom", fontsize=7,
             color="0.25")
    bottom = min(0.4, (0.16 * len(lines) + 0.1) / fig.get_size_inches()[1])
    fig.tight_layout(rect=(0, bottom, 1, 1))


def _ok(df):
    return df[df["status"] == "ok"] if "status" in df.columns else df


def _name(df, prefix):
    if prefix:
        return prefix
    if "experiment" in df.columns and len(df) and df["experiment"].iloc[0]:
        return str(df["experiment"].iloc[0])
    path = df.attrs.get("path")
    if path and os.path.basename(path) != "results.csv":  # a slimmed file: NAME.csv
        return os.path.splitext(os.path.basename(path))[0]
    return "experiment"


def _panels(n):
    ncol = min(n, 3)
    return int(math.ceil(n / ncol)), ncol


def plot_accuracy(results, out="figures", value="accuracy", prefix=None):
    """Bar chart of a metric per method (mean ± std), one panel per row setting.

    Parameters
    ----------
    results : pandas.DataFrame or path
        The results table (:func:`read_results`), or the path of a results file or directory.
    out : str
        Directory of the PNG (created).
    value : str
        The metric column to show (e.g. ``"accuracy"``).
    prefix : str, optional
        File name prefix (default the experiment name).

    Returns
    -------
    str or None
        ``out/PREFIX_accuracy.png``, or None without ``method``/``value`` columns.
    """
    df, _ = results_frame(results)
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
        ax.set_title(", ".join(f"{r}={setting_label([v])}" for r, v in zip(rows, gk)) or value,
                     fontsize=9)
        if scale == 100.0:
            ax.set_ylim(0, 100)
    _layout(fig, pooled_note(s.attrs["pooled"]))
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_accuracy.png"))


def plot_accuracy_vs_eigenvalue(results, out="figures", value="accuracy", prefix=None):
    """Accuracy against the least eigenvalue of the training kernel (Loosli et al. Figs. 6-7).

    One panel per value of the other varying settings (the data set), one
    line per method through its kernel settings (the varying settings whose
    names start with ``kernel``: ``kernel``, ``kernel_params.*``,
    ``kernel_grid.*``), each point the mean over folds and repeats; a
    caption names any other setting a point pools.

    Parameters
    ----------
    results : pandas.DataFrame or path
        The results table (:func:`read_results`), or the path of a results file or directory.
    out : str
        Directory for the PNG file (created if needed).
    value : str
        The metric column to show (e.g. ``"accuracy"``).
    prefix : str, optional
        File name prefix; default the experiment name of the results.

    Returns
    -------
    str or None
        ``out/PREFIX_accuracy_vs_eigenvalue.png``, or None when no method has
        two kernel settings or the columns are missing.
    """
    df, _ = results_frame(results)
    need = {"method", "min_eigenvalue", value}
    if not need <= set(df.columns):
        return None
    ok = _ok(df)
    if not len(ok):
        return None
    params = param_columns(df)
    rows = default_rows(ok, ["method"], params)
    setting = [c for c in rows if c.startswith("kernel")]
    if not setting:
        return None
    panel = [c for c in rows if c not in setting]
    keys = panel + ["method"] + setting
    note = pooled_note(pooled_columns(ok, keys, params))
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
        ax.set_title(", ".join(f"{r}={setting_label([v])}" for r, v in zip(panel, pk)) or value,
                     fontsize=9)
        ax.legend(fontsize=7, ncol=2)
    _layout(fig, note)
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_accuracy_vs_eigenvalue.png"))


def plot_time_vs_n(results, out="figures", prefix=None):
    """Training time against the number of training points, log-log (Loosli et al. Fig. 5).

    Points: mean ``fit_seconds`` and mean ``n_train`` per (panel, method,
    ``n_samples``), averaged over folds and repeats, error bars ± one std; one
    panel per value of the other varying settings (the data set); a caption
    names any other setting a point pools.

    Parameters
    ----------
    results : pandas.DataFrame or path
        The results table (:func:`read_results`), or the path of a results file or directory.
    out : str
        Directory for the PNG file (created if needed).
    prefix : str, optional
        File name prefix; default the experiment name of the results.

    Returns
    -------
    str or None
        ``out/PREFIX_time_vs_n.png``, or None without several ``n_samples``.
    """
    df, _ = results_frame(results)
    if not {"method", "fit_seconds", "n_train", "n_samples"} <= set(df.columns):
        return None
    ok = _ok(df)
    if ok["n_samples"].nunique() < 2:
        return None
    params = param_columns(df)
    panel = [c for c in default_rows(ok, ["method", "n_samples"], params)]
    note = pooled_note(pooled_columns(ok, panel + ["method", "n_samples"], params))
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
        ax.set_title(", ".join(f"{r}={setting_label([v])}" for r, v in zip(panel, pk))
                     or "training time", fontsize=9)
        ax.legend(fontsize=7, ncol=2)
    _layout(fig, note)
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_time_vs_n.png"))


def _read_trace(directory, rel):
    """A cell's trace, or None when its file is gone; a damaged trace is refused
    (:class:`~krein.experiment.validate.ResultFileError`, file and line)."""
    path = os.path.join(directory, rel)
    if not os.path.isfile(path):
        return None
    scan_csv(path, infer_numeric=True, what="trace file").check()
    try:
        t = pd.read_csv(path)
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
        Directory for the PNG file (created if needed).
    prefix : str, optional
        File name prefix; default the experiment name of the results.
    column : str, optional
        Trace column to plot; default ``gap`` if present, else ``objective``.
    by : str or list of str, optional
        Columns defining the panels (default above).

    Returns
    -------
    str or None
        ``out/PREFIX_convergence.png``, or None without usable traces.
    """
    df, directory = results_frame(results)
    if "trace_file" not in df.columns or directory is None:
        return None
    ok = _ok(df)
    ok = ok[ok["trace_file"] != ""]
    if not len(ok):
        return None
    params = param_columns(df)
    if by is not None:
        setting = [by] if isinstance(by, str) else list(by)
    elif "method" in ok.columns:
        setting = ["method"] + [c for c in params if c.startswith("method_params.")
                                and ok[c].nunique(dropna=False) > 1]
    else:
        setting = [c for c in params if c not in ("fold", "repeat", "seed")
                   and ok[c].nunique(dropna=False) > 1]
    groups = list(ok.groupby(setting, dropna=False, sort=False)) if setting else [((), ok)]
    note = pooled_note(pooled_columns(ok, setting, params))
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
            curves.append((", ".join(setting_label([v]) for v in gk), col, series))
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
    _layout(fig, note)
    return _save(fig, os.path.join(out, f"{_name(df, prefix)}_convergence.png"))


def plot_results(results, out="figures", prefix=None):
    """Every standard figure the results support (module docstring).

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
        The results table (:func:`read_results`), or the path of a results file or directory.
    out : str
        Directory for the PNG files (created).
    prefix : str, optional
        File name prefix; default the experiment name.

    Returns
    -------
    list of str
        Paths written.
    """
    df, _ = results_frame(results)
    paths = [plot_accuracy(df, out, prefix=prefix),
             plot_accuracy_vs_eigenvalue(df, out, prefix=prefix),
             plot_time_vs_n(df, out, prefix=prefix),
             plot_convergence(df, out, prefix=prefix)]
    return [p for p in paths if p]


# columns a results file always has (used by the tests)


def make_figures(results, out, experiment=None):
    """The standard figures (:func:`plot_results`) plus the experiment's own.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
        The results table (:func:`read_results`), or the path of a results file or directory.
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
