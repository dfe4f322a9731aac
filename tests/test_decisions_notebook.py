"""Chapters 08c (today's models, recorded) and 08d (the LL144 audits, re-audited) execute end
to end with small parameters."""

import pytest

from _notebooks import run_chapter_text  # tests/_notebooks.py

pytestmark = pytest.mark.notebook


def test_recorded_models_chapter_runs_clean(tmp_path):
    joined = run_chapter_text("08c_recorded_models.py", {"recinq_models": ["mistral-small", "claude-haiku"],
                                                         "jackknife": False}, tmp_path, html=True)
    assert "ours: from Derbyshire&#x27;s recorded replies" in joined or "ours: from Derbyshire's recorded replies" in joined
    assert "not carded (recorded decisions)" in joined
    assert "models that pass the gate as far as their design allows" in joined


def test_ll144_published_chapter_runs_clean(tmp_path):
    joined = run_chapter_text("08d_ll144_published.py", {"n_sim": 100}, tmp_path, html=True)
    assert "published: ACLU, Auditing the Audits 2025" in joined
    assert "recorded audits" in joined
    assert "non-commercial" in joined
    # the counts come from data/decisions/ll144_published.csv, computed on the page
    assert "which leaves 222 flags" in joined and "differ from rate / highest rate" in joined
    assert "not named" in joined and "not carded (recorded decisions)" in joined
