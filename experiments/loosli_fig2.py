"""Loosli et al. (2013) Fig. 2: ESVM with a partial eigendecomposition on a noisy checkerboard.

Loosli, Ong & Canu, "Learning SVM in Krein spaces", §6.2.1, Fig. 2: training
and test error on a noisy checkerboard against the number of eigenpairs kept
by ESVM (top), the eigenvalues sorted by absolute value (middle) and their
cumulated share of ``sum |lam|`` (bottom); "the error rates are stable once
all the meaningful eigenvalues are taken into account".  The paper gives
neither the size, the noise, the kernel nor ``C``.

Here: :func:`krein.datasets.make_checkerboard` with ``overlap=0.1`` (10 % of
the area in label-noise bands at the cell boundaries, as the paper's Fig. 5
board), 500 training and 2000 test points per repeat, standardized with the
training mean and standard deviation; the sigmoid kernel of Figs. 3-4
(``a = 1``, ``r = -0.95``) and ``C = 100``; :class:`krein.ESVC` with
``n_components = k`` (the ``k`` largest-``|lam|`` eigenpairs, ARPACK) for ``k``
from 1 to 500 (500: the full ESVM), 5 repeats (a new board each).  The
spectrum cells (``part="spectrum"``) store the training kernel's eigenvalues
sorted by ``|lam|`` for each repeat.  ``krein experiment plot --script
experiments/loosli_fig2.py`` draws
``loosli_fig2.png``: mean error (+- std over repeats), the first repeat's
spectrum and the mean cumulated share.

``--quick``: 80 training points, k in {2, 10, 80}, one repeat.
"""

from krein.experiment import Experiment, cartesian, save_png

N_TEST = 2000


def _data(n_train, data_seed):
    from krein.datasets import make_checkerboard

    X, y = make_checkerboard(n_train, overlap=0.1, random_state=data_seed)
    Xt, yt = make_checkerboard(N_TEST, overlap=0.1, random_state=data_seed + 1)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    return (X - mu) / sd, y, (Xt - mu) / sd, yt


def fig2_cell(params):
    """One ESVC(n_components=k) fit (``part="errors"``) or the spectrum (``part="spectrum"``)."""
    import json

    import numpy as np

    from krein import ESVC
    from krein.experiment import cell_seed
    from krein.kernels import sigmoid_kernel

    n = params["n_train"]
    data_seed = cell_seed(params, "n_train", "repeat", salt="data") % (2**31 - 2)
    X, y, Xt, yt = _data(n, data_seed)
    kp = {"a": params["a"], "r": params["r"]}
    if params["part"] == "spectrum":
        lam = np.linalg.eigvalsh(sigmoid_kernel(X, **kp))
        lam = lam[np.argsort(-np.abs(lam), kind="stable")]
        share = np.cumsum(np.abs(lam)) / np.sum(np.abs(lam))
        return {"min_eigenvalue": float(lam.min()), "max_eigenvalue": float(lam.max()),
                "n_negative": int(np.sum(lam < 0)),
                "eigenvalues_by_magnitude": json.dumps([float(f"{v:.6g}") for v in lam]),
                "cumulated_share": json.dumps([float(f"{v:.6g}") for v in share])}
    est = ESVC(C=params["C"], kernel="sigmoid", kernel_params=kp,
               n_components=params["k"]).fit(X, y)
    return {"n_components_used": int(est.n_components_[0]),
            "train_error": float(np.mean(est.predict(X) != y)),
            "test_error": float(np.mean(est.predict(Xt) != yt)),
            "min_eigenvalue": float(est.min_eigenvalue_)}


def fig2_table(results):
    """Mean training and test error per number of eigenpairs."""
    ok = results[(results["status"] == "ok") & (results["part"] == "errors")]
    t = ok.groupby("k")[["train_error", "test_error"]].agg(["mean", "std"]).round(4)
    t.columns = [f"{a}_{b}" for a, b in t.columns]
    return t.reset_index()


def fig2_figures(results, out_dir):
    """Errors vs k (top), eigenvalues by magnitude (middle), cumulated share (bottom)."""
    import json
    from pathlib import Path

    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ok = results[results["status"] == "ok"]
    err = ok[ok["part"] == "errors"].groupby("k")[["train_error", "test_error"]]
    mean, std = err.mean(), err.std().fillna(0.0)
    spec = ok[ok["part"] == "spectrum"].sort_values("repeat")
    fig = Figure(figsize=(6.5, 8.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(3, 1, 1)
    k = mean.index.to_numpy(dtype=float)
    for col, c in (("train_error", "tab:blue"), ("test_error", "tab:red")):
        ax.plot(k, mean[col], "o-", ms=3, color=c, label=col.replace("_", " "))
        ax.fill_between(k, mean[col] - std[col], mean[col] + std[col], color=c, alpha=0.2)
    ax.set_xscale("log")
    ax.set_ylabel("error rate")
    ax.set_xlabel("number of eigenpairs kept (largest |lambda|)")
    ax.legend(fontsize=8)
    row = ok.iloc[0]
    ax.set_title(f"ESVM, noisy checkerboard (overlap 0.1), n={int(row['n_train'])}, test 2000\n"
                 f"sigmoid a={row['a']:g} r={row['r']:g}, C={row['C']:g}, mean +- std over "
                 f"{spec.shape[0]} repeat(s)",
                 fontsize=9)
    if not spec.empty:
        lam = np.asarray(json.loads(spec.iloc[0]["eigenvalues_by_magnitude"]))
        idx = np.arange(1, lam.size + 1)
        ax = fig.add_subplot(3, 1, 2)
        ax.bar(idx, lam, width=1.0, color=np.where(lam < 0, "tab:red", "tab:blue"))
        ax.set_xscale("log")
        ax.set_ylabel("eigenvalue")
        ax.set_xlabel("rank by |lambda| (red: negative)")
        ax.set_title(f"least eigenvalue {lam.min():.2f}, largest {lam.max():.2f} "
                     "(first repeat)", fontsize=9)
        ax = fig.add_subplot(3, 1, 3)
        shares = np.array([json.loads(s) for s in spec["cumulated_share"]])
        ax.plot(idx, shares.mean(axis=0), "k-")
        ax.axhline(0.9, color="grey", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("cumulated share of sum |lambda|")
        ax.set_xlabel("number of eigenpairs")
    fig.tight_layout()
    out = Path(out_dir) / "loosli_fig2.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=85)
    return [out]


def experiment(quick=False):
    """The grid (module docstring); ``quick``: 80 points, three k, one repeat."""
    n = 80 if quick else 500
    ks = [2, 10, 80] if quick else [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40, 60, 80, 100, 150,
                                    200, 300, 400, 500]
    repeats = range(1 if quick else 5)
    common = dict(n_train=n, a=1.0, r=-0.95, C=100.0, repeat=repeats)
    grid = (cartesian(part="spectrum", k=None, **common)
            + cartesian(part="errors", k=ks, **common))
    return Experiment("loosli_fig2", grid, cell=fig2_cell, random_state=0,
                      description="Loosli et al. 2013 Fig. 2: ESVM error vs number of "
                                  "eigenpairs, noisy checkerboard",
                      table=fig2_table, figures=fig2_figures)
