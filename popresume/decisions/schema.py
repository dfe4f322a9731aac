"""One tidy table for every record of real screening decisions (docs/DESIGN.md §5).

Each row is one decision a real model (or employer) made about one résumé for one job, as
the source recorded it. The loaders in :mod:`popresume.decisions.sources` return exactly
:data:`COLUMNS`, in this order; what is specific to a source stays in its own module.
"""

from __future__ import annotations

import pandas as pd

from popresume.errors import require_columns
from popresume.schema import NOT_CARDED_RECORDED

#: column -> meaning; the table's documentation and its contract with the analyses.
COLUMNS: dict[str, str] = {
    "source": "which record: a name of popresume.decisions.sources.RECORDS",
    "model": "the model or setting as the source names it (re-cinq's slot, Webster's app and speed)",
    "model_version": "the provider's model id where the source records one (e.g. 'gpt-5.1-2025-11-13'), else missing",
    "date": "when the decision was recorded (ISO date; the reply's timestamp, else the commit that added it)",
    "job": "the job posting (the source's id)",
    "item": "the résumé (the source's id): the same text apart from the variant and the name",
    "variant": "what was changed in the résumé, as the source labels it (re-cinq 'placebo_car-red', "
               "Webster 'redacted', 'keyword_stuffed'); missing when only the name changes",
    "signal": "the axis the variant belongs to: 'baseline', 'placebo', 'firstName', 'name', 'redaction', "
              "'fit', 'keyword', ... (re-cinq's axis names kept)",
    "name": "the applicant's name on the résumé (Webster: initials), where one varies",
    "sex": "sex signalled by the name, as the source labels it ('female' / 'male'); missing when none",
    "race": "race or ethnicity signalled by the name, as the source labels it; missing when none",
    "run": "repetition of the same prompt (1, 2, ...); the source's own label where it is not a number",
    "outcome": "the score on its scale (float), or 1/0 for a decision; NaN when the reply had none",
    "outcome_scale": "what outcome measures: '1-10', '0-100', 'rank 1-8 (1 = best)', 'callback 0/1'",
    "decision": "a categorical decision where the source records one (re-cinq interview yes/maybe/no)",
    "reply": "the model's own words where the source keeps them (cut to a stated length), else missing",
}
NUMERIC = ("outcome",)
#: The published LL144 audit rows (ACLU, "Auditing the Audits", FAccT 2025): one row per
#: category of one analysis, as the audit printed it.
LL144_COLUMNS: dict[str, str] = {
    "audit_id": "the ACLU's id of one audit (deployer × vendor × year × auditor × tool × position)",
    "audit_report_id": "the published document the audit is in",
    "deploying_entity": "who published it", "auditor": "who audited", "tool_id": "the tool",
    "tool_vendor": "who sells the tool", "type_of_tool": "'selection' or 'scoring'",
    "selection_or_scoring_rate": "'Scoring', 'Selection', 'Selection, top', 'Selection, top and middle'",
    "number_of_applications": "n of the category, as published",
    "n_selected_or_n_above_median": "selected (or above the median score) in the category, as published",
    "result": "the published selection or scoring rate", "impact_ratio": "the published impact ratio",
    "protected_char_group": "'sex', 'race/ethnicity' or 'intersectional'",
    "race_ethnicity": "EEO-1 race/ethnicity, 'Total' or 'Missing/Unknown'",
    "sex": "EEO-1 sex, 'Total' or 'Missing/Unknown'",
    "position": "the position(s) audited", "year_of_audit_result": "year",
    "data_type": "'historical', 'test' or 'Unknown'", "link_to_result": "archived link to the audit",
}

#: The caption labels every table of these records carries (STYLE: where the numbers come from).
PUBLISHED = "published ({source})"
OURS = "ours, from {source}'s recorded replies"
#: The verdict where no validity card exists for the model (the project's one vocabulary).
NOT_CARDED = NOT_CARDED_RECORDED


def tidy(df: pd.DataFrame, what: str) -> pd.DataFrame:
    """``df`` with exactly :data:`COLUMNS` in order (missing optional columns filled with NA)
    and ``outcome`` as float; raises naming ``what`` when a required column is absent."""
    require_columns(df, ["source", "model", "job", "item", "outcome", "outcome_scale"], what)
    out = df.copy()
    for col in COLUMNS:
        if col not in out.columns:
            out[col] = pd.NA
    out = out[list(COLUMNS)]
    out["outcome"] = pd.to_numeric(out["outcome"], errors="raise").astype(float)
    for col in COLUMNS:
        if col not in NUMERIC:
            out[col] = out[col].astype("string")
    return out.reset_index(drop=True)
