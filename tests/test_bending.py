"""Tests for munoz's bending (Algorithm 1, eq. 8): krein.solvers.bending and krein.Bending.

Independent references: separate ``numpy.linalg.eigh`` reconstructions, the
spectrum corrections of :mod:`krein.spectrum` (clip/flip/mds), ``K @ K`` and
``K + c I`` written out, the closed-form eigenvalue recursion of a constant
weighting matrix, libsvm's support vectors, and the property that eq. (8) on the
training rows follows the fitted iterates.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.estimators.bending import Bending
from krein.kernels import sigmoid_kernel
from krein.solvers import SolverError
from krein.solvers.bending import BENDING_FUNCTIONS, bending, bending_eigenvalues
from krein.spectrum import SpectrumCorrection

# ----------------------------------------------------------------- data


def sigmoid_problem(n=30, m=10, seed=3):
    """Sigmoid kernel (indefinite) on n training + m test points, labels in {-1, +1}."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n + m) > 0, 1, -1)
    K = sigmoid_kernel(X, a=0.5, r=-1.0)
    return K[:n, :n], K[n:, :n], y[:n], y[n:]


def eig_map(K, f):
    lam, U = np.linalg.eigh(K)
    return (U * f(lam)) @ U.T


@pytest.fixture(scope="module")
def problem():
    K, K_test, y, y_test = sigmoid_problem()
    assert np.linalg.eigvalsh(K).min() < -1.0  # genuinely indefinite
    return K, K_test, y, y_test


# ------------------------------------------------- constant W: one step (munoz §3.2)


def test_constant_weights_clip_equals_mds_after_one_step(problem, assert_psd):
    K, K_test, _, _ = problem
    tr = Bending(correction="clip", eps=0.0)  # weights=None: every entry 1
    Kb = tr.fit_transform(K)
    ref = SpectrumCorrection(correction="clip").fit(K)
    np.testing.assert_allclose(Kb, ref.transform(K), atol=1e-10)
    np.testing.assert_allclose(Kb, eig_map(K, lambda lam: np.maximum(lam, 0)), atol=1e-10)
    assert tr.n_iter_ == 1
    # eq. (8) with W = 1 is the MDS map of eq. (3) for new points
    np.testing.assert_allclose(tr.transform(K_test), ref.transform(K_test), atol=1e-10)
    assert_psd(Kb, rtol=1e-8)


def test_constant_weights_eps_one_step(problem):
    K, _, _, _ = problem
    eps = 0.3
    tr = Bending(correction="clip", eps=eps)
    np.testing.assert_allclose(tr.fit_transform(K), eig_map(K, lambda lam: np.maximum(lam, eps)),
                               atol=1e-10)
    assert tr.n_iter_ == 1
    assert np.linalg.eigvalsh(tr.kernel_).min() == pytest.approx(eps, rel=1e-8)


@pytest.mark.parametrize("g", ["flip", "square", "shift"])
def test_constant_weights_other_g_one_step(problem, g, assert_psd):
    K, _, _, _ = problem
    lam_min = np.linalg.eigvalsh(K).min()
    expected = {"flip": eig_map(K, np.abs),         # flip / pseudo (eq. 4)
                "square": K @ K,                      # ST (eq. 7)
                "shift": K - lam_min * np.eye(K.shape[0])}[g]  # eq. (6) with lambda = -lam_min
    tr = Bending(correction=g)
    np.testing.assert_allclose(tr.fit_transform(K), expected, atol=1e-9 * np.abs(expected).max())
    assert tr.n_iter_ == 1
    assert_psd(tr.kernel_, rtol=1e-8)


def test_constant_partial_weight_closed_form(problem):
    """W = c (all entries): eigenvectors kept, lam -> eps + (1 - c)^N (lam - eps) below eps."""
    K, _, _, _ = problem
    c, eps, tol = 0.5, 0.05, 1e-8
    n = K.shape[0]
    sol = bending(K, np.full((n, n), c), correction="clip", eps=eps, tol=tol, max_iter=200)
    lam, U = np.linalg.eigh(K)

    def spectrum_after(N):
        return np.where(lam >= eps, lam, eps + (1 - c) ** N * (lam - eps))

    # the stopping rule, evaluated on the closed form: first N with lam_min >= -tol max|lam|
    N = next(N for N in range(1, 200)
             if spectrum_after(N).min() >= -tol * np.abs(spectrum_after(N)).max())
    assert sol.iterations == N
    np.testing.assert_allclose(sol.primal["K"], (U * spectrum_after(N)) @ U.T, atol=1e-10)
    assert sol.status == "converged"
    assert list(sol.trace["iter"]) == list(range(N + 1))


