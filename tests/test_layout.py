"""Arrows point down (DESIGN.md, Layout): the import graph of the lower floors, read by ``ast``.

* ``krein/projections.py`` and ``krein/_cache.py`` are the ground floor: they import
  nothing from krein;
* a formulation never calls a solver: nothing in ``krein/formulations/`` imports from
  ``krein.solvers`` or ``krein.estimators`` (not even inside a function);
* the solvers never import an estimator;
* ``krein.solvers.solver_capabilities`` lists every installed CVXPY solver, then libsvm.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cvxpy as cp
import pytest

import krein

ROOT = Path(krein.__file__).parent


def _krein_imports(path):
    """Absolute names of the krein modules imported anywhere in ``path``."""
    package = ".".join(("krein",) + path.relative_to(ROOT).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(("krein",) + path.relative_to(ROOT).parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "krein"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] == "krein":
                out.add(name)
    return out


def test_projections_import_nothing_from_krein():
    assert _krein_imports(ROOT / "projections.py") == set()


def test_shared_computations_store_imports_nothing_from_krein():
    assert _krein_imports(ROOT / "_cache.py") == set()


@pytest.mark.parametrize("path", sorted((ROOT / "formulations").glob("*.py")), ids=lambda p: p.name)
def test_formulations_never_import_solvers_or_estimators(path):
    bad = {m for m in _krein_imports(path)
           if m.startswith(("krein.solvers", "krein.estimators"))}
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sorted((ROOT / "solvers").glob("*.py")), ids=lambda p: p.name)
def test_solvers_never_import_estimators(path):
    bad = {m for m in _krein_imports(path) if m.startswith("krein.estimators")}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_solver_capabilities_rows():
    rows = krein.solvers.solver_capabilities()
    assert [r["name"] for r in rows] == list(cp.installed_solvers()) + ["libsvm"]
    keys = {"name", "LP", "QP", "SOCP", "SDP", "EXP", "MIP", "notes"}
    assert all(set(r) == keys for r in rows)
    if "CLARABEL" in cp.installed_solvers():
        clarabel = next(r for r in rows if r["name"] == "CLARABEL")
        assert clarabel["SOCP"] == "yes" and clarabel["SDP"] == "yes" and clarabel["EXP"] == "yes"
