"""One vocabulary (docs/design.md "Parameter vocabulary"): walked, not listed.

Checked against :mod:`krein._vocabulary`, the one declaration of every shared
parameter name and of each of its value names:

* value sets: every estimator's ``_parameter_constraints`` (``StrOptions``; the
  estimators of :mod:`krein.estimators`, :mod:`krein.spectrum` and
  :mod:`krein.approximation`) and every value test in krein's code, read by
  ``ast`` (``param in CONSTANT``, ``param not in (...)``, ``param == "name"``,
  ``self.param == NAME`` in every function, method and private helper of the
  package: the formulations' and solvers' declared constants are read there):
  a parameter named like a vocabulary entry may only accept or test values
  declared for that name (or named by its catalogue: the kernel catalogue, the
  CVXPY solver names);
* synonyms: no public function or class of a public krein module (the walk of
  ``tests/test_docstrings.py``) has a parameter spelled as a declared synonym
  (``cv``, ``folds``, ``seed``, ``cv_seed``, ``g``, ``n_iter``, ...), nor, in the
  algorithm layers (estimators, formulations, solvers), as an algorithm synonym
  (``method``/``algorithm`` for ``solver``, ``task`` for ``model``);
* one meaning per value, numerically: a correction name or an out-of-sample
  name gives the same matrix in every transformer that accepts it.

Known conflicts in other files are listed item by item in
:data:`KNOWN_VALUE_SETS` and :data:`KNOWN_SYNONYMS` as strict xfails naming the
file: once the file is fixed the item passes, the strict xfail fails, and the
entry is deleted.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import cvxpy as cp
import cvxpy.settings
import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions

import krein
from krein import _vocabulary as V

ALGORITHM_LAYERS = ("krein.estimators", "krein.formulations", "krein.solvers", "krein.spectrum",
                    "krein.approximation")

#: ``{(where, parameter): reason}``: known private value sets, each naming its file.
KNOWN_VALUE_SETS = {}

#: ``{where: reason}``: known synonyms in public signatures, each naming its file.
KNOWN_SYNONYMS = {
    "krein.solvers.indefinite.analytic_center:analytic_center":
        "krein/solvers/indefinite/analytic_center.py: method ('newton' or 'cvxpy') beside a "
        "solver (the CVXPY solver): merging them is an API change left for later",
    "krein.solvers.secular:secular_roots": "krein/solvers/secular.py: method (solver)",
    "krein.solvers.secular:secular_apply": "krein/solvers/secular.py: method (solver)",
}

#: ``{(where, parameter): reason}``: a synonym's spelling for ANOTHER idea (not a violation).
OTHER_IDEAS = {
    ("krein.experiment.comparison_result:ComparisonResult", "folds"):
        "the per-fold results table (a DataFrame)",
    ("krein.experiment.comparison_result:summarize", "folds"):
        "the per-fold results table (a DataFrame)",
    ("krein.experiment.comparison_files:SavedComparison", "folds"):
        "the per-fold results table (a DataFrame)",
    ("krein.estimators.approximate:spectral_features", "g"): "the corrected eigenvalues g(lam)",
    ("krein.solvers.libsvm:libsvm_solution", "n_iter"):
        "the iterations libsvm made (a result, as n_iter_), not a limit",
}


# ---------------------------------------------------------------------------- the walks
def _modules(public_only):
    names = ["krein"]
    for info in pkgutil.walk_packages(krein.__path__, prefix="krein."):
        if not public_only or not any(p.startswith("_") for p in info.name.split(".")):
            names.append(info.name)
    return [importlib.import_module(n) for n in sorted(names)]


def public_callables():
    """``{"module:qualname": object}``: the public functions and classes, where defined."""
    out = {}
    for module in _modules(public_only=True):
        names = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
        for name in names:
            obj = getattr(module, name, None)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and \
                    getattr(obj, "__module__", "").split(".")[0] == "krein":
                out.setdefault(f"{obj.__module__}:{obj.__qualname__}", obj)
    return dict(sorted(out.items()))


def parameter_names(obj):
    """Named parameters of a function or of a class's constructor (no self, *args, **kwargs)."""
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "cls")]


