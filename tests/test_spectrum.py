"""Tests for krein.spectrum: Spectrum, spectrum corrections and their out-of-sample maps.

Every number is checked against an independent computation: a separate
``numpy.linalg.eigh``/``eigvalsh``, ``scipy.linalg.sqrtm``, plain matrix algebra
(``K @ K``, ``K + c I``) or Munoz & de Diego (2006) eqs. 1-7 written out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein._validation import SYMMETRY_RTOL, check_square_kernel
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.spectrum import (
    TRANSFORMS,
    Spectrum,
    SpectrumCorrection,
    correct_eigenvalues,
    transductive_rows,
)

HSETTINGS = settings(max_examples=25, deadline=None)


# ----------------------------------------------------------------- helpers


def random_orthogonal(n, rng):
    Q, R = np.linalg.qr(rng.normal(size=(n, n)))
    return Q * np.sign(np.diag(R))


def designed(lam, rng):
    """``Q diag(lam) Q'`` with a random orthogonal ``Q`` (exactly symmetric)."""
    lam = np.asarray(lam, dtype=float)
    Q = random_orthogonal(lam.size, rng)
    K = (Q * lam) @ Q.T
    return 0.5 * (K + K.T)


def eig_full(K):
    lam, U = np.linalg.eigh(K)
    return lam, U


