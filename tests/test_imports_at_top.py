"""A module says what it depends on at its top: no import of the package, or of a core
dependency, hides inside a function.

An import written inside a function hides a dependency from a reader of the module's head
(and from ``tests/test_import_graph.py``'s reader only until it looks inside functions).
This test reads every module of ``popresume`` with :mod:`ast` (nothing is imported) and fails
on a function-level import of

* a module of the package (``popresume...`` or a relative import), or
* a third-party module that is not an optional extra (:data:`popresume.extras.EXTRAS`:
  torch, transformers, dask, great_tables, ... may be imported where they are used, so the
  core imports without them),

unless the import's line carries a comment saying why it stays there (an optional package
that is not an extra, a figure backend chosen late, a lazy attribute of a package). The
standard library is not checked.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

import popresume
from popresume.extras import EXTRAS

ROOT = Path(popresume.__file__).parent

#: Modules excused while another change was rewriting them (none now).
SKIP: set[str] = set()


def _commented_lines(source: str) -> set[int]:
    """Line numbers that hold a comment (tokens, so a ``#`` inside a string is not one)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {t.start[0] for t in tokens if t.type == tokenize.COMMENT}


def _imported_top(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The top-level names an import loads (the package's own name for a relative import)."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    return [package if node.level else (node.module or "").split(".")[0]]


def hidden_imports(root: Path = ROOT, optional=frozenset(EXTRAS)) -> list[str]:
    """``path:line: import`` for every function-level import of the package or of a
    non-optional third-party module that carries no comment, in every module under ``root``."""
    package, found = root.name, []
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        commented = _commented_lines(source)
        functions = [n for n in ast.walk(ast.parse(source, filename=str(path)))
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        seen: set[int] = set()
        for fn in functions:
            for node in ast.walk(fn):
                if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in seen:
                    continue
                seen.add(node.lineno)  # an import in a nested function is met once per enclosing one
                tops = _imported_top(node, package)
                checked = [t for t in tops if t == package or (t not in stdlib and t not in optional)]
                if checked and not commented & set(range(node.lineno, node.end_lineno + 1)):
                    rel = path.relative_to(root.parent).as_posix()
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return found


# ---------------------------------------------------------------------------- the checker itself
def test_the_checker_on_a_small_package(tmp_path):
    pkg = tmp_path / "toy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "import json\n"
        "from toy import b\n"  # module level: fine
        "\n"
        "def f():\n"
        "    import os  # the standard library is not checked\n"
        "    import torch\n"  # an optional extra
        "    from toy.b import g\n"  # hidden: the package
        "    from . import c\n"  # hidden: relative
        "    import numpy as np\n"  # hidden: a core dependency
        "    from toy import (\n"
        "        d,  # why it stays here\n"
        "    )\n"
        "    s = '# not a comment'; from toy import e\n"
        "\n"
        "    def inner():\n"
        "        import pandas\n"  # hidden, inside a nested function
        "    return g\n")
    found = hidden_imports(pkg, optional={"torch"})
    assert found == ["toy/a.py:7: from toy.b import g", "toy/a.py:8: from . import c",
                     "toy/a.py:9: import numpy as np", "toy/a.py:13: from toy import e",
                     "toy/a.py:16: import pandas"], found
    assert hidden_imports(pkg, optional={"torch", "numpy", "pandas"})[2:] == ["toy/a.py:13: from toy import e"]


# ---------------------------------------------------------------------------- the package
def test_imports_of_the_package_and_its_core_dependencies_are_at_the_top():
    found = [f for f in hidden_imports() if f.split(":")[0] not in SKIP]
    assert not found, ("function-level imports without a comment saying why (move them to the top of the "
                       "module, or comment the line: an optional package, a real import cycle):\n"
                       + "\n".join(found))


def test_the_skip_list_names_modules_of_the_package():
    missing = sorted(p for p in SKIP if not (ROOT.parent / p).is_file())
    assert not missing, missing


# ---------------------------------------------------------------------------- the command line
def test_the_verb_list_is_the_commands_own_help_and_imports_no_verb():
    """``popresume --help`` reads each verb's line from its source (its modules import what
    they run at their top): the lines are click's own, and no verb module is loaded."""
    import importlib
    import subprocess

    from popresume.cli import VERBS, verb_short_help

    for module in VERBS.values():
        command = importlib.import_module(f"popresume.cli.{module}").command
        for limit in (20, 45, 70):
            assert verb_short_help(module, limit) == command.get_short_help_str(limit), (module, limit)
    code = ("import sys\nfrom popresume.cli import main\ntry:\n    main(['--help'], prog_name='popresume')\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m.startswith('popresume.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "Commands:" in out and all(f"  {verb} " in out for verb in VERBS), out
    assert out.strip().splitlines()[-1] == "['popresume.cli._errors']", out
