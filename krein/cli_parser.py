"""The ``krein`` command line's parser: options, their parsing, and one-line usage errors.

:func:`build_parser` builds the argparse tree of ``krein compare | diagnose |
report | solvers | methods | datasets | experiment run/table/plot``; the
``parse_*`` functions turn option text into the arguments of the library
functions the commands call (:mod:`krein.cli`).  Bad input is one line on
stderr naming the option, exit status 2 (:func:`fail`).  Nothing here computes
or writes a file.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["FLAGS", "DEFAULT_OUT", "DEFAULT_N_JOBS", "UsageError", "fail", "one_line",
           "parse_kernel_params", "parse_binary", "parse_grid", "parse_methods", "parse_names",
           "data_kwargs", "build_parser"]

#: Command-line option of each argument of :func:`krein.compare.compare`.
FLAGS = {
    "dataset": "--dataset",
    "kernel": "--kernel",
    "kernel_params": "--kernel-params",
    "methods": "--methods",
    "cv": "--cv",
    "outer_folds": "--cv",
    "repeats": "--repeats",
    "C": "--C",
    "solver": "--solver",
    "n_samples": "--n-samples",
    "binary": "--binary",
    "random_state": "--seed",
    "kernel_file": "--kernel-file",
    "labels": "--labels",
    "dissimilarity": "--dissimilarity",
    "symmetrize": "--symmetrize",
    "names": "--names",
    "edge_list": "--edge-list",
    "edge_columns": "--edge-columns",
    "missing": "--missing",
    "data_file": "--data",
    "data": "--data",
    "label_column": "--label-column",
    "test_kernel_file": "--test-kernel-file",
    "landmarks": "--landmarks",
    "test_labels": "--test-labels",
    "test_data_file": "--test-data",
    "grid": "--grid",
    "inner_folds": "--inner-folds",
    "validation_fraction": "--validation-fraction",
    "grid_extension": "--grid-extension",
    "task": "--task",
    "scheduler": "--dask",
    "n_jobs": "--n-jobs",
    "blas_threads": "--blas-threads",
    "out": "--out",
    "approximation": "--approximation",
    "resume": "--resume",
    "force": "--force",
}

DEFAULT_OUT = "krein-results"

#: Worker processes of ``krein compare`` by default: the cores of this machine, at most 4.
DEFAULT_N_JOBS = max(1, min(4, os.cpu_count() or 1))


class UsageError(Exception):
    """Bad command-line input: reported on one line, exit status 2.

    Parameters
    ----------
    option : str or None
        The option at fault (e.g. ``"--grid"``), put before the message.
    message : str
        What is wrong and what is accepted.
    """

    def __init__(self, option, message):
        super().__init__(f"{option}: {message}" if option else message)


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message):
        fail(self.prog, message)


def one_line(text):
    """Text on one line: every run of whitespace, newlines included, made one space.

    Parameters
    ----------
    text : object
        Anything; its ``str`` is used (e.g. an exception).

    Returns
    -------
    str
        The text on one line.
    """
    return " ".join(str(text).split())


def fail(prog, message):
    """Report bad input on one line of stderr and exit with status 2.

    Parameters
    ----------
    prog : str
        The command, e.g. ``"krein compare"``.
    message : str
        What is wrong (put on one line).

    Raises
    ------
    SystemExit
        Always, with status 2.
    """
    sys.stderr.write(f"{prog}: error: {one_line(message)}\n")
    sys.exit(2)


# --------------------------------------------------------------------------- parsing helpers
def _scalar(text):
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t


def parse_kernel_params(text):
    """Parse ``--kernel-params`` text ``"k=v,k=v"`` into a dict.

    Values are read as int, then float, then ``true``/``false``/``none``, else
    kept as strings (e.g. ``metric=l1``).

    Parameters
    ----------
    text : str or None
        Comma-separated ``name=value`` pairs; empty or None gives ``{}``.

    Returns
    -------
    dict
        ``{name: value}`` with the values converted as above (``"gamma=0.5"``
        gives ``{"gamma": 0.5}``).

    Raises
    ------
    UsageError
        On an item without ``=``, an empty name or value, or a repeated name.
    """
    if text is None or not text.strip():
        return {}
    params = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value or not key.isidentifier():
            raise UsageError("--kernel-params", f"bad item {item!r}; expected name=value pairs "
                                                "separated by commas, e.g. a=0.1,r=-1")
        if key in params:
            raise UsageError("--kernel-params", f"parameter {key!r} given twice")
        params[key] = _scalar(value)
    return params


def parse_binary(text):
    """Parse ``--binary``: ``"paper"`` or ``"POS:NEG"`` (each side comma-separated labels).

    Parameters
    ----------
    text : str or None
        The ``--binary`` argument: ``"paper"`` (case-insensitive), ``"POS:NEG"``,
        or None when the option is not given.

    Returns
    -------
    None, "paper" or tuple
        None for None, ``"paper"`` for ``"paper"``, else ``(pos, neg)``: ``"3:5"``
        gives ``(3, 5)``; ``"1,2:3"`` gives ``((1, 2), 3)``.

    Raises
    ------
    UsageError
        On any other syntax.
    """
    if text is None:
        return None
    t = text.strip()
    if t.lower() == "paper":
        return "paper"
    pos, sep, neg = t.partition(":")
    sides = []
    for side in (pos, neg):
        labels = [_scalar(v) for v in side.split(",") if v.strip()]
        if not labels:
            sides = None
            break
        sides.append(labels[0] if len(labels) == 1 else tuple(labels))
    if not sep or sides is None:
        raise UsageError("--binary", f"bad value {text!r}; expected 'paper' or POS:NEG with "
                                     "comma-separated labels per side, e.g. 3:5 or 1,2:3")
    return tuple(sides)


def parse_methods(text):
    """Parse ``--methods``: comma-separated method names.

    Parameters
    ----------
    text : str or None
        The ``--methods`` argument, or None when the option is not given.

    Returns
    -------
    list of str or None
        The names (spaces stripped, empty items dropped); None for None.

    Raises
    ------
    UsageError
        When no name is given (the message lists the registered methods).
    """
    if text is None:
        return None
    names = [m.strip() for m in text.split(",") if m.strip()]
    if not names:
        from .registry import list_methods

        raise UsageError("--methods", f"no method given; registered: {', '.join(list_methods())}")
    return names


def parse_names(text):
    """Parse a comma-separated list of names (``--rows``, ``--columns``).

    Parameters
    ----------
    text : str or None
        The option's argument, or None when it is not given.

    Returns
    -------
    list of str or None
        The names, spaces stripped and empty items dropped; None for None.
    """
    if text is None:
        return None
    names = [t.strip() for t in text.split(",") if t.strip()]
    return names


def _add_script_option(p, what):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--script", default=None, metavar="PATH",
                   help=f"run this experiment script's own {what} function (e.g. "
                        f"experiments/NAME.py; it is imported and executed: only a script you "
                        f"trust). Without it the {what} come from the data alone: the script "
                        f"named in experiment.json is never run")
    g.add_argument("--no-script", action="store_true",
                   help="the default (kept for compatibility): run no script")


def _add_experiment_parser(sub, commands):
    p = sub.add_parser("experiment", help="run a declared experiment grid; tables and figures",
                       description="Run the cells of an experiment script (experiments/NAME.py) "
                       "with resume (finished cells are skipped), in parallel (joblib) or on a "
                       "Dask cluster; make paper-style tables and figures from its results file.")
    esub = p.add_subparsers(dest="experiment_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    r = esub.add_parser("run", help="run an experiment script (resumes where it stopped)",
                        description="Run every cell of the script's grid not yet in "
                        "DIR/results.csv; each finished cell is written at once (atomically). "
                        "Kill it at any time and rerun: nothing finished is recomputed.")
    r.add_argument("script", metavar="SCRIPT", help="experiment script, e.g. "
                   "experiments/loosli_table2.py")
    r.add_argument("--quick", action="store_true", help="the shrunken grid (seconds)")
    r.add_argument("--n-jobs", type=int, default=1, metavar="N",
                   help="parallel joblib workers (-1: all cores; default 1)")
    r.add_argument("--blas-threads", default=None, metavar="auto|N|default",
                   help="BLAS threads per fit: auto (default: one on kernels of at most 300 objects and in solver loops on at most 2000, threaded BLAS only spins there; the library default elsewhere), N (at most N), or default (no limit); also read from $KREIN_BLAS_THREADS")
    r.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on a Dask cluster, e.g. tcp://127.0.0.1:8786 (pip install "
                        "\"krein[dask]\")")
    r.add_argument("--out", default=None, metavar="DIR",
                   help="results directory (default results/NAME, results/NAME-quick with "
                        "--quick)")
    r.add_argument("--retry-errors", action="store_true",
                   help="recompute the cells recorded with status=error")
    r.add_argument("--format", default="markdown", choices=["markdown", "latex", "csv"],
                   help="format of the table printed and written to DIR/table.* "
                        "(default markdown)")
    r.add_argument("--figures", default=None, metavar="DIR",
                   help="directory for the figures (default DIR/figures)")
    r.add_argument("--no-table", action="store_true", help="no table")
    r.add_argument("--no-figures", action="store_true", help="no figures")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.set_defaults(func=commands["experiment run"])

    t = esub.add_parser("table", help="paper-style table from a results file",
                        description="Mean (std) of a metric per setting and method, best per "
                        "row marked, from the data files of RESULTS alone (with the table "
                        "arguments recorded in its experiment.json). Nothing in a results "
                        "directory is run: the experiment script's own table function runs only "
                        "with --script PATH. A damaged or inconsistent results.csv is refused "
                        "(exit 2, the file and line named).")
    t.add_argument("results", metavar="RESULTS", help="results.csv or its directory")
    t.add_argument("--format", default="markdown", choices=["markdown", "latex", "csv"],
                   help="output format (default markdown)")
    t.add_argument("--value", default=None, metavar="COLUMN",
                   help="metric column (default accuracy, or the experiment's)")
    t.add_argument("--rows", default=None, metavar="A,B",
                   help="columns identifying a row (default: the varying settings)")
    t.add_argument("--columns", default=None, metavar="A,B",
                   help="columns identifying a table column (default method)")
    t.add_argument("--output", default=None, metavar="FILE", help="write to FILE, not stdout")
    _add_script_option(t, "table")
    t.set_defaults(func=commands["experiment table"])

    f = esub.add_parser("plot", help="figures from a results file",
                        description="Accuracy per method, accuracy vs least eigenvalue (Loosli "
                        "et al. Figs. 6-7), training time vs n (Fig. 5), gap vs iteration (Luss "
                        "& d'Aspremont Fig. 1): each one the results support, from the data "
                        "files alone. Nothing in a results directory is run: the experiment "
                        "script's own figures function runs only with --script PATH. A damaged "
                        "or inconsistent results.csv is refused (exit 2, the file and line "
                        "named).")
    f.add_argument("results", metavar="RESULTS", help="results.csv or its directory")
    f.add_argument("--out", default=None, metavar="DIR",
                   help="directory for the PNG files (default: next to the results, "
                        "RESULTS/figures for a results directory, FILE-figures beside another "
                        "results file)")
    _add_script_option(f, "figures")
    f.set_defaults(func=commands["experiment plot"])


# --------------------------------------------------------------------------- parser
def _add_data_args(p):
    p.add_argument("--dataset", default="sonar", metavar="NAME",
                   help="bundled data set (see 'krein datasets'; default sonar, standardized)")
    p.add_argument("--kernel-file", default=None, metavar="PATH",
                   help="your own kernel matrix (or, with --dissimilarity, distances): .npy, "
                        ".npz (FILE.npz:KEY names an array), .csv, whitespace .txt, MATLAB .mat "
                        "(FILE.mat:KEY); needs --labels")
    p.add_argument("--labels", default=None, metavar="PATH",
                   help="labels of --kernel-file, one per line (any values: strings are kept; "
                        "a header line such as 'label' or 'class' is skipped), or a table "
                        "name,label matched to the matrix's object names")
    p.add_argument("--dissimilarity", action="store_true",
                   help="--kernel-file holds dissimilarities (zero diagonal, non-negative); the "
                        "kernel is built by --kernel (default dissimilarity-linear)")
    p.add_argument("--symmetrize", nargs="?", const="mean", default=False,
                   choices=("mean", "max", "min"),
                   help="accept an asymmetric --kernel-file and use (K + K')/2 (mean, the "
                        "default), max(K, K') or min(K, K') (recorded); for an edge list how "
                        "the two scores of a pair are combined (default mean)")
    p.add_argument("--names", default=None, choices=("auto", "header", "index", "both", "none"),
                   help="where a text --kernel-file holds its object names: a header row, an "
                        "index column, both, none (default auto: detected); row and column "
                        "names must agree, and labels given as name,label are matched by name")
    p.add_argument("--edge-list", dest="edge_list", action="store_true", default=None,
                   help="--kernel-file is an edge list, one scored pair 'name_a name_b score' "
                        "per line (detected when its first two columns are not numbers)")
    p.add_argument("--edge-columns", dest="edge_columns", default=None, metavar="A,B,S",
                   help="columns (from 1) of an edge list's two names and score (default 1,2,3; "
                        "1,2,12 for the bitscore of BLAST/DIAMOND -outfmt 6)")
    p.add_argument("--missing", type=float, default=None, metavar="VALUE",
                   help="value of a pair an edge list does not hold (default 0 for similarities; "
                        "required for dissimilarities with missing pairs)")
    p.add_argument("--data", default=None, metavar="PATH",
                   help="your own feature vectors: CSV or whitespace text with the label in a "
                        "column, or LIBSVM/svmlight format; standardized, kernel from --kernel")
    p.add_argument("--label-column", default=None, metavar="NAME",
                   help="label column of --data: a header name or an index (default: the last)")
    p.add_argument("--kernel", default=None, metavar="NAME",
                   help="kernel: linear, gaussian/rbf, sigmoid/tanh, epanechnikov, "
                        "pick-out-linear, pick-out-gaussian, pick-out-munoz-ionosphere (the 12 "
                        "normalized kernels of Munoz & de Diego §4.2, pick-out instead of KWS; "
                        "raw features unless scale=minmax|standard) for vector data (default "
                        "sigmoid; pick-out-linear for munoz-artificial); dissimilarity-linear "
                        "(default), dissimilarity-raw (K = D, Loosli et al. Table 3) or "
                        "dissimilarity-gaussian for dissimilarity data; precomputed for "
                        "--kernel-file and the similarity sets (their only kernel)")
    p.add_argument("--kernel-params", default=None, metavar="K=V,K=V",
                   help="kernel parameters, e.g. a=0.1,r=-1 (default: scaled to the data; sigmoid "
                        "a=4/n_features, r=-2)")
    p.add_argument("--n-samples", type=int, default=None, metavar="N",
                   help="synthetic set size (checkerboard 300, munoz-artificial 400 by default), "
                        "or a stratified subsample of a real set")
    p.add_argument("--binary", default=None, metavar="POS:NEG",
                   help="binary task: 'paper' (dissimilarity sets) or POS:NEG labels, e.g. 3:5")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="random seed of the folds, checkerboard, subsample and estimators "
                        "(default 0)")


def _label_column(text):
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def data_kwargs(args):
    """The data arguments of :func:`krein.compare.run_comparison` from the parsed options.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``krein compare`` or ``krein diagnose``.

    Returns
    -------
    dict
        ``dataset``, ``kernel_file``, ``labels``, ``dissimilarity``,
        ``symmetrize``, ``data_file`` and ``label_column`` (an index when it
        reads as an integer, else a header name); for ``krein compare`` also
        the predefined test part: ``test_kernel_file``, ``test_labels`` and
        ``test_data_file`` and the landmark rows ``landmarks``; the matrix's
        format ``names``, ``edge_list``, ``edge_columns``, ``missing`` (given
        only).
    """
    out = {"dataset": args.dataset, "kernel_file": args.kernel_file, "labels": args.labels,
           "dissimilarity": args.dissimilarity, "symmetrize": args.symmetrize,
           "data_file": args.data, "label_column": _label_column(args.label_column)}
    for name in ("test_kernel_file", "test_labels", "test_data_file", "landmarks", "names",
                 "edge_list", "edge_columns", "missing"):
        if getattr(args, name, None) is not None:
            out[name] = getattr(args, name)
    return out


def _add_test_args(p):
    """The predefined test part of ``krein compare`` (tuned on the training part, scored once)."""
    p.add_argument("--test-kernel-file", dest="test_kernel_file", default=None, metavar="PATH",
                   help="a predefined test part: the kernel (with --dissimilarity: distance) "
                        "rows of the test objects, one row per test object, one column per "
                        "object of --kernel-file in its order; needs --test-labels. The methods "
                        "are tuned by CV on --kernel-file and scored once on these rows")
    p.add_argument("--test-labels", dest="test_labels", default=None, metavar="PATH",
                   help="labels of --test-kernel-file, one per line")
    p.add_argument("--landmarks", default=None, metavar="PATH",
                   help="data too large for the n x n matrix: --kernel-file holds the n x m "
                        "kernel values (with --dissimilarity: distances) of every object to m "
                        "landmark objects, and PATH their m row indices (one per line, from 0, in "
                        "the columns' order), so that the m x m landmark block is those rows; "
                        "every fit gets the signed Nystroem features of the columns, no n x n "
                        "array is formed (--test-kernel-file: the test objects' n_test x m "
                        "columns). A landmark in a test fold is only a column: its label is "
                        "never used")
    p.add_argument("--test-data", dest="test_data_file", default=None, metavar="PATH",
                   help="a predefined test part of --data: a feature file with the same columns "
                        "(scaled with the training rows' statistics)")


def parse_grid(items):
    """Parse ``--grid`` options: ``NAME=V1,V2,...``, several separated by ``;`` or repeated.

    Parameters
    ----------
    items : list of str or None
        The ``--grid`` arguments (the option may be given several times).

    Returns
    -------
    dict
        ``{name: [values]}`` with numbers converted (``"C=0.1,1,10"`` gives
        ``{"C": [0.1, 1.0, 10.0]}``); ``{}`` for None.

    Raises
    ------
    UsageError
        On an item without ``=``, an empty name or value list, or a repeated name.
    """
    grid = {}
    for text in items or []:
        for item in text.split(";"):
            item = item.strip()
            if not item:
                continue
            key, sep, values = item.partition("=")
            key = key.strip()
            vals = [_scalar(v.strip()) for v in values.split(",") if v.strip()]
            if not sep or not key.isidentifier() or not vals:
                raise UsageError("--grid", f"bad item {item!r}; expected NAME=V1,V2,... e.g. "
                                           "C=0.1,1,10 (several separated by ';' or --grid "
                                           "repeated)")
            if key in grid:
                raise UsageError("--grid", f"parameter {key!r} given twice")
            grid[key] = vals
    return grid


def _add_debug(p):
    """``--debug`` after the command too (``krein compare --debug``), as before it."""
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show the traceback of an unexpected error")


def build_parser(commands):
    """The argparse parser of the ``krein`` command.

    Parameters
    ----------
    commands : dict
        The function run by each command, by name: ``"compare"``,
        ``"diagnose"``, ``"report"``, ``"solvers"``, ``"methods"``,
        ``"datasets"``, ``"experiment run"``, ``"experiment table"``,
        ``"experiment plot"``; each takes the parsed options and returns the
        exit status.  The parser stores it as ``args.func``.

    Returns
    -------
    argparse.ArgumentParser
        A parser whose errors are one line on stderr and exit status 2.
    """
    from . import __version__

    parser = _Parser(prog="krein", description="Learning with indefinite kernels: compare "
                     "methods, diagnose kernels, list solvers and methods.")
    parser.add_argument("--version", action="version", version=f"krein {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("compare", help="cross-validate methods on one data set and kernel",
                       description="Cross-validate registered methods with the same folds. "
                       "Without arguments: standardized Sonar, a clearly indefinite sigmoid "
                       "kernel, every method, 5-fold CV.")
    _add_data_args(p)
    _add_test_args(p)
    p.add_argument("--task", default="classification",
                   choices=("classification", "regression", "novelty"),
                   help="classification (default: class labels, the classifiers); regression: "
                        "real-valued labels, the regressors (indefinite SVR, ESVR, Krein least "
                        "squares, kernel ridge on the flipped / clipped kernel, kernel k-NN), "
                        "K-fold CV, RMSE, MAE and R^2 (e.g. --dataset liver-drinks); novelty: "
                        "labels 1 (inlier) / -1 (outlier), the one-class methods fitted on the "
                        "inliers of each training fold, ROC AUC on the test fold, nothing tuned "
                        "(e.g. --dataset protein-similarity --binary 1:2,3,4)")
    p.add_argument("--methods", default=None, metavar="A,B,C",
                   help="comma-separated method names (default: every method of the task "
                        "registered for the main job; see 'krein methods')")
    p.add_argument("--cv", type=int, default=5, metavar="K",
                   help="number of folds (default 5; not with a predefined test part)")
    p.add_argument("--repeats", type=int, default=1, metavar="R",
                   help="repetitions of the K-fold split (default 1; not with a predefined test "
                        "part)")
    p.add_argument("-C", "--C", dest="C", type=float, default=None, metavar="VALUE",
                   help="a fixed SVM box bound / slack weight for every method, absolute "
                        "(default: tuned by inner CV over a grid relative to the kernel's scale; "
                        "1 with --no-tune)")
    p.add_argument("--grid", action="append", default=None, metavar="NAME=V1,V2",
                   help="override a grid of the inner CV, e.g. --grid C=0.01,1,100 --grid "
                        "rho=1,10 (method parameters for every method that has them; kernel "
                        "parameters such as a or gamma for the kernel); absolute values, where "
                        "the default grids of C, rho are relative to the kernel's scale s "
                        "(mean |K_ii|)")
    p.add_argument("--grid-extension", type=int, default=None, metavar="N",
                   help="the inner CV extends a grid whose end value wins by one step (its own "
                        "spacing, e.g. a decade of C) and searches again, at most N steps per "
                        "side, inside the feasible range (default 3 for the default grids, "
                        "--grid values searched as given; N given: every tuned parameter, "
                        "--grid included; 0: every grid as given)")
    p.add_argument("--no-tune", action="store_true",
                   help="no inner CV: every method at fixed values (--C or C = 1, the kernel "
                        "as given)")
    p.add_argument("--inner-folds", type=int, default=None, metavar="K",
                   help="folds of the inner CV that chooses the parameters (default 3; above "
                        "20000 objects per training part 1); 1: one stratified validation split "
                        "of each training part, the same for every method")
    p.add_argument("--validation-fraction", type=float, default=0.2, metavar="F",
                   help="the validation part's share of a training part when the inner "
                        "selection is one split (default 0.2)")
    p.add_argument("--solver", default=None, metavar="NAME",
                   help="libsvm or an installed CVXPY solver (see 'krein solvers'; liblinear "
                        "with --approximation); default: each method's own")
    p.add_argument("--approximation", default=None, metavar="nystroem:M",
                   help="data too large for the n x n kernel: every fit gets M-landmark signed "
                        "Nystroem features of the kernel (nystroem:M:kmeans++ spreads the "
                        "landmarks), no n x n array is formed; feature data only (a vector or "
                        "synthetic data set, --data); methods without an approximate path "
                        "(all but esvm, esvm-l, the spectrum corrections, ksvm) are skipped; "
                        "default solvers liblinear (ksvm: its low-rank interior point)")
    p.add_argument("--memory", default=None, metavar="SIZE",
                   help="refuse an exact kernel whose fit would hold more than SIZE (bytes, or "
                        "512M, 4G, ...; default: the memory available, or "
                        "KREIN_MEMORY_BUDGET)")
    p.add_argument("--n-jobs", type=int, default=None, metavar="N",
                   help=f"worker processes over the cells (default {DEFAULT_N_JOBS}: the cores "
                        "here, at most 4; -1: all cores)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run the cells on a Dask cluster, e.g. tcp://127.0.0.1:8786 (the same "
                        "tables as a local run; workers need krein and the data files at the "
                        "same paths; pip install \"krein[dask]\")")
    p.add_argument("--blas-threads", default=None, metavar="auto|N|default",
                   help="BLAS threads per fit: auto (default: one on kernels of at most 300 objects and in solver loops on at most 2000, threaded BLAS only spins there; the library default elsewhere), N (at most N), or default (no limit); also read from $KREIN_BLAS_THREADS")
    p.add_argument("--out", default=None, metavar="DIR",
                   help=f"output directory (default: a new ./{DEFAULT_OUT}/NAME[-N] per run); one "
                        "that holds an earlier comparison is refused without --force")
    p.add_argument("--force", action="store_true",
                   help="replace the files of an earlier comparison in --out (refused while "
                        "another run holds the directory)")
    p.add_argument("--resume", action="store_true",
                   help="finish an interrupted comparison in --out DIR: the cells already in "
                        "DIR/cells are reused (only the missing ones are computed; stderr says "
                        "how many were reused); refused when DIR was made by a different "
                        "comparison (other data, kernel, methods, folds, grid or seed)")
    p.add_argument("--no-save", action="store_true", help="write no files")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_debug(p)
    p.set_defaults(func=commands["compare"])

    p = sub.add_parser("diagnose", help="spectrum and geometry of a kernel on a data set",
                       description="Signature, least/largest eigenvalue, r_mm, r_neg and the "
                       "class-mean distance DCM of a kernel on a data set, then Haasdonk's (2005) "
                       "suitability criteria: before training (pE signature, cpd / negated cpd, "
                       "DCM) and after training a libsvm SVC on the kernel (w'Mw, bounded "
                       "support vectors as a bound on the training error).")
    _add_data_args(p)
    p.add_argument("-C", "--C", dest="C", type=float, default=1.0, metavar="VALUE",
                   help="box bound C of the SVC fitted for the after-training criteria (default 1)")
    p.add_argument("--plot", default=None, metavar="PNG",
                   help=f"where to draw the spectrum (default ./{DEFAULT_OUT}/spectrum-NAME.png)")
    p.add_argument("--no-plot", action="store_true", help="no spectrum plot")
    _add_debug(p)
    p.set_defaults(func=commands["diagnose"])

    p = sub.add_parser("report", help="rebuild the report page of a comparison from its files",
                       description="Rebuild report.html and its figures in a directory written "
                       "by 'krein compare', from its CSV and JSON files alone.")
    p.add_argument("directory", metavar="DIR", help="the comparison's output directory")
    _add_debug(p)
    p.set_defaults(func=commands["report"])

    p = sub.add_parser("solvers", help="installed CVXPY solvers and the problem classes they take")
    p.set_defaults(func=commands["solvers"])
    p = sub.add_parser("methods", help="list the method registry")
    p.add_argument("--large-data", action="store_true",
                   help="for each method, its path on large data (landmark columns, "
                        "--approximation nystroem:M) or why it has none")
    p.set_defaults(func=commands["methods"])
    p = sub.add_parser("datasets", help="list the data sets")
    p.set_defaults(func=commands["datasets"])
    _add_experiment_parser(sub, commands)
    return parser

