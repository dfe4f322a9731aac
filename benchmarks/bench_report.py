"""Benchmark of ``popresume audit --screener``: the whole report for one screener, cold.

The embedding screener at N = 2,000 (default), both attributes, the default estimator
(tuned XGBoost, 500 influence-bootstrap draws) and a 40-résumé validity card, with an empty
score cache; prints the wall time and the shares of scoring (probe, validity card, audit
résumés), estimation, the outcome-level numbers, rendering and the rest (population and
résumés), and the machine's load average, since a busy machine stretches every share.
Goal (issue): under 5 minutes on an idle 2-core machine.

    python benchmarks/bench_report.py [--n 2000] [--screener embedding] [--occupation nurse] [--leakage]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--screener", default="embedding")
    ap.add_argument("--occupation", default="nurse")
    ap.add_argument("--leakage", action="store_true", help="add Beyond the Name's Tasks 1-3 (the same screener)")
    args = ap.parse_args()

    from popresume.audit.report_run import run_report, write_report

    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = run_report(args.screener, occupation=args.occupation, n=args.n, force=True,
                             cache=os.path.join(tmp, "scores.sqlite"), echo=lambda s: print("  " + s),
                             leakage=args.leakage)
            t_render = time.perf_counter()
            write_report(rep, os.path.join(tmp, "report"))
            rendering = time.perf_counter() - t_render
        wall = time.perf_counter() - t
        size = os.path.getsize(os.path.join(tmp, "report", "report.html"))
    tm = rep["run"]["timings"]
    scoring = tm["probe_s"] + tm["validity_s"] + tm["scoring_s"]
    parts = {"scoring (probe + validity card + audit résumés)": scoring, "estimation": tm["estimation_s"],
             "outcome level (LL144, four-fifths, chance)": tm["outcome_level_s"],
             "rendering (HTML, figures)": rendering}
    if args.leakage:
        parts["leakage (Tasks 1-3, metrics)"] = tm["leakage_s"]
    parts["population and résumés"] = wall - sum(parts.values())
    print(f"\naudit report: {args.screener}, {args.occupation}, N = {args.n:,}; validity {rep['validity']['verdict']}; "
          f"wall {wall:.1f} s ({wall / 60:.1f} min) on {os.cpu_count()} cores; report.html {size / 1e3:.0f} kB")
    for k, v in parts.items():
        print(f"  {k:<52} {v:7.1f} s  {v / wall:6.1%}")
    load1 = os.getloadavg()
    print(f"load average (1 min) before {load0[0]:.1f}, after {load1[0]:.1f}: "
          f"{'a busy machine: the times are upper bounds' if max(load0[0], load1[0]) > 1.5 else 'near idle'}")


if __name__ == "__main__":
    main()
