"""Identification before inference: the estimable rule, its reasons, and no label on what is not estimable."""

import numpy as np
import pandas as pd
import pytest

from popresume.causal import PSEEstimator, case_label, classify_cases, estimate_pse, make_scm
from popresume.causal.identification import (MAX_CLIPPED_SHARE, MIN_ESS, MIN_ESS_MEDIATED, MIN_ESS_MEDIATED_FLEXIBLE,
                                             effect_propensities, identification_sentence, identification_table)
from popresume.causal.nuisance import CellMeans, Learners

ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
CELL = {"propensity": CellMeans(), "outcome": CellMeans()}


def test_each_effect_rests_on_the_propensities_its_weights_use():
    # From π1..π3 of docs/DESIGN.md §3 by hand: ψ000, ψ111 use p(x|Z) only (the rest cancel);
    # ψ100 adds p(x|B,R,Z) (a_b ≠ a_y); ψ101 and ψ110 add p(x|R,Z) (a_r ≠ a_b).
    assert effect_propensities("TE") == ("p(x1|Z)",)
    assert effect_propensities("NDE") == ("p(x1|Z)", "p(x1|B,R,Z)")
    assert effect_propensities("NIE") == ("p(x1|Z)", "p(x1|B,R,Z)")
    assert effect_propensities("BIE") == ("p(x1|Z)", "p(x1|R,Z)", "p(x1|B,R,Z)")
    assert effect_propensities("RIE") == ("p(x1|Z)", "p(x1|R,Z)", "p(x1|B,R,Z)")


def _diagnostics(clipped: dict, ess: dict, n: int = 1000) -> dict:
    prop = pd.DataFrame({"n_clipped": clipped}).rename_axis("model")
    rows = [{"psi": p, "weight": w, "ess": ess.get((p, w), 800.0)}
            for p in ("psi_000", "psi_111", "psi_100", "psi_101", "psi_110") for w in ("pi1", "pi2", "pi3")]
    return {"propensity": prop, "weights": pd.DataFrame(rows), "n": n}


