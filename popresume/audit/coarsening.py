"""The coarsened-mediator artefact: name information beyond its group shows up as "NDE".

PopResume estimates its effects with the redlining mediators R grouped (Appendix
C.4): a first name becomes a gender-typicality and an age-typicality class (thresholds
0.75 / 0.5), a surname one of Asian/Black/White/neutral (0.5), a state its Census
region. The NDE is "the effect of X not through B or R". But a screener reads the
*name*, not its class: two "neutral" first names can differ in how male they are,
and within a class that residual maleness still tracks X. Conditioning on the class
does not block it, so whatever the screener does with it is attributed to the direct
path — an NDE for a screener that never sees X.

This module measures that artefact with a screener whose true NDE is exactly 0:

* :class:`NameLevelScreener` (synthetic) reads only ``first_name``, ``surname``, ``state``,
  ``edu_level`` and ``exp_year``. Its name effects are finer than the groups: a smooth
  effect of a name's gender/race typicality (how male / how White the name is, learned
  from a separate reference population) plus an idiosyncratic per-name effect.
* :func:`coarsening_artefact` estimates the effects twice on the same scores: with the
  paper's grouped R, and with the name groups refined by the continuous name typicalities
  (``fn_male_share``, ``fn_white_share``, ``sn_white_share``). The gap
  between the two NDEs, and the coarse NDE's distance from the true 0, is the artefact.

The same two estimates on a real screener (the embedding screener reads the résumé
text, which carries no gender or race field) show how much of its "direct effect" the
grouping manufactures.
"""

from __future__ import annotations

import hashlib
from typing import Mapping

import numpy as np
import pandas as pd

from popresume.audit.config import load_config
from popresume.audit.grid import audit_data
from popresume.causal import default_roles, significant
from popresume.causal.estimate import estimate_captured
from popresume.errors import require_columns
from popresume.population import generate_population
from popresume.resumes import render_texts
from popresume.schema import EDU_LEVELS

NAME_SHARE_COLUMNS = ("fn_male_share", "fn_white_share", "sn_white_share")


def name_shares(reference: pd.DataFrame, *, prior: float = 2.0) -> dict[str, pd.Series]:
    """Per-name typicalities from a reference population (not the audited sample).

    ``fn_male_share``: P(M | first name); ``fn_white_share``: P(White | first name);
    ``sn_white_share``: P(White | surname); each shrunk towards the reference's overall
    share with ``prior`` pseudo-counts so a name seen once is not scored as 0 or 1.
    """
    require_columns(reference, ["first_name", "surname", "gender", "race"], "reference population")
    male = (reference["gender"] == "M").astype(float)
    white = (reference["race"] == "White").astype(float)

    def share(key: str, ind: pd.Series) -> pd.Series:
        g = ind.groupby(reference[key])
        base = float(ind.mean())
        return (g.sum() + prior * base) / (g.size() + prior)

    out = {
        "fn_male_share": share("first_name", male),
        "fn_white_share": share("first_name", white),
        "sn_white_share": share("surname", white),
    }
    out["_base"] = pd.Series({"fn_male_share": float(male.mean()), "fn_white_share": float(white.mean()),
                              "sn_white_share": float(white.mean())})
    return out


def add_name_shares(profiles: pd.DataFrame, shares: Mapping[str, pd.Series]) -> pd.DataFrame:
    """Copy of ``profiles`` with the continuous name typicalities (names unseen in the reference get the base rate)."""
    out = profiles.copy()
    base = shares["_base"]
    for col, key in (("fn_male_share", "first_name"), ("fn_white_share", "first_name"), ("sn_white_share", "surname")):
        out[col] = out[key].map(shares[col]).astype(float).fillna(float(base[col]))
    return out


def _hash_normal(values: pd.Series, salt: str) -> np.ndarray:
    """A deterministic N(0, 1) draw per distinct string (the same name always gets the same effect)."""
    def one(v: str) -> float:
        h = hashlib.sha256(f"{salt}|{v}".encode()).digest()
        u1 = (int.from_bytes(h[:8], "big") + 0.5) / 2**64
        u2 = (int.from_bytes(h[8:16], "big") + 0.5) / 2**64
        return float(np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2))

    uniq = pd.unique(values.astype(str))
    table = {v: one(v) for v in uniq}
    return values.astype(str).map(table).to_numpy(float)


