"""Arrows point down (docs/design.md, Layout): the import graph of krein, read by ``ast``.

The graph has an arrow ``a -> b`` for every import of krein module ``b`` anywhere in
module ``a``: at module level, inside a function, relative or absolute (``from .
import x`` is an import of the submodule ``x``; importing a submodule counts as
importing it, not its package).  Every module sits on one floor of :data:`FLOORS`,
bottom to top:

ground (``_vocabulary``, ``_validation``, ``_io``, ``_threads``, ``_cache``,
``_fitting``, ``kernels``, ``projections``) -> data (``spectrum``, ``geometry``,
``approximation``, ``kernel_data``, ``datasets``, ``combinations``) ->
``formulations`` -> ``solvers`` -> ``estimators`` -> ``registry`` (with the package
``krein`` itself, the public facade that re-exports estimators and the registry)
-> ``experiment`` -> ``compare`` -> ``cli``.

* every module has a floor (a new module is placed in :data:`FLOORS`);
* no arrow points up a floor (a module imports its own floor and below);
* no circle: no strongly connected component of more than one module, also
  within a floor.  Known circles are strict
  xfails (:data:`KNOWN_CIRCLES`), one per circle, naming the files;
* ``krein/projections.py`` and ``krein/_cache.py`` are the ground floor: they import
  nothing from krein;
* a formulation never calls a solver: nothing in ``krein/formulations/`` imports from
  ``krein.solvers`` or ``krein.estimators`` (not even inside a function);
* the solvers never import an estimator;
* ``krein.solvers.solver_capabilities`` lists every installed CVXPY solver, then libsvm;
* every ``docs/...`` path that a module of krein or a test cites exists (the design
  document is ``docs/design.md``); every test file and every ``krein/...`` path named by
  ``tests/README.md`` exists.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cvxpy as cp
import pytest

import krein

ROOT = Path(krein.__file__).parent
REPO = ROOT.parent


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


#: The floors, bottom to top: a module is on the floor of its name, else of its package
#: (``krein.solvers.bending`` on ``solvers``); ``krein`` is the package facade alone.
FLOORS = (
    ("ground", ("krein._vocabulary", "krein._validation", "krein._io", "krein._threads",
                "krein._cache", "krein._fitting", "krein._memory", "krein.kernels", "krein.projections")),
    ("data", ("krein.spectrum", "krein.geometry", "krein.approximation", "krein.kernel_data",
              "krein.kernel_catalogue", "krein.approximation_spec", "krein.datasets",
              "krein.combinations", "krein.representation")),
    ("formulations", ("krein.formulations",)),
    ("solvers", ("krein.solvers",)),
    ("estimators", ("krein.estimators",)),
    ("registry", ("krein.registry", "krein.registry_entry", "krein")),
    ("experiment", ("krein.experiment",)),
    ("compare", ("krein.compare", "krein.comparison_arguments", "krein.diagnosis")),
    ("cli", ("krein.cli", "krein.cli_parser", "krein.cli_format")),
)

#: ``{circle (sorted module names): reason}``: known circles.
KNOWN_CIRCLES = {}


def module_files():
    """``{module name: path}`` of every module of krein (a package is its ``__init__.py``)."""
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ("krein",) + path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def import_graph(files=None):
    """``{module: set of krein modules it imports}``, module-level and function-level imports."""
    files = module_files() if files is None else files
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                    base = f"{base}.{node.module}" if node.module else base
                else:
                    base = node.module or ""
                # ``from pkg import mod`` imports the submodule; ``from mod import name`` the module
                targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in files else base
                            for a in node.names}
        resolved = set()
        for t in targets:
            parts = t.split(".")
            if parts[0] != "krein":
                continue
            while ".".join(parts) not in files:  # ``import krein.x.y`` of a name: its module
                parts = parts[:-1]
            resolved.add(".".join(parts))
        graph[name] = resolved - {name}
    return graph


def floor_of(module):
    """Index in :data:`FLOORS` of a module's floor, or None."""
    names = {m: i for i, (_, members) in enumerate(FLOORS) for m in members}
    parts = module.split(".")
    while len(parts) > 1:  # the package "krein" stands only for itself
        if ".".join(parts) in names:
            return names[".".join(parts)]
        parts = parts[:-1]
    return names.get(module) if module == "krein" else None


def upward_imports(graph):
    """``[(module, imported module)]`` of the arrows that point up a floor."""
    return sorted((a, b) for a, targets in graph.items() for b in targets
                  if floor_of(a) is not None and floor_of(b) is not None
                  and floor_of(b) > floor_of(a))


