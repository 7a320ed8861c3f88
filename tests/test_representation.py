"""The kernel's representations (krein/representation.py), each against something independent.

* :class:`SignedFeatures`: products, diagonal and spectrum against the dense
  ``Z diag(s) Z'`` and ``numpy.linalg.eigh``;
* :class:`LandmarkColumns`: at full rank (every object a landmark) the exact kernel and
  its exact rows of new objects; at low rank the Nyström approximation ``C W^+ C'`` and
  extension ``k(x, landmarks) W^+ C'`` computed by hand, and the same numbers as
  :class:`~krein.approximation.IndefiniteNystroem` on the same columns;
* :class:`ExactKernel`: its eigenfeatures reconstruct ``K`` and extend to new rows;
* sub-representations: the slice ``K[idx][:, idx]`` of the dense matrix, and the
  eigenfeatures of new objects reproduce their kernel rows against the subset;
* one method (the approximate paths of ESVC and SpectrumSVC, written once on the
  interface) on the representations of one full-rank kernel: the exact estimator's
  decision values, to 1e-6 of ``max |f|``;
* the approximate path never asks for the dense matrix; bad input names its argument.
"""

from __future__ import annotations

import numpy as np
import pytest

from krein import IndefiniteNystroem
from krein.estimators import ESVC, KSVC, SpectrumSVC
from krein.estimators.rkks import KreinLeastSquaresClassifier
from krein.kernels import sigmoid_kernel
from krein.representation import (MAX_DENSE_ENTRIES, REPRESENTATION_KINDS, ExactKernel,
                                  KernelRepresentation, LandmarkColumns, SignedFeatures)

#: A full-rank indefinite sigmoid kernel of 10-D Gaussian points (as in
#: test_approximate_estimators.py).
KP = {"a": 0.3, "r": -0.5}
N = 80

#: Decision values of two representations of one kernel, relative to max |f|.
RTOL = 1e-6

#: Matrices computed two ways, relative to their largest entry.
MTOL = 1e-9


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, 10))
    Xt = rng.standard_normal((30, 10))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(N) > 0, 1, -1)
    K = sigmoid_kernel(X, X, **KP)
    Kt = sigmoid_kernel(Xt, X, **KP)
    return X, Xt, y, K, Kt


@pytest.fixture(scope="module")
def factor():
    """A signed factor that is no eigendecomposition: random Z, 4 negative of 9 columns."""
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((40, 9))
    s = np.where(np.arange(9) < 4, -1.0, 1.0)
    Zt = rng.standard_normal((7, 9))
    return Z, s, Zt


def close(a, b, tol=MTOL):
    scale = max(float(np.max(np.abs(b))), 1.0)
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) <= tol * scale


def reconstruct(eig):
    return (eig.features * eig.signs) @ eig.features.T


def test_the_kernel_is_full_rank_and_indefinite(data):
    lam = np.linalg.eigvalsh(data[3])
    assert np.sum(lam < 0) >= 10 and np.sum(lam > 0) >= 10
    assert np.min(np.abs(lam)) > 1e-6 * np.max(np.abs(lam))


# ------------------------------------------------------------------ signed features
def test_signed_features_against_the_dense_matrix(factor):
    Z, s, Zt = factor
    D = (Z * s) @ Z.T
    rep = SignedFeatures(Z, s)
    v = np.random.default_rng(2).standard_normal((Z.shape[0], 3))
    assert rep.kind == "signed-features" and rep.n == Z.shape[0]
    assert close(rep.dot(v), D @ v) and close(rep.dot(v[:, 0]), D @ v[:, 0])
    assert close(rep.diagonal(), np.diag(D))
    assert close(rep.dense(), D)
    # the spectrum from the r x r problem: the nonzero eigenvalues of numpy's eigh of D
    eig = rep.eigenfeatures()
    lam = np.linalg.eigvalsh(D)
    lam = lam[np.abs(lam) > 1e-10 * np.max(np.abs(lam))]
    assert close(eig.eigenvalues, lam)
    assert np.sum(eig.eigenvalues < 0) == 4 and eig.eigenvalues.size == 9
    assert close(reconstruct(eig), D)
    assert close(eig.features.T @ eig.features, np.diag(np.abs(eig.eigenvalues)))
    # the extension: Z M = F on the objects, and new objects' eigenfeatures reproduce
    # their kernel rows psi(x) diag(s) Z'
    assert close(Z @ eig.extension, eig.features)
    new = rep.rows(Zt) @ eig.extension
    assert close((new * eig.signs) @ eig.features.T, (Zt * s) @ Z.T)
    assert rep.to_signed_features() is rep


