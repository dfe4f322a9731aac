"""Helpers shared by the tests that execute a chapter or need the live llama-server."""

from __future__ import annotations

from pathlib import Path

import bs4
import nbformat
import pytest

from popresume.book import run_notebook

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def run_chapter_text(name: str, params: dict, tmp_path, *, html: bool = False, timeout: int = 600) -> str:
    """Execute ``notebooks/<name>`` with ``params``; fail on an error or stderr output; return the
    text of its stream outputs (and, with ``html``, of its HTML outputs) joined."""
    out = run_notebook(NOTEBOOKS / name, params, output=tmp_path / f"{Path(name).stem}.ipynb", timeout=timeout)
    nb = nbformat.read(out, as_version=4)
    text = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.get("output_type") != "error", o
            if o.get("output_type") == "stream":
                assert o.get("name") != "stderr", o["text"][:300]
                text.append(o["text"])
            if html:
                markup = str(o.get("data", {}).get("text/html", ""))
                # the markup, then its text as a reader sees it (labelled() wraps a word with a
                # digit or hyphen in its own <span>, so a phrase spans several tags in the markup)
                text.append(markup + "\n" + bs4.BeautifulSoup(markup, "html.parser").get_text() if markup else "")
    return "".join(text)


def require_llama_server():
    """The server module, or skip the calling module (with the install command) when llama-server
    or the SmolLM2 weights are not installed."""
    server_mod = pytest.importorskip("popresume.screeners.server")
    try:
        server_mod.find_llama_server()
        server_mod.resolve_model("smollm2")
    except FileNotFoundError as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"live server test skipped: {e} (install: scripts/install-llm-server.sh)", allow_module_level=True)
    return server_mod
