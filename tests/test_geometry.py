"""Tests for krein.geometry: pseudo-Euclidean embedding (Haasdonk 2005, Prop. 1 and
eq. 1) and the class-mean squared distance (Haasdonk §7.3).

References: the centered kernel ``J K J`` and its eigenvalues from a separate
``numpy.linalg.eigvalsh``, ``scipy.spatial.distance.cdist`` for Euclidean points,
Sylvester's law of inertia for designed low-rank kernels, and class means computed
directly from embedded coordinates or from the raw feature vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from krein.geometry import (
    PseudoEuclideanEmbedding,
    class_mean_distance,
    pseudo_euclidean_embedding,
    squared_distances_from_kernel,
)
from krein.kernels import gaussian_kernel, sigmoid_kernel

HSETTINGS = settings(max_examples=25, deadline=None)


def centered(K):
    n = K.shape[0]
    J = np.eye(n) - np.ones((n, n)) / n
    return J @ K @ J


def low_rank_indefinite(n, signs, seed):
    """``K = Y diag(s) Y' + (a 1' + 1 a')`` with ``J Y = Y`` orthonormal.

    ``J K J = Y diag(s) Y'``: its non-zero eigenvalues are exactly ``s`` (|s| in
    [1, 2]), so the signature is (#s>0, #s<0) (Sylvester's law of inertia); the
    rank-2 part is killed by J.  ``a`` is kept small so that J K J is not
    dominated by round-off from K (see test_embedding_signature_ignores_round_off).
    """
    rng = np.random.default_rng(seed)
    n_comp = len(signs)
    G = rng.normal(size=(n, n_comp))
    Y, _ = np.linalg.qr(G - G.mean(axis=0))
    s = np.asarray(signs, dtype=float) * rng.uniform(1.0, 2.0, size=n_comp)
    a = 0.1 * rng.normal(size=n)
    K = (Y * s) @ Y.T + a[:, None] + a[None, :]
    return 0.5 * (K + K.T)


@st.composite
def inertia_cases(draw):
    p = draw(st.integers(0, 4))
    q = draw(st.integers(0 if p else 1, 4))  # p = q = 0: see test_embedding_signature_ignores_round_off
    n = draw(st.integers(p + q + 2, 14))
    seed = draw(st.integers(0, 2**32 - 1))
    return n, p, q, seed


# ----------------------------------------------------------------- embedding of a kernel


@HSETTINGS
@given(inertia_cases())
def test_embedding_inner_products_distances_and_signature(case):
    n, p, q, seed = case
    K = low_rank_indefinite(n, [1] * p + [-1] * q, seed)
    emb = pseudo_euclidean_embedding(K)
    X = emb.coordinates
    M = np.diag(np.r_[np.ones(emb.p), -np.ones(emb.q)])
    scale = max(1.0, np.abs(K).max())
    # X M X' = J K J
    np.testing.assert_allclose(X @ M @ X.T, centered(K), atol=1e-9 * scale)
    np.testing.assert_allclose(emb.inner(), centered(K), atol=1e-9 * scale)
    np.testing.assert_allclose(emb.reflection, M)
    # pE squared distances = Haasdonk eq. 1, written out by hand
    D2 = np.array([[K[i, i] + K[j, j] - 2 * K[i, j] for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(squared_distances_from_kernel(K), D2, atol=1e-12 * scale)
    np.testing.assert_allclose(emb.squared_distances(), D2, atol=1e-9 * scale)
    # signature: Sylvester's law of inertia, and counts of eigenvalues of J K J
    assert emb.signature == (p, q)
    lam = np.linalg.eigvalsh(centered(K))
    thr = 1e-9 * np.abs(lam).max() if np.any(lam) else 0.0
    assert (emb.p, emb.q) == (int(np.sum(lam > thr)), int(np.sum(lam < -thr)))
    assert X.shape == (n, p + q)
    assert emb.eigenvalues.shape == (p + q,)
    assert np.all(emb.eigenvalues[: emb.p] > 0) and np.all(emb.eigenvalues[emb.p :] < 0)


def _rank_one_negative():
    """``K = -0.01 v v' + a 1' + 1 a'`` with ``v`` centered: ``J K J = -0.01 v v'`` exactly.

    ``||K|| ~ 600 ||J K J||``: the round-off of the computed J K J (~1e-15) exceeds the
    default tolerance ``3 * eps * 0.01 ~ 7e-18`` taken relative to J K J itself.
    """
    v = np.array([1.0, -2.0, 1.0]) / np.sqrt(6.0)
    a = np.array([1.0, 2.0, 3.0])
    return -0.01 * np.outer(v, v) + a[:, None] + a[None, :]


@pytest.mark.parametrize("K, expected", [(_rank_one_negative(), (0, 1))], ids=["rank-one-negative"])
def test_embedding_signature_ignores_round_off(K, expected):
    lam = np.linalg.eigvalsh(centered(K))
    # independent check of the expected signature, with a tolerance relative to K
    thr = 1e-12 * np.abs(K).max()
    assert (int(np.sum(lam > thr)), int(np.sum(lam < -thr))) == expected
    emb = pseudo_euclidean_embedding(K)
    assert emb.signature == expected


def test_embedding_of_random_symmetric_matrix_has_rank_n_minus_1():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(12, 12))
    K = A + A.T
    emb = pseudo_euclidean_embedding(K)
    lam = np.linalg.eigvalsh(centered(K))
    thr = 1e-9 * np.abs(lam).max()
    assert emb.p + emb.q == 11  # J kills exactly the constant vector
    assert (emb.p, emb.q) == (int(np.sum(lam > thr)), int(np.sum(lam < -thr)))
    assert emb.p > 0 and emb.q > 0
    np.testing.assert_allclose(emb.inner(), centered(K), atol=1e-10)
    np.testing.assert_allclose(np.sort(emb.eigenvalues), lam[np.abs(lam) > thr], atol=1e-10)


def test_embedding_of_sigmoid_kernel():
    rng = np.random.default_rng(1)
    K = sigmoid_kernel(rng.normal(size=(20, 3)), a=1.0, r=-1.0)
    emb = pseudo_euclidean_embedding(K)
    assert emb.q > 0
    np.testing.assert_allclose(emb.inner(), centered(K), atol=1e-9)
    np.testing.assert_allclose(emb.squared_distances(), squared_distances_from_kernel(K), atol=1e-9)
    # the coordinates are centered (J K J has the constant vector in its null space)
    np.testing.assert_allclose(emb.coordinates.mean(axis=0), 0, atol=1e-9)


def test_embedding_inner_with_new_points():
    emb = PseudoEuclideanEmbedding(np.array([[1.0, 2.0, 3.0]]), p=2, q=1, eigenvalues=np.array([1.0, 1.0, -1.0]))
    A = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
    B = np.array([[3.0, 1.0, 1.0]])
    np.testing.assert_allclose(emb.inner(A, B), [[3 - 2], [1 - 1]])
    np.testing.assert_allclose(emb.inner(), [[1 + 4 - 9]])


# ----------------------------------------------------------------- embedding of distances


def test_embedding_from_euclidean_distances():
    rng = np.random.default_rng(2)
    P = rng.normal(size=(10, 3))
    D2 = cdist(P, P, "sqeuclidean")
    emb = pseudo_euclidean_embedding(D2=D2)
    assert emb.q == 0
    assert emb.p == 3
    np.testing.assert_allclose(emb.squared_distances(), D2, atol=1e-10)
    # the coordinates are the centered points up to a rotation: same Gram matrix
    Pc = P - P.mean(axis=0)
    np.testing.assert_allclose(emb.inner(), Pc @ Pc.T, atol=1e-10)
    np.testing.assert_allclose(cdist(emb.coordinates, emb.coordinates, "sqeuclidean"), D2, atol=1e-10)


def test_embedding_from_non_euclidean_distances():
    # l1 distances squared are not Euclidean in general: q > 0, still reproduced exactly
    rng = np.random.default_rng(3)
    P = rng.normal(size=(12, 4))
    D2 = cdist(P, P, "cityblock") ** 2
    emb = pseudo_euclidean_embedding(D2=D2)
    lam = np.linalg.eigvalsh(-0.5 * centered(D2))
    thr = 1e-9 * np.abs(lam).max()
    assert (emb.p, emb.q) == (int(np.sum(lam > thr)), int(np.sum(lam < -thr)))
    assert emb.q > 0
    np.testing.assert_allclose(emb.squared_distances(), D2, atol=1e-9)


def test_embedding_from_kernel_and_from_its_distances_agree():
    rng = np.random.default_rng(4)
    K = gaussian_kernel(rng.normal(size=(11, 2)), gamma=1.0, metric="l1")
    a = pseudo_euclidean_embedding(K)
    b = pseudo_euclidean_embedding(D2=squared_distances_from_kernel(K))
    assert a.signature == b.signature
    np.testing.assert_allclose(a.inner(), b.inner(), atol=1e-10)


def test_embedding_bad_input():
    rng = np.random.default_rng(5)
    P = rng.normal(size=(6, 2))
    D2 = cdist(P, P, "sqeuclidean")
    K = P @ P.T
    with pytest.raises(ValueError, match="exactly one of K"):
        pseudo_euclidean_embedding()
    with pytest.raises(ValueError, match="exactly one of K"):
        pseudo_euclidean_embedding(K, D2=D2)
    with pytest.raises(ValueError, match="zero diagonal"):
        pseudo_euclidean_embedding(D2=D2 + np.eye(6))
    with pytest.raises(ValueError, match="D2"):
        pseudo_euclidean_embedding(D2=D2[:, :5])
    bad = K.copy()
    bad[0, 1] += 1.0
    with pytest.raises(ValueError, match="K is not symmetric"):
        pseudo_euclidean_embedding(bad)
    with pytest.raises(ValueError, match="K contains NaN"):
        pseudo_euclidean_embedding(np.where(K > 0.5, np.nan, K))


def test_squared_distances_from_kernel_linear_is_euclidean():
    rng = np.random.default_rng(6)
    P = rng.normal(size=(8, 3))
    np.testing.assert_allclose(squared_distances_from_kernel(P @ P.T), cdist(P, P, "sqeuclidean"), atol=1e-12)


def test_squared_distances_from_kernel_can_be_negative():
    K = np.array([[0.0, 1.0], [1.0, 0.0]])  # d2 = 0 + 0 - 2 = -2
    np.testing.assert_allclose(squared_distances_from_kernel(K), [[0.0, -2.0], [-2.0, 0.0]])


# ----------------------------------------------------------------- class mean distance


@HSETTINGS
@given(inertia_cases(), st.integers(0, 2**32 - 1))
def test_class_mean_distance_equals_embedding_means(case, label_seed):
    n, p, q, seed = case
    K = low_rank_indefinite(n, [1] * p + [-1] * q, seed)
    rng = np.random.default_rng(label_seed)
    y = rng.permutation(np.r_[np.ones(1 + (n - 2) // 2), -np.ones(n - 1 - (n - 2) // 2)])
    emb = pseudo_euclidean_embedding(K)
    X = emb.coordinates
    diff = X[y > 0].mean(axis=0) - X[y < 0].mean(axis=0)
    expected = float(emb.inner(diff[None, :])[0, 0])  # ||mean+ - mean-||^2_pE
    scale = max(1.0, np.abs(K).max())
    assert class_mean_distance(K, y) == pytest.approx(expected, abs=1e-9 * scale)
    # symmetric in the labels, and label values do not matter
    assert class_mean_distance(K, -y) == pytest.approx(expected, abs=1e-9 * scale)
    assert class_mean_distance(K, np.where(y > 0, "b", "a")) == pytest.approx(expected, abs=1e-9 * scale)


def test_class_mean_distance_linear_kernel_is_euclidean():
    rng = np.random.default_rng(7)
    P = rng.normal(size=(15, 3))
    y = np.r_[np.zeros(6, int), np.ones(9, int)]
    P[y == 1] += 1.5
    expected = np.sum((P[y == 1].mean(axis=0) - P[y == 0].mean(axis=0)) ** 2)
    assert class_mean_distance(P @ P.T, y) == pytest.approx(expected, rel=1e-10)


def test_class_mean_distance_can_be_negative():
    # one point per class with d2 = -2 (see test above): the class means are the points
    K = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert class_mean_distance(K, [0, 1]) == pytest.approx(-2.0)


def test_class_mean_distance_bad_input():
    K = np.eye(4)
    with pytest.raises(ValueError, match="y must have shape"):
        class_mean_distance(K, [0, 1, 0])
    with pytest.raises(ValueError, match="2 classes"):
        class_mean_distance(K, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="2 classes"):
        class_mean_distance(K, [0, 1, 2, 1])
    with pytest.raises(ValueError, match="square"):
        class_mean_distance(np.ones((4, 3)), [0, 1, 0, 1])
