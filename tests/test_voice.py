"""The project's text is written for the reader, in the present tense.

README.md, the documentation pages (``docs/**/*.rst`` and ``*.md``, and
``experiments/README.md``, whose sections the reproduction pages show), the docstrings and
comments of ``krein/``, ``tests/`` and ``examples/``, and the names of the tests say what
krein does. They hold no reference to this project's issues by number, no date of a run
(an ISO date) and no remark on the state of the machine it ran on (how loaded or quiet it
was, what else ran beside it, when); :data:`PATTERNS` are the phrases, and the tests at the
end show what they find and what they leave alone. The history belongs in
``CHANGELOG.md`` and the commit messages; ``benchmarks/README.md`` is the record of the
measurements (with their dates and the machine's state, but no issue numbers), and the site shows each of its tables with the machine and the date once
(``docs/benchmarks.md``).

The scripts of ``benchmarks/``, ``experiments/`` and ``scripts/`` are held to the history
rules (no issue numbers, no dates of runs); their docstrings may describe the load they
measure under. What is scanned in a Python file: comments, docstrings (module, class,
function) and the names of functions and classes; string literals that are data (a date
in a test's sample report, say) are not. A reference to another project's issue tracker ("cvxpy issue
#2362", "scikit-learn's ... PR #12145") names that project just before the number and is
allowed.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: Directories of the documentation that hold build output, not sources.
GENERATED = ("_build", "auto_examples", "generated", "jupyter_execute")

#: Projects whose issue trackers the text may cite by number.
UPSTREAM = ("cvxpy", "scikit-learn", "sklearn", "scipy", "numpy", "openblas", "lapack",
            "libsvm", "liblinear", "clarabel", "scs", "osqp", "highs", "sphinx", "pandas",
            "matplotlib", "dask", "joblib", "pytest", "myst", "github.com/")

#: A word break inside a sentence: spaces, or a line break and the next line's indent
#: (with a comment's ``#`` or a quote's ``>``).
SEP = r"(?:[ \t]*\n[ \t#*>]*|[ \t]+)"
ISSUE = re.compile(rf"\b(?:issues?|PRs?|pull{SEP}requests?){SEP}?#?\d+"
                   r"|(?<![\w&/#\[])#\d{1,4}\b", re.I)
DATE = re.compile(r"\b20\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")
MACHINE = re.compile(
    rf"\b(?:loaded|quiet|busy|idle){SEP}(?:two-core{SEP})?(?:machine|cores?)\b"
    rf"|\bother{SEP}jobs?\b[^.]{{0,20}}\brunning\b|\bjobs?{SEP}running\b"
    rf"|\bnext{SEP}morning\b"
    rf"|\bshared{SEP}with{SEP}other\b|\btwo{SEP}shared{SEP}cores\b"
    rf"|\bload{SEP}average\b"
    rf"|\bmachine{SEP}was{SEP}(?:loaded|quiet|busy|shared)\b"
    rf"|\b(?:when|while){SEP}the{SEP}machine{SEP}(?:was|is)\b", re.I)
PATTERNS = {"issue number": ISSUE, "date of a run": DATE, "remark on the machine": MACHINE}


def _upstream(text, start):
    before = text[max(0, start - 160):start].lower()
    return any(name in before for name in UPSTREAM)


def _hits(text):
    """``(offset, kind, phrase)`` of every offending phrase of ``text``."""
    hits = []
    for kind, pattern in PATTERNS.items():
        for m in pattern.finditer(text):
            if kind == "issue number" and _upstream(text, m.start()):
                continue
            hits.append((m.start(), kind, " ".join(m.group(0).split())))
    return sorted(hits)


def findings(text):
    """The offending phrases of ``text``: a list of ``(kind, phrase)``.

    Parameters
    ----------
    text : str
        Prose, a docstring, a comment or a name.

    Returns
    -------
    list of tuple of str
        One ``(kind, matched text)`` per hit, ``kind`` a key of :data:`PATTERNS`, in the
        order of the text.
    """
    return [(kind, phrase) for _, kind, phrase in _hits(text)]


def _python_texts(path):
    """(line, text) of every comment, docstring and function or class name of a file."""
    source = path.read_text(encoding="utf-8")
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                first = node.body[0].lineno
                out.append((first, doc))
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.lineno, node.name.replace("_", " ")))
    return out


def _pages():
    pages = [REPO / "README.md", REPO / "experiments" / "README.md"]
    for suffix in ("*.rst", "*.md"):
        pages += [p for p in (REPO / "docs").rglob(suffix)
                  if not set(p.relative_to(REPO / "docs").parts) & set(GENERATED)]
    return sorted(pages)


#: Folders of Python files, with what is looked for in them.  The scripts of
#: ``benchmarks/`` and ``experiments/`` measure time with and without competing processes
#: on purpose and print the load beside their tables, so there only the history (issue
#: numbers, dates of runs) is looked for.
PYTHON_FOLDERS = {"krein": tuple(PATTERNS), "tests": tuple(PATTERNS),
                  "examples": tuple(PATTERNS), "benchmarks": ("issue number", "date of a run"),
                  "experiments": ("issue number", "date of a run"),
                  "scripts": ("issue number", "date of a run")}


def _python_files():
    files = []
    for folder in PYTHON_FOLDERS:
        files += sorted((REPO / folder).rglob("*.py"))
    return files


def _report(path, hits):
    return [f"{path.relative_to(REPO)}:{line}: {kind}: {phrase!r}" for line, kind, phrase in hits]


def _page_hits(path):
    """``(line, kind, phrase)`` of every offending phrase of a page."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, start) + 1, kind, phrase) for start, kind, phrase in _hits(text)]


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_page_speaks_to_the_reader(path):
    bad = _report(path, _page_hits(path))
    assert not bad, "\n".join(bad)


