"""The rational path of the IndefiniteSVM oracle.

``ProxyKernelOracle(secular="rational")`` (the default) gets ``X_- z`` and
``||X_-||_F^2`` of ``X = K0 + u u' / (4 rho)`` from the trapezoidal rule of the sign
function on shifted Sherman-Morrison resolvents, without one eigenvalue of ``X``
(:mod:`krein.solvers.indefinite.oracle`).  It is checked here against a dense
``numpy.linalg.eigh`` of ``X`` (independent of both the rule and the secular
solver) on the spectra that made the secular path slow: the low-rank sigmoid on
2-D points (a third of the eigenvalues negative, a cluster of numerically zero
ones), a random matrix with half its eigenvalues negative, a classical-scaling
kernel of L1 distances, the Epanechnikov kernel, the same kernels scaled by 1e-4
and 1e4, and spectra with exactly repeated and exactly zero eigenvalues.

Tolerances.  The rule's error in ``sign(x)`` is ``~2 exp(-pi^2 / h) = 1.4e-17`` at
``h = 0.25`` for ``|x| >= 1e-17 max|lam|`` (and ``|x| <= 1e-17 max|lam|`` is off by
at most ``|x|``), so ``|X| z`` and hence ``K* u`` are off by round-off plus
``~1e-17 ||X|| |u|``; ``sum min(mu, 0)^2`` is its exact value on ``K0`` plus the
update's change, whose error scales with ``|u|^2 / (4 rho)`` (measured: 1e-16 of
the value at rho = 1e2 ... 1e6).  The dense reference itself carries
``n eps ||X|| ~ 7e-14 ||X||`` at ``n = 300``.  The comparisons with it allow
``1e-11`` of those scales: two orders above the reference's round-off (measured:
1e-15 to 1e-14), nine below any use of the oracle (gaps to 1e-3 relative).  The
comparison with the secular path (``dlasd4``, relative accuracy) at large ``rho``,
where the certified gap needs ``f`` to ``~eps |f|``, allows ``64 eps |f|``.
Eigenvalues of ``X`` within round-off of zero may be counted either way.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import krein.solvers.indefinite.oracle as oracle_module
from krein.kernels import dissimilarity_kernel, epanechnikov_kernel, sigmoid_kernel
from krein.solvers.indefinite import ProxyKernelOracle

RTOL = 1e-11


def hard_kernel(kind, n, rng):
    """The kernels of ``benchmarks/indefinite.py`` (part 1) at small ``n``."""
    if kind == "sigmoid-2d":            # low rank: ~1/3 negative, a null cluster
        return sigmoid_kernel(rng.uniform(-1.0, 1.0, size=(n, 2)), a=9.0, r=-1.0)
    if kind == "half-negative":         # semicircle: half the eigenvalues negative
        G = rng.normal(size=(n, n))
        return (G + G.T) / np.sqrt(2.0 * n)
    if kind == "l1-scaling":            # classical scaling of non-Euclidean distances
        X = rng.normal(size=(n, 10))
        return dissimilarity_kernel(cdist(X, X, "cityblock"), kind="linear")
    if kind == "epanechnikov":
        return epanechnikov_kernel(rng.normal(size=(n, 5)), sigma=2.0)
    if kind == "sigmoid-10d":
        return sigmoid_kernel(rng.normal(size=(n, 10)), a=0.1, r=-1.0)
    raise ValueError(kind)


def dense_reference(K0, u, rho, h=None):
    """``K* u``, ``g(u)``, ``||K* - K0||_H^2`` and the eigenvalues of ``X'``, by ``eigh``."""
    s = np.ones(len(u)) if h is None else np.sqrt(h)
    up = u / s
    X = K0 * np.outer(s, s) + np.outer(up, up) / (4.0 * rho)
    mu, V = np.linalg.eigh(0.5 * (X + X.T))
    Kp = (V * np.maximum(mu, 0.0)) @ V.T / np.outer(s, s)
    neg2 = float(np.sum(np.minimum(mu, 0.0) ** 2))
    value = -0.5 * u @ K0 @ u - float(up @ up) ** 2 / (16.0 * rho) + rho * neg2
    H = np.outer(s * s, s * s)
    return {"Ku": Kp @ u, "value": value, "dist2": float(np.sum(H * (Kp - K0) ** 2)),
            "mu": mu, "xnorm": float(np.max(np.abs(mu))), "frob2": float(mu @ mu),
            "quartic": float(up @ up) ** 2 / (16.0 * rho)}


