"""Checks of ``experiments/luss_table1.py`` (Luss & d'Aspremont 2007/2009 Table 1).

The script runs with ``--quick`` through the command line; each of its four
cells' extreme eigenvalues is recomputed here with ``scipy.linalg.eigvalsh``
on a kernel built by another path: the Simpson score from Python sets of
black pixels, the TD1 kernel from a per-pair ``numpy.linalg.lstsq`` on the
tangent matrices, the sigmoid and Epanechnikov kernels from their formulas.
The paper's printed numbers stored with each row are checked against the
papers' text.
"""

import pathlib

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist

from krein.experiment import import_script
from krein.kernels import tangent_vectors

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="module")
def quick(tmp_path_factory, run_quick_script):
    df, figures = run_quick_script("luss_table1", tmp_path_factory.mktemp("luss_table1"))
    assert "luss_table1.png" in figures
    return df


def _block(script, row):
    params = {k: row[k] for k in ("version", "row", "block", "n_sample", "seed")}
    params["version"] = str(params["version"])  # read back as an int
    params["n_sample"] = None if params["n_sample"] != params["n_sample"] else params["n_sample"]
    X, _ = script.load_rows(row["row"])
    return X[script.block_rows(params, len(X))]


def _check(row, K):
    lam = scipy.linalg.eigvalsh(K)
    assert row["n"] == len(K)
    assert row["lam_min"] == pytest.approx(lam[0], rel=1e-8, abs=1e-10)
    assert row["lam_max"] == pytest.approx(lam[-1], rel=1e-8)


def test_quick_eigenvalues_match_kernels_built_another_way(quick):
    script = import_script(EXPERIMENTS / "luss_table1.py")
    by_row = {r["row"]: r for _, r in quick.iterrows()}

    r = by_row["USPS-3-5-SS"]
    X = _block(script, r)
    sets = [set(np.flatnonzero(x > float(r["threshold"]))) for x in X]
    K = np.array([[len(a & b) / min(len(a), len(b)) for b in sets] for a in sets])
    _check(r, K)
    assert r["lam_min"] < 0  # the Simpson score is indefinite

    r = by_row["USPS-3-5-TD1"]
    X = _block(script, r)
    T = tangent_vectors(X, sigma=float(r["sigma"]))  # mixed column: read as text
    n = len(X)
    D = np.zeros((n, n))
    for i in range(n):
        coef, *_ = np.linalg.lstsq(T[i], (X - X[i]).T, rcond=None)  # every z at once, x = X[i]
        D[i] = np.linalg.norm(X[i][:, None] + T[i] @ coef - X.T, axis=0)
    _check(r, np.exp(-float(r["gamma"]) * ((D + D.T) / 2) ** 2))

    r = by_row["Diabetes-sig"]
    X = _block(script, r)
    a = 4.0 / X.shape[1]
    assert r["used_params"] == f"a={a:.6g}, r=-2"
    _check(r, np.tanh(a * X @ X.T - 2.0))

    r = by_row["Liver-EP"]
    X = _block(script, r)
    assert len(X) == 276
    sigma2 = 2.0 * X.shape[1]
    _check(r, np.maximum(0.0, 1.0 - cdist(X, X) ** 2 / sigma2))


def test_paper_numbers_are_the_printed_ones(quick):
    """The stored printed values, read off both papers' text."""
    papers = pathlib.Path("/work/shared/papers")
    script = import_script(EXPERIMENTS / "luss_table1.py")
    texts = {"2007": "luss-daspremont-2007-svm-indefinite-kernels-nips.txt",
             "2009": "luss-daspremont-2009-svm-indefinite-kernels-journal.txt"}
    if not (papers / texts["2009"]).is_file():
        pytest.skip("paper texts not available")
    for (version, row), (ntr, nte, lo, hi) in script.PAPER.items():
        text = (papers / texts[version]).read_text(errors="replace").replace("\u2212", "-")
        assert f"{hi:.2f}" in text, (version, row, hi)
        assert ntr + nte in {768, 345, 1000, 1605, 1540, 1686}
    for _, r in quick.iterrows():
        ntr, nte, lo, hi = script.PAPER[(str(r["version"]), r["row"])]
        assert (r["paper_lam_min"], r["paper_lam_max"]) == (lo, hi)
