"""Screener specs: the keys and value types each backend's constructor takes, checked
before anything is built.

A spec is ``{"kind": ..., **constructor keys}`` (the dict form of
:func:`popresume.screeners.get_screener`). Each kind has a pydantic model with
``extra="forbid"`` and ``strict=True`` (:class:`EmbeddingSpec`, :class:`HFSpec`,
:class:`OpenAISpec`, :class:`SyntheticSpec`), so a misspelt key (``bogus``), a string where
a number belongs (``batch_size="abc"``) or an unknown level of a synthetic coefficient table
is refused with the place of the key and what is allowed there. :func:`spec_problems` is the
one check: the audit config runs it on every screener entry, and ``get_screener`` (hence
``popresume score`` and ``validate``) on every spec it builds (:func:`check_spec`).
"""

from __future__ import annotations

import os
from typing import Any, Literal, Mapping, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from popresume.schema import EDU_LEVELS, GENDERS, OCCUPATION_KEYS, PROFILE_COLUMNS, RACES, REGIONS

# Screener kinds the contract defines (popresume.screeners.get_screener).
SCREENER_KINDS = ("embedding", "hf", "openai", "synthetic")


# Columns of a generated profile table after popresume.grouping.add_groups (Appendix C.4),
# which is what the synthetic screener reads; levels of the categorical ones. A level not
# listed here would silently add 0 points, so a typo ("Male") is refused instead.
PROFILE_LEVELS: dict[str, tuple[str, ...] | None] = {
    **{c: None for c in PROFILE_COLUMNS},
    "occupation": OCCUPATION_KEYS,
    "gender": GENDERS,
    "race": RACES,
    "edu_level": EDU_LEVELS,
    "region": REGIONS,
    "race_binary": ("White", "Non-White"),
    "edu_group": ("low", "medium", "high"),
    "fn_gender": ("female", "male", "neutral"),
    "fn_age": ("young", "mid", "old", "neutral"),
    "surname_group": ("Asian", "Black", "White", "neutral"),
}
_NUMERIC_COLUMNS = ("age", "birth_year", "exp_year")


