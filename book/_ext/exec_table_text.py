"""The execution table of the course guide says "ran" or "failed" in words.

myst-nb's ``nb-exec-table`` writes each chapter's status as an emoji, which a browser
without an emoji font shows as an empty box. This extension swaps that one cell's text
for a word before the table is made; every other column is left as myst-nb makes it.
"""

from __future__ import annotations

from myst_nb.ext import execution_tables


def status_word(succeeded) -> str:
    """The status cell: "ran" for a chapter that executed without error, else "failed"."""
    return "ran" if succeeded is True else "failed"


def setup(app):
    execution_tables._key2transform["succeeded"] = status_word
    return {"parallel_read_safe": True, "parallel_write_safe": True}