def test_bending_eigenvalues_functions():
    lam = np.array([-3.0, -0.01, 0.0, 0.02, 2.0])
    np.testing.assert_array_equal(bending_eigenvalues(lam, "clip", 0.1)[0], [0.1, 0.1, 0.1, 0.1, 2.0])
    np.testing.assert_array_equal(bending_eigenvalues(lam, "flip", 0.1)[0], [3.0, 0.1, 0.1, 0.1, 2.0])
    np.testing.assert_array_equal(bending_eigenvalues(lam, "square")[0], lam**2)
    g, s = bending_eigenvalues(lam, "shift", 0.1)
    assert s == pytest.approx(3.1)
    np.testing.assert_allclose(g, lam + 3.1)
    g, s = bending_eigenvalues(lam, "shift", shift=0.5)
    assert s == 0.5


# ------------------------------------------------------------- PSD for every g


@pytest.mark.parametrize("g", BENDING_FUNCTIONS)
@pytest.mark.parametrize("weights", ["support-vectors", "matrix"])
def test_every_output_psd(problem, g, weights, assert_psd):
    K, K_test, y, _ = problem
    n = K.shape[0]
    if weights == "matrix":
        rng = np.random.default_rng(5)
        B = rng.uniform(0.5, 1.0, size=(n, n))
        weights = np.minimum(B, B.T)
    tr = Bending(correction=g, weights=weights, max_iter=500)
    if g == "square" and isinstance(weights, np.ndarray):
        # documented: lam -> (1 - w) lam + w lam^2 mixes K_n and K_n^2, and here the
        # iterates overflow before they are PSD
        with pytest.raises(SolverError, match="diverged"):
            tr.fit(K, y)
        assert not hasattr(tr, "kernel_")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # must converge, not stop at max_iter
        tr.fit(K, y)
    assert tr.solution_.status == "converged"
    assert tr.n_iter_ >= 2  # partial weights: more than one step
    assert_psd(tr.kernel_, rtol=1e-8)
    assert np.all(np.isfinite(tr.transform(K_test)))


# ------------------------------------------------------------------- weights


def test_weights_direction_small_weight_moves_less(problem, assert_psd):
    """munoz: "If W_ij = 0 then the value in K_ij does not change": W is a step fraction."""
    K, _, _, _ = problem
    n = K.shape[0]
    S = np.arange(8)
    inS = np.zeros((n, n), bool)
    inS[np.ix_(S, S)] = True
    moves = []
    for s in (1.0, 0.7, 0.4):
        w = np.ones(n)
        w[S] = s
        Kb = bending(K, w, max_iter=500).primal["K"]
        assert_psd(Kb, rtol=1e-8)
        moves.append(np.abs(Kb - K)[inS].mean())
    assert moves[0] > moves[1] > moves[2]


def test_zero_weights_freeze_entries_and_warn(problem):
    K, _, _, _ = problem
    n = K.shape[0]
    S = np.arange(8)
    assert np.linalg.eigvalsh(K[np.ix_(S, S)]).min() < 0  # the frozen block is indefinite ...
    W = np.ones((n, n))
    W[np.ix_(S, S)] = 0.0
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        tr = Bending(weights=W, max_iter=15).fit(K)
    # ... so no PSD matrix keeps it: stopped at max_iter, frozen entries untouched
    np.testing.assert_array_equal(tr.kernel_[np.ix_(S, S)], K[np.ix_(S, S)])
    assert tr.n_iter_ == 15
    assert tr.solution_.status == "max_iter"
    assert not np.allclose(tr.kernel_[~np.isin(np.arange(n), S)], K[~np.isin(np.arange(n), S)])


def test_support_vector_weights(problem, assert_psd):
    K, _, y, _ = problem
    tr = Bending(weights="support-vectors", sv_weight=0.3, C=2.0, eps=0.0).fit(K, y)
    K_mds = eig_map(K, lambda lam: np.where(lam > 0, lam, 0.0))
    support = np.sort(SVC(kernel="precomputed", C=2.0).fit(K_mds, y).support_)
    np.testing.assert_array_equal(tr.support_, support)
    w = np.ones(K.shape[0])
    w[support] = 0.3
    np.testing.assert_allclose(tr.weights_, np.outer(w, w))
    np.testing.assert_allclose(tr.new_weights_, w)  # a new point is weighted as a non-SV
    assert 0 < support.size < K.shape[0]
    assert_psd(tr.kernel_, rtol=1e-8)
    # the same as passing the vector w
    np.testing.assert_allclose(Bending(weights=w).fit_transform(K), tr.kernel_, atol=1e-12)


def test_vector_weights_equal_outer_product(problem):
    K, _, _, _ = problem
    w = np.linspace(0.4, 1.0, K.shape[0])
    a = Bending(weights=w).fit_transform(K)
    b = Bending(weights=np.outer(w, w)).fit_transform(K)
    np.testing.assert_allclose(a, b, atol=1e-12)


