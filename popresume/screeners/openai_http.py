"""Any OpenAI-compatible chat-completions server: OpenAI, vLLM, Ollama, llama.cpp's server.

* ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) and ``model`` are parameters; requests go
  to ``{base_url}/chat/completions`` with the Appendix D prompt as one user message and
  ``response_format = {"type": "json_schema", ...}`` holding ``{"score": integer 0..100}``
  (``response_format="json_object"`` or ``None`` for servers without schema support).
* The API key is read from the environment variable ``api_key_env`` (default
  ``OPENAI_API_KEY``) at construction; it is sent only as the ``Authorization`` header and
  never stored in the cache key, the cache, the raw replies or log messages
  (:func:`popresume.screeners.cache.register_secret`).
* Bounded concurrency (``concurrency`` worker threads sharing one ``httpx.Client`` pool).
* Retries with exponential backoff (``backoff · 2^k``, capped at ``max_backoff``, honouring
  ``Retry-After``) on 429, 5xx, timeouts, dropped connections and non-JSON bodies, at most
  ``max_retries`` times; a reply whose content does not parse is re-asked at most
  ``parse_retries`` times, then recorded as missing with its raw text.
* Clear errors: an unreachable server raises :class:`ConnectionError`; a 404 raises
  :class:`ValueError` quoting the server's body (usually "model not found"); a 401/403 or a
  missing key for api.openai.com raises :class:`PermissionError` naming the variable.
  A résumé whose image cannot be read is a recorded failure, not cached.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Iterator, Sequence
from urllib.parse import urlparse

from popresume.screeners.base import BaseScreener, ScoreItem, ScoreResult
from popresume.screeners.cache import register_secret, scrub
from popresume.screeners.parsing import parse_json_reply, parse_score
from popresume.screeners.prompt import PAPER_PROMPT, SCORE_SCHEMA, build_messages, prompt_hash

log = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
_KEYED_HOSTS = ("api.openai.com",)


class FatalHTTPError(RuntimeError):
    """Marker base for errors that abort a whole run (bad URL, model, key)."""


def image_data_url(path: str | os.PathLike) -> str:
    """``data:image/...;base64,...`` of an image file; ValueError if it is not a readable image."""
    p = Path(path)
    data = p.read_bytes()  # OSError if missing
    try:
        from PIL import Image

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
    capabilities = frozenset({"text", "images", "json"})  # "images" is set per instance (supports_images=)
    needs_profile = False

    def __init__(self, model: str, base_url: str = "https://api.openai.com/v1", *,
                 api_key_env: str = "OPENAI_API_KEY", temperature: float = 0.0, max_tokens: int = 32,
                 seed: int | None = 0, concurrency: int = 8, timeout: float = 60.0, max_retries: int = 5,
                 backoff: float = 0.5, max_backoff: float = 30.0, parse_retries: int = 2,
                 response_format: str | None = "json_schema", supports_images: bool = True,
                 template: str = PAPER_PROMPT):
        if not model:
            raise ValueError("model name is empty")
        if not base_url or urlparse(base_url).scheme not in ("http", "https"):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if response_format not in ("json_schema", "json_object", None):
            raise ValueError("response_format must be 'json_schema', 'json_object' or None")
        self.model = str(model)
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self._key = os.environ.get(api_key_env) or None
        register_secret(self._key)
        host = urlparse(self.base_url).hostname or ""
        if self._key is None and host in _KEYED_HOSTS:
            raise PermissionError(f"{host} needs an API key: set the environment variable {api_key_env}")
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.seed = seed
        self.concurrency = max(1, int(concurrency))
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.parse_retries = max(0, int(parse_retries))
        self.response_format = response_format
        self.supports_images = bool(supports_images)
        self.template = template
        self.prompt_hash = prompt_hash(template)
        self._client = None
        self._client_lock = threading.Lock()
        self.stats = {"requests": 0, "retries": 0}

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIScreener(model={self.model!r}, base_url={self.base_url!r}, key_env={self.api_key_env!r})"

    def cache_params(self) -> dict:
        return {"base_url": self.base_url, "temperature": self.temperature, "max_tokens": self.max_tokens,
                "seed": self.seed, "response_format": self.response_format, "parse_retries": self.parse_retries}

    # -- HTTP -------------------------------------------------------------------------------
    @property
    def client(self):
        with self._client_lock:
            if self._client is None:
                import httpx

                limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
                self._client = httpx.Client(timeout=self.timeout, limits=limits)
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
        delay = min(self.max_backoff, self.backoff * (2 ** attempt)) * (0.5 + random.random() / 2)
        if retry_after:
            try:
                delay = min(self.max_backoff, max(delay, float(retry_after)))
            except ValueError:
                pass
        time.sleep(delay)

    def _post(self, payload: dict) -> dict:
        """POST with retries; returns the decoded JSON body or raises."""
        import httpx

        url = f"{self.base_url}/chat/completions"
        last = ""
        connect_failures = 0
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.stats["retries"] += 1
            self.stats["requests"] += 1
            try:
                r = self.client.post(url, json=payload, headers=self._headers())
            except httpx.ConnectError as e:
                connect_failures += 1
                last = f"cannot connect: {e}"
            except (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
                last = f"{type(e).__name__}: {e}"
            else:
                if r.status_code == 200:
                    try:
                        return r.json()
                    except (json.JSONDecodeError, ValueError):
                        last = f"HTTP 200 with a non-JSON body: {scrub(r.text[:200])!r}"
                elif r.status_code in _RETRY_STATUS:
                    last = f"HTTP {r.status_code}: {scrub(r.text[:200])}"
                    log.info("retrying after %s", last)
                    if attempt < self.max_retries:
                        self._sleep(attempt, r.headers.get("retry-after"))
                    continue
                elif r.status_code == 404:
                    raise FileNotFoundError(f"404 from {url} for model {self.model!r}: {scrub(r.text[:500])} "
                                            f"(wrong model name or base_url?)")
                elif r.status_code in (401, 403):
                    hint = ("no API key was sent: set the environment variable " + self.api_key_env) if not self._key \
                        else f"the key in {self.api_key_env} was rejected"
                    raise PermissionError(f"HTTP {r.status_code} from {url}: {hint}; server said: {scrub(r.text[:300])}")
                else:
                    raise ValueError(f"HTTP {r.status_code} from {url}: {scrub(r.text[:500])}")
            log.info("retrying after %s", last)
            if attempt < self.max_retries:
                self._sleep(attempt)
        if connect_failures == self.max_retries + 1:
            raise ConnectionError(f"server unreachable at {self.base_url} after {connect_failures} attempts: {last}")
        raise TimeoutError(f"no valid reply from {url} after {self.max_retries + 1} attempts; last error: {last}")

    def _payload(self, messages: list[dict], schema: dict | None) -> dict:
        p: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature,
                             "max_tokens": self.max_tokens}
        if self.seed is not None:
            p["seed"] = self.seed
        if schema is not None and self.response_format == "json_schema":
            p["response_format"] = {"type": "json_schema",
                                    "json_schema": {"name": "reply", "schema": schema, "strict": True}}
        elif schema is not None and self.response_format == "json_object":
            p["response_format"] = {"type": "json_object"}
        return p

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

    def complete_json(self, messages: list[dict], schema: dict | None = None,
                      images: Sequence[str | os.PathLike] | None = None) -> tuple[dict | None, str]:
        """Send chat ``messages`` (plus ``images`` as base64 image parts on the last message) and
        return ``(parsed JSON object or None, raw reply text)``. Transport errors raise."""
        msgs = self._with_images(messages, images)
        body = self._post(self._payload(msgs, schema))
        raw = scrub(self._content(body)) or ""
        obj = parse_json_reply(raw)
        return (obj if isinstance(obj, dict) else None), raw

    # -- protocol ---------------------------------------------------------------------------
    def score_one(self, item: ScoreItem) -> ScoreResult:
        use_image = item.image_path is not None and item.format != "text"
        if use_image and not self.supports_images:
            raise ValueError(f"model {self.model!r} is configured without image support (résumé {item.resume_id!r})")
        msgs = build_messages(item.job_description, None if use_image else item.text, template=self.template)
        images = [item.image_path] if use_image else None
        if use_image:
            try:
                msgs = self._with_images(msgs, images)
            except (OSError, ValueError) as e:
                return ScoreResult.failure(f"error: {e}", "unreadable image", cacheable=False)
        raw = ""
        payload = self._payload(msgs, SCORE_SCHEMA)
        for attempt in range(1, self.parse_retries + 2):
            try:
                body = self._post(payload)
            except TimeoutError as e:  # exhausted transient retries: recorded, not cached
                return ScoreResult.failure(f"error: {scrub(str(e))}", "transport", attempts=attempt, cacheable=False)
            raw = scrub(self._content(body)) or ""
            parsed = parse_score(raw)
            if parsed.ok:
                return ScoreResult(parsed.score, True, raw, attempts=attempt)
        return ScoreResult.failure(raw, "unparseable reply", attempts=self.parse_retries + 1)

    def score_iter(self, items: Sequence[ScoreItem]) -> Iterator[tuple[int, ScoreResult]]:
        if not items:
            return
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="popresume-http") as ex:
            futs = {ex.submit(self.score_one, it): i for i, it in enumerate(items)}
            try:
                for f in as_completed(futs):
                    yield futs[f], f.result()
            finally:
                for f in futs:
                    f.cancel()
