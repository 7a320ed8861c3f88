"""``krein compare --task regression`` and ``--task novelty`` through the one CV loop,
checked outside it.

* the bundled regression set ``liver-drinks`` is the ``drinks`` column of the BUPA file
  (McDermott & Forsyth 2016) with the five blood tests as features, and its default
  sigmoid kernel is strongly indefinite;
* the baselines (kernel ridge on the flipped and on the clipped kernel, kernel k-NN
  regression) equal scikit-learn's ``KernelRidge`` on ``|K|`` / ``K_+`` (with the Krein
  coefficients ``V g(lam) V' c~`` for new points, computed here with ``numpy.linalg.eigh``)
  and ``KNeighborsRegressor`` on the kernel-induced distances;
* a comparison's outer folds are scikit-learn's plain ``KFold``, its flip-ridge folds are
  scikit-learn's ``KernelRidge`` refitted by hand, RMSE, MAE and R^2 of ``folds.csv`` are
  recomputed from ``predictions.csv`` with ``sklearn.metrics``, the best method is the
  lowest mean RMSE, the epsilon grid is relative to the targets' spread, and the page and
  ``read_comparison`` read the directory back;
* the command line runs the task end to end and refuses string labels and a classifier
  on one line with exit status 2;
* novelty: the one-class SVM on ``|K|`` / ``K_+`` equals scikit-learn's ``OneClassSVM``
  on the corrected kernel (Krein coefficients for new points), the k-NN score equals
  ``NearestNeighbors``' distances; a comparison on ``protein-similarity`` (class 1 the
  inliers) fits on the inliers of ``StratifiedKFold``'s training splits only, its AUCs
  are ``roc_auc_score`` of ``predictions.csv``'s decision values, and its flip fold is
  ``OneClassSVM(nu=0.1)`` refitted by hand.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsRegressor, NearestNeighbors
from sklearn.svm import OneClassSVM

from krein.cli import main
from krein.compare import EPSILON_GRID, NOVELTY_NU, Comparison, run_comparison
from krein.datasets import load, load_similarity
from krein.estimators.novelty import CorrectedOneClassSVM, KernelKNeighborsOutlier
from krein.estimators.regression import CorrectedKernelRidge, KernelKNeighborsRegressor
from krein.experiment.comparison_files import read_comparison, read_predictions
from krein.experiment.statistics import significance_groups
from krein.registry import list_methods


def _standardized(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _indefinite_kernel(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = X[:, 0] - 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(n)
    K = np.tanh(0.8 * X @ X.T - 0.5)
    return X, y, K


# ----------------------------------------------------------------------------- the data set
def test_liver_drinks_is_the_drinks_column_of_the_bupa_file():
    X6, _ = load("liver")
    X, y, info = load("liver-drinks", return_info=True)
    np.testing.assert_array_equal(y, X6[:, 5])
    np.testing.assert_array_equal(X, X6[:, :5])
    assert y.dtype == np.float64 and np.any(y != np.round(y))   # 0.5 drinks: real targets
    assert info["file"] == "liver.npz" and "McDermott" in info["citation"]


def test_liver_drinks_default_sigmoid_kernel_is_strongly_indefinite():
    from krein.kernel_data import load_kernel_data

    data = load_kernel_data("liver-drinks", "sigmoid")
    lam = np.linalg.eigvalsh(data.K)
    r_neg = -lam[lam < 0].sum() / np.abs(lam).sum()
    assert r_neg > 0.3 and lam.min() < -0.5 * lam.max()


# ----------------------------------------------------------------------------- the baselines
@pytest.mark.parametrize("correction", ["flip", "clip"])
def test_corrected_kernel_ridge_is_kernel_ridge_on_the_corrected_kernel(correction):
    _, y, K = _indefinite_kernel()
    tr, te = np.arange(30), np.arange(30, 40)
    lam, V = np.linalg.eigh(K[np.ix_(tr, tr)])
    assert lam.min() < -0.1 * lam.max()
    g = np.sign(lam) if correction == "flip" else (lam > 0).astype(float)
    K_c = (V * (lam * g)) @ V.T
    b = y[tr].mean()
    ref = KernelRidge(alpha=0.3, kernel="precomputed").fit(K_c, y[tr] - b)
    est = CorrectedKernelRidge(alpha=0.3, correction=correction, kernel="precomputed")
    est.fit(K[np.ix_(tr, tr)], y[tr])
    np.testing.assert_allclose(est.predict(K[np.ix_(tr, tr)]), ref.predict(K_c) + b,
                               rtol=1e-9, atol=1e-9)
    # new points: the ORIGINAL rows times the Krein coefficients V g V' c~
    c = V @ (g * (V.T @ ref.dual_coef_))
    np.testing.assert_allclose(est.predict(K[np.ix_(te, tr)]), K[np.ix_(te, tr)] @ c + b,
                               rtol=1e-9, atol=1e-9)


def test_kernel_knn_regressor_is_knn_on_the_kernel_induced_distance():
    X, y, _ = _indefinite_kernel()
    K = X @ X.T                                    # d^2 = K_ii + K_jj - 2 K_ij: Euclidean
    d2 = np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K
    D = np.sqrt(np.maximum(d2, 0))
    tr, te = np.arange(30), np.arange(30, 40)
    ref = KNeighborsRegressor(n_neighbors=4, metric="precomputed").fit(D[np.ix_(tr, tr)], y[tr])
    est = KernelKNeighborsRegressor(n_neighbors=4, kernel="precomputed").fit(
        K[np.ix_(tr, tr)], y[tr])
    np.testing.assert_allclose(est.predict(K[np.ix_(te, tr)]), ref.predict(D[np.ix_(te, tr)]),
                               rtol=1e-12)


def test_the_main_job_of_a_regression_is_the_registered_regressors():
    spec = Comparison(dataset="liver-drinks", task="regression")
    assert spec.methods == tuple(list_methods(task="regressor", compare=True))
    assert {"indefinite-svr", "esvr", "krein-ls-regressor", "flip-ridge-regressor",
            "clip-ridge-regressor", "knn-regressor"} <= set(spec.methods)
    with pytest.raises(ValueError, match="not a regressor"):
        Comparison(dataset="liver-drinks", task="regression", methods="esvm")


def test_significance_on_rmse_takes_the_lowest_as_best():
    folds = pd.DataFrame({"method": ["a"] * 3 + ["b"] * 3, "repeat": 0, "fold": [0, 1, 2] * 2,
                          "rmse": [1.0, 1.1, 0.9, 2.0, 2.2, 2.1], "n_train": 20, "n_test": 10,
                          "error": ""})
    sig = significance_groups(folds, score="rmse")
    assert sig.attrs["best"] == "a"
    assert list(sig["group"]) == ["best", "worse"]


# ----------------------------------------------------------------------------- a comparison
@pytest.fixture(scope="module")
def regression_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("regression") / "run"
    res = run_comparison(Comparison(dataset="liver-drinks", task="regression", outer_folds=3,
                                    kernel_params={"a": 0.8, "r": -2.0}, tune=False,
                                    methods="flip-ridge-regressor,knn-regressor"),
                         progress=False, out=out)
    return res, out


def test_regression_folds_are_plain_kfold_and_flip_ridge_is_sklearn_kernel_ridge(regression_run):
    res, out = regression_run
    X, y = load("liver-drinks")
    Xs = _standardized(X)
    K = np.tanh(0.8 * Xs @ Xs.T - 2.0)
    pred = read_predictions(out)
    folds = pd.read_csv(out / "folds.csv")
    splits = list(KFold(3, shuffle=True, random_state=0).split(Xs))
    for f, (tr, te) in enumerate(splits):
        rows = pred[(pred["method"] == "flip-ridge-regressor") & (pred["fold"] == f)]
        np.testing.assert_array_equal(rows["object"].to_numpy(), te)
        lam, V = np.linalg.eigh(K[np.ix_(tr, tr)])
        b = y[tr].mean()
        ridge = KernelRidge(alpha=1.0, kernel="precomputed").fit((V * np.abs(lam)) @ V.T,
                                                                 y[tr] - b)
        c = V @ (np.sign(lam) * (V.T @ ridge.dual_coef_))
        np.testing.assert_allclose(rows["y_pred"].astype(float), K[np.ix_(te, tr)] @ c + b,
                                   rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(rows["y_true"].astype(float), y[te])
    for (m, f), rows in pred.groupby(["method", "fold"]):
        row = folds[(folds["method"] == m) & (folds["fold"] == f)].iloc[0]
        t, p = rows["y_true"].astype(float), rows["y_pred"].astype(float)
        assert row["rmse"] == pytest.approx(np.sqrt(mean_squared_error(t, p)), rel=1e-9)
        assert row["mae"] == pytest.approx(mean_absolute_error(t, p), rel=1e-9)
        assert row["r2"] == pytest.approx(r2_score(t, p), rel=1e-9, abs=1e-12)
        assert np.isnan(row["accuracy"]) and np.isnan(row["auc"])


def test_regression_summary_page_and_reader(regression_run):
    res, out = regression_run
    summary = pd.read_csv(out / "summary.csv")
    folds = pd.read_csv(out / "folds.csv")
    for k in ("rmse", "mae", "r2"):
        means = folds.groupby("method")[k].mean()
        np.testing.assert_allclose(summary.set_index("method")[f"{k}_mean"], means[summary[
            "method"]], rtol=1e-12)
    best = summary.loc[summary["rmse_mean"].idxmin(), "method"]
    assert summary.set_index("method").loc[best, "group"] == "best"
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["task"] == "regression" and run["protocol"]["scoring"] == "rmse"
    assert run["data"]["target"]["std"] == pytest.approx(np.std(load("liver-drinks")[1]))
    saved = read_comparison(out)
    assert len(saved.folds) == 6
    page = (out / "report.html").read_text()
    assert ">RMSE</th>" in page and ">R²</th>" in page and "accuracy (%)" not in page
    assert "RMSE " + f"{summary.set_index('method').loc[best, 'rmse_mean']:.4g}" in page
    # the significance paragraph names the score compared, and no per-object test
    significance = page.split('id="significance">')[1].split("</p>")[0]
    assert "on the RMSE of each split" in significance and "McNemar" not in significance


def test_epsilon_grid_is_relative_to_the_targets_spread(tmp_path):
    X, y, K = _indefinite_kernel(24)
    np.savetxt(tmp_path / "K.txt", K)
    np.savetxt(tmp_path / "y.txt", 10 * y)
    res = run_comparison(Comparison(kernel_file=tmp_path / "K.txt", labels=tmp_path / "y.txt",
                                    task="regression", methods="esvr", outer_folds=2,
                                    grid_extension=0), progress=False)
    t = np.std(10 * y)
    np.testing.assert_allclose(res.grids["esvr"]["epsilon"], np.array(EPSILON_GRID) * t)
    assert res.target_scale == pytest.approx(t)


# ----------------------------------------------------------------------------- the command line
def test_cli_regression_writes_a_page(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["compare", "--task", "regression", "--dataset", "liver-drinks", "--cv", "2",
               "--methods", "flip-ridge-regressor,clip-ridge-regressor", "--no-tune",
               "--out", str(out), "--no-progress", "--n-jobs", "1"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "RMSE" in text and "targets: 345 real values" in text
    assert ">RMSE</th>" in (out / "report.html").read_text()


def test_cli_regression_refuses_string_labels_and_classifiers(tmp_path, capsys):
    _, _, K = _indefinite_kernel(20)
    np.savetxt(tmp_path / "K.txt", K)
    (tmp_path / "y.txt").write_text("a\nb\n" * 10)
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--task", "regression", "--kernel-file", str(tmp_path / "K.txt"),
              "--labels", str(tmp_path / "y.txt"), "--no-save", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "y.txt" in err and "real-valued" in err
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--task", "regression", "--methods", "esvm", "--no-save"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a regressor" in err


# ----------------------------------------------------------------------------- novelty
@pytest.mark.parametrize("correction", ["flip", "clip"])
def test_corrected_one_class_svm_is_libsvm_on_the_corrected_kernel(correction):
    _, _, K = _indefinite_kernel()
    tr, te = np.arange(30), np.arange(30, 40)
    lam, V = np.linalg.eigh(K[np.ix_(tr, tr)])
    g = np.sign(lam) if correction == "flip" else (lam > 0).astype(float)
    s = np.abs(np.diag(K[np.ix_(tr, tr)])).mean()     # libsvm runs on K_c / s
    K_c = (V * (lam * g)) @ V.T / s
    ref = OneClassSVM(kernel="precomputed", nu=0.2).fit(K_c)
    est = CorrectedOneClassSVM(nu=0.2, correction=correction, kernel="precomputed")
    est.fit(K[np.ix_(tr, tr)])
    np.testing.assert_allclose(est.decision_function(K[np.ix_(tr, tr)]),
                               s * ref.decision_function(K_c), rtol=1e-6, atol=1e-8)
    a = np.zeros(tr.size)
    a[ref.support_] = ref.dual_coef_[0]
    c = V @ (g * (V.T @ a))
    np.testing.assert_allclose(est.decision_function(K[np.ix_(te, tr)]),
                               K[np.ix_(te, tr)] @ c + s * ref.intercept_[0], rtol=1e-6,
                               atol=1e-8)


def test_knn_outlier_score_is_the_mean_squared_distance_to_the_nearest():
    X, _, _ = _indefinite_kernel()
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-0.3 * sq)                           # unit diagonal: d^2 = 2 - 2 K
    tr, te = np.arange(30), np.arange(30, 40)
    nn = NearestNeighbors(n_neighbors=3, metric="precomputed").fit(
        np.sqrt(np.maximum(2 - 2 * K[np.ix_(tr, tr)], 0)))
    dist, _ = nn.kneighbors(np.sqrt(np.maximum(2 - 2 * K[np.ix_(te, tr)], 0)))
    est = KernelKNeighborsOutlier(n_neighbors=3, kernel="precomputed").fit(K[np.ix_(tr, tr)])
    np.testing.assert_allclose(est.score_samples(K[np.ix_(te, tr)]), -(dist ** 2).mean(axis=1),
                               rtol=1e-9, atol=1e-12)


@pytest.fixture(scope="module")
def novelty_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("novelty") / "run"
    res = run_comparison(Comparison(dataset="protein-similarity", task="novelty",
                                    binary=(1, (2, 3, 4)), outer_folds=3,
                                    methods="flip-one-class,knn-outlier"),
                         progress=False, out=out)
    return res, out


def test_novelty_fits_on_inliers_and_its_auc_is_roc_auc_score(novelty_run):
    res, out = novelty_run
    S, labels = load_similarity("protein-similarity")
    y = np.where(labels == 1, 1, -1)
    S = (S + S.T) / 2
    folds = pd.read_csv(out / "folds.csv")
    pred = read_predictions(out)
    splits = list(StratifiedKFold(3, shuffle=True, random_state=0).split(S, y))
    for f, (tr, te) in enumerate(splits):
        inl = tr[y[tr] == 1]
        for m in ("flip-one-class", "knn-outlier"):
            row = folds[(folds["method"] == m) & (folds["fold"] == f)].iloc[0]
            assert row["n_train"] == inl.size and row["n_test"] == te.size
            rows = pred[(pred["method"] == m) & (pred["fold"] == f)]
            np.testing.assert_array_equal(rows["object"].to_numpy(), te)
            auc = roc_auc_score(rows["y_true"].astype(int) == 1, rows["decision"])
            assert row["auc"] == pytest.approx(auc, rel=1e-9)
        lam, V = np.linalg.eigh(S[np.ix_(inl, inl)])      # unit diagonal: K_c / s = K_c
        svm = OneClassSVM(kernel="precomputed", nu=NOVELTY_NU).fit((V * np.abs(lam)) @ V.T)
        a = np.zeros(inl.size)
        a[svm.support_] = svm.dual_coef_[0]
        decision = S[np.ix_(te, inl)] @ (V @ (np.sign(lam) * (V.T @ a))) + svm.intercept_[0]
        rows = pred[(pred["method"] == "flip-one-class") & (pred["fold"] == f)]
        np.testing.assert_allclose(rows["decision"], decision, rtol=1e-6, atol=1e-6)
    summary = pd.read_csv(out / "summary.csv")
    best = summary.loc[summary["auc_mean"].idxmax(), "method"]
    assert summary.set_index("method").loc[best, "group"] == "best"
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["task"] == "novelty" and run["protocol"]["tuned"] is False
    assert run["protocol"]["fixed"]["flip-one-class"] == {"nu": NOVELTY_NU}
    page = (out / "report.html").read_text()
    assert "Novelty" in page and "AUC" in page
    read_comparison(out)


def test_cli_novelty_writes_a_page_and_refuses_other_labels(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["compare", "--task", "novelty", "--dataset", "protein-similarity", "--binary",
               "1:2,3,4", "--cv", "2", "--methods", "clip-one-class,knn-outlier",
               "--out", str(out), "--no-progress", "--n-jobs", "1"])
    assert rc == 0
    assert "AUC" in capsys.readouterr().out
    assert "AUC" in (out / "report.html").read_text()
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--task", "novelty", "--dataset", "protein-similarity", "--no-save"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "1 (inlier) and -1 (outlier)" in err
