"""Faults of an OpenAI-compatible server, against a real server on loopback: a reply that
drips one byte at a time, credentials inside the base URL, a run where every request fails."""

from __future__ import annotations

import base64
import json
import threading
import time

import pandas as pd
import pytest

from _loopback import Loopback, QuietHandler  # tests/_loopback.py

from popresume.screeners import get_screener, score_resumes, score_run

JD = {"nurse": "Registered nurse wanted."}


class FaultServer(Loopback):
    """One server, its behaviour chosen per résumé by a word in the résumé text:
    DRIP → a valid reply sent one byte every 0.2 s; T429 → HTTP 429 every time;
    BAD → HTTP 400 (refused); NOTJSON → HTTP 200 with a non-JSON body; anything else → a score.
    The one-token dialect probe is always answered. ``die_after`` résumé requests, the server
    stops listening (a server that dies mid-run). ``auth`` records each Authorization header."""

    def __init__(self, die_after: int | None = None, port: int = 0):
        self.auth: list[str | None] = []
        self.n = 0
        self.lock = threading.Lock()
        outer = self

        class H(QuietHandler):
            def _head(self, code, length, extra=()):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(length))
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()

            def _send(self, code, body, extra=()):
                data = body.encode()
                self._head(code, len(data), extra)
                self.wfile.write(data)

            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                text = req["messages"][-1]["content"]
                with outer.lock:
                    outer.auth.append(self.headers.get("Authorization"))
                if "RESUME: " not in text:  # the dialect probe
                    return self._send(200, _reply(50))
                with outer.lock:
                    outer.n += 1
                    if die_after is not None and outer.n > die_after:
                        threading.Thread(target=outer.stop, daemon=True).start()
                        self.close_connection = True
                        return
                if "DRIP" in text:
                    data = _reply(42).encode()
                    self._head(200, len(data))
                    for b in data:
                        self.wfile.write(bytes([b]))
                        self.wfile.flush()
                        time.sleep(0.2)
                elif "T429" in text:
                    self._send(429, json.dumps({"error": {"message": "rate limited"}}), [("Retry-After", "0")])
                elif "BAD" in text:
                    self._send(400, json.dumps({"error": {"message": "this résumé is refused"}}))
                elif "NOTJSON" in text:
                    self._send(200, "<html>gateway</html>")
                else:
                    self._send(200, _reply(len(text) % 101))

        super().__init__(H, port)
        self.stopped = False

    def stop(self):
        if not self.stopped:
            self.stopped = True
            self.httpd.shutdown()
            self.httpd.server_close()

    def __exit__(self, *exc):
        self.stop()


def _reply(score) -> str:
    return json.dumps({"choices": [{"message": {"content": json.dumps({"score": score})},
                                    "finish_reason": "stop"}]})


def _resumes(words):
    return pd.DataFrame({"resume_id": [f"r{i}" for i in range(len(words))], "occupation": "nurse",
                         "text": [f"Nurse résumé {i} {w}" for i, w in enumerate(words)]})


def test_a_dripping_reply_is_cut_at_the_request_timeout():
    """The timeout bounds the whole request, not each read: a reply of ~80 bytes at one byte
    per 0.2 s (16 s) is abandoned after about `timeout` seconds per attempt."""
    with FaultServer() as srv:
        scr = get_screener({"kind": "openai", "model": "m", "base_url": srv.url, "timeout": 1.0, "max_retries": 1,
                            "backoff": 0.0, "concurrency": 2})
        t0 = time.perf_counter()
        df = score_resumes(scr, _resumes(["DRIP", "ok"]), cache=False, job_descriptions=JD)
        elapsed = time.perf_counter() - t0
    assert elapsed < 8.0, elapsed  # 2 attempts × 1 s, plus slack for a busy machine; without the bound: 2 × 16 s
    assert df["parse_ok"].tolist() == [False, True]
    assert "timeout" in df["raw"].iloc[0].lower() and "1 s" in df["raw"].iloc[0]


def test_credentials_in_the_base_url_are_used_but_never_stored_or_printed(tmp_path):
    key = "sk-SECRET-in-url-12345"
    with FaultServer() as srv:
        url = srv.url.replace("http://", f"http://alice:{key}@")
        scr = get_screener(f"openai:m@{url}")
        assert key not in repr(scr) and key not in json.dumps(scr.cache_params())
        df_run = score_run(scr, _resumes(["ok", "BAD"]), cache=tmp_path / "c.sqlite", job_descriptions=JD)
        df = df_run.table
        sent = srv.auth[-1]
    assert sent == "Basic " + base64.b64encode(f"alice:{key}".encode()).decode()  # the key is still used
    assert df["parse_ok"].tolist() == [True, False]
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert key.encode() not in stored and b"alice" not in stored
    assert key not in df.to_json() and key not in json.dumps([df_run.summary, df_run.screener_params], default=str)
    # the server is gone: the error names the server without its credentials
    with pytest.raises(ConnectionError) as e:
        score_resumes(get_screener({"kind": "openai", "model": "m", "base_url": url, "max_retries": 0,
                                    "timeout": 1.0}), _resumes(["ok"]), cache=False, job_descriptions=JD)
    assert key not in str(e.value) and "127.0.0.1" in str(e.value)


def test_score_exits_non_zero_when_nothing_was_scored(cli, tmp_path):
    with FaultServer() as srv:
        _resumes(["NOTJSON", "NOTJSON", "NOTJSON"]).to_parquet(tmp_path / "r.parquet")
        (tmp_path / "jobs.json").write_text(json.dumps(JD))
        args = ["score", "--resumes", tmp_path / "r.parquet", "--jobs", tmp_path / "jobs.json", "--screener",
                json.dumps({"kind": "openai", "model": "m", "base_url": srv.url, "max_retries": 1, "backoff": 0}),
                "--no-cache", "--quiet", "--out", tmp_path / "s.parquet"]
        r = cli(*args)
        assert r.exit_code == 1, r.output
        assert "failed 3 (100.0%)" in r.output and "nothing was scored" in r.output and "Traceback" not in r.output
        assert pd.read_parquet(tmp_path / "s.parquet")["parse_ok"].sum() == 0  # the failures are kept to read
        _resumes(["ok", "NOTJSON", "ok", "ok"]).to_parquet(tmp_path / "r.parquet")
        r = cli(*args)
        assert r.exit_code == 0, r.output
        assert "failed 1 (25.0%)" in r.output


def test_credentials_in_the_spec_never_reach_the_validity_card(tmp_path):
    from popresume.screeners.validity import validity_card

    key = "sk-card-secret-987"
    with FaultServer() as srv:
        spec = f"openai:m@{srv.url.replace('http://', f'http://bob:{key}@')}"
        card = validity_card(spec, n=5, cache=False, injection_n=1)
    assert key not in json.dumps(card, default=str) and "127.0.0.1" in card["spec"]


def test_a_password_that_occurs_in_replies_does_not_corrupt_them():
    """Replies are parsed as sent; only what is stored is scrubbed. A basic-auth password
    that is also a word of every reply ("choices") used to turn each reply into a failure."""
    with FaultServer() as srv:
        scr = get_screener({"kind": "openai", "model": "m", "base_url": srv.url.replace("http://", "http://bob:choices@"),
                            "max_retries": 0, "backoff": 0})
        out = score_resumes(scr, _resumes(["ok", "ok"]), cache=False)
    assert out["parse_ok"].all() and out["score"].notna().all(), out[["score", "raw"]]
