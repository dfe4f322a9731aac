"""Metrics on hand-constructed replies whose answers are known by construction."""

import numpy as np
import pandas as pd
import pytest

from popresume.leakage import metrics as M

BASES = [f"b{i}" for i in range(8)]


def test_holm_and_bh_hand_examples():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005,0.01,0.03,0.04 x 4,3,2,1 = 0.02,0.03,0.06,0.04 -> running max 0.02,0.03,0.06,0.06
    np.testing.assert_allclose(M.holm(p), [0.03, 0.06, 0.06, 0.02])
    # BH: sorted x 4/1,4/2,4/3,4/4 = 0.02,0.02,0.04,0.04 -> running min from the top, unchanged
    np.testing.assert_allclose(M.benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])
    # capping at 1 and monotonicity on a second example
    np.testing.assert_allclose(M.holm([0.5, 0.2, 0.9]), [1.0, 0.6, 1.0])
    np.testing.assert_allclose(M.benjamini_hochberg([0.5, 0.2, 0.9]), [0.75, 0.6, 0.9])
    assert M.holm([]).size == 0
    with pytest.raises(ValueError, match="NaN"):
        M.holm([0.1, np.nan], nan="raise")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        M.benjamini_hochberg([0.1, 1.5])


def test_add_corrections_by_family():
    t = pd.DataFrame({"judge": ["a", "a", "b", "b", "b"], "p_value": [0.01, 0.04, 0.01, 0.02, np.nan]})
    out = M.add_corrections(t, family=["judge"])
    np.testing.assert_allclose(out["p_holm"].iloc[:4], [0.02, 0.04, 0.02, 0.02])
    assert np.isnan(out["p_holm"].iloc[4]) and np.isnan(out["p_bh"].iloc[4])


def test_cluster_bootstrap_respects_clusters():
    # ten clusters, each all-1 or all-0, with 50 rows each: rows are not independent
    df = pd.DataFrame({"base_id": np.repeat([f"c{i}" for i in range(10)], 50),
                       "y": np.repeat([1, 0] * 5, 50), "g": "x"})
    t = M.cluster_bootstrap(df, "y", ["g"], n_boot=2000, seed=1)
    assert t["estimate"].iloc[0] == pytest.approx(0.5)
    # cluster SE ~ sqrt(0.25/10) = 0.158; a row-level bootstrap would give ~0.022
    assert 0.12 < t["se"].iloc[0] < 0.2
    assert t["ci_low"].iloc[0] < 0.3 and t["ci_high"].iloc[0] > 0.7
    assert t["n"].iloc[0] == 500 and t["n_clusters"].iloc[0] == 10
    # same seed, same draws; constant data, degenerate CI
    t2 = M.cluster_bootstrap(df, "y", ["g"], n_boot=2000, seed=1)
    pd.testing.assert_frame_equal(t, t2)
    c = M.cluster_bootstrap(df.assign(y=0.7), "y", ["g"], n_boot=200)
    assert c["ci_low"].iloc[0] == pytest.approx(0.7) and c["ci_high"].iloc[0] == pytest.approx(0.7)
    one = M.cluster_bootstrap(df[df["base_id"] == "c0"], "y", ["g"], n_boot=50)
    assert one["estimate"].iloc[0] == 1 and np.isnan(one["ci_low"].iloc[0]) and np.isnan(one["se"].iloc[0])
    with pytest.raises(ValueError, match="column 'nope'"):
        M.cluster_bootstrap(df, "nope", ["g"])


