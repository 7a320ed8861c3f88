"""Compare every registered method on one data set and one kernel: ``krein compare``.

A thin client of :mod:`krein.experiment`: :func:`run_comparison` declares the
cells of :func:`krein.experiment.classification_grid` (one per method, repeat
and outer fold; every method at the given ``C``), runs them with
:func:`krein.experiment.run_experiment` and summarizes the rows.  So the data
(:func:`krein.kernel_data.load_kernel_data`), the folds
(:func:`krein.experiment.outer_splits`: the same for every method, and the
same as an experiment's with ``seed=random_state``), the estimator builder
(:func:`krein.experiment.build_estimator`), the per-fold rules and the error
text are the experiments' own.  :func:`compare` returns the per-method
summary; :func:`run_comparison` returns the per-fold table and the data too
(the command-line interface prints them).

Data and kernels are described in :mod:`krein.datasets` (catalogue) and
:mod:`krein.kernel_data` (kernels, per-fold rules, stacked input).

Deviation from Euclideanness
----------------------------
Every fold records the least eigenvalue and ``r_mm``, ``r_neg`` (Munoz & de
Diego 2006 eq. 2, :class:`krein.spectrum.Spectrum`) of its training block;
the summary averages them.
"""

from __future__ import annotations

import numbers
import os
import tempfile
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ._io import atomic_write, new_figure, save_png
from ._validation import InvalidArgument
from .combinations import accepts_stacked_kernels
from .experiment import (Experiment, build_estimator, cell_kernel_data, classification_grid,
                         outer_splits, run_experiment)
from .experiment.runner import error_text
from .kernel_data import KernelData, check_data_arguments
from .registry import list_methods

__all__ = [
    "compare",
    "run_comparison",
    "ComparisonResult",
    "InvalidArgument",
    "SUMMARY_COLUMNS",
    "FOLD_COLUMNS",
]

#: Kernels with at most this many objects are fitted with one BLAS thread.
SMALL_KERNEL = 1000

#: Columns of the summary table returned by :func:`compare`.
SUMMARY_COLUMNS = ["method", "accuracy_mean", "accuracy_std", "fit_seconds_mean",
                   "n_support_mean", "min_eigenvalue_mean", "r_mm_mean", "r_neg_mean",
                   "n_errors"]

#: Columns of the per-cell table (``ComparisonResult.folds``, ``compare_<dataset>_folds.csv``).
FOLD_COLUMNS = ["method", "repeat", "fold", "n_train", "n_test", "accuracy", "fit_seconds",
                "n_support", "min_eigenvalue", "r_mm", "r_neg", "error", "warnings"]


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_methods(methods):
    registered = list(list_methods(task="classifier"))
    if methods is None:
        return list(list_methods(task="classifier", compare=True))
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    try:
        methods = list(methods)
    except TypeError:
        raise InvalidArgument("methods", f"must be a list of names; got {methods!r}") from None
    if not methods:
        raise InvalidArgument("methods", f"no method given; registered: {', '.join(registered)}")
    bad = [m for m in methods if m not in registered]
    if bad:
        raise InvalidArgument("methods", f"unknown method(s) {', '.join(map(repr, bad))}; "
                                         f"registered: {', '.join(registered)}")
    return list(dict.fromkeys(methods))


def _check_solver(solver):
    if solver is None:
        return None
    from .solvers import installed_solvers

    accepted = ["libsvm"] + installed_solvers()
    if isinstance(solver, str):
        if solver.lower() == "libsvm":
            return "libsvm"
        if solver.upper() in installed_solvers():
            return solver.upper()
    raise InvalidArgument("solver", f"unknown or not installed solver {solver!r}; accepted: "
                                    f"{', '.join(accepted)}")


def _check_options(cv, repeats, C):
    if not _is_int(cv) or cv < 2:
        raise InvalidArgument("cv", f"must be an integer >= 2 (number of folds); got {cv!r}")
    if not _is_int(repeats) or repeats < 1:
        raise InvalidArgument("repeats", f"must be an integer >= 1; got {repeats!r}")
    ok = isinstance(C, numbers.Real) and not isinstance(C, bool) and np.isfinite(C) and C > 0
    if not ok:
        raise InvalidArgument("C", f"must be a positive finite number; got {C!r}")
    return int(cv), int(repeats), float(C)


