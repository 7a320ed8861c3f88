"""Luss & d'Aspremont (2009) Fig. 2: total time and time per iteration against n.

Luss & d'Aspremont, "Support vector machine classification with indefinite
kernels", Math. Prog. Comp. 1 (2009), §5.3, Fig. 2: "Total time versus dimension
(left) and average time per iteration versus dimension (right) using projected
gradient and ACCPM IndefiniteSVM and SIQCLP (only for total time)" on random
subsets of USPS 3-5 with the Simpson kernel, "averaged over 10 random data
subsets", "C = 10 with a tolerance of .1 for the duality gap", several rho;
ACCPM up to n = 500, SIQCLP (the exchange method) up to n = 300.

Here: USPS digits 3 vs 5 (raw pixels), :func:`krein.kernels.simpson_kernel`, a
random subset of ``n`` digits per repeat (the same subsets for every algorithm
and rho), ``C = 10``, stopped on the certified ABSOLUTE duality gap ``0.1``
(``tol = 0``; the paper's ".1", on an objective of order 10-100 here: the loops'
``atol`` is in the unit ``1/2 max|lam(K0)| C^2`` of the data, ``Certifier.unit``, so
the absolute 0.1 is passed as ``atol = 0.1 / unit``), one BLAS thread (threadpoolctl), the default ``gap_every`` of each loop.
Algorithms: "pg" with the paper's step ``5/k`` (``step="diminishing"``),
"pg-bt" (our default: backtracking), "apg" (ours: accelerated, FISTA with
restarts), "accpm" (Newton centers, 3n cuts), "exchange" (Algorithm 3 with
level stabilization: the unstabilized method of the paper stalls,
``benchmarks/README.md``, "Exchange method").  A cell records the total time
(the eigendecomposition of ``K0`` included), the iterations, the time per
iteration (loop time without the libsvm gap checks, over the iterations, as the
paper's right panel; and total / iterations) and whether the gap was reached.
The figure (``luss_fig2.png``) is drawn from the results: mean and min-max over
the repeats.

Our copy of USPS 3-5 has 1214 digits, so the 3-5 subsets stop at n = 1200; n = 2000
and 4000 use all ten digits (labels 0-4 against 5-9, ``data`` column), one subset,
rho = 1, the gradient methods only (not APG at 4000: time).

``--quick``: n = 20, 40; one repeat; rho = 1; every algorithm.
"""

from pathlib import Path

from krein.experiment import Experiment, cell_seed, save_png

ALGORITHMS = ("pg", "pg-bt", "apg", "accpm", "exchange")
#: The largest n per algorithm in the full run (paper: ACCPM 500, SIQCLP 300; PG further).
MAX_N = {"pg": 1200, "pg-bt": 1200, "apg": 1200, "accpm": 500, "exchange": 300}
#: USPS 3-5 has 1214 digits in our copy (the 7291 training digits; the paper's 767 + 773).
SIZES = (100, 200, 300, 500, 1000, 1200)
#: Beyond that, all ten digits with labels 0-4 against 5-9 (a different problem: one
#: subset, rho = 1, the gradient methods only).
EXTENSION = {"data": "usps-0to4-vs-5to9", "sizes": (2000, 4000),
             "algorithms": ("pg", "pg-bt", "apg"), "rho": 1.0}
RHOS = (1.0, 10.0)
#: Subsets (the paper: 10; 3 here, for time).
REPEATS = 3
MAX_ITER = {"pg": 5000, "pg-bt": 5000, "apg": 5000, "accpm": 5000, "exchange": 150}


def absolute_gap_atol(K, C, gap):
    """The loops' ``atol`` that stops them at the absolute certified gap ``gap``.

    The IndefiniteSVM loops measure ``atol`` in the unit ``1/2 max|lam(K0)| C^2``
    of the data (``Certifier.unit``), so that ``K`` and ``s K`` stop alike; the
    paper's absolute ".1" is ``gap / unit`` (``max|lam|`` by ARPACK).
    """
    import numpy as np
    from scipy.sparse.linalg import eigsh

    lam_max = float(np.abs(eigsh(K, k=1, which="LM", return_eigenvectors=False)).max())
    return float(gap) / (0.5 * lam_max * float(C) ** 2)


