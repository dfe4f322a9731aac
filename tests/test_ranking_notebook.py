"""Chapter 08b (Bloomberg's GPT rankings) executes end to end with small parameters."""

import pytest

from _notebooks import run_chapter_text  # tests/_notebooks.py

pytestmark = pytest.mark.notebook

SMALL = {"n_sim": 300}


def test_ranking_chapter_runs_clean(tmp_path):
    joined = run_chapter_text("08b_llm_ranking.py", SMALL, tmp_path, html=True)
    assert "64 of 64 published cells" in joined
    assert "published (Bloomberg 2024)" in joined and "ours, from Bloomberg's recorded replies" in joined
    assert "ours, screener" in joined  # our screeners sit in the same tables
