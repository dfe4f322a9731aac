"""Tables for the page: every table says where its numbers come from.

The book's rule is that a reader can tell, from the table itself, whether numbers are
*published* (copied from a paper) or *ours* (computed when the book was built, and by
which screener, model or data). ``labelled`` wraps a table so that the rendered page shows
it with a caption saying so and with numbers rounded for reading, while a plain-text
output (a re-executed notebook read in a terminal, papermill) shows the same caption line
above the table's text. The frame itself is not changed: ``.data`` returns it.
"""

from __future__ import annotations

import pandas as pd

SOURCES = ("ours", "published", "ours and published")


class LabelledTable:
    """A table with its source, displayed as HTML (captioned Styler) or as plain text."""

    def __init__(self, data: pd.DataFrame, source: str, precision: int):
        self.data, self.source, self.precision = data, source, precision

    def styler(self):
        return self.data.style.set_caption(f"Source: {self.source}").format(precision=self.precision, na_rep="–")

    def _repr_html_(self) -> str:
        return self.styler().to_html()

    def __repr__(self) -> str:
        with pd.option_context("display.precision", self.precision, "display.max_colwidth", None,
                               "display.width", 200, "display.max_columns", 50):
            return f"Source: {self.source}\n{self.data!r}"


def labelled(table: pd.DataFrame | pd.Series, source: str, *, precision: int = 3) -> LabelledTable:
    """``table`` with a caption naming its ``source`` (e.g. "ours: embedding screener").

    ``source`` must begin with "ours" or "published", the two words the book uses.
    """
    if source.split(":")[0].strip().lower() not in SOURCES:
        raise ValueError(f"source must start with 'ours' or 'published', got {source!r}")
    frame = table.to_frame() if isinstance(table, pd.Series) else table
    return LabelledTable(frame, source, precision)
