"""Tests for krein.geometry: pseudo-Euclidean embedding (Haasdonk 2005, Prop. 1, eqs. 1-3),
out-of-sample embedding, w'Mw from dual coefficients, and Haasdonk's suitability criteria
before (§7.3) and after (§7.4) SVM training.

References: the centered kernel ``J K J`` and its eigenvalues from a separate
``numpy.linalg.eigvalsh``, ``scipy.spatial.distance.cdist`` for Euclidean points,
Sylvester's law of inertia for designed low-rank kernels, class means computed
directly from embedded coordinates or from the raw feature vectors, bilinear kernels
whose embedding is known in closed form, the compression of K to 1-perp
(``scipy.linalg.null_space``) for cpd-ness, libsvm's own predictions, and Haasdonk's
Table 1 (cat-cortex-A).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space
from scipy.spatial.distance import cdist
from sklearn.svm import SVC

from krein.geometry import (
    PseudoEuclideanEmbedding,
    class_mean_distance,
    pe_squared_norm,
    pseudo_euclidean_embedding,
    squared_distances_from_kernel,
    suitability_after,
    suitability_before,
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


# ----------------------------------------------------------------- eq. 3: k = Phi'M Phi + h + h


def bilinear_kernel(signs):
    """``k(x, x') = sum_r s_r x_r x'_r``: the identity embeds it in R^(p,q) (Haasdonk §5)."""
    s = np.asarray(signs, dtype=float)
    return lambda A, B: (A * s) @ B.T


@HSETTINGS
@given(inertia_cases())
def test_eq3_kernel_is_reproduced_with_h(case):
    n, p, q, seed = case
    K = low_rank_indefinite(n, [1] * p + [-1] * q, seed)
    emb = pseudo_euclidean_embedding(K)
    scale = max(1.0, np.abs(K).max())
    # independent reading of h: R = K - Phi M Phi' must be h 1' + 1 h' with h = diag(R) / 2
    R = K - emb.inner()
    h = np.diag(R) / 2
    np.testing.assert_allclose(R, h[:, None] + h[None, :], atol=1e-9 * scale)
    np.testing.assert_allclose(emb.h, h, atol=1e-9 * scale)
    np.testing.assert_allclose(emb.kernel(), K, atol=1e-9 * scale)


@HSETTINGS
@given(inertia_cases())
def test_eq3_kernel_given_only_through_its_distances(case):
    n, p, q, seed = case
    K = low_rank_indefinite(n, [1] * p + [-1] * q, seed)
    D2 = squared_distances_from_kernel(K)
    scale = max(1.0, np.abs(K).max())
    emb = pseudo_euclidean_embedding(D2=D2, kernel_diagonal=np.diag(K))
    # eq. 2: the distances are reproduced; eq. 3: with h' = k(x, x)/2 the kernel is
    np.testing.assert_allclose(emb.squared_distances(), D2, atol=1e-9 * scale)
    np.testing.assert_allclose(emb.kernel(), K, atol=1e-9 * scale)
    np.testing.assert_allclose(emb.h, pseudo_euclidean_embedding(K).h, atol=1e-9 * scale)
    # without the diagonal: h' = 0, the kernel -d2/2 of Haasdonk §7.1
    emb0 = pseudo_euclidean_embedding(D2=D2)
    np.testing.assert_allclose(emb0.kernel(), -0.5 * D2, atol=1e-9 * scale)
    np.testing.assert_allclose(emb0.inner(), emb.inner(), atol=1e-9 * scale)


@pytest.mark.parametrize("signs, expected", [
    ([1, -1], (1, 1)),       # k = x1 x1' - x2 x2' (Haasdonk §5, Fig. 2)
    ([1, 1, -1], (2, 1)),
    ([-1, -1], (0, 2)),      # a negated linear kernel
    ([1, -1, -1, -1], (1, 3)),
])
def test_signature_and_out_of_sample_of_bilinear_kernels(signs, expected):
    rng = np.random.default_rng(len(signs) + sum(signs))
    k = bilinear_kernel(signs)
    X, Z = rng.normal(size=(15, len(signs))) + 0.7, rng.normal(size=(5, len(signs)))
    K = k(X, X)
    emb = pseudo_euclidean_embedding(K)
    assert emb.signature == expected
    # training rows map to the training coordinates
    np.testing.assert_allclose(emb.transform(K), emb.coordinates, atol=1e-10)
    np.testing.assert_allclose(emb.offsets(K), emb.h, atol=1e-10)
    # new points: the finite-rank kernel is reproduced by eq. 3, also between two new points
    Phi_z, h_z = emb.transform(k(Z, X)), emb.offsets(k(Z, X))
    np.testing.assert_allclose(emb.inner(Phi_z, emb.coordinates) + h_z[:, None] + emb.h[None, :],
                               k(Z, X), atol=1e-10)
    np.testing.assert_allclose(emb.inner(Phi_z) + h_z[:, None] + h_z[None, :], k(Z, Z), atol=1e-10)
    # the embedding is the centered identity map up to a pE isometry: same pE distances
    diff = Z[:, None, :] - X[None, :, :]
    d2 = np.einsum("mnd,d,mnd->mn", diff, np.asarray(signs, float), diff)
    G = emb.inner(Phi_z, emb.coordinates)
    got = np.diag(emb.inner(Phi_z))[:, None] + np.diag(emb.inner())[None, :] - 2 * G
    np.testing.assert_allclose(got, d2, atol=1e-9)


def test_out_of_sample_from_distances_matches_euclidean_points():
    # Gower's map: new points given by squared distances land at their true distances
    rng = np.random.default_rng(8)
    P, Q = rng.normal(size=(12, 3)), rng.normal(size=(4, 3))
    emb = pseudo_euclidean_embedding(D2=cdist(P, P, "sqeuclidean"))
    Zq = emb.transform(cdist(Q, P, "sqeuclidean"))
    assert emb.signature == (3, 0)
    np.testing.assert_allclose(cdist(Zq, emb.coordinates, "sqeuclidean"), cdist(Q, P, "sqeuclidean"),
                               atol=1e-9)
    np.testing.assert_allclose(cdist(Zq, Zq, "sqeuclidean"), cdist(Q, Q, "sqeuclidean"), atol=1e-9)
    # with the linear kernel's diagonal, h reproduces <q, p> (eq. 3 for a new point)
    embd = pseudo_euclidean_embedding(D2=cdist(P, P, "sqeuclidean"), kernel_diagonal=np.sum(P**2, 1))
    h_q = embd.offsets(cdist(Q, P, "sqeuclidean"), kernel_diagonal=np.sum(Q**2, 1))
    np.testing.assert_allclose(embd.inner(Zq, embd.coordinates) + h_q[:, None] + embd.h[None, :],
                               Q @ P.T, atol=1e-9)


def test_out_of_sample_bad_input():
    rng = np.random.default_rng(9)
    P = rng.normal(size=(6, 2))
    emb_k = pseudo_euclidean_embedding(P @ P.T)
    emb_d = pseudo_euclidean_embedding(D2=cdist(P, P, "sqeuclidean"), kernel_diagonal=np.sum(P**2, 1))
    with pytest.raises(ValueError, match="columns"):
        emb_k.transform(np.ones((2, 5)))
    with pytest.raises(ValueError, match="NaN"):
        emb_k.transform(np.full((2, 6), np.nan))
    with pytest.raises(ValueError, match="kernel_diagonal is only"):
        emb_k.offsets(np.ones((2, 6)), kernel_diagonal=np.ones(2))
    with pytest.raises(ValueError, match="kernel_diagonal .* is required"):
        emb_d.offsets(np.ones((2, 6)))
    with pytest.raises(ValueError, match=r"kernel_diagonal must have shape \(2,\)"):
        emb_d.offsets(np.ones((2, 6)), kernel_diagonal=np.ones(3))
    with pytest.raises(ValueError, match="kernel_diagonal is only for D2"):
        pseudo_euclidean_embedding(P @ P.T, kernel_diagonal=np.ones(6))
    with pytest.raises(ValueError, match=r"kernel_diagonal must have shape \(6,\)"):
        pseudo_euclidean_embedding(D2=cdist(P, P, "sqeuclidean"), kernel_diagonal=np.ones(5))
    by_hand = PseudoEuclideanEmbedding(np.ones((1, 1)), p=1, q=0, eigenvalues=np.ones(1))
    with pytest.raises(ValueError, match="pseudo_euclidean_embedding"):
        by_hand.transform(np.ones((1, 1)))
    with pytest.raises(ValueError, match="pseudo_euclidean_embedding"):
        by_hand.kernel()


# ----------------------------------------------------------------- w'Mw from coefficients


@HSETTINGS
@given(inertia_cases(), st.integers(0, 2**32 - 1))
def test_pe_squared_norm_equals_embedded_computation(case, coef_seed):
    n, p, q, seed = case
    K = low_rank_indefinite(n, [1] * p + [-1] * q, seed)
    emb = pseudo_euclidean_embedding(K)
    M = emb.reflection
    rng = np.random.default_rng(coef_seed)
    c = rng.normal(size=n)  # sum c != 0 in general
    w = emb.coordinates.T @ c
    scale = max(1.0, np.abs(K).max()) * max(1.0, np.sum(np.abs(c)) ** 2)
    assert pe_squared_norm(K, c) == pytest.approx(w @ M @ w, abs=1e-9 * scale)
    # eq. 3 path: c'Kc - 2 (1'c)(h'c)
    assert pe_squared_norm(K, c) == pytest.approx(c @ K @ c - 2 * c.sum() * (emb.h @ c), abs=1e-9 * scale)
    assert pe_squared_norm(None, c, D2=squared_distances_from_kernel(K)) == pytest.approx(
        w @ M @ w, abs=1e-9 * scale)
    # SVM-like coefficients (sum c = 0): Haasdonk's c'Kc
    c0 = c - c.mean()
    w0 = emb.coordinates.T @ c0
    assert pe_squared_norm(K, c0) == pytest.approx(c0 @ K @ c0, abs=1e-9 * scale)
    assert pe_squared_norm(K, c0) == pytest.approx(w0 @ M @ w0, abs=1e-9 * scale)


def test_pe_squared_norm_bad_input():
    with pytest.raises(ValueError, match="exactly one of K"):
        pe_squared_norm(None, np.ones(3))
    with pytest.raises(ValueError, match=r"c must have shape \(3,\)"):
        pe_squared_norm(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match="c contains NaN"):
        pe_squared_norm(np.eye(3), np.array([1.0, np.nan, 0.0]))


# ----------------------------------------------------------------- criteria before training


def cpd_by_compression(K):
    """Eigenvalues of ``B' K B`` with ``B`` an orthonormal basis of ``1-perp`` (scipy null_space)."""
    B = null_space(np.ones((1, K.shape[0])))
    return np.linalg.eigvalsh(B.T @ K @ B)


def _points(seed, n=25, d=3):
    return np.random.default_rng(seed).normal(size=(n, d))


CPD_CASES = {
    # name: (kernel matrix, cpd, negated cpd)
    "gaussian (PD)": (lambda P: gaussian_kernel(P, gamma=0.5), True, False),
    "-||x-x'||^2 (cpd, not PD)": (lambda P: -cdist(P, P, "sqeuclidean"), True, False),
    "||x-x'||^2 (negated cpd)": (lambda P: cdist(P, P, "sqeuclidean"), False, True),
    "-<x,x'> (negated cpd)": (lambda P: -P @ P.T, False, True),
    "-gaussian (negated cpd)": (lambda P: -gaussian_kernel(P, gamma=0.5), False, True),
    "sigmoid a=1 r=-1 (neither)": (lambda P: sigmoid_kernel(P, a=1.0, r=-1.0), False, False),
}


@pytest.mark.parametrize("name", list(CPD_CASES))
def test_cpd_and_negated_cpd_on_known_kernels(name):
    make, cpd, negated = CPD_CASES[name]
    P = _points(10)
    K = make(P)
    y = np.r_[np.zeros(12, int), np.ones(13, int)]
    res = suitability_before(K, y)
    assert (res["cpd"], res["negated_cpd"]) == (cpd, negated)
    # independent check: the compression of K to 1-perp (same test as the definition, §3.1)
    mu = cpd_by_compression(K)
    thr = 1e-9 * max(1.0, np.abs(mu).max())
    assert (bool(np.all(mu >= -thr)), bool(np.all(mu <= thr))) == (cpd, negated)
    assert (res["p"], res["q"]) == (int(np.sum(mu > thr)), int(np.sum(mu < -thr)))
    # Cauchy interlacing: the compression loses at most one negative eigenvalue of K
    assert res["q_kernel"] - res["q"] in (0, 1)
    assert res["z"] == 25 - res["p"] - res["q"] >= 1
    assert res["dcm"] == pytest.approx(class_mean_distance(K, y), rel=1e-12, abs=1e-14)
    if negated:
        assert res["unsuitable"] and res["dcm"] <= 1e-12
    lam = np.linalg.eigvalsh(centered(K))
    lam = lam[np.abs(lam) > thr]
    assert res["negative_share"] == pytest.approx(-lam[lam < 0].sum() / np.abs(lam).sum(), abs=1e-10)
    assert (res["negative_share"] == 0) == cpd


def test_negated_cpd_kernel_gives_nonpositive_wMw_for_any_labels():
    # Haasdonk §7.3: -k cpd -> w'Mw <= 0 independently of the y_i and alpha_i
    P = _points(11, n=20)
    K = cdist(P, P, "sqeuclidean")
    assert suitability_before(K)["negated_cpd"]
    rng = np.random.default_rng(0)
    for _ in range(3):
        y = rng.permutation(np.r_[np.zeros(10, int), np.ones(10, int)])
        m = SVC(kernel="precomputed", C=1.0).fit(K, y)
        res = suitability_after(K, y, m.dual_coef_, m.support_, m.intercept_, 1.0)
        assert res["wMw"] <= 1e-9 * np.abs(K).max() and not res["wMw_positive"]


def test_suitability_before_without_labels_and_bad_input():
    K = sigmoid_kernel(_points(12, n=10), a=1.0, r=-1.0)
    res = suitability_before(K)
    assert res["dcm"] is None and res["n_plus"] is None and res["unsuitable"] is False
    with pytest.raises(ValueError, match="y must have shape"):
        suitability_before(K, [0, 1])
    with pytest.raises(ValueError, match="2 classes"):
        suitability_before(K, np.zeros(10))
    with pytest.raises(ValueError, match="tol"):
        suitability_before(K, tol=-1.0)


# ----------------------------------------------------------------- criteria after training


def _float32_slack(K, res):
    """libsvm caches the kernel in float32: ``y f`` is off by up to ~2^-24 max|K| sum(alpha)."""
    return 4 * 2.0**-24 * np.abs(K).max() * res["sum_alpha"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [0.3, 10.0])
def test_bounded_support_vectors_bound_the_training_error(seed, C):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=40) > 0, "b", "a")
    K = sigmoid_kernel(X, a=1.0, r=-1.0)
    assert suitability_before(K, y)["q"] > 5  # clearly indefinite
    tol = 1e-6
    m = SVC(kernel="precomputed", C=C, tol=tol).fit(K, y)
    res = suitability_after(K, y, m.dual_coef_, m.support_, m.intercept_, C)
    # a stationary point of SVM-DU (the premise of Prop. 2)
    assert res["kkt_violation"] <= tol + _float32_slack(K, res)
    # decision values against libsvm's own prediction path
    np.testing.assert_allclose(res["decision"], m.decision_function(K), atol=1e-8)
    errors = int(np.sum(m.predict(K) != y))
    assert res["n_errors"] == errors
    assert res["n_errors_unbounded"] == 0
    assert errors <= res["n_bounded"] and res["bound_holds"]
    assert res["bounded_share"] == pytest.approx(res["n_bounded"] / 40)
    assert res["n_support"] == m.support_.size
    assert abs(res["sum_dual_coef"]) < 1e-10 * C


