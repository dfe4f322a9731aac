"""Re-execution of chapters with new parameters: popresume.book and `popresume book run`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from popresume.book import parameters_of, parse_value, run_notebook
from popresume.cli import main
from popresume.paths import REPO_ROOT

CHAPTER0 = REPO_ROOT / "notebooks" / "00_causal_model.py"

TINY = '''# %% [markdown]
# # A tiny chapter
#
# Its parameters cell sets `x`, `label` and `sizes`.

# %% tags=["parameters"]
x = 1
label = "default"
sizes = {"nurse": 10}
factor: float = 2 * 1.5

# %%
import json
import re
import os

with open("result.json", "w") as fh:
    json.dump({"x2": x * factor, "label": label, "sizes": sizes, "cwd": os.getcwd()}, fh)
print("done", x)
'''


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    return path


def _outputs(nb) -> str:
    text = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text.append(out.get("text", ""))
            text.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(text)


def test_parameters_of_reads_literals_in_order(tiny):
    assert parameters_of(tiny) == {"x": 1, "label": "default", "sizes": {"nurse": 10}, "factor": 3.0}
    params = parameters_of(CHAPTER0)
    assert list(params)[:2] == ["n", "seed"]
    assert isinstance(params["n"], int) and params["n"] > 1000
    assert {"beta_x", "beta_b", "beta_r", "z_on_x"} <= set(params)


def test_parameters_of_requires_a_tagged_cell(tmp_path):
    path = tmp_path / "untagged.py"
    path.write_text("# %%\nx = 1\n")
    with pytest.raises(ValueError, match="tagged 'parameters'"):
        parameters_of(path)
    with pytest.raises(FileNotFoundError):
        parameters_of(tmp_path / "missing.py")


@pytest.mark.parametrize(
    "text, value",
    [
        ("3", 3),
        ("0.5", 0.5),
        ("1e3", 1000.0),
        ("True", True),
        ("true", True),
        ("None", None),
        ("null", None),
        ("['edu_group', 'exp_year']", ["edu_group", "exp_year"]),
        ("[a, b]", ["a", "b"]),
        ("{nurse: 200}", {"nurse": 200}),
        ("nurse", "nurse"),
        ("openai:gpt-4o@http://localhost:8000/v1", "openai:gpt-4o@http://localhost:8000/v1"),
    ],
)
def test_parse_value(text, value):
    assert parse_value(text) == value


def test_run_notebook_injects_parameters_and_uses_cwd(tiny, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    out = run_notebook(tiny, {"x": 21, "sizes": {"teacher": 3}}, output=tmp_path / "out" / "tiny.ipynb", cwd=work)
    assert out == tmp_path / "out" / "tiny.ipynb" and out.exists()
    result = json.loads((work / "result.json").read_text())
    assert result == {"x2": 63.0, "label": "default", "sizes": {"teacher": 3}, "cwd": str(work)}
    nb = nbformat.read(out, as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "x = 21" in injected[0].source
    assert "done 21" in _outputs(nb)


def test_run_notebook_rejects_unknown_parameters(tiny, tmp_path):
    with pytest.raises(ValueError, match="unknown parameter.*nope"):
        run_notebook(tiny, {"nope": 1}, output=tmp_path / "o.ipynb")


def test_run_notebook_failing_cell_raises_and_keeps_output(tmp_path):
    from papermill.exceptions import PapermillExecutionError

    path = tmp_path / "bad.py"
    path.write_text('# %% tags=["parameters"]\nk = 0\n\n# %%\n1 / k\n')
    out = tmp_path / "bad.ipynb"
    with pytest.raises(PapermillExecutionError, match="ZeroDivisionError"):
        run_notebook(path, {"k": 0}, output=out, cwd=tmp_path)
    assert out.exists()  # the partly executed notebook shows the traceback


def test_cli_book_run_reexecutes_chapter0(tmp_path):
    """`popresume book run` re-executes the causal-model chapter without a direct effect."""
    out = tmp_path / "ch0.ipynb"
    result = CliRunner().invoke(
        main,
        ["book", "run", str(CHAPTER0), "-p", "n", "4000", "-p", "beta_x", "0.0", "--out", str(out),
         "--cwd", str(tmp_path), "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert str(out) in result.output
    nb = nbformat.read(out, as_version=4)
    injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert "beta_x = 0.0" in injected.source and "n = 4000" in injected.source
    text = _outputs(nb)
    assert "all checks passed" in text
    # the table printed by the chapter has NDE = beta_x = 0 in its 'exact' column
    nde_row = next(line for line in text.splitlines() if line.startswith("NDE"))
    assert float(nde_row.split()[1]) == pytest.approx(0.0)
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {})
               for c in nb.cells for o in c.get("outputs", []))


def test_cli_book_run_reports_bad_parameter(tmp_path):
    result = CliRunner().invoke(main, ["book", "run", str(CHAPTER0), "-p", "no_such", "1",
                                       "--out", str(tmp_path / "x.ipynb")])
    assert result.exit_code != 0
    assert "no_such" in result.output


def test_cli_book_params_lists_defaults():
    result = CliRunner().invoke(main, ["book", "params", str(CHAPTER0)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"n = {parameters_of(CHAPTER0)['n']!r}"
    assert any(line.startswith("beta_x = ") for line in lines)


def test_every_chapter_has_a_literal_parameters_cell():
    """The contract: each chapter's first code cell is tagged parameters, with plain literals."""
    from popresume.book import read_notebook

    chapters = sorted((REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    assert CHAPTER0 in chapters
    for path in chapters:
        nb = read_notebook(path)
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert "parameters" in first_code.metadata.get("tags", []), f"{path.name}: first code cell not tagged"
        assert parameters_of(path), f"{path.name}: empty parameters cell"
        first_md = next(c for c in nb.cells if c.cell_type == "markdown")
        assert first_md.source.lstrip().startswith("# "), f"{path.name}: first markdown cell has no title"


def test_published_numbers_quoted_in_problem_page_match_the_paper_table():
    """book/problem.md quotes Table 4 (Mistral, construction laborers, text, gender) as published."""
    import pandas as pd

    path = REPO_ROOT / "data" / "published" / "popresume_published_pse.csv"
    table = pd.read_csv(path)
    row = table[(table.attribute == "gender") & (table.occupation == "Construction Laborers")
                & (table.format == "text") & table.model.str.startswith("Mistral")]
    assert len(row) == 1
    row = row.iloc[0]
    text = (REPO_ROOT / "book" / "problem.md").read_text().replace("−", "-")
    quoted = dict(re.findall(r"^\| (TE|NDE|NIE|BIE|RIE) \| (.+) \|$", text, flags=re.M))
    assert set(quoted) == {"TE", "NDE", "NIE", "BIE", "RIE"}
    for effect, cells in quoted.items():
        est, lo, hi = (float(v) for v in re.findall(r"-?\d+\.\d+", cells))
        assert (est, lo, hi) == pytest.approx(
            (row[f"{effect}_estimate"], row[f"{effect}_ci_low"], row[f"{effect}_ci_high"])), effect
    assert set(str(row["paper_cases"]).replace(" ", "").split(",")) == {"C1", "C2"}


def _tiny_book(root: Path, body: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "_config.yml").write_text("title: tiny\nexecute:\n  execute_notebooks: 'off'\n")
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (root / "intro.md").write_text(f"# Tiny\n\n{body}\n")
    return root


def test_cli_book_build_strict(tmp_path):
    """`popresume book build` wraps jupyter-book; with --strict a broken reference fails."""
    good = _tiny_book(tmp_path / "good", "Some text.")
    result = CliRunner().invoke(main, ["book", "build", "--path", str(good)])
    assert result.exit_code == 0, result.output
    assert (good / "_build" / "html" / "intro.html").exists()
    bad = _tiny_book(tmp_path / "bad", "See {doc}`no_such_page`.")
    result = CliRunner().invoke(main, ["book", "build", "--path", str(bad)])
    assert result.exit_code != 0
    assert "jupyter-book build failed" in result.output
    result = CliRunner().invoke(main, ["book", "build", "--path", str(bad), "--no-strict"])
    assert result.exit_code == 0, result.output


def test_every_chapter_is_a_lesson():
    """Each chapter states what it teaches, describes its parameters, and ends with exercises
    and solutions, at least one of which re-executes the chapter with `popresume book run`."""
    from popresume.book import read_notebook

    problems = []
    for path in sorted((REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        nb = read_notebook(path)
        md = [c.source for c in nb.cells if c.cell_type == "markdown"]
        first = md[0].lower() if md else ""
        if "what you will learn" not in first:
            problems.append(f"{path.name}: first markdown cell lacks 'What you will learn'")
        if "parameter" not in first:
            problems.append(f"{path.name}: first markdown cell does not describe the parameters cell")
        text = "\n".join(md)
        tail = text[text.rfind("## Exercises"):] if "## Exercises" in text else ""
        if not tail:
            problems.append(f"{path.name}: no '## Exercises' section")
            continue
        if not re.search(r"^:{3,}\{exercise\}", tail, flags=re.M) or not re.search(r"^:{3,}\{solution\}", tail, flags=re.M):
            problems.append(f"{path.name}: exercises without sphinx-exercise exercise/solution directives")
        if f"popresume book run notebooks/{path.name}" not in tail:
            problems.append(f"{path.name}: no exercise re-executes the chapter (popresume book run notebooks/{path.name})")
    assert not problems, "\n".join(problems)


def test_parameters_of_never_runs_code_from_the_notebook(tmp_path):
    """A parameters cell that escapes an empty-builtins eval must be refused, not run."""
    marker = tmp_path / "pwned.txt"
    escape = ("(lambda g: g['open'](" + repr(str(marker)) + ", g['O_CREAT'] | g['O_WRONLY']))("
              "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
              ".__init__.__globals__)")
    path = tmp_path / "crafted.py"
    path.write_text(f'# %% tags=["parameters"]\nn = 10\nx = {escape}\n')
    with pytest.raises(ValueError, match="'x' is not a plain literal"):
        parameters_of(path)
    assert not marker.exists()
    # plain arithmetic on numbers is still read
    ok = tmp_path / "ok.py"
    ok.write_text('# %% tags=["parameters"]\nn = 2 * 1000\nm = -3 + 0.5\n')
    assert parameters_of(ok) == {"n": 2000, "m": -2.5}


def test_run_notebook_refuses_a_file_without_parameters_cell(tmp_path):
    path = tmp_path / "untagged.py"
    path.write_text("# %%\nopen('ran.txt', 'w').write('x')\n")
    with pytest.raises(ValueError, match="tagged 'parameters'"):
        run_notebook(path, output=tmp_path / "o.ipynb", cwd=tmp_path)
    assert not (tmp_path / "ran.txt").exists()
    result = CliRunner().invoke(main, ["book", "run", str(path), "--out", str(tmp_path / "o.ipynb"),
                                       "--cwd", str(tmp_path), "--no-progress"])
    assert result.exit_code != 0 and "tagged 'parameters'" in result.output
    assert not (tmp_path / "ran.txt").exists()


def _params_notebook(path, source):
    """An .ipynb whose parameters cell has ``source`` as stored (any JSON value)."""
    cell = {"id": "params", "cell_type": "code", "execution_count": None, "metadata": {"tags": ["parameters"]},
            "outputs": [],
            "source": source}
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.mark.parametrize("source, message", [
    (5, "source is not text (a int)"),
    ({"x": 1}, "source is not text (a mapping)"),
    ("x = " + "1+" * 200_000 + "1", "nested too deeply"),
    ("x = " + "-" * 200_000 + "1", "nested too deeply"),
    ("x = " + "(" * 5_000 + "1" + ")" * 5_000, "does not parse"),
])
def test_cli_book_params_refuses_unreadable_cells_in_one_line(tmp_path, source, message):
    nb = _params_notebook(tmp_path / "odd.ipynb", source)
    result = CliRunner().invoke(main, ["book", "params", str(nb)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output and message in result.output, result.output
    assert "odd.ipynb" in result.output


def test_parameters_of_names_a_long_non_literal_briefly(tmp_path):
    nb = _params_notebook(tmp_path / "call.ipynb", "x = f(" + ", ".join(["1"] * 500) + ")")
    with pytest.raises(ValueError, match=r"parameter 'x' is not a plain literal: f\(1, 1.*…$"):
        parameters_of(nb)


@pytest.mark.parametrize("text", ["{nurse: 1, nurse: 2}", "{'nurse': 1, 'nurse': 2}", "[{a: 1, a: 2}]"])
def test_parse_value_refuses_duplicate_keys(text):
    with pytest.raises(ValueError, match="duplicate key"):
        parse_value(text)


def test_cli_book_run_refuses_duplicate_keys_before_running(tmp_path):
    out = tmp_path / "x.ipynb"
    result = CliRunner().invoke(main, ["book", "run", str(CHAPTER0), "-p", "n", "{nurse: 1, nurse: 2}",
                                       "--out", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "duplicate key 'nurse'" in result.output and "-p NAME VALUE" in result.output
    assert not out.exists()
