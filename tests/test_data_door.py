"""The data door and the modules beside it: ``krein/kernel_data.py``,
``krein/kernel_catalogue.py``, ``krein/approximation_spec.py``,
``krein/datasets/_user_files.py``, ``krein/datasets/_features.py``.

* They sit below the estimators: imported in a fresh interpreter whose ``krein``
  package is bare (its ``__init__``, which loads every estimator, not run), they
  load no module of ``krein.estimators``, ``krein.experiment``, ``krein.cli``,
  ``krein.compare``, ``krein.registry``, ``krein.solvers`` or
  ``krein.formulations``;
* read by ``ast`` (imports inside functions too), none of them imports from those
  layers, directly or through the krein modules it imports, and that import graph
  has no circle;
* every name other modules import from the door that lives in another module is
  there, the very same object as in its home module.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "krein"

#: The door and the modules split off it.
DOOR = ("krein.kernel_data", "krein.kernel_catalogue", "krein.approximation_spec",
        "krein.datasets._user_files", "krein.datasets._features")

#: Layers above the data door.
ABOVE = ("krein.estimators", "krein.experiment", "krein.cli", "krein.compare", "krein.registry",
         "krein.solvers", "krein.formulations")

#: (door, home, names): the names other modules import from the door that live in the
#: home module (``door name=home name`` where the door's name differs).
MOVED = [
    ("krein.kernel_data", "krein.kernel_catalogue",
     ("available_kernels", "default_kernel", "default_kernel_params", "default_kernel_grid",
      "DISSIMILARITY_KERNELS", "PICK_OUT_KERNELS", "PICK_OUT_TEST_RULE", "KERNEL_GRID_FACTORS",
      "SIGMOID_A_TIMES_D", "SIGMOID_R")),
    ("krein.kernel_data", "krein.approximation_spec",
     ("APPROXIMATIONS", "check_approximation", "make_approximation", "approximation_spectrum",
      "_check_approximable=check_approximable")),
    ("krein.kernel_data", "krein.datasets._user_files",
     ("FILE_SYMMETRY_RTOL", "FILE_DIAGONAL_RTOL")),
    ("krein.datasets", "krein.datasets._features", ("read_features",)),
]


def _path(module):
    """The source file of a krein module name, or None when it names no module."""
    parts = module.split(".")[1:]
    base = ROOT.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    path = base.with_suffix(".py")
    return path if path.is_file() else None


def _imports(module):
    """The krein modules ``module`` imports anywhere in its file (``from . import x``: the
    submodule ``x`` when it is one; the root package ``krein`` left out)."""
    path = _path(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("krein.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if not name.startswith("krein."):
                continue
            subs = {f"{name}.{a.name}" for a in node.names if _path(f"{name}.{a.name}")}
            out |= subs if len(subs) == len(node.names) else subs | {name}
    return out


def _graph(starts):
    """The krein import graph reachable from ``starts``, not entering the layers above the
    door: module -> imported modules."""
    graph, todo = {}, list(starts)
    while todo:
        module = todo.pop()
        if module in graph:
            continue
        assert _path(module) is not None, f"{module} does not exist"
        graph[module] = _imports(module)
        todo.extend(m for m in graph[module] if not m.startswith(ABOVE))
    return graph


def _circle(graph):
    """One import circle of ``graph`` as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_door_imports_nothing_above_it_and_no_circle():
    graph = _graph(DOOR)
    upward = {m: sorted(n for n in imported if n.startswith(ABOVE))
              for m, imported in graph.items()}
    upward = {m: v for m, v in upward.items() if v}
    assert not upward, f"imports from a layer above the data door: {upward}"
    assert _circle(graph) is None, f"import circle: {' -> '.join(_circle(graph))}"
    # the door uses the three modules beside it, none of them uses the door
    assert {"krein.kernel_catalogue", "krein.approximation_spec",
            "krein.datasets._user_files"} <= graph["krein.kernel_data"]
    assert all("krein.kernel_data" not in graph[m] for m in DOOR[1:])


def test_door_loads_without_the_estimators():
    """A bare ``krein`` package (its ``__init__`` would load the estimators): importing the
    door and the modules beside it loads nothing above them."""
    code = f"""
import json, sys, types
pkg = types.ModuleType("krein")
pkg.__path__ = [{str(ROOT)!r}]
sys.modules["krein"] = pkg
import importlib
for name in {list(DOOR)!r}:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.startswith("krein"))))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(DOOR) <= set(loaded)
    above = [m for m in loaded if m.startswith(ABOVE)]
    assert not above, f"importing the data door loaded {above}"


@pytest.mark.parametrize("door, home, names", MOVED, ids=[m[1] for m in MOVED])
def test_moved_names_are_the_same_objects_in_the_door(door, home, names):
    door, home = importlib.import_module(door), importlib.import_module(home)
    for name in names:
        old, _, new = name.partition("=")
        assert getattr(door, old) is getattr(home, new or old), (door.__name__, home.__name__, name)
