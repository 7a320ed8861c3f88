"""The inner model selection of ``krein compare`` at large n: one stratified validation split.

Above :data:`krein.comparison_arguments.VALIDATION_SPLIT_ABOVE` objects per outer
training part (monkeypatched small here) the comparison's cells select parameters on
ONE stratified validation split instead of k inner folds.  Checked:

* the switch: the cells of a comparison just above the threshold run the validation
  split, those at the threshold the 3 folds, with the cells (keys, seeds) of the small-n
  protocol; an explicit ``inner_folds`` wins on both sides; without tuning nothing changes;
* the split against scikit-learn: a cell with ``inner_folds=1`` chooses what
  ``GridSearchCV(cv=StratifiedShuffleSplit(1, test_size=0.2, random_state=seed))``
  chooses on the same outer training block, with the same inner score and accuracy;
* the pairing: every method of an outer fold is selected on the same validation indices
  (recorded inside the run), a stratified 20 % of the outer training part;
* the record: ``run.json``'s protocol (``inner``, ``inner_folds``,
  ``validation_fraction``), the report page's protocol section and the terminal's line;
* bad values: one line naming the option, exit 2, nothing written.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit

import krein.comparison_arguments as arguments
import krein.experiment.classification as classification
from krein.cli import main
from krein.compare import Comparison, InvalidArgument, run_comparison
from krein.experiment import build_estimator, classification_cell, classification_grid, \
    outer_splits
from krein.experiment.comparison_result import inner_protocol_text
from krein.kernel_data import load_kernel_data

#: A small tuned comparison: 90 objects, 3 outer folds, so every outer training part
#: holds 90 - 30 = 60 objects.
SMALL = dict(dataset="checkerboard", n_samples=90, methods=["svm", "flip"], outer_folds=3,
             grid={"C": [0.1, 10.0]}, kernel_params={"a": 1.0, "r": -0.5}, progress=False)


def _cells(**fields):
    """The cells ``run_comparison`` would run (declared, nothing fitted)."""
    from krein.compare import _declare, _load

    spec = Comparison(**{k: v for k, v in fields.items() if k != "progress"})
    data = _load(spec.data_entry, spec.kernel, spec.kernel_params, spec.random_state)
    experiment, _ = _declare(spec, data)
    return experiment.cells


# --------------------------------------------------------------------------- the switch
def test_threshold_switches_to_one_validation_split(monkeypatch):
    monkeypatch.setattr(arguments, "VALIDATION_SPLIT_ABOVE", 60)  # 60 training objects: folds
    at = _cells(**SMALL)
    assert {c.params["inner_folds"] for c in at} == {3}
    assert not any("validation_fraction" in c.params for c in at)
    # the small-n protocol's cells exactly: same keys (so same seeds and committed results)
    explicit = _cells(**SMALL, inner_folds=3)
    assert [c.key for c in at] == [c.key for c in explicit]
    monkeypatch.setattr(arguments, "VALIDATION_SPLIT_ABOVE", 59)  # just above: one split
    above = _cells(**SMALL)
    assert {c.params["inner_folds"] for c in above} == {1}
    assert {c.params["validation_fraction"] for c in above} == {0.2}
    assert len(above) == len(at) and not {c.key for c in above} & {c.key for c in at}
    # given explicitly, the choice holds on both sides of the threshold
    assert {c.params["inner_folds"] for c in _cells(**SMALL, inner_folds=3)} == {3}
    monkeypatch.setattr(arguments, "VALIDATION_SPLIT_ABOVE", 10 ** 6)
    one = _cells(**SMALL, inner_folds=1, validation_fraction=0.25)
    assert {(c.params["inner_folds"], c.params["validation_fraction"]) for c in one} == \
        {(1, 0.25)}
    # without tuning nothing is split: the cells stay those of the small-n protocol
    monkeypatch.setattr(arguments, "VALIDATION_SPLIT_ABOVE", 0)
    untuned = _cells(**{**SMALL, "grid": None}, tune=False)
    monkeypatch.setattr(arguments, "VALIDATION_SPLIT_ABOVE", 10 ** 6)
    assert [c.key for c in untuned] == [c.key for c in _cells(**{**SMALL, "grid": None},
                                                             tune=False)]


def test_resolution_rule():
    n_above = arguments.VALIDATION_SPLIT_ABOVE + 1
    assert arguments.resolve_inner_folds(None, n_above) == 1
    assert arguments.resolve_inner_folds(None, n_above - 1) == arguments.INNER_FOLDS == 3
    assert arguments.resolve_inner_folds(None, n_above, tune=False) == 3
    assert arguments.resolve_inner_folds(5, n_above) == 5
    assert arguments.resolve_inner_folds(1, 10) == 1
    assert inner_protocol_text(3, None) == "3-fold"
    assert inner_protocol_text(1, 0.2) == "validation split 20 %"
    assert inner_protocol_text(1, 0.125) == "validation split 12.5 %"


# --------------------------------------------------------------------------- the split
@pytest.mark.parametrize("method, grid", [("svm", {"C": [0.01, 0.1, 1.0, 10.0]}),
                                          ("flip", {"C": [0.01, 1.0, 100.0]})])
@pytest.mark.parametrize("fold", [0, 2])
def test_validation_split_is_gridsearchcv_on_one_stratified_shuffle_split(method, grid, fold):
    params = {"dataset": "sonar", "n_samples": 120, "method": method, "param_grid": grid,
              "outer_folds": 3, "fold": fold, "inner_folds": 1, "validation_fraction": 0.2,
              "cv_seed": 7, "seed": 3, "save_trace": False}
    out = classification_cell(params)
    seeds = classification._seeds(params)
    data = load_kernel_data("sonar", n_samples=120, random_state=seeds["data"])
    tr, te = outer_splits(params, data.y)[fold]
    est = build_estimator(method, random_state=seeds["estimator"])
    search = GridSearchCV(est, grid, cv=StratifiedShuffleSplit(1, test_size=0.2,
                                                               random_state=7))
    search.fit(data.K[np.ix_(tr, tr)], data.y[tr])
    assert json.loads(out["best_params"]) == search.best_params_
    assert out["inner_score"] == pytest.approx(search.best_score_, abs=1e-12)
    assert out["accuracy"] == pytest.approx(search.score(data.K[np.ix_(te, tr)], data.y[te]),
                                            abs=1e-12)


def test_inner_splits_of_k_folds_are_stratified_kfold():
    from sklearn.model_selection import StratifiedKFold

    y = np.repeat([0, 1, 2], [30, 20, 10])
    train = np.arange(0, 120, 2)
    y_all = np.full(120, 9)
    y_all[train] = y
    got = classification.inner_splits(train, y_all, inner_folds=3, random_state=5)
    want = StratifiedKFold(3, shuffle=True, random_state=5).split(np.zeros((60, 1)), y)
    for (a, b), (c, d) in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, train[c])
        np.testing.assert_array_equal(b, train[d])
    with pytest.raises(ValueError, match="inner_folds"):
        classification.inner_splits(train, y, inner_folds=0)
    with pytest.raises(ValueError, match="validation_fraction"):
        classification.inner_splits(train, y, inner_folds=1, validation_fraction=1.0)


# --------------------------------------------------------------------------- pairing + record
@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """A comparison above a threshold of 50 training objects, run in this process, with
    every inner split it made recorded: ``(result, out, splits, outer, labels)`` where
    ``splits[(method, repeat, fold)]`` is the list of (fit, validation) index pairs and
    ``labels[repeat]`` the labels (synthetic data: drawn again for every repeat)."""
    mp = pytest.MonkeyPatch()
    calls = []
    original = classification.inner_splits

    def recording(train, y, **kw):
        out = original(train, y, **kw)
        calls.append((np.asarray(train).copy(), np.asarray(y).copy(), out))
        return out

    mp.setattr(arguments, "VALIDATION_SPLIT_ABOVE", 50)
    mp.setattr(classification, "inner_splits", recording)
    out = tmp_path_factory.mktemp("protocol") / "run"
    try:
        res = run_comparison(**{**SMALL, "repeats": 2}, out=out, n_jobs=1)
    finally:
        mp.undo()
    # the cells run in order (serial); each tuned cell makes one call
    splits, outer, labels = {}, {}, {}
    cells = [c.params for c in res.experiment.cells]
    assert len(calls) == len(cells)
    for params, (train, y, made) in zip(cells, calls, strict=True):
        key = (params["method"], params["repeat"], params["fold"])
        splits[key] = made
        labels.setdefault(params["repeat"], y)
        np.testing.assert_array_equal(labels[params["repeat"]], y)
        outer[key] = outer_splits(params, y)[params["fold"]][0]
        np.testing.assert_array_equal(train, outer[key])
    np.testing.assert_array_equal(labels[0], res.data.y)
    return res, out, splits, outer, labels


def test_every_method_of_a_fold_gets_the_same_validation_split(recorded_run):
    res, _, splits, outer, labels = recorded_run
    by_fold = defaultdict(dict)
    for (method, repeat, fold), made in splits.items():
        by_fold[(repeat, fold)][method] = made
    assert len(by_fold) == 2 * 3
    for (repeat, fold), per_method in by_fold.items():
        assert set(per_method) == {"svm", "flip"}
        (fit_a, val_a), = per_method["svm"]   # one split, not k
        (fit_b, val_b), = per_method["flip"]
        np.testing.assert_array_equal(val_a, val_b)
        np.testing.assert_array_equal(fit_a, fit_b)
        train, y = outer[("svm", repeat, fold)], labels[repeat]
        assert not set(fit_a) & set(val_a)
        assert sorted(np.concatenate([fit_a, val_a])) == sorted(train)
        assert val_a.size == math.ceil(0.2 * train.size)
        for c in np.unique(y):  # stratified: each class within one object of its share
            assert abs(np.sum(y[val_a] == c) - 0.2 * np.sum(y[train] == c)) <= 1


def test_run_json_page_and_terminal_say_which_selection_ran(recorded_run, tmp_path, capsys,
                                                          monkeypatch):
    res, out, *_ = recorded_run
    protocol = json.loads((out / "run.json").read_text())["protocol"]
    assert protocol["inner"] == "validation split 20 %"
    assert protocol["inner_folds"] == 1 and protocol["validation_fraction"] == 0.2
    page = (out / "report.html").read_text()
    assert "one stratified validation split of each outer training part (20 % of it held " \
           "out, the same split for every method" in page
    assert "-fold cross-validation on each outer training part" not in page
    # the k-fold record of a small run, and the terminal's protocol line of both
    small = tmp_path / "small"
    assert main(["compare", "--dataset", "checkerboard", "--n-samples", "60", "--methods",
                 "svm", "--cv", "2", "--grid", "C=1,10", "--n-jobs", "1", "--no-progress",
                 "--out", str(small)]) == 0
    assert "parameters chosen by inner 3-fold stratified CV on each training fold" in \
        capsys.readouterr().out
    protocol = json.loads((small / "run.json").read_text())["protocol"]
    assert (protocol["inner"], protocol["inner_folds"], protocol["validation_fraction"]) == \
        ("3-fold", 3, None)
    assert "inner 3-fold cross-validation on each outer training part (scoring: accuracy)" \
        in (small / "report.html").read_text()
    from krein.cli_format import comparison_lines

    assert any("parameters chosen by inner one stratified validation split (20%) on each "
               "training fold" in line for line in comparison_lines(res))


# --------------------------------------------------------------------------- bad values
@pytest.mark.parametrize("extra, pieces", [
    (["--inner-folds", "0"], ["--inner-folds: must be an integer >= 1"]),
    (["--validation-fraction", "1"], ["--validation-fraction: must be a number in (0, 1)"]),
    (["--validation-fraction", "0.3", "--inner-folds", "3"],
     ["--validation-fraction: not with inner_folds=3"]),
])
def test_bad_inner_options_are_one_line_exit_2_nothing_written(extra, pieces, tmp_path,
                                                                capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "checkerboard", "--n-samples", "60", "--methods", "svm",
              "--out", str(out), "--no-progress", *extra])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("krein compare: error: ")
    for piece in pieces:
        assert piece in err, err
    assert not out.exists()


def test_python_arguments_are_checked():
    with pytest.raises(InvalidArgument, match="validation_fraction"):
        Comparison(validation_fraction=0.0)
    with pytest.raises(InvalidArgument, match="inner_folds"):
        Comparison(inner_folds=True)
    assert Comparison().inner_folds is None and Comparison(inner_folds=1).inner_folds == 1
    with pytest.raises(ValueError, match="validation_fraction"):
        classification_grid(["sonar"], ["svm"], inner_folds=1, validation_fraction=2)