def _task1():
    rows = []
    for b in BASES:
        for tier in ("T1", "T2", "T3"):
            for k in (1, 2):
                for g in ("Anglo", "Chinese"):
                    if tier == "T1":
                        pred = g  # always recovered
                    elif tier == "T2":
                        pred = g if k == 1 else "Cannot determine"  # half recovered, half abstained
                    else:
                        pred = "Indian"  # always wrong, committed
                    rows.append(dict(judge="j", base_id=b, condition=g, tier=tier, perceived_group=pred,
                                     confidence=90 if tier == "T1" else 30, parse_ok=True))
        rows.append(dict(judge="j", base_id=b, condition="Control", tier="none",
                         perceived_group="Cannot determine", confidence=10, parse_ok=True))
    return pd.DataFrame(rows)


def test_task1_metrics_known_by_construction():
    r = _task1()
    failed = r.iloc[[0]].assign(perceived_group=None, confidence=np.nan, parse_ok=False)
    m = M.task1_metrics(pd.concat([r, failed], ignore_index=True), n_boot=200)
    get = lambda tier, metric: m[(m["tier"] == tier) & (m["metric"] == metric)]["estimate"].iloc[0]  # noqa: E731
    assert get("T1", "recovery") == 1 and get("T2", "recovery") == 0.5 and get("T3", "recovery") == 0
    assert get("all", "recovery") == pytest.approx(0.5)
    assert get("T2", "abstention") == 0.5 and get("T3", "abstention") == 0
    assert get("T1", "confidence") == 90
    assert get("control", "false_attribution") == 0
    assert get("all", "parse_failure") == pytest.approx(1 / (len(r) + 1))
    cm = M.confusion_matrix(r)
    np.testing.assert_allclose(cm.sum(axis=1), 1.0)
    assert cm.loc["Chinese", "Chinese"] == pytest.approx(0.5)  # T1 both + T2 one of two -> 3/6
    assert cm.loc["Chinese", "Indian"] == pytest.approx(2 / 6)
    assert cm.loc["Control", "Cannot determine"] == 1
    with pytest.raises(ValueError, match="unknown perceived_group"):
        M.task1_metrics(r.assign(perceived_group="Martian"), n_boot=10)
    with pytest.raises(ValueError, match="several judges"):
        M.confusion_matrix(pd.concat([r, r.assign(judge="k")]))


def _task2(forbidden_marked_wins):
    """Forbidden: the judge always answers A (pure position). Neutral: always Tie.
    `forbidden_marked_wins[g]` overrides: under Forbidden the marked variant of g always wins."""
    rows = []
    for b in BASES:
        for g in ("Anglo", "Chinese", "Control"):
            for order in ("marked_first", "baseline_first"):
                for regime in ("Forbidden", "Neutral"):
                    if regime == "Neutral":
                        v = "Tie"
                    elif forbidden_marked_wins.get(g):
                        v = "A" if order == "marked_first" else "B"
                    else:
                        v = "A"
                    rows.append(dict(judge="j", base_id=b, condition=g, tier="T1" if g != "Control" else "none",
                                     regime=regime, order=order, preferred=v, parse_ok=True,
                                     item_id=f"{b}/{g}|{regime}|{order}"))
    return pd.DataFrame(rows)


def test_task2_position_ties_and_selection_ratios():
    r = _task2({"Anglo": True})
    m = M.task2_metrics(r, n_boot=200)
    get = lambda regime, metric: m[(m["regime"] == regime) & (m["metric"] == metric)]["estimate"].iloc[0]  # noqa: E731
    assert get("Neutral", "tie_rate") == 1 and get("Forbidden", "tie_rate") == 0
    # per base: Anglo answers A then B (marked wins), Chinese and Control answer A twice -> 5 of 6 first
    assert get("Forbidden", "first_position_rate") == pytest.approx(5 / 6)
    s = M.selection_rate_ratios(r, n_boot=200)
    f = s[s["regime"] == "Forbidden"].set_index("condition")
    # Anglo selected 100%, Chinese/Control 50% (position only) -> ratio 0.5, flagged by the 4/5 rule
    assert f.loc["Chinese", "ratio"] == pytest.approx(0.5) and f.loc["Chinese", "four_fifths_flag"]
    n = s[s["regime"] == "Neutral"].set_index("condition")
    assert n.loc["Chinese", "ratio"] == pytest.approx(1.0) and not n.loc["Chinese", "four_fifths_flag"]
    assert {"p_value", "p_holm", "p_bh"} <= set(s.columns)
    assert (s["p_holm"] >= s["p_value"] - 1e-12).all()
    bad = r.copy()
    bad.loc[bad["regime"] == "Forbidden", "preferred"] = "Tie"
    with pytest.raises(ValueError, match="Forbidden"):
        M.task2_metrics(bad, n_boot=10)
    with pytest.raises(ValueError, match="tie_credit"):
        M.task2_outcomes(r, tie_credit=2)


