"""`krein compare --approximation nystroem:M`: the comparison on data too large
for the n x n kernel.  The argument's errors (one line, exit 2, nothing written), the
same fold accuracies as the exact run when every training point is a landmark (the
approximation is then exact), methods without an approximate path skipped with the
reason, no n x n array anywhere (the kernel code paths forbidden; tracemalloc at
n = 20000), and the outputs saying the run was approximated."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from krein.cli import main
from krein.compare import FOLD_COLUMNS, SUMMARY_COLUMNS, InvalidArgument, run_comparison
from krein.experiment.classification import NO_APPROXIMATE_PATH
from krein.kernel_data import KernelData, check_approximation

# checkerboard, the default sigmoid kernel (a = 4/2, r = -2: strongly indefinite)
SMALL = dict(dataset="checkerboard", kernel="sigmoid", outer_folds=3, progress=False)


def _run(args, capsys):
    rc = main(args)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


# ---------------------------------------------------------------------------- the argument
@pytest.mark.parametrize("text, canonical", [("nystroem:1000", "nystroem:1000"),
                                             (" Nystroem:50:KMEANS++ ", "nystroem:50:kmeans++"),
                                             ("nystroem:7:uniform", "nystroem:7"),
                                             (None, None)])
def test_accepted_forms(text, canonical):
    assert check_approximation(text) == canonical


BAD = [
    (["--approximation", "nystroem"], "nystroem:M"),
    (["--approximation", "nystroem:0"], "integer >= 1"),
    (["--approximation", "nystroem:1.5"], "integer >= 1"),
    (["--approximation", "nystroem:-3"], "integer >= 1"),
    (["--approximation", "svd:10"], "nystroem:M"),
    (["--approximation", "nystroem:10:grid"], "kmeans++"),
    (["--approximation", "nystroem:10", "--dataset", "catcortex"], "dissimilarity matrix"),
    (["--approximation", "nystroem:10", "--kernel", "pick-out-linear"], "pick-out"),
    (["--approximation", "nystroem:10", "--methods", "svm"], "no approximate path"),
]


@pytest.mark.parametrize("args, piece", BAD)
def test_bad_approximation_is_one_line_exit_2_nothing_written(args, piece, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        main(["compare", *args, "--cv", "2", "--no-tune", "--no-progress", "--n-jobs", "1",
              "--out", str(out)])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("krein compare: error: --"), err
    assert ("--approximation" in err or "--methods" in err) and piece in err, err
    assert captured.out == ""
    assert not out.exists()


def test_matrices_are_not_approximated(tmp_path):
    K = np.eye(6)
    np.save(tmp_path / "K.npy", K)
    (tmp_path / "y.txt").write_text("a\nb\na\nb\na\nb\n")
    for extra in ({}, {"dissimilarity": True}):
        with pytest.raises(InvalidArgument, match="already n x n") as exc:
            run_comparison(kernel_file=tmp_path / "K.npy", labels=tmp_path / "y.txt",
                           approximation="nystroem:3", progress=False, **extra)
        assert exc.value.argument == "approximation"
    with pytest.raises(InvalidArgument, match="dissimilarity matrix") as exc:
        run_comparison("catcortex", approximation="nystroem:3", progress=False)
    assert exc.value.argument == "approximation"
    with pytest.raises(InvalidArgument, match="needs an approximation") as exc:
        run_comparison("checkerboard", n_samples=60, solver="liblinear", progress=False)
    assert exc.value.argument == "solver"


# ---------------------------------------------------------------------------- exactness
def test_all_landmarks_give_the_exact_runs_folds():
    """Every training point a landmark: the approximation is the training kernel itself
    (up to round-off), so ESVM, flip (raw test rows) and clip-mds (spectral) on it, solved
    by libsvm like the exact run, give the exact run's fold accuracies; the fold spectra
    are the training blocks'."""
    kw = dict(SMALL, n_samples=600, methods=["esvm", "flip", "clip-mds"], tune=False,
              solver="libsvm")
    exact = run_comparison(**kw)
    approx = run_comparison(approximation="nystroem:600", **kw)
    e, a = exact.folds, approx.folds
    assert (a["error"] == "").all(), a["error"].tolist()
    np.testing.assert_allclose(a["accuracy"], e["accuracy"], atol=0.01)
    np.testing.assert_allclose(a["min_eigenvalue"], e["min_eigenvalue"], rtol=1e-6)
    np.testing.assert_allclose(a["r_neg"], e["r_neg"], rtol=1e-6)
    assert a["n_support"].isna().all() and (a["solver_used"] == "libsvm").all()
    assert approx.summary.attrs["approximation"] == "nystroem:600"
    assert exact.summary.attrs["approximation"] is None
    assert approx.summary["note"].str.startswith("approximation nystroem:600").all()


