"""The exact plug-in estimator over discrete columns: Appendix C.1, Eqs. (6)-(10).

    ψ(a_y, a_b, a_r) = Σ_{z,r,b} Ê[Y | a_y, b, r, z] · P̂(b | a_b, r, z) · P̂(r | a_r, z) · P̂(z)

with every factor an empirical cell mean or frequency. No learner, no folds: the teaching
and checking reference. On large discrete data it must agree with the DML estimator; on
sparse data it fails loudly, naming the cell that has no support (a positivity violation),
rather than dropping mass silently.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

from .data import PSEData
from .functional import PSI_NAMES, PSI_TRIPLES, effects_from_psi


def _key(df: pd.DataFrame, cols: list[str]) -> np.ndarray:
    if not cols:
        return np.zeros(len(df), dtype=np.int64)
    return df.groupby(cols, sort=True, dropna=False).ngroup().to_numpy()


def plugin_psi(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, y: str = "score",
               missing: str = "raise") -> pd.Series:
    """The five counterfactual means by the exact discrete sum (Eqs. 6-10, docs/DESIGN.md §3).

    ``data``: a DataFrame with the roles given, or a ``PSEData`` (then not re-validated).
    """
    pd_ = PSEData.of(data, x=x, x0=x0, x1=x1, z=z, b=b, r=r, y=y, missing=missing)
    df, z, b, r = pd_.df, pd_.z, pd_.b, pd_.r
    t = pd.DataFrame({"a": (df[x] == x1).to_numpy().astype(int), "z": _key(df, z), "r": _key(df, r),
                      "b": _key(df, b), "y": df[y].to_numpy(dtype=float)})
    n = len(t)
    pz = t.groupby("z").size().rename("pz") / n
    n_az = t.groupby(["a", "z"]).size().rename("n_az")
    n_azr = t.groupby(["a", "z", "r"]).size().rename("n_azr")
    n_azrb = t.groupby(["a", "z", "r", "b"]).size().rename("n_azrb")
    m = t.groupby(["a", "z", "r", "b"])["y"].mean().rename("m")
    pr = (n_azr / n_az.reindex(n_azr.index.droplevel("r")).to_numpy()).rename("pr")
    pb = (n_azrb / n_azr.reindex(n_azrb.index.droplevel("b")).to_numpy()).rename("pb")

    def label(row, cols):
        keys = {"z": z, "r": r, "b": b}
        out = {}
        for c in cols:
            sub = t[t[c] == row[c]]
            for name in keys[c]:
                out[name] = df.loc[sub.index[0], name]
        return out

    out = {}
    for name, (a_y, a_b, a_r) in PSI_TRIPLES.items():
        # P(r | a_r, z) over every z in the data
        zs = pz.reset_index()
        have = n_az.xs(a_r, level="a") if a_r in n_az.index.get_level_values("a") else pd.Series(dtype=float)
        miss_z = zs.loc[~zs["z"].isin(have.index), "z"]
        if len(miss_z):
            cell = label({"z": miss_z.iloc[0]}, ["z"])
            raise ValueError(f"plug-in: no row with X={x1 if a_r else x0!r} in confounder cell {cell} "
                             f"(positivity fails; P(r | x, z) undefined)")
        cells = pr.xs(a_r, level="a").reset_index().merge(zs, on="z")
        # P(b | a_b, r, z) must exist for every (z, r) reached
        pbs = pb.xs(a_b, level="a").reset_index() if a_b in pb.index.get_level_values("a") else None
        cells = cells.merge(pbs, on=["z", "r"], how="left")
        if cells["pb"].isna().any():
            bad = cells[cells["pb"].isna()].iloc[0]
            raise ValueError(f"plug-in: no row with X={x1 if a_b else x0!r} in cell {label(bad, ['z', 'r'])} "
                             f"(positivity fails; P(b | x, r, z) undefined)")
        ms = m.xs(a_y, level="a").reset_index()
        cells = cells.merge(ms, on=["z", "r", "b"], how="left")
        if cells["m"].isna().any():
            bad = cells[cells["m"].isna()].iloc[0]
            raise ValueError(f"plug-in: no row with X={x1 if a_y else x0!r} in cell {label(bad, ['z', 'r', 'b'])} "
                             f"(positivity fails; E[Y | x, b, r, z] undefined). "
                             f"Coarsen the columns or use estimate_pse.")
        out[name] = float((cells["m"] * cells["pb"] * cells["pr"] * cells["pz"]).sum())
    return pd.Series(out)[list(PSI_NAMES)]


def plugin_pse(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, y: str = "score",
               missing: str = "raise") -> pd.DataFrame:
    """TE, NDE, NIE, BIE, RIE by the exact plug-in, as ``estimate`` (the means: ``plugin_psi``).

    Parameters
    ----------
    data : pandas.DataFrame
        One row per résumé; every role column discrete (the plug-in sums over cells).
    x, x0, x1, z, b, r, y
        The roles, as :func:`popresume.causal.estimate_pse` takes them.
    missing : {"raise", "drop"}
        Incomplete rows raise, or are dropped.

    Returns
    -------
    pandas.DataFrame
        Indexed TE, NDE, NIE, BIE, RIE; the effects in ``estimate``.

    Examples
    --------
    >>> from popresume.causal import make_scm
    >>> data = make_scm("basic", seed=0).sample(1000, seed=1)
    >>> plugin_pse(data, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y").round(2)
            estimate
    effect
    TE          0.39
    NDE         0.78
    NIE        -0.39
    BIE         0.37
    RIE        -0.76
    """
    psi = plugin_psi(data, x=x, x0=x0, x1=x1, z=z, b=b, r=r, y=y, missing=missing)
    return pd.DataFrame({"estimate": effects_from_psi(psi.to_numpy())}, index=pd.Index(list(PSE_NAMES), name="effect"))
