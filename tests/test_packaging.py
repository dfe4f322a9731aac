"""Packaging conventions: the package's licence at the root, and every licence or notice of
the shipped data named in the sdist and wheel metadata (PEP 639 ``license-files``)."""

from __future__ import annotations

import tomllib

from popresume.paths import REPO_ROOT


def test_every_shipped_licence_and_notice_is_in_the_package_metadata():
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert "MIT License" in (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    listed = set(project["license-files"])
    shipped = {str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "data").rglob("*")
               if p.is_file() and p.name.upper().startswith(("LICENSE", "NOTICE"))}
    assert shipped, "the data folder ships licence files (data/README.md names them)"
    assert shipped <= listed, f"not in pyproject's license-files: {sorted(shipped - listed)}"
    assert all((REPO_ROOT / f).is_file() for f in listed)
