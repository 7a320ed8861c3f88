"""The pseudo-Euclidean toys of Haasdonk (2005), Figs. 1-3 and Lemma 4.

Each generator's documented property is checked with code that does not share it:
the signature from :func:`krein.geometry.pseudo_euclidean_embedding` (centered
eigendecomposition), squared distances from
:func:`krein.geometry.squared_distances_from_kernel`, the class-mean distance from
:func:`krein.geometry.class_mean_distance`, and the CH-DU solutions from the
multi-start solver, certified by their stationarity residuals and second-order test,
and mapped to SVM-DU by Prop. 3, case 2 with its own stationarity certificate.
"""

from __future__ import annotations

import numpy as np
import pytest

from krein.datasets import (make_pe_local_optima, make_pe_negative_means, make_pe_overlapping,
                            make_pe_separable, pseudo_euclidean_kernel)
from krein.estimators.hull import ConvexHullClassifier, hull_multistart
from krein.formulations.hull import (hull_local_minimality, hull_plane, hull_stationarity,
                                     hull_to_svm, svm_dual_stationarity)
from krein.geometry import (class_mean_distance, pseudo_euclidean_embedding,
                            squared_distances_from_kernel)


# ---------------------------------------------------------------------------- the kernel
def test_kernel_is_haasdonks_r11_kernel():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(7, 2)), rng.normal(size=(4, 2))
    K = pseudo_euclidean_kernel(X, Z)
    np.testing.assert_allclose(K, np.outer(X[:, 0], Z[:, 0]) - np.outer(X[:, 1], Z[:, 1]))
    np.testing.assert_allclose(pseudo_euclidean_kernel(X), pseudo_euclidean_kernel(X, X))


@pytest.mark.parametrize("p, q", [(1, 1), (1, 3), (2, 2), (3, 0), (0, 2)])
def test_kernel_signature(p, q):
    """Generic points in R^(p+q) give a centered kernel of signature (p, q) (Prop. 1)."""
    X = np.random.default_rng(p + 10 * q).normal(size=(12, p + q))
    emb = pseudo_euclidean_embedding(pseudo_euclidean_kernel(X, p=p, q=q))
    assert emb.signature == (p, q)
    # the embedding reproduces the pE squared distances of the raw points
    M = np.diag(np.r_[np.ones(p), -np.ones(q)])
    D = X[:, None, :] - X[None, :, :]
    np.testing.assert_allclose(emb.squared_distances(), np.einsum("ijk,kl,ijl->ij", D, M, D),
                               atol=1e-10)


