"""Faults of the score cache: a corrupted or truncated file, a read-only folder, a full disk,
a short run killed before its first batch ended; and embedding scores that must not depend
on the other résumés of their batch (a cache shared between runs mixes batches)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import warnings

import pandas as pd
import pytest

from popresume.screeners import ScoreCache, score_resumes, score_run
from popresume.screeners.base import BaseScreener, ScoreResult
from test_screeners_cache import JD, _resumes  # tests/test_screeners_cache.py


class Slow(BaseScreener):
    """``seconds`` per résumé; its batch is large, as a local model's is."""

    screener_id = "slow"
    model = "slow-v1"
    batch_size = 64

    def __init__(self, seconds=0.0):
        self.seconds = seconds
        self.batches = []

    def score_batch(self, items):
        self.batches.append(len(items))
        time.sleep(self.seconds * len(items))
        return [ScoreResult(float(len(it.text)), True, "") for it in items]


def _filled_cache(path, n=30):
    score_resumes(Slow(), _resumes(n), cache=path, job_descriptions=JD)
    return path


@pytest.mark.parametrize("damage", ["truncate", "garbage", "zero"])
def test_a_damaged_cache_file_is_one_line_naming_it(tmp_path, damage, cli):
    db = _filled_cache(tmp_path / "c.sqlite", 200)
    for side in ("c.sqlite-wal", "c.sqlite-shm"):
        (tmp_path / side).unlink(missing_ok=True)
    data = db.read_bytes()
    db.write_bytes({"truncate": data[: len(data) // 3], "garbage": b"not a database at all " * 300,
                    "zero": data[:100] + b"\0" * (len(data) - 100)}[damage])
    with pytest.raises(ValueError, match=rf"score cache {db}: .*--no-cache.*move"):
        score_resumes(Slow(), _resumes(200), cache=db, job_descriptions=JD)
    _resumes(3).to_parquet(tmp_path / "r.parquet")
    pd.DataFrame({"resume_id": _resumes(3)["resume_id"]}).to_parquet(tmp_path / "p.parquet")
    r = cli("score", "--resumes", tmp_path / "r.parquet", "--screener", "embedding", "--cache", db, "--quiet",
            "--out", tmp_path / "s.parquet")
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    line = [ln for ln in r.output.splitlines() if ln.startswith("Error:")]
    assert len(line) == 1 and str(db) in line[0] and "--no-cache" in line[0]


def test_a_read_only_cache_is_one_line(tmp_path, monkeypatch):
    """A cache file the user may read but not write (simulated with SQLite's read-only mode,
    since these tests may run as root, who writes anywhere)."""
    db = _filled_cache(tmp_path / "c.sqlite")
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA journal_mode=DELETE")  # no -wal/-shm files beside it
    con.close()
    real = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda path, **kw: real(f"file:{path}?mode=ro", uri=True, **kw))
    with pytest.raises(ValueError, match=rf"score cache {db}: .*readonly.*--no-cache"):
        score_resumes(Slow(), _resumes(40), cache=db, job_descriptions=JD)


def test_a_cache_in_a_folder_that_cannot_be_created_is_one_line(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"score cache .*file/c\.sqlite.*--no-cache"):
        score_resumes(Slow(), _resumes(3), cache=tmp_path / "file" / "c.sqlite", job_descriptions=JD)


def test_a_full_disk_keeps_every_computed_score(tmp_path):
    """The cache stops accepting rows after 5: the run goes on, every score is in the
    result (and so in the output file), and the user is told which scores are not cached."""
    class FillsUp:
        """The connection of a disk that is full after 5 rows."""

        def __init__(self, con):
            self.con, self.n = con, 0

        def execute(self, sql, *args):
            if sql.startswith("INSERT"):
                self.n += 1
                if self.n > 5:
                    raise sqlite3.OperationalError("database or disk is full")
            return self.con.execute(sql, *args)

        def close(self):
            self.con.close()

    store = ScoreCache(tmp_path / "c.sqlite")
    store._con = FillsUp(store._con)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df_run = score_run(Slow(), _resumes(20), cache=store, job_descriptions=JD)
        df = df_run.table
    store.close()
    assert df["parse_ok"].all() and len(df) == 20
    assert df_run.summary["not_cached"] == 15
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 1 and str(tmp_path / "c.sqlite") in msgs[0] and "disk is full" in msgs[0]
    again_run = score_run(Slow(), _resumes(20), cache=tmp_path / "c.sqlite", job_descriptions=JD)
    again = again_run.table
    assert again_run.summary["cached"] == 5 and again_run.summary["scored"] == 15


