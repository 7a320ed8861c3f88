"""IndefiniteSVM estimators (Luss & d'Aspremont 2009, "luss"): IndefiniteSVC, IndefiniteSVR,
IndefiniteOneClassSVM, PerturbSVC.

Each behaviour is checked against something computed independently here:

* luss §2.3 (rho -> infinity): scikit-learn's libsvm (``SVC`` / ``SVR`` / ``OneClassSVM``
  with ``kernel="precomputed"``) on the clipped kernel ``V max(lam, 0) V'`` from
  ``numpy.linalg.eigh``; errors shrink like ``1/rho``;
* luss §4.3 (PSD kernel): PerturbSVC by projected gradient and by CVXPY, and the value of
  eq. (22) written out with NumPy;
* the four out-of-sample maps written out from their definitions (module docstring of
  :mod:`krein.estimators.indefinite`) with dense ``eigh`` of ``K0 + u u'/(4 rho)`` or of
  the joint train+test kernel;
* the value of eq. (7) at the returned ``alpha`` by a dense eigendecomposition, the
  feasibility of ``alpha`` and the KKT conditions of the SVM on the proxy kernel;
* the four algorithms ("pg", "apg", "accpm", "exchange") against each other.

The scikit-learn API checks are in ``test_estimator_checks.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.svm import SVC, SVR, OneClassSVM
from sklearn.utils.validation import check_is_fitted

import krein
import krein.estimators.indefinite as indefinite_module
from krein import IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR, PerturbSVC
from krein.estimators.indefinite import OUT_OF_SAMPLE_MAPS
from krein.kernels import gaussian_kernel

#: libsvm stopping tolerance of the references.
LIBSVM_TOL = 1e-10


# =============================================================================
# Independent helpers (NumPy only)
# =============================================================================
def clip(K):
    """V max(lam, 0) V'."""
    lam, V = np.linalg.eigh(K)
    Kc = (V * np.maximum(lam, 0.0)) @ V.T
    return 0.5 * (Kc + Kc.T)


def clip_rows(K_rows, K):
    """Test rows of the clip map: k(x, X) V+ V+'."""
    lam, V = np.linalg.eigh(K)
    Vp = V[:, lam > 1e-12 * np.abs(lam).max()]
    return K_rows @ Vp @ Vp.T


def neg_norm2(K):
    """||(K)_-||_F^2 = sum min(lam, 0)^2 (so g(0) = rho * neg_norm2)."""
    return float(np.sum(np.minimum(np.linalg.eigvalsh(K), 0.0) ** 2))


def proxy(K0, u, rho):
    """K* = (K0 + u u'/(4 rho))_+ (luss Theorem 1) by a dense eigh."""
    return clip(K0 + np.outer(u, u) / (4.0 * rho))


def positive_projector(K0, u, rho):
    """P+ on the positive eigenspace of X = K0 + u u'/(4 rho)."""
    mu, W = np.linalg.eigh(K0 + np.outer(u, u) / (4.0 * rho))
    Wp = W[:, mu > 1e-12 * np.abs(mu).max()]
    return Wp @ Wp.T


def transductive_rows(K0, u, rho, K_rows, K_tt):
    """luss §2.3: update the training block, clip the joint kernel, read the test rows."""
    n = K0.shape[0]
    J = np.block([[K0 + np.outer(u, u) / (4.0 * rho), K_rows.T], [K_rows, K_tt]])
    Jc = clip(J)
    return Jc[n:, :n]


def objective7(K0, u, c_beta, rho):
    """Value of luss eq. (7) (and 17, 20): c'beta - 1/2 u'K*u + rho ||K* - K0||_F^2."""
    Ks = proxy(K0, u, rho)
    return c_beta - 0.5 * u @ Ks @ u + rho * np.sum((Ks - K0) ** 2)


def libsvm_full(model, n):
    c = np.zeros(n)
    c[model.support_] = model.dual_coef_[0]
    return c


def indefinite_gauss_kernel(A, B):
    """A Gaussian kernel minus a multiple of the linear kernel: a difference of two PSD
    kernels (a Krein kernel), defined on new points, with one-class decision values that
    spread (unlike the sigmoid kernel's)."""
    return gaussian_kernel(A, B, gamma=0.5) - 0.1 * A @ B.T


@pytest.fixture(scope="module")
def krein_problem():
    """40 training and 20 test points in R^2 with the kernel above and real targets."""
    rng = np.random.default_rng(3)
    X_all = rng.normal(size=(60, 2))
    K_all = indefinite_gauss_kernel(X_all, X_all)
    y_all = np.sin(X_all[:, 0]) + 0.5 * X_all[:, 1] + 0.1 * rng.normal(size=60)
    K = K_all[:40, :40]
    lam = np.linalg.eigvalsh(K)
    assert lam[0] < -0.5 and lam[1] < -0.1            # two clearly negative eigenvalues
    return {"X": X_all[:40], "X_test": X_all[40:], "y": y_all[:40], "K": K,
            "K_test": K_all[40:, :40], "K_test_test": K_all[40:, 40:]}