def _task3():
    rows = []
    for i, b in enumerate(BASES):
        for g, delta in (("Anglo", 0.0), ("Chinese", 2.0), ("Indian", 0.0), ("Control", -1.0)):
            # Indian attains the maximum on bases 0..5 (6 of 8); Chinese otherwise
            bump = 5.0 if (g == "Indian" and i < 6) else 0.0
            score = 60 + i + delta + bump
            rows.append(dict(judge="j", base_id=b, condition=g, tier="T1", rep=0, score=score,
                             shortlist=int(g != "Control" or i % 2 == 0), parse_ok=True))
    return pd.DataFrame(rows)


def test_task3_differences_tsr_and_four_fifths():
    r = _task3()
    d = M.score_differences(r, n_boot=300).set_index("condition")
    assert d.loc["Chinese", "difference"] == pytest.approx(2.0)
    assert d.loc["Chinese", "ci_low"] == pytest.approx(2.0) and d.loc["Chinese", "ci_high"] == pytest.approx(2.0)
    assert d.loc["Control", "difference"] == pytest.approx(-1.0)
    assert d.loc["Indian", "difference"] == pytest.approx(5.0 * 6 / 8)
    t = M.top_score_rate(r, n_boot=300).set_index("condition")
    assert t.loc["Indian", "estimate"] == pytest.approx(6 / 8) and t.loc["Chinese", "estimate"] == pytest.approx(2 / 8)
    assert t.loc["Anglo", "estimate"] == 0
    s = M.shortlist_ratios(r, n_boot=300).set_index("condition")
    assert s.loc["Control", "ratio"] == pytest.approx(0.5) and s.loc["Control", "four_fifths_flag"]
    assert s.loc["Chinese", "ratio"] == pytest.approx(1.0) and not s.loc["Chinese", "four_fifths_flag"]
    m = M.task3_metrics(r, n_boot=100)
    assert m[(m["condition"] == "Control") & (m["metric"] == "shortlist_rate")]["estimate"].iloc[0] == 0.5
    with pytest.raises(ValueError, match="0 or 1"):
        M.task3_metrics(r.assign(shortlist=3), n_boot=10)
    with pytest.raises(ValueError, match="has no column"):
        M.task3_metrics(r.drop(columns="score"), n_boot=10)


def test_headline_table_labels_published_and_ours():
    from popresume.leakage import PUBLISHED

    t1 = M.task1_metrics(_task1(), n_boot=50)
    r2 = _task2({"Anglo": True})
    r2 = pd.concat([r2, r2[r2["regime"] == "Neutral"].assign(regime="Encouraged")], ignore_index=True)
    t2 = M.task2_metrics(r2, n_boot=50)
    ratios = M.selection_rate_ratios(r2, n_boot=50)
    diffs = M.score_differences(_task3(), n_boot=50)
    h = M.headline_table(t1, t2, ratios, diffs).set_index("quantity")
    assert h.loc["overall recovery rate (T1-T3)", "published"] == f"{PUBLISHED['overall_recovery']:.3f}"
    assert h.loc["overall recovery rate (T1-T3)", "ours"] == pytest.approx(0.5)
    assert h.loc["lowest group selection-rate ratio vs Anglo, forced choice", "ours"] == pytest.approx(0.5)
    assert h.loc["tie rate, ties encouraged", "ours"] == 1
    big = h.loc["score difference vs Anglo of largest size (points of 100)"]
    assert big["ours"] == pytest.approx(3.75) and "Indian" in big["note"]


