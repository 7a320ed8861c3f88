"""The one solver contract: one table, one resolution, complete Solutions.

Checked against things outside the code under test:

* the registry (``krein.registry``): every solver name an estimator of a registered
  method accepts is an entry of :data:`krein.solvers.SOLVERS` (or ``"auto"``, the
  estimator's choice), and its default resolves through :func:`resolve_solver`;
* CVXPY's own lists (``cvxpy.installed_solvers()``, the solver interfaces) for the
  generated CVXPY entries;
* the solver paths other than a method's default (CLARABEL, libsvm, nu-SVM) fitted on a
  tiny kernel: each of their solutions states what its certificate measures, and the
  number is there (the default path of every registered method is held to the kind
  its registry entry declares in ``tests/test_registry_rules.py``);
* fakes standing in for CVXPY's ``Problem.solve``, which raise an error with a
  chosen message: the error is classified by CVXPY's chain check and by whether the
  solve runs without the options, never by the message's words.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.utils._param_validation import StrOptions

import krein
from krein.formulations.base import Formulation
from krein.formulations.svm import SVMDual
from krein.registry import list_methods, make_method
from krein.solvers import (CERTIFICATE_KINDS, INDEFINITE_ALGORITHMS, INDEFINITE_SOLVERS,
                           PROBLEM_CLASSES, SOLVERS, STATUSES, Solution, SolverError,
                           SolverName, resolve_comparison_solver, resolve_solver,
                           solver_capabilities, solve)


def _tiny(n=24, seed=0):
    """A tiny indefinite (sigmoid) kernel, a PSD (Gaussian) one, labels in {0, 1}."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    K_ind = np.tanh(0.5 * X @ X.T - 0.2)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    return K_ind, np.exp(-0.5 * d2), y, X


def _solver_objects(est):
    """The estimator and every nested estimator/transformer of its parameters."""
    out = [est]
    for v in est.get_params(deep=True).values():
        if hasattr(v, "_parameter_constraints") and hasattr(v, "get_params"):
            out.append(v)
    return out


# ---------------------------------------------------------------------------- the table
def test_every_registered_method_resolves_its_solver_names_through_the_table():
    checked = 0
    for name in list_methods():
        for obj in _solver_objects(make_method(name)):
            cons = getattr(obj, "_parameter_constraints", {}).get("solver")
            if cons is None:
                continue
            own = [c for c in cons if isinstance(c, SolverName)]
            names = [o for c in cons if isinstance(c, StrOptions) for o in c.options]
            for custom in names:
                assert custom == "auto" or custom in SOLVERS, (name, custom)
                assert custom == "auto" or SOLVERS[custom].backend != "cvxpy"
            value = obj.get_params(deep=False)["solver"]
            accepted = own[0].custom if own else tuple(names) or (value.lower(),)
            cvxpy = own[0].cvxpy if own else not names
            got = resolve_solver(value, accepted, cvxpy=cvxpy, approximation=True)
            assert got == "auto" or got in SOLVERS, (name, value)
            checked += 1
    assert checked >= 10


def test_unknown_solver_lists_accepted_names_and_install_hint():
    with pytest.raises(ValueError) as exc:
        resolve_solver("no-such-solver", ("libsvm", "active-set"))
    msg = str(exc.value)
    for name in ["'libsvm'", "'active-set'"] + krein.installed_solvers():
        assert name in msg
    assert "krein[solvers]" in msg or "pip install" in msg
    with pytest.raises(ValueError, match="solver"):
        resolve_solver(3, ("libsvm",))
    missing = [n for n, e in SOLVERS.items() if e.backend == "cvxpy" and not e.installed()]
    if missing:
        with pytest.raises(ValueError, match=r"not installed.*To add it"):
            resolve_solver(missing[0].lower())
    # the case rules: own names lower case, CVXPY names upper case
    assert resolve_solver("LibSVM", ("libsvm",)) == "libsvm"
    assert resolve_solver("clarabel") == "CLARABEL"
    with pytest.raises(ValueError, match="must be one of"):
        resolve_solver("CLARABEL", ("pg",), cvxpy=False)


def test_comparison_solver_resolution():
    """The function ``krein compare`` calls: libsvm, liblinear with features only, CVXPY."""
    assert resolve_comparison_solver(None) is None
    assert resolve_comparison_solver("LIBSVM") == "libsvm"
    assert resolve_comparison_solver("clarabel") == "CLARABEL"
    with pytest.raises(ValueError, match="needs an approximation"):
        resolve_comparison_solver("liblinear")
    assert resolve_comparison_solver("liblinear", "nystroem:10") == "liblinear"
    with pytest.raises(ValueError, match="libsvm"):
        resolve_comparison_solver("nope")


