"""Loosli et al. (2013) Fig. 5: training time against the training set size.

Loosli, Ong & Canu, "Learning SVM in Krein spaces", Fig. 5: training time of
each method on a binary checkerboard with 10 % overlapping classes, for
increasing training sizes, averaged over 10 runs.  Their observation: KSVM
and RVM scale alike, ESVM pays for the full eigendecomposition, ESVM-L is the
fastest, IndefiniteSVM and LP-SVM the slowest.

Here: :func:`krein.datasets.make_checkerboard` (4 x 4, overlap 0.1, a new
board per repeat, standardized), sigmoid kernel ``a = 1, r = -0.5``, ``C =
1`` (no model selection: time only), 2 outer folds so ``n_train = n_samples
/ 2`` in {50, ..., 800}, 5 repeats; ``fit_seconds`` is the time of ``fit`` on
the precomputed training block.  ``krein experiment plot`` draws
``*_time_vs_n.png`` (log-log).  Time it serially (``--n-jobs 1``): parallel
workers share the cores and the timings.

``--quick``: 60 and 120 points, three methods, one repeat.
"""

from krein.experiment import Experiment, classification_grid

METHODS = ["esvm", "esvm-l", "ksvm", "rvm", "indefinite-svm", "lp-svm", "svm", "flip"]


def experiment(quick=False):
    """The timing grid (module docstring); ``quick`` shrinks it to seconds."""
    sizes = [60, 120] if quick else [100, 200, 400, 800, 1600]
    methods = ["esvm", "ksvm", "svm"] if quick else METHODS
    grid = classification_grid(
        [{"dataset": "checkerboard", "n_samples": n} for n in sizes], methods,
        kernels=[{"kernel": "sigmoid", "params": {"a": 1.0, "r": -0.5}}],
        param_grid={"C": [1.0]}, folds=2, repeats=1 if quick else 5, save_trace=False)
    return Experiment("checkerboard_time", grid, seed=0,
                      description="Loosli et al. 2013 Fig. 5: training time vs n on the "
                                  "checkerboard",
                      table={"value": "fit_seconds", "rows": ["n_samples"],
                             "columns": "method", "eigenvalue": False})
