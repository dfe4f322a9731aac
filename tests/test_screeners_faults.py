"""Bad input and faulty servers at the screener layer: prompt templates that lose the résumé,
control characters, a server that drips its headers, an oversized reply, a silent server,
credentials in messages and stored replies, non-finite timeouts, a validity gate where every
reply fails, and a judge that cannot judge. Every server is a loopback stub with bounded work."""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
import time

import pandas as pd
import pytest

from _loopback import Loopback, QuietHandler  # tests/_loopback.py

from popresume.screeners import get_screener, score_resumes, score_run
from popresume.screeners.base import BaseScreener, ScoreResult
from popresume.screeners import specs as screener_specs

JD = {"nurse": "Registered nurse wanted."}
NOWHERE = "http://127.0.0.1:9/v1"  # never contacted: the spec is refused first


def _reply(content: str) -> str:
    return json.dumps({"choices": [{"message": {"content": content}, "finish_reason": "stop"}]})


def _resumes(texts):
    return pd.DataFrame({"resume_id": [f"r{i}" for i in range(len(texts))], "occupation": "nurse", "text": texts})


class Stub(Loopback):
    """``reply(handler, request_json, prompt_text)`` decides each answer; the one-token
    dialect probe (no "RESUME: " in the prompt) is answered with a score. Records every
    request's headers and prompt."""

    def __init__(self, reply, probe_ok=True):
        self.prompts, self.headers = [], []
        self.lock = threading.Lock()
        outer = self

        class H(QuietHandler):
            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                content = req["messages"][-1]["content"]
                text = content if isinstance(content, str) else content[0]["text"]
                with outer.lock:
                    outer.prompts.append(text)
                    outer.headers.append(dict(self.headers))
                if probe_ok and "RESUME: " not in text and "perceived_group" not in json.dumps(req):
                    return self.send_json(200, _reply(json.dumps({"score": 50})))
                reply(self, req, text)

        super().__init__(H)


# ------------------------------------------------------------------------- 1: templates
@pytest.mark.parametrize("template, message", [
    ("Score this job: {job_text}", "no {resume_text} placeholder"),
    ("", "no {resume_text} placeholder"),
    ("{foo} {resume_text}", "unknown placeholder {foo}"),
    ("{0} {resume_text}", "positional placeholder {0}"),
    ("{resume_text} {", "not a valid format string"),
])
def test_a_template_that_cannot_carry_the_resume_is_refused(template, message):
    for spec in ({"kind": "openai", "model": "m", "base_url": NOWHERE}, {"kind": "hf"}):
        with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")) as e:
            screener_specs.build_spec({**spec, "template": template})
        assert "\n" not in str(e.value)


def test_score_refuses_a_template_without_the_resume(cli, tmp_path):
    _resumes(["Nurse résumé"]).to_parquet(tmp_path / "r.parquet")
    for template in ("Score this job: {job_text}", "{foo} {resume_text}", "{0}"):
        r = cli("score", "--resumes", tmp_path / "r.parquet", "--screener", f"openai:m@{NOWHERE}",
                "-o", f"template={template}", "--no-cache", "--quiet", "--out", tmp_path / "s.parquet")
        assert r.exit_code != 0 and "placeholder" in r.output and "Traceback" not in r.output, r.output
        assert not isinstance(r.exception, (KeyError, IndexError))
    assert not (tmp_path / "s.parquet").exists()


# ------------------------------------------------------------------------- 2: control characters
class Recorder(BaseScreener):
    """Scores 50 and keeps what would have reached a prompt."""

    screener_id = "recorder"
    model = "rec"

    def __init__(self):
        self.seen = []

    def score_one(self, item):
        self.seen.append((item.job_description, item.text))
        return ScoreResult(50.0, True, "50")


CONTROLS = "\x00\x1b\x07\x08\u202e\u200b"


def test_control_and_invisible_characters_never_reach_the_prompt():
    rec = Recorder()
    text = f"Ann{CONTROLS} Lee\nRegistered\u200b nurse\x1b[31m"
    score_resumes(rec, _resumes([text]), cache=False, job_descriptions={"nurse": f"Nurse{CONTROLS} wanted"})
    (job, seen), = rec.seen
    assert job == "Nurse wanted" and seen == "Ann Lee\nRegistered nurse[31m"


