"""Population generation: calibration margins, constraints, determinism, bad input, the memory bound."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from popresume.io import write_parquet
from popresume.population import (
    compare_with_published, generate_population, p1_table, resolve_sizes,
)
from popresume.schema import DEFAULT_SIZES, OCCUPATION_KEYS, PROFILE_COLUMNS, RACES, validate_profiles
from popresume.sources import calibration


@pytest.fixture(scope="module")
def profiles():
    return generate_population(sizes=6000, seed=11)


def test_table3_default_sizes():
    sizes = resolve_sizes()
    assert sizes == DEFAULT_SIZES
    assert sum(sizes.values()) == 60_884
    assert resolve_sizes(["nurse"], 5) == {"nurse": 5}
    assert resolve_sizes(sizes={"teacher": 3, "nurse": 2}) == {"teacher": 3, "nurse": 2}


def test_schema_and_experience_bound(profiles):
    validate_profiles(profiles)
    assert list(profiles.columns) == list(PROFILE_COLUMNS)
    assert len(profiles) == 6000 * len(OCCUPATION_KEYS)
    assert (profiles["exp_year"] >= 0).all()
    assert (profiles["exp_year"] <= profiles["age"] - 18).all()
    assert profiles["age"].between(18, 44).all()
    assert (profiles["birth_year"] == 2023 - profiles["age"]).all()
    assert profiles["resume_id"].is_unique
    # experience rises with age (Figure 7d)
    m = profiles.groupby("age")["exp_year"].mean()
    assert m.loc[40:44].mean() > m.loc[25:29].mean() + 3


def test_margins_match_published_within_sampling_error(profiles):
    cmp = compare_with_published(profiles)
    assert set(cmp["variable"]) == {"gender", "race", "edu_level", "age_bin"}
    # 80 comparisons: |z| beyond 4.5 has probability ~1e-5 each under correct calibration
    worst = cmp.loc[cmp["z"].abs().idxmax()]
    assert cmp["z"].abs().max() < 4.5, worst.to_dict()
    # and the published margins themselves are what the CPS tables say
    women = cmp[(cmp.variable == "gender") & (cmp.level == "F")].set_index("occupation")["published"]
    assert women["nurse"] == pytest.approx(0.874)
    assert women["construction_laborer"] == pytest.approx(0.045)


def test_default_p1_joint_has_published_margins():
    for occ in OCCUPATION_KEYS:
        p1 = p1_table(occ)
        assert p1["p"].sum() == pytest.approx(1.0)
        g = p1.groupby("gender")["p"].sum()
        assert g["F"] == pytest.approx(calibration.gender_shares(occ)["F"], abs=1e-9)
        r = p1.groupby("race")["p"].sum()
        pd.testing.assert_series_equal(r.reindex(list(RACES)), calibration.race_shares(occ), check_names=False, atol=1e-9)
        s = p1.groupby("state")["p"].sum()
        pd.testing.assert_series_equal(s.reindex(calibration.state_shares(occ).index), calibration.state_shares(occ),
                                       check_names=False, atol=1e-8)
        # edu among 25+ equals the published distribution
        e = p1[p1["age"] >= 25].groupby("edu_level")["p"].sum()
        e = e / e.sum()
        pub = calibration.education_shares(occ)
        np.testing.assert_allclose(e.reindex(pub.index, fill_value=0.0).to_numpy(), pub.to_numpy(), atol=1e-9)
        # no impossible degrees for the young
        assert not ((p1["age"] < 21) & (p1["edu_level"] == "Bachelor's")).any()


def test_state_race_association_from_population():
    """IPF keeps the population's state-race odds: Hawaii is far more API than Mississippi."""
    j = calibration.state_race_joint("nurse")
    api_share = j["API"] / j.sum(axis=1)
    assert api_share["HI"] > 5 * api_share["MS"]
    black_share = j["Black"] / j.sum(axis=1)
    assert black_share["MS"] > 5 * black_share["MT"]