# ---------------------------------------------------------------------------- methods
def test_methods_without_an_approximate_path_are_skipped():
    res = run_comparison(**SMALL, n_samples=150, tune=False, approximation="nystroem:40",
                         methods=["esvm", "svm"])
    s = res.summary.set_index("method")
    assert list(res.summary.columns) == SUMMARY_COLUMNS
    assert list(res.folds.columns) == FOLD_COLUMNS
    assert s.loc["esvm", "status"] == "ok"
    for m in ("svm",):
        assert s.loc[m, "status"] == "skipped"
        assert s.loc[m, "note"].startswith(NO_APPROXIMATE_PATH + " (libsvm's SMO")
        assert res.skipped[m] == s.loc[m, "note"]
    assert res.methods == ["esvm"] and set(res.folds["method"]) == {"esvm"}
    # no solver given: the approximate default, recorded
    assert (res.folds["solver_used"] == "liblinear").all()
    assert "solver liblinear" in s.loc["esvm", "note"]


def test_approximate_defaults_of_the_methods():
    """No solver given: liblinear for ESVM, ESVM-L and the corrections, the interior point for KSVM;
    clip maps test rows spectrally (its raw map needs dual coefficients), flip keeps raw;
    the direct SVM (the raw indefinite kernel) is skipped with its reason."""
    res = run_comparison(**SMALL, n_samples=300, tune=False, approximation="nystroem:50",
                         methods=["esvm", "flip", "clip", "ksvm", "svm", "esvm-l"])
    s = res.summary.set_index("method")
    ran = ["esvm", "flip", "clip", "ksvm", "esvm-l"]
    assert (s.loc[ran, "status"] == "ok").all(), s["note"]
    used = res.folds.groupby("method")["solver_used"].agg(set).to_dict()
    assert used == {"esvm": {"liblinear"}, "flip": {"liblinear"}, "clip": {"liblinear"},
                    "ksvm": {"interior-point"}, "esvm-l": {"liblinear"}}
    assert "out_of_sample='spectral'" in s.loc["clip", "note"]
    assert "out_of_sample" not in s.loc["flip", "note"]
    assert "interior point" in s.loc["ksvm", "note"]
    assert s.loc["svm", "status"] == "skipped"
    assert s.loc["svm", "note"].startswith(NO_APPROXIMATE_PATH + " (libsvm's SMO")
    assert (s.loc[["esvm", "flip", "clip", "ksvm"], "accuracy_mean"] > 0.7).all()


