"""scikit-learn estimators: ESVC (ESVM / ESVM-L), SpectrumSVC, DirectSVC, LPSVC.

Each behaviour is checked against something computed independently here:
libsvm (``sklearn.svm.SVC(kernel="precomputed")``) on a kernel flipped/clipped
with ``numpy.linalg.eigh``, ``scipy.optimize.linprog(method="highs")`` for the
LP-SVM, the closed-form relations of Loosli et al. (2013) Algorithm 1
(``c = V sign(lam) V' c~``, ``f(x) = k(x, X) c + b``), and properties.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

import krein
import krein.estimators.lpsvm
import krein.estimators.svm
from krein import ESVC, LPSVC, DirectSVC, SpectrumCorrection, SpectrumSVC
from krein.kernels import sigmoid_kernel
from krein.solvers import SolverError

#: libsvm stopping tolerance used on BOTH sides of every libsvm comparison, so that
#: the two runs converge to the same point to ~1e-10.
LIBSVM_TOL = 1e-10

#: Agreement of decision values between two libsvm runs on the same (flipped) kernel:
#: both are converged to ~1e-10 and the kernels differ by rounding only.
EXACT = 1e-8

#: Decision values from a CVXPY solver vs libsvm, RELATIVE to max |f| (|f| up to ~8 here).
#: The solvers' objectives are accurate to ~1e-8 (interior point) / ~1e-5 (ADMM), but the
#: point (alpha, w) only to about the square root of that near degenerate bounds.
#: Measured worst cases on these fixtures (C = 1 and 10, full and 12 components):
#: CLARABEL 3e-6, HIGHS 1.3e-6, SCS / OSQP 7e-7 (OSQP polishes; SCS here reaches
#: ~1e-7 but its default eps only promises ~1e-4), ECOS 3.2e-5 (SOC reformulation).
CVXPY_DECISION_RTOL = {"CLARABEL": 2e-5, "HIGHS": 2e-5, "ECOS": 2e-4, "OSQP": 1e-3, "SCS": 1e-3}


def assert_decisions_close(dec, ref, rtol):
    np.testing.assert_allclose(dec, ref, rtol=0, atol=rtol * max(1.0, np.abs(ref).max()))


def flip(K):
    """V |lam| V' by numpy.linalg.eigh (independent of krein.spectrum)."""
    lam, V = np.linalg.eigh(K)
    Kf = (V * np.abs(lam)) @ V.T
    return 0.5 * (Kf + Kf.T)


def clip(K):
    lam, V = np.linalg.eigh(K)
    Kc = (V * np.maximum(lam, 0.0)) @ V.T
    return 0.5 * (Kc + Kc.T)


def svc(K, y, C=1.0):
    return SVC(kernel="precomputed", C=C, tol=LIBSVM_TOL).fit(K, y)


def full_coef(est, row=0):
    """The expansion coefficients of binary model ``row`` on all training points."""
    c = np.zeros(est.shape_fit_[0])
    c[est.support_] = est.dual_coef_[row]
    return c


def libsvm_dual_objective(model, K):
    u = np.zeros(K.shape[0])
    u[model.support_] = model.dual_coef_[0]
    return float(np.abs(u).sum() - 0.5 * u @ K @ u)


# =============================================================================
# ESVC = ESVM (Loosli et al. 2013, Algorithm 1)
# =============================================================================
def test_sigmoid_kernel_is_clearly_indefinite(sigmoid_problem):
    lam_min, lam_max = sigmoid_problem["lam_min"], sigmoid_problem["lam_max"]
    assert lam_min < 0 and -lam_min > 0.1 * lam_max
    assert lam_min == pytest.approx(np.linalg.eigvalsh(sigmoid_problem["K"])[0])


@pytest.mark.parametrize("C", [1.0, 10.0])
def test_esvc_training_decisions_equal_flipped_svm(sigmoid_problem, C):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    assert np.linalg.eigvalsh(K)[0] < 0
    Kf = flip(K)
    ref = svc(Kf, y, C)
    est = ESVC(kernel="precomputed", C=C, tol=LIBSVM_TOL).fit(K, y)
    # f(x_i) = K_i c + b with the ORIGINAL kernel equals the flipped SVM's decision
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(Kf), rtol=0, atol=EXACT)
    np.testing.assert_array_equal(est.predict(K), ref.predict(Kf))
    assert est.intercept_[0] == pytest.approx(ref.intercept_[0], abs=EXACT)
    # c~ is libsvm's y * alpha on the flipped kernel
    u_ref = np.zeros(y.size)
    u_ref[ref.support_] = ref.dual_coef_[0]
    np.testing.assert_allclose(est.flipped_dual_coef_[0], u_ref, atol=1e-7)
    assert est.min_eigenvalue_ == pytest.approx(sigmoid_problem["lam_min"], rel=1e-10)
    p, q, z = est.signature_
    assert q > 0 and p > 0 and p + q + z == y.size


