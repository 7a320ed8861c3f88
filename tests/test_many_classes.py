"""Many classes: one correction per fit, the pairs over joblib workers.

* ``SpectrumSVC(correction_scope="training")`` corrects the training kernel once and
  trains each one-vs-one pair on the principal submatrix of the correction: checked
  against an independent computation (NumPy corrects the full matrix, scikit-learn's
  ``SVC(kernel="precomputed")`` runs its own one-vs-one on it), for the spectral, raw
  and transductive out-of-sample maps;
* ``correction_scope="pair"`` (the default) is the per-pair correction it always was:
  checked against NumPy correcting each pair's block and a binary ``SVC`` on it;
* with two classes both scopes are the same model, exactly;
* ``n_jobs`` (threads over the pairs) gives exactly the serial result;
* the training scope decomposes the training kernel once (not once per pair).

No timing is asserted here: ``benchmarks/many_classes.py`` measures the speed.
"""

from __future__ import annotations

import itertools

import joblib
import numpy as np
import pytest
from sklearn.svm import SVC

from krein.datasets._regenerated import minkowski_dissimilarities
from krein.estimators import ESVC, CorrectedKernelSVC, DirectSVC, IndefiniteSVC, SpectrumSVC
from krein.spectrum import Spectrum, SpectrumCorrection

C = 1.0


def _classical_scaling(D):
    n = D.shape[0]
    J = np.eye(n) - 1.0 / n
    return -0.5 * J @ (D ** 2) @ J


@pytest.fixture(scope="module")
def data():
    """Five overlapping Gaussian classes, Minkowski p = 0.5 (indefinite), 14 per class;
    60 training and 10 test objects; the kernel scaled to a unit mean diagonal."""
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(5), 14)
    X = rng.standard_normal((y.size, 6)) + 1.2 * rng.standard_normal((5, 6))[y]
    K = _classical_scaling(minkowski_dissimilarities(X, 0.5))
    K /= np.mean(np.diag(K))
    perm = rng.permutation(y.size)
    tr, te = np.sort(perm[:60]), np.sort(perm[60:])
    assert np.linalg.eigvalsh(K[np.ix_(tr, tr)])[0] < -0.1     # indefinite, by far
    return K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)], K[np.ix_(te, te)], y[te]


def _correct(K, correction):
    """NumPy: the corrected matrix and the spectral row map ``V diag(g / lam) V'``."""
    lam, V = np.linalg.eigh(K)
    if correction == "clip":
        g = np.maximum(lam, 0.0)
    elif correction == "flip":
        g = np.abs(lam)
    else:   # shift
        g = lam - min(lam[0], 0.0)
    Kc = (V * g) @ V.T
    big = np.abs(lam) > 1e-10 * np.abs(lam).max()
    h = np.where(big, g / np.where(big, lam, 1.0), 0.0)
    return 0.5 * (Kc + Kc.T), (V * h) @ V.T


def _pair_decisions(est, rows):
    """``(m, n_pairs)`` decision values of each binary model (positive: the pair's 2nd class)."""
    return np.column_stack([rows[:, m.idx] @ m.coef + m.intercept for m in est.binary_models_])


def _sklearn_ovo(Kc, y, rows):
    """scikit-learn's own one-vs-one on the corrected matrix; its sign is ours reversed
    (positive there means the pair's FIRST class)."""
    svc = SVC(kernel="precomputed", C=C, decision_function_shape="ovo").fit(Kc, y)
    return -svc.decision_function(rows)


@pytest.mark.parametrize("correction", ["clip", "flip", "shift"])
def test_training_scope_is_sklearn_ovo_on_the_corrected_training_kernel(data, correction):
    K, y, Kte, _, _ = data
    Kc, M = _correct(K, correction)
    oos = "raw" if correction == "shift" else "spectral"
    est = SpectrumSVC(kernel="precomputed", correction=correction, out_of_sample=oos, C=C,
                      correction_scope="training").fit(K, y)
    assert est.correction_scope_ == "training"
    rows = Kte if oos == "raw" else Kte @ M
    expected = _sklearn_ovo(Kc, y, rows)
    ours = _pair_decisions(est, Kte)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(ours, expected, atol=1e-6 * scale)
    # and on the training points themselves: the rows of Kc (spectral) / of K (raw)
    train_rows = K if oos == "raw" else Kc
    np.testing.assert_allclose(_pair_decisions(est, K), _sklearn_ovo(Kc, y, train_rows),
                               atol=1e-6 * scale)


def test_training_scope_transductive_is_sklearn_on_the_joint_correction(data):
    K, y, Kte, Ktt, _ = data
    n = K.shape[0]
    joint = np.block([[K, Kte.T], [Kte, Ktt]])
    est = SpectrumSVC(kernel="precomputed", correction="clip", out_of_sample="transductive",
                      C=C, correction_scope="training").fit(K, y)
    ours = est.decision_function(np.hstack([Kte, Ktt]))
    # train on the corrected training kernel, read the test rows of the corrected joint kernel
    Kc, _ = _correct(K, "clip")
    Jc, _ = _correct(joint, "clip")
    svc = SVC(kernel="precomputed", C=C).fit(Kc, y)
    expected = svc.decision_function(Jc[n:, :n])       # the same one-vs-one to "ovr" votes
    np.testing.assert_allclose(ours, expected, atol=1e-6)


