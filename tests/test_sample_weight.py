"""``sample_weight`` in ``fit``: per-sample box bounds ``C * class_weight[y_i] * w_i``.

Checked against something independent of the weighted code path:
* an integer weight ``k`` is the sample repeated ``k`` times: the fit on the kernel
  with the sample's row AND column repeated (a weight of 0: the sample removed), on an
  indefinite kernel, three classes, decision values on the training kernel and on new
  rows: DirectSVC, LPSVC (its LP's optimal values too; the decision values where a
  vertex of the weighted LP, by HiGHS, equals CLARABEL's interior point, so that the
  optimal solution is unique), ModSVC (CLARABEL and libsvm), the linear and RBF
  similarity spaces; each solver at a tight tolerance; IKSVM-DC on a positive definite
  kernel (convex), and on an indefinite one its weighted point against the repeated
  problem's objective and stationarity (DCA is local: the same objective and critical
  points, not necessarily the same one); the Krein least-squares classifier and regressor
  (the global optimum: predictions, the data-relative radius, the coefficients'
  derivatives), whose approximate path refuses weights;
* the approximate (landmark) paths of LPSVC, ModSVC, SimilaritySpaceSVC and DCSVC: the
  weighted rows of precomputed landmark columns against the repeated rows, with the
  same landmarks;
* on a PSD kernel with positive weights, scikit-learn's own ``SVC(sample_weight=...)``;
* metadata routing: ``set_fit_request(sample_weight=True)`` (scikit-learn's
  ``BaseEstimator`` gives it to a ``fit`` with a ``sample_weight`` parameter) routes
  the weights of ``cross_validate`` to each fold's fit;
* ``probability=True``: the weights reach the model's fits (Platt's full model equals
  the weighted fit);
* the table of docs/user_guide/sample_weight.rst lists exactly the registered methods
  whose estimator takes ``sample_weight``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import KFold, cross_validate
from sklearn.svm import SVC
from sklearn.utils.validation import has_fit_parameter

from krein import DirectSVC, LPSVC, ModSVC
from krein.approximation import IndefiniteNystroem
from krein.estimators import (DCSVC, KreinLeastSquaresClassifier, KreinLeastSquaresRegressor,
                              SimilaritySpaceSVC)
from krein.formulations.dc import dc_objective, dc_stationarity
from krein.registry import list_methods, make_method

DOC = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "sample_weight.rst"


def _data(n=40, seed=0, classes=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(int)
    if classes == 3:
        y[:8] = 2
    return X, y, rng


@pytest.mark.parametrize("with_zeros", [False, True], ids=["positive", "with-zeros"])
def test_integer_weights_are_repeated_samples(with_zeros):
    X, y, rng = _data()
    K = np.tanh(0.5 * X @ X.T - 0.2)                        # indefinite
    w = rng.integers(0 if with_zeros else 1, 4, X.shape[0])
    assert with_zeros == bool(np.any(w == 0))
    rep = np.repeat(np.arange(X.shape[0]), w)
    weighted = DirectSVC(kernel="precomputed", tol=1e-10).fit(K, y, sample_weight=w)
    repeated = DirectSVC(kernel="precomputed", tol=1e-10).fit(K[np.ix_(rep, rep)], y[rep])
    K_test = K[:15]
    np.testing.assert_allclose(weighted.decision_function(K_test),
                               repeated.decision_function(K_test[:, rep]), atol=1e-6)
    np.testing.assert_array_equal(weighted.predict(K_test), repeated.predict(K_test[:, rep]))


#: CLARABEL's tolerances at which the interior-point certificate is ~1e-13.
TIGHT = {"tol_gap_abs": 1e-13, "tol_gap_rel": 1e-13, "tol_feas": 1e-13}

#: The exact paths whose weights are checked against repetition, each at a tight tolerance.
EXACT = {
    "lp-svm": lambda: LPSVC(kernel="precomputed", solver_options=TIGHT),
    "mod-svm": lambda: ModSVC(kernel="precomputed", solver_options=TIGHT),
    "mod-svm-libsvm": lambda: ModSVC(kernel="precomputed", solver="libsvm",
                                     solver_options={"tol": 1e-10}),
    "similarity-linear": lambda: SimilaritySpaceSVC(kernel="precomputed", tol=1e-10),
    "similarity-rbf": lambda: SimilaritySpaceSVC(kernel="precomputed", feature_kernel="rbf",
                                                 tol=1e-10),
    "krein-ls": lambda: KreinLeastSquaresClassifier(kernel="precomputed"),
}


def _tanh(A, B):
    return np.tanh(0.5 * A @ B.T - 0.2)


@pytest.mark.parametrize("with_zeros", [False, True], ids=["positive", "with-zeros"])
@pytest.mark.parametrize("name", list(EXACT))
def test_weights_are_repeated_samples_in_every_weighted_estimator(name, with_zeros):
    X, y, rng = _data()
    K = _tanh(X, X)                                              # indefinite
    K_new = _tanh(rng.standard_normal((10, 3)), X)
    w = rng.integers(0 if with_zeros else 1, 4, X.shape[0])
    assert with_zeros == bool(np.any(w == 0)) and np.any(w > 1)
    rep = np.repeat(np.arange(X.shape[0]), w)
    weighted = EXACT[name]().fit(K, y, sample_weight=w)
    repeated = EXACT[name]().fit(K[np.ix_(rep, rep)], y[rep])
    for rows in (K, K_new):
        np.testing.assert_allclose(weighted.decision_function(rows),
                                   repeated.decision_function(rows[:, rep]), atol=1e-7)


@pytest.mark.parametrize("with_zeros", [False, True], ids=["positive", "with-zeros"])
def test_lp_svm_weights_reach_the_repeated_optimum(with_zeros):
    """The same optimal value; the decision values above are those of the unique solution."""
    X, y, rng = _data()
    K = _tanh(X, X)
    w = rng.integers(0 if with_zeros else 1, 4, X.shape[0])
    rep = np.repeat(np.arange(X.shape[0]), w)
    weighted = EXACT["lp-svm"]().fit(K, y, sample_weight=w)
    repeated = EXACT["lp-svm"]().fit(K[np.ix_(rep, rep)], y[rep])
    for a, b in zip(weighted.solutions_, repeated.solutions_):
        assert a.certificate["relative_gap"] < 1e-10
        np.testing.assert_allclose(a.certificate["primal_objective"],
                                   b.certificate["primal_objective"], rtol=1e-9)
    # a simplex vertex of the weighted LP (HiGHS) is CLARABEL's point, which ends near the
    # centre of the optimal face: the face is a single point, the decision values unique
    vertex = LPSVC(kernel="precomputed", solver="HIGHS").fit(K, y, sample_weight=w)
    np.testing.assert_allclose(vertex.decision_function(K), weighted.decision_function(K),
                               atol=1e-8)


@pytest.mark.parametrize("params", [{}, {"radius_squared": 3.0, "krein_penalty": 0.1}],
                         ids=["default-radius", "penalty"])
@pytest.mark.parametrize("with_zeros", [False, True], ids=["positive", "with-zeros"])
def test_krein_least_squares_weights_are_repeated_samples(with_zeros, params):
    """The global optimum of (P) on the repeated kernel: predictions, the data-relative
    radius and the coefficients' derivatives (the copies' summed)."""
    X, _, rng = _data()
    t = X[:, 0] + np.sin(X[:, 1]) + 0.1 * rng.standard_normal(X.shape[0])
    K = _tanh(X, X)
    K_new = _tanh(rng.standard_normal((10, 3)), X)
    w = rng.integers(0 if with_zeros else 1, 4, X.shape[0])
    assert with_zeros == bool(np.any(w == 0)) and np.any(w > 1)
    rep = np.repeat(np.arange(X.shape[0]), w)
    weighted = KreinLeastSquaresRegressor(kernel="precomputed", **params).fit(
        K, t, sample_weight=w)
    repeated = KreinLeastSquaresRegressor(kernel="precomputed", **params).fit(
        K[np.ix_(rep, rep)], t[rep])
    assert weighted.radius_squared_ == pytest.approx(repeated.radius_squared_, rel=1e-12)
    for rows in (K, K_new):
        np.testing.assert_allclose(weighted.predict(rows), repeated.predict(rows[:, rep]),
                                   atol=1e-10)
    merged = {k: np.bincount(rep, weights=v, minlength=X.shape[0])
              for k, v in repeated.solution_gradient().items()}
    for k, v in weighted.solution_gradient().items():
        np.testing.assert_allclose(v, merged[k], atol=1e-9 * np.abs(v).max())


@pytest.mark.parametrize("est", [
    KreinLeastSquaresRegressor(approximation=IndefiniteNystroem(n_components=10)),
    KreinLeastSquaresClassifier(approximation=IndefiniteNystroem(n_components=10))],
    ids=["krein-ls-regressor", "krein-ls"])
def test_krein_least_squares_approximation_refuses_weights(est):
    X, y, _ = _data()
    with pytest.raises(ValueError, match="sample_weight.*approximation"):
        est.fit(X, y, sample_weight=np.ones(y.size))
    assert not hasattr(est, "solution_") and not hasattr(est, "classes_")


def _delta_gaussian(A, B):
    """A positive definite kernel: the Gaussian plus the delta kernel (1 on equal points)."""
    d2 = np.sum((A[:, None] - B[None]) ** 2, axis=2)
    return np.exp(-0.5 * d2) + (d2 == 0)


@pytest.mark.parametrize("with_zeros", [False, True], ids=["positive", "with-zeros"])
def test_iksvm_dc_weights_are_repeated_samples_on_a_psd_kernel(with_zeros):
    """F_w is convex on a PSD kernel: DCA ends at the repeated model to its tolerance."""
    X, y, rng = _data(n=30, classes=2)
    K = _delta_gaussian(X, X)
    K_new = _delta_gaussian(rng.standard_normal((10, 3)), X)
    w = rng.integers(0 if with_zeros else 1, 4, X.shape[0])
    assert with_zeros == bool(np.any(w == 0)) and np.any(w > 1)
    rep = np.repeat(np.arange(X.shape[0]), w)
    kw = dict(kernel="precomputed", tol=1e-16, max_iter=10_000, random_state=0)
    weighted = DCSVC(**kw).fit(K, y, sample_weight=w)
    repeated = DCSVC(**kw).fit(K[np.ix_(rep, rep)], y[rep])
    assert weighted.stationarity_.max() < 1e-7 and repeated.stationarity_.max() < 1e-7
    for rows in (K, K_new):
        np.testing.assert_allclose(weighted.decision_function(rows),
                                   repeated.decision_function(rows[:, rep]), atol=1e-6)


def test_iksvm_dc_weighted_point_is_the_repeated_problems_point():
    """On an indefinite kernel: the weighted fit's point, split evenly over the copies, has
    the repeated problem's objective value and its stationarity within sqrt(max w / min w)."""
    X, y, rng = _data(classes=2)
    K = _tanh(X, X)
    w = rng.integers(1, 4, X.shape[0])
    rep = np.repeat(np.arange(X.shape[0]), w)
    est = DCSVC(kernel="precomputed", C=0.5, random_state=0).fit(K, y, sample_weight=w)
    beta, b = est.binary_models_[0].coef, est.intercept_[0]
    y_pm = np.where(y == 1, 1.0, -1.0)
    beta_rep = (beta / w)[rep]
    K_rep = K[np.ix_(rep, rep)]
    np.testing.assert_allclose(dc_objective(K_rep, y_pm[rep], 0.5, beta_rep, b),
                               est.objective_[0], rtol=1e-12)
    own = dc_stationarity(K, y_pm, 0.5 * w, beta, b)
    assert own == pytest.approx(est.stationarity_[0], rel=1e-12)
    assert dc_stationarity(K_rep, y_pm[rep], 0.5, beta_rep, b) <= \
        np.sqrt(w.max() / w.min()) * own * (1 + 1e-9)


