"""The causal chapters execute end to end with small parameters and print no warnings."""

import nbformat
import pytest

from popresume.book import run_notebook

pytestmark = pytest.mark.notebook

# chapter 07 runs (with the same small parameters, checked the same way) as the README's
# `book run` example in tests/test_readme_commands.py; chapter 08 (published results) in
# tests/test_notebooks_audit.py, with both of its formats: each chapter runs once in the suite
SMALL = {
    "06_identification.py": {"n": 20_000},
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_clean(name, tmp_path):
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "notebooks" / name
    out = run_notebook(path, SMALL[name], output=tmp_path / (path.stem + ".ipynb"), timeout=600)
    nb = nbformat.read(out, as_version=4)
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.get("output_type") != "error", o
            if o.get("output_type") == "stream" and o.get("name") == "stderr":
                pytest.fail(f"{name}: stderr output {o['text'][:300]!r}")