def assert_matches_dense(o, K0, u, rho, h=None):
    ev = o.evaluate(u)
    ref = dense_reference(K0, u, rho, h)
    hmin = 1.0 if h is None else float(np.min(h))
    unorm = float(np.linalg.norm(u / (1.0 if h is None else np.sqrt(h))))
    ku_tol = RTOL * ref["xnorm"] * unorm / np.sqrt(hmin)
    np.testing.assert_allclose(ev.Ku, ref["Ku"], rtol=0, atol=ku_tol)
    np.testing.assert_allclose(ev.grad, -ref["Ku"], rtol=0, atol=ku_tol)
    # the value's terms: rho sum min(mu,0)^2 (error ~ rho ||X||_F^2) and the quartic term
    scale = rho * ref["frob2"] + 0.5 * abs(u @ K0 @ u) + ref["quartic"]
    assert abs(ev.value - ref["value"]) <= RTOL * scale, (ev.value, ref["value"])
    assert abs(ev.dist2 - ref["dist2"]) <= RTOL * ref["frob2"] / hmin ** 2, (ev.dist2, ref["dist2"])
    tl = 1e-10 * ref["xnorm"]
    mu = ref["mu"]
    assert int(np.sum(mu < -tl)) <= ev.n_negative <= int(np.sum(mu < tl))
    return ev


@pytest.mark.parametrize("kind", ["sigmoid-2d", "half-negative", "l1-scaling", "epanechnikov",
                                  "sigmoid-10d"])
@pytest.mark.parametrize("scale", [1e-4, 1.0, 1e4])
def test_rational_oracle_matches_dense_eigh_on_hard_kernels(kind, scale):
    rng = np.random.default_rng(["sigmoid-2d", "half-negative", "l1-scaling", "epanechnikov",
                                 "sigmoid-10d"].index(kind))
    n = 300 if kind == "sigmoid-2d" else 200
    K0 = scale * hard_kernel(kind, n, rng)
    for rho in (1e-2 * scale, 1e2 * scale):
        o = ProxyKernelOracle(K0, rho, check=False, secular="rational")
        for c in (1e-3, 1.0):
            # a point of the dual box, as PG visits: u = y * alpha, 0 <= alpha <= C
            u = c * rng.uniform(0.0, 1.0, n) * rng.choice([-1.0, 1.0], n)
            assert_matches_dense(o, K0, u, rho)


def test_rational_oracle_exact_ties_zeros_and_weights():
    """Exactly repeated eigenvalues, exact zeros, and ``u`` orthogonal to eigenvectors.

    ``K0`` is diagonal, so its eigenvalues and eigenvectors are exact: the ties and
    zeros are the matrix's, not round-off's.
    """
    rng = np.random.default_rng(3)
    d = np.repeat([-3.0, -1.0, 0.0, 0.5, 2.0], [40, 60, 80, 20, 40])
    n = d.size
    K0 = np.diag(rng.permutation(d))
    for zero_share in (0.0, 0.5):
        u = rng.normal(size=n)
        u[rng.random(n) < zero_share] = 0.0          # z_i = 0 exactly: poles that stay
        for rho in (1e-3, 1e3):
            for h in (None, rng.uniform(0.5, 2.0, size=n)):
                o = ProxyKernelOracle(K0, rho, weights=h, secular="rational")
                assert_matches_dense(o, K0, u, rho, h)


