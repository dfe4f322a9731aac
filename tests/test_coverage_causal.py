"""The causal family of the coverage harness, fast subset (popresume.coverage.causal, fast=True).

Three claims, each against a known truth (the exact effects of the discrete SCMs):

1. The interval machinery is calibrated. With φ built from the SCM's true nuisances, 1,500
   replications per effect give a Monte Carlo SE of 0.55 points on a 95% coverage, so each
   of the five must land in 0.93-0.97; a 5-point miscalibration (0.90) is 9 SEs outside.
2. Where a mediator reveals the attribute (``proxy_reveals``), the rule calls the four
   paths not estimable in every replication and TE estimable; the paper rule's intervals for
   those paths cover the truth far less than 95% of the time, which is why.
3. The fitted estimator with the cell-means learners (saturated, exact on these designs,
   ~50× faster than the XGBoost default that the full run uses) at n = 4,000 with good
   overlap: the rule has power (each effect called estimable in at least 90% of the samples,
   ``SHARE_FLOOR``), and all five intervals cover 0.93-0.97 among the estimable samples with
   200 samples (MC error 1.5 points: a true 0.90 passes about 2.5% of the time).

The verdict of a causal row (:func:`causal_verdict`: the Wilson interval, its 0.90 floor and
the share floor) is checked on planted rows.

The whole module takes about a minute on one idle core.
"""

import numpy as np
import pytest

from popresume.causal.results import PSEResult
from popresume.coverage import COLUMNS, COVERAGE_BAND
from popresume.coverage.causal import (CAUSAL_COLUMNS, FAST, SHARE_FLOOR, WILSON_FLOOR, causal_verdict, coverage_row,
                                       fold_se, simulate, table_from_records)
from popresume.schema import PSE_NAMES


@pytest.fixture(scope="module")
def fast_records():
    return simulate(fast=True)


@pytest.fixture(scope="module")
def fast_table(fast_records):
    return table_from_records(fast_records)


def rows(table, setting_part, kind="coverage"):
    t = table[table["setting"].str.contains(setting_part, regex=False) & (table["kind"] == kind)]
    return t.set_index("quantity")


def test_table_shape(fast_table):
    assert list(fast_table.columns) == COLUMNS + CAUSAL_COLUMNS
    assert (fast_table["family"] == "causal").all()
    assert set(fast_table["kind"]) == {"coverage"}  # one n: no projection ratio
    # each row counts all replications and the estimable ones among them
    assert (fast_table["reps"] <= fast_table["reps_all"]).all()
    assert fast_table["estimable_share"].to_numpy() == pytest.approx(fast_table["reps"] / fast_table["reps_all"])


def test_interval_machinery_is_calibrated(fast_table):
    t = rows(fast_table, "oracle nuisances")
    assert set(t.index) == set(PSE_NAMES) and (t["reps"] == FAST["oracle_reps"]).all()
    lo, hi = COVERAGE_BAND
    assert t["rate"].between(lo, hi).all(), t[["rate", "mc_se"]]
    assert (t["verdict"] == "in band").all(), t["verdict"]
    # the stated Monte Carlo error, at most sqrt(.93 × .07 / 1500) = 0.0066 in the band: 5 points is > 7 SEs
    assert (t["mc_se"] <= np.sqrt(lo * (1 - lo) / FAST["oracle_reps"]) + 1e-12).all()


def test_revealing_mediator_paths_are_not_estimable(fast_table):
    t = rows(fast_table, "proxy reveals X, n=4000")
    assert t.loc["TE", "estimable_share"] == 1.0
    assert (t.loc[["NDE", "NIE", "BIE", "RIE"], "estimable_share"] == 0.0).all()
    assert (t.loc[["NDE", "NIE", "BIE", "RIE"], "verdict"] == "none estimable").all()
    # what the rule protects from: the intervals it withholds, counted anyway
    assert (t.loc[["NDE", "NIE", "BIE", "RIE"], "coverage_all"] < 0.8).all(), t["coverage_all"]