def test_signed_features_given_their_eigenvalues_are_returned_as_they_are(data):
    X = data[0]
    ny = IndefiniteNystroem(kernel_params=KP, n_components=20, random_state=0)
    Psi = ny.fit_transform(X)
    rep = SignedFeatures(Psi, ny.signs_, eigenvalues=ny.eigenvalues_)
    eig = rep.eigenfeatures()
    assert eig.features is rep.Z and eig.extension is None
    np.testing.assert_array_equal(eig.to_rows(np.arange(3.0)), np.arange(3.0))
    # the refactored eigendecomposition of the same features agrees
    again = SignedFeatures(Psi, ny.signs_).eigenfeatures()
    assert close(again.eigenvalues, ny.eigenvalues_, 1e-8)
    assert close(reconstruct(again), (Psi * ny.signs_) @ Psi.T, 1e-8)


# --------------------------------------------------------------------- exact kernel
def test_exact_kernel_eigenfeatures_reconstruct_and_extend(data):
    _, _, _, K, Kt = data
    rep = ExactKernel(K)
    v = np.arange(N, dtype=float)
    assert rep.kind == "exact" and rep.n == N
    assert close(rep.dot(v), K @ v) and close(rep.diagonal(), np.diag(K))
    assert rep.dense() is rep.K
    eig = rep.eigenfeatures()
    assert close(eig.eigenvalues, np.linalg.eigvalsh(K))
    assert close(reconstruct(eig), K)
    # the Nystrom extension of the eigenfeatures: K M = F, and Kt M diag(s) F' = Kt
    assert close(K @ eig.extension, eig.features)
    assert close((rep.rows(Kt) @ eig.extension * eig.signs) @ eig.features.T, Kt)
    assert close(rep.to_signed_features().dense(), K)


# ----------------------------------------------------------------- landmark columns
def test_landmark_columns_at_full_rank_are_the_exact_kernel(data):
    _, _, _, K, Kt = data
    rep = LandmarkColumns(K, np.arange(N))
    exact = ExactKernel(K)
    v = np.random.default_rng(3).standard_normal(N)
    assert rep.kind == "landmark-columns" and rep.n == N
    assert close(rep.dense(), K, 1e-8)
    assert close(rep.dot(v), exact.dot(v), 1e-8)
    assert close(rep.diagonal(), exact.diagonal(), 1e-8)
    assert close(rep.eigenfeatures().eigenvalues, exact.eigenfeatures().eigenvalues, 1e-8)
    # new objects' columns through the Nystrom map: their exact kernel rows
    Psi = rep.to_signed_features().Z
    assert close((rep.rows(Kt) * np.sign(rep.eigenvalues)) @ Psi.T, Kt, 1e-8)


@pytest.mark.parametrize("cut", ["between", "auto"])
def test_landmark_columns_are_the_nystroem_approximation_by_hand(data, cut):
    X, Xt, _, _, _ = data
    idx = np.random.default_rng(4).choice(N, size=15, replace=False)
    C = sigmoid_kernel(X, X[idx], **KP)
    Ct = sigmoid_kernel(Xt, X[idx], **KP)
    W = 0.5 * (C[idx] + C[idx].T)
    L, U = np.linalg.eigh(W)
    mags = np.sort(np.abs(L))[::-1] / np.max(np.abs(L))
    # a float cutoff just above the 7th largest |L|: the six largest are kept
    rcond = "auto" if cut == "auto" else 1.01 * float(mags[6])
    rep = LandmarkColumns(C, idx, rcond=rcond, random_state=5)
    # the same numbers as IndefiniteNystroem on the same columns
    ny = IndefiniteNystroem(kernel="precomputed", landmarks=idx, rcond=rcond, random_state=5)
    np.testing.assert_array_equal(rep.to_signed_features().Z, ny.fit_transform(C))
    np.testing.assert_array_equal(rep.eigenvalues, ny.eigenvalues_)
    np.testing.assert_array_equal(rep.rows(Ct), ny.transform(Ct))
    # by hand: W^+ on the largest |L| (six of them for the float cutoff)
    order = np.argsort(-np.abs(L))
    kept = order[:6 if cut != "auto" else rep.eigenvalues.size]
    assert rep.eigenvalues.size == kept.size
    W_plus = (U[:, kept] / L[kept]) @ U[:, kept].T
    assert close(rep.dense(), C @ W_plus @ C.T, 1e-8)
    Psi = rep.to_signed_features().Z
    extension = (rep.rows(Ct) * np.sign(rep.eigenvalues)) @ Psi.T
    assert close(extension, Ct @ W_plus @ C.T, 1e-8)


