"""The approximate paths of the matrix corrections, TrIK-SVM and ESVM-L.

* :class:`krein.estimators.CorrectedKernelSVC` with ``approximation``: the
  correction of the landmark block extended by the Nyström map (bending, nearest
  PSD, conformal, CLC, AKM);
* :class:`krein.estimators.ESVC` with ``approximation`` and
  ``decomposition="ldl"`` (TrIK-SVM: the LDL' of the landmark block) or
  ``energy`` / ``n_components`` (ESVM-L on the approximation's eigenvalues).

Checked: with every training point a landmark each path is the exact estimator
(decision values of new points, both solved by libsvm to ``tol=1e-10``); at low
rank each equals an independent numpy / scipy / scikit-learn computation on the
small ``n x n`` approximated kernel; no ``n x n`` array is allocated; and
``krein compare --approximation`` runs them.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
from sklearn.svm import SVC

from krein import IndefiniteNystroem
from krein.cli import main
from krein.estimators import (ESVC, Bending, ConformalLinearCombination,
                              ConformalTransformation, CorrectedKernelSVC, NearestPSD)
from krein.kernels import pairwise_kernel
from krein.registry import make_method

#: A full-rank indefinite sigmoid kernel on 10-D Gaussian points (as
#: tests/test_approximate_estimators.py): no eigenvalue near zero at n = 90.
KP = {"a": 0.3, "r": -0.5}
N = 90

#: Decision values of two paths that solve the same SVM to libsvm's tol=1e-10,
#: relative to max |f|.
RTOL = 1e-6

#: Every training point a landmark, nothing cut: the approximation is the kernel.
FULL = dict(kernel="precomputed", landmarks=np.arange(N), rcond=1e-12)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, 10))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(N) > 0, 1, -1)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    Xt = rng.standard_normal((40, 10))
    K = pairwise_kernel("sigmoid", X, None, KP)
    Kt = pairwise_kernel("sigmoid", Xt, X, KP)
    return X, y, y3, Xt, K, Kt


def assert_close(a, e):
    err = np.max(np.abs(a - e))
    assert err <= RTOL * np.max(np.abs(e)), err


def pseudo_inverse(W, rcond):
    """``W^+`` dropping eigenvalues of magnitude ``<= rcond max|lam|`` (numpy)."""
    return np.linalg.pinv(W, rcond=rcond, hermitian=True)


# ---------------------------------------------------------------------------- full rank
#: Corrections whose exact out-of-sample rule is the Nyström extension k(x, X) K^-1 Kc.
SPECTRAL = {
    # the spectral rule reproduces the bent rows with the new points' weights (None)
    "bending-spectral": lambda: Bending(correction="clip", out_of_sample="spectral"),
    "nearest-psd-spectral": lambda: NearestPSD(diagonal="keep", weights="support-vectors",
                                               out_of_sample="spectral"),
}
#: The registry's corrections, whose exact rules for new points differ from it.
OWN_RULE = {
    "bending": lambda: Bending(weights="support-vectors"),                  # eq. (8)
    "nearest-psd": lambda: NearestPSD(diagonal=1.0, weights="support-vectors",
                                      out_of_sample="munoz"),               # MDS map
    "conformal": ConformalTransformation,                                   # eq. (14)
}


def _full_rank_pair(correction, K, labels):
    kw = dict(kernel="precomputed", C=1.0, tol=1e-10)
    exact = CorrectedKernelSVC(correction=correction(), **kw).fit(K, labels)
    approx = CorrectedKernelSVC(correction=correction(), solver="libsvm",
                                approximation=IndefiniteNystroem(**FULL), **kw).fit(K, labels)
    for sol in approx.solutions_:        # libsvm's linear SVM, certified by its duality gap
        assert sol.certificate_kind == "gap" and sol.gap < 1e-6
    return exact, approx


@pytest.mark.parametrize("name", sorted(SPECTRAL))
@pytest.mark.parametrize("multiclass", [False, True])
def test_corrections_at_full_rank_are_the_exact_method(data, name, multiclass):
    """The corrected landmark block is the corrected kernel, and new points' Nyström
    features are the exact rule's rows: the exact decisions of new points (binary and
    the one-vs-one pairs of the one corrected kernel)."""
    X, y, y3, Xt, K, Kt = data
    exact, approx = _full_rank_pair(SPECTRAL[name], K, y3 if multiclass else y)
    assert_close(approx.decision_function(Kt), exact.decision_function(Kt))
    assert approx.corrected_min_eigenvalue_ == pytest.approx(exact.corrected_min_eigenvalue_,
                                                            abs=1e-8)


@pytest.mark.parametrize("name", sorted(OWN_RULE))
@pytest.mark.parametrize("multiclass", [False, True])
def test_registry_corrections_at_full_rank_solve_the_exact_svm(data, name, multiclass):
    """With the paper's own rule for new points: the same SVM on the same corrected
    kernel, so the Nyström features of the training points give the exact SVM's
    decision values on its own training kernel, ``Kc u + b``."""
    X, y, y3, Xt, K, Kt = data
    labels = y3 if multiclass else y
    exact, approx = _full_rank_pair(OWN_RULE[name], K, labels)
    Kc = exact._fit_correction(K, K, labels)[1]
    want = exact._binary_decisions(Kc)
    got = approx._binary_decisions(approx._test_rows(K)[0])
    assert_close(got, want)


@pytest.mark.parametrize("combination", ["nearest", "average"])
@pytest.mark.parametrize("multiclass", [False, True])
def test_clc_and_akm_at_full_rank_are_the_exact_method(data, combination, multiclass):
    """CLC / AKM from feature vectors: the base kernels' landmark blocks and columns
    against the landmarks; every training point a landmark gives the exact fit."""
    X, y, y3, Xt, K, Kt = data
    labels = y3 if multiclass else y
    kw = dict(kernel="sigmoid", kernel_params=KP, C=1.0, tol=1e-10,
              base_kernels=["linear", ("gaussian", {"gamma": 0.05})])
    corr = ConformalLinearCombination(combination=combination)
    exact = CorrectedKernelSVC(correction=corr, **kw).fit(X, labels)
    approx = CorrectedKernelSVC(correction=corr, solver="libsvm", **kw,
                                approximation=IndefiniteNystroem(
                                    landmarks=np.arange(N), rcond=1e-12)).fit(X, labels)
    np.testing.assert_allclose(approx.correction_.weights_, exact.correction_.weights_,
                               atol=1e-8)
    assert_close(approx.decision_function(Xt), exact.decision_function(Xt))


@pytest.mark.parametrize("params", [{"energy": 0.9}, {"n_components": 25}])
@pytest.mark.parametrize("multiclass", [False, True])
def test_esvm_l_at_full_rank_is_the_exact_esvm_l(data, params, multiclass):
    """The selection rule on the approximation's eigenvalues (each pair's own) is the
    exact rule on the exact spectrum at full rank."""
    X, y, y3, Xt, K, Kt = data
    labels = y3 if multiclass else y
    kw = dict(kernel="precomputed", C=1.0, tol=1e-10, **params)
    exact = ESVC(**kw).fit(K, labels)
    approx = ESVC(solver="libsvm", approximation=IndefiniteNystroem(**FULL), **kw).fit(K, labels)
    np.testing.assert_array_equal(approx.n_components_, exact.n_components_)
    assert_close(approx.decision_function(Kt), exact.decision_function(Kt))


def test_trik_at_full_rank_is_the_exact_trik_svm(data):
    """The LDL' of the landmark block is TrIK's factorization of K: the exact two-class
    TrIK-SVM, Krein decision included."""
    X, y, _, Xt, K, Kt = data
    kw = dict(kernel="precomputed", C=1.0, tol=1e-10, decomposition="ldl")
    exact = ESVC(**kw).fit(K, y)
    approx = ESVC(solver="libsvm", approximation=IndefiniteNystroem(**FULL), **kw).fit(K, y)
    assert_close(approx.decision_function(Kt), exact.decision_function(Kt))
    assert approx.ldl_.signature == exact.ldl_.signature


def _ldl_flip(W):
    """``P L |D| L' P'`` by scipy (``|D|``: the matrix absolute value of its blocks)."""
    lu, d, _ = scipy.linalg.ldl(W, lower=True, hermitian=True)
    e, V = np.linalg.eigh(d)               # d is block diagonal: its blocks' eigenpairs
    return lu @ (V * np.abs(e)) @ V.T @ lu.T


def _unpivoted_flip(W):
    """``L |D| L'`` of Gaussian elimination without pivoting, column by column (numpy)."""
    A = np.array(W, dtype=float)
    n = A.shape[0]
    L, d = np.eye(n), np.zeros(n)
    for k in range(n):
        d[k] = A[k, k]
        L[k + 1:, k] = A[k + 1:, k] / d[k]
        A[k + 1:, k + 1:] -= np.outer(L[k + 1:, k], A[k, k + 1:])
    return L @ np.diag(np.abs(d)) @ L.T


