"""Files as researchers write them, through `load_kernel_file` and `krein compare`.

Named matrices (R's ``write.csv(as.matrix(dist(x)))``, R's ``write.table``, pandas'
``to_csv()``, header only, index only, ``--names``), labels as ``name,label`` tables
matched by name, label files with a header line or quoted strings, condensed distance
vectors (``scipy.spatial.distance.pdist``), edge lists of scored pairs (BLAST-like
columns, both directions, missing pairs, self-scores), and the ``suspect`` status of a
method at or below the majority class on a distance matrix given as a kernel.  Every
rejected input on the command line: one line, exit status 2, no traceback, nothing
written.
"""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
import scipy.spatial.distance

from krein.cli import main
from krein.kernel_data import InvalidArgument, load_kernel_file

FAST = ["--methods", "svm", "--cv", "2", "--grid", "C=1", "--no-progress", "--n-jobs", "1"]


@pytest.fixture(scope="module")
def cat():
    """CatCortex (65 cortical areas, 4 classes; shipped): its distances, labels and names."""
    from krein.kernel_data import load_kernel_data

    d = load_kernel_data("catcortex")
    D = np.asarray(d.D, dtype=float)
    names = [f"area {i:02d}" for i in range(D.shape[0])]  # names with a space, as R keeps them
    return D, np.asarray(d.y), names


def _write_r_csv(path, M, names):
    """What R's write.csv(as.matrix(dist(x))) writes: a quoted "" corner and quoted names."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow([""] + names)
        for name, row in zip(names, M):
            w.writerow([name] + [float(v) for v in row])


def _write_r_table(path, M, names):
    """What R's write.table(m) writes: space separated, quoted, a header one field short."""
    with open(path, "w") as f:
        f.write(" ".join(f'"{n}"' for n in names) + "\n")
        for name, row in zip(names, M):
            f.write(f'"{name}" ' + " ".join(repr(float(v)) for v in row) + "\n")


def _label_table(path, names, y, order, header=True, quote=True):
    q = '"' if quote else ""
    with open(path, "w") as f:
        if header:
            f.write(f"{q}name{q},{q}label{q}\n")
        for i in order:
            f.write(f"{q}{names[i]}{q},{q}{y[i]}{q}\n")
    return str(path)


def _fails(args, capsys, *pieces, out=None):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("krein compare: error: "), err
    for piece in pieces:
        assert piece in err, (piece, err)
    assert captured.out == ""
    if out is not None:
        assert not out.exists()
    return err


# ---------------------------------------------------------------------------- named matrices
@pytest.mark.parametrize("writer", ["r_csv", "r_table", "pandas"])
def test_named_distance_matrix_and_a_shuffled_label_table(cat, tmp_path, writer):
    D, y, names = cat
    path = tmp_path / ("D.txt" if writer == "r_table" else "D.csv")
    if writer == "r_csv":
        _write_r_csv(path, D, names)
    elif writer == "r_table":
        _write_r_table(path, D, names)
    else:
        pd.DataFrame(D, index=names, columns=names).to_csv(path)
    order = np.random.default_rng(0).permutation(len(names))
    labels = _label_table(tmp_path / "labels.csv", names, y, order)
    data = load_kernel_file(str(path), labels, dissimilarity=True)
    np.testing.assert_array_equal(data.D, D)
    assert list(data.names) == names
    np.testing.assert_array_equal(data.y, y)  # matched by name, back in the matrix's order
    assert any("matched" in note and "by name" in note for note in data.notes)


@pytest.mark.parametrize("layout", ["header", "index"])
def test_header_only_and_index_only(cat, tmp_path, layout):
    D, y, names = cat
    frame = pd.DataFrame(D, index=names, columns=names)
    path = tmp_path / "D.csv"
    if layout == "header":
        frame.to_csv(path, index=False)
    else:
        frame.to_csv(path, header=False)
    labels = _label_table(tmp_path / "labels.csv", names, y, range(len(names))[::-1])
    data = load_kernel_file(str(path), labels, dissimilarity=True)
    np.testing.assert_array_equal(data.D, D)
    assert list(data.names) == names
    np.testing.assert_array_equal(data.y, y)