def test_fitted_estimator_in_band_with_good_overlap(fast_table):
    """Power and calibration together: called estimable in >= 90% of samples, and covering 0.93-0.97 there."""
    est = rows(fast_table, "cell means: good overlap, n=4000")
    lo, hi = COVERAGE_BAND
    assert set(est.index) == set(PSE_NAMES) and (est["reps_all"] == FAST["learners"]["cell means"]["basic"]).all()
    assert (est["estimable_share"] >= SHARE_FLOOR).all(), est["estimable_share"]
    assert est["rate"].between(lo, hi).all(), est[["rate", "coverage_low", "coverage_high"]]


def in_band_check(table) -> bool:
    """The condition of test_fitted_estimator_in_band_with_good_overlap, as a boolean."""
    est = rows(table, "cell means: good overlap, n=4000")
    lo, hi = COVERAGE_BAND
    return bool((est["estimable_share"] >= SHARE_FLOOR).all() and est["rate"].between(lo, hi).all())


def test_the_fast_check_fails_on_a_five_point_miscalibration(fast_records):
    """The same samples with every interval narrowed to a nominal 90% one (z 1.645 for 1.96): the check fails."""
    from scipy.stats import norm

    rec = fast_records[fast_records["learner"] == "cell means"].copy()
    mid = (rec["ci_low"] + rec["ci_high"]) / 2
    half = rec["half_width"] * norm.ppf(0.95) / norm.ppf(0.975)
    rec["covered"] = ((mid - half) <= rec["truth"]) & (rec["truth"] <= (mid + half))
    narrowed = table_from_records(rec)
    assert in_band_check(table_from_records(fast_records[fast_records["learner"] == "cell means"]))
    assert not in_band_check(narrowed)
    est = rows(narrowed, "cell means: good overlap, n=4000")
    assert (est["rate"] < COVERAGE_BAND[0]).sum() >= 4, est["rate"]  # not one unlucky effect: nearly all


def test_causal_verdict_on_planted_rows():
    from statsmodels.stats.proportion import proportion_confint

    def row(covered, estimable, reps, share_required=True):
        import pandas as pd

        g = pd.DataFrame({"covered": [True] * covered + [False] * (reps - covered),
                          "estimable": [True] * estimable + [False] * (reps - estimable)})
        return coverage_row(g, quantity="RIE", setting="s", rule="r", held_out=True, share_required=share_required)

    r = row(285, 300, 300)  # 0.95 of 300, all estimable
    assert r["verdict"] == "in band" and r["in_band"]
    assert (r["coverage_low"], r["coverage_high"]) == pytest.approx(proportion_confint(285, 300, method="wilson"))
    # a true 0.92 that happened to read 0.933 on 300 samples: its Wilson interval reaches below 0.90
    r = row(280, 300, 300)
    assert 0.93 <= r["rate"] and r["coverage_low"] < WILSON_FLOOR and r["verdict"] == "too few replications"
    assert not r["in_band"]
    # a 5-point miscalibration on 1,000 samples: Wilson 0.88-0.92, clear of the band
    assert row(900, 1000, 1000)["verdict"] == "OUTSIDE"
    # calibrated where reported, but withheld too often on good overlap: no power
    g = row(190, 200, 300)  # the first 200 of 300 estimable, 190 of them covered
    assert g["estimable_share"] == pytest.approx(2 / 3) and g["verdict"] == "share estimable under 0.9"
    assert row(190, 200, 300, share_required=False)["verdict"] == "in band"  # weak overlap: whatever the share
    # coverage among all counts the withheld intervals too (the first 190 covered, all estimable)
    assert g["coverage_all"] == pytest.approx(190 / 300) and g["reps_all"] == 300
    assert row(0, 0, 20)["verdict"] == "none estimable"
    assert causal_verdict(0.95, 0.93, 0.96, 1.0, share_required=True) == "in band"