def _estimators():
    mods = [krein.estimators, krein.spectrum, krein.approximation]
    out = {}
    for mod in mods:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                out[f"{obj.__module__}:{obj.__qualname__}"] = obj
    return out


def _constraint_values(est):
    """``{parameter: set of value names}`` of an estimator's ``StrOptions`` constraints."""
    out = {}
    for param, constraints in getattr(est, "_parameter_constraints", {}).items():
        for c in constraints:
            if isinstance(c, StrOptions):
                out.setdefault(param, set()).update(set(c.options) - set(c.deprecated or ()))
    return out


def _str_values(node, namespace):
    """The string values of a constant node, a literal container or a module constant; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        vals = [_str_values(e, namespace) for e in node.elts]
        return set().union(*vals) if vals and all(v is not None for v in vals) else None
    if isinstance(node, ast.Name) and node.id in namespace:
        value = namespace[node.id]
        if isinstance(value, str):
            return {value}
        if isinstance(value, (tuple, list, set, frozenset, dict)) and value and \
                all(isinstance(v, str) for v in value):
            return set(value)
    return None


def _tested_name(node, params):
    """The vocabulary name a comparison's left side stands for: a parameter or ``self.<term>``."""
    if isinstance(node, ast.Name) and node.id in params and node.id in V.VOCABULARY:
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == "self" and node.attr in V.VOCABULARY:
        return node.attr
    return None


def code_value_tests():
    """``{(where, parameter): set of values}`` tested against a vocabulary parameter in the code."""
    out = {}
    for module in _modules(public_only=False):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(module)))
        except (OSError, TypeError):
            continue
        namespace = vars(module)

        def visit(node, qual):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    visit(child, qual + [child.name])
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    args = child.args
                    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
                    where = f"{module.__name__}:{'.'.join(qual + [child.name])}"
                    for sub in ast.walk(child):
                        if not isinstance(sub, ast.Compare) or len(sub.ops) != 1:
                            continue
                        if not isinstance(sub.ops[0], (ast.In, ast.NotIn, ast.Eq, ast.NotEq)):
                            continue
                        name = _tested_name(sub.left, params)
                        values = _str_values(sub.comparators[0], namespace)
                        if name is not None and values is not None:
                            out.setdefault((where, name), set()).update(values)
                    visit(child, qual + [child.name])

        visit(tree, [])
    return out


def value_sets():
    """Every ``(where, parameter) -> values`` of the estimators' constraints and of the code."""
    out = {}
    for where, est in _estimators().items():
        for param, values in _constraint_values(est).items():
            if param in V.VOCABULARY:
                out[(where, param)] = values
    for key, values in code_value_tests().items():
        out.setdefault(key, set()).update(values)
    return dict(sorted(out.items()))


def allowed_values(name):
    """The value names declared for ``name``, with those of its catalogues."""
    term = V.VOCABULARY[name]
    allowed = set(term.values)
    for catalogue in term.catalogue:
        if catalogue == "cvxpy":
            allowed |= {s.upper() for s in cvxpy.settings.SOLVERS} | set(cp.installed_solvers())
            continue
        module, _, attr = catalogue.rpartition(".")
        names = getattr(importlib.import_module(module), attr, None)
        assert names, f"catalogue {catalogue} of {name!r} not found: update krein/_vocabulary.py"
        allowed |= set(names)
    return allowed


def undeclared(name, values):
    """The values of ``values`` that are not declared for ``name`` (sorted)."""
    allowed = allowed_values(name)
    cvxpy_names = "cvxpy" in V.VOCABULARY[name].catalogue
    return sorted(v for v in values if v not in allowed and not (cvxpy_names and v.upper() in allowed))


def synonyms_in(where, obj):
    """``{parameter: declared name}`` of the synonyms in one signature."""
    module = where.split(":")[0]
    table = dict(V.SYNONYMS)
    if module.startswith(ALGORITHM_LAYERS):
        table.update(V.ALGORITHM_SYNONYMS)
    return {p: table[p] for p in parameter_names(obj)
            if p in table and (where, p) not in OTHER_IDEAS}


@pytest.fixture(scope="module")
def callables():
    """:func:`public_callables`, once per module (not at collection)."""
    return public_callables()