@dataclass
class ComparisonResult:
    """Everything one comparison produced, as :func:`run_comparison` returns it.

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per method, columns :data:`SUMMARY_COLUMNS` (the table
        :func:`compare` returns).
    folds : pandas.DataFrame
        One row per (method, repeat, fold) cell, columns :data:`FOLD_COLUMNS`.
    data : krein.kernel_data.KernelData
        The data set and kernel.
    methods : list of str
        Registry names of the methods compared, in the order given.
    cv : int
        Number of outer folds.
    repeats : int
        Number of repetitions of the ``cv``-fold split.
    C : float
        The ``C`` given to every method that has one.
    solver : str or None
        The solver given to the methods that have a ``solver`` parameter
        (None: their own default).
    random_state : int
        The experiment's seed (folds, synthetic data, subsample).
    files : list of str, default []
        Paths written (empty without ``out``).
    experiment : krein.experiment.Experiment or None
        The cells that were run (one per method, repeat and fold).
    """

    summary: pd.DataFrame
    folds: pd.DataFrame
    data: KernelData
    methods: list
    cv: int
    repeats: int
    C: float
    solver: str | None
    random_state: int
    files: list = field(default_factory=list)
    experiment: Experiment | None = field(default=None, repr=False)

    def splits(self, repeat=0):
        """The outer folds of one repeat, as every method saw them.

        Parameters
        ----------
        repeat : int
            Repeat index, ``0 <= repeat < repeats``.

        Returns
        -------
        list of (ndarray, ndarray)
            ``cv`` pairs of training and test indices into ``data.y``
            (:func:`krein.experiment.outer_splits`).

        Raises
        ------
        ValueError
            For a repeat outside the comparison's.
        """
        if not _is_int(repeat) or not 0 <= repeat < self.repeats:
            raise ValueError(f"repeat must be an integer in [0, {self.repeats}); got {repeat!r}")
        cell = next(c for c in self.experiment.cells if c.params["repeat"] == repeat)
        return outer_splits(cell.params, self.data.y)


