"""The Examples sections of the public estimators' docstrings run and print what they say.

Every public estimator (a scikit-learn estimator exported by ``krein`` or
``krein.estimators``, bases that are not meant to be fitted left out) has an Examples
section with at least one doctest, and :mod:`doctest` runs it: the API reference shows
code that works with the installed versions. Each example is small (tens of points).
"""

from __future__ import annotations

import doctest
import inspect
import re

import pytest
from sklearn.base import BaseEstimator

import krein
from krein import estimators

#: Bases to derive estimators from, not estimators to fit (their docstrings say how).
BASES = {"KernelClassifierBase", "KernelMixin"}


def _public_estimators():
    found = {}
    for module in (krein, estimators):
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator) and name not in BASES:
                found.setdefault(name, obj)
    return found


ESTIMATORS = _public_estimators()


def test_the_public_estimators_are_found():
    assert {"ESVC", "IndefiniteSVC", "SpectrumCorrection", "KernelKNeighborsClassifier"} \
        <= set(ESTIMATORS)
    assert len(ESTIMATORS) >= 25


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_docstring_example_runs(name):
    cls = ESTIMATORS[name]
    doc = inspect.getdoc(cls)
    assert re.search(r"\n *Examples\n *--------\n", doc), f"{name} has no Examples section"
    finder = doctest.DocTestFinder(recurse=False)
    # run in the namespace of the defining module, as pytest --doctest-modules does
    tests = [t for t in finder.find(cls, name, module=inspect.getmodule(cls)) if t.examples]
    assert tests, f"{name}'s Examples section has no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_kernel_parameters_are_described_on_the_estimators_page(name):
    """A reader of an estimator's page learns there what ``kernel`` and ``kernel_params``
    take (not only a pointer to a base class)."""
    import warnings

    from numpydoc.docscrape import ClassDoc

    cls = ESTIMATORS[name]
    if "kernel" not in inspect.signature(cls).parameters:
        pytest.skip(f"{name} takes no kernel")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # sections numpydoc does not know
        params = {p.name: " ".join(p.desc) for p in ClassDoc(cls, config={})["Parameters"]}
    kernel = params.get("kernel", "")
    assert "precomputed" in kernel and not re.match(r"(See|As) ", kernel), (name, kernel)
    if "kernel_params" in inspect.signature(cls).parameters:
        assert params.get("kernel_params"), name
