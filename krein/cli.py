"""Command-line interface: ``krein compare | diagnose | solvers | methods | datasets | experiment``.

``krein compare`` with no arguments cross-validates every registered method on
standardized Sonar with a clearly indefinite sigmoid kernel and prints the table::

    krein compare                                   # Sonar, sigmoid a=4/60, r=-2, 5-fold CV
    krein compare --dataset checkerboard --n-samples 200 --kernel-params a=1,r=-0.5
    krein compare --dataset catcortex --binary paper --kernel dissimilarity-linear
    krein compare --dataset munoz-artificial        # pick-out of two coordinate kernels
    krein compare --dataset ionosphere --kernel pick-out-munoz-ionosphere
                                                    # pick-out of Munoz & de Diego §4.2's
                                                    # 12 normalized kernels, raw features
    krein compare --dataset checkerboard --n-samples 100000 --approximation nystroem:1000 \
        --methods esvm,flip,clip,ksvm --cv 3        # Nystroem features, no n x n kernel
    krein diagnose --dataset sonar                  # signature, r_mm, r_neg, DCM
    krein solvers                                   # installed CVXPY solvers and problem classes
    krein methods                                   # the method registry
    krein experiment run experiments/loosli_table2.py --quick  # a declared grid, resumable
    krein experiment table results/loosli_table2-quick         # paper-style table
    krein experiment plot results/loosli_table2-quick          # PNGs next to the results

Bad input (unknown data set, kernel, method or solver, bad ``--kernel-params``,
``--C <= 0``, ``--cv < 2``...) prints one line naming the option and the accepted
values on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["main", "parse_kernel_params", "parse_binary", "parse_grid"]

#: Command-line option of each argument of :func:`krein.compare.compare`.
_FLAGS = {
    "dataset": "--dataset",
    "kernel": "--kernel",
    "kernel_params": "--kernel-params",
    "methods": "--methods",
    "cv": "--cv",
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
    "data_file": "--data",
    "data": "--data",
    "label_column": "--label-column",
    "grid": "--grid",
    "inner_folds": "--inner-folds",
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
    """Bad command-line input: reported on one line, exit status 2."""

    def __init__(self, option, message):
        super().__init__(f"{option}: {message}" if option else message)


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message):
        _fail(self.prog, message)


def _one_line(text):
    return " ".join(str(text).split())


def _fail(prog, message):
    sys.stderr.write(f"{prog}: error: {_one_line(message)}\n")
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


def _methods_list(text):
    if text is None:
        return None
    names = [m.strip() for m in text.split(",") if m.strip()]
    if not names:
        from .registry import list_methods

        raise UsageError("--methods", f"no method given; registered: {', '.join(list_methods())}")
    return names


# --------------------------------------------------------------------------- formatting
def _fmt_num(v, digits=4):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def _params_text(params):
    return ", ".join(f"{k}={_fmt_num(v)}" for k, v in params.items()) or "(none)"


def _data_lines(data):
    labels, counts = data.classes
    cls = ", ".join(f"{lab}: {c}" for lab, c in zip(labels.tolist(), counts.tolist()))
    if data.X is not None:
        shape = f"{data.n_samples} x {data.n_features} features"
    elif data.kind == "kernel":
        shape = f"{data.n_samples} x {data.n_samples} kernel matrix"
    else:
        shape = f"{data.n_samples} x {data.n_samples} dissimilarities"
    lines = [f"dataset: {data.dataset} ({data.kind}, {shape}; {data.description})"]
    if getattr(data, "source", ""):
        lines.append(f"source:  {data.source}")
    lines += [f"note:    {n}" for n in getattr(data, "notes", ())]
    lines += [
             f"classes: {cls}",
             f"kernel:  {data.kernel}  {_params_text(data.kernel_params)}"]
    if data.kernel in ("sigmoid", "tanh") and data.X is not None:
        from .kernel_data import SIGMOID_A_TIMES_D, SIGMOID_R, default_kernel_params

        if data.kernel_params == default_kernel_params(data.kernel, data.n_features):
            note = "; chosen to be clearly indefinite on Sonar" if data.dataset == "sonar" else ""
            lines[-1] += (f"  [default: a = {SIGMOID_A_TIMES_D:g}/n_features, r = {SIGMOID_R:g}"
                          f"{note}]")
    return lines


def _spectrum_line(spec, note="", approximation=None):
    s = spec.summary()
    what = f"the full kernel ({s['n']} x {s['n']}{note})"
    if approximation is not None:
        what = (f"the {approximation} approximation of the kernel (rank {s['p'] + s['q']} of "
                f"{s['n']} x {s['n']}, no n x n array formed)")
    return (f"spectrum of {what}: signature p/q/z = "
            f"{s['p']}/{s['q']}/{s['z']} (|lambda| <= {s['tol']:.2g} counts as zero), "
            f"least eigenvalue {s['min_eigenvalue']:.4g}, largest {s['max_eigenvalue']:.4g}, "
            f"r_mm = {s['r_mm']:.3g} %, r_neg = {s['r_neg']:.3g} %")


def _fold_deviation_line(folds, approximation=None):
    """r_mm and r_neg (Munoz & de Diego eq. 2) of the training blocks, mean ± s.d. over folds."""
    per_fold = folds.drop_duplicates(["repeat", "fold"])
    parts = []
    for col in ("r_mm", "r_neg"):
        v = per_fold[col].to_numpy(dtype=float)
        sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
        parts.append(f"{col} = {v.mean():.3g} ± {sd:.2g} %")
    blocks = ("the approximations of the training blocks" if approximation is not None
              else "the training blocks")
    return (f"deviation from Euclidean of {blocks} (Munoz & de Diego eq. 2; mean ± "
            f"s.d. over {len(per_fold)} folds): {', '.join(parts)}")


def _text_table(rows, left=("method",)):
    """Plain-text table: columns from the first row, ``left`` columns left-aligned."""
    cols = list(rows[0])
    cells = [[str(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]

    def line(values):
        return "  ".join(v.ljust(w) if c in left else v.rjust(w)
                         for v, w, c in zip(values, widths, cols)).rstrip()

    return "\n".join([line(cols)] + [line(row) for row in cells])


def _chosen_text(best_params):
    import json

    try:
        best = json.loads(best_params) if isinstance(best_params, str) and best_params else {}
    except ValueError:
        best = {}
    return " ".join(f"{k}={_fmt_num(v, 3)}" for k, v in best.items()) or "-"


def _display_table(summary, tuned=True):
    import pandas as pd

    rows = []
    for _, r in summary.iterrows():
        if r["status"] == "skipped":
            continue
        if pd.isna(r["accuracy_mean"]):
            acc = "failed"
        else:
            acc = f"{100 * r['accuracy_mean']:.1f} ± {100 * r['accuracy_std']:.1f}"
        row = {"method": r["method"], "accuracy %": acc}
        if tuned:
            row["chosen (most often)"] = _chosen_text(r["best_params"])
        row.update({
            "fit s": "-" if pd.isna(r["fit_seconds_mean"]) else f"{r['fit_seconds_mean']:.3f}",
            "#SV": "-" if pd.isna(r["n_support_mean"]) else f"{r['n_support_mean']:.1f}",
            "certificate": r["certificate"] or "-",
            "errors": int(r["n_errors"]),
        })
        rows.append(row)
    return _text_table(rows, left=("method", "chosen (most often)", "certificate"))


def _data_error(prog, exc):
    _fail(prog, f"{_FLAGS.get(exc.argument, exc.argument)}: {exc.message}")


def _protocol_line(result):
    tuned = (f"parameters chosen by inner {result.inner_folds}-fold stratified CV on each "
             "training fold" if result.tuned else
             f"fixed parameters (C = {result.C if result.C is not None else 1:g})")
    return (f"protocol: {result.cv}-fold stratified CV x {result.repeats} repeat(s) (seed "
            f"{result.random_state}), same folds for every method; {tuned}; solver = "
            f"{result.solver or 'each method default'}")


def _approximation_line(result):
    if result.approximation is None:
        return None
    return (f"approximation: {result.approximation} (signed Nyström features, landmarks drawn "
            "per fold; no n x n kernel formed; methods without an approximate path skipped)")


def _grid_lines(result):
    if not result.tuned:
        return []
    groups = {}
    for m, g in result.grids.items():
        text = ", ".join(f"{k} in {{{', '.join(_fmt_num(v, 3) for v in vals)}}}"
                         for k, vals in g.items()) or "nothing to tune"
        groups.setdefault(text, []).append(m)
    lines = ["grids: " + "; ".join(f"{text} ({', '.join(ms)})" for text, ms in groups.items())]
    if result.kernel_grid:
        lines.append("kernel grid: " + ", ".join(
            f"{k} in {{{', '.join(_fmt_num(v, 3) for v in vals)}}}"
            for k, vals in result.kernel_grid.items()))
    if result.C is not None:
        lines.append(f"C fixed at {result.C:g}")
    return lines


# --------------------------------------------------------------------------- commands
def _cmd_compare(args):
    from ._io import captured_stdout
    from .compare import InvalidArgument, run_comparison, run_name

    try:
        kernel_params = parse_kernel_params(args.kernel_params)
        binary = parse_binary(args.binary)
        methods = _methods_list(args.methods)
        grid = parse_grid(args.grid)
    except UsageError as exc:
        _fail(args.prog, str(exc))
    if args.no_tune and grid:
        _fail(args.prog, "--grid: not used with --no-tune (nothing is tuned)")
    data = _data_kwargs(args)
    if args.resume and args.out is None:
        _fail(args.prog, "--resume: needs --out DIR, the directory of the run to finish")
    if args.resume and args.no_save:
        _fail(args.prog, "--resume: not with --no-save")
    fresh = False
    if args.no_save:
        out = None
    elif args.out is not None:
        out = args.out
    else:  # a stem: the run claims DIR, DIR-2, ... atomically
        out, fresh = os.path.join(DEFAULT_OUT, run_name(data["dataset"], data["kernel_file"],
                                                        data["data_file"])), True
    command = "krein " + " ".join(args.argv)
    with captured_stdout() as solver_output:
        try:
            result = run_comparison(kernel=args.kernel, kernel_params=kernel_params or None,
                                    methods=methods, cv=args.cv, repeats=args.repeats, C=args.C,
                                    solver=args.solver, random_state=args.seed, out=out,
                                    progress=not args.no_progress, n_samples=args.n_samples,
                                    binary=binary, tune=not args.no_tune, grid=grid or None,
                                    inner_folds=args.inner_folds, n_jobs=args.n_jobs,
                                    force=args.force, command=command,
                                    blas_threads=args.blas_threads,
                                    approximation=args.approximation, resume=args.resume,
                                    fresh=fresh, hold_lock=True, **data)
        except InvalidArgument as exc:
            solver_output.discard()
            _data_error(args.prog, exc)
    try:
        log = solver_output.text()
        if log.strip() and result.directory is not None:
            from ._io import atomic_write_text

            path = os.path.join(result.directory, "solver_output.txt")
            atomic_write_text(path, log)
            result.files.append(path)
    finally:
        result.release()
    data = result.data
    if data.label_dependent:
        note = ("; pick-out with all labels, the folds use the training labels only and "
                "label-free test rows")
    elif data.per_fold_kernel:
        note = "; centered on all objects, the folds use training centering"
    else:
        note = ""
    print("krein compare")
    for line in _data_lines(data):
        print(line)
    if _approximation_line(result):
        print(_approximation_line(result))
    print(_spectrum_line(data.spectrum(), note, result.approximation))
    print(_fold_deviation_line(result.folds, result.approximation))
    print(_protocol_line(result))
    for line in _grid_lines(result):
        print(line)
    print()
    print(_display_table(result.summary, result.tuned))
    print()
    for name, why in result.skipped.items():
        print(f"skipped {name}: {why}")
    for name, why in result.notes.items():
        print(f"note on {name}: {why}")
    failed = result.folds[result.folds["error"] != ""]
    for name, group in failed.groupby("method", sort=False):
        print(f"errors in {name} ({len(group)} of {result.cv * result.repeats} fits), first: "
              f"{group['error'].iloc[0][:300]}")
    print(f"time: {result.seconds:.0f} s")
    if result.files:
        report = [f for f in result.files if f.endswith("report.html")]
        print(f"files written to {result.directory}/: "
              f"{', '.join(os.path.basename(f) for f in result.files)}")
        if report:
            print(f"report: {report[0]}")
    else:
        print("no files written (--no-save)")
    if result.all_failed:
        sys.stderr.write(f"{args.prog}: error: every fit failed (first error above)\n")
        return 1
    return 0


def _cmd_report(args):
    from .experiment.page import write_report

    if not os.path.isdir(args.directory):
        _fail(args.prog, f"DIR: {args.directory} is not a directory")
    try:
        path = write_report(args.directory)
    except (FileNotFoundError, ValueError) as exc:
        _fail(args.prog, f"DIR: {exc}")
    print(path)
    return 0


def _cmd_diagnose(args):
    import numpy as np

    from .compare import load_comparison_data
    from .kernel_data import InvalidArgument
    from .geometry import class_mean_distance

    try:
        kernel_params = parse_kernel_params(args.kernel_params)
        binary = parse_binary(args.binary)
    except UsageError as exc:
        _fail(args.prog, str(exc))
    if not (np.isfinite(args.C) and args.C > 0):
        _fail(args.prog, f"--C: must be a positive finite number; got {args.C!r}")
    try:
        data = load_comparison_data(kernel=args.kernel, kernel_params=kernel_params or None,
                                    n_samples=args.n_samples, binary=binary,
                                    random_state=args.seed, **_data_kwargs(args))
    except InvalidArgument as exc:
        _data_error(args.prog, exc)
    print("krein diagnose")
    for line in _data_lines(data):
        print(line)
    spec = data.spectrum()
    s = spec.summary()
    if data.label_dependent:
        print("(pick-out kernel with all labels; compare builds it per fold from training labels)")
    elif data.per_fold_kernel:
        print("(kernel -1/2 J D^2 J centered on all objects)")
    print(f"n: {s['n']}")
    print(f"signature (p, q, z): ({s['p']}, {s['q']}, {s['z']})  zero tolerance |lambda| <= "
          f"{s['tol']:.3g} (n * eps * max|lambda|)")
    lam = spec.eigenvalues
    print(f"least eigenvalue: {s['min_eigenvalue']:.6g}   (next: "
          f"{', '.join(f'{v:.4g}' for v in lam[1:4])})")
    print(f"largest eigenvalue: {s['max_eigenvalue']:.6g}")
    print(f"r_mm  = 100 |lambda_min| / lambda_max      = {s['r_mm']:.4g} %  "
          "(Munoz & de Diego eq. 2)")
    print(f"r_neg = 100 sum|lambda_neg| / sum|lambda|  = {s['r_neg']:.4g} %")
    if np.unique(data.y).size == 2:
        dcm = class_mean_distance(data.K, data.y)
        note = ("negative: the optimal CH/SVM solution has w'Mw < 0 (Haasdonk 2005 §7.3)" if dcm < 0
                else "non-negative")
        print(f"DCM (squared pE distance of the class means, c'Kc) = {dcm:.6g}  ({note})")
    else:
        print(f"DCM: not defined for {np.unique(data.y).size} classes (use --binary)")
    print()
    for line in _haasdonk_lines(data.K, data.y, args.C):
        print(line)
    if not args.no_plot:
        from ._io import save_png
        from .compare import spectrum_plot

        path = args.plot or os.path.join(DEFAULT_OUT, f"spectrum-{data.dataset}.png")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        save_png(spectrum_plot(data), path, dpi=120, colors=None)
        print()
        print(f"spectrum plot: {path}")
    return 0


def _haasdonk_lines(K, y, C):
    """Haasdonk's suitability criteria (:func:`krein.geometry.suitability_report`) as text."""
    from .geometry import suitability_report

    lines = []
    for i, (title, rows) in enumerate(suitability_report(K, y, C)):
        lines += ([] if i == 0 else [""]) + title.split("\n")
        if rows:
            lines.append(_text_table(rows, left=("criterion", "value", "meaning")))
    return lines


