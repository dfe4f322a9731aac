"""Identification before inference: the estimable rule, its reasons, and no label on what is not estimable."""

import numpy as np
import pandas as pd
import pytest

from popresume.causal import PSEEstimator, case_label, classify_cases, estimate_pse, make_scm
from popresume.causal.identification import (MAX_PARETO_K, MIN_ESS, MIN_ESS_MEDIATED, MIN_ESS_MEDIATED_FLEXIBLE,
                                             effect_propensities, identification_sentence, identification_table,
                                             is_estimable)
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
    # the reason says in words what lacks support, then the numbers, and no threshold
    assert t.loc["NDE", "reason"].startswith("the mediators nearly reveal the attribute: 54% of the propensities "
                                             "p(x1|B,R,Z) are clipped (π3 of E[Y_{x1,W_x0}]; smallest ESS 14)")
    assert t.loc["NDE", "reason"].endswith("so the direct path has too little support")
    assert t.loc["NIE", "reason"].endswith("so the indirect paths have too little support")
    assert t.loc["BIE", "reason"].startswith("the mediators nearly reveal the attribute: 54%")
    assert "at most" not in "".join(t["reason"]) and "\n" not in "".join(t["reason"])
    # only p(x1|R,Z) clipped: BIE and RIE use it; NDE and NIE do not, but they rest on p(x1|B,R,Z),
    # whose overlap is never larger (support is nested), so the four share one verdict
    d = _diagnostics({"p(x1|Z)": 0, "p(x1|R,Z)": 200, "p(x1|B,R,Z)": 0}, {})
    t = identification_table(d)
    assert t["estimable"].to_dict() == {"TE": True, "NDE": False, "NIE": False, "BIE": False, "RIE": False}
    assert t.loc["RIE", "reason"].startswith("the redlining mediators nearly reveal the attribute: 20% of the "
                                             "propensities p(x1|R,Z) are clipped")
    assert t.loc["NDE", "reason"].startswith("support is nested: the business-necessity path lacks it (the "
                                             "redlining mediators nearly reveal the attribute: 20% of the")
    assert t.loc["NDE", "reason"].endswith("so the direct path has too little support as well")
    # each effect's own numbers stay in the table (NDE's clipped share is p(x1|B,R,Z)'s: none)
    assert t.loc["NDE", "clipped_share"] == 0 and t.loc["BIE", "clipped_share"] == 0.2
    # the old rule calls each effect on its own numbers
    assert identification_table(d, rule="ess-floor").loc[["NDE", "NIE"], "estimable"].all()
    # at the thresholds exactly (1% clipped, an ESS of 50): estimable; just past them: not
    d = _diagnostics({"p(x1|Z)": 5, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}, {("psi_000", "pi1"): 50.0}, n=500)
    assert identification_table(d)["estimable"].all()
    d = _diagnostics({"p(x1|Z)": 6, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}, {}, n=500)
    t = identification_table(d)
    assert not t.loc["TE", "estimable"]
    assert t.loc["TE", "reason"].startswith("the confounders nearly reveal the attribute: 1% of the propensities")
    t = identification_table(_diagnostics({"p(x1|Z)": 0, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0},
                                          {("psi_100", "pi3"): 49.0}, n=500))
    assert t["estimable"].to_dict() == {"TE": True, "NDE": False, "NIE": False, "BIE": False, "RIE": False}
    assert t.loc["NDE", "reason"] == ("too few résumés carry the weights: an effective sample size of 49 "
                                      "(π3 of E[Y_{x1,W_x0}]; the smallest), so the direct path has too little "
                                      "support")


def _with_tail(d: dict, ks: dict) -> dict:
    w = d["weights"].copy()
    w["pareto_k"] = [ks.get((p, q), 0.2) for p, q in zip(w["psi"], w["weight"])]
    return {**d, "weights": w}


