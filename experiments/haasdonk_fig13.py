"""Haasdonk (2005) Figs. 1-3: convex-hull and SVM classifiers in the pseudo-Euclidean plane.

B. Haasdonk, "Feature space interpretation of SVMs with indefinite kernels",
IEEE TPAMI 27(4), 2005: §4 (Fig. 1), §5 (Fig. 2, Props. 2 and 3/7), §6 (Fig. 3).
Every panel lives in ``R^(1,1)`` with the kernel ``k(x, x') = x1 x1' - x2 x2'``
(:func:`krein.datasets.pseudo_euclidean_kernel`): the points are their own
isometric embedding, the real axis is drawn horizontally, the imaginary one
vertically, both with the same scale.  The paper does not publish the points;
the toys come from the generators of :mod:`krein.datasets._toy` with fixed
seeds (``data_seed``), chosen for the geometric situation each figure shows:

* Fig. 1 -- the CH classifier (CH-DU, :func:`krein.solvers.hull.hull_multistart`,
  20 random starts, the best stationary point kept): (a) separable toy,
  ``mu = 1``; (b) the same, ``mu = 0.1``; (c) overlapping toy, ``mu = 1``
  (``w'Mw < 0``); (d) the same, ``mu = 0.25`` (``w'Mw > 0``).
* Fig. 2 -- the C-SVM (SVM-DU, libsvm through :func:`krein.estimators.base.libsvm_solve`)
  and its CH counterpart by Prop. 3/7.1 (``alpha_bar = 2 alpha / sum alpha``,
  ``mu = 2 C / sum alpha``): (a) separable toy, the ``C`` whose ``mu`` is 0.1,
  the ``mu`` of Fig. 1b ("We choose C as indicated by Proposition 3, Case 1,
  such that it corresponds to mu from Fig. 1b"; found by bisection on
  ``log C``, :func:`c_for_mu`); (b) overlapping toy, ``C = 1e10``; (c) the same
  with the smaller ``C`` whose ``mu`` is 0.25, the ``mu`` of Fig. 1d (the paper:
  Fig. 2c "is parallel to the decision line of Fig. [1d]");
  (d) the zig-zag toy whose class means are at negative squared distance
  (:func:`~krein.datasets.make_pe_negative_means`), ``C = 1``, plus a sweep of
  ``C`` over ``1e-3 .. 1e10`` (no ``C`` gives ``w'Mw > 0``).
* Fig. 3 -- two local optima: Lemma 4's toy with ``q = 1``
  (:func:`~krein.datasets.make_pe_local_optima`), libsvm at ``C = 1e10`` on the
  training set in its order (a) and reversed (b); the multi-start CH solver on
  the same data counts the distinct optima it finds.

Each cell is one panel; it records the coefficients of the decision function,
the CH point, ``w'Mw`` (SVM and CH scale), support vectors, bounded ones,
training errors, the stationarity residuals, and the Prop. 3 checks (the CH
point of an SVM solution is CH-stationary; the SVM and CH planes are parallel,
``plane_offset`` their distance in decision units, 0 when none is bounded).
``krein experiment plot --script experiments/haasdonk_fig13.py`` draws
``haasdonk_fig1.png``, ``haasdonk_fig2.png``
and ``haasdonk_fig3.png`` from the results file.

``--quick``: the same cells (they take milliseconds).  Fewer starts would not
do: with 5 starts the best point the multi-start finds on 1d is another local
optimum (``w'Mw`` 0.77 instead of 0.62).
"""

from krein.experiment import Experiment, save_png

TOYS = {"separable": {"n_samples": 40, "data_seed": 0},
        "overlapping": {"n_samples": 30, "data_seed": 0},
        "negative-means": {"n_samples": 8, "data_seed": 0},
        "local-optima": {}}

