"""The fast low-rank paths of KSVC and IndefiniteSVC: the same problems, the same certificates.

KSVM (``krein/solvers/ksvm_ipm.py``): the primal-dual interior point on the low-rank
factor solves the problem of :class:`krein.formulations.ksvm.KSVMLeastSquaresFactor`;
checked against CLARABEL on that very problem (the old approximate path): the optimal
value to the solvers' tolerance, ``v = Psi'(y alpha)`` within the distance that strong
convexity in ``v`` allows for that tolerance, the points strictly inside the box, the
intercept, and krein's KKT residual of (26).  At full rank the estimator's default
approximate path gives the exact active set's decision values.  The default approximate
path is the interior point (recorded ``solver_`` and ``solution_``), converges in a
bounded number of iterations on a consistent problem with every point free, and forms
no n x n array.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from krein import IndefiniteNystroem
from krein.estimators import KSVC
from krein.formulations.ksvm import KSVMLeastSquaresFactor, ksvm_kkt_residual_factor
from krein.solvers import solve
from krein.solvers.ksvm import ksvm_intercept_from_scores
from krein.solvers.ksvm_ipm import ksvm_factor_data, ksvm_interior_point

#: A strongly indefinite sigmoid kernel on Gaussian points.
KP = {"a": 0.3, "r": -0.5}

#: The CVXPY path's rounding of alpha (krein.estimators.ksvm._CVXPY_BOUND_RTOL).
BOUND_RTOL = 1e-6


def _features(n, rank, seed=0, d=10):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    ny = IndefiniteNystroem(kernel_params=KP, n_components=rank, random_state=seed).fit(X)
    Psi = ny.transform(X)
    return Psi, np.sign(ny.eigenvalues_), y


def _rounded(alpha, C):
    alpha = np.clip(alpha, 0.0, C)
    alpha[alpha <= BOUND_RTOL * C] = 0.0
    return alpha


def _free(alpha, C):
    return (alpha > BOUND_RTOL * C) & (alpha < (1.0 - BOUND_RTOL) * C)


# ---------------------------------------------------------------------------- the problem
@pytest.mark.parametrize("n,rank,C", [
    (60, 40, 1.0),          # n ~ r: bounds active, objective above its floor
    (400, 30, 1.0),         # n >> r: consistent, every point free
    (150, 40, 0.05),        # a small box: most points at C
    (150, 40, "balanced"),  # per-sample bounds (class_weight)
], ids=["bounds-active", "consistent", "small-box", "per-sample"])
def test_interior_point_solves_clarabels_problem(n, rank, C):
    Psi, S, y = _features(n, rank)
    if C == "balanced":
        C = np.where(y > 0, n / (2.0 * np.sum(y > 0)), n / (2.0 * np.sum(y < 0)))
    f = KSVMLeastSquaresFactor(Psi, S, y, C=C)
    ref = solve(f, "CLARABEL", certificate_kind="kkt_residual")
    a_ref = np.asarray(f.variables["alpha"].value, dtype=float)
    sol = ksvm_interior_point(Psi, S, y, C)
    assert sol.status == "optimal" and sol.certificate_kind == "kkt_residual"
    a_ipm = sol.primal["alpha"]
    # the optimal value of (26), to the solvers' gap tolerances (1e-8 each, objective units)
    assert sol.objective == pytest.approx(ref.certificate["objective"], rel=1e-9, abs=1e-7)
    # v is unique: ||R S v - Q'y||^2 is strongly convex in v with modulus lambda_min(Psi'Psi),
    # so two points within eps of the optimal value are within 2 sqrt(eps / lambda_min)
    lam_min = float(np.linalg.eigvalsh(Psi.T @ Psi)[0])
    v_ref, v_ipm = Psi.T @ (y * a_ref), sol.primal["v"]
    assert np.linalg.norm(v_ipm - v_ref) <= 2.0 * np.sqrt(1e-7 / lam_min)
    # krein's certificate of (26), from scratch, at the rounded points of the estimator:
    # the interior point's within a small factor of CLARABEL's at the same tolerances
    Cv = np.broadcast_to(C, (n,))
    kkt, kkt_ref = (ksvm_kkt_residual_factor(Psi, S, y, C, _rounded(a, Cv))["residual"]
                    for a in (a_ipm, a_ref))
    assert kkt <= max(1e-6, 5.0 * kkt_ref)
    assert sol.certificate["kkt_residual"] == pytest.approx(
        ksvm_kkt_residual_factor(Psi, S, y, C, a_ipm)["residual"], rel=1e-12)
    # the same points strictly inside the box, hence the same intercept
    np.testing.assert_array_equal(_free(_rounded(a_ipm, Cv), Cv), _free(_rounded(a_ref, Cv), Cv))
    b = [ksvm_intercept_from_scores(Psi @ (S * (Psi.T @ (y * a))), y, a, C, BOUND_RTOL)
         for a in (_rounded(a_ref, Cv), _rounded(a_ipm, Cv))]
    assert b[1] == pytest.approx(b[0], abs=1e-6)


def test_factor_data_is_the_objective():
    """1/2 |F'alpha - g|^2 + const = ||G alpha - 1||^2 with G = Y Psi S Psi' Y, any alpha."""
    Psi, S, y = _features(50, 20)
    F, g, const = ksvm_factor_data(Psi, S, y)
    alpha = np.random.default_rng(1).uniform(0, 1, y.size)
    G = (y[:, None] * (Psi * S) @ Psi.T) * y[None, :]
    assert 0.5 * np.sum((F.T @ alpha - g) ** 2) + const == pytest.approx(
        np.sum((G @ alpha - 1.0) ** 2), rel=1e-10)
    np.testing.assert_allclose(F @ F.T, 2.0 * G @ G, atol=1e-9 * np.max(np.abs(G @ G)))


def test_consistent_problem_converges_with_every_point_free():
    """n >> r: the optimal value is the floor ||y||^2 - ||Q'y||^2, every multiplier of the
    box vanishes and D -> 0; the steps reach the tolerances in few iterations."""
    Psi, S, y = _features(3000, 40)
    sol = ksvm_interior_point(Psi, S, y, 1.0)
    F, g, const = ksvm_factor_data(Psi, S, y)
    assert sol.status == "optimal" and sol.iterations <= 30
    assert sol.objective == pytest.approx(const, rel=1e-9)
    assert np.all(_free(_rounded(sol.primal["alpha"], 1.0), 1.0))
    assert sol.certificate["kkt_residual"] <= 1e-6


# ---------------------------------------------------------------------------- the estimator
def test_default_approximate_path_is_the_interior_point():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 10))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    est = KSVC(kernel="sigmoid", kernel_params=KP,
               approximation=IndefiniteNystroem(n_components=40, random_state=0)).fit(X, y)
    assert est.solver_ == "interior-point"
    assert len(est.solutions_) == 3
    assert all(s.solver == "ksvm-interior-point" and s.status == "optimal"
               and s.iterations <= 40 for s in est.solutions_)
    assert np.all(est.kkt_residual_ <= 1e-6)
    # the CVXPY path on the same features: the same decisions
    ref = KSVC(kernel="sigmoid", kernel_params=KP, solver="CLARABEL",
               approximation=IndefiniteNystroem(n_components=40, random_state=0)).fit(X, y)
    d, d_ref = est.decision_function(X), ref.decision_function(X)
    assert np.max(np.abs(d - d_ref)) <= 1e-5 * np.max(np.abs(d_ref))
    np.testing.assert_allclose(est.objective_, ref.objective_, rtol=1e-8)


def test_full_rank_default_path_is_the_exact_active_set():
    rng = np.random.default_rng(0)
    n = 120
    X = rng.standard_normal((n, 10))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    Xt = rng.standard_normal((40, 10))
    kw = dict(C=1.0, kernel="sigmoid", kernel_params=KP)
    exact = KSVC(tol=1e-10, **kw).fit(X, y)
    approx = KSVC(approximation=IndefiniteNystroem(n_components=n, random_state=0), **kw).fit(X, y)
    assert approx.solver_ == "interior-point"
    e, a = exact.decision_function(Xt), approx.decision_function(Xt)
    assert np.max(np.abs(e - a)) <= 1e-6 * np.max(np.abs(e))
    assert approx.objective_[0] == pytest.approx(exact.objective_[0], rel=1e-6)


def test_interior_point_needs_an_approximation():
    X = np.random.default_rng(0).standard_normal((30, 3))
    y = np.arange(30) % 2
    with pytest.raises(ValueError, match="low-rank factor"):
        KSVC(solver="interior-point").fit(X, y)
    with pytest.raises(ValueError, match="unknown key"):
        KSVC(solver_options={"rcond": 1e-3},
             approximation=IndefiniteNystroem(n_components=10)).fit(X, y)


def test_no_n_by_n_array():
    """At n = 12000 an n x n array is 1.15 GB; the fit's traced peak stays below 5 % of it."""
    n = 12000
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, (n, 2))
    y = ((np.floor(2 * X[:, 0]) + np.floor(2 * X[:, 1])) % 2).astype(int)
    est = KSVC(kernel="sigmoid", kernel_params=KP,
               approximation=IndefiniteNystroem(n_components=40, random_state=0))
    tracemalloc.start()
    try:
        est.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert est.solutions_[0].solver == "ksvm-interior-point"
    assert peak < 0.05 * 8 * n * n


