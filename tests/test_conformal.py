"""Tests for munoz's conformal transformation (§3.4, eqs. 13-14).

Independent references: finite differences for the analytic gradient, a matrix
built exactly as ``W A W`` (objective 0 and ``w`` recovered), brute-force
coordinate moves for the paper's search, per-row ``numpy.linalg.lstsq`` and the
printed eq. (14) for new points, the identity linking eq. (14) to the gradient,
and eigenvalues for PSD output.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.estimators.bending import Bending
from krein.estimators.conformal import ConformalTransformation
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.solvers.conformal import (
    conformal_extend,
    conformal_fit,
    conformal_lbfgs,
    conformal_objective,
    conformal_rows,
    conformal_search,
    conformal_start,
)
from krein.spectrum import SpectrumCorrection

N, M = 30, 10


@pytest.fixture(scope="module")
def data():
    """Sigmoid (indefinite) K and Gaussian (PSD) A on 30 training + 10 test points."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N + M, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=N + M) > 0, 1, -1)
    K = sigmoid_kernel(X, a=0.5, r=-1.0)
    A = gaussian_kernel(X, gamma=0.3)
    assert np.linalg.eigvalsh(K[:N, :N]).min() < -1.0
    return {"K": K[:N, :N], "K_test": K[N:, :N], "A": A[:N, :N], "A_test": A[N:, :N],
            "y": y[:N], "y_test": y[N:]}


# --------------------------------------------------------------- objective, gradient


@pytest.mark.parametrize("r", [1, 3])
def test_gradient_matches_finite_differences(data, r):
    K, A = data["K"], data["A"]
    rng = np.random.default_rng(r)
    V = rng.uniform(0.5, 1.5, size=(N, r))
    shape = V.shape

    def f(x):
        return conformal_objective(x.reshape(shape), K, A)[0]

    def g(x):
        return conformal_objective(x.reshape(shape), K, A)[1].ravel()

    err = scipy.optimize.check_grad(f, g, V.ravel(), epsilon=1e-6)
    assert err <= 1e-5 * np.linalg.norm(g(V.ravel()))
    # the objective is eq. (13) written out: ||K - W A W||_F^2 with W = diag(w) for r = 1
    w = V[:, 0]
    W = np.diag(w)
    assert conformal_objective(w, K, A)[0] == pytest.approx(np.linalg.norm(K - W @ A @ W) ** 2)


def test_recovers_exact_conformal_factor(data):
    A = data["A"]
    rng = np.random.default_rng(7)
    w_true = rng.uniform(0.5, 1.5, size=N)
    K = np.diag(w_true) @ A @ np.diag(w_true)
    sol = conformal_lbfgs(K, A)
    assert sol.status == "converged"
    assert sol.certificate["relative_objective"] < 1e-13
    w = sol.primal["V"][:, 0]
    np.testing.assert_allclose(np.abs(w), w_true, atol=1e-6)  # up to the global sign
    np.testing.assert_allclose(sol.primal["kernel"], K, atol=1e-6)


# ---------------------------------------------------------- search vs optimizer


@pytest.mark.parametrize("base", ["rbf", "flip"])
@pytest.mark.parametrize("r", [1, 2])
def test_optimizer_no_worse_than_paper_search(data, base, r):
    K = data["K"]
    A = data["A"] if base == "rbf" else SpectrumCorrection(correction="flip").fit_transform(K)
    V0 = conformal_start(N, r, random_state=0)
    f0 = conformal_objective(V0, K, A)[0]
    search = conformal_search(K, A, V0, step=0.01)
    opt = conformal_fit(K, A, V0, solver="optimize", step=0.01)
    assert search.status == "converged" and opt.status == "converged"
    assert search.objective < f0  # the search moved
    assert opt.objective <= search.objective
    assert opt.certificate["objectives"]["search"] == pytest.approx(search.objective, rel=1e-14)
    # opt is stationary: L-BFGS-B stops at gtol = 1e-10 on f / ||K||^2 or when the relative
    # decrease reaches machine precision, which leaves a relative gradient of order 1e-9;
    # the search's end point (a step away from stationarity) is far from that
    scale = np.sum(K * K)
    assert np.abs(conformal_objective(opt.primal["V"], K, A)[1]).max() <= 1e-7 * scale
    assert np.abs(conformal_objective(search.primal["V"], K, A)[1]).max() > 1e-6 * scale
    # the start was not modified by any solver
    np.testing.assert_array_equal(V0, conformal_start(N, r, random_state=0))


