"""Numpydoc validation of the docstrings of krein's public API.

Models: scikit-learn's ``sklearn/tests/test_docstrings.py`` and skglm's
``test_docstring_parameters.py``.  The public API is walked, not listed:

* every module of ``krein`` with no path component starting with ``_``;
* in each, its public functions and classes: the names in ``__all__`` when the
  module has one, else the names not starting with ``_``; an object counts
  where it is defined (``obj.__module__ == module``) or, when it is defined in a
  private module (``krein.datasets._loaders``, ...), where a public module
  exports it;
* the public methods and properties of every public class that are defined in
  krein (in the class itself or in a private krein base class).  Methods
  inherited from scikit-learn (``get_params``, ``score``, ...) or from the
  standard library are skipped: their docstrings are not ours.

Each object is checked by :func:`numpydoc.validate.validate` against the error
codes of :data:`CHECKED_ERRORS` and by a small AST check: a function or method
whose own body contains a ``raise`` statement must have a ``Raises`` section.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")
from numpydoc.docscrape import NumpyDocString  # noqa: E402

import krein  # noqa: E402

#: numpydoc error codes that fail the test, with what they encode.
CHECKED_ERRORS = {
    "GL08": "the object has a docstring",
    "SS01": "a one-line summary exists",
    "SS02": "the summary starts with a capital letter (or a number)",
    "SS03": "the summary ends with a period",
    "SS04": "the summary has no leading whitespace",
    "PR01": "every parameter of the signature is documented",
    "PR02": "no documented parameter is unknown to the signature",
    "PR03": "parameters are documented in the order of the signature",
    "PR04": "every parameter has a type (and shape for arrays)",
    "PR06": "parameter types use the short names (int, bool, str)",
    "PR07": "every parameter has a description",
    "PR10": "the ' : ' between a parameter name and its type is spaced",
    "RT01": "a function or method that returns something has a Returns section",
    "RT03": "every returned value has a description",
}

#: numpydoc error codes deliberately NOT checked, with the reason.
UNCHECKED_ERRORS = {
    "GL01": "krein's style opens the summary on the line of the quotes (PEP 257)",
    "GL02": "same as GL01 for the closing quotes",
    "GL06": "custom sections (e.g. 'Kernel', 'Multiclass' of the estimators) are allowed for now",
    "GL07": "section order is not enforced (several docstrings put Notes before Raises)",
    "SS05": "'Returns ...'/'Computes ...' summaries are kept; the infinitive is style only",
    "SS06": "summaries of two lines are allowed when a single line would exceed 99 columns",
    "ES01": "an extended summary is not required for simple helpers",
    "PR08": "descriptions may start with a lowercase word or a symbol (``K``, ``(n, n)``)",
    "PR09": "descriptions may end with a code literal or a formula",
    "RT02": "a named return ('K : ndarray') is as good as a bare type",
    "RT04": "see PR08",
    "RT05": "see PR09",
    "SA01": "a See Also section is not required",
    "EX01": "an Examples section is not required (the tests and experiments are the examples)",
}

#: Parameters that need no documentation, with the reason (numpydoc already
#: ignores ``self`` and ``cls``).  ``*args``/``**kwargs`` are NOT excluded: they
#: are documented as ``*args``/``**kwargs`` with what is passed on where.
EXCLUDED_PARAMETERS: dict[str, str] = {}

#: Objects excluded from the walk, with the reason.
EXCLUDED_OBJECTS = {
    # none so far
}



# ---------------------------------------------------------------------------
# walking the public API
# ---------------------------------------------------------------------------

def _is_private(name):
    return any(part.startswith("_") for part in name.split("."))


def public_modules():
    """Names of the public modules of krein, sorted."""
    names = ["krein"]
    for info in pkgutil.walk_packages(krein.__path__, prefix="krein."):
        if not _is_private(info.name):
            names.append(info.name)
    return sorted(names)


def _exported_names(module):
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name in vars(module) if not name.startswith("_")]


def _is_krein(obj):
    return getattr(obj, "__module__", "").split(".")[0] == "krein"


def public_objects():
    """``{qualified name: object}`` of the public functions and classes of krein."""
    homes = {}  # id(obj) -> (qualified name, object)
    for modname in public_modules():
        module = importlib.import_module(modname)
        for name in _exported_names(module):
            obj = getattr(module, name, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not _is_krein(obj):
                continue
            if obj.__module__ == modname:
                homes[id(obj)] = (f"{modname}.{name}", obj)  # where it is defined
            elif _is_private(obj.__module__):
                # defined in a private module: documented where a public module exports it
                homes.setdefault(id(obj), (f"{modname}.{name}", obj))
            # else: a re-export of an object validated in its public home module
    return {name: obj for name, obj in homes.values() if name not in EXCLUDED_OBJECTS}


def _member_kind(value):
    if isinstance(value, (staticmethod, classmethod)):
        return "method"
    if isinstance(value, property):
        return "property"
    if inspect.isfunction(value):
        return "method"
    return None


def public_members(objects):
    """``{qualified name: function or property}`` of the public methods of public classes."""
    public_classes = {id(obj) for obj in objects.values() if inspect.isclass(obj)}
    members = {}
    for qualname, cls in objects.items():
        if not inspect.isclass(cls):
            continue
        for name in sorted(dir(cls)):
            if name.startswith("_") and name != "__call__":
                continue
            owner = next((k for k in cls.__mro__ if name in vars(k)), None)
            if owner is None or not _is_krein(owner):
                continue  # inherited from scikit-learn or the standard library
            if owner is not cls and id(owner) in public_classes:
                continue  # validated on the public krein class that defines it
            value = vars(owner)[name]
            kind = _member_kind(value)
            if kind is None:
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            members[f"{qualname}.{name}"] = value
    return members


def _all_api():
    objects = public_objects()
    api = dict(objects)
    api.update(public_members(objects))
    return api


API = _all_api()


# ---------------------------------------------------------------------------
# the checks
# ---------------------------------------------------------------------------

def _function_of(obj):
    """The function whose body the AST check reads (None for a class)."""
    if isinstance(obj, property):
        return obj.fget
    if inspect.isfunction(obj):
        return inspect.unwrap(obj)
    return None


class _OwnRaises(ast.NodeVisitor):
    """Collect the ``raise X`` statements of a function body, not of nested definitions."""

    def __init__(self):
        self.raises = []
        self.depth = 0

    def _nested(self, node):
        self.depth += 1
        if self.depth == 1:
            self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _nested

    def visit_Raise(self, node):
        # a bare ``raise`` re-raises the exception being handled: not a new error of this API
        if node.exc is not None:
            self.raises.append(node)
        self.generic_visit(node)


def raise_statements(obj):
    """``raise X`` statements directly in the body of a function, method or property."""
    func = _function_of(obj)
    if func is None:
        return []
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return []
    tree = ast.parse(source)
    visitor = _OwnRaises()
    visitor.visit(tree)  # the outermost def is depth 1, its nested defs are skipped
    return visitor.raises


def docstring_errors(obj_or_name):
    """List of ``"CODE: message"`` for the checked errors of one object's docstring.

    Parameters
    ----------
    obj_or_name : str or object
        The qualified name (``"krein.kernels.gaussian_kernel"``) of a public
        object, as numpydoc imports it, or the object itself.

    Returns
    -------
    list of str
        The numpydoc errors of :data:`CHECKED_ERRORS` and ``"RS01: ..."`` when the
        body raises and the docstring has no Raises section; empty when valid.
    """
    if isinstance(obj_or_name, str):
        result = numpydoc_validate.validate(obj_or_name)
        obj = numpydoc_validate.Validator._load_obj(obj_or_name)
    else:
        obj = obj_or_name
        result = numpydoc_validate.validate(numpydoc_validate.get_doc_object(obj))
    errors = []
    for code, message in result["errors"]:
        if code not in CHECKED_ERRORS:
            continue
        if code in ("PR01", "PR02") and any(p in message for p in EXCLUDED_PARAMETERS):
            continue
        errors.append(f"{code}: {message}")
    raises = raise_statements(obj)
    if raises and inspect.getdoc(obj):
        if not NumpyDocString(inspect.getdoc(obj))["Raises"]:
            errors.append(f"RS01: the body raises (line {raises[0].lineno} of the definition) "
                          "but the docstring has no Raises section")
    return errors


# ---------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(API))
def test_docstring(name):
    errors = docstring_errors(name)
    assert not errors, f"{name}:\n  " + "\n  ".join(errors)


def test_api_walk_finds_the_public_api():
    # the walk reaches the estimators, the re-exports of private modules and methods
    assert any(name.endswith(".ESVC") for name in API)
    assert any(name.endswith(".fit") for name in API)  # methods defined in krein
    assert any(name.endswith(".certificate") for name in API)
    assert "krein.datasets.load" in API  # defined in the private krein.datasets._loaders
    assert "krein.kernels.gaussian_kernel" in API
    assert not any(name.endswith(".get_params") for name in API)  # scikit-learn's
    assert len(API) > 200
