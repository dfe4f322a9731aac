"""Exceptions shared across the package that the command line reports as one line.

:class:`StoppedRun` marks a run that cannot go on for a reason outside the code (a server
that refuses every request the same way, a server that exited while starting). The CLI's
error group (:mod:`popresume.cli._errors`) prints it without a traceback, like a bad input.
"""

from __future__ import annotations

import pandas as pd

# Messages of the checks below, as module constants (one wording wherever they are raised).
MISSING_COLUMN = "{what} has no column {column!r}{more}; its columns: {columns}"
NOT_A_DATAFRAME = "{what} must be a DataFrame, got {kind}"


class StoppedRun(RuntimeError):
    """A run stopped by its environment (a server's refusal or exit), not by a bug."""


def require_columns(df, columns, what: str) -> None:
    """Raise ``ValueError`` naming ``what`` and the first of ``columns`` that ``df`` lacks.

    The package's one column check: every stage that reads a user's table calls it, so a
    missing column always reads ``<what> has no column 'x'; its columns: [...]``.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(NOT_A_DATAFRAME.format(what=what, kind=type(df).__name__))
    missing = [c for c in columns if c not in df.columns]
    if missing:
        more = f" (and {len(missing) - 1} more: {missing[1:4]})" if len(missing) > 1 else ""
        raise ValueError(MISSING_COLUMN.format(what=what, column=missing[0], more=more, columns=list(df.columns)))
