"""Registry of methods by name: one entry per method carries everything about it.

``make_method(name, **params)`` builds a method's estimator and
``list_methods()`` lists them.  A method is ONE call of :func:`register_method`
(plus its estimator, solver and test; docs/layout.md, "Adding a method"): the
entry (:class:`MethodEntry`) carries its estimator factory, description, task,
whether ``krein compare`` runs it, its default inner-CV grid, the inputs it
needs, its approximate path (what an ``--approximation`` run changes,
:func:`approximation_defaults`), how its parameters follow a rescaled kernel,
whether it takes ``probability``, the kind of certificate its Solutions carry,
the instances scikit-learn's estimator checks run
(:func:`estimator_check_instances`) and its row of the method table of
``docs/methods.md`` (:func:`readme_table`).  A method that lacks probabilities, a certificate or
estimator checks declares why (:class:`Without`).  Every field is validated
declaratively when the entry is registered (:data:`ENTRY_CONSTRAINTS`, as
scikit-learn's ``_parameter_constraints``) and against the estimator
(:func:`~krein.registry_entry.check_against_estimator`), so a wrong entry fails at
import, not in a run; ``tests/test_registry_rules.py`` holds every registered
method to its declarations.
"""

from __future__ import annotations

from contextlib import contextmanager

from .registry_entry import (ENTRY_CONSTRAINTS, REQUIREMENTS, TASKS, MethodEntry,  # noqa: F401
                             Without, check_against_estimator)

__all__ = ["make_method", "list_methods", "register_method", "temporary_method",
           "default_grid", "method_requirements", "method_entry", "approximation_defaults",
           "large_data_path", "approximate_size_limit",
           "estimator_check_instances", "readme_table", "scale_exponents", "scaled_defaults",
           "MethodEntry", "Without",
           "TASKS", "C_GRID", "RHO_GRID", "MU_GRID", "K_GRID", "REQUIREMENTS",
           "ENTRY_CONSTRAINTS", "NO_APPROXIMATE_PATH", "APPROXIMATE_SOLVER"]


#: Default inner-CV grid of ``C`` (box bound / slack weight) of every method that has one:
#: three decades around libsvm's default ``C = 1`` (``krein compare`` tunes over it).
C_GRID = (0.1, 1.0, 10.0)

#: Default inner-CV grid of ``rho`` (IndefiniteSVM's penalty on ``||K - K0||_F^2``,
#: Luss & d'Aspremont 2009 eq. 3), crossed with :data:`C_GRID`.
RHO_GRID = (0.1, 1.0, 10.0)

#: Default inner-CV grid of ``mu`` (reduction bound of the class hulls, Haasdonk 2005
#: Prop. 3; ``mu >= 1``: the whole hulls).  A value below ``1 / (size of the smaller
#: class)`` of an inner training split cannot be fitted and drops out of the selection.
MU_GRID = (0.03, 0.1, 0.3, 1.0)

#: Default inner-CV grid of k-NN's ``n_neighbors`` (odd: no tied vote between two classes).
K_GRID = (1, 3, 5, 7)

#: Training objects above which ``krein compare`` leaves the RVM's approximate path out
#: of its default list (:func:`approximate_size_limit`).
RVM_APPROXIMATE_MAX_N = 5000

#: Reason a method is skipped in an approximated run (:func:`approximation_defaults`).
NO_APPROXIMATE_PATH = "no approximate path: needs the n x n kernel"

#: Default solver of an approximate path (ESVM, spectrum corrections): a linear SVM on the
#: features, the solver that scales to 1e5-1e6 points.
APPROXIMATE_SOLVER = "liblinear"


_REGISTRY: dict[str, MethodEntry] = {}


def register_method(name, factory, description, task="classifier", *, compare, probability,
                    certificate, checks, readme, grid=None, requires=(), approximate=None,
                    approximate_max_n=None, scale=None):
    """Add a method to the registry: everything about it, in one entry.

    The declarations without a default (``compare``, ``probability``,
    ``certificate``, ``checks``, ``readme``) are what the tests hold every method
    to (``tests/test_registry_rules.py``); a method that lacks probabilities, a
    certificate or estimator checks says why with :class:`Without`.

    Parameters
    ----------
    name : str
        Registry name (lower case, e.g. "esvm").
    factory : callable
        ``factory() -> estimator`` with default parameters.
    description : str
        One line shown by ``krein.list_methods()`` and ``krein compare --help``.
    task : {"classifier", "regressor", "outlier"}
        Kind of estimator: scikit-learn's estimator type of ``factory()``.
    compare : bool
        Whether ``krein compare`` runs it by default, in the main job of its task
        (``--task classification`` for a classifier, ``regression`` for a regressor,
        ``novelty`` for an outlier detector; methods that accept any symmetric
        kernel: e.g. PerturbSVM needs a PSD kernel and is left out).  The sample table of docs/getting_started.rst lists exactly
        these methods: a method with ``compare=True`` is added to it.
    probability : True or Without
        True: the estimator takes ``probability`` (default False; True fits
        Platt's sigmoid on internal cross-validation and gives ``predict_proba``),
        as every classifier does; ``Without(reason)`` for a regressor or outlier
        detector.
    certificate : str or Without
        The ``certificate_kind`` of every Solution a fit with the default
        parameters leaves in ``solutions_`` (or ``solution_``): a key of
        :data:`krein.solvers.CERTIFICATE_KINDS` (``"residual"`` for libsvm's KKT
        residual, ``"relative_gap"``, ...); ``Without(reason)`` for a method that
        solves no optimization problem (k-NN).
    checks : tuple or Without
        Instances scikit-learn's estimator checks run
        (:func:`estimator_check_instances`): each a dict of parameters set on
        ``factory()``, or a pair ``(parameters, {check name: reason})`` listing
        the checks that instance cannot pass and why.  ``Without(reason)`` when
        no instance runs (e.g. the estimator class is checked through another
        method's instances); an empty tuple is refused.
    readme : tuple or str
        Its row of the method table of ``docs/methods.md`` (:func:`readme_table`):
        ``(estimator, method, source)`` as Markdown, or the name of an earlier
        method whose row it shares.
    grid : dict, optional
        The method's default inner-CV grid, ``{parameter: list of values}``
        (estimator parameters): what ``krein compare`` tunes unless told
        otherwise (:func:`default_grid`).  None: ``{"C": C_GRID}`` when the
        estimator has a ``C``, else ``{}`` (nothing to tune).
    requires : tuple of str
        Inputs the method needs besides the kernel matrix, keys of
        :data:`REQUIREMENTS` (``"base_kernels"``: stacked base kernels);
        ``krein compare`` lists the method as skipped, with the reason, on data
        that do not provide them.
    approximate : None, str or dict
        The approximate path (an ``approximation=`` low-rank front end instead
        of the ``n x n`` kernel): None, no path (:data:`NO_APPROXIMATE_PATH`);
        a str, no path and why (appended to it); a dict ``{parameter: value}``
        (or ``{parameter: (value, note)}``), the parameters an approximated run
        sets, the estimator must have an ``approximation`` parameter
        (:func:`approximation_defaults`).
    approximate_max_n : tuple of (int, str), optional
        ``(n, reason)``: the most training objects at which ``krein compare`` runs the
        approximate path from its default list of methods, and why not above
        (:func:`approximate_size_limit`: a method whose cost grows faster than the
        others' with ``n``).  Above ``n`` the method is skipped with the reason
        unless it is named in ``--methods``.  None: no limit.  Only with an
        approximate path (a dict ``approximate``).
    scale : dict, optional
        How its parameters follow the kernel ``K -> s K`` (``{parameter:
        exponent}``: the value times ``s ** exponent`` makes the same model;
        :func:`scale_exponents`).  None: ``{"C": -1}`` when the estimator has a
        ``C`` (the SVM duals), else ``{}``.

    Raises
    ------
    ValueError
        If the name is taken, a field is not what :data:`ENTRY_CONSTRAINTS`
        accepts, a ``readme`` name is not an earlier method with a row, or a
        declaration does not fit the estimator
        (:func:`~krein.registry_entry.check_against_estimator`: its task, its
        ``probability`` parameter, ``compare`` of a non-classifier, a parameter of
        ``grid``, ``approximate``, ``checks`` or ``scale`` it does not have).
    """
    fields = {"name": name, "factory": factory, "description": description, "task": task,
              "compare": compare, "grid": grid, "requires": requires,
              "approximate": approximate, "approximate_max_n": approximate_max_n,
              "checks": checks, "readme": readme, "scale": scale,
              "probability": probability, "certificate": certificate}
    for key, (ok, accepted) in ENTRY_CONSTRAINTS.items():
        if not ok(fields[key]):
            raise ValueError(f"register_method({name!r}): {key} must be {accepted}; "
                             f"got {fields[key]!r}")
    if approximate_max_n is not None and not isinstance(approximate, dict):
        raise ValueError(f"register_method({name!r}): approximate_max_n needs an approximate "
                         f"path (a dict approximate); got approximate={approximate!r}")
    if name in _REGISTRY:
        raise ValueError(f"method {name!r} is already registered")
    if isinstance(readme, str) and not isinstance(getattr(_REGISTRY.get(readme), "readme", None),
                                                  tuple):
        raise ValueError(f"register_method({name!r}): readme {readme!r} is not an earlier "
                         "method with its own README row")
    check_against_estimator(name, fields, factory())
    _REGISTRY[name] = MethodEntry(
        factory=factory, description=description, task=task, compare=compare,
        grid=None if grid is None else tuple((k, tuple(v)) for k, v in grid.items()),
        requires=tuple(requires),
        approximate=tuple((k, *(v if isinstance(v, tuple) else (v, None)))
                          for k, v in approximate.items())
        if isinstance(approximate, dict) else approximate,
        approximate_max_n=None if approximate_max_n is None else tuple(approximate_max_n),
        checks=checks if isinstance(checks, Without) else tuple(
            (dict(c), {}) if isinstance(c, dict) else (dict(c[0]), dict(c[1])) for c in checks),
        readme=readme, scale=None if scale is None else tuple(scale.items()), name=name,
        probability=probability, certificate=certificate)


