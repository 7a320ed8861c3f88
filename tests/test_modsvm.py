"""Lin & Lin's modified SVM ("Mod SVM", Luss & d'Aspremont 2009 §5.1).

Independent references:

* the linear SVM on the empirical kernel map (rows of ``K`` as features) solved by
  libsvm, ``sklearn.svm.SVC(kernel="linear", tol=1e-10)`` -- exactly Lin & Lin's
  reformulation, with ``w = alpha``;
* the Lagrange dual ``max 1'beta - 1/2 ||K'(y beta)||^2`` evaluated at the solver's
  multipliers (duality gap, stationarity ``alpha = K'(y beta)``);
* re-solves with every QP-capable CVXPY solver.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein.estimators.modsvm import ModSVC
from krein.formulations.modsvm import ModSVM
from krein.formulations.svm import optimal_intercept
from krein.solvers import solve

#: Relative tolerance on the optimal objective per solver, against the dual value at
#: libsvm's solution (tol=1e-10).  As in test_formulations: interior point (Clarabel,
#: gap tolerance 1e-8, measured 3e-11; ECOS through an SOC epigraph, measured 5e-10) vs
#: ADMM with CVXPY's default eps ~1e-5..1e-4 (OSQP polishes its active set, measured
#: 2e-13, but need not; SCS does not, measured 6e-10 on this well-scaled problem).
RTOL = {"CLARABEL": 1e-6, "ECOS": 1e-5, "OSQP": 1e-3, "SCS": 1e-3}

def _svc_on_rows(K, y, C):
    """libsvm's linear SVM on the features K[i, :] (Lin & Lin's convex reformulation)."""
    return SVC(kernel="linear", C=C, tol=1e-10).fit(K, y)


def _bracket(f, svc):
    """The optimal value from libsvm's solution, with a certified bracket.

    ``D``: the Lagrange dual at libsvm's ``beta`` -- dual feasible, so ``D <= opt``, and
    accurate to ~1e-12 here (the dual is quadratic at its optimum and libsvm stops at
    tol 1e-10).  ``P``: the primal at libsvm's ``w = K'(y beta)`` with the hinge-optimal
    bias, ``P >= opt``; the hinge makes ``P`` first-order sensitive to the ~1e-6 error
    of ``w``, so the bracket is only ~3e-7 wide (relative).
    """
    beta = np.zeros(f.y.size)
    beta[svc.support_] = np.abs(svc.dual_coef_[0])
    w = svc.coef_[0]
    return f.dual_objective(beta), f.primal_objective(w, optimal_intercept(f.K @ w, f.y))


@pytest.mark.parametrize("solver", sorted(RTOL))
def test_solver_swap_matches_linear_svm_on_kernel_rows(sigmoid_problem, solver):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"].astype(float)
    C = 0.5
    f = ModSVM(K, y, C)
    assert f.is_dpp()
    sol = solve(f, solver)
    D, P = _bracket(f, _svc_on_rows(K, y, C))
    assert 0 <= P - D <= 1e-6 * P
    assert sol.objective == pytest.approx(D, rel=RTOL[solver])
    assert sol.certificate["primal_objective"] == pytest.approx(D, rel=RTOL[solver])
    # certificates computed by krein from the returned point
    assert abs(sol.gap) <= 10 * RTOL[solver] * D
    assert sol.primal_residual <= RTOL[solver] * 10


def test_alpha_and_bias_equal_linear_svm(sigmoid_problem):
    """Strictly convex in alpha: the CVXPY alpha is libsvm's w; the bias where SVs are free."""
    K, y = sigmoid_problem["K"], sigmoid_problem["y"].astype(float)
    C = 0.5
    f = ModSVM(K, y, C)
    solve(f, "CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    svc = _svc_on_rows(K, y, C)
    beta = np.abs(svc.dual_coef_[0])
    assert np.any((beta > 1e-8) & (beta < C - 1e-8))             # a free SV fixes b
    np.testing.assert_allclose(f.variables["alpha"].value, svc.coef_[0], atol=1e-6)
    # libsvm's w is accurate to ~1e-6 (see _bracket) and its bias inherits that error
    assert float(f.variables["b"].value) == pytest.approx(svc.intercept_[0], abs=1e-5)
    # KKT: alpha = K'(y beta) with the solver's margin multipliers, y'beta = 0, gap ~ 0
    cert = f.certificate()
    assert cert["dual_residual"] <= 1e-7 and abs(cert["gap"]) <= 1e-7 * cert["primal_objective"]


def test_rectangular_kernel_and_resolve(sigmoid_problem):
    """Expansion on a subset of columns (n x m); DPP re-solve in C equals a fresh solve."""
    K, y = sigmoid_problem["K"][:, :15], sigmoid_problem["y"].astype(float)
    f = ModSVM(K, y, 1.0)
    solve(f, "CLARABEL")
    f.set(C=3.0)
    again = solve(f, "CLARABEL").objective
    fresh = solve(ModSVM(K, y, 3.0), "CLARABEL").objective
    D, P = _bracket(f, _svc_on_rows(K, y, 3.0))
    assert again == pytest.approx(fresh, rel=1e-7)
    assert D - 1e-7 * P <= again <= P + 1e-7 * P


def test_estimator_cvxpy_and_libsvm_paths_agree(sigmoid_problem):
    X, y, Xt = sigmoid_problem["X"], sigmoid_problem["y"], sigmoid_problem["X_test"]
    kw = {"C": 0.5, "kernel": "sigmoid", "kernel_params": sigmoid_problem["params"]}
    a = ModSVC(**kw).fit(X, y)
    b = ModSVC(solver="libsvm", solver_options={"tol": 1e-10}, **kw).fit(X, y)
    scale = np.abs(a.decision_function(Xt)).max()
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(Xt), atol=1e-5 * scale)
    # precomputed route: the same model from the Gram matrices
    p = ModSVC(C=0.5, kernel="precomputed").fit(sigmoid_problem["K"], y)
    np.testing.assert_allclose(p.decision_function(sigmoid_problem["K_test"]),
                               a.decision_function(Xt), atol=1e-6 * scale)
    assert a.solutions_[0].gap <= 1e-6 * a.solutions_[0].objective