def test_a_resume_of_control_characters_only_is_empty():
    with pytest.raises(ValueError, match="r0.*empty text"):
        score_resumes(Recorder(), _resumes(["\x00\x01\x02\x03"]), cache=False, job_descriptions=JD)
    with pytest.raises(ValueError, match="r1.*empty text"):
        score_resumes(Recorder(), _resumes(["ok", "\u200b\u202e \t"]), cache=False, job_descriptions=JD)


# ------------------------------------------------------------------------- 6: header drip
class HeaderDrip(Loopback):
    """Answers the dialect probe at once; to a résumé, sends its status line and headers one
    byte every ``gap`` seconds (about 30 s in all) and then a valid reply."""

    def __init__(self, gap=0.3):
        class H(QuietHandler):
            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if "RESUME: " not in req["messages"][-1]["content"]:
                    return self.send_json(200, _reply(json.dumps({"score": 50})))
                body = _reply(json.dumps({"score": 42})).encode()
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: {'x' * 60}\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode()
                try:
                    for b in head:
                        self.wfile.write(bytes([b]))
                        self.wfile.flush()
                        time.sleep(gap)
                    self.wfile.write(body)
                except OSError:  # the client gave up: what this test wants
                    self.close_connection = True

        super().__init__(H)


def test_the_timeout_covers_the_status_line_and_the_headers():
    """A server that drips its headers a byte at a time, each byte within the per-read
    timeout, used to hold every attempt for the whole drip (~30 s here, 72 s at timeout=5)."""
    with HeaderDrip() as srv:
        scr = get_screener({"kind": "openai", "model": "m", "base_url": srv.url, "timeout": 1.0, "max_retries": 1,
                            "backoff": 0.0})
        t0 = time.monotonic()
        out = score_resumes(scr, _resumes(["Nurse résumé"]), cache=False, job_descriptions=JD)
        elapsed = time.monotonic() - t0
    assert not out["parse_ok"].iloc[0] and "timeout 1 s" in out["raw"].iloc[0]
    assert elapsed < 12.0, elapsed  # 2 attempts of 1 s and slack for a busy machine; the drip alone is 30 s


# ------------------------------------------------------------------------- 7: reply size
def _big(declare_length: bool):
    def reply(h, req, text):
        chunk = b" " * 65536
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        if declare_length:
            h.send_header("Content-Length", str(len(chunk) * 64))
        else:
            h.send_header("Connection", "close")
            h.close_connection = True
        h.end_headers()
        try:
            for _ in range(64):  # 4 MiB at most: bounded
                h.wfile.write(chunk)
        except OSError:
            pass
    return reply


@pytest.mark.parametrize("declare_length", [True, False])
def test_an_oversized_reply_is_not_read_into_memory(declare_length):
    with Stub(_big(declare_length)) as srv:
        scr = get_screener({"kind": "openai", "model": "m", "base_url": srv.url, "max_reply_bytes": 100_000,
                            "max_retries": 0, "timeout": 10.0})
        out = score_resumes(scr, _resumes(["Nurse résumé"]), cache=False, job_descriptions=JD)
    raw = out["raw"].iloc[0]
    assert not out["parse_ok"].iloc[0] and "max_reply_bytes=100,000" in raw and "\n" not in raw
    with pytest.raises(ValueError, match="max_reply_bytes"):
        screener_specs.build_spec({"kind": "openai", "model": "m", "max_reply_bytes": 10})


# ------------------------------------------------------------------------- 9: a silent server
def test_a_silent_server_is_named_with_each_attempt(caplog):
    stop = threading.Event()

    def silent(h, req, text):
        stop.wait(5.0)  # bounded: the test ends it

    with Stub(silent) as srv:
        url = srv.url.replace("http://", "http://alice:S3cret-pw@")
        scr = get_screener({"kind": "openai", "model": "m", "base_url": url, "timeout": 0.5, "max_retries": 1,
                            "backoff": 0.0})
        with caplog.at_level(logging.WARNING, logger="popresume.screeners.openai_http"):
            out = score_resumes(scr, _resumes(["Nurse résumé"]), cache=False, job_descriptions=JD)
        stop.set()
    lines = [r.getMessage() for r in caplog.records]
    assert any("attempt 1 of 2" in m and srv.url in m for m in lines), lines
    assert any("attempt 2 of 2" in m and "giving up" in m for m in lines), lines
    assert not any("S3cret" in m for m in lines) and not out["parse_ok"].any()


