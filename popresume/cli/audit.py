"""``popresume audit``: a whole audit of one screener (a report), or an audit grid from a YAML config.

    popresume audit --screener embedding --occupation nurse --n 2000 --report report/
    popresume audit --screener openai:MODEL@http://127.0.0.1:8080/v1 --occupation teacher --n 500 \\
                    --report report/ --dry-run
    popresume audit --config configs/default_audit.yaml --out results.csv
    popresume audit --config configs/paper_full.yaml --jobs 2 --out results_full.csv
    popresume audit --config big.yaml --scheduler tcp://scheduler:8786 --out results.parquet

``--screener`` probes the screener and prints the expected time, runs its validity gate
(a fail stops the audit unless ``--force``), scores the population through the score cache
(resumable), and writes ``REPORT/report.html`` (self-contained) and ``REPORT/report.json``
(:mod:`popresume.audit.report_run`). Nothing is written into REPORT unless the whole run succeeds.

``--decisions FILE`` audits recorded decisions (CSV or Parquet) into the same pair:
LL144 and the four-fifths rule with CIs and their chance, always; a validity section when
the file has an item column with a 0/1 fit column (own vs mismatched posting) and/or a 0/1
quality column (with a job column), each interval printed only where the coverage harness
calibrates it at the file's design; a noise-floor section when it has a run column and an
item column (:mod:`popresume.audit.report_decisions`).

``--config`` is validated before any work starts; every stage is cached, so rerunning
an interrupted command resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
import time

import click
from click.core import ParameterSource

from popresume.audit.config import load_config
from popresume.audit.grid import run_audit, write_results
from popresume.audit.report_decisions import DecisionsRequest, run_decisions_report
from popresume.audit.report_run import (MAX_DRAWS, ReportRequest, check_report_folder, process_seconds, run_report,
                                        write_report)
from popresume.causal.spec import EstimatorSpec
from popresume.cli._errors import OutDir, OutPath, UserError
from popresume.cli.estimate import estimator_options, spec_from_cli
from popresume.screeners.specs import parse_spec
from popresume.screeners.validity import CARD_N

#: How popresume.causal.data words a column that separates the attribute (positivity fails).
SEPARATES = "perfectly separates"
#: The estimator's options of report mode: the fields of EstimatorSpec that a ReportRequest
#: carries (generated from the spec, so a field the request gains is an option at once).
REPORT_ESTIMATOR = tuple(n for n in EstimatorSpec.names() if n in {f.name for f in dataclasses.fields(ReportRequest)})
# options of one mode only, refused in the other (by their parameter names)
_GRID_ONLY = ("out", "scheduler", "n_jobs", "cache_dir", "sizes")
_REPORT_ONLY = ("occupation", "n", "report", "fmt", "attributes", "profiles_path", "force", "dry_run",
                "card_n", "n_sim", "target", "leakage", "leakage_bases", "cache_path", *REPORT_ESTIMATOR)
# options of the recorded-decisions audit (--decisions FILE)
_DECISIONS_ONLY = ("outcome_col", "sex_col", "race_col", "job_col", "item_col", "run_col", "fit_col", "quality_col")
# of the screener report's options, those an audit of recorded decisions also reads
_DECISIONS_SHARED = ("report", "seed", "n_sim")


def _given(ctx: click.Context, names) -> list[str]:
    """The option flags among ``names`` that the user set (not left at their default)."""
    flags = {p.name: p.opts[0] for p in ctx.command.params}
    return [flags[k] for k in names if ctx.get_parameter_source(k) not in (None, ParameterSource.DEFAULT)]

@click.command(name="audit", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config", default=None, type=click.Path(dir_okay=False),
              help="Grid mode: YAML grid of occupations × formats × attributes × screeners (see configs/).")
@click.option("--out", "out", default=None, type=OutPath((".csv", ".parquet"), what="results table"),
              help="Grid mode: results table (.csv or .parquet), layout of popresume_published_pse.csv + metadata.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Grid mode: Dask scheduler (tcp://host:8786): estimation runs on that cluster via joblib.")
@click.option("--jobs", "n_jobs", default=2, show_default=True, type=int, help="joblib workers on this machine.")
@click.option("--cache-dir", default=None, type=click.Path(file_okay=False),
              help="Grid mode: cache folder (default _cache/audit).")
@click.option("--sizes", default=None, type=int, help="Grid mode: override the config's size per occupation.")
@click.option("--screener", "spec", default=None,
              help="Report mode: embedding | hf | openai:MODEL@BASE_URL | synthetic | a JSON dict.")
@click.option("--occupation", default=None, help="Report mode: occupation key (nurse, teacher, ...).")
@click.option("--n", "n", type=int, default=None, help="Report mode: number of résumés (profiles) to audit.")
@click.option("--report", "report", default=None, type=OutDir(),
              help="Report mode: folder for report.html and report.json.")
@click.option("--format", "fmt", default="text", show_default=True, help="Report mode: text | image | image+photo.")
@click.option("--attributes", default="gender,race", show_default=True, help="Report mode: gender, race or both.")
@click.option("--profiles", "profiles_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Report mode: own profiles Parquet (e.g. IPUMS-based) instead of a fresh synthetic sample.")
@click.option("--force", is_flag=True, help="Report mode: audit a screener that fails the validity gate.")
@click.option("--dry-run", is_flag=True, help="Report mode: probe and print the expected time, then stop.")
@click.option("--card-n", type=click.IntRange(min=5), default=CARD_N, show_default=True,
              help="Report mode: résumés of the validity card.")
@click.option("--n-sim", type=click.IntRange(1, MAX_DRAWS), default=1000, show_default=True,
              help="Report mode: permutations of the chance baseline.")
@estimator_options(REPORT_ESTIMATOR, types={"n_boot": click.IntRange(0, MAX_DRAWS)}, prefix="Report mode: ",
                   helps={"seed": "Seed of the profiles, the résumés, the folds and the CIs."})
@click.option("--target", type=click.FloatRange(min=0, min_open=True), default=0.5, show_default=True,
              help="Report mode: target CI half-width (points) for the n-needed column.")
@click.option("--leakage", is_flag=True, help="Report mode: add Beyond the Name's Tasks 1-3 for the same screener.")
@click.option("--leakage-bases", type=click.IntRange(1, 20), default=None,
              help="Report mode, with --leakage: only the first N of the 20 base résumés (default all).")
@click.option("--cache", "cache_path", default=None, type=click.Path(dir_okay=False),
              help="Report mode: SQLite score cache (default: _cache/scores/scores.sqlite).")
@click.option("--decisions", "decisions", default=None, type=click.Path(dir_okay=False),
              help="Audit recorded decisions (CSV or Parquet) into --report: LL144 with CIs and chance; "
                   "validity with item + fit/quality columns, the noise floor with item + run columns.")
@click.option("--outcome-col", default=None, help="--decisions: the outcome column (default: score or selected).")
@click.option("--sex-col", default=None, help="--decisions: the sex column (default: sex).")
@click.option("--race-col", default=None, help="--decisions: the race column (default: race).")
@click.option("--job-col", default=None, help="--decisions: the job (posting) column (default: job, if present).")
@click.option("--item-col", default=None, help="--decisions: the résumé (item) column (default: item, if present).")
@click.option("--run-col", default=None,
              help="--decisions: the repeated-run column, for the noise floor (default: run, if present).")
@click.option("--fit-col", default=None,
              help="--decisions: 1/0 (true/false), 1 = scored against the résumé's own posting, for validity "
                   "(default: fit, if present).")
@click.option("--quality-col", default=None,
              help="--decisions: 1/0 (true/false), 1 = the stronger version of a résumé, for validity; needs a job "
                   "column (default: quality, if present).")
@click.option("--progress/--no-progress", default=True, show_default=True)
def command(config, out, scheduler, n_jobs, cache_dir, sizes, spec, occupation, n, report, fmt, attributes,
            profiles_path, force, dry_run, card_n, n_sim, target, leakage, leakage_bases, cache_path, decisions,
            outcome_col, sex_col, race_col, job_col, item_col, run_col, fit_col, quality_col, progress, **settings):
    """Audit one screener into a report (--screener), recorded decisions into a report
    (--decisions), or run every audit of a grid (--config)."""
    ctx = click.get_current_context()
    if sum(x is not None for x in (config, spec, decisions)) != 1:
        raise click.UsageError("give one of --screener (one screener, a report), --decisions (recorded decisions, "
                               "a report) or --config (a grid)")
    if decisions is not None:
        other = _given(ctx, _GRID_ONLY + tuple(k for k in _REPORT_ONLY if k not in _DECISIONS_SHARED))
        if other:
            raise click.UsageError(f"{other[0]} does not apply to --decisions")
        return _decisions(decisions, report, settings["seed"], n_sim, outcome_col, sex_col, race_col, job_col,
                          item_col, run_col, fit_col, quality_col)
    if _given(ctx, _DECISIONS_ONLY):
        raise click.UsageError(f"{_given(ctx, _DECISIONS_ONLY)[0]} applies to --decisions only")
    if spec is not None:
        other = _given(ctx, _GRID_ONLY)
        if other:
            raise click.UsageError(f"{other[0]} applies to --config only")
        for name, val in (("--occupation", occupation), ("--n", n)):
            if val is None:
                raise click.UsageError(f"--screener needs {name}")
        if report is None and not dry_run:
            raise click.UsageError("--screener needs --report DIR (or --dry-run)")
        if report is not None:
            check_report_folder(report)
        if leakage_bases is not None and not leakage:
            raise click.UsageError("--leakage-bases needs --leakage")
        estimator = spec_from_cli(settings).to_dict()
        request = ReportRequest(parse_spec(spec), spec_label=spec, occupation=occupation, n=n, fmt=fmt,
                                attributes=tuple(a.strip() for a in attributes.split(",") if a.strip()),
                                profiles=profiles_path, force=force, card_n=card_n, n_sim=n_sim, target=target,
                                leakage=leakage, leakage_bases=leakage_bases,
                                **{k: estimator[k] for k in REPORT_ESTIMATOR})
        return _report(request, report=report, dry_run=dry_run, cache_path=cache_path, progress=progress)
    other = _given(ctx, _REPORT_ONLY)
    if other:
        raise click.UsageError(f"{other[0]} applies to --screener only")
    if out is None:
        raise click.UsageError("--config needs --out")
    _grid(config, out, scheduler, n_jobs, cache_dir, sizes, progress)


def _report(request: ReportRequest, *, report: str | None, dry_run: bool, cache_path: str | None,
            progress: bool) -> None:
    """Run the audit ``request`` asks for and write its report into ``report`` (nothing with ``dry_run``)."""
    n, attrs = request.n, request.attributes
    try:
        # the plan's "already spent" counts from this process's start, imports included
        started = time.perf_counter() - process_seconds()
        rep = run_report(request, cache=cache_path, progress=progress, dry_run=dry_run, echo=click.echo,
                         started=started)
    except ValueError as e:
        if request.profiles is not None or SEPARATES not in str(e):
            raise
        # the profiles are the tool's own sample: "drop or coarsen the column" is not the user's to do
        why = str(e).split(" Drop or coarsen")[0]
        raise UserError(f"{why} The audit drew these {n:,} profiles itself, so at this size some name group "
                        f"holds one {attrs[0] if len(attrs) == 1 else 'sex or race'} only: rerun with a larger "
                        f"--n (e.g. --n {max(4 * n, 400):,}), or audit your own profiles with --profiles FILE"
                        ) from None
    if rep is None:
        click.echo("dry run: nothing scored beyond the probe, nothing written")
        return
    html, js = write_report(rep, report)
    c = rep.run.counts
    click.echo(f"{c.scored:,} of {c.n:,} résumés scored ({c.cached:,} from the cache, {c.failed:,} "
               f"failed); validity {rep.validity.verdict}; wrote {html} and {js}")


def _decisions(path, report, seed, n_sim, outcome_col, sex_col, race_col, job_col, item_col, run_col, fit_col,
               quality_col):
    if report is None:
        raise click.UsageError("--decisions needs --report DIR")
    check_report_folder(report)
    request = DecisionsRequest(path=path, outcome=outcome_col, sex=sex_col, race=race_col, job=job_col,
                               item=item_col, run=run_col, fit=fit_col, quality=quality_col, seed=seed, n_sim=n_sim)
    rep = run_decisions_report(request)
    html, js = write_report(rep, report)
    click.echo(f"{rep.run.n:,} recorded decisions audited; validity {rep.verdict()}; wrote {html} and {js}")


def _grid(config, out, scheduler, n_jobs, cache_dir, sizes, progress):
    cfg = load_config(config)  # a bad config is one line naming the file, line and key
    if sizes is not None:
        cfg = cfg.replace(sizes=sizes)
    click.echo(f"audit grid {cfg.name!r}: {len(cfg.cells())} audits "
               f"({len(cfg.occupations)} occupations, formats {list(cfg.formats)}, "
               f"attributes {list(cfg.attributes)}, {sum(cfg.sizes.values()):,} profiles)")
    run = run_audit(cfg, scheduler=scheduler, n_jobs=n_jobs, progress=progress, cache_dir=cache_dir)
    table = run.table
    click.echo(f"{len(table)} audits in {run.wall_s:.1f}s "
               f"({run.estimates_from_cache} estimates from cache; every cell is cached, so a "
               f"rerun after a failed write costs nothing)")
    path = write_results(table, out)
    click.echo(f"wrote {path}")
