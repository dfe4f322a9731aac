"""Summaries of audit results that the book's audit chapters (08-10) print.

Each function takes a results table (the layout of ``popresume_published_pse.csv``, or
:func:`popresume.audit.grid.run_audit`'s output) and returns a small tidy table, so the
chapters only narrate and plot:

* :func:`photo_shift` — PopResume §5.3: does a profile photo enlarge |NDE|?
* :func:`effect_survival`, :func:`recount_labels`, :func:`recount_summary` — how many
  significant effects and case labels survive Holm / Benjamini-Hochberg;
* :func:`masking_summary` — what an auditor who looked only at TE would have concluded;
* :func:`four_fifths_disagreements`, :func:`disagreement_counts` — the four-fifths verdict
  against the decomposition, under the uncorrected *and* a corrected significance standard;
* :func:`overlap_columns`, :func:`effects_view`, :func:`add_overlap` — the effective sample
  size and the share of clipped propensities beside the effects (weak overlap makes
  NDE/NIE lean on outcome-model extrapolation).

Scoring résumés outside the grid is :mod:`popresume.audit.scoring`; estimating variants of
one audit (other data, other roles) is :mod:`popresume.audit.variants`; the book's grid
config is :func:`popresume.audit.config.grid_config`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from popresume.audit.metrics import adjust, compare_with_causal, format_effects, long_tests, recount_table, te_alone
from popresume.causal import case_counts, significant
from popresume.causal.results import OVERLAP_COLUMNS
from popresume.errors import require_columns
from popresume.schema import NOT_CARDED_NO_CARD, NOT_CARDED_PUBLISHED, PSE_NAMES, VERDICT_COLUMN

KEYS = ("attribute", "occupation", "format", "model")
METHODS = ("none", "holm", "bh")
METHOD_LABELS = {"none": "uncorrected (CI excludes 0)", "holm": "Holm", "bh": "Benjamini-Hochberg"}


def _keys(table: pd.DataFrame) -> list[str]:
    return [c for c in KEYS if c in table.columns]


# --------------------------------------------------------------------------- §5.3 photos
def photo_shift(table: pd.DataFrame) -> pd.Series:
    """Pairs (attribute, occupation, model) audited on image and image+photo résumés, and how the photo moves NDE.

    Returns ``pairs``, ``|NDE| larger with photo`` and ``NDE significant only with photo``
    (CI excludes 0 with the photo, not without). PopResume §5.3 says the magnitude of NDE "increases
    noticeably" with the photo in 8 of 20 pairs; on the shipped table the first count is 12 of 20
    and the second 8 of 20, so the paper's 8 matches the second reading, not a plain |NDE| comparison.
    """
    require_columns(table, ["attribute", "occupation", "model", "format", "NDE_estimate", "NDE_ci_low", "NDE_ci_high"],
          "results table")
    k = ["attribute", "occupation", "model"]
    a = table[table["format"] == "image"].set_index(k)
    b = table[table["format"] == "image+photo"].set_index(k)
    for name, t in (("image", a), ("image+photo", b)):
        if t.index.has_duplicates:
            raise ValueError(f"results table has two {name} rows for {t.index[t.index.duplicated()][0]!r}")
    a, b = a.align(b, join="inner", axis=0)
    sig_a = significant(a["NDE_ci_low"], a["NDE_ci_high"])
    sig_b = significant(b["NDE_ci_low"], b["NDE_ci_high"])
    return pd.Series({"pairs": len(a),
                      "|NDE| larger with photo": int((b["NDE_estimate"].abs() > a["NDE_estimate"].abs()).sum()),
                      "NDE significant only with photo": int((sig_b & ~sig_a).sum())})


# --------------------------------------------------------------------------- multiplicity
def effect_survival(table: pd.DataFrame, *, family: str = "all", alpha: float = 0.05) -> pd.DataFrame:
    """Per effect (TE..RIE): how many are significant by the paper's rule, and how many of those survive Holm / BH."""
    t = adjust(long_tests(table), family=family, alpha=alpha)
    g = t.groupby("effect", sort=False)
    out = pd.DataFrame({
        "significant (CI excludes 0)": g["sig_none"].sum(),
        "survive Holm": g.apply(lambda d: int((d["sig_none"] & d["sig_holm"]).sum()), include_groups=False),
        "survive BH": g.apply(lambda d: int((d["sig_none"] & d["sig_bh"]).sum()), include_groups=False),
    }).astype(int)
    return out.reindex([e for e in PSE_NAMES if e in out.index])