def test_a_heavy_tail_of_the_weights_is_reported_and_withholds_only_when_asked():
    """No clipping, an ESS of 800, but π3 of ψ110 with a Pareto k̂ of 0.75: the table reports
    it for BIE and RIE; the default rule does not read it (measured, the tree learner's
    clustered weights read as heavy where the intervals covered), and ``max_pareto_k=0.7``
    (the literature's line) withholds them; a k̂ of 0.7 exactly, or NaN (no tail), passes."""
    none = {"p(x1|Z)": 0, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}
    heavy = _with_tail(_diagnostics(none, {}), {("psi_110", "pi3"): 0.75})
    t = identification_table(heavy)
    assert t["estimable"].all() and (t["reason"] == "").all()
    assert t.loc["RIE", "pareto_k"] == 0.75 and t.loc["RIE", "pareto_k_weight"] == "π3 of E[Y_{x1,B_{x1,R_x0},R_x0}]"
    assert t.loc["TE", "pareto_k"] == 0.2 and t.loc["NDE", "pareto_k"] == 0.2  # ψ110 is not theirs
    t = identification_table(heavy, max_pareto_k=0.7)  # NDE and NIE fall with them (support is nested)
    assert t["estimable"].to_dict() == {"TE": True, "NDE": False, "NIE": False, "BIE": False, "RIE": False}
    assert t.loc["RIE", "reason"] == ("a few résumés carry the weights: their tail has Pareto k̂ 0.75 "
                                      "(π3 of E[Y_{x1,B_{x1,R_x0},R_x0}]; smallest ESS 800), too heavy for a normal "
                                      "interval, so the redlining path has too little support")
    assert identification_table(_with_tail(_diagnostics(none, {}), {("psi_110", "pi3"): 0.7}),
                                max_pareto_k=0.7)["estimable"].all()
    assert identification_table(_with_tail(_diagnostics(none, {}), {("psi_110", "pi3"): float("nan")}),
                                max_pareto_k=0.7)["estimable"].all()
    assert identification_table(heavy, max_pareto_k=0.8)["estimable"].all()
    assert identification_table(heavy, rule="ess-floor", max_pareto_k=0.7)["estimable"].all()  # not read there
    # records without the tail column (older runs) read as "no tail fitted"
    assert np.isnan(identification_table(_diagnostics(none, {}))["pareto_k"]).all()
    with pytest.raises(ValueError, match="estimable_rule must be one of"):
        identification_table(_diagnostics(none, {}), rule="floor")


def test_is_estimable_on_one_effects_numbers():
    assert is_estimable("RIE", 0.0, 195.0, 3000, 0.54)  # race, accountants, n = 3,000
    assert not is_estimable("RIE", 0.0, 195.0, 3000, 0.54, rule="ess-floor")  # under 2,000 (XGBoost)
    assert not is_estimable("NDE", 0.011, 5000.0, 10_000)
    assert not is_estimable("TE", 0.0, 49.9, 10_000)
    assert is_estimable("TE", 0.0, 5000.0, 10_000, 0.71)  # the tail is not read by default
    assert not is_estimable("TE", 0.0, 5000.0, 10_000, 0.71, max_pareto_k=0.7)
    # the old rule: the mediated floor and the 10% share of the rows
    assert is_estimable("NDE", 0.0, 1000.0, 10_000, rule="ess-floor")
    assert not is_estimable("NDE", 0.0, 999.0, 10_000, rule="ess-floor")
    assert is_estimable("TE", 0.0, 999.0, 10_000, rule="ess-floor")
    assert not is_estimable("NIE", 0.0, 749.0, 1000, rule="ess-floor", min_ess_mediated=750.0)


def test_the_old_rule_weights_on_too_small_a_share_of_the_rows():
    """``rule="ess-floor"``: no clipping and an ESS above both floors, yet ψ100's weights carry 6%
    of 10,000 rows: the effects that use p(x1|B,R,Z) (NDE, NIE, BIE, RIE) are not estimable,
    TE is. The default rule calls them all estimable: the share is no reason of support."""
    none = {"p(x1|Z)": 0, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}
    ess = {(p, w): 5000.0 for p in ("psi_000", "psi_111", "psi_100", "psi_101", "psi_110") for w in ("pi1", "pi2", "pi3")}
    thin = _diagnostics(none, {**ess, ("psi_100", "pi3"): 600.0}, n=10_000)
    t = identification_table(thin, rule="ess-floor")
    assert t["estimable"].to_dict() == {"TE": True, "NDE": False, "NIE": False, "BIE": False, "RIE": False}
    assert "6.0% of the rows, at least 10%" in t.loc["NDE", "reason"] and "direct path" in t.loc["NDE", "reason"]
    assert "at least 50" not in t.loc["NDE", "reason"]
    assert identification_table(thin)["estimable"].all()
    # at the share exactly: estimable; the share is a parameter; TE never reads it
    assert identification_table(_diagnostics(none, {**ess, ("psi_100", "pi3"): 1000.0}, n=10_000),
                                rule="ess-floor")["estimable"].all()
    assert identification_table(thin, rule="ess-floor", min_ess_share=0.05, min_ess_mediated=600)["estimable"].all()
    t = identification_table(_diagnostics(none, {**ess, ("psi_000", "pi1"): 600.0}, n=10_000), rule="ess-floor")
    assert bool(t.loc["TE", "estimable"]) and not bool(t.loc["NDE", "estimable"])


