"""``class_weight``: per-class box bounds ``C_i = C * w[y_i]`` (scikit-learn SVC's meaning).

Checked against something independent of the code path under test:
* libsvm paths (DirectSVC, ESVC on a PSD kernel) against scikit-learn's own
  ``SVC(class_weight=...)``;
* ``"balanced"`` against the dict it implies, ``n / (n_classes * bincount(y))``;
* two solvers of one problem with a vector of box bounds: PerturbSVC's CVXPY
  formulation (eq. 22) vs projected gradient, IndefiniteSVC's PG vs ACCPM, ModSVC's
  CVXPY primal vs the libsvm dual.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from krein import ESVC, DirectSVC, IndefiniteSVC, ModSVC, PerturbSVC
from krein.kernels import gaussian_kernel, sigmoid_kernel


@pytest.fixture(scope="module")
def unbalanced():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(30, 2) + [1.0, 0.5], rng.randn(10, 2) - [0.5, 0.5]])
    y = np.r_[np.zeros(30, int), np.ones(10, int)]
    K = gaussian_kernel(X, X, gamma=0.5)
    return X, y, K


@pytest.mark.parametrize("cw", [{0: 1.0, 1: 5.0}, {0: 0.3}, "balanced"])
@pytest.mark.parametrize("cls", [DirectSVC, ESVC])
def test_libsvm_paths_equal_sklearn_svc(unbalanced, cls, cw):
    X, y, K = unbalanced
    ref = SVC(kernel="precomputed", C=2.0, class_weight=cw).fit(K, y)
    est = cls(kernel="precomputed", C=2.0, class_weight=cw).fit(K, y)
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(K), atol=1e-6)
    np.testing.assert_allclose(est.class_weight_, ref.class_weight_)


def test_multiclass_weights_as_sklearn(unbalanced):
    X, y, _ = unbalanced
    y3 = y.copy()
    y3[:12] = 2
    K = gaussian_kernel(X, X, gamma=0.5)
    cw = {0: 2.0, 1: 0.5, 2: 3.0}
    ref = SVC(kernel="precomputed", C=1.0, class_weight=cw).fit(K, y3)
    est = DirectSVC(kernel="precomputed", C=1.0, class_weight=cw).fit(K, y3)
    np.testing.assert_array_equal(est.predict(K), ref.predict(K))
    # one-vs-one: sklearn's pair (i, j) is positive for class i, ours for class j
    np.testing.assert_allclose(est.intercept_, -ref.intercept_, atol=1e-6)


def test_balanced_is_the_dict_it_implies(unbalanced):
    X, y, K = unbalanced
    n = y.size
    implied = {c: n / (2 * np.sum(y == c)) for c in (0, 1)}
    a = IndefiniteSVC(kernel="precomputed", solver="apg", class_weight="balanced", tol=1e-8,
                      max_iter=3000).fit(K, y)
    b = IndefiniteSVC(kernel="precomputed", solver="apg", class_weight=implied, tol=1e-8,
                      max_iter=3000).fit(K, y)
    np.testing.assert_allclose(a.class_weight_, [implied[0], implied[1]])
    np.testing.assert_array_equal(a.alpha_, b.alpha_)


def test_perturbsvc_cvxpy_and_pg_agree_with_vector_box(unbalanced):
    X, y, K = unbalanced
    cw = {0: 0.5, 1: 3.0}
    common = dict(kernel="precomputed", C=1.0, rho=2.0, class_weight=cw)
    cvx = PerturbSVC(solver="CLARABEL", **common).fit(K, y)
    pg = PerturbSVC(solver="pg", tol=1e-9, atol=1e-12, max_iter=20000, **common).fit(K, y)
    C_i = np.where(y == 1, 3.0, 0.5)
    for est in (cvx, pg):
        assert np.all(est.alpha_[0] <= C_i + 1e-9) and np.all(est.alpha_[0] >= -1e-12)
    # some negative-class alphas sit at their own (smaller) bound: the vector box is active
    assert np.any(np.isclose(pg.alpha_[0][y == 0], 0.5, atol=1e-6))
    np.testing.assert_allclose(cvx.alpha_, pg.alpha_, atol=1e-4)
    assert cvx.objective_[0] == pytest.approx(pg.objective_[0], rel=1e-6)


def test_indefinite_svc_algorithms_agree_with_vector_box(unbalanced):
    X, y, _ = unbalanced
    K = sigmoid_kernel(X, X, a=0.5, r=-1.0)
    common = dict(kernel="precomputed", C=1.0, rho=1.0, class_weight="balanced")
    pg = IndefiniteSVC(solver="apg", tol=1e-9, max_iter=20000, **common).fit(K, y)
    ac = IndefiniteSVC(solver="accpm", tol=1e-7, max_iter=500, **common).fit(K, y)
    C_i = 1.0 * pg.class_weight_[y]
    assert np.all(pg.alpha_[0] <= C_i + 1e-12)
    assert pg.duality_gap_[0] <= 1e-6 * max(1.0, abs(pg.objective_[0]))
    assert ac.objective_[0] == pytest.approx(pg.objective_[0], rel=1e-5)


def test_modsvc_cvxpy_primal_and_libsvm_dual_agree(unbalanced):
    X, y, K = unbalanced
    cw = {0: 0.4, 1: 2.5}
    cvx = ModSVC(kernel="precomputed", class_weight=cw, solver="CLARABEL").fit(K, y)
    lib = ModSVC(kernel="precomputed", class_weight=cw, solver="libsvm",
                 solver_options={"tol": 1e-8}).fit(K, y)
    np.testing.assert_allclose(cvx.decision_function(K), lib.decision_function(K), atol=1e-4)


def test_bad_class_weight(unbalanced):
    X, y, K = unbalanced
    with pytest.raises(ValueError, match="'class_weight' parameter"):
        DirectSVC(class_weight="uniform").fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight has label\(s\) \[7\]"):
        DirectSVC(class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="finite numbers > 0"):
        DirectSVC(class_weight={0: -1.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight needs solver='libsvm'"):
        ESVC(class_weight="balanced", solver="CLARABEL").fit(X, y)
    est = DirectSVC(class_weight={7: 2.0})
    with pytest.raises(ValueError):
        est.fit(X, y)
    assert not hasattr(est, "classes_") and not hasattr(est, "n_features_in_")