def test_chunks_are_sized_by_time_so_the_cache_is_committed_every_few_seconds(monkeypatch):
    """The chunk size follows the measured time per résumé: at 0.02 s each and a 0.3 s
    target, chunks of about 15 instead of the batch of 64. The sizes are the test (a busy
    machine only makes each résumé slower, hence the chunks smaller); the wall-clock gaps
    get ten times the target as slack."""
    from popresume.screeners import base

    monkeypatch.setattr(base, "COMMIT_SECONDS", 0.3)
    scr = Slow(seconds=0.02)  # 64 per batch would be 1.3 s between commits
    t0 = time.perf_counter()
    stamps = [time.perf_counter() - t0 for _ in scr.score_iter(
        [base.ScoreItem(f"r{i}", "nurse", "jd", text="x" * i) for i in range(100)])]
    assert len(stamps) == 100 and sum(scr.batches) == 100
    assert scr.batches[0] == 4  # the first chunk is small: the time per résumé is unknown yet
    # after the first measurement: at most 0.3 s / 0.02 s = 15 per chunk (sleep never undershoots)
    assert max(scr.batches[1:]) <= 15, scr.batches
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert max(gaps) < 3.0, scr.batches


class FixedBatch(Slow):
    """A call costs one whole batch whatever its size (the embedding screener fills its batches)."""

    min_chunk = 16

    def score_batch(self, items):
        self.batches.append(len(items))
        time.sleep(self.seconds * self.min_chunk)
        return [ScoreResult(float(len(it.text)), True, "") for it in items]


def test_a_fixed_cost_batch_is_never_split_below_its_size(monkeypatch):
    from popresume.screeners import base

    monkeypatch.setattr(base, "COMMIT_SECONDS", 0.05)  # time alone would give chunks of one résumé
    scr = FixedBatch(seconds=0.01)
    n = sum(1 for _ in scr.score_iter([base.ScoreItem(f"r{i}", "nurse", "jd", text="x" * i) for i in range(70)]))
    assert n == 70
    assert min(scr.batches[:-1]) >= 16 and sum(scr.batches) == 70, scr.batches

SCRIPT = textwrap.dedent('''
    import sys, time
    import pandas as pd
    from popresume.screeners import score_resumes
    from popresume.screeners.base import BaseScreener, ScoreResult

    class Slow(BaseScreener):
        screener_id = "slow"
        model = "slow-v1"
        batch_size = 64

        def score_batch(self, items):
            time.sleep(0.1 * len(items))
            return [ScoreResult(float(len(it.text)), True, "") for it in items]

    n = int(sys.argv[2])
    res = pd.DataFrame({"resume_id": [f"r{i:03d}" for i in range(n)], "occupation": "nurse",
                        "text": [f"Resume {i}" for i in range(n)]})
    score_resumes(Slow(), res, cache=sys.argv[1], job_descriptions={"nurse": "jd"})
''')


def _committed(db) -> int:
    """Rows committed so far, read without taking the writer's lock (0 before the table exists)."""
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM scores").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_sigkill_of_a_short_run_keeps_what_was_scored(tmp_path):
    """400 résumés at 0.1 s each, one batch of 64: before, nothing was committed until the
    batch ended. The run is killed as soon as rows are seen committed (an observed event,
    not a sleep): everything seen committed survives the kill, and the run was far from done."""
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    db = tmp_path / "c.sqlite"
    p = subprocess.Popen([sys.executable, str(script), str(db), "400"])
    t0 = time.time()
    seen = 0
    while seen < 5 and p.poll() is None and time.time() - t0 < 300:
        time.sleep(0.05)
        seen = _committed(db)
    assert p.poll() is None, "the run ended before it could be killed"
    assert seen >= 5, "no rows committed within 300 s"
    p.send_signal(signal.SIGKILL)
    p.wait()
    kept = len(ScoreCache(db))
    assert seen <= kept < 400