def sigmoid_data(n=30, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, sigmoid_kernel(X, a=1.0, r=-1.0)


@st.composite
def mixed_spectra(draw, n_max=12):
    """Eigenvalues with a random signature (p, q, z), magnitudes in [0.2, 5], and a seed."""
    p = draw(st.integers(0, 6))
    q = draw(st.integers(0, 6))
    z = draw(st.integers(0, 3))
    if p + q + z < 2:
        p += 2
    mags = draw(st.lists(st.floats(0.2, 5.0), min_size=p + q, max_size=p + q))
    lam = np.r_[np.array(mags[:p]), -np.array(mags[p:]), np.zeros(z)]
    seed = draw(st.integers(0, 2**32 - 1))
    return lam, seed


@st.composite
def nonsingular_mixed(draw):
    """Nonsingular matrix with both signs, distinct |eigenvalues| (no ties at thresholds)."""
    p = draw(st.integers(1, 6))
    q = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # magnitudes well separated: 0.3, 0.55, 0.8, ... shuffled over signs
    mags = 0.3 + 0.25 * rng.permutation(p + q)
    lam = np.r_[mags[:p], -mags[p:]]
    return designed(lam, rng), lam


# ----------------------------------------------------------------- decomposition


@HSETTINGS
@given(mixed_spectra())
def test_eigenvalues_match_eigvalsh_and_reconstruct(spec_seed):
    lam_true, seed = spec_seed
    K = designed(lam_true, np.random.default_rng(seed))
    s = Spectrum.from_kernel(K)
    ref = np.linalg.eigvalsh(K)
    np.testing.assert_allclose(s.eigenvalues, ref, atol=1e-12)
    np.testing.assert_allclose(s.eigenvalues, np.sort(lam_true), atol=1e-12)
    assert s.n == K.shape[0] and not s.partial
    V = s.eigenvectors
    np.testing.assert_allclose(V.T @ V, np.eye(K.shape[0]), atol=1e-12)
    np.testing.assert_allclose(s.reconstruct(), K, atol=1e-12)
    np.testing.assert_allclose(s.total_abs, np.abs(lam_true).sum(), rtol=1e-10, atol=1e-12)


@HSETTINGS
@given(mixed_spectra())
def test_signature_of_designed_spectrum(spec_seed):
    lam_true, seed = spec_seed
    K = designed(lam_true, np.random.default_rng(seed))
    s = Spectrum.from_kernel(K)
    p = int(np.sum(lam_true > 0))
    q = int(np.sum(lam_true < 0))
    assert s.signature == (p, q, len(lam_true) - p - q)
    # the stated default tolerance: n * machine eps * max |lam|
    lam_ref = np.linalg.eigvalsh(K)
    expected_tol = K.shape[0] * np.finfo(float).eps * np.max(np.abs(lam_ref))
    np.testing.assert_allclose(s.tol, expected_tol, rtol=1e-8, atol=1e-300)


def test_signature_respects_given_tol():
    rng = np.random.default_rng(3)
    K = designed([3.0, 1e-4, -1e-4, -2.0, 0.0], rng)
    assert Spectrum.from_kernel(K).signature == (2, 2, 1)
    assert Spectrum.from_kernel(K, tol=1e-3).signature == (1, 1, 3)
    with pytest.raises(ValueError, match="tol"):
        Spectrum.from_kernel(K, tol=-1.0)


@HSETTINGS
@given(mixed_spectra())
def test_min_max_rmm_rneg_by_hand(spec_seed):
    lam_true, seed = spec_seed
    K = designed(lam_true, np.random.default_rng(seed))
    s = Spectrum.from_kernel(K)
    lam = np.linalg.eigvalsh(K)
    lmin, lmax = lam.min(), lam.max()
    assert s.min_eigenvalue == pytest.approx(lmin, abs=1e-12)
    assert s.max_eigenvalue == pytest.approx(lmax, abs=1e-12)
    # munoz eq. 2, r_neg = 100 sum_{lam<0}|lam| / sum|lam| (designed eigenvalues, exact zeros)
    total = np.abs(lam_true).sum()
    r_neg = 100.0 * np.abs(lam_true[lam_true < 0]).sum() / total if total > 0 else 0.0
    assert s.r_neg == pytest.approx(r_neg, rel=1e-9, abs=1e-9)
    # munoz eq. 2, r_mm = 100 |lam_min| / lam_max for an indefinite matrix;
    # the documented convention is 0 without negative eigenvalues, inf without positive ones.
    p, q = np.sum(lam_true > 0), np.sum(lam_true < 0)
    if p and q:
        assert s.r_mm == pytest.approx(100.0 * abs(lam_true.min()) / lam_true.max(), rel=1e-9)
    elif q == 0:
        assert s.r_mm == pytest.approx(0.0, abs=1e-9)
    elif np.all(lam_true != 0):  # negative definite (with zeros: see test_r_mm_negative_semidefinite_with_numerical_zeros)
        assert s.r_mm == np.inf


def test_r_mm_negative_semidefinite_with_numerical_zeros():
    K = np.diag([-1.0, 1e-18, 0.0])  # eigh of a diagonal matrix is exact: no round-off
    s = Spectrum.from_kernel(K)
    assert s.tol > 1e-18
    assert s.signature == (0, 1, 2)  # 1e-18 is a numerical zero
    assert s.r_mm == np.inf


def test_summary_keys_consistent():
    _, K = sigmoid_data()
    s = Spectrum.from_kernel(K)
    d = s.summary()
    lam = np.linalg.eigvalsh(K)
    assert d["n"] == 30
    assert d["p"] + d["q"] + d["z"] == 30
    assert d["min_eigenvalue"] == pytest.approx(lam.min(), abs=1e-12)
    assert d["q"] >= 1 and d["p"] >= 1


def test_asymmetric_within_tolerance_is_symmetrized():
    rng = np.random.default_rng(4)
    K = designed([2.0, 1.0, -0.5, -1.5, 0.7], rng)
    Kn = K + 1e-12 * rng.normal(size=K.shape)
    assert np.max(np.abs(Kn - Kn.T)) > 0
    Ks = check_square_kernel(Kn)
    np.testing.assert_array_equal(Ks, Ks.T)
    np.testing.assert_allclose(Ks, 0.5 * (Kn + Kn.T), atol=0)
    s = Spectrum.from_kernel(Kn)
    np.testing.assert_allclose(s.eigenvalues, np.linalg.eigvalsh(0.5 * (Kn + Kn.T)), atol=1e-12)


def test_asymmetric_beyond_tolerance_rejected():
    K = np.array([[1.0, 0.5], [0.5 + 10 * SYMMETRY_RTOL, 1.0]])
    with pytest.raises(ValueError, match="K is not symmetric"):
        Spectrum.from_kernel(K)
    with pytest.raises(ValueError, match="K is not symmetric"):
        SpectrumCorrection(correction="clip").fit(K)


@pytest.mark.parametrize(
    "K, match, transformer_match",
    [
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "K contains NaN", "Input K contains NaN"),
        (np.array([[1.0, np.inf], [np.inf, 1.0]]), "K contains NaN or inf",
         "Input K contains infinity"),
        (np.ones((2, 3)), "K must be a square", "K must be a square"),
        (np.ones(3), "K must be a square", "K: Expected 2D array"),
        (np.eye(3) + 1j, None, "K: Complex data not supported"),
    ],
)
def test_bad_kernel_matrix(K, match, transformer_match):
    if match is not None:  # Spectrum.from_kernel casts complex input (krein._validation)
        with pytest.raises(ValueError, match=match):
            Spectrum.from_kernel(K)
    with pytest.raises(ValueError, match=transformer_match):
        SpectrumCorrection().fit(K)


