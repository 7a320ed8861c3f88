"""CVXPY formulations and ``krein.solve``: checked against libsvm, HiGHS's LP solver
(``scipy.optimize.linprog``), closed forms and duality-gap certificates.

References used here, all independent of the code under test:

* libsvm (``sklearn.svm.SVC(kernel="precomputed", tol=1e-10)``) for the C-SVM dual
  optimum on a PSD kernel;
* ``scipy.optimize.linprog(method="highs")`` on the LP-SVM written in standard form
  with ``c = c+ - c-``;
* brute force for the hinge-optimal intercept;
* weak/strong duality (primal optimum = dual optimum) and the gap certificates.
"""

from __future__ import annotations

import re
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.svm import SVC

import krein
from krein.formulations import LPSVM, Formulation, SVMDual, SVMPrimal, optimal_intercept, psd_factor
from krein.solvers import SolverError

# ----------------------------------------------------------------------------
# Per-solver tolerances, RELATIVE on the optimal objective (and used for the gap
# certificate relative to max(1, |objective|)).  The reference is libsvm run with
# tol=1e-10, i.e. exact to ~1e-10 on these small problems.
QP_RTOL = {
    # Interior point, CVXPY passes the quadratic objective natively; default
    # tol_gap_rel = 1e-8, so the objective is good to ~1e-8 (measured ~3e-9):
    # 1e-6 leaves two orders of margin.
    "CLARABEL": 1e-6,
    # Interior point on CVXPY's SOC reformulation of the quadratic (ECOS has no
    # quadratic objective); reltol 1e-8 but the epigraph cone costs accuracy (measured 1e-9).
    "ECOS": 1e-5,
    "CVXOPT": 1e-5,
    # Interior-point QP solver, default eps 1e-8.
    "PIQP": 1e-6,
    # First-order splitting (ADMM) solvers: CVXPY's default eps_abs/eps_rel are
    # ~1e-5..1e-4, so the objective is only that accurate (SCS measured ~6e-8,
    # OSQP is polished to machine precision here but need not be): 1e-3.
    "SCS": 1e-3,
    "OSQP": 1e-3,
    # Proximal augmented Lagrangian, default eps_abs 1e-5.
    "PROXQP": 1e-4,
    # HiGHS solves convex QPs by an active-set method: exact up to rounding once it stops.
    "HIGHS": 1e-6,
}

# LP solvers for the LP-SVM (1-norm SVM), relative tolerance on the optimal value
# against linprog(method="highs") (simplex/IPM with crossover: exact to rounding).
LP_RTOL = {
    # Interior point, tol_gap_rel 1e-8 (measured ~4e-10 .. 4e-9).
    "CLARABEL": 1e-6,
    "ECOS": 1e-6,
    # Simplex with exact vertex solutions: the same optimum to rounding.
    "HIGHS": 1e-9,
    "SCIPY": 1e-9,   # scipy.optimize.linprog (HiGHS) through CVXPY
    "GLPK": 1e-9,
    # ADMM: only as accurate as its eps (measured ~5e-8 relative).
    "SCS": 1e-3,
    # OSQP is left out: on this LP (no quadratic term to regularize ADMM) it stops at
    # max_iter ('user_limit') — a property of OSQP, not of the formulation.
}

#: Solvers that only take linear programs (a QP must be refused with ValueError).
LP_ONLY = {"SCIPY", "GLPK", "GLOP", "PDLP", "CBC", "CUOPT"}

def _installed_or_skip(solver):
    if solver not in krein.installed_solvers():
        pytest.skip(f"{solver} is not installed")


def libsvm_dual(K, y, C):
    """The C-SVM dual optimum from libsvm: (dual objective, alpha, u = y * alpha, SVC)."""
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    u = np.zeros(len(y))
    u[svc.support_] = svc.dual_coef_[0]
    # sanity of the reading of sklearn's conventions: u = y * alpha
    assert np.all(np.sign(u[svc.support_]) == y[svc.support_])
    alpha = np.abs(u)
    return float(alpha.sum() - 0.5 * u @ K @ u), alpha, u, svc


