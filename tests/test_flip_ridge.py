"""Kernel ridge on the flipped kernel, one-vs-rest (`krein/estimators/flip_ridge.py`).

Checked against scikit-learn's ``KernelRidge`` on the flipped kernel built here with
``numpy.linalg.eigh``: with the training kernel rows as test rows, the Krein
coefficients ``c = V sign(lam) V' c~`` must give the flipped problem's training
decisions ``|K| c~ + b`` (Loosli et al. 2016, Algorithm 1), per class against the rest,
with class weights as ``KernelRidge``'s sample weights.
"""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.class_weight import compute_class_weight

from krein.estimators.flip_ridge import FlippedKernelRidgeClassifier
from krein.kernels import sigmoid_kernel
from krein.registry import make_method


def _flipped(K):
    lam, V = np.linalg.eigh(K)
    return (V * np.abs(lam)) @ V.T


def _kernel_ridge_decisions(K, y_pm, C, weights=None):
    """``KernelRidge`` on ``|K|`` with the weighted mean of ``y`` as the intercept."""
    w = np.ones(y_pm.size) if weights is None else weights
    b = np.sum(w * y_pm) / np.sum(w)
    flipped = _flipped(K)
    ridge = KernelRidge(alpha=1.0 / C, kernel="precomputed").fit(flipped, y_pm - b,
                                                                  sample_weight=w)
    return ridge.predict(flipped) + b


@pytest.fixture
def three_classes():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(m, 0.7, size=(15, 2)) for m in ((0, 0), (2, 0), (1, 2))])
    y = np.repeat(["a", "b", "c"], 15)
    K = sigmoid_kernel(X, a=1.0, r=-0.5)
    assert np.linalg.eigvalsh(K).min() < -1e-3      # clearly indefinite
    return K, y


def test_binary_training_decisions_are_kernel_ridge_on_the_flipped_kernel(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    clf = FlippedKernelRidgeClassifier(C=2.0, kernel="precomputed").fit(K, y)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    np.testing.assert_allclose(clf.decision_function(K), _kernel_ridge_decisions(K, y_pm, 2.0),
                               rtol=1e-7, atol=1e-8)


def test_one_vs_rest_columns_are_per_class_kernel_ridge(three_classes):
    K, y = three_classes
    clf = FlippedKernelRidgeClassifier(C=0.5, kernel="precomputed").fit(K, y)
    dec = clf.decision_function(K)
    assert dec.shape == (y.size, 3) and not hasattr(clf, "pairs_")
    for k, label in enumerate(clf.classes_):
        y_pm = np.where(y == label, 1.0, -1.0)
        np.testing.assert_allclose(dec[:, k], _kernel_ridge_decisions(K, y_pm, 0.5),
                                   rtol=1e-7, atol=1e-8)
    np.testing.assert_array_equal(clf.predict(K), clf.classes_[np.argmax(dec, axis=1)])


def test_class_weights_are_kernel_ridge_sample_weights(three_classes):
    K, y = three_classes
    keep = np.r_[0:15, 15:20, 30:45]                     # class "b" is rare
    K, y = K[np.ix_(keep, keep)], y[keep]
    clf = FlippedKernelRidgeClassifier(kernel="precomputed", class_weight="balanced").fit(K, y)
    cw = compute_class_weight("balanced", classes=clf.classes_, y=y)
    weights = cw[np.searchsorted(clf.classes_, y)]
    for k, label in enumerate(clf.classes_):
        y_pm = np.where(y == label, 1.0, -1.0)
        np.testing.assert_allclose(clf.decision_function(K)[:, k],
                                   _kernel_ridge_decisions(K, y_pm, 1.0, weights),
                                   rtol=1e-7, atol=1e-8)


def test_new_points_use_the_original_kernel_rows(three_classes):
    """``f(x) = k(x, X) c + b``: linear in the test rows, through the Krein coefficients."""
    K, y = three_classes
    clf = make_method("flip-ridge", kernel="precomputed").fit(K[:30][:, :30], y[:30])
    rows = K[30:, :30]
    coef = np.zeros((len(clf.binary_models_), 30))
    coef[:, clf.support_] = clf.dual_coef_
    assert clf.classes_.tolist() == ["a", "b"]            # two classes: one model
    np.testing.assert_allclose(clf.decision_function(rows), rows @ coef[0] + clf.intercept_[0],
                               rtol=1e-10, atol=1e-12)
    assert clf.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(K[:30][:, :30]).min(),
                                                abs=1e-10)