@contextmanager
def temporary_method(name, factory, description, **declarations):
    """Register a method for the duration of a ``with`` block, then remove it.

    For examples and tests: the method is registered exactly as by
    :func:`register_method` (every declaration validated) and is gone from the
    registry when the block ends, also on an exception.

    Parameters
    ----------
    name, factory, description : str, callable, str
        As for :func:`register_method`.
    **declarations
        The other arguments of :func:`register_method`.

    Yields
    ------
    MethodEntry
        The registered entry.

    Raises
    ------
    ValueError
        As :func:`register_method`.
    """
    register_method(name, factory, description, **declarations)
    try:
        yield _REGISTRY[name]
    finally:
        _REGISTRY.pop(name, None)


def list_methods(task=None, compare=None):
    """Registered methods: ``{name: description}`` in registration order.

    Parameters
    ----------
    task : {"classifier", "regressor", "outlier"}, optional
        Only methods of this kind.
    compare : bool, optional
        Only methods that ``krein compare`` runs by default (True) or not (False).

    Returns
    -------
    dict[str, str]
        Registry name -> one-line description, in registration order, of the
        methods that pass both filters (all methods when both are None).

    Raises
    ------
    ValueError
        If ``task`` is not None and not one of :data:`TASKS`.
    """
    if task is not None and task not in TASKS:
        raise ValueError(f"task must be one of {TASKS} or None; got {task!r}")
    return {k: v.description for k, v in _REGISTRY.items()
            if (task is None or v.task == task) and (compare is None or v.compare == compare)}


def method_entry(name):
    """The registry entry of a method.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    MethodEntry
        Immutable; its fields are those of :func:`register_method`.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the registered ones).
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown method {name!r}; registered methods: {list(_REGISTRY)}") from None


_entry = method_entry


def default_grid(name, scale=1.0):
    """The default inner-CV grid of a registered method (what ``krein compare`` tunes).

    The grid is placed relative to the scale ``s`` of the training kernel
    (:func:`krein.kernels.kernel_scale`): each value of a parameter with an
    exponent ``e`` in :func:`scale_exponents` is multiplied by ``s ** e`` (``C``
    of an SVM: ``C / s``), so that the grids of ``K`` and ``c K`` select the
    same models (docs/design.md "Scale"); the other parameters (``n_neighbors``,
    ``mu``) are unchanged.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.
    scale : float > 0, default 1.0
        The kernel scale ``s``; ``1.0`` gives the registered values unchanged.

    Returns
    -------
    dict
        ``{parameter: list of values}``: the grid given to
        :func:`register_method`, else ``{"C": list(C_GRID)}`` for an estimator
        with a ``C`` parameter, else ``{}`` (nothing to tune, e.g. the RVM);
        scaled as above.  A fresh dict: changing it changes nothing in the
        registry.

    Raises
    ------
    ValueError
        For an unknown name, or a ``scale`` that is not a positive finite number.
    """
    import math
    import numbers

    if (isinstance(scale, bool) or not isinstance(scale, numbers.Real)
            or not math.isfinite(scale) or scale <= 0):
        raise ValueError(f"default_grid: scale must be a positive finite number; got {scale!r}")
    entry = _entry(name)
    if entry.grid is not None:
        grid = {k: list(v) for k, v in entry.grid}
    elif "C" in entry.factory().get_params(deep=False):
        grid = {"C": list(C_GRID)}
    else:
        return {}
    if scale == 1.0:
        return grid
    exponents = scale_exponents(name)
    return {k: [v * float(scale) ** exponents[k] for v in vals] if exponents.get(k) else vals
            for k, vals in grid.items()}


def scale_exponents(name):
    """How a method's parameters follow the kernel ``K -> s K``.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    dict
        ``{parameter: exponent}``: with every listed parameter times
        ``s ** exponent``, the estimator fitted on ``s K`` makes the model it
        makes on ``K`` (same predictions); the ``scale`` given to
        :func:`register_method`, else ``{"C": -1}`` for an estimator with a
        ``C`` (the SVM duals: ``alpha -> alpha / s``), else ``{}``.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    entry = _entry(name)
    if entry.scale is not None:
        return dict(entry.scale)
    return {"C": -1} if "C" in entry.factory().get_params(deep=False) else {}


def scaled_defaults(name, scale, exclude=()):
    """The registered defaults of a method's scale parameters, placed on a kernel's scale.

    :func:`default_grid` moves the tuned parameters with the kernel scale ``s``;
    the scale parameters that are not tuned keep their registered default,
    which is absolute (``NearestPSD``'s unit ``correction__diagonal`` on a
    classical-scaling kernel of scale 2e4).  This gives them the same
    treatment: each default ``v`` with an exponent ``e`` in
    :func:`scale_exponents` becomes ``v * s ** e``, so that ``K`` and ``c K``
    fit the same models (docs/design.md "Scale").

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.
    scale : float > 0
        The kernel scale ``s`` (:func:`krein.kernels.kernel_scale`).
    exclude : iterable of str, default=()
        Parameters left out (those in the grid or given by the user).

    Returns
    -------
    dict
        ``{parameter: value}`` (nested names such as ``correction__diagonal``
        included) for every parameter with a non-zero exponent, a finite
        non-zero numeric default and not in ``exclude``; empty when
        ``scale == 1``.

    Raises
    ------
    ValueError
        For an unknown name, or a ``scale`` that is not a positive finite number.
    """
    import math
    import numbers

    default_grid(name, scale)  # validates name and scale
    if scale == 1.0:
        return {}
    params = make_method(name).get_params(deep=True)
    out = {}
    for k, e in scale_exponents(name).items():
        v = params.get(k)
        if (not e or k in exclude or isinstance(v, bool) or not isinstance(v, numbers.Real)
                or not math.isfinite(v) or v == 0):
            continue
        out[k] = float(v) * float(scale) ** e
    return out


def method_requirements(name):
    """Inputs a registered method needs besides the kernel matrix.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    tuple of str
        Keys of :data:`REQUIREMENTS` (empty for most methods).

    Raises
    ------
    ValueError
        For an unknown name.
    """
    return _entry(name).requires


