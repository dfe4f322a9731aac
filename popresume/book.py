"""Re-executing the book's chapters with new parameters.

The chapters are jupytext percent ``.py`` files in ``notebooks/``. Each has one code cell
tagged ``parameters`` (``# %% tags=["parameters"]``) holding plain literals; the book
builds with those defaults. :func:`run_notebook` converts a chapter to ``.ipynb``, lets
papermill inject new values right after the tagged cell (papermill's
``injected-parameters`` cell) and executes it; :func:`parameters_of` reads the defaults.
The command line wraps both: ``popresume book run notebooks/07_estimation.py -p n 2000``.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from popresume import yamlio
from popresume.extras import require

from .paths import CACHE_DIR, REPO_ROOT

__all__ = ["chapter_setup", "run_notebook", "parameters_of", "read_notebook", "parse_value", "default_output", "build_book", "student_config"]

PARAMETERS_TAG = "parameters"

# the page a chapter prints on: wide enough for the book's tables, never a label cut to "..."
PAGE_WIDTH = 200


def chapter_setup(*, width: int = PAGE_WIDTH, max_rows: int | None = None,
                  max_columns: int | None = None) -> None:
    """Set the display options every chapter shares, in one call from its first code cell.

    pandas prints tables ``width`` characters wide and never shortens a cell's text
    (``display.max_colwidth`` is unlimited), so a label a reader needs is never cut to "...".
    A chapter that prints a long table raises ``max_rows`` (pandas' default shows 60 rows);
    ``max_columns`` likewise. Nothing else is changed: figures keep Matplotlib's defaults and
    every seed stays a parameter of the chapter.

    Parameters
    ----------
    width : int, default 200
        Characters per printed line (``display.width``).
    max_rows : int or None, default None
        Rows printed before pandas elides the middle (``display.max_rows``); None leaves
        pandas' setting as it is.
    max_columns : int or None, default None
        Columns printed before pandas elides the middle (``display.max_columns``); None leaves
        pandas' setting as it is.

    Returns
    -------
    None

    Examples
    --------
    >>> import pandas as pd
    >>> from popresume.book import chapter_setup
    >>> chapter_setup(max_rows=1000)
    >>> pd.get_option("display.width"), pd.get_option("display.max_colwidth"), pd.get_option("display.max_rows")
    (200, None, 1000)
    """
    if width < 1:
        raise ValueError(f"chapter_setup: width must be a positive number of characters, got {width!r}")
    pd.set_option("display.width", width)
    pd.set_option("display.max_colwidth", None)
    if max_rows is not None:
        pd.set_option("display.max_rows", max_rows)
    if max_columns is not None:
        pd.set_option("display.max_columns", max_columns)


def read_notebook(path: str | os.PathLike):
    """The notebook at ``path`` as an ``nbformat`` node (``.py`` via jupytext, ``.ipynb`` as is)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"notebook not found: {path}")
    if path.suffix == ".ipynb":
        import nbformat  # the book extra (nbformat comes with jupytext and papermill)

        return nbformat.read(path, as_version=4)
    if path.suffix in {".py", ".md"}:
        jupytext = require("jupytext", "reading a jupytext chapter")

        fmt = "py:percent" if path.suffix == ".py" else None
        return jupytext.read(path, fmt=fmt)
    raise ValueError(f"not a notebook (expected .py, .md or .ipynb): {path}")


def _parameters_cell(nb, path) -> Any:
    for cell in nb.cells:
        if cell.cell_type == "code" and PARAMETERS_TAG in cell.get("metadata", {}).get("tags", []):
            return cell
    raise ValueError(
        f"{path}: no code cell tagged 'parameters' (write it as: # %% tags=[\"parameters\"])"
    )


def parameters_of(path: str | os.PathLike) -> dict[str, Any]:
    """The defaults in the notebook's ``parameters`` cell, in the order they are assigned.

    Values are read with :func:`ast.literal_eval` (the contract asks for plain literals);
    ``+ - * /`` between numbers (``2 * 1000``) is computed from the parsed tree. Nothing in
    the cell is executed: anything else raises a ``ValueError`` naming the variable.
    """
    nb = read_notebook(path)
    source = _parameters_cell(nb, path).source
    if not isinstance(source, str):
        kind = "mapping" if isinstance(source, Mapping) else type(source).__name__
        raise ValueError(f"{path}: the parameters cell's source is not text (a {kind})")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:
        raise ValueError(f"{path}: parameters cell does not parse: {e}") from e
    except (RecursionError, MemoryError) as e:  # the parser's own limits: nesting too deep
        raise ValueError(f"{path}: parameters cell does not parse: an expression is nested too deeply") from e
    params: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            continue
        try:
            params[name] = _literal(value)
        except (ValueError, TypeError, SyntaxError, ArithmeticError, RecursionError, MemoryError) as e:
            raise ValueError(
                f"{path}: parameter {name!r} is not a plain literal: {_shown(value)}"
            ) from e
    return params


