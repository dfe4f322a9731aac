"""From a forced-choice reply to ranks: the parse rule and its alternatives.

A ranking audit asks a model to order ``k`` résumés and reads the order back from free
text. The reading is itself a decision of the audit. The rule used by Bloomberg (2024) is
:func:`first_occurrence_ranks`: lower-case the reply, give each name the character offset
of its first occurrence, sort by that offset (stable, so ties keep the order shown), and
put a name that never occurs at offset ``len(reply)``, i.e. last, in the order shown.

That last step turns a parse failure into a rank. The project's policy is that a failure
is never silently a rank, so :func:`apply_rule` offers the alternatives side by side:

* ``"last"``: the published rule (a missing name is ranked after every found name);
* ``"unranked"``: a missing name gets no rank (NaN) and cannot be the top pick; a run in
  which no name is found has no top pick;
* ``"drop"``: a run that leaves out any name is removed.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from popresume.errors import require_columns

RULES = ("last", "unranked", "drop")
#: columns of the long table the ranking functions read (one row per run × shown résumé)
LONG_COLUMNS = ("model", "job", "run", "position", "name", "demo", "rank", "found")


def first_occurrence_ranks(reply: str, names: Sequence[str]) -> tuple[list[int], list[bool]]:
    """Ranks (1 = top) of ``names`` in ``reply`` by the first-occurrence rule, and which were found.

    ``names`` are in the order shown. Matching is case-insensitive and literal (a name is
    found wherever its lower-cased text occurs). A name that does not occur is ranked after
    every found name; missing names keep the order shown among themselves.

    Parameters
    ----------
    reply : str
        The model's reply.
    names : sequence of str
        The names shown, in the order shown.

    Returns
    -------
    ranks : list of int
        Each name's rank.
    found : list of bool
        Whether the reply names it.

    Examples
    --------
    >>> first_occurrence_ranks("1. Tyrone 2. Emily", ["Emily", "Tyrone", "Greg"])
    ([2, 1, 3], [True, True, False])
    """
    if not isinstance(reply, str):
        raise ValueError(f"reply must be a string, got {type(reply).__name__}")
    text = reply.lower()
    offsets = []
    found = []
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"names must be non-empty strings, got {name!r}")
        i = text.find(name.lower())
        found.append(i >= 0)
        offsets.append(i if i >= 0 else len(text))
    order = sorted(range(len(names)), key=lambda j: offsets[j])  # stable: ties keep the order shown
    ranks = [0] * len(names)
    for r, j in enumerate(order, start=1):
        ranks[j] = r
    return ranks, found


def apply_rule(long: pd.DataFrame, rule: str = "last") -> pd.DataFrame:
    """The long table with ``rank`` set by ``rule`` (see the module docstring).

    ``long`` holds the published rule's ranks (``rank``) and ``found``. Under ``"unranked"``
    missing names get NaN and the found names keep their order (ranks 1..m renumbered);
    under ``"drop"`` every run with a missing name is removed. The column ``rule`` records it.
    """
    if rule not in RULES:
        raise ValueError(f"unknown parse rule {rule!r}; use one of {list(RULES)}")
    require_columns(long, ["model", "job", "run", "rank", "found"], "ranking table")
    out = long.copy()
    found = out["found"].astype(bool)
    if rule == "unranked":
        r = out["rank"].astype(float).where(found)
        out["rank"] = r.groupby([out["model"], out["job"], out["run"]]).rank(method="first")
    elif rule == "drop":
        complete = found.groupby([out["model"], out["job"], out["run"]]).transform("all")
        out = out[complete.to_numpy()].copy()
        out["rank"] = out["rank"].astype(float)
    else:
        out["rank"] = out["rank"].astype(float)
    out["rule"] = rule
    return out


def top_picks(long: pd.DataFrame) -> pd.DataFrame:
    """One row per run: the shown résumé ranked 1 (``demo``, ``name``, ``position``), or NaN
    when the run has no top pick (no name found under ``"unranked"``). ``has_top`` says which."""
    require_columns(long, ["model", "job", "run", "position", "name", "demo", "rank"], "ranking table")
    keys = ["model", "job", "run"]
    runs = long[keys].drop_duplicates().reset_index(drop=True)
    top = long.loc[long["rank"] == 1, keys + ["position", "name", "demo"]]
    if top.duplicated(keys).any():
        k = top.loc[top.duplicated(keys), keys].iloc[0].tolist()
        raise ValueError(f"run {k} has two résumés ranked 1")
    out = runs.merge(top, on=keys, how="left")
    out["has_top"] = out["demo"].notna()
    return out


def missing_counts(long: pd.DataFrame) -> pd.DataFrame:
    """Per model × job: runs, runs that leave out at least one name, names left out, runs with none found."""
    require_columns(long, ["model", "job", "run", "found"], "ranking table")
    per_run = long.groupby(["model", "job", "run"])["found"].agg(n_found="sum", n_shown="size").reset_index()
    per_run["n_missing"] = per_run["n_shown"] - per_run["n_found"]
    g = per_run.groupby(["model", "job"])
    out = pd.DataFrame({
        "n_runs": g.size(),
        "runs_missing_any": g["n_missing"].apply(lambda s: int((s > 0).sum())),
        "names_missing": g["n_missing"].sum(),
        "runs_no_name_found": g["n_found"].apply(lambda s: int((s == 0).sum())),
    }).reset_index()
    out["share_runs_missing_any"] = out["runs_missing_any"] / out["n_runs"]
    return out


def rank_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The long table (one row per run × shown résumé) from one row per run.

    ``runs`` needs ``model, job, run, reply, names, demos`` (``names``/``demos``: the shown
    names and their group codes, in the order shown). Group codes are ``RACE_GENDER``
    (``"B_W"`` = Black woman); ``race`` and ``gender`` are split from them.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run.

    Returns
    -------
    pandas.DataFrame
        One row per run × shown résumé: the run's keys, ``position``, ``name``, ``demo``,
        ``race``, ``gender``, ``rank`` and ``found``.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"model": "m", "job": "j", "run": [0, 1], "reply": ["1. Ann 2. Bob", "Bob, Ann"],
    ...                      "names": [["Ann", "Bob"]] * 2, "demos": [["W_W", "B_M"]] * 2})
    >>> rank_runs(runs)[["run", "name", "race", "gender", "rank"]].to_dict("list")
    {'run': [0, 0, 1, 1], 'name': ['Ann', 'Bob', 'Ann', 'Bob'], 'race': ['W', 'B', 'W', 'B'], 'gender': ['W', 'M', 'W', 'M'], 'rank': [1, 2, 2, 1]}
    """
    require_columns(runs, ["model", "job", "run", "reply", "names", "demos"], "run table")
    rows = []
    for rec in runs.itertuples(index=False):
        names, demos = list(rec.names), list(rec.demos)
        if len(names) != len(demos):
            raise ValueError(f"run {rec.model}/{rec.job}/{rec.run}: {len(names)} names but {len(demos)} group codes")
        try:
            ranks, found = first_occurrence_ranks(rec.reply, names)
        except ValueError as e:
            raise ValueError(f"run {rec.model}/{rec.job}/{rec.run}: {e}") from None
        for p, (name, demo, r, f) in enumerate(zip(names, demos, ranks, found), start=1):
            rows.append((rec.model, rec.job, rec.run, p, name, demo, r, f))
    out = pd.DataFrame(rows, columns=list(LONG_COLUMNS))
    split = out["demo"].str.split("_", n=1, expand=True)
    out.insert(6, "race", split[0])
    out.insert(7, "gender", split[1])
    return out


__all__ = ["RULES", "LONG_COLUMNS", "first_occurrence_ranks", "apply_rule", "top_picks", "missing_counts",
           "rank_runs"]
