"""Probabilities for every classifier: Platt scaling on internal CV.

``probability=True`` (:class:`krein.estimators.base.ProbabilityMixin`) fits
Platt's sigmoid on 5-fold cross-validated decision values through
scikit-learn's ``CalibratedClassifierCV(method="sigmoid", ensemble=False)``.
Checked here against things independent of that code path:

* every registered classifier declares ``probability=True`` in its registry entry and
  is fitted with it in ``tests/test_registry_rules.py`` (rows that sum to one, argmax
  agreeing with ``predict`` on a well-separated problem, log-loss and ROC AUC
  computable);
* Platt's sigmoid fitted by hand (``scipy.optimize`` on Platt's smoothed targets,
  Platt 2000 §2.2) to decision values cross-validated by hand on explicitly
  sliced kernel blocks reproduces the probabilities of ESVC on an indefinite
  kernel;
* with a PSD kernel, DirectSVC(probability=True) against libsvm's own Platt
  scaling (scikit-learn's SVC(probability=True), or, once that option is gone,
  ``CalibratedClassifierCV(SVC(), ensemble=False)``): the same ranking, not the
  same numbers (different internal folds);
* scikit-learn SVC's conventions: no ``predict_proba`` attribute while
  ``probability=False``, ``NotFittedError`` when fitted without it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.stats
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import krein
from krein.estimators import ESVC, RVC, DirectSVC, KernelKNeighborsClassifier
from krein.estimators.base import PLATT_FOLDS, PLATT_SEED
from krein.kernels import gaussian_kernel, sigmoid_kernel


def _blobs(n_per_class, centers, random_state=0, spread=1.0):
    rng = np.random.default_rng(random_state)
    X = np.vstack([rng.normal(c, spread, size=(n_per_class, len(c))) for c in centers])
    y = np.repeat(np.arange(len(centers)), n_per_class)
    return X, y


def test_multiclass_probabilities():
    X, y = _blobs(12, [(-3.0, 0.0), (3.0, 0.0), (0.0, 4.0)], random_state=2)
    K = gaussian_kernel(X, X, gamma=0.3)
    est = ESVC(kernel="precomputed", probability=True).fit(K, y)
    P = est.predict_proba(K)
    assert P.shape == (36, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-10)
    assert np.mean(np.argmax(P, axis=1) == est.predict(K)) >= 0.9
    assert roc_auc_score(y, P, multi_class="ovr") > 0.95


# ----------------------------------------------------------------------------- independent Platt
def _platt_by_hand(f, y01):
    """Platt's sigmoid ``P = 1 / (1 + exp(A f + B))`` on smoothed targets (Platt 2000, §2.2)."""
    n1 = np.sum(y01 == 1)
    n0 = y01.size - n1
    t = np.where(y01 == 1, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))

    def loss(ab):
        z = ab[0] * f + ab[1]
        # -(t log p + (1 - t) log(1 - p)) with p = 1 / (1 + exp(z))
        return np.sum(t * np.logaddexp(0.0, z) + (1.0 - t) * np.logaddexp(0.0, -z))

    res = scipy.optimize.minimize(loss, x0=[0.0, np.log((n0 + 1.0) / (n1 + 1.0))],
                                  method="BFGS", options={"gtol": 1e-10})
    return res.x