def fig2_cell(params):
    """One algorithm on one random USPS-SS-3-5 subset: time, iterations, final gap."""
    import os
    import time
    import warnings

    import numpy as np
    from threadpoolctl import threadpool_limits

    from krein.datasets import load
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.kernels import simpson_kernel
    from krein.solvers.indefinite import accelerated_gradient, accpm, exchange, projected_gradient

    data = params.get("data", "usps35")
    if data == "usps35":
        X, y = load("usps", binary=(3, 5))
    else:
        X, digits = load("usps")
        y = np.where(np.asarray(digits) <= 4, 1, -1)
    n = int(params["n"])
    rng = np.random.default_rng(cell_seed(params, "n", "repeat", salt="subset"))
    idx = np.sort(rng.choice(y.shape[0], size=n, replace=False))
    K = simpson_kernel(X[idx])
    alg = params["algorithm"]
    # computed before the clock starts
    atol = absolute_gap_atol(K, params["C"], params["gap"])
    common = dict(tol=0.0, atol=atol, max_iter=int(params["max_iter"]))
    load0 = os.getloadavg()[0]
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        P = ProxyKernelProblem(K, y[idx].astype(float), model="svc", C=params["C"],
                               rho=params["rho"], check=False)
        if alg == "pg":
            sol = projected_gradient(P, step="diminishing", step0=5.0, **common)
        elif alg == "pg-bt":
            sol = projected_gradient(P, **common)
        elif alg == "apg":
            sol = accelerated_gradient(P, **common)
        elif alg == "accpm":
            sol = accpm(P, **common)
        else:
            sol = exchange(P, **common)
        total = time.perf_counter() - t0
    tr = sol.trace
    it = int(len(tr))
    loop_s = float(tr["seconds"].sum())
    return {"total_seconds": total, "n_iter": it,
            "seconds_per_iter": loop_s / max(it, 1),
            "total_per_iter": total / max(it, 1),
            "gap_check_seconds": float(tr["gap_seconds"].sum()),
            "setup_seconds": float(sol.setup_time),
            "final_gap": float(sol.gap), "objective": float(sol.certificate["lower"]),
            "converged": bool(sol.gap <= params["gap"]),
            "load_avg_start": load0, "load_avg_end": os.getloadavg()[0],
            "min_eigenvalue": float(np.linalg.eigvalsh(K)[0]) if n <= 1000 else float("nan")}


