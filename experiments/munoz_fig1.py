"""Munoz & de Diego (2006) Fig. 1: eigenvalues of the pick-out kernel on the artificial data.

Munoz & de Diego, "From indefinite to positive semi-definite matrices", §4.1:
400 points, 200 from ``N((3, 3), 0.7^2 I)`` and 200 from ``N((5, 5), 0.9^2 I)``
(:func:`krein.datasets.make_munoz_artificial`); "two kernels from the
projections of the data set onto the coordinate axes", combined by pick-out
(:func:`krein.combinations.pick_out`); Fig. 1 plots the eigenvalues of the
result ("the first three eigenvalues are clearly higher than the rest, half of
the eigenvalues are negative") and the text gives ``r_mm = 1.6 +- 0.3``,
``r_neg = 2.8 +- 0.6`` (munoz eq. 2, mean +- s.d. over 10 runs).

The paper names neither the kernel of the projections nor the matrix whose
spectrum it measures (all 400 points, or the 300-point training block of the
75 / 25 split of Table 1).  This script is the search: every variant in
:data:`VARIANTS` (projection kernel x feature scaling) on both blocks, 10 runs
each (run ``s``: ``make_munoz_artificial(random_state=s)``, training block by
``train_test_split(train_size=0.75, stratify=y, random_state=s)``).  Each cell
records ``r_mm``, ``r_neg``, the share of negative eigenvalues (below
``-tol``, the numerical-zero tolerance of :class:`krein.spectrum.Spectrum`, and
by sign alone: about half of the eigenvalues are round-off-sized, and their
signs are what makes "half of the eigenvalues are negative") and the four
largest eigenvalues relative to the largest; the cells of
:data:`FIGURE_VARIANTS` also store the whole spectrum, from which the figure
``munoz_fig1.png`` is drawn (the table and the figure read the results file only).

``--quick``: two variants, both blocks, 2 runs, 120 points.

Run: ``krein experiment run experiments/munoz_fig1.py [--quick]``; committed
results: ``experiments/results/munoz_fig1.csv``.
"""

from krein.experiment import Experiment, save_png

#: Paper's values (munoz §4.1): mean, s.d. over 10 runs.
PAPER = {"r_mm": (1.6, 0.3), "r_neg": (2.8, 0.6)}

#: Variants searched: name -> (projection kernel, kernel parameters, feature scaling).
#: Kernels act on ONE coordinate: "linear" x_j z_j, "gaussian" exp(-gamma (x_j - z_j)^2),
#: "poly2" (1 + x_j z_j)^2, "poly2-normalized" the same divided by
#: sqrt(k(x, x) k(z, z)) (munoz §4.2's normalization), "sigmoid" tanh(a x_j z_j + r).
#: Scaling (over all 400 points): "raw", "centered" (mean removed), "unit" (each
#: coordinate onto [0, 1]).
VARIANTS = {
    "linear": ("linear", {}, "raw"),
    "linear-centered": ("linear", {}, "centered"),
    "linear-unit": ("linear", {}, "unit"),
    "gaussian-0.02": ("gaussian", {"gamma": 0.02}, "raw"),
    "gaussian-1": ("gaussian", {"gamma": 1.0}, "raw"),
    "gaussian-0.5-unit": ("gaussian", {"gamma": 0.5}, "unit"),
    "poly2": ("poly2", {}, "raw"),
    "poly2-unit": ("poly2", {}, "unit"),
    "poly2-normalized": ("poly2-normalized", {}, "raw"),
    "sigmoid": ("sigmoid", {"a": 0.1, "r": 0.0}, "raw"),
}

#: Variants whose spectra are stored and drawn: the literal reading (linear, krein's
#: default) and the one closest to the paper's numbers.
FIGURE_VARIANTS = ("linear", "poly2-unit")

RUNS = 10


def scale(X, how):
    """Feature scaling of :data:`VARIANTS` (over all rows)."""
    import numpy as np

    if how == "raw":
        return X
    if how == "centered":
        return X - X.mean(axis=0)
    if how == "unit":
        lo, hi = X.min(axis=0), X.max(axis=0)
        return (X - lo) / (hi - lo)
    raise ValueError(f"unknown scaling {how!r}")


