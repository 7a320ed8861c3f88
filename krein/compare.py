"""Compare registered methods on one data set and one kernel: ``krein compare``.

A thin client of :mod:`krein.experiment`.  A :class:`Comparison` declares
what is compared (data, kernel, methods, folds, grids, seed), validated once;
:func:`run_comparison` turns it into the cells of
:func:`krein.experiment.classification_grid` (one per method, repeat and
outer fold), runs them with :func:`krein.experiment.run_experiment`, and
returns a :class:`ComparisonResult`; :func:`compare` is the keyword shortcut
that returns the summary table.  So the data (:func:`krein.kernel_data.load_kernel_data`
for a bundled set, :func:`krein.kernel_data.load_kernel_file` /
:func:`krein.kernel_data.load_feature_file` for the user's own file), the folds,
the inner model selection, the estimator builder
(:func:`krein.experiment.build_estimator`), the per-fold rules and the error
text are the experiments' own, and the runner does every fit: on 2-D feature
data the decision boundaries too (:mod:`krein.experiment.boundaries`: one
cell per method, fitted on all the data with the parameters its folds chose
most often; a failed fit is recorded with its error).

A fair comparison by default
----------------------------
Every method's parameters are chosen by inner stratified cross-validation on
each outer training fold (nested CV): the method's default grid from the
registry (:func:`krein.registry.default_grid`), placed relative to the scale
``s`` of the training kernel (:func:`krein.kernels.kernel_scale`: mean
``|K_ii|``, or mean ``|K_ij|`` of a matrix with a negligible diagonal; in an
approximated run the mean ``k(x_i, x_i)`` from the features), so that ``K``
and ``c K`` choose the same models, and, when the kernel is computed from
feature vectors, the kernel's scale parameter
(:func:`krein.kernel_data.default_kernel_grid`).  A method's scale parameters
that are not tuned (``nearest-psd``'s ``correction__diagonal``) move with
``s`` in the same way (:func:`krein.registry.scaled_defaults`).  These grids are
where the inner search starts (:mod:`krein.experiment.tuning`): their values are
placed in the range the inner training parts make feasible, and a parameter chosen
at an end is extended by one step of its grid, up to ``grid_extension`` (default
3) steps per side, the choice's neighbours scored at each step; the ``[edge]``
flag then names a choice at a limit of that search.  ``grid`` overrides entries
with absolute values (each checked against the estimators'
``_parameter_constraints``; searched as given unless ``grid_extension`` is given),
a fixed ``C`` (absolute) takes ``C`` out of the
grids, ``tune=False`` fixes everything.  A matrix given as a kernel that
looks like a distance matrix (:func:`krein.diagnosis.kernel_suitability`)
gets one :class:`krein.diagnosis.DistanceAsKernelWarning` naming
``dissimilarity``.

Folds: repeat ``r`` splits with ``StratifiedKFold(outer_folds, shuffle=True,
random_state=random_state + r)`` and each outer training split again with
``StratifiedKFold(inner_folds, shuffle=True, random_state=random_state + r)``
(``cv_seed`` of :func:`krein.experiment.classification_cell`); so
``cross_val_score(GridSearchCV(est, grid, cv=inner), K, y, cv=outer)`` with
those splitters gives the table's numbers for repeat 0, and every method sees
the same folds.  Estimators with a ``random_state`` get one derived from the
run's seed (and from the cell: method, fold, parameters, the data file's name,
not its directory): the same input and seed give the same table, wherever the
file lies.

At large n one inner split: when an outer training part holds more than
:data:`krein.comparison_arguments.VALIDATION_SPLIT_ABOVE` (20 000) objects and
``inner_folds`` is not given, the inner model selection fits each grid point
once, on one stratified validation split
(``StratifiedShuffleSplit(1, test_size=validation_fraction,
random_state=random_state + r)``, 20 % by default) instead of 3 folds: the
same split for every method of a fold, so that the comparison stays paired
(:func:`krein.experiment.classification.inner_splits`).  ``inner_folds=1``
asks for it at any size, ``inner_folds=k`` for k folds at any size;
``run.json`` (``protocol.inner``) and the page say which ran.

On a cluster: with ``scheduler`` (a ``dask.distributed`` scheduler address,
``--dask`` on the command line) the cells run on its workers through the
runner's Dask backend (:func:`krein.experiment.run_experiment`); the cells,
their seeds and so the tables are those of a local run (only the timings
differ).  The workers need krein and the data files at the same paths.

Cells run fold by
fold (all methods of a fold, then the next fold), inside
:func:`krein._cache.shared_computations`, so the methods of a fold share one
eigendecomposition of its training block.

Data too large for the n x n kernel
-----------------------------------
With ``approximation="nystroem:M"`` no ``n x n`` array is formed anywhere:
each fit gets the feature rows of its split, the named kernel and an
:class:`krein.approximation.IndefiniteNystroem` of ``M`` landmarks (drawn
among the fit's training rows with the fold's seed, so every method of a fold
gets the same landmarks).  Methods without an approximate path are listed as
skipped; the others may run with a changed solver or out-of-sample map
(:func:`krein.experiment.classification.approximation_defaults`), said in
their ``note``.  The spectrum figures are those of the approximation.

Output directory
----------------
With ``out``, the run writes the files of
:mod:`krein.experiment.comparison_files` (``run.json``, ``summary.csv``,
``folds.csv``, ``spectrum.csv``, on 2-D feature data ``points.csv`` and
``boundaries.csv``, for a matrix with object names ``objects.csv``, the figures
and ``report.html``), the runner's per-cell
files in ``cells/`` (the boundary cells in ``cells/boundaries/``; written as
each cell finishes, so an interrupted run loses nothing it finished) and
``args.json`` (which comparison the directory holds).  The directory is
claimed and locked by one run (:mod:`krein.experiment.comparison_dir`): one
that already holds a comparison is refused unless ``force`` (replace it) or
``resume`` (finish it: the cells are reused when they belong to the same
comparison); with ``fresh=True`` the run creates the first free one of
``out``, ``out-2``...  Every file is written atomically: never partial or
empty; a full disk is an error naming the file.
"""

from __future__ import annotations

import inspect
import os
import tempfile
import time
from dataclasses import dataclass, field, fields

import numpy as np

from ._threads import resolve_blas_threads
from ._validation import InvalidArgument
from .experiment import (Experiment, build_estimator, cell_kernel_data, classification_grid,
                         run_experiment)
from .experiment.boundaries import (boundary_cell, boundary_grid, boundary_table, chosen_params,
                                   points_table)
