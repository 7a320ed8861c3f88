"""``krein/approximation.py``: IndefiniteNystroem against the exact kernel and formulas.

Checked by things independent of its fast path: the full kernel and its eigenvalues
(``numpy.linalg.eigvalsh``) with every training point a landmark; the Nyström
extension ``K(X_new, Z) W_r^+ K(X, Z)'`` written out with ``numpy.linalg.eigh`` of
``W``; the sampled error decreasing with the number of landmarks; the memory of a fit
at n = 20 000 (no n x n array); scikit-learn's transformer checks.

Precomputed columns ``K(objects, landmarks)``: the same features as the feature vectors
on the same landmarks (W from the landmark rows or from ``K_mm``), the Nyström extension
written out; the error against the full kernel of the newsgroups dissimilarities
(Gaussian and Torgerson kernels, both indefinite) decreasing with the landmarks and exact
with every object a landmark; ``rcond="auto"`` from W alone against the plain
pseudo-inverse; every bad input a ValueError naming the argument.  ``verbose``: a tqdm
bar on stderr, the same features.  Dask arrays: the threaded scheduler and a two-worker
``dask.distributed`` cluster give the in-memory features.
"""

from __future__ import annotations

import re
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.approximation import LANDMARK_METHODS, IndefiniteNystroem
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


# ---------------------------------------------------------------- precomputed columns
def _precomputed_case(n=300, m=40, seed=0):
    X, Xn = hard_points(n, seed), hard_points(30, seed + 1)
    idx = np.random.default_rng(seed).choice(n, size=m, replace=False)   # unsorted on purpose
    return X, Xn, idx


