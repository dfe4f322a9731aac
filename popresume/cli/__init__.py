"""The ``popresume`` command line: one verb per pipeline stage.

Each verb lives in its own module ``popresume/cli/<verb>.py`` that defines a
click command called ``command``; they are imported lazily so that
``popresume --help`` stays fast and a heavy dependency of one verb (torch, say)
is not loaded by another. A verb's module imports what it runs at its top, so the
list of verbs in ``popresume --help`` reads each one's line from its source
(:func:`verb_short_help`) and imports none of them.

User errors (bad input files, columns, values, configs; a missing optional package)
are printed as one ``Error:`` line from any verb; ``popresume --debug VERB ...`` shows
the traceback (see :mod:`popresume.cli._errors`).
"""

from __future__ import annotations

import ast
import importlib
from gettext import gettext as _
from pathlib import Path

import click

from popresume.cli._errors import DEBUG_KEY, UserErrorGroup, quiet_warnings

# verb -> module under popresume.cli, in pipeline order
VERBS: dict[str, str] = {
    "data": "data",
    "generate": "generate",
    "render": "render",
    "serve": "serve",
    "score": "score",
    "validate": "validate",
    "estimate": "estimate",
    "audit": "audit",
    "report": "report",
    "correspondence": "correspondence",
    "ranking": "ranking",
    "decisions": "decisions",
    "leakage": "leakage",
    "book": "book",
}


class LazyGroup(UserErrorGroup):
    def list_commands(self, ctx):
        return [v for v in VERBS if importlib.util.find_spec(f"popresume.cli.{VERBS[v]}") is not None]

    def get_command(self, ctx, name):
        if name not in VERBS:
            return None
        try:
            mod = importlib.import_module(f"popresume.cli.{VERBS[name]}")
        except ModuleNotFoundError as e:
            if e.name == f"popresume.cli.{VERBS[name]}":
                return None
            raise
        return mod.command

    def format_commands(self, ctx, formatter):
        # as click's own, but each verb's line is read from its source: a verb's module imports
        # what it runs at its top, and `popresume --help` need not import any of them
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            text = verb_short_help(VERBS[name], limit)
            if text is None:  # the decorator says more than the docstring: ask the command
                cmd = self.get_command(ctx, name)
                if cmd is None or cmd.hidden:
                    continue
                text = cmd.get_short_help_str(limit)
            rows.append((name, text))
        if rows:
            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


def verb_short_help(module: str, limit: int) -> str | None:
    """The one-line help ``popresume --help`` shows for the verb in ``popresume/cli/<module>.py``:
    click's shortening of the docstring of its ``command`` function, read with :mod:`ast`
    (nothing imported). None when the decorator passes ``help``, ``short_help``, ``hidden``
    or ``deprecated`` (the command itself then says)."""
    path = Path(__file__).with_name(f"{module}.py")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name == "command":
            made = [d for d in node.decorator_list if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                    and d.func.attr in ("command", "group")]  # @click.command(...) / @click.group(...)
            said = {k.arg for d in made for k in d.keywords}
            if len(made) != 1 or None in said or said & {"help", "short_help", "hidden", "deprecated"}:
                return None
            doc = ast.get_docstring(node, clean=False)
            return click.Command(module, help=doc).get_short_help_str(limit)
    return None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="popresume")
@click.option("--debug", is_flag=True, envvar="POPRESUME_DEBUG",
              help="Show the full traceback of an error (default: one line saying what is wrong).")
@click.pass_context
def main(ctx, debug):
    """Audit résumé screeners for discrimination: generate | render | serve | score | validate | estimate | audit | report | correspondence | ranking | decisions | leakage | book."""
    ctx.meta[DEBUG_KEY] = debug
    if not debug:
        quiet_warnings(ctx)


if __name__ == "__main__":  # pragma: no cover
    main()