from .experiment.classification import approximation_defaults
from .registry import approximate_size_limit
from .experiment.comparison_dir import check_out, claim_out, new_run_directory
from .experiment.comparison_files import CELLS_DIR, OUTPUT_FILES
from .experiment.comparison_result import (FOLD_COLUMNS, SUMMARY_COLUMNS, ComparisonResult,
                                           flag_suspect, fold_table, kernel_record, run_info,
                                           summarize, write_outputs)
from .experiment.store import DirectoryInUse
from .approximation_spec import LANDMARK_COLUMNS
from .experiment.tuning import GRID_EXTENSION
from .kernel_data import (check_approximation, check_data_arguments, default_kernel_grid,
                          has_test_part)
from .registry import (REQUIREMENTS, default_grid, list_methods, method_requirements,
                       scaled_defaults)
from .comparison_arguments import (VALIDATION_FRACTION, check_C, check_count, check_grid,
                                   check_kernel_grid, check_methods, check_solver, check_task,
                                   check_validation_fraction, data_set_entry, is_int,
                                   MATRIX_FORMAT_DEFAULTS,
                                   resolve_inner_folds, run_name, safe_name)

__all__ = [
    "Comparison",
    "run_comparison",
    "compare",
    "ComparisonResult",
    "InvalidArgument",
    "new_run_directory",
    "run_name",
    "safe_name",
    "DirectoryInUse",
    "run_info",
    "load_comparison_data",
    "spectrum_plot",
    "SUMMARY_COLUMNS",
    "FOLD_COLUMNS",
    "OUTPUT_FILES",
]


#: ``metadata`` of the fields of :class:`Comparison` derived from the others (not arguments).
_DERIVED = {"derived": True}

#: Default inner-CV grid of ``epsilon`` (the width of the insensitive zone) of the
#: regressors that have one, relative to the targets' spread: ``epsilon = e * std(y)``.
EPSILON_GRID = (0.01, 0.1, 0.3)

#: How a regressor's parameters follow the targets ``y -> t y``: with each listed parameter
#: times ``t ** exponent`` the fit on ``t y`` is ``t`` times the fit on ``y`` (the SVR duals:
#: ``alpha -> t alpha`` within ``C``, the insensitive zone ``epsilon``; the proxy kernel's
#: ``u u' / 4 rho``, Luss & d'Aspremont 2009 eq. 17; the Krein norm ``||f||^2 = r^2``).
#: ``krein compare --task regression`` places the grids and the fixed defaults of these
#: parameters at ``t = std(y)``; the others (``alpha`` of ridge, ``n_neighbors``) do not
#: depend on ``t``.
TARGET_EXPONENTS = {"C": 1, "epsilon": 1, "rho": 2, "radius_squared": 2}

#: The ``nu`` of every novelty method that has one (``krein compare --task novelty``): the
#: bound on the fraction of training inliers called outliers.  Nothing is tuned in a
#: novelty comparison: an inner score would need outliers, and the training split's
#: outliers are never used.
NOVELTY_NU = 0.1


class _DeclaredOnce(type):
    """Metaclass of :class:`Comparison`: ``Comparison(**arguments)`` is built once, final.

    The arguments are checked and normalised first (:func:`_comparison_values`)
    and the frozen instance is built from the final values by the dataclass's
    own ``__init__``; the signature shown (``help``, :func:`inspect.signature`)
    is that of the arguments.
    """

    def __call__(cls, *args, **arguments):
        if args:
            raise TypeError(f"{cls.__name__}() takes keyword arguments only; got {len(args)} "
                            "positional")
        return super().__call__(**_comparison_values(arguments))

    @property
    def __signature__(cls):
        return inspect.Signature([
            inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default)
            for f in fields(cls) if not f.metadata.get("derived")])