@pytest.fixture(scope="module")
def found_value_sets():
    """:func:`value_sets`, once per module (not at collection)."""
    return value_sets()


# ---------------------------------------------------------------------------- the vocabulary
def test_vocabulary_is_declared_once_and_well_formed():
    """Every name and value has a meaning; a synonym is never a declared name, nor ambiguous."""
    assert set(V.VOCABULARY) >= {"kernel", "kernel_params", "C", "class_weight", "rho", "solver",
                                 "solver_options", "correction", "out_of_sample", "approximation",
                                 "tol", "max_iter", "random_state", "verbose", "outer_folds",
                                 "inner_folds", "weights"}
    for name, term in V.VOCABULARY.items():
        assert term.name == name and term.meaning.strip(), name
        assert all(isinstance(v, str) and m.strip() for v, m in term.values.items()), name
        assert V.meaning(name) == term.meaning
    synonyms = [s for t in V.VOCABULARY.values() for s in t.synonyms + t.algorithm_synonyms]
    assert len(synonyms) == len(set(synonyms))
    assert not set(synonyms) & set(V.VOCABULARY)
    assert V.declared("out_of_sample", "munoz", "spectral") == ("munoz", "spectral")
    with pytest.raises(ValueError, match="paper"):
        V.declared("out_of_sample", "munoz", "paper")


def test_module_value_sets_come_from_the_vocabulary():
    """The constants that spell value sets (my modules) are subsets of the declaration."""
    from krein.estimators.nearest_psd import NEAREST_PSD_ROW_MAPS, NEAREST_PSD_SOLVERS
    from krein.solvers.alternating import ALTERNATING_METHODS
    from krein.solvers.bending import BENDING_FUNCTIONS, BENDING_ROW_MAPS
    from krein.spectrum import OUT_OF_SAMPLE, TRANSFORMS

    assert TRANSFORMS == tuple(V.VOCABULARY["correction"].values)
    for name, values in [("out_of_sample", OUT_OF_SAMPLE), ("correction", BENDING_FUNCTIONS),
                         ("out_of_sample", BENDING_ROW_MAPS), ("out_of_sample", NEAREST_PSD_ROW_MAPS),
                         ("solver", NEAREST_PSD_SOLVERS), ("solver", ALTERNATING_METHODS)]:
        assert undeclared(name, values) == [], (name, values)


def test_the_walks_see_the_shared_parameters(callables, found_value_sets):
    """The walks are not empty: they find the known users of each shared name."""
    assert ("krein.spectrum:SpectrumCorrection", "correction") in found_value_sets
    assert ("krein.estimators.bending:Bending", "out_of_sample") in found_value_sets
    assert ("krein.solvers.bending:_check_correction", "correction") in found_value_sets
    assert ("krein.estimators.nearest_psd:NearestPSD._row_map", "out_of_sample") in found_value_sets
    assert "krein.solvers.bending:bending" in callables
    assert "krein.formulations.indefinite:ProxyKernelProblem" in callables
    assert "krein.compare:compare" in callables


# ---------------------------------------------------------------------------- (a) value sets
def test_value_sets_are_declared(found_value_sets):
    """No parameter named like a vocabulary entry accepts or tests a value not declared for it."""
    bad = {f"{where} {param}": undeclared(param, values)
           for (where, param), values in found_value_sets.items()
           if (where, param) not in KNOWN_VALUE_SETS}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"values not declared in krein/_vocabulary.py: {bad}"


@pytest.mark.parametrize("key", [pytest.param(k, id=f"{k[0]}-{k[1]}", marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason=r)) for k, r in KNOWN_VALUE_SETS.items()])
def test_known_value_set(key, found_value_sets):
    """Each known conflict, alone: passes (and the strict xfail fails) once its file is fixed."""
    where, param = key
    if key not in found_value_sets:  # not an AssertionError: fails the strict xfail outright
        raise LookupError(f"{where} no longer tests {param}: delete this entry")
    assert undeclared(param, found_value_sets[key]) == []


# ---------------------------------------------------------------------------- (b) synonyms
def test_no_synonyms(callables):
    """No public signature spells a declared idea by a synonym."""
    bad = {where: synonyms_in(where, obj) for where, obj in callables.items()
           if where not in KNOWN_SYNONYMS}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"synonyms of krein/_vocabulary.py names ({{parameter: name}}): {bad}"