# ------------------------------------------------------------ eq. (8), rows


@pytest.mark.parametrize("g", BENDING_FUNCTIONS)
@pytest.mark.parametrize("eps", [0.0, 0.05])
def test_spectral_rows_follow_iterates(problem, g, eps):
    """With out_of_sample="spectral", eq. (8) on training rows (own weight rows) gives K_N."""
    K, _, y, _ = problem
    n = K.shape[0]
    w = np.where(np.arange(n) % 3 == 0, 0.5, 1.0)
    W = np.outer(w, w)
    sol = bending(K, W, correction=g, eps=eps, out_of_sample="spectral", rows=K, row_weights=W,
                  max_iter=500)
    assert sol.iterations >= 2
    KN = sol.primal["K"]
    np.testing.assert_allclose(sol.primal["rows"], KN, atol=1e-8 * np.abs(KN).max())


@pytest.mark.parametrize("g", ["clip", "flip", "square"])
def test_munoz_rows_follow_iterates_eps0(problem, g):
    """Eq. (8) as printed (eq. 3 / 5 / 7 maps) is exact on training rows for eps = 0."""
    K, _, _, _ = problem
    n = K.shape[0]
    w = np.where(np.arange(n) % 3 == 0, 0.5, 1.0)
    W = np.outer(w, w)
    sol = bending(K, W, correction=g, eps=0.0, out_of_sample="munoz", rows=K, row_weights=W, max_iter=500)
    KN = sol.primal["K"]
    np.testing.assert_allclose(sol.primal["rows"], KN, atol=1e-8 * np.abs(KN).max())


def test_munoz_rows_clip_eps_is_mds(problem):
    """For eps > 0 eq. (8) gives the MDS rows (eq. 3): off by eps (I - U_r U_r')."""
    K, K_test, _, _ = problem
    eps = 0.3
    tr = Bending(correction="clip", eps=eps, out_of_sample="munoz").fit(K)
    lam, U = np.linalg.eigh(K)
    Ur = U[:, lam > eps]
    np.testing.assert_allclose(tr.transform(K), K @ Ur @ Ur.T, atol=1e-10)
    np.testing.assert_allclose(tr.kernel_ - tr.transform(K), eps * (np.eye(len(K)) - Ur @ Ur.T),
                               atol=1e-10)
    np.testing.assert_allclose(tr.transform(K_test),
                               SpectrumCorrection(correction="mds", eps=eps).fit(K).transform(K_test),
                               atol=1e-10)


def test_munoz_rows_shift_keep_off_diagonal(problem):
    K, K_test, _, _ = problem
    n = K.shape[0]
    w = np.where(np.arange(n) % 2 == 0, 0.6, 1.0)
    tr = Bending(correction="shift", weights=w, new_weights=1.0).fit(K)
    assert tr.n_iter_ >= 2
    rows = tr.transform(K)
    np.testing.assert_array_equal(rows, K)           # eq. (6): rows unchanged ...
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_allclose(tr.kernel_[off], K[off], atol=1e-10)  # ... as is the fitted kernel
    added = np.diag(tr.kernel_) - np.diag(K)
    np.testing.assert_allclose(added, tr.solution_.certificate["shifts"].sum() * w**2, rtol=1e-10)
    np.testing.assert_array_equal(tr.transform(K_test), K_test)


def test_transform_reproduces_fitted_block(problem):
    K, _, y, _ = problem
    # every training point has the new-point weight row: all training rows reproduced
    for g in BENDING_FUNCTIONS:
        tr = Bending(correction=g, out_of_sample="spectral").fit(K)
        np.testing.assert_allclose(tr.transform(K), tr.kernel_, atol=1e-9 * np.abs(tr.kernel_).max())
    # support-vector weights: non-SV training rows share the new-point weight row w
    tr = Bending(weights="support-vectors", out_of_sample="munoz").fit(K, y)
    assert tr.n_iter_ >= 2
    other = np.setdiff1d(np.arange(K.shape[0]), tr.support_)
    np.testing.assert_allclose(tr.transform(K[other]), tr.kernel_[other], atol=1e-9)
    # SV rows would need their own weight rows (documented): they differ
    assert not np.allclose(tr.transform(K[tr.support_]), tr.kernel_[tr.support_], atol=1e-6)


def test_composed_row_map_equals_direct_propagation(problem):
    """transform = K_rows @ T (composed steps) vs. carrying the rows through the loop."""
    K, K_test, y, _ = problem
    tr = Bending(weights="support-vectors", eps=0.1, new_weights=0.8).fit(K, y)
    direct = bending(K, tr.weights_, eps=0.1, rows=K_test, row_weights=tr.new_weights_,
                     max_iter=200)
    np.testing.assert_allclose(tr.transform(K_test), direct.primal["rows"], atol=1e-10)
    np.testing.assert_allclose(tr.new_weights_, 0.8 * np.sqrt(np.diag(tr.weights_)))


