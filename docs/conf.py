"""Sphinx configuration: MyST Markdown pages, numpydoc API reference, warnings as errors."""

from __future__ import annotations

import stridewave

project = "StrideWeave"
author = "The StrideWeave developers"
copyright = "2026, The StrideWeave developers"
version = release = stridewave.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinxcontrib.mermaid",
    "matplotlib.sphinxext.plot_directive",
    "numpydoc",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence"]
myst_fence_as_directive = ["mermaid"]
myst_heading_anchors = 3

autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False


plot_formats = [("png", 110)]
plot_html_show_formats = False
plot_html_show_source_link = False

html_theme = "pydata_sphinx_theme"
html_title = "StrideWeave"
