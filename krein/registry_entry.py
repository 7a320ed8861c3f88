"""The registry's entry type and its declarative checks (:mod:`krein.registry` registers).

:class:`MethodEntry` is one registered method, validated field by field against
:data:`ENTRY_CONSTRAINTS` (as scikit-learn's ``_parameter_constraints``) and then
against its own estimator (:func:`check_against_estimator`) before
:func:`krein.registry.register_method` stores it.  Every rule a method has to obey is
a declaration of its entry: whether it takes ``probability``, the kind of
certificate its Solutions carry, the instances scikit-learn's estimator checks run,
whether ``krein compare`` runs it, its README row.  A method that lacks one of them
says why, with :class:`Without`.  ``tests/test_registry_rules.py`` walks the
registry and holds every method to its declarations.  Kept apart from the
registrations so that the registry module holds the methods, not their bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .solvers import CERTIFICATE_KINDS

__all__ = ["MethodEntry", "Without", "TASKS", "REQUIREMENTS", "ENTRY_CONSTRAINTS",
           "check_against_estimator"]

#: Kinds of estimator in the registry.
TASKS = ("classifier", "regressor", "outlier")

#: Inputs a method may need besides the kernel matrix, and what provides them.
REQUIREMENTS = {
    "base_kernels": "needs base kernels besides K (a pick-out kernel: --kernel "
                    "pick-out-linear, pick-out-gaussian or pick-out-munoz-ionosphere on "
                    "feature vectors)",
}


@dataclass(frozen=True)
class Without:
    """A declaration that a method lacks something (probabilities, a certificate, checks), and why.

    Parameters
    ----------
    reason : str
        One line saying why the method has none (e.g. "k-NN solves no optimization
        problem").

    Raises
    ------
    ValueError
        If ``reason`` is not a non-empty one-line string.
    """

    reason: str

    def __post_init__(self):
        if not (isinstance(self.reason, str) and self.reason.strip() and "\n" not in self.reason):
            raise ValueError(f"Without: the reason must be a non-empty one-line string; "
                             f"got {self.reason!r}")


@dataclass(frozen=True)
class MethodEntry:
    """One registered method (the arguments of :func:`krein.registry.register_method`, validated).

    ``grid`` is stored as a tuple of ``(parameter, values)`` pairs, ``approximate``
    as a tuple of ``(parameter, value, note)`` triples (or a str / None), ``checks``
    as a tuple of ``(params, xfail)`` pairs (or a :class:`Without`) and ``scale``
    as a tuple of ``(parameter, exponent)`` pairs: the entry is immutable.  Read
    it through the functions of :mod:`krein.registry`
    (:func:`~krein.registry.default_grid`, ...).

    Parameters
    ----------
    factory : callable
        ``factory() -> estimator`` with the method's default parameters.
    description : str
        One line shown by :func:`list_methods` and ``krein methods``.
    task : {"classifier", "regressor", "outlier"}
        Kind of estimator (scikit-learn's estimator type of ``factory()``).
    compare : bool
        Whether ``krein compare`` runs it by default in the main job of its task
        (the sample table of docs/getting_started.rst lists exactly the classifiers).
    grid : tuple of (str, tuple) or None
        The default inner-CV grid (None: ``C`` over :data:`C_GRID` if the
        estimator has one).
    requires : tuple of str
        Inputs besides the kernel matrix, keys of :data:`REQUIREMENTS`.
    approximate : tuple, str or None
        The approximate path (:func:`approximation_defaults`).
    approximate_max_n : tuple of (int, str) or None
        The most training objects at which ``krein compare`` runs the approximate path
        from its default list, and why not above
        (:func:`~krein.registry.approximate_size_limit`).
    checks : tuple of (dict, dict) or Without
        Estimator-check instances and their expected failures, or why it has none.
    readme : tuple of str or str
        The method-table row of ``docs/methods.md`` (:func:`readme_table`), or the name of the
        earlier method whose row it shares.
    scale : tuple of (str, int) or None
        How each scale parameter follows the kernel scale (:func:`scale_exponents`).
    name : str
        The registry name.
    probability : True or Without
        True: the estimator takes ``probability`` (default False; True fits
        Platt's sigmoid, :class:`krein.estimators.base.ProbabilityMixin`).
    certificate : str or Without
        The ``certificate_kind`` of every Solution a default fit leaves in
        ``solutions_`` (or ``solution_``), a key of
        :data:`krein.solvers.CERTIFICATE_KINDS`; or why it leaves none.
    """

    factory: Callable
    description: str
    task: str
    compare: bool
    grid: tuple | None
    requires: tuple
    approximate: object
    approximate_max_n: tuple | None
    checks: object
    readme: object
    scale: tuple | None
    name: str
    probability: object
    certificate: object


def _is_grid(v):
    return isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, (list, tuple))
                                       and len(x) > 0 for k, x in v.items())


def _is_approximate(v):
    """None (no path), a str (why not, appended to :data:`NO_APPROXIMATE_PATH`), or a dict
    ``{parameter: value or (value, note)}``."""
    return v is None or isinstance(v, str) or (isinstance(v, dict) and all(
        isinstance(k, str) and (not isinstance(x, tuple) or (len(x) == 2 and isinstance(x[1], str)))
        for k, x in v.items()))


def _is_check(item):
    if isinstance(item, dict):
        return True
    return (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], dict)
            and isinstance(item[1], dict)
            and all(isinstance(k, str) and isinstance(r, str) and r for k, r in item[1].items()))


def _is_readme(v):
    return isinstance(v, str) or (
        isinstance(v, tuple) and len(v) == 3 and all(isinstance(s, str) and s and "\n" not in s
                                                     for s in v))


#: The declarative checks of :func:`krein.registry.register_method`: field -> (test, what it accepts).
ENTRY_CONSTRAINTS = {
    "name": (lambda v: isinstance(v, str) and v == v.strip().lower() and v != "",
             "a non-empty lower-case string"),
    "factory": (callable, "a callable factory() -> estimator"),
    "description": (lambda v: isinstance(v, str) and v != "" and "\n" not in v,
                    "a one-line string"),
    "task": (lambda v: v in TASKS, f"one of {TASKS}"),
    "compare": (lambda v: isinstance(v, bool), "a bool (given explicitly)"),
    "grid": (lambda v: v is None or _is_grid(v), "None or a dict of non-empty lists of values"),
    "requires": (lambda v: isinstance(v, (tuple, list)) and all(r in REQUIREMENTS for r in v),
                 f"a tuple of keys of REQUIREMENTS {list(REQUIREMENTS)}"),
    "approximate": (_is_approximate, "None, a str (why there is no approximate path) or a "
                                     "dict {parameter: value or (value, note)}"),
    "approximate_max_n": (lambda v: v is None or (
        isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], int)
        and not isinstance(v[0], bool) and v[0] > 0 and isinstance(v[1], str) and v[1] != ""
        and "\n" not in v[1]),
        "None or a pair (positive int, one-line reason)"),
    "checks": (lambda v: isinstance(v, Without) or (
        isinstance(v, (tuple, list)) and len(v) > 0 and all(_is_check(c) for c in v)),
        "a non-empty tuple of dicts of parameters or (parameters, {check: reason}) pairs, "
        "or Without('why scikit-learn's estimator checks run no instance of it')"),
    "readme": (_is_readme, "the name of an earlier method sharing its row, or a tuple of "
                           "three one-line strings (estimator, method, source)"),
    "scale": (lambda v: v is None or (isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(e, int) for k, e in v.items())),
        "None or a dict {parameter: integer exponent}"),
    "probability": (lambda v: v is True or isinstance(v, Without),
                    "True (the estimator takes probability=) or Without('why not')"),
    "certificate": (lambda v: v in CERTIFICATE_KINDS or isinstance(v, Without),
                    f"a certificate kind {sorted(CERTIFICATE_KINDS)} or Without('why none')"),
}


def _estimator_task(est):
    """The :data:`TASKS` value of scikit-learn's estimator type of ``est``, or None."""
    from sklearn.base import is_classifier, is_outlier_detector, is_regressor

    for task, test in zip(TASKS, (is_classifier, is_regressor, is_outlier_detector)):
        if test(est):
            return task
    return None


def check_against_estimator(name, fields, estimator):
    """Check a method's declarations against its estimator (``factory()``).

    Parameters
    ----------
    name : str
        The registry name (for the messages).
    fields : dict
        The arguments of :func:`krein.registry.register_method`, each already
        accepted by :data:`ENTRY_CONSTRAINTS`.
    estimator : estimator
        ``fields["factory"]()``.

    Raises
    ------
    ValueError
        If ``task`` is not scikit-learn's estimator type of the estimator; a
        classifier does not declare ``probability=True`` (every classifier takes
        it: Platt scaling, :class:`krein.estimators.base.ProbabilityMixin`);
        ``probability=True`` and the estimator has no ``probability`` parameter
        defaulting to False, or ``Without`` and it has one; or a parameter of ``grid``, ``scale``,
        ``approximate`` (with ``approximation``) or ``checks`` is not one of the
        estimator's.
    """
    where = f"register_method({name!r})"
    task = _estimator_task(estimator)
    if task != fields["task"]:
        raise ValueError(f"{where}: task={fields['task']!r}, but {type(estimator).__name__} is "
                         f"scikit-learn's {task or 'unknown kind of estimator'}")
    own = estimator.get_params(deep=False)
    if fields["probability"] is True:
        if own.get("probability", None) is not False:
            raise ValueError(f"{where}: probability=True needs an estimator parameter "
                             "probability defaulting to False (ProbabilityMixin)")
    elif "probability" in own:
        raise ValueError(f"{where}: the estimator takes probability; declare probability=True")
    elif fields["task"] == "classifier":
        raise ValueError(f"{where}: every classifier takes probability (Platt scaling: "
                         "krein.estimators.base.ProbabilityMixin); declare probability=True")
    accepted = estimator.get_params(deep=True)
    named = [*(fields["grid"] or {}), *(fields["scale"] or {})]
    if isinstance(fields["approximate"], dict):
        named += ["approximation", *fields["approximate"]]
    if not isinstance(fields["checks"], Without):
        for c in fields["checks"]:
            named += list(c if isinstance(c, dict) else c[0])
    bad = sorted({k for k in named if k not in accepted})
    if bad:
        raise ValueError(f"{where}: the estimator has no parameter(s) {bad}")
