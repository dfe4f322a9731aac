"""Career breaks by gender on résumés built from the default population (P2's source).

The reference is the measurement on the earlier default (``experience_source="psid"``,
``generate --occupations nurse,construction_laborer --size 1500 --seed 5``, 3,000 résumés
built with ``build_resume``): mean months of breaks F 12.1 / M 1.7 among nurses and
F 29.1 / M 1.0 among construction laborers; breaks > 24 months 17.9% / 1.1% and
25.5% / 0.1%. The PSID 1976-82 rows carry no age (age = schooling + 6 + experience), so
every break that source knows is a woman's.

"Small" for the default is judged on the *adjusted* gap (women minus men among résumés of
the same 5-year age band and edu_level, :func:`popresume.resumes.breaks.gender_break_gap`),
the part P2 itself puts between a woman and a man; the raw gap adds the occupation's gender
differences in age and schooling, which come from P1. The thresholds are 2.5 bootstrap
standard errors of the adjusted gap at this size (200 resamples within occupation ×
gender, measured once: nurse 2.3 months and 3.2 points, construction laborer 4.8 months
and 5.6 points), so a gender-free P2 passes by sampling noise alone with high probability,
while the earlier default's adjusted gaps (nurse 11.5 months and 18.5 points, construction
laborer 27.0 months and 32.6 points) are each more than twice its threshold: the test
fails if the default silently reverts.
"""

from __future__ import annotations

import pytest

import pandas as pd

from popresume.population import generate_population
from popresume.resumes.breaks import break_months, breaks_by_gender, gender_break_gap, with_break_months
from popresume.resumes.rules import Resume, Role

OCCUPATIONS = ["nurse", "construction_laborer"]
# (months, share of breaks > 24 months): 2.5 bootstrap SEs of the adjusted gap at size 1500
THRESHOLD = {"nurse": (6.0, 0.08), "construction_laborer": (12.0, 0.14)}
# the table on the earlier default (mean break months, share > 24 months)
PUBLISHED_PSID = {("nurse", "F"): (12.1, 0.179), ("nurse", "M"): (1.7, 0.011),
                  ("construction_laborer", "F"): (29.1, 0.255), ("construction_laborer", "M"): (1.0, 0.001)}


@pytest.fixture(scope="module")
def populations():
    return {src: with_break_months(generate_population(OCCUPATIONS, 1500, seed=5, experience_source=src))
            for src in (None, "psid")}


def test_default_population_has_no_built_in_gender_gap_in_breaks(populations):
    gap = gender_break_gap(populations[None])
    old = gender_break_gap(populations["psid"])
    for occ, (months, share) in THRESHOLD.items():
        assert abs(gap.at[occ, "adjusted_gap_break_months"]) < months, occ
        assert abs(gap.at[occ, "adjusted_gap_share_over_24"]) < share, occ
        # the raw gap (P1's age and schooling differences included) is well under the old one
        assert abs(gap.at[occ, "gap_break_months"]) < 0.5 * old.at[occ, "gap_break_months"], occ
    # men's résumés now have breaks too (under the old default almost none had)
    table = breaks_by_gender(populations[None])
    assert (table.xs("M", level="gender")["mean_break_months"] > 10).all()


def test_psid_option_reproduces_the_measured_gap(populations):
    table = breaks_by_gender(populations["psid"])
    for (occ, g), (months, share) in PUBLISHED_PSID.items():
        row = table.loc[(occ, g)]
        # the composition drifts a little with P1 (the small F construction cell most)
        assert row["mean_break_months"] == pytest.approx(months, abs=3.0), (occ, g)
        assert row["share_breaks_over_24"] == pytest.approx(share, abs=0.08), (occ, g)
    gap = gender_break_gap(populations["psid"])
    for occ, (months, share) in THRESHOLD.items():
        assert gap.at[occ, "adjusted_gap_break_months"] > 1.5 * months, occ
        assert gap.at[occ, "adjusted_gap_share_over_24"] > 1.5 * share, occ


def test_break_months_hand_case():
    # roles newest first, as on the page: 2019.03-2023.12, 2015.01-2018.06, 2010.09-2014.01
    roles = (Role("c", "C", (2019, 3), (2023, 12), "senior", ()), Role("b", "B", (2015, 1), (2018, 6), "mid", ()),
             Role("a", "A", (2010, 9), (2014, 1), "junior", ()))
    resume = Resume("r1", "nurse", "N N", "CA", "+1", "n@example.com", roles, (), (), {})
    assert break_months(resume) == 12 + 9  # 2014.01 -> 2015.01 is 12 months, 2018.06 -> 2019.03 is 9


def test_gender_break_gap_hand_case():
    # one cell (age band 30, Bachelor's): women 10 and 30 months, men 0 -> adjusted gap 20 months;
    # a second cell holds only women (40 months): in the raw gap, not in the adjusted one
    rows = [("F", 31, 10), ("F", 32, 30), ("M", 33, 0), ("F", 41, 40)]
    p = pd.DataFrame({"occupation": "nurse", "gender": [r[0] for r in rows], "age": [r[1] for r in rows],
                      "edu_level": "Bachelor's", "break_months": [r[2] for r in rows]})
    gap = gender_break_gap(p).loc["nurse"]
    assert gap["adjusted_gap_break_months"] == 20.0 and gap["women_in_compared_cells"] == 2
    assert gap["gap_break_months"] == (10 + 30 + 40) / 3 - 0
    assert gap["gap_share_over_24"] == 2 / 3 and gap["adjusted_gap_share_over_24"] == 0.5


def test_profiles_record_their_p2_source_through_parquet(tmp_path):
    from popresume.experience import describe_source
    from popresume.io import write_parquet

    for src, name in ((None, "measured"), ("psid", "psid")):
        path = write_parquet(generate_population(["teacher"], 5, seed=0, experience_source=src), tmp_path / f"{name}.parquet")
        attrs = pd.read_parquet(path).attrs
        assert attrs["experience_source"] == name
        assert attrs["experience_source_description"] == describe_source(name)
