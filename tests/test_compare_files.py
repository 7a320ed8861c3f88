"""The researcher's own matrix through `krein compare` and `krein diagnose`:
every format, string labels into the output, every bad input a one-line error with exit
status 2 and nothing written, the output directory rules, the report page."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
import scipy.io

from krein.cli import main
from krein.kernel_data import load_kernel_data
from krein.kernels import dissimilarity_kernel

FAST = ["--methods", "esvm,clip,svm", "--cv", "3", "--grid", "C=0.1,1", "--no-progress"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Sonar (60 objects, the default sigmoid kernel) written as a user would write it."""
    d = tmp_path_factory.mktemp("own")
    data = load_kernel_data("sonar", n_samples=60, random_state=0)
    K = data.K
    names = np.where(data.y > 0, "mine", "rock")
    np.save(d / "K.npy", K)
    np.savetxt(d / "K.csv", K, delimiter=",", fmt="%.17g")
    scipy.io.savemat(d / "K.mat", {"K": K})
    (d / "labels.txt").write_text("\n".join(names) + "\n")
    X = data.X
    D = np.sqrt(np.maximum(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1), 0.0))
    np.fill_diagonal(D, 0.0)
    np.savetxt(d / "D.txt", D, fmt="%.17g")
    cols = [f"f{j}" for j in range(X.shape[1])]
    table = pd.DataFrame(X, columns=cols)
    table.insert(3, "class", names)
    table.to_csv(d / "features.csv", index=False)
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, data.y.astype(int), str(d / "features.svm"))
    return {"dir": d, "K": K, "D": D, "names": names, "X": X}


def _run(args, capsys):
    rc = main(args)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.mark.parametrize("name", ["K.npy", "K.csv", "K.mat", "K.mat:K"])
def test_kernel_file_formats_give_the_same_table(files, name, tmp_path, capsys):
    d = files["dir"]
    out = tmp_path / "run"
    rc, text, _ = _run(["compare", "--kernel-file", str(d / name), "--labels",
                        str(d / "labels.txt"), "--out", str(out), *FAST], capsys)
    assert rc == 0
    assert "dataset: K (kernel, 60 x 60 kernel matrix" in text
    assert "classes: mine: " in text and "rock: " in text
    assert "kernel:  precomputed" in text
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["method"]) == ["esvm", "clip", "svm"]
    assert (summary["status"] == "ok").all()
    run = json.loads((out / "run.json").read_text())
    assert sorted(c[0] for c in run["data"]["classes"]) == ["mine", "rock"]  # names kept
    assert run["data"]["kind"] == "kernel" and str(d / name.split(":")[0]) in run["data"]["source"]
    page = (out / "report.html").read_text()
    assert "mine" in page and "rock" in page and "esvm" in page
    # the same matrix in every format: the same per-fold table as the .npy run
    ref = tmp_path.parent / "ref-npy"
    if name == "K.npy":
        pd.read_csv(out / "folds.csv").to_csv(ref, index=False)
    elif ref.exists():
        cols = ["method", "fold", "accuracy", "best_params", "n_support"]
        pd.testing.assert_frame_equal(pd.read_csv(out / "folds.csv")[cols],
                                      pd.read_csv(ref)[cols])
    rc, text, _ = _run(["diagnose", "--kernel-file", str(d / name), "--labels",
                        str(d / "labels.txt"), "--plot", str(tmp_path / "spec.png")], capsys)
    assert rc == 0
    assert "signature (p, q, z)" in text and "r_neg" in text and "DCM" in text
    assert (tmp_path / "spec.png").read_bytes()[:4] == b"\x89PNG"


def test_distance_matrix_as_whitespace_text(files, tmp_path, capsys):
    d = files["dir"]
    out = tmp_path / "run"
    rc, text, _ = _run(["compare", "--kernel-file", str(d / "D.txt"), "--labels",
                        str(d / "labels.txt"), "--dissimilarity", "--out", str(out), *FAST],
                       capsys)
    assert rc == 0
    assert "kernel:  dissimilarity-linear" in text and "training centering" in text
    # the kernel on all objects is -1/2 J D^2 J of the file's distances
    lam = pd.read_csv(out / "spectrum.csv")["eigenvalue"].to_numpy()
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(dissimilarity_kernel(files["D"])),
                               atol=1e-8)
    rc, text, _ = _run(["diagnose", "--kernel-file", str(d / "D.txt"), "--labels",
                        str(d / "labels.txt"), "--dissimilarity", "--kernel",
                        "dissimilarity-gaussian", "--no-plot"], capsys)
    assert rc == 0 and "dissimilarity-gaussian" in text


