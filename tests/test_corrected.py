"""CorrectedKernelSVC: libsvm on a kernel corrected by any kernel-correction transformer."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein import DirectSVC, SpectrumCorrection, SpectrumSVC
from krein.combinations import pick_out, projection_kernels, stack_kernels
from krein.datasets import make_munoz_artificial
from krein.estimators.clc import ConformalLinearCombination
from krein.estimators.corrected import CorrectedKernelSVC
from krein.kernels import gaussian_kernel, linear_kernel, sigmoid_kernel
from krein.spectrum import Spectrum

SIGMOID = {"a": 0.5, "r": -1.0}

ESTIMATORS = [
    CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip")),
    CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip"), kernel="precomputed"),
    CorrectedKernelSVC(),
    # a correction that needs base kernels, computed from feature vectors
    CorrectedKernelSVC(correction=ConformalLinearCombination(), kernel="sigmoid",
                       kernel_params=SIGMOID,
                       base_kernels=["linear", ("gaussian", {"gamma": 0.5})]),
]


def expected_failed_checks(estimator):
    """No expected failure: every scikit-learn check passes for these instances (kept as
    the hook so that, in strict xfail mode, a new failure needs a written reason)."""
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def sigmoid_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3, 1, -1)
    K = sigmoid_kernel(X, **SIGMOID)
    assert np.linalg.eigvalsh(K)[0] < -1e-2
    return X, y, K


# --------------------------------------------------------------------------- two paths
@pytest.mark.parametrize("method, oos", [("clip", "spectral"), ("flip", "spectral"),
                                         ("flip", "raw"), ("square", "spectral")])
def test_equals_spectrum_svc(sigmoid_data, method, oos):
    """The generic wrapper around SpectrumCorrection gives SpectrumSVC's classifier."""
    X, y, K = sigmoid_data
    tr, te = np.arange(40), np.arange(40, 60)
    ours = CorrectedKernelSVC(correction=SpectrumCorrection(correction=method, out_of_sample=oos), C=2.0,
                              kernel="precomputed", tol=1e-8).fit(K[np.ix_(tr, tr)], y[tr])
    ref = SpectrumSVC(correction=method, out_of_sample=oos, C=2.0, kernel="precomputed", tol=1e-8).fit(
        K[np.ix_(tr, tr)], y[tr])
    rows = K[np.ix_(te, tr)]
    scale = np.abs(ref.decision_function(rows)).max()
    np.testing.assert_allclose(ours.decision_function(rows), ref.decision_function(rows),
                               atol=1e-5 * scale)
    np.testing.assert_array_equal(ours.predict(rows), ref.predict(rows))


def test_without_correction_equals_direct_svc(sigmoid_data):
    X, y, _ = sigmoid_data
    ours = CorrectedKernelSVC(kernel="sigmoid", kernel_params=SIGMOID).fit(X, y)
    ref = DirectSVC(kernel="sigmoid", kernel_params=SIGMOID).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X))
    assert ours.correction_ is None


def test_diagnostics_of_the_training_kernel(sigmoid_data):
    X, y, K = sigmoid_data
    est = CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip"), kernel="precomputed").fit(K, y)
    spec = Spectrum.from_kernel(K)
    assert est.min_eigenvalue_ == pytest.approx(spec.min_eigenvalue)
    assert est.r_mm_ == pytest.approx(spec.r_mm) and est.r_neg_ == pytest.approx(spec.r_neg)
    lam = np.linalg.eigvalsh(K)       # munoz eq. (2) by hand
    assert est.r_mm_ == pytest.approx(100 * -lam[0] / lam[-1])
    assert est.r_neg_ == pytest.approx(100 * -lam[lam < 0].sum() / np.abs(lam).sum())
    assert est.signature_ == spec.signature
    assert est.corrected_min_eigenvalue_ >= -1e-10 * lam[-1]
    assert est.stack_depth_ is None
    # feature-vector input gives the same numbers
    est2 = CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip"), kernel="sigmoid",
                              kernel_params=SIGMOID).fit(X, y)
    assert est2.r_neg_ == pytest.approx(est.r_neg_)