def test_transformer_refuses_sparse_kernels():
    """A sparse kernel is refused in fit and transform, naming sparse input (scikit-learn's
    TypeError), not with NumPy's 'setting an array element with a sequence'."""
    sparse = pytest.importorskip("scipy.sparse")
    _, K = sigmoid_data(n=12)
    with pytest.raises(TypeError, match="[Ss]parse"):
        SpectrumCorrection().fit(sparse.csr_matrix(K))
    tr = SpectrumCorrection().fit(K)
    assert tr.n_features_in_ == 12
    with pytest.raises(TypeError, match="[Ss]parse"):
        tr.transform(sparse.csr_matrix(K[:3]))


# ----------------------------------------------------------------- partial decompositions


def top_k_by_magnitude(lam, k):
    return np.sort(lam[np.argsort(-np.abs(lam), kind="stable")[:k]])


@pytest.fixture
def eigsh_calls(monkeypatch):
    """Record calls of scipy.sparse.linalg.eigsh and numpy.linalg.eigh (which path ran)."""
    calls = []
    real_eigsh, real_eigh = scipy.sparse.linalg.eigsh, np.linalg.eigh

    def spy_eigsh(*args, **kwargs):
        calls.append("eigsh")
        return real_eigsh(*args, **kwargs)

    def spy_eigh(*args, **kwargs):
        calls.append("eigh")
        return real_eigh(*args, **kwargs)

    monkeypatch.setattr(scipy.sparse.linalg, "eigsh", spy_eigsh)
    monkeypatch.setattr(np.linalg, "eigh", spy_eigh)
    return calls


def large_designed(n=320, seed=5):
    rng = np.random.default_rng(seed)
    # distinct magnitudes, signs alternating in blocks, geometric decay, some exact zeros
    mags = 10.0 * 0.85 ** np.arange(n)
    signs = np.where(rng.random(n) < 0.4, -1.0, 1.0)
    lam = signs * mags
    lam[-20:] = 0.0
    return designed(lam, rng), lam


@pytest.mark.parametrize("k", [1, 7, 40])
def test_n_components_arpack_path(eigsh_calls, k):
    K, lam_true = large_designed()
    s = Spectrum.from_kernel(K, n_components=k)
    assert eigsh_calls == ["eigsh"], "the ARPACK path did not run"
    assert s.partial and s.eigenvalues.shape == (k,) and s.eigenvectors.shape == (K.shape[0], k)
    np.testing.assert_allclose(s.eigenvalues, top_k_by_magnitude(np.linalg.eigvalsh(K), k), rtol=1e-9, atol=1e-10)
    V = s.eigenvectors
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-9)
    np.testing.assert_allclose(K @ V, V * s.eigenvalues, atol=1e-8)
    p, q, z = s.signature
    assert p + q == k and z == K.shape[0] - k
    assert p == np.sum(s.eigenvalues > 0)


@pytest.mark.parametrize("k", [1, 3, 9, 12])
def test_n_components_small_eigh_path(eigsh_calls, k):
    K, lam = nonsingular_mixed_fixed(12)
    s = Spectrum.from_kernel(K, n_components=k)
    assert eigsh_calls == ["eigh"]
    np.testing.assert_allclose(s.eigenvalues, top_k_by_magnitude(np.linalg.eigvalsh(K), k), atol=1e-12)
    assert s.partial == (k < 12)
    V = s.eigenvectors
    np.testing.assert_allclose(K @ V, V * s.eigenvalues, atol=1e-10)
    if k == 12:
        np.testing.assert_allclose(s.reconstruct(), K, atol=1e-12)


def nonsingular_mixed_fixed(n, seed=6):
    rng = np.random.default_rng(seed)
    mags = 0.3 + 0.25 * rng.permutation(n)
    signs = np.where(np.arange(n) % 3 == 0, -1.0, 1.0)
    lam = signs * mags
    return designed(lam, rng), lam


@pytest.mark.parametrize("bad", [0, -1, 13, 2.0, "3"])
def test_n_components_out_of_range(bad):
    K, _ = nonsingular_mixed_fixed(12)
    with pytest.raises(ValueError, match="n_components"):
        Spectrum.from_kernel(K, n_components=bad)


@pytest.mark.parametrize("bad", [0, -0.1, 1.01, 2, float("nan")])
def test_energy_out_of_range(bad):
    K, _ = nonsingular_mixed_fixed(12)
    with pytest.raises(ValueError, match="energy"):
        Spectrum.from_kernel(K, energy=bad)


def test_both_n_components_and_energy():
    K, _ = nonsingular_mixed_fixed(12)
    with pytest.raises(ValueError, match="n_components and energy"):
        Spectrum.from_kernel(K, n_components=3, energy=0.5)


def share_of(kept, lam_full):
    return np.abs(kept).sum() / np.abs(lam_full).sum()


