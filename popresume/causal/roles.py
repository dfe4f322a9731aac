"""Which columns play X, Z, B, R (PopResume Table 2, Appendix C.4), and the data preparation.

The roles are a parameter, not a constant: the paper itself says other partitions of the
mediators into B and R are legitimate (§4). ``default_roles`` gives the paper's choice on
the grouped variables of Appendix C.4 (first name → gender- and age-typicality, surname →
race group, state → region, edu_level → low/medium/high).
"""

from __future__ import annotations

import pandas as pd

import numpy as np

from popresume.schema import ATTRIBUTES

from .estimate import estimate_row

_B = ["edu_group", "exp_year"]
_R = ["fn_gender", "fn_age", "surname_group", "region"]
GROUP_COLUMNS = ("fn_gender", "fn_age", "surname_group", "edu_group", "race_binary")
#: The scale every screener's prompt declares ("a single score from 0 to 100",
#: popresume.screeners.prompt.SCORE_SCHEMA). Every row is held to it, the synthetic
#: screener's too: its defaults keep Y well inside [0, 100], and a file that says
#: "synthetic" is no proof of where its numbers came from.
SCORE_SCALE = (0.0, 100.0)


def default_roles(attribute: str) -> dict:
    """dict(x, x0, x1, z, b, r) for "gender" (x0 = "F", x1 = "M") or "race" (Non-White vs White).

    Z = {the other protected attribute, age} as in the paper; fresh lists on every call.

    Parameters
    ----------
    attribute : {"gender", "race"}
        The protected attribute.

    Returns
    -------
    dict
        ``x``, ``x0``, ``x1``, ``z``, ``b``, ``r``: the keyword arguments of :func:`estimate_pse`.

    Examples
    --------
    >>> roles = default_roles("gender")
    >>> roles["x"], roles["x0"], roles["x1"], roles["b"]
    ('gender', 'F', 'M', ['edu_group', 'exp_year'])
    """
    if attribute == "gender":
        return {"x": "gender", "x0": "F", "x1": "M", "z": ["race", "age"], "b": list(_B), "r": list(_R)}
    if attribute == "race":
        # Appendix E: the race contrast is White vs Non-White (x0 = Non-White)
        return {"x": "race_binary", "x0": "Non-White", "x1": "White", "z": ["gender", "age"], "b": list(_B),
                "r": list(_R)}
    raise ValueError(f"unknown attribute {attribute!r}; expected one of {list(ATTRIBUTES)}")


def screener_rows(scores: pd.DataFrame, screener: str | None) -> pd.DataFrame:
    """The rows of ``scores`` whose ``screener`` or ``model`` column (as text) is ``screener``
    (all rows when ``screener`` is None; none when neither column exists)."""
    if screener is None:
        return scores
    cols = [c for c in ("screener", "model") if c in scores.columns]
    return scores[scores[cols].astype(str).eq(screener).any(axis=1)] if cols else scores.iloc[:0]


def screeners_present(scores: pd.DataFrame) -> list[str]:
    """The distinct values of the ``screener`` and ``model`` columns of a scores table."""
    cols = [c for c in ("screener", "model") if c in scores.columns]
    return sorted({str(v) for c in cols for v in scores[c].dropna().unique()})


def check_score_scale(scores: pd.DataFrame, score_col: str = "score", scale=SCORE_SCALE) -> None:
    """Refuse a score outside the screener's declared ``scale`` (NaN, a failed score, passes).

    Every row is checked, whatever its ``screener`` says. ``scale=None`` checks nothing.
    The error names the column, the value, its ``resume_id`` and how many scores are outside.
    """
    if scale is None:
        return
    lo, hi = scale
    v = pd.to_numeric(scores[score_col], errors="coerce")
    bad = v.notna() & ((v < lo) | (v > hi) | ~np.isfinite(v.fillna(0.0)))
    if bad.any():
        first = scores[bad].iloc[0]
        rid = f" (resume_id {first['resume_id']!r})" if "resume_id" in scores.columns else ""
        who = f" of screener {first['screener']!r}" if "screener" in scores.columns else ""
        raise ValueError(f"scores column {score_col!r} has the value {float(v[bad].iloc[0])!r}{rid}{who}, outside the "
                         f"screener's scale [{lo:g}, {hi:g}] ({int(bad.sum()):,} of {len(scores):,} scores outside): "
                         f"not a screener's score; check the scores file")