def hinge(f, y, b):
    """sum_i max(0, 1 - y_i (f_i + b)) evaluated directly (vectorized over b)."""
    b = np.atleast_1d(b)
    return np.maximum(0.0, 1.0 - y[None, :] * (f[None, :] + b[:, None])).sum(axis=1)


def _pm(y):
    return np.asarray(y, dtype=float)


# =============================================================================
# Solvers installed
# =============================================================================
def test_required_solvers_installed():
    inst = krein.installed_solvers()
    assert "CLARABEL" in inst and "SCS" in inst, inst
    assert inst == list(cp.installed_solvers())


# =============================================================================
# SVM dual / primal against libsvm, for every installed QP solver
# =============================================================================
@pytest.mark.parametrize("solver", sorted(QP_RTOL))
@pytest.mark.parametrize("form", ["quad_form", "factor"])
def test_svm_dual_matches_libsvm(gaussian_problem, solver, form):
    _installed_or_skip(solver)
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    rtol = QP_RTOL[solver]
    C = 1.0
    D_ref, _, _, _ = libsvm_dual(K, y, C)
    f = SVMDual(y, K=K, C=C, form=form)
    sol = krein.solve(f, solver)
    assert sol.status == "optimal" and sol.solver == solver
    assert abs(sol.objective - D_ref) <= rtol * abs(D_ref)
    # the objective recomputed by our code from the returned alpha agrees too
    assert abs(sol.certificate["dual_objective"] - D_ref) <= rtol * abs(D_ref)
    # certificate: feasible, and the duality gap P(w, b*) - D(alpha) is ~0
    assert sol.primal_residual <= rtol
    assert abs(sol.gap) <= rtol * max(1.0, abs(D_ref))


@pytest.mark.parametrize("solver", sorted(QP_RTOL))
def test_svm_primal_optimum_equals_dual_optimum(gaussian_problem, solver):
    """Strong duality: min of the primal (in the feature map L, K = L L') = libsvm's dual max."""
    _installed_or_skip(solver)
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    rtol = QP_RTOL[solver]
    C = 1.0
    D_ref, _, _, svc = libsvm_dual(K, y, C)
    L = psd_factor(K)
    f = SVMPrimal(y, L, C=C)
    sol = krein.solve(f, solver)
    assert abs(sol.objective - D_ref) <= rtol * abs(D_ref)
    assert sol.primal_residual <= rtol
    assert abs(sol.gap) <= rtol * max(1.0, abs(D_ref))
    # the primal decision function f = L w + b is libsvm's decision function
    w, b = f.variables["w"].value, float(f.variables["b"].value)
    dec = L @ w + b
    np.testing.assert_allclose(dec, svc.decision_function(K), atol=50 * rtol ** 0.5)


def test_certificate_of_libsvm_point_is_zero(gaussian_problem):
    """Our certificate, evaluated at libsvm's alpha (not a CVXPY point), reports gap ~0."""
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    D_ref, alpha, _, svc = libsvm_dual(K, y, 1.0)
    f = SVMDual(y, K=K, C=1.0)
    f.variables["alpha"].value = alpha
    cert = f.certificate()
    assert cert["primal_residual"] <= 1e-9
    assert abs(cert["dual_objective"] - D_ref) <= 1e-12 * abs(D_ref)
    assert abs(cert["gap"]) <= 1e-7 * abs(D_ref)
    # libsvm's intercept is the hinge-optimal one (free SVs exist, so it is unique)
    free = (alpha > 1e-6) & (alpha < 1 - 1e-6)
    assert free.any()
    assert abs(cert["intercept"] - svc.intercept_[0]) <= 1e-6


def _bad_feasible_alpha(y, C):
    """A feasible but far-from-optimal dual point: balanced, every alpha_i = C / 4-ish."""
    n_pos, n_neg = np.sum(y > 0), np.sum(y < 0)
    t = 0.5 * C * min(n_pos, n_neg)
    return np.where(y > 0, t / n_pos, t / n_neg)


