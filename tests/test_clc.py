"""Conformal linear combination (Munoz & de Diego 2006, eqs. 15-16) and the AKM baseline."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from krein.combinations import pick_out, projection_kernels, stack_kernels
from krein.datasets import make_munoz_artificial
from krein.estimators.clc import ConformalLinearCombination
from krein.formulations.clc import (ConformalLinearCombinationQP, clc_closed_form,
                                    clc_objective, kernel_inner_products,
                                    simplex_optimality_gap)
from krein.kernels import gaussian_kernel, linear_kernel, sigmoid_kernel
from krein.solvers import SolverError, solve


def _frob2(A):
    return float(np.sum(A * A))


@pytest.fixture(scope="module")
def munoz_stack():
    """The munoz §4.1 setting: pick-out of the two linear coordinate kernels (indefinite)."""
    X, y = make_munoz_artificial(80, random_state=0)
    B = projection_kernels(X)
    return stack_kernels(pick_out(B, y), B), y


@pytest.fixture(scope="module")
def four_kernels():
    """Four PSD kernels and an indefinite target near (not in) their convex hull."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    base = np.stack([gaussian_kernel(X, gamma=0.1), gaussian_kernel(X, gamma=1.0),
                     linear_kernel(X) / 3.0, gaussian_kernel(X, gamma=3.0)], axis=-1)
    K = sigmoid_kernel(X, a=0.5, r=0.3)
    assert np.linalg.eigvalsh(K)[0] < -1e-3
    return K, base


# --------------------------------------------------------------------------- eq. (16) vs QP
@pytest.mark.parametrize("case", ["interior", "above", "below"])
def test_closed_form_equals_qp_for_two_kernels(munoz_stack, case):
    S, _ = munoz_stack
    K1, K2 = S[:, :, 1], S[:, :, 2]
    if case == "interior":
        K, unconstrained = S[:, :, 0], None
    elif case == "above":    # the unconstrained optimum of (16) is beta_1 = 2: off the simplex
        K, unconstrained = 2.0 * K1 - K2, 2.0
    else:                    # beta_1 = -0.5
        K, unconstrained = -0.5 * K1 + 1.5 * K2, -0.5
    # eq. (16) straight from the matrices (not through the Gram matrix)
    raw = np.sum((K1 - K2) * (K - K2)) / _frob2(K1 - K2)
    if unconstrained is not None:
        assert raw == pytest.approx(unconstrained, rel=1e-9)
    expected = float(np.clip(raw, 0.0, 1.0))
    Sx = stack_kernels(K, S[:, :, 1:])
    cf = ConformalLinearCombination(solver="closed-form").fit(Sx)
    qp = ConformalLinearCombination(solver="CLARABEL").fit(Sx)
    assert cf.solver_ == "closed-form" and qp.solver_ == "CLARABEL"
    assert cf.weights_[0] == pytest.approx(expected, abs=1e-12)
    np.testing.assert_allclose(qp.weights_, cf.weights_, atol=1e-6)
    np.testing.assert_allclose(cf.weights_.sum(), 1.0)
    # a brute-force scan of the segment finds nothing better (objective from the matrices)
    grid = np.linspace(0, 1, 2001)
    scan = [_frob2(K - b * K1 - (1 - b) * K2) for b in grid]
    best = _frob2(K - cf.kernel_)
    assert best <= min(scan) * (1 + 1e-12) + 1e-9
    assert cf.objective_ == pytest.approx(best, rel=1e-8, abs=1e-6)
    assert qp.objective_ == pytest.approx(best, rel=1e-6, abs=1e-6)
    assert cf.gap_ <= 1e-12 and qp.gap_ <= 1e-7
    # "auto" uses the closed form for two kernels
    assert ConformalLinearCombination().fit(Sx).solver_ == "closed-form"


def test_closed_form_degenerate_equal_kernels():
    G = np.array([[4.0, 4.0], [4.0, 4.0]])
    np.testing.assert_array_equal(clc_closed_form(G, np.array([1.0, 1.0])), [0.5, 0.5])
    with pytest.raises(ValueError, match="two kernels"):
        clc_closed_form(np.eye(3), np.ones(3))


