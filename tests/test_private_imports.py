"""No module of krein imports another krein module's private names.

A name with a leading underscore is private to its module: a helper shared across
modules is public in the lower layer (with its docstring), or lives where it belongs.
The test walks ``krein/`` with :mod:`ast` and fails on any ``from X import _name``
with ``X`` a krein module (absolute or relative), importing a private submodule
(``from krein.solvers import _threads``) included.  A package's own private submodules
are the one exception: ``from . import _loaders`` inside ``krein/datasets/`` imports a
module of the same package, not a name hidden in another module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "krein"

def _is_private(name):
    return name.startswith("_") and not name.startswith("__")


def _target(path, node):
    """The absolute module name an ``ImportFrom`` node imports from."""
    if not node.level:
        return node.module or ""
    package = list(path.relative_to(ROOT).parent.parts)
    package = package[:len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _is_submodule(module, name):
    """Whether ``module.name`` is a module (a file or a package) of krein."""
    base = ROOT.joinpath(*module.split("."), name)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def private_imports(path, source=None):
    """``(line, module, name)`` of every private krein name ``path`` imports.

    Parameters
    ----------
    path : pathlib.Path
        A Python file under ``krein/`` (its place resolves relative imports).
    source : str, optional
        Its text; default read from ``path``.

    Returns
    -------
    list of tuple
        One per imported private name.
    """
    if source is None:
        source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _target(path, node)
            if module != "krein" and not module.startswith("krein."):
                continue
            own_package = ".".join(path.relative_to(ROOT).parent.parts)
            found += [(node.lineno, module, a.name) for a in node.names
                      if _is_private(a.name)
                      and not (module == own_package and _is_submodule(module, a.name))]
    return found


def _files():
    return sorted(PACKAGE.rglob("*.py"))


def test_no_private_krein_names_across_modules():
    offences = [f"{path.relative_to(ROOT).as_posix()}:{line}: from {module} import {name}"
                for path in _files()
                for line, module, name in private_imports(path)]
    assert not offences, "private krein names imported across modules:\n" + "\n".join(offences)


@pytest.mark.parametrize("source, expected", [
    ("from krein.spectrum import _null_tol\n", [(1, "krein.spectrum", "_null_tol")]),
    ("from ..formulations.hull import check_hull_mu, _project\n",
     [(1, "krein.formulations.hull", "_project")]),
    ("from .. import _threads\n", [(1, "krein", "_threads")]),
    ("from . import _loaders\n", [(1, "krein.solvers", "_loaders")]),
    ("from ..datasets import _loaders\n", [(1, "krein.datasets", "_loaders")]),
    ("from sklearn.base import _fit_context\nfrom .core import Solution, __all__\n", []),
])
def test_private_imports_finds_them(source, expected):
    """The walker resolves relative imports and ignores public, dunder and foreign names."""
    assert private_imports(PACKAGE / "solvers" / "probe.py", source) == expected


def test_a_package_imports_its_own_private_submodules():
    """``from . import _loaders`` inside ``krein/datasets/`` names a module of that package."""
    probe = PACKAGE / "datasets" / "probe.py"
    assert private_imports(probe, "from . import _loaders, _synthetic\n") == []
    assert private_imports(probe, "from ._files import _missing\n") == [
        (1, "krein.datasets._files", "_missing")]