def test_names_agree_with_gender_and_race(profiles):
    from popresume.grouping import add_groups

    g = add_groups(profiles)
    fem = (g.loc[g.gender == "F", "fn_gender"] == "female").mean()
    mal = (g.loc[g.gender == "M", "fn_gender"] == "male").mean()
    assert fem > 0.9 and mal > 0.9
    assert (g.loc[g.gender == "F", "fn_gender"] == "male").mean() < 0.03
    asian = (g.loc[g.race == "API", "surname_group"] == "Asian").mean()
    white = (g.loc[g.race == "White", "surname_group"] == "White").mean()
    black_match = (g.loc[g.race == "Black", "surname_group"] == "Black").mean()
    black_in_white = (g.loc[g.race == "White", "surname_group"] == "Black").mean()
    assert asian > 0.7 and white > 0.8
    assert black_match > 5 * black_in_white
    # first names follow birth cohorts: "young" names go with younger applicants
    assert g.loc[g.fn_age == "young", "age"].mean() < g.loc[g.fn_age == "old", "age"].mean() - 5


def test_deterministic_under_seed(tmp_path):
    a = generate_population(["nurse", "accountant"], 500, seed=3)
    b = generate_population(["nurse", "accountant"], 500, seed=3)
    pd.testing.assert_frame_equal(a, b)
    write_parquet(a, tmp_path / "a.parquet")
    write_parquet(b, tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    c = generate_population(["nurse", "accountant"], 500, seed=4)
    assert not a.equals(c)
    # an occupation's profiles do not depend on which others are generated with it
    alone = generate_population(["accountant"], 500, seed=3)
    pd.testing.assert_frame_equal(alone, a[a.occupation == "accountant"].reset_index(drop=True))


def test_race_groups_parameter():
    df = generate_population(["software_developer"], 800, seed=0, races=("White", "API"))
    assert set(df["race"]) == {"White", "API"}


def test_age_range_parameter():
    df = generate_population(["teacher"], 500, seed=0, age_range=(30, 35))
    assert df["age"].between(30, 35).all()
    assert (df["exp_year"] <= df["age"] - 18).all()


@pytest.mark.parametrize("kwargs, match", [
    (dict(occupations=["nurse", "astronaut"]), "astronaut"),
    (dict(occupations=["nurse"], sizes=0), "positive integer"),
    (dict(occupations=["nurse"], sizes=-5), "-5"),
    (dict(sizes={"nurse": 10, "pilot": 3}), "pilot"),
    (dict(occupations=["nurse"], sizes=10, age_range=(16, 44)), "16-44"),
    (dict(occupations=["nurse"], sizes=10, age_range=(18, 80)), "18-80"),
    (dict(occupations=["nurse"], sizes=10, races=("White", "Martian")), "Martian"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        generate_population(**kwargs)


def test_sizes_beyond_memory_are_refused_up_front(monkeypatch):
    import popresume.population as pop

    drawn = []
    monkeypatch.setattr(pop, "sample_occupation", lambda *a, **k: drawn.append(a) or None)
    monkeypatch.setattr(pop, "available_memory", lambda: 64 * 2**20)  # 64 MiB: 32,768 profiles at 1 KiB, half of it
    assert pop.max_profiles() == 32_768
    with pytest.raises(ValueError, match=r"sizes ask for 40,000 profiles .* at most 32,768 .* one occupation per run"):
        pop.generate_population(["nurse", "teacher"], 20_000)
    with pytest.raises(ValueError, match=r"'nurse' alone asks for 100,000,000: runs of a smaller --size"):
        pop.generate_population(["nurse"], 100_000_000)
    assert drawn == []  # refused before anything was drawn
    monkeypatch.setattr(pop, "available_memory", lambda: None)  # unknown: no bound
    pop.check_memory({"nurse": 10**9})
    pop.check_memory({"nurse": 16_000, "teacher": 16_000}, available=64 * 2**20)  # within the limit


def test_bytes_per_profile_covers_what_generation_takes():
    """The bound's per-profile figure is not below what a table of profiles takes once made."""
    from popresume.population import BYTES_PER_PROFILE

    df = generate_population(["nurse", "teacher"], 2_000, seed=3)
    assert df.memory_usage(deep=True).sum() / len(df) < BYTES_PER_PROFILE / 2


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\ufeff", "\x00"])
def test_profile_names_with_invisible_or_control_characters_are_refused(char):
    """A right-to-left override or a zero-width space in a name would reach the prompt
    unseen; it is refused like a control character, naming the column and the row."""
    profiles = generate_population(["nurse"], {"nurse": 5}, seed=0)
    profiles.loc[profiles.index[2], "first_name"] = "Ann" + char + "a"
    with pytest.raises(ValueError, match="profile column 'first_name' has a control character"):
        validate_profiles(profiles)
