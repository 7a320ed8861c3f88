"""Default grids relative to the scale of the training kernel (docs/design.md "Scale").

* :func:`krein.kernels.kernel_scale` is homogeneous (``s(c K) = c s(K)``), the mean
  ``|K_ii|``, or the mean ``|K_ij|`` when the diagonal is negligible (a distance matrix
  given as a kernel);
* :func:`krein.registry.default_grid` multiplies each value by ``s ** exponent``;
* ``krein compare`` on a kernel file ``K`` and on ``1e4 K`` chooses the same models
  (chosen values times the scale agree) and gets the same fold accuracies; the scale is
  recorded (result, run.json, the terminal line, the page);
* a user's ``--grid`` values stay absolute.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from krein import IndefiniteSVC, registry
from krein.compare import run_comparison
from krein.kernels import kernel_scale, kernel_scale_measure
from krein.registry import C_GRID, K_GRID, MU_GRID, RHO_GRID, default_grid


def _data(n=36, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=n) > 0, 1, -1)
    y[:4], y[4:8] = 1, -1
    return np.tanh(X @ X.T - 0.5), y  # indefinite, diagonal ~ tanh(|x|^2 - 0.5)


def test_kernel_scale_is_homogeneous_and_measures_the_diagonal():
    K, _ = _data()
    s = kernel_scale(K)
    assert s == pytest.approx(np.mean(np.abs(np.diag(K))), rel=1e-14)
    for c in (1e-6, 3.0, 1e4, 1e8):
        assert kernel_scale(c * K) == pytest.approx(c * s, rel=1e-12)
    assert kernel_scale_measure(K)[1] == "mean |K_ii|"
    # a stack of base kernels: the combined one, K[:, :, 0]
    assert kernel_scale(np.stack([K, 5 * K], axis=2)) == pytest.approx(s, rel=1e-14)


def test_kernel_scale_of_a_distance_matrix_is_its_mean_entry():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 2))
    D = 1e4 * np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))  # zero diagonal
    s, measure = kernel_scale_measure(D)
    assert measure == "mean |K_ij|"
    assert s == pytest.approx(np.mean(D), rel=1e-14)
    assert kernel_scale(2 * D) == pytest.approx(2 * s, rel=1e-12)
    assert kernel_scale(np.zeros((3, 3))) == 1.0
    with pytest.raises(ValueError, match="square"):
        kernel_scale(np.ones((2, 3)))


def test_default_grid_follows_the_scale_exponents():
    s = 250.0
    g = default_grid("indefinite-svm", s)
    np.testing.assert_allclose(g["C"], np.array(C_GRID) / s, rtol=1e-14)
    np.testing.assert_allclose(g["rho"], np.array(RHO_GRID) / s**3, rtol=1e-14)
    np.testing.assert_allclose(default_grid("square", s)["C"], np.array(C_GRID) / s**2,
                               rtol=1e-14)
    assert default_grid("knn", s) == {"n_neighbors": list(K_GRID)}  # no exponent
    assert default_grid("ch", s) == {"mu": list(MU_GRID)}
    assert default_grid("esvm", 1.0) == {"C": list(C_GRID)}
    for bad in (0, -1.0, float("nan"), "1"):
        with pytest.raises(ValueError, match="scale"):
            default_grid("esvm", bad)


METHODS = ["svm", "flip", "square", "indefinite-svm"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The same comparison on K and on 1e4 K (kernel files), small grids and max_iter."""
    d = tmp_path_factory.mktemp("scale")
    K, y = _data(30)
    np.savetxt(d / "y.txt", y, fmt="%d")
    out = {}
    entry = registry.method_entry("indefinite-svm")  # few iterations: a fast test
    short = dataclasses.replace(entry, factory=lambda: IndefiniteSVC(max_iter=10))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._REGISTRY, "indefinite-svm", short)
        for c in (1.0, 1e4):
            np.save(d / f"K{c:g}.npy", c * K)
            out[c] = run_comparison(kernel_file=str(d / f"K{c:g}.npy"),
                                    labels=str(d / "y.txt"), methods=METHODS, outer_folds=2,
                                    inner_folds=2, progress=False,
                                    out=str(d / "run") if c > 1 else None)
    return out


def test_K_and_1e4_K_choose_the_same_models(pair):
    a, b = pair[1.0], pair[1e4]
    assert b.kernel_scale == pytest.approx(1e4 * a.kernel_scale, rel=1e-12)
    assert a.kernel_scale_measure == "mean |K_ii|"
    np.testing.assert_array_equal(a.folds["accuracy"].to_numpy(), b.folds["accuracy"].to_numpy())
    for m in METHODS:
        for fa, fb in zip(a.folds.loc[a.folds["method"] == m, "best_params"],
                          b.folds.loc[b.folds["method"] == m, "best_params"]):
            pa, pb = json.loads(fa), json.loads(fb)
            assert set(pa) == set(pb) and pa, m
            exps = {"C": -2 if m == "square" else -1, "rho": -3}
            for k in pa:  # the same point of the relative grid
                assert pb[k] == pytest.approx(pa[k] * 1e4 ** exps[k], rel=1e-9), (m, k)


def test_the_scale_is_recorded(pair):
    from krein.cli_format import comparison_lines

    b = pair[1e4]
    with open(f"{b.directory}/run.json") as fh:
        run = json.load(fh)
    assert run["protocol"]["kernel_scale"] == pytest.approx(b.kernel_scale)
    assert run["protocol"]["kernel_scale_measure"] == "mean |K_ii|"
    line = next(t for t in comparison_lines(b) if t.startswith("grids relative to s"))
    assert f"s = mean |K_ii| = {b.kernel_scale:.3g}" in line
    assert "C in {0.1, 1, 10} / s (svm, flip)" in line
    assert "rho in {0.1, 1, 10} / s^3" in line and "/ s^2 (square)" in line
    with open(f"{b.directory}/report.html") as fh:
        page = fh.read()
    assert "Grid scale" in page and f"{b.kernel_scale:.3g}" in page


def test_user_grid_values_stay_absolute(tmp_path):
    K, y = _data(24)
    np.save(tmp_path / "K.npy", 1e4 * K)
    np.savetxt(tmp_path / "y.txt", y, fmt="%d")
    res = run_comparison(kernel_file=str(tmp_path / "K.npy"), labels=str(tmp_path / "y.txt"),
                         methods=["svm", "flip"], outer_folds=2, inner_folds=2,
                         grid={"C": [0.5, 2.0]}, progress=False)
    assert res.grids == {"svm": {"C": [0.5, 2.0]}, "flip": {"C": [0.5, 2.0]}}
    assert res.kernel_scale > 1e3
