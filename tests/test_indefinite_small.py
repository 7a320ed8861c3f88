"""IndefiniteSVM at the sizes of one-vs-one pairs (many classes).

Small problems (n ~ 40-120 per pair, 91 pairs per fit) are dominated by per-call
overhead, so two shortcuts are taken there, each checked here against an
independent computation:

* :meth:`ProxyKernelOracle.eigendecomposition` (the proxy kernel of every libsvm gap
  check, the spectral out-of-sample map) of the default oracle takes one dense
  ``numpy.linalg.eigh`` of the reduced matrix ``diag(lam) + z z'/(4 rho)`` for
  ``n <= DENSE_EIGH_MAX_N`` instead of the roots of the secular equation.  Checked
  against ``eigh`` of ``X = K0 + u u'/(4 rho)`` formed in the original coordinates
  (and with weights, luss eq. 24) and against the secular path, on both sides of the
  threshold; no secular root is solved below it.  Tolerance: both sides carry
  ``~n eps ||X||`` (n <= 301: ~7e-14 ||X||); ``1e-11 ||X||`` leaves two orders of
  room.  ``X`` is checked to have no eigenvalue within ``1e-6 ||X||`` of zero, so the
  positive part does not depend on round-off.
* :func:`~krein.projections.project_box_hyperplane` and
  :func:`~krein.projections.box_hyperplane_lp` skip the validation of the set with
  ``check=False`` (the loops validate it once): the same results, bit for bit, and
  still a ``ValueError`` with the default.
"""

from __future__ import annotations

import numpy as np
import pytest

import krein.solvers.indefinite.oracle as oracle_module
from krein.projections import box_hyperplane_lp, project_box_hyperplane
from krein.solvers.indefinite import ProxyKernelOracle
from krein.solvers.indefinite.oracle import DENSE_EIGH_MAX_N

RTOL = 1e-11


def _problem(n, seed):
    """A half-negative kernel and a point ``u`` whose ``X(u)`` has no eigenvalue near 0."""
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n))
    K0 = (G + G.T) / np.sqrt(2.0 * n)
    u = rng.choice([-1.0, 1.0], size=n) * rng.uniform(0.0, 1.0, size=n)
    return K0, u


def _reference(K0, u, rho, h=None):
    """``(eigenvalues of X', K*)`` by ``eigh`` of ``X' = W^1/2 K0 W^1/2 + u'u''/(4 rho)``
    in the original coordinates (luss eqs. 5 and 24)."""
    s = np.ones(len(u)) if h is None else np.sqrt(h)
    up = u / s
    X = K0 * np.outer(s, s) + np.outer(up, up) / (4.0 * rho)
    mu, V = np.linalg.eigh(X)
    assert np.min(np.abs(mu)) > 1e-6 * np.max(np.abs(mu))    # no sign decided by round-off
    Kstar = (V * np.maximum(mu, 0.0)) @ V.T / np.outer(s, s)
    return mu, Kstar


def _count_secular(monkeypatch):
    calls = []
    real = oracle_module.secular_roots

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(oracle_module, "secular_roots", counted)
    return calls


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [7, 61, DENSE_EIGH_MAX_N, DENSE_EIGH_MAX_N + 1])
def test_eigendecomposition_both_paths_agree_with_eigh(monkeypatch, n, weighted):
    K0, u = _problem(n, seed=n)
    rho = 0.5
    h = np.random.default_rng(1).uniform(0.5, 2.0, size=n) if weighted else None
    mu_ref, K_ref = _reference(K0, u, rho, h)
    scale = float(np.max(np.abs(mu_ref)))
    calls = _count_secular(monkeypatch)
    oracle = ProxyKernelOracle(K0, rho, weights=h)           # the default path
    mu, W = oracle.eigendecomposition(u)
    # the dense path below the threshold (no root solved), the secular roots above it
    assert (len(calls) > 0) == (n > DENSE_EIGH_MAX_N)
    np.testing.assert_allclose(np.sort(mu), mu_ref, rtol=0, atol=RTOL * scale)
    np.testing.assert_allclose(W.T @ W, np.eye(n), rtol=0, atol=RTOL * n)
    # the rotation back: Q W diag(mu) W' Q' = X'
    QW = oracle.eigenvectors @ W
    s = np.ones(n) if h is None else np.sqrt(h)
    X = K0 * np.outer(s, s) + np.outer(u / s, u / s) / (4.0 * rho)
    np.testing.assert_allclose((QW * mu) @ QW.T, X, rtol=0, atol=RTOL * scale)
    np.testing.assert_allclose(oracle.proxy_kernel(u), K_ref, rtol=0,
                               atol=RTOL * scale / np.min(s) ** 2)
    # and the secular path of the same oracle (secular="vectorized")
    secular = ProxyKernelOracle(K0, rho, weights=h, secular="vectorized")
    np.testing.assert_allclose(oracle.proxy_kernel(u), secular.proxy_kernel(u), rtol=0,
                               atol=RTOL * scale / np.min(s) ** 2)


def test_dense_path_only_for_the_default_oracle(monkeypatch):
    """``secular="vectorized"`` / ``"lapack"`` keep the secular roots at every n (they are
    the references the tests of the secular solver use)."""
    K0, u = _problem(20, seed=3)
    calls = _count_secular(monkeypatch)
    for path in ("vectorized", "lapack"):
        ProxyKernelOracle(K0, 1.0, secular=path).eigendecomposition(u)
    assert len(calls) == 2
    assert 2000 > DENSE_EIGH_MAX_N       # benchmarks/indefinite.py's n = 2000 stays secular


@pytest.mark.parametrize("m", [1, 2, 61, 500])
def test_unchecked_projection_and_lp_are_the_checked_ones(m):
    rng = np.random.default_rng(m)
    a = rng.choice([-1.0, 1.0], size=m)
    upper = rng.uniform(0.1, 2.0, size=m)
    b = float(0.3 * np.sum(upper[a > 0]) - 0.2 * np.sum(upper[a < 0]))
    for _ in range(5):
        v = rng.normal(scale=2.0, size=m)
        x = project_box_hyperplane(v, a, b, upper)
        assert np.array_equal(project_box_hyperplane(v, a, b, upper, check=False), x)
        assert abs(a @ x - b) <= 1e-12 * max(1.0, float(np.sum(upper)))
        assert np.all(x >= 0) and np.all(x <= upper)
        assert box_hyperplane_lp(v, a, b, upper, check=False) == box_hyperplane_lp(v, a, b, upper)
    with pytest.raises(ValueError, match="empty"):
        project_box_hyperplane(np.zeros(m), a, float(np.sum(upper)) + 1.0, upper)
    with pytest.raises(ValueError, match="empty"):
        box_hyperplane_lp(np.zeros(m), a, float(np.sum(upper)) + 1.0, upper)
