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

A table a source has nothing for is written with its header only. The four are written as
a set (:func:`popresume.io.write_together`): a failure (a full disk) leaves the tables of an
earlier run as they were, never some of each run, and a new folder is not left empty.
"""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from popresume.audit.report_run import MAX_DRAWS
from popresume.cli._errors import SEED, OutDir
from popresume.decisions import analyses
from popresume.decisions import sources as decision_sources
from popresume.decisions.sources import RECORDS, SOURCES, check_source
from popresume.io import write_together


@click.command("decisions")
@click.option("--out", "out_dir", required=True, type=OutDir(), help="Output folder (created).")
@click.option("--source", "sources", multiple=True,
              help="Only this source (repeatable): " + ", ".join(SOURCES) + ".")
@click.option("--n-sim", type=click.IntRange(1, MAX_DRAWS), default=2000, show_default=True,
              help="Draws of a tool with no disparity per LL144 analysis (ten times more near p = 0.05).")
@click.option("--seed", type=SEED, default=0, show_default=True)
def command(out_dir, sources, n_sim, seed):
    """Validity, group effects, noise floor and the published LL144 audits, from recorded decisions."""
    sources = tuple(dict.fromkeys(sources)) or SOURCES
    for s in sources:
        try:
            check_source(s)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--source") from None
    decisions = [decision_sources.load(s) for s in sources if RECORDS[s].kind == "decisions"]
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
    audits = [decision_sources.load(s) for s in sources if RECORDS[s].kind == "published audits"]
    if audits:
        t = analyses.ll144_published(pd.concat(audits, ignore_index=True), n_sim=n_sim, seed=seed)
        tables["ll144_published"] = analyses.ll144_file(t)
    else:
        tables["ll144_published"] = pd.DataFrame(columns=analyses.LL144_OUT_COLUMNS)
    for name, table in tables.items():  # results first: a failed write must not lose them
        click.echo(f"{name}.csv: {len(table)} rows")
    write_together(Path(out_dir), {f"{name}.csv": (lambda tmp, t=table: t.to_csv(tmp, index=False))
                                   for name, table in tables.items()}, what="the decisions tables")
    click.echo(f"wrote {', '.join(f'{name}.csv' for name in tables)} into {out_dir}")