@pytest.mark.parametrize("form", ["quad_form", "factor"])
def test_svm_dual_certificate_small_at_optimum_large_at_bad_point(gaussian_problem, form):
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    C = 1.0
    D_ref, _, _, _ = libsvm_dual(K, y, C)
    f = SVMDual(y, K=K, C=C, form=form)
    sol = krein.solve(f, "CLARABEL")
    assert sol.primal_residual <= 1e-8 and abs(sol.gap) <= 1e-6 * D_ref
    # a feasible, non-optimal alpha: weak duality gives gap >= D_opt - D(alpha) > 0
    bad = _bad_feasible_alpha(y, C)
    assert abs(y @ bad) < 1e-12 and np.all((bad >= 0) & (bad <= C))
    f.variables["alpha"].value = bad
    cert = f.certificate()
    assert cert["primal_residual"] <= 1e-12
    u = y * bad
    assert D_ref - (bad.sum() - 0.5 * u @ K @ u) > 0.1 * D_ref   # the point really is bad
    assert cert["gap"] >= D_ref - cert["dual_objective"] - 1e-9
    assert cert["gap"] > 0.1 * D_ref
    # an infeasible alpha: the primal residual says so
    f.variables["alpha"].value = bad + np.where(y > 0, 0.3, 0.0)
    assert f.certificate()["primal_residual"] >= 0.3 * np.sum(y > 0) - 1e-9


def test_svm_primal_certificate_large_at_bad_point(gaussian_problem):
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    C = 1.0
    D_ref, _, _, _ = libsvm_dual(K, y, C)
    f = SVMPrimal(y, psd_factor(K), C=C)
    krein.solve(f, "CLARABEL")
    # w = 0, b = 0, xi = 1 is feasible with primal value C n >> optimum
    f.variables["w"].value = np.zeros(f.variables["w"].shape)
    f.variables["b"].value = np.array(0.0)
    f.variables["xi"].value = np.ones(y.size)
    cert = f.certificate()
    assert cert["primal_residual"] <= 1e-12
    assert cert["primal_objective"] == pytest.approx(C * y.size)
    assert cert["gap"] >= C * y.size - D_ref - 1e-6


def test_svm_dual_rejects_bad_input(sigmoid_problem, gaussian_problem):
    y = _pm(sigmoid_problem["y"])
    with pytest.raises(ValueError, match="positive semidefinite"):
        SVMDual(y, K=sigmoid_problem["K"])          # indefinite K is refused, not psd_wrapped
    Kg, yg = gaussian_problem["K"], _pm(gaussian_problem["y"])
    with pytest.raises(ValueError, match="-1 and \\+1"):
        SVMDual((yg > 0).astype(float), K=Kg)
    with pytest.raises(ValueError, match="C"):
        SVMDual(yg, K=Kg, C=0.0)
    with pytest.raises(ValueError, match="form"):
        SVMDual(yg, K=Kg, form="nope")
    with pytest.raises(ValueError):
        SVMDual(yg, K=Kg[:-1, :-1])
    with pytest.raises(ValueError):
        SVMPrimal(yg, psd_factor(Kg), C=-1.0)


def test_psd_factor_reproduces_kernel(gaussian_problem):
    K = gaussian_problem["K"]
    L = psd_factor(K)
    np.testing.assert_allclose(L @ L.T, K, atol=1e-12)


# =============================================================================
# DPP and re-solving with a new C
# =============================================================================
def _all_formulations(gaussian_problem, sigmoid_problem):
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    return {
        "dual-quad_form": SVMDual(y, K=K, form="quad_form"),
        "dual-factor": SVMDual(y, K=K, form="factor"),
        "primal": SVMPrimal(y, psd_factor(K)),
        "lp": LPSVM(sigmoid_problem["K"], _pm(sigmoid_problem["y"])),
    }


def test_all_formulations_are_dpp(gaussian_problem, sigmoid_problem):
    for name, f in _all_formulations(gaussian_problem, sigmoid_problem).items():
        assert f.is_dpp(), name
        assert f.problem.is_dcp(dpp=True), name
        assert set(f.parameters) == {"C"}, name


