"""Loosli et al. (2013) Fig. 5: training time against the training size, each method to its budget.

Loosli, Ong & Canu, "Learning SVM in Krein spaces", §6.2.3, Fig. 5: training
time of each method on a binary checkerboard with 10 % of overlapping classes,
for increasing training sizes, averaged over 10 runs.  Their observation:
KSVM and RVM scale alike, ESVM pays for the full eigendecomposition, ESVM-L
is the fastest, IndefiniteSVM and LP-SVM are the slowest (their code: Matlab,
RVM and IndefiniteSVM by their authors).

Here: one cell per method.  For ``n`` = 100, 200, 400, ... (doubling), 10
runs, each on a new board (:func:`krein.datasets.make_checkerboard`, 4 x 4,
``overlap=0.1``, standardized) with the kernel and ``C`` of Figs. 3-4
(``tanh(<x, z> - 0.95)``, ``C = 100``; RVM has no ``C``); the time is that of
``fit`` on the precomputed training kernel (the kernel itself is not
timed), on one BLAS thread.  A method goes on to the next size while its mean
fit time stays under ``budget`` (5 s): "as large as each method goes in a
fixed budget".  A size whose runs together exceed ``10 * budget`` stops
after the run that crossed it, so its mean may rest on fewer than 10 runs
(``n_runs`` in the trace).  The largest size tried is ``max_n`` (12800).

The results (one row per method: largest size reached, its mean time) and
the per-run trace (``traces/KEY.csv``: ``n``, ``run``, ``fit_seconds``) are
written by the runner; ``krein experiment plot --script experiments/loosli_fig5.py``
draws
``loosli_fig5.png`` (mean fit seconds vs n, log-log, one line per method).
Run it alone on the machine: parallel cells share cores and the timings.

``--quick``: three methods, sizes 40 and 80, 2 runs, budget 0.5 s.
"""

from krein.experiment import Experiment, cartesian, save_png

METHODS = ["esvm", "esvm-l", "ksvm", "rvm", "indefinite-svm", "lp-svm", "flip", "clip",
           "shift", "svm"]
LABELS = {"esvm": "ESVM", "esvm-l": "ESVM-L (90%)", "ksvm": "KSVM", "rvm": "RVM",
          "indefinite-svm": "IndefiniteSVM (PG)", "lp-svm": "LP-SVM", "flip": "SVM, Abs",
          "clip": "SVM, Trunc", "shift": "SVM, Shift", "svm": "libsvm on K"}


def timing_cell(params):
    """Fit times of one method at doubling sizes until the budget is spent (module docstring).

    Parameters
    ----------
    params : dict
        ``method``, ``n0`` (first size), ``max_n``, ``runs``, ``budget``
        (seconds, mean fit time allowed to go on), ``a``, ``r``, ``C``,
        ``seed``.

    Returns
    -------
    dict
        ``largest_n`` (largest size timed), ``largest_n_fit_seconds`` (its
        mean), ``stopped_by`` (``"budget"`` or ``"max_n"``), ``total_seconds``,
        and ``trace``: a DataFrame with one row per fit (``n``, ``run``,
        ``fit_seconds``, ``accuracy`` on 2000 test points of the same board).
    """
    import time
    import warnings

    import numpy as np
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from krein.datasets import make_checkerboard
    from krein.experiment import build_estimator, cell_seed
    from krein.kernels import sigmoid_kernel

    method, budget = params["method"], float(params["budget"])
    rows, n, stopped = [], int(params["n0"]), "max_n"
    t_start = time.perf_counter()
    with threadpool_limits(1):
        while n <= params["max_n"]:
            spent = 0.0
            for run in range(params["runs"]):
                seed = cell_seed({"n": n, "run": run, "seed": params["seed"]}, "n", "run")
                X, y = make_checkerboard(n + 2000, overlap=0.1, random_state=seed)
                X = (X - X[:n].mean(axis=0)) / X[:n].std(axis=0)
                K = sigmoid_kernel(X, X[:n], a=params["a"], r=params["r"])
                est = build_estimator(method, {}, None, seed)
                if "C" in est.get_params(deep=False):
                    est.set_params(C=params["C"])
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(K[:n], y[:n])
                sec = time.perf_counter() - t0
                acc = float(np.mean(est.predict(K[n:]) == y[n:]))
                rows.append({"n": n, "run": run, "fit_seconds": sec, "accuracy": acc})
                spent += sec
                if spent > 10 * budget:
                    break
            mean = float(np.mean([r["fit_seconds"] for r in rows if r["n"] == n]))
            if mean > budget:
                stopped = "budget"
                break
            n *= 2
    trace = pd.DataFrame(rows)
    last = trace[trace["n"] == trace["n"].max()]
    return {"largest_n": int(last["n"].iloc[0]),
            "largest_n_fit_seconds": float(last["fit_seconds"].mean()),
            "stopped_by": stopped, "total_seconds": time.perf_counter() - t_start,
            "trace": trace}


def fig5_figures(results, out_dir):
    """``loosli_fig5.png``: mean fit time vs n per method (log-log), from the traces."""
    import os

    import matplotlib
    import pandas as pd

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ok = results[results["status"] == "ok"]
    for _, row in ok.iterrows():
        path = os.path.join(results.attrs.get("directory", "."), str(row.get("trace_file")))
        if not row.get("trace_file") or not os.path.isfile(path):
            continue
        t = pd.read_csv(path).groupby("n")["fit_seconds"].mean()
        ax.loglog(t.index, t.values, "o-", ms=3, label=LABELS.get(row["method"], row["method"]))
    ax.set_xlabel("training size n")
    ax.set_ylabel("mean fit time (s)")
    ax.set_title("Checkerboard, 10% overlap, sigmoid kernel (Loosli et al. Fig. 5)", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "loosli_fig5.png")
    save_png(fig, path, dpi=90)
    plt.close(fig)
    return [path]


def fig5_table(results):
    """Per method: largest size timed, its mean fit time and what stopped it."""
    ok = results[results["status"] == "ok"]
    cols = ["method", "largest_n", "largest_n_fit_seconds", "stopped_by", "total_seconds"]
    return ok[cols].sort_values("largest_n_fit_seconds").reset_index(drop=True)


def experiment(quick=False):
    """One cell per method (module docstring); ``quick`` shrinks it to seconds."""
    if quick:
        grid = cartesian(method=["esvm", "ksvm", "clip"], n0=40, max_n=80, runs=2, budget=0.5,
                         a=1.0, r=-0.95, C=100.0)
    else:
        grid = cartesian(method=METHODS, n0=100, max_n=12800, runs=10, budget=5.0,
                         a=1.0, r=-0.95, C=100.0)
    return Experiment("loosli_fig5", grid, cell=timing_cell, random_state=0,
                      description="Loosli et al. 2013 Fig. 5: fit time vs n on the checkerboard, "
                                  "each method until its mean fit time exceeds the budget",
                      table=fig5_table,
                      figures=fig5_figures)
