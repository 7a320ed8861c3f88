"""An honest status: warnings and failed inner fits are counted, never "ok".

Fault injection as in tests/test_faults_*.py: a registered method whose refit raises a
``ConvergenceWarning`` in every fit, and one whose fit fails at one point of its grid.
``summary.csv`` counts them per method, the status column of the terminal table and the
page say ``warning (...)``, the page's badge is not the green "ok".  Also: ``--grid``
values checked like every other option, and the one-line warning for a distance matrix
given as a kernel.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from krein import DirectSVC, registry
from krein.cli import main
from krein.cli_format import comparison_lines
from krein.compare import run_comparison


class _WarningSVC(DirectSVC):
    """DirectSVC that reports ``max_iter`` reached on every fit."""

    def fit(self, K, y):
        warnings.warn("max_iter reached (injected)", ConvergenceWarning)
        return super().fit(K, y)


class _FailingSVC(DirectSVC):
    """DirectSVC that cannot be fitted at C > 5 (a failing grid point)."""

    def fit(self, K, y):
        if self.C > 5:
            raise RuntimeError("injected failure at C > 5")
        return super().fit(K, y)


def _data(directory, n=30, distance=False):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    y[:4], y[4:8] = 1, -1
    if distance:
        K = 100 * np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    else:
        K = np.tanh(X @ X.T - 0.5)
    np.save(directory / "K.npy", K)
    np.savetxt(directory / "y.txt", y, fmt="%d")
    return str(directory / "K.npy"), str(directory / "y.txt")


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """A comparison of svm (clean), a method that warns and one that fails at C > 5."""
    d = tmp_path_factory.mktemp("honest")
    K, y = _data(d)
    base = registry.method_entry("svm")
    with pytest.MonkeyPatch.context() as mp:  # registered while the tests read the result
        mp.setitem(registry._REGISTRY, "warns", dataclasses.replace(base, factory=_WarningSVC))
        mp.setitem(registry._REGISTRY, "fails", dataclasses.replace(base, factory=_FailingSVC))
        yield run_comparison(kernel_file=K, labels=y, methods=["svm", "warns", "fails"],
                             outer_folds=2, inner_folds=2, grid={"C": [1.0, 10.0]},
                             progress=False, out=str(d / "run"))


def test_summary_counts_warnings_and_inner_failures(faulty):
    s = faulty.summary.set_index("method")
    assert s.loc["svm", "status"] == "ok"
    assert s.loc["svm", ["n_warnings", "n_not_converged", "n_inner_failures"]].sum() == 0
    # every fit warns: both refits, and the 2 x 2 inner fits of each outer fold
    assert s.loc["warns", "status"] == "warning"
    assert s.loc["warns", "n_warnings"] == 2 and s.loc["warns", "n_not_converged"] == 2
    assert s.loc["warns", "n_inner_warnings"] == 2 * 2 * 2
    assert s.loc["warns", "n_errors"] == 0
    # C = 10 fails in every inner fit: counted, and C = 1 chosen
    assert s.loc["fails", "status"] == "warning"
    assert s.loc["fails", "n_inner_failures"] == 2 * 2
    assert s.loc["fails", "n_errors"] == 0
    assert set(faulty.folds.loc[faulty.folds["method"] == "fails", "best_params"]) == {
        '{"C": 1.0}'}


def test_summary_csv_and_status_column(faulty):
    saved = pd.read_csv(f"{faulty.directory}/summary.csv").set_index("method")
    assert saved.loc["warns", "n_not_converged"] == 2
    assert saved.loc["fails", "n_inner_failures"] == 4
    table = "\n".join(comparison_lines(faulty))
    assert "warning (2/2 not converged; 8 inner warnings)" in table
    assert "warning (4 inner fits failed)" in table
    assert "warnings in warns (2 of 2 fits), first: ConvergenceWarning" in table
    # and why the inner fits failed, as the errors and warnings of the refits are named
    assert ("inner fits failed in fails (4, in 2 of 2 folds), first: RuntimeError: injected "
            "failure at C > 5") in table


def test_why_the_inner_fits_failed_is_recorded_and_shown(faulty):
    """Each fold keeps the first failed inner fit's exception (``inner_error``, one line);
    the page's fold table shows it beside the count, so "4 inner fits failed" says why."""
    folds = faulty.folds.set_index("method")
    assert set(folds.loc["fails", "inner_error"]) == {
        "RuntimeError: injected failure at C > 5"}
    assert set(folds.loc[["svm", "warns"], "inner_error"]) == {""}
    saved = pd.read_csv(f"{faulty.directory}/folds.csv", keep_default_na=False)
    assert set(saved.loc[saved["method"] == "fails", "inner_error"]) == {
        "RuntimeError: injected failure at C > 5"}
    with open(f"{faulty.directory}/report.html") as fh:
        page = fh.read()
    folds_table = page[page.index('<details id="folds">'):]
    shown = "2 inner fits failed, the first: RuntimeError: injected failure at C &gt; 5"
    assert folds_table.count(shown) == 2 * 2   # two folds: the cell's text and its title


def test_page_badge_is_not_ok(faulty):
    with open(f"{faulty.directory}/report.html") as fh:
        page = fh.read()
    row = page[page.index('data-method="warns"'):]
    row = row[:row.index("</tr>")]
    assert '<span class="badge warning">warning</span>' in row
    assert "2/2 not converged" in row and 'badge ok' not in row
    assert "2 with warnings" in page


@pytest.mark.parametrize("grid", ["C=0.1,abc", "C=-1,1", "C=0,1", "rho=0,1"])
def test_bad_grid_values_exit_2_and_write_nothing(grid, tmp_path, capsys):
    K, y = _data(tmp_path, n=12)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--kernel-file", K, "--labels", y, "--methods", "svm,indefinite-svm",
              "--grid", grid, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("krein compare: error: --grid:")
    assert grid.split("=")[0] in err and "Traceback" not in err
    assert not out.exists()


def test_bad_kernel_grid_value_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "sonar", "--n-samples", "30", "--methods", "svm",
              "--grid", "a=abc", "--no-save", "--no-progress"])
    assert exc.value.code == 2
    assert "--grid: a='abc'" in capsys.readouterr().err


def test_distance_matrix_given_as_kernel_warns_once(tmp_path, capsys):
    K, y = _data(tmp_path, n=20, distance=True)
    rc = main(["compare", "--kernel-file", K, "--labels", y, "--methods", "svm", "--cv", "2",
               "--no-tune", "--out", str(tmp_path / "out"), "--no-progress", "--n-jobs", "1"])
    err = capsys.readouterr().err
    assert rc == 0
    lines = [t for t in err.splitlines() if "--dissimilarity" in t]
    assert len(lines) == 1 and lines[0].startswith("krein compare: warning: ")
    assert "zero diagonal" in lines[0]
    with open(tmp_path / "out" / "report.html") as fh:
        page = fh.read()
    assert 'id="diagnosis"' in page and "--dissimilarity" in page


def test_a_kernel_does_not_warn(tmp_path):
    from krein.diagnosis import DistanceAsKernelWarning

    K, y = _data(tmp_path, n=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DistanceAsKernelWarning)
        res = run_comparison(kernel_file=K, labels=y, methods=["svm"], outer_folds=2,
                             tune=False, progress=False)
    assert res.diagnosis["distance_like"] is False
