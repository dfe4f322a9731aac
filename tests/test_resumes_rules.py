"""Appendix B.1 instantiation rules, determinism and the no-leak guarantee."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from popresume.resumes import (
    REFERENCE_MONTH, REFERENCE_YEAR, build_resumes, n_roles, render_text, render_texts,
    toy_profiles,
)
from popresume.resumes.rules import EDU_PLAN, MIN_AGE
from popresume.resumes.stats import bullet_variety, count_tokens
from popresume.schema import EDU_LEVELS, PROFILE_COLUMNS


def profile(**kw) -> dict:
    p = {"resume_id": "nurse-000007", "occupation": "nurse", "gender": "F", "race": "Black", "age": 34,
         "birth_year": 1989, "state": "GA", "region": "South", "edu_level": "Master's", "exp_year": 9,
         "first_name": "Keisha", "surname": "Walker"}
    p.update(kw)
    return p


@pytest.fixture(scope="module")
def profiles() -> pd.DataFrame:
    return toy_profiles(300, seed=11)  # 1,500 rows, every occupation, every edu_level


@pytest.fixture(scope="module")
def resumes(profiles):
    return build_resumes(profiles)


def test_fixture_covers_the_grid(profiles):
    assert list(profiles.columns) == list(PROFILE_COLUMNS)
    assert set(profiles["edu_level"]) == set(EDU_LEVELS)
    assert profiles["exp_year"].min() == 0 and profiles["exp_year"].max() > 10


def test_education_entries_follow_edu_level(profiles, resumes):
    for p, r in zip(profiles.itertuples(), resumes):
        labels = [e.label for e in r.education]
        if p.edu_level in ("Master's", "Professional degree", "Doctorate"):
            assert len(labels) == 2 and labels[0] == "Bachelor's", (p.resume_id, labels)
            assert r.education[0].year < r.education[1].year
        else:
            assert len(labels) == 1, (p.resume_id, labels)
        assert [e.degree for e in r.education] == list(EDU_PLAN[p.edu_level])


def test_graduation_years_consistent_with_age(profiles, resumes):
    for p, r in zip(profiles.itertuples(), resumes):
        for e in r.education:
            assert e.year <= REFERENCE_YEAR
            assert e.year - p.birth_year >= MIN_AGE[e.degree], (p.resume_id, e)
            assert e.year - p.birth_year <= 30


def test_roles_follow_exp_year(profiles, resumes):
    expected = {0: 1, 2: 1, 3: 2, 5: 2, 6: 3, 10: 3, 11: 4, 26: 4}
    assert {k: n_roles(k) for k in expected} == expected
    for p, r in zip(profiles.itertuples(), resumes):
        assert len(r.roles) == n_roles(p.exp_year)
        chron = list(reversed(r.roles))
        # sequential, ending at the reference date, spanning exactly exp_year years (6 months for 0)
        assert chron[-1].end == (REFERENCE_YEAR, REFERENCE_MONTH)
        for a, b in zip(chron, chron[1:]):
            assert a.end == b.start
        assert sum(x.months for x in chron) == max(12 * p.exp_year, 6)
        assert all(x.months > 0 for x in chron)
        order = ["junior", "mid", "senior"]
        ranks = [order.index(x.seniority) for x in chron]
        assert ranks == sorted(ranks) and ranks[0] == 0
        assert len({x.employer for x in chron}) == len(chron)


def test_education_ends_before_work_when_possible(profiles, resumes):
    for p, r in zip(profiles.itertuples(), resumes):
        first_start = r.roles[-1].start[0]
        top = r.education[-1]
        if p.birth_year + MIN_AGE[top.degree] <= first_start:
            assert top.year <= first_start, (p.resume_id, top.year, first_start)


def test_text_layout_and_header():
    t = render_text(profile())
    lines = t.splitlines()
    assert lines[0] == "KEISHA WALKER"
    assert re.fullmatch(r"GA, USA \| \+1-[2-9]\d\d-555-01\d\d \| keisha\.walker@example\.com", lines[1])
    assert lines.index("WORK HISTORY") < lines.index("EDUCATION")
    assert "SKILLS" not in lines
    with_skills = render_text(profile(), skills=True).splitlines()
    assert with_skills.index("SKILLS") < with_skills.index("WORK HISTORY")
    # the skills switch adds the section and changes nothing else
    assert [x for x in with_skills if x not in ("SKILLS",)][:2] == lines[:2]
    i = with_skills.index("WORK HISTORY")
    assert with_skills[i:] == lines[lines.index("WORK HISTORY"):]


def test_state_name_becomes_usps_code():
    assert render_text(profile(state="New York")).splitlines()[1].startswith("NY, USA |")


def test_deterministic_and_seeded(profiles):
    a = render_texts(profiles.head(50), seed=3)
    b = render_texts(profiles.head(50), seed=3)
    c = render_texts(profiles.head(50), seed=4)
    pd.testing.assert_frame_equal(a, b)
    assert (a["text"] != c["text"]).mean() > 0.9
    # a résumé does not depend on which other rows are rendered with it
    single = render_text(profiles.iloc[7].to_dict(), seed=3)
    assert single == a["text"].iloc[7]


def test_no_leak_gender_and_first_name_change_only_name_and_email():
    base = profile()
    for race in ("White", "Black", "API"):
        swapped = profile(gender="M", first_name="Marcus", race=race)
        ta = render_text(base, skills=True).splitlines()
        tb = render_text(swapped, skills=True).splitlines()
        assert len(ta) == len(tb)
        diff = [i for i, (x, y) in enumerate(zip(ta, tb)) if x != y]
        assert diff == [0, 1]
        assert ta[1].split(" | ")[:2] == tb[1].split(" | ")[:2]  # state and phone unchanged
        assert tb[1].endswith("marcus.walker@example.com")


def test_no_gendered_or_race_words(resumes, profiles):
    texts = render_texts(profiles, skills=True)["text"]
    # remove the two header lines (the name may legitimately be anything)
    body = "\n".join("\n".join(t.splitlines()[2:]) for t in texts)
    for w in ("he", "she", "his", "her", "him", "male", "female", "woman", "man", "white", "black", "asian"):
        assert not re.search(rf"\b{w}\b", body, flags=re.IGNORECASE), w


def test_bullet_variety(resumes):
    v = bullet_variety(resumes)
    assert (v["pair_prob"] < 1e-3).all(), v
    assert (v["share_with_twin"] < 0.05).all(), v


def test_token_count():
    assert count_tokens("Led a team, of 5.") == 7  # Led a team , of 5 .
