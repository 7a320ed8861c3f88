"""The registry's entry type and its declarative checks (:mod:`krein.registry` registers).

:class:`MethodEntry` is one registered method, validated field by field against
:data:`ENTRY_CONSTRAINTS` (as scikit-learn's ``_parameter_constraints``) before
:func:`krein.registry.register_method` stores it; :data:`TASKS` and
:data:`REQUIREMENTS` are the values two of its fields accept.  Kept apart from the
registrations so that the registry module holds the methods, not their bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["MethodEntry", "TASKS", "REQUIREMENTS", "ENTRY_CONSTRAINTS"]

#: Kinds of estimator in the registry.
TASKS = ("classifier", "regressor", "outlier")

#: Inputs a method may need besides the kernel matrix, and what provides them.
REQUIREMENTS = {
    "base_kernels": "needs base kernels besides K (a pick-out kernel: --kernel "
                    "pick-out-linear, pick-out-gaussian or pick-out-munoz-ionosphere on "
                    "feature vectors)",
}


@dataclass(frozen=True)
class MethodEntry:
    """One registered method (the arguments of :func:`krein.registry.register_method`, validated).

    ``grid`` is stored as a tuple of ``(parameter, values)`` pairs, ``approximate``
    as a tuple of ``(parameter, value, note)`` triples (or a str / None), ``checks``
    as a tuple of ``(params, xfail)`` pairs and ``scale`` as a tuple of
    ``(parameter, exponent)`` pairs: the entry is immutable.  Read it through
    the functions of :mod:`krein.registry` (:func:`~krein.registry.default_grid`, ...).

    Parameters
    ----------
    factory : callable
        ``factory() -> estimator`` with the method's default parameters.
    description : str
        One line shown by :func:`list_methods` and ``krein methods``.
    task : {"classifier", "regressor", "outlier"}
        Kind of estimator.
    compare : bool
        Whether ``krein compare`` runs it by default.
    grid : tuple of (str, tuple) or None
        The default inner-CV grid (None: ``C`` over :data:`C_GRID` if the
        estimator has one).
    requires : tuple of str
        Inputs besides the kernel matrix, keys of :data:`REQUIREMENTS`.
    approximate : tuple, str or None
        The approximate path (:func:`approximation_defaults`).
    checks : tuple of (dict, dict)
        Estimator-check instances and their expected failures.
    readme : object
        The README method-table row (:func:`readme_table`).
    scale : tuple of (str, int) or None
        How each scale parameter follows the kernel scale (:func:`scale_exponents`).
    name : str
        The registry name.
    """

    factory: Callable
    description: str
    task: str = "classifier"
    compare: bool = True
    grid: tuple | None = None
    requires: tuple = ()
    approximate: object = None
    checks: tuple = ()
    readme: object = None
    scale: tuple | None = None
    name: str = ""


#: Former name of :class:`MethodEntry` (tests build ad-hoc entries with it).
_Entry = MethodEntry

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
    return v is None or isinstance(v, str) or (
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
    "compare": (lambda v: isinstance(v, bool), "a bool"),
    "grid": (lambda v: v is None or _is_grid(v), "None or a dict of non-empty lists of values"),
    "requires": (lambda v: isinstance(v, (tuple, list)) and all(r in REQUIREMENTS for r in v),
                 f"a tuple of keys of REQUIREMENTS {list(REQUIREMENTS)}"),
    "approximate": (_is_approximate, "None, a str (why there is no approximate path) or a "
                                     "dict {parameter: value or (value, note)}"),
    "checks": (lambda v: isinstance(v, (tuple, list)) and all(_is_check(c) for c in v),
               "a tuple of dicts of parameters or (parameters, {check: reason}) pairs"),
    "readme": (_is_readme, "None, the name of an earlier method sharing its row, or a "
                           "tuple of three one-line strings (estimator, method, source)"),
    "scale": (lambda v: v is None or (isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(e, int) for k, e in v.items())),
        "None or a dict {parameter: integer exponent}"),
}
