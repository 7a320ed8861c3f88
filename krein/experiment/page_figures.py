"""The figures of a comparison's report page, from its files alone.

:func:`spectrum_figure`, :func:`accuracy_figure` and :func:`boundary_figure`
draw a comparison read by :func:`krein.experiment.comparison_files.read_comparison`
(or its directory); :func:`krein.experiment.page.write_report` embeds them.
User text is never mathtext (``$`` escaped).
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from .._io import new_figure
from .comparison_files import SavedComparison, read_comparison
from .page_findings import approximation, best_rows, score_view, significance
from .page_format import CLASS_COLORS, kernel_label, number

__all__ = ["spectrum_figure", "accuracy_figure", "boundary_figure", "BOUNDARY_POINTS_SHOWN"]

#: Most data points drawn over the decision regions (a fixed random sample of larger data,
#: e.g. an approximated run on 1e5 points, said in the title).
BOUNDARY_POINTS_SHOWN = 3000

# colours of the signs of the eigenvalues and of the accuracy figure's marks
_POS, _NEG, _ZERO = "#1f77b4", "#d62728", "#7f7f7f"
_MEAN, _FOLD, _BEST, _FAILED, _SKIPPED = "#1f3b5c", "#7aa6d6", "#1a7f37", "#b42318", "#8c959f"


def _as_comparison(comparison):
    if isinstance(comparison, SavedComparison):
        return comparison
    return read_comparison(comparison)


# --------------------------------------------------------------------------- text
def _mpl(text):
    """User text for Matplotlib: ``$`` escaped so labels never turn into mathtext."""
    return str(text).replace("$", r"\$")


def _class_order(comparison, extra=()):
    names = [name for name, _ in comparison.classes]
    for label in extra:
        if label not in names:
            names.append(label)
    return names


def _fold_accuracies(folds, method, column="accuracy"):
    f = folds[(folds["method"] == method) & (folds["error"].str.strip() == "")]
    acc = f[column].to_numpy(dtype=float)
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
        ax.annotate(f"{'λ_min' if at == 0 else 'λ_max'} = {number(lam[at])}", (idx[at], lam[at]),
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
                          f"{number(float(mag.sum()))}")
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

    approx = approximation(comparison)
    what = (f"Spectrum of the {approx} approximation (rank {n}, n = {number(s['n'])})"
            if approx else f"Kernel spectrum (n = {n})")
    fig.suptitle(f"{what}: signature (p, q, z) = ({s['p']}, {s['q']}, "
                 f"{s['z']}), λ_min = {number(s['min_eigenvalue'])}, "
                 f"r_mm = {number(s['r_mm'])}%, r_neg = {number(s['r_neg'])}%", fontsize=10.5)
    fig.tight_layout()
    return fig


def accuracy_figure(comparison):
    """Test accuracy per method: mean ± std and every fold, methods as in the table.

    One row per method of ``summary.csv`` (top to bottom in the table's
    order): the mean with a ± one standard deviation bar (the best mean in
    green; the methods not significantly worse than it in green, hollow, and
    marked "=" on the right, the significantly worse ones "<": the paired
    test of :func:`krein.experiment.statistics.significance_groups`), every
    successful fold's accuracy as a dot spread vertically, the majority-class
    rate as a dashed line; on the right, the mean ± std, the group mark and
    the number of failed folds.  Skipped and failed methods keep their row,
    greyed or red, with "skipped" / "failed" written in it.  A regression
    shows the test RMSE instead (:func:`krein.experiment.page_findings.score_view`;
    lowest best), the dashed line at the targets' standard deviation (about
    the RMSE of predicting the mean).

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
    view = score_view(comparison)
    best = best_rows(s, view)
    sig, _ = significance(comparison)
    group = sig["group"].to_dict() if len(sig) else {}
    majority = comparison.majority_rate
    reference, reference_label = majority, "majority class ({:.1f}%)"
    if view.task == "regression":
        target = comparison.data.get("target") if isinstance(comparison.data.get("target"),
                                                             dict) else {}
        reference = float(target["std"]) if isinstance(target.get("std"), (int, float)) \
            else np.nan
        reference_label = "predicting the mean (std of the targets, {:.4g})"
    if view.task == "novelty":
        reference, reference_label = 0.5, "chance (AUC {:.1f})"
    column, factor = view.column, view.factor
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
        acc = _fold_accuracies(comparison.folds, row["method"], column)
        if status in ("skipped", "failed") or not np.isfinite(row[f"{column}_mean"]):
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
            ax.scatter(factor * acc, i + offsets, s=14, color=_FOLD, alpha=0.8, linewidths=0,
                       zorder=2, label="one fold" if not lows else None)
            lows += [acc.min(), acc.max()]
        mean = factor * row[f"{column}_mean"]
        std = factor * row[f"{column}_std"] if np.isfinite(row[f"{column}_std"]) else 0.0
        lows += [row[f"{column}_mean"] - (std / factor), row[f"{column}_mean"] + (std / factor)]
        g = group.get(row["method"], "")
        top = g == "best" if sig.attrs.get("best") is not None else i in best
        color = _BEST if top or g == "not worse" else _MEAN
        ax.errorbar(mean, i, xerr=std, fmt="D", ms=6, color=color, ecolor=color,
                    elinewidth=1.6, capsize=4, zorder=3, mfc=color if top else "white")
        label = (f"{mean:.1f} ± {std:.1f}" if factor != 1 else f"{mean:.3g} ± {std:.2g}") + {"best": "  best", "not worse": "  =",
                                              "worse": "  <"}.get(g, "")
        n_err = row["n_errors"]
        if status == "partial" or (np.isfinite(n_err) and n_err > 0):
            n_all = row["n_folds"]
            label += (f"  ({number(n_err)} of {number(n_all)} folds failed)" if np.isfinite(n_all)
                      else "  (some folds failed)")
            color = "#9a6700"
        right_labels.append(label)
        right_colors.append(color)
    if np.isfinite(reference):
        ax.axvline(factor * reference, color="0.35", ls="--", lw=1.1, zorder=1,
                   label=reference_label.format(factor * reference))
        lows.append(reference)
    if factor == 1:         # not a percentage: the range of the values shown
        finite = [v for v in lows if np.isfinite(v)] or [0.0, 1.0]
        lo, hi = min(finite), max(finite)
        pad = 0.05 * (hi - lo) if hi > lo else 0.05 * max(abs(hi), 1.0)
        ax.set_xlim(max(0.0, lo - pad), hi + pad)
    else:
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
    ax.set_xlabel({"regression": "test RMSE (unit of the targets)",
                   "novelty": "test ROC AUC, inliers against outliers"}.get(
                       view.task, "test accuracy (%)"))
    ax.errorbar([], [], xerr=[], fmt="D", ms=6, color=_MEAN, capsize=4,
                label="mean ± std over folds")
    if group:
        ax.errorbar([], [], xerr=[], fmt="D", ms=6, color=_BEST, mfc="white", capsize=4,
                    label=_mpl(f"not significantly worse than the best (=; alpha "
                               f"{sig.attrs['alpha']:g})"))
    below = offset_copy(ax.transAxes, fig=fig, y=-34, units="points")  # under the x label
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below, ncol=3,
              fontsize=8, frameon=False)
    data = comparison.data
    protocol = comparison.protocol
    cv = protocol.get("cv")
    repeats = protocol.get("repeats")
    how = f", {cv}-fold CV × {repeats}" if cv and repeats else ""
    ax.set_title(_mpl(f"{data.get('name', 'data')}, {kernel_label(data)}{how}"), fontsize=10)
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
    colors = [CLASS_COLORS[k % len(CLASS_COLORS)] for k in range(len(classes))]
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
    fig.suptitle(_mpl(f"{data.get('name', 'data')}, {kernel_label(data)}: decision regions "
                      f"(each method trained on all the data{shown})"), fontsize=10)
    fig.legend(handles=handles, loc="lower center", ncol=min(len(classes), 6), fontsize=8,
               frameon=False, title="class", title_fontsize=8)
    fig.tight_layout(rect=(0, 0.45 / fig.get_size_inches()[1], 1, 1))
    return fig