def prepare(profiles: pd.DataFrame, scores: pd.DataFrame, *, screener: str | None = None,
            score_col: str = "score", scale=SCORE_SCALE) -> pd.DataFrame:
    """Join profiles and one screener's scores on ``resume_id`` and add the Appendix C.4 groups.

    ``scores`` is the screeners' table (resume_id, screener, model, score, ...). When it holds
    several screeners, pass ``screener=`` (matched against the value of ``screener`` or ``model`` in
    each row). Group columns are added with ``popresume.grouping.add_groups`` when missing.
    Rows whose score is missing keep NaN: the estimator decides (``missing=``). A row whose
    ``parse_ok`` is False is a failed reply whatever number it holds: its score counts as
    missing. A score outside the screener's ``scale`` (default [0, 100]) is refused
    (:func:`check_score_scale`).

    Parameters
    ----------
    profiles : pandas.DataFrame
        The population table (one row per résumé, ``resume_id``).
    scores : pandas.DataFrame
        The screeners' score table.
    screener : str, optional
        Which screener's scores, when ``scores`` holds several.
    score_col : str
        The score column of ``scores``.
    scale : (float, float)
        The range a valid score lies in.

    Returns
    -------
    pandas.DataFrame
        The profiles with ``score`` and the Appendix C.4 group columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from popresume.resumes import toy_profiles
    >>> profiles = toy_profiles(1).head(4)  # one per occupation
    >>> scores = pd.DataFrame({"resume_id": profiles["resume_id"], "screener": "demo",
    ...                        "score": [10.0, 20.0, None, 40.0]})
    >>> d = prepare(profiles, scores)
    >>> d["score"].tolist(), "edu_group" in d
    ([10.0, 20.0, nan, 40.0], True)
    """
    for name, t in (("profiles", profiles), ("scores", scores)):
        if "resume_id" not in t.columns:
            raise ValueError(f"{name} table has no 'resume_id' column")
    if score_col not in scores.columns:
        raise ValueError(f"scores table has no {score_col!r} column; columns: {list(scores.columns)}")
    s = scores
    if screener is not None:
        s = screener_rows(scores, screener)
        if s.empty:
            raise ValueError(f"screener {screener!r} is not in the scores; they hold {screeners_present(scores)}")
    elif "screener" in s.columns and s["screener"].nunique() > 1:
        raise ValueError(f"scores hold several screeners {sorted(s['screener'].unique())}; pass screener=")
    if s["resume_id"].duplicated().any():
        dup = s.loc[s["resume_id"].duplicated(), "resume_id"].iloc[0]
        raise ValueError(f"scores have duplicate resume_id {dup!r} (several screeners/models?)")
    if "parse_ok" in s.columns:
        failed = ~s["parse_ok"].fillna(False).astype(bool)
        if failed.any():  # a failed parse is not a score, whatever number sits in the column
            s = s.assign(**{score_col: pd.to_numeric(s[score_col], errors="coerce").mask(failed)})
    check_score_scale(s, score_col, scale)
    keep = ["resume_id", score_col] + [c for c in ("screener", "model") if c in s.columns]
    df = profiles.merge(s[keep], on="resume_id", how="inner", validate="one_to_one")
    if len(df) == 0:
        raise ValueError("no resume_id in common between profiles and scores")
    if any(c not in df.columns for c in GROUP_COLUMNS):
        from popresume.grouping import add_groups  # written by the population area; imported lazily
        df = add_groups(df)
    return df


def partition_roles(attribute: str, b=None, r=None) -> dict:
    """``default_roles(attribute)`` with the mediators split differently into B and R.

    ``b`` / ``r``: lists of columns (None keeps the paper's). The paper's W = B ∪ R is
    {edu_group, exp_year, fn_gender, fn_age, surname_group, region}; moving a column
    from one list to the other leaves TE, NDE and NIE unchanged (they depend on W only)
    and moves part of the indirect effect between BIE and RIE. Raises ``ValueError`` when
    a column is listed twice, in both B and R, or is X or one of Z.

    Parameters
    ----------
    attribute : {"gender", "race"}
        The protected attribute.
    b, r : list of str, optional
        The business-necessity and redlining mediators; None keeps the paper's list.

    Returns
    -------
    dict
        The roles, as :func:`default_roles` returns them.

    Examples
    --------
    >>> partition_roles("gender", b=["edu_group", "exp_year", "region"],
    ...                 r=["fn_gender", "fn_age", "surname_group"])["b"]
    ['edu_group', 'exp_year', 'region']
    >>> try:
    ...     partition_roles("gender", b=["region"], r=["region"])
    ... except ValueError as refused:
    ...     print(refused)
    column 'region' is in both b and r; a mediator is business necessity or redlining
    """
    roles = default_roles(attribute)
    for name, cols in (("b", b), ("r", r)):
        if cols is None:
            continue
        if isinstance(cols, str) or not all(isinstance(c, str) for c in cols):
            raise ValueError(f"{name} must be a list of column names, got {cols!r}")
        cols = list(cols)
        if len(set(cols)) != len(cols):
            dup = next(c for c in cols if cols.count(c) > 1)
            raise ValueError(f"column {dup!r} is listed twice in {name}")
        roles[name] = cols
    both = [c for c in roles["b"] if c in roles["r"]]
    if both:
        raise ValueError(f"column {both[0]!r} is in both b and r; a mediator is business necessity or redlining")
    for c in roles["b"] + roles["r"]:
        if c == roles["x"] or c in roles["z"]:
            raise ValueError(f"column {c!r} is the protected attribute or a confounder ({roles['x']!r}, z={roles['z']})"
                             f" for attribute {attribute!r}; it cannot be a mediator")
    return roles