def test_platt_by_hand_reproduces_the_probabilities():
    X, y = _blobs(25, [(-1.0, 0.0), (1.0, 0.0)], random_state=3, spread=1.2)
    Xt, _ = _blobs(10, [(-1.0, 0.0), (1.0, 0.0)], random_state=4, spread=1.2)
    kp = {"a": 0.5, "r": -1.0}
    K, Kt = sigmoid_kernel(X, X, **kp), sigmoid_kernel(Xt, X, **kp)
    assert np.linalg.eigvalsh(K)[0] < -1e-3                       # indefinite
    est = ESVC(kernel="precomputed", probability=True).fit(K, y)
    # the cross-validated decision values, the kernel sliced by hand
    folds = StratifiedKFold(PLATT_FOLDS, shuffle=True, random_state=PLATT_SEED)
    f = np.empty(y.size)
    for tr, te in folds.split(K, y):
        m = ESVC(kernel="precomputed").fit(K[np.ix_(tr, tr)], y[tr])
        f[te] = m.decision_function(K[np.ix_(te, tr)])
    # ... are those of scikit-learn's cross_val_predict (which slices by the pairwise tag)
    np.testing.assert_allclose(
        cross_val_predict(ESVC(kernel="precomputed"), K, y, cv=folds,
                          method="decision_function"), f, rtol=1e-10, atol=1e-10)
    A, B = _platt_by_hand(f, y)
    assert A < 0                                                 # larger f: class 1 likelier
    expected = 1.0 / (1.0 + np.exp(A * est.decision_function(Kt) + B))
    np.testing.assert_allclose(est.predict_proba(Kt)[:, 1], expected, atol=1e-5)


def test_precomputed_kernel_gives_the_probabilities_of_the_named_kernel():
    X, y = _blobs(15, [(-1.0, 0.0), (1.0, 0.0)], random_state=5, spread=1.5)
    Xt, _ = _blobs(5, [(-1.0, 0.0), (1.0, 0.0)], random_state=6)
    named = DirectSVC(kernel="gaussian", kernel_params={"gamma": 0.5}, probability=True).fit(X, y)
    pre = DirectSVC(kernel="precomputed", probability=True).fit(gaussian_kernel(X, X, gamma=0.5), y)
    np.testing.assert_allclose(pre.predict_proba(gaussian_kernel(Xt, X, gamma=0.5)),
                               named.predict_proba(Xt), atol=1e-6)


def test_psd_kernel_agrees_with_libsvm_platt():
    X, y = _blobs(60, [(-0.7, 0.0), (0.7, 0.0)], random_state=7, spread=1.0)
    Xt, yt = _blobs(100, [(-0.7, 0.0), (0.7, 0.0)], random_state=8, spread=1.0)
    K, Kt = gaussian_kernel(X, X, gamma=0.5), gaussian_kernel(Xt, X, gamma=0.5)
    ours = DirectSVC(kernel="precomputed", probability=True).fit(K, y).predict_proba(Kt)[:, 1]
    if "probability" in SVC().get_params():         # libsvm's own Platt (removed in 1.11)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            ref = SVC(kernel="precomputed", probability=True, random_state=0).fit(K, y)
    else:
        from sklearn.calibration import CalibratedClassifierCV

        ref = CalibratedClassifierCV(SVC(kernel="precomputed"), ensemble=False).fit(K, y)
    theirs = ref.predict_proba(Kt)[:, 1]
    assert abs(roc_auc_score(yt, ours) - roc_auc_score(yt, theirs)) < 0.02
    assert scipy.stats.spearmanr(ours, theirs).statistic > 0.99
    # different folds, so different sigmoids; still the same scale of probabilities
    assert np.max(np.abs(ours - theirs)) < 0.15


