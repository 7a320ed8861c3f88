"""IndefiniteSVM core (Luss & d'Aspremont 2009, "luss"), each piece against an independent check.

* The O(n^2) oracle (:class:`ProxyKernelOracle`) against a dense ``numpy.linalg.eigh`` of
  ``X(u) = K0 + u u'/(4 rho)`` (with weights, of ``D K0 D + (u/sqrt h)(u/sqrt h)'/(4 rho)``)
  and the inner objective of luss eq. (4) evaluated *directly* at the projected kernel.
* The secular-equation roots against ``numpy.linalg.eigvalsh(diag(d) + r z z')``.
* The exact projection / LP over ``{a'x = b, 0 <= x <= U}`` against CVXPY (Clarabel) and
  ``scipy.optimize.linprog`` (HiGHS).
* Theorem 1 / Theorem 3 closed forms against the SDP :class:`ProxyKernelProjection`.
* The optimal value of (7) from projected / accelerated gradient against the joint SDP (10).
* luss §2.3 (rho -> infinity) against libsvm on the clipped kernel.
* PerturbSVM (eq. 22) in CVXPY against projected gradient on the same PSD kernel.

Solver tolerances (stated per solver, measured on these problems):

* CLARABEL (interior point, default ``tol_gap_rel = 1e-8``): objective values to ~5e-9
  relative; the matrix variable ``K`` of the Theorem 1/3 SDP only to ~3e-5 relative (the
  objective is rho-strongly convex in K, so ``|dK| ~ sqrt(gap / rho)``) -> 1e-7 on values,
  2e-4 on K.
* SCS (ADMM, CVXPY's default eps): measured 7e-9 on values and 2e-7 on K here; we allow
  the looser 1e-5 / 1e-3 because a first-order method need not do as well elsewhere.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

import krein
from krein.formulations import (IndefiniteSVMSDP, PerturbSVM, ProxyKernelProblem,
                                ProxyKernelProjection, proxy_kernel)
from krein.kernels import gaussian_kernel, sigmoid_kernel
from krein.projections import box_hyperplane_lp, check_feasible_set, project_box_hyperplane
from krein.solvers import ProxyKernelOracle, accelerated_gradient, projected_gradient, solve
from krein.solvers.secular import rank_one_eig, secular_roots

#: Relative tolerance of CLARABEL on optimal values (measured <= 5e-9).
CLARABEL_VALUE_RTOL = 1e-7
#: Relative tolerance of CLARABEL on the SDP matrix variable (measured <= 3e-5).
CLARABEL_K_RTOL = 2e-4
#: SCS at CVXPY's default eps (measured 7e-9 on values, 2e-7 on K).
SCS_VALUE_RTOL = 1e-5
SCS_K_RTOL = 1e-3


# =============================================================================
# Independent references (dense numpy)
# =============================================================================
def reference_inner(K0, u, rho, h=None):
    """Everything about ``min_{K >= 0} -u'Ku/2 + rho sum_ij h_i h_j (K - K0)_ij^2`` by dense eigh.

    The minimizer is computed as ``D^-1 (D K0 D + (D^-1 u)(D^-1 u)'/(4 rho))_+ D^-1``
    (``D = diag(sqrt h)``); the value is the objective evaluated *directly* at it, and the
    closed form ``-u'K0u/2 - |u'|^4/(16 rho) + rho sum min(0, eig)^2`` is returned separately.
    """
    n = len(u)
    s = np.ones(n) if h is None else np.sqrt(np.asarray(h, dtype=float))
    up = u / s
    Xp = K0 * np.outer(s, s) + np.outer(up, up) / (4.0 * rho)
    Xp = 0.5 * (Xp + Xp.T)
    lam, V = np.linalg.eigh(Xp)
    Kp = (V * np.maximum(lam, 0.0)) @ V.T
    Ks = Kp / np.outer(s, s)
    Ks = 0.5 * (Ks + Ks.T)
    H = np.outer(s * s, s * s)
    dist2 = float(np.sum(H * (Ks - K0) ** 2))
    uKu = float(u @ Ks @ u)
    t1, t2, t3 = 0.5 * float(u @ K0 @ u), float(up @ up) ** 2 / (16.0 * rho), \
        rho * float(np.sum(np.minimum(lam, 0.0) ** 2))
    return {
        "X": Xp, "lam": lam, "K": Ks, "Ku": Ks @ u, "uKu": uKu, "dist2": dist2,
        "value_direct": -0.5 * uKu + rho * dist2,
        "value_formula": -t1 - t2 + t3,
        # magnitude of the terms that cancel in the value: the scale of round-off
        "scale": max(1.0, abs(t1) + t2 + t3 + 0.5 * abs(uKu) + rho * dist2),
        "xnorm": max(1.0, float(np.max(np.abs(lam)))),
    }


def random_orthogonal(n, rng):
    Q, R = np.linalg.qr(rng.normal(size=(n, n)))
    return Q * np.sign(np.diag(R))


SPECTRA = ("random", "clustered", "psd", "negdef", "mostly-negative", "mostly-positive")


def make_spectrum(kind, n, rng):
    g = rng.normal(size=n)
    if kind == "random":
        return g
    if kind == "clustered":               # exactly repeated eigenvalues (and exact zeros)
        return np.round(g, 1)
    if kind == "psd":
        return np.abs(g)
    if kind == "negdef":
        return -np.abs(g) - 0.05
    sign = rng.random(n) < 0.85           # 85% on one side: the oracle solves the other side
    if kind == "mostly-negative":
        return np.where(sign, -1.0, 1.0) * np.abs(g)
    return np.where(sign, 1.0, -1.0) * np.abs(g)   # mostly-positive


def make_kernel(kind, n, rng):
    Q = random_orthogonal(n, rng)
    K0 = (Q * make_spectrum(kind, n, rng)) @ Q.T
    return 0.5 * (K0 + K0.T)


def assert_oracle_matches(K0, u, rho, h=None, oracle=None, rtol=1e-9, check_eig=True):
    """Every output of the oracle at ``u`` against :func:`reference_inner`."""
    o = oracle if oracle is not None else ProxyKernelOracle(K0, rho, weights=h)
    ref = reference_inner(K0, u, rho, h)
    ev = o.evaluate(u)
    sc, xn = ref["scale"], ref["xnorm"]
    un = max(1.0, float(np.max(np.abs(u))))
    # the reference's direct value and closed form agree (sanity of the reference)
    assert abs(ref["value_direct"] - ref["value_formula"]) <= rtol * sc
    assert abs(ev.value - ref["value_direct"]) <= rtol * sc, (ev.value, ref["value_direct"])
    ku_tol = rtol * xn * un * max(1.0, np.abs(u).sum())
    np.testing.assert_allclose(ev.Ku, ref["Ku"], rtol=0, atol=ku_tol)
    np.testing.assert_allclose(ev.grad, -ref["Ku"], rtol=0, atol=ku_tol)
    assert abs(ev.uKu - ref["uKu"]) <= rtol * sc
    assert abs(ev.dist2 - ref["dist2"]) <= rtol * max(1.0, sc / rho)
    # eigenvalues within round-off of 0 may be counted either way
    lam, tl = ref["lam"], 1e-10 * xn
    assert int(np.sum(lam < -tl)) <= ev.n_negative <= int(np.sum(lam < tl)), (ev.n_negative, lam)
    if not check_eig:
        return o, ev, ref
    # proxy kernel and its factor
    k_tol = rtol * xn / (1.0 if h is None else np.min(h))
    Kp = o.proxy_kernel(u)
    np.testing.assert_allclose(Kp, ref["K"], rtol=0, atol=k_tol)
    L = o.proxy_factor(u)
    np.testing.assert_allclose(L @ L.T, ref["K"], rtol=0, atol=k_tol)
    # full eigendecomposition of X' in the eigenbasis of K0'
    mu, W = o.eigendecomposition(u)
    n = len(u)
    assert mu.shape == (n,) and W.shape == (n, n)
    np.testing.assert_allclose(np.sort(mu), lam, rtol=0, atol=rtol * xn)
    # orthonormal to ~1e-10 even with |u|^2/(4 rho) ~ 1e12 |lam(K0)| (measured 1e-10 there)
    np.testing.assert_allclose(W.T @ W, np.eye(n), rtol=0, atol=1e-9)
    QW = o.eigenvectors @ W
    np.testing.assert_allclose((QW * mu) @ QW.T, ref["X"], rtol=0, atol=rtol * xn)
    # identity of luss eq. (6): g(u) = -u'K*u/2 + rho ||K* - K0||^2_H at K* = proxy_kernel(u)
    H = 1.0 if h is None else np.outer(h, h)
    direct = -0.5 * u @ Kp @ u + rho * np.sum(H * (Kp - K0) ** 2)
    assert abs(direct - ev.value) <= rtol * sc
    return o, ev, ref


# =============================================================================
# 1. The oracle against a dense eigendecomposition
# =============================================================================
@pytest.mark.parametrize("n", [2, 5, 50, 300])
@pytest.mark.parametrize("kind", SPECTRA)
def test_oracle_matches_dense_eigh(n, kind):
    rng = np.random.default_rng(1000 * n + SPECTRA.index(kind))
    K0 = make_kernel(kind, n, rng)
    rhos = (1e-8, 1e-4, 1.0, 1e4, 1e6) if n < 300 else (1e-2, 1e4)
    u_scales = (0.0, 1e-12, 1e-3, 1.0, 30.0) if n < 300 else (1e-12, 1.0, 30.0)
    for h in (None, rng.uniform(0.2, 3.0, size=n)):
        for rho in rhos:
            o = ProxyKernelOracle(K0, rho, weights=h)   # one eigh of K0', reused for every u
            for s in u_scales:
                u = s * rng.normal(size=n)
                assert_oracle_matches(K0, u, rho, h, oracle=o, check_eig=(n < 300 or s == 1.0))


def test_oracle_both_sides_of_the_spectrum_are_exercised():
    """The two code paths (negative roots when they are fewer, else positive roots)."""
    rng = np.random.default_rng(7)
    n = 40
    for kind, expect_few_negative in (("mostly-positive", True), ("mostly-negative", False)):
        K0 = make_kernel(kind, n, rng)
        u = rng.normal(size=n)
        _, ev, ref = assert_oracle_matches(K0, u, 1.0)
        assert (ev.n_negative < n / 2) == expect_few_negative


def test_oracle_deflation_cases():
    """Exactly repeated eigenvalues of K0, u orthogonal to eigenvectors, a zero eigenvalue."""
    rng = np.random.default_rng(11)
    n = 12
    Q = random_orthogonal(n, rng)
    d = np.array([-3, -3, -3, -1, -1, 0, 0, 0.5, 2, 2, 2, 4.0])
    K0 = (Q * d) @ Q.T
    K0 = 0.5 * (K0 + K0.T)
    c = rng.normal(size=n)
    for zero in ([], [0, 3], [0, 1, 2], [5, 6, 7, 11], [1, 4, 8]):
        cc = c.copy()
        cc[zero] = 0.0                      # u has no component on these eigenvectors
        u = Q @ cc
        for rho in (0.05, 1.0, 50.0):
            assert_oracle_matches(K0, u, rho, rtol=1e-9)
            assert_oracle_matches(K0, u, rho, h=rng.uniform(0.5, 2.0, n), rtol=1e-9)


def test_oracle_n1_and_identity_with_negligible_u():
    """n = 1 and K0 = c I are fine when the update deflates away (u = 0 or tiny)."""
    for K0 in (np.array([[-1.5]]), np.array([[2.0]]), -2.0 * np.eye(4), 3.0 * np.eye(4)):
        n = K0.shape[0]
        for u in (np.zeros(n), np.full(n, 1e-13)):
            assert_oracle_matches(K0, u, 1.0)


@pytest.mark.parametrize("case", ["n1-negative", "n1-positive", "minus-identity", "identity",
                                  "u-eigenvector", "large-rho"])
def test_oracle_single_pole_after_deflation(case):
    rng = np.random.default_rng(3)
    rho = 1.0
    if case == "large-rho":
        # rr = |u|^2/(4 rho) ~ 2e-15: the 2nd component falls under the deflation tolerance
        K0 = np.array([[-0.28256731, 0.00478221], [0.00478221, -0.24717321]])
        u, rho = np.array([-0.0009099, 0.00014429]), 1e8
    elif case == "n1-negative":
        K0, u = np.array([[-1.0]]), np.array([1.0])          # X = -0.75: K* = 0
    elif case == "n1-positive":
        K0, u = np.array([[2.0]]), np.array([1.0])           # X = 2.25 = K*
    elif case == "minus-identity":
        K0, u = -np.eye(5), np.ones(5)
    elif case == "identity":
        K0, u = np.eye(3), np.ones(3)                        # K* = I + 11'/4
    else:
        Q = random_orthogonal(5, rng)
        K0 = (Q * np.array([-2.0, -1.0, 0.5, 1.0, 3.0])) @ Q.T
        K0 = 0.5 * (K0 + K0.T)
        u = 2.0 * Q[:, 1]
    assert_oracle_matches(K0, u, rho)


@st.composite
def oracle_cases(draw):
    n = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    vals = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
    d = np.array(draw(st.lists(vals, min_size=n, max_size=n)))
    if draw(st.booleans()):
        d = np.round(d)                     # repeated eigenvalues
    Q = random_orthogonal(n, rng)
    K0 = (Q * d) @ Q.T
    K0 = 0.5 * (K0 + K0.T)
    u = np.array(draw(st.lists(st.floats(-10, 10, allow_nan=False), min_size=n, max_size=n)))
    rho = draw(st.floats(1e-3, 1e3))
    h = None
    if draw(st.booleans()):
        h = np.array(draw(st.lists(st.floats(0.1, 10), min_size=n, max_size=n)))
    return K0, u, rho, h


def poles_well_separated(lam, rel=1e-5):
    """No two eigenvalues of K0' closer than ``rel * max|lam|``, except pairs within the
    deflation tolerance ``8 eps max|lam|`` (those are surely merged by the deflation)."""
    scale = float(np.max(np.abs(lam)))
    gaps = np.diff(lam)
    return bool(np.all((gaps <= 8 * np.finfo(float).eps * scale) | (gaps >= rel * max(1.0, scale))))


@settings(deadline=None, max_examples=50)
@given(oracle_cases())
@example((np.zeros((2, 2)), np.array([0.0, 3.6e-92]), 1.0, None))   # 1/delta overflowed
def test_oracle_property(case):
    K0, u, rho, h = case
    o = ProxyKernelOracle(K0, rho, weights=h)
    # every output, including the full eigendecomposition (close and single poles included)
    assert_oracle_matches(K0, u, rho, h, oracle=o, rtol=1e-8, check_eig=True)


@pytest.mark.parametrize("case", ["synthetic", "sigmoid-kernel"])
def test_proxy_kernel_close_poles(case):
    rng = np.random.default_rng(0)
    if case == "synthetic":
        n = 6
        Q = random_orthogonal(n, rng)
        K0 = (Q * np.array([-100.0, -1.0, 0.5, 0.5 + 1e-10, 3.0, 7.0])) @ Q.T
        K0 = 0.5 * (K0 + K0.T)
        rho = 1.0
    else:
        n = 200
        K0 = sigmoid_kernel(rng.normal(size=(n, 2)), a=0.2, r=-0.5)   # lam in [-87, 34]
        rho = 0.1
    u = rng.uniform(0, 1, n) * rng.choice([-1.0, 1.0], n)
    o = ProxyKernelOracle(K0, rho)
    ref = reference_inner(K0, u, rho)
    assert abs(o.evaluate(u).value - ref["value_direct"]) <= 1e-9 * ref["scale"]   # fine
    _, W = o.eigendecomposition(u)
    assert np.max(np.abs(W.T @ W - np.eye(n))) <= 1e-10
    np.testing.assert_allclose(o.proxy_kernel(u), ref["K"], rtol=0, atol=1e-9 * ref["xnorm"])


# =============================================================================
# 2. Secular roots against eigvalsh(diag(d) + r z z')
# =============================================================================
def full_spectrum_from_secular(d, z, r):
    eig = rank_one_eig(d, z, r)
    m = eig.keep.size
    mu, delta = secular_roots(eig, np.arange(m))
    # interlacing of the reduced problem, and DELTA = p_j - mu_i
    p = eig.poles
    assert np.all(mu >= p - 1e-12 * max(1.0, np.max(np.abs(d))))
    if m > 1:
        assert np.all(mu[:-1] <= p[1:] + 1e-12 * max(1.0, np.max(np.abs(d))))
    np.testing.assert_allclose(delta, p[None, :] - mu[:, None], rtol=0,
                               atol=1e-12 * max(1.0, np.max(np.abs(d)), eig.rr))
    return np.sort(np.concatenate([mu, eig.deflated_values])), eig


SECULAR_CASES = ("random", "zero-z", "repeated-d", "near-repeated-d", "r0", "z0", "large-r",
                 "tiny-r", "big-n")


@pytest.mark.parametrize("case", SECULAR_CASES)
def test_secular_roots_match_eigvalsh(case):
    rng = np.random.default_rng(SECULAR_CASES.index(case))
    n = 200 if case == "big-n" else 15
    d = np.sort(rng.normal(size=n) * 3)
    z = rng.normal(size=n)
    r = 0.7
    if case == "zero-z":
        z[[0, 4, 5, n - 1]] = 0.0
    elif case == "repeated-d":
        d = np.sort(np.round(d))
    elif case == "near-repeated-d":
        d[5] = d[4] + 1e-15
        d[9] = d[8]
        d = np.sort(d)
    elif case == "r0":
        r = 0.0
    elif case == "z0":
        z[:] = 0.0
    elif case == "large-r":
        r = 1e6
    elif case == "tiny-r":
        r = 1e-9
    got, eig = full_spectrum_from_secular(d, z, r)
    ref = np.linalg.eigvalsh(np.diag(d) + r * np.outer(z, z))
    scale = max(1.0, np.max(np.abs(d)), r * z @ z)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * scale)
    if case in ("r0", "z0"):
        assert eig.keep.size == 0
    if case == "zero-z":
        assert np.all(eig.group[[0, 4, 5, n - 1]] == -1)
    if case == "repeated-d":
        assert eig.keep.size < n


@pytest.mark.parametrize("d,z", [([2.0], [1.0]), ([2.0, 2.0, 2.0], [1.0, 1.0, 1.0]),
                                 ([-1.0, 0.5, 3.0], [0.0, 2.0, 0.0])])
def test_secular_roots_single_pole(d, z):
    d, z = np.array(d), np.array(z)
    got, _ = full_spectrum_from_secular(d, z, 3.0)
    np.testing.assert_allclose(got, np.linalg.eigvalsh(np.diag(d) + 3.0 * np.outer(z, z)),
                               atol=1e-12)


def test_rank_one_eig_rejects_bad_input():
    with pytest.raises(ValueError, match="r must be"):
        rank_one_eig(np.array([1.0, 2.0]), np.ones(2), -1.0)
    with pytest.raises(ValueError, match="ascending"):
        rank_one_eig(np.array([2.0, 1.0]), np.ones(2), 1.0)


# =============================================================================
# 3. Projection and LP over {a'x = b, 0 <= x <= U}
# =============================================================================
def cvxpy_projection(v, a, b, U):
    x = cp.Variable(len(v))
    p = cp.Problem(cp.Minimize(cp.sum_squares(x - v)), [a @ x == b, x >= 0, x <= U])
    p.solve(solver="CLARABEL")
    assert p.status == cp.OPTIMAL
    return p.value


def feasible_sets(rng, count):
    """(name, a, b, U) covering svc, one-class, svr and general sets."""
    out = []
    for t in range(count):
        m = int(rng.integers(1, 25))
        kind = t % 4
        if kind == 0:   # svc: y'alpha = 0, 0 <= alpha <= C
            a = rng.choice([-1.0, 1.0], m)
            out.append(("svc", a, 0.0, np.full(m, rng.uniform(0.1, 5))))
        elif kind == 1:  # one-class: 1'alpha = 1, 0 <= alpha <= 1/(nu n)
            nu = rng.uniform(0.05, 1.0)
            out.append(("one-class", np.ones(m), 1.0, np.full(m, 1.0 / (nu * m))))
        elif kind == 2:  # svr: 1'(a+ - a-) = 0
            a = np.r_[np.ones(m), -np.ones(m)]
            out.append(("svr", a, 0.0, np.full(2 * m, rng.uniform(0.1, 3))))
        else:           # general: varying bounds (some zero), b anywhere in range
            a = rng.choice([-1.0, 1.0], m)
            U = rng.uniform(0, 2, m)
            U[rng.random(m) < 0.2] = 0.0
            lo, hi = -U[a < 0].sum(), U[a > 0].sum()
            out.append(("general", a, float(rng.uniform(lo, hi)), U))
    return out


def test_projection_matches_cvxpy():
    rng = np.random.default_rng(0)
    for t, (name, a, b, U) in enumerate(feasible_sets(rng, 80)):
        m = a.size
        v = rng.normal(scale=rng.choice([0.1, 1.0, 10.0]), size=m)
        if t % 3 == 0:
            v = np.round(v)                 # ties in v (and in the breakpoints)
        x = project_box_hyperplane(v, a, b, U)
        # exact feasibility
        assert abs(a @ x - b) <= 1e-12 * max(1.0, np.abs(U).sum()), (name, a @ x - b)
        assert np.all(x >= 0) and np.all(x <= U)
        # optimality: not worse than Clarabel (whose point is itself ~1e-8 infeasible,
        # so its value may be a hair below the true minimum: relative 1e-8)
        ref = cvxpy_projection(v, a, b, U)
        f = float(np.sum((x - v) ** 2))
        assert f <= ref + 1e-8 * max(1.0, ref), (name, f, ref)
        assert f >= ref - 1e-6 * max(1.0, ref)


def test_projection_of_feasible_point_is_itself_and_ties():
    a = np.array([1.0, -1.0, 1.0, -1.0])
    x0 = np.array([0.3, 0.5, 0.2, 0.0])
    np.testing.assert_allclose(project_box_hyperplane(x0, a, 0.0, 1.0), x0, atol=1e-15)
    # all-equal v: the projection onto {1'x = 1, 0 <= x <= U} is uniform
    x = project_box_hyperplane(np.full(5, 7.0), np.ones(5), 1.0, 0.5)
    np.testing.assert_allclose(x, np.full(5, 0.2), atol=1e-15)
    # b at the end of its range: the unique feasible point
    x = project_box_hyperplane(np.array([5.0, -3.0, 0.1]), np.ones(3), 3.0, 1.0)
    np.testing.assert_allclose(x, np.ones(3), atol=1e-15)


def test_box_hyperplane_lp_matches_highs():
    rng = np.random.default_rng(1)
    for t, (name, a, b, U) in enumerate(feasible_sets(rng, 120)):
        m = a.size
        w = rng.normal(size=m)
        if t % 3 == 0:
            w = np.round(w)                 # ties
        val, nu = box_hyperplane_lp(w, a, b, U)
        res = linprog(-w, A_eq=a[None, :], b_eq=[b], bounds=list(zip(np.zeros(m), U)),
                      method="highs")
        assert res.status == 0
        assert abs(val - (-res.fun)) <= 1e-9 * max(1.0, abs(res.fun)), (name, val, -res.fun)
        # nu is a dual optimum: its dual value is the LP value (strong duality)
        dual = nu * b + float(np.sum(U * np.maximum(0.0, w - nu * a)))
        assert abs(dual - val) <= 1e-12 * max(1.0, abs(val))


@pytest.mark.parametrize("a,b,U", [(np.ones(3), 5.0, 1.0), (np.array([1.0, -1.0, 1.0]), -2.0, 0.5)])
def test_check_feasible_set_rejects_empty_sets(a, b, U):
    with pytest.raises(ValueError, match="empty"):
        check_feasible_set(a, b, U)


@pytest.mark.parametrize("func", ["project", "lp"])
def test_projection_and_lp_reject_empty_sets(func):
    a, b, U = np.ones(3), 5.0, 1.0
    with pytest.raises(ValueError):
        if func == "project":
            project_box_hyperplane(np.zeros(3), a, b, U)
        else:
            box_hyperplane_lp(np.ones(3), a, b, U)


# =============================================================================
# 4. Theorem 1 and Theorem 3 against the SDP
# =============================================================================
@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n,rho", [(6, 0.1), (12, 1.0), (20, 10.0)])
def test_theorem_closed_form_matches_sdp(solver, weighted, n, rho):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    K0 = 0.5 * (A + A.T)                    # indefinite
    u = rng.normal(size=n)
    h = rng.uniform(0.3, 3.0, n) if weighted else None
    k_rtol, v_rtol = ((CLARABEL_K_RTOL, CLARABEL_VALUE_RTOL) if solver == "CLARABEL"
                      else (SCS_K_RTOL, SCS_VALUE_RTOL))
    sol = solve(ProxyKernelProjection(K0, u, rho, weights=h), solver)
    K_sdp = sol.primal["K"]
    K_closed = proxy_kernel(K0, u, rho, weights=h)      # eq. (5) / eq. (24)
    o = ProxyKernelOracle(K0, rho, weights=h)
    K_oracle = o.proxy_kernel(u)
    scale = max(1.0, np.max(np.abs(K_closed)))
    assert np.max(np.abs(K_sdp - K_closed)) <= k_rtol * scale
    np.testing.assert_allclose(K_oracle, K_closed, rtol=0, atol=1e-10 * scale)
    val = o.evaluate(u).value
    assert abs(sol.objective - val) <= v_rtol * max(1.0, abs(val))
    # the SDP really is projecting: K0 is indefinite, K* is PSD and differs from X
    assert np.linalg.eigvalsh(K0)[0] < -0.5
    assert np.linalg.eigvalsh(K_closed)[0] >= -1e-10 * scale


def test_theorem3_psd_kernel_rank_one_update_and_printed_eq25():
    """For PSD K0: K* = K0 + W^-1 u u' W^-1 / (4 rho) (derived from eq. 24); the form printed
    as eq. (25), W^-1/2 u u' W^-1/2 / (4 rho), is not the minimizer unless h = 1."""
    rng = np.random.default_rng(5)
    n, rho = 10, 0.5
    X = rng.normal(size=(n, 3))
    K0 = gaussian_kernel(X, gamma=0.3)
    u = rng.normal(size=n)
    h = rng.uniform(0.3, 3.0, n)
    Winv = 1.0 / h
    ours = K0 + np.outer(Winv * u, Winv * u) / (4.0 * rho)
    printed = K0 + np.outer(np.sqrt(Winv) * u, np.sqrt(Winv) * u) / (4.0 * rho)
    sol = solve(ProxyKernelProjection(K0, u, rho, weights=h), "CLARABEL")
    scale = np.max(np.abs(ours))
    assert np.max(np.abs(sol.primal["K"] - ours)) <= CLARABEL_K_RTOL * scale
    np.testing.assert_allclose(proxy_kernel(K0, u, rho, weights=h), ours, atol=1e-12 * scale)
    np.testing.assert_allclose(ProxyKernelOracle(K0, rho, weights=h).proxy_kernel(u), ours,
                               atol=1e-10 * scale)

    def obj(K):  # the objective of the inner problem of eq. (23) with H = rho h h'
        return -0.5 * u @ K @ u + rho * np.sum(np.outer(h, h) * (K - K0) ** 2)

    assert abs(obj(ours) - sol.objective) <= CLARABEL_VALUE_RTOL * max(1.0, abs(sol.objective))
    assert obj(printed) > sol.objective + 1e-3 * max(1.0, abs(sol.objective))
    assert np.max(np.abs(sol.primal["K"] - printed)) > 100 * CLARABEL_K_RTOL * scale
    # with h = 1 both forms reduce to Theorem 1's K0 + u u'/(4 rho)
    ones = np.ones(n)
    np.testing.assert_allclose(proxy_kernel(K0, u, rho, weights=ones),
                               K0 + np.outer(u, u) / (4.0 * rho), atol=1e-12 * scale)


# =============================================================================
# 5. Optimal value of (7): projected / accelerated gradient vs the SDP (10)
# =============================================================================
def sigmoid_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return sigmoid_kernel(X, a=0.5, r=-1.0), y


def objective7(K0, y, alpha, rho):
    """f(alpha) of luss eq. (7), by dense eigh (independent of the oracle)."""
    u = y * alpha
    ref = reference_inner(K0, u, rho)
    return float(alpha.sum()) + ref["value_direct"]


# (n, rho, C): Clarabel ends 'optimal_inaccurate' on (10) for some small-rho or large-C
# instances with n >= 20 (the optimal K is rank-deficient, on the boundary of the PSD cone),
# so the grid keeps instances where it reports 'optimal' and plain PG needs < 1000 iterations.
SDP_GRID = [(10, 0.1, 1.0), (10, 1.0, 10.0), (10, 10.0, 1.0), (20, 0.1, 1.0), (20, 1.0, 1.0),
            (20, 10.0, 1.0), (25, 0.1, 1.0), (25, 1.0, 0.1), (25, 10.0, 1.0)]


@pytest.mark.parametrize("n,rho,C", SDP_GRID)
def test_gradient_methods_match_sdp10(n, rho, C):
    seed = {10: 0, 20: 1, 25: 2}[n]
    K0, y = sigmoid_data(n, seed)
    assert np.linalg.eigvalsh(K0)[0] < -1.0
    sdp = solve(IndefiniteSVMSDP(K0, y, C, rho), "CLARABEL")
    ref = sdp.objective
    slack = CLARABEL_VALUE_RTOL * abs(ref)
    P = ProxyKernelProblem(K0, y, C=C, rho=rho)
    for alg in (projected_gradient, accelerated_gradient):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            r = alg(P, tol=1e-8, max_iter=3000)
        cert = r.certificate
        assert r.status == "optimal"
        assert abs(r.objective - ref) <= 1e-4 * abs(ref), (alg.__name__, r.objective, ref)
        assert r.gap >= -1e-9 and cert["gap"] >= -1e-9
        assert cert["lower"] <= ref + slack, (alg.__name__, cert["lower"], ref)
        assert ref <= cert["upper"] + slack, (alg.__name__, ref, cert["upper"])
        # the reported objective is f at the returned alpha (dense recomputation)
        alpha = r.primal["alpha"]
        assert abs(objective7(K0, y, alpha, rho) - r.objective) <= 1e-9 * abs(ref)


# =============================================================================
# 6. rho -> infinity (luss §2.3): the proxy kernel tends to clip(K0), the SVM to libsvm's
# =============================================================================
def test_rho_to_infinity_tends_to_clipped_svm():
    rng = np.random.default_rng(0)
    n, C = 40, 1.0
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    K0 = sigmoid_kernel(X, a=0.5, r=-1.0)
    lam, V = np.linalg.eigh(K0)
    assert lam[0] < -1.0
    Kc = (V * np.maximum(lam, 0.0)) @ V.T
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(Kc, y)
    a = np.zeros(n)
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    dual_ref = a.sum() - 0.5 * (y * a) @ Kc @ (y * a)
    dec_ref = svc.decision_function(Kc)
    dists, dec_errs, duals = [], [], []
    for rho in (1.0, 10.0, 100.0, 1e3, 1e4):
        P = ProxyKernelProblem(K0, y, C=C, rho=rho)
        # f contains rho ||K0_-||^2 (~5e6 at rho = 1e4): an absolute tolerance, not a relative one
        r = accelerated_gradient(P, tol=1e-13, atol=1e-7, max_iter=3000)
        assert r.status == "optimal"
        u = r.primal["u"]
        Ks = proxy_kernel(K0, u, rho)
        Ku = Ks @ u
        _, b = P.omega_upper(Ku, float(u @ Ku))     # exact optimal intercept for K*
        dec = Ku + b
        dists.append(np.linalg.norm(Ks - Kc))
        dec_errs.append(np.max(np.abs(dec - dec_ref)))
        duals.append(r.primal["alpha"].sum() - 0.5 * float(u @ Ku))
        if rho >= 100:
            assert np.all(np.sign(dec) == np.sign(dec_ref))
    assert np.all(np.diff(dists) < 0), dists
    assert np.all(np.diff(dec_errs) < 0), dec_errs
    assert dists[-1] <= 1e-4 * np.linalg.norm(Kc)
    assert dec_errs[-1] <= 1e-3
    assert abs(duals[-1] - dual_ref) <= 1e-3 * abs(dual_ref)
    assert abs(duals[-1] - dual_ref) < abs(duals[0] - dual_ref)


# =============================================================================
# 7. PerturbSVM (eq. 22) vs projected gradient on the same PSD kernel
# =============================================================================
@pytest.mark.parametrize("rho,C", [(1.0, 0.5), (10.0, 0.5)])
def test_perturbsvm_matches_projected_gradient(rho, C):
    rng = np.random.default_rng(0)
    n = 40
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    K0 = gaussian_kernel(X, gamma=0.5)
    f = PerturbSVM(K0, y, C=C, rho=rho)
    assert f.is_dpp()
    s = solve(f, "CLARABEL")
    P = ProxyKernelProblem(K0, y, C=C, rho=rho)
    r = projected_gradient(P, tol=1e-9, max_iter=3000)
    assert r.status == "optimal"
    assert abs(s.objective - r.objective) <= 1e-5 * abs(s.objective)
    np.testing.assert_allclose(s.primal["alpha"], r.primal["alpha"], atol=1e-3 * C)
    # eq. (22) written out by hand at the CVXPY point
    al = s.primal["alpha"]
    v22 = al.sum() - 0.5 * (y * al) @ K0 @ (y * al) - np.sum(np.outer(al, al) ** 2) / (16 * rho)
    assert abs(v22 - s.objective) <= CLARABEL_VALUE_RTOL * abs(s.objective) + 1e-7
    # and no eigenvalue is clipped along the way (the general path reduces to eq. 22)
    assert r.trace["n_negative"].max() == 0
    # re-solving with a new C through the DPP parameter gives the same as a fresh build
    f.set(C=2 * C)
    s2 = solve(f, "CLARABEL")
    s3 = solve(PerturbSVM(K0, y, C=2 * C, rho=rho), "CLARABEL")
    assert abs(s2.objective - s3.objective) <= CLARABEL_VALUE_RTOL * abs(s3.objective)


def test_perturbsvm_rejects_indefinite_kernel():
    K0, y = sigmoid_data(10, 0)
    with pytest.raises(ValueError, match="PSD"):
        PerturbSVM(K0, y)


# =============================================================================
# 8. Bad input
# =============================================================================
K_SMALL = np.array([[1.0, 0.5, 0.2], [0.5, -1.0, 0.3], [0.2, 0.3, 0.5]])
Y_SMALL = np.array([1.0, -1.0, 1.0])


@pytest.mark.parametrize("kwargs,match", [
    ({"model": "svm"}, "model"),
    ({"rho": 0}, "rho"), ({"rho": -1.0}, "rho"), ({"rho": np.nan}, "rho"), ({"rho": np.inf}, "rho"),
    ({"C": 0}, "C"), ({"C": -2.0}, "C"),
    ({"y": np.array([0.0, 1.0, 1.0])}, "y"), ({"y": np.array([1.0, 2.0, 1.0])}, "y"),
    ({"y": np.array([1.0, -1.0])}, "y"), ({"y": np.array([1.0, np.nan, 1.0])}, "y"),
    ({"model": "one-class", "nu": 0}, "nu"), ({"model": "one-class", "nu": 1.5}, "nu"),
    ({"model": "one-class", "nu": -0.1}, "nu"), ({"model": "one-class", "nu": "a"}, "nu"),
    ({"weights": [1.0, -1.0, 1.0]}, "weights"), ({"weights": [1.0, 0.0, 1.0]}, "weights"),
    ({"weights": [1.0, 1.0]}, "weights"), ({"weights": [1.0, np.nan, 1.0]}, "weights"),
    ({"weights": [1.0, np.inf, 1.0]}, "weights"),
    ({"model": "svr", "epsilon": -1.0}, "epsilon"),
])
def test_problem_bad_input(kwargs, match):
    kw = {"y": Y_SMALL}
    kw.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ProxyKernelProblem(K_SMALL, **kw)


@pytest.mark.parametrize("K0,match", [
    (K_SMALL[:2], "square"), (np.ones(3), "square"),
    (K_SMALL + np.triu(np.ones((3, 3)), 1), "symmetric"), (np.full((3, 3), np.nan), "NaN"),
])
def test_problem_bad_kernel(K0, match):
    with pytest.raises(ValueError, match=match):
        ProxyKernelProblem(K0, Y_SMALL)
    with pytest.raises(ValueError, match=match):
        ProxyKernelOracle(K0, 1.0)


def test_oracle_bad_input():
    with pytest.raises(ValueError, match="rho"):
        ProxyKernelOracle(K_SMALL, 0.0)
    with pytest.raises(ValueError, match="weights"):
        ProxyKernelOracle(K_SMALL, 1.0, weights=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="weights"):
        ProxyKernelOracle(K_SMALL, 1.0, weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="u must have shape"):
        ProxyKernelOracle(K_SMALL, 1.0).evaluate(np.ones(2))


@pytest.mark.parametrize("alg", [projected_gradient, accelerated_gradient])
@pytest.mark.parametrize("kwargs,match", [
    ({"tol": -1e-3}, "tol"), ({"tol": np.nan}, "tol"), ({"atol": -1.0}, "atol"),
    ({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter"),
    ({"gap_every": -1}, "gap_every"), ({"beta0": np.ones(2)}, "beta0"),
    ({"step0": -1.0}, "step0"), ({"step0": 0.0}, "step0"),
])
def test_algorithm_bad_input(alg, kwargs, match):
    with pytest.raises(ValueError, match=match):
        alg(ProxyKernelProblem(K_SMALL, Y_SMALL), **kwargs)


def test_algorithm_bad_step_rule_and_problem_type():
    with pytest.raises(ValueError, match="step"):
        projected_gradient(ProxyKernelProblem(K_SMALL, Y_SMALL), step="armijo")
    with pytest.raises(TypeError):
        projected_gradient(K_SMALL)


def test_formulations_bad_parameters():
    with pytest.raises(ValueError, match="C"):
        IndefiniteSVMSDP(K_SMALL, Y_SMALL, 0.0, 1.0)
    with pytest.raises(ValueError, match="rho"):
        IndefiniteSVMSDP(K_SMALL, Y_SMALL, 1.0, -1.0)
    with pytest.raises(ValueError, match="rho"):
        ProxyKernelProjection(K_SMALL, np.ones(3), 0.0)
    with pytest.raises(ValueError, match="rho"):
        proxy_kernel(K_SMALL, np.ones(3), -1.0)
    with pytest.raises(ValueError, match="C"):
        PerturbSVM(np.eye(3), Y_SMALL, C=0.0)
    with pytest.raises(ValueError, match="rho"):
        PerturbSVM(np.eye(3), Y_SMALL, rho=0.0)


def test_problem_rejects_boolean_nu():
    with pytest.raises(ValueError, match="nu"):
        ProxyKernelProblem(K_SMALL, model="one-class", nu=True)


@pytest.mark.parametrize("build", ["sdp-labels", "perturb-labels", "projection-weights",
                                   "proxy_kernel-weights"])
def test_formulations_validate_labels_and_weights(build):
    bad_y = np.array([0.0, 1.0, 1.0])
    bad_h = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="y|label|weights"):
        if build == "sdp-labels":
            IndefiniteSVMSDP(K_SMALL, bad_y, 1.0, 1.0)
        elif build == "perturb-labels":
            PerturbSVM(np.eye(3), bad_y)
        elif build == "projection-weights":
            ProxyKernelProjection(K_SMALL, np.ones(3), 1.0, weights=bad_h)
        else:
            proxy_kernel(K_SMALL, np.ones(3), 1.0, weights=bad_h)


@pytest.mark.parametrize("alg", [projected_gradient, accelerated_gradient])
def test_convergence_warning_at_max_iter(alg):
    K0, y = sigmoid_data(20, 1)
    P = ProxyKernelProblem(K0, y, C=10.0, rho=1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        r = alg(P, tol=1e-14, atol=0.0, max_iter=2)
    assert r.status == "max_iter" and r.iterations == 2
    assert r.gap >= -1e-9                   # still a certified (if loose) gap
    assert len(r.trace) == 2


def test_relative_gap_finite_when_best_point_is_zero():
    K0, y = sigmoid_data(20, 1)
    P = ProxyKernelProblem(K0, y, C=10.0, rho=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("error", RuntimeWarning)
        r = projected_gradient(P, tol=1e-14, atol=0.0, max_iter=2)
    rel = r.certificate["relative_gap"]
    # gap / max(|f - g(0)|, 1/2 u'|K0|u): finite, or +inf exactly when the best point is
    # still at the offset (u = 0)
    assert np.isfinite(rel) or (rel == np.inf and r.objective == r.certificate["objective_offset"])


# =============================================================================
# 9. The Solution contract of the custom loops
# =============================================================================
TRACE_COLUMNS = {"iter", "objective", "lower", "upper", "gap", "bound", "step", "n_negative", "seconds",
                 "gap_seconds"}


@pytest.mark.parametrize("alg", [projected_gradient, accelerated_gradient])
@pytest.mark.parametrize("task", ["svc", "svr", "one-class"])
def test_solution_contract(alg, task):
    K0, y = sigmoid_data(20, 3)
    if task == "svr":
        y = y + 0.1 * np.arange(20) / 20.0
    P = ProxyKernelProblem(K0, y, model=task, C=1.0, rho=1.0, nu=0.3)
    r = alg(P, tol=1e-6, max_iter=3000)
    assert isinstance(r, krein.solvers.Solution)
    assert r.status == "optimal"
    assert isinstance(r.trace, pd.DataFrame)
    cols = TRACE_COLUMNS | ({"restart"} if alg is accelerated_gradient else set())
    assert set(r.trace.columns) == cols
    assert len(r.trace) == r.iterations
    assert r.trace["iter"].tolist() == list(range(1, r.iterations + 1))
    assert np.all(np.diff(r.trace["lower"]) >= 0) and np.all(np.diff(r.trace["upper"]) <= 0)
    cert = r.certificate
    assert r.objective == cert["lower"]
    assert r.gap == cert["gap"] == cert["upper"] - cert["lower"]
    assert r.gap >= -1e-9 and r.gap <= max(1e-8, 1e-6 * abs(r.objective))
    # primal beta feasible, exactly
    beta = r.primal["beta"]
    assert beta.shape == (P.m,)
    assert abs(P.a @ beta - P.b0) <= 1e-12 * max(1.0, np.abs(P.upper).sum())
    assert np.all(beta >= 0) and np.all(beta <= P.upper)
    assert r.primal_residual <= 1e-12
    np.testing.assert_array_equal(r.primal["u"], P.u_of(beta))
    # the objective is c'beta + g(M beta) recomputed densely
    u = P.u_of(beta)
    assert abs(P.c @ beta + reference_inner(K0, u, 1.0)["value_direct"] - r.objective) \
        <= 1e-9 * max(1.0, abs(r.objective))


# =============================================================================
# The decision function the loops return (Solution.intercept, Solution.coef)
# =============================================================================
def _dense_decision(P, u):
    """Proxy kernel, intercept and spectral / clip coefficients at ``u`` by dense eigh."""
    X = P.K0 + np.outer(u, u) / (4.0 * P.rho)
    mu, W = np.linalg.eigh(0.5 * (X + X.T))
    pos = mu > 1e-12 * np.abs(mu).max()
    Kstar = (W[:, pos] * mu[pos]) @ W[:, pos].T
    lam, V = np.linalg.eigh(P.K0)
    keep = lam > 1e-12 * np.abs(lam).max()
    Ku = Kstar @ u
    _, b = P.omega_upper(Ku, float(u @ Ku))
    return {"K": Kstar, "intercept": b, "spectral": W[:, pos] @ (W[:, pos].T @ u),
            "clip": V[:, keep] @ (V[:, keep].T @ u)}


@pytest.mark.parametrize("algorithm", ["pg", "apg", "accpm", "exchange"])
@pytest.mark.parametrize("task", ["svc", "svr", "one-class"])
def test_solution_carries_intercept_and_test_coefficients(algorithm, task):
    """Every IndefiniteSVM loop returns the intercept (the multiplier of ``a'beta = b0`` at
    the SVM bound with ``v = u`` on ``K* = X(u)_+``) and, given ``out_of_sample``, the
    test coefficients ``P_+ u`` / ``V_+ V_+' u`` / ``u``: checked against dense eigh."""
    K0, y = sigmoid_data(16, 11)
    target = y if task == "svc" else (np.linspace(-1, 1, 16) if task == "svr" else None)
    P = ProxyKernelProblem(K0, target, model=task, C=1.0, rho=1.0, epsilon=0.1, nu=0.5)
    opts = {"max_iter": 5} if algorithm == "exchange" else {"max_iter": 50}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sols = {m: krein.solvers.solve_indefinite(P, algorithm, out_of_sample=m, **opts)
                for m in ("spectral", "clip", "raw", None)}
    ref_sol = sols[None]
    u = ref_sol.primal["u"]
    ref = _dense_decision(P, u)
    assert ref_sol.coef is None
    for sol in sols.values():
        np.testing.assert_array_equal(sol.primal["u"], u)   # the mode never changes the run
        assert sol.intercept == ref_sol.intercept
    scale = max(1.0, abs(ref["intercept"]))
    assert abs(ref_sol.intercept - ref["intercept"]) <= 1e-8 * scale
    norm = max(1.0, float(np.abs(u).max()))
    np.testing.assert_allclose(sols["spectral"].coef, ref["spectral"], atol=1e-8 * norm)
    np.testing.assert_allclose(sols["clip"].coef, ref["clip"], atol=1e-8 * norm)
    np.testing.assert_array_equal(sols["raw"].coef, u)


def test_intercept_is_the_kkt_intercept_at_the_optimum():
    """At the optimum of (7), beta maximizes the SVM dual on K* (saddle point), so every free
    ``0 < alpha_i < C`` gives the intercept ``y_i - (K* u)_i`` (KKT of the SVM on K*)."""
    K0, y = sigmoid_data(20, 5)
    P = ProxyKernelProblem(K0, y, C=1.0, rho=1.0)
    sol = accelerated_gradient(P, tol=1e-12, atol=0.0, max_iter=20000, gap_every=0)
    alpha, u = sol.primal["alpha"], sol.primal["u"]
    free = (alpha > 1e-6) & (alpha < 1.0 - 1e-6)
    assert free.any()
    Ku = _dense_decision(P, u)["K"] @ u
    np.testing.assert_allclose(y[free] - Ku[free], sol.intercept, atol=1e-4)


def test_out_of_sample_is_checked_and_the_algorithm_table_is_one():
    P = ProxyKernelProblem(K_SMALL, Y_SMALL)
    with pytest.raises(ValueError, match="out_of_sample"):
        projected_gradient(P, out_of_sample="nystroem")
    assert tuple(krein.solvers.INDEFINITE_SOLVERS) == krein.solvers.INDEFINITE_ALGORITHMS
    for name, func in krein.solvers.INDEFINITE_SOLVERS.items():
        assert "out_of_sample" in krein.solvers.indefinite_options(name)
        assert func is getattr(krein.solvers, func.__name__)
    with pytest.raises(ValueError, match="solver must be one of"):
        krein.solvers.indefinite_options("sgd")
