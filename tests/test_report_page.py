"""The report page of a comparison (``krein/experiment/page.py``), from a synthetic run directory.

:func:`make_run_directory` writes a directory with the files ``krein compare``
writes (``run.json``, ``summary.csv``, ``folds.csv``, ``spectrum.csv``, and
for 2-D data ``points.csv`` and ``boundaries.csv``) from made-up but
plausible numbers: the eigenvalues of a real sigmoid kernel on the points,
a skipped method, a method with one failed fold, a method that failed
everywhere (also on the boundary grid), and labels that need HTML escaping.
The page is checked against those files only: it parses with
:mod:`html.parser`, has its sections, one results row per line of
``summary.csv`` in the same order, decodable embedded PNGs, escaped text;
bad directories give errors that name the file.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from krein.experiment import page, page_figures
from krein.experiment.comparison_files import COMPARISON_FILES
from krein.experiment.page import (SavedComparison, accuracy_figure, boundary_figure,
                                   read_comparison, spectrum_figure, write_report)
from krein.experiment.statistics import edge_of_grid, significance_groups

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LABELS = ("<b>&", 'rock "n" roll $x$')
METHODS = ["esvm", "esvm-l", "svm", "flip", "clip", "indefinite-svm", "ksvm", "clc"]


def _sigmoid_eigenvalues(X, a=0.7, r=-0.5):
    K = np.tanh(a * X @ X.T + r)
    return np.linalg.eigvalsh((K + K.T) / 2)


def make_run_directory(directory, two_d=True, seed=0, grid=40):
    """Write a synthetic comparison directory (the producer's schema) and return its path.

    Parameters
    ----------
    directory : str or path-like
        Where to write (created).
    two_d : bool
        Also write ``points.csv`` and ``boundaries.csv``.
    seed : int
        Seed of the made-up numbers.
    grid : int
        Points per axis of the boundary grid.

    Returns
    -------
    str
        ``directory``.
    """
    rng = np.random.default_rng(seed)
    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    n0, n1 = 70, 50
    X = np.vstack([rng.normal([-0.8, -0.4], 0.7, (n0, 2)), rng.normal([0.9, 0.6], 0.8, (n1, 2))])
    y = np.array([LABELS[0]] * n0 + [LABELS[1]] * n1)
    lam = np.sort(_sigmoid_eigenvalues(X))
    n = lam.size
    tol = n * np.finfo(float).eps * np.abs(lam).max()
    p, q = int((lam > tol).sum()), int((lam < -tol).sum())
    run = {
        "krein_version": "0.1.0", "created": "2026-11-23T18:00:00Z", "seconds": 71.3,
        "command": "krein compare --data points.csv --kernel sigmoid --out 'dir <x>'",
        "data": {"name": "blobs <2d>", "source": "feature file /abs/blobs.csv",
                 "kind": "vector", "n_samples": n, "n_features": 2,
                 "description": "standardized: zero mean, unit variance per feature",
                 "classes": [[LABELS[0], n0], [LABELS[1], n1]],
                 "kernel": "sigmoid", "kernel_params": {"a": 0.7, "r": -0.5},
                 "notes": ["symmetrized: max |K - K'| = 3e-17 <below tolerance>"]},
        "spectrum": {"n": n, "p": p, "q": q, "z": n - p - q,
                     "min_eigenvalue": float(lam.min()), "max_eigenvalue": float(lam.max()),
                     "r_mm": 100 * float(-lam.min() / lam.max()),
                     "r_neg": 100 * float(-lam[lam < 0].sum() / np.abs(lam).sum())},
        "protocol": {"cv": 5, "repeats": 1, "inner_folds": 3, "seed": 0, "tuned": True,
                     "scoring": "accuracy", "solver": None,
                     "kernel_grid": {"a": [0.35, 0.7, 1.4]},
                     "grids": {m: {"C": [0.1, 1, 10]} for m in METHODS[:6]}
                     | {"indefinite-svm": {"C": [0.1, 1, 10], "rho": [0.1, 1]}, "ksvm": {}},
                     "fixed": {m: {} for m in METHODS[:7]} | {"esvm-l": {"energy": 0.9}}},
        "methods": METHODS,
        "skipped": {"clc": "needs base kernels (a pick-out kernel) & <labels>"},
    }
    with open(os.path.join(directory, "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f, indent=1)

    folds, summary = [], []
    level = {"esvm": 0.86, "esvm-l": 0.84, "svm": 0.83, "flip": 0.86, "clip": 0.82,
             "indefinite-svm": 0.85, "ksvm": np.nan}
    for m in METHODS:
        if m == "clc":
            summary.append(dict(method=m, status="skipped", accuracy_mean=np.nan,
                                accuracy_std=np.nan, best_params="{}", fit_seconds_mean=np.nan,
                                n_support_mean=np.nan, min_eigenvalue_mean=np.nan,
                                r_mm_mean=np.nan, r_neg_mean=np.nan, certificate="",
                                n_folds=0, n_errors=0, note=run["skipped"]["clc"]))
            continue
        rows = []
        for fold in range(5):
            err = ""
            if m == "ksvm":
                err = "SolverError: active set cycling <after 500 iterations> & gave up"
            elif m == "indefinite-svm" and fold == 3:
                err = "ValueError: rho must be > 0"
            acc = np.nan if err else float(np.clip(level[m] + rng.normal(0, 0.04), 0, 1))
            C = float(rng.choice([0.1, 1.0, 10.0]))
            C = 10.0 if m == "flip" else C  # flip: at the top of its grid (the edge flag)
            params = {"C": C, "kernel_a": 0.7} if m != "ksvm" else {}
            rows.append(dict(method=m, repeat=0, fold=fold, n_train=96, n_test=24, accuracy=acc,
                             best_params=json.dumps(params) if not err else "{}",
                             inner_score=np.nan if err else acc - 0.01,
                             fit_seconds=np.nan if err else float(rng.uniform(0.002, 0.8)),
                             select_seconds=float(rng.uniform(0.1, 2)),
                             n_support=np.nan if err else int(rng.integers(30, 70)),
                             min_eigenvalue=float(lam.min()) * 0.8, r_mm=12.0, r_neg=8.5,
                             solver_status="" if err else "optimal",
                             gap=np.nan if err else 3e-9,
                             certificate="" if err else "duality gap",
                             certificate_value=np.nan if err else 3e-9, error=err,
                             warnings="ConvergenceWarning: max_iter reached" if fold == 1 else "",
                             solver_used="CLARABEL",
                             # an inner grid point that could not be fitted, and why
                             n_inner_failures=2 if (m, fold) == ("clip", 2) else 0,
                             inner_error="ValueError: C=10 <infeasible> & refused"
                             if (m, fold) == ("clip", 2) else "",
                             # one '0'/'1' per test object, as the cells write it
                             test_correct="" if err else
                             "".join(rng.permutation(["1"] * int(round(acc * 24))
                                                     + ["0"] * (24 - int(round(acc * 24)))))))
        folds += rows
        f = pd.DataFrame(rows)
        ok = f[f["error"] == ""]
        status = "ok" if len(ok) == 5 else "failed" if not len(ok) else "partial"
        best = {}
        if len(ok):
            best = {"C": float(ok["best_params"].map(lambda t: json.loads(t)["C"]).mode()[0]),
                    "kernel_a": 0.7}
        summary.append(dict(
            method=m, status=status, accuracy_mean=ok["accuracy"].mean() if len(ok) else np.nan,
            accuracy_std=ok["accuracy"].std(ddof=0) if len(ok) else np.nan,
            best_params=json.dumps(best), fit_seconds_mean=ok["fit_seconds"].mean(),
            n_support_mean=ok["n_support"].mean(), min_eigenvalue_mean=float(lam.min()) * 0.8,
            r_mm_mean=12.0, r_neg_mean=8.5,
            certificate="gap <= 3.1e-09" if m == "indefinite-svm" else
            "KKT 2e-12" if m in ("esvm", "svm") else "",
            n_folds=5, n_errors=int((f["error"] != "").sum()),
            note=f["error"][f["error"] != ""].iloc[0] if (f["error"] != "").any() else ""))
    summary = pd.DataFrame(summary, columns=page.COMPARISON_COLUMNS["summary.csv"])
    # the significance and edge-of-grid columns, as krein compare writes them
    sig = significance_groups(pd.DataFrame(folds)).set_index("method")
    summary["p_value"] = summary["method"].map(sig["p_value"])
    summary["group"] = summary["method"].map(sig["group"]).fillna("")
    summary["edge"] = summary["method"].map(edge_of_grid(
        pd.DataFrame(folds), run["protocol"]["grids"], run["protocol"]["kernel_grid"])).fillna("")
    summary.to_csv(os.path.join(directory, "summary.csv"), index=False)
    pd.DataFrame(folds, columns=page.COMPARISON_COLUMNS["folds.csv"]).to_csv(
        os.path.join(directory, "folds.csv"), index=False)
    pd.DataFrame({"eigenvalue": lam}).to_csv(os.path.join(directory, "spectrum.csv"),
                                             index=False)
    if two_d:
        pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "label": y}).to_csv(
            os.path.join(directory, "points.csv"), index=False)
        lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
        G0, G1 = np.meshgrid(np.linspace(lo[0], hi[0], grid), np.linspace(lo[1], hi[1], grid))
        g = np.column_stack([G0.ravel(), G1.ravel()])
        rows = []
        for k, m in enumerate(METHODS[:7]):
            if m == "ksvm":
                rows.append(dict(method=m, x0=np.nan, x1=np.nan, prediction="",
                                 train_accuracy=np.nan,
                                 error="SolverError: active set cycling <after 500 iterations>"))
                continue
            w = np.array([1.0, 0.6 + 0.15 * k])
            score = g @ w + 0.25 * k * np.sin(2 * g[:, 0]) - 0.1
            pred = np.where(score > 0, LABELS[1], LABELS[0])
            train = np.where(X @ w + 0.25 * k * np.sin(2 * X[:, 0]) - 0.1 > 0, LABELS[1],
                             LABELS[0])
            rows += [dict(method=m, x0=a, x1=b, prediction=c,
                          train_accuracy=float((train == y).mean()), error="")
                     for (a, b), c in zip(g, pred)]
        pd.DataFrame(rows, columns=page.COMPARISON_COLUMNS["boundaries.csv"]).to_csv(
            os.path.join(directory, "boundaries.csv"), index=False)
    return directory


class _Page(HTMLParser):
    """Sections, images, the results rows and the text of an HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections, self.images, self.rows, self.text = [], [], [], []
        self.tags = []
        self._table = None
        self._row = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "section":
            self.sections.append(attrs.get("id"))
        elif tag == "img":
            self.images.append(attrs["src"])
        elif tag == "table":
            self._table = attrs.get("id")
        elif tag == "tr" and self._table == "results-table":
            self._row = {"attrs": attrs, "cells": []}
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self._row["cells"].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._row["cells"]:
                self.rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _parse(path):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    parser = _Page()
    parser.feed(source)
    parser.close()
    return source, parser


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_run_directory(tmp_path_factory.mktemp("compare") / "run")


@pytest.fixture(scope="module")
def report(run_dir):
    path = write_report(run_dir)
    return path, *_parse(path)


def test_page_and_figures_are_written(run_dir, report):
    path = report[0]
    assert path == os.path.join(run_dir, "report.html")
    for name in ("spectrum.png", "accuracy.png", "boundaries.png"):
        with open(os.path.join(run_dir, name), "rb") as f:
            assert f.read(8) == PNG_SIGNATURE
    assert not [n for n in os.listdir(run_dir) if n.endswith(".tmp")]


def test_page_parses_with_its_sections(report):
    _, source, parsed = report
    assert source.startswith("<!DOCTYPE html>")
    assert parsed.sections == ["data", "spectrum", "protocol", "results", "boundaries"]
    assert "script" not in parsed.tags  # static: no JavaScript
    assert {"style", "footer", "h1"} <= set(parsed.tags)
    text = " ".join(parsed.text)
    assert "krein 0.1.0" in text and "2026-11-23 18:00 UTC" in text and "1 min 11 s" in text
    assert "stratified 5-fold cross-validation × 1 repeat" in text
    assert "inner 3-fold cross-validation" in text
    assert "a ∈ {0.35, 0.7, 1.4}" in text  # the kernel grid
    assert "rho ∈ {0.1, 1}" in text  # a method's grid


def test_results_rows_match_summary(run_dir, report):
    parsed = report[2]
    summary = pd.read_csv(os.path.join(run_dir, "summary.csv"), keep_default_na=False)
    assert [r["attrs"]["data-method"] for r in parsed.rows] == list(summary["method"])
    for row, (_, s) in zip(parsed.rows, summary.iterrows()):
        cells = row["cells"]
        classes = row["attrs"]["class"].split()
        assert cells[1] == s["method"]
        assert s["status"] in classes and cells[-1].startswith(s["status"])
        if s["status"] in ("ok", "partial"):
            mean, std = float(s["accuracy_mean"]), float(s["accuracy_std"])
            assert cells[2] == f"{100 * mean:.1f} ± {100 * std:.1f}"
            chosen = json.loads(s["best_params"])
            assert cells[3] == ", ".join(f"{k}={v:g}" for k, v in chosen.items())
        else:
            assert "muted" in classes and cells[2] == "–"
            assert s["note"] in cells[-1]  # the reason, unescaped by the parser
    ran = summary[summary["status"].isin(["ok", "partial"])]
    best = ran["method"][ran["accuracy_mean"] == ran["accuracy_mean"].max()]
    assert [r["attrs"]["data-method"] for r in parsed.rows
            if "best" in r["attrs"]["class"].split()] == list(best)


def test_embedded_images_are_pngs(report):
    images = report[2].images
    assert len(images) == 3
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1], validate=True)[:8] == PNG_SIGNATURE


