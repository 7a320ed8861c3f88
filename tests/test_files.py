"""A researcher's own files through the one data door (``krein/datasets/_files.py``,
``load_kernel_file`` and ``load_feature_file`` of ``krein/kernel_data.py``).

Every file is written here, to ``tmp_path``, by the library that users write
them with (``np.save``, ``np.savez``, ``np.savetxt``, ``scipy.io.savemat``,
``pandas.DataFrame.to_csv``, ``sklearn.datasets.dump_svmlight_file``).  The
matrix is a sigmoid kernel of random points (indefinite, entries in (-1, 1)),
the dissimilarities their Euclidean distances.  Every bad input must raise an
``InvalidArgument`` naming the argument, with a ONE-line message that starts
with the file's path.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
import scipy.io
from scipy.spatial.distance import cdist
from sklearn.datasets import dump_svmlight_file

import krein
from krein._validation import InvalidArgument
from krein.datasets import read_features, read_labels, read_matrix, scale_features
from krein.kernel_data import (FILE_SYMMETRY_RTOL, KernelData, available_kernels, default_kernel,
                               load_feature_file, load_kernel_data, load_kernel_file)
from krein.kernels import dissimilarity_kernel, sigmoid_kernel

N, D_FEATURES = 40, 5


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(N, D_FEATURES))
    y_str = np.where(X[:, 0] + 0.3 * rng.normal(size=N) > 0, "mine", "rock")
    return X, y_str


@pytest.fixture(scope="module")
def K(points):
    X, _ = points
    K = sigmoid_kernel(X, a=0.5, r=-1.0)
    return 0.5 * (K + K.T)


@pytest.fixture(scope="module")
def D(points):
    return cdist(points[0], points[0])


def expect_error(fn, argument, *fragments, start=None):
    """Call ``fn``; assert an InvalidArgument naming ``argument``, one line, with the fragments."""
    with pytest.raises(InvalidArgument) as info:
        fn()
    exc = info.value
    assert exc.argument == argument, (exc.argument, exc.message)
    assert "\n" not in exc.message and "\r" not in exc.message, exc.message
    assert "Traceback" not in exc.message
    if start is not None:
        assert exc.message.startswith(str(start)), exc.message
    for fragment in fragments:
        assert fragment in exc.message, (fragment, exc.message)
    return exc.message


def write_labels(path, y):
    path.write_text("\n".join(str(v) for v in y) + "\n")
    return path


# ---------------------------------------------------------------------------- read_matrix formats
def test_npy_npz_csv_txt_mat_read_the_same_matrix(tmp_path, K):
    np.save(tmp_path / "K.npy", K)
    np.savez(tmp_path / "one.npz", kernel=K)
    np.savez(tmp_path / "two.npz", K=K, y=np.arange(N))
    np.savetxt(tmp_path / "K.csv", K, delimiter=",")
    np.savetxt(tmp_path / "K.txt", K)
    np.savetxt(tmp_path / "K.tsv", K, delimiter="\t")
    scipy.io.savemat(tmp_path / "one.mat", {"K": K})
    scipy.io.savemat(tmp_path / "two.mat", {"K": K, "D": 2 * K})
    scipy.io.savemat(tmp_path / "with_labels.mat", {"K": K, "y": np.arange(N)})
    for name in ["K.npy", "one.npz", "two.npz:K", "K.csv", "K.txt", "K.tsv", "one.mat",
                 "two.mat:K", "with_labels.mat"]:
        A = read_matrix(str(tmp_path / name))
        assert A.dtype == np.float64 and A.shape == (N, N), name
        np.testing.assert_array_equal(A, K, err_msg=name)
    np.testing.assert_array_equal(read_matrix(str(tmp_path / "two.mat") + ":D"), 2 * K)
    np.testing.assert_array_equal(read_matrix(tmp_path / "K.npy"), K)  # a pathlib.Path


def test_csv_spaces_after_commas_comments_and_trailing_newlines(tmp_path):
    (tmp_path / "K.csv").write_text("# a kernel\n1.0, 0.5, 0.25\n0.5,  1.0 ,0.5\n"
                                    "0.25, 0.5, 1.0\n\n\n")
    (tmp_path / "K.dat").write_text("1.0   0.5\t0.25\n  0.5 1.0 0.5\n0.25 0.5 1.0\n")
    expected = np.array([[1.0, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 1.0]])
    np.testing.assert_array_equal(read_matrix(tmp_path / "K.csv"), expected)
    np.testing.assert_array_equal(read_matrix(tmp_path / "K.dat"), expected)
    # an Excel CSV starts with a byte-order mark
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf1,2\n2,1\n")
    np.testing.assert_array_equal(read_matrix(tmp_path / "bom.csv"), [[1, 2], [2, 1]])


def test_the_key_is_split_at_the_last_colon_of_an_existing_npz_or_mat(tmp_path, K):
    folder = tmp_path / "a:b"  # a colon inside a folder name
    folder.mkdir()
    np.savez(folder / "K.npz", K=K, L=-K)
    np.testing.assert_array_equal(read_matrix(f"{folder}/K.npz:L"), -K)
    np.save(tmp_path / "K:1.npy", K)  # an existing file whose name has a colon is that file
    np.testing.assert_array_equal(read_matrix(str(tmp_path / "K:1.npy")), K)
    expect_error(lambda: read_matrix(r"C:\data\K.npy"), "kernel_file", "no such file",
                 start=r"C:\data\K.npy")


def test_sparse_npz_and_sparse_mat_are_densified(tmp_path, K):
    import scipy.sparse

    S = scipy.sparse.csr_matrix(np.where(np.abs(K) > 0.5, K, 0.0))
    scipy.sparse.save_npz(tmp_path / "S.npz", S)
    scipy.io.savemat(tmp_path / "S.mat", {"S": S})
    np.testing.assert_array_equal(read_matrix(tmp_path / "S.npz"), S.toarray())
    np.testing.assert_array_equal(read_matrix(tmp_path / "S.mat"), S.toarray())


def test_matrix_file_errors(tmp_path, K):
    np.savez(tmp_path / "two.npz", K=K, y=np.arange(N))
    scipy.io.savemat(tmp_path / "two.mat", {"K": K, "Dist": np.abs(K)})
    (tmp_path / "ragged.csv").write_text("1,2,3\n4,5,6\n7,8\n")
    (tmp_path / "text.txt").write_text("1 2 3\n4 five 6\n7 8 9\n")
    (tmp_path / "header.csv").write_text("a,b\n1,2\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "K.xlsx").write_bytes(b"PK\x03\x04 not really")
    (tmp_path / "fake.npy").write_text("1 2\n3 4\n")
    (tmp_path / "fake.mat").write_bytes(b"garbage" * 20)
    (tmp_path / "binary.csv").write_bytes(bytes(range(256)))
    np.save(tmp_path / "cplx.npy", K + 1j)
    np.save(tmp_path / "words.npy", np.array([["a", "b"], ["c", "d"]]))
    np.save(tmp_path / "cube.npy", np.zeros((2, 2, 2)))
    # MATLAB v7.3 is HDF5: the header says version 0x0200
    (tmp_path / "v73.mat").write_bytes(b"MATLAB 7.3 MAT-file".ljust(124, b" ") + b"\x00\x02IM"
                                       + b"\x00" * 512)

    def err(name, *fragments):
        path = str(tmp_path / name)
        return expect_error(lambda: read_matrix(path), "kernel_file", *fragments, start=path)

    err("missing.npy", "no such file")
    expect_error(lambda: read_matrix(str(tmp_path)), "kernel_file", "is a directory",
                 start=str(tmp_path))
    msg = err("two.npz", "several arrays", "K (40x40 float64)", "y (40 int64)", ":NAME")
    err("two.npz:Q", "no array 'Q'", "K (40x40", "y (40")
    err("two.mat", "several numeric matrices", "K (40x40", "Dist (40x40", ":NAME")
    err("two.mat:nothing", "no array 'nothing'", "Dist (40x40")
    err("missing.npz:K", "no such file", "does not exist")
    err("ragged.csv", "line 3 has 2 fields but line 1 has 3")
    err("text.txt", "line 2, column 2", "'five' is not a number")
    err("header.csv", "line 1, column 1", "header")
    err("empty.csv", "no numbers")
    err("K.xlsx", "unknown matrix format '.xlsx'", ".npy", ".npz", ".csv", ".txt", ".mat")
    err("fake.npy", "not a .npy file")
    err("fake.mat", "not a readable MATLAB")
    err("binary.csv", "not a text file")
    err("cplx.npy", "complex")
    err("words.npy", "not numbers")
    err("cube.npy", "3-D array")
    err("v73.mat", "v7.3", "-v7", ".npy")
    expect_error(lambda: read_matrix(3.5), "kernel_file", "file path")
    expect_error(lambda: read_matrix("x.npz", argument="other"), "other", start="x.npz")
    assert "\n" not in msg


# ---------------------------------------------------------------------------- read_labels
def test_labels_text_ints_floats_strings(tmp_path):
    write_labels(tmp_path / "int.txt", [1, -1, 1, 2])
    y = read_labels(tmp_path / "int.txt")
    assert y.dtype == np.int64 and list(y) == [1, -1, 1, 2]
    (tmp_path / "float.txt").write_text("0.5\n1\n 2.5 \n")
    y = read_labels(tmp_path / "float.txt")
    assert y.dtype == np.float64 and list(y) == [0.5, 1.0, 2.5]
    (tmp_path / "str.lab").write_text("  mine\nrock\t\nmine\n\n\n")  # any extension is text
    y = read_labels(tmp_path / "str.lab")
    assert y.dtype.kind == "U" and list(y) == ["mine", "rock", "mine"]
    (tmp_path / "header.txt").write_text("label\n3\n5\n")
    assert list(read_labels(tmp_path / "header.txt")) == [3, 5]
    (tmp_path / "row.txt").write_text("1 2 2 1\n")
    assert list(read_labels(tmp_path / "row.txt")) == [1, 2, 2, 1]


def test_labels_csv_npy_npz_mat(tmp_path):
    np.savetxt(tmp_path / "col.csv", np.array([[1], [2], [1]]), fmt="%d")
    (tmp_path / "row.csv").write_text("mine, rock,mine\n")
    np.save(tmp_path / "y.npy", np.array(["mine", "rock"]))
    np.save(tmp_path / "col.npy", np.array([[1.5], [2.5]]))
    np.savez(tmp_path / "y.npz", y=np.array([3, 4]), K=np.eye(2))
    scipy.io.savemat(tmp_path / "y.mat", {"y": np.array([1, 2, 1]), "K": np.eye(3)})
    scipy.io.savemat(tmp_path / "c.mat", {"c": np.array(["mine", "rock", "mine"], dtype=object)})
    assert list(read_labels(tmp_path / "col.csv")) == [1, 2, 1]
    assert list(read_labels(tmp_path / "row.csv")) == ["mine", "rock", "mine"]
    assert list(read_labels(tmp_path / "y.npy")) == ["mine", "rock"]
    assert list(read_labels(tmp_path / "col.npy")) == [1.5, 2.5]
    assert list(read_labels(str(tmp_path / "y.npz") + ":y")) == [3, 4]
    assert list(read_labels(tmp_path / "y.mat")) == [1, 2, 1]  # the only vector
    assert list(read_labels(tmp_path / "c.mat")) == ["mine", "rock", "mine"]  # a cell array


def test_label_file_errors(tmp_path):
    (tmp_path / "gap.txt").write_text("1\n2\n\n1\n")
    (tmp_path / "empty.txt").write_text("\n\n")
    (tmp_path / "table.csv").write_text("1,2\n3,4\n")
    (tmp_path / "nan.txt").write_text("1.5\nnan\n")
    np.save(tmp_path / "matrix.npy", np.eye(3))
    np.savez(tmp_path / "two.npz", a=np.arange(3), b=np.arange(3))

    def err(name, *fragments):
        path = str(tmp_path / name)
        return expect_error(lambda: read_labels(path), "labels", *fragments, start=path)

    err("gap.txt", "line 3 is empty")
    err("empty.txt", "no labels")
    err("table.csv", "table of 2 rows", "one label per line")
    err("nan.txt", "line 2", "'nan'")
    err("matrix.npy", "shape (3, 3)", "one vector")
    err("two.npz", "several arrays", "a (3 int64)", "b (3 int64)")
    err("missing.txt", "no such file")


# ---------------------------------------------------------------------------- read_features
def test_feature_csv_with_header_and_named_label_column(tmp_path, points):
    X, y = points
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(D_FEATURES)])
    df.insert(2, "cls", y)  # the labels in the middle
    df.to_csv(tmp_path / "f.csv", index=False)
    Xr, yr, names = read_features(tmp_path / "f.csv", label_column="cls")
    np.testing.assert_allclose(Xr, X, rtol=1e-15)
    assert list(yr) == list(y) and yr.dtype.kind == "U"
    assert names == [f"f{j}" for j in range(D_FEATURES)]
    Xi, yi, _ = read_features(tmp_path / "f.csv", label_column=2)
    np.testing.assert_array_equal(Xi, Xr)
    assert list(yi) == list(y)
    Xn, yn, _ = read_features(tmp_path / "f.csv", label_column=-4)
    assert list(yn) == list(y)


def test_feature_csv_without_header_and_whitespace_text(tmp_path, points):
    X, y = points
    y_int = np.where(y == "mine", 1, -1)
    np.savetxt(tmp_path / "f.csv", np.column_stack([X, y_int]), delimiter=",")
    Xr, yr, names = read_features(tmp_path / "f.csv")
    np.testing.assert_array_equal(Xr, X)
    assert yr.dtype == np.float64 and list(yr) == list(y_int)  # written as 1.0e+00
    assert names == [f"x{j + 1}" for j in range(D_FEATURES)]
    with open(tmp_path / "f.txt", "w") as f:  # string labels, no header
        for row, label in zip(X, y):
            f.write("  ".join(repr(float(v)) for v in row) + f"\t{label}\n")
    Xr, yr, _ = read_features(tmp_path / "f.txt")
    np.testing.assert_array_equal(Xr, X)
    assert list(yr) == list(y)
    with open(tmp_path / "first.txt", "w") as f:  # integer labels in the first column
        for row, label in zip(X, y_int):
            f.write(f"{label} " + " ".join(repr(float(v)) for v in row) + "\n")
    Xr, yr, _ = read_features(tmp_path / "first.txt", label_column=0)
    assert yr.dtype == np.int64 and list(yr) == list(y_int)
    np.testing.assert_array_equal(Xr, X)


def test_feature_svmlight(tmp_path, points):
    X, y = points
    y_int = np.where(y == "mine", 1, -1)
    Xs = np.where(np.abs(X) > 0.5, X, 0.0)  # sparse-ish
    dump_svmlight_file(Xs, y_int, str(tmp_path / "f.svm"), zero_based=False)
    dump_svmlight_file(Xs, y_int, str(tmp_path / "f.txt"), zero_based=False)  # sniffed by content
    for name in ("f.svm", "f.txt"):
        Xr, yr, names = read_features(tmp_path / name)
        np.testing.assert_allclose(Xr, Xs, rtol=1e-15)
        assert yr.dtype == np.int64 and list(yr) == list(y_int)
        assert names == [f"x{j + 1}" for j in range(D_FEATURES)]


def test_feature_file_errors(tmp_path, points, monkeypatch):
    X, y = points
    (tmp_path / "bad.csv").write_text("a,b,label\n1,2,M\n3,x,R\n5,6,M\n")
    (tmp_path / "missing_value.csv").write_text("1,2,M\n3,,R\n5,6,M\n")
    (tmp_path / "ragged.txt").write_text("1 2 M\n3 4 R\n5 M\n")
    (tmp_path / "nan.csv").write_text("a,b,label\n1,2,M\n3,nan,R\n5,6,M\n")
    (tmp_path / "one_col.csv").write_text("1\n2\n")
    (tmp_path / "f.xlsx").write_text("1,2\n")
    (tmp_path / "nohead.txt").write_text("1 2 M\n3 4 R\n5 6 M\n")
    (tmp_path / "bad.svm").write_text("1 1:0.5 2:1\n-1 1:x\n")
    dump_svmlight_file(X, np.where(y == "mine", 1, -1), str(tmp_path / "ok.svm"))
    np.save(tmp_path / "f.npy", X)

    def err(name, *fragments, argument="data", **kw):
        path = str(tmp_path / name)
        return expect_error(lambda: read_features(path, **kw), argument, *fragments, start=path)

    err("bad.csv", "non-numeric value 'x'", "column 2 ('b')", "line 3", "label_column")
    err("missing_value.csv", "empty field", "column 2", "line 2")
    err("ragged.txt", "line 3 has 2 fields but line 1 has 3")
    err("nan.csv", "NaN or inf", "column 2 ('b')", "line 3")
    err("one_col.csv", "single column")
    err("f.xlsx", "unknown feature-file format '.xlsx'", ".csv", "svmlight")
    err("f.npy", "is a .npy file", ".csv")
    err("missing.csv", "no such file")
    err("bad.svm", "line 2")
    err("bad.csv", "no column named 'cls'", "'a', 'b', 'label'", argument="label_column",
        label_column="cls")
    err("nohead.txt", "no header row", argument="label_column", label_column="label")
    err("bad.csv", "out of range", "3 columns", argument="label_column", label_column=3)
    err("bad.csv", "column name", argument="label_column", label_column=1.5)
    err("ok.svm", "LIBSVM/svmlight", "label_column does not apply", argument="label_column",
        label_column=0)
    monkeypatch.setattr("krein.datasets._features.MAX_DENSE_BYTES", 100)
    err("ok.svm", "GiB as a dense matrix")


# ---------------------------------------------------------------------------- load_kernel_file
def test_kernel_file_gives_kernel_data(tmp_path, K, points):
    _, y = points
    np.save(tmp_path / "K.npy", K)
    np.savetxt(tmp_path / "K.csv", K, delimiter=",")
    scipy.io.savemat(tmp_path / "K.mat", {"K": K, "y": np.arange(N)})
    write_labels(tmp_path / "y.txt", y)
    datas = [load_kernel_file(tmp_path / name, tmp_path / "y.txt")
             for name in ("K.npy", "K.csv", "K.mat")]
    for data in datas:
        assert isinstance(data, KernelData)
        assert data.kind == "kernel" and data.kernel == "precomputed" and data.kernel_params == {}
        np.testing.assert_array_equal(data.K, datas[0].K)
        np.testing.assert_array_equal(data.K, K)
        assert data.y.dtype.kind == "U" and list(data.y) == list(y)  # "mine"/"rock" unchanged
        assert data.X is None and data.D is None and not data.per_fold_kernel
        assert data.notes == ()
    data = datas[0]
    assert data.dataset == "K" and data.n_samples == N
    assert data.source == (f"kernel file {os.path.abspath(tmp_path / 'K.npy')}, "
                           f"labels {os.path.abspath(tmp_path / 'y.txt')}")
    train, test = np.arange(0, N, 2), np.arange(1, N, 2)
    K_tr, K_te = data.blocks(train, test)
    np.testing.assert_array_equal(K_tr, K[np.ix_(train, train)])
    np.testing.assert_array_equal(K_te, K[np.ix_(test, train)])
    assert data.spectrum().eigenvalues.min() < 0  # an indefinite kernel
    assert krein.load_kernel_file is load_kernel_file
    assert krein.load_feature_file is load_feature_file


def test_kernel_file_labels_as_npy_array_and_names(tmp_path, K, points):
    _, y = points
    y_int = np.where(y == "mine", 3, 7)
    np.savez(tmp_path / "both.npz", K=K, y=y_int)
    np.save(tmp_path / "y.npy", y_int)
    data = load_kernel_file(str(tmp_path / "both.npz") + ":K", tmp_path / "y.npy", name="mine")
    assert data.dataset == "mine" and data.y.dtype == y_int.dtype and list(data.y) == list(y_int)
    assert data.source.startswith(f"kernel file {os.path.abspath(tmp_path / 'both.npz')}:K, ")
    data = load_kernel_file(str(tmp_path / "both.npz") + ":K", str(tmp_path / "both.npz") + ":y")
    assert data.dataset == "both" and list(data.y) == list(y_int)
    data = load_kernel_file(str(tmp_path / "both.npz") + ":K", list(y))
    assert list(data.y) == list(y) and data.source.endswith("labels given as an array")


def test_dissimilarity_file_gives_the_library_kernel(tmp_path, D, points):
    _, y = points
    np.savetxt(tmp_path / "D.txt", D)
    write_labels(tmp_path / "y.txt", y)
    data = load_kernel_file(tmp_path / "D.txt", tmp_path / "y.txt", dissimilarity=True)
    assert data.kind == "dissimilarity" and data.kernel == "dissimilarity-linear"
    np.testing.assert_array_equal(data.D, D)
    K_ref = dissimilarity_kernel(D, kind="linear")
    np.testing.assert_allclose(data.K, 0.5 * (K_ref + K_ref.T), rtol=0, atol=1e-12)
    assert data.per_fold_kernel and data.source.startswith("dissimilarity file ")
    K_tr, K_te = data.blocks(np.arange(30), np.arange(30, N))
    assert K_tr.shape == (30, 30) and K_te.shape == (N - 30, 30)
    gauss = load_kernel_file(tmp_path / "D.txt", y, dissimilarity=True,
                             kernel="dissimilarity-gaussian")
    gamma = 1.0 / np.mean(D[~np.eye(N, dtype=bool)] ** 2)
    assert gauss.kernel_params["gamma"] == pytest.approx(gamma)
    np.testing.assert_allclose(gauss.K, dissimilarity_kernel(D, kind="gaussian", gamma=gamma),
                               rtol=0, atol=1e-15)
    raw = load_kernel_file(tmp_path / "D.txt", y, dissimilarity=True, kernel="dissimilarity-raw",
                           kernel_params={"unit": 2.0})
    np.testing.assert_allclose(raw.K, D / 2.0)


def test_symmetry_threshold_and_symmetrize(tmp_path, K, points):
    _, y = points
    tiny = K.copy()
    tiny[0, 1] += 1e-13  # relative asymmetry ~1e-13 < FILE_SYMMETRY_RTOL
    np.save(tmp_path / "tiny.npy", tiny)
    data = load_kernel_file(tmp_path / "tiny.npy", y)
    assert data.notes == () and np.array_equal(data.K, data.K.T)
    big = K.copy()
    big[2, 5] += 0.03
    path = str(tmp_path / "big.npy")
    np.save(path, big)
    expect_error(lambda: load_kernel_file(path, y), "kernel_file", "not symmetric",
                 "max |K - K'| = 0.03", "% of max |K|", "row 3, column 6", "symmetrize=True",
                 "--symmetrize", "(K + K')/2", start=path)
    data = load_kernel_file(path, y, symmetrize=True)
    np.testing.assert_allclose(data.K, 0.5 * (big + big.T))
    assert len(data.notes) == 1 and data.notes[0].startswith("symmetrized: max |K - K'| = 0.03")
    assert "(K + K')/2" in data.notes[0] and "symmetrized" in data.description
    assert FILE_SYMMETRY_RTOL == 1e-10


def test_kernel_file_checks(tmp_path, K, D, points):
    _, y = points
    files = {}

    def save(name, A):
        files[name] = str(tmp_path / name)
        np.save(files[name], A)
        return files[name]

    save("K.npy", K)
    save("rect.npy", K[:, :-1])
    nan = K.copy()
    nan[3, 4] = np.nan
    nan[4, 3] = np.nan
    nan[7, 7] = np.inf
    save("nan.npy", nan)
    save("vector.npy", K[0])
    save("one.npy", np.ones((1, 1)))
    neg = D.copy()
    neg[1, 2] = neg[2, 1] = -0.5
    save("neg.npy", neg)
    diag = D.copy()
    diag[5, 5] = 0.25
    save("diag.npy", diag)
    ok_diag = D.copy()
    ok_diag[5, 5] = 1e-14 * D.max()  # within the tolerance: read as zero
    save("ok_diag.npy", ok_diag)
    labels = write_labels(tmp_path / "y.txt", y)
    short = write_labels(tmp_path / "short.txt", y[:-1])
    long = write_labels(tmp_path / "long.txt", list(y) + ["mine"])
    single = write_labels(tmp_path / "single.txt", ["rock"] * N)
    distinct = write_labels(tmp_path / "ids.txt", range(N))

    def err(name, argument, *fragments, labels=labels, start=None, **kw):
        path = files.get(name, name)
        return expect_error(lambda: load_kernel_file(path, labels, **kw), argument, *fragments,
                            start=path if start is None else start)

    err("rect.npy", "kernel_file", "square", f"{N} x {N - 1}")
    err("nan.npy", "kernel_file", "3 NaN or inf", "row 4, column 5")
    err("vector.npy", "kernel_file", "1-D array", f"length {N}")
    err("one.npy", "kernel_file", "1 x 1", "at least 2 x 2")
    err("K.npy", "labels", f"{N - 1} labels for a {N} x {N} matrix", labels=short, start=short)
    err("K.npy", "labels", f"{N + 1} labels for a {N} x {N} matrix", labels=long, start=long)
    err("K.npy", "labels", f"{N - 1} labels for a {N} x {N} matrix", labels=y[:-1],
        start="labels array")
    err("K.npy", "labels", "a single class ('rock')", labels=single, start=single)
    err("K.npy", "labels", f"all {N} labels are different", labels=distinct, start=distinct)
    err("K.npy", "labels", "no such file", labels=tmp_path / "nope.txt",
        start=str(tmp_path / "nope.txt"))
    err("neg.npy", "kernel_file", "2 negative entries", "most negative -0.5",
        dissimilarity=True)
    err("K.npy", "kernel_file", "negative entries", "kernel", dissimilarity=True)
    err("diag.npy", "kernel_file", "diagonal is not zero", "max |D_ii| = 0.25", "row 6",
        dissimilarity=True)
    data = load_kernel_file(files["ok_diag.npy"], y, dissimilarity=True)
    assert np.all(np.diag(data.D) == 0)
    asym = D.copy()
    asym[0, 1] *= 1.5
    save("asym.npy", asym)
    err("asym.npy", "kernel_file", "max |D - D'|", "--symmetrize", dissimilarity=True)
    err("K.npy", "kernel", "'precomputed'", "'sigmoid'", "dissimilarity=True", kernel="sigmoid")
    err("K.npy", "kernel_params", "no parameters", kernel_params={"a": 1.0})
    err("K.npy", "kernel", "unknown kernel 'sigmoid'", "dissimilarity-linear",
        dissimilarity=True, kernel="sigmoid")
    save("D.npy", D)
    err("D.npy", "kernel_params", "unit must be > 0", dissimilarity=True,
        kernel="dissimilarity-raw", kernel_params={"unit": -1.0})
    err("D.npy", "kernel_params", "unknown parameter(s) gamma", dissimilarity=True,
        kernel_params={"gamma": 1.0})
    err(str(tmp_path / "missing.npy"), "kernel_file", "no such file")
    expect_error(lambda: load_kernel_file(files["K.npy"], y, symmetrize="yes"), "symmetrize",
                 "True or False")
    expect_error(lambda: load_kernel_file(files["K.npy"], y, dissimilarity=1), "dissimilarity",
                 "True or False")


# ---------------------------------------------------------------------------- load_feature_file
def test_feature_file_gives_kernel_data_like_the_bundled_sets(tmp_path, points):
    X, y = points
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(D_FEATURES)])
    df["class"] = y
    df.to_csv(tmp_path / "f.csv", index=False)
    data = load_feature_file(tmp_path / "f.csv")
    assert data.kind == "vector" and data.kernel == "sigmoid" and data.dataset == "f"
    assert data.kernel_params == {"a": 4.0 / D_FEATURES, "r": -2.0}
    Xs = scale_features(X.copy(), "standard")
    np.testing.assert_allclose(data.X, Xs, rtol=0, atol=1e-12)
    K_ref = sigmoid_kernel(data.X, a=4.0 / D_FEATURES, r=-2.0)
    np.testing.assert_array_equal(data.K, 0.5 * (K_ref + K_ref.T))
    assert list(data.y) == list(y) and data.y.dtype.kind == "U"
    assert "standardized" in data.description
    assert data.source == (f"feature file {os.path.abspath(tmp_path / 'f.csv')}, labels from "
                           "column 6 of 6 ('class')")
    assert len(data.notes) == 1 and "with a header row" in data.notes[0]
    assert not data.per_fold_kernel
    np.testing.assert_allclose(data.rows(data.X[:3]), data.K[:3], atol=1e-12)

    raw = load_feature_file(tmp_path / "f.csv", scale=None, kernel="gaussian",
                            kernel_params={"gamma": 0.1}, name="raw")
    np.testing.assert_allclose(raw.X, X, rtol=1e-15)
    assert raw.dataset == "raw" and raw.kernel_params["gamma"] == 0.1
    assert "raw features" in raw.description
    pick = load_feature_file(tmp_path / "f.csv", kernel="pick-out-linear")
    assert pick.label_dependent and pick.base_kernels.shape == (N, N, D_FEATURES)
    munoz = load_feature_file(tmp_path / "f.csv", kernel="pick-out-munoz-ionosphere")
    np.testing.assert_allclose(munoz.X, X, rtol=1e-15)  # its kernel parameter scale='raw'


def test_feature_file_svmlight_and_text(tmp_path, points):
    X, y = points
    y_int = np.where(y == "mine", 1, -1)
    dump_svmlight_file(X, y_int, str(tmp_path / "f.libsvm"))
    data = load_feature_file(tmp_path / "f.libsvm", scale="minmax")
    assert list(data.y) == list(y_int) and data.X.min() == -1.0 and data.X.max() == 1.0
    assert "LIBSVM" in data.notes[0] and "[-1, 1]" in data.description
    np.savetxt(tmp_path / "f.txt", np.column_stack([y_int, X]))
    data2 = load_feature_file(tmp_path / "f.txt", label_column=0, scale="minmax")
    np.testing.assert_allclose(data2.K, data.K, atol=1e-12)


def test_feature_file_checks(tmp_path, points):
    X, y = points
    np.savetxt(tmp_path / "single.csv", np.column_stack([X, np.ones(N)]), delimiter=",")
    np.savetxt(tmp_path / "ok.csv", np.column_stack([X, y == "mine"]), delimiter=",")
    single, ok = str(tmp_path / "single.csv"), str(tmp_path / "ok.csv")
    expect_error(lambda: load_feature_file(single), "data", "a single class (1.0)", start=single)
    expect_error(lambda: load_feature_file(ok, label_column=0), "data", "labels are different",
                 start=ok)
    expect_error(lambda: load_feature_file(ok, kernel="precomputed"), "kernel",
                 "unknown kernel 'precomputed'", "sigmoid", start=ok)
    expect_error(lambda: load_feature_file(ok, kernel="sigmoid", kernel_params={"gamma": 1}),
                 "kernel_params", "unknown parameter(s) gamma", "a, r", start=ok)
    expect_error(lambda: load_feature_file(ok, scale="unit"), "scale", "'standard'", start=ok)
    expect_error(lambda: load_feature_file(ok, kernel="pick-out-munoz-ionosphere",
                                           scale="minmax"), "scale", "parameter scale ('raw')",
                 start=ok)
    expect_error(lambda: load_feature_file(ok, label_column="label"), "label_column",
                 "no header row", start=ok)
    expect_error(lambda: load_feature_file(ok, name=""), "name", "non-empty")
    expect_error(lambda: load_feature_file(ok, label_column=0), "data",
                 "labels from column 1 of 6", "label_column chooses", start=ok)


def test_pick_out_memory_limit_applies_to_files_and_bundled_sets(tmp_path, points, monkeypatch):
    X, y = points
    np.savetxt(tmp_path / "ok.csv", np.column_stack([X, y == "mine"]), delimiter=",")
    ok = str(tmp_path / "ok.csv")
    monkeypatch.setattr("krein.kernel_data.PICK_OUT_MAX_BYTES", 1000)
    expect_error(lambda: load_feature_file(ok, kernel="pick-out-linear"), "kernel",
                 "base kernels of this file", "use fewer objects", start=ok)
    expect_error(lambda: load_kernel_data("sonar", kernel="pick-out-linear"), "kernel",
                 "base kernels of 'sonar'", "use n_samples to subsample")


# ---------------------------------------------------------------------------- the kernel catalogue
def test_kernel_kind_in_the_catalogue_and_bundled_sets_unchanged():
    assert available_kernels("kernel") == ["precomputed"]
    assert default_kernel("kernel") == "precomputed"
    assert "dissimilarity-linear" in available_kernels("dissimilarity")
    data = load_kernel_data("sonar", n_samples=60)
    assert data.source == "" and data.notes == () and data.kernel == "sigmoid"
