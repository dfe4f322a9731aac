"""Tables for the page: every table says where its numbers come from.

The book's rule is that a reader can tell, from the table itself, whether numbers are
*published* (copied from a paper) or *ours* (computed when the book was built, and by
which screener, model or data). ``labelled`` returns a pandas ``Styler`` whose caption
says so and whose numbers are rounded for reading; the frame itself is not changed.
"""

from __future__ import annotations

import pandas as pd


def labelled(table: pd.DataFrame | pd.Series, source: str, *, precision: int = 3):
    """``table`` as a Styler captioned with ``source`` (e.g. "ours: embedding screener").

    ``source`` must begin with "ours" or "published", the two words the book uses.
    """
    if not source.split(":")[0].strip().lower() in ("ours", "published", "ours and published"):
        raise ValueError(f"source must start with 'ours' or 'published', got {source!r}")
    frame = table.to_frame() if isinstance(table, pd.Series) else table
    return frame.style.set_caption(f"Source: {source}").format(precision=precision, na_rep="–")