def test_text_from_the_files_is_escaped(report):
    _, source, parsed = report
    text = " ".join(parsed.text)
    for raw in (LABELS[0], "blobs <2d>", "<below tolerance>", "<after 500 iterations>"):
        assert raw in text  # shown as text ...
        assert raw not in source  # ... because escaped in the source
    assert "&lt;b&gt;&amp;" in source
    assert "<b>&" not in source
    assert "dir &lt;x&gt;" in source  # the command


def test_figures_from_the_files_only(run_dir, tmp_path, monkeypatch):
    # a copy elsewhere, with nothing but the producer's files, and no data loading
    import krein.kernel_data

    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("run.json", "summary.csv", "folds.csv", "spectrum.csv", "points.csv",
                 "boundaries.csv"):
        shutil.copy(os.path.join(run_dir, name), copy / name)

    def forbidden(*args, **kwargs):
        raise AssertionError("the report must not load data")

    monkeypatch.setattr(krein.kernel_data, "load_kernel_data", forbidden)
    c = read_comparison(copy)
    for make in (spectrum_figure, accuracy_figure, boundary_figure):
        fig = make(c)
        assert fig is not None and fig.axes
    assert len(boundary_figure(copy).axes) == 7  # one panel per method with a boundary row
    path = write_report(copy)
    assert sorted(os.listdir(copy)) == sorted(
        ["run.json", "summary.csv", "folds.csv", "spectrum.csv", "points.csv",
         "boundaries.csv", "report.html", "spectrum.png", "accuracy.png", "boundaries.png"])
    assert os.path.getsize(path) > 10_000


