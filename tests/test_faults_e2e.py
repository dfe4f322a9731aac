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
import pytest

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


# --------------------------------------------------------------------------- the audit report
def _decisions_file(path, n=300, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    pd.DataFrame({"sex": rng.choice(["F", "M"], n), "race": rng.choice(["A", "B"], n),
                  "score": rng.normal(50, 10, n)}).to_csv(path, index=False)
    return path


def test_a_report_write_onto_a_full_disk_keeps_the_last_good_report(cli, tmp_path, monkeypatch):
    import errno

    first, second = _decisions_file(tmp_path / "a.csv"), _decisions_file(tmp_path / "b.csv", seed=1)
    out = tmp_path / "rep"
    res = cli("audit", "--decisions", first, "--report", out, "--n-sim", "50")
    assert res.exit_code == 0, res.output
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(old) == {"report.json", "report.html"}

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    # the disk fills while the new files are written ...
    with monkeypatch.context() as m:
        m.setattr(os, "fsync", full)
        res = cli("audit", "--decisions", second, "--report", out, "--n-sim", "50")
    assert res.exit_code == 1 and "Traceback" not in res.output
    err = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(err) == 1 and "no space left" in err[0] and str(out) in err[0] and "unchanged" in err[0], res.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old  # the old pair, whole; no temporary file

    # ... or when the second of the two files is moved into place
    real_replace, calls = os.replace, []

    def second_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    with monkeypatch.context() as m:
        m.setattr(os, "replace", second_fails)
        res = cli("audit", "--decisions", second, "--report", out, "--n-sim", "50")
    assert res.exit_code == 1, res.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old
    assert "a.csv" in json.loads((out / "report.json").read_text())["run"]["file"]


def test_resampling_options_are_bounded_before_any_work(cli, tmp_path):
    base = ["audit", "--screener", "synthetic", "--occupation", "nurse", "--report", tmp_path / "rep",
            "--cache", tmp_path / "c.sqlite", "--no-progress"]
    for args, option in ((["--n", "200", "--n-boot", "10000000"], "--n-boot"),
                         (["--n", "200", "--n-sim", "10000000"], "--n-sim"),
                         (["--n", "100000", "--n-boot", "5000"], "--n-boot 5,000 at --n 100,000")):
        res = cli(*base, *args)
        assert res.exit_code != 0, res.output
        err = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
        assert len(err) == 1 and option in err[0], res.output
        assert "probe" not in res.output  # refused before the population, the probe or the gate
    assert not (tmp_path / "rep").exists() and not (tmp_path / "c.sqlite").exists()


@pytest.mark.parametrize("folder, message", [
    ("", "--report '' names no folder"),
    (str(REPO_ROOT), "is the repository's root"),
    (str(REPO_ROOT / "popresume" / "rep"), "inside the repository's popresume/ folder"),
    (str(REPO_ROOT / "notebooks"), "inside the repository's notebooks/ folder"),
])
def test_report_folders_that_would_land_among_the_sources_are_refused(cli, tmp_path, folder, message):
    res = cli("audit", "--decisions", _decisions_file(tmp_path / "d.csv"), "--report", folder)
    assert res.exit_code != 0
    err = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(err) == 1 and message in err[0], res.output
    assert not (REPO_ROOT / "report.json").exists() and not (REPO_ROOT / "popresume" / "rep").exists()


def test_a_constant_screener_gets_a_report_that_says_it_is_constant(cli, tmp_path):
    spec = json.dumps({"kind": "synthetic", "direct": {}, "photo": {}, "coef": {"edu_group": {}}, "noise_sd": 0})
    out = tmp_path / "rep"
    res = cli("audit", "--screener", spec, "--occupation", "accountant", "--n", "100", "--attributes", "gender",
              "--report", out, "--force", "--cache", tmp_path / "c.sqlite", "--card-n", "5", "--n-boot", "50",
              "--n-sim", "50", "--no-tune", "--no-progress")
    assert res.exit_code == 0, res.output
    assert "no positive width" not in res.output
    rep = json.loads((out / "report.json").read_text())
    assert "same score (50)" in rep["omitted"]["decomposition"] and rep["effects"] == []
    assert any("constant" in s for s in rep["notes"])
    page = (out / "report.html").read_text()
    assert "The screener is constant" in page and "no score gap to decompose" in page
