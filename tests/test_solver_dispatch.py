"""The one dispatch: every entry of the solver table is reached by ``solve_problem``.

``krein.solvers.solve_problem(problem, solver, **options) -> Solution`` is the call
through which any solver of :data:`krein.solvers.SOLVERS` solves any problem of a
class it lists.  Checked here:

* every krein entry, on a small problem of each of its problem classes, returns a
  ``Solution`` equal to the one its function returns when called directly, in that
  function's own signature (written out below, independently of the adapters);
* every installed CVXPY entry solves a small formulation of a class it lists (an
  SVM dual, or an LP-SVM for the LP-only solvers), every other CVXPY entry is refused with its install hint;
* a wrong problem class and an unknown name are refused (``ValueError``); an entry
  whose call returns something other than a Solution is refused (``TypeError``);
* an entry added to the table is dispatched with nothing else to change.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from krein.formulations import (CLCProblem, DCProblem, HullProblem, KernelCorrectionProblem,
                                KSVMFactorProblem, KSVMProblem, LinearSVMProblem,
                                NearestPSDProblem, ProxyKernelProblem, SparseBayesProblem,
                                SVMDualProblem, SVRDualProblem)
from krein.formulations.lpsvm import LPSVM
from krein.formulations.svm import SVMDual
from krein.solvers import (SOLVERS, STATUSES, Solution, accelerated_gradient, accpm,
                           alternating_projections, bending, exchange, hull_multistart,
                           hull_nu_svm, ksvm_active_set, nearest_psd_newton, projected_gradient,
                           solve_problem, sparse_bayes)
from krein.solvers.conformal import conformal_fit, conformal_lbfgs, conformal_search
from krein.solvers.dca import dca
from krein.solvers.ksvm_ipm import ksvm_interior_point
from krein.solvers.liblinear import liblinear_solve
from krein.solvers.linear import linear_svm
from krein.solvers.libsvm import libsvm_dual, libsvm_svr
from krein.solvers.table import SolverEntry, installed_solvers


def _data(n=16, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    K = np.tanh(0.5 * X @ X.T - 0.2)                                 # indefinite
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    return X, y, K, np.exp(-0.5 * d2)                                 # and a PSD one


X, Y, K, KP = _data()
G2, C2 = np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([1.0, 0.7])

#: Per problem class: the problem, and per solver the direct call of its function
#: (that function's own signature) with the options used for both calls.
PROBLEMS = {
    "svm-dual": (SVMDualProblem(KP, Y, 1.0), {}),
    "svr-dual": (SVRDualProblem(KP, X[:, 1], 1.0, 0.1), {}),
    "linear-svm": (LinearSVMProblem(X, Y, 1.0), {}),
    "proxy-kernel": (ProxyKernelProblem(K, Y), {"max_iter": 30}),
    "ksvm-ls": (KSVMProblem(K, Y, 1.0), {}),
    "ksvm-ls-factor": (KSVMFactorProblem(X, np.array([1.0, -1.0, 1.0]), Y, 1.0), {}),
    "hull": (HullProblem(K, Y, 0.5), {}),
    "sparse-bayes": (SparseBayesProblem(np.c_[K, np.ones(Y.size)], (Y > 0).astype(float)), {}),
    "kernel-correction": (KernelCorrectionProblem(K, A=KP), {}),
    "nearest-psd": (NearestPSDProblem(K), {}),
    "clc-simplex": (CLCProblem(G2, C2, 3.0), {}),
    "dc-sqhinge": (DCProblem(K, Y, 1.0), {}),
}

DIRECT = {
    ("libsvm", "svm-dual"): lambda p: libsvm_dual(p.K, p.y, p.C),
    ("libsvm", "svr-dual"): lambda p: libsvm_svr(p.K, p.y, p.C, p.epsilon)[2],
    ("liblinear", "linear-svm"): lambda p: liblinear_solve(p.Phi, p.y, p.C)[2],
    ("ipm", "linear-svm"): lambda p: linear_svm(p.Phi, p.y, p.C, solver="ipm")[2],
    ("pg", "proxy-kernel"): lambda p: projected_gradient(p, max_iter=30),
    ("apg", "proxy-kernel"): lambda p: accelerated_gradient(p, max_iter=30),
    ("accpm", "proxy-kernel"): lambda p: accpm(p, max_iter=30),
    ("exchange", "proxy-kernel"): lambda p: exchange(p, max_iter=30),
    ("active-set", "ksvm-ls"): lambda p: ksvm_active_set(p.K, p.y, p.C),
    ("interior-point", "ksvm-ls-factor"): lambda p: ksvm_interior_point(p.Psi, p.signs, p.y, p.C),
    ("nu-svm", "hull"): lambda p: hull_nu_svm(p.K, p.y, p.mu),
    ("multistart", "hull"): lambda p: hull_multistart(p.K, p.y, p.mu, random_state=0)[0],
    ("sparse-bayes", "sparse-bayes"): lambda p: sparse_bayes(p.Phi, p.t),
    ("bending", "kernel-correction"): lambda p: bending(p.K, p.weights),
    ("optimize", "kernel-correction"): lambda p: conformal_fit(p.K, p.A, max_iter=20),
    ("search", "kernel-correction"): lambda p: conformal_search(p.K, p.A, max_iter=20),
    ("lbfgs", "kernel-correction"): lambda p: conformal_lbfgs(p.K, p.A, max_iter=20),
    ("dykstra", "nearest-psd"): lambda p: alternating_projections(p.K, p.diagonal, p.weights,
                                                                  solver="dykstra"),
    ("plain", "nearest-psd"): lambda p: alternating_projections(p.K, p.diagonal, p.weights,
                                                                solver="plain"),
    ("anderson", "nearest-psd"): lambda p: alternating_projections(p.K, p.diagonal, p.weights,
                                                                   solver="anderson"),
    ("newton", "nearest-psd"): lambda p: nearest_psd_newton(p.K, p.diagonal, p.weights),
    ("closed-form", "clc-simplex"): None,          # weights only: checked by hand below
    ("dca", "dc-sqhinge"): lambda p: dca(p.K, p.y, p.C, random_state=0),
}

#: Options of the dispatched calls (the same as the direct calls above).
OPTIONS = {"pg": {"max_iter": 30}, "apg": {"max_iter": 30}, "accpm": {"max_iter": 30},
           "exchange": {"max_iter": 30}, "multistart": {"random_state": 0},
           "optimize": {"max_iter": 20}, "search": {"max_iter": 20}, "lbfgs": {"max_iter": 20},
           "dca": {"random_state": 0}}

OWN = [(name, cls) for name, e in SOLVERS.items() if e.backend != "cvxpy"
       for cls in e.problem_classes]


def _same_point(a, b):
    """Two Solutions of one deterministic solve: the same status, objective and point."""
    assert (a.solver, a.status, a.iterations) == (b.solver, b.status, b.iterations)
    assert a.objective == b.objective
    assert a.primal.keys() == b.primal.keys()
    for key, value in a.primal.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, b.primal[key])


def test_every_own_entry_and_class_has_a_problem_here():
    """A new entry (or class) fails here until it gets its small problem and direct call."""
    assert {cls for _, cls in OWN} <= set(PROBLEMS)
    assert set(OWN) == set(DIRECT)


@pytest.mark.parametrize("name, problem_class", OWN)
def test_own_entry_is_dispatched_and_returns_the_functions_solution(name, problem_class):
    problem, _ = PROBLEMS[problem_class]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # max_iter on the tiny problems
        sol = solve_problem(problem, name, **OPTIONS.get(name, {}))
        direct = DIRECT[(name, problem_class)]
        ref = None if direct is None else direct(problem)
    assert isinstance(sol, Solution) and sol.status in STATUSES
    if ref is not None:
        _same_point(sol, ref)


def test_closed_form_is_certified_by_hand():
    sol = solve_problem(CLCProblem(G2, C2, 3.0), "closed-form")
    # munoz eq. 16 by hand: beta_1 = <K1 - K2, K - K2> / ||K1 - K2||^2, clipped
    b1 = (C2[0] - C2[1] - G2[0, 1] + G2[1, 1]) / (G2[0, 0] - 2 * G2[0, 1] + G2[1, 1])
    np.testing.assert_allclose(sol.primal["beta"], [b1, 1 - b1], rtol=0, atol=1e-15)
    beta = sol.primal["beta"]
    assert sol.objective == pytest.approx(3.0 - 2 * C2 @ beta + beta @ G2 @ beta, abs=1e-14)
    assert (sol.status, sol.certificate_kind) == ("optimal", "fw_gap")
    assert sol.gap == pytest.approx(0.0, abs=1e-14)


@pytest.mark.parametrize("name", [n for n, e in SOLVERS.items() if e.backend == "cvxpy"])
def test_cvxpy_entry_is_dispatched_or_refused_with_its_install_hint(name):
    entry = SOLVERS[name]
    if not entry.installed():
        with pytest.raises(ValueError, match="not installed"):
            solve_problem(LPSVM(KP, Y, 1.0), name)
        return
    if "QP" in entry.problem_classes:
        form = SVMDual(Y, K=KP, C=1.0)
    else:
        assert "LP" in entry.problem_classes, f"{name}: no small problem of {entry.problem_classes}"
        form = LPSVM(KP, Y, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve_problem(form, name.lower())       # any case, as resolve_solver
    assert isinstance(sol, Solution) and sol.solver == name
    assert sol.status in ("optimal", "optimal_inaccurate")


def test_installed_cvxpy_solvers_are_table_entries():
    assert set(installed_solvers()) <= set(SOLVERS)


@pytest.mark.parametrize("problem, solver", [
    (KSVMProblem(K, Y, 1.0), "libsvm"),                 # an own solver of another class
    (SVMDualProblem(KP, Y, 1.0), "CLARABEL"),           # a CVXPY solver needs a formulation
    (LPSVM(KP, Y, 1.0), "active-set"),                  # and a custom loop data, not CVXPY
    (object(), "pg"),                                   # no problem class at all
])
def test_wrong_problem_class_is_refused(problem, solver):
    with pytest.raises(ValueError, match="solve"):
        solve_problem(problem, solver)


def test_unknown_solver_is_refused_by_resolve_solver():
    with pytest.raises(ValueError, match="not installed|must be one of"):
        solve_problem(KSVMProblem(K, Y, 1.0), "no-such-solver")


def test_entry_added_to_the_table_is_dispatched(monkeypatch):
    entry = SolverEntry("closed-form-copy", "krein.formulations.clc:clc_closed_form",
                        ("clc-simplex",), "", "a copy of the closed form",
                        adapter="krein.solvers.adapters:closed_form")
    monkeypatch.setitem(SOLVERS, entry.name, entry)
    sol = solve_problem(CLCProblem(G2, C2, 3.0), "closed-form-copy")
    ref = solve_problem(CLCProblem(G2, C2, 3.0), "closed-form")
    np.testing.assert_array_equal(sol.primal["beta"], ref.primal["beta"])


def test_entry_returning_no_solution_is_refused(monkeypatch):
    entry = dataclasses.replace(SOLVERS["closed-form"], adapter="builtins:repr")   # a str
    monkeypatch.setitem(SOLVERS, "closed-form", entry)
    with pytest.raises(TypeError, match="not a Solution"):
        solve_problem(CLCProblem(G2, C2, 3.0), "closed-form")
