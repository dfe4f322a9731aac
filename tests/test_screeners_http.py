"""The OpenAI-compatible backend against a real HTTP server on loopback (started here)."""

import base64
import json
import socket
import threading
import time

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from _loopback import Loopback, QuietHandler  # tests/_loopback.py

from popresume.screeners import get_screener, score_resumes, score_run
from popresume.screeners.cache import ScoreCache
from popresume.screeners.openai_http import FatalHTTPError
from popresume.screeners.specs import DIALECTS
from popresume.screeners.prompt import SCORE_SCHEMA

JD = {"nurse": "Registered nurse wanted."}


class Server(Loopback):
    """Behaviour chosen by the request's model name:
    ok → {"score": len(resume text) % 101}; slow → same after 0.2 s;
    flaky429 / flaky500 → first two requests per résumé fail with that status;
    drop → first request per résumé: connection closed without a reply;
    notjson → first request per résumé: HTTP 200 with a non-JSON body;
    malformed → content that is not a score, always; fixonretry → malformed then valid;
    badsome → HTTP 400 (context length) for résumés containing "BAD";
    maxtok → HTTP 400 "max_tokens must be at most 8" when max_tokens > 8 (the probe asks for 1);
    any other model → 404 with an OpenAI-style error body. require_key → 401 without a key.
    The flaky behaviours apply to résumé requests only, not to the one-token dialect probe."""

    def __init__(self, require_key=None):
        self.requests = []
        self.counts = {}
        self.lock = threading.Lock()
        self.require_key = require_key
        self.in_flight = self.max_in_flight = 0  # "slow" requests being answered at once
        outer = self

        class H(QuietHandler):

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
                if "RESUME: " not in text and model in ("flaky429", "flaky500", "drop", "notjson", "malformed",
                                                        "fixonretry", "badsome", "maxtok"):
                    model = "ok"  # the dialect probe
                if model == "slow":
                    with outer.lock:
                        outer.in_flight += 1
                        outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                    time.sleep(0.2)
                    with outer.lock:
                        outer.in_flight -= 1
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
                elif model == "cutoff":
                    reply = '{\n  "score": 10' if "BAD" in resume else reply
                elif model == "badsome" and "BAD" in resume:
                    return self._send(400, json.dumps({"object": "error", "type": "BadRequestError", "code": 400,
                                                       "message": "This model's maximum context length is 2048 "
                                                                  "tokens; the messages have 9000 tokens"}))
                elif model == "maxtok" and req.get("max_tokens", 0) > 8:
                    return self._send(400, json.dumps({"error": {"message": "max_tokens must be at most 8",
                                                                 "type": "invalid_request_error"}}))
                elif model not in ("ok", "slow", "flaky429", "flaky500", "drop", "notjson", "fixonretry", "badsome",
                                   "maxtok", "cutoff"):
                    return self._send(404, json.dumps({"error": {"message": f"The model `{model}` does not exist",
                                                                 "code": "model_not_found"}}))
                body = {"id": "x", "object": "chat.completion", "model": model,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                     "finish_reason": "length" if reply.count("{") > reply.count("}") else "stop"}]}
                self._send(200, json.dumps(body))

        Loopback.__init__(self, H)


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
    out_run = score_run(_screener("ok", server.url, concurrency=6), res, cache=False, job_descriptions=JD)
    out = out_run.table
    assert out["parse_ok"].all()
    np.testing.assert_array_equal(out["score"].to_numpy(), _expected(res))
    assert out_run.summary["parse_rate"] == 1.0
    probe = server.requests[0]["body"]
    assert probe["max_tokens"] == 1 and "RESUME" not in probe["messages"][0]["content"]
    assert len(server.requests) == 1 + 20
    assert out_run.screener_params["dialect"] == "json_schema" and (out["scoring"] == "greedy").all()
    body = server.requests[1]["body"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCORE_SCHEMA
    assert body["temperature"] == 0.0
    assert body["messages"][0]["content"].startswith("You are a strict resume screening grader")
    assert "Authorization" not in server.requests[0]["headers"]


def test_slow_replies_run_concurrently(server):
    res = _resumes(12)
    out = score_resumes(_screener("slow", server.url, concurrency=6), res, cache=False, job_descriptions=JD)
    assert out["parse_ok"].all()
    # observed at the server, not by the clock: several requests were being answered at once
    assert 2 <= server.max_in_flight <= 6, f"{server.max_in_flight}: requests were not concurrent"


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
    out_run = score_run(s, _resumes(3), cache=tmp_path / "c.sqlite", job_descriptions=JD)
    out = out_run.table
    assert out["score"].isna().all() and (~out["parse_ok"]).all()
    assert (out["raw"] == "I think this candidate is quite good!").all()
    assert out_run.summary["parse_rate"] == 0.0
    assert len(server.requests) == 1 + 3 * 3  # the probe, then 3 tries per résumé
    s2 = _screener("fixonretry", server.url, parse_retries=2)
    out2 = score_resumes(s2, _resumes(3), cache=False, job_descriptions=JD)
    assert out2["parse_ok"].all()


def test_wrong_model_is_a_clear_error(server, tmp_path):
    with pytest.raises(FatalHTTPError, match="gpt-nonexistent.*does not exist"):
        score_resumes(_screener("gpt-nonexistent", server.url), _resumes(2), cache=tmp_path / "c.sqlite",
                      job_descriptions=JD)
    assert len(server.requests) == 1  # a 404 stops the probe at once: no fallback, no retries
    assert len(ScoreCache(tmp_path / "c.sqlite")) == 0


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
    assert len(server.requests) == 1 + 1  # the dialect probe, then the one readable image
    parts = server.requests[1]["body"]["messages"][0]["content"]
    assert parts[0]["type"] == "text" and "attached image" in parts[0]["text"]
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == good.read_bytes()


def test_complete_json_generic(server):
    s = _screener("ok", server.url)
    obj, raw = s.complete_json([{"role": "user", "content": "RESUME: abc"}], SCORE_SCHEMA)
    assert obj == {"score": 3} and json.loads(raw) == obj


# -- dialects: fixtures built from each server's documented request and error shapes ----------
# Each flavour says which response_format types it takes, how it words a refusal and
# an unknown model, and whether it returns token logprobs. The live llama.cpp server is tested in
# tests/test_screeners_live.py.
_LLAMA_CPP_PY_500 = ("1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be "
                     "'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]")
FLAVOURS = {
    # vLLM: json_schema via guided decoding; errors {"object": "error", "message", "type", "code"}
    "vllm": {"accepts": {"json_schema", "json_object", None}, "logprobs": True,
             "not_found": (404, {"object": "error", "message": "The model `{m}` does not exist.",
                                 "type": "NotFoundError", "param": None, "code": 404})},
    # OpenAI: json_schema; an unknown "schema" key inside json_object is a 400 invalid_request_error
    "openai": {"accepts": {"json_schema", None}, "logprobs": True,
               "refuse": (400, {"error": {"message": "Unrecognized request argument supplied: schema",
                                          "type": "invalid_request_error", "param": "response_format", "code": None}}),
               "not_found": (404, {"error": {"message": "The model `{m}` does not exist or you do not have access "
                                                        "to it.", "type": "invalid_request_error", "param": None,
                                             "code": "model_not_found"}})},
    # llama.cpp's llama-server before json_schema support (ggml-org/llama.cpp#9527): HTTP 500
    "llama.cpp": {"accepts": {"json_object", None}, "logprobs": True,
                  "refuse": (500, {"error": {"code": 500, "type": "server_error", "message":
                                             'response_format type must be one of "text" or "json_object", '
                                             "but got: json_schema"}}),
                  "not_found": None},  # llama-server serves its one model under any name
    # llama-cpp-python 0.3.x: pydantic refuses json_schema, surfaced as HTTP 500
    "llama-cpp-python": {"accepts": {"json_object", None}, "logprobs": True,
                         "refuse": (500, {"error": {"message": _LLAMA_CPP_PY_500, "type": "internal_server_error",
                                                    "param": None, "code": None}}),
                         "not_found": None},
    # Ollama's OpenAI-compatible API (≥ 0.5 takes json_schema); no logprobs in its replies here
    "ollama": {"accepts": {"json_schema", "json_object", None}, "logprobs": False,
               "not_found": (404, {"error": {"message": 'model "{m}" not found, try pulling it first',
                                             "type": "api_error", "param": None, "code": None}})},
    # TGI: its own grammar types only ("json", "regex"); an OpenAI response_format is a 422
    "tgi": {"accepts": {None}, "logprobs": True,
            "refuse": (422, {"error": "Input validation error: response_format: unknown variant `json_schema`, "
                                      "expected `json` or `regex`", "error_type": "validation"})},
}


class DialectServer(Loopback):
    """One loopback server speaking ``flavour``; serves the model "m". Constrained replies are
    ``{"score": S}`` with S = (len(résumé) % 100) + 0.5; a prompt-only reply is chatter around it."""

    def __init__(self, flavour):
        self.flavour = FLAVOURS[flavour]
        self.requests = []
        outer = self

        class H(QuietHandler):

            def _send(self, code, body):
                self.send_json(code, body)

            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.requests.append(req)
                fl = outer.flavour
                if req["model"] != "m" and fl.get("not_found"):
                    code, body = fl["not_found"]
                    return self._send(code, json.dumps(body).replace("{m}", req["model"]))
                rf = req.get("response_format")
                kind = rf["type"] if rf else None
                if kind not in fl["accepts"]:
                    return self._send(*fl["refuse"])
                resume = req["messages"][-1]["content"].split("RESUME: ", 1)[-1]
                s = (len(resume) % 100) + 0.5
                content = json.dumps({"score": s}) if kind else f"Sure! Score: {s} out of 100."
                choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                if req.get("logprobs") and fl["logprobs"]:
                    # the number's first digit is one token, the rest another; 8 points higher at p=0.25
                    head, num = content.split(str(s)[0], 1)[0], str(s)
                    d = int(num[0])
                    alt = str(min(d + 1, 9))
                    toks = [{"token": head, "logprob": 0.0, "top_logprobs": [{"token": head, "logprob": 0.0}]},
                            {"token": num[0], "logprob": -0.2877,  # p = 0.75
                             "top_logprobs": [{"token": num[0], "logprob": -0.2877},
                                              {"token": alt, "logprob": -1.3863},  # p = 0.25
                                              {"token": "}", "logprob": -9.0}]},
                            {"token": content[len(head) + 1:], "logprob": 0.0, "top_logprobs": []}]
                    choice["logprobs"] = {"content": toks}
                self._send(200, {"id": "x", "object": "chat.completion", "model": req["model"], "choices": [choice],
                                 "usage": {"prompt_tokens": 50, "completion_tokens": 5}})

        Loopback.__init__(self, H)


_EXPECTED_DIALECT = {"vllm": "json_schema", "openai": "json_schema", "llama.cpp": "json_object",
                     "llama-cpp-python": "json_object", "ollama": "json_schema", "tgi": "prompt"}


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_dialect_negotiated_once_recorded_and_in_cache_key(flavour, tmp_path):
    res = _resumes(4)
    want = np.array([(len(t) % 100) + 0.5 for t in res["text"]])
    with DialectServer(flavour) as srv:
        s = _screener("m", srv.url, concurrency=2)
        out_run = score_run(s, res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
        out = out_run.table
        np.testing.assert_allclose(out["score"].to_numpy(), want)  # one decimal kept: X.X
        d = _EXPECTED_DIALECT[flavour]
        assert s.dialect == d and out_run.screener_params["dialect"] == d
        refused = [r for r in s.negotiation if not r["accepted"]]
        assert len(refused) == DIALECTS.index(d)
        if refused:  # the server's own words are kept
            assert FLAVOURS[flavour]["refuse"][0] == refused[0]["status"]
        # probes: one per dialect tried; then one request per résumé, all in the chosen dialect
        n_probe = len(s.negotiation)
        assert len(srv.requests) == n_probe + len(res)
        kinds = {(r.get("response_format") or {}).get("type") for r in srv.requests[n_probe:]}
        assert kinds == {None if d == "prompt" else d}
        if d == "json_object":
            assert srv.requests[-1]["response_format"]["schema"] == SCORE_SCHEMA
        rows = ScoreCache(tmp_path / "c.sqlite").rows()
        assert (rows["params"].map(lambda p: json.loads(p)["dialect"]) == d).all()
        # a run pinned to another dialect has other cache keys: nothing is reused across dialects
        if d != "prompt":
            s2 = _screener("m", srv.url, response_format="prompt")
            out2_run = score_run(s2, res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
            out2 = out2_run.table
            assert out2_run.summary["cached"] == 0 and out2["parse_ok"].all()
            np.testing.assert_allclose(out2["score"].to_numpy(), want)  # parsed from chatter


@pytest.mark.parametrize("flavour", ["vllm", "openai", "ollama"])
def test_wrong_model_name_stops_with_the_servers_message(flavour):
    with DialectServer(flavour) as srv:
        with pytest.raises(FatalHTTPError, match="nosuch") as e:
            score_resumes(_screener("nosuch", srv.url), _resumes(3), cache=False, job_descriptions=JD)
        assert "HTTP 404" in str(e.value)
        assert len(srv.requests) == 1


@pytest.mark.parametrize("flavour", ["vllm", "llama-cpp-python", "ollama"])
def test_expected_scoring_from_logprobs(flavour, tmp_path):
    res = _resumes(3)
    with DialectServer(flavour) as srv:
        s = _screener("m", srv.url, scoring="expected")
        out_run = score_run(s, res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
        out = out_run.table
        assert (out["scoring"] == "expected").all() and out_run.screener_params["scoring"] == "expected"
        body = srv.requests[-1]
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        if not FLAVOURS[flavour]["logprobs"]:
            assert (~out["parse_ok"]).all() and out["raw"].str.contains("no logprobs").all()
            assert out["score"].isna().all()
            return
        greedy = np.array([(len(t) % 100) + 0.5 for t in res["text"]])
        # first digit d at p=.75, d+1 at p=.25 (the "}" alternative is not a number): +2.5 points
        # (or +0.25 for one-digit scores, where the digit is the whole integer part)
        bump = np.where(greedy >= 10, 2.5, 0.25)
        bump = np.where(np.floor(greedy / np.where(greedy >= 10, 10, 1)) == 9, 0.0, bump)
        np.testing.assert_allclose(out["score"].to_numpy(), greedy + bump, atol=1e-3)
        raw = json.loads(out.loc[0, "raw"])
        assert raw["greedy"] == greedy[0] and raw["n_candidates"] == 2
        # the greedy run of the same résumés is cached apart
        g_run = score_run(_screener("m", srv.url), res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
        g = g_run.table
        assert g_run.summary["cached"] == 0 and (g["scoring"] == "greedy").all()
        np.testing.assert_allclose(g["score"].to_numpy(), greedy)


def test_refusal_for_one_resume_is_recorded_and_run_continues(server, tmp_path):
    res = _resumes(5)
    res.loc[2, "text"] = "BAD " + res.loc[2, "text"]
    db = tmp_path / "c.sqlite"
    s = _screener("badsome", server.url, concurrency=1)
    out = score_resumes(s, res, cache=db, job_descriptions=JD)
    assert out["parse_ok"].tolist() == [True, True, False, True, True]
    assert np.isnan(out.loc[2, "score"])
    assert "r02" in out.loc[2, "raw"] and "HTTP 400" in out.loc[2, "raw"] and "context length" in out.loc[2, "raw"]
    n = len(server.requests)
    assert n == 1 + 5  # never retried
    # a rerun serves the recorded failure from the cache …
    again_run = score_run(_screener("badsome", server.url), res, cache=db, job_descriptions=JD)
    again = again_run.table
    assert again_run.summary["cached"] == 5 and len(server.requests) == n + 1  # + the probe
    assert np.isnan(again.loc[2, "score"])
    # … and retries it only when asked
    retried_run = score_run(_screener("badsome", server.url), res, cache=db, job_descriptions=JD, retry_failed=True)
    retried = retried_run.table
    assert retried_run.summary["scored"] == 1 and len(server.requests) == n + 1 + 2


def test_same_refusal_everywhere_stops_early_and_caches_nothing(server, tmp_path):
    db = tmp_path / "c.sqlite"
    s = _screener("maxtok", server.url, max_tokens=32, concurrency=2, fail_fast=3)
    with pytest.raises(FatalHTTPError, match="max_tokens must be at most 8"):
        score_resumes(s, _resumes(40), cache=db, job_descriptions=JD)
    assert len(server.requests) < 1 + 10  # stopped after a handful, not 40
    assert len(ScoreCache(db)) == 0
    out = score_resumes(_screener("maxtok", server.url, max_tokens=8), _resumes(4), cache=db, job_descriptions=JD)
    assert out["parse_ok"].all()


def test_validation_500_is_not_retried_but_a_crash_500_is(server):
    from popresume.screeners.openai_http import is_validation_500, server_message

    assert is_validation_500(json.dumps({"error": {"message": _LLAMA_CPP_PY_500}}))
    assert not is_validation_500('{"error": {"message": "CUDA error: an illegal memory access"}}')
    assert server_message(json.dumps(FLAVOURS["tgi"]["refuse"][1])).startswith("Input validation error")
    assert server_message('{"detail": [{"msg": "field required"}]}') == "field required"
    # the loopback server's flaky500 body ("try later") is a crash-like 500: retried, then fine
    s = _screener("flaky500", server.url)
    out = score_resumes(s, _resumes(2), cache=False, job_descriptions=JD)
    assert out["parse_ok"].all() and s.stats["retries"] == 4


def test_oversized_and_empty_resumes_are_named(server):
    res = _resumes(3)
    res.loc[1, "text"] = "y" * 5000
    out = score_resumes(_screener("ok", server.url, max_prompt_chars=2000), res, cache=False, job_descriptions=JD)
    assert out["parse_ok"].tolist() == [True, False, True]
    assert "r01" in out.loc[1, "raw"] and "max_prompt_chars" in out.loc[1, "raw"]
    assert len(server.requests) == 1 + 2  # the oversized résumé was not sent
    res.loc[1, "text"] = "   "
    with pytest.raises(ValueError, match="r01"):
        score_resumes(_screener("ok", server.url), res, cache=False, job_descriptions=JD)


def test_shared_prefix_comes_first():
    from popresume.screeners.prompt import build_messages, shared_prefix

    jd = JD["nurse"]
    prefix = shared_prefix(jd)
    a = build_messages(jd, "Alice, RN, 10 years")[0]["content"]
    b = build_messages(jd, "Bob, LPN, 2 years")[0]["content"]
    assert a.startswith(prefix) and b.startswith(prefix)
    assert jd in prefix and "Rules:" in prefix  # instructions and posting, then the résumé
    assert a[len(prefix):] == "Alice, RN, 10 years"


# -- the server launcher (popresume serve) without a real binary -------------------------------
def test_server_launcher_resolves_models_and_passes_the_amx_workaround(tmp_path, monkeypatch):
    from popresume.screeners import server as srvmod

    with pytest.raises(ValueError, match="unknown model 'gpt5'.*smollm2"):
        srvmod.resolve_model("gpt5")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        srvmod.resolve_model(tmp_path / "none.gguf")
    monkeypatch.delenv("POPRESUME_LLAMA_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(srvmod.sys, "prefix", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="install-llm-server.sh"):
        srvmod.find_llama_server()
    # a stand-in binary: knows --no-repack, records its arguments, then fails to start
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    fake = tmp_path / "llama-server"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --help ]; then echo '-nr, --no-repack  disable repacking'; "
                    "echo '--poll <0...100>  use polling level'; exit 0; fi\n"
                    f"echo \"$@\" > {tmp_path}/args; echo 'error: failed to load model' >&2; exit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("POPRESUME_LLAMA_SERVER", str(fake))
    with pytest.raises(ValueError, match="poll=101"):
        srvmod.LlamaServer(gguf, poll=101)
    srv = srvmod.LlamaServer(gguf, port=0, threads=2, poll=0, log_path=tmp_path / "log.txt", startup_timeout=20)
    assert srv.binary == fake and srv.port > 0 and srv.alias == "m"
    assert srv.spec == f"openai:m@http://127.0.0.1:{srv.port}/v1"
    with pytest.raises(RuntimeError, match="(?s)exited with code 3.*failed to load model"):
        srv.start()
    args = (tmp_path / "args").read_text().split()
    assert "--no-repack" in args and args[args.index("-m") + 1] == str(gguf) and "127.0.0.1" in args
    assert args[args.index("--poll") + 1] == "0" and args[args.index("-t") + 1] == "2"


def test_reply_cut_at_max_tokens_is_not_a_score(server):
    # '{"score": 10' cut off could be the start of 100 (seen with Gemma-3-270M's whitespace)
    res = _resumes(2)
    res.loc[1, "text"] = "BAD " + res.loc[1, "text"]
    out = score_resumes(_screener("cutoff", server.url, parse_retries=0), res, cache=False, job_descriptions=JD)
    assert out["parse_ok"].tolist() == [True, False] and np.isnan(out.loc[1, "score"])
    assert "r01" in out.loc[1, "raw"] and "cut off at max_tokens=24" in out.loc[1, "raw"]
