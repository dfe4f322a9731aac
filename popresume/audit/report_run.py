"""The whole one-screener audit: plan, validity gate, population, résumés, scores, numbers, files.

:func:`run_report` is what ``popresume audit --screener`` runs. It reuses the package's
stages (``generate_population``, ``render_texts`` / ``render_images``, ``score_resumes``
with the score cache, ``validity_card``, ``prepare`` and ``estimate_pse``) and the report's
numbers (:mod:`popresume.audit.report`); :func:`write_report` writes ``report.json`` and
``report.html`` (:mod:`popresume.audit.report_html`) atomically, so a run that stops writes
nothing half-done into the report folder. Scores are committed to the score cache as they
arrive: a rerun after an interruption rescores nothing that was cached.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from popresume.audit import pipeline, report, report_leakage
from popresume.audit.report_html import render_html
from popresume.audit.report_model import (AuditReport, Counts, Decompositions, Disagreements, NotAsked, Omitted,
                                          Plan, Precision, Provenance, RunInfo, ScreenerRun, Validity)
from popresume.causal import prepare
from popresume.causal.spec import DEFAULTS
from popresume.experience import describe_source
from popresume.io import read_parquet, write_together
from popresume.leakage.tasks import check_judge
from popresume.paths import REPO_ROOT
from popresume.population import generate_population
from popresume.schema import ATTRIBUTES, FORMATS, OCCUPATION_KEYS, PROFILE_COLUMNS, validate_profiles
from popresume.screeners import format_summary, get_screener, score_resumes, uncached
from popresume.screeners.base import has_capability
from popresume.screeners.validity import (CARD_N, PASS_RULE, card_inputs, card_table, default_profiles,
                                          screener_identity, validity_card)

#: Fewest résumés an audit accepts (each attribute's smaller group also needs report.MIN_PER_GROUP).
MIN_N = 100
PROBE_N = 3
#: Upper bounds of the resampling options, checked before any work: each draw holds an
#: index per résumé, so the bootstrap and the permutations need about 24 bytes × draws × n.
MAX_DRAWS = 100_000
MAX_DRAWS_TIMES_N = 50_000_000


@dataclass(frozen=True)
class ReportRequest:
    """What ``popresume audit --screener`` asks: the screener, the population, the
    estimator's and the report's settings. :meth:`check` refuses, in one line naming the
    option, a request that cannot give a report, before any work.

    Parameters
    ----------
    spec : str or mapping
        The screener, as :func:`popresume.screeners.get_screener` takes it.
    occupation : str
        The occupation whose applicants are drawn.
    n : int
        Résumés to score.
    fmt : {"text", "image", "image+photo"}
        The résumé format.
    attributes : tuple of str
        The protected attributes to decompose.
    profiles : str, optional
        A profile table to read instead of drawing one.
    seed : int
        Seed of the population, the folds and the draws.
    force : bool
        Run on even when the screener fails the validity gate.
    card_n : int
        Profiles of the validity card.
    folds, n_boot : int
        The estimator's folds and bootstrap draws.
    tune : bool
        Tune the estimator's XGBoost learners.
    variance : {"jackknife", "influence", "average"}
        The SE of the effects' intervals (:class:`popresume.causal.EstimatorSpec`'s ``variance``;
        the delete-a-group jackknife by default).
    select_top : float
        The share selected for the four-fifths table.
    target : float
        The CI half-width the precision table plans for.
    n_sim : int
        Draws of the chance baseline.
    leakage : bool
        Add Beyond the Name's Tasks 1-3 for the same screener.
    leakage_bases : int, optional
        How many of the 20 base résumés the leakage tasks use (all by default).
    spec_label : str, optional
        How the report names the spec.

    Examples
    --------
    >>> req = ReportRequest("synthetic", occupation="accountant", n=400, n_boot=200)
    >>> req.check()  # nothing to refuse
    >>> req.label(), req.fmt, req.attributes
    ('synthetic', 'text', ('gender', 'race'))
    """

    spec: Any
    occupation: str
    n: int
    fmt: str = "text"
    attributes: tuple = ("gender", "race")
    profiles: str | None = None
    seed: int = 0
    force: bool = False
    card_n: int = CARD_N
    folds: int = 5
    n_boot: int = 500
    tune: bool = True
    variance: str = DEFAULTS.variance
    select_top: float = 0.25
    target: float = report.TARGET_HALF_WIDTH
    n_sim: int = 1000
    leakage: bool = False
    leakage_bases: int | None = None
    spec_label: str | None = None

    def label(self) -> str:
        return self.spec_label or (self.spec if isinstance(self.spec, str) else json.dumps(dict(self.spec)))

    def check(self) -> None:
        check_request(occupation=self.occupation, n=self.n, fmt=self.fmt, attributes=self.attributes)
        check_draws(n=self.n, n_boot=self.n_boot, n_sim=self.n_sim)


def check_request(*, occupation: str, n: int, fmt: str, attributes: Sequence[str]) -> None:
    """Refuse, in one line naming the option, a request that cannot give a report."""
    if occupation not in OCCUPATION_KEYS:
        raise ValueError(f"--occupation {occupation!r} is unknown; known: {', '.join(OCCUPATION_KEYS)}")
    if n < MIN_N:
        raise ValueError(f"--n {n} is too small to estimate the decomposition; use at least {MIN_N}")
    if fmt not in FORMATS:
        raise ValueError(f"--format {fmt!r} is unknown; known: {', '.join(FORMATS)}")
    bad = [a for a in attributes if a not in ATTRIBUTES]
    if bad or not attributes:
        raise ValueError(f"--attributes {','.join(attributes)!r}: expected some of {', '.join(ATTRIBUTES)}")


def check_draws(*, n: int, n_boot: int, n_sim: int) -> None:
    """Refuse resampling that cannot fit in memory, naming the option (:data:`MAX_DRAWS`,
    :data:`MAX_DRAWS_TIMES_N`)."""
    for option, draws in (("--n-boot", n_boot), ("--n-sim", n_sim)):
        if not 0 <= draws <= MAX_DRAWS:
            raise ValueError(f"{option} {draws} is out of range: use 0 to {MAX_DRAWS:,}")
        if draws * n > MAX_DRAWS_TIMES_N:
            raise ValueError(f"{option} {draws:,} at --n {n:,} needs about {24 * draws * n / 2**30:.0f} GiB; "
                             f"use {option} {MAX_DRAWS_TIMES_N // max(n, 1):,} or fewer at this --n")




def load_population(occupation: str, n: int, *, seed: int = 0, profiles: str | os.PathLike | None = None
                    ) -> tuple[pd.DataFrame, str]:
    """``n`` profiles of ``occupation``: a fresh synthetic sample, or the first ``n`` rows of that
    occupation in a user's file. Returns (profiles, a description of where they come from)."""
    if profiles is None:
        return (generate_population([occupation], {occupation: n}, seed=seed),
                f"synthetic (popresume.population, embedded P1 raked to published margins); P2 (experience): "
                f"{describe_source()}")
    p = read_parquet(profiles, what="profiles", columns=PROFILE_COLUMNS)
    p = validate_profiles(p)
    p = p[p["occupation"] == occupation]
    if p.empty:
        raise ValueError(f"--profiles {profiles}: no row with occupation {occupation!r}")
    return p.head(n).reset_index(drop=True), f"user's profiles ({profiles}, {min(len(p), n):,} rows)"