def circles(graph):
    """Strongly connected components of more than one module (Tarjan), as sorted tuples."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(out)


GRAPH = import_graph()


def test_every_module_has_a_floor():
    missing = sorted(m for m in GRAPH if floor_of(m) is None)
    assert not missing, f"modules without a floor: {missing}; place them in FLOORS (tests/test_layout.py)"


def test_the_graph_sees_every_kind_of_import():
    """Relative, absolute, function-level and ``from package import module`` imports are arrows."""
    assert "krein.spectrum" in GRAPH["krein.solvers.bending"]            # from ..spectrum import
    assert "krein.kernel_data" in GRAPH["krein.experiment.classification"]  # in a function
    assert "krein.solvers.bending" in GRAPH["krein.solvers"]             # from .bending import
    assert "krein._threads" in GRAPH["krein.solvers.secular"]            # from .. import _threads
    assert "krein._vocabulary" in GRAPH["krein.spectrum"]


def test_checks_find_a_planted_upward_import_and_circle():
    """The two checks report an arrow up a floor and a circle on a small planted graph."""
    planted = {"krein.spectrum": {"krein.estimators.svm"}, "krein.estimators.svm": {"krein.spectrum"},
               "krein.kernels": set()}
    assert upward_imports(planted) == [("krein.spectrum", "krein.estimators.svm")]
    assert circles(planted) == [("krein.estimators.svm", "krein.spectrum")]


def test_no_upward_import():
    up = upward_imports(GRAPH)
    assert not up, f"imports up a floor (docs/design.md, Layout; FLOORS): {up}"


def test_no_circle():
    found = [c for c in circles(GRAPH) if c not in KNOWN_CIRCLES]
    assert not found, f"import circles: {found}"


@pytest.mark.parametrize("circle", [pytest.param(c, id=" <-> ".join(c), marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason=r)) for c, r in KNOWN_CIRCLES.items()])
def test_known_circle(circle):
    """Each known circle, alone: passes (and the strict xfail fails) once it is broken."""
    if not all(m in GRAPH for m in circle):  # not an AssertionError: fails the strict xfail
        raise LookupError(f"{circle}: a module is gone; delete this entry")
    assert not any(set(circle) <= set(c) for c in circles(GRAPH)), f"still a circle: {circle}"


def test_vocabulary_imports_nothing_from_krein():
    assert GRAPH["krein._vocabulary"] == set()


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


# ------------------------------------------------------------------ cited paths
#: A repository path cited in text: ``docs/...``, ``krein/...`` or ``tests/...``.
_CITED = re.compile(r"(?<![\w/.])((?:docs|krein|tests)/[\w./-]*[\w/])")


def cited_paths(text, prefix):
    """The paths under ``prefix`` cited in ``text`` (build outputs under ``_build`` left out)."""
    return {p for p in _CITED.findall(text) if p.startswith(prefix) and "/_build" not in p}


def test_cited_paths_are_found():
    text = ("see docs/design.md, `docs/layout.md`; built into docs/_build/html; "
            "not mydocs/x.md; krein/solvers/table.py.")
    assert cited_paths(text, "docs/") == {"docs/design.md", "docs/layout.md"}
    assert cited_paths(text, "krein/") == {"krein/solvers/table.py"}


@pytest.mark.parametrize("top", ["krein", "tests"])
def test_every_cited_docs_path_exists(top):
    cited = {(path.relative_to(REPO).as_posix(), p)
             for path in sorted((REPO / top).rglob("*")) if path.suffix in (".py", ".md")
             for p in cited_paths(path.read_text(encoding="utf-8"), "docs/")}
    assert any(p == "docs/design.md" for _, p in cited)
    missing = sorted((f, p) for f, p in cited if not (REPO / p).exists())
    assert not missing, f"cited docs/ paths that do not exist: {missing}"


def test_tests_readme_names_existing_files():
    text = (REPO / "tests" / "README.md").read_text(encoding="utf-8")
    tests = set(re.findall(r"`(test_\w+\.py)", text))
    assert len(tests) > 50
    modules = cited_paths(text, "krein/")
    missing = sorted([t for t in tests if not (REPO / "tests" / t).is_file()]
                     + [m for m in modules if not (REPO / m).exists()])
    assert not missing, f"tests/README.md names files that do not exist: {missing}"
