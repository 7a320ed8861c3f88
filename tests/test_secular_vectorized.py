"""The vectorized secular-equation solver (:mod:`krein.solvers.secular`).

Checked against two references independent of it:

* LAPACK ``dlasd4`` (``method="lapack"``), root by root;
* a long-double Newton refinement of each root from the same origin (where NumPy's
  ``longdouble`` has more precision than ``double``), which measures the relative
  accuracy of ``delta = p_j - mu`` that the eigenvector formula needs;

and, for :func:`secular_apply`, against ``numpy.linalg.eigh`` of the reduced matrix
``diag(p) + rr zeta zeta'``.  Cases: clustered poles, tiny weights (roots hugging a
pole), ``m = 1, 2``, large and small ``r``, the spectrum of a random symmetric matrix
with half its eigenvalues negative, blocks and the pool of slow roots, ``which`` in
any order.
"""

from __future__ import annotations

import numpy as np
import pytest

import krein.solvers.secular as secular
from krein.solvers import ProxyKernelOracle
from krein.solvers.secular import rank_one_eig, secular_apply, secular_roots

LONG_DOUBLE = np.finfo(np.longdouble).eps < 1e-18


def goe_spectrum(n, rng):
    """Eigenvalues of a random symmetric matrix (about half of them negative)."""
    G = rng.normal(size=(n, n))
    return np.linalg.eigvalsh((G + G.T) / np.sqrt(2 * n))


