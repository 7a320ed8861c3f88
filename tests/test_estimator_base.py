"""The estimator base: one fit wrapper, the multiclass strategies, one place for class weights.

* every estimator of the registry (and the transformers inside them) and every public
  estimator and transformer of krein fits through :func:`krein._fitting.fit_wrapper`
  (its marker), and ``sklearn.base._fit_context`` is imported by that module only;
* the wrapper's contract on toy estimators: a failing body, a rejected parameter and a
  failing refit leave no fitted attribute; ``_check_params`` runs before the body;
* the same contract on every registry estimator (a stale fitted attribute is gone after
  a fit with a rejected parameter; a classifier given one class keeps nothing);
* ``_multiclass = "ovr"`` against scikit-learn's ``OneVsRestClassifier`` around the
  binary estimator (equal decision values), its per-sample bounds, and RVC on it
  without a ``_fit`` or ``decision_function`` of its own; every registry classifier
  declares its strategy (the k-NN and nearest-mean classifiers "native").
"""

from __future__ import annotations

import inspect
import pathlib
import re
from numbers import Integral

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.multiclass import OneVsRestClassifier
from sklearn.utils._param_validation import InvalidParameterError, Interval

import krein
import krein.estimators
from krein._fitting import fit_wrapper, uses_fit_wrapper
from krein.estimators import RVC, DirectSVC, KernelClassifierBase
from krein.estimators.base import MULTICLASS_STRATEGIES
from krein.kernels import gaussian_kernel
from krein.registry import list_methods, make_method

KREIN = pathlib.Path(krein.__file__).parent


def _public_classes():
    seen = {}
    for module in (krein, krein.estimators):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                seen[obj.__name__] = obj
    return sorted(seen.values(), key=lambda c: c.__name__)


def _registry_estimators():
    """``(name, estimator)`` of every registry method and of every krein estimator nested
    in one (the corrections of CorrectedKernelSVC)."""
    out = []
    for name in list_methods():
        est = make_method(name)
        out.append((name, est))
        for key, value in est.get_params(deep=True).items():
            if isinstance(value, BaseEstimator) and type(value).__module__.startswith("krein"):
                out.append((f"{name}:{key}", value))
    return out


REGISTRY = _registry_estimators()
PUBLIC = _public_classes()


# ---------------------------------------------------------------------------- one wrapper
@pytest.mark.parametrize("cls", PUBLIC, ids=lambda c: c.__name__)
def test_every_public_class_fits_through_the_wrapper(cls):
    assert uses_fit_wrapper(cls.fit), f"{cls.__name__}.fit is not decorated with fit_wrapper"
    assert cls.fit.__doc__ and "Parameters" in cls.fit.__doc__   # numpydoc kept (wraps)
    own = [c for c in cls.__mro__ if "fit_transform" in vars(c)
           and c.__module__.startswith("krein")]
    if own:
        # a fit_transform of krein either is wrapped itself or delegates to the wrapped fit
        method = vars(own[0])["fit_transform"]
        assert uses_fit_wrapper(method) or "self.fit(" in inspect.getsource(method), \
            f"{cls.__name__}.fit_transform fits outside fit_wrapper"


@pytest.mark.parametrize("name,est", REGISTRY, ids=[n for n, _ in REGISTRY])
def test_every_registry_estimator_fits_through_the_wrapper(name, est):
    assert uses_fit_wrapper(type(est).fit), f"{name}: {type(est).__name__}.fit is not wrapped"


def test_fit_context_is_imported_in_one_module():
    pattern = re.compile(r"\b_fit_context\b")
    importers = sorted(str(p.relative_to(KREIN)) for p in KREIN.rglob("*.py")
                       if re.search(r"import[^\n]*" + pattern.pattern,
                                    p.read_text(encoding="utf-8")))
    assert importers == ["_fitting.py"]


def test_marker_detects_an_unwrapped_fit():
    class Plain(BaseEstimator):
        def fit(self, X, y=None):
            return self

    assert not uses_fit_wrapper(Plain.fit)
    assert uses_fit_wrapper(fit_wrapper(Plain.fit))
    assert uses_fit_wrapper(fit_wrapper(prefer_skip_nested_validation=False)(Plain.fit))


