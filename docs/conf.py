"""Sphinx configuration for the strict_array documentation site.

Build (from the repository root)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sphinx.util import logging

import strict_array

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))  # this site's own extension: generated_tables

project = "strict_array"
author = "The strict_array developers"
copyright = "2026, The strict_array developers"
release = strict_array.__version__
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "generated_tables",  # tables generated from the code and the benchmarks' results
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
# _generated holds the tables pages include (docs/_ext/generated_tables.py)
exclude_patterns = ["_build", "_intersphinx", "_generated", "_ext", "Thumbs.db", ".DS_Store"]

# --- MyST: the guides are Markdown ---------------------------------------------------
myst_heading_anchors = 3  # links such as broadcasting.md#default-device

# --- API reference --------------------------------------------------------------------
autosummary_generate = True  # stub pages under docs/reference/generated/
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"  # the numpydoc sections already give the types

numpydoc_show_class_members = False  # the class pages list their members themselves
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- intersphinx: links to NumPy, Dask and Python --------------------------------------
# The build has to pass with -W on machines without internet access (CI here has none).
# Sphinx reports an inventory it cannot load as a warning, and that warning has no
# type that ``suppress_warnings`` could select, so a project is put into
# ``intersphinx_mapping`` only when its inventory can actually be read:
#
# * ``docs/_intersphinx/<name>.inv`` when that file exists (it is not committed: the
#   inventories are other projects' build products and go stale; save one there by
#   hand, e.g. ``curl -o docs/_intersphinx/numpy.inv https://numpy.org/doc/stable/objects.inv``);
# * otherwise the project's online ``objects.inv``, but only when
#   ``STRICT_ARRAY_DOCS_ONLINE=1`` is set (an online build).
#
# A project left out is not linked: a reference such as :class:`numpy.dtype` then renders
# as code without a link. That is not a warning because ``nitpicky`` is off, so
# offline builds stay warning-free while online (or cached) builds get the links.
INTERSPHINX = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "dask": "https://docs.dask.org/en/stable/",
}
ONLINE = os.environ.get("STRICT_ARRAY_DOCS_ONLINE", "") == "1"
intersphinx_mapping = {}
for _name, _url in INTERSPHINX.items():
    _local = DOCS / "_intersphinx" / f"{_name}.inv"
    if _local.is_file():
        intersphinx_mapping[_name] = (_url, str(_local))
    elif ONLINE:
        intersphinx_mapping[_name] = (_url, None)
intersphinx_timeout = 10
nitpicky = False
if len(intersphinx_mapping) < len(INTERSPHINX):
    logging.getLogger(__name__).info(
        "intersphinx: no inventory for %s (see docs/conf.py): references to them are not linked",
        ", ".join(sorted(set(INTERSPHINX) - set(intersphinx_mapping))),
    )

# --- HTML -----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"strict_array {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["tables.css"]  # the generated tables of figures (div.figures)
# pages with no section around them: no empty "Section Navigation" column
html_sidebars = {"index": [], "tutorial": [], "changelog": []}