def _cmd_solvers(args):
    from .solvers import solver_capabilities

    rows = solver_capabilities()
    print("CVXPY solvers installed here (problem classes accepted), and the libsvm pseudo-solver:")
    print(_text_table([{k: v for k, v in r.items() if k != "notes"} for r in rows],
                      left=("name",)))
    for r in rows:
        if r["notes"]:
            print(f"{r['name']}: {r['notes']}")
    print("Pass one with --solver NAME (krein compare) or solver=NAME (estimators).")
    return 0


def _cmd_methods(args):
    from .registry import list_methods

    return _print_names(list_methods())


def _cmd_datasets(args):
    from .datasets import available_datasets

    return _print_names(available_datasets())


def _print_names(table):
    """Print a ``{name: description}`` table in two aligned columns; return exit code 0."""
    width = max(len(n) for n in table)
    for name, desc in table.items():
        print(f"{name:<{width}}  {desc}")
    return 0


# --------------------------------------------------------------------------- experiment
def _split_names(text):
    if text is None:
        return None
    names = [t.strip() for t in text.split(",") if t.strip()]
    return names


#: The :func:`krein.experiment.results_table` arguments an ``experiment.json`` may record.
_TABLE_SPEC_KEYS = ("value", "rows", "columns", "scale", "digits", "best", "eigenvalue")


