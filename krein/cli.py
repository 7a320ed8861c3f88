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

import contextlib
import os
import sys

from .cli_format import comparison_lines, data_lines, diagnosis_lines, names_lines, solvers_lines
from .cli_parser import (DEFAULT_N_JOBS, DEFAULT_OUT, FLAGS, UsageError, build_parser,
                         data_kwargs, fail, one_line, parse_binary, parse_grid,
                         parse_kernel_params, parse_methods, parse_names)

__all__ = ["main", "parse_kernel_params", "parse_binary", "parse_grid"]


def _print_lines(lines):
    for line in lines:
        print(line)


def _data_error(prog, exc):
    fail(prog, f"{FLAGS.get(exc.argument, exc.argument)}: {exc.message}")


@contextlib.contextmanager
def _one_line_warnings(prog):
    """Print a :class:`krein.diagnosis.DistanceAsKernelWarning` as one line on stderr
    (``krein compare: warning: ...``), at once; other warnings as Python shows them."""
    import warnings

    from .diagnosis import DistanceAsKernelWarning

    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message, category, *rest, **kw):
            if issubclass(category, DistanceAsKernelWarning):
                sys.stderr.write(f"{prog}: warning: {message}\n")
                sys.stderr.flush()
            else:
                shown(message, category, *rest, **kw)

        warnings.simplefilter("always", DistanceAsKernelWarning)
        warnings.showwarning = show
        yield


# --------------------------------------------------------------------------- commands
def _cmd_compare(args):
    from ._io import captured_stdout
    from ._memory import memory_budget, parse_bytes
    from .compare import Comparison, InvalidArgument, run_comparison, run_name
    from .experiment.outputs import write_solver_output

    try:
        kernel_params = parse_kernel_params(args.kernel_params)
        binary = parse_binary(args.binary)
        methods = parse_methods(args.methods)
        grid = parse_grid(args.grid)
    except UsageError as exc:
        fail(args.prog, str(exc))
    if args.no_tune and grid:
        fail(args.prog, "--grid: not used with --no-tune (nothing is tuned)")
    data = data_kwargs(args)
    if args.resume and args.out is None:
        fail(args.prog, "--resume: needs --out DIR, the directory of the run to finish")
    if args.resume and args.no_save:
        fail(args.prog, "--resume: not with --no-save")
    fresh = False
    if args.no_save:
        out = None
    elif args.out is not None:
        out = args.out
    else:  # a stem: the run claims DIR, DIR-2, ... atomically
        out, fresh = os.path.join(DEFAULT_OUT, run_name(data["dataset"], data["kernel_file"],
                                                        data["data_file"])), True
    try:
        budget = None if args.memory is None else parse_bytes(args.memory, "--memory")
    except ValueError as exc:
        fail(args.prog, str(exc))
    command = "krein " + " ".join(args.argv)
    with captured_stdout() as solver_output, _one_line_warnings(args.prog), \
            memory_budget(budget):
        try:
            spec = Comparison(kernel=args.kernel, kernel_params=kernel_params or None,
                              methods=methods, outer_folds=args.cv, repeats=args.repeats,
                              C=args.C, solver=args.solver, random_state=args.seed,
                              n_samples=args.n_samples, binary=binary, tune=not args.no_tune,
                              grid=grid or None, inner_folds=args.inner_folds,
                              validation_fraction=args.validation_fraction,
                              grid_extension=args.grid_extension, task=args.task,
                              approximation=args.approximation, **data)
            n_jobs = args.n_jobs if args.n_jobs is not None else (
                1 if args.dask else DEFAULT_N_JOBS)
            result = run_comparison(spec, out=out, progress=not args.no_progress,
                                    n_jobs=n_jobs, force=args.force, command=command,
                                    scheduler=args.dask,
                                    blas_threads=args.blas_threads, resume=args.resume,
                                    fresh=fresh, hold_lock=True)
        except InvalidArgument as exc:
            solver_output.discard()
            _data_error(args.prog, exc)
    try:
        write_solver_output(result, solver_output.text())
    finally:
        result.release()
    _print_lines(comparison_lines(result))
    if result.all_failed:
        sys.stderr.write(f"{args.prog}: error: every fit failed (first error above)\n")
        return 1
    return 0


def _cmd_report(args):
    from .experiment.page import write_report

    if not os.path.isdir(args.directory):
        fail(args.prog, f"DIR: {args.directory} is not a directory")
    try:
        path = write_report(args.directory)
    except (FileNotFoundError, ValueError) as exc:
        fail(args.prog, f"DIR: {exc}")
    print(path)
    return 0


def _cmd_diagnose(args):
    import numpy as np

    from .compare import load_comparison_data
    from .diagnosis import diagnose, write_spectrum_plot
    from .kernel_data import InvalidArgument

    try:
        kernel_params = parse_kernel_params(args.kernel_params)
        binary = parse_binary(args.binary)
    except UsageError as exc:
        fail(args.prog, str(exc))
    if not (np.isfinite(args.C) and args.C > 0):
        fail(args.prog, f"--C: must be a positive finite number; got {args.C!r}")
    try:
        data = load_comparison_data(kernel=args.kernel, kernel_params=kernel_params or None,
                                    n_samples=args.n_samples, binary=binary,
                                    random_state=args.seed, **data_kwargs(args))
    except InvalidArgument as exc:
        _data_error(args.prog, exc)
    _print_lines(["krein diagnose"] + data_lines(data))
    _print_lines(diagnosis_lines(data, diagnose(data, args.C)))
    if not args.no_plot:
        path = args.plot or os.path.join(DEFAULT_OUT, f"spectrum-{data.dataset}.png")
        write_spectrum_plot(data, path)
        print()
        print(f"spectrum plot: {path}")
    return 0