@pytest.mark.parametrize("name, extra", [("features.csv", ["--label-column", "class"]),
                                         ("features.svm", [])])
def test_feature_files(files, name, extra, tmp_path, capsys):
    out = tmp_path / "run"
    rc, text, _ = _run(["compare", "--data", str(files["dir"] / name), *extra, "--out",
                        str(out), "--methods", "esvm", "--cv", "3", "--grid", "C=1",
                        "--no-progress"], capsys)
    assert rc == 0
    assert "dataset: features (vector, 60 x 60 features" in text
    assert "kernel grid: a in" in text  # kernel computed from features: its scale is tuned
    folds = pd.read_csv(out / "folds.csv")
    assert all("kernel_a" in json.loads(b) for b in folds["best_params"])


BAD = [
    # (matrix file, labels: None = the good ones, extra options, pieces of the message)
    ("nonsquare.npy", None, [], ["--kernel-file", "must be square", "60 x 59"]),
    ("nan.npy", None, [], ["--kernel-file", "NaN"]),
    ("asym.npy", None, [], ["--kernel-file", "not symmetric", "max |K - K'|", "--symmetrize"]),
    ("neg.txt", None, ["--dissimilarity"], ["--kernel-file", "negative"]),
    ("diag.txt", None, ["--dissimilarity"], ["--kernel-file", "diagonal"]),
    ("text.csv", None, [], ["--kernel-file", "text.csv"]),
    ("two.mat", None, [], ["--kernel-file", "two.mat", "A", "B"]),
    ("K.npy", "labels59", [], ["--labels", "59 labels for a 60 x 60 matrix"]),
    ("K.npy", "labels1", [], ["--labels", "class"]),
    ("K.npy", "nolabels", [], ["--labels"]),
]


def _bad_file(files, name, tmp_path):
    K, D = files["K"], files["D"]
    path = tmp_path / name
    if name == "nonsquare.npy":
        np.save(path, K[:, :59])
    elif name == "nan.npy":
        K2 = K.copy()
        K2[3, 4] = K2[4, 3] = np.nan
        np.save(path, K2)
    elif name == "asym.npy":
        K2 = K.copy()
        K2[2, 5] += 0.5
        np.save(path, K2)
    elif name == "neg.txt":
        D2 = D.copy()
        D2[1, 2] = D2[2, 1] = -1.0
        np.savetxt(path, D2)
    elif name == "diag.txt":
        D2 = D.copy()
        D2[7, 7] = 0.5
        np.savetxt(path, D2)
    elif name == "text.csv":
        path.write_text("1,2,3\n4,five,6\n7,8,9\n")
    elif name == "two.mat":
        scipy.io.savemat(path, {"A": K, "B": K})
    elif name == "K.npy":
        path = files["dir"] / "K.npy"
    return path


@pytest.mark.parametrize("name, labels, extra, pieces", BAD)
@pytest.mark.parametrize("command", ["compare", "diagnose"])
def test_bad_input_is_one_line_exit_2_nothing_written(files, name, labels, extra, pieces,
                                                      command, tmp_path, capsys):
    path = _bad_file(files, name, tmp_path)
    lab = files["dir"] / "labels.txt"
    if labels == "labels59":
        lab = tmp_path / "y59.txt"
        lab.write_text("\n".join(files["names"][:59]) + "\n")
    elif labels == "labels1":
        lab = tmp_path / "y1.txt"
        lab.write_text("a\n" * 60)
    args = [command, "--kernel-file", str(path), *extra]
    if labels != "nolabels":
        args += ["--labels", str(lab)]
    out = tmp_path / "out"
    args += (["--out", str(out), "--no-progress"] if command == "compare" else
             ["--plot", str(out / "spec.png")])
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith(f"krein {command}: error: ")
    for piece in pieces:
        assert piece in err, (piece, err)
    assert captured.out == ""
    assert not out.exists()  # nothing written


