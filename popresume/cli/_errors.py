"""User errors on the command line: one line a user can act on, a traceback only with --debug.

How a verb uses this (every verb, whoever owns it):

* Bad input found by the package (a ``ValueError`` naming the file, column or value, an
  ``OSError`` such as a missing file, a :class:`~popresume.extras.MissingExtraError`)
  needs nothing: the ``popresume`` group (:class:`UserErrorGroup`) prints it as
  ``Error: <message>`` and exits 1. ``popresume --debug VERB ...`` (or
  ``POPRESUME_DEBUG=1``) shows the traceback instead. Any other exception is a bug and
  keeps its traceback.
* A verb that finds a problem itself raises :class:`UserError` (or ``click.UsageError``
  for a bad combination of options).
* A ``--seed`` option is declared with ``type=SEED`` (refused at parse time when negative).
* Output paths are checked while the options are parsed, before any work: declare them
  with ``type=OutPath((".parquet",), what="scores")`` (a file) or ``type=OutDir()`` (a
  folder). A wrong suffix (``--out s.csv`` for Parquet) or a folder that cannot be
  written is refused at once.
* Print the results, then write them, so that a failed write does not lose them.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Iterable

import click

from popresume.errors import StoppedRun
from popresume.extras import EXTRAS, MissingExtraError, install_hint
from popresume.io import check_suffix

DEBUG_KEY = "popresume.debug"
#: Exceptions that are a user's input problem, not a bug: reported in one line.
USER_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, MissingExtraError, StoppedRun)


class UserError(click.ClickException):
    """A problem with the user's input, found by the CLI: printed as one line, exit 1."""


def one_line(exc: BaseException) -> str:
    """The exception's message on one line (a FileNotFoundError keeps its path)."""
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None and str(exc.filename) not in text:
        text = f"{text}: {exc.filename}"
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def debug_enabled(ctx: click.Context | None = None) -> bool:
    ctx = ctx or click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    if root is not None and DEBUG_KEY in root.meta:  # --debug, or POPRESUME_DEBUG as click parsed it
        return bool(root.meta[DEBUG_KEY])
    return os.environ.get("POPRESUME_DEBUG", "") not in ("", "0")


class UserErrorGroup(click.Group):
    """A click group that turns :data:`USER_ERRORS` from any subcommand into one line."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except USER_ERRORS as e:
            if debug_enabled(ctx):
                raise
            raise UserError(f"{one_line(e)}  [popresume --debug: traceback]") from None
        except ModuleNotFoundError as e:  # an optional package imported without extras.require
            if debug_enabled(ctx) or (e.name or "").split(".", 1)[0] not in EXTRAS:
                raise
            raise UserError(f"this command needs the package {EXTRAS[e.name.split('.', 1)[0]][0]!r}, which is "
                            f"not installed; {install_hint(e.name)}") from None


def _short_warning(message, category, filename, lineno, line=None):
    return f"warning ({category.__name__}): {message}\n"


def quiet_warnings(ctx: click.Context) -> None:
    """Show warnings as ``warning (Category): message`` without the source line while
    ``ctx`` runs (the previous format is restored when it closes)."""
    old = warnings.formatwarning
    warnings.formatwarning = _short_warning
    ctx.call_on_close(lambda: setattr(warnings, "formatwarning", old))


def _writable_folder(folder: Path) -> Path | None:
    """The nearest existing ancestor of ``folder`` when no file can be created in it, else None."""
    p = folder.resolve()
    while not p.exists():
        p = p.parent
    if not p.is_dir():
        return p
    try:  # os.access says yes to root everywhere; creating a file is the real test
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError:
        return p
    return None


#: The type of every ``--seed`` option: the seeds numpy, scikit-learn and XGBoost accept
#: (a negative seed was refused deep inside numpy with a message naming no option).
SEED = click.IntRange(0, 2**32 - 1)


class OutPath(click.Path):
    """An output file option checked at parse time: suffix and a writable folder."""

    name = "file"

    def __init__(self, suffixes: Iterable[str], what: str = "output", **kwargs):
        kwargs.setdefault("path_type", str)
        super().__init__(dir_okay=False, **kwargs)
        self.suffixes = tuple(s.lower() for s in suffixes)
        self.what = what

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        try:
            check_suffix(value, self.suffixes, self.what)
        except ValueError as e:
            self.fail(str(e), param, ctx)
        if Path(value).is_dir():
            self.fail(f"{value!r} is a folder; give a file name ending in {' or '.join(self.suffixes)}", param, ctx)
        bad = _writable_folder(Path(value).parent)
        if bad is not None:
            self.fail(f"cannot write {value!r}: {str(bad)!r} is not a writable folder", param, ctx)
        return value


class OutDir(click.Path):
    """An output folder option checked at parse time: not a file, and writable."""

    name = "folder"

    def __init__(self, **kwargs):
        kwargs.setdefault("path_type", str)
        super().__init__(file_okay=False, **kwargs)

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        bad = _writable_folder(Path(value))
        if bad is not None:
            self.fail(f"cannot write into {value!r}: {str(bad)!r} is not a writable folder", param, ctx)
        return value
