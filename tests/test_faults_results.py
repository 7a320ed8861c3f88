"""Result files are read through one validating reader; nothing runs.

Checked against the writers' own files: one small finished experiment directory
(``krein experiment run`` of a tiny script) and one small finished comparison
directory (``krein compare --dataset sonar --methods svm,flip --cv 2 --no-tune``),
each built once per module and copied per test, then damaged the ways a crash, a
bad merge or a hand edit damages them.  A damaged file is refused by
``experiment table``/``experiment plot``/``krein report`` (exit 2, one line naming
the file, the line and the problem) and its invalid cells are recomputed by a
resumed run (one line on stderr); a results directory never runs the script its
``experiment.json`` names (:mod:`krein.experiment.validate`, ``krein/cli.py``).
"""

import io
import json
import os
import shutil
import textwrap

import pandas as pd
import pytest

from krein.cli import main
from krein.experiment import Experiment, cartesian, read_results, run_experiment

#: Four cells (2 methods x 2 folds) with known accuracies, instant to compute.
SCRIPT = textwrap.dedent('''
    from krein.experiment import Experiment, cartesian

    ACC = {"a": [0.9, 0.9], "b": [0.5, 0.7]}

    def toy_cell(params):
        return {"accuracy": ACC[params["method"]][params["fold"]], "n_test": 10}

    def experiment(quick=False):
        return Experiment("toy", cartesian(method=["a", "b"], fold=[0, 1], repeat=[0]),
                          cell=toy_cell)
''')

#: Columns of the csv table of the toy results (two methods, one setting).
WIDE = ["setting", "a", "a std", "a n_errors", "b", "b std", "b n_errors", "best"]

#: A script whose import leaves a marker (the payload of a directory received from
#: someone else) and that has its own table and figures hooks.
PAYLOAD = textwrap.dedent('''
    import os
    from krein.experiment import Experiment, cartesian

    MARKER = {marker!r}
    with open(MARKER, "a") as f:
        f.write("imported\\n")

    ACC = {{"a": [0.9, 0.9], "b": [0.5, 0.7]}}

    def toy_cell(params):
        return {{"accuracy": ACC[params["method"]][params["fold"]], "n_test": 10}}

    def own_table(df):
        import pandas as pd
        return pd.DataFrame({{"hook": ["own table ran"]}})

    def own_figures(df, out):
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "own_hook.txt")
        with open(path, "w") as f:
            f.write("own figures ran")
        return [path]

    def experiment(quick=False):
        return Experiment("toy", cartesian(method=["a", "b"], fold=[0, 1], repeat=[0]),
                          cell=toy_cell, table=own_table, figures=own_figures)
''')


