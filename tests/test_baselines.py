"""The baselines (registry "weighted-knn", "similarity-linear", "similarity-rbf",
"pe-nearest-mean"), each checked against an independent computation.

* weighted k-NN (krein/estimators/neighbors.py ``AffinityKNeighborsClassifier``): a direct
  numpy loop over the test objects (true ``k(x, x)`` in the distance, affinity weights
  ``max(k(x, x_i), 0)``, majority vote when none is positive), and scikit-learn's
  ``KNeighborsClassifier(weights=callable, metric="precomputed")`` on a unit-diagonal
  kernel, where the affinity is ``1 - d^2 / 2``;
* the similarity space (krein/estimators/similarity_space.py ``SimilaritySpaceSVC``):
  scikit-learn's ``SVC(kernel="linear")`` / ``SVC(kernel="rbf", gamma="scale")`` on the
  rows of K as feature vectors (equal predictions, close dual coefficients);
* the pseudo-Euclidean nearest mean (krein/estimators/nearest_mean.py
  ``PseudoEuclideanNearestMean``): the explicit embedding of train + test
  (:func:`krein.geometry.pseudo_euclidean_embedding`), class means there, and the
  indefinite squared distances with the signature.

Every comparison of predictions first checks that no neighbour order, vote or sign is
decided by round-off.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

import krein
from krein.estimators import (AffinityKNeighborsClassifier, KernelKNeighborsClassifier,
                              PseudoEuclideanNearestMean, SimilaritySpaceSVC)
from krein.geometry import pseudo_euclidean_embedding
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.registry import default_grid, method_entry, scale_exponents

KS = (1, 3, 5, 7)
SIGMOID = {"a": 0.5, "r": -1.0}


def _data(n_train=50, n_test=25, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_train + n_test, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=len(X)),
                    np.quantile(X[:, 0], np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, n_train


def _centred_dissimilarity_kernel(X, n_train):
    """The kernel of dissimilarity data: K = -1/2 J D^2 J on the training objects (J centring
    on them), test rows centred the same way; D an l1 distance (not Euclidean: indefinite)."""
    D2 = np.abs(X[:, None, :] - X[None, :, :]).sum(axis=2) ** 2
    tr = slice(0, n_train)
    col = D2[tr, tr].mean(axis=0)
    K_all = -0.5 * (D2[:, tr] - D2[:, tr].mean(axis=1, keepdims=True) - col[None, :] + col.mean())
    return K_all[:n_train], K_all[n_train:]


def _clear_order(D2, k):
    """No round-off decides the k nearest: the k-th and (k+1)-th values differ."""
    s = np.sort(D2, axis=1)
    return bool(np.all(s[:, k] - s[:, k - 1] > 1e-8 * np.abs(s).max()))


# ---------------------------------------------------------------------------- weighted k-NN
def _weighted_knn_loop(K_test, K_train_diag, test_diag, y, k, classes):
    """Direct loop: true squared distances, affinity votes max(s, 0), majority if none > 0."""
    proba = np.zeros((K_test.shape[0], classes.size))
    for t, row in enumerate(K_test):
        d2 = test_diag[t] + K_train_diag - 2.0 * row
        nearest = np.argsort(d2)[:k]
        w = np.array([max(row[j], 0.0) for j in nearest])
        if not np.any(w > 0):
            w = np.ones(k)
        for j, wj in zip(nearest, w):
            proba[t, np.searchsorted(classes, y[j])] += wj
        proba[t] /= proba[t].sum()
    return proba


@pytest.mark.parametrize("kind", ["sigmoid", "centred-dissimilarity"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_weighted_knn_equals_a_direct_loop_over_test_objects(kind, n_classes):
    X, y, n = _data(n_classes=n_classes)
    if kind == "sigmoid":
        K_all = sigmoid_kernel(X, **SIGMOID)
        K, Kt, test_diag = K_all[:n, :n], K_all[n:, :n], np.diag(K_all)[n:]
    else:   # a fifth of the objects near the centre: their similarities to others are ~0 or < 0
        X[::5] *= 0.05
        K, Kt = _centred_dissimilarity_kernel(X, n)
        test_diag = np.zeros(Kt.shape[0])   # any value: it shifts a whole row's distances
    assert np.linalg.eigvalsh(K)[0] < 0 and Kt.min() < 0   # indefinite, negative similarities
    classes = np.unique(y[:n])
    clipped = 0
    for k in KS:
        assert _clear_order(np.diag(K)[None, :] - 2 * Kt, k)
        ref = _weighted_knn_loop(Kt, np.diag(K), test_diag, y[:n], k, classes)
        est = AffinityKNeighborsClassifier(n_neighbors=k, kernel="precomputed").fit(K, y[:n])
        np.testing.assert_allclose(est.predict_proba(Kt), ref, rtol=1e-12, atol=1e-12)
        top = np.sort(ref, axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-9        # votes not tied (ties: first class)
        assert clear.mean() > 0.8
        np.testing.assert_array_equal(est.predict(Kt)[clear],
                                      classes[np.argmax(ref, axis=1)][clear])
        order = np.argsort(np.diag(K)[None, :] - 2 * Kt, axis=1)[:, :k]
        clipped += int(np.sum(np.take_along_axis(Kt, order, axis=1) < 0))
    assert clipped > 0               # some neighbours had negative similarities


@pytest.mark.parametrize("n_classes", [2, 3])
def test_weighted_knn_matches_sklearn_with_affinity_weights_on_a_unit_diagonal_kernel(n_classes):
    X, y, n = _data(n_classes=n_classes, seed=1)
    K_all = gaussian_kernel(X, gamma=0.3)               # unit diagonal, similarities in (0, 1]
    K, Kt = K_all[:n, :n], K_all[n:, :n]
    # the kernel-induced distance d^2 = 2 - 2 k(x, x_i): nearest = most similar, and the
    # affinity k(x, x_i) = 1 - d^2 / 2 is a function of the distance sklearn passes
    D, Dt = np.sqrt(np.maximum(2 - 2 * K, 0)), np.sqrt(np.maximum(2 - 2 * Kt, 0))
    for k in KS:
        assert _clear_order(-Kt, k)
        ref = KNeighborsClassifier(n_neighbors=k, metric="precomputed",
                                   weights=lambda d: 1.0 - d ** 2 / 2.0).fit(D, y[:n])
        est = AffinityKNeighborsClassifier(n_neighbors=k, kernel="precomputed").fit(K, y[:n])
        p_ref = ref.predict_proba(Dt)
        top = np.sort(p_ref, axis=1)
        assert np.all(top[:, -1] - top[:, -2] > 1e-9)
        np.testing.assert_allclose(est.predict_proba(Kt), p_ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(est.predict(Kt), ref.predict(Dt))
        # the named kernel on feature vectors gives the same model
        named = AffinityKNeighborsClassifier(n_neighbors=k, kernel="gaussian",
                                             kernel_params={"gamma": 0.3}).fit(X[:n], y[:n])
        np.testing.assert_array_equal(named.predict(X[n:]), ref.predict(Dt))


def test_weighted_knn_negative_similarities_by_hand():
    K = np.eye(3)
    y = np.array([0, 1, 1])
    est = AffinityKNeighborsClassifier(n_neighbors=3, kernel="precomputed").fit(K, y)
    rows = np.array([[0.3, -0.2, -0.25],      # only the class-0 neighbour is similar: it wins
                     [-0.3, -0.2, -0.25]])    # no neighbour similar: the majority vote (1)
    np.testing.assert_allclose(est.predict_proba(rows), [[1.0, 0.0], [1 / 3, 2 / 3]])
    np.testing.assert_array_equal(est.predict(rows), [0, 1])
    plain = KernelKNeighborsClassifier(n_neighbors=3, kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(plain.predict(rows), [1, 1])     # the unweighted vote


# ---------------------------------------------------------------------------- similarity space
@pytest.mark.parametrize("feature_kernel,gamma", [("linear", 1.0), ("rbf", 1.0), ("rbf", 10.0)])
@pytest.mark.parametrize("C", [0.01, 1.0])
def test_similarity_space_svm_equals_sklearn_svc_on_the_rows_of_K(feature_kernel, gamma, C):
    X, y, n = _data(seed=2)
    K_all = sigmoid_kernel(X, **SIGMOID)
    K, Kt = K_all[:n, :n], K_all[n:, :n]             # features: rows of K; test rows K(test, train)
    if feature_kernel == "linear":
        ref = SVC(kernel="linear", C=C).fit(K, y[:n])
    else:   # gamma = 1 is sklearn's "scale": 1 / (n_features * K.var())
        ref = SVC(kernel="rbf", C=C, gamma="scale" if gamma == 1.0
                  else gamma / (K.shape[1] * K.var())).fit(K, y[:n])
    est = SimilaritySpaceSVC(C=C, feature_kernel=feature_kernel, gamma=gamma,
                             kernel="precomputed").fit(K, y[:n])
    f_ref = ref.decision_function(Kt)
    clear = np.abs(f_ref) > 1e-2        # signs not decided by round-off or the solver tolerance
    assert clear.mean() > 0.8
    np.testing.assert_array_equal(est.predict(Kt)[clear], ref.predict(Kt)[clear])
    np.testing.assert_allclose(est.decision_function(Kt), f_ref, rtol=1e-3, atol=1e-3)
    coef = np.zeros(n)
    coef[ref.support_] = ref.dual_coef_[0]
    full = np.zeros(n)
    full[est.support_] = est.dual_coef_[0]
    np.testing.assert_allclose(full, coef, atol=1e-3 * C)
    assert est.solution_.certificate_kind == "residual"


def test_similarity_space_svm_multiclass_and_named_kernel_equal_sklearn():
    X, y, n = _data(n_classes=3, seed=3)
    K_all = sigmoid_kernel(X, **SIGMOID)
    K, Kt = K_all[:n, :n], K_all[n:, :n]
    for feature_kernel in ("linear", "rbf"):
        ref = SVC(kernel=feature_kernel, C=1.0, gamma="scale").fit(K, y[:n])
        est = SimilaritySpaceSVC(feature_kernel=feature_kernel,
                                 kernel="precomputed").fit(K, y[:n])
        votes = ref.decision_function(Kt)                 # one-vs-one votes + confidences
        top = np.sort(votes, axis=1)
        assert np.all(top[:, -1] - top[:, -2] > 1e-2)
        np.testing.assert_array_equal(est.predict(Kt), ref.predict(Kt))
        named = SimilaritySpaceSVC(feature_kernel=feature_kernel, kernel="sigmoid",
                                   kernel_params=SIGMOID).fit(X[:n], y[:n])
        np.testing.assert_array_equal(named.predict(X[n:]), ref.predict(Kt))
        assert len(est.solutions_) == 3


def test_linear_similarity_space_is_the_svm_on_K_squared_with_rows_k_x_X_K():
    """The module docstring's claim: "similarity-linear" makes the model of "square"
    (SVM on K^2 = K K', test rows k(x, X) K by Munoz & de Diego's eq. (7) map)."""
    X, y, n = _data(seed=5)
    K_all = sigmoid_kernel(X, **SIGMOID)
    K, Kt = K_all[:n, :n], K_all[n:, :n]
    square = krein.make_method("square", kernel="precomputed", C=0.3).fit(K, y[:n])
    linear = krein.make_method("similarity-linear", kernel="precomputed", C=0.3).fit(K, y[:n])
    f = square.decision_function(Kt)
    assert np.min(np.abs(f)) > 1e-2                  # no sign decided by the solver tolerance
    np.testing.assert_allclose(linear.decision_function(Kt), f, rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(linear.predict(Kt), square.predict(Kt))


# ---------------------------------------------------------------------------- nearest mean
@pytest.mark.parametrize("n_classes", [2, 3])
def test_pe_nearest_mean_equals_class_means_in_the_explicit_embedding(n_classes):
    X, y, n = _data(n_classes=n_classes, seed=4)
    K_all = sigmoid_kernel(X, **SIGMOID)               # train + test: the embedding is exact
    emb = pseudo_euclidean_embedding(K_all)
    assert emb.p > 0 and emb.q > 0                       # indefinite signature
    Phi = emb.coordinates
    M = np.r_[np.ones(emb.p), -np.ones(emb.q)]
    classes = np.unique(y[:n])
    means = np.array([Phi[:n][y[:n] == c].mean(axis=0) for c in classes])
    diff = Phi[n:, None, :] - means[None, :, :]
    d2 = np.einsum("tcr,r,tcr->tc", diff, M, diff)   # indefinite squared distances
    top = np.sort(d2, axis=1)
    assert np.all(top[:, 1] - top[:, 0] > 1e-8 * np.abs(d2).max())
    est = PseudoEuclideanNearestMean(kernel="precomputed").fit(K_all[:n, :n], y[:n])
    Kt = K_all[n:, :n]                                   # test rows only, no k(x, x)
    np.testing.assert_array_equal(est.predict(Kt), classes[np.argmin(d2, axis=1)])
    dec = est.decision_function(Kt)
    if n_classes == 2:
        np.testing.assert_allclose(dec, d2[:, 0] - d2[:, 1], atol=1e-9 * np.abs(d2).max())
    else:   # -(d^2 - k(x, x)): the same differences between classes
        np.testing.assert_allclose(dec - dec[:, :1], -(d2 - d2[:, :1]),
                                   atol=1e-9 * np.abs(d2).max())
    named = PseudoEuclideanNearestMean(kernel="sigmoid", kernel_params=SIGMOID).fit(X[:n], y[:n])
    np.testing.assert_array_equal(named.predict(X[n:]), est.predict(Kt))


# ---------------------------------------------------------------------------- registry
def test_registry_entries_of_the_baselines():
    methods = krein.list_methods(task="classifier", compare=True)
    expected = {"weighted-knn": AffinityKNeighborsClassifier,
                "similarity-linear": SimilaritySpaceSVC, "similarity-rbf": SimilaritySpaceSVC,
                "pe-nearest-mean": PseudoEuclideanNearestMean}
    for name, cls in expected.items():
        assert name in methods and isinstance(krein.make_method(name), cls)
        assert method_entry(name).readme is not None
    assert krein.make_method("similarity-rbf").feature_kernel == "rbf"
    assert default_grid("weighted-knn") == {"n_neighbors": [1, 3, 5, 7]}
    assert set(default_grid("similarity-rbf")) == {"C", "gamma"}
    assert default_grid("pe-nearest-mean") == {}
    assert scale_exponents("similarity-linear") == {"C": -2}
    assert scale_exponents("similarity-rbf") == {"C": 0, "gamma": 0}
    assert scale_exponents("weighted-knn") == {} == scale_exponents("pe-nearest-mean")