def _shown(node: ast.AST, limit: int = 80) -> str:
    """The source of ``node`` for a message, cut to ``limit`` characters (a deeply nested
    expression cannot be unparsed at all: then only its line is named)."""
    try:
        text = ast.unparse(node)
    except (RecursionError, MemoryError):
        return f"(an expression nested too deeply, line {node.lineno})"
    return text if len(text) <= limit else text[:limit] + "…"


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b}


def _literal(node: ast.AST) -> Any:
    """A Python literal (:func:`ast.literal_eval`), or ``+ - * / //`` between numbers
    (``2 * 1000``). Nothing is ever evaluated: no name, call, attribute or subscript is read."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        a, b = _literal(node.left), _literal(node.right)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
            raise ValueError("arithmetic is allowed on numbers only")
        return _ARITHMETIC[type(node.op)](a, b)
    raise ValueError("not a literal")


def parse_value(text: str) -> Any:
    """A command-line value: a Python literal (``3``, ``0.5``, ``True``, ``None``, ``['a', 'b']``),
    else YAML (``true``, ``[a, b]``, ``{nurse: 200}``), else the string itself.

    A mapping that gives one key twice (``{nurse: 1, nurse: 2}``, in either syntax) raises
    a ``ValueError`` naming the key: both parsers would keep the last value without a word.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
        value = ast.literal_eval(tree)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    else:
        _refuse_duplicate_keys(tree, text)
        return value
    try:
        value = yamlio.load(text)
    except yaml.constructor.ConstructorError as e:
        if "duplicate key" in str(e.problem):
            raise ValueError(f"value {text!r}: {e.problem}") from None
        return text
    except Exception:
        return text
    if text.strip() and _holds_none(value) and not _NULL_WORD.search(text):
        return text  # "-" or "a:": YAML fills an empty node with null; the text never said so
    return value


_NULL_WORD = re.compile(r"~|(?<![\w.])(?:null|Null|NULL)(?![\w.])")


def _holds_none(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_holds_none(v) for v in value.values()) or None in value
    if isinstance(value, list):
        return any(_holds_none(v) for v in value)
    return False


def _refuse_duplicate_keys(tree: ast.AST, text: str) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [ast.literal_eval(k) for k in node.keys if k is not None]
            seen = set()
            for key in keys:
                if key in seen:
                    raise ValueError(f"value {text!r}: duplicate key {key!r}; write each key once")
                seen.add(key)


def default_output(path: str | os.PathLike) -> Path:
    """Where :func:`run_notebook` writes an executed chapter unless told otherwise.

    Never next to the source: an ``.ipynb`` beside ``notebooks/NN_x.py`` would be a second
    source for the same page of the book.
    """
    out = CACHE_DIR / "notebooks" / f"{Path(path).stem}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def run_notebook(
    path: str | os.PathLike,
    parameters: Mapping[str, Any] | None = None,
    output: str | os.PathLike | None = None,
    cwd: str | os.PathLike | None = None,
    timeout: int | None = 1800,
    *,
    kernel_name: str = "python3",
    strict: bool = True,
    progress: bool = False,
) -> Path:
    """Execute one chapter with ``parameters`` injected; return the executed ``.ipynb``.

    Parameters
    ----------
    path : a jupytext ``.py`` (percent format) or an ``.ipynb``.
    parameters : ``{name: value}``; each name must be a variable of the ``parameters``
        cell (``strict=False`` lets papermill merely warn about unknown names).
    output : the executed notebook; default ``_cache/notebooks/<stem>.ipynb``.
    cwd : the kernel's working directory; default the notebook's own folder, as in the
        book build.
    timeout : seconds allowed per cell (``None``: no limit).

    A failing cell raises papermill's ``PapermillExecutionError``; the partly executed
    notebook is still written to ``output`` so the traceback can be read there.
    """
    pm = require("papermill", "re-running a chapter")

    path = Path(path)
    parameters = dict(parameters or {})
    nb = read_notebook(path)
    _parameters_cell(nb, path)  # a chapter without one is not a chapter (and papermill would append the values)
    if parameters and strict:
        known = parameters_of(path)
        unknown = sorted(set(parameters) - set(known))
        if unknown:
            raise ValueError(
                f"{path}: unknown parameter(s) {', '.join(unknown)}; the parameters cell defines "
                f"{', '.join(known) or 'nothing'}"
            )

    output = Path(output) if output is not None else default_output(path)
    output.parent.mkdir(parents=True, exist_ok=True)
    cwd = Path(cwd) if cwd is not None else path.resolve().parent

    nb.metadata.setdefault("kernelspec", {"name": kernel_name, "display_name": "Python 3", "language": "python"})
    nb.metadata["kernelspec"]["name"] = kernel_name
    import nbformat  # the book extra (nbformat comes with jupytext and papermill)

    # papermill reads an .ipynb: write the converted chapter to a temporary file first.
    with tempfile.TemporaryDirectory(prefix="popresume-book-") as tmp:
        src = Path(tmp) / f"{path.stem}.ipynb"
        nbformat.write(nb, src)
        env_before = os.environ.get("PYTHONPATH")
        # the kernel must import this checkout of popresume even outside the repository
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env_before) if p)
        try:
            pm.execute_notebook(
                str(src),
                str(output),
                parameters=parameters,
                kernel_name=kernel_name,
                cwd=str(cwd),
                progress_bar=progress,
                execution_timeout=timeout,
                request_save_on_cell_execute=False,
            )
        finally:
            if env_before is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = env_before
    return output


