"""Chapters 09 and 10 execute end to end with small parameters, without warnings in their outputs."""

import pytest

pytest.importorskip("papermill")
pytest.importorskip("popresume.book")

from popresume.paths import REPO_ROOT  # noqa: E402

GRID = {"sizes": 120, "occupations": ["accountant"], "seed": 1}


def _outputs(path):
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            yield from cell.get("outputs", [])


def _check_clean(path):
    for o in _outputs(path):
        assert o.get("output_type") != "error", o
        if o.get("output_type") == "stream" and o.get("name") == "stderr":
            raise AssertionError(f"stderr output in {path.name}: {o.get('text', '')[:300]}")


@pytest.mark.notebook
@pytest.mark.slow
def test_audit_chapters_run(tmp_path, monkeypatch):
    from popresume.book import run_notebook

    monkeypatch.setenv("POPRESUME_CACHE", str(tmp_path / "cache"))
    out9 = run_notebook(REPO_ROOT / "notebooks" / "09_audit_grid.py", {**GRID, "n_boot": 20},
                        output=tmp_path / "09.ipynb")
    _check_clean(out9)
    out10 = run_notebook(REPO_ROOT / "notebooks" / "10_beyond_the_paper.py",
                         {**GRID, "n_boot_grid": 20, "occupation": "accountant", "n": 500, "n_embed": 200,
                          "n_ref": 2000, "n_boot": 20},
                         output=tmp_path / "10.ipynb")
    _check_clean(out10)
    text = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in _outputs(out10))
    assert "6 from the cache" in text  # chapter 10 reuses chapter 09's grid