def test_the_old_rule_mediated_effects_need_more_effective_rows():
    # π3 of ψ110 (used by BIE and RIE only) with ESS between the two floors: under "ess-floor"
    # supported, but too few rows for its mediated interval; ψ100's π3 (NDE, NIE, BIE, RIE) likewise
    mid = 400.0
    none = {"p(x1|Z)": 0, "p(x1|R,Z)": 0, "p(x1|B,R,Z)": 0}
    t = identification_table(_diagnostics(none, {("psi_110", "pi3"): mid}), rule="ess-floor")
    assert t["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": True, "BIE": False, "RIE": False}
    assert "too few effective rows for a calibrated RIE interval" in t.loc["RIE", "reason"]
    assert "at least 750" in t.loc["BIE", "reason"]
    assert identification_table(_diagnostics(none, {("psi_110", "pi3"): mid}))["estimable"].all()
    t = identification_table(_diagnostics(none, {("psi_100", "pi3"): mid}), rule="ess-floor")
    assert t["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": False, "BIE": False, "RIE": False}
    summary = t.assign(estimable=t["estimable"])
    assert identification_sentence(summary, "race").startswith("race: NIE, BIE and RIE not estimable at this "
                                                               "sample size (smallest ESS")
    # at the mediated floor exactly: estimable; the floor is a parameter
    assert identification_table(_diagnostics(none, {("psi_100", "pi3"): 750.0}), rule="ess-floor")["estimable"].all()
    assert identification_table(_diagnostics(none, {("psi_100", "pi3"): mid}), rule="ess-floor",
                                min_ess_mediated=mid)["estimable"].all()


def test_a_fitted_good_design_is_estimable_under_the_support_rule():
    """One good-overlap sample of 4,000 (smallest ESS about 1,100, no propensity clipped), fit
    with a fixed small XGBoost: the default rule calls all five effects estimable; the old
    rule, with its 2,000 floor for a flexible learner, only TE and NDE. The cell-means fit's
    tied weights give no tail to fit (k̂ NaN); XGBoost's are bounded."""
    import dataclasses

    from sklearn.ensemble import GradientBoostingRegressor

    assert (MIN_ESS, MIN_ESS_MEDIATED, MIN_ESS_MEDIATED_FLEXIBLE, MAX_PARETO_K) == (50.0, 750.0, 2000.0, 0.7)
    data = make_scm("basic", seed=0).sample(4000, seed=5)
    inf = {"variance": "influence"}  # the rule reads the weights, whatever the variance
    cell = PSEEstimator(data, **ROLES, learners=CELL, **inf).fit().result_
    fixed = Learners(tune=False, params={r: {"n_estimators": 20, "max_depth": 2} for r in ("propensity", "mu3", "nested")})
    xgb = PSEEstimator(data, **ROLES, learners=fixed, **inf).fit().result_
    old = dataclasses.replace(xgb, estimable_rule="ess-floor")
    other = PSEEstimator(data, **ROLES, learners={"propensity": CellMeans(),
                                                  "outcome": GradientBoostingRegressor(n_estimators=20)},
                         **inf).fit().result_
    assert cell.min_ess_mediated == 750.0
    assert xgb.min_ess_mediated == other.min_ess_mediated == 2000.0
    t = xgb.identification_table()
    assert 750.0 < t.loc[["NIE", "BIE", "RIE"], "min_ess"].min() < 2000.0
    assert (t["clipped_share"] == 0).all() and not (t["pareto_k"] > 0.7).any()  # none withheld with the tail check
    assert cell.estimable.all() and xgb.estimable.all() and other.estimable.all()
    assert old.estimable.to_dict() == {"TE": True, "NDE": True, "NIE": False, "BIE": False, "RIE": False}
    assert "at least 2000" in old.identification_table().loc["RIE", "reason"]
    assert old.estimable_rule == "ess-floor" and xgb.estimable_rule == "support"
    # the diagnostics the harness records: k̂ and the largest weight's share, per mean and weight
    w = xgb.diagnostics["weights"]
    assert {"ess", "pareto_k", "max_weight_share"} <= set(w.columns)
    assert ((w["max_weight_share"] > 0) & (w["max_weight_share"] < 0.01)).all()


