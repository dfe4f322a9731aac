"""One orchestration of population → résumés → scores, for the audit grid and the audit report.

The grid (:mod:`popresume.audit.grid`, many occupations, formats and screeners, each stage
kept as Parquet) and the report (:mod:`popresume.audit.report_run`, one screener) draw their
résumés and scores through these functions, so both render the same résumés for the same
profiles, keep their PNGs in one image cache (:func:`image_root`, keyed by what determines
the pictures) and score through the one score cache of :mod:`popresume.screeners`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from popresume.paths import CACHE_DIR
from popresume.resumes import render_images, render_texts
from popresume.screeners import score_run

#: Render options that change an image résumé (the keys of an audit config's ``render``).
IMAGE_OPTIONS = ("width", "face_source")


def frame_hash(df: pd.DataFrame) -> str:
    """A short hash of a table's values (the key of everything derived from it)."""
    return hashlib.sha256(pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes()).hexdigest()[:16]


def image_root(cache_dir: str | Path | None = None) -> Path:
    """The one image cache: ``<cache_dir>/images`` (default the audit cache, ``_cache/audit``)."""
    return (Path(cache_dir) if cache_dir is not None else CACHE_DIR / "audit") / "images"


def render_resumes(profiles: pd.DataFrame, fmt: str, *, seed: int = 0, options: Mapping[str, Any] | None = None,
                   images: str | Path | None = None, need_files: bool = True,
                   progress: bool = False) -> pd.DataFrame:
    """The résumés of ``profiles`` in ``fmt`` (``text``, ``image`` or ``image+photo``).

    Text: :func:`popresume.resumes.render_texts`. Images: :func:`popresume.resumes.render_images`
    into ``images`` (default :func:`image_root`) under a folder keyed by the profiles, the
    format, the options and the seed, so a rerun finds its PNGs. ``need_files=False`` (a
    screener that reads the profile, not the pixels) draws nothing and returns the résumé
    ids and occupations. ``options``: ``skills`` (text), ``width``, ``face_source``,
    ``n_jobs`` (images). The table carries a ``format`` column.
    """
    opts = dict(options or {})
    if fmt == "text":
        out = render_texts(profiles, seed=seed, skills=bool(opts.get("skills", False)), progress=progress)
    elif need_files:
        key = hashlib.sha256(json.dumps({"profiles": frame_hash(profiles), "format": fmt, "seed": seed,
                                         "options": {k: opts[k] for k in IMAGE_OPTIONS if k in opts}},
                                        sort_keys=True, default=str).encode()).hexdigest()[:16]
        folder = (Path(images) if images is not None else image_root()) / f"{fmt.replace('+', '_')}-{key}"
        out = render_images(profiles, folder, photo=(fmt == "image+photo"), seed=seed, progress=progress,
                            n_jobs=int(opts.get("n_jobs", 2)), **{k: opts[k] for k in IMAGE_OPTIONS if k in opts})
    else:
        out = profiles[["resume_id", "occupation"]]
    out = out.copy()
    out["format"] = fmt
    return out


def score(screener, resumes: pd.DataFrame, profiles: pd.DataFrame, *, cache=None, progress: bool = False):
    """Score ``resumes`` with ``screener`` through the score cache; a
    :class:`popresume.screeners.ScoreRun`. The profiles travel to a screener that declares it
    reads them (``needs_profile``: the synthetic screener), to no other."""
    return score_run(screener, resumes, profiles=profiles if screener.needs_profile else None, cache=cache,
                     progress=progress)