# --------------------------------------------------------------------------- stacked input
@pytest.fixture(scope="module")
def munoz_split():
    X, y = make_munoz_artificial(120, random_state=2)
    B = projection_kernels(X)
    tr, te = np.arange(90), np.arange(90, 120)
    S_tr = stack_kernels(pick_out(B[np.ix_(tr, tr)], y[tr]), B[np.ix_(tr, tr)])
    S_te = stack_kernels(0.5 * (B[np.ix_(te, tr)].max(2) + B[np.ix_(te, tr)].min(2)),
                         B[np.ix_(te, tr)])
    return X, y, tr, te, S_tr, S_te


def test_stacked_precomputed_clc_equals_manual_pipeline(munoz_split):
    X, y, tr, te, S_tr, S_te = munoz_split
    est = CorrectedKernelSVC(correction=ConformalLinearCombination(), kernel="precomputed",
                             C=3.0).fit(S_tr, y[tr])
    assert est.accepts_stacked_kernels and est.stack_depth_ == 3
    clc = ConformalLinearCombination().fit(S_tr)
    np.testing.assert_allclose(est.correction_.weights_, clc.weights_)
    svc = SVC(kernel="precomputed", C=3.0).fit(clc.kernel_, y[tr])
    rows = clc.transform(S_te)
    np.testing.assert_allclose(est.decision_function(S_te), svc.decision_function(rows),
                               atol=1e-6)
    # the diagnostics are those of the (indefinite) pick-out kernel in slice 0
    assert est.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(S_tr[:, :, 0])[0])
    assert est.r_mm_ > 0
    with pytest.raises(ValueError, match=r"\(m, 90, 3\)"):
        est.predict(S_te[:, :, :2])


def test_feature_input_with_base_kernels_equals_stacked_precomputed(sigmoid_data):
    X, y, _ = sigmoid_data
    tr, te = np.arange(40), np.arange(40, 60)
    base = ["linear", ("gaussian", {"gamma": 0.5})]
    est = CorrectedKernelSVC(correction=ConformalLinearCombination(), kernel="sigmoid",
                             kernel_params=SIGMOID, base_kernels=base).fit(X[tr], y[tr])

    def stack(A, B):
        return stack_kernels(sigmoid_kernel(A, B, **SIGMOID),
                             [linear_kernel(A, B), gaussian_kernel(A, B, gamma=0.5)])

    pre = CorrectedKernelSVC(correction=ConformalLinearCombination(), kernel="precomputed").fit(
        stack(X[tr], X[tr]), y[tr])
    np.testing.assert_allclose(est.correction_.weights_, pre.correction_.weights_)
    np.testing.assert_allclose(est.decision_function(X[te]),
                               pre.decision_function(stack(X[te], X[tr])), atol=1e-8)


# --------------------------------------------------------------------------- registry use
def test_registry_style_construction_and_params():
    """What the registry does: a factory, then set_params(kernel="precomputed", C=...)."""
    factory = lambda: CorrectedKernelSVC(correction=ConformalLinearCombination())  # noqa: E731
    est = factory()
    est.set_params(kernel="precomputed", C=2.5, correction__combination="average")
    assert est.get_params()["C"] == 2.5 and est.correction.combination == "average"
    assert clone(est).get_params()["correction__combination"] == "average"
    X, y = make_munoz_artificial(40, random_state=0)
    B = projection_kernels(X)
    est.fit(stack_kernels(pick_out(B, y), B), y)
    np.testing.assert_array_equal(est.correction_.weights_, [0.5, 0.5])
    assert est.correction.__dict__.get("weights_") is None   # the template stays unfitted
    assert not CorrectedKernelSVC(correction=SpectrumCorrection()).accepts_stacked_kernels


