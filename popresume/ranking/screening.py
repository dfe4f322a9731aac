"""Our screeners on a ranking task: score each shown résumé, rank the run by the scores.

The project's screener protocol scores one (job description, résumé) pair at a time, so a
screener "ranks" the k résumés of a run by scoring each of them and sorting. It never sees
the other résumés or the order shown, so it cannot favour a position; only ties can (and
ties at the top are broken at random, seeded, never by position). A résumé whose score
failed to parse gets no rank (``found`` False), as under the ``"unranked"`` parse rule.

The résumé texts are the ones the recorded runs showed (``resumes_shown.json``), with the
same names in the same order.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.io import read_parquet
from popresume.paths import data_path
from popresume.ranking.bloomberg import load_resumes_shown
from popresume.schema import NOT_CARDED_NO_CARD
from popresume.screeners import score_run
from popresume.screeners.validity import card_path_for, read_card


def sample_runs(long: pd.DataFrame, *, n_per_job: int, model: str, seed: int = 0) -> pd.DataFrame:
    """The long rows of ``n_per_job`` runs per job of ``model``'s run sets (sampled with ``seed``)."""
    require_columns(long, ["model", "job", "run"], "ranking table")
    sub = long[long["model"] == model]
    if sub.empty:
        raise ValueError(f"no runs of model {model!r}; models: {sorted(long['model'].unique())}")
    runs = sub[["job", "run"]].drop_duplicates()
    picked = runs.sample(frac=1.0, random_state=seed).groupby("job", sort=True).head(int(n_per_job))
    return sub.merge(picked, on=["job", "run"]).sort_values(["job", "run", "position"]).reset_index(drop=True)


def resumes_to_score(long: pd.DataFrame, shown: Mapping[str, Mapping]) -> tuple[pd.DataFrame, dict[str, str]]:
    """The distinct (job, résumé text, name) of ``long`` as the screeners' résumé table
    (``resume_id, occupation, text``) and the job descriptions keyed by occupation (job)."""
    require_columns(long, ["job", "shown_text", "name"], "ranking table")
    u = long[["job", "shown_text", "name"]].drop_duplicates().reset_index(drop=True)
    missing = sorted(set(u["job"]) - set(shown))
    if missing:
        raise ValueError(f"no résumé texts for job {missing[0]!r}; jobs: {sorted(shown)}")
    texts = []
    for job, t, name in u.itertuples(index=False):
        resumes = shown[job]["resumes"]
        if not 0 <= int(t) < len(resumes):
            raise ValueError(f"job {job!r}: résumé text {t} out of range (0..{len(resumes) - 1})")
        texts.append(resumes[int(t)].format(name=name))
    out = pd.DataFrame({"resume_id": resume_ids(u), "occupation": u["job"], "text": texts})
    return out, {job: v["jd"] for job, v in shown.items()}


def resume_ids(df: pd.DataFrame) -> pd.Series:
    """The résumé id of each (job, shown_text, name) row: ``"job|text|name"``."""
    return df["job"].astype(str) + "|" + df["shown_text"].astype(int).astype(str) + "|" + df["name"].astype(str)


def rank_by_scores(long: pd.DataFrame, scores: pd.DataFrame, label: str, *, seed: int = 0) -> pd.DataFrame:
    """``long``'s runs re-ranked by a screener: the highest score is rank 1. ``model`` becomes
    ``label``; ``score`` is added; failed scores are unranked (``found`` False, rank NaN).
    Ties are broken by a seeded random draw, so the order shown cannot decide them."""
    require_columns(scores, ["resume_id", "score", "parse_ok"], "score table")
    require_columns(long, ["job", "run", "position", "shown_text", "name", "demo"], "ranking table")
    s = scores.set_index("resume_id")
    ids = resume_ids(long)
    if not ids.isin(s.index).all():
        raise ValueError(f"score table has no score for résumé {ids[~ids.isin(s.index)].iloc[0]!r}")
    out = long.drop(columns=[c for c in ("rank", "found", "rule") if c in long.columns]).copy()
    ok = s["parse_ok"].reindex(ids).to_numpy(bool)
    out["score"] = np.where(ok, s["score"].reindex(ids).to_numpy(float), np.nan)
    out["found"] = ok
    out["_tie"] = np.random.default_rng(seed).random(len(out))
    out = out.sort_values(["job", "run", "score", "_tie"], ascending=[True, True, False, True], na_position="last")
    out["rank"] = out.groupby(["job", "run"]).cumcount() + 1.0
    out.loc[~out["found"], "rank"] = np.nan
    out["tied_top"] = out.groupby(["job", "run"])["score"].transform(lambda x: (x == x.max()).sum() > 1)
    out["model"] = label
    return out.drop(columns="_tie").sort_values(["job", "run", "position"]).reset_index(drop=True)


