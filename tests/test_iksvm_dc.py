"""IKSVM-DC: DCA with the Armijo step, checked independently.

* every convex subproblem: the finite-Newton solution equals CVXPY's (CLARABEL) solve of
  :class:`krein.formulations.dc.DCSubproblem` and meets its gradient certificate; a whole
  DCA run with CVXPY subproblems follows the same objective trace;
* the objective never increases along the trace (DCA + Armijo);
* the limit is a critical point of the non-convex objective (relative stationarity
  residual) on an indefinite problem whose objective is bounded below;
* on a PSD kernel the result is the squared-hinge SVM, solved independently by CVXPY on
  the explicit feature map (``w``, not ``beta``);
* ``K`` and ``1e4 K`` (``C / 1e4``) take the same iterations and predict alike;
* xu's guard (an iterate with negative objective is not taken) on a kernel whose
  objective is unbounded below.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from krein.estimators import DCSVC
from krein.formulations.dc import (DCSubproblem, dc_objective, dc_stationarity,
                                   dc_subproblem_gradient)
from krein.solvers import solve
from krein.solvers.dca import dc_constant, dc_subproblem, dca


def _pe_problem(n=40, seed=0):
    """Points in the pseudo-Euclidean space R^(2,1): two classes apart along the first
    axis, the negative axis pure noise.  ``K = X diag(1, 1, -1/2) X'`` (one negative
    eigenvalue); with ``C >= 1`` no separating direction has ``beta'K beta < 0``, so the
    objective is bounded below and DCA converges (checked in the tests)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([-1.0, 1.0], n // 2)
    X = rng.standard_normal((n, 3))
    X[:, 0] += 1.2 * y
    K = X[:, :2] @ X[:, :2].T - 0.5 * np.outer(X[:, 2], X[:, 2])
    return X, K, y


@pytest.fixture(scope="module")
def pe_problem():
    return _pe_problem()


def test_pe_kernel_is_indefinite(pe_problem):
    _, K, _ = pe_problem
    lam = np.linalg.eigvalsh(K)
    assert lam[0] < -1.0 and lam[-1] > 1.0


# ------------------------------------------------------------- subproblems vs CVXPY
@pytest.mark.parametrize("weights", [False, True], ids=["C", "per-sample C"])
def test_each_subproblem_equals_the_cvxpy_solve(pe_problem, sigmoid_problem, weights):
    cases = [(pe_problem[1], pe_problem[2])]
    Ks, ys = sigmoid_problem["K"], sigmoid_problem["y"]
    cases.append((Ks, np.where(ys == np.unique(ys)[1], 1.0, -1.0)))
    rng = np.random.default_rng(1)
    for K, y in cases:
        n = y.size
        C = np.where(y > 0, 2.0, 0.5) if weights else 1.0
        rho = dc_constant(K)
        assert rho > np.linalg.eigvalsh(K)[-1]
        form = DCSubproblem(K, y, C=C, dc_constant=rho)
        assert form.is_dpp()
        K2 = K @ K
        for _ in range(3):                    # three linearization points beta_t
            beta_t = rng.uniform(-1, 1, n) / np.abs(K).max()
            theta = rho * beta_t - K @ beta_t
            beta, b, info = dc_subproblem(K, K2, y, C, rho, theta, beta_t, 1.0)
            assert info["residual"] <= 1e-8
            form.set(theta=theta)
            sol = solve(form, "CLARABEL")
            beta_cvx, b_cvx = sol.primal["beta"], float(sol.primal["b"])
            assert sol.certificate["grad_norm"] <= 1e-5
            scale = np.linalg.norm(K @ beta_cvx) + abs(b_cvx)
            np.testing.assert_allclose(K @ beta + b, K @ beta_cvx + b_cvx, atol=1e-6 * scale)
            np.testing.assert_allclose(beta, beta_cvx, atol=1e-6 * np.linalg.norm(beta_cvx))


def test_subproblem_certificate_fails_on_a_wrong_point(pe_problem):
    _, K, y = pe_problem
    rho = dc_constant(K)
    theta = rho * np.full(y.size, 0.01) - K @ np.full(y.size, 0.01)
    beta, b, _ = dc_subproblem(K, K @ K, y, 1.0, rho, theta, np.zeros(y.size), 0.0)
    assert dc_subproblem_gradient(K, y, 1.0, rho, theta, beta, b)["residual"] <= 1e-8
    assert dc_subproblem_gradient(K, y, 1.0, rho, theta, 1.01 * beta, b)["residual"] > 1e-3


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=8
def test_dca_with_cvxpy_subproblems_follows_the_same_trace(pe_problem):
    _, K, y = pe_problem
    fast = dca(K, y, 1.0, random_state=0, max_iter=8, tol=0.0)
    slow = dca(K, y, 1.0, random_state=0, max_iter=8, tol=0.0, solver="CLARABEL")
    F, G = fast.trace["objective"].to_numpy(), slow.trace["objective"].to_numpy()
    np.testing.assert_allclose(F, G, rtol=1e-5)
    assert slow.certificate["subproblem_residual"] <= 1e-5


# ------------------------------------------------------------- the DCA iterations
@pytest.mark.parametrize("C", [1.0, 10.0])
def test_objective_is_non_increasing_and_the_limit_is_critical(pe_problem, C):
    _, K, y = pe_problem
    sol = dca(K, y, C, random_state=0, tol=1e-16, max_iter=3000)
    assert sol.status == "converged" and sol.certificate["stop"] == "step"
    F = sol.trace["objective"].to_numpy()
    assert np.all(np.diff(F) <= 1e-12 * np.abs(F).max())
    assert F[-1] < F[0]
    beta, b = sol.primal["beta"], sol.primal["b"]
    assert sol.objective == pytest.approx(dc_objective(K, y, C, beta, b), rel=1e-12)
    # critical point of the non-convex objective (relative residual), not just of a model
    assert dc_stationarity(K, y, C, beta, b) <= 1e-6
    assert sol.certificate["grad_norm"] == pytest.approx(dc_stationarity(K, y, C, beta, b))
    # and not a trivial one: the stationarity test fails away from it
    assert dc_stationarity(K, y, C, 1.1 * beta, b) > 1e-3
    # some Armijo steps were taken (xu's line search) and each subproblem was certified
    assert (sol.trace["armijo"].iloc[1:] > 0).any()
    assert sol.certificate["subproblem_residual"] <= 1e-8


def test_negative_objective_guard_keeps_the_last_nonnegative_point(sigmoid_problem):
    """On the sigmoid kernel the objective is unbounded below; xu's guard stops DCA."""
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    y = np.where(y == np.unique(y)[1], 1.0, -1.0)
    sol = dca(K, y, 1.0, random_state=0)
    assert sol.certificate["stop"] == "negative_objective"
    F = sol.trace["objective"].to_numpy()
    assert np.all(F >= 0) and np.all(np.diff(F) <= 1e-12 * F.max())
    # one more DCA step from the returned point gives a negative objective
    rho = sol.certificate["dc_constant"]
    beta, b = sol.primal["beta"], sol.primal["b"]
    nxt, b_nxt, _ = dc_subproblem(K, K @ K, y, 1.0, rho, rho * beta - K @ beta, beta, b)
    assert dc_objective(K, y, 1.0, nxt, b_nxt) < 0 <= sol.objective


# ------------------------------------------------------------- PSD: the convex SVM
def test_psd_kernel_gives_the_squared_hinge_svm():
    """Linear kernel: ``F`` is convex; CVXPY on the explicit features ``w = X'beta``."""
    X, _, y = _pe_problem(n=30, seed=3)
    X = X[:, :2]
    K = X @ X.T
    C = 0.5
    est = DCSVC(kernel="precomputed", C=C, tol=1e-14, max_iter=5000, random_state=0).fit(K, y)
    w, b = cp.Variable(2), cp.Variable()
    obj = 0.5 * cp.sum_squares(w) + 0.5 * C * cp.sum_squares(cp.pos(1 - cp.multiply(y, X @ w + b)))
    cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL")
    f_ref = X @ w.value + b.value
    f = est.decision_function(K)
    np.testing.assert_allclose(f, f_ref, atol=1e-5 * np.abs(f_ref).max())
    assert est.objective_[0] == pytest.approx(obj.value, rel=1e-6)


# ------------------------------------------------------------- scale and the estimator
def test_K_and_1e4_K_take_the_same_iterations(pe_problem):
    _, K, y = pe_problem
    s = 1e4
    a = DCSVC(kernel="precomputed", C=1.0, tol=1e-10, random_state=0).fit(K, y)
    b = DCSVC(kernel="precomputed", C=1.0 / s, tol=1e-10, random_state=0).fit(s * K, y)
    assert a.n_iter_[0] > 3 and a.n_iter_[0] == b.n_iter_[0]
    np.testing.assert_allclose(a.trace_["step"], b.trace_["step"], rtol=1e-6)
    np.testing.assert_allclose(s * b.dual_coef_, a.dual_coef_, rtol=1e-6,
                               atol=1e-9 * np.abs(a.dual_coef_).max())
    np.testing.assert_array_equal(a.predict(K), b.predict(s * K))


def test_estimator_attributes_and_multiclass(pe_problem):
    X, K, y = pe_problem
    labels = np.where(X[:, 1] > 0.5, 2, np.where(y > 0, 1, 0))
    est = DCSVC(kernel="precomputed", C=1.0, random_state=0).fit(K, labels)
    assert len(est.binary_models_) == 3 and est.trace_["pair"].nunique() == 3
    assert est.solution_ is None and len(est.solutions_) == 3
    for m, rho in zip(est.binary_models_, est.dc_constant_):      # rho > lambda_max(block)
        assert rho > np.linalg.eigvalsh(K[np.ix_(m.idx, m.idx)])[-1]
    assert est.score(K, labels) > 0.6
    with pytest.raises(ValueError, match="solver_options"):
        DCSVC(kernel="precomputed", solver_options={"x": 1}).fit(K, y)
    with pytest.raises(ValueError, match="tol"):
        DCSVC(kernel="precomputed", tol=0.0).fit(K, y)
    with pytest.raises(ValueError, match="solver"):
        DCSVC(kernel="precomputed", solver="nope").fit(K, y)


def test_ordered_draws_follow_the_problems_order_whatever_the_threads():
    """Problem k draws the k-th block of the stream even when later problems ask first."""
    import threading

    from krein.estimators.base import OrderedDraws, _PROBLEM

    draws = OrderedDraws(np.random.RandomState(0))
    sizes = [3, 5, 2, 4]
    got = {}

    def problem(k):
        _PROBLEM.set(k)
        got[k] = draws.uniform(sizes[k])

    threads = [threading.Thread(target=problem, args=(k,)) for k in reversed(range(4))]
    for t in threads:       # started last problem first
        t.start()
    for t in threads:
        t.join(timeout=30)
    expected = np.random.RandomState(0).uniform(-1.0, 1.0, sum(sizes))
    np.testing.assert_array_equal(np.concatenate([got[k] for k in range(4)]), expected)


@pytest.mark.parametrize("landmarks", [False, True])
def test_pairs_on_threads_give_the_serial_fit(pe_problem, landmarks, monkeypatch):
    """The one-vs-one pairs run on two threads with the serial fit's starts (the shared
    random stream drawn in pair order) and so the same models, exact and landmark paths."""
    import krein.estimators.dc as dcmod
    from krein.approximation import IndefiniteNystroem

    X, K, y = pe_problem
    labels = np.where(X[:, 1] > 0.5, 2, np.where(y > 0, 1, 0))
    starts = {}
    name = "dca_landmarks" if landmarks else "dca"
    solver = getattr(dcmod, name)

    def spy(*args, start=None, **kw):
        from krein.estimators.base import current_problem
        starts[current_problem()] = start
        return solver(*args, start=start, **kw)

    monkeypatch.setattr(dcmod, name, spy)
    import joblib

    kw = dict(kernel="precomputed", C=1.0, random_state=0, max_iter=40)
    if landmarks:           # the columns of every third point
        lm = np.arange(0, K.shape[0], 3)
        kw["approximation"] = IndefiniteNystroem(landmarks=lm)
        K = K[:, lm]
    serial = DCSVC(**kw).fit(K, labels)
    first = dict(starts)
    with joblib.parallel_config(n_jobs=2, prefer="threads"):
        threaded = DCSVC(**kw).fit(K, labels)
    assert sorted(first) == [0, 1, 2]
    expected = np.random.RandomState(0).uniform(
        -1.0, 1.0, sum(first[k].size for k in range(3)))
    np.testing.assert_array_equal(np.concatenate([first[k] for k in range(3)]), expected)
    for k in range(3):
        np.testing.assert_array_equal(starts[k], first[k])
    np.testing.assert_array_equal(threaded.decision_function(K), serial.decision_function(K))