def approximation_defaults(name, solver=None):
    """What an approximated run changes in a registered method's parameters, and why.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.
    solver : str, optional
        The solver given to the run (None: the entry's approximate default).

    Returns
    -------
    params : dict
        Estimator parameters to set: the entry's ``approximate`` dict (e.g.
        ``out_of_sample="spectral"`` for a spectrum correction whose raw test
        map needs dual coefficients, and the solver), without ``solver`` when
        one is given.
    notes : list of str
        One line per change.

    Raises
    ------
    ValueError
        :data:`NO_APPROXIMATE_PATH` (with the entry's reason, e.g. ESVM-L's kept
        eigenpairs) for a method without an approximate path; unknown method.
    """
    path = _entry(name).approximate
    if path is None:
        raise ValueError(NO_APPROXIMATE_PATH)
    if isinstance(path, str):
        raise ValueError(f"{NO_APPROXIMATE_PATH} ({path})")
    params, notes = {}, []
    for key, value, note in path:
        if key == "solver" and solver is not None:
            continue
        params[key] = value
        notes.append(note or (f"solver {value} (the approximate path's default)"
                              if key == "solver" else f"{key}={value!r}"))
    return params, notes


def approximate_size_limit(name):
    """The most training objects at which ``krein compare`` runs a method's approximate path by default.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    tuple of (int, str) or None
        ``(n, reason)`` from the entry's ``approximate_max_n``: above ``n`` training
        objects ``krein compare`` skips the method's approximate path with the reason
        unless the method is named in ``--methods``; None: no limit.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    return _entry(name).approximate_max_n


def large_data_path(name):
    """One sentence on a method's path on large data, or why it has none.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.

    Returns
    -------
    str
        ``"approximate path: ..."`` with what an approximated run changes
        (:func:`approximation_defaults`), or ``"no approximate path: ..."`` with
        the entry's reason.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    try:
        _, notes = approximation_defaults(name)
    except ValueError as exc:
        return str(exc)
    limit = approximate_size_limit(name)
    if limit is not None:
        notes = [*notes, f"by default up to {limit[0]} training objects ({limit[1]}; named in "
                         f"--methods it runs at any size)"]
    return "approximate path (landmark columns or nystroem:M)" + (
        f": {'; '.join(notes)}" if notes else "")


def estimator_check_instances():
    """The instances scikit-learn's estimator checks run, from every entry's ``checks``.

    Returns
    -------
    list of (str, estimator, dict)
        ``(name, estimator, {check name: reason})`` in registration order: a
        fresh estimator of the method with the instance's parameters set
        (estimator-valued parameters cloned), and the checks it cannot pass.
        A method whose ``checks`` is a :class:`Without` contributes none.
    """
    from sklearn.base import clone

    out = []
    for name, entry in _REGISTRY.items():
        if isinstance(entry.checks, Without):
            continue
        for params, xfail in entry.checks:
            est = entry.factory()
            est.set_params(**clone(params, safe=False))
            out.append((name, est, dict(xfail)))
    return out


def readme_table():
    """The method table of ``docs/methods.md``, generated from the registry.

    Returns
    -------
    str
        A Markdown table ``| registry name | estimator | method | source |``: one
        row per entry with a ``readme`` row, in registration order, naming
        (in registration order) every method that shares it.
    """
    rows, names = {}, {}
    for name, entry in _REGISTRY.items():
        if isinstance(entry.readme, tuple):
            rows[name], names[name] = entry.readme, [name]
        elif isinstance(entry.readme, str):
            names[entry.readme].append(name)
    lines = ["| registry name | estimator | method | source |", "|---|---|---|---|"]
    for first, (estimator, method, source) in rows.items():
        listed = ", ".join(f"`{n}`" for n in names[first])
        lines.append(f"| {listed} | {estimator} | {method} | {source} |")
    return "\n".join(lines) + "\n"


def make_method(name, **params):
    """Build the estimator registered as ``name`` with parameters set.

    Parameters
    ----------
    name : str
        A name from :func:`list_methods`.
    **params
        Estimator parameters (``C``, ``kernel``, ``kernel_params``, ``solver``...).

    Returns
    -------
    estimator
        An unfitted scikit-learn estimator.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the registered ones) or a
        parameter the estimator does not have.
    """
    est = _entry(name).factory()
    if params:
        est.set_params(**params)
    return est


#: Why scikit-learn's checks cannot pass on some instances (the ``checks`` of the entries).
_ENERGY_AND_N_COMPONENTS = (
    "the check forces n_components=1 while energy=0.9 is set; ESVC rejects both "
    "together by design ('give at most one of n_components and energy')")
_ENERGY_CHECKS = ("check_dont_overwrite_parameters", "check_methods_sample_order_invariance",
                  "check_methods_subset_invariance", "check_fit2d_1sample",
                  "check_fit2d_1feature", "check_fit2d_predict1d")
_TRANSDUCTIVE = (
    "transductive out-of-sample map: decisions depend on the whole test batch by "
    "definition (joint eigendecomposition), so they are not subset invariant")
#: libsvm stops at its tolerance (tol=1e-3): a weighted fit and the fit of the repeated
#: samples end at different approximate points (with tol=1e-10 they agree to 1e-6:
#: tests/test_sample_weight.py); scikit-learn's SVC lists the same check as failing.
_LIBSVM_WEIGHTS = {"check_sample_weight_equivalence_on_dense_data": (
    "libsvm's tol=1e-3 ends the weighted and the repeated problems at different "
    "approximate points; tests/test_sample_weight.py checks them at tol=1e-10")}
#: The LP-SVM's optimal set need not be a point: on the check's data (15 points in 30
#: dimensions, Gaussian kernel) the weighted and the repeated LPs reach the same optimal
#: value to 1e-13 at different optimal points, because an interior-point method ends near
#: the centre of the optimal face and repetition moves that centre.
_LP_WEIGHTS = {"check_sample_weight_equivalence_on_dense_data": (
    "the LP's optimal set is not a point on the check's data: the weighted and the repeated "
    "LPs reach the same optimal value (to 1e-13) at different optimal points (CLARABEL ends "
    "near the centre of the optimal face, which repetition moves); tests/test_sample_weight.py "
    "checks the optimal values, and the decision values where the solution is unique")}
#: DCA is a local method stopped after max_iter iterations in the checks: the weighted and
#: the repeated runs start at different random points and use different DC constants.
_DCA_WEIGHTS = {"check_sample_weight_equivalence_on_dense_data": (
    "DCA stopped at max_iter=50 from a random start drawn in R^n (weighted) or R^N "
    "(repeated), with the DC constant lambda_max of K or of the repeated kernel: the same "
    "objective, different iterates; tests/test_sample_weight.py checks the weights on a "
    "positive definite kernel at tol=1e-16 and the objective on an indefinite one")}
_PAIRWISE_PROBA = (
    "the check fits feature vectors, not a kernel matrix, even to a pairwise (precomputed) "
    "estimator; the feature-vector instances run it")
_SIGMOID = {"a": 0.5, "r": -1.0}
_PRECOMPUTED = {"kernel": "precomputed"}
#: The approximate paths: a linear SVM on the features (ESVM, corrections), KSVM's QP.
_LINEAR = {"solver": APPROXIMATE_SOLVER}
#: The matrix corrections weighted by the support vectors of an MDS fit read the landmarks'
#: labels: an approximated run corrects the landmark block unweighted instead.
_UNWEIGHTED = {"correction__weights": (None, "the landmark block corrected with weights=None "
                                             "(the support-vector weights would read the "
                                             "landmarks' labels, which an approximated run never "
                                             "uses: a landmark may lie in a test fold)"),
               **_LINEAR}
_SPECTRAL = {"out_of_sample": ("spectral", "test rows by out_of_sample='spectral' (the raw test "
                                           "kernel of {} needs the dual coefficients)")}
#: The approximate paths whose linear SVM has many more points than features and slow
#: dual coordinate descent (large C ||phi||^2, collinear features): the exact linear SVM
#: (free intercept) by the interior-point method of krein.solvers.linear_ipm.
_IPM = "ipm"
_IPM_TEXT = ("solver ipm: the linear SVM on {} with the free intercept, by the primal-dual "
             "interior-point method (Ferris & Munson 2002), duality gap <= 1e-6")

