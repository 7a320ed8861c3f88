"""The reduced-set ``approximation=`` path of LPSVC, ModSVC, RVC and DCSVC
(`krein/estimators/reduced.py`): binary models expanded on the landmarks' kernel columns.

* Full rank (every training point a landmark, ``C = W = K``): two classes and the
  RVM's one-vs-rest give the exact estimator's decision values (the same problem;
  to round-off); one-vs-one pairs are the exact method's problem on the rectangular
  block ``K[idx, :]`` (every landmark an expansion point, its label unused), checked
  against independent solvers.
* Low rank against independent computations: the LP by scipy's ``linprog``, Mod SVM by
  scikit-learn's linear SVC on the columns, the RVM's posterior mode by numpy, IKSVM-DC
  on a PSD kernel (convex: the global minimum) by CVXPY and its subproblem by CVXPY.
* No ``n x n`` array (tracemalloc), ``krein compare --approximation`` runs them, bad
  parameters.
"""

from __future__ import annotations

import tracemalloc
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from krein.approximation import IndefiniteNystroem
from krein.estimators import DCSVC, RVC, LPSVC, ModSVC
from krein.kernels import pairwise_kernel
from krein.solvers.dca import (_ActiveGram, dca_landmarks, landmark_dc_objective,
                               landmark_dc_stationarity, landmark_dc_subproblem)

SIGMOID = {"a": 3.0, "r": -1.0}


def _data(n=70, n_test=40, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n + n_test, 2))
    if classes == 2:
        y = (np.sin(3 * X[:, 0]) * np.sin(3 * X[:, 1]) > 0).astype(int)
    else:
        y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.35, 0.35])
    return X[:n], y[:n], X[n:], y[n:]


def _full_rank(K):
    return IndefiniteNystroem(kernel="precomputed", landmark_block=K, rcond=1e-12)


def _kernels(classes=2, n=70, kernel="sigmoid", params=SIGMOID):
    X, y, Xt, yt = _data(n=n, classes=classes)
    return pairwise_kernel(kernel, X, X, params), y, pairwise_kernel(kernel, Xt, X, params)


ESTIMATORS = {
    "lp-svm": lambda **kw: LPSVC(**kw),
    "mod-svm": lambda **kw: ModSVC(**kw),
    "rvm": lambda **kw: RVC(**kw),
    "iksvm-dc": lambda **kw: DCSVC(**{"random_state": 0, "max_iter": 60, **kw}),
}


# ---------------------------------------------------------------------------- full rank
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_full_rank_two_classes_is_the_exact_estimator(name):
    """C = W = K: the same problem as the exact path.  LP-SVM, Mod SVM (CLARABEL) and
    the RVM run the same solver on the same data (bit-equal); IKSVM-DC solves its
    subproblems by the primal instead of the dual finite Newton method, both exact, so
    the iterates agree to round-off."""
    K, y, Kt = _kernels()
    exact = ESTIMATORS[name](kernel="precomputed").fit(K, y)
    approx = ESTIMATORS[name](kernel="precomputed", approximation=_full_rank(K)).fit(K, y)
    d_exact, d_approx = exact.decision_function(Kt), approx.decision_function(Kt)
    scale = max(1.0, np.abs(d_exact).max())
    np.testing.assert_allclose(d_approx, d_exact, rtol=0, atol=1e-9 * scale)
    np.testing.assert_array_equal(approx.predict(Kt), exact.predict(Kt))
    assert approx.approximation_.landmark_block_.shape == K.shape
    # landmarks are the training points here: the same support
    np.testing.assert_array_equal(approx.support_, exact.support_)


@pytest.mark.parametrize("name", ["lp-svm", "mod-svm"])
def test_full_rank_feature_vectors(name):
    """Feature vectors with every training point a landmark: the columns are the exact
    kernel (computed blockwise), the decision values the exact estimator's to the
    solver's tolerance (relative duality gap below 1e-6)."""
    X, y, Xt, _ = _data()
    kw = dict(kernel="sigmoid", kernel_params=SIGMOID)
    exact = ESTIMATORS[name](**kw).fit(X, y)
    ny = IndefiniteNystroem(landmarks=np.arange(X.shape[0]), rcond=1e-12)
    approx = ESTIMATORS[name](approximation=ny, **kw).fit(X, y)
    assert approx.solution_.certificate["relative_gap"] < 1e-6
    d_exact, d_approx = exact.decision_function(Xt), approx.decision_function(Xt)
    np.testing.assert_allclose(d_approx, d_exact, rtol=0, atol=1e-5 * np.abs(d_exact).max())
    np.testing.assert_array_equal(approx.support_vectors_, X[approx.support_])


