"""The files made from a results directory: tables, the figure directory, the solver log.

``krein experiment run/table/plot`` and ``krein compare`` only call these: where
a table or figures go, how the table arguments recorded in ``experiment.json``
are checked, and which hooks make the table and figures of a results directory.
Nothing in a results directory is ever run: its recorded table arguments are
data; an experiment script's own ``table``/``figures`` functions run only when
the user passes the script (``--script PATH``).  Every file is written through
the one atomic writer (:func:`krein._io.atomic_write_text`).
"""

from __future__ import annotations

import os
import types

__all__ = ["TABLE_FORMATS", "TABLE_SPEC_KEYS", "results_directory", "table_spec",
           "recorded_hooks", "default_figure_directory", "table_file", "write_table",
           "write_solver_output"]

#: File extension of each table format.
TABLE_FORMATS = {"markdown": "md", "latex": "tex", "csv": "csv"}

#: The :func:`krein.experiment.make_table` arguments an ``experiment.json`` may record.
TABLE_SPEC_KEYS = ("value", "rows", "columns", "scale", "digits", "best", "eigenvalue")


def results_directory(results):
    """The results directory of RESULTS (a directory or its ``results.csv``), else None.

    Parameters
    ----------
    results : str or path-like
        A results directory, its ``results.csv``, or another results file.

    Returns
    -------
    str or None
        The directory, or None for a results file not named ``results.csv``.
    """
    path = os.fspath(results)
    if os.path.isdir(path):
        return path
    if os.path.basename(path) == "results.csv":
        return os.path.dirname(os.path.abspath(path))
    return None


def table_spec(info, directory):
    """The table arguments recorded in an ``experiment.json``, checked (data, never code).

    Parameters
    ----------
    info : dict
        The checked ``experiment.json``
        (:func:`krein.experiment.validate.read_experiment_json`).
    directory : str
        Its results directory (named in the error messages).

    Returns
    -------
    dict or None
        ``info["table"]``, or None when nothing is recorded.

    Raises
    ------
    ValueError
        When ``table`` is not an object, has an argument outside
        :data:`TABLE_SPEC_KEYS`, or a value that is not a name, a number or a
        list of names; the message names the file.
    """
    spec = info.get("table")
    if spec is None:
        return None
    where = os.path.join(directory, "experiment.json")
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: 'table' must be a JSON object of table arguments; got "
                         f"{type(spec).__name__}")
    bad = [k for k in spec if k not in TABLE_SPEC_KEYS]
    if bad:
        raise ValueError(f"{where}: 'table' has unknown argument(s) {', '.join(map(repr, bad))} "
                         f"(accepted: {', '.join(TABLE_SPEC_KEYS)})")
    for k, v in spec.items():
        ok = (v is None or isinstance(v, (str, int, float, bool))
              or (isinstance(v, list) and all(isinstance(u, str) for u in v)))
        if not ok:
            raise ValueError(f"{where}: 'table': {k} must be a name, a number or a list of "
                             f"names; got {v!r}")
    return spec


def recorded_hooks(info, directory, what):
    """What makes the table or figures of a results directory without running its script.

    Parameters
    ----------
    info : dict
        The checked ``experiment.json`` of the directory (``{}`` when there is
        none).
    directory : str or None
        The results directory (:func:`results_directory`).
    what : {"table", "figures"}
        What is being made.

    Returns
    -------
    hooks : types.SimpleNamespace
        ``table`` (the recorded table arguments, :func:`table_spec`, or None)
        and ``figures`` (None: the generic figures), as
        :func:`krein.experiment.make_table` / ``make_figures`` take them.
    skipped_script : str or None
        The script recorded in ``experiment.json`` whose own ``what`` function
        is not run here (it has one, or, for a directory written before the
        hooks were recorded, may have one); None when nothing is skipped.

    Raises
    ------
    ValueError
        On bad recorded table arguments (:func:`table_spec`).
    """
    spec = table_spec(info, directory) if info else None
    script = info.get("script")
    hooks = info.get("hooks")
    skipped = None
    if script and isinstance(script, str):
        if isinstance(hooks, dict):
            own = bool(hooks.get(what))
        else:  # written before the hooks were recorded: a table spec is data, a hook unknown
            own = what == "figures" or spec is None
        skipped = script if own else None
    return types.SimpleNamespace(table=spec, figures=None), skipped


def default_figure_directory(results):
    """Where the figures of a results file go when no directory is given: next to it.

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


def table_file(directory, fmt="markdown"):
    """The table file of a results directory: ``DIR/table.md``, ``.tex`` or ``.csv``.

    Parameters
    ----------
    directory : str or path-like
        The results directory.
    fmt : {"markdown", "latex", "csv"}, default="markdown"
        The table format.

    Returns
    -------
    str
        The path of the table file.
    """
    return os.path.join(os.fspath(directory), f"table.{TABLE_FORMATS[fmt]}")


def write_table(results, path=None, experiment=None, fmt="markdown", **overrides):
    """Make the table of a results file and write it atomically to ``path``.

    Parameters
    ----------
    results : pandas.DataFrame, or path of a results file or directory
        As :func:`krein.experiment.make_table` takes them.
    path : str or path-like, optional
        Where to write the table; None: write nothing, only return it.
    experiment : Experiment or types.SimpleNamespace, optional
        Whose ``table`` arguments or function make the table
        (:func:`krein.experiment.make_table`).
    fmt : {"markdown", "latex", "csv"}, default="markdown"
        The table format.
    **overrides
        :func:`krein.experiment.results_table` arguments (``value``, ``rows``,
        ``columns``...) replacing the experiment's; None values are ignored.

    Returns
    -------
    str
        The formatted table (the text written).
    """
    from .._io import atomic_write_text
    from .report import make_table

    text = make_table(results, experiment, fmt=fmt, **overrides)
    if path is not None:
        atomic_write_text(path, text)
    return text


def write_solver_output(result, text):
    """Save what the solvers printed during a comparison as ``DIR/solver_output.txt``.

    Solvers written in C or C++ print past ``sys.stdout``
    (:func:`krein._io.captured_stdout` catches it); the comparison keeps that
    text beside its other files instead of the terminal.

    Parameters
    ----------
    result : krein.compare.ComparisonResult
        The comparison: its ``directory`` (None when nothing is saved) and
        ``files`` (the path written is appended).
    text : str
        The captured output.

    Returns
    -------
    str or None
        The path written, or None when the text is blank or the comparison
        saves no files.
    """
    from .._io import atomic_write_text

    if not text.strip() or result.directory is None:
        return None
    path = os.path.join(result.directory, "solver_output.txt")
    atomic_write_text(path, text)
    result.files.append(path)
    return path
