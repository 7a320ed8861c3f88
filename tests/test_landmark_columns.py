"""Landmark columns from the user: the n x m block of kernel values or dissimilarities to m
landmark objects, read by ``load_landmark_file`` and compared by ``krein compare --landmarks``.

Checked against independent computations: the landmark MDS of de Silva & Tenenbaum (2004)
written out from its definition (the embedding ``-1/2 L# (delta_x - delta_mu)``), the exact
classical-scaling kernel ``-1/2 J D^2 J`` when every object is a landmark, and the Nyström
approximation ``C W^+ C'`` formed densely on a small problem.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from krein.approximation import IndefiniteNystroem
from krein.cli import main
from krein.estimators import ESVC
from krein.kernel_data import InvalidArgument, load_landmark_file
from krein.kernels import dissimilarity_kernel, sigmoid_kernel


def _points(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    X[n // 2:, 0] += 2.0
    y = np.repeat(["a", "b"], [n // 2, n - n // 2])
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) ** 1.5   # not Euclidean: q > 0
    return X, y, D


def _write(tmp_path, C, idx, y, name="C.npy"):
    np.save(tmp_path / name, C)
    np.savetxt(tmp_path / "idx.txt", idx, fmt="%d")
    (tmp_path / "y.txt").write_text("\n".join(y) + "\n")
    return tmp_path / name, tmp_path / "idx.txt", tmp_path / "y.txt"


def test_every_object_a_landmark_gives_the_exact_classical_scaling_kernel(tmp_path):
    _, y, D = _points()
    order = np.random.default_rng(1).permutation(D.shape[0])   # landmarks in any order
    data = load_landmark_file(*_write(tmp_path, D[:, order], order, y), dissimilarity=True)
    K = dissimilarity_kernel(D, kind="linear")
    np.testing.assert_allclose(data.X, K[:, order], atol=1e-12)
    np.testing.assert_allclose(data.landmark_block, K[np.ix_(order, order)], atol=1e-12)
    assert data.K is None and data.approximation == "landmarks"
    front = IndefiniteNystroem(kernel="precomputed", landmark_block=data.landmark_block,
                               rcond=1e-12).fit(data.X)
    F = front.transform(data.X)
    np.testing.assert_allclose((F * front.signs_) @ F.T, K, atol=1e-9 * np.abs(K).max())
    lam = np.linalg.eigvalsh(K)
    assert (front.signs_ < 0).sum() == (lam < -1e-9 * np.abs(lam).max()).sum() > 0


def test_landmark_mds_is_de_silva_and_tenenbaum(tmp_path):
    """The signed Nyström features of the landmark-centred kernel reproduce the landmark MDS
    embedding written from its definition: ``y_x = -1/2 L# (delta_x - delta_mu)`` with the
    landmark block's eigenpairs, in the signature of the landmark block."""
    _, y, D = _points(90, seed=2)
    idx = np.sort(np.random.default_rng(3).choice(90, size=25, replace=False))
    data = load_landmark_file(*_write(tmp_path, D[:, idx], idx, y), dissimilarity=True)
    front = IndefiniteNystroem(kernel="precomputed", landmark_block=data.landmark_block,
                               rcond=1e-10).fit(data.X)
    F = front.transform(data.X)
    # de Silva & Tenenbaum (2004): classical scaling of the landmarks, then triangulation
    Dm2 = D[np.ix_(idx, idx)] ** 2
    J = np.eye(25) - 1.0 / 25
    lam, V = np.linalg.eigh(-0.5 * J @ Dm2 @ J)
    keep = np.abs(lam) > 1e-10 * np.abs(lam).max()
    L_sharp = V[:, keep] / np.sqrt(np.abs(lam[keep]))
    delta_mu = Dm2.mean(axis=0)
    Y = -0.5 * (D[:, idx] ** 2 - delta_mu) @ L_sharp          # (n, r) embedding
    G = (Y * np.sign(lam[keep])) @ Y.T
    np.testing.assert_allclose((F * front.signs_) @ F.T, G, atol=1e-8 * np.abs(G).max())