# --------------------------------------------------------------- sub-representations
def _three(data, factor):
    """``(representation, its input for new objects, the dense kernel, new rows)`` of the
    three forms (``new rows``: the kernel between new objects and the objects)."""
    X, Xt, _, K, Kt = data
    Z, s, Zt = factor
    idx = np.random.default_rng(6).choice(N, size=20, replace=False)
    C, Ct = sigmoid_kernel(X, X[idx], **KP), sigmoid_kernel(Xt, X[idx], **KP)
    lc = LandmarkColumns(C, idx, rcond=1e-4)
    Psi = lc.to_signed_features().Z
    lc_rows = (lc.rows(Ct) * np.sign(lc.eigenvalues)) @ Psi.T
    return [(ExactKernel(K), Kt, K, Kt),
            (SignedFeatures(Z, s), Zt, (Z * s) @ Z.T, (Zt * s) @ Z.T),
            (lc, Ct, (Psi * np.sign(lc.eigenvalues)) @ Psi.T, lc_rows)]


@pytest.mark.parametrize("form", [0, 1, 2])
def test_subsets_are_slices_of_the_dense_matrix(data, factor, form):
    rep, new, dense, new_rows = _three(data, factor)[form]
    sub_idx = np.sort(np.random.default_rng(7).choice(rep.n, size=15, replace=False))
    sub = rep.subset(sub_idx)
    assert type(sub) is type(rep) and sub.kind == rep.kind and sub.n == 15
    sliced = dense[np.ix_(sub_idx, sub_idx)]
    assert close(sub.dense(), sliced)
    assert close(sub.diagonal(), np.diag(sliced))
    v = np.linspace(-1.0, 1.0, 15)
    assert close(sub.dot(v), sliced @ v)
    eig = sub.eigenfeatures()
    assert close(reconstruct(eig), sliced, 1e-8)
    # new objects: the exact form's rows are the columns idx; the others keep the
    # parent's input; their eigenfeatures reproduce the kernel rows against the subset
    rows = sub.rows(new[:, sub_idx] if rep.kind == "exact" else new)
    assert close((rows @ eig.extension * eig.signs) @ eig.features.T, new_rows[:, sub_idx],
                 1e-8)


# ------------------------------------------------------ one method, three forms
@pytest.mark.parametrize("make", [
    lambda: ESVC(C=1.0, solver="libsvm", tol=1e-10),
    lambda: SpectrumSVC(C=1.0, correction="clip", out_of_sample="spectral", solver="libsvm",
                        tol=1e-10),
    lambda: KreinLeastSquaresClassifier(radius_squared=5.0, krein_penalty=0.1),
    lambda: KSVC(C=1.0, solver="CLARABEL"),
])
def test_one_method_on_every_representation_of_a_full_rank_kernel(data, make):
    """The approximate path's binary model, written once on the interface, run on the
    exact kernel, on signed features (with and without their eigenvalues) and on landmark
    columns with every object a landmark: the exact estimator's decision values (KSVC:
    the active set's)."""
    X, Xt, y, K, Kt = data
    exact = make().set_params(kernel="precomputed")
    if isinstance(exact, KSVC):
        exact.set_params(solver="active-set", tol=1e-10)
    reference = exact.fit(K, y).decision_function(Kt)
    ny = IndefiniteNystroem(kernel_params=KP, n_components=N, random_state=0)
    Psi, Psi_t = ny.fit_transform(X), ny.transform(Xt)
    forms = [(ExactKernel(K), Kt),
             (SignedFeatures(Psi, ny.signs_, eigenvalues=ny.eigenvalues_), Psi_t),
             (SignedFeatures(Psi, ny.signs_), Psi_t),
             (LandmarkColumns(K, np.arange(N)), Kt)]
    y_pm = np.where(y == 1, 1.0, -1.0)
    for rep, new in forms:
        est = make()
        est._check_params()
        coef, b, _ = est._fit_features(rep, y_pm, 1.0)
        f = rep.rows(new) @ coef + b
        err = np.max(np.abs(f - reference))
        assert err <= RTOL * np.max(np.abs(reference)), (rep, err)