def test_without_2d_files_no_boundaries(tmp_path):
    d = make_run_directory(tmp_path / "run", two_d=False)
    c = read_comparison(d)
    assert c.points is None and c.boundaries is None and boundary_figure(c) is None
    _, parsed = _parse(write_report(d))
    assert "boundaries" not in parsed.sections and len(parsed.images) == 2
    assert not os.path.exists(os.path.join(d, "boundaries.png"))


def test_read_comparison_round_trips(run_dir):
    c = read_comparison(run_dir)
    assert isinstance(c, SavedComparison)
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        assert c.run == json.load(f)
    for name, frame in (("summary.csv", c.summary), ("folds.csv", c.folds),
                        ("points.csv", c.points), ("boundaries.csv", c.boundaries)):
        # test_correct is text ('0'/'1' per test object): leading zeros kept
        written = pd.read_csv(os.path.join(run_dir, name), dtype={"test_correct": str})
        assert list(frame.columns) == list(written.columns)
        numeric = COMPARISON_FILES[name].numeric
        for column in written.columns:
            # a text column left empty (e.g. grid_search of a run on fixed grids) reads
            # back as "" where pandas alone guesses a float column of NaN
            if pd.api.types.is_numeric_dtype(written[column]) and (
                    column in numeric or written[column].notna().any()):
                np.testing.assert_allclose(frame[column].to_numpy(float),
                                           written[column].to_numpy(float), err_msg=column)
            else:
                assert list(frame[column]) == list(written[column].fillna("")), column
    assert c.folds["fold"].dtype.kind == "i" and c.summary["n_errors"].dtype.kind == "i"
    np.testing.assert_allclose(c.eigenvalues,
                               pd.read_csv(os.path.join(run_dir, "spectrum.csv"))["eigenvalue"])
    assert c.classes == [(LABELS[0], 70), (LABELS[1], 50)]
    assert c.majority_rate == pytest.approx(70 / 120)
    computed = SavedComparison(c.directory, {}, c.summary, c.folds, c.eigenvalues).spectrum
    for key, value in c.run["spectrum"].items():  # recorded == recomputed from the eigenvalues
        assert computed[key] == pytest.approx(value), key


