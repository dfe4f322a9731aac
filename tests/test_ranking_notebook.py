"""Chapter 08b (Bloomberg's GPT rankings) executes end to end with small parameters."""

import pytest

from _notebooks import run_chapter_text  # tests/_notebooks.py

pytestmark = pytest.mark.notebook

SMALL = {"n_sim": 300}


def test_ranking_chapter_runs_clean(tmp_path):
    joined = run_chapter_text("08b_llm_ranking.py", SMALL, tmp_path, html=True)
    assert "64 of 64 published cells" in joined
    assert "published: Bloomberg 2024" in joined and "ours, from Bloomberg's recorded replies" in joined
    assert "ours, screener" in joined  # our screeners sit in the same tables
    assert "not carded (recorded decisions)" in joined  # GPT rows carry their verdict in the table
    assert "simulated fair rankers of the same design" in joined and "null_p_text" in joined
    assert "SEs clustered by run and name" in joined
    from popresume.screeners.validity import shipped_card, verdict_sentence

    assert verdict_sentence(shipped_card("embedding")) in joined  # the one verdict, read from the shipped card
