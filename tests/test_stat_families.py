"""The family of every Holm / Benjamini–Hochberg correction the package prints, checked on a
table where the family changes the adjusted values.

Each test builds two families whose p-values differ (one model or source with strong effects,
one with weak ones), recomputes the documented family's adjustment with statsmodels'
``multipletests`` on that family alone, and checks that pooling the families would have given
other numbers, so a correction taken over the wrong family fails here (issue 38).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from popresume.ranking import bloomberg as bb

DEMOS = list(bb.DEMOS)


def _sm(p, method):
    return multipletests(np.asarray(p, float), method=method)[1]


def _assert_family(table, p, family, *, suffixes=(("holm", "holm"), ("bh", "fdr_bh")), prefix=None):
    """``{p}_{suffix}`` equals multipletests within each ``family`` group, and differs from
    multipletests over the whole table (the family matters on this table)."""
    for suffix, method in suffixes:
        col = f"{prefix or p}_{suffix}"
        assert col in table.columns, f"no column {col}"
        for key, g in table.groupby(family, sort=False):
            np.testing.assert_allclose(g[col].to_numpy(float), _sm(g[p], method), rtol=1e-12,
                                       err_msg=f"{col} of family {key}")
        assert _differs(table[col], _sm(table[p], method)), f"{col}: the family does not matter on this table"


def _differs(got, other):
    """Some adjusted p-value differs by more than 1% (relative) from ``other``'s."""
    got, other = np.asarray(got, float), np.asarray(other, float)
    return bool((np.abs(got - other) > 0.01 * np.maximum(other, 1e-300)).any())


