"""popresume.leakage.metrics against closed forms: the cluster bootstrap's variance, its
percentile interval, the normal-reference p-values and the corrections by family.

Written to kill mutants that ``scripts/mutation.py leakage.metrics`` found alive.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests

from popresume.leakage import metrics

K = 12  # clusters


def _clustered(seed=0, rows_per_cluster=(3, 5)):
    """K clusters with one cluster-level value each (rows of a cluster are identical)."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0, 1, K)
    sizes = np.where(np.arange(K) % 2 == 0, *rows_per_cluster)
    return pd.DataFrame({"base_id": np.repeat([f"b{k:02d}" for k in range(K)], sizes),
                         "y": np.repeat(means, sizes), "g": "x"}), means, sizes


def test_equal_clusters_bootstrap_variance_matches_closed_form():
    # equal cluster sizes: the resampled mean is the mean of K draws (with replacement) of the
    # cluster means, whose bootstrap variance is (1/K) * (1/K) * sum (m_k - mean)^2
    df, means, _ = _clustered(rows_per_cluster=(4, 4))
    t = metrics.cluster_bootstrap(df, "y", ["g"], n_boot=6000, seed=2)
    se_theory = np.sqrt(np.mean((means - means.mean()) ** 2) / K)
    assert t["estimate"].iloc[0] == pytest.approx(means.mean())
    assert t["se"].iloc[0] == pytest.approx(se_theory, rel=0.05)
    # percentile CI at 95% ~ estimate +- 1.96 se (the bootstrap mean of K=12 draws is near normal)
    assert t["ci_low"].iloc[0] == pytest.approx(means.mean() - 1.96 * se_theory, abs=0.25 * se_theory)
    assert t["ci_high"].iloc[0] == pytest.approx(means.mean() + 1.96 * se_theory, abs=0.25 * se_theory)
    assert t["n"].iloc[0] == 4 * K and t["n_clusters"].iloc[0] == K


def test_level_sets_the_percentiles():
    df, means, _ = _clustered(rows_per_cluster=(4, 4))
    wide = metrics.cluster_bootstrap(df, "y", ["g"], n_boot=4000, seed=1, level=0.95)
    narrow = metrics.cluster_bootstrap(df, "y", ["g"], n_boot=4000, seed=1, level=0.5)
    se = wide["se"].iloc[0]
    half50 = (narrow["ci_high"] - narrow["ci_low"]).iloc[0] / 2
    half95 = (wide["ci_high"] - wide["ci_low"]).iloc[0] / 2
    assert half50 == pytest.approx(norm.ppf(0.75) * se, rel=0.15)
    assert half95 == pytest.approx(norm.ppf(0.975) * se, rel=0.1)
    # same draws (same seed): the 50% interval sits inside the 95% one
    assert wide["ci_low"].iloc[0] < narrow["ci_low"].iloc[0] < narrow["ci_high"].iloc[0] < wide["ci_high"].iloc[0]


def test_unequal_clusters_point_is_the_row_mean_and_cells_are_sorted():
    df, means, sizes = _clustered()
    df = pd.concat([df.assign(g="z"), df.assign(g="a", y=df["y"] + 1.0)], ignore_index=True)
    t = metrics.cluster_bootstrap(df, "y", ["g"], n_boot=50, seed=0)
    row_mean = np.sum(means * sizes) / sizes.sum()
    assert list(t["g"]) == ["a", "z"]
    np.testing.assert_allclose(t["estimate"], [row_mean + 1.0, row_mean])
    assert list(t["n"]) == [sizes.sum()] * 2 and list(t["n_clusters"]) == [K, K]


def test_missing_values_are_dropped_and_counted_out():
    df, _, _ = _clustered(rows_per_cluster=(2, 2))
    df.loc[0, "y"] = np.nan
    t = metrics.cluster_bootstrap(df, "y", ["g"], n_boot=20)
    assert t["n"].iloc[0] == 2 * K - 1
    with pytest.raises(ValueError, match=r"^no non-missing values of 'y' to summarise$"):
        metrics.cluster_bootstrap(df.assign(y=np.nan), "y", ["g"], n_boot=20)
    with pytest.raises(ValueError, match=r"^n_boot must be >= 1, got 0$"):
        metrics.cluster_bootstrap(df, "y", ["g"], n_boot=0)
    one = metrics.cluster_bootstrap(df, "y", ["g"], n_boot=1)
    assert np.isnan(one["se"].iloc[0])  # one draw: no standard deviation