@pytest.mark.parametrize("seed", range(3))
def test_wMw_from_dual_coefficients_and_prop2_in_the_embedding(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 1] > 0.2 * rng.normal(size=30), 1, -1)
    K = sigmoid_kernel(X, a=1.5, r=-0.5)
    C = 5.0
    m = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    res = suitability_after(K, y, m.dual_coef_, m.support_, m.intercept_, C)
    emb = pseudo_euclidean_embedding(K)
    Phi, M = emb.coordinates, emb.reflection
    c = np.zeros(30)
    c[m.support_] = m.dual_coef_[0]
    alpha = y * c
    w = Phi.T @ c  # w = sum alpha_i y_i Phi(x_i)
    assert res["wMw"] == pytest.approx(w @ M @ w, rel=1e-8, abs=1e-10)
    # the CH normal z+ - z- with alpha_bar = 2 alpha / sum alpha (Prop. 3, §7.4)
    ab = 2 * alpha / alpha.sum()
    assert ab[y > 0].sum() == pytest.approx(1.0) and ab[y < 0].sum() == pytest.approx(1.0)
    z = Phi[y > 0].T @ ab[y > 0] - Phi[y < 0].T @ ab[y < 0]
    assert res["wMw_ch"] == pytest.approx(z @ M @ z, rel=1e-8, abs=1e-12)
    assert res["mu"] == pytest.approx(2 * C / alpha.sum())
    # Prop. 2: f(x_i) = w'M Phi(x_i) + b_pE with b_pE = b + c'h (eq. 3), and
    # b_pE = -1/2 w'M (Phi(x_k) + Phi(x_l)) for free SVs k, l of opposite classes
    b_pe = m.intercept_[0] + c @ emb.h
    np.testing.assert_allclose(res["decision"], Phi @ M @ w + b_pe, atol=1e-8)
    free = (alpha > 1e-8 * C) & (alpha < C * (1 - 1e-8))
    k, l = np.flatnonzero(free & (y > 0))[0], np.flatnonzero(free & (y < 0))[0]
    assert b_pe == pytest.approx(-0.5 * w @ M @ (Phi[k] + Phi[l]), abs=1e-6 + _float32_slack(K, res))


