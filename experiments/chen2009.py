"""Chen et al. (2009): the similarity benchmark's protocol on every krein method and baseline.

Chen, Garcia, Gupta, Rahimi & Cazzanti, "Similarity-based classification:
concepts and algorithms", JMLR 10:747-776 (2009), compare similarity-based
classifiers on 20 random stratified 80/20 training/test partitions of each data
set, every method's parameters chosen by cross-validation on the training part,
and report the test error (mean and standard deviation over the 20 partitions).
Here the same protocol runs every method of the default ``krein compare`` and
the similarity baselines on:

* the four sets of the benchmark bundled with krein (catalogue kind
  ``"similarity"``; :func:`krein.datasets.load_similarity`): ``aural-sonar``
  (100 objects, 2 classes), ``protein-similarity`` (213, 4 classes),
  ``voting`` (435, 2 classes), ``yeast`` (200, 2 classes); kernel
  ``"precomputed"``: ``K = S``, the similarity matrix as published (symmetric,
  unit diagonal), its test rows ``S(test, train)``;
* the bundled Delft dissimilarity sets ``catcortex`` (65, 4 classes),
  ``balls3d`` (200, 2), ``newsgroups`` (600, 4), ``protein`` (213, 4), all
  objects and all classes as ``krein compare --dataset NAME`` loads them;
* ``coilyork`` (graph distances, 144 training and 144 test objects, 2 classes)
  with its OWN predefined split: one split, the parameters chosen by inner CV
  on the training part, scored once on the test part (Chen et al.'s 20
  partitions do not apply to a set that comes with its split).

Choices, each stated:

* **kernel of the dissimilarity sets**: ``"dissimilarity-linear"``, the
  classical-scaling similarity ``K = -1/2 J D^2 J`` (Pekalska & Duin 2005),
  centered on the TRAINING objects of each split (the test rows with the
  training centering), not ``K = D`` of ``experiments/loosli_table3.py``.
  Loosli et al. (2013, Table 3) train on the dissimilarities themselves; there
  a distance is used as a similarity (large = far), so the SVMs on the
  flipped/clipped/shifted kernels score far below chance (0.1-8 % accuracy on
  Protein in the paper, 6-41 % in our Table 3, 12-36 % on NewsGroups), which
  measures the sign convention rather than the methods.  A similarity
  benchmark compares methods on a similarity, and ``dissimilarity-linear`` is
  krein's default for these sets.
* **grids**: every method's default grid relative to the scale of the data
  set's kernel, ``default_grid(method, scale=kernel_scale(K))``
  (:func:`krein.registry.default_grid`, :func:`krein.kernels.kernel_scale`),
  with ``K`` the kernel on all objects of the set (for coilyork: its training
  part).  The scale is a label-free statistic of the matrix; computing it once
  per set rather than per split keeps one grid per set (values rounded to 4
  significant digits so that the cell keys do not depend on the last bits of a
  floating-point sum).  The scale parameters a method does not tune move
  with the same scale (``scaled_defaults(method, scale)``,
  :func:`krein.registry.scaled_defaults`: ``nearest-psd``'s fixed diagonal
  ``1 * s`` and its ``correction__C``, ``bending``'s ``correction__C = 1 / s``),
  as in ``krein compare``.
* **inner CV**: stratified 3-fold on each training part (``krein compare``'s
  default).  The inner scheme of Chen et al. could not be checked (the
  paper's text was not reachable, see :data:`PAPER_ERRORS`).
* **splits**: ``StratifiedShuffleSplit(n_splits=20, test_size=0.2)`` seeded
  from the experiment's seed (``classification_grid(...,
  outer_split="shuffle")``); every method sees the same 20 partitions of a set,
  so the comparisons are paired.  Cells run split by split (all methods of
  split 0 first), so a stopped run still compares every method on the splits
  it finished.
* **cost** (CPU seconds per cell: experiments/README.md, "Cost"): with every
  default grid about 6 500 CPU s on two cores (``--n-jobs 2``), NewsGroups a
  third of it and IndefiniteSVM the slowest method on every set (29 s per
  NewsGroups split).  So IndefiniteSVM tunes C at the middle rho of its
  scaled grid (:data:`GRID_REDUCTIONS`: 3 inner fits per fold instead of 9,
  half its time); every method still runs on every split of every set.
  CH-DU on balls3d (75 s per split) is the costliest cell; 3 starts instead
  of 10 would save only a fifth of it and change its choice, so it keeps its
  defaults.
* **statistics**: per data set the mean and standard deviation of the test
  error (%) over the splits; across data sets the average rank of each method
  (rank 1 = lowest error; ties share the average rank), the Friedman test and
  the Nemenyi critical difference at alpha = 0.05 (Demsar, JMLR 7:1-30, 2006),
  from :mod:`krein.experiment.statistics` (``average_ranks``,
  ``friedman_nemenyi``, ``cd_diagram``).  The ranks use every data set,
  coilyork's single split included, and the methods with a result on every
  data set (a method missing somewhere is named under the table).

``--quick``: aural-sonar (2 shuffle splits) and coilyork (its split), five
cheap methods, the first and last value of each grid, inner 2-fold CV --
seconds.

Run: ``krein experiment run experiments/chen2009.py [--quick] [--n-jobs 2]``;
table and figure: ``krein experiment table results/chen2009 --script
experiments/chen2009.py`` and ``krein experiment plot results/chen2009 --script
experiments/chen2009.py`` (the CD diagram ``chen2009_cd.png``); committed
results: ``experiments/results/chen2009.csv`` (``python experiments/chen2009.py
slim results/chen2009``).
"""

