"""Haasdonk (2005) Table 1: CNE/RNE (centered spectrum corrections), the LOO protocol, the script.

* ``SpectrumCorrection(center=True)`` against an independent computation: the
  centering against an explicit ``J K J`` and scikit-learn's ``KernelCenterer``
  (new rows with the training statistics); the corrected block against the
  eigendecomposition of ``J K J``; at full transductive use (the training rows
  as "new" rows) the map reproduces the corrected training block; new rows
  against the centered pseudo-Euclidean embedding of :mod:`krein.geometry`
  (CNE = inner product of the positive coordinates, RNE = Euclidean inner
  product of all coordinates); scikit-learn's estimator checks on both.
* ``outer_folds="loo"``: the runner's CV loop (:func:`classification_cell`)
  over every held-out object against ``cross_val_score`` with
  ``LeaveOneOut``; the script's LOO cells likewise (the transductive
  variant on an explicitly corrected ``J K J``).
* ``experiments/haasdonk_table1.py --quick`` runs in seconds and meets the
  paper's cat-cortex-V signature and DCM.
"""

import os

import numpy as np
import pytest
from sklearn.model_selection import LeaveOneOut, cross_val_score
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.estimator_checks import parametrize_with_checks

from krein import DirectSVC, SpectrumCorrection
from krein.estimators import CorrectedKernelSVC
from krein.experiment import classification_cell, load_experiment, outer_splits, run_experiment
from krein.geometry import pseudo_euclidean_embedding
from krein.kernel_data import load_kernel_data

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "experiments", "haasdonk_table1.py")