def _summarize(folds, methods):
    rows = []
    for m in methods:
        f = folds[folds["method"] == m]
        ok = f[f["error"] == ""]
        rows.append({
            "method": m,
            "accuracy_mean": ok["accuracy"].mean() if len(ok) else np.nan,
            "accuracy_std": ok["accuracy"].std() if len(ok) > 1 else (0.0 if len(ok) else np.nan),
            "fit_seconds_mean": ok["fit_seconds"].mean() if len(ok) else np.nan,
            "n_support_mean": ok["n_support"].mean() if len(ok) else np.nan,
            "min_eigenvalue_mean": f["min_eigenvalue"].mean(),
            "r_mm_mean": f["r_mm"].mean(),
            "r_neg_mean": f["r_neg"].mean(),
            "n_errors": int((f["error"] != "").sum()),
        })
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def run_comparison(dataset="sonar", kernel=None, kernel_params=None, methods=None, cv=5,
                   repeats=1, C=1.0, solver=None, random_state=0, out=None, progress=True,
                   n_samples=None, binary=None):
    """Run :func:`compare` and return all its results (summary, folds, data, files).

    Parameters
    ----------
    dataset : str
        Data set name, as in :func:`compare`.
    kernel : str, optional
        Kernel name, as in :func:`compare`.
    kernel_params : dict, optional
        Kernel parameters, as in :func:`compare`.
    methods : list of str or str, optional
        Registry names (a string is split at commas), as in :func:`compare`.
    cv : int >= 2
        Number of folds, as in :func:`compare`.
    repeats : int >= 1
        Repetitions of the split, as in :func:`compare`.
    C : float > 0
        Box bound of every method that has one, as in :func:`compare`.
    solver : str, optional
        ``"libsvm"`` or an installed CVXPY solver, as in :func:`compare`.
    random_state : int >= 0
        The experiment's seed, as in :func:`compare`.
    out : str or path-like, optional
        Directory of the output files, as in :func:`compare`.
    progress : bool
        Progress bar, as in :func:`compare`.
    n_samples : int, optional
        Synthetic size or subsample, as in :func:`compare`.
    binary : optional
        Binary task of the data set, as in :func:`compare`.

    Returns
    -------
    ComparisonResult
        The summary (the table :func:`compare` returns, with the same
        ``attrs``), the per-fold table, the data and kernel, the arguments
        used, the files written and the experiment that was run.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) for a bad argument, before any model is fitted.
    """
    check_data_arguments(dataset, kernel, kernel_params)
    methods = _check_methods(methods)
    solver = _check_solver(solver)
    cv, repeats, C = _check_options(cv, repeats, C)
    if not _is_int(random_state) or random_state < 0:
        raise InvalidArgument("random_state", f"must be an integer >= 0; got {random_state!r}")
    datasets = [{"dataset": dataset, "n_samples": n_samples, "binary": binary}]
    kernels = [{"kernel": kernel, "params": dict(kernel_params or {})}]
    entries = []
    for name in methods:
        has_c = "C" in build_estimator(name).get_params(deep=False)
        entries.append({"method": name, "params": {"C": C} if has_c else {}, "grid": {}})
    grid = classification_grid(datasets, entries, kernels, folds=cv, repeats=repeats,
                               solvers=[solver], save_trace=False)
    experiment = Experiment(f"compare-{dataset}", grid, seed=int(random_state))
    # the data every cell uses (the same cached computation): bad data or kernel
    # arguments fail here, before any model is fitted
    data = cell_kernel_data(experiment.cells[0].params)[0]
    _, counts = data.classes
    if cv > counts.min():
        raise InvalidArgument("cv", f"{cv} folds but the smallest class of {data.dataset!r} has "
                                    f"{counts.min()} objects; use cv <= {counts.min()}")
    data.spectrum()
    # On kernels of this size BLAS threads only spin (a 25x slowdown of the
    # nearest-PSD fits measured on Sonar on a busy 2-core machine): one thread per
    # process below SMALL_KERNEL objects, the library default above.
    limit = 1 if data.n_samples <= SMALL_KERNEL else None
    with tempfile.TemporaryDirectory(prefix="krein-compare-") as tmp, \
            threadpool_limits(limits=limit):
        report = run_experiment(experiment, tmp, progress=progress)
        rows = report.results
    folds = _fold_table(rows)
    summary = _summarize(folds, methods)
    result = ComparisonResult(summary, folds, data, methods, cv, repeats, C, solver, random_state,
                              experiment=experiment)
    if out is not None:
        result.files = _write_outputs(result, out)
    summary.attrs.update({
        "dataset": data.dataset, "kernel": data.kernel, "kernel_params": dict(data.kernel_params),
        "n_samples": data.n_samples, "cv": cv, "repeats": repeats, "C": C,
        "files": list(result.files),
    })
    return result


def _fold_table(rows):
    """The runner's rows as the per-fold table (:data:`FOLD_COLUMNS`), in grid order."""
    df = rows.copy()
    for col in FOLD_COLUMNS:
        if col not in df.columns:
            df[col] = np.nan
    df["error"] = df["error"].fillna("").astype(str)
    df["warnings"] = df["warnings"].fillna("").astype(str)
    return df[FOLD_COLUMNS].reset_index(drop=True)