@pytest.mark.parametrize("name", ["dual-quad_form", "dual-factor", "primal", "lp"])
def test_set_C_resolve_matches_fresh_build(gaussian_problem, sigmoid_problem, name):
    forms = _all_formulations(gaussian_problem, sigmoid_problem)
    f = forms[name]
    sol1 = krein.solve(f, "CLARABEL")
    f.set(C=10.0)
    sol2 = krein.solve(f, "CLARABEL")
    fresh = _all_formulations(gaussian_problem, sigmoid_problem)[name]
    fresh.set(C=10.0)
    assert float(fresh.parameters["C"].value) == 10.0
    sol_fresh = krein.solve(fresh, "CLARABEL")
    rtol = QP_RTOL["CLARABEL"]
    assert abs(sol2.objective - sol_fresh.objective) <= rtol * abs(sol_fresh.objective)
    # C really changed the problem (otherwise the comparison above proves nothing)
    assert abs(sol2.objective - sol1.objective) > 1e-2 * abs(sol1.objective)
    assert abs(sol2.gap) <= rtol * max(1.0, abs(sol2.objective))
    if name != "lp":   # and the re-solved value is libsvm's at C = 10
        K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
        D10, _, _, _ = libsvm_dual(K, y, 10.0)
        assert abs(sol2.objective - D10) <= rtol * D10


def test_set_rejects_bad_values(gaussian_problem):
    f = SVMDual(_pm(gaussian_problem["y"]), K=gaussian_problem["K"])
    for bad in (0.0, -1.0, np.inf, np.nan, "1"):
        with pytest.raises(ValueError):
            f.set(C=bad)
    with pytest.raises(ValueError, match="rho"):
        f.set(rho=1.0)
    assert float(f.parameters["C"].value) == 1.0


# =============================================================================
# The hinge-optimal intercept
# =============================================================================
@pytest.mark.parametrize("seed", range(5))
def test_optimal_intercept_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 25
    f = rng.normal(scale=2.0, size=n)
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    b = optimal_intercept(f, y)
    # exact minimum: H is convex piecewise linear with kinks at b = y_i - f_i
    kinks = y - f
    H_min = hinge(f, y, kinks).min()
    assert hinge(f, y, b)[0] <= H_min + 1e-10
    # a fine grid never beats it (H is n-Lipschitz: grid min >= H_min - n * step / 2)
    grid = np.linspace(kinks.min() - 1, kinks.max() + 1, 40001)
    Hg = hinge(f, y, grid)
    assert hinge(f, y, b)[0] <= Hg.min() + 1e-10
    assert Hg.min() <= H_min + n * (grid[1] - grid[0])


def test_optimal_intercept_midpoint_of_flat_minimum():
    # y (f + b) >= 1 for all i exactly when b in [1 - 2, -1 + 1.5] = [-1, 0.5]: H = 0 there
    f = np.array([2.0, 3.0, -1.5, -4.0])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    assert optimal_intercept(f, y) == pytest.approx(-0.25, abs=1e-12)
    # two points, f = 0.3: H(b) = 2 on [-1.3, 0.7]
    assert optimal_intercept(np.array([0.3, 0.3]), np.array([1.0, -1.0])) == pytest.approx(-0.3)


