"""TrIK-SVM (``ESVC(decomposition="ldl")``) and the Krein SVR (``ESVR``).

Independent checks (Loosli 2019, arXiv 1902.10569; Loosli et al. 2013, Alg. 1):

* the registered ``trik-svm`` (``ESVC(decomposition="ldl")``) is Loosli's model: its
  ``L |D| L'`` is that of an unpivoted Gaussian elimination written here as her
  ``lunopiv`` loop, its training decision values are scikit-learn's
  ``SVC(kernel="precomputed")`` on that kernel, on a kernel where Bunch-Kaufman
  interchanges rows (so the pivoted model differs); rank-deficient kernels factor
  exactly with zero pivots, and a kernel without an unpivoted factorization falls
  back to Bunch-Kaufman with a warning;
* the training decision values of ``ESVC(decomposition="ldl-pivoted")`` are those of
  ``SVC(kernel="precomputed")`` on ``L |D| L'`` built here with numpy from
  :func:`scipy.linalg.ldl` (``|D|`` by ``numpy.linalg.eigh`` of the block diagonal
  ``D``);
* the identity ``K c = K~ c~`` of the map back to the Krein space, for the SVM, the
  SVR and the factorization alone (with 2x2 blocks);
* on a PSD kernel the LDL route, the eigh route and the plain SVC are one model;
* ``ESVR`` against scikit-learn's ``SVR`` on the flipped kernel (both routes);
* the factorization is the unpivoted ``L D L'`` of the reference code whenever
  Bunch-Kaufman takes no interchange: its pivots are the ratios of leading
  principal minors (a closed form) and its inertia is the signature of ``eigh``.

The agreement with Loosli's own code (``gloosli/SimpleSVM``) is in
``benchmarks/trik.py`` (the peer code cannot ship in the tests).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.svm import SVC, SVR

from krein import ESVC, ESVR, list_methods, make_method
from krein.solvers.ldl import LDLFlip, LDLPivotingWarning


def _data(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _sigmoid(X, Z):
    return np.tanh(0.5 * X @ Z.T - 0.5)


def _gaussian(X, Z):
    return np.exp(-0.3 * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1))


def _lunopiv(K):
    """Gaussian elimination without pivoting, row by row (Loosli's ``lunopiv``): L, d."""
    A = np.array(K, dtype=float)
    n = A.shape[0]
    for i in range(n):
        for k in range(i + 1, n):
            A[k, i] = A[k, i] / A[i, i]
            A[k, i + 1:] -= A[k, i] * A[i, i + 1:]
    return np.eye(n) + np.tril(A, -1), np.diag(A).copy()


def _ldl_flip_numpy(K):
    """``L |D| L'`` from scipy.linalg.ldl, with |D| by numpy's eigh of D (independent)."""
    lu, d, _ = scipy.linalg.ldl(K)
    w, W = np.linalg.eigh(d)
    return lu @ (W * np.abs(w)) @ W.T @ lu.T


@pytest.fixture(scope="module")
def indefinite():
    X, y = _data()
    K = _sigmoid(X, X)
    lam = np.linalg.eigvalsh(K)
    assert lam[0] < -0.1 * lam[-1]                     # clearly indefinite
    # the 2x2-block path of Bunch-Kaufman is exercised: it interchanges rows here
    assert LDLFlip.from_kernel(K, pivoting="bunch-kaufman").n_blocks_2x2 > 0
    return X, y, K


def test_trik_svm_is_loosli_unpivoted_model(indefinite):
    X, y, K = indefinite
    L, d = _lunopiv(K)
    assert np.abs(L @ np.diag(d) @ L.T - K).max() <= 1e-9 * np.abs(K).max()
    Kt = L @ np.diag(np.abs(d)) @ L.T
    est = make_method("trik-svm", kernel="precomputed", C=1.0, tol=1e-8).fit(K, y)
    assert est.decomposition == "ldl" and est.ldl_.pivoting == "none"
    assert np.allclose(est.ldl_.flipped_kernel(K), Kt, rtol=0, atol=1e-9 * np.abs(Kt).max())
    np.testing.assert_allclose(est.ldl_.pivots, d, rtol=1e-8, atol=1e-12 * np.abs(d).max())
    ref = SVC(kernel="precomputed", C=1.0, tol=1e-8).fit(Kt, y)
    d_ref = ref.decision_function(Kt)
    scale = np.abs(d_ref).max()
    assert np.abs(est.decision_function(K) - d_ref).max() <= 1e-6 * scale
    # new points: f(x) = k(x, X) c + b with c = L^{-T} sign(D) L' c~ (Loosli's postKSVM2)
    u = np.zeros(K.shape[0])
    u[ref.support_] = ref.dual_coef_[0]
    c = np.linalg.solve(L.T, np.sign(d) * (L.T @ u))
    Xt, _ = _data(20, seed=5)
    rows = _sigmoid(Xt, X)
    f = rows @ c + ref.intercept_[0]
    assert np.abs(est.decision_function(rows) - f).max() <= 1e-6 * np.abs(f).max()
    # Bunch-Kaufman pivots on this kernel: the pivoted variant is another classifier
    piv = ESVC(kernel="precomputed", decomposition="ldl-pivoted", C=1.0, tol=1e-8).fit(K, y)
    assert piv.ldl_.pivoting == "bunch-kaufman"
    assert np.abs(piv.decision_function(rows) - f).max() > 1e-3 * np.abs(f).max()


def test_rank_deficient_kernels_factor_with_exact_zero_pivots():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, 3))
    K = X @ X.T                                          # PSD of rank 3
    ldl = LDLFlip.from_kernel(K)
    assert ldl.pivoting == "none" and ldl.signature[:2] == (3, 0)
    assert np.allclose(ldl.flipped_kernel(K), K, rtol=0, atol=1e-10 * np.abs(K).max())
    # the first three pivots are those of the elimination on the leading 3 x 3 block
    np.testing.assert_allclose(ldl.pivots[:3], _lunopiv(K[:3, :3])[1], rtol=1e-10)


