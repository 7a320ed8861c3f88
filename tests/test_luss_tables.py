"""Checks of the Luss & d'Aspremont (2007, 2009) Tables 2-3 reproduction and its noise.

* :func:`krein.datasets.add_uniform_noise` against the same draws made here with
  NumPy and the affine rescaling written out;
* ``experiments/luss_table2.py --quick``: the Simpson kernel file against the
  overlap coefficient counted set by set, and the Denoise (clip) and SVM rows
  against scikit-learn's ``SVC`` on a kernel clipped here by ``numpy.linalg.eigh``
  (no krein estimator), at the selected ``C``, on the same split; the TD1 kernel
  file and its SVM row likewise;
* ``experiments/luss_table3.py --quick``: the SVM rows, clean AND noisy, against
  scikit-learn's ``SVC`` on pixels made noisy here by NumPy, with the clean
  ``C`` reused on the noisy data.
"""

import json
import pathlib

import numpy as np
import pytest
from sklearn.svm import SVC

from krein.datasets import add_uniform_noise
from krein.experiment import import_script, outer_splits

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[1] / "experiments"


# ----------------------------------------------------------------------------- noise
def test_add_uniform_noise_is_the_seeded_draw_then_one_global_rescaling():
    X = np.linspace(-1, 1, 60).reshape(10, 6)
    Z = add_uniform_noise(X, -1.0, 1.0, random_state=3)
    E = np.random.RandomState(3).uniform(-1.0, 1.0, size=X.shape)
    S = X + E
    np.testing.assert_allclose(Z, (S - S.min()) / (S.max() - S.min()), rtol=0, atol=1e-15)
    assert Z.min() == 0.0 and Z.max() == 1.0
    np.testing.assert_array_equal(Z, add_uniform_noise(X, random_state=3))
    assert not np.array_equal(Z, add_uniform_noise(X, random_state=4))
    # another range, and low == high: only the rescaling is left
    W = add_uniform_noise(X, 0.5, 0.5, feature_range=(-2.0, 3.0), random_state=0)
    np.testing.assert_allclose(W, -2.0 + 5.0 * (X + 1.0) / 2.0, atol=1e-12)


def test_add_uniform_noise_has_the_uniform_moments():
    X = np.zeros((400, 50))
    Z = add_uniform_noise(X, -1.0, 1.0, feature_range=(-1.0, 1.0), random_state=0)
    # Z = (E - min E) * 2 / (max E - min E) - 1, with min E ~ -1 and max E ~ 1
    assert abs(Z.mean()) < 0.01
    assert Z.var() == pytest.approx(1.0 / 3.0, rel=0.02)   # var of U[-1, 1]


@pytest.mark.parametrize("kwargs, match", [({"low": 1.0, "high": -1.0}, "low <= high"),
                                           ({"feature_range": (1.0, 1.0)}, "feature_range"),
                                           ({"low": np.nan}, "finite")])
def test_add_uniform_noise_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        add_uniform_noise(np.ones((3, 2)), **kwargs)


def test_add_uniform_noise_rejects_bad_data():
    with pytest.raises(ValueError, match="2-D"):
        add_uniform_noise(np.ones(3))
    with pytest.raises(ValueError, match="constant"):
        add_uniform_noise(np.ones((3, 2)), 0.0, 0.0)


# ----------------------------------------------------------------------------- the tables
def _run(run_quick_script, name, tmp_path, monkeypatch):
    monkeypatch.setenv("KREIN_LUSS_DATA", str(tmp_path / "data"))
    return run_quick_script(name, tmp_path / name, figures=False)[0]


def _split(row, y):
    params = {"dataset": row["dataset"], "n_samples": None, "binary": None, "repeat": 0,
              "outer_folds": int(row["outer_folds"]), "seed": 0}
    return outer_splits(params, y)[int(row["fold"])]


def _sklearn_accuracy(K_tr, K_rows, y_tr, y_te, C):
    clf = SVC(kernel="precomputed", C=C, class_weight="balanced", tol=1e-6).fit(K_tr, y_tr)
    pred = clf.predict(K_rows)
    return np.mean(pred == y_te), np.mean(pred[y_te == 1] == 1)