def compare_partitions(data: pd.DataFrame, attribute: str, partitions, *, y: str = "score",
                       **estimator) -> pd.DataFrame:
    """Path-specific effects of one audit cell under several B/R partitions of the mediators.

    ``partitions``: mapping name -> (b, r) (lists of columns, see :func:`partition_roles`).
    Every partition is estimated by :func:`popresume.causal.estimate.estimate_row` on the same rows with
    the same ``seed`` (folds, bootstrap), ``estimator`` holding its other keyword arguments
    (``folds``, ``n_boot``, ``tune``, ...). Returns one row per partition in the layout of
    the results table — ``partition``, ``b``, ``r``, ``same_w`` (W = B ∪ R equals the first
    partition's), ``{TE,NDE,NIE,BIE,RIE}_{estimate,se,ci_low,ci_high}``, ``min_ess`` and
    ``clipped_share`` (smallest ESS of any weight, largest share of clipped propensities) — plus ``warnings``
    (estimation diagnostics, e.g. clipping, collected rather than printed).

    Parameters
    ----------
    data : pandas.DataFrame
        One audit cell's rows (profiles joined with scores, :func:`prepare`).
    attribute : {"gender", "race"}
        The protected attribute.
    partitions : mapping
        Name -> (b, r).
    y : str
        The score column.
    **estimator
        Options of :func:`estimate_pse` other than the roles.

    Returns
    -------
    pandas.DataFrame
        One row per partition.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n = 600
    >>> df = pd.DataFrame({"gender": rng.choice(["F", "M"], n), "race": rng.choice(["White", "Black"], n),
    ...                    "age": rng.choice(["young", "old"], n), "edu_group": rng.choice(["a", "b"], n),
    ...                    "exp_year": rng.choice(["a", "b"], n), "fn_gender": rng.choice(["a", "b"], n),
    ...                    "fn_age": rng.choice(["a", "b"], n), "surname_group": rng.choice(["a", "b"], n),
    ...                    "region": rng.choice(["a", "b"], n)})
    >>> df["score"] = 50 + 2 * (df["gender"] == "M") + rng.normal(size=n)
    >>> from popresume.causal.nuisance import CellMeans
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     t = compare_partitions(df, "gender", {"paper": (None, None),
    ...                                           "region in B": (["edu_group", "exp_year", "region"],
    ...                                                           ["fn_gender", "fn_age", "surname_group"])},
    ...                            n_boot=0, learners={"propensity": CellMeans(), "outcome": CellMeans()})
    >>> t["partition"].tolist(), t["same_w"].tolist()
    (['paper', 'region in B'], [True, True])
    >>> t["b"].tolist()
    ['edu_group, exp_year', 'edu_group, exp_year, region']
    """
    if not partitions:
        raise ValueError("partitions is empty; give at least one name -> (b, r)")
    rows = []
    w0 = None
    for name, pair in dict(partitions).items():
        if len(pair) != 2:
            raise ValueError(f"partition {name!r} must be a pair (b, r), got {pair!r}")
        roles = partition_roles(attribute, *pair)
        w = set(roles["b"]) | set(roles["r"])
        w0 = w if w0 is None else w0
        rows.append({"partition": name, "b": ", ".join(roles["b"]), "r": ", ".join(roles["r"]), "same_w": w == w0,
                     **estimate_row(data, **roles, y=y, stats=("estimate", "se", "ci_low", "ci_high"), **estimator)})
    return pd.DataFrame(rows)
