"""The screener protocol: (job description, résumé) → a score in 0–100, or missing.

Every backend implements :class:`Screener`: identity attributes used in cache keys and
output tables, and :meth:`Screener.score_iter`, which scores a list of
:class:`ScoreItem` and yields ``(index, ScoreResult)`` pairs as soon as each is ready (so
the batch driver :func:`popresume.screeners.score_resumes` can commit every score to the
cache the moment it exists; that is what makes a SIGKILLed run resumable).

A :class:`ScoreResult` with ``parse_ok=False`` carries ``score=NaN`` and the raw reply or
the error text; it is never a number (STYLE.md counter-examples).

**Capabilities are declared, not probed.** Every screener carries ``capabilities``, a
frozenset drawn from :data:`CAPABILITIES`; code that needs an optional ability asks
:func:`has_capability` / :func:`require_capability` instead of ``hasattr`` (docs/DESIGN.md §4):

* ``"text"`` – scores text résumés through :meth:`Screener.score_iter`;
* ``"images"`` – scores image résumés (``ScoreItem.image_path``) through the same method;
* ``"json"`` – ``complete_json(messages, schema=None, images=None) -> (dict | None, raw)``:
  a reply to chat messages, constrained to / parsed against a JSON schema (the leakage
  judges use this);
* ``"logprobs"`` – the backend can read token log-probabilities, so ``scoring="expected"``
  (the probability-weighted score) is available;
* ``"embeddings"`` – ``embed(texts) -> ndarray`` of L2-normalised rows;
* ``"batches"`` – one call scores a whole model batch of ``batch_size`` résumés, and costs
  a whole batch however few résumés it holds (a probe of its speed times one batch);
* ``"true_effects"`` – the screener knows its true effects:
  ``true_effects(profiles, attribute, format=...)`` (the synthetic screener).

Whether a screener can judge the leakage tasks follows from these (``"json"`` or
``"embeddings"``: :func:`can_judge`); whether a given server answers the tasks within
their schemas is asked of it once, before any work
(:func:`popresume.leakage.tasks.check_judge`).

Every :class:`BaseScreener` also declares, with neutral defaults: ``batch_size``;
``needs_profile`` (the screener reads the profile table, joined on ``resume_id``:
:meth:`BaseScreener.prepare_profiles`); ``stats``, the request counters of a backend that
counts them (``requests``, ``retries``, ``prompt_tokens``, …; empty otherwise);
``min_chunk`` / ``max_chunk`` (the résumés one :meth:`BaseScreener.score_batch` call
holds); :meth:`BaseScreener.warmup`; and :meth:`BaseScreener.public_spec`, the spec that
built it with every secret removed (what a report may print).

**Cache identity.** :meth:`Screener.cache_params` returns every setting that can move a
score (decoding, scoring mode, batch size where numerics depend on it, …) but never a
secret; :func:`popresume.screeners.cache.screener_cache_key` puts it, with the screener id,
model and prompt hash, into every cache key.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from popresume.screeners.secrets import NO_SECRETS, Secrets

NAN = float("nan")
#: Seconds of work between two yields of :meth:`BaseScreener.score_iter` (so between two commits
#: of the score cache): chunks are sized from the measured time per résumé.
COMMIT_SECONDS = 2.0

#: The abilities a screener may declare (see the module docstring).
CAPABILITIES = frozenset({"text", "images", "json", "logprobs", "embeddings", "batches", "true_effects"})
#: Scoring modes: the greedy reply's number, or the probability-weighted (expected) score.
SCORING_MODES = ("greedy", "expected")


@dataclass
class ScoreItem:
    """One résumé to score. Exactly one of ``text`` / ``image_path`` is used by the backend."""

    resume_id: str
    occupation: str
    job_description: str
    text: str | None = None
    image_path: str | None = None
    profile: Mapping[str, Any] | None = None
    format: str = "text"  # one of schema.FORMATS

    def content_hash(self) -> str:
        """SHA-256 of what the model sees: the text, or the image file's bytes."""
        h = hashlib.sha256()
        if self.image_path is not None and self.format != "text":
            h.update(b"image:")
            h.update(Path(self.image_path).read_bytes())
        else:
            h.update(b"text:")
            h.update((self.text or "").encode("utf-8"))
        return h.hexdigest()


@dataclass
class ScoreResult:
    """The outcome for one résumé. ``score`` is NaN whenever ``parse_ok`` is False."""

    score: float
    parse_ok: bool
    raw: str
    attempts: int = 1
    error: str | None = None
    cacheable: bool = True  # input errors (unreadable image) are not cached: fix and rerun

    def __post_init__(self) -> None:
        if not self.parse_ok:
            self.score = NAN
        elif self.score is None or not math.isfinite(float(self.score)):
            raise ValueError("a parsed score must be a finite number")

    @classmethod
    def failure(cls, raw: str, error: str, *, attempts: int = 1, cacheable: bool = True) -> "ScoreResult":
        return cls(NAN, False, raw, attempts=attempts, error=error, cacheable=cacheable)


