"""Atomic writers: nothing half-written is ever left at an output path.

Each writer writes to a temporary file in the destination folder and renames it
into place (``os.replace`` is atomic on POSIX), so an interrupted run leaves
either the old file or the new one, never a truncated one.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place on success only."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix + ".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_parquet(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``df`` to Parquet atomically and return the path."""
    with atomic_path(path, ".parquet") as tmp:
        df.to_parquet(tmp, index=False)
    return Path(path)


def write_text(text: str, path: str | os.PathLike) -> Path:
    """Write text atomically (UTF-8) and return the path."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a table as CSV, JSON or Parquet by the path's suffix, atomically."""
    path = Path(path)
    suffix = path.suffix.lower()
    with atomic_path(path, suffix) as tmp:
        if suffix == ".csv":
            df.to_csv(tmp, index=True)
        elif suffix == ".json":
            df.to_json(tmp, orient="table", indent=2)
        elif suffix == ".parquet":
            df.to_parquet(tmp)
        else:
            raise ValueError(f"unknown table format {suffix!r} for {path}: use .csv, .json or .parquet")
    return path