def _results_directory(results):
    """The results directory of RESULTS (a directory or its results.csv), else None."""
    path = os.fspath(results)
    if os.path.isdir(path):
        return path
    if os.path.basename(path) == "results.csv":
        return os.path.dirname(os.path.abspath(path))
    return None


def _table_spec(info, directory, prog):
    """The table arguments recorded in experiment.json (data, checked), or None."""
    spec = info.get("table")
    if spec is None:
        return None
    where = os.path.join(directory, "experiment.json")
    if not isinstance(spec, dict):
        _fail(prog, f"{where}: 'table' must be a JSON object of table arguments; got "
                    f"{type(spec).__name__}")
    bad = [k for k in spec if k not in _TABLE_SPEC_KEYS]
    if bad:
        _fail(prog, f"{where}: 'table' has unknown argument(s) {', '.join(map(repr, bad))} "
                    f"(accepted: {', '.join(_TABLE_SPEC_KEYS)})")
    for k, v in spec.items():
        ok = (v is None or isinstance(v, (str, int, float, bool))
              or (isinstance(v, list) and all(isinstance(u, str) for u in v)))
        if not ok:
            _fail(prog, f"{where}: 'table': {k} must be a name, a number or a list of names; "
                        f"got {v!r}")
    return spec


def _experiment_hooks(args, prog, what):
    """What makes the table/figures of RESULTS: a namespace with ``table`` and ``figures``.

    Nothing in a results directory is run: by default the table arguments recorded
    in its experiment.json (data) and no figures hook; the script's own hooks only
    from ``--script PATH`` given by the user.
    """
    import types

    from .experiment import load_experiment
    from .experiment.validate import ResultFileError, read_experiment_json

    directory = _results_directory(args.results)
    info = {}
    if directory is not None:
        try:
            info = read_experiment_json(directory)
        except ResultFileError as exc:
            _fail(prog, str(exc))
    if args.script is not None:
        try:
            return load_experiment(args.script, quick=bool(info.get("quick")))
        except Exception as exc:  # the user's own script: named, one line, exit 2
            _fail(prog, f"--script: {args.script}: {_one_line(exc)}")
    spec = _table_spec(info, directory, prog) if info else None
    script = info.get("script")
    hooks = info.get("hooks")
    if script and isinstance(script, str):
        if isinstance(hooks, dict):
            own = bool(hooks.get(what))
        else:  # written before the hooks were recorded: a table spec is data, a hook unknown
            own = what == "figures" or spec is None
        if own:
            sys.stderr.write(f"{prog}: note: the {what} of the experiment's own script is not "
                             f"made (nothing in a results directory is run); the generic "
                             f"{what} from the data instead; pass --script {script} to run "
                             "its hooks\n")
    return types.SimpleNamespace(table=spec, figures=None)


