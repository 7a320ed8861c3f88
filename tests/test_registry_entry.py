"""A method is one registry entry (issue 25, step 4): krein/registry.py.

* README.md's method table is the registry's (:func:`krein.registry.readme_table`):
  same rows, same order, same text, so neither can drift;
* :func:`krein.registry.register_method` validates every field declaratively
  (:data:`krein.registry.ENTRY_CONSTRAINTS`) and the parameters an entry names
  against its estimator;
* the approximate path of every method is its entry's (what
  ``classification.approximation_defaults`` hard-coded per estimator class), and
  exists exactly for the estimators with an ``approximation`` parameter;
* the parameters' scale exponents and the estimator-check instances come from
  the entries;
* experiment/grid.py and experiment/classification.py do not import each other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import krein
from krein import registry
from krein.estimators import ESVC, DirectSVC
from krein.registry import (NO_APPROXIMATE_PATH, approximation_defaults, list_methods,
                            make_method, method_entry, readme_table, register_method,
                            scale_exponents)

REPO = Path(__file__).resolve().parents[1]


def _readme_method_table():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^\| registry name \|.*?\n(?=\s*\n)", text, flags=re.S | re.M)
    assert m, "README.md has no method table"
    return m.group(0)


def test_readme_method_table_is_the_registry():
    assert _readme_method_table() == readme_table()
    listed = re.findall(r"`([a-z0-9-]+)`", "\n".join(
        line.split("|")[1] for line in readme_table().splitlines()[2:]))
    assert listed == list(list_methods())          # every method, in registration order


@pytest.fixture
def scratch(monkeypatch):
    """An empty copy of the registry: entries registered here vanish after the test."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    return registry._REGISTRY


BAD_FIELDS = [
    ({"name": "Bad Name"}, "name"),
    ({"factory": 3}, "factory"),
    ({"description": "two\nlines"}, "description"),
    ({"task": "ranker"}, "task"),
    ({"compare": "yes"}, "compare"),
    ({"grid": {"C": []}}, "grid"),
    ({"requires": ("gpu",)}, "requires"),
    ({"approximate": {"solver": ("x",)}}, "approximate"),
    ({"checks": (({"C": 1.0}, {"check_x": ""}),)}, "checks"),
    ({"readme": ("only", "two")}, "readme"),
    ({"scale": {"C": -0.5}}, "scale"),
]


@pytest.mark.parametrize("bad, field", BAD_FIELDS, ids=[f for _, f in BAD_FIELDS])
def test_register_method_validates_every_field(scratch, bad, field):
    args = {"name": "m", "factory": DirectSVC, "description": "a method", **bad}
    with pytest.raises(ValueError, match=rf"register_method\(.*\): {field} must be"):
        register_method(**args)
    assert not scratch


def test_register_method_checks_the_parameters_it_names(scratch):
    for kw in ({"grid": {"nope": [1]}}, {"scale": {"nope": 1}}, {"checks": ({"nope": 1},)},
               {"approximate": {"solver": "liblinear"}}):       # DirectSVC: no approximation
        with pytest.raises(ValueError, match="has no parameter"):
            register_method("m", DirectSVC, "a method", **kw)
    with pytest.raises(ValueError, match="readme 'other' is not an earlier method"):
        register_method("m", DirectSVC, "a method", readme="other")
    register_method("m", ESVC, "a method", grid={"C": [1]}, approximate={"solver": "liblinear"},
                    checks=({"C": 2.0}, ({}, {"check_x": "why"})), readme=("`E`", "e", "s"),
                    scale={"C": -1})
    with pytest.raises(ValueError, match="already registered"):
        register_method("m", ESVC, "a method")
    register_method("m2", ESVC, "shares m's row", readme="m")
    assert readme_table().splitlines()[2] == "| `m`, `m2` | `E` | e | s |"
    assert [(n, e.C, x) for n, e, x in registry.estimator_check_instances()] == \
        [("m", 2.0, {}), ("m", 1.0, {"check_x": "why"})]


def test_approximate_paths_live_in_the_entries():
    assert approximation_defaults("esvm") == (
        {"solver": "liblinear"}, ["solver liblinear (the approximate path's default)"])
    params, notes = approximation_defaults("clip")
    assert params == {"out_of_sample": "spectral", "solver": "liblinear"}
    assert notes[0] == ("test rows by out_of_sample='spectral' (the raw test kernel of clip "
                        "needs the dual coefficients)")
    assert approximation_defaults("flip", "libsvm") == ({}, [])   # a given solver is kept
    assert approximation_defaults("ksvm")[0] == {"solver": "CLARABEL"}
    with pytest.raises(ValueError, match=re.escape(NO_APPROXIMATE_PATH + " (energy=0.9")):
        approximation_defaults("esvm-l")
    for name in list_methods():
        has_path = method_entry(name).approximate is not None
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