@pytest.mark.parametrize("where", [pytest.param(w, id=w, marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason=r)) for w, r in KNOWN_SYNONYMS.items()])
def test_known_synonym(where, callables):
    """Each known synonym, alone: passes (and the strict xfail fails) once its file is fixed."""
    if where not in callables:  # not an AssertionError: fails the strict xfail outright
        raise LookupError(f"{where} is gone: delete this entry")
    assert synonyms_in(where, callables[where]) == {}


def test_renamed_spellings():
    """The bending solver takes ``correction`` (not ``g``), the alternating projections ``solver``."""
    from krein.solvers import STATUSES, alternating_projections, bending

    assert "correction" in parameter_names(bending) and "g" not in parameter_names(bending)
    assert "solver" in parameter_names(alternating_projections)
    assert "method" not in parameter_names(alternating_projections)
    A = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    with pytest.raises(TypeError, match="method"):  # one name: solver, never method
        alternating_projections(A, 1.0, method="plain", tol=1e-8)
    assert alternating_projections(A, 1.0, solver="plain", tol=1e-8).status in STATUSES


# ---------------------------------------------------------------------------- one meaning per value
@pytest.fixture(scope="module")
def kernel_rows():
    """A 14-point sigmoid kernel (indefinite, no eigenvalue near 0) and 5 new rows."""
    from krein.kernels import sigmoid_kernel

    rng = np.random.default_rng(3)
    X = rng.normal(size=(19, 3))
    K_all = sigmoid_kernel(X, a=0.5, r=-1.0)
    K, rows = K_all[:14, :14], K_all[14:, :14]
    lam = np.linalg.eigvalsh(K)
    assert lam[0] < 0 < lam[-1] and np.min(np.abs(lam)) > 1e-6 * np.max(np.abs(lam))
    return K, rows


def test_a_correction_name_is_one_map(kernel_rows):
    """Every ``correction`` of Bending, with ``W = 1``, is the spectrum correction of that name."""
    from krein import Bending, SpectrumCorrection
    from krein.solvers.bending import BENDING_FUNCTIONS

    K, _ = kernel_rows
    for correction in BENDING_FUNCTIONS:
        bent = Bending(correction=correction).fit_transform(K)
        corrected = SpectrumCorrection(correction=correction).fit_transform(K)
        np.testing.assert_allclose(bent, corrected, atol=1e-10 * np.max(np.abs(corrected)),
                                   err_msg=correction)


@pytest.mark.parametrize("correction", ["clip", "flip"])
def test_spectral_is_one_map(kernel_rows, correction):
    """``out_of_sample="spectral"``: SpectrumCorrection, Bending and (clip) NearestPSD agree."""
    from krein import Bending, NearestPSD, SpectrumCorrection

    K, rows = kernel_rows
    ref = SpectrumCorrection(correction=correction, out_of_sample="spectral").fit(K).transform(rows)
    tol = 1e-10 * np.max(np.abs(ref))
    bent = Bending(correction=correction, out_of_sample="spectral").fit(K).transform(rows)
    np.testing.assert_allclose(bent, ref, atol=tol)
    if correction == "clip":  # diagonal=None: the nearest PSD kernel is the clip kernel
        near = NearestPSD(diagonal=None, out_of_sample="spectral").fit(K).transform(rows)
        np.testing.assert_allclose(near, ref, atol=tol)


def test_munoz_is_one_map(kernel_rows):
    """``out_of_sample="munoz"`` (eq. 3): Bending's clip step and NearestPSD agree (W = 1, I)."""
    from krein import Bending, NearestPSD, SpectrumCorrection

    K, rows = kernel_rows
    bent = Bending(correction="clip", out_of_sample="munoz").fit(K).transform(rows)
    near = NearestPSD(diagonal=None, out_of_sample="munoz").fit(K).transform(rows)
    mds = SpectrumCorrection(correction="mds", out_of_sample="spectral").fit(K).transform(rows)
    tol = 1e-10 * np.max(np.abs(mds))
    np.testing.assert_allclose(bent, mds, atol=tol)
    np.testing.assert_allclose(near, mds, atol=tol)