def test_full_rank_rvm_one_vs_rest_is_the_exact_estimator():
    """Three classes: the RVM's one-vs-rest models use every training point, so at full
    rank they are the exact estimator's problems; the reduced path runs the solver's
    incremental loop (the same steps, other round-off), so every model takes the same
    actions on the same columns and the decision values agree to round-off."""
    K, y, Kt = _kernels(classes=3)
    exact = RVC(kernel="precomputed").fit(K, y)
    approx = RVC(kernel="precomputed", approximation=_full_rank(K)).fit(K, y)
    assert [s.certificate["incremental"] for s in exact.solutions_] == [False] * 3
    assert [s.certificate["incremental"] for s in approx.solutions_] == [True] * 3
    for key in ["model", "action", "basis", "n_rejected"]:
        assert approx.trace_[key].tolist() == exact.trace_[key].tolist(), key
    np.testing.assert_array_equal(approx.relevance_vectors_, exact.relevance_vectors_)
    d_exact = exact.decision_function(Kt)
    np.testing.assert_allclose(approx.decision_function(Kt), d_exact, rtol=0,
                               atol=1e-8 * np.abs(d_exact).max())
    np.testing.assert_allclose(approx.predict_proba(Kt), exact.predict_proba(Kt), rtol=0,
                               atol=1e-8)


def _lp_linprog(C, y, Cbox):
    """The LP ``min ||c||_1 + C sum xi`` s.t. ``y (C c + b) >= 1 - xi`` by scipy's linprog,
    with ``c = p - q`` (p, q >= 0), ``b`` free: optimal value and a solution."""
    n, m = C.shape
    # variables [p (m), q (m), b (1), xi (n)]
    cost = np.r_[np.ones(2 * m), 0.0, np.full(n, Cbox)]
    YC = y[:, None] * C
    A = -np.hstack([YC, -YC, y[:, None], np.eye(n)])
    bounds = [(0, None)] * (2 * m) + [(None, None)] + [(0, None)] * n
    res = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    assert res.status == 0
    return res.fun, res.x[:m] - res.x[m:2 * m], res.x[2 * m]


def _lp_value(C, y, Cbox, c, b):
    return np.abs(c).sum() + Cbox * np.maximum(0.0, 1.0 - y * (C @ c + b)).sum()


def test_full_rank_lp_one_vs_one_pairs_against_linprog():
    """Three classes: each pair (i, j) is the LP on the rectangular block K[idx, :] (all
    landmarks expand every pair); its optimal value equals scipy's linprog (HiGHS through
    scipy, the LP written out by hand) to 1e-7 relative."""
    K, y, Kt = _kernels(classes=3, n=60)
    est = LPSVC(kernel="precomputed", approximation=_full_rank(K)).fit(K, y)
    assert len(est.binary_models_) == 3
    for (i, j), model in zip(est.pairs_, est.binary_models_):
        idx = np.flatnonzero((y == i) | (y == j))
        y_pm = np.where(y[idx] == j, 1.0, -1.0)
        value, _, _ = _lp_linprog(K[idx], y_pm, 1.0)
        assert _lp_value(K[idx], y_pm, 1.0, model.coef, model.intercept) == \
            pytest.approx(value, rel=1e-7)
        np.testing.assert_array_equal(model.idx, np.arange(K.shape[0]))


