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

The causal family's costly parts run on their own and add to those records:

    .venv/bin/python benchmarks/bench_coverage.py --audit-seeds 0 100 [--ns 2000 3000]
    .venv/bin/python benchmarks/bench_coverage.py --tool-defaults --reps 300 --ns 1000 2000 [--designs basic] [--start 0] [--variance average]
    .venv/bin/python benchmarks/bench_coverage.py --from-records

``--audit-seeds A B``: the audit pipeline design (``popresume.audit.calibration.simulate_audit``: ``popresume audit
--screener synthetic`` over seeds A..B-1, two occupations, both attributes), each finished
replication appended to ``--records`` as it arrives. ``--tool-defaults``: the SCM designs with
XGBoost as the tool builds it (tuned on every fit), appended to ``--records`` per block.
``--reread-support``: every fitted replication called again under the estimator's default
rule (``estimable_rule="support"``, from the recorded clipped share and ESS, each fit's NDE–RIE
nested together; the intervals do not depend on the rule), in place of its earlier call, under
that rule's label. ``--average-from F``:
the ``variance="average"`` records of the tool-default replications that ``F`` (from
``bench_causal.py jackknife --learner tool``) also fitted, read off both
(``causal.average_records``). ``--from-records``: the causal rows of ``--out`` rebuilt from
``--records`` (the other families kept). ``--jackknife-from-average``: the
``variance="jackknife"`` records of the fits that ``variance="average"`` records hold (both SEs
are recorded; ``causal.reinterval``), for those not yet there.
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
    ap.add_argument("--records", default=None, help="the causal records (default: beside --out)")
    ap.add_argument("--audit-seeds", nargs=2, type=int, metavar=("FIRST", "STOP"),
                    help="run the audit-pipeline design over these seeds and append to --records")
    ap.add_argument("--tool-defaults", action="store_true",
                    help="run the SCM designs with XGBoost tuned on every fit and append to --records")
    ap.add_argument("--reps", type=int, default=100, help="replications per cell for --tool-defaults")
    ap.add_argument("--variance", default=None,
                    help="EstimatorSpec.variance for --tool-defaults (default: the estimator's; each variance "
                         "has rows of its own)")
    ap.add_argument("--start", type=int, default=0,
                    help="first replication number for --tool-defaults (to add replications to a run)")
    ap.add_argument("--ns", nargs="*", type=int, default=None, help="sample sizes for --audit-seeds / --tool-defaults")
    ap.add_argument("--designs", nargs="*", default=["basic"], help="SCM designs for --tool-defaults")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--from-records", action="store_true", help="rebuild the causal rows of --out from --records")
    ap.add_argument("--average-from", nargs="*", default=None, metavar="JACKKNIFE_RECORDS",
                    help="add to --records the variance='average' records read off the tool-default records and "
                         "these bench_causal.py jackknife --learner tool records of the same fits (average_records)")
    ap.add_argument("--jackknife-from-average", action="store_true",
                    help="add to --records the variance='jackknife' records read off the variance='average' records, "
                         "which carry both SEs of each fit (reinterval)")
    ap.add_argument("--reread-support", action="store_true",
                    help="call every fitted replication of --records again under the estimator's default "
                         "support rule, from its recorded overlap numbers (replacing its earlier call)")
    args = ap.parse_args(argv)
    if args.audit_seeds or args.tool_defaults or args.from_records or args.reread_support or args.average_from \
            or args.jackknife_from_average:
        return causal_parts(args)
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
    bad = table[table["verdict"] == "OUTSIDE"] if "verdict" in table else table.iloc[:0]
    print(f"wrote {out}; {len(bad)} causal coverage row(s) OUTSIDE their band")
    return table


def causal_parts(args) -> pd.DataFrame | None:
    """``--audit-seeds``, ``--tool-defaults`` and ``--from-records`` (see the module docstring)."""
    from popresume.audit import calibration
    from popresume.coverage import causal
    from popresume.causal.spec import DEFAULTS

    records = Path(args.records) if args.records else Path(args.out).with_name(causal.records_csv().name)
    if args.audit_seeds:
        extra = Path(str(records).removesuffix(".gz").removesuffix(".csv") + "_audit_partial.csv")
        calibration.simulate_audit(seeds=range(*args.audit_seeds), ns=tuple(args.ns or causal.AUDIT["n"]),
                                   n_jobs=args.jobs, records_path=extra)
        append_records(records, pd.read_csv(extra))
        extra.unlink()
    if args.tool_defaults:
        extra = Path(str(records).removesuffix(".gz").removesuffix(".csv") + "_tool_partial.csv")
        causal.simulate_tool_defaults(reps=range(args.start, args.start + args.reps), ns=tuple(args.ns or (1000, 2000)),
                                      kinds=tuple(args.designs), n_jobs=args.jobs, records_path=extra, seed=args.seed,
                                      variance=args.variance or DEFAULTS.variance)
        append_records(records, pd.read_csv(extra))
        extra.unlink()
    if args.average_from:  # the same fits, their jackknife SEs recorded by bench_causal.py jackknife
        jk = pd.concat([pd.read_csv(f) for f in args.average_from], ignore_index=True)
        new = causal.average_records(pd.read_csv(records), jk)
        append_records(records, new)
        print(f"{len(new)} variance='average' records added from {len(args.average_from)} jackknife record file(s)")
    if args.jackknife_from_average:  # the same fits and refits, the jackknife's own interval
        rec = pd.read_csv(records)
        have = set(rec.loc[rec["learner"] == causal.tool_learner("jackknife"), ["kind", "n", "rep"]].itertuples(index=False))
        avg = rec[rec["learner"] == causal.tool_learner("average")]
        avg = avg[[k not in have for k in avg[["kind", "n", "rep"]].itertuples(index=False)]]
        new = causal.reinterval(avg, "jackknife")
        append_records(records, new)
        print(f"{len(new)} variance='jackknife' records added from the variance='average' records")
    if args.reread_support:  # the rule changes which intervals are printed, not the intervals
        rec = pd.read_csv(records)
        default = causal.rule_label()
        oracle = rec["learner"] == "oracle"
        fitted = rec[~oracle]  # each fit once, under whichever rule it was last called
        fitted = fitted if "pareto_k" in fitted else fitted.assign(pareto_k=float("nan"))
        again = causal.reread_support(fitted, max_pareto_k=None)
        assert again["rule"].eq(default).all(), (default, again["rule"].iloc[0])
        pd.concat([rec[oracle], again], ignore_index=True).to_csv(records, index=False)
        print(f"{len(again)} records called again under {default} (replacing their earlier calls)")
    if not args.from_records:
        return None
    tab = causal.table_from_records(pd.read_csv(records))
    out = Path(args.out)
    kept = pd.read_csv(out) if out.exists() else pd.DataFrame()
    kept = kept[kept["family"] != "causal"] if len(kept) else kept
    table = pd.concat([tab, kept], ignore_index=True)
    table.to_csv(out, index=False)
    bad = tab[tab["verdict"] == "OUTSIDE"]
    print(f"wrote {out}: {len(tab)} causal rows from {records}; {len(bad)} coverage row(s) OUTSIDE their band")
    return table


def append_records(path: Path, new: pd.DataFrame) -> None:
    """Add replications to the records file (columns united; a column a record lacks stays empty)."""
    old = pd.read_csv(path) if path.exists() else pd.DataFrame()
    pd.concat([old, new], ignore_index=True).to_csv(path, index=False)


if __name__ == "__main__":
    main()
