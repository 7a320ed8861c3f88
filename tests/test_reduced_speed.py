"""The fast linear algebra of IKSVM-DC's landmark path (`krein/solvers/dca.py`).

* ``_ActiveGram.solve``: the Newton systems of the landmark subproblem solved from a kept
  Cholesky factor by the Woodbury formula against a dense solve, with the counters that
  show the low-rank path is taken;
* ``dca_landmarks`` with the low-rank solves against the same DCA with a fresh Cholesky
  factorization of every Newton system (the previous computation): the same iterations,
  objectives and certificate to round-off;
* ``dca_landmarks(accelerate=True)`` (Phan, Le & Le Thi 2018): a non-increasing objective,
  extrapolations accepted, the step test reached where plain DCA runs out of iterations,
  and a stationarity certificate at least as small.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from krein.kernels import pairwise_kernel
from krein.solvers.dca import _ActiveGram, dca_landmarks, landmark_dc_stationarity


def _problem(seed=1, n=200, m=30, gamma=2.0):
    """A landmark problem on which DCA runs hundreds of iterations (Gaussian kernel,
    landmarks from the pool of training and other points)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where(np.sin(3 * X[:, 0]) * np.sin(3 * X[:, 1]) > 0, 1.0, -1.0)
    L = rng.uniform(-1, 1, (m, 2))
    params = {"gamma": gamma}
    return pairwise_kernel("gaussian", X, L, params), pairwise_kernel("gaussian", L, L, params), y


def _dense_newton(C, Cv, y, active, theta, rho):
    m = C.shape[1]
    U = np.column_stack([C[active], np.ones(active.sum())])
    M = U.T @ (Cv[active, None] * U)
    M[np.arange(m), np.arange(m)] += rho
    rhs = np.r_[theta, 0.0] + U.T @ (Cv[active] * y[active])
    return np.linalg.solve(M, rhs), M


def test_low_rank_newton_solves_against_dense():
    """A walk of active sets (a few rows flip at a time, then a large jump): every solve
    has a backward error of round-off size and matches numpy's dense solve; small
    changes are solved from the kept factor, large ones refactor."""
    C, W, y = _problem()
    n, m = C.shape
    rng = np.random.default_rng(0)
    Cv = rng.uniform(0.5, 2.0, n)
    rho = float(np.linalg.eigvalsh(W)[-1]) + 1e-4
    gram = _ActiveGram(C, Cv, max_rank=100)
    active = rng.random(n) < 0.5
    for step in range(30):
        if step == 20:
            active = ~active                       # a change larger than max_rank
        else:
            flip = rng.choice(n, 3, replace=False)
            active[flip] = ~active[flip]
        theta = rng.normal(size=m)
        z = gram.solve(active, theta, rho, y)
        ref, M = _dense_newton(C, Cv, y, active, theta, rho)
        rhs = np.r_[theta, 0.0] + np.column_stack([C[active], np.ones(active.sum())]).T \
            @ (Cv[active] * y[active])
        backward = np.abs(M @ z - rhs).max() / (np.abs(M).max() * np.abs(z).sum()
                                                 + np.abs(rhs).max())
        assert backward < 1e-13
        np.testing.assert_allclose(z, ref, rtol=0, atol=1e-8 * np.abs(ref).max())
    # factored at the first set and after the jump; all other systems from the kept factor
    assert gram.factorizations == 2
    assert gram.low_rank_solves == 28


