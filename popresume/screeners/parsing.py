"""Turning a model's reply into a score, or into an honest "missing".

Order of attempts (the "documented fallback"):

1. **strict**: the whole reply is a JSON object with a numeric ``score`` (an int, a float
   or a numeric string) in [0, 100];
2. **embedded JSON**: the first ``{...}`` block in the reply (e.g. inside a ```json fence,
   or after some chatter) parses as such an object;
3. **key-value**: a ``score`` key followed by ``:`` or ``=`` and a number, e.g.
   ``"score": 85`` or ``Score = 72.5`` in otherwise broken JSON;
4. **bare number**: the reply, stripped of whitespace and quotes, is just one number.

Anything else, or a number outside [0, 100], is a failure: :func:`parse_score` returns
``None`` and the caller records ``NaN`` with the raw text. A failure is never a 0
(STYLE.md counter-examples). Callers retry failures a bounded number of times.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_KEY_VALUE = re.compile(r"""["']?\bscore\b["']?\s*[:=]\s*["']?(""" + _NUM + r")", re.IGNORECASE)
_BARE = re.compile(r"^\s*[\"']?(" + _NUM + r")[\"']?\s*$")

METHODS = ("strict", "embedded_json", "key_value", "bare_number")


@dataclass(frozen=True)
class Parsed:
    """Outcome of parsing one reply: ``score`` is None when the reply failed."""

    score: float | None
    method: str | None  # one of METHODS, or None on failure
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.score is not None


def _as_score(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        v = float(value)
    elif isinstance(value, str):
        try:
            v = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(v) or v < 0 or v > 100:
        return None
    return v


def _from_obj(obj: Any) -> float | None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and k.strip().lower() == "score":
                return _as_score(v)
    return None


def first_json_object(text: str) -> Any | None:
    """The first ``{...}`` substring of ``text`` that parses as JSON (braces balanced), else None."""
    dec = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, _ = dec.raw_decode(text, i)
            return obj
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
    return None


def parse_json_reply(text: str) -> Any | None:
    """Strict JSON, then the first embedded JSON object; None if neither parses."""
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return first_json_object(text)


def parse_score(text: str | None) -> Parsed:
    """Parse a reply into a score in [0, 100] following the order documented above."""
    if text is None:
        return Parsed(None, None, "no reply")
    if not isinstance(text, str):
        return Parsed(None, None, f"reply is {type(text).__name__}, not text")
    try:
        obj = json.loads(text)
        s = _from_obj(obj)
        if s is not None:
            return Parsed(s, "strict")
    except (json.JSONDecodeError, ValueError):
        pass
    obj = first_json_object(text)
    if obj is not None:
        s = _from_obj(obj)
        if s is not None:
            return Parsed(s, "embedded_json")
    m = _KEY_VALUE.search(text)
    if m:
        s = _as_score(m.group(1))
        if s is not None:
            return Parsed(s, "key_value")
        return Parsed(None, None, f"score {m.group(1)} outside [0, 100]")
    m = _BARE.match(text)
    if m:
        s = _as_score(m.group(1))
        if s is not None:
            return Parsed(s, "bare_number")
        return Parsed(None, None, f"score {m.group(1)} outside [0, 100]")
    return Parsed(None, None, "no score found in reply")


def parse_rate(parse_ok) -> float:
    """Share of replies that parsed (NaN for an empty run)."""
    n = len(parse_ok)
    return float(sum(bool(x) for x in parse_ok)) / n if n else float("nan")


_LEADING_NUM = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)")


def expected_score_from_logprobs(content: Any) -> dict | None:
    """The probability-weighted score of a greedy reply, from OpenAI-style token log-probabilities.

    ``content`` is ``choices[0].logprobs.content``: one entry per generated token with its
    ``token``, ``logprob`` and ``top_logprobs`` (the most likely alternatives at that position,
    given the greedy tokens before it). The number in the reply (found as :func:`parse_score`
    finds it) starts at some token; each alternative token there that continues the same text
    with digits gives a candidate score, its digits followed by the rest of the greedy number
    (greedy ``72.5`` as ``7|2|.|5``: the alternative ``8`` gives ``82.5``; an alternative that
    ends the number, such as ``9}``, gives ``9``). The expected score is
    ``Σ p(c)·c / Σ p(c)`` over the candidates in [0, 100].

    This is exact when the score's leading token decides it (single-token scores, or the
    first digit of a two-digit score with the rest conditioned on the greedy path) and an
    approximation otherwise: servers return alternatives for the greedy path only, so the
    digits after the first one are not averaged. Returns ``None`` when the reply holds no
    score or no candidate has probability; otherwise a dict with ``expected``, ``greedy``,
    ``mass`` (the probability the candidates carry), ``n_candidates`` and ``token_index``.
    """
    if not isinstance(content, list) or not content:
        return None
    toks = [str((t or {}).get("token", "")) if isinstance(t, dict) else "" for t in content]
    text = "".join(toks)
    m = _KEY_VALUE.search(text) or _BARE.match(text)
    if not m:
        return None
    a, b = m.span(1)
    greedy = _as_score(m.group(1))
    if greedy is None:
        return None
    pos = 0
    idx = start = None
    for k, t in enumerate(toks):
        if pos <= a < pos + len(t):
            idx, start = k, pos
            break
        pos += len(t)
    if idx is None:  # pragma: no cover - a is inside text by construction
        return None
    head = toks[idx][: a - start]  # text of that token before the number (a space, a quote)
    tail = text[start + len(toks[idx]): b] if b > start + len(toks[idx]) else ""
    entry = content[idx]
    alts = entry.get("top_logprobs") or []
    seen = {str(x.get("token", "")) for x in alts if isinstance(x, dict)}
    if toks[idx] not in seen and entry.get("logprob") is not None:
        alts = list(alts) + [{"token": toks[idx], "logprob": entry["logprob"]}]
    num = den = 0.0
    n = 0
    for alt in alts:
        if not isinstance(alt, dict) or alt.get("logprob") is None:
            continue
        tok = str(alt.get("token", ""))
        if not tok.startswith(head):
            continue
        rest = tok[len(head):]
        lead = _LEADING_NUM.match(rest)
        if not lead:
            continue
        digits = lead.group(1)
        cand = digits + tail if lead.end() == len(rest) else digits  # the alternative may end the number
        v = _as_score(cand)
        lp = float(alt["logprob"])
        if v is None or not math.isfinite(lp):
            continue
        p = math.exp(lp)
        num += p * v
        den += p
        n += 1
    if den <= 0:
        return None
    return {"expected": num / den, "greedy": greedy, "mass": den, "n_candidates": n, "token_index": idx}