def _cmd_experiment_run(args):
    from .experiment import (default_directory, load_experiment, make_figures, make_table,
                             run_experiment)
    from ._threads import resolve_blas_threads
    from ._validation import InvalidArgument

    prog = "krein experiment run"
    try:
        exp = load_experiment(args.script, quick=args.quick)
    except ValueError as exc:
        _fail(prog, str(exc))
    out = args.out or default_directory(exp)
    if args.n_jobs == 0:
        _fail(prog, "--n-jobs: must be a non-zero integer (-1: all cores); got 0")
    if args.dask and args.n_jobs != 1:
        _fail(prog, "--n-jobs: not used with --dask (the cluster decides); leave it at 1")
    try:
        blas_threads = resolve_blas_threads(args.blas_threads)
    except InvalidArgument as exc:
        _fail(prog, f"{_FLAGS.get(exc.argument, exc.argument)}: {exc.message}")
    print(f"krein experiment {exp.name}{' (quick)' if exp.quick else ''}: {len(exp.cells)} cells"
          f"{' - ' + exp.description if exp.description else ''}")
    backend = "dask" if args.dask else None
    where = (f"Dask scheduler {args.dask}" if args.dask else
             "serial" if args.n_jobs == 1 else f"joblib, n_jobs = {args.n_jobs}")
    print(f"results: {os.path.join(out, 'results.csv')} ({where})")
    try:
        report = run_experiment(exp, out, n_jobs=args.n_jobs, backend=backend,
                                scheduler=args.dask, progress=not args.no_progress,
                                retry_errors=args.retry_errors, blas_threads=blas_threads)
    except (ValueError, RuntimeError, ImportError) as exc:
        _fail(prog, str(exc))
    print(f"cells: {report.n_cells} (already done: {report.n_skipped}, run now: "
          f"{report.n_run}, errors: {report.n_errors}) in {report.seconds:.1f} s")
    df = report.results
    if report.n_errors:
        keys = {c.key for c in exp.cells}
        err = df[(df["status"] == "error") & df["key"].isin(keys)]
        print(f"first error ({len(err)} cells failed; rerun with --retry-errors to recompute "
              f"them): {err['error'].iloc[0][:300]}")
    from ._io import atomic_write_text

    if not args.no_table:
        try:
            table = make_table(df, exp, fmt=args.format)
        except ValueError as exc:
            table = None
            print(f"no table ({_one_line(exc)})")
        if table is not None:
            print()
            print(table.rstrip("\n"))
            print()
            ext = {"markdown": "md", "latex": "tex", "csv": "csv"}[args.format]
            path = os.path.join(out, f"table.{ext}")
            atomic_write_text(path, table)
            print(f"table written: {path}")
    if not args.no_figures:
        fig_dir = args.figures or os.path.join(out, "figures")
        paths = make_figures(df, fig_dir, exp)
        for path in paths:
            print(f"figure written: {path}")
    return 0