def _cmd_solvers(args):
    from .solvers import solver_capabilities

    _print_lines(solvers_lines(solver_capabilities()))
    return 0


def _cmd_methods(args):
    from .registry import large_data_path, list_methods

    table = list_methods()
    if getattr(args, "large_data", False):
        table = {name: large_data_path(name) for name in table}
    _print_lines(names_lines(table))
    return 0


def _cmd_datasets(args):
    from .datasets import available_datasets

    _print_lines(names_lines(available_datasets()))
    return 0


# --------------------------------------------------------------------------- experiment
def _experiment_hooks(args, prog, what):
    """What makes the table/figures of RESULTS: a namespace with ``table`` and ``figures``.

    Nothing in a results directory is run: by default the table arguments recorded
    in its experiment.json (data) and no figures hook; the script's own hooks only
    from ``--script PATH`` given by the user.
    """
    from .experiment import load_experiment
    from .experiment.outputs import recorded_hooks, results_directory
    from .experiment.validate import ResultFileError, read_experiment_json

    directory = results_directory(args.results)
    info = {}
    if directory is not None:
        try:
            info = read_experiment_json(directory)
        except ResultFileError as exc:
            fail(prog, str(exc))
    if args.script is not None:
        try:
            return load_experiment(args.script, quick=bool(info.get("quick")))
        except Exception as exc:  # the user's own script: named, one line, exit 2
            fail(prog, f"--script: {args.script}: {one_line(exc)}")
    try:
        hooks, skipped = recorded_hooks(info, directory, what)
    except ValueError as exc:
        fail(prog, str(exc))
    if skipped is not None:
        sys.stderr.write(f"{prog}: note: the {what} of the experiment's own script is not "
                         f"made (nothing in a results directory is run); the generic "
                         f"{what} from the data instead; pass --script {skipped} to run "
                         "its hooks\n")
    return hooks


def _cmd_experiment_run(args):
    from ._threads import resolve_blas_threads
    from ._validation import InvalidArgument
    from .experiment import default_directory, load_experiment, make_figures, run_experiment
    from .experiment.outputs import table_file, write_table

    prog = "krein experiment run"
    try:
        exp = load_experiment(args.script, quick=args.quick)
    except ValueError as exc:
        fail(prog, str(exc))
    out = args.out or default_directory(exp)
    if args.n_jobs == 0:
        fail(prog, "--n-jobs: must be a non-zero integer (-1: all cores); got 0")
    if args.dask and args.n_jobs != 1:
        fail(prog, "--n-jobs: not used with --dask (the cluster decides); leave it at 1")
    try:
        blas_threads = resolve_blas_threads(args.blas_threads)
    except InvalidArgument as exc:
        _data_error(prog, exc)
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
        fail(prog, str(exc))
    print(f"cells: {report.n_cells} (already done: {report.n_skipped}, run now: "
          f"{report.n_run}, errors: {report.n_errors}) in {report.seconds:.1f} s")
    df = report.results
    if report.n_errors:
        keys = {c.key for c in exp.cells}
        err = df[(df["status"] == "error") & df["key"].isin(keys)]
        print(f"first error ({len(err)} cells failed; rerun with --retry-errors to recompute "
              f"them): {err['error'].iloc[0][:300]}")
    if not args.no_table:
        path = table_file(out, args.format)
        try:
            table = write_table(df, path, exp, fmt=args.format)
        except ValueError as exc:
            print(f"no table ({one_line(exc)})")
        else:
            _print_lines(["", table.rstrip("\n"), "", f"table written: {path}"])
    if not args.no_figures:
        fig_dir = args.figures or os.path.join(out, "figures")
        for path in make_figures(df, fig_dir, exp):
            print(f"figure written: {path}")
    return 0


def _cmd_experiment_table(args):
    from .experiment.outputs import write_table

    prog = "krein experiment table"
    exp = _experiment_hooks(args, prog, "table")
    try:
        text = write_table(args.results, args.output, exp, fmt=args.format, value=args.value,
                           rows=parse_names(args.rows), columns=parse_names(args.columns))
    except ValueError as exc:
        fail(prog, str(exc))
    if args.output:
        print(f"table written: {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def _cmd_experiment_plot(args):
    from .experiment import make_figures, read_results
    from .experiment.outputs import default_figure_directory

    prog = "krein experiment plot"
    try:
        df = read_results(args.results)
    except ValueError as exc:
        fail(prog, str(exc))
    exp = _experiment_hooks(args, prog, "figures")
    out = args.out if args.out is not None else default_figure_directory(args.results)
    paths = make_figures(df, out, exp)
    if not paths:
        print("no figure: the results have nothing the standard figures need")
    for path in paths:
        print(f"figure written: {path}")
    return 0


#: The function each command runs (:func:`krein.cli_parser.build_parser` stores it).
_COMMANDS = {"compare": _cmd_compare, "diagnose": _cmd_diagnose, "report": _cmd_report,
             "solvers": _cmd_solvers, "methods": _cmd_methods, "datasets": _cmd_datasets,
             "experiment run": _cmd_experiment_run, "experiment table": _cmd_experiment_table,
             "experiment plot": _cmd_experiment_plot}


def _build_parser():
    return build_parser(_COMMANDS)


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
        sys.stderr.write(f"{args.prog}: error: {one_line(text)}\n")
        return 1
    except Exception as exc:  # an unexpected failure: one line, the traceback with --debug
        if args.debug:
            raise
        sys.stderr.write(f"{args.prog}: error: {one_line(f'{type(exc).__name__}: {exc}')} "
                         "(run with --debug for the traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
