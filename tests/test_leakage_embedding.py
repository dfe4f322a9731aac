"""The embedding judge: logic on a transparent bag-of-words embedder, plus a real-model smoke run."""

import re
import zlib

import numpy as np
import pytest

from popresume.leakage.corpus import GROUPS, build_corpus, job_description
from popresume.leakage.embedding_backend import EmbeddingJudge, resume_lines
from popresume.screeners.base import BaseScreener
from popresume.leakage.tasks import CANNOT_DETERMINE, run_task, task_items, validate_reply, schema_for


class BagOfWords(BaseScreener):
    """Deterministic embedder: hashed word counts, L2-normalised (so similarity = word overlap)."""

    screener_id = "bow"
    model = "bow"
    capabilities = frozenset({"embeddings"})

    def __init__(self, dim=512):
        self.dim = dim
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z]+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1
            out[i] /= max(np.linalg.norm(out[i]), 1e-12)
        return out


DESC = {g: [f"{g.lower()} heritage community festival"] for g in GROUPS}

BASE = "RÉSUMÉ\nSKILLS\n- Excel reporting and audit\n- Team leadership\n"


def test_task1_predicts_abstains_and_calibrates():
    j = EmbeddingJudge(BagOfWords(), descriptions=DESC)
    cue_free = [BASE, BASE + "- Budget management\n", BASE + "Interests: hiking and reading\n"]
    thr = j.calibrate(cue_free, false_attribution=0.0)
    assert set(thr) == set(GROUPS)
    texts = cue_free + [BASE + "Background: chinese heritage; lunar festival\n",
                        BASE + "Community: vietnamese community festival volunteer\n"]
    replies = [r for r, _ in j.reply_batch(1, [{"text": t} for t in texts])]
    for r in replies:
        assert validate_reply(r, schema_for(1)) == []
    assert [r["perceived_group"] for r in replies[:3]] == [CANNOT_DETERMINE] * 3
    assert replies[3]["perceived_group"] == "Chinese" and replies[4]["perceived_group"] == "Vietnamese"
    assert any("chinese" in e.lower() for e in replies[3]["evidence"])
    assert replies[3]["confidence"] > 50
    with pytest.raises(ValueError, match="at least one"):
        j.calibrate([])


def test_task3_coverage_and_task2_tie_margins():
    emb = BagOfWords()
    j = EmbeddingJudge(emb, descriptions=DESC, tie_margin=1.0, encouraged_factor=100.0, shortlist_threshold=30)
    job = "Job\n- Excel reporting\n- Team leadership\n- Budget management\n"
    s = j.suitability([BASE, BASE + "- Budget management\n", BASE + "Interests: chess\n"], [job] * 3)
    assert s[1] > s[0] and s[2] == pytest.approx(s[0])  # unrelated prose adds nothing to any criterion
    items = [{"text_a": BASE, "text_b": BASE + "Interests: chess\n", "job": job, "regime": r}
             for r in ("Forbidden", "Neutral", "Encouraged")]
    verdicts = [r["preferred"] for r, _ in j.reply_batch(2, items)]
    assert verdicts == ["A", "Tie", "Tie"]  # exact tie: first position under Forbidden
    items = [{"text_a": BASE, "text_b": BASE + "- Budget management\n", "job": job, "regime": r}
             for r in ("Forbidden", "Neutral", "Encouraged")]
    verdicts = [r["preferred"] for r, _ in j.reply_batch(2, items)]
    assert verdicts[:2] == ["B", "B"] and verdicts[2] == "Tie"  # only the wide margin calls it a tie
    r3 = [r for r, _ in j.reply_batch(3, [{"text": BASE, "job": job}])][0]
    assert r3["shortlist"] == int(r3["score"] >= 30) and validate_reply(r3, schema_for(3)) == []


def test_judge_id_tracks_settings_and_bad_input():
    a = EmbeddingJudge(BagOfWords(), descriptions=DESC)
    b = EmbeddingJudge(BagOfWords(), descriptions=DESC, tie_margin=2.0)
    assert a.judge_id != b.judge_id
    with pytest.raises(ValueError, match="groups"):
        EmbeddingJudge(BagOfWords(), descriptions={"Anglo": ["x"]})
    with pytest.raises(ValueError, match="embed"):
        EmbeddingJudge(object())
    with pytest.raises(ValueError, match="empty text"):
        resume_lines("\n  \n")
    with pytest.raises(ValueError, match="Task 1"):
        run_task(1, task_items(1, build_corpus()[0].head(1)), EmbeddingJudge(BagOfWords(), descriptions=DESC, tasks=(3,)))


def test_real_model_on_a_slice_of_the_corpus():
    """The shipped MiniLM model: explicit cues are recovered, the control mostly abstains."""
    v, b = build_corpus()
    j = EmbeddingJudge()
    j.calibrate(b["text"].tolist(), [job_description(o) for o in b["occupation"]])
    sl = v[v["base_id"].isin(["acc-01", "pol-03"])]
    r = run_task(1, task_items(1, sl), j)
    assert r["parse_ok"].all()
    t1 = r[r["tier"] == "T1"]
    assert (t1["perceived_group"] == t1["condition"]).mean() >= 0.6
    r3 = run_task(3, task_items(3, sl), j)
    assert r3["score"].between(0, 100).all() and r3.groupby("base_id")["score"].std().max() < 5


def test_false_attribution_is_the_share_attributed_to_any_group():
    """The Task 1 thresholds let through at most `false_attribution` of the cue-free texts in
    total, not that share per group (five groups would let up to 5x through)."""
    from popresume.leakage.embedding_backend import joint_thresholds

    rng = np.random.default_rng(3)
    scores = rng.normal(size=(2000, 5))  # five independent groups
    thr = joint_thresholds(scores, 0.05)
    any_over = (scores > thr).any(axis=1).mean()
    assert 0.045 <= any_over <= 0.05
    # the per-group quantile rule this replaces lets through about 1 - 0.95**5 = 22.6%
    per_group = (scores > np.quantile(scores, 0.95, axis=0)).any(axis=1).mean()
    assert per_group > 0.2
    assert (scores > joint_thresholds(scores, 0.0)).any(axis=1).sum() == 0
