"""The approximation= paths of CH-DU (ConvexHullClassifier), flip-ridge
(FlippedKernelRidgeClassifier) and the Krein SVR (ESVR), and the declarations of
krein-ls-regressor and ksvm.

* CH-DU on the embedding of the signed features (SignedGram): products, columns,
  blocks, Lipschitz constant, gradient scale, face curvature and convexity against the
  dense matrix; at full rank the exact estimator's decision values to its certificate
  on a convex kernel (binary, three classes, the feasible values of the mu grid), and on
  the indefinite sigmoid a point certified stationary for the exact kernel whose rule is
  the exact rule at that point; at low rank the CVXPY optimum of the dense approximation.
* flip-ridge: the exact decision values to round-off at full rank (class weights, three
  classes, precomputed landmark columns); scikit-learn's Ridge on the features at low rank.
* ESVR: with libsvm the exact predictions at full rank to libsvm's tolerance; liblinear
  and libsvm against CVXPY on the problems they state at low rank.
* No n x n array (tracemalloc), and krein compare runs ch and flip-ridge approximated.
"""

from __future__ import annotations

import tracemalloc
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.linear_model import Ridge

from krein import IndefiniteNystroem
from krein.compare import run_comparison
from krein.estimators import ESVR, KSVC, ConvexHullClassifier
from krein.estimators.flip_ridge import FlippedKernelRidgeClassifier
from krein.formulations.hull import (SignedGram, hull_convexity,
                                     hull_convexity_features, hull_gradient_scale,
                                     hull_lipschitz, hull_local_minimality, hull_mu_min,
                                     hull_stationarity)
from krein.kernels import pairwise_kernel
from krein.registry import MU_GRID, approximation_defaults, make_method
from krein.solvers.hull import hull_convex
from krein.solvers.linear_svr import linear_svr

KP = {"a": 0.3, "r": -0.5}          # full-rank indefinite sigmoid (31 +, 49 - at n = 80)
N = 80


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, 5))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(N) > 0, 1, 0)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    Xt = rng.standard_normal((30, 5))
    return X, y, y3, Xt


def _full_rank(n=N):
    return IndefiniteNystroem(landmarks=np.arange(n), rcond=1e-12)


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def _feasible_mus(y):
    """The values of the mu grid feasible for every pair of classes of ``y``."""
    counts = np.bincount(y)
    return [mu for mu in MU_GRID if mu >= 1.0 / counts.min()]


# ---------------------------------------------------------------------------- SignedGram
def test_signed_gram_answers_what_the_solvers_ask_as_the_dense_matrix():
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((40, 7))
    s = np.array([1, 1, -1, 1, -1, 1, 1.0])
    K = (Z * s) @ Z.T
    G = SignedGram(Z, s)
    V = rng.standard_normal((40, 3))
    idx = np.array([3, 7, 11, 30])
    np.testing.assert_allclose(G @ V, K @ V, atol=1e-12)
    np.testing.assert_allclose(G @ V[:, 0], K @ V[:, 0], atol=1e-12)
    np.testing.assert_allclose(G[:, idx] @ V[idx, 0], K[:, idx] @ V[idx, 0], atol=1e-12)
    np.testing.assert_allclose(G[np.ix_(idx, idx)], K[np.ix_(idx, idx)], atol=1e-12)
    with pytest.raises(TypeError):
        G[0]
    assert hull_lipschitz(G) == pytest.approx(2 * np.max(np.abs(np.linalg.eigvalsh(K))),
                                              rel=1e-12)
    # the eigendecomposition given: the same constant without the r x r problem
    lam, U = np.linalg.eigh(K)
    keep = np.abs(lam) > 1e-9 * np.abs(lam).max()
    F = U[:, keep] * np.sqrt(np.abs(lam[keep]))
    eig = SignedGram(F, np.sign(lam[keep]), lam[keep])
    assert eig.lipschitz() == pytest.approx(hull_lipschitz(G), rel=1e-12)
    np.testing.assert_allclose(eig.gram(), F.T @ F, atol=1e-10)     # diag(|lam|), not formed
    y = np.where(np.arange(40) % 3 == 0, 1.0, -1.0)
    ex, ft = hull_convexity(K, y), hull_convexity_features(eig, y)
    assert ft.is_convex == ex.is_convex
    assert ft.min_eigenvalue == pytest.approx(ex.min_eigenvalue, abs=1e-9)
    scale = hull_gradient_scale(G)
    assert scale >= hull_gradient_scale(K) - 1e-12
    assert scale == pytest.approx(2 * np.max(np.sum(Z * Z, axis=1)), rel=1e-14)