def test_ch_norm_is_bounded_by_dcm_for_a_pd_kernel():
    # PD kernel: SVM-DU is convex, libsvm finds the global optimum; the class means lie in
    # the reduced hulls (mu >= 1/n_+-), so w'Mw of the CH normal <= DCM (§7.3)
    rng = np.random.default_rng(12)
    X = rng.normal(size=(36, 2))
    y = (X[:, 0] + 0.8 * rng.normal(size=36) > 0).astype(int)
    K = gaussian_kernel(X, gamma=0.3)
    dcm = suitability_before(K, y)["dcm"]
    for C in [0.05, 1.0, 100.0]:
        m = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
        res = suitability_after(K, y, m.dual_coef_, m.support_, m.intercept_, C)
        assert res["mu"] >= 1 / min(np.bincount(y)) - 1e-12
        assert 0 < res["wMw_ch"] <= dcm + 1e-6
        assert res["margin"] == pytest.approx(2 / np.sqrt(res["wMw"]))


def test_haasdonk_table1_cat_cortex_A():
    # Haasdonk (2005) Table 1, row cat-cortex-A: (p, q) = (41, 23), DCM 0.0089, w'Mw 0.0003,
    # 17 SVs, 7 bounded SVs; K = exp(-gamma D^2), one-vs-rest.  gamma = 1e-3 and C = 100
    # (the paper's grid values are not stated; these reproduce all five numbers).
    from krein.datasets import load_dissimilarity

    D, labels = load_dissimilarity("catcortex")
    y = (labels == 1).astype(int)  # class 1: the 10 auditory areas
    K = np.exp(-1e-3 * D**2)
    before = suitability_before(K, y)
    assert (before["p"], before["q"]) == (41, 23)
    assert round(before["dcm"], 4) == 0.0089
    m = SVC(kernel="precomputed", C=100.0).fit(K, y)
    after = suitability_after(K, y, m.dual_coef_, m.support_, m.intercept_, 100.0)
    assert round(after["wMw_ch"], 4) == 0.0003
    assert (after["n_support"], after["n_bounded"]) == (17, 7)
    assert after["wMw_ch"] <= before["dcm"]