# =============================================================================
# LP-SVM against scipy.optimize.linprog(method="highs")
# =============================================================================
def linprog_lpsvm(K, y, C):
    """min 1'c+ + 1'c- + C 1'xi  s.t.  -y_i (K_i (c+ - c-) + b) - xi_i <= -1, c+-, xi >= 0."""
    n, m = K.shape
    cost = np.r_[np.ones(2 * m), 0.0, C * np.ones(n)]
    YK = y[:, None] * K
    A = np.hstack([-YK, YK, -y[:, None], -np.eye(n)])
    bounds = [(0, None)] * (2 * m) + [(None, None)] + [(0, None)] * n
    res = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    assert res.status == 0, res.message
    c = res.x[:m] - res.x[m:2 * m]
    b = res.x[2 * m]
    alpha = -res.ineqlin.marginals          # multipliers of the margin constraints, >= 0
    return res.fun, c, b, res.x[2 * m + 1:], alpha


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("solver", sorted(LP_RTOL))
def test_lpsvm_matches_linprog(sigmoid_problem, solver, C):
    _installed_or_skip(solver)
    K, y = sigmoid_problem["K"], _pm(sigmoid_problem["y"])
    assert sigmoid_problem["lam_min"] < 0
    rtol = LP_RTOL[solver]
    obj_ref, c_ref, b_ref, _, _ = linprog_lpsvm(K, y, C)
    f = LPSVM(K, y, C=C)
    sol = krein.solve(f, solver)
    assert abs(sol.objective - obj_ref) <= rtol * abs(obj_ref)
    # the objective recomputed by our code at the returned point (exact hinge slack)
    assert abs(sol.certificate["primal_objective"] - obj_ref) <= rtol * abs(obj_ref)
    # LP-dual certificate: 1'alpha = primal optimum, alpha dual-feasible
    assert sol.primal_residual <= rtol
    assert sol.dual_residual <= rtol
    assert abs(sol.gap) <= rtol * max(1.0, abs(obj_ref))
    # LP optima need not be unique: compare the predicted labels, mostly
    dec = K @ f.variables["c"].value + float(f.variables["b"].value)
    dec_ref = K @ c_ref + b_ref
    assert np.mean(np.sign(dec) == np.sign(dec_ref)) >= 0.9


def test_lpsvm_certificate_at_linprog_point_and_bad_point(sigmoid_problem):
    """Our LP-dual certificate, fed HiGHS's primal-dual pair, reports gap ~0; a bad point, a large gap."""
    K, y = sigmoid_problem["K"], _pm(sigmoid_problem["y"])
    C = 1.0
    obj_ref, c_ref, b_ref, xi_ref, alpha_ref = linprog_lpsvm(K, y, C)
    f = LPSVM(K, y, C=C)
    krein.solve(f, "CLARABEL")   # populates the constraint duals, overwritten below
    f.variables["c"].value = c_ref
    f.variables["b"].value = np.array(b_ref)
    f.variables["xi"].value = xi_ref
    f.constraints["margin"].dual_variables[0].value = alpha_ref
    cert = f.certificate()
    assert cert["primal_residual"] <= 1e-9
    assert cert["dual_residual"] <= 1e-9
    assert cert["primal_objective"] == pytest.approx(obj_ref, rel=1e-12)
    assert abs(cert["gap"]) <= 1e-8 * obj_ref
    # c = 0, b = 0, xi = 1: feasible with value C n, far above the optimum
    f.variables["c"].value = np.zeros(y.size)
    f.variables["b"].value = np.array(0.0)
    f.variables["xi"].value = np.ones(y.size)
    cert = f.certificate()
    assert cert["primal_residual"] <= 1e-12
    assert cert["gap"] == pytest.approx(C * y.size - obj_ref, rel=1e-6)
    assert cert["gap"] > 0.5 * obj_ref


def test_lpsvm_rejects_bad_input(sigmoid_problem):
    K, y = sigmoid_problem["K"], _pm(sigmoid_problem["y"])
    with pytest.raises(ValueError):
        LPSVM(K[:-1], y)
    Kn = K.copy()
    Kn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LPSVM(Kn, y)
    with pytest.raises(ValueError):
        LPSVM(K, y, C=0.0)
    # a rectangular kernel (expansion on a subset) is allowed
    f = LPSVM(K[:, :10], y)
    assert f.variables["c"].shape == (10,)


# =============================================================================
# solve(): errors and the Solution record
# =============================================================================
def _tiny(kind):
    x = cp.Variable(name="x")
    if kind == "infeasible":
        prob = cp.Problem(cp.Minimize(x), [x >= 1, x <= 0])
    else:
        prob = cp.Problem(cp.Minimize(x), [x <= 0])
    return Formulation(prob, variables={"x": x})


def test_solve_unknown_solver_lists_installed(gaussian_problem):
    f = SVMDual(_pm(gaussian_problem["y"]), K=gaussian_problem["K"])
    with pytest.raises(ValueError) as exc:
        krein.solve(f, "NO_SUCH_SOLVER")
    msg = str(exc.value)
    for name in krein.installed_solvers():
        assert name in msg
    with pytest.raises(ValueError):
        krein.solve(f, 42)
    if "MOSEK" not in krein.installed_solvers():
        with pytest.raises(ValueError, match="pip install"):
            krein.solve(f, "MOSEK")