def test_rule_on_a_hand_made_diagnosis():
    # 54% of p(x1|B,R,Z) and 50% of p(x1|R,Z) clipped, π3 of ψ100 with ESS 14: the gender case
    d = _diagnostics({"p(x1|Z)": 0, "p(x1|R,Z)": 500, "p(x1|B,R,Z)": 540}, {("psi_100", "pi3"): 14.0})
    t = identification_table(d)
    assert t["estimable"].to_dict() == {"TE": True, "NDE": False, "NIE": False, "BIE": False, "RIE": False}
    assert t.loc["TE", "reason"] == ""
    assert "54% of propensities p(x1|B,R,Z) clipped" in t.loc["NDE", "reason"]
    assert "smallest ESS 14" in t.loc["NDE", "reason"] and "direct path" in t.loc["NDE", "reason"]
    assert "\n" not in "".join(t["reason"])
    # only p(x1|R,Z) clipped: NDE and NIE do not use it, BIE and RIE do
    d = _diagnostics({"p(x1|Z)": 0, "p(x1|R,Z)": 200, "p(x1|B,R,Z)": 0}, {})
    assert identification_table(d)["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": True,
                                                              "BIE": False, "RIE": False}
    # at the thresholds exactly: estimable (n = 500: an ESS of 50 is the 10% share floor too)
    d = _diagnostics({"p(x1|Z)": int(MAX_CLIPPED_SHARE * 500), "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0},
                     {("psi_000", "pi1"): MIN_ESS}, n=500)
    assert identification_table(d)["estimable"].all()


def test_weights_on_too_small_a_share_of_the_rows():
    """No clipping and an ESS above both floors, yet ψ100's weights carry 6% of 10,000 rows:
    the effects that use p(x1|B,R,Z) (NDE, NIE, BIE, RIE) are not estimable, TE is (the
    harness: XGBoost's weak-design NDE covered 9 of 12 at an ESS share of 6-8%)."""
    none = {"p(x1|Z)": 0, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}
    ess = {(p, w): 5000.0 for p in ("psi_000", "psi_111", "psi_100", "psi_101", "psi_110") for w in ("pi1", "pi2", "pi3")}
    t = identification_table(_diagnostics(none, {**ess, ("psi_100", "pi3"): 600.0}, n=10_000))
    assert t["estimable"].to_dict() == {"TE": True, "NDE": False, "NIE": False, "BIE": False, "RIE": False}
    assert "6.0% of the rows, at least 10%" in t.loc["NDE", "reason"] and "direct path" in t.loc["NDE", "reason"]
    assert "at least 50" not in t.loc["NDE", "reason"]
    # at the share exactly: estimable; the share is a parameter; TE never reads it
    assert identification_table(_diagnostics(none, {**ess, ("psi_100", "pi3"): 1000.0}, n=10_000))["estimable"].all()
    assert identification_table(_diagnostics(none, {**ess, ("psi_100", "pi3"): 600.0}, n=10_000),
                                min_ess_share=0.05, min_ess_mediated=600)["estimable"].all()
    t = identification_table(_diagnostics(none, {**ess, ("psi_000", "pi1"): 600.0}, n=10_000))
    assert bool(t.loc["TE", "estimable"]) and not bool(t.loc["NDE", "estimable"])


def test_mediated_effects_need_more_effective_rows():
    # π3 of ψ110 (used by BIE and RIE only) with ESS between the two floors: supported, but too
    # few rows for a calibrated mediated interval; ψ100's π3 (NDE, NIE, BIE, RIE) likewise
    mid = (MIN_ESS + MIN_ESS_MEDIATED) / 2
    none = {"p(x1|Z)": 0, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}
    t = identification_table(_diagnostics(none, {("psi_110", "pi3"): mid}))
    assert t["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": True, "BIE": False, "RIE": False}
    assert "too few effective rows for a calibrated RIE interval" in t.loc["RIE", "reason"]
    assert f"at least {MIN_ESS_MEDIATED:.0f}" in t.loc["BIE", "reason"]
    t = identification_table(_diagnostics(none, {("psi_100", "pi3"): mid}))
    assert t["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": False, "BIE": False, "RIE": False}
    summary = t.assign(estimable=t["estimable"])
    assert identification_sentence(summary, "race").startswith("race: NIE, BIE and RIE not estimable at this "
                                                               "sample size (smallest ESS")
    # at the mediated floor exactly: estimable; the floor is a parameter
    assert identification_table(_diagnostics(none, {("psi_100", "pi3"): MIN_ESS_MEDIATED}))["estimable"].all()
    assert identification_table(_diagnostics(none, {("psi_100", "pi3"): mid}), min_ess_mediated=mid)["estimable"].all()


def test_the_mediated_floor_follows_the_outcome_learner():
    """XGBoost's nested regressions are noisier than the saturated learner's, so its mediated
    effects need 2,000 effective rows, not 750 (the harness: RIE covers 0.89 at n = 4,000 with
    XGBoost, 0.96 at n = 8,000). On one good-overlap sample of 4,000 (smallest ESS about
    1,100) the cell-means fit calls every effect estimable and the XGBoost fit only TE and NDE."""
    from sklearn.ensemble import GradientBoostingRegressor

    assert MIN_ESS < MIN_ESS_MEDIATED < MIN_ESS_MEDIATED_FLEXIBLE
    data = make_scm("basic", seed=0).sample(4000, seed=5)
    cell = PSEEstimator(data, **ROLES, learners=CELL).fit().result_
    fixed = Learners(tune=False, params={r: {"n_estimators": 20, "max_depth": 2} for r in ("propensity", "mu3", "nested")})
    xgb = PSEEstimator(data, **ROLES, learners=fixed).fit().result_
    other = PSEEstimator(data, **ROLES, learners={"propensity": CellMeans(),
                                                  "outcome": GradientBoostingRegressor(n_estimators=20)}).fit().result_
    assert cell.min_ess_mediated == MIN_ESS_MEDIATED
    assert xgb.min_ess_mediated == other.min_ess_mediated == MIN_ESS_MEDIATED_FLEXIBLE
    ess = cell.identification_table()["min_ess"]
    assert MIN_ESS_MEDIATED < ess[["NIE", "BIE", "RIE"]].min() < MIN_ESS_MEDIATED_FLEXIBLE
    assert cell.estimable.all()
    assert xgb.estimable.to_dict() == {"TE": True, "NDE": True, "NIE": False, "BIE": False, "RIE": False}
    assert f"at least {MIN_ESS_MEDIATED_FLEXIBLE:.0f}" in xgb.identification_table().loc["RIE", "reason"]


@pytest.fixture(scope="module")
def proxy_fit():
    data = make_scm("proxy_reveals", seed=0).sample(1500, seed=3)
    return PSEEstimator(data, **ROLES, learners=CELL).fit().bootstrap(200)


def test_a_revealing_mediator_makes_the_paths_not_estimable(proxy_fit):
    s = proxy_fit.summary
    assert bool(s.loc["TE", "estimable"]) and s.loc["TE", "reason"] == ""
    bad = ["NDE", "NIE", "BIE", "RIE"]
    assert not s.loc[bad, "estimable"].any()
    assert s.loc[bad, ["ci_low", "ci_high"]].isna().all().all()
    assert s.loc[bad, "significant"].isna().all()
    assert s.loc[bad, ["diag_ci_low", "diag_ci_high"]].notna().all().all()  # kept for diagnosis only
    assert s.loc[bad, "estimate"].notna().all()
    p = proxy_fit.result_.pvalues
    assert p[bad].isna().all() and p["TE"] < 1
    adj = proxy_fit.result_.p_adjust("holm")
    assert adj.loc[bad, "p_adj"].isna().all()
    assert adj.loc["TE", "p_adj"] == pytest.approx(p["TE"])  # a family of one
    assert list(proxy_fit.result_.projection_valid()) == [True, False, False, False, False]
    # no case label rests on NDE's significance
    assert case_label(s) is None
    assert classify_cases(pd.DataFrame([proxy_fit.result_.row()])).iloc[0] is None


def test_paper_rule_keeps_every_interval(proxy_fit):
    from popresume.causal.results import PSEResult

    r = proxy_fit.result_
    paper = PSEResult(r.psi_estimate, r.phi_reps, boot_psi=r.boot_psi, boot_kind=r.boot_kind,
                      diagnostics=r.diagnostics, identification="paper")
    s = paper.summary
    assert s["estimable"].all() and s[["ci_low", "ci_high"]].notna().all().all()
    assert (s["ci_low"] == proxy_fit.summary["diag_ci_low"]).all()
    assert isinstance(case_label(s), str)
    with pytest.raises(ValueError, match="identification must be one of"):
        PSEResult(r.psi_estimate, r.phi_reps, identification="hope")


def test_good_overlap_is_estimable_and_unchanged():
    data = make_scm("basic", seed=2).sample(5000, seed=1)
    over = estimate_pse(data, **ROLES, learners=CELL, n_boot=0)
    paper = estimate_pse(data, **ROLES, learners=CELL, n_boot=0, identification="paper")
    assert over["estimable"].all() and (over["reason"] == "").all()
    pd.testing.assert_frame_equal(over, paper)
    assert over["significant"].dtype == bool


def test_case_label_three_valued():
    def table(**ci):
        base = {e: (0.1, -0.5, 0.7) for e in ["TE", "NDE", "NIE", "BIE", "RIE"]}
        base.update(ci)
        return pd.DataFrame(base, index=["estimate", "ci_low", "ci_high"]).T

    nan = (0.3, np.nan, np.nan)
    assert case_label(table()) == "-"
    # TE unknown, NDE negligible: C2 is false whatever TE is; the label stands
    assert case_label(table(TE=nan)) == "-"
    # TE unknown, NDE and NIE significant with opposite signs: C2 depends on TE
    assert case_label(table(TE=nan, NDE=(1.0, 0.5, 1.5), NIE=(-1.0, -1.5, -0.5))) is None
    assert case_label(table(TE=(0.1, -0.5, 0.7), NDE=(1.0, 0.5, 1.5), NIE=(-1.0, -1.5, -0.5))) == "C1,C2"
    # NDE unknown: C1 unknown
    assert case_label(table(NDE=nan)) is None
    with pytest.raises(ValueError, match="missing effect values"):
        case_label(table(NDE=(0.1, np.nan, 0.5)))


def test_trimming_renames_the_estimand():
    data = make_scm("weak_overlap", seed=0).sample(1500, seed=4)
    t = estimate_pse(data, **ROLES, learners=CELL, n_boot=0, trim=(0.05, 0.95))
    assert t["population"].iloc[0].startswith("overlap population")
    assert t["n"].iloc[0] < 1500 and f"{t['n'].iloc[0]:,} of 1,500" in t["population"].iloc[0]
    with pytest.raises(ValueError, match="trim bounds"):
        estimate_pse(data, **ROLES, learners=CELL, n_boot=0, trim=(0.6, 0.4))
    with pytest.raises(ValueError, match="identification must be one of"):
        estimate_pse(data, **ROLES, learners=CELL, n_boot=0, identification="hope")


def test_identification_sentence(proxy_fit):
    from popresume.causal.identification import identification_sentence

    text = identification_sentence(proxy_fit.summary, "gender")
    assert text.startswith("gender: NDE, NIE, BIE and RIE not estimable at this overlap (")
    assert text.endswith("; TE is") and "clipped" in text
    good = make_scm("basic", seed=2).sample(5000, seed=1)
    assert identification_sentence(estimate_pse(good, **ROLES, learners=CELL, n_boot=0), "gender") == ""
    # the same design at n = 1,500: supported, but the mediated effects' weights carry too few rows
    small = estimate_pse(make_scm("basic", seed=2).sample(1500, seed=1), **ROLES, learners=CELL, n_boot=0)
    assert small["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": False, "BIE": False, "RIE": False}
    assert identification_sentence(small, "gender").startswith("gender: NIE, BIE and RIE not estimable at this "
                                                               "sample size")
