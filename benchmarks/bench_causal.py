"""Benchmarks of the causal estimator: cost of a full table, and accuracy against the authors' bagged refits.

``timing`` (default): one full PSE table with 500-draw CIs on 17,632 rows (the nurse
sample), tuning included: single split, and repeated cross-fitting (``--n-rep``); then the
jackknife's refits (``--jackknife-groups``) and the refit bootstrap with a few draws, with
the cost per draw of each method and their ratio, all measured in the same run. Target: the
full table within 30 s on 2 cores.

``variance``: why the mediated effects' intervals are too narrow at n = 1,000-4,000, and
what each candidate remedy does: per sample of an SCM (exact truth), the influence-function
SE, the SE of ``--draws`` refit-bootstrap draws (the nuisances re-fitted on each resample,
``PSEEstimator.refit_draws``) and the between-fold SE (the spread of the five folds'
estimates over √5, a t interval with 4 df), with the cost of one refit draw; then per effect
each SE over the SD of the errors (1 when right) and the coverage of its 95% interval.

``jackknife``: the delete-a-group jackknife (``EstimatorSpec(variance="jackknife")``,
``PSEEstimator.jackknife_draws``) against the influence-function SE on the same samples of an
SCM (the coverage harness's seeds): per sample the influence SE and the jackknife SEs with
each ``--groups`` G (G refits without one group each, the folds and tuned hyperparameters
kept); then per effect and SE its coverage with the Wilson interval, with a normal quantile
and a t quantile on G − 1 df, its mean over the SD of the errors and its mean half-width over
the influence interval's, and the seconds per sample. ``--learner tool`` fits as the tool
does (XGBoost tuned on every fit; the refits keep the fit's tuning) on the harness's samples
and seeds, so its records pair with the harness's tool-default replications
(``benchmarks/results/jackknife_records_tool.csv.gz``: 100 samples of the good design at
n = 1,000, 2,000, 4,000 and 8,000; ``bench_coverage.py --average-from`` reads them in).

``coverage``: repeated samples from the synthetic SCMs (``popresume.causal.scm``, exact
truth), comparing per effect the single-split DML, repeated cross-fitting (median and
mean aggregation) and the authors' estimator, the mean of ``--bagged`` refit bootstrap
draws with their percentile CI: bias, sd, RMSE, CI coverage and width. One SCM
(``weak_overlap``) has propensities as extreme as 0.05 / 0.95.

    .venv/bin/python benchmarks/bench_causal.py timing [--n 17632] [--n-rep 5] [--refit-draws 3] [--threads 1]
        [--jackknife-groups 10 20]
    .venv/bin/python benchmarks/bench_causal.py variance [--scm basic] [--n 1000] [--reps 40] [--draws 50]
        [--learner cells|xgboost] [--out records.csv]
    .venv/bin/python benchmarks/bench_causal.py jackknife [--scm basic] [--n 1000] [--reps 300] [--groups 10 20]
        [--learner cells|xgboost|tool] [--start 0] [--out records.csv] [--records benchmarks/results/jackknife_records.csv.gz]
    .venv/bin/python benchmarks/bench_causal.py coverage [--scms basic weak_overlap high_card_r]
        [--reps 100] [--n 2000] [--bagged 30] [--n-rep 5 10] [--out results.csv]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd
from scipy.stats import norm
from scipy.stats import t as student_t

from popresume.causal import PSEData, PSEEstimator, capture_pse_warnings, default_roles, make_scm
from popresume.causal.functional import effects_from_psi
from popresume.causal.nuisance import CellMeans
from popresume.causal.results import jackknife_se
from popresume.causal.scm import coverage_study
from popresume.coverage.causal import ROLES, tuned_learners
from popresume.coverage.intervals import wilson
from popresume.grouping import add_groups
from popresume.io import write_table
from popresume.population import generate_population
from popresume.schema import PSE_NAMES


def data(n: int, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """Profiles from popresume.population (the nurse occupation) with a synthetic score."""
    p = add_groups(generate_population(["nurse"], {"nurse": n}, seed=seed))
    rng = np.random.default_rng(seed)
    edu = p["edu_group"].map({"low": 0.0, "medium": 1.0, "high": 2.0}).to_numpy()
    score = (70 + 0.8 * (p["gender"] == "M") + 2.0 * edu + 0.15 * p["exp_year"]
             - 0.6 * (p["fn_gender"] == "female") + 0.5 * (p["region"] == "West") + rng.normal(0, 4, len(p)))
    p["score"] = score.to_numpy()
    return p, default_roles("gender")


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def timing(a) -> None:
    print(f"XGBoost threads per fit: {a.threads}; cores: {os.cpu_count()}; nice {os.nice(0)}")
    t0 = time.perf_counter()
    df, roles = data(a.n)
    print(f"data: {len(df)} rows, roles {roles} ({time.perf_counter() - t0:.1f} s, not counted)")
    t, c = time.perf_counter(), time.process_time()
    pdata = PSEData(df, **roles, y="score")
    t_data, c_data = time.perf_counter() - t, time.process_time() - c
    totals = {}
    for n_rep in sorted({1, *a.n_rep}):
        print(f"\n--- n_rep = {n_rep} (load average before: {_load()})")
        with capture_pse_warnings() as caught:
            t, c = time.perf_counter(), time.process_time()
            est = PSEEstimator(pdata, folds=5, seed=0, n_rep=n_rep, threads=a.threads).fit()
            t_fit = time.perf_counter() - t
            t = time.perf_counter()
            est.bootstrap(a.n_boot)
            t_boot = time.perf_counter() - t
            table = est.summary
            cpu = time.process_time() - c + c_data
        for w in caught:
            print("warning:", w)
        print(table[["estimate", "se", "ci_low", "ci_high"]].round(3).to_string())
        totals[n_rep] = t_data + t_fit + t_boot
        verdict = "met" if totals[n_rep] < 30 else "MISSED"
        print(f"data check + encoding: {t_data:6.2f} s; cross-fitted fit ({n_rep} split(s), tuning included): "
              f"{t_fit:6.1f} s; influence bootstrap, {a.n_boot} draws: {t_boot:6.2f} s")
        print(f"TOTAL full table with {a.n_boot}-draw CIs, n_rep={n_rep}: {totals[n_rep]:6.1f} s wall  "
              f"(target < 30 s: {verdict}); CPU time of this process {cpu:6.1f} s (what the wall time is on an "
              f"idle core with one thread per fit); load average after: {_load()}")
    print(est.diagnostics["params"].to_string())
    for g in a.jackknife_groups:  # variance="jackknife": G refits of the single split, tuning reused
        est1 = PSEEstimator(pdata, folds=5, seed=0, threads=a.threads).fit()
        t, c = time.perf_counter(), time.process_time()
        est1.jackknife_draws(g)
        t_jack, c_jack = time.perf_counter() - t, time.process_time() - c
        print(f"\njackknife, G = {g}: {t_jack:.1f} s wall ({c_jack:.1f} s CPU of this process) on top of the fit "
              f"({t_jack / g:.1f} s a refit); the table with "
              f"variance='jackknife' takes ~{totals[1] + t_jack:.0f} s, {(totals[1] + t_jack) / totals[1]:.1f}x the "
              f"influence table (load average after: {_load()})")
    if a.refit_draws:
        t = time.perf_counter()
        est1 = PSEEstimator(pdata, folds=5, seed=0, threads=a.threads).fit()
        t_fit1 = time.perf_counter() - t
        t = time.perf_counter()
        est1.refit_draws(a.refit_draws)
        per_refit = (time.perf_counter() - t) / a.refit_draws
        print(f"\nrefit bootstrap: {per_refit:.1f} s/draw; the authors' 500-refit table would take "
              f"~{t_fit1 + 500 * per_refit:,.0f} s ({(t_fit1 + 500 * per_refit) / totals[1]:,.0f}x the influence "
              f"table, {(t_fit1 + 500 * per_refit) / totals[max(totals)]:,.0f}x the n_rep={max(totals)} table)")


def variance(a) -> None:
    """Influence-function, refit-bootstrap and between-fold SEs on samples of one SCM (module docstring)."""
    scm = make_scm(a.scm, seed=0)
    truth = scm.true_effects().to_numpy()
    rows, per_draw = [], []
    learners = ({"propensity": CellMeans(), "outcome": CellMeans()} if a.learner == "cells"
                else tuned_learners(a.scm, a.n))  # tuned once on a pilot sample, as the harness does
    for rep in range(a.start, a.start + a.reps):
        d = scm.sample(a.n, seed=a.n * 7919 + rep)  # the coverage harness's samples (seed 0)
        with capture_pse_warnings():
            est = PSEEstimator(d, **ROLES, seed=rep, learners=learners).fit()
            t = time.perf_counter()
            refit = effects_from_psi(est.refit_draws(a.draws, seed=rep + 7)) if a.draws else None
            per_draw.append((time.perf_counter() - t) / max(a.draws, 1))
        res = est.result_
        phi = effects_from_psi(res.phi)
        folds = np.array([phi[res.fold == f].mean(axis=0) for f in range(int(res.fold.max()) + 1)])
        se_fold = folds.std(axis=0, ddof=1) / np.sqrt(len(folds))
        for j, e in enumerate(PSE_NAMES):
            rows.append({"learner": a.learner, "scm": a.scm, "n": a.n, "rep": rep, "effect": e, "truth": truth[j],
                         "estimate": float(res.effects[e]), "se_influence": float(res.se[e]),
                         "se_refit": float(refit[:, j].std(ddof=1)) if refit is not None else np.nan,
                         "se_fold": float(se_fold[j]), "folds": len(folds)})
    rec = pd.DataFrame(rows)
    print(f"{a.reps} samples of {a.scm}, n = {a.n}, learner {a.learner}; refit draw {np.mean(per_draw):.2f} s "
          f"(load average {_load()})")
    print(variance_table(rec).round(3).to_string())
    if a.out:
        write_table(rec, a.out)
        print(f"wrote {a.out}")


def variance_table(rec: pd.DataFrame) -> pd.DataFrame:
    """Per SE of :func:`variance`'s records: its mean over the SD of the errors, and its interval's coverage."""
    err = rec["estimate"] - rec["truth"]
    sd = err.groupby(rec["effect"]).std()
    out = {"bias / SD": err.groupby(rec["effect"]).mean() / sd}
    q_fold = student_t.ppf(0.975, rec["folds"] - 1)
    for name, col, q in (("influence", "se_influence", norm.ppf(0.975)), ("refit", "se_refit", norm.ppf(0.975)),
                         ("between folds (t)", "se_fold", q_fold)):
        if rec[col].isna().all():  # no refit draws asked (--draws 0)
            continue
        out[f"{name}: SE / SD"] = rec[col].groupby(rec["effect"]).mean() / sd
        out[f"{name}: coverage"] = (err.abs() <= q * rec[col]).groupby(rec["effect"]).mean()
    return pd.DataFrame(out).T[list(PSE_NAMES)]


def jackknife(a) -> None:
    """Influence-function and delete-a-group jackknife SEs on samples of one SCM (module docstring)."""
    if a.records:  # the tables of stored records, one per design and n, with no fit
        rec = pd.read_csv(a.records)
        for (scm, n), g in rec.groupby(["scm", "n"]):
            print(f"\n{g['rep'].nunique()} samples of {scm}, n = {n}, learner {g['learner'].iat[0]} ({a.records})")
            print(jackknife_table(g.dropna(axis=1, how="all")).to_string())
        return
    scm = make_scm(a.scm, seed=0)
    truth = scm.true_effects().to_numpy()
    learners = ({"propensity": CellMeans(), "outcome": CellMeans()} if a.learner == "cells"
                else None if a.learner == "tool"  # the tool's own: XGBoost tuned on every fit
                else tuned_learners(a.scm, a.n))  # tuned once on a pilot sample, as the harness does
    rows, seconds = [], []
    t0 = time.perf_counter()
    for rep in range(a.start, a.start + a.reps):
        d = scm.sample(a.n, seed=a.n * 7919 + rep)  # the coverage harness's samples (seed 0)
        t = time.perf_counter()
        with capture_pse_warnings():
            est = PSEEstimator(d, **ROLES, seed=rep, learners=learners).fit()
            jack = {g: jackknife_se(effects_from_psi(est.jackknife_draws(g, seed=rep + 2))) for g in a.groups}
        seconds.append(time.perf_counter() - t)
        res = est.result_
        for j, e in enumerate(PSE_NAMES):
            rows.append({"learner": a.learner, "scm": a.scm, "n": a.n, "rep": rep, "effect": e, "truth": truth[j],
                         "estimate": float(res.effects[e]), "se_influence": float(res.se[e]),
                         **{f"se_jackknife_{g}": float(se[j]) for g, se in jack.items()},
                         "estimable": bool(res.estimable[e])})
        if a.out and (rep + 1 - a.start) % 5 == 0:  # a long run leaves its records as it goes
            write_table(pd.DataFrame(rows), a.out)
    rec = pd.DataFrame(rows)
    print(f"{a.reps} samples of {a.scm}, n = {a.n}, learner {a.learner}; {np.mean(seconds):.2f} s per sample "
          f"(one fit + {sum(a.groups)} refits; {time.perf_counter() - t0:.0f} s in all; load average {_load()})")
    print(jackknife_table(rec).to_string())
    if a.out:
        write_table(rec, a.out)
        print(f"wrote {a.out}")


def jackknife_table(rec: pd.DataFrame) -> pd.DataFrame:
    """Per SE of :func:`jackknife`'s records and effect: coverage [Wilson 95%], SE / SD, half-width / influence's."""
    err = (rec["estimate"] - rec["truth"]).abs()
    sd = (rec["estimate"] - rec["truth"]).groupby(rec["effect"]).std()
    z = norm.ppf(0.975)
    kinds = [("influence, normal", "se_influence", z)]
    for col in sorted((c for c in rec.columns if c.startswith("se_jackknife_")), key=lambda c: int(c.split("_")[-1])):
        g = int(col.split("_")[-1])
        kinds += [(f"jackknife G={g}, normal", col, z),
                  (f"jackknife G={g}, t({g - 1})", col, student_t.ppf(0.975, g - 1))]
        # the mean of the two variances: if the jackknife counts the nuisances' second-order
        # noise about twice (Efron & Stein 1981) and the influence SE leaves it out, the mean
        # counts it once (a candidate, read off the same records)
        rec = rec.assign(**{f"se_mean_{g}": np.sqrt((rec["se_influence"] ** 2 + rec[col] ** 2) / 2)})
        kinds += [(f"mean of influence and jackknife G={g} variances, normal", f"se_mean_{g}", z)]
    base = z * rec["se_influence"]
    out = []
    for name, col, q in kinds:
        hit = err <= q * rec[col]
        for e in PSE_NAMES:
            m = rec["effect"] == e
            k, r = int(hit[m].sum()), int(m.sum())
            lo, hi = wilson(k, r)
            out.append({"SE": name, "effect": e, "reps": r, "coverage": f"{k / r:.3f} [{lo:.3f}, {hi:.3f}]",
                        "SE / SD": round(float(rec.loc[m, col].mean() / sd[e]), 3),
                        "half-width / influence's": round(float((q * rec.loc[m, col]).mean() / base[m].mean()), 3)})
    return pd.DataFrame(out).set_index(["SE", "effect"])


def coverage(a) -> None:
    parts = []
    for kind in a.scms:
        t = time.perf_counter()
        print(f"\n=== SCM {kind}: {a.reps} samples of n = {a.n}, bagged refits B = {a.bagged}, "
              f"n_rep {a.n_rep} (load average {_load()})", flush=True)
        _, cov = coverage_study(kind, n=a.n, reps=a.reps, n_boot=a.n_boot, seed=a.seed, plugin=False,
                                n_rep=(1, *a.n_rep), aggregate=("median", "mean"), bagged=a.bagged,
                                progress=a.progress)
        cov = cov[cov["method"] != "naive difference"]
        cov["seconds"] = time.perf_counter() - t
        parts.append(cov)
        show = cov.pivot(index="method", columns="effect", values="rmse")[["TE", "NDE", "NIE", "BIE", "RIE"]]
        print("RMSE\n" + show.round(4).to_string())
        show = cov.pivot(index="method", columns="effect", values="coverage")[["TE", "NDE", "NIE", "BIE", "RIE"]]
        print("coverage of the 95% CIs\n" + show.round(3).to_string())
        ref = cov[cov["method"].str.startswith("refit-bagged")].set_index("effect")["rmse"]
        for m, g in cov.groupby("method"):
            if m.startswith("refit"):
                continue
            ratio = g.set_index("effect")["rmse"] / ref
            print(f"  {m:28s} RMSE / bagged: " + "  ".join(f"{e} {ratio[e]:.3f}" for e in ratio.index))
        print(f"({time.perf_counter() - t:.0f} s)", flush=True)
    out = pd.concat(parts, ignore_index=True)
    if a.out:
        write_table(out, a.out)
        print(f"wrote {a.out}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what")
    t = sub.add_parser("timing")
    t.add_argument("--n", type=int, default=17632)
    t.add_argument("--n-boot", type=int, default=500)
    t.add_argument("--n-rep", type=int, nargs="*", default=[5])
    t.add_argument("--refit-draws", type=int, default=3)
    t.add_argument("--threads", type=int, default=1, help="XGBoost threads per fit (the package default is 1)")
    t.add_argument("--jackknife-groups", type=int, nargs="*", default=[],
                   help="also time the jackknife's refits with each number of groups G")
    v = sub.add_parser("variance")
    v.add_argument("--scm", default="basic")
    v.add_argument("--n", type=int, default=1000)
    v.add_argument("--reps", type=int, default=40)
    v.add_argument("--draws", type=int, default=50, help="refit-bootstrap draws per sample (0: none)")
    v.add_argument("--learner", choices=("cells", "xgboost"), default="cells",
                   help="cell means, or XGBoost tuned once on a pilot sample (the harness's)")
    v.add_argument("--out", default=None, help="write the per-sample records (.csv/.parquet)")
    j = sub.add_parser("jackknife")
    j.add_argument("--scm", default="basic")
    j.add_argument("--n", type=int, default=1000)
    j.add_argument("--reps", type=int, default=300)
    j.add_argument("--start", type=int, default=0, help="the first sample's number (split a run over processes)")
    j.add_argument("--groups", type=int, nargs="+", default=[10, 20], help="the jackknife's numbers of groups G")
    j.add_argument("--learner", choices=("cells", "xgboost", "tool"), default="cells",
                   help="cell means, XGBoost tuned once on a pilot sample (the harness's), or the tool's "
                        "default (XGBoost tuned on every fit; the jackknife's refits keep the fit's tuning)")
    j.add_argument("--out", default=None, help="write the per-sample records (.csv/.parquet)")
    j.add_argument("--records", default=None,
                   help="print the tables of stored records (benchmarks/results/jackknife_records.csv.gz) instead")
    c = sub.add_parser("coverage")
    c.add_argument("--scms", nargs="+", default=["basic", "weak_overlap", "high_card_r"])
    c.add_argument("--reps", type=int, default=100)
    c.add_argument("--n", type=int, default=2000)
    c.add_argument("--n-boot", type=int, default=200)
    c.add_argument("--bagged", type=int, default=30)
    c.add_argument("--n-rep", type=int, nargs="+", default=[5, 10])
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", default=None, help="write the tidy table (.csv/.parquet)")
    c.add_argument("--progress", action="store_true")
    a = ap.parse_args(argv)
    if a.what == "coverage":
        coverage(a)
    elif a.what == "variance":
        variance(a)
    elif a.what == "jackknife":
        jackknife(a)
    else:
        if a.what is None:
            a = ap.parse_args(["timing", *(argv or [])])
        timing(a)


if __name__ == "__main__":
    main()