@runtime_checkable
class Screener(Protocol):
    """What :func:`score_resumes` needs from a backend."""

    screener_id: str
    model: str
    capabilities: frozenset
    needs_profile: bool
    prompt_hash: str
    secrets: Secrets

    def cache_params(self) -> dict: ...

    def item_hash(self, item: ScoreItem) -> str: ...

    def prepare_profiles(self, profiles): ...

    def warmup(self) -> None: ...

    def score_iter(self, items: Sequence[ScoreItem]) -> Iterator[tuple[int, ScoreResult]]: ...


def check_capabilities(caps) -> frozenset:
    """``caps`` as a frozenset, refusing names outside :data:`CAPABILITIES`."""
    caps = frozenset(caps)
    unknown = sorted(caps - CAPABILITIES)
    if unknown:
        raise ValueError(f"unknown screener capability {unknown[0]!r}; expected some of {sorted(CAPABILITIES)}")
    return caps


def has_capability(screener: Any, capability: str) -> bool:
    """Whether ``screener`` declares ``capability`` (one of :data:`CAPABILITIES`)."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown screener capability {capability!r}; expected one of {sorted(CAPABILITIES)}")
    return capability in declared_capabilities(screener)


def declared_capabilities(screener: Any) -> frozenset:
    """``screener.capabilities``; a ValueError for an object that declares none (it is not a screener)."""
    try:
        return frozenset(screener.capabilities)
    except AttributeError:
        raise ValueError(f"a {type(screener).__name__} is not a screener: it declares no capabilities") from None


def can_judge(screener: Any) -> bool:
    """Whether ``screener`` can answer the leakage tasks at all: as a generative judge
    (``"json"``) or as the embedding judge's embedder (``"embeddings"``)."""
    return has_capability(screener, "json") or has_capability(screener, "embeddings")


def require_capability(screener: Any, capability: str, purpose: str) -> None:
    """Raise a ValueError naming the screener when it lacks ``capability`` (needed for ``purpose``)."""
    try:
        if has_capability(screener, capability):
            return
    except ValueError as e:
        raise ValueError(f"cannot {purpose}: {e}") from None
    raise ValueError(f"screener {screener.screener_id!r} ({screener.model}) cannot {purpose}: it does not "
                     f"declare the {capability!r} capability (it declares {sorted(screener.capabilities)})")


