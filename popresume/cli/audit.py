"""``popresume audit``: run an audit grid from a YAML config and write the results table.

    popresume audit --config configs/default_audit.yaml --out results.csv
    popresume audit --config configs/paper_full.yaml --jobs 2 --out results_full.csv
    popresume audit --config big.yaml --scheduler tcp://scheduler:8786 --out results.parquet

The config is validated before any work starts; every stage is cached, so rerunning
an interrupted command resumes where it stopped.
"""

from __future__ import annotations

import click

from popresume.cli._errors import OutPath


@click.command(name="audit", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config", required=True, type=click.Path(dir_okay=False),
              help="YAML grid: occupations × formats × attributes × screeners (see configs/).")
@click.option("--out", "out", required=True, type=OutPath((".csv", ".parquet"), what="results table"),
              help="Results table (.csv or .parquet), layout of popresume_published_pse.csv + metadata.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler (tcp://host:8786): estimation runs on that cluster via joblib.")
@click.option("--jobs", "n_jobs", default=2, show_default=True, type=int, help="joblib workers on this machine.")
@click.option("--cache-dir", default=None, type=click.Path(file_okay=False),
              help="Cache folder (default _cache/audit).")
@click.option("--sizes", default=None, type=int, help="Override the config's size per occupation.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def command(config, out, scheduler, n_jobs, cache_dir, sizes, progress):
    """Run every audit of CONFIG and write one tidy results table to OUT."""
    from popresume.audit.config import load_config
    from popresume.audit.grid import run_audit, write_results

    cfg = load_config(config)  # a bad config is one line naming the file, line and key
    if sizes is not None:
        cfg = cfg.replace(sizes=sizes)
    click.echo(f"audit grid {cfg.name!r}: {len(cfg.cells())} audits "
               f"({len(cfg.occupations)} occupations, formats {list(cfg.formats)}, "
               f"attributes {list(cfg.attributes)}, {sum(cfg.sizes.values()):,} profiles)")
    table = run_audit(cfg, scheduler=scheduler, n_jobs=n_jobs, progress=progress, cache_dir=cache_dir)
    t = table.attrs
    click.echo(f"{len(table)} audits in {t.get('wall_s', float('nan')):.1f}s "
               f"({t.get('estimates_from_cache', 0)} estimates from cache; every cell is cached, so a "
               f"rerun after a failed write costs nothing)")
    path = write_results(table, out)
    click.echo(f"wrote {path}")