def test_boot_means_index_lookup():
    df, _, _ = _clustered()
    bm = metrics.boot_means(pd.concat([df, df.assign(g="w")]), "y", ["g"], n_boot=10)
    assert bm.index(g="w") == 0 and bm.index(g="x") == 1
    with pytest.raises(ValueError, match=r"no unique cell with \{'g': 'q'\} \(0 found\)"):
        bm.index(g="q")
    assert bm.draws.shape == (10, 2)


def _scores(shift, noise_sd=1.0, seed=0):
    """Task 3 replies: per base, Anglo and Chinese scores; Chinese = Anglo + shift + noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(K):
        base = 50 + 5 * rng.normal()
        for g, s in (("Anglo", base), ("Chinese", base + shift + noise_sd * rng.normal())):
            rows.append(dict(judge="j", base_id=f"b{k}", condition=g, tier="T1", score=float(np.clip(s, 0, 100)),
                             shortlist=1, parse_ok=True))
    return pd.DataFrame(rows)


def test_difference_p_value_is_the_normal_reference_of_its_own_se():
    d = metrics.score_differences(_scores(0.8), n_boot=3000, seed=4).set_index("condition")
    row = d.loc["Chinese"]
    # paired within bases: the difference's SE is that of the K per-base differences' mean
    r = _scores(0.8)
    diffs = (r[r.condition == "Chinese"]["score"].to_numpy() - r[r.condition == "Anglo"]["score"].to_numpy())
    assert row["difference"] == pytest.approx(diffs.mean())
    assert row["se"] == pytest.approx(np.sqrt(np.mean((diffs - diffs.mean()) ** 2) / K), rel=0.06)
    assert row["p_value"] == pytest.approx(2 * norm.sf(abs(row["difference"]) / row["se"]), rel=1e-9)
    assert row["mean_score"] == pytest.approx(r[r.condition == "Chinese"]["score"].mean())
    assert row["comparator_mean_score"] == pytest.approx(r[r.condition == "Anglo"]["score"].mean())
    assert row["comparator"] == "Anglo"


def test_identical_scores_give_p_one_and_zero_width():
    d = metrics.score_differences(_scores(0.0, noise_sd=0.0), n_boot=200).set_index("condition")
    assert d.loc["Chinese", "difference"] == 0 and d.loc["Chinese", "se"] == 0
    assert d.loc["Chinese", "p_value"] == 1.0
    shifted = metrics.score_differences(_scores(3.0, noise_sd=0.0), n_boot=200).set_index("condition")
    assert shifted.loc["Chinese", "p_value"] == 0.0  # a constant nonzero difference: se 0, p 0


def test_ratio_p_value_uses_the_log_ratio():
    rng = np.random.default_rng(5)
    rows = []
    for k in range(40):
        for g, p in (("Anglo", 0.8), ("Chinese", 0.55)):
            for rep in range(4):
                rows.append(dict(judge="j", base_id=f"b{k}", condition=g, tier="T1", score=50.0,
                                 shortlist=int(rng.random() < p), parse_ok=True))
    r = pd.DataFrame(rows)
    s = metrics.shortlist_ratios(r, n_boot=2000, seed=3).set_index("condition").loc["Chinese"]
    rate_c = r[r.condition == "Chinese"]["shortlist"].mean()
    rate_a = r[r.condition == "Anglo"]["shortlist"].mean()
    assert s["ratio"] == pytest.approx(rate_c / rate_a)
    assert s["rate"] == pytest.approx(rate_c) and s["comparator_rate"] == pytest.approx(rate_a)
    assert s["four_fifths_flag"] == bool(rate_c / rate_a < 0.8)
    # delta method on the log ratio with clustered rows (4 per base): a loose but independent check
    assert s["p_value"] < 0.01
    assert s["ci_low"] < s["ratio"] < s["ci_high"] and s["ci_high"] < 1


def test_corrections_by_family_agree_with_statsmodels():
    p = [0.01, 0.04, 0.03, 0.2, 0.001, 0.5, np.nan]
    t = pd.DataFrame({"fam": ["a", "a", "a", "b", "b", "b", "b"], "p_value": p})
    out = metrics.add_corrections(t, family=["fam"])
    a = multipletests(p[:3], method="holm")[1]
    b = multipletests(p[3:6], method="fdr_bh")[1]
    np.testing.assert_allclose(out["p_holm"].iloc[:3], a)
    np.testing.assert_allclose(out["p_bh"].iloc[3:6], b)
    assert np.isnan(out["p_holm"].iloc[6])
    whole = metrics.add_corrections(t.iloc[:6])
    np.testing.assert_allclose(whole["p_holm"], multipletests(p[:6], method="holm")[1])
    np.testing.assert_allclose(whole["p_bh"], multipletests(p[:6], method="fdr_bh")[1])
    assert "p_holm" not in t.columns  # the input is not modified


def test_task1_outcomes_columns():
    rows = [dict(judge="j", base_id="b", condition="Chinese", tier="T1", perceived_group="Chinese",
                 confidence="80", parse_ok=True),
            dict(judge="j", base_id="b", condition="Chinese", tier="T2", perceived_group="Cannot determine",
                 confidence=10, parse_ok=True),
            dict(judge="j", base_id="b", condition="Control", tier="none", perceived_group="Indian",
                 confidence=50, parse_ok=True),
            dict(judge="j", base_id="b", condition="Control", tier="none", perceived_group=None,
                 confidence=None, parse_ok=False)]
    d = metrics.task1_outcomes(pd.DataFrame(rows))
    assert len(d) == 3  # the parse failure is out
    np.testing.assert_array_equal(d["recovered"].to_numpy()[:2], [1.0, 0.0])
    assert np.isnan(d["recovered"].iloc[2])
    np.testing.assert_array_equal(d["abstained"], [0.0, 1.0, 0.0])
    assert d["attributed"].iloc[2] == 1.0 and np.isnan(d["attributed"].iloc[0])
    assert d["confidence"].dtype == float


def test_task2_outcomes_selected_and_tie_credit():
    rows = [dict(judge="j", base_id="b", condition="Chinese", tier="T1", regime="Neutral", order=o, preferred=v,
                 parse_ok=True)
            for o, v in (("marked_first", "A"), ("marked_first", "B"), ("baseline_first", "B"),
                         ("baseline_first", "A"), ("marked_first", "Tie"))]
    d = metrics.task2_outcomes(pd.DataFrame(rows), tie_credit=0.25)
    np.testing.assert_array_equal(d["selected"], [1.0, 0.0, 1.0, 0.0, 0.25])
    np.testing.assert_array_equal(d["tie"], [0, 0, 0, 0, 1.0])
    np.testing.assert_array_equal(d["first"].to_numpy()[:4], [1.0, 0.0, 0.0, 1.0])
    assert np.isnan(d["first"].iloc[4])
    with pytest.raises(ValueError, match=r"^tie_credit must be in \[0, 1\], got -0.1$"):
        metrics.task2_outcomes(pd.DataFrame(rows), tie_credit=-0.1)
    for credit in (0, 1):  # the bounds are allowed
        metrics.task2_outcomes(pd.DataFrame(rows), tie_credit=credit)
    with pytest.raises(ValueError, match=r"unknown verdicts \['C'\]"):
        metrics.task2_outcomes(pd.DataFrame(rows).assign(preferred="C"))
    with pytest.raises(ValueError, match=r"unknown regimes \['Loud'\]"):
        metrics.task2_outcomes(pd.DataFrame(rows).assign(regime="Loud"))


def test_task3_score_range():
    r = _scores(0.0)
    with pytest.raises(ValueError, match=r"^Task 3 scores must lie in \[0, 100\]$"):
        metrics.task3_outcomes(r.assign(score=101.0))
    with pytest.raises(ValueError, match=r"^Task 3 scores must lie in \[0, 100\]$"):
        metrics.task3_outcomes(r.assign(score=-1.0))
    assert len(metrics.task3_outcomes(r.assign(score=100.0))) == len(r)
    assert len(metrics.task3_outcomes(r.assign(score=0.0))) == len(r)


def test_confusion_matrix_counts_and_filters():
    rows = []
    for judge in ("j", "k"):
        for tier, pred in (("T1", "Chinese"), ("T2", "Indian"), ("T3", "Cannot determine")):
            rows.append(dict(judge=judge, base_id="b", condition="Chinese", tier=tier, perceived_group=pred,
                             confidence=1, parse_ok=True))
    r = pd.DataFrame(rows)
    counts = metrics.confusion_matrix(r, judge="k", normalize=False)
    assert counts.loc["Chinese", "Chinese"] == 1 and counts.loc["Chinese", "Indian"] == 1
    assert counts.loc["Chinese"].sum() == 3
    assert list(counts.columns) == ["Anglo", "First Nations", "Chinese", "Indian", "Vietnamese", "Cannot determine"]
    t2 = metrics.confusion_matrix(r, judge="j", tier="T2")
    assert t2.loc["Chinese", "Indian"] == 1.0 and t2.loc["Chinese"].sum() == 1.0
    with pytest.raises(ValueError, match=r"^judge 'z' not in the replies \['j', 'k'\]$"):
        metrics.confusion_matrix(r, judge="z")
    with pytest.raises(ValueError, match=r"^tier must be one of \('T1', 'T2', 'T3'\), got 'T9'$"):
        metrics.confusion_matrix(r, judge="j", tier="T9")