def test_kernel_bad_input():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="p \\+ q must equal"):
        pseudo_euclidean_kernel(X, p=1, q=2)
    with pytest.raises(ValueError, match="p must be"):
        pseudo_euclidean_kernel(X, p=-1)
    with pytest.raises(ValueError, match="Z must be"):
        pseudo_euclidean_kernel(X, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        pseudo_euclidean_kernel(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="2-D"):
        pseudo_euclidean_kernel(np.zeros(3))


# ---------------------------------------------------------------------------- Figs. 1-2
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_separable_fig1a(seed):
    """Fig. 1a: disjoint hulls, every cross difference of positive squared norm; CH with
    ordinary hulls is unique (Lemma 5), w'Mw > 0, and separates the data."""
    X, y = make_pe_separable(20, random_state=seed)
    K = pseudo_euclidean_kernel(X)
    assert pseudo_euclidean_embedding(K).signature == (1, 1)
    D2 = squared_distances_from_kernel(K)
    assert D2[np.ix_(y > 0, y < 0)].min() > 0
    clf = ConvexHullClassifier(kernel=pseudo_euclidean_kernel, solver="multistart", n_starts=10,
                               random_state=seed).fit(X, y)
    assert len(clf.local_optima_) == 1 and clf.local_optima_.loc[0, "local_min"]
    assert clf.w_norm_pe_[0] > 0 and clf.score(X, y) == 1.0


def test_overlapping_fig1c_2c():
    """Figs. 1c / 2c: hulls overlap (w'Mw < 0 at mu = 1), class means at positive distance;
    at the smallest mu the hull points are the class means (w'Mw = DCM > 0)."""
    for seed in range(3):
        X, y = make_pe_overlapping(30, random_state=seed)
        K = pseudo_euclidean_kernel(X)
        yf = y.astype(float)
        dcm = class_mean_distance(K, y)
        assert dcm > 0
        sol, _ = hull_multistart(K, yf, 1.0, n_starts=5, random_state=seed)
        assert sol.objective < 0
        sol_min, _ = hull_multistart(K, yf, 1 / 15, n_starts=2, random_state=seed)
        assert sol_min.objective == pytest.approx(dcm, rel=1e-10)


def test_negative_means_fig1d():
    """Fig. 1d: all pairwise squared distances positive, class means negative, hence
    w'Mw <= DCM < 0 for every mu (the means lie in every reduced hull, §7.3)."""
    X, y = make_pe_negative_means(16, random_state=0)
    K = pseudo_euclidean_kernel(X)
    D2 = squared_distances_from_kernel(K)
    assert D2[~np.eye(16, dtype=bool)].min() > 0
    dcm = class_mean_distance(K, y)
    assert dcm < 0
    for mu in (1 / 8, 0.3, 1.0):
        sol, _ = hull_multistart(K, y.astype(float), mu, n_starts=4, random_state=0)
        assert sol.objective <= dcm + 1e-12


# ---------------------------------------------------------------------------- Fig. 3 / Lemma 4
@pytest.mark.parametrize("q", [1, 2, 3])
def test_lemma4_local_optima(q):
    """Lemma 4: multi-start finds more than one (at most 2^q) local optima, each certified
    stationary, each a strict local minimum with w'Mw = offset^2 - q s^2 > 0, each
    separating the data, each mapped by Prop. 3, case 2 to an SVM-DU stationary point."""
    X, y = make_pe_local_optima(q)
    yf = y.astype(float)
    K = pseudo_euclidean_kernel(X)
    assert X.shape == (2 ** q + 1, q + 1)
    assert pseudo_euclidean_embedding(K).signature == (1, q)
    sol, table = hull_multistart(K, yf, 1.0, n_starts=20, random_state=q)
    assert 1 < len(table) <= 2 ** q
    s2 = (0.5 / np.sqrt(q)) ** 2
    vertices = set()
    for a in table["alpha_bar"]:
        st = hull_stationarity(a, K, yf, 1.0)
        assert st["residual"] <= 1e-12 and abs(st["fw_gap"]) <= 1e-12
        assert hull_local_minimality(a, K, yf, 1.0)["local_min"] is True
        assert st["objective"] == pytest.approx(1.0 - q * s2, rel=1e-12)
        coef, b = hull_plane(a, K, yf)
        assert np.all(np.sign(K @ coef + b) == y)
        vertices.add(int(np.argmax(a[:-1])))
        alpha, C, _ = hull_to_svm(a, 2.0, K, yf)       # mu = 2 > 1: an unbounded SVM point
        assert svm_dual_stationarity(alpha, K, yf, C)["residual"] <= 1e-10
    assert len(vertices) == len(table)                 # one optimum per vertex of the cube
    # the uniform point is stationary too, but a maximum over the positive hull
    uniform = np.r_[np.full(2 ** q, 2.0 ** -q), 1.0]
    assert hull_stationarity(uniform, K, yf, 1.0)["residual"] <= 1e-14
    assert hull_local_minimality(uniform, K, yf, 1.0)["local_min"] is False


def test_lemma4_all_vertices_found_q2():
    """With enough starts the 4 optima of q = 2 are all found (each start ends at one)."""
    X, y = make_pe_local_optima(2)
    sol, table = hull_multistart(pseudo_euclidean_kernel(X), y.astype(float), 1.0, n_starts=40,
                                 random_state=0)
    assert len(table) == 4 and table["n_found"].sum() == 40


# ---------------------------------------------------------------------------- generators
def test_generators_reproducible_and_validated():
    for gen in (make_pe_separable, make_pe_overlapping):
        X1, y1 = gen(12, random_state=3)
        X2, y2 = gen(12, random_state=3)
        np.testing.assert_array_equal(X1, X2)
        np.testing.assert_array_equal(y1, y2)
        assert set(np.unique(y1)) == {-1, 1} and X1.shape == (12, 2)
    X, y = make_pe_negative_means(8, random_state=1)
    assert X.shape == (8, 2) and (y > 0).sum() == 4
    with pytest.raises(ValueError, match="n_samples"):
        make_pe_separable(2)
    with pytest.raises(ValueError, match="height"):
        make_pe_separable(10, gap=1.0, height=1.5)
    with pytest.raises(ValueError, match="multiple of 4"):
        make_pe_negative_means(10)
    with pytest.raises(ValueError, match="height \\+ 4 jitter"):
        make_pe_negative_means(8, height=0.9, jitter=0.05)
    with pytest.raises(ValueError, match="spread"):
        make_pe_overlapping(10, spread=0.0)
    with pytest.raises(ValueError, match="q must be"):
        make_pe_local_optima(0)
    with pytest.raises(ValueError, match="scale"):
        make_pe_local_optima(2, scale=1.0)