# ------------------------------------------------------------------------- 10-12: credentials
def test_a_url_password_is_never_in_an_error_message(cli, tmp_path):
    url = "http://alice:S3cret-pw@127.0.0.1:9/v1"
    for bad in ({"timout": 1}, {"timeout": "x"}, {"base_url": url.replace("http", "ftp")}):
        with pytest.raises(ValueError) as e:
            get_screener({"kind": "openai", "model": "m", "base_url": url, **bad})
        assert "S3cret" not in str(e.value) and "127.0.0.1" in str(e.value), e.value
    _resumes(["Nurse résumé"]).to_parquet(tmp_path / "r.parquet")
    r = cli("score", "--resumes", tmp_path / "r.parquet", "--screener", f"openai:m@{url}", "-o", "timout=1",
            "--no-cache", "--quiet", "--out", tmp_path / "s.parquet")
    assert r.exit_code != 0 and "timout" in r.output and "S3cret" not in r.output, r.output
    r = cli("score", "--resumes", tmp_path / "r.parquet", "--screener", '{"kind": "openai", "base_url": "' + url + '"',
            "--no-cache", "--quiet", "--out", tmp_path / "s.parquet")
    assert r.exit_code != 0 and "JSON" in r.output and "S3cret" not in r.output, r.output


def test_the_public_spec_has_no_password():
    scr = get_screener({"kind": "openai", "model": "m", "base_url": "http://alice:S3cret-pw@127.0.0.1:9/v1",
                        "timeout": 5.0})
    assert scr.public_spec() == {"kind": "openai", "model": "m", "base_url": "http://***@127.0.0.1:9/v1",
                                 "timeout": 5.0}


def test_echoed_basic_auth_is_scrubbed_before_it_is_stored(tmp_path):
    """A server that echoes the request's Authorization header (base64 of user:password)
    into every reply: the cache rows and the score table hold neither form."""

    def echo(h, req, text):
        h.send_json(200, _reply(json.dumps({"score": 61}) + " auth=" + h.headers.get("Authorization", "")))

    secret = "S3cret-pw"
    encoded = base64.b64encode(f"alice:{secret}".encode()).decode()
    with Stub(echo) as srv:
        scr = get_screener({"kind": "openai", "model": "m", "base_url": srv.url.replace("http://", f"http://alice:{secret}@"),
                            "max_retries": 0, "response_format": "prompt"})
        run = score_run(scr, _resumes(["Nurse résumé"]), cache=tmp_path / "c.sqlite", job_descriptions=JD)
        sent = srv.headers[-1]["Authorization"]
    assert sent == f"Basic {encoded}"  # the credentials were used
    assert run.table["parse_ok"].all() and run.table["score"].iloc[0] == 61.0
    stored = run.table.to_json() + "".join(p.read_bytes().decode("latin-1") for p in tmp_path.iterdir())
    assert encoded not in stored and secret not in stored and "auth=Basic ***" in run.table["raw"].iloc[0]


