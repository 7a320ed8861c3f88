"""Sphinx glue of the krein site (docs/conf.py loads it).

``experiments/README.md`` stays the single source of the reproduction pages: the pages of
``docs/reproductions/`` include its sections with MyST's ``{include}`` (``:start-after:`` /
``:end-before:`` on its headings).  That file names its figures in the text
(``figures/loosli_fig1.png``) rather than showing them; on the site each committed figure
is shown once, after the paragraph that first names it, by :func:`show_named_figures` on
Sphinx's ``include-read`` event (the including pages are in ``docs/reproductions/``).  Nothing is written to the repository.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "figures"
EXPERIMENTS_README = "experiments/README.md"

_NAMED = re.compile(r"`(?:figures/)?([A-Za-z0-9_\-]+\.png)`")


def show_named_figures(text, figures=FIGURES):
    """Insert a Markdown image after the paragraph that first names each committed figure.

    Parameters
    ----------
    text : str
        Markdown text of ``experiments/README.md``.
    figures : pathlib.Path
        Directory of the committed figures (``figures/`` at the repository root).

    Returns
    -------
    str
        The text with ``![NAME](../../figures/NAME.png)`` paragraphs added, and the
        README's own images (``../figures/NAME.png``, relative to ``experiments/``) moved to
        the same path: relative to the including page in ``docs/reproductions/``.
        Names inside fenced code blocks, names already shown as an image and names with no
        file in ``figures/`` are left alone.
    """
    text = text.replace("](../figures/", "](../../figures/")
    shown = set(re.findall(r"!\[[^\]]*\]\((?:\.\./)*figures/([^)]+\.png)\)", text))
    out, pending, fenced = [], [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and not line.strip() and pending:
            out.extend(["", *[f"![{Path(n).stem}](../../figures/{n})" for n in pending]])
            pending = []
        out.append(line)
        if fenced or line.lstrip().startswith("```"):
            continue
        for name in _NAMED.findall(line):
            if name not in shown and (figures / name).is_file():
                shown.add(name)
                pending.append(name)
    if pending:
        out.extend(["", *[f"![{Path(n).stem}](../../figures/{n})" for n in pending]])
    return "\n".join(out) + "\n"


def _on_include_read(app, relative_path, parent_docname, content):
    if Path(app.srcdir, relative_path).resolve() == (ROOT / EXPERIMENTS_README).resolve():
        content[0] = show_named_figures(content[0])


def link_images_to_full_size(app, doctree, docname):
    """Make every image of an HTML page a link to its file at full size.

    The gallery's figures (sphinx-gallery's ``image-sg`` nodes) and the figures of the user
    guide and the reproductions are shown at the width of the text column; a click opens the
    PNG itself. Images that are already links (thumbnails, badges) and remote images are left
    alone. Connected to ``doctree-resolved``.
    """
    from sphinx.util.osutil import relative_uri

    if getattr(app.builder, "format", None) != "html":
        return
    page = app.builder.get_target_uri(docname)
    for node in list(doctree.findall(lambda n: isinstance(n, nodes.image)
                                     or type(n).__name__ == "imgsgnode")):
        if isinstance(node.parent, nodes.reference) or "://" in node.get("uri", ""):
            continue
        if isinstance(node, nodes.image):
            if node["uri"] not in app.env.images:
                continue
            name = app.env.images[node["uri"]][1]
        else:  # sphinx-gallery copies its images to _images/ under their own names
            name = Path(node["uri"]).name
        reference = nodes.reference("", "", internal=True, classes=["image-reference"],
                                    refuri=relative_uri(page, f"_images/{name}"))
        # HTML writers accept a link around a block-level image only for docutils' image
        # node; sphinx-gallery's goes into a paragraph
        node.replace_self(reference if isinstance(node, nodes.image)
                          else nodes.paragraph("", "", reference))
        reference.append(node)


def _add_source_module_ids(app, doctree):
    """Give each Python object's signature the id ``SOURCE_MODULE.NAME`` as well.

    An object re-exported under another module (``krein.default_grid``, defined in
    ``krein.registry``) has its page and anchor under the name it is documented by. The
    highlighted source pages of :mod:`sphinx.ext.viewcode` link back to the documentation
    as ``PAGE#SOURCE_MODULE.NAME`` once :func:`_source_module_backlinks` has set that prefix:
    this id makes each of those anchors exist. Connected to ``doctree-read``.
    """
    from sphinx import addnodes
    from sphinx.ext.viewcode import _get_full_modname

    for signode in doctree.findall(addnodes.desc_signature):
        module, fullname = signode.get("module"), signode.get("fullname")
        if not module or not fullname:
            continue
        source = _get_full_modname(module, fullname)
        if source and source != module and f"{source}.{fullname}" not in signode["ids"]:
            signode["ids"].append(f"{source}.{fullname}")


def _source_module_backlinks(app):
    """Make viewcode's "[docs]" back-links of a source module ``SOURCE_MODULE.NAME``.

    viewcode writes each back-link as ``PAGE#PREFIX.NAME`` with one prefix per source module,
    the module name of whichever signature it met first (``krein`` for a module some of
    whose names are re-exported at the top level), so the anchors of the module's other
    names did not exist. Connected to ``html-collect-pages`` before viewcode's own handler.
    """
    modules = getattr(app.env, "_viewcode_modules", {})
    for name, entry in list(modules.items()):
        if entry:
            code, tags, used, _ = entry
            modules[name] = (code, tags, used, name)
    return []


def guide_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``:guide:`spectrum``` links the user-guide page ``user_guide/spectrum``.

    The user guide is written beside the reference pages; until a page exists the link goes
    to the guide's index, so that the reference builds without warnings on its own.
    """
    from sphinx.addnodes import pending_xref

    env = inliner.document.settings.env
    target = f"user_guide/{text}"
    if target not in env.found_docs:
        target = "user_guide/index"
    node = pending_xref(rawtext, reftype="doc", refdomain="std", refexplicit=False,
                        reftarget="/" + target, refdoc=env.docname, refwarn=True)
    node += nodes.inline(rawtext, "", classes=["xref", "std", "std-doc"])
    return [node], []