def test_no_unpivoted_factorization_falls_back_to_bunch_kaufman():
    rng = np.random.default_rng(3)
    E = rng.standard_normal((6, 6))
    K = E + E.T
    K[0, 0] = 0.0                                        # the first leading minor vanishes
    with pytest.warns(LDLPivotingWarning, match="Bunch-Kaufman"):
        ldl = LDLFlip.from_kernel(K)
    assert ldl.pivoting == "bunch-kaufman"
    u = rng.standard_normal(6)
    Kt = ldl.flipped_kernel(K)
    assert np.abs(K @ ldl.krein_coefficients(u) - Kt @ u).max() <= 1e-10 * np.abs(Kt @ u).max()
    with pytest.raises(ValueError, match="pivoting"):
        LDLFlip.from_kernel(K, pivoting="partial")


def test_training_decisions_are_the_svm_on_pivoted_ldl(indefinite):
    X, y, K = indefinite
    Kt = _ldl_flip_numpy(K)
    est = ESVC(kernel="precomputed", decomposition="ldl-pivoted", C=1.0, tol=1e-8).fit(K, y)
    ref = SVC(kernel="precomputed", C=1.0, tol=1e-8).fit(Kt, y)
    d_ref = ref.decision_function(Kt)
    scale = np.abs(d_ref).max()
    assert np.abs(est.decision_function(K) - d_ref).max() <= 1e-6 * scale
    # and it is not ESVM: L|D|L' is another PSD kernel than V|lam|V' on this K
    esvm = ESVC(kernel="precomputed", C=1.0, tol=1e-8).fit(K, y)
    assert np.abs(esvm.decision_function(K) - d_ref).max() > 1e-3 * scale


def test_krein_identity_K_c_equals_flipped_K_c_tilde(indefinite):
    X, y, K = indefinite
    Kt = _ldl_flip_numpy(K)
    est = ESVC(kernel="precomputed", decomposition="ldl-pivoted", C=0.5).fit(K, y)
    c = np.zeros(K.shape[0])
    c[est.support_] = est.dual_coef_[0]
    u = est.flipped_dual_coef_[0]
    assert np.abs(K @ c - Kt @ u).max() <= 1e-9 * np.abs(Kt @ u).max()
    # new points: f(x) = k(x, X) c + b on the ORIGINAL kernel
    Xt, _ = _data(20, seed=5)
    rows = _sigmoid(Xt, X)
    assert np.allclose(est.decision_function(rows), rows @ c + est.intercept_[0],
                       rtol=0, atol=1e-12 * np.abs(rows @ c).max())