def test_pair_scope_is_the_per_pair_correction(data):
    K, y, Kte, _, _ = data
    est = SpectrumSVC(kernel="precomputed", correction="clip", out_of_sample="spectral",
                      C=C, correction_scope="pair").fit(K, y)
    default = SpectrumSVC(kernel="precomputed", correction="clip", out_of_sample="spectral",
                          C=C).fit(K, y)
    assert est.correction_scope_ == "pair" == default.correction_scope_
    np.testing.assert_array_equal(est.dual_coef_, default.dual_coef_)
    ours = _pair_decisions(est, Kte)
    for r, (i, j) in enumerate(itertools.combinations(range(5), 2)):
        idx = np.flatnonzero((y == i) | (y == j))
        Kc, M = _correct(K[np.ix_(idx, idx)], "clip")
        svc = SVC(kernel="precomputed", C=C).fit(Kc, np.where(y[idx] == j, 1, -1))
        expected = svc.decision_function(Kte[:, idx] @ M)
        np.testing.assert_allclose(ours[:, r], expected, atol=1e-6 * np.abs(expected).max())


def test_the_scopes_are_different_models_on_many_classes(data):
    K, y, Kte, _, _ = data
    a, b = (SpectrumSVC(kernel="precomputed", correction="clip", correction_scope=s).fit(K, y)
            for s in ("pair", "training"))
    assert not np.allclose(a.corrected_dual_coef_, b.corrected_dual_coef_, atol=1e-3)


def test_two_classes_both_scopes_are_one_model(data):
    K, y, Kte, _, _ = data
    keep = y < 2
    fits = [SpectrumSVC(kernel="precomputed", correction="clip", correction_scope=s)
            .fit(K[np.ix_(keep, keep)], y[keep]) for s in ("pair", "training")]
    assert [f.correction_scope_ for f in fits] == ["pair", "pair"]
    np.testing.assert_array_equal(fits[0].dual_coef_, fits[1].dual_coef_)
    np.testing.assert_array_equal(fits[0].decision_function(Kte[:, keep]),
                                  fits[1].decision_function(Kte[:, keep]))


def test_training_scope_decomposes_the_training_kernel_once(data, monkeypatch):
    K, y, _, _, _ = data
    calls = []
    original = Spectrum.from_kernel.__func__

    def counting(cls, K, **kw):
        calls.append(K.shape[0])
        return original(cls, K, **kw)

    monkeypatch.setattr(Spectrum, "from_kernel", classmethod(counting))
    SpectrumSVC(kernel="precomputed", correction="clip", correction_scope="training").fit(K, y)
    assert calls == [K.shape[0]]            # one eigendecomposition, diagnostics included
    calls.clear()
    SpectrumSVC(kernel="precomputed", correction="clip", correction_scope="pair").fit(K, y)
    assert len(calls) == 10 + 1             # one per pair, and the diagnostics' one


def test_correction_scope_refuses_other_values(data):
    K, y, _, _, _ = data
    with pytest.raises(ValueError, match="correction_scope"):
        SpectrumSVC(kernel="precomputed", correction_scope="shared").fit(K, y)


@pytest.mark.parametrize("make", [
    lambda: ESVC(kernel="precomputed"),
    lambda: SpectrumSVC(kernel="precomputed", correction="clip", correction_scope="training"),
    lambda: SpectrumSVC(kernel="precomputed", correction="flip"),
    lambda: DirectSVC(kernel="precomputed", class_weight="balanced"),
    lambda: IndefiniteSVC(kernel="precomputed", max_iter=30),
    lambda: CorrectedKernelSVC(kernel="precomputed",
                               correction=SpectrumCorrection(correction="clip")),
], ids=["esvc", "spectrum-training", "spectrum-pair", "direct", "indefinite", "corrected"])
def test_parallel_pairs_equal_serial_exactly(data, make, monkeypatch):
    K, y, Kte, _, _ = data
    serial = make().fit(K, y)                      # n_jobs=None outside a context: serial
    fitted = []
    if "n_jobs" in make().get_params():
        fitted.append(make().set_params(n_jobs=2).fit(K, y))
    with joblib.parallel_config(n_jobs=2):         # n_jobs=None: joblib's configuration
        # the pairs really go to joblib's two threads
        workers = []
        real = joblib.Parallel

        def spy(*args, **kw):
            workers.append(kw.get("n_jobs"))
            return real(*args, **kw)

        monkeypatch.setattr(joblib, "Parallel", spy)
        fitted.append(make().fit(K, y))
        monkeypatch.setattr(joblib, "Parallel", real)
    assert workers == [2]
    for other in fitted:
        np.testing.assert_array_equal(other.dual_coef_, serial.dual_coef_)
        np.testing.assert_array_equal(other.intercept_, serial.intercept_)
        np.testing.assert_array_equal(other.support_, serial.support_)
        np.testing.assert_array_equal(other.decision_function(Kte),
                                      serial.decision_function(Kte))
