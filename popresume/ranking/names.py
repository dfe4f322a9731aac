"""Names in a ranking audit: rates per name, how concentrated a group's picks are, and the
project's Appendix C.4 grouping applied to the audit's names against its own labels.

A group's rate is an average over the names that stand for it. If a few names carry the
gap, the finding is about those names (their spelling, their frequency, the model's
associations with them), not about the group; :func:`name_concentration` asks how far the
names of a group vary beyond chance and what the group's rate is without its most picked
names.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.grouping import DEFAULT_AGE_RANGE, first_name_stats, gender_typicality, surname_group

_GENDER_OF = {"M": "male", "W": "female"}
_RACE_OF = {"A": "Asian", "B": "Black", "W": "White", "H": "Hispanic"}


def name_rates(long: pd.DataFrame, *, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Per ``by`` × name: its group, times shown (``n``), times ranked first (``top``), the top
    rate and the mean rank."""
    by = list(by)
    require_columns(long, by + ["name", "demo", "rank"], "ranking table")
    g = long.assign(_top=(long["rank"] == 1).astype(int)).groupby(by + ["demo", "name"], sort=True)
    out = g.agg(n=("_top", "size"), top=("_top", "sum"), mean_rank=("rank", "mean")).reset_index()
    out["top_rate"] = out["top"] / out["n"]
    return out


def name_concentration(rates: pd.DataFrame, *, by: Sequence[str] = ("model",), drop: int = 5, n_sim: int = 2000,
                       seed: int = 0) -> pd.DataFrame:
    """Per ``by`` × group: names, shown, top picks, the share of the group's top picks that its
    ``drop`` most-picked names took (``share_top_names``), the group's rate without them
    (``rate_without_top_names``, against ``rate``), and a dispersion test of the names' rates:
    Pearson's X² of the names' top counts around the group's rate, with a p-value simulated
    from binomial draws at that rate (``p_names_differ``; small p: names differ beyond chance)."""
    by = list(by)
    require_columns(rates, by + ["demo", "name", "n", "top"], "name-rate table")
    rng = np.random.default_rng(seed)
    rows = []
    for key, s in rates.groupby(by + ["demo"], sort=True):
        n, top = s["n"].to_numpy(), s["top"].to_numpy()
        p = top.sum() / n.sum()
        order = np.argsort(-top, kind="stable")
        kept = order[drop:]
        if 0 < p < 1:
            x2 = float((((top - n * p) ** 2) / (n * p * (1 - p))).sum())
            sims = rng.binomial(n, p, size=(n_sim, len(n)))
            sx2 = (((sims - n * p) ** 2) / (n * p * (1 - p))).sum(axis=1)
            pval = float((1 + (sx2 >= x2).sum()) / (n_sim + 1))
        else:
            x2 = pval = np.nan
        rows.append({**dict(zip(by + ["demo"], key)), "names": len(s), "shown": int(n.sum()), "top": int(top.sum()),
                     "rate": p, "share_top_names": top[order[:drop]].sum() / max(top.sum(), 1),
                     "rate_without_top_names": top[kept].sum() / n[kept].sum() if len(kept) else np.nan,
                     "x2": x2, "p_names_differ": pval})
    return pd.DataFrame(rows)


def c4_check(names: Sequence[str], demos: Sequence[str], **grouping) -> pd.DataFrame:
    """Appendix C.4's grouping of each full name (first-name gender from SSA counts, surname
    group from the 2010 Census file) next to the audit's own label (``RACE_GENDER`` codes).

    C.4 has no Hispanic surname group, so ``race_agrees`` is NaN for Hispanic-labelled names;
    a first name outside the SSA cohorts is ``"not in SSA cohorts"``."""
    df = pd.DataFrame({"name": list(names), "demo": list(demos)}).drop_duplicates("name").reset_index(drop=True)
    parts = df["name"].str.strip().str.split(n=1, expand=True)
    if parts.shape[1] < 2 or parts[1].isna().any():
        bad = df.loc[parts[1].isna(), "name"].iloc[0] if parts.shape[1] == 2 else df["name"].iloc[0]
        raise ValueError(f"name {bad!r} has no surname (expected 'FIRST LAST')")
    df["first_name"] = parts[0].str.title()
    df["surname"] = parts[1]
    code = df["demo"].str.split("_", n=1, expand=True)
    df["race"], df["gender"] = code[0].map(_RACE_OF), code[1].map(_GENDER_OF)
    age_range = tuple(grouping.get("age_range", DEFAULT_AGE_RANGE))
    stats = first_name_stats(age_range)
    df["p_female"] = df["first_name"].map(stats["p_female"]).astype(float)
    df["fn_gender"] = gender_typicality(df["first_name"], age_range=age_range)
    df.loc[df["p_female"].isna(), "fn_gender"] = "not in SSA cohorts"
    df["gender_agrees"] = df["fn_gender"] == df["gender"]
    df["surname_group"] = surname_group(df["surname"])
    df["race_agrees"] = (df["surname_group"] == df["race"]).where(df["race"] != "Hispanic")
    return df


def c4_summary(check: pd.DataFrame) -> pd.DataFrame:
    """Per audit group: names, how many C.4 puts in the same gender / race group, and what C.4 calls the rest."""
    require_columns(check, ["demo", "fn_gender", "gender_agrees", "surname_group", "race_agrees"], "C.4 check")
    def one(s):
        return pd.Series({"names": len(s), "gender_agrees": int(s["gender_agrees"].sum()),
                          "gender_other": ", ".join(f"{k} {v}" for k, v in s.loc[~s["gender_agrees"], "fn_gender"]
                                                    .value_counts().items()) or "none",
                          "race_agrees": s["race_agrees"].sum() if s["race_agrees"].notna().any() else np.nan,
                          "surname_groups": ", ".join(f"{k} {v}" for k, v in s["surname_group"].value_counts().items())})
    return check.groupby("demo", sort=True)[list(check.columns)].apply(one)


__all__ = ["name_rates", "name_concentration", "c4_check", "c4_summary"]
