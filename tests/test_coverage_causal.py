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
   overlap: every effect estimable (the mediated effects' weights carry about 1,000
   effective rows, above ``MIN_ESS_MEDIATED``), and all five intervals in the 0.93-0.97 band
   with 200 samples (MC error 1.5 points: a true 0.90 passes about 2.5% of the time). Below
   that floor (n = 1,000: ESS about 215) the same intervals of NIE and BIE cover about 0.90,
   which is why the rule calls them not estimable there (docs/DESIGN.md §3).

The whole module takes about a minute on one idle core.
"""

import numpy as np
import pytest

from popresume.coverage import COLUMNS, COVERAGE_BAND
from popresume.coverage.causal import FAST, simulate, table_from_records
from popresume.schema import PSE_NAMES


@pytest.fixture(scope="module")
def fast_table():
    return table_from_records(simulate(fast=True))


def rows(table, setting_part, kind="coverage"):
    t = table[table["setting"].str.contains(setting_part, regex=False) & (table["kind"] == kind)]
    return t.set_index("quantity")


def test_table_shape(fast_table):
    assert list(fast_table.columns) == COLUMNS
    assert (fast_table["family"] == "causal").all()
    assert set(fast_table["kind"]) == {"coverage", "estimable_share"}


def test_interval_machinery_is_calibrated(fast_table):
    t = rows(fast_table, "oracle nuisances")
    assert set(t.index) == set(PSE_NAMES) and (t["reps"] == FAST["oracle_reps"]).all()
    lo, hi = COVERAGE_BAND
    assert t["rate"].between(lo, hi).all(), t[["rate", "mc_se"]]
    # the stated Monte Carlo error, at most sqrt(.93 × .07 / 1500) = 0.0066 in the band: 5 points is > 7 SEs
    assert (t["mc_se"] <= np.sqrt(lo * (1 - lo) / FAST["oracle_reps"]) + 1e-12).all()


def test_revealing_mediator_paths_are_not_estimable(fast_table):
    share = rows(fast_table, "proxy reveals X", kind="estimable_share")["rate"]
    assert share["TE"] == 1.0
    assert (share[["NDE", "NIE", "BIE", "RIE"]] == 0.0).all()
    paper = rows(fast_table, "proxy reveals X, n=4000, all replications (paper rule)")["rate"]
    assert (paper[["NDE", "NIE", "BIE", "RIE"]] < 0.8).all(), paper  # what the rule protects from
    assert not rows(fast_table, "proxy reveals X, n=4000, estimable").index.isin(["NDE", "NIE", "BIE", "RIE"]).any()


def test_good_overlap_is_estimable(fast_table):
    share = rows(fast_table, "good overlap, n=4000", kind="estimable_share")["rate"]
    assert (share >= 0.95).all(), share


def test_fitted_estimator_in_band_with_good_overlap(fast_table):
    est = rows(fast_table, "good overlap, n=4000, estimable replications")
    lo, hi = COVERAGE_BAND
    assert set(est.index) == set(PSE_NAMES) and (est["reps"] >= 190).all(), est
    assert est["rate"].between(lo, hi).all(), est[["rate", "mc_se"]]


def test_trust_chapter_renders_the_csv(tmp_path):
    """The appendix shows the CSV it is given, row for row, with the verdicts (hand-made table)."""
    from _notebooks import run_chapter_text

    from popresume.coverage import summarize, table

    hits = [True] * 95 + [False] * 5
    t = table([summarize(hits, family="causal", quantity="NDE", kind="coverage", nominal=0.95,
                         setting="good overlap, n=500, estimable replications (overlap rule)"),
               summarize([True] * 30 + [False] * 70, family="causal", quantity="RIE", kind="coverage",
                         nominal=0.95, setting="proxy reveals X, n=500, all replications (paper rule)"),
               summarize([False] * 100, family="causal", quantity="RIE", kind="estimable_share", nominal=float("nan"),
                         setting="proxy reveals X, n=500", band_override=(0.0, 1.0))])
    t.to_csv(tmp_path / "c.csv", index=False)
    text = run_chapter_text("12_trust.py", {"csv": str(tmp_path / "c.csv")}, tmp_path, html=True)
    assert "3 rows; families: causal" in text
    assert "0.950 ± 0.022" in text and "in band" in text  # sqrt(.95 * .05 / 100) = 0.0218
    assert "0.300 ± 0.046" in text and "OUTSIDE" in text
    assert "no other family in this run" in text


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
    pd.testing.assert_frame_equal(got[["quantity", "setting", "kind", "reps"]], want[["quantity", "setting", "kind", "reps"]])
    assert got["rate"].to_numpy() == pytest.approx(want["rate"].to_numpy())