def test_table_entries_are_callable_with_their_problem_classes():
    import cvxpy.reductions.solvers.defines as defines

    cvxpy_names = set(defines.SOLVER_MAP_CONIC) | set(defines.SOLVER_MAP_QP)
    assert {n for n, e in SOLVERS.items() if e.backend == "cvxpy"} == cvxpy_names
    for name, entry in SOLVERS.items():
        assert entry.name == name and entry.description
        assert entry.problem_classes and set(entry.problem_classes) <= set(PROBLEM_CLASSES)
        if entry.backend == "cvxpy":
            assert entry.install_hint and name == name.upper()
        else:
            assert name == name.lower()
        if entry.installed():
            assert callable(entry.function), name
    for name in INDEFINITE_ALGORITHMS:
        assert INDEFINITE_SOLVERS[name] is SOLVERS[name].function
    rows = solver_capabilities()
    assert [r["name"] for r in rows] == krein.installed_solvers() + ["libsvm"]
    # two entries called through the table: the libsvm entry and a CVXPY one
    K_ind, K_psd, y01, _ = _tiny()
    y = np.where(y01 == 1, 1.0, -1.0)
    sol = SOLVERS["libsvm"](K_psd, y, 1.0)
    assert isinstance(sol, Solution) and sol.certificate_kind == "residual"
    assert sol.intercept is not None and "u" in sol.primal
    cvx = SOLVERS["CLARABEL"](SVMDual(y, K=K_psd, C=1.0))
    assert cvx.solver == "CLARABEL" and cvx.certificate_kind == "gap"
    assert abs(cvx.objective - sol.objective) <= 1e-2 * abs(cvx.objective)


def test_solution_rejects_a_status_outside_the_set():
    common = dict(solver="x", objective=0.0, primal={}, dual={}, setup_time=0.0,
                  solve_time=0.0, iterations=0, primal_residual=0.0, dual_residual=0.0,
                  gap=0.0)
    for status in STATUSES:
        Solution(status=status, **common)
    with pytest.raises(ValueError, match="status"):
        Solution(status="done", **common)
    with pytest.raises(ValueError, match="certificate_kind"):
        Solution(status="optimal", certificate_kind="happiness", **common)


# ---------------------------------------------------------------------------- certificate kinds

#: Solver paths other than the default: (method, parameters, certificate kind).
_EXTRA_PATHS = [("esvm", {"solver": "CLARABEL"}, "gap"),
                ("ksvm", {"solver": "CLARABEL"}, "kkt_residual"),
                ("mod-svm", {"solver": "libsvm"}, "residual"),
                ("ch", {"solver": "CLARABEL"}, "fw_gap"),
                ("ch", {"solver": "nu-svm"}, "fw_gap")]


@pytest.mark.parametrize("name,params,kind", _EXTRA_PATHS,
                         ids=[f"{n}-{p['solver']}" for n, p, _ in _EXTRA_PATHS])
def test_other_solver_paths_state_their_certificate_kind(name, params, kind):
    K_ind, K_psd, y, _ = _tiny()
    est = make_method(name, kernel="precomputed", **params)
    psd = params.get("solver") == "CLARABEL"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(K_psd if psd else K_ind, y)
    sols = est.solutions_
    assert sols and all(isinstance(s, Solution) for s in sols)
    for s in sols:
        assert s.certificate_kind in CERTIFICATE_KINDS, (name, s.solver)
        assert np.isfinite(s.certificate[s.certificate_kind])
        assert s.certificate_kind == kind
    if name == "mod-svm":   # the libsvm path returns the dual point and the coefficients
        s = sols[0]
        np.testing.assert_array_equal(s.primal["beta"], s.primal["alpha"])
        np.testing.assert_allclose(est.dual_coef_[0], s.coef[est.support_])
    if name == "ch" and params.get("solver") == "CLARABEL":     # the finished point
        s = sols[0]
        assert s.objective == s.certificate["projected"]["objective"]
        assert s.gap == s.certificate["fw_gap"] == s.certificate["projected"]["fw_gap"]


