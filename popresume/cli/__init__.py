"""The ``popresume`` command line: one verb per pipeline stage.

Each verb lives in its own module ``popresume/cli/<verb>.py`` that defines a
click command called ``command``; they are imported lazily so that
``popresume --help`` stays fast and a heavy dependency of one verb (torch, say)
is not loaded by another.

User errors (bad input files, columns, values, configs; a missing optional package)
are printed as one ``Error:`` line from any verb; ``popresume --debug VERB ...`` shows
the traceback (see :mod:`popresume.cli._errors`).
"""

from __future__ import annotations

import importlib

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