def test_trust_chapter_renders_the_csv(tmp_path):
    """The appendix shows the CSV it is given, row for row, with the Wilson intervals and verdicts (hand-made table)."""
    import pandas as pd
    from _notebooks import run_chapter_text

    from popresume.coverage import summarize

    def planted(covered, estimable, reps, setting, quantity):
        g = pd.DataFrame({"covered": [True] * covered + [False] * (reps - covered),
                          "estimable": [True] * estimable + [False] * (reps - estimable)})
        return coverage_row(g, quantity=quantity, setting=setting, rule="planted rule", held_out=True,
                            share_required=False)

    t = pd.DataFrame([planted(95, 100, 100, "XGBoost, tool defaults: good overlap, n=500", "NDE"),
                      planted(30, 0, 100, "XGBoost, tool defaults: proxy reveals X, n=500", "RIE"),
                      summarize([True] * 80 + [False] * 920, family="ll144", quantity="impact ratio", kind="coverage",
                                nominal=0.95, setting="planted")], columns=COLUMNS + CAUSAL_COLUMNS)
    t.to_csv(tmp_path / "c.csv", index=False)
    text = run_chapter_text("12_trust.py", {"csv": str(tmp_path / "c.csv")}, tmp_path, html=True)
    assert "3 rows; families: causal, ll144" in text
    # 95 of 100: Wilson 0.888-0.978 (reaches below 0.90: not in band), printed beside the rate
    assert "0.950 [0.888, 0.978]" in text and "too few replications" in text
    # the withheld RIE: no coverage among estimable, its raw intervals' 30 of 100, share 0 of 100
    assert "0.300 [0.219, 0.396]" in text and "none estimable" in text and "0 / 100" in text
    # the other family: 80 of 1,000 against 0.93-0.97, its Wilson interval and OUTSIDE
    assert "0.080 [0.065, 0.098]" in text and "OUTSIDE" in text
    assert "no audit-pipeline rows in this run" in text
    # the tool-default rows' figure, one per design, and the rows it names outside the band
    assert "good overlap, n = 500: NDE too few replications, coverage among estimable 0.950 [0.888, 0.978] over 100" in text
    assert "proxy reveals X, n = 500: RIE none estimable in 100 replications" in text


def test_band_verdict_weighs_the_monte_carlo_error():
    from statsmodels.stats.proportion import proportion_confint

    from popresume.coverage import band_verdict, summarize

    def verdict(covered, reps, kind="coverage"):
        return band_verdict(summarize([True] * covered + [False] * (reps - covered), family="causal",
                                      quantity="RIE", kind=kind, nominal=0.95, setting="s"))

    assert verdict(95, 100) == "in band"
    # 89 of 100: Wilson 95% interval 0.814-0.937 (Wilson 1927), which reaches the band's 0.93
    assert verdict(89, 100) == "outside, within MC error"
    assert proportion_confint(89, 100, method="wilson")[1] > 0.93
    # 890 of 1,000: 0.869-0.907, clear of the band
    assert verdict(890, 1000) == "OUTSIDE"
    # 20 of 20 is what a true 0.96 gives 44% of the time (0.96 ** 20): not a verdict
    assert verdict(20, 20) == "outside, within MC error"
    assert verdict(985, 1000) == "OUTSIDE"  # 0.975-0.991: over-coverage counts the same way
    # type-I errors against 0.03-0.07: 13 of 100 (0.078-0.209) is outside, 9 of 100 is not clear
    assert verdict(13, 100, "type_I_error") == "OUTSIDE" and verdict(9, 100, "type_I_error") == "outside, within MC error"


