"""Every fault at once, end to end: ``popresume score`` in a subprocess whose files may not
grow past 40 kB (a full disk), against one loopback server that drips a reply, answers 429
forever, refuses one résumé, and dies mid-run. The run ends within a bound, every failure is
counted, no computed score is lost, the exit code says the run did not finish, and a rerun
against a healthy server completes from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pandas as pd

from popresume.paths import REPO_ROOT
from popresume.screeners import ScoreCache
from test_faults_http import JD, FaultServer, _resumes  # tests/test_faults_http.py

LIMIT = 40_000  # bytes per file: the cache takes a few rows, then its disk is "full"
PRELUDE = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
           f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT})); "
           "from popresume.cli import main; sys.exit(main())")
WORDS = ["ok", "ok", "DRIP", "T429", "BAD", "ok", "ok", "ok", "ok", "ok"]


def _score(tmp_path, url, *, full_disk):
    spec = {"kind": "openai", "model": "m", "base_url": url, "timeout": 1.0, "max_retries": 1, "backoff": 0.0,
            "concurrency": 1}
    args = ["score", "--resumes", tmp_path / "r.parquet", "--jobs", tmp_path / "jobs.json", "--screener",
            json.dumps(spec), "--cache", tmp_path / "c.sqlite", "--quiet", "--out", tmp_path / "s.parquet"]
    cmd = [sys.executable, "-c", PRELUDE if full_disk else "from popresume.cli import main; main()",
           *map(str, args)]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=REPO_ROOT, env=env)
    return r, time.perf_counter() - t0


def test_every_fault_at_once(tmp_path):
    _resumes(WORDS).to_parquet(tmp_path / "r.parquet")
    (tmp_path / "jobs.json").write_text(json.dumps(JD))
    # requests, one at a time: r0, r1, r2 ×2 (drip, cut at 1 s), r3 ×2 (429), r4 (400), r5, r6;
    # the 10th request finds the server dying: r7 fails, r8 stops the run, r9 is never sent
    with FaultServer(die_after=9) as srv:
        r, seconds = _score(tmp_path, srv.url, full_disk=True)
    assert seconds < 40, seconds  # bounded: the drip costs 2 × 1 s
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "unreachable" in errors[0] and str(tmp_path / "s.parquet") in errors[0]
    assert "cannot write" in r.stderr  # the full disk is reported, once
    out = pd.read_parquet(tmp_path / "s.parquet").set_index("resume_id")
    scored = set(out.index[out["parse_ok"]])
    assert scored == {"r0", "r1", "r5", "r6"}  # every score computed is in the output
    raw = out["raw"]
    assert "timeout" in raw["r2"].lower() and "429" in raw["r3"] and "HTTP 400" in raw["r4"]
    assert raw["r8"].startswith("not scored: the run stopped") and raw["r9"].startswith("not scored")
    cached = ScoreCache(tmp_path / "c.sqlite").rows()
    assert 1 <= len(cached) < 5  # the disk filled after a few rows
    # a healthy server, a disk with room: the rerun reuses the cache and scores the rest
    port = int(srv.url.rsplit(":", 1)[1].split("/")[0])  # the same URL: the same cache keys
    with FaultServer(port=port) as srv:
        r2, _ = _score(tmp_path, srv.url, full_disk=False)
    assert r2.returncode == 0, r2.stdout + r2.stderr  # some failed (drip, 429, refused), not all
    assert f"cached {len(cached)}" in r2.stdout and "failed 3 (30.0%)" in r2.stdout
    out2 = pd.read_parquet(tmp_path / "s.parquet").set_index("resume_id")
    assert set(out2.index[out2["parse_ok"]]) == {f"r{i}" for i in (0, 1, 5, 6, 7, 8, 9)}
    assert out2.loc[sorted(scored), "score"].equals(out.loc[sorted(scored), "score"])
