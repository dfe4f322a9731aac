"""One audit under several variants of its data or roles, and what each variant costs.

A variant changes the rows (trimming to the region of overlap, a sample of a different
size) or the roles (a coarser or finer R) of one audit cell; each is estimated the same
way and reported with its rows and its overlap, so a table of variants shows what each
buys and what it costs (chapter 10a).
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from popresume.causal.estimate import estimate_row
from popresume.errors import require_columns


def neutral_name_subset(data: pd.DataFrame, column: str = "fn_gender", keep: Sequence[str] = ("neutral",)):
    """Rows whose first-name class is in ``keep``: the overlap population for gender.

    A first name's gender class nearly determines gender, so p(x | R, Z) sits at 0 or 1
    for most applicants and the estimator must extrapolate. Restricting to gender-neutral
    first names restores overlap; the estimand becomes the effects *among applicants with
    gender-neutral first names*, not among all applicants.
    """
    require_columns(data, [column], "data")
    keep = list(keep)
    out = data[data[column].astype(str).isin(keep)].reset_index(drop=True)
    if out.empty:
        raise ValueError(f"no row has {column!r} in {keep}; values present: {sorted(data[column].astype(str).unique())}")
    return out


def estimate_variants(variants, *, y: str = "score", **estimator) -> pd.DataFrame:
    """The same effects under several (data, roles) variants, with what each costs in rows and overlap.

    ``variants``: mapping name -> (data, roles, estimand), ``roles`` as
    :func:`popresume.causal.default_roles` returns them and ``estimand`` a short phrase
    saying whose effects the variant estimates (trimming the data changes it). Each variant
    is estimated by :func:`popresume.causal.estimate_row` with the same ``estimator``
    keywords (``folds``, ``n_boot``, ``seed``, ``tune``, ...). One row per variant:
    ``variant``, ``estimand``, ``n``, ``{E}_{estimate,se,ci_low,ci_high}``, ``min_ess``,
    ``clipped_share`` and the collected ``warnings``.
    """
    if not variants:
        raise ValueError("variants is empty; give at least one name -> (data, roles, estimand)")
    rows = []
    for name, spec in dict(variants).items():
        if len(spec) != 3:
            raise ValueError(f"variant {name!r} must be (data, roles, estimand), got {len(spec)} items")
        data, roles, estimand = spec
        rows.append({"variant": name, "estimand": estimand, "n": len(data),
                     **estimate_row(data, **roles, y=y, stats=("estimate", "se", "ci_low", "ci_high"), **estimator)})
    return pd.DataFrame(rows)
