"""The ``popresume`` command line: one verb per pipeline stage.

Each verb lives in its own module ``popresume/cli/<verb>.py`` that defines a
click command called ``command``; they are imported lazily so that
``popresume --help`` stays fast and a heavy dependency of one verb (torch, say)
is not loaded by another.
"""

from __future__ import annotations

import importlib

import click

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
    "leakage": "leakage",
    "book": "book",
}


class LazyGroup(click.Group):
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
def main():
    """Audit résumé screeners for discrimination: generate | render | serve | score | validate | estimate | audit | report | correspondence | leakage | book."""


if __name__ == "__main__":  # pragma: no cover
    main()
