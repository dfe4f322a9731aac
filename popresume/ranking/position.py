"""Position effects: how often the top pick is the résumé shown at each position.

With the order shown randomised, a ranker that ignores order puts each position first in
1/k of runs. "Beyond the Name" (Task 2) argues that forced choice manufactures positional
dominance; :func:`first_shown_first` measures it directly on recorded decisions.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from popresume.correspondence.rates import wilson_interval
from popresume.errors import require_columns

from .parse import top_picks


def position_rates(long: pd.DataFrame, *, by: Sequence[str] = ("model", "job")) -> pd.DataFrame:
    """One row per ``by`` × position shown: ``n_runs`` (runs with a top pick) and ``top_rate``
    (the share of them whose top pick was shown at that position).

    Parameters
    ----------
    long, by
        The long table and the columns of one experiment, as :func:`popresume.ranking.selection_rates` reads them.

    Returns
    -------
    pandas.DataFrame
        One row per experiment and position: ``n_runs`` and ``top_rate``.

    Examples
    --------
    >>> from popresume.ranking.bloomberg import load_bloomberg_ranks
    >>> first = position_rates(load_bloomberg_ranks(["gpt-4"])).query("position == 1")
    >>> first[["job", "top_rate"]].round(2).to_dict("records")[:2]
    [{'job': 'HR specialist', 'top_rate': 0.17}, {'job': 'financial analyst', 'top_rate': 0.42}]
    """
    by = list(by)
    require_columns(long, by + ["run", "position", "rank"], "ranking table")
    tops = top_picks(long)
    tops = tops[tops["has_top"]]
    positions = sorted(long["position"].unique())
    rows = []
    for key, s in tops.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        counts = s["position"].astype(int).value_counts().reindex(positions, fill_value=0)
        for p, c in counts.items():
            rows.append({**dict(zip(by, key)), "position": int(p), "n_runs": len(s), "top_rate": c / len(s)})
    return pd.DataFrame(rows)


def first_shown_first(long: pd.DataFrame, *, by: Sequence[str] = ("model", "job"), level: float = 0.95) -> pd.DataFrame:
    """Per ``by``: how often the résumé shown first is ranked first, with Wilson CI, against
    chance 1/k (exact binomial ``p_chance``) and as a multiple of chance (``ratio_to_chance``)."""
    pos = position_rates(long, by=by)
    k = int(long["position"].max())
    first = pos[pos["position"] == 1].copy()
    first["top_first"] = np.rint(first["top_rate"] * first["n_runs"]).astype(int)
    lo, hi = wilson_interval(first["top_first"].to_numpy(), first["n_runs"].to_numpy(), level)
    first["ci_low"], first["ci_high"] = lo, hi
    first["chance"] = 1 / k
    first["ratio_to_chance"] = first["top_rate"] * k
    first["p_chance"] = [binomtest(int(t), int(n), 1 / k).pvalue for t, n in zip(first["top_first"], first["n_runs"])]
    return first.drop(columns="position").reset_index(drop=True)


def top_template_share(long: pd.DataFrame, *, by: Sequence[str] = ("model", "job")) -> pd.DataFrame:
    """Per ``by``: the résumé text ranked first most often (``top_resume``), its share of the top
    picks (``top_resume_share``; chance 1/k, each text is shown once per run) and, beside it,
    the share of top picks that were shown first (``shown_first_share``): which of the two, the
    text or the position, decides the top pick more often."""
    by = list(by)
    require_columns(long, by + ["run", "position", "rank", "resume"], "ranking table")
    top = long[long["rank"] == 1]
    rows = []
    for key, s in top.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        counts = s["resume"].astype(int).value_counts()
        rows.append({**dict(zip(by, key)), "n_runs": len(s), "top_resume": int(counts.index[0]),
                     "top_resume_share": counts.iloc[0] / len(s),
                     "shown_first_share": float((s["position"] == 1).mean())})
    return pd.DataFrame(rows)


__all__ = ["position_rates", "first_shown_first", "top_template_share"]