def _indefinite(n=30, m=7, seed=0):
    """A joint kernel of ``n`` training and ``m`` new points, indefinite (L1-Gaussian)."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n + m, 2))
    D1 = np.abs(X[:, None, :] - X[None, :, :]).sum(-1)
    K = np.exp(-3.0 * D1 ** 2)
    J = np.eye(n) - 1.0 / n
    lam = np.linalg.eigvalsh(J @ K[:n, :n] @ J)
    assert lam.min() < -1e-6 and lam.max() > 1e-6          # really indefinite after centering
    return K[:n, :n], K[n:, :n]


@pytest.mark.parametrize("correction, g", [("clip", lambda lam: np.maximum(lam, 0)),
                                           ("flip", np.abs)])
def test_centered_correction_against_explicit_jkj(correction, g):
    K, _ = _indefinite()
    n = K.shape[0]
    J = np.eye(n) - np.ones((n, n)) / n
    lam, V = np.linalg.eigh(J @ K @ J)
    expected = (V * g(lam)) @ V.T
    sc = SpectrumCorrection(correction=correction, center=True)
    np.testing.assert_allclose(sc.fit_transform(K), expected, atol=1e-12)
    # full transductive use: the training rows, mapped, give the corrected training block
    np.testing.assert_allclose(sc.transform(K), expected, atol=1e-12)
    # the uncentered correction is a different kernel (centering matters for CNE/RNE)
    assert np.abs(SpectrumCorrection(correction=correction).fit_transform(K) - expected).max() > 1e-3


def test_centering_of_new_rows_uses_training_statistics():
    K, K_new = _indefinite()
    sc = SpectrumCorrection(correction="clip", out_of_sample="raw", center=True).fit(K)
    kc = KernelCenterer().fit(K)
    np.testing.assert_allclose(sc.transform(K_new), kc.transform(K_new), atol=1e-13)
    np.testing.assert_allclose(sc.transform(K), kc.transform(K), atol=1e-13)


def test_cne_rne_rows_against_the_pseudo_euclidean_embedding():
    K, K_new = _indefinite()
    emb = pseudo_euclidean_embedding(K)
    Phi, Phi_new = emb.coordinates, emb.transform(K_new)
    pos = slice(0, emb.p)
    cne = Phi_new[:, pos] @ Phi[:, pos].T      # positive (real) directions only
    rne = Phi_new @ Phi.T                      # every direction with a + sign
    np.testing.assert_allclose(SpectrumCorrection(correction="clip", center=True).fit(K).transform(K_new),
                               cne, atol=1e-9)
    np.testing.assert_allclose(SpectrumCorrection(correction="flip", center=True).fit(K).transform(K_new),
                               rne, atol=1e-9)


def test_center_rejects_transductive():
    K, _ = _indefinite()
    with pytest.raises(ValueError, match="transductive"):
        SpectrumCorrection(correction="clip", out_of_sample="transductive", center=True).fit(K)


def _catcortex(gamma=10.0 ** (-2 / 3)):
    data = load_kernel_data("catcortex", "dissimilarity-gaussian", {"gamma": gamma})
    return data.K, np.where(data.y == 4, 1, -1)


def test_outer_splits_loo_is_leave_one_out():
    y = np.array([1, -1, 1, 1, -1])
    splits = outer_splits({"outer_folds": "loo", "seed": 0}, y)
    ref = list(LeaveOneOut().split(np.zeros((5, 1))))
    assert len(splits) == 5
    for (a, b), (c, d) in zip(splits, ref):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_classification_cell_loo_against_cross_val_score():
    """Every held-out object of catcortex, one (gamma, C): the runner's CV loop with
    ``outer_folds="loo"`` = ``cross_val_score(..., cv=LeaveOneOut())``."""
    gamma = 10.0 ** (-2 / 3)
    K, _ = _catcortex(gamma)
    data = load_kernel_data("catcortex", "dissimilarity-gaussian", {"gamma": gamma})
    y = data.y
    base = {"dataset": "catcortex", "kernel": "dissimilarity-gaussian",
            "kernel_params": {"gamma": gamma}, "method": "svm", "method_params": {"C": 10.0},
            "outer_folds": "loo", "save_trace": False, "seed": 0}
    acc = [classification_cell({**base, "fold": i})["accuracy"] for i in range(len(y))]
    ref = cross_val_score(DirectSVC(C=10.0, kernel="precomputed"), K, y, cv=LeaveOneOut())
    np.testing.assert_array_equal(np.asarray(acc), ref)
    with pytest.raises(ValueError, match="fold must be < n = 65"):
        classification_cell({**base, "fold": 65})


@pytest.mark.parametrize("method", ["svm", "cne", "rne-t"])
def test_script_loo_cell_against_cross_val_score(method):
    exp = load_experiment(SCRIPT, quick=True)
    gamma, C = 10.0 ** (-2 / 3), 10.0
    out = exp.cell({"dataset": "catcortex", "cls": "V", "method": method, "gamma": gamma,
                    "C": [C], "seed": 0})
    K, y = _catcortex(gamma)
    est = (DirectSVC(C=C, kernel="precomputed") if method == "svm" else
           CorrectedKernelSVC(correction=SpectrumCorrection(correction="clip", center=True), C=C, kernel="precomputed"))
    if method == "rne-t":  # transductive: J K J flipped once on all objects, then the SVM
        n = len(y)
        J = np.eye(n) - np.ones((n, n)) / n
        lam, V = np.linalg.eigh(J @ K @ J)
        K, est = (V * np.abs(lam)) @ V.T, DirectSVC(C=C, kernel="precomputed")
    ref = cross_val_score(est, K, y, cv=LeaveOneOut())
    assert out["best_errors"] == int(np.sum(ref == 0))


def test_quick_run(tmp_path):
    exp = load_experiment(SCRIPT, quick=True)
    report = run_experiment(exp, tmp_path, progress=False)
    assert report.n_errors == 0
    table = exp.table(report.results)
    row = table.iloc[0]
    assert row["dataset"] == "catcortex-V"
    assert row["(p, q)"].startswith("(51, 13)")         # the paper's signature ...
    assert row["DCM"] == "0.2974 (0.2974)"               # ... and DCM, to every printed digit


@parametrize_with_checks([SpectrumCorrection(correction="clip", center=True),
                          SpectrumCorrection(correction="flip", center=True)], xfail_strict=True)
def test_sklearn_checks_centered_corrections(estimator, check):
    """scikit-learn's estimator checks on CNE and RNE (as ``tests/test_transformer_checks.py``
    runs them on the other corrections)."""
    check(estimator)