@pytest.mark.parametrize("rcond", [1e-10, 1e-3])
def test_precomputed_columns_give_the_features_of_the_feature_vectors(rcond):
    X, Xn, idx = _precomputed_case()
    vec = IndefiniteNystroem(kernel_params=HARD, landmarks=idx, rcond=rcond)
    Psi = vec.fit_transform(X)
    np.testing.assert_array_equal(vec.landmark_indices_, idx)
    np.testing.assert_array_equal(vec.landmarks_, X[idx])
    C, Cn = sigmoid_kernel(X, X[idx], **HARD), sigmoid_kernel(Xn, X[idx], **HARD)
    W = sigmoid_kernel(X[idx], **HARD)
    by_rows = IndefiniteNystroem(kernel="precomputed", landmarks=idx, rcond=rcond)
    by_K_mm = IndefiniteNystroem(kernel="precomputed", rcond=rcond)
    scale = np.abs(Psi).max()
    fitted = ((by_rows, by_rows.fit_transform(C)), (by_K_mm, by_K_mm.fit_transform(C, K_mm=W)))
    for pre, P in fitted:
        assert pre.landmarks_ is None and pre.n_features_in_ == idx.size
        np.testing.assert_allclose(P, Psi, rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(pre.transform(Cn), vec.transform(Xn), rtol=0,
                                   atol=1e-10 * scale)
        np.testing.assert_allclose(pre.eigenvalues_, vec.eigenvalues_, rtol=1e-10)
        np.testing.assert_array_equal(pre.signs_, vec.signs_)
    np.testing.assert_array_equal(by_rows.landmark_indices_, idx)
    assert by_K_mm.landmark_indices_ is None
    # the Nyström extension written out (independent of the fast path)
    L, U = np.linalg.eigh(W)
    keep = np.abs(L) > rcond * np.abs(L).max()
    ref = Cn @ ((U[:, keep] / L[keep]) @ U[:, keep].T) @ C.T
    Fn = by_rows.transform(Cn)
    np.testing.assert_allclose((Fn * by_rows.signs_) @ by_rows.fit_transform(C).T, ref,
                               rtol=0, atol=1e-8 * np.abs(ref).max())


def test_precomputed_auto_cutoff_from_the_landmarks_alone():
    """``rcond="auto"`` in precomputed mode uses W only: index array and K_mm agree, and the
    cutoff beats the plain pseudo-inverse (measured 0.15 against 6.4 at m = 40)."""
    X, _, idx = _precomputed_case(n=600, m=40)
    K = sigmoid_kernel(X, **HARD)
    errors = {}
    for rcond in ("auto", 1e-10):
        a = IndefiniteNystroem(kernel="precomputed", landmarks=idx, rcond=rcond, random_state=0)
        b = IndefiniteNystroem(kernel="precomputed", rcond=rcond, random_state=0)
        Pa, Pb = a.fit_transform(K[:, idx]), b.fit_transform(K[:, idx], K_mm=K[np.ix_(idx, idx)])
        np.testing.assert_allclose(Pa, Pb, rtol=0, atol=1e-12 * np.abs(Pa).max())
        errors[rcond] = np.linalg.norm((Pa * a.signs_) @ Pa.T - K) / np.linalg.norm(K)
        # approximation_error from the full matrix and from a function of the pairs
        e_full = a.approximation_error(K[:, idx], K_nn=K, random_state=1)
        e_fun = a.approximation_error(K[:, idx], K_nn=lambda i, j: K[i, j], random_state=1)
        assert e_full == e_fun > 0
    assert errors["auto"] < 0.3 < 2.0 < errors[1e-10], errors


def _newsgroups_kernel(kind):
    from krein.datasets import load_dataset
    from krein.kernels import dissimilarity_kernel

    D = np.asarray(load_dataset("newsgroups").D, dtype=float)
    if kind == "gaussian":
        return dissimilarity_kernel(D, kind="gaussian", gamma=1.0 / np.median(D ** 2))
    return dissimilarity_kernel(D, kind="linear")            # Torgerson: -1/2 J D^2 J


@pytest.mark.parametrize("kind", ["gaussian", "torgerson"])
def test_error_decreases_with_the_landmarks_on_dissimilarities(kind):
    """The newsgroups dissimilarities (n = 600, non-Euclidean): the kernel of the landmark
    columns only, against the full matrix; exact when every object is a landmark."""
    K = _newsgroups_kernel(kind)
    n = K.shape[0]
    lam = np.linalg.eigvalsh(K)
    assert -lam[lam < 0].sum() > 0.05 * np.abs(lam).sum()   # measured 7.8% and 20% negative
    errors = []
    for m in (20, 80, 300, n):
        e = []
        for seed in range(3):
            idx = np.sort(np.random.default_rng(seed).choice(n, size=m, replace=False))
            ny = IndefiniteNystroem(kernel="precomputed", landmarks=idx, random_state=seed)
            P = ny.fit_transform(K[:, idx])
            e.append(np.linalg.norm((P * ny.signs_) @ P.T - K) / np.linalg.norm(K))
        errors.append(np.mean(e))
    assert errors[0] > errors[1] > errors[2] > errors[3], errors
    assert errors[3] < 1e-8, errors


def test_clone_and_set_params_to_precomputed_as_the_estimators_do():
    """The front-end contract of the estimators: ``clone(approximation).set_params(kernel=...,
    kernel_params=...)``, then ``fit_transform`` / ``transform``, ``signs_``, ``eigenvalues_``."""
    from sklearn.base import clone

    X, Xn, idx = _precomputed_case()
    proto = IndefiniteNystroem(landmarks=idx, rcond=1e-3)
    vec = clone(proto).set_params(kernel="sigmoid", kernel_params=HARD)
    pre = clone(proto).set_params(kernel="precomputed", kernel_params=HARD)
    Psi = vec.fit_transform(X)
    P = pre.fit_transform(sigmoid_kernel(X, X[idx], **HARD))
    np.testing.assert_allclose(P, Psi, rtol=0, atol=1e-10 * np.abs(Psi).max())
    np.testing.assert_allclose(pre.transform(sigmoid_kernel(Xn, X[idx], **HARD)),
                               vec.transform(Xn), rtol=0, atol=1e-10 * np.abs(Psi).max())
    np.testing.assert_array_equal(pre.signs_, np.sign(pre.eigenvalues_))
    assert proto.landmarks is idx and not hasattr(proto, "signs_")


def test_bad_input_with_precomputed_columns():
    X, _, idx = _precomputed_case(n=60, m=10)
    C, W = sigmoid_kernel(X, X[idx], **HARD), sigmoid_kernel(X[idx], **HARD)
    pre = IndefiniteNystroem(kernel="precomputed")
    with pytest.raises(ValueError, match="K_mm"):                      # neither
        pre.fit(C)
    with pytest.raises(ValueError, match="exactly one"):               # both
        IndefiniteNystroem(kernel="precomputed", landmarks=idx).fit(C, K_mm=W)
    for method in LANDMARK_METHODS:
        with pytest.raises(ValueError, match=re.escape(f"landmarks='{method}' cannot")):
            IndefiniteNystroem(kernel="precomputed", landmarks=method).fit(C, K_mm=W)
    with pytest.raises(ValueError, match="landmarks has 9 indices but X has 10 columns"):
        IndefiniteNystroem(kernel="precomputed", landmarks=idx[:9]).fit(C)
    for bad, what in ((idx + 100, "landmarks: row indices must lie"),
                      (np.r_[idx[:9], idx[0]], "landmarks: row indices must be distinct"),
                      (idx.astype(float), "integer row indices")):
        with pytest.raises(ValueError, match=what):
            IndefiniteNystroem(kernel="precomputed", landmarks=bad).fit(C)
    with pytest.raises(ValueError, match=r"X\[landmarks\] is not symmetric"):   # wrong rows
        IndefiniteNystroem(kernel="precomputed", landmarks=np.roll(idx, 1)).fit(C)
    with pytest.raises(ValueError, match=r"K_mm must be the square \(m, m\)"):
        pre.fit(C, K_mm=W[:, :9])
    with pytest.raises(ValueError, match=r"K_mm must be the square \(m, m\)"):
        pre.fit(C, K_mm=W[:9, :9])
    asym = W.copy()
    asym[0, 1] += 1.0
    with pytest.raises(ValueError, match="K_mm is not symmetric"):
        pre.fit(C, K_mm=asym)
    nan = W.copy()
    nan[2, 2] = np.nan
    with pytest.raises(ValueError, match="K_mm must not contain NaN"):
        pre.fit(C, K_mm=nan)
    Cnan = C.copy()
    Cnan[3, 4] = np.nan
    with pytest.raises(ValueError, match="X"):
        pre.fit(Cnan, K_mm=W)
    with pytest.raises(ValueError, match="K_mm is only accepted with kernel='precomputed'"):
        IndefiniteNystroem(kernel_params=HARD, n_components=5).fit(X, K_mm=W)
    fitted = IndefiniteNystroem(kernel="precomputed", landmarks=idx).fit(C)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(C[:, :9])
    with pytest.raises(ValueError, match="K_nn"):
        fitted.approximation_error(C)
    with pytest.raises(ValueError, match="K_nn must be the"):
        fitted.approximation_error(C, K_nn=W)
    # a nearly symmetric block (rounding of a file) is accepted and symmetrized
    noisy = W + 1e-9 * np.abs(W).max() * np.triu(np.ones_like(W), 1)
    IndefiniteNystroem(kernel="precomputed").fit(C, K_mm=noisy)


def test_verbose_shows_a_progress_bar_and_changes_nothing(capsys):
    X = hard_points(500)
    kw = dict(kernel_params=HARD, n_components=30, block_size=100, random_state=0)
    quiet = IndefiniteNystroem(**kw).fit_transform(X)
    assert capsys.readouterr().err == ""
    ny = IndefiniteNystroem(verbose=True, **kw)
    loud = ny.fit_transform(X)
    err = capsys.readouterr().err
    assert "IndefiniteNystroem" in err and "/10 " in err, err       # 5 blocks for G, 5 for Psi
    np.testing.assert_array_equal(loud, quiet)
    ny.transform(X[:250])
    assert "/3 " in capsys.readouterr().err


# ---------------------------------------------------------------- dask arrays
def test_dask_arrays_give_the_in_memory_features():
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("dask.distributed")
    import dask

    X, Xn = hard_points(2000), hard_points(300, seed=1)
    kw = dict(kernel_params=HARD, n_components=60, block_size=128, random_state=0)
    ref = IndefiniteNystroem(**kw)
    Psi, Psi_n = ref.fit_transform(X), ref.transform(Xn)
    scale = np.abs(Psi).max()
    Xd, Xnd = da.from_array(X, chunks=(300, 2)), da.from_array(Xn, chunks=(70, 2))

    def check(ny, F, Fn):
        assert isinstance(F, da.Array) and F.chunks[0] == Xd.chunks[0]
        assert Fn.chunks[0] == Xnd.chunks[0] and ny.n_features_in_ == 2
        np.testing.assert_array_equal(ny.landmark_indices_, ref.landmark_indices_)
        np.testing.assert_allclose(F.compute(), Psi, rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(Fn.compute(), Psi_n, rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(ny.eigenvalues_, ref.eigenvalues_, rtol=1e-10)

    with dask.config.set(scheduler="threads"):
        ny = IndefiniteNystroem(**kw)
        check(ny, ny.fit_transform(Xd), ny.transform(Xnd))
        assert ny.approximation_error(Xd, random_state=2) == pytest.approx(
            ref.approximation_error(X, random_state=2), rel=1e-10)
        # precomputed columns in a dask array, W from the landmark rows
        idx = ref.landmark_indices_
        C = sigmoid_kernel(X, X[idx], **HARD)
        pre = IndefiniteNystroem(kernel="precomputed", landmarks=idx, random_state=0)
        P = pre.fit_transform(da.from_array(C, chunks=(500, 20)))
        assert P.chunks[0] == (500,) * 4
        np.testing.assert_allclose(P.compute(),
                                   IndefiniteNystroem(kernel="precomputed", landmarks=idx,
                                                      random_state=0).fit_transform(C),
                                   rtol=0, atol=1e-10 * scale)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        ny = IndefiniteNystroem(**kw)
        check(ny, ny.fit_transform(Xd), ny.transform(Xnd))
    with pytest.raises(ValueError, match="kmeans"):
        IndefiniteNystroem(landmarks="kmeans++", n_components=5).fit(Xd)
    bad = X.copy()
    bad[1500, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or inf"):
        IndefiniteNystroem(**kw).fit(da.from_array(bad, chunks=(300, 2)))


def test_landmark_block_gives_the_features_of_the_landmark_rows():
    """``landmark_block=W`` with precomputed columns equals ``landmarks=idx`` (W = C[idx])
    on the same columns, also when the fitted rows do not contain the landmarks; and
    ``columns`` returns ``K(x, landmarks)`` in both modes."""
    from krein.kernels import sigmoid_kernel

    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(120, 3))
    idx = np.sort(rng.choice(120, size=25, replace=False))
    C = sigmoid_kernel(X, X[idx], a=2.0, r=-0.5)
    by_rows = IndefiniteNystroem(kernel="precomputed", landmarks=idx, rcond=1e-8)
    by_block = IndefiniteNystroem(kernel="precomputed", landmark_block=C[idx], rcond=1e-8)
    F_rows, F_block = by_rows.fit_transform(C), by_block.fit_transform(C)
    np.testing.assert_allclose(F_rows @ np.diag(by_rows.signs_) @ F_rows.T,
                               F_block @ np.diag(by_block.signs_) @ F_block.T, atol=1e-8)
    others = np.setdiff1d(np.arange(120), idx)          # no landmark among the fitted rows
    F_others = by_block.fit_transform(C[others])
    K_ny = C @ np.linalg.pinv(C[idx], rcond=1e-8, hermitian=True) @ C.T
    np.testing.assert_allclose(F_others @ np.diag(by_block.signs_) @ F_others.T,
                               K_ny[np.ix_(others, others)], atol=1e-6)
    np.testing.assert_array_equal(by_block.columns(C[:5]), C[:5])
    np.testing.assert_allclose(by_block.landmark_block_, C[idx], atol=1e-15)
    ny = IndefiniteNystroem(kernel="sigmoid", kernel_params={"a": 2.0, "r": -0.5},
                            landmarks=idx).fit(X)
    np.testing.assert_allclose(ny.columns(X[:7]), C[:7], atol=1e-14)
    np.testing.assert_allclose(ny.landmark_block_, C[idx], atol=1e-14)
    with pytest.raises(ValueError, match="landmark_block and an index array"):
        IndefiniteNystroem(kernel="precomputed", landmarks=idx,
                           landmark_block=C[idx]).fit(C)
    with pytest.raises(ValueError, match="landmark_block is only accepted"):
        IndefiniteNystroem(landmark_block=C[idx]).fit(X)