# =============================================================================
# 1. rho -> infinity (luss §2.3): IndefiniteSVC tends to libsvm on the clipped kernel
# =============================================================================
def test_svc_rho_to_infinity_tends_to_svm_on_clipped_kernel(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    n, C = K.shape[0], 1.0
    Kc = clip(K)
    ref = SVC(kernel="precomputed", C=C, tol=LIBSVM_TOL).fit(Kc, y)
    u_ref = libsvm_full(ref, n)
    a_ref = np.abs(u_ref)
    dual_ref = a_ref.sum() - 0.5 * u_ref @ Kc @ u_ref
    dec_ref = ref.decision_function(Kc)
    Ktc = clip_rows(Kt, K)
    dec_test_ref = ref.decision_function(Ktc)
    g0 = neg_norm2(K)
    errs = []
    for rho in (1e2, 1e4):
        est = IndefiniteSVC(kernel="precomputed", C=C, rho=rho, solver="apg", out_of_sample="clip",
                            tol=1e-10, atol=1e-9, max_iter=5000).fit(K, y)
        u, b, alpha = est.proxy_dual_coef_[0], est.intercept_[0], est.alpha_[0]
        dec = proxy(K, u, rho) @ u + b                # training decisions K* u + b
        # f - g(0) <= SVM dual on Kc at alpha <= its maximum (K = Kc is feasible in eq. 4)
        gap_dual = dual_ref - (est.objective_[0] - rho * g0)
        e = {"dec": np.max(np.abs(dec - dec_ref)), "alpha": np.max(np.abs(alpha - a_ref)),
             "test": np.max(np.abs(est.decision_function(Kt) - dec_test_ref)), "dual": gap_dual}
        errs.append(e)
        # measured: dec 3.3/rho, alpha 0.8-1.0/rho, test 1.5/rho, dual 6/rho (rho = 1e2, 1e4)
        assert gap_dual >= -1e-12 * rho * g0 - 1e-8, (rho, e)   # round-off of f ~ rho g0
        assert e["dec"] <= 10.0 / rho, (rho, e)
        assert e["alpha"] <= 3.0 / rho, (rho, e)
        assert e["test"] <= 5.0 / rho, (rho, e)
        assert e["dual"] <= 20.0 / rho, (rho, e)
        np.testing.assert_array_equal(est.predict(Kt), ref.predict(Ktc))
        np.testing.assert_array_equal(np.sign(dec), np.sign(dec_ref))
    for key in ("dec", "alpha", "test", "dual"):
        assert errs[1][key] < errs[0][key], (key, errs)


# =============================================================================
# 2. SVR and one-class SVM: rho -> infinity gives libsvm on the clipped kernel
# =============================================================================
def test_svr_rho_to_infinity_tends_to_svr_on_clipped_kernel(krein_problem):
    K, y, Kt = krein_problem["K"], krein_problem["y"], krein_problem["K_test"]
    n, C, eps = K.shape[0], 1.0, 0.1
    Kc, Ktc = clip(K), clip_rows(Kt, K)
    ref = SVR(kernel="precomputed", C=C, epsilon=eps, tol=LIBSVM_TOL).fit(Kc, y)
    a_ref = libsvm_full(ref, n)
    dual_ref = y @ a_ref - eps * np.abs(a_ref).sum() - 0.5 * a_ref @ Kc @ a_ref
    pred_ref = ref.predict(Ktc)
    train_ref = ref.predict(Kc)
    g0 = neg_norm2(K)
    errs = []
    for rho in (1e2, 1e4):
        est = IndefiniteSVR(kernel="precomputed", C=C, epsilon=eps, rho=rho, solver="apg",
                            out_of_sample="clip", tol=1e-10, atol=1e-9, max_iter=5000).fit(K, y)
        a = est.alpha_
        assert abs(a.sum()) <= 1e-10 and np.all(np.abs(a) <= C + 1e-12)
        np.testing.assert_allclose(est.proxy_dual_coef_, a, atol=0)
        train = proxy(K, a, rho) @ a + est.intercept_[0]
        gap_dual = dual_ref - (est.objective_ - rho * g0)
        e = {"test": np.max(np.abs(est.predict(Kt) - pred_ref)),
             "train": np.max(np.abs(train - train_ref)),
             "b": abs(est.intercept_[0] - ref.intercept_[0]),
             "alpha": np.max(np.abs(a - a_ref)), "dual": gap_dual}
        errs.append(e)
        # measured (times rho): test 3.5-4.3, train 5, b 1.3-1.6, dual 9, alpha 35-55
        # (Kc is near-singular, so alpha is ill-determined; the decisions are not)
        assert gap_dual >= -1e-8, (rho, e)
        assert e["test"] <= 10.0 / rho, (rho, e)
        assert e["train"] <= 10.0 / rho, (rho, e)
        assert e["b"] <= 5.0 / rho, (rho, e)
        assert e["alpha"] <= 150.0 / rho, (rho, e)
        assert e["dual"] <= 25.0 / rho, (rho, e)
    for key in ("test", "train", "b", "alpha", "dual"):
        assert errs[1][key] < errs[0][key], (key, errs)


def test_one_class_rho_to_infinity_tends_to_one_class_svm_on_clipped_kernel(krein_problem):
    # What the certificate controls, and why the coefficients are checked the way they are.
    #
    # The solver stops on the certified gap of luss eq. (18), an objective gap.  An
    # objective gap delta controls the coefficients only through quadratic growth:
    # f(alpha_rho) - f(alpha) >= 1/2 d' K* d with d = alpha - alpha_rho (Danskin: f is a
    # minimum of concave quadratics -1/2 alpha'K alpha + const, and the first-order term is
    # >= 0 at the maximizer), so ||d||_K* <= sqrt(2 delta) -- a square root, and only in the
    # K*-seminorm (K* -> Kc as rho -> infinity).  Measured on this problem (n = 40):
    # * the error d is supported on libsvm's 5 free support vectors (the zero and the upper
    #   bound sets are identified exactly, asserted below), where Kc restricted to
    #   {sum d = 0} has smallest eigenvalue lam_face = 0.092 -- the null space of Kc
    #   (2 directions, K has 2 negative eigenvalues) cannot be entered: on this face the
    #   seminorm is a norm, |d|_2 <= ||d||_Kc / sqrt(lam_face);
    # * f carries the constant g(0) = rho ||(K)_-||_F^2 = 9.43 rho, while the variable part
    #   (the dual of the one-class SVM on Kc) is -0.094.  At rho = 1e4, f = 9.4e4, so f (and
    #   the gap) is known only to ~eps |f| = 2e-11 (the gap ends at -1.5e-11); points whose
    #   objectives differ by less are indistinguishable to the solver (tol = 0 changes
    #   nothing: it stops on the same iterate).  With nu n = 20 and delta = 16 eps |f| that
    #   is a coefficient resolution nu n sqrt(2 delta / lam_face) = 1.7e-3, far above
    #   0.1 / rho = 1e-5: the measured 3.0e-5 (0.30 / rho) is solver noise below that
    #   resolution, not the rho limit (whose error is 0.0074 / rho, measured at rho = 1e2;
    #   the test failed on new releases by this noise alone).  Certifying 1e-5 via
    #   the gap would need delta ~ 1e-14, below the double precision of f.  At rho = 1e2 the
    #   certified resolution (1.9e-4) is below 0.1 / rho, so the 1/rho law of the
    #   coefficients is checked there.
    # * libsvm's reference is not exact either (its kernel cache is float32): polishing it
    #   by an exact KKT solve on its active set moves the coefficients by 2.8e-7.
    # So per rho we assert: the dual value (controlled linearly by the gap) and the offset
    # within 0.1 / rho; the coefficient error in the Kc-seminorm within the rigorous bound
    # 1/2 ||alpha - alpha_ref||_Kc^2 <= dual error (the SVM dual D on Kc is a concave
    # quadratic maximized at alpha_ref, and f - g(0) <= D); and the max-abs coefficient
    # and decision errors within 0.1 / rho plus the resolution the certificate affords.
    K, Kt = krein_problem["K"], krein_problem["K_test"]
    n, nu = K.shape[0], 0.5
    Kc, Ktc = clip(K), clip_rows(Kt, K)
    ref = OneClassSVM(kernel="precomputed", nu=nu, tol=LIBSVM_TOL).fit(Kc)
    c_ref = libsvm_full(ref, n)
    assert c_ref.sum() == pytest.approx(nu * n)          # libsvm's scaling
    dec_ref = ref.decision_function(Ktc)
    assert np.ptp(dec_ref) > 1.0 and np.min(np.abs(dec_ref)) > 1e-3   # not degenerate
    assert 0 < np.mean(ref.predict(Ktc) == 1) < 1
    dual_ref = -0.5 * c_ref @ Kc @ c_ref / (nu * n) ** 2     # eq. (18) at alpha = c / (nu n)
    # the face of the reference: zero, upper-bound and free coefficients
    zero, upper = c_ref <= 1e-12, c_ref >= 1.0 - 1e-12
    free = ~zero & ~upper
    Z = np.linalg.svd(np.ones((1, free.sum())))[2][1:].T     # basis of {sum d = 0} on free
    lam_face = np.linalg.eigvalsh(Z.T @ Kc[np.ix_(free, free)] @ Z)[0]
    assert lam_face > 1e-2                                   # coefficients determined on it
    # sup over test rows k of sqrt(k Kc^+ k'): |k'd| <= that * ||d||_Kc (Ktc lies in range Kc)
    w_test = np.sqrt(np.max(np.einsum("ij,ji->i", Ktc, np.linalg.pinv(Kc, hermitian=True) @ Ktc.T)))
    g0 = neg_norm2(K)
    errs = []
    for rho in (1e2, 1e4):
        est = IndefiniteOneClassSVM(kernel="precomputed", nu=nu, rho=rho, solver="apg",
                                    out_of_sample="clip", tol=1e-10, atol=1e-12,
                                    max_iter=5000).fit(K)
        a = est.alpha_
        assert a.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(a >= -1e-14) and np.all(a <= 1.0 / (nu * n) + 1e-14)
        d = nu * n * a - c_ref
        # same face as the reference (so the error lives where Kc is definite)
        np.testing.assert_allclose(d[zero | upper], 0.0, atol=1e-12)
        gap_dual = dual_ref - (est.objective_ - rho * g0)
        # certified suboptimality of alpha for eq. (18), down to the round-off of f
        delta = max(est.duality_gap_, 0.0) + 16 * np.finfo(float).eps * abs(est.objective_)
        coef_res = nu * n * np.sqrt(2.0 * delta / lam_face)
        dec_res = nu * n * w_test * np.sqrt(2.0 * delta)
        e = {"coef": np.max(np.abs(d)), "coef_Kc": np.sqrt(max(d @ Kc @ d, 0.0)),
             "dec": np.max(np.abs(est.decision_function(Kt) - dec_ref)),
             "offset": abs(est.offset_ - ref.offset_[0]), "dual": gap_dual,
             "coef_res": coef_res, "dec_res": dec_res}
        errs.append(e)
        # measured (times rho): coef 0.0074 / 0.30, coef_Kc 0.0095 / 0.13, dec 0.011 / 0.045,
        # offset 0.0063 / 0.008, dual 1.5e-4 / 1.5e-4 (rho = 1e2 / 1e4);
        # absolute: coef_res 1.9e-4 / 1.7e-3, dec_res 5.8e-5 / 5.4e-4
        assert gap_dual >= -1e-9, (rho, e)
        for key in ("offset", "dual"):
            assert e[key] <= 0.1 / rho, (rho, key, e)
        assert 0.5 * e["coef_Kc"] ** 2 <= (nu * n) ** 2 * (max(gap_dual, 0.0) + 1e-12), (rho, e)
        assert e["coef"] <= 0.1 / rho + coef_res, (rho, e)
        assert e["dec"] <= 0.1 / rho + dec_res, (rho, e)
        np.testing.assert_array_equal(est.predict(Kt), ref.predict(Ktc))
        np.testing.assert_allclose(est.score_samples(Kt) - est.offset_, est.decision_function(Kt))
    # at rho = 1e2 the certificate resolves the rho limit, so the 1/rho law is checked there
    assert errs[0]["coef_res"] <= 0.1 / 1e2 and errs[0]["coef"] <= 0.1 / 1e2, errs[0]
    assert errs[0]["dec"] <= 0.1 / 1e2, errs[0]
    # decisions, offset and value shrink with rho (the coefficients at rho = 1e4 are below
    # the certificate's resolution, so their decrease is not asserted)
    for key in ("dec", "offset", "dual"):
        assert errs[1][key] < errs[0][key], (key, errs)


# =============================================================================
# 3. PSD kernel (luss §4.3): IndefiniteSVC with raw test rows is PerturbSVM
# =============================================================================
@pytest.mark.parametrize("rho", [0.1, 1.0])
def test_psd_kernel_indefinite_svc_equals_perturbsvc(gaussian_problem, rho):
    K, y, Kt = gaussian_problem["K"], gaussian_problem["y"], gaussian_problem["K_test"]
    assert np.linalg.eigvalsh(K)[0] > 0
    C = 1.0
    ref = IndefiniteSVC(kernel="precomputed", C=C, rho=rho, solver="apg", out_of_sample="raw",
                        tol=1e-9, max_iter=5000).fit(K, y)
    pg = PerturbSVC(kernel="precomputed", C=C, rho=rho, solver="pg", tol=1e-8,
                    max_iter=5000).fit(K, y)
    cvx = PerturbSVC(kernel="precomputed", C=C, rho=rho, solver="CLARABEL").fit(K, y)
    # eq. (22) written out at the reference alpha: 1'a - 1/2 u'K0 u - ||a||^4 / (16 rho)
    a = ref.alpha_[0]
    u = ref.proxy_dual_coef_[0]
    eq22 = a.sum() - 0.5 * u @ K @ u - (a @ a) ** 2 / (16.0 * rho)
    assert ref.objective_[0] == pytest.approx(eq22, rel=1e-10)
    for est in (pg, cvx):
        assert est.objective_[0] == pytest.approx(ref.objective_[0], rel=1e-5)
        b = est.alpha_[0]
        assert est.objective_[0] == pytest.approx(
            b.sum() - 0.5 * (y * b) @ K @ (y * b) - (b @ b) ** 2 / (16.0 * rho), rel=1e-10)
        np.testing.assert_allclose(est.alpha_, ref.alpha_, atol=1e-4)
        np.testing.assert_allclose(est.decision_function(Kt), ref.decision_function(Kt), atol=1e-4)
        np.testing.assert_array_equal(est.predict(Kt), ref.predict(Kt))
        # raw test rows: f(x) = k(x, X) u + b ("only the support vectors are perturbed")
        np.testing.assert_allclose(
            est.decision_function(Kt),
            Kt @ est.proxy_dual_coef_[0] + est.intercept_[0], rtol=0, atol=1e-12)
        assert est.duality_gap_[0] >= -1e-9
    assert pg.duality_gap_[0] <= 1e-8 * abs(pg.objective_[0]) + 1e-8


@pytest.mark.parametrize("algorithm", ["CLARABEL", "pg"])
def test_perturbsvc_rejects_indefinite_kernel(sigmoid_problem, algorithm):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    with pytest.raises(ValueError, match="PSD"):
        PerturbSVC(kernel="precomputed", solver=algorithm).fit(K, y)
    with pytest.raises(ValueError, match="PSD"):
        PerturbSVC(kernel="sigmoid", kernel_params=sigmoid_problem["params"],
                   solver=algorithm).fit(sigmoid_problem["X"], y)


# =============================================================================
# 4. The four algorithms give the same model
# =============================================================================
ALG_RHO = 10.0


@pytest.fixture(scope="module")
def svc_reference(sigmoid_problem):
    """A tightly solved IndefiniteSVC (rho = 10) to compare the algorithms with."""
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    return IndefiniteSVC(kernel="precomputed", rho=ALG_RHO, solver="apg", tol=1e-11,
                         max_iter=5000).fit(K, y)


@pytest.mark.parametrize("algorithm", [
    "pg", "apg",
    "accpm", "exchange",
])
def test_all_algorithms_agree(sigmoid_problem, svc_reference, algorithm):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    ref = svc_reference
    g0 = ALG_RHO * neg_norm2(K)
    est = IndefiniteSVC(kernel="precomputed", rho=ALG_RHO, solver=algorithm, tol=1e-5,
                        max_iter=3000).fit(K, y)
    assert est.objective_[0] == pytest.approx(ref.objective_[0], rel=1e-4)
    # sharper: relative to f - g(0) (g(0) = rho ||K0_-||^2 dominates f here)
    assert abs(est.objective_[0] - ref.objective_[0]) <= 1e-4 * abs(ref.objective_[0] - g0)
    # certificates are consistent across algorithms: lower <= OPT <= upper
    slack = 1e-12 * g0
    assert est.objective_[0] <= ref.objective_[0] + ref.duality_gap_[0] + slack
    assert ref.objective_[0] <= est.objective_[0] + est.duality_gap_[0] + slack
    # the returned alpha really has that value (dense eigh of K0 + u u'/(4 rho))
    a = est.alpha_[0]
    assert objective7(K, y * a, a.sum(), ALG_RHO) == pytest.approx(est.objective_[0], rel=1e-10)
    np.testing.assert_array_equal(est.predict(Kt), ref.predict(Kt))
    np.testing.assert_array_equal(est.predict(K), ref.predict(K))
    assert np.max(np.abs(est.decision_function(Kt) - ref.decision_function(Kt))) <= 1e-2


@pytest.mark.parametrize("algorithm", ["accpm", "exchange"])
def test_cutting_plane_algorithms_can_be_used_twice(algorithm):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(10, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    est = IndefiniteSVC(kernel="sigmoid", kernel_params={"a": 0.5, "r": -1.0}, rho=10.0,
                        solver=algorithm, max_iter=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
        est.fit(X, y)          # the second call fails (see reason)
    check_is_fitted(est)


# =============================================================================
# 5. Out-of-sample maps ("test kernels")
# =============================================================================
def _make(kind, test_kernel, kernel, kernel_params=None, **kw):
    common = dict(rho=1.0, solver="apg", kernel=kernel, kernel_params=kernel_params,
                  out_of_sample=test_kernel, tol=1e-6, max_iter=3000, **kw)
    if kind == "svc":
        return IndefiniteSVC(**common)
    if kind == "svr":
        return IndefiniteSVR(**common)
    return IndefiniteOneClassSVM(nu=0.3, **common)


def _targets(kind, X, y):
    if kind == "svc":
        return y
    if kind == "svr":
        return X[:, 0] + 0.5 * X[:, 1]
    return None


def _output(est, rows):
    """decision_function (SVC, one-class) or predict (SVR)."""
    return est.predict(rows) if isinstance(est, IndefiniteSVR) else est.decision_function(rows)


def _expected_output(est, kind, K, K_rows, K_tt, rho):
    """The map written out (module docstring of krein.estimators.indefinite), dense eigh."""
    u = est.proxy_dual_coef_[0] if kind == "svc" else est.proxy_dual_coef_
    mode = est.out_of_sample
    if mode == "raw":
        R = K_rows
    elif mode == "clip":
        R = clip_rows(K_rows, K)
    elif mode == "spectral":
        R = K_rows @ positive_projector(K, u, rho)
    else:
        R = transductive_rows(K, u, rho, K_rows, K_tt)
    if kind in ("svc", "svr"):
        return R @ u + est.intercept_[0]
    return est.nu * K.shape[0] * (R @ u) - est.offset_


@pytest.mark.parametrize("test_kernel", OUT_OF_SAMPLE_MAPS)
@pytest.mark.parametrize("kind", ["svc", "svr", "one-class"])
def test_test_kernels_named_and_precomputed(sigmoid_problem, kind, test_kernel):
    P = sigmoid_problem
    X, Xt, K, Kt, Ktt = P["X"], P["X_test"], P["K"], P["K_test"], P["K_test_test"]
    y = _targets(kind, X, P["y"])
    named = _make(kind, test_kernel, "sigmoid", P["params"]).fit(X, y)
    pre = _make(kind, test_kernel, "precomputed").fit(K, y)
    assert named.objective_ == pytest.approx(pre.objective_, rel=1e-12)
    rows = np.hstack([Kt, Ktt]) if test_kernel == "transductive" else Kt
    out_named, out_pre = _output(named, Xt), _output(pre, rows)
    assert out_named.shape == (Xt.shape[0],)
    np.testing.assert_allclose(out_pre, out_named, rtol=0, atol=1e-9)
    expected = _expected_output(pre, kind, K, Kt, Ktt, 1.0)
    np.testing.assert_allclose(out_pre, expected, rtol=0, atol=1e-8)
    if kind != "svr":
        np.testing.assert_array_equal(pre.predict(rows), np.where(expected > 0, 1, -1)
                                      if kind == "svc" else np.where(expected >= 0, 1, -1))
    if test_kernel == "transductive":
        with pytest.raises(ValueError, match=r"transductive.*\(m, n \+ m\)"):
            _output(pre, Kt)                       # (m, n) rows: the test block is missing
        with pytest.raises(ValueError, match="transductive"):
            _output(pre, np.hstack([Kt, Ktt[:, :3]]))
    else:
        # the map is folded into dual_coef_ on the raw test rows
        coef = pre.dual_coef_[0]
        raw = Kt[:, pre.support_] @ coef
        if kind == "one-class":
            np.testing.assert_allclose(pre.score_samples(Kt), raw, rtol=0, atol=1e-10)
        else:
            np.testing.assert_allclose(out_pre, raw + pre.intercept_[0], rtol=0, atol=1e-10)


def test_test_kernels_differ_on_an_indefinite_kernel(sigmoid_problem):
    """The four maps are really different here (so the checks above are not vacuous)."""
    K, y, Kt, Ktt = (sigmoid_problem[k] for k in ("K", "y", "K_test", "K_test_test"))
    outs = {}
    for tk in OUT_OF_SAMPLE_MAPS:
        est = _make("svc", tk, "precomputed").fit(K, y)
        outs[tk] = est.decision_function(np.hstack([Kt, Ktt]) if tk == "transductive" else Kt)
    for i, a in enumerate(OUT_OF_SAMPLE_MAPS):
        for b in OUT_OF_SAMPLE_MAPS[i + 1:]:
            assert np.max(np.abs(outs[a] - outs[b])) > 1e-3, (a, b)


def test_spectral_training_decisions(sigmoid_problem):
    """On the training set the spectral map gives K0 P+ u + b = K* u + b - u (u'P+ u)/(4 rho)."""
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    for rho in (0.5, 5.0):
        est = IndefiniteSVC(kernel="precomputed", rho=rho, solver="apg", tol=1e-8,
                            max_iter=3000).fit(K, y)
        u, b = est.proxy_dual_coef_[0], est.intercept_[0]
        Pp = positive_projector(K, u, rho)
        dec = est.decision_function(K)
        np.testing.assert_allclose(dec, K @ Pp @ u + b, rtol=0, atol=1e-9)
        np.testing.assert_allclose(dec, proxy(K, u, rho) @ u + b - u * (u @ Pp @ u) / (4 * rho),
                                   rtol=0, atol=1e-9)
        # clipping removed at least one direction (so P+ != I)
        assert np.linalg.matrix_rank(Pp) < K.shape[0]


@pytest.mark.parametrize("rho", [1.0, 1e4])
def test_spectral_equals_raw_on_psd_kernel(gaussian_problem, rho):
    K, y, Kt = gaussian_problem["K"], gaussian_problem["y"], gaussian_problem["K_test"]
    common = dict(kernel="precomputed", rho=rho, solver="apg", tol=1e-8, max_iter=3000)
    spec = IndefiniteSVC(out_of_sample="spectral", **common).fit(K, y)
    raw = IndefiniteSVC(out_of_sample="raw", **common).fit(K, y)
    np.testing.assert_allclose(spec.decision_function(Kt), raw.decision_function(Kt),
                               rtol=0, atol=1e-9)
    # training decisions: K0 u + b = K* u + b - u |u|^2/(4 rho), K* = K0 + u u'/(4 rho) (eq. 21)
    u, b = raw.proxy_dual_coef_[0], raw.intercept_[0]
    Ks = K + np.outer(u, u) / (4.0 * rho)
    np.testing.assert_allclose(spec.decision_function(K), Ks @ u + b - u * (u @ u) / (4 * rho),
                               rtol=0, atol=1e-9)


# =============================================================================
# 6. Fitted attributes
# =============================================================================
def test_svc_fitted_attributes(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    n, C, rho, tol, atol = K.shape[0], 2.0, 1.0, 1e-9, 1e-10
    est = IndefiniteSVC(kernel="precomputed", C=C, rho=rho, solver="apg", tol=tol, atol=atol,
                        max_iter=5000).fit(K, y)
    g0 = rho * neg_norm2(K)
    for name, shape in (("objective_", (1,)), ("duality_gap_", (1,)), ("n_iter_", (1,)),
                        ("alpha_", (1, n)), ("proxy_dual_coef_", (1, n)), ("intercept_", (1,))):
        assert getattr(est, name).shape == shape, name
    f, gap = est.objective_[0], est.duality_gap_[0]
    assert gap >= -1e-12 * abs(f)
    assert gap <= max(atol, tol * abs(f - g0)) * (1 + 1e-12)          # converged
    assert 1 <= est.n_iter_[0] < 5000
    assert isinstance(est.trace_, pd.DataFrame)
    assert "pair" in est.trace_.columns and set(est.trace_["pair"]) == {0}
    assert len(est.trace_) == est.n_iter_[0]
    assert {"objective", "lower", "upper", "gap"} <= set(est.trace_.columns)
    assert est.trace_["lower"].iloc[-1] == pytest.approx(f)
    # alpha feasible; u = y * alpha with y = +1 for classes_[1]
    alpha = est.alpha_[0]
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    assert abs(y_pm @ alpha) <= 1e-10
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    np.testing.assert_allclose(est.proxy_dual_coef_[0], y_pm * alpha, rtol=0, atol=0)
    # objective_ is eq. (7) at alpha_ (dense eigh), and it beats the proxy-free start alpha = 0
    assert objective7(K, y_pm * alpha, alpha.sum(), rho) == pytest.approx(f, rel=1e-11)
    assert f > g0
    # KKT of the SVM on the proxy kernel K* (the saddle point): the intercept is the SVM's
    m = y_pm * (proxy(K, est.proxy_dual_coef_[0], rho) @ est.proxy_dual_coef_[0]
                + est.intercept_[0])
    free = (alpha > 1e-6 * C) & (alpha < C * (1 - 1e-6))
    assert free.sum() >= 2
    np.testing.assert_allclose(m[free], 1.0, atol=1e-3)
    assert np.all(m[alpha <= 1e-9 * C] >= 1 - 1e-3)
    assert np.all(m[alpha >= C * (1 - 1e-9)] <= 1 + 1e-3)
    # dual_coef_ / support_ reproduce decision_function on precomputed rows
    np.testing.assert_allclose(est.decision_function(Kt),
                               Kt[:, est.support_] @ est.dual_coef_[0] + est.intercept_[0],
                               rtol=0, atol=1e-12)
    assert est.dual_coef_.shape == (1, est.support_.size)
    assert np.all(est.dual_coef_ != 0)
    np.testing.assert_array_equal(est.predict(Kt), est.classes_[(est.decision_function(Kt) > 0)
                                                                 .astype(int)])


def test_svr_and_one_class_fitted_attributes(krein_problem):
    K, y, Kt = krein_problem["K"], krein_problem["y"], krein_problem["K_test"]
    n, rho = K.shape[0], 1.0
    svr = IndefiniteSVR(kernel="precomputed", C=2.0, epsilon=0.05, rho=rho, solver="apg",
                        out_of_sample="raw", tol=1e-9, max_iter=5000).fit(K, y)
    a = svr.alpha_
    assert isinstance(svr.objective_, float) and isinstance(svr.n_iter_, int)
    assert abs(a.sum()) <= 1e-10 and np.all(np.abs(a) <= 2.0 + 1e-12)
    c_beta = y @ a - 0.05 * np.abs(a).sum()
    assert objective7(K, a, c_beta, rho) == pytest.approx(svr.objective_, rel=1e-9)
    # atol = 1e-8 (default) is in the unit of the data (Certifier.unit), not absolute
    assert 0 <= svr.duality_gap_ <= max(1e-9 * abs(svr.objective_ - rho * neg_norm2(K)),
                                        1e-8 * svr.solution_.certificate["unit"])
    assert isinstance(svr.trace_, pd.DataFrame) and len(svr.trace_) == svr.n_iter_
    # KKT on K*: |residual| = epsilon on free support vectors (0 < |a| < C)
    r = proxy(K, a, rho) @ a + svr.intercept_[0] - y
    free = (np.abs(a) > 1e-6) & (np.abs(a) < 2.0 - 1e-6)
    assert free.sum() >= 2
    np.testing.assert_allclose(np.abs(r[free]), 0.05, atol=1e-3)
    np.testing.assert_allclose(np.sign(r[free]), -np.sign(a[free]))
    np.testing.assert_allclose(svr.predict(Kt), Kt[:, svr.support_] @ svr.dual_coef_[0]
                               + svr.intercept_[0], rtol=0, atol=1e-12)

    nu = 0.3
    ocs = IndefiniteOneClassSVM(kernel="precomputed", nu=nu, rho=rho, solver="apg",
                                out_of_sample="raw", tol=1e-9, atol=1e-12, max_iter=5000).fit(K)
    a = ocs.alpha_
    assert a.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(a >= 0) and np.all(a <= 1 / (nu * n) * (1 + 1e-12))
    assert ocs.dual_coef_.sum() == pytest.approx(nu * n, rel=1e-10)     # scaled as sklearn
    np.testing.assert_allclose(ocs.dual_coef_[0], nu * n * a[ocs.support_], rtol=1e-12)
    assert objective7(K, a, 0.0, rho) == pytest.approx(ocs.objective_, rel=1e-9)
    # KKT on K*: the decision (nu n K* alpha - offset_) vanishes on free support vectors
    d = nu * n * proxy(K, a, rho) @ a - ocs.offset_
    free = (a > 1e-6 / n) & (a < (1 - 1e-6) / (nu * n))
    assert free.sum() >= 1
    np.testing.assert_allclose(d[free], 0.0, atol=1e-3 * nu * n)
    assert np.all(d[a <= 1e-12] >= -1e-3 * nu * n)
    assert np.all(d[a >= (1 - 1e-9) / (nu * n)] <= 1e-3 * nu * n)
    np.testing.assert_array_equal(ocs.fit_predict(K),
                                  np.where(ocs.decision_function(K) >= 0, 1, -1))


def test_multiclass_one_vs_one(three_class_problem):
    P = three_class_problem
    K, y, Kt = P["K_sig"], P["y"], P["K_sig_test"]
    common = dict(kernel="precomputed", rho=1.0, solver="apg", tol=1e-6, max_iter=3000)
    est = IndefiniteSVC(**common).fit(K, y)
    n = K.shape[0]
    np.testing.assert_array_equal(est.classes_, [0, 1, 2])
    for name in ("objective_", "duality_gap_", "n_iter_", "intercept_"):
        assert getattr(est, name).shape == (3,), name
    assert est.alpha_.shape == (3, n) and est.proxy_dual_coef_.shape == (3, n)
    assert sorted(set(est.trace_["pair"])) == [0, 1, 2]
    for r in range(3):
        assert (est.trace_["pair"] == r).sum() == est.n_iter_[r]
    votes = np.zeros((Kt.shape[0], 3))
    for r, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        idx = np.flatnonzero((y == i) | (y == j))
        off = np.setdiff1d(np.arange(n), idx)
        assert np.all(est.alpha_[r, off] == 0) and np.all(est.proxy_dual_coef_[r, off] == 0)
        # pair (i, j) is the binary problem on its two classes (positive for j)
        b = IndefiniteSVC(**common).fit(K[np.ix_(idx, idx)], y[idx])
        assert est.objective_[r] == pytest.approx(b.objective_[0], rel=1e-12)
        np.testing.assert_allclose(est.alpha_[r, idx], b.alpha_[0], atol=1e-12)
        assert est.intercept_[r] == pytest.approx(b.intercept_[0], abs=1e-12)
        d = b.decision_function(Kt[:, idx])
        votes[:, j] += d > 0
        votes[:, i] += d <= 0
    dec = est.decision_function(Kt)
    assert dec.shape == (Kt.shape[0], 3)
    np.testing.assert_array_equal(np.floor(dec + 0.5), votes)    # votes plus |confidence| < 1/2
    pred = est.predict(Kt)
    assert np.all(votes[np.arange(pred.size), pred] == votes.max(axis=1))
    assert np.mean(pred == P["y_test"]) >= 0.5


# =============================================================================
# 7. Bad input
# =============================================================================
_K3 = np.array([[1.0, 0.2, -0.4], [0.2, 1.0, 0.5], [-0.4, 0.5, 1.0]])
_Y3 = np.array([0, 1, 1])

BAD_PARAMS = [
    (IndefiniteSVC, {"rho": 0.0}, "rho"),
    (IndefiniteSVC, {"rho": -1.0}, "rho"),
    (IndefiniteSVC, {"rho": np.inf}, "rho"),
    (IndefiniteSVC, {"solver": "newton"}, "solver"),
    (IndefiniteSVC, {"out_of_sample": "nystroem"}, "out_of_sample"),
    (IndefiniteSVC, {"tol": -1e-3}, "tol"),
    (IndefiniteSVC, {"atol": np.nan}, "atol"),
    (IndefiniteSVC, {"max_iter": 0}, "max_iter"),
    (IndefiniteSVC, {"max_iter": 2.5}, "max_iter"),
    (IndefiniteSVC, {"gap_every": -1}, "gap_every"),
    (IndefiniteSVC, {"solver_options": [("step", "lipschitz")]}, "solver_options"),
    (IndefiniteSVC, {"C": 0.0}, "C"),
    (IndefiniteSVR, {"C": -1.0}, "C"),
    (IndefiniteSVR, {"epsilon": -0.1}, "epsilon"),
    (IndefiniteSVR, {"rho": 0}, "rho"),
    (IndefiniteSVR, {"out_of_sample": "bogus"}, "out_of_sample"),
    (IndefiniteOneClassSVM, {"nu": 0.0}, "nu"),
    (IndefiniteOneClassSVM, {"nu": 1.5}, "nu"),
    (IndefiniteOneClassSVM, {"max_iter": 0}, "max_iter"),
    (IndefiniteOneClassSVM, {"solver": "sgd"}, "solver"),
    (PerturbSVC, {"rho": 0.0}, "rho"),
    (PerturbSVC, {"solver": "newton"}, "solver"),
    (PerturbSVC, {"C": 0.0}, "C"),
    (PerturbSVC, {"gap_every": -1}, "gap_every"),
    (PerturbSVC, {"psd_tol": -1.0}, "psd_tol"),
    (PerturbSVC, {"solver": "pg", "tol": -1.0}, "tol"),
    (PerturbSVC, {"psd_tol": np.inf}, "psd_tol"),
    (IndefiniteSVC, {"solver_options": {"bogus": 1}}, "solver_options"),
]


def _bad_id(case):
    cls, params, _ = case.values if hasattr(case, "values") else case
    return f"{cls.__name__}-" + ",".join(f"{k}={v!r}" for k, v in params.items())


@pytest.mark.parametrize("cls,params,match", BAD_PARAMS, ids=[_bad_id(c) for c in BAD_PARAMS])
def test_bad_parameters_raise_value_error(cls, params, match):
    est = cls(kernel="precomputed", **params)
    y = None if cls is IndefiniteOneClassSVM else (_Y3 if cls in (IndefiniteSVC, PerturbSVC)
                                                    else np.array([0.0, 1.0, 2.0]))
    # PerturbSVC gets a PSD kernel, except for psd_tol (then the check must precede the PSD test)
    K = np.eye(3) if cls is PerturbSVC and "psd_tol" not in params else _K3
    with pytest.raises(ValueError, match=match):
        est.fit(K, y)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


@pytest.mark.parametrize("cls", [IndefiniteSVC, IndefiniteSVR, IndefiniteOneClassSVM, PerturbSVC])
def test_bad_data_raise_value_error(cls):
    y = None if cls is IndefiniteOneClassSVM else np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match="square"):
        cls(kernel="precomputed").fit(np.ones((4, 3)), y)
    with pytest.raises(ValueError, match="symmetric"):
        cls(kernel="precomputed").fit(np.triu(np.ones((4, 4))), y)
    if cls in (IndefiniteSVC, PerturbSVC):
        with pytest.raises(ValueError, match="class"):
            cls(kernel="precomputed").fit(np.eye(4), np.ones(4))


def test_fitted_model_rejects_wrong_test_rows(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    for est in (IndefiniteSVC(kernel="precomputed", solver="apg").fit(K, y),
                IndefiniteSVR(kernel="precomputed", solver="apg").fit(K, y.astype(float)),
                IndefiniteOneClassSVM(kernel="precomputed", solver="apg").fit(K)):
        with pytest.raises(ValueError):
            (est.predict if isinstance(est, IndefiniteSVR) else est.decision_function)(Kt[:, :-1])


_FAILING = {
    "svc": (lambda: IndefiniteSVC(kernel="precomputed", solver="apg"), "y"),
    "svc-multiclass": (lambda: IndefiniteSVC(kernel="precomputed", solver="apg"), "y3"),
    "svr": (lambda: IndefiniteSVR(kernel="precomputed", solver="apg"), "yr"),
    "one-class": (lambda: IndefiniteOneClassSVM(kernel="precomputed", solver="apg"), None),
    "perturb-pg": (lambda: PerturbSVC(kernel="precomputed", solver="pg"), "y"),
}


@pytest.mark.parametrize("name", list(_FAILING))
def test_failed_fit_leaves_no_fitted_attribute(monkeypatch, gaussian_problem, name):
    make, ykey = _FAILING[name]
    K = gaussian_problem["K"]
    y = gaussian_problem["y"]
    targets = {"y": y, "y3": np.arange(K.shape[0]) % 3, "yr": y.astype(float), None: None}[ykey]
    est = make().fit(K, targets)
    check_is_fitted(est)
    real = indefinite_module.solve_indefinite
    calls = {"n": 0}
    fail_at = 3 if ykey == "y3" else 1           # multiclass: fail on the last pair

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] >= fail_at:
            raise RuntimeError("injected failure")
        return real(*args, **kwargs)

    monkeypatch.setattr(indefinite_module, "solve_indefinite", fake)
    with pytest.raises(RuntimeError, match="injected"):
        est.fit(K, targets)
    assert calls["n"] == fail_at
    assert [k for k in vars(est) if k.endswith("_") and not k.startswith("__")] == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    with pytest.raises(NotFittedError):
        est.predict(gaussian_problem["K_test"])


@pytest.mark.parametrize("make,ykey", [
    (lambda: IndefiniteSVC(kernel="precomputed", max_iter=1), "y"),
    (lambda: IndefiniteSVC(kernel="precomputed", solver="apg", max_iter=1), "y"),
    (lambda: IndefiniteSVR(kernel="precomputed", max_iter=1), "yr"),
    (lambda: IndefiniteOneClassSVM(kernel="precomputed", max_iter=1), None),
    (lambda: PerturbSVC(kernel="precomputed", solver="pg", max_iter=1), "y"),
], ids=["svc-pg", "svc-apg", "svr", "one-class", "perturb-pg"])
def test_convergence_warning_at_max_iter(sigmoid_problem, gaussian_problem, make, ykey):
    est = make()
    P = gaussian_problem if isinstance(est, PerturbSVC) else sigmoid_problem
    K = P["K"]
    y = {"y": P["y"], "yr": P["X"][:, 0], None: None}[ykey]
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est.fit(K, y)
    assert np.all(np.asarray(est.n_iter_) == 1)
    assert np.all(np.asarray(est.duality_gap_) > 0)       # a certified, not-yet-small gap
    check_is_fitted(est)


# =============================================================================
# 8. Registry
# =============================================================================
def test_registry_builds_indefinite_estimators():
    expected = {"indefinite-svm": IndefiniteSVC, "perturb-svm": PerturbSVC,
                "indefinite-svr": IndefiniteSVR, "indefinite-one-class": IndefiniteOneClassSVM}
    for name, cls in expected.items():
        est = krein.make_method(name, rho=3.0, kernel="precomputed")
        assert type(est) is cls and est.rho == 3.0 and est.kernel == "precomputed"
        assert krein.make_method(name) is not krein.make_method(name)
    assert "indefinite-svm" in krein.list_methods(task="classifier", compare=True)
    assert "perturb-svm" in krein.list_methods(task="classifier", compare=False)
    assert "indefinite-svr" in krein.list_methods(task="regressor")
    assert "indefinite-one-class" in krein.list_methods(task="outlier")
    classifiers = set(krein.list_methods(task="classifier"))
    assert not classifiers & {"indefinite-svr", "indefinite-one-class"}
    with pytest.raises(ValueError, match="rho"):
        krein.make_method("indefinite-svm", rho=-1.0).fit(_K3, _Y3)


# =============================================================================
# Intercept when no support vector is free (the rho -> infinity limit, degenerate case)
# =============================================================================
def test_svr_intercept_without_support_vectors_is_the_midpoint(krein_problem):
    K, y = krein_problem["K"], krein_problem["y"]
    eps = 0.6 * np.ptp(y)                  # the tube holds every target: alpha = 0
    est = IndefiniteSVR(kernel="precomputed", epsilon=eps, rho=1.0, solver="apg").fit(K, y)
    assert np.all(est.alpha_ == 0)
    ref = SVR(kernel="precomputed", epsilon=eps, tol=LIBSVM_TOL).fit(clip(K), y)
    assert ref.support_.size == 0
    # any b in [max(y) - eps, min(y) + eps] is optimal; libsvm takes the midpoint
    assert ref.intercept_[0] == pytest.approx(0.5 * (y.max() + y.min()))
    assert est.intercept_[0] == pytest.approx(ref.intercept_[0], abs=1e-8)


def test_svc_small_C_tends_to_svm_on_clipped_kernel(sigmoid_problem):
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    C, rho = 1e-3, 1e4
    ref = SVC(kernel="precomputed", C=C, tol=LIBSVM_TOL).fit(clip(K), y)
    est = IndefiniteSVC(kernel="precomputed", C=C, rho=rho, solver="apg", out_of_sample="clip",
                        tol=1e-10, atol=1e-12, max_iter=5000).fit(K, y)
    a = est.alpha_[0]
    assert not np.any((a > 1e-9 * C) & (a < C * (1 - 1e-9)))       # no free support vector
    np.testing.assert_allclose(a, np.abs(libsvm_full(ref, K.shape[0])), atol=1e-6)
    assert est.intercept_[0] == pytest.approx(ref.intercept_[0], abs=1e-3)
    np.testing.assert_array_equal(est.predict(Kt), ref.predict(clip_rows(Kt, K)))
