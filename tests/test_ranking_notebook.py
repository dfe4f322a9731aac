"""Chapter 08b (Bloomberg's GPT rankings) executes end to end with small parameters."""

import nbformat
import pytest

from popresume.book import run_notebook

pytestmark = pytest.mark.notebook

SMALL = {"n_boot": 50, "n_sim": 300}


def test_ranking_chapter_runs_clean(tmp_path):
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "notebooks" / "08b_llm_ranking.py"
    out = run_notebook(path, SMALL, output=tmp_path / "08b.ipynb", timeout=600)
    nb = nbformat.read(out, as_version=4)
    text = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.get("output_type") != "error", o
            if o.get("output_type") == "stream":
                assert o.get("name") != "stderr", o["text"][:300]
                text.append(o["text"])
            text.append(str(o.get("data", {}).get("text/html", "")))
    joined = "".join(text)
    assert "64 of 64 published cells" in joined
    assert "published (Bloomberg 2024)" in joined and "ours, from Bloomberg's recorded replies" in joined
    assert "ours, screener" in joined  # our screeners sit in the same tables
