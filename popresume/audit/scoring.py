"""Scoring résumés outside the grid, through the grid's own per-résumé score cache.

The book's chapters score small samples (a coarsening sample, a trimmed population) with
the same screener as the audit grid; going through the grid's cache means a résumé the
grid already scored is read back, not scored again.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from popresume import screeners
from popresume.paths import cache_path
from popresume.resumes import render_texts


def grid_score_cache(cache_dir: str | Path | None = None) -> Path:
    """The audit grid's per-résumé score cache (``<cache_dir>/scores/scores.sqlite``; default under CACHE_DIR/audit)."""
    if cache_dir is None:
        return cache_path("audit", "scores", "scores.sqlite")
    p = Path(cache_dir) / "scores" / "scores.sqlite"
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def score_texts(profiles: pd.DataFrame, screener="embedding", *, seed: int = 0,
                cache: str | Path | None = None) -> pd.DataFrame:
    """``profiles`` with a ``score`` column: their text résumés scored by ``screener``.

    The scores go through the grid's per-résumé cache (:func:`grid_score_cache`), so a
    résumé the grid already scored is not scored again. Rows whose score could not be
    parsed are dropped.
    """
    texts = render_texts(profiles, seed=seed)
    sc = screeners.score_resumes(screener, texts, cache=Path(cache) if cache is not None else grid_score_cache())
    out = profiles.drop(columns=[c for c in ("score",) if c in profiles.columns])
    out = out.merge(sc[["resume_id", "score"]], on="resume_id", how="inner", validate="one_to_one")
    return out[out["score"].notna()].reset_index(drop=True)
