"""Task protocols: schemas, prompts, items, the runner (failures, retries, cache) and bad input."""

import json

import pytest

from popresume.leakage.corpus import build_corpus, split_sections
from popresume.leakage.tasks import (
    CANNOT_DETERMINE, REGIMES, TASK1_SCHEMA, TASK3_SCHEMA, GenerativeJudge, as_judge, get_judge, run_task,
    schema_for, task1_messages, task2_schema, task_items, validate_reply,
)
from popresume.screeners import score_resumes
from popresume.screeners.cache import ScoreCache
from popresume.screeners.secrets import NO_SECRETS


@pytest.fixture(scope="module")
def corpus(corpus):  # the two bases of these tests, from the shared corpus (conftest.py)
    v, b = corpus
    return v[v["base_id"].isin(["acc-01", "swe-02"])].reset_index(drop=True), b


class ScriptedBackend:
    """A generative backend whose replies are scripted; records every call."""

    screener_id = "scripted"
    model = "script-v1"
    capabilities = frozenset({"text", "json"})
    secrets = NO_SECRETS

    def __init__(self, replies):
        self.replies = list(replies)
        self.calls = []

    def complete_json(self, messages, schema, images=None):
        self.calls.append((messages, schema))
        r = self.replies[(len(self.calls) - 1) % len(self.replies)]
        if isinstance(r, str):  # raw text that is not JSON
            return None, r
        return r, json.dumps(r)

    def cache_params(self):
        return {"temperature": 0}


def test_validate_reply_accepts_and_rejects():
    ok = {"perceived_group": "Chinese", "confidence": 80, "evidence": ["Lunar New Year"]}
    assert validate_reply(ok, TASK1_SCHEMA) == []
    assert validate_reply({**ok, "perceived_group": CANNOT_DETERMINE, "evidence": []}, TASK1_SCHEMA) == []
    bad = [
        {**ok, "perceived_group": "Korean"},
        {**ok, "confidence": 101},
        {**ok, "confidence": "high"},
        {**ok, "confidence": True},
        {**ok, "evidence": ["a", "b", "c"]},
        {**ok, "extra": 1},
        {"perceived_group": "Anglo", "confidence": 50},
        ["Anglo"],
    ]
    for b in bad:
        assert validate_reply(b, TASK1_SCHEMA), b
    assert validate_reply({"preferred": "Tie"}, task2_schema("Forbidden"))
    assert validate_reply({"preferred": "Tie"}, task2_schema("Neutral")) == []
    assert validate_reply({"shortlist": 1, "score": 73.5}, TASK3_SCHEMA) == []
    assert validate_reply({"shortlist": 2, "score": 73}, TASK3_SCHEMA)
    assert validate_reply({"shortlist": 1, "score": -1}, TASK3_SCHEMA)
    with pytest.raises(ValueError, match="regime"):
        schema_for(2)
    with pytest.raises(ValueError, match="unknown task"):
        schema_for(4)
    with pytest.raises(ValueError, match="unknown verdict regime"):
        task2_schema("Mandatory")


def test_task1_prompt_is_isolated(corpus):
    v, _ = corpus
    msgs = task1_messages(v["text"].iloc[0])
    joined = " ".join(m["content"] for m in msgs)
    assert "Mandatory criteria" not in joined and "Job description" not in joined
    assert v["text"].iloc[0] in joined


def test_task2_items_pair_with_baseline_in_both_orders(corpus):
    v, b = corpus
    items = task_items(2, v, b)
    assert len(items) == len(v) * 2 * len(REGIMES)
    one = items[items["variant_id"] == v["variant_id"].iloc[5]]
    assert set(zip(one["regime"], one["order"])) == {(r, o) for r in REGIMES for o in ("marked_first", "baseline_first")}
    mf = one[one["order"] == "marked_first"].iloc[0]
    bf = one[one["order"] == "baseline_first"].iloc[0]
    assert mf["text_a"] == bf["text_b"] == v["text"].iloc[5]
    assert mf["text_b"] == bf["text_a"] and split_sections(mf["text_b"])[1] is None
    with pytest.raises(ValueError, match="omission baselines"):
        task_items(2, v)


def test_forbidden_regime_schema_reaches_backend_without_tie(corpus):
    v, b = corpus
    be = ScriptedBackend([{"preferred": "A"}])
    items = task_items(2, v.head(1), b)
    r = run_task(2, items, be)
    schemas = {json.dumps(s["properties"]["preferred"]["enum"]) for _, s in be.calls}
    assert schemas == {json.dumps(["A", "B"]), json.dumps(["A", "B", "Tie"])}
    assert r["parse_ok"].all() and (r["preferred"] == "A").all()
    forb = [m for m, s in be.calls if "Tie" not in s["properties"]["preferred"]["enum"]]
    assert all("tie is not allowed" in m[0]["content"].lower() for m in forb)