@pytest.mark.parametrize("n", [9, 40])
def test_factorization_identity_with_2x2_blocks(n):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n))
    K = A + A.T
    ldl = LDLFlip.from_kernel(K, pivoting="bunch-kaufman")
    assert ldl.n_blocks_2x2 > 0
    Kt = _ldl_flip_numpy(K)
    assert np.allclose(ldl.flipped_kernel(K), Kt, rtol=0, atol=1e-12 * np.abs(Kt).max())
    F = ldl.factor()
    assert np.allclose(F @ F.T, Kt, rtol=0, atol=1e-12 * np.abs(Kt).max())
    assert np.linalg.eigvalsh(Kt)[0] > -1e-10 * np.abs(Kt).max()     # PSD
    u = rng.standard_normal(n)
    c = ldl.krein_coefficients(u)
    assert np.abs(K @ c - Kt @ u).max() <= 1e-10 * np.abs(Kt @ u).max()
    lam = np.linalg.eigvalsh(K)
    assert np.min(np.abs(lam)) > 1e-6 * np.abs(lam).max()           # no eigenvalue near 0
    assert ldl.signature == (int((lam > 0).sum()), int((lam < 0).sum()), 0)   # Sylvester


def test_unpivoted_when_bunch_kaufman_takes_no_interchange():
    # a dominant signed diagonal: every 1x1 pivot passes the Bunch-Kaufman test, so the
    # factorization is the unpivoted L D L' of Loosli's preKSVM2, unique with L unit lower
    rng = np.random.default_rng(3)
    n = 8
    E = 0.1 * rng.standard_normal((n, n))
    K = np.diag([3.0, -2.0, 4.0, -3.0, 2.5, 3.5, -2.5, 2.0]) + (E + E.T) / 2
    ldl = LDLFlip.from_kernel(K, pivoting="bunch-kaufman")
    unpivoted = LDLFlip.from_kernel(K)
    assert unpivoted.pivoting == "none"
    np.testing.assert_allclose(unpivoted.lu, ldl.lu, rtol=0, atol=1e-12)
    np.testing.assert_allclose(unpivoted.pivots, ldl.pivots, rtol=1e-12)
    assert ldl.n_blocks_2x2 == 0
    assert np.array_equal(ldl.perm, np.arange(n))
    assert np.allclose(np.triu(ldl.lu, 1), 0) and np.allclose(np.diag(ldl.lu), 1)
    minors = np.array([np.linalg.det(K[:k, :k]) for k in range(1, n + 1)])
    ratios = minors / np.concatenate([[1.0], minors[:-1]])         # pivots, closed form
    assert np.allclose(ldl.pivots, ratios, rtol=1e-10)


def test_psd_kernel_ldl_equals_eigh_equals_svc():
    X, y = _data(60, seed=1)
    Xt, _ = _data(25, seed=2)
    K, rows = _gaussian(X, X), _gaussian(Xt, X)
    assert np.linalg.eigvalsh(K)[0] > 1e-8                        # positive definite
    ldl = LDLFlip.from_kernel(K)
    assert ldl.signature == (60, 0, 0)
    assert np.allclose(ldl.flipped_kernel(K), K, rtol=0, atol=1e-12)
    common = dict(kernel="precomputed", C=2.0, tol=1e-8)
    a = ESVC(decomposition="ldl", **common).fit(K, y)
    b = ESVC(decomposition="eigh", **common).fit(K, y)
    s = SVC(**common).fit(K, y)
    for M in (K, rows):
        ref = s.decision_function(M)
        tol = 1e-6 * np.abs(ref).max()
        assert np.abs(a.decision_function(M) - ref).max() <= tol
        assert np.abs(b.decision_function(M) - ref).max() <= tol


