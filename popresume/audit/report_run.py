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

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from popresume.audit import report as R
from popresume.schema import ATTRIBUTES, FORMATS, OCCUPATION_KEYS

#: Fewest résumés an audit accepts (each attribute's smaller group also needs R.MIN_PER_GROUP).
MIN_N = 100
PROBE_N = 3


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


def load_population(occupation: str, n: int, *, seed: int = 0, profiles: str | os.PathLike | None = None
                    ) -> tuple[pd.DataFrame, str]:
    """``n`` profiles of ``occupation``: a fresh synthetic sample, or the first ``n`` rows of that
    occupation in a user's file. Returns (profiles, a description of where they come from)."""
    if profiles is None:
        from popresume.population import generate_population

        return (generate_population([occupation], {occupation: n}, seed=seed),
                "synthetic (popresume.population, embedded P1 raked to published margins)")
    from popresume.io import read_parquet
    from popresume.schema import PROFILE_COLUMNS, validate_profiles

    p = read_parquet(profiles, what="profiles", columns=PROFILE_COLUMNS)
    p = validate_profiles(p)
    p = p[p["occupation"] == occupation]
    if p.empty:
        raise ValueError(f"--profiles {profiles}: no row with occupation {occupation!r}")
    return p.head(n).reset_index(drop=True), f"user's profiles ({profiles}, {min(len(p), n):,} rows)"


def render(profiles: pd.DataFrame, fmt: str, *, seed: int = 0, progress: bool = False) -> pd.DataFrame:
    """The résumés of ``profiles`` in ``fmt``; images go to a cache folder keyed on the profiles."""
    if fmt == "text":
        from popresume.resumes import render_texts

        return render_texts(profiles, seed=seed, progress=progress)
    from popresume.paths import cache_path
    from popresume.resumes.image import render_images

    key = hashlib.sha256(pd.util.hash_pandas_object(profiles, index=False).values.tobytes()).hexdigest()[:16]
    out = cache_path("audit_report", f"{fmt.replace('+', '_')}-{seed}-{key}", "x").parent
    table = render_images(profiles, out, photo=(fmt == "image+photo"), seed=seed, progress=progress)
    table["format"] = fmt
    return table


def identity(screener) -> dict[str, Any]:
    """Who produced every number: id, model, prompt hash, scoring mode, HTTP dialect."""
    from popresume.screeners.validity import screener_identity

    ident = screener_identity(screener)
    params = ident.get("params", {})
    ident["scoring"] = params.get("scoring") or "direct"
    ident["dialect"] = params.get("dialect")
    return ident


def probe_size(screener) -> int:
    """Résumés the probe times: one model batch for a screener that embeds résumés in
    batches (three résumés of a batch cost what 32 do, and would overstate the run's time
    tenfold), else :data:`PROBE_N`."""
    from popresume.screeners.base import has_capability

    if has_capability(screener, "embeddings"):
        return max(PROBE_N, int(getattr(screener, "batch_size", PROBE_N)))
    return PROBE_N


def probe(screener, resumes: pd.DataFrame, profiles: pd.DataFrame | None, *, k: int = PROBE_N) -> dict[str, Any]:
    """Score ``k`` résumés without the cache (after one untimed warm-up résumé); seconds per
    résumé and prompt tokens per request (when the server reports usage)."""
    from popresume.screeners import score_resumes, score_run

    need = profiles if screener.needs_profile else None
    # one résumé first, untimed: a model's first call (weights, kernels, the dialect
    # negotiation of an HTTP server) is not the price of the next thousand
    score_resumes(screener, resumes.head(1), profiles=need, cache=False)
    sub = resumes.iloc[1:k + 1] if len(resumes) > k else resumes.head(k)
    stats0 = dict(getattr(screener, "stats", {}) or {})
    t0 = time.perf_counter()
    run = score_run(screener, sub, profiles=need, cache=False)
    df = run.table
    wall = time.perf_counter() - t0
    stats = dict(getattr(screener, "stats", {}) or {})
    req = stats.get("requests", 0) - stats0.get("requests", 0)
    tok = stats.get("prompt_tokens", 0) - stats0.get("prompt_tokens", 0)
    secs = run.summary["seconds"]
    return {"n": len(sub), "seconds_per_resume": (secs if secs > 0 else wall) / max(len(sub), 1),
            "wall_s": wall, "requests": int(req), "prompt_tokens_per_request": (tok / req) if req and tok else None,
            "failed": int((~df["parse_ok"]).sum())}