def test_full_rank_mod_svm_one_vs_one_pairs_against_sklearn():
    """Three classes: each pair is the linear SVM on the rows K[idx, :] (all landmarks),
    which scikit-learn's SVC(kernel="linear") solves independently; decision values agree
    to the solvers' tolerances, and solver="libsvm" on the reduced path is that SVC."""
    K, y, Kt = _kernels(classes=3, n=60)
    ny = _full_rank(K)
    est = ModSVC(kernel="precomputed", approximation=ny).fit(K, y)
    lib = ModSVC(kernel="precomputed", approximation=ny, solver="libsvm",
                 solver_options={"tol": 1e-10}).fit(K, y)
    for r, (i, j) in enumerate(est.pairs_):
        idx = np.flatnonzero((y == i) | (y == j))
        y_pm = np.where(y[idx] == j, 1.0, -1.0)
        svc = SVC(kernel="linear", C=1.0, tol=1e-10).fit(K[idx], y_pm)
        ref = svc.decision_function(Kt)
        for model in (est.binary_models_[r], lib.binary_models_[r]):
            mine = Kt @ model.coef + model.intercept
            np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-5 * np.abs(ref).max())


def test_full_rank_dc_one_vs_one_pairs_are_the_landmark_dca():
    """Three classes: pair (i, j) runs DCA on F(beta) = 1/2 beta'K beta + loss on the rows
    K[idx, :], from the estimator's random stream, pair after pair."""
    K, y, Kt = _kernels(classes=3, n=60)
    est = DCSVC(kernel="precomputed", random_state=3, max_iter=40,
                approximation=_full_rank(K)).fit(K, y)
    rng = np.random.RandomState(3)
    for (i, j), model in zip(est.pairs_, est.binary_models_):
        idx = np.flatnonzero((y == i) | (y == j))
        y_pm = np.where(y[idx] == j, 1.0, -1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = dca_landmarks(K[idx], K, y_pm, 1.0, max_iter=40, random_state=rng)
        np.testing.assert_array_equal(model.coef, sol.primal["beta"])
        assert model.info["stationarity"] == sol.certificate["grad_norm"]


# ---------------------------------------------------------------------------- low rank
def _low_rank(seed=0, n=90, m=15, kernel="sigmoid", params=SIGMOID, classes=2):
    X, y, Xt, yt = _data(n=n, seed=seed, classes=classes)
    rng = np.random.default_rng(seed + 1)
    # landmarks drawn from a pool that includes test points: only their columns are used
    pool = np.vstack([X, Xt])
    L = pool[rng.choice(pool.shape[0], m, replace=False)]
    C = pairwise_kernel(kernel, X, L, params)
    W = pairwise_kernel(kernel, L, L, params)
    Ct = pairwise_kernel(kernel, Xt, L, params)
    ny = IndefiniteNystroem(kernel="precomputed", landmark_block=W)
    return C, W, y, Ct, yt, ny


def test_low_rank_lp_against_linprog():
    """m = 15 landmarks of a sigmoid kernel: the LP's optimal value (HiGHS through CVXPY,
    the approximate default, and CLARABEL) equals scipy's linprog's on the columns."""
    C, W, y, Ct, yt, ny = _low_rank()
    y_pm = np.where(y == 1, 1.0, -1.0)
    value, _, _ = _lp_linprog(C, y_pm, 2.0)
    for solver in ("HIGHS", "CLARABEL"):
        est = LPSVC(kernel="precomputed", C=2.0, solver=solver, approximation=ny).fit(C, y)
        model = est.binary_models_[0]
        assert model.coef.shape == (W.shape[0],)
        assert _lp_value(C, y_pm, 2.0, model.coef, model.intercept) == pytest.approx(value,
                                                                                   rel=1e-7)
        np.testing.assert_allclose(est.decision_function(Ct),
                                   Ct @ model.coef + model.intercept, rtol=1e-12)


def test_low_rank_mod_svm_against_sklearn_and_liblinear():
    """Mod SVM on m = 15 landmark columns: CLARABEL's decision values equal scikit-learn's
    SVC(kernel="linear") on the columns; liblinear solves the problem with the intercept
    regularized (its stated problem): its primal objective is at most CVXPY's on that
    problem plus liblinear's tolerance."""
    C, W, y, Ct, yt, ny = _low_rank()
    y_pm = np.where(y == 1, 1.0, -1.0)
    est = ModSVC(kernel="precomputed", C=3.0, approximation=ny).fit(C, y)
    svc = SVC(kernel="linear", C=3.0, tol=1e-10).fit(C, y_pm)
    ref = svc.decision_function(Ct)
    np.testing.assert_allclose(est.decision_function(Ct), ref, rtol=0,
                               atol=1e-5 * np.abs(ref).max())
    lin = ModSVC(kernel="precomputed", C=3.0, approximation=ny, solver="liblinear",
                 solver_options={"tol": 1e-8}).fit(C, y)
    s = np.sqrt(np.max(np.sum(C * C, axis=1)))
    w, b = cp.Variable(C.shape[1]), cp.Variable()
    obj = 0.5 * (cp.sum_squares(w) + cp.square(b) / s ** 2) + \
        3.0 * cp.sum(cp.pos(1 - cp.multiply(y_pm, C @ w + b)))
    best = cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL")
    coef, b_lin = lin.binary_models_[0].coef, lin.binary_models_[0].intercept
    mine = 0.5 * (coef @ coef + b_lin ** 2 / s ** 2) + \
        3.0 * np.maximum(0, 1 - y_pm * (C @ coef + b_lin)).sum()
    assert mine == pytest.approx(best, rel=1e-4)
    assert lin.solution_.solver == "liblinear"


def test_low_rank_rvm_posterior_mode_by_numpy():
    """The RVM on the landmark columns: its relevance vectors are landmarks, its weights
    the posterior mode of the Bernoulli likelihood with the ARD prior on the kept columns
    (gradient Phi_a'(t - sigma(Phi_a w)) - A w = 0, computed here by numpy), and the
    decision of new points is their columns times the weights."""
    C, W, y, Ct, yt, ny = _low_rank(m=25)
    est = RVC(kernel="precomputed", approximation=ny).fit(C, y)
    sv = est.relevance_vectors_
    assert sv.size >= 1 and np.all(sv < W.shape[0])
    Phi = np.column_stack([C[:, sv], np.ones(C.shape[0])])
    w = np.r_[est.dual_coef_[0], est.intercept_[0]]
    alpha = est.alpha_[0]
    keep = np.isfinite(alpha)
    f = Phi[:, keep] @ w[keep]
    t = (y == 1).astype(float)
    grad = Phi[:, keep].T @ (t - 1.0 / (1.0 + np.exp(-f))) - alpha[keep] * w[keep]
    assert np.max(np.abs(grad)) <= 1e-8 * (1.0 + np.max(np.abs(alpha[keep] * w[keep])))
    np.testing.assert_allclose(est.decision_function(Ct),
                               Ct[:, sv] @ est.dual_coef_[0] + est.intercept_[0], rtol=1e-12)
    proba = est.predict_proba(Ct)
    np.testing.assert_allclose(proba[:, 1], 1.0 / (1.0 + np.exp(-est.decision_function(Ct))),
                               rtol=1e-12)


def test_low_rank_dc_on_a_psd_kernel_is_cvxpy_minimum():
    """Gaussian kernel (PSD): F(beta, b) = 1/2 beta'W beta + C/2 sum max(0, 1 - y (C beta +
    b))^2 is convex, so DCA's stationary point is its minimum, which CVXPY computes
    independently; decision values agree to 1e-4 relative (DCA's step test 1e-14,
    stationarity below 1e-6)."""
    C, W, y, Ct, yt, ny = _low_rank(kernel="gaussian", params={"gamma": 2.0}, m=12)
    est = DCSVC(kernel="precomputed", C=10.0, tol=1e-14, max_iter=5000, random_state=0,
                approximation=ny).fit(C, y)
    assert est.stationarity_[0] < 1e-6
    y_pm = np.where(y == 1, 1.0, -1.0)
    U, s, _ = np.linalg.svd(W)
    R = U * np.sqrt(np.maximum(s, 0.0))        # W = R R'
    beta, b = cp.Variable(W.shape[0]), cp.Variable()
    obj = 0.5 * cp.sum_squares(R.T @ beta) + \
        5.0 * cp.sum_squares(cp.pos(1 - cp.multiply(y_pm, C @ beta + b)))
    best = cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL")
    model = est.binary_models_[0]
    assert landmark_dc_objective(C, W, y_pm, 10.0, model.coef, model.intercept) == \
        pytest.approx(best, rel=1e-6)
    ref = Ct @ beta.value + b.value
    np.testing.assert_allclose(est.decision_function(Ct), ref, rtol=0,
                               atol=1e-4 * np.abs(ref).max())


def test_landmark_dc_subproblem_against_cvxpy():
    """One DCA subproblem on an indefinite landmark block, started far from its minimizer
    and solved again from there with the kept Gram matrix: the exact minimizer of
    rho/2 ||beta||^2 + sum C_i/2 max(0, 1 - y (C beta + b))^2 - theta'beta, CVXPY's."""
    C, W, y, Ct, yt, ny = _low_rank(m=20)
    y_pm = np.where(y == 1, 1.0, -1.0)
    rng = np.random.default_rng(5)
    Cv = rng.uniform(0.5, 2.0, y.size)
    rho = float(np.linalg.eigvalsh(W)[-1]) + 0.1
    gram = _ActiveGram(C, Cv)
    for seed in range(3):
        theta = np.random.default_rng(seed).normal(size=W.shape[0])
        start = np.random.default_rng(seed + 10).normal(size=W.shape[0])
        beta, b, info = landmark_dc_subproblem(C, y_pm, Cv, rho, theta, start, 0.3, gram)
        bv, bb = cp.Variable(W.shape[0]), cp.Variable()
        obj = 0.5 * rho * cp.sum_squares(bv) - theta @ bv + \
            0.5 * cp.sum(cp.multiply(Cv, cp.square(cp.pos(1 - cp.multiply(y_pm, C @ bv + bb)))))
        cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL")
        np.testing.assert_allclose(beta, bv.value, atol=1e-6 * np.abs(bv.value).max())
        assert b == pytest.approx(float(bb.value), abs=1e-6)
        assert info["residual"] < 1e-10


def test_landmark_dc_stationarity_is_the_gradient():
    """The stationarity residual is built from F's gradient: a finite-difference check."""
    C, W, y, Ct, yt, ny = _low_rank(m=10)
    y_pm = np.where(y == 1, 1.0, -1.0)
    rng = np.random.default_rng(0)
    beta, b = rng.normal(size=10) * 0.1, 0.2
    r = 1 - y_pm * (C @ beta + b)
    w = y_pm * np.maximum(r, 0)
    grad = W @ beta - C.T @ w
    eps = 1e-6
    for k in range(3):
        e = np.zeros(10)
        e[k] = eps
        fd = (landmark_dc_objective(C, W, y_pm, 1.0, beta + e, b)
              - landmark_dc_objective(C, W, y_pm, 1.0, beta - e, b)) / (2 * eps)
        assert fd == pytest.approx(grad[k], rel=1e-5, abs=1e-8)
    res = landmark_dc_stationarity(C, W, y_pm, 1.0, beta, b)
    expected = max(np.linalg.norm(grad) / (np.linalg.norm(W @ beta) + np.linalg.norm(C.T @ w)),
                   abs(w.sum()) / np.abs(w).sum())
    assert res == pytest.approx(expected, rel=1e-12)


def test_multiclass_low_rank_with_feature_vectors():
    """Three classes, 20 landmarks drawn by the front end from feature vectors: every method
    fits and predicts through the landmark columns of the new points (their kernel against
    ``landmarks_``), and the decision values are those columns times the coefficients."""
    X, y, Xt, yt = _data(n=120, classes=3)
    ny = IndefiniteNystroem(n_components=20, random_state=0)
    for name, make in ESTIMATORS.items():
        extra = {"solver": "liblinear"} if name == "mod-svm" else {}
        est = make(kernel="sigmoid", kernel_params=SIGMOID, approximation=ny, **extra).fit(X, y)
        L = est.approximation_.landmarks_
        Ct = pairwise_kernel("sigmoid", Xt, L, SIGMOID)
        dec = est.decision_function(Xt)
        assert dec.shape == (Xt.shape[0], 3)
        assert np.mean(est.predict(Xt) == yt) > 0.6, name
        if name == "rvm":
            raw = Ct[:, est.support_] @ est.dual_coef_.T + est.intercept_
        else:
            raw = np.column_stack([Ct @ m.coef + m.intercept for m in est.binary_models_])
            assert all(m.coef.shape == (20,) for m in est.binary_models_)
            np.testing.assert_allclose(est._binary_decisions(Ct), raw, rtol=1e-12)
            continue
        np.testing.assert_allclose(dec, raw, rtol=1e-10)


# ---------------------------------------------------------------------------- no n x n
@pytest.mark.parametrize("name, n, extra", [("lp-svm", 6000, {}), ("mod-svm", 20000,
                                                                  {"solver": "liblinear"}),
                                            ("rvm", 20000, {"max_iter": 30}),
                                            ("iksvm-dc", 20000, {"max_iter": 20})])
def test_no_n_by_n_array(name, n, extra):
    """Fit and predict with m = 30 landmark columns at n points: numpy's peak (tracemalloc)
    stays below a quarter of one n x n array of float64 (and of one n x n_test)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (n, 2))
    y = (np.sin(3 * X[:, 0]) * np.sin(3 * X[:, 1]) > 0).astype(int)
    ny = IndefiniteNystroem(n_components=30, random_state=0)
    est = ESTIMATORS[name](kernel="sigmoid", kernel_params=SIGMOID, approximation=ny, **extra)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)
            est.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.25 * n * n * 8, peak


# ---------------------------------------------------------------------------- compare
def test_krein_compare_runs_the_reduced_paths(tmp_path, capsys):
    """``krein compare --approximation nystroem:M`` runs the four methods with their
    approximate defaults (HiGHS for the LP, the interior-point linear SVM for Mod SVM) and
    records them."""
    from krein.cli import main
    from krein.compare import run_comparison

    res = run_comparison(dataset="checkerboard", kernel="sigmoid", outer_folds=2,
                         progress=False, n_samples=200, tune=False,
                         approximation="nystroem:30",
                         methods=["lp-svm", "mod-svm", "rvm", "iksvm-dc"])
    s = res.summary.set_index("method")
    assert (s["status"] == "ok").all(), s["note"]
    used = res.folds.groupby("method")["solver_used"].agg(set).to_dict()
    assert used["lp-svm"] == {"HIGHS"} and used["mod-svm"] == {"ipm"}
    assert "solver HIGHS" in s.loc["lp-svm", "note"]
    # better than chance on the balanced checkerboard (30 landmarks, 100 training points)
    assert (s["accuracy_mean"] > 0.5).all(), s["accuracy_mean"]
    out = tmp_path / "out"
    rc = main(["compare", "--dataset", "checkerboard", "--n-samples", "150", "--cv", "2",
               "--no-tune", "--no-progress", "--n-jobs", "1", "--approximation", "nystroem:20",
               "--methods", "lp-svm,mod-svm,rvm,iksvm-dc", "--out", str(out)])
    capsys.readouterr()
    assert rc in (0, None) and out.exists()


# ---------------------------------------------------------------------------- parameters
def test_bad_parameters():
    K, y, _ = _kernels()
    ny = _full_rank(K)
    with pytest.raises(ValueError, match="liblinear"):
        ModSVC(kernel="precomputed", solver="liblinear").fit(K, y)
    with pytest.raises(ValueError, match="solver='dca'"):
        DCSVC(kernel="precomputed", solver="CLARABEL", approximation=ny).fit(K, y)
    with pytest.raises(ValueError, match="cache_size"):
        ModSVC(kernel="precomputed", solver="libsvm", solver_options={"cache_size": 100},
               approximation=ny).fit(K, y)
    for make in ESTIMATORS.values():
        with pytest.raises(ValueError, match="approximation"):
            make(kernel="precomputed", approximation="nystroem").fit(K, y)


def test_mod_svm_pairs_on_threads_give_the_serial_fit():
    """ModSVC's one-vs-one problems on the landmark columns run on two threads (its linear
    solvers read their arguments only) with the serial fit's models."""
    import joblib

    from krein.approximation import IndefiniteNystroem
    from krein.estimators import ModSVC

    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 4))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])       # three classes
    kw = dict(kernel="sigmoid", kernel_params={"a": 0.5, "r": -1.0}, solver="ipm",
              approximation=IndefiniteNystroem(n_components=30, random_state=0))
    serial = ModSVC(**kw).fit(X, y)
    assert serial._parallel_pairs
    with joblib.parallel_config(n_jobs=2, prefer="threads"):
        threaded = ModSVC(**kw).fit(X, y)
    np.testing.assert_array_equal(threaded.decision_function(X), serial.decision_function(X))
    through_cvxpy = ModSVC(solver="clarabel")
    through_cvxpy._check_params()
    assert not through_cvxpy._parallel_pairs