def parser_sections(parser, prog):
    """``(title, help text)`` of an argparse parser and of each of its subcommands, depth
    first, in the order they were added.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser (``krein.cli._build_parser()``).
    prog : str
        Its program name (``"krein"``); subcommands are ``"krein compare"``, ...

    Returns
    -------
    list of (str, str)
        The title and the ``format_help()`` text, 100 columns wide.
    """
    import argparse

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        out = [(prog, parser.format_help())]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out += parser_sections(sub, f"{prog} {name}")
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return out


class CommandLineHelp(SphinxDirective):
    """``.. krein-cli-help:: module:function`` renders a section per (sub)command of the
    parser that ``function()`` returns, each with its ``--help`` text as a literal block
    (help strings are plain text, not reStructuredText)."""

    required_arguments = 1
    option_spec = {"prog": directives.unchanged}

    def run(self):
        import importlib

        module, func = self.arguments[0].split(":")
        parser = getattr(importlib.import_module(module), func)()
        prog = self.options.get("prog", parser.prog)
        result = []
        for title, text in parser_sections(parser, prog):
            section = nodes.section(ids=[nodes.make_id(title)], names=[nodes.fully_normalize_name(title)])
            section += nodes.title(title, "", nodes.literal(title, title))
            section += nodes.literal_block(text, text, language="text")
            self.state.document.note_implicit_target(section, section)
            result.append(section)
        return result


#: The sections numpydoc knows; it drops any other section of a docstring from the page.
NUMPYDOC_SECTIONS = {"Parameters", "Returns", "Yields", "Receives", "Raises", "Warns",
                     "Other Parameters", "Attributes", "Methods", "See Also", "Notes",
                     "Warnings", "References", "Examples"}


_TERM = re.compile(r"^(``)?[A-Za-z_][\w.]*(``)? : ")
_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w])([A-Za-z]\w*_)(?=[\s,.;:)]|$)")


def _section_title(lines, i):
    """The normalized title if ``lines[i]`` heads a numpydoc section, else None."""
    if i + 1 >= len(lines) or not lines[i].strip() or lines[i][:1].isspace():
        return None
    title, rule = lines[i].strip(), lines[i + 1].strip()
    if len(rule) < len(title) or set(rule) not in ({"-"}, {"="}):
        return None
    return " ".join(w.capitalize() for w in title.split())