#: Why scikit-learn's checks run no instance of a method (``checks=Without(...)``).
_SPECTRUM_SVC_CHECKED = (
    "the estimator class SpectrumSVC runs the checks in the instances of flip and clip; its "
    "{} correction runs them as SpectrumCorrection in tests/test_transformer_checks.py")
_CORRECTED_SVC_CHECKED = (
    "the estimator class CorrectedKernelSVC runs the checks in bending's instance and in "
    "tests/test_corrected.py; its correction {} runs them in tests/test_transformer_checks.py")
_STACKED_CHECKED = (
    "needs stacked base kernels, which scikit-learn's checks do not pass; tests/test_corrected.py "
    "runs the checks on CorrectedKernelSVC(ConformalLinearCombination()) with base_kernels= "
    "computed from the checks' feature vectors")
#: Why a method takes no ``probability`` (``probability=Without(...)``).
_NO_CLASSES = "a regressor: no classes for Platt's sigmoid to calibrate"
_NO_LABELS = "an outlier detector: fitted without labels, no classes to calibrate"
#: Why a method leaves no Solution (``certificate=Without(...)``).
_NEIGHBOURS_VOTE = "a vote of the nearest training points: no optimization problem is solved"
_NEAREST_MEAN = "the nearest class mean: no optimization problem is solved"


#: The LP-SVM's approximate path: the LP on the landmark columns (reduced set), by HiGHS.
_LP_REDUCED = {"solver": ("HIGHS", "solver HIGHS on the LP of the landmark columns (the "
                                   "reduced set); a block of 2e6 entries or more by an "
                                   "interior-point method with crossover (lp_chunking)")}


def _spectral(correction):
    value, note = _SPECTRAL["out_of_sample"]
    return {"out_of_sample": (value, note.format(correction)), **_LINEAR}


def _register_builtin():
    """Register krein's methods, family by family, in the order ``krein compare`` lists them."""
    _register_esvm_and_svm()
    _register_spectrum_corrections()
    _register_lp_svm()
    _register_proxy_kernel()
    _register_ksvm_ch_modsvm_rvm()
    _register_matrix_corrections()
    _register_baselines()
    _register_embedding()
    _register_iksvm_dc()
    _register_rkks()
    _register_trik()
    _register_flip_ridge()
    _register_regression_baselines()
    _register_novelty_baselines()


def _register_esvm_and_svm():
    """The Krein-space SVM ESVM and ESVM-L (Loosli et al. 2013), libsvm on the raw kernel."""
    from .estimators import ESVC, DirectSVC

    register_method("esvm", ESVC, "ESVM: SVM stabilized in a Krein space, full eigendecomposition "
                    "(Loosli et al. 2013, Alg. 1)", compare=True, probability=True,
                    certificate="residual", approximate=_LINEAR,
                    checks=({}, _PRECOMPUTED),
                    readme=("`ESVC()`", "SVM stabilized in a Krein space by eigendecomposition",
                            "Loosli, Ong & Canu 2013, Alg. 1"))
    register_method("esvm-l", lambda: ESVC(energy=0.9),
                    "ESVM-L: ESVM on the eigenpairs carrying 90% of sum|lambda| (Loosli et al. 2013)",
                    compare=True, probability=True, certificate="residual",
                    approximate=_LINEAR,
                    checks=(({}, dict.fromkeys(_ENERGY_CHECKS, _ENERGY_AND_N_COMPONENTS)),),
                    readme=("`ESVC(energy=0.9)`", "ESVM on the eigenpairs carrying 90 % of sum "
                            "&#124;λ&#124;", "Loosli et al. 2013 §4"))
    register_method("svm", DirectSVC, "libsvm C-SVM directly on the indefinite kernel "
                    "(stationary point; Lin & Lin 2003)", compare=True, probability=True,
                    certificate="residual",
                    approximate="libsvm's SMO on the raw indefinite kernel needs the n x n Gram "
                                "matrix, and on low-rank signed features the indefinite problem "
                                "is nonconvex, with no linear-SVM equivalent",
                    checks=(({}, _LIBSVM_WEIGHTS),
                            (_PRECOMPUTED, {"check_classifiers_one_label_sample_weights":
                                            _PAIRWISE_PROBA}),
                            ({"class_weight": "balanced"}, _LIBSVM_WEIGHTS)),
                    readme=("`DirectSVC()`", "libsvm directly on the indefinite kernel "
                            "(stationary point)", "Lin & Lin 2003"))


def _register_spectrum_corrections():
    """SVMs on the flipped, clipped, shifted and squared kernel (Loosli §6.1.1; Muñoz & de Diego 2006)."""
    from .estimators import SpectrumSVC

    # SpectrumSVC's own defaults (out_of_sample="auto") are what the checks run
    register_method("flip", lambda: SpectrumSVC(correction="flip", out_of_sample="raw"),
                    "SVM on the flipped kernel V|lambda|V' ('Abs'), raw test kernel as Loosli Table 2",
                    compare=True, probability=True, certificate="residual",
                    approximate=_LINEAR,
                    checks=({"out_of_sample": "auto"}, {"out_of_sample": "auto", **_PRECOMPUTED}),
                    readme=("`SpectrumSVC(...)`", "SVM on the Abs / Trunc / Shift kernels, raw "
                            "test kernel (as Loosli Table 2)", "Loosli §6.1.1, Muñoz & de Diego 2006"))
    register_method("clip", lambda: SpectrumSVC(correction="clip", out_of_sample="raw"),
                    "SVM on the clipped kernel ('Trunc'/'denoise'), raw test kernel as Loosli Table 2",
                    compare=True, probability=True, certificate="residual",
                    approximate=_spectral("clip"), readme="flip",
                    checks=(({"out_of_sample": "transductive", "kernel": "sigmoid",
                              "kernel_params": _SIGMOID},
                             {"check_methods_subset_invariance": _TRANSDUCTIVE}),))
    register_method("shift", lambda: SpectrumSVC(correction="shift", out_of_sample="raw"),
                    "SVM on the shifted kernel K - lambda_min I ('Shift'), raw test kernel",
                    compare=True, probability=True, certificate="residual",
                    checks=Without(_SPECTRUM_SVC_CHECKED.format("shift")),
                    approximate=_spectral("shift"), readme="flip")
    register_method("clip-mds", lambda: SpectrumSVC(correction="clip", out_of_sample="spectral"),
                    "SVM on the clipped kernel, test rows by Munoz & de Diego eq. (3)",
                    compare=True, probability=True, certificate="residual",
                    checks=Without(_SPECTRUM_SVC_CHECKED.format("clip (spectral map)")),
                    approximate=_LINEAR,
                    readme=("`SpectrumSVC(...)`", "clip / square with the out-of-sample maps of "
                            "Muñoz & de Diego eqs. (3), (7)", "Muñoz & de Diego 2006"))
    register_method("square", lambda: SpectrumSVC(correction="square", out_of_sample="spectral"),
                    "SVM on K^2, test rows k(x,X) K (Munoz & de Diego eq. 7); the same model as "
                    "similarity-linear, which krein compare runs by default in its place",
                    compare=False, probability=True, certificate="residual",
                    checks=Without(_SPECTRUM_SVC_CHECKED.format("square")),
                    approximate={"solver": (_IPM, _IPM_TEXT.format("the squared-spectrum "
                                                                   "features"))},
                    readme="clip-mds", scale={"C": -2})


def _register_lp_svm():
    """The 1-norm LP-SVM on the raw kernel (Mangasarian 1999)."""
    from .estimators import LPSVC

    # (LPSVC(kernel="precomputed") also passes every check; left out for run time: the
    # precomputed route lives in the shared base class, covered by esvm, flip and svm)
    register_method("lp-svm", LPSVC, "1-norm LP-SVM on the raw kernel (Mangasarian 1999), CVXPY",
                    compare=True, probability=True, certificate="relative_gap",
                    approximate=_LP_REDUCED,
                    checks=(({}, _LP_WEIGHTS),), readme=("`LPSVC()`", "1-norm linear-programming SVM (CVXPY)",
                                          "Mangasarian 1999"))