def test_names_option_reads_numeric_names(cat, tmp_path):
    """Unquoted numeric names (R's default dimnames 1..n) are numbers unless --names says so."""
    D, y, _ = cat
    n = D.shape[0]
    ids = [str(i + 1) for i in range(n)]
    path = tmp_path / "D.csv"
    with open(path, "w") as f:
        f.write(",".join(ids) + "\n")
        for row in D:
            f.write(",".join(repr(float(v)) for v in row) + "\n")
    labels = tmp_path / "y.txt"
    labels.write_text("\n".join(str(v) for v in y) + "\n")
    with pytest.raises(InvalidArgument, match="square"):
        load_kernel_file(str(path), str(labels), dissimilarity=True)
    data = load_kernel_file(str(path), str(labels), dissimilarity=True, names="header")
    np.testing.assert_array_equal(data.D, D)
    assert list(data.names) == ids


def test_row_and_column_names_must_agree(cat, tmp_path, capsys):
    D, y, names = cat
    cols = list(names)
    cols[3], cols[4] = cols[4], cols[3]
    path = tmp_path / "D.csv"
    pd.DataFrame(D, index=names, columns=cols).to_csv(path)
    labels = _label_table(tmp_path / "labels.csv", names, y, range(len(names)))
    out = tmp_path / "out"
    _fails(["compare", "--kernel-file", str(path), "--labels", labels, "--dissimilarity",
            "--out", str(out), *FAST], capsys, "row and column names differ", "row 4",
           "'area 03'", "'area 04'", out=out)


def test_labels_by_name_missing_and_twice_in_one_line(cat, tmp_path, capsys):
    D, y, names = cat
    path = tmp_path / "D.csv"
    pd.DataFrame(D, index=names, columns=names).to_csv(path)
    order = list(range(len(names) - 2)) + [0]  # the last two missing, the first twice
    labels = _label_table(tmp_path / "labels.csv", names, y, order)
    out = tmp_path / "out"
    _fails(["compare", "--kernel-file", str(path), "--labels", labels, "--dissimilarity",
            "--out", str(out), *FAST], capsys, "--labels", "1 names given twice ('area 00')",
           "2 objects", "no label ('area 63', 'area 64')", "by name", out=out)


def test_names_option_is_checked(cat, tmp_path, capsys):
    D, y, names = cat
    np.save(tmp_path / "D.npy", D)
    labels = tmp_path / "y.txt"
    labels.write_text("\n".join(str(v) for v in y) + "\n")
    out = tmp_path / "out"
    _fails(["compare", "--kernel-file", str(tmp_path / "D.npy"), "--labels", str(labels),
            "--dissimilarity", "--names", "header", "--out", str(out), *FAST], capsys,
           "holds no object names", "--names", out=out)
    _fails(["compare", "--dataset", "sonar", "--names", "both", "--out", str(out), *FAST],
           capsys, "--names", "kernel_file", out=out)


# ---------------------------------------------------------------------------- labels
def test_one_column_labels_with_a_header_line(tmp_path):
    from krein.datasets._tables import read_label_table

    (tmp_path / "class.txt").write_text("class\nmine\nrock\nmine\n")
    assert list(read_label_table(tmp_path / "class.txt")[0]) == ["mine", "rock", "mine"]
    (tmp_path / "target.csv").write_text("Target\n1\n2\n1\n")
    assert list(read_label_table(tmp_path / "target.csv")[0]) == [1, 2, 1]
    # a word that is no header word: a header only when the file holds n + 1 lines
    (tmp_path / "diag.txt").write_text("Diagnosis\nbenign\nmalignant\nbenign\n")
    y, _, header = read_label_table(tmp_path / "diag.txt", n=3)
    assert list(y) == ["benign", "malignant", "benign"] and header == "Diagnosis"
    assert len(read_label_table(tmp_path / "diag.txt", n=4)[0]) == 4
    # "y" is a header word, but here a class (it occurs again): not a header
    (tmp_path / "votes.txt").write_text("y\nn\ny\nn\n")
    assert list(read_label_table(tmp_path / "votes.txt")[0]) == ["y", "n", "y", "n"]