class BaseScreener:
    """Convenience base: identity, capabilities, cache key parts and a sequential ``score_iter``."""

    screener_id: str = "base"
    model: str = ""
    capabilities: frozenset = frozenset({"text"})
    needs_profile: bool = False
    prompt_hash: str = "none"
    batch_size: int = 32
    #: résumés per score_batch call, at least and at most (None: 1 and batch_size)
    min_chunk: int | None = None
    max_chunk: int | None = None

    #: the validated spec that built the screener (popresume.screeners.specs), if any
    spec: Any = None
    #: the secrets the screener holds (immutable; popresume.screeners.secrets)
    secrets: Secrets = NO_SECRETS

    @property
    def stats(self) -> dict:
        """Request counters (``requests``, ``retries``, ``prompt_tokens``, …) of a backend that
        counts them; empty for one that does not."""
        return {}

    def prepare_profiles(self, profiles):
        """The profile table as the screener reads it (``needs_profile`` screeners add the
        columns they need); unchanged by default."""
        return profiles

    def __getattr__(self, name: str):
        # a setting of the spec reads as the screener's own (``screener.timeout`` is
        # ``screener.spec.timeout``): a backend holds its spec and never copies its fields
        spec = self.__dict__.get("spec")
        if spec is not None and name in type(spec).model_fields:
            return getattr(spec, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def public_spec(self) -> dict:
        """The spec that built this screener, as given (defaults left out), with no secret in
        it: what a report or a card may print. Empty for a screener built without a spec."""
        if self.spec is None:
            return {}
        return {"kind": self.spec.kind, **self.spec.model_dump(exclude_unset=True, exclude={"kind"})}

    @property
    def scoring(self) -> str | None:
        """For generative screeners, how a reply becomes a score: "greedy" (the reply's number)
        or "expected" (probability-weighted over the valid replies), read from the spec; None
        for the others."""
        return getattr(self.spec, "scoring", None)

    @property
    def supports_images(self) -> bool:
        """``"images" in capabilities`` (kept for callers that read the flag)."""
        return "images" in self.capabilities

    @supports_images.setter
    def supports_images(self, value: bool) -> None:
        # a backend that learns at construction whether it reads images (e.g. a server
        # configured by the user) declares it for this instance
        caps = set(self.capabilities)
        (caps.add if value else caps.discard)("images")
        self.capabilities = frozenset(caps)

    def cache_params(self) -> dict:
        """Every setting that can change a score (decoding, scoring mode, …), never secrets.
        Its items enter the cache key (:func:`popresume.screeners.cache.screener_cache_key`)."""
        return {}

    def item_hash(self, item: ScoreItem) -> str:
        return item.content_hash()

    def warmup(self) -> None:
        """Load weights before timing starts (no-op unless a backend has something to load)."""

    def score_one(self, item: ScoreItem) -> ScoreResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def score_batch(self, items: Sequence[ScoreItem]) -> list[ScoreResult]:
        return [self.score_one(it) for it in items]

    def score_iter(self, items: Sequence[ScoreItem]) -> Iterator[tuple[int, ScoreResult]]:
        """Score in chunks of at most ``batch_size`` (``max_chunk`` if set) and at least
        ``min_chunk`` (if set: a backend whose call costs a fixed batch), each sized to take
        about :data:`COMMIT_SECONDS`: the driver commits each score as it is yielded, so a run
        killed at any point loses at most a few seconds of work (or one fixed batch)."""
        most = max(1, int(self.max_chunk or self.batch_size))
        least = min(most, max(1, int(self.min_chunk or 1)))
        size = max(least, min(most, 4))
        start = 0
        while start < len(items):
            chunk = items[start : start + size]
            t0 = time.perf_counter()
            results = self.score_batch(chunk)
            per_item = (time.perf_counter() - t0) / len(chunk)
            for j, res in enumerate(results):
                yield start + j, res
            start += len(chunk)
            size = max(least, min(most, int(COMMIT_SECONDS / per_item) if per_item > 0 else most))

    def score(self, job_description: str, text: str | None = None, *, image_path: str | None = None,
              occupation: str = "", profile: Mapping[str, Any] | None = None) -> ScoreResult:
        """Score one résumé directly (no cache)."""
        fmt = "text" if image_path is None else "image"
        item = ScoreItem("single", occupation, job_description, text=text, image_path=image_path,
                         profile=profile, format=fmt)
        return next(iter(self.score_iter([item])))[1]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(screener_id={self.screener_id!r}, model={self.model!r})"


def stable_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def iter_chunks(seq: Sequence, size: int) -> Iterable[Sequence]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


class quiet_hf:
    """Context manager that silences known-harmless library chatter while loading models:
    transformers' "Loading weights" / GGUF de-quantisation progress bars, its logging below
    ERROR, and Python warnings (deprecations inside transformers / sentence-transformers).
    Restores the previous state on exit.

    The GGUF loader draws its tqdm bar outside transformers' progress-bar switch, on
    ``sys.stderr``; stderr is therefore captured while the model loads and written out
    again on exit when the load failed (an exception's own message is never lost: it
    travels with the exception)."""

    def __enter__(self):
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")
        self._stderr = io.StringIO()
        self._redirect = contextlib.redirect_stderr(self._stderr)
        self._redirect.__enter__()
        try:
            from transformers.utils import logging as hf_logging  # optional: the screeners extra

            self._hf = hf_logging
            self._verb = hf_logging.get_verbosity()
            self._bar = hf_logging.is_progress_bar_enabled()
            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()
        except ImportError:  # transformers absent: nothing to silence
            self._hf = None
        return self

    def __exit__(self, *exc):
        self._redirect.__exit__(*exc)
        if exc[0] is not None:  # a failed load: what it printed may explain it
            sys.stderr.write(self._stderr.getvalue())
        if self._hf is not None:
            self._hf.set_verbosity(self._verb)
            if self._bar:
                self._hf.enable_progress_bar()
        self._w.__exit__(*exc)
        return False


class torch_threads:
    """Temporarily set torch's intra-op thread count (``None`` leaves it alone).

    On a small shared machine, many threads busy-waiting for busy cores can slow the small
    matrix products of one-token decoding by an order of magnitude; ``num_threads=1`` is the
    remedy there. The previous setting is restored on exit."""

    def __init__(self, n: int | None):
        self.n = n

    def __enter__(self):
        if self.n is not None:
            import torch  # optional: the screeners extra

            self._old = torch.get_num_threads()
            torch.set_num_threads(int(self.n))
        return self

    def __exit__(self, *exc):
        if self.n is not None:
            import torch  # optional: the screeners extra

            torch.set_num_threads(self._old)
        return False