@HSETTINGS
@given(mixed_spectra(), st.floats(0.05, 1.0))
def test_energy_small_n_is_minimal_set(spec_seed, energy):
    lam_true, seed = spec_seed
    if not np.any(lam_true):
        return
    K = designed(lam_true, np.random.default_rng(seed))
    s = Spectrum.from_kernel(K, energy=energy)
    lam_full = np.linalg.eigvalsh(K)
    m = s.eigenvalues.size
    # the kept ones are the m largest in magnitude (compared as magnitudes: ties
    # between +l and -l may be broken either way) and are eigenvalues of K
    np.testing.assert_allclose(np.sort(np.abs(s.eigenvalues)), np.sort(np.abs(lam_full))[::-1][:m][::-1], atol=1e-12)
    assert np.all(np.min(np.abs(s.eigenvalues[:, None] - lam_full[None, :]), axis=1) < 1e-12)
    np.testing.assert_allclose(K @ s.eigenvectors, s.eigenvectors * s.eigenvalues, atol=1e-11)
    # their share reaches energy ...
    assert share_of(s.eigenvalues, lam_full) >= energy * (1 - 1e-9)
    # ... and one fewer would not (minimal set, full-eigh path)
    if m > 1:
        assert share_of(top_k_by_magnitude(lam_full, m - 1), lam_full) < energy
    np.testing.assert_allclose(s.eigenvectors.T @ s.eigenvectors, np.eye(m), atol=1e-12)


def test_energy_one_keeps_exactly_the_nonzero_spectrum():
    rng = np.random.default_rng(7)
    lam = np.r_[3.0, 1.0, 0.5, -2.0, -0.25, np.zeros(4)]
    s = Spectrum.from_kernel(designed(lam, rng), energy=1.0)
    np.testing.assert_allclose(s.eigenvalues, np.sort(lam[lam != 0]), atol=1e-12)
    assert s.signature == (3, 2, 4)


@pytest.mark.parametrize("energy", [0.5, 0.9])
def test_energy_arpack_path(eigsh_calls, energy):
    K, _ = large_designed()
    s = Spectrum.from_kernel(K, energy=energy)
    assert "eigsh" in eigsh_calls and "eigh" not in eigsh_calls, "the ARPACK path did not run"
    lam_full = np.linalg.eigvalsh(K)
    m = s.eigenvalues.size
    np.testing.assert_allclose(s.eigenvalues, top_k_by_magnitude(lam_full, m), rtol=1e-9, atol=1e-10)
    true_share = share_of(s.eigenvalues, lam_full)
    assert true_share >= energy
    # conservative but not wasteful: energy_share is a lower bound of the true share
    assert energy <= s.energy_share <= true_share + 1e-12
    minimal = int(np.searchsorted(np.cumsum(np.sort(np.abs(lam_full))[::-1]), energy * np.abs(lam_full).sum())) + 1
    assert minimal <= m <= K.shape[0] // 4
    assert s.partial


# ----------------------------------------------------------------- corrections (training kernel)


def munoz_reference(K, method, eps=0.0, shift=None):
    """Each corrected kernel computed from a separate eigh / plain algebra (munoz eqs. 1-7)."""
    lam, U = eig_full(K)
    n = K.shape[0]
    if method == "clip":
        r = lam > 0
        return (U[:, r] * lam[r]) @ U[:, r].T  # eq. 1, eps = 0
    if method == "mds":
        r = lam > eps
        return (U[:, r] * lam[r]) @ U[:, r].T  # eq. 1
    if method == "flip":
        return np.real(scipy.linalg.sqrtm(K @ K))  # |K| = (K^2)^(1/2)
    if method == "pseudo":
        r = np.abs(lam) >= eps
        return (U[:, r] * np.abs(lam[r])) @ U[:, r].T  # eq. 4
    if method == "shift":
        return K - min(lam.min(), 0.0) * np.eye(n)
    if method == "add_diagonal":
        c = max(0.0, -lam.min()) if shift is None else shift
        return K + c * np.eye(n)  # eq. 6
    if method == "square":
        return K @ K  # eq. 7
    raise AssertionError(method)


METHOD_PARAMS = [
    ("clip", {}),
    ("mds", {"eps": 0.0}),
    ("mds", {"eps": 0.5}),
    ("flip", {}),
    ("pseudo", {"eps": 0.0}),
    ("pseudo", {"eps": 0.5}),
    ("shift", {}),
    ("add_diagonal", {}),
    ("add_diagonal", {"shift": 25.0}),
    ("square", {}),
]


