"""The documentation site: it builds with warnings as errors, every public name
has a page, the README's links resolve, CITATION.cff is valid.

The build runs Sphinx in a subprocess (``python -m sphinx -W --keep-going -b html``) into
a temporary directory with ``KREIN_DOCS_FAST=1``, the gallery examples' small settings
(``docs/conf.py``): warnings as errors catch a broken reference, a docstring that does not
parse, a failing example and a duplicated citation key. The build is skipped, with the
reason, only where Sphinx is not installed (the test extra installs it). The other tests
read files and need no build.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import krein

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
sys.path.insert(0, str(DOCS / "_ext"))
import krein_docs  # noqa: E402


def _conf_value(name):
    """A top-level constant of docs/conf.py, read without running it."""
    import ast

    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"docs/conf.py defines no {name}")


API_MODULES = _conf_value("API_MODULES")


# --------------------------------------------------------------------------- the build
def test_site_builds_and_documents_everything(tmp_path):
    """ONE build (with pytest-xdist a module fixture is built once per worker, and the
    build is the suite's longest test), then every check of the built pages."""
    site = _build(tmp_path / "html")
    _check_pages_exist(site)
    _check_every_public_name_has_a_page(site)
    _check_cli_page_documents_every_subcommand(site)
    _check_reproduction_pages_show_the_committed_figures(site)


def _build(out):
    """The site built with -W into ``out``; ``out``."""
    pytest.importorskip("sphinx", reason="Sphinx is not installed (pip install '.[docs]')")
    out.mkdir(parents=True)
    env = dict(os.environ, KREIN_DOCS_FAST="1", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-j", "1", "-b", "html",
         "-d", str(out / ".doctrees"), str(DOCS), str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-6000:])
    return out


def _check_pages_exist(site):
    for page in ("index", "getting_started", "api", "cli", "bibliography", "layout",
                 "reproductions/index", "reproductions/loosli", "user_guide/index"):
        assert (site / f"{page}.html").is_file(), page


def _check_every_public_name_has_a_page(site):
    """Every name of ``krein.__all__`` has its page ``generated/krein.NAME.html``; every
    public module of docs/conf.py's API_MODULES has one, and each class and function of
    its ``__all__`` has its own page or links the page of the same object."""
    missing = [n for n in krein.__all__ if not (site / "generated" / f"krein.{n}.html").is_file()]
    assert not missing, f"krein.__all__ names without an API page: {missing}"
    for module in API_MODULES:
        page = site / "generated" / f"krein.{module}.html"
        assert page.is_file(), module
        html = page.read_text(encoding="utf-8")
        mod = importlib.import_module(f"krein.{module}")
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not (isinstance(obj, type) or callable(obj)):
                assert f'id="krein.{module}.{name}"' in html, f"krein.{module}.{name}"
                continue
            if (site / "generated" / f"krein.{module}.{name}.html").is_file():
                continue  # its own page
            # else documented under another name: a resolved link on the module page
            assert re.search(rf'<span class="pre">{re.escape(name)}</span></code>: <a ', html), \
                f"krein.{module}.{name} has no page"


def _check_cli_page_documents_every_subcommand(site):
    from krein.cli import _build_parser

    html = (site / "cli.html").read_text(encoding="utf-8")
    parser = _build_parser()
    sub = next(a for a in parser._subparsers._group_actions)  # the COMMAND subparsers
    for name, p in sub.choices.items():
        assert f"krein {name}" in html, name
        for action in p._actions:
            for option in action.option_strings:
                if option.startswith("--"):
                    assert option in html, f"krein {name} {option}"


def _check_reproduction_pages_show_the_committed_figures(site):
    """Every committed figure named in experiments/README.md is shown (copied into
    _images) by one of the reproduction pages."""
    text = (REPO / "experiments" / "README.md").read_text(encoding="utf-8")
    named = {n for n in re.findall(r"([a-z0-9_]+\.png)", text) if (REPO / "figures" / n).is_file()}
    shown = {p.name for p in (site / "_images").glob("*.png")}
    assert named and named <= shown, sorted(named - shown)