import math
import os
import sys

from krein.experiment import Experiment, classification_grid

_HERE = os.path.dirname(os.path.abspath(__file__))

#: The four data sets of Chen et al.'s benchmark (catalogue kind "similarity").
CHEN = ["aural-sonar", "protein-similarity", "voting", "yeast"]
#: The bundled Delft dissimilarity sets (20 shuffle splits each).
DELFT = ["catcortex", "balls3d", "newsgroups", "protein"]
#: The set with its own train/test split (one predefined split).
PREDEFINED = ["coilyork"]
#: Column order of the table: Chen's sets, the Delft sets, CoilYork.
DATASETS = CHEN + DELFT + PREDEFINED

#: Kernel of each group (module docstring).
KERNELS = {**dict.fromkeys(CHEN, "precomputed"),
           **dict.fromkeys(DELFT + PREDEFINED, "dissimilarity-linear")}

SPLITS = 20
TEST_SIZE = 0.2
INNER_FOLDS = 3
ALPHA = 0.05

#: The baselines every similarity paper reports, run besides the
#: methods of the default comparison when the registry does not already list them there.
BASELINES = ["knn", "weighted-knn", "similarity-linear", "similarity-rbf", "pe-nearest-mean"]

#: Cost reductions (method -> {parameter: index of the ONE value kept of its scaled default
#: grid}); the protocol stays (same splits, inner CV, grids around the kernel's scale).
#: IndefiniteSVM: rho at the middle of its grid (``1 * s**-3`` with ``s = kernel_scale(K)``),
#: C tuned over its 3 values: 3 inner fits per fold instead of 9 (the slowest method on
#: every set: 29 s of CPU per split on NewsGroups with the full grid; experiments/README.md,
#: "Cost").  loosli_table3.py fixes rho = 1 on its large sets the same way.
GRID_REDUCTIONS = {"indefinite-svm": {"rho": 1}}

#: Test errors (%) printed by Chen et al. (2009), ``{(data set, method): (mean, sd)}``.
#: EMPTY: the paper's tables are not available here.  In the reference corpora
#: searched: the JMLR page
#: (jmlr.org/papers/v10/chen09a) and the University of Washington report
#: UWEETR-2008-0005 are reachable as abstracts only, the JmlrOrg/v10 repository
#: holds the paper's metadata only, and no copy of the tables (k-NN, affinity
#: weighted k-NN, SVM-clip/flip/shift, SVM on similarities as features) was
#: found.  Fill this dict from the paper's tables (and name the table) to print
#: them beside ours.
PAPER_ERRORS = {}
#: Where PAPER_ERRORS comes from (printed under the table).
PAPER_SOURCE = ("Chen et al. (2009) could not be read here: no paper numbers beside ours "
                "(experiments/chen2009.py, PAPER_ERRORS)")