# --------------------------------------------------------------------------- QP, M > 2
#: Weight tolerance per solver against CLARABEL (interior point, 1e-8 defaults).  ECOS
#: stops at about 1e-6 relative gap on this scaled problem; OSQP (ADMM, eps 1e-5) polishes
#: to the active set; SCS (first-order conic, eps 1e-4 by default) is the loosest.
SOLVER_TOL = {"CLARABEL": 1e-6, "ECOS": 1e-4, "OSQP": 1e-4, "SCS": 1e-3}


def test_qp_optimal_by_kkt_and_independent_optimizer(four_kernels):
    K, base = four_kernels
    est = ConformalLinearCombination(solver="CLARABEL").fit(stack_kernels(K, base))
    beta = est.weights_
    assert est.n_kernels_ == 4 and est.solution_.status == "optimal"
    assert np.all(beta >= 0) and beta.sum() == pytest.approx(1.0)
    assert 1 <= np.count_nonzero(beta > 1e-6) < 4      # the constraints matter here
    # KKT of the simplex QP from the matrices: gradient 2 <sum b_l K_l - K, K_m> equal to its
    # minimum on the support, not below it elsewhere
    grad = np.array([2 * np.sum((est.kernel_ - K) * base[:, :, m]) for m in range(4)])
    scale = max(_frob2(base[:, :, m]) for m in range(4))
    support = beta > 1e-6
    assert np.ptp(grad[support]) <= 1e-6 * scale
    assert np.all(grad[~support] >= grad[support].min() - 1e-6 * scale)
    # an independent optimizer (SLSQP on the matrix objective) reaches no lower value
    f = lambda b: _frob2(K - np.tensordot(base, b, axes=([2], [0])))  # noqa: E731
    res = scipy.optimize.minimize(f, np.full(4, 0.25), method="SLSQP", bounds=[(0, 1)] * 4,
                                  constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1}],
                                  options={"ftol": 1e-14, "maxiter": 500})
    assert est.objective_ <= res.fun * (1 + 1e-7)
    np.testing.assert_allclose(beta, res.x, atol=1e-4)
    assert est.objective_ == pytest.approx(f(beta), rel=1e-9)
    assert est.relative_error_ == pytest.approx(np.sqrt(f(beta) / _frob2(K)))


@pytest.mark.parametrize("solver", sorted(SOLVER_TOL))
def test_solver_swap_agrees(four_kernels, solver):
    K, base = four_kernels
    ref = ConformalLinearCombination(solver="CLARABEL").fit(stack_kernels(K, base))
    form = ConformalLinearCombinationQP.from_kernels(K, base)
    assert form.is_dpp()
    sol = solve(form, solver)
    tol = SOLVER_TOL[solver]
    np.testing.assert_allclose(form.weights(), ref.weights_, atol=tol)
    assert sol.primal_residual <= tol
    assert sol.gap <= 10 * tol                          # Frank-Wolfe gap, scaled objective
    est = ConformalLinearCombination(solver=solver).fit(stack_kernels(K, base))
    np.testing.assert_allclose(est.weights_, ref.weights_, atol=tol)


def test_formulation_resolves_with_new_target(four_kernels):
    """DPP in the target's inner products: a re-solve equals a fresh build."""
    K, base = four_kernels
    form = ConformalLinearCombinationQP.from_kernels(K, base)
    solve(form, "CLARABEL")
    K2 = 0.6 * base[:, :, 1] + 0.4 * base[:, :, 3]     # in the hull: exact recovery
    G, c2, k22 = kernel_inner_products(K2, base)
    form.set(c=c2, k2=k22)
    sol = solve(form, "CLARABEL")
    fresh = ConformalLinearCombinationQP(G, c2, k22)
    solve(fresh, "CLARABEL")
    np.testing.assert_allclose(form.weights(), fresh.weights(), atol=1e-7)
    # the raw interior-point weights are accurate to about sqrt(objective tolerance)
    np.testing.assert_allclose(form.weights(), [0, 0.6, 0, 0.4], atol=1e-3)
    assert sol.certificate["objective"] <= 1e-6 * k22
    assert clc_objective(G, c2, k22, np.array([0, 0.6, 0, 0.4])) <= 1e-9 * k22
    with pytest.raises(ValueError, match="shape"):
        form.set(c=np.ones(3))
    with pytest.raises(ValueError, match="unknown parameter"):
        form.set(C=1.0)


