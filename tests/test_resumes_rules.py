"""Appendix B.1 instantiation rules, determinism and the no-leak guarantee."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from popresume.resumes import (
    REFERENCE_MONTH, REFERENCE_YEAR, build_resumes, n_roles, render_text, render_texts,
    toy_profiles,
)
from popresume.resumes.rules import EDU_PLAN, MIN_AGE, build_resume
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


def _idx(ym) -> int:
    return ym[0] * 12 + ym[1] - 1


def test_roles_follow_exp_year(profiles, resumes):
    expected = {0: 1, 2: 1, 3: 2, 5: 2, 6: 3, 10: 3, 11: 4, 26: 4}
    assert {k: n_roles(k) for k in expected} == expected
    for p, r in zip(profiles.itertuples(), resumes):
        assert len(r.roles) == n_roles(p.exp_year)
        chron = list(reversed(r.roles))
        for a, b in zip(chron, chron[1:]):
            assert _idx(a.end) <= _idx(b.start)  # oldest first, breaks (if any) between roles
        # the months worked are exp_year completed years (3-11 months for exp_year 0)
        assert r.career_months // 12 == p.exp_year, (p.resume_id, r.career_months, p.exp_year)
        assert r.career_months >= 3
        assert _idx(chron[-1].end) <= _idx((REFERENCE_YEAR, REFERENCE_MONTH))
        assert all(x.months > 0 for x in chron)
        order = ["junior", "mid", "senior"]
        ranks = [order.index(x.seniority) for x in chron]
        assert ranks == sorted(ranks) and ranks[0] == 0
        assert len({x.employer for x in chron}) == len(chron)
        assert all(len(x.bullets) == 2 for x in chron)  # Figure 8


def test_every_career_reaches_the_reference_date_with_breaks_between_roles(profiles, resumes):
    """Every profile is an ACS worker employed in 2023: the last role ends at 2023.12, and
    the months exp_year does not cover are equal breaks between roles."""
    ref = _idx((REFERENCE_YEAR, REFERENCE_MONTH))
    assert all(_idx(r.roles[0].end) == ref for r in resumes)
    n_breaks = 0
    for r in resumes:
        chron = list(reversed(r.roles))
        gaps = [_idx(b.start) - _idx(a.end) for a, b in zip(chron, chron[1:])]
        assert all(g >= 0 for g in gaps) and (not gaps or max(gaps) - min(gaps) <= 1), (r.resume_id, gaps)
        n_breaks += any(g > 0 for g in gaps)
    assert n_breaks > 0.1 * len(resumes)
    # the same profiles with career_end="forward": contiguous roles that often end before 2023.12
    forward = [build_resume(p, career_end="forward") for p in profiles.to_dict("records")]
    ends = pd.Series([_idx(r.roles[0].end) == ref for r in forward])
    assert 0.2 < ends.mean() < 0.9, ends.mean()
    for r, f in zip(resumes, forward):  # same months worked, same first start (with more than one role)
        assert r.career_months == f.career_months
        assert len(r.roles) == 1 or r.roles[-1].start == f.roles[-1].start
    with pytest.raises(ValueError, match="career_end"):
        build_resume(profiles.iloc[0].to_dict(), career_end="backward")


def test_breaks_do_not_depend_on_gender():
    a = build_resume(profile(gender="F", first_name="Keisha", exp_year=3, age=40, birth_year=1983))
    b = build_resume(profile(gender="M", first_name="Darnell", exp_year=3, age=40, birth_year=1983))
    assert [(x.start, x.end) for x in a.roles] == [(x.start, x.end) for x in b.roles]
    assert _idx(a.roles[-2].start) - _idx(a.roles[-1].end) > 12  # a long break between the two roles


def test_career_starts_after_education_when_it_fits(profiles, resumes):
    """Forward from the end of education (Appendix B.1): when exp_year fits between the
    earliest possible graduation and 2023.12, every role starts after the last degree."""
    ref = _idx((REFERENCE_YEAR, REFERENCE_MONTH))
    n_fit = 0
    for p, r in zip(profiles.itertuples(), resumes):
        top = r.education[-1]
        earliest_end = (p.birth_year + MIN_AGE[top.degree]) * 12 + 5
        first_start = _idx(r.roles[-1].start)
        if earliest_end + r.career_months < ref:
            n_fit += 1
            assert first_start > _idx(r.graduation[top.degree]), (p.resume_id, top.year, r.roles[-1].start)
            assert not any(x.preparatory for x in r.roles)
            # the first role follows graduation within 25 months (Figure 8: 2017 -> 2018.10),
            # unless a single role must start later to reach 2023.12
            if len(r.roles) > 1:
                assert first_start - _idx(r.graduation[top.degree]) <= 25
        else:  # more experience than fits after education: the career runs to the reference date
            assert _idx(r.roles[0].end) == ref, p.resume_id
    assert 0.4 < n_fit / len(resumes) < 0.95


def test_no_role_needs_a_degree_not_yet_earned(profiles, resumes):
    labels = {"nurse": "Registered Nurses", "accountant": "Accountants Auditors"}
    n_prep = 0
    for p, r in zip(profiles.itertuples(), resumes):
        for x in r.roles:
            if x.needs is not None:
                assert _idx(x.start) > _idx(r.graduation[x.needs]), (p.resume_id, x)
            if x.preparatory:
                n_prep += 1
                assert x.needs == "high_school"
            elif p.occupation in labels:
                assert x.title == labels[p.occupation]  # Figure 8 titles
        prep = [x for x in reversed(r.roles) if x.preparatory]
        main = [x for x in reversed(r.roles) if not x.preparatory]
        if prep and main:  # preparatory roles run until the needed degree, the occupation's roles right after
            assert _idx(main[0].start) == _idx(r.graduation[main[0].needs]) + 1, (p.resume_id, r.roles)
            assert all(_idx(x.start) < _idx(main[0].start) for x in prep)
        # a Bachelor's-level nurse, teacher, developer or accountant never works in the
        # occupation's own title before the Bachelor's
        if "bachelor" in r.graduation and p.occupation != "construction_laborer":
            for x in r.roles:
                if not x.preparatory:
                    assert x.start[0] >= r.graduation["bachelor"][0], (p.resume_id, x)
    assert n_prep > 0


def test_chapter_04_accountant_case():
    """A Master's accountant whose experience fits after the Master's starts after it."""
    p = profile(resume_id="accountant-000001", occupation="accountant", age=31, birth_year=1992,
                edu_level="Master's", exp_year=6)
    for seed in range(20):
        r = build_resumes([p], seed=seed)[0]
        assert _idx(r.roles[-1].start) > _idx(r.graduation["master"]), (seed, r.roles[-1], r.education)


def test_job_titles_option():
    p = profile()
    paper = build_resumes([p])[0]
    from popresume.resumes.rules import build_resume
    varied = build_resume(p, job_titles="seniority")
    assert {x.title for x in paper.roles if not x.preparatory} == {"Registered Nurses"}
    assert {x.title for x in varied.roles} != {"Registered Nurses"}
    assert [x.period for x in varied.roles] == [x.period for x in paper.roles]
    with pytest.raises(ValueError, match="job_titles"):
        build_resume(p, job_titles="fancy")


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


def test_career_table_and_summary(profiles, resumes):
    from popresume.resumes.stats import career_summary, career_table

    c = career_table(resumes, profiles)
    assert len(c) == len(profiles) and c["needs_ok"].all()
    assert (c["career_months"] // 12 == c["exp_year"]).all()
    fits = c["gap_months"] > 0
    assert (c.loc[~fits, "ends_at_reference"]).all()  # a career that starts before the last degree runs to 2023.12
    assert (c["months_since_end"] >= 0).all()
    s = career_summary(c)
    assert list(s.index) == list(dict.fromkeys(profiles["occupation"]))
    assert s["every role after its needed degree"].all() and s["months // 12 == exp_year"].all()
    assert s.loc["construction_laborer", "share with a preparatory role"] == 0
    assert s.loc["nurse", "share with a preparatory role"] > 0