@pytest.mark.parametrize("n_free", [6, 25])       # k - c <= r (dense face) and > r (r x r)
def test_face_curvature_and_convexity_from_the_features(n_free):
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((40, 7))
    s = np.array([1, 1, -1, 1, -1, 1, 1.0])
    K = (Z * s) @ Z.T
    y = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    a = np.zeros(40)
    free = np.arange(n_free)
    for cls in (1.0, -1.0):
        rows = free[y[free] == cls]
        a[rows] = 1.0 / rows.size
    dense = hull_local_minimality(a, K, y, 1.0)
    feat = hull_local_minimality(a, SignedGram(Z, s), y, 1.0, check_input=False)
    assert feat["n_free"] == dense["n_free"] == n_free
    assert feat["min_curvature"] == pytest.approx(dense["min_curvature"], rel=1e-9, abs=1e-9)
    assert feat["local_min"] == dense["local_min"]
    for Zc, sc in ((Z, s), (Z[:, [0, 1, 3]], s[[0, 1, 3]])):      # indefinite, then PSD
        Kc = (Zc * sc) @ Zc.T
        ex, ft = hull_convexity(Kc, y), hull_convexity_features(SignedGram(Zc, sc), y)
        assert ft.is_convex == ex.is_convex
        assert ft.min_eigenvalue == pytest.approx(ex.min_eigenvalue, abs=1e-9)
        np.testing.assert_allclose(ft.linear, ex.linear, atol=1e-10)
        assert ft.constant == pytest.approx(ex.constant, rel=1e-12)


# ---------------------------------------------------------------------------- CH-DU
@pytest.mark.parametrize("three", [False, True])
def test_ch_full_rank_convex_kernel_equals_the_exact_estimator(data, three):
    """The Gaussian kernel makes CH-DU convex: the exact path solves the QP (CLARABEL),
    the approximate one projected gradient from one start; both certified by their
    Frank-Wolfe gaps, their objectives agree within the sum of the gaps and the
    decision values to the stationarity tolerance (1e-6 moves them by about 1e-5)."""
    X, y, y3, Xt = data
    yy = y3 if three else y
    for mu in _feasible_mus(yy):
        ex = ConvexHullClassifier(mu=mu, random_state=0).fit(X, yy)
        ap = ConvexHullClassifier(mu=mu, random_state=0, approximation=_full_rank()).fit(X, yy)
        assert set(ex.solver_) == {"cvxpy"} and set(ap.solver_) == {"multistart"}
        assert all(ap.convex_) and all(ex.convex_)
        assert np.all(ap.stationarity_ <= 1e-6)
        assert np.all(np.abs(ap.w_norm_pe_ - ex.w_norm_pe_)
                      <= np.abs(ap.fw_gap_) + np.abs(ex.fw_gap_) + 1e-12), mu
        assert _rel(ap.decision_function(Xt), ex.decision_function(Xt)) < 1e-4, mu
        assert np.array_equal(ap.predict(Xt), ex.predict(Xt))
        assert ap.coef_.shape == (3 if three else 1, N)
        assert len(ap.local_optima_) == len(ap.pairs_)       # one start per convex pair