def test_the_benchmark_record_names_no_issue():
    """``benchmarks/README.md`` records each measurement with its date and the machine's
    state (they are the measurement's conditions); which issue asked for it is history."""
    path = REPO / "benchmarks" / "README.md"
    bad = _report(path, [hit for hit in _page_hits(path) if hit[1] == "issue number"])
    assert not bad, "\n".join(bad)


def test_python_comments_docstrings_and_names_speak_to_the_reader():
    bad = []
    for path in _python_files():
        kinds = PYTHON_FOLDERS[path.relative_to(REPO).parts[0]]
        for line, text in _python_texts(path):
            bad += _report(path, [(line, kind, phrase) for kind, phrase in findings(text)
                                  if kind in kinds])
    assert not bad, "\n".join(bad)


def test_the_scan_covers_the_sources():
    pages = {p.relative_to(REPO).as_posix() for p in _pages()}
    assert {"README.md", "experiments/README.md", "docs/getting_started.rst",
            "docs/reproductions/chen2009.md", "docs/benchmarks.md"} <= pages
    assert not any(part in GENERATED for p in pages for part in Path(p).parts)
    assert "CHANGELOG.md" not in pages and "benchmarks/README.md" not in pages
    files = {p.relative_to(REPO).as_posix() for p in _python_files()}
    assert {"krein/registry.py", "tests/test_voice.py", "benchmarks/indefinite.py",
            "experiments/chen2009.py"} <= files
    assert any(f.startswith("examples/") for f in files)


@pytest.mark.parametrize("text", [
    "after the second round of issue 28 item 5",
    "Issue #28 asks for it",
    "as in #28, the cap",
    "measured on the loaded machine",
    "on a quiet\n  machine, 74 s",
    "with two other jobs running",
    "rerun the next morning",
    "load average 4-7",
    "Searched on 2026-11-26 in the corpora",
    "(about 100 s on two busy cores)",
    "took 28 minutes on two cores shared with other jobs",
    "3 min 16 s on two shared cores",
    "def test_issue28_item5",
])
def test_the_patterns_find_the_history(text):
    assert findings(text.replace("def test_", "test ").replace("_", " ")), text


@pytest.mark.parametrize("text", [
    "Loosli, Ong & Canu 2013, Alg. 1",
    "Luss & d'Aspremont 2009, eqs. (4)-(7)",
    "doi:10.24432/C5XW20, UCI 1996",
    "arXiv 1902.10569",
    "cvxpy issue #2362: the solvers report optimal",
    "scikit-learn's KernelPCA refuses it\n(its PR #12145, after issue #8368)",
    "Table 2, rows 1-3; the 10-20 split",
    "the machine's two cores",
    "a job's running time",
    "[#1]_ footnote",
])
def test_the_patterns_leave_citations_alone(text):
    assert not findings(text), findings(text)