def test_url_credentials_win_over_the_environment_key(monkeypatch):
    """One Authorization header: what the user wrote in the URL is sent, the environment's
    key is not read; naming a key as well is refused."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-123456")
    with Stub(lambda h, req, text: h.send_json(200, _reply(json.dumps({"score": 70})))) as srv:
        url = srv.url.replace("http://", "http://bob:pw-9876@")
        scr = get_screener({"kind": "openai", "model": "m", "base_url": url, "max_retries": 0})
        score_resumes(scr, _resumes(["Nurse résumé"]), cache=False, job_descriptions=JD)
        sent = {h["Authorization"] for h in srv.headers}
        assert sent == {"Basic " + base64.b64encode(b"bob:pw-9876").decode()}
        plain = get_screener({"kind": "openai", "model": "m", "base_url": srv.url, "max_retries": 0})
        score_resumes(plain, _resumes(["Nurse résumé 2"]), cache=False, job_descriptions=JD)
        assert srv.headers[-1]["Authorization"] == "Bearer sk-env-key-123456"  # no URL credentials: the key
    with pytest.raises(ValueError, match="give one of them"):
        get_screener({"kind": "openai", "model": "m", "base_url": url, "api_key_env": "OPENAI_API_KEY"})


# ------------------------------------------------------------------------- 15: non-finite numbers
@pytest.mark.parametrize("option", ["timeout=Infinity", "timeout=NaN", "backoff=-Infinity", "temperature=1e999"])
def test_a_non_finite_number_is_a_one_line_error(cli, tmp_path, option):
    _resumes(["Nurse résumé"]).to_parquet(tmp_path / "r.parquet")
    r = cli("score", "--resumes", tmp_path / "r.parquet", "--screener", f"openai:m@{NOWHERE}", "-o", option,
            "--no-cache", "--quiet", "--out", tmp_path / "s.parquet")
    assert r.exit_code != 0 and option.split("=")[0] in r.output and "Traceback" not in r.output, r.output
    assert not isinstance(r.exception, OverflowError)


def test_a_json_spec_with_an_infinite_timeout_is_refused():
    spec = '{"kind": "openai", "model": "m", "base_url": "' + NOWHERE + '", "timeout": 1e999}'
    with pytest.raises(ValueError, match="timeout: .*finite"):
        get_screener(spec)


# ------------------------------------------------------------------------- 16: validate
def test_validate_fails_when_every_reply_fails(cli, tmp_path):
    with Stub(lambda h, req, text: h.send_json(200, _reply("I would rather not say."))) as srv:
        spec = json.dumps({"kind": "openai", "model": "m", "base_url": srv.url, "max_retries": 0,
                           "parse_retries": 0, "response_format": "prompt"})
        r = cli("validate", "--screener", spec, "--n", 5, "--no-cache", "--quiet", "--out", tmp_path / "card.json")
    assert r.exit_code == 1, r.output
    assert "parse rate 0%" in r.output and "Traceback" not in r.output
    assert (tmp_path / "card.json").exists()  # the card is kept to read


# ------------------------------------------------------------------------- 20: a judge that cannot judge
def test_a_server_that_cannot_judge_is_refused_before_any_work(corpus):
    from popresume.leakage.tasks import check_judge

    variants, baselines = corpus
    with Stub(lambda h, req, text: h.send_json(200, _reply(json.dumps({"score": 50}))), probe_ok=False) as srv:
        scr = get_screener({"kind": "openai", "model": "m", "base_url": srv.url, "max_retries": 0,
                            "parse_retries": 0, "response_format": "prompt"})
        with pytest.raises(ValueError, match="cannot answer the leakage tasks.*Task 1"):
            check_judge(scr, variants, baselines)
        assert len(srv.prompts) <= 2  # the dialect probe and one Task 1 item
    with pytest.raises(ValueError, match="can run none of the leakage tasks"):
        check_judge(get_screener("synthetic"), variants, baselines)


def test_an_environment_proxy_is_still_used_and_still_bounded(monkeypatch):
    """The whole-request deadline needs its own transport, which turns off httpx's reading of
    HTTP_PROXY; the screener reads it itself. The stub plays the proxy: it receives the request
    for an unresolvable host, answers it, and then drips its headers like HeaderDrip."""
    with HeaderDrip() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        scr = get_screener({"kind": "openai", "model": "m", "base_url": "http://screener.invalid/v1", "timeout": 1.0,
                            "max_retries": 0})
        t0 = time.monotonic()
        out = score_resumes(scr, _resumes(["Nurse résumé"]), cache=False, job_descriptions=JD)
        elapsed = time.monotonic() - t0
    assert scr.dialect == "json_schema"  # the probe went through the proxy and was answered
    assert not out["parse_ok"].iloc[0] and "timeout 1 s" in out["raw"].iloc[0] and elapsed < 8.0, elapsed
