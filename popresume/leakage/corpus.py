"""The factorial résumé corpus of "Beyond the Name" (Sec. 3), built from ``data/leakage/``.

Twenty base résumés (five per occupation, four Sydney-based professional occupations paying
AUD 100-120k) are crossed with 31 Additional Information blocks: one marker-free control
and 5 ethnocultural groups x 3 cue-salience tiers x 2 independently written blocks, giving
``20 x (1 + 5 x 3 x 2) = 620`` variants. The omission baselines (Additional Information
removed) are the comparators of Task 2.

Invariants (the paper's causal controls), checked by :func:`check_corpus` every time the
corpus is built, so a variant that breaks one raises :class:`CorpusError` naming it:

* every variant states ``Languages: English (Professional proficiency)`` exactly once and
  names no other language, so the variants differ only in unstructured prose;
* all text before the Additional Information section is byte-identical across a base's
  variants (and equal to the base's omission baseline);
* each base has the full factorial of 31 variants, so 20 bases give 620 variants.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from popresume import yamlio
from popresume.errors import require_columns
from popresume.io import cached_tables
from popresume.paths import DATA_DIR

GROUPS: tuple[str, ...] = ("Anglo", "First Nations", "Chinese", "Indian", "Vietnamese")
COMPARATOR = "Anglo"  # the reference group of selection-rate ratios and score differences
CONTROL = "Control"  # the marker-free condition
CONDITIONS: tuple[str, ...] = (CONTROL, *GROUPS)
TIERS: tuple[str, ...] = ("T1", "T2", "T3")
TIER_LABELS = {"T1": "T1 explicit", "T2": "T2 community", "T3": "T3 subtle"}
BLOCKS_PER_CELL = 2
VARIANTS_PER_BASE = 1 + len(GROUPS) * len(TIERS) * BLOCKS_PER_CELL  # 31
# The three tasks of the paper (Sec. 3) and Task 1's abstention answer: shared by the task
# protocols (tasks.py) and the embedding judge that answers them (embedding_backend.py).
TASKS: tuple[int, ...] = (1, 2, 3)
CANNOT_DETERMINE = "Cannot determine"
LANGUAGE_LINE = "Languages: English (Professional proficiency)"
SECTION_HEADER = "ADDITIONAL INFORMATION"
_SECTION_MARK = f"\n\n{SECTION_HEADER}\n"

# Language names the Additional Information prose must not mention: the paper holds the
# declared languages constant so that only non-language residue can leak (Sec. 3).
OTHER_LANGUAGE_WORDS = (
    "Mandarin", "Cantonese", "Hokkien", "Hindi", "Tamil", "Punjabi", "Malayalam", "Gujarati",
    "Bengali", "Telugu", "Urdu", "Marathi", "bilingual", "fluent", "native speaker",
    "Vietnamese language", "Chinese language", "mother tongue",
)

VARIANT_COLUMNS = ["variant_id", "base_id", "occupation", "condition", "tier", "block", "block_id", "text"]
BASELINE_COLUMNS = ["variant_id", "base_id", "occupation", "condition", "tier", "block", "block_id", "text"]


class CorpusError(ValueError):
    """A corpus source or variant breaks one of the paper's invariants."""


def _leakage_dir(data_dir: str | Path | None) -> Path:
    d = Path(data_dir) if data_dir is not None else DATA_DIR / "leakage"
    if not d.is_dir():
        raise FileNotFoundError(f"leakage corpus folder not found: {d}")
    return d


def _read_yaml(path: Path) -> Any:
    if not path.exists():
        raise FileNotFoundError(f"leakage corpus file not found: {path}")
    with open(path, encoding="utf-8") as fh:
        return yamlio.load(fh)


def slug(condition: str) -> str:
    """'First Nations' -> 'first-nations' (used in variant ids)."""
    return re.sub(r"[^a-z0-9]+", "-", condition.lower()).strip("-")