def test_esvc_krein_coefficients(sigmoid_problem):
    """c = V sign(lam) V' c~, hence K c = K_abs c~; c~ = y * alpha~ is SVM-feasible."""
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    C = 2.0
    est = ESVC(kernel="precomputed", C=C, tol=LIBSVM_TOL).fit(K, y)
    c, u = full_coef(est), est.flipped_dual_coef_[0]
    np.testing.assert_allclose(K @ c, flip(K) @ u, atol=1e-10)
    lam, V = np.linalg.eigh(K)
    np.testing.assert_allclose(c, V @ (np.sign(lam) * (V.T @ u)), atol=1e-10)
    # feasibility of the flipped dual: u = y * alpha, 0 <= alpha <= C, y'alpha = sum(u) = 0
    alpha = y * u
    assert np.all(alpha >= -1e-12) and np.all(alpha <= C + 1e-12)
    assert abs(u.sum()) <= 1e-10
    # ESVM is not sparse: every training point carries a Krein coefficient
    assert est.support_.size == y.size


def test_esvc_predictions_use_original_kernel(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    est = ESVC(kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    dec = est.decision_function(Kt)
    expected = Kt[:, est.support_] @ est.dual_coef_[0] + est.intercept_[0]
    np.testing.assert_allclose(dec, expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Kt), np.where(expected > 0, 1, -1))
    # and it is NOT the flipped SVM applied to raw test rows (c != c~ on an indefinite K)
    raw = Kt @ est.flipped_dual_coef_[0] + est.intercept_[0]
    assert np.max(np.abs(dec - raw)) > 1e-2
    # the model is sensible on held-out data
    assert np.mean(est.predict(Kt) == sigmoid_problem["y_test"]) >= 0.75


def test_esvc_equals_svc_on_psd_kernel(gaussian_problem):
    K, y, Kt = gaussian_problem["K"], gaussian_problem["y"], gaussian_problem["K_test"]
    ref = svc(K, y)
    est = ESVC(kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    u = est.flipped_dual_coef_[0]
    D_est = float(np.abs(u).sum() - 0.5 * u @ K @ u)
    D_ref = libsvm_dual_objective(ref, K)
    assert D_est == pytest.approx(D_ref, rel=1e-10)
    np.testing.assert_allclose(est.decision_function(Kt), ref.decision_function(Kt), atol=EXACT)
    np.testing.assert_array_equal(est.predict(Kt), ref.predict(Kt))
    # on a PSD kernel the Krein coefficients are the SVM's own y * alpha
    np.testing.assert_allclose(full_coef(est), u, atol=1e-8)


def test_esvm_l_with_all_components_equals_esvm(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    full = ESVC(kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    allc = ESVC(kernel="precomputed", tol=LIBSVM_TOL, n_components=y.size).fit(K, y)
    assert allc.n_components_.tolist() == [y.size]
    np.testing.assert_allclose(allc.decision_function(Kt), full.decision_function(Kt), atol=EXACT)
    np.testing.assert_allclose(allc.decision_function(K), full.decision_function(K), atol=EXACT)


@pytest.mark.parametrize("k", [5, 12])
def test_esvm_l_n_components_is_svm_on_truncated_flipped_kernel(sigmoid_problem, k):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    lam, V = np.linalg.eigh(K)
    top = np.argsort(-np.abs(lam))[:k]                 # largest |lam|
    Kk = (V[:, top] * np.abs(lam[top])) @ V[:, top].T
    ref = svc(Kk, y)
    est = ESVC(kernel="precomputed", tol=LIBSVM_TOL, n_components=k).fit(K, y)
    assert est.n_components_.tolist() == [k]
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(Kk), atol=EXACT)
    # c lives in the span of the kept eigenvectors: c = V_k sign(lam_k) V_k' c~
    c = full_coef(est)
    Vk = V[:, top]
    np.testing.assert_allclose(c, Vk @ (np.sign(lam[top]) * (Vk.T @ est.flipped_dual_coef_[0])),
                               atol=1e-10)
    assert est.decision_function(Kt).shape == (Kt.shape[0],)


def test_esvm_l_energy(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    Kt, yt = sigmoid_problem["K_test"], sigmoid_problem["y_test"]
    a = np.sort(np.abs(np.linalg.eigvalsh(K)))[::-1]
    share = np.cumsum(a) / a.sum()
    for energy in (0.5, 0.9):
        expected_k = int(np.argmax(share >= energy)) + 1   # fewest components reaching the share
        est = ESVC(kernel="precomputed", energy=energy, tol=LIBSVM_TOL).fit(K, y)
        assert est.n_components_.tolist() == [expected_k]
        assert 1 <= expected_k < y.size
        # equals ESVM-L with that number of components
        by_k = ESVC(kernel="precomputed", n_components=expected_k, tol=LIBSVM_TOL).fit(K, y)
        np.testing.assert_allclose(est.decision_function(Kt), by_k.decision_function(Kt), atol=EXACT)
    full_acc = np.mean(ESVC(kernel="precomputed").fit(K, y).predict(Kt) == yt)
    acc = np.mean(est.predict(Kt) == yt)   # energy = 0.9
    assert acc >= 0.75 and acc >= full_acc - 0.15


@pytest.mark.parametrize("n_components", [None, 12])
@pytest.mark.parametrize("solver", sorted(CVXPY_DECISION_RTOL))
def test_esvc_cvxpy_dual_agrees_with_libsvm(sigmoid_problem, solver, n_components):
    if solver not in krein.installed_solvers():
        pytest.skip(f"{solver} not installed")
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    rtol = CVXPY_DECISION_RTOL[solver]
    for C in (1.0, 10.0):
        ref = ESVC(kernel="precomputed", C=C, n_components=n_components, tol=LIBSVM_TOL).fit(K, y)
        est = ESVC(kernel="precomputed", C=C, n_components=n_components, solver=solver).fit(K, y)
        assert_decisions_close(est.decision_function(K), ref.decision_function(K), rtol)
        assert_decisions_close(est.decision_function(Kt), ref.decision_function(Kt), rtol)



@pytest.mark.parametrize("n_components", [None, 12])
@pytest.mark.parametrize("path", [
    {}, {"solver": "CLARABEL"}, {"solver": "CLARABEL", "formulation": "primal"},
], ids=["libsvm", "CLARABEL-dual", "CLARABEL-primal"])
def test_esvc_flipped_dual_coef_is_y_alpha(sigmoid_problem, path, n_components):
    """flipped_dual_coef_ = c~ = y * alpha~ with alpha~ the SVM dual solution on the
    (truncated) flipped kernel: box-feasible, balanced, and libsvm's."""
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    C = 1.0
    est = ESVC(kernel="precomputed", C=C, n_components=n_components, tol=LIBSVM_TOL, **path).fit(K, y)
    u = est.flipped_dual_coef_[0]
    alpha = y * u
    assert np.all(alpha >= -1e-6) and np.all(alpha <= C + 1e-6)
    assert abs(u.sum()) <= 1e-6
    ref = ESVC(kernel="precomputed", C=C, n_components=n_components, tol=LIBSVM_TOL).fit(K, y)
    np.testing.assert_allclose(u, ref.flipped_dual_coef_[0], atol=1e-4)


@pytest.mark.parametrize("n_components", [None, 12])
def test_esvc_primal_clarabel_agrees_with_libsvm(sigmoid_problem, n_components):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    for C in (1.0, 10.0):
        ref = ESVC(kernel="precomputed", C=C, tol=LIBSVM_TOL, n_components=n_components).fit(K, y)
        est = ESVC(kernel="precomputed", C=C, solver="CLARABEL", formulation="primal",
                   n_components=n_components).fit(K, y)
        rtol = CVXPY_DECISION_RTOL["CLARABEL"]
        assert_decisions_close(est.decision_function(K), ref.decision_function(K), rtol)
        assert_decisions_close(est.decision_function(Kt), ref.decision_function(Kt), rtol)
        # same Krein coefficients c (they are unique: c = V_k sign(lam_k) |lam_k|^(-1/2) w)
        np.testing.assert_allclose(full_coef(est), full_coef(ref), atol=1e-4)
    with pytest.raises(ValueError, match="primal"):
        ESVC(kernel="precomputed", formulation="primal").fit(K, y)   # libsvm has no primal


def test_esvc_named_and_callable_kernel_equal_precomputed(sigmoid_problem):
    X, y, Xt = sigmoid_problem["X"], sigmoid_problem["y"], sigmoid_problem["X_test"]
    params = sigmoid_problem["params"]
    pre = ESVC(kernel="precomputed", tol=LIBSVM_TOL).fit(sigmoid_problem["K"], y)
    named = ESVC(kernel="sigmoid", kernel_params=params, tol=LIBSVM_TOL).fit(X, y)
    call = ESVC(kernel=lambda A, B, **p: sigmoid_kernel(A, B, **p), kernel_params=params,
                tol=LIBSVM_TOL).fit(X, y)
    ref = pre.decision_function(sigmoid_problem["K_test"])
    np.testing.assert_allclose(named.decision_function(Xt), ref, atol=1e-12)
    np.testing.assert_allclose(call.decision_function(Xt), ref, atol=1e-12)
    np.testing.assert_array_equal(named.support_vectors_, X[named.support_])
    # a named kernel without its parameters is a different kernel (the params are used)
    default = ESVC(kernel="sigmoid", tol=LIBSVM_TOL).fit(X, y)
    assert np.max(np.abs(default.decision_function(Xt) - ref)) > 1e-3


# =============================================================================
# Multiclass (one-vs-one)
# =============================================================================
def test_esvc_multiclass_equals_svc_on_psd_kernel(three_class_problem):
    d = three_class_problem
    K, y, Kt = d["K_rbf"], d["y"], d["K_rbf_test"]
    assert np.unique(y).tolist() == [0, 1, 2] and np.bincount(y).min() >= 5
    ref = svc(K, y)                     # libsvm one-vs-one, decision_function_shape="ovr"
    est = ESVC(kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    dec = est.decision_function(Kt)
    assert dec.shape == (Kt.shape[0], 3)
    np.testing.assert_allclose(dec, ref.decision_function(Kt), atol=1e-7)
    np.testing.assert_array_equal(est.predict(Kt), ref.predict(Kt))


@pytest.mark.parametrize("make", [
    lambda: ESVC(kernel="precomputed", tol=LIBSVM_TOL),
    lambda: ESVC(kernel="precomputed", tol=LIBSVM_TOL, energy=0.9),
    lambda: SpectrumSVC(correction="clip", kernel="precomputed", tol=LIBSVM_TOL),
    lambda: DirectSVC(kernel="precomputed", tol=LIBSVM_TOL),
    lambda: LPSVC(kernel="precomputed"),
], ids=["ESVC", "ESVC-L", "SpectrumSVC", "DirectSVC", "LPSVC"])
def test_multiclass_indefinite_shapes_and_pairwise_models(three_class_problem, make):
    d = three_class_problem
    K, y, Kt = d["K_sig"], d["y"], d["K_sig_test"]
    est = make().fit(K, y)
    m = Kt.shape[0]
    dec = est.decision_function(Kt)
    pred = est.predict(Kt)
    assert dec.shape == (m, 3) and pred.shape == (m,)
    np.testing.assert_array_equal(est.classes_, [0, 1, 2])
    np.testing.assert_array_equal(pred, est.classes_[np.argmax(dec, axis=1)])
    assert est.dual_coef_.shape == (3, est.support_.size) and est.intercept_.shape == (3,)
    # votes: the integer parts add up to the number of pairs
    assert np.allclose(np.round(dec).sum(axis=1), 3)
    # each one-vs-one model (i, j), i < j, positive for class j, is the binary model
    # fitted on that pair alone
    for r, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        idx = np.flatnonzero((y == i) | (y == j))
        binary = make().fit(K[np.ix_(idx, idx)], y[idx])
        np.testing.assert_array_equal(binary.classes_, [i, j])
        pair_dec = Kt[:, est.support_] @ est.dual_coef_[r] + est.intercept_[r]
        np.testing.assert_allclose(pair_dec, binary.decision_function(Kt[:, idx]), atol=1e-6)
    assert np.mean(pred == d["y_test"]) >= 0.5


# =============================================================================
# SpectrumSVC
# =============================================================================
@pytest.mark.parametrize("correction", ["clip", "flip"])
def test_spectrum_svc_equals_pipeline(sigmoid_problem, correction):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    pipe = make_pipeline(SpectrumCorrection(correction=correction),
                         SVC(kernel="precomputed", tol=LIBSVM_TOL)).fit(K, y)
    est = SpectrumSVC(correction=correction, out_of_sample="spectral", kernel="precomputed",
                      tol=LIBSVM_TOL).fit(K, y)
    np.testing.assert_allclose(est.decision_function(K), pipe.decision_function(K), atol=EXACT)
    np.testing.assert_allclose(est.decision_function(Kt), pipe.decision_function(Kt), atol=EXACT)
    # and the pipeline's training decisions are libsvm on the independently corrected kernel
    Kc = clip(K) if correction == "clip" else flip(K)
    np.testing.assert_allclose(est.decision_function(K), svc(Kc, y).decision_function(Kc), atol=EXACT)


def test_spectrum_svc_flip_spectral_equals_esvc(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    est = SpectrumSVC(correction="flip", out_of_sample="spectral", kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    esvc = ESVC(kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    np.testing.assert_allclose(est.decision_function(Kt), esvc.decision_function(Kt), atol=EXACT)


@pytest.mark.parametrize("correction", ["clip", "flip", "shift"])
def test_spectrum_svc_raw_uses_raw_rows(sigmoid_problem, correction):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    est = SpectrumSVC(correction=correction, out_of_sample="raw", kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    dec = est.decision_function(Kt)
    np.testing.assert_allclose(dec, Kt[:, est.support_] @ est.dual_coef_[0] + est.intercept_[0],
                               atol=1e-12)
    np.testing.assert_allclose(full_coef(est), est.corrected_dual_coef_[0], atol=0)
    # = libsvm trained on the corrected kernel and fed the raw test rows
    lam0 = np.linalg.eigvalsh(K)[0]
    Kc = {"clip": clip, "flip": flip}.get(correction, lambda A: A - lam0 * np.eye(len(A)))(K)
    np.testing.assert_allclose(dec, svc(Kc, y).decision_function(Kt), atol=EXACT)
    if correction == "shift":   # "auto" is raw for shift
        auto = SpectrumSVC(correction="shift", kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
        np.testing.assert_allclose(auto.decision_function(Kt), dec, atol=1e-12)


def test_spectrum_svc_transductive(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    Kt, Ktt = sigmoid_problem["K_test"], sigmoid_problem["K_test_test"]
    n, m = K.shape[0], Kt.shape[0]
    est = SpectrumSVC(correction="clip", out_of_sample="transductive", kernel="precomputed",
                      tol=LIBSVM_TOL).fit(K, y)
    rows = np.hstack([Kt, Ktt])
    assert rows.shape == (m, n + m)
    dec = est.decision_function(rows)
    pred = est.predict(rows)
    assert dec.shape == (m,) and pred.shape == (m,)
    assert set(np.unique(pred)) <= {-1, 1}
    # by hand: clip the joint kernel, read the test-vs-train block, apply y * alpha
    joint = np.block([[K, Kt.T], [Kt, Ktt]])
    lam, V = np.linalg.eigh(joint)
    corrected_rows = (V[n:] * np.maximum(lam, 0)) @ V[:n].T
    expected = corrected_rows @ est.corrected_dual_coef_[0] + est.intercept_[0]
    np.testing.assert_allclose(dec, expected, atol=1e-10)
    # the SVM itself is libsvm on the clipped training kernel
    np.testing.assert_allclose(est.corrected_dual_coef_[0][svc(clip(K), y).support_],
                               svc(clip(K), y).dual_coef_[0], atol=1e-7)
    with pytest.raises(ValueError, match="n \\+ m"):
        est.decision_function(Kt)          # the test-test block is missing
    # on feature vectors the same model is built from the kernel
    feat = SpectrumSVC(correction="clip", out_of_sample="transductive", kernel="sigmoid",
                       kernel_params=sigmoid_problem["params"], tol=LIBSVM_TOL)
    feat.fit(sigmoid_problem["X"], y)
    np.testing.assert_allclose(feat.decision_function(sigmoid_problem["X_test"]), dec, atol=1e-10)


# =============================================================================
# DirectSVC and LPSVC
# =============================================================================
def test_direct_svc_is_libsvm_on_raw_kernel(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    est = DirectSVC(kernel="precomputed", tol=LIBSVM_TOL).fit(K, y)
    ref = svc(K, y)
    np.testing.assert_allclose(est.decision_function(Kt), ref.decision_function(Kt), atol=EXACT)
    np.testing.assert_array_equal(est.support_, np.sort(ref.support_))


def _linprog_objective(K, y, C):
    n = y.size
    yf = y.astype(float)
    cost = np.r_[np.ones(2 * n), 0.0, C * np.ones(n)]
    A = np.hstack([-yf[:, None] * K, yf[:, None] * K, -yf[:, None], -np.eye(n)])
    bounds = [(0, None)] * (2 * n) + [(None, None)] + [(0, None)] * n
    res = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    assert res.status == 0
    return res.fun, K @ (res.x[:n] - res.x[n:2 * n]) + res.x[2 * n]


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_lpsvc_matches_linprog(sigmoid_problem, C):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    obj_ref, dec_ref = _linprog_objective(K, y, C)
    est = LPSVC(kernel="precomputed", C=C).fit(K, y)   # CLARABEL: 1e-6 relative (interior point)
    c, b = full_coef(est), est.intercept_[0]
    dec = est.decision_function(K)
    np.testing.assert_allclose(dec, K @ c + b, atol=1e-12)
    obj = np.abs(c).sum() + C * np.maximum(0, 1 - y * dec).sum()
    assert obj == pytest.approx(obj_ref, rel=1e-6)
    assert np.mean(np.sign(dec) == np.sign(dec_ref)) >= 0.9
    sol = est.solutions_[0]
    assert abs(sol.gap) <= 1e-6 * obj_ref and sol.primal_residual <= 1e-6
    np.testing.assert_allclose(est.decision_function(Kt),
                               Kt[:, est.support_] @ est.dual_coef_[0] + b, atol=1e-12)
    # sparse expansion: the 1-norm keeps few expansion vectors
    assert 0 < est.support_.size < y.size


def test_lpsvc_other_solver(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    a = LPSVC(kernel="precomputed").fit(K, y)
    solver = "HIGHS" if "HIGHS" in krein.installed_solvers() else "ECOS"
    b = LPSVC(kernel="precomputed", solver=solver).fit(K, y)
    assert b.solutions_[0].objective == pytest.approx(a.solutions_[0].objective, rel=1e-6)
    with pytest.raises(ValueError, match="libsvm"):
        LPSVC(kernel="precomputed", solver="libsvm").fit(K, y)


# =============================================================================
# Bad input, for every estimator
# =============================================================================
ESTIMATORS = {
    "ESVC": ESVC,
    "SpectrumSVC": SpectrumSVC,
    "DirectSVC": DirectSVC,
    "LPSVC": LPSVC,
}
EST_IDS = list(ESTIMATORS)


@pytest.fixture(params=EST_IDS)
def est_cls(request):
    return ESTIMATORS[request.param]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_inf_rejected(est_cls, sigmoid_problem, bad):
    X, y, K = sigmoid_problem["X"], sigmoid_problem["y"], sigmoid_problem["K"]
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(ValueError):
        est_cls(kernel="sigmoid", kernel_params=sigmoid_problem["params"]).fit(Xb, y)
    Kb = K.copy()
    Kb[3, 5] = Kb[5, 3] = bad
    with pytest.raises(ValueError):
        est_cls(kernel="precomputed").fit(Kb, y)
    fitted = est_cls(kernel="precomputed").fit(K, y)
    Kt = sigmoid_problem["K_test"].copy()
    Kt[0, 0] = bad
    with pytest.raises(ValueError):
        fitted.predict(Kt)


def test_non_square_precomputed_rejected(est_cls, sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    with pytest.raises(ValueError, match="square"):
        est_cls(kernel="precomputed").fit(K[:, :-3], y)


def test_asymmetric_precomputed_rejected_and_tiny_asymmetry_accepted(est_cls, sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    rng = np.random.default_rng(5)
    scale = np.abs(K).max()
    K_bad = K + 1e-6 * scale * rng.normal(size=K.shape)       # far beyond 1e-8 relative
    with pytest.raises(ValueError, match="symmetric"):
        est_cls(kernel="precomputed").fit(K_bad, y)
    K_bad = K.copy()
    K_bad[0, 1] += 1e-7 * max(1.0, scale)                     # just beyond: one entry
    with pytest.raises(ValueError, match="symmetric"):
        est_cls(kernel="precomputed").fit(K_bad, y)
    K_ok = K + 1e-13 * rng.normal(size=K.shape)
    assert np.max(np.abs(K_ok - K_ok.T)) > 0
    ok = est_cls(kernel="precomputed").fit(K_ok, y)
    ref = est_cls(kernel="precomputed").fit(K, y)
    # accepted (symmetrized): same model up to the noise
    np.testing.assert_allclose(ok.decision_function(Kt), ref.decision_function(Kt), atol=1e-6)


def test_wrong_test_width_rejected(est_cls, sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    est = est_cls(kernel="precomputed").fit(K, y)
    for bad in (Kt[:, :-1], np.hstack([Kt, Kt[:, :2]])):
        with pytest.raises(ValueError):
            est.predict(bad)
        with pytest.raises(ValueError):
            est.decision_function(bad)
    # feature vectors: wrong number of features
    est = est_cls(kernel="sigmoid").fit(sigmoid_problem["X"], y)
    with pytest.raises(ValueError):
        est.predict(sigmoid_problem["X_test"][:, :-1])


def test_one_class_rejected(est_cls, sigmoid_problem):
    K, X = sigmoid_problem["K"], sigmoid_problem["X"]
    with pytest.raises(ValueError, match="class"):
        est_cls(kernel="precomputed").fit(K, np.ones(K.shape[0]))
    with pytest.raises(ValueError, match="class"):
        est_cls().fit(X, np.full(X.shape[0], "a"))


@pytest.mark.parametrize("C", [0, 0.0, -1.0, np.nan, np.inf, "1", None, True])
def test_bad_C_rejected(est_cls, sigmoid_problem, C):
    with pytest.raises(ValueError, match="C"):
        est_cls(kernel="precomputed", C=C).fit(sigmoid_problem["K"], sigmoid_problem["y"])


def test_unknown_solver_and_kernel_rejected(est_cls, sigmoid_problem):
    X, y, K = sigmoid_problem["X"], sigmoid_problem["y"], sigmoid_problem["K"]
    if "solver" in est_cls().get_params():
        with pytest.raises(ValueError) as exc:
            est_cls(kernel="precomputed", solver="NO_SUCH_SOLVER").fit(K, y)
        assert "CLARABEL" in str(exc.value)           # lists the installed solvers
    for kernel in ("nope", 3, None):
        with pytest.raises(ValueError, match="kernel"):
            est_cls(kernel=kernel).fit(X, y)
    with pytest.raises(ValueError, match="kernel_params"):
        est_cls(kernel="sigmoid", kernel_params=[1, 2]).fit(X, y)


def test_estimator_specific_parameters_rejected(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    bad = [
        ESVC(kernel="precomputed", formulation="nope"),
        ESVC(kernel="precomputed", n_components=3, energy=0.9),
        ESVC(kernel="precomputed", energy=1.5),
        ESVC(kernel="precomputed", n_components=0),
        ESVC(kernel="precomputed", max_iter=0),
        SpectrumSVC(correction="nope", kernel="precomputed"),
        SpectrumSVC(correction="clip", out_of_sample="nope", kernel="precomputed"),
        SpectrumSVC(correction="mds", eps=-1.0, kernel="precomputed"),
        DirectSVC(kernel="precomputed", max_iter=1.5),
        LPSVC(kernel="precomputed", sv_tol=2.0),
    ]
    for est in bad:
        with pytest.raises(ValueError):
            est.fit(K, y)


def test_make_method(sigmoid_problem):
    names = krein.list_methods()
    assert {"esvm", "esvm-l", "svm", "flip", "clip", "lp-svm"} <= set(names)
    with pytest.raises(ValueError) as exc:
        krein.make_method("nope")
    for name in names:
        assert name in str(exc.value)
    with pytest.raises(ValueError):
        krein.make_method("esvm", no_such_param=1)
    est = krein.make_method("esvm", C=3.0, kernel="precomputed")
    assert isinstance(est, ESVC) and est.C == 3.0
    assert krein.make_method("esvm-l").energy == 0.9
    assert krein.make_method("esvm") is not krein.make_method("esvm")   # fresh each time
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    # every classifier `krein compare` runs fits and predicts on a precomputed indefinite
    # kernel, except those that need inputs a plain kernel lacks (CLC / AKM: stacked base
    # kernels; `krein compare` lists them as skipped on such data)
    from krein.registry import method_requirements

    for name in krein.list_methods(task="classifier", compare=True):
        if method_requirements(name):
            continue
        pred = krein.make_method(name, kernel="precomputed").fit(K, y).predict(Kt)
        assert pred.shape == (Kt.shape[0],) and set(np.unique(pred)) <= {-1, 1}
    # a method that needs stacked base kernels says so on a plain kernel; PerturbSVM needs
    # a PSD kernel and says so (which methods `krein compare` runs is each entry's
    # declaration, held to the documented main job in tests/test_registry_rules.py)
    needs = [m for m in krein.list_methods() if method_requirements(m)]
    assert needs
    for name in needs:
        with pytest.raises(ValueError, match="base kernel|stack"):
            krein.make_method(name, kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="PSD"):
        krein.make_method("perturb-svm", kernel="precomputed").fit(K, y)
    # the filters partition the registry
    every = list(krein.list_methods())
    on, off = krein.list_methods(compare=True), krein.list_methods(compare=False)
    assert on and off and sorted([*on, *off]) == sorted(every)
    by_task = [list(krein.list_methods(task=t)) for t in ("classifier", "regressor", "outlier")]
    assert all(by_task) and sorted(sum(by_task, [])) == sorted(every)
    with pytest.raises(ValueError, match="task"):
        krein.list_methods(task="nope")


# =============================================================================
# A failing fit leaves no fitted model behind
# =============================================================================
FAILING = {
    # name: (estimator factory, module attribute the estimator calls to solve)
    "ESVC-libsvm": (lambda: ESVC(kernel="precomputed"), krein.estimators.svm, "libsvm_solve"),
    "ESVC-CLARABEL": (lambda: ESVC(kernel="precomputed", solver="CLARABEL"),
                      krein.estimators.svm, "solve"),
    "SpectrumSVC": (lambda: SpectrumSVC(kernel="precomputed"), krein.estimators.svm, "libsvm_solve"),
    "DirectSVC": (lambda: DirectSVC(kernel="precomputed"), krein.estimators.svm, "libsvm_solve"),
    "LPSVC": (lambda: LPSVC(kernel="precomputed"), krein.estimators.lpsvm, "solve"),
}

MODEL_ATTRS = ("classes_", "support_", "dual_coef_", "intercept_", "binary_models_", "n_iter_")


def _fail_fit(monkeypatch, name, K, y, k_fail):
    make, module, attr = FAILING[name]
    real = getattr(module, attr)
    calls = {"n": 0}

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] >= k_fail:
            raise SolverError("injected failure", solver="TEST", status="injected")
        return real(*args, **kwargs)

    est = make().fit(K, y)
    check_is_fitted(est)
    monkeypatch.setattr(module, attr, fake)
    with pytest.raises(SolverError, match="injected"):
        est.fit(K, y)
    assert calls["n"] == k_fail
    return est


@pytest.mark.parametrize("name", list(FAILING))
@pytest.mark.parametrize("multiclass", [False, True])
def test_failed_fit_removes_model(monkeypatch, sigmoid_problem, three_class_problem, name, multiclass):
    if multiclass:   # fail on the LAST of the three one-vs-one problems
        K, y, k_fail, Kt = (three_class_problem["K_sig"], three_class_problem["y"], 3,
                            three_class_problem["K_sig_test"])
    else:
        K, y, k_fail, Kt = sigmoid_problem["K"], sigmoid_problem["y"], 1, sigmoid_problem["K_test"]
    est = _fail_fit(monkeypatch, name, K, y, k_fail)
    for attr in MODEL_ATTRS:
        assert not hasattr(est, attr), attr
    with pytest.raises(NotFittedError):
        est.predict(Kt)
    with pytest.raises(NotFittedError):
        est.decision_function(Kt)


@pytest.mark.parametrize("name", list(FAILING))
def test_failed_fit_leaves_estimator_unfitted(monkeypatch, sigmoid_problem, name):
    est = _fail_fit(monkeypatch, name, sigmoid_problem["K"], sigmoid_problem["y"], 1)
    assert [k for k in vars(est) if k.endswith("_") and not k.startswith("__")] == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


@pytest.mark.parametrize("make", [
    lambda: ESVC(kernel="precomputed", solver="SCS", solver_options={"max_iters": 2}),
    lambda: LPSVC(kernel="precomputed", solver="SCS", solver_options={"max_iters": 2}),
], ids=["ESVC", "LPSVC"])
def test_real_solver_failure_leaves_estimator_unfitted(sigmoid_problem, make):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    est = make()
    est.set_params(solver_options=None).fit(K, y)            # a good fit first
    est.set_params(solver_options={"max_iters": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)          # CVXPY "inaccurate" warning
        with pytest.raises(SolverError):
            est.fit(K, y)
    for attr in MODEL_ATTRS:
        assert not hasattr(est, attr), attr
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_invalid_refit_leaves_estimator_unfitted(est_cls, sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    est = est_cls(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="class"):
        est.fit(K, np.ones(y.size))
    for attr in MODEL_ATTRS:
        assert not hasattr(est, attr), attr
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