def test_plain_lbfgs_can_end_in_a_worse_basin(data):
    """Why "optimize" is not plain L-BFGS-B: on this instance (Gaussian A, r = 1) the
    gradient path from w = 1 ends at a local minimum above the search's end point,
    which has several w_i of the opposite sign (the search crossed into another basin)."""
    K, A = data["K"], data["A"]
    search = conformal_search(K, A, step=0.01)
    lbfgs = conformal_lbfgs(K, A)
    assert lbfgs.status == "converged"
    assert lbfgs.objective > search.objective * (1 + 1e-4)
    flipped = np.sign(search.primal["V"][:, 0]) != np.sign(lbfgs.primal["V"][:, 0])
    assert flipped.sum() >= 2
    opt = conformal_fit(K, A, solver="optimize")
    assert opt.certificate["chosen"] == "search+lbfgs"
    assert opt.objective <= search.objective


def test_search_stops_where_no_step_improves(data):
    """The paper's search ends at a point where no single +-step move lowers f."""
    K, A = data["K"], data["A"]
    step = 0.02
    sol = conformal_search(K, A, step=step)
    V = sol.primal["V"]
    f = conformal_objective(V, K, A)[0]
    assert f == pytest.approx(sol.objective)
    for i in range(N):
        for d in (step, -step):
            Vt = V.copy()
            Vt[i, 0] += d
            assert conformal_objective(Vt, K, A)[0] >= f * (1 - 1e-12)
    t = sol.trace
    assert t["n_moves"].iloc[-1] == 0 and (t["n_moves"].iloc[:-1] > 0).all()
    assert np.all(np.diff(t["objective"].iloc[:-1]) < 0)  # every sweep with moves lowered f


def test_search_and_lbfgs_warn_at_max_iter(data):
    K, A = data["K"], data["A"]
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        s = conformal_search(K, A, step=0.001, max_iter=2)
    assert s.status == "max_iter" and s.iterations == 2
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        s = conformal_lbfgs(K, A, max_iter=2)
    assert s.status == "max_iter"


# --------------------------------------------------------------- eq. (14)


def test_eq14_printed_formula_and_least_squares(data):
    K_test, A_test = data["K_test"], data["A_test"]
    rng = np.random.default_rng(1)
    w = rng.uniform(0.5, 1.5, size=N)
    # eq. (14) as printed, one new point at a time
    printed = np.array([sum(w[i] * K_test[x, i] * A_test[x, i] for i in range(N))
                        / sum((w[i] * A_test[x, i]) ** 2 for i in range(N)) for x in range(M)])
    np.testing.assert_allclose(conformal_extend(K_test, A_test, w)[:, 0], printed, rtol=1e-12)
    # r columns: least squares per row
    V = rng.uniform(0.5, 1.5, size=(N, 3))
    ref = np.array([np.linalg.lstsq(A_test[x][:, None] * V, K_test[x], rcond=None)[0]
                    for x in range(M)])
    np.testing.assert_allclose(conformal_extend(K_test, A_test, V), ref, rtol=1e-8, atol=1e-10)
    rows = conformal_rows(K_test, A_test, V)
    np.testing.assert_allclose(rows, A_test * (ref @ V.T), rtol=1e-8, atol=1e-10)


