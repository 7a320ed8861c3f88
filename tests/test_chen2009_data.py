"""The similarity sets of Chen et al. (2009) shipped as catalogue kind "similarity", and the
orientation of CoilYork's test block."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from krein.cli import main
from krein.datasets import (available_datasets, dataset_kind, list_datasets, load,
                            load_dataset, load_dissimilarity, load_similarity)
from krein.kernel_catalogue import available_kernels, default_kernel
from krein.kernel_data import InvalidArgument, load_kernel_data, load_kernel_file

REPO = Path(__file__).resolve().parents[1]
RAW = REPO.parent / "shared" / "data" / "chen2009"

# shared/data/MANIFEST.md §12: file, n, class counts (labels 1..k), negative eigenvalues,
# least and largest eigenvalue (4 significant digits), sha256 of the raw file
MANIFEST = {
    "aural-sonar": ("AuraSonar.mat", 100, (50, 50), 38, -2.096, 35.07,
                    "b7fc590266a9fa97f5d1154ffdb8160eed186579f526ffcf009e6c126e7e1cb5"),
    "protein-similarity": ("Protein.mat", 213, (72, 72, 39, 30), 40, -12.43, 72.00,
                           "3f180796d442e4f2613dbecca60e4e5cfe5a5f2e79b6c9f2f5202bc9e0daa9cc"),
    "voting": ("Voting.mat", 435, (267, 168), 163, -0.267, 239.3,
               "1d2eaf9d9a8a0d4ff1133552f147c59d330da679ef237e989fb90d59658a9464"),
    "yeast": ("Yeast.mat", 200, (100, 100), 96, -6.755, 107.9,
              "67ce55ce94f0ca016a0b07873d7a0c1bac553a62c677cb50f34ca56bcab91692"),
}


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_similarity_set_matches_the_manifest(name):
    """Size, class counts, exact symmetry, unit diagonal and spectrum as MANIFEST.md §12 says."""
    _, n, counts, n_neg, least, largest, _ = MANIFEST[name]
    S, y = load_similarity(name)
    assert S.shape == (n, n) and S.dtype == np.float64
    assert y.shape == (n,) and y.dtype == np.int64
    assert np.array_equal(np.unique(y), np.arange(1, len(counts) + 1))
    assert tuple(np.bincount(y)[1:].tolist()) == counts
    assert np.array_equal(S, S.T)
    assert np.all(np.diag(S) == 1.0) and S.min() >= 0.0 and S.max() <= 1.0
    w = np.linalg.eigvalsh(S)
    np.testing.assert_allclose([w[0], w[-1]], [least, largest], rtol=2e-3)
    # the eigenvalues between -1e-12 and 0 of the largest are round-off (Voting, Protein:
    # below 1e-16 of it); the ones counted are above 1e-10 of it in magnitude
    assert int((w < -1e-12 * w[-1]).sum()) == n_neg


@pytest.mark.skipif(not RAW.is_dir(), reason=f"raw data directory {RAW} not available")
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_similarity_set_is_the_published_file(name):
    """The loaded S and y are A and C of the raw .mat file (whose sha256 is the manifest's)."""
    scipy_io = pytest.importorskip("scipy.io")
    fname, *_, sha = MANIFEST[name]
    path = RAW / fname
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    m = scipy_io.loadmat(path)
    S, y = load_similarity(name)
    assert np.array_equal(S, m["A"]) and np.array_equal(y, m["C"].ravel())


def test_load_similarity_info_binary_and_errors():
    S, y, info = load_similarity("aural-sonar", return_info=True)
    assert info["name"] == "aural-sonar" and info["kind"] == "similarity"
    assert "Chen" in info["citation"] and "JMLR 10:747-776" in info["citation"]
    assert "Philips" in info["citation"]
    assert "not stated" in info["licence"]
    assert [s["sha256"] for s in info["sources"]] == [MANIFEST["aural-sonar"][-1]]
    assert info["n_samples"] == 100 and info["binary"] is None
    S[0, 0] = -1.0  # a copy: the next load is unchanged
    assert load_similarity("aural-sonar")[0][0, 0] == 1.0

    Sb, yb = load_similarity("protein-similarity", binary=((1, 2), (3, 4)))
    Sf, yf = load_similarity("protein-similarity")
    assert Sb.shape == (213, 213) and int((yb == 1).sum()) == 144
    Sb, yb = load_similarity("protein-similarity", binary=(1, 3))
    keep = np.isin(yf, (1, 3))
    assert np.array_equal(Sb, Sf[np.ix_(keep, keep)])
    assert np.array_equal(yb, np.where(yf[keep] == 1, 1, -1))

    with pytest.raises(ValueError, match="available datasets:.*yeast"):
        load_similarity("nope")
    with pytest.raises(ValueError, match=r"load_dissimilarity\('protein'\)"):
        load_similarity("protein")
    with pytest.raises(ValueError, match=r"load_similarity\('voting'\)"):
        load("voting")
    with pytest.raises(ValueError, match=r"load_similarity\('yeast'\)"):
        load_dissimilarity("yeast")
    with pytest.raises(ValueError, match="binary"):
        load_similarity("yeast", binary=(1, 5))


def test_catalogue_kind_and_kernel():
    names = ["aural-sonar", "protein-similarity", "voting", "yeast"]
    assert sorted(list_datasets("similarity")) == names
    listing = available_datasets()
    for name in names:
        assert dataset_kind(name) == "similarity"
        assert listing[name].startswith("[similarity]")
    assert available_kernels("similarity") == ("precomputed",)
    assert default_kernel("similarity") == "precomputed"
    data = load_dataset("yeast", n_samples=40, random_state=1)
    S, y = load_similarity("yeast")
    assert data.kind == "similarity" and data.X is None and data.D is None
    assert data.S.shape == (40, 40) and np.bincount(data.y)[1:].tolist() == [20, 20]
    # the stratified subsample is a principal submatrix of S
    keep, _ = train_test_split(np.arange(200), train_size=40, stratify=y, random_state=1)
    keep = np.sort(keep)
    assert np.array_equal(data.S, S[np.ix_(keep, keep)]) and np.array_equal(data.y, y[keep])
    with pytest.raises(InvalidArgument, match="kernel.*similarity data set.*precomputed"):
        load_kernel_data("voting", kernel="sigmoid")
    with pytest.raises(InvalidArgument, match="kernel_params"):
        load_kernel_data("voting", kernel_params={"a": 1.0})
    with pytest.raises(InvalidArgument, match="approximation.*kernel matrix"):
        load_kernel_data("voting", approximation="nystroem:10")


def test_kernel_data_is_the_published_matrix_like_a_kernel_file(tmp_path):
    """load_kernel_data('aural-sonar') holds S itself and hands out the same fold blocks as the
    same matrix given as a user's kernel file."""
    S, y = load_similarity("aural-sonar")
    data = load_kernel_data("aural-sonar")
    assert data.kernel == "precomputed" and data.kernel_params == {}
    assert not data.per_fold_kernel
    assert np.array_equal(data.K, S) and np.array_equal(data.y, y)
    assert "aural-sonar" in data.source and "Chen" in data.source
    np.save(tmp_path / "S.npy", S)
    file = load_kernel_file(tmp_path / "S.npy", y)
    assert data.kind == file.kind == "kernel"
    rng = np.random.default_rng(0)
    perm = rng.permutation(100)
    train, test = np.sort(perm[:70]), np.sort(perm[70:])
    for a, b in zip(data.blocks(train, test), file.blocks(train, test)):
        assert np.array_equal(a, b)
    K_tr, K_te = data.blocks(train, test)
    assert np.array_equal(K_tr, S[np.ix_(train, train)])
    assert np.array_equal(K_te, S[np.ix_(test, train)])
    for name in ("protein-similarity", "voting", "yeast"):
        d = load_kernel_data(name)
        assert np.array_equal(d.K, load_similarity(name)[0])


def test_compare_and_report_name_the_set_and_its_citation(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(["compare", "--dataset", "aural-sonar", "--methods", "svm,knn", "--no-tune",
               "--cv", "2", "--n-jobs", "1", "--out", str(out), "--no-progress"])
    text = capsys.readouterr().out
    assert rc == 0
    assert "dataset: aural-sonar" in text and "100 x 100 kernel matrix" in text
    assert "kernel:  precomputed" in text and "Chen" in text
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["data"]["name"] == "aural-sonar" and run["data"]["kernel"] == "precomputed"
    assert "Chen, Y., Garcia" in run["data"]["source"]
    assert "Chen, Y., Garcia" in (out / "report.html").read_text(encoding="utf-8")

    assert main(["datasets"]) == 0
    listed = capsys.readouterr().out
    for name in MANIFEST:
        assert any(line.startswith(name + " ") and "[similarity]" in line
                   for line in listed.splitlines()), name

    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "yeast", "--kernel", "sigmoid", "--no-save"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--kernel" in err and "precomputed" in err


def test_diagnose_similarity_set(tmp_path, capsys):
    assert main(["diagnose", "--dataset", "yeast", "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "yeast" in out and "least eigenvalue: -6.755" in out


# ---------------------------------------------------------------------------
# CoilYork: the test block has the test objects as rows
# ---------------------------------------------------------------------------
def test_coilyork_test_block_has_test_objects_as_rows():
    """Decided from the data: a training object's mean dissimilarity to the other training
    objects predicts its mean dissimilarity to the test objects (a property of the object),
    so the axis of the test block that follows the training objects is the one whose means
    correlate with the train block's row means.  In the returned block that must be the
    columns (training objects), not the rows (test objects)."""
    D_train, _ = load_dissimilarity("coilyork")
    D_test, y_test = load_dissimilarity("coilyork", split="test")
    m_train = D_train.mean(axis=1)
    by_column = np.corrcoef(D_test.mean(axis=0), m_train)[0, 1]  # per training object
    by_row = np.corrcoef(D_test.mean(axis=1), m_train)[0, 1]  # per test object: unrelated
    assert by_column > 0.95 and abs(by_row) < 0.5, (by_column, by_row)
    D_both, y_both = load_dissimilarity("coilyork", split="both")
    assert np.array_equal(D_both[144:], D_test) and np.array_equal(y_both[144:], y_test)
    # the SOURCES.json note documents it
    src = json.loads((REPO / "krein" / "datasets" / "data" / "SOURCES.json")
                     .read_text(encoding="utf-8"))["datasets"]["coilyork"]
    assert any("TRAINING objects as rows" in n and "transpose" in n for n in src["notes"])


def test_conversion_script_knows_the_chen_files():
    """convert_datasets.py checks the four raw files against the manifest's sha256 and writes
    them as kind "similarity" (the full conversion is checked by test_datasets.py when h5py
    and rdata are installed)."""
    spec = importlib.util.spec_from_file_location("convert_datasets",
                                                  REPO / "scripts" / "convert_datasets.py")
    conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conv)
    for name, (fname, *_, sha) in MANIFEST.items():
        assert conv.EXPECTED_SHA256[f"chen2009/{fname}"] == sha
        assert conv.META[name]["kind"] == "similarity"
        assert conv.META[name]["files"] == [f"chen2009/{fname}"]
    if RAW.is_dir():
        pytest.importorskip("scipy.io")
        arrays, counts = conv.CONVERTERS["yeast"](RAW.parent)
        assert sorted(arrays) == ["S", "y"] and counts == {"1": 100, "2": 100}
        S, y = load_similarity("yeast")
        assert np.array_equal(arrays["S"], S) and np.array_equal(arrays["y"], y)


def test_protein_similarity_saturates_between_hemoglobin_classes():
    """The documented quirk of the Protein matrix (SOURCES.json note): 420 off-diagonal
    entries equal the largest similarity 1, 388 of them between classes 1 and 2 (HA, HB)."""
    S, y = load_similarity("protein-similarity")
    i, j = np.nonzero((S == 1.0) & ~np.eye(213, dtype=bool))
    across = (y[i] == 1) & (y[j] == 2) | (y[i] == 2) & (y[j] == 1)
    assert len(i) == 420 and int(across.sum()) == 388
    note = load_similarity("protein-similarity", return_info=True)[2]["notes"]
    assert any("420 off-diagonal entries equal 1" in n for n in note)