class NameLevelScreener:
    """Synthetic screener that never reads X: Y = f(first_name, surname, state, edu_level, exp_year) + noise.

    ``Y = 50 + b_edu·edu_rank + b_exp·exp_year + b_male·(fn_male_share − ½) + b_white·(sn_white_share − ½)
    + sd_name·u(first_name) + sd_state·u(state) + ε``, with ``u`` a fixed per-string N(0,1) and
    ε ~ N(0, noise_sd²). gender and race enter only through the names, so the true NDE is 0
    for both attributes (and so is any effect through a column it does not read).
    """

    kind = "synthetic"
    supports_images = False
    needs_profile = True
    true_nde = 0.0

    def __init__(self, shares: Mapping[str, pd.Series], *, b_male: float = 6.0, b_white: float = 4.0,
                 b_edu: float = 2.0, b_exp: float = 0.4, sd_name: float = 1.0, sd_state: float = 0.0,
                 noise_sd: float = 2.0, seed: int = 0):
        self.shares = shares
        self.params = dict(b_male=b_male, b_white=b_white, b_edu=b_edu, b_exp=b_exp, sd_name=sd_name,
                           sd_state=sd_state, noise_sd=noise_sd, seed=seed)
        self.screener_id = "synthetic-name-level"
        self.model = "name-level screener (synthetic, true NDE = 0)"

    READS = ("resume_id", "first_name", "surname", "state", "edu_level", "exp_year")

    def score_profiles(self, profiles: pd.DataFrame) -> pd.Series:
        """Scores for a profile table (only the columns in ``READS`` are looked at)."""
        require_columns(profiles, self.READS, "profiles")
        p = self.params
        seen = add_name_shares(profiles[list(self.READS)], self.shares)  # X is not even passed on
        edu_rank = seen["edu_level"].map({v: i for i, v in enumerate(EDU_LEVELS)})
        if edu_rank.isna().any():
            bad = seen.loc[edu_rank.isna(), "edu_level"].iloc[0]
            raise ValueError(f"column 'edu_level' has unknown value {bad!r}")
        rng = np.random.default_rng(p["seed"])
        y = (50 + p["b_edu"] * edu_rank.to_numpy(float) + p["b_exp"] * seen["exp_year"].to_numpy(float)
             + p["b_male"] * (seen["fn_male_share"].to_numpy() - 0.5)
             + p["b_white"] * (seen["sn_white_share"].to_numpy() - 0.5)
             + p["sd_name"] * _hash_normal(seen["first_name"], "fn")
             + p["sd_state"] * _hash_normal(seen["state"], "state")
             + rng.normal(0, p["noise_sd"], len(seen)))
        return pd.Series(y, index=profiles.index, name="score")


def fine_roles(attribute: str) -> dict:
    """The default roles with the name groups refined by the continuous name typicalities.

    ``fn_gender`` and ``surname_group`` are replaced by ``fn_male_share``, ``fn_white_share``
    and ``sn_white_share``; ``fn_age`` and ``region`` stay (age is in Z, and the state is
    not what this experiment refines; the default :class:`NameLevelScreener` has no
    within-region state effect).
    """
    roles = dict(default_roles(attribute))
    roles["r"] = ["fn_age", *NAME_SHARE_COLUMNS, "region"]
    return roles


def coarsening_artefact(data: pd.DataFrame, attribute: str, *, y: str = "score", folds: int = 5,
                        n_boot: int = 200, seed: int = 0, estimator: Mapping | None = None,
                        label: str = "", true_nde: float | None = None) -> pd.DataFrame:
    """Effects with the paper's coarse R and with the refined R, on the same scores.

    ``data``: profiles with ``add_groups`` columns, the name typicalities
    (:func:`add_name_shares`) and the score column ``y``. Returns two rows
    (mediators = "coarse", "fine") with ``{E}_{estimate,ci_low,ci_high}`` for the five
    effects, the overlap (``n_clipped`` over the three propensity models, ``min_ess``,
    ``clipped_share``), plus ``screener`` (= ``label``) and ``true_NDE`` when known.
    """
    require_columns(data, NAME_SHARE_COLUMNS, "data (call add_name_shares first)")
    rows = []
    for med, roles in (("coarse", default_roles(attribute)), ("fine", fine_roles(attribute))):
        result, warned = estimate_captured(data, **roles, y=y, folds=folds, n_boot=n_boot, seed=seed,
                                           **dict(estimator or {}))
        # finer R means less overlap (a name's typicality nearly determines X): the clipped
        # propensities are reported with the row rather than printed
        row = {"screener": label, "attribute": attribute, "mediators": med, "n": len(data),
               "n_clipped": int(result.diagnostics["n_clipped"]), **result.row(), "warnings": warned}
        if true_nde is not None:
            row["true_NDE"] = float(true_nde)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["NDE_excludes_0"] = significant(out["NDE_ci_low"], out["NDE_ci_high"])
    return out


