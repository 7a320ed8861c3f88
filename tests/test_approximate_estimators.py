"""The ``approximation=`` path of ESVC, SpectrumSVC and KSVC (krein/estimators/approximate.py).

Checked against things independent of the path: the EXACT estimators on the full kernel
(with every training point a landmark the Nyström approximation is the kernel, and every
feature map of the module docstring must give the exact decision values, to 1e-6 of
max |f|), for two and three classes; CVXPY on the problem liblinear states it solves
(intercept regularized with weight 1 / s^2); the linear SVM's duality gap; tracemalloc
for the n x n array that must never be formed.
"""

from __future__ import annotations

import tracemalloc
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.base import clone

from krein import IndefiniteNystroem
from krein.datasets import make_checkerboard
from krein.estimators import ESVC, KSVC, SpectrumSVC
from krein.estimators.approximate import linear_svm, signed_refactor

#: A full-rank indefinite sigmoid kernel (10-D Gaussian points): 60 positive, 90 negative
#: eigenvalues at n = 150, none near zero, so every correction is exact at full rank.
KP = {"a": 0.3, "r": -0.5}
N = 150

#: Decision values of the exact and the approximate path, relative to max |f|.
RTOL = 1e-6


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, 10))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(N) > 0, 1, -1)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    Xt = rng.standard_normal((60, 10))
    return X, y, y3, Xt


def full_rank():
    return IndefiniteNystroem(n_components=N, random_state=0)


def assert_same_decisions(exact, approx, X, y, Xt):
    e = exact.fit(X, y).decision_function(Xt)
    a = approx.fit(X, y).decision_function(Xt)
    assert np.max(np.abs(e - a)) <= RTOL * np.max(np.abs(e)), np.max(np.abs(e - a))
    return exact, approx


def test_the_kernel_is_full_rank_and_indefinite(data):
    X, y, _, _ = data
    ny = full_rank().set_params(kernel_params=KP)
    ny.fit(X)
    assert ny.n_components_ == N
    assert 40 <= np.sum(ny.signs_ < 0) <= 110
    assert np.min(np.abs(ny.eigenvalues_)) > 1e-6 * np.max(np.abs(ny.eigenvalues_))


@pytest.mark.parametrize("solver", ["libsvm", "CLARABEL"])
def test_esvc_at_full_rank_is_the_exact_esvc(data, solver):
    X, y, _, Xt = data
    kw = dict(C=1.0, kernel="sigmoid", kernel_params=KP, solver=solver, tol=1e-10)
    if solver != "libsvm":
        kw.pop("tol")
    exact, approx = assert_same_decisions(ESVC(**kw), ESVC(approximation=full_rank(), **kw),
                                          X, y, Xt)
    assert approx.signature_ == exact.signature_
    assert approx.min_eigenvalue_ == pytest.approx(exact.min_eigenvalue_, rel=1e-8)
    assert approx.coef_.shape == (1, N) and not hasattr(approx, "support_")
    # the training decisions are the flipped SVM's on |K| = Psi Psi'
    assert approx.solution_.gap <= 1e-6


@pytest.mark.parametrize("correction,out_of_sample", [
    ("flip", "spectral"), ("flip", "raw"), ("clip", "spectral"), ("shift", "spectral"),
    ("square", "spectral"), ("square", "raw"), ("mds", "spectral"),
    ("add_diagonal", "spectral")])
def test_spectrum_svc_at_full_rank_is_the_exact_one(data, correction, out_of_sample):
    X, y, _, Xt = data
    # solver="libsvm": the exact problem on the features (the default "auto" runs liblinear
    # with an approximation, which regularizes the intercept)
    kw = dict(correction=correction, out_of_sample=out_of_sample, C=1.0, kernel="sigmoid",
              kernel_params=KP, tol=1e-10, solver="libsvm")
    assert_same_decisions(SpectrumSVC(**kw), SpectrumSVC(approximation=full_rank(), **kw),
                          X, y, Xt)


def test_ksvc_at_full_rank_is_the_exact_active_set(data):
    X, y, _, Xt = data
    kw = dict(C=1.0, kernel="sigmoid", kernel_params=KP)
    exact, approx = assert_same_decisions(
        KSVC(tol=1e-10, **kw), KSVC(approximation=full_rank(), solver="CLARABEL", **kw),
        X, y, Xt)
    assert approx.objective_[0] == pytest.approx(exact.objective_[0], rel=1e-6)
    assert approx.kkt_residual_[0] <= 1e-5