def test_table2_quick_clip_and_svm_rows_match_sklearn_on_numpy_kernels(tmp_path, monkeypatch, run_quick_script):
    df = _run(run_quick_script, "luss_table2", tmp_path, monkeypatch)
    t2 = import_script(EXPERIMENTS / "luss_table2.py")
    X, y = t2.usps_pixels((3, 5), 160)
    # the Simpson score counted set by set for a few pairs
    K = np.load(tmp_path / "data" / "usps-3-5-ss-n160.npy")
    B = [set(np.flatnonzero(x > 0.5)) for x in X]
    for i, j in [(0, 1), (5, 77), (12, 150), (3, 3)]:
        assert K[i, j] == pytest.approx(len(B[i] & B[j]) / min(len(B[i]), len(B[j])))
    usps = df[df["dataset"] == "usps-3-5-ss-n160"]
    assert set(usps["method"]) == {"clip", "flip", "svm", "indefinite-svm"}
    tr, te = _split(usps.iloc[0], y)
    lam, V = np.linalg.eigh(K[np.ix_(tr, tr)])
    clipped = (V * np.maximum(lam, 0.0)) @ V.T
    for method, K_tr in (("clip", clipped), ("svm", K[np.ix_(tr, tr)])):
        row = usps[usps["method"] == method].iloc[0]
        C = json.loads(row["best_params"])["C"]
        acc, rec = _sklearn_accuracy(K_tr, K[np.ix_(te, tr)], y[tr], y[te], C)
        # libsvm stopping tolerances differ (krein's 1e-3): at most one test point apart
        assert abs(row["accuracy"] - acc) <= 1.0 / len(te) + 1e-12, method
        assert abs(row["recall"] - rec) <= 1.0 / np.sum(y[te] == 1) + 1e-12, method
    # the TD1 row: the kernel file is exp(-gamma d^2) of the library's TD1 kernel, and SVM
    # on it agrees with scikit-learn's SVC
    from krein.kernels import tangent_distance_kernel
    Kt = np.load(tmp_path / "data" / "usps-3-5-td1-n160.npy")
    Kref = tangent_distance_kernel(X, gamma=t2.TD1_GAMMA[(3, 5)])
    np.testing.assert_allclose(Kt, 0.5 * (Kref + Kref.T), atol=1e-12)
    np.testing.assert_allclose(np.diag(Kt), 1.0, atol=1e-12)
    td1 = df[df["dataset"] == "usps-3-5-td1-n160"]
    assert list(td1["method"]) == ["svm"] and set(td1["row"]) == {"usps-3-5-td1"}
    row = td1.iloc[0]
    tr1, te1 = _split(row, y)
    C = json.loads(row["best_params"])["C"]
    acc, rec = _sklearn_accuracy(Kt[np.ix_(tr1, tr1)], Kt[np.ix_(te1, tr1)], y[tr1], y[te1], C)
    assert abs(row["accuracy"] - acc) <= 1.0 / len(te1) + 1e-12
    assert abs(row["recall"] - rec) <= 1.0 / np.sum(y[te1] == 1) + 1e-12
    ind = usps[usps["method"] == "indefinite-svm"].iloc[0]
    for k in ("accuracy_transductive", "accuracy_transductive_rawb"):
        assert 0.5 < ind[k] <= 1.0
    # the paper's positive class: Diabetes' tested-negative rows are +1 here
    assert [json.loads(b) for b in df.loc[df["row"] == "diabetes-sig", "binary"]] == [[0, 1]] * 2


def test_table3_quick_svm_rows_match_sklearn_on_numpy_noise(tmp_path, monkeypatch, run_quick_script):
    df = _run(run_quick_script, "luss_table3", tmp_path, monkeypatch)
    t2 = import_script(EXPERIMENTS / "luss_table2.py")
    X, y = t2.usps_pixels((3, 5), 160)
    S = (2.0 * X - 1.0) + np.random.RandomState(0).uniform(-1.0, 1.0, size=X.shape)
    Xn = (S - S.min()) / (S.max() - S.min())
    row = df[(df["method"] == "svm") & (df["kernel_name"] == "linear")].iloc[0]
    tr, te = _split(row, y)
    C = json.loads(row["best_params"])["C"]
    for Z, suffix in ((X, ""), (Xn, "_noisy")):
        K = Z @ Z.T / Z.shape[1]
        acc, rec = _sklearn_accuracy(K[np.ix_(tr, tr)], K[np.ix_(te, tr)], y[tr], y[te], C)
        assert abs(row[f"accuracy{suffix}"] - acc) <= 1.0 / len(te) + 1e-12, suffix
        assert abs(row[f"recall{suffix}"] - rec) <= 1.0 / np.sum(y[te] == 1) + 1e-12, suffix
    per = df[df["method"] == "perturb-svm"].iloc[0]
    assert set(json.loads(per["best_params"])) == {"C", "rho"}
