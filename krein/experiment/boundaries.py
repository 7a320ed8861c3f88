"""Decision boundaries of a comparison on 2-D feature data, as cells of the runner.

Each method of a comparison is trained once more, with the parameters its
folds chose most often, and predicts a regular grid over the data (Loosli et
al. 2013 Fig. 3).  It is trained on all the data up to :data:`BOUNDARY_SAMPLE`
points, beyond that on a stratified sample of that size drawn with the
comparison's seed (:func:`boundary_sample`): at 10^5 points the refit of
every method on all of them took 2.5 min, more than the picture needs.  These fits are cells like the folds'
(:func:`boundary_grid` declares them, :func:`boundary_cell` computes one,
:func:`krein.experiment.run_experiment` runs them): they resume, run in
parallel, and a fit that raises is a row with its error, shown on the page
(``boundaries.csv``: one row with empty coordinates and the error text).

A cell's parameters are the data of the comparison (the keys of a
classification cell that :func:`krein.experiment.cell_kernel_data` reads), the
method with its fixed and chosen parameters, the solver, the chosen kernel
parameters and the grid's size; the cell returns ``train_accuracy`` and, as its
trace (``traces/KEY.csv``), the grid's coordinates and predicted labels.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .classification import build_estimator, cell_kernel_data

__all__ = ["BOUNDARY_GRID", "BOUNDARY_SAMPLE", "DATA_KEYS", "boundary_sample", "boundary_grid", "boundary_cell", "grid_points",
           "points_table", "boundary_table", "chosen_params"]

#: Points per axis of the decision-boundary grid (2-D feature data).
BOUNDARY_GRID = 120

#: Most points a boundary model is trained on (a stratified, seeded sample beyond).
BOUNDARY_SAMPLE = 2000

#: Keys of a classification cell that say which data and kernel it uses.
DATA_KEYS = ("dataset", "n_samples", "binary", "data_file", "kernel", "kernel_params",
             "approximation")


def grid_points(X, grid=BOUNDARY_GRID):
    """The regular grid over 2-D data, 5 % wider than the data on each side.

    Parameters
    ----------
    X : ndarray of shape (n, 2)
        The data.
    grid : int
        Points per axis.

    Returns
    -------
    ndarray of shape (grid * grid, 2)
        ``x0`` varying fastest.
    """
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    G0, G1 = np.meshgrid(np.linspace(lo[0] - pad[0], hi[0] + pad[0], grid),
                         np.linspace(lo[1] - pad[1], hi[1] + pad[1], grid))
    return np.column_stack([G0.ravel(), G1.ravel()])


def boundary_sample(y, random_state, size=BOUNDARY_SAMPLE):
    """The points a boundary model is trained on: all, or a stratified sample.

    Parameters
    ----------
    y : ndarray of shape (n,)
        The labels of all the data.
    random_state : int
        The comparison's seed (the same sample for every method).
    size : int
        The most points kept.

    Returns
    -------
    ndarray of shape (min(n, size),)
        Sorted row indices: ``arange(n)`` when ``n <= size``, else a sample of
        ``size`` points with the classes' proportions
        (:func:`sklearn.model_selection.train_test_split` with ``stratify=y``).
    """
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    if y.size <= size:
        return np.arange(y.size)
    idx, _ = train_test_split(np.arange(y.size), train_size=int(size), stratify=y,
                              random_state=random_state)
    return np.sort(idx)


def points_table(data):
    """The ``points.csv`` table of 2-D feature data: ``x0, x1, label`` (labels as text).

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        Data with 2-D feature vectors ``X``.

    Returns
    -------
    pandas.DataFrame
        One row per point: ``x0``, ``x1`` and ``label``.
    """
    X = data.X
    return pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "label": [str(v) for v in data.y]})


def boundary_grid(fold_cell, methods, chosen, fixed, solvers, grid=BOUNDARY_GRID):
    """The boundary cells of a comparison, one per method (:func:`boundary_cell`).

    Parameters
    ----------
    fold_cell : dict
        A classification cell of the comparison: its :data:`DATA_KEYS` say the data.
    methods : list of str
        The methods run, in the table's order.
    chosen : dict
        Method -> the parameters its folds chose most often (``best_params`` of
        ``summary.csv``: kernel parameters as ``kernel_<name>``).
    fixed : dict
        Method -> its fixed parameters (``method_params`` of its fold cells).
    solvers : dict
        Method -> the solver of its fold cells (None: its own; a method
        without a ``solver`` parameter gets None whatever the comparison's).
    grid : int
        Points per axis of the grid.

    Returns
    -------
    list of dict
        One parameter dict per method.
    """
    data = {k: fold_cell[k] for k in DATA_KEYS if k in fold_cell}
    cells = []
    for method in methods:
        best = chosen.get(method) or {}
        params = {**(fixed.get(method) or {}),
                  **{k: v for k, v in best.items() if not k.startswith("kernel_")}}
        kparams = {k[len("kernel_"):]: v for k, v in best.items() if k.startswith("kernel_")}
        cells.append({"data": data, "method": method, "method_params": params,
                      "kernel_choice": kparams, "solver": solvers.get(method),
                      "grid": int(grid)})
    return cells


def boundary_cell(params):
    """Fit one method on the data (:func:`boundary_sample`) and predict the grid: one cell.

    Parameters
    ----------
    params : dict
        A cell of :func:`boundary_grid` with ``"seed"`` (the comparison's seed:
        every estimator's ``random_state``, the landmarks of an approximation).

    Returns
    -------
    dict
        ``train_accuracy`` (the fit's accuracy on the points it was trained
        on), ``n_fit`` (their number: at most :data:`BOUNDARY_SAMPLE`) and ``trace``:
        a DataFrame ``x0, x1, prediction`` (predicted labels as text), one row
        per grid point.

    Raises
    ------
    Exception
        Whatever the fit raises (the runner records it).
    """
    from ..combinations import accepts_stacked_kernels
    from ..kernel_data import make_approximation

    seed = params["seed"]
    data = cell_kernel_data({**params["data"], "repeat": 0, "seed": seed})[0]
    X, y = data.X, data.y
    points = grid_points(X, params["grid"])       # over ALL the data
    idx = boundary_sample(y, random_state=seed)
    whole = idx.size == y.size
    name, method_params = params["method"], dict(params["method_params"])
    d = _with_kernel_params(data, params["kernel_choice"]) if params["kernel_choice"] else data
    approximation = params["data"].get("approximation")
    if approximation is not None:  # feature vectors, no n x n kernel
        est = build_estimator(name, method_params, params["solver"], random_state=seed,
                              approximation=make_approximation(approximation, seed),
                              kernel=d.kernel, kernel_params=d.kernel_params)
        K_all, R = X[idx], points
    else:
        est = build_estimator(name, method_params, params["solver"], random_state=seed)
        K_all, R = _kernel_sample(d.K, d.rows(points), idx, whole)
    if d.base_kernels is not None and accepts_stacked_kernels(est):
        K_all, R = _kernel_sample(d.stacked_kernel(), d.rows(points, stacked=True), idx, whole)
    est.fit(K_all, y[idx])
    pred = est.predict(R)
    accuracy = float(np.mean(est.predict(K_all) == y[idx]))
    trace = pd.DataFrame({"x0": points[:, 0], "x1": points[:, 1],
                          "prediction": [str(v) for v in pred]})
    return {"train_accuracy": accuracy, "n_fit": int(idx.size), "trace": trace}


def _kernel_sample(K, R, idx, whole):
    """The training kernel and the grid's rows on the sampled points ``idx``."""
    if whole:
        return K, R
    return K[np.ix_(idx, idx)], R[:, idx]


def _with_kernel_params(data, kparams):
    """The same data with other kernel parameters (the kernel recomputed on all objects;
    in an approximated run only the parameters change)."""
    from dataclasses import replace

    from ..kernels import pairwise_kernel

    params = {**data.kernel_params, **kparams}
    if data.K is None:
        return replace(data, kernel_params=params, _spectrum=None)
    K = pairwise_kernel(data.kernel, data.X, None, params)
    return replace(data, kernel_params=params, K=0.5 * (K + K.T), _spectrum=None)


def boundary_table(report, methods):
    """The ``boundaries.csv`` table from the run of the boundary cells.

    Parameters
    ----------
    report : krein.experiment.RunReport
        The run of :func:`boundary_grid`'s experiment.
    methods : list of str
        The methods, in the table's order.

    Returns
    -------
    pandas.DataFrame
        ``method, x0, x1, prediction, train_accuracy, error``: a method's
        predictions on the grid, or one row with empty coordinates and the
        error text of its failed fit.
    """
    from .store import read_trace

    rows = report.results
    keys = {c.params["method"]: c.key for c in report.experiment.cells}
    frames = []
    for name in methods:
        row = rows[rows["key"] == keys[name]].iloc[0]
        trace = (read_trace(report.directory, row["trace_file"],
                            text_columns=("prediction",))
                 if row["status"] == "ok" else None)
        if trace is None:
            error = row["error"] or "no grid predictions"
            frames.append(pd.DataFrame({"method": [name], "x0": [np.nan], "x1": [np.nan],
                                        "prediction": [""], "train_accuracy": [np.nan],
                                        "error": [error]}))
            continue
        frames.append(pd.DataFrame({"method": name, "x0": trace["x0"].to_numpy(float),
                                    "x1": trace["x1"].to_numpy(float),
                                    "prediction": trace["prediction"].tolist(),
                                    "train_accuracy": float(row["train_accuracy"]),
                                    "error": ""}))
    return pd.concat(frames, ignore_index=True)


def chosen_params(summary):
    """Method -> the parameters chosen most often, from a summary table's ``best_params``.

    Parameters
    ----------
    summary : pandas.DataFrame
        The summary table (``method``, ``best_params`` as JSON text).

    Returns
    -------
    dict
        Method name -> ``{parameter: value}`` (empty when nothing was tuned).
    """
    return {m: json.loads(b or "{}") for m, b in zip(summary["method"], summary["best_params"])}
