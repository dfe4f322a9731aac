"""Serve MathJax from the built book instead of a CDN, so formulas render offline.

Sphinx's math renderer loads MathJax 3 from a CDN by default: a book opened from disk, or
read in a lab without internet, then shows every formula as raw TeX. This extension takes
MathJax 3's browser build from the ``django-static-mathjax`` wheel (PyPI; it ships the
upstream ``es5/`` components unchanged, Apache-2.0), copies the parts the book needs
into ``_static/mathjax/`` of the output and points ``mathjax_path`` at it. The SVG output
is used because its fonts are drawn as paths inside the script: no web-font files to
fetch. The online build serves the same files from the same site, so it keeps working.
"""

from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path

from sphinx.util import logging

LOG = logging.getLogger(__name__)
ENTRY = "tex-svg.js"
# what tex-svg.js loads on demand: TeX extensions (autoload), the menu, accessibility, speech
PARTS = (ENTRY, "input", "output/svg", "output/svg.js", "ui", "a11y", "sre", "adaptors")


def mathjax_es5() -> Path | None:
    """MathJax 3's ``es5`` folder inside the installed wheel, or None."""
    spec = find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        es5 = Path(root) / "static" / "mathjax" / "es5"
        if (es5 / ENTRY).is_file():
            return es5
    return None


def _configure(app, config):
    es5 = mathjax_es5()
    if es5 is None:
        LOG.info("local_mathjax: django-static-mathjax not installed; MathJax loads from its CDN")
        return
    config.mathjax_path = f"mathjax/{ENTRY}"


def _copy(app, exception):
    es5 = mathjax_es5()
    if exception is not None or es5 is None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    for part in PARTS:
        src, dst = es5 / part, target / part
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        elif src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
