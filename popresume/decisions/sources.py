"""Loaders of the shipped records (``data/decisions/``, built by scripts/build_decisions_data.py).

One loader per source, each returning the tidy table of :mod:`popresume.decisions.schema`,
and one :class:`DecisionSource` record per source in :data:`RECORDS` (the one list of
sources): its loader, licence, reference groups, design keys, clustering unit and validity
contrasts, the fields :mod:`popresume.decisions.analyses` reads instead of a source's name.
:func:`load` reads one through its record. Bloomberg's rankings and Bertrand & Mullainathan's callbacks
join through small adapters; their own modules (``popresume.ranking.bloomberg``,
``popresume.correspondence.data``) keep what is specific to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Mapping

import pandas as pd

from popresume.correspondence.data import load_bertrand_mullainathan as load_bm
from popresume.decisions.schema import LL144_COLUMNS, tidy
from popresume.paths import data_path
from popresume.ranking import bloomberg

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
def _recinq_versions() -> Mapping[str, str]:
    m = pd.read_csv(data_path("decisions", "recinq_models.csv"))
    return MappingProxyType(dict(zip(m["slot"], m["provider_model"])))  # cached: read-only for every caller


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
    raw = load_bm()
    out = pd.DataFrame({
        "source": "bertrand_mullainathan", "model": "employers (Boston, Chicago 2001-02)", "date": "2001",
        "job": raw["ad_id"].astype(str), "item": raw["resume_id"], "variant": raw["quality"], "signal": "name",
        "name": raw["first_name"], "sex": raw["sex"].map({"F": "female", "M": "male"}), "race": raw["race"],
        "run": "1", "outcome": raw["call"].astype(float), "outcome_scale": "callback 0/1"})
    return tidy(out, "Bertrand & Mullainathan (openintro::labor_market_discrimination)")


# -- the records: one per source; the analyses read these fields, never a source's name ------
#: What a source's rows are: decisions in schema.COLUMNS, or published audit rows (LL144_COLUMNS).
DECISIONS = "decisions"
PUBLISHED_AUDITS = "published audits"


@dataclass(frozen=True)
class Contrast:
    """One validity contrast of a source's design, as :func:`popresume.decisions.analyses.clustered_effect` fits it.

    Parameters
    ----------
    rows : callable
        One model's rows -> the regression's rows, with the contrast's 0/1 column.
    term : str
        The name of that 0/1 column.
    cells : str or None
        The fixed effects' column (None: none).
    cluster : str
        The clustering column.
    cluster_label : str
        The clustering unit in words.
    arm_df : bool, default False
        A cluster-level contrast: t degrees of freedom from the arms' clusters.
    empty : str
        The reason printed when ``rows`` leaves nothing.

    Examples
    --------
    >>> c = record("webster").validity["job_fit"]
    >>> isinstance(c, Contrast), c.term
    (True, 'own')
    """

    rows: Callable[[pd.DataFrame], pd.DataFrame]
    term: str
    cells: str | None
    cluster: str
    cluster_label: str
    arm_df: bool = False
    empty: str = "no rows of the design"


@dataclass(frozen=True)
class DecisionSource:
    """Everything the analyses need to know about one record of decisions (docs/DESIGN.md §5).

    Parameters
    ----------
    name : str
        The ``source`` value of its rows.
    loader : callable
        Returns the tidy table (:func:`popresume.decisions.schema.tidy`), or the published audit
        rows where ``kind`` is :data:`PUBLISHED_AUDITS`.
    licence : str
        The data's licence, as its notice in ``data/decisions/`` states it.
    kind : str
        :data:`DECISIONS` or :data:`PUBLISHED_AUDITS`.
    reference : mapping
        Attribute -> reference groups, the first one present wins.
    rerun_keys : tuple of str or None
        The columns that identify one prompt (rows sharing them are reruns); None where runs
        are not repetitions of one prompt (no rerun spread).
    group_cells : tuple of str
        The columns of the cells group effects are compared within.
    cluster : str
        The clustering unit of group effects.
    group_effects : {"groups", "variants"}
        Groups of names against the reference group, or every variant against the baseline
        (one name per variant, clustered by posting).
    validity : mapping
        Contrast ("job_fit", "quality") -> :class:`Contrast`, or the reason it is not estimable.
    own_posting : callable or None
        Rows -> the boolean mask of rows scored against their own posting (the gate's spread
        rule); None: every row.
    design : callable or None
        Adds ``own``, ``strong`` and ``cell`` to a crossed résumé × posting design (the
        models' drift is compared on it).
    requested : mapping
        Model -> replies requested (the parse rate's denominator), where known.
    placebo : bool
        The record has placebo edits of the résumé (signal "placebo").
    keyword_job : str or None
        The posting whose plain and keyword-stuffed résumés are compared (competence).

    Examples
    --------
    >>> rec = record("recinq")
    >>> rec.name, rec.placebo, rec.cluster
    ('recinq', True, 'name')
    """

    name: str
    loader: Callable[[], pd.DataFrame]
    licence: str
    kind: str = DECISIONS
    reference: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: {"race": ("White_US", "White", "Western"), "sex": ("male",)})
    rerun_keys: tuple[str, ...] | None = ("model", "job", "item", "variant", "name")
    group_cells: tuple[str, ...] = ("item", "job", "run")
    cluster: str = "name"
    group_effects: str = "groups"
    validity: Mapping[str, Contrast | str] = field(default_factory=dict)
    own_posting: Callable[[pd.DataFrame], pd.Series] | None = None
    design: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    requested: Mapping[str, int] = field(default_factory=dict)
    placebo: bool = False
    keyword_job: str | None = None


#: Derbyshire's résumés are named resume<industry><k>; the source does not label their
#: quality. We read k = 2 as the weak one in every industry (spelling errors, the shortest,
#: an "objective" instead of a profile, under two years of experience) and k = 1, 3 as the
#: stronger two: an assumption stated wherever the contrast is shown.
DERBYSHIRE_WEAK = "2"


def derbyshire_design(df: pd.DataFrame) -> pd.DataFrame:
    """Derbyshire's crossed design: ``own`` (the posting's industry is the résumé's),
    ``strong`` (not the weak résumé, :data:`DERBYSHIRE_WEAK`) and ``cell`` (résumé × posting)."""
    d = df.copy()
    d["own"] = (d["job"].str[3] == d["item"].str[6]).astype(float)
    d["strong"] = (d["item"].str[7] != DERBYSHIRE_WEAK).astype(float)
    d["cell"] = d["item"] + "|" + d["job"]
    return d


def webster_fit(df: pd.DataFrame) -> pd.DataFrame:
    """Webster's Experiment 2a: a résumé type scored against its own and the other postings."""
    d = df[df["signal"].eq("fit") & df["variant"].eq("exp2a")].copy()
    d["own"] = (d["job"] == d["item"]).astype(float)
    d["cell"] = d["item"] + "|" + d["job"]
    return d


#: The coverage harness's settings of the validity contrasts (popresume.coverage.decisions).
DERBYSHIRE_SETTING = "Derbyshire 9 résumés x 9 postings x 36 names, job-fit heterogeneity by {}"
WEBSTER_SETTING = "Webster 2a: 3 résumés x 3 postings, 6/3 replies per cell"
#: (source, contrast) -> (calibrated, the harness rows (quantity, setting) that say so, why).
#: ``calibrated`` is True only where every harness row of the interval stays in its band;
#: tests/test_coverage_decisions.py checks this table against the harness. A contrast not
#: listed has no interval (the design lacks it). An auditor's own file is calibrated at its
#: own design when it is audited (popresume.coverage.decisions.design_calibration).
CALIBRATION = {
    ("derbyshire", "job_fit"): (
        False, (("validity job_fit CI (résumé clusters)", DERBYSHIRE_SETTING.format("résumé")),
                ("validity job_fit CI (résumé clusters)", DERBYSHIRE_SETTING.format("industry"))),
        "not calibrated for industries at large: where job fit varies industry by industry the 9 résumé clusters "
        "hold 3 independent units and the interval covered 0.79 (harness, 1,000 simulations); it covers "
        "at least 0.95 of the effect on résumés of these three industries (job fit varying résumé by résumé)"),
    ("derbyshire", "quality"): (
        True, (("validity quality CI (résumé clusters)", DERBYSHIRE_SETTING.format("résumé")),
               ("validity quality CI (résumé clusters)", DERBYSHIRE_SETTING.format("industry"))),
        "calibrated: t on min(G1, G0) − 1 df covered at least 0.95 on this design (harness)"),
    ("webster", "job_fit"): (
        True, (("validity job_fit CI (résumé x posting clusters)", WEBSTER_SETTING),),
        "calibrated: t on min(G1, G0) − 1 df covered at least 0.95 on this design (harness)"),
}

RECORDS: dict[str, DecisionSource] = {r.name: r for r in (
    DecisionSource(
        "recinq", load_recinq, "CC BY 4.0 (data), MIT (code)", group_effects="variants", placebo=True,
        validity={"job_fit": "one résumé and 17 postings, none marked as the résumé's own",
                  "quality": "one résumé: no quality levels"}),
    DecisionSource(
        "derbyshire", load_derbyshire, "MIT", requested=DERBYSHIRE_REQUESTED, design=derbyshire_design,
        own_posting=lambda d: derbyshire_design(d)["own"].eq(1),
        validity={"job_fit": Contrast(derbyshire_design, "own", "item", "item", "résumé"),
                  "quality": Contrast(lambda d: derbyshire_design(d).query("own == 1"), "strong", "job", "item",
                                      "résumé", arm_df=True)}),
    DecisionSource(
        "webster", load_webster, "MIT", keyword_job="Finance",
        validity={"job_fit": Contrast(webster_fit, "own", "item", "cell", "résumé × posting", arm_df=True,
                                      empty="no Experiment 2a rows"),
                  "quality": "no quality levels of a résumé for the same job"}),
    DecisionSource("aclu_ll144", load_aclu_ll144, "CC BY-NC 4.0 (non-commercial)", kind=PUBLISHED_AUDITS),
    DecisionSource(
        "bloomberg", load_bloomberg, "Apache-2.0 (Bloomberg)", rerun_keys=None, group_cells=("job", "run"),
        validity={"job_fit": "each job's résumés are written for it: no mismatched posting",
                  "quality": "the eight résumés of a job are equally qualified by design"}),
    DecisionSource(
        "bertrand_mullainathan", load_bertrand_mullainathan, "no separate data licence (openintro, GPL-3 package); cite the article", rerun_keys=None,
        group_cells=("job",),
        validity={"job_fit": "résumés were matched to the ads: no mismatched posting",
                  "quality": "employers' decisions, not a screener's: the gate does not apply"}),
)}
#: The sources, in the order the CLI runs them: the one list.
SOURCES = tuple(RECORDS)
#: Sources whose rows are decisions in schema.COLUMNS.
DECISION_SOURCES = tuple(k for k, r in RECORDS.items() if r.kind == DECISIONS)
#: A table that is not one of the shipped records (an auditor's own file): the defaults.
OWN_FILE = DecisionSource("own file", lambda: pd.DataFrame(), "the auditor's")


def record(source: str) -> DecisionSource:
    """The record of ``source``, or the defaults (:data:`OWN_FILE`) for a table of one's own."""
    return RECORDS.get(source, OWN_FILE)


def check_source(source: str) -> str:
    if source not in RECORDS:
        raise ValueError(f"unknown decisions source {source!r}; use one of {list(RECORDS)}")
    return source


def load(source: str) -> pd.DataFrame:
    """The shipped record ``source`` (one of :data:`SOURCES`), read by its record's loader.

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
    return RECORDS[check_source(source)].loader()


__all__ = ["load", "load_recinq", "load_derbyshire", "load_webster", "load_aclu_ll144", "load_bloomberg",
           "load_bertrand_mullainathan", "RECORDS", "SOURCES", "DECISION_SOURCES", "DecisionSource", "Contrast",
           "record", "check_source", "DECISIONS", "PUBLISHED_AUDITS"]
