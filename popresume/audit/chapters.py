"""The setup every chapter that reads the book's audit grid shares (chapters 10a-10d).

Those chapters take the grid of Chapter 9 (a config file with the chapter's sizes, draws,
seed and occupations), its results table (cached after Chapter 9, so nothing is
estimated again) and, for some, the scores behind it. :func:`grid_chapter` does all of it
in one call, so a chapter's first cell states its parameters and no chapter carries a copy
of the setup (the page-wide display is each chapter's ``popresume.book.chapter_setup()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from popresume.audit import grid
from popresume.audit.config import AuditConfig, grid_config


@dataclass(frozen=True)
class GridChapter:
    """The book's grid as a chapter sees it: its ``config``, ``results`` and scored ``data``."""

    config: AuditConfig
    results: pd.DataFrame | None = field(default=None, repr=False)
    data: pd.DataFrame | None = field(default=None, repr=False)


def grid_chapter(config_file="default_audit.yaml", *, sizes=None, n_boot=None, seed=None, occupations="all",
                 results: bool = True, data: bool = False, n_jobs: int = 2) -> GridChapter:
    """Chapter 9's grid with the chapter's parameters (:func:`grid_config`), its results
    (``results=True``: :func:`popresume.audit.grid.run_audit`, cached) and its scores
    joined to the profiles (``data=True``: :func:`popresume.audit.grid.audit_data`).
    The chapter sets its own display options (``popresume.book.chapter_setup``)."""
    cfg = grid_config(config_file, sizes=sizes, n_boot=n_boot, seed=seed, occupations=occupations)
    table = grid.run_audit(cfg, n_jobs=n_jobs, progress=False).table if results else None
    scored = grid.audit_data(cfg) if data else None
    return GridChapter(config=cfg, results=table, data=scored)