def within_group_signal(data: pd.DataFrame, attribute: str = "gender") -> pd.DataFrame:
    """How much X still varies with the name *inside* each of the name classes that carry X.

    Gender: within each first-name gender class (``fn_gender``), the correlation between
    being male and the first name's male share. Race: within each surname class
    (``surname_group``, the grouping that carries race), the correlation between being
    White and the surname's White share. Columns: ``class_column``, ``name_class``, n,
    ``share_x1`` and ``corr_x_name_share``. A correlation far from 0 inside a class is
    exactly the information the grouping leaves on the direct path.
    """
    if attribute == "gender":
        xi = (data["gender"] == "M").astype(float)
        share, by = data["fn_male_share"], "fn_gender"
    elif attribute == "race":
        xi = (data["race"] == "White").astype(float)
        share, by = data["sn_white_share"], "surname_group"
    else:
        raise ValueError(f"unknown attribute {attribute!r}")
    rows = []
    for g, idx in data.groupby(by).groups.items():
        xs, ss = xi.loc[idx], share.loc[idx]
        corr = float(np.corrcoef(xs, ss)[0, 1]) if xs.nunique() > 1 and ss.nunique() > 1 else float("nan")
        rows.append({"class_column": by, "name_class": g, "n": len(idx), "share_x1": float(xs.mean()),
                     "corr_x_name_share": corr})
    return pd.DataFrame(rows)


def text_invariance(profiles: pd.DataFrame, *, seed: int = 0) -> float:
    """Share of résumés whose text is unchanged when gender and race are flipped.

    1.0 means the text is a function of the other profile fields only, so a screener
    reading the text has, against the *ungrouped* mediators, a true NDE of exactly 0:
    whatever direct effect an estimate shows is then an artefact of the grouping (or noise).
    """
    flipped = profiles.copy()
    flipped["gender"] = flipped["gender"].map({"F": "M", "M": "F"})
    flipped["race"] = flipped["race"].map({"White": "Black", "Black": "API", "API": "White"})
    a = render_texts(profiles, seed=seed)["text"].to_numpy()
    b = render_texts(flipped, seed=seed)["text"].to_numpy()
    return float((a == b).mean())


