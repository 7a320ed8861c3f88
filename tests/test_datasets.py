"""Tests for krein.datasets (shipped data, loaders, checkerboard generator)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from krein.datasets import (
    PAPER_SPLITS,
    USPS_PAPER_PAIRS,
    list_datasets,
    load,
    load_dissimilarity,
    load_similarity,
    make_checkerboard,
)

REPO = Path(__file__).resolve().parents[1]
RAW_DATA = REPO.parent / "shared" / "data"
DATA = files("krein.datasets") / "data"

VECTOR = ["sonar", "heart", "breast_cancer", "wdbc", "diabetes", "ionosphere", "german", "liver", "a1a", "usps"]
DISSIM = ["catcortex", "balls3d", "newsgroups", "protein", "coilyork"]
SIMILARITY = ["aural-sonar", "protein-similarity", "voting", "yeast"]
REGRESSION = ["liver-drinks"]       # vector sets with real targets (a column of another's file)

# name -> (shape, n_positive, n_negative) with the default mapping (MANIFEST.md counts)
EXPECTED_VECTOR = {
    "sonar": ((208, 60), 111, 97),  # M / R
    "heart": ((270, 13), 120, 150),  # present(2) / absent(1)
    "breast_cancer": ((683, 9), 239, 444),  # 16 rows with '?' dropped: 241-2 / 458-14
    "wdbc": ((569, 30), 212, 357),
    "diabetes": ((768, 8), 268, 500),
    "ionosphere": ((351, 34), 225, 126),
    "german": ((1000, 24), 300, 700),
    "liver": ((345, 6), 200, 145),
    "a1a": ((1605, 123), 395, 1210),
}

USPS_TRAIN = [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
USPS_TEST = [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]


# ---------------------------------------------------------------------------
# listing and errors
# ---------------------------------------------------------------------------
def test_list_datasets():
    d = list_datasets()
    assert sorted(d) == sorted(VECTOR + DISSIM + SIMILARITY + REGRESSION)
    for n in VECTOR + REGRESSION:
        assert d[n].startswith("[vector]")
    for n in DISSIM:
        assert d[n].startswith("[dissimilarity]")
    for n in SIMILARITY:
        assert d[n].startswith("[similarity]")
    assert sorted(list_datasets("dissimilarity")) == sorted(DISSIM)
    assert sorted(list_datasets("similarity")) == sorted(SIMILARITY)
    with pytest.raises(ValueError, match="kind"):
        list_datasets("matrix")


def test_unknown_name_lists_available():
    with pytest.raises(ValueError, match="available datasets:.*sonar") as e:
        load("nope")
    assert "protein" in str(e.value)
    with pytest.raises(ValueError, match="available datasets"):
        load_dissimilarity("nope")
    with pytest.raises(ValueError, match="load_dissimilarity"):
        load("protein")
    with pytest.raises(ValueError, match="load\\("):
        load_dissimilarity("sonar")


def test_public_docstrings_numpydoc():
    for f in (list_datasets, load, load_dissimilarity, load_similarity, make_checkerboard):
        doc = f.__doc__
        assert "Parameters\n    ----------" in doc and "Returns\n    -------" in doc
        assert "Raises\n    ------" in doc


# ---------------------------------------------------------------------------
# vector sets
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED_VECTOR))
def test_vector_shapes_and_counts(name):
    shape, npos, nneg = EXPECTED_VECTOR[name]
    X, y, info = load(name, return_info=True)
    assert X.shape == shape and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.shape == (shape[0],) and y.dtype == np.int64
    assert set(np.unique(y).tolist()) == {-1, 1}
    assert int((y == 1).sum()) == npos and int((y == -1).sum()) == nneg
    assert np.all(np.isfinite(X))
    for key in ("citation", "licence", "sources", "notes", "label_mapping"):
        assert info[key]
    assert sorted(info["label_mapping"].values()) == [-1, 1]
    assert all(len(s["sha256"]) == 64 for s in info["sources"])


def test_default_label_mappings():
    assert load("sonar", return_info=True)[2]["label_mapping"] == {"M": 1, "R": -1}
    assert load("heart", return_info=True)[2]["label_mapping"] == {2: 1, 1: -1}
    assert load("breast_cancer", return_info=True)[2]["label_mapping"] == {4: 1, 2: -1}
    assert load("ionosphere", return_info=True)[2]["label_mapping"] == {"g": 1, "b": -1}
    assert load("german", return_info=True)[2]["label_mapping"] == {2: 1, 1: -1}
    assert load("liver", return_info=True)[2]["label_mapping"] == {2: 1, 1: -1}
    # swapping the pair flips the signs
    _, y = load("sonar")
    _, y2 = load("sonar", binary=("R", "M"))
    np.testing.assert_array_equal(y2, -y)


def test_breast_cancer_missing_policies():
    X, y = load("breast_cancer")
    assert X.shape == (683, 9)
    Xm, ym = load("breast_cancer", missing="median")
    assert Xm.shape == (699, 9) and not np.isnan(Xm).any()
    assert int((ym == 1).sum()) == 241 and int((ym == -1).sum()) == 458
    Xk, _ = load("breast_cancer", missing="keep")
    nan = np.isnan(Xk)
    assert nan.sum() == 16 and set(np.nonzero(nan)[1].tolist()) == {5}
    med = np.median(Xk[~nan[:, 5], 5])
    np.testing.assert_array_equal(Xm[nan[:, 5], 5], med)
    np.testing.assert_array_equal(Xm[~nan[:, 5]], X)
    with pytest.raises(ValueError, match="missing"):
        load("breast_cancer", missing="mean")


def test_a1a_splits():
    X, y = load("a1a", split="train")
    assert X.shape == (1605, 123) and int((y == 1).sum()) == 395
    assert set(np.unique(X).tolist()) == {0.0, 1.0}
    assert X[:, 119:].sum() == 0  # largest used 1-based index is 119
    Xt, yt = load("a1a", split="test")
    assert Xt.shape == (30956, 123) and int((yt == 1).sum()) == 7446 and int((yt == -1).sum()) == 23510
    np.testing.assert_array_equal(load("a1a")[0], X)  # default split is train
    # first line of the file: -1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1
    assert y[0] == -1
    assert np.nonzero(X[0])[0].tolist() == [i - 1 for i in (3, 11, 14, 19, 39, 42, 55, 64, 67, 73, 75, 76, 80, 83)]


def test_usps():
    X, y = load("usps")
    assert X.shape == (7291, 256) and X.dtype == np.float64
    assert np.bincount(y).tolist() == USPS_TRAIN
    assert X.min() >= 0.0 and X.max() <= 1.0
    Xt, yt = load("usps", split="test")
    assert Xt.shape == (2007, 256) and np.bincount(yt).tolist() == USPS_TEST
    Xb, yb, info = load("usps", binary=(3, 5), return_info=True)
    assert Xb.shape == (658 + 556, 256)
    assert int((yb == 1).sum()) == 658 and int((yb == -1).sum()) == 556  # first digit = +1
    np.testing.assert_array_equal(Xb[yb == 1], X[y == 3])
    assert info["label_mapping"] == {3: 1, 5: -1}
    assert USPS_PAPER_PAIRS == ((3, 5), (4, 6))
    _, yo = load("usps", binary=(1, (0, 2, 3, 4, 5, 6, 7, 8, 9)), split="test")
    assert len(yo) == 2007 and int((yo == 1).sum()) == 264


def test_load_argument_errors():
    with pytest.raises(ValueError, match="split"):
        load("sonar", split="train")
    with pytest.raises(ValueError, match="split"):
        load("usps", split="validation")
    with pytest.raises(ValueError, match="binary"):
        load("usps", binary=(3, 3))
    with pytest.raises(ValueError, match="unknown class label"):
        load("usps", binary=(3, 10))
    with pytest.raises(ValueError, match="unknown class label"):
        load("sonar", binary=(1, 0))
    with pytest.raises(ValueError, match="binary"):
        load("usps", binary="paper")
    with pytest.raises(ValueError, match="binary"):
        load("usps", binary=(3, 5, 6))
    with pytest.raises(ValueError, match="scale"):
        load("sonar", scale="unit")


def test_scaling():
    X, _ = load("ionosphere")
    assert np.all(X[:, 1] == 0)  # known constant feature
    Xs, _ = load("ionosphere", scale="standard")
    keep = np.ptp(X, axis=0) > 0
    np.testing.assert_allclose(Xs.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Xs[:, keep].std(axis=0), 1.0, rtol=1e-12)
    assert np.all(Xs[:, ~keep] == 0)
    Xm, _ = load("ionosphere", scale="minmax")
    np.testing.assert_array_equal(Xm[:, keep].min(axis=0), -1.0)
    np.testing.assert_array_equal(Xm[:, keep].max(axis=0), 1.0)
    assert np.all(Xm[:, ~keep] == 0)
    # affine per column: minmax is a monotone map of the raw data
    np.testing.assert_allclose(Xm[:, 0], 2 * (X[:, 0] - X[:, 0].min()) / np.ptp(X[:, 0]) - 1)
    # transductive over the returned rows (after binary selection)
    Xb, _ = load("usps", binary=(4, 6), split="test", scale="minmax")
    span = np.ptp(Xb, axis=0)
    assert np.all((span == 2.0) | (span == 0.0)) and Xb.min() == -1.0
    # NaNs survive scaling with missing="keep"
    Xk, _ = load("breast_cancer", missing="keep", scale="standard")
    assert np.isnan(Xk).sum() == 16
    np.testing.assert_allclose(np.nanmean(Xk, axis=0), 0.0, atol=1e-12)


# ---------------------------------------------------------------------------
# dissimilarity sets
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,n,counts",
    [
        ("catcortex", 65, {1: 10, 2: 19, 3: 18, 4: 18}),
        ("balls3d", 200, {1: 100, 2: 100}),
        ("newsgroups", 600, {1: 170, 2: 125, 3: 102, 4: 203}),
        ("protein", 213, {1: 72, 2: 72, 3: 39, 4: 30}),
        ("coilyork", 144, {-1: 72, 1: 72}),
    ],
)
def test_dissimilarity_shapes(name, n, counts):
    D, y, info = load_dissimilarity(name, return_info=True)
    assert D.shape == (n, n) and D.dtype == np.float64 and y.dtype == np.int64
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0) and np.all(D >= 0) and np.all(np.isfinite(D))
    vals, cnt = np.unique(y, return_counts=True)
    assert dict(zip(vals.tolist(), cnt.tolist())) == counts
    assert info["citation"] and info["kind"] == "dissimilarity"


def test_dissimilarity_paper_minimum_eigenvalues():
    # Loosli et al. (2013), Table 3 prints these least eigenvalues of the full matrices.
    for name, lam in [("catcortex", -24.61), ("balls3d", -2.8894e3), ("newsgroups", -16.39), ("protein", -322.34)]:
        D, _ = load_dissimilarity(name)
        assert np.linalg.eigvalsh(D)[0] == pytest.approx(lam, rel=1e-3)


def test_dissimilarity_binary():
    D, y, info = load_dissimilarity("catcortex", binary="paper", return_info=True)
    assert PAPER_SPLITS["catcortex"] == ((1, 2), (3,)) and info["binary"] == ((1, 2), (3,))
    assert D.shape == (47, 47) and int((y == 1).sum()) == 29 and int((y == -1).sum()) == 18
    Dfull, yfull = load_dissimilarity("catcortex")
    keep = np.isin(yfull, [1, 2, 3])
    np.testing.assert_array_equal(D, Dfull[np.ix_(keep, keep)])
    D, y = load_dissimilarity("protein", binary="paper")
    assert D.shape == (213, 213) and int((y == 1).sum()) == 144
    D2, y2 = load_dissimilarity("protein", binary=(("HA", "HB"), ("M", "G")))
    np.testing.assert_array_equal(D, D2)
    np.testing.assert_array_equal(y, y2)
    _, _, info = load_dissimilarity("protein", return_info=True)
    assert info["target_names"] == {1: "HA", 2: "HB", 3: "M", 4: "G"}
    D, y = load_dissimilarity("newsgroups", binary=(2, (1, 3)))
    assert D.shape == (125 + 170 + 102,) * 2 and int((y == 1).sum()) == 125
    for bad in ["papers", (1,), ((1, 2), (2, 3)), ((), (1,)), ((9,), (1,))]:
        with pytest.raises(ValueError, match="binary"):
            load_dissimilarity("catcortex", binary=bad)


def test_newsgroups_restore_zeros():
    Draw, _ = load_dissimilarity("newsgroups", restore_zeros=False)
    off = ~np.eye(600, dtype=bool)
    assert Draw[off].min() == 1e-4 and int((Draw == 1e-4).sum()) == 190
    D, _ = load_dissimilarity("newsgroups")
    assert int((D[off] == 0).sum()) == 190 and D[off][D[off] > 0].min() > 1e-4
    np.testing.assert_array_equal(D[Draw != 1e-4], Draw[Draw != 1e-4])


def test_coilyork_options():
    Draw, y = load_dissimilarity("coilyork", symmetrize=False)
    assert Draw.shape == (144, 144) and np.abs(Draw - Draw.T).max() == 72
    D, y2 = load_dissimilarity("coilyork")
    np.testing.assert_array_equal(D, (Draw + Draw.T) / 2)
    np.testing.assert_array_equal(y, y2)
    Dt, yt = load_dissimilarity("coilyork", split="test")
    assert Dt.shape == (144, 144) and sorted(np.unique(yt).tolist()) == [-1, 1]
    assert not np.array_equal(Dt, Dt.T)
    Db, yb, info = load_dissimilarity("coilyork", split="both", return_info=True)
    assert Db.shape == (288, 144) and yb.shape == (288,) and info["n_train_rows"] == 144
    np.testing.assert_array_equal(Db[:144], D)
    np.testing.assert_array_equal(Db[144:], Dt)
    np.testing.assert_array_equal(yb, np.concatenate([y, yt]))
    with pytest.raises(ValueError, match="split"):
        load_dissimilarity("coilyork", split="all")
    with pytest.raises(TypeError, match="restore_zeros"):
        load_dissimilarity("coilyork", restore_zeros=True)
    with pytest.raises(TypeError, match="unexpected option"):
        load_dissimilarity("protein", symmetrize=True)
    with pytest.raises(ValueError, match="symmetrize"):
        load_dissimilarity("coilyork", symmetrize="yes")


def test_returned_arrays_are_independent_copies():
    D, _ = load_dissimilarity("catcortex")
    D[0, 1] = -5.0
    assert load_dissimilarity("catcortex")[0][0, 1] != -5.0
    X, _ = load("heart")
    X[:] = 0
    assert load("heart")[0].any()


# ---------------------------------------------------------------------------
# shipped files and the conversion script
# ---------------------------------------------------------------------------
def _sources():
    return json.loads((DATA / "SOURCES.json").read_text(encoding="utf-8"))["datasets"]


def test_sources_json_matches_shipped_files():
    src = _sources()
    assert sorted(src) == sorted(VECTOR + DISSIM + SIMILARITY + REGRESSION)
    for name, entry in src.items():
        blob = (DATA / entry["file"]).read_bytes()
        assert hashlib.sha256(blob).hexdigest() == entry["sha256"], name
        assert len(blob) == entry["bytes"]
        labels = "target" if name in REGRESSION else "label_counts"
        for key in ("citation", "licence", "notes", "sources", labels, "arrays"):
            assert entry[key], (name, key)
        with np.load(DATA.joinpath(entry["file"]).open("rb"), allow_pickle=False) as z:
            assert sorted(z.files) == sorted(entry["arrays"])
            for k, meta in entry["arrays"].items():
                assert list(z[k].shape) == meta["shape"] and str(z[k].dtype) == meta["dtype"]
    assert src["usps"]["arrays"]["X_train"]["dtype"] == "float32"
    assert src["a1a"]["arrays"]["test_data"]["dtype"] == "uint8"


def test_conversion_script_reproduces_arrays(tmp_path):
    if not RAW_DATA.is_dir():
        pytest.skip(f"raw data directory {RAW_DATA} not available")
    for mod in ("h5py", "rdata", "scipy"):
        pytest.importorskip(mod)
    spec = importlib.util.spec_from_file_location("convert_datasets", REPO / "scripts" / "convert_datasets.py")
    conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conv)
    assert conv.main(["--src", str(RAW_DATA), "--out", str(tmp_path), "-q"]) == 0
    shipped = _sources()
    fresh = json.loads((tmp_path / "SOURCES.json").read_text(encoding="utf-8"))["datasets"]
    for name, entry in shipped.items():
        with np.load(DATA.joinpath(entry["file"]).open("rb")) as a, np.load(tmp_path / entry["file"]) as b:
            assert sorted(a.files) == sorted(b.files)
            for k in a.files:
                assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, (name, k)
                assert a[k].tobytes() == b[k].tobytes(), (name, k)
        strip = lambda e: {k: v for k, v in e.items() if k not in ("sha256", "bytes")}  # noqa: E731
        assert strip(fresh[name]) == strip(entry), name


def test_conversion_script_rejects_bad_checksum(tmp_path):
    spec = importlib.util.spec_from_file_location("convert_datasets", REPO / "scripts" / "convert_datasets.py")
    conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conv)
    bad = tmp_path / "src"
    for rel in conv.EXPECTED_SHA256:
        p = bad / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"not the data")
    with pytest.raises(SystemExit, match="sha256 mismatch"):
        conv.main(["--src", str(bad), "--out", str(tmp_path / "out"), "-q"])
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------
# checkerboard
# ---------------------------------------------------------------------------
def _parity(X, n_cells=4, low=0.0, high=1.0):
    idx = np.clip(np.floor((X - low) / ((high - low) / n_cells)).astype(int), 0, n_cells - 1)
    return np.where(idx.sum(axis=1) % 2 == 0, 1, -1)


def test_checkerboard_basic():
    X, y = make_checkerboard(random_state=0)
    assert X.shape == (500, 2) and y.shape == (500,) and X.dtype == np.float64 and y.dtype == np.int64
    assert set(np.unique(y).tolist()) == {-1, 1}
    assert X.min() >= 0.0 and X.max() <= 1.0
    np.testing.assert_array_equal(y, _parity(X))
    X2, y2 = make_checkerboard(random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X, y = make_checkerboard(20000, n_cells=3, low=-2.0, high=4.0, random_state=np.random.RandomState(1))
    assert X.min() >= -2.0 and X.max() <= 4.0
    np.testing.assert_array_equal(y, _parity(X, 3, -2.0, 4.0))
    assert abs((y == 1).mean() - 5 / 9) < 0.015  # 5 of 9 cells are positive


def test_checkerboard_balance_and_overlap():
    n = 200_000
    X0, y0 = make_checkerboard(n, overlap=0.0, random_state=42)
    assert abs((y0 == 1).mean() - 0.5) < 0.005
    for ov in (0.1, 0.5):
        X, y = make_checkerboard(n, overlap=ov, random_state=42)
        np.testing.assert_array_equal(X, X0)  # points do not depend on overlap
        flipped = (y != y0).mean()
        assert abs(flipped - ov / 2) < 0.005, (ov, flipped)
        assert abs((y == 1).mean() - 0.5) < 0.005
    # flips happen only near interior boundaries
    X, y = make_checkerboard(n, overlap=0.1, random_state=3)
    t = X * 4
    dist = np.abs(t - np.clip(np.rint(t), 1, 3)).min(axis=1) / 4
    w = (1 - np.sqrt(0.9)) / 6
    assert np.all(y[dist >= w] == _parity(X)[dist >= w])
    assert abs((dist < w).mean() - 0.1) < 0.005


@pytest.mark.parametrize(
    "kwargs,arg",
    [
        (dict(n_samples=0), "n_samples"),
        (dict(n_samples=2.5), "n_samples"),
        (dict(n_cells=1), "n_cells"),
        (dict(n_cells=True), "n_cells"),
        (dict(overlap=-0.1), "overlap"),
        (dict(overlap=1.0), "overlap"),
        (dict(overlap=0.95), "overlap"),  # > 1 - 1/16 for n_cells=4
        (dict(overlap=float("nan")), "overlap"),
        (dict(low=1.0, high=0.0), "low"),
        (dict(high=float("inf")), "high"),
        (dict(low="0"), "low"),
    ],
)
def test_checkerboard_bad_arguments(kwargs, arg):
    with pytest.raises(ValueError, match=arg):
        make_checkerboard(**kwargs)
