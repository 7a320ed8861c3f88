"""Loosli et al. (2013) Table 3: dissimilarity data sets, dissimilarities used as the kernel.

Loosli, Ong & Canu, "Learning SVM in Krein spaces", Table 3: 5-fold CV
accuracy (%) of ESVM, ESVM-L (90 %), KSVM, RVM, IndefiniteSVM, LP-SVM and the
SVM on the flipped / clipped / shifted kernels, mean (spread) over 10 runs,
``C`` found by cross-validation, least eigenvalue under the data set name.
"We use a linear kernel and train the SVM on the dissimilarity measures": the
printed least eigenvalues (Balls3D -2889.4, CatCortex -24.61, Protein -322.34,
NewsGroups -16.39) are those of the dissimilarity matrix ``D`` itself, so the
kernel is ``K = D`` (``"dissimilarity-raw"`` of :mod:`krein.kernel_data`), not the
classical-scaling kernel ``-1/2 J D^2 J``.  Here:

* data: the shipped Balls3D (200), CatCortex (65 objects, the paper's
  "2vs1" read as classes 1+2 vs 3: 47 objects), Protein (213, "2vs2" read as
  HA+HB vs M+G), NewsGroups (600, classes 1+2 vs 3+4) -- the splits are our
  reading, :data:`krein.datasets.PAPER_SPLITS` -- and CoilYork in its only
  public binary version: the 144 x 144 TRAINING block of the IKSVM-DC copy
  (two classes, symmetrized), not the paper's 288 objects in 4 classes
  (the test-vs-test block is not in the file);
* REGENERATED sets (new draws, not the Delft data; no public copy was found):
  ``gaussm1-regenerated``, ``gaussm02-regenerated`` (2000 objects) and
  ``polydish57-regenerated`` (4000 objects), a new draw per repeat
  (:func:`krein.datasets.make_gauss_minkowski`,
  :func:`krein.datasets.make_polygon_hausdorff`);
* kernel: ``K = D / unit`` with ``unit`` the mean off-diagonal dissimilarity
  of the data set (:data:`UNITS`, of the seed-0 draw for the regenerated
  sets), so that one grid of ``C`` fits every set.  The SVM-type methods are
  equivariant under ``K -> K / s``, ``C -> s C`` (IndefiniteSVM also ``rho ->
  s^3 rho``), so this only rescales the grid; multiply the reported least
  eigenvalues by ``unit`` to compare with the paper's (the README does);
* protocol on the shipped sets: stratified 5-fold CV x 10 repeats, ``C`` in
  {0.1, 1, 10, 100} by inner 3-fold CV, IndefiniteSVM also ``rho`` in
  {0.1, 1, 10}; on the regenerated sets (1600 and 3200 training objects) the
  whole grid does not fit in a working session on two cores: ONE repeat of
  5-fold CV, ``C`` by inner 2-fold CV, IndefiniteSVM at ``rho = 1``, cells
  fold by fold (every method of fold 0 first) so that a stopped run still
  compares all methods;
* testing with the original kernel rows, as the paper (IndefiniteSVM with
  ``out_of_sample="raw"``); solvers as in ``loosli_table2.py`` (LP-SVM: HiGHS).

``--quick``: CatCortex and a 120-object GaussM1 draw, four methods, 2 folds,
1 repeat, inner 2-fold CV over C in {0.1, 1}.

Run: ``krein experiment run experiments/loosli_table3.py [--quick]``; the
committed full-run results are ``experiments/results/loosli_table3.csv``.
"""

import os

from krein.experiment import Experiment, classification_grid, import_script

_HERE = os.path.dirname(os.path.abspath(__file__))

#: Least eigenvalues printed in Loosli et al. (2013) Table 3 (of K = D, all objects).
PAPER_LEAST_EIGENVALUES = {"balls3d": -2.8894e03, "gaussm1-regenerated": -1.8739e03,
                           "gaussm02-regenerated": -2.1096e08, "catcortex": -24.61,
                           "protein": -322.34, "coilyork": -9.4559e03, "newsgroups": -16.39,
                           "polydish57-regenerated": -535.96}

#: Mean off-diagonal dissimilarity of each set (binary split of PAPER_SPLITS; seed-0 draw
#: of 2000 / 1000 objects for the regenerated sets): the kernel is D / UNITS[name].
UNITS = {"balls3d": 66.388, "gaussm1-regenerated": 22.943, "gaussm02-regenerated": 2.7653e6,
         "catcortex": 3.4348, "protein": 10.398, "coilyork": 202.67, "newsgroups": 0.96498,
         "polydish57-regenerated": 0.11601}

SHIPPED = ["balls3d", "catcortex", "protein", "coilyork", "newsgroups"]
REGENERATED = ["gaussm1-regenerated", "gaussm02-regenerated", "polydish57-regenerated"]

METHODS = ["esvm", "esvm-l", "ksvm", "rvm", "indefinite-svm", "lp-svm", "flip", "clip",
           "shift", "svm"]


def _specs(methods, c_grid, rho_grid):
    """Method entries shared with Table 2 (:func:`loosli_table2.method_specs`)."""
    t2 = import_script(os.path.join(_HERE, "loosli_table2.py"))
    return t2.method_specs(methods, c_grid, rho_grid)


def _cells(dataset, methods, c_grid, rho_grid, folds, repeats, inner, n_samples=None,
           fold_major=False):
    binary = "paper" if dataset in ("balls3d", "catcortex", "protein", "newsgroups") else None
    d = {"dataset": dataset, "n_samples": n_samples, "binary": binary}
    kernel = {"kernel": "dissimilarity-raw", "params": {"unit": UNITS[dataset]}}
    cells = classification_grid([d], _specs(methods, c_grid, rho_grid), kernels=[kernel],
                                param_grid={"C": c_grid}, outer_folds=folds, repeats=repeats,
                                inner_folds=inner, scoring="accuracy", save_trace=False)
    order = {m: i for i, m in enumerate(methods)}
    if fold_major:
        return sorted(cells, key=lambda c: (c["repeat"], c["fold"], order[c["method"]]))
    return sorted(cells, key=lambda c: (c["repeat"], order[c["method"]], c["fold"]))


def experiment(quick=False):
    """The Table 3 grid (module docstring); ``quick`` shrinks it to seconds."""
    if quick:
        methods = ["esvm", "ksvm", "lp-svm", "flip"]
        grid = (_cells("catcortex", methods, [0.1, 1.0], [1.0], 2, 1, 2)
                + _cells("gaussm1-regenerated", methods, [0.1, 1.0], [1.0], 2, 1, 2,
                         n_samples=120, fold_major=True))
    else:
        c_grid = [0.1, 1.0, 10.0, 100.0]
        grid = []
        for name in SHIPPED:
            grid += _cells(name, METHODS, c_grid, [0.1, 1.0, 10.0], 5, 10, 3)
        # the expensive ones first within a fold: they are the cells the paper left empty
        big = ["indefinite-svm", "lp-svm"] + [m for m in METHODS
                                              if m not in ("indefinite-svm", "lp-svm")]
        for name in REGENERATED:
            grid += _cells(name, big, c_grid, [1.0], 5, 1, 2, fold_major=True)
    return Experiment("loosli_table3", grid, random_state=0,
                      description="Loosli et al. 2013 Table 3: dissimilarity data sets, K = D "
                                  "(scaled by the mean dissimilarity), 5-fold CV, C by inner CV; "
                                  "GaussM1/GaussM02/PolyDisH57 REGENERATED",
                      table={"value": "accuracy", "rows": ["dataset"], "columns": "method"})