@pytest.mark.parametrize("method, params", METHOD_PARAMS)
@HSETTINGS
@given(data=nonsingular_mixed())
def test_corrected_kernel_is_psd_and_matches_munoz(method, params, data, assert_psd):
    K, _ = data  # eigenvalue magnitudes 0.3, 0.55, ... never equal to eps = 0.5
    s = Spectrum.from_kernel(K)
    Kc = s.corrected_kernel(method, **params)
    np.testing.assert_allclose(Kc, Kc.T, atol=1e-12)
    assert_psd(Kc)
    np.testing.assert_allclose(Kc, munoz_reference(K, method, **params), atol=1e-9)


@pytest.mark.parametrize("method", ["clip", "mds", "flip", "pseudo", "shift", "add_diagonal", "square"])
@HSETTINGS
@given(spec_seed=mixed_spectra())
def test_corrected_kernel_psd_with_zero_eigenvalues(method, spec_seed, assert_psd):
    lam_true, seed = spec_seed
    K = designed(lam_true, np.random.default_rng(seed))
    s = Spectrum.from_kernel(K)
    Kc = s.corrected_kernel(method)
    assert_psd(Kc)
    if method != "flip":  # sqrtm is unreliable on singular K^2; flip is checked above
        np.testing.assert_allclose(Kc, munoz_reference(K, method), atol=1e-9)
    else:
        lam, U = eig_full(K)
        np.testing.assert_allclose(Kc, (U * np.abs(lam)) @ U.T, atol=1e-9)


def test_corrected_kernel_on_sigmoid_kernel(assert_psd):
    _, K = sigmoid_data()
    s = Spectrum.from_kernel(K)
    assert s.min_eigenvalue < 0
    for method in TRANSFORMS:
        Kc = s.corrected_kernel(method)
        assert_psd(Kc)
        if method != "flip":
            np.testing.assert_allclose(Kc, munoz_reference(K, method), atol=1e-9)
        else:
            lam, U = eig_full(K)
            np.testing.assert_allclose(Kc, (U * np.abs(lam)) @ U.T, atol=1e-9)


def test_add_diagonal_too_small_shift_is_not_psd():
    rng = np.random.default_rng(8)
    K = designed([2.0, -1.0, 0.5], rng)
    Kc = Spectrum.from_kernel(K).corrected_kernel("add_diagonal", shift=0.5)
    np.testing.assert_allclose(Kc, K + 0.5 * np.eye(3), atol=1e-12)
    assert np.linalg.eigvalsh(Kc).min() == pytest.approx(-0.5, abs=1e-12)


def test_shift_on_psd_matrix_is_identity():
    rng = np.random.default_rng(9)
    K = designed([2.0, 1.0, 0.5, 0.1], rng)
    np.testing.assert_allclose(Spectrum.from_kernel(K).corrected_kernel("shift"), K, atol=1e-12)


@pytest.mark.parametrize("bad", [-1.0, np.nan, "a"])
def test_bad_eps(bad):
    with pytest.raises(ValueError, match="eps"):
        correct_eigenvalues(np.array([1.0, -1.0]), "mds", eps=bad)


def test_correct_eigenvalues_unknown_method():
    with pytest.raises(ValueError, match="spectrum correction"):
        correct_eigenvalues(np.array([1.0, -1.0]), "abs")


def test_correct_eigenvalues_table():
    lam = np.array([-3.0, -0.2, 0.0, 0.1, 2.0])
    np.testing.assert_array_equal(correct_eigenvalues(lam, "clip"), [0, 0, 0, 0.1, 2])
    np.testing.assert_array_equal(correct_eigenvalues(lam, "mds", eps=0.1), [0, 0, 0, 0, 2])
    np.testing.assert_array_equal(correct_eigenvalues(lam, "flip"), [3, 0.2, 0, 0.1, 2])
    np.testing.assert_array_equal(correct_eigenvalues(lam, "pseudo", eps=0.2), [3, 0.2, 0, 0, 2])
    np.testing.assert_allclose(correct_eigenvalues(lam, "shift"), lam + 3)
    np.testing.assert_allclose(correct_eigenvalues(lam, "add_diagonal"), lam + 3)
    np.testing.assert_allclose(correct_eigenvalues(lam, "add_diagonal", shift=1.0), lam + 1)
    np.testing.assert_allclose(correct_eigenvalues(lam, "square"), lam**2)


# ----------------------------------------------------------------- out-of-sample maps


@pytest.mark.parametrize(
    "method, params",
    [("clip", {}), ("mds", {"eps": 0.5}), ("flip", {}), ("pseudo", {"eps": 0.5}), ("square", {}), ("shift", {}), ("add_diagonal", {}), ("add_diagonal", {"shift": 2.0})],
)
@HSETTINGS
@given(data=nonsingular_mixed())
def test_row_map_reproduces_training_kernel(method, params, data):
    K, _ = data
    s = Spectrum.from_kernel(K)
    np.testing.assert_allclose(s.apply_row_map(K, method, **params), s.corrected_kernel(method, **params), atol=1e-9)
    np.testing.assert_allclose(K @ s.row_map(method, **params), s.corrected_kernel(method, **params), atol=1e-9)


