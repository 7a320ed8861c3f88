"""The README's shell commands, run in order as a newcomer would.

Every command of every ```bash block of README.md, then of every bash block of the
documentation pages the README's material moved to (:data:`SOURCES`: getting started,
the command line, the layout page, the reproductions), is taken in order (line
continuations joined, ``&&`` chains split, comments dropped) and is one of:

* run here: ``krein ...`` in-process through :func:`krein.cli.main`, in one
  temporary directory holding a copy of the repository's ``experiments/`` and
  ``figures/`` (a fresh clone as far as these commands can tell); it must exit
  0 and produce what the README says (:data:`CHECKS`), and a later command
  sees what the earlier ones wrote;
* slow (:data:`SLOW`): run the same way only with ``KREIN_README_SLOW=1``
  (each takes tens of seconds on two cores), else reported as skipped
  with its reason; their ``krein`` arguments are always parsed;
* not runnable in a test (:data:`NOT_RUN`, with the reason): still checked --
  ``krein`` arguments by the CLI's own argparse, scripts exist, ``pip``
  extras exist in pyproject.toml.

A README command in none of these lists fails the test: a new command needs
its expectation here.  A command repeated verbatim is not run twice; the
repeat is checked against the first run's output.

Nothing is written into the repository.  Default run: about 30 s; the main job
(``krein compare``, every method tuned on Sonar, a minute or two) runs with
``KREIN_README_SLOW=1``, its untuned form ``krein compare --no-tune`` always.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import textwrap
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import krein
from krein.cli import _build_parser, main

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
#: The README, then the documentation pages that took over its commands, in
#: the order a newcomer reads them: their bash blocks run as one session.
SOURCES = (README, REPO / "docs" / "getting_started.rst", REPO / "docs" / "cli.rst",
           REPO / "docs" / "layout.md", REPO / "docs" / "reproductions" / "index.rst")
#: The page with the sample output of the main job (moved there from the README).
SAMPLE_OUTPUT = REPO / "docs" / "getting_started.rst"
PNG = b"\x89PNG\r\n\x1a\n"


def bash_blocks(text):
    """The bash blocks of a Markdown (```bash) or reStructuredText
    (``.. code-block:: bash``) text, each as one string, in order."""
    blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)
    for body in re.findall(r"^\.\. code-block:: bash\n((?:[ \t]*\n|[ \t]+\S.*\n)*)", text,
                           flags=re.M):
        blocks.append(textwrap.dedent(body))
    return blocks


def readme_commands(text=None):
    """The shell commands of the README and the pages of :data:`SOURCES`, in order, each a
    list of words.

    Parameters
    ----------
    text : str, optional
        One text (Markdown or reStructuredText) to read instead of :data:`SOURCES`.

    Returns
    -------
    list of list of str
    """
    texts = ([p.read_text(encoding="utf-8") for p in SOURCES] if text is None else [text])
    return [c for t in texts for c in _commands(t)]


def _commands(text):
    commands = []
    for block in bash_blocks(text):
        for line in re.sub(r"\\\n", " ", block).splitlines():
            words, current = shlex.split(line, comments=True), []
            for w in words + ["&&"]:
                if w == "&&":
                    if current:
                        commands.append(current)
                    current = []
                else:
                    current.append(w)
    return commands


def _key(words):
    return " ".join(words)


# --------------------------------------------------------------------------- classification
#: Commands a test cannot run, with the reason; each is still checked (see module docstring).
NOT_RUN = {
    "pip install .": "installs into the environment (network, site-packages); checked: "
                     "pyproject.toml names the package and the console script",
    "pip install .[test]": "installs into the environment; checked: the extra exists",
    "python -m pytest -q -n auto": "the whole test suite, this test included (recursion; many "
                                   "minutes)",
    "pip install .[docs]": "installs into the environment; checked: the extra exists",
    "python -m sphinx -W -b html docs docs/_build/html":
        "the whole site with the full gallery (minutes); checked: docs/conf.py exists and the "
        "docs extra has sphinx (tests/test_docs.py builds the site with the examples' fast "
        "settings and warnings as errors)",
    "krein experiment run experiments/loosli_table2.py --n-jobs 4":
        "the full Table 2 grid: hours of CPU; checked: argparse and the script exists",
    "krein experiment run experiments/loosli_table2.py --dask tcp://127.0.0.1:8786":
        "needs a Dask scheduler at that address (and the full grid); checked: argparse",
    "python benchmarks/esvm.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/indefinite.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/ksvm.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/rvm.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/hull.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/compare.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/nearest_psd.py": "benchmark: minutes, timing targets that need the machine to themselves",
    "python benchmarks/certificates.py": "benchmark: minutes, exact gaps by CLARABEL",
    "python benchmarks/certified_fit.py": "benchmark: minutes, three fits at n = 2000 per check method",
    "python benchmarks/threads.py": "benchmark: tens of minutes, loads the machine on purpose",
    "python benchmarks/nystroem.py": "benchmark: about 10 minutes and 12 GB (n = 10^6)",
    "python benchmarks/nystroem_accuracy.py": "benchmark: minutes (exact ESVC on all of USPS)",
    "python benchmarks/iksvm_dc.py": "benchmark: minutes (ESVC and IKSVM-DC at n = 2000)",
    "python benchmarks/trik.py": "benchmark: tens of minutes (eigh and LDL' up to n = 8000) and "
                                 "Loosli's peer code outside the repository",
    "python benchmarks/rkks.py": "benchmark: minutes (ESVC at n = 2000, Nystroem at 5 10^4)",
    "python benchmarks/embedding.py": "benchmark: minutes (ESVC at n = 2000)",
    "python benchmarks/probability.py": "benchmark: minutes (ESVC with and without Platt scaling)",
    "python benchmarks/tuning.py": "benchmark: minutes (the main job twice: fixed grids, adaptive)",
    "krein compare --dataset aural-sonar --repeats 3":
        "a minute or more; checked: argparse (tests/test_chen2009_data.py compares on the four "
        "Chen sets, tests/test_significance_marks.py checks the marks of a comparison)",
    "krein compare --dataset coilyork":
        "a minute; checked: argparse (tests/test_predefined_split.py runs compare on coilyork's "
        "own split)",
    "krein compare --out runs/sonar --resume":
        "finishes an interrupted main job (minutes); checked: argparse "
        "(tests/test_faults_files.py resumes a comparison and checks what it reuses)",
    "krein compare --dataset checkerboard --n-samples 100000 --kernel sigmoid --approximation "
    "nystroem:1000 --methods esvm,flip,clip,svm --cv 3 --no-tune":
        "minutes on 10^5 points; checked: argparse (tests/test_compare_approximation.py runs "
        "the approximated comparison at n = 600 and 20 000)",
    "krein compare --kernel-file C.npy --landmarks idx.txt --labels y.txt --dissimilarity":
        "the user's own landmark columns; checked: argparse (tests/test_landmark_columns.py "
        "runs compare on landmark columns, with and without a test part)",
}

HEART = ("krein compare --dataset heart --kernel sigmoid --kernel-params a=0.02,r=-1 "
         "--methods esvm,esvm-l,flip,clip,shift,lp-svm --cv 5 --repeats 10 --out results/heart")
OWN_KERNEL = ("krein compare --kernel-file K.npy --labels labels.txt "
              "--methods esvm,flip,clip,svm,ksvm,indefinite-svm")
OWN_DISTANCES = ("krein compare --kernel-file D.txt --labels labels.txt --dissimilarity "
                 "--methods esvm,flip,clip,svm,ksvm")
OWN_FEATURES = "krein compare --data features.csv --label-column class --methods esvm,clip,svm"
KREIN_METHODS = "krein compare --methods ksvm,ch,mod-svm,rvm"
CHECKERBOARD = ("krein compare --dataset checkerboard --n-samples 300 --kernel sigmoid "
                "--kernel-params a=1,r=-1")

#: Runnable but slow commands: run only with KREIN_README_SLOW=1.
SLOW = {
    "krein compare": "the main job: 25 methods tuned by nested CV on Sonar (a minute or two on "
                     "two cores); `krein compare --no-tune` below runs the same "
                     "methods, data and folds untuned in seconds",
    HEART: "50 tuned cells per method (minutes on two cores)",
    KREIN_METHODS: "four methods tuned on Sonar (about a minute on two cores)",
    CHECKERBOARD: "every method on 300 points plus the decision-boundary grid (about 100 s on "
                  "two cores)",
    "krein compare --task regression --dataset liver-drinks":
        "six regressors tuned by nested CV (about 5 minutes on two cores, indefinite-svr's "
        "inner CV); tests/test_compare_tasks.py runs the task end to end on the same data",
}
RUN_SLOW = os.environ.get("KREIN_README_SLOW", "") not in ("", "0")


def _sample_table_methods():
    """Method names of the sample output of `krein compare` (getting started page): the
    rows after the header, up to the ``...`` that stands for rows left out or the
    ``vs best:`` legend under the whole table."""
    text = SAMPLE_OUTPUT.read_text(encoding="utf-8")
    block = re.search(r"^ +(method +accuracy %.*?)^ +(?:\.\.\. |vs best:)", text,
                      flags=re.S | re.M).group(1)
    return [line.split()[0] for line in block.splitlines()[1:] if line.strip()]


def _table_rows(out):
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _check_main_job(r, d):
    assert re.search(r"^method\s+accuracy %", r.out, flags=re.M), r.out[-2000:]
    rows = _table_rows(r.out)
    missing = [m for m in _sample_table_methods() if m not in rows]
    assert not missing, f"README sample methods missing from the output: {missing}"
    assert "least eigenvalue" in r.out  # spectrum printed
    assert "parameters chosen by inner 3-fold" in r.out  # tuned by default
    run = d / "krein-results" / "sonar"  # "a new directory ./krein-results/sonar/"
    assert (run / "accuracy.png").read_bytes()[:8] == PNG
    assert "<html" in (run / "report.html").read_text()
    summary = pd.read_csv(run / "summary.csv")
    assert set(_sample_table_methods()) <= set(summary["method"])
    assert (summary["status"].isin(["ok", "skipped"])).all(), summary[["method", "note"]]


def _check_no_tune(r, d):
    assert "fixed parameters (C = 1)" in r.out
    # a new directory when the main job ran before it (KREIN_README_SLOW=1)
    run = d / "krein-results" / ("sonar-2" if RUN_SLOW else "sonar")
    assert (run / "summary.csv").is_file()
    summary = pd.read_csv(run / "summary.csv")
    assert set(_sample_table_methods()) <= set(summary["method"])  # the main job's methods
    assert (summary["status"].isin(["ok", "skipped"])).all(), summary[["method", "note"]]


def _check_report(r, d):
    assert r.out.strip() == os.path.join("krein-results", "sonar", "report.html")


def _check_heart(r, d):
    df = pd.read_csv(d / "results" / "heart" / "summary.csv")
    assert set(df["method"]) == {"esvm", "esvm-l", "flip", "clip", "shift", "lp-svm"}


def _check_checkerboard(r, d):
    png = d / "krein-results" / "checkerboard" / "boundaries.png"
    assert png.read_bytes()[:8] == PNG  # "it also draws the decision boundaries"


def _own_data_check(name, kind):
    def check(r, d):
        run = d / "krein-results" / name
        summary = pd.read_csv(run / "summary.csv")
        assert (summary["status"] == "ok").all(), summary[["method", "note"]]
        assert f"({kind}," in r.out
        assert "classes: mine: " in r.out  # the label names of labels.txt
        assert (run / "report.html").is_file()
    return check


def _check_own_diagnose(r, d):
    assert "signature (p, q, z)" in r.out and "verdict before training" in r.out
    assert (d / "krein-results" / "spectrum-K.png").read_bytes()[:8] == PNG


def _check_diagnose(r, d):
    assert "signature" in r.out  # the spectrum
    assert "verdict before training" in r.out  # Haasdonk's criteria


def _check_krein_methods_compare(r, d):
    assert {"ksvm", "ch", "mod-svm", "rvm"} <= _table_rows(r.out)


def _check_regression(r, d):
    assert re.search(r"^method\s+RMSE\s+MAE\s+R\^2", r.out, flags=re.M), r.out[-2000:]
    assert {"indefinite-svr", "esvr", "krein-ls-regressor", "flip-ridge-regressor",
            "clip-ridge-regressor", "knn-regressor"} <= _table_rows(r.out)


def _check_novelty(r, d):
    assert re.search(r"^method\s+accuracy %\s+vs best\s+AUC", r.out, flags=re.M), r.out[-2000:]
    assert {"indefinite-one-class", "flip-one-class", "clip-one-class",
            "knn-outlier"} <= _table_rows(r.out)
    assert "fitted on the inliers (label 1)" in r.out


def _check_solvers(r, d):
    assert "CLARABEL" in r.out and "SCS" in r.out  # installed with krein


def _check_methods(r, d):
    missing = [m for m in krein.list_methods() if m not in _table_rows(r.out)]
    assert not missing


QUICK = Path("results") / "loosli_table2-quick"


def _check_quick_run(r, d):
    df = pd.read_csv(d / QUICK / "results.csv")
    assert len(df) and (df["status"] == "ok").all(), df["error"].tolist()[:3]
    assert (d / QUICK / "table.md").is_file()
    assert list((d / QUICK / "figures").glob("*.png"))


def _check_quick_latex(r, d):
    assert r"\begin{tabular}" in r.out and r"\textbf{" in r.out  # best per row in bold
    body = r.out.split(r"\midrule")[1]
    assert {line.split("&")[0].strip() for line in body.splitlines()
            if "&" in line} == {"sonar", "heart"}
    assert "pooled" not in r.out


def _check_quick_plot(r, d):
    written = re.findall(r"^figure written: (.+)$", r.out, flags=re.M)
    assert written
    for path in written:
        assert Path(path).parent == QUICK / "figures", path
        assert (d / path).read_bytes()[:8] == PNG


def _check_committed_table(r, d):
    body = [line for line in r.out.splitlines() if line.startswith("| ")][1:]
    labels = [line.split("|")[1].strip() for line in body]
    assert labels == ["sonar", "heart", "breast_cancer", "diabetes", "a1a"]  # one row each
    assert all("**" in line for line in body)  # a best method per data set
    assert "pooled" not in r.out


#: What each runnable command must produce (the README's words, as checks on the output
#: and the files in the directory).
CHECKS = {
    "krein compare": _check_main_job,
    "krein compare --no-tune": _check_no_tune,
    "krein report krein-results/sonar": _check_report,
    OWN_KERNEL: _own_data_check("K", "kernel"),
    OWN_DISTANCES: _own_data_check("D", "dissimilarity"),
    OWN_FEATURES: _own_data_check("features", "vector"),
    "krein diagnose --kernel-file K.npy --labels labels.txt": _check_own_diagnose,
    HEART: _check_heart,
    CHECKERBOARD: _check_checkerboard,
    "krein diagnose --dataset protein --kernel dissimilarity-linear": _check_diagnose,
    KREIN_METHODS: _check_krein_methods_compare,
    "krein compare --task regression --dataset liver-drinks": _check_regression,
    "krein compare --task novelty --dataset protein-similarity --binary 1:2,3,4": _check_novelty,
    "krein solvers": _check_solvers,
    "krein methods": _check_methods,
    "krein experiment run experiments/loosli_table2.py --quick": _check_quick_run,
    "krein experiment table results/loosli_table2-quick --format latex": _check_quick_latex,
    "krein experiment plot results/loosli_table2-quick": _check_quick_plot,
    "krein experiment table experiments/results/loosli_table2.csv": _check_committed_table,
}


# --------------------------------------------------------------------------- running
class Result:
    """Exit status and captured output of one command."""

    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err


def _run_krein(argv, directory):
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(cwd)
    return Result(rc, out.getvalue(), err.getvalue())


def _tree_digest(path):
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


class Session:
    """The README's commands run in order in one directory (a fresh clone's view)."""

    def __init__(self, directory):
        self.directory = directory
        self.commands = readme_commands()
        self.results = {}
        self.done = 0

    def runnable(self, words):
        key = _key(words)
        return words[0] == "krein" and key not in NOT_RUN and (key not in SLOW or RUN_SLOW)

    def run_until(self, i):
        """Run (once) every runnable command up to index ``i``; return command i's Result."""
        while self.done <= i:
            words = self.commands[self.done]
            key = _key(words)
            if self.runnable(words) and key not in self.results:
                self.results[key] = _run_krein(words[1:], self.directory)
            self.done += 1
        return self.results.get(_key(self.commands[i]))


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    d = tmp_path_factory.mktemp("fresh_clone")
    for name in ("experiments", "figures"):
        shutil.copytree(REPO / name, d / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _write_own_data(d)
    s = Session(d)
    s.figures_before = _tree_digest(d / "figures")
    s.experiments_before = _tree_digest(d / "experiments")
    return s


def _write_own_data(d):
    """The files of the README's own-data examples: 80 objects of Sonar (a stratified
    subsample, so that the examples take seconds) written as a researcher would."""
    import numpy as np

    from krein.kernel_data import load_kernel_data

    data = load_kernel_data("sonar", n_samples=80, random_state=0)
    names = np.where(data.y > 0, "mine", "rock")
    np.save(d / "K.npy", data.K)
    (d / "labels.txt").write_text("\n".join(names) + "\n")
    X = data.X
    D = np.sqrt(np.maximum(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1), 0.0))
    np.fill_diagonal(D, 0.0)
    np.savetxt(d / "D.txt", D)
    table = pd.DataFrame(X, columns=[f"band{j}" for j in range(X.shape[1])])
    table["class"] = names
    table.to_csv(d / "features.csv", index=False)


COMMANDS = readme_commands()


def test_every_readme_command_is_recognized():
    assert COMMANDS, "no bash block found in README.md or the pages of SOURCES"
    keys = [_key(c) for c in COMMANDS]
    unknown = [k for k in keys if k not in CHECKS and k not in NOT_RUN]
    assert not unknown, ("README commands with no expectation in tests/test_readme.py "
                         f"(add to CHECKS, SLOW or NOT_RUN): {unknown}")
    assert set(SLOW) <= set(CHECKS)
    stale = [k for k in list(CHECKS) + list(NOT_RUN) if k not in keys]
    assert not stale, f"expectations for commands no longer in README.md or SOURCES: {stale}"


@pytest.mark.parametrize("i", range(len(COMMANDS)), ids=[_key(c)[:60] for c in COMMANDS])
def test_readme_command(i, session):
    words = COMMANDS[i]
    key = _key(words)
    if words[0] == "krein":  # valid for the CLI's own parser, run or not
        args = _build_parser().parse_args(words[1:])
        if getattr(args, "script", None):
            assert (REPO / args.script).is_file(), args.script
    if key in NOT_RUN:
        if words[:2] == ["pip", "install"]:
            meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
            assert meta["name"] == "krein" and meta["scripts"]["krein"] == "krein.cli:main"
            extra = re.fullmatch(r"\.(?:\[(\w+)\])?", words[2])
            assert extra, words
            if extra.group(1):
                assert extra.group(1) in meta["optional-dependencies"]
        elif words[0] == "python" and words[1].endswith(".py"):
            assert (REPO / words[1]).is_file(), words[1]
        elif words[:3] == ["python", "-m", "sphinx"]:
            meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
            assert (REPO / words[-2] / "conf.py").is_file(), words
            assert any(r.startswith("sphinx>") for r in meta["optional-dependencies"]["docs"])
        return  # the reason is in NOT_RUN
    if key in SLOW and not RUN_SLOW:
        session.run_until(i)  # the commands before it still run in order
        pytest.skip(f"slow README command (set KREIN_README_SLOW=1 to run it): {SLOW[key]}")
    r = session.run_until(i)
    assert r is not None and r.rc == 0, (r.rc, r.out[-3000:], r.err[-3000:])
    CHECKS[key](r, session.directory)


def test_readme_commands_leave_committed_files_alone(session):
    session.run_until(len(COMMANDS) - 1)
    assert _tree_digest(session.directory / "figures") == session.figures_before
    assert _tree_digest(session.directory / "experiments") == session.experiments_before


def test_readme_parser_handles_continuations_and_chains():
    text = ("x\n```bash\npip install . && krein compare   # main job\n"
            "krein compare --a 1 \\\n      --b 2\n# only a comment\n```\n"
            "```python\nkrein no\n```\n")
    assert readme_commands(text) == [["pip", "install", "."], ["krein", "compare"],
                                     ["krein", "compare", "--a", "1", "--b", "2"]]