def default_methods():
    """Methods of the comparison: ``krein compare``'s defaults, then the missing baselines.

    Returns
    -------
    list of str
        The registry names of :func:`krein.registry.list_methods` with
        ``task="classifier", compare=True`` that need no input besides the
        kernel (:func:`krein.registry.method_requirements`: the conformal
        combinations need stacked base kernels, which these data sets do not
        have), in registration order, followed by the names of
        :data:`BASELINES` not among them.
    """
    from krein.registry import list_methods, method_requirements

    names = [m for m in list_methods(task="classifier", compare=True)
             if not method_requirements(m)]
    return names + [b for b in BASELINES if b not in names]


def _round(v):
    """A grid value to 4 significant digits (ints, e.g. ``n_neighbors``, unchanged)."""
    if isinstance(v, bool) or not isinstance(v, float) or v == 0 or not math.isfinite(v):
        return v
    return float(f"{v:.4g}")


def dataset_scale(dataset):
    """``kernel_scale`` of the data set's kernel on all its objects (coilyork: training part).

    Parameters
    ----------
    dataset : str
        A name of :data:`DATASETS`.

    Returns
    -------
    float
        :func:`krein.kernels.kernel_scale` of ``load_kernel_data(dataset,
        KERNELS[dataset]).K``, rounded to 4 significant digits.
    """
    from krein.kernel_data import load_kernel_data
    from krein.kernels import kernel_scale

    data = load_kernel_data(dataset, KERNELS[dataset])
    return _round(float(kernel_scale(data.K)))


def method_grid(method, scale, quick=False):
    """Inner-CV grid of a method on a data set whose kernel has scale ``scale``.

    Parameters
    ----------
    method : str
        Registry name.
    scale : float
        :func:`dataset_scale` of the data set.
    quick : bool
        Keep the first and last value of each parameter only.

    Returns
    -------
    dict
        ``default_grid(method, scale=scale)`` with values rounded to 4
        significant digits, reduced as :data:`GRID_REDUCTIONS` says.
    """
    from krein.registry import default_grid

    grid = {k: [_round(float(v)) if isinstance(v, float) else v for v in vals]
            for k, vals in default_grid(method, scale=scale).items()}
    for k, i in GRID_REDUCTIONS.get(method, {}).items():
        grid[k] = [grid[k][i]]
    if quick:
        grid = {k: (v if len(v) <= 2 else [v[0], v[-1]]) for k, v in grid.items()}
    return grid


def _cells(dataset, methods, quick=False):
    from krein.registry import scaled_defaults

    scale = dataset_scale(dataset)
    specs = []
    for m in methods:
        grid = method_grid(m, scale, quick)
        # untuned scale parameters on the kernel's scale, as krein compare places them
        fixed = {k: _round(v) for k, v in scaled_defaults(m, scale, exclude=grid).items()}
        specs.append({"method": m, "grid": grid, "params": fixed})
    kernel = [{"kernel": KERNELS[dataset]}]
    inner = 2 if quick else INNER_FOLDS
    if dataset in PREDEFINED:
        return classification_grid([dataset], specs, kernels=kernel, outer_split="predefined",
                                   outer_folds=1, inner_folds=inner, save_trace=False,
                                   order="fold")
    return classification_grid([dataset], specs, kernels=kernel, outer_split="shuffle",
                               outer_folds=2 if quick else SPLITS, test_size=TEST_SIZE,
                               inner_folds=inner, save_trace=False, order="fold")


# --------------------------------------------------------------------------- the table
def error_summary(results):
    """Test error (%) per method and data set: mean, standard deviation, number of splits.

    Parameters
    ----------
    results : pandas.DataFrame
        The results file (:func:`krein.experiment.read_results`): one row per
        cell with ``status``, ``dataset``, ``method`` and ``accuracy`` (the
        test accuracy of the split).

    Returns
    -------
    mean, sd, count : pandas.DataFrame
        Indexed by method, one column per data set (in :data:`DATASETS` order,
        then any other, in order of appearance): ``100 (1 - accuracy)``
        averaged over the rows with status ``"ok"``, its sample standard
        deviation (``ddof=1``; NaN for one split) and the number of such rows.
        Rows in method order of appearance.  Each split's accuracy is taken
        as ``round(accuracy * n_test) / n_test`` where ``n_test`` is known:
        the committed file rounds ``accuracy`` to six digits, and without this
        two methods with the same correct counts on every split got means
        that differed in the 8th digit, so the ranks broke their tie by
        round-off (Friedman p 0.0091 from the file, 0.0079 from the run).
    """
    import numpy as np

    ok = results[results["status"] == "ok"]
    acc = ok["accuracy"].astype(float)
    if "n_test" in ok:
        n_test = ok["n_test"].astype(float)
        acc = acc.where(n_test.isna(), np.round(acc * n_test) / n_test)
    err = 100.0 * (1.0 - acc)
    groups = err.groupby([ok["method"], ok["dataset"]], sort=False)
    seen_d = list(dict.fromkeys(ok["dataset"]))
    cols = [d for d in DATASETS if d in seen_d] + [d for d in seen_d if d not in DATASETS]
    rows = list(dict.fromkeys(ok["method"]))
    out = []
    for agg in ("mean", "std", "size"):
        frame = getattr(groups, agg)().unstack("dataset")
        out.append(frame.reindex(index=rows, columns=cols))
    return tuple(out)