# ---------------------------------------------------------------------------- the contract
class _Toy(BaseEstimator):
    """A toy estimator: sets fitted attributes, then raises when ``fail``."""

    _parameter_constraints = {"fail": ["boolean"],
                              "level": [Interval(Integral, 0, None, closed="left")]}

    def __init__(self, fail=False, level=0):
        self.fail = fail
        self.level = level

    def _check_params(self):
        self.checked_ = True          # removed again if the body fails
        if self.level == 7:
            raise ValueError("level 7 is refused by _check_params")

    @fit_wrapper
    def fit(self, X, y=None):
        """Fit the toy.

        Parameters
        ----------
        X : array of shape (n, d)
        y : None

        Returns
        -------
        self : _Toy
        """
        self.n_features_in_ = np.shape(X)[1]
        self.mean_ = np.mean(X, axis=0)
        if self.fail:
            raise RuntimeError("the body failed after setting attributes")
        return self


def _fitted(est):
    return sorted(k for k in vars(est) if k.endswith("_") and not k.startswith("__"))


def test_wrapper_keeps_name_and_docstring():
    assert _Toy.fit.__name__ == "fit"
    assert "Fit the toy." in _Toy.fit.__doc__


def test_a_failing_body_leaves_no_fitted_attribute():
    X = np.ones((4, 2))
    est = _Toy(fail=True)
    with pytest.raises(RuntimeError, match="after setting attributes"):
        est.fit(X)
    assert _fitted(est) == []


def test_an_earlier_fit_does_not_survive_a_failing_refit():
    X = np.ones((4, 2))
    est = _Toy().fit(X)
    assert _fitted(est) == ["checked_", "mean_", "n_features_in_"]
    with pytest.raises(InvalidParameterError):
        est.set_params(level=-1).fit(X)          # rejected by _parameter_constraints
    assert _fitted(est) == []
    est.set_params(level=0).fit(X)
    with pytest.raises(ValueError, match="_check_params"):
        est.set_params(level=7).fit(X)           # rejected by _check_params
    assert _fitted(est) == []
    est.set_params(level=0).fit(X)
    with pytest.raises(RuntimeError):
        est.set_params(fail=True).fit(X)         # the body fails
    assert _fitted(est) == []


@pytest.mark.parametrize("make", [_Toy, DirectSVC], ids=["toy", "DirectSVC"])
def test_a_successful_refit_starts_from_nothing(make):
    X = np.random.RandomState(0).randn(20, 2)
    y = np.r_[np.zeros(10), np.ones(10)]
    est = make().fit(X, y)
    est.stale_ = "set by an earlier fit, not by this one"
    est.fit(X, y)
    assert "stale_" not in vars(est)


def test_a_classifier_subclass_failing_after_its_attributes_keeps_nothing():
    class FailingAfterFit(DirectSVC):
        def _after_fit(self, K):
            self.extra_ = 1.0
            raise RuntimeError("after the binary models")

    X = np.random.RandomState(0).randn(20, 2)
    y = np.r_[np.zeros(10), np.ones(10)]
    est = FailingAfterFit()
    with pytest.raises(RuntimeError, match="after the binary models"):
        est.fit(X, y)
    assert _fitted(est) == []


def _rejected_value_param(est):
    """A parameter with a declared constraint, for a value every constraint rejects."""
    for key, constraints in est._parameter_constraints.items():
        if constraints != "no_validation" and "no_validation" not in constraints:
            return key
    raise AssertionError(f"{type(est).__name__} declares no constraint")


@pytest.mark.parametrize("name,est", REGISTRY, ids=[n for n, _ in REGISTRY])
def test_a_rejected_parameter_removes_every_fitted_attribute(name, est):
    est = clone(est)
    est.stale_ = "from an earlier fit"
    key = _rejected_value_param(est)
    est.set_params(**{key: object()})
    X = np.eye(6)
    with pytest.raises(InvalidParameterError):
        est.fit(X, np.r_[0, 0, 0, 1, 1, 1])
    assert _fitted(est) == [], name


@pytest.mark.parametrize("name", [n for n, e in REGISTRY if ":" not in n
                                  and is_classifier(e)])
def test_a_classifier_given_one_class_keeps_nothing(name):
    est = make_method(name)
    X = np.random.RandomState(0).randn(8, 2)
    with pytest.raises(ValueError, match="one class"):
        est.fit(X, np.zeros(8, dtype=int))
    # validate_data had set n_features_in_ before the labels were refused
    assert _fitted(est) == [], name


# ---------------------------------------------------------------------------- multiclass
class _OvrDirectSVC(DirectSVC):
    """DirectSVC on the one-vs-rest strategy (the toy of the tests below)."""

    _multiclass = "ovr"


@pytest.fixture(scope="module")
def four_classes():
    rng = np.random.RandomState(3)
    centers = np.array([[0.0, 0.0], [2.5, 0.0], [0.0, 2.5], [2.5, 2.5]])
    X = np.vstack([c + rng.randn(15, 2) for c in centers])
    y = np.repeat(np.array(["a", "b", "c", "d"]), 15)
    return X, y


