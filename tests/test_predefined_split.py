"""A predefined train/test split and the outer schemes: checked by hand.

Against independent computations: a predefined split of a kernel file, a
dissimilarity file and a feature file gives the test accuracy of scikit-learn's
GridSearchCV with the same inner StratifiedKFold on the training kernel, refitted
and predicting the test rows (the dissimilarity-linear test rows centered by
``dissimilarity_kernel(D_test, D_train=...)``, the feature test rows scaled by a
StandardScaler fitted on the training rows); "shuffle" cells split as
StratifiedShuffleSplit does; ``test_correct`` is the per-object record of the
predictions; bad test files are one line, exit 2, nothing written; the bundled
coilyork runs with its own split.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler

from krein.cli import main
from krein.compare import Comparison, run_comparison
from krein.experiment import build_estimator, classification_cell, classification_grid, outer_splits
from krein.kernel_data import InvalidArgument, load_feature_file, load_kernel_file
from krein.kernels import dissimilarity_kernel, pairwise_kernel

GRID = {"C": [0.1, 1.0, 10.0]}
SEED = 4


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two Gaussian classes (40 training, 20 test objects, 5 features) as a sigmoid kernel
    file, a Euclidean distance file and a feature file, each with a test part."""
    rng = np.random.default_rng(0)
    y = np.repeat([1, 2], 30)
    X = rng.normal(size=(60, 5)) + 0.8 * (y[:, None] == 2)
    X = 3.0 * X + 1.0  # not standardized: the test rows must use the training statistics
    perm = rng.permutation(60)
    tr, te = perm[:40], perm[40:]
    d = tmp_path_factory.mktemp("split")
    K = np.tanh(0.1 * X @ X.T - 1.0)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.save(d / "K.npy", K[np.ix_(tr, tr)])
    np.save(d / "K_test.npy", K[np.ix_(te, tr)])
    np.save(d / "D.npy", D[np.ix_(tr, tr)])
    np.save(d / "D_test.npy", D[np.ix_(te, tr)])
    (d / "y.txt").write_text("".join(f"{v}\n" for v in y[tr]))
    (d / "y_test.txt").write_text("".join(f"{v}\n" for v in y[te]))
    head = ",".join(f"f{j}" for j in range(5)) + ",label\n"
    for name, idx in (("train.csv", tr), ("test.csv", te)):
        (d / name).write_text(head + "".join(",".join(f"{v:.17g}" for v in X[i]) + f",{y[i]}\n"
                                             for i in idx))
    return {"dir": d, "X": X, "y": y, "tr": tr, "te": te, "K": K, "D": D}


def _cell(data_file, method="svm", grid=GRID, kernel=None):
    cells = classification_grid([{"dataset": "mine", "data_file": data_file}],
                                [{"method": method, "grid": grid}], [kernel],
                                outer_split="predefined", random_state=SEED)
    assert len(cells) == 1 and cells[0]["outer_folds"] == 1 and cells[0]["fold"] == 0
    return classification_cell({**cells[0], "seed": 0, "save_trace": False})


def _by_hand(K_tr, y_tr, K_te, method="svm", grid=GRID):
    """GridSearchCV with the cell's inner folds (cv_seed: random_state = seed + repeat)."""
    from krein.experiment.classification import _seeds

    est = build_estimator(method, random_state=_seeds({"seed": 0})["estimator"])
    search = GridSearchCV(est, grid, cv=StratifiedKFold(3, shuffle=True, random_state=SEED))
    search.fit(K_tr, y_tr)
    return search.predict(K_te), search.best_params_


def _check(out, pred, best, y_te):
    assert json.loads(out["best_params"]) == best
    assert out["n_test"] == len(y_te)
    assert out["accuracy"] == pytest.approx(np.mean(pred == y_te), abs=1e-12)
    assert out["test_correct"] == "".join("1" if ok else "0" for ok in pred == y_te)
    assert np.mean([c == "1" for c in out["test_correct"]]) == pytest.approx(out["accuracy"])


