"""Kernel combinations of Munoz & de Diego (2006) §4, the munoz artificial data, and
`krein compare` on it (pick-out kernels built per fold from training labels only)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re

import numpy as np
import pytest

from krein.cli import main
from krein.combinations import (accepts_stacked_kernels, as_kernel_stack, average_kernel,
                                check_stacked_kernel, check_stacked_rows, pick_out,
                                pick_out_rows, projection_kernels, stack_kernels)
from krein.compare import FOLD_COLUMNS, SUMMARY_COLUMNS, InvalidArgument, run_comparison
from krein.kernel_data import load_kernel_data
from krein.datasets import make_munoz_artificial
from krein.kernels import gaussian_kernel
from krein.spectrum import Spectrum


@pytest.fixture(scope="module")
def munoz():
    X, y = make_munoz_artificial(random_state=0)
    return X, y, projection_kernels(X)


# --------------------------------------------------------------------------- data
def test_munoz_artificial_matches_its_definition():
    X, y = make_munoz_artificial(random_state=3)
    assert X.shape == (400, 2) and y.dtype == np.int64
    assert (y == -1).sum() == 200 and (y == 1).sum() == 200
    # two normal clouds: sample means within 4 standard errors, sample s.d. within 15 %
    for label, mu, sd in ((-1, 3.0, 0.7), (1, 5.0, 0.9)):
        pts = X[y == label]
        assert np.all(np.abs(pts.mean(axis=0) - mu) < 4 * sd / np.sqrt(200))
        assert np.all(np.abs(pts.std(axis=0, ddof=1) / sd - 1) < 0.15)
        assert abs(np.corrcoef(pts.T)[0, 1]) < 0.25   # diagonal covariance
    # shuffled (a fold of consecutive rows is not one class) and reproducible
    assert 0 < (y[:50] == 1).sum() < 50
    X2, y2 = make_munoz_artificial(random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, y3 = make_munoz_artificial(7, random_state=0)
    assert X3.shape == (7, 2) and (y3 == -1).sum() == 3 and (y3 == 1).sum() == 4


@pytest.mark.parametrize("n", [1, 0, 2.5, True, "400"])
def test_munoz_artificial_bad_n(n):
    with pytest.raises(ValueError, match="n_samples"):
        make_munoz_artificial(n)


# --------------------------------------------------------------------------- projections
def test_projection_kernels_are_kernels_of_single_coordinates():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    B = projection_kernels(X, Z)
    assert B.shape == (7, 5, 3)
    for j in range(3):
        np.testing.assert_allclose(B[:, :, j], np.outer(X[:, j], Z[:, j]))
    # the linear projection kernels sum to the linear kernel <x, z>
    np.testing.assert_allclose(B.sum(axis=2), X @ Z.T)
    # Gaussian ones multiply to the Gaussian kernel on x (independent path: cdist)
    G = projection_kernels(X, Z, kernel="gaussian", kernel_params={"gamma": 0.3})
    np.testing.assert_allclose(G.prod(axis=2), gaussian_kernel(X, Z, gamma=0.3), rtol=1e-12)
    np.testing.assert_allclose(projection_kernels(X)[:, :, 1], np.outer(X[:, 1], X[:, 1]))
    with pytest.raises(ValueError, match="same number of features"):
        projection_kernels(X, Z[:, :2])


# --------------------------------------------------------------------------- pick-out
def test_pick_out_is_max_within_and_min_across_classes(munoz):
    X, y, B = munoz
    idx = np.r_[0:30]
    K = pick_out(B[np.ix_(idx, idx)], y[idx])
    for a in range(30):
        for b in range(30):
            pair = B[idx[a], idx[b]]
            expected = pair.max() if y[idx[a]] == y[idx[b]] else pair.min()
            assert K[a, b] == expected
    assert np.array_equal(K, K.T)
    # list input and three classes
    rng = np.random.default_rng(1)
    A = [rng.normal(size=(6, 6)) for _ in range(3)]
    A = [a + a.T for a in A]
    y3 = np.array([0, 1, 2, 0, 1, 2])
    K3 = pick_out(A, y3)
    assert K3[0, 3] == max(a[0, 3] for a in A) and K3[0, 1] == min(a[0, 1] for a in A)


def test_pick_out_of_psd_kernels_is_indefinite_on_munoz_data(munoz):
    """munoz §4.1 / Fig. 1: PSD coordinate kernels, indefinite pick-out.  The measured
    r_mm / r_neg against the paper's are recorded in make_munoz_artificial's docstring;
    only properties that must hold are tested."""
    X, y, B = munoz
    for m in range(2):
        assert Spectrum.from_kernel(B[:, :, m]).r_mm == 0.0   # rank one, PSD
    spec = Spectrum.from_kernel(pick_out(B, y))
    p, q, _ = spec.signature
    assert q > 0 and p > 0
    assert 0 < spec.r_mm < 100 and 0 < spec.r_neg < 50
    # r_neg (eq. 2) is the negative share of sum |lambda|: check against a direct eigvalsh
    lam = np.linalg.eigvalsh(pick_out(B, y))
    assert spec.r_neg == pytest.approx(100 * -lam[lam < 0].sum() / np.abs(lam).sum())
    assert spec.r_mm == pytest.approx(100 * -lam[0] / lam[-1])
    # the average of the same kernels (AKM) stays PSD
    assert np.linalg.eigvalsh(average_kernel(B))[0] > -1e-9 * lam[-1]


def test_pick_out_rows_rules(munoz):
    X, y, B = munoz
    tr, te = np.arange(0, 300), np.arange(300, 400)
    Br = B[np.ix_(te, tr)]
    mx, mn = Br.max(axis=2), Br.min(axis=2)
    # with known row labels: the exact rule, and the training rows give the training block
    np.testing.assert_array_equal(pick_out_rows(Br, y[tr], y[te]),
                                  np.where(y[te][:, None] == y[tr][None, :], mx, mn))
    np.testing.assert_array_equal(pick_out_rows(B[np.ix_(tr, tr)], y[tr], y[tr]),
                                  pick_out(B[np.ix_(tr, tr)], y[tr]))
    np.testing.assert_array_equal(pick_out_rows(Br, y[tr], rule="max"), mx)
    np.testing.assert_array_equal(pick_out_rows(Br, y[tr], rule="min"), mn)
    mean = pick_out_rows(Br, y[tr])
    # two classes: the midpoint, which for two kernels is the average kernel (AKM)
    np.testing.assert_allclose(mean, 0.5 * (mx + mn))
    np.testing.assert_allclose(mean, average_kernel(Br))
    # a kernel expansion on "mean" rows is the average of the decisions under the two
    # label hypotheses of the test point
    c = np.random.default_rng(0).normal(size=tr.size)
    hyp = [pick_out_rows(Br, y[tr], np.full(te.size, lab)) @ c for lab in (-1, 1)]
    np.testing.assert_allclose(mean @ c, 0.5 * (hyp[0] + hyp[1]))
    with pytest.raises(ValueError, match="rule"):
        pick_out_rows(Br, y[tr], rule="median")
    with pytest.raises(ValueError, match="y_train"):
        pick_out_rows(Br, y[:5])


def test_pick_out_rows_mean_rule_three_classes():
    rng = np.random.default_rng(2)
    Br = rng.normal(size=(4, 6, 3))
    y_tr = np.array([0, 1, 2, 0, 1, 2])
    c = rng.normal(size=6)
    mean = pick_out_rows(Br, y_tr)
    np.testing.assert_allclose(mean, Br.max(axis=2) / 3 + Br.min(axis=2) * 2 / 3)
    hyp = [pick_out_rows(Br, y_tr, np.full(4, lab)) @ c for lab in (0, 1, 2)]
    np.testing.assert_allclose(mean @ c, np.mean(hyp, axis=0))


def test_stacks_round_trip_and_errors():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(5, 5))
    K = A + A.T
    base = [np.eye(5), np.ones((5, 5))]
    S = stack_kernels(K, base)
    assert S.shape == (5, 5, 3)
    K2, B2 = check_stacked_kernel(S)
    np.testing.assert_array_equal(K2, K)
    np.testing.assert_array_equal(B2, np.stack(base, axis=-1))
    np.testing.assert_array_equal(check_stacked_kernel([K, *base])[1], B2)
    rows, brows = check_stacked_rows(S[:2], 5, 3)
    np.testing.assert_array_equal(rows, K[:2])
    with pytest.raises(ValueError, match=r"stacked kernel of shape \(n, n, 1 \+ M\)"):
        check_stacked_kernel(K)
    with pytest.raises(ValueError, match="at least two slices"):
        check_stacked_kernel(K[:, :, None])
    bad = S.copy()
    bad[0, 1, 2] += 1.0
    with pytest.raises(ValueError, match=r"X\[:, :, 2\] is not symmetric"):
        check_stacked_kernel(bad)
    with pytest.raises(ValueError, match=r"\(m, 5, 3\)"):
        check_stacked_rows(S[:2, :, :2], 5, 3)
    with pytest.raises(ValueError, match="same shape"):
        as_kernel_stack([np.eye(2), np.eye(3)])
    with pytest.raises(ValueError, match="NaN"):
        stack_kernels(K * np.nan, base)
    assert not accepts_stacked_kernels(object())


# --------------------------------------------------------------------------- krein compare
def test_munoz_fold_blocks_use_training_labels_only():
    data = load_kernel_data("munoz-artificial", n_samples=60, random_state=1)
    assert data.kernel == "pick-out-linear" and data.per_fold_kernel and data.label_dependent
    assert data.base_kernels.shape == (60, 60, 2)
    np.testing.assert_allclose(data.base_kernels, projection_kernels(data.X))
    np.testing.assert_array_equal(data.K, pick_out(data.base_kernels, data.y))
    tr, te = np.arange(0, 60, 2), np.arange(1, 60, 2)
    K_tr, K_te = data.blocks(tr, te)
    np.testing.assert_array_equal(K_tr, data.K[np.ix_(tr, tr)])   # training labels there
    np.testing.assert_allclose(K_te, average_kernel(data.base_kernels[np.ix_(te, tr)]))
    # changing test labels changes neither the training block nor the test rows
    data.y = data.y.copy()
    data.y[te] = -data.y[te]
    K_tr2, K_te2 = data.blocks(tr, te)
    np.testing.assert_array_equal(K_tr2, K_tr)
    np.testing.assert_array_equal(K_te2, K_te)
    # ... while a changed training label does change the training block
    data.y[tr[0]] = -data.y[tr[0]]
    assert not np.array_equal(data.blocks(tr, te)[0], K_tr)
    S_tr, S_te = data.blocks(tr, te, stacked=True)
    assert S_tr.shape == (30, 30, 3) and S_te.shape == (30, 30, 3)
    np.testing.assert_array_equal(S_te[:, :, 1:], data.base_kernels[np.ix_(te, tr)])


def test_compare_munoz_artificial_runs(tmp_path):
    res = run_comparison("munoz-artificial", methods=["clip", "flip", "svm"], outer_folds=2,
                         n_samples=80, progress=False, out=tmp_path, tune=False)
    s = res.summary.set_index("method")
    assert list(res.summary.columns) == SUMMARY_COLUMNS
    assert list(res.folds.columns) == FOLD_COLUMNS
    assert (s["n_errors"] == 0).all(), res.folds["error"].tolist()
    assert s["accuracy_mean"].between(0, 1).all()
    # every fold's diagnostics are those of the training block built from training labels
    y = res.data.y
    folds = res.folds[res.folds["method"] == "clip"].sort_values("fold")
    for (_, row), (tr, _) in zip(folds.iterrows(), res.splits(0)):
        spec = Spectrum.from_kernel(pick_out(res.data.base_kernels[np.ix_(tr, tr)], y[tr]))
        assert row["min_eigenvalue"] == pytest.approx(spec.min_eigenvalue)
        assert row["r_mm"] == pytest.approx(spec.r_mm) and row["r_neg"] == pytest.approx(spec.r_neg)
        assert row["r_mm"] > 0 and row["r_neg"] > 0                      # indefinite
    assert s.loc["clip", "r_mm_mean"] == pytest.approx(folds["r_mm"].mean())
    assert (tmp_path / "boundaries.png").is_file() and (tmp_path / "report.html").is_file()


def test_compare_passes_stacked_blocks_to_stacked_methods(monkeypatch):
    """A method whose estimator accepts stacked kernels gets [K, K_1, K_2] blocks."""
    from krein import registry
    from krein.estimators.clc import ConformalLinearCombination
    from krein.estimators.corrected import CorrectedKernelSVC

    monkeypatch.setitem(registry._REGISTRY, "clc-test", dataclasses.replace(
        registry.method_entry("clc"), factory=lambda: CorrectedKernelSVC(
            correction=ConformalLinearCombination()), requires=(), name="clc-test"))
    res = run_comparison("munoz-artificial", methods=["clc-test", "svm"], outer_folds=2, n_samples=60,
                         progress=False, tune=False)
    assert (res.summary["n_errors"] == 0).all(), res.folds["error"].tolist()
    # without base kernels the method records a clear error instead of crashing
    res = run_comparison("checkerboard", methods=["clc-test"], outer_folds=2, n_samples=40,
                         progress=False, tune=False)
    assert res.folds["error"].str.contains("stacked kernel").all()


def test_compare_cli_munoz_prints_deviation_from_euclidean():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["compare", "--dataset", "munoz-artificial", "--n-samples", "60", "--methods",
                   "clip,svm", "--cv", "2", "--no-save", "--no-progress", "--no-tune"])
    text = buf.getvalue()
    assert rc == 0
    assert "pick-out-linear" in text and "training labels only" in text
    assert re.search(r"r_mm = [\d.]+ %, r_neg = [\d.]+ %", text)
    assert re.search(r"training blocks .* r_mm = [\d.]+ ± [\d.e-]+ %, r_neg = ", text)


def test_pick_out_kernel_options():
    data = load_kernel_data("munoz-artificial", kernel="pick-out-gaussian",
                            kernel_params={"gamma": 0.5}, n_samples=30)
    np.testing.assert_allclose(data.base_kernels[:, :, 0],
                               gaussian_kernel(data.X[:, :1], gamma=0.5))
    rows = data.rows(data.X[:3])
    np.testing.assert_allclose(rows, 0.5 * (data.base_kernels[:3].max(2) +
                                            data.base_kernels[:3].min(2)))
    with pytest.raises(InvalidArgument, match="binary"):
        load_kernel_data("munoz-artificial", binary="paper")
    with pytest.raises(InvalidArgument, match="kernel"):
        load_kernel_data("catcortex", kernel="pick-out-linear")


# --------------------------------------------------------------------------- munoz §4.2 kernels
def _munoz_family_independent(X, Z):
    """The twelve normalized kernels of munoz §4.2 through scikit-learn, pair by pair
    normalization written out (an independent path to munoz_ionosphere_kernels)."""
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

    out = [rbf_kernel(X, Z, gamma=1.0 / (10 + 5 * (m - 1))) for m in range(1, 11)]
    lin = np.zeros((X.shape[0], Z.shape[0]))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            nx, nz = np.linalg.norm(x), np.linalg.norm(z)
            lin[i, j] = x @ z / (nx * nz) if nx > 0 and nz > 0 else 0.0
    out.append(lin)
    P = polynomial_kernel(X, Z, degree=2, gamma=1.0, coef0=1.0)
    px = polynomial_kernel(X, X, degree=2, gamma=1.0, coef0=1.0).diagonal()
    pz = polynomial_kernel(Z, Z, degree=2, gamma=1.0, coef0=1.0).diagonal()
    out.append(P / np.sqrt(px[:, None] * pz[None, :]))
    return np.stack(out, axis=-1)


def test_munoz_ionosphere_kernels_match_independent_computation():
    from krein.combinations import MUNOZ_IONOSPHERE_WIDTHS, munoz_ionosphere_kernels

    rng = np.random.default_rng(4)
    X, Z = rng.uniform(-1, 1, size=(9, 5)), rng.uniform(-1, 1, size=(4, 5))
    X[3] = 0.0                                   # a zero vector: cosine set to 0
    assert MUNOZ_IONOSPHERE_WIDTHS == (10, 15, 20, 25, 30, 35, 40, 45, 50, 55)
    B = munoz_ionosphere_kernels(X, Z)
    assert B.shape == (9, 4, 12)
    np.testing.assert_allclose(B, _munoz_family_independent(X, Z), rtol=1e-12, atol=1e-15)
    assert np.all(B[3, :, 10] == 0.0)
    S = munoz_ionosphere_kernels(X)
    np.testing.assert_allclose(S, _munoz_family_independent(X, X), rtol=1e-12, atol=1e-15)
    # normalized: unit diagonal (except the cosine of the zero vector), every slice PSD
    d = np.einsum("iim->im", S)
    assert np.allclose(np.delete(d, 3, axis=0), 1.0) and np.allclose(d[3, np.r_[0:10, 11]], 1.0)
    for m in range(12):
        assert np.linalg.eigvalsh(S[:, :, m])[0] > -1e-12
    # rows against the training points are the slices of the joint computation
    J = munoz_ionosphere_kernels(np.vstack([X, Z]))
    np.testing.assert_allclose(J[9:, :9], munoz_ionosphere_kernels(Z, X), rtol=1e-12)
    with pytest.raises(ValueError, match="widths"):
        munoz_ionosphere_kernels(X, widths=[10, 0])
    with pytest.raises(ValueError, match="degree"):
        munoz_ionosphere_kernels(X, degree=1.5)
    with pytest.raises(ValueError, match="same number of features"):
        munoz_ionosphere_kernels(X, Z[:, :3])


def test_pick_out_of_munoz_family_only_uses_extreme_rbf_widths():
    """The RBF kernels increase with c at every pair, so the pick-out of the twelve only
    ever takes c = 10 (as a minimum) or c = 55 (as a maximum) of them: dropping the eight
    middle widths changes nothing (documented in munoz_ionosphere_kernels)."""
    from krein.combinations import munoz_ionosphere_kernels
    from krein.datasets import load

    X, y = load("ionosphere")
    idx = np.r_[0:120]
    B = munoz_ionosphere_kernels(X[idx])
    K = pick_out(B, y[idx])
    np.testing.assert_array_equal(K, pick_out(B[:, :, [0, 9, 10, 11]], y[idx]))
    assert not np.array_equal(K, pick_out(B[:, :, [0, 10, 11]], y[idx]))
    assert not np.array_equal(K, pick_out(B[:, :, [9, 10, 11]], y[idx]))
    spec = Spectrum.from_kernel(K)                 # PSD slices, indefinite pick-out
    assert spec.signature[1] > 0 and spec.r_mm > 0 and spec.r_neg > 0


@pytest.fixture(scope="module")
def iono():
    return load_kernel_data("ionosphere", kernel="pick-out-munoz-ionosphere", n_samples=60,
                            random_state=2)


def test_pick_out_munoz_ionosphere_uses_raw_features_and_the_twelve_kernels(iono):
    from krein.datasets import load

    data = iono
    assert data.kernel_params == {"scale": "raw"} and data.label_dependent
    assert "raw features" in data.description
    X_raw, _ = load("ionosphere")                  # every row is a raw Ionosphere row
    assert all((np.abs(X_raw - x).max(axis=1) == 0).any() for x in data.X)
    np.testing.assert_allclose(data.base_kernels, _munoz_family_independent(data.X, data.X),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(data.K, pick_out(data.base_kernels, data.y))
    # other scalings: the loader's, on all rows before the subsample
    for scale in ("minmax", "standard"):
        d2 = load_kernel_data("ionosphere", kernel="pick-out-munoz-ionosphere",
                              kernel_params={"scale": scale}, n_samples=60, random_state=2)
        X_s, _ = load("ionosphere", scale=scale)
        assert all((np.abs(X_s - x).max(axis=1) < 1e-12).any() for x in d2.X)
        np.testing.assert_array_equal(d2.y, data.y)
    with pytest.raises(InvalidArgument, match="scale .* must be one of raw, minmax, standard"):
        load_kernel_data("ionosphere", kernel="pick-out-munoz-ionosphere",
                         kernel_params={"scale": "l2"})
    with pytest.raises(InvalidArgument, match="accepted: none"):
        load_kernel_data("ionosphere", kernel="pick-out-linear", kernel_params={"scale": "raw"})
    # synthetic data: scale applies after the set's own preparation
    d3 = load_kernel_data("munoz-artificial", kernel="pick-out-munoz-ionosphere",
                          kernel_params={"scale": "minmax"}, n_samples=20)
    assert d3.X.min() == -1.0 and d3.X.max() == 1.0 and d3.base_kernels.shape == (20, 20, 12)


def test_pick_out_munoz_ionosphere_fold_blocks_use_training_labels_only():
    data = load_kernel_data("ionosphere", kernel="pick-out-munoz-ionosphere", n_samples=60,
                            random_state=2)
    tr, te = np.arange(0, 60, 3), np.setdiff1d(np.arange(60), np.arange(0, 60, 3))
    ref = _munoz_family_independent(data.X, data.X)
    K_tr, K_te = data.blocks(tr, te)
    S_tr, S_te = data.blocks(tr, te, stacked=True)
    assert S_tr.shape == (20, 20, 13) and S_te.shape == (40, 20, 13)
    np.testing.assert_array_equal(S_tr[:, :, 0], K_tr)
    np.testing.assert_array_equal(S_te[:, :, 0], K_te)
    np.testing.assert_allclose(S_tr[:, :, 1:], ref[np.ix_(tr, tr)], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(S_te[:, :, 1:], ref[np.ix_(te, tr)], rtol=1e-12, atol=1e-15)
    # the training block is the pick-out with the training labels, the test rows the
    # label-free midpoint of max and min (two classes)
    np.testing.assert_allclose(K_tr, pick_out(ref[np.ix_(tr, tr)], data.y[tr]), rtol=1e-12)
    np.testing.assert_allclose(K_te, 0.5 * (ref[np.ix_(te, tr)].max(2) +
                                            ref[np.ix_(te, tr)].min(2)), rtol=1e-12)
    data.y = data.y.copy()
    data.y[te] = -data.y[te]                       # test labels: nothing changes
    for a, b in zip(data.blocks(tr, te, stacked=True), (S_tr, S_te)):
        np.testing.assert_array_equal(a, b)
    data.y[tr[1]] = -data.y[tr[1]]                 # a training label: the block changes
    S_tr2, S_te2 = data.blocks(tr, te, stacked=True)
    assert not np.array_equal(S_tr2[:, :, 0], S_tr[:, :, 0])
    np.testing.assert_array_equal(S_tr2[:, :, 1:], S_tr[:, :, 1:])   # base kernels label-free


def test_compare_ionosphere_pick_out_munoz_with_stacked_method(monkeypatch):
    """clip, svm and a CLC method run without error rows; the CLC cells equal a CLC SVM
    fitted on independently computed stacked blocks (so it got [K, K_1..K_12])."""
    from krein import registry
    from krein.estimators.clc import ConformalLinearCombination
    from krein.estimators.corrected import CorrectedKernelSVC

    def make():
        return CorrectedKernelSVC(correction=ConformalLinearCombination())

    monkeypatch.setitem(registry._REGISTRY, "clc-test", dataclasses.replace(
        registry.method_entry("clc"), factory=make, requires=(), name="clc-test"))
    res = run_comparison("ionosphere", kernel="pick-out-munoz-ionosphere",
                         methods=["clip", "svm", "clc-test"], outer_folds=2, n_samples=80,
                         progress=False, tune=False)
    assert (res.summary["n_errors"] == 0).all(), res.folds["error"].tolist()
    data = res.data
    ref = _munoz_family_independent(data.X, data.X)
    cells = res.folds.set_index(["method", "fold"])
    for k, (tr, te) in enumerate(res.splits(0)):
        y_tr = data.y[tr]
        B_tr, B_te = ref[np.ix_(tr, tr)], ref[np.ix_(te, tr)]
        S_tr = stack_kernels(pick_out(B_tr, y_tr), B_tr)
        S_te = stack_kernels(0.5 * (B_te.max(2) + B_te.min(2)), B_te)
        est = make().set_params(kernel="precomputed", C=1.0).fit(S_tr, y_tr)
        acc = float(np.mean(est.predict(S_te) == data.y[te]))
        assert cells.loc[("clc-test", k), "accuracy"] == pytest.approx(acc)
        spec = Spectrum.from_kernel(S_tr[:, :, 0])
        assert cells.loc[("clip", k), "r_neg"] == pytest.approx(spec.r_neg)
        assert spec.r_mm > 0