# --- ranking: selection rates per model, conditional logit per model × specification ------------
def _ranking_long(n_runs, model, bias, seed):
    """``n_runs`` rankings of the 8 groups in random order; the top pick favours W_M by
    ``bias`` (in log-odds) and, for every model, the first position shown by 0.5."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        demos = list(rng.permutation(DEMOS))
        u = np.array([bias * (d == "W_M") - 0.6 * bias * (d == "B_W") for d in demos]) + 0.5 * (np.arange(8) == 0)
        top = int(np.argmax(u + rng.gumbel(size=8)))
        order = [top] + [i for i in range(8) if i != top]
        rank = {j: k + 1 for k, j in enumerate(order)}
        for i, d in enumerate(demos):
            rows.append({"model": model, "job": "j", "run": f"{model}{r}", "position": i + 1,
                         "name": f"{d}_{rng.integers(6)}", "demo": d, "rank": rank[i], "found": True,
                         "resume": int(rng.integers(4))})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def ranking_report():
    from popresume.ranking.report import ranking_tables

    long = pd.concat([_ranking_long(300, "biased", 0.6, 1), _ranking_long(300, "fair", 0.2, 2)],
                     ignore_index=True)
    return ranking_tables(long, n_sim=20, c4=False)


def test_selection_rates_p_chance_and_p_vs_best_are_adjusted_per_model(ranking_report):
    sel = ranking_report["selection_rates"]
    assert set(sel["model"]) == {"biased", "fair"} and len(sel) == 16
    _assert_family(sel, "p_chance", "model")
    _assert_family(sel, "p_vs_best", "model")


def test_conditional_logit_p_group_is_adjusted_per_model_and_specification(ranking_report):
    cl = ranking_report["clogit"]
    assert set(cl["spec"]) == {"group + position + résumé", "group + résumé"}
    assert len(cl) == 2 * 2 * 7  # models × specifications × group terms
    _assert_family(cl, "p_group", ["model", "spec"])
    # neither per model alone (both specifications pooled) nor per specification alone
    for wrong in ("model", "spec"):
        pooled = np.concatenate([_sm(g["p_group"], "holm") for _, g in cl.groupby(wrong)])
        order = np.concatenate([g.index.to_numpy() for _, g in cl.groupby(wrong)])
        assert _differs(cl.loc[order, "p_group_holm"], pooled), wrong


# --- decisions: group effects per source ------------------------------------------------------
def _decisions_rows(source, model, gap, seed, n_names=6, n_cells=8):
    """A crossed design of ``source``: every name scored in every résumé × job cell; Black
    names score ``gap`` lower, women ``gap / 2`` lower."""
    rng = np.random.default_rng(seed)
    rows = []
    for race in ("White", "Black"):
        for sex in ("male", "female"):
            for k in range(n_names):
                name = f"{race[0]}{sex[0]}{k}"
                own = rng.normal(0, 1)
                for c in range(n_cells):
                    y = 50 + own - gap * (race == "Black") - gap / 2 * (sex == "female") + rng.normal(0, 2)
                    rows.append({"source": source, "model": model, "item": f"r{c % 4}", "job": f"job{c // 4}",
                                 "run": 0, "name": name, "race": race, "sex": sex, "outcome": y})
    return pd.DataFrame(rows)


def test_group_effects_holm_and_bh_are_taken_per_source():
    from popresume.decisions import analyses

    cols = list(analyses.COLUMNS)
    a = _decisions_rows("derbyshire", "m1", 3.0, 0).assign(signal="name")
    b = _decisions_rows("webster", "m2", 0.0, 1).assign(signal="name")
    df = pd.concat([a, b], ignore_index=True)
    for c in cols:
        if c not in df.columns:
            df[c] = np.nan if c != "signal" else "name"
    g = analyses.group_effects(df, jackknife=False)
    assert set(g["source"]) == {"derbyshire", "webster"}
    assert g["p"].notna().all()
    _assert_family(g, "p", "source")


# --- the leakage tables: Holm/BH within each judge -------------------------------------------
def _task3_replies(seed=0, n_bases=12):
    """Two judges scoring the same bases under every condition: judge "j1" marks groups down by
    several points, "j2" by a fraction of one, so their p-values differ."""
    from popresume.leakage.corpus import COMPARATOR, GROUPS

    rng = np.random.default_rng(seed)
    conditions = [COMPARATOR, *[g for g in GROUPS if g != COMPARATOR]]
    rows = []
    for judge, gap in (("j1", 4.0), ("j2", 0.6)):
        for b in range(n_bases):
            base = rng.normal(60, 5)
            for k, c in enumerate(conditions):
                score = base - gap * k / len(conditions) + rng.normal(0, 2)
                rows.append({"judge": judge, "base_id": f"b{b}", "condition": c, "tier": "T1",
                             "shortlist": float(score > 60), "score": float(np.clip(score, 0, 100)),
                             "parse_ok": True})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("fn", ["score_differences", "shortlist_ratios"])
def test_leakage_tables_correct_within_each_judge(fn):
    from popresume.leakage import metrics

    out = getattr(metrics, fn)(_task3_replies(), n_boot=300, seed=1)
    ok = out[out["p_value"].notna()]
    assert set(ok["judge"]) == {"j1", "j2"} and len(ok) >= 6
    _assert_family(ok, "p_value", "judge", prefix="p")


# --- the audit grid: the three families of audit.metrics.adjust --------------------------------
def test_audit_adjust_families_all_attribute_and_audit():
    from popresume.audit import metrics as M

    rng = np.random.default_rng(3)
    n = 4
    tests = pd.DataFrame({"row": np.repeat(np.arange(n), 5), "effect": list(PSE_NAMES_) * n,
                          "attribute": np.repeat(["gender", "gender", "race", "race"], 5),
                          "p": np.concatenate([rng.uniform(0, 0.02, 5), rng.uniform(0, 0.5, 5),
                                               rng.uniform(0, 0.05, 5), rng.uniform(0.2, 1, 5)]),
                          "ci_excludes_0": True})
    whole = M.adjust(tests, family="all")
    for suffix, method in (("holm", "holm"), ("bh", "fdr_bh")):
        np.testing.assert_allclose(whole[f"p_{suffix}"], _sm(tests["p"], method))
    _assert_family(M.adjust(tests, family="attribute"), "p", "attribute")
    _assert_family(M.adjust(tests, family="audit"), "p", "row")


PSE_NAMES_ = ("TE", "NDE", "NIE", "BIE", "RIE")


def test_task2_selection_rate_ratios_correct_within_each_judge():
    from popresume.leakage import metrics
    from popresume.leakage.corpus import COMPARATOR, GROUPS

    rng = np.random.default_rng(5)
    conditions = [COMPARATOR, *[g for g in GROUPS if g != COMPARATOR]]
    rows = []
    for judge, drop in (("j1", 0.5), ("j2", 0.1)):
        for b in range(30):
            for k, c in enumerate(conditions):
                chosen = rng.random() < 0.8 - drop * k / len(conditions)
                order = "marked_first" if b % 2 else "baseline_first"
                marked = "A" if order == "marked_first" else "B"
                rows.append({"judge": judge, "base_id": f"b{b}", "condition": c, "tier": "T1", "regime": "Neutral",
                             "order": order, "preferred": marked if chosen else ("B" if marked == "A" else "A"),
                             "parse_ok": True})
    out = metrics.selection_rate_ratios(pd.DataFrame(rows), n_boot=300, seed=2)
    ok = out[out["p_value"].notna()]
    assert set(ok["judge"]) == {"j1", "j2"} and len(ok) >= 6
    _assert_family(ok, "p_value", "judge", prefix="p")
