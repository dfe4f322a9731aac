"""The build scripts' one git-snapshot reader (``scripts/git_snapshot.py``) on a small repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import git_snapshot  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = tmp_path / "src"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (repo / "data").mkdir()
    (repo / "data" / "a.csv").write_bytes(b"x,y\n1,2\n")
    (repo / "data" / "b.bin").write_bytes(bytes(range(256)) + b"\n\n")  # newlines inside a blob
    run("add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    first = run("rev-parse", "HEAD").stdout.decode().strip()
    (repo / "data" / "a.csv").write_bytes(b"x,y\n3,4\n")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "two")
    return repo, first, run("rev-parse", "HEAD").stdout.decode().strip()


def test_reads_files_at_a_commit_from_a_clone_a_git_folder_and_a_bare_mirror(tmp_path):
    repo, first, second = _repo(tmp_path)
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(repo), str(bare)], check=True, capture_output=True)
    for where in (repo, repo / ".git", bare):
        assert git_snapshot.ls(where, first, "data") == ["data/a.csv", "data/b.bin"]
        blobs = git_snapshot.read_blobs(where, first, ["data/b.bin", "data/a.csv"])
        assert blobs == {"data/b.bin": bytes(range(256)) + b"\n\n", "data/a.csv": b"x,y\n1,2\n"}
        assert git_snapshot.show(where, second, "data/a.csv") == b"x,y\n3,4\n"  # the commit, not the work tree


def test_a_missing_path_is_named(tmp_path):
    repo, first, _ = _repo(tmp_path)
    with pytest.raises(FileNotFoundError, match="data/c.csv not in .* at " + first):
        git_snapshot.read_blobs(repo, first, ["data/a.csv", "data/c.csv"])