def _fresh_factor_every_system(monkeypatch):
    """Patch ``_ActiveGram.solve`` to drop the kept factor first: every Newton system is
    then factored afresh (``set`` + ``potrf`` on the current rows), the computation
    without the low-rank path."""
    solve = _ActiveGram.solve

    def fresh(self, active, theta, rho, y):
        self.factor = None
        return solve(self, active, theta, rho, y)

    monkeypatch.setattr(_ActiveGram, "solve", fresh)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_low_rank_dca_is_the_freshly_factored_dca(monkeypatch, seed):
    """300 DCA iterations with the low-rank Newton solves against the same DCA with a
    Cholesky factorization of every Newton system: the same number of iterations, stop
    and Newton steps, the objectives along the path and the final point and
    stationarity certificate to round-off; the kept factors serve most systems."""
    C, W, y = _problem(seed=seed)
    kw = dict(max_iter=300, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast = dca_landmarks(C, W, y, 1.0, **kw)
        with monkeypatch.context() as mp:
            _fresh_factor_every_system(mp)
            slow = dca_landmarks(C, W, y, 1.0, **kw)
    assert fast.iterations == slow.iterations
    assert fast.certificate["stop"] == slow.certificate["stop"]
    np.testing.assert_array_equal(fast.trace["subproblem_iter"], slow.trace["subproblem_iter"])
    np.testing.assert_allclose(fast.trace["objective"], slow.trace["objective"], rtol=1e-10)
    beta_scale = np.abs(slow.primal["beta"]).max()
    np.testing.assert_allclose(fast.primal["beta"], slow.primal["beta"], rtol=0,
                               atol=1e-8 * beta_scale)
    assert fast.certificate["grad_norm"] == pytest.approx(slow.certificate["grad_norm"],
                                                          rel=1e-6)
    newton = int(fast.trace["subproblem_iter"].sum())
    assert slow.certificate["low_rank_solves"] == 0
    assert slow.certificate["factorizations"] >= newton // 2
    assert fast.certificate["low_rank_solves"] >= 0.8 * newton
    assert fast.certificate["factorizations"] <= newton // 10


def test_accelerated_dca_descends_and_reaches_the_step_test():
    """ADCA (extrapolation accepted when it does not increase F): the objective never
    increases, extrapolations are taken, the step test stops it within 1000 iterations
    where plain DCA runs out of them, at a lower objective and a smaller stationarity
    residual."""
    C, W, y = _problem(seed=0, gamma=5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = dca_landmarks(C, W, y, 1.0, max_iter=1000, random_state=0)
    acc = dca_landmarks(C, W, y, 1.0, max_iter=1000, random_state=0, accelerate=True)
    assert plain.certificate["stop"] == "max_iter"
    assert acc.certificate["stop"] == "step" and acc.iterations < 1000
    assert acc.trace["step"].iloc[-1] <= 1e-6
    assert np.all(np.diff(acc.trace["objective"]) <= 0.0)
    assert acc.certificate["extrapolations"] > acc.iterations // 2
    assert plain.certificate["extrapolations"] == 0
    assert acc.objective < plain.objective
    stat = landmark_dc_stationarity(C, W, y, 1.0, acc.primal["beta"], acc.primal["b"])
    assert acc.certificate["grad_norm"] == stat < plain.certificate["grad_norm"]


def test_dcsvc_accelerate_reaches_the_landmark_path_only():
    """``DCSVC(accelerate=True)`` runs the accelerated landmark DCA (its extrapolations
    are in the solution) and is refused on the exact path."""
    from krein.approximation import IndefiniteNystroem
    from krein.estimators import DCSVC

    C, W, y = _problem(seed=0, gamma=5.0)
    ny = IndefiniteNystroem(kernel="precomputed", landmark_block=W)
    est = DCSVC(kernel="precomputed", approximation=ny, accelerate=True, random_state=0,
                max_iter=1000).fit(C, y)
    sol = est.solutions_[0]
    assert sol.certificate["extrapolations"] > 0
    ref = dca_landmarks(C, W, y, 1.0, max_iter=1000, random_state=np.random.RandomState(0),
                        accelerate=True)
    np.testing.assert_array_equal(sol.primal["beta"], ref.primal["beta"])
    K = pairwise_kernel("gaussian", *(2 * [np.random.default_rng(0).uniform(-1, 1, (20, 2))]),
                        {"gamma": 1.0})
    with pytest.raises(ValueError, match="accelerate"):
        DCSVC(kernel="precomputed", accelerate=True).fit(K, np.r_[np.zeros(10), np.ones(10)])


def test_gram_gradient_residual_is_the_direct_one():
    """The subproblem's relative gradient residual from the kept Newton system (Woodbury
    rows, the reference's own set, no active row) equals the one computed with products
    with ``C``, at points whose active set is the solved system's."""
    from krein.solvers.dca import _gram_residual, _landmark_subproblem_gradient

    C, W, y = _problem()
    n, m = C.shape
    rng = np.random.default_rng(3)
    Cv = rng.uniform(0.5, 2.0, n)
    rho = float(np.linalg.eigvalsh(W)[-1]) + 1e-4
    gram = _ActiveGram(C, Cv, max_rank=40)
    beta = rng.normal(size=m)
    kinds = set()
    for step in range(12):
        beta = beta + 0.05 * rng.normal(size=m)
        b = 0.5
        theta = rng.normal(size=m)
        Cbeta = C @ beta
        if step == 11:                 # a point with every margin above 1: no active row
            Cbeta = 2.0 * y - b
        r = 1.0 - y * (Cbeta + b)
        active = r > 0
        if active.any():
            before = gram.low_rank_solves
            gram.solve(active, theta, rho, y)
            kinds.add("woodbury" if gram.system[1] is not None else
                      ("kept" if gram.low_rank_solves > before else "fresh"))
        else:
            kinds.add("empty")
        w = Cv * y * np.maximum(r, 0.0)
        mine = _gram_residual(gram, active, np.r_[beta, b], theta, rho, w)
        ref = _landmark_subproblem_gradient(C, y, Cv, rho, theta, beta, b, Cbeta)
        assert ref > 1e-3                                   # far from a minimizer
        assert mine == pytest.approx(ref, rel=1e-10)
    assert {"woodbury", "fresh", "empty"} <= kinds


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_predicted_start_gives_the_same_dca(monkeypatch, seed):
    """Each DCA subproblem started at the predicted minimizer against the same DCA with
    every subproblem started at the linearization point (the finite Newton method's
    usual start): the same iterations, stop, objectives and point to the subproblems'
    tolerance, with fewer Newton iterations, most subproblems solved by their first
    Newton point; the trace's last objective is F at the returned point."""
    import krein.solvers.dca as dca_module
    from krein.solvers.dca import landmark_dc_objective

    C, W, y = _problem(seed=seed)
    kw = dict(max_iter=300, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast = dca_landmarks(C, W, y, 1.0, **kw)
        with monkeypatch.context() as mp:
            mp.setattr(dca_module, "_predicted_start", lambda history, *v: v)
            plain = dca_landmarks(C, W, y, 1.0, **kw)
    assert fast.iterations == plain.iterations
    assert fast.certificate["stop"] == plain.certificate["stop"]
    np.testing.assert_allclose(fast.trace["objective"], plain.trace["objective"], rtol=1e-8)
    np.testing.assert_allclose(fast.primal["beta"], plain.primal["beta"], rtol=0,
                               atol=1e-7 * np.abs(plain.primal["beta"]).max())
    assert fast.certificate["grad_norm"] == pytest.approx(plain.certificate["grad_norm"],
                                                          rel=1e-6)
    assert fast.trace["objective"].iloc[-1] == pytest.approx(
        landmark_dc_objective(C, W, y, 1.0, fast.primal["beta"], fast.primal["b"]), rel=1e-12)
    sub_fast = fast.trace["subproblem_iter"].iloc[1:]
    sub_plain = plain.trace["subproblem_iter"].iloc[1:]
    assert sub_fast.sum() < sub_plain.sum()
    assert np.mean(sub_fast == 1) > 0.5
    assert fast.certificate["predicted_starts"] >= fast.iterations - 3
    assert plain.certificate["predicted_starts"] == 0