#: The landmark paths with weights, each at a tight tolerance.
APPROXIMATE = {
    "lp-svm": lambda: LPSVC(solver_options=TIGHT),
    "mod-svm": lambda: ModSVC(solver_options=TIGHT),
    "mod-svm-ipm": lambda: ModSVC(solver="ipm", solver_options={"tol": 1e-10}),
    "mod-svm-libsvm": lambda: ModSVC(solver="libsvm", solver_options={"tol": 1e-10}),
    "similarity-linear-ipm": lambda: SimilaritySpaceSVC(solver="ipm", tol=1e-10),
    "similarity-linear-libsvm": lambda: SimilaritySpaceSVC(solver="libsvm", tol=1e-10),
    "similarity-rbf-ipm": lambda: SimilaritySpaceSVC(feature_kernel="rbf", solver="ipm",
                                                     tol=1e-10),
    "iksvm-dc": lambda: DCSVC(tol=1e-16, max_iter=10_000, random_state=0),
}


@pytest.mark.parametrize("name", list(APPROXIMATE))
def test_landmark_path_weights_are_repeated_rows(name):
    """With the same landmarks (precomputed columns K(X, L) and W = K(L, L)), an integer
    weight is the sample's row of the columns repeated."""
    X, y, rng = _data()
    L = rng.standard_normal((12, 3))
    # IKSVM-DC's landmark objective is convex (one model) on a PSD kernel
    kernel = _delta_gaussian if name == "iksvm-dc" else _tanh
    columns, W = kernel(X, L), kernel(L, L)
    new = kernel(rng.standard_normal((10, 3)), L)
    w = rng.integers(0, 4, X.shape[0])
    assert np.any(w == 0) and np.any(w > 1)
    rep = np.repeat(np.arange(X.shape[0]), w)

    def make():
        return APPROXIMATE[name]().set_params(
            kernel="precomputed",
            approximation=IndefiniteNystroem(kernel="precomputed", landmark_block=W, rcond=1e-12))

    weighted = make().fit(columns, y, sample_weight=w)
    repeated = make().fit(columns[rep], y[rep])
    for rows in (columns, new):
        np.testing.assert_allclose(weighted.decision_function(rows),
                                   repeated.decision_function(rows), atol=1e-7)


