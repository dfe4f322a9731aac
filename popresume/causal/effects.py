"""One vocabulary for effects tables: long and wide forms, significance, warning capture.

Two forms of the same numbers travel through the package:

* the **long** form, one audit: a table indexed TE, NDE, NIE, BIE, RIE with columns
  ``estimate``, ``ci_low``, ``ci_high`` (and ``se`` ...): what ``estimate_pse`` returns;
* the **wide** form, many audits: one row per audit with ``{E}_{estimate,ci_low,ci_high}``
  columns: the layout of the published Tables 4-5 (``popresume_published_pse.csv``) and of
  ``run_audit``'s results.

``wide_row`` turns a long table into one wide record, ``long_form`` turns one wide row (or a
long table) into the long form, ``effect_columns`` names the wide columns. ``significant``
and ``ci_significance`` are the one reading of "the CI excludes 0" (PopResume §5.1), under
both rules: the plain one, and ``signed_zero=True``, which reads a printed bound of ±0.000
by its sign bit (how the authors' labels come out of the rounded table; ``cases`` explains).
``capture_pse_warnings`` collects the estimator's diagnostics for a table cell instead of
printing them.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Iterator, Sequence

import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

CI_STATS: tuple[str, ...] = ("estimate", "ci_low", "ci_high")


class PSEWarning(UserWarning):
    """Estimation went through but a diagnostic (clipping, overlap, group size, constant score) is poor.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("12% of propensities clipped", PSEWarning)
    >>> caught[0].category.__name__
    'PSEWarning'
    """


def effect_columns(stats: Sequence[str] = CI_STATS, effects: Sequence[str] = PSE_NAMES) -> list[str]:
    """The wide-form columns ``{E}_{stat}``, effect-major (TE_estimate, TE_ci_low, ...)."""
    return [f"{e}_{s}" for e in effects for s in stats]


def is_long(table: pd.DataFrame) -> bool:
    """True when ``table`` is one audit in the long form (indexed by the five effects)."""
    return set(CI_STATS) <= set(table.columns) and set(PSE_NAMES) <= set(table.index)


def wide_row(table: pd.DataFrame, stats: Sequence[str] = CI_STATS) -> dict:
    """One long effects table → one wide record ``{E}_{stat}: float`` (NaN for a missing stat)."""
    missing = [e for e in PSE_NAMES if e not in table.index]
    if missing:
        raise ValueError(f"effects table has no row {missing[0]!r} (rows: {list(table.index)})")
    return {f"{e}_{s}": float(table.loc[e, s]) if s in table.columns else float("nan")
            for e in PSE_NAMES for s in stats}


def to_wide(table: pd.DataFrame) -> pd.DataFrame:
    """The wide form of ``table``: returned as is when already wide, one row when long."""
    need = effect_columns()
    if all(c in table.columns for c in need):
        return table
    if is_long(table):
        return pd.DataFrame([wide_row(table)])
    missing = [c for c in need if c not in table.columns]
    raise ValueError(f"an effects table needs columns {{TE,NDE,NIE,BIE,RIE}}_{{estimate,ci_low,ci_high}} "
                     f"or the long form; missing {missing[:5]}{'...' if len(missing) > 5 else ''}")


def long_form(table: pd.DataFrame, stats: Sequence[str] = CI_STATS) -> pd.DataFrame:
    """One audit as a long table indexed by effect, from the long form or one wide row."""
    if is_long(table):
        return table.loc[list(PSE_NAMES), [s for s in stats if s in table.columns]]
    if len(table) != 1:
        raise ValueError(f"expected one audit (one row of the wide table), got {len(table)} rows")
    row = table.iloc[0]
    return pd.DataFrame({s: [float(row[f"{e}_{s}"]) for e in PSE_NAMES] for s in stats},
                        index=pd.Index(list(PSE_NAMES), name="effect"))


def significant(ci_low, ci_high, *, signed_zero: bool = False) -> np.ndarray:
    """CI excludes 0. With ``signed_zero`` a bound that is exactly ±0 counts by its sign bit.

    A degenerate interval [0, 0] is never significant.

    Parameters
    ----------
    ci_low, ci_high : array_like
        The intervals' bounds.
    signed_zero : bool
        Read a bound of ±0 by its sign bit (the published tables' rounding).

    Returns
    -------
    numpy.ndarray of bool
        True where the interval excludes 0.

    Examples
    --------
    >>> significant([0.1, -0.2, 0.0], [0.3, 0.1, 0.0]).tolist()
    [True, False, False]
    >>> significant([-0.0, 0.0], [0.2, 0.2], signed_zero=True).tolist()
    [False, True]
    """
    lo = np.asarray(ci_low, dtype=float)
    hi = np.asarray(ci_high, dtype=float)
    pos = lo > 0
    neg = hi < 0
    if signed_zero:
        degenerate = (lo == 0) & (hi == 0)
        pos = pos | ((lo == 0) & ~np.signbit(lo) & ~degenerate)
        neg = neg | ((hi == 0) & np.signbit(hi) & ~degenerate)
    return pos | neg


def ci_significance(table: pd.DataFrame, *, signed_zero: bool = False,
                    effects: Sequence[str] = PSE_NAMES) -> pd.DataFrame:
    """Boolean table (audits × effects): does each effect's CI exclude 0.

    ``table`` in the wide form (one row per audit, index kept) or one long table (one row).
    The uncorrected rule only; :func:`popresume.audit.metrics.significance` adds the
    corrected ones (Holm, BH) over a family of audits.
    """
    t = to_wide(table)
    return pd.DataFrame({e: significant(t[f"{e}_ci_low"], t[f"{e}_ci_high"], signed_zero=signed_zero)
                         for e in effects}, index=t.index)


@contextmanager
def capture_pse_warnings() -> Iterator[list]:
    """Collect the ``PSEWarning``s raised inside the block (nothing is printed).

    Yields a list that fills with the warning messages (strings); ``joined(msgs)`` makes the
    one-cell text a results table stores. Other warnings pass through unchanged.
    """
    msgs: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PSEWarning)
        try:
            yield msgs
        finally:
            rest = []
            for w in caught:
                if issubclass(w.category, PSEWarning):
                    msgs.append(str(w.message))
                else:
                    rest.append(w)
    for w in rest:  # re-issue what was not ours, outside the recording block
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def joined(messages: Sequence[str]) -> str:
    """Distinct warning messages in one table cell, sorted, separated by " | "."""
    return " | ".join(sorted(set(messages)))
