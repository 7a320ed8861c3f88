"""Semismooth Newton for the nearest PSD matrix with a fixed diagonal (Qi & Sun 2006).

Independent checks (krein/solvers/psd_newton.py):

* published/closed-form values: Higham's (2002) 3 x 3 example
  ``A = [[1, 1, 0], [1, 1, 1], [0, 1, 1]]``, whose nearest correlation matrix has
  a closed form (derived in ``tests/test_nearest_psd.py``); a kernel whose clip
  already has the required diagonal (constraint inactive: the answer is the clip);
* two paths to one number: Newton against Dykstra's iteration (Higham 2002,
  Algorithm 3.3) and against the CVXPY SDP of munoz (9), with identity and
  diagonal weights; the lower bound ``X >= tau I`` against a CVXPY SDP written
  here;
* certificates: the KKT conditions from ``X`` alone
  (:func:`nearest_psd_certificate`), the Newton multiplier ``-w o y`` against the
  one recovered there, and the duality gap of Qi and Sun's dual;
* bad input: each error names its argument.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from krein.estimators.nearest_psd import NearestPSD
from krein.formulations.nearest_psd import NearestPSDSDP, resolve_diagonal
from krein.kernels import sigmoid_kernel
from krein.solvers import nearest_psd_newton, solve
from krein.solvers.alternating import alternating_projections
from krein.solvers.psd_newton import NEWTON_TRACE_COLUMNS
from krein.spectrum import SpectrumCorrection

HIGHAM_A = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])


def sigmoid_unit(n, seed=0):
    """Indefinite sigmoid kernel scaled to unit diagonal."""
    K = sigmoid_kernel(np.random.default_rng(seed).normal(size=(n, 5)), a=0.3, r=0.5)
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


def test_higham_example(higham_closed_form):
    X_ref, dist_ref = higham_closed_form()
    sol = nearest_psd_newton(HIGHAM_A, 1.0, tol=1e-12)
    X = sol.primal["X"]
    assert sol.status == "converged" and sol.solver == "newton" and sol.iterations <= 6
    np.testing.assert_allclose(X, X_ref, atol=1e-12)
    assert sol.objective == pytest.approx(dist_ref, abs=1e-13)
    # Higham (2002): X_12 = 0.760689917, ||A - X||_F = 0.52779033 (published digits,
    # within 1e-7 and 2e-7 of the closed form: see test_nearest_psd.py)
    assert X[0, 1] == pytest.approx(0.760689917, abs=1e-7)
    assert sol.objective == pytest.approx(0.52779033, abs=2e-7)
    np.testing.assert_array_equal(np.diag(X), 1.0)
    assert np.linalg.eigvalsh(X).min() > -1e-14
    assert sol.primal_residual < 1e-14 and sol.dual_residual < 1e-12 and sol.gap < 1e-12
    cert = sol.certificate
    assert abs(cert["duality_gap"]) < 1e-13 and cert["dual_value"] <= cert["primal_value"] + 1e-14
    np.testing.assert_allclose(sol.dual["theta"], cert["theta"], atol=1e-10)


@pytest.mark.parametrize("weights_kind", ["identity", "diagonal"])
@pytest.mark.parametrize("diagonal", [1.0, "keep", "array", None])
def test_newton_equals_dykstra_and_sdp(weights_kind, diagonal, random_symmetric):
    n = 20
    K = random_symmetric(n, seed=3)
    rng = np.random.default_rng(7)
    weights = None if weights_kind == "identity" else rng.uniform(0.5, 2.0, n)
    if diagonal == "array":
        diagonal = rng.uniform(0.5, 2.0, n)
    sol = nearest_psd_newton(K, diagonal, weights, tol=1e-12)
    assert sol.status == "converged"
    dyk = alternating_projections(K, diagonal, weights, solver="anderson", tol=1e-12,
                                  max_iter=5000)
    X = sol.primal["X"]
    np.testing.assert_allclose(X, dyk.primal["X"], atol=1e-9)
    assert sol.objective == pytest.approx(dyk.objective, rel=1e-12)
    ref = solve(NearestPSDSDP(K, diagonal, weights), "SCS", eps_abs=1e-9, eps_rel=1e-9,
                max_iters=200000)
    np.testing.assert_allclose(X, ref.primal["X"], atol=1e-7)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-8)
    assert sol.primal_residual < 1e-13 and sol.dual_residual < 1e-10 and sol.gap < 1e-10
    if diagonal is not None:
        np.testing.assert_allclose(np.diag(X), resolve_diagonal(diagonal, K), rtol=1e-15)
        np.testing.assert_allclose(sol.dual["theta"], sol.certificate["theta"], atol=1e-8)
        assert abs(sol.certificate["relative_duality_gap"]) < 1e-12


def test_inactive_diagonal_constraint_gives_the_clip():
    """K = X0 + N, X0 PSD and N NSD on orthogonal ranges: the clip of K is X0; asking for
    diag(X0) makes the constraint inactive (multiplier 0), so the answer is the clip."""
    n = 30
    rng = np.random.default_rng(4)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    X0 = (Q[:, :8] * rng.uniform(1, 3, 8)) @ Q[:, :8].T
    K = X0 - (Q[:, 8:] * rng.uniform(0.1, 1, n - 8)) @ Q[:, 8:].T
    c = np.diag(X0).copy()
    sol = nearest_psd_newton(K, c, tol=1e-12)
    np.testing.assert_allclose(sol.primal["X"], SpectrumCorrection(correction="clip").fit_transform(K),
                               atol=1e-10)
    np.testing.assert_allclose(sol.dual["y"], 0.0, atol=1e-10)
    # diagonal=None is the clip itself, one eigendecomposition
    clip = nearest_psd_newton(K, None)
    assert clip.solver == "weighted-clip" and clip.iterations == 0
    np.testing.assert_allclose(clip.primal["X"], X0, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_lower_bound_tau_against_cvxpy(weighted, random_symmetric):
    n, tau = 12, 0.1
    K = random_symmetric(n, seed=9, shift=0.5)
    w = np.linspace(0.5, 2.0, n) if weighted else None
    sol = nearest_psd_newton(K, 1.0, w, tau=tau, tol=1e-12)
    X = sol.primal["X"]
    assert np.linalg.eigvalsh(X).min() >= tau - 1e-12
    np.testing.assert_allclose(np.diag(X), 1.0, rtol=1e-15)
    Xv = cp.Variable((n, n), symmetric=True)
    s = np.ones(n) if w is None else np.sqrt(w)
    obj = cp.norm(cp.multiply(np.outer(s, s), K - Xv), "fro")
    cp.Problem(cp.Minimize(obj), [Xv - tau * np.eye(n) >> 0, cp.diag(Xv) == 1]).solve(
        "SCS", eps_abs=1e-9, eps_rel=1e-9, max_iters=200000)
    np.testing.assert_allclose(X, Xv.value, atol=1e-6)
    assert sol.dual_residual < 1e-10 and sol.certificate["relative_duality_gap"] < 1e-12
    # the bound is active: the PSD answer has a smaller least eigenvalue
    assert np.linalg.eigvalsh(nearest_psd_newton(K, 1.0, w).primal["X"]).min() < tau / 2


def test_agrees_with_anderson_on_a_kernel_and_converges_fast():
    K = sigmoid_unit(150)
    sol = nearest_psd_newton(K, 1.0, tol=1e-10)
    aa = alternating_projections(K, 1.0, solver="anderson", tol=1e-10, max_iter=5000)
    assert sol.iterations <= 12 and sol.certificate["eigh"] <= 2 * sol.iterations + 1
    np.testing.assert_allclose(sol.primal["X"], aa.primal["X"], atol=1e-7)
    assert sol.objective == pytest.approx(aa.objective, rel=1e-10)
    tr = sol.trace
    assert list(tr.columns) == list(NEWTON_TRACE_COLUMNS)
    assert tr["iter"].tolist() == list(range(sol.iterations + 1))
    assert tr["gradient"].iloc[-1] <= 1e-10 < tr["gradient"].iloc[-2]
    assert tr["dual_value"].is_monotonic_increasing          # Armijo: theta decreases
    assert tr["eigh"].iloc[-1] == sol.certificate["eigh"]
    # weak duality at the returned feasible point
    assert -1e-12 <= sol.certificate["relative_duality_gap"] < 1e-10


def test_max_iter_warns_and_returns_a_feasible_kernel():
    K = sigmoid_unit(40)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        sol = nearest_psd_newton(K, 1.0, max_iter=1)
    assert sol.status == "max_iter" and sol.iterations == 1
    X = sol.primal["X"]
    np.testing.assert_array_equal(np.diag(X), 1.0)
    assert np.linalg.eigvalsh(X).min() > -1e-12
    assert sol.certificate["duality_gap"] > 0


def test_zero_diagonal_gives_zero(random_symmetric):
    sol = nearest_psd_newton(random_symmetric(6, 1), 0.0)
    np.testing.assert_array_equal(sol.primal["X"], 0.0)


def test_estimator_default_and_solver_choice():
    K = sigmoid_unit(40)
    rng = np.random.default_rng(0)
    M = rng.normal(size=(40, 40))
    W = M @ M.T / 40 + np.eye(40)
    for weights in (None, np.linspace(0.5, 2.0, 40)):
        auto = NearestPSD(diagonal=1.0, weights=weights, tol=1e-10).fit(K)
        dyk = NearestPSD(diagonal=1.0, weights=weights, solver="dykstra", tol=1e-10,
                         max_iter=20000).fit(K)
        assert auto.solution_.solver == "newton"
        np.testing.assert_allclose(auto.kernel_, dyk.kernel_, atol=1e-7)
    assert NearestPSD(diagonal=1.0, weights=W).fit(K).solution_.solver == "dykstra"
    with pytest.raises(ValueError, match="weights"):
        NearestPSD(diagonal=1.0, weights=W, solver="newton").fit(K)


@pytest.mark.parametrize("kwargs, match", [
    ({"tau": -1.0}, "tau"),
    ({"tau": float("nan")}, "tau"),
    ({"tau": 2.0}, "diagonal"),
    ({"tol": 0.0}, "tol"),
    ({"tol": True}, "tol"),
    ({"max_iter": 0}, "max_iter"),
    ({"cg_max_iter": 1.5}, "cg_max_iter"),
    ({"weights": -np.ones(5)}, "weights"),
    ({"weights": np.eye(5) + 0.1}, "weights"),
    ({"diagonal": "unit"}, "diagonal"),
    ({"diagonal": -1.0}, "diagonal"),
])
def test_bad_input_names_the_argument(kwargs, match, random_symmetric):
    K = random_symmetric(5, 2)
    kwargs = {"diagonal": 1.0, **kwargs}
    diagonal = kwargs.pop("diagonal")
    with pytest.raises(ValueError, match=match):
        nearest_psd_newton(K, diagonal, **kwargs)


def test_bad_kernel():
    with pytest.raises(ValueError, match="K must be a square"):
        nearest_psd_newton(np.ones((3, 4)), 1.0)
    with pytest.raises(ValueError, match="K contains NaN"):
        nearest_psd_newton(np.full((3, 3), np.nan), 1.0)


def perturbed_correlation(n, seed=0, alpha=0.1):
    """A random correlation matrix (geometric eigenvalues 1 ... 1e-3) plus ``alpha E``,
    ``E`` symmetric uniform on [-1, 1], unit diagonal (Qi & Sun 2006's kind of test matrix)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = np.geomspace(1.0, 1e-3, n)
    C = (Q * (lam * n / lam.sum())) @ Q.T
    d = np.sqrt(np.diag(C))
    C /= np.outer(d, d)
    E = rng.uniform(-1.0, 1.0, size=(n, n))
    K = C + alpha * (np.triu(E) + np.triu(E, 1).T)
    np.fill_diagonal(K, 1.0)
    return K


def test_estimator_takes_one_eigendecomposition_per_newton_step():
    """NearestPSD(diagonal=1.0) on a perturbed correlation matrix: unit steps, one
    ``eigh`` per step (the first iterate is K, whose spectrum the estimator has), a
    handful of CG steps each (measured: 4 steps, CG 2, 2, 3, 2)."""
    K = perturbed_correlation(200)
    est = NearestPSD(diagonal=1.0, tol=1e-8).fit(K)
    sol, tr = est.solution_, est.trace_
    assert sol.status == "converged" and est.n_iter_ <= 5
    assert tr["step"].iloc[1:].eq(1.0).all()
    assert sol.certificate["eigh"] == est.n_iter_ and tr["eigh"].iloc[0] == 0
    assert tr["cg_iterations"].sum() <= 3 * est.n_iter_
    assert tr["gradient"].iloc[-1] <= 1e-8


def test_estimator_against_cvxpy_sdp():
    """NearestPSD(diagonal=1.0) (its spectrum serving the first Newton iterate) against
    the CVXPY SDP of munoz (9) with SCS."""
    K = perturbed_correlation(30, seed=3, alpha=0.3)
    est = NearestPSD(diagonal=1.0, tol=1e-10).fit(K)
    ref = solve(NearestPSDSDP(K, 1.0), "SCS", eps_abs=1e-9, eps_rel=1e-9, max_iters=200000)
    np.testing.assert_allclose(est.kernel_, ref.primal["X"], atol=1e-6)
    assert est.distance_ == pytest.approx(ref.objective, rel=1e-7)
    assert est.distance_ <= ref.objective * (1 + 1e-9)   # SCS's X is feasible only to 1e-9


def test_given_spectrum_serves_the_first_iterate_only_when_it_is_K():
    K = sigmoid_unit(80)
    spec = np.linalg.eigh(K)
    plain = nearest_psd_newton(K, 1.0, tol=1e-10)
    given = nearest_psd_newton(K, 1.0, tol=1e-10, spectrum=spec)
    assert given.certificate["eigh"] == plain.certificate["eigh"] - 1
    assert (plain.trace["eigh"].iloc[0], given.trace["eigh"].iloc[0]) == (1, 0)
    np.testing.assert_allclose(given.primal["X"], plain.primal["X"], atol=1e-10)
    # no diagonal constraint: the clip from the given spectrum, no eigendecomposition
    clip = nearest_psd_newton(K, None, spectrum=spec)
    assert clip.certificate["eigh"] == 0
    lam, V = spec
    np.testing.assert_allclose(clip.primal["X"], (V * np.maximum(lam, 0)) @ V.T, atol=1e-12)
    # the first iterate is not K: diag(K) != c, weights, tau > 0
    for kwargs in ({"diagonal": 2.0}, {"diagonal": 1.0, "weights": np.linspace(1, 2, 80)},
                   {"diagonal": 1.0, "tau": 0.01}):
        with_spec = nearest_psd_newton(K, tol=1e-10, spectrum=spec, **kwargs)
        without = nearest_psd_newton(K, tol=1e-10, **kwargs)
        assert with_spec.certificate["eigh"] == without.certificate["eigh"]
        np.testing.assert_array_equal(with_spec.primal["X"], without.primal["X"])
    with pytest.raises(ValueError, match="spectrum"):
        nearest_psd_newton(K, 1.0, spectrum=(spec[0][:-1], spec[1]))
    with pytest.raises(ValueError, match="spectrum"):
        nearest_psd_newton(K, 1.0, spectrum=spec[0])