def _poly2(A, B, normalized=False):
    import numpy as np

    K = (1.0 + A @ B.T) ** 2
    if normalized:
        K = K / np.sqrt(np.outer((1.0 + (A * A).sum(1)) ** 2, (1.0 + (B * B).sum(1)) ** 2))
    return K


def base_kernels(variant, X, Z=None):
    """The two projection kernels of ``variant`` between ``X`` and ``Z`` (``(n, m, 2)``)."""
    from krein.combinations import projection_kernels

    kernel, params, _ = VARIANTS[variant]
    if kernel == "poly2":
        kernel = lambda A, B: _poly2(A, B)  # noqa: E731
    elif kernel == "poly2-normalized":
        kernel = lambda A, B: _poly2(A, B, normalized=True)  # noqa: E731
    return projection_kernels(X, Z, kernel=kernel, kernel_params=params or None)


def artificial_split(run, n_samples=400, variant="linear"):
    """Scaled data of one run and its 75 / 25 split (the protocol of Table 1)."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    from krein.datasets import make_munoz_artificial

    X, y = make_munoz_artificial(n_samples, random_state=run)
    X = scale(X, VARIANTS[variant][2])
    tr, te = train_test_split(np.arange(len(y)), train_size=0.75, stratify=y, random_state=run)
    return X, y, tr, te


def fig1_cell(params):
    """Spectrum of the pick-out kernel of one variant, block and run."""
    import json

    import numpy as np

    from krein.combinations import pick_out
    from krein.spectrum import Spectrum

    X, y, tr, _ = artificial_split(params["run"], params["n_samples"], params["variant"])
    if params["block"] == "train":
        X, y = X[tr], y[tr]
    K = pick_out(base_kernels(params["variant"], X), y)
    s = Spectrum.from_kernel(K, check=False)
    lam = np.sort(s.eigenvalues)[::-1]
    out = {"n": int(len(y)), "r_mm": float(s.r_mm), "r_neg": float(s.r_neg),
           "negative_percent": 100.0 * float(np.mean(lam < -s.tol)),
           "negative_percent_sign": 100.0 * float(np.mean(lam < 0)),
           "top4_relative": json.dumps([round(float(v), 4) for v in lam[:4] / lam[0]]),
           "lambda_max": float(lam[0]), "lambda_min": float(lam[-1])}
    if params["variant"] in FIGURE_VARIANTS:
        out["eigenvalues"] = json.dumps([float(f"{v:.4g}") for v in lam])
    return out


def fig1_table(results):
    """Mean +- s.d. of r_mm, r_neg and the negative share per variant and block."""
    import pandas as pd

    ok = results[results["status"] == "ok"]
    rows = []
    for (v, b), g in ok.groupby(["variant", "block"], sort=False):
        rows.append({"variant": v, "block": b, "runs": len(g),
                     "r_mm": f"{g['r_mm'].mean():.2f} +- {g['r_mm'].std(ddof=1):.2f}",
                     "r_neg": f"{g['r_neg'].mean():.2f} +- {g['r_neg'].std(ddof=1):.2f}",
                     "negative %": f"{g['negative_percent'].mean():.0f}",
                     "lambda < 0 (sign) %": f"{g['negative_percent_sign'].mean():.0f}"})
    rows.append({"variant": "paper", "block": "?", "runs": 10,
                 "r_mm": "%.1f +- %.1f" % PAPER["r_mm"], "r_neg": "%.1f +- %.1f" % PAPER["r_neg"],
                 "negative %": "", "lambda < 0 (sign) %": "~50 (\"half\")"})
    return pd.DataFrame(rows)


def fig1_figures(results, out_dir):
    """Eigenvalues (run 0, training block) of the two figure variants; r_mm/r_neg of all."""
    import json
    from pathlib import Path

    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ok = results[results["status"] == "ok"]
    fig = Figure(figsize=(11.0, 7.5))
    FigureCanvasAgg(fig)
    shown = [v for v in FIGURE_VARIANTS if v in set(ok["variant"])]
    for i, v in enumerate(shown):
        rows = ok[(ok["variant"] == v) & (ok["block"] == "train")].sort_values("run")
        lam = np.asarray(json.loads(rows.iloc[0]["eigenvalues"]))
        ax = fig.add_subplot(2, len(shown), 1 + i)
        idx = np.arange(1, len(lam) + 1)
        rel = lam / lam[0]
        pos = rel >= 0
        ax.plot(idx[pos], rel[pos], ".", ms=3, color="tab:blue", label="positive")
        ax.plot(idx[~pos], rel[~pos], ".", ms=3, color="tab:red", label="negative")
        ax.axhline(0, color="k", lw=0.5)
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_ylim(-0.1, 1.5)
        ax.set_xlabel("index (eigenvalues in decreasing order)")
        ax.set_ylabel("eigenvalue / largest (symlog)")
        ax.legend(fontsize=7, loc="lower left")
        kern, _, sc = VARIANTS[v]
        r0 = rows.iloc[0]
        ax.set_title(f"{v}: {kern} projection kernels, {sc} features\n"
                     f"run 0, {len(lam)}-point training block: r_mm={r0['r_mm']:.2f}, "
                     f"r_neg={r0['r_neg']:.2f}\nnegative: {r0['negative_percent']:.0f}% below "
                     f"-tol, {r0['negative_percent_sign']:.0f}% by sign", fontsize=8)
        top = lam[:4] / lam[0]
        ax.text(0.98, 0.95, "largest four / largest:\n" + ", ".join(f"{t:.3f}" for t in top),
                transform=ax.transAxes, ha="right", va="top", fontsize=8)
    ax = fig.add_subplot(2, 1, 2)
    tr = ok[ok["block"] == "train"]
    names = list(dict.fromkeys(tr["variant"]))
    for j, v in enumerate(names):
        g = tr[tr["variant"] == v]
        ax.errorbar(g["r_mm"].mean(), g["r_neg"].mean(), xerr=g["r_mm"].std(ddof=1),
                    yerr=g["r_neg"].std(ddof=1), fmt="os^Dv"[j % 5], ms=6, capsize=2,
                    color=f"C{j % 10}")
        ax.annotate(v, (g["r_mm"].mean(), g["r_neg"].mean()), textcoords="offset points",
                    xytext=(5, -11 if j % 2 else 5), fontsize=7)
    pm, pn = PAPER["r_mm"], PAPER["r_neg"]
    ax.errorbar(pm[0], pn[0], xerr=pm[1], yerr=pn[1], fmt="*", ms=14, color="k", capsize=3,
                label="paper (munoz §4.1)")
    from matplotlib.ticker import ScalarFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(right=1.6 * tr.groupby("variant")["r_mm"].mean().max())
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(ScalarFormatter())
    ax.tick_params(which="minor", labelsize=7)
    ax.set_xlabel("r_mm = 100 |lambda_min| / lambda_max  (mean +- s.d. over runs)")
    ax.set_ylabel("r_neg = 100 sum|lambda<0| / sum|lambda|")
    ax.set_title("Projection kernels searched (training blocks of the 75/25 split) "
                 "against the paper's value", fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    out = Path(out_dir) / "munoz_fig1.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=90)
    return [out]


def experiment(quick=False):
    """Every variant x block x run (module docstring); ``quick`` shrinks it."""
    variants = list(FIGURE_VARIANTS) if quick else list(VARIANTS)
    runs, n = (2, 120) if quick else (RUNS, 400)
    grid = [{"variant": v, "block": b, "run": r, "n_samples": n}
            for v in variants for b in ("train", "all") for r in range(runs)]
    return Experiment("munoz_fig1", grid, cell=fig1_cell, random_state=0,
                      description="Munoz & de Diego 2006 Fig. 1: eigenvalues and r_mm / r_neg "
                                  "of the pick-out kernel on the artificial data; projection "
                                  "kernels searched",
                      table=fig1_table, figures=fig1_figures)