# --------------------------------------------------------------------------- no build
def test_api_page_lists_every_public_name():
    """docs/api.rst names every ``krein.__all__`` entry and every public module (the
    build then makes their pages; this says which one is missing without a build)."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   ([A-Za-z_][\w.]*)$", text, flags=re.M))
    assert not [n for n in krein.__all__ if n not in listed]
    assert not [m for m in API_MODULES if m not in listed]


def test_reproduction_includes_name_headings_of_experiments_readme():
    """Each ``start-after`` / ``end-before`` of docs/reproductions/*.md is a heading of
    experiments/README.md, present once (else the include takes the wrong section)."""
    lines = (REPO / "experiments" / "README.md").read_text(encoding="utf-8").splitlines()
    markers = []
    for page in sorted((DOCS / "reproductions").glob("*.md")):
        for m in re.finditer(r"^(?:start-after|end-before): '(.*)'$",
                             page.read_text(encoding="utf-8"), flags=re.M):
            markers.append((page.name, m.group(1).replace("''", "'")))
    assert len(markers) >= 10
    for page, marker in markers:
        assert lines.count(marker) == 1 and marker.startswith("#"), (page, marker)


def test_named_figures_are_shown_after_their_paragraph(tmp_path):
    (tmp_path / "a.png").write_bytes(b"")
    (tmp_path / "b.png").write_bytes(b"")
    text = ("Intro `figures/a.png` and\n`b.png`, `c.png` (no file).\n\nNext `a.png` again.\n\n"
            "```\nkrein x   # figures/b.png\n```\n![done](../figures/b.png)\n")
    out = krein_docs.show_named_figures(text, figures=tmp_path)
    assert out.count("![a](../../figures/a.png)") == 1
    assert "![b](../../figures/b.png)" not in out.split("Next")[0]  # already an image below
    assert "![done](../../figures/b.png)" in out                    # moved to the page's path
    assert "c.png)" not in out
    para, rest = out.split("\n\n", 1)
    assert rest.startswith("![a](../../figures/a.png)")             # right after its paragraph
    assert "figures/b.png\n```" in out                              # code left alone


def _github_anchor(heading):
    """GitHub's anchor of a Markdown heading (lower case, punctuation dropped, spaces to
    hyphens)."""
    text = re.sub(r"`|\*", "", heading.strip()).lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return {_github_anchor(h) for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}
    # reStructuredText: a section title is a line underlined by a row of punctuation
    titles = re.findall(r"^(\S.*)\n([=\-~^\"'`#*+]{3,})$", text, flags=re.M)
    return {re.sub(r"[^\w]+", "-", t.lower()).strip("-") for t, _ in titles}


def test_readme_links_resolve():
    """Every link of README.md to a local file exists; every anchor (``#x`` or
    ``file#x``) is a heading of its file."""
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if not re.match(r"[a-z]+://|mailto:", link)]
    assert len(local) >= 8, local
    for link in local:
        target, _, anchor = link.partition("#")
        path = README if not target else (REPO / target)
        assert path.exists(), f"README.md links a missing file: {link}"
        if anchor:
            assert anchor in _anchors(path), f"README.md links a missing anchor: {link}"


def test_citation_cff_is_valid_and_cites_the_papers():
    """CITATION.cff parses, has the keys CFF 1.2.0 requires, and its references are the
    entries of docs/references.bib that krein implements (same titles, same years)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "type", "version", "license"):
        assert cff[key], key
    assert cff["version"] == krein.__version__
    bib = (DOCS / "references.bib").read_text(encoding="utf-8")
    entries = {}
    for body in re.split(r"^@", bib, flags=re.M)[1:]:
        title = re.search(r"title\s*=\s*\{(.*)\},?\s*$", body, flags=re.M).group(1)
        year = int(re.search(r"year\s*=\s*\{(\d{4})\}", body).group(1))
        entries.setdefault(re.sub(r"[{}]", "", title).lower(), set()).add(year)
    assert len(cff["references"]) >= 8
    for ref in cff["references"]:
        assert ref["type"] and ref["authors"], ref["title"]
        assert all(a.get("family-names") for a in ref["authors"]), ref["title"]
        title = ref["title"].lower()
        assert ref["year"] in entries.get(title, ()), \
            f"{ref['title']} ({ref['year']}) is not an entry of docs/references.bib"


def test_sections_numpydoc_does_not_know_are_kept_in_notes():
    """numpydoc drops a section it does not know (KernelClassifierBase's "Kernel",
    "Multiclass", ...); on the site it becomes a rubric at the end of Notes, which numpydoc
    then parses without a warning and with the text intact."""
    import inspect
    import warnings

    from numpydoc.docscrape import NumpyDocString

    from krein.estimators import KernelClassifierBase

    lines = inspect.cleandoc(KernelClassifierBase.__doc__).splitlines()
    original = "\n".join(lines)
    moved = krein_docs.keep_unknown_sections(lines)
    assert {"Kernel", "Multiclass", "Class Weights"} <= set(moved)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = NumpyDocString("\n".join(lines))
    notes = "\n".join(doc["Notes"])
    for title in moved:
        assert f".. rubric:: " in notes and title.lower() in notes.lower()
    assert 'kernel="precomputed"' in original and 'kernel="precomputed"' in notes
    # a fitted attribute (``trace_``) would be a dangling rst reference once out of numpydoc
    assert "\ntrace_ :" in "\n" + original and "``trace_`` :" in notes
    lines = ["Summary.", "", "Parameters", "----------", "x : int", "    An x.", "",
             "Stacked kernels", "---------------", "Text of it.", "", "Examples", "--------",
             ">>> 1", "1"]
    assert krein_docs.keep_unknown_sections(lines) == ["Stacked Kernels"]
    assert lines == ["Summary.", "", "Parameters", "----------", "x : int", "    An x.", "",
                     "Examples", "--------", ">>> 1", "1", "",
                     "Notes", "-----", "", ".. rubric:: Stacked kernels", "", "Text of it.", ""]
    doc = NumpyDocString("\n".join(lines))
    assert doc["Parameters"][0].name == "x" and doc["Examples"] == [">>> 1", "1"]
    table = ["Summary.", "", "=====  =====", "a      b", "=====  =====", "1      2", "=====  ====="]
    assert krein_docs.keep_unknown_sections(list(table)) == []   # an rst table is no section
