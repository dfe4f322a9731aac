"""popresume.leakage.metrics: the survivors of the first mutation run, killed with small
hand-made tables (standard errors by hand, row-order invariance, zero comparators, warnings).

Written to kill mutants that ``scripts/mutation.py leakage.metrics`` found alive.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from popresume.leakage import metrics


def _cells(values_by_condition, clusters=4):
    """One judge, clusters b0.., each condition's value repeated once per cluster (or a list)."""
    rows = []
    for cond, vals in values_by_condition.items():
        vals = vals if isinstance(vals, list) else [vals] * clusters
        rows += [{"judge": "j", "condition": cond, "base_id": f"b{k}", "v": v} for k, v in enumerate(vals)]
    return pd.DataFrame(rows)


def test_se_and_z_pvalue_by_hand():
    assert metrics._se(np.array([1.0, 2.0, 3.0])) == pytest.approx(1.0)  # sample SD, ddof 1
    assert metrics._se(np.array([1.0, 3.0])) == pytest.approx(np.sqrt(2.0))
    assert metrics._se(np.array([1.0, np.nan, 3.0, np.inf])) == pytest.approx(np.sqrt(2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one draw or none: NaN, without numpy's warning
        assert np.isnan(metrics._se(np.array([2.0]))) and np.isnan(metrics._se(np.array([])))
    assert metrics._z_pvalue(0.5, 0.0) == 0.0 and metrics._z_pvalue(0.0, 0.0) == 1.0
    assert metrics._z_pvalue(-0.5, 0.0) == 0.0


def test_ratios_vs_keeps_going_past_the_comparator_and_names_n_clusters():
    df = _cells({"Anglo": [1.0, 0.0, 1.0, 1.0], "B": [1.0, 0.0, 0.0, 1.0], "C": [0.0, 0.0, 1.0, 1.0]})
    bm = metrics.boot_means(df, "v", ["judge", "condition"], n_boot=200)
    out = metrics._ratios_vs(bm, ["judge"], 0.95, kind="ratio")
    assert out["condition"].tolist() == ["B", "C"]  # Anglo sorts first; the others still come
    assert out["n_clusters"].tolist() == [4, 4] and out["estimate"].tolist() == pytest.approx([2 / 3, 2 / 3])
    diff = metrics._ratios_vs(bm, ["judge"], 0.95, kind="diff")
    assert diff["condition"].tolist() == ["B", "C"] and diff["estimate"].tolist() == pytest.approx([-0.25, -0.25])


def test_ratio_to_a_zero_comparator_is_nan_without_warnings():
    df = _cells({"Anglo": 0.0, "B": [1.0, 0.0, 1.0, 0.0]})
    bm = metrics.boot_means(df, "v", ["judge", "condition"], n_boot=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 and x/0 draw by draw are expected, not warned
        out = metrics._ratios_vs(bm, ["judge"], 0.95, kind="ratio")
    assert np.isnan(out["estimate"].iloc[0]) and np.isnan(out["p_value"].iloc[0])
    assert out["rate"].iloc[0] == 0.5 and out["comparator_rate"].iloc[0] == 0


def test_boot_means_empty_cells_in_a_draw_are_nan_without_warnings():
    # condition C only in cluster b0: draws without b0 have an empty C cell
    df = pd.concat([_cells({"A": [1.0, 2.0, 3.0, 4.0]}), _cells({"C": [5.0]})], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bm = metrics.boot_means(df, "v", ["condition"], n_boot=300, seed=1)
    c = bm.index(condition="C")
    assert np.isnan(bm.draws[:, c]).any() and bm.n_clusters.tolist() == [4, 1]
    assert bm.n.dtype.kind == "i" and bm.n.tolist() == [4, 1]


def test_boot_means_does_not_depend_on_row_order_and_defaults():
    df = _cells({"A": [1.0, 2.0, 3.0, 4.0, 5.0], "B": [0.0, 2.0, 2.0, 1.0, 9.0]}, clusters=5)
    a = metrics.boot_means(df, "v", ["condition"], n_boot=50, seed=3)
    b = metrics.boot_means(df.iloc[::-1], "v", ["condition"], n_boot=50, seed=3)
    np.testing.assert_array_equal(a.draws, b.draws)  # clusters are drawn in sorted order
    d = metrics.boot_means(df, "v", ["condition"])
    assert d.draws.shape == (2000, 2)
    np.testing.assert_array_equal(d.draws, metrics.boot_means(df, "v", ["condition"], n_boot=2000, seed=0).draws)
    c = metrics.cluster_bootstrap(df, "v", ["condition"])
    e = metrics.cluster_bootstrap(df, "v", ["condition"], n_boot=2000, seed=0)
    pd.testing.assert_frame_equal(c, e)
    assert c.columns.tolist() == ["condition", "estimate", "ci_low", "ci_high", "se", "n", "n_clusters"]
    assert not metrics.cluster_bootstrap(df, "v", ["condition"], seed=5).equals(c)
    # the cluster column is the one named, not the default base_id
    other = df.rename(columns={"base_id": "cv"}).assign(base_id="one")
    t = metrics.cluster_bootstrap(other, "v", ["condition"], cluster="cv", n_boot=100)
    assert t["n_clusters"].tolist() == [5, 5] and t["se"].notna().all()
    with pytest.raises(ValueError, match="^table has no column 'base_id'"):
        metrics.boot_means(df.drop(columns="base_id"), "v", ["condition"])


def test_boot_means_two_clusters_have_draws_and_one_row_clusters_count():
    df = _cells({"A": [1.0, 3.0]}, clusters=2)
    bm = metrics.boot_means(df, "v", ["condition"], n_boot=400)
    assert np.isfinite(bm.draws).all() and set(np.unique(bm.draws)) <= {1.0, 2.0, 3.0}
    assert bm.n_clusters.tolist() == [2]  # one row in each cluster still counts it
    one = metrics.boot_means(_cells({"A": [1.0]}, clusters=1), "v", ["condition"], n_boot=10)
    assert np.isnan(one.draws).all()


def test_boot_means_cells_keep_missing_by_values():
    df = _cells({"A": [1.0, 2.0, 3.0], "B": [4.0, 5.0, 6.0]}, clusters=3)
    df["tier"] = ["t1", "t1", "t1", None, None, None]
    bm = metrics.boot_means(df, "v", ["tier"], n_boot=20)
    assert len(bm.cells) == 2 and bm.point.tolist() == pytest.approx([2.0, 5.0])
    assert bm.cells.columns.tolist() == ["tier"]


def test_add_corrections_family_with_a_missing_key_and_no_p_values():
    t = pd.DataFrame({"judge": ["a", "a", None, None], "p_value": [0.01, 0.04, 0.02, 0.03]})
    out = metrics.add_corrections(t, family=["judge"])
    # Holm within the missing-judge family too: 0.02 * 2, max(0.03, 0.04)
    assert out["p_holm"].tolist() == pytest.approx([0.02, 0.04, 0.04, 0.04])
    assert out.columns.tolist() == ["judge", "p_value", "p_holm", "p_bh"]
    none = metrics.add_corrections(pd.DataFrame({"p_value": [np.nan, np.nan]}))
    assert none.columns.tolist() == ["p_value", "p_holm", "p_bh"] and none[["p_holm", "p_bh"]].isna().all().all()


def test_task_tables_name_themselves_and_cast_to_float():
    with pytest.raises(ValueError, match="^Task 1 table has no column"):
        metrics.task1_outcomes(pd.DataFrame({"judge": ["j"]}))
    with pytest.raises(ValueError, match="^Task 3 table has no column"):
        metrics.task3_outcomes(pd.DataFrame({"judge": ["j"]}))
    t3 = pd.DataFrame({"judge": "j", "base_id": "b", "condition": "A", "tier": "T1", "parse_ok": True,
                       "shortlist": ["1", "0"], "score": ["70", "80"]})
    out = metrics.task3_outcomes(t3)
    assert out["shortlist"].dtype == float and out["score"].dtype == float
    assert out["shortlist"].tolist() == [1.0, 0.0] and out["score"].tolist() == [70.0, 80.0]


def test_ratios_vs_skips_a_judge_without_comparator_and_goes_on():
    a = _cells({"B": [1.0, 0.0, 1.0, 1.0]}).assign(judge="a")  # judge a has no Anglo replies
    b = _cells({"Anglo": [1.0, 1.0, 1.0, 0.0], "B": [1.0, 0.0, 1.0, 1.0]}).assign(judge="b")
    bm = metrics.boot_means(pd.concat([a, b], ignore_index=True), "v", ["judge", "condition"], n_boot=100)
    out = metrics._ratios_vs(bm, ["judge"], 0.95, kind="diff")
    assert out["judge"].tolist() == ["b"] and out["estimate"].tolist() == pytest.approx([0.0])
