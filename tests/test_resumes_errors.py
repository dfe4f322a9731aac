"""Bad input: clear errors naming the field, row or file."""

from __future__ import annotations

import pandas as pd
import pytest

from popresume.resumes import render_text, render_texts, toy_profiles


def profile(**kw) -> dict:
    p = {"resume_id": "teacher-000042", "occupation": "teacher", "gender": "M", "race": "API", "age": 29,
         "birth_year": 1994, "state": "WA", "region": "West", "edu_level": "Bachelor's", "exp_year": 5,
         "first_name": "Wei", "surname": "Chen"}
    p.update(kw)
    return p


def test_missing_field():
    p = profile()
    del p["edu_level"]
    with pytest.raises(ValueError, match="edu_level"):
        render_text(p)


@pytest.mark.parametrize("field,value", [("occupation", "pilot"), ("edu_level", "PhD"), ("gender", "X"),
                                         ("race", "Martian")])
def test_unknown_value_names_field_and_row(field, value):
    with pytest.raises(ValueError, match=field) as e:
        render_text(profile(**{field: value}))
    assert "teacher-000042" in str(e.value)


def test_unknown_state():
    with pytest.raises(ValueError, match="teacher-000042.*Atlantis"):
        render_text(profile(state="Atlantis"))


def test_missing_value_in_table_names_row():
    df = toy_profiles(2)
    df.loc[3, "surname"] = None
    with pytest.raises(ValueError, match=r"surname.*row 3"):
        render_texts(df)


def test_exp_year_longer_than_age_allows():
    df = toy_profiles(2)
    df.loc[4, "exp_year"] = int(df.loc[4, "age"]) - 17
    with pytest.raises(ValueError, match=rf"exp_year.*{df.loc[4, 'resume_id']}|row 4") as e:
        render_texts(df)
    assert "exp_year" in str(e.value)


def test_degree_impossible_at_age():
    with pytest.raises(ValueError, match="teacher-000042.*Doctorate.*age 20"):
        render_text(profile(age=20, birth_year=2003, exp_year=0, edu_level="Doctorate"))


def test_birth_year_inconsistent_with_age():
    with pytest.raises(ValueError, match="teacher-000042.*birth_year"):
        render_text(profile(birth_year=1970))


def test_duplicate_resume_id():
    df = pd.concat([toy_profiles(1).head(2)] * 2, ignore_index=True)
    with pytest.raises(ValueError, match="duplicate"):
        render_texts(df)