@pytest.mark.parametrize("decomposition", ["eigh", "ldl", "ldl-pivoted"])
def test_esvr_is_sklearn_svr_on_the_flipped_kernel(decomposition):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(60)
    Xt = rng.standard_normal((15, 3))
    K, rows = _sigmoid(X, X), _sigmoid(Xt, X)
    if decomposition == "ldl-pivoted":
        Kt = _ldl_flip_numpy(K)
    elif decomposition == "ldl":
        L, d = _lunopiv(K)
        Kt = L @ np.diag(np.abs(d)) @ L.T
    else:
        lam, V = np.linalg.eigh(K)
        Kt = (V * np.abs(lam)) @ V.T
    est = ESVR(kernel="precomputed", decomposition=decomposition, C=1.0, epsilon=0.05,
               tol=1e-8).fit(K, y)
    ref = SVR(kernel="precomputed", C=1.0, epsilon=0.05, tol=1e-8).fit(Kt, y)
    p_ref = ref.predict(Kt)
    assert np.abs(est.predict(K) - p_ref).max() <= 1e-6 * np.abs(p_ref).max()
    c = np.zeros(60)
    c[est.support_] = est.dual_coef_[0]
    assert np.allclose(est.predict(rows), rows @ c + est.intercept_[0], rtol=0, atol=1e-10)
    u = np.zeros(60)
    u[ref.support_] = ref.dual_coef_[0]
    assert np.abs(K @ c - Kt @ u).max() <= 1e-6 * np.abs(Kt @ u).max()
    # the stationarity residual is in the units of K~ (libsvm stops on gradients at tol):
    # the unpivoted L|D|L' of this kernel is 20 times larger than the others (growth in L)
    assert est.solution_.dual_residual <= 1e-7 * max(1.0, np.abs(Kt).max())
    # the named-kernel route gives the same model
    named = ESVR(kernel=lambda A, B: _sigmoid(A, B), decomposition=decomposition, C=1.0,
                 epsilon=0.05, tol=1e-8).fit(X, y)
    assert np.allclose(named.predict(Xt), est.predict(rows), rtol=0, atol=1e-8)


def test_esvr_on_psd_kernel_is_the_svr():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((50, 2))
    y = X[:, 0] ** 2 + 0.1 * rng.standard_normal(50)
    Xt = rng.standard_normal((10, 2))
    K, rows = _gaussian(X, X), _gaussian(Xt, X)
    ref = SVR(kernel="precomputed", C=3.0, epsilon=0.1, tol=1e-8).fit(K, y).predict(rows)
    for decomposition in ("eigh", "ldl"):
        est = ESVR(kernel="precomputed", decomposition=decomposition, C=3.0, epsilon=0.1,
                   tol=1e-8).fit(K, y)
        assert np.abs(est.predict(rows) - ref).max() <= 1e-6 * np.abs(ref).max()


@pytest.mark.parametrize("params, name", [({"energy": 0.9}, "energy"),
                                          ({"n_components": 5}, "n_components"),
                                          ({"formulation": "primal", "solver": "CLARABEL"},
                                           "formulation")])
def test_ldl_refuses_eigenpair_options(indefinite, params, name):
    X, y, K = indefinite
    est = ESVC(kernel="precomputed", decomposition="ldl", **params)
    with pytest.raises(ValueError, match=f"decomposition='ldl'.*{name}|{name}.*ldl"):
        est.fit(K, y)
    assert not hasattr(est, "dual_coef_")


def test_unknown_decompositions_are_refused(indefinite):
    X, y, _ = indefinite
    with pytest.raises(ValueError, match="decomposition"):
        ESVC(decomposition="lu").fit(X, y)
    with pytest.raises(ValueError, match="decomposition"):
        ESVR(decomposition="lu").fit(X, y.astype(float))


def test_registry_entries():
    assert "trik-svm" in list_methods(task="classifier", compare=True)
    assert "esvr" in list_methods(task="regressor")
    assert "esvr" in list_methods(task="regressor", compare=True)
    assert "esvr" not in list_methods(task="classifier", compare=True)
