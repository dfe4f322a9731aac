"""Loaders of the shipped records (``data/decisions/``, built by scripts/build_decisions_data.py).

One loader per source, each returning the tidy table of :mod:`popresume.decisions.schema`;
:func:`load` picks one by name. Bloomberg's rankings and Bertrand & Mullainathan's callbacks
join through small adapters; their own modules (``popresume.ranking.bloomberg``,
``popresume.correspondence.data``) keep what is specific to them.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd

from popresume.decisions.schema import DECISION_SOURCES, LL144_COLUMNS, SOURCES, tidy
from popresume.paths import data_path

#: re-cinq/hiring-bias, data CC BY 4.0: the one résumé every variant is made from.
RECINQ_ITEM = "resume_base"
RECINQ_SCALE = "1-10"
#: Sex and race/ethnicity of re-cinq's six first-name variants. The source labels the axis
#: "gender and ethnicity signal (Western, Arabic, East Asian, African, Hispanic)" (README);
#: the per-name labels are ours from that list. "Wei" is used for both sexes: left unlabelled.
RECINQ_NAMES = {
    "firstName_james-smith": ("James Smith", "male", "Western"),
    "firstName_sarah-smith": ("Sarah Smith", "female", "Western"),
    "firstName_aisha-okonkwo": ("Aisha Okonkwo", "female", "African"),
    "firstName_maria-rodriguez": ("Maria Rodriguez", "female", "Hispanic"),
    "firstName_mohammed-al-said": ("Mohammed Al-Said", "male", "Arabic"),
    "firstName_wei-chen": ("Wei Chen", pd.NA, "East Asian"),
}
#: Derbyshire's score: the sum of four subscores, each 0-25 (simulation.py's prompt).
DERBYSHIRE_SUBSCORES = ("Experience", "Skills", "Achievements", "Resume")
DERBYSHIRE_SCALE = "0-100 (sum of four 0-25 subscores)"
#: 36 names × 9 résumés × 9 job ads: one repetition of the crossed design.
DERBYSHIRE_DESIGN = 36 * 9 * 9
#: 36 names × 9 job ads × the 3 résumés of the ad's own industry.
DERBYSHIRE_OWN = 36 * 9 * 3
#: Rows each model was asked for (simulation.py's loops; the script drops a reply it cannot
#: parse): GPT-3.5 one repetition of the full cross; GPT-5.1 three of the own-industry part
#: and three of the full cross.
DERBYSHIRE_REQUESTED = {"gpt-3.5-turbo-0125": DERBYSHIRE_DESIGN, "gpt-5.1-2025-11-13": 3 * DERBYSHIRE_OWN + 3 * DERBYSHIRE_DESIGN}
WEBSTER_SCALE = "0-100"


def _read(name: str) -> pd.DataFrame:
    return pd.read_parquet(data_path("decisions", name))


@lru_cache(maxsize=None)
def _recinq_versions() -> dict[str, str]:
    m = pd.read_csv(data_path("decisions", "recinq_models.csv"))
    return dict(zip(m["slot"], m["provider_model"]))


def load_recinq() -> pd.DataFrame:
    """re-cinq/hiring-bias @ 7559ef3: one row per raw reply (32,215), score 1-10, the
    interview recommendation and the justification (cut to 400 characters).

    Returns
    -------
    pandas.DataFrame
        One row per reply, in the columns of :data:`popresume.decisions.schema.COLUMNS`.

    Examples
    --------
    >>> d = load_recinq()
    >>> len(d), d["model"].nunique(), d["outcome"].agg(["min", "max"]).tolist()
    (32215, 11, [1.0, 10.0])
    """
    raw = _read("recinq.parquet")
    names = raw["variant"].map(lambda v: RECINQ_NAMES.get(v, (pd.NA, pd.NA, pd.NA)))
    out = pd.DataFrame({
        "source": "recinq", "model": raw["model"], "model_version": raw["model"].map(_recinq_versions()),
        "date": raw["timestamp"].str[:10], "job": raw["jd"], "item": RECINQ_ITEM, "variant": raw["variant"],
        "signal": raw["variant"].str.split("_").str[0],
        "name": names.str[0], "sex": names.str[1], "race": names.str[2],
        "run": raw["run"].astype(str), "outcome": raw["score"], "outcome_scale": RECINQ_SCALE,
        "decision": raw["recommend_interview"], "reply": raw["justification"]})
    return tidy(out, "decisions/recinq.parquet")


def load_derbyshire() -> pd.DataFrame:
    """jderbysh/AIHiringBias @ d4c3499: GPT-3.5-turbo-0125 (2,761 rows, one repetition of the
    2,916-row cross with 155 replies missing) and GPT-5.1-2025-11-13 (2,916 rows: three
    repetitions of the own-industry part; 8,748: three of the full cross); outcome = the sum
    of the four 0-25 subscores.

    Returns
    -------
    pandas.DataFrame
        The replies of both models; ``outcome`` is the 0-100 total.

    Examples
    --------
    >>> sorted(load_derbyshire()["model"].unique())
    ['gpt-3.5-turbo-0125', 'gpt-5.1-2025-11-13']
    """
    raw = _read("derbyshire.parquet")
    run = pd.Series("1", index=raw.index)
    # the 5.1 files are two sessions, each written repetition by repetition: results1 is
    # three repetitions of the own-industry postings only (972 = 36 names × 9 jobs × the 3
    # résumés of the job's industry; runs 1-3), results2 three of the full cross (2,916; runs 4-6)
    first = raw["file"].eq("5.1_evaluation_results1.csv")
    second = raw["file"].eq("5.1_evaluation_results2.csv")
    run[first] = (raw.loc[first, "row"] // DERBYSHIRE_OWN + 1).astype(str)
    run[second] = (raw.loc[second, "row"] // DERBYSHIRE_DESIGN + 4).astype(str)
    out = pd.DataFrame({
        "source": "derbyshire", "model": raw["model"], "model_version": raw["model"], "date": raw["added"],
        "job": raw["job_file"].str.removesuffix(".txt"), "item": raw["resume_file"].str.removesuffix(".txt"),
        "variant": pd.NA, "signal": "name", "name": raw["name"], "sex": raw["gender"], "race": raw["race"],
        "run": run, "outcome": raw[list(DERBYSHIRE_SUBSCORES)].sum(axis=1).astype(float),
        "outcome_scale": DERBYSHIRE_SCALE})
    return tidy(out, "decisions/derbyshire.parquet")


def _webster_model(label: pd.Series) -> pd.Series:
    """'ChatGPT-fast' and 'ChatGPT Fast' (the two files' spellings) -> 'ChatGPT Fast'."""
    return label.str.replace(r"[\s\-]+", " ", regex=True).str.strip().str.title().str.replace("Chatgpt", "ChatGPT") \
        .str.replace("Deepseek", "DeepSeek").str.replace("Lechat", "LeChat")


def load_webster() -> pd.DataFrame:
    """kevinwebster/Illusion_of_Neutrality @ 68514f6: Experiment 1 (3,042 scores: 24 names and
    a redacted résumé × 3 jobs × 13 chat-app settings) and Experiment 2 (702: résumé type ×
    job type; 2b adds a waiter's résumé, plain or keyword-stuffed). The separate
    ``Waiter & Keyword Stuffed.csv`` repeats 156 of Experiment 2b's rows and is not loaded twice.

    Returns
    -------
    pandas.DataFrame
        Both experiments' scores, one row per score.

    Examples
    --------
    >>> d = load_webster()
    >>> len(d), sorted(d["job"].unique())
    (3744, ['Finance', 'Fraud', 'HR'])
    """
    raw = _read("webster.parquet")
    raw = raw[raw["experiment"] != "keyword"]
    e1 = raw["experiment"].eq("exp1_names")
    redacted = e1 & raw["initials"].eq("Redacted")
    keyword = raw["resume"].eq("Keyword")
    variant = pd.Series(pd.NA, index=raw.index, dtype="string")
    variant[redacted] = "redacted"
    variant[~e1] = raw.loc[~e1, "experiment"].str.removeprefix("exp2_").radd("exp")
    variant[keyword] = "keyword_stuffed"
    variant[~e1 & raw["resume"].eq("Waiter")] = "plain"
    signal = pd.Series("name", index=raw.index, dtype="string")
    signal[redacted] = "redaction"
    signal[~e1] = "fit"
    signal[~e1 & raw["resume"].isin(["Waiter", "Keyword"])] = "keyword"
    item = raw["resume"].where(~keyword, "Waiter")
    out = pd.DataFrame({
        "source": "webster", "model": _webster_model(raw["model"]), "job": raw["job"], "item": item,
        "variant": variant, "signal": signal, "name": raw["initials"].where(e1 & ~redacted),
        "sex": raw["gender"].str.lower(), "race": raw["race"], "run": raw["run"], "outcome": raw["score"],
        "outcome_scale": WEBSTER_SCALE})
    return tidy(out, "decisions/webster.parquet")


def load_aclu_ll144() -> pd.DataFrame:
    """aclu-national/auditing-the-audits-facct-2025 @ cef7c27 (CC BY-NC 4.0, non-commercial):
    the 4,507 published category rows of 116 LL144 bias audits, laid out as :data:`LL144_COLUMNS` lists.

    Returns
    -------
    pandas.DataFrame
        One row per published category of an audit.

    Examples
    --------
    >>> t = load_aclu_ll144()
    >>> len(t), t["audit_id"].nunique()
    (4507, 116)
    """
    raw = _read("aclu_ll144.parquet")
    return raw[list(LL144_COLUMNS)].reset_index(drop=True)


def load_bloomberg() -> pd.DataFrame:
    """Bloomberg (2024) rankings through :func:`popresume.ranking.bloomberg.load_bloomberg_ranks`:
    one row per run × shown résumé, outcome = the rank (1 = best of 8).

    Returns
    -------
    pandas.DataFrame
        The ranks, ``outcome`` from 1 (best) to 8.

    Examples
    --------
    >>> ranks = load_bloomberg()
    >>> len(ranks), int(ranks["outcome"].min()), int(ranks["outcome"].max())
    (64000, 1, 8)
    """
    from popresume.ranking import bloomberg

    raw = bloomberg.load_bloomberg_ranks()
    out = pd.DataFrame({
        "source": "bloomberg", "model": raw["model"], "model_version": raw["model"],
        "job": raw["job"], "item": raw["resume"].astype(str), "signal": "name", "name": raw["name"],
        "sex": raw["gender"].map({"W": "female", "M": "male"}), "race": raw["race"].map(bloomberg.RACES),
        "run": raw["run"].str.removeprefix("run_"), "outcome": raw["rank"].astype(float),
        "outcome_scale": "rank 1-8 (1 = best)"})
    return tidy(out, "data/ranking/bloomberg_ranks.parquet")


def load_bertrand_mullainathan() -> pd.DataFrame:
    """Bertrand & Mullainathan (2004) callbacks through
    :func:`popresume.correspondence.data.load_bertrand_mullainathan`: one row per résumé sent,
    outcome = callback 0/1; the item is the ad's résumé quality arm.

    Returns
    -------
    pandas.DataFrame
        The résumés sent, ``outcome`` the callback (0 or 1).

    Examples
    --------
    >>> sent = load_bertrand_mullainathan()
    >>> len(sent), round(float(sent["outcome"].mean()), 3)  # the study's 8% callback rate
    (4870, 0.08)
    """
    from popresume.correspondence.data import load_bertrand_mullainathan as load_bm

    raw = load_bm()
    out = pd.DataFrame({
        "source": "bertrand_mullainathan", "model": "employers (Boston, Chicago 2001-02)", "date": "2001",
        "job": raw["ad_id"].astype(str), "item": raw["resume_id"], "variant": raw["quality"], "signal": "name",
        "name": raw["first_name"], "sex": raw["sex"].map({"F": "female", "M": "male"}), "race": raw["race"],
        "run": "1", "outcome": raw["call"].astype(float), "outcome_scale": "callback 0/1"})
    return tidy(out, "Bertrand & Mullainathan (openintro::labor_market_discrimination)")


LOADERS = {"recinq": load_recinq, "derbyshire": load_derbyshire, "webster": load_webster,
           "aclu_ll144": load_aclu_ll144, "bloomberg": load_bloomberg,
           "bertrand_mullainathan": load_bertrand_mullainathan}
assert tuple(LOADERS) == SOURCES


def check_source(source: str) -> str:
    if source not in LOADERS:
        raise ValueError(f"unknown decisions source {source!r}; use one of {list(LOADERS)}")
    return source


def load(source: str) -> pd.DataFrame:
    """The shipped record ``source`` (one of :data:`~popresume.decisions.schema.SOURCES`).

    Parameters
    ----------
    source : str
        The source's name.

    Returns
    -------
    pandas.DataFrame
        Its decisions (its published table for ``aclu_ll144``).

    Examples
    --------
    >>> len(load("webster"))
    3744
    >>> try:
    ...     load("nowhere")
    ... except ValueError as refused:
    ...     print(refused)  # doctest: +ELLIPSIS
    unknown decisions source 'nowhere'; use one of ['recinq', ...]
    """
    return LOADERS[check_source(source)]()


__all__ = ["load", "load_recinq", "load_derbyshire", "load_webster", "load_aclu_ll144", "load_bloomberg",
           "load_bertrand_mullainathan", "LOADERS", "DECISION_SOURCES", "check_source"]
