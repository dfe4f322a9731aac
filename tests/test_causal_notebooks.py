"""The causal chapters execute end to end with small parameters and print no warnings."""

import nbformat
import pytest

from popresume.book import run_notebook

pytestmark = pytest.mark.notebook

# chapter 08 (published results) runs in tests/test_notebooks_audit.py, with both of its formats
SMALL = {
    "06_identification.py": {"n": 20_000},
    "07_estimation.py": {"n": 600, "reps": 4, "n_boot": 50, "n_demo": 1200, "refit_draws": 4},
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
