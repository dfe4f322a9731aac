"""The screeners chapter runs end to end with small parameters and shows no warnings."""

import json

import bs4

import pytest

from popresume.paths import NOTEBOOKS_DIR


@pytest.mark.notebook
def test_notebook_05_runs(tmp_path, monkeypatch):
    from popresume.book import run_notebook

    monkeypatch.setenv("POPRESUME_CACHE", str(tmp_path / "cache"))
    out = run_notebook(NOTEBOOKS_DIR / "05_screeners.py", {"n_per_occupation": 3, "n_llm": 0, "n_validity": 10},
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
    assert "parse rate 100.0%" in joined and "chunks per résumé" in joined
    assert "'seconds':" not in joined and "{'n':" not in joined  # no raw summary dicts on the page
    html = "\n".join("".join(o.get("data", {}).get("text/html", "")) for c in nb["cells"] for o in c.get("outputs", []))
    # as a reader sees it: labelled() wraps a word with a digit or hyphen in its own <span>
    html = bs4.BeautifulSoup(html, "html.parser").get_text()
    assert "Source: ours: validity cards" in html and "embedding (all-MiniLM-L6-v2)" in html
    assert "Source: ours: score summary" in html
