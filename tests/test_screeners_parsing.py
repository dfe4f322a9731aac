"""Parsing replies, the prompt, the protocol's missing-is-NaN rule, and spec strings."""

import math

import pandas as pd
import pytest

from popresume.screeners import get_screener, score_resumes
from popresume.screeners.parsing import parse_rate, parse_score
from popresume.screeners.prompt import SCORE_SCHEMA
from popresume.screeners.base import ScoreResult
from popresume.screeners.hf import schema_candidates
from popresume.screeners.parsing import expected_score_from_logprobs
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


def test_schema_candidates_cover_the_papers_one_decimal_scores():
    c = schema_candidates(SCORE_SCHEMA)  # {"score": X.X}: 0.0, 0.1, …, 100.0
    assert len(c) == 1001 and c[0] == '{"score": 0.0}' and c[-1] == '{"score": 100.0}'
    assert '{"score": 72.5}' in c and '{"score": 72.55}' not in c
    assert [parse_score(x).score for x in c[:3]] == [0.0, 0.1, 0.2] and all(parse_score(x).ok for x in c)
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


def _lp(tokens):
    """OpenAI-style logprobs content from [(token, p, [(alt, p), ...]), ...]."""
    return [{"token": t, "logprob": math.log(p), "top_logprobs": [{"token": a, "logprob": math.log(q)} for a, q in alts]}
            for t, p, alts in tokens]


def test_expected_score_from_logprobs():
    # {"score": 72.5} tokenised {"|score|":| 7|2|.5|}; at " 7": " 7" .6, " 8" .3, " x" .1
    c = _lp([('{"', 1, []), ("score", 1, []), ('":', 1, []), (" 7", .6, [(" 7", .6), (" 8", .3), (" x", .1)]),
             ("2", 1, []), (".5", 1, []), ("}", 1, [])])
    r = expected_score_from_logprobs(c)
    assert r["greedy"] == 72.5 and r["n_candidates"] == 2 and r["token_index"] == 3
    assert r["expected"] == pytest.approx((.6 * 72.5 + .3 * 82.5) / .9) and r["mass"] == pytest.approx(.9)
    # an alternative that ends the number ("9}") is the score 9; "7" continues the greedy tail → 70;
    # "20" → "20"+"0" = 200 is outside [0, 100] and is dropped
    c2 = _lp([('{"score": ', 1, []), ("5", .4, [("5", .4), ("9}", .2), ("7", .3), ("20", .1)]), ("0", 1, []),
              ("}", 1, [])])
    r2 = expected_score_from_logprobs(c2)
    assert r2["n_candidates"] == 3 and r2["mass"] == pytest.approx(.9)
    assert r2["expected"] == pytest.approx((.4 * 50 + .2 * 9 + .3 * 70) / .9)
    # the greedy token is counted even when top_logprobs omit it; no number → None
    c3 = [{"token": "Score: 8", "logprob": math.log(.9), "top_logprobs": []}]
    assert expected_score_from_logprobs(c3)["expected"] == pytest.approx(8.0)
    assert expected_score_from_logprobs(_lp([("no score here", 1, [])])) is None
    assert expected_score_from_logprobs([]) is None and expected_score_from_logprobs(None) is None
