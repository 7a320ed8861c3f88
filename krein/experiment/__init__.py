"""Experiments: declared grids of cells, resumable tidy results, joblib or Dask, tables, figures.

The package has one module per responsibility:

* :mod:`~krein.experiment.grid` -- :class:`Experiment`, :class:`Cell`,
  :func:`cartesian` (declaration);
* :mod:`~krein.experiment.seeds` -- :func:`cell_seed` (the seeds every random
  choice derives from; below both grid and classification, which do not import
  each other);
* :mod:`~krein.experiment.classification` -- the classification protocol (one
  CV loop for ``krein compare`` and every paper table), :func:`build_estimator`;
* :mod:`~krein.experiment.metrics` -- :func:`classification_metrics`,
  :func:`solver_version`;
* :mod:`~krein.experiment.runner` -- :func:`run_experiment` (serial, joblib,
  Dask; resume);
* :mod:`~krein.experiment.scripts` -- :func:`load_experiment`,
  :func:`import_script`;
* :mod:`~krein.experiment.store` -- the results file (keys, atomic rewrites,
  lock);
* :mod:`~krein.experiment.report` -- tables from the results file only;
* :mod:`~krein.experiment.figures` -- figures from the results file only;
* :mod:`~krein.experiment.solver_study` -- the solver-swapping study
  (``experiments/solver_swap.py``).

An **experiment** is a grid of *cells* (configurations: plain dicts of JSON
values) and a *cell function* ``cell(params) -> dict`` that computes one cell.
Public signatures use the parameter vocabulary (``random_state``,
``outer_folds``); the keys stored in the cells (``seed``, ``cv_seed``,
``outer_folds``) are hashed into the cell keys of results on disk and keep their
names.
:func:`run_experiment` runs every cell not yet in the results file, in the
parent process, in parallel with joblib, or on a Dask cluster, and writes each
finished cell at once (atomically) to ``DIR/results.csv``; the table and the
figures are made from that file only (:func:`results_table`,
:func:`plot_results`).  On the command line::

    krein experiment run experiments/loosli_table2.py [--quick] [--n-jobs N]
                                                      [--dask ADDRESS] [--out DIR]
    krein experiment table results/loosli_table2 [--format markdown|latex|csv]
    krein experiment plot results/loosli_table2 [--out DIR]     # default: results/loosli_table2/figures
    krein experiment plot results/loosli_fig2 --script experiments/loosli_fig2.py  # own figures too

Every result file is read through one validating reader
(:mod:`krein.experiment.validate`: whole rows, types, unique keys, counts
against ``experiment.json``); a damaged row is refused with its file and line
by ``table``/``plot`` and recomputed by a resumed ``run``.  ``table`` and
``plot`` never import the script a results directory names: the script's own
``table``/``figures`` functions run only with ``--script PATH``.

Declaring an experiment
-----------------------
A script ``experiments/NAME.py`` defines ``experiment(quick=False) ->
Experiment`` (``quick=True`` shrinks every grid so the script runs in seconds),
or the constants ``EXPERIMENT`` and ``QUICK_EXPERIMENT``::

    from krein.experiment import Experiment, classification_grid

    def experiment(quick=False):
        grid = classification_grid(
            datasets=["sonar", "heart"],
            kernels=[{"kernel": "sigmoid"}],
            methods=["esvm", {"method": "indefinite-svm",
                              "grid": {"C": [0.1, 1, 10], "rho": [0.1, 1, 10]}}],
            param_grid={"C": [0.1, 1, 10]},          # inner CV grid of every method
            outer_folds=2 if quick else 5, repeats=1 if quick else 10)
        return Experiment("sonar_heart", grid, random_state=0)

Any other task is a cell function and a grid, e.g. with :func:`cartesian`::

    def solve_one(params):                # runs in a worker: import inside if heavy
        ...
        return {"status_solver": sol.status, "objective": sol.objective,
                "solve_seconds": sol.solve_time, "trace": trace_dataframe}

    EXPERIMENT = Experiment("solvers", cartesian(formulation=["svm-dual", "lp-svm"],
                                                  solver=["CLARABEL", "SCS"], n=[50, 100]),
                            cell=solve_one)

The cell function
-----------------
``cell(params)`` receives a deep copy of the cell's parameters plus ``"seed"``
(the experiment's seed) and returns a flat dict: metric name -> None, bool,
int, float or str (lists, dicts and arrays are stored as JSON text).  The
optional key ``"trace"`` holds a :class:`pandas.DataFrame` written to
``DIR/traces/KEY.csv`` (e.g. objective and gap per iteration).  Timing metrics
must end in ``seconds`` (comparisons of runs ignore them, see
:func:`volatile_columns`).  Names may not repeat a parameter or a runner column
(:data:`krein.experiment.store.META_COLUMNS`, :data:`krein.experiment.store.PROVENANCE_COLUMNS`).
An exception makes the cell a row with ``status="error"`` and the error text;
the grid goes on.  Random numbers come from :func:`cell_seed` (derived from
the experiment's seed and chosen parameters), never from global state, so a
rerun, another process or another machine gives the same numbers.  The
function must be picklable for joblib and Dask: functions of an experiment
script loaded by :func:`load_experiment` are sent by value.

Results that are never lost
---------------------------
Every row carries the cell's key, the SHA-256 of its canonical configuration
(task name and parameters, seed included; :func:`krein.experiment.store.cell_key`).  A
rerun skips the keys already in the file (``retry_errors=True`` recomputes the
error rows), so a run killed at any moment, even by SIGKILL, resumes where it
stopped without recomputing a finished cell.  The file is rewritten whole,
atomically (temporary file, ``fsync``, ``os.replace``), by the parent process
only: it is always a complete, parseable table (the module docstring of
:mod:`krein.experiment.store` explains why not an append).  A lock file keeps a
second run off the same directory.

Parallel runs
-------------
``n_jobs != 1`` runs cells with joblib (``return_as="generator_unordered"``;
the parent writes each result as it arrives); ``backend="dask"`` with a
scheduler address (or a ``dask.distributed.Client``) submits them to a Dask
cluster (``Client.submit``, ``as_completed``).  Every random number depends
only on the cell's configuration and the rows are stored in grid order, so the
results are identical to the serial run's except for the
:func:`volatile_columns` (timings, host, pid, timestamp, versions).  Warnings
are recorded per cell with :func:`warnings.catch_warnings`, which is
process-global: in a threaded worker (Dask ``processes=False`` with several
threads) a warning may land in a neighbouring cell's ``warnings`` column.

The classification task (Loosli et al. 2013 §6.3, Luss & d'Aspremont 2009 §5.1)
---------------------------------------------------------------------------------
:func:`classification_cell` is one outer fold of a repeated stratified K-fold
cross-validation with model selection inside: inner stratified K-fold CV on
the outer training split over the experiment's grid of method parameters
(``C``, ``rho``, ...) and kernel parameters, refit with the best ones on the
whole outer training split, score on the outer test split.  Luss &
d'Aspremont select ``C``, ``rho`` and the kernel inputs by five-fold CV on the
training data "using an average of the accuracy and recall" (``scoring =
"average"``), then "train a model with the full training set and optimal
parameters and test on the independent test set"; Loosli et al. report 5-fold
CV accuracies, mean (std) over 10 runs, ``C`` found by cross-validation
(Table 3).  Metrics: accuracy, recall and their average (luss Table 2),
sensitivity and specificity (munoz §4), fit/predict/selection seconds,
support vectors, least eigenvalue, ``r_mm`` and ``r_neg`` of the training
kernel block, and the solver, its version and status.  Data and kernels come
from :func:`krein.kernel_data.load_kernel_data`, with its per-fold rules
(dissimilarity-linear centering, label-dependent pick-out kernels, stacked
base kernels) applied to the inner splits too.
"""


