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
    screeners:
      - name: minilm                       # unique; the results' ``screener`` column
        spec: embedding                    # anything popresume.screeners.get_screener accepts
        label: all-MiniLM-L6-v2 (embedding)  # the results' ``model`` column (Tables 4-5 style)
        formats: [text]                    # which formats it scores (default: all of the grid's)

:func:`load_config` validates everything that can be checked without doing any
work — unknown occupation, format, attribute or screener kind, a screener that
cannot read images given an image format — and raises a ``ValueError`` naming the
offending entry. Nothing is generated, rendered or scored before it returns.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from popresume.schema import ATTRIBUTES, DEFAULT_SIZES, FORMATS, OCCUPATION_KEYS, OCCUPATIONS

IMAGE_FORMATS = ("image", "image+photo")
# Screener kinds the contract defines (popresume.screeners.get_screener).
SCREENER_KINDS = ("embedding", "hf", "openai", "synthetic")
# Kinds whose image ability is known without instantiating anything: the embedding
# backend and the local SmolLM2 model read text only; the synthetic screener reads
# the profile (and, when asked, a photo channel), so it accepts every format.
_TEXT_ONLY_KINDS = ("embedding", "hf")

_TOP_KEYS = {
    "name", "occupations", "formats", "attributes", "sizes", "seed", "folds", "n_boot",
    "screeners", "estimator", "render", "description",
}
_SCREENER_KEYS = {"name", "spec", "label", "formats", "supports_images", "description"}


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
    """A validated audit grid. Build with :func:`load_config` / :func:`validate_config`."""

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
        return {"folds": self.folds, "n_boot": self.n_boot, "seed": self.seed, **self.estimator}

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
    """The backend kind of a screener spec ("embedding:PATH" -> "embedding")."""
    if isinstance(spec, Mapping):
        kind = spec.get("kind")
        if not isinstance(kind, str):
            raise ValueError(f"screener spec {dict(spec)!r} has no string 'kind'")
        return kind
    if isinstance(spec, str) and spec:
        return spec.split(":", 1)[0]
    raise ValueError(f"screener spec {spec!r} is neither a string nor a mapping with 'kind'")


def _as_list(value, what: str) -> list:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ValueError(f"config entry {what!r} must be a list, got {value!r}")


def _check_int(value, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"config entry {what!r} must be an integer >= {minimum}, got {value!r}")
    return value


def _image_ability(entry: ScreenerEntry) -> bool:
    """Whether a screener can score image résumés; instantiates it only when unavoidable."""
    if entry.synthetic:
        return True
    if entry.supports_images is not None:
        return bool(entry.supports_images)
    if entry.kind in _TEXT_ONLY_KINDS:
        return False
    # openai-compatible servers and custom kinds: ask the object (constructing one
    # must not contact the server; see popresume.screeners).
    from popresume.screeners import get_screener

    return bool(getattr(get_screener(entry.spec), "supports_images", False))


