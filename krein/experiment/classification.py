"""The classification protocol: one CV loop for ``krein compare`` and every paper table.

:func:`classification_cell` is one outer fold of a repeated stratified K-fold
cross-validation with model selection inside (Loosli et al. 2013 §6.3, Luss &
d'Aspremont 2009 §5.1): inner stratified K-fold CV on the outer training split
over a grid of method parameters (``C``, ``rho``, ...) and kernel parameters,
refit with the best ones on the whole outer training split, score on the outer
test split.  :func:`classification_grid` declares the cells, :func:`build_estimator`
is the one way a registered method becomes an estimator, and
:func:`cell_kernel_data` the one way a cell gets its data
(:func:`krein.kernel_data.load_kernel_data`, with its per-fold rules:
dissimilarity-linear centering, label-dependent pick-out kernels, stacked base
kernels, applied to the inner splits too).  The folds of a cell depend only on
the experiment's seed and the cell's data set, ``n_samples``, ``binary``,
``repeat`` and ``outer_folds`` (:func:`outer_splits`): ``krein compare`` with
``random_state=s`` and an experiment with ``random_state=s`` split the same data the
same way.
"""

from __future__ import annotations

import functools
import json
import numbers
import time
import warnings
from dataclasses import dataclass, replace

import numpy as np

from .._cache import shared_computations
from .._io import file_stamp
from .._threads import fit_threads
from ..approximation_spec import check_approximable
# the approximate path of a method lives in its registry entry (re-exported for compare.py)
from ..registry import NO_APPROXIMATE_PATH, approximation_defaults  # noqa: F401
from ..solvers.core import CERTIFICATE_KINDS as _SOLUTION_CERTIFICATE_KINDS
from .metrics import (classification_metrics, decision_values, fold_auc,  # noqa: F401
                      fold_predictions, regression_metrics, regression_predictions,
                      solver_version)
from .seeds import cell_seed, location_free
from .splits import LOO, OUTER_SPLITS, check_outer_split, fold_correctness, split_indices

__all__ = ["classification_metrics", "classification_cell", "classification_grid",
           "build_estimator", "cell_kernel_data", "outer_splits", "solver_version",
           "check_data_file", "certificate_measure", "approximation_defaults",
           "NO_APPROXIMATE_PATH", "CLASSIFICATION_DEFAULTS",
           "CERTIFICATE_KINDS", "DATA_FILE_DEFAULTS", "SCORINGS", "LOO", "OUTER_SPLITS",
           "fold_correctness", "inner_splits", "TASKS", "REGRESSION_SCORING"]


#: Scores accepted by ``scoring`` of :func:`classification_cell` (keys of
#: :func:`classification_metrics`).
SCORINGS = ("accuracy", "recall", "average", "sensitivity", "specificity")

#: The prediction tasks of a cell (its ``problem``): ``"classification"`` (class labels,
#: stratified splits, the scores of :data:`SCORINGS`), ``"regression"`` (real targets,
#: plain K-fold splits, :func:`krein.experiment.metrics.regression_metrics`) and
#: ``"novelty"`` (labels +1 inlier / -1 outlier, stratified splits, the method fitted on
#: the inliers of the training split only, nothing tuned, scored like a binary classifier:
#: ROC AUC of the decision values, the accuracy of the +1 / -1 calls).
TASKS = ("classification", "regression", "novelty")

#: The inner score of a regression cell: minus the root mean squared error (higher is
#: better, as every inner score).
REGRESSION_SCORING = "neg_rmse"

# --------------------------------------------------------------------------- classification task
#: Parameters of :func:`classification_cell` and their defaults (``dataset`` and
#: ``method`` are required).
CLASSIFICATION_DEFAULTS = {
    "dataset": None,
    "data_file": None,
    "n_samples": None,
    "binary": None,
    "kernel": None,
    "kernel_params": {},
    "kernel_grid": {},
    "method": None,
    "method_params": {},
    "param_grid": {},
    "solver": None,
    "outer_folds": 5,
    "fold": 0,
    "repeat": 0,
    "inner_folds": 3,
    "cv_seed": None,
    "scoring": "accuracy",
    "save_trace": True,
    "approximation": None,
    "outer_split": "kfold",
    "test_size": 0.2,
    "validation_fraction": 0.2,
    "grid_extension": 0,
    "grid_fixed": [],
    "problem": "classification",
}

#: Data kind (:func:`krein.kernel_data.available_kernels`) of each ``data_file`` kind.
_FILE_KINDS = {"kernel": "kernel", "dissimilarity": "dissimilarity", "features": "vector"}

#: Keys of a ``data_file`` entry (a user's file instead of a catalogue data set) and
#: their defaults: ``kind`` "kernel" (a precomputed kernel matrix), "dissimilarity" (a
#: dissimilarity matrix) or "features" (feature vectors with their labels).
DATA_FILE_DEFAULTS = {"kind": "kernel", "path": None, "labels": None, "label_column": None,
                      "symmetrize": False, "test_path": None, "test_labels": None,
                      "landmarks": None, "names": None, "edge_list": None,
                      "edge_columns": None, "missing": None, "real_labels": None}

#: Keys of a ``data_file`` entry left out of it when None (the cells of files without a test
#: part or a format option, their keys and seeds, stay what they were before these keys
#: existed).
_OPTIONAL_FILE_KEYS = ("test_path", "test_labels", "landmarks", "names", "edge_list",
                       "edge_columns", "missing", "real_labels")


def _as_grid(grid, name):
    """Validate a parameter grid (dict of non-empty lists); return its combinations in order."""
    from sklearn.model_selection import ParameterGrid

    if grid is None or grid == {}:
        return [{}]
    if not isinstance(grid, dict):
        raise ValueError(f"{name} must be a dict of lists of values; got {grid!r}")
    for k, v in grid.items():
        if not isinstance(v, (list, tuple)) or len(v) == 0:
            raise ValueError(f"{name}[{k!r}] must be a non-empty list of values; got {v!r}")
    return list(ParameterGrid({k: list(v) for k, v in grid.items()}))


def _tuples(v):
    if isinstance(v, list):
        return tuple(_tuples(x) for x in v)
    return v


@functools.lru_cache(maxsize=16)
def _kernel_data(dataset, kernel, params_json, n_samples, binary_json, random_state,
                 data_file_json="null", approximation=None, stamp=()):
    """The loaded data of a cell, kept per process and shared by every cell of the
    process (``stamp``: the files' stamps, only a cache key).  Its arrays are made
    read-only: a cell that wrote into them would change the data of every later cell
    of the same worker (a result that depends on which cells ran before it)."""
    return _load_kernel_data(dataset, kernel, params_json, n_samples, binary_json,
                             random_state, data_file_json, approximation).read_only()


def _load_kernel_data(dataset, kernel, params_json, n_samples, binary_json, random_state,
                      data_file_json, approximation):
    import contextlib

    from ..datasets._user_files import real_labels

    spec = json.loads(data_file_json)
    with real_labels() if (spec or {}).get("real_labels") else contextlib.nullcontext():
        return _load_data(dataset, kernel, params_json, n_samples, binary_json, random_state,
                          spec, approximation)


def _load_data(dataset, kernel, params_json, n_samples, binary_json, random_state, spec,
               approximation):
    from .. import kernel_data

    params = json.loads(params_json) or None
    if spec is None:
        return kernel_data.load_kernel_data(
            dataset, kernel, params, n_samples=n_samples, binary=_tuples(json.loads(binary_json)),
            random_state=random_state, approximation=approximation)
    load_feature_file, load_kernel_file = kernel_data.load_feature_file, kernel_data.load_kernel_file
    spec = {**DATA_FILE_DEFAULTS, **spec}
    if spec["kind"] == "features":
        return load_feature_file(spec["path"], label_column=spec["label_column"], kernel=kernel,
                                 kernel_params=params, name=dataset, approximation=approximation,
                                 test_path=spec["test_path"])
    if spec["landmarks"] is not None:
        return kernel_data.load_landmark_file(
            spec["path"], spec["landmarks"], spec["labels"],
            dissimilarity=spec["kind"] == "dissimilarity", kernel=kernel, kernel_params=params,
            symmetrize=bool(spec["symmetrize"]), name=dataset, test_path=spec["test_path"],
            test_labels=spec["test_labels"])
    if approximation is not None:
        check_approximable(approximation, spec["kind"], kernel, f"the file {spec['path']}")
    symmetrize = spec["symmetrize"]
    return load_kernel_file(spec["path"], spec["labels"],
                            dissimilarity=spec["kind"] == "dissimilarity", kernel=kernel,
                            kernel_params=params,
                            symmetrize=symmetrize if isinstance(symmetrize, str)
                            else bool(symmetrize), name=dataset,
                            test_path=spec["test_path"], test_labels=spec["test_labels"],
                            names=spec["names"] or "auto", edge_list=spec["edge_list"],
                            edge_columns=spec["edge_columns"], missing=spec["missing"])