def _cmd_experiment_table(args):
    from .experiment import make_table

    prog = "krein experiment table"
    exp = _experiment_hooks(args, prog, "table")
    try:
        text = make_table(args.results, exp, fmt=args.format, value=args.value,
                          rows=_split_names(args.rows), columns=_split_names(args.columns))
    except ValueError as exc:
        _fail(prog, str(exc))
    if args.output:
        from ._io import atomic_write_text

        atomic_write_text(args.output, text)
        print(f"table written: {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def _default_figure_directory(results):
    """Where ``krein experiment plot`` writes when given no ``--out``: next to the results.

    Parameters
    ----------
    results : str or path-like
        A results directory, its ``results.csv``, or another results file.

    Returns
    -------
    str
        ``DIR/figures`` for a results directory ``DIR`` or ``DIR/results.csv``
        (where ``krein experiment run`` puts its figures); ``PATH-figures``
        (extension dropped) beside any other results file, e.g.
        ``experiments/results/loosli_table2-figures`` -- never the committed
        ``figures/``.
    """
    path = os.fspath(results)
    if os.path.isdir(path):
        return os.path.join(path, "figures")
    if os.path.basename(path) == "results.csv":
        return os.path.join(os.path.dirname(path), "figures")
    return os.path.splitext(path)[0] + "-figures"


def _cmd_experiment_plot(args):
    from .experiment import make_figures, read_results

    prog = "krein experiment plot"
    try:
        df = read_results(args.results)
    except ValueError as exc:
        _fail(prog, str(exc))
    exp = _experiment_hooks(args, prog, "figures")
    out = args.out if args.out is not None else _default_figure_directory(args.results)
    paths = make_figures(df, out, exp)
    if not paths:
        print("no figure: the results have nothing the standard figures need")
    for path in paths:
        print(f"figure written: {path}")
    return 0


def _add_script_option(p, what):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--script", default=None, metavar="PATH",
                   help=f"run this experiment script's own {what} function (e.g. "
                        f"experiments/NAME.py; it is imported and executed: only a script you "
                        f"trust). Without it the {what} come from the data alone: the script "
                        f"named in experiment.json is never run")
    g.add_argument("--no-script", action="store_true",
                   help="the default (kept for compatibility): run no script")


