"""The optional leakage section of an audit report: Beyond the Name's Tasks 1-3, same screener.

:func:`leakage_judge` turns the audited screener into a judge (a generative screener answers
the tasks' JSON prompts; an embedding screener becomes the calibrated embedding judge) and
refuses, in one line and before any work, a screener that can do neither (the synthetic
screener). :func:`leakage_section` runs the three tasks on the factorial corpus
(:func:`corpus`: all 20 bases, or the first ``bases`` of them) through the score cache, so an interrupted run asks
again only what it had not stored, and returns the report's :class:`~popresume.audit.report_model.Leakage` section: the
headline quantities of the paper beside ours, the Task 2 selection-rate ratios, the Task 3
score differences, the Top-Score Rate both ways, counts and timings. Every CI is a
cluster bootstrap over base résumés (:mod:`popresume.leakage.metrics`).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import pandas as pd

from popresume.audit.report_model import Leakage, TaskCount
from popresume.leakage import metrics as leakage_metrics
from popresume.leakage.corpus import build_corpus, job_description
from popresume.leakage.embedding_backend import EmbeddingJudge
from popresume.leakage.tasks import REGIMES, TASKS, as_judge, run_task, task_items
from popresume.screeners import open_cache

SOURCE = ("ours: Beyond the Name's Tasks 1-3 on this project's 620 factorial résumés, asked of the audited "
          "screener; cluster-bootstrap CIs over base résumés")
PUBLISHED_SOURCE = "Beyond the Name, Sec. 4 (nine open-weight LLMs; published numbers)"


def leakage_judge(screener: Any):
    """The judge of ``screener`` for Tasks 1-3; ``ValueError`` (one line) when it can run none."""
    try:
        judge = as_judge(screener)
    except ValueError as e:
        raise ValueError(f"--leakage: {e}") from None
    missing = [t for t in TASKS if not judge.supports(t)]
    if missing:
        raise ValueError(f"--leakage: the judge {judge.judge_id!r} cannot run Task(s) {missing}")
    return judge


def corpus(bases: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The variants and omission baselines, restricted to the first ``bases`` base résumés."""
    variants, baselines = build_corpus()
    if bases is not None:
        order = list(dict.fromkeys(variants["base_id"]))
        if not 1 <= bases <= len(order):
            raise ValueError(f"--leakage-bases must be between 1 and {len(order)}, got {bases}")
        keep = set(order[:bases])
        variants = variants[variants["base_id"].isin(keep)].reset_index(drop=True)
        baselines = baselines[baselines["base_id"].isin(keep)].reset_index(drop=True)
    return variants, baselines


def n_requests(variants: pd.DataFrame, *, regimes=REGIMES) -> int:
    """How many prompts the three tasks ask of ``variants`` (Task 2: every variant × regime × order)."""
    return len(variants) * (2 + 2 * len(tuple(regimes)))


def leakage_section(judge: Any, variants: pd.DataFrame, baselines: pd.DataFrame, *, cache: Any = None,
                    n_boot: int = 500, seed: int = 0, progress: bool = False,
                    echo: Callable[[str], None] = print) -> Leakage:
    """Run Tasks 1-3 on ``variants`` (and their ``baselines``, from :func:`corpus`) with
    ``judge`` and return the report's :class:`~popresume.audit.report_model.Leakage` section
    (its tables as records). ``cache``: as for :func:`popresume.screeners.score_run`
    (default: the score cache)."""
    store, own = open_cache(cache)
    try:
        return _section(judge, variants, baselines, store, n_boot=n_boot, seed=seed, progress=progress, echo=echo)
    finally:
        if own:
            store.close()


def _section(judge, variants, baselines, cache, *, n_boot, seed, progress, echo) -> Leakage:
    if isinstance(judge, EmbeddingJudge):
        # the embedding judge sets its thresholds on the cue-free omission baselines (no labels)
        judge.calibrate(baselines["text"].tolist(), [job_description(o) for o in baselines["occupation"]])
    replies, timings = {}, {}
    for task in TASKS:
        t = time.perf_counter()
        items = task_items(task, variants, baselines)
        replies[task] = run_task(task, items, judge, cache=cache, progress=progress)
        timings[f"task{task}_s"] = time.perf_counter() - t
        bad = int((~replies[task]["parse_ok"]).sum())
        echo(f"leakage Task {task}: {len(replies[task]):,} replies, {bad:,} outside the schema")
    t = time.perf_counter()
    kw = {"n_boot": n_boot, "seed": seed}
    for task, r in replies.items():
        if not r["parse_ok"].any():
            raise ValueError(f"--leakage: the judge {judge.judge_id!r} gave no valid Task {task} reply "
                             f"(first raw reply: {str(r['raw'].iloc[0])[:200]!r})")
    t1 = leakage_metrics.task1_metrics(replies[1], **kw)
    t2 = leakage_metrics.task2_metrics(replies[2], **kw)
    ratios = leakage_metrics.selection_rate_ratios(replies[2], **kw)
    diffs = leakage_metrics.score_differences(replies[3], **kw)
    top = leakage_metrics.top_score_rates_both(replies[3], **kw)
    head = leakage_metrics.headline_table(t1, t2, ratios, diffs, judge=judge.judge_id)
    timings["metrics_s"] = time.perf_counter() - t

    def records(df: pd.DataFrame, cols) -> list[dict]:
        return df[[c for c in cols if c in df.columns]].to_dict("records")

    return Leakage(
        judge=judge.judge_id,
        n_boot=int(n_boot),
        bases=int(variants["base_id"].nunique()),
        variants=int(len(variants)),
        source=SOURCE,
        published_source=PUBLISHED_SOURCE,
        headline=records(head, ["quantity", "published", "ours", "ours_ci_low", "ours_ci_high", "note"]),
        task1=records(t1, ["tier", "metric", "estimate", "ci_low", "ci_high", "n", "n_clusters"]),
        task2=records(t2, ["regime", "metric", "estimate", "ci_low", "ci_high", "n", "n_clusters"]),
        selection_rate_ratios=records(ratios, ["regime", "condition", "ratio", "ci_low", "ci_high",
                                               "four_fifths_flag", "p_holm"]),
        score_differences=records(diffs, ["condition", "difference", "ci_low", "ci_high", "p_holm"]),
        top_score_rate=records(top, ["condition", "paper_per_base", "paper_ci_low", "paper_ci_high",
                                     "ours_per_variant", "ours_ci_low", "ours_ci_high", "variants_per_base"]),
        counts={f"task{t}": TaskCount(replies=int(len(r)), outside_schema=int((~r["parse_ok"]).sum()))
                for t, r in replies.items()},
        timings=timings,
    )
