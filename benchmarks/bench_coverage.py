"""The coverage harness: every interval and test the project prints, checked by simulation.

Runs each family of :mod:`popresume.coverage` found in the package (``causal``, ``ll144``,
``ranking``), prints one table of coverage / type-I error with its Monte Carlo error and
band, and writes it to ``benchmarks/results/coverage.csv``, the table the book's appendix
"How far each number can be trusted" shows (notebooks/12_trust.py). ``make calibrate``.

    .venv/bin/python benchmarks/bench_coverage.py [--fast] [--seed 0] [--families causal ll144]
        [--out benchmarks/results/coverage.csv] [--merge]

``--merge`` replaces only the rows of the families run in an existing table and keeps the
others (``make calibrate`` reruns everything). The full causal run also writes its
per-replication records beside the table (``coverage_causal_records.csv.gz``).
"""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

import pandas as pd

FAMILIES = ("causal", "ll144", "ranking", "decisions")
OUT = Path(__file__).resolve().parent / "results" / "coverage.csv"


def family_modules(names=FAMILIES) -> dict:
    """The harness modules present in this checkout, by family name (absent ones are skipped)."""
    found = {}
    for name in names:
        try:
            found[name] = importlib.import_module(f"popresume.coverage.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"popresume.coverage.{name}":
                raise  # the module exists but one of its imports is missing: a real error
    return found


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="each family's fast subset (the tests' settings)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--families", nargs="*", default=list(FAMILIES))
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of the other families already in --out; replace only those run")
    args = ap.parse_args(argv)
    mods = family_modules(args.families)
    if not mods:
        raise SystemExit(f"no harness module found among {args.families}")
    tables = []
    for name, mod in mods.items():
        t0 = time.perf_counter()
        extra = {}
        if name == "causal" and not args.fast:  # the replications too, to re-read under other thresholds
            extra["records_path"] = Path(args.out).with_name(mod.records_csv().name)
        tab = mod.run(fast=args.fast, seed=args.seed, **extra)
        print(f"{name}: {len(tab)} rows in {time.perf_counter() - t0:.0f} s", flush=True)
        tables.append(tab)
    table = pd.concat(tables, ignore_index=True)
    if args.merge and Path(args.out).exists():
        kept = pd.read_csv(args.out)
        kept = kept[~kept["family"].isin(list(mods))]
        order = [f for f in FAMILIES if f in set(kept["family"]) | set(mods)]
        table = pd.concat([kept, table], ignore_index=True)
        table = table.sort_values("family", key=lambda c: c.map(order.index), kind="stable", ignore_index=True)
    with pd.option_context("display.width", 250, "display.max_rows", None, "display.max_colwidth", 90):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False)
    bad = table[(table["kind"] == "coverage") & ~table["in_band"] & table["setting"].str.contains("estimable")]
    print(f"wrote {out}; {len(bad)} coverage row(s) of estimable replications outside the band")
    return table


if __name__ == "__main__":
    main()
