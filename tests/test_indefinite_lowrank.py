"""The low-rank IndefiniteSVM path (krein/solvers/indefinite/lowrank.py, IndefiniteSVC's
``approximation=``): the O(n r) oracle against dense eigendecompositions, the same iterates
as the exact oracle at full rank, the certified gap against the optimal value of the joint
SDP (10), the estimator at full rank (binary and one-vs-one), no n x n array, and
``krein compare --approximation``."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from krein.approximation import IndefiniteNystroem
from krein.cli import main
from krein.estimators.indefinite import IndefiniteOneClassSVM, IndefiniteSVC, IndefiniteSVR
from krein.formulations.indefinite import IndefiniteSVMSDP, ProxyKernelProblem, proxy_kernel
from krein.kernels import sigmoid_kernel
from krein.representation import SignedFeatures
from krein.solvers import solve, solve_indefinite
from krein.solvers.indefinite import Certifier, ProxyKernelOracle, out_of_sample_coef
from krein.solvers.indefinite.lowrank import LowRankProxyOracle, linear_svm_bound

SIGMOID = {"a": 0.5, "r": -0.5}


def low_rank_kernel(n, r, seed):
    """``K0 = F diag(sign lam) F'`` of rank ``r`` with an indefinite spectrum, and labels."""
    rng = np.random.default_rng(seed)
    V, _ = np.linalg.qr(rng.standard_normal((n, r)))
    lam = np.sort(rng.standard_normal(r) * 3.0)
    lam[lam == 0] = 1.0
    F = V * np.sqrt(np.abs(lam))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return F, lam, (F * np.sign(lam)) @ F.T, y


