"""On-disk score cache (SQLite in WAL mode), keyed so that a score is reused only when
nothing that could change it has changed.

Key = SHA-256 of (screener id, model, prompt hash, résumé hash [text or image bytes],
job-description hash, ``screener.cache_params()`` [decoding, scoring mode, batch size, …]);
see :func:`screener_cache_key`. Each score is committed in its own
transaction the moment it exists, so a run killed with SIGKILL loses at most the résumés
that were in flight and never stores half a row; a rerun finds every committed key and
scores only the rest (tested by ``tests/test_screeners_cache.py``).

Secrets never reach the cache: the decoding parameters are built by each backend from an
explicit allow-list (an API key is not one of them), and :meth:`ScoreCache.put` refuses a
row whose text contains one of the scoring screener's secrets (its ``secrets``,
:class:`~popresume.screeners.secrets.Secrets`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterable

import pandas as pd

from popresume.screeners.base import ScoreResult, stable_json
from popresume.screeners.secrets import NO_SECRETS, Secrets

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    key TEXT PRIMARY KEY,
    screener_id TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    resume_hash TEXT NOT NULL,
    params TEXT NOT NULL,
    resume_id TEXT,
    score REAL,
    parse_ok INTEGER NOT NULL,
    raw TEXT,
    attempts INTEGER,
    created REAL
)
"""

def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(screener_id: str, model: str, prompt_hash: str, resume_hash: str,
              job_hash: str, params: dict) -> str:
    """The cache key of one score (all parts that can change the score)."""
    return sha256(stable_json([screener_id, model, prompt_hash, resume_hash, job_hash, params]))


def screener_cache_key(screener, resume_hash: str, job_hash: str) -> str:
    """The cache key of one score by ``screener``: its id, model, prompt hash and
    :meth:`~popresume.screeners.base.Screener.cache_params` with the résumé and posting hashes."""
    return cache_key(screener.screener_id, screener.model, screener.prompt_hash, resume_hash, job_hash,
                     screener.cache_params())


class CacheError(ValueError):
    """The score cache cannot be opened or read: names the file and the ways out."""

    def __init__(self, path: Path, problem: BaseException | str):
        self.path = path
        super().__init__(f"score cache {path}: {problem}; score without it (--no-cache in score, validate and "
                         f"correspondence; --cache OTHER_FILE in audit), or move the file aside (a new cache is "
                         f"created in its place)")


class CacheWriteError(OSError):
    """A row could not be written (disk full, I/O error); the score itself is fine."""


class ScoreCache:
    """A SQLite file of scores; safe for one writer and many readers, thread-safe inside a process.

    A file that is not a readable SQLite database (truncated, overwritten), or one that cannot
    be written (read-only file or folder), raises :class:`CacheError` when it is opened or
    read; a write that fails later (a full disk) raises :class:`CacheWriteError`."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._con = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False,
                                        isolation_level=None)
        except (OSError, sqlite3.Error) as e:
            raise CacheError(self.path, e) from None
        try:
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=NORMAL")
            self._con.execute(_SCHEMA)
            self._con.execute("BEGIN IMMEDIATE")  # can this file be written at all?
            self._con.execute("ROLLBACK")
        except sqlite3.Error as e:
            self._con.close()
            raise CacheError(self.path, e) from None

    def get_many(self, keys: Iterable[str]) -> dict[str, tuple[float, bool, str, int]]:
        """Cached ``(score, parse_ok, raw, attempts)`` for the keys that are present."""
        keys = list(keys)
        out: dict[str, tuple[float, bool, str, int]] = {}
        with self._lock:
            try:
                for i in range(0, len(keys), 500):
                    part = keys[i : i + 500]
                    q = (f"SELECT key, score, parse_ok, raw, attempts FROM scores "
                         f"WHERE key IN ({','.join('?' * len(part))})")
                    for k, s, ok, raw, att in self._con.execute(q, part):
                        out[k] = (float("nan") if s is None else float(s), bool(ok), raw or "", int(att or 1))
            except sqlite3.DatabaseError as e:  # a damaged page found while reading
                raise CacheError(self.path, e) from None
        return out

    def _insert(self, key: str, screener_id: str, model: str, prompt_hash: str, item_hash: str, params: dict,
                item_id: str, score: float | None, parse_ok: bool, raw: str, attempts: int,
                secrets: Secrets) -> None:
        """Commit one row (its own transaction). Refuses text that holds one of ``secrets``."""
        params_json = stable_json(params)
        found = secrets.found_in(raw, params_json)
        if found:
            raise ValueError(f"refusing to cache a row that contains {found}")
        with self._lock:
            try:
                self._con.execute(
                    "INSERT OR REPLACE INTO scores VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (key, screener_id, model, prompt_hash, item_hash, params_json, item_id,
                     score, int(parse_ok), raw, int(attempts), time.time()),
                )
            except sqlite3.DatabaseError as e:  # disk full, I/O error, the file damaged meanwhile
                raise CacheWriteError(f"score cache {self.path}: cannot write: {e}") from None

    def put(self, key: str, *, screener_id: str, model: str, prompt_hash: str, resume_hash: str,
            params: dict, resume_id: str, result: ScoreResult, secrets: Secrets = NO_SECRETS) -> None:
        """Commit one score (its own transaction). Refuses text that holds one of ``secrets``
        (the scoring screener's)."""
        score = None if not result.parse_ok else float(result.score)
        self._insert(key, screener_id, model, prompt_hash, resume_hash, params, resume_id, score,
                     result.parse_ok, result.raw or "", result.attempts, secrets)

    def put_reply(self, key: str, *, screener_id: str, model: str, prompt_hash: str, item_hash: str,
                  params: dict, item_id: str, reply: dict, raw: str, secrets: Secrets = NO_SECRETS) -> None:
        """Commit a structured reply (a JSON object, e.g. a leakage judge's answer) in the same
        table: ``raw`` holds ``{"reply": ..., "raw": ...}``; ``score`` the reply's numeric
        ``score`` field when it has one. Only valid replies are meant to be stored."""
        sc = reply.get("score") if isinstance(reply, dict) else None
        sc = float(sc) if isinstance(sc, (int, float)) and not isinstance(sc, bool) else None
        sc = None if sc != sc else sc  # NaN stored as NULL
        self._insert(key, screener_id, model, prompt_hash, item_hash, params, item_id, sc, True,
                     stable_json({"reply": reply, "raw": raw}), 1, secrets)

    def get_replies(self, keys: Iterable[str]) -> dict[str, tuple[dict, str]]:
        """``{key: (reply, raw)}`` for the keys stored with :meth:`put_reply`."""
        out = {}
        for k, (_, ok, raw, _) in self.get_many(keys).items():
            try:
                d = json.loads(raw)
            except json.JSONDecodeError:
                continue  # a score row under the same key: not a structured reply
            if ok and isinstance(d, dict) and "reply" in d:
                out[k] = (d["reply"], d.get("raw", ""))
        return out

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute("SELECT COUNT(*) FROM scores").fetchone()[0])

    def rows(self):
        """All rows as a DataFrame (for inspection and tests)."""
        with self._lock:
            return pd.read_sql_query("SELECT * FROM scores", self._con)

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def __enter__(self) -> "ScoreCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