# ---------------------------------------------------------------------------- sources
def load_occupations(data_dir: str | Path | None = None) -> dict[str, dict]:
    """The four job descriptions (``occupations.yaml``), keyed by occupation."""
    occ = _read_yaml(_leakage_dir(data_dir) / "occupations.yaml")
    for key, spec in occ.items():
        for field in ("title", "employer", "location", "salary", "summary", "mandatory", "desirable"):
            if field not in spec:
                raise CorpusError(f"occupation {key!r} in occupations.yaml has no field {field!r}")
    return occ


def load_bases(data_dir: str | Path | None = None) -> list[dict]:
    """The base résumés (``bases.yaml``) as a list of dicts, validated against the occupations."""
    d = _leakage_dir(data_dir)
    bases = _read_yaml(d / "bases.yaml")
    occ = load_occupations(d)
    seen = set()
    for b in bases:
        bid = b.get("base_id")
        if not bid or bid in seen:
            raise CorpusError(f"base résumé with missing or duplicate base_id {bid!r} in bases.yaml")
        seen.add(bid)
        if b.get("occupation") not in occ:
            raise CorpusError(f"base {bid!r}: unknown occupation {b.get('occupation')!r} (known: {sorted(occ)})")
        for field in ("summary", "experience", "education", "certifications", "skills", "meets"):
            if field not in b:
                raise CorpusError(f"base {bid!r} in bases.yaml has no field {field!r}")
    return bases


def load_blocks(data_dir: str | Path | None = None) -> pd.DataFrame:
    """The 31 Additional Information blocks as a table [block_id, condition, tier, block, text]."""
    src = _read_yaml(_leakage_dir(data_dir) / "blocks.yaml")
    if src.get("language_line") != LANGUAGE_LINE:
        raise CorpusError(f"blocks.yaml: language_line must be {LANGUAGE_LINE!r}, got {src.get('language_line')!r}")
    rows = []
    controls = src.get("control") or []
    if len(controls) != 1:
        raise CorpusError(f"blocks.yaml must hold exactly one control block, found {len(controls)}")
    rows.append({"block_id": "control", "condition": CONTROL, "tier": "none", "block": 0,
                 "text": str(controls[0]["text"]).strip("\n")})
    groups = src.get("groups") or {}
    if set(groups) != set(GROUPS):
        raise CorpusError(f"blocks.yaml groups must be exactly {GROUPS}, got {tuple(groups)}")
    for g in GROUPS:
        for t in TIERS:
            cell = groups[g].get(t) or []
            if len(cell) != BLOCKS_PER_CELL:
                raise CorpusError(f"blocks.yaml: group {g!r} tier {t} has {len(cell)} blocks, "
                                  f"expected {BLOCKS_PER_CELL}")
            for k, blk in enumerate(cell, start=1):
                rows.append({"block_id": f"{slug(g)}-{t}-{'ab'[k - 1]}", "condition": g, "tier": t,
                             "block": k, "text": str(blk["text"]).strip("\n")})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- rendering
def job_description(occupation: str, data_dir: str | Path | None = None) -> str:
    """The job description of a leakage occupation as plain text (mandatory + desirable criteria)."""
    occ = load_occupations(data_dir)
    if occupation not in occ:
        raise ValueError(f"unknown leakage occupation {occupation!r}; known: {sorted(occ)}")
    o = occ[occupation]
    lines = [o["title"], f"{o['employer']} | {o['location']} | {o['salary']}", "", " ".join(o["summary"].split()),
             "", "Mandatory criteria:"]
    lines += [f"- {v}" for v in o["mandatory"].values()]
    lines += ["", "Desirable criteria:"]
    lines += [f"- {v}" for v in o["desirable"].values()]
    return "\n".join(lines) + "\n"