def test_kernel_file_split_is_gridsearchcv_on_the_training_kernel(files):
    d, K, y, tr, te = files["dir"], files["K"], files["y"], files["tr"], files["te"]
    out = _cell({"kind": "kernel", "path": str(d / "K.npy"), "labels": str(d / "y.txt"),
                 "test_path": str(d / "K_test.npy"), "test_labels": str(d / "y_test.txt")})
    pred, best = _by_hand(K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)])
    assert out["n_train"] == 40
    _check(out, pred, best, y[te])


def test_dissimilarity_file_split_uses_the_training_centering(files):
    """dissimilarity-linear: the test rows centered on the training objects; fixed C (the
    inner folds recompute the centering, which GridSearchCV's slices cannot); and the
    row-wise dissimilarity-gaussian tuned against GridSearchCV."""
    d, D, y, tr, te = files["dir"], files["D"], files["y"], files["tr"], files["te"]
    spec = {"kind": "dissimilarity", "path": str(d / "D.npy"), "labels": str(d / "y.txt"),
            "test_path": str(d / "D_test.npy"), "test_labels": str(d / "y_test.txt")}
    D_tr, D_te = D[np.ix_(tr, tr)], D[np.ix_(te, tr)]
    out = _cell(spec, grid={})
    K_tr = dissimilarity_kernel(D_tr, kind="linear")
    K_te = dissimilarity_kernel(D_te, kind="linear", D_train=D_tr)
    pred, best = _by_hand(0.5 * (K_tr + K_tr.T), y[tr], K_te, grid={"C": [1.0]})
    _check(out, pred, {}, y[te])

    gamma = 0.01
    out = _cell(spec, kernel={"kernel": "dissimilarity-gaussian", "params": {"gamma": gamma}})
    pred, best = _by_hand(np.exp(-gamma * D_tr ** 2), y[tr], np.exp(-gamma * D_te ** 2))
    _check(out, pred, best, y[te])


def test_feature_file_split_scales_with_the_training_rows(files):
    d, X, y, tr, te = files["dir"], files["X"], files["y"], files["tr"], files["te"]
    data = load_feature_file(d / "train.csv", test_path=d / "test.csv", kernel="gaussian",
                             kernel_params={"gamma": 0.1})
    scaler = StandardScaler().fit(X[tr])
    np.testing.assert_allclose(data.X, scaler.transform(X[tr]), atol=1e-10)
    np.testing.assert_allclose(data.X_test, scaler.transform(X[te]), atol=1e-10)
    assert data.n_samples == 40 and data.n_test == 20
    np.testing.assert_array_equal(data.y_test, y[te])
    K_tr = pairwise_kernel("gaussian", data.X, None, data.kernel_params)
    K_te = pairwise_kernel("gaussian", data.X_test, data.X, data.kernel_params)
    out = _cell({"kind": "features", "path": str(d / "train.csv"),
                 "test_path": str(d / "test.csv")},
                kernel={"kernel": "gaussian", "params": {"gamma": 0.1}})
    pred, best = _by_hand(K_tr, y[tr], K_te)
    _check(out, pred, best, y[te])


def test_test_blocks_follow_the_fold_rules(files):
    """test_blocks of a subset of the training objects: centering on that subset only."""
    d, D, tr, te = files["dir"], files["D"], files["tr"], files["te"]
    data = load_kernel_file(d / "D.npy", d / "y.txt", dissimilarity=True,
                            test_path=d / "D_test.npy", test_labels=d / "y_test.txt")
    sub = np.arange(0, 40, 2)
    K_tr, K_te = data.test_blocks(sub)
    D_sub = D[np.ix_(tr, tr)][np.ix_(sub, sub)]
    np.testing.assert_allclose(K_tr, dissimilarity_kernel(D_sub, kind="linear"), atol=1e-8)
    np.testing.assert_allclose(
        K_te, dissimilarity_kernel(D[np.ix_(te, tr)][:, sub], kind="linear", D_train=D_sub),
        atol=1e-8)
    plain = load_kernel_file(d / "K.npy", d / "y.txt")
    assert plain.n_test == 0 and plain.y_test is None
    with pytest.raises(ValueError, match="no predefined test part"):
        plain.test_blocks(sub)