def test_the_full_model_is_fitted_once(separated, monkeypatch):
    """Five fold fits and one full fit (libsvm's count), not a second full fit for ``self``."""
    K, y, Kt, _ = separated
    sizes = []
    real = DirectSVC._fit_binary

    def counting(self, K_sub, *args, **kwargs):
        sizes.append(K_sub.shape[0])
        return real(self, K_sub, *args, **kwargs)

    monkeypatch.setattr(DirectSVC, "_fit_binary", counting)
    est = DirectSVC(kernel="precomputed", probability=True).fit(K, y)
    assert sorted(sizes) == [32] * PLATT_FOLDS + [40]
    full = DirectSVC(kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(est.decision_function(Kt), full.decision_function(Kt), atol=1e-12)


# ----------------------------------------------------------------------------- conventions
def test_predict_proba_follows_svc_conventions(separated):
    K, y, Kt, _ = separated
    est = DirectSVC(kernel="precomputed")
    assert not hasattr(est, "predict_proba") and not hasattr(est, "predict_log_proba")
    assert hasattr(SVC(), "predict_proba") is hasattr(est, "predict_proba")
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'") as info:
        est.predict_proba(Kt)
    assert "not available when probability=False" in str(info.value.__cause__)
    est.fit(K, y)
    assert not hasattr(est, "predict_proba")
    est.set_params(probability=True)
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        est.predict_proba(Kt)
    with pytest.raises(NotFittedError):
        DirectSVC(kernel="precomputed", probability=True).predict_proba(Kt)
    with pytest.raises(ValueError, match="probability"):
        DirectSVC(kernel="precomputed", probability="yes").fit(K, y)


def test_native_probabilities_stay_without_probability(separated):
    K, y, Kt, _ = separated
    knn = KernelKNeighborsClassifier(kernel="precomputed", n_neighbors=5).fit(K, y)
    votes = knn.predict_proba(Kt)                       # vote shares: multiples of 1/5
    np.testing.assert_allclose(votes * 5, np.round(votes * 5), atol=1e-12)
    platt = clone(knn).set_params(probability=True).fit(K, y)
    P = platt.predict_proba(Kt)
    assert not np.allclose(P * 5, np.round(P * 5))     # a sigmoid of the margin now
    np.testing.assert_array_equal(platt.decision_function(Kt), knn.decision_function(Kt))
    assert hasattr(RVC(), "predict_proba")


def test_too_few_samples_per_class_leaves_nothing_fitted(separated):
    K, y, _, _ = separated
    keep = np.r_[np.flatnonzero(y == 0)[:10], np.flatnonzero(y == 1)[:PLATT_FOLDS - 1]]
    est = DirectSVC(kernel="precomputed", probability=True)
    with pytest.raises(ValueError, match=f"{PLATT_FOLDS}-fold"):
        est.fit(K[np.ix_(keep, keep)], y[keep])
    assert not [k for k in vars(est) if k.endswith("_")]


def test_every_public_classifier_takes_probability():
    classifiers = [c for name in krein.estimators.__all__
                   if isinstance(c := getattr(krein.estimators, name), type)
                   and hasattr(c, "get_params") and not name.endswith("Base")
                   and is_classifier(c())]
    assert len(classifiers) >= 14
    for cls in classifiers:
        assert cls().get_params()["probability"] is False, cls.__name__


# ------------------------------------------------------------------------ scikit-learn's checks
#: Expected failures of scikit-learn's estimator checks with ``probability=True``, and why.
_TOO_SMALL = ("10 samples in 3 classes: the internal 5-fold CV of Platt scaling needs 5 samples "
              "of each class and says so (ValueError naming the folds), where the check "
              "expects a message about the single feature")
_ARGMAX = ("Platt's one-vs-rest sigmoids on 3 classes may move the argmax of a point whose "
           "vote is close (2 of 300 points): libsvm documents the same for "
           "SVC(probability=True) ('slightly different than those obtained by predict')")

_LIBSVM_TOL = ("libsvm's tol=1e-3 ends the weighted and the repeated problems at different "
               "approximate points; tests/test_sample_weight.py checks them at tol=1e-10")


def _expected_failures(est):
    out = {"check_fit2d_1feature": _TOO_SMALL}
    if isinstance(est, KernelKNeighborsClassifier):
        out["check_classifiers_train"] = _ARGMAX
    else:
        out["check_sample_weight_equivalence_on_dense_data"] = _LIBSVM_TOL
    return out


@parametrize_with_checks([DirectSVC(probability=True),
                          KernelKNeighborsClassifier(probability=True)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_checks_with_probability(estimator, check):
    check(estimator)