FLIPS = [("ldl", _unpivoted_flip), ("ldl-pivoted", _ldl_flip)]


@pytest.mark.parametrize("decomposition, flip", FLIPS)
def test_trik_multiclass_at_full_rank_is_the_svm_on_blocks_of_the_flipped_kernel(
        data, decomposition, flip):
    """Multiclass: the pairs share the factorization of the whole landmark block; at
    full rank each pair is libsvm on its block of K~ = P L |D| L' P', decisions
    k(x, X) K^-1 K~[:, idx] u (scikit-learn's SVC, scipy's ldl)."""
    X, y, y3, Xt, K, Kt = data
    approx = ESVC(kernel="precomputed", C=1.0, tol=1e-10, decomposition=decomposition,
                  solver="libsvm", approximation=IndefiniteNystroem(**FULL)).fit(K, y3)
    Kf = flip(K)
    rows = Kt @ np.linalg.solve(K, Kf)
    features = approx._test_rows(Kt)[0]
    got = approx._binary_decisions(features)
    for r, (i, j) in enumerate(approx.pairs_):
        idx = np.flatnonzero((y3 == i) | (y3 == j))
        svc = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(Kf[np.ix_(idx, idx)],
                                                              np.where(y3[idx] == j, 1, -1))
        want = svc.decision_function(rows[:, idx])
        assert_close(got[:, r], want)


