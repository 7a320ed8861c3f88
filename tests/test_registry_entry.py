"""A method is one registry entry: krein/registry.py, krein/registry_entry.py.

* :func:`krein.registry.register_method` validates every field declaratively
  (:data:`krein.registry.ENTRY_CONSTRAINTS`) and every declaration against its
  estimator (:func:`krein.registry_entry.check_against_estimator`): its task,
  its ``probability`` parameter, the parameters
  an entry names; ``checks=()`` without a reason is refused;
* :func:`krein.registry.temporary_method` registers a method for a ``with``
  block and removes it, also on an exception;
* the approximate path of every method is its entry's (what
  ``classification.approximation_defaults`` hard-coded per estimator class), and
  exists exactly for the estimators with an ``approximation`` parameter;
* the parameters' scale exponents and the estimator-check instances come from
  the entries;
* experiment/grid.py and experiment/classification.py do not import each other.

Every registered method is held to its declarations in ``tests/test_registry_rules.py``
(README table included).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from sklearn.neighbors import KNeighborsClassifier

from krein import registry
from krein.estimators import ESVC, ESVR, DirectSVC
from krein.registry import (NO_APPROXIMATE_PATH, Without, approximation_defaults, list_methods,
                            make_method, method_entry, readme_table, register_method,
                            scale_exponents, temporary_method)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def scratch(monkeypatch):
    """An empty copy of the registry: entries registered here vanish after the test."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    return registry._REGISTRY


#: The declarations register_method requires, for a classifier that passes them all.
DECLARED = {"compare": False, "probability": True, "certificate": "residual",
            "checks": ({},), "readme": ("`E`", "e", "s")}

BAD_FIELDS = [
    ({"name": "Bad Name"}, "name"),
    ({"factory": 3}, "factory"),
    ({"description": "two\nlines"}, "description"),
    ({"task": "ranker"}, "task"),
    ({"compare": "yes"}, "compare"),
    ({"grid": {"C": []}}, "grid"),
    ({"requires": ("gpu",)}, "requires"),
    ({"approximate": {"solver": ("x",)}}, "approximate"),
    ({"approximate": {}, "approximate_max_n": (0, "why")}, "approximate_max_n"),
    ({"approximate": {}, "approximate_max_n": (100, "")}, "approximate_max_n"),
    ({"approximate": {}, "approximate_max_n": 100}, "approximate_max_n"),
    ({"checks": (({"C": 1.0}, {"check_x": ""}),)}, "checks"),
    ({"checks": ()}, "checks"),                       # no instance and no reason
    ({"readme": ("only", "two")}, "readme"),
    ({"readme": None}, "readme"),
    ({"scale": {"C": -0.5}}, "scale"),
    ({"probability": False}, "probability"),
    ({"certificate": "happiness"}, "certificate"),
    ({"certificate": None}, "certificate"),
]


@pytest.mark.parametrize("bad, field", BAD_FIELDS,
                         ids=[f"{f}={b[f]!r}" for b, f in BAD_FIELDS])
def test_register_method_validates_every_field(scratch, bad, field):
    args = {"name": "m", "factory": DirectSVC, "description": "a method", **DECLARED, **bad}
    with pytest.raises(ValueError, match=rf"register_method\(.*\): {field} must be"):
        register_method(**args)
    assert not scratch


@pytest.mark.parametrize("missing", sorted(DECLARED))
def test_every_declaration_is_required(scratch, missing):
    args = {k: v for k, v in DECLARED.items() if k != missing}
    with pytest.raises(TypeError, match=missing):
        register_method("m", DirectSVC, "a method", **args)
    register_method("m", DirectSVC, "a method", **DECLARED)
    assert list(scratch) == ["m"]


def test_without_needs_a_reason():
    for reason in ("", "   ", "two\nlines", None):
        with pytest.raises(ValueError, match="reason"):
            Without(reason)
    assert Without("why").reason == "why"


def test_declarations_are_checked_against_the_estimator(scratch):
    bad = [
        # the task is scikit-learn's estimator type
        ({"task": "regressor", "probability": Without("r")}, "task='regressor'"),
        (dict(factory=ESVR, probability=Without("r")), "task='classifier'"),
        # every classifier takes probability; a regressor declares why not
        ({"probability": Without("no")}, "the estimator takes probability"),
        (dict(factory=KNeighborsClassifier, probability=Without("no")),
         "every classifier takes probability"),
        (dict(factory=KNeighborsClassifier), "probability=True needs"),
        (dict(factory=ESVR, task="regressor"), "probability=True needs"),
    ]
    for kw, message in bad:
        args = {"factory": DirectSVC, **DECLARED, **kw}
        with pytest.raises(ValueError, match=re.escape(message)):
            register_method("m", description="a method", **args)
    assert not scratch
    # compare=True puts a regressor in krein compare --task regression's main job
    register_method("r", ESVR, "a regressor", task="regressor", compare=True,
                    probability=Without("a regressor"), certificate="residual",
                    checks=Without("none here"), readme=("`R`", "r", "s"))
    entry = method_entry("r")
    assert entry.probability == Without("a regressor") and entry.checks == Without("none here")
    assert "r" in registry.list_methods(task="regressor", compare=True)
    assert registry.estimator_check_instances() == []