@pytest.mark.parametrize("method", ["clip", "mds", "flip", "pseudo", "square"])
@HSETTINGS
@given(spec_seed=mixed_spectra())
def test_row_map_reproduces_training_kernel_singular(method, spec_seed):
    lam_true, seed = spec_seed
    K = designed(lam_true, np.random.default_rng(seed))
    s = Spectrum.from_kernel(K)
    np.testing.assert_allclose(s.apply_row_map(K, method), s.corrected_kernel(method), atol=1e-9)


def test_out_of_sample_munoz_by_hand():
    rng = np.random.default_rng(10)
    lam_true = np.r_[4.0, 2.5, 1.2, 0.6, 0.0, -0.4, -0.9, -3.0]
    K = designed(lam_true, rng)
    Kx = rng.normal(size=(5, 8))  # arbitrary new rows K(x, .)
    s = Spectrum.from_kernel(K)
    lam, U = eig_full(K)
    # eq. 3 (clip, mds): K(x,.) U_r U_r'
    Ur = U[:, lam > 1e-9]
    np.testing.assert_allclose(s.apply_row_map(Kx, "clip"), Kx @ Ur @ Ur.T, atol=1e-10)
    Ur = U[:, lam > 1.0]
    np.testing.assert_allclose(s.apply_row_map(Kx, "mds", eps=1.0), Kx @ Ur @ Ur.T, atol=1e-10)
    # eq. 5 (flip, pseudo): K(x,.) U_k M U_k', M = diag(I_p, -I_q)
    k = np.abs(lam) > 1e-9
    Uk, M = U[:, k], np.diag(np.sign(lam[k]))
    np.testing.assert_allclose(s.apply_row_map(Kx, "flip"), Kx @ Uk @ M @ Uk.T, atol=1e-10)
    k = np.abs(lam) >= 0.8
    Uk, M = U[:, k], np.diag(np.sign(lam[k]))
    np.testing.assert_allclose(s.apply_row_map(Kx, "pseudo", eps=0.8), Kx @ Uk @ M @ Uk.T, atol=1e-10)
    # eq. 7 (square): K(x,.) K
    np.testing.assert_allclose(s.apply_row_map(Kx, "square"), Kx @ K, atol=1e-10)
    # row_map gives the same (n, n) operator
    np.testing.assert_allclose(Kx @ s.row_map("square"), Kx @ K, atol=1e-10)


def test_apply_row_map_bad_rows():
    K, _ = nonsingular_mixed_fixed(6)
    s = Spectrum.from_kernel(K)
    with pytest.raises(ValueError, match="K_rows"):
        s.apply_row_map(np.ones((2, 5)), "clip")
    with pytest.raises(ValueError, match="K_rows"):
        s.apply_row_map(np.full((2, 6), np.nan), "clip")


# ----------------------------------------------------------------- transductive


@pytest.mark.parametrize("method, params", [("clip", {}), ("flip", {}), ("mds", {"eps": 0.5}), ("square", {}), ("add_diagonal", {"shift": 1.0})])
def test_transductive_rows_by_hand(method, params):
    _, K = sigmoid_data(n=14, seed=11)
    n = 10
    lam, U = eig_full(K)
    g = {
        "clip": lambda l: np.maximum(l, 0),
        "flip": np.abs,
        "mds": lambda l: np.where(l > 0.5, l, 0),
        "square": lambda l: l**2,
        "add_diagonal": lambda l: l + 1.0,
    }[method](lam)
    full = (U * g) @ U.T
    np.testing.assert_allclose(transductive_rows(K, n, method, **params), full[n:, :n], atol=1e-10)


def test_transductive_rows_psd_joint_with_clip_is_identity():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(15, 2))
    K = gaussian_kernel(X, gamma=0.5)  # PSD: clip leaves it unchanged
    np.testing.assert_allclose(transductive_rows(K, 11, "clip"), K[11:, :11], atol=1e-10)


def test_transductive_rows_shift_keeps_off_diagonal_block():
    # K + lambda I differs from K only on the diagonal
    _, K = sigmoid_data(n=12, seed=13)
    np.testing.assert_allclose(transductive_rows(K, 8, "shift"), K[8:, :8], atol=1e-10)


@pytest.mark.parametrize("bad", [0, 12, -1, 2.5])
def test_transductive_rows_bad_n_train(bad):
    _, K = sigmoid_data(n=12)
    with pytest.raises(ValueError, match="n_train"):
        transductive_rows(K, bad, "clip")