@pytest.mark.parametrize("make", [
    lambda **kw: ESVC(tol=1e-10, **kw),
    lambda **kw: SpectrumSVC(correction="clip", out_of_sample="spectral", tol=1e-10, **kw),
    lambda **kw: SpectrumSVC(correction="square", out_of_sample="raw", tol=1e-10, **kw),
])
def test_three_classes_one_vs_one_at_full_rank(data, make):
    """Each pair is corrected on the spectrum of its own sub-kernel, as the exact path."""
    X, _, y3, Xt = data
    kw = dict(C=1.0, kernel="sigmoid", kernel_params=KP, solver="libsvm")
    exact, approx = make(**kw), make(approximation=full_rank(), **kw)
    e = exact.fit(X, y3)._binary_decisions(*exact._test_rows(Xt))
    a = approx.fit(X, y3)._binary_decisions(*approx._test_rows(Xt))
    assert np.max(np.abs(e - a)) <= RTOL * np.max(np.abs(e))
    np.testing.assert_array_equal(exact.predict(Xt), approx.predict(Xt))


def test_class_weight_at_full_rank(data):
    X, y, _, Xt = data
    kw = dict(C=2.0, kernel="sigmoid", kernel_params=KP, class_weight={-1: 0.3, 1: 1.0},
              tol=1e-10, solver="libsvm")
    assert_same_decisions(ESVC(**kw), ESVC(approximation=full_rank(), **kw), X, y, Xt)


def test_signed_refactor_is_an_eigendecomposition():
    rng = np.random.default_rng(3)
    Psi = rng.standard_normal((40, 7))
    s = np.array([1, -1, 1, 1, -1, -1, 1.0])
    T, lam = signed_refactor(Psi, s)
    F = Psi @ T
    np.testing.assert_allclose(F @ np.diag(np.sign(lam)) @ F.T, Psi @ np.diag(s) @ Psi.T,
                               atol=1e-10)
    np.testing.assert_allclose(F.T @ F, np.diag(np.abs(lam)), atol=1e-10)
    np.testing.assert_allclose(np.sort(lam), np.sort(
        np.linalg.eigvalsh(Psi @ np.diag(s) @ Psi.T))[np.r_[0:3, -4:0]], rtol=1e-9)


def test_liblinear_solves_the_problem_it_states():
    """liblinear regularizes the intercept: min 1/2 (|w|^2 + b^2/s^2) + C sum hinge, s = max |phi_i|."""
    X, y = make_checkerboard(300, random_state=0)
    Phi = IndefiniteNystroem(kernel_params={"a": 3.0, "r": -1.0}, n_components=40,
                             random_state=0).fit_transform(np.asarray(X, float))
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    C = 5.0
    w, b, sol = linear_svm(Phi, y, C, "liblinear", tol=1e-8)
    s = np.sqrt(np.max(np.sum(Phi ** 2, axis=1)))
    wv, bv = cp.Variable(Phi.shape[1]), cp.Variable()
    obj = 0.5 * (cp.sum_squares(wv) + cp.square(bv) / s ** 2) + C * cp.sum(
        cp.pos(1 - cp.multiply(y, Phi @ wv + bv)))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver="CLARABEL")
    f_ref = Phi @ wv.value + bv.value
    f = Phi @ w + b
    assert np.max(np.abs(f - f_ref)) <= 1e-4 * np.max(np.abs(f_ref))
    assert sol.solver == "liblinear" and np.isnan(sol.gap)
    assert sol.objective == pytest.approx(
        0.5 * w @ w + C * np.sum(np.maximum(0, 1 - y * f)), rel=1e-12)


def test_libsvm_and_cvxpy_linear_svms_agree_and_are_certified():
    X, y = make_checkerboard(200, random_state=1)
    Phi = IndefiniteNystroem(kernel_params={"a": 3.0, "r": -1.0}, n_components=30,
                             random_state=0).fit_transform(np.asarray(X, float))
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    w1, b1, s1 = linear_svm(Phi, y, 2.0, "libsvm", tol=1e-10)
    w2, b2, s2 = linear_svm(Phi, y, 2.0, "CLARABEL")
    f1, f2 = Phi @ w1 + b1, Phi @ w2 + b2
    assert np.max(np.abs(f1 - f2)) <= 1e-5 * np.max(np.abs(f1))
    for sol in (s1, s2):
        assert sol.gap <= 1e-6 and sol.primal_residual <= 1e-6 and sol.dual_residual <= 1e-6