def test_reply_outside_schema_is_a_recorded_failure_not_a_default(corpus):
    v, _ = corpus
    be = ScriptedBackend([{"shortlist": 1, "score": 150}, "I think 70", {"shortlist": 0, "score": 40}])
    r = run_task(3, task_items(3, v.head(3)), be)
    assert r["parse_ok"].tolist() == [False, False, True]
    assert r["score"].isna().tolist() == [True, True, False]
    assert r["shortlist"].isna().tolist() == [True, True, False]
    assert "maximum" in r["error"].iloc[0] and "not valid JSON" in r["error"].iloc[1]
    # generative judges are asked for an integer score (finite, so decoding can be constrained)
    assert all(sch["properties"]["score"]["type"] == "integer" for _, sch in be.calls)
    assert r["raw"].iloc[1] == "I think 70"


def test_runner_asks_once_retries_are_the_backends(corpus):
    v, _ = corpus
    be = ScriptedBackend(["garbage", {"perceived_group": "Anglo", "confidence": 70, "evidence": []}])
    r = run_task(1, task_items(1, v.head(1)), be)
    assert not r["parse_ok"].any() and len(be.calls) == 1 and r["raw"].iloc[0] == "garbage"


def test_repetitions_and_cache(corpus, tmp_path):
    v, _ = corpus
    items = task_items(1, v.head(4))
    be = ScriptedBackend([{"perceived_group": "Indian", "confidence": 55, "evidence": ["x"]}, "bad"])
    cache = ScoreCache(tmp_path / "r.sqlite")
    r = run_task(1, items, be, repetitions=3, cache=cache)
    assert len(r) == 12 and sorted(r["rep"].unique()) == [0, 1, 2] and len(be.calls) == 12
    assert r["parse_ok"].sum() == 6 and len(cache) == 6  # only valid replies are cached
    be2 = ScriptedBackend([{"perceived_group": "Indian", "confidence": 55, "evidence": ["x"]}])
    r2 = run_task(1, items, be2, repetitions=3, cache=tmp_path / "r.sqlite")
    assert len(be2.calls) == 6  # the six failures are asked again, the six valid ones come from the cache
    assert r2["parse_ok"].all()
    # one cache for scores and replies: the same file also serves a screener's scores
    import pandas as pd

    res = pd.DataFrame({"resume_id": ["x"], "occupation": ["nurse"]})
    score_resumes("synthetic", res, profiles=pd.DataFrame({
        "resume_id": ["x"], "gender": ["F"], "race_binary": ["White"], "age": [30], "edu_group": ["high"],
        "exp_year": [3], "fn_gender": ["female"], "surname_group": ["White"], "region": ["West"]}),
        cache=tmp_path / "r.sqlite", job_descriptions={"nurse": "Nurse."})
    rows = ScoreCache(tmp_path / "r.sqlite").rows()
    assert set(rows["screener_id"]) == {"scripted", "synthetic"} and len(rows) == 13


def test_backends_that_cannot_run_a_task(corpus):
    v, _ = corpus

    class Synthetic:
        screener_id = "synthetic"
        model = "s"
        capabilities = frozenset({"text"})

    with pytest.raises(ValueError, match="can run none of the leakage tasks.*declares \\['text'\\]"):
        run_task(1, task_items(1, v.head(1)), Synthetic())
    with pytest.raises(ValueError, match="does not declare the 'json' capability"):
        GenerativeJudge(Synthetic())
    with pytest.raises(ValueError, match="unknown screener kind 'nosuch'"):
        get_judge("nosuch")
    judge = GenerativeJudge(ScriptedBackend([{"preferred": "A"}]), tasks=(2,))
    with pytest.raises(ValueError, match="cannot run Task 1"):
        run_task(1, task_items(1, v.head(1)), judge)
    with pytest.raises(ValueError, match="unknown task"):
        run_task(5, task_items(1, v.head(1)), judge)
    with pytest.raises(ValueError, match=r"Task 2 items \(built by task_items\(2, ...\)\) has no column .text_a."):
        run_task(2, task_items(1, v.head(1)), judge)
    with pytest.raises(ValueError, match="repetitions"):
        run_task(2, task_items(2, v.head(1), build_corpus()[1]), judge, repetitions=0)
    assert as_judge(judge) is judge
