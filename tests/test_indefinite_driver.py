"""The IndefiniteSVM family as one subpackage: one iteration driver,
one solver contract, one vocabulary.

Checked against the driver's contract written out here (a toy step), against the
algorithms' own docstrings, against a spy on the oracle and against fresh builds:

* every loop (PG, APG, ACCPM, exchange) runs through :func:`krein.solvers.indefinite.driver.run`,
  which stops on the certified gap or on the step's own optimality test, calls the
  work between iterations only while the loop goes on, writes the common trace
  columns around the step's, and warns at ``max_iter``;
* no module of the family imports another module's private name;
* the oracle's counter is the number of evaluations asked of it (nobody else edits it);
* each loop's docstring names the statuses it returns;
* every Solution of the family is complete (``certificate_kind``, intercept,
  coefficients) without an estimator patching it: PerturbSVC's CVXPY path, the
  linear SVM of the approximate path;
* PerturbSVM's public parameter is ``rho``; ``ProxyKernelProblem``'s is ``model``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import krein
from krein.formulations.indefinite import ProxyKernelProblem
from krein.kernels import sigmoid_kernel

ROOT = Path(krein.__file__).parent
ALGORITHMS = ("pg", "apg", "accpm", "exchange")
#: The files of the IndefiniteSVM family: the solver subpackage, any single solver module
#: of the family that exists beside it, its formulation and its estimators.
FAMILY = sorted((ROOT / "solvers" / "indefinite").glob("*.py")) + [
    p for p in (ROOT / "solvers" / f"{m}.py"
                for m in ("indefinite", "accpm", "exchange", "proxy", "analytic_center"))
    if p.exists()] + [ROOT / "formulations" / "indefinite.py",
                      ROOT / "estimators" / "indefinite.py",
                      ROOT / "estimators" / "approximate.py"]


def _data(n=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return sigmoid_kernel(X, a=0.5, r=-1.0), y


def _problem(model="svc"):
    K, y = _data()
    target = {"svc": y, "svr": np.linspace(-1.0, 1.0, K.shape[0]), "one-class": None}[model]
    return ProxyKernelProblem(K, target, model, C=1.0, rho=1.0, nu=0.5)


def _loop(name):
    from krein.solvers import INDEFINITE_SOLVERS

    return INDEFINITE_SOLVERS[name]


# ============================================================== the driver
@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_loop_runs_through_the_one_driver(monkeypatch, name):
    driver = importlib.import_module("krein.solvers.indefinite.driver")
    module = importlib.import_module(f"krein.solvers.indefinite.{name}")
    calls = []

    def spy(cert, algorithm, step, **kw):
        calls.append(algorithm)
        return driver.run(cert, algorithm, step, **kw)

    monkeypatch.setattr(module, "run", spy)
    sol = _loop(name)(_problem(), tol=1e3, max_iter=3, gap_every=0)
    assert calls == [name]
    assert sol.solver == name
    cols = list(sol.trace.columns)
    assert cols[:5] == ["iter", "objective", "lower", "upper", "gap"]
    assert cols[-2:] == ["seconds", "gap_seconds"]


def test_driver_contract_on_a_toy_step():
    """``run`` with a step that stays at one point: the work between iterations runs
    only while the loop goes on and may fill the step's columns; the step's own
    optimality test stops the loop as converged; max_iter warns."""
    from krein.solvers.indefinite.certifier import Certifier
    from krein.solvers.indefinite.driver import Step, run

    P = _problem()
    beta = P.initial_point()

    def make(stop_at):
        cert = Certifier(P)
        after_calls = []

        def step(k):
            f, grad, ev = cert.evaluate(beta)
            return Step(beta, f, ev, {"mine": -1}, stationary=(k == stop_at))

        def after(k, columns):
            after_calls.append(k)
            columns["mine"] = k

        return cert, step, after, after_calls

    cert, step, after, calls = make(stop_at=3)
    sol = run(cert, "toy", step, tol=0.0, atol=0.0, max_iter=10, gap_every=0, t0=0.0,
              t_setup=0.0, after=after)
    assert sol.status == "optimal" and sol.iterations == 3
    assert calls == [1, 2]                       # not after the last iteration
    assert list(sol.trace["mine"]) == [1, 2, -1]
    assert list(sol.trace.columns) == ["iter", "objective", "lower", "upper", "gap", "bound",
                                       "mine", "seconds", "gap_seconds"]
    assert sol.certificate_kind == "relative_gap"

    cert, step, after, calls = make(stop_at=None)
    with pytest.warns(ConvergenceWarning, match="toy stopped at max_iter=4"):
        sol = run(cert, "toy", step, tol=0.0, atol=0.0, max_iter=4, gap_every=2, t0=0.0,
                  t_setup=0.0, after=after)
    assert sol.status == "max_iter" and sol.iterations == 4 and calls == [1, 2, 3, 4]
    # the checks at k = 2 and 4 (libsvm, or the interior-point method on a small svc)
    assert sol.certificate["n_libsvm"] + sol.certificate["n_interior_point"] >= 2


# ============================================================== no shared private helper
def test_family_imports_no_private_name():
    bad = {}
    for path in FAMILY:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (
                    node.level or (node.module or "").startswith("krein")):
                names = [a.name for a in node.names if a.name.startswith("_")]
                if names:
                    bad.setdefault(str(path.relative_to(ROOT)), []).extend(names)
    assert not bad, f"private names imported across modules: {bad}"


# ============================================================== the oracle's own counter
def test_oracle_counts_its_own_work(monkeypatch):
    """The counter of the oracle is the number of evaluations asked of it: building a
    Certifier (which needs ``g(0)``) does not evaluate-and-decrement."""
    from krein.solvers import ProxyKernelOracle, projected_gradient

    P = _problem()
    oracle = ProxyKernelOracle(P.K0, P.rho)
    asked = []
    real = oracle.evaluate

    def spy(u):
        asked.append(1)
        return real(u)

    monkeypatch.setattr(oracle, "evaluate", spy)
    sol = projected_gradient(P, tol=1e-2, max_iter=20, gap_every=0, oracle=oracle)
    assert oracle.n_evals == len(asked) == sol.certificate["n_oracle"]
    assert sol.certificate["objective_offset"] == pytest.approx(
        P.rho * float(np.sum(np.minimum(np.linalg.eigvalsh(P.K0), 0.0) ** 2)), rel=1e-9)


# ============================================================== statuses as documented
@pytest.mark.parametrize("name", ALGORITHMS)
def test_docstring_names_the_statuses_the_loop_returns(name):
    import warnings

    fn = _loop(name)
    returns = inspect.getdoc(fn).split("Returns\n-------", 1)[1].split("\n\n", 1)[0]
    P = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        statuses = {fn(P, tol=1e3, max_iter=3, gap_every=0).status,
                    fn(P, tol=0.0, atol=0.0, max_iter=1, gap_every=0).status}
    assert statuses == {"optimal", "max_iter"}
    for status in statuses:
        assert f'``"{status}"``' in returns, (name, status)
    assert '"converged"' not in inspect.getdoc(fn)


# ============================================================== complete solutions
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("model", ["svc", "svr", "one-class"])
@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_loop_solution_says_what_its_certificate_measures(name, model):
    sol = _loop(name)(_problem(model), tol=1e-2, max_iter=2, gap_every=1,
                      out_of_sample="spectral")
    assert sol.certificate_kind == "relative_gap"
    assert sol.certificate_kind in krein.solvers.core.CERTIFICATE_KINDS
    assert np.isfinite(sol.certificate["relative_gap"]) and sol.intercept is not None
    assert sol.coef.shape == (_problem(model).n,)


def test_perturb_cvxpy_path_is_a_complete_solution_the_estimator_stores():
    from krein.estimators import PerturbSVC
    from krein.kernels import gaussian_kernel
    from krein.solvers.indefinite import perturb_svm_cvxpy

    rng = np.random.default_rng(1)
    X = rng.normal(size=(16, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = gaussian_kernel(X, X, gamma=0.5)
    P = ProxyKernelProblem(K, y, model="svc", C=1.0, rho=1.0)
    sol = perturb_svm_cvxpy(P, "CLARABEL")
    assert sol.solver == "perturb-cvxpy" and sol.status == "optimal"
    assert sol.certificate_kind == "relative_gap"
    np.testing.assert_array_equal(sol.coef, sol.primal["u"])          # the raw map
    est = PerturbSVC(kernel="precomputed", C=1.0, rho=1.0, solver="CLARABEL").fit(K, y)
    stored = est.binary_models_[0].info["solution"]
    assert stored.certificate_kind == "relative_gap" and stored.status == sol.status
    np.testing.assert_allclose(stored.primal["alpha"], sol.primal["alpha"], atol=1e-9)
    assert stored.intercept == pytest.approx(sol.intercept, abs=1e-7)


@pytest.mark.parametrize("solver,kind", [("libsvm", "gap"), ("CLARABEL", "gap"),
                                         ("liblinear", "")])
def test_linear_svm_solution_is_complete(solver, kind):
    from krein.solvers.linear import linear_svm

    rng = np.random.default_rng(2)
    Phi = rng.normal(size=(20, 3))
    y = np.where(Phi[:, 0] + 0.2 * rng.normal(size=20) > 0, 1.0, -1.0)
    w, b, sol = linear_svm(Phi, y, 1.0, solver, tol=1e-6)
    assert sol.certificate_kind == kind and sol.intercept == b
    if kind:
        assert sol.certificate[kind] <= 1e-3 and "alpha" in sol.primal


# ============================================================== vocabulary
def test_perturbsvm_public_parameter_is_rho():
    from krein.formulations import PerturbSVM
    from krein.kernels import gaussian_kernel
    from krein.solvers import solve

    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = gaussian_kernel(X, X, gamma=0.5)
    f = PerturbSVM(K, y, C=1.0, rho=1.0)
    assert "inv16rho" not in f.parameters
    f.set(rho=0.05)
    assert f.rho == 0.05 and f.is_dpp()
    fresh = solve(PerturbSVM(K, y, C=1.0, rho=0.05), "CLARABEL").objective
    assert solve(f, "CLARABEL").objective == pytest.approx(fresh, rel=1e-6)
    with pytest.raises(ValueError, match="rho"):
        f.set(rho=0.0)


def test_problem_parameter_is_model():
    from krein.formulations.indefinite import MODELS

    assert MODELS == ("svc", "svr", "one-class")
    P = _problem("svr")
    assert P.model == "svr" and P.m == 2 * P.n
    with pytest.raises(ValueError, match="model must be one of"):
        ProxyKernelProblem(P.K0, None, model="outlier")
