"""The chapters narrate: their figures are drawn by ``popresume.plots``, their display options
set by one ``chapter_setup()`` call, and no code cell is longer than a reader takes in at once.

Each ``notebooks/*.py`` is read as jupytext percent cells (the same reader the book uses).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from popresume.book import read_notebook

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("*.py"))
MAX_CODE_LINES = 25
# a figure made in a chapter cell instead of a plotting function of popresume.plots
DRAWING = re.compile(r"\bplt\.(subplots|figure|subplot)\(")
SET_OPTION = re.compile(r"\bpd\.set_option\(")


def _code_cells(path: Path) -> list[tuple[int, list[str]]]:
    """(position, lines without trailing blanks) of each code cell of the chapter."""
    cells = []
    for k, cell in enumerate(read_notebook(path).cells):
        if cell.cell_type != "code":
            continue
        lines = cell.source.split("\n")
        while lines and not lines[-1].strip():
            lines.pop()
        cells.append((k, lines))
    return cells


def structure_problems(path: Path) -> list[str]:
    """What breaks the chapter rules in ``path``, one sentence each (empty when none)."""
    problems = []
    set_options = 0
    for k, lines in _code_cells(path):
        for line in lines:
            if DRAWING.search(line):
                problems.append(f"{path.name} cell {k}: draws a figure itself ({line.strip()!r}); "
                                f"call a function of popresume.plots")
            set_options += bool(SET_OPTION.search(line))
        if len(lines) > MAX_CODE_LINES:
            problems.append(f"{path.name} cell {k}: {len(lines)} lines of code (at most {MAX_CODE_LINES}); "
                            f"first line {lines[0].strip()!r}")
    if set_options:
        problems.append(f"{path.name}: {set_options} pd.set_option call(s); "
                        f"the display options are set by popresume.book.chapter_setup()")
    return problems


def test_chapters_found():
    assert len(CHAPTERS) >= 20, CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_narrates(path):
    assert structure_problems(path) == []


def test_structure_check_catches_each_rule(tmp_path):
    """The check fails on each thing it forbids, and passes the same chapter without them."""
    good = '# %% [markdown]\n# text\n\n# %%\nfrom popresume.book import chapter_setup\nchapter_setup()\n'
    (tmp_path / "good.py").write_text(good)
    assert structure_problems(tmp_path / "good.py") == []
    long_cell = "# %%\n" + "\n".join(f"x{i} = {i}" for i in range(MAX_CODE_LINES + 1)) + "\n"
    cases = {
        "subplots.py": good + "\n# %%\nfig, ax = plt.subplots()\n",
        "figure.py": good + "\n# %%\nfig = plt.figure(figsize=(3, 2))\n",
        "option.py": good + '\n# %%\npd.set_option("display.width", 120)\n',
        "long.py": good + "\n" + long_cell,
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        found = structure_problems(tmp_path / name)
        assert len(found) == 1, (name, found)
    exactly = "# %%\n" + "\n".join(f"x{i} = {i}" for i in range(MAX_CODE_LINES)) + "\n\n\n"
    (tmp_path / "exactly.py").write_text(exactly)
    assert structure_problems(tmp_path / "exactly.py") == []
