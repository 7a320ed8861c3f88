"""Every estimator and transformer constructor is keyword-only.

scikit-learn's convention (``SVC(C=1)``, never ``SVC(1)``): a positional call would
silently bind a value to whatever parameter comes first, and reordering parameters
would change its meaning.  Walks every class krein exports that has ``get_params``.
"""

from __future__ import annotations

import inspect

import pytest

import krein
import krein.approximation
import krein.estimators
import krein.spectrum


def _estimator_classes():
    out = {}
    for module in (krein, krein.estimators, krein.spectrum, krein.approximation):
        for name in dir(module):
            obj = getattr(module, name)
            if inspect.isclass(obj) and hasattr(obj, "get_params") \
                    and obj.__module__.startswith("krein"):
                out[f"{obj.__module__}.{obj.__name__}"] = obj
    return out


CLASSES = _estimator_classes()


def test_the_walk_finds_the_estimators():
    assert len(CLASSES) >= 20
    assert "krein.estimators.svm.ESVC" in CLASSES


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_constructor_is_keyword_only(name):
    params = list(inspect.signature(CLASSES[name].__init__).parameters.values())[1:]
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert not positional, f"{name}: positional parameters {positional}"
    with pytest.raises(TypeError):
        CLASSES[name](1.0)
