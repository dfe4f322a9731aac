"""Every table of the ranking audit from one long table, labelled with its source and verdict.

:func:`ranking_tables` is what ``popresume ranking`` writes and what the chapter shows. Each
table of a model's rows carries a ``source`` column ("ours, from Bloomberg's recorded
replies" for the GPT runs re-read by the parse rule, "ours, screener X" for our screeners'
runs) and the verdict column (``schema.VERDICT_COLUMN``, "validity gate"): the screener's
validity verdict (the long table's ``validity``), or ``schema.NOT_CARDED_RECORDED`` for
recorded decisions, which have no validity card (docs/DESIGN.md §4).
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from popresume.schema import NOT_CARDED_RECORDED, VERDICT_COLUMN

from . import chance, clogit, names, parse, position, rates

#: the columns of the three tables other tools read (issue contract)
PUBLISHED_COLUMNS = ["model", "job", "demo", "top", "selection_rate", "disparate_impact_ratio"]
POSITION_COLUMNS = ["model", "job", "position", "n_runs", "top_rate"]
CHANCE_COLUMNS = ["model", "job", "min_max_ratio", "null_p", "flag_rate_under_null", "null_p_text", "null_p_uniform",
                  "flag_rate_uniform", "n_runs", "n_sim", "null"]


def source_of(model: str, sources: Mapping[str, str]) -> str:
    return sources.get(model, "ours, from Bloomberg's recorded replies")


def ranking_tables(long: pd.DataFrame, *, published: pd.DataFrame | None = None,
                   sources: Mapping[str, str] | None = None,
                   n_sim: int = 10_000, seed: int = 0, clogit_fit: bool = True,
                   c4: bool = True) -> dict[str, pd.DataFrame]:
    """All tables of the audit. ``long``: the long table (Bloomberg's runs, and our screeners'
    runs with their label as ``model``); ``sources``: model -> source label for rows that are
    not Bloomberg's recorded replies. ``published``: the published table, to check ours against."""
    sources = dict(sources or {})
    out: dict[str, pd.DataFrame] = {}
    verdicts = (long.dropna(subset=["validity"]).groupby("model")["validity"].first().to_dict()
                if "validity" in long.columns else {})

    def src(df: pd.DataFrame) -> pd.DataFrame:
        return df.assign(**{"source": df["model"].map(lambda m: source_of(m, sources)),
                            VERDICT_COLUMN: df["model"].map(lambda m: verdicts.get(m, NOT_CARDED_RECORDED))})

    sel = rates.selection_rates(long)
    # one family per model (its 4 jobs × 8 groups): a model's adjusted p-values do not depend on
    # which other models or screener runs share the table
    sel = rates.adjust_pvalues(rates.adjust_pvalues(sel, "p_chance", family=["model"]), "p_vs_best", family=["model"])
    out["selection_rates"] = src(sel)
    out["published_reproduced"] = rates.published_layout(sel[~sel["model"].isin(list(sources))])[PUBLISHED_COLUMNS]
    if published is not None:
        out["published_check"] = rates.compare_published(sel, published)
    out["min_max"] = src(rates.min_max_ratios(sel))
    out["chance"] = src(chance.chance_table(long, n_sim=n_sim, seed=seed)[CHANCE_COLUMNS])
    n_runs = sorted({100, 250, 500, 1000, 2000, 5000, 10_000, *sel["n_runs"].unique().tolist()})
    k = int(long.groupby(["model", "job", "run"]).size().max())
    out["chance_by_runs"] = chance.null_quantiles(n_runs, k, n_sim=min(n_sim, 4000), seed=seed)
    out["position"] = position.position_rates(long)[POSITION_COLUMNS]
    out["first_position"] = src(position.first_shown_first(long))
    if "resume" in long.columns:
        out["top_resume"] = src(position.top_template_share(long[long["resume"].notna()]))
    out["ranks"] = src(rates.rank_summary(long))
    gpt_only = long[~long["model"].isin(list(sources))]
    out["ranks_by_rule"] = pd.concat([rates.rank_summary(parse.apply_rule(gpt_only, r)).assign(rule=r)
                                      for r in parse.RULES], ignore_index=True)
    out["parse_missing"] = parse.missing_counts(long[~long["model"].isin(list(sources))])
    by_rule = rates.rates_by_rule(long[~long["model"].isin(list(sources))])
    out["rates_by_rule"] = by_rule
    out["min_max_by_rule"] = pd.concat([rates.min_max_ratios(s).assign(rule=r) for r, s in by_rule.groupby("rule",
                                                                                                      sort=False)])
    nr = names.name_rates(long)
    out["name_rates"] = src(nr)
    out["name_concentration"] = src(names.name_concentration(nr, seed=seed))
    if c4:
        bb = long[~long["model"].isin(list(sources))]
        check = names.c4_check(bb["name"], bb["demo"])
        out["c4_check"] = check
        out["c4_summary"] = names.c4_summary(check).reset_index()
    if clogit_fit:
        # Bloomberg's runs only: a few hundred runs of a deterministic scorer separate some terms
        gpt = long[~long["model"].isin(list(sources))]
        # a run folder read with --runs-dir has no résumé-template column: that term is left out
        res = "resume" in gpt.columns
        cl = pd.concat([clogit.conditional_logit(gpt, position=True, resume=res),
                        clogit.conditional_logit(gpt, position=False, resume=res)], ignore_index=True)
        # one family per model and specification (its 4 jobs × 7 group terms), as for the rates above
        cl = rates.adjust_pvalues(cl[cl["term"].str.startswith("demo_")].rename(columns={"p": "p_group"}), "p_group",
                                  family=["model", "spec"])
        out["clogit"] = src(cl)
    return out


__all__ = ["PUBLISHED_COLUMNS", "POSITION_COLUMNS", "CHANCE_COLUMNS", "ranking_tables"]
