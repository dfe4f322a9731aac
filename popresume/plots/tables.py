"""Tables for the page: every table says where its numbers come from.

The book's rule is that a reader can tell, from the table itself, whether numbers are
*published* (copied from a paper) or *ours* (computed when the book was built, and by
which screener, model or data). ``labelled`` wraps a table so that the rendered page shows
it with a caption saying so and with numbers rounded for reading, while a plain-text
output (a re-executed notebook read in a terminal, papermill) shows the same caption line
above the table's text. The frame itself is not changed: ``.data`` returns it.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

SOURCES = ("ours", "published", "ours and published")


# a browser may break a line after "-" or "/" (and, in a header, anywhere): inside a number,
# a range such as 0.93-0.97 or a name such as gpt-3.5-turbo, that splits it ("0.93-" / "0.97")
_BREAKABLE = re.compile(r"[-/\d]")
_NOWRAP = '<span style="white-space: nowrap">{}</span>'


# where a long word may break instead, each piece kept whole: after the "/" of a path-like
# name (embedding/…, data/…), and, in a cell (not a header, whose name the text may quote),
# after the "_" of a long snake_case id
_PATH_JOINT = re.compile(r"(?<=[A-Za-z_]{2}/)")
_SNAKE_JOINT = re.compile(r"(?<=_)")
LONG_WORD = 20


def whole_tokens(value, precision: int = 3, *, header: bool = False) -> str:
    """``value`` as HTML in which no number, range or hyphenated name can be split by a line break.

    Text still wraps between words; each word with a digit, a hyphen or a slash is kept on
    one line (one text node, so the page's text still reads ``gpt-3.5-turbo``). A path-like
    word may break after its "/" and, unless ``header``, a word longer than ``LONG_WORD``
    after its "_" (``burlington_hirevue_…_2024_audit_3``), each piece kept whole. Floats are
    written with ``precision`` decimals and missing values as "–", as
    :meth:`LabelledTable.styler` writes numeric columns.
    """
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if isinstance(value, (float, np.floating)):
        text = f"{value:.{precision}f}"
    elif isinstance(value, tuple):
        text = ", ".join(map(str, value))
    else:
        text = str(value)
    words = []
    for word in text.split(" "):
        pieces = [p for p in _PATH_JOINT.split(word) if p]
        if not header and len(word) > LONG_WORD:
            pieces = [q for p in pieces for q in _SNAKE_JOINT.split(p) if q]
        words.append("<wbr>".join(_NOWRAP.format(html.escape(p)) if _BREAKABLE.search(p) else html.escape(p)
                                  for p in pieces))
    return " ".join(words)


def _is_default_index(index: pd.Index) -> bool:
    """An unnamed 0, 1, …, n − 1 index (``reset_index(drop=True)``, a fresh frame)."""
    return (isinstance(index, pd.RangeIndex) and index.name is None and index.start == 0 and index.step == 1)


class LabelledTable:
    """A table with its source, displayed as HTML (captioned Styler) or as plain text."""

    def __init__(self, data: pd.DataFrame, source: str, precision: int):
        self.data, self.source, self.precision = data, source, precision

    def styler(self):
        cell = lambda value: whole_tokens(value, self.precision)  # noqa: E731
        text_columns = [c for c in self.data.columns if not pd.api.types.is_numeric_dtype(self.data[c])]
        styler = (self.data.style.set_caption(f"Source: {self.source}")
                  .format(precision=self.precision, na_rep="–")
                  .format(cell, subset=text_columns)
                  .format_index(cell, axis=0)
                  .format_index(lambda value: whole_tokens(value, self.precision, header=True), axis=1))
        # a default 0..n-1 index says nothing: shown, it only takes a column of the page's width
        if _is_default_index(self.data.index):
            styler = styler.hide(axis="index")
        return styler

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


def _as_source(label: str) -> str:
    """A table's source label as a caption: "ours, all-MiniLM-L6-v2" -> "ours: all-MiniLM-L6-v2"."""
    head, _, rest = label.partition(",")
    return f"{head.strip()}: {rest.strip()}" if rest.strip() and ":" not in head else label


def labelled_by_column(table: pd.DataFrame, column: str = "source", *, note: str = "",
                       precision: int = 3) -> LabelledTable:
    """:func:`labelled`, with the caption read from ``table[column]``.

    A column that holds one value on every row tells the reader nothing a caption cannot: it
    is dropped and its value (with ``note``) becomes the caption, so the table is one column
    narrower. A column with several values (ours and published rows) stays, and the caption
    names both kinds.
    """
    if column not in table.columns:
        raise ValueError(f"labelled_by_column: no column {column!r} in the table (columns: {list(table.columns)})")
    values = list(dict.fromkeys(str(v) for v in table[column].dropna()))
    suffix = f" ({note})" if note else ""
    if len(values) == 1:
        caption = _as_source(values[0])
        caption += suffix if ":" in caption or not note else f": {note}"
        return labelled(table.drop(columns=column), caption, precision=precision)
    kinds = {v.split(",")[0].split(":")[0].strip().lower() for v in values}
    source = "ours and published" if kinds >= {"ours", "published"} else (kinds.pop() if len(kinds) == 1 else "ours")
    return labelled(table, f"{source}: as the {column!r} column says{suffix}", precision=precision)