def artefact_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (screener, attribute): coarse and fine NDE, their gap, and the gap relative to the name path.

    ``table``: stacked outputs of :func:`coarsening_artefact`. ``gap`` = NDE(coarse) − NDE(fine);
    ``gap / RIE(fine)``: the share of the redlining-path effect that the grouping moves to
    the direct path.
    """
    rows = []
    for (scr, attr), g in table.groupby(["screener", "attribute"], sort=False):
        c = g[g["mediators"] == "coarse"].iloc[0]
        f = g[g["mediators"] == "fine"].iloc[0]
        gap = c["NDE_estimate"] - f["NDE_estimate"]
        rows.append({"screener": scr, "attribute": attr,
                     "NDE coarse": c["NDE_estimate"], "NDE coarse CI excludes 0": bool(c["NDE_excludes_0"]),
                     "NDE fine": f["NDE_estimate"], "gap": gap, "RIE fine": f["RIE_estimate"],
                     "gap / RIE fine": gap / f["RIE_estimate"] if f["RIE_estimate"] != 0 else np.nan,
                     "true NDE": c.get("true_NDE", np.nan)})
    return pd.DataFrame(rows)


def refine_cells(config, cells, *, fmt: str = "text", screener: str | None = None, n_ref: int = 20_000,
                 ref_seed: int = 7919, cache_dir=None, progress: bool = False) -> pd.DataFrame:
    """:func:`coarsening_artefact` on chosen cells of an audit grid, with the grid's own scores.

    ``config``: an audit config (path, dict or object, as :func:`popresume.audit.grid.run_audit`
    takes it); ``cells``: ``(occupation key, attribute)`` pairs. The scores come from the
    grid's caches (:func:`popresume.audit.grid.audit_data`), so after
    ``popresume audit --config`` nothing is scored again. Folds, draws, seed and estimator
    options are the grid's, so each cell's "coarse" row reproduces the grid's own row; the
    "fine" row refines the name classes by typicalities learned from a separate reference
    population of ``n_ref`` applicants of the same occupation (seed ``ref_seed``).
    One row per (cell, mediator set), with ``occupation`` and ``format`` added.
    """
    cfg = load_config(config)
    names = [e.name for e in cfg.screeners if fmt in e.formats]
    if not names:
        raise ValueError(f"no screener of config {cfg.name!r} scores the format {fmt!r}")
    screener = screener or names[0]
    if screener not in names:
        raise ValueError(f"screener {screener!r} does not score {fmt!r} in config {cfg.name!r} (it has {names})")
    for occ, attr in cells:
        if occ not in cfg.occupations:
            raise ValueError(f"occupation {occ!r} is not in config {cfg.name!r} (it has {list(cfg.occupations)})")
        if attr not in cfg.attributes:
            raise ValueError(f"attribute {attr!r} is not in config {cfg.name!r} (it has {list(cfg.attributes)})")
    data = audit_data(cfg, cache_dir=cache_dir, progress=progress)
    data = data[(data["format"] == fmt) & (data["screener"] == screener)]
    label = {e.name: e.label for e in cfg.screeners}[screener]
    rows = []
    for occ, attr in cells:
        ref = generate_population([occ], {occ: n_ref}, seed=ref_seed)
        cell = add_name_shares(data[data["occupation"] == occ].reset_index(drop=True), name_shares(ref))
        est = coarsening_artefact(cell, attr, folds=cfg.folds, n_boot=cfg.n_boot, seed=cfg.seed,
                                  estimator={"threads": 1, **dict(cfg.estimator)}, label=label)
        rows.append(est.assign(occupation=occ, format=fmt))
    return pd.concat(rows, ignore_index=True)


def label_mediators(rows: pd.DataFrame, prefix: str, n: int | None = None) -> pd.DataFrame:
    """Rows of :func:`coarsening_artefact` / :func:`refine_cells` with a ``variant`` label.

    "<prefix> (n = N), grouped R" for the ``coarse`` row, "... refined R" for the ``fine``
    one; N is ``n`` when given, else each row's own ``n``.
    """
    require_columns(rows, ["mediators"] + ([] if n is not None else ["n"]), "mediator rows")
    sizes = [n] * len(rows) if n is not None else rows["n"].tolist()
    return rows.assign(variant=[f"{prefix} (n = {k:,}), {'grouped' if m == 'coarse' else 'refined'} R"
                                for k, m in zip(sizes, rows["mediators"])])


def refined_rows(refined: pd.DataFrame, occupation: str, attribute: str, *,
                 prefix: str = "paper-size run", required: bool = True) -> pd.DataFrame:
    """The grouped and refined rows of one cell of a stored :func:`refine_cells` table, labelled.

    A cell the table does not hold raises ``ValueError`` naming the cells it has; with
    ``required=False`` it gives an empty table instead."""
    require_columns(refined, ["occupation", "attribute", "mediators", "n"], "refined-names table")
    rows = refined[(refined["occupation"] == occupation) & (refined["attribute"] == attribute)]
    if rows.empty and not required:
        return label_mediators(rows, prefix)
    if rows.empty:
        raise ValueError(f"the refined-names table has no row for occupation {occupation!r}, attribute "
                         f"{attribute!r}; it has {sorted(set(zip(refined['occupation'], refined['attribute'])))}")
    return label_mediators(rows, prefix)


def grid_cell_variants(data: pd.DataFrame, shares: Mapping[str, pd.Series], *, occupation: str, model: str,
                       attribute: str, fmt: str = "text", prefix: str = "grid cell") -> dict:
    """One cell of a grid's scores (:func:`popresume.audit.grid.audit_data`) with grouped and refined R.

    Returns ``{label: (data, roles, estimand)}`` for
    :func:`popresume.audit.variants.estimate_variants`: the paper's roles and
    :func:`fine_roles`, on the cell's rows with the name typicalities added.
    """
    require_columns(data, ["occupation", "format", "model"], "grid data")
    cell = add_name_shares(data[(data["occupation"] == occupation) & (data["format"] == fmt)
                                & (data["model"] == model)].reset_index(drop=True), shares)
    return {f"{prefix} (n = {len(cell)}), grouped R": (cell, default_roles(attribute), "all applicants"),
            f"{prefix} (n = {len(cell)}), refined R": (cell, fine_roles(attribute), "all applicants")}