# ---------------------------------------------------------------------------- no n x n
def test_no_kernel_matrix_anywhere_with_tuning_and_outputs(monkeypatch, tmp_path, capsys):
    """The kernel-matrix code paths raise: an approximated run (kernel grid, inner CV,
    boundaries, report page, CLI) never reaches them."""
    import krein.kernel_data as kd
    import krein.spectrum as sp

    def forbidden(*args, **kwargs):
        raise AssertionError("an n x n kernel was built in an approximated run")

    monkeypatch.setattr(kd, "_compute_kernel", forbidden)
    monkeypatch.setattr(sp.Spectrum, "from_kernel", classmethod(forbidden))
    monkeypatch.setattr(KernelData, "blocks", forbidden)
    out = tmp_path / "run"
    rc, text, err = _run(["compare", "--dataset", "checkerboard", "--n-samples", "240",
                          "--kernel", "sigmoid", "--approximation", "nystroem:30",
                          "--methods", "esvm,svm", "--cv", "2", "--grid", "C=0.1,10",
                          "--n-jobs", "1", "--no-progress", "--out", str(out)], capsys)
    assert rc == 0, err
    assert "approximation: nystroem:30" in text
    assert "spectrum of the nystroem:30 approximation" in text
    assert f"skipped svm: {NO_APPROXIMATE_PATH}" in text
    folds = pd.read_csv(out / "folds.csv", keep_default_na=False)
    assert (folds["error"] == "").all()
    assert folds["best_params"].str.contains("kernel_a").all()  # the kernel grid was tuned
    run = json.loads((out / "run.json").read_text())
    assert run["protocol"]["approximation"] == "nystroem:30"
    assert run["approximation"]["n_components"] == 30
    assert run["spectrum"]["approximation"] == "nystroem:30"
    assert run["spectrum"]["n"] == 240 and run["spectrum"]["rank"] <= 30
    assert len(pd.read_csv(out / "spectrum.csv")) == run["spectrum"]["rank"]
    page = (out / "report.html").read_text()
    assert "nystroem:30 approximation" in page and (out / "boundaries.png").exists()


def test_memory_at_n_20000_stays_far_below_n_squared():
    """n = 20000: a kernel matrix would take 8 n^2 = 3.2 GB; the whole comparison (data,
    spectrum of the approximation, two folds of ESVM with 200 landmarks) stays below
    400 MB of Python-visible allocations (NumPy reports its arrays to tracemalloc)."""
    tracemalloc.start()
    try:
        res = run_comparison("checkerboard", n_samples=20000, kernel="sigmoid", outer_folds=2,
                             methods=["esvm"], tune=False, progress=False,
                             approximation="nystroem:200")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.summary["status"].iloc[0] == "ok", res.summary["note"].iloc[0]
    assert peak < 400e6, f"peak {peak / 1e6:.0f} MB"
    assert res.summary["accuracy_mean"].iloc[0] > 0.8


# ---------------------------------------------------------------------------- size limits
def test_size_limit_skips_a_default_method_above_it_and_runs_it_when_named(monkeypatch):
    """A method whose approximate path declares a size limit (the RVM's) is skipped from the
    default list above it, with the reason, and runs at any size when named in ``methods``."""
    import krein.compare as cmp

    monkeypatch.setattr(cmp, "check_methods", lambda methods, task: tuple(methods or
                                                                          ("esvm", "flip")))
    limits = {"flip": (50, "grows too fast")}
    monkeypatch.setattr(cmp, "approximate_size_limit", lambda m: limits.get(m))
    kw = dict(**SMALL, n_samples=150, tune=False, approximation="nystroem:40")   # n_train 100
    res = run_comparison(**kw)
    s = res.summary.set_index("method")
    assert s.loc["esvm", "status"] == "ok" and s.loc["flip", "status"] == "skipped"
    assert "above 50 training objects" in s.loc["flip", "note"]
    assert "grows too fast" in s.loc["flip", "note"] and "--methods" in s.loc["flip", "note"]
    assert res.methods == ["esvm"]
    named = run_comparison(**kw, methods=["esvm", "flip"]).summary.set_index("method")
    assert (named["status"] == "ok").all()
    limits["flip"] = (100, "grows too fast")          # at the limit: runs
    assert (run_comparison(**kw).summary["status"] == "ok").all()


def test_rvm_declares_its_size_limit():
    from krein.registry import RVM_APPROXIMATE_MAX_N, approximate_size_limit, large_data_path

    n, reason = approximate_size_limit("rvm")
    assert n == RVM_APPROXIMATE_MAX_N and "Tipping & Faul" in reason
    assert f"up to {n} training objects" in large_data_path("rvm")
    assert approximate_size_limit("esvm") is None
