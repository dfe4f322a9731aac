"""``popresume generate``: sample the applicant profiles (PopResume §4.1) to a Parquet file."""

from __future__ import annotations

import os
import time

import click

from popresume.cli._errors import SEED, OutPath
from popresume.experience import describe_source
from popresume.io import write_parquet
from popresume.population import generate_population, summarize
from popresume.sources.experience_data import EXPERIENCE_SOURCES


def _parse_sizes(size, sizes):
    if size is not None and sizes is not None:
        raise click.UsageError("give --n or --sizes, not both")
    if sizes is None:
        return size
    out = {}
    for item in sizes.split(","):
        if "=" not in item:
            raise click.BadParameter(f"expected occ=N, got {item!r}", param_hint="--sizes")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = int(v)
        except ValueError:
            raise click.BadParameter(f"size {v!r} for {k!r} is not an integer", param_hint="--sizes") from None
    return out


@click.command(name="generate")
@click.option("--out", "out", type=OutPath((".parquet",), what="profiles"), required=True,
              help="Output Parquet file (.parquet; checked before any profile is drawn).")
@click.option("--occupations", default=None, help="Comma-separated occupation keys (default: all five).")
@click.option("--n", "--size", "size", type=int, default=None,
              help="Profiles per occupation (default: Table 3 sizes); --size is the former name.")
@click.option("--sizes", default=None, help="Per-occupation sizes, e.g. nurse=100,teacher=50.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--age-min", type=int, default=18, show_default=True)
@click.option("--age-max", type=int, default=44, show_default=True)
@click.option("--races", default="White,Black,API", show_default=True, help="Race groups kept.")
@click.option("--acs", "acs", type=click.Path(exists=True), default=None,
              help="ACS data for P1: an IPUMS USA DDI .xml (its .dat/.csv, gzipped or not, beside it), "
                   "psam_p*.csv / ssYYp*.csv, a folder of them, or a tidy .parquet; default: embedded seeded IPF.")
@click.option("--experience", "experience", default=None,
              help="P2 source: 'measured' (default: both genders with measured age, no gender term), 'psid' "
                   "(the earlier default: every career break a woman's), 'wooldridge', or the path of an own PSID "
                   "extract (age, gender, educ_years, exp_year; optional race, collar).")
def command(out, occupations, size, sizes, seed, age_min, age_max, races, acs, experience):
    """Generate population-representative applicant profiles and write them to OUT."""
    if experience is not None and experience not in EXPERIENCE_SOURCES and not os.path.exists(experience):
        raise click.BadParameter(f"{experience!r} is neither a source name ({', '.join(EXPERIENCE_SOURCES)}) "
                                 f"nor an existing file", param_hint="--experience")

    occ = [o.strip() for o in occupations.split(",")] if occupations else None
    t0 = time.perf_counter()
    df = generate_population(occ, _parse_sizes(size, sizes), seed=seed, age_range=(age_min, age_max),
                             races=[r.strip() for r in races.split(",")], acs=acs, progress=True,
                             experience_source=experience)
    write_parquet(df, out)
    click.echo(f"wrote {len(df):,} profiles to {out} in {time.perf_counter() - t0:.1f} s "
               f"(P1: {'ACS ' + str(acs) if acs else 'embedded default: IPF from GSS/ACS 2012 seeds to published margins'})")
    click.echo(describe_source(experience))
    click.echo(summarize(df).to_string())