def _add_experiment_parser(sub):
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
                   help="BLAS threads per fit: auto (default: one on kernels of at most 1000 objects, threaded BLAS only spins there; the library default above), N (at most N), or default (no limit); also read from $KREIN_BLAS_THREADS")
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
    r.set_defaults(func=_cmd_experiment_run)

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
    t.set_defaults(func=_cmd_experiment_table)

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
    f.set_defaults(func=_cmd_experiment_plot)


# --------------------------------------------------------------------------- parser
def _add_data_args(p):
    p.add_argument("--dataset", default="sonar", metavar="NAME",
                   help="bundled data set (see 'krein datasets'; default sonar, standardized)")
    p.add_argument("--kernel-file", default=None, metavar="PATH",
                   help="your own kernel matrix (or, with --dissimilarity, distances): .npy, "
                        ".npz (FILE.npz:KEY names an array), .csv, whitespace .txt, MATLAB .mat "
                        "(FILE.mat:KEY); needs --labels")
    p.add_argument("--labels", default=None, metavar="PATH",
                   help="labels of --kernel-file, one per line (any values: strings are kept)")
    p.add_argument("--dissimilarity", action="store_true",
                   help="--kernel-file holds dissimilarities (zero diagonal, non-negative); the "
                        "kernel is built by --kernel (default dissimilarity-linear)")
    p.add_argument("--symmetrize", action="store_true",
                   help="accept an asymmetric --kernel-file and use (K + K')/2 (recorded)")
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
                        "--kernel-file")
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


