"""Learning in reproducing kernel Kreĭn spaces (Oglic & Gärtner 2018).

The sphere solver (:mod:`krein.solvers.sphere`) and the estimators
(:mod:`krein.estimators.rkks`) are checked against things independent of them:

* the SDP relaxation of ``min beta' A beta - 2 b' beta, ||beta||^2 = r^2`` (tight by the
  S-lemma), solved by CVXPY: the same optimal value, random and hard-case problems;
* scipy's SLSQP on the sphere from many random starts: no start ends below the secular
  solution;
* the hard case built by hand (``b`` orthogonal to the eigenspace of ``a_min``), with
  its closed form, and its continuity with the nearby easy case;
* central finite differences of the solution and of the validation error in
  ``radius_squared`` and ``krein_penalty``;
* on a positive definite kernel the problem is kernel ridge regression at a ridge set
  by the multiplier: scikit-learn's ``KernelRidge`` (a Cholesky solve) gives the same
  coefficients and predictions;
* the Nyström path with every point a landmark equals the exact path.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.kernel_ridge import KernelRidge

from krein.approximation import IndefiniteNystroem
from krein.estimators.rkks import (KreinLeastSquaresClassifier, KreinLeastSquaresRegressor,
                                   krein_least_squares)
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.solvers.sphere import sphere_minimize, sphere_sensitivity

SIGMOID = {"a": 0.5, "r": -1.0}


def _random_problem(rng, n):
    M = rng.standard_normal((n, n))
    A = 0.5 * (M + M.T)
    return A, rng.standard_normal(n), float(rng.uniform(0.2, 4.0))


def _sdp_value(A, b, r2):
    """The S-lemma relaxation: min <[[A, -b], [-b', 0]], X>, trace(X_11) = r^2, X_22 = 1."""
    n = A.shape[0]
    M = np.block([[A, -b[:, None]], [-b[None, :], np.zeros((1, 1))]])
    X = cp.Variable((n + 1, n + 1), PSD=True)
    prob = cp.Problem(cp.Minimize(cp.trace(M @ X)), [cp.trace(X[:n, :n]) == r2, X[n, n] == 1])
    prob.solve(solver="CLARABEL")
    assert prob.status == cp.OPTIMAL
    return float(prob.value)


def _objective(A, b, beta):
    return float(beta @ A @ beta - 2 * b @ beta)


@pytest.mark.parametrize("seed", range(4))
def test_secular_optimum_equals_the_sdp_relaxation(seed):
    A, b, r2 = _random_problem(np.random.default_rng(seed), 7)
    a, Q = np.linalg.eigh(A)
    sol = sphere_minimize(a, b, r2, eigenvectors=Q)
    beta = sol.primal["beta"]
    assert sol.certificate["kkt_residual"] < 1e-12
    assert beta @ beta == pytest.approx(r2, rel=1e-12)
    assert _objective(A, b, beta) == pytest.approx(sol.objective, rel=1e-10)
    sdp = _sdp_value(A, b, r2)
    assert sol.objective == pytest.approx(sdp, abs=1e-6 * (1 + abs(sdp)))


@pytest.mark.parametrize("seed", range(2))
def test_no_local_start_beats_the_secular_solution(seed):
    rng = np.random.default_rng(10 + seed)
    A, b, r2 = _random_problem(rng, 6)
    a, Q = np.linalg.eigh(A)
    best = sphere_minimize(a, b, r2, eigenvectors=Q).objective
    sphere = {"type": "eq", "fun": lambda x: x @ x - r2, "jac": lambda x: 2 * x}
    values = []
    for _ in range(40):
        x0 = rng.standard_normal(6)
        x0 *= np.sqrt(r2) / np.linalg.norm(x0)
        res = minimize(lambda x: _objective(A, b, x), x0, jac=lambda x: 2 * A @ x - 2 * b,
                       constraints=[sphere], method="SLSQP", options={"ftol": 1e-12})
        if res.success and abs(res.x @ res.x - r2) < 1e-8 * r2:
            values.append(res.fun)
    assert len(values) >= 30
    assert min(values) >= best - 1e-9 * (1 + abs(best))
    # and the local method does find the global value from some start
    assert min(values) == pytest.approx(best, abs=1e-7 * (1 + abs(best)))


def test_hard_case_closed_form_and_sdp():
    # b orthogonal to the eigenspace of a_min = -1 (two-dimensional), ||beta_0|| < r
    a = np.array([-1.0, -1.0, 0.5, 2.0, 3.0])
    b = np.array([0.0, 0.0, 0.3, 1.0, -0.2])
    r2 = 4.0
    sol = sphere_minimize(a, b, r2)
    beta = sol.primal["beta"]
    beta0 = b[2:] / (a[2:] + 1.0)
    assert sol.certificate["hard_case"]
    assert sol.dual["mu"] == -1.0
    np.testing.assert_allclose(beta[2:], beta0, rtol=1e-14)
    assert np.linalg.norm(beta[:2]) == pytest.approx(np.sqrt(r2 - beta0 @ beta0), rel=1e-14)
    assert sol.certificate["kkt_residual"] < 1e-14
    assert sol.objective == pytest.approx(_sdp_value(np.diag(a), b, r2), abs=1e-6)
    # a rotated basis gives the same value
    Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((5, 5)))
    rot = sphere_minimize(a, Q @ b, r2, eigenvectors=Q)
    assert rot.objective == pytest.approx(sol.objective, rel=1e-12)
    # the easy case next to it converges to it (the minimizer's value is continuous)
    for eps in (1e-4, 1e-8):
        near = sphere_minimize(a, b + np.array([eps, 0, 0, 0, 0]), r2)
        assert not near.certificate["hard_case"]
        assert near.certificate["kkt_residual"] < 1e-12
        assert near.objective == pytest.approx(sol.objective, abs=10 * eps)
    # a small sphere: b orthogonal but ||beta_0|| > r, the root is left of a_min
    small = sphere_minimize(a, b, 0.01)
    assert not small.certificate["hard_case"] and small.dual["mu"] < -1.0
    assert small.objective == pytest.approx(_sdp_value(np.diag(a), b, 0.01), abs=1e-7)


def test_the_stationary_point_right_of_a_max_is_worse():
    # a root of the secular equation right of a_max is a stationary point with A - mu I
    # not PSD: worse than the secular solution (mu <= a_min), the one the solver returns
    a = np.array([-2.0, 1.0, 3.0])
    b = np.array([0.5, 0.5, 0.5])
    sol = sphere_minimize(a, b, 1.0)
    assert sol.dual["mu"] <= a.min()
    for mu in np.linspace(3.0 + 1e-3, 10.0, 2000):   # a root right of a_max
        beta = b / (a - mu)
        if abs(beta @ beta - 1.0) < 1e-2:
            assert _objective(np.diag(a), b, beta) > sol.objective
            break
    else:
        pytest.fail("no root right of a_max found")


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="radius_squared"):
        sphere_minimize([1.0, 2.0], [1.0, 0.0], 0.0)
    with pytest.raises(ValueError, match="b must"):
        sphere_minimize([1.0, 2.0], [1.0], 1.0)
    with pytest.raises(ValueError, match="hard case"):
        sphere_sensitivity([1.0, 2.0], [1.0, 0.0], 1.0, d_radius_squared=1.0)
    with pytest.raises(ValueError, match="radius_squared"):
        KreinLeastSquaresRegressor(radius_squared=-1.0).fit(np.eye(3), [0.0, 1.0, 2.0])


