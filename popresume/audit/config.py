"""The audit grid's configuration: what to run, checked before anything runs.

A grid (PopResume §5.1) is occupations × résumé formats × protected attributes ×
screeners; the paper's is 5 × 3 × 2 × 4 = 120 audits (Tables 4-5). A config is a
YAML file (or a dict) like ``configs/default_audit.yaml``::

    name: default
    occupations: [nurse, teacher]          # keys of popresume.schema.OCCUPATIONS, or "all"
    formats: [text, image, image+photo]
    attributes: [gender, race]             # gender: x0 = F; race: x0 = Non-White (App. E)
    sizes: 400                             # one int for all, or {occupation: int}, or "paper"
    seed: 0
    folds: 5                               # cross-fitting folds L (paper: 5)
    n_boot: 500                            # bootstrap draws for the 95% CIs (paper: 500)
    estimator: {tune: false, threads: 1}   # keyword arguments of popresume.causal.estimate_pse
    render: {skills: false}                # résumé rendering options
    screeners:
      - name: minilm                       # unique; the results' ``screener`` column
        spec: embedding                    # anything popresume.screeners.get_screener accepts
        label: all-MiniLM-L6-v2 (embedding)  # the results' ``model`` column (Tables 4-5 style)
        formats: [text]                    # which formats it scores (default: all of the grid's)

Every block is a pydantic model with ``extra="forbid"`` — the top level
(:class:`GridModel`), each screener entry (:class:`ScreenerModel`), each screener
spec (:class:`EmbeddingSpec`, :class:`HFSpec`, :class:`OpenAISpec`,
:class:`SyntheticSpec`, including the synthetic screener's coefficient tables),
:class:`EstimatorModel` and :class:`RenderModel` — so a misspelt key anywhere
(``estimator: {tunee: false}``, ``render: {skils: true}``, ``noise_sd`` typed
``noise``) is refused. :func:`load_config` raises :class:`ConfigError` (a
``ValueError``) that names the file, the line, the place of the key
(``screeners[1].spec.coef.edu_grup``) and what is allowed there; a YAML syntax
error is reported in one line with its line number. Nothing is generated, rendered
or scored before it returns.

:class:`AuditConfig` is the resolved grid (sizes per occupation, screener kinds
and labels filled in) that :mod:`popresume.audit.grid` runs; it keeps only the keys
a user wrote in ``estimator`` / ``render`` and the spec exactly as written, so cache
keys do not depend on defaults.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Optional, Union

import yaml
from pydantic import BaseModel, Field, ValidationError, create_model, field_validator, model_validator

from popresume import yamlio
from popresume.paths import CONFIGS_DIR
from popresume.causal.identification import RULE_SETTINGS
from popresume.causal.spec import DEFAULTS, EstimatorSpec, field_bounds, nested_folds_problem, spec_option
from popresume.schema import ATTRIBUTES, DEFAULT_SIZES, FORMATS, OCCUPATION_KEYS, OCCUPATIONS
# The screener specs' models live with the screeners (one check for a config entry and for
# `popresume score -o`); the names stay importable from here.
from popresume.screeners.specs import Block as _Block
from popresume.screeners.specs import EmbeddingSpec, HFSpec, OpenAISpec, SyntheticSpec  # noqa: F401
from popresume.screeners.specs import PROFILE_LEVELS, SPEC_MODELS  # noqa: F401
from popresume.screeners.specs import SCREENER_KINDS, field_problems, parse_spec, spec_problems
from popresume.screeners.specs import Place as _Place

#: Estimator options that change only how fast an estimate is made, not the estimate: left out
#: of the cache key of estimates (:meth:`AuditConfig.estimator_key`).
SPEED_ONLY: tuple[str, ...] = ("threads", "jackknife_jobs")

IMAGE_FORMATS = ("image", "image+photo")
# Kinds whose image ability is known without instantiating anything: the embedding
# backend and the local SmolLM2 model read text only; the synthetic screener reads
# the profile (and, when asked, a photo channel), so it accepts every format.
_TEXT_ONLY_KINDS = ("embedding", "hf")


class ConfigError(ValueError):
    """A bad audit config: names the file, line, place of the key and what is allowed.

    ``problems`` holds one ``(place, message, line)`` per problem found (``line`` is
    ``None`` for in-memory configs).
    """

    def __init__(self, problems: list[tuple[str, str, int | None]], source: str | None = None):
        self.problems = problems
        self.source = source
        super().__init__(self._text())

    def _text(self) -> str:
        parts = []
        for place, msg, line in self.problems[:3]:
            where = f"line {line}: " if line else ""
            parts.append(f"{where}{place}: {msg}" if place else f"{where}{msg}")
        more = len(self.problems) - 3
        text = "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")
        if self.source:
            text = f"{self.source}, {text}" if text.startswith("line ") else f"{self.source}: {text}"
        return text


# ---------------------------------------------------------------------------------------
def _spec_field(name: str) -> tuple:
    """The pydantic field of option ``name`` of EstimatorSpec: its type, default, bound and doc."""
    opt = spec_option(name)
    kind = Literal[opt.choices] if opt.choices else type(getattr(DEFAULTS, name))
    return kind, Field(**field_bounds(name), description=opt.doc)


#: The options a config sets at its top level (one value for the whole grid), not under ``estimator``.
TOP_LEVEL_OPTIONS = ("seed", "folds", "n_boot")

# The ``estimator`` block: every option of EstimatorSpec but the top-level ones, generated from
# the spec's fields (a new field is a config key at once), and the learners beside them.
EstimatorModel = create_model(
    "EstimatorModel", __base__=_Block, __module__=__name__,
    __doc__="""Keyword arguments of :func:`popresume.causal.estimate_pse`.

    Every field of :class:`popresume.causal.EstimatorSpec` but ``folds``, ``n_boot`` and
    ``seed`` (set at the grid's top level), with the spec's defaults and allowed values, so
    the config accepts exactly what the estimator accepts; and ``grid``, ``learners`` and
    ``trim``, passed to :func:`~popresume.causal.estimate_pse` as they are.
    """,
    **{name: _spec_field(name) for name in EstimatorSpec.names() if name not in TOP_LEVEL_OPTIONS},
    grid=(Optional[dict[str, list[Union[int, float]]]], None),
    learners=(Union[Literal["xgboost"], dict[str, Any], None], None),
    trim=(Optional[tuple[float, float]], None),  # estimate on the overlap population (the estimand renamed)
)


class RenderModel(_Block):
    """Résumé rendering options (popresume.resumes.render_texts / render_images)."""

    skills: bool = False
    images_for_synthetic: bool = False  # draw PNGs even when only the synthetic screener reads them
    width: int = Field(1024, ge=200)
    n_jobs: int = Field(2, ge=1)
    face_source: Any = None  # an object with .face/.check (in-memory configs only)


class ScreenerModel(_Block):
    """One entry of ``screeners``: a spec string (``embedding``, ``hf:PATH``,
    ``openai:MODEL@BASE_URL``, ``synthetic``) or a spec mapping with ``kind``."""

    spec: Union[str, dict[str, Any]]
    name: str | None = None
    label: str | None = None
    formats: list[str] | None = None
    supports_images: bool | None = None
    description: str | None = None

    @field_validator("formats", mode="before")
    @classmethod
    def _one_format(cls, v):
        return [v] if isinstance(v, str) else v


class GridModel(_Block):
    """The top level of an audit config."""

    occupations: Union[Literal["all"], list[str]]
    formats: list[str]
    attributes: list[str]
    screeners: list[ScreenerModel] = Field(min_length=1)
    name: str = "audit"
    description: str | None = None
    sizes: Union[Literal["paper"], int, dict[str, int]] = "paper"
    seed: int = Field(**field_bounds("seed"))
    folds: int = Field(**field_bounds("folds"))
    n_boot: int = Field(**field_bounds("n_boot"))  # the top-level options: TOP_LEVEL_OPTIONS
    estimator: EstimatorModel = EstimatorModel()
    render: RenderModel = RenderModel()

    @field_validator("occupations", "formats", "attributes", mode="before")
    @classmethod
    def _one_entry(cls, v):
        return [v] if isinstance(v, str) and v != "all" else v

    @field_validator("screeners", mode="before")
    @classmethod
    def _bare_specs(cls, v):
        # a bare spec ("embedding" or {kind: synthetic, ...}) is short for {spec: ...}
        if isinstance(v, list):
            return [{"spec": s} if isinstance(s, str) or (isinstance(s, Mapping) and "spec" not in s) else s
                    for s in v]
        return v

    @field_validator("sizes")
    @classmethod
    def _sizes_at_least_20(cls, v):
        for occ, n in ({"": v} if isinstance(v, int) else v if isinstance(v, dict) else {}).items():
            if n < 20:
                where = occ
                raise _Place(f"sizes{where and '.' + occ}", f"must be an integer >= 20, got {n}")
        return v

    @model_validator(mode="after")
    def _folds_with_nesting(self):
        problem = nested_folds_problem(self.folds, self.estimator.nested_crossfit,
                                       off="with estimator: {nested_crossfit: false}")
        if problem:
            raise _Place("folds", problem)
        return self

    @model_validator(mode="after")
    def _grid_entries(self):
        occs = list(OCCUPATION_KEYS) if self.occupations == "all" else self.occupations
        for what, seq, known in (("occupations", occs, OCCUPATION_KEYS), ("formats", self.formats, FORMATS),
                                 ("attributes", self.attributes, ATTRIBUTES)):
            if not seq:
                raise _Place(what, "must list at least one entry")
            for i, v in enumerate(seq):
                if v not in known:
                    raise _Place(f"{what}[{i}]", f"unknown {what[:-1]} {v!r}; known: {list(known)}")
                if seq.index(v) != i:
                    raise _Place(f"{what}[{i}]", f"{v!r} is listed twice")
        if isinstance(self.sizes, dict):
            for k in self.sizes:
                if k not in occs:
                    raise _Place(f"sizes.{k}", f"names an occupation not in the grid {occs}")
            missing = [o for o in occs if o not in self.sizes]
            if missing:
                raise _Place("sizes", f"has no entry for occupation {missing[0]!r}")
        return self


# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScreenerEntry:
    """One screener of the grid, as written in the config."""

    name: str
    spec: Any  # str or dict, passed to popresume.screeners.get_screener
    label: str
    formats: tuple[str, ...]
    kind: str
    synthetic: bool
    supports_images: bool | None = None  # None: ask the screener object


@dataclass(frozen=True)
class AuditConfig:
    """A validated audit grid. Build with :func:`load_config` / :func:`validate_config`.

    Parameters
    ----------
    name : str
        The grid's name (it names the cache and the output files).
    occupations, formats, attributes : tuple of str
        The grid's axes.
    sizes : dict
        Résumés per occupation.
    seed, folds, n_boot : int
        The population seed and the estimator's folds and bootstrap draws.
    screeners : tuple of ScreenerEntry
        The screeners, as the config names them.
    estimator : dict
        Further options of :func:`popresume.causal.estimate_pse`.
    render : dict
        Options of the résumé rendering.
    source : str, optional
        The file the config was read from.

    Examples
    --------
    >>> from popresume.paths import REPO_ROOT
    >>> book = load_config(REPO_ROOT / "configs" / "default_audit.yaml")  # the book's grid
    >>> book.occupations[:2], book.sizes["nurse"], [s.name for s in book.screeners][:1]
    (('nurse', 'teacher'), 400, ['minilm'])
    """

    name: str
    occupations: tuple[str, ...]
    formats: tuple[str, ...]
    attributes: tuple[str, ...]
    sizes: dict[str, int]
    seed: int
    folds: int
    n_boot: int
    screeners: tuple[ScreenerEntry, ...]
    estimator: dict = field(default_factory=dict)
    render: dict = field(default_factory=dict)
    source: str | None = None

    # -- the grid's cells -------------------------------------------------
    def cells(self) -> list[tuple[str, str, str, ScreenerEntry]]:
        """Every (occupation, format, attribute, screener) audit, in a stable order."""
        out = []
        for occ in self.occupations:
            for fmt in self.formats:
                for attr in self.attributes:
                    for s in self.screeners:
                        if fmt in s.formats:
                            out.append((occ, fmt, attr, s))
        return out

    def profiles_key(self) -> str:
        """Hash of what determines the profile table (occupations, sizes, seed)."""
        return _hash({"occupations": list(self.occupations), "sizes": self.sizes, "seed": self.seed})

    def estimator_key(self) -> dict:
        """What a cached estimate depends on: every option of :class:`EstimatorSpec` with the
        defaults resolved (so that a changed default re-estimates instead of reusing an estimate
        made under the old one), the other estimator keywords as written, and the estimable
        rule's settings; not the speed-only options (threads, parallel jackknife jobs)."""
        given = {"folds": self.folds, "n_boot": self.n_boot, "seed": self.seed, **self.estimator}
        spec = {k: v for k, v in given.items() if k in EstimatorSpec.names()}
        full = {k: getattr(DEFAULTS.replace(**spec), k) for k in EstimatorSpec.names() if k not in SPEED_ONLY}
        return {**full, **{k: v for k, v in given.items() if k not in EstimatorSpec.names()},
                "estimable_rule_settings": RULE_SETTINGS}

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "occupations": list(self.occupations),
            "formats": list(self.formats),
            "attributes": list(self.attributes),
            "sizes": dict(self.sizes),
            "seed": self.seed,
            "folds": self.folds,
            "n_boot": self.n_boot,
            "screeners": [
                {"name": s.name, "spec": s.spec, "label": s.label, "formats": list(s.formats)}
                | ({} if s.supports_images is None else {"supports_images": s.supports_images})
                for s in self.screeners
            ],
            "estimator": dict(self.estimator),
            "render": dict(self.render),
        }

    def replace(self, **changes) -> "AuditConfig":
        """A validated copy with some top-level entries changed (e.g. ``sizes=50``)."""
        d = self.to_dict()
        if "occupations" in changes and "sizes" not in changes:
            occs = OCCUPATION_KEYS if changes["occupations"] == "all" else changes["occupations"]
            d["sizes"] = {o: self.sizes.get(o, DEFAULT_SIZES[o]) for o in occs if o in OCCUPATIONS}
        d.update(changes)
        return validate_config(d, source=self.source)


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def screener_kind(spec) -> str:
    """The backend kind of a screener spec ("embedding:PATH" -> "embedding"), read by :func:`parse_spec`."""
    kind = parse_spec(spec).get("kind")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"screener spec {spec!r} has no string 'kind'")
    return kind