def test_header_and_quoted_labels_through_compare(cat, tmp_path, capsys):
    D, y, _ = cat
    np.save(tmp_path / "D.npy", D)
    words = np.array(["visual", "auditory", "somatosensory", "frontolimbic"])[y - y.min()]
    labels = tmp_path / "labels.txt"  # R: write.table(data.frame(class = ...), row.names = FALSE)
    labels.write_text('"class"\n' + "\n".join(f'"{w}"' for w in words) + "\n")
    out = tmp_path / "run"
    rc = main(["compare", "--kernel-file", str(tmp_path / "D.npy"), "--labels", str(labels),
               "--dissimilarity", "--out", str(out), *FAST])
    assert rc == 0
    text = capsys.readouterr().out
    assert "classes: " in text and '"' not in text.split("classes: ")[1].splitlines()[0]
    run = pd.read_json(out / "run.json", typ="series")
    classes = dict((str(k), int(v)) for k, v in run["data"]["classes"])
    assert classes == {w: int((words == w).sum()) for w in set(words)}


def test_two_column_labels_without_header_and_r_row_names(cat, tmp_path):
    D, y, names = cat
    path = tmp_path / "D.csv"
    pd.DataFrame(D, index=names, columns=names).to_csv(path)
    order = np.random.default_rng(2).permutation(len(names))
    plain = _label_table(tmp_path / "plain.csv", names, y, order, header=False, quote=False)
    np.testing.assert_array_equal(load_kernel_file(str(path), plain, dissimilarity=True).y, y)
    # R: write.csv(data.frame(name = ..., label = ...)): a row-number column under ""
    frame = pd.DataFrame({"name": np.array(names)[order], "label": y[order]},
                         index=np.arange(1, len(names) + 1))
    frame.to_csv(tmp_path / "r.csv", quoting=csv.QUOTE_NONNUMERIC)
    np.testing.assert_array_equal(
        load_kernel_file(str(path), str(tmp_path / "r.csv"), dissimilarity=True).y, y)


# ---------------------------------------------------------------------------- condensed
def test_condensed_vector_is_squareform(cat, tmp_path):
    D, y, _ = cat
    v = scipy.spatial.distance.squareform(D, checks=False)
    np.save(tmp_path / "v.npy", v)
    np.savetxt(tmp_path / "v.txt", v[None], fmt="%.17g")   # one line, as R's cat(dist(x))
    np.savetxt(tmp_path / "col.csv", v, fmt="%.17g")        # one column
    for name in ("v.npy", "v.txt", "col.csv"):
        data = load_kernel_file(str(tmp_path / name), y, dissimilarity=True)
        np.testing.assert_array_equal(data.D, D)
        assert any("squareform" in note for note in data.notes)


def test_condensed_vector_errors(cat, tmp_path, capsys):
    D, y, _ = cat
    v = scipy.spatial.distance.squareform(D, checks=False)
    np.save(tmp_path / "v.npy", v)
    np.save(tmp_path / "short.npy", v[:-1])
    labels = tmp_path / "y.txt"
    labels.write_text("\n".join(str(v) for v in y) + "\n")
    out = tmp_path / "out"
    _fails(["compare", "--kernel-file", str(tmp_path / "v.npy"), "--labels", str(labels),
            "--out", str(out), *FAST], capsys, "n = 65", "squareform", "--dissimilarity",
           out=out)
    _fails(["compare", "--kernel-file", str(tmp_path / "short.npy"), "--labels", str(labels),
            "--dissimilarity", "--out", str(out), *FAST], capsys,
           f"1-D array of length {v.size - 1}", "not n(n-1)/2", "squareform",
           "2016 for n = 64, 2080 for n = 65", out=out)