def fig2_figures(results, out_dir):
    """Left: total seconds vs n; right: seconds per iteration vs n (log-log), per rho."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = results[results["status"] == "ok"] if "status" in results else results
    data = df["data"].fillna("usps35") if "data" in df else None
    ext = df[data != "usps35"] if data is not None else df.iloc[:0]
    df = df[data == "usps35"] if data is not None else df
    df = df.assign(x_eigh=df["total_seconds"] / df["setup_seconds"])
    ext = ext.assign(x_eigh=ext["total_seconds"] / ext["setup_seconds"])
    cols = ["total_seconds", "seconds_per_iter", "x_eigh"]
    colors = {"pg": "C0", "pg-bt": "C2", "apg": "C3", "accpm": "C1", "exchange": "C4"}
    styles = {r: s for r, s in zip(sorted(df["rho"].unique()), ["-", "--", ":", "-."])}
    fig, axes = plt.subplots(1, 3, figsize=(14, 5.0))
    for (alg, rho), sub in df.groupby(["algorithm", "rho"]):
        for ax, col in zip(axes, cols):
            g = sub.groupby("n")[col]
            m, lo, hi = g.mean(), g.min(), g.max()
            conv = sub.groupby("n")["converged"].mean()
            ax.plot(m.index, m.values, styles.get(rho, "-"), color=colors.get(alg, "k"),
                    marker="o", ms=3, label=f"{alg}, rho={rho:g}")
            ax.fill_between(m.index, lo.values, hi.values, color=colors.get(alg, "k"),
                            alpha=0.12)
            bad = conv[conv < 1].index
            if col == "total_seconds" and len(bad):
                ax.plot(bad, m.loc[bad].values, "x", color="k", ms=7)
    for (alg, rho), sub in ext.groupby(["algorithm", "rho"]):
        for ax, col in zip(axes, cols):
            m = sub.groupby("n")[col].mean()
            ax.plot(m.index, m.values, "s", mfc="none", color=colors.get(alg, "k"), ms=6,
                    label=f"{alg}, all digits 0-4 vs 5-9" if col == "total_seconds" else None)
    axes[0].set_ylabel("total seconds (to absolute gap 0.1)")
    axes[1].set_ylabel("seconds per iteration (loop, without gap checks)")
    axes[2].set_ylabel("total time / one eigh(K0) in the same cell")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (USPS-3-5 Simpson subset)")
        ax.grid(alpha=0.3, which="both")
    legend = {}
    for h, lab in zip(*axes[0].get_legend_handles_labels()):
        legend.setdefault(lab, h)
    fig.legend(list(legend.values()), list(legend), loc="lower center", ncol=5, fontsize=7,
               frameon=False)
    nrep = int(df["repeat"].nunique()) if "repeat" in df else 1
    fig.suptitle(f"Luss & d'Aspremont (2009) Fig. 2, ours: USPS-SS-3-5, C = 10, absolute gap "
                 f"0.1; mean (line) and min-max (band) over {nrep} subsets; x: a run stopped "
                 f"at max_iter\n1 BLAS thread on a shared machine, load average "
                 f"{df['load_avg_start'].min():.1f}-{df['load_avg_start'].max():.1f} (right: "
                 f"in units of one eigh of K0 in the same cell, robust to the load; noisy "
                 f"where eigh takes a millisecond)", fontsize=8.5)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    out = Path(out_dir) / "luss_fig2.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=90)
    return [out]


def experiment(quick=False):
    """Algorithms x n x rho x repeats (module docstring); ``quick``: seconds."""
    if quick:
        grid = [{"algorithm": a, "n": n, "rho": 1.0, "repeat": 0, "C": 10.0, "gap": 0.1,
                 "max_iter": 300 if a != "exchange" else 30}
                for a in ALGORITHMS for n in (20, 40)]
    else:
        def one(k):
            return [{"algorithm": a, "n": n, "rho": r, "repeat": k, "C": 10.0, "gap": 0.1,
                     "max_iter": MAX_ITER[a]}
                    for r in RHOS for n in SIZES for a in ALGORITHMS if n <= MAX_N[a]]

        ext = [{"algorithm": a, "n": n, "rho": EXTENSION["rho"], "repeat": 0, "C": 10.0,
                "gap": 0.1, "max_iter": MAX_ITER[a], "data": EXTENSION["data"]}
               for n in EXTENSION["sizes"] for a in EXTENSION["algorithms"]
               if not (n == 4000 and a == "apg")]   # APG at 4000: over 10 min loaded
        # the extension right after the first subset, so that a stopped run has it
        grid = one(0) + ext + [c for k in range(1, REPEATS) for c in one(k)]
    return Experiment("luss_fig2", grid, cell=fig2_cell, random_state=0,
                      description="Luss & d'Aspremont 2009 Fig. 2: time and time per "
                                  "iteration vs n, USPS-SS-3-5, C = 10, gap 0.1",
                      table={"value": "total_seconds", "rows": ["n", "rho"],
                             "columns": "algorithm"},
                      figures=fig2_figures)


def slim(results_dir):
    """Commit a full run: ``experiments/results/luss_fig2.csv`` (the cells of the full grid,
    without host and configuration columns) and ``figures/luss_fig2.png`` drawn from it."""
    from krein.experiment import import_script

    helpers = import_script(str(Path(__file__).resolve().parent / "_luss.py"))
    return helpers.slim_run(experiment(), results_dir, "luss_fig2", fig2_figures)


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "slim":
        sys.exit("usage: python experiments/luss_fig2.py slim RESULTS_DIR "
                 "(the run itself: krein experiment run experiments/luss_fig2.py)")
    print(slim(sys.argv[2]))
