"""``popresume correspondence``: Bertrand & Mullainathan (2004) reproduced, and screeners against its recruiters.

Writes into ``--out``: Table 1 recomputed and checked against the published numbers, callback
rates by race, sex and city with CIs, the name check (Appendix C.4 on B&M's 36 names), the
three designs, the estimator on B&M's callbacks, and for every ``--screener``: its scores on
the rendered résumés (all 4,870 by default; cached), its callbacks at the study's 8.05% rate,
and its race and sex gaps next to the recruiters' (``gaps.csv``, ``gaps.png``).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import click
import matplotlib
import pandas as pd

from popresume import correspondence as cr
from popresume.cli._errors import SEED, OutDir
from popresume.cli.estimate import estimator_options
from popresume.cli.score import parse_options
from popresume.io import write_figure, write_parquet, write_table
from popresume.plots.correspondence import plot_designs, plot_gaps, plot_table1
from popresume.screeners import get_screener

SOURCE = "ours, computed from openintro::labor_market_discrimination"


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_")[:80] or "screener"


def _save_fig(fig, path: Path) -> None:
    write_figure(fig, path, dpi=130)


def _study_tables(df, out: Path, n_boot: int, seed: int, variance: str) -> None:
    """Table 1 vs published, callback rates, name check, designs, the estimator on the callbacks."""
    t1 = cr.table1(df)
    check = cr.compare_table1(t1)
    click.echo(f"Table 1: {int(check['match'].sum())}/{len(check)} published numbers reproduced from the data")
    write_table(t1.assign(source=SOURCE), out / "table1.csv")
    write_table(check.set_index("sample"), out / "table1_vs_published.csv")
    _save_fig(plot_table1(t1, cr.PUBLISHED_TABLE1).figure, out / "table1.png")
    for by in ("race", "sex", "city"):
        write_table(cr.callback_rates(df, by).assign(source=SOURCE), out / f"callback_rates_{by}.csv")
    names = cr.name_check(df)
    write_table(names, out / "name_check.csv")
    write_table(cr.name_check_summary(names), out / "name_check_summary.csv")
    write_table(cr.DESIGNS, out / "designs.csv")
    _save_fig(plot_designs(), out / "designs.png")
    eff = cr.estimate_bm_effects(df, n_boot=n_boot, seed=seed, variance=variance)
    write_table(eff.assign(source="ours: estimate_pse on B&M's callbacks (recruiters)"), out / "bm_effects.csv")
    click.echo("estimator on B&M callbacks (White − Black, probability): "
               + ", ".join(f"{e} {eff.loc[e, 'estimate']:+.4f}" for e in ("TE", "NDE", "BIE")))


@click.command("correspondence")
@click.option("--screener", "specs", multiple=True, default=("embedding",), show_default=True,
              help="Screener spec, repeatable: embedding | embedding:PATH | hf | openai:MODEL@BASE_URL | a JSON dict.")
@click.option("--out", "out_dir", required=True, type=OutDir(), help="Output folder (created).")
@click.option("-n", "--n", "n", type=int, default=None,
              help="Score only about N résumés (whole ads, sampled with --seed); default all 4,870.")
@click.option("--within", type=click.Choice(["ad", "overall"]), default="ad", show_default=True,
              help="Callback rule: top 8.05% of scores centred within ad, or of raw scores.")
@click.option("--rate", type=float, default=None, help="Callback rate for the screeners (default B&M's 8.05%).")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite score cache (default: _cache/scores/scores.sqlite).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the score cache.")
@click.option("-o", "--option", "options", multiple=True,
              help="Extra screener parameter KEY=VALUE (JSON value), applied to every --screener.")
@click.option("--n-boot", type=int, default=200, show_default=True, help="Bootstrap draws of the estimator on B&M.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@estimator_options(["variance"], prefix="Estimator on B&M: ")
@click.option("--no-scores", is_flag=True, help="Only the study's own tables (no screener).")
@click.option("--screeners-only", is_flag=True,
              help="Skip the study's own tables (Table 1, name check, estimator): only score and compare.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(specs, out_dir, n, within, rate, cache_path, no_cache, options, n_boot, seed, variance, no_scores,
            screeners_only, quiet):
    """Reproduce B&M's Table 1 and compare screeners' callback gaps with the recruiters'."""
    matplotlib.use("Agg")

    if no_scores and screeners_only:
        raise click.UsageError("--no-scores and --screeners-only together leave nothing to do")
    if rate is not None and not 0 < rate < 1:
        raise click.BadParameter(f"must be between 0 and 1, got {rate}", param_hint="--rate")
    extra = parse_options(options)
    screeners = []
    if not no_scores:  # build every screener first, so a bad spec fails before any work
        for spec in specs:
            screeners.append((spec, get_screener(spec, **extra)))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rate = cr.STUDY_CALLBACK_RATE if rate is None else rate
    df = cr.load_bertrand_mullainathan()
    if not screeners_only:
        _study_tables(df, out, n_boot, seed, variance)
    if no_scores:
        click.echo(f"wrote {out}")
        return
    gaps_all, score_gaps_all, runs = [], [], []
    for spec, screener in screeners:
        run = cr.score_profiles(df, screener, n=n, seed=seed, cache=False if no_cache else cache_path,
                                progress=not quiet)
        scores, summ = run.table, run.summary
        label = f"{screener.screener_id} ({screener.model}), ours"
        slug = _slug(f"{screener.screener_id}_{screener.model}")
        write_parquet(scores, out / f"scores_{slug}.parquet")
        failed = scores.loc[~scores["parse_ok"], ["resume_id", "raw"]]
        if len(failed):  # reported, and excluded from the comparison (never scored 0)
            write_table(failed.set_index("resume_id"), out / f"failures_{slug}.csv")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gaps, callbacks = cr.compare_screener(df, scores, label, rate=rate, within=within)
        for w in caught:
            click.echo(f"warning: {w.message}", err=True)
        gaps_all.append(gaps.assign(screener_spec=spec, within=within, callback_rate=rate))
        score_gaps_all.append(cr.score_gaps(callbacks.table, label).assign(screener_spec=spec))
        runs.append({"screener": label, "spec": spec, "resumes": len(scores), "scored_now": summ.get("scored"),
                     "from_cache": summ.get("cached"), "failed_excluded": callbacks.n_excluded,
                     "used": callbacks.n_scored, "seconds": summ.get("seconds")})
        click.echo(f"{label}: {len(scores)} résumés ({summ.get('cached', 0)} from cache), "
                   f"{callbacks.n_excluded} failed and excluded, {callbacks.n_scored} used")
    gaps = pd.concat(gaps_all, ignore_index=True)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        click.echo(gaps[["attribute", "source", "n", "gap_pp", "gap_ci_low_pp", "gap_ci_high_pp"]].round(2)
                   .to_string(index=False))
    # the recruiters' rows are repeated per screener, each on that screener's scored résumés (n)
    write_table(gaps.set_index(["attribute", "source"]), out / "gaps.csv")
    write_table(pd.concat(score_gaps_all, ignore_index=True).set_index(["attribute", "source"]),
                out / "score_gaps.csv")
    write_table(pd.DataFrame(runs).set_index("screener"), out / "runs.csv")
    shown = gaps.drop_duplicates(["attribute", "source"]).sort_values("attribute", kind="stable")
    _save_fig(plot_gaps(shown, title=f"Callback gaps at {rate:.2%} (within {within}): recruiters "
                        f"(B&M callbacks) vs screeners (ours)").figure, out / "gaps.png")
    click.echo(f"wrote {out}")