@pytest.mark.parametrize("three", [False, True])
def test_ch_full_rank_indefinite_kernel_is_the_exact_method(data, three):
    """On the sigmoid CH-DU is not convex; multi-start projected gradient returns a
    stationary point (which one depends on the step rule: the embedding's Lipschitz
    constant is 2 ||K||_2, the dense path's the row-sum bound).  Its point is certified
    stationary for the EXACT kernel, and the approximate rule is the exact rule
    (haasdonk eqs. (6)-(7) on k(x, X)) at that point, to round-off."""
    X, y, y3, Xt = data
    yy = y3 if three else y
    K = pairwise_kernel("sigmoid", X, X, KP)
    Kt = pairwise_kernel("sigmoid", Xt, X, KP)
    classes = np.unique(yy)
    for mu in _feasible_mus(yy):
        ap = ConvexHullClassifier(mu=mu, kernel="sigmoid", kernel_params=KP, random_state=0,
                                  n_starts=4, approximation=_full_rank()).fit(X, yy)
        assert not any(ap.convex_) and set(ap.solver_) == {"multistart"}
        dec = []
        for r, (i, j) in enumerate(ap.pairs_):
            idx = np.flatnonzero((yy == classes[i]) | (yy == classes[j]))
            ypm = np.where(yy[idx] == classes[j], 1.0, -1.0)
            a = ap.alpha_bar_[r]
            Ks = K[np.ix_(idx, idx)]
            st = hull_stationarity(a, Ks, ypm, mu)
            assert st["residual"] <= 1e-5 and st["violation"] <= 1e-12, (mu, r, st)
            assert ap.w_norm_pe_[r] == pytest.approx(st["objective"], rel=1e-9, abs=1e-12)
            u = ypm * a
            dec.append(2 * Kt[:, idx] @ u - a @ Ks @ u)
        dec = np.column_stack(dec)
        got = ap.decision_function(Xt)
        if not three:
            np.testing.assert_allclose(got, dec[:, 0], rtol=0, atol=1e-9 * np.abs(dec).max())
        else:
            raw = ap._binary_decisions(ap._front_end_rows(Xt))
            np.testing.assert_allclose(raw, dec, rtol=0, atol=1e-9 * np.abs(dec).max())


def test_ch_low_rank_reaches_the_cvxpy_optimum_of_the_approximation(data):
    """At rank 15 (Gaussian, PSD: convex) the optimum of CH-DU on the dense matrix
    Psi Psi' by CLARABEL (krein.formulations.hull.hull_convex), within the gaps."""
    X, y, _, Xt = data
    for mu in _feasible_mus(y):
        ap = ConvexHullClassifier(mu=mu, random_state=0, approximation=IndefiniteNystroem(
            n_components=15, random_state=0)).fit(X, y)
        Psi = ap.approximation_.transform(X)
        Ka = (Psi * np.sign(ap.eigenvalues_)) @ Psi.T
        ypm = np.where(y == 1, 1.0, -1.0)
        sol = hull_convex(Ka, ypm, mu)
        assert abs(ap.w_norm_pe_[0] - sol.objective) <= abs(ap.fw_gap_[0]) + abs(sol.gap) + 1e-9
        st = hull_stationarity(ap.alpha_bar_[0], Ka, ypm, mu)
        assert st["residual"] <= 1e-6
        u = ypm * ap.alpha_bar_[0]
        Pt = ap.approximation_.transform(Xt)
        want = 2 * (Pt * np.sign(ap.eigenvalues_)) @ (Psi.T @ u) - ap.alpha_bar_[0] @ Ka @ u
        np.testing.assert_allclose(ap.decision_function(Xt), want, atol=1e-10)


def test_ch_solvers_that_need_the_kernel_are_refused(data):
    X, y, _, _ = data
    for solver in ("nu-svm", "CLARABEL"):
        with pytest.raises(ValueError, match="needs the n x n kernel"):
            ConvexHullClassifier(solver=solver, approximation=_full_rank()).fit(X, y)
    with pytest.raises(ValueError, match="infeasible"):
        ConvexHullClassifier(mu=0.5 * hull_mu_min(np.where(y == 1, 1, -1)),
                             approximation=_full_rank()).fit(X, y)


# ---------------------------------------------------------------------------- flip-ridge
@pytest.mark.parametrize("three, cw", [(False, None), (True, None), (True, "balanced")])
def test_flip_ridge_full_rank_equals_the_exact_estimator(data, three, cw):
    X, y, y3, Xt = data
    yy = y3 if three else y
    kw = dict(C=3.0, kernel="sigmoid", kernel_params=KP, class_weight=cw)
    ex = FlippedKernelRidgeClassifier(**kw).fit(X, yy)
    ap = FlippedKernelRidgeClassifier(**kw, approximation=_full_rank()).fit(X, yy)
    assert _rel(ap.decision_function(Xt), ex.decision_function(Xt)) < 1e-9
    assert _rel(ap.decision_function(X), ex.decision_function(X)) < 1e-9
    assert ap.min_eigenvalue_ == pytest.approx(ex.min_eigenvalue_, rel=1e-9)
    np.testing.assert_allclose(ap.intercept_, ex.intercept_, rtol=1e-12)


