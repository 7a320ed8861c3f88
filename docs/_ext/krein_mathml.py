"""Equations of the krein site as MathML, written into the HTML at build time.

Every ``:math:`` role and ``.. math::`` block (reStructuredText, MyST's ``{math}``, the
gallery's text blocks, docstrings) is converted from LaTeX to presentation MathML by
`latex2mathml <https://pypi.org/project/latex2mathml/>`_ while the page is written, so the
pages need no script and no network to show their equations: browsers render MathML
natively (MathML Core). ``docs/_static/krein.css`` names the math fonts to use, ending with
the DejaVu Math TeX Gyre font shipped in ``docs/_static/fonts/`` (its OpenType MATH table
draws stretched delimiters where the reader has no math font installed).

A formula that cannot be converted (a LaTeX command latex2mathml does not know) is a build
warning naming the command and the page, so the ``-W`` build of ``tests/test_docs.py`` fails
on it rather than showing raw TeX.

Select it in ``conf.py`` with ``html_math_renderer = "mathml"``.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

#: Multi-line environments latex2mathml lays out as a table only under the name ``split``
#: (it writes ``aligned``'s ``&`` as a letter); their meaning is the same.
_ALIGNED = re.compile(r"\\(begin|end)\{(?:aligned|align\*?|eqnarray\*?)\}")
#: Operator names whose subscript TeX sets below them in a displayed formula.
_LIMITS = {"max", "min", "sup", "inf", "lim", "limsup", "liminf", "argmax", "argmin", "det",
           "Pr", "gcd"}
#: Delimiters latex2mathml leaves without ``stretchy``: MathML would stretch them to the
#: height of the whole row (``\lVert x\rVert^2_F``), TeX keeps them at text size.
_FIXED = {"&#x02016;"}
_OPENING = {"&#x00028;", "&#x0005B;", "&#x0007B;", "(", "[", "{"}
_COMMAND = re.compile(r"\\[A-Za-z]+")


class MathConversionError(ValueError):
    """A formula latex2mathml cannot convert, or converts leaving LaTeX commands in it."""


def tex_to_mathml(tex, display=False):
    """The MathML of one LaTeX formula.

    Parameters
    ----------
    tex : str
        The formula, without delimiters (``K = V \\operatorname{diag}(\\lambda) V^\\top``).
        ``aligned``/``align``/``eqnarray`` environments are laid out as ``split``.
    display : bool
        A displayed formula (``<math display="block">``, limits of ``\\max``, ``\\min``,
        ... below the operator) or one in the text line.

    Returns
    -------
    str
        One ``<math>`` element, with the LaTeX source as its ``alttext``.

    Raises
    ------
    MathConversionError
        If latex2mathml fails on the formula, or leaves a LaTeX command (a backslash) or an
        alignment ``&`` of an environment it does not know in the MathML.
    """
    from xml.etree.ElementTree import Element, tostring

    from latex2mathml.converter import convert_to_element

    source = tex.strip()
    try:
        math = convert_to_element(_ALIGNED.sub(r"\\\1{split}", source),
                                  display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises its own exception types
        raise MathConversionError(f"{type(exc).__name__} {exc}".strip()) from None
    for parent in math.iter():
        for k, child in enumerate(parent):
            if child.tag == "mo" and not child.attrib and child.text in _FIXED:
                child.set("stretchy", "false")
            if child.tag == "mo" and not child.attrib and child.text == "&#x0002F;":
                # TeX sets a slash as an ordinary symbol, without space around it
                child.set("lspace", "0em")
                child.set("rspace", "0em")
            if child.tag == "mo" and (child.text or "").isalpha() and len(child.text) > 1:
                # an operator name (\operatorname{diag}, \max): TeX's thin space before
                # it, none before an opening parenthesis after it (MathML's default for an
                # unknown operator is a thick space on each side)
                after = parent[k + 1] if k + 1 < len(parent) else None
                opens = after is not None and after.tag == "mo" and after.text in _OPENING
                child.set("lspace", "0.1667em" if k else "0em")
                child.set("rspace", "0em" if opens else "0.1667em")
            if child.tag in ("msub", "msup", "msubsup") and len(child) \
                    and child[0].tag == "mo" and "minsize" in child[0].attrib:
                # a sized delimiter with a script (\Big)_+): Chrome sizes it only as the
                # base of the script in a row of its own
                base = Element("mrow")
                base.append(child[0])
                child.remove(child[0])
                child.insert(0, base)
            if display and child.tag in ("msub", "msubsup") and len(child) \
                    and child[0].tag == "mo" and (child[0].text or "") in _LIMITS:
                child.tag = "munder" if child.tag == "msub" else "munderover"
        if parent.tag in ("mi", "mo", "mtext") and parent.text:
            left = _COMMAND.findall(parent.text)
            if left or (parent.tag == "mi" and parent.text == "&"):
                raise MathConversionError(
                    f"not converted: {', '.join(left) or 'an alignment & outside split'}")
    del math.attrib["xmlns"]  # HTML5 places <math> in the MathML namespace
    for element in math.iter():  # latex2mathml writes characters as references ("&#x0003D;")
        element.text = html.unescape(element.text) if element.text else element.text
    out = tostring(math, encoding="unicode")
    return out.replace("<math ", f'<math alttext="{html.escape(source)}" ', 1)


def _render(self, node, tex, display):
    try:
        return tex_to_mathml(tex, display=display)
    except MathConversionError as exc:
        logger.warning("cannot write the formula %r as MathML (%s)", tex, exc,
                       location=node, type="krein", subtype="mathml")
        return f'<code class="math-source">{html.escape(tex)}</code>'


def html_visit_math(self, node):
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(_render(self, node, node.astext(), display=False))
    self.body.append("</span>")
    raise nodes.SkipNode


def html_visit_displaymath(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    # a math directive holds one equation per paragraph; a paragraph with line breaks
    # (``\\``) and no environment of its own is a split equation, as with MathJax
    parts = [p for p in node.astext().split("\n\n") if p.strip()]
    if len(parts) > 1:  # one under the other (the theme lays div.math out as a row)
        self.body.append('<div class="math-lines">')
    for part in parts:
        if "\\\\" in part and "\\begin" not in part:
            part = f"\\begin{{split}}{part}\\end{{split}}"
        self.body.append(_render(self, node, part, display=True))
    if len(parts) > 1:
        self.body.append("</div>")
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (html_visit_math, None),
                               (html_visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