def render_base(base: dict, occupations: dict[str, dict]) -> str:
    """Text of a base résumé up to (not including) the Additional Information section.

    De-identified as in the paper: no name, contact details or photo; the candidate is a
    reference code.
    """
    o = occupations[base["occupation"]]
    out = [f"RÉSUMÉ - Candidate {base['base_id'].upper()}", f"Target role: {o['title']}", "Location: Sydney, NSW",
           "", "PROFESSIONAL SUMMARY", " ".join(str(base["summary"]).split()), "", "EXPERIENCE"]
    for i, job in enumerate(base["experience"]):
        if i:
            out.append("")
        out.append(f"{job['role']} | {job['employer']} | {job['period']}")
        out += [f"- {b}" for b in job["bullets"]]
    out += ["", "EDUCATION"] + [f"- {e}" for e in base["education"]]
    out += ["", "CERTIFICATIONS AND LICENCES"] + [f"- {c}" for c in base["certifications"]]
    out += ["", "SKILLS", str(base["skills"])]
    return "\n".join(out) + "\n"


def compose(prefix: str, block_text: str | None) -> str:
    """A variant's text: the base prefix, then the Additional Information section (or nothing)."""
    if block_text is None:
        return prefix
    return prefix + "\n" + SECTION_HEADER + "\n" + block_text.strip("\n") + "\n"


def split_sections(text: str) -> tuple[str, str | None]:
    """(text before the Additional Information section, the section body or None)."""
    n = text.count(_SECTION_MARK)
    if n == 0:
        return text, None
    if n > 1:
        raise CorpusError(f"text has {n} '{SECTION_HEADER}' sections, expected at most one")
    i = text.index(_SECTION_MARK)
    return text[: i + 1], text[i + len(_SECTION_MARK):]


# ---------------------------------------------------------------------------- building
def criteria_coverage(data_dir: str | Path | None = None) -> pd.DataFrame:
    """Per base: criteria met (from ``meets``), desirable ratio, and whether each evidence phrase is in the text.

    The paper's bases meet 100% of mandatory and 80-90% of desirable criteria so that no
    evaluation hits a ceiling (Sec. 3).
    """
    occ = load_occupations(data_dir)
    rows = []
    for b in load_bases(data_dir):
        o = occ[b["occupation"]]
        text = render_base(b, occ)
        meets = b["meets"]
        unknown = set(meets) - set(o["mandatory"]) - set(o["desirable"])
        if unknown:
            raise CorpusError(f"base {b['base_id']!r}: meets unknown criteria {sorted(unknown)}")
        missing_phrases = [k for k, phrase in meets.items() if str(phrase) not in text]
        rows.append({
            "base_id": b["base_id"], "occupation": b["occupation"],
            "mandatory_met": sum(k in meets for k in o["mandatory"]), "mandatory_total": len(o["mandatory"]),
            "desirable_met": sum(k in meets for k in o["desirable"]), "desirable_total": len(o["desirable"]),
            "evidence_missing": ",".join(missing_phrases),
        })
    df = pd.DataFrame(rows)
    df["desirable_ratio"] = df["desirable_met"] / df["desirable_total"]
    return df