def accuracy_table(results):
    """Mean test accuracy per data set (rows) and method (columns): the input of the ranks.

    Only the methods with a result on every data set of the results are kept
    (the Friedman test needs a complete table).

    Parameters
    ----------
    results : pandas.DataFrame
        As for :func:`error_summary`.

    Returns
    -------
    table : pandas.DataFrame
        Rows data sets, columns methods, values the mean accuracy (higher is
        better) over the splits, as exact fractions
        (:func:`krein.experiment.statistics.exact_mean` of each split's
        ``correct / n_test``): two methods with the same mean tie exactly in
        the ranks, however their correct predictions are spread over the
        splits.
    dropped : list of str
        Methods left out because they miss a data set.
    """
    import pandas as pd

    from krein.experiment.statistics import exact_accuracy, exact_mean

    mean, _, _ = error_summary(results)
    ok = results[results["status"] == "ok"]
    n_test = ok["n_test"] if "n_test" in ok else pd.Series(float("nan"), index=ok.index)
    split = [exact_accuracy(a, n) for a, n in zip(ok["accuracy"].astype(float), n_test)]
    exact = pd.Series(split, index=ok.index, dtype=object).groupby(
        [ok["method"], ok["dataset"]], sort=False).agg(exact_mean)
    acc = pd.DataFrame({m: {d: exact.get((m, d)) for d in mean.columns} for m in mean.index},
                       index=mean.columns, columns=mean.index, dtype=object)
    dropped = [m for m in acc.columns if acc[m].isna().any()]
    return acc.drop(columns=dropped), dropped


def rank_statistics(results, alpha=ALPHA):
    """Average ranks, Friedman test and Nemenyi CD across data sets (Demsar 2006).

    Parameters
    ----------
    results : pandas.DataFrame
        As for :func:`error_summary`.
    alpha : float
        Level of the Friedman test and the Nemenyi critical difference.

    Returns
    -------
    dict or None
        ``ranks`` (``average_ranks`` of :func:`accuracy_table`: rank 1 = the
        highest accuracy), from ``friedman_nemenyi``: ``chi2`` and ``p`` (the
        Friedman test), ``F`` and ``p_F`` (Iman & Davenport), ``cd`` (the
        Nemenyi critical difference); ``n_datasets``, ``n_methods``,
        ``dropped`` (:func:`accuracy_table`), ``alpha``; None with fewer than
        two data sets or three methods (the Friedman test needs three).
    """
    import pandas as pd

    from krein.experiment.statistics import average_ranks, friedman_nemenyi

    table, dropped = accuracy_table(results)
    if table.shape[0] < 2 or table.shape[1] < 3:
        return None
    ranks = pd.Series(average_ranks(table))
    res = friedman_nemenyi(table, alpha=alpha)
    out = {k: float(res[k]) for k in ("chi2", "p", "F", "p_F", "cd")}
    out.update(ranks=ranks, n_datasets=table.shape[0], n_methods=table.shape[1],
               dropped=dropped, alpha=alpha)
    return out