# ---------------------------------------------------------------------------- edge lists
@pytest.fixture(scope="module")
def sonar_pairs():
    """Aural Sonar (Chen et al. 2009; shipped): 100 echoes, their similarities and names."""
    from krein.kernel_data import load_kernel_data

    d = load_kernel_data("aural-sonar")
    S = np.asarray(d.K, dtype=float)
    names = [f"echo_{i:03d}" for i in range(S.shape[0])]
    return S, np.asarray(d.y), names


def _edges(path, S, names, keep, sep="\t", header=None, blast=False, self_scores=False):
    """Pairs (i, j) with keep[i, j], both directions, as an aligner or BLAST would list them."""
    lines = [] if header is None else [sep.join(header)]
    n = len(names)
    for i in range(n):
        for j in range(n):
            if (i == j and self_scores) or (i != j and keep[i, j]):
                s = repr(float(S[i, j]))
                if blast:  # qseqid sseqid pident length mismatch gapopen qstart qend sstart
                    fields = [names[i], names[j], "97.5", "120", "3", "0", "1", "120", "1",
                              "120", "1e-30", s]  # send evalue bitscore
                else:
                    fields = [names[i], names[j], s]
                lines.append(sep.join(fields))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_edge_list_of_real_similarities(sonar_pairs, tmp_path):
    S, y, names = sonar_pairs
    n = len(names)
    keep = S > 0  # the pairs a search reports: those with a positive score
    np.fill_diagonal(keep, False)
    edges = _edges(tmp_path / "pairs.tsv", S, names, keep, header=["query", "subject", "score"])
    order = np.random.default_rng(5).permutation(n)
    labels = _label_table(tmp_path / "labels.csv", names, y, order)
    data = load_kernel_file(edges, labels)
    assert list(data.names) == names  # first appearance
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_array_equal(data.K[off], np.where(keep, S, 0.0)[off])  # missing: 0
    np.testing.assert_array_equal(np.diag(data.K), np.max(np.where(off, data.K, -np.inf), 1))
    np.testing.assert_array_equal(data.y, y)
    assert any("not in the file set to 0" in t for t in data.notes)
    assert any("header 'query,subject,score' skipped" in t for t in data.notes)


def test_edge_list_blast_columns_directions_and_self_scores(sonar_pairs, tmp_path):
    S, y, names = sonar_pairs
    idx = np.r_[0:15, 50:65]  # both classes
    names, S, y = [names[i] for i in idx], S[np.ix_(idx, idx)], y[idx]
    n = len(names)
    A = S.copy()
    A[np.triu_indices(n, 1)] *= 2.0  # the two directions of a pair score differently
    keep = ~np.eye(n, dtype=bool)
    blast = _edges(tmp_path / "hits.m8", A, names, keep, blast=True, self_scores=True)
    labels = _label_table(tmp_path / "labels.csv", names, y, range(n))
    got = {}
    for rule in ("mean", "max", "min"):
        got[rule] = load_kernel_file(blast, labels, edge_list=True, edge_columns="1,2,12",
                                     symmetrize=rule).K
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_allclose(got["mean"][off], (0.5 * (A + A.T))[off], rtol=1e-15)
    np.testing.assert_array_equal(got["max"][off], np.maximum(A, A.T)[off])
    np.testing.assert_array_equal(got["min"][off], np.minimum(A, A.T)[off])
    np.testing.assert_array_equal(np.diag(got["mean"]), np.diag(A))  # self-scores from the file
    # the default columns 1,2,3 read the percent identity of BLAST: a constant similarity
    assert np.all(load_kernel_file(blast, labels, edge_list=True).K[off] == 97.5)


