"""``popresume leakage``: build the "Beyond the Name" corpus, run a task, compute its metrics.

    popresume leakage build [--out DIR]
    popresume leakage run --task 1 [--backend embedding|hf|openai:MODEL@URL] [--reps 1]
                          [--regime Forbidden ...] [--limit N] [--out FILE]
    popresume leakage metrics REPLIES --task 1 [--n-boot 2000] [--out FILE]
"""

from __future__ import annotations

import time
from pathlib import Path

import click
import pandas as pd

from popresume.cli._errors import SEED, OutDir, OutPath
from popresume.io import atomic_path, write_parquet, write_table
from popresume.leakage import metrics as leakage_metrics
from popresume.leakage.corpus import build_corpus, criteria_coverage, job_description
from popresume.leakage.tasks import REGIMES, ReplyCache, get_judge, run_task, task_items
from popresume.paths import cache_path


def _default_dir() -> Path:
    return cache_path("leakage", "x").parent


@click.group(name="leakage")
def command():
    """The leakage audit of "Beyond the Name" (620 variants, Tasks 1-3)."""


@command.command("build")
@click.option("--out", "out_dir", type=OutDir(path_type=Path), default=None,
              help="folder for variants.parquet and baselines.parquet (default: _cache/leakage)")
def build(out_dir):
    """Build and check the corpus (raises on any broken invariant)."""
    out_dir = out_dir or _default_dir()
    variants, baselines = build_corpus()
    cov = criteria_coverage()
    write_parquet(variants, out_dir / "variants.parquet")
    write_parquet(baselines, out_dir / "baselines.parquet")
    click.echo(f"{len(variants)} variants from {variants['base_id'].nunique()} bases, {len(baselines)} omission "
               f"baselines -> {out_dir}")
    click.echo(f"desirable criteria met per base: {cov['desirable_ratio'].min():.0%}-{cov['desirable_ratio'].max():.0%}; "
               f"mandatory: {(cov['mandatory_met'] == cov['mandatory_total']).mean():.0%} of bases meet all")


@command.command("run")
@click.option("--task", type=click.IntRange(1, 3), required=True)
@click.option("--backend", default="embedding", show_default=True,
              help="'embedding' (calibrated on the omission baselines), 'hf' or 'openai:MODEL@URL'")
@click.option("--reps", type=click.IntRange(min=1), default=1, show_default=True, help="repetitions per prompt")
@click.option("--regime", "regimes", multiple=True, type=click.Choice(["Forbidden", "Neutral", "Encouraged"]),
              help="Task 2 verdict regimes (default: all three)")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="only the first N variants (smoke runs)")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="reply cache (SQLite; default _cache/leakage/replies.sqlite)")
@click.option("--out", type=OutPath((".parquet", ".csv"), what="replies table", path_type=Path), default=None,
              help="replies table (.parquet/.csv; default _cache/leakage/task<N>_<backend>.parquet)")
@click.option("--progress/--no-progress", default=True)
def run(task, backend, reps, regimes, limit, cache, out, progress):
    """Run one task through a backend; every reply (valid or not) is written."""
    variants, baselines = build_corpus()
    if limit:
        variants = variants.head(limit)
    judge = get_judge(backend)
    if backend == "embedding" or backend.startswith("embedding:"):
        judge.calibrate(baselines["text"].tolist(), [job_description(o) for o in baselines["occupation"]])
    items = task_items(task, variants, baselines, regimes=regimes or REGIMES)
    store = ReplyCache(cache or _default_dir() / "replies.sqlite")
    t0 = time.perf_counter()
    replies = run_task(task, items, judge, repetitions=reps, cache=store, progress=progress)
    safe = backend.replace(":", "_").replace("/", "_").replace("@", "_")
    out = out or _default_dir() / f"task{task}_{safe}.parquet"
    if out.suffix == ".csv":
        with atomic_path(out, ".csv") as tmp:
            replies.to_csv(tmp, index=False)
    else:
        write_parquet(replies, out)
    click.echo(f"Task {task}: {len(replies)} replies ({(~replies['parse_ok']).sum()} outside the schema) in "
               f"{time.perf_counter() - t0:.1f} s -> {out}")


@command.command("metrics")
@click.argument("replies", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--task", type=click.IntRange(1, 3), required=True)
@click.option("--n-boot", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--out", type=OutPath((".csv", ".json", ".parquet"), what="metrics table", path_type=Path),
              default=None, help="write the main table (.csv/.json/.parquet); printed otherwise")
def metrics(replies, task, n_boot, seed, out):
    """Metrics of a replies table with cluster-bootstrap CIs (clusters = base résumés)."""
    r = pd.read_parquet(replies) if replies.suffix == ".parquet" else pd.read_csv(replies)
    kw = {"n_boot": n_boot, "seed": seed}
    if task == 1:
        tables = {"task1": leakage_metrics.task1_metrics(r, **kw)}
    elif task == 2:
        tables = {"task2": leakage_metrics.task2_metrics(r, **kw), "selection_rate_ratios": leakage_metrics.selection_rate_ratios(r, **kw)}
    else:
        tables = {"task3": leakage_metrics.task3_metrics(r, **kw), "score_differences": leakage_metrics.score_differences(r, **kw),
                  "shortlist_ratios": leakage_metrics.shortlist_ratios(r, **kw), "top_score_rate": leakage_metrics.top_score_rate(r, **kw)}
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        for name, t in tables.items():
            click.echo(f"\n== {name}")
            click.echo(t.drop(columns=["judge"], errors="ignore").round(4).to_string(index=False))
    if out is not None:
        main = pd.concat([t.assign(table=k) for k, t in tables.items()], ignore_index=True)
        write_table(main.reset_index(drop=True), out)
        click.echo(f"-> {out}")