# panel -> (toy, method, mu or C); C "mu:0.1" = the C whose CH counterpart has mu = 0.1
PANELS = {
    "1a": ("separable", "hull", {"mu": 1.0}),
    "1b": ("separable", "hull", {"mu": 0.1}),
    "1c": ("overlapping", "hull", {"mu": 1.0}),
    "1d": ("overlapping", "hull", {"mu": 0.25}),
    "2a": ("separable", "svm", {"C": "mu:0.1"}),
    "2b": ("overlapping", "svm", {"C": 1e10}),
    "2c": ("overlapping", "svm", {"C": "mu:0.25"}),
    "2d": ("negative-means", "svm", {"C": 1.0}),
    "3a": ("local-optima", "svm", {"C": 1e10, "order": "as-given"}),
    "3b": ("local-optima", "svm", {"C": 1e10, "order": "reversed"}),
}
TITLES = {"1a": "separable, CH, mu = 1", "1b": "separable, CH, mu = 0.1",
          "1c": "nonseparable, CH, mu = 1", "1d": "nonseparable, CH, mu = 0.25",
          "2a": "separable, SVM, C with mu = 0.1 (as 1b)", "2b": "nonseparable, SVM, C = 1e10",
          "2c": "nonseparable, SVM, C with mu = 0.25 (as 1d)", "2d": "unsuitable (negative DCM), SVM, C = 1",
          "3a": "local optimum 1 (libsvm, given order)",
          "3b": "local optimum 2 (libsvm, reversed order)"}
C_SWEEP = [1e-3, 1e-2, 1e-1, 1.0, 10.0, 1e2, 1e4, 1e6, 1e8, 1e10]


def toy_data(toy, n_samples=None, data_seed=None):
    """The toy of a panel: ``(X, y)`` in ``R^(1,1)``."""
    from krein.datasets._toy import (make_pe_local_optima, make_pe_negative_means,
                                     make_pe_overlapping, make_pe_separable)

    if toy == "separable":
        return make_pe_separable(n_samples, random_state=data_seed)
    if toy == "overlapping":
        return make_pe_overlapping(n_samples, random_state=data_seed)
    if toy == "negative-means":
        return make_pe_negative_means(n_samples, random_state=data_seed)
    return make_pe_local_optima(1)


def _hull(K, y, mu, n_starts, seed):
    from krein.solvers.hull import hull_multistart

    sol, table = hull_multistart(K, y, mu, n_starts=n_starts, random_state=seed)
    return sol.primal["alpha_bar"], table


def c_for_mu(K, y, mu, lo=1e-6, hi=1e6, iters=60):
    """The ``C`` whose SVM solution maps to reduction ``mu`` by Prop. 3, case 1 (bisection on log C).

    ``mu(C) = 2 C / sum(alpha(C))`` is ``2 / n`` while every point is a bounded SVM
    support vector (small ``C``) and grows like ``C`` once the hard-margin solution is
    reached, so a target between the two is bracketed by ``[lo, hi]``.
    """
    import numpy as np

    from krein.estimators.base import libsvm_binary

    def mu_of(c):
        u, _, _ = libsvm_binary(K, y, c, tol=1e-8)
        return 2.0 * c / np.sum(y * u)

    a, b = np.log(lo), np.log(hi)
    if not mu_of(np.exp(a)) < mu < mu_of(np.exp(b)):
        raise ValueError(f"mu = {mu} is not bracketed by C in [{lo}, {hi}]")
    for _ in range(iters):
        m = 0.5 * (a + b)
        if mu_of(np.exp(m)) < mu:
            a = m
        else:
            b = m
    return float(np.exp(0.5 * (a + b)))