def student_config(config: Mapping[str, Any]) -> dict:
    """The book's configuration (``_config.yml`` as a dict) for the student edition: the
    same, with sphinx-exercise's ``hide_solutions`` on and no repository, issues, edit or
    launch (Binder) button, since each opens the full chapters. The ``student_edition`` extension
    that ``_config.yml`` loads then also strips the solutions from the sources the edition
    ships (``_sources/``, the download button's target)."""
    import copy

    out = copy.deepcopy(dict(config))
    sphinx = out.setdefault("sphinx", {}) or {}
    out["sphinx"] = sphinx
    extensions = sphinx.get("local_extensions") or {}
    if "student_edition" not in extensions:
        raise ValueError(
            "_config.yml: sphinx.local_extensions has no 'student_edition' (book/_ext/student_edition.py); "
            "without it the student edition would ship its solutions in _sources/"
        )
    sphinx.setdefault("config", {})
    sphinx["config"] = {**(sphinx["config"] or {}), "hide_solutions": True}
    # No button on a student page may lead to the full chapters: the repository, issues and
    # edit buttons open the sources with their solutions, and Binder launches them.
    out["html"] = {**(out.get("html") or {}), "use_repository_button": False, "use_issues_button": False,
                   "use_edit_page_button": False}
    out["launch_buttons"] = {**(out.get("launch_buttons") or {}), "binderhub_url": "", "jupyterhub_url": "",
                             "colab_url": "", "thebe": False}
    return out


def build_book(
    path: str | os.PathLike = REPO_ROOT,
    *,
    strict: bool = True,
    all_pages: bool = False,
    students: str | os.PathLike | None = None,
) -> int:
    """Run ``jupyter-book build`` on ``path`` (the repository root); return its exit code.

    ``strict`` adds ``-W -n --keep-going`` (warnings, including broken references, fail
    the build), as ``make book`` and CI do. ``students``: build the student edition
    (:func:`student_config`) into ``students/_build/html`` instead of the book.
    """
    exe = shutil.which("jupyter-book") or str(Path(sys.executable).with_name("jupyter-book"))
    path = Path(path).resolve()
    cmd = [exe, "build", str(path)]
    if strict:
        cmd += ["-W", "-n", "--keep-going"]
    if all_pages:
        cmd.append("--all")
    # cwd: the configuration's relative paths (the execution cache) are the book's
    if students is None:
        return subprocess.call(cmd, cwd=path)
    source = Path(path) / "_config.yml"
    if not source.is_file():
        raise ValueError(f"{source}: no _config.yml to derive the student edition from")
    config = student_config(yamlio.load(source.read_text(encoding="utf-8")) or {})
    # jupyter-book reads local extensions' folders relative to the configuration file
    local = config["sphinx"]["local_extensions"]
    config["sphinx"]["local_extensions"] = {name: str(path / folder) for name, folder in local.items()}
    with tempfile.TemporaryDirectory(prefix="popresume-students-") as tmp:
        student_yml = Path(tmp) / "_config_students.yml"
        student_yml.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
        cmd += ["--config", str(student_yml), "--path-output", str(Path(students).resolve())]
        return subprocess.call(cmd, cwd=path)
