"""Tests for krein.kernels: every kernel against an independent formula.

References: sklearn.metrics.pairwise (rbf, sigmoid, linear), explicit Python loops
(l1-Gaussian, Epanechnikov), and the classical-scaling identity
``-1/2 J D^2 J = (X - xbar)(X - xbar)'`` for Euclidean D (Haasdonk 2005, Prop. 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import linear_kernel as sk_linear
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf
from sklearn.metrics.pairwise import sigmoid_kernel as sk_sigmoid

from krein.kernels import (
    KERNELS,
    centering_matrix,
    dissimilarity_kernel,
    epanechnikov_kernel,
    gaussian_kernel,
    get_kernel,
    linear_kernel,
    pairwise_kernel,
    sigmoid_kernel,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 3))
    Z = rng.normal(size=(5, 3))
    return X, Z


# ----------------------------------------------------------------- kernels vs formulas


def test_linear_matches_sklearn(data):
    X, Z = data
    np.testing.assert_allclose(linear_kernel(X, Z), sk_linear(X, Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(linear_kernel(X), sk_linear(X, X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("gamma", [0.1, 0.7, 3.0])
def test_gaussian_l2_matches_sklearn_rbf(data, gamma):
    X, Z = data
    np.testing.assert_allclose(gaussian_kernel(X, Z, gamma=gamma), sk_rbf(X, Z, gamma=gamma), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(gaussian_kernel(X, gamma=gamma), sk_rbf(X, X, gamma=gamma), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("gamma", [0.05, 0.5])
def test_gaussian_l1_matches_loop(data, gamma):
    X, Z = data
    expected = np.empty((len(X), len(Z)))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            l1 = sum(abs(float(a) - float(b)) for a, b in zip(x, z))
            expected[i, j] = np.exp(-gamma * l1**2)
    np.testing.assert_allclose(gaussian_kernel(X, Z, gamma=gamma, metric="l1"), expected, rtol=1e-12, atol=1e-15)


def test_gaussian_l1_differs_from_l2(data):
    # guards against "l1" silently computing the l2 kernel
    X, Z = data
    assert not np.allclose(gaussian_kernel(X, Z, metric="l1"), gaussian_kernel(X, Z, metric="l2"))


@pytest.mark.parametrize("a, r", [(1.0, 0.0), (0.5, -1.0), (2.0, 0.3)])
def test_sigmoid_matches_sklearn(data, a, r):
    X, Z = data
    np.testing.assert_allclose(sigmoid_kernel(X, Z, a=a, r=r), sk_sigmoid(X, Z, gamma=a, coef0=r), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sigmoid_kernel(X, a=a, r=r), sk_sigmoid(X, X, gamma=a, coef0=r), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("sigma, degree", [(1.0, 1), (2.0, 2), (3.0, 0.5), (1.5, 3)])
def test_epanechnikov_matches_loop(data, sigma, degree):
    X, Z = data
    expected = np.empty((len(X), len(Z)))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            d2 = sum((float(a) - float(b)) ** 2 for a, b in zip(x, z))
            expected[i, j] = max(0.0, 1.0 - d2 / sigma**2) ** degree
    K = epanechnikov_kernel(X, Z, sigma=sigma, degree=degree)
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-15)
    # the support is truncated: some pairs are outside the radius for small sigma
    if sigma <= 1.5:
        assert np.any(K == 0.0)


@pytest.mark.parametrize(
    "fn, params",
    [
        (linear_kernel, {}),
        (gaussian_kernel, {"gamma": 0.3}),
        (gaussian_kernel, {"gamma": 0.3, "metric": "l1"}),
        (sigmoid_kernel, {"a": 0.5, "r": -0.2}),
        (epanechnikov_kernel, {"sigma": 2.0, "degree": 2}),
    ],
)
def test_shapes_and_symmetry(data, fn, params):
    X, Z = data
    assert fn(X, Z, **params).shape == (9, 5)
    assert fn(Z, X, **params).shape == (5, 9)
    K = fn(X, None, **params)
    assert K.shape == (9, 9)
    np.testing.assert_allclose(K, K.T, atol=1e-14)
    # Z=None is the same as Z=X
    np.testing.assert_allclose(K, fn(X, X, **params), atol=0)
    # transposition: k(Z, X) = k(X, Z)'
    np.testing.assert_allclose(fn(Z, X, **params), fn(X, Z, **params).T, atol=1e-14)


def test_sigmoid_is_indefinite_on_random_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    lam = np.linalg.eigvalsh(sigmoid_kernel(X, a=1.0, r=-1.0))
    scale = np.max(np.abs(lam))
    assert lam.min() < -1e-3 * scale
    assert lam.max() > 1e-3 * scale


def test_gaussian_l2_is_psd_control():
    # control for the previous test: the l2 Gaussian is PSD on the same kind of data
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    lam = np.linalg.eigvalsh(gaussian_kernel(X, gamma=0.5))
    assert lam.min() > -1e-10 * lam.max()


def test_centering_matrix():
    n = 6
    J = centering_matrix(n)
    np.testing.assert_allclose(J, np.eye(n) - np.ones((n, n)) / n)
    np.testing.assert_allclose(J @ np.ones(n), 0, atol=1e-15)
    np.testing.assert_allclose(J @ J, J, atol=1e-15)
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match="n"):
            centering_matrix(bad)


# ----------------------------------------------------------------- dissimilarity kernels


@pytest.fixture
def euclid():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 3))
    Z = rng.normal(size=(4, 3))
    return X, Z


def test_dissimilarity_linear_is_centered_gram(euclid):
    X, _ = euclid
    D = cdist(X, X)
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(dissimilarity_kernel(D), Xc @ Xc.T, atol=1e-10)


def test_dissimilarity_linear_uncentered(euclid):
    X, _ = euclid
    D = cdist(X, X)
    np.testing.assert_allclose(dissimilarity_kernel(D, center=False), -0.5 * cdist(X, X, "sqeuclidean"), atol=1e-12)


@pytest.mark.parametrize("gamma", [0.2, 1.5])
def test_dissimilarity_gaussian(euclid, gamma):
    X, _ = euclid
    D = cdist(X, X)
    np.testing.assert_allclose(dissimilarity_kernel(D, kind="gaussian", gamma=gamma), sk_rbf(X, X, gamma=gamma), rtol=1e-10, atol=1e-14)


def test_dissimilarity_test_rows_reproduce_training_kernel(euclid):
    X, _ = euclid
    D = cdist(X, X)
    np.testing.assert_allclose(dissimilarity_kernel(D, D_train=D), dissimilarity_kernel(D), atol=1e-12)


def test_dissimilarity_test_rows_out_of_sample_classical_scaling(euclid):
    X, Z = euclid
    D_train = cdist(X, X)
    D_test = cdist(Z, X)
    xbar = X.mean(axis=0)
    expected = (Z - xbar) @ (X - xbar).T  # <z - xbar, x_j - xbar>
    K = dissimilarity_kernel(D_test, D_train=D_train)
    assert K.shape == (4, 10)
    np.testing.assert_allclose(K, expected, atol=1e-10)
    # and the hand formula -1/2 (d2(z,x_j) - mean_j d2(z,.) - mean_i d2(x_i,x_j) + mean d2)
    d2, dt2 = D_test**2, D_train**2
    hand = -0.5 * (d2 - d2.mean(axis=1, keepdims=True) - dt2.mean(axis=0, keepdims=True) + dt2.mean())
    np.testing.assert_allclose(K, hand, atol=1e-12)


def test_dissimilarity_gaussian_test_rows_without_D_train(euclid):
    X, Z = euclid
    D_test = cdist(Z, X)
    np.testing.assert_allclose(dissimilarity_kernel(D_test, kind="gaussian", gamma=0.5), sk_rbf(Z, X, gamma=0.5), rtol=1e-10)


def test_dissimilarity_gaussian_test_rows_with_D_train(euclid):
    X, Z = euclid
    K = dissimilarity_kernel(cdist(Z, X), kind="gaussian", gamma=0.5, D_train=cdist(X, X))
    np.testing.assert_allclose(K, sk_rbf(Z, X, gamma=0.5), rtol=1e-10)


def test_dissimilarity_bad_input(euclid):
    X, Z = euclid
    D = cdist(X, X)
    with pytest.raises(ValueError, match="kind"):
        dissimilarity_kernel(D, kind="cosine")
    with pytest.raises(ValueError, match="gamma"):
        dissimilarity_kernel(D, kind="gaussian", gamma=0.0)
    with pytest.raises(ValueError, match="square"):
        dissimilarity_kernel(cdist(Z, X))  # rectangular without D_train
    with pytest.raises(ValueError, match="D_train"):
        dissimilarity_kernel(cdist(Z, X[:5]), D_train=D)  # width != n_train
    Dn = D.copy()
    Dn[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dissimilarity_kernel(Dn)
    with pytest.raises(ValueError, match="2-D"):
        dissimilarity_kernel(np.ones(4))


# ----------------------------------------------------------------- registry / pairwise


@pytest.mark.parametrize("name", ["linear", "gaussian", "rbf", "sigmoid", "tanh", "epanechnikov"])
def test_get_kernel_names(name):
    assert get_kernel(name) is KERNELS[name]


def test_get_kernel_aliases():
    assert get_kernel("rbf") is gaussian_kernel
    assert get_kernel("tanh") is sigmoid_kernel


@pytest.mark.parametrize("name", ["polynomial", "RBF", "", None, ["linear"]])
def test_get_kernel_unknown(name):
    with pytest.raises(ValueError, match="unknown kernel"):
        get_kernel(name)


def test_pairwise_kernel_named_and_callable(data):
    X, Z = data
    np.testing.assert_allclose(pairwise_kernel("rbf", X, Z, {"gamma": 0.4}), sk_rbf(X, Z, gamma=0.4), rtol=1e-10)
    np.testing.assert_allclose(pairwise_kernel("sigmoid", X, None, {"a": 0.3}), sk_sigmoid(X, X, gamma=0.3, coef0=0.0), rtol=1e-12)

    def poly(A, B, degree=2):
        return (A @ B.T + 1.0) ** degree

    np.testing.assert_allclose(pairwise_kernel(poly, X, Z, {"degree": 3}), (X @ Z.T + 1) ** 3, rtol=1e-12)
    assert pairwise_kernel(poly, X).shape == (9, 9)


def test_pairwise_kernel_bad_callable(data):
    X, Z = data
    with pytest.raises(ValueError, match="shape"):
        pairwise_kernel(lambda A, B: A @ A.T, X, Z)  # (n_x, n_x) instead of (n_x, n_z)
    with pytest.raises(ValueError, match="shape"):
        pairwise_kernel(lambda A, B: np.zeros(len(A)), X, Z)
    with pytest.raises(ValueError, match="NaN"):
        pairwise_kernel(lambda A, B: np.full((len(A), len(B)), np.nan), X, Z)
    with pytest.raises(ValueError, match="kernel"):
        pairwise_kernel(3, X, Z)
    with pytest.raises(ValueError, match="unknown kernel"):
        pairwise_kernel("nope", X, Z)


# ----------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("fn", [linear_kernel, gaussian_kernel, sigmoid_kernel, epanechnikov_kernel])
def test_bad_arrays(data, fn):
    X, Z = data
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fn(Xn)
    with pytest.raises(ValueError, match="NaN"):
        fn(X, np.where(Z > 0, np.inf, Z))
    with pytest.raises(ValueError, match="features"):
        fn(X, Z[:, :2])
    with pytest.raises(ValueError, match="2-D"):
        fn(X[0])
    with pytest.raises(ValueError, match="2-D"):
        fn(X, Z[0])


@pytest.mark.parametrize("gamma", [0.0, -1.0, np.inf, np.nan])
def test_gaussian_bad_gamma(data, gamma):
    X, _ = data
    with pytest.raises(ValueError, match="gamma"):
        gaussian_kernel(X, gamma=gamma)


def test_gaussian_bad_metric(data):
    X, _ = data
    with pytest.raises(ValueError, match="metric"):
        gaussian_kernel(X, metric="l3")


@pytest.mark.parametrize("kw, name", [({"sigma": 0.0}, "sigma"), ({"sigma": -2.0}, "sigma"), ({"degree": 0}, "degree"), ({"degree": -1.0}, "degree")])
def test_epanechnikov_bad_params(data, kw, name):
    X, _ = data
    with pytest.raises(ValueError, match=name):
        epanechnikov_kernel(X, **kw)


@pytest.mark.parametrize("kw", [{"a": np.nan}, {"r": np.inf}])
def test_sigmoid_bad_params(data, kw):
    X, _ = data
    with pytest.raises(ValueError, match="finite"):
        sigmoid_kernel(X, **kw)


# =============================================================================
# Simpson score (Luss & d'Aspremont 2009, §5.1)
# =============================================================================
def test_simpson_matches_set_definition():
    from krein.kernels import simpson_kernel

    rng = np.random.default_rng(0)
    X = rng.random((12, 9))
    X[3] = 0.0                                  # an empty set: similarity 0 to everything
    Z = rng.random((7, 9))
    K = simpson_kernel(X, Z, threshold=0.6)
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            a, b = set(np.flatnonzero(x > 0.6)), set(np.flatnonzero(z > 0.6))
            ref = len(a & b) / min(len(a), len(b)) if a and b else 0.0
            assert K[i, j] == pytest.approx(ref, abs=1e-15)
    Kx = simpson_kernel(X, threshold=0.6)
    np.testing.assert_array_equal(Kx, Kx.T)
    assert np.all(np.diag(Kx)[np.any(X > 0.6, axis=1)] == 1.0)


def test_simpson_is_indefinite_on_usps():
    from krein.datasets import load
    from krein.kernels import simpson_kernel

    X, y = load("usps", binary=(3, 5))
    K = simpson_kernel(X[:300])
    assert np.linalg.eigvalsh(K)[0] < -1.0     # luss Table 1: lambda_min = -70 at n = 767
    with pytest.raises(ValueError, match="threshold"):
        simpson_kernel(X[:5], threshold=np.nan)
