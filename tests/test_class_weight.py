"""``class_weight``: per-class box bounds ``C_i = C * w[y_i]`` (scikit-learn SVC's meaning).

Checked against something independent of the code path under test:
* libsvm paths (DirectSVC, ESVC on a PSD kernel) against scikit-learn's own
  ``SVC(class_weight=...)``;
* ``"balanced"`` against the dict it implies, ``n / (n_classes * bincount(y))``;
* two solvers of one problem with a vector of box bounds: PerturbSVC's CVXPY
  formulation (eq. 22) vs projected gradient, IndefiniteSVC's PG vs ACCPM, ModSVC's
  CVXPY primal vs the libsvm dual;
* LPSVC against scipy.optimize.linprog (HiGHS) on the same weighted LP, and its
  LP-dual certificate;
* ESVC's and SpectrumSVC's CVXPY paths (dual and primal) against the libsvm path
  on a PSD kernel, and the weighted hinge-optimal bias against a brute-force scan;
* KSVC's active set with a vector box against its CVXPY formulation of (26) and
  the KKT conditions with per-sample bounds.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from scipy.optimize import linprog

from krein import ESVC, KSVC, LPSVC, DirectSVC, IndefiniteSVC, ModSVC, PerturbSVC, SpectrumSVC
from krein.formulations.svm import optimal_intercept
from krein.kernels import gaussian_kernel, sigmoid_kernel


@pytest.fixture(scope="module")
def unbalanced():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(30, 2) + [1.0, 0.5], rng.randn(10, 2) - [0.5, 0.5]])
    y = np.r_[np.zeros(30, int), np.ones(10, int)]
    K = gaussian_kernel(X, X, gamma=0.5)
    return X, y, K


@pytest.mark.parametrize("cw", [{0: 1.0, 1: 5.0}, {0: 0.3}, "balanced"])
@pytest.mark.parametrize("cls", [DirectSVC, ESVC])
def test_libsvm_paths_equal_sklearn_svc(unbalanced, cls, cw):
    X, y, K = unbalanced
    ref = SVC(kernel="precomputed", C=2.0, class_weight=cw).fit(K, y)
    est = cls(kernel="precomputed", C=2.0, class_weight=cw).fit(K, y)
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(K), atol=1e-6)
    np.testing.assert_allclose(est.class_weight_, ref.class_weight_)


def test_multiclass_weights_as_sklearn(unbalanced):
    X, y, _ = unbalanced
    y3 = y.copy()
    y3[:12] = 2
    K = gaussian_kernel(X, X, gamma=0.5)
    cw = {0: 2.0, 1: 0.5, 2: 3.0}
    ref = SVC(kernel="precomputed", C=1.0, class_weight=cw).fit(K, y3)
    est = DirectSVC(kernel="precomputed", C=1.0, class_weight=cw).fit(K, y3)
    np.testing.assert_array_equal(est.predict(K), ref.predict(K))
    # one-vs-one: sklearn's pair (i, j) is positive for class i, ours for class j
    np.testing.assert_allclose(est.intercept_, -ref.intercept_, atol=1e-6)


def test_balanced_is_the_dict_it_implies(unbalanced):
    X, y, K = unbalanced
    n = y.size
    implied = {c: n / (2 * np.sum(y == c)) for c in (0, 1)}
    a = IndefiniteSVC(kernel="precomputed", solver="apg", class_weight="balanced", tol=1e-8,
                      max_iter=3000).fit(K, y)
    b = IndefiniteSVC(kernel="precomputed", solver="apg", class_weight=implied, tol=1e-8,
                      max_iter=3000).fit(K, y)
    np.testing.assert_allclose(a.class_weight_, [implied[0], implied[1]])
    np.testing.assert_array_equal(a.alpha_, b.alpha_)


def test_perturbsvc_cvxpy_and_pg_agree_with_vector_box(unbalanced):
    X, y, K = unbalanced
    cw = {0: 0.5, 1: 3.0}
    common = dict(kernel="precomputed", C=1.0, rho=2.0, class_weight=cw)
    cvx = PerturbSVC(solver="CLARABEL", **common).fit(K, y)
    pg = PerturbSVC(solver="pg", tol=1e-9, atol=1e-12, max_iter=20000, **common).fit(K, y)
    C_i = np.where(y == 1, 3.0, 0.5)
    for est in (cvx, pg):
        assert np.all(est.alpha_[0] <= C_i + 1e-9) and np.all(est.alpha_[0] >= -1e-12)
    # some negative-class alphas sit at their own (smaller) bound: the vector box is active
    assert np.any(np.isclose(pg.alpha_[0][y == 0], 0.5, atol=1e-6))
    np.testing.assert_allclose(cvx.alpha_, pg.alpha_, atol=1e-4)
    assert cvx.objective_[0] == pytest.approx(pg.objective_[0], rel=1e-6)


def test_indefinite_svc_algorithms_agree_with_vector_box(unbalanced):
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)
    common = dict(kernel="precomputed", C=1.0, rho=1.0, class_weight="balanced")
    pg = IndefiniteSVC(solver="apg", tol=1e-9, max_iter=20000, **common).fit(K, y)
    ac = IndefiniteSVC(solver="accpm", tol=1e-7, max_iter=500, **common).fit(K, y)
    C_i = 1.0 * pg.class_weight_[y]
    assert np.all(pg.alpha_[0] <= C_i + 1e-12)
    assert pg.duality_gap_[0] <= 1e-6 * max(1.0, abs(pg.objective_[0]))
    assert ac.objective_[0] == pytest.approx(pg.objective_[0], rel=1e-5)


def test_modsvc_cvxpy_primal_and_libsvm_dual_agree(unbalanced):
    X, y, K = unbalanced
    cw = {0: 0.4, 1: 2.5}
    cvx = ModSVC(kernel="precomputed", class_weight=cw, solver="CLARABEL").fit(K, y)
    lib = ModSVC(kernel="precomputed", class_weight=cw, solver="libsvm",
                 solver_options={"tol": 1e-8}).fit(K, y)
    np.testing.assert_allclose(cvx.decision_function(K), lib.decision_function(K), atol=1e-4)


def test_bad_class_weight(unbalanced):
    X, y, K = unbalanced
    with pytest.raises(ValueError, match="'class_weight' parameter"):
        DirectSVC(class_weight="uniform").fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight has label\(s\) \[7\]"):
        DirectSVC(class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="finite numbers > 0"):
        DirectSVC(class_weight={0: -1.0}).fit(X, y)
    est = DirectSVC(class_weight={7: 2.0})
    with pytest.raises(ValueError):
        est.fit(X, y)
    assert not hasattr(est, "classes_") and not hasattr(est, "n_features_in_")


# ------------------------------------------------------------------ LPSVC
def _linprog_lpsvm(K, y, C_i):
    """The weighted 1-norm LP-SVM as a plain LP for HiGHS: variables [c+, c-, b, xi]."""
    n, m = K.shape
    cost = np.r_[np.ones(2 * m), 0.0, C_i]
    YK = y[:, None] * K
    # -(y_i (K_i (c+ - c-) + b)) - xi_i <= -1
    A = np.hstack([-YK, YK, -y[:, None], -np.eye(n)])
    bounds = [(0, None)] * (2 * m) + [(None, None)] + [(0, None)] * n
    res = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    assert res.status == 0
    return res.fun, res.x[:m] - res.x[m:2 * m], res.x[2 * m]


@pytest.mark.parametrize("cw", [{0: 0.2, 1: 3.0}, "balanced"])
def test_lpsvc_equals_linprog(unbalanced, cw):
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)      # indefinite: only enters the constraints
    est = LPSVC(kernel="precomputed", C=0.7, class_weight=cw, sv_tol=0.0).fit(K, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    C_i = 0.7 * est.class_weight_[y]
    fun, c, b = _linprog_lpsvm(K, y_pm, C_i)
    f_ref = K @ c + b
    f = est.decision_function(K)
    P = np.abs(est.dual_coef_[0]).sum() + np.sum(C_i * np.maximum(0.0, 1.0 - y_pm * f))
    assert P == pytest.approx(fun, rel=1e-6, abs=1e-7)
    # weighted hinge changes the optimum: the unweighted LP has a different value
    fun_plain, _, _ = _linprog_lpsvm(K, y_pm, np.full(y.size, 0.7))
    assert abs(fun_plain - fun) > 1e-3
    np.testing.assert_array_equal(np.sign(f), np.sign(f_ref))
    sol = est.solutions_[0]
    assert abs(sol.gap) <= 1e-6 * max(1.0, fun)


def test_lpsvm_formulation_certificate_vector_C(unbalanced):
    from krein.formulations import LPSVM
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)
    y_pm = np.where(y == 1, 1.0, -1.0)
    C_i = np.where(y == 1, 2.0, 0.3)
    f = LPSVM(K, y_pm, C=C_i)
    f.problem.solve(solver="CLARABEL")
    cert = f.certificate()
    assert cert["dual_residual"] <= 1e-6 and abs(cert["gap"]) <= 1e-6 * max(1.0, cert["primal_objective"])
    alpha = np.asarray(f.constraints["margin"].dual_value)
    assert np.all(alpha <= C_i + 1e-7)
    # some negative-class multipliers sit at their (smaller) bound 0.3
    assert np.any(np.isclose(alpha[y == 0], 0.3, atol=1e-6))
    fun, _, _ = _linprog_lpsvm(K, y_pm, C_i)
    assert cert["primal_objective"] == pytest.approx(fun, rel=1e-6)
    with pytest.raises(ValueError, match=r"shape \(40,\) array"):
        LPSVM(K, y_pm, C=C_i[:5])


# ------------------------------------------------------------- ESVC CVXPY path
@pytest.mark.parametrize("cw", [{0: 0.4, 1: 3.0}, "balanced"])
@pytest.mark.parametrize("formulation", ["dual", "primal"])
def test_esvc_cvxpy_equals_libsvm(unbalanced, cw, formulation):
    X, y, K = unbalanced                          # Gaussian: PSD, so ESVC is the SVM on K
    lib = ESVC(kernel="precomputed", C=2.0, class_weight=cw, tol=1e-8).fit(K, y)
    cvx = ESVC(kernel="precomputed", C=2.0, class_weight=cw, solver="CLARABEL",
               formulation=formulation).fit(K, y)
    ref = SVC(kernel="precomputed", C=2.0, class_weight=cw, tol=1e-8).fit(K, y)
    np.testing.assert_allclose(cvx.decision_function(K), lib.decision_function(K), atol=1e-4)
    np.testing.assert_allclose(cvx.decision_function(K), ref.decision_function(K), atol=1e-4)
    np.testing.assert_allclose(cvx.class_weight_, lib.class_weight_)


def test_spectrumsvc_cvxpy_equals_libsvm(unbalanced):
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)
    cw = {0: 0.5, 1: 4.0}
    common = dict(kernel="precomputed", C=1.0, class_weight=cw, correction="clip")
    lib = SpectrumSVC(tol=1e-8, **common).fit(K, y)
    cvx = SpectrumSVC(solver="CLARABEL", **common).fit(K, y)
    np.testing.assert_allclose(cvx.decision_function(K), lib.decision_function(K), atol=1e-4)


def test_svmdual_certificate_vector_C(unbalanced):
    from krein.formulations import SVMDual
    X, y, K = unbalanced
    y_pm = np.where(y == 1, 1.0, -1.0)
    C_i = np.where(y == 1, 5.0, 0.5)
    f = SVMDual(y_pm, K=K, C=C_i)
    f.problem.solve(solver="CLARABEL")
    cert = f.certificate()
    assert abs(cert["gap"]) <= 1e-6 * max(1.0, cert["primal_objective"])
    alpha = np.asarray(f.variables["alpha"].value)
    assert np.all(alpha <= C_i + 1e-7)
    assert np.any(np.isclose(alpha[y == 0], 0.5, atol=1e-6))   # the vector box is active


def test_weighted_optimal_intercept_brute_force():
    rng = np.random.RandomState(3)
    f = rng.randn(25)
    y = np.where(rng.rand(25) < 0.4, 1.0, -1.0)
    w = rng.uniform(0.1, 5.0, 25)
    b = optimal_intercept(f, y, w)
    grid = np.linspace(-4, 4, 80001)
    H = [np.sum(w * np.maximum(0.0, 1.0 - y * (f + g))) for g in grid]
    Hb = np.sum(w * np.maximum(0.0, 1.0 - y * (f + b)))
    assert Hb <= min(H) + 1e-9
    # a scalar C does not change the minimizer
    assert optimal_intercept(f, y, 3.0) == optimal_intercept(f, y)


# ------------------------------------------------------------------- KSVC
def _ksvm_kkt_vector_box(K, y, C_i, alpha, tol):
    """The KKT conditions of (26) with per-sample bounds, checked from scratch: a
    multiplier lambda exists with g + lambda y >= 0 on alpha = 0, <= 0 on alpha = C_i,
    = 0 in between (g = 2 G (G alpha - 1)), to ``tol`` relative to max |g|."""
    G = (y[:, None] * K) * y[None, :]
    g = 2.0 * G @ (G @ alpha - 1.0)
    free = (alpha > 1e-9 * C_i) & (alpha < (1 - 1e-9) * C_i)
    assert np.any(free)
    lam = -np.mean(y[free] * g[free])
    s = g + lam * y
    scale = max(1.0, np.abs(g).max())
    at0 = alpha <= 1e-9 * C_i
    atC = alpha >= (1 - 1e-9) * C_i
    assert np.all(np.abs(s[free]) <= tol * scale)
    assert np.all(s[at0] >= -tol * scale)
    assert np.all(s[atC] <= tol * scale)
    assert abs(y @ alpha) <= 1e-9 * C_i.max()
    assert np.all(alpha >= 0) and np.all(alpha <= C_i * (1 + 1e-12))
    return atC


@pytest.mark.parametrize("C, cw", [(1.0, {0: 0.3, 1: 2.0}), (0.3, "balanced")])
def test_ksvc_active_set_vector_box_equals_cvxpy_and_kkt(unbalanced, C, cw):
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)
    act = KSVC(kernel="precomputed", C=C, class_weight=cw, tol=1e-10,
               solver_options={"verify": True}).fit(K, y)
    cvx = KSVC(kernel="precomputed", C=C, class_weight=cw, solver="CLARABEL").fit(K, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    C_i = C * act.class_weight_[y]
    alpha = act.alpha_[0]
    atC = _ksvm_kkt_vector_box(K, y_pm, C_i, alpha, 1e-7)
    # the vector box is active: points sit at their own (different) bounds
    assert np.any(atC)
    assert act.kkt_residual_[0] <= 1e-8
    assert act.objective_[0] == pytest.approx(cvx.objective_[0], rel=1e-5, abs=1e-8)
    np.testing.assert_allclose(cvx.alpha_, act.alpha_, atol=1e-4 * C_i.max())
    # the formulation's own certificate with the vector bound
    from krein.formulations.ksvm import KSVMLeastSquares
    f = KSVMLeastSquares(K, y_pm, C=C_i)
    f.problem.solve(solver="CLARABEL")
    cert = f.certificate()
    assert cert["dual_residual"] <= 1e-6 and cert["kkt_residual"] <= 1e-4
    assert cert["objective"] == pytest.approx(act.objective_[0], rel=1e-5, abs=1e-8)
    # and the unweighted problem differs
    plain = KSVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    assert abs(plain.objective_[0] - act.objective_[0]) > 1e-6 * max(1.0, act.objective_[0])


def test_ksvc_vector_box_of_ones_is_scalar(unbalanced):
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)
    from krein.solvers.ksvm import ksvm_active_set
    y_pm = np.where(y == 1, 1.0, -1.0)
    a = ksvm_active_set(K, y_pm, 0.3, tol=1e-10)
    b = ksvm_active_set(K, y_pm, np.full(y.size, 0.3), tol=1e-10)
    np.testing.assert_allclose(b.primal["alpha"], a.primal["alpha"], atol=1e-12)
    assert b.primal["b"] == pytest.approx(a.primal["b"], abs=1e-10)
