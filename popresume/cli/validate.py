"""``popresume validate``: the validity gate of one screener before any audit.

Scores ``--n`` résumés against their own and a mismatched posting, with more education /
experience, and under harmless edits (whitespace, section order); prints the numbers and
writes a card (JSON + a PNG figure beside it) with the estimates, 95% CIs and the verdict.
The pass rule is :data:`popresume.screeners.validity.PASS_RULE`.
"""

from __future__ import annotations

import click

from popresume.cli._errors import SEED, OutPath, UserError
from popresume.cli.score import screener_params
from popresume.io import read_parquet
from popresume.plots.screeners import plot_validity_card
from popresume.screeners import get_screener, validity
from popresume.screeners.validity import CARD_N, card_label, card_table, write_card


@click.command("validate")
@click.option("--screener", "spec", default="embedding", show_default=True,
              help="embedding | hf | hf:PATH | openai:MODEL@BASE_URL | synthetic | a JSON dict.")
@click.option("--n", "n", type=click.IntRange(min=5), default=CARD_N, show_default=True,
              help="Number of résumés (spread over the five occupations).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the profiles and their rendering.")
@click.option("--profiles", "profiles_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Profiles Parquet to draw the résumés from (default: a fresh population sample).")
@click.option("--scoring", type=click.Choice(["greedy", "expected"]), default=None,
              help="Generative screeners: the reply's number, or the probability-weighted score.")
@click.option("-o", "--option", "options", multiple=True, help="Extra screener parameter KEY=VALUE (JSON value).")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite score cache (default: _cache/scores/scores.sqlite).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the score cache.")
@click.option("--out", "out_path", type=OutPath((".json",), what="validity card"), default="validity_card.json",
              show_default=True, help="The card (JSON); its figure is written beside it as .png.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(spec, n, seed, profiles_path, scoring, options, cache_path, no_cache, out_path, quiet):
    """Run the validity gate of a screener and write its card; prints the verdict and the numbers."""
    screener = get_screener(screener_params(spec, options, scoring=scoring))
    profiles = read_parquet(profiles_path, what="profiles") if profiles_path else None
    card = validity.validity_card(screener, n=n, seed=seed, profiles=profiles, cache=False if no_cache else cache_path,
                         progress=not quiet, spec=spec)
    table = card_table(card).drop(columns=["screener", "source"])
    click.echo(f"Validity gate (ours) for {card_label(card)}, {card['n_profiles']} résumés, seed {seed}:")
    click.echo(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    sp = card["spread"]
    click.echo(f"parse rate {card['parse_rate']:.1%} of {card['n_requests']} requests; own-posting scores: "
               f"SD {sp['sd']:.2f}, {sp['n_distinct']} distinct values in [{sp['min']:.1f}, {sp['max']:.1f}]")
    click.echo(f"verdict: {card['verdict'].upper()}")
    for r in card["reasons"]:
        click.echo(f"  - {r}")
    path = write_card(card, out_path, figure=plot_validity_card(card).figure)
    click.echo(f"wrote {path} and {path.with_suffix('.png')}")
    if card["n_requests"] and not card["parse_rate"] > 0:
        # a screener that answered nothing is not a verdict on the screener: the exit code says so
        raise UserError(f"every one of the {card['n_requests']} requests failed (parse rate 0%): the screener "
                        f"gave no score to judge; the card is in {path}")
