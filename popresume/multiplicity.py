"""Multiple-comparison corrections shared by the audit grid and the leakage audit.

Holm (1979) step-down adjustment controls the family-wise error rate; Benjamini and
Hochberg (1995) step-up adjustment controls the false discovery rate. Both return
adjusted p-values in the input order, capped at 1.
"""

from __future__ import annotations

from typing import Literal, Sequence

import numpy as np


def _prepare(p: Sequence[float], nan: Literal["omit", "raise"]) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=float)
    if p.ndim != 1:
        raise ValueError("p-values must be a one-dimensional sequence")
    ok = ~np.isnan(p)
    if nan == "raise" and not ok.all():
        raise ValueError(f"p-values contain NaN at positions {np.flatnonzero(~ok).tolist()}")
    q = p[ok]
    if ((q < 0) | (q > 1)).any():
        raise ValueError(f"p-values must lie in [0, 1]; got {q[(q < 0) | (q > 1)].tolist()}")
    return p, ok


def _adjust(p: Sequence[float], nan: Literal["omit", "raise"], step) -> np.ndarray:
    p, ok = _prepare(p, nan)
    out = np.full_like(p, np.nan)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    order = np.argsort(q, kind="mergesort")
    res = np.empty(m)
    res[order] = np.minimum(step(q[order], m), 1.0)
    out[ok] = res
    return out


def holm(p: Sequence[float], *, nan: Literal["omit", "raise"] = "omit") -> np.ndarray:
    """Holm's step-down adjusted p-values.

    Sorted ascending, p_(i) is multiplied by (m - i + 1) and made non-decreasing by a running
    maximum. With ``nan="omit"`` NaNs stay NaN and do not count towards the family size m;
    with ``nan="raise"`` a NaN is an error.

    Parameters
    ----------
    p : sequence of float
        The p-values of one family.
    nan : {"omit", "raise"}
        What a NaN does.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the input's order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> holm([0.01, float("nan")]).tolist()  # m = 1
    [0.01, nan]
    """
    return _adjust(p, nan, lambda s, m: np.maximum.accumulate((m - np.arange(m)) * s))


def benjamini_hochberg(p: Sequence[float], *, nan: Literal["omit", "raise"] = "omit") -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values).

    Sorted ascending, p_(i) is multiplied by m / i and made non-decreasing from the top by a
    running minimum. NaN handling as in :func:`holm`.

    Parameters
    ----------
    p, nan
        As in :func:`holm`.

    Returns
    -------
    numpy.ndarray
        The q-values (the false discovery rate at which each would be rejected).

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    return _adjust(p, nan, lambda s, m: np.minimum.accumulate((s * m / np.arange(1, m + 1))[::-1])[::-1])


def bonferroni(p: Sequence[float], *, nan: Literal["omit", "raise"] = "omit") -> np.ndarray:
    """Bonferroni adjusted p-values: each p times the family size m, capped at 1."""
    return _adjust(p, nan, lambda s, m: m * s)


ADJUSTERS = {"holm": holm, "bh": benjamini_hochberg, "bonferroni": bonferroni}


def adjust_p(p: Sequence[float], method: str = "holm", *, nan: Literal["omit", "raise"] = "omit") -> np.ndarray:
    """Adjusted p-values by ``method``: "holm", "bh" (Benjamini–Hochberg) or "bonferroni"."""
    if method not in ADJUSTERS:
        raise ValueError(f"unknown p-value adjustment {method!r}; use one of {list(ADJUSTERS)}")
    return ADJUSTERS[method](p, nan=nan)