def test_rational_oracle_agrees_with_the_secular_paths():
    """Three ways, one answer: the rule, the vectorized secular solver, dlasd4."""
    rng = np.random.default_rng(5)
    n = 250
    K0 = hard_kernel("sigmoid-2d", n, rng)
    u = rng.uniform(0.0, 1.0, n) * rng.choice([-1.0, 1.0], n)
    evs = {m: ProxyKernelOracle(K0, 1.0, secular=m).evaluate(u)
           for m in ("rational", "vectorized", "lapack")}
    xnorm = float(np.max(np.abs(np.linalg.eigvalsh(K0)))) + u @ u / 4.0
    for m in ("vectorized", "lapack"):
        assert abs(evs["rational"].value - evs[m].value) <= RTOL * (xnorm ** 2 + (u @ u) ** 2)
        np.testing.assert_allclose(evs["rational"].Ku, evs[m].Ku, rtol=0,
                                   atol=RTOL * xnorm * np.linalg.norm(u))


@pytest.mark.parametrize("kind", ["sigmoid-2d", "half-negative", "epanechnikov"])
def test_rational_value_to_round_off_at_large_rho(kind):
    """At large ``rho`` ``f ~ rho ||(K0)_-||_F^2`` and the gap tests need ``f`` to ~eps |f|.

    (The first version of the rule, ``(||X||_F^2 - sum mu|mu|) / 2``, lost 40 eps of
    ``f`` in the cancellation: IndefiniteOneClassSVM's rho -> infinity test failed.)
    """
    rng = np.random.default_rng(["sigmoid-2d", "half-negative", "epanechnikov"].index(kind))
    n = 200
    K0 = hard_kernel(kind, n, rng)
    for rho in (1e2, 1e4, 1e6):
        u = rng.uniform(0.0, 1.0, n) * rng.choice([-1.0, 1.0], n) / 100.0
        ev = ProxyKernelOracle(K0, rho, secular="rational").evaluate(u)
        ref = ProxyKernelOracle(K0, rho, secular="lapack").evaluate(u)
        assert abs(ev.value - ref.value) <= 64 * np.finfo(float).eps * abs(ref.value)
        np.testing.assert_allclose(ev.grad, ref.grad, rtol=0,
                                   atol=64 * np.finfo(float).eps * np.abs(ref.grad).max())


def test_default_oracle_solves_no_secular_equation(monkeypatch):
    """The default evaluation computes no root of the secular equation, whatever the spectrum.

    Its cost is then the two products with ``Q`` plus passes over the rule's cached
    ``(N, n)`` arrays, the same on every kernel; the secular path stays for
    :meth:`ProxyKernelOracle.eigendecomposition` (the libsvm gap checks).
    """
    rng = np.random.default_rng(2)
    n = 200
    K0 = hard_kernel("sigmoid-2d", n, rng)
    o = ProxyKernelOracle(K0, 1.0)
    assert o.secular == "rational"

    def refuse(*args, **kwargs):
        raise AssertionError("the default oracle solved a secular equation")

    monkeypatch.setattr(oracle_module, "secular_apply", refuse)
    monkeypatch.setattr(oracle_module, "secular_roots", refuse)
    u = rng.uniform(0.0, 1.0, n) * rng.choice([-1.0, 1.0], n)
    assert_matches_dense(o, K0, u, 1.0)
    assert o.n_evals == 1


def test_rational_oracle_huge_update_falls_back_to_the_secular_path():
    """``r |z|^2`` beyond :data:`RATIONAL_MAX_UPDATE` ``max|lam|`` (the rule would overflow)."""
    rng = np.random.default_rng(4)
    n = 30
    K0 = 1e-150 * hard_kernel("half-negative", n, rng)
    u = rng.normal(size=n)
    o = ProxyKernelOracle(K0, 1.0, secular="rational")
    ev = o.evaluate(u)
    ref = ProxyKernelOracle(K0, 1.0, secular="vectorized").evaluate(u)
    assert np.isfinite(ev.value) and np.all(np.isfinite(ev.grad))
    assert ev.value == ref.value
    np.testing.assert_array_equal(ev.Ku, ref.Ku)
    assert ev.n_negative == ref.n_negative


def test_rational_oracle_bad_secular_value():
    with pytest.raises(ValueError, match=r"secular must be one of \('rational', 'vectorized', "
                                         r"'lapack'\)"):
        ProxyKernelOracle(np.eye(3), 1.0, secular="sign")