# ---------------------------------------------------------------------------- low rank
def _landmark_data(data, m=30):
    X, y, _, Xt, K, Kt = data
    lm = np.random.default_rng(1).choice(N, m, replace=False)
    return K[:, lm], Kt[:, lm], K[np.ix_(lm, lm)], lm


def _low_rank(lm, rcond=1e-8):
    return IndefiniteNystroem(kernel="precomputed", landmarks=lm, rcond=rcond)


def test_clip_bending_at_low_rank_is_svc_on_the_nystroem_corrected_kernel(data):
    """One clip step of bending (weights=None) on the landmark block, ``Wc = U max(L, 0) U'``,
    extended to ``C W^+ Wc W^+ C'``: scikit-learn's SVC on that n x n kernel (numpy)."""
    X, y, _, Xt, K, Kt = data
    C, Ct, W, lm = _landmark_data(data)
    approx = CorrectedKernelSVC(correction=Bending(), kernel="precomputed", solver="libsvm",
                                tol=1e-10, approximation=_low_rank(lm)).fit(C, y)
    L, U = np.linalg.eigh(W)
    Wc = (U * np.maximum(L, 0.0)) @ U.T
    P = pseudo_inverse(W, 1e-8)
    Kc, Kc_t = C @ P @ Wc @ P @ C.T, Ct @ P @ Wc @ P @ C.T
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(Kc, y)
    assert_close(approx.decision_function(Ct), svc.decision_function(Kc_t))


def test_esvm_l_at_low_rank_is_svc_on_the_kept_eigenpairs(data):
    """ESVM-L on the approximation ``K_a = C W^+ C'``: its eigenpairs carrying 90 % of
    its sum |lam|, SVC on ``V_L |lam_L| V_L'`` and the Krein decision
    ``k_a(x, X) V_L sign(lam_L) V_L' u`` (numpy, scikit-learn)."""
    X, y, _, Xt, K, Kt = data
    C, Ct, W, lm = _landmark_data(data)
    approx = ESVC(kernel="precomputed", energy=0.9, solver="libsvm", tol=1e-10,
                  approximation=_low_rank(lm)).fit(C, y)
    P = pseudo_inverse(W, 1e-8)
    Ka, Ka_t = C @ P @ C.T, Ct @ P @ C.T
    lam, V = np.linalg.eigh(Ka)
    a = np.abs(lam)
    order = np.argsort(-a)
    k = int(np.searchsorted(np.cumsum(a[order]), 0.9 * a.sum())) + 1
    keep = order[:k]
    VL, lL = V[:, keep], lam[keep]
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit((VL * np.abs(lL)) @ VL.T, y)
    u = np.zeros(N)
    u[svc.support_] = svc.dual_coef_[0]
    c = VL @ (np.sign(lL) * (VL.T @ u))
    assert approx.n_components_[0] == k
    assert_close(approx.decision_function(Ct), Ka_t @ c + svc.intercept_[0])