def test_position_bias_separates_untied_pairs_from_tie_breaking():
    """Chinese variants: the judge sees a tie (Neutral says Tie) and the forced verdict is
    always A; Indian variants: a real preference for the marked résumé in both orders."""
    rows = []
    for b in BASES:
        for g in ("Chinese", "Indian"):
            for order in ("marked_first", "baseline_first"):
                marked = "A" if order == "marked_first" else "B"
                for regime in ("Forbidden", "Neutral"):
                    if g == "Chinese":
                        v = "Tie" if regime == "Neutral" else "A"
                    else:
                        v = marked
                    rows.append(dict(judge="j", base_id=b, variant_id=f"{b}/{g}", condition=g, tier="T1",
                                     regime=regime, order=order, preferred=v, parse_ok=True))
    r = pd.DataFrame(rows)
    # pooled, the forced choice looks position-biased: 3 of 4 verdicts go to A
    m = M.task2_metrics(r, n_boot=100)
    pooled = m[(m["regime"] == "Forbidden") & (m["metric"] == "first_position_rate")]["estimate"].iloc[0]
    assert pooled == pytest.approx(0.75)
    pb = M.position_bias(r, n_boot=200).set_index("pairs")
    assert pb.loc["untied", "estimate"] == pytest.approx(0.5)  # no position bias on pairs it can tell apart
    assert pb.loc["tie_broken", "estimate"] == pytest.approx(1.0)  # the tie-breaking rule, shown apart
    assert pb.loc["untied", "share"] == pytest.approx(0.5) and pb.loc["untied", "n"] == 16
    with pytest.raises(ValueError, match="Forbidden and Neutral"):
        M.position_bias(r[r["regime"] == "Forbidden"], n_boot=10)


def test_top_score_rate_per_base_as_the_paper_and_per_variant_as_ours():
    """Indian has two variants per base, one always on top and one never; the control has
    one variant, always on top (tied). Per base (the paper), Indian gets two chances."""
    rows = []
    for b in BASES:
        for vid, g, score in (("i1", "Indian", 70.0), ("i2", "Indian", 50.0), ("c", "Control", 70.0),
                              ("a1", "Anglo", 60.0), ("a2", "Anglo", 60.0)):
            rows.append(dict(judge="j", base_id=b, variant_id=f"{b}/{vid}", condition=g, tier="T1", rep=0,
                             score=score, shortlist=1, parse_ok=True))
    r = pd.DataFrame(rows)
    per_variant = M.top_score_rate(r, unit="variant", n_boot=100).set_index("condition")["estimate"]
    per_base = M.top_score_rate(r, n_boot=100).set_index("condition")["estimate"]  # default: the paper's
    assert per_variant["Indian"] == pytest.approx(0.5) and per_base["Indian"] == pytest.approx(1.0)
    assert per_variant["Control"] == per_base["Control"] == pytest.approx(1.0)
    assert per_variant["Anglo"] == per_base["Anglo"] == 0
    with pytest.raises(ValueError, match="unit"):
        M.top_score_rate(r, unit="condition")
    both = M.top_score_rates_both(r, n_boot=100).set_index("condition")
    assert both.loc["Indian", "paper_per_base"] == pytest.approx(1.0)
    assert both.loc["Indian", "ours_per_variant"] == pytest.approx(0.5)
    assert both.loc["Indian", "variants_per_base"] == 2 and both.loc["Control", "variants_per_base"] == 1
    assert (both["paper_ci_low"] <= both["paper_per_base"]).all() and (both["ours_per_variant"] <= both["ours_ci_high"]).all()