def sigmoid_data(n, seed, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    s = X[:, 0] + 0.5 * X[:, 1] ** 2
    y = np.digitize(s, np.quantile(s, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


def full_rank(n):
    return IndefiniteNystroem(landmarks=np.arange(n), rcond=1e-12)


# ---------------------------------------------------------------------------- the oracle
@pytest.mark.parametrize("kind", ["random", "in-span", "nearly-in-span", "large"])
def test_oracle_equals_dense_computations_at_low_rank(kind):
    """Value, gradient, u'K*u, ||K* - K0||_F^2 and the factor Phi against the proxy kernel
    from one dense eigh (formulations.proxy_kernel) and the exact O(n^2) oracle."""
    n, r, rho = 70, 9, 0.7
    F, lam, K0, _ = low_rank_kernel(n, r, 0)
    rng = np.random.default_rng(1)
    V = F / np.sqrt(np.abs(lam))
    u = {"random": rng.standard_normal(n),
         "in-span": V @ rng.standard_normal(r),
         "nearly-in-span": V @ rng.standard_normal(r) + 1e-7 * rng.standard_normal(n),
         "large": 1e3 * rng.standard_normal(n)}[kind]
    # columns given in another order than ascending eigenvalues
    perm = rng.permutation(r)
    lo = LowRankProxyOracle(F[:, perm], lam[perm], rho)
    ev = lo.evaluate(u)
    Ks = proxy_kernel(K0, u, rho)
    Ku = Ks @ u
    scale = np.abs(Ku).max() + 1e-300
    np.testing.assert_allclose(ev.Ku, Ku, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(ev.grad, -Ku, rtol=0, atol=1e-11 * scale)
    assert abs(ev.uKu - u @ Ku) <= 1e-11 * abs(u) @ np.abs(Ku)
    d2 = np.sum((Ks - K0) ** 2)
    assert abs(ev.dist2 - d2) <= 1e-10 * max(d2, np.sum(K0 ** 2) * 1e-6)
    ex = ProxyKernelOracle(K0, rho).evaluate(u)
    assert abs(ev.value - ex.value) <= 1e-11 * max(abs(ex.value), 1.0)
    Phi = lo.proxy_features(u)
    assert Phi.shape[1] <= r + 1
    np.testing.assert_allclose(Phi @ Phi.T, Ks, rtol=0, atol=1e-11 * np.abs(Ks).max())
    assert lo.constant_term() == pytest.approx(rho * np.sum(np.minimum(lam, 0) ** 2), rel=1e-12)


def test_oracle_at_zero_and_its_counters():
    F, lam, K0, _ = low_rank_kernel(30, 5, 2)
    lo = LowRankProxyOracle(F, lam, 1.0)
    ev = lo.evaluate(np.zeros(30))
    assert ev.value == pytest.approx(lo.constant_term(), rel=1e-14)
    np.testing.assert_array_equal(ev.Ku, 0.0)
    assert ev.n_negative == int(np.sum(lam < 0)) and lo.n_evals == 1
    with pytest.raises(ValueError, match="shape"):
        lo.evaluate(np.zeros(29))
    with pytest.raises(ValueError, match="nonzero"):
        LowRankProxyOracle(F, np.r_[lam[:-1], 0.0], 1.0)


@pytest.mark.parametrize("out_of_sample", ["spectral", "clip", "raw"])
def test_out_of_sample_weights_equal_the_dense_maps(out_of_sample):
    """On the training points (psi(x) = F) the weights reproduce K0 c for the exact map's
    coefficients c (out_of_sample_coef on the dense O(n^2) oracle)."""
    F, lam, K0, _ = low_rank_kernel(60, 8, 3)
    u = np.random.default_rng(4).standard_normal(60)
    c = out_of_sample_coef(ProxyKernelOracle(K0, 0.3), u, out_of_sample)
    w = out_of_sample_coef(LowRankProxyOracle(F, lam, 0.3), u, out_of_sample)
    assert w.shape == (8,)
    ref = K0 @ c
    np.testing.assert_allclose(F @ w, ref, rtol=0, atol=1e-11 * np.abs(ref).max())
    with pytest.raises(ValueError, match="transductive"):
        LowRankProxyOracle(F, lam, 0.3).out_of_sample_coef(u, "transductive")


# ---------------------------------------------------------------------------- the solvers
@pytest.mark.parametrize("model", ["svc", "svr", "one-class"])
def test_same_iterates_as_the_exact_oracle_at_full_rank(model):
    """Every eigenvector kept: the low-rank problem IS the exact one, and projected gradient
    with the Lipschitz step (no backtracking test, no gap check: the iterates are a
    continuous function of the oracle) makes the same iterates to round-off."""
    X, y = sigmoid_data(50, 5)
    K = sigmoid_kernel(X, **SIGMOID)
    lam, V = np.linalg.eigh(K)
    rep = SignedFeatures(V * np.sqrt(np.abs(lam)), np.sign(lam), eigenvalues=lam)
    t = y.astype(float) if model != "svc" else np.where(y == 1, 1.0, -1.0)
    kw = dict(model=model, rho=0.5)
    opts = dict(step="lipschitz", tol=0.0, max_iter=40, gap_every=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ex = solve_indefinite(ProxyKernelProblem(K, t, **kw), "pg", **opts)
        lo = solve_indefinite(ProxyKernelProblem(rep, t, **kw), "pg", **opts)
    scale = max(abs(ex.trace["objective"]).max(), 1.0)
    np.testing.assert_allclose(lo.trace["objective"], ex.trace["objective"], rtol=0,
                               atol=1e-10 * scale)
    np.testing.assert_allclose(lo.primal["beta"], ex.primal["beta"], rtol=0,
                               atol=1e-9 * np.abs(ex.primal["beta"]).max())
    assert lo.intercept == pytest.approx(ex.intercept, rel=1e-8, abs=1e-10)


def test_gap_is_a_true_bound_against_the_joint_sdp():
    """At low rank (Nystroem with 8 of 25 points as landmarks) the certified interval
    [lower, upper] of the low-rank run contains the optimal value of (7) on the
    approximated kernel, computed independently as the joint SDP (10) (CLARABEL)."""
    X, y = sigmoid_data(25, 6)
    y = np.where(y == 1, 1.0, -1.0)
    ny = IndefiniteNystroem(kernel="sigmoid", kernel_params=SIGMOID, n_components=8,
                            random_state=0)
    Psi = ny.fit_transform(X)
    rep = SignedFeatures(Psi, np.sign(ny.eigenvalues_), eigenvalues=ny.eigenvalues_)
    K0 = rep.dense()
    C, rho = 1.0, 1.0
    # (CLARABEL's default 1e-8 tolerances end this SDP 'optimal_inaccurate', as in
    # tests/test_exchange.py: its optimal K is singular; 1e-7 ends it 'optimal')
    sdp = solve(IndefiniteSVMSDP(K0, y, C, rho), "CLARABEL", tol_gap_abs=1e-7,
                tol_gap_rel=1e-7, tol_feas=1e-7)
    P = ProxyKernelProblem(rep, y, C=C, rho=rho)
    sol = solve_indefinite(P, "pg", tol=1e-4, gap_every=5)
    lower, upper = sol.certificate["lower"], sol.certificate["upper"]
    slack = 1e-6 * abs(sdp.objective)
    assert sol.status == "optimal" and sol.certificate["n_libsvm"] > 0
    assert lower <= sdp.objective + slack
    assert sdp.objective <= upper + slack
    assert upper - lower <= 1e-4 * sol.certificate["scale"]


@pytest.mark.parametrize("model", ["svc", "svr"])
def test_linear_svm_bound_is_above_the_exact_svm_value(model):
    """The liblinear bound of a gap check is never below omega(K*), the SVM (SVR) dual
    optimum on the proxy kernel solved by CVXPY (CLARABEL) on the factor ``Phi``, and is
    below the bound at v = u that every iteration gets for free."""
    import cvxpy as cp

    F, lam, K0, y = low_rank_kernel(80, 10, 7)
    t = y if model == "svc" else y + np.random.default_rng(9).normal(size=80)
    P = ProxyKernelProblem(SignedFeatures(F, np.sign(lam), eigenvalues=lam), t, model=model,
                           C=2.0, rho=0.5)
    u = P.u_of(P.initial_point()) + 0.3 * np.random.default_rng(8).standard_normal(80)
    Phi = LowRankProxyOracle(F, lam, 0.5).proxy_features(u)
    Ks = Phi @ Phi.T
    beta = cp.Variable(P.m)
    ub_u = P.u_of(np.eye(P.m)) if model == "svr" else np.diag(P.y)     # u = M beta
    obj = P.c @ beta - 0.5 * cp.sum_squares(Phi.T @ (ub_u @ beta))
    prob = cp.Problem(cp.Maximize(obj), [P.a @ beta == P.b0, beta >= 0, beta <= P.upper])
    prob.solve(solver="CLARABEL")
    omega = prob.value
    bound, _ = linear_svm_bound(P, Phi, tol=1e-4)
    assert bound >= omega - 1e-6 * abs(omega)
    assert bound < P.omega_upper(Ks @ u, float(u @ Ks @ u))[0]


def test_dense_only_algorithms_refuse_a_low_rank_problem():
    F, lam, _, y = low_rank_kernel(20, 4, 9)
    P = ProxyKernelProblem(SignedFeatures(F, np.sign(lam), eigenvalues=lam), y)
    for name in ("accpm", "exchange"):
        with pytest.raises(ValueError, match="dense K0"):
            solve_indefinite(P, name)
    with pytest.raises(ValueError, match="weights"):
        ProxyKernelProblem(SignedFeatures(F, np.sign(lam)), y, weights=np.ones(20))


# ---------------------------------------------------------------------------- the estimator
@pytest.mark.parametrize("classes", [2, 3])
def test_full_rank_estimator_equals_the_exact_one(classes):
    """Every training point a landmark: the approximation is the training kernel (to
    round-off) and the Nystroem rows of new points are their exact rows.  With the
    Frank-Wolfe bound as the only certificate (gap_every=0, the same in both paths) the
    runs make the same iterations: decision values to round-off.  With the default gap
    checks (libsvm on K* in the exact path, liblinear on Phi in the approximate one) they
    agree to the certificate: each interval [lower, upper] contains the other's optimum."""
    X, y = sigmoid_data(70, 10, classes)
    Xt, _ = sigmoid_data(40, 11, classes)
    n = len(y)
    kw = dict(kernel="sigmoid", kernel_params=SIGMOID, rho=0.5)
    ex = IndefiniteSVC(gap_every=0, **kw).fit(X, y)
    ap = IndefiniteSVC(gap_every=0, approximation=full_rank(n), **kw).fit(X, y)
    de, da = ex.decision_function(Xt), ap.decision_function(Xt)
    np.testing.assert_allclose(da, de, rtol=0, atol=1e-8 * np.abs(de).max())
    np.testing.assert_array_equal(ap.n_iter_, ex.n_iter_)
    np.testing.assert_array_equal(ap.predict(Xt), ex.predict(Xt))
    ex = IndefiniteSVC(**kw).fit(X, y)
    ap = IndefiniteSVC(approximation=full_rank(n), **kw).fit(X, y)
    for se, sa in zip(ex.solutions_, ap.solutions_):
        assert se.status == sa.status == "optimal"
        ce, ca = se.certificate, sa.certificate
        slack = 1e-9 * abs(ce["lower"])
        assert ca["lower"] <= ce["upper"] + slack and ce["lower"] <= ca["upper"] + slack
    assert ap.approximation_.landmarks_.shape[0] == n
    assert ap.coef_.shape[0] == len(ap.solutions_) == classes * (classes - 1) // 2


@pytest.mark.parametrize("Est", [IndefiniteSVR, IndefiniteOneClassSVM])
def test_full_rank_svr_and_one_class_equal_the_exact_ones(Est):
    """The same oracle serves SVR (luss eq. 17) and the one-class SVM (eq. 20): at full rank
    with the Frank-Wolfe bound as the only certificate, the same iterations and the same
    predictions to round-off; at low rank the fit is certified."""
    X, y = sigmoid_data(60, 15)
    Xt, _ = sigmoid_data(30, 16)
    t = X[:, 0] - 0.5 * X[:, 1] ** 2
    kw = dict(kernel="sigmoid", kernel_params=SIGMOID, rho=0.5, gap_every=0)
    args = (X, t) if Est is IndefiniteSVR else (X,)
    ex = Est(**kw).fit(*args)
    ap = Est(approximation=full_rank(60), **kw).fit(*args)
    method = "predict" if Est is IndefiniteSVR else "decision_function"
    pe, pa = getattr(ex, method)(Xt), getattr(ap, method)(Xt)
    np.testing.assert_allclose(pa, pe, rtol=0, atol=1e-8 * np.abs(pe).max())
    assert ap.n_iter_ == ex.n_iter_
    low = Est(approximation=IndefiniteNystroem(n_components=15, random_state=0),
              **{**kw, "gap_every": 10}).fit(*args)
    assert low.solution_.status == "optimal" and low.coef_.shape == (low.eigenvalues_.size,)
    assert np.isfinite(getattr(low, method)(Xt)).all()


def test_estimator_low_rank_precomputed_columns_and_refusals():
    """kernel='precomputed': the columns K(X, landmarks) and the landmark block give the
    same model as the named kernel on feature vectors (one fixed eigenvalue cutoff for
    both); accpm and transductive refused."""
    X, y = sigmoid_data(60, 12)
    Xt, _ = sigmoid_data(15, 13)
    idx = np.arange(0, 60, 3)
    kw = dict(rho=0.5)
    named = IndefiniteSVC(kernel="sigmoid", kernel_params=SIGMOID,
                          approximation=IndefiniteNystroem(landmarks=idx, rcond=1e-10),
                          **kw).fit(X, y)
    W = sigmoid_kernel(X[idx], **SIGMOID)
    pre = IndefiniteSVC(kernel="precomputed",
                        approximation=IndefiniteNystroem(landmark_block=W, rcond=1e-10), **kw)
    pre.fit(sigmoid_kernel(X, X[idx], **SIGMOID), y)
    np.testing.assert_allclose(pre.decision_function(sigmoid_kernel(Xt, X[idx], **SIGMOID)),
                               named.decision_function(Xt), rtol=1e-8, atol=1e-10)
    for bad, piece in (({"solver": "accpm"}, "solver must be one of"),
                       ({"out_of_sample": "transductive"}, "transductive")):
        with pytest.raises(ValueError, match=piece):
            IndefiniteSVC(kernel="sigmoid", kernel_params=SIGMOID,
                          approximation=IndefiniteNystroem(n_components=10), **bad).fit(X, y)


def test_no_n_by_n_array():
    """tracemalloc sees every NumPy allocation: the fit and the predictions at n = 3000
    with 40 landmarks peak far below one n x n array (72 MB)."""
    rng = np.random.default_rng(14)
    n = 3000
    X = rng.standard_normal((n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3, 1, 0)
    est = IndefiniteSVC(kernel="sigmoid", kernel_params=SIGMOID, max_iter=30,
                        approximation=IndefiniteNystroem(n_components=40, random_state=0))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)
        est.decision_function(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * n * 8 / 8, peak


def test_compare_runs_it_approximated(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["compare", "--dataset", "checkerboard", "--n-samples", "200",
               "--approximation", "nystroem:30", "--methods", "indefinite-svm", "--cv", "2",
               "--no-tune", "--no-progress", "--n-jobs", "1", "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "indefinite-svm" in captured.out
    import pandas as pd

    folds = pd.read_csv(out / "folds.csv")
    assert (folds["method"] == "indefinite-svm").all()
    assert folds["error"].isna().all() and folds["accuracy"].between(0.0, 1.0).all()
    assert "nystroem:30" in (out / "run.json").read_text()
