"""PseudoEuclideanPCA and pe-knn, checked independently of themselves.

* numpy's ``eigh`` of ``J K J`` (or ``K``) computed here: the eigenvalues, ``|coordinates|``
  column by column and the reproduced kernel ``Z M Z'`` (invariants; the sign of an
  eigenvector is LAPACK's choice and is never compared);
* :mod:`krein.geometry` (the embedding the transformer builds on);
* the out-of-sample map on training rows (their training coordinates) and on test rows
  (the centered kernel rows, reproduced by ``z(x) M Z'``);
* pe-knn against a brute-force numpy computation of the embedding, the indefinite squared
  distances and the vote;
* a Pipeline with scikit-learn's ``LinearSVC`` under ``GridSearchCV`` on a precomputed kernel.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

import krein
from krein import PseudoEuclideanKNeighbors, PseudoEuclideanPCA
from krein.estimators import KernelKNeighborsClassifier
from krein.geometry import pseudo_euclidean_embedding
from krein.kernels import sigmoid_kernel

SIG = {"a": 0.5, "r": -1.0}


@pytest.fixture(scope="module")
def data():
    """40 training and 25 test points in R^4, sigmoid kernel (indefinite), two classes."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(65, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=65) > 0).astype(int)
    K_all = sigmoid_kernel(X, **SIG)
    return {"X": X[:40], "Xt": X[40:], "y": y[:40], "yt": y[40:], "K": K_all[:40, :40],
            "Kt": K_all[40:, :40]}


def _numpy_embedding(K, center=True):
    """Reference: eigenvalues and coordinates of J K J (or K) by numpy, significant ones only."""
    n = K.shape[0]
    J = np.eye(n) - np.ones((n, n)) / n
    A = J @ K @ J if center else K
    lam, V = np.linalg.eigh(0.5 * (A + A.T))
    tol = 10 * n * np.finfo(float).eps * np.linalg.norm(K)
    sig = np.abs(lam) > tol
    return lam[sig], V[:, sig], A


def _largest(lam, energy=None, n_components=None):
    """Reference selection: the largest |lam| (by count or by share of sum |lam|)."""
    order = np.argsort(-np.abs(lam))
    if n_components is not None:
        return np.sort(order[:n_components])
    if energy is None:
        return np.sort(order)
    share = np.cumsum(np.abs(lam)[order]) / np.abs(lam).sum()
    return np.sort(order[:int(np.argmax(share >= energy)) + 1])