def _main(argv, capsys):
    """(exit status, stdout, stderr) of ``krein ARGV`` run in this process."""
    capsys.readouterr()
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One finished experiment directory and one finished comparison directory."""
    root = tmp_path_factory.mktemp("finished")
    script = root / "toy.py"
    script.write_text(SCRIPT)
    exp_dir = root / "exp"
    assert main(["experiment", "run", str(script), "--out", str(exp_dir), "--no-progress",
                 "--no-figures", "--no-table"]) == 0
    cmp_dir = root / "cmp"
    assert main(["compare", "--dataset", "sonar", "--methods", "svm,flip", "--cv", "2",
                 "--no-tune", "--out", str(cmp_dir), "--no-progress", "--n-jobs", "1"]) == 0
    return {"script": script, "exp": exp_dir, "cmp": cmp_dir}


@pytest.fixture
def exp_dir(finished, tmp_path):
    d = tmp_path / "exp"
    shutil.copytree(finished["exp"], d)
    return d


@pytest.fixture
def cmp_dir(finished, tmp_path):
    d = tmp_path / "cmp"
    shutil.copytree(finished["cmp"], d)
    return d


def _lines(path):
    return path.read_text().splitlines(keepends=True)


def _write_lines(path, lines):
    path.write_text("".join(lines))


def _refused(capsys, argv, path, line, problem):
    """``krein ARGV`` exits 2 with one line naming ``path`` line ``line`` and ``problem``."""
    rc, out, err = _main(argv, capsys)
    assert rc == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{path} line {line}: {problem}" in err, err
    return err


# --------------------------------------------------------------------------- results.csv
def _truncate_after_key(path, line):
    """Cut line ``line`` (1-based) of a CSV file right after its first field."""
    lines = _lines(path)
    lines[line - 1] = lines[line - 1].split(",", 1)[0] + "\n"
    _write_lines(path, lines)


def test_truncated_row_is_refused_and_recomputed(exp_dir, finished, capsys):
    path = exp_dir / "results.csv"
    n_fields = len(_lines(path)[0].rstrip("\n").split(","))
    key = _lines(path)[3].split(",", 1)[0]  # line 4: the cell (method b, fold 0)
    _truncate_after_key(path, 4)
    problem = f"truncated row (1 of {n_fields} fields)"
    for action in ("table", "plot"):
        _refused(capsys, ["experiment", action, str(exp_dir)], path, 4, problem)
    assert not (exp_dir / "figures").exists()
    # resume (and --retry-errors) recompute the cell, with one line saying so
    rc, out, err = _main(["experiment", "run", str(finished["script"]), "--out", str(exp_dir),
                          "--no-progress", "--no-figures", "--no-table", "--retry-errors"],
                         capsys)
    assert rc == 0, err
    assert f"{path} line 4: {problem}; cell recomputed" in err
    assert "already done: 3, run now: 1" in out
    df = read_results(exp_dir)
    assert len(df) == 4 and df["key"].is_unique
    row = df.set_index("key").loc[key]
    assert row["status"] == "ok" and row["accuracy"] == 0.5
    # the table is the right one again, with no phantom column
    rc, out, err = _main(["experiment", "table", str(exp_dir), "--format", "csv"], capsys)
    assert rc == 0, err
    assert list(pd.read_csv(io.StringIO(out)).columns) == WIDE


def test_duplicate_key_is_refused_and_recomputed(exp_dir, finished, capsys):
    path = exp_dir / "results.csv"
    lines = _lines(path)
    # the row of (a, fold 0) written twice with another accuracy: averaged, it read 45.00
    dup = lines[1].replace(",0.9,", ",0.0,", 1)
    assert dup != lines[1]
    _write_lines(path, lines + [dup])
    key = lines[1].split(",", 1)[0]
    _refused(capsys, ["experiment", "table", str(exp_dir)], path, 2,
             f"duplicate key {key} (also at line 6)")
    _refused(capsys, ["experiment", "plot", str(exp_dir)], path, 2,
             f"duplicate key {key} (also at line 6)")
    report = run_experiment(_toy(finished), exp_dir, progress=False)
    assert report.n_run == 1
    assert f"{path} line 2: duplicate key {key} (also at line 6); cell recomputed" in \
        capsys.readouterr().err
    df = read_results(exp_dir)
    assert len(df) == 4 and (df.set_index("key").loc[key, "accuracy"] == 0.9)


def _toy(finished):
    from krein.experiment import load_experiment

    return load_experiment(str(finished["script"]))


def test_missing_field_is_refused(exp_dir, capsys):
    path = exp_dir / "results.csv"
    lines = _lines(path)
    header = lines[0].rstrip("\n").split(",")
    fields = lines[2].rstrip("\n").split(",")
    i = header.index("accuracy")
    _write_lines(path, lines[:2] + [",".join(fields[:i] + fields[i + 1:]) + "\n"] + lines[3:])
    problem = f"truncated row ({len(header) - 1} of {len(header)} fields)"
    _refused(capsys, ["experiment", "table", str(exp_dir)], path, 3, problem)
    _refused(capsys, ["experiment", "plot", str(exp_dir)], path, 3, problem)
    from krein.experiment.validate import ResultFileError

    with pytest.raises(ResultFileError, match="line 3: truncated row"):
        read_results(path)


def test_garbled_accuracy_is_refused_and_recomputed(exp_dir, finished, capsys):
    path = exp_dir / "results.csv"
    lines = _lines(path)
    lines[5 - 1] = lines[5 - 1].replace(",0.7,", ",0.7x,", 1)
    _write_lines(path, lines)
    problem = "column accuracy holds '0.7x', not a number"
    _refused(capsys, ["experiment", "table", str(exp_dir)], path, 5, problem)
    _refused(capsys, ["experiment", "plot", str(exp_dir)], path, 5, problem)
    rc, _, err = _main(["experiment", "run", str(finished["script"]), "--out", str(exp_dir),
                        "--no-progress", "--no-figures", "--no-table"], capsys)
    assert rc == 0 and f"{path} line 5: {problem}; cell recomputed" in err
    assert sorted(read_results(exp_dir)["accuracy"]) == [0.5, 0.7, 0.9, 0.9]


def test_keys_are_checked_against_experiment_json(exp_dir, capsys):
    info = json.loads((exp_dir / "experiment.json").read_text())
    assert info["n_cells"] == 4 and len(info["cell_keys"]) == 4
    path = exp_dir / "results.csv"
    lines = _lines(path)
    key = lines[1].split(",", 1)[0]
    other = "0123456789abcdef"
    _write_lines(path, lines + [lines[1].replace(key, other, 1)])
    _refused(capsys, ["experiment", "table", str(exp_dir)], path, 6,
             f"key {other} is not a cell recorded in")
    # a directory written before the keys were recorded is read without that check
    from krein.experiment.validate import scan_results

    info.pop("cell_keys")
    (exp_dir / "experiment.json").write_text(json.dumps(info))
    assert len(scan_results(path).valid) == 5


# --------------------------------------------------------------------------- krein report
def test_report_refuses_summary_cut_to_60_percent(cmp_dir, capsys):
    path = cmp_dir / "summary.csv"
    text = path.read_text()
    cut = int(0.6 * len(text))
    assert text[cut - 1] != "\n"
    path.write_text(text[:cut])  # cut inside a method's row
    (cmp_dir / "report.html").unlink()
    err = _refused(capsys, ["report", str(cmp_dir)], path, text[:cut].count("\n") + 1,
                   "truncated row")
    assert not (cmp_dir / "report.html").exists(), err
    # cut at a row boundary: the method rows are counted against run.json
    path.write_text("".join(text.splitlines(keepends=True)[:2]))
    _refused(capsys, ["report", str(cmp_dir)], path, 2,
             "the file ends with 1 of 2 method rows of run.json (missing: flip)")
    assert not (cmp_dir / "report.html").exists()


def test_report_refuses_folds_cut_in_half(cmp_dir, capsys):
    path = cmp_dir / "folds.csv"
    lines = _lines(path)
    assert len(lines) == 5
    _write_lines(path, lines[:3])
    _refused(capsys, ["report", str(cmp_dir)], path, 3,
             "1 fold row(s) of method 'svm', expected cv * repeats = 2 * 1 = 2 (run.json)")
    _write_lines(path, lines[:3] + [lines[1]])  # a fold row written twice
    _refused(capsys, ["report", str(cmp_dir)], path, 2, "duplicate method/repeat/fold svm, 0, 0")


def test_report_refuses_spectrum_with_36_of_n_eigenvalues(cmp_dir, capsys):
    path = cmp_dir / "spectrum.csv"
    lines = _lines(path)
    assert len(lines) == 209  # sonar: 208 objects
    _write_lines(path, lines[:37])
    _refused(capsys, ["report", str(cmp_dir)], path, 37,
             "36 eigenvalues, run.json records n = 208")


def test_compare_cells_directory_is_validated(cmp_dir, capsys):
    path = cmp_dir / "cells" / "results.csv"
    _truncate_after_key(path, 3)
    _refused(capsys, ["experiment", "table", str(cmp_dir / "cells")], path, 3,
             "truncated row (1 of")


# --------------------------------------------------------------------------- item 5
@pytest.fixture
def payload_dir(exp_dir, tmp_path):
    """The experiment directory, its experiment.json naming a script with a payload."""
    marker = tmp_path / "marker.txt"
    script = tmp_path / "payload.py"
    script.write_text(PAYLOAD.format(marker=str(marker)))
    info = json.loads((exp_dir / "experiment.json").read_text())
    info["script"] = str(script)
    info.pop("hooks", None)  # as received: nothing says whether the script has hooks
    (exp_dir / "experiment.json").write_text(json.dumps(info))
    return exp_dir, script, marker


def test_table_and_plot_do_not_run_the_recorded_script(payload_dir, tmp_path, capsys):
    d, script, marker = payload_dir
    rc, out, err = _main(["experiment", "table", str(d), "--format", "csv"], capsys)
    assert rc == 0, err
    assert not marker.exists()
    wide = pd.read_csv(io.StringIO(out))  # the generic table from the data
    assert list(wide.columns) == WIDE
    assert wide["a"].iloc[0] == pytest.approx(90.0) and wide["b"].iloc[0] == pytest.approx(60.0)
    assert f"pass --script {script}" in err
    rc, out, err = _main(["experiment", "plot", str(d), "--out", str(tmp_path / "f")], capsys)
    assert rc == 0, err
    assert not marker.exists()
    assert not (tmp_path / "f" / "own_hook.txt").exists()
    assert "figure written" in out and f"pass --script {script}" in err


def test_hooks_run_only_with_script_option(payload_dir, tmp_path, capsys):
    d, script, marker = payload_dir
    rc, out, err = _main(["experiment", "table", str(d), "--script", str(script)], capsys)
    assert rc == 0, err
    assert "own table ran" in out and marker.read_text() == "imported\n"
    rc, out, err = _main(["experiment", "plot", str(d), "--out", str(tmp_path / "f"),
                          "--script", str(script)], capsys)
    assert rc == 0, err
    assert (tmp_path / "f" / "own_hook.txt").read_text() == "own figures ran"
    rc, _, err = _main(["experiment", "table", str(d), "--script", str(tmp_path / "nope.py")],
                       capsys)
    assert rc == 2 and err.startswith("krein experiment table: error: --script:")


def test_unknown_status_and_damaged_experiment_json_are_refused(exp_dir, capsys):
    path = exp_dir / "results.csv"
    lines = _lines(path)
    lines[2] = lines[2].replace(",ok,", ",okay,", 1)
    _write_lines(path, lines)
    _refused(capsys, ["experiment", "table", str(exp_dir)], path, 3,
             "unknown status 'okay' (expected one of ok, error)")
    lines[2] = lines[2].replace(",okay,", ",ok,", 1)
    _write_lines(path, lines)
    (exp_dir / "experiment.json").write_text('{"name": "toy", "cell_keys": [')
    rc, _, err = _main(["experiment", "table", str(exp_dir)], capsys)
    assert rc == 2 and "experiment.json line 1: not valid JSON" in err, err


def test_report_refuses_an_empty_accuracy_where_the_writer_writes_one(cmp_dir, capsys):
    path = cmp_dir / "folds.csv"
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.loc[2, "accuracy"] = ""  # a fold that succeeded (error empty) without its accuracy
    df.to_csv(path, index=False)
    _refused(capsys, ["report", str(cmp_dir)], path, 4,
             "empty accuracy in a fold without an error")
