"""Loosli et al. (2013) Figs. 6-7: accuracy against the least eigenvalue of the training kernel.

Loosli, Ong & Canu, "Learning SVM in Krein spaces", Figs. 6 (Heart) and 7
(Sonar): the test accuracy of every method for sigmoid kernels of different
indefiniteness, plotted against the least eigenvalue of the training kernel.
Their observation: ESVM (and RVM, LP-SVM) stay accurate whatever the least
eigenvalue; the spectrum heuristics (flip "Abs", clip "Trunc", shift) are
poor when it is very negative and fine when it is small.

Here: Sonar and Heart (standardized), sigmoid ``tanh(a x'z + r)`` with ``a = c
/ n_features``, ``c`` in {0.5, 2, 8, 32} and ``r`` in {-0.5, -1, -2} (least
training eigenvalues from about -30 to -260; the paper does not give its
parameters), 5 outer folds x 2 repeats, ``C`` by inner 3-fold CV over {0.1,
1, 10, 100}.  ``krein experiment plot`` draws ``*_accuracy_vs_eigenvalue.png``
(one panel per data set, one line per method).

``--quick``: Heart subsample of 100, ``c`` in {0.5, 8}, ``r = -1``, three
methods, 2 folds, ``C = 1`` (no inner CV).
"""

from krein.experiment import Experiment, classification_grid

N_FEATURES = {"sonar": 60, "heart": 13}
METHODS = ["esvm", "esvm-l", "ksvm", "svm", "flip", "clip", "shift", "indefinite-svm",
           "lp-svm", "rvm"]


def experiment(quick=False):
    """The sweep (module docstring); ``quick`` shrinks it to seconds."""
    if quick:
        plan = {"heart": {"n_samples": 100}}
        cs, rs, methods = [0.5, 8.0], [-1.0], ["esvm", "flip", "clip"]
        kw = {"param_grid": {"C": [1.0]}, "folds": 2, "repeats": 1, "inner_folds": 2}
    else:
        plan = {"sonar": {}, "heart": {}}
        cs, rs, methods = [0.5, 2.0, 8.0, 32.0], [-0.5, -1.0, -2.0], METHODS
        kw = {"param_grid": {"C": [0.1, 1.0, 10.0, 100.0]}, "folds": 5, "repeats": 2,
              "inner_folds": 3}
    grid = []
    for dataset, extra in plan.items():
        d = N_FEATURES[dataset]
        kernels = [{"kernel": "sigmoid", "params": {"a": c / d, "r": r}} for c in cs for r in rs]
        grid += classification_grid([{"dataset": dataset, **extra}], methods, kernels, **kw)
    return Experiment("sigmoid_sweep", grid, seed=0,
                      description="Loosli et al. 2013 Figs. 6-7: accuracy vs least eigenvalue, "
                                  "sigmoid kernels on Sonar and Heart",
                      table={"value": "accuracy", "columns": "method"})
