"""Property tests of the score-reply parser (popresume.screeners.parse_score).

Every way a score can be written (strict JSON, JSON inside chatter, ``score: N``, a bare
number) gives that score back; a number outside [0, 100] or text without a score is a
failure (None, never 0); no text makes the parser raise.
"""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from popresume.screeners.parsing import parse_rate, parse_score

FAST = settings(max_examples=60, deadline=None, database=None)
# scores as a model writes them: integers and decimals with a few digits
in_range = st.one_of(st.integers(0, 100).map(float),
                     st.decimals(0, 100, places=2, allow_nan=False, allow_infinity=False).map(float))
out_of_range = st.one_of(st.floats(100.01, 1e6), st.floats(-1e6, -0.01)).map(lambda v: round(v, 2)).filter(
    lambda v: v > 100 or v < 0)
# chatter that holds no brace, digit or the word "score"
chatter = st.text(st.sampled_from("abcdefghijklmnopqrtuvwxyz ,.!?\n"), min_size=1, max_size=30).filter(
    lambda s: s.strip() != "")


def _num(v: float) -> str:
    return str(int(v)) if v == int(v) else repr(v)


@FAST
@given(in_range, st.booleans())
def test_strict_json(score, as_string):
    value = _num(score) if as_string else score
    p = parse_score(json.dumps({"score": value}))
    assert p.ok and p.method == "strict" and p.score == score and p.error is None


@FAST
@given(in_range, chatter, chatter)
def test_json_inside_chatter(score, before, after):
    p = parse_score(f"{before}```json\n{json.dumps({'score': score, 'why': 'ok'})}\n```{after}")
    assert p.ok and p.method == "embedded_json" and p.score == score


@FAST
@given(in_range, st.sampled_from(["score: {}", "Score = {}", '"score": {}', "SCORE:{}", "'score' = '{}'"]),
       chatter)
def test_key_value(score, form, before):
    p = parse_score(f"{before} {{broken {form.format(_num(score))}")
    assert p.ok and p.method == "key_value" and p.score == score


@FAST
@given(in_range, st.sampled_from(["{}", "  {}\n", '"{}"', "'{}'"]))
def test_bare_number(score, form):
    p = parse_score(form.format(_num(score)))
    assert p.ok and p.score == score
    assert p.method in ("bare_number", "strict")  # '"85"' is also valid JSON, but has no score key
    assert p.method == "bare_number"


@FAST
@given(out_of_range, st.sampled_from(['{{"score": {}}}', "score: {}", "{}"]))
def test_out_of_range_is_a_failure_not_a_clipped_score(score, form):
    p = parse_score(form.format(_num(score)))
    assert not p.ok and p.score is None and p.method is None
    assert p.error


@FAST
@given(st.text(max_size=200))
def test_any_text_gives_a_score_in_range_or_a_failure(text):
    p = parse_score(text)
    assert p.ok == (p.score is not None)
    if p.ok:
        assert 0 <= p.score <= 100 and math.isfinite(p.score) and p.method is not None
    else:
        assert p.method is None and isinstance(p.error, str) and p.error


@FAST
@given(chatter)
def test_text_without_a_number_fails(text):
    p = parse_score(text)
    assert not p.ok and p.error == "no score found in reply"


@FAST
@given(st.lists(st.booleans(), min_size=1, max_size=50))
def test_parse_rate_is_the_share_ok(oks):
    assert parse_rate(oks) == sum(oks) / len(oks)


def test_non_text_replies():
    assert parse_score(None).error == "no reply"
    assert not parse_score(85).ok  # a number object is not a reply text
    assert math.isnan(parse_rate([]))