# ---------------------------------------------------------------------------- IndefiniteSVM
def _isvm_problem(n=2000, rank=30, seed=3):
    from krein.formulations.indefinite import ProxyKernelProblem
    from krein.representation import SignedFeatures

    Psi, S, y = _features(n, rank, seed=seed)
    lam = S * np.sum(Psi * Psi, axis=0)          # Psi'Psi = diag(|lam|) for the eigenfeatures
    rep = SignedFeatures(Psi, S, eigenvalues=lam, check_input=False)
    return ProxyKernelProblem(rep, y, C=1.0, rho=1.0)


@pytest.mark.parametrize("solver", ["pg", "apg"])
def test_low_rank_gap_checks_within_reach_keep_the_certificate(monkeypatch, solver):
    """Gap checks (liblinear on the proxy kernel's features) only within twice the
    tolerance, then within what the last check took off the gap: the loop meets the same
    certified relative gap as with checks within 4x, at the same or a later iterate,
    with no more checks; the iterates do not depend on the checks, so a loop that stops
    at the same iteration returns the same point."""
    import krein.solvers.indefinite.certifier as certifier
    from krein.solvers import solve_indefinite

    assert certifier._LINEAR_REACH == 2.0
    P = _isvm_problem()
    tol = 1e-3
    fast = solve_indefinite(P, solver, tol=tol, gap_every=10)
    # the previous rule: a fixed factor 4 (a failed check leaves the reach at 4)
    monkeypatch.setattr(certifier, "_LINEAR_REACH", 4.0)
    monkeypatch.setattr(certifier.Certifier, "_linear_reach", 4.0, raising=False)
    original = certifier.Certifier._linear_bound

    def fixed_reach(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        self._linear_reach = 4.0
        return out

    monkeypatch.setattr(certifier.Certifier, "_linear_bound", fixed_reach)
    wide = solve_indefinite(P, solver, tol=tol, gap_every=10)
    for sol in (fast, wide):
        assert sol.status == "optimal"
        assert sol.certificate["upper"] - sol.certificate["lower"] <= \
            tol * sol.certificate["scale"]
    assert fast.iterations >= wide.iterations
    assert fast.certificate["n_libsvm"] <= wide.certificate["n_libsvm"]
    if fast.iterations == wide.iterations:
        np.testing.assert_array_equal(fast.primal["u"], wide.primal["u"])


def test_no_low_rank_gap_check_out_of_reach():
    """A loop stopped far from the tolerance makes no liblinear check in the loop (the
    Frank-Wolfe gap is beyond twice the tolerance), only the one at the returned point."""
    from krein.solvers import solve_indefinite

    P = _isvm_problem()
    with pytest.warns(Warning):
        sol = solve_indefinite(P, "pg", tol=1e-9, atol=0.0, max_iter=20, gap_every=1)
    assert sol.status == "max_iter"
    assert sol.certificate["n_libsvm"] <= 1
