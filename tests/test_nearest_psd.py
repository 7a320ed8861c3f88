"""Nearest PSD matrix with a fixed diagonal: munoz §3.3 eqs. (9)-(12), Higham (2002).

Independent checks:

* published/closed-form values: Higham's 3 x 3 example, whose nearest correlation
  matrix has a closed form derived here (below);
* two paths to one number: Dykstra's iteration against the CVXPY SDP of (9)
  (SCS with tight tolerances and Clarabel with its defaults), with identity,
  diagonal and general SPD weights; ``diagonal=None`` against the clip of
  :class:`krein.spectrum.SpectrumCorrection`;
* certificates: the KKT conditions checked from ``X`` alone
  (:func:`nearest_psd_certificate`, multiplier recovered by least squares) and
  Dykstra's own multiplier agreeing with it; the projections of Higham's Theorems
  3.1/3.2 checked by their own optimality conditions;
* properties: plain alternation (munoz eq. 10) lands in the intersection but not
  at the nearest point; the out-of-sample maps reproduce what they must.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.estimators.nearest_psd import NearestPSD
from krein.formulations.nearest_psd import (NearestPSDSDP, check_weights, nearest_psd_certificate,
                                            resolve_diagonal)
from krein.kernels import sigmoid_kernel
from krein.solvers import solve
from krein.solvers.alternating import (alternating_projections, project_diagonal, project_psd)
from krein.spectrum import SpectrumCorrection

HIGHAM_A = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])


def random_spd(n, seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, n))
    return M @ M.T / n + 0.5 * np.eye(n)


def sigmoid_data(n=40, seed=0, d=4):
    """Indefinite sigmoid kernel with a positive diagonal and labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    K = sigmoid_kernel(X, a=0.3, r=0.5)
    return X, y, K


# ------------------------------------------------------------------ Higham's example
def test_higham_example_dykstra(higham_closed_form):
    X_ref, dist_ref = higham_closed_form()
    sol = alternating_projections(HIGHAM_A, 1.0, tol=1e-12, max_iter=1000)
    X = sol.primal["X"]
    assert sol.status == "converged"
    np.testing.assert_allclose(X, X_ref, atol=1e-10)
    assert sol.objective == pytest.approx(dist_ref, abs=1e-12)
    # Higham (2002) / the issue: X_12 = 0.760689917, ||A - X||_F = 0.52779033.  They agree
    # with the closed form (0.7606898534..., 0.5277904636...) to 7e-8 and 1.4e-7 only: the
    # published distance is *below* the minimum, so it comes from a slightly infeasible
    # iterate; the closed form above is the reference, the published digits a sanity check.
    assert X[0, 1] == pytest.approx(0.760689917, abs=1e-7)
    assert sol.objective == pytest.approx(0.52779033, abs=2e-7)
    # exact feasibility of the returned matrix and a KKT certificate
    np.testing.assert_allclose(np.diag(X), 1.0, atol=1e-15)
    assert np.linalg.eigvalsh(X).min() > -1e-14
    assert sol.primal_residual < 1e-14
    assert sol.dual_residual < 1e-10 and sol.gap < 1e-10


def test_higham_example_plain_lands_in_intersection_not_nearest(higham_closed_form):
    """munoz eq. (10) converges to a correlation matrix, but not the nearest one."""
    _, dist_ref = higham_closed_form()
    dyk = alternating_projections(HIGHAM_A, 1.0, tol=1e-12, max_iter=1000)
    plain = alternating_projections(HIGHAM_A, 1.0, solver="plain", tol=1e-12, max_iter=1000)
    assert plain.status == "converged" and plain.solver == "alternating-projections"
    X = plain.primal["X"]
    np.testing.assert_allclose(np.diag(X), 1.0, atol=1e-15)
    assert np.linalg.eigvalsh(X).min() > -1e-14
    # the unscaled iterates agree too: a genuine point of the intersection
    np.testing.assert_allclose(plain.primal["X_last"], plain.primal["Y"], atol=1e-11)
    # strictly farther than the minimum (measured 0.5279111 vs 0.5277905)
    assert plain.objective > dist_ref + 1e-4
    assert dyk.objective == pytest.approx(dist_ref, abs=1e-12)
    # ... and the KKT conditions fail there: no multiplier makes W(K - X)W - Diag(theta) NSD
    # and orthogonal to X
    assert plain.dual_residual > 1e-3
    assert plain.dual["theta"] is None