def test_spread_table_against_a_hand_computed_case():
    import pandas as pd

    from popresume.coverage.causal import spread_table

    # three replications of one effect: estimates 1, 2, 3 (SD 1, mean error 0.5 against truth 1.5)
    # with half-widths 1.96 × (0.5, 1.0, 1.5) (mean SE 1.0); an oracle row that must be left out
    rec = pd.DataFrame({"learner": ["XGBoost"] * 3 + ["oracle"], "kind": ["basic"] * 3 + ["oracle:basic"],
                        "n": 1000, "effect": "RIE", "truth": [1.5, 1.5, 1.5, 0.0],
                        "estimate": [1.0, 2.0, 3.0, 9.0], "half_width": [0.979982, 1.959964, 2.939946, 1.0]})
    t = spread_table(rec)
    assert len(t) == 1 and t.loc[0, "design"] == "good overlap" and t.loc[0, "reps"] == 3
    assert t.loc[0, "se_over_sd"] == pytest.approx(1.0) and t.loc[0, "bias_over_sd"] == pytest.approx(0.5)


def test_the_shipped_records_give_the_shipped_table():
    # the records beside benchmarks/results/coverage.csv are the replications its causal rows count
    import pandas as pd

    from popresume.coverage import read_results
    from popresume.coverage.causal import records_csv, table_from_records

    rec = pd.read_csv(records_csv())
    want = read_results()
    want = want[want["family"] == "causal"].reset_index(drop=True)
    got = table_from_records(rec)
    same = ["quantity", "setting", "kind", "reps", "reps_all", "verdict", "rule"]
    pd.testing.assert_frame_equal(got[same], want[same], check_dtype=False)
    for col in ("rate", "coverage_low", "coverage_all", "estimable_share"):
        assert got[col].to_numpy() == pytest.approx(want[col].to_numpy(), nan_ok=True), col


def test_audit_design_is_the_audit_pipeline():
    """One replication of the audit design: the audit's population and the synthetic screener's exact truth,
    the interval the tool prints (or the raw one it withholds) and its own verdict (cheap settings)."""
    import math

    import pandas as pd

    from popresume.audit.report_run import load_population
    from popresume.causal import default_roles, estimate_pse, prepare
    from popresume.audit.calibration import audit_replicate
    from popresume.coverage.causal import tool_learner
    from popresume.screeners.synthetic import SyntheticScreener

    rec = pd.DataFrame(audit_replicate("nurse", "race", 400, 3, tune=False, n_boot=0)).set_index("effect")
    assert list(rec.index) == list(PSE_NAMES)
    assert tool_learner() == "XGBoost, tool defaults, jackknife variance"  # the estimator's default variance
    assert (rec["learner"] == tool_learner()).all()
    assert (rec["kind"] == "audit:nurse:race").all() and (rec["rep"] == 3).all()
    prof, _ = load_population("nurse", 400, seed=3)
    scr = SyntheticScreener(seed=3)
    truth = scr.true_effects(prof, "race", format="text")["true"]
    assert rec["truth"].to_numpy() == pytest.approx(truth.reindex(PSE_NAMES).to_numpy())
    # the same estimate as estimate_pse on the same data; the verdict and interval are the tool's
    scores = pd.DataFrame({"resume_id": prof["resume_id"], "score": scr.score_frame(prof)})
    tab = estimate_pse(prepare(prof, scores), **default_roles("race"), y="score", seed=3, tune=False, n_boot=0,
                       missing="drop", threads=1)
    assert rec["estimate"].to_numpy() == pytest.approx(tab["estimate"].to_numpy())
    assert (rec["estimable"] == tab["estimable"].astype(bool)).all()
    for e in PSE_NAMES:
        lo = tab.loc[e, "ci_low"] if math.isfinite(tab.loc[e, "ci_low"]) else tab.loc[e, "diag_ci_low"]
        assert rec.loc[e, "ci_low"] == pytest.approx(lo)
        assert rec.loc[e, "covered"] == (rec.loc[e, "ci_low"] <= rec.loc[e, "truth"] <= rec.loc[e, "ci_high"])


