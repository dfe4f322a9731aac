"""Calibration of the audit plan's estimation and report costs (``PLAN_COSTS`` in
:mod:`popresume.audit.report`), written to ``benchmarks/results/plan_costs.csv``.

For each audit size n, ``popresume audit --screener synthetic --occupation nurse`` (both
attributes, the default estimator, ``--force`` past the synthetic screener's failed gate) is
run ``--reps`` times with and without tuning, each in a fresh process on a fresh score cache; each
part's seconds are divided by the yardstick timed in the same run's probe
(:func:`popresume.audit.report.yardstick_seconds`: one XGBoost fit at n rows):

* ``estimation_fits_tuned`` / ``_untuned``: the estimation's seconds per attribute;
* ``report_fits``: the outcome-level tables plus rendering the report (page and JSON).

The median over the reps is kept. A ratio of two times taken in one process carries over to
a faster or busier machine, which a time in seconds would not. The synthetic screener's scores
stand in for any screener's: the estimator's cost depends on n and the design, barely on the
scores. Copy the printed ``PLAN_COSTS`` into ``popresume/audit/report.py`` (a test checks that
the two agree).

    python benchmarks/bench_plan.py [--sizes 2000,500,4000,1000] [--reps 2]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "results" / "plan_costs.csv"
COLUMNS = ("n", "estimation_fits_tuned", "estimation_fits_untuned", "report_fits")


def one_run(n: int, *, tune: bool, cache: str, folder: str) -> dict:
    """One synthetic audit at ``n``, a fresh process as the command line runs it (the first
    report pays its imports, as a user's does): the plan's yardstick and the parts' seconds
    from its ``report.json``."""
    cmd = [sys.executable, "-m", "popresume", "audit", "--screener", "synthetic", "--occupation", "nurse",
           "--n", str(n), "--force", "--report", folder, "--cache", cache, "--no-progress",
           *([] if tune else ["--no-tune"])]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr[-2000:]}")
    body = json.loads(Path(folder, "report.json").read_text())
    tm = body["run"]["timings"]
    return {"yardstick_s": body["plan"]["probe"]["yardstick_s"], "estimation_s": tm["estimation_s"],
            "report_s": tm["outcome_level_s"] + tm["rendering_s"], "attributes": len(body["run"]["attributes"])}


def write(rows: list[dict], out: str) -> None:
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(sorted(rows, key=lambda r: r["n"]))


def calibrate(sizes, reps: int, out: str) -> list[dict]:
    """Each size in the order given (the one that matters most first); the table is written
    after each size, so that a stopped run keeps what it measured."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            fits: dict[str, list[float]] = {c: [] for c in COLUMNS[1:]}
            for r in range(reps):
                for tune in (True, False):
                    run = one_run(n, tune=tune, cache=os.path.join(tmp, f"c{n}_{r}_{tune}.sqlite"),
                                  folder=os.path.join(tmp, f"rep{n}_{r}_{tune}"))
                    unit = run["yardstick_s"]
                    key = "estimation_fits_tuned" if tune else "estimation_fits_untuned"
                    fits[key].append(run["estimation_s"] / run["attributes"] / unit)
                    fits["report_fits"].append(run["report_s"] / unit)
                    print(f"n={n} rep={r} tune={tune}: yardstick {unit:.3f} s, estimation {run['estimation_s']:.1f} s, "
                          f"report {run['report_s']:.1f} s", flush=True)
            rows.append({"n": n, **{k: round(statistics.median(v), 1) for k, v in fits.items()}})
            write(rows, out)
    return sorted(rows, key=lambda r: r["n"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,500,4000,1000")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args()
    rows = calibrate([int(s) for s in a.sizes.split(",")], a.reps, a.out)
    print(f"wrote {a.out}\nPLAN_COSTS = (")
    for r in rows:
        print(f"    ({r['n']}, {r['estimation_fits_tuned']}, {r['estimation_fits_untuned']}, {r['report_fits']}),")
    print(")")


if __name__ == "__main__":
    main()