class _RecordingCorrection(TransformerMixin, BaseEstimator):
    """Clip correction that records the labels it was fitted with."""

    def fit(self, K, y=None):
        self.inner_ = SpectrumCorrection(correction="clip").fit(K)
        self.y_seen_ = None if y is None else np.asarray(y).copy()
        return self

    def fit_transform(self, K, y=None):
        self.fit(K, y)
        return self.inner_.spectrum_.corrected_kernel("clip")

    def transform(self, K_rows):
        return self.inner_.transform(K_rows)


class _FailingCorrection(_RecordingCorrection):
    def fit_transform(self, K, y=None):
        raise ValueError("correction failed on purpose")


def test_correction_sees_training_labels_and_failure_leaves_unfitted(sigmoid_data):
    X, y, K = sigmoid_data
    labels = np.where(y > 0, "pos", "neg")
    est = CorrectedKernelSVC(correction=_RecordingCorrection(), kernel="precomputed").fit(K, labels)
    np.testing.assert_array_equal(est.correction_.y_seen_, labels)
    assert set(est.predict(K)) <= {"pos", "neg"}
    est.set_params(correction=_FailingCorrection())
    with pytest.raises(ValueError, match="on purpose"):
        est.fit(K, labels)
    assert not [k for k in vars(est) if k.endswith("_") and not k.startswith("__")]


def test_multiclass_one_vs_one_on_the_corrected_kernel():
    rng = np.random.default_rng(4)
    centers = np.array([[0, 0], [4, 0], [0, 4]])
    X = np.vstack([c + rng.normal(size=(20, 2)) for c in centers])
    y = np.repeat([0, 1, 2], 20)
    K = sigmoid_kernel(X, a=0.3, r=-0.5)
    est = CorrectedKernelSVC(correction=SpectrumCorrection(correction="flip", out_of_sample="spectral"),
                             kernel="precomputed").fit(K, y)
    Kc = SpectrumCorrection(correction="flip").fit_transform(K)
    ref = SVC(kernel="precomputed").fit(Kc, y)
    np.testing.assert_array_equal(est.predict(K), ref.predict(Kc))
    assert est.dual_coef_.shape[0] == 3


def test_bad_input(sigmoid_data, munoz_split):
    X, y, K = sigmoid_data
    _, ym, tr, _, S_tr, _ = munoz_split
    with pytest.raises(ValueError, match="stacked kernels"):
        CorrectedKernelSVC(correction=SpectrumCorrection(), kernel="precomputed").fit(S_tr, ym[tr])
    with pytest.raises(ValueError, match="stacked kernels"):
        CorrectedKernelSVC(kernel="precomputed").fit(S_tr, ym[tr])
    with pytest.raises(ValueError, match="base_kernels is for feature-vector input"):
        CorrectedKernelSVC(correction=ConformalLinearCombination(), kernel="precomputed",
                           base_kernels=["linear"]).fit(K, y)
    with pytest.raises(ValueError, match="base_kernels needs a correction"):
        CorrectedKernelSVC(correction=SpectrumCorrection(), base_kernels=["linear"]).fit(X, y)
    with pytest.raises(ValueError, match=r"base_kernels\[1\]"):
        CorrectedKernelSVC(correction=ConformalLinearCombination(),
                           base_kernels=["linear", 3]).fit(X, y)
    with pytest.raises(ValueError, match="'correction' parameter of CorrectedKernelSVC must be "
                                         "an object implementing"):
        CorrectedKernelSVC(correction="clip").fit(X, y)
    with pytest.raises(ValueError, match=r"stacked kernel of shape \(n, n, 1 \+ M\)"):
        CorrectedKernelSVC(correction=ConformalLinearCombination(), kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="'C' parameter"):
        CorrectedKernelSVC(C=0.0).fit(X, y)
