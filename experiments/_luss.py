"""Shared by the Luss & d'Aspremont figure scripts (``luss_fig1.py``, ``luss_fig2.py``).

Not an experiment (the leading underscore keeps it out of the ``--quick`` test run).
"""

from pathlib import Path

#: Columns of a runner's results file that a committed CSV leaves out (per-machine data).
DROPPED_COLUMNS = {"config", "host", "pid", "trace_file", "warnings", "task", "error",
                   "experiment"}


def slim_run(experiment, results_dir, name, figures):
    """Commit a full run: ``experiments/results/NAME.csv`` and the figures drawn from it.

    Parameters
    ----------
    experiment : krein.experiment.Experiment
        The full grid; only its cells that finished ("ok") are kept.
    results_dir : str or path-like
        The run's results directory (``krein experiment run`` wrote it).
    name : str
        The CSV's stem.
    figures : callable
        ``figures(results_frame, figures_dir)`` draws the committed figures.

    Returns
    -------
    pathlib.Path
        The CSV written (without host and configuration columns, only krein's
        version column).
    """
    import pandas as pd

    from krein._io import atomic_write_bytes, csv_bytes
    from krein.experiment import read_results

    here = Path(__file__).resolve().parent
    df = read_results(results_dir)
    keys = {c.key for c in experiment.cells}
    df = df[df["key"].isin(keys) & (df["status"] == "ok")]
    cols = [c for c in df.columns if c not in DROPPED_COLUMNS
            and (not c.startswith("version_") or c == "version_krein")]
    out = here / "results" / f"{name}.csv"
    atomic_write_bytes(out, csv_bytes(df[cols], index=False, float_format="%.6g"))
    figures(pd.read_csv(out), here.parent / "figures")
    return out
