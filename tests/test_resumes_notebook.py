"""The résumé chapter executes end to end with small parameters and prints no warnings."""

from pathlib import Path

import nbformat
import pytest

from popresume.book import run_notebook

pytestmark = pytest.mark.notebook

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "04_resumes.py"


def test_resumes_chapter_runs_clean_with_small_parameters(tmp_path):
    out = run_notebook(NOTEBOOK, {"corpus_fraction": 0.01, "n_jobs": 1}, output=tmp_path / "04.ipynb", timeout=600)
    nb = nbformat.read(out, as_version=4)
    images = 0
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.get("output_type") != "error", o
            if o.get("output_type") == "stream" and o.get("name") == "stderr":
                pytest.fail(f"stderr output {o['text'][:300]!r}")
            images += "image/png" in o.get("data", {})
    # Figure 8 (examples in three formats) and the corpus statistics are drawn
    assert images >= 2