from .._io import save_png
from .classification import (CLASSIFICATION_DEFAULTS, SCORINGS, build_estimator,
                             certificate_measure,
                             cell_kernel_data, classification_cell, classification_grid,
                             classification_metrics, outer_splits, solver_version)
from .grid import Cell, Experiment, cartesian, cell_seed
from .figures import (make_figures, plot_accuracy, plot_accuracy_vs_eigenvalue,
                      plot_convergence, plot_results, plot_time_vs_n)
from .report import (TABLE_FORMATS, format_frame, make_table, read_results, results_table,
                     summarize, volatile_columns)
from .page import (SavedComparison, accuracy_figure, boundary_figure, read_comparison,
                   spectrum_figure, write_report)
from .runner import BACKENDS, RunReport, default_directory, read_sidecar, run_experiment
from .scripts import import_script, load_experiment
from .validate import ResultFileError

__all__ = [
    "Experiment",
    "Cell",
    "RunReport",
    "cartesian",
    "cell_seed",
    "classification_grid",
    "classification_cell",
    "classification_metrics",
    "build_estimator",
    "cell_kernel_data",
    "outer_splits",
    "solver_version",
    "certificate_measure",
    "SavedComparison",
    "read_comparison",
    "write_report",
    "spectrum_figure",
    "accuracy_figure",
    "boundary_figure",
    "run_experiment",
    "load_experiment",
    "import_script",
    "read_results",
    "results_table",
    "summarize",
    "plot_results",
    "plot_accuracy",
    "plot_accuracy_vs_eigenvalue",
    "plot_time_vs_n",
    "plot_convergence",
    "save_png",
    "volatile_columns",
    "format_frame",
    "make_table",
    "make_figures",
    "default_directory",
    "read_sidecar",
    "ResultFileError",
    "CLASSIFICATION_DEFAULTS",
    "SCORINGS",
    "TABLE_FORMATS",
    "BACKENDS",
]