def status_summary(results):
    """What went wrong per method, counted over its cells (no silent "ok").

    Parameters
    ----------
    results : pandas.DataFrame
        The results file; uses ``status``, and where present ``warnings``
        (the refit's warnings), ``n_inner_failures`` and ``n_inner_warnings``.

    Returns
    -------
    pandas.Series of str
        Indexed by method (order of appearance): ``"ok"`` when every cell
        succeeded with no warning and no failed or warned inner fit, else the
        counts, e.g. ``"2 error cells; 15 inner fits failed"``.
    """
    import pandas as pd

    out = {}
    for m, g in results.groupby("method", sort=False):
        parts = []
        n_err = int((g["status"] != "ok").sum())
        if n_err:
            parts.append(f"{n_err} error cell{'s' * (n_err > 1)}")
        if "warnings" in g.columns:
            text = g["warnings"].fillna("").astype(str).str.strip()
            warned = int((~text.isin(["", "[]", "nan"]) & (g["status"] == "ok")).sum())
            if warned:
                parts.append(f"{warned} cell{'s' * (warned > 1)} warned")
        for col, label in (("n_inner_failures", "inner fits failed"),
                           ("n_inner_warnings", "inner fits warned")):
            if col in g.columns:
                v = int(pd.to_numeric(g[col], errors="coerce").fillna(0).sum())
                if v:
                    parts.append(f"{v} {label}")
        out[m] = "; ".join(parts) or "ok"
    return pd.Series(out, dtype=object)


def _cell(mean, sd, count):
    if count is None or not count or mean != mean:
        return "-"
    if count < 2 or sd != sd:
        return f"{mean:.1f}"
    return f"{mean:.1f} ± {sd:.1f}"


def format_table(mean, sd, count, ranks=None, summary_line=None, paper=None, status=None):
    """The README table: rows methods, columns data sets, test error (%) mean ± sd.

    Parameters
    ----------
    mean, sd, count : pandas.DataFrame
        Of :func:`error_summary`.
    ranks : pandas.Series, optional
        Average rank of each method (index method names); adds the column
        ``avg rank`` and sorts the rows by it (equal ranks in the registry's
        order, :func:`krein.experiment.statistics.tie_break_key`; methods
        without a rank last).
    summary_line : str, optional
        Appended as a last row (the Friedman / Nemenyi line), in the
        ``method`` column.
    paper : dict, optional
        ``{(data set, method): (mean, sd)}`` test errors (%) of the paper,
        printed in brackets after ours (default :data:`PAPER_ERRORS`).
    status : pandas.Series, optional
        :func:`status_summary`; adds the last column ``status``.

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, one per data set (header ``name (splits)`` with
        the largest number of splits of the column), ``avg rank`` and
        ``status`` (with ``ranks`` / ``status`` only); each
        entry ``mean ± sd`` (one split: the error alone; no result: ``-``).
    """
    import pandas as pd

    from krein.experiment.statistics import tie_break_key

    paper = PAPER_ERRORS if paper is None else paper
    methods = list(mean.index)
    if ranks is not None:
        ranks = pd.Series(ranks)
        methods.sort(key=lambda m: (m not in ranks.index, ranks.get(m, math.inf),
                                    tie_break_key(m)))
    rows = []
    heads = {d: f"{d} ({int(count[d].max()) if count[d].notna().any() else 0})"
             for d in mean.columns}
    for m in methods:
        row = {"method": m}
        for d in mean.columns:
            c = count.at[m, d]
            text = _cell(mean.at[m, d], sd.at[m, d], None if c != c else int(c))
            if (d, m) in paper:
                pm, ps = paper[(d, m)]
                text += f" ({pm:.1f} ± {ps:.1f})"
            row[heads[d]] = text
        if ranks is not None:
            row["avg rank"] = f"{ranks[m]:.2f}" if m in ranks.index else "-"
        if status is not None:
            row["status"] = status.get(m, "-")
        rows.append(row)
    if summary_line:
        rows.append({"method": summary_line})
    return pd.DataFrame(rows).fillna("")


def summary_line(stats):
    """One line: Friedman chi2 and p, the Nemenyi CD, the data sets and methods ranked."""
    if stats is None:
        return ("Friedman test: needs two data sets and three methods with results on all of "
                "them")
    line = (f"Friedman chi2 = {stats['chi2']:.2f}, p = {stats['p']:.2g}; Iman-Davenport F = "
            f"{stats['F']:.2f}, p = {stats['p_F']:.2g} ({stats['n_methods']} methods, "
            f"{stats['n_datasets']} data sets); Nemenyi CD (alpha {stats['alpha']:g}) = "
            f"{stats['cd']:.2f} ranks")
    if stats["dropped"]:
        line += "; not ranked (missing a data set): " + ", ".join(stats["dropped"])
    return line + ". " + PAPER_SOURCE if not PAPER_ERRORS else line


