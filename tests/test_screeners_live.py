"""A real inference server in the tests: llama.cpp's llama-server with SmolLM2-135M,
scored through ``openai:MODEL@URL`` as a user would. Skipped, with the install command, when the
server binary is absent. Few résumés and short replies keep it to a few minutes on 2 busy cores."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from popresume.screeners import get_screener, score_resumes, score_run
from popresume.screeners.cache import ScoreCache

from _notebooks import require_llama_server  # tests/_notebooks.py

server_mod = require_llama_server()

JD = {"nurse": "Registered nurse for a hospital ward: patient care, medication, charting. BSN and a state "
               "licence required; 2+ years of acute care preferred."}
TEXTS = [
    "Maria Lopez. Registered Nurse, BSN. 6 years on a medical-surgical ward. State RN licence. BLS, ACLS.",
    "James Carter. Line cook, 3 years. High school diploma. Food safety certificate.",
    "Aisha Khan. Licensed practical nurse, 2 years in long-term care. Associate degree in nursing.",
    "Tom Berg. Software developer, 8 years, Python and SQL. BSc in computer science.",
    "Emily Chen. ICU nurse, 10 years. MSN. Charge nurse for 3 years. CCRN certified.",
    "Luis Ortega. Warehouse associate, 1 year. Forklift certified.",
]


def _resumes(n=len(TEXTS)):
    return pd.DataFrame({"resume_id": [f"live{i}" for i in range(n)], "occupation": "nurse", "text": TEXTS[:n]})


@pytest.fixture(scope="module")
def llama():
    with server_mod.LlamaServer("smollm2", threads=1, poll=0, ctx_size=1024, startup_timeout=180) as srv:
        yield srv


def test_scores_through_the_live_server_then_from_cache(llama, tmp_path):
    db = tmp_path / "scores.sqlite"
    s = get_screener(llama.spec, max_tokens=12, concurrency=1)
    out_run = score_run(s, _resumes(2), cache=db, job_descriptions=JD)
    out = out_run.table
    # current llama.cpp takes json_schema and compiles it to a grammar: every reply parses
    assert s.dialect == "json_schema" and s.negotiation == [{"dialect": "json_schema", "accepted": True}]
    assert out_run.summary["parse_rate"] == 1.0
    assert out["score"].between(0, 100).all()
    assert len(ScoreCache(db)) == 2
    assert s.stats["server_prompt_tokens"] > 0  # llama.cpp reports its own timings
    s2 = get_screener(llama.spec, max_tokens=12, concurrency=1)
    again_run = score_run(s2, _resumes(2), cache=db, job_descriptions=JD)
    again = again_run.table
    assert again_run.summary["cached"] == 2 and again_run.summary["scored"] == 0
    assert s2.stats["requests"] == 1  # only the dialect probe reached the server
    np.testing.assert_array_equal(again["score"].to_numpy(), out["score"].to_numpy())


def test_expected_scoring_uses_the_servers_logprobs(llama, tmp_path):
    # one résumé: with top_logprobs the server checks the grammar against the whole vocabulary at
    # every step, which is slow on 2 cores
    s = get_screener(llama.spec, max_tokens=12, concurrency=1, scoring="expected", top_logprobs=5)
    out = score_resumes(s, _resumes(1), cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert out["parse_ok"].all() and (out["scoring"] == "expected").all()
    for raw in out["raw"]:
        info = json.loads(raw)
        assert 0 < info["mass"] <= 1.0 + 1e-6 and info["n_candidates"] >= 1
        assert 0 <= info["expected"] <= 100


def test_resume_over_the_context_is_a_recorded_failure_and_the_run_goes_on(llama, tmp_path):
    res = _resumes(2)
    res.loc[1, "text"] = "Nurse. " + "Experienced in patient care and charting. " * 400  # ≈ 3,000 tokens > 1,024
    s = get_screener(llama.spec, max_tokens=12, concurrency=1)
    out = score_resumes(s, res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert out["parse_ok"].tolist() == [True, False] and np.isnan(out.loc[1, "score"])
    assert "live1" in out.loc[1, "raw"] and "HTTP 400" in out.loc[1, "raw"] and "context" in out.loc[1, "raw"]
    assert s.stats["retries"] == 0  # a refusal is not retried


def test_sigkill_mid_run_then_resume(llama, tmp_path):
    res_path = tmp_path / "resumes.parquet"
    n = 6  # killed after the first committed row (polled every 20 ms): 5 more replies of margin
    pd.DataFrame({"resume_id": [f"live{i}" for i in range(n)], "occupation": "nurse",
                  "text": [f"{TEXTS[i % len(TEXTS)]} Applicant {i}." for i in range(n)]}).to_parquet(res_path)
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps(JD))
    db = tmp_path / "scores.sqlite"
    cmd = [sys.executable, "-m", "popresume", "score", "--resumes", str(res_path), "--screener", llama.spec,
           "--jobs", str(jobs), "--cache", str(db), "--concurrency", "1", "-o", "max_tokens=12",
           "--out", str(tmp_path / "scores.parquet"), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    n_before = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                try:
                    n_before = con.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
                except sqlite3.OperationalError:
                    n_before = 0
            if n_before >= 1:
                break
        time.sleep(0.02)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()[-500:]}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert not (tmp_path / "scores.parquet").exists()  # nothing half-written at the output path
    n_killed = len(ScoreCache(db))
    assert 1 <= n_killed < n
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-800:]
    assert f"cached {n_killed}" in done.stdout and f"scored {n - n_killed}" in done.stdout
    assert "dialect json_schema" in done.stdout
    out = pd.read_parquet(tmp_path / "scores.parquet")
    assert len(out) == n and out["parse_ok"].all()
