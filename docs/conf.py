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

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
    "matplotlib.sphinxext.plot_directive",
    "sphinx_copybutton",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"

# -- API reference -----------------------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

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
}

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"krein {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
