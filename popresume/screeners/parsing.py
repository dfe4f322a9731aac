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