def check_data_file(spec):
    """Check a ``data_file`` entry of a classification cell (a user's file).

    Parameters
    ----------
    spec : dict or None
        Keys of :data:`DATA_FILE_DEFAULTS`: ``kind`` ("kernel", "dissimilarity"
        or "features"), ``path`` (the matrix or feature file), ``labels`` (the
        labels file of a matrix), ``label_column`` (of a feature file),
        ``symmetrize``; a predefined test part: ``test_path`` (test rows of a
        matrix, shape (n_test, n_train), or a test feature file) and
        ``test_labels`` (the labels file of test rows of a matrix); landmark
        columns: ``landmarks`` (the file of the landmarks' row indices; ``path``
        then holds the ``n x m`` columns, :func:`krein.kernel_data.load_landmark_file`);
        a matrix's format: ``names``, ``edge_list``, ``edge_columns``, ``missing``
        (:func:`krein.kernel_data.load_kernel_file`); ``real_labels`` True: the
        labels are a regression's real targets (every object may have its own
        value; :func:`krein.datasets._user_files.real_labels`).

    Returns
    -------
    dict or None
        The entry with the defaults filled in (None for None); ``test_path``
        and ``test_labels`` are left out when None.

    Raises
    ------
    ValueError
        Unknown keys or kind, a missing ``path``, a matrix without
        ``labels``, test rows of a matrix without ``test_labels`` (or the
        reverse), ``test_labels`` for a feature file, ``landmarks`` for a
        feature file.
    """
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ValueError(f"data_file must be a dict or None; got {spec!r}")
    bad = sorted(set(spec) - set(DATA_FILE_DEFAULTS))
    if bad:
        raise ValueError(f"data_file: unknown key(s) {bad}; accepted: {list(DATA_FILE_DEFAULTS)}")
    spec = {**DATA_FILE_DEFAULTS, **spec}
    if spec["kind"] not in ("kernel", "dissimilarity", "features"):
        raise ValueError(f"data_file: kind must be 'kernel', 'dissimilarity' or 'features'; got "
                         f"{spec['kind']!r}")
    if not spec["path"]:
        raise ValueError("data_file: 'path' is required")
    if spec["kind"] != "features" and spec["labels"] is None:
        raise ValueError("data_file: a kernel or dissimilarity matrix needs 'labels'")
    if spec["kind"] == "features" and spec["test_labels"] is not None:
        raise ValueError("data_file: 'test_labels' is for the test rows of a matrix; a test "
                         "feature file holds its labels")
    if spec["kind"] == "features" and spec["landmarks"] is not None:
        raise ValueError("data_file: 'landmarks' are the landmark rows of a matrix of landmark "
                         "columns, not of a feature file")
    if spec["kind"] != "features" and (spec["test_path"] is None) != (spec["test_labels"] is None):
        raise ValueError("data_file: the test rows of a matrix need both 'test_path' and "
                         "'test_labels'")
    return {k: v for k, v in spec.items() if k not in _OPTIONAL_FILE_KEYS or v is not None}


def _method_accepts(method, names):
    from ..registry import make_method

    accepted = make_method(method).get_params(deep=True)  # nested: correction__diagonal
    return [n for n in names if n not in accepted], sorted(accepted)


def build_estimator(method, params=None, solver=None, random_state=None, *,
                    approximation=None, kernel=None, kernel_params=None):
    """The estimator of a registered method on precomputed kernels, with its parameters set.

    The one estimator builder of ``krein compare``, the classification cells
    and the decision-boundary figure.

    Parameters
    ----------
    method : str
        A registry name (:func:`krein.list_methods`).
    params : dict, optional
        Estimator parameters to set (``{"C": 10, "rho": 1}``...).
    solver : str, optional
        Value of the estimator's ``solver`` parameter; None keeps the method's.
    random_state : int, optional
        Given to estimators that have a ``random_state`` parameter, unless
        ``params`` sets it.
    approximation : estimator, optional
        A low-rank front end (:func:`krein.kernel_data.make_approximation`):
        the estimator is built with the named ``kernel`` and ``kernel_params``
        and this ``approximation`` instead of ``kernel="precomputed"``, and
        takes feature vectors.
    kernel : str, optional
        The kernel's name (with ``approximation`` only).
    kernel_params : dict, optional
        The kernel's parameters (with ``approximation`` only).

    Returns
    -------
    sklearn.base.BaseEstimator
        Built with ``kernel="precomputed"`` (or, with ``approximation``, the
        named kernel), unfitted.

    Raises
    ------
    ValueError
        Unknown method, a ``solver`` for a method that has none, a
        parameter the estimator does not have, or an ``approximation`` for a
        method without an approximate path (:data:`NO_APPROXIMATE_PATH`).
    """
    from ..registry import make_method

    if approximation is None:
        est = make_method(method, kernel="precomputed")
    else:
        est = make_method(method)
        if "approximation" not in est.get_params(deep=False):
            raise ValueError(f"method {method!r}: {NO_APPROXIMATE_PATH}")
        est.set_params(kernel=kernel, kernel_params=dict(kernel_params or {}),
                       approximation=approximation)
    accepted = est.get_params(deep=False)
    params = dict(params or {})
    if solver is not None:
        if "solver" not in accepted:
            raise ValueError(f"solver: method {method!r} has no solver parameter; got "
                             f"{solver!r}")
        params["solver"] = solver
    if random_state is not None and "random_state" in accepted and "random_state" not in params:
        params["random_state"] = random_state
    est.set_params(**params)
    return est


def _seeds(params):
    """The data, outer-fold, inner-fold and estimator seeds of a cell (module docstring).

    With an integer ``cv_seed`` the outer and inner splits use ``cv_seed +
    repeat`` as scikit-learn's ``random_state`` directly (every outer fold's
    inner split alike), so that ``cross_val_score(GridSearchCV(est, grid,
    cv=StratifiedKFold(inner, shuffle=True, random_state=s)), K, y,
    cv=StratifiedKFold(outer, shuffle=True, random_state=s))`` reproduces a
    cell of repeat 0 with ``cv_seed = s``.  The landmarks of an ``approximation``
    are drawn with the outer seed (``cv_seed + repeat``, else a seed of the data
    set, repeat and fold): every method and parameter of a fold sees the same ones.
    """
    base = ("dataset", "n_samples", "binary", "repeat")
    seeds = {"data": cell_seed(params, *base, salt="data"),
             "outer": cell_seed(params, *base, "outer_folds", salt="outer"),
             "inner": cell_seed(params, *base, "outer_folds", "fold", "inner_folds",
                                salt="inner"),
             "estimator": cell_seed(location_free(params), salt="estimator"),
             "approximation": cell_seed(params, *base, "outer_folds", "fold",
                                        salt="approximation")}
    cv_seed = params.get("cv_seed")
    if cv_seed is not None:
        seeds["outer"] = seeds["inner"] = int(cv_seed) + int(params.get("repeat", 0))
        seeds["approximation"] = seeds["outer"]
    return seeds


def cell_kernel_data(params, kernel_combos=None):
    """The data and kernel(s) of a classification cell, one per ``kernel_grid`` combination.

    Parameters
    ----------
    params : dict
        A cell of :func:`classification_grid` with ``"seed"``.
    kernel_combos : list of dict, optional
        The kernel parameter combinations (on top of ``kernel_params``); default
        those of the cell's ``kernel_grid`` (an adaptive search asks for the
        values it adds, :mod:`krein.experiment.tuning`).

    Returns
    -------
    list of krein.kernel_data.KernelData
        In ``ParameterGrid`` order of ``kernel_grid`` (one element without a
        kernel grid); cached per process, so the cells of one data set share
        one kernel computation.  With an ``approximation`` the kernel matrix
        is not computed (``K`` None: the features and the kernel's name and
        parameters only).

    Raises
    ------
    krein.kernel_data.InvalidArgument
        Unknown data set, kernel or kernel parameter.
    """
    p = {**CLASSIFICATION_DEFAULTS, **params}
    seed = _seeds(params)["data"]
    binary_json = json.dumps(p["binary"])
    spec = check_data_file(p["data_file"])
    file_json = json.dumps(spec, sort_keys=True)
    stamp = file_stamp(*[(spec or {}).get(k) for k in ("path", "labels", "test_path", "test_labels",
                                                       "landmarks")])
    approximation = _check_approximation(p["approximation"])
    return [_kernel_data(p["dataset"], p["kernel"],
                         json.dumps({**p["kernel_params"], **kc}, sort_keys=True),
                         p["n_samples"], binary_json, seed, file_json, approximation, stamp)
            for kc in (_as_grid(p["kernel_grid"], "kernel_grid") if kernel_combos is None
                       else kernel_combos)]


def _check_approximation(approximation):
    from ..kernel_data import check_approximation

    return check_approximation(approximation)


def outer_splits(params, y, n_test=None):
    """The outer split of a cell: the same for every method and kernel.

    Parameters
    ----------
    params : dict
        A cell with ``"seed"``; the split depends on the seed, ``dataset``,
        ``n_samples``, ``binary``, ``repeat``, ``outer_folds``,
        ``outer_split`` and ``test_size`` only.  ``outer_split``:

        * ``"kfold"`` (default): ``StratifiedKFold(outer_folds, shuffle=True,
          random_state=<outer seed>)``; ``outer_folds = "loo"``: exact
          leave-one-out (:class:`sklearn.model_selection.LeaveOneOut`, no
          seed), one pair per object, the held-out index ascending
          (Haasdonk 2005, Table 1);
        * ``"shuffle"``: ``StratifiedShuffleSplit(n_splits=outer_folds,
          test_size=test_size, random_state=<outer seed>)`` (Chen et al.
          2009, §5: random stratified 80/20 splits);
        * ``"predefined"``: one pair, every training object and every object
          of the data's test part (indices into ``y_test``,
          :meth:`krein.kernel_data.KernelData.test_blocks`).

        The outer seed is ``cv_seed + repeat`` with ``cv_seed``, else
        :func:`krein.experiment.seeds.cell_seed` of the keys above.
    y : array of shape (n,)
        Labels of the data set (of its training part).
    n_test : int, optional
        ``"predefined"`` only: the size of the test part; None: read from
        the cell's data (:func:`cell_kernel_data`).

    Returns
    -------
    list of (ndarray, ndarray)
        ``outer_folds`` pairs of training and test indices (``n`` pairs for
        ``"loo"``, one for ``"predefined"``).
    """
    p = {**CLASSIFICATION_DEFAULTS, **params}
    if p["outer_split"] == "predefined" and n_test is None:
        n_test = cell_kernel_data(params)[0].n_test
    return split_indices(p["outer_split"], p["outer_folds"], p["test_size"],
                         _seeds(params)["outer"], y, n_test,
                         stratify=p["problem"] != "regression")


