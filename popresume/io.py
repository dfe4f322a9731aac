"""Reading and writing tables: atomic writers and readers whose errors name the file.

Each writer writes to a temporary file in the destination folder and renames it
into place (``os.replace`` is atomic on POSIX), so an interrupted run leaves
either the old file or the new one, never a truncated one. The file gets the mode
a plain ``open(path, "w")`` would give it (``0o666`` less the umask), or keeps the
mode of the file it replaces — not the ``0600`` of a temporary file. A write that
fails for want of room or rights (a full disk, a read-only folder, a quota) raises an
``OSError`` with the same errno whose message names the destination file: the libraries'
own messages ("Error writing bytes to file") name none, or only the temporary file.

:func:`read_parquet` reads a table and checks its columns, raising a ``ValueError``
that names the file and the column (or says the file is not Parquet) instead of a
pyarrow traceback.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from popresume.errors import require_columns

#: Suffixes :func:`write_table` understands, and the one :func:`write_parquet` writes.
TABLE_SUFFIXES = (".csv", ".json", ".parquet")
PARQUET_SUFFIXES = (".parquet",)

_umask_lock = threading.Lock()


def _fresh(value: Any) -> Any:
    """A copy of a cached value that the caller may change without changing the cache:
    frames and series are copied (a shallow copy under pandas' copy-on-write, which copies
    the data on the first write; a deep one otherwise), arrays are copied, tuples and lists
    element by element; anything else (str, numbers, frozen objects) is returned as is."""
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.copy(deep=not _copy_on_write())
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (tuple, list)):
        return type(value)(_fresh(v) for v in value)
    return value


def _copy_on_write() -> bool:
    """pandas >= 3 always copies on write; 2.x only when its option is set."""
    return int(pd.__version__.split(".")[0]) >= 3 or bool(pd.get_option("mode.copy_on_write"))


def cached_tables(maxsize: int | None = None) -> Callable:
    """``functools.lru_cache`` for a function that returns tables: every call returns a copy
    (:func:`_fresh`), so a caller that adds a column or overwrites a cell does not change
    what the next caller gets. The cached function's ``cache_clear`` and ``cache_info``
    stay available.

    Parameters
    ----------
    maxsize : int or None
        As for ``functools.lru_cache``: the number of argument tuples kept; None, no limit.

    Returns
    -------
    callable
        A decorator.

    Examples
    --------
    >>> @cached_tables(maxsize=1)
    ... def table():
    ...     return pd.DataFrame({"n": [1, 2]})
    >>> first = table()
    >>> first.loc[0, "n"] = 99
    >>> int(table().loc[0, "n"])
    1
    """

    def decorate(func: Callable) -> Callable:
        cached = functools.lru_cache(maxsize=maxsize)(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return _fresh(cached(*args, **kwargs))

        wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return wrapper

    return decorate


def current_umask() -> int:
    """The process umask (read from /proc where possible, so it is never changed)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _umask_lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _final_mode(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)  # replacing a file keeps its mode
    except FileNotFoundError:
        return 0o666 & ~current_umask()


# errnos of a write that failed for want of room or rights (not, say, a dropped connection
# while a download streams into the file): these are re-raised naming the destination
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM,
                           errno.EIO})


def _write_errno(err: OSError) -> int | None:
    """The errno of a failed write: ``err.errno``, or the ``[errno N]`` in the message of a
    library that reports it only there (pyarrow's "Detail: [errno 28] ...")."""
    if err.errno is not None:
        return err.errno
    found = re.search(r"\[errno (\d+)\]", str(err), re.IGNORECASE)
    return int(found.group(1)) if found else None


def _naming(err: OSError, path: Path) -> OSError:
    """``err`` as an ``OSError`` of the same errno (and subclass) whose message names ``path``."""
    code = _write_errno(err)
    return OSError(code, f"cannot write {path}: {os.strerror(code)}")


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place on success only.

    A full disk, a read-only folder or missing rights raise an ``OSError`` (same errno)
    that names ``path``, whether they strike while the folder is made, while the caller
    writes, or at the rename.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix + ".tmp", dir=path.parent)
    except OSError as e:
        if _write_errno(e) in _WRITE_ERRNOS:
            raise _naming(e, path) from e
        raise
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, _final_mode(path))
        os.replace(tmp_path, path)
    except OSError as e:
        if _write_errno(e) in _WRITE_ERRNOS:
            raise _naming(e, path) from e
        raise
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def check_suffix(path: str | os.PathLike, allowed: Iterable[str], what: str = "output") -> Path:
    """Raise a ``ValueError`` when ``path`` does not end in one of ``allowed`` (checked before work)."""
    path = Path(path)
    allowed = tuple(allowed)
    if path.suffix.lower() not in allowed:
        got = repr(path.suffix) if path.suffix else "no suffix"
        raise ValueError(f"{what} {str(path)!r} must end in {' or '.join(allowed)} (got {got})")
    return path


