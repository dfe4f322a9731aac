"""Every path the package reads or writes comes from here (STYLE.md: no '../data' strings).

* ``DATA_DIR``: the small shipped inputs in the repository's ``data/`` folder
  (override with the environment variable ``POPRESUME_DATA``).
* ``CONFIGS_DIR``: the shipped audit-grid configs (``configs/*.yaml``, read by
  ``popresume audit --config`` and chapters 09-10).
* ``CACHE_DIR``: generated artefacts (profiles, résumés, score caches, estimates);
  git-ignored; override with ``POPRESUME_CACHE``.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("POPRESUME_DATA", REPO_ROOT / "data"))
CACHE_DIR = Path(os.environ.get("POPRESUME_CACHE", REPO_ROOT / "_cache"))
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
CONFIGS_DIR = REPO_ROOT / "configs"


def data_path(*parts: str) -> Path:
    """Path of a shipped input under ``data/``; raises if it does not exist."""
    p = DATA_DIR.joinpath(*parts)
    if not p.exists():
        raise FileNotFoundError(f"shipped data file not found: {p} (is POPRESUME_DATA set correctly?)")
    return p


def cache_path(*parts: str) -> Path:
    """Path under the cache folder; parent folders are created."""
    p = CACHE_DIR.joinpath(*parts)
    p.parent.mkdir(parents=True, exist_ok=True)
    return p
