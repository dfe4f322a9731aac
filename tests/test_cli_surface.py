"""Command-line options that no other test passes, each checked so that the test fails if
the option were ignored: ``serve``, ``score --retry-failed`` / ``--scoring``, ``estimate
--refit-bootstrap``, ``generate --experience``, ``ranking`` with the logit and figures on,
``report --published`` (the correspondence tables' contents: tests/test_correspondence_cli.py)."""

from __future__ import annotations

import json
import stat
import threading

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from popresume.cli import main
from _loopback import Loopback, QuietHandler  # tests/_loopback.py


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ---------------------------------------------------------------------------- serve
def test_serve_starts_the_given_binary_and_reports_its_exit(tmp_path):
    """A stub llama-server that exits at once: ``serve`` must start *that* binary (not the
    venv's) and say in one line that it exited while starting."""
    stub = tmp_path / "fake-llama-server"
    stub.write_text("#!/bin/sh\necho \"fake server $*\" >&2\nexit 3\n")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    r = _run("serve", "--binary", stub, "--model", model, "--port", "0")
    assert r.exit_code != 0
    assert "starting fake-llama-server with" in r.output
    assert "exited with code 3" in r.output
    assert "Traceback" not in r.output


def test_serve_refuses_a_missing_binary(tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    r = _run("serve", "--binary", tmp_path / "nope", "--model", model)
    assert r.exit_code != 0 and f"llama-server binary {tmp_path / 'nope'} not found" in r.output


# ---------------------------------------------------------------------------- score
class _Server(Loopback):
    """An OpenAI-compatible stub: the first reply per résumé has no score, later ones 42;
    records each request body."""

    def __init__(self):
        self.bodies = []
        self.seen = {}
        self.lock = threading.Lock()
        outer = self

        class H(QuietHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                text = body["messages"][-1]["content"]
                text = text if isinstance(text, str) else text[0]["text"]
                with outer.lock:
                    outer.bodies.append(body)
                    k = outer.seen[text] = outer.seen.get(text, 0) + 1
                content = "I cannot say." if k == 1 else json.dumps({"score": 42})
                data = json.dumps({"id": "x", "object": "chat.completion", "model": body["model"],
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(H)

    def resume_requests(self) -> int:
        """Requests about a résumé (not the one-token dialect probe)."""
        return sum("Resume " in str(b["messages"][-1]["content"]) for b in self.bodies)


@pytest.fixture
def score_inputs(tmp_path):
    res = pd.DataFrame({"resume_id": ["a", "b", "c"], "occupation": "nurse",
                        "text": ["Resume A", "Resume B", "Resume C"]})
    res.to_parquet(tmp_path / "res.parquet")
    (tmp_path / "jobs.json").write_text(json.dumps({"nurse": "A nurse."}))
    return tmp_path


def test_score_retry_failed_rescores_cached_failures(score_inputs, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    d = score_inputs
    with _Server() as server:
        base = ["score", "--resumes", d / "res.parquet", "--screener", f"openai:m@{server.url}",
                "--jobs", d / "jobs.json", "--cache", d / "c.sqlite", "-o", "parse_retries=0",
                "-o", "response_format=prompt", "--quiet"]
        first = _run(*base, "--out", d / "s1.parquet")
        assert "failed 3" in first.output  # every first reply has no score
        n_requests = server.resume_requests()
        assert n_requests == 3
        again = _run(*base, "--out", d / "s2.parquet")
        # failures are cached as such: no résumé is asked again
        assert "cached 3" in again.output and server.resume_requests() == 3
        retried = _run(*base, "--retry-failed", "--out", d / "s3.parquet")
        assert retried.exit_code == 0, retried.output
        assert "scored 3" in retried.output and server.resume_requests() == 6
    out = pd.read_parquet(d / "s3.parquet")
    assert out["parse_ok"].all() and (out["score"] == 42).all()


def test_score_scoring_expected_asks_for_logprobs(score_inputs, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    d = score_inputs
    with _Server() as server:
        greedy = _run("score", "--resumes", d / "res.parquet", "--screener", f"openai:m@{server.url}",
                      "--jobs", d / "jobs.json", "--no-cache", "-o", "response_format=prompt", "--quiet",
                      "--out", d / "g.parquet")
        assert "scoring greedy" in greedy.output
        assert not any(b.get("logprobs") for b in server.bodies)
        server.bodies.clear()
        _run("score", "--resumes", d / "res.parquet", "--screener", f"openai:m@{server.url}",
             "--jobs", d / "jobs.json", "--no-cache", "-o", "response_format=prompt", "--quiet",
             "--scoring", "expected", "--out", d / "e.parquet")
        # the stub returns no log-probabilities, so the run may fail: what matters is the ask
        assert server.bodies and any(b.get("logprobs") for b in server.bodies)
    refused = _run("score", "--resumes", d / "res.parquet", "--screener", "synthetic", "--scoring", "expected",
                   "--out", d / "x.parquet")
    assert refused.exit_code != 0 and "--scoring" in refused.output


# ---------------------------------------------------------------------------- estimate
def test_estimate_refit_bootstrap_is_used(estimate_files):
    common = ["estimate", "--profiles", estimate_files / "p.parquet", "--scores", estimate_files / "s.parquet",
              "--folds", "3", "--n-boot", "3", "--no-tune", "--r", "fn_age,surname_group,region", "--quiet",
              "--variance", "influence"]
    plain = _run(*common, "--out", estimate_files / "plain.csv")
    refit = _run(*common, "--refit-bootstrap", "--out", estimate_files / "refit.csv")
    assert plain.exit_code == 0 and refit.exit_code == 0, refit.output
    p = pd.read_csv(estimate_files / "plain.csv", index_col=0)
    f = pd.read_csv(estimate_files / "refit.csv", index_col=0)
    assert "refit" in f["ci_method"].iloc[0].lower() and "refit" not in p["ci_method"].iloc[0].lower()
    np.testing.assert_allclose(f["estimate"], p["estimate"])  # point estimates from the original sample
    # the intervals come from other draws (se is the influence-function one in both)
    assert not np.allclose(f[["ci_low", "ci_high"]], p[["ci_low", "ci_high"]])


# ---------------------------------------------------------------------------- generate
def test_generate_experience_source_is_used(tmp_path):
    """An experience extract where everyone has 0 years: the generated exp_year must follow it."""
    rng = np.random.default_rng(0)
    n = 400
    age = rng.integers(22, 60, n)
    src = pd.DataFrame({"age": age, "gender": rng.choice(["F", "M"], n), "educ_years": rng.choice([12, 14, 16], n),
                        "exp_year": np.zeros(n)})
    src.to_csv(tmp_path / "exp.csv", index=False)
    args = ["generate", "--occupations", "nurse", "--size", "60", "--seed", "1"]
    own = _run(*args, "--experience", tmp_path / "exp.csv", "--out", tmp_path / "own.parquet")
    assert own.exit_code == 0, own.output
    default = _run(*args, "--out", tmp_path / "default.parquet")
    assert default.exit_code == 0, default.output
    mine = pd.read_parquet(tmp_path / "own.parquet")["exp_year"]
    theirs = pd.read_parquet(tmp_path / "default.parquet")["exp_year"]
    assert mine.mean() < 1.0 < theirs.mean()


# ---------------------------------------------------------------------------- ranking
def test_ranking_with_logit_and_figures(tmp_path):
    out = tmp_path / "r"
    r = _run("ranking", "--out", out, "--model", "gpt-4", "--n-sim", "200")
    assert r.exit_code == 0, r.output
    cl = pd.read_csv(out / "clogit.csv")
    assert len(cl) and {"model", "se"} <= set(cl.columns) and (cl["se"] > 0).all()
    assert (out / "clogit.png").stat().st_size > 0
    assert list(out.glob("*.png"))


# ---------------------------------------------------------------------------- report
def test_report_published_reads_the_given_table(tmp_path, published):
    from popresume.audit.metrics import published_table  # noqa: F401 (the fixture's source)

    results = tmp_path / "results.csv"
    published.head(4).to_csv(results, index=False)
    # a published table with one effect moved far away: the report must show the moved value
    moved = published.copy()
    moved["TE_estimate"] = moved["TE_estimate"] + 7.0
    moved.to_csv(tmp_path / "pub.csv", index=False)
    a = _run("report", "--results", results, "--out", tmp_path / "a")
    b = _run("report", "--results", results, "--out", tmp_path / "b", "--published", tmp_path / "pub.csv")
    assert a.exit_code == 0 and b.exit_code == 0, b.output
    differ = [p.name for p in (tmp_path / "a").glob("*.csv")
              if (tmp_path / "b" / p.name).exists() and (tmp_path / "b" / p.name).read_bytes() != p.read_bytes()]
    assert differ, "the --published table changed nothing in the report"


# ---------------------------------------------------------------------------- audit
def test_audit_scheduler_is_contacted(tmp_path):
    """A grid sent to a scheduler where none listens fails at the connection (it would run
    locally and succeed if --scheduler were ignored)."""
    import socket

    import dask

    yaml_text = ("name: tiny\noccupations: [software_developer]\nformats: [text]\nattributes: [gender]\n"
                 "sizes: 120\nseed: 3\nfolds: 3\nn_boot: 10\nestimator: {tune: false, threads: 1}\n"
                 "screeners:\n  - name: synth\n    spec: {kind: synthetic}\n    label: synthetic\n")
    (tmp_path / "tiny.yaml").write_text(yaml_text)
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        r = _run("audit", "--config", tmp_path / "tiny.yaml", "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--out", tmp_path / "res.csv", "--cache-dir", tmp_path / "cache")
    assert r.exit_code != 0
    assert f"127.0.0.1:{port}" in r.output + str(r.exception)
    assert not (tmp_path / "res.csv").exists()


# ---------------------------------------------------------------------------- chapter 10a
def test_chapter_10a_claim_on_the_recorded_run():
    """Chapter 10a's central claim on the paper-size run it shows (teachers, gender, the
    embedding screener, 16,188 scores): with the grouped name variables the NDE's CI
    excludes 0 (a C1), with the refined ones it covers 0 and shrinks to at most half; the
    TE does not depend on R, so it is the same number both ways."""
    from popresume.audit import coarsening
    from popresume.paths import data_path

    refined = pd.read_csv(data_path("results", "audit_paper_text_refined_names.csv"))
    rows = coarsening.refined_rows(refined, "teacher", "gender").set_index("mediators")
    grouped, fine = rows.loc["coarse"], rows.loc["fine"]
    assert grouped["NDE_ci_low"] > 0  # spurious direct effect with grouped R
    assert fine["NDE_ci_low"] < 0 < fine["NDE_ci_high"]  # refined R: covers 0
    assert abs(fine["NDE_estimate"]) < 0.5 * abs(grouped["NDE_estimate"])
    assert fine["TE_estimate"] == pytest.approx(grouped["TE_estimate"], abs=0.01)
    assert grouped["n"] == fine["n"] == 16188
