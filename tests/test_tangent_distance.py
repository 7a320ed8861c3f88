"""Tangent distance and the TD1 kernel (``krein/kernels.py``).

Checked against things independent of the vectorized code:

* a per-pair ``numpy.linalg.lstsq`` of ``min_a ||x + T_x a - z||`` on the raw
  tangent matrix (no SVD basis, no projection formula);
* exact invariance: ``x + T_x a`` (any point of x's tangent plane) is at
  one-sided distance 0 from ``x``, and moving off the plane along a direction
  orthogonal to it adds exactly that direction's length;
* a small translation / rotation of a real USPS digit (``scipy.ndimage.shift``,
  ``rotate``): the one-sided distance is far below the Euclidean one and far
  below the distance to other digits;
* the tangents against finite differences of the smoothed image;
* symmetry of the symmetrized kernel, and the registry.
"""

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter, rotate, shift

from krein.datasets import load
from krein.kernels import (KERNELS, get_kernel, one_sided_tangent_distance,
                           pairwise_kernel, tangent_distance_kernel, tangent_vectors)


@pytest.fixture(scope="module")
def digits():
    X, y = load("usps", binary=(3, 5))
    return X[:40], y[:40]


def test_vectorized_distance_matches_per_pair_lstsq(digits):
    X, _ = digits
    A, B = X[:6], X[6:15]
    D = one_sided_tangent_distance(A, B)
    T = tangent_vectors(A)
    for i in range(len(A)):
        for j in range(len(B)):
            a, *_ = np.linalg.lstsq(T[i], B[j] - A[i], rcond=None)
            direct = np.linalg.norm(A[i] + T[i] @ a - B[j])
            assert D[i, j] == pytest.approx(direct, rel=1e-9, abs=1e-9)


def test_points_of_the_tangent_plane_are_at_distance_zero(digits):
    X, _ = digits
    rng = np.random.default_rng(0)
    x = X[3]
    T = tangent_vectors(x[None])[0]
    on_plane = x + T @ rng.normal(size=7)
    assert one_sided_tangent_distance(x[None], on_plane[None])[0, 0] < 1e-6
    # one direction orthogonal to the plane: the distance is exactly its length
    v = rng.normal(size=x.size)
    Q, _ = np.linalg.qr(T)
    v -= Q @ (Q.T @ v)
    v *= 2.5 / np.linalg.norm(v)
    d = one_sided_tangent_distance(x[None], (on_plane + v)[None])[0, 0]
    assert d == pytest.approx(2.5, rel=1e-9)
    # ONE-sided: only the first argument's plane is used
    assert one_sided_tangent_distance(on_plane[None], x[None])[0, 0] > 1e-3


@pytest.mark.parametrize("move", ["x-shift", "y-shift", "rotation"])
def test_small_transformations_of_a_digit_are_near(digits, move):
    # USPS digits touch the frame; a 24 x 24 zero canvas keeps the moved ink in view
    X, _ = digits
    P = np.zeros((len(X), 24, 24))
    P[:, 4:20, 4:20] = X.reshape(-1, 16, 16)
    G = gaussian_filter(P, (0, 1.0, 1.0), mode="constant")  # the images the tangents describe
    g = G[0]
    if move == "x-shift":
        moved = shift(g, (0, 0.3), order=3, mode="constant")
    elif move == "y-shift":
        moved = shift(g, (0.3, 0), order=3, mode="constant")
    else:
        moved = rotate(g, 4.0, reshape=False, order=3, mode="constant")
    x, z = g.ravel(), moved.ravel()
    euclid = np.linalg.norm(z - x)
    others = one_sided_tangent_distance(x[None], G[1:].reshape(len(X) - 1, -1),
                                        image_shape=(24, 24))
    # the tangents of the raw digit are the derivatives of its smoothed image g:
    # the plane through g absorbs the move up to second-order terms
    T = tangent_vectors(P[0].ravel()[None], image_shape=(24, 24), sigma=1.0)[0]
    a, *_ = np.linalg.lstsq(T, z - x, rcond=None)
    resid = np.linalg.norm(z - x - T @ a)
    assert resid < 0.2 * euclid and resid < 0.1 * others.min()
    # through the public function (tangents of g itself, i.e. smoothed twice)
    d = one_sided_tangent_distance(x[None], z[None], image_shape=(24, 24))[0, 0]
    assert d < 0.45 * euclid and d < 0.15 * others.min()


def test_tangents_are_derivatives_of_the_smoothed_image(digits):
    X, _ = digits
    img = gaussian_filter(X[5].reshape(16, 16), 1.0, mode="constant")
    T = tangent_vectors(X[5][None], sigma=1.0)[0]
    # x-translation: central difference of the smoothed image along columns
    fd = (np.roll(img, -1, axis=1) - np.roll(img, 1, axis=1)) / 2.0
    inner = (slice(2, -2), slice(2, -2))
    tx = T[:, 0].reshape(16, 16)
    assert np.corrcoef(tx[inner].ravel(), fd[inner].ravel())[0, 1] > 0.97
    # thickening is the squared gradient norm: non-negative
    assert T[:, 6].min() >= 0


def test_kernel_symmetric_and_in_unit_interval(digits):
    X, _ = digits
    for sym in ("mean", "mean-square"):
        K = tangent_distance_kernel(X, gamma=0.02, symmetrize=sym)
        np.testing.assert_array_equal(K, K.T)
        assert np.allclose(np.diag(K), 1.0) and K.min() > 0 and K.max() <= 1.0
    # the two one-sided distances differ: symmetrization matters
    D = one_sided_tangent_distance(X)
    assert np.abs(D - D.T).max() > 0.1
    Km = tangent_distance_kernel(X, gamma=0.02)
    np.testing.assert_allclose(Km, np.exp(-0.02 * ((D + D.T) / 2) ** 2), rtol=1e-12)
    Kn = tangent_distance_kernel(X, gamma=0.02, symmetrize="none")
    np.testing.assert_allclose(Kn, np.exp(-0.02 * D**2), rtol=1e-12)


def test_cross_block_matches_the_square_kernel(digits):
    X, _ = digits
    K = tangent_distance_kernel(X, gamma=0.03)
    np.testing.assert_allclose(tangent_distance_kernel(X[:7], X[7:], gamma=0.03), K[:7, 7:],
                               rtol=1e-10)
    np.testing.assert_allclose(pairwise_kernel("tangent-distance", X[:5], X, {"gamma": 0.03}),
                               K[:5], rtol=1e-10)


def test_registry_and_bad_input(digits):
    X, _ = digits
    assert get_kernel("tangent-distance") is tangent_distance_kernel
    assert KERNELS["tangent-distance"] is tangent_distance_kernel
    with pytest.raises(ValueError, match="image_shape"):
        tangent_distance_kernel(X[:, :100])
    with pytest.raises(ValueError, match="gamma"):
        tangent_distance_kernel(X[:3], gamma=0.0)
    with pytest.raises(ValueError, match="symmetrize"):
        tangent_distance_kernel(X[:3], symmetrize="max")
    with pytest.raises(ValueError, match="sigma"):
        tangent_vectors(X[:3], sigma=-1.0)
    # a blank image has no tangent plane: plain Euclidean distance, no NaN
    Z = np.vstack([np.zeros(256), X[0]])
    D = one_sided_tangent_distance(Z)
    assert D[0, 1] == pytest.approx(np.linalg.norm(X[0]))