def test_shuffle_cells_split_as_stratified_shuffle_split():
    cells = classification_grid(["sonar"], ["knn"], outer_split="shuffle", outer_folds=4,
                                repeats=2, test_size=0.25, random_state=SEED)
    assert len(cells) == 8
    assert {(c["outer_split"], c["test_size"]) for c in cells} == {("shuffle", 0.25)}
    y = np.repeat([0, 1], [40, 57])
    for r in (0, 1):
        cell = next(c for c in cells if c["repeat"] == r)
        ours = outer_splits({**cell, "seed": 0}, y)
        sss = StratifiedShuffleSplit(n_splits=4, test_size=0.25, random_state=SEED + r)
        theirs = list(sss.split(np.zeros((len(y), 1)), y))
        assert len(ours) == 4
        for (a, b), (c, e) in zip(ours, theirs):
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(b, e)
    # the default scheme stays out of the cells: their keys do not change
    kfold = classification_grid(["sonar"], ["knn"], random_state=SEED)
    assert not {"outer_split", "test_size"} & set(kfold[0])


def test_shuffle_cell_records_its_test_objects():
    cell = classification_grid(["sonar"], [{"method": "knn", "grid": {}}],
                               outer_split="shuffle", outer_folds=2, random_state=SEED)[1]
    out = classification_cell({**cell, "seed": 0, "save_trace": False})
    _, te = outer_splits({**cell, "seed": 0}, np.zeros(208))[1]  # only the count matters
    assert out["n_test"] == te.size == len(out["test_correct"])
    assert set(out["test_correct"]) <= {"0", "1"}
    assert out["accuracy"] == pytest.approx(out["test_correct"].count("1") / te.size)


@pytest.mark.parametrize("kwargs, match", [
    ({"outer_split": "predefined"}, "no predefined test part"),
    ({"outer_split": "holdout"}, "outer_split must be one of"),
    ({"outer_split": "shuffle", "test_size": 1.5}, "test_size"),
    ({"outer_split": "predefined", "outer_folds": 5}, "outer_folds must be 1"),
])
def test_bad_schemes_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        classification_grid(["sonar"], ["knn"], **kwargs)


