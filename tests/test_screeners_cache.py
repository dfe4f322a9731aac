"""The score cache: keys, reuse, secrets, and a run SIGKILLed halfway that resumes."""

import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from popresume.screeners import score_resumes, score_run
from popresume.screeners.cache import ScoreCache
from popresume.screeners.base import BaseScreener, ScoreResult
from popresume.screeners.cache import cache_key
from popresume.screeners.secrets import Secrets

JD = {"nurse": "Registered nurse wanted."}


def _resumes(n):
    return pd.DataFrame({"resume_id": [f"r{i:03d}" for i in range(n)], "occupation": "nurse",
                         "text": [f"Resume number {i} with {i % 7} years." for i in range(n)]})


class Counting(BaseScreener):
    screener_id = "counting"
    model = "count-v1"
    batch_size = 4

    def __init__(self, temp=0.0):
        self.calls = []
        self.temp = temp

    def cache_params(self):
        return {"temperature": self.temp}

    def score_one(self, item):
        self.calls.append(item.resume_id)
        return ScoreResult(float(len(item.text) % 101), True, f'{{"score": {len(item.text) % 101}}}')


def test_cache_key_depends_on_every_part():
    base = ("s", "m", "p", "r", "j", {"t": 0})
    k = cache_key(*base)
    for i in range(5):
        parts = list(base)
        parts[i] = parts[i] + "x"
        assert cache_key(*parts) != k
    assert cache_key("s", "m", "p", "r", "j", {"t": 1}) != k
    assert cache_key(*base) == k


def test_second_run_reads_cache_and_changes_invalidate(tmp_path):
    db = tmp_path / "c.sqlite"
    res = _resumes(10)
    s = Counting()
    a_run = score_run(s, res, cache=db, job_descriptions=JD)
    a = a_run.table
    assert a_run.summary["scored"] == 10 and a_run.summary["cached"] == 0
    b_run = score_run(s, res, cache=db, job_descriptions=JD)
    b = b_run.table
    assert b_run.summary["cached"] == 10 and len(s.calls) == 10
    pd.testing.assert_frame_equal(a, b)
    # a changed résumé text, job description or decoding parameter is scored again
    res2 = res.copy()
    res2.loc[0, "text"] = "A different text"
    c_run = score_run(s, res2, cache=db, job_descriptions=JD)
    c = c_run.table
    assert c_run.summary["scored"] == 1
    d_run = score_run(s, res, cache=db, job_descriptions={"nurse": "Another posting"})
    d = d_run.table
    assert d_run.summary["scored"] == 10
    e_run = score_run(Counting(temp=0.7), res, cache=db, job_descriptions=JD)
    e = e_run.table
    assert e_run.summary["scored"] == 10
    assert list(a.columns) == ["resume_id", "screener", "model", "score", "parse_ok", "raw", "scoring"]


def test_failures_cached_as_nan_not_zero(tmp_path):
    class Bad(Counting):
        def score_one(self, item):
            return ScoreResult.failure("nonsense reply", "unparseable")

    db = tmp_path / "c.sqlite"
    out_run = score_run(Bad(), _resumes(3), cache=db, job_descriptions=JD)
    out = out_run.table
    assert out["score"].isna().all() and (~out["parse_ok"]).all() and (out["raw"] == "nonsense reply").all()
    assert out_run.summary["parse_rate"] == 0.0
    again_run = score_run(Bad(), _resumes(3), cache=db, job_descriptions=JD)
    again = again_run.table
    assert again["score"].isna().all() and again_run.summary["cached"] == 3
    rows = ScoreCache(db).rows()
    assert rows["score"].isna().all()