def keep_unknown_sections(lines):
    """Move the docstring sections numpydoc does not know into its Notes, under a rubric.

    numpydoc renders only its own sections (Parameters, Returns, Notes, ...) and drops any
    other (``Kernel``, ``Multiclass``, ``Class Weights`` of
    :class:`krein.estimators.KernelClassifierBase`) with a ``UserWarning``; on the site they
    are kept as ``.. rubric:: Title`` paragraphs at the end of Notes (a Notes section is
    added where there is none). The docstrings themselves are unchanged.

    Parameters
    ----------
    lines : list of str
        The docstring's lines as autodoc passes them (dedented); changed in place.

    Returns
    -------
    list of str
        The titles of the sections moved.
    """
    heads = [i for i in range(len(lines)) if _section_title(lines, i)]
    if not heads:
        return []
    spans = [(i, heads[k + 1] if k + 1 < len(heads) else len(lines)) for k, i in enumerate(heads)]
    known, moved, titles = [], [], []
    for start, end in spans:
        title = _section_title(lines, start)
        if title in NUMPYDOC_SECTIONS:
            known.append((title, lines[start:end]))
        else:
            titles.append(title)
            # a word ending in "_" (a fitted attribute) is a reference target in plain
            # reStructuredText: numpydoc's own sections quote it, here it gets literal
            body = []
            for line in lines[start + 2:end]:
                line = _TRAILING_UNDERSCORE.sub(r"``\1``", line)
                prev = body[-1] if body else ""
                # numpydoc-style "name : type" items: each its own definition-list item or
                # paragraph (an item without description would run into the next one)
                if line[:1].strip() and prev.strip() and (prev[:1].isspace() or (
                        _TERM.match(line) and _TERM.match(prev))):
                    body.append("")
                body.append(line)
            while body and not body[-1].strip():
                body.pop()
            moved += ["", f".. rubric:: {lines[start].strip()}", "", *body, ""]
    if not titles:
        return []
    notes = next((k for k, (t, _) in enumerate(known) if t == "Notes"), None)
    if notes is None:
        if known and known[-1][1][-1].strip():
            known[-1] = (known[-1][0], known[-1][1] + [""])
        known.append(("Notes", ["Notes", "-----"]))
        notes = len(known) - 1
    title, block = known[notes]
    while len(block) > 2 and not block[-1].strip():
        block.pop()
    known[notes] = (title, block + moved)
    lines[heads[0]:] = [line for _, block in known for line in block]
    return titles


def _on_process_docstring(app, what, name, obj, options, lines):
    keep_unknown_sections(lines)


#: Abbreviations of the papers' numbering ("eq. (17)", "Alg. 1") that do not end the first
#: sentence of a docstring, the summary of the API tables.
NUMBERING_ABBREVIATIONS = (" eq.", " eqs.", " Eq.", " Eqs.", " Alg.", " Prop.", " Props.",
                           " Fig.", " Figs.", " Thm.", " Cor.", " Sec.", " cf.")


def setup(app):
    from sphinx.ext import autosummary

    # autosummary cuts a summary at the first ". " unless it ends with a known abbreviation
    # (its WELL_KNOWN_ABBREVIATIONS); without the constant summaries are merely shorter
    if isinstance(getattr(autosummary, "WELL_KNOWN_ABBREVIATIONS", None), tuple):
        autosummary.WELL_KNOWN_ABBREVIATIONS = tuple(dict.fromkeys(
            autosummary.WELL_KNOWN_ABBREVIATIONS + NUMBERING_ABBREVIATIONS))
    app.connect("autodoc-process-docstring", _on_process_docstring, priority=400)
    app.connect("include-read", _on_include_read)
    app.connect("doctree-resolved", link_images_to_full_size)
    app.connect("doctree-read", _add_source_module_ids)
    app.connect("html-collect-pages", _source_module_backlinks, priority=400)
    app.add_role("guide", guide_role)
    app.add_directive("krein-cli-help", CommandLineHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
