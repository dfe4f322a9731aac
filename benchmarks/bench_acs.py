"""Benchmark of the ACS readers: memory and time of reading a large PUMS
person file with and without filtering to the five occupations while reading.

Run: ``.venv/bin/python benchmarks/bench_acs.py [--rows N] [--chunksize C]``.
Writes a synthetic ``psam_p*.csv`` with the Census PUMS columns (occupation codes drawn so
that about 2% of people are in the five occupations, as in the ACS) to a temporary folder,
then reads it twice with :func:`popresume.sources.acs.read_pums_csv`, each time in a fresh
process, and reports the peak resident memory above the process's size once the package is
imported (Linux: the peak is reset through ``/proc/self/clear_refs``). Filtered, the peak is
set by ``--chunksize``, not by the size of the file. Prints the figures; writes nothing
outside the temporary folder.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd


def write_pums(path: Path, n: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    five = np.array([3255, 2310, 1021, 800, 6260])
    occ = np.where(rng.random(n) < 0.02, rng.choice(five, n), rng.integers(10, 9920, n))
    occ_s = np.where(rng.random(n) < 0.15, "", np.char.zfill(occ.astype(str), 4))  # children: no OCCP
    df = pd.DataFrame({
        "RT": "P", "SERIALNO": [f"2023HU{i:07d}" for i in range(n)], "SPORDER": 1,
        "SEX": rng.integers(1, 3, n), "AGEP": rng.integers(0, 95, n), "RAC1P": rng.integers(1, 10, n),
        "HISP": rng.integers(1, 25, n), "ST": rng.choice([6, 13, 17, 36, 48], n), "SCHL": rng.integers(1, 25, n),
        "ESR": rng.integers(1, 7, n), "OCCP": occ_s, "PWGTP": rng.integers(1, 300, n),
    })
    df.to_csv(path, index=False)
    return path


_CHILD = """
import json, sys, time
from popresume.sources.acs import read_pums_csv
path, mode, chunksize = sys.argv[1], sys.argv[2], int(sys.argv[3])
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
with open("/proc/self/clear_refs", "w") as fh:  # reset the peak (VmHWM) to the current size
    fh.write("5")
base = status("VmRSS:")
t0 = time.perf_counter()
n = 0 if mode == "none" else len(read_pums_csv(path, occupations=None if mode == "all" else
                                              ("nurse", "teacher", "software_developer", "accountant",
                                               "construction_laborer"), chunksize=chunksize))
print(json.dumps({"rows": n, "seconds": time.perf_counter() - t0, "peak_mib": status("VmHWM:") - base}))
"""


def measure(path: Path, mode: str, chunksize: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), mode, str(chunksize)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--chunksize", type=int, default=200_000)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as d:
        path = write_pums(Path(d) / "psam_p99.csv", args.rows)
        print(f"synthetic PUMS person file: {args.rows:,} rows, {path.stat().st_size / 2**20:.0f} MiB on disk")
        kept = measure(path, "five", args.chunksize)
        allrows = measure(path, "all", args.chunksize)
    m1, m2 = kept["peak_mib"], allrows["peak_mib"]
    print(f"filtered while reading (five occupations): {kept['rows']:,} rows kept, {kept['seconds']:.1f} s, "
          f"+{m1:.0f} MiB peak")
    print(f"every row kept:                            {allrows['rows']:,} rows, {allrows['seconds']:.1f} s, "
          f"+{m2:.0f} MiB peak")
    print(f"extra memory ratio (all rows / filtered): {m2 / max(m1, 1):.1f}x")


if __name__ == "__main__":
    main()
