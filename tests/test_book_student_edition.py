"""The student edition (`popresume book build --students DIR`) ships no solution in any file.

sphinx-exercise's ``hide_solutions`` removes the solutions from the pages; the
``student_edition`` extension (book/_ext/student_edition.py, loaded by _config.yml)
removes them from the sources copied into ``_sources/`` (the download button's target).
The end-to-end test builds a two-page book with the repository's own ``_config.yml`` and
extensions through the same command the course guide gives instructors, so nothing of
the real book is executed.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from popresume.book import build_book, student_config
from popresume.cli import main
from popresume.paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location("student_edition", REPO_ROOT / "book" / "_ext" / "student_edition.py")
student_edition = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(student_edition)
strip_solutions = student_edition.strip_solutions

OPENS_SOLUTION = re.compile(r"(?m)^\s*(#\s?)?\s*(`{3,}|:{3,})\{solution")
OPENS_EXERCISE = re.compile(r"(?m)^\s*(#\s?)?\s*(`{3,}|:{3,})\{exercise\}")


# --------------------------------------------------------------------------------------
# stripping one source
# --------------------------------------------------------------------------------------
def test_strip_removes_a_commented_solution_with_nested_blocks_and_keeps_the_rest():
    src = textwrap.dedent("""\
        # %% [markdown]
        # ::::{exercise}
        # :label: ex-a
        #
        # Keep this exercise.
        # ::::
        #
        # ::::{solution} ex-a
        # :class: dropdown
        #
        # Secret answer.
        #
        # ```python
        # beta = 1
        # ```
        #
        # :::{note}
        # Secret note.
        # :::
        # ::::
        #
        # After the solution.

        # %%
        print("code stays")
        """)
    out = strip_solutions(src, commented=True)
    assert "Secret" not in out and "beta = 1" not in out and "{solution" not in out
    example = "```text\n:::{solution} ex-z\nAn example.\n:::\n```\n"
    assert strip_solutions(example) == example  # a solution shown in a code block is text
    assert "Keep this exercise." in out and "After the solution." in out and 'print("code stays")' in out
    assert out.count("::::") == 2  # the exercise's fences only


def test_strip_handles_markdown_backtick_fences_and_gated_solutions():
    src = textwrap.dedent("""\
        Intro.

        ````{solution} ex-b
        ```python
        x = 42
        ```
        ````

        ```{solution-start} ex-c
        ```
        Gated secret.
        ```{solution-end}
        ```

        Outro.
        """)
    out = strip_solutions(src)
    assert "42" not in out and "Gated secret" not in out and "solution" not in out
    assert out.startswith("Intro.") and "Outro." in out


def test_strip_file_cleans_markdown_cells_of_a_notebook(tmp_path):
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": [":::{solution} ex-d\n", "Hidden.\n", ":::\n", "Shown.\n"]},
        {"cell_type": "code", "metadata": {}, "source": "y = 2\n", "outputs": [], "execution_count": None},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps(nb))
    assert student_edition.strip_file(path) is True
    cells = json.loads(path.read_text())["cells"]
    assert cells[0]["source"] == "Shown.\n" and cells[1]["source"] == "y = 2\n"
    assert student_edition.leaks(tmp_path) == []


def book_sources() -> list[Path]:
    files = sorted((REPO_ROOT / "notebooks").glob("*.py")) + sorted((REPO_ROOT / "book").glob("*.md"))
    return [p for p in files if "{solution" in p.read_text(encoding="utf-8")]


def solution_sentences(text: str, commented: bool) -> list[str]:
    """Long prose lines that occur only inside solution blocks of ``text``."""
    kept = set(strip_solutions(text, commented).splitlines())
    lines = [line for line in text.splitlines() if len(line.strip("# ")) > 40]
    return [line for line in lines if line not in kept]


@pytest.mark.parametrize("path", book_sources(), ids=lambda p: p.name)
def test_the_books_own_sources_lose_every_solution_and_keep_every_exercise(path):
    text = path.read_text(encoding="utf-8")
    commented = path.suffix == ".py"
    out = strip_solutions(text, commented=commented)
    assert strip_solutions(out, commented=commented) == out, f"{path.name}: a solution directive survives"
    assert len(OPENS_EXERCISE.findall(out)) == len(OPENS_EXERCISE.findall(text)), f"{path.name}: an exercise was lost"
    if path.name == "course_guide.md":  # shows a solution only as an example, in a code block
        assert out == text
        return
    assert solution_sentences(text, commented), f"{path.name}: nothing was removed"
    if commented:  # the stripped chapter is still a notebook with every code cell
        assert out.count("\n# %%") == text.count("\n# %%")
    assert not OPENS_SOLUTION.search(out)


def test_student_config_adds_hide_solutions_and_requires_the_extension():
    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text())
    students = student_config(config)
    assert students["sphinx"]["config"]["hide_solutions"] is True
    assert "hide_solutions" not in config["sphinx"]["config"]  # the book's own config is untouched
    changed = {"sphinx", "html", "launch_buttons"}
    assert {k: v for k, v in students.items() if k not in changed} == {k: v for k, v in config.items() if k not in changed}
    # no button leads from a student page to the full chapters
    assert not students["html"]["use_repository_button"] and not students["html"]["use_issues_button"]
    assert not students["launch_buttons"]["binderhub_url"]
    assert config["launch_buttons"]["binderhub_url"]  # the default edition keeps its Binder button
    del config["sphinx"]["local_extensions"]["student_edition"]
    with pytest.raises(ValueError, match="student_edition"):
        student_config(config)


# --------------------------------------------------------------------------------------
# a tiny book built as the course guide says
# --------------------------------------------------------------------------------------
MARKDOWN_PAGE = """\
# Tiny intro