def test_frank_wolfe_gap_bounds_suboptimality(four_kernels):
    K, base = four_kernels
    G, c, k2 = kernel_inner_products(K, base)
    best = ConformalLinearCombination(solver="CLARABEL").fit(stack_kernels(K, base)).objective_
    rng = np.random.default_rng(1)
    for _ in range(20):
        b = rng.dirichlet(np.ones(4))
        assert clc_objective(G, c, k2, b) - best <= simplex_optimality_gap(G, c, b) + 1e-9 * k2


# --------------------------------------------------------------------------- transformer
def test_output_psd_and_training_rows_reproduce_block(munoz_stack, four_kernels):
    S, _ = munoz_stack
    for X in (S, stack_kernels(*four_kernels)):
        for params in ({}, {"solver": "CLARABEL"}, {"combination": "average"}):
            est = ConformalLinearCombination(**params)
            Kc = est.fit_transform(X)
            lam = np.linalg.eigvalsh(Kc)
            assert lam[0] >= -1e-10 * lam[-1]
            assert est.min_eigenvalue_ < 0            # the input was indefinite
            np.testing.assert_allclose(est.transform(X), Kc, rtol=1e-12, atol=1e-12)
            # new rows: the same combination of the base kernels' rows
            rows = X[:5]
            np.testing.assert_allclose(est.transform(rows),
                                       np.tensordot(rows[:, :, 1:], est.weights_, axes=1))


def test_akm_baseline_is_the_average(four_kernels):
    K, base = four_kernels
    est = ConformalLinearCombination(combination="average").fit(stack_kernels(K, base))
    np.testing.assert_array_equal(est.weights_, np.full(4, 0.25))
    np.testing.assert_allclose(est.kernel_, base.mean(axis=2))
    assert est.solution_ is None and np.isnan(est.gap_)
    # CLC is at least as close to K as AKM (AKM is feasible for (15))
    clc = ConformalLinearCombination().fit(stack_kernels(K, base))
    assert clc.objective_ <= est.objective_ + 1e-9


def test_exact_recovery_inside_the_hull(four_kernels):
    """A target inside the hull is recovered: exactly after polishing, to the solver's
    accuracy (about sqrt of its objective tolerance, measured 2e-4 here) without."""
    _, base = four_kernels
    true = np.array([0.2, 0.0, 0.5, 0.3])
    K = np.tensordot(base, true, axes=1)
    for solver in ("CLARABEL", "SCS"):
        est = ConformalLinearCombination(solver=solver).fit(stack_kernels(K, base))
        np.testing.assert_allclose(est.weights_, true, atol=1e-9)
        assert est.relative_error_ < 1e-7 and est.gap_ <= 1e-12
        raw = ConformalLinearCombination(solver=solver, polish=False).fit(
            stack_kernels(K, base))
        np.testing.assert_allclose(raw.weights_, true, atol=1e-3)
        assert raw.gap_ >= est.gap_


def test_polish_drops_coordinates_off_the_support(four_kernels):
    """On the indefinite target the optimum has zero weights with positive multipliers.
    Polishing from the all-positive uniform start (a wrong support) drops the coordinates
    that come out negative and lands on the solver's optimum; from the solver's point it
    does not move off it."""
    from krein.estimators.clc import _polish

    K, base = four_kernels
    S = stack_kernels(K, base)
    raw = ConformalLinearCombination(solver="CLARABEL", polish=False).fit(S)
    assert np.sum(raw.weights_ > 1e-6) == 2
    G, c, _ = kernel_inner_products(K, base)
    s = G.diagonal().max()
    from_uniform = _polish(G / s, c / s, np.full(4, 0.25))
    np.testing.assert_allclose(from_uniform, raw.weights_, atol=1e-6)
    assert np.count_nonzero(from_uniform) == 2
    pol = ConformalLinearCombination(solver="CLARABEL").fit(S)
    np.testing.assert_allclose(pol.weights_, from_uniform, atol=1e-12)
    assert pol.objective_ <= raw.objective_ * (1 + 1e-12)