def test_register_method_checks_the_parameters_it_names(scratch):
    for kw in ({"grid": {"nope": [1]}}, {"scale": {"nope": 1}}, {"checks": ({"nope": 1},)},
               {"approximate": {"solver": "liblinear"}}):       # DirectSVC: no approximation
        with pytest.raises(ValueError, match="has no parameter"):
            register_method("m", DirectSVC, "a method", **{**DECLARED, **kw})
    with pytest.raises(ValueError, match="readme 'other' is not an earlier method"):
        register_method("m", DirectSVC, "a method", **{**DECLARED, "readme": "other"})
    register_method("m", ESVC, "a method", grid={"C": [1]}, approximate={"solver": "liblinear"},
                    **{**DECLARED, "checks": ({"C": 2.0}, ({}, {"check_x": "why"}))},
                    scale={"C": -1})
    with pytest.raises(ValueError, match="already registered"):
        register_method("m", ESVC, "a method", **DECLARED)
    register_method("m2", ESVC, "shares m's row", **{**DECLARED, "readme": "m"})
    assert readme_table().splitlines()[2] == "| `m`, `m2` | `E` | e | s |"
    assert [(n, e.C, x) for n, e, x in registry.estimator_check_instances()] == \
        [("m", 2.0, {}), ("m", 1.0, {"check_x": "why"}), ("m2", 1.0, {})]


def test_temporary_method_is_registered_inside_the_block_only():
    before = list(list_methods())
    with temporary_method("tmp-esvm", ESVC, "a method", **DECLARED) as entry:
        assert entry is method_entry("tmp-esvm") and list(list_methods())[-1] == "tmp-esvm"
        assert isinstance(make_method("tmp-esvm"), ESVC)
    assert list(list_methods()) == before
    with pytest.raises(RuntimeError, match="inside"):
        with temporary_method("tmp-esvm", ESVC, "a method", **DECLARED):
            raise RuntimeError("inside")
    assert list(list_methods()) == before
    with pytest.raises(ValueError, match="checks must be"):      # validated as any entry
        with temporary_method("tmp-esvm", ESVC, "a method", **{**DECLARED, "checks": ()}):
            pass
    assert list(list_methods()) == before


def test_approximate_paths_live_in_the_entries():
    assert approximation_defaults("esvm") == (
        {"solver": "liblinear"}, ["solver liblinear (the approximate path's default)"])
    params, notes = approximation_defaults("clip")
    assert params == {"out_of_sample": "spectral", "solver": "liblinear"}
    assert notes[0] == ("test rows by out_of_sample='spectral' (the raw test kernel of clip "
                        "needs the dual coefficients)")
    assert approximation_defaults("flip", "libsvm") == ({}, [])   # a given solver is kept
    assert approximation_defaults("ksvm")[0] == {"solver": "interior-point"}
    with pytest.raises(ValueError, match=re.escape(NO_APPROXIMATE_PATH + " (libsvm's SMO")):
        approximation_defaults("svm")
    for name in list_methods():
        path = method_entry(name).approximate
        has_path = path is not None and not isinstance(path, str)   # a str: why there is none
        accepts = "approximation" in make_method(name).get_params(deep=False)
        assert accepts or not has_path, name
        if not has_path:
            with pytest.raises(ValueError, match=re.escape(NO_APPROXIMATE_PATH)):
                approximation_defaults(name)


def test_scale_exponents_come_from_the_entries():
    assert scale_exponents("esvm") == {"C": -1}                  # the SVM duals (default)
    assert scale_exponents("square") == {"C": -2}
    assert scale_exponents("indefinite-svm") == {"C": -1, "rho": -3}
    assert scale_exponents("rvm") == {} and scale_exponents("knn") == {}
    for name in list_methods():
        params = make_method(name).get_params(deep=True)
        assert set(scale_exponents(name)) <= set(params), name


def test_every_check_instance_is_a_registered_method_with_reasons():
    names = [n for n, _, _ in registry.estimator_check_instances()]
    assert set(names) <= set(list_methods())
    assert {"esvm", "svm", "indefinite-svr", "indefinite-one-class", "knn"} <= set(names)
    for _, est, xfail in registry.estimator_check_instances():
        assert all(k.startswith("check_") and v for k, v in xfail.items())


def _imports(path):
    """Modules of krein/experiment a file imports (``from .x import``), at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}


def test_grid_and_classification_do_not_import_each_other():
    exp = REPO / "krein" / "experiment"
    grid, classification = _imports(exp / "grid.py"), _imports(exp / "classification.py")
    assert not ("classification" in grid and "grid" in classification)
    assert "grid" not in classification
    from krein.experiment import grid as grid_module
    from krein.experiment import seeds

    assert grid_module.cell_seed is seeds.cell_seed


def test_a_size_limit_needs_an_approximate_path(scratch):
    with pytest.raises(ValueError, match="approximate_max_n needs an approximate path"):
        register_method("m", DirectSVC, "a method", **DECLARED,
                        approximate_max_n=(100, "why"))
    assert not scratch