def fig13_cell(params):
    """One panel: fit the CH classifier or the SVM, record the geometry and the Prop. 3 checks."""
    import json

    import numpy as np

    from krein.datasets._toy import pseudo_euclidean_kernel
    from krein.estimators.base import libsvm_solve
    from krein.formulations.hull import (hull_plane, hull_stationarity, hull_to_svm,
                                         svm_to_hull)
    from krein.geometry import class_mean_distance

    toy, method = params["toy"], params["method"]
    X, y = toy_data(toy, params.get("n_samples"), params.get("data_seed"))
    y = y.astype(float)
    K = pseudo_euclidean_kernel(X)
    n_starts = int(params["n_starts"])
    out = {"X": json.dumps(X.tolist()), "y": json.dumps(y.tolist()),
           "dcm": class_mean_distance(K, y)}
    if method == "hull":
        mu = float(params["mu"])
        a, table = _hull(K, y, mu, n_starts, params["seed"])
        coef, b = hull_plane(a, K, y)
        st = hull_stationarity(a, K, y, mu)
        try:                                  # Prop. 3, case 2: does this CH point come from an SVM?
            alpha, C_eq, _ = hull_to_svm(a, mu, K, y)
            prop3 = f"SVM point with C = {C_eq:.6g}"
        except ValueError as exc:
            prop3 = "none: " + str(exc).split(":")[0]
        n_opt = len(table)
        out.update(mu_ch=mu, C_used=float("nan"), coef=json.dumps(coef.tolist()), intercept=b,
                   alpha_bar=json.dumps(a.tolist()), wMw_ch=float(st["objective"]),
                   wMw_svm=float("nan"), n_support=int(np.sum(a > 1e-9)),
                   n_bounded=int(np.sum(a >= mu * (1 - 1e-7))) if mu < 1 else 0,
                   hull_residual=float(st["residual"]), svm_residual=float("nan"),
                   prop3_to_svm=prop3, n_local_optima=n_opt,
                   local_optima_wMw=json.dumps(table["objective"].round(6).tolist()),
                   plane_offset=0.0)
        dec = K @ coef + b
        sv = a > 1e-9
    else:
        C = params["C"]
        if isinstance(C, str):                # "mu:0.1": the C whose Prop. 3, case 1 mu is 0.1
            C = c_for_mu(K, y, float(C.split(":")[1]))
        C = float(C)
        order = np.arange(y.size)
        if params.get("order") == "reversed":
            order = order[::-1]
        u_p, b, sol = libsvm_solve(K[np.ix_(order, order)], y[order], C, tol=1e-8)
        u = np.zeros(y.size)
        u[order] = u_p
        alpha = y * u
        a, mu = svm_to_hull(alpha, C)                     # Prop. 3, case 1
        st = hull_stationarity(a, K, y, min(mu, 1.0))
        coef_ch, b_ch = hull_plane(a, K, y)
        s = 4.0 / alpha.sum()                             # coef_ch = s * u
        offset = b_ch - s * b                             # in units of the CH rule g
        sweep = {}
        if toy == "negative-means":
            for c in C_SWEEP:
                uc, _, _ = libsvm_solve(K, y, c, tol=1e-8)
                sweep[f"{c:g}"] = float(uc @ K @ uc)
        out.update(mu_ch=mu, C_used=C, coef=json.dumps(u.tolist()), intercept=b,
                   alpha_bar=json.dumps(a.tolist()), wMw_ch=float(a @ (y * (K @ (y * a)))),
                   wMw_svm=float(u @ K @ u), n_support=int(np.sum(alpha > 0)),
                   n_bounded=int(np.sum(alpha >= C * (1 - 1e-8))),
                   hull_residual=float(st["residual"]), svm_residual=float(sol.dual_residual),
                   prop3_to_svm="", n_local_optima=-1, local_optima_wMw="",
                   plane_offset=float(offset), wMw_by_C=json.dumps(sweep))
        if toy == "local-optima":
            _, table = _hull(K, y, 1.0, n_starts, params["seed"])
            out.update(n_local_optima=len(table),
                       local_optima_wMw=json.dumps(table["objective"].round(6).tolist()),
                       multistart_found=json.dumps(table["n_found"].tolist()))
        dec = K @ u + b
        sv = alpha > 0
    wrong = y * dec <= 0
    out.update(n_train_errors=int(wrong.sum()), n_errors_non_sv=int(np.sum(wrong & ~sv)),
               wMw_positive=bool(out["wMw_ch"] > 0))
    return out


