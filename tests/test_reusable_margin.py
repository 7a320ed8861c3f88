"""Reusable margin formulations: LP-SVM and Mod SVM compiled once per shape.

The independent check is a FRESH formulation (constant data, compiled for this block
alone) solved by the same solver: a re-solve of the kept problem with another block,
other labels and another ``C`` must give its solution to the solver's tolerance, with
nothing of an earlier solve leaking in (values, duals, parameter values), also when
threads share the store; the store stays bounded; both paths of
:func:`krein.estimators.lpsvm.solve_margin` (kept problem / own problem) agree.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from krein.estimators import lpsvm as lpsvm_estimator
from krein.estimators.lpsvm import solve_margin
from krein.formulations.base import REUSABLE_MAX_ENTRIES, reusable_formulation
from krein.formulations.lpsvm import LPSVM
from krein.formulations.modsvm import ModSVM
from krein.solvers import solve

# solution agreement: the objective to a relative 1e-6 (CLARABEL's gap tolerance is
# 1e-8); the coefficients to 1e-4 (an interior-point point, not a vertex)
OBJ_RTOL, COEF_ATOL = 1e-6, 1e-4


def _block(seed, n=24, m=None):
    """An indefinite kernel block (a sigmoid kernel of 2-D points) and labels in {-1, +1}."""
    rng = np.random.default_rng(seed)
    m = n if m is None else m
    X = rng.normal(size=(max(n, m), 2))
    y = np.where(X[:n, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    y[:2] = (-1.0, 1.0)
    K = np.tanh(0.7 * X[:n] @ X[:m].T - 0.5)
    return K, y


def _fresh(cls, K, y, C):
    sol = solve(cls(K, y, C=C), "CLARABEL", certificate_kind="relative_gap")
    return sol


def _agree(a, b, name):
    assert a.objective == pytest.approx(b.objective, rel=OBJ_RTOL)
    np.testing.assert_allclose(a.primal[name], b.primal[name], atol=COEF_ATOL)
    np.testing.assert_allclose(a.primal["b"], b.primal["b"], atol=COEF_ATOL)
    np.testing.assert_allclose(a.dual["margin"], b.dual["margin"], atol=COEF_ATOL * 10)


@pytest.mark.parametrize("cls,name", [(LPSVM, "c"), (ModSVM, "alpha")])
@pytest.mark.parametrize("per_sample", [False, True])
def test_resolve_of_kept_problem_equals_fresh_solve(cls, name, per_sample):
    blocks = [_block(s) for s in (0, 1, 2)]
    Cs = [0.3, 5.0, 1.0]
    n = blocks[0][1].size

    def C_of(i):
        return np.linspace(0.5, 2.0, n) * Cs[i] if per_sample else Cs[i]

    kept = cls(*blocks[0], C=C_of(0), reusable=True)
    first = None
    for i, (K, y) in enumerate(blocks + blocks[:1]):     # A, B, C, then A again
        j = i % len(blocks)
        sol = solve(kept.set_data(K, y).set(C=C_of(j)), "CLARABEL",
                    certificate_kind="relative_gap")
        _agree(sol, _fresh(cls, K, y, C_of(j)), name)
        assert sol.certificate["relative_gap"] < 1e-6   # the kept formulation's certificate
        if i == 0:
            first = sol
    # the last solve (block A again, after B and C) is the first one: nothing leaked
    _agree(sol, first, name)


def test_set_data_refuses_constant_formulation_and_other_shapes():
    K, y = _block(0)
    with pytest.raises(ValueError, match="reusable=False"):
        LPSVM(K, y).set_data(K, y)
    kept = ModSVM(K, y, reusable=True)
    with pytest.raises(ValueError, match="K must have shape"):
        kept.set_data(K[:, :-1], y)
    with pytest.raises(ValueError, match="NaN"):
        kept.set_data(np.full_like(K, np.nan), y)


def test_store_is_bounded_and_builds_once_per_key():
    builds = []

    def build():
        builds.append(1)
        return object()

    key = ("test-store", "first")
    with reusable_formulation(key, build):
        pass
    with reusable_formulation(key, build):
        pass
    assert len(builds) == 1                                # kept: built once
    for i in range(REUSABLE_MAX_ENTRIES):                  # more keys than the bound
        with reusable_formulation(("test-store", i), build):
            pass
    with reusable_formulation(key, build):
        pass
    assert len(builds) == REUSABLE_MAX_ENTRIES + 2         # the first was evicted


def test_threads_sharing_one_kept_problem_get_their_own_solutions():
    blocks = [_block(s, n=20) for s in range(6)]
    Cs = [0.5, 1.0, 2.0, 4.0, 8.0, 0.25]
    serial = [solve_margin(LPSVM, K, y, C, "CLARABEL", {}) for (K, y), C in zip(blocks, Cs)]
    out = [None] * len(blocks)
    barrier = threading.Barrier(3)

    def work(k):
        barrier.wait()
        for i in range(k, len(blocks), 3):
            out[i] = solve_margin(LPSVM, *blocks[i], Cs[i], "CLARABEL", {})

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, (a, b) in enumerate(zip(out, serial)):
        _agree(a, b, "c")
        _agree(a, _fresh(LPSVM, *blocks[i], Cs[i]), "c")


@pytest.mark.parametrize("cls,name", [(LPSVM, "c"), (ModSVM, "alpha")])
def test_both_paths_of_solve_margin_agree(cls, name, monkeypatch):
    K, y = _block(3, n=30, m=26)
    kept = solve_margin(cls, K, y, 2.0, "CLARABEL", {})
    monkeypatch.setattr(lpsvm_estimator, "REUSE_MAX_N", 10)   # the own-problem path
    own = solve_margin(cls, K, y, 2.0, "CLARABEL", {})
    _agree(kept, own, name)