def recount_labels(table: pd.DataFrame, *, rule: str = "paper", family: str = "all",
                   alpha: float = 0.05) -> pd.DataFrame:
    """Per audit: the case labels under no correction, Holm and BH, by one rule (``stated`` or ``paper``).

    :func:`popresume.audit.metrics.recount_table` with the paper's rule by default: with
    ``rule="paper"`` the uncorrected significance reads printed bounds of ±0.000 by their
    sign (the reading that reproduces all 120 published labels, chapter 8).
    """
    return recount_table(table, family=family, alpha=alpha, rule=rule)


def recount_summary(table: pd.DataFrame, *, rule: str = "paper", family: str = "all", alpha: float = 0.05,
                    labels_column: str | None = None) -> pd.DataFrame:
    """Case counts under each significance standard, counted as the paper counts them.

    Rows: C1 (over the audits without a photo, the paper's "49 of 80"), C2..C5 (over all
    audits), the C1 denominator and the number of audits. Columns: ``printed`` (the labels
    in ``labels_column``, if given) and one per method (none, holm, bh).
    """
    require_columns(table, ["format"], "results table")
    lab = recount_labels(table, rule=rule, family=family, alpha=alpha)
    cols = {}
    if labels_column is not None:
        require_columns(table, [labels_column], "results table")
        cols["printed"] = case_counts(table[labels_column].fillna("-").astype(str), table["format"])
    for m in METHODS:
        cols[METHOD_LABELS[m]] = case_counts(lab[f"cases_{m}"], table["format"])
    out = pd.DataFrame(cols)
    return out.rename(index={"C1": "C1 (no photo)", "C1_denominator": "audits without photo", "n": "audits"})


# --------------------------------------------------------------------------- Case 2 masking
def masking_summary(table: pd.DataFrame, *, method: str = "none", family: str = "all") -> pd.Series:
    """What a TE-only auditor concludes: audits, TE ≃ 0, of which some path ≠ 0 (masked), of which Case 2."""
    m = te_alone(table, method=method, family=family)
    return pd.Series({
        "audits": len(m),
        "TE-only verdict: no disparity": int((m["te_verdict"] == "no disparity").sum()),
        "…of which some path-specific effect ≠ 0 (masked)": int(m["masked"].sum()),
        "…of which Case 2 (NDE, NIE opposite signs)": int(m["case2"].sum()),
    })


# --------------------------------------------------------------------------- four-fifths
def four_fifths_disagreements(outcome: pd.DataFrame, results: pd.DataFrame,
                              methods: Sequence[str] = ("none", "holm")) -> pd.DataFrame:
    """Four-fifths verdicts against the decomposition, with the disagreement under each significance standard.

    One row per audit: the keys, ``four_fifths_ratio``, ``ll144_impact_ratio``,
    ``four_fifths_flag``, and ``disagreement (<method>)`` for each method (the kinds named
    by :func:`popresume.audit.metrics.compare_with_causal`). The corrected standards use the
    family of all the table's tests.
    """
    keys = _keys(outcome)
    base = None
    for m in methods:
        c = compare_with_causal(outcome, results, method=m)
        cols = keys + ["four_fifths_ratio", "ll144_impact_ratio", "four_fifths_flag"]
        part = c[cols].copy() if base is None else c[keys].copy()
        part[f"disagreement ({METHOD_LABELS[m]})"] = c["disagreement"].to_numpy()
        base = part if base is None else base.merge(part, on=keys, how="inner", validate="one_to_one")
    return base


def disagreement_counts(table: pd.DataFrame) -> pd.DataFrame:
    """How many audits show each kind of disagreement, one column per standard (from :func:`four_fifths_disagreements`)."""
    cols = [c for c in table.columns if c.startswith("disagreement (")]
    if not cols:
        raise ValueError("table has no 'disagreement (...)' column; build it with four_fifths_disagreements")
    out = {}
    for c in cols:
        kinds = table[c].fillna("").str.split("; ").explode()
        counts = kinds[kinds != ""].value_counts()
        counts["any disagreement"] = int((table[c].fillna("") != "").sum())
        out[c.removeprefix("disagreement (").removesuffix(")")] = counts
    return pd.DataFrame(out).fillna(0).astype(int).rename_axis("audits")