def _register_proxy_kernel():
    """SVM, SVR and one-class SVM with a learned proxy kernel, PerturbSVM (Luss & d'Aspremont 2009)."""
    from .estimators.indefinite import (IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR,
                                        PerturbSVC)

    register_method("indefinite-svm", IndefiniteSVC,
                    "IndefiniteSVM: SVM with a learned PSD proxy kernel, projected gradient "
                    "(Luss & d'Aspremont 2009, eq. 7)",
                    compare=True, probability=True, certificate="relative_gap",
                    grid={"C": list(C_GRID), "rho": list(RHO_GRID)}, scale={"C": -1, "rho": -3},
                    approximate={"solver": ("apg", "accelerated projected gradient on the "
                                                   "low-rank oracle: the same certified gap in "
                                                   "~4x fewer iterations than pg at n = 5000")},
                    checks=({}, {"kernel": "sigmoid", "kernel_params": _SIGMOID, "solver": "apg"},
                            _PRECOMPUTED, {"class_weight": "balanced", "solver": "apg"}),
                    readme=("`IndefiniteSVC()`", "SVM with a learned PSD proxy kernel "
                            "`(K0 + uu'/4ρ)_+`; projected / accelerated gradient, ACCPM or exchange "
                            "method, certified duality gap",
                            "Luss & d'Aspremont 2009, eqs. (4)-(7), Alg. 1-3"))
    register_method("perturb-svm", PerturbSVC,
                    "PerturbSVM: SVM with perturbed support vectors, PSD kernels only "
                    "(Luss & d'Aspremont 2009, eq. 22)", compare=False, probability=True,
                    certificate="relative_gap",
                    grid={"C": list(C_GRID), "rho": list(RHO_GRID)}, scale={"C": -1, "rho": -3},
                    approximate="its default solver is a CVXPY problem (eq. 22) on the dense PSD "
                                "kernel; on a low-rank PSD kernel it is indefinite-svm with "
                                "out_of_sample='raw', which has the approximate path",
                    checks=({},), readme=("`PerturbSVC()`", "SVM with perturbed support vectors, "
                                          "PSD kernels (CVXPY or the same algorithms)",
                                          "Luss & d'Aspremont 2009, eq. (22)"))
    register_method("indefinite-svr", IndefiniteSVR,
                    "Indefinite SVR with a learned proxy kernel (Luss & d'Aspremont 2009, eq. 17)",
                    task="regressor", compare=True, probability=Without(_NO_CLASSES),
                    certificate="relative_gap", scale={"C": -1, "rho": -3}, approximate={},
                    checks=({},),
                    readme=("`IndefiniteSVR()`", "ε-SVR with a learned proxy kernel",
                            "Luss & d'Aspremont 2009, eq. (17)"))
    register_method("indefinite-one-class", IndefiniteOneClassSVM,
                    "Indefinite one-class SVM with a learned proxy kernel "
                    "(Luss & d'Aspremont 2009, eq. 20)", task="outlier", compare=True,
                    probability=Without(_NO_LABELS), certificate="relative_gap",
                    scale={"rho": -1}, approximate={}, checks=({},),
                    readme=("`IndefiniteOneClassSVM()`", "one-class SVM with a learned proxy "
                            "kernel", "Luss & d'Aspremont 2009, eq. (20)"))


def _register_ksvm_ch_modsvm_rvm():
    """KSVM (Loosli et al. 2013), CH-DU (Haasdonk 2005), Mod SVM (Lin & Lin 2003), the RVM (Tipping 2001)."""
    from .estimators import KSVC, RVC, ConvexHullClassifier, ModSVC

    register_method("ksvm", KSVC, "KSVM: Krein-space SVM, active set on the least-squares "
                    "stabilization problem (Loosli et al. 2013, Alg. 2, eq. 26)",
                    compare=True, probability=True, certificate="kkt_residual",
                    approximate={"solver": ("interior-point", "primal-dual interior point on "
                                            "the features' low-rank factor, O(n r^2) per "
                                            "iteration: CLARABEL's problem and tolerances")},
                    checks=({},),
                    readme=("`KSVC()`", "Krein-space SVM: active set (incremental QR) on the "
                            "least-squares stabilization problem (26), exact KKT",
                            "Loosli et al. 2013, Alg. 2"))
    register_method("ch", ConvexHullClassifier,
                    "CH-DU: closest points of the reduced class hulls in pseudo-Euclidean space; "
                    "CVXPY when convex, else multi-start projected gradient (Haasdonk 2005)",
                    compare=True, probability=True, certificate="fw_gap",
                    grid={"mu": list(MU_GRID)}, checks=({"n_starts": 2},),
                    # projected gradient in the embedding of the Nystroem features (K v in n r)
                    approximate={"n_starts": (3, "3 random starts of the projected gradient "
                                                 "(10 on the exact kernel): each iteration costs "
                                                 "O(n r) on the features")},
                    readme=("`ConvexHullClassifier()`", "closest points of the reduced class hulls "
                            "in pseudo-Euclidean space (CH-DU); CVXPY when the kernel makes it "
                            "convex, else libsvm's ν-SVM or multi-start projected gradient, each "
                            "point certified stationary", "Haasdonk 2005, eq. (7), Prop. 3, §7.2"))
    # (the CVXPY default of mod-svm runs in tests/test_modsvm.py)
    register_method("mod-svm", ModSVC, "Mod SVM: kernel only in the separation constraints, "
                    "identity regularizer (Lin & Lin 2003; Luss & d'Aspremont 2009 §5.1), CVXPY",
                    compare=True, probability=True, certificate="relative_gap",
                    scale={"C": -2}, checks=(({"solver": "libsvm"}, _LIBSVM_WEIGHTS),),
                    approximate={"solver": (_IPM, _IPM_TEXT.format("the landmark columns (the "
                                                                   "reduced set)"))},
                    readme=("`ModSVC()`", "kernel only in the separation constraints, identity "
                            "regularizer (CVXPY, any QP solver)",
                            "Lin & Lin 2003 as in Luss & d'Aspremont 2009 §5.1"))
    register_method("rvm", RVC, "RVM: relevance vector classifier, Laplace approximation and "
                    "fast marginal-likelihood updates (Tipping 2001; Tipping & Faul 2003)",
                    compare=True, probability=True, certificate="max_abs_gradient",
                    approximate={},      # the landmarks' kernel columns are the basis functions
                    approximate_max_n=(RVM_APPROXIMATE_MAX_N, "Tipping & Faul's loop makes one "
                                       "pass over the n x m landmark columns per relevance "
                                       "vector added or re-estimated, and the relevance "
                                       "vectors grow in number with n"),
                    checks=({"max_iter": 100},),
                    readme=("`RVC()`", "relevance vector classifier: Laplace approximation, fast "
                            "marginal-likelihood updates, `predict_proba`",
                            "Tipping 2001; Tipping & Faul 2003"))