def render(profiles: pd.DataFrame, fmt: str, *, seed: int = 0, progress: bool = False) -> pd.DataFrame:
    """The résumés of ``profiles`` in ``fmt`` (:func:`popresume.audit.pipeline.render_resumes`;
    images go to the one image cache)."""
    return pipeline.render_resumes(profiles, fmt, seed=seed, progress=progress)


def identity(screener) -> dict[str, Any]:
    """Who produced every number: id, model, prompt hash, scoring mode, HTTP dialect."""
    ident = screener_identity(screener)
    params = ident.get("params", {})
    ident["scoring"] = params.get("scoring") or "direct"
    ident["dialect"] = params.get("dialect")
    return ident


def probe_size(screener) -> int:
    """Résumés the probe times: one model batch for a screener that embeds résumés in
    batches (three résumés of a batch cost what 32 do, and would overstate the run's time
    tenfold), else :data:`PROBE_N`."""
    if has_capability(screener, "batches"):
        return max(PROBE_N, int(screener.batch_size))
    return PROBE_N


def process_seconds() -> float:
    """Seconds since this process started (the interpreter's own start-up and imports
    included), from Linux's ``/proc``; 0 where that cannot be read."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = float(f.read().rsplit(")", 1)[1].split()[19])  # field 22: starttime
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(uptime - start_ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError):
        return 0.0


def probe(screener, resumes: pd.DataFrame, profiles: pd.DataFrame | None, *, k: int = PROBE_N,
          cache=False, most: int | None = None) -> dict[str, Any]:
    """Time the scoring of the first rows of ``resumes`` as the audit scores them: through
    :func:`popresume.screeners.score_run` with the score cache ``cache`` (its reads and
    writes timed too), at the batch size the scoring uses.

    After one untimed warm-up résumé (a model's first call: weights, kernels, an HTTP
    server's dialect), one résumé is timed alone, then ``k``, doubling ``k`` (up to ``most``
    résumés in all) while the call costs under four times the single one, i.e. while a
    call's fixed cost (opening the cache, building the items, an HTTP round trip shared by
    concurrent requests) still hides the per-résumé cost. Returns ``call_s``, the fixed cost
    of a call, and ``seconds_per_resume``, the cost of each further résumé (the two timed
    calls' difference), plus the résumés scored, the warm-up's seconds and prompt tokens per
    request (when the server reports usage).

    The résumés are the first rows of ``resumes`` (the caller passes the ones not yet cached);
    with a cache they are the run's own scores, not scored again."""
    need = profiles if screener.needs_profile else None
    most = len(resumes) if most is None else min(int(most), len(resumes))

    def timed(rows: pd.DataFrame) -> tuple[float, pd.DataFrame]:
        t0 = time.perf_counter()
        # the whole call is timed, as the audit's scoring is: building the items, reading
        # and writing the cache, the score_batch calls at the batch size the scoring uses
        df = score_resumes(screener, rows, profiles=need, cache=cache)
        return time.perf_counter() - t0, df

    warmup, _ = timed(resumes.head(1))  # untimed in the rate: the first call's loading
    used = 1
    stats0 = dict(screener.stats)
    one = many = None
    failed = 0
    if used < most:
        one, df = timed(resumes.iloc[used:used + 1])
        used, failed = used + 1, int((~df["parse_ok"]).sum())
    k = max(int(k), 2)
    while used < most:
        rows = resumes.iloc[used:used + min(k, most - used)]
        many, df = timed(rows)
        used, failed = used + len(rows), failed + int((~df["parse_ok"]).sum())
        if many >= 4 * one or used >= most:
            break
        k *= 2
    stats = dict(screener.stats)
    req = stats.get("requests", 0) - stats0.get("requests", 0)
    tok = stats.get("prompt_tokens", 0) - stats0.get("prompt_tokens", 0)
    if many is not None and len(rows) > 1:
        per = max(many - one, 0.0) / (len(rows) - 1)
        call = max(one - per, 0.0)
        n_timed = 1 + len(rows)
    else:  # too few résumés to tell a call's cost from a résumé's: all of it per résumé
        per, call, n_timed = (one if one is not None else warmup), 0.0, 1
    return {"n": n_timed, "seconds_per_resume": per, "call_s": call, "warmup_s": warmup, "scored": used,
            "requests": int(req), "prompt_tokens_per_request": (tok / req) if req and tok else None,
            "failed": failed}


def plan_run(req: ReportRequest, scr, resumes: pd.DataFrame, prof: pd.DataFrame, *, cache=None,
             dry_run: bool = False, started: float, n_leak: int = 0) -> tuple[Plan, int]:
    """Count what the score cache holds, probe the rest, time the yardstick, and plan the run
    (:func:`popresume.audit.report.plan`). Returns the :class:`Plan` and how many of the audit's
    résumés the probe scored into the cache (they are the run's own: counted as newly scored).

    A dry run probes into a throw-away cache, so that nothing is written; with everything
    cached, nothing is probed (the model is not even loaded)."""
    # drawn once per process: the card will find them drawn; its résumés it renders again
    card_profiles = default_profiles(req.card_n, seed=req.seed)
    t = time.perf_counter()
    variants = card_inputs(card_profiles, seed=req.seed)
    card_render = time.perf_counter() - t
    card_items = sum(len(res) for _, res, _, _ in variants)
    t = time.perf_counter()
    card_left = [int(uncached(scr, res, profiles=p if scr.needs_profile else None, cache=cache,
                              job_descriptions=jobs).sum())
                 for _, res, p, jobs in variants if len(res)]
    card_read = time.perf_counter() - t
    t = time.perf_counter()
    left = uncached(scr, resumes, profiles=prof if scr.needs_profile else None, cache=cache)
    read = time.perf_counter() - t
    pr: dict[str, Any] = {"n": 0, "seconds_per_resume": None, "scored": 0, "prompt_tokens_per_request": None}
    probed = 0
    if left.any() or sum(card_left) or n_leak:
        # the first audit résumés not cached; with fewer than two (nothing to time a batch on),
        # the first audit résumés again, into a throw-away cache
        writes = int(left.sum()) >= 2 and cache is not False
        pool = resumes[left] if writes else resumes
        with tempfile.TemporaryDirectory() as tmp:
            # opened and closed by each call, as the scoring's cache is
            throwaway = (dry_run or not writes) and cache is not False
            pr = probe(scr, pool, prof, k=probe_size(scr), cache=Path(tmp) / "probe.sqlite" if throwaway else cache)
        probed = pr["scored"] if writes and not dry_run else 0
    pr.update(card_render_s=card_render, card_read_s=card_read, read_s=read)
    pr["yardstick_s"] = report.yardstick_seconds(len(resumes))
    done = time.perf_counter() - started
    p = report.plan(pr, n=len(resumes), to_score=int(left.sum()) - probed, card_to_score=sum(card_left),
                    card_calls=sum(1 for c in card_left if c),
                    attributes=len(req.attributes), tune=req.tune, folds=req.folds, leakage_items=n_leak,
                    done_s=done)
    return Plan(probe=pr, card_items=card_items, **p), probed


def run_report(request: ReportRequest, *, cache=None, progress: bool = False, dry_run: bool = False,
               echo: Callable[[str], None] = print, started: float | None = None) -> AuditReport | None:
    """Run the audit of one screener and return its :class:`AuditReport` (``None`` with ``dry_run``).

    ``request.leakage`` adds Beyond the Name's Tasks 1-3 for the same screener (on the first
    ``leakage_bases`` of the 20 base résumés, all by default) as the report's ``leakage``.
    ``cache``: the score cache (as for :func:`popresume.screeners.score_run`).

    Raises ``ValueError`` (one line) on a bad request and when the screener fails the validity
    gate without ``force``; an unreachable server raises ``ConnectionError``.

    Parameters
    ----------
    request : ReportRequest
        The screener, the population and the settings.
    cache : ScoreCache, optional
        The score cache (as for :func:`popresume.screeners.score_run`); default the package's.
    progress : bool
        Show progress bars.
    dry_run : bool
        Print the plan (the probe and the expected durations) and stop.
    echo : callable
        Where the plan and the progress lines go.
    started : float, optional
        The ``time.perf_counter()`` reading the run counts from, for the plan's "already spent"
        (the command line passes its process's start); default: the call.

    Returns
    -------
    AuditReport or None
        The report; None with ``dry_run``.

    Examples
    --------
    >>> req = ReportRequest("synthetic", occupation="accountant", n=100, n_boot=10 ** 7)
    >>> try:
    ...     run_report(req)
    ... except ValueError as refused:  # before any work
    ...     print(refused)
    --n-boot 10000000 is out of range: use 0 to 100,000
    """
    req = request
    req.check()
    timings: dict[str, float] = {}
    t_all = time.perf_counter()
    t_start = t_all if started is None else started
    scr = get_screener(req.spec)
    label = scr.secrets.scrub(req.label())  # what the report, its errors and the card print: no password
    judge, n_leak = None, 0
    if req.leakage:
        judge = report_leakage.leakage_judge(scr)  # a screener that can run no task is refused before any work
        leak_variants, leak_baselines = report_leakage.corpus(req.leakage_bases)
        check_judge(judge, leak_variants, leak_baselines)  # one item per task first: a server that cannot judge

        n_leak = report_leakage.n_requests(leak_variants)

    t = time.perf_counter()
    prof, population = load_population(req.occupation, req.n, seed=req.seed, profiles=req.profiles)
    resumes = render(prof, req.fmt, seed=req.seed, progress=progress)
    timings["population_and_resumes_s"] = time.perf_counter() - t

    t = time.perf_counter()
    plan, probed = plan_run(req, scr, resumes, prof, cache=cache, dry_run=dry_run, started=t_start,
                            n_leak=n_leak)
    timings["probe_s"] = time.perf_counter() - t
    pr = plan.probe
    if pr["n"]:
        tpr = pr["prompt_tokens_per_request"]
        tok = "n/a (no usage reported)" if tpr is None else f"{tpr:.0f}"
        echo(f"probe: {pr['n']} résumés, {plan.seconds_per_resume:.3f} s per résumé, prompt tokens per request "
             f"{tok}")
    else:
        echo("probe: none (every résumé of the card and the audit is in the score cache)")
    echo(report.plan_line(plan.to_json()["plan"], n=len(resumes), card_items=plan.card_items))
    if req.leakage:
        echo(f"leakage: {n_leak:,} prompts of Tasks 1-3 (about {plan.leakage_s:.0f} s at the probe's pace)")
    if dry_run:
        return None

    t = time.perf_counter()
    card = validity_card(scr, n=req.card_n, seed=req.seed, cache=cache, progress=progress, spec=label)
    validity = Validity.from_card(card, rule=PASS_RULE, checks=card_table(card), force=req.force)
    timings["validity_s"] = time.perf_counter() - t
    echo(f"validity gate: {validity.verdict.upper()}"
         + (f" ({'; '.join(validity.reasons)})" if validity.reasons else ""))
    if validity.verdict != "pass" and not req.force:
        raise ValueError(f"screener {label!r} fails the validity gate: {validity.reasons[0] if validity.reasons else ''}"
                         f"; nothing written (--force audits it anyway)")

    t = time.perf_counter()
    run = pipeline.score(scr, resumes, prof, cache=cache, progress=progress)
    timings["scoring_s"] = time.perf_counter() - t
    scores, summ = run.table, run.summary
    echo(format_summary(summ))
    fails = scores.loc[~scores["parse_ok"], ["resume_id", "raw"]].astype(str).to_dict("records")
    ok = scores[scores["parse_ok"]]
    if ok.empty:
        raise ValueError(f"screener {label!r} gave no score for any of the {len(scores):,} résumés "
                         f"(first failure: {fails[0]['raw'][:200] if fails else '?'})")

    t = time.perf_counter()
    data = prepare(prof, ok)
    data = data[data["score"].notna()].reset_index(drop=True)
    omitted, notes = [], []
    constant = constant_score(data)
    decomps = {}
    if constant is not None:
        omitted.append(Omitted("decomposition", (
            f"the screener gave every one of the {len(data):,} scored résumés the same score ({constant:g}), so "
            f"there is no score gap to decompose and no interval to compute")))
        notes.append(f"The screener is constant: every scored résumé got {constant:g}. It does not read the "
                     f"résumés; no effect, ratio or test below says anything about discrimination.")
    else:
        for attr in req.attributes:
            truth = (scr.true_effects(prof, attr, format=req.fmt) if has_capability(scr, "true_effects")
                     else None)
            decomps[attr] = report.decompose(data, attr, folds=req.folds, n_boot=req.n_boot, seed=req.seed,
                                             tune=req.tune, variance=req.variance, truth=truth,
                                             target=req.target)
    timings["estimation_s"] = time.perf_counter() - t

    t = time.perf_counter()
    ll, ff, chance = report.outcome_level(data, select_top=req.select_top, n_sim=req.n_sim, seed=req.seed)
    dis = report.disagreements(decomps, ff.table)
    timings["outcome_level_s"] = time.perf_counter() - t

    leak = None
    if judge is not None:
        t = time.perf_counter()
        leak = report_leakage.leakage_section(judge, leak_variants, leak_baselines, cache=cache, n_boot=req.n_boot,
                                              seed=req.seed, progress=progress, echo=echo)
        timings["leakage_s"] = time.perf_counter() - t

    ident = identity(scr)
    lim = report.limitations(verdict=validity.verdict, reasons=validity.reasons, forced=validity.forced,
                             decompositions=decomps,
                             synthetic_population=req.profiles is None,
                             synthetic_screener=has_capability(scr, "true_effects"), identity=ident,
                             n_failed=len(fails), n=len(scores), occupation=req.occupation, fmt=req.fmt)
    timings["total_s"] = time.perf_counter() - t_all
    run_info = ScreenerRun(subject=f"{label} on {req.occupation}", n=int(summ["n"]), occupation=req.occupation,
                           fmt=req.fmt, seed=req.seed, attributes=list(req.attributes), population=population,
                           forced=validity.forced, select_top=req.select_top, timings=timings,
                           # the probe's résumés were scored by this run, into the cache
                           counts=Counts(n=int(summ["n"]), scored=int(len(ok)), cached=int(summ["cached"]) - probed,
                                         newly_scored=int(summ["scored"]) + probed, failed=len(fails)),
                           failures=fails)
    provenance = Provenance(spec=label, screener={k: v for k, v in ident.items() if k != "params"},
                            screener_params=ident.get("params", {}),
                            sources=report.sources(next(iter(decomps.values())).ci_method if decomps else None))
    # the page's order; a new section is one more entry here
    sections = [provenance, plan, validity, Decompositions(decomps), *omitted, Precision.of(decomps), ll, ff,
                chance, Disagreements(dis), leak if leak is not None else NotAsked("leakage")]
    return AuditReport(run=run_info, sections=sections, limitations=lim, notes=notes)


def constant_score(data: pd.DataFrame, column: str = "score") -> float | None:
    """The one score every row has, or None when the scores vary."""
    s = data[column].dropna()
    return float(s.iloc[0]) if len(s) and s.nunique() == 1 else None


#: Folders of the repository that hold its sources: a report is never written into them.
SOURCE_FOLDERS = ("popresume", "notebooks", "tests", "docs", "book", "data", "configs", "scripts", "benchmarks")


def check_report_folder(folder: str | os.PathLike) -> Path:
    """Refuse, in one line, a report folder that is empty text, the repository's root or
    inside one of its source folders (:data:`SOURCE_FOLDERS`): a report there would sit among
    the package's files and be committed with them."""
    if not str(folder).strip():
        raise ValueError("--report '' names no folder; give one, e.g. --report report/")
    path = Path(folder).expanduser().resolve()
    root = Path(REPO_ROOT).resolve()
    if path == root:
        raise ValueError(f"--report {str(folder)!r} is the repository's root; give a folder of its own, "
                         f"e.g. --report report/")
    for name in SOURCE_FOLDERS:
        if path == root / name or (root / name) in path.parents:
            raise ValueError(f"--report {str(folder)!r} is inside the repository's {name}/ folder; give a folder "
                             f"outside it, e.g. --report report/")
    return path


#: The report's two files, written as a pair.
REPORT_FILES = ("report.json", "report.html")


def write_report(rep: AuditReport, folder: str | os.PathLike) -> tuple[Path, Path]:
    """Write ``folder/report.html`` and ``folder/report.json`` as a pair; returns both paths.

    Both are written to temporary files in ``folder`` first (the HTML's rendering time is
    added to ``run.timings``), and moved into place only when both are whole. If a write
    fails (a full disk), the temporary files are removed and an earlier pair is left as it
    was; if the second move fails, the first is undone, so the folder never holds a page
    beside the numbers of another run (:func:`popresume.io.write_together`). A folder made for
    the report is removed again when nothing was written.

    Parameters
    ----------
    rep : AuditReport
        The report.
    folder : str or PathLike
        The report folder (created when missing).

    Returns
    -------
    (Path, Path)
        ``report.json`` and ``report.html``.

    Examples
    --------
    >>> import tempfile, json
    >>> rep = AuditReport(run=RunInfo(subject="recorded decisions (d.csv)", n=400))
    >>> page, numbers = sorted(write_report(rep, tempfile.mkdtemp()))
    >>> page.name, numbers.name, json.loads(numbers.read_text())["run"]
    ('report.html', 'report.json', {'subject': 'recorded decisions (d.csv)', 'n': 400})
    """
    folder = Path(folder)
    t = time.perf_counter()
    page = render_html(rep)
    body = rep.to_json()
    if isinstance(rep.run, ScreenerRun):  # the rendering's seconds join the run's timings in report.json
        body["run"]["timings"]["rendering_s"] = time.perf_counter() - t
    text = json.dumps(body, indent=1, ensure_ascii=False, allow_nan=False)  # both made before either is written
    content = {"report.json": text, "report.html": page}
    final = write_together(folder, {name: (lambda tmp, c=content[name]: tmp.write_text(c, encoding="utf-8"))
                                    for name in REPORT_FILES}, what="the report")
    return final["report.html"], final["report.json"]