#: ``(kind, words)`` pairs of :data:`krein.solvers.core.CERTIFICATE_KINDS` (declared
#: there, once), in the order :func:`certificate_measure` reports a mixture of kinds.
CERTIFICATE_KINDS = tuple(_SOLUTION_CERTIFICATE_KINDS.items())


def certificate_measure(solutions):
    """The optimality certificate of a fitted estimator's solutions, as one number.

    Each solution states what its certificate measures (``Solution.certificate_kind``,
    set by the solver that made it); nothing is inferred from the certificate's keys.

    Parameters
    ----------
    solutions : list of krein.solvers.Solution
        The estimator's solutions (one per binary model).

    Returns
    -------
    kind : str
        The words of :data:`CERTIFICATE_KINDS` for the solutions' kind (the first in
        that order with a finite value when they differ): the relative duality gap of
        IndefiniteSVM, LP-SVM and Mod SVM, the KKT residual of the active set (KSVM)
        and of libsvm's point, the Frank-Wolfe gap of the hull problem, the duality
        gap of a CVXPY solution, the gradient of the RVM's marginal likelihood;
        ``""`` when there is none.
    value : float
        Its largest absolute value over the solutions of that kind (NaN without one).
    """
    for key, words in CERTIFICATE_KINDS:
        vals = [(s.certificate or {}).get(key) for s in solutions if s.certificate_kind == key]
        vals = [abs(float(v)) for v in vals
                if isinstance(v, (numbers.Real, np.floating)) and np.isfinite(v)]
        if vals:
            return words, max(vals)
    return "", float("nan")


def _solutions(est):
    """The fitted estimator's solutions: ``solutions_`` (every classifier, one per binary
    model), else ``[solution_]`` (single-problem estimators); Solutions only."""
    from ..solvers import Solution

    sols = getattr(est, "solutions_", None)
    if sols is None:
        sols = [getattr(est, "solution_", None)]
    return [s for s in sols if isinstance(s, Solution)]


@shared_computations
def classification_cell(params):
    """One outer fold of repeated stratified K-fold CV with inner-CV model selection.

    The cell (Loosli et al. 2013 §6.3; Luss & d'Aspremont 2009 §5.1):

    1. loads the data set and, for each combination of ``kernel_grid`` on top
       of ``kernel_params``, its kernel (:func:`krein.kernel_data.load_kernel_data`;
       synthetic data and subsamples drawn with
       ``cell_seed(params, "dataset", "n_samples", "binary", "repeat", salt="data")``);
    2. splits it with ``StratifiedKFold(outer_folds, shuffle=True)`` seeded by
       ``cell_seed(..., "repeat", "outer_folds", salt="outer")`` and keeps fold
       ``fold``: every method, kernel and solver of a repeat sees the same folds;
    3. if there is more than one (kernel, method parameter) combination,
       scores each by ``StratifiedKFold(inner_folds, shuffle=True)`` on the
       outer training split, or with ``inner_folds = 1`` on one stratified
       validation split of it (:func:`inner_splits`), seeded by
       ``cell_seed(..., "fold", "inner_folds", salt="inner")`` (mean of the inner ``scoring``; a combination with
       a failed inner fit is out; ties go to the first combination, kernel
       parameters varying slowest, in ``ParameterGrid`` order) -- the same
       choice as :class:`sklearn.model_selection.GridSearchCV` where a kernel
       block can be sliced, but with the fold kernels of
       :meth:`krein.kernel_data.KernelData.blocks` (training centering,
       training-label pick-out) where it cannot;
    4. refits the method with the best parameters on the outer training block
       and scores it on the outer test rows.

    The cell runs inside :func:`krein._cache.shared_computations`: the
    eigendecomposition of a training block, and a C-independent kernel
    correction of it, are computed once and shared by every parameter
    combination, every method run after it in the same process (``krein
    compare`` runs the methods of a fold one after the other) and the
    diagnostics columns.  Its fits run under the BLAS-thread policy of the
    runner (:mod:`krein._threads`: one thread on kernels of at most
    :data:`krein._threads.SMALL_KERNEL` objects by default).

    Parameters
    ----------
    params : dict
        Keys of :data:`CLASSIFICATION_DEFAULTS`; required: ``dataset``,
        ``method``, ``seed``.

        * ``dataset``, ``n_samples``, ``binary``, ``kernel``, ``kernel_params``:
          as :func:`krein.kernel_data.load_kernel_data` (``binary`` lists are read
          as tuples);
        * ``data_file``: None, or a user's file instead of a catalogue data
          set (:func:`check_data_file`; ``dataset`` is then only its name),
          loaded by :func:`krein.kernel_data.load_kernel_file` or
          :func:`krein.kernel_data.load_feature_file`;
        * ``kernel_grid``: dict kernel parameter -> list of values, selected
          by inner CV;
        * ``method``: registry name (:func:`krein.list_methods`), built with
          ``kernel="precomputed"``; ``method_params``: fixed estimator
          parameters; ``param_grid``: dict estimator parameter -> list, selected
          by inner CV (e.g. ``{"C": [0.1, 1, 10], "rho": [1, 10]}``);
        * ``solver``: None (the method's default) or a solver for the
          estimator's ``solver`` parameter;
        * ``outer_folds``, ``fold``, ``repeat``, ``inner_folds``;
          ``outer_folds = "loo"``: exact leave-one-out, ``fold`` is the
          held-out object (:func:`outer_splits`); ``inner_folds = 1``: one
          stratified validation split holding ``validation_fraction`` of the
          outer training split (:func:`inner_splits`);
        * ``outer_split`` (:data:`OUTER_SPLITS`) and ``test_size``: step 2
          with ``StratifiedShuffleSplit`` (``"shuffle"``), or
          (``"predefined"``, ``outer_folds = 1``) with the data's training
          part for steps 3-4 and its test part
          (:meth:`krein.kernel_data.KernelData.test_blocks`) as the test rows;
        * ``cv_seed`` (the storage key of ``random_state`` of
          :func:`classification_grid`: hashed into the cell's key, so kept
          under this name): None (outer and inner splits seeded by :func:`cell_seed`
          as in step 2) or an integer ``s``: both seeded by ``s + repeat``
          directly, as scikit-learn's ``cross_val_score`` over ``GridSearchCV``
          with those ``random_state`` values would split (``krein compare``);
        * ``scoring``: one of :data:`SCORINGS` for the inner CV (luss:
          ``"average"``); with ``problem="regression"`` :data:`REGRESSION_SCORING`;
        * ``problem``: ``"classification"`` (default) or ``"regression"``: real
          targets (:func:`_targets`), ``KFold`` / ``ShuffleSplit`` in steps 2
          and 3 instead of their stratified versions, the inner score minus the
          RMSE, and the outer scores ``rmse``, ``mae``, ``r2``
          (:func:`krein.experiment.metrics.regression_metrics`) instead of the
          classification scores; or ``"novelty"``: labels +1 (inlier) and -1
          (outlier), no step 3 (no grid), step 4 fits on the inliers of the outer
          training split only and scores the whole test split (``auc`` of the
          decision values, positive for +1; ``n_train`` the inliers fitted);
        * ``grid_extension``: 0 (the grids searched as given) or ``N``: step 3
          searches adaptively (:mod:`krein.experiment.tuning`: every grid made
          feasible for the inner training parts, a parameter chosen at an end
          of its grid extended by one step and the new points scored, up to
          ``N`` steps per side), except the parameters named in
          ``grid_fixed`` (``kernel_<p>`` for a kernel parameter), searched as
          given;
        * ``save_trace``: return the estimator's ``trace_`` (if any);
        * ``approximation``: None, or ``"nystroem:M[:LANDMARKS]"``
          (:func:`krein.kernel_data.check_approximation`): no kernel matrix is
          computed; the method is built with the named kernel, the grid
          point's kernel parameters and that front end
          (:func:`krein.kernel_data.make_approximation`, landmarks seeded per
          fold, the same for every method) and fitted on the feature rows
          ``X[train]``, every fit refitting the front end on its own training
          rows (inner CV included); ``min_eigenvalue``, ``r_mm``, ``r_neg``
          are then those of the approximation of the outer training block
          (``approximation_.eigenvalues_``) and ``n_support`` is None for a
          linear model without support vectors.

        Estimators with a ``random_state`` parameter get
        ``cell_seed(location_free(params), salt="estimator")`` (the same wherever
        the data file lies) unless ``method_params`` sets it.

    Returns
    -------
    dict
        ``n_train``, ``n_test``; :func:`classification_metrics` on the outer
        test split; ``auc`` (:func:`krein.experiment.metrics.fold_auc`: ROC AUC
        of the decision values on the outer test split, NaN for multiclass);
        ``train_accuracy`` (accuracy on the outer training split,
        the kernel as given: Loosli et al. Figs. 6-7, bottom); ``inner_score`` (best mean inner score, NaN without model
        selection); ``best_<p>`` and ``best_kernel_<p>`` for the grid
        parameters, and all of them in ``best_params`` (a JSON object, kernel
        parameters as ``kernel_<p>``, ``{}`` without selection); ``fit_seconds``, ``predict_seconds``, ``select_seconds``;
        ``n_support`` (``len(support_)``), ``n_iter`` (sum of ``n_iter_``);
        ``min_eigenvalue``, ``r_mm``, ``r_neg`` of the outer training block
        (:class:`krein.spectrum.Spectrum`); ``solver_used`` (the fitted
        ``solver_``, "auto" resolved, when the estimator records one),
        ``solver_version``, ``solver_status`` (statuses of the
        :class:`krein.solvers.Solution` objects the estimator keeps, ``""`` if
        none), ``objective`` and ``gap`` (of a single such solution, else NaN),
        ``certificate`` and ``certificate_value`` (:func:`certificate_measure`),
        ``n_inner_failures``, ``n_inner_warnings``, ``inner_error`` (the first
        failed inner fit's exception on one line, ``""`` if none); with
        ``grid_extension``, ``grid_search`` (JSON: per parameter the range
        searched, the extensions at each side, ``limit``: the limit its chosen
        end stopped at, and ``feasible``: the feasible range its values were
        placed in; :meth:`krein.experiment.tuning.GridAxis.record`) and
        ``n_grid_points`` (points scored); ``test_correct``
        (:func:`krein.experiment.splits.fold_correctness`: ``"1"``/``"0"`` per
        test object in test-index order); ``test_predictions``
        (:func:`krein.experiment.metrics.fold_predictions`: the predicted class,
        decision value and probability per test object, JSON); and ``trace`` (``trace_``) when
        ``save_trace``.  A regression cell has ``rmse``, ``mae``, ``r2`` and
        ``train_rmse`` in place of the classification scores, AUC,
        ``train_accuracy`` and ``test_correct``, and ``test_predictions`` holds the
        predicted values (:func:`krein.experiment.metrics.regression_predictions`).

    Raises
    ------
    ValueError
        Unknown parameter, missing ``dataset``/``method``, ``fold`` out of
        range, bad ``scoring``, bad grids, or a method that rejects a
        parameter (InvalidArgument of :mod:`krein.kernel_data` for data/kernel).
    RuntimeError
        If every parameter combination failed in the inner CV.
    Exception
        Whatever the refit raises (the runner records it).
    """
    unknown = sorted(set(params) - set(CLASSIFICATION_DEFAULTS) - {"seed"})
    if unknown:
        raise ValueError(f"classification_cell: unknown parameter(s) {unknown}; accepted: "
                         f"{sorted(CLASSIFICATION_DEFAULTS)}")
    p = {**CLASSIFICATION_DEFAULTS, **params}
    for req in ("dataset", "method", "seed"):
        if p.get(req) is None:
            raise ValueError(f"classification_cell: parameter {req!r} is required")
    _check_task_scoring(p["problem"], p["scoring"])
    if p["problem"] == "novelty" and (p["param_grid"] or p["kernel_grid"]):
        raise ValueError("problem='novelty' is not tuned (an inner score would need the "
                         "outliers' labels of the training split); give no param_grid or "
                         "kernel_grid")
    outer, fold, inner = p["outer_folds"], p["fold"], p["inner_folds"]
    scheme = check_outer_split(p["outer_split"], p["test_size"], outer)
    checks = [("inner_folds", inner, 1), ("repeat", p["repeat"], 0), ("fold", fold, 0)]
    if outer != LOO:
        checks.insert(0, ("outer_folds", outer, 2 if scheme == "kfold" else 1))
    for name, v, lo in checks:
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo} (outer_folds also {LOO!r}); "
                             f"got {v!r}")
    if outer != LOO and fold >= outer:
        raise ValueError(f"fold must be < outer_folds = {outer}; got {fold}")
    _check_fraction(p["validation_fraction"])
    _check_extension(p["grid_extension"], p["grid_fixed"])
    kernel_combos = _as_grid(p["kernel_grid"], "kernel_grid")
    method_combos = _as_grid(p["param_grid"], "param_grid")
    if not isinstance(p["method_params"], dict) or not isinstance(p["kernel_params"], dict):
        raise ValueError("method_params and kernel_params must be dicts")

    seeds = _seeds(params)
    datas = cell_kernel_data(params)
    if scheme == "predefined" and datas[0].n_test == 0:
        raise ValueError(f"outer_split='predefined': {p['dataset']!r} has no predefined test "
                         "part (a bundled set with its own split, or a data_file with test_path)")
    if outer == LOO and fold >= datas[0].n_samples:
        raise ValueError(f"fold must be < n = {datas[0].n_samples} with outer_folds={LOO!r}; "
                         f"got {fold}")
    # one BLAS thread for the fits of a small kernel (krein._threads: the runner's policy)
    with fit_threads(datas[0].n_samples):
        return _select_refit_score(p, params, datas, seeds, kernel_combos, method_combos)


