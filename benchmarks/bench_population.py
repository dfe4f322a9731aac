"""Benchmark: generate all 60,884 Table 3 profiles (target < 60 s on 2 cores).

Run: .venv/bin/python benchmarks/bench_population.py
Prints the cold time (first call in a fresh process: reading the name tables and the
GSS / ACS 2012 seeds, raking the five P1 tables and fitting the five PSID experience models
included) and the warm time (a second call, tables memoised), plus add_groups on the result,
and the raking of one P1 table alone.
"""

from __future__ import annotations

import time


def main():
    t0 = time.perf_counter()
    from popresume.population import generate_population

    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    df = generate_population(seed=0)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    generate_population(seed=1)
    warm = time.perf_counter() - t0
    from popresume.grouping import add_groups

    t0 = time.perf_counter()
    add_groups(df)
    groups = time.perf_counter() - t0
    from popresume.sources import calibration

    t0 = time.perf_counter()
    calibration._seeded_array_from("nurse", (18, 44), ("White", "Black", "API"), None, None)
    rake = time.perf_counter() - t0
    print(f"profiles: {len(df):,}")
    print(f"import popresume.population: {t_import:.2f} s")
    print(f"generate_population (cold, all 60,884): {cold:.2f} s")
    print(f"generate_population (warm, all 60,884): {warm:.2f} s")
    print(f"add_groups (cold): {groups:.2f} s")
    print(f"seeded IPF of one P1 table (nurses, seeds cached): {rake:.3f} s")


if __name__ == "__main__":
    main()