:::{exercise}
:label: ex-tiny-md

Exercise text from the markdown page.
:::

:::{solution} ex-tiny-md
:class: dropdown

Zanzibar-solution from the markdown page.
:::
"""

NOTEBOOK_PAGE = """\
# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Tiny chapter
#
# ::::{exercise}
# :label: ex-tiny-nb
#
# Exercise text from the notebook page.
# ::::
#
# ::::{solution} ex-tiny-nb
# :class: dropdown
#
# Quetzal-solution from the notebook page:
#
# ```python
# answer = "Quetzal-code"
# ```
#
# :::{note}
# Quetzal-note inside the solution.
# :::
# ::::

# %%
print("tiny" + "-output")
"""

MARKERS = ("Zanzibar-solution", "Quetzal-solution", "Quetzal-code", "Quetzal-note")


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tiny-book")
    shutil.copy(REPO_ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(REPO_ROOT / "book" / "_ext", root / "book" / "_ext",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "book" / "references.bib", root / "book" / "references.bib")
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: notebooks/tiny\n")
    (root / "intro.md").write_text(MARKDOWN_PAGE)
    (root / "notebooks").mkdir()
    (root / "notebooks" / "tiny.py").write_text(NOTEBOOK_PAGE)
    return root


def files_with(html: Path, needles) -> dict[str, list[str]]:
    found = {}
    for path in sorted(html.rglob("*")):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", errors="ignore")
            hits = [n for n in needles if n in text]
            if hits:
                found[str(path.relative_to(html))] = hits
    return found


@pytest.mark.slow
def test_student_edition_contains_no_solution_text_in_any_file(tiny_book, tmp_path):
    out = tmp_path / "student-edition"
    result = CliRunner().invoke(main, ["book", "build", "--path", str(tiny_book), "--students", str(out)])
    html = out / "_build" / "html"
    assert result.exit_code == 0, result.output
    assert (html / "notebooks" / "tiny.html").is_file()
    assert files_with(html, MARKERS) == {}
    # the exercises are there, on the pages and in the downloadable sources
    shown = files_with(html, ("Exercise text from the markdown page", "Exercise text from the notebook page",
                              "tiny-output"))
    assert "intro.html" in shown and "notebooks/tiny.html" in shown
    assert "_sources/notebooks/tiny.py" in shown and "_sources/intro.md" in shown
    # the download button points at the stripped copy
    page = (html / "notebooks" / "tiny.html").read_text()
    assert 'href="../_sources/notebooks/tiny.py"' in page
    # and no link leads to the full source: no repository, Binder or issues button
    for link in ("github.com/popresume", "mybinder.org"):
        assert link not in page, link


@pytest.mark.slow
def test_default_edition_of_the_same_book_has_the_solutions(tiny_book):
    """The same markers are found when solutions are not hidden: the search above can fail."""
    assert build_book(tiny_book) == 0
    found = files_with(tiny_book / "_build" / "html", MARKERS)
    assert set(MARKERS) <= {m for hits in found.values() for m in hits}
    assert "_sources/notebooks/tiny.py" in found and "notebooks/tiny.html" in found
