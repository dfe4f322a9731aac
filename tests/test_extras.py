"""The slim core works without the ``screeners`` extra; a missing extra is named with its pip line."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from popresume.extras import MissingExtraError, install_hint, require

# Runs in a fresh interpreter in which torch, transformers & co. cannot be imported,
# as on a machine with only `pip install popresume` (the core).
BLOCK = """
import importlib.abc, sys
BLOCKED = {"torch", "transformers", "sentence_transformers", "gguf", "accelerate"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def run_blocked(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=600)


def test_core_estimator_runs_without_torch_or_transformers():
    r = run_blocked("""
        import sys
        import popresume.audit.config, popresume.cli, popresume.screeners, popresume.io  # noqa: F401
        from popresume.causal import estimate_pse, make_scm
        data = make_scm("basic").sample(600, seed=1)
        table = estimate_pse(data, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y",
                             folds=3, n_boot=0, tune=False)
        assert list(table.index) == ["TE", "NDE", "NIE", "BIE", "RIE"], table
        heavy = sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules)
        assert not heavy, heavy
        print("ok")
    """)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


def test_missing_screeners_extra_is_named():
    r = run_blocked("""
        from popresume.extras import MissingExtraError
        from popresume.screeners import get_screener
        try:
            get_screener("embedding").st
        except MissingExtraError as e:
            print(e)
    """)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "the embedding screener needs the package 'torch', which is not installed" in r.stdout
    assert 'pip install "popresume[screeners]"' in r.stdout


def test_cli_names_the_extra_in_one_line(tmp_path):
    import pandas as pd

    pd.DataFrame({"resume_id": ["a"], "occupation": ["nurse"], "text": ["RN, 5 years"]}).to_parquet(
        tmp_path / "r.parquet")
    r = run_blocked("""
        import sys
        from popresume.cli import main
        main(sys.argv[1:], prog_name="popresume")
    """, "score", "--resumes", str(tmp_path / "r.parquet"), "--screener", "embedding", "--no-cache", "--quiet",
                    "--out", str(tmp_path / "s.parquet"))
    assert r.returncode == 1, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "'torch'" in errors[0] and 'popresume[screeners]' in errors[0], r.stderr


def test_require_names_package_and_extra(tmp_path, monkeypatch):
    assert install_hint("dask.distributed") == 'pip install "popresume[dask]" (or: pip install "dask[distributed]")'
    with pytest.raises(MissingExtraError, match="the thing needs the package 'no_such_pkg_xyz'.*pip install"):
        require("no_such_pkg_xyz", "the thing")
    # an ImportError raised inside an installed package is not mistaken for a missing extra
    (tmp_path / "brokenpkg_xyz").mkdir()
    (tmp_path / "brokenpkg_xyz" / "__init__.py").write_text("import another_missing_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as e:
        require("brokenpkg_xyz", "x")
    assert not isinstance(e.value, MissingExtraError) and e.value.name == "another_missing_xyz"