@cached_tables(maxsize=4)
def _build_cached(data_dir: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    occ = load_occupations(data_dir)
    bases = load_bases(data_dir)
    blocks = load_blocks(data_dir)
    rows, base_rows = [], []
    for b in bases:
        prefix = render_base(b, occ)
        base_rows.append({"variant_id": f"{b['base_id']}/omitted", "base_id": b["base_id"],
                          "occupation": b["occupation"], "condition": "Omitted", "tier": "none", "block": 0,
                          "block_id": "omitted", "text": compose(prefix, None)})
        for blk in blocks.itertuples(index=False):
            rows.append({"variant_id": f"{b['base_id']}/{blk.block_id}", "base_id": b["base_id"],
                         "occupation": b["occupation"], "condition": blk.condition, "tier": blk.tier,
                         "block": int(blk.block), "block_id": blk.block_id, "text": compose(prefix, blk.text)})
    variants = pd.DataFrame(rows, columns=VARIANT_COLUMNS)
    baselines = pd.DataFrame(base_rows, columns=BASELINE_COLUMNS)
    check_corpus(variants, baselines, n_bases=len(bases))
    return variants, baselines


def build_corpus(data_dir: str | Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Build and check the corpus: ``(variants, baselines)``.

    ``variants`` has one row per résumé variant (620 with the shipped sources) and columns
    ``variant_id, base_id, occupation, condition (Control or a group), tier (T1..T3 or 'none'),
    block (1, 2; 0 for the control), block_id, text``; ``baselines`` has one omission baseline
    per base (``condition == 'Omitted'``). Raises :class:`CorpusError` if an invariant fails.
    """
    v, b = _build_cached(str(data_dir) if data_dir is not None else None)
    return v.copy(), b.copy()


def check_corpus(variants: pd.DataFrame, baselines: pd.DataFrame | None = None, *, n_bases: int | None = None) -> None:
    """Raise :class:`CorpusError` (naming the variant) unless every invariant holds."""
    try:
        require_columns(variants, VARIANT_COLUMNS, "variants table")
    except ValueError as e:
        raise CorpusError(str(e)) from None
    dup = variants["variant_id"][variants["variant_id"].duplicated()]
    if len(dup):
        raise CorpusError(f"duplicate variant_id {dup.iloc[0]!r}")
    prefixes: dict[str, tuple[str, str]] = {}
    for row in variants.itertuples(index=False):
        vid, text = row.variant_id, row.text
        prefix, section = split_sections(text)
        if section is None:
            raise CorpusError(f"variant {vid!r} has no '{SECTION_HEADER}' section")
        if LANGUAGE_LINE not in section.splitlines():
            raise CorpusError(f"variant {vid!r} does not state '{LANGUAGE_LINE}' in its Additional Information")
        if text.count("Languages:") != 1:
            raise CorpusError(f"variant {vid!r} has {text.count('Languages:')} 'Languages:' lines, expected exactly 1")
        low = section.lower()
        for w in OTHER_LANGUAGE_WORDS:
            if w.lower() in low:
                raise CorpusError(f"variant {vid!r} mentions {w!r}: the prose must name no language but English")
        if row.condition not in CONDITIONS:
            raise CorpusError(f"variant {vid!r} has unknown condition {row.condition!r}")
        first = prefixes.setdefault(row.base_id, (vid, prefix))
        if first[1] != prefix:
            raise CorpusError(f"variant {vid!r}: text before Additional Information differs from that of "
                              f"{first[0]!r} (must be byte-identical across a base's variants)")
    # full factorial per base
    counts = variants.groupby("base_id").size()
    bad = counts[counts != VARIANTS_PER_BASE]
    if len(bad):
        raise CorpusError(f"base {bad.index[0]!r} has {int(bad.iloc[0])} variants, expected {VARIANTS_PER_BASE}")
    cells = variants.groupby("base_id")[["condition", "tier", "block"]].apply(
        lambda d: len(set(map(tuple, d.to_numpy().tolist()))))
    bad = cells[cells != VARIANTS_PER_BASE]
    if len(bad):
        raise CorpusError(f"base {bad.index[0]!r} does not have one variant per (condition, tier, block) cell")
    if n_bases is not None and len(variants) != n_bases * VARIANTS_PER_BASE:
        raise CorpusError(f"corpus has {len(variants)} variants, expected {n_bases} x {VARIANTS_PER_BASE} = "
                          f"{n_bases * VARIANTS_PER_BASE}")
    if baselines is not None:
        for row in baselines.itertuples(index=False):
            if row.base_id not in prefixes:
                raise CorpusError(f"baseline {row.variant_id!r} has no variants")
            if split_sections(row.text)[1] is not None:
                raise CorpusError(f"baseline {row.variant_id!r} still has an Additional Information section")
            if row.text != prefixes[row.base_id][1]:
                raise CorpusError(f"baseline {row.variant_id!r} differs from its variants' text before "
                                  "Additional Information")
        nb = set(prefixes) - set(baselines["base_id"])
        if nb:
            raise CorpusError(f"bases without an omission baseline: {sorted(nb)}")
