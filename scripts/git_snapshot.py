"""Read files of a public repository at one commit from its git objects (no work tree needed).

The build scripts (``build_decisions_data.py``, ``build_ranking_data.py``) take a clone, a bare
mirror or a ``.git`` folder and read every input at a pinned commit, so the shipped tables are
reproducible from the commits alone. ``git -C`` accepts all three kinds of folder.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    """The standard output of ``git -C repo args...`` (``data`` on its standard input)."""
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, input=data).stdout


def ls(repo: Path, commit: str, prefix: str) -> list[str]:
    """The files under ``prefix`` at ``commit``, recursively."""
    return git(repo, "ls-tree", "-r", "--name-only", commit, prefix).decode().splitlines()


def read_blobs(repo: Path, commit: str, paths: list[str]) -> dict[str, bytes]:
    """Contents of ``paths`` at ``commit`` through one ``git cat-file --batch`` (the same
    objects ``git show COMMIT:path`` prints); FileNotFoundError names a path that is missing."""
    buf = git(repo, "cat-file", "--batch", data="".join(f"{commit}:{p}\n" for p in paths).encode())
    out, i = {}, 0
    for p in paths:
        j = buf.index(b"\n", i)
        header = buf[i:j].split()
        if header[-1] == b"missing":
            raise FileNotFoundError(f"{p} not in {repo} at {commit}")
        size = int(header[2])
        out[p] = buf[j + 1:j + 1 + size]
        i = j + 1 + size + 1
    return out


def show(repo: Path, commit: str, path: str) -> bytes:
    """The content of one file at ``commit``."""
    return read_blobs(repo, commit, [path])[path]
