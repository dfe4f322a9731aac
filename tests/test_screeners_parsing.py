"""Parsing replies, the prompt, the protocol's missing-is-NaN rule, and spec strings."""

import math

import pandas as pd
import pytest

from popresume.screeners import SCORE_SCHEMA, get_screener, parse_rate, parse_score, score_resumes
from popresume.screeners.base import ScoreResult
from popresume.screeners.hf import schema_candidates
from popresume.screeners.prompt import PAPER_PROMPT, build_messages, prompt_hash, render_prompt


@pytest.mark.parametrize("raw, score, method", [
    ('{"score": 85}', 85.0, "strict"),
    ('{"score": 72.5}', 72.5, "strict"),
    ('{"score": "64"}', 64.0, "strict"),
    ('```json\n{\n  "score": 40.0\n}\n```', 40.0, "embedded_json"),
    ('Sure! {"score": 91} is my answer', 91.0, "embedded_json"),
    ('"score": 55', 55.0, "key_value"),
    ('{"score": 77,}', 77.0, "key_value"),
    ("Score = 12.5", 12.5, "key_value"),
    ("  88 ", 88.0, "bare_number"),
    ("0", 0.0, "bare_number"),
])
def test_parse_accepts(raw, score, method):
    p = parse_score(raw)
    assert p.ok and p.score == score and p.method == method


@pytest.mark.parametrize("raw", [
    "", "I cannot grade this resume.", '{"score": 150}', '{"score": -3}', '"score": 101',
    '{"grade": 50}', '{"score": null}', '{"score": true}', "85 out of 100", None, "NaN",
])
def test_parse_rejects_without_inventing_a_number(raw):
    p = parse_score(raw)
    assert not p.ok and p.score is None and p.error


def test_failure_is_nan_never_zero():
    r = ScoreResult.failure("garbage", "unparseable")
    assert math.isnan(r.score) and not r.parse_ok and r.raw == "garbage"
    r2 = ScoreResult(0.0, False, "x")  # even a 0 passed in becomes NaN when parse failed
    assert math.isnan(r2.score)
    assert parse_rate([True, False, True, True]) == 0.75


def test_prompt_is_appendix_d_and_hash_changes():
    text = render_prompt("Nurse wanted.", "I am a nurse.")
    assert text.startswith("You are a strict resume screening grader")
    assert "JOB DESCRIPTION: Nurse wanted." in text and text.endswith("RESUME: I am a nurse.")
    assert '{"score": X.X}' in text and "Do NOT provide explanations" in text
    assert prompt_hash() == prompt_hash(PAPER_PROMPT) != prompt_hash(PAPER_PROMPT + " ")
    img = build_messages("Nurse wanted.", None)
    assert isinstance(img[0]["content"], list) and "attached image" in img[0]["content"][0]["text"]
    with pytest.raises(ValueError, match="job description"):
        render_prompt("  ", "x")


def test_schema_candidates_cover_exactly_0_to_100():
    c = schema_candidates(SCORE_SCHEMA)
    assert len(c) == 101 and c[0] == '{"score": 0}' and c[-1] == '{"score": 100}'
    assert all(parse_score(x).ok for x in c)
    assert schema_candidates({"type": "object", "properties": {"t": {"type": "string"}}}) is None


def test_get_screener_specs_and_errors():
    assert get_screener("synthetic").screener_id == "synthetic"
    s = get_screener({"kind": "synthetic", "noise_sd": 0.0, "seed": 3})
    assert s.noise_sd == 0 and s.seed == 3
    o = get_screener("openai:my-model@http://127.0.0.1:9/v1")
    assert o.model == "my-model" and o.base_url == "http://127.0.0.1:9/v1"
    with pytest.raises(ValueError, match="unknown screener kind"):
        get_screener("magic")
    with pytest.raises(ValueError, match="MODEL@BASE_URL"):
        get_screener("openai:gpt")
    with pytest.raises(FileNotFoundError):
        get_screener("embedding:/no/such/model")


def test_score_resumes_input_errors():
    s = get_screener("synthetic")
    jd = {"nurse": "Nurse wanted."}
    with pytest.raises(ValueError, match="needs profiles"):
        score_resumes(s, pd.DataFrame({"resume_id": ["a"], "occupation": ["nurse"], "text": ["x"]}),
                      cache=False, job_descriptions=jd)
    with pytest.raises(ValueError, match="occupation"):
        score_resumes(s, pd.DataFrame({"resume_id": ["a"], "text": ["x"]}), cache=False, job_descriptions=jd)
    with pytest.raises(ValueError, match="no job description for occupation 'teacher'"):
        score_resumes(get_screener("openai:m@http://127.0.0.1:9/v1"),
                      pd.DataFrame({"resume_id": ["a"], "occupation": ["teacher"], "text": ["x"]}),
                      cache=False, job_descriptions=jd)
    with pytest.raises(ValueError, match="empty text"):
        score_resumes(get_screener("openai:m@http://127.0.0.1:9/v1"),
                      pd.DataFrame({"resume_id": ["a", "b"], "occupation": ["nurse"] * 2, "text": ["ok", "  "]}),
                      cache=False, job_descriptions=jd)
    with pytest.raises(ValueError, match="duplicate resume_id"):
        score_resumes(get_screener("openai:m@http://127.0.0.1:9/v1"),
                      pd.DataFrame({"resume_id": ["a", "a"], "occupation": ["nurse"] * 2, "text": ["ok", "ok"]}),
                      cache=False, job_descriptions=jd)