@dataclass(frozen=True, kw_only=True)
class Comparison(metaclass=_DeclaredOnce):
    """What a comparison compares, validated once: the declaration :func:`run_comparison` runs.

    Nested cross-validation by default (module docstring): each repeat ``r``
    is a stratified ``outer_folds``-fold split, the SAME for every method; on
    each outer training split an inner stratified ``inner_folds``-fold CV
    (or, above :data:`krein.comparison_arguments.VALIDATION_SPLIT_ABOVE`
    training objects, one stratified validation split) chooses the method's
    parameters from its registry grid and, on feature data, the kernel's
    scale parameter; the method is refitted with them and
    scored on the outer test split.  Data with a predefined test part (the
    bundled ``coilyork`` loaded whole, ``test_kernel_file`` or
    ``test_data_file``) are instead tuned by that inner CV on the whole
    training part, refitted on it and scored once on the test part
    (``outer_split`` ``"predefined"``, one fold:
    :func:`krein.experiment.classification_grid`).

    Parameters
    ----------
    dataset : str, default "sonar"
        A name from :func:`krein.datasets.available_datasets` (ignored with
        ``kernel_file`` or ``data_file``): a shipped vector data set,
        standardized; a dissimilarity data set; ``"checkerboard"``
        (``make_checkerboard(n_samples or 300, overlap=0.1)``, standardized);
        or ``"munoz-artificial"`` (default kernel ``"pick-out-linear"``).
    kernel : str, optional
        Vector data: a name from :data:`krein.kernels.KERNELS` (default
        ``"sigmoid"``) or a pick-out kernel; dissimilarity data:
        ``"dissimilarity-linear"`` (the default), ``"dissimilarity-raw"`` or
        ``"dissimilarity-gaussian"``; a kernel matrix file: ``"precomputed"``.
    kernel_params : dict, optional
        Kernel parameters; missing ones get
        :func:`krein.kernel_data.default_kernel_params`.  A parameter given
        here is not tuned unless ``grid`` names it.
    methods : list of str or str, optional
        Classifiers of :func:`krein.list_methods` (a string is split at
        commas); default the classifiers registered with ``compare=True``.
        Stored as a tuple, in the order given.
    outer_folds : int >= 2, default 5
        Number of outer folds (``--cv`` on the command line); with a
        predefined split it must be left at its default and is stored as 1.
    repeats : int >= 1, default 1
        Repetitions of the outer split (different shuffles); with a
        predefined split it must be left at its default (stored as 1).
    C : float > 0, optional
        A fixed box bound / slack weight for every method that has one (then
        not tuned); None: tuned (or the methods' ``C = 1`` with ``tune=False``).
    solver : str, optional
        ``"libsvm"``, an installed CVXPY solver, or with an ``approximation``
        ``"liblinear"``: passed to the methods that have a ``solver`` parameter.
    random_state : int >= 0, default 0
        The run's seed: the outer and inner splits of repeat ``r`` use
        ``random_state + r``; synthetic data, a subsample and every
        estimator's ``random_state`` derive from it.
    n_samples : int, optional
        Size of a synthetic data set, or a stratified subsample of a shipped one.
    binary : optional
        Binary task of the data set (:func:`krein.kernel_data.load_kernel_data`).
    kernel_file : str or path-like, optional
        The user's kernel (or, with ``dissimilarity``, dissimilarity) matrix
        (:func:`krein.kernel_data.load_kernel_file`).
    labels : str or path-like, optional
        Labels of ``kernel_file``: one per line, any values (strings kept), or
        a ``name,label`` table (matched to the matrix's names).
    dissimilarity : bool, default False
        ``kernel_file`` holds dissimilarities.
    symmetrize : bool or {"mean", "max", "min"}, default False
        Accept an asymmetric ``kernel_file`` and use ``(K + K') / 2`` (True,
        ``"mean"``), ``max(K, K')`` or ``min(K, K')``; for an edge list the
        rule of a pair's two scores (default mean).
    data_file : str or path-like, optional
        The user's feature vectors (:func:`krein.kernel_data.load_feature_file`).
    label_column : str or int, optional
        The label column of ``data_file`` (default the last).
    test_kernel_file : str or path-like, optional
        The test rows of ``kernel_file``: a matrix of shape (n_test, n), rows
        the test objects, columns the objects of ``kernel_file`` in its order
        (kernel values, or with ``dissimilarity`` dissimilarities); needs
        ``test_labels`` (:func:`krein.kernel_data.load_kernel_file`).
    test_labels : str or path-like, optional
        Labels of ``test_kernel_file``, one per line, each a class of ``labels``.
    test_data_file : str or path-like, optional
        The test objects of ``data_file``: a feature file with the same
        columns (:func:`krein.kernel_data.load_feature_file`).
    tune : bool, default True
        Choose parameters by inner cross-validation, or fit every method with
        fixed values (``C``, else the estimators' defaults).
    grid : dict, optional
        Overrides of the grids, ``{parameter: list of values}``: a method
        parameter replaces that entry of every method that has it; a kernel
        parameter the kernel grid.  Stored as a dict of lists (``{}`` for None).
    inner_folds : int >= 1, optional
        Folds of the inner cross-validation; ``1``: one stratified validation
        split of ``validation_fraction`` of each outer training part.  None
        (default): 3, or 1 when the outer training parts hold more than
        :data:`krein.comparison_arguments.VALIDATION_SPLIT_ABOVE` objects
        (:func:`krein.comparison_arguments.resolve_inner_folds`).
    validation_fraction : float in (0, 1), default 0.2
        The validation part's share of an outer training part when the inner
        selection is one validation split (not with ``inner_folds >= 2``).
    approximation : str, optional
        ``"nystroem:M"`` (or ``"nystroem:M:kmeans++"``): run on data too large
        for the ``n x n`` kernel (module docstring); feature data only.
    landmarks : str or path-like, optional
        Landmark columns: ``kernel_file`` holds the ``n x m`` kernel values (with
        ``dissimilarity`` dissimilarities) of every object to ``m`` landmark
        objects, and this file their ``m`` row indices, from 0, in the columns'
        order (:func:`krein.kernel_data.load_landmark_file`); the run is
        approximated by the landmark columns (``approximation`` becomes
        ``"landmarks"``; module docstring).  ``test_kernel_file`` then holds the
        test objects' ``n_test x m`` columns.
    names : {"auto", "header", "index", "both", "none"}, optional
        Where a text ``kernel_file`` holds its objects' names (None: detected;
        :func:`krein.kernel_data.load_kernel_file`).
    edge_list : bool, optional
        ``kernel_file`` is an edge list ``name_a name_b score`` (None: detected).
    edge_columns : str or tuple of 3 int, optional
        The columns (from 1) of an edge list's names and score, e.g. ``"1,2,12"``.
    missing : float, optional
        The value of a pair an edge list does not hold.
    grid_extension : int >= 0, optional
        The adaptive search of the inner CV (:mod:`krein.experiment.tuning`):
        every grid placed in the range the inner training parts make feasible,
        and a parameter chosen at an end of its grid extended by one step (its
        grid's own spacing) and searched again, until an interior value wins,
        at most this many steps per side or a feasible bound.  None (default):
        :data:`krein.experiment.tuning.GRID_EXTENSION` (3) steps for the
        default grids, the parameters given in ``grid`` searched as given;
        an integer: that many steps for every tuned parameter, those of
        ``grid`` included; 0: every grid searched as given (the fixed grids,
        the reference of ``benchmarks/tuning.py``).
    task : {"classification", "regression"}, default "classification"
        ``"regression"``: real-valued labels (an error names the labels when
        one is not a number), the registered regressors (default those with
        ``compare=True``: the indefinite regressors and the baselines kernel
        ridge on the flipped and on the clipped kernel and kernel k-NN),
        ``KFold`` outer and inner splits (not stratified), the inner score
        minus the RMSE, RMSE, MAE and R^2 per fold, the paired tests on the
        folds' RMSE, and the regressors' ``C``, ``epsilon``, ``rho`` and
        ``radius_squared`` placed relative to the targets' spread as well
        (:data:`TARGET_EXPONENTS`, ``epsilon`` over :data:`EPSILON_GRID`
        times ``std(y)``).  ``"novelty"``: labels +1 (inlier) and -1 (outlier),
        the registered outlier detectors (``indefinite-one-class`` and the
        baselines one-class SVM on the flipped and on the clipped kernel and the
        k-NN distance score), stratified folds, every method fitted on the
        inliers of each training fold only and scored on the whole test fold by
        the ROC AUC of its decision values; nothing is tuned (the rule: no
        outlier label may enter training, and an inlier-only inner score cannot
        compare ``nu`` values), ``nu`` = :data:`NOVELTY_NU`, the kernel's
        parameters and the methods' others at their defaults (on the kernel's
        scale).  Not with ``approximation`` or ``landmarks``.

    Attributes
    ----------
    data_entry : dict
        The data-set entry of the cells' grid (a catalogue name, or the user's
        file as a ``data_file`` entry).
    outer_split : {"kfold", "predefined"}
        ``"predefined"`` when the data have their own test part.
    methods_named : bool
        Whether ``methods`` was given (else the task's default list): a method
        named in it runs its approximate path at any size
        (:func:`krein.registry.approximate_size_limit`).

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument and the accepted values;
        what depends on the data (a kernel for the data's kind, more folds
        than objects of a class) is checked by :func:`run_comparison`.
    """

    dataset: str = "sonar"
    kernel: str | None = None
    kernel_params: dict | None = None
    methods: tuple | None = None
    outer_folds: int = 5
    repeats: int = 1
    C: float | None = None
    solver: str | None = None
    random_state: int = 0
    n_samples: int | None = None
    binary: object = None
    kernel_file: object = None
    labels: object = None
    dissimilarity: bool = False
    symmetrize: bool = False
    data_file: object = None
    label_column: object = None
    test_kernel_file: object = None
    test_labels: object = None
    test_data_file: object = None
    tune: bool = True
    grid: dict | None = None
    inner_folds: int | None = None
    validation_fraction: float = VALIDATION_FRACTION
    approximation: str | None = None
    landmarks: object = None
    names: str | None = None
    edge_list: bool | None = None
    edge_columns: object = None
    missing: float | None = None
    grid_extension: int | None = None
    task: str = "classification"
    data_entry: dict = field(repr=False, compare=False, metadata=_DERIVED)
    outer_split: str = field(repr=False, compare=False, metadata=_DERIVED)
    methods_named: bool = field(repr=False, compare=False, metadata=_DERIVED)