def _register_matrix_corrections():
    """SVMs on a repaired kernel: bending, nearest PSD, conformal, CLC / AKM (Muñoz & de Diego 2006)."""
    from .estimators import (Bending, ConformalLinearCombination, ConformalTransformation,
                             CorrectedKernelSVC, NearestPSD)
    from .spectrum import SpectrumCorrection

    register_method("bending", lambda: CorrectedKernelSVC(correction=Bending(weights="support-vectors")),
                    "SVM on the bent kernel, weights from the support vectors of an MDS fit, "
                    "test rows by eq. (8) (Munoz & de Diego 2006, Alg. 1)",
                    compare=True, probability=True, certificate="residual",
                    approximate=_UNWEIGHTED,
                    scale={"C": -1, "correction__C": -1},
                    # CorrectedKernelSVC around the plain spectrum correction
                    checks=({"correction": SpectrumCorrection(correction="clip")},),
                    readme=("`CorrectedKernelSVC(Bending(weights=\"support-vectors\"))`",
                            "SVM on the bent kernel (Hadamard-weighted eigenvalue bending), test "
                            "rows by eq. (8)", "Muñoz & de Diego 2006, Alg. 1"))
    # NearestPSD's defaults but the weights (diagonal="scale", out_of_sample="munoz")
    register_method("nearest-psd",
                    lambda: CorrectedKernelSVC(correction=NearestPSD(weights="support-vectors")),
                    "SVM on the nearest PSD matrix with a fixed diagonal (the kernel's scale: "
                    "unit, as Munoz & de Diego's AP on Ionosphere, for the kernel divided by "
                    "its scale), weights from the support vectors of an MDS fit, solved by the "
                    "semismooth Newton method of Qi & Sun 2006, test rows by the paper's own "
                    "rule (the MDS map in the weighted coordinates; the problem of Munoz & de "
                    "Diego 2006, eqs. 9-12; Higham 2002)",
                    compare=True, probability=True, certificate="residual",
                    approximate=_UNWEIGHTED,
                    checks=Without(_CORRECTED_SVC_CHECKED.format("NearestPSD")),
                    scale={"C": -1, "correction__C": -1, "correction__diagonal": 1},
                    readme=("`CorrectedKernelSVC(NearestPSD(weights=\"support-vectors\"))`",
                            "SVM on the nearest PSD matrix with a fixed diagonal (the kernel's "
                            "scale; weights from the support vectors of an MDS fit), semismooth "
                            "Newton, test rows by the paper's rule",
                            "Muñoz & de Diego 2006, eqs. (9)-(12); Qi & Sun 2006"))
    register_method("conformal", lambda: CorrectedKernelSVC(correction=ConformalTransformation()),
                    "SVM on the conformal transformation W A W of the flipped kernel closest to K, "
                    "test rows by eq. (14) (Munoz & de Diego 2006, eqs. 13-14)",
                    compare=True, probability=True, certificate="residual",
                    approximate=_LINEAR,
                    checks=Without(_CORRECTED_SVC_CHECKED.format("ConformalTransformation")),
                    readme=("`CorrectedKernelSVC(ConformalTransformation())`", "SVM on `W A W` "
                            "closest to K (A: the flipped kernel by default), test rows by eq. (14)",
                            "Muñoz & de Diego 2006, eqs. (13)-(14)"))
    register_method("clc", lambda: CorrectedKernelSVC(correction=ConformalLinearCombination()),
                    "SVM on the convex combination of base kernels closest to K (CLC, Munoz & "
                    "de Diego 2006, eqs. 15-16); needs stacked base kernels (pick-out data sets)",
                    compare=True, probability=True, certificate="residual",
                    approximate=_LINEAR,
                    checks=Without(_STACKED_CHECKED),
                    requires=("base_kernels",),
                    readme=("`CorrectedKernelSVC(ConformalLinearCombination())`", "SVM on the "
                            "convex combination of base kernels closest to K (closed form (16) for "
                            "two), or their average; need the base kernels (`--dataset "
                            "munoz-artificial`, `--kernel pick-out-munoz-ionosphere`)",
                            "Muñoz & de Diego 2006, eqs. (15)-(16)"))
    register_method("akm",
                    lambda: CorrectedKernelSVC(correction=ConformalLinearCombination(combination="average")),
                    "SVM on the average of the base kernels (AKM baseline of Munoz & de Diego "
                    "2006); needs stacked base kernels (pick-out data sets)",
                    compare=True, probability=True, certificate="residual",
                    approximate=_LINEAR,
                    checks=Without(_STACKED_CHECKED),
                    requires=("base_kernels",), readme="clc")


#: The approximate similarity space's cap on liblinear's passes (its dual coordinate
#: descent slows where C ||phi||^2 is large, and the similarities to M landmarks have
#: ||phi||^2 of order M).
_SIMILARITY_PASSES = (1000, "max_iter=1000 passes of liblinear (ConvergenceWarning when "
                            "reached)")


def _register_baselines():
    """The similarity-based baselines: k-NN, weighted k-NN, the similarity space (Chen et al.
    2009), the pseudo-Euclidean nearest mean (Pekalska & Duin 2005)."""
    from .estimators import (AffinityKNeighborsClassifier, KernelKNeighborsClassifier,
                             PseudoEuclideanNearestMean, SimilaritySpaceSVC)
    from .estimators.similarity_space import GAMMA_GRID

    register_method("knn", KernelKNeighborsClassifier,
                    "k-NN in the kernel-induced distance d^2 = K_ii + K_jj - 2 K_ij, k tuned "
                    "(the similarity-based baseline of Chen et al. 2009)",
                    compare=True, probability=True, certificate=Without(_NEIGHBOURS_VOTE),
                    grid={"n_neighbors": list(K_GRID)}, scale={},
                    approximate={},      # distances in the signature of the Nystroem features
                    checks=({}, (_PRECOMPUTED, {"check_decision_proba_consistency": _PAIRWISE_PROBA})),
                    readme=("`KernelKNeighborsClassifier()`", "k nearest neighbours in the "
                            "kernel-induced (pseudo-Euclidean) distance, `k` tuned in {1, 3, 5, 7}; "
                            "test rows `k(x, X)` suffice", "Chen, Garcia, Gupta, Rahimi & "
                            "Cazzanti 2009 (baseline)"))
    register_method("weighted-knn", AffinityKNeighborsClassifier,
                    "weighted k-NN: the k nearest in the kernel-induced distance vote with their "
                    "affinity max(K_ij, 0), k tuned (Chen et al. 2009, section 4)",
                    compare=True, probability=True, certificate=Without(_NEIGHBOURS_VOTE),
                    grid={"n_neighbors": list(K_GRID)}, scale={},
                    approximate={},      # affinities k_approx(x, x_i) = psi(x) S psi_i'
                    checks=({}, (_PRECOMPUTED, {"check_decision_proba_consistency": _PAIRWISE_PROBA})),
                    readme=("`AffinityKNeighborsClassifier()`", "weighted k-NN: the `k` nearest "
                            "(kernel-induced distance) vote with affinity weights `max(k(x, x_i), "
                            "0)`, `k` tuned in {1, 3, 5, 7}; test rows suffice",
                            "Chen, Garcia, Gupta, Rahimi & Cazzanti 2009, §4 (baseline)"))
    register_method("similarity-linear", SimilaritySpaceSVC,
                    "linear SVM in the similarity space: the rows of K as feature vectors, test "
                    "rows K(test, train) (Graepel et al. 1999; Pekalska & Duin 2005)",
                    compare=True, probability=True, certificate="residual",
                    grid={"C": list(C_GRID)}, scale={"C": -2},
                    checks=(({}, _LIBSVM_WEIGHTS),
                            (_PRECOMPUTED, {"check_classifiers_one_label_sample_weights":
                                            _PAIRWISE_PROBA})),
                    approximate={"solver": (_IPM, "the prototype form: the similarities to the "
                                            "M landmarks as features; " + _IPM_TEXT.format(
                                                "them"))},
                    readme=("`SimilaritySpaceSVC(feature_kernel=...)`", "linear / RBF SVM on the "
                            "similarity-space features (the rows of K; test rows `k(x, X)`), "
                            "libsvm", "Graepel et al. 1999; Pekalska & Duin 2005; Chen et al. 2009 "
                            "(baseline)"))
    register_method("similarity-rbf", lambda: SimilaritySpaceSVC(feature_kernel="rbf"),
                    "RBF SVM in the similarity space, gamma relative to the features' variance "
                    "(Graepel et al. 1999; Pekalska & Duin 2005)",
                    compare=True, probability=True, certificate="residual",
                    grid={"C": list(C_GRID), "gamma": list(GAMMA_GRID)},
                    scale={"C": 0, "gamma": 0},
                    checks=(({"feature_kernel": "rbf"}, _LIBSVM_WEIGHTS),),
                    approximate={"solver": (APPROXIMATE_SOLVER, "the prototype form: the "
                                            "similarities to the M landmarks as features, their "
                                            "RBF kernel by Nystroem on the same landmarks, "
                                            "solver liblinear"),
                                 "max_iter": _SIMILARITY_PASSES},
                    readme="similarity-linear")
    register_method("pe-nearest-mean", PseudoEuclideanNearestMean,
                    "nearest class mean in the pseudo-Euclidean embedding, indefinite squared "
                    "distances from the test rows (Pekalska & Duin 2005)",
                    compare=True, probability=True, certificate=Without(_NEAREST_MEAN),
                    scale={}, checks=({}, _PRECOMPUTED),
                    approximate={},      # class means of the Nystroem features
                    readme=("`PseudoEuclideanNearestMean()`", "nearest class mean in the "
                            "pseudo-Euclidean embedding (indefinite squared distances; test rows "
                            "suffice), nothing tuned", "Pekalska & Duin 2005 (baseline)"))


