"""Tests for the command-line interface (krein.cli) and krein.compare, run in-process."""

from __future__ import annotations

import contextlib
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from krein.cli import main, parse_binary, parse_kernel_params
from krein.compare import (FOLD_COLUMNS, SUMMARY_COLUMNS, InvalidArgument, compare,
                           run_comparison)
from krein.kernel_data import default_kernel_params, load_kernel_data
from krein.kernels import dissimilarity_kernel

METHODS = ["esvm", "clip", "lp-svm"]


@pytest.fixture(scope="module")
def checkerboard_run(tmp_path_factory):
    """One small `krein compare` run on the checkerboard, shared by several tests."""
    out = tmp_path_factory.mktemp("cmp")
    buf = io.StringIO()  # capsys is function-scoped; this fixture is module-scoped
    with contextlib.redirect_stdout(buf):
        rc = main(["compare", "--dataset", "checkerboard", "--n-samples", "80",
                   "--kernel", "sigmoid", "--kernel-params", "a=1,r=-0.5",
                   "--methods", ",".join(METHODS), "--cv", "3", "--out", str(out),
                   "--grid", "C=0.1,1", "--no-progress"])
    return rc, buf.getvalue(), out


def test_compare_prints_table_and_writes_files(checkerboard_run):
    rc, text, out = checkerboard_run
    assert rc == 0
    assert "dataset: checkerboard" in text
    assert "sigmoid" in text and "a=1" in text and "r=-0.5" in text
    assert re.search(r"signature p/q/z = \d+/\d+/\d+", text)
    for m in METHODS:
        assert re.search(rf"^{re.escape(m)}\s+\d+\.\d ± \d+\.\d", text, re.M), m
    assert "C in {0.1, 1}" in text  # the --grid override of every method's C grid
    assert f"files written to {out}/" in text
    for name in ["summary.csv", "folds.csv", "spectrum.csv", "run.json", "points.csv",
                 "boundaries.csv", "accuracy.png", "spectrum.png", "boundaries.png",
                 "report.html"]:
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, name
        assert name in text
    assert (out / "accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "cells" / "results.csv").is_file()  # the runner's per-cell file
    assert not list(out.rglob("*.tmp")), "temporary files left behind"

    summary = pd.read_csv(out / "summary.csv")
    assert list(summary.columns) == SUMMARY_COLUMNS
    assert list(summary["method"]) == METHODS
    assert summary["accuracy_mean"].between(0, 1).all()
    assert (summary["n_errors"] == 0).all() and (summary["status"] == "ok").all()
    assert (summary["min_eigenvalue_mean"] < 0).all()  # the sigmoid kernel is indefinite here
    for b in summary["best_params"]:
        assert json.loads(b)["C"] in (0.1, 1)


def test_compare_refuses_to_overwrite_a_run(checkerboard_run, capsys):
    """A second run into the same --out is refused (exit 2, nothing touched) unless --force;
    without --out every run gets a new directory."""
    _, _, out = checkerboard_run
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "checkerboard", "--n-samples", "40", "--methods", "esvm",
              "--cv", "2", "--out", str(out), "--no-progress", "--no-tune"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--out" in err and "already holds a comparison" in err and "--force" in err
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
    from krein.compare import new_run_directory

    root = out.parent / "runs"
    first = new_run_directory("sonar", root)
    assert first == str(root / "sonar")
    (root / "sonar").mkdir(parents=True)
    (root / "sonar" / "summary.csv").write_text("x")
    assert new_run_directory("sonar", root) == str(root / "sonar-2")


def test_compare_same_folds_for_every_method(checkerboard_run):
    _, _, out = checkerboard_run
    folds = pd.read_csv(out / "folds.csv")
    # the file's columns: the in-memory table's, less the per-object records that
    # predictions.csv holds
    assert list(folds.columns) == [c for c in FOLD_COLUMNS
                                   if c not in ("test_correct", "test_predictions")]
    assert len(folds) == len(METHODS) * 3
    assert folds["accuracy"].between(0, 1).all()
    assert folds["n_train"].add(folds["n_test"]).eq(80).all()
    cols = ["repeat", "fold", "n_test", "min_eigenvalue"]
    per_method = {m: g.sort_values(["repeat", "fold"])[cols].to_numpy()
                  for m, g in folds.groupby("method")}
    ref = per_method[METHODS[0]]
    assert sorted(ref[:, 2]) == [26, 27, 27]
    for m in METHODS[1:]:
        np.testing.assert_array_equal(per_method[m], ref)


def test_compare_library_errors_become_rows():
    # lp-svm rejects solver="libsvm": every fit fails, recorded as rows, no crash.
    res = run_comparison("checkerboard", kernel_params={"a": 1.0, "r": -0.5}, n_samples=40,
                         methods=["svm", "lp-svm"], solver="libsvm", outer_folds=2, progress=False,
                         tune=False)
    s = res.summary.set_index("method")
    assert s.loc["lp-svm", "n_errors"] == 2 and np.isnan(s.loc["lp-svm", "accuracy_mean"])
    assert s.loc["svm", "n_errors"] == 0 and 0 <= s.loc["svm", "accuracy_mean"] <= 1
    errors = res.folds.loc[res.folds["method"] == "lp-svm", "error"]
    assert errors.str.contains("libsvm").all()


def test_compare_repeats_use_different_shuffles():
    kw = dict(kernel_params={"a": 1.0, "r": -0.5}, n_samples=40, methods=["svm"], outer_folds=3,
              repeats=3, progress=False, tune=False)
    table = compare("checkerboard", **kw)
    assert list(table.columns) == SUMMARY_COLUMNS
    assert table.attrs["repeats"] == 3 and table.attrs["kernel_params"] == {"a": 1.0, "r": -0.5}
    # The fold assignment, seen through the per-cell table of the same run (compare returns
    # its summary): the spectrum of a training block is a fingerprint of its training set
    # (invariant to the order of the rows, different for different sets of 26-27 of the 40
    # points).  A repeat's partition is the set of its folds' fingerprints.
    res = run_comparison("checkerboard", **kw)
    pd.testing.assert_frame_equal(res.summary.drop(columns="fit_seconds_mean"),
                                  table.drop(columns="fit_seconds_mean"))

    def partitions(folds):
        cols = ["min_eigenvalue", "r_mm", "r_neg"]
        return [frozenset(map(tuple, g.sort_values("fold")[cols].to_numpy()))
                for _, g in folds.groupby("repeat")]

    parts = partitions(res.folds)
    assert len(parts) == 3 and all(len(p) == 3 for p in parts)   # 3 distinct training sets each
    assert len(set(parts)) == 3, parts                           # every repeat a new shuffle
    # the same seed reproduces the folds exactly; the accuracies come from the same splits
    again = run_comparison("checkerboard", **kw)
    assert partitions(again.folds) == parts
    cols = ["repeat", "fold", "n_train", "n_test", "accuracy", "min_eigenvalue"]
    pd.testing.assert_frame_equal(again.folds[cols], res.folds[cols])


def test_dissimilarity_folds_use_training_centering():
    data = load_kernel_data("catcortex", binary="paper")
    assert data.kernel == "dissimilarity-linear" and data.per_fold_kernel
    tr, te = np.arange(0, 47, 2), np.arange(1, 47, 2)
    K_tr, K_te = data.blocks(tr, te)
    D_tr = data.D[np.ix_(tr, tr)]
    np.testing.assert_allclose(K_tr, dissimilarity_kernel(D_tr))
    np.testing.assert_allclose(K_te, dissimilarity_kernel(data.D[np.ix_(te, tr)], D_train=D_tr))


def test_compare_cli_dissimilarity(capsys):
    rc = main(["compare", "--dataset", "catcortex", "--binary", "paper", "--methods", "esvm,svm",
               "--cv", "3", "--no-save", "--no-progress", "--no-tune"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "dissimilarity-linear" in out and "training centering" in out
    assert re.search(r"^esvm\s+\d+\.\d ± ", out, re.M)


def test_diagnose_sonar(capsys):
    assert main(["diagnose", "--dataset", "sonar"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"signature \(p, q, z\): \((\d+), (\d+), (\d+)\)", out)
    assert m, out
    p, q, z = map(int, m.groups())
    assert p + q + z == 208
    # the default sigmoid kernel is clearly indefinite on standardized Sonar
    assert q >= 24
    least = float(re.search(r"least eigenvalue: (\S+)", out).group(1))
    assert least < -10
    assert "zero tolerance" in out and "r_mm" in out and "r_neg" in out and "DCM" in out
    assert default_kernel_params("sigmoid", 60) == {"a": 4 / 60, "r": -2.0}


def test_solvers_and_methods(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    for name in ["CLARABEL", "SCS", "libsvm"]:
        assert name in out
    assert re.search(r"^CLARABEL\s+yes\s+yes\s+yes\s+yes", out, re.M)
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    import krein

    for name in krein.list_methods():
        assert re.search(rf"^{re.escape(name)}\s", out, re.M)


@pytest.mark.parametrize("args, expected", [
    (["--dataset", "nope"], ["--dataset", "'nope'", "sonar", "checkerboard"]),
    (["--methods", "esvm,nope"], ["--methods", "'nope'", "esvm", "lp-svm"]),
    (["--kernel", "nope"], ["--kernel", "'nope'", "sigmoid"]),
    (["--dataset", "catcortex", "--kernel", "sigmoid"], ["--kernel", "dissimilarity-linear"]),
    (["--solver", "NOPE"], ["--solver", "NOPE", "CLARABEL", "libsvm"]),
    (["--kernel-params", "a=1,r"], ["--kernel-params", "name=value"]),
    (["--kernel-params", "b=1"], ["--kernel-params", "b", "accepted: a, r"]),
    (["--C", "0"], ["--C", "positive"]),
    (["--C", "-2"], ["--C", "positive"]),
    (["--cv", "1"], ["--cv", ">= 2"]),
    (["--cv", "x"], ["--cv", "invalid int"]),
    (["--binary", "nonsense"], ["--binary", "POS:NEG"]),
])
def test_bad_input_exits_2_with_one_line(capsys, args, expected):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--no-save", "--no-progress", *args])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("krein compare: error:")
    for piece in expected:
        assert piece in err, (piece, err)
    assert captured.out == ""


def test_bad_input_diagnose_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["diagnose", "--dataset", "nope"])
    assert exc.value.code == 2
    assert "--dataset" in capsys.readouterr().err


def test_library_validation_names_argument():
    with pytest.raises(InvalidArgument, match="C: must be a positive"):
        compare("checkerboard", n_samples=40, C=0.0, progress=False)
    with pytest.raises(ValueError, match="outer_folds"):
        compare("checkerboard", n_samples=40, outer_folds=1, progress=False)


def test_parsers():
    assert parse_kernel_params("a=0.5, r=-1,metric=l1") == {"a": 0.5, "r": -1, "metric": "l1"}
    assert parse_kernel_params("") == {}
    assert parse_binary("paper") == "paper"
    assert parse_binary("3:5") == (3, 5)
    assert parse_binary("1,2:3") == ((1, 2), 3)


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "compare" in capsys.readouterr().out


# --------------------------------------------------------------------------- diagnose: Haasdonk


def _table_value(out, criterion):
    """The value column of a `krein diagnose` criteria row (columns separated by 2+ spaces)."""
    m = re.search(rf"^{re.escape(criterion)}\s{{2,}}(.+?)\s{{2,}}", out, re.M)
    assert m, (criterion, out)
    return m.group(1)


def test_diagnose_prints_haasdonk_criteria(capsys):
    from sklearn.svm import SVC

    from krein.geometry import suitability_after, suitability_before

    argv = ["diagnose", "--dataset", "checkerboard", "--n-samples", "60",
            "--kernel-params", "a=1,r=-0.5", "--C", "0.5"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "DCM (squared pE distance" in out  # the existing output is kept
    assert "Haasdonk (2005) suitability criteria" in out
    assert "before training (§7.3)" in out and "after training (§7.4)" in out
    assert 'SVC(kernel="precomputed", C=0.5)' in out
    # the printed numbers are those of the library functions on the same kernel (the data
    # `krein compare` with the same options uses)
    from krein.compare import load_comparison_data

    data = load_comparison_data("checkerboard", kernel_params={"a": 1, "r": -0.5}, n_samples=60)
    b = suitability_before(data.K, data.y)
    assert _table_value(out, "pE signature (p, q), z = n - p - q") == (
        f"({b['p']}, {b['q']}), z = {b['z']}")
    assert _table_value(out, "negative eigenvalues: J K J (K)") == f"{b['q']} ({b['q_kernel']})"
    assert b["q"] > 0
    assert float(_table_value(out, "DCM = ||m+ - m-||^2_pE = c'Kc")) == pytest.approx(b["dcm"], rel=1e-3)
    assert _table_value(out, "-K conditionally PD (J K J <= 0)") == "no"
    assert _table_value(out, "K conditionally PD (J K J >= 0)") == "no"
    y = np.unique(data.y, return_inverse=True)[1]
    m = SVC(kernel="precomputed", C=0.5).fit(data.K, y)
    a = suitability_after(data.K, y, m.dual_coef_, m.support_, m.intercept_, 0.5)
    assert float(_table_value(out, "w'Mw = c'Kc (SVM normal, eq. 9)")) == pytest.approx(a["wMw"], rel=1e-3)
    assert _table_value(out, "support vectors, bounded (alpha = C)") == (
        f"{a['n_support']}, {a['n_bounded']}")
    errors = int(np.sum(m.predict(data.K) != y))
    assert _table_value(out, "training errors <= bounded SVs") == f"{errors} <= {a['n_bounded']}"
    assert errors <= a["n_bounded"]
    assert _table_value(out, "errors among alpha < C") == "0"


def test_diagnose_multiclass_skips_label_criteria(capsys):
    assert main(["diagnose", "--dataset", "catcortex"]) == 0
    out = capsys.readouterr().out
    assert "DCM: not defined for 4 classes" in out
    assert re.search(r"^pE signature \(p, q\), z = n - p - q\s+\(\d+, \d+\), z = \d+", out, re.M)
    assert "after training: not computed for 4 classes (use --binary)" in out
    assert "w'Mw = c'Kc" not in out


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_diagnose_bad_C_exits_2(capsys, value):
    with pytest.raises(SystemExit) as exc:
        main(["diagnose", "--dataset", "checkerboard", "--n-samples", "40", "--C", value])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("krein diagnose: error: --C: must be a positive")
    assert captured.out == ""


def test_compare_runs_the_krein_and_pseudo_euclidean_methods():
    """KSVM, CH-DU, Mod SVM and the RVM run through the comparison on Sonar and the
    checkerboard (RVC has no C: the comparison leaves it at its defaults)."""
    for dataset, n in (("sonar", 60), ("checkerboard", 60)):
        res = run_comparison(dataset, n_samples=n, methods=["ksvm", "ch", "mod-svm", "rvm"],
                             outer_folds=2, progress=False, tune=False)
        s = res.summary.set_index("method")
        assert (s["n_errors"] == 0).all(), res.folds["error"].tolist()
        assert s["accuracy_mean"].between(0, 1).all()


def test_compare_cli_pick_out_munoz_ionosphere(capsys):
    """`--kernel pick-out-munoz-ionosphere` on Ionosphere: raw features by default, the
    training blocks' r_mm/r_neg printed; a bad `scale` is a one-line usage error."""
    rc = main(["compare", "--dataset", "ionosphere", "--kernel", "pick-out-munoz-ionosphere",
               "--n-samples", "60", "--methods", "clip,svm", "--cv", "2", "--no-save",
               "--no-progress", "--no-tune"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "pick-out-munoz-ionosphere  scale=raw" in out and "raw features" in out
    assert re.search(r"training blocks .* r_mm = [\d.]+ ± [\d.e-]+ %, r_neg = ", out)
    assert not re.search(r"^errors in", out, re.M)
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "ionosphere", "--kernel", "pick-out-munoz-ionosphere",
              "--kernel-params", "scale=none", "--no-save", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("krein compare: error: --kernel-params")
    assert "raw, minmax, standard" in err