def test_positive_weights_are_scikit_learns_svc():
    X, y, rng = _data(classes=2)
    K = np.exp(-0.5 * np.sum((X[:, None] - X[None]) ** 2, axis=2))
    w = rng.uniform(0.2, 3.0, X.shape[0])
    ours = DirectSVC(kernel="precomputed", C=2.0, tol=1e-10).fit(K, y, sample_weight=w)
    ref = SVC(kernel="precomputed", C=2.0, tol=1e-10).fit(K, y, sample_weight=w)
    np.testing.assert_allclose(ours.decision_function(K), ref.decision_function(K), atol=1e-8)


def test_unit_weights_change_nothing():
    X, y, _ = _data()
    K = np.tanh(0.5 * X @ X.T - 0.2)
    plain = DirectSVC(kernel="precomputed").fit(K, y)
    ones = DirectSVC(kernel="precomputed").fit(K, y, sample_weight=np.ones(y.size))
    np.testing.assert_array_equal(plain.decision_function(K), ones.decision_function(K))


@pytest.mark.parametrize("name", list(EXACT))
def test_unit_weights_are_the_unweighted_fit(name):
    """Weights of one solve the unweighted problem (as per-sample slack weights: the
    solver's data differ, so to its tolerance)."""
    X, y, _ = _data()
    K = _tanh(X, X)
    plain = EXACT[name]().fit(K, y)
    ones = EXACT[name]().fit(K, y, sample_weight=np.ones(y.size))
    np.testing.assert_allclose(plain.decision_function(K), ones.decision_function(K), atol=1e-7)