def test_text_columns_are_verbatim(tmp_path):
    d = make_run_directory(tmp_path / "run")
    pts = pd.read_csv(os.path.join(d, "points.csv"))
    pts["label"] = np.where(pts["label"] == LABELS[0], "NA", "None")
    pts.to_csv(os.path.join(d, "points.csv"), index=False)
    assert set(read_comparison(d).points["label"]) == {"NA", "None"}


@pytest.mark.parametrize("name", ["summary.csv", "run.json", "folds.csv", "spectrum.csv",
                                  "boundaries.csv"])
def test_missing_file_is_named(tmp_path, name):
    d = make_run_directory(tmp_path / "run")
    os.remove(os.path.join(d, name))
    with pytest.raises(FileNotFoundError, match=name.replace(".", r"\.")):
        read_comparison(d)
    with pytest.raises(FileNotFoundError, match=name.replace(".", r"\.")):
        write_report(d)
    assert not os.path.exists(os.path.join(d, "report.html"))


def test_bad_files_are_named(tmp_path):
    d = make_run_directory(tmp_path / "run", two_d=False)
    summary = pd.read_csv(os.path.join(d, "summary.csv"))
    summary.drop(columns="accuracy_mean").to_csv(os.path.join(d, "summary.csv"), index=False)
    with pytest.raises(ValueError, match=r"summary\.csv: missing column\(s\) accuracy_mean"):
        read_comparison(d)
    summary.assign(status="done").to_csv(os.path.join(d, "summary.csv"), index=False)
    with pytest.raises(ValueError, match=r"summary\.csv line 2: unknown status 'done'"):
        read_comparison(d)
    summary.assign(accuracy_mean="high").to_csv(os.path.join(d, "summary.csv"), index=False)
    with pytest.raises(ValueError, match=r"summary\.csv line 2: column accuracy_mean holds a "
                                         r"non-numeric value 'high'"):
        read_comparison(d)
    summary.to_csv(os.path.join(d, "summary.csv"), index=False)
    with open(os.path.join(d, "run.json"), "w") as f:
        f.write("{not json")
    with pytest.raises(ValueError, match=r"run\.json: not valid JSON"):
        read_comparison(d)
    with open(os.path.join(d, "run.json"), "w") as f:
        f.write('{"data": [1, 2]}')
    with pytest.raises(ValueError, match=r"run\.json: 'data' must be a JSON object"):
        read_comparison(d)
    with pytest.raises(FileNotFoundError, match="no such directory"):
        read_comparison(tmp_path / "nowhere")