def test_kernel_columns_are_the_nystroem_approximation(tmp_path):
    X, y, _ = _points(70, seed=4)
    idx = np.arange(0, 70, 5)
    C = sigmoid_kernel(X, X[idx], a=0.7, r=-0.5)
    data = load_landmark_file(*_write(tmp_path, C, idx, y))
    assert data.kernel == "precomputed"
    front = IndefiniteNystroem(kernel="precomputed", landmark_block=data.landmark_block,
                               rcond=1e-10).fit(data.X)
    F = front.transform(data.X)
    W = C[idx]
    dense = C @ np.linalg.pinv(W, rcond=1e-10, hermitian=True) @ C.T
    np.testing.assert_allclose((F * front.signs_) @ F.T, dense, atol=1e-7 * np.abs(dense).max())


@pytest.mark.parametrize("change, argument, piece", [
    (lambda C, idx: (C, idx + 1), "landmarks", "count from 0"),
    (lambda C, idx: (C, np.r_[idx[:-1], idx[0]]), "landmarks", "given twice"),
    (lambda C, idx: (C, idx[:-1]), "landmarks", "one index per column"),
    (lambda C, idx: (C + np.eye(*C.shape) * 0 + _asym(C, idx), idx), "kernel_file",
     "landmark block (the landmarks' rows) is not symmetric"),
    (lambda C, idx: (np.where(np.arange(C.shape[0])[:, None] == 0, np.nan, C), idx),
     "kernel_file", "NaN or inf"),
])
def test_bad_landmark_columns_are_one_line_naming_the_argument(tmp_path, change, argument,
                                                                 piece):
    _, y, D = _points(40)
    idx = np.arange(40)[::2][:20]
    idx = np.r_[idx[1:], 39]                                   # includes the last row
    C, bad_idx = change(D[:, idx], idx)
    with pytest.raises(InvalidArgument) as exc:
        load_landmark_file(*_write(tmp_path, C, bad_idx, y), dissimilarity=True)
    assert exc.value.argument == argument
    assert piece in str(exc.value) and "\n" not in str(exc.value)


def _asym(C, idx):
    E = np.zeros_like(C)
    E[idx[0], 1] = 0.5
    return E


def test_a_landmark_block_with_a_nonzero_diagonal_is_refused(tmp_path):
    _, y, D = _points(30)
    idx = np.arange(10)
    C = D[:, idx] + 0.0
    C[idx[3], 3] = 0.2
    with pytest.raises(InvalidArgument, match="landmark block's diagonal") as exc:
        load_landmark_file(*_write(tmp_path, C, idx, y), dissimilarity=True)
    assert exc.value.argument == "kernel_file"


def test_landmark_columns_in_a_pipeline_and_grid_search():
    """The front end built from precomputed columns takes a Pipeline and GridSearchCV: its
    folds slice rows only, and the landmarks need not be among them."""
    X, y, _ = _points(120, seed=5)
    idx = np.arange(0, 120, 4)
    C = sigmoid_kernel(X, X[idx], a=0.7, r=-0.5)
    est = ESVC(kernel="precomputed",
               approximation=IndefiniteNystroem(kernel="precomputed", landmark_block=C[idx]))
    search = GridSearchCV(est, {"C": [0.1, 1.0]}, cv=3).fit(C, y)
    assert search.best_score_ > 0.8
    pipe = make_pipeline(IndefiniteNystroem(kernel="precomputed", landmark_block=C[idx]))
    Psi = pipe.fit_transform(C)
    assert Psi.shape[0] == 120 and Psi.shape[1] <= idx.size


def _compare(tmp_path, *extra, cv=("--cv", "2")):
    out = tmp_path / "out"
    main(["compare", *extra, *cv, "--no-tune", "--no-progress", "--n-jobs", "1",
          "--out", str(out)])
    return out