def rank_with_screener(long: pd.DataFrame, shown: Mapping[str, Mapping], screener, label: str, *, cache=None,
                       progress: bool = False, seed: int = 0):
    """Score every résumé of ``long``'s runs with ``screener`` (any spec or object of
    :func:`popresume.screeners.get_screener`) and rank each run by the scores. Returns the
    ranks and the :class:`popresume.screeners.ScoreRun` (its ``summary`` says how many
    scores came from the cache)."""
    resumes, jds = resumes_to_score(long, shown)
    run = score_run(screener, resumes, job_descriptions=jds, cache=cache, progress=progress)
    return rank_by_scores(long, run.table, label, seed=seed), run


#: the sets our screeners rank: this model's runs (both models' runs drew the same sets per run number)
RUN_SETS_OF = "gpt-3.5-turbo"
SCREENER_RUNS = "screener_runs.parquet"


def validity_of(spec: str, screener) -> tuple[str, str]:
    """The verdict of the screener's stored validity card (n=40, seed 0, looked up by the
    screener's identity, not by ``spec``) and where it came from; ``schema.NOT_CARDED_NO_CARD``
    when no card is stored (the gate is not run here). A card of the same weights made through another
    backend is not found this way: the shipped SmolLM2 runs carry the HF backend's card,
    attached by hand (data/README.md says so)."""
    path = card_path_for(screener, n=40, seed=0)
    if path.exists():
        return read_card(path)["verdict"], f"card {path.name} (n=40, seed 0)"

    return NOT_CARDED_NO_CARD, "no stored card: run popresume validate"


def rank_live(long: pd.DataFrame, screener, spec: str, *, n_per_job: int, seed: int = 0, cache=None,
              progress: bool = False):
    """Rank ``n_per_job`` run sets per job with ``screener``; adds ``screener_spec``,
    ``validity`` and ``validity_card``. Returns the ranks and the scoring run
    (:func:`rank_with_screener`)."""
    label = f"{screener.screener_id} ({screener.model})"
    sets = sample_runs(long, n_per_job=n_per_job, model=RUN_SETS_OF, seed=seed)
    out, run = rank_with_screener(sets, load_resumes_shown(), screener, label, cache=cache, progress=progress,
                                  seed=seed)
    verdict, card = validity_of(spec, screener)
    return out.assign(screener_spec=spec, validity=verdict, validity_card=card), run


def load_screener_runs() -> pd.DataFrame:
    """Our screeners' recorded runs shipped in ``data/ranking/screener_runs.parquet``."""
    return read_parquet(data_path("ranking", SCREENER_RUNS), what=f"data/ranking/{SCREENER_RUNS}",
                        columns=["model", "job", "run", "position", "name", "demo", "rank", "found", "score",
                                 "validity"])


def screener_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per screener: runs, résumés scored, failed, tied tops, and its validity verdict."""
    require_columns(runs, ["model", "job", "run", "found", "validity"], "screener runs")
    rows = []
    for m, s in runs.groupby("model", sort=False):
        rows.append({"screener": m, "spec": s["screener_spec"].iloc[0] if "screener_spec" in s else None,
                     "runs": int(s[["job", "run"]].drop_duplicates().shape[0]), "resumes": len(s),
                     "failed": int((~s["found"].astype(bool)).sum()),
                     "runs_tied_top": int(s.loc[s["tied_top"], ["job", "run"]].drop_duplicates().shape[0])
                     if "tied_top" in s else None,
                     "validity": s["validity"].iloc[0],
                     "validity_card": s["validity_card"].iloc[0] if "validity_card" in s else None})
    return pd.DataFrame(rows)


__all__ = ["RUN_SETS_OF", "SCREENER_RUNS", "validity_of", "rank_live", "load_screener_runs", "screener_summary",
           "sample_runs", "resumes_to_score", "resume_ids", "rank_by_scores", "rank_with_screener"]
