"""P2 = P(exp_year | X, Z, state, edu_level, J): the work-experience model of PopResume §4.1.

The paper's method, step by step:

1. **Density-ratio reweighting** (Sugiyama et al. 2012). The experience source (PSID in the
   paper) and the target sample (ACS workers in occupation J) differ in their age / gender /
   schooling mix. A probabilistic classifier c(x) = P(target | x) trained to tell source from
   target rows gives the density ratio w(x) = p_T(x) / p_S(x) = c(x)/(1 - c(x)) · n_S/n_T,
   which reweights the source rows.
2. **Conditional mean**: an XGBoost regressor f fitted on the weighted source rows.
3. **Assumption 2**: exp_year ~ TruncNormal(μ(x), σ, [0, M]) with M = age - 18, where σ is
   estimated hierarchically by age, gender and J from the training residuals.
4. **Appendix B.2**: a Q-Q plot of the standardised residuals checks the normality.

Gender, race and collar (as far as the data allow): the regressor's features are age,
gender, years of schooling, potential experience (age - schooling - 6), Black (1/0) and
white collar (1/0). Race and collar are used only when every source row records them: a
column missing for one survey would act as an indicator of that survey (PSID1976 has no
collar, so the ``"psid"`` source leaves collar out). With the ``"psid"`` source race
is left out of the mean too (:data:`popresume.sources.experience_data.PSID_MEAN_COVARIATES`):
all PSID1976 women are white, so among women "Black" would stand for "a PSID7682 row", whose
experience is gap-free by the age assumption. Race still enters the reweighting. The
density-ratio classifier balances age, schooling, gender and, when both tables carry race,
the share of Black workers; collar is not reweighted (the target's collar is the
occupation's, :data:`OCCUPATION_COLLAR`, and enters the mean as a feature at sampling time).
State is not used: no source file here records it for every row (PSID7682 has only a
South indicator). The default source ``"measured"`` records neither race nor collar on
every row, so neither enters.

One implementation choice, stated because the sources need it: with
``target="share"`` (default) the regressor predicts the *share of potential years worked*,
exp_year / (age - 18), and μ = (age - 18) · f(x), σ = (age - 18) · s(age, gender, J). The
share extrapolates sensibly where the source is thin (few measured rows are under 25):
a 24-year-old who works like a 30-year-old has worked the same share of her possible years.
``target="years"`` fits exp_year directly, as the paper's notation reads.

**Gender term.** With ``gender_term=False`` (the default source ``"measured"``,
:data:`popresume.sources.experience_data.GENDER_FREE_SOURCES`) gender enters neither the
mean, nor σ, nor the reweighting, and the source rows get base weights that give each
gender equal weight within each 5-year age band (where both are present): the fitted share
is the two genders' average at each age, whatever mix of men and women a survey sampled.
Men and women of the same age, schooling and occupation then draw from one distribution,
so the population carries no gender gap in experience or career breaks by construction
(docs/DESIGN.md §2 says why this is the default).

σ hierarchy: residuals (on the share or years scale) give a weighted variance per level —
all rows, then gender, then gender × 5-year age band — and each level is shrunk toward its
parent with weight ``shrinkage`` pseudo-observations against its effective sample size
(Σw)²/Σw². Cells absent from the source take their parent's value. J enters through the
occupation-specific density-ratio weights (and its collar, when the mean uses collar).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special, stats
from sklearn.linear_model import LogisticRegression
from xgboost import XGBRegressor

from popresume.errors import require_columns
from popresume.schema import EDU_LEVELS
from popresume.sources.experience_data import DEFAULT_EXPERIENCE_SOURCE, SOURCE_DESCRIPTIONS

# Years of schooling for each kept ACS attainment level (to put edu_level and the source's
# years of schooling on one scale).
EDU_YEARS: dict[str, float] = {
    "High school graduate/GED": 12.0,
    "Some college (no degree)": 13.0,
    "Associate's degree": 14.0,
    "Bachelor's": 16.0,
    "Master's": 18.0,
    "Professional degree": 19.0,
    "Doctorate": 20.0,
}
AGE_BAND_WIDTH = 5
# White or blue collar, as PSID7682 codes occupations (feature of the conditional mean).
OCCUPATION_COLLAR: dict[str, str] = {
    "nurse": "white", "teacher": "white", "software_developer": "white", "accountant": "white",
    "construction_laborer": "blue",
}
# Shallow, strongly regularised trees: the default source has only 1,363 rows and the
# density-ratio weights concentrate them further (effective n of a few hundred), so deeper
# trees give a mean curve that zig-zags with age. Override through ``xgb_params``.
DEFAULT_XGB_PARAMS = dict(n_estimators=200, max_depth=2, learning_rate=0.05, subsample=0.8,
                          min_child_weight=20.0, reg_lambda=1.0, n_jobs=1, tree_method="hist")


def edu_years(edu_level) -> np.ndarray:
    """Years of schooling for edu_level values (raises naming an unknown level)."""
    s = pd.Series(edu_level)
    out = s.map(EDU_YEARS)
    if out.isna().any():
        raise ValueError(f"unknown edu_level {s[out.isna()].iloc[0]!r}; expected one of {list(EDU_LEVELS)}")
    return out.to_numpy(float)


def _indicator(values, level: str, n: int) -> np.ndarray:
    """1.0 / 0.0 where ``values`` equals / differs from ``level``; NaN where missing or None."""
    if values is None:
        return np.full(n, np.nan)
    v = pd.Series(np.broadcast_to(np.asarray(values, dtype=object), (n,)).copy())
    out = (v == level).astype(float).to_numpy().copy()
    out[v.isna().to_numpy()] = np.nan
    return out


def _features(age, gender, educ_years, race=None, collar=None, *, gender_term: bool = True) -> np.ndarray:
    age = np.asarray(age, float)
    female = (np.asarray(gender) == "F").astype(float) * float(gender_term)
    educ = np.asarray(educ_years, float)
    n = len(age)
    return np.column_stack([age, female, educ, age - educ - 6.0, _indicator(race, "Black", n),
                            _indicator(collar, "white", n)])


def _classifier_design(age, gender, educ_years, race=None, *, gender_term: bool = True) -> np.ndarray:
    age = np.asarray(age, float)
    female = (np.asarray(gender) == "F").astype(float)
    educ = np.asarray(educ_years, float)
    a, e = (age - 35.0) / 10.0, (educ - 14.0) / 3.0
    cols = [a, a * a, e, e * e, a * e] + ([female, female * a, female * e] if gender_term else [])
    if race is not None:
        cols.append(np.nan_to_num(_indicator(race, "Black", len(age))))
    return np.column_stack(cols)


def density_ratio_weights(source: pd.DataFrame, target: pd.DataFrame, *, target_weight=None,
                          classifier=None, clip_quantile: float = 0.99, source_weight=None,
                          gender_term: bool = True) -> np.ndarray:
    """w(x) = p_target(x) / p_source(x) for each source row, by a source-vs-target classifier.

    ``source`` and ``target`` have columns age, gender, educ_years; ``target_weight`` are the
    target rows' survey weights (ACS PERWT, or cell probabilities of the default P1). The two
    classes are balanced (each has total weight 1), so c/(1-c) is the density ratio itself.
    The default classifier is a logistic regression on a quadratic design (smooth, so it
    extrapolates gently); any estimator with ``fit(X, y, sample_weight)`` and
    ``predict_proba`` may be passed. Weights are clipped at their ``clip_quantile`` and
    rescaled to mean 1.

    ``source_weight`` are base weights of the source rows (default 1): the classifier sees
    the source so weighted and the result is p_target / p_source times them. With
    ``gender_term=False`` the classifier does not balance gender.
    """
    use_race = "race" in source.columns and "race" in target.columns
    xs = _classifier_design(source["age"], source["gender"], source["educ_years"],
                            source["race"] if use_race else None, gender_term=gender_term)
    xt = _classifier_design(target["age"], target["gender"], target["educ_years"],
                            target["race"] if use_race else None, gender_term=gender_term)
    wt = np.ones(len(target)) if target_weight is None else np.asarray(target_weight, float)
    if (wt < 0).any() or wt.sum() <= 0:
        raise ValueError("target weights must be non-negative with a positive sum")
    ws = np.ones(len(source)) if source_weight is None else np.asarray(source_weight, float)
    X = np.vstack([xs, xt])
    y = np.r_[np.zeros(len(xs)), np.ones(len(xt))]
    sw = np.r_[ws / ws.sum(), wt / wt.sum()] * len(X) / 2.0
    clf = classifier if classifier is not None else LogisticRegression(C=1.0, max_iter=2000)
    clf.fit(X, y, sample_weight=sw)
    c = np.clip(clf.predict_proba(xs)[:, 1], 1e-6, 1 - 1e-6)
    w = c / (1 - c) * ws
    if clip_quantile is not None and clip_quantile < 1:
        w = np.minimum(w, np.quantile(w, clip_quantile))
    return w / w.mean()


def _age_band(age) -> np.ndarray:
    return (np.asarray(age, int) // AGE_BAND_WIDTH) * AGE_BAND_WIDTH


def _wvar(r, w):
    sw = w.sum()
    return float((w * r * r).sum() / sw), float(sw * sw / (w * w).sum())


def hierarchical_sigma(residual, age, gender, weight, *, shrinkage: float = 20.0,
                       genders=("F", "M")) -> pd.DataFrame:
    """σ by (gender, age band), shrunk toward gender, then overall (Assumption 2).

    Returns a table with columns ``gender, age_band, sigma, n_eff, level`` for the cells
    present in the data; :meth:`ExperienceModel.sigma` falls back to the gender level for
    cells that are absent. Residuals are assumed centred (the regressor's errors).
    ``genders=("*",)`` with every ``gender`` "*" gives σ by age band alone (no gender term).
    """
    r = np.asarray(residual, float)
    w = np.asarray(weight, float)
    g = np.asarray(gender)
    band = _age_band(age)
    v_all, n_all = _wvar(r, w)
    rows = [("*", -1, np.sqrt(v_all), n_all, "all")]
    for gv in genders:
        m = g == gv
        if m.any():
            v, n = _wvar(r[m], w[m])
            v_g = (n * v + shrinkage * v_all) / (n + shrinkage)
        else:
            v_g, n = v_all, 0.0
        rows.append((gv, -1, np.sqrt(v_g), n, "gender"))
        for b in np.unique(band[m]) if m.any() else []:
            mb = m & (band == b)
            v, n = _wvar(r[mb], w[mb])
            rows.append((gv, int(b), np.sqrt((n * v + shrinkage * v_g) / (n + shrinkage)), n, "gender×age"))
    return pd.DataFrame(rows, columns=["gender", "age_band", "sigma", "n_eff", "level"])


def gender_balance_weights(age, gender) -> np.ndarray:
    """Base weights that give each gender half the weight of each 5-year age band.

    In a band where only one gender is present its rows keep weight 1. The weights are
    rescaled to mean 1. (With them a gender-free fit averages the two genders at each age,
    whatever mix of men and women each survey sampled.)
    """
    band = _age_band(age)
    g = np.asarray(gender)
    frame = pd.DataFrame({"band": band, "g": g})
    n_cell = frame.groupby(["band", "g"])["g"].transform("size").to_numpy(float)
    n_band = frame.groupby("band")["g"].transform("size").to_numpy(float)
    k_band = frame.groupby("band")["g"].transform("nunique").to_numpy(float)
    w = np.where(k_band > 1, n_band / (k_band * n_cell), 1.0)
    return w / w.mean()


def truncnorm_sample(mu, sigma, lo, hi, rng: np.random.Generator) -> np.ndarray:
    """Vectorised draws from TruncNormal(mu, sigma, [lo, hi]) by the inverse CDF."""
    mu, sigma, lo, hi = (np.asarray(v, float) for v in (mu, sigma, lo, hi))
    sigma = np.maximum(sigma, 1e-9)
    a = special.ndtr((lo - mu) / sigma)
    b = special.ndtr((hi - mu) / sigma)
    u = rng.random(np.broadcast(mu, sigma, lo, hi).shape)
    p = a + u * (b - a)
    x = mu + sigma * special.ndtri(np.clip(p, 1e-15, 1 - 1e-15))
    # far in a tail both CDF values round to 0 or 1: fall back to the nearer bound
    degenerate = ~(b - a > 1e-12)
    x = np.where(degenerate, np.where(mu < lo, lo, np.where(mu > hi, hi, mu)), x)
    return np.clip(x, lo, hi)


@dataclass
class ExperienceModel:
    """A fitted P2 for one occupation: μ(x) from XGBoost, σ(age, gender) hierarchical."""

    occupation: str
    target: str
    regressor: object
    sigma_table: pd.DataFrame
    source: pd.DataFrame  # training rows with weight, fitted, residual, z
    reweighted: bool = True
    diagnostics: dict = field(default_factory=dict)
    covariates: tuple = ()  # which of "race", "collar" the mean uses
    gender_term: bool = True  # False: gender enters neither the mean, nor σ, nor the reweighting

    def _scale(self, age) -> np.ndarray:
        return np.maximum(np.asarray(age, float) - 18.0, 0.0) if self.target == "share" else np.ones(len(np.atleast_1d(age)))

    def mean(self, age, gender, educ_years, race=None, collar=None) -> np.ndarray:
        """μ(x) in years (before truncation); race / collar None: unknown (the trees' missing branch)."""
        race = race if "race" in self.covariates else None
        collar = collar if "collar" in self.covariates else None
        f = self.regressor.predict(_features(age, gender, educ_years, race, collar, gender_term=self.gender_term))
        if self.target == "share":
            return np.clip(f, 0.0, 1.0) * self._scale(age)
        return np.asarray(f, float)

    def sigma(self, age, gender) -> np.ndarray:
        """σ in years for each (age, gender)."""
        t = self.sigma_table
        cell = {(g, b): s for g, b, s in t.loc[t["level"] == "gender×age", ["gender", "age_band", "sigma"]].itertuples(index=False)}
        parent = dict(t.loc[t["level"] == "gender", ["gender", "sigma"]].itertuples(index=False))
        overall = float(t.loc[t["level"] == "all", "sigma"].iloc[0])
        g = np.asarray(gender) if self.gender_term else np.full(len(np.atleast_1d(age)), "*")
        band = _age_band(age)
        s = np.array([cell.get((gi, int(bi)), parent.get(gi, overall)) for gi, bi in zip(g, band)], float)
        return s * self._scale(age)

    def sample(self, age, gender, edu_level, rng: np.random.Generator, *, race=None, collar=None) -> np.ndarray:
        """Integer exp_year draws, 0 <= exp_year <= age - 18 (Assumption 2, rounded).

        Rounding to whole years happens inside the bounds, so a draw never exceeds age - 18.
        """
        age = np.asarray(age, int)
        if (age < 18).any():
            raise ValueError(f"age {int(age[(age < 18).argmax()])} is below 18: no truncation interval [0, age-18]")
        gender = np.asarray(gender)
        ey = edu_years(edu_level)
        mu = self.mean(age, gender, ey, race, collar)
        # σ depends only on (age, gender): look up per unique pair, not per row
        key = age * 2 + (gender == "F")
        uk, inv = np.unique(key, return_inverse=True)
        sig = self.sigma(uk // 2, np.where(uk % 2 == 1, "F", "M"))[inv]
        x = truncnorm_sample(mu, sig, 0.0, age - 18.0, rng)
        return np.clip(np.rint(x), 0, age - 18).astype(int)


def fit_experience_model(source: pd.DataFrame, target: pd.DataFrame, *, occupation: str = "all",
                         target_weight=None, reweight: bool = True, target_kind: str = "share",
                         seed: int = 0, xgb_params: dict | None = None, classifier=None,
                         shrinkage: float = 20.0, covariates=None, gender_term: bool = True) -> ExperienceModel:
    """Fit P2 for one occupation (density ratio → XGBoost mean → hierarchical σ).

    ``source``: age, gender, educ_years, exp_year (see :mod:`popresume.sources.experience_data`).
    ``target``: the occupation's workers, columns age, gender and educ_years or edu_level,
    with optional ``target_weight`` (survey weights / cell probabilities).
    ``covariates``: which of "race", "collar" the mean may use (None: those recorded on
    every source row).
    ``gender_term``: False fits P2 without gender (module docstring, "Gender term").
    """
    if target_kind not in ("share", "years"):
        raise ValueError(f"target_kind must be 'share' or 'years', got {target_kind!r}")
    require_columns(source, ["age", "gender", "educ_years", "exp_year"], "experience source")
    # race / collar enter only when every source row has them: a column missing for one
    # survey would act as an indicator of that survey (PSID1976 has no collar)
    extra = [c for c in ("race", "collar") if c in source.columns and source[c].notna().all()]
    if covariates is not None:
        unknown = [c for c in covariates if c not in ("race", "collar")]
        if unknown:
            raise ValueError(f"covariates may be 'race' and 'collar', got {unknown}")
        extra = [c for c in extra if c in covariates]
    target = target.copy()
    if "educ_years" not in target.columns:
        if "edu_level" not in target.columns:
            raise ValueError("target sample needs column 'educ_years' or 'edu_level'")
        target["educ_years"] = edu_years(target["edu_level"])
    src = source[["age", "gender", "educ_years", "exp_year", *extra]].reset_index(drop=True).copy()
    if (src["age"] <= 18).any():
        src = src[src["age"] > 18].reset_index(drop=True)  # no potential experience to share
    base = None if gender_term else gender_balance_weights(src["age"], src["gender"])
    if reweight:
        w = density_ratio_weights(src, target, target_weight=target_weight, classifier=classifier,
                                  source_weight=base, gender_term=gender_term)
    else:
        w = np.ones(len(src)) if base is None else base
    X = _features(src["age"], src["gender"], src["educ_years"], src.get("race"), src.get("collar"),
                  gender_term=gender_term)
    scale = (src["age"].to_numpy(float) - 18.0) if target_kind == "share" else np.ones(len(src))
    y = src["exp_year"].to_numpy(float) / scale
    if target_kind == "share":
        y = np.clip(y, 0.0, 1.0)
    params = {**DEFAULT_XGB_PARAMS, **(xgb_params or {})}
    params.setdefault("random_state", seed)
    params["random_state"] = seed
    if target_kind == "share":
        params.setdefault("objective", "reg:logistic")
    reg = XGBRegressor(**params)
    reg.fit(X, y, sample_weight=w)
    fitted = reg.predict(X)
    if target_kind == "share":
        fitted = np.clip(fitted, 0.0, 1.0)
    resid = y - fitted
    sig_gender = src["gender"].to_numpy() if gender_term else np.full(len(src), "*")
    sig = hierarchical_sigma(resid, src["age"], sig_gender, w, shrinkage=shrinkage,
                             genders=("F", "M") if gender_term else ("*",))
    src["weight"] = w
    src["fitted_years"] = fitted * scale
    src["residual"] = resid
    model = ExperienceModel(occupation=occupation, target=target_kind, regressor=reg, sigma_table=sig,
                            source=src, reweighted=reweight, covariates=tuple(extra), gender_term=gender_term)
    unit_sigma = model.sigma(src["age"], src["gender"]) / scale
    src["z"] = resid / unit_sigma
    tw = np.ones(len(target)) if target_weight is None else np.asarray(target_weight, float)
    model.diagnostics = {
        "n_source": len(src),
        "effective_n": float(w.sum() ** 2 / (w * w).sum()),
        "max_weight": float(w.max()),
    }
    model.diagnostics["balance"] = balance_table(src, w, target, tw)
    return model


def balance_table(source: pd.DataFrame, weight, target: pd.DataFrame, target_weight) -> pd.DataFrame:
    """Means of age, share female, years of schooling (and share Black when both tables have
    race): source raw, source reweighted, target."""
    race = "race" in source.columns and "race" in target.columns

    def means(df, w):
        w = np.asarray(w, float) / np.sum(w)
        out = [float((df["age"] * w).sum()), float(((df["gender"] == "F") * w).sum()),
               float((df["educ_years"] * w).sum())]
        return out + ([float(((df["race"] == "Black") * w).sum())] if race else [])
    return pd.DataFrame({
        "source": means(source, np.ones(len(source))),
        "source reweighted": means(source, weight),
        "target": means(target, target_weight),
    }, index=["mean age", "share female", "mean years of schooling"] + (["share Black"] if race else []))


def qq_data(model: ExperienceModel) -> pd.DataFrame:
    """Appendix B.2: ordered standardised residuals against standard-normal quantiles.

    Weighted plotting positions (the source rows carry density-ratio weights).
    """
    src = model.source.sort_values("z")
    w = src["weight"].to_numpy(float)
    pos = (np.cumsum(w) - 0.5 * w) / w.sum()
    return pd.DataFrame({"theoretical": stats.norm.ppf(pos), "sample": src["z"].to_numpy(),
                         "gender": src["gender"].to_numpy(), "weight": w})


def describe_source(source=None) -> str:
    """One line: which P2 source a population used and the assumption it makes.

    ``source`` as for :func:`popresume.population.generate_population`'s
    ``experience_source``: None (the default), a name of
    :data:`popresume.sources.experience_data.EXPERIENCE_SOURCES`, a path or a DataFrame.

    Example
    -------
    >>> describe_source().startswith("P2 source 'measured' (default)")
    True
    """
    source = DEFAULT_EXPERIENCE_SOURCE if source is None else source
    if isinstance(source, str) and source in SOURCE_DESCRIPTIONS:
        return SOURCE_DESCRIPTIONS[source]
    if isinstance(source, pd.DataFrame):
        return "P2 source: a user's experience table (with a gender term; era and assumptions are the table's)"
    return f"P2 source: the user's experience file {source} (with a gender term; era and assumptions are the file's)"
