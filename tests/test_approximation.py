"""``krein/approximation.py``: IndefiniteNystroem against the exact kernel and formulas.

Checked by things independent of its fast path: the full kernel and its eigenvalues
(``numpy.linalg.eigvalsh``) with every training point a landmark; the Nyström
extension ``K(X_new, Z) W_r^+ K(X, Z)'`` written out with ``numpy.linalg.eigh`` of
``W``; the sampled error decreasing with the number of landmarks; the memory of a fit
at n = 20 000 (no n x n array); scikit-learn's transformer checks.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.approximation import IndefiniteNystroem
from krein.datasets import make_checkerboard
from krein.kernels import gaussian_kernel, sigmoid_kernel

HARD = {"a": 9.0, "r": -1.0}        # about half the eigenvalues negative on [-1, 1]^2


def hard_points(n, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=(n, 2))


def checkerboard(n, seed=0):
    return np.asarray(make_checkerboard(n, random_state=seed)[0], dtype=float)


def test_every_point_a_landmark_gives_the_kernel_and_its_eigenvalues():
    X = hard_points(300)
    K = sigmoid_kernel(X, **HARD)
    ny = IndefiniteNystroem(kernel_params=HARD, n_components=300, random_state=0)
    Psi = ny.fit_transform(X)
    scale = np.abs(K).max()
    np.testing.assert_allclose((Psi * ny.signs_) @ Psi.T, K, rtol=0, atol=1e-9 * scale)
    lam = np.linalg.eigvalsh(K)
    lam = lam[np.abs(lam) > 1e-12 * np.abs(lam).max()]
    assert ny.n_components_ == lam.size and (ny.signs_ < 0).sum() == (lam < 0).sum() > 50
    np.testing.assert_allclose(ny.eigenvalues_, lam, rtol=0, atol=1e-9 * scale)
    # |K_approx| = Psi Psi' is the flipped kernel
    w, V = np.linalg.eigh(K)
    np.testing.assert_allclose(Psi @ Psi.T, (V * np.abs(w)) @ V.T, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(ny.transform(X), Psi, rtol=0, atol=1e-9 * np.abs(Psi).max())


@pytest.mark.parametrize("rcond", [1e-10, 1e-3])
def test_new_points_get_the_nystroem_extension(rcond):
    X, Xn = hard_points(200), hard_points(30, seed=1)
    ny = IndefiniteNystroem(kernel_params=HARD, n_components=40, rcond=rcond, random_state=0)
    Psi = ny.fit_transform(X)
    Z = ny.landmarks_
    L, U = np.linalg.eigh(sigmoid_kernel(Z, **HARD))
    keep = np.abs(L) > rcond * np.abs(L).max()
    W_plus = (U[:, keep] / L[keep]) @ U[:, keep].T
    C, Cn = sigmoid_kernel(X, Z, **HARD), sigmoid_kernel(Xn, Z, **HARD)
    for A, F in ((C, Psi), (Cn, ny.transform(Xn))):
        ref = A @ W_plus @ C.T
        np.testing.assert_allclose((F * ny.signs_) @ Psi.T, ref, rtol=0,
                                   atol=1e-8 * np.abs(ref).max())
    assert set(map(tuple, Z)) <= set(map(tuple, X)) and len(ny.landmark_indices_) == 40


@pytest.mark.parametrize("case", ["hard-sigmoid", "checkerboard-sigmoid", "gaussian"])
def test_error_decreases_with_the_landmarks(case):
    if case == "hard-sigmoid":
        X, kernel, params = hard_points(600), "sigmoid", HARD
    elif case == "checkerboard-sigmoid":
        X, kernel, params = checkerboard(600), "sigmoid", {"a": 1.0, "r": -1.0}
    else:   # a PSD kernel as control
        X, kernel, params = checkerboard(600), "gaussian", {"gamma": 4.0}
    errors = []
    for m in (10, 40, 160):
        e = [IndefiniteNystroem(kernel=kernel, kernel_params=params, n_components=m,
                                random_state=s).fit(X).approximation_error(X, random_state=9)
             for s in range(3)]
        errors.append(np.mean(e))
    assert errors[0] > errors[1] > errors[2], errors
    assert errors[2] < 0.05, errors


def test_auto_cutoff_beats_the_plain_pseudo_inverse_on_an_indefinite_kernel():
    X = hard_points(400)
    auto = IndefiniteNystroem(kernel_params=HARD, n_components=20, random_state=0).fit(X)
    plain = IndefiniteNystroem(kernel_params=HARD, n_components=20, rcond=1e-12,
                               random_state=0).fit(X)
    e_auto, e_plain = auto.approximation_error(X, random_state=3), \
        plain.approximation_error(X, random_state=3)
    assert e_auto < 0.5 < 2.0 < e_plain, (e_auto, e_plain)     # measured 0.26 against 21


def test_kmeans_plus_plus_landmarks():
    X = checkerboard(500)
    ny = IndefiniteNystroem(kernel_params={"a": 1.0, "r": -1.0}, n_components=30,
                            landmarks="kmeans++", random_state=0).fit(X)
    np.testing.assert_array_equal(ny.landmarks_, X[ny.landmark_indices_])
    assert len(set(ny.landmark_indices_.tolist())) == 30
    assert ny.approximation_error(X, random_state=0) < 1e-3


def test_no_n_by_n_array_at_n_20000():
    X = checkerboard(20000)
    n = X.shape[0]
    tracemalloc.start()
    try:
        Psi = IndefiniteNystroem(kernel_params={"a": 1.0, "r": -1.0}, n_components=200,
                                 block_size=2048, random_state=0).fit_transform(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert Psi.shape[0] == n
    assert peak < 0.02 * 8 * n * n, peak / 2**20   # 64 MB against the kernel's 3.2 GB


def test_bad_input():
    X = checkerboard(50)
    with pytest.raises(ValueError, match="n_components"):
        IndefiniteNystroem(n_components=0).fit(X)
    with pytest.raises(ValueError, match="rcond"):
        IndefiniteNystroem(rcond=2.0).fit(X)
    with pytest.raises(ValueError, match="landmarks"):
        IndefiniteNystroem(landmarks="random").fit(X)
    with pytest.raises(NotFittedError):
        IndefiniteNystroem().transform(X)
    ny = IndefiniteNystroem(n_components=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        ny.transform(np.ones((3, 5)))
    with pytest.warns(UserWarning, match="n_components=80 > n_samples=50"):
        assert IndefiniteNystroem(n_components=80, random_state=0).fit(X).landmarks_.shape[0] == 50
    with pytest.raises(ValueError, match="zero"):
        IndefiniteNystroem(kernel="linear", n_components=3).fit(np.zeros((10, 2)))


@parametrize_with_checks([IndefiniteNystroem(kernel="gaussian", n_components=5, random_state=0),
                          IndefiniteNystroem(n_components=5, landmarks="kmeans++",
                                             random_state=0)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)