def validate_config(raw: Mapping, *, source: str | None = None) -> AuditConfig:
    """Check a config mapping and return an :class:`AuditConfig`.

    Raises ``ValueError`` naming the bad entry (``occupations[1] = 'pilot'``, ``screeners[0]
    (minilm)`` ...) before any profile is generated or any résumé scored.
    """
    if not isinstance(raw, Mapping):
        raise ValueError(f"audit config must be a mapping, got {type(raw).__name__}")
    where = f" in {source}" if source else ""
    unknown_keys = sorted(set(raw) - _TOP_KEYS)
    if unknown_keys:
        raise ValueError(f"unknown config entry {unknown_keys[0]!r}{where}; known: {sorted(_TOP_KEYS)}")
    for req in ("occupations", "formats", "attributes", "screeners"):
        if req not in raw:
            raise ValueError(f"config entry {req!r} is missing{where}")

    occs = raw["occupations"]
    occs = list(OCCUPATION_KEYS) if occs == "all" else _as_list(occs, "occupations")
    for i, o in enumerate(occs):
        if o not in OCCUPATIONS:
            raise ValueError(
                f"unknown occupation occupations[{i}] = {o!r}{where}; known: {list(OCCUPATION_KEYS)}"
            )
    fmts = _as_list(raw["formats"], "formats")
    for i, f in enumerate(fmts):
        if f not in FORMATS:
            raise ValueError(f"unknown format formats[{i}] = {f!r}{where}; known: {list(FORMATS)}")
    attrs = _as_list(raw["attributes"], "attributes")
    for i, a in enumerate(attrs):
        if a not in ATTRIBUTES:
            raise ValueError(f"unknown attribute attributes[{i}] = {a!r}{where}; known: {list(ATTRIBUTES)}")
    for what, seq in (("occupations", occs), ("formats", fmts), ("attributes", attrs)):
        dup = {x for x in seq if seq.count(x) > 1}
        if dup:
            raise ValueError(f"config entry {what!r} lists {sorted(dup)[0]!r} twice{where}")
        if not seq:
            raise ValueError(f"config entry {what!r} is empty{where}")

    sizes_raw = raw.get("sizes", "paper")
    if sizes_raw == "paper":
        sizes = {o: DEFAULT_SIZES[o] for o in occs}
    elif isinstance(sizes_raw, Mapping):
        for k in sizes_raw:
            if k not in occs:
                raise ValueError(f"sizes[{k!r}]{where} names an occupation not in the grid {occs}")
        missing = [o for o in occs if o not in sizes_raw]
        if missing:
            raise ValueError(f"sizes{where} has no entry for occupation {missing[0]!r}")
        sizes = {o: _check_int(sizes_raw[o], f"sizes[{o!r}]", 20) for o in occs}
    else:
        n = _check_int(sizes_raw, "sizes", 20)
        sizes = {o: n for o in occs}

    seed = _check_int(raw.get("seed", 0), "seed", 0)
    folds = _check_int(raw.get("folds", 5), "folds", 2)
    n_boot = _check_int(raw.get("n_boot", 500), "n_boot", 0)
    estimator = dict(raw.get("estimator") or {})
    render = dict(raw.get("render") or {})

    entries: list[ScreenerEntry] = []
    scr = raw["screeners"]
    if not isinstance(scr, (list, tuple)) or not scr:
        raise ValueError(f"config entry 'screeners' must be a non-empty list{where}")
    names: set[str] = set()
    for i, s in enumerate(scr):
        if isinstance(s, (str, Mapping)) and not (isinstance(s, Mapping) and "spec" in s):
            s = {"spec": s}
        tag = f"screeners[{i}]"
        bad = sorted(set(s) - _SCREENER_KEYS)
        if bad:
            raise ValueError(f"{tag}{where} has unknown key {bad[0]!r}; known: {sorted(_SCREENER_KEYS)}")
        spec = copy.deepcopy(s["spec"])
        try:
            kind = screener_kind(spec)
        except ValueError as e:
            raise ValueError(f"{tag}{where}: {e}") from None
        if kind not in SCREENER_KINDS:
            raise ValueError(
                f"unknown screener {tag} = {spec!r}{where}: kind {kind!r} is not one of {list(SCREENER_KINDS)}"
            )
        if kind == "openai" and isinstance(spec, str) and "@" not in spec:
            raise ValueError(f"screener {tag} = {spec!r}{where}: expected 'openai:MODEL@BASE_URL'")
        name = str(s.get("name") or (spec if isinstance(spec, str) else kind))
        tag = f"screeners[{i}] ({name})"
        if name in names:
            raise ValueError(f"screener name {name!r} is used twice ({tag}){where}")
        names.add(name)
        sfmts = _as_list(s.get("formats", fmts), f"{tag}.formats")
        for j, f in enumerate(sfmts):
            if f not in FORMATS:
                raise ValueError(f"unknown format {tag}.formats[{j}] = {f!r}{where}; known: {list(FORMATS)}")
            if f not in fmts:
                raise ValueError(f"{tag}.formats[{j}] = {f!r}{where} is not one of the grid's formats {fmts}")
        synthetic = kind == "synthetic"
        label = str(s.get("label") or name)
        if synthetic and "synthetic" not in label.lower():
            label = f"{label} (synthetic)"  # synthetic numbers are labelled wherever they appear
        entries.append(
            ScreenerEntry(name=name, spec=spec, label=label, formats=tuple(sfmts), kind=kind,
                          synthetic=synthetic, supports_images=s.get("supports_images"))
        )
    # image formats need a screener that reads images; checked last, once every
    # entry is known to be well-formed, and still before any work starts.
    for i, e in enumerate(entries):
        img = [f for f in e.formats if f in IMAGE_FORMATS]
        if img and not _image_ability(e):
            raise ValueError(
                f"screener screeners[{i}] ({e.name}, spec {e.spec!r}) cannot read images "
                f"but is given image format {img[0]!r}{where}; restrict its 'formats' to ['text']"
            )
    if not any(f in e.formats for f in fmts for e in entries):
        raise ValueError(f"no screener scores any of the formats {fmts}{where}")
    return AuditConfig(
        name=str(raw.get("name", "audit")), occupations=tuple(occs), formats=tuple(fmts),
        attributes=tuple(attrs), sizes=sizes, seed=seed, folds=folds, n_boot=n_boot,
        screeners=tuple(entries), estimator=estimator, render=render, source=source,
    )


def load_config(config: str | os.PathLike | Mapping | AuditConfig) -> AuditConfig:
    """Read and validate a YAML file, a mapping, or pass an :class:`AuditConfig` through."""
    if isinstance(config, AuditConfig):
        return config
    if isinstance(config, Mapping):
        return validate_config(config)
    path = Path(config)
    if not path.exists():
        raise FileNotFoundError(f"audit config not found: {path}")
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    return validate_config(raw, source=str(path))
