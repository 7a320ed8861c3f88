"""Tests for the regenerated dissimilarity data sets (GaussM1/GaussM02/PolyDisH57 stand-ins)."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist, directed_hausdorff

from krein.datasets import make_gauss_minkowski, make_polygon_hausdorff
from krein.datasets._regenerated import minkowski_dissimilarities, vertex_hausdorff_dissimilarities


def _check_dissimilarity(D, n):
    assert D.shape == (n, n)
    assert D.dtype == np.float64
    assert np.all(np.isfinite(D))
    np.testing.assert_array_equal(D, D.T)
    np.testing.assert_array_equal(np.diag(D), 0.0)
    off = D[~np.eye(n, dtype=bool)]
    assert np.all(off > 0)  # continuous random data: no ties with probability 1


@pytest.mark.parametrize("n", [40, 41])
@pytest.mark.parametrize("p", [1.0, 0.2])
def test_gauss_shapes_labels(n, p):
    D, y = make_gauss_minkowski(n, p, n_features=5, random_state=0)
    _check_dissimilarity(D, n)
    assert y.dtype == np.int64 and y.shape == (n,)
    # documented: first ceil(n/2) are +1, the rest -1
    np.testing.assert_array_equal(y[: (n + 1) // 2], 1)
    np.testing.assert_array_equal(y[(n + 1) // 2:], -1)


def test_gauss_reproducible_and_seed_dependent():
    D1, y1 = make_gauss_minkowski(30, 0.2, random_state=3)
    D2, y2 = make_gauss_minkowski(30, 0.2, random_state=3)
    D3, _ = make_gauss_minkowski(30, 0.2, random_state=4)
    np.testing.assert_array_equal(D1, D2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(D1, D3)


def test_gauss_p1_matches_scipy_cdist():
    D, y, X = make_gauss_minkowski(50, 1.0, n_features=7, random_state=1, return_X=True)
    np.testing.assert_allclose(D, cdist(X, X, metric="minkowski", p=1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(D, cdist(X, X, metric="cityblock"), rtol=1e-12, atol=1e-12)


def test_gauss_p02_matches_hand_formula_and_is_not_metric():
    D, y, X = make_gauss_minkowski(60, 0.2, n_features=4, random_state=2, return_X=True)
    for i, j in [(0, 1), (5, 40), (59, 3), (17, 31)]:
        s = sum(abs(float(a) - float(b)) ** 0.2 for a, b in zip(X[i], X[j]))
        assert D[i, j] == pytest.approx(s ** 5, rel=1e-12)
    # p < 1 violates the triangle inequality somewhere (known property of l_p, p < 1)
    viol = D[:, :, None] > D[:, None, :] + D.T[None, :, :] + 1e-9  # D[i,k] > D[i,j] + D[j,k]
    assert viol.any()


def test_gauss_class_structure():
    # class -1 is shifted by mean_shift along the first axis only
    _, y, X = make_gauss_minkowski(400, 1.0, n_features=3, mean_shift=5.0, random_state=0, return_X=True)
    diff = X[y == -1].mean(axis=0) - X[y == 1].mean(axis=0)
    assert diff[0] == pytest.approx(5.0, abs=0.4)
    np.testing.assert_allclose(diff[1:], 0.0, atol=0.4)


@pytest.mark.parametrize("kw, arg", [
    (dict(n_samples=1), "n_samples"), (dict(n_samples=2.5), "n_samples"), (dict(p=0.0), "p"),
    (dict(p=-1.0), "p"), (dict(p=float("nan")), "p"), (dict(n_features=0), "n_features"),
    (dict(mean_shift=-1.0), "mean_shift"),
])
def test_gauss_bad_input(kw, arg):
    with pytest.raises(ValueError, match=arg):
        make_gauss_minkowski(**kw)


def test_minkowski_bad_input():
    with pytest.raises(ValueError, match="X must be"):
        minkowski_dissimilarities(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="p must"):
        minkowski_dissimilarities(np.ones((3, 2)), 0)


@pytest.mark.parametrize("n", [30, 31])
def test_polygon_shapes_labels_vertices(n):
    D, y, polys = make_polygon_hausdorff(n, random_state=0, return_polygons=True)
    _check_dissimilarity(D, n)
    np.testing.assert_array_equal(y[: (n + 1) // 2], 1)
    np.testing.assert_array_equal(y[(n + 1) // 2:], -1)
    for P, lab in zip(polys, y):
        assert P.shape == ((5, 2) if lab == 1 else (7, 2))
        np.testing.assert_allclose(P.mean(axis=0), 0.0, atol=1e-12)  # centred
        perim = np.linalg.norm(P - np.roll(P, -1, axis=0), axis=1).sum()
        assert perim == pytest.approx(1.0, rel=1e-12)  # unit perimeter
        # convex and counter-clockwise: every turn is a left turn
        e = np.roll(P, -1, axis=0) - P
        cross = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
        assert np.all(cross > 0)


def test_polygon_hausdorff_matches_scipy():
    D, y, polys = make_polygon_hausdorff(24, random_state=5, return_polygons=True)
    for i, j in [(0, 1), (0, 23), (12, 13), (20, 22), (3, 17)]:
        h = max(directed_hausdorff(polys[i], polys[j])[0], directed_hausdorff(polys[j], polys[i])[0])
        assert D[i, j] == pytest.approx(h, rel=1e-12, abs=1e-15)


def test_vertex_hausdorff_is_metric_on_sets():
    # the Hausdorff distance between finite sets is a metric: triangle inequality holds
    D, _ = make_polygon_hausdorff(40, n_vertices=(3, 4), random_state=1)
    assert np.all(D[:, :, None] <= D[:, None, :] + D.T[None, :, :] + 1e-12)


def test_vertex_hausdorff_hand_example_and_padding():
    A = np.array([[0.0, 0.0], [1.0, 0.0]])
    B = np.array([[0.0, 0.0], [0.0, 3.0], [1.0, 0.0]])
    # sup_{b in B} dist(b, A) = 3 (point (0,3)); sup_{a in A} dist(a, B) = 0
    D = vertex_hausdorff_dissimilarities([A, B, A[::-1]])
    assert D[0, 1] == pytest.approx(3.0)
    assert D[0, 2] == 0.0  # same vertex set, different order


def test_polygon_reproducible():
    D1, _ = make_polygon_hausdorff(20, random_state=9)
    D2, _ = make_polygon_hausdorff(20, random_state=np.random.RandomState(9))
    D3, _ = make_polygon_hausdorff(20, random_state=10)
    np.testing.assert_array_equal(D1, D2)
    assert not np.allclose(D1, D3)


@pytest.mark.parametrize("kw, arg", [
    (dict(n_samples=1), "n_samples"), (dict(n_vertices=(2, 7)), "n_vertices"),
    (dict(n_vertices=5), "n_vertices"), (dict(n_vertices=(5, 7, 9)), "n_vertices"),
])
def test_polygon_bad_input(kw, arg):
    with pytest.raises(ValueError, match=arg):
        make_polygon_hausdorff(**kw)


def test_vertex_hausdorff_bad_input():
    with pytest.raises(ValueError, match="polygons"):
        vertex_hausdorff_dissimilarities([])
    with pytest.raises(ValueError, match=r"polygons\[1\]"):
        vertex_hausdorff_dissimilarities([np.zeros((3, 2)), np.zeros((3, 3))])


def test_indefinite_like_paper():
    # Table 3's point: these raw dissimilarity matrices, used as kernels, are indefinite;
    # and for p = 0.2 even -1/2 J D^2 J (the pseudo-Euclidean Gram) is indefinite (non-Euclidean)
    for p in (1.0, 0.2):
        D, _ = make_gauss_minkowski(80, p, random_state=0)
        assert np.linalg.eigvalsh(D)[0] < 0
    D, _ = make_gauss_minkowski(80, 0.2, random_state=0)
    J = np.eye(80) - 1.0 / 80
    G = -0.5 * J @ (D ** 2) @ J
    ev = np.linalg.eigvalsh(G)
    assert ev[0] < -1e-8 * abs(ev[-1])