def test_pareto_k_on_weights_with_a_known_tail():
    """k̂ of weights whose upper tail is exactly a Pareto tail of shape k (the quantiles
    (1 − u)^(−k) on an even grid of u): the generalised Pareto excesses of the largest have
    shape k, so k̂ ≈ k; it is scipy's maximum-likelihood fit of those excesses."""
    from scipy.stats import genpareto

    from popresume.causal.functional import pareto_k

    u = (np.arange(4000) + 0.5) / 4000
    for k in (0.3, 0.5, 1.0):
        assert pareto_k((1 - u) ** -k) == pytest.approx(k, abs=0.05)
    w = (1 - u) ** -0.5
    m = int(3 * np.sqrt(4000))  # 189 of 4,000 (under a fifth)
    tail = np.sort(w)[-m - 1:]
    excess = tail[1:] - tail[0]
    c, _, _ = genpareto.fit(excess / excess.mean(), floc=0)
    assert pareto_k(w) == pytest.approx(c, rel=1e-6)
    assert pareto_k(np.r_[np.zeros(500), w]) == pytest.approx(c, rel=1e-6)  # zeros count as absent
    assert pareto_k(1 / (0.12 + 0.76 * u)) < 0  # propensities uniform on [0.12, 0.88]: a bounded tail
    assert pareto_k(1 + 100 * u) == pytest.approx(-1, abs=0.05)  # uniform: k = -1
    assert np.isnan(pareto_k(np.repeat([1.0, 2.0, 3.0], 1000)))  # tied: a handful of values, no tail to fit
    assert np.isnan(pareto_k(np.ones(20)))  # too few weights


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
                      diagnostics=r.diagnostics, identification="paper", jack_psi=r.jack_psi)
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
    assert text == ("gender: NDE, NIE, BIE and RIE not estimable at this overlap (the mediators nearly reveal the "
                    "attribute); TE is")
    good = make_scm("basic", seed=2).sample(5000, seed=1)
    assert identification_sentence(estimate_pse(good, **ROLES, learners=CELL, n_boot=0), "gender") == ""
    # the same design at n = 1,500: supported, so every effect is estimable (the old rule withheld
    # the mediated effects there, "at this sample size")
    small = make_scm("basic", seed=2).sample(1500, seed=1)
    assert estimate_pse(small, **ROLES, learners=CELL, n_boot=0)["estimable"].all()
    old = estimate_pse(small, **ROLES, learners=CELL, n_boot=0, estimable_rule="ess-floor")
    assert old["estimable"].to_dict() == {"TE": True, "NDE": True, "NIE": False, "BIE": False, "RIE": False}
    assert identification_sentence(old, "gender").startswith("gender: NIE, BIE and RIE not estimable at this "
                                                             "sample size")


def test_the_fit_warns_at_the_rules_thresholds(proxy_fit):
    """The fit's warnings read the rule's numbers (1% clipped, an ESS of 50), so a warning and
    a verdict never disagree about the same sample."""
    est = PSEEstimator(make_scm("basic", seed=0).sample(300, seed=1), **ROLES, learners=CELL)
    assert (est.clip_warn, est.min_ess) == (0.01, 50.0)
    warned = " ".join(proxy_fit.diagnostics["warnings"])
    assert "weak overlap" in warned and "an ESS of 50" in warned
