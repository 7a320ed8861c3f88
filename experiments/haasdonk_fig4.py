"""Haasdonk (2005) Fig. 4: the L1-Gaussian kernel in the unit square, spectrum and SVs.

B. Haasdonk, "Feature space interpretation of SVMs with indefinite kernels",
IEEE TPAMI 27(4), 2005, §7.5, Fig. 4: the SVM with
``k(x, x') = exp(-gamma ||x - x'||_1^2)`` (:func:`krein.kernels.gaussian_kernel`,
``metric="l1"``) on two toy problems in ``[0, 1]^2``.  The paper prints, for
each, the numbers of positive, zero and negative eigenvalues of the *centered*
kernel matrix ``J K J`` (``J = I - 11'/n``; Prop. 1: its signature is that of
the pE embedding, dimension ``p + q``), the sign of the class-mean distance
(DCM) and of ``w'Mw``, and the number of support vectors:

* (a) separable, 68 points, ``gamma = 50``, ``C = infinity``: 52 / 1 / 15
  eigenvalues, pE dimension 67, DCM > 0, ``w'Mw > 0``, 29 SVs, none bounded;
* (b) 40 points from two normal clouds with equal isotropic covariance and
  means slightly apart along the horizontal, ``gamma = 0.005``, ``C = 2000``
  (``C = infinity`` diverges): 18 / 1 / 21, pE dimension 39, DCM > 0,
  ``w'Mw > 0``, 25 SVs, many bounded, all non-SVs correct.

The points are not published.  Ours (seeded, 10 draws per panel):

* (a) uniform on ``[0.15, 0.85]^2``, labelled +1 inside the L1 ball
  ``||x - (0.5, 0.5)||_1 < 0.25`` (the "diamond-shaped L1-spheres" of the
  paper's motivation), points within 0.06 of the boundary rejected (a margin,
  so the problem is separable); ``C = 1e10`` stands for ``C = infinity``;
* (b) 20 + 20 points from ``N((0.5 -+ 0.1, 0.5), 0.1^2 I)``; ``C = 2000``.
  The same with half-distances 0.05 and 0.2 between the means (``SHIFTS_B``)
  shows how the SV count and the sign of ``w'Mw`` depend on that choice; the
  figure uses 0.1 only.

The box, radius, margin, spread and shift were chosen after trying a few
values, to be near the paper's spectrum and SV counts; the README says which.
Eigenvalues are counted as zero when ``|lam| <= 1e-12 max |lam|``
(``zero_rtol``); the counts at a round-off tolerance (``10 n eps ||K||_F``,
the default of :func:`krein.geometry.pseudo_euclidean_embedding`) are
recorded too.  The SVM is libsvm (:func:`krein.estimators.base.libsvm_solve`,
``tol = 1e-6``) with krein's stationarity certificate.  Each cell also fits
``C = 1e10`` and records how many coefficients sit at that bound: none means
the hard-margin problem has a finite solution, some means the dual value grows
with ``C`` (the paper's "for C = infinity this problem diverges").

``--quick``: 2 seeds per panel instead of 10.
"""

from krein.experiment import Experiment, save_png

PANELS = {
    "a": {"n_samples": 68, "gamma": 50.0, "C": 1e10, "layout": "diamond"},
    "b": {"n_samples": 40, "gamma": 0.005, "C": 2000.0, "layout": "clouds", "half_shift": 0.1},
}
#: Fig. 4b sensitivity: the same clouds with the means closer / farther apart
SHIFTS_B = [0.05, 0.2]
PAPER = {"a": {"p": 52, "z": 1, "q": 15, "n_support": 29, "n_bounded": 0},
         "b": {"p": 18, "z": 1, "q": 21, "n_support": 25}}
ZERO_RTOL = 1e-12
HUGE_C = 1e10


def fig4_data(layout, n_samples, data_seed, half_shift=0.1):
    """The points of one panel and draw: ``(X, y)`` with ``y`` in {-1, +1}."""
    import numpy as np

    rng = np.random.RandomState(data_seed)
    if layout == "diamond":
        X, y = [], []
        while len(X) < n_samples:
            x = 0.15 + 0.7 * rng.uniform(size=2)
            d = np.abs(x - 0.5).sum() - 0.25
            if abs(d) < 0.06:
                continue
            X.append(x)
            y.append(1.0 if d < 0 else -1.0)
        return np.asarray(X), np.asarray(y)
    n_pos = n_samples // 2
    y = np.r_[np.ones(n_pos), -np.ones(n_samples - n_pos)]
    X = 0.5 + 0.1 * rng.standard_normal((n_samples, 2))
    X[:, 0] += np.where(y > 0, half_shift, -half_shift)
    return X, y


