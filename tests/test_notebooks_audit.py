"""Chapters 08, 09 and 10a-10d execute end to end with small parameters, without errors or stderr output."""

import pytest

pytest.importorskip("papermill")

from popresume.paths import REPO_ROOT  # noqa: E402

GRID = {"sizes": 120, "occupations": ["accountant"], "seed": 1}
NB = REPO_ROOT / "notebooks"


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


def _text(path) -> str:
    return "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in _outputs(path))


@pytest.mark.notebook
@pytest.mark.slow
def test_published_results_chapter_runs_its_own_grid(tmp_path, monkeypatch):
    from popresume.book import run_notebook

    monkeypatch.setenv("POPRESUME_CACHE", str(tmp_path / "cache"))
    # the chapter's two default formats (text, image+photo): the one run of chapter 08 in the suite
    out = run_notebook(NB / "08_published_results.py",
                       {"own_size": 150, "own_n_boot": 20, "own_formats": ["text", "image+photo"]},
                       output=tmp_path / "08.ipynb")
    _check_clean(out)
    text = _text(out)
    assert "synthetic screener" in text and "min ESS" in text  # our rows name their screener and overlap
    # the chapter's own audits went through run_audit's cache, one estimate per format and attribute
    assert len(list((tmp_path / "cache" / "audit" / "estimates").glob("*.parquet"))) == 4


@pytest.mark.notebook
@pytest.mark.slow
def test_audit_chapters_run(tmp_path, monkeypatch):
    from popresume.book import run_notebook

    monkeypatch.setenv("POPRESUME_CACHE", str(tmp_path / "cache"))
    # chapter 9 at the book's card size (n_validity 40), so that chapters 10a-10d read its
    # cards as in the book; a smaller card here made 10a compute the n = 40 cards itself
    out9 = run_notebook(NB / "09_audit_grid.py", {**GRID, "n_boot": 20, "n_validity": 40}, output=tmp_path / "09.ipynb")
    _check_clean(out9)
    estimates = tmp_path / "cache" / "audit" / "estimates"
    n_cells = len(list(estimates.glob("*.parquet")))
    assert n_cells == 6  # 3 formats × 2 attributes, one screener each
    cards = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "cache" / "validity").glob("*.json")}
    assert len(cards) == 2  # one n = 40 card per screener of the grid (embedding, synthetic VLM)
    grid = {**GRID, "n_boot_grid": 20}
    small = {
        # smoke runs: the paper's influence variance, without the jackknife's ten refits per estimate
        "10a_coarsened_mediators": {**grid, "occupation": "accountant", "n": 500, "n_embed": 200, "n_ref": 2000,
                                    "n_boot": 20, "variance": "influence"},
        "10b_masking_multiplicity": grid,
        "10c_fourfifths_ll144": {**grid, "occupation": "accountant"},
        "10d_br_partition": {**grid, "occupation": "accountant", "n_boot": 20, "variance": "influence"},
    }
    for name, params in small.items():
        out = run_notebook(NB / f"{name}.py", params, output=tmp_path / f"{name}.ipynb")
        _check_clean(out)
        # chapters 10a-10d reuse chapter 9's grid and cards: no cell is estimated again, no card made again
        assert len(list(estimates.glob("*.parquet"))) == n_cells, name
        assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "cache" / "validity").glob("*.json")} == cards, name
    assert "disagreement (Holm)" in _text(tmp_path / "10c_fourfifths_ll144.ipynb")