def test_eq14_on_training_rows_is_a_gradient_step(data):
    """w_x(row i) - w_i = -grad_i / (4 sum_j (A_ij w_j)^2), at any w."""
    K, A = data["K"], data["A"]
    w = np.random.default_rng(2).uniform(0.5, 1.5, size=N)
    grad = conformal_objective(w, K, A)[1]
    lhs = conformal_extend(K, A, w)[:, 0] - w
    np.testing.assert_allclose(lhs, -grad / (4 * np.sum((A * w) ** 2, axis=1)), atol=1e-12)


@pytest.mark.parametrize("r", [1, 2])
def test_transform_reproduces_fitted_block(data, r):
    K = data["K"]
    ct = ConformalTransformation(base="flip", r=r, random_state=0).fit(K)
    rows = ct.transform(K)
    Ks = ct.kernel_
    if r == 1:  # row i errs by A_ij w_j (w_x - w_i), w_x - w_i given by the gradient (above)
        A, w = ct.base_kernel_, ct.w_
        grad = conformal_objective(w, K, A)[1]
        dw = np.abs(grad) / (4 * np.sum((A * w) ** 2, axis=1))
        bound = dw[:, None] * np.abs(A * w)
        assert np.all(np.abs(rows - Ks) <= 1.01 * bound + 1e-13)
    np.testing.assert_allclose(rows, Ks, atol=1e-5 * np.abs(Ks).max())
    # the paper's search is not stationary: only close
    cs = ConformalTransformation(base="flip", solver="search", r=r, random_state=0).fit(K)
    assert np.abs(cs.transform(K) - cs.kernel_).max() < 0.1 * np.abs(cs.kernel_).max()


def test_array_base_transform_rows(data):
    K, K_test, A, A_test = data["K"], data["K_test"], data["A"], data["A_test"]
    ct = ConformalTransformation(base=A).fit(K)
    np.testing.assert_array_equal(ct.base_kernel_, A)
    assert ct.objective_ < conformal_objective(np.ones(N), K, A)[0]  # improves the a priori A
    np.testing.assert_allclose(ct.transform_rows(K, A), ct.kernel_, atol=1e-5 * np.abs(ct.kernel_).max())
    out = ct.transform_rows(K_test, A_test)
    np.testing.assert_allclose(out, conformal_rows(K_test, A_test, ct.V_), atol=1e-14)
    with pytest.raises(ValueError, match="transform_rows"):
        ct.transform(K_test)
    with pytest.raises(ValueError, match="A_rows"):
        ct.transform_rows(K_test, A_test[:, :5])


# --------------------------------------------------------------- PSD, bases


@pytest.mark.parametrize("base", ["flip", "square", "rbf"])
@pytest.mark.parametrize("r", [1, 3])
def test_output_psd(data, base, r, assert_psd):
    K = data["K"]
    base = data["A"] if base == "rbf" else base
    Ks = ConformalTransformation(base=base, r=r, random_state=0).fit_transform(K)
    assert_psd(Ks)
    assert np.linalg.eigvalsh(K).min() < -1.0


def test_clip_base_is_stationary_at_start(data):
    """grad f(1) = 4 diag(A (A - K)) = -4 diag(K_+ K_-) = 0 for A = clip(K)."""
    K = data["K"]
    A = SpectrumCorrection(correction="clip").fit_transform(K)
    grad = conformal_objective(np.ones(N), K, A)[1]
    assert np.abs(grad).max() <= 1e-10 * np.abs(K).max() ** 2
    ct = ConformalTransformation(base="clip").fit(K)
    np.testing.assert_allclose(ct.kernel_, A, atol=1e-10)
    np.testing.assert_allclose(ct.w_, 1.0, atol=1e-10)