#: Every estimator whose fit takes sample_weight, at its defaults.
WEIGHTED = [DirectSVC, LPSVC, ModSVC, SimilaritySpaceSVC, DCSVC, KreinLeastSquaresClassifier]


@pytest.mark.parametrize("cls", WEIGHTED, ids=lambda c: c.__name__)
def test_bad_weights_are_refused(cls):
    X, y, _ = _data()
    est = cls()
    with pytest.raises(ValueError, match="(?i)negative"):
        est.fit(X, y, sample_weight=np.r_[-1.0, np.ones(y.size - 1)])
    with pytest.raises(ValueError, match="shape|length|samples"):
        est.fit(X, y, sample_weight=np.ones(y.size - 1))
    w = np.ones(y.size)
    w[y == 2] = 0.0
    with pytest.raises(ValueError, match="class"):
        est.fit(X, y, sample_weight=w)
    assert not hasattr(est, "classes_")          # nothing half-fitted


@pytest.mark.parametrize("make", [DirectSVC, LPSVC, lambda: ModSVC(solver="libsvm"),
                                  SimilaritySpaceSVC,
                                  lambda: SimilaritySpaceSVC(feature_kernel="rbf"),
                                  lambda: DCSVC(random_state=0), KreinLeastSquaresClassifier],
                         ids=["svm", "lp-svm", "mod-svm", "similarity-linear", "similarity-rbf",
                              "iksvm-dc", "krein-ls"])