def fig13_table(results):
    """One row per panel: w'Mw (CH scale), support vectors, errors, Prop. 3 checks."""
    ok = results[results["status"] == "ok"]
    cols = ["panel", "toy", "method", "mu_ch", "C_used", "dcm", "wMw_ch", "wMw_svm", "n_support",
            "n_bounded", "n_train_errors", "n_errors_non_sv", "hull_residual", "svm_residual",
            "plane_offset", "n_local_optima", "prop3_to_svm"]
    return ok[[c for c in cols if c in ok.columns]].sort_values("panel").reset_index(drop=True)


def reduced_hull(P, mu, n_dir=720):
    """Vertices of ``conv_mu(P)`` (haasdonk §3.2) in the plane, by its support function.

    In direction ``d`` the farthest point of the reduced hull puts weight ``mu`` on
    the points with the largest ``d'p`` until the weights sum to 1.
    """
    import numpy as np

    t = np.linspace(0.0, 2 * np.pi, n_dir, endpoint=False)
    D = np.column_stack([np.cos(t), np.sin(t)])
    pts = []
    for d in D:
        idx = np.argsort(-(P @ d), kind="stable")
        w = np.zeros(len(P))
        left = 1.0
        for i in idx:
            w[i] = min(mu, left)
            left -= w[i]
            if left <= 1e-12:
                break
        pts.append(w @ P)
    pts = np.asarray(pts)
    return np.vstack([pts, pts[:1]])


def _draw_panel(ax, row):
    import json

    import numpy as np

    from krein.datasets._toy import pseudo_euclidean_kernel
    from krein.formulations.hull import hull_plane

    X = np.asarray(json.loads(row["X"]))
    y = np.asarray(json.loads(row["y"]))
    coef = np.asarray(json.loads(row["coef"]))
    a = np.asarray(json.loads(row["alpha_bar"]))
    b, mu = float(row["intercept"]), float(row["mu_ch"])
    zp, zm = a[y > 0] @ X[y > 0], a[y < 0] @ X[y < 0]
    w = zp - zm
    Mw = w * np.array([1.0, -1.0])
    mid = 0.5 * (zp + zm)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = max(hi - lo)
    lo, hi = lo - 0.2 * span, hi + 0.2 * span
    g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], 240), np.linspace(lo[1], hi[1], 240))
    G = np.column_stack([g0.ravel(), g1.ravel()])
    F = (pseudo_euclidean_kernel(G, X) @ coef + b).reshape(g0.shape)
    m = np.max(np.abs(F)) or 1.0
    ax.pcolormesh(g0, g1, F, cmap="RdBu_r", vmin=-m, vmax=m, shading="auto", alpha=0.55)
    ax.contour(g0, g1, F, levels=[0], colors="k", linewidths=1.6)
    if row["method"] == "svm":                    # the CH plane of the same alpha_bar (Prop. 3, case 3)
        cc, bc = hull_plane(a, pseudo_euclidean_kernel(X), y)
        Fc = (pseudo_euclidean_kernel(G, X) @ cc + bc).reshape(g0.shape)
        ax.contour(g0, g1, Fc, levels=[0], colors="0.35", linewidths=1.0, linestyles="--")
    for cls, col in ((1, "darkred"), (-1, "navy")):
        H = reduced_hull(X[y == cls], min(mu, 1.0))
        ax.plot(H[:, 0], H[:, 1], color=col, lw=0.9, ls=":")
    sv = a > 1e-9
    ax.scatter(X[sv, 0], X[sv, 1], s=150, facecolors="none", edgecolors="k", linewidths=2.0)
    ax.scatter(X[y > 0, 0], X[y > 0, 1], marker="o", s=28, c="darkred", edgecolors="w", lw=0.5,
               label="class +1")
    ax.scatter(X[y < 0, 0], X[y < 0, 1], marker="s", s=24, c="navy", edgecolors="w", lw=0.5,
               label="class -1")
    ax.plot(*np.c_[zm, zp], color="purple", lw=0.8)
    ax.plot(*zp, "^", color="darkred", ms=8, mec="k")
    ax.plot(*zm, "v", color="navy", ms=8, mec="k")
    scale = 0.3 * min(hi - lo) / max(np.hypot(*w), 1e-12)
    ax.annotate("", mid + scale * w, mid, arrowprops=dict(arrowstyle="->", color="k", lw=1.8))
    ax.annotate("", mid + scale * Mw, mid, arrowprops=dict(arrowstyle="->", color="forestgreen",
                                                           lw=1.8))
    ax.text(*(mid + scale * w), " w", fontsize=8)
    ax.text(*(mid + scale * Mw), " Mw", fontsize=8, color="forestgreen")
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel("real axis", fontsize=7)
    ax.set_ylabel("imaginary axis", fontsize=7)
    ax.tick_params(labelsize=6)
    sign = ">" if row["wMw_ch"] > 0 else "<"
    extra = "" if row["method"] != "svm" else (", mu >= 1 (hard margin)" if mu >= 1
                                                else f", mu = {mu:.3g}")
    ax.set_title(f"({row['panel'][1]}) {TITLES[row['panel']]}\nw'Mw {sign} 0 ({row['wMw_ch']:.3g}), "
                 f"{int(row['n_support'])} SVs ({int(row['n_bounded'])} bounded){extra}",
                 fontsize=8)


