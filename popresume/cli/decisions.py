"""``popresume decisions``: the same analyses on every shipped record of real decisions.

Writes into ``--out`` four tables other tools can read (docs/DESIGN.md §5):

* ``validity.csv``: source, model, contrast (``job_fit`` | ``quality``), estimate, ci_low,
  ci_high, n, verdict, calibrated (whether the coverage harness backs the interval at this
  design), calibration (why);
* ``group_effects.csv``: source, model, attribute, group, reference, estimate, ci_low,
  ci_high, p, p_holm;
* ``noise_floor.csv``: source, model, kind (``rerun`` | ``placebo``), mean_abs_change, sd, n;
* ``ll144_published.csv``: one row per audit × rate definition × characteristic × category,
  columns ``popresume.decisions.analyses.LL144_OUT_COLUMNS`` (the printed numbers, the ratios
  recomputed by ``popresume.ll144.published_ratios``, the status, the chance columns).

A table a source has nothing for is written with its header only.
"""

from __future__ import annotations

from pathlib import Path

import click

from popresume.cli._errors import SEED, OutDir
from popresume.decisions.sources import RECORDS, SOURCES


@click.command("decisions")
@click.option("--out", "out_dir", required=True, type=OutDir(), help="Output folder (created).")
@click.option("--source", "sources", multiple=True,
              help="Only this source (repeatable): " + ", ".join(SOURCES) + ".")
@click.option("--n-sim", type=int, default=2000, show_default=True,
              help="Draws of a tool with no disparity per LL144 analysis (ten times more near p = 0.05).")
@click.option("--seed", type=SEED, default=0, show_default=True)
def command(out_dir, sources, n_sim, seed):
    """Validity, group effects, noise floor and the published LL144 audits, from recorded decisions."""
    import pandas as pd

    from popresume.decisions import analyses
    from popresume.decisions.sources import check_source, load
    from popresume.io import write_table

    sources = tuple(dict.fromkeys(sources)) or SOURCES
    for s in sources:
        try:
            check_source(s)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--source") from None
    if n_sim < 1:
        raise click.BadParameter(f"must be at least 1, got {n_sim}", param_hint="--n-sim")
    decisions = [load(s) for s in sources if RECORDS[s].kind == "decisions"]
    tables = {}
    if decisions:
        df = pd.concat(decisions, ignore_index=True)
        tables["validity"] = analyses.validity(df)[analyses.VALIDITY_COLUMNS]
        tables["group_effects"] = analyses.group_effects(df)[analyses.GROUP_COLUMNS]
        tables["noise_floor"] = analyses.noise_floor(df)[analyses.NOISE_COLUMNS]
    else:
        tables["validity"] = pd.DataFrame(columns=analyses.VALIDITY_COLUMNS)
        tables["group_effects"] = pd.DataFrame(columns=analyses.GROUP_COLUMNS)
        tables["noise_floor"] = pd.DataFrame(columns=analyses.NOISE_COLUMNS)
    audits = [load(s) for s in sources if RECORDS[s].kind == "published audits"]
    if audits:
        t = analyses.ll144_published(pd.concat(audits, ignore_index=True), n_sim=n_sim, seed=seed)
        tables["ll144_published"] = analyses.ll144_file(t)
    else:
        tables["ll144_published"] = pd.DataFrame(columns=analyses.LL144_OUT_COLUMNS)
    out = Path(out_dir)
    for name, table in tables.items():
        write_table(table.set_index(table.columns[0]), out / f"{name}.csv")
        click.echo(f"{name}.csv: {len(table)} rows")