def test_api_key_never_cached(tmp_path):
    """The screener owns its secrets; the cache checks every row against the scoring screener's."""
    secret = "sk-test-SECRET-123456"

    class Leaky(Counting):
        secrets = Secrets.of(secret)

        def score_one(self, item):
            return ScoreResult(50.0, True, f"my key is {secret}")

    with pytest.raises(ValueError, match="API key"):
        score_resumes(Leaky(), _resumes(1), cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert secret.encode() not in (tmp_path / "c.sqlite").read_bytes()
    # another screener's secret is not this one's: nothing process-wide remembers it
    assert Counting().secrets.scrub(f"my key is {secret}") == f"my key is {secret}"


SCRIPT = textwrap.dedent("""
    import os, sys, time
    import pandas as pd
    from popresume.screeners import score_run
    from popresume.screeners.base import BaseScreener, ScoreResult

    db, log, n, delay = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])

    class Slow(BaseScreener):
        screener_id = "slow"
        model = "slow-v1"
        batch_size = 1
        def score_one(self, item):
            with open(log, "a") as f:
                f.write(item.resume_id + "\\n"); f.flush(); os.fsync(f.fileno())
            time.sleep(delay)
            return ScoreResult(float(int(item.resume_id[1:]) % 101), True, "{}")

    res = pd.DataFrame({"resume_id": [f"r{i:03d}" for i in range(n)], "occupation": "nurse",
                        "text": [f"text {i}" for i in range(n)]})
    run = score_run(Slow(), res, cache=db, job_descriptions={"nurse": "jd"})
    run.table.to_parquet(sys.argv[5])
    print(run.summary["scored"], run.summary["cached"])
""")


def _count(db):
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def test_sigkill_halfway_then_resume(tmp_path):
    n = 40
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    db, log1, log2 = tmp_path / "c.sqlite", tmp_path / "log1", tmp_path / "log2"
    # 0.2 s per résumé (8 s in all), killed once 4 rows are seen committed: the run is far from done
    p = subprocess.Popen([sys.executable, str(script), str(db), str(log1), str(n), "0.2", str(tmp_path / "o1.parquet")])
    t0 = time.time()
    while _count(db) < 4:
        assert p.poll() is None, "run finished before it could be killed"
        assert time.time() - t0 < 120
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL
    committed = set(ScoreCache(db).rows()["resume_id"])
    assert 4 <= len(committed) < n
    started1 = log1.read_text().split()
    r = subprocess.run([sys.executable, str(script), str(db), str(log2), str(n), "0", str(tmp_path / "o2.parquet")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    scored2, cached2 = map(int, r.stdout.split())
    started2 = log2.read_text().split()
    # nothing committed before the kill is scored again; nothing is lost
    assert cached2 == len(committed) and scored2 == n - len(committed)
    assert not (set(started2) & committed)
    assert committed | set(started2) == {f"r{i:03d}" for i in range(n)}
    assert len(started2) == len(set(started2))
    # only the résumé in flight at the kill (batch size 1) may have been started twice
    assert len(set(started1) - committed) <= 1
    out = pd.read_parquet(tmp_path / "o2.parquet")
    assert len(out) == n and out["parse_ok"].all()
    assert np.array_equal(out["score"].to_numpy(), [float(i % 101) for i in range(n)])
    rows = ScoreCache(db).rows()
    assert len(rows) == n and rows["resume_id"].is_unique


def test_capabilities_are_declared_and_checked():
    from popresume.screeners import get_screener
    from popresume.screeners.base import check_capabilities, has_capability, require_capability

    syn = get_screener("synthetic")
    assert syn.capabilities == frozenset({"text", "images", "true_effects"})
    assert has_capability(syn, "images") and not has_capability(syn, "json")
    with pytest.raises(ValueError, match="'json' capability"):
        require_capability(syn, "json", "answer the leakage tasks")
    with pytest.raises(ValueError, match="unknown screener capability 'vision'"):
        has_capability(syn, "vision")
    with pytest.raises(ValueError, match="'audio'"):
        check_capabilities({"text", "audio"})
    c = Counting()
    assert c.capabilities == frozenset({"text"}) and not c.supports_images
    c.supports_images = True  # declared for this instance only
    assert "images" in c.capabilities and Counting().capabilities == frozenset({"text"})


def test_every_cache_param_enters_the_key(tmp_path):
    """A setting in cache_params() (here a batch size) changes the key, so it is rescored."""

    class Batched(Counting):
        def __init__(self, bs):
            super().__init__()
            self.batch_size = bs

        def cache_params(self):
            return {"batch_size": self.batch_size}

    db = tmp_path / "s.sqlite"
    a = Batched(4)
    score_resumes(a, _resumes(5), cache=db, job_descriptions=JD)
    assert len(a.calls) == 5
    b = Batched(4)
    score_resumes(b, _resumes(5), cache=db, job_descriptions=JD)
    assert b.calls == []
    c = Batched(8)
    score_resumes(c, _resumes(5), cache=db, job_descriptions=JD)
    assert len(c.calls) == 5
    assert set(ScoreCache(db).rows()["params"]) == {'{"batch_size":4}', '{"batch_size":8}'}