def test_suitability_after_bad_input():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(12, 2))
    y = np.r_[np.zeros(6, int), np.ones(6, int)]
    K = gaussian_kernel(X, gamma=1.0)
    m = SVC(kernel="precomputed", C=1.0).fit(K, y)
    args = (K, y, m.dual_coef_, m.support_, m.intercept_)
    assert suitability_after(*args, 1.0)["n"] == 12
    with pytest.raises(ValueError, match="C must be a positive"):
        suitability_after(*args, 0.0)
    with pytest.raises(ValueError, match=r"alpha = y \* dual_coef must lie in \[0, C"):
        suitability_after(K, y, -m.dual_coef_, m.support_, m.intercept_, 1.0)
    with pytest.raises(ValueError, match=r"alpha = y \* dual_coef must lie in \[0, C"):
        suitability_after(*args, 0.5 * np.abs(m.dual_coef_).max())
    with pytest.raises(ValueError, match="support must be integer indices"):
        suitability_after(K, y, m.dual_coef_, m.support_[:-1], m.intercept_, 1.0)
    with pytest.raises(ValueError, match="distinct indices"):
        suitability_after(K, y, m.dual_coef_[:, :2], np.array([0, 0]), m.intercept_, 1.0)
    with pytest.raises(ValueError, match="distinct indices"):
        suitability_after(K, y, m.dual_coef_[:, :1], np.array([12]), m.intercept_, 1.0)
    with pytest.raises(ValueError, match="intercept must be one finite number"):
        suitability_after(K, y, m.dual_coef_, m.support_, [0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="dual_coef must have shape"):
        suitability_after(K, y, np.ones((2, 2)), np.array([0, 1]), 0.0, 1.0)
    with pytest.raises(ValueError, match="y must have shape"):
        suitability_after(K, y[:-1], *args[2:], 1.0)
