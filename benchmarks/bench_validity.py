"""The validity gate's error rates (``popresume.coverage.validity``), written to
``benchmarks/results/coverage_validity.csv``.

    .venv/bin/python benchmarks/bench_validity.py [--fast] [--seed 0] [--out PATH]

Prints the table and the card size the rule of :func:`popresume.coverage.validity.chosen_card_n`
picks from it (the smallest size with every false-pass rate at most 5% and a power of at least
0.8 at a qualification effect of d_z 0.5); ``popresume.screeners.validity.CARD_N`` must equal it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from popresume.coverage import validity


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="the tests' subset: the default card size only")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(validity.results_csv()))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    tab = validity.run(fast=args.fast, seed=args.seed)
    print(tab[["quantity", "setting", "kind", "rate", "mc_se", "reps", "in_band"]].to_string(
        index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"{len(tab)} rows in {time.perf_counter() - t0:.0f} s; "
          f"card size chosen by the rule: {validity.chosen_card_n(tab)}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tab.to_csv(out, index=False)
    print(f"wrote {out}")
    return tab


if __name__ == "__main__":
    main()
