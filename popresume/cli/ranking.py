"""``popresume ranking``: Bloomberg's recorded GPT-3.5/GPT-4 rankings, reproduced and re-audited.

Writes into ``--out`` the tables and figures of the ranking chapter: the published table
recomputed from the replies (``published_reproduced.csv``, checked cell by cell in
``published_check.csv``), selection rates and impact ratios with CIs and Holm/BH-adjusted
p-values, the fair-ranker chance table (``chance.csv``), position rates (``position.csv``),
the conditional logit, the parse-rule sensitivity, per-name rates with the C.4 check, mean
ranks and top-k rates; our screeners' runs sit in the same tables beside GPT's, each with
its validity verdict (``screeners.csv``).
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import matplotlib
import pandas as pd

from popresume.cli._errors import SEED, OutDir
from popresume.io import write_figure, write_parquet, write_table
from popresume.plots import ranking as plots
from popresume.ranking import bloomberg as bb
from popresume.ranking import chance, report
from popresume.ranking import screening as recorded
from popresume.ranking.parse import rank_runs
from popresume.schema import VERDICT_COLUMN
from popresume.screeners import get_screener

#: the most fair rankers --n-sim may ask for (each is a permutation of every run of a model × job)
MAX_SIM = 1_000_000


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_")[:80] or "screener"


@click.command("ranking")
@click.option("--out", "out_dir", required=True, type=OutDir(), help="Output folder (created).")
@click.option("--runs-dir", type=click.Path(file_okay=False), default=None,
              help="Read run files laid out as Bloomberg's (MODEL/JOB/.../*.json) instead of the shipped table.")
@click.option("--model", "models", multiple=True, help="Only these models (repeatable): gpt-3.5-turbo, gpt-4.")
@click.option("--screener", "specs", multiple=True,
              help="Rank the same 8-résumé sets live with this screener (repeatable): embedding | openai:MODEL@URL | ...")
@click.option("--n-runs", type=int, default=25, show_default=True,
              help="With --screener: runs per job (gpt-3.5-turbo's sets, sampled with --seed).")
@click.option("--no-screeners", is_flag=True, help="Leave out our screeners' recorded runs.")
@click.option("--n-sim", type=int, default=10_000, show_default=True,
              help=f"Fair rankers simulated for chance.csv (1 to {MAX_SIM:,}).")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--no-clogit", is_flag=True, help="Skip the conditional logit.")
@click.option("--no-figures", is_flag=True, help="Tables only.")
def command(out_dir, runs_dir, models, specs, n_runs, no_screeners, n_sim, seed, no_clogit, no_figures):
    """Reproduce Bloomberg's ranking table and audit what it does not show."""
    matplotlib.use("Agg")

    for m in models:
        bb.check_model(m)
    if n_runs < 1:
        raise click.BadParameter(f"must be at least 1, got {n_runs}", param_hint="--n-runs")
    if not 1 <= n_sim <= MAX_SIM:
        raise click.BadParameter(f"must be between 1 and {MAX_SIM:,}, got {n_sim}", param_hint="--n-sim")
    screeners = []
    if specs:
        screeners = [(s, get_screener(s)) for s in specs]  # a bad spec fails before any work
    if runs_dir is not None:
        long = rank_runs(bb.read_run_dir(runs_dir, models or None))
        published = None
    else:
        long = bb.load_bloomberg_ranks(models or None)
        published = bb.load_published()
        if models:
            published = published[published["model"].isin(models)]
    gpt = long
    parts, cards = [gpt], []
    if not no_screeners and not specs and runs_dir is None:  # the shipped runs rank the shipped sets
        shipped = recorded.load_screener_runs()
        parts.append(shipped)
        cards.append(recorded.screener_summary(shipped))
    live = []
    for spec, scr in screeners:
        run, scoring = recorded.rank_live(bb.load_bloomberg_ranks(), scr, spec, n_per_job=n_runs, seed=seed)
        summ = scoring.summary
        click.echo(f"{run['model'].iloc[0]}: {summ.get('n', 0)} résumés ({summ.get('cached', 0)} from cache), "
                   f"{int((~run['found']).sum())} failed and unranked; validity: {run['validity'].iloc[0]}")
        parts.append(run)
        live.append(run)
        cards.append(recorded.screener_summary(run))
    long_all = pd.concat(parts, ignore_index=True)
    sources = {m: f"ours, screener {m}" for m in long_all["model"].unique() if m not in bb.MODELS}
    tables = report.ranking_tables(long_all, published=published, sources=sources, n_sim=n_sim,
                                   seed=seed, clogit_fit=not no_clogit)
    if cards:
        tables["screeners"] = pd.concat(cards, ignore_index=True)
    if "published_check" in tables:
        chk = tables["published_check"]
        click.echo(f"published table: {int(chk['match'].sum())}/{len(chk)} cells reproduced from the replies")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        printed = tables["chance"][["model", "job", "n_runs", "min_max_ratio", "null_p_text", "flag_rate_under_null",
                                    VERDICT_COLUMN]].rename(columns={"null_p_text": "p (design null)"})
        click.echo(printed.round(3).to_string(index=False))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        df = df.reset_index(drop=True)
        write_table(df.set_index(df.columns[0]), out / f"{name}.csv")  # no unnamed index column

    for run in live:  # the recorded runs, in the shipped format (data/ranking/screener_runs.parquet)
        write_parquet(run, out / f"screener_runs_{_slug(run['model'].iloc[0])}.parquet")
    if not no_figures:
        sel = tables["selection_rates"]
        write_figure(plots.plot_impact_ratios(sel[sel["model"].isin(bb.MODELS)], title=bb.OURS), out / "impact_ratios.png")
        gpt_chance = tables["chance"][tables["chance"]["model"].isin(bb.MODELS)]
        write_figure(plots.plot_chance(chance.null_draws(long, gpt_chance, n_sim=n_sim, seed=seed), gpt_chance,
                                       title=f"{bb.OURS} vs simulated fair rankers"), out / "chance.png")
        pos = tables["position"]
        write_figure(plots.plot_position(pos[pos["model"].isin(bb.MODELS)], title=bb.OURS), out / "position.png")
        if "clogit" in tables:
            cl = tables["clogit"]
            write_figure(plots.plot_clogit(cl[cl["model"].isin(bb.MODELS)], title=bb.OURS), out / "clogit.png")
    click.echo(f"wrote {out}")