def test_reread_support_calls_the_recorded_numbers_again():
    """The support rule on recorded numbers: clipping and ESS always, the Pareto k̂ only when asked."""
    import pandas as pd

    from popresume.coverage.causal import reread_support, support_label

    rec = pd.DataFrame({"learner": "cell means", "kind": "basic", "rep": [0, 1, 2, 3],  # four fits, one effect each
                        "effect": ["RIE", "RIE", "RIE", "NDE"], "n": 2000, "rule": "ESS floors",
                        "clipped_share": [0.0, 0.0, 0.02, 0.0], "min_ess": [222.0, 222.0, 400.0, 30.0],
                        "pareto_k": [0.91, float("nan"), 0.1, 0.1], "estimable": False})
    default = reread_support(rec)
    assert default["estimable"].tolist() == [True, True, False, False]  # 2% clipped; ESS 30 < 50
    assert (default["rule"] == support_label(None)).all() and "not checked" in support_label(None)
    assert "nested" in support_label(None)
    tail = reread_support(rec, max_pareto_k=0.7)
    assert tail["estimable"].tolist() == [False, True, False, False]  # k̂ 0.91 > 0.7; NaN (no tail) passes
    assert rec["rule"].eq("ESS floors").all()  # the records themselves are left alone
    # one fit's five effects: BIE's ESS of 22 withholds NDE, NIE and RIE too (support is nested), not TE;
    # another fit (rep 1) with the same numbers but BIE's is called on its own
    fit = pd.DataFrame({"learner": "XGBoost", "kind": "proxy_reveals", "n": 1000, "rule": "x",
                        "rep": [0] * 5 + [1] * 5, "effect": ["TE", "NDE", "NIE", "BIE", "RIE"] * 2,
                        "clipped_share": 0.0, "min_ess": [455, 52, 52, 22, 60, 455, 52, 52, 60, 60],
                        "pareto_k": float("nan"), "estimable": False})
    again = reread_support(fit)
    assert again["estimable"].tolist() == [True, False, False, False, False] + [True] * 5


def test_cheap_cells_get_the_larger_count():
    """``cheap_reps``: the cell-means learner at n <= ``cheap_n`` gets that many replications, larger n keep theirs."""
    from popresume.coverage.causal import FULL

    cfg = {"n": (1000, 4000), "n_boot": 0, "oracle_reps": 0, "cheap_reps": 3, "cheap_n": 2000,
           "learners": {"cell means": {"basic": 1}}}
    rec = simulate(config=cfg)
    reps = rec.groupby("n")["rep"].nunique().to_dict()
    assert reps == {1000: 3, 4000: 1}
    assert FULL["cheap_reps"] >= 1000 and FULL["cheap_n"] >= 2000  # the count where a fit is cheap



def test_fold_se_is_the_spread_of_the_fold_means():
    # the records' between-fold SE on a hand-made result: two folds of two rows, psi000 = 0 and psi111 = y,
    # so TE's per-row value is y, its fold means (1 + 3) / 2 = 2 and (5 + 9) / 2 = 7, SD 5 / sqrt(2), SE 2.5
    phi = np.zeros((1, 4, 5))
    phi[0, :, 1] = [1.0, 3.0, 5.0, 9.0]  # psi111 (PSI_NAMES order: 000, 111, 100, 101, 110)
    res = PSEResult(phi[0].mean(axis=0), phi, fold=np.array([0, 0, 1, 1]))
    got = fold_se(res)
    assert list(got.index) == list(PSE_NAMES)
    assert got["TE"] == pytest.approx(2.5) and got["NIE"] == pytest.approx(2.5)  # NIE = psi111 - psi100
    assert got["NDE"] == pytest.approx(0.0)
    assert got["BIE"] == pytest.approx(1.25) and got["RIE"] == pytest.approx(1.25)  # half of psi111