@pytest.mark.parametrize("kind", ["infeasible", "unbounded"])
@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_solve_non_optimal_status_raises_solver_error(kind, solver):
    f = _tiny(kind)
    with pytest.raises(SolverError) as exc:
        krein.solve(f, solver)
    err = exc.value
    assert err.solver == solver
    assert err.status.startswith(kind)
    assert kind in str(err)
    assert err.size == {"n_variables": 1, "n_constraints": 2 if kind == "infeasible" else 1}


def test_solve_qp_on_lp_only_solver_is_value_error(gaussian_problem):
    lp_only = sorted(LP_ONLY & set(krein.installed_solvers()))
    if not lp_only:
        pytest.skip("no LP-only CVXPY solver installed")
    f = SVMDual(_pm(gaussian_problem["y"]), K=gaussian_problem["K"])
    for solver in lp_only:
        with pytest.raises(ValueError, match=solver):
            krein.solve(f, solver)


def test_solve_bad_option_and_iteration_limit(gaussian_problem):
    f = SVMDual(_pm(gaussian_problem["y"]), K=gaussian_problem["K"])
    with pytest.raises(ValueError, match="option"):
        krein.solve(f, "CLARABEL", no_such_option=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # CVXPY: "solution may be inaccurate"
        with pytest.raises(SolverError) as exc:
            krein.solve(f, "CLARABEL", max_iter=1)
    assert exc.value.status != "optimal"


def test_solution_record(gaussian_problem):
    K, y = gaussian_problem["K"], _pm(gaussian_problem["y"])
    f = SVMDual(y, K=K)
    sol = krein.solve(f, "clarabel")          # case-insensitive
    assert isinstance(sol, krein.Solution)
    assert sol.solver == "CLARABEL" and sol.status == "optimal"
    assert sol.objective == pytest.approx(f.problem.value)
    np.testing.assert_array_equal(sol.primal["alpha"], f.variables["alpha"].value)
    assert set(sol.dual) == {"balance", "lower", "upper"}
    assert sol.iterations is not None and sol.iterations > 0
    assert sol.solve_time >= 0 and sol.setup_time >= 0
    # the multiplier of y'alpha = 0 is (minus) the intercept of the SVM
    assert abs(abs(float(sol.dual["balance"])) - abs(sol.certificate["intercept"])) <= 1e-5


# ----------------------------------------------------------------------------
# The psd_wrap guard.  cvxpy.psd_wrap skips CVXPY's PSD check; on an
# indefinite matrix solvers report "optimal" at infeasible points (cvxpy issue #2362).
# Every wrap in krein goes through certified_psd_wrap, which certifies the matrix by
# eigenvalues (relative tolerance 100 n eps max|lam|) and names it when it refuses.

def _psd_wrap_calls():
    """``(module, enclosing function)`` of every ``psd_wrap`` (or ``assume_PSD=``) call in krein."""
    import ast
    import pathlib

    class Finder(ast.NodeVisitor):
        def __init__(self, module):
            self.module, self.stack, self.found = module, ["<module>"], []

        def visit_FunctionDef(self, node):
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            # quad_form(x, P, assume_PSD=True) is psd_wrap by another name
            if name == "psd_wrap" or any(k.arg == "assume_PSD" for k in node.keywords):
                self.found.append((self.module, self.stack[-1]))
            self.generic_visit(node)

    root = pathlib.Path(krein.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "psd_wrap" not in text and "assume_PSD" not in text:
            continue                     # no such call can be in it: skip the parse
        finder = Finder(path.relative_to(root).as_posix())
        finder.visit(ast.parse(text))
        found += finder.found
    return found


def test_every_psd_wrap_goes_through_the_certifying_helper():
    assert _psd_wrap_calls() == [("formulations/base.py", "certified_psd_wrap")]


def test_certified_psd_wrap_refuses_an_indefinite_matrix_and_names_it():
    from krein.formulations.base import certified_psd_wrap

    rng = np.random.default_rng(0)
    V, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    lam = np.array([-1e-3, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0])
    P = (V * lam) @ V.T
    P = 0.5 * (P + P.T)
    for scale in (1.0, 1e-8, 1e8):                      # relative: the verdict follows no unit
        least = re.escape(f"{-1e-3 * scale:.6g}")
        with pytest.raises(ValueError, match=f"Pmat is not positive semidefinite: least "
                                             f"eigenvalue {least} < -"):
            certified_psd_wrap(scale * P, name="Pmat")
    # the caller's own eigenvalues are used as given (same spectrum, e.g. K for Y K Y)
    with pytest.raises(ValueError, match="least eigenvalue -0.001"):
        certified_psd_wrap(np.eye(8), lam, name="K")
    with pytest.raises(ValueError, match="eigenvalues of K must be 8 finite numbers"):
        certified_psd_wrap(P, lam[:-1], name="K")
    with pytest.raises(ValueError, match="finite square"):
        certified_psd_wrap(P[:, :-1], name="K")


def test_certified_psd_wrap_passes_rank_deficient_psd_matrices():
    from krein.formulations.base import certified_psd_wrap, psd_tolerance

    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 3))
    for scale in (1.0, 1e-8, 1e8):
        P = scale * (X @ X.T)                        # rank 3: 37 eigenvalues at round-off
        lam = np.linalg.eigvalsh(P)
        assert np.min(lam) >= -psd_tolerance(lam)    # the band holds whatever their sign
        wrapped = certified_psd_wrap(P, name="X X'")
        np.testing.assert_array_equal(wrapped.value, P)
        # and the wrapped quadratic form is usable: min x'Px - 1'x over the box is solvable
        x = cp.Variable(40)
        prob = cp.Problem(cp.Minimize(cp.quad_form(x, wrapped) / scale - cp.sum(x)),
                          [x >= 0, x <= 1])
        prob.solve(solver="CLARABEL")
        assert prob.status == "optimal"


