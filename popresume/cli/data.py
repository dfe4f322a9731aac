"""``popresume data acs``: download Census ACS PUMS person files and write the tidy table."""

from __future__ import annotations

from pathlib import Path

import click

from popresume.sources.acs import PUMS_BASE_URL, download_pums, load_acs, save_tidy


@click.group(name="data")
def command():
    """Fetch and prepare the population's input data."""


@command.command(name="acs")
@click.option("--year", type=int, required=True, help="ACS year, e.g. 2023 (the paper's).")
@click.option("--state", default=None, help="USPS state code (e.g. CA); default: the whole US (large).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True, help="Folder for the files.")
@click.option("--period", default="1-Year", show_default=True, help="PUMS period folder (1-Year or 5-Year).")
@click.option("--base-url", default=None, help="Mirror of the Census PUMS folder (default: www2.census.gov).")
def acs(year, state, out_dir, period, base_url):
    """Download the Census PUMS person CSV for YEAR and write acs_tidy.parquet.

    Use the result with `popresume generate --acs OUT/acs_tidy.parquet`.
    """
    files = download_pums(year, out_dir, state=state, period=period, base_url=base_url or PUMS_BASE_URL,
                          progress=True)
    for f in files:
        click.echo(f"downloaded {f}")
    # filtered to the five occupations chunk by chunk; each row's codes read by its year's scheme
    # (a bad file is one line through popresume.cli._errors; --debug shows the traceback)
    tidy = load_acs(list(files))
    path = save_tidy(tidy, Path(out_dir) / "acs_tidy.parquet")
    years = sorted(int(y) for y in tidy["year"].dropna().unique())
    counts = ", ".join(f"{k} {v:,}" for k, v in tidy["occupation"].value_counts().items())
    click.echo(f"wrote {path}: {len(tidy):,} person records of ACS {years} in the five occupations ({counts})")
