"""``krein/cli.py`` parses and prints only.

What the commands compute and write is a library function, reusable from Python:

* :mod:`krein.diagnosis` -- the numbers of ``krein diagnose`` (spectrum, r_mm,
  r_neg, DCM, Haasdonk's criteria) as a dataclass, and the spectrum plot;
* :mod:`krein.experiment.outputs` -- the table of a results directory, its
  recorded table arguments, the default figure directory, the solver log of a
  comparison;
* ``krein/cli.py`` holds no writer and no computation (checked on its source)
  and stays under 450 lines of code.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
import types
from pathlib import Path

import numpy as np
import pytest

import krein

ROOT = Path(krein.__file__).parent


def _indefinite_kernel(n=24, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    K = np.tanh(X @ X.T - 1.0)  # a sigmoid kernel with a negative offset: indefinite
    y = np.where(X[:, 0] > 0, 1, -1)
    return K, y


# --------------------------------------------------------------------------- diagnosis
def test_diagnose_kernel_returns_the_library_numbers():
    from krein.diagnosis import KernelDiagnosis, diagnose_kernel
    from krein.geometry import class_mean_distance, suitability_report
    from krein.solvers.libsvm import libsvm_svc
    from krein.spectrum import Spectrum

    K, y = _indefinite_kernel()
    d = diagnose_kernel(K, y, C=0.5)
    assert isinstance(d, KernelDiagnosis)
    s = Spectrum.from_kernel(K).summary()
    assert d.n == 24 and d.signature == (s["p"], s["q"], s["z"]) and d.n_classes == 2
    assert d.signature[1] > 0  # the kernel is indefinite
    assert d.min_eigenvalue == pytest.approx(s["min_eigenvalue"])
    assert d.r_mm == pytest.approx(s["r_mm"]) and d.r_neg == pytest.approx(s["r_neg"])
    assert len(d.next_eigenvalues) == 3
    assert d.dcm == pytest.approx(class_mean_distance(K, y))
    titles = [t for t, _ in d.suitability]
    svm = libsvm_svc(K, np.unique(y, return_inverse=True)[1], 0.5)
    assert titles == [t for t, _ in suitability_report(K, y, 0.5, svm=svm)]
    assert "C=0.5" in titles[1]
    # three classes: no DCM, no after-training criteria
    y3 = np.arange(24) % 3
    d3 = diagnose_kernel(K, y3)
    assert d3.dcm is None and d3.n_classes == 3 and d3.suitability[1][1] == []
    with pytest.raises(ValueError, match="C must be a positive"):
        diagnose_kernel(K, y, C=0.0)


def test_diagnose_reuses_the_data_spectrum_and_matches_the_command(tmp_path, capsys):
    from krein.cli import main
    from krein.compare import load_comparison_data
    from krein.diagnosis import diagnose

    data = load_comparison_data("checkerboard", n_samples=40)
    d = diagnose(data, C=1.0)
    assert d.spectrum is data.spectrum()  # one eigendecomposition, reused
    png = tmp_path / "new" / "dir" / "spectrum.png"  # write_spectrum_plot makes the directory
    assert main(["diagnose", "--dataset", "checkerboard", "--n-samples", "40",
                 "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert out.endswith(f"\nspectrum plot: {png}\n")
    assert f"least eigenvalue: {d.min_eigenvalue:.6g}   (next: " in out
    assert f"signature (p, q, z): {d.signature}  zero tolerance" in out
    assert f"= {d.dcm:.6g}  (" in out


# --------------------------------------------------------------------------- experiment outputs
TABLE_SCRIPT = textwrap.dedent('''
    from krein.experiment import Experiment, cartesian

    def cell(params):
        return {"accuracy": 0.5 + 0.1 * params["i"]}

    EXPERIMENT = Experiment("tiny", cartesian(method=["a", "b"], i=[0, 1]), cell=cell)
    QUICK_EXPERIMENT = EXPERIMENT
''')


def test_write_table_and_table_file(tmp_path):
    from krein.experiment import load_experiment, make_table, run_experiment
    from krein.experiment.outputs import table_file, write_table

    script = tmp_path / "tiny.py"
    script.write_text(TABLE_SCRIPT)
    exp = load_experiment(script)
    out = tmp_path / "res"
    df = run_experiment(exp, out, progress=False).results
    assert table_file(out, "latex") == str(out / "table.tex")
    path = table_file(out)
    text = write_table(df, path, exp)
    assert text == make_table(df, exp) and Path(path).read_text() == text
    assert not list(out.glob(".*.tmp"))
    csv = write_table(out, None, None, fmt="csv", value="accuracy")  # None: nothing written
    assert csv.startswith("i,a,a std") and not (out / "table.csv").exists()


def test_recorded_table_arguments_are_checked_data(tmp_path):
    from krein.experiment.outputs import recorded_hooks, results_directory, table_spec

    assert results_directory(tmp_path) == str(tmp_path)
    assert results_directory(tmp_path / "results.csv") == str(tmp_path)
    assert results_directory(tmp_path / "other.csv") is None
    assert table_spec({}, str(tmp_path)) is None
    assert table_spec({"table": {"value": "accuracy", "rows": ["n"]}}, "d") == {
        "value": "accuracy", "rows": ["n"]}
    for bad, match in [("x", "must be a JSON object"), ({"run": 1}, "unknown argument"),
                       ({"rows": [1]}, "rows must be a name")]:
        with pytest.raises(ValueError, match=match) as e:
            table_spec({"table": bad}, "d")
        assert str(e.value).startswith("d/experiment.json: ")
    info = {"script": "experiments/x.py", "table": {"value": "gap"},
            "hooks": {"table": False, "figures": True}}
    hooks, skipped = recorded_hooks(info, "d", "table")
    assert hooks.table == {"value": "gap"} and hooks.figures is None and skipped is None
    assert recorded_hooks(info, "d", "figures")[1] == "experiments/x.py"
    # written before the hooks were recorded: a table spec is data, a figures hook unknown
    old = {"script": "experiments/x.py", "table": {"value": "gap"}}
    assert recorded_hooks(old, "d", "table")[1] is None
    assert recorded_hooks(old, "d", "figures")[1] == "experiments/x.py"
    assert recorded_hooks({}, None, "table")[0].table is None


def test_default_figure_directory(tmp_path):
    from krein.experiment.outputs import default_figure_directory

    assert default_figure_directory(tmp_path) == str(tmp_path / "figures")
    assert default_figure_directory("r/results.csv") == "r/figures"
    assert default_figure_directory("experiments/results/t2.csv") == "experiments/results/t2-figures"


def test_write_solver_output(tmp_path):
    from krein.experiment.outputs import write_solver_output

    result = types.SimpleNamespace(directory=str(tmp_path), files=[])
    assert write_solver_output(result, "  \n") is None and result.files == []
    path = write_solver_output(result, "Running HiGHS\n")
    assert path == str(tmp_path / "solver_output.txt") and result.files == [path]
    assert Path(path).read_text() == "Running HiGHS\n"
    unsaved = types.SimpleNamespace(directory=None, files=[])
    assert write_solver_output(unsaved, "text") is None and unsaved.files == []


# --------------------------------------------------------------------------- cli.py itself
def _code_lines(path):
    """Lines of code, docstrings and comments not counted (as /work/tools/loc.py counts)."""
    src = path.read_text()
    doc = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                doc.update(range(body[0].lineno, body[0].end_lineno + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER)
    code = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in skip:
            code.update(range(tok.start[0], tok.end[0] + 1))
    return len(code - doc)


@pytest.mark.parametrize("name", ["cli.py", "cli_parser.py", "cli_format.py"])
def test_cli_modules_are_small(name):
    assert _code_lines(ROOT / name) <= 450


#: Names that write files or compute in the library's place: none may appear in cli.py
#: (the built-in ``open`` as a name; ``os.open`` of the null device on a broken pipe is not
#: a file the command writes).
FORBIDDEN_IN_CLI = {"atomic_write", "atomic_write_text", "atomic_write_bytes",
                    "save_png", "savefig", "to_csv", "makedirs", "mkdir", "write_text",
                    "suitability_report", "suitability_before", "suitability_after",
                    "class_mean_distance", "Spectrum", "eigh", "eigvalsh", "linalg",
                    "spectrum_plot"}


def test_cli_neither_writes_files_nor_computes():
    tree = ast.parse((ROOT / "cli.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
            assert node.id != "open", f"cli.py line {node.lineno} opens a file"
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            names |= {a.name for a in node.names}
    assert not names & FORBIDDEN_IN_CLI, sorted(names & FORBIDDEN_IN_CLI)
    # the parser and the printing live beside it, with no import back into cli.py
    for helper in ("cli_parser.py", "cli_format.py"):
        src = (ROOT / helper).read_text()
        assert "from .cli import" not in src and "krein.cli import" not in src