def test_edge_list_through_compare_writes_named_objects(sonar_pairs, tmp_path, capsys):
    S, y, names = sonar_pairs
    keep = S > 0.2
    np.fill_diagonal(keep, False)
    edges = _edges(tmp_path / "pairs.txt", S, names, keep, sep=" ")
    labels = _label_table(tmp_path / "labels.csv", names, y,
                          np.random.default_rng(1).permutation(len(names)))
    out = tmp_path / "run"
    rc = main(["compare", "--kernel-file", edges, "--labels", labels, "--out", str(out),
               "--missing", "0.05", *FAST])
    assert rc == 0
    text = capsys.readouterr().out
    assert "read as an edge list" in text and "set to 0.05 (missing)" in text
    objects = pd.read_csv(out / "objects.csv", dtype=str)
    assert list(objects.columns) == ["part", "index", "name", "label"]
    assert set(objects["part"]) == {"train"}
    assert list(objects["name"]) == names
    assert list(objects["label"]) == [str(v) for v in y]
    from krein.experiment.comparison_files import read_comparison

    assert list(read_comparison(out).objects["name"]) == names


def test_edge_list_errors(sonar_pairs, tmp_path, capsys):
    S, y, names = sonar_pairs
    D = 1.0 - S
    keep = S > 0.2
    np.fill_diagonal(keep, False)
    edges = _edges(tmp_path / "dist.tsv", D, names, keep)
    labels = _label_table(tmp_path / "labels.csv", names, y, range(len(names)))
    plain = tmp_path / "y.txt"
    plain.write_text("\n".join(str(v) for v in y) + "\n")
    out = tmp_path / "out"
    base = ["compare", "--kernel-file", edges, "--out", str(out), *FAST]
    _fails([*base, "--labels", labels, "--dissimilarity"], capsys, "--missing", "pairs",
           "not in the edge list", "no default", out=out)
    _fails([*base, "--labels", str(plain)], capsys, "--labels", "name,label table", out=out)
    _fails([*base, "--labels", labels, "--edge-columns", "1,2"], capsys, "--edge-columns",
           "three", out=out)
    _fails([*base, "--labels", labels, "--edge-columns", "1,2,9"], capsys, "line 1",
           "need 9", "--edge-columns", out=out)
    # with --missing the dissimilarities are complete
    data = load_kernel_file(edges, labels, dissimilarity=True, missing=float(D.max()))
    assert np.all(np.diag(data.D) == 0) and data.D.max() == D.max()


# ---------------------------------------------------------------------------- suspect
def test_distance_given_as_kernel_is_suspect_not_ok(cat, tmp_path, capsys):
    D, y, _ = cat
    np.save(tmp_path / "D.npy", D)
    labels = tmp_path / "y.txt"
    labels.write_text("\n".join(str(v) for v in y) + "\n")
    out = tmp_path / "run"
    rc = main(["compare", "--kernel-file", str(tmp_path / "D.npy"), "--labels", str(labels),
               "--methods", "knn,svm", "--cv", "2", "--no-tune", "--no-progress", "--n-jobs",
               "1", "--out", str(out)])
    assert rc == 0
    captured = capsys.readouterr()
    summary = pd.read_csv(out / "summary.csv").set_index("method")
    majority = np.bincount(y).max() / y.size
    low = summary["accuracy_mean"] <= majority
    assert low.any()
    assert (summary.loc[low, "status"] == "suspect").all()
    assert (summary.loc[~low, "status"] != "suspect").all()
    assert summary.loc[low, "note"].str.contains("looks like a distance").all()
    assert "suspect (<= majority class" in captured.out
    assert "use --dissimilarity" in captured.out
    page = (out / "report.html").read_text()
    assert 'badge suspect' in page and "majority-class rate" in page


