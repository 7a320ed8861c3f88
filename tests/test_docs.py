"""The documentation site: it builds with warnings as errors, every public name
has a page, the README's links resolve, CITATION.cff is valid.

The build runs Sphinx in a subprocess (``python -m sphinx -W --keep-going -b html``) into
a temporary directory with ``KREIN_DOCS_FAST=1``, the gallery examples' small settings
(``docs/conf.py``): warnings as errors catch a broken reference, a docstring that does not
parse, a failing example, a duplicated citation key and an equation that does not convert
to MathML. The build runs offline (every proxy variable points at a closed port); the
built pages are then read: no raw LaTeX in their text, nothing loaded from another host,
every internal link and anchor resolves. The build is skipped, with the reason, only where
Sphinx or latex2mathml is not installed (the test extra installs them). The other tests
read files and need no build.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import unicodedata
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import krein

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
sys.path.insert(0, str(DOCS / "_ext"))
import krein_docs  # noqa: E402
import krein_mathml  # noqa: E402  (imports latex2mathml only when converting)


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
    _check_equations_are_mathml_and_no_raw_tex_is_left(site)
    _check_pages_load_nothing_from_the_network(site)
    _check_internal_links_and_anchors_exist(site)
    _check_gallery_images_link_their_full_size(site)
    _check_api_pages_list_the_examples_using_them(site)


def _build(out):
    """The site built with -W into ``out``; ``out``."""
    pytest.importorskip("sphinx", reason="Sphinx is not installed (pip install '.[docs]')")
    pytest.importorskip("latex2mathml", reason="latex2mathml is not installed (pip install '.[docs]')")
    out.mkdir(parents=True)
    # offline: every proxy variable points at a closed local port, so that a download
    # attempted by an extension or an example fails the build
    offline = {name: "http://127.0.0.1:9" for name in
               ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy")}
    env = dict(os.environ, KREIN_DOCS_FAST="1", MPLBACKEND="Agg", **offline,
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    for name in ("no_proxy", "NO_PROXY"):
        env.pop(name, None)
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


class _PageText(HTMLParser):
    """The text a browser shows of a page: without scripts, styles, code (``pre``,
    ``code``, whose backslashes are the code's own) and the MathML of equations."""

    SKIP = {"script", "style", "pre", "code", "math"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def _page_text(html):
    parser = _PageText()
    parser.feed(html)
    return "".join(parser.parts)


#: LaTeX left as text: MathJax's delimiters or a command (``\frac``, ``\lambda``).
RAW_TEX = re.compile(r"\\[()\[\]]|\$\$|\\(?:begin|end|frac|tfrac|sum|lambda|alpha|mathbb|mathrm|"
                     r"operatorname|top|le|ge|in|approx|langle|rangle|lVert|rVert|text)\b")


def _check_equations_are_mathml_and_no_raw_tex_is_left(site):
    """The equations are MathML in the HTML (no MathJax, no script), and no page shows
    raw LaTeX in its text."""
    pages = sorted(site.rglob("*.html"))
    with_math = [p for p in pages if "<math " in p.read_text(encoding="utf-8")]
    assert len(with_math) >= 10, [str(p.relative_to(site)) for p in with_math]
    assert "<math " in (site / "user_guide" / "spectrum.html").read_text(encoding="utf-8")
    raw = {}
    for page in pages:
        if page.parts[len(site.parts)] in ("_modules", "_sources", "_static"):
            continue  # highlighted source code and the sources themselves
        html = page.read_text(encoding="utf-8")
        assert "mathjax" not in html.lower(), page
        found = RAW_TEX.findall(_page_text(html))
        if found:
            raw[str(page.relative_to(site))] = sorted(set(found))[:5]
    assert not raw, f"raw LaTeX in the rendered text: {raw}"


def _check_pages_load_nothing_from_the_network(site):
    """No page loads a script, a style sheet or an image from another host: the local
    build reads the same offline."""
    remote = re.compile(r"<(?:script|img|link)\b[^>]*\b(?:src|href)=\"(?:https?:)?//[^\"]+\"")
    found = {}
    for page in site.rglob("*.html"):
        hits = [m for m in remote.findall(page.read_text(encoding="utf-8"))
                if "rel=\"canonical\"" not in m]
        if hits:
            found[str(page.relative_to(site))] = hits[:3]
    assert not found, found


def _check_internal_links_and_anchors_exist(site):
    """Every link of the site to one of its own pages points to a file that exists and,
    with a ``#fragment``, to an id of that page."""
    ids = {}

    def page_ids(path):
        if path not in ids:
            ids[path] = set(re.findall(r'\sid="([^"]+)"', path.read_text(encoding="utf-8")))
        return ids[path]

    broken, checked = [], 0
    for page in sorted(site.rglob("*.html")):
        for href in re.findall(r'<a\s[^>]*?href="([^"]+)"', page.read_text(encoding="utf-8")):
            url = urlsplit(unescape(href))
            if url.scheme or url.netloc:
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            checked += 1
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {href} (no file)")
            elif url.fragment and target.suffix == ".html" \
                    and unquote(url.fragment) not in page_ids(target):
                broken.append(f"{page.relative_to(site)}: {href} (no such anchor)")
    assert checked > 1000, checked
    assert not broken, f"{len(broken)} broken internal links: {broken[:20]}"


def _check_gallery_images_link_their_full_size(site):
    """Each figure of a gallery example is a link to its PNG (shown at the column's
    width, read at full size)."""
    pages = sorted((site / "auto_examples").rglob("plot_*.html"))
    assert len(pages) >= 15
    total = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        # (sphinx-gallery writes the figure's title into alt unescaped: match on src)
        images = re.findall(r'<img src="[^"]*/sphx_glr_plot_[^"]*\.png"', html)
        linked = re.findall(r'<a [^>]*href="([^"]+\.png)"[^>]*>\s*<img src="[^"]*/sphx_glr_plot_', html)
        assert len(linked) == len(images), (page.name, len(images), len(linked))
        for href in linked:
            assert (page.parent / href).resolve().is_file(), (page.name, href)
        total += len(images)
    assert total >= 15, total


def _check_api_pages_list_the_examples_using_them(site):
    """sphinx-gallery's backreferences: the page of an estimator the gallery uses lists
    those examples."""
    html = (site / "generated" / "krein.ESVC.html").read_text(encoding="utf-8")
    assert "Examples using" in html
    assert re.search(r'href="\.\./auto_examples/[^"]+/plot_[a-z0-9_]+\.html', html)


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


# the constructs the docs' equations use, each with a piece of MathML it must give
MATHML_CASES = [
    (r"K = V \operatorname{diag}(\lambda) V^\top", "<mo lspace=\"0.1667em\" rspace=\"0em\">diag</mo>"),
    (r"\begin{aligned} a &= b \\ c &= d \end{aligned}", "<mtable"),
    (r"f(x) = \begin{cases} 1 & x > 0 \\ -1 & \text{otherwise} \end{cases}", "<mtable"),
    (r"\begin{pmatrix} 1 & 0 \\ 0 & -1 \end{pmatrix}", "<mtable"),
    (r"\mathbb{R}^{(p,q)}", "\u211d"),
    (r"\Big(K_0 + \frac{(Y\alpha)(Y\alpha)^\top}{4\rho}\Big)_+", "<msub><mrow><mo minsize="),
    (r"\lVert m^- - m^+\rVert_{pE}^2", '<mo stretchy="false">\u2016</mo>'),
    (r"r_{mm} = 100\,\frac{|\lambda_{\min}|}{\lambda_{\max}}", "<mfrac>"),
    (r"(K + K^\top)/2", '<mo lspace="0em" rspace="0em">/</mo>'),
    (r"\sqrt{\left(\frac1J + \frac{n_{test}}{n_{train}}\right) \widehat{\operatorname{var}}(d)}",
     "<msqrt>"),
]


@pytest.mark.parametrize("tex, piece", MATHML_CASES)
def test_equations_become_mathml_without_latex_left(tex, piece):
    pytest.importorskip("latex2mathml", reason="latex2mathml is not installed")

    out = krein_mathml.tex_to_mathml(tex, display=True)
    assert out.startswith('<math alttext="') and out.endswith("</math>")
    assert 'display="block"' in out and piece in out
    body = out.split(">", 1)[1]  # the source is kept only in the alttext attribute
    assert "\\" not in body and "&amp;" not in body


def test_maximum_takes_its_limit_below_only_in_display():
    pytest.importorskip("latex2mathml", reason="latex2mathml is not installed")

    assert "<munder><mo" in krein_mathml.tex_to_mathml(r"\max_{\alpha} f", display=True)
    assert "<msub><mo" in krein_mathml.tex_to_mathml(r"\max_{\alpha} f", display=False)


@pytest.mark.parametrize("tex", [r"x \label{eq:x}", r"\unknowncommand{x}", r"\frac{1}{"])
def test_an_equation_that_does_not_convert_is_an_error(tex):
    pytest.importorskip("latex2mathml", reason="latex2mathml is not installed")

    with pytest.raises(krein_mathml.MathConversionError):
        krein_mathml.tex_to_mathml(tex)