# ------------------------------------------------------------------ against the SDP
#: Tolerances per solver.  SCS at eps 1e-9 returns X to about 1e-9 (measured <= 1.4e-9);
#: Clarabel at its defaults stops at a relative gap of 1e-8 on the objective, which is
#: the norm ||K - X||_W: by strong convexity of its square the point is then only
#: within about sqrt(1e-8 ||K - X||^2) of the minimizer (measured <= 5e-5).
SDP_SOLVERS = {
    "SCS": ({"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200000}, 1e-7, 1e-8),
    "CLARABEL": ({}, 2e-4, 1e-7),
}


@pytest.mark.parametrize("solver", list(SDP_SOLVERS))
@pytest.mark.parametrize("weights_kind", ["identity", "diagonal", "matrix"])
@pytest.mark.parametrize("diagonal", [1.0, "keep", "array", None])
def test_dykstra_equals_sdp(solver, weights_kind, diagonal, random_symmetric):
    n = 12 if weights_kind == "matrix" else 25
    K = random_symmetric(n, seed=3)
    rng = np.random.default_rng(7)
    weights = {"identity": None, "diagonal": rng.uniform(0.5, 2.0, n),
               "matrix": random_spd(n, 5)}[weights_kind]
    if diagonal == "array":
        diagonal = rng.uniform(0.5, 2.0, n)
    sol = alternating_projections(K, diagonal, weights, tol=1e-11, max_iter=5000)
    assert sol.status == "converged"
    opts, x_tol, obj_rtol = SDP_SOLVERS[solver]
    form = NearestPSDSDP(K, diagonal, weights)
    ref = solve(form, solver, **opts)
    X = sol.primal["X"]
    assert sol.objective == pytest.approx(ref.objective, rel=obj_rtol)
    np.testing.assert_allclose(X, ref.primal["X"], atol=x_tol)
    # Dykstra's point satisfies the optimality conditions to rounding level
    assert sol.primal_residual < 1e-13
    assert sol.dual_residual < 1e-9 and sol.gap < 1e-9
    if diagonal is not None:
        c = resolve_diagonal(diagonal, K)
        np.testing.assert_allclose(np.diag(X), c, rtol=1e-14)
        # two paths to the multiplier: Dykstra's accumulated P_U steps and the least-squares
        # solution of complementarity from X alone
        np.testing.assert_allclose(sol.dual["theta"], sol.certificate["theta"],
                                   atol=1e-7 * max(1.0, np.abs(sol.certificate["theta"]).max()))


def test_sdp_formulation_is_dpp_and_resolves_with_new_K(random_symmetric):
    K1, K2 = random_symmetric(8, 1), random_symmetric(8, 2)
    form = NearestPSDSDP(K1, 1.0, parametric=True)
    assert form.is_dpp()
    assert set(form.parameters) == {"K", "c"} and set(form.constraints) == {"psd", "diagonal"}
    form.set(K=K2)
    ref = solve(form, "SCS", eps_abs=1e-9, eps_rel=1e-9)
    sol = alternating_projections(K2, 1.0, tol=1e-11)
    assert ref.objective == pytest.approx(sol.objective, rel=1e-7)
    assert ref.primal_residual < 1e-7


def test_certificate_detects_a_wrong_point(random_symmetric):
    """The certificate is not vacuous: the clip (PSD, wrong diagonal) and the diagonal
    reset of the clip (right diagonal, not PSD) both fail it."""
    K = random_symmetric(15, 4)
    Xc = project_psd(K)
    cert = nearest_psd_certificate(K, Xc, np.ones(15))
    assert cert["diagonal_violation"] > 1e-2
    Y = project_diagonal(Xc, 1.0)
    cert = nearest_psd_certificate(K, Y, np.ones(15))
    assert cert["psd_violation"] > 1e-3
    # and the optimum passes it
    sol = alternating_projections(K, 1.0, tol=1e-11)
    cert = nearest_psd_certificate(K, sol.primal["X"], np.ones(15))
    assert cert["primal_residual"] < 1e-13 and cert["dual_residual"] < 1e-9


@pytest.mark.parametrize("weights_kind", ["identity", "diagonal", "matrix"])
def test_certificate_complementarity_and_gap_by_their_definitions(weights_kind,
                                                                  random_symmetric):
    """``||X N||_F`` and ``<X, N>`` with ``N = W (K - X) W - Diag(theta)`` formed here, on a
    point far from optimal (a random rank-3 correlation matrix), for the recovered
    ``theta`` and for a given one."""
    n = 12
    K = random_symmetric(n, 5)
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(n, 3))
    X = Z @ Z.T
    X /= np.sqrt(np.outer(np.diag(X), np.diag(X)))
    W = {"identity": None, "diagonal": rng.uniform(0.5, 2.0, n),
         "matrix": (lambda B: B @ B.T + n * np.eye(n))(rng.normal(size=(n, n)))}[weights_kind]
    norm = check_weights(W, n)
    G = norm.sandwich(K - X)
    G = 0.5 * (G + G.T)
    for theta in (None, rng.normal(size=n)):
        cert = nearest_psd_certificate(K, X, np.ones(n), W, theta=theta)
        N = G - np.diag(cert["theta"])
        scale = np.linalg.norm(X) * np.linalg.norm(G)
        assert cert["complementarity"] == pytest.approx(np.linalg.norm(X @ N) / scale,
                                                        rel=1e-12)
        assert cert["complementarity"] > 1e-3
        dres = np.diag(X) - 1.0
        assert cert["gap"] == pytest.approx(abs(-np.sum(X * N) + cert["theta"] @ dres) / scale,
                                            rel=1e-12)


# ------------------------------------------------------------------ the projections
@pytest.mark.parametrize("weights_kind", ["identity", "diagonal", "matrix"])
def test_projections_satisfy_their_optimality_conditions(weights_kind, random_symmetric):
    """Higham's Theorems 3.1 and 3.2 checked by the conditions of each projection.

    ``P = P_S(A)`` in the W-norm iff P PSD, ``W(A - P)W`` NSD and ``<W(A - P)W, P> = 0``;
    ``Y = P_U(A)`` iff ``diag(Y) = c`` and ``W(A - Y)W`` is diagonal.
    """
    n = 10
    A = random_symmetric(n, 8, shift=0.5)
    weights = {"identity": None, "diagonal": np.linspace(0.5, 3.0, n),
               "matrix": random_spd(n, 9)}[weights_kind]
    Wm = check_weights(weights, n).matrix()
    P = project_psd(A, weights)
    G = Wm @ (A - P) @ Wm
    assert np.linalg.eigvalsh(P).min() > -1e-12
    assert np.linalg.eigvalsh(G).max() < 1e-12
    assert abs(np.sum(G * P)) < 1e-11
    c = np.linspace(1.0, 2.0, n)
    Y = project_diagonal(A, c, weights)
    np.testing.assert_allclose(np.diag(Y), c, atol=1e-13)
    G = Wm @ (A - Y) @ Wm
    np.testing.assert_allclose(G - np.diag(np.diag(G)), 0.0, atol=1e-12)
    if weights_kind != "matrix":  # munoz eq. (12): reset the diagonal
        expected = A.copy()
        np.fill_diagonal(expected, c)
        np.testing.assert_allclose(Y, expected, atol=1e-15)


def test_no_diagonal_constraint_is_the_weighted_clip():
    _, _, K = sigmoid_data(30, seed=2)
    sol = alternating_projections(K, None)
    assert sol.solver == "weighted-clip" and sol.iterations == 1
    np.testing.assert_allclose(sol.primal["X"], SpectrumCorrection(correction="clip").fit_transform(K),
                               atol=1e-12)
    w = np.linspace(0.5, 2.0, 30)
    sol = alternating_projections(K, None, w)
    s = np.sqrt(w)
    lam, V = np.linalg.eigh(K * np.outer(s, s))
    by_hand = ((V * np.maximum(lam, 0)) @ V.T) / np.outer(s, s)  # munoz eq. (11)
    np.testing.assert_allclose(sol.primal["X"], by_hand, atol=1e-12)


# ------------------------------------------------------------------ loop behaviour
def test_trace_stopping_rule_and_psd_input():
    _, _, K = sigmoid_data(30, seed=1)
    sol = alternating_projections(K, 1.0, tol=1e-7)
    tr = sol.trace
    assert list(tr.columns) == ["iter", "objective", "change_X", "change_Y", "gap_XY",
                                "criterion", "n_negative", "seconds"]
    assert len(tr) == sol.iterations and tr["iter"].tolist() == list(range(1, len(tr) + 1))
    np.testing.assert_allclose(tr["criterion"], tr[["change_X", "change_Y", "gap_XY"]].max(axis=1))
    assert tr["criterion"].iloc[-1] <= 1e-7 < tr["criterion"].iloc[-2]
    assert tr["seconds"].is_monotonic_increasing
    assert tr["n_negative"].iloc[0] == np.sum(np.linalg.eigvalsh(K) < 0)
    # a PSD matrix with its own diagonal is its own solution, found in one iteration
    Kp = SpectrumCorrection(correction="clip").fit_transform(K) + 0.1 * np.eye(30)
    sol = alternating_projections(Kp, "keep")
    assert sol.iterations == 1
    np.testing.assert_allclose(sol.primal["X"], Kp, atol=1e-12)


@pytest.mark.parametrize("weights_kind", ["identity", "diagonal", "matrix"])
def test_loop_matches_algorithm_3_3_written_out(weights_kind, random_symmetric):
    """The coded loop (single matrix Z, implicit Y for diagonal W) against Higham's
    Algorithm 3.3 written out in original coordinates with munoz's (11)-(12) / Higham's
    Theorem 3.2 projections: same iterates, same stopping-rule terms."""
    n, k = 12, 15
    K = random_symmetric(n, 21, shift=1.0)
    weights = {"identity": None, "diagonal": np.linspace(0.5, 2.0, n),
               "matrix": random_spd(n, 22)}[weights_kind]
    norm = check_weights(weights, n)
    Wm = norm.matrix()
    Winv = np.linalg.inv(Wm)
    c = np.ones(n)

    def P_S(A):
        return project_psd(A, weights)

    def P_U(A):  # Higham Thm 3.2 solved densely
        theta = np.linalg.solve(Winv * Winv, np.diag(A) - c)
        return A - Winv @ np.diag(theta) @ Winv

    dS, Y = np.zeros((n, n)), K.copy()
    X_old, Y_old = K, K
    rows = []
    for _ in range(k):
        R = Y - dS
        X = P_S(R)
        dS = X - R
        Y = P_U(X)
        nX, nY = norm.norm(X), norm.norm(Y)
        rows.append((norm.norm(X - X_old) / nX, norm.norm(Y - Y_old) / nY,
                     norm.norm(X - Y) / nY, norm.norm(K - X)))
        X_old, Y_old = X, Y
    with pytest.warns(ConvergenceWarning):
        sol = alternating_projections(K, c, weights, max_iter=k, tol=1e-14)
    tr = sol.trace[["change_X", "change_Y", "gap_XY", "objective"]].to_numpy()
    np.testing.assert_allclose(tr, np.array(rows), rtol=1e-8, atol=1e-13)
    np.testing.assert_allclose(sol.primal["X_last"], X, atol=1e-12)
    np.testing.assert_allclose(sol.primal["Y"], Y, atol=1e-12)


def test_max_iter_warns_and_still_returns_a_feasible_kernel():
    _, _, K = sigmoid_data(30, seed=1)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        sol = alternating_projections(K, 1.0, max_iter=3)
    assert sol.status == "max_iter" and sol.iterations == 3
    X = sol.primal["X"]
    np.testing.assert_allclose(np.diag(X), 1.0, atol=1e-14)
    assert np.linalg.eigvalsh(X).min() > -1e-12
    with pytest.warns(ConvergenceWarning):
        NearestPSD(diagonal=1.0, max_iter=3).fit(K)


# ------------------------------------------------------------------ the transformer
def test_transformer_training_rows_reproduce_training_block():
    """The "spectral" map reproduces the training block (the default "munoz" does not:
    it gives P_S(K), documented under ``out_of_sample``)."""
    X, y, K = sigmoid_data(40, seed=0)
    assert np.linalg.eigvalsh(K).min() < -0.1  # genuinely indefinite
    for params in [{}, {"diagonal": 1.0}, {"weights": "support-vectors"},
                   {"weights": np.linspace(0.5, 2, 40)}, {"diagonal": None, "solver": "plain"}]:
        tr = NearestPSD(out_of_sample="spectral", **params)
        Kc = tr.fit_transform(K, y)
        np.testing.assert_allclose(tr.transform(K), Kc, atol=1e-8)
        assert np.linalg.eigvalsh(Kc).min() > -1e-12
        assert tr.n_iter_ == tr.trace_["iter"].iloc[-1] and tr.kernel_.shape == (40, 40)
        assert tr.min_eigenvalue_ == pytest.approx(np.linalg.eigvalsh(K).min())
        assert tr.spectrum_.r_neg > 0


def test_transformer_out_of_sample_maps_against_the_clip():
    """``diagonal=None``: both maps are the clip's spectral map (munoz eq. 3)."""
    _, _, K = sigmoid_data(46, seed=3)
    Ktr, Kte = K[:40, :40], K[40:, :40]
    ref = SpectrumCorrection(correction="clip", out_of_sample="spectral").fit(Ktr)
    for oos in ["spectral", "munoz"]:
        tr = NearestPSD(diagonal=None, out_of_sample=oos).fit(Ktr)
        np.testing.assert_allclose(tr.kernel_, ref.transform(Ktr), atol=1e-10)
        np.testing.assert_allclose(tr.transform(Kte), ref.transform(Kte), atol=1e-9)


def test_munoz_map_gives_the_first_projection_on_training_rows():
    """munoz's rule (MDS map in the weighted coordinates) carries training rows to
    P_S(K) of eq. (11), not to the AP result."""
    _, y, K = sigmoid_data(40, seed=0)
    w = np.linspace(0.5, 2.0, 40)
    tr = NearestPSD(weights=w, out_of_sample="munoz").fit(K)
    np.testing.assert_allclose(tr.transform(K), project_psd(K, w), atol=1e-10)
    assert np.max(np.abs(tr.transform(K) - tr.kernel_)) > 1e-2


def test_support_vector_weights():
    _, y, K = sigmoid_data(40, seed=0)
    tr = NearestPSD(weights="support-vectors", sv_weight=5.0, C=2.0).fit(K, y)
    svc = SVC(kernel="precomputed", C=2.0).fit(SpectrumCorrection(correction="clip").fit_transform(K), y)
    np.testing.assert_array_equal(tr.support_, np.sort(svc.support_))
    expected = np.ones(40)
    expected[svc.support_] = 5.0
    np.testing.assert_array_equal(tr.weights_, expected)
    # each solution is the nearest in its own norm
    plain = NearestPSD().fit(K)
    norm_w = check_weights(expected, 40)
    assert norm_w.norm(K - tr.kernel_) <= norm_w.norm(K - plain.kernel_) + 1e-9
    assert np.linalg.norm(K - plain.kernel_) <= np.linalg.norm(K - tr.kernel_) + 1e-9
    with pytest.raises(ValueError, match="needs the labels y"):
        NearestPSD(weights="support-vectors").fit(K)
    with pytest.raises(ValueError, match="2 classes"):
        NearestPSD(weights="support-vectors").fit(K, np.ones(40))


def test_pipeline_cross_val_score():
    X, y, K = sigmoid_data(60, seed=4)
    pipe = make_pipeline(NearestPSD(tol=1e-5), SVC(kernel="precomputed"))
    scores = cross_val_score(pipe, K, y, cv=3)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    tr_idx, te_idx = next(StratifiedKFold(3).split(K, y))
    corr = NearestPSD(tol=1e-5)
    svc = SVC(kernel="precomputed").fit(corr.fit_transform(K[np.ix_(tr_idx, tr_idx)]), y[tr_idx])
    acc = np.mean(svc.predict(corr.transform(K[np.ix_(te_idx, tr_idx)])) == y[te_idx])
    assert scores[0] == pytest.approx(acc)
    # support-vector weights get y through the pipeline
    pipe = make_pipeline(NearestPSD(weights="support-vectors", tol=1e-5), SVC(kernel="precomputed"))
    assert cross_val_score(pipe, K, y, cv=3).shape == (3,)


def test_clone_and_params():
    tr = NearestPSD(diagonal=1.0, solver="plain", tol=1e-5, out_of_sample="munoz", rcond=1e-6)
    c = clone(tr)
    assert c.get_params() == tr.get_params()
    _, _, K = sigmoid_data(20)
    tr.fit(K)
    assert not hasattr(clone(tr), "kernel_")


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("params, match", [
    ({"solver": "nope"}, "'solver' parameter of NearestPSD must be one of"),
    ({"tol": 0.0}, "tol"),
    ({"tol": 1.5}, "tol"),
    ({"max_iter": 0}, "max_iter"),
    ({"max_iter": 2.5}, "max_iter"),
    ({"out_of_sample": "least-squares"}, "out_of_sample"),
    ({"rcond": 0.0}, "rcond"),
    ({"sv_weight": -1.0}, "sv_weight"),
    ({"C": 0.0}, "C"),
    ({"weights": "uniform"}, "weights"),
    ({"weights": np.ones(5)}, "weights"),
    ({"weights": -np.ones(20)}, "weights"),
    ({"weights": np.ones((20, 20))}, "positive definite"),
    ({"weights": np.triu(np.ones((20, 20)))}, "symmetric"),
    ({"diagonal": "unit"}, "diagonal"),
    ({"diagonal": -1.0}, "diagonal"),
    ({"diagonal": np.ones(5)}, "diagonal"),
    ({"diagonal": np.full(20, np.nan)}, "diagonal"),
])
def test_bad_params(params, match):
    _, _, K = sigmoid_data(20)
    tr = NearestPSD(**params)
    with pytest.raises(ValueError, match=match):
        tr.fit(K)
    assert not hasattr(tr, "kernel_")  # nothing half-fitted


def test_bad_kernels_and_rows():
    _, _, K = sigmoid_data(20)
    with pytest.raises(ValueError, match="square"):
        NearestPSD().fit(K[:, :15])
    with pytest.raises(ValueError, match="symmetric"):
        NearestPSD().fit(K + np.triu(np.ones_like(K), 1))
    with pytest.raises(ValueError, match="NaN|inf"):
        NearestPSD().fit(np.where(K > 0.9, np.nan, K))
    Kneg = sigmoid_kernel(np.random.default_rng(0).normal(size=(10, 3)), a=0.1, r=-1.0)
    with pytest.raises(ValueError, match="keep"):
        NearestPSD(diagonal="keep").fit(Kneg)  # tanh(a|x|^2 - 1) < 0 on the diagonal
    NearestPSD(diagonal=1.0).fit(Kneg)  # a fixed positive diagonal is fine
    NearestPSD().fit(Kneg)  # so is the default, the kernel's scale
    tr = NearestPSD().fit(K)
    with pytest.raises(ValueError, match="K_rows"):
        tr.transform(K[:, :5])
    with pytest.raises(ValueError, match="K_rows"):
        tr.transform(np.where(K > 0.5, np.inf, K))
    with pytest.raises(ValueError, match="diagonal"):
        project_diagonal(K, None)
    with pytest.raises(ValueError, match="solver"):
        alternating_projections(K, 1.0, solver="newton")


# ------------------------------------------------------------------ Anderson acceleration
@pytest.mark.parametrize("weights_kind", ["identity", "diagonal", "matrix"])
def test_anderson_reaches_the_same_point_in_fewer_iterations(weights_kind):
    _, _, K = sigmoid_data(40, seed=5)
    n = 40
    weights = {"identity": None, "diagonal": np.linspace(0.5, 2.0, n),
               "matrix": random_spd(n, 11)}[weights_kind]
    dyk = alternating_projections(K, 1.0, weights, tol=1e-10, max_iter=20000)
    aa = alternating_projections(K, 1.0, weights, solver="anderson", tol=1e-10, max_iter=20000)
    assert aa.status == "converged" and aa.solver == "dykstra-anderson"
    assert aa.iterations < dyk.iterations / 2
    np.testing.assert_allclose(aa.primal["X"], dyk.primal["X"], atol=1e-7)
    assert aa.objective == pytest.approx(dyk.objective, rel=1e-10)
    assert aa.primal_residual < 1e-13 and aa.dual_residual < 1e-8 and aa.gap < 1e-8
    np.testing.assert_allclose(aa.dual["theta"], aa.certificate["theta"], atol=1e-6)
    with pytest.raises(ValueError, match="anderson_depth"):
        alternating_projections(K, 1.0, solver="anderson", anderson_depth=0)


def test_registered_method_maps_new_rows_stably():
    """The registry's ``nearest-psd`` maps test rows by munoz's rule, whose row map is a
    projection in the weighted coordinates: ``||row_map_||_2 <= sqrt(max w / min w)``
    (``D_w^(1/2) P D_w^(-1/2)``), however small the least eigenvalue of K.  The
    ``"spectral"`` map ``K^+ X`` amplifies a row that is not in the span of the training
    rows by ``1 / |lam|``: on classical-scaling kernels of many-class data (gauss14) its
    test accuracy is near chance."""
    from krein.registry import make_method

    rng = np.random.default_rng(3)
    n = 40
    V, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = np.concatenate([[-2.0, -1.0, -0.5], np.geomspace(1e-9, 5.0, n - 3)])
    K = (V * lam) @ V.T
    K = 0.5 * (K + K.T)
    y = np.where(V[:, -1] + 0.3 * V[:, -2] > 0, 1, -1)
    est = make_method("nearest-psd", kernel="precomputed").fit(K, y)
    T = est.correction_
    bound = np.sqrt(T.sv_weight) * (1 + 1e-9)
    assert np.linalg.norm(T.row_map_, 2) <= bound
    # a training row moved by E moves by at most bound * ||E||
    E = 1e-6 * rng.normal(size=(3, n))
    moved = T.transform(K[:3] + E) - T.transform(K[:3])
    assert np.linalg.norm(moved) <= bound * np.linalg.norm(E)


def test_default_fits_a_kernel_with_negative_self_similarities():
    """Sonar's kernel of ``krein compare`` (sigmoid, r = -2) has 22 negative diagonal
    entries, which no PSD matrix can keep: the default diagonal is the kernel's scale,
    so ``CorrectedKernelSVC(NearestPSD())`` fits it (as the registered nearest-psd does),
    and the default map of new rows is munoz's rule, as the registry's."""
    from sklearn.model_selection import StratifiedKFold

    from krein.estimators import CorrectedKernelSVC
    from krein.kernel_data import load_kernel_data
    from krein.kernels import kernel_scale

    data = load_kernel_data("sonar")
    K, y = data.K, data.y
    assert np.sum(np.diag(K) < 0) > 0
    with pytest.raises(ValueError, match="negative diagonal"):
        NearestPSD(diagonal="keep").fit(K)
    tr, te = next(StratifiedKFold(5, shuffle=True, random_state=0).split(K, y))
    Ktr = K[np.ix_(tr, tr)]
    est = CorrectedKernelSVC(kernel="precomputed", correction=NearestPSD()).fit(Ktr, y[tr])
    fitted = est.correction_
    np.testing.assert_allclose(np.diag(fitted.kernel_), kernel_scale(Ktr), rtol=1e-6)
    assert np.linalg.eigvalsh(fitted.kernel_).min() > -1e-9 * kernel_scale(Ktr)
    assert fitted.out_of_sample == "munoz"
    assert est.score(K[np.ix_(te, tr)], y[te]) > 0.6
