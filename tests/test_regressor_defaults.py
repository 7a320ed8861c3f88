"""The regressors' defaults are relative to the data (IndefiniteSVR, KreinLeastSquaresRegressor).

* scikit-learn's ``check_regressors_train`` (training R^2 > 0.5 on its regression check
  data) passes on the DEFAULT instance of every registered regressor, on feature
  vectors and on a precomputed kernel (``tests/test_estimator_checks.py`` runs the
  whole suite on the registry's instances, the defaults among them);
* ``KreinLeastSquaresRegressor``'s default ``radius_squared`` is the Hilbert norm of
  kernel ridge regression with the ridge ``kernel_scale(K)``: on a PSD kernel its
  predictions are scikit-learn's ``KernelRidge(alpha=kernel_scale(K))`` (an
  independent solver: a Cholesky solve against the secular equation), and they follow
  ``y -> t y``;
* ``IndefiniteSVR``'s defaults: ``epsilon_ = 0.1 std(y)`` and ``rho_ = n C^2 / (4 * 0.1
  ||K0||_F)``, which bounds the perturbation ``|u|^2 / (4 rho)`` of the proxy kernel by
  a tenth of ``||K0||_F`` and follows ``K -> s K``, ``C -> C / s`` as ``s^-3``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import check_regressors_train

from krein.estimators.indefinite import IndefiniteSVR
from krein.estimators.rkks import KreinLeastSquaresRegressor
from krein.kernels import gaussian_kernel, kernel_scale
from krein.registry import list_methods, make_method

REGRESSORS = list(list_methods(task="regressor"))


@pytest.mark.parametrize("precomputed", [False, True], ids=["features", "precomputed"])
@pytest.mark.parametrize("name", REGRESSORS)
def test_default_regressor_fits_the_check_data(name, precomputed):
    est = make_method(name)
    if precomputed:
        est.set_params(kernel="precomputed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # convergence notes of the iterative fits
        check_regressors_train(type(est).__name__, est)


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y


def test_krein_least_squares_default_is_kernel_ridge_on_a_psd_kernel():
    X, y = _data()
    K = 3.0 * gaussian_kernel(X, X, gamma=0.3)       # PSD, scale 3
    est = KreinLeastSquaresRegressor(kernel="precomputed").fit(K, y)
    ridge = KernelRidge(alpha=kernel_scale(K), kernel="precomputed").fit(K, y - y.mean())
    np.testing.assert_allclose(est.predict(K), ridge.predict(K) + y.mean(), rtol=1e-6,
                               atol=1e-8 * np.abs(y).max())
    alpha = ridge.dual_coef_
    assert est.radius_squared_ == pytest.approx(float(alpha @ K @ alpha), rel=1e-10)


def test_krein_least_squares_default_follows_the_targets():
    X, y = _data()
    K = np.tanh(0.5 * X @ X.T - 0.2)                  # indefinite
    f = KreinLeastSquaresRegressor(kernel="precomputed").fit(K, y)
    g = KreinLeastSquaresRegressor(kernel="precomputed").fit(K, 50.0 * y)
    assert g.radius_squared_ == pytest.approx(2500.0 * f.radius_squared_, rel=1e-10)
    np.testing.assert_allclose(g.predict(K), 50.0 * f.predict(K), rtol=1e-7,
                               atol=1e-9 * 50.0 * np.abs(y).max())


def test_krein_least_squares_given_radius_is_used():
    X, y = _data()
    K = np.tanh(0.5 * X @ X.T - 0.2)
    est = KreinLeastSquaresRegressor(kernel="precomputed", radius_squared=2.0).fit(K, y)
    assert est.radius_squared_ == 2.0
    assert float(est.beta_ @ est.beta_) == pytest.approx(2.0, rel=1e-8)


def test_indefinite_svr_defaults_follow_the_data():
    X, y = _data()
    K = np.tanh(0.5 * X @ X.T - 0.2)
    n = K.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = IndefiniteSVR(kernel="precomputed").fit(K, y)
        scaled = IndefiniteSVR(kernel="precomputed", C=1e-3).fit(1e3 * K, y)
    assert est.epsilon_ == pytest.approx(0.1 * np.std(y), rel=1e-12)
    assert est.rho_ == pytest.approx(n / (4 * 0.1 * np.linalg.norm(K)), rel=1e-12)
    # the largest perturbation of the proxy kernel: a tenth of ||K0||_F
    u = est.proxy_dual_coef_
    assert u @ u / (4 * est.rho_) <= 0.1 * np.linalg.norm(K) * (1 + 1e-12)
    assert scaled.rho_ == pytest.approx(est.rho_ * 1e-9, rel=1e-10)
    given = IndefiniteSVR(kernel="precomputed", rho=2.0, epsilon=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        given.fit(K, y)
    assert (given.rho_, given.epsilon_) == (2.0, 0.3)