def chen2009_table(results):
    """The table hook: test error mean ± sd per data set, average ranks, Friedman/Nemenyi.

    Parameters
    ----------
    results : pandas.DataFrame
        The results file (:func:`krein.experiment.read_results`).

    Returns
    -------
    pandas.DataFrame
        :func:`format_table` with the ranks and the line of
        :func:`rank_statistics` (both from :mod:`krein.experiment.statistics`)
        and the :func:`status_summary` of each method.
    """
    mean, sd, count = error_summary(results)
    stats = rank_statistics(results)
    return format_table(mean, sd, count, ranks=None if stats is None else stats["ranks"],
                        summary_line=summary_line(stats), status=status_summary(results))


def chen2009_figures(results, out_dir):
    """The figure hook: ``chen2009_cd.png``, the Nemenyi critical-difference diagram.

    Parameters
    ----------
    results : pandas.DataFrame
        The results file.
    out_dir : str or path-like
        Folder of the figure.

    Returns
    -------
    list of pathlib.Path
        The figure written (none when :func:`rank_statistics` is None).
    """
    from pathlib import Path

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from krein._io import save_png
    from krein.experiment.statistics import cd_diagram

    stats = rank_statistics(results)
    if stats is None:
        return []
    fig = Figure(figsize=(8.0, 1.2 + 0.3 * stats["n_methods"]))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    cd_diagram(stats["ranks"], stats["cd"], ax=ax)
    ax.set_title(f"Chen et al. (2009) protocol: average ranks of the test error over "
                 f"{stats['n_datasets']} data sets; Friedman p = {stats['p']:.2g}, Nemenyi CD = "
                 f"{stats['cd']:.2f} (alpha {stats['alpha']:g})", fontsize=8)
    out = Path(out_dir) / "chen2009_cd.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=110)
    return [out]


def experiment(quick=False):
    """The grid (module docstring); ``quick`` shrinks it to seconds."""
    if quick:
        methods = ["esvm", "flip", "knn", "weighted-knn", "pe-nearest-mean"]
        grid = _cells("aural-sonar", methods, quick=True) + _cells("coilyork", methods, quick=True)
    else:
        methods = default_methods()
        grid = []
        for name in DATASETS:
            grid += _cells(name, methods)
    return Experiment("chen2009", grid, random_state=0,
                      description="Chen et al. 2009 protocol: 20 stratified 80/20 splits, "
                                  "inner CV; Chen's four similarity sets, the Delft sets, "
                                  "CoilYork's own split; every default method and baseline",
                      table=chen2009_table, figures=chen2009_figures)


# --------------------------------------------------------------------------- committed results
#: Columns of ``experiments/results/chen2009.csv`` (the tuned parameters ``best_*`` too).
KEEP = ["key", "status", "error", "dataset", "method", "repeat", "fold", "kernel", "n_train",
        "n_test", "accuracy", "train_accuracy", "inner_score", "fit_seconds", "select_seconds",
        "n_support", "n_iter", "min_eigenvalue", "solver_used", "solver_status", "gap",
        "n_inner_failures", "n_inner_warnings", "warnings", "test_correct", "version_krein"]


def slim(*directories):
    """Write ``experiments/results/chen2009.csv`` from run directories (each cell once).

    Parameters
    ----------
    *directories : str
        Results directories of ``krein experiment run experiments/chen2009.py``
        (parts run separately are concatenated; the last row of a key wins).

    Returns
    -------
    str
        The path written.
    """
    import pandas as pd

    from krein._io import atomic_write_bytes, csv_bytes
    from krein.experiment import read_results

    df = pd.concat([read_results(d) for d in directories], ignore_index=True)
    df = df.drop_duplicates("key", keep="last")
    keep = [c for c in KEEP if c in df.columns] + sorted(c for c in df.columns
                                                         if c.startswith("best_"))
    path = os.path.join(_HERE, "results", "chen2009.csv")
    atomic_write_bytes(path, csv_bytes(df[keep], index=False, float_format="%.6g"))
    return path


if __name__ == "__main__":
    if sys.argv[1:2] == ["slim"]:
        print(slim(*sys.argv[2:]))
    else:
        print("usage: python experiments/chen2009.py slim DIR [DIR ...]", file=sys.stderr)
        sys.exit(2)