def test_symmetrize_is_recorded(files, tmp_path, capsys):
    path = _bad_file(files, "asym.npy", tmp_path)
    out = tmp_path / "run"
    rc, text, _ = _run(["compare", "--kernel-file", str(path), "--labels",
                        str(files["dir"] / "labels.txt"), "--symmetrize", "--out", str(out),
                        *FAST], capsys)
    assert rc == 0 and "symmetrized" in text
    run = json.loads((out / "run.json").read_text())
    assert any("symmetrized" in n for n in run["data"]["notes"])
    assert "symmetrized" in (out / "report.html").read_text()


@pytest.mark.parametrize("values", [("0.5", "1.5"), ("-2.25", "1e-3")])
def test_numeric_labels_are_class_names(files, values, tmp_path, capsys):
    """Labels 0.5 / 1.5 are two classes, as mine / rock are: StratifiedKFold and every
    classifier get class labels, never values they would refuse as 'continuous'."""
    d = files["dir"]
    lab = tmp_path / "y.txt"
    lab.write_text("\n".join(np.where(files["names"] == "mine", *values)) + "\n")
    args = ["--kernel-file", str(d / "K.npy"), "--methods", "svm,flip", "--cv", "2", "--no-tune",
            "--no-progress"]
    rc, _, err = _run(["compare", "--labels", str(lab), "--out", str(tmp_path / "num"), *args],
                      capsys)
    assert rc == 0, err
    rc, _, _ = _run(["compare", "--labels", str(d / "labels.txt"), "--out",
                     str(tmp_path / "names"), *args], capsys)
    assert rc == 0
    num, names = (pd.read_csv(tmp_path / r / "folds.csv") for r in ("num", "names"))
    assert num["error"].isna().all() and len(num) == len(names) == 4
    # the same folds and the same models: only the class names differ
    np.testing.assert_array_equal(num["accuracy"], names["accuracy"])
    classes = json.loads((tmp_path / "num" / "run.json").read_text())["data"]["classes"]
    assert sorted(c[0] for c in classes) == sorted(repr(float(v)) for v in values)


def test_every_fit_failing_exits_nonzero(tmp_path, capsys):
    # lp-svm rejects solver="libsvm": every fit fails
    rc, text, err = _run(["compare", "--dataset", "checkerboard", "--n-samples", "40",
                          "--methods", "lp-svm", "--solver", "libsvm", "--cv", "2",
                          "--no-tune", "--out", str(tmp_path / "r"), "--no-progress"], capsys)
    assert rc == 1
    assert "every fit failed" in err
    assert "errors in lp-svm" in text


def test_methods_needing_missing_inputs_are_skipped(tmp_path, capsys):
    rc, text, _ = _run(["compare", "--dataset", "checkerboard", "--n-samples", "40",
                        "--methods", "esvm,clc", "--cv", "2", "--no-tune", "--no-save",
                        "--no-progress"], capsys)
    assert rc == 0
    assert "skipped clc: needs base kernels" in text
    assert "errors in" not in text


def test_unexpected_errors_one_line_unless_debug(monkeypatch, capsys):
    import krein.compare

    def boom(*args, **kwargs):
        raise RuntimeError("something broke\non two lines")

    monkeypatch.setattr(krein.compare, "run_comparison", boom)
    assert main(["compare", "--no-save", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: something broke on two lines" in err
    assert "--debug" in err
    with pytest.raises(RuntimeError, match="something broke"):
        main(["--debug", "compare", "--no-save", "--no-progress"])
    with pytest.raises(RuntimeError, match="something broke"):
        main(["compare", "--no-save", "--no-progress", "--debug"])


def test_solver_output_does_not_reach_the_terminal(capfd):
    from krein._io import captured_stdout

    with captured_stdout() as caught:
        os.write(1, b"Running HiGHS 1.x: Copyright (c) HiGHS under MIT licence terms\n")
    assert "Running HiGHS" in caught.text()
    assert "HiGHS" not in capfd.readouterr().out


def test_progress_bar_names_the_running_method(capsys):
    from krein.compare import run_comparison

    run_comparison("checkerboard", n_samples=40, methods=["esvm", "clip"], outer_folds=2, tune=False,
                   progress=True)
    err = capsys.readouterr().err
    for label in ("running esvm (fold 1/2)", "running clip (fold 1/2)",
                  "running esvm (fold 2/2)", "running clip (fold 2/2)"):
        assert label in err, err[-500:]
    # cells run fold by fold: esvm's second fold starts after clip's first
    assert err.index("running clip (fold 1/2)") < err.index("running esvm (fold 2/2)")
