"""The screeners chapter runs end to end with small parameters and shows no warnings."""

import json

import pytest

from popresume.paths import NOTEBOOKS_DIR


@pytest.mark.notebook
def test_notebook_05_runs(tmp_path, monkeypatch):
    from popresume.book import run_notebook

    monkeypatch.setenv("POPRESUME_CACHE", str(tmp_path / "cache"))
    out = run_notebook(NOTEBOOKS_DIR / "05_screeners.py", {"n_per_occupation": 3, "n_llm": 0},
                       output=tmp_path / "05.ipynb", cwd=tmp_path)
    nb = json.loads(out.read_text())
    texts = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                texts.append((o["name"], "".join(o["text"])))
    stderr = [t for name, t in texts if name == "stderr"]
    assert not stderr, stderr
    joined = "\n".join(t for _, t in texts)
    assert "Warning" not in joined
    assert "'parse_rate': 1.0" in joined and "chunks per résumé" in joined
