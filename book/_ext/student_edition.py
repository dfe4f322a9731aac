"""The student edition ships no solution, in any file.

sphinx-exercise's ``hide_solutions: true`` drops every ``solution`` directive from the
pages, but Sphinx still copies each page's source into ``_sources/`` (the target of the
theme's download button), and myst-nb may add the page's notebook there too: both hold
every solution block. With ``hide_solutions`` on, this extension removes those blocks
from every copied source once the HTML is written (the download button then serves the
exercises without their solutions), and fails the build if a copied source still opens
a ``{solution`` directive.

The default edition (``hide_solutions: false``) is not touched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

LOG = logging.getLogger(__name__)

# a directive fence that opens a solution: ```{solution} / :::{solution} / ::::{solution-start}
_OPEN = re.compile(r"^\s*(?P<fence>`{3,}|:{3,})\{(?P<name>solution(?:-start|-end)?)\}")
# a fenced code block (not a directive): an example of a solution inside it is text
_CODE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})(?![`~])(?!\s*\{)")
# a jupytext percent / light markdown line: "# text" or a bare "#"
_COMMENT = re.compile(r"^(?P<prefix>\s*#\s?)(?P<body>.*)$")
SOURCE_SUFFIXES = (".md", ".py", ".txt", ".rst", ".ipynb")


def _body(line: str, commented: bool) -> str:
    if not commented:
        return line
    match = _COMMENT.match(line)
    return match.group("body") if match else line


def _skip_fence(lines: list[str], i: int, fence: str, commented: bool) -> int:
    """Index of the line after the fence opened at ``lines[i]`` closes (or the end)."""
    close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    i += 1
    while i < len(lines) and not close.match(_body(lines[i], commented).rstrip("\r\n")):
        i += 1
    return i + 1


def strip_solutions(text: str, commented: bool = False) -> str:
    """``text`` without its solution directives (``{solution}``, ``{solution-start}`` …
    ``{solution-end}``), fences and content included.

    ``commented``: the markdown lines carry a ``# `` prefix (jupytext percent ``.py``).
    A fence closes at the first line of the same character, at least as long, and nothing
    else, as MyST reads it, so code blocks and shorter directives nested inside go with it.
    A fenced code block outside a solution is kept whole, even if it shows one as an example.
    """
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    i, n = 0, len(lines)
    gated = False  # inside {solution-start} … {solution-end}
    while i < n:
        body = _body(lines[i], commented)
        code = _CODE.match(body)
        if code is not None:  # a code block is copied as it is
            end = _skip_fence(lines, i, code.group("fence"), commented)
            if not gated:
                out.extend(lines[i:end])
            i = end
            continue
        match = _OPEN.match(body)
        if match is None:
            if not gated:
                out.append(lines[i])
            i += 1
            continue
        fence, name = match.group("fence"), match.group("name")
        i = _skip_fence(lines, i, fence, commented)
        if name == "solution-start":
            gated = True
        elif name == "solution-end":
            gated = False
    return "".join(out)


def strip_file(path: Path) -> bool:
    """Strip the solutions of one copied source in place; True if it changed."""
    text = path.read_text(encoding="utf-8")
    if "{solution" not in text:
        return False
    suffixes = [s for s in path.suffixes if s in SOURCE_SUFFIXES]
    kind = suffixes[0] if suffixes else path.suffix
    if kind == ".ipynb":
        nb = json.loads(text)
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                source = cell.get("source", "")
                joined = "".join(source) if isinstance(source, list) else source
                cell["source"] = strip_solutions(joined)
        new = json.dumps(nb, ensure_ascii=False, indent=1) + "\n"
    else:
        new = strip_solutions(text, commented=kind == ".py")
    path.write_text(new, encoding="utf-8")
    return True


def leaks(sources: Path) -> list[str]:
    """Files under ``sources`` (a ``_sources`` folder) that still hold a solution directive."""
    found = []
    for path in sorted(sources.rglob("*")) if sources.is_dir() else []:
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".ipynb":
                cells = json.loads(text).get("cells", [])
                texts = ["".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown"]
                left = any(strip_solutions(t) != t for t in texts)
            else:
                left = strip_solutions(text, commented=path.suffix == ".py") != text
            if left:
                found.append(str(path.relative_to(sources)))
    return found


def _on_build_finished(app, exception):
    if exception is not None or not app.config.hide_solutions or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    sources = outdir / "_sources"
    changed = [p for p in sorted(sources.rglob("*")) if p.is_file() and strip_file(p)] if sources.is_dir() else []
    LOG.info("student edition: solutions removed from %d copied sources", len(changed))
    left = leaks(sources)
    if left:
        raise ExtensionError(f"student edition: solution blocks remain in {', '.join(left[:10])}")


def setup(app):
    app.setup_extension("sphinx_exercise")  # defines hide_solutions
    app.connect("build-finished", _on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