def test_flip_ridge_on_precomputed_landmark_columns(data):
    X, _, y3, Xt = data
    K = pairwise_kernel("sigmoid", X, X, KP)
    Kt = pairwise_kernel("sigmoid", Xt, X, KP)
    ex = FlippedKernelRidgeClassifier(kernel="precomputed").fit(K, y3)
    ap = FlippedKernelRidgeClassifier(kernel="precomputed", approximation=IndefiniteNystroem(
        kernel="precomputed", landmark_block=K, rcond=1e-12)).fit(K, y3)
    assert _rel(ap.decision_function(Kt), ex.decision_function(Kt)) < 1e-9


def test_flip_ridge_low_rank_is_scikit_learns_ridge_on_the_features(data):
    X, _, y3, Xt = data
    ap = FlippedKernelRidgeClassifier(C=0.5, kernel="sigmoid", kernel_params=KP,
                                      class_weight="balanced", approximation=IndefiniteNystroem(
                                          n_components=12, random_state=0)).fit(X, y3)
    Psi, Pt = ap.approximation_.transform(X), ap.approximation_.transform(Xt)
    weights = 0.5 * ap.class_weight_[y3]
    for k in range(3):
        t = np.where(y3 == k, 1.0, -1.0)
        b = weights @ t / weights.sum()
        # min ||w||^2 + sum_i C_i (t_i - b - psi_i w)^2
        ridge = Ridge(alpha=1.0, fit_intercept=False).fit(Psi, t - b, sample_weight=weights)
        np.testing.assert_allclose(ap.coef_[k], ridge.coef_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(ap.decision_function(Xt)[:, k], Pt @ ridge.coef_ + b,
                                   rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------------------- ESVR
@pytest.fixture(scope="module")
def reg():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((N, 5))
    t = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(N)
    return X, t, rng.standard_normal((30, 5))


def test_esvr_full_rank_libsvm_equals_the_exact_estimator(reg):
    """The same SVR dual (unregularized intercept) on Psi Psi' = |K|: the predictions
    agree to libsvm's tolerance (tol=1e-6)."""
    X, t, Xt = reg
    kw = dict(C=2.0, kernel="sigmoid", kernel_params=KP)
    ex = ESVR(**kw).fit(X, t)
    ap = ESVR(**kw, solver="libsvm", approximation=_full_rank()).fit(X, t)
    assert ap.solver_ == "libsvm" and ap.solution_.certificate_kind == "residual"
    assert ap.solution_.dual_residual <= 1e-5
    assert _rel(ap.predict(Xt), ex.predict(Xt)) < 1e-5
    assert ap.signature_ == ex.signature_
    assert ap.min_eigenvalue_ == pytest.approx(ex.min_eigenvalue_, rel=1e-9)


def _svr_cvxpy(Phi, t, C, eps, bias_weight):
    w, b = cp.Variable(Phi.shape[1]), cp.Variable()
    loss = cp.sum(cp.pos(cp.abs(t - Phi @ w - b) - eps))
    obj = 0.5 * cp.sum_squares(w) + 0.5 * bias_weight * cp.square(b) + C * loss
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver="CLARABEL")
    return w.value, b.value, prob.value


@pytest.mark.parametrize("solver", ["libsvm", "liblinear"])
def test_esvr_low_rank_solves_the_stated_linear_svr(reg, solver):
    """libsvm: min 1/2 ||w||^2 + C sum eps-loss (intercept free); liblinear: the same
    plus 1/2 b^2 / s^2, s = max_i ||psi_i|| (krein.solvers.linear_svr); both by CVXPY."""
    X, t, Xt = reg
    ap = ESVR(C=2.0, kernel="sigmoid", kernel_params=KP, solver=solver,
              approximation=IndefiniteNystroem(n_components=10, random_state=0)).fit(X, t)
    Psi = ap.approximation_.transform(X)
    s = np.sqrt(np.max(np.sum(Psi * Psi, axis=1)))
    w, b, val = _svr_cvxpy(Psi, t, 2.0, 0.1, 0.0 if solver == "libsvm" else 1.0 / s ** 2)
    obj = 0.5 * ap.coef_ @ ap.coef_ + 2.0 * np.sum(np.maximum(
        np.abs(t - Psi @ ap.coef_ - ap.intercept_[0]) - 0.1, 0.0))
    if solver == "liblinear":
        obj += 0.5 * (ap.intercept_[0] / s) ** 2
        assert ap.solution_.objective == pytest.approx(obj, rel=1e-10)
    assert obj == pytest.approx(val, rel=1e-4)
    Pt = ap.approximation_.transform(Xt)
    np.testing.assert_allclose(ap.predict(Xt), Pt @ w + b, atol=1e-2 * np.abs(Pt @ w + b).max())


def test_esvr_liblinear_needs_an_approximation(reg):
    X, t, _ = reg
    with pytest.raises(ValueError, match="needs approximation"):
        ESVR(solver="liblinear").fit(X, t)
    with pytest.raises(ValueError, match="solver must be one of"):
        linear_svr(np.ones((3, 1)), np.ones(3), 1.0, 0.1, solver="cvxpy")


# ---------------------------------------------------------------------------- declarations
def test_registry_declarations():
    for name in ("flip-ridge", "esvr", "krein-ls-regressor"):
        assert approximation_defaults(name) == ({}, []), name
    assert approximation_defaults("ch")[0] == {"n_starts": 3}
    assert approximation_defaults("ksvm")[0] == {"solver": "interior-point"}


def test_ksvm_runs_on_precomputed_landmark_columns(data):
    """ksvm's approximated instance (its registry defaults) on the kernel columns
    against 20 landmarks, given with the landmark block; at full rank (C = K) the
    exact KSVC's decision values."""
    X, y, _, Xt = data
    K = pairwise_kernel("sigmoid", X, X, KP)
    Kt = pairwise_kernel("sigmoid", Xt, X, KP)
    lm = np.arange(0, N, 4)
    params = approximation_defaults("ksvm")[0]
    est = make_method("ksvm").set_params(kernel="precomputed", **params, approximation=(
        IndefiniteNystroem(kernel="precomputed", landmark_block=K[np.ix_(lm, lm)])))
    est.fit(K[:, lm], y)
    assert est.predict(Kt[:, lm]).shape == (30,)
    full = make_method("ksvm").set_params(kernel="precomputed", **params, approximation=(
        IndefiniteNystroem(kernel="precomputed", landmark_block=K, rcond=1e-12))).fit(K, y)
    ex = KSVC(kernel="precomputed").fit(K, y)
    assert _rel(full.decision_function(Kt), ex.decision_function(Kt)) < 1e-5


# ---------------------------------------------------------------------------- no n x n
@pytest.mark.parametrize("make", [
    lambda a: ConvexHullClassifier(kernel="sigmoid", kernel_params=KP, n_starts=2,
                                   max_iter=50, approximation=a),
    lambda a: FlippedKernelRidgeClassifier(kernel="sigmoid", kernel_params=KP, approximation=a),
    lambda a: ESVR(kernel="sigmoid", kernel_params=KP, tol=1e-3, approximation=a),
], ids=["ch", "flip-ridge", "esvr"])
def test_no_n_by_n_array(make):
    """At n = 8000 an n x n array is 512 MB; the fit's traced peak stays below 5 % of it."""
    n = 8000
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, (n, 2))
    y = ((np.floor(2 * X[:, 0]) + np.floor(2 * X[:, 1])) % 2).astype(int)
    est = make(IndefiniteNystroem(n_components=40, random_state=0))
    target = y if not isinstance(est, ESVR) else X[:, 0] + X[:, 1] ** 2
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, target)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.05 * 8 * n * n, peak
    assert est.predict(X[:10]).shape == (10,)


# ---------------------------------------------------------------------------- krein compare
def test_compare_runs_ch_and_flip_ridge_approximated():
    res = run_comparison(dataset="checkerboard", kernel="sigmoid", outer_folds=2, progress=False,
                         n_samples=200, tune=False, approximation="nystroem:30",
                         methods=["ch", "flip-ridge"])
    s = res.summary.set_index("method")
    assert (s.loc[["ch", "flip-ridge"], "status"] == "ok").all(), s["note"]
    assert res.folds.groupby("method")["accuracy"].min().min() > 0.5
