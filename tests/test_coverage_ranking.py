"""The ranking family of the coverage harness: its fast subset stays in its bands, and the
harness fails an interval or SE that is wrong (popresume.coverage.ranking)."""

from __future__ import annotations

import numpy as np
import pytest

from popresume.coverage import COLUMNS
from popresume.coverage import ranking as coverage_ranking
from popresume.ranking import clogit
from popresume.ranking.rates import ratio_intervals


@pytest.fixture(scope="module")
def fast():
    return coverage_ranking.run(fast=True, seed=0)


def test_fast_subset_is_in_band(fast):
    assert fast.columns.tolist() == COLUMNS and (fast["family"] == "ranking").all()
    printed = fast[~fast["quantity"].str.contains("comparison")]
    assert printed["in_band"].all(), printed.loc[~printed["in_band"], ["quantity", "setting", "rate"]]
    kinds = set(printed["quantity"])
    assert {"impact ratio CI (pairwise log ratios)", "design-based chance null, p <= 0.05",
            "logit group Wald test, SEs clustered two-way run × name (default)"} <= kinds
    assert any(q.startswith("four-fifths flag of a fair ranker vs the design null") for q in kinds)


def test_previous_name_clustered_ses_reject_too_often(fast):
    """On Bloomberg's design with no group effect the old SEs (clustered by name only, the
    within-run covariance dropped) reject well above 5%; the two-way ones do not."""
    wald = fast[fast["quantity"].str.startswith("logit group Wald test")].set_index(["quantity", "setting"])["rate"]
    for setting in wald.index.get_level_values("setting").unique():
        old = wald[("logit group Wald test, SEs clustered by name only (previous default, comparison)", setting)]
        new = wald[("logit group Wald test, SEs clustered two-way run × name (default)", setting)]
        assert old > 0.08 and new < 0.07


def test_harness_fails_a_40_percent_interval_labelled_95():
    rows = coverage_ranking.ratio_rows(reps=200, sizes=(1000,), interval=lambda top: ratio_intervals(top, 0.40))
    assert not any(r["in_band"] for r in rows)
    assert max(r["rate"] for r in rows) < 0.9


def test_harness_fails_halved_standard_errors(monkeypatch):
    honest = clogit.cluster_cov
    monkeypatch.setattr(clogit, "cluster_cov", lambda *a, **k: honest(*a, **k) / 4)  # SEs halved
    rows = coverage_ranking.clogit_and_chance_rows(reps=15, name_sds=(0.3,), n_null=20)
    two_way = [r for r in rows if r["quantity"].endswith("two-way run × name (default)")]
    assert len(two_way) == 1 and not two_way[0]["in_band"] and two_way[0]["rate"] > 0.15


def test_old_percentile_bootstrap_under_covers_at_parity():
    """The interval the tables printed before: at parity its coverage is far below 95%."""
    rng = np.random.default_rng(0)
    top = rng.multinomial(1000, np.full(8, 1 / 8), size=100)
    low, high = coverage_ranking.old_percentile_bootstrap(top, rng, n_boot=200)
    assert ((low <= 1) & (1 <= high + 1e-12)).mean() < 0.8