def test_tool_learner_labels_each_variance_and_the_table_keeps_them_apart():
    from popresume.coverage.causal import tool_learner

    assert tool_learner() == "XGBoost, tool defaults, jackknife variance"  # the estimator's default variance
    assert tool_learner("influence") == "XGBoost, tool defaults, influence variance"
    assert tool_learner("average") == "XGBoost, tool defaults, average variance"
    with pytest.raises(ValueError, match="variance must be one of"):
        tool_learner("bootstrap")
    # the same replications under two labels give two rows per effect, each counting its own
    import pandas as pd

    one = {"kind": "basic", "n": 1000, "truth": 0.0, "estimate": 0.0, "ci_low": -1.0, "ci_high": 1.0,
           "half_width": 1.0, "clipped_share": 0.0, "min_ess": 500.0, "estimable": True, "rule": "planted"}
    rec = pd.DataFrame([{**one, "learner": tool_learner(v), "rep": r, "effect": e, "covered": r < c}
                        for v, c in (("influence", 9), ("average", 10)) for r in range(10) for e in PSE_NAMES])
    t = table_from_records(rec)
    t = t[(t["kind"] == "coverage") & (t["quantity"] == "RIE")].set_index("setting")
    assert t.loc["XGBoost, tool defaults, influence variance: good overlap, n=1000", "rate"] == pytest.approx(0.9)
    assert t.loc["XGBoost, tool defaults, average variance: good overlap, n=1000", "rate"] == pytest.approx(1.0)
    assert len(t) == 2


def test_average_records_are_what_replicate_gives_under_variance_average():
    # the influence-default record of a fit and the jackknife SE of the same fit give the average-variance record
    import pandas as pd

    from popresume.causal import PSEEstimator, make_scm
    from popresume.causal.functional import effects_from_psi
    from popresume.causal.nuisance import CellMeans
    from popresume.causal.results import jackknife_se
    from popresume.coverage.causal import ROLES, average_records, reinterval, replicate, tool_learner

    cells = {"propensity": CellMeans(), "outcome": CellMeans()}
    infl = pd.DataFrame(replicate("basic", 400, 2, learners=cells, n_boot=0, learner=tool_learner("influence")))
    data = make_scm("basic", seed=0).sample(400, seed=400 * 7919 + 2)  # the harness's sample (seed 0)
    est = PSEEstimator(data, **ROLES, seed=2, learners=cells, variance="influence").fit()
    jk = pd.DataFrame({"scm": "basic", "n": 400, "rep": 2, "effect": list(PSE_NAMES),
                       "estimate": est.result_.effects.to_numpy(), "se_influence": est.result_.se.to_numpy(),
                       "se_jackknife_10": jackknife_se(effects_from_psi(est.jackknife_draws(10, seed=2 + 2)))})
    got = average_records(infl, jk).set_index("effect")
    want = pd.DataFrame(replicate("basic", 400, 2, learners=cells, n_boot=0, learner=tool_learner("average"),
                                  variance="average")).set_index("effect")
    assert (got["learner"] == "XGBoost, tool defaults, average variance").all()
    for col in ("estimate", "ci_low", "ci_high", "half_width", "se_influence", "se_jackknife", "min_ess"):
        assert got[col].to_numpy() == pytest.approx(want[col].to_numpy(), rel=1e-9), col
    assert (got["covered"] == want["covered"]).all() and (got["estimable"] == want["estimable"]).all()
    with pytest.raises(ValueError, match="not of the same fits"):
        average_records(infl, jk.assign(estimate=jk["estimate"] + 0.01))
    # the same records read under variance="jackknife" (t on 9 df) are what replicate gives under it
    jack = reinterval(got.reset_index(), "jackknife").set_index("effect")
    want = pd.DataFrame(replicate("basic", 400, 2, learners=cells, n_boot=0, learner=tool_learner("jackknife"),
                                  variance="jackknife")).set_index("effect")
    assert (jack["learner"] == want["learner"]).all() and (jack["covered"] == want["covered"]).all()
    for col in ("ci_low", "ci_high", "half_width"):
        assert jack[col].to_numpy() == pytest.approx(want[col].to_numpy(), rel=1e-9), col
    with pytest.raises(ValueError, match="reads 'jackknife' or 'average'"):
        reinterval(got, "influence")
