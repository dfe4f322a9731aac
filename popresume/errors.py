"""Exceptions shared across the package that the command line reports as one line.

:class:`StoppedRun` marks a run that cannot go on for a reason outside the code (a server
that refuses every request the same way, a server that exited while starting). The CLI's
error group (:mod:`popresume.cli._errors`) prints it without a traceback, like a bad input.
"""

from __future__ import annotations


class StoppedRun(RuntimeError):
    """A run stopped by its environment (a server's refusal or exit), not by a bug."""
