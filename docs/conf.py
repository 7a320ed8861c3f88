"""Sphinx configuration of the krein documentation site.

Build (from the repository root)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The gallery (``examples/plot_*.py``) is executed at build time by sphinx-gallery. With the
environment variable ``KREIN_DOCS_FAST=1`` every example runs its small setting (the test
``tests/test_docs.py`` builds that way); without it the examples run at their full size.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import krein  # noqa: E402

project = "krein"
author = "the krein developers"
copyright = "2026, the krein developers"
release = krein.__version__
version = krein.__version__

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
    "matplotlib.sphinxext.plot_directive",
    "sphinx_copybutton",
    "krein_docs",
    "krein_mathml",
]

# -- Equations -----------------------------------------------------------------------------
# LaTeX is written as MathML into the pages (docs/_ext/krein_mathml.py): the browser renders
# it without a script or a network connection; an unconvertible formula is a build warning.
html_math_renderer = "mathml"

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}

# -- API reference -----------------------------------------------------------------------
# docs/api.rst lists the public names by topic; docs/_templates/autosummary/ holds the page
# templates (a module page lists its own classes and functions and links the ones that
# krein re-exports at the top level, whose pages are krein.NAME).
autosummary_generate = True
autosummary_ignore_module_all = False  # a module page shows exactly the module's __all__
#: The public modules with a page of their own (docs/api.rst), in the order of that page.
API_MODULES = ["spectrum", "geometry", "diagnosis", "approximation", "solvers", "formulations",
               "registry", "kernel_data", "datasets", "kernels", "combinations", "compare",
               "experiment"]


def _aliases():
    """``{"krein.MODULE.NAME": "krein.OTHER"}`` for every public name whose object has its
    page under another name (``krein.NAME`` first, then the modules in API order), so that
    each object is described once and the other names link to it."""
    import importlib

    home, aliases = {}, {}
    for module in ["krein"] + [f"krein.{m}" for m in API_MODULES]:
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not (isinstance(obj, type) or callable(obj)):
                continue
            full = f"{module}.{name}"
            if id(obj) in home:
                aliases[full] = home[id(obj)]
            else:
                home[id(obj)] = full
    return aliases


autosummary_context = {"aliases": _aliases()}
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Leave out what every estimator inherits from scikit-learn (``set_fit_request``,
    ``get_metadata_routing``, ``get_params``, ``score``, ...) and the methods of built-in
    bases (``tuple.count``, ``Exception.with_traceback``): their own documentation covers
    them, and scikit-learn's docstrings point into scikit-learn's site."""
    if what not in ("class", "exception"):
        return skip  # module members: exactly the module's __all__
    owner = getattr(obj, "__objclass__", None)  # methods of built-in types (tuple.count)
    module = getattr(owner, "__module__", None) or getattr(obj, "__module__", None) or ""
    if not module and type(obj).__module__.split(".")[0] == "sklearn":
        module = "sklearn"  # descriptors such as set_fit_request
    if module.split(".")[0] in ("sklearn", "builtins") or name.startswith("__sklearn"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)


# -- Markdown (experiments/README.md, included by docs/reproductions/) ----------------------
myst_heading_anchors = 3

# -- Bibliography ------------------------------------------------------------------------
bibtex_bibfiles = sorted(str(p.relative_to(Path(__file__).parent))
                         for p in Path(__file__).parent.rglob("*.bib")
                         if "_build" not in p.parts)
bibtex_default_style = "alpha"
bibtex_reference_style = "author_year"

# -- Figures made by code (the user guide) ------------------------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]

# -- Gallery -------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # "Examples using NAME" on each API page (docs/_templates/autosummary/class.rst)
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("krein",),
    "reference_url": {"krein": None},
    # the computation-times pages load their table script from a CDN: not offline
    "write_computation_times": False,
}

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"krein {release}"
html_static_path = ["_static"]
html_css_files = ["krein.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # the API has hundreds of pages: a collapsed left navigation keeps each page small and
    # the build fast (every page renders the navigation tree)
    "collapse_navigation": True,
    "navigation_depth": 2,
    "header_links_before_dropdown": 7,
    # the reproduction pages carry wide tables and multi-panel figures, the gallery's
    # examples figures laid out for about 850 px: no right-hand column
    "secondary_sidebar_items": {"**": ["page-toc", "sourcelink"],
                                **{f"auto_examples/{p.parent.name}/{p.stem}": [] for p in
                                   (ROOT / "examples").glob("*/plot_*.py")},
                                **{f"reproductions/{p.stem}": [] for p in
                                   (Path(__file__).parent / "reproductions").glob("*.md")}},
}
html_show_sourcelink = False
# single pages have no section navigation: give their text the width instead
html_sidebars = {page: [] for page in ("index", "getting_started", "cli", "layout",
                                       "bibliography")}