def _register_embedding():
    """k-NN in the pseudo-Euclidean embedding (DisTools ``pe_knnc``; Pekalska & Duin 2005)."""
    from .estimators import PseudoEuclideanKNeighbors

    register_method("pe-knn", PseudoEuclideanKNeighbors,
                    "k-NN in the pseudo-Euclidean embedding (DisTools pe_knnc): indefinite squared "
                    "distances of the kept largest-|lambda| components; k and the kept share "
                    "energy (0.9 or all: then the same neighbours as knn) tuned",
                    compare=True, probability=True, certificate=Without(_NEIGHBOURS_VOTE),
                    grid={"n_neighbors": [1, 3, 5], "energy": [0.9, None]}, scale={},
                    approximate={},      # the embedding of the Nystroem approximation
                    checks=({"n_components": 3},
                            (_PRECOMPUTED, {"check_decision_proba_consistency": _PAIRWISE_PROBA})),
                    readme=("`PseudoEuclideanKNeighbors()`", "k-NN in the pseudo-Euclidean "
                            "embedding (`PseudoEuclideanPCA`, centered, the components of largest "
                            "&#124;λ&#124;; indefinite squared distances), `k` in {1, 3, 5} and "
                            "`energy` in {0.9, all} tuned; test rows suffice",
                            "Pekalska & Duin 2005; DisTools `pe_em`, `pe_knnc`"))


def _register_iksvm_dc():
    """IKSVM-DC: DC programming on the primal squared-hinge SVM (Xu, Xue, Chen & Wang 2017)."""
    from .estimators import DCSVC

    register_method("iksvm-dc", DCSVC,
                    "IKSVM-DC: primal squared-hinge SVM on the indefinite kernel, DCA with an "
                    "Armijo step on the split K = rho I - (rho I - K) (Xu et al. 2017, eq. 12); "
                    "C = 1/gamma, C tuned over four decades",
                    compare=True, probability=True, certificate="grad_norm",
                    grid={"C": [0.1, 1.0, 10.0, 100.0]}, scale={"C": -1},
                    approximate={},      # the expansion on the landmarks, (m + 1)-Newton steps
                    # max_iter: DCA on the checks' ill-conditioned PSD kernels (iris' linear
                    # kernel: lambda_max / lambda_2 = 360) moves slowly, and a 10-class check
                    # fits 45 pairs; 300 iterations took a minute per check
                    checks=(({"random_state": 0, "max_iter": 50}, _DCA_WEIGHTS),
                            ({**_PRECOMPUTED, "random_state": 0, "class_weight": "balanced",
                              "max_iter": 20}, {"check_classifiers_one_label_sample_weights":
                                                _PAIRWISE_PROBA})),
                    readme=("`DCSVC()`", "primal squared-hinge SVM in the kernel expansion, DC "
                            "split `ρI - (ρI - K)`, DCA with xu's Armijo step; finite-Newton "
                            "subproblems checked against CVXPY",
                            "Xu, Xue, Chen & Wang 2017 (AAAI), eq. (12); Xue et al. 2020"))


#: Default inner-CV grid of ``radius_squared`` (r^2 = ||f||_H^2, Oglic & Gaertner 2018),
#: relative to the kernel scale s (exponent -1): measured on Sonar's sigmoid kernels, the
#: 5-fold accuracy peaks at r^2 s in [3, 30] and falls steeply above 100 (the sphere forces
#: an interpolating norm); Aural Sonar's similarities choose 0.3-1, CoilYork's ~ 1.
RADIUS_SQUARED_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


def _register_rkks():
    """Least squares over the Hilbert-norm sphere of a Krein space (Oglic & Gaertner 2018)."""
    from .estimators.rkks import KreinLeastSquaresClassifier, KreinLeastSquaresRegressor

    scale = {"radius_squared": -1, "krein_penalty": 1}
    register_method("krein-ls", KreinLeastSquaresClassifier,
                    "Krein least squares: squared loss over the hypersphere ||f||_H = r in the "
                    "Krein space, global optimum by the secular equation, one-vs-one "
                    "(Oglic & Gaertner 2018)",
                    compare=True, probability=True, certificate="kkt_residual",
                    grid={"radius_squared": list(RADIUS_SQUARED_GRID)}, scale=scale,
                    approximate={},      # (P) on the Nystroem features: nothing else changes
                    # (the precomputed instance at r^2 = 1: the checks' kernel X X' is rank 2-10,
                    # on which the sphere at r^2 = 10 forces an overfitting norm)
                    checks=({}, ({**_PRECOMPUTED, "radius_squared": 1.0},
                                 {"check_classifiers_one_label_sample_weights": _PAIRWISE_PROBA}),
                            {"kernel": "sigmoid", "kernel_params": _SIGMOID,
                             "krein_penalty": 0.01}),
                    readme=("`KreinLeastSquaresClassifier()`", "least squares over the "
                            "hypersphere α' &#124;K&#124; α = r² of the associated Hilbert "
                            "space, global optimum by the secular equation (certified, hard "
                            "case), one-vs-one on ±1 targets; Nyström features for large n",
                            "Oglic & Gärtner 2018 (ICML), 2019"))
    register_method("krein-ls-regressor", KreinLeastSquaresRegressor,
                    "Krein least-squares regression over the hypersphere ||f||_H = r, global "
                    "optimum by the secular equation (Oglic & Gaertner 2018)",
                    task="regressor", compare=True, probability=Without(_NO_CLASSES),
                    certificate="kkt_residual",
                    grid={"radius_squared": list(RADIUS_SQUARED_GRID)}, scale=scale,
                    approximate={},      # (P) on the Nystroem features: nothing else changes
                    # the default radius_squared=None is relative to the data (the norm of
                    # kernel ridge with the kernel's scale as ridge): check_regressors_train's
                    # training R^2 is 0.75 under the gaussian kernel, 0.80 under X X'
                    checks=({}, _PRECOMPUTED),
                    readme=("`KreinLeastSquaresRegressor()`", "the same problem for real "
                            "targets, with `validation_gradient` (held-out error's gradient in "
                            "`radius_squared`, `krein_penalty`)", "Oglic & Gärtner 2018 (ICML)"))


#: scikit-learn's checks that set ``n_components = 1`` on any estimator that has it: ESVM-L's
#: parameter, which decomposition="ldl" refuses (a ValueError; the checks run on ESVC's eigh).
_LDL_N_COMPONENTS = {
    check: "the check sets n_components=1 (ESVM-L keeps eigenpairs), which "
           "decomposition='ldl' refuses with a ValueError; ESVC's eigh instances run it"
    for check in ("check_dont_overwrite_parameters", "check_fit2d_1sample",
                  "check_fit2d_1feature", "check_fit2d_predict1d",
                  "check_methods_subset_invariance", "check_methods_sample_order_invariance")}


