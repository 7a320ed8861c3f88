"""Shared computations: one eigendecomposition per block and fold, one correction.

Checked against the uncached code itself: every eigensolver call is counted (and
the content of its input recorded) by patching ``numpy.linalg.eigh``,
``numpy.linalg.eigvalsh``, ``scipy.linalg.eigh`` and ``scipy.sparse.linalg.eigsh``,
and every result computed inside :func:`krein._cache.shared_computations` is
compared with the same computation outside it (bit for bit where the same LAPACK
call is reused).

* the methods of one fold (esvm, esvm-l, flip, clip, shift, clip-mds, square, svm)
  and the diagnostics column decompose each distinct training block once;
* results are identical with and without the context;
* :class:`~krein.estimators.CorrectedKernelSVC` fits its correction once per block
  over a grid of ``C``;
* the store: read-only arrays, LRU eviction by bytes, clearing, nothing stored or
  looked up outside a context, reentrant contexts, decorator forms, per-thread state;
* kernel grids and per-fold (dissimilarity-linear) kernels: different blocks are not
  confused.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.linalg
from sklearn.exceptions import ConvergenceWarning

from krein._cache import (clear_shared_computations, content_key, parameters_token,
                          set_shared_computations_limit, shared_computations,
                          shared_computations_active, shared_computations_info)
from krein.estimators import Bending, CorrectedKernelSVC, NearestPSD
from krein.estimators.base import least_eigenvalue
from krein.experiment.classification import (build_estimator, cell_kernel_data,
                                             classification_cell, outer_splits)
from krein.spectrum import Spectrum

#: The cell without its shared store: ``classification_cell`` runs inside
#: :func:`shared_computations` (it is decorated with it); its undecorated function
#: computes everything itself, as every cell did before.
uncached_cell = classification_cell.__wrapped__

#: The spectrum-based methods of the registry, and the direct SVM (whose diagnostics
#: need the least eigenvalue).
METHODS = ["esvm", "esvm-l", "flip", "clip", "shift", "clip-mds", "square", "svm"]

CELL = {"dataset": "sonar", "n_samples": 80, "seed": 0, "fold": 0, "outer_folds": 3}
GRID = {"C": [0.1, 1, 10]}
TIMING_KEYS = ("fit_seconds", "predict_seconds", "select_seconds")


@pytest.fixture(autouse=True)
def _empty_store():
    clear_shared_computations()
    old = set_shared_computations_limit()
    yield
    set_shared_computations_limit(old)
    clear_shared_computations()


@pytest.fixture
def eig_log(monkeypatch):
    """Calls of the eigensolvers on square inputs: ``(solver, n, content key)``."""
    log = []

    def wrap(module, name, label):
        real = getattr(module, name)

        def counted(a, *args, **kwargs):
            arr = np.asarray(a)
            if arr.ndim == 2 and arr.shape[0] == arr.shape[1]:
                log.append((label, arr.shape[0], content_key(arr)))
            return real(a, *args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    wrap(np.linalg, "eigh", "numpy.eigh")
    wrap(np.linalg, "eigvalsh", "numpy.eigvalsh")
    wrap(scipy.linalg, "eigh", "scipy.eigh")
    wrap(scipy.sparse.linalg, "eigsh", "eigsh")
    return log


def _outer_block(cell):
    data = cell_kernel_data(cell)[0]
    tr, te = outer_splits(cell, data.y)[cell["fold"]]
    return data.blocks(tr, te)[0]


def _indefinite(n, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    return 0.5 * (A + A.T)


def _decaying(n, seed=0):
    """A sigmoid kernel on 5-D points: indefinite, with a fast-decaying spectrum."""
    from krein.kernels import sigmoid_kernel

    X = np.random.default_rng(seed).normal(size=(n, 5))
    return sigmoid_kernel(X, a=0.5, r=-1.0)


def _same_row(a, b):
    assert set(a) == set(b)
    for k in a:
        if k in TIMING_KEYS:
            continue
        va, vb = a[k], b[k]
        if isinstance(va, float) and np.isnan(va):
            assert isinstance(vb, float) and np.isnan(vb), k
        elif hasattr(va, "equals"):          # trace DataFrame: equal but for wall times
            cols = [c for c in va.columns if "second" not in c and "time" not in c]
            assert va[cols].equals(vb[cols]), k
        else:
            assert va == vb, k


# ----------------------------------------------------------------------------- (a) counts
def test_one_eigh_per_fold_for_all_spectrum_methods(eig_log):
    K_tr = _outer_block(CELL)
    n = K_tr.shape[0]
    # without the context every method (and the diagnostics) decomposes the block again
    for m in METHODS:
        uncached_cell({**CELL, "method": m})
    before = [e for e in eig_log if e[1] == n]
    assert len(before) > len(METHODS)
    eig_log.clear()
    with shared_computations():
        for m in METHODS:
            classification_cell({**CELL, "method": m})
    assert [e[:2] for e in eig_log] == [("numpy.eigh", n)], eig_log
    assert eig_log[0][2] == content_key(K_tr)


def test_one_eigh_per_distinct_block_with_a_grid(eig_log):
    inner_folds = 3
    K_tr = _outer_block(CELL)
    n = K_tr.shape[0]
    with shared_computations():
        for m in METHODS:
            out = classification_cell({**CELL, "method": m, "param_grid": GRID,
                                       "inner_folds": inner_folds})
            assert np.isfinite(out["inner_score"])
    assert {e[0] for e in eig_log} == {"numpy.eigh"}, eig_log     # no eigsh, no eigvalsh
    keys = [e[2] for e in eig_log]
    assert len(keys) == len(set(keys)) == 1 + inner_folds          # each block exactly once
    assert content_key(K_tr) in keys
    inner_sizes = sorted(e[1] for e in eig_log if e[2] != content_key(K_tr))
    assert sum(inner_sizes) == (inner_folds - 1) * n               # the inner training blocks
    # 7 spectral methods x 3 C x 3 inner folds + refits and diagnostics, uncached:
    eig_log.clear()
    for m in METHODS:
        uncached_cell({**CELL, "method": m, "param_grid": GRID, "inner_folds": inner_folds})
    assert len(eig_log) >= 7 * len(GRID["C"]) * inner_folds


# ----------------------------------------------------------------------------- (b) identity
@pytest.mark.parametrize("method", METHODS)
def test_cells_identical_with_and_without_the_context(method):
    cell = {**CELL, "method": method, "param_grid": GRID}
    plain = uncached_cell(cell)
    with shared_computations():
        shared = classification_cell(cell)
        again = classification_cell(cell)          # everything from the store now
    _same_row(plain, shared)
    _same_row(plain, again)


@pytest.mark.parametrize("method", METHODS)
def test_estimators_identical_with_and_without_the_context(method):
    K = _outer_block(CELL)
    data = cell_kernel_data(CELL)[0]
    tr, te = outer_splits(CELL, data.y)[0]
    K_te = data.blocks(tr, te)[1]
    y = data.y[tr]
    ref = build_estimator(method, {"C": 1.0}).fit(K, y)
    with shared_computations():
        Spectrum.from_kernel(K)                  # another method came first
        for _ in range(2):
            est = build_estimator(method, {"C": 1.0}).fit(K, y)
            np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
            np.testing.assert_array_equal(est.intercept_, ref.intercept_)
            np.testing.assert_array_equal(est.decision_function(K_te),
                                          ref.decision_function(K_te))
            assert est.min_eigenvalue_ == pytest.approx(ref.min_eigenvalue_, abs=1e-9)


@pytest.mark.parametrize("correction", [
    NearestPSD(diagonal=1.0, weights="support-vectors"),
    Bending(weights="support-vectors"),
], ids=["nearest-psd", "bending"])
def test_corrected_svc_identical_with_and_without_the_context(correction):
    K = _outer_block(CELL)
    data = cell_kernel_data(CELL)[0]
    tr, te = outer_splits(CELL, data.y)[0]
    K_te, y = data.blocks(tr, te)[1], data.y[tr]
    ref = CorrectedKernelSVC(correction=correction, C=1.0, kernel="precomputed").fit(K, y)
    with shared_computations():
        fits = [CorrectedKernelSVC(correction=correction, C=C, kernel="precomputed").fit(K, y)
                for C in (1.0, 1.0, 10.0)]
    for est in fits[:2]:
        np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
        np.testing.assert_array_equal(est.intercept_, ref.intercept_)
        np.testing.assert_array_equal(est.decision_function(K_te), ref.decision_function(K_te))
        np.testing.assert_array_equal(est.correction_.kernel_, ref.correction_.kernel_)
        assert est.corrected_min_eigenvalue_ == ref.corrected_min_eigenvalue_
        assert est.min_eigenvalue_ == ref.min_eigenvalue_
    # each estimator owns its fitted correction (a deep copy of the stored one)
    assert fits[0].correction_ is not fits[1].correction_
    assert fits[0].correction_.kernel_ is not fits[1].correction_.kernel_
    ten = CorrectedKernelSVC(correction=correction, C=10.0, kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(fits[2].dual_coef_, ten.dual_coef_)


# ----------------------------------------------------------------------------- (c) corrections
@pytest.mark.parametrize("method, cls", [("nearest-psd", NearestPSD), ("bending", Bending)])
def test_correction_fitted_once_per_block(monkeypatch, method, cls):
    calls = []
    real = cls.fit

    def fit(self, K, y=None):
        calls.append(content_key(np.asarray(K)))
        return real(self, K, y)

    monkeypatch.setattr(cls, "fit", fit)
    cell = {**CELL, "n_samples": 60, "method": method, "param_grid": GRID, "inner_folds": 2}
    plain = uncached_cell(cell)
    assert len(calls) == len(GRID["C"]) * 2 + 1
    calls.clear()
    with shared_computations():
        shared = classification_cell(cell)
    assert len(calls) == len(set(calls)) == 2 + 1        # one per inner block, one refit
    _same_row(plain, shared)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_correction_memo_key(monkeypatch):
    calls = []
    real = NearestPSD.fit

    def fit(self, K, y=None):
        calls.append(self.max_iter)
        return real(self, K, y)

    monkeypatch.setattr(NearestPSD, "fit", fit)
    K = _outer_block(CELL)
    y = np.where(np.arange(K.shape[0]) % 3 == 0, 1, -1)

    def run(max_iter=50, C=1.0, K=K, y=y, weights=None):
        corr = NearestPSD(diagonal=1.0, max_iter=max_iter, weights=weights)
        return CorrectedKernelSVC(correction=corr, C=C, kernel="precomputed").fit(K, y)

    with shared_computations():
        a = run()
        run(C=5.0)                                # C is not the correction's: shared
        assert calls == [50]
        run(max_iter=51)                          # another parameter value
        assert calls == [50, 51]
        run(y=y[::-1].copy())                     # other labels
        assert len(calls) == 3
        K2 = K.copy()
        K2[0, 1] = K2[1, 0] = K[0, 1] + 1e-9
        run(K=K2)                                 # another block
        assert len(calls) == 4
        w = np.linspace(1.0, 2.0, K.shape[0])
        run(weights=w)
        run(weights=w.copy())                     # arrays by content
        run(weights=w[::-1].copy())
        assert len(calls) == 6
        b = run()
        assert len(calls) == 6
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert b.correction_ is not a.correction_


def test_correction_warnings_are_replayed():
    K = _outer_block(CELL)
    y = np.where(np.arange(K.shape[0]) % 2 == 0, 1, -1)
    with shared_computations():
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                est = CorrectedKernelSVC(correction=NearestPSD(diagonal=1.0, max_iter=1),
                                         kernel="precomputed")
                est.fit(K, y)
            assert any(issubclass(w.category, ConvergenceWarning) for w in caught)


def test_parameters_token():
    w = np.arange(5.0)
    assert parameters_token(NearestPSD(weights=w)) == parameters_token(NearestPSD(weights=w.copy()))
    assert parameters_token(NearestPSD(weights=w)) != parameters_token(NearestPSD(weights=w + 1))
    assert parameters_token(NearestPSD(tol=1e-6)) != parameters_token(NearestPSD(tol=1e-7))
    assert parameters_token(NearestPSD()) != parameters_token(Bending())
    from krein.estimators import ConformalTransformation

    assert parameters_token(ConformalTransformation(random_state=3)) is not None
    assert parameters_token(ConformalTransformation(random_state=np.random.RandomState(0))) is None


# ----------------------------------------------------------------------------- (d) the store
def test_cached_arrays_are_read_only_and_shared(eig_log):
    K = _indefinite(30)
    outside = Spectrum.from_kernel(K)
    assert outside.eigenvectors.flags.writeable
    assert shared_computations_info()["entries"] == 0
    with shared_computations():
        a = Spectrum.from_kernel(K)
        b = Spectrum.from_kernel(K.copy(order="F"), tol=0.5)    # same content, other layout
    assert not a.eigenvalues.flags.writeable and not a.eigenvectors.flags.writeable
    assert a.eigenvectors is b.eigenvectors and b.tol == 0.5 and a.tol != 0.5
    with pytest.raises(ValueError, match="read-only"):
        a.eigenvalues[0] = 0.0
    np.testing.assert_array_equal(a.eigenvectors, outside.eigenvectors)
    assert [e[0] for e in eig_log] == ["numpy.eigh", "numpy.eigh"]   # outside + first inside


def test_nothing_stored_or_looked_up_outside_a_context(eig_log):
    K = _indefinite(20)
    assert not shared_computations_active()
    Spectrum.from_kernel(K)
    Spectrum.from_kernel(K)
    assert len(eig_log) == 2 and shared_computations_info()["entries"] == 0
    with shared_computations():
        Spectrum.from_kernel(K)
    assert shared_computations_info()["entries"] == 1
    Spectrum.from_kernel(K)                   # stored, but not looked up outside
    assert len(eig_log) == 4
    with shared_computations():               # entries outlive their context
        Spectrum.from_kernel(K)
    assert len(eig_log) == 4


def test_lru_eviction_by_bytes(eig_log):
    n = 40
    entry = (n * n + n) * 8                   # eigenvectors and eigenvalues
    set_shared_computations_limit(2 * entry + 2000)
    Ks = [_indefinite(n, seed) for seed in range(3)]
    with shared_computations():
        Spectrum.from_kernel(Ks[0])
        Spectrum.from_kernel(Ks[1])
        Spectrum.from_kernel(Ks[0])           # K0 is now the most recently used
        Spectrum.from_kernel(Ks[2])           # evicts K1
        info = shared_computations_info()
        assert info["entries"] == 2 and info["evictions"] == 1
        assert info["nbytes"] <= info["max_bytes"]
        eig_log.clear()
        Spectrum.from_kernel(Ks[0])
        Spectrum.from_kernel(Ks[2])
        assert eig_log == []
        Spectrum.from_kernel(Ks[1])
        assert len(eig_log) == 1
        set_shared_computations_limit(0)      # nothing fits: computed, not kept
        assert shared_computations_info()["entries"] == 0
        Spectrum.from_kernel(Ks[1])
        assert len(eig_log) == 2 and shared_computations_info()["entries"] == 0
    with pytest.raises(ValueError, match="max_bytes"):
        set_shared_computations_limit(-1)


def test_clear_shared_computations(eig_log):
    K = _indefinite(20)
    with shared_computations():
        Spectrum.from_kernel(K)
        clear_shared_computations()
        assert shared_computations_info()["entries"] == 0
        Spectrum.from_kernel(K)
    assert len(eig_log) == 2


def test_context_is_reentrant_per_thread_and_a_decorator():
    assert not shared_computations_active()
    with shared_computations():
        with shared_computations():
            assert shared_computations_active()
        assert shared_computations_active()
        seen = []
        t = threading.Thread(target=lambda: seen.append(shared_computations_active()))
        t.start()
        t.join()
        assert seen == [False]
    assert not shared_computations_active()

    @shared_computations
    def bare():
        return shared_computations_active()

    @shared_computations()
    def called():
        return shared_computations_active()

    assert bare() and called() and not shared_computations_active()
    assert bare.__name__ == "bare"
    with pytest.raises(TypeError):
        shared_computations(3)


def test_different_content_is_not_confused(eig_log):
    K = _indefinite(25)
    K2 = K.copy()
    K2[3, 7] = K2[7, 3] = K2[3, 7] + 1e-12
    with shared_computations():
        s1 = Spectrum.from_kernel(K)
        s2 = Spectrum.from_kernel(K2)
        s3 = Spectrum.from_kernel(K.astype(np.float32), check=False)
    assert len(eig_log) == 3
    assert s1.eigenvectors is not s2.eigenvectors
    assert s3.eigenvalues.dtype == np.float32


def test_least_eigenvalue_reads_the_shared_spectrum(eig_log):
    K = _indefinite(50)
    plain = least_eigenvalue(K)
    assert [e[0] for e in eig_log] == ["eigsh"]
    eig_log.clear()
    with shared_computations():
        lam = least_eigenvalue(K)             # computes the full spectrum, once
        assert Spectrum.from_kernel(K).min_eigenvalue == lam
        assert least_eigenvalue(K) == lam
    assert [e[0] for e in eig_log] == ["numpy.eigh"]
    assert lam == pytest.approx(plain, abs=1e-10)


@pytest.mark.parametrize("kw", [{"n_components": 12}, {"energy": 0.5}, {"energy": 0.8}])
def test_partial_spectrum_cut_from_the_shared_one(eig_log, kw):
    n = 320                                   # ARPACK path without the store
    K = _decaying(n, 7)
    plain = Spectrum.from_kernel(K, **kw)
    assert {e[0] for e in eig_log} == {"eigsh"} and plain.partial
    with shared_computations():
        full = Spectrum.from_kernel(K)
        eig_log.clear()
        cut = Spectrum.from_kernel(K, **kw)
        assert eig_log == []                  # no ARPACK once the full one is stored
    assert cut.partial == plain.partial and cut.eigenvalues.size == plain.eigenvalues.size
    np.testing.assert_allclose(cut.eigenvalues, plain.eigenvalues, rtol=1e-9, atol=1e-9)
    if plain.total_abs is not None:
        assert cut.total_abs == pytest.approx(plain.total_abs, rel=1e-9)
    # same eigenvectors up to sign
    dots = np.abs(np.sum(cut.eigenvectors * plain.eigenvectors, axis=0))
    np.testing.assert_allclose(dots, 1.0, atol=1e-6)
    assert np.isin(cut.eigenvalues, full.eigenvalues).all()


def test_esvm_l_in_a_context_decomposes_once(eig_log):
    n = 320                                   # ESVM-L and its diagnostics use ARPACK outside
    K = _decaying(n, 8)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    ref = build_estimator("esvm-l", {"C": 1.0, "energy": 0.7}).fit(K, y)
    assert {e[0] for e in eig_log} == {"eigsh"}
    eig_log.clear()
    with shared_computations():
        est = build_estimator("esvm-l", {"C": 1.0, "energy": 0.7}).fit(K, y)
        build_estimator("esvm-l", {"C": 10.0, "energy": 0.7}).fit(K, y)
        build_estimator("esvm", {"C": 1.0}).fit(K, y)
    assert [e[:2] for e in eig_log] == [("numpy.eigh", n)]
    assert est.n_components_.tolist() == ref.n_components_.tolist()
    np.testing.assert_allclose(est.spectrum_.eigenvalues, ref.spectrum_.eigenvalues, rtol=1e-9)
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(K),
                               rtol=1e-6, atol=1e-6)
    assert est.min_eigenvalue_ == pytest.approx(ref.min_eigenvalue_, abs=1e-9)


def test_partial_spectrum_of_a_small_block_shares_the_full_one(eig_log):
    K = _indefinite(40)
    plain = Spectrum.from_kernel(K, energy=0.9)
    eig_log.clear()
    with shared_computations():
        cut = Spectrum.from_kernel(K, energy=0.9)
        Spectrum.from_kernel(K)
        Spectrum.from_kernel(K, n_components=5)
    assert len(eig_log) == 1
    np.testing.assert_array_equal(cut.eigenvalues, plain.eigenvalues)
    np.testing.assert_array_equal(cut.eigenvectors, plain.eigenvectors)


# ----------------------------------------------------------------------------- (e) other blocks
def test_kernel_grid_blocks_are_not_confused(eig_log):
    cell = {**CELL, "kernel": "sigmoid", "kernel_params": {"r": -2.0},
            "kernel_grid": {"a": [0.03, 0.07]}, "param_grid": {"C": [0.1, 1]}, "inner_folds": 2}
    plain = {m: uncached_cell({**cell, "method": m}) for m in ("esvm", "clip", "svm")}
    eig_log.clear()
    with shared_computations():
        shared = {m: classification_cell({**cell, "method": m}) for m in ("esvm", "clip", "svm")}
    keys = [e[2] for e in eig_log]
    assert {e[0] for e in eig_log} == {"numpy.eigh"}
    # 2 kernels x 2 inner blocks, and the outer block of the selected kernel(s)
    assert len(keys) == len(set(keys))
    best = {out["best_kernel_a"] for out in shared.values()}
    assert len(keys) == 2 * 2 + len(best)
    for m in plain:
        _same_row(plain[m], shared[m])


def test_per_fold_dissimilarity_kernels(eig_log):
    cell = {"dataset": "balls3d", "n_samples": 60, "seed": 1, "fold": 1, "outer_folds": 3,
            "param_grid": {"C": [1, 10]}, "inner_folds": 3}
    assert cell_kernel_data(cell)[0].kernel == "dissimilarity-linear"
    methods = ["esvm", "esvm-l", "flip", "clip-mds", "svm"]
    plain = {m: uncached_cell({**cell, "method": m}) for m in methods}
    eig_log.clear()
    with shared_computations():
        shared = {m: classification_cell({**cell, "method": m}) for m in methods}
    keys = [e[2] for e in eig_log]
    assert len(keys) == len(set(keys)) == 1 + 3      # centred per fold: 4 distinct blocks
    assert content_key(_outer_block(cell)) in keys
    for m in methods:
        _same_row(plain[m], shared[m])


def test_the_data_a_process_keeps_for_its_cells_is_read_only():
    """Every cell of a worker process gets the SAME loaded data (kept per process): a cell
    that wrote into it would change the input of every later cell of that process, so
    that a result depended on which cells ran before it.  The arrays are read-only."""
    data = cell_kernel_data(CELL)[0]
    assert cell_kernel_data(CELL)[0].K is data.K                 # kept, not reloaded
    arrays = [v for v in vars(data).values() if isinstance(v, np.ndarray)]
    assert any(a is data.K for a in arrays) and any(a is data.y for a in arrays)
    for a in arrays:
        assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        data.K[0, 0] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        data.y[:] = 0