def make_case(case, rng):
    """``(d, z, r)`` of a diagonal-plus-rank-one matrix."""
    n = 120
    d = np.sort(rng.normal(size=n) * 3)
    z = rng.normal(size=n)
    r = 0.7
    if case == "clustered":            # a cluster of width 1e-8 far from the smallest pole
        d = np.sort(np.concatenate([rng.normal(size=n // 2) * 1e-8 + 2.0, rng.normal(size=n // 2)]))
    elif case == "tiny-weights":       # roots within ~1e-14 relative of their pole
        z[::3] *= 1e-7
    elif case == "near-pole":          # one weight at 1e3 times the deflation tolerance
        z[[10, 50]] = 1e3 * 8 * np.finfo(float).eps * 3 * np.abs(d).max() / (r * z @ z) ** 0.5
    elif case == "large-r":
        r = 1e6
    elif case == "small-r":
        r = 1e-6
    elif case == "half-negative":
        d = goe_spectrum(n, rng)
        assert abs(int(np.sum(d < 0)) - n // 2) < n // 5
    elif case == "m1":
        d, z = np.array([-1.5]), np.array([0.3])
    elif case == "m2":
        d, z = np.array([-1.0, 2.0]), np.array([0.4, -1.1])
    elif case == "m2-close":
        d, z = np.array([1.0, 1.0 + 1e-9]), np.array([1.0, 1.0])
    return d, z, r


CASES = ("random", "clustered", "tiny-weights", "near-pole", "large-r", "small-r",
         "half-negative", "m1", "m2", "m2-close")


def long_double_delta(eig, delta):
    """``p_j - mu_i`` refined by Newton's method in long double, from each root's origin
    (its nearest pole), as the double iteration computes it: ``(p_j - p_o) - tau``."""
    LD = np.longdouble
    p = eig.poles.astype(LD)
    z2 = eig.zeta.astype(LD) ** 2
    o = np.argmin(np.abs(delta), axis=1)
    PD = p[None, :] - p[o][:, None]                    # exact: doubles differ in < 64 bits
    tau = -delta[np.arange(len(o)), o].astype(LD)
    for _ in range(6):
        inv = 1 / (PD - tau[:, None])
        f = 1 / LD(eig.rr) + inv @ z2
        tau = tau - f / ((inv * inv) @ z2)
    return PD - tau[:, None]


@pytest.mark.parametrize("case", CASES)
def test_roots_and_deltas_match_dlasd4(case):
    rng = np.random.default_rng(CASES.index(case))
    d, z, r = make_case(case, rng)
    eig = rank_one_eig(d, z, r)
    m = eig.keep.size
    assert m == d.size or case == "near-pole"          # nothing deflated but the designed
    which = np.arange(m)
    mu, delta = secular_roots(eig, which)
    mu0, delta0 = secular_roots(eig, which, method="lapack")
    p = eig.poles
    scale = max(np.abs(p).max(), eig.rr)
    # interlacing (a root within an ulp of its pole rounds onto it), delta consistent with mu
    assert np.all(mu >= p) and np.all(mu[:-1] <= p[1:]) and mu[-1] <= p[-1] + eig.rr * (1 + 1e-14)
    np.testing.assert_allclose(delta, p[None, :] - mu[:, None], rtol=0, atol=4e-16 * scale)
    # (dlasd4 on D = sqrt(p - p_0) is off by 7e-13 relative on the last root at r = 1e6,
    # where the long-double reference puts ours at 1e-16)
    np.testing.assert_allclose(mu, mu0, rtol=1e-11, atol=1e-14 * np.abs(p).max())
    rel = np.abs(delta - delta0) / np.abs(delta0)
    if case == "clustered":
        # dlasd4 works on D = sqrt(p - p_0): a cluster far from p_0 loses digits there
        # (measured 1e-4 relative in delta; the long-double check below holds ours to 1e-12)
        assert np.max(rel) < 1e-2
    else:
        assert np.max(rel) < 1e-10, np.max(rel)


@pytest.mark.skipif(not LONG_DOUBLE, reason="numpy.longdouble is no wider than double here")
@pytest.mark.parametrize("case", CASES)
def test_delta_relative_accuracy_against_long_double(case):
    rng = np.random.default_rng(100 + CASES.index(case))
    d, z, r = make_case(case, rng)
    eig = rank_one_eig(d, z, r)
    mu, delta = secular_roots(eig, np.arange(eig.keep.size))
    ref = long_double_delta(eig, delta)
    rel = np.abs((delta - ref) / ref).astype(float)
    # dlaed4's accuracy: a few hundred eps in the worst entry at m = 120
    assert np.max(rel) < 1e-12, np.max(rel)


@pytest.mark.parametrize("case", ["random", "clustered", "half-negative", "m1", "m2"])
@pytest.mark.parametrize("side", ["negative", "positive"])
def test_secular_apply_matches_eigh_of_the_reduced_matrix(case, side):
    rng = np.random.default_rng(200 + CASES.index(case))
    d, z, r = make_case(case, rng)
    d = d - np.median(d)                               # both signs present
    eig = rank_one_eig(d, z, r)
    p, zeta, rr = eig.poles, eig.zeta, eig.rr
    m = p.size
    func = (lambda mu: np.minimum(mu, 0.0)) if side == "negative" else np.abs
    which = np.arange(m // 2) if side == "negative" else np.arange(m // 3, m)
    mu, s = secular_apply(eig, which, func)
    mu0, s0 = secular_apply(eig, which, func, method="lapack")
    np.testing.assert_allclose(mu, mu0, rtol=0, atol=1e-13 * max(np.abs(p).max(), rr))
    lam, V = np.linalg.eigh(np.diag(p) + rr * np.outer(zeta, zeta))
    # root i of the secular equation is eigenvalue i of the reduced matrix
    np.testing.assert_allclose(mu, lam[which], rtol=0, atol=1e-12 * max(np.abs(lam).max(), 1))
    Vs = V[:, which]
    y = Vs @ (func(lam[which]) * (Vs.T @ zeta))        # sum_i func(mu_i) v_i v_i' zeta
    tol = 1e-10 * max(np.abs(lam).max(), 1.0)
    np.testing.assert_allclose(-(zeta / rr) * s, y, rtol=0, atol=tol)
    np.testing.assert_allclose(-(zeta / rr) * s0, y, rtol=0, atol=tol)


def test_blocks_pool_and_any_order_of_which(monkeypatch):
    """Tiny blocks (one root each), a pool of slow roots, ``which`` unsorted with repeats."""
    rng = np.random.default_rng(5)
    d, z, r = make_case("half-negative", rng)
    eig = rank_one_eig(d, z, r)
    m = eig.keep.size
    which = rng.permutation(np.concatenate([np.arange(m), [m - 1, 3, 3]]))
    ref_mu, ref_delta = secular_roots(eig, which)
    for entries, first in ((1, 1), (5 * m, 2), (m * m, 0)):
        monkeypatch.setattr(secular, "BLOCK_ENTRIES", entries)
        monkeypatch.setattr(secular, "FIRST_PASS", first)
        mu, delta = secular_roots(eig, which)
        # the same roots up to the order of the BLAS sums (which depends on the blocks)
        np.testing.assert_allclose(mu, ref_mu, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(delta, ref_delta, rtol=1e-13, atol=0)
        mu2, s = secular_apply(eig, which, np.negative)
        np.testing.assert_allclose(mu2, ref_mu, rtol=1e-15, atol=1e-15)
    mu_l, _ = secular_roots(eig, which, method="lapack")
    np.testing.assert_allclose(ref_mu, mu_l, rtol=1e-13, atol=1e-14 * np.abs(d).max())


def test_merging_chains_of_close_poles():
    """Runs of poles closer than the deflation tolerance merge as in the sequential
    dlaed2 loop (only the candidate gaps are visited): the spectrum is unchanged."""
    rng = np.random.default_rng(6)
    base = np.sort(rng.normal(size=30))
    tol = 8 * np.finfo(float).eps * 3.0
    d = np.sort(np.concatenate([base, base[:10] + 0.3 * tol, base[:10] + 0.6 * tol,
                                base[5:8] + 1e-6]))
    z = rng.normal(size=d.size)
    r = 1.0
    eig = rank_one_eig(d, z, r)
    assert eig.keep.size < d.size
    mu, _ = secular_roots(eig, np.arange(eig.keep.size))
    got = np.sort(np.concatenate([mu, eig.deflated_values]))
    ref = np.linalg.eigvalsh(np.diag(d) + r * np.outer(z, z))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13 * max(3.0, r * z @ z))


def test_oracle_paths_agree_and_bad_input():
    rng = np.random.default_rng(7)
    n = 80
    K = rng.normal(size=(n, n))
    K = (K + K.T) / 2
    u = rng.normal(size=n)
    ev = ProxyKernelOracle(K, 0.5).evaluate(u)
    ev0 = ProxyKernelOracle(K, 0.5, secular="lapack").evaluate(u)
    assert abs(ev.value - ev0.value) <= 1e-10 * abs(ev0.value)
    np.testing.assert_allclose(ev.grad, ev0.grad, rtol=0, atol=1e-10 * np.abs(ev0.grad).max())
    assert ev.n_negative == ev0.n_negative
    with pytest.raises(ValueError, match="secular must be one of"):
        ProxyKernelOracle(K, 0.5, secular="dlaed4")
    eig = rank_one_eig(np.arange(3.0), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="method must be one of"):
        secular_roots(eig, [0], method="numba")
    with pytest.raises(ValueError, match="root indices"):
        secular_apply(eig, [3], np.negative)