def _data_kwargs(args):
    """The data arguments of :func:`krein.compare.run_comparison` from the parsed options."""
    return {"dataset": args.dataset, "kernel_file": args.kernel_file, "labels": args.labels,
            "dissimilarity": args.dissimilarity, "symmetrize": args.symmetrize,
            "data_file": args.data, "label_column": _label_column(args.label_column)}


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


def _build_parser():
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
    p.add_argument("--methods", default=None, metavar="A,B,C",
                   help="comma-separated method names (default: all; see 'krein methods')")
    p.add_argument("--cv", type=int, default=5, metavar="K", help="number of folds (default 5)")
    p.add_argument("--repeats", type=int, default=1, metavar="R",
                   help="repetitions of the K-fold split (default 1)")
    p.add_argument("-C", "--C", dest="C", type=float, default=None, metavar="VALUE",
                   help="a fixed SVM box bound / slack weight for every method (default: tuned "
                        "by inner CV; 1 with --no-tune)")
    p.add_argument("--grid", action="append", default=None, metavar="NAME=V1,V2",
                   help="override a grid of the inner CV, e.g. --grid C=0.01,1,100 --grid "
                        "rho=1,10 (method parameters for every method that has them; kernel "
                        "parameters such as a or gamma for the kernel)")
    p.add_argument("--no-tune", action="store_true",
                   help="no inner CV: every method at fixed values (--C or C = 1, the kernel "
                        "as given)")
    p.add_argument("--inner-folds", type=int, default=3, metavar="K",
                   help="folds of the inner CV that chooses the parameters (default 3)")
    p.add_argument("--solver", default=None, metavar="NAME",
                   help="libsvm or an installed CVXPY solver (see 'krein solvers'; liblinear "
                        "with --approximation); default: each method's own")
    p.add_argument("--approximation", default=None, metavar="nystroem:M",
                   help="data too large for the n x n kernel: every fit gets M-landmark signed "
                        "Nystroem features of the kernel (nystroem:M:kmeans++ spreads the "
                        "landmarks), no n x n array is formed; feature data only (a vector or "
                        "synthetic data set, --data); methods without an approximate path "
                        "(all but esvm, esvm-l, the spectrum corrections, ksvm) are skipped; "
                        "default solvers liblinear (ksvm: CLARABEL)")
    p.add_argument("--n-jobs", type=int, default=DEFAULT_N_JOBS, metavar="N",
                   help=f"worker processes over the cells (default {DEFAULT_N_JOBS}: the cores "
                        "here, at most 4; -1: all cores)")
    p.add_argument("--blas-threads", default=None, metavar="auto|N|default",
                   help="BLAS threads per fit: auto (default: one on kernels of at most 1000 objects, threaded BLAS only spins there; the library default above), N (at most N), or default (no limit); also read from $KREIN_BLAS_THREADS")
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
    p.set_defaults(func=_cmd_compare)

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
    p.set_defaults(func=_cmd_diagnose)

    p = sub.add_parser("report", help="rebuild the report page of a comparison from its files",
                       description="Rebuild report.html and its figures in a directory written "
                       "by 'krein compare', from its CSV and JSON files alone.")
    p.add_argument("directory", metavar="DIR", help="the comparison's output directory")
    _add_debug(p)
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("solvers", help="installed CVXPY solvers and the problem classes they take")
    p.set_defaults(func=_cmd_solvers)
    p = sub.add_parser("methods", help="list the method registry")
    p.set_defaults(func=_cmd_methods)
    p = sub.add_parser("datasets", help="list the data sets")
    p.set_defaults(func=_cmd_datasets)
    _add_experiment_parser(sub)
    return parser


def main(argv=None):
    """Entry point of the ``krein`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status 0 on success (the console script passes it to ``sys.exit``).

    Raises
    ------
    SystemExit
        With status 2 on bad input, after one line on stderr naming the option
        and the accepted values (and 0 for ``--help``/``--version``).
    """
    parser = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    args.prog = f"krein {args.command}"
    args.argv = [a for a in argv if a != "--debug"]
    try:
        return args.func(args)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # a full disk, no permission...: one line naming the file, exit 1
        if args.debug:
            raise
        from ._io import WriteError

        text = str(exc) if isinstance(exc, WriteError) else (
            f"{exc.filename}: [Errno {exc.errno}] {exc.strerror}"
            if exc.filename is not None and exc.errno is not None else f"{exc}")
        sys.stderr.write(f"{args.prog}: error: {_one_line(text)}\n")
        return 1
    except Exception as exc:  # an unexpected failure: one line, the traceback with --debug
        if args.debug:
            raise
        sys.stderr.write(f"{args.prog}: error: {_one_line(f'{type(exc).__name__}: {exc}')} "
                         "(run with --debug for the traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
