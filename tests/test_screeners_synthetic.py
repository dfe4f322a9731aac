"""The synthetic screener: determinism, the photo channel, and its exact true effects."""


import numpy as np
import pandas as pd
import pytest

from popresume.screeners import get_screener, score_resumes
from popresume.screeners.synthetic import SyntheticScreener

JD = {"nurse": "Registered nurse wanted."}


def toy_population(n=4000, seed=0):
    """A small discrete SCM: X = gender independent of Z = race; R (region) depends on X and Z;
    B (edu_group) depends on X, Z and R, so the nested mediator term of ψ matters."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["White", "Black", "API"], n, p=[0.6, 0.25, 0.15])
    gender = rng.choice(["F", "M"], n, p=[0.55, 0.45])
    p_west = 0.2 + 0.3 * (gender == "M") + 0.2 * (race == "API")
    region = np.where(rng.random(n) < p_west, "West", "South")
    p_high = 0.2 + 0.25 * (gender == "F") + 0.2 * (region == "West") + 0.1 * (race == "White")
    edu = np.where(rng.random(n) < p_high, "high", "low")
    return pd.DataFrame({"resume_id": [f"nurse-{i:06d}" for i in range(n)], "occupation": "nurse",
                         "gender": gender, "race": race, "region": region, "edu_group": edu,
                         "race_binary": np.where(race == "White", "White", "Non-White")})


ROLES = {"x": "gender", "x0": "F", "x1": "M", "z": ["race"], "b": ["edu_group"], "r": ["region"]}
COEF = {"edu_group": {"high": 6.0}, "region": {"West": -2.0}, "race": {"Black": -1.0}}


def brute_force_psi(p, s, a_y, a_b, a_r):
    """ψ(a_y, a_b, a_r) = Σ_{z,r,b} f(a_y,b,r,z) P(b|a_b,r,z) P(r|a_r,z) P(z), by explicit sums."""
    total = 0.0
    for z in p["race"].unique():
        pz = (p["race"] == z).mean()
        for r in p["region"].unique():
            sub_r = p[(p["gender"] == a_r) & (p["race"] == z)]
            pr = (sub_r["region"] == r).mean()
            for b in p["edu_group"].unique():
                sub_b = p[(p["gender"] == a_b) & (p["race"] == z) & (p["region"] == r)]
                pb = (sub_b["edu_group"] == b).mean()
                row = pd.DataFrame({"resume_id": ["x"], "gender": [a_y], "race": [z], "region": [r], "edu_group": [b],
                                    "race_binary": ["White" if z == "White" else "Non-White"]})
                total += s.f(row)[0] * pb * pr * pz
    return total


def test_true_effects_equal_the_explicit_sum():
    p = toy_population()
    s = SyntheticScreener(direct={"gender": {"M": 2.5}}, photo={}, coef=COEF, noise_sd=0.0)
    te = s.true_effects(p, "gender", roles=ROLES)
    assert te.attrs["fallback_cells"] == 0 and te.attrs["dropped_z_rows"] == 0
    psi = {k: brute_force_psi(p, s, *["M" if c == "1" else "F" for c in k]) for k in ("111", "000", "100", "101", "110")}
    for k, v in psi.items():
        assert te.attrs["psi"][k] == pytest.approx(v, abs=1e-9)
    t = te["true"]
    assert t["NDE"] == pytest.approx(2.5)
    assert t["TE"] == pytest.approx(t["NDE"] + t["NIE"]) and t["NIE"] == pytest.approx(t["BIE"] + t["RIE"])
    assert t["BIE"] < 0 and t["RIE"] < 0  # men: less often 'high' (−) and more often West (−)
    # with the photo channel on, NDE gains the photo term exactly
    s2 = SyntheticScreener(direct={"gender": {"M": 2.5}}, photo={"gender": {"M": 1.5}}, coef=COEF, noise_sd=0.0)
    assert s2.true_effects(p, "gender", roles=ROLES, format="image+photo")["true"]["NDE"] == pytest.approx(4.0)
    assert s2.true_effects(p, "gender", roles=ROLES, format="text")["true"]["NDE"] == pytest.approx(2.5)


def test_true_effects_match_mean_differences_when_no_mediation():
    p = toy_population()
    s = SyntheticScreener(direct={"gender": {"M": 3.0}}, photo={}, coef={"race": {"Black": -1.0}}, noise_sd=0.0)
    t = s.true_effects(p, "gender", roles=ROLES)["true"]
    assert t["TE"] == pytest.approx(3.0) and t["NIE"] == pytest.approx(0.0) and t["RIE"] == pytest.approx(0.0)


def test_scores_deterministic_and_noise_right_size():
    p = toy_population(3000)
    s = SyntheticScreener(coef=COEF, direct={"gender": {"M": 1.0}}, photo={}, noise_sd=4.0, seed=7)
    res = p[["resume_id", "occupation"]]
    a = score_resumes(s, res, profiles=p, cache=False, job_descriptions=JD)
    b = score_resumes(s, res.iloc[::-1], profiles=p.sample(frac=1, random_state=1), cache=False,
                      job_descriptions=JD)
    pd.testing.assert_series_equal(a.set_index("resume_id")["score"], b.set_index("resume_id")["score"].loc[a["resume_id"]])
    resid = a["score"].to_numpy() - s.f(p)
    assert abs(resid.mean()) < 0.3 and 3.7 < resid.std() < 4.3
    c = score_resumes(SyntheticScreener(coef=COEF, direct={"gender": {"M": 1.0}}, photo={}, noise_sd=4.0, seed=8),
                      res, profiles=p, cache=False, job_descriptions=JD)
    assert not np.allclose(a["score"], c["score"])
    assert a["parse_ok"].all() and a["screener"].eq("synthetic").all()


def test_photo_channel_follows_the_format_column(tmp_path):
    p = toy_population(200)
    s = SyntheticScreener(coef={}, direct={}, photo={"gender": {"M": 10.0}}, noise_sd=0.0)
    res = p[["resume_id", "occupation"]].copy()
    res["format"] = np.where(np.arange(len(p)) % 2 == 0, "image+photo", "image")
    out = score_resumes(s, res, profiles=p, cache=tmp_path / "c.sqlite", job_descriptions=JD)
    expected = 50 + 10.0 * ((p["gender"] == "M") & (res["format"] == "image+photo")).to_numpy()
    np.testing.assert_allclose(out["score"], expected)


def test_bad_coefficients_are_clear_errors():
    p = toy_population(100)
    p["hobby"] = np.random.default_rng(0).choice(["chess", "golf"], len(p))  # not a function of Z
    with pytest.raises(ValueError, match="unknown profile column 'hobby'"):  # refused by the spec, at once
        SyntheticScreener(coef={"hobby": {"golf": 1.0}}, photo={}, direct={})
    p["exp_year"] = np.arange(len(p)) % 7  # a profile column outside the roles of the effects
    with pytest.raises(ValueError, match="none of Z"):
        SyntheticScreener(coef={"exp_year": 0.1}, photo={}, direct={}).true_effects(p, "gender", roles=ROLES)
    with pytest.raises(ValueError, match="direct="):
        SyntheticScreener(coef={"gender": {"M": 1.0}}, photo={}, direct={}).true_effects(p, "gender", roles=ROLES)
    with pytest.raises(ValueError, match="format"):
        SyntheticScreener(format="video")


def test_default_screener_on_generated_population():
    from popresume.population import generate_population

    p = generate_population(["nurse"], {"nurse": 800}, seed=0)
    s = get_screener("synthetic")
    te = s.true_effects(p, "gender")
    assert list(te.index) == ["TE", "NDE", "NIE", "BIE", "RIE"]
    assert te.loc["NDE", "true"] == pytest.approx(1.0)
    tr = s.true_effects(p, "race")
    assert tr.loc["NDE", "true"] == pytest.approx(1.0)
    out = score_resumes(s, p[["resume_id", "occupation"]], profiles=p, cache=False, job_descriptions=JD)
    assert out["score"].between(0, 100).all()


def test_the_job_fit_term_reads_the_posting():
    """Against another occupation's shipped posting the score drops by ``posting_fit``; against
    its own it is f + noise (what the audits score, and what ``true_effects`` describes)."""
    from popresume.jobs import job_description
    from popresume.population import generate_population
    from popresume.schema import OCCUPATION_KEYS
    from popresume.screeners.synthetic import UNRECOGNISED_POSTING, posting_occupation

    p = generate_population(["nurse"], {"nurse": 50}, seed=1)
    res = p[["resume_id", "occupation"]]
    own_jd = {k: job_description(k) for k in OCCUPATION_KEYS}
    s = SyntheticScreener(posting_fit=7.5)
    own = score_resumes(s, res, profiles=p, cache=False)  # the shipped postings
    np.testing.assert_allclose(own["score"], s.score_frame(s.prepare_profiles(p)))
    other = score_resumes(s, res, profiles=p, cache=False, job_descriptions={"nurse": own_jd["teacher"]})
    np.testing.assert_allclose(own["score"] - other["score"], 7.5)
    assert all('"posting_for":"teacher"' in r.replace(" ", "") for r in other["raw"])
    # the own posting is recognised through whitespace and control characters (as prompts clean it)
    messy = {"nurse": "  " + own_jd["nurse"].replace("\n", "\n\n\x07") + "\t"}
    np.testing.assert_allclose(score_resumes(s, res, profiles=p, cache=False, job_descriptions=messy)["score"],
                               own["score"])
    # a posting that is none of the shipped ones is not penalised, and the raw reply says so
    unknown = score_resumes(s, res, profiles=p, cache=False, job_descriptions=JD)
    np.testing.assert_allclose(unknown["score"], own["score"])
    assert unknown["raw"].str.contains(UNRECOGNISED_POSTING).all() and posting_occupation(JD["nurse"]) is None
    assert [posting_occupation(own_jd[k]) for k in OCCUPATION_KEYS] == list(OCCUPATION_KEYS)
    # posting_fit is part of the identity (a cached score of another fit is not reused)
    assert s.cache_params()["posting_fit"] == 7.5 != SyntheticScreener().cache_params()["posting_fit"]
    with pytest.raises(ValueError, match="posting_fit"):
        SyntheticScreener(posting_fit=-1.0)