# ----------------------------------------------------------------- SpectrumCorrection


@pytest.mark.parametrize("method, params", METHOD_PARAMS)
def test_transformer_fit_transform(method, params, assert_psd):
    _, K = sigmoid_data()
    tr = SpectrumCorrection(correction=method, **params)
    Kc = tr.fit_transform(K)
    np.testing.assert_allclose(Kc, Spectrum.from_kernel(K).corrected_kernel(method, **params), atol=1e-12)
    if method == "flip":  # |K| from a separate eigh (K may be near-singular: no sqrtm)
        lam, U = eig_full(K)
        ref = (U * np.abs(lam)) @ U.T
    else:
        ref = munoz_reference(K, method, **params)
    np.testing.assert_allclose(Kc, ref, atol=1e-9)
    assert_psd(Kc)
    assert tr.n_features_in_ == 30
    assert tr.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(K).min(), abs=1e-12)


def _split(K, n):
    return K[:n, :n], K[n:, :n], K[n:, n:]


@pytest.mark.parametrize("method", list(TRANSFORMS))
def test_transformer_transform_modes(method):
    _, K = sigmoid_data(n=26, seed=14)
    Ktr, Kte, Ktt = _split(K, 20)
    s = Spectrum.from_kernel(Ktr)
    # raw: unchanged (and a copy)
    out = SpectrumCorrection(correction=method, out_of_sample="raw").fit(Ktr).transform(Kte)
    np.testing.assert_array_equal(out, Kte)
    assert out is not Kte
    # spectral: the row map
    out = SpectrumCorrection(correction=method, out_of_sample="spectral").fit(Ktr).transform(Kte)
    np.testing.assert_allclose(out, s.apply_row_map(Kte, method), atol=1e-12)
    # auto: raw for shift/add_diagonal, spectral otherwise
    auto = SpectrumCorrection(correction=method).fit(Ktr)
    expected = Kte if method in ("shift", "add_diagonal") else s.apply_row_map(Kte, method)
    assert auto.resolved_out_of_sample() == ("raw" if method in ("shift", "add_diagonal") else "spectral")
    np.testing.assert_allclose(auto.transform(Kte), expected, atol=1e-12)
    # transductive: (m, n + m) rows, compare with a hand decomposition of the joint kernel
    tr = SpectrumCorrection(correction=method, out_of_sample="transductive").fit(Ktr)
    out = tr.transform(np.hstack([Kte, Ktt]))
    assert out.shape == (6, 20)
    lam, U = eig_full(K)
    g = correct_eigenvalues(lam, method)
    np.testing.assert_allclose(out, ((U * g) @ U.T)[20:, :20], atol=1e-10)


def test_transformer_spectral_on_training_rows_reproduces_fit_transform():
    _, K = sigmoid_data()
    for method in ("clip", "mds", "flip", "pseudo", "square"):
        tr = SpectrumCorrection(correction=method, out_of_sample="spectral")
        np.testing.assert_allclose(tr.fit_transform(K), tr.transform(K), atol=1e-9)


def test_transformer_in_cross_val_score():
    X, y = make_classification(n_samples=60, n_features=5, n_informative=3, random_state=0)
    K = sigmoid_kernel(X, a=0.5, r=-1.0)
    assert np.linalg.eigvalsh(K).min() < -1e-6  # genuinely indefinite
    pipe = make_pipeline(SpectrumCorrection(correction="clip"), SVC(kernel="precomputed"))
    scores = cross_val_score(pipe, K, y, cv=3)
    assert scores.shape == (3,)
    assert np.all((scores >= 0) & (scores <= 1))
    # the pipeline must have been given square training blocks and (m, n) test rows:
    # replaying one split by hand gives the same score
    from sklearn.model_selection import StratifiedKFold

    tr_idx, te_idx = next(StratifiedKFold(3).split(K, y))
    corr = SpectrumCorrection(correction="clip")
    svc = SVC(kernel="precomputed").fit(corr.fit_transform(K[np.ix_(tr_idx, tr_idx)]), y[tr_idx])
    acc = np.mean(svc.predict(corr.transform(K[np.ix_(te_idx, tr_idx)])) == y[te_idx])
    assert scores[0] == pytest.approx(acc)


