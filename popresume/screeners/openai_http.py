"""Any OpenAI-compatible chat-completions server: OpenAI, vLLM, Ollama, llama.cpp's
``llama-server``, llama-cpp-python's server, TGI.

Requests go to ``{base_url}/chat/completions`` with the Appendix D prompt as one user message.

**Dialect negotiation**. Servers differ in how they take a reply schema:

* ``"json_schema"`` – ``response_format={"type": "json_schema", "json_schema": {"schema": …}}``
  (OpenAI, vLLM, current llama.cpp, Ollama ≥ 0.5);
* ``"json_object"`` – ``response_format={"type": "json_object", "schema": …}`` (llama-cpp-python's
  server, which answers a ``json_schema`` request with HTTP 500 "Input should be 'text' or
  'json_object'"; older llama.cpp builds);
* ``"prompt"`` – no ``response_format``: the reply is constrained by the prompt alone and parsed
  (:mod:`.parsing`).

With ``response_format="auto"`` (default) the first request of a run is a one-token probe that
tries these in order; a dialect is dropped only when the server refuses the request with a
client error (4xx, or a 500 whose body is a validation error) *and* the next dialect is
accepted, so a wrong model name is reported as such instead of silently degrading. The outcome
(:attr:`OpenAIScreener.negotiation`) is recorded once per run, and the chosen dialect is part
of :meth:`OpenAIScreener.cache_params`, hence of every cache key and of the ``params`` stored
with every cached score.

**Errors: retry only what can succeed.** 408/409/425/429/502/503/504, a 500 that is not a
validation error, timeouts and dropped connections are retried with exponential backoff
(``backoff · 2^k`` with jitter, capped at ``max_backoff``, honouring ``Retry-After``) at most
``max_retries`` times; if they persist, the résumé is a failure that is *not* cached (a rerun
tries it again). A 400/404/413/422, or a 500 whose body reads as a validation error, is never
retried: the résumé is recorded (and cached) as a failure carrying the server's message, and
the run goes on; a rerun retries recorded failures only when asked
(``score_resumes(..., retry_failed=True)``, ``popresume score --retry-failed``). When the first
``fail_fast`` requests of a run are all refused with the same error (a wrong model name, an
unsupported parameter) the run stops with that message and none of those refusals is cached.
401/403 raise :class:`PermissionError` naming the key's environment variable; an unreachable
server raises :class:`ConnectionError`. ``timeout`` bounds every request as a whole
(connecting, the status line, the headers and the body: :class:`DeadlineBackend`), so a
server that drips any part of its reply byte by byte is cut like a silent one, and each
attempt that times out is logged as a warning naming the server and the attempt (a run is
never stuck, nor silent). A reply longer than ``max_reply_bytes`` is not read: the résumé is
a recorded failure (:class:`ReplyTooLarge`).

The official ``openai`` client was considered for transport and retries and not used: it
retries every 5xx (the llama-cpp-python 500 above would be retried to exhaustion, which is the
defect this module fixes), wraps each reply in pydantic models (client overhead per request)
and hides the raw body that we record. We use ``httpx`` (which ``openai`` itself uses) with the
classification above.

**Scoring.** ``scoring="greedy"`` parses the number in the reply; a reply cut off at
``max_tokens`` (``finish_reason="length"``) that parses only by the lenient fallbacks
(``{"score": 10`` may be the start of 100) is a failure, not a score. ``scoring="expected"``
requests ``logprobs``/``top_logprobs`` and takes the probability-weighted score at the reply's
first number token (:func:`popresume.screeners.parsing.expected_score_from_logprobs`); a server
that returns no log-probabilities gives a clear failure, and one that refuses the parameters
stops the run at negotiation. The scoring mode is in the cache key and in the output.

``extra_body`` adds server-specific request fields (llama.cpp's ``cache_prompt``, vLLM's
sampling extras); they are part of the cache key. ``max_prompt_chars`` bounds a prompt before it
is sent: an oversized résumé is a recorded failure naming it (a server's own context-length
refusal is recorded the same way).

A ``user:password@`` inside the base URL is taken out of it (:func:`split_credentials`) and
sent as HTTP basic auth; the URL that is stored (cache parameters, outputs) or printed has none.
Otherwise the API key is read from the environment variable ``api_key_env`` (default
``OPENAI_API_KEY``) at construction. A request has one ``Authorization`` header, so what the
user wrote wins: with credentials in the URL the environment's key is not read (and a spec
that also names ``api_key_env`` is refused). The key is sent only in that header and never
stored in the cache
key, the cache, the raw replies or log messages: the screener holds them in its own
:class:`~popresume.screeners.secrets.Secrets` (``secrets``), which scrubs every text it
prints, stores or returns, and which the score cache checks each row against.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import random
import re
import threading
import time
import urllib.request
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence
from urllib.parse import unquote, urlparse

import httpcore
import httpx
from PIL import Image

from popresume.errors import StoppedRun
from popresume.screeners.base import BaseScreener, ScoreItem, ScoreResult
from popresume.screeners.parsing import expected_score_from_logprobs, parse_json_reply, parse_score
from popresume.screeners.prompt import SCORE_SCHEMA, build_messages, prompt_hash
from popresume.screeners.secrets import Secrets, basic_auth_forms
from popresume.screeners.specs import DIALECTS, OpenAISpec, spec_for

log = logging.getLogger(__name__)

_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
_KEYED_HOSTS = ("api.openai.com",)
# words by which a 500 body says "your request is invalid" rather than "I crashed"
_VALIDATION_500 = re.compile(
    r"validation|input should be|invalid|not supported|unsupported|must be one of|unrecogni[sz]ed|"
    r"extra[_ ]forbidden|literal_error|value_error|not allowed|unknown (?:field|parameter|argument)|"
    r"exceeds? (?:the )?(?:context|maximum)|context (?:window|length)|too long|"
    r"cannot use both|either .* or .* can be specified",
    re.IGNORECASE)


class FatalHTTPError(StoppedRun):
    """An error that stops the whole run (the same refusal on every request)."""


class RequestRefused(Exception):
    """The server refused a request with a client error; retrying cannot help."""

    def __init__(self, status: int, message: str, url: str):
        self.status, self.message, self.url = status, message, url
        super().__init__(f"HTTP {status} from {url}: {message}")


class ReplyTooLarge(RequestRefused):
    """The reply is longer than ``max_reply_bytes``: it is not read further (nor retried)."""


class TransientFailure(TimeoutError):
    """Transient errors persisted through every retry."""


class _Deadline(threading.local):
    """The deadline (``time.monotonic()`` seconds) of the request this thread is sending."""

    at: float | None = None


class DeadlineBackend:
    """httpcore's synchronous network backend with a deadline for the whole request.

    httpx's ``timeout`` applies to each socket operation: a server that sends its status
    line, headers or body a byte at a time, each within the timeout, holds a request for as
    long as it likes. Every connect, read and write through this backend waits at most until
    the deadline of the request in progress on its thread (:meth:`until`), then raises
    httpcore's timeout, which httpx reports as ``httpx.ReadTimeout`` (or ``ConnectTimeout``,
    ``WriteTimeout``).
    """

    def __init__(self):
        self._backend = httpcore.SyncBackend()
        self._deadline = _Deadline()

    @contextmanager
    def until(self, deadline: float):
        """Requests sent by this thread inside the block end by ``deadline`` (monotonic seconds)."""
        self._deadline.at = deadline
        try:
            yield
        finally:
            self._deadline.at = None

    def cap(self, timeout: float | None, error: type) -> float | None:
        """``timeout`` shortened to what is left of the deadline; ``error`` when nothing is left."""
        if self._deadline.at is None:
            return timeout
        left = self._deadline.at - time.monotonic()
        if left <= 0:
            raise error("the request did not complete by its deadline")
        return left if timeout is None else min(timeout, left)

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._backend.connect_tcp(host, port, self.cap(timeout, httpcore.ConnectTimeout),
                                           local_address=local_address, socket_options=socket_options)
        return _DeadlineStream(stream, self)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        stream = self._backend.connect_unix_socket(path, self.cap(timeout, httpcore.ConnectTimeout),
                                                   socket_options=socket_options)
        return _DeadlineStream(stream, self)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _DeadlineStream:
    """A network stream whose every operation is bounded by its backend's deadline."""

    def __init__(self, stream, backend: DeadlineBackend):
        self._stream, self._backend = stream, backend

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._backend.cap(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._backend.cap(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        tls = self._stream.start_tls(ssl_context, server_hostname, self._backend.cap(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(tls, self._backend)

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


def environment_proxy(url: str) -> str | None:
    """The HTTP(S) proxy the environment names for ``url`` (``HTTP_PROXY``, ``HTTPS_PROXY``,
    ``ALL_PROXY``, less ``NO_PROXY``), as httpx itself would use it; None when there is none."""
    u = urlparse(url)
    if urllib.request.proxy_bypass(u.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(u.scheme) or proxies.get("all") or None


def deadline_transport(backend: DeadlineBackend, limits, proxy: str | None = None):
    """An ``httpx.HTTPTransport`` whose connections go through ``backend``.

    httpx 0.28 takes no network backend, so the transport's connection pool (its
    ``_pool``) is replaced by one built with the same limits, the same HTTP(S) proxy (a
    custom transport turns off httpx's reading of the environment's proxies, so
    :func:`environment_proxy` reads them) and the backend; the rest of the transport
    (request mapping, exception mapping) is httpx's own. A SOCKS proxy keeps httpx's own
    pool: its requests are bounded per read only."""
    transport = httpx.HTTPTransport(limits=limits, proxy=proxy)
    shared = dict(ssl_context=httpx.create_ssl_context(), max_connections=limits.max_connections,
                  max_keepalive_connections=limits.max_keepalive_connections,
                  keepalive_expiry=limits.keepalive_expiry, network_backend=backend)
    if proxy is None:
        transport._pool = httpcore.ConnectionPool(**shared)
        return transport
    via = httpx.Proxy(proxy)
    if via.url.scheme in ("http", "https"):
        transport._pool = httpcore.HTTPProxy(
            proxy_url=httpcore.URL(scheme=via.url.raw_scheme, host=via.url.raw_host, port=via.url.port,
                                   target=via.url.raw_path),
            proxy_auth=via.raw_auth, proxy_headers=via.headers.raw, proxy_ssl_context=via.ssl_context, **shared)
    return transport


def server_message(text: str) -> str:
    """The human-readable error message inside an error body of any of the common shapes:
    OpenAI/llama.cpp/llama-cpp-python/Ollama ``{"error": {"message": …}}``, vLLM
    ``{"object": "error", "message": …}``, TGI ``{"error": "…"}``, FastAPI ``{"detail": …}``;
    read from the body as sent (:meth:`OpenAIScreener.server_message` scrubs it of the
    screener's secrets, for printing and storing)."""
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return text.strip()[:500]
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:500]
        if isinstance(err, str) and err:
            return err[:500]
        if body.get("message"):
            return str(body["message"])[:500]
        if "detail" in body:
            d = body["detail"]
            if isinstance(d, list):
                return "; ".join(str(x.get("msg", x)) if isinstance(x, dict) else str(x) for x in d)[:500]
            return str(d)[:500]
    return text.strip()[:500]


def is_validation_500(text: str) -> bool:
    """Whether a 500 body is a request-validation error (not worth retrying)."""
    return bool(_VALIDATION_500.search(text or ""))


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None, tuple[str, ...]]:
    """``(url without user:password@, (user, password) or None, the secrets they make)``.
    The credentials are sent as HTTP basic auth and become secrets of the screener (as
    written in the URL, decoded, and base64-encoded as a server may echo them); the URL that
    is stored or printed has none."""
    u = urlparse(url)
    if "@" not in u.netloc:
        return url, None, ()
    userinfo, host = u.netloc.rsplit("@", 1)
    user, _, password = userinfo.partition(":")
    user, password = unquote(user), unquote(password)
    secrets = (userinfo, u.password or "", *basic_auth_forms(user, password))
    return u._replace(netloc=host).geturl(), (user, password), secrets


def image_data_url(path: str | os.PathLike) -> str:
    """``data:image/...;base64,...`` of an image file; ValueError if it is not a readable image."""
    p = Path(path)
    data = p.read_bytes()  # OSError if missing
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.verify()
            fmt = (im.format or "PNG").lower()
    except Exception as e:  # PIL raises many types for broken files
        raise ValueError(f"cannot read image {p}: {e}") from e
    mime = {"jpeg": "image/jpeg", "jpg": "image/jpeg", "png": "image/png", "webp": "image/webp",
            "gif": "image/gif"}.get(fmt, f"image/{fmt}")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


class OpenAIScreener(BaseScreener):
    """Scores through an OpenAI-compatible ``/chat/completions`` endpoint."""

    screener_id = "openai"
    needs_profile = False

    def __init__(self, spec: OpenAISpec | None = None, /, **settings):
        """``spec`` (an :class:`~popresume.screeners.specs.OpenAISpec`), or its keys as keyword
        ``settings`` (``OpenAIScreener(model="m", base_url=url)``); defaults come from the spec."""
        self.spec = spec = spec_for(OpenAISpec, spec, settings)
        self.model = spec.model
        base_url, self._auth, url_secrets = split_credentials(spec.base_url)
        self.base_url = base_url.rstrip("/")
        # one Authorization header: the credentials the user wrote into the URL win over the
        # environment's key, which is then not read; naming a key too (api_key_env) is refused
        if self._auth is not None and "api_key_env" in spec.model_fields_set:
            raise ValueError("the base URL carries user:password and api_key_env names an API key as well: "
                             "give one of them (both would be the request's Authorization header)")
        self._key = None if self._auth is not None else (os.environ.get(spec.api_key_env) or None)
        #: this screener's secrets: every text it prints, stores or returns is scrubbed of them
        self.secrets = Secrets.of(self._key, *url_secrets)
        host = urlparse(self.base_url).hostname or ""
        if self._key is None and self._auth is None and host in _KEYED_HOSTS:
            raise PermissionError(f"{host} needs an API key: set the environment variable {spec.api_key_env}")
        self.response_format = "prompt" if spec.response_format is None else spec.response_format
        self.extra_body = dict(spec.extra_body or {})  # server-specific fields (vLLM, llama.cpp), e.g. cache_prompt
        # "logprobs": the client can request them; whether this server returns them is checked
        # when a run with scoring="expected" negotiates
        self.capabilities = frozenset({"text", "json", "logprobs"})
        self.supports_images = spec.supports_images
        self.prompt_hash = prompt_hash(spec.template)
        self._client = None
        self._deadline = DeadlineBackend()
        self._lock = threading.Lock()
        self._dialect: str | None = None
        self.negotiation: list[dict] = []
        self._stats = {"requests": 0, "retries": 0, "http_seconds": 0.0, "prompt_tokens": 0,
                      "server_prompt_ms": 0.0, "server_prompt_tokens": 0, "server_predicted_ms": 0.0}

    @property
    def stats(self) -> dict:
        """Request counters: requests, retries, http_seconds, prompt_tokens and llama.cpp's
        server timings (server_prompt_ms, server_prompt_tokens, server_predicted_ms)."""
        with self._lock:
            return dict(self._stats)

    def public_spec(self) -> dict:
        """The spec as given, with the base URL's credentials shown as ``***@``."""
        out = super().public_spec()
        if "base_url" in out:
            out["base_url"] = self.scrub(out["base_url"])
        return out

    def scrub(self, text: str | None) -> str | None:
        """``text`` without this screener's secrets (key, URL credentials) or any URL's password."""
        return self.secrets.scrub(text)

    def server_message(self, text: str) -> str:
        """:func:`server_message` of an error body, scrubbed (it is printed and stored)."""
        return self.scrub(server_message(text)) or ""

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIScreener(model={self.model!r}, base_url={self.base_url!r}, key_env={self.spec.api_key_env!r})"

    # -- identity -----------------------------------------------------------------------------
    @property
    def dialect(self) -> str:
        """The reply-format dialect of this run (negotiated on first use)."""
        return self.negotiate()

    def cache_params(self) -> dict:
        """Decoding, dialect and scoring mode: everything that can move a score (never the key).
        Negotiates the dialect with the server on first call."""
        p = {"base_url": self.base_url, "temperature": self.spec.temperature, "max_tokens": self.spec.max_tokens,
             "seed": self.spec.seed, "dialect": self.negotiate(), "schema": SCORE_SCHEMA, "scoring": self.spec.scoring,
             "parse_retries": self.spec.parse_retries}
        if self.spec.scoring == "expected":
            p["top_logprobs"] = self.spec.top_logprobs
        if self.extra_body:
            p["extra_body"] = self.extra_body
        return p

    # -- HTTP ---------------------------------------------------------------------------------
    @property
    def client(self):
        with self._lock:
            if self._client is None:
                n = self.spec.concurrency
                limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
                self._client = httpx.Client(timeout=self.spec.timeout,
                                            transport=deadline_transport(self._deadline, limits,
                                                                         environment_proxy(self.base_url)))
            return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _headers(self) -> dict:
        h = {"Content-Type": "application/json"}
        if self._key:
            h["Authorization"] = f"Bearer {self._key}"
        return h

    def _sleep(self, attempt: int, retry_after: str | None = None) -> None:
        delay = min(self.spec.max_backoff, self.spec.backoff * (2 ** attempt)) * (0.5 + random.random() / 2)
        if retry_after:
            try:
                delay = min(self.spec.max_backoff, max(delay, float(retry_after)))
            except ValueError:
                pass
        time.sleep(delay)

    def _count(self, body: dict, seconds: float) -> None:
        with self._lock:
            self._stats["http_seconds"] += seconds
            usage = body.get("usage") if isinstance(body, dict) else None
            if isinstance(usage, dict):
                self._stats["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
            t = body.get("timings") if isinstance(body, dict) else None  # llama.cpp's server
            if isinstance(t, dict):
                self._stats["server_prompt_ms"] += float(t.get("prompt_ms") or 0.0)
                self._stats["server_prompt_tokens"] += int(t.get("prompt_n") or 0)
                self._stats["server_predicted_ms"] += float(t.get("predicted_ms") or 0.0)

    def _send(self, url: str, payload: dict):
        """POST and read the whole reply within ``timeout`` seconds: ``(response, body text)``.

        The deadline covers the whole request (connecting, the status line, the headers and
        the body: :class:`DeadlineBackend`), so a server that drips any part of its reply a
        byte at a time is cut like one that sends nothing. A reply longer than
        ``max_reply_bytes`` (by its Content-Length, or as it is read) raises
        :class:`ReplyTooLarge` without reading the rest."""
        with self._deadline.until(time.monotonic() + self.spec.timeout), \
                self.client.stream("POST", url, json=payload, headers=self._headers(), auth=self._auth) as r:
            declared = r.headers.get("content-length", "")
            too_large = (f"the reply is over max_reply_bytes={self.spec.max_reply_bytes:,} bytes "
                         f"(HTTP {r.status_code}); it was not read")
            if declared.isdigit() and int(declared) > self.spec.max_reply_bytes:
                raise ReplyTooLarge(r.status_code, too_large + f" (Content-Length {int(declared):,})", url)
            parts, size = [], 0
            for chunk in r.iter_bytes():
                size += len(chunk)
                if size > self.spec.max_reply_bytes:
                    raise ReplyTooLarge(r.status_code, too_large + " to its end", url)
                parts.append(chunk)
            data = b"".join(parts)
        # the body as sent: it is parsed as is (a secret that happens to occur in a reply must not
        # corrupt it); what is printed or stored is scrubbed where it is printed or stored
        return r, data.decode(r.encoding or "utf-8", errors="replace")

    def post(self, payload: dict) -> dict:
        """POST ``payload`` to ``/chat/completions``; the decoded JSON body, or raises
        :class:`RequestRefused` (not retried), :class:`TransientFailure` (retries exhausted),
        :class:`ConnectionError` (never reached the server) or :class:`PermissionError`."""
        url = f"{self.base_url}/chat/completions"
        last = ""
        connect_failures = 0
        for attempt in range(self.spec.max_retries + 1):
            with self._lock:
                self._stats["requests"] += 1
                self._stats["retries"] += bool(attempt)
            retry_after = None
            t0 = time.perf_counter()
            try:
                r, text = self._send(url, payload)
            except httpx.ConnectError as e:
                connect_failures += 1
                last = f"cannot connect: {e}"
            except httpx.TimeoutException as e:
                last = f"{type(e).__name__}: {e or 'no detail'} (timeout {self.spec.timeout:g} s)"
                # a silent server: say what the run is waiting for (the URL holds no password)
                log.warning("no complete reply from %s (model %r) within the timeout of %g s: attempt %d of %d%s",
                            url, self.model, self.spec.timeout, attempt + 1, self.spec.max_retries + 1,
                            "; trying again" if attempt < self.spec.max_retries else "; giving up on this request")
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
                last = f"{type(e).__name__}: {e or 'no detail'} (timeout {self.spec.timeout:g} s)"
            else:
                if r.status_code == 200:
                    try:
                        body = json.loads(text)
                    except (json.JSONDecodeError, ValueError):
                        last = f"HTTP 200 with a non-JSON body: {self.scrub(text)[:200]!r}"
                    else:
                        if isinstance(body, dict) and (body.get("object") == "error" or
                                                       ("error" in body and "choices" not in body)):
                            # some proxies answer 200 with an error body (vLLM behind RunPod)
                            raise RequestRefused(200, self.server_message(text), url)
                        self._count(body, time.perf_counter() - t0)
                        return body
                elif r.status_code in (401, 403):
                    env = self.spec.api_key_env
                    hint = ("no API key was sent: set the environment variable " + env) if not self._key \
                        else f"the key in {env} was rejected"
                    raise PermissionError(f"HTTP {r.status_code} from {url}: {hint}; server said: "
                                          f"{self.server_message(text)}")
                elif r.status_code == 500 and is_validation_500(text):
                    raise RequestRefused(500, self.server_message(text), url)
                elif r.status_code in _TRANSIENT_STATUS:
                    last = f"HTTP {r.status_code}: {self.server_message(text)[:200]}"
                    retry_after = r.headers.get("retry-after")
                else:
                    raise RequestRefused(r.status_code, self.server_message(text), url)
            log.info("retrying after %s", last)
            if attempt < self.spec.max_retries:
                self._sleep(attempt, retry_after)
        if connect_failures == self.spec.max_retries + 1:
            raise ConnectionError(f"server unreachable at {self.base_url} after {connect_failures} attempts: {last}")
        raise TransientFailure(f"no valid reply from {url} after {self.spec.max_retries + 1} attempts; "
                               f"last error: {last}")

    # -- dialect ------------------------------------------------------------------------------
    def _response_format(self, dialect: str, schema: dict | None) -> dict | None:
        if schema is None or dialect == "prompt":
            return None
        if dialect == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": True}}
        return {"type": "json_object", "schema": schema}

    def payload(self, messages: list[dict], schema: dict | None, *, dialect: str | None = None,
                max_tokens: int | None = None, logprobs: bool | None = None) -> dict:
        """The request body for ``messages`` in ``dialect`` (default: the negotiated one)."""
        p: dict[str, Any] = {**self.extra_body, "model": self.model, "messages": messages,
                             "temperature": self.spec.temperature,
                             "max_tokens": self.spec.max_tokens if max_tokens is None else max_tokens}
        if self.spec.seed is not None:
            p["seed"] = self.spec.seed
        rf = self._response_format(dialect or self.negotiate(), schema)
        if rf is not None:
            p["response_format"] = rf
        if self.spec.scoring == "expected" if logprobs is None else logprobs:
            p["logprobs"] = True
            p["top_logprobs"] = self.spec.top_logprobs
        return p

    def negotiate(self) -> str:
        """Find the first dialect the server accepts (once per run; see the module docstring).

        Raises :class:`FatalHTTPError` when the server refuses even the plain request (the
        refusal is then about something else: the model name, a parameter)."""
        with self._lock:
            if self._dialect is not None:
                return self._dialect
        order = DIALECTS if self.response_format == "auto" else (self.response_format,)
        probe = [{"role": "user", "content": 'Reply with the JSON object {"score": 50.0} and nothing else.'}]
        record: list[dict] = []
        chosen = None
        for d in order:
            try:
                self.post(self.payload(probe, SCORE_SCHEMA, dialect=d, max_tokens=1))
            except RequestRefused as e:
                record.append({"dialect": d, "accepted": False, "status": e.status, "message": e.message})
                if e.status in (404,) or d == order[-1]:
                    break  # a missing model is not a dialect problem
                continue
            record.append({"dialect": d, "accepted": True})
            chosen = d
            break
        if chosen is None:
            last = record[-1]
            tried = ", ".join(f"{r['dialect']} (HTTP {r['status']})" for r in record)
            raise FatalHTTPError(f"{self.base_url} refused model {self.model!r}: HTTP {last['status']}: "
                                 f"{last['message']} [tried {tried}]")
        if self.spec.scoring == "expected":
            # the same probe with log-probabilities: refused means the server cannot do expected scoring
            try:
                self.post(self.payload(probe, SCORE_SCHEMA, dialect=chosen, max_tokens=1, logprobs=True))
            except RequestRefused as e:
                raise FatalHTTPError(f"{self.base_url} refuses logprobs/top_logprobs (HTTP {e.status}: {e.message}); "
                                     f"scoring='expected' needs them, use scoring='greedy'") from None
        with self._lock:
            if self._dialect is None:
                self._dialect = chosen
                self.negotiation = record
                if len(record) > 1:
                    log.warning("%s: %s", self.base_url, "; ".join(
                        f"{r['dialect']} refused (HTTP {r['status']}: {r['message'][:120]})"
                        for r in record if not r["accepted"]) + f"; using {chosen}")
            return self._dialect

    # -- messages -----------------------------------------------------------------------------
    @staticmethod
    def _with_images(messages: list[dict], images: Sequence[str | os.PathLike] | None) -> list[dict]:
        if not images:
            return messages
        msgs = [dict(m) for m in messages]
        last = msgs[-1]
        content = last["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        for img in images:
            parts.append({"type": "image_url", "image_url": {"url": image_data_url(img)}})
        last["content"] = parts
        return msgs

    @staticmethod
    def _content(body: dict) -> str:
        try:
            c = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return json.dumps(body)[:2000]
        if isinstance(c, list):  # some servers return content parts
            c = "".join(p.get("text", "") for p in c if isinstance(p, dict))
        return c if isinstance(c, str) else json.dumps(c)

    @staticmethod
    def _cut_off(body: dict) -> bool:
        try:
            return body["choices"][0].get("finish_reason") == "length"
        except (KeyError, IndexError, TypeError, AttributeError):
            return False

    @staticmethod
    def _logprobs(body: dict) -> list | None:
        try:
            lp = body["choices"][0].get("logprobs")
        except (KeyError, IndexError, TypeError, AttributeError):
            return None
        if isinstance(lp, dict) and isinstance(lp.get("content"), list):
            return lp["content"]
        return None

    def complete_json(self, messages: list[dict], schema: dict | None = None,
                      images: Sequence[str | os.PathLike] | None = None) -> tuple[dict | None, str]:
        """Send chat ``messages`` (plus ``images`` as base64 image parts on the last message) and
        return ``(parsed JSON object or None, raw reply text)``. Transport errors raise."""
        msgs = self._with_images(messages, images)
        body = self.post(self.payload(msgs, schema, logprobs=False))
        content = self._content(body) or ""
        obj = parse_json_reply(content)  # parsed as sent, stored scrubbed
        return (obj if isinstance(obj, dict) else None), self.scrub(content) or ""

    # -- protocol -----------------------------------------------------------------------------
    def score_one(self, item: ScoreItem) -> ScoreResult:
        use_image = item.image_path is not None and item.format != "text"
        rid = item.resume_id
        if use_image and not self.supports_images:
            raise ValueError(f"model {self.model!r} is configured without image support (résumé {rid!r})")
        msgs = build_messages(item.job_description, None if use_image else item.text, template=self.spec.template)
        if not use_image:
            n = len(msgs[0]["content"])
            if n > self.spec.max_prompt_chars:
                return ScoreResult.failure(f"error: résumé {rid!r}: prompt is {n} characters, over max_prompt_chars="
                                           f"{self.spec.max_prompt_chars}; not sent", "oversized résumé")
        else:
            try:
                msgs = self._with_images(msgs, [item.image_path])
            except (OSError, ValueError) as e:
                return ScoreResult.failure(f"error: résumé {rid!r}: {e}", "unreadable image", cacheable=False)
        raw = ""
        payload = self.payload(msgs, SCORE_SCHEMA)
        for attempt in range(1, self.spec.parse_retries + 2):
            try:
                body = self.post(payload)
            except RequestRefused as e:  # deterministic: recorded (and cached) with the server's words
                return ScoreResult.failure(f"error: résumé {rid!r}: HTTP {e.status}: {e.message}",
                                           f"refused:{e.status}:{e.message}", attempts=attempt)
            except TransientFailure as e:  # not a property of the résumé: recorded, not cached
                return ScoreResult.failure(f"error: résumé {rid!r}: {self.scrub(str(e))}", "transport",
                                           attempts=attempt, cacheable=False)
            content = self._content(body) or ""
            raw = self.scrub(content) or ""  # what is stored and printed
            if self.spec.scoring == "expected":
                lp = self._logprobs(body)
                if lp is None:
                    return ScoreResult.failure(f"error: résumé {rid!r}: the server returned no logprobs; reply "
                                               f"{raw[:200]!r}", "no logprobs", attempts=attempt)
                ev = expected_score_from_logprobs(lp)
                if ev is not None:
                    return ScoreResult(ev["expected"], True, json.dumps({"reply": raw, **ev}), attempts=attempt)
                continue
            parsed = parse_score(content)
            if parsed.ok and parsed.method in ("key_value", "bare_number") and self._cut_off(body):
                # '{"score": 10' cut at max_tokens may be the start of 100: not a score
                return ScoreResult.failure(f"error: résumé {rid!r}: reply cut off at max_tokens="
                                           f"{self.spec.max_tokens} before it was complete: {raw[:200]!r}", "cut off",
                                           attempts=attempt)
            if parsed.ok:
                return ScoreResult(parsed.score, True, raw, attempts=attempt)
        return ScoreResult.failure(raw, "unparseable reply", attempts=self.spec.parse_retries + 1)

    def score_iter(self, items: Sequence[ScoreItem]) -> Iterator[tuple[int, ScoreResult]]:
        """Score concurrently; yields ``(index, result)`` as each finishes.

        Refusals are held back until the first success: if the first ``fail_fast`` results
        are all the same refusal, :class:`FatalHTTPError` stops the run and none of them is
        yielded (so none is cached); otherwise they are yielded like any other result."""
        if not items:
            return
        self.negotiate()
        held: list[tuple[int, ScoreResult]] = []
        succeeded = False
        ex = ThreadPoolExecutor(max_workers=self.spec.concurrency, thread_name_prefix="popresume-http")
        it = iter(enumerate(items))
        pending: dict = {}

        def submit(n: int) -> None:
            for _ in range(n):
                nxt = next(it, None)
                if nxt is None:
                    return
                pending[ex.submit(self.score_one, nxt[1])] = nxt[0]

        try:
            submit(self.spec.concurrency * 2)  # bounded queue: a fatal stop leaves little queued work
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    i = pending.pop(f)
                    res = f.result()
                    refused = (not res.parse_ok) and (res.error or "").startswith("refused:")
                    if succeeded or not refused:
                        if not refused:
                            succeeded = True
                        for h in held:
                            yield h
                        held.clear()
                        yield i, res
                    else:
                        held.append((i, res))
                        if len(held) >= self.spec.fail_fast and len({h[1].error for h in held}) == 1:
                            _, status, msg = held[0][1].error.split(":", 2)
                            raise FatalHTTPError(
                                f"stopped: the first {len(held)} requests to {self.base_url} (model {self.model!r}) "
                                f"were all refused with HTTP {status}: {msg}")
                submit(len(done))
            for h in held:
                yield h
        finally:
            for f in pending:
                f.cancel()
            ex.shutdown(wait=True, cancel_futures=True)
