"""Sphinx glue of the krein site (docs/conf.py loads it).

``experiments/README.md`` stays the single source of the reproduction pages: the pages of
``docs/reproductions/`` include its sections with MyST's ``{include}`` (``:start-after:`` /
``:end-before:`` on its headings).  That file names its figures in the text
(``figures/loosli_fig1.png``) rather than showing them; on the site each committed figure
is shown once, after the paragraph that first names it, by :func:`show_named_figures` on
Sphinx's ``include-read`` event (the including pages are in ``docs/reproductions/``).  Nothing is written to the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

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


def guide_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``:guide:`spectrum``` links the user-guide page ``user_guide/spectrum``.

    The user guide is written beside the reference pages; until a page exists the link goes
    to the guide's index, so that the reference builds without warnings on its own.
    """
    from sphinx.addnodes import pending_xref
    from docutils import nodes

    env = inliner.document.settings.env
    target = f"user_guide/{text}"
    if target not in env.found_docs:
        target = "user_guide/index"
    node = pending_xref(rawtext, reftype="doc", refdomain="std", refexplicit=False,
                        reftarget="/" + target, refdoc=env.docname, refwarn=True)
    node += nodes.inline(rawtext, "", classes=["xref", "std", "std-doc"])
    return [node], []


def setup(app):
    app.connect("include-read", _on_include_read)
    app.add_role("guide", guide_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
