"""The data of one estimation, described once: which columns play X, Z, B, R and Y.

``PSEData`` checks the roles and values a single time (``validate``), fixes the one-hot
encodings on the covariates, and holds the design matrices every nuisance fit uses, so the
estimator, the refit bootstrap and the plug-in never re-validate or re-encode. It is the
counterpart of DoubleML's ``DoubleMLData``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .effects import PSEWarning
from .nuisance import Encoder


def _as_list(v) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    return list(v)


def validate(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, y: str,
             missing: str = "raise") -> pd.DataFrame:
    """Check roles and values; return the rows to use (a copy with a fresh RangeIndex).

    Raises ``ValueError`` naming the column, value and row for: unknown columns, a column
    in two roles, X levels other than x0/x1, missing values (unless ``missing="drop"``,
    which warns with the count), a non-numeric score, a single column that perfectly
    separates X (positivity fails: no weighting can recover the other group).
    """
    if not isinstance(data, pd.DataFrame):
        raise ValueError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    z, b, r = _as_list(z), _as_list(b), _as_list(r)
    roles = {"x": [x], "y": [y], "z": z, "b": b, "r": r}
    seen: dict[str, str] = {}
    for role, cols in roles.items():
        for c in cols:
            if c not in data.columns:
                raise ValueError(f"column {c!r} (role {role}) is not in the data; columns: {list(data.columns)}")
            if c in seen:
                raise ValueError(f"column {c!r} is given two roles ({seen[c]} and {role})")
            seen[c] = role
    if x0 == x1:
        raise ValueError(f"x0 and x1 are the same level {x0!r}")
    cols = [x, y, *z, *b, *r]
    df = data[cols]
    na = df.isna()
    if na.to_numpy().any():
        counts = na.sum()
        counts = counts[counts > 0]
        first_col = counts.index[0]
        first_row = data.index[na[first_col].to_numpy().argmax()]
        msg = (f"missing values in { {k: int(v) for k, v in counts.items()} } "
               f"(first: column {first_col!r}, row {first_row!r})")
        if missing == "drop":
            keep = ~na.any(axis=1)
            if not keep.any():
                raise ValueError(f"every one of the {len(df)} rows has a missing value ({msg}): nothing to "
                                 f"estimate (are all scores parse failures?)")
            warnings.warn(f"dropping {int((~keep).sum())} of {len(df)} rows with {msg}", PSEWarning, stacklevel=4)
            df = df[keep]
        else:
            raise ValueError(msg + "; pass missing='drop' to drop those rows")
    levels = pd.unique(df[x])
    other = [v for v in levels if v not in (x0, x1)]
    if other:
        i = int(np.flatnonzero(~df[x].isin([x0, x1]).to_numpy())[0])
        raise ValueError(
            f"protected attribute {x!r} has level(s) {other} besides x0={x0!r} and x1={x1!r} "
            f"(first at row {df.index[i]!r}); filter the rows or recode to a binary contrast")
    for lv in (x0, x1):
        if not (df[x] == lv).any():
            raise ValueError(f"protected attribute {x!r} has no row with level {lv!r}")
    if not pd.api.types.is_numeric_dtype(df[y]) or pd.api.types.is_bool_dtype(df[y]):
        raise ValueError(f"score column {y!r} must be numeric, got dtype {df[y].dtype}")
    if not np.isfinite(df[y].to_numpy(dtype=float)).all():
        raise ValueError(f"score column {y!r} has infinite values")
    xi = (df[x] == x1).to_numpy()
    for c in [*z, *b, *r]:
        # one column whose every level contains a single X group: P(X | that column) ∈ {0, 1}.
        # Only checked on discrete columns (few levels); joint separation by several columns
        # shows up as clipped propensities instead (a PSEWarning from fit()).
        if df[c].nunique() > min(50, max(2, len(df) // 5)):
            continue
        codes, levels_c = pd.factorize(df[c])
        if len(levels_c) < 2:
            continue
        with_x1 = np.bincount(codes, weights=xi, minlength=len(levels_c)) > 0
        with_x0 = np.bincount(codes, weights=~xi, minlength=len(levels_c)) > 0
        if xi.any() and (~xi).any() and not (with_x1 & with_x0).any():
            raise ValueError(
                f"column {c!r} perfectly separates {x!r}: each of its levels holds only {x0!r} or only {x1!r} rows, "
                f"so P(X | {c}) is 0 or 1 and the path-specific effects are not identified (positivity fails). "
                f"Drop or coarsen {c!r}.")
    return df.reset_index(drop=True)


class PSEData:
    """Validated estimation data: roles checked once, encodings fixed, design matrices built.

    Attributes: ``df`` (the rows used, fresh RangeIndex), ``roles`` (dict x, x0, x1, z, b,
    r, y: the keyword arguments of ``estimate_pse``), ``n``, ``n_x0`` / ``n_x1`` (group
    sizes), and the matrices ``Xz``, ``Xrz``, ``Xbrz`` (float32), ``x1`` (bool), ``yv``.
    Build it from an existing one with ``PSEData.of(data, **roles)``, which returns a
    ``PSEData`` unchanged and validates a DataFrame.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per résumé.
    x, x0, x1 : str, object, object
        The protected attribute column and its reference / comparison levels.
    z, b, r : list of str, optional
        Confounders, business-necessity and redlining mediators.
    y : str
        The score column.
    missing : {"raise", "drop"}
        Incomplete rows raise (naming the column), or are dropped with a warning.

    Examples
    --------
    >>> from popresume.causal import make_scm
    >>> df = make_scm("basic", seed=0).sample(500, seed=1)
    >>> d = PSEData(df, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
    >>> d.n, d.n_x0 + d.n_x1, d.Xbrz.dtype
    (500, 500, dtype('float32'))
    """

    def __init__(self, data: pd.DataFrame, *, x: str, x0, x1, z=None, b=None, r=None, y: str = "score",
                 missing: str = "raise"):
        if missing not in ("raise", "drop"):
            raise ValueError(f"missing must be 'raise' or 'drop', got {missing!r}")
        z, b, r = _as_list(z), _as_list(b), _as_list(r)
        self.df = validate(data, x=x, x0=x0, x1=x1, z=z, b=b, r=r, y=y, missing=missing)
        self.roles = {"x": x, "x0": x0, "x1": x1, "z": z, "b": b, "r": r, "y": y}
        self.x, self.x0, self.x1, self.z, self.b, self.r, self.y = x, x0, x1, z, b, r, y
        self.n = len(self.df)
        self.x1v = (self.df[x] == x1).to_numpy()
        self.n_x1 = int(self.x1v.sum())
        self.n_x0 = self.n - self.n_x1
        self.yv = self.df[y].to_numpy(dtype=float)
        enc = {"z": Encoder.fit(self.df, z), "rz": Encoder.fit(self.df, [*r, *z]),
               "brz": Encoder.fit(self.df, [*b, *r, *z])}
        self.Xz, self.Xrz, self.Xbrz = (enc[k].transform(self.df) for k in ("z", "rz", "brz"))

    @classmethod
    def of(cls, data, **roles) -> "PSEData":
        """``data`` itself when it is a ``PSEData`` (roles must then be absent or agree), else validated."""
        if isinstance(data, cls):
            given = {k: (_as_list(v) if k in "zbr" else v) for k, v in roles.items() if k != "missing"}
            clash = {k: v for k, v in given.items() if k in data.roles and data.roles[k] != v}
            if clash:
                raise ValueError(f"roles {clash} differ from those the PSEData was built with {data.roles}")
            return data
        return cls(data, **roles)

    def arrays(self, idx: np.ndarray | None = None):
        """(Xz, Xrz, Xbrz, x1, y), optionally the rows ``idx`` (with repeats, for a resample)."""
        if idx is None:
            return self.Xz, self.Xrz, self.Xbrz, self.x1v, self.yv
        return self.Xz[idx], self.Xrz[idx], self.Xbrz[idx], self.x1v[idx], self.yv[idx]

    def __repr__(self) -> str:
        return (f"PSEData(n={self.n}, {self.x}: {self.x0!r}={self.n_x0} / {self.x1!r}={self.n_x1}, "
                f"z={self.z}, b={self.b}, r={self.r}, y={self.y!r})")