#: Field names of :class:`Comparison` that are arguments (the keyword form of
#: :func:`run_comparison`), with their defaults.
_DEFAULTS = {f.name: f.default for f in fields(Comparison) if not f.metadata.get("derived")}
_FIELDS = tuple(_DEFAULTS)


def _comparison_values(arguments):
    """The final field values of ``Comparison(**arguments)``, every argument checked.

    The checks run in a fixed order (the first bad argument is the one
    named): ``approximation``, the data arguments (:func:`data_set_entry`),
    ``task``, ``methods``, ``solver``, ``outer_folds``, ``repeats``, ``inner_folds``,
    ``validation_fraction``, ``C``, ``grid``, ``random_state``, then the outer
    split (:func:`_outer_split`).

    Parameters
    ----------
    arguments : dict
        Fields of :class:`Comparison` given by keyword; the others take their
        defaults.

    Returns
    -------
    dict
        Every field of :class:`Comparison`, the derived ``data_entry`` and
        ``outer_split`` included, normalised (``methods`` a tuple, ``grid`` a
        dict of lists, counts as ints, ``C`` a float, ``kernel_params`` a copy).

    Raises
    ------
    TypeError
        An argument that is not a field.
    InvalidArgument
        (a ``ValueError``) naming the first bad argument.
    """
    unknown = [name for name in arguments if name not in _DEFAULTS]
    if unknown:
        raise TypeError(f"Comparison.__init__() got an unexpected keyword argument "
                        f"{unknown[0]!r}")
    a = {**_DEFAULTS, **arguments}
    approximation = check_approximation(a["approximation"])
    entry = data_set_entry(a["dataset"], a["n_samples"], a["binary"], a["kernel_file"],
                           a["labels"], a["dissimilarity"], a["symmetrize"], a["data_file"],
                           a["label_column"], approximation, a["test_kernel_file"],
                           a["test_labels"], a["test_data_file"], a["landmarks"],
                           matrix_format={k: a[k] for k in MATRIX_FORMAT_DEFAULTS})
    if a["landmarks"] is not None:
        approximation = LANDMARK_COLUMNS
    task = check_task(a["task"])
    if task != "classification" and approximation is not None:
        raise InvalidArgument("task", f"{task}: not with an approximation (--approximation, "
                                      f"--landmarks): the exact kernel only")
    if task == "novelty" and (a["grid"] or a["C"] is not None):
        raise InvalidArgument("grid" if a["grid"] else "C",
                              "not with --task novelty: nothing is tuned or set (nu = "
                              f"{NOVELTY_NU}, the rest at the methods' defaults)")
    if task == "regression" and entry.get("data_file") is not None:
        entry = {**entry, "data_file": {**entry["data_file"], "real_labels": True}}
    methods = check_methods(a["methods"], task)
    solver = check_solver(a["solver"], approximation)
    outer_folds = check_count("outer_folds", a["outer_folds"], 2, " (number of folds)")
    repeats = check_count("repeats", a["repeats"], 1)
    inner_folds = (None if a["inner_folds"] is None else
                   check_count("inner_folds", a["inner_folds"], 1, " (1: a validation split)"))
    validation_fraction = check_validation_fraction(a["validation_fraction"])
    if (inner_folds or 1) > 1 and validation_fraction != VALIDATION_FRACTION:
        raise InvalidArgument("validation_fraction", f"not with inner_folds={inner_folds} "
                                                     "(k folds); only with a validation split")
    C = check_C(a["C"])
    grid = check_grid(a["grid"], methods)
    random_state = check_count("random_state", a["random_state"], 0)
    grid_extension = (None if a["grid_extension"] is None else
                      check_count("grid_extension", a["grid_extension"], 0,
                                  " (0: the grids as given)"))
    outer_split, outer_folds, repeats = _outer_split(entry, outer_folds, repeats)
    kernel_params = dict(a["kernel_params"]) if a["kernel_params"] is not None else None
    return {**a, "approximation": approximation, "methods": methods, "solver": solver,
            "outer_folds": outer_folds, "repeats": repeats, "inner_folds": inner_folds, "C": C,
            "validation_fraction": validation_fraction,
            "grid": grid, "random_state": random_state, "kernel_params": kernel_params,
            "grid_extension": grid_extension, "task": task,
            "tune": a["tune"] and task != "novelty",     # a novelty comparison tunes nothing
            "data_entry": entry, "outer_split": outer_split,
            "methods_named": a["methods"] is not None}


def _outer_split(entry, outer_folds, repeats):
    """The outer split of a comparison's data, with its fold and repeat counts.

    ``("predefined", 1, 1)`` for data with a test part (one fold; ``outer_folds``
    and ``repeats`` must have been left at their defaults), else
    ``("kfold", outer_folds, repeats)``.
    """
    if entry.get("data_file") is not None:
        predefined = entry["data_file"].get("test_path") is not None
    else:
        predefined = has_test_part(entry["dataset"], entry.get("n_samples"))
    if not predefined:
        return "kfold", outer_folds, repeats
    for name, value in (("outer_folds", outer_folds), ("repeats", repeats)):
        if value != _DEFAULTS[name]:
            raise InvalidArgument(name, f"not with a predefined train/test split (tuned by CV on "
                                        f"the training part, scored once on the test part); "
                                        f"got {value}")
    return "predefined", 1, 1