def test_solution_gradient_against_finite_differences():
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 2, 8)
    b = rng.standard_normal(8)
    r2, lam = 2.0, 0.3

    def solve(r2, lam):
        sol = sphere_minimize(a + lam * np.sign(a), b, r2)
        return sol.primal["beta"], sol.dual["mu"]

    beta, mu = solve(r2, lam)
    d_r2, _ = sphere_sensitivity(a + lam * np.sign(a), beta, mu, d_radius_squared=1.0)
    d_lam, _ = sphere_sensitivity(a + lam * np.sign(a), beta, mu, d_eigenvalues=np.sign(a))
    h = 1e-6
    fd_r2 = (solve(r2 + h, lam)[0] - solve(r2 - h, lam)[0]) / (2 * h)
    fd_lam = (solve(r2, lam + h)[0] - solve(r2, lam - h)[0]) / (2 * h)
    np.testing.assert_allclose(d_r2, fd_r2, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d_lam, fd_lam, rtol=1e-5, atol=1e-7)


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3))
    Xt = rng.standard_normal((15, 3))
    f = np.sin(2 * X[:, 0]) + X[:, 1]
    y = f + 0.1 * rng.standard_normal(50)
    yt = np.sin(2 * Xt[:, 0]) + Xt[:, 1]
    return {"X": X, "Xt": Xt, "y": y, "yt": yt,
            "K": sigmoid_kernel(X, **SIGMOID), "Kt": sigmoid_kernel(Xt, X, **SIGMOID)}