def test_krein_compare_runs_on_landmark_columns(tmp_path, capsys):
    _, y, D = _points(80, seed=6)
    idx = np.arange(1, 80, 4)
    C_path, idx_path, y_path = _write(tmp_path, D[:, idx], idx, y)
    out = _compare(tmp_path, "--kernel-file", str(C_path), "--landmarks", str(idx_path),
                   "--labels", str(y_path), "--dissimilarity", "--methods", "esvm,flip")
    printed = capsys.readouterr().out
    assert "80 objects x 20 landmark columns" in printed
    assert "a landmark in a test fold is only a column" in printed
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["approximation"] == "landmarks"
    assert run["approximation"]["method"] == "landmark columns"
    assert run["approximation"]["n_components"] == 20
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["status"]) == ["ok", "ok"]
    assert (summary["accuracy_mean"] > 0.7).all()   # chance 0.5, Bayes about 0.84
    assert "its label is never used for training" in (out / "report.html").read_text()


def test_krein_compare_landmark_columns_with_a_test_part(tmp_path):
    _, y, D = _points(100, seed=7)
    train, test = np.arange(0, 100, 2), np.arange(1, 100, 2)
    idx_in_train = np.arange(0, 50, 5)
    landmarks = train[idx_in_train]
    C_path, idx_path, y_path = _write(tmp_path, D[np.ix_(train, landmarks)], idx_in_train,
                                      y[train])
    np.save(tmp_path / "T.npy", D[np.ix_(test, landmarks)])
    (tmp_path / "yt.txt").write_text("\n".join(y[test]) + "\n")
    out = _compare(tmp_path, "--kernel-file", str(C_path), "--landmarks", str(idx_path),
                   "--labels", str(y_path), "--dissimilarity", "--methods", "flip",
                   "--test-kernel-file", str(tmp_path / "T.npy"), "--test-labels",
                   str(tmp_path / "yt.txt"), cv=())
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv")
    assert summary["status"][0] == "ok" and summary["accuracy_mean"][0] > 0.7


@pytest.mark.parametrize("extra, piece", [
    (["--landmarks", "IDX"], "--landmarks"),
    (["--kernel-file", "C", "--labels", "Y", "--landmarks", "IDX", "--approximation",
      "nystroem:5"], "--approximation"),
    (["--kernel-file", "C", "--labels", "Y", "--landmarks", "BAD"], "--landmarks"),
    (["--kernel-file", "C", "--labels", "Y", "--landmarks", "IDX", "--test-kernel-file",
      "FULL", "--test-labels", "Y"], "--test-kernel-file"),
])
def test_bad_landmark_options_are_one_line_exit_2_nothing_written(tmp_path, capsys, extra,
                                                                 piece):
    _, y, D = _points(40)
    idx = np.arange(0, 40, 4)
    C_path, idx_path, y_path = _write(tmp_path, D[:, idx], idx, y)
    (tmp_path / "bad.txt").write_text("0\n1\n2\n")
    np.save(tmp_path / "full.npy", D)                    # 40 columns, not one per landmark
    names = {"C": str(C_path), "Y": str(y_path), "IDX": str(idx_path),
             "BAD": str(tmp_path / "bad.txt"), "FULL": str(tmp_path / "full.npy")}
    out = tmp_path / "out"
    cv = [] if "FULL" in extra else ["--cv", "2"]
    with pytest.raises(SystemExit) as exc:
        main(["compare", *[names.get(a, a) for a in extra], "--dissimilarity", *cv,
              "--no-tune", "--no-progress", "--n-jobs", "1", "--out", str(out)])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("krein compare: error: ") and piece in err, err
    assert not out.exists()


def test_krein_methods_says_each_methods_large_data_path(capsys):
    from krein.registry import approximation_defaults, list_methods

    assert main(["methods", "--large-data"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(list_methods())
    for name, line in zip(list_methods(), lines):
        assert line.split()[0] == name
        try:
            approximation_defaults(name)
        except ValueError:
            assert "no approximate path" in line, line
        else:
            assert "approximate path (landmark columns or nystroem:M)" in line, line
