"""Multiplicity, case rules and adverse-impact ratios on hand-computable examples."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from popresume import causal
from popresume.audit import metrics as M
from popresume.paths import DATA_DIR
from popresume.schema import PSE_NAMES

PUBLISHED = DATA_DIR / "published" / "popresume_published_pse.csv"


def test_holm_hand_example():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> running max .02 .03 .06 .06
    np.testing.assert_allclose(M.holm(p), [0.03, 0.06, 0.06, 0.02])


def test_bh_hand_example():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted .005,.01,.03,.04 -> *4/rank: .02,.02,.04,.04 -> step-up min from the top
    np.testing.assert_allclose(M.benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])


def test_adjusters_keep_nan_and_cap_at_one():
    out = M.holm([0.5, np.nan, 0.6])
    assert np.isnan(out[1]) and out[0] == pytest.approx(1.0) and out[2] == pytest.approx(1.0)
    assert np.isnan(M.benjamini_hochberg([np.nan])[0])


def test_p_from_symmetric_ci():
    est, se = 0.3, 0.1
    out = M.p_from_ci(est, est - 1.959964 * se, est + 1.959964 * se)
    assert out["se"].iloc[0] == pytest.approx(se, rel=1e-6)
    assert out["p"].iloc[0] == pytest.approx(2 * stats.norm.sf(3.0), rel=1e-5)
    with pytest.raises(ValueError, match="no positive width"):
        M.p_from_ci(1.0, 1.0, 1.0)


def _row(**effects):
    """A results row from {effect: (estimate, se)}; CI = est ± 1.96 se."""
    d = {"attribute": "gender", "occupation": "o", "format": "text", "model": "m"}
    for e in PSE_NAMES:
        est, se = effects.get(e, (0.0, 1.0))
        d[f"{e}_estimate"] = est
        d[f"{e}_ci_low"] = est - 1.959964 * se
        d[f"{e}_ci_high"] = est + 1.959964 * se
    return d


def test_case_rules_as_stated():
    t = pd.DataFrame([
        _row(NDE=(3, 1)),                                   # C1 only
        _row(NDE=(3, 1), NIE=(-3, 1), TE=(0, 1)),           # C1 + C2 (cancellation)
        _row(BIE=(3, 1)),                                   # C3
        _row(RIE=(3, 1)),                                   # C4
        _row(BIE=(3, 1), RIE=(3, 1)),                       # C5
        _row(TE=(3, 1)),                                    # none
        _row(NDE=(3, 1), NIE=(3, 1), TE=(0, 1)),            # same signs: not C2
    ])
    labels = M.cases_from_significance(M.significance(t, "none"), t)
    assert list(labels) == ["C1", "C1,C2", "C3", "C4", "C5", "-", "C1"]
    counts = M.case_counts(labels)
    assert counts["C1"] == 3 and counts["none"] == 1 and counts["C5"] == 1


def test_recount_drops_marginal_findings_under_holm():
    # 10 audits: one strong NDE (z = 6) and nine marginal ones (z = 2.2): 50 tests.
    rows = [_row(NDE=(6, 1))] + [_row(NDE=(2.2, 1)) for _ in range(9)]
    t = pd.DataFrame(rows)
    c = M.recount_cases(t)
    assert c.loc["C1", "none"] == 10
    # Holm at m = 50: threshold for the smallest p is 0.001 -> only z = 6 survives
    assert c.loc["C1", "holm"] == 1
    # BH: nine p = 0.0278 at ranks 2..10 need p <= 0.05*k/50 = 0.01 at most -> fail too
    assert c.loc["C1", "bh"] == 1
    s = M.surviving_findings(t)
    assert len(s) == 10 and s["survives_holm"].sum() == 1


def test_bh_keeps_more_than_holm_when_many_are_strong():
    rows = [_row(NDE=(3.2, 1)) for _ in range(20)]  # p ~ 0.0014 each, 100 tests
    t = pd.DataFrame(rows)
    c = M.recount_cases(t)
    assert c.loc["C1", "holm"] == 0      # 0.0014 * 100 > 0.05
    assert c.loc["C1", "bh"] == 20       # 0.0014 * 100 / 20 < 0.05


def test_family_choice_changes_holm():
    rows = [_row(NDE=(2.9, 1)) for _ in range(4)]
    t = pd.DataFrame(rows)
    assert M.recount_cases(t, family="audit").loc["C1", "holm"] == 4   # 5 tests per family
    assert M.recount_cases(t, family="all").loc["C1", "holm"] == 0     # 20 tests
    with pytest.raises(ValueError, match="family"):
        M.recount_cases(t, family="bogus")


def test_te_alone_flags_masking():
    t = pd.DataFrame([_row(NDE=(3, 1), NIE=(-3, 1), TE=(0, 1)), _row(TE=(4, 1))])
    out = M.te_alone(t)
    assert list(out["te_verdict"]) == ["no disparity", "disparity"]
    assert list(out["masked"]) == [True, False]
    assert out["hidden_effects"].iloc[0] == "NDE,NIE" and bool(out["case2"].iloc[0])


def test_published_table_recount_runs():
    t = pd.read_csv(PUBLISHED)
    c = M.recount_cases(t)
    # corrections can only remove significance, so C1 and C5 (monotone in significance) shrink
    assert c.loc["C1", "holm"] <= c.loc["C1", "bh"] <= c.loc["C1", "none"]
    assert c.loc["C5", "holm"] <= c.loc["C5", "bh"] <= c.loc["C5", "none"]
    summ = M.multiplicity_summary(t)
    assert summ["tests"] == 600
    assert summ["survive Holm"] <= summ["survive BH"] <= summ["significant (CI excludes 0)"]


# ------------------------------------------------------------------ adverse impact
def scores_table():
    # 10 women, 10 men; women's scores 1..10, men's 6..15: top 25% (5 of 20) all men
    return pd.DataFrame({
        "gender": ["F"] * 10 + ["M"] * 10,
        "race": (["White", "Black"] * 10),
        "score": list(range(1, 11)) + list(range(6, 16)),
    })


def test_four_fifths_hand_example():
    df = scores_table()
    r = M.selection_rates(df, "gender", select_top=0.25).set_index("gender")
    # threshold = 75th percentile of the 20 scores = 10.25 -> men 11..15 selected (5), women 0
    assert r.loc["M", "selected"] == 5 and r.loc["F", "selected"] == 0
    assert r.loc["F", "impact_ratio"] == 0 and not r.loc["F", "four_fifths_ok"]
    assert M.four_fifths_ratio(df, "gender", "F", "M", threshold=8) == pytest.approx(3 / 8)


def test_ll144_scoring_rate_hand_example():
    df = scores_table()
    out = M.ll144_impact_ratios(df).set_index(["breakdown", "category"])
    # median of all 20 scores = 8; above 8: women 9,10 (2/10), men 9..15 (7/10)
    assert out.loc[("sex", "F"), "scoring_rate"] == pytest.approx(0.2)
    assert out.loc[("sex", "M"), "scoring_rate"] == pytest.approx(0.7)
    assert out.loc[("sex", "F"), "impact_ratio"] == pytest.approx(0.2 / 0.7)
    assert ("sex × race", "F × Black") in out.index
    assert not out["excluded"].any()


def test_ll144_small_category_excluded():
    df = pd.concat([scores_table()] * 5, ignore_index=True)
    df.loc[0, "race"] = "API"  # 1 of 100 rows < 2%
    out = M.ll144_impact_ratios(df).set_index(["breakdown", "category"])
    assert bool(out.loc[("race", "API"), "excluded"])


def test_missing_scores_raise():
    df = scores_table()
    df.loc[3, "score"] = np.nan
    with pytest.raises(ValueError, match="missing score at row 3"):
        M.selection_rates(df, "gender")


def test_compare_with_causal_names_disagreements():
    results = pd.DataFrame([_row(NDE=(3, 1)), _row(BIE=(3, 1)), _row()])
    results["occupation"] = ["a", "b", "c"]
    outcome = pd.DataFrame({"attribute": "gender", "occupation": ["a", "b", "c"], "format": "text", "model": "m",
                            "four_fifths_flag": [False, True, True], "four_fifths_ratio": [0.95, 0.7, 0.7]})
    cmp = M.compare_with_causal(outcome, results)
    assert list(cmp["disagreement"]) == ["missed: direct", "flagged: business necessity only",
                                         "flagged: no significant effect"]


def test_case_rules_match_causal_classifier_on_published_table():
    """Our significance-pattern classifier agrees with popresume.causal.classify_cases (both rules)."""
    t = pd.read_csv(PUBLISHED)
    for rule in ("stated", "paper"):
        ours = M.cases_from_significance(M.significance(t, "none", signed_zero=rule == "paper"), t, rule=rule)
        theirs = causal.classify_cases(t, rule=rule)
        assert (ours.to_numpy() == theirs.astype(str).to_numpy()).all(), rule
    paper = M.cases_from_significance(M.significance(t, "none", signed_zero=True), t, rule="paper")
    printed = t["paper_cases"].str.replace(" ", "", regex=False)
    assert (paper.to_numpy() == printed.to_numpy()).all()
