"""Warm starts along a path of C: IndefiniteSVC(warm_start=True) and the inner search.

A warm start changes where the algorithm starts, never the problem: each fit is
certified to the same relative gap, so warm and cold objectives agree within the sum
of their certified gaps (the certificate's own bound), whatever the iterations.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from krein import IndefiniteSVC
from krein.experiment.classification import _path_order, _warm_started, classification_cell


def _problem(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = (X[:, 0] + 0.4 * rng.standard_normal(n) > 0).astype(int)
    return np.tanh(0.5 * X @ X.T - 0.5), y      # sigmoid kernel: indefinite


def test_warm_and_cold_fits_agree_within_their_certified_gaps():
    K, y = _problem()
    assert np.linalg.eigvalsh(K)[0] < -1e-3 * np.abs(np.linalg.eigvalsh(K)).max()
    warm = IndefiniteSVC(kernel="precomputed", warm_start=True)
    iters_warm = iters_cold = 0
    for C in (0.1, 1.0, 10.0, 100.0):
        warm.set_params(C=C).fit(K, y)
        cold = IndefiniteSVC(kernel="precomputed", C=C).fit(K, y)
        bound = warm.duality_gap_[0] + cold.duality_gap_[0]
        assert abs(warm.objective_[0] - cold.objective_[0]) <= bound
        iters_warm += int(warm.n_iter_.sum())
        iters_cold += int(cold.n_iter_.sum())
    assert iters_warm < iters_cold


def test_a_refit_at_the_same_point_starts_at_its_solution():
    """Started at a certified solution, the algorithm stops at its first gap check."""
    K, y = _problem()
    est = IndefiniteSVC(kernel="precomputed", C=10.0, warm_start=True).fit(K, y)
    first = est.n_iter_.copy()
    est.fit(K, y)
    assert est.n_iter_[0] <= est.gap_every < first[0]


def test_without_a_matching_previous_fit_the_start_is_cold():
    """Another training set (other indices of the binary problem), a clone, or
    warm_start=False: the very computation of a cold fit."""
    K, y = _problem()
    cold = IndefiniteSVC(kernel="precomputed", C=10.0).fit(K[:60, :60], y[:60])
    est = IndefiniteSVC(kernel="precomputed", C=1.0, warm_start=True).fit(K, y)
    est.set_params(C=10.0).fit(K[:60, :60], y[:60])
    np.testing.assert_array_equal(est.n_iter_, cold.n_iter_)
    np.testing.assert_array_equal(est.dual_coef_, cold.dual_coef_)
    again = clone(est).fit(K[:60, :60], y[:60])
    np.testing.assert_array_equal(again.dual_coef_, cold.dual_coef_)


def test_multiclass_pairs_start_from_their_own_solutions():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    K = np.tanh(0.5 * X @ X.T - 0.5)
    est = IndefiniteSVC(kernel="precomputed", C=10.0, warm_start=True).fit(K, y)
    first = est.n_iter_.copy()
    est.fit(K, y)
    assert est.n_iter_.shape == (3,)
    assert np.all(est.n_iter_ <= est.gap_every) and np.any(first > est.gap_every)


def test_path_order_runs_along_C_within_the_other_parameters():
    combos = [{"C": c, "rho": r} for c in (10.0, 0.1, 1.0) for r in (1.0, 0.1)]
    order = [combos[j] for j in _path_order(combos)]
    assert order == [{"C": c, "rho": r} for r in (0.1, 1.0) for c in (0.1, 1.0, 10.0)]
    assert sorted(_path_order(combos)) == list(range(6))


def test_warm_started_reuses_only_estimators_with_the_parameter():
    from krein import ESVC

    first = _warm_started(IndefiniteSVC(C=1.0), None)
    assert first.warm_start is True
    second = _warm_started(IndefiniteSVC(C=10.0, rho=2.0), first)
    assert second is first and second.C == 10.0 and second.rho == 2.0
    plain = ESVC(C=3.0)
    assert _warm_started(plain, first) is plain


def test_the_inner_search_starts_each_fit_at_its_neighbours_solution(monkeypatch):
    """In a cell's inner CV every grid point after the first of a path gets a start."""
    starts = []
    original = IndefiniteSVC._solve_proxy

    def spy(self, P, beta0=None):
        starts.append(beta0 is not None)
        return original(self, P, beta0)

    monkeypatch.setattr(IndefiniteSVC, "_solve_proxy", spy)
    params = {"dataset": "sonar", "n_samples": 60, "method": "indefinite-svm",
              "param_grid": {"C": [0.1, 1.0, 10.0], "rho": [1.0]}, "outer_folds": 3,
              "fold": 0, "inner_folds": 2, "cv_seed": 0, "seed": 0, "save_trace": False}
    classification_cell(params)
    # 2 inner splits x 3 values of C, then the refit (cold): the first point of each
    # split starts cold, the next two warm
    assert starts == [False, True, True, False, True, True, False]


@pytest.mark.parametrize("scale", [1e-4, 1e4])
def test_warm_starts_hold_on_a_scaled_kernel(scale):
    """K -> s K with C -> C / s, rho -> rho / s^3: warm and cold still agree within the
    certified gaps, and the start still saves iterations."""
    K, y = _problem()
    K = scale * K
    warm = IndefiniteSVC(kernel="precomputed", rho=1.0 / scale ** 3, warm_start=True)
    iters_warm = iters_cold = 0
    for C in (1.0, 10.0, 100.0):
        warm.set_params(C=C / scale).fit(K, y)
        cold = IndefiniteSVC(kernel="precomputed", C=C / scale, rho=1.0 / scale ** 3).fit(K, y)
        bound = warm.duality_gap_[0] + cold.duality_gap_[0]
        assert abs(warm.objective_[0] - cold.objective_[0]) <= bound
        iters_warm += int(warm.n_iter_.sum())
        iters_cold += int(cold.n_iter_.sum())
    assert iters_warm < iters_cold


def test_svr_and_one_class_warm_starts_agree_within_their_certified_gaps():
    """IndefiniteSVR along C and IndefiniteOneClassSVM along nu: the same problems as
    cold fits, certified to the same tolerance, in fewer iterations."""
    from krein import IndefiniteOneClassSVM, IndefiniteSVR

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    t = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(60)
    K = np.tanh(0.5 * X @ X.T - 0.5)
    for est, name, values, y in ((IndefiniteSVR, "C", (0.1, 1.0, 10.0), t),
                                 (IndefiniteOneClassSVM, "nu", (0.1, 0.3, 0.5), None)):
        warm = est(kernel="precomputed", warm_start=True, max_iter=3000)
        iters_warm = iters_cold = 0
        for v in values:
            warm.set_params(**{name: v}).fit(K, y)
            cold = est(kernel="precomputed", max_iter=3000, **{name: v}).fit(K, y)
            assert abs(warm.objective_ - cold.objective_) <= warm.duality_gap_ + cold.duality_gap_
            iters_warm += warm.n_iter_
            iters_cold += cold.n_iter_
        assert iters_warm < iters_cold, est.__name__
