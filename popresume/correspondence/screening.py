"""Screeners against recruiters: score B&M's profiles, turn scores into callbacks, compare gaps.

The recruiters' decisions are B&M's ``call`` column (real employers, 2001-02). A screener's
"callbacks" are made by giving a callback to the same share of résumés as the employers did,
:data:`STUDY_CALLBACK_RATE` = 392 / 4,870 = 8.05%, by one of two rules:

* ``within="ad"`` (default): each score is first centred on the mean score of the scored
  résumés sent to the same ad, then the top 8.05% of centred scores overall get a callback.
  A callback thus means "stood out among the résumés this employer received", and the
  screener's opinion of the ad itself (our posting text, written from the ad's features)
  cancels. Race was balanced within every ad, so centring removes noise, not a gap.
* ``within="overall"``: the top 8.05% of raw scores.

Ties at the cut are broken by ``resume_id`` order (stable sort), so the count of callbacks
is exactly ``round(rate · n)``. Résumés the screener failed on (``parse_ok`` False) are
excluded before the cut and counted; they are never scored as 0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.screeners import score_run

from .rates import callback_rates, contrast
from .render import render_all

STUDY_CALLBACK_RATE = 392 / 4870  # B&M: 392 callbacks (235 + 157) on 4,870 résumés
RECRUITERS = "recruiters (B&M callbacks, 2001-02)"
# gap = x1 − x0, in the project's orientation (PopResume: x1 = White, x1 = M)
CONTRASTS = {"race": ("Black", "White"), "sex": ("F", "M")}


def score_profiles(df: pd.DataFrame, screener="embedding", *, n: int | None = None, seed: int = 0, cache=None,
                   progress: bool = True):
    """Render B&M's profiles (all, or ``n`` via whole ads) and score them with ``screener``.

    ``screener``: any spec :func:`popresume.screeners.get_screener` accepts (``"embedding"``,
    ``"openai:MODEL@URL"``, ...) or a screener object. ``cache``: the score cache (default
    the project's disk cache), so reruns only score what is new. Returns the
    :class:`popresume.screeners.ScoreRun`: the tidy score ``table`` (``resume_id, screener,
    model, score, parse_ok, raw``) and the run ``summary``.

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés.
    screener : str, mapping or Screener
        The screener.
    n : int, optional
        Score a sample of about ``n`` résumés, in whole ads.
    seed : int
        Seed of the sample.
    cache : path, ScoreCache, None or bool
        The score cache (``False``: none).
    progress : bool
        Show a progress bar.

    Returns
    -------
    popresume.screeners.ScoreRun
        The scores and the run summary.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> from popresume.screeners.base import BaseScreener, ScoreResult
    >>> class Length(BaseScreener):  # a toy screener: the résumé's length
    ...     screener_id, model = "length", "characters"
    ...     def score_one(self, item):
    ...         return ScoreResult(float(len(item.text)), True, "ok")
    >>> run = score_profiles(load_bertrand_mullainathan(), Length(), n=20, cache=False, progress=False)
    >>> run.summary["failed"], run.table["screener"].iloc[0]
    (0, 'length')
    """
    resumes, postings = render_all(df, n=n, seed=seed)
    return score_run(screener, resumes, job_descriptions=postings, cache=cache, progress=progress)


@dataclass(frozen=True)
class Callbacks:
    """A screener's callbacks on the study's résumés (:func:`scores_to_callbacks`).

    ``table``: the profiles joined to their valid scores, with ``score_centred`` and
    ``callback_screener`` (0/1); ``excluded_ids``: the résumés left out because their score
    is missing or failed to parse (never scored 0); ``rate`` and ``within``: the cut's rule.

    Parameters
    ----------
    table : pandas.DataFrame
        The joined rows.
    excluded_ids : tuple of str
        The résumés without a valid score.
    rate : float
        The callback rate of the cut.
    within : str
        Where the cut is made ("ad": within each ad).

    Examples
    --------
    >>> import pandas as pd
    >>> Callbacks(pd.DataFrame(), ("r1",), 0.08, "ad").excluded_ids
    ('r1',)
    """

    table: pd.DataFrame
    excluded_ids: tuple[str, ...]
    rate: float
    within: str

    @property
    def n_excluded(self) -> int:
        return len(self.excluded_ids)

    @property
    def n_scored(self) -> int:
        return len(self.table)


def scores_to_callbacks(df: pd.DataFrame, scores: pd.DataFrame, *, rate: float = STUDY_CALLBACK_RATE,
                        within: str = "ad", score_col: str = "score") -> Callbacks:
    """Join ``scores`` to the profiles and add ``callback_screener`` (0/1) at ``rate``.

    Rows whose score is missing or failed to parse are dropped, listed in the result's
    ``excluded_ids``, and a warning says so. Adds ``score_centred`` (the score minus its ad's
    mean when ``within="ad"``).

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés.
    scores : pandas.DataFrame
        ``resume_id``, the score column and ``parse_ok``.
    rate : float
        The share called back (default: the study's rate).
    within : {"ad", "all"}
        Cut within each ad, or over all résumés.
    score_col : str
        The score column.

    Returns
    -------
    Callbacks
        The joined rows and the résumés left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> scores = pd.DataFrame({"resume_id": bm["resume_id"], "score": range(len(bm)), "parse_ok": True})
    >>> cb = scores_to_callbacks(bm, scores)
    >>> round(float(cb.table["callback_screener"].mean()), 2), cb.excluded_ids
    (0.08, ())
    """
    if within not in ("ad", "overall"):
        raise ValueError(f"within must be 'ad' or 'overall', got {within!r}")
    if not 0 < rate < 1:
        raise ValueError(f"rate must be between 0 and 1, got {rate!r}")
    require_columns(df, ("resume_id", "ad_id"), "profiles table")
    require_columns(scores, ("resume_id", score_col), "scores table")
    keep = ["resume_id", score_col] + [c for c in ("parse_ok", "screener", "model") if c in scores.columns]
    m = df.merge(scores[keep], on="resume_id", how="inner", validate="one_to_one")
    if m.empty:
        raise ValueError("no resume_id in common between the profiles and the scores")
    ok = m[score_col].notna() & np.isfinite(m[score_col].astype(float))
    if "parse_ok" in m.columns:
        ok &= m["parse_ok"].astype(bool)
    excluded = m.loc[~ok, "resume_id"].tolist()
    if excluded:
        warnings.warn(f"{len(excluded)} of {len(m)} résumés have no valid score (e.g. {excluded[:3]}); "
                      f"they are excluded, not scored 0", stacklevel=2)
    m = m[ok].sort_values("resume_id", kind="stable").reset_index(drop=True)
    s = m[score_col].astype(float)
    m["score_centred"] = s - m.groupby("ad_id")[score_col].transform("mean") if within == "ad" else s
    k = int(round(rate * len(m)))
    order = np.argsort(-m["score_centred"].to_numpy(), kind="stable")
    cb = np.zeros(len(m), dtype=int)
    cb[order[:k]] = 1
    m["callback_screener"] = cb
    return Callbacks(m, tuple(excluded), rate, within)


def gap_table(merged: pd.DataFrame, label: str, *, outcomes: dict[str, str] | None = None,
              cluster: str | None = "ad_id") -> pd.DataFrame:
    """Race and sex gaps (x1 − x0, in percentage points) of each outcome, with cluster-robust CIs.

    ``outcomes``: source label -> 0/1 column; default the recruiters' ``call`` and the
    screener's ``callback_screener`` (labelled ``label``). A third block, ``label − recruiters``,
    is the difference of the two gaps on the same résumés (outcome: screener callback −
    recruiter callback), so its CI accounts for the pairing. Intervals are 95%, cluster-robust
    by ``cluster`` (HC0 when ``cluster`` is None).

    Parameters
    ----------
    merged : pandas.DataFrame
        :attr:`Callbacks.table`.
    label : str
        The screener's name in the table.
    outcomes : dict, optional
        Source label -> 0/1 column.
    cluster : str or None
        The cluster column.

    Returns
    -------
    pandas.DataFrame
        One row per attribute and source.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> merged = bm.assign(callback_screener=(np.arange(len(bm)) % 12 == 0).astype(int))
    >>> gap_table(merged, "every 12th")["source"].unique().tolist()
    ['recruiters (B&M callbacks, 2001-02)', 'every 12th', 'every 12th minus recruiters']
    """
    outcomes = outcomes or {RECRUITERS: "call", label: "callback_screener"}
    d = merged.copy()
    srcs = list(outcomes.items())
    if len(srcs) == 2:
        (_, a), (lab_b, b) = srcs[0], srcs[1]
        d["_diff"] = d[b].astype(float) - d[a].astype(float)
        srcs.append((f"{lab_b} minus recruiters", "_diff"))
    rows = []
    for attr, (x0, x1) in CONTRASTS.items():
        for src, col in srcs:
            if col == "_diff":
                c = contrast(d, attr, outcome=col, reference=x0, cluster=cluster).loc[x1]
                r0 = r1 = np.nan
            else:
                t = callback_rates(d, attr, outcome=col, reference=x0, cluster=cluster)
                c, r0, r1 = t.loc[x1], t.loc[x0, "rate"], t.loc[x1, "rate"]
            rows.append({"attribute": attr, "contrast": f"{x1} vs {x0}", "source": src, "n": len(d),
                         "rate_x0_pct": 100 * r0, "rate_x1_pct": 100 * r1,
                         "gap_pp": 100 * c["difference"], "gap_ci_low_pp": 100 * c["difference_ci_low"],
                         "gap_ci_high_pp": 100 * c["difference_ci_high"], "p_value": c["p_value"],
                         "ratio": c["ratio"] if col != "_diff" else np.nan,
                         "ratio_ci_low": c["ratio_ci_low"] if col != "_diff" else np.nan,
                         "ratio_ci_high": c["ratio_ci_high"] if col != "_diff" else np.nan})
    return pd.DataFrame(rows)


def score_gaps(merged: pd.DataFrame, label: str, *, score_col: str = "score", cluster: str | None = "ad_id") -> pd.DataFrame:
    """Mean-score gaps (x1 − x0, score points) by race and sex, before any callback cut.

    Parameters
    ----------
    merged : pandas.DataFrame
        Résumés with their scores.
    label : str
        The screener's name in the table.
    score_col : str
        The score column.
    cluster : str or None
        The cluster column.

    Returns
    -------
    pandas.DataFrame
        One row per attribute: ``score_gap`` with its CI and p-value.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> t = score_gaps(bm.assign(score=bm["years_exp"]), "years of experience")
    >>> t["contrast"].tolist()
    ['White vs Black', 'M vs F']
    """
    rows = []
    for attr, (x0, x1) in CONTRASTS.items():
        c = contrast(merged, attr, outcome=score_col, reference=x0, cluster=cluster).loc[x1]
        rows.append({"attribute": attr, "contrast": f"{x1} vs {x0}", "source": label,
                     "score_gap": c["difference"], "ci_low": c["difference_ci_low"], "ci_high": c["difference_ci_high"],
                     "p_value": c["p_value"], "n": len(merged)})
    return pd.DataFrame(rows)


def compare_screener(df: pd.DataFrame, scores: pd.DataFrame, label: str | None = None, *,
                     rate: float = STUDY_CALLBACK_RATE, within: str = "ad") -> tuple[pd.DataFrame, Callbacks]:
    """``(gaps, callbacks)``: :func:`gap_table` for one screener's scores, and its
    :class:`Callbacks` (the joined rows and the excluded résumés).

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés.
    scores : pandas.DataFrame
        One screener's scores.
    label : str, optional
        Its name in the table (default: the name ``scores`` gives in ``screener``).
    rate : float
        The share called back.
    within : {"ad", "all"}
        Where the cut is made.

    Returns
    -------
    gaps : pandas.DataFrame
        :func:`gap_table`.
    callbacks : Callbacks
        The joined rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> by_id = pd.DataFrame({"resume_id": bm["resume_id"], "score": bm["n_jobs"], "parse_ok": True})
    >>> gaps, callbacks = compare_screener(bm, by_id, "number of jobs")
    >>> len(gaps), len(callbacks.table)
    (6, 4870)
    """
    if label is None:
        sid = scores["screener"].iloc[0] if "screener" in scores.columns else "screener"
        model = scores["model"].iloc[0] if "model" in scores.columns else ""
        label = f"{sid} ({model}), ours" if model else f"{sid}, ours"
    callbacks = scores_to_callbacks(df, scores, rate=rate, within=within)
    return gap_table(callbacks.table, label), callbacks