# The blocks. strict=True: a string where a number belongs, or a bool where an int
# belongs, is an error rather than a silent conversion.
class Block(BaseModel):
    """A block of keys: unknown keys and values of the wrong type are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _plain_values(cls, data):
        # in-memory configs: numpy numbers and tuples are as good as ints, floats and lists
        return _plain(data)


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v



class EmbeddingSpec(Block):
    """``popresume.screeners.embedding.EmbeddingScreener`` settings."""

    kind: Literal["embedding"]
    model: str | None = None
    precision: Literal["auto", "fp32", "bf16"] = "auto"
    device: str = "cpu"
    batch_size: int = Field(32, ge=1)
    cos_low: float = 0.1
    cos_high: float = 0.8
    overlap: int = Field(0, ge=0)
    num_threads: int | None = Field(None, ge=1)


class HFSpec(Block):
    """``popresume.screeners.hf.HFScreener`` settings."""

    kind: Literal["hf"]
    model: str | None = None
    gguf_file: str | None = None
    device: str = "cpu"
    dtype: str | None = None
    template: str | None = None
    max_new_tokens: int = Field(64, ge=1)
    constrained: bool = True
    num_threads: int | None = Field(None, ge=1)
    scoring: Literal["greedy", "expected"] = "greedy"
    min_prob: float = Field(1e-4, gt=0.0, lt=1.0)
    node_batch: int = Field(64, ge=1)


class OpenAISpec(Block):
    """``popresume.screeners.openai_http.OpenAIScreener`` settings (an OpenAI-compatible server)."""

    kind: Literal["openai"]
    model: str = Field(min_length=1)
    base_url: str = Field("https://api.openai.com/v1", pattern=r"^https?://")
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(0.0, ge=0.0)
    max_tokens: int = Field(16, ge=1)
    seed: int | None = 0
    concurrency: int = Field(8, ge=1)
    timeout: float = Field(60.0, gt=0.0)
    max_retries: int = Field(5, ge=0)
    backoff: float = Field(0.5, ge=0.0)
    max_backoff: float = Field(30.0, ge=0.0)
    parse_retries: int = Field(1, ge=0)
    response_format: str | None = "auto"
    scoring: Literal["greedy", "expected"] = "greedy"
    top_logprobs: int = Field(20, ge=1, le=20)
    fail_fast: int = Field(3, ge=1)
    max_prompt_chars: int = Field(60_000, ge=1)
    supports_images: bool = True
    extra_body: dict[str, Any] | None = None
    template: str | None = None

    @field_validator("response_format")
    @classmethod
    def _known_dialect(cls, v):
        from popresume.screeners.openai_http import DIALECTS  # the backend's list, not a copy

        if v is not None and v not in ("auto",) + tuple(DIALECTS):
            raise ValueError(f"must be 'auto' or one of {list(DIALECTS)}, got {v!r}")
        return v


_Coef = Union[float, dict[str, float]]


class SyntheticSpec(Block):
    """``popresume.screeners.synthetic.SyntheticScreener``: Y = f(X, Z, B, R) + ε.

    ``direct`` / ``photo``: {column: {level: points}}; ``coef``: {column: number (numeric
    column) or {level: points}}. Columns and levels are those of a generated profile
    table with the Appendix C.4 groups (:data:`PROFILE_LEVELS`).
    """

    kind: Literal["synthetic"]
    intercept: float = 50.0
    direct: dict[str, dict[str, float]] | None = None
    photo: dict[str, dict[str, float]] | None = None
    coef: dict[str, _Coef] | None = None
    noise_sd: float = Field(5.0, ge=0.0)
    seed: int = 0
    format: Literal["text", "image", "image+photo", None] = None
    clip: bool = False
    model: str = "synthetic-v1"

    @field_validator("direct", "photo", "coef")
    @classmethod
    def _known_columns_and_levels(cls, table, info):
        what = info.field_name
        for col, term in (table or {}).items():
            if col not in PROFILE_LEVELS:
                raise Place(f"{what}.{col}", f"unknown profile column {col!r}; known: {sorted(PROFILE_LEVELS)}")
            if isinstance(term, Mapping):
                levels = PROFILE_LEVELS[col]
                if col in _NUMERIC_COLUMNS:
                    raise Place(f"{what}.{col}", f"{col!r} is numeric: give one number (points per unit), "
                                                  f"not a table of levels")
                bad = [lv for lv in term if levels is not None and lv not in levels]
                if bad:
                    raise Place(f"{what}.{col}.{bad[0]}", f"unknown level {bad[0]!r} of {col!r}; "
                                                           f"known: {list(levels)}")
            elif col not in _NUMERIC_COLUMNS:
                raise Place(f"{what}.{col}", f"{col!r} is categorical: give a table {{level: points}}, "
                                              f"not one number")
        return table


SPEC_MODELS: dict[str, type[Block]] = {
    "embedding": EmbeddingSpec, "hf": HFSpec, "openai": OpenAISpec, "synthetic": SyntheticSpec,
}


class Place(ValueError):
    """A cross-field problem found after the fields validated; ``place`` is a dotted path."""

    def __init__(self, place: str, msg: str):
        self.place = place
        super().__init__(msg)



def known_keys(model: type[BaseModel]) -> list[str]:
    return sorted(model.model_fields)


def field_problems(err: ValidationError, prefix: tuple = (), model_at=lambda loc: None) -> list[tuple[tuple, str]]:
    """``(place, message)`` for each error of a pydantic validation; ``model_at(loc)`` names the
    block whose known keys an unknown key's message lists."""
    out = []
    for e in err.errors():
        loc = prefix + tuple(p for p in e["loc"] if not is_union_tag(p))
        typ = e["type"]
        if typ == "extra_forbidden":
            owner = model_at(loc[len(prefix):-1])
            known = f"; known keys: {', '.join(known_keys(owner))}" if owner else ""
            msg = f"unknown key {loc[-1]!r}{known}"
        elif typ == "missing":
            msg = f"required key {loc[-1]!r} is missing"
        elif typ == "value_error":
            exc = (e.get("ctx") or {}).get("error")
            if isinstance(exc, Place):
                loc = prefix + tuple(int(p) if p.isdigit() else p for p in
                                     exc.place.replace("[", ".").replace("]", "").split("."))
            msg = str(exc) if exc is not None else e["msg"].removeprefix("Value error, ")
        else:
            msg = f"{e['msg']}, got {e['input']!r}" if "input" in e and not isinstance(e["input"], (dict, list)) \
                else e["msg"]
        out.append((loc, msg.replace("Input should", "must").replace("List should", "must")))
    # a union (e.g. sizes: "paper" | int | {occ: int}) reports one error per member: merge them
    merged: dict[tuple, list[str]] = {}
    for loc, msg in out:
        merged.setdefault(loc, []).append(msg)
    return [(loc, msgs[0] if len(msgs) == 1 else union_message(msgs)) for loc, msgs in merged.items()]


def union_message(msgs: list[str]) -> str:
    got = msgs[0].rsplit(", got ", 1)[1] if ", got " in msgs[0] else None
    wants = [m.rsplit(", got ", 1)[0].removeprefix("must be ") for m in msgs]
    return ("expected " + " or ".join(dict.fromkeys(wants))) + (f", got {got}" if got else "")


def is_union_tag(part) -> bool:
    # pydantic inserts the union member's name into the location ("int", "dict[str,int]",
    # "literal['paper']", "function-after[...]"): not a key of the user's file
    return isinstance(part, str) and (part in ("int", "str", "float", "bool") or "[" in part or "-" in part
                                      and part.startswith("function"))


def spec_problems(spec: Mapping, base: tuple = ()) -> list[tuple[tuple, str]]:
    """``(place, message)`` for each problem of a screener spec mapping (its ``kind`` and
    keys); the one check of a spec, for an audit config's entries (:mod:`popresume.audit.config`) and
    ``popresume score -o`` / ``validate -o`` alike."""
    kind = spec.get("kind")
    if kind not in SCREENER_KINDS:
        return [(base + ("kind",), f"unknown screener kind {kind!r}; known: {list(SCREENER_KINDS)}")]
    model = SPEC_MODELS[kind]
    try:
        model.model_validate(spec)
    except ValidationError as err:
        return field_problems(err, base, model_at=lambda loc: model if not loc else None)
    return []


def check_spec(spec: Mapping[str, Any], what: str = "screener spec") -> None:
    """Refuse a spec mapping with a misspelt key or a value of the wrong type: a ``ValueError``
    naming each problem (and, for an unknown key, the known ones)."""
    plain = {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in spec.items()}
    problems = spec_problems(plain)
    if problems:
        parts = [f"{'.'.join(str(p) for p in loc)}: {msg}" if loc and str(loc[-1]) not in msg else msg
                 for loc, msg in problems]
        raise ValueError(f"{what} {dict(spec)!r}: " + "; ".join(parts))