def test_pipeline_cross_validation_on_stacked_kernel(munoz_stack):
    S, y = munoz_stack
    pipe = make_pipeline(ConformalLinearCombination(), SVC(kernel="precomputed"))
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    out = cross_validate(pipe, S, y, cv=cv, return_estimator=True)
    assert np.all((out["test_score"] >= 0.8) & (out["test_score"] <= 1))
    # every fold fitted on its own training blocks of all three kernels
    for est, (tr, te) in zip(out["estimator"], cv.split(S[:, :, 0], y)):
        own = ConformalLinearCombination().fit(S[np.ix_(tr, tr)])
        np.testing.assert_allclose(est[0].weights_, own.weights_)
        assert est[0].n_features_in_ == tr.size
        pred = SVC(kernel="precomputed").fit(own.kernel_, y[tr]).predict(
            own.transform(S[np.ix_(te, tr)]))
        np.testing.assert_array_equal(est.predict(S[np.ix_(te, tr)]), pred)


# --------------------------------------------------------------------------- bad input
def test_bad_input(munoz_stack):
    S, _ = munoz_stack
    with pytest.raises(ValueError, match=r"stacked kernel of shape \(n, n, 1 \+ M\)"):
        ConformalLinearCombination().fit(S[:, :, 0])
    with pytest.raises(ValueError, match="two base kernels"):
        ConformalLinearCombination(solver="closed-form").fit(
            np.concatenate([S, S[:, :, 1:2]], axis=2))
    with pytest.raises(ValueError, match="'combination' parameter of ConformalLinearCombination "
                                         "must be a str among"):
        ConformalLinearCombination(combination="newton").fit(S)
    with pytest.raises(ValueError, match="solver must be one of .*'closed-form'.* not installed"):
        ConformalLinearCombination(solver="NOPE").fit(S)
    with pytest.raises(ValueError, match="'solver' parameter"):
        ConformalLinearCombination(solver=3).fit(S)
    with pytest.raises(ValueError, match="psd_rtol"):
        ConformalLinearCombination(psd_rtol=-1).fit(S)
    with pytest.raises(ValueError, match="base kernel 1 .* not PSD"):
        ConformalLinearCombination().fit(stack_kernels(S[:, :, 1], [S[:, :, 0], S[:, :, 2]]))
    est = ConformalLinearCombination().fit(S)
    with pytest.raises(ValueError, match=r"\(m, 80, 3\)"):
        est.transform(S[:4, :, :2])
    with pytest.raises(ValueError, match="G is not PSD"):
        ConformalLinearCombinationQP(np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2))


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_solver_failure_leaves_transformer_unfitted(four_kernels):
    K, base = four_kernels
    est = ConformalLinearCombination(solver="CLARABEL",
                                     solver_options={"max_iter": 1})
    with pytest.raises(SolverError):
        est.fit(stack_kernels(K, base))
    assert not hasattr(est, "weights_") and not hasattr(est, "kernel_")


# --------------------------------------------------------------------------- precision
def test_float32_psd_base_kernels_accepted_and_indefinite_still_refused():
    """Stored in float32, a PSD base kernel's least eigenvalue is only known to about
    n * eps(float32) relative: the PSD check's tolerance scales with the input's dtype
    (here the linear kernel comes out at -1.3e-8 relative, below the float64 default
    psd_rtol=1e-8 that refused it before)."""
    X = np.random.default_rng(1).normal(size=(60, 2))
    base = [gaussian_kernel(X, gamma=0.5), linear_kernel(X)]
    S64 = stack_kernels(sigmoid_kernel(X, a=0.3, r=-0.5), base)
    S32 = S64.astype(np.float32)
    lam = np.linalg.eigvalsh(S32[:, :, 2].astype(float))
    assert lam[0] < -1e-8 * max(1.0, np.abs(lam).max())  # round-off beyond float64's rule
    ref = ConformalLinearCombination().fit(S64)
    for params in ({}, {"solver": "CLARABEL"}):
        est = ConformalLinearCombination(**params).fit(S32)
        assert est.base_min_eigenvalues_[1] == pytest.approx(lam[0])
        np.testing.assert_allclose(est.weights_, ref.weights_, atol=1e-4)
    # a list of float32 kernels is judged at float32 precision too
    est = ConformalLinearCombination().fit([S32[:, :, j] for j in range(3)])
    np.testing.assert_allclose(est.weights_, ref.weights_, atol=1e-4)
    # an indefinite base kernel is still refused at float32 precision
    bad = stack_kernels(S64[:, :, 1], [S64[:, :, 0], S64[:, :, 2]]).astype(np.float32)
    with pytest.raises(ValueError, match="base kernel 1 .* not PSD"):
        ConformalLinearCombination().fit(bad)