@pytest.mark.parametrize("precomputed", [False, True])
def test_ovr_equals_one_vs_rest_classifier(four_classes, precomputed):
    X, y = four_classes
    if precomputed:
        A, params = gaussian_kernel(X, X, gamma=0.5), {"kernel": "precomputed"}
    else:
        A, params = X, {"kernel": "gaussian", "kernel_params": {"gamma": 0.5}}
    ovr = _OvrDirectSVC(C=2.0, **params).fit(A, y)
    ref = OneVsRestClassifier(DirectSVC(C=2.0, **params)).fit(A, y)
    np.testing.assert_array_equal(ovr.classes_, ref.classes_)
    dec = ovr.decision_function(A)
    assert dec.shape == (X.shape[0], 4)
    np.testing.assert_array_equal(dec, ref.decision_function(A))
    np.testing.assert_array_equal(ovr.predict(A), ovr.classes_[np.argmax(dec, axis=1)])
    np.testing.assert_array_equal(ovr.predict(A), ref.predict(A))
    assert len(ovr.binary_models_) == 4 and not hasattr(ovr, "pairs_")
    assert ovr.dual_coef_.shape[0] == 4


def test_ovr_two_classes_is_one_model(four_classes):
    X, y = four_classes
    keep = np.isin(y, ["a", "b"])
    K = gaussian_kernel(X[keep], X[keep], gamma=0.5)
    ovr = _OvrDirectSVC(kernel="precomputed").fit(K, y[keep])
    ovo = DirectSVC(kernel="precomputed").fit(K, y[keep])
    assert len(ovr.binary_models_) == 1
    assert ovr.decision_function(K).shape == (keep.sum(),)
    np.testing.assert_array_equal(ovr.decision_function(K), ovo.decision_function(K))


def test_ovr_problems_get_each_samples_class_weight(four_classes):
    X, y = four_classes
    y = y[7:]                                     # unequal classes: "balanced" is not all ones
    X = X[7:]
    seen = []

    class Spy(_OvrDirectSVC):
        def _fit_binary(self, K, y_pm, idx, C):
            seen.append((y_pm, idx, C))
            return super()._fit_binary(K, y_pm, idx, C)

    est = Spy(C=2.0, class_weight="balanced").fit(X, y)
    classes, y_idx = np.unique(y, return_inverse=True)
    weights = y.size / (classes.size * np.bincount(y_idx))
    np.testing.assert_allclose(est.class_weight_, weights)
    assert len(seen) == 4
    for k, (y_pm, idx, C) in enumerate(seen):
        np.testing.assert_array_equal(idx, np.arange(y.size))
        np.testing.assert_array_equal(y_pm, np.where(y_idx == k, 1.0, -1.0))
        np.testing.assert_allclose(C, 2.0 * weights[y_idx])


def test_ovo_is_the_default_strategy(four_classes):
    X, y = four_classes
    est = DirectSVC().fit(X, y)
    assert DirectSVC._multiclass == "ovo"
    assert est.pairs_ == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert est.decision_function(X).shape == (X.shape[0], 4)


def test_rvc_is_one_vs_rest_through_the_base():
    assert RVC._multiclass == "ovr"
    for method in ("fit", "_fit", "decision_function", "predict"):
        assert method not in vars(RVC), f"RVC overrides {method}"


@pytest.mark.parametrize("name", [n for n, e in REGISTRY if is_classifier(e)])
def test_every_registry_classifier_declares_its_strategy(name):
    est = make_method(name)
    assert est._multiclass in MULTICLASS_STRATEGIES
    if not isinstance(est, KernelClassifierBase):     # fits all classes in its own fit
        assert est._multiclass == "native", name


def test_a_native_classifier_must_fit_itself(four_classes):
    class Native(DirectSVC):
        _multiclass = "native"

    X, y = four_classes
    with pytest.raises(NotImplementedError, match="native"):
        Native().fit(X, y)


def test_an_unknown_strategy_fails_when_the_class_is_defined():
    with pytest.raises(TypeError, match="_multiclass"):
        class Wrong(KernelClassifierBase):
            _multiclass = "one-vs-some"


def test_the_approximate_path_refuses_a_strategy_it_does_not_run():
    """ApproximationMixin splits one-vs-one: a one-vs-rest subclass is refused when defined."""
    from krein.estimators.approximate import ApproximationMixin
    from krein.estimators.base import KernelClassifierBase

    with pytest.raises(TypeError, match="one-vs-one"):
        type("OvrApproximate", (ApproximationMixin, KernelClassifierBase), {"_multiclass": "ovr"})
    type("OvoApproximate", (ApproximationMixin, KernelClassifierBase), {})   # accepted
