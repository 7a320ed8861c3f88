"""Checks of the Munoz & de Diego (2006) reproduction: ``experiments/munoz_*.py``.

Each script runs with ``--quick`` through the command line, and its numbers are
checked against something computed here by another path:

* Fig. 1: ``r_mm`` / ``r_neg`` (munoz eq. 2) recomputed with
  ``numpy.linalg.eigvalsh`` on a pick-out kernel built entry by entry;
* Table 1: the CLC weights against munoz's closed form (16) for two kernels,
  and the test error against the sensitivity and specificity it must agree with;
* Table 2: the a priori RBF kernel (c = 55) row against scikit-learn's own
  ``SVC(kernel="rbf", gamma=1/55)`` on the raw features (no krein kernel code).
"""

import ast
import json
import pathlib

import numpy as np
import pytest

from krein.experiment import import_script

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[1] / "experiments"


def _run(run_quick_script, name, tmp_path):
    df, figures = run_quick_script(name, tmp_path / name)
    assert f"{name}.png" in figures
    return df


def test_fig1_quick_deviation_matches_an_independent_eigensolve(tmp_path, run_quick_script):
    df = _run(run_quick_script, "munoz_fig1", tmp_path)
    fig1 = import_script(EXPERIMENTS / "munoz_fig1.py")
    row = df[(df["variant"] == "linear") & (df["block"] == "train")].iloc[0]
    X, y, tr, _ = fig1.artificial_split(int(row["run"]), int(row["n_samples"]), "linear")
    X, y = X[tr], y[tr]
    # pick-out of the two linear projection kernels, entry by entry (munoz §4.1)
    K = np.empty((len(y), len(y)))
    for i in range(len(y)):
        for j in range(len(y)):
            k = (X[i, 0] * X[j, 0], X[i, 1] * X[j, 1])
            K[i, j] = max(k) if y[i] == y[j] else min(k)
    lam = np.linalg.eigvalsh(K)
    assert row["r_mm"] == pytest.approx(100 * -lam.min() / lam.max(), rel=1e-8)
    assert row["r_neg"] == pytest.approx(100 * -lam[lam < 0].sum() / np.abs(lam).sum(), rel=1e-8)
    # The eigenvalues within round-off of zero (this kernel has rank <= 2 per class block,
    # so most of them) take whatever sign the LAPACK code path gives: the sign count is
    # only determined between the clearly negative ones and the not clearly positive ones.
    tol = len(lam) * np.finfo(float).eps * np.abs(lam).max()
    clearly, possibly = 100 * np.mean(lam < -tol), 100 * np.mean(lam < tol)
    assert clearly - 1e-9 <= row["negative_percent_sign"] <= possibly + 1e-9
    # the count beyond the null tolerance does not depend on round-off: zero eigenvalues
    # sit far below it and the nonzero ones far above
    assert row["negative_percent"] == pytest.approx(clearly)
    stored = np.asarray(json.loads(row["eigenvalues"]))
    np.testing.assert_allclose(stored, lam[::-1], rtol=1e-3, atol=1e-9 * lam.max())


def test_table1_quick_clc_weights_match_the_closed_form(tmp_path, run_quick_script):
    df = _run(run_quick_script, "munoz_table1", tmp_path)
    fig1 = import_script(EXPERIMENTS / "munoz_fig1.py")
    row = df[df["method"] == "clc"].iloc[0]
    X, y, tr, _ = fig1.artificial_split(int(row["run"]), int(row["n_samples"]), row["kernel"])
    X, y = X[tr], y[tr]
    K1, K2 = np.outer(X[:, 0], X[:, 0]), np.outer(X[:, 1], X[:, 1])
    same = y[:, None] == y[None, :]
    K = np.where(same, np.maximum(K1, K2), np.minimum(K1, K2))
    lam1 = np.sum((K1 - K2) * (K - K2)) / np.sum((K1 - K2) ** 2)   # munoz eq. (16)
    lam1 = min(max(lam1, 0.0), 1.0)
    weights = ast.literal_eval(row["info"])["weights"]
    np.testing.assert_allclose(weights, [lam1, 1 - lam1], atol=1e-6)
    # the error, sensitivity and specificity of one test set agree
    n_te = int(row["n_samples"]) - len(tr)
    n_pos = n_te // 2  # stratified halves of a balanced set
    for _, r in df.iterrows():
        wrong = (1 - r["sensitivity"]) * n_pos + (1 - r["specificity"]) * (n_te - n_pos)
        assert r["test_error"] == pytest.approx(100 * wrong / n_te, abs=1e-9)


def test_table2_quick_rbf55_row_matches_sklearn_rbf_svc(tmp_path, run_quick_script):
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    from krein.datasets import load

    df = _run(run_quick_script, "munoz_table2", tmp_path)
    for _, row in df[df["method"] == "base"].iterrows():
        X, y = load("ionosphere")
        keep, _ = train_test_split(np.arange(len(y)), train_size=int(row["n_samples"]),
                                   stratify=y, random_state=np.random.RandomState(int(row["run"])))
        X, y = X[keep], np.asarray(y)[keep]
        tr, te = train_test_split(np.arange(len(y)), train_size=0.6, stratify=y,
                                  random_state=int(row["run"]))
        svc = SVC(kernel="rbf", gamma=1 / 55, C=float(row["C"])).fit(X[tr], y[tr])
        assert row["test_error"] == pytest.approx(100 * np.mean(svc.predict(X[te]) != y[te]))
        assert row["sv_percent"] == pytest.approx(100 * len(svc.support_) / len(tr))
    assert {"square", "clc", "base"} <= set(df["method"])