@pytest.mark.parametrize("decomposition, flip", FLIPS)
def test_trik_at_low_rank_is_svc_on_the_extended_flip(data, decomposition, flip):
    """TrIK on the landmark block: SVC on ``C W^+ W~ W^+ C'`` with ``W~`` the LDL' flip
    of ``W``, unpivoted by numpy or Bunch-Kaufman by scipy (scikit-learn's SVC)."""
    X, y, _, Xt, K, Kt = data
    C, Ct, W, lm = _landmark_data(data)
    approx = ESVC(kernel="precomputed", decomposition=decomposition, solver="libsvm",
                  tol=1e-10, approximation=_low_rank(lm)).fit(C, y)
    P = pseudo_inverse(W, 1e-8)
    Wf = flip(W)
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(C @ P @ Wf @ P @ C.T, y)
    assert_close(approx.decision_function(Ct), svc.decision_function(Ct @ P @ Wf @ P @ C.T))


def test_labels_of_landmarks_outside_the_rows_are_refused(data):
    """A landmark block given apart from the rows: support-vector weights would need the
    landmarks' labels, which are not the training rows'; a correction without labels
    runs."""
    X, y, _, Xt, K, Kt = data
    C, Ct, W, lm = _landmark_data(data)
    front = IndefiniteNystroem(kernel="precomputed", landmark_block=W, rcond=1e-8)
    with pytest.raises(ValueError, match="labels of the landmarks"):
        make_method("bending").set_params(kernel="precomputed", approximation=front).fit(C, y)
    est = make_method("conformal").set_params(kernel="precomputed", approximation=front)
    assert est.fit(C, y).predict(Ct).shape == (Ct.shape[0],)


def test_raw_kernel_and_non_psd_corrections_are_refused(data):
    X, y, _, Xt, K, Kt = data
    C, Ct, W, lm = _landmark_data(data)
    with pytest.raises(ValueError, match="needs a correction"):
        CorrectedKernelSVC(kernel="precomputed", approximation=_low_rank(lm)).fit(C, y)
    with pytest.raises(ValueError, match="liblinear"):
        make_method("conformal").set_params(kernel="precomputed", solver="liblinear").fit(K, y)


# ---------------------------------------------------------------------------- no n x n
@pytest.mark.parametrize("name", ["bending", "nearest-psd", "conformal", "trik-svm", "esvm-l"])
def test_fit_and_predict_allocate_no_n_by_n_array(name):
    """n = 6000 points, 40 landmarks: an n x n array of float64 is 288 MB; the fit and
    the prediction of 6000 new points stay below a quarter of it (NumPy reports its
    arrays to tracemalloc)."""
    rng = np.random.default_rng(0)
    n = 6000
    X = rng.standard_normal((n, 5))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    est = make_method(name).set_params(kernel="sigmoid", kernel_params=KP, solver="liblinear",
                                       approximation=IndefiniteNystroem(n_components=40,
                                                                        random_state=0))
    tracemalloc.start()
    try:
        est.fit(X, y)
        pred = est.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * n * n / 4, f"peak {peak / 1e6:.0f} MB"
    assert np.mean(pred == y) > 0.7


# ---------------------------------------------------------------------------- krein compare
def test_krein_compare_runs_them_approximated(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["compare", "--dataset", "checkerboard", "--n-samples", "200", "--kernel",
               "sigmoid", "--approximation", "nystroem:40", "--methods",
               "bending,nearest-psd,conformal,trik-svm,esvm-l,svm", "--cv", "2", "--no-tune",
               "--n-jobs", "1", "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    summary = pd.read_csv(out / "summary.csv", keep_default_na=False).set_index("method")
    ran = ["bending", "nearest-psd", "conformal", "trik-svm", "esvm-l"]
    assert (summary.loc[ran, "status"] == "ok").all(), summary["note"].tolist()
    assert summary.loc["svm", "status"] == "skipped"
    folds = pd.read_csv(out / "folds.csv", keep_default_na=False)
    assert (folds["error"] == "").all()
    used = folds.groupby("method")["solver_used"].agg(set).to_dict()
    assert used.pop("trik-svm") == {"ipm"}
    assert all(v == {"liblinear"} for v in used.values()), used
