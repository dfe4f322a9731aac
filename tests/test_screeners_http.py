"""The OpenAI-compatible backend against a real HTTP server on loopback (started here)."""

import base64
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from popresume.screeners import ScoreCache, get_screener, score_resumes
from popresume.screeners.prompt import SCORE_SCHEMA

JD = {"nurse": "Registered nurse wanted."}


class Server:
    """Behaviour chosen by the request's model name:
    ok → {"score": len(resume text) % 101}; slow → same after 0.2 s;
    flaky429 / flaky500 → first two requests per résumé fail with that status;
    drop → first request per résumé: connection closed without a reply;
    notjson → first request per résumé: HTTP 200 with a non-JSON body;
    malformed → content that is not a score, always; fixonretry → malformed then valid;
    any other model → 404 with an OpenAI-style error body. require_key → 401 without a key."""

    def __init__(self, require_key=None):
        self.requests = []
        self.counts = {}
        self.lock = threading.Lock()
        self.require_key = require_key
        outer = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):  # no Nagle: headers and body are separate writes (avoids 40 ms delayed-ACK stalls)
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *a):
                pass

            def _send(self, code, body, ctype="application/json"):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                req = json.loads(self.rfile.read(n))
                with outer.lock:
                    outer.requests.append({"headers": dict(self.headers), "body": req})
                content = req["messages"][-1]["content"]
                text = content if isinstance(content, str) else content[0]["text"]
                resume = text.split("RESUME: ", 1)[-1]
                key = (req["model"], resume)
                with outer.lock:
                    outer.counts[key] = outer.counts.get(key, 0) + 1
                    k = outer.counts[key]
                if outer.require_key and self.headers.get("Authorization") != f"Bearer {outer.require_key}":
                    return self._send(401, json.dumps({"error": {"message": "invalid api key"}}))
                model = req["model"]
                reply = json.dumps({"score": len(resume) % 101})
                if model == "slow":
                    time.sleep(0.2)
                elif model in ("flaky429", "flaky500") and k <= 2:
                    return self._send(int(model[-3:]), json.dumps({"error": {"message": "try later"}}))
                elif model == "drop" and k == 1:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                elif model == "notjson" and k == 1:
                    return self._send(200, "<html>oops</html>", "text/html")
                elif model == "malformed" or (model == "fixonretry" and k == 1):
                    reply = "I think this candidate is quite good!"
                elif model not in ("ok", "slow", "flaky429", "flaky500", "drop", "notjson", "fixonretry"):
                    return self._send(404, json.dumps({"error": {"message": f"The model `{model}` does not exist",
                                                                 "code": "model_not_found"}}))
                body = {"id": "x", "object": "chat.completion", "model": model,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                     "finish_reason": "stop"}]}
                self._send(200, json.dumps(body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _resumes(n):
    return pd.DataFrame({"resume_id": [f"r{i:02d}" for i in range(n)], "occupation": "nurse",
                         "text": ["x" * (10 + 3 * i) for i in range(n)]})


def _screener(model, url, **kw):
    kw.setdefault("backoff", 0.01)
    kw.setdefault("max_backoff", 0.05)
    return get_screener({"kind": "openai", "model": model, "base_url": url, **kw})


def _expected(res):
    return np.array([len(t) % 101 for t in res["text"]], dtype=float)


@pytest.fixture
def server():
    with Server() as s:
        yield s


def test_scores_request_shape_and_order(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res = _resumes(20)
    out = score_resumes(_screener("ok", server.url, concurrency=6), res, cache=False, job_descriptions=JD)
    assert out["parse_ok"].all()
    np.testing.assert_array_equal(out["score"].to_numpy(), _expected(res))
    assert out.attrs["summary"]["parse_rate"] == 1.0
    body = server.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCORE_SCHEMA
    assert body["temperature"] == 0.0
    assert body["messages"][0]["content"].startswith("You are a strict resume screening grader")
    assert "Authorization" not in server.requests[0]["headers"]


def test_slow_replies_run_concurrently(server):
    res = _resumes(12)
    t = time.perf_counter()
    out = score_resumes(_screener("slow", server.url, concurrency=6), res, cache=False, job_descriptions=JD)
    dt = time.perf_counter() - t
    assert out["parse_ok"].all()
    assert dt < 12 * 0.2 / 2, f"{dt:.2f}s: requests were not concurrent"


@pytest.mark.parametrize("model", ["flaky429", "flaky500", "drop", "notjson"])
def test_transient_errors_are_retried(server, model):
    res = _resumes(5)
    s = _screener(model, server.url, concurrency=3)
    out = score_resumes(s, res, cache=False, job_descriptions=JD)
    assert out["parse_ok"].all()
    np.testing.assert_array_equal(out["score"].to_numpy(), _expected(res))
    assert s.stats["retries"] >= 5


def test_retries_are_bounded(server, tmp_path):
    s = _screener("flaky429", server.url, max_retries=1)
    out = score_resumes(s, _resumes(2), cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert (~out["parse_ok"]).all() and out["score"].isna().all()
    assert out["raw"].str.contains("429").all()
    assert len(ScoreCache(tmp_path / "c.sqlite")) == 0  # transport failures are not cached: a rerun retries


def test_malformed_reply_retried_then_missing(server, tmp_path):
    s = _screener("malformed", server.url, parse_retries=2)
    out = score_resumes(s, _resumes(3), cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert out["score"].isna().all() and (~out["parse_ok"]).all()
    assert (out["raw"] == "I think this candidate is quite good!").all()
    assert out.attrs["summary"]["parse_rate"] == 0.0
    assert len(server.requests) == 3 * 3
    s2 = _screener("fixonretry", server.url, parse_retries=2)
    out2 = score_resumes(s2, _resumes(3), cache=False, job_descriptions=JD)
    assert out2["parse_ok"].all()


def test_wrong_model_is_a_clear_error(server):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        score_resumes(_screener("gpt-nonexistent", server.url), _resumes(2), cache=False, job_descriptions=JD)


def test_unreachable_server_is_a_clear_error():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(ConnectionError, match="unreachable"):
        score_resumes(_screener("ok", f"http://127.0.0.1:{port}/v1", max_retries=1), _resumes(1), cache=False,
                      job_descriptions=JD)


def test_api_key_sent_but_never_stored(monkeypatch, tmp_path):
    key = "sk-loopback-VERY-SECRET-42"
    with Server(require_key=key) as srv:
        monkeypatch.delenv("MY_KEY", raising=False)
        with pytest.raises(PermissionError, match="MY_KEY"):
            score_resumes(_screener("ok", srv.url, api_key_env="MY_KEY"), _resumes(1), cache=False,
                          job_descriptions=JD)
        monkeypatch.setenv("MY_KEY", key)
        s = _screener("ok", srv.url, api_key_env="MY_KEY")
        assert key not in repr(s) and key not in json.dumps(s.cache_params())
        out = score_resumes(s, _resumes(3), cache=tmp_path / "c.sqlite", job_descriptions=JD)
        assert out["parse_ok"].all()
        assert srv.requests[-1]["headers"]["Authorization"] == f"Bearer {key}"
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert key.encode() not in data
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(PermissionError, match="OPENAI_API_KEY"):
        get_screener("openai:gpt-4o-mini@https://api.openai.com/v1")


def test_images_sent_as_base64_parts_and_unreadable_recorded(server, tmp_path):
    good = tmp_path / "good.png"
    Image.new("RGB", (8, 8), (200, 10, 10)).save(good)
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"this is not a png")
    res = pd.DataFrame({"resume_id": ["a", "b", "c"], "occupation": "nurse",
                        "image_path": [str(good), str(bad), str(tmp_path / "missing.png")], "format": "image"})
    out = score_resumes(_screener("ok", server.url), res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert out.loc[0, "parse_ok"] and not out.loc[1, "parse_ok"] and not out.loc[2, "parse_ok"]
    assert np.isnan(out.loc[1, "score"]) and "cannot read image" in out.loc[1, "raw"]
    assert "cannot read" in out.loc[2, "raw"]
    assert len(server.requests) == 1
    parts = server.requests[0]["body"]["messages"][0]["content"]
    assert parts[0]["type"] == "text" and "attached image" in parts[0]["text"]
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == good.read_bytes()


def test_complete_json_generic(server):
    s = _screener("ok", server.url)
    obj, raw = s.complete_json([{"role": "user", "content": "RESUME: abc"}], SCORE_SCHEMA)
    assert obj == {"score": 3} and json.loads(raw) == obj