# --------------------------------------------------------------------------- overlap
def overlap_columns(table: pd.DataFrame) -> pd.DataFrame:
    """``min_ess`` and ``clipped_share`` for every audit of a results table.

    The columns every table of audits carries (``PSEResult.overlap``, written by the grid
    and :func:`popresume.causal.estimate_row`); a published table has none (the paper does
    not report overlap) and gets NaN.
    """
    if all(c in table.columns for c in OVERLAP_COLUMNS):
        return table[list(OVERLAP_COLUMNS)].astype(float)
    return pd.DataFrame(np.nan, index=table.index, columns=list(OVERLAP_COLUMNS))


def effects_view(table: pd.DataFrame, *, effects: Sequence[str] = ("TE", "NDE", "NIE", "BIE", "RIE"),
                 keys: Sequence[str] | None = None, source: str | None = None, digits: int = 2,
                 cases: str | None = None, overlap: bool = True) -> pd.DataFrame:
    """A compact, page-wide view of audits: keys first, then each effect as "est [lo, hi]", then ESS and clipped share.

    ``source`` ("ours" / "published", or a longer label such as "ours, embedding screener")
    names the table's columns (``columns.name``, the header's corner), so the table says in
    itself where its numbers come from without a column that repeats one word on every row;
    ``model`` names the screener. Every view has a "validity gate" column after the keys: the
    verdict of the screener's validity card when the table has a ``validity_verdict`` column
    (``run_audit`` adds it), "not carded (published model)" for published rows, and "not
    carded (no card run)" for ours without a card (schema's verdict vocabulary), so a
    screener that failed the gate, or was never checked, is flagged next to its numbers.
    ``overlap=False`` leaves out the ESS and clipped-share columns (the published tables do
    not report them).
    """
    keys = [c for c in (keys if keys is not None else ("attribute", "occupation", "format", "model"))
            if c in table.columns]
    out = table[keys].copy()
    if "validity_verdict" in table.columns:
        out[VERDICT_COLUMN] = table["validity_verdict"].fillna(NOT_CARDED_NO_CARD).to_numpy()
    else:
        published = source is not None and source.split(",")[0].split(":")[0].strip() == "published"
        out[VERDICT_COLUMN] = NOT_CARDED_PUBLISHED if published else NOT_CARDED_NO_CARD
    if cases is not None:
        out["cases"] = table[cases].to_numpy()
    eff = format_effects(table, digits=digits, effects=list(effects))
    out = pd.concat([out, eff.set_axis(out.index)], axis=1)
    if not overlap:
        return out.rename_axis(columns=source)
    ov = overlap_columns(table).set_axis(out.index)
    out["min ESS"] = ov["min_ess"].round(0)
    out["clipped share"] = ov["clipped_share"].round(3)
    return out.rename_axis(columns=source)


def add_overlap(view: pd.DataFrame, results: pd.DataFrame, keys: Sequence[str] = KEYS) -> pd.DataFrame:
    """``view`` (e.g. ``metrics.side_by_side``) with ``min ESS`` and ``clipped share`` of our audits in ``results``.

    Rows of ``view`` that are not in ``results`` (published rows) get NaN: the paper does
    not report overlap.
    """
    keys = list(keys)
    require_columns(view, keys, "view")
    require_columns(results, keys, "results table")
    ov = pd.concat([results[keys].reset_index(drop=True), overlap_columns(results).reset_index(drop=True)], axis=1)
    ov = ov.rename(columns={"min_ess": "min ESS", "clipped_share": "clipped share"})
    ov["min ESS"], ov["clipped share"] = ov["min ESS"].round(0).astype("Int64"), ov["clipped share"].round(3)
    if "source" in view.columns:
        ov["source"] = "ours"
        keys = keys + ["source"]
    return view.merge(ov, on=keys, how="left", validate="many_to_one").set_axis(view.index)