def test_svm_dual_quad_form_certifies_even_a_psd_checked_kernel(sigmoid_problem):
    """psd_checked=True does not wrap K unchecked: an indefinite K raises on every path."""
    y, K = _pm(sigmoid_problem["y"]), sigmoid_problem["K"]
    assert np.linalg.eigvalsh(K)[0] < -1e-3 * np.abs(np.linalg.eigvalsh(K)).max()
    for checked in (False, True):
        with pytest.raises(ValueError, match=r"K \(the kernel of Y K Y\) is not positive "
                                             r"semidefinite: least eigenvalue -"):
            SVMDual(y, K=K, form="quad_form", psd_checked=checked)
    # the caller's own eigenvalues certify (or refuse) without a second decomposition
    lam, V = np.linalg.eigh(K)
    with pytest.raises(ValueError, match="least eigenvalue -"):
        SVMDual(y, K=K, form="quad_form", psd_checked=True, eigenvalues=lam)
    flipped = (V * np.abs(lam)) @ V.T
    f_own = SVMDual(y, K=flipped, form="quad_form", psd_checked=True, eigenvalues=np.abs(lam))
    f_here = SVMDual(y, K=flipped, form="quad_form", psd_checked=True)
    objectives = [krein.solve(f, "CLARABEL").objective for f in (f_own, f_here)]
    np.testing.assert_allclose(objectives[0], objectives[1], rtol=QP_RTOL["CLARABEL"])
    with pytest.raises(ValueError, match="eigenvalues of K .* must be 40 finite numbers"):
        SVMDual(y, K=flipped, form="quad_form", eigenvalues=np.abs(lam)[:-1])
    # a rank-deficient PSD kernel (linear kernel, rank 2) passes on every path
    X = np.random.default_rng(2).standard_normal((y.size, 2))
    Klin = X @ X.T
    for kw in ({"K": Klin}, {"K": Klin, "psd_checked": True}, {"L": X}):
        f = SVMDual(y, C=1.0, form="quad_form", **kw)
        sol = krein.solve(f, "CLARABEL")
        assert sol.status == "optimal"