def test_the_approximate_path_never_asks_for_the_dense_matrix(data, monkeypatch):
    X, Xt, _, _, _ = data
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])

    def refuse(self, max_entries=MAX_DENSE_ENTRIES):
        raise AssertionError("dense() called")

    for cls in (SignedFeatures, LandmarkColumns, ExactKernel):
        monkeypatch.setattr(cls, "dense", refuse)
    est = ESVC(kernel="sigmoid", kernel_params=KP, solver="libsvm",
               approximation=IndefiniteNystroem(n_components=30, random_state=0))
    assert est.fit(X, y3).decision_function(Xt).shape == (30, 3)


def test_dense_is_refused_beyond_max_entries(factor):
    Z, s, _ = factor
    rep = SignedFeatures(Z, s)
    with pytest.raises(ValueError, match=r"1600 entries, more than max_entries = 1000"):
        rep.dense(max_entries=1000)
    assert rep.dense(max_entries=1600).shape == (40, 40)


def test_kinds_and_operations(data, factor):
    kinds = []
    for rep, *_ in _three(data, factor):
        assert isinstance(rep, KernelRepresentation)
        kinds.append(rep.kind)
        for name in rep.operations:
            assert callable(getattr(rep, name)), name
        assert repr(rep).startswith(type(rep).__name__)
    assert tuple(kinds) == REPRESENTATION_KINDS


# ---------------------------------------------------------------------- bad input
def test_bad_input_names_the_argument(data, factor):
    _, _, _, K, _ = data
    Z, s, _ = factor
    with pytest.raises(ValueError, match=r"K must be a square \(n, n\) matrix"):
        ExactKernel(K[:, :10])
    with pytest.raises(ValueError, match=r"new has 10 columns"):
        ExactKernel(K).rows(K[:5, :10])
    with pytest.raises(ValueError, match="Z must be a 2-D array"):
        SignedFeatures(Z[:, 0], s)
    with pytest.raises(ValueError, match="Z must not contain NaN"):
        SignedFeatures(np.where(Z > 2.5, np.nan, Z), s)
    with pytest.raises(ValueError, match="signs must have one entry per column of Z"):
        SignedFeatures(Z, s[:-1])
    with pytest.raises(ValueError, match=r"signs must be -1 or \+1"):
        SignedFeatures(Z, np.where(s > 0, 0.5, -1.0))
    with pytest.raises(ValueError, match="eigenvalues must be nonzero with the signs"):
        SignedFeatures(Z, s, eigenvalues=np.abs(s))
    with pytest.raises(ValueError, match="new must have the r = 9 features"):
        SignedFeatures(Z, s).rows(Z[:, :5])
    idx = np.arange(5)
    C = K[:, idx]
    with pytest.raises(ValueError, match=r"landmarks: row indices must lie in \[0, 80\)"):
        LandmarkColumns(C, np.array([0, 1, 2, 3, 80]))
    with pytest.raises(ValueError, match="landmarks has 4 indices but C has 5 columns"):
        LandmarkColumns(C, idx[:4])
    with pytest.raises(ValueError, match="landmarks: row indices must be distinct"):
        LandmarkColumns(C, np.array([0, 1, 2, 3, 3]))
    with pytest.raises(ValueError, match=r"C\[landmarks\] is not symmetric"):
        LandmarkColumns(C, idx[::-1].copy())
    with pytest.raises(ValueError, match="C must not contain NaN"):
        LandmarkColumns(np.where(C > 0.5, np.inf, C), idx)
    with pytest.raises(ValueError, match="rcond must be 'auto' or a number in"):
        LandmarkColumns(C, idx, rcond=2.0)
    with pytest.raises(ValueError, match=r"C\[landmarks\]: the kernel of the landmarks is zero"):
        LandmarkColumns(np.zeros((10, 3)), np.arange(3))
    with pytest.raises(ValueError, match=r"new must have one column per landmark \(m = 5\)"):
        LandmarkColumns(C, idx).rows(C[:, :4])