def centered_counts(K, rtol):
    """Numbers of positive, zero and negative eigenvalues of ``J K J`` (``|lam| <= rtol max|lam|`` is zero)."""
    import numpy as np

    from krein.kernels import centering_matrix

    J = centering_matrix(K.shape[0])
    lam = np.linalg.eigvalsh(J @ K @ J)
    tol = rtol * np.max(np.abs(lam))
    return int(np.sum(lam > tol)), int(np.sum(np.abs(lam) <= tol)), int(np.sum(lam < -tol)), lam


def fig4_cell(params):
    """One draw of one panel: spectrum counts, DCM, the SVM and its SV counts."""
    import json

    import numpy as np

    from krein.estimators.base import libsvm_solve
    from krein.geometry import class_mean_distance, pseudo_euclidean_embedding
    from krein.kernels import gaussian_kernel

    X, y = fig4_data(params["layout"], params["n_samples"], params["data_seed"],
                     params.get("half_shift", 0.1))
    K = gaussian_kernel(X, gamma=params["gamma"], metric="l1")
    C = float(params["C"])
    p, z, q, lam = centered_counts(K, ZERO_RTOL)
    emb = pseudo_euclidean_embedding(K)             # round-off tolerance
    u, b, sol = libsvm_solve(K, y, C, tol=1e-6)
    alpha = y * u
    sv = alpha > 0
    bounded = alpha >= C * (1 - 1e-8)
    f = K @ u + b
    wrong = y * f <= 0
    wMw = float(u @ K @ u)
    # "For C = infinity this problem diverges": the dual at C = 1e10 (a stand-in for
    # infinity) keeps coefficients at the bound, so its value grows with C.
    u_inf, _, sol_inf = libsvm_solve(K, y, HUGE_C, tol=1e-6)
    bounded_inf = int(np.sum(y * u_inf >= HUGE_C * (1 - 1e-8)))
    return {"n_bounded_huge_C": bounded_inf, "dual_objective_huge_C": float(sol_inf.objective),
            "X": json.dumps(np.round(X, 6).tolist()), "y": json.dumps(y.tolist()),
            "coef": json.dumps(u.tolist()), "intercept": float(b),
            "n_pos": int(np.sum(y > 0)), "p": p, "z": z, "q": q,
            "p_roundoff": emb.p, "q_roundoff": emb.q,
            "lam_max": float(lam[-1]), "lam_min": float(lam[0]),
            "smallest_abs_nonzero": float(np.sort(np.abs(lam))[1]),
            "dcm": class_mean_distance(K, y), "wMw": wMw,
            "wMw_ch": float((2.0 / alpha.sum()) ** 2 * wMw), "wMw_positive": bool(wMw > 0),
            "n_support": int(sv.sum()), "n_bounded": int(bounded.sum()),
            "n_train_errors": int(wrong.sum()), "n_errors_non_sv": int(np.sum(wrong & ~sv)),
            "n_errors_unbounded": int(np.sum(wrong & ~bounded)),
            "svm_residual": float(sol.dual_residual), "libsvm_iterations": int(sol.iterations)}


def fig4_table(results):
    """Per panel: the paper's counts beside ours (mean, min-max over the draws)."""
    import pandas as pd

    ok = results[results["status"] == "ok"]
    rows = []
    ok = ok.assign(half_shift=ok["half_shift"].fillna(0.0) if "half_shift" in ok else 0.0)
    for (panel, shift), g in ok.groupby(["panel", "half_shift"]):
        row = {"panel": panel, "half_shift": shift if panel == "b" else "", "draws": len(g)}
        for col in ("p", "z", "q", "n_support", "n_bounded", "n_train_errors", "n_errors_non_sv"):
            paper = PAPER[panel].get(col, "")
            row[col] = (f"{g[col].mean():.1f} [{g[col].min()}-{g[col].max()}]"
                        + (f" (paper {paper})" if paper != "" else ""))
        row["dcm>0"] = f"{int((g['dcm'] > 0).sum())}/{len(g)}"
        row["wMw>0"] = f"{int(g['wMw_positive'].sum())}/{len(g)}"
        rows.append(row)
    return pd.DataFrame(rows)