@pytest.mark.parametrize("param, value", [("radius_squared", 5.0), ("krein_penalty", 0.02)])
def test_validation_gradient_against_finite_differences(regression, param, value):
    p = regression
    assert np.linalg.eigvalsh(p["K"])[0] < -1e-3         # an indefinite kernel
    params = {"kernel": "precomputed", "radius_squared": 5.0, "krein_penalty": 0.02}
    est = KreinLeastSquaresRegressor(**params).fit(p["K"], p["y"])
    loss, grad = est.validation_gradient(p["Kt"], p["yt"])
    assert loss == pytest.approx(np.mean((est.predict(p["Kt"]) - p["yt"]) ** 2))
    h = 1e-6 * value

    def loss_at(v):
        e = KreinLeastSquaresRegressor(**{**params, param: v}).fit(p["K"], p["y"])
        return np.mean((e.predict(p["Kt"]) - p["yt"]) ** 2)

    fd = (loss_at(value + h) - loss_at(value - h)) / (2 * h)
    assert grad[param] == pytest.approx(fd, rel=1e-5, abs=1e-9)
    assert abs(grad[param]) > 1e-6


def test_kernel_parameter_gradient_against_finite_differences(regression):
    # d/da of the held-out error for the sigmoid kernel tanh(a <x, z> + r) (Daleckii-Krein
    # derivative of |K| inside the sphere constraint)
    p = regression
    X, Xt, r = p["X"], p["Xt"], SIGMOID["r"]

    def kern(a, A):
        return np.tanh(a * A @ X.T + r)

    def d_kern(a, A):
        return (1 - np.tanh(a * A @ X.T + r) ** 2) * (A @ X.T)

    params = {"kernel": "precomputed", "radius_squared": 5.0, "krein_penalty": 0.02}
    a, h = SIGMOID["a"], 1e-6
    est = KreinLeastSquaresRegressor(**params).fit(kern(a, X), p["y"])
    _, grad = est.validation_gradient(kern(a, Xt), p["yt"],
                                      kernel_derivative=(d_kern(a, X), d_kern(a, Xt)))

    def loss_at(v):
        e = KreinLeastSquaresRegressor(**params).fit(kern(v, X), p["y"])
        return np.mean((e.predict(kern(v, Xt)) - p["yt"]) ** 2)

    fd = (loss_at(a + h) - loss_at(a - h)) / (2 * h)
    assert grad["kernel"] == pytest.approx(fd, rel=1e-5)
    with pytest.raises(ValueError, match="shapes"):
        est.validation_gradient(kern(a, Xt), p["yt"], kernel_derivative=(d_kern(a, X),
                                                                          d_kern(a, X)))