def _image_ability(entry: ScreenerEntry) -> bool:
    """Whether a screener can score image résumés; instantiates it only when unavoidable."""
    if entry.synthetic:
        return True
    if entry.supports_images is not None:
        return bool(entry.supports_images)
    if entry.kind in _TEXT_ONLY_KINDS:
        return False
    # openai-compatible servers: the spec says it (constructing one must not contact the
    # server); the backend declares the "images" capability by default
    if isinstance(entry.spec, Mapping) and "supports_images" in entry.spec:
        return bool(entry.spec["supports_images"])
    return True


# ---------------------------------------------------------------------------------------
# Turning pydantic's errors into one line a user can act on.
def _place(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _model_at(loc: tuple) -> type[BaseModel] | None:
    """The block model that owns the key at ``loc`` (for listing the known keys)."""
    if not loc:
        return GridModel
    head = loc[0]
    if head == "estimator":
        return EstimatorModel
    if head == "render":
        return RenderModel
    if head == "screeners" and len(loc) == 2:
        return ScreenerModel
    return None


def _raw_specs(raw: Mapping) -> list:
    """The spec of each screener entry as written (a bare spec is short for {spec: ...})."""
    entries = raw.get("screeners")
    if not isinstance(entries, (list, tuple)):
        return []
    return [e["spec"] if isinstance(e, Mapping) and "spec" in e else e for e in entries]


def _spec_problems(spec, i: int) -> list[tuple[tuple, str]]:
    base = ("screeners", i, "spec")
    if not isinstance(spec, (str, Mapping)):
        return []  # reported by GridModel
    if isinstance(spec, str):  # the grammar of --screener (parse_spec), then the kind
        try:
            kind = parse_spec(spec)["kind"]
        except ValueError as e:
            return [(base, f"screener screeners[{i}] = {spec!r}: {e}")]
        if kind not in SCREENER_KINDS:
            return [(base, f"unknown screener screeners[{i}] = {spec!r}: kind {kind!r} is not one of "
                           f"{list(SCREENER_KINDS)}")]
        return []
    return spec_problems(spec, base)


def _fail(problems: list[tuple[tuple, str]], source: str | None, lines: Mapping | None):
    rows = [(_place(loc), msg, _line_of(lines, loc)) for loc, msg in problems]
    rows.sort(key=lambda r: r[2] if r[2] is not None else 10**9)  # in file order
    raise ConfigError(rows, source)


def _line_of(lines: Mapping | None, loc: tuple) -> int | None:
    """The 1-based line of the deepest key of ``loc`` that the YAML file has."""
    if not lines:
        return None
    for k in range(len(loc), -1, -1):
        if tuple(loc[:k]) in lines:
            return lines[tuple(loc[:k])]
    return None


def validate_config(raw: Mapping, *, source: str | None = None, _lines: Mapping | None = None) -> AuditConfig:
    """Check a config mapping and return an :class:`AuditConfig`.

    Raises :class:`ConfigError` (a ``ValueError``) naming the bad entry
    (``occupations[1] = 'pilot'``, ``estimator: unknown key 'tunee'``,
    ``screeners[0].spec.noise``, ...) before any profile is generated or any résumé scored.

    Parameters
    ----------
    raw : mapping
        The config as read from YAML.
    source : str, optional
        Where it came from, for the error messages.
    _lines : mapping, optional
        Line numbers of the keys (set by :func:`load_config`), for the error messages.

    Returns
    -------
    AuditConfig
        The validated grid.

    Examples
    --------
    >>> cfg = {"name": "demo", "occupations": ["teacher"], "formats": ["text"], "attributes": ["gender"],
    ...        "sizes": 150, "seed": 2, "folds": 3, "n_boot": 0, "estimator": {"tune": False, "threads": 1},
    ...        "screeners": [{"name": "synth", "spec": {"kind": "synthetic", "noise_sd": 1.0, "seed": 0},
    ...                       "label": "synthetic"}]}
    >>> try:
    ...     validate_config({**cfg, "occupations": ["pilot"]})
    ... except ValueError as refused:  # a ConfigError, before any work
    ...     print(refused)
    occupations[0]: unknown occupation 'pilot'; known: [...]
    """
    if not isinstance(raw, Mapping):
        raise ConfigError([("", f"an audit config must be a mapping of keys, got {type(raw).__name__}", None)],
                          source)
    problems: list[tuple[tuple, str]] = []
    try:
        grid = GridModel.model_validate(dict(raw))
    except ValidationError as err:
        problems += field_problems(err, model_at=_model_at)
    specs = _raw_specs(raw)
    for i, spec in enumerate(specs):
        problems += _spec_problems(spec, i)
    if problems:
        _fail(problems, source, _lines)

    occs = list(OCCUPATION_KEYS) if grid.occupations == "all" else list(grid.occupations)
    fmts = list(grid.formats)
    if grid.sizes == "paper":
        sizes = {o: DEFAULT_SIZES[o] for o in occs}
    elif isinstance(grid.sizes, int):
        sizes = {o: grid.sizes for o in occs}
    else:
        sizes = {o: grid.sizes[o] for o in occs}

    entries: list[ScreenerEntry] = []
    names: dict[str, int] = {}
    for i, s in enumerate(grid.screeners):
        spec = copy.deepcopy(specs[i])
        kind = screener_kind(spec)
        name = s.name or (spec if isinstance(spec, str) else kind)
        tag = f"screeners[{i}] ({name})"
        if name in names:
            _fail([(("screeners", i, "name"), f"screener name {name!r} is used twice ({tag} and "
                                              f"screeners[{names[name]}])")], source, _lines)
        names[name] = i
        sfmts = list(s.formats) if s.formats is not None else fmts
        for j, f in enumerate(sfmts):
            if f not in FORMATS:
                _fail([(("screeners", i, "formats", j), f"unknown format {tag}.formats[{j}] = {f!r}; "
                                                         f"known: {list(FORMATS)}")], source, _lines)
            if f not in fmts:
                _fail([(("screeners", i, "formats", j), f"{tag}.formats[{j}] = {f!r} is not one of the grid's "
                                                         f"formats {fmts}")], source, _lines)
        synthetic = kind == "synthetic"
        label = s.label or name
        if synthetic and "synthetic" not in label.lower():
            label = f"{label} (synthetic)"  # synthetic numbers are labelled wherever they appear
        entries.append(ScreenerEntry(name=name, spec=spec, label=label, formats=tuple(sfmts), kind=kind,
                                     synthetic=synthetic, supports_images=s.supports_images))
    # image formats need a screener that reads images; checked once every entry is known
    # to be well-formed, and still before any work starts.
    for i, e in enumerate(entries):
        img = [f for f in e.formats if f in IMAGE_FORMATS]
        if img and not _image_ability(e):
            _fail([(("screeners", i), f"screener screeners[{i}] ({e.name}, spec {e.spec!r}) cannot read images "
                                      f"but is given image format {img[0]!r}; restrict its 'formats' to ['text']")],
                  source, _lines)
    if not any(f in e.formats for f in fmts for e in entries):
        _fail([(("formats",), f"no screener scores any of the formats {fmts}")], source, _lines)
    # the keys the user wrote (estimator_key resolves the estimator's defaults for its cache key)
    estimator = grid.estimator.model_dump(exclude_unset=True)
    render = grid.render.model_dump(exclude_unset=True)
    return AuditConfig(
        name=grid.name, occupations=tuple(occs), formats=tuple(fmts), attributes=tuple(grid.attributes),
        sizes=sizes, seed=grid.seed, folds=grid.folds, n_boot=grid.n_boot, screeners=tuple(entries),
        estimator=estimator, render=render, source=source,
    )


# ---------------------------------------------------------------------------------------
def _key_lines(node, prefix: tuple = (), out: dict | None = None) -> dict:
    """{location tuple: 1-based line} for every key and list item of a composed YAML tree."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            loc = prefix + (k.value,)
            out[loc] = k.start_mark.line + 1
            _key_lines(v, loc, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            out[prefix + (i,)] = v.start_mark.line + 1
            _key_lines(v, prefix + (i,), out)
    return out


def read_yaml(path: str | os.PathLike) -> tuple[Any, dict]:
    """Parse a YAML file; returns (data, {location: line}). A syntax error becomes one
    :class:`ConfigError` line naming the file, line and column."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text)
        data = yamlio.load(text)  # safe tags only; a key written twice is an error
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        col = f", column {mark.column + 1}" if mark else ""
        what = ": ".join(x for x in (e.context, e.problem) if x)
        raise ConfigError([("", f"YAML syntax error{col}: {what}", line)], str(path)) from None
    except yaml.YAMLError as e:
        raise ConfigError([("", f"YAML error: {e}", None)], str(path)) from None
    return data, (_key_lines(node) if node is not None else {})


def load_config(config: str | os.PathLike | Mapping | AuditConfig) -> AuditConfig:
    """Read and validate a YAML file, a mapping, or pass an :class:`AuditConfig` through.

    Parameters
    ----------
    config : path, mapping or AuditConfig
        A YAML file, its contents, or a config already validated.

    Returns
    -------
    AuditConfig
        The grid, checked (a config passed in is returned as it is).

    Examples
    --------
    >>> from popresume.paths import REPO_ROOT
    >>> c = load_config(REPO_ROOT / "configs" / "paper_text.yaml")
    >>> c.formats
    ('text',)
    """
    if isinstance(config, AuditConfig):
        return config
    if isinstance(config, Mapping):
        return validate_config(config)
    path = Path(config)
    if not path.exists():
        raise FileNotFoundError(f"audit config not found: {path}")
    raw, lines = read_yaml(path)
    return validate_config(raw if raw is not None else {}, source=str(path), _lines=lines)


def grid_config(config_file: str | os.PathLike = "default_audit.yaml", *, sizes=None, n_boot: int | None = None,
                seed: int | None = None, occupations="all"):
    """The audit grid of the book's chapters: a config (a name under ``CONFIGS_DIR`` or a path) with
    the chapter's parameters applied (``None`` keeps the file's value; ``occupations="all"``
    keeps the file's occupations). Validated before anything runs."""
    path = Path(config_file)
    cfg = load_config(path if path.is_absolute() or path.exists() else CONFIGS_DIR / path)
    changes = {k: v for k, v in (("sizes", sizes), ("n_boot", n_boot), ("seed", seed)) if v is not None}
    if occupations != "all":
        changes["occupations"] = [occupations] if isinstance(occupations, str) else list(occupations)
    return cfg.replace(**changes) if changes else cfg
