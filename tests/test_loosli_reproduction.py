"""Checks of the Loosli et al. (2013) reproduction: kernels, data, calibrations, certificates.

Independent references: the least eigenvalues printed in the paper's Tables 2
and 3; the definition of the dissimilarity-raw kernel (``K = D / unit``);
the convex C-SVM duality gap at a solution of a tight reference solver
(CVXPY/Clarabel) versus a perturbed point.
"""

import pathlib

import numpy as np
import pytest
import scipy.linalg

from krein.datasets import REGENERATED_DATASETS, available_datasets
from krein.kernel_data import InvalidArgument, available_kernels, load_kernel_data
from krein.datasets import load, load_dissimilarity, make_gauss_minkowski
from krein.experiment import import_script

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[1] / "experiments"


def _script(name):
    return import_script(EXPERIMENTS / f"{name}.py")


# --------------------------------------------------------------------------- kernel K = D
@pytest.mark.parametrize("name, paper", [("balls3d", -2889.4), ("catcortex", -24.61),
                                         ("protein", -322.34), ("newsgroups", -16.39)])
def test_dissimilarity_raw_kernel_has_the_papers_least_eigenvalue(name, paper):
    """Loosli Table 3 prints these least eigenvalues; K = D (all objects) reproduces them."""
    data = load_kernel_data(name, "dissimilarity-raw")
    D, _ = load_dissimilarity(name)
    np.testing.assert_array_equal(data.K, D)
    least = scipy.linalg.eigvalsh(data.K, subset_by_index=[0, 0])[0]
    assert least == pytest.approx(paper, abs=0.01 * abs(paper) + 0.005)
    assert not data.per_fold_kernel


def test_dissimilarity_raw_unit_divides_and_slices_like_a_row_kernel():
    D, y = load_dissimilarity("protein", binary="paper")
    data = load_kernel_data("protein", "dissimilarity-raw", {"unit": 4.0}, binary="paper")
    np.testing.assert_allclose(data.K, D / 4.0)
    tr, te = np.arange(0, 213, 2), np.arange(1, 213, 2)
    K_tr, K_te = data.blocks(tr, te)
    np.testing.assert_allclose(K_te, D[np.ix_(te, tr)] / 4.0)
    np.testing.assert_allclose(K_tr, D[np.ix_(tr, tr)] / 4.0)
    assert "dissimilarity-raw" in available_kernels("dissimilarity")
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(InvalidArgument, match="unit"):
            load_kernel_data("protein", "dissimilarity-raw", {"unit": bad})
    with pytest.raises(InvalidArgument, match="unknown parameter"):
        load_kernel_data("protein", "dissimilarity-raw", {"gamma": 1.0})


# --------------------------------------------------------------------------- regenerated sets
def test_regenerated_sets_are_loadable_and_labelled():
    names = available_datasets()
    for name in REGENERATED_DATASETS:
        assert "REGENERATED" in names[name] and name.endswith("-regenerated")
    data = load_kernel_data("gaussm1-regenerated", "dissimilarity-raw", n_samples=60,
                            random_state=3)
    D, y = make_gauss_minkowski(60, p=1.0, random_state=3)
    np.testing.assert_array_equal(data.K, D)
    np.testing.assert_array_equal(data.y, y)
    assert "REGENERATED" in data.description and data.kind == "dissimilarity"
    other = load_kernel_data("gaussm1-regenerated", "dissimilarity-raw", n_samples=60,
                             random_state=4)
    assert not np.array_equal(other.K, data.K)
    with pytest.raises(InvalidArgument, match="binary"):
        load_kernel_data("gaussm02-regenerated", n_samples=40, binary="paper")


# --------------------------------------------------------------------------- calibrations
@pytest.mark.parametrize("name", ["sonar", "heart"])
def test_table2_sigmoid_offsets_give_the_papers_least_eigenvalues(name):
    """SIGMOID_R is a hard-coded calibration: recompute the least eigenvalue it gives."""
    from krein.kernels import sigmoid_kernel

    t2 = _script("loosli_table2")
    X, _ = load(name, scale="standard")
    K = sigmoid_kernel(X, a=4.0 / X.shape[1], r=t2.SIGMOID_R[name])
    least = scipy.linalg.eigvalsh(K, subset_by_index=[0, 0])[0]
    assert least == pytest.approx(t2.PAPER_LEAST_EIGENVALUES[name], abs=0.01)
    assert t2.calibrate_r(name) == pytest.approx(t2.SIGMOID_R[name], abs=1e-5)


def test_table3_units_are_the_mean_dissimilarities():
    t3 = _script("loosli_table3")
    for name in t3.SHIPPED:
        binary = "paper" if name != "coilyork" else None
        D, _ = load_dissimilarity(name, binary=binary)
        mean = D[~np.eye(len(D), dtype=bool)].mean()
        assert t3.UNITS[name] == pytest.approx(mean, rel=1e-4)


# --------------------------------------------------------------------------- certificates
def test_svm_duality_gap_certificate_separates_optimal_from_perturbed():
    """At a tight CVXPY solution the C-SVM gap is ~0; a perturbed feasible point has a gap."""
    import cvxpy as cp

    cert = _script("loosli_certificates")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    Q = X @ X.T + 0.1 * np.eye(40)
    C = 1.0
    a = cp.Variable(40)
    L = np.linalg.cholesky(Q)
    prob = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.sum_squares(L.T @ cp.multiply(y, a))),
                      [a >= 0, a <= C, y @ a == 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10)
    alpha = np.clip(a.value, 0, C)
    alpha[alpha < 1e-7] = 0.0          # exact bounds, as libsvm returns them
    alpha[alpha > C - 1e-7] = C
    u = y * alpha
    free = (alpha > 1e-6) & (alpha < C - 1e-6)
    b = float(np.mean(y[free] - (Q @ u)[free]))
    gap, kkt = cert._svm_gap(Q, y, u, b, C)
    assert abs(gap) < 1e-6 and kkt < 1e-5
    # move mass between two free coordinates of the same label (keeps y'alpha = 0)
    i, j = np.flatnonzero(free & (y > 0))[:2]
    alpha2 = alpha.copy()
    step = 0.5 * min(alpha[i], C - alpha[j])
    alpha2[i] -= step
    alpha2[j] += step
    gap2, kkt2 = cert._svm_gap(Q, y, y * alpha2, b, C)
    assert gap2 > 1e-4 and kkt2 > 1e-3


# --------------------------------------------------------------------------- small figures
def test_save_png_writes_a_palette_png_atomically(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    from krein.experiment import save_png

    fig, ax = plt.subplots()
    x = np.linspace(0, 1, 200)
    ax.imshow(np.outer(x, x), cmap="viridis")
    path = save_png(fig, tmp_path / "sub" / "f.png", dpi=60, colors=32)
    img = Image.open(path)
    assert img.mode == "P" and len(img.getcolors(256)) <= 32
    full = save_png(fig, tmp_path / "full.png", dpi=60, colors=None)
    assert Image.open(full).mode in ("RGBA", "RGB")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(ValueError, match="colors"):
        save_png(fig, tmp_path / "bad.png", colors=1)
    plt.close(fig)