def test_multiclass(three_class_problem):
    p = three_class_problem
    clf = ModSVC(kernel="precomputed").fit(p["K_sig"], p["y"])
    assert clf.decision_function(p["K_sig_test"]).shape == (p["K_sig_test"].shape[0], 3)
    assert clf.dual_coef_.shape[0] == 3 and len(clf.solutions_) == 3
    assert clf.score(p["K_sig"], p["y"]) > 0.8


@pytest.mark.parametrize("params, match", [
    ({"C": 0.0}, "'C' parameter"), ({"C": -1.0}, "'C' parameter"),
    ({"solver": "NOPE"}, r"'libsvm', 'liblinear', 'ipm' or an installed CVXPY solver name \(installed here"),
    ({"solver": 3}, "'solver' parameter"), ({"solver_options": [1]}, "solver_options"),
    ({"solver": "libsvm", "solver_options": {"eps": 1}}, "unknown solver_options"),
    ({"kernel": "nope"}, "'kernel' parameter"),
])
def test_bad_parameters(sigmoid_problem, params, match):
    with pytest.raises(ValueError, match=match):
        ModSVC(**params).fit(sigmoid_problem["X"], sigmoid_problem["y"])


def test_bad_inputs(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    with pytest.raises(ValueError, match="shape"):
        ModSVM(K[:5], y, 1.0)
    with pytest.raises(ValueError, match="only -1 and"):
        ModSVM(K, y * 3, 1.0)
    with pytest.raises(ValueError, match="NaN"):
        ModSVM(np.full_like(K, np.nan), y, 1.0)
    clf = ModSVC(kernel="precomputed")
    with pytest.raises(ValueError, match="square"):
        clf.fit(K[:, :7], y)
    assert not hasattr(clf, "classes_")
    clf.fit(K, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(sigmoid_problem["K_test"][:, :7])


@parametrize_with_checks([ModSVC()], expected_failed_checks=lambda est: {}, xfail_strict=True)
def test_sklearn_compatible(estimator, check):
    """Every scikit-learn check passes with the default Gaussian kernel (none expected to fail)."""
    check(estimator)