def test_psd_kernel_is_kernel_ridge_at_the_multipliers_ridge(regression):
    # on a PD kernel, (P) with lambda = 0 is kernel ridge regression with ridge -n mu:
    # KernelRidge's solution, its norm taken as r^2, is the sphere's minimizer
    p = regression
    K = gaussian_kernel(p["X"], gamma=0.5)
    Kt = gaussian_kernel(p["Xt"], p["X"], gamma=0.5)
    y0 = p["y"].mean()
    for ridge in (0.05, 1.0):
        kr = KernelRidge(alpha=ridge, kernel="precomputed").fit(K, p["y"] - y0)
        r2 = float(kr.dual_coef_ @ K @ kr.dual_coef_)
        est = KreinLeastSquaresRegressor(kernel="precomputed", radius_squared=r2).fit(K, p["y"])
        assert est.solution_.dual["mu"] == pytest.approx(-ridge / K.shape[0], rel=1e-8)
        np.testing.assert_allclose(est.dual_coef_, kr.dual_coef_, rtol=1e-6,
                                   atol=1e-8 * np.abs(kr.dual_coef_).max())
        np.testing.assert_allclose(est.predict(Kt), kr.predict(Kt) + y0, atol=1e-8)


def test_estimator_solves_the_problem_it_states(regression):
    # the fitted alpha has ||f||_H^2 = alpha'|K|alpha = r^2 and attains the SDP value of (P)
    p = regression
    K, y_raw = p["K"][:20, :20], p["y"][:20]         # 20 points: the SDP stays small
    y = y_raw - y_raw.mean()
    n = K.shape[0]
    est = KreinLeastSquaresRegressor(kernel="precomputed", radius_squared=3.0,
                                     krein_penalty=0.01).fit(K, y_raw)
    lam, U = np.linalg.eigh(K)
    absK = (U * np.abs(lam)) @ U.T
    alpha = est.dual_coef_
    assert alpha @ absK @ alpha == pytest.approx(3.0, rel=1e-9)
    value = np.mean((K @ alpha - y) ** 2) + 0.01 * alpha @ K @ alpha
    # (P) in beta = |D|^(1/2) U' alpha: the diagonal problem's SDP relaxation
    keep = np.abs(lam) > 1e-10 * np.abs(lam).max()
    lam, U = lam[keep], U[:, keep]
    a = np.abs(lam) / n + 0.01 * np.sign(lam)
    b = np.sign(lam) * np.sqrt(np.abs(lam)) * (U.T @ y) / n
    sdp = _sdp_value(np.diag(a), b, 3.0) + y @ y / n
    assert value == pytest.approx(sdp, abs=1e-6)
    beta, sol, _ = krein_least_squares(lam, np.sqrt(np.abs(lam)) * (U.T @ y), n, 3.0, 0.01)
    assert sol.objective + y @ y / n == pytest.approx(value, rel=1e-9)


def test_classifier_one_vs_one_certified_and_nystroem_full_rank_is_exact():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((45, 2))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])
    Xt = rng.standard_normal((20, 2))
    params = {"kernel": "sigmoid", "kernel_params": SIGMOID, "radius_squared": 10.0}
    exact = KreinLeastSquaresClassifier(**params).fit(X, y)
    assert len(exact.solutions_) == 3
    assert all(s.certificate["kkt_residual"] < 1e-12 for s in exact.solutions_)
    assert exact.min_eigenvalue_ < 0                      # an indefinite kernel
    assert exact.score(X, y) > 0.8
    approx = KreinLeastSquaresClassifier(
        **params, approximation=IndefiniteNystroem(n_components=45, landmarks=np.arange(45)))
    approx.fit(X, y)
    np.testing.assert_allclose(approx.decision_function(Xt), exact.decision_function(Xt),
                               atol=1e-8)
    # binary, low rank: the feature path is certified too and never forms n x n
    yb = (y > 0).astype(int)
    low = KreinLeastSquaresClassifier(
        **params, approximation=IndefiniteNystroem(n_components=10, random_state=0)).fit(X, yb)
    assert low.coef_.shape[1] <= 10
    assert low.solution_.certificate["kkt_residual"] < 1e-12


def test_failed_fit_leaves_nothing_fitted():
    K = sigmoid_kernel(np.random.default_rng(0).standard_normal((10, 2)), **SIGMOID)
    est = KreinLeastSquaresRegressor(kernel="precomputed").fit(K, np.arange(10.0))
    assert hasattr(est, "solution_")
    bad = K.copy()
    bad[0, 1] += 1.0                        # asymmetric
    with pytest.raises(ValueError):
        est.fit(bad, np.arange(10.0))
    assert not any(k.endswith("_") and not k.startswith("__") for k in vars(est))