def test_metadata_routing_reaches_each_fold(make):
    X, y, rng = _data()
    w = rng.uniform(0.5, 2.0, y.size)
    cv = KFold(3, shuffle=True, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        est = make().set_fit_request(sample_weight=True).set_score_request(
            sample_weight=False)
        out = cross_validate(est, X, y, cv=cv, params={"sample_weight": w},
                             return_estimator=True)
    for fitted, (tr, _) in zip(out["estimator"], cv.split(X)):
        direct = make().fit(X[tr], y[tr], sample_weight=w[tr])
        np.testing.assert_array_equal(fitted.decision_function(X), direct.decision_function(X))
        unweighted = make().fit(X[tr], y[tr])
        assert not np.allclose(fitted.decision_function(X), unweighted.decision_function(X))


@pytest.mark.parametrize("make", [DirectSVC, LPSVC, lambda **kw: ModSVC(solver="libsvm", **kw),
                                  SimilaritySpaceSVC, lambda **kw: DCSVC(random_state=0, **kw),
                                  KreinLeastSquaresClassifier],
                         ids=["svm", "lp-svm", "mod-svm", "similarity-linear", "iksvm-dc",
                              "krein-ls"])
def test_probability_uses_the_weights(make):
    X, y, rng = _data(classes=2)
    w = rng.integers(1, 4, y.size).astype(float)
    est = make(probability=True).fit(X, y, sample_weight=w)
    full = est.calibrator_.calibrated_classifiers_[0].estimator
    weighted = make().fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(full.decision_function(X), weighted.decision_function(X))
    assert est.predict_proba(X).shape == (y.size, 2)


def _documented():
    """Registry names in the "accepts" rows of the page's table."""
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\s*\* - ``([\w-]+)``\n\s*- (yes|no)", text, flags=re.M)
    return {name: answer == "yes" for name, answer in rows}


def test_the_sample_weight_table_is_the_estimators():
    documented = _documented()
    assert set(documented) == set(list_methods())
    for name, accepts in documented.items():
        assert has_fit_parameter(make_method(name), "sample_weight") == accepts, name