def fig4_figures(results, out_dir):
    """``haasdonk_fig4.png``: both panels for the first draw, and the counts over all draws."""
    import json
    from pathlib import Path

    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from krein.kernels import gaussian_kernel

    ok = results[results["status"] == "ok"]
    if ok.empty:
        return []
    fig = Figure(figsize=(11.0, 7.6))
    FigureCanvasAgg(fig)
    g0, g1 = np.meshgrid(np.linspace(0, 1, 200), np.linspace(0, 1, 200))
    G = np.column_stack([g0.ravel(), g1.ravel()])
    for i, panel in enumerate(("a", "b")):
        sub = ok[ok["panel"] == panel].sort_values("data_seed")
        if panel == "b":
            sub = sub[sub["half_shift"] == PANELS["b"]["half_shift"]]
        if sub.empty:
            continue
        r = sub.iloc[0]
        X = np.asarray(json.loads(r["X"]))
        y = np.asarray(json.loads(r["y"]))
        u = np.asarray(json.loads(r["coef"]))
        C = float(r["C"])
        F = (gaussian_kernel(G, X, gamma=float(r["gamma"]), metric="l1") @ u
             + float(r["intercept"])).reshape(g0.shape)
        ax = fig.add_subplot(2, 2, 1 + i)
        m = np.percentile(np.abs(F), 98) or 1.0
        ax.pcolormesh(g0, g1, np.clip(F, -m, m), cmap="RdBu_r", vmin=-m, vmax=m,
                      shading="auto", alpha=0.55)
        ax.contour(g0, g1, F, levels=[0], colors="k", linewidths=1.6)
        ax.contour(g0, g1, F, levels=[-1, 1], colors="k", linewidths=0.6, linestyles="--")
        a = y * u
        sv, bd = a > 0, a >= C * (1 - 1e-8)
        ax.scatter(X[sv & ~bd, 0], X[sv & ~bd, 1], s=120, facecolors="none", edgecolors="k",
                   linewidths=1.8, label="SV (unbounded)")
        ax.scatter(X[bd, 0], X[bd, 1], s=120, facecolors="none", edgecolors="darkorange",
                   linewidths=1.8, label="SV (bounded, alpha = C)")
        ax.scatter(X[y > 0, 0], X[y > 0, 1], marker="o", s=22, c="darkred", label="class +1")
        ax.scatter(X[y < 0, 0], X[y < 0, 1], marker="s", s=20, c="navy", label="class -1")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, loc="lower right", framealpha=0.8)
        Cs = "1e10 (for infinity)" if C >= 1e9 else f"{C:g}"
        pp = PAPER[panel]
        ax.set_title(f"({panel}) n = {len(y)}, gamma = {float(r['gamma']):g}, C = {Cs}, "
                     f"seed {int(r['data_seed'])}\ncentered spectrum +/0/-: {r['p']}/{r['z']}/{r['q']} "
                     f"(paper {pp['p']}/{pp['z']}/{pp['q']}); {int(r['n_support'])} SVs "
                     f"(paper {pp['n_support']}), {int(r['n_bounded'])} bounded; "
                     f"w'Mw {'>' if r['wMw'] > 0 else '<'} 0", fontsize=7.5)
        ax = fig.add_subplot(2, 2, 3 + i)
        keys = ["p", "q", "n_support", "n_bounded"]
        for j, k in enumerate(keys):
            vals = sub[k].to_numpy()
            ax.scatter(np.full(len(vals), j) + np.linspace(-0.15, 0.15, len(vals)), vals, s=14,
                       color="tab:blue", label="ours (each draw)" if j == 0 else None)
            if k in pp:
                ax.plot([j - 0.3, j + 0.3], [pp[k]] * 2, color="crimson", lw=2,
                        label="paper" if j == 0 else None)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(["positive eig.", "negative eig.", "SVs", "bounded SVs"], fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_ylabel("count", fontsize=7)
        npos = int((sub["wMw"] > 0).sum())
        ax.set_title(f"({panel}) over {len(sub)} draws: w'Mw > 0 in {npos}/{len(sub)}, "
                     f"DCM > 0 in {int((sub['dcm'] > 0).sum())}/{len(sub)}", fontsize=7.5)
        ax.legend(fontsize=6)
        ax.grid(alpha=0.3)
    fig.suptitle("Haasdonk (2005) Fig. 4: SVM with k(x, x') = exp(-gamma ||x - x'||_1^2), "
                 "regenerated points", fontsize=9)
    fig.tight_layout()
    out = Path(out_dir) / "haasdonk_fig4.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=90)
    return [out]


def experiment(quick=False):
    """Panels (a), (b) x draws 0..9, and (b) at the shifts of ``SHIFTS_B``; ``quick``: draws 0, 1."""
    seeds = range(2 if quick else 10)
    grid = [{"panel": panel, **spec, "data_seed": s} for panel, spec in PANELS.items()
            for s in seeds]
    if not quick:
        grid += [{"panel": "b", **PANELS["b"], "half_shift": h, "data_seed": s}
                 for h in SHIFTS_B for s in seeds]
    return Experiment("haasdonk_fig4", grid, cell=fig4_cell, random_state=0,
                      description="Haasdonk 2005 Fig. 4: L1-Gaussian kernel in the unit square",
                      table=fig4_table, figures=fig4_figures)