# ---------------------------------------------------------------------------- Formulation.set
def test_formulation_set_accepts_array_C_and_zero():
    _, K_psd, y01, _ = _tiny(12)
    y = np.where(y01 == 1, 1.0, -1.0)
    f = SVMDual(y, K=K_psd, C=np.ones(12))
    f.set(C=np.full(12, 2.0))
    np.testing.assert_array_equal(f.parameters["C"].value, 2.0)
    with pytest.raises(ValueError, match="shape"):
        f.set(C=np.ones(5))
    with pytest.raises(ValueError):
        f.set(C=np.r_[np.ones(11), -1.0])
    w = cp.Parameter(nonneg=True, name="w", value=1.0)
    x = cp.Variable()
    g = Formulation(cp.Problem(cp.Minimize(w * cp.square(x - 1) + cp.square(x))), {"w": w})
    g.set(w=0)                                 # a non-negative parameter takes 0
    assert float(w.value) == 0.0
    with pytest.raises(ValueError):
        g.set(w=-1.0)


# ---------------------------------------------------------------------------- solve() errors
def _fake_solve(problem, exc):
    def fake(*args, **kwargs):
        raise exc
    problem.solve = fake


def test_unsupported_problem_class_is_value_error_whatever_the_message():
    # an SDP given to OSQP (LP/QP only), whose error message carries no telling words
    X = cp.Variable((2, 2), PSD=True)
    sdp = Formulation(cp.Problem(cp.Minimize(cp.trace(X)), [X[0, 0] >= 1]))
    _fake_solve(sdp.problem, cp.error.SolverError("opaque"))
    with pytest.raises(ValueError, match="cannot solve"):
        solve(sdp, "OSQP")
    # a solver failure on a problem it does solve, whose message says "cannot"
    _, K_psd, y01, _ = _tiny(12)
    f = SVMDual(np.where(y01 == 1, 1.0, -1.0), K=K_psd)
    _fake_solve(f.problem, cp.error.SolverError("the solver cannot go on: numerical trouble"))
    with pytest.raises(SolverError) as exc:
        solve(f, "CLARABEL")
    assert exc.value.status == "solver_error"


def test_type_error_inside_a_solver_is_not_a_bad_option():
    _, K_psd, y01, _ = _tiny(12)
    f = SVMDual(np.where(y01 == 1, 1.0, -1.0), K=K_psd)
    _fake_solve(f.problem, TypeError("unsupported operand type(s) inside the solver"))
    for options in ({}, {"max_iter": 50}):
        with pytest.raises(SolverError, match="TypeError") as exc:
            solve(f, "CLARABEL", **options)
        assert "bad option" not in str(exc.value)
    g = SVMDual(np.where(y01 == 1, 1.0, -1.0), K=K_psd)
    with pytest.raises(ValueError, match="bad option"):        # a real unknown option
        solve(g, "CLARABEL", no_such_option=1)


#: What each custom loop's Solution measures (its certificate kind).
_LOOP_KINDS = {"dykstra": "gap", "plain": "gap", "anderson": "gap", "newton": "gap",
               "optimize": "grad_norm", "search": "grad_norm", "lbfgs": "grad_norm",
               "bending": "", "active-set": "kkt_residual", "sparse-bayes": "max_abs_gradient",
               "nu-svm": "fw_gap", "multistart": "fw_gap", "libsvm": "residual",
               "liblinear": ""}


@pytest.mark.parametrize("name", sorted(_LOOP_KINDS))
def test_custom_loops_called_through_the_table_state_their_kind(name):
    K_ind, K_psd, y01, X = _tiny(16)
    y = np.where(y01 == 1, 1.0, -1.0)
    args = {"optimize": (K_ind, K_psd), "search": (K_ind, K_psd), "lbfgs": (K_ind, K_psd),
            "active-set": (K_ind, y, 1.0), "sparse-bayes": (K_psd, y01),
            "nu-svm": (K_ind, y, 1.0), "multistart": (K_ind, y, 1.0),
            "libsvm": (K_ind, y, 1.0), "liblinear": (X, y, 1.0)}.get(name, (K_ind,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = SOLVERS[name](*args, **({"max_iter": 50} if name in ("dykstra", "plain", "anderson")
                                      else {}))
    sol = next(o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, Solution))
    assert sol.status in STATUSES
    assert sol.certificate_kind == _LOOP_KINDS[name]
    if sol.certificate_kind:
        assert np.isfinite(sol.certificate[sol.certificate_kind])
