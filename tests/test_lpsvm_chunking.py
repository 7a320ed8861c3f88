"""Row chunking of the 1-norm LP machine (``krein/solvers/lp_chunking.py``) and LPSVC's
use of it on large landmark-columns blocks: the chunked LP is HiGHS's one-shot LP."""

from __future__ import annotations

import numpy as np
import pytest

from krein.approximation import IndefiniteNystroem
from krein.estimators import LPSVC
from krein.estimators import lpsvm as lpsvm_module
from krein.estimators.lpsvm import solve_margin
from krein.formulations import LPSVM
from krein.solvers.lp_chunking import lp_machine_certificate, solve_lp_machine_chunked


def _block(n, m, seed, indefinite=False):
    """A dense rectangular kernel block (points against m prototypes) and noisy labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    Z = rng.normal(size=(m, 2))
    if indefinite:
        K = np.tanh(0.7 * X @ Z.T - 0.3)
    else:
        K = np.exp(-0.5 * ((X[:, None, :] - Z[None]) ** 2).sum(-1))
    y = np.where(np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0, 1.0, -1.0)
    return K, y


@pytest.mark.parametrize("indefinite, weighted", [(False, False), (True, False), (False, True)])
def test_chunked_lp_is_the_one_shot_highs_lp(indefinite, weighted):
    """From a working set of 40 of 400 rows, grown 30 rows a round, the chunked LP reaches
    HiGHS's objective on the whole LP and the same decision values."""
    K, y = _block(400, 40, seed=1 + indefinite, indefinite=indefinite)
    C = np.where(y > 0, 2.0, 0.5) if weighted else 1.0
    ref = solve_margin(LPSVM, K, y, C, "HIGHS", {})
    sol = solve_lp_machine_chunked(K, y, C, initial_rows=40, batch=30)
    cert = sol.certificate
    assert sol.status == "optimal" and cert["violated_rows"] == 0
    assert cert["n_rounds"] >= 3 and cert["working_set_sizes"][0] <= 40
    assert cert["relative_gap"] < 1e-9 and cert["dual_residual"] < 1e-9
    np.testing.assert_allclose(sol.objective, ref.objective, rtol=1e-8)
    f_ref = K @ ref.primal["c"] + ref.primal["b"]
    f = K @ sol.primal["c"] + sol.primal["b"]
    np.testing.assert_allclose(f, f_ref, atol=1e-6 * np.abs(f_ref).max())
    # the certificate is the full problem's: recomputed from the returned point
    again = lp_machine_certificate(K, y, C, sol.primal["c"], sol.primal["b"], sol.dual["margin"])
    for key in ("relative_gap", "dual_residual"):
        assert abs(again[key] - cert[key]) < 1e-12
    np.testing.assert_allclose(sol.primal["xi"], np.maximum(0.0, 1.0 - y * f), atol=1e-12)


def test_one_round_drops_settled_rows_from_the_normal_matrix():
    """With all rows in one round (the default) the rows whose multipliers settle on a
    bound leave the interior-point normal matrix: at the end it holds about the
    interior multipliers (at most m + 1 at a vertex), not all n rows."""
    K, y = _block(600, 30, seed=4)
    ref = solve_margin(LPSVM, K, y, 1.0, "HIGHS", {})
    sol = solve_lp_machine_chunked(K, y, 1.0)
    cert = sol.certificate
    assert cert["n_rounds"] == 1 and cert["working_set_sizes"] == [600]
    kept = cert["normal_rows"][0]
    assert kept[0] == 600 and kept[-1] <= 100
    np.testing.assert_allclose(sol.objective, ref.objective, rtol=1e-8)


def test_stopped_chunking_is_not_certified():
    """One round on 40 of 400 rows leaves rows with y f < 1 outside the working set: the
    status says so and the full certificate shows the gap."""
    K, y = _block(400, 40, seed=3)
    sol = solve_lp_machine_chunked(K, y, 1.0, initial_rows=40, max_rounds=1)
    assert sol.status == "max_iter"
    assert sol.certificate["violated_rows"] > 0
    assert sol.certificate["relative_gap"] > 1e-3