# ------------------------------------------------------------ divergence, trace


def test_square_divergence_raises():
    """g = lam^2 with frozen diagonal: the off-diagonal doubles at every step -> overflow."""
    K = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3, -1
    W = np.array([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(SolverError, match="diverged"):
        bending(K, W, correction="square", max_iter=5000)


def test_trace_and_attributes(problem):
    K, _, y, _ = problem
    tr = Bending(weights="support-vectors").fit(K, y)
    t = tr.trace_
    assert list(t.columns) == ["iter", "min_eigenvalue", "n_negative", "objective", "residual",
                               "change", "seconds"]
    assert len(t) == tr.n_iter_ + 1
    assert t["min_eigenvalue"].iloc[0] == pytest.approx(np.linalg.eigvalsh(K).min())
    assert t["min_eigenvalue"].iloc[-1] == pytest.approx(np.linalg.eigvalsh(tr.kernel_).min(),
                                                         abs=1e-9)
    assert t["objective"].iloc[-1] == pytest.approx(np.linalg.norm(tr.kernel_ - K))
    assert tr.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(K).min())
    assert tr.spectrum_.r_neg > 0 and tr.n_features_in_ == K.shape[0]


def test_already_psd_zero_steps():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    K = X @ X.T
    tr = Bending(weights=np.full(12, 0.5)).fit(K)
    assert tr.n_iter_ == 0
    np.testing.assert_array_equal(tr.kernel_, K)
    np.testing.assert_allclose(tr.transform(K[:4]), K[:4])


# ------------------------------------------------------------ pipelines


def test_pipeline_cross_val_score(problem):
    K, _, y, _ = problem
    pipe = make_pipeline(Bending(weights="support-vectors"), SVC(kernel="precomputed"))
    scores = cross_val_score(pipe, K, y, cv=3)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    # replay the first split by hand: square training block, (m, n) test rows
    tr_idx, te_idx = next(StratifiedKFold(3).split(K, y))
    b = Bending(weights="support-vectors")
    svc = SVC(kernel="precomputed").fit(b.fit_transform(K[np.ix_(tr_idx, tr_idx)], y[tr_idx]),
                                        y[tr_idx])
    acc = np.mean(svc.predict(b.transform(K[np.ix_(te_idx, tr_idx)])) == y[te_idx])
    assert scores[0] == pytest.approx(acc)


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "params, match",
    [
        ({"correction": "max"}, "'correction' parameter of Bending must be a str among"),
        ({"eps": -1.0}, "eps"),
        ({"correction": "shift", "shift": 0.0}, "shift"),
        ({"weights": "uniform"}, "weights"),
        ({"weights": np.full(3, 0.5)}, "weights"),
        ({"weights": np.full(30, 1.5)}, r"\[0, 1\]"),
        ({"weights": -np.ones((30, 30))}, r"\[0, 1\]"),
        ({"weights": np.triu(np.ones((30, 30)))}, "not symmetric"),
        ({"sv_weight": 0.0}, "sv_weight"),
        ({"C": -1.0}, "C"),
        ({"new_weights": 2.0}, "new_weights"),
        ({"new_weights": np.ones(4)}, "new_weights"),
        ({"out_of_sample": "raw"}, "out_of_sample"),
        ({"tol": -1.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
    ],
)
def test_bad_params(problem, params, match):
    K, _, _, _ = problem
    tr = Bending(**params)
    with pytest.raises(ValueError, match=match):
        tr.fit(K)
    assert not hasattr(tr, "kernel_") and not hasattr(tr, "n_features_in_")  # nothing half-fitted


def test_support_vectors_need_y(problem):
    K, _, _, _ = problem
    tr = Bending(weights="support-vectors")
    with pytest.raises(ValueError, match="needs the labels y"):
        tr.fit(K)
    assert not hasattr(tr, "n_features_in_")


def test_bad_kernels(problem):
    K, K_test, _, _ = problem
    with pytest.raises(ValueError, match="square"):
        Bending().fit(K[:, :5])
    with pytest.raises(ValueError, match="not symmetric"):
        Bending().fit(K + np.triu(np.ones_like(K), 1))
    with pytest.raises(ValueError, match="NaN"):
        Bending().fit(np.where(K > 0.9, np.nan, K))
    tr = Bending().fit(K)
    with pytest.raises(ValueError, match="K_rows"):
        tr.transform(K_test[:, :5])
    with pytest.raises(ValueError, match="K_rows"):
        tr.transform(np.where(K_test > 0.5, np.inf, K_test))
    with pytest.raises(ValueError, match="row_weights given without rows"):
        bending(K, row_weights=np.ones(len(K)))
