"""The validity family of the coverage harness: the gate's false-pass rate and power on
simulated screeners with a known truth (popresume.coverage.validity), and that the harness
catches a gate whose intervals are miscalibrated by 5 points or more."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from popresume.coverage import COLUMNS
from popresume.coverage import validity as cov
from popresume.screeners import validity as gate


@pytest.fixture(scope="module")
def fast():
    return cov.run(fast=True, seed=0)


def test_fast_subset_false_pass_at_most_5_percent_and_power(fast):
    assert fast.columns.tolist() == COLUMNS and (fast["family"] == "validity").all()
    assert fast["setting"].str.startswith(f"card of n={gate.CARD_N} ").all()
    fp = fast[fast["kind"] == "false_pass"].set_index("quantity")["rate"]
    assert set(fp.index) == {"gate passes a screener that ignores the posting",
                             "gate passes a screener that ignores the qualifications"}
    assert (fp <= 0.05).all() and (fp > 0.005).all(), fp  # the promise, and a gate that can err at all
    assert fast.loc[fast["kind"] == "false_pass", "in_band"].all()
    power = fast[fast["kind"] == "power"].iloc[0]  # 500 replications: 0.8 within three Monte Carlo SEs
    assert power["rate"] >= 0.8 - 3 * power["mc_se"] and power["rate"] < 0.97, power


def test_vectorised_contrasts_are_paired_contrast():
    rng = np.random.default_rng(3)
    d = rng.normal(1.0, 2.0, (4, 12))
    got = cov.contrasts(d)
    for r in range(4):
        ref = gate.paired_contrast(d[r], np.zeros(12))
        for k in ("estimate", "ci_low", "ci_high", "sd", "mean_abs", "n"):
            assert got[k][r] == pytest.approx(ref[k]), k


def test_simulated_cards_go_through_the_real_rule():
    design = cov.card_design(gate.CARD_N)
    assert design["n"] == gate.CARD_N and 0 < design["edu"].size <= gate.CARD_N
    assert (design["edu"] > 0).all() and (design["exp"] > 0).all() and design["exp"].max() == 1.0
    rng = np.random.default_rng(0)
    cards = cov.simulate_cards(design, J=40.0, sd_fit=10.0, Q=0.0, sd_qual=5.0, sd_edit=0.0, reps=50, rng=rng)
    verdicts = [gate.judge(c) for c in cards]
    failed = [why for v, why in verdicts if v == "fail"]
    assert len(failed) >= 40 and all(any(x.startswith("qualifications:") for x in why) for why in failed)


def test_harness_catches_a_5_point_miscalibration(monkeypatch):
    """Posting intervals labelled 95% that are really 85% (a one-sided 7.5% test) pass a
    screener that ignores the posting about 7.5% of the time, and the row leaves its band;
    qualification intervals at 90% instead of 97.5% pass one that ignores the
    qualifications about 10% of the time."""
    monkeypatch.setattr(cov, "LEVEL", 0.85)
    monkeypatch.setattr(gate, "QUAL_LEVEL", 0.90)
    bad = cov.run(fast=True, seed=0).set_index("quantity")
    for who in ("ignores the posting", "ignores the qualifications"):
        row = bad.loc[f"gate passes a screener that {who}"]
        assert row["rate"] > 0.06 and not row["in_band"], (who, row["rate"])


def test_chosen_card_n_reads_the_table():
    def rows(n, fp, pw):
        s = f"card of n={n} résumés (x), normal noise"
        return [{"family": "validity", "quantity": "gate passes a screener that ignores the posting", "setting": s,
                 "kind": "false_pass", "rate": fp},
                {"family": "validity", "quantity": "gate passes a screener that reads both (qualifications d_z 0.5)",
                 "setting": s, "kind": "power", "rate": pw}]
    tab = pd.DataFrame(rows(20, 0.03, 0.6) + rows(40, 0.03, 0.85) + rows(80, 0.06, 0.99))
    assert cov.chosen_card_n(tab) == 40
    assert cov.chosen_card_n(tab[tab["setting"].str.contains("n=20 ")]) is None


def test_shipped_table_chooses_the_default_card_size():
    tab = pd.read_csv(cov.results_csv())
    assert set(tab["kind"]) == {"false_pass", "power"} and (tab["family"] == "validity").all()
    assert cov.chosen_card_n(tab) == gate.CARD_N
    at = tab[tab["setting"].str.startswith(f"card of n={gate.CARD_N} ") & (tab["kind"] == "false_pass")
             & ~tab["setting"].str.endswith("left-skewed noise")]
    assert len(at) >= 4 and (at["rate"] <= 0.05).all()
