"""Progress bars: the one place where ``tqdm`` is imported.

Inside a Jupyter kernel without ipywidgets, importing ``tqdm.auto`` warns "IProgress not
found" on stderr and falls back to a text bar, which is what the book and the chapter tests
want; a warning on stderr would land in a page and fail the chapter tests. The import is
made here, under a warning filter that lasts only for the import (no process-wide filter
is installed).
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable

#: The message of tqdm's warning when a notebook has no ipywidgets.
TQDM_NO_WIDGETS = "IProgress not found"

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=TQDM_NO_WIDGETS)
    from tqdm.auto import tqdm


def progress_bar(iterable: Iterable | None = None, **options: Any):
    """``tqdm.auto.tqdm(iterable, **options)``: a notebook bar where ipywidgets exist, else a text bar.

    Every progress bar of the package comes from here (population sampling, rendering,
    the refit bootstrap, the coverage runs), so the import and its warning filter are
    written once.

    Parameters
    ----------
    iterable : iterable or None
        What to iterate over; None for a bar updated by hand (``total=`` and ``update``).
    **options
        Passed to ``tqdm`` as they are (``desc``, ``unit``, ``total``, ``disable``, ...).

    Returns
    -------
    tqdm.tqdm
        The bar: iterate over it, or use it as a context manager and call ``update``.

    Examples
    --------
    >>> sum(progress_bar(range(4), disable=True))
    6
    """
    return tqdm(iterable, **options)