def test_low_rank_esvc_is_close_to_the_exact_one_on_the_checkerboard():
    X, y = make_checkerboard(1500, random_state=0)
    Xt, yt = make_checkerboard(1500, random_state=1)
    kw = dict(C=10.0, kernel="sigmoid", kernel_params={"a": 3.0, "r": -1.0})
    exact = ESVC(**kw).fit(X, y).score(Xt, yt)
    approx = ESVC(approximation=IndefiniteNystroem(n_components=200, random_state=0),
                  solver="liblinear", **kw).fit(X, y)
    assert approx.coef_.shape[1] == approx.approximation_.n_components_ <= 200
    assert approx.score(Xt, yt) >= exact - 0.02


def test_fitting_never_forms_an_n_by_n_array():
    n = 20000
    X, y = make_checkerboard(n, random_state=0)
    X = np.asarray(X, float)
    est = ESVC(C=1.0, kernel="sigmoid", kernel_params={"a": 3.0, "r": -1.0}, solver="liblinear",
               approximation=IndefiniteNystroem(n_components=100, random_state=0))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.05 * 8 * n * n, peak            # 8 n^2 bytes = 3.2 GB; peak < 160 MB
    assert est.predict(X[:10]).shape == (10,)


def test_nested_parameters_and_clone():
    est = ESVC(approximation=IndefiniteNystroem(n_components=10))
    est.set_params(approximation__n_components=20)
    assert est.get_params()["approximation__n_components"] == 20
    assert clone(est).approximation.n_components == 20


@pytest.mark.parametrize("est,match", [
    (ESVC(solver="liblinear"), "needs approximation"),
    (SpectrumSVC(correction="flip", solver="liblinear"), "needs approximation"),
    (SpectrumSVC(correction="clip", out_of_sample="raw", approximation=IndefiniteNystroem(kernel=10)), "out_of_sample='raw'"),
    (SpectrumSVC(correction="shift", out_of_sample="raw", approximation=IndefiniteNystroem(kernel=10)), "out_of_sample='raw'"),
    (SpectrumSVC(correction="flip", out_of_sample="transductive", approximation=IndefiniteNystroem(kernel=10)), "transductive"),
    (KSVC(approximation=IndefiniteNystroem(kernel=10), solver="active-set"), "CVXPY solver"),
    (ESVC(approximation="nystroem"), "approximation"),
])
def test_bad_parameters_are_named(est, match):
    X, y = make_checkerboard(40, random_state=0)
    with pytest.raises(ValueError, match=match):
        est.set_params(kernel="sigmoid").fit(X, y)
    assert not hasattr(est, "classes_")


def test_precomputed_landmark_columns_give_the_feature_vector_model(data):
    """Dissimilarity-style input: only K(objects, landmarks) is computed (same fixed cutoff:
    rcond="auto" chooses it differently without feature vectors)."""
    from krein.kernels import sigmoid_kernel

    X, y, _, Xt = data
    idx = np.random.default_rng(1).choice(N, size=40, replace=False)
    kw = dict(C=1.0, solver="libsvm", tol=1e-10)
    feat = ESVC(kernel="sigmoid", kernel_params=KP, **kw, approximation=IndefiniteNystroem(
        landmarks=idx, rcond=1e-9)).fit(X, y)
    pre = ESVC(kernel="precomputed", **kw, approximation=IndefiniteNystroem(
        landmarks=idx, rcond=1e-9)).fit(sigmoid_kernel(X, X[idx], **KP), y)
    np.testing.assert_allclose(pre.decision_function(sigmoid_kernel(Xt, X[idx], **KP)),
                               feat.decision_function(Xt), rtol=1e-8, atol=1e-10)
    # (n, m) columns are not a pairwise kernel: cross-validation must not slice the columns
    assert not pre.__sklearn_tags__().input_tags.pairwise
    assert ESVC(kernel="precomputed").__sklearn_tags__().input_tags.pairwise