@pytest.mark.parametrize("center", [True, False])
def test_coordinates_against_numpy_eigh(data, center):
    K = data["K"]
    lam, V, A = _numpy_embedding(K, center)
    # no eigenvalue near the cutoff or repeated: every compared quantity is well defined
    assert np.min(np.abs(lam)) > 1e3 * 10 * 40 * np.finfo(float).eps * np.linalg.norm(K)
    assert np.min(np.diff(np.sort(lam))) > 1e-8 * np.abs(lam).max()
    pca = PseudoEuclideanPCA(kernel="precomputed", center=center)
    Z = pca.fit_transform(K)
    p, q = int(np.sum(lam > 0)), int(np.sum(lam < 0))
    assert pca.signature_ == (p, q) and p > 0 and q > 0 and Z.shape == (40, p + q)
    # column order: positive block decreasing, then negative block by decreasing |lam|
    expected = np.r_[np.sort(lam[lam > 0])[::-1], np.sort(lam[lam < 0])]
    np.testing.assert_allclose(pca.eigenvalues_, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(pca.signs_, np.sign(expected))
    ref = V * np.sqrt(np.abs(lam))
    ref = ref[:, [int(np.argmin(np.abs(lam - e))) for e in expected]]
    np.testing.assert_allclose(np.abs(Z), np.abs(ref), atol=1e-9)
    # the indefinite inner product of the coordinates reproduces the (centered) kernel
    np.testing.assert_allclose(pca.inner(Z), A, atol=1e-10)
    np.testing.assert_allclose((Z * pca.signs_) @ Z.T, A, atol=1e-10)


def test_selection_keeps_the_largest_absolute_eigenvalues(data):
    K = data["K"]
    lam, _, _ = _numpy_embedding(K)
    expected = np.r_[np.sort(lam[lam > 0])[::-1], np.sort(lam[lam < 0])]
    for kw in ({"n_components": 5}, {"energy": 0.9}, {"energy": 0.5}):
        pca = PseudoEuclideanPCA(kernel="precomputed", **kw).fit(K)
        keep = _largest(expected, **kw)
        np.testing.assert_allclose(pca.eigenvalues_, expected[keep], rtol=1e-10)
        assert pca.n_components_ == keep.size == pca.transform(K).shape[1]
        assert pca.signature_ == (int(np.sum(expected[keep] > 0)), int(np.sum(expected[keep] < 0)))
    # more components asked than there are: all significant ones
    assert PseudoEuclideanPCA(kernel="precomputed", n_components=500).fit(K).n_components_ == lam.size


def test_agrees_with_krein_geometry(data):
    K = data["K"]
    emb = pseudo_euclidean_embedding(K)
    pca = PseudoEuclideanPCA(kernel="precomputed")
    Z = pca.fit_transform(K)
    np.testing.assert_allclose(Z, emb.coordinates, atol=1e-12)
    assert pca.signature_ == emb.signature
    np.testing.assert_allclose(pca.transform(data["Kt"]), emb.transform(data["Kt"]), atol=1e-12)
    # truncated: the chosen columns of the full embedding, in its order
    pca5 = PseudoEuclideanPCA(kernel="precomputed", n_components=5).fit(K)
    cols = _largest(emb.eigenvalues, n_components=5)
    np.testing.assert_allclose(pca5.transform(K), emb.coordinates[:, cols], atol=1e-10)


@pytest.mark.parametrize("kw", [{}, {"center": False}, {"n_components": 4},
                                {"energy": 0.8, "center": False}])
def test_training_rows_map_to_their_training_coordinates(data, kw):
    pca = PseudoEuclideanPCA(kernel="precomputed", **kw)
    Z = pca.fit_transform(data["K"])
    np.testing.assert_allclose(pca.transform(data["K"]), Z, atol=1e-10)
    # the same through a named kernel on feature vectors
    named = PseudoEuclideanPCA(kernel="sigmoid", kernel_params=SIG, **kw)
    np.testing.assert_allclose(np.abs(named.fit_transform(data["X"])), np.abs(Z), atol=1e-10)
    np.testing.assert_allclose(named.transform(data["X"]), named.fit_transform(data["X"]),
                               atol=1e-10)


def test_out_of_sample_rows_reproduce_the_centered_kernel_rows(data):
    K, Kt = data["K"], data["Kt"]
    lam, _, _ = _numpy_embedding(K)
    assert lam.size == K.shape[0] - 1        # rank n - 1: every centered row is in the span
    pca = PseudoEuclideanPCA(kernel="precomputed")
    Z = pca.fit_transform(K)
    # centered rows, computed here: k(x, x_j) - mean_l k(x, x_l) - mean_l K_lj + mean(K)
    centered = Kt - Kt.mean(axis=1, keepdims=True) - K.mean(axis=0)[None, :] + K.mean()
    np.testing.assert_allclose(pca.inner(pca.transform(Kt), Z), centered, atol=1e-10)
    unc = PseudoEuclideanPCA(kernel="precomputed", center=False)
    Zu = unc.fit_transform(K)
    np.testing.assert_allclose(unc.inner(unc.transform(Kt), Zu), Kt, atol=1e-10)


def test_bad_input_and_nothing_half_fitted(data):
    K = data["K"]
    pca = PseudoEuclideanPCA(kernel="precomputed").fit(K)
    with pytest.raises(ValueError, match="at most one of n_components .* and energy"):
        pca.set_params(n_components=3, energy=0.9).fit(K)
    assert not hasattr(pca, "eigenvalues_") and not hasattr(pca, "embedding_")
    pca.set_params(energy=None).fit(K)
    with pytest.raises(ValueError, match="expecting 40 features"):
        pca.transform(data["Kt"][:, :-1])
    with pytest.raises(ValueError, match="symmetric"):
        PseudoEuclideanPCA(kernel="precomputed").fit(K + np.triu(np.ones_like(K), 1))
    with pytest.raises(ValueError):
        PseudoEuclideanPCA(kernel="precomputed", energy=1.5).fit(K)
    knn = PseudoEuclideanKNeighbors(kernel="precomputed", n_neighbors=3).fit(K, data["y"])
    with pytest.raises(ValueError, match="at most one of n_components .* and energy"):
        knn.set_params(n_components=2, energy=0.5).fit(K, data["y"])
    assert not hasattr(knn, "coordinates_") and not hasattr(knn, "classes_")


def test_pipeline_with_linear_svc_under_grid_search(data):
    """The signed coordinates feed a vector classifier; GridSearchCV slices the kernel."""
    K, Kt = data["K"], data["Kt"]
    pipe = Pipeline([("pe", PseudoEuclideanPCA(kernel="precomputed")),
                     ("svm", LinearSVC(C=1.0, random_state=0))])
    search = GridSearchCV(pipe, {"pe__n_components": [2, 5, None]}, cv=3).fit(K, data["y"])
    best = search.best_params_["pe__n_components"]
    # independent path: LinearSVC on coordinates computed with numpy's eigh.  Flipping the
    # sign of a feature leaves liblinear's dual (Z Z') and its iterates unchanged.
    lam, V, _ = _numpy_embedding(K)
    keep = _largest(lam, n_components=best)
    coef = V[:, keep] / np.sqrt(np.abs(lam[keep]))
    Z = V[:, keep] * np.sqrt(np.abs(lam[keep]))
    Kc_t = Kt - Kt.mean(axis=1, keepdims=True) - K.mean(axis=0)[None, :] + K.mean()
    Zt = Kc_t @ (coef * np.sign(lam[keep]))
    ref = LinearSVC(C=1.0, random_state=0).fit(Z, data["y"])
    np.testing.assert_allclose(search.decision_function(Kt), ref.decision_function(Zt), atol=1e-6)
    # and it learns: better than always predicting the majority class of the test set
    assert search.score(Kt, data["yt"]) > max(np.mean(data["yt"]), 1 - np.mean(data["yt"]))


def _brute_force_pe_knn(K, Kt, y, k, energy):
    """pe_knnc by hand: numpy embedding, selection, out-of-sample map, d2 = (z - z_j)'M(z - z_j)."""
    lam, V, _ = _numpy_embedding(K)
    keep = _largest(lam, energy=energy)
    lam, V = lam[keep], V[:, keep]
    s = np.sign(lam)
    Z = V * np.sqrt(np.abs(lam))
    Kc_t = Kt - Kt.mean(axis=1, keepdims=True) - K.mean(axis=0)[None, :] + K.mean()
    Zt = Kc_t @ (V * (s / np.sqrt(np.abs(lam))))
    D2 = np.array([[np.sum((zt - z) ** 2 * s) for z in Z] for zt in Zt])
    nearest = np.argsort(D2, axis=1)[:, :k]
    votes = np.stack([np.sum(y[nearest] == c, axis=1) for c in (0, 1)], axis=1)
    return D2, nearest, votes.argmax(axis=1)


@pytest.mark.parametrize("energy", [None, 0.9])
def test_pe_knn_against_brute_force(data, energy):
    K, Kt, y = data["K"], data["Kt"], data["y"]
    D2, nearest, pred = _brute_force_pe_knn(K, Kt, y, 3, energy)
    # no distance ties among the neighbours: the neighbour sets are well defined
    srt = np.sort(D2, axis=1)
    assert np.min(srt[:, 3] - srt[:, 2]) > 1e-8 * np.abs(D2).max()
    est = PseudoEuclideanKNeighbors(kernel="precomputed", n_neighbors=3, energy=energy).fit(K, y)
    np.testing.assert_allclose(est.squared_distances(Kt), D2, atol=1e-9)
    np.testing.assert_array_equal(est.predict(Kt), pred)
    lam, _, _ = _numpy_embedding(K)
    kept = lam[_largest(lam, energy=energy)]
    assert est.signature_ == (int(np.sum(kept > 0)), int(np.sum(kept < 0)))
    assert est.signature_[1] > 0        # the negative block takes part in the distances
    named = PseudoEuclideanKNeighbors(kernel="sigmoid", kernel_params=SIG, n_neighbors=3,
                                      energy=energy).fit(data["X"], y)
    np.testing.assert_array_equal(named.predict(data["Xt"]), pred)


def test_pe_knn_with_every_component_is_knn_and_differs_when_truncated(data):
    """The documented relation to "knn": same neighbours with all components (rank n - 1)."""
    K, Kt, y = data["K"], data["Kt"], data["y"]
    full = PseudoEuclideanKNeighbors(kernel="precomputed", n_neighbors=3).fit(K, y)
    knn = KernelKNeighborsClassifier(kernel="precomputed", n_neighbors=3).fit(K, y)
    _, ours = full._neighbours(Kt)
    _, theirs = knn._neighbours(Kt)
    np.testing.assert_array_equal(np.sort(ours, axis=1), np.sort(theirs, axis=1))
    # the kernel-induced d2 equals the embedding's up to a constant per test row
    d_knn = np.diag(K)[None, :] - 2 * Kt
    diff = full.squared_distances(Kt) - d_knn
    np.testing.assert_allclose(diff - diff[:, :1], 0.0, atol=1e-9)
    # a truncated embedding has other distances, hence (here) other neighbours
    trunc = PseudoEuclideanKNeighbors(kernel="precomputed", n_neighbors=3, energy=0.9).fit(K, y)
    _, cut = trunc._neighbours(Kt)
    assert not np.array_equal(np.sort(cut, axis=1), np.sort(ours, axis=1))


def test_pe_knn_is_registered_and_runs_from_the_registry(data):
    est = krein.make_method("pe-knn", kernel="precomputed")
    assert isinstance(est, PseudoEuclideanKNeighbors)
    assert "pe-knn" in krein.list_methods(compare=True)
    acc = np.mean(est.fit(data["K"], data["y"]).predict(data["Kt"]) == data["yt"])
    assert acc >= 0.7
