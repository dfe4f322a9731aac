"""``popresume score``: score a résumé table with one screener, cached and resumable."""

from __future__ import annotations

import json

import click
import pandas as pd

from popresume.cli._errors import OutPath, UserError
from popresume.errors import StoppedRun
from popresume.io import write_parquet
from popresume.screeners import get_screener, score_run
from popresume.screeners.specs import check_spec, parse_spec


def parse_options(options: tuple[str, ...]) -> dict:
    """``-o KEY=VALUE`` options as a dict (a value is JSON when it parses as JSON, else a string)."""
    out = {}
    for o in options:
        if "=" not in o:
            raise click.BadParameter(f"expected KEY=VALUE, got {o!r}", param_hint="--option")
        k, v = o.split("=", 1)
        try:
            out[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip()] = v
    return out


def screener_params(spec: str, options: tuple[str, ...], **settings) -> dict:
    """The screener spec of ``--screener``, ``-o KEY=VALUE`` and the named ``settings``
    (``--scoring``, …; ``None`` skipped) as one dict, checked as an audit config's screener
    entry is (:func:`popresume.screeners.specs.check_spec`); a problem names the option it came from."""
    try:
        params = parse_spec(spec)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--screener") from None
    steps = [("--screener", {}), ("-o/--option", parse_options(options))]
    steps += [(f"--{k.replace('_', '-')}", {k: v}) for k, v in settings.items() if v is not None]
    for hint, extra in steps:
        params.update(extra)
        try:
            check_spec(params)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint=hint) from None
    return params


def read_jobs(path: str | None) -> dict | None:
    """The ``--jobs`` file: a JSON object {occupation: job description}; errors name the file."""
    if path is None:
        return None
    try:
        jobs = json.loads(open(path, encoding="utf-8").read())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise click.BadParameter(f"{path} is not valid JSON: {e}", param_hint="--jobs") from None
    if not isinstance(jobs, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in jobs.items()):
        raise click.BadParameter(f"{path} must be a JSON object {{occupation: job description text}}",
                                 param_hint="--jobs")
    return jobs


@click.command("score")
@click.option("--resumes", "resumes_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Parquet with resume_id, occupation and text (or image_path[, format]).")
@click.option("--profiles", "profiles_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Profiles Parquet (needed by the synthetic screener).")
@click.option("--screener", "spec", default="embedding", show_default=True,
              help="embedding | embedding:PATH | hf | hf:PATH | openai:MODEL@BASE_URL | synthetic | a JSON dict.")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite score cache (default: _cache/scores/scores.sqlite).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the score cache.")
@click.option("--concurrency", type=int, default=None, help="Parallel requests (HTTP backend).")
@click.option("--jobs", "jobs_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="JSON {occupation: job description} (default: popresume.jobs.job_description).")
@click.option("--scoring", type=click.Choice(["greedy", "expected"]), default=None,
              help="greedy: the reply's number; expected: probability-weighted score from token logprobs "
                   "(hf and openai backends). Default: the backend's (greedy).")
@click.option("--retry-failed", is_flag=True,
              help="Score again the résumés whose failure (refused request, unparseable reply) is in the cache.")
@click.option("-o", "--option", "options", multiple=True, help="Extra screener parameter KEY=VALUE (JSON value).")
@click.option("--out", "out_path", required=True, type=OutPath((".parquet",), what="scores"),
              help="Output scores Parquet (checked before any scoring).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(resumes_path, profiles_path, spec, cache_path, no_cache, concurrency, jobs_path, scoring, retry_failed,
            options, out_path, quiet):
    """Score résumés; prints scored / cached / parse rate / throughput. Output written atomically."""
    if concurrency is not None and screener_params(spec, ()).get("kind") != "openai":
        raise click.BadParameter("--concurrency applies to the openai backend only", param_hint="--concurrency")
    params = screener_params(spec, options, concurrency=concurrency, scoring=scoring)
    jobs = read_jobs(jobs_path)
    try:
        screener = get_screener(params)
        if screener.needs_profile and profiles_path is None:
            raise UserError(f"--screener {spec} scores from the profiles: give --profiles PROFILES.parquet "
                            f"(the file `popresume generate` wrote; joined on resume_id)")
        resumes = pd.read_parquet(resumes_path)
        profiles = pd.read_parquet(profiles_path) if profiles_path else None
        cache = False if no_cache else cache_path
        run = score_run(screener, resumes, profiles=profiles, cache=cache, progress=not quiet,
                        job_descriptions=jobs, retry_failed=retry_failed)
    except (ConnectionError, StoppedRun) as e:
        partial = getattr(e, "partial", None)
        if partial is None or not partial["parse_ok"].any():
            raise click.ClickException(str(e)) from e
        # the run stopped midway: keep what was scored (the cache may not hold it: a full disk)
        write_parquet(partial, out_path)
        raise click.ClickException(f"{e}; the {int(partial['parse_ok'].sum())} of {len(partial)} résumés "
                                   f"scored before the stop are in {out_path}") from e
    except (ValueError, FileNotFoundError, PermissionError) as e:
        raise click.ClickException(str(e)) from e
    df, s = run.table, run.summary
    thr = "n/a" if s["throughput"] != s["throughput"] else f"{s['throughput']:.1f} résumés/s"
    sp = run.screener_params
    mode = f"scoring {sp.get('scoring') or 'direct'}" + (f", dialect {sp['dialect']}" if "dialect" in sp else "")
    share = f" ({s['failed'] / s['n']:.1%})" if s["n"] else ""
    click.echo(f"{screener.screener_id} ({screener.model}; {mode}): {s['n']} résumés; scored {s['scored']}, "
               f"cached {s['cached']}, failed {s['failed']}{share}; parse rate {s['parse_rate']:.1%}; "
               f"throughput {thr}")
    write_parquet(df, out_path)
    click.echo(f"wrote {out_path}")
    if s["n"] and not df["parse_ok"].any():
        first = " ".join(str(df["raw"].iloc[0]).split())[:200]
        raise UserError(f"nothing was scored: all {s['n']} résumés failed (the first: {first}); "
                        f"the failures are in {out_path}")