def fig13_figures(results, out_dir):
    """``haasdonk_fig1.png`` (2 x 2), ``haasdonk_fig2.png`` (2 x 2), ``haasdonk_fig3.png`` (1 x 2)."""
    from pathlib import Path

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ok = results[results["status"] == "ok"].set_index("panel", drop=False)
    outs = []
    notes = {"1": "CH classifier (CH-DU); bold circles: SVs; dotted: reduced hulls; "
                  "triangles: z+, z-; arrows: w = z+ - z- and Mw",
             "2": "SVM (libsvm) in black, its CH plane (Prop. 3) dashed grey; hulls reduced to "
                  "mu = 2C / sum(alpha)",
             "3": "two local optima of SVM-DU on one data set (C = 1e10)"}
    for fig_no, shape in (("1", (2, 2)), ("2", (2, 2)), ("3", (1, 2))):
        panels = [p for p in PANELS if p.startswith(fig_no) and p in ok.index]
        if not panels:
            continue
        fig = Figure(figsize=(4.6 * shape[1], 3.6 * shape[0] + 0.5))
        FigureCanvasAgg(fig)
        for i, p in enumerate(panels):
            _draw_panel(fig.add_subplot(*shape, i + 1), ok.loc[p])
        if fig_no == "3":
            r = ok.loc[panels[0]]
            notes["3"] += (f"; the multi-start CH solver ({int(r['n_starts'])} starts) finds {int(r['n_local_optima'])} "
                           f"optima, w'Mw = {r['local_optima_wMw']}")
        fig.suptitle(f"Haasdonk (2005) Fig. {fig_no}, regenerated toys in R^(1,1)\n{notes[fig_no]}",
                     fontsize=8.5)
        fig.tight_layout()
        out = Path(out_dir) / f"haasdonk_fig{fig_no}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        save_png(fig, out, dpi=90)
        outs.append(out)
    return outs


def experiment(quick=False):
    """One cell per panel (module docstring); ``quick`` is the same grid."""
    grid = []
    for panel, (toy, method, spec) in PANELS.items():
        grid.append({"panel": panel, "toy": toy, "method": method, **TOYS[toy], **spec,
                     "n_starts": 20})
    return Experiment("haasdonk_fig13", grid, cell=fig13_cell, random_state=0,
                      description="Haasdonk 2005 Figs. 1-3: CH classifier and SVM in R^(1,1)",
                      table=fig13_table, figures=fig13_figures)