def test_the_same_distances_with_dissimilarity_are_not_suspect(cat, tmp_path, capsys):
    D, y, _ = cat
    np.save(tmp_path / "D.npy", D)
    labels = tmp_path / "y.txt"
    labels.write_text("\n".join(str(v) for v in y) + "\n")
    out = tmp_path / "run"
    assert main(["compare", "--kernel-file", str(tmp_path / "D.npy"), "--labels", str(labels),
                 "--dissimilarity", "--methods", "knn,svm", "--cv", "2", "--no-tune",
                 "--no-progress", "--n-jobs", "1", "--out", str(out)]) == 0
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["status"]) == {"ok"}
    assert not (out / "objects.csv").exists()  # no names: no objects file


def test_symmetrize_rules_of_a_dense_matrix(sonar_pairs, tmp_path):
    from krein.compare import Comparison

    S, y, _ = sonar_pairs
    A = S.copy()
    A[np.triu_indices(A.shape[0], 1)] += 0.25
    np.save(tmp_path / "A.npy", A)
    for rule, expected in (("mean", 0.5 * (A + A.T)), ("max", np.maximum(A, A.T)),
                           ("min", np.minimum(A, A.T)), (True, 0.5 * (A + A.T))):
        data = load_kernel_file(str(tmp_path / "A.npy"), y, symmetrize=rule)
        np.testing.assert_array_equal(data.K, expected)
    entry = Comparison(kernel_file=str(tmp_path / "A.npy"), labels=str(tmp_path / "A.npy"),
                       symmetrize="max").data_entry["data_file"]
    assert entry["symmetrize"] == "max" and "names" not in entry and "edge_list" not in entry
    with pytest.raises(InvalidArgument, match="'mean', 'max' or 'min'"):
        load_kernel_file(str(tmp_path / "A.npy"), y, symmetrize="median")


def test_named_test_part_matched_by_name(sonar_pairs, tmp_path, capsys):
    S, y, names = sonar_pairs
    train, test = np.r_[0:30, 50:80], np.r_[30:50, 80:100]
    tn, sn = [names[i] for i in train], [names[i] for i in test]
    pd.DataFrame(S[np.ix_(train, train)], index=tn, columns=tn).to_csv(tmp_path / "K.csv")
    cols = np.random.default_rng(3).permutation(len(tn))  # the test columns in another order
    pd.DataFrame(S[np.ix_(test, train)][:, cols], index=sn,
                 columns=[tn[j] for j in cols]).to_csv(tmp_path / "K_test.csv")
    labels = _label_table(tmp_path / "y.csv", names, y, train[::-1])
    test_labels = _label_table(tmp_path / "y_test.csv", names, y, test[::-1])
    data = load_kernel_file(str(tmp_path / "K.csv"), labels, test_path=str(tmp_path / "K_test.csv"),
                            test_labels=test_labels)
    np.testing.assert_array_equal(data.K_test, S[np.ix_(test, train)])
    np.testing.assert_array_equal(data.y_test, y[test])
    assert list(data.test_names) == sn
    out = tmp_path / "run"
    assert main(["compare", "--kernel-file", str(tmp_path / "K.csv"), "--labels", labels,
                 "--test-kernel-file", str(tmp_path / "K_test.csv"), "--test-labels",
                 test_labels, "--methods", "svm", "--grid", "C=1", "--no-progress",
                 "--n-jobs", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    objects = pd.read_csv(out / "objects.csv", dtype=str)
    assert list(objects.loc[objects["part"] == "test", "name"]) == sn
    assert list(objects.loc[objects["part"] == "train", "name"]) == tn
    bad = pd.read_csv(tmp_path / "K_test.csv", index_col=0).drop(columns=[tn[5]])
    bad.to_csv(tmp_path / "bad.csv")
    _fails(["compare", "--kernel-file", str(tmp_path / "K.csv"), "--labels", labels,
            "--test-kernel-file", str(tmp_path / "bad.csv"), "--test-labels", test_labels,
            "--out", str(tmp_path / "out"), "--methods", "svm", "--no-progress"], capsys,
           "--test-kernel-file", "1 training objects have no column", repr(tn[5]), "by name",
           out=tmp_path / "out")