def _register_trik():
    """TrIK-SVM (ESVC by LDL') and the Krein SVR ESVR (Loosli et al. 2013; Loosli 2019)."""
    from .estimators import ESVC, ESVR

    register_method("trik-svm", lambda: ESVC(decomposition="ldl"),
                    "TrIK-SVM: ESVM with the unpivoted LDL' factorization in place of the "
                    "eigendecomposition (Loosli 2019, arXiv 1902.10569)",
                    compare=True, probability=True, certificate="residual",
                    approximate={"solver": (_IPM, _IPM_TEXT.format("the features of the LDL' "
                                                                   "of the landmark block"))},
                    checks=(({"decomposition": "ldl"}, _LDL_N_COMPONENTS),
                            ({**_PRECOMPUTED, "decomposition": "ldl"}, _LDL_N_COMPONENTS)),
                    readme=("`ESVC(decomposition=\"ldl\")`", "SVM stabilized in a Krein space "
                            "through K = LDL' (no pivoting): SVM on L&#124;D&#124;L', "
                            "c = L^-T sign(D) L' c~", "Loosli 2019 (TrIK-SVM, arXiv 1902.10569)"))
    register_method("esvr", ESVR, "Krein SVR: epsilon-SVR on the flipped kernel (eigh or LDL'), "
                    "coefficients mapped back to the Krein space (Loosli et al. 2013; Loosli 2019)",
                    task="regressor", compare=True, probability=Without(_NO_CLASSES),
                    certificate="residual",
                    # the linear SVR on the Nystroem features, liblinear under solver="auto"
                    approximate={},
                    checks=({}, {"decomposition": "ldl"}, _PRECOMPUTED),
                    readme=("`ESVR()`", "ε-SVR stabilized in a Krein space (`decomposition=` "
                            "`\"eigh\"` or `\"ldl\"`)", "Loosli et al. 2013, Alg. 1; "
                            "Loosli 2019"))


def _register_flip_ridge():
    """Kernel ridge classification on the flipped kernel, one-vs-rest (Loosli et al. 2016, §3.1)."""
    from .estimators.flip_ridge import FlippedKernelRidgeClassifier

    register_method("flip-ridge", FlippedKernelRidgeClassifier,
                    "kernel ridge classification on the flipped kernel |K|, one-vs-rest, "
                    "coefficients mapped back to the Krein space (Loosli et al. 2016)",
                    compare=False, probability=True,
                    certificate=Without("a closed form: one linear solve per class on "
                                        "|K| + diag(1/C), no iterative solver to certify"),
                    # ridge's 1/C is the weight of the norm: it wants smaller C than a hinge
                    grid={"C": [0.001, 0.01, 0.1, 1.0, 10.0]}, scale={"C": -1},
                    approximate={},      # ridge regression on the Nystroem features (r x r)
                    checks=({}, _PRECOMPUTED, {"class_weight": "balanced"}),
                    readme=("`FlippedKernelRidgeClassifier()`", "kernel ridge on the flipped "
                            "kernel, one-vs-rest, Krein coefficients c = V sign(Λ) V' c~",
                            "Loosli, Canu & Ong 2016 §3.1; Saunders et al. 1998"))


#: Default inner-CV grid of the ridge parameter of the kernel ridge baselines (relative to
#: the kernel's scale: ``alpha -> s alpha``).
ALPHA_GRID = (0.01, 0.1, 1.0, 10.0)

#: Default inner-CV grid of ``n_neighbors`` of k-NN regression: a mean of targets wants more
#: neighbours than a vote between classes.
KNN_REGRESSION_GRID = (2, 5, 10, 20)


def _register_regression_baselines():
    """Kernel ridge on the flipped / clipped kernel and kernel k-NN regression: the baselines
    of ``krein compare --task regression`` (Saunders et al. 1998; Chen et al. 2009)."""
    from .estimators.regression import CorrectedKernelRidge, KernelKNeighborsRegressor

    no_solver = Without("a closed form: one linear solve on the corrected kernel plus "
                        "alpha I, no iterative solver to certify")
    exact = ("the regression baselines of krein compare --task regression, which runs on the "
             "exact kernel only")
    register_method("flip-ridge-regressor", CorrectedKernelRidge,
                    "kernel ridge regression on the flipped kernel |K|, coefficients mapped "
                    "back to the Krein space (Saunders et al. 1998; Loosli et al. 2016)",
                    task="regressor", compare=True, probability=Without(_NO_CLASSES),
                    certificate=no_solver, grid={"alpha": list(ALPHA_GRID)},
                    scale={"alpha": 1}, checks=({}, _PRECOMPUTED), approximate=exact,
                    readme=("`CorrectedKernelRidge(correction=\"flip\")`", "kernel ridge "
                            "regression on the flipped (or clipped) kernel, Krein coefficients "
                            "`c = V g(Λ) V' c~`", "Saunders et al. 1998; Chen et al. 2009 §3"))
    register_method("clip-ridge-regressor", lambda: CorrectedKernelRidge(correction="clip"),
                    "kernel ridge regression on the clipped kernel K_+ (Saunders et al. 1998; "
                    "Chen et al. 2009)",
                    task="regressor", compare=True, probability=Without(_NO_CLASSES),
                    certificate=no_solver, grid={"alpha": list(ALPHA_GRID)},
                    scale={"alpha": 1}, checks=({"correction": "clip"},), approximate=exact,
                    readme="flip-ridge-regressor")
    register_method("knn-regressor", KernelKNeighborsRegressor,
                    "k-NN regression in the kernel-induced distance d^2 = K_ii + K_jj - 2 K_ij, "
                    "k tuned (the baseline of Chen et al. 2009 for real targets)",
                    task="regressor", compare=True, probability=Without(_NO_CLASSES),
                    certificate=Without("the mean target of the nearest training points: no "
                                        "optimization problem is solved"),
                    grid={"n_neighbors": list(KNN_REGRESSION_GRID)}, scale={},
                    checks=({}, _PRECOMPUTED), approximate=exact,
                    readme=("`KernelKNeighborsRegressor()`", "mean target of the `k` nearest "
                            "neighbours in the kernel-induced distance, `k` tuned in {2, 5, 10, 20}; test rows "
                            "suffice",
                            "Chen, Garcia, Gupta, Rahimi & Cazzanti 2009 (baseline)"))


def _register_novelty_baselines():
    """One-class SVM on the flipped / clipped kernel and the k-NN distance score: the
    baselines of ``krein compare --task novelty`` (Schoelkopf et al. 2001; Ramaswamy et
    al. 2000)."""
    from .estimators.novelty import CorrectedOneClassSVM, KernelKNeighborsOutlier

    exact = ("the novelty baselines of krein compare --task novelty, which runs on the exact "
             "kernel only")
    register_method("flip-one-class", CorrectedOneClassSVM,
                    "one-class SVM on the flipped kernel |K| (libsvm), coefficients mapped back "
                    "to the Krein space (Schoelkopf et al. 2001; Loosli et al. 2016)",
                    task="outlier", compare=True, probability=Without(_NO_LABELS),
                    certificate=Without("scikit-learn's OneClassSVM keeps no Solution"),
                    grid={}, scale={}, approximate=exact,
                    # scikit-learn's outlier checks give feature rows to a precomputed
                    # instance (as for indefinite-one-class): the exact path is checked
                    checks=({},),
                    readme=("`CorrectedOneClassSVM(correction=\"flip\")`", "one-class SVM "
                            "(libsvm) on the flipped (or clipped) kernel, Krein coefficients "
                            "`c = V g(Λ) V' a`", "Schölkopf et al. 2001; Loosli et al. 2016"))
    register_method("clip-one-class", lambda: CorrectedOneClassSVM(correction="clip"),
                    "one-class SVM on the clipped kernel K_+ (Schoelkopf et al. 2001; Chen et "
                    "al. 2009)", task="outlier", compare=True, probability=Without(_NO_LABELS),
                    certificate=Without("scikit-learn's OneClassSVM keeps no Solution"),
                    grid={}, scale={}, checks=({"correction": "clip"},), approximate=exact,
                    readme="flip-one-class")
    register_method("knn-outlier", KernelKNeighborsOutlier,
                    "k-NN novelty score: minus the mean squared kernel-induced distance to the "
                    "k nearest training points (Ramaswamy et al. 2000; Chen et al. 2009)",
                    task="outlier", compare=True, probability=Without(_NO_LABELS),
                    certificate=Without("a distance to the nearest training points: no "
                                        "optimization problem is solved"),
                    grid={}, scale={}, approximate=exact,
                    # scikit-learn's outlier checks give feature rows to a precomputed
                    # instance (as for indefinite-one-class): the exact path is checked
                    checks=({},),
                    readme=("`KernelKNeighborsOutlier()`", "minus the mean squared "
                            "kernel-induced distance to the `k` nearest training points",
                            "Ramaswamy, Rastogi & Shim 2000 (baseline)"))


_register_builtin()
