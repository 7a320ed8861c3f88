"""Certificates that cannot certify a wrong answer, and scale covariance.

Independent checks:
* scale covariance, from each method's objective: with the kernel ``s K`` and the
  parameters scaled to match (``C / s`` for the SVM duals, ``C / s^2`` where the
  kernel enters squared, IndefiniteSVM's ``rho / s^3``, ...), every registered
  estimator predicts what it predicts at ``s = 1``, for ``s`` in
  {1e-8, 1e-4, 1e4, 1e8}, without a ConvergenceWarning it did not give at ``s = 1``,
  and its certificate holds there;
* certificates evaluated at a known wrong point (``alpha = 0`` for KSVM at
  ``C = 1e6``, a zeroed LP solution) report failure;
* the reproductions of the issue: KSVC at ``C = 1e6`` on sonar, LPSVC / ModSVC at
  scale ``1e8``, IndefiniteOneClassSVM at scale ``1e4`` (bounded libsvm calls), a
  kernel with one entry ``1e300``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from krein._validation import check_kernel_range, check_square_kernel
from krein.estimators import KSVC, LPSVC, ModSVC
from krein.estimators.base import GAP_RTOL, warn_gap
from krein.estimators.indefinite import IndefiniteOneClassSVM
from krein.formulations.ksvm import ksvm_kkt_residual
from krein.formulations.lpsvm import LPSVM
from krein.kernels import gaussian_kernel
from krein.registry import list_methods, make_method, method_requirements, scale_exponents
from krein.solvers import Solution, solve

SCALES = (1e-8, 1e-4, 1e4, 1e8)

#: How each method's parameters follow ``K -> s K`` (exponents of ``s``), from its
#: objective.  The SVM duals (libsvm, ESVM, spectrum corrections, KSVM, LP-SVM):
#: alpha -> alpha / s, C -> C / s.  K^2 ("square") and Mod SVM (1/2 ||alpha||^2 +
#: C sum xi with K alpha in the constraints): C -> C / s^2.  IndefiniteSVM / SVR
#: (luss eq. 7: 1'alpha - 1/2 u'K u + rho ||K - K0||_F^2, objective / s): rho -> rho / s^3;
#: one-class (alpha fixed by nu, objective * s): rho -> rho / s.  PerturbSVM (eq. 22,
#: ||alpha||^4 / (16 rho)): rho -> rho / s^3.  CH-DU and the RVM have no scale parameter.
#: Bending and NearestPSD fit an SVC of their own (correction__C), and NearestPSD's
#: fixed diagonal is a kernel value (correction__diagonal -> s * diagonal).
#: (Each method's exponents are declared once, in its registry entry: krein.registry.scale_exponents.)

#: Methods whose minimizer is not unique: the optimal value is compared instead.
NON_UNIQUE = {"lp-svm"}

METHODS = list(list_methods())


def _data(name, sigmoid_problem, gaussian_problem):
    p = gaussian_problem if name == "perturb-svm" else sigmoid_problem   # PSD kernels only
    y = p["y"].astype(float) if name in list_methods(task="regressor") else p["y"]
    if "base_kernels" in method_requirements(name):
        # stacked (n, n, 1 + M): K and two PSD base kernels (krein.combinations' layout)
        X, Xt = p["X"], p["X_test"]

        def stack(Z):
            return np.stack([p["K"] if Z is X else p["K_test"], gaussian_kernel(Z, X, gamma=0.5),
                             Z @ X.T], axis=2)

        return stack(X), stack(Xt), y
    return p["K"], p["K_test"], y


def _fit(name, K, y, s):
    base = make_method(name).get_params()
    params = {"kernel": "precomputed"}
    if "random_state" in base:
        # one seed at every scale: a non-convex method (ch's multi-start) may reach
        # another local optimum from other starting points, at any scale
        params["random_state"] = 0
    for key, e in scale_exponents(name).items():
        # a default relative to the data (None, "scale") follows the kernel by itself
        if isinstance(base[key], numbers.Real) and not isinstance(base[key], bool):
            params[key] = base[key] * s ** e
    est = make_method(name, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        if name in list_methods(task="outlier"):
            est.fit(s * K)
        else:
            est.fit(s * K, y)
    conv = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    return est, conv


def _certificate(est):
    """The certificate an estimator exposes, as (value, bound) pairs that must hold."""
    out = []
    if hasattr(est, "kkt_residual_"):
        out += [(float(v), est.tol) for v in np.ravel(est.kkt_residual_)]
    sols = getattr(est, "solutions_", None) or [getattr(est, "solution_", None)]
    for sol in sols:
        if sol is None or not sol.certificate or "relative_gap" not in sol.certificate:
            continue
        bound = getattr(est, "tol", None) if sol.certificate.get("upper_source") else GAP_RTOL
        out.append((float(sol.certificate["relative_gap"]), bound))
    return out


def _lp_value(est, K, y, C):
    """The LP-SVM objective ||c||_1 + C sum hinge of a fitted LPSVC on ``K``."""
    f = est.decision_function(K)
    margin = np.where(y > 0, 1, -1) * f
    return np.abs(est.dual_coef_).sum() + C * np.maximum(0.0, 1.0 - margin).sum()


_REFERENCE = {}


@pytest.mark.parametrize("s", SCALES, ids=[f"s={s:g}" for s in SCALES])
@pytest.mark.parametrize("name", METHODS)
def test_scale_covariance(name, s, sigmoid_problem, gaussian_problem):
    K, Kt, y = _data(name, sigmoid_problem, gaussian_problem)
    if name not in _REFERENCE:
        _REFERENCE[name] = _fit(name, K, y, 1.0)
    ref, ref_conv = _REFERENCE[name]
    est, conv = _fit(name, K, y, s)
    # no ConvergenceWarning that the reference did not give
    assert len(conv) <= len(ref_conv), (name, s, conv)
    for value, bound in _certificate(est):
        assert value <= bound, (name, s, value, bound)
    if name in NON_UNIQUE:
        C = est.get_params()["C"]
        ref_value = _lp_value(ref, K, y, ref.get_params()["C"])
        assert s * _lp_value(est, s * K, y, C) == pytest.approx(ref_value, rel=1e-6)
        return
    if name in list_methods(task="regressor"):
        np.testing.assert_allclose(est.predict(s * Kt), ref.predict(Kt),
                                   atol=1e-6 * np.abs(ref.predict(Kt)).max())
        return
    # the same predictions, except where the reference decision is within round-off of 0
    d_ref = np.asarray(ref.decision_function(Kt), dtype=float)
    clear = np.abs(d_ref) > 1e-6 * np.abs(d_ref).max()
    pred, pred_ref = est.predict(s * Kt), ref.predict(Kt)
    assert np.all(clear), (name, "a test point on the reference boundary")
    np.testing.assert_array_equal(pred[clear], pred_ref[clear])
    assert np.unique(pred).size > 1


# ----------------------------------------------------------------- KSVM at large C
def test_ksvc_large_C_is_not_a_certified_constant_classifier():
    """sonar, sigmoid kernel of ``krein compare``, C = 1e6: alpha = 0 (majority class, 53 %)
    is not certified (a residual of violations divided by C would certify it with 2.6e-7)."""
    from krein.compare import load_comparison_data

    d = load_comparison_data("sonar")
    K, y = d.K, np.where(d.y == np.unique(d.y)[1], 1, -1)
    # the certificate fails at the wrong point alpha = 0 ...
    zero = ksvm_kkt_residual(K, y, 1e6, np.zeros(y.size))
    assert zero["residual"] > 1e-6
    # ... is invariant to (K, C, alpha) -> (s K, C / s, alpha / s) ...
    for s in (1e-4, 1e4):
        assert ksvm_kkt_residual(s * K, y, 1e6 / s, np.zeros(y.size))["residual"] == \
            pytest.approx(zero["residual"], rel=1e-9)
    # ... and the estimator solves: a certified, non-constant classifier
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = KSVC(C=1e6, kernel="precomputed").fit(K, y)
    assert est.kkt_residual_[0] <= est.tol
    assert est.n_iter_[0] > 1
    pred = est.predict(K)
    assert np.unique(pred).size == 2 and np.mean(pred == y) > 0.9


# ----------------------------------------------------------------- LPSVC / ModSVC at scale 1e8
@pytest.mark.parametrize("cls, e", [(LPSVC, 1), (ModSVC, 2)], ids=["LPSVC", "ModSVC"])
def test_margin_problems_report_a_relative_gap_at_scale_1e8(cls, e, sigmoid_problem):
    """At K * 1e8 (C scaled to match) the absolute gap 1.2e-9 was the whole objective."""
    K, y, Kt = sigmoid_problem["K"], sigmoid_problem["y"], sigmoid_problem["K_test"]
    s = 1e8
    ref = cls(kernel="precomputed").fit(K, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = cls(kernel="precomputed", C=1.0 / s ** e).fit(s * K, y)
    cert = est.solutions_[0].certificate
    assert 0 <= cert["relative_gap"] <= GAP_RTOL
    if cls is ModSVC:          # unique minimizer: the same decision function
        np.testing.assert_allclose(est.decision_function(s * Kt), ref.decision_function(Kt),
                                   atol=1e-5 * np.abs(ref.decision_function(Kt)).max())
    else:                      # the LP's optimal value
        assert s * _lp_value(est, s * K, y, 1.0 / s) == pytest.approx(_lp_value(ref, K, y, 1.0),
                                                                      rel=1e-6)


def test_lp_relative_gap_fails_on_a_wrong_point(sigmoid_problem):
    K, y = sigmoid_problem["K"], sigmoid_problem["y"]
    f = LPSVM(K, y, C=1.0)
    sol = solve(f, "CLARABEL")
    assert sol.certificate["relative_gap"] <= GAP_RTOL
    f.variables["c"].value = np.zeros(y.size)          # a wrong primal point
    assert f.certificate()["relative_gap"] > 1e-2


def test_warn_gap_treats_a_large_relative_gap_as_not_converged():
    common = dict(solver="TEST", status="optimal", primal={}, dual={}, setup_time=0.0,
                  solve_time=0.0, iterations=1, primal_residual=0.0, dual_residual=0.0)
    sol = Solution(objective=1e-9, gap=1e-9, certificate={"relative_gap": 1.0}, **common)
    with pytest.warns(ConvergenceWarning, match="relative duality gap 1"):
        assert warn_gap(sol, "LPSVC") is False
    ok = Solution(objective=1.0, gap=1e-12, certificate={"relative_gap": 1e-12}, **common)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert warn_gap(ok, "LPSVC") is True


# ----------------------------------------------------------------- one-class at scale 1e4
def test_one_class_certificate_is_bounded_at_scale_1e4(sigmoid_problem):
    """At K * 1e4 one libsvm solve of the certificate ran 47 s (tol not scaled, no cap)."""
    K = sigmoid_problem["K"]
    n, s, max_iter = K.shape[0], 1e4, 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        est = IndefiniteOneClassSVM(kernel="precomputed", rho=1.0 / s, max_iter=max_iter,
                                    gap_every=1).fit(s * K)
    cert = est.solution_.certificate
    assert est.n_iter_ <= max_iter
    assert cert["n_libsvm"] >= 1
    assert cert["libsvm_max_smo"] <= 1000 * n
    # libsvm's tolerance follows the kernel: the SMO iterations are those of s = 1
    ref = IndefiniteOneClassSVM(kernel="precomputed", rho=1.0, max_iter=max_iter,
                                gap_every=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref.fit(K)
    assert cert["libsvm_max_smo"] <= 2 * ref.solution_.certificate["libsvm_max_smo"]
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert (est.solution_.status == "max_iter") == (len(conv) > 0)
    if conv:
        assert cert["relative_gap"] > est.tol


def test_indefinite_atol_is_not_absolute(sigmoid_problem):
    """At K * 1e-8 the absolute atol = 1e-8 certified the first point (a relative gap of
    0.017, a constant outlier detector)."""
    K, Kt = sigmoid_problem["K"], sigmoid_problem["K_test"]
    s = 1e-8
    ref = IndefiniteOneClassSVM(kernel="precomputed").fit(K)
    est = IndefiniteOneClassSVM(kernel="precomputed", rho=1.0 / s).fit(s * K)
    assert est.solution_.certificate["relative_gap"] <= est.tol
    assert np.unique(est.predict(s * Kt)).size == 2
    np.testing.assert_array_equal(est.predict(s * Kt), ref.predict(Kt))


# ----------------------------------------------------------------- a 1e300 entry
@pytest.mark.parametrize("name", [m for m in list_methods(task="classifier")
                                  if not method_requirements(m)])
def test_kernel_with_a_huge_entry_is_refused(name, sigmoid_problem):
    K, y = sigmoid_problem["K"].copy(), sigmoid_problem["y"]
    K[3, 5] = K[5, 3] = 1e300
    with pytest.raises(ValueError, match="kernel.*1e\\+300"):
        make_method(name, kernel="precomputed").fit(K, y)


def test_kernel_range_check(sigmoid_problem):
    K = sigmoid_problem["K"]
    # an entry whose square overflows, and one that dwarfs every row
    for big in (1e300, 1e160, 1e20):
        bad = K.copy()
        bad[0, 1] = bad[1, 0] = big
        with pytest.raises(ValueError, match="my kernel"):
            check_square_kernel(bad, "my kernel")
    # any reasonable scale passes, and so does a Gaussian kernel close to the identity
    for s in (1e-100, 1e-8, 1e8, 1e100):
        check_kernel_range(s * K)
    X = np.arange(30.0)[:, None]
    near_identity = gaussian_kernel(X, gamma=50.0)
    assert np.median(np.abs(near_identity)) < 1e-100
    check_kernel_range(near_identity)
