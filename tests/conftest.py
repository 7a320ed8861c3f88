"""Shared fixtures of the formulation and estimator tests: small, seeded data sets.

Every fixture returns a plain dict of NumPy arrays so tests can build whatever
reference they need (libsvm, ``scipy.optimize.linprog``, closed forms) from the
same numbers the estimator sees.  Fixture names are specific (``sigmoid_problem``,
...) so they do not shadow the local fixtures of other test modules.
"""

from __future__ import annotations

import numpy as np
import pytest

from krein.kernels import gaussian_kernel, sigmoid_kernel

#: Sigmoid parameters giving a strongly indefinite kernel on the data below
#: (least eigenvalue about -23 against a largest of about +13 on the 40 training points).
SIGMOID_PARAMS = {"a": 0.5, "r": -1.0}
GAUSSIAN_PARAMS = {"gamma": 0.5}


def _split(X, y, n_train):
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


def _linear_labels(X, rng, noise=0.3):
    return np.where(X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=X.shape[0]) > 0, 1, -1)


@pytest.fixture(scope="session")
def sigmoid_problem():
    """Two classes, 40 training and 20 test points in R^4, sigmoid kernel (indefinite).

    Keys: X, X_test, y, y_test (labels in {-1, +1}), K (40 x 40), K_test (20 x 40),
    K_test_test (20 x 20), params (kernel_params of the sigmoid), lam_min, lam_max.
    """
    rng = np.random.default_rng(0)
    X_all = rng.normal(size=(60, 4))
    y_all = _linear_labels(X_all, rng)
    X, X_test, y, y_test = _split(X_all, y_all, 40)
    K_all = sigmoid_kernel(X_all, **SIGMOID_PARAMS)
    K = K_all[:40, :40]
    lam = np.linalg.eigvalsh(K)
    return {
        "X": X, "X_test": X_test, "y": y, "y_test": y_test,
        "K": K, "K_test": K_all[40:, :40], "K_test_test": K_all[40:, 40:],
        "params": dict(SIGMOID_PARAMS), "lam_min": float(lam[0]), "lam_max": float(lam[-1]),
    }


@pytest.fixture(scope="session")
def gaussian_problem():
    """Two classes, 30 training and 20 test points in R^3, Gaussian (PSD) kernel.

    Keys: X, X_test, y, y_test, K (30 x 30), K_test (20 x 30), params.
    """
    rng = np.random.default_rng(1)
    X_all = rng.normal(size=(50, 3))
    y_all = _linear_labels(X_all, rng, noise=0.5)
    X, X_test, y, y_test = _split(X_all, y_all, 30)
    K_all = gaussian_kernel(X_all, **GAUSSIAN_PARAMS)
    return {
        "X": X, "X_test": X_test, "y": y, "y_test": y_test,
        "K": K_all[:30, :30], "K_test": K_all[30:, :30], "params": dict(GAUSSIAN_PARAMS),
    }


@pytest.fixture(scope="session")
def three_class_problem():
    """Three classes (0, 1, 2), 45 training and 15 test points in R^3, both kernels.

    Keys: X, X_test, y, y_test, K_sig / K_sig_test (sigmoid), K_rbf / K_rbf_test (Gaussian).
    """
    rng = np.random.default_rng(2)
    X_all = rng.normal(size=(60, 3))
    y_all = np.digitize(X_all[:, 0] + 0.3 * X_all[:, 1] + 0.2 * rng.normal(size=60), [-0.5, 0.5])
    X, X_test, y, y_test = _split(X_all, y_all, 45)
    Ks = sigmoid_kernel(X_all, **SIGMOID_PARAMS)
    Kg = gaussian_kernel(X_all, **GAUSSIAN_PARAMS)
    return {
        "X": X, "X_test": X_test, "y": y, "y_test": y_test,
        "K_sig": Ks[:45, :45], "K_sig_test": Ks[45:, :45],
        "K_rbf": Kg[:45, :45], "K_rbf_test": Kg[45:, :45],
    }