def test_transformer_clone():
    tr = SpectrumCorrection(correction="add_diagonal", out_of_sample="raw", eps=0.1, shift=2.0)
    c = clone(tr)
    assert c is not tr
    assert c.get_params() == tr.get_params()
    _, K = sigmoid_data()
    tr.fit(K)
    c2 = clone(tr)
    assert not hasattr(c2, "spectrum_")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"correction": "abs"}, "'correction' parameter of SpectrumCorrection must be a str among"),
        ({"correction": "clip", "out_of_sample": "nearest"}, "'out_of_sample' parameter"),
        ({"correction": "mds", "eps": -1.0}, "'eps' parameter"),
        ({"correction": "add_diagonal", "shift": np.nan}, "'shift' parameter"),
        ({"correction": "add_diagonal", "shift": np.inf}, "'shift' parameter"),
    ],
)
def test_transformer_bad_params(kwargs, match):
    _, K = sigmoid_data()
    with pytest.raises(ValueError, match=match):
        SpectrumCorrection(**kwargs).fit(K)


def test_transformer_bad_transform_input():
    _, K = sigmoid_data(n=26)
    Ktr, Kte, Ktt = _split(K, 20)
    tr = SpectrumCorrection(correction="clip").fit(Ktr)
    with pytest.raises(ValueError, match="K_rows"):
        tr.transform(Kte[:, :19])
    with pytest.raises(ValueError, match="K_rows"):
        tr.transform(np.where(Kte > 0.5, np.nan, Kte))
    trd = SpectrumCorrection(correction="clip", out_of_sample="transductive").fit(Ktr)
    with pytest.raises(ValueError, match="transductive"):
        trd.transform(Kte)  # (m, n) instead of (m, n + m)


# ------------------------------------------------- factors, sign map, flipped kernel


@pytest.mark.parametrize("correction", ["clip", "flip", "shift", "square"])
def test_psd_factor_is_the_kept_columns_and_reconstructs_the_correction(correction):
    lam = np.array([-2.0, -0.5, 0.0, 1e-17, 0.3, 1.5, 4.0])
    rng = np.random.default_rng(3)
    K = designed(lam, rng)
    spec = Spectrum.from_kernel(K)
    g = spec.corrected_eigenvalues(correction)
    F = spec.psd_factor(g)
    keep = g > spec.tol
    V = spec.eigenvectors
    # the same expression, bit for bit, and F F' the corrected kernel
    np.testing.assert_array_equal(F, V[:, keep] * np.sqrt(g[keep]))
    np.testing.assert_allclose(F @ F.T, spec.corrected_kernel(correction), rtol=0, atol=1e-12)
    rows = np.array([5, 1, 3])
    np.testing.assert_array_equal(spec.psd_factor(g, rows=rows), V[rows][:, keep] * np.sqrt(g[keep]))
    tol = 1.0
    np.testing.assert_array_equal(spec.psd_factor(g, tol=tol), V[:, g > tol] * np.sqrt(g[g > tol]))


def test_signs_by_hand_and_the_signed_factor():
    lam = np.array([-3.0, -1e-18, 0.0, 2e-18, 0.7, 2.0])
    rng = np.random.default_rng(4)
    K = designed(lam, rng)
    spec = Spectrum.from_kernel(K)
    lam_s = spec.eigenvalues
    # by hand: +1 / -1 beyond the null tolerance, 0 within it
    expected = np.array([-1.0 if v < -spec.tol else 1.0 if v > spec.tol else 0.0 for v in lam_s])
    s = spec.signs()
    np.testing.assert_array_equal(s, expected)
    assert s.tolist().count(0.0) == 3
    keep = s != 0
    F = spec.signed_factor()
    np.testing.assert_array_equal(F, spec.eigenvectors[:, keep] * np.sqrt(np.abs(lam_s[keep])))
    np.testing.assert_allclose((F * s[keep]) @ F.T, K, rtol=0, atol=1e-12)
    np.testing.assert_allclose(F @ F.T, spec.corrected_kernel("flip"), rtol=0, atol=1e-12)
    order = np.array([4, 0, 5])
    np.testing.assert_array_equal(spec.signed_factor(order),
                                  spec.eigenvectors[:, order] * np.sqrt(np.abs(lam_s[order])))


@pytest.mark.parametrize("lam", [np.array([-2.0, -1.0, 0.5, 1.0, 3.0]),          # fewer negative
                                 np.array([-2.0, -1.0, -0.5, 0.0, 3.0])])        # more negative
def test_flipped_kernel_is_v_abs_lambda_v(lam):
    K = designed(lam, np.random.default_rng(5))
    spec = Spectrum.from_kernel(K)
    V = spec.eigenvectors
    np.testing.assert_allclose(spec.flipped_kernel(K), (V * np.abs(spec.eigenvalues)) @ V.T,
                               rtol=0, atol=1e-12)
    part = Spectrum.from_kernel(K, n_components=3)
    Vp = part.eigenvectors
    np.testing.assert_allclose(part.flipped_kernel(K), (Vp * np.abs(part.eigenvalues)) @ Vp.T,
                               rtol=0, atol=1e-12)
