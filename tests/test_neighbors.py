"""The k-NN baseline (krein/estimators/neighbors.py, registry "knn").

Checked against scikit-learn's ``KNeighborsClassifier``: with
``metric="precomputed"`` on the kernel-induced distances computed with the test
points' true self-similarities (the estimator never sees them: the order needs
the training diagonal only), and with the Euclidean metric on feature vectors
for a Gaussian kernel (whose induced distance is an increasing function of the
Euclidean one).  Every comparison first checks that no neighbour order is
decided by round-off (a margin between the k-th and the (k+1)-th distance).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

import krein
from krein.estimators import KernelKNeighborsClassifier
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.registry import default_grid, method_entry

KS = (1, 3, 5, 7)


def _data(n_train=60, n_test=30, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_train + n_test, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=len(X)),
                    np.quantile(X[:, 0], np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


def _clear_order(D2, k):
    """No round-off decides the k nearest: the k-th and (k+1)-th distances differ."""
    s = np.sort(D2, axis=1)
    gap = s[:, k] - s[:, k - 1]
    return bool(np.all(gap > 1e-8 * np.abs(s).max()))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_matches_sklearn_on_the_induced_distances_of_an_indefinite_kernel(n_classes):
    X, Xt, y, yt = _data(n_classes=n_classes)
    K, Kt = sigmoid_kernel(X, a=0.5, r=-1.0), sigmoid_kernel(Xt, X, a=0.5, r=-1.0)
    diag_t = np.diag(sigmoid_kernel(Xt, a=0.5, r=-1.0))
    assert np.linalg.eigvalsh(K)[0] < 0                          # indefinite
    D2_tr = np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K
    D2_te = diag_t[:, None] + np.diag(K)[None, :] - 2 * Kt
    assert D2_te.min() < 0            # negative squared distances occur on this kernel
    # sklearn needs non-negative distances: one constant shift of every entry changes no
    # row's order (the estimator, for its part, keeps the negative values as they are)
    shift = -min(D2_tr.min(), D2_te.min())
    for k in KS:
        assert _clear_order(D2_te, k)
        ref = KNeighborsClassifier(n_neighbors=k, metric="precomputed").fit(D2_tr + shift, y)
        est = KernelKNeighborsClassifier(n_neighbors=k, kernel="precomputed").fit(K, y)
        np.testing.assert_array_equal(est.predict(Kt), ref.predict(D2_te + shift))
        np.testing.assert_allclose(est.predict_proba(Kt), ref.predict_proba(D2_te + shift))
        # the named kernel on feature vectors: the same neighbours
        named = KernelKNeighborsClassifier(n_neighbors=k, kernel="sigmoid",
                                           kernel_params={"a": 0.5, "r": -1.0}).fit(X, y)
        np.testing.assert_array_equal(named.predict(Xt), ref.predict(D2_te + shift))


def test_gaussian_kernel_gives_euclidean_neighbours():
    """d^2 = 2 - 2 exp(-gamma |x - z|^2) grows with |x - z|: Euclidean k-NN's neighbours."""
    X, Xt, y, _ = _data(n_classes=3, seed=1)
    E2 = ((Xt[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    for k in KS:
        assert _clear_order(E2, k)
        ref = KNeighborsClassifier(n_neighbors=k).fit(X, y)
        est = KernelKNeighborsClassifier(n_neighbors=k, kernel="precomputed")
        est.fit(gaussian_kernel(X, gamma=0.3), y)
        np.testing.assert_array_equal(est.predict(gaussian_kernel(Xt, X, gamma=0.3)),
                                      ref.predict(Xt))


def test_negative_squared_distances_are_the_nearest_and_not_clipped():
    # an indefinite 4 x 4 kernel: d(0, 1)^2 = 1 + 1 - 4 = -2 < 0
    K = np.array([[1.0, 2.0, 0.0, 0.5], [2.0, 1.0, 0.0, 0.5], [0.0, 0.0, 1.0, 0.2],
                  [0.5, 0.5, 0.2, 1.0]])
    y = np.array([0, 0, 1, 1])
    # a test point with k(x, X) = (3, 0, 2.5, 0) and k(x, x) = 1: d^2 = (-4, 2, -3, 2);
    # clipped at 0 the first and third would tie; unclipped the first is the nearest
    est = KernelKNeighborsClassifier(n_neighbors=1, kernel="precomputed").fit(K, y)
    assert est.predict(np.array([[3.0, 0.0, 2.5, 0.0]]))[0] == 0
    assert est.predict(np.array([[2.5, 0.0, 3.0, 0.0]]))[0] == 1


def test_scale_and_bad_input():
    X, Xt, y, _ = _data()
    K, Kt = sigmoid_kernel(X, a=0.5, r=-1.0), sigmoid_kernel(Xt, X, a=0.5, r=-1.0)
    ref = KernelKNeighborsClassifier(n_neighbors=5, kernel="precomputed").fit(K, y).predict(Kt)
    for s in (1e-8, 1e8):        # d^2 -> s d^2: the same neighbours
        est = KernelKNeighborsClassifier(n_neighbors=5, kernel="precomputed").fit(s * K, y)
        np.testing.assert_array_equal(est.predict(s * Kt), ref)
    with pytest.raises(ValueError, match="n_neighbors = 61 exceeds the 60"):
        KernelKNeighborsClassifier(n_neighbors=61, kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="n_neighbors"):
        KernelKNeighborsClassifier(n_neighbors=0, kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="square"):
        KernelKNeighborsClassifier(kernel="precomputed").fit(Kt, y[:30])
    with pytest.raises(ValueError, match="one class"):
        KernelKNeighborsClassifier(kernel="precomputed").fit(K, np.zeros(60))
    with pytest.raises(ValueError, match="features"):   # rows against another training set
        KernelKNeighborsClassifier(kernel="precomputed").fit(K, y).predict(Kt[:, :50])


def test_registry_entry_of_knn():
    """The method is one entry: grid, checks, README row, compare, its approximate path
    (nothing changed by an approximated run; tests/test_approximate_baselines.py)."""
    assert isinstance(krein.make_method("knn"), KernelKNeighborsClassifier)
    assert default_grid("knn") == {"n_neighbors": [1, 3, 5, 7]}
    entry = method_entry("knn")
    assert entry.compare and entry.task == "classifier" and entry.approximate == ()
    assert entry.readme[0] == "`KernelKNeighborsClassifier()`"
    assert "knn" in krein.list_methods(task="classifier", compare=True)