def test_transformer_base(data):
    K, K_test, y = data["K"], data["K_test"], data["y"]
    ct = ConformalTransformation(base=Bending(correction="flip")).fit(K, y)
    np.testing.assert_allclose(ct.base_kernel_, SpectrumCorrection(correction="flip").fit_transform(K), atol=1e-10)
    ref = ConformalTransformation(base="flip").fit(K)
    # the two A differ by rounding only; the optimizer then stops at slightly different
    # points of the same (flat) minimum: equal objectives, kernels equal to ~1e-6
    assert ct.objective_ == pytest.approx(ref.objective_, rel=1e-10)
    np.testing.assert_allclose(ct.kernel_, ref.kernel_, atol=1e-5 * np.abs(ref.kernel_).max())
    np.testing.assert_allclose(ct.transform(K_test), ref.transform(K_test),
                               atol=1e-5 * np.abs(ref.kernel_).max())


def test_attributes_and_trace(data):
    K = data["K"]
    ct = ConformalTransformation(base="flip").fit(K)
    assert ct.objective_ == pytest.approx(np.linalg.norm(K - ct.kernel_) ** 2)
    assert ct.V_.shape == (N, 1) and ct.w_.shape == (N,)
    assert ct.n_iter_ == len(ct.trace_) and ct.n_iter_ >= 1
    assert {"iter", "objective", "grad_norm", "seconds"} <= set(ct.trace_.columns)
    assert set(ct.trace_["phase"]) == {"lbfgs", "search", "search+lbfgs"}
    for _, t in ct.trace_.groupby("phase"):  # each run only descends
        assert np.all(np.diff(t["objective"]) <= 1e-12 * t["objective"].iloc[0])
    assert ct.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(K).min())
    cs = ConformalTransformation(base="flip", solver="search", r=2, random_state=0).fit(K)
    assert cs.w_ is None and cs.V_.shape == (N, 2)
    assert "n_moves" in cs.trace_.columns


# --------------------------------------------------------------- pipeline


def test_pipeline_cross_val_score(data):
    K, y = data["K"], data["y"]
    pipe = make_pipeline(ConformalTransformation(), SVC(kernel="precomputed"))
    scores = cross_val_score(pipe, K, y, cv=3)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    tr_idx, te_idx = next(StratifiedKFold(3).split(K, y))
    ct = ConformalTransformation()
    svc = SVC(kernel="precomputed").fit(ct.fit_transform(K[np.ix_(tr_idx, tr_idx)]), y[tr_idx])
    acc = np.mean(svc.predict(ct.transform(K[np.ix_(te_idx, tr_idx)])) == y[te_idx])
    assert scores[0] == pytest.approx(acc)


# --------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "params, match",
    [
        ({"solver": "newton"}, "'solver' parameter of ConformalTransformation must be one of"),
        ({"solver": "lbfgs", "tol": np.nan}, "'tol' parameter"),
        ({"r": 0}, "'r' parameter"),
        ({"step": 0.0}, "step"),
        ({"tol": -1.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"base": "gaussian"}, "'base' parameter of ConformalTransformation must be a str among"),
        ({"base": np.eye(4)}, "shape"),
        ({"base": -np.eye(N)}, "PSD"),
        ({"base": np.triu(np.ones((N, N)))}, "not symmetric"),
    ],
)
def test_bad_params(data, params, match):
    ct = ConformalTransformation(**params)
    with pytest.raises(ValueError, match=match):
        ct.fit(data["K"])
    assert not hasattr(ct, "V_") and not hasattr(ct, "n_features_in_")


def test_bad_kernels(data):
    K, K_test = data["K"], data["K_test"]
    with pytest.raises(ValueError, match="square"):
        ConformalTransformation().fit(K[:, :5])
    with pytest.raises(ValueError, match="NaN"):
        ConformalTransformation().fit(np.where(K > 0.9, np.nan, K))
    ct = ConformalTransformation().fit(K)
    with pytest.raises(ValueError, match="K_rows"):
        ct.transform(K_test[:, :5])
    with pytest.raises(ValueError, match="V0"):
        conformal_search(K, data["A"], np.ones(4))
    with pytest.raises(ValueError, match="shape of K"):
        conformal_lbfgs(K, data["A"][:5, :5])