def test_docs_parser_reads_rst_code_blocks():
    """The pages of SOURCES are reStructuredText: their ``.. code-block:: bash`` blocks
    count, other languages do not, and the block ends at the first unindented line."""
    text = ("Title\n=====\n\n.. code-block:: bash\n\n   krein methods   # the registry\n"
            "   krein compare --a 1 \\\n         --b 2\n\nprose\n\n   indented quote\n\n"
            ".. code-block:: python\n\n   krein no\n")
    assert readme_commands(text) == [["krein", "methods"],
                                     ["krein", "compare", "--a", "1", "--b", "2"]]


def test_every_source_page_exists_and_the_readme_links_to_it():
    """The commands moved out of the README live in pages the README points to."""
    readme = README.read_text(encoding="utf-8")
    for page in SOURCES[1:]:
        assert page.is_file(), page
    for page in ("docs/getting_started.rst", "docs/cli.rst", "docs/layout.md",
                 "docs/reproductions/index.rst"):
        assert f"]({page}" in readme, page


def test_readme_python_example_prints_what_its_comments_say():
    """The README's Python block runs, and the values its comments state are printed:
    the kernel's signature and the nested-CV accuracy of ESVC."""
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"),
                        flags=re.S | re.M)
    assert len(blocks) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})
    printed = out.getvalue().splitlines()
    assert printed[0] == "(154, 54, 0)" and "# (154, 54, 0)" in blocks[0]
    stated = re.search(r"nested CV accuracy: (0\.\d+)", blocks[0]).group(1)
    assert f"{float(printed[1]):.3f}" == stated


def test_your_own_data_lists_every_file_format_in_one_table():
    """The README's "Your own data" section is one table with a row for each kind of
    file the data door reads, and every option it names is an option of krein compare."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Your own data\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    kinds = [row.split("|")[1].strip() for row in rows]
    for kind in ("matrix", "named matrix", "condensed", "edge list", "labels, one per line",
                 "name,label"):
        assert sum(kind in k for k in kinds) >= 1, kind
    compare = next(a for a in _build_parser()._subparsers._group_actions[0].choices.items()
                   if a[0] == "compare")[1]
    known = {o for action in compare._actions for o in action.option_strings}
    for option in set(re.findall(r"`(--[a-z-]+)", section)):
        assert option in known, option