def _landmark_problem(n, m, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 0, 1)
    y[: n // 3] = 2
    X[: n // 3] += 1.5
    L = X[rng.choice(n, m, replace=False)]
    sq = lambda A, B: ((A[:, None, :] - B[None]) ** 2).sum(-1)   # noqa: E731
    return np.exp(-sq(X, L)), np.exp(-sq(L, L)), y


def test_lpsvc_takes_the_chunked_path_on_large_blocks(monkeypatch):
    """LPSVC's landmark path solves a block of at least CHUNKING_MIN_ENTRIES entries by row
    chunking (several rounds when the first working set is small), with the decision
    values of the one-shot HiGHS path; below the threshold it keeps HiGHS."""
    Cm, W, y = _landmark_problem(450, 30)
    ny = IndefiniteNystroem(kernel="precomputed", landmark_block=W)
    whole = LPSVC(kernel="precomputed", solver="HIGHS", approximation=ny).fit(Cm, y)
    assert {s.solver for s in whole.solutions_} == {"HIGHS"}
    monkeypatch.setattr(lpsvm_module, "CHUNKING_MIN_ENTRIES", 100)
    monkeypatch.setattr(lpsvm_module, "CHUNK_INITIAL_ROWS", 30)
    chunked = LPSVC(kernel="precomputed", solver="HIGHS", approximation=ny).fit(Cm, y)
    sols = chunked.solutions_
    assert len(sols) == 3 and {s.solver for s in sols} == {"ipm-lp-machine"}
    for s in sols:
        assert s.status == "optimal" and s.certificate["n_rounds"] >= 2
        assert s.certificate["working_set_sizes"][0] <= 30
        assert s.certificate["relative_gap"] < 1e-9
    np.testing.assert_allclose([s.objective for s in sols],
                               [s.objective for s in whole.solutions_], rtol=1e-8)
    d_whole = whole.decision_function(Cm)
    np.testing.assert_allclose(chunked.decision_function(Cm), d_whole,
                               atol=1e-6 * np.abs(d_whole).max())


def test_lpsvc_block_at_the_threshold_uses_the_interior_point_working_set():
    """A two-class block of exactly CHUNKING_MIN_ENTRIES entries (4000 x 500) goes to the
    interior-point path, whose normal matrix ends with a small part of the rows and whose
    full certificate holds."""
    n, m = 4000, 500
    assert n * m == lpsvm_module.CHUNKING_MIN_ENTRIES
    rng = np.random.default_rng(5)
    X = rng.normal(size=(n, 2))
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] + 0.5 * rng.normal(size=n) > 0, 1, 0)
    L = X[rng.choice(n, m, replace=False)]
    sq = lambda A, B: ((A[:, None, :] - B[None]) ** 2).sum(-1)   # noqa: E731
    ny = IndefiniteNystroem(kernel="precomputed", landmark_block=np.exp(-sq(L, L)))
    est = LPSVC(kernel="precomputed", solver="HIGHS", approximation=ny).fit(np.exp(-sq(X, L)), y)
    (sol,) = est.solutions_
    assert sol.solver == "ipm-lp-machine" and sol.status == "optimal"
    kept = sol.certificate["normal_rows"][0]
    assert kept[0] == n and kept[-1] < n // 4
    assert sol.certificate["relative_gap"] < 1e-9 and sol.certificate["dual_residual"] < 1e-8


@pytest.mark.parametrize("chunk_from", [None, 100])
def test_lpsvc_landmark_pairs_on_threads_give_the_serial_fit(monkeypatch, chunk_from):
    """The landmark path's one-vs-one LPs run on two threads (row-chunked ones concurrently,
    CVXPY ones one at a time) with the serial fit's models."""
    import joblib

    Cm, W, y = _landmark_problem(450, 30)
    if chunk_from is not None:
        monkeypatch.setattr(lpsvm_module, "CHUNKING_MIN_ENTRIES", chunk_from)
        monkeypatch.setattr(lpsvm_module, "CHUNK_INITIAL_ROWS", 30)
    ny = IndefiniteNystroem(kernel="precomputed", landmark_block=W)
    serial = LPSVC(kernel="precomputed", solver="HIGHS", approximation=ny).fit(Cm, y)
    assert serial._parallel_pairs and len(serial.solutions_) == 3
    with joblib.parallel_config(n_jobs=2, prefer="threads"):
        threaded = LPSVC(kernel="precomputed", solver="HIGHS", approximation=ny).fit(Cm, y)
    assert [s.solver for s in threaded.solutions_] == [s.solver for s in serial.solutions_]
    np.testing.assert_array_equal(threaded.decision_function(Cm), serial.decision_function(Cm))