def _declare(spec, data):
    """The cells of a comparison on its loaded data, and what they leave out and change."""
    skipped, approx_params, notes = {}, {}, {}
    for m in spec.methods:  # methods that need inputs these data do not have are skipped
        for req in method_requirements(m):
            if req == "base_kernels" and data.base_kernels is None:
                skipped[m] = REQUIREMENTS[req]
        if spec.approximation is not None and m not in skipped:
            # the methods with an approximate path, with the map and solver it takes
            limit = approximate_size_limit(m)
            if limit is not None and not spec.methods_named and _n_train(spec, data) > limit[0]:
                # a method whose cost outgrows the others' runs when the user asks for it
                skipped[m] = (f"not run by default above {limit[0]} training objects on the "
                              f"approximate path ({limit[1]}); name it in --methods to run it")
                continue
            try:
                approx_params[m], lines = approximation_defaults(m, spec.solver)
            except ValueError as exc:
                skipped[m] = str(exc)
                continue
            notes[m] = "; ".join([f"approximation {spec.approximation}"] + lines)
    run = [m for m in spec.methods if m not in skipped]
    if not run:
        raise InvalidArgument("methods", "no method can run on these data: " + "; ".join(
            f"{m} {why}" if why.startswith("needs") else f"{m} ({why})"
            for m, why in skipped.items()))

    # grids: the registry's per method relative to the training kernel's scale, the
    # kernel's scale parameter on feature data; overrides (absolute values)
    scale, measure = _training_scale(data)
    kernel_keys = set(data.kernel_params)
    method_over = {k: v for k, v in spec.grid.items() if k not in kernel_keys}
    kernel_over = {k: v for k, v in spec.grid.items() if k in kernel_keys}
    check_kernel_grid(data, kernel_over)
    entries, grids = [], {}
    accepted_params = {m: build_estimator(m).get_params(deep=False) for m in run}
    spread = _target_spread(data) if spec.task == "regression" else None
    for m in run:
        accepted = accepted_params[m]
        fixed = {"C": spec.C} if spec.C is not None and "C" in accepted else {}
        fixed.update(approx_params.get(m, {}))
        g = default_grid(m, scale) if spec.tune else {}
        scaled = {}
        if spec.tune:
            scaled = scaled_defaults(m, scale, exclude=set(g) | set(fixed) | set(method_over))
        if spec.task == "novelty":      # nothing tuned: nu fixed, the rest on the scale
            scaled = scaled_defaults(m, scale, exclude=set(fixed) | {"nu"})
            g = {}
            fixed.update({"nu": NOVELTY_NU} if "nu" in accepted else {})
        if spread is not None and spec.tune:    # regression: the targets' spread too
            if "epsilon" in accepted:
                g["epsilon"] = list(EPSILON_GRID)
            g, scaled = (_on_target_scale(d, spread) for d in (g, scaled))
        g.update({k: v for k, v in method_over.items() if k in accepted and spec.tune})
        g = {k: v for k, v in g.items() if k not in fixed}
        # the scale parameters that are not tuned follow the kernel's scale too
        fixed.update(scaled)
        grids[m] = g
        entries.append({"method": m, "params": fixed, "grid": g})
    unused = [k for k in method_over if not any(k in accepted_params[m] for m in run)]
    if unused:
        raise InvalidArgument("grid", f"parameter(s) {', '.join(unused)} belong to no method run "
                                      f"and not to the kernel {data.kernel!r} (kernel parameters:"
                                      f" {', '.join(sorted(kernel_keys)) or 'none'})")
    kernel_grid = {}
    if spec.tune and spec.task != "novelty":
        if data.X is not None and not data.label_dependent:
            kernel_grid = default_kernel_grid(data.kernel, data.kernel_params)
        kernel_grid.update(kernel_over)
    given = dict(spec.kernel_params or {})
    kernel_grid = {k: v for k, v in kernel_grid.items() if k not in given or k in kernel_over}
    kernels = [{"kernel": spec.kernel, "params": given, "grid": kernel_grid}]
    cells = classification_grid([spec.data_entry], entries, kernels, outer_folds=spec.outer_folds,
                                task=spec.task, scoring=_SCORING[spec.task],
                                repeats=spec.repeats, solvers=[spec.solver],
                                inner_folds=_inner_folds(spec, data), save_trace=False,
                                validation_fraction=spec.validation_fraction,
                                random_state=spec.random_state, order="fold",
                                approximation=spec.approximation, outer_split=spec.outer_split,
                                **_extension(spec))
    experiment = Experiment(f"compare-{data.dataset}", cells, random_state=spec.random_state)
    return experiment, {"methods": run, "skipped": skipped, "notes": notes, "grids": grids,
                        "kernel_grid": kernel_grid, "kernel_scale": scale,
                        "kernel_scale_measure": measure, "target_scale": spread}


#: The inner score of each task (:func:`krein.experiment.classification_cell`).
_SCORING = {"classification": "accuracy", "regression": "neg_rmse", "novelty": "accuracy"}


def _target_spread(data):
    """The spread ``t`` of a regression's targets: their standard deviation (ddof 0) over
    every training object (as the kernel's scale is taken over the whole kernel); 1 for
    constant targets."""
    t = float(np.std(np.asarray(data.y).astype(float)))
    return t if np.isfinite(t) and t > 0 else 1.0


def _on_target_scale(values, spread):
    """``values`` (a grid ``{p: list}`` or fixed ``{p: value}``) with each parameter of
    :data:`TARGET_EXPONENTS` times ``spread ** exponent``."""
    def move(k, v):
        e = TARGET_EXPONENTS.get(k)
        if not e or isinstance(v, bool) or not isinstance(v, (int, float)):
            return v
        return float(v) * spread ** e
    return {k: ([move(k, x) for x in v] if isinstance(v, list) else move(k, v))
            for k, v in values.items()}


def _extension(spec):
    """``grid_extension`` and ``grid_fixed`` of the cells: the default extends the default
    grids by :data:`~krein.experiment.tuning.GRID_EXTENSION` steps per side and searches the
    parameters of ``grid`` as given; an explicit number extends every tuned parameter."""
    if not spec.tune:
        return {"grid_extension": 0}
    if spec.grid_extension is not None:
        return {"grid_extension": spec.grid_extension}
    # a name of ``grid`` is a method or a kernel parameter (``kernel_<p>`` in the search)
    fixed = {k for k in spec.grid} | {f"kernel_{k}" for k in spec.grid}
    return {"grid_extension": GRID_EXTENSION, "grid_fixed": sorted(fixed)}