def _cli(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    captured = capsys.readouterr()
    return exc.value.code, captured.err.strip(), captured.out


@pytest.mark.parametrize("case, flag, piece", [
    ("columns", "--test-kernel-file", "one column per training object (40"),
    ("nan", "--test-kernel-file", "NaN or inf"),
    ("count", "--test-labels", "19 labels for the 20 test rows"),
    ("unseen", "--test-labels", "no class of the training labels"),
    ("nolabels", "--test-labels", "come together"),
    ("cv", "--cv", "predefined train/test split"),
    ("features", "--test-data", "4 features; the training file"),
])
def test_bad_test_files_exit_2_one_line_nothing_written(files, case, flag, piece, tmp_path,
                                                        capsys):
    d = files["dir"]
    K_test, y_test = d / "K_test.npy", d / "y_test.txt"
    extra = []
    if case == "columns":
        K_test = tmp_path / "Kt.npy"
        np.save(K_test, np.load(d / "K_test.npy")[:, :39])
    elif case == "nan":
        K_test = tmp_path / "Kt.npy"
        M = np.load(d / "K_test.npy")
        M[3, 4] = np.nan
        np.save(K_test, M)
    elif case == "count":
        y_test = tmp_path / "yt.txt"
        y_test.write_text("".join(y_test_line for y_test_line in
                                  (d / "y_test.txt").read_text().splitlines(True)[:19]))
    elif case == "unseen":
        y_test = tmp_path / "yt.txt"
        y_test.write_text("3\n" + "".join((d / "y_test.txt").read_text().splitlines(True)[1:]))
    elif case == "cv":
        extra = ["--cv", "3"]
    out = tmp_path / "out"
    args = ["compare", "--kernel-file", str(d / "K.npy"), "--labels", str(d / "y.txt"),
            "--test-kernel-file", str(K_test), "--methods", "knn", "--no-tune",
            "--no-progress", "--out", str(out), *extra]
    if case != "nolabels":
        args += ["--test-labels", str(y_test)]
    if case == "features":  # a test feature file with a column fewer
        bad = tmp_path / "test.csv"
        bad.write_text("".join(",".join(line.split(",")[1:])
                               for line in (d / "test.csv").read_text().splitlines(True)))
        args = ["compare", "--data", str(d / "train.csv"), "--test-data", str(bad),
                "--methods", "knn", "--no-tune", "--no-progress", "--out", str(out)]
    code, err, stdout = _cli(args, capsys)
    assert code == 2
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith(f"krein compare: error: {flag}: "), err
    assert piece in err, err
    assert stdout == ""
    assert not out.exists()


def test_python_comparison_with_test_files(files, tmp_path):
    d = files["dir"]
    spec = Comparison(kernel_file=d / "K.npy", labels=d / "y.txt", methods="knn,svm",
                      test_kernel_file=d / "K_test.npy", test_labels=d / "y_test.txt",
                      tune=False)
    assert spec.outer_split == "predefined" and spec.outer_folds == 1
    res = run_comparison(spec, progress=False, out=tmp_path / "run")
    assert list(res.folds["n_test"]) == [20, 20] and list(res.folds["n_train"]) == [40, 40]
    page = (tmp_path / "run" / "report.html").read_text()
    assert "fitted on the training part (40), scored once on the test part (20)" in page
    with pytest.raises(InvalidArgument, match="repeats"):
        Comparison(kernel_file=d / "K.npy", labels=d / "y.txt", repeats=3,
                   test_kernel_file=d / "K_test.npy", test_labels=d / "y_test.txt")


def test_coilyork_compare_uses_its_own_split(capsys):
    """Orientation-independent: 144 training objects, 144 test objects, one fold."""
    assert main(["compare", "--dataset", "coilyork", "--methods", "knn,svm", "--no-tune",
                 "--no-progress", "--n-jobs", "1", "--no-save"]) == 0
    text = capsys.readouterr().out
    assert "fitted on the training part (144), scored once on the test part (144)" in text
    # one test split has no spread: the table shows the accuracy alone, not "± 0.0"
    rows = [t for t in text.splitlines() if t.split()[:1] in (["knn"], ["svm"])]
    assert len(rows) == 2 and not any("±" in t for t in rows), rows
    res = run_comparison("coilyork", methods="knn", tune=False, progress=False)
    assert res.data.n_samples == 144 and res.data.n_test == 144
    assert list(res.folds["n_train"]) == [144] and list(res.folds["n_test"]) == [144]


def test_test_correct_survives_the_results_file(files):
    """Folds whose first test object is wrong: folds.csv keeps the leading "0"."""
    d = files["dir"]
    res = run_comparison(Comparison(kernel_file=d / "K.npy", labels=d / "y.txt",
                                    methods="knn,svm,esvm", test_kernel_file=d / "K_test.npy",
                                    test_labels=d / "y_test.txt", tune=False),
                         progress=False)
    direct = [classification_cell(dict(c.params))["test_correct"] for c in res.experiment.cells]
    assert any(s.startswith("0") for s in direct)  # the case that loses its zeros
    assert list(res.folds["test_correct"]) == direct