def compare(dataset="sonar", kernel=None, kernel_params=None, methods=None, cv=5, repeats=1,
            C=1.0, solver=None, random_state=0, out=None, progress=True, n_samples=None,
            binary=None):
    """Cross-validate registered methods on one data set with one (indefinite) kernel.

    The kernel matrix is computed once (see :mod:`krein.kernel_data` for the
    per-fold exceptions); each repeat ``r`` is a stratified ``cv``-fold split
    (:func:`krein.experiment.outer_splits` of an experiment with
    ``seed=random_state``), the SAME for every method; each method is
    :func:`krein.experiment.build_estimator` ``(name, {"C": C}, solver)``
    (``C`` for the methods that have it, ``solver`` if given), fitted on the
    training block and scored on the test rows.  A method that raises is
    recorded as an error, not a crash.

    Parameters
    ----------
    dataset : str
        A name from :func:`krein.datasets.available_datasets`: a shipped vector data set,
        standardized with ``scale="standard"`` (zero mean, unit variance per
        feature over all rows; with ``"pick-out-munoz-ionosphere"`` raw by
        default, see its ``scale`` parameter); a dissimilarity data set; or
        ``"checkerboard"`` (``make_checkerboard(n_samples or 300, overlap=0.1,
        random_state=random_state)``, also standardized); or
        ``"munoz-artificial"`` (``make_munoz_artificial(n_samples or 400,
        random_state=random_state)``, raw coordinates, default kernel
        ``"pick-out-linear"``, built per fold from the training labels).
    kernel : str, optional
        Vector data: a name from :data:`krein.kernels.KERNELS` (default
        ``"sigmoid"``) or a pick-out kernel of
        :data:`krein.kernel_data.PICK_OUT_KERNELS`
        (``"pick-out-munoz-ionosphere"``: the twelve normalized kernels of
        Munoz & de Diego §4.2, combined by pick-out instead of the paper's KWS).
        Dissimilarity data: ``"dissimilarity-linear"``
        (``-1/2 J D^2 J``, the default), ``"dissimilarity-raw"`` (``K = D``,
        Loosli et al. Table 3) or ``"dissimilarity-gaussian"``.
    kernel_params : dict, optional
        Kernel parameters; missing ones get
        :func:`krein.kernel_data.default_kernel_params` (sigmoid: ``a = 4 /
        n_features``, ``r = -2``).
    methods : list of str, optional
        Names of classifiers from :func:`krein.list_methods` (a string is split
        at commas); default the classifiers registered with ``compare=True``
        (``list_methods(task="classifier", compare=True)``).
    cv : int >= 2
        Number of folds.
    repeats : int >= 1
        Number of repetitions of the K-fold split (different shuffles).
    C : float > 0
        Box bound / slack weight passed to every method.
    solver : str, optional
        ``"libsvm"`` or an installed CVXPY solver, passed to the methods that
        have a ``solver`` parameter (a method that rejects it records errors).
    random_state : int >= 0
        The experiment's seed: the folds of every repeat, the synthetic data
        and an ``n_samples`` subsample derive from it
        (:func:`krein.experiment.cell_seed`).
    out : str or path-like, optional
        Directory (created if needed) for ``compare_<dataset>.csv`` (summary),
        ``compare_<dataset>_folds.csv`` (every cell), ``compare_<dataset>.png``
        (accuracy mean ± std per method) and, for 2-D vector data,
        ``compare_<dataset>_boundaries.png`` (decision boundaries of every
        method trained on all the data, as Loosli et al. 2013 Fig. 3).  Files
        are written atomically (temporary file, then ``os.replace``).
    progress : bool
        Show a tqdm progress bar over the (repeat, fold, method) cells (stderr).
    n_samples : int, optional
        Size of a synthetic data set, or a stratified subsample of a shipped one.
    binary : optional
        Binary task of the data set (see :func:`krein.kernel_data.load_kernel_data`).

    Returns
    -------
    pandas.DataFrame
        One row per method with columns ``method``, ``accuracy_mean``,
        ``accuracy_std`` (sample standard deviation over the repeat x fold cells),
        ``fit_seconds_mean``, ``n_support_mean`` (``len(est.support_)``: support
        or expansion vectors), ``r_mm_mean``, ``r_neg_mean`` (Munoz & de Diego
        eq. 2 of the training block, in percent, averaged over folds),
        ``min_eigenvalue_mean`` (least eigenvalue of the
        training kernel block, averaged over folds) and ``n_errors``.
        ``attrs`` holds the data set, kernel, parameters used and the files written.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument and the accepted values, before
        any model is fitted: unknown data set, kernel, kernel parameter, method or
        solver, ``C <= 0``, ``cv < 2`` or more folds than the smallest class.

    See Also
    --------
    run_comparison : the same, returning the per-fold table and diagnostics too.

    Examples
    --------
    >>> from krein.compare import compare
    >>> table = compare("checkerboard", kernel_params={"a": 1.0, "r": -0.5}, n_samples=80,
    ...                 methods=["esvm", "clip"], cv=3, progress=False)  # doctest: +SKIP
    """
    return run_comparison(dataset, kernel, kernel_params, methods, cv, repeats, C, solver,
                          random_state, out, progress, n_samples, binary).summary