def _n_train(spec, data):
    """The size of an outer training part: ``n - ceil(n / k)``, or the training part of a
    predefined split."""
    n = data.n_samples
    return n if spec.outer_split == "predefined" else n - -(-n // spec.outer_folds)


def _inner_folds(spec, data):
    """The inner folds of the comparison's cells (:func:`resolve_inner_folds`) for an outer
    training part of :func:`_n_train` objects."""
    return resolve_inner_folds(spec.inner_folds, _n_train(spec, data), spec.tune)


def _training_scale(data):
    """The scale ``s`` of the comparison's training kernel and its measure (one line).

    :func:`krein.kernels.kernel_scale_measure` of ``data.K`` (with a predefined
    split, the training part); in an approximated run (no ``n x n`` kernel) the
    mean of ``k(x_i, x_i)`` over at most 1000 evenly spaced training rows,
    computed from the features (landmark columns: the mean ``|k(l, l)|`` of
    the landmark block); 1 with the reason when that is not positive.
    """
    from .kernels import kernel_scale_measure, pairwise_kernel

    if data.K is not None:
        return kernel_scale_measure(data.K)
    if data.landmark_block is not None:       # landmark columns: the landmarks' own k(l, l)
        s = float(np.mean(np.abs(np.diag(data.landmark_block))))
        if not np.isfinite(s) or s <= 0:
            return 1.0, "1 (k(l, l) = 0 on the landmarks)"
        return s, f"mean |k(l, l)| over the {data.landmark_block.shape[0]} landmarks"
    rows = np.unique(np.linspace(0, data.n_samples - 1, min(data.n_samples, 1000)).astype(int))
    try:
        diag = [float(pairwise_kernel(data.kernel, data.X[i:i + 1],
                                      params=data.kernel_params)[0, 0]) for i in rows]
    except (ValueError, TypeError) as exc:  # not a named kernel of feature vectors
        return 1.0, f"1 (k(x_i, x_i) not computable from the features: {exc})"
    s = float(np.mean(np.abs(diag)))
    if not np.isfinite(s) or s <= 0:
        return 1.0, "1 (k(x_i, x_i) = 0 on the training rows)"
    return s, f"mean |k(x_i, x_i)| over {rows.size} training rows"


def _warn_distance_like(data, spec):
    """One :class:`krein.diagnosis.DistanceAsKernelWarning` for a matrix given as a kernel
    that looks like a distance matrix; the diagnosis (None for other data) for the page."""
    import warnings

    from .diagnosis import DistanceAsKernelWarning, kernel_suitability

    if data.kernel != "precomputed" or data.K is None or data.K.ndim != 2:
        return None
    diagnosis = kernel_suitability(data.K, data.y)
    if diagnosis["distance_like"]:
        warnings.warn(f"the matrix given as a kernel looks like a distance matrix "
                      f"({diagnosis['reason']}; krein diagnose: {diagnosis['verdict']}): if it "
                      "holds dissimilarities, rerun with --dissimilarity (dissimilarity=True)",
                      DistanceAsKernelWarning, stacklevel=4)
    return diagnosis


# --------------------------------------------------------------------------- data
def _load(entry, kernel, kernel_params, random_state, approximation=None,
          task="classification"):
    """The KernelData of a grid's data entry, through the cells' own (cached) loader; with
    ``task="regression"`` its labels must be numbers (an InvalidArgument naming them)."""
    if entry.get("data_file") is None:
        check_data_arguments(entry["dataset"], kernel, kernel_params)
    try:
        probe = classification_grid([entry], [next(iter(list_methods(task="classifier")))],
                                    [{"kernel": kernel, "params": dict(kernel_params or {})}],
                                    random_state=int(random_state), approximation=approximation)[0]
    except InvalidArgument:
        raise
    except ValueError as exc:  # a kernel that does not fit the data's kind
        raise InvalidArgument("kernel", str(exc).split(": ", 1)[-1]) from None
    data = cell_kernel_data({**probe, "seed": int(random_state)})[0]
    if approximation is not None:  # the landmarks of the spectrum: the run's seed
        from dataclasses import replace

        data = replace(data, approximation_seed=int(random_state), _spectrum=None)
    if task == "regression":
        _check_real_targets(entry, data)
        return data
    if task == "novelty":
        _check_inlier_labels(entry, data)
        return data
    labels, _ = data.classes
    if labels.size < 2:
        raise InvalidArgument("labels", f"{data.dataset!r} has a single class; need at least two")
    return data


def _check_real_targets(entry, data):
    """Real-valued labels for a regression: every label a finite number, and two distinct."""
    file = entry.get("data_file") or {}
    where = (f"the labels file {file['labels']}" if file.get("labels") else
             f"the label column of {file['path']}" if file.get("path") else
             f"the labels of {data.dataset!r}")
    for part in (data.y, data.y_test):
        if part is None:
            continue
        try:
            values = np.asarray(part).astype(float)
        except (TypeError, ValueError):
            bad = next(v for v in np.asarray(part).tolist() if not _is_number(v))
            raise InvalidArgument("labels", f"--task regression needs real-valued labels; "
                                            f"{where} holds {str(bad)!r} (accepted: numbers "
                                            f"such as 3, 0.5, -1.2e3)") from None
        if not np.isfinite(values).all():
            raise InvalidArgument("labels", f"--task regression needs finite labels; {where} "
                                            "holds NaN or inf")
    if np.unique(np.asarray(data.y).astype(float)).size < 2:
        raise InvalidArgument("labels", f"--task regression: {where} holds one value; need at "
                                        "least two")


def _check_inlier_labels(entry, data):
    """Novelty labels: +1 (inlier) and -1 (outlier), scikit-learn's convention, both there."""
    file = entry.get("data_file") or {}
    where = (f"the labels file {file['labels']}" if file.get("labels") else
             f"the label column of {file['path']}" if file.get("path") else
             f"the labels of {data.dataset!r}")
    values = {str(v) for v in np.unique(data.y)}
    if not values <= {"1", "-1"} or len(values) < 2:
        shown = ", ".join(sorted(values)[:5])
        raise InvalidArgument("labels", f"--task novelty needs the labels 1 (inlier) and -1 "
                                        f"(outlier), both present; {where} holds {shown} (a "
                                        f"bundled set: --binary INLIERS:OUTLIERS, e.g. "
                                        f"--binary 1:2,3,4)")


def _is_number(v):
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def load_comparison_data(dataset="sonar", kernel=None, kernel_params=None, n_samples=None,
                         binary=None, random_state=0, *, kernel_file=None, labels=None,
                         dissimilarity=False, symmetrize=False, data_file=None,
                         label_column=None, names=None, edge_list=None, edge_columns=None,
                         missing=None):
    """The data and kernel a comparison with these arguments uses (``krein diagnose``).

    Parameters
    ----------
    dataset, kernel, kernel_params, n_samples, binary, random_state : optional
        As the fields of :class:`Comparison`.
    kernel_file, labels, dissimilarity, symmetrize, data_file, label_column : optional
        The user's file, as the fields of :class:`Comparison`.
    names, edge_list, edge_columns, missing : optional
        The matrix file's format, as the fields of :class:`Comparison`.

    Returns
    -------
    krein.kernel_data.KernelData
        The labels, the kernel on all objects and what it was built from.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument or file.
    """
    entry = data_set_entry(dataset, n_samples, binary, kernel_file, labels, dissimilarity,
                           symmetrize, data_file, label_column,
                           matrix_format={"names": names, "edge_list": edge_list,
                                          "edge_columns": edge_columns, "missing": missing})
    return _load(entry, kernel, kernel_params, random_state)


# --------------------------------------------------------------------------- the run
def run_comparison(comparison=None, /, *, out=None, progress=True, n_jobs=1, blas_threads=None,
                   force=False, resume=False, fresh=False, hold_lock=False, command=None,
                   scheduler=None, **fields):
    """Run a comparison: every fit by the runner, the tables, the files; all its results.

    Parameters
    ----------
    comparison : Comparison, optional
        What is compared.  Keyword form: leave it out (or give the data set's
        name) and pass the fields of :class:`Comparison` as keywords, which
        build it.
    out : str or path-like, optional
        Directory (created if needed) for the output files (module
        docstring); one that already holds a comparison is refused unless
        ``force`` or ``resume``.  None: nothing is written.
    progress : bool, default True
        A tqdm progress bar over the cells, naming the ones running (stderr).
    n_jobs : int, default 1
        Parallel worker processes over the cells (``-1``: all cores).
    blas_threads : {"auto", "default"} or int >= 1, optional
        BLAS threads of each fit (:mod:`krein._threads`); None:
        ``$KREIN_BLAS_THREADS``, else ``"auto"``.
    force : bool, default False
        Replace the files of an earlier comparison in ``out`` (refused while
        another run holds ``out``).
    resume : bool, default False
        Finish an interrupted comparison in ``out``: the cells already in
        ``out/cells`` are reused (a line on stderr says how many), the missing
        ones computed.  Refused when ``out`` was written by a different
        comparison, and with ``force``.
    fresh : bool, default False
        ``out`` is a stem: the run claims the first of ``out``, ``out-2``...
        it can create (or that is empty and unheld), atomically, and locks it.
    hold_lock : bool, default False
        Keep the lock of ``out`` after returning (``result.release()`` frees
        it): the command line writes ``solver_output.txt`` under it.
    command : str, optional
        The command line that started the run, recorded in ``run.json``.
    scheduler : str or dask.distributed.Client, optional
        Run the cells on a Dask cluster: its scheduler's address
        (``"tcp://127.0.0.1:8786"``; connected before anything is written,
        closed at the end) or a client (left open).  ``n_jobs`` must then be 1.
        The tables are those of a local run (module docstring).
    **fields
        The fields of :class:`Comparison` (keyword form only).

    Returns
    -------
    ComparisonResult
        The summary (with ``attrs``: data set, kernel, parameters, files), the
        per-fold table, the data and kernel, the grids, the decision
        boundaries of 2-D feature data written to ``out``, the files written
        and the experiments that were run.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) for a bad argument or input file, before any model
        is fitted and before anything is written; ``scheduler`` when dask.distributed
        is not installed or the scheduler cannot be reached.
    """
    run_options = dict(out=out, progress=progress, n_jobs=n_jobs, blas_threads=blas_threads,
                       force=force, resume=resume, fresh=fresh, hold_lock=hold_lock,
                       command=command, scheduler=scheduler)
    if isinstance(comparison, Comparison):
        if fields:
            raise TypeError(f"run_comparison: a Comparison and fields {sorted(fields)}; give "
                            "one or the other")
        return _run(comparison, **run_options)
    if comparison is not None:
        if not isinstance(comparison, str):
            raise TypeError(f"run_comparison: expected a Comparison or a data set name; got "
                            f"{type(comparison).__name__}")
        fields["dataset"] = comparison
    unknown = sorted(set(fields) - set(_FIELDS))
    if unknown:
        raise TypeError(f"run_comparison: unknown argument(s) {', '.join(unknown)}")
    return _run(Comparison(**fields), **run_options)


def _run(spec, *, out, progress, n_jobs, blas_threads, force, resume, fresh, hold_lock,
         command, scheduler):
    t_start = time.perf_counter()
    if not is_int(n_jobs) or n_jobs == 0 or n_jobs < -1:
        raise InvalidArgument("n_jobs", f"must be a positive integer or -1 (all cores); got "
                                        f"{n_jobs!r}")
    blas_threads = resolve_blas_threads(blas_threads)
    # the data every cell uses (the same cached computation): a bad file or kernel
    # argument fails here, before any model is fitted and before anything is written
    data = _load(spec.data_entry, spec.kernel, spec.kernel_params, spec.random_state,
                 spec.approximation, spec.task)
    _, counts = data.classes
    if spec.task == "regression" and spec.outer_folds > data.n_samples:
        raise InvalidArgument("outer_folds", f"{spec.outer_folds} folds but {data.dataset!r} "
                                             f"has {data.n_samples} objects")
    if spec.task == "classification" and spec.outer_folds > counts.min():
        raise InvalidArgument("outer_folds", f"{spec.outer_folds} folds but the smallest class "
                                             f"of {data.dataset!r} has {counts.min()} objects; "
                                             f"use at most {counts.min()} folds")
    if resume and force:
        raise InvalidArgument("resume", "not with force: --resume keeps the finished cells, "
                                        "--force deletes them")
    if resume and (out is None or fresh):
        raise InvalidArgument("resume", "needs the output directory of the run to finish (--out)")
    if not fresh:
        out = check_out(out, force, resume)
    experiment, plan = _declare(spec, data)
    plan["diagnosis"] = _warn_distance_like(data, spec)
    data.spectrum()

    def describe(params):
        rep = f"repeat {params['repeat'] + 1}, " if spec.repeats > 1 else ""
        return f"{params['method']} ({rep}fold {params['fold'] + 1}/{spec.outer_folds})"

    client, own_client = _dask_client(scheduler, n_jobs)
    runner = dict(progress=progress, n_jobs=n_jobs, blas_threads=blas_threads, scheduler=client)
    lock = None
    try:
        if out is not None:
            out, lock = claim_out(out, force, resume, fresh, experiment, command)
        with tempfile.TemporaryDirectory(prefix="krein-compare-") as tmp:
            cells_dir = os.path.join(out, CELLS_DIR) if out is not None else tmp
            try:
                report = run_experiment(experiment, cells_dir, describe=describe, **runner)
            finally:
                _clear_shared()
            rows = report.results
            folds = fold_table(rows[rows["key"].isin({c.key for c in experiment.cells})])
            summary = summarize(folds, plan["skipped"], spec.methods, plan["notes"],
                                grids=plan["grids"], kernel_grid=plan["kernel_grid"],
                                task=spec.task)
            if spec.task == "classification":
                flag_suspect(summary, plan["diagnosis"],
                             data.y if data.y_test is None else data.y_test)
            result = ComparisonResult(comparison=spec, summary=summary, folds=folds, data=data,
                                      experiment=experiment, directory=out,
                                      n_reused=report.n_skipped, **plan)
            if out is not None and data.X is not None and data.X.shape[1] == 2 \
                    and data.landmark_block is None and spec.task == "classification":
                t_boundaries = time.perf_counter()
                _boundaries(result, os.path.join(cells_dir, "boundaries"), runner)
                result.boundary_seconds = time.perf_counter() - t_boundaries
        result.seconds = time.perf_counter() - t_start
        if out is not None:   # the files, figures and page are part of the run's time
            result.files = write_outputs(result, out, command, t_start=t_start)
        summary.attrs.update({
            "dataset": data.dataset, "kernel": data.kernel,
            "kernel_params": dict(data.kernel_params), "n_samples": data.n_samples,
            "cv": spec.outer_folds, "repeats": spec.repeats, "C": spec.C,
            "tuned": bool(spec.tune), "approximation": spec.approximation,
            "files": list(result.files),
        })
    except BaseException:
        if lock is not None:
            lock.close()
        raise
    finally:
        if own_client:
            client.close()
    if lock is not None:
        if hold_lock:
            result._lock = lock
        else:
            lock.close()
    return result


def _dask_client(scheduler, n_jobs):
    """``(client, own)``: a ``dask.distributed`` client of ``scheduler`` (None without one),
    and whether the run made it (and closes it); a bad address is an InvalidArgument."""
    if scheduler is None:
        return None, False
    if n_jobs != 1:
        raise InvalidArgument("n_jobs", f"not used with a Dask scheduler (the cluster decides); "
                                        f"leave it at 1; got {n_jobs!r}")
    from .experiment.runner import connect_scheduler

    try:
        client = connect_scheduler(scheduler)
    except (ImportError, ValueError, OSError, TypeError) as exc:
        raise InvalidArgument("scheduler", str(exc)) from None
    return client, client is not scheduler


def _boundaries(result, directory, runner):
    """Run the boundary cells of a finished comparison (one per method) into ``directory``;
    their tables go to ``result.points`` and ``result.boundaries``."""
    chosen = chosen_params(result.summary)
    fixed = {m: result.method_params(m) for m in result.methods}
    solvers = {c.params["method"]: c.params["solver"] for c in result.experiment.cells}
    cells = boundary_grid(result.experiment.cells[0].params, result.methods, chosen, fixed,
                          solvers)
    experiment = Experiment(f"{result.experiment.name}-boundaries", cells, cell=boundary_cell,
                            random_state=result.random_state)
    report = run_experiment(experiment, directory,
                            describe=lambda p: f"{p['method']} (decision boundary)", **runner)
    result.boundary_experiment = experiment
    result.points = points_table(result.data)
    result.boundaries = boundary_table(report, result.methods)


def _clear_shared():
    from ._cache import clear_shared_computations

    clear_shared_computations()


def compare(dataset="sonar", **options):
    """Cross-validate registered methods on one data set with one kernel: the summary table.

    The keyword shortcut of ``run_comparison(Comparison(...), ...)``: a method
    that raises is recorded as an error, not a crash; a method that needs
    inputs the data do not have is listed as skipped with the reason.

    Parameters
    ----------
    dataset : str, default "sonar"
        The data set (:class:`Comparison`).
    **options
        The other fields of :class:`Comparison` (``methods``, ``outer_folds``,
        ``C``, ``grid``...) and the options of :func:`run_comparison`
        (``out``, ``progress``, ``n_jobs``, ``force``, ``resume``...).

    Returns
    -------
    pandas.DataFrame
        One row per method (:data:`SUMMARY_COLUMNS`): ``status`` ("ok",
        "warning", "partial", "failed", "skipped"; "ok" only without any
        error, warning or failed inner fit), ``accuracy_mean``, ``accuracy_std``
        (sample standard deviation over the repeat x fold cells),
        ``best_params`` (JSON: the most frequent chosen value of each tuned
        parameter, kernel ones as ``kernel_<name>``), ``fit_seconds_mean``,
        ``n_support_mean``, ``min_eigenvalue_mean``, ``r_mm_mean``,
        ``r_neg_mean`` (of the training blocks, Munoz & de Diego eq. 2),
        ``certificate`` (the largest certificate value over the folds),
        ``n_folds``, ``n_errors``, ``note`` (skip reason or first error),
        ``n_warnings`` (folds whose refit warned), ``n_not_converged`` (of them
        with a ``ConvergenceWarning``), ``n_inner_failures`` and
        ``n_inner_warnings`` (the inner model selection's, summed).
        ``attrs`` holds the data set, kernel, parameters used, the
        ``approximation`` and the files written.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) naming the bad argument (or file) and the accepted
        values, before any model is fitted and before anything is written.

    See Also
    --------
    run_comparison : the same, returning the per-fold table and diagnostics too.

    Examples
    --------
    >>> from krein.compare import compare
    >>> table = compare("checkerboard", kernel_params={"a": 1.0, "r": -0.5}, n_samples=80,
    ...                 methods=["esvm", "clip"], outer_folds=3, progress=False)  # doctest: +SKIP
    """
    return run_comparison(dataset, **options).summary


def spectrum_plot(data):
    """The spectrum figure of the report page for a kernel on its own (``krein diagnose``).

    Parameters
    ----------
    data : krein.kernel_data.KernelData
        The data and kernel.

    Returns
    -------
    matplotlib.figure.Figure
        :func:`krein.experiment.page.spectrum_figure` of ``data.spectrum()``.
    """
    import pandas as pd

    from .experiment.page import SavedComparison, spectrum_figure

    eigenvalues = np.asarray(data.spectrum().eigenvalues, dtype=float)
    return spectrum_figure(SavedComparison("", kernel_record(data), pd.DataFrame(),
                                           pd.DataFrame(), eigenvalues))
