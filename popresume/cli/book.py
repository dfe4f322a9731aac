"""``popresume book``: re-execute one chapter with new parameters, list a chapter's
parameters, or build the whole book.

    popresume book run notebooks/07_estimation.py -p n 2000 -p seed 1 --out run.ipynb
    popresume book params notebooks/00_causal_model.py
    popresume book build
"""

from __future__ import annotations

import click

from popresume.book import build_book, default_output, parameters_of, parse_value, run_notebook
from popresume.cli._errors import OutPath
from popresume.extras import require
from popresume.paths import REPO_ROOT


@click.group(name="book", context_settings={"help_option_names": ["-h", "--help"]})
def command():
    """Re-execute the book's chapters (papermill) or build the book (jupyter-book)."""


@command.command("run")
@click.argument("notebook", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-p",
    "--parameter",
    "parameters",
    nargs=2,
    multiple=True,
    metavar="NAME VALUE",
    help="Set a variable of the chapter's parameters cell; VALUE is a Python literal or YAML "
    "(3, 0.5, True, \"['edu_group']\", '{nurse: 200}'), else a string. Repeatable.",
)
@click.option("--out", "output", type=OutPath((".ipynb",), what="executed notebook"), default=None,
              help="Executed notebook (.ipynb); default _cache/notebooks/<name>.ipynb.")
@click.option("--cwd", type=click.Path(file_okay=False), default=None,
              help="Working directory of the kernel; default the notebook's folder.")
@click.option("--timeout", type=int, default=1800, show_default=True, help="Seconds allowed per cell.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def run(notebook, parameters, output, cwd, timeout, progress):
    """Execute NOTEBOOK (a jupytext .py chapter or an .ipynb) with new parameters."""
    PapermillExecutionError = require("papermill.exceptions", "popresume book run").PapermillExecutionError

    values = {}
    for name, raw in parameters:
        if not name.isidentifier():
            raise click.BadParameter(f"{name!r} is not a variable name", param_hint="-p NAME VALUE")
        try:
            values[name] = parse_value(raw)
        except ValueError as e:
            raise click.BadParameter(f"{name}: {e}", param_hint="-p NAME VALUE") from None
    for name, value in values.items():
        click.echo(f"  {name} = {value!r}", err=True)
    target = output or default_output(notebook)
    try:
        out = run_notebook(notebook, values, output=output, cwd=cwd, timeout=timeout, progress=progress)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    except PapermillExecutionError as e:
        raise click.ClickException(
            f"a cell failed ({e.ename}: {e.evalue}); the partly executed notebook is {target}"
        ) from e
    click.echo(str(out))


@command.command("params")
@click.argument("notebook", type=click.Path(exists=True, dir_okay=False))
def params(notebook):
    """Print the parameters (and their book defaults) of NOTEBOOK."""
    try:
        values = parameters_of(notebook)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    for name, value in values.items():
        click.echo(f"{name} = {value!r}")


@command.command("build")
@click.option("--path", type=click.Path(exists=True, file_okay=False), default=None,
              help="Book root (holding _config.yml and _toc.yml); default the repository.")
@click.option("--strict/--no-strict", default=True, show_default=True,
              help="-W -n --keep-going: any warning or broken reference fails the build.")
@click.option("--all", "all_pages", is_flag=True, help="Rebuild every page, not only changed ones.")
@click.option("--students", type=click.Path(file_okay=False), default=None,
              help="Build the student edition (no solution on any page or in any shipped source) "
              "into STUDENTS/_build/html instead of the book.")
def build(path, strict, all_pages, students):
    """Build the book into _build/html (executes changed chapters; see _config.yml)."""
    try:
        rc = build_book(path or REPO_ROOT, strict=strict, all_pages=all_pages, students=students)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    where = f"{students}/_build/html" if students else "_build/html"
    if rc:
        raise click.ClickException(
            f"jupyter-book build failed (exit {rc}); execution reports are in {where}/reports"
        )