def run_report(spec: "str | Mapping", *, occupation: str, n: int, fmt: str = "text",
               attributes: Sequence[str] = ("gender", "race"), profiles: str | os.PathLike | None = None,
               seed: int = 0, force: bool = False, dry_run: bool = False, card_n: int = 40, folds: int = 5,
               n_boot: int = 500, tune: bool = True, select_top: float = 0.25,
               target: float = R.TARGET_HALF_WIDTH, n_sim: int = 1000, cache=None, progress: bool = False,
               echo: Callable[[str], None] = print, spec_label: str | None = None, leakage: bool = False,
               leakage_bases: int | None = None) -> dict[str, Any] | None:
    """Run the audit of one screener and return the report dict (``None`` with ``dry_run``).

    ``leakage`` adds Beyond the Name's Tasks 1-3 for the same screener (on the first
    ``leakage_bases`` of the 20 base résumés, all by default) under the key ``leakage``.

    Raises ``ValueError`` (one line) on a bad request and when the screener fails the validity
    gate without ``force``; an unreachable server raises ``ConnectionError``.
    """
    from popresume.causal import prepare
    from popresume.screeners import format_summary, get_screener, score_run
    from popresume.screeners.validity import PASS_RULE, card_table, validity_card

    check_request(occupation=occupation, n=n, fmt=fmt, attributes=attributes)
    timings: dict[str, float] = {}
    t_all = time.perf_counter()
    scr = get_screener(spec)
    label = spec_label or (spec if isinstance(spec, str) else json.dumps(dict(spec)))
    judge = None
    if leakage:
        from popresume.audit import report_leakage as L

        judge = L.leakage_judge(scr)  # a screener that can run no task is refused before any work
        leak_variants, leak_baselines = L.corpus(leakage_bases)
        n_leak = L.n_requests(leak_variants)

    t = time.perf_counter()
    prof, population = load_population(occupation, n, seed=seed, profiles=profiles)
    resumes = render(prof, fmt, seed=seed, progress=progress)
    timings["population_and_resumes_s"] = time.perf_counter() - t

    t = time.perf_counter()
    pr = probe(scr, resumes, prof, k=probe_size(scr))
    timings["probe_s"] = time.perf_counter() - t
    pl = R.plan(pr["seconds_per_resume"], n=len(resumes), card_n=card_n)
    tpr = pr["prompt_tokens_per_request"]
    tok = "n/a (no usage reported)" if tpr is None else f"{tpr:.0f}"
    echo(f"probe: {pr['n']} résumés, {pr['seconds_per_resume']:.3f} s per résumé, prompt tokens per request {tok}; "
         f"expected: validity card {pl['validity_s']:.0f} s, whole run {pl['total_s']:.0f} s "
         f"(plus estimation), before the score cache")
    if leakage:
        echo(f"leakage: {n_leak:,} prompts of Tasks 1-3 (about {n_leak * pr['seconds_per_resume']:.0f} s at the "
             f"probe's pace)")
    if dry_run:
        return None

    t = time.perf_counter()
    card = validity_card(scr, n=card_n, seed=seed, cache=cache, progress=progress, spec=label)
    timings["validity_s"] = time.perf_counter() - t
    echo(f"validity gate: {card['verdict'].upper()}" + (f" ({'; '.join(card['reasons'])})" if card["reasons"] else ""))
    if card["verdict"] != "pass" and not force:
        raise ValueError(f"screener {label!r} fails the validity gate: {card['reasons'][0] if card['reasons'] else ''}"
                         f"; nothing written (--force audits it anyway)")

    t = time.perf_counter()
    run = score_run(scr, resumes, profiles=prof if scr.needs_profile else None, cache=cache, progress=progress)
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
    decomps = {}
    for attr in attributes:
        truth = None
        if callable(getattr(scr, "true_effects", None)):
            truth = scr.true_effects(prof, attr, format=fmt)
        decomps[attr] = R.decompose(data, attr, folds=folds, n_boot=n_boot, seed=seed, tune=tune, truth=truth,
                                    target=target)
    timings["estimation_s"] = time.perf_counter() - t

    t = time.perf_counter()
    ll = R.ll144_table(data, seed=seed)
    ff = R.four_fifths_table(data, select_top=select_top)
    chance = R.chance_baseline(data, n_sim=n_sim, seed=seed)
    dis = R.disagreements(decomps, ff)
    timings["outcome_level_s"] = time.perf_counter() - t

    leak = None
    if judge is not None:
        t = time.perf_counter()
        leak = L.leakage_section(judge, leak_variants, leak_baselines, cache=cache, n_boot=max(n_boot, 200),
                                 seed=seed, progress=progress, echo=echo)
        timings["leakage_s"] = time.perf_counter() - t

    ident = identity(scr)
    checks = card_table(card)
    lim = R.limitations(verdict=card["verdict"], reasons=card["reasons"], forced=force and card["verdict"] != "pass",
                        warnings={a: d["warnings"] for a, d in decomps.items()}, synthetic_population=profiles is None,
                        synthetic_screener=scr.screener_id == "synthetic", identity=ident, n_failed=len(fails),
                        n=len(scores), occupation=occupation, fmt=fmt)
    timings["total_s"] = time.perf_counter() - t_all
    report = {
        "report_version": 1,
        "spec": label,
        "screener": {k: v for k, v in ident.items() if k != "params"},
        "screener_params": ident.get("params", {}),
        "sources": R.SOURCES,
        "plan": {**pl, "probe": pr},
        "validity": {"verdict": card["verdict"], "reasons": list(card["reasons"]), "rule": PASS_RULE,
                     "parse_rate": card["parse_rate"], "n_profiles": card["n_profiles"],
                     "checks": checks.to_dict("records"), "card": card},
        "effects": R.effect_records(decomps),
        "decomposition": {a: {"x0": d["roles"]["x0"], "x1": d["roles"]["x1"], "x": d["roles"]["x"],
                              "cases": d["cases"], "min_ess": d["min_ess"], "clipped_share": d["clipped_share"],
                              "warnings": d["warnings"], "n": d["n"], "ci_method": d["ci_method"]}
                          for a, d in decomps.items()},
        "precision": R.precision_records(decomps),
        "ll144": ll.to_dict("records"),
        "four_fifths": ff.to_dict("records"),
        "chance_baseline": chance.to_dict("records"),
        "disagreements": dis.to_dict("records"),
        "limitations": lim,
        "leakage": leak,
        "run": {"occupation": occupation, "format": fmt, "seed": seed, "attributes": list(attributes),
                "population": population, "forced": bool(force and card["verdict"] != "pass"),
                "select_top": select_top, "timings": timings,
                "counts": {"n": int(summ["n"]), "scored": int(len(ok)), "cached": int(summ["cached"]),
                           "newly_scored": int(summ["scored"]), "failed": len(fails)},
                "failures": fails},
    }
    return R.finite(report)


def write_report(report: Mapping[str, Any], folder: str | os.PathLike) -> tuple[Path, Path]:
    """Write ``folder/report.html`` and ``folder/report.json`` (each atomically; the HTML's
    rendering time is added to ``run.timings``). Returns both paths."""
    from popresume.audit.report_html import render_html
    from popresume.io import write_text

    folder = Path(folder)
    t = time.perf_counter()
    page = render_html(report)
    rep = json.loads(json.dumps(report))
    rep["run"]["timings"]["rendering_s"] = time.perf_counter() - t
    body = json.dumps(rep, indent=1, ensure_ascii=False, allow_nan=False)  # both made before either is written
    folder.mkdir(parents=True, exist_ok=True)
    try:
        j = write_text(body, folder / "report.json")
        h = write_text(page, folder / "report.html")
    except OSError:
        (folder / "report.json").unlink(missing_ok=True)  # no JSON without its page
        raise
    return h, j
