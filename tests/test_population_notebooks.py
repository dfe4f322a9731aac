"""The three population chapters execute end to end with small parameters, without warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popresume.paths import NOTEBOOKS_DIR

CASES = [
    ("01_population.py", {"size": 300, "seed": 1, "effects_size": 300}),
    ("02_experience.py", {"occupation": "construction_laborer", "n_draws": 2000, "size": 300, "n_careers": 150,
                          "n_audit": 600, "n_boot": 50, "variance": "influence"}),  # a smoke run: no refits
    ("03_names_grouping.py", {"size": 300}),
]


@pytest.mark.notebook
@pytest.mark.parametrize("name, params", CASES, ids=[c[0] for c in CASES])
def test_chapter_runs(tmp_path, name, params):
    from popresume.book import run_notebook

    out = run_notebook(NOTEBOOKS_DIR / name, params, output=tmp_path / name.replace(".py", ".ipynb"), cwd=tmp_path)
    nb = json.loads(Path(out).read_text())
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            assert o["output_type"] != "error"
            if o["output_type"] == "stream":
                assert o.get("name") != "stderr", "".join(o["text"])
    if name == "02_experience.py":  # breaks by gender on both sources, and the audit's BIE on both
        text = "".join(str(o.get("data", {}).get("text/plain", "")) + "".join(o.get("text", ""))
                       for c in nb["cells"] for o in c.get("outputs", []))
        assert "P2 source 'measured' (default)" in text
        assert "adjusted_gap_break_months" in text and "psid (earlier default)" in text
        assert "true BIE:" in text and "estimated BIE:" in text