# --------------------------------------------------------------------------- output files
def _write_outputs(result, out):
    out = os.fspath(out)
    os.makedirs(out, exist_ok=True)
    name = result.data.dataset
    files = []
    files.append(atomic_write(os.path.join(out, f"compare_{name}.csv"),
                              lambda p: result.summary.to_csv(p, index=False)))
    files.append(atomic_write(os.path.join(out, f"compare_{name}_folds.csv"),
                              lambda p: result.folds.to_csv(p, index=False)))
    files.append(save_png(_accuracy_figure(result), os.path.join(out, f"compare_{name}.png"),
                          dpi=120, colors=None))
    if result.data.X is not None and result.data.X.shape[1] == 2:
        files.append(save_png(_boundary_figure(result),
                              os.path.join(out, f"compare_{name}_boundaries.png"), colors=None))
    return files


def _kernel_label(data):
    params = ", ".join(f"{k}={_fmt(v)}" for k, v in data.kernel_params.items())
    return f"{data.kernel}({params})" if params else data.kernel


def _fmt(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _accuracy_figure(result):
    s = result.summary
    data = result.data
    fig = new_figure((max(5.0, 0.75 * len(s) + 2.0), 4.0))
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(s))
    mean = s["accuracy_mean"].to_numpy(dtype=float)
    std = np.nan_to_num(s["accuracy_std"].to_numpy(dtype=float))
    colors = ["tab:red" if e else "tab:blue" for e in s["n_errors"]]
    ax.bar(x, np.nan_to_num(mean), yerr=std, capsize=3, color=colors, alpha=0.85)
    _, counts = data.classes
    ax.axhline(counts.max() / counts.sum(), color="grey", ls="--", lw=1, label="majority class")
    ax.set_xticks(x)
    ax.set_xticklabels(s["method"], rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (mean ± std)")
    ax.set_title(f"{data.dataset} (n={data.n_samples}), {_kernel_label(data)}\n"
                 f"{result.cv}-fold CV x {result.repeats}, C={result.C:g}", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def _boundary_figure(result, grid=120):
    """Decision regions of every method trained on all the data (Loosli et al. 2013, Fig. 3)."""
    data = result.data
    X, y = data.X, data.y
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    g0 = np.linspace(lo[0] - pad[0], hi[0] + pad[0], grid)
    g1 = np.linspace(lo[1] - pad[1], hi[1] + pad[1], grid)
    G0, G1 = np.meshgrid(g0, g1)
    grid_points = np.column_stack([G0.ravel(), G1.ravel()])
    rows = data.rows(grid_points)
    stacked_rows = None
    classes = np.unique(y)
    m = len(result.methods)
    ncol = min(m, 3 if m <= 9 else 4)
    nrow = int(np.ceil(m / ncol))
    fig = new_figure((3.2 * ncol, 3.0 * nrow))
    for i, name in enumerate(result.methods):
        ax = fig.add_subplot(nrow, ncol, i + 1)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = build_estimator(name, {"C": result.C} if _has_c(name) else {}, result.solver)
                K_all, R = data.K, rows
                if data.base_kernels is not None and accepts_stacked_kernels(est):
                    if stacked_rows is None:
                        stacked_rows = data.rows(grid_points, stacked=True)
                    K_all, R = data.stacked_kernel(), stacked_rows
                est.fit(K_all, y)
                pred = est.predict(R)
                acc = float(np.mean(est.predict(K_all) == y))
            Z = np.searchsorted(classes, pred).reshape(G0.shape)
            ax.contourf(G0, G1, Z, levels=np.arange(len(classes) + 1) - 0.5, cmap="coolwarm",
                        alpha=0.35)
            if len(classes) == 2:
                ax.contour(G0, G1, Z, levels=[0.5], colors="k", linewidths=0.8)
            title = f"{name} (train acc {100 * acc:.0f}%)"
        except Exception as exc:
            ax.text(0.5, 0.5, error_text(exc)[:80], ha="center", va="center", wrap=True,
                    fontsize=7, transform=ax.transAxes)
            title = f"{name} (failed)"
        ax.scatter(X[:, 0], X[:, 1], c=np.searchsorted(classes, y), cmap="coolwarm", s=8,
                   edgecolors="k", linewidths=0.3)
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"{data.dataset} (n={data.n_samples}), {_kernel_label(data)}, C={result.C:g}",
                 fontsize=10)
    fig.tight_layout()
    return fig


def _has_c(name):
    return "C" in build_estimator(name).get_params(deep=False)
