"""Appendix C.4 grouping and the name sources (P3, P4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from popresume import grouping
from popresume.sources import names


def test_gender_typicality_follows_threshold():
    stats = grouping.first_name_stats()
    sample = stats[stats["n"] > 5000].sample(300, random_state=0)
    got = grouping.gender_typicality(sample.index)
    want = np.where(sample["p_female"] > 0.75, "female", np.where(sample["p_female"] < 0.25, "male", "neutral"))
    assert (got == want).all()
    assert list(grouping.gender_typicality(["Mary", "John", "Zzyzxqy"])) == ["female", "male", "neutral"]
    # a name near the threshold moves when the threshold moves
    p = stats.loc["Taylor", "p_female"]
    assert 0.6 < p < 0.8
    assert grouping.gender_typicality(["Taylor"], threshold=p - 0.01)[0] == "female"
    assert grouping.gender_typicality(["Taylor"], threshold=p + 0.01)[0] == "neutral"


def test_age_typicality():
    stats = grouping.first_name_stats()
    assert grouping.age_cohorts() == {"young": (18, 26), "mid": (27, 35), "old": (36, 44)}
    got = grouping.age_typicality(["Aiden", "Jennifer", "Mary", "Zzyzxqy"])
    assert got[0] == "young" and got[1] == "old" and got[3] == "neutral"
    # Mary is spread over the cohorts: no cohort reaches 0.5
    assert stats.loc["Mary", ["p_young", "p_mid", "p_old"]].max() < 0.5 and got[2] == "neutral"
    rows = stats.loc[["Aiden", "Jennifer", "Mary"], ["p_young", "p_mid", "p_old"]]
    assert np.allclose(rows.sum(axis=1), 1.0)


def test_surname_group():
    got = grouping.surname_group(["Nguyen", "Washington", "Olson", "Garcia", "Notasurnamexyz", "SMITH"])
    assert list(got) == ["Asian", "Black", "White", "neutral", "neutral", "White"]
    probs = names.surname_race_probabilities()
    assert probs.loc["Garcia", "White"] < 0.5


def test_a_share_exactly_on_a_threshold_is_neutral_as_exceeds_says():
    stats = grouping.first_name_stats()
    probs = names.surname_race_probabilities()
    on_gender = stats.index[stats["p_female"] == 0.75][:3].tolist()
    on_male = stats.index[stats["p_female"] == 0.25][:3].tolist()
    on_age = stats.index[stats[["p_young", "p_mid", "p_old"]].max(axis=1) == 0.5][:3].tolist()
    on_surname = probs.index[probs["White"] == 0.5][:3].tolist()
    assert on_gender and on_male and on_age and on_surname
    assert set(grouping.gender_typicality(on_gender + on_male)) == {"neutral"}
    assert list(grouping.gender_typicality(on_gender + on_male, inclusive=True)) == (
        ["female"] * len(on_gender) + ["male"] * len(on_male))
    assert set(grouping.age_typicality(on_age)) == {"neutral"}
    assert "neutral" not in set(grouping.age_typicality(on_age, inclusive=True))
    assert set(grouping.surname_group(on_surname)) == {"neutral"}
    assert set(grouping.surname_group(on_surname, inclusive=True)) == {"White"}

    ties = grouping.threshold_ties(on_gender + ["Mary"], on_surname + ["Nguyen"])
    assert set(ties.loc[ties["grouping"] == "fn_gender", "name"]) == set(on_gender)
    assert set(ties.loc[ties["grouping"] == "surname_group", "name"]) == set(on_surname)
    assert (ties["strict"] == "neutral").all() and (ties["inclusive"] != "neutral").all()
    assert "Mary" not in set(ties["name"]) and "Nguyen" not in set(ties["name"])


def test_edu_region_race_binary_and_add_groups():
    prof = pd.DataFrame({
        "first_name": ["Mary", "Aiden"], "surname": ["Nguyen", "Olson"], "race": ["API", "White"],
        "edu_level": ["Some college (no degree)", "Doctorate"], "state": ["NY", "TX"],
    })
    g = grouping.add_groups(prof)
    assert list(g["edu_group"]) == ["low", "high"]
    assert list(g["region"]) == ["Northeast", "South"]
    assert list(g["race_binary"]) == ["Non-White", "White"]
    assert list(g["fn_gender"]) == ["female", "male"]
    assert list(g["surname_group"]) == ["Asian", "White"]
    assert "fn_gender" not in prof.columns  # a copy
    assert set(grouping.edu_group(["Associate's degree", "Bachelor's"])) == {"medium"}
    with pytest.raises(ValueError, match="surname"):
        grouping.add_groups(prof.drop(columns=["surname"]))
    with pytest.raises(ValueError, match="PhD"):
        grouping.edu_group(["PhD"])
    with pytest.raises(ValueError, match="XX"):
        grouping.region_of(["XX"])


def test_first_name_table_normalises_counts():
    t = names.first_name_table([1990, 1991])
    s = t.groupby(["sex", "year"])["p"].sum()
    assert np.allclose(s, 1.0)
    with pytest.raises(ValueError, match="2020"):
        names.first_name_table([2020])


def test_surname_probability_is_count_times_pct():
    t = names.surname_table("Black").set_index("name")["p"]
    raw = names.load_census_surnames().set_index("surname")
    ratio = t["Washington"] / t["Smith"]
    want = raw.loc["Washington", "count"] * raw.loc["Washington", "pctblack"] / (raw.loc["Smith", "count"] * raw.loc["Smith", "pctblack"])
    assert ratio == pytest.approx(want)
    assert "All Other Names" not in t.index
    with pytest.raises(ValueError, match="Martian"):
        names.surname_table("Martian")


def test_suppressed_cells_are_split_equally():
    raw = pd.DataFrame({
        "name": ["ABC", "DEF", "ALL OTHER NAMES"], "count": [150, 200, 1000],
        "pctwhite": ["90.00", "(S)", "60"], "pctblack": ["(S)", "50.00", "20"], "pctapi": ["(S)", "(S)", "10"],
        "pctaian": ["0.00", "(S)", "2"], "pct2prace": ["4.00", "10.00", "3"], "pcthispanic": ["2.00", "30.00", "5"],
    })
    t = names.clean_census_surnames(raw)
    assert list(t["name"]) == ["ABC", "DEF"]
    assert t.loc[0, "pctblack"] == pytest.approx(2.0) and t.loc[0, "pctapi"] == pytest.approx(2.0)
    assert t.loc[1, "pctwhite"] == pytest.approx(10 / 3)
    assert np.allclose(t[["pctwhite", "pctblack", "pctapi", "pctaian", "pct2prace", "pcthispanic"]].sum(axis=1), 100)
    with pytest.raises(ValueError, match="pcthispanic"):
        names.clean_census_surnames(raw.drop(columns=["pcthispanic"]))