def write_parquet(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``df`` to Parquet atomically and return the path (the suffix must be .parquet)."""
    check_suffix(path, PARQUET_SUFFIXES, "Parquet output")
    with atomic_path(path, ".parquet") as tmp:
        df.to_parquet(tmp, index=False)
    return Path(path)


def write_text(text: str, path: str | os.PathLike) -> Path:
    """Write text atomically (UTF-8) and return the path."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_figure(fig, path: str | os.PathLike, *, dpi: int = 120) -> Path:
    """Save a matplotlib figure as PNG atomically (tight bounding box), close it, return the path."""
    import matplotlib.pyplot as plt  # pyplot only when a figure is written: io is imported everywhere

    with atomic_path(path, ".png") as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return Path(path)


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a table as CSV, JSON or Parquet by the path's suffix, atomically."""
    path = check_suffix(path, TABLE_SUFFIXES, "table output")
    suffix = path.suffix.lower()
    with atomic_path(path, suffix) as tmp:
        if suffix == ".csv":
            df.to_csv(tmp, index=True)
        elif suffix == ".json":
            df.to_json(tmp, orient="table", indent=2)
        else:
            df.to_parquet(tmp)
    return path


def read_parquet(path: str | os.PathLike, *, what: str = "table", columns: Iterable[str] = ()) -> pd.DataFrame:
    """Read a Parquet table; a missing file, a file that is not Parquet, or a missing
    column (of ``columns``) raises one ``ValueError``/``FileNotFoundError`` naming the file."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} file not found: {path}")
    if path.is_dir():
        raise ValueError(f"{what} {path} is a folder, not a Parquet file")

    try:
        df = pd.read_parquet(path)
    except (OSError, ValueError, pa.ArrowException) as e:  # ArrowInvalid, ArrowIOError, ... for a corrupt file
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if first.startswith("Could not open Parquet input source") and ": " in first:
            first = first.split(": ", 1)[1].split(". ")[0]  # drop pyarrow's restatement of the path
        raise ValueError(f"{what} file {path} is not a readable Parquet file ({first})") from e
    require_columns(df, columns, f"{what} file {path}")
    return df


def write_together(folder: str | os.PathLike, writers: dict, *, what: str = "the files") -> dict[str, Path]:
    """Write several files of ``folder`` as one set: all new, or (on a failure) all as before.

    ``writers`` maps each file name to a function that writes the file at the path it is
    given. Each is written to a temporary file in ``folder`` and synced; only when all are
    whole are they moved into place, the earlier files kept as hard links until then, so a
    failure while writing or moving (a full disk) leaves the earlier set as it was and never
    mixes files of two runs. A folder this call created is removed again when nothing was
    written. A full disk is an ``OSError`` (ENOSPC) naming the folder and saying whether the
    earlier files are unchanged or nothing was written. Returns name -> final path.
    """
    folder = Path(folder)
    created = not folder.exists()
    final = {name: folder / name for name in writers}
    earlier = any(p.exists() for p in final.values())
    temps: dict[str, Path] = {}
    backups: dict[str, Path] = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, write in writers.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            os.close(fd)
            temps[name] = Path(tmp)
            write(temps[name])
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
            os.chmod(tmp, _final_mode(final[name]))
        for name, path in final.items():  # a hard link keeps the old file to restore (no data copied)
            if path.exists():
                backups[name] = folder / f".{name}.previous"
                backups[name].unlink(missing_ok=True)
                try:
                    os.link(path, backups[name])
                except OSError:  # a file system without hard links: a copy
                    shutil.copy2(path, backups[name])
        done = []
        try:
            for name, path in final.items():
                os.replace(temps[name], path)
                done.append(name)
        except OSError:
            for name in done:  # undo: the old set, or no set at all
                if name in backups:
                    os.replace(backups[name], final[name])
                else:
                    final[name].unlink(missing_ok=True)
            raise
    except OSError as e:
        for p in (*temps.values(), *backups.values()):
            p.unlink(missing_ok=True)
        if created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # a new folder is not left empty after "nothing written"
        if _write_errno(e) == errno.ENOSPC:
            raise OSError(errno.ENOSPC, f"cannot write {what} into {folder}: no space left on the device; "
                                        f"{'the earlier files are unchanged' if earlier else 'nothing written'}"
                          ) from None
        raise
    finally:
        for p in (*temps.values(), *backups.values()):
            p.unlink(missing_ok=True)
    return final