def _check_task_scoring(task, scoring):
    """``task`` one of :data:`TASKS` and ``scoring`` one of its scores, else ValueError."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")
    allowed = (REGRESSION_SCORING,) if task == "regression" else SCORINGS
    if scoring not in allowed:
        raise ValueError(f"scoring must be one of {allowed} with task={task!r}; got {scoring!r}")


def _targets(data, task):
    """The labels of ``data`` (training part, test part or None) for ``task``: real targets
    as floats for a regression (the data's label conversion keeps non-integral numbers as
    text, :func:`krein.kernel_data.class_labels`)."""
    if task != "regression":
        return data.y, data.y_test
    as_float = (lambda v: None if v is None else np.asarray(v).astype(float))
    return as_float(data.y), as_float(data.y_test)


def _select_refit_score(p, params, datas, seeds, kernel_combos, method_combos):
    """Steps 2-4 of :func:`classification_cell` on the loaded kernels ``datas``.

    The outer fold (:func:`_outer_fold`), the inner model selection over every
    (kernel, method parameter) combination (:func:`_inner_search`), the refit
    of the chosen one on the outer training split with its test scores
    (:func:`_refit`) and the cell's record (:func:`_fold_record`).
    """
    fold = _outer_fold(p, params, datas, seeds, method_combos[0])
    regression = p["problem"] == "regression"
    y, y_test = _targets(datas[0], p["problem"])
    y_te = y_test[fold.test] if fold.predefined else y[fold.test]
    classes = None if regression else np.unique(np.concatenate([y, y_te]))
    splits = functools.partial(inner_splits, inner_folds=p["inner_folds"],
                               validation_fraction=p["validation_fraction"],
                               random_state=seeds["inner"], stratify=not regression)
    if p["grid_extension"]:
        search = _adaptive_search(fold, params, p, datas, y, classes, splits, p["scoring"])
        kernel_combo, method_combo, data = search.kernel_combo, search.method_combo, search.data
    else:
        search = _inner_search(fold, datas, method_combos, y, classes, splits, p["scoring"])
        kernel_combo, method_combo = kernel_combos[search.best_k], method_combos[search.best_m]
        data = datas[search.best_k]
    if p["problem"] == "novelty":    # fitted on the inliers of the training split only
        fold = replace(fold, train=fold.train[np.asarray(y)[fold.train] == 1])
    refit = _refit(fold, data, method_combo, y)
    return _fold_record(refit, fold, search, y, y_te, classes, kernel_combo, method_combo,
                        p["save_trace"])


@dataclass(frozen=True)
class _OuterFold:
    """One outer fold of a cell: how its estimators are built and what they are fitted on.

    Attributes
    ----------
    method : str
        The registry name of the cell's method.
    method_params : dict
        Its fixed parameters (``method_params`` of the cell).
    solver : str or None
        The value of the estimator's ``solver`` parameter (None: the method's).
    seeds : dict
        The cell's seeds (:func:`_seeds`): ``"estimator"`` for every estimator,
        ``"approximation"`` for the landmarks of an approximated run.
    approximation : str or None
        ``"nystroem:M[:LANDMARKS]"``: the estimators take feature rows.
    train : ndarray of int
        The outer training indices (into ``y``).
    test : ndarray of int
        The outer test indices (into ``y``, or into the test part with a
        predefined split).
    predefined : bool
        The test rows are the data's predefined test part.
    stacked : bool
        The estimators take stacked kernel blocks ``[K, K_1, ..., K_M]``.
    """

    method: str
    method_params: dict
    solver: object
    seeds: dict
    approximation: object
    train: np.ndarray
    test: np.ndarray
    predefined: bool
    stacked: bool = False

    def estimator(self, method_combo, data):
        """The unfitted estimator of one grid point.

        Parameters
        ----------
        method_combo : dict
            The grid point's method parameters (on top of ``method_params``).
        data : krein.kernel_data.KernelData
            The data of the grid point's kernel parameters (in an approximated
            run the estimator is built with that named kernel and a front end
            with the fold's landmark seed, refitted by every fit on its own
            training rows).

        Returns
        -------
        sklearn.base.BaseEstimator
            :func:`build_estimator` of the method with these parameters.
        """
        from ..kernel_data import make_approximation

        method_params = {**self.method_params, **method_combo}
        if self.approximation is None:
            return build_estimator(self.method, method_params, self.solver,
                                   self.seeds["estimator"])
        front = make_approximation(self.approximation, self.seeds["approximation"],
                                   landmark_block=data.landmark_block)
        if data.landmark_block is not None:     # X holds the kernel columns themselves
            return build_estimator(self.method, method_params, self.solver,
                                   self.seeds["estimator"], approximation=front,
                                   kernel="precomputed", kernel_params={})
        return build_estimator(self.method, method_params, self.solver, self.seeds["estimator"],
                               approximation=front, kernel=data.kernel,
                               kernel_params=data.kernel_params)

    def split_inputs(self, data, train, test):
        """Training and test input of a split: kernel blocks, or feature rows.

        Parameters
        ----------
        data : krein.kernel_data.KernelData
            The data and kernel.
        train, test : ndarray of int
            Indices into ``data.y``.

        Returns
        -------
        X_train : ndarray of shape (n_train, n_train) or (n_train, n_features)
            :meth:`krein.kernel_data.KernelData.blocks` (stacked: a third axis
            of ``1 + M`` kernels), or ``X[train]`` in an approximated run.
        X_test : ndarray of shape (n_test, n_train) or (n_test, n_features)
            The test rows against the training objects, or ``X[test]``.
        """
        if self.approximation is not None:
            return data.X[train], data.X[test]
        return data.blocks(train, test, stacked=self.stacked)

    def outer_inputs(self, data):
        """The outer fold's training and test input; a predefined split's test rows are
        the data's test part (:meth:`krein.kernel_data.KernelData.test_blocks`).

        Parameters
        ----------
        data : krein.kernel_data.KernelData
            The data and kernel.

        Returns
        -------
        X_train, X_test : ndarray
            As :meth:`split_inputs` for ``train`` and ``test``.
        """
        if not self.predefined:
            return self.split_inputs(data, self.train, self.test)
        if self.approximation is not None:
            return data.X[self.train], data.X_test[self.test]
        return data.test_blocks(self.train, stacked=self.stacked)


def _outer_fold(p, params, datas, seeds, probe_combo):
    """The cell's :class:`_OuterFold`: fold ``p["fold"]`` of :func:`outer_splits`.

    The estimator of ``probe_combo`` on ``datas[0]`` tells whether the method
    takes stacked kernel blocks (data with base kernels only,
    :func:`krein.combinations.accepts_stacked_kernels`).
    """
    from ..combinations import accepts_stacked_kernels

    train, test = outer_splits(params, datas[0].y, n_test=datas[0].n_test)[p["fold"]]
    fold = _OuterFold(method=p["method"], method_params=p["method_params"], solver=p["solver"],
                      seeds=seeds, approximation=p["approximation"], train=train, test=test,
                      predefined=p["outer_split"] == "predefined")
    probe = fold.estimator(probe_combo, datas[0])
    stacked = datas[0].base_kernels is not None and accepts_stacked_kernels(probe)
    return replace(fold, stacked=stacked)


@dataclass(frozen=True)
class _InnerSearch:
    """The outcome of the inner model selection of one outer fold.

    Attributes
    ----------
    best_k, best_m : int
        Indices of the chosen kernel and method parameter combinations
        (0, 0 without a search).
    score : float
        The chosen combination's mean inner score (NaN without a search).
    n_failures : int
        Inner fits (and predictions) that raised.
    n_warnings : int
        Warnings the inner fits and predictions issued.
    first_error : Exception or None
        The first inner fit's exception, in search order.
    seconds : float
        Wall time of the search.
    kernel_combo, method_combo : dict or None
        The choice of an adaptive search (:func:`_adaptive_search`).
    data : krein.kernel_data.KernelData or None
        The data of its kernel parameters.
    grid_search : dict or None
        Per parameter of an adaptive search: the range searched, the
        extensions at each side, the limit a chosen end stopped at and the
        feasible range (:meth:`krein.experiment.tuning.GridAxis.record`).
    n_fits : int
        Grid points scored by an adaptive search (each on every inner split).
    """

    best_k: int = 0
    best_m: int = 0
    score: float = float("nan")
    n_failures: int = 0
    n_warnings: int = 0
    first_error: Exception | None = None
    seconds: float = 0.0
    kernel_combo: dict | None = None
    method_combo: dict | None = None
    data: object = None
    grid_search: dict | None = None
    n_fits: int = 0


def inner_splits(train, y, *, inner_folds, validation_fraction=0.2, random_state=None,
                 stratify=True):
    """The inner splits of an outer training split: k folds, or one validation split.

    Every method of an outer fold gets the same splits (the seed is the fold's,
    not the method's), so their inner scores are paired.

    Parameters
    ----------
    train : ndarray of int, shape (n_train,)
        The outer training indices (into ``y``).
    y : ndarray of shape (n,)
        Labels.
    inner_folds : int >= 1
        ``k >= 2``: ``StratifiedKFold(k, shuffle=True, random_state=random_state)``;
        ``1``: one ``StratifiedShuffleSplit(n_splits=1,
        test_size=validation_fraction, random_state=random_state)`` (the validation
        part holds ``ceil(validation_fraction * n_train)`` objects, each class
        in proportion).
    validation_fraction : float in (0, 1), default 0.2
        The validation part's share of the outer training split (with
        ``inner_folds = 1`` only).
    random_state : int, optional
        The splitter's seed (a cell's inner seed).
    stratify : bool, default True
        False (real targets): ``KFold`` and ``ShuffleSplit`` with the same
        arguments instead.

    Returns
    -------
    list of (ndarray, ndarray)
        ``inner_folds`` (or one) pairs of fitting and validation indices into ``y``.

    Raises
    ------
    ValueError
        ``inner_folds < 1``, a fraction outside (0, 1), or a class too small
        for the split (scikit-learn's message).
    """
    from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

    train = np.asarray(train)
    if isinstance(inner_folds, bool) or not isinstance(inner_folds, numbers.Integral) \
            or inner_folds < 1:
        raise ValueError(f"inner_folds must be an integer >= 1; got {inner_folds!r}")
    if inner_folds == 1:
        splitter = (StratifiedShuffleSplit if stratify else ShuffleSplit)(
            n_splits=1, test_size=_check_fraction(validation_fraction), random_state=random_state)
    else:
        splitter = (StratifiedKFold if stratify else KFold)(int(inner_folds), shuffle=True,
                                                            random_state=random_state)
    return [(train[a], train[b]) for a, b in splitter.split(np.zeros((train.size, 1)), y[train])]


def _check_extension(steps, fixed):
    """``grid_extension`` an integer >= 0 and ``grid_fixed`` a list of names, else ValueError."""
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"grid_extension must be an integer >= 0; got {steps!r}")
    if not isinstance(fixed, (list, tuple)) or not all(isinstance(n, str) for n in fixed):
        raise ValueError(f"grid_fixed must be a list of parameter names; got {fixed!r}")
    return int(steps)


def _check_fraction(fraction):
    """``validation_fraction`` as a float in (0, 1), else ValueError."""
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) \
            or not 0 < fraction < 1:
        raise ValueError(f"validation_fraction must be a number in (0, 1); got {fraction!r}")
    return float(fraction)


def _inner_search(fold, datas, method_combos, y, classes, splits, scoring):
    """Inner model selection on the outer training split over every combination.

    Each kernel combination (``datas[i]``, slowest) is scored by
    :func:`_kernel_fold_scores` on the same inner splits (``splits(train, y)``:
    :func:`inner_splits` of the outer training split, k stratified folds or one
    validation split); the best combination is :func:`_best_combination`.
    With a single combination nothing is fitted.

    Parameters
    ----------
    fold : _OuterFold
        The outer fold.
    datas : list of krein.kernel_data.KernelData
        One per kernel combination.
    method_combos : list of dict
        The method parameter combinations, in ``ParameterGrid`` order.
    y : ndarray of shape (n,)
        Labels of the data (of its training part).
    classes : ndarray
        Every class of the data (training and test part).
    splits : callable
        ``splits(train, y)`` -> the inner splits (:func:`inner_splits` with the
        cell's folds, fraction and seed).
    scoring : str
        The inner score (a key of :func:`classification_metrics`).

    Returns
    -------
    _InnerSearch
        The choice, its score, the failure and warning counts and the time.

    Raises
    ------
    RuntimeError
        If every combination failed.
    """
    t_sel = time.perf_counter()
    if len(datas) * len(method_combos) <= 1:
        return _InnerSearch(seconds=time.perf_counter() - t_sel)
    splits = splits(fold.train, y)
    scores = np.full((len(datas), len(method_combos)), -np.inf)
    exact = np.full(scores.shape, None, dtype=object)
    n_test = [len(b) for _, b in splits] if scoring == "accuracy" else None
    n_fail = n_warn = 0
    first_error = None
    for i, data in enumerate(datas):
        fold_scores, fails, warns, error = _kernel_fold_scores(fold, data, method_combos, splits,
                                                               y, classes, scoring)
        scores[i] = _mean_scores(fold_scores)
        exact[i] = _exact_mean_scores(fold_scores, n_test)
        n_fail += fails
        n_warn += warns
        first_error = first_error or error
    best_k, best_m = _best_combination(scores, first_error, exact)
    return _InnerSearch(best_k, best_m, float(scores[best_k, best_m]), n_fail, n_warn,
                        first_error, time.perf_counter() - t_sel)


def _adaptive_search(fold, params, p, datas, y, classes, splits, scoring):
    """Inner model selection over grids that are made feasible and extended at a winning end.

    The rule of :mod:`krein.experiment.tuning`: every grid parameter (the kernel
    grid's as ``kernel_<p>``) is placed inside its feasible range for the inner
    fitting parts; the grid is scored as :func:`_inner_search` scores it; then,
    each parameter whose chosen value is at an end of the values searched that
    can move (at most ``p["grid_extension"]`` steps per side, never past a
    feasible bound; parameters in ``p["grid_fixed"]`` never) gains one value
    beyond it, and the chosen point's compass neighbours (one parameter one
    step away, :meth:`krein.experiment.tuning.GridAxis.neighbours`) not yet
    scored are fitted, on the same inner splits; until none is left.  The
    choice is :func:`_best_combination` over every point scored, in search
    order (the starting grid first, then the points in the order added).

    Parameters
    ----------
    fold : _OuterFold
        The outer fold.
    params : dict
        The cell (to load the kernel of an added kernel parameter value,
        :func:`cell_kernel_data`).
    p : dict
        The cell with its defaults.
    datas : list of krein.kernel_data.KernelData
        The kernels of the cell's ``kernel_grid`` combinations.
    y, classes, splits, scoring
        As :func:`_inner_search`.

    Returns
    -------
    _InnerSearch
        With ``kernel_combo``, ``method_combo``, ``data``, ``grid_search`` and
        ``n_fits`` set (without a grid: nothing fitted, empty records).

    Raises
    ------
    RuntimeError
        If every combination failed.
    """
    from sklearn.model_selection import ParameterGrid

    from .tuning import GridAxis, feasible_values, parameter_rule, smallest_class

    t_sel = time.perf_counter()
    kernel_grid, param_grid = dict(p["kernel_grid"]), dict(p["param_grid"])
    given = {f"kernel_{k}": v for k, v in kernel_grid.items()}
    given.update(param_grid)
    kernel_combos = _as_grid(kernel_grid, "kernel_grid")
    if len(kernel_combos) * len(_as_grid(param_grid, "param_grid")) <= 1 and all(
            len(v) <= 1 for v in given.values()):
        return _InnerSearch(seconds=time.perf_counter() - t_sel, kernel_combo=kernel_combos[0],
                            method_combo=_as_grid(param_grid, "param_grid")[0], data=datas[0],
                            grid_search={})
    splits = splits(fold.train, y)
    n_min = smallest_class(splits, y) if classes is not None else None
    fixed = set(p["grid_fixed"] or ())
    axes = {}
    for name, values in given.items():
        rule = parameter_rule(name, values, n_min)
        # a grid the user fixed is searched as given: neither extended nor moved
        kept, changed = (list(values), False) if name in fixed else feasible_values(values, rule)
        axis = GridAxis(name, kept, rule, 0 if name in fixed else int(p["grid_extension"]))
        if changed:
            why = "; ".join(r for r, crossed in (
                (rule.lower_reason, any(float(v) < rule.lower for v in values)),
                (rule.upper_reason, any(float(v) > rule.upper for v in values))) if crossed)
            axis.feasible = f"{name} in [{rule.lower:g}, {rule.upper:g}] ({why})"
        axes[name] = axis
    kernel_names = [f"kernel_{k}" for k in kernel_grid]
    loaded = {_combo_key(kc): d for kc, d in zip(kernel_combos, datas)}
    n_test = [len(b) for _, b in splits] if scoring == "accuracy" else None
    order, scores, exact = [], [], []
    n_fail = n_warn = 0
    first_error = None
    names = list(axes)
    # the starting grid, kernel parameters slowest, each in ParameterGrid order
    pending = [{**{f"kernel_{k}": v for k, v in kc.items()}, **mc}
               for kc in ParameterGrid({k[len("kernel_"):]: axes[k].values
                                        for k in kernel_names})
               for mc in ParameterGrid({k: axes[k].values for k in param_grid})]
    done = {}
    while True:
        by_kernel = {}
        for point in pending:
            kk, mk = _split_point(point, kernel_names)
            by_kernel.setdefault(kk, []).append(dict(mk))
        rows = {}
        for kk, mcs in by_kernel.items():
            if kk not in loaded:
                loaded[kk] = cell_kernel_data(params, [dict(kk)])[0]
            fold_scores, fails, warns, error = _kernel_fold_scores(
                fold, loaded[kk], mcs, splits, y, classes, scoring)
            for mc, mean, ex in zip(mcs, _mean_scores(fold_scores),
                                    _exact_mean_scores(fold_scores, n_test)):
                rows[(kk, _combo_key(mc))] = (mean, ex)
            n_fail += fails
            n_warn += warns
            first_error = first_error or error
        for point in pending:               # search order: the order the points were added
            key = _split_point(point, kernel_names)
            order.append(key)
            done[key] = len(order) - 1
            scores.append(rows[key][0])
            exact.append(rows[key][1])
        table = np.asarray(scores, dtype=float)[None, :]
        ex = np.empty(table.shape, dtype=object)
        ex[0, :] = exact
        _, best = _best_combination(table, first_error, ex)
        kk, mk = order[best]
        chosen = {**{f"kernel_{k}": v for k, v in kk}, **dict(mk)}
        limits = {}
        for name, axis in axes.items():
            where = axis.end(chosen[name])
            if where is not None:
                limits[name] = axis.extend(where)[1]
        # the compass neighbours of the choice: one step along each parameter, both ways
        pending = []
        for name in names:
            for value in axes[name].neighbours(chosen[name]):
                point = {**chosen, name: value}
                key = _split_point(point, kernel_names)
                if key not in done and point not in pending:
                    pending.append(point)
        if not pending:
            break
    record = {name: axis.record(chosen[name], limits.get(name, ""))
              for name, axis in axes.items() if axis.numeric or axis.feasible}
    return _InnerSearch(0, 0, float(scores[best]), n_fail, n_warn, first_error,
                        time.perf_counter() - t_sel, kernel_combo=dict(kk),
                        method_combo=dict(mk), data=loaded[kk], grid_search=record,
                        n_fits=len(order))


def _split_point(point, kernel_names):
    """The (kernel, method) keys of a grid point ``{name: value}`` (``kernel_<p>`` names)."""
    kernel = {k[len("kernel_"):]: v for k, v in point.items() if k in kernel_names}
    method = {k: v for k, v in point.items() if k not in kernel_names}
    return _combo_key(kernel), _combo_key(method)


def _combo_key(combo):
    """A hashable key of a parameter combination (its items in sorted key order)."""
    return tuple(sorted(combo.items()))


def _kernel_fold_scores(fold, data, method_combos, splits, y, classes, scoring):
    """The inner-CV score table of one kernel combination.

    For each inner split the inputs are computed once
    (:meth:`_OuterFold.split_inputs`, with the per-fold rules of the data)
    and every method combination is fitted on them and scored on the split's
    held-out rows.  A fit or prediction that raises scores NaN and is counted;
    the warnings of each fit and prediction are counted.

    Parameters
    ----------
    fold : _OuterFold
        The outer fold.
    data : krein.kernel_data.KernelData
        The data of the kernel combination.
    method_combos : list of dict
        The method parameter combinations.
    splits : list of (ndarray, ndarray)
        The inner splits (indices into ``y``).
    y : ndarray of shape (n,)
        Labels.
    classes : ndarray
        Every class of the data.
    scoring : str
        The inner score.

    Returns
    -------
    fold_scores : ndarray of shape (len(method_combos), len(splits))
        The score of each method combination on each split (NaN: failed).
    n_failures : int
        Fits that raised.
    n_warnings : int
        Warnings issued.
    first_error : Exception or None
        The first exception (split by split, combination by combination).
    """
    fold_scores = np.zeros((len(method_combos), len(splits)))
    n_fail = n_warn = 0
    first_error = None
    order = _path_order(method_combos)
    for s, (a, b) in enumerate(splits):
        K_a, K_b = fold.split_inputs(data, a, b)
        previous = None
        for j in order:
            mc = method_combos[j]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    est = previous = _warm_started(fold.estimator(mc, data), previous)
                    est.fit(K_a, y[a])
                    fold_scores[j, s] = _score(y[b], est.predict(K_b), classes, scoring)
                except Exception as exc:
                    n_fail += 1
                    fold_scores[j, s] = np.nan
                    first_error = first_error or exc
            n_warn += len(caught)
    return fold_scores, n_fail, n_warn, first_error


def _path_order(method_combos):
    """The order in which an inner split fits the grid points: along ``C`` (ascending)
    within each setting of the other parameters, so that a ``warm_start`` estimator
    (:func:`_warm_started`) starts each fit at its neighbour's solution.  The scores
    keep the grid's order; the order of fitting changes no choice.

    Parameters
    ----------
    method_combos : list of dict
        The grid points' method parameters.

    Returns
    -------
    list of int
        A permutation of ``range(len(method_combos))``.
    """
    def key(j):
        mc = method_combos[j]
        others = tuple((k, repr(v)) for k, v in sorted(mc.items()) if k != "C")
        c = mc.get("C")
        return others, (float(c) if isinstance(c, numbers.Real) else 0.0)
    return sorted(range(len(method_combos)), key=key)


def _warm_started(est, previous):
    """``est``, or — for an estimator with a ``warm_start`` parameter — ``previous``
    (the estimator of the split's last grid point, fitted or not) given ``est``'s
    parameters and ``warm_start=True``: its next fit starts at the last solution
    (scikit-learn's ``warm_start``; a failed fit leaves nothing, so the next starts cold).

    Parameters
    ----------
    est : estimator
        The grid point's unfitted estimator (:meth:`_OuterFold.estimator`).
    previous : estimator or None
        The estimator of the split's previous grid point.

    Returns
    -------
    estimator
    """
    params = est.get_params(deep=False)
    if "warm_start" not in params:
        return est
    if previous is None or type(previous) is not type(est):
        return est.set_params(warm_start=True)
    return previous.set_params(**{**params, "warm_start": True})


def _score(y_true, y_pred, classes, scoring):
    """One inner score: of :func:`classification_metrics`, or with ``classes`` None (real
    targets) of :func:`krein.experiment.metrics.regression_metrics`."""
    if classes is None:
        return regression_metrics(y_true, y_pred)[scoring]
    return classification_metrics(y_true, y_pred, classes)[scoring]


def _mean_scores(fold_scores):
    """Mean inner score of each method combination (a row of ``fold_scores``); ``-inf``
    for a combination with a failed (NaN) split: it cannot be chosen."""
    return [float(np.mean(row)) if np.all(np.isfinite(row)) else -np.inf for row in fold_scores]


def _exact_mean_scores(fold_scores, n_test):
    """Mean inner accuracies as exact fractions (None for a failed combination).

    ``n_test`` holds the sizes of the inner held-out parts when the score is
    the accuracy (a ratio of counts, :func:`krein.experiment.statistics.exact_accuracy`);
    without it the row's scores are compared as floats: their correctly
    rounded mean.
    """
    from .statistics import exact_accuracy, exact_mean

    out = []
    for row in fold_scores:
        if not np.all(np.isfinite(row)):
            out.append(None)
        elif n_test is None:
            out.append(exact_mean(float(v) for v in row))
        else:
            out.append(exact_mean(exact_accuracy(v, n) for v, n in zip(row, n_test)))
    return out


def _best_combination(scores, first_error, exact=None):
    """The chosen (kernel, method) combination of a table of mean inner scores.

    The first maximum in row-major order: on a tie the first combination
    wins, kernel combinations varying slowest, each in ``ParameterGrid``
    order -- the choice of :class:`sklearn.model_selection.GridSearchCV`
    (``argmax`` of ``mean_test_score``) over the combined grid.  Ties are
    decided by ``exact``: mean accuracies as exact fractions, so that two
    combinations with the same mean tie whatever the round-off of their
    float means; other scores tie within
    :data:`krein.experiment.statistics.TIE_RTOL`
    (:func:`krein.experiment.statistics.tie_codes`).

    Parameters
    ----------
    scores : ndarray of shape (n_kernel_combos, n_method_combos)
        Mean inner scores; ``-inf`` for a failed combination.
    first_error : Exception or None
        The first failed inner fit's exception, named when every one failed.
    exact : ndarray of object of shape (n_kernel_combos, n_method_combos), optional
        The same means as :func:`_exact_mean_scores` (None: failed); default
        ``scores`` compared within the tolerance.

    Returns
    -------
    best_k, best_m : int
        Row and column of the choice.

    Raises
    ------
    RuntimeError
        If no combination has a finite score.
    """
    if not np.isfinite(scores).any():
        raise RuntimeError(f"every parameter combination failed in the inner CV; first "
                           f"error: {type(first_error).__name__}: {first_error}")
    from .statistics import tie_codes

    flat = scores.ravel()
    idx = np.flatnonzero(np.isfinite(flat))
    values = flat if exact is None else exact.ravel()
    codes = tie_codes([values[i] for i in idx])
    return divmod(int(idx[np.flatnonzero(codes == codes.max())[0]]), scores.shape[1])


@dataclass(frozen=True)
class _Refit:
    """The chosen combination refitted on the outer training split.

    Attributes
    ----------
    estimator : sklearn.base.BaseEstimator
        The fitted estimator.
    X_train, X_test : ndarray
        The outer fold's inputs (:meth:`_OuterFold.outer_inputs`).
    spectrum : krein.spectrum.Spectrum
        Of the outer training block (of its approximation in an approximated run).
    pred : ndarray of shape (n_test,)
        Predictions on the outer test rows.
    fit_seconds, predict_seconds : float
        Wall time of the fit and of the prediction.
    """

    estimator: object
    X_train: np.ndarray
    X_test: np.ndarray
    spectrum: object
    pred: np.ndarray
    fit_seconds: float
    predict_seconds: float


def _refit(fold, data, method_combo, y):
    """Refit ``method_combo`` on the outer training split and predict the outer test rows.

    The spectrum of the training block is taken before the fit (so the fit
    reuses its shared eigendecomposition); in an approximated run it is that
    of the fitted approximation (:func:`krein.kernel_data.approximation_spectrum`).
    """
    from ..kernel_data import approximation_spectrum
    from ..spectrum import Spectrum

    X_tr, X_te = fold.outer_inputs(data)
    if fold.approximation is None:
        spec = Spectrum.from_kernel(X_tr[:, :, 0] if X_tr.ndim == 3 else X_tr)
    est = fold.estimator(method_combo, data)
    t0 = time.perf_counter()
    est.fit(X_tr, y[fold.train])
    fit_seconds = time.perf_counter() - t0
    if fold.approximation is not None:
        spec = approximation_spectrum(est.approximation_.eigenvalues_, fold.train.size)
    t0 = time.perf_counter()
    pred = est.predict(X_te)
    predict_seconds = time.perf_counter() - t0
    return _Refit(est, X_tr, X_te, spec, pred, fit_seconds, predict_seconds)


def _fold_record(refit, fold, search, y, y_te, classes, kernel_combo, method_combo,
                 save_trace):
    """The result dict of :func:`classification_cell` (its Returns, in that column order)."""
    est, tr = refit.estimator, fold.train
    out = {"n_train": int(tr.size), "n_test": int(fold.test.size)}
    if classes is None:     # real targets
        scores = regression_metrics(y_te, refit.pred)
        out.update({k: scores[k] for k in ("rmse", "mae", "r2")})
        out["test_predictions"] = regression_predictions(refit.pred)
        out["train_rmse"] = regression_metrics(y[tr], est.predict(refit.X_train))["rmse"]
    else:
        out.update(classification_metrics(y_te, refit.pred, classes))
        decision = decision_values(est, refit.X_test, classes)  # binary problems only
        out["auc"] = fold_auc(est, refit.X_test, y_te, classes, score=decision)
        out["test_correct"] = fold_correctness(y_te, refit.pred)
        out["test_predictions"] = fold_predictions(est, refit.X_test, refit.pred, classes,
                                                   decision=decision)
        # training accuracy with the kernel the method was given (Loosli Figs. 6-7, bottom)
        out["train_accuracy"] = float(np.mean(est.predict(refit.X_train) == y[tr]))
    out["inner_score"] = search.score
    out.update(_chosen_params(kernel_combo, method_combo))
    out.update({"fit_seconds": refit.fit_seconds, "predict_seconds": refit.predict_seconds,
                "select_seconds": search.seconds})
    support = getattr(est, "support_", None)
    out["n_support"] = int(len(support)) if support is not None else None
    n_iter = getattr(est, "n_iter_", None)
    out["n_iter"] = int(np.sum(n_iter)) if n_iter is not None else None
    spec = refit.spectrum
    out.update({"min_eigenvalue": float(spec.min_eigenvalue), "r_mm": float(spec.r_mm),
                "r_neg": float(spec.r_neg)})
    out.update(_solver_record(est))
    out["n_inner_failures"] = search.n_failures
    error = search.first_error
    out["inner_error"] = (" ".join(f"{type(error).__name__}: {error}".split())
                          if search.n_failures else "")
    out["n_inner_warnings"] = search.n_warnings
    if search.grid_search is not None:
        out["grid_search"] = json.dumps(search.grid_search)
        out["n_grid_points"] = search.n_fits
    trace = getattr(est, "trace_", None)
    if save_trace and trace is not None and hasattr(trace, "to_csv") and len(trace):
        out["trace"] = trace
    return out


def _chosen_params(kernel_combo, method_combo):
    """``best_<p>`` per method parameter, ``best_kernel_<p>`` per kernel parameter, then
    ``best_params``: all of them as a JSON object (kernel ones as ``kernel_<p>``)."""
    out, best = {}, {}
    for k, v in method_combo.items():
        out[f"best_{k}"] = v
        best[k] = v
    for k, v in kernel_combo.items():
        out[f"best_kernel_{k}"] = v
        best[f"kernel_{k}"] = v
    out["best_params"] = json.dumps(best, sort_keys=False)
    return out


def _solver_record(est):
    """``solver_used`` (the fitted ``solver_``, "auto" resolved), ``solver_version``,
    ``solver_status``, ``objective``, ``gap``, ``certificate`` and ``certificate_value``
    of a fitted estimator (its :class:`krein.solvers.Solution` objects)."""
    used = getattr(est, "solver_", None)
    used = used if isinstance(used, str) else est.get_params(deep=False).get("solver")
    out = {"solver_used": used if isinstance(used, str) else ""}
    out["solver_version"] = solver_version(out["solver_used"])
    sols = _solutions(est)
    out["solver_status"] = ";".join(dict.fromkeys(str(s.status) for s in sols))
    out["objective"] = float(sols[0].objective) if len(sols) == 1 else float("nan")
    out["gap"] = float(sols[0].gap) if len(sols) == 1 else float("nan")
    out["certificate"], out["certificate_value"] = certificate_measure(sols)
    return out


def _spec(item, main, what, allowed):
    """Normalize a data set / kernel / method entry: a name or a dict with ``main``."""
    if isinstance(item, str) or item is None:
        return {main: item}
    if not isinstance(item, dict) or main not in item:
        raise ValueError(f"{what}: each entry must be a name or a dict with key {main!r}; got "
                         f"{item!r}")
    bad = sorted(set(item) - set(allowed))
    if bad:
        raise ValueError(f"{what}: unknown key(s) {bad} in {item!r}; accepted: {list(allowed)}")
    return dict(item)


def classification_grid(datasets, methods, kernels=(None,), *, param_grid=None, outer_folds=None,
                        repeats=1, solvers=(None,), inner_folds=3, scoring="accuracy",
                        save_trace=True, random_state=None, order="method", approximation=None,
                        outer_split="kfold", test_size=0.2, validation_fraction=0.2,
                        grid_extension=0, grid_fixed=(), task="classification"):
    """Cells of :func:`classification_cell`: data sets x kernels x methods x solvers x folds.

    Parameters
    ----------
    datasets : list
        Names (:func:`krein.datasets.available_datasets`) or dicts with keys
        ``dataset``, ``n_samples``, ``binary`` and ``data_file`` (a user's file,
        :func:`check_data_file`; ``dataset`` is then its name).
    methods : list
        Registry names or dicts with keys ``method``, ``params`` (fixed
        estimator parameters) and ``grid`` (inner-CV grid, replacing
        ``param_grid`` for this method; ``{}`` for no selection).
    kernels : list
        Names (None: the data set's default) or dicts with keys ``kernel``,
        ``params`` (fixed kernel parameters) and ``grid`` (kernel parameters
        selected by inner CV).
    param_grid : dict, optional
        Inner-CV grid of every method without its own ``grid``; only the keys
        the method's estimator has are kept (``C`` is dropped for RVM).
    outer_folds : int, optional
        Outer folds (``"kfold"``: >= 2) or splits (``"shuffle"``: >= 1);
        every fold is a cell (stored in each cell as ``outer_folds``).
        Default 5; 1 for ``"predefined"`` (its only value).
    repeats : int >= 1
        Repetitions of the outer split (1 for ``"predefined"``).
    solvers : list
        Solvers crossed with the methods that have a ``solver`` parameter;
        other methods get one cell with ``solver=None`` (their own).  A method
        that rejects a solver (e.g. ``lp-svm`` with ``"libsvm"``) records
        error rows.
    inner_folds : int >= 1
        Folds of the inner stratified K-fold CV that selects the parameters of
        ``grid``/``param_grid`` and the kernel ``grid`` on each outer training
        split; ``1``: one stratified validation split of it instead
        (:func:`inner_splits`).
    scoring : str
        Inner-CV score, one of :data:`SCORINGS`.
    save_trace : bool
        Whether each cell returns the refitted estimator's ``trace_`` (when it
        has a non-empty one), written by the runner to ``DIR/traces/KEY.csv``.
    random_state : int, optional
        Seed the outer and inner splits with ``random_state + repeat`` directly
        (:func:`classification_cell`), not with :func:`cell_seed`; stored in
        each cell under the key ``cv_seed``, a storage key hashed into the
        cell's key and kept as it is so that committed results keep validating.
    order : {"method", "fold"}
        Cell order within a data set and kernel: ``"method"`` (method, solver,
        repeat, fold fastest) or ``"fold"`` (repeat, fold, method, solver
        fastest: the methods of one fold run one after the other, sharing the
        fold's computations, as ``krein compare`` does).
    approximation : str, optional
        ``"nystroem:M[:LANDMARKS]"`` (:func:`krein.kernel_data.check_approximation`):
        every cell fits its method on feature vectors with the named kernel and
        this low-rank front end, no ``n x n`` kernel anywhere
        (:func:`classification_cell`); feature data with a row-wise kernel only.
    outer_split : {"kfold", "shuffle", "predefined"}
        The outer scheme (:func:`outer_splits`): ``"kfold"`` stratified
        K-fold (left out of the cells, whose keys stay what they were);
        ``"shuffle"`` ``StratifiedShuffleSplit(n_splits=outer_folds,
        test_size=test_size)`` seeded by the outer seed (Chen et al. 2009:
        20 random 80/20 splits); ``"predefined"`` one cell per method: tuned
        by inner CV on the data's training part, refitted on all of it,
        scored once on its test part (every data set must have one:
        :func:`krein.kernel_data.has_test_part`, or a ``data_file`` with
        ``test_path``).  Stored in the cells when not ``"kfold"``.
    test_size : float in (0, 1), default 0.2
        Test fraction of each ``"shuffle"`` split (stored in its cells only).
    validation_fraction : float in (0, 1), default 0.2
        The validation part's share of the outer training split with
        ``inner_folds = 1`` (stored in those cells only).
    grid_extension : int >= 0, default 0
        0: every grid searched as given (the papers' grids, as published);
        ``N``: the adaptive search of :mod:`krein.experiment.tuning` (feasible
        grids, an end that wins extended by up to ``N`` steps per side; stored
        in the cells only when not 0).
    grid_fixed : sequence of str, default ()
        With ``grid_extension``, parameters searched as given (``kernel_<p>``
        for a kernel parameter).
    task : {"classification", "regression"}, default "classification"
        ``"regression"``: real targets (the methods are regressors), plain
        ``KFold`` outer and inner splits, ``scoring`` must be
        :data:`REGRESSION_SCORING` (stored in the cells as ``problem`` only
        when not ``"classification"``: ``task`` names the cell function in
        the results file).

    Returns
    -------
    list of dict
        One parameter dict of :func:`classification_cell` per cell (the keys
        of :data:`CLASSIFICATION_DEFAULTS`), in the order data set, kernel,
        then as ``order`` says.

    Raises
    ------
    ValueError
        Unknown data set, kernel for the data set's kind, method, estimator
        parameter, bad counts, bad ``outer_split`` or ``test_size``, a
        ``"predefined"`` split of data without a test part or with
        ``outer_folds`` or ``repeats`` other than 1.
    """
    from ..datasets import available_datasets, dataset_kind
    from ..kernel_data import available_kernels, has_test_part

    if outer_folds is None:
        outer_folds = 1 if outer_split == "predefined" else 5
    check_outer_split(outer_split, test_size, outer_folds)
    if outer_split == "predefined" and repeats != 1:
        raise ValueError(f"outer_split='predefined' is one split: repeats must be 1; got "
                         f"{repeats!r}")
    for name, v, lo in (("outer_folds", outer_folds, 2 if outer_split == "kfold" else 1),
                        ("repeats", repeats, 1), ("inner_folds", inner_folds, 1)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    _check_task_scoring(task, scoring)
    validation_fraction = _check_fraction(validation_fraction)
    grid_extension = _check_extension(grid_extension, list(grid_fixed))
    if order not in ("method", "fold"):
        raise ValueError(f"order must be 'method' or 'fold'; got {order!r}")
    if random_state is not None and (isinstance(random_state, bool) or random_state < 0
                                     or not isinstance(random_state, numbers.Integral)):
        raise ValueError(f"random_state must be None or an integer >= 0; got {random_state!r}")
    if param_grid is not None:
        _as_grid(param_grid, "param_grid")
    known = available_datasets()
    ds_specs = [_spec(d, "dataset", "datasets", ("dataset", "n_samples", "binary", "data_file"))
                for d in datasets]
    for d in ds_specs:
        d["data_file"] = check_data_file(d.get("data_file"))
    k_specs = [_spec(k, "kernel", "kernels", ("kernel", "params", "grid")) for k in kernels]
    m_specs = [_spec(m, "method", "methods", ("method", "params", "grid")) for m in methods]
    if not ds_specs or not k_specs or not m_specs:
        raise ValueError("datasets, kernels and methods must each have at least one entry")
    for d in ds_specs:
        if d["data_file"] is None and d["dataset"] not in known:
            raise ValueError(f"datasets: unknown data set {d['dataset']!r}; accepted: "
                             f"{', '.join(known)}")
        test_part = (d["data_file"].get("test_path") is not None if d["data_file"] is not None
                     else has_test_part(d["dataset"], d.get("n_samples")))
        if outer_split == "predefined" and not test_part:
            raise ValueError(f"datasets: {d['dataset']!r} has no predefined test part "
                             "(outer_split='predefined' needs a bundled set with its own split, "
                             "loaded whole, or a data_file with test_path)")
    methods_out = []
    for m in m_specs:
        params = dict(m.get("params") or {})
        if "grid" in m:
            grid = dict(m["grid"] or {})
        else:
            missing, _ = _method_accepts(m["method"], list(param_grid or {}))
            grid = {k: v for k, v in (param_grid or {}).items() if k not in missing}
        _as_grid(grid, f"methods[{m['method']!r}].grid")
        bad, accepted = _method_accepts(m["method"], list(params) + list(grid))
        if bad:
            raise ValueError(f"methods: {m['method']!r} has no parameter(s) {bad}; accepted: "
                             f"{accepted}")
        has_solver = "solver" in accepted
        msolvers = list(solvers) if has_solver else [None]
        methods_out.append((m["method"], params, grid, msolvers))
    cells = []
    # keys that are None are left out of the cells: the cells (their keys and derived
    # seeds) of grids that do not use them stay what they were before these keys existed
    extra = {"cv_seed": None if random_state is None else int(random_state),
             "approximation": _check_approximation(approximation),
             "outer_split": None if outer_split == "kfold" else outer_split,
             "test_size": float(test_size) if outer_split == "shuffle" else None,
             "validation_fraction": validation_fraction if inner_folds == 1 else None,
             "grid_extension": grid_extension or None,
             "grid_fixed": sorted(grid_fixed) if grid_extension and grid_fixed else None,
             "problem": None if task == "classification" else task}
    for d in ds_specs:
        kind = (_FILE_KINDS[d["data_file"]["kind"]] if d["data_file"] is not None
                else dataset_kind(d["dataset"]))
        extra["data_file"] = d["data_file"]
        for k in k_specs:
            if k["kernel"] is not None and k["kernel"] not in available_kernels(kind):
                raise ValueError(f"kernels: {k['kernel']!r} is not a kernel for the {kind} data "
                                 f"set {d['dataset']!r}; accepted: "
                                 f"{', '.join(available_kernels(kind))}")
            if k.get("grid"):
                _as_grid(k["grid"], "kernels.grid")
            block = []
            for mi, (method, mparams, grid, msolvers) in enumerate(methods_out):
                for si, solver in enumerate(msolvers):
                    for r in range(int(repeats)):
                        for f in range(int(outer_folds)):
                            cell = {
                                "dataset": d["dataset"], "n_samples": d.get("n_samples"),
                                "binary": d.get("binary"), "kernel": k["kernel"],
                                "kernel_params": dict(k.get("params") or {}),
                                "kernel_grid": dict(k.get("grid") or {}),
                                "method": method, "method_params": mparams,
                                "param_grid": grid, "solver": solver,
                                "outer_folds": int(outer_folds), "fold": f, "repeat": r,
                                "inner_folds": int(inner_folds), "scoring": scoring,
                                "save_trace": bool(save_trace)}
                            cell.update({x: v for x, v in extra.items() if v is not None})
                            block.append(((r, f, mi, si), cell))
            if order == "fold":
                block.sort(key=lambda item: item[0])
            cells += [cell for _, cell in block]
    return cells