def test_a_minimal_run_json_still_renders(tmp_path):
    d = make_run_directory(tmp_path / "run", two_d=False)
    with open(os.path.join(d, "run.json"), "w") as f:
        f.write("{}")
    _, parsed = _parse(write_report(d))
    assert "not recorded" in " ".join(parsed.text)
    assert len(parsed.rows) == len(METHODS)


def test_boundary_grid_at_any_scale(run_dir):
    # the grid is rebuilt from the coordinates alone, whatever their scale
    c = read_comparison(run_dir)
    rows = c.boundaries[c.boundaries["method"] == "esvm"]
    classes = [name for name, _ in c.classes]
    for scale in (1e-12, 1.0, 1e9):
        x0, x1, Z = page_figures._grid_image(rows.assign(x0=rows["x0"] * scale,
                                                         x1=rows["x1"] * scale), classes)
        assert Z.shape == (40, 40) and not np.ma.getmaskarray(Z).any()
        assert set(np.unique(Z)) == {0, 1}


def test_empty_summary_still_renders(tmp_path):
    d = make_run_directory(tmp_path / "run", two_d=False)
    columns = page.COMPARISON_COLUMNS["summary.csv"]
    pd.DataFrame(columns=columns).to_csv(os.path.join(d, "summary.csv"), index=False)
    # a run.json that lists no methods (with its methods, an empty summary.csv is refused:
    # tests/test_faults_results.py)
    with open(os.path.join(d, "run.json")) as f:
        run = json.load(f)
    run.pop("methods", None)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump(run, f)
    _, parsed = _parse(write_report(d))
    assert parsed.rows == [] and "No method produced an accuracy." in " ".join(parsed.text)
