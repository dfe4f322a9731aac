"""The numbers of ``popresume.decisions.analyses`` checked against values computed here, for
the mutants ``scripts/mutation.py decisions.analyses`` found alive (issue 38).

The group effect is the within-cell OLS slope of the outcome on the group indicator with a
name-clustered t interval; here it is recomputed from its formula with NumPy (the cell means
removed by hand, the sandwich summed by hand, SciPy's t quantile), on a design where leaving
out the cell fixed effects, flipping the indicator or using the wrong family would move it.
The drift difference is checked against statsmodels' OLS with explicit cell dummies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from popresume.decisions import analyses
from popresume.decisions.schema import COLUMNS


def _table(rows: pd.DataFrame) -> pd.DataFrame:
    for c in COLUMNS:
        if c not in rows.columns:
            rows[c] = "name" if c == "signal" else np.nan
    return rows


def _unbalanced(source="derbyshire", model="m", seed=0, races=("White", "Black"), n_names=5):
    """Names of each race and sex scored in résumé × job cells; Black names sit mostly in the
    cells with high outcomes (so dropping the cell fixed effects changes the estimate) and
    score 2 points lower than White names within a cell; women 1 point lower."""
    rng = np.random.default_rng(seed)
    rows = []
    for race in races:
        for sex in ("male", "female"):
            for k in range(n_names):
                name = f"{race}{sex}{k}"
                own = rng.normal(0, 0.7)
                for c in range(6):
                    if race == "Black" and c < 3 and rng.random() < 0.8:
                        continue  # Black names are seldom in the low cells 0-2
                    y = 40 + 10 * c + own - 2.0 * (race == "Black") - 1.0 * (sex == "female") + rng.normal(0, 1)
                    rows.append({"source": source, "model": model, "item": f"resume{c}", "job": f"job{c % 2}",
                                 "run": 0, "name": name, "race": race, "sex": sex, "outcome": y})
    return _table(pd.DataFrame(rows))


def _within_cluster_t(y, x, cells, clusters, level=0.95):
    """Slope of y on x after removing cell means, the clustered sandwich with the small-sample
    factor G/(G-1)·(N-1)/(N-K), K = 1 regressor, and a t on G - 1 df: estimate, ci_low, ci_high, p."""
    y = np.asarray(y, float).copy()
    x = np.asarray(x, float).copy()
    for c in np.unique(cells):
        k = cells == c
        y[k] -= y[k].mean()
        x[k] -= x[k].mean()
    b = (x @ y) / (x @ x)
    u = y - b * x
    groups = np.unique(clusters)
    meat = sum((x[clusters == g] @ u[clusters == g]) ** 2 for g in groups)
    n, G = len(y), len(groups)
    se = np.sqrt(G / (G - 1) * (n - 1) / (n - 1) * meat) / (x @ x)  # (N-1)/(N-K) = 1
    q = stats.t.ppf(0.5 + level / 2, G - 1)
    return b, b - q * se, b + q * se, 2 * stats.t.sf(abs(b / se), G - 1)


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_group_effect_is_the_within_cell_slope_with_a_name_clustered_t(level):
    df = _unbalanced()
    g = analyses.group_effects(df, jackknife=False, level=level)
    cells = (df["item"] + "|" + df["job"] + "|" + df["run"].astype(str)).to_numpy()
    for attribute, group, ref in (("race", "Black", "White"), ("sex", "female", "male")):
        row = g[(g["attribute"] == attribute) & (g["group"] == group)].iloc[0]
        assert row["reference"] == ref and row["n_names"] == 10  # the group's names: 5 of each other attribute
        d = df[attribute].isin([ref, group]).to_numpy()
        want = _within_cluster_t(df["outcome"][d], (df[attribute][d] == group).astype(float), cells[d],
                                 df["name"].to_numpy()[d], level=level)
        np.testing.assert_allclose(row[["estimate", "ci_low", "ci_high", "p"]].to_numpy(float), want, rtol=1e-9)
    black = g[g["group"] == "Black"].iloc[0]
    # the truth is -2; without the cell fixed effects the Black names' high cells would hide it
    assert -3 < black["estimate"] < -1
    assert df.groupby(df["race"] == "Black")["outcome"].mean().diff().iloc[-1] > 0


def _carried_by_one(black=(-2, -0.3, -0.1, -0.2, -0.3, -0.2), sign=1.0):
    """Six Black names, one 2 points lower and five about 0.2 lower, against eight White names;
    ``sign=-1`` mirrors every name's deviation (the same table with the effect above 0)."""
    rng = np.random.default_rng(0)
    people = [("White", f"W{k}", rng.normal(0, 0.3)) for k in range(8)]
    people += [("Black", f"B{k}", e) for k, e in enumerate(black)]
    rows = [{"source": "derbyshire", "model": "m", "item": f"resume{c}", "job": "j", "run": 0, "name": name,
             "race": race, "sex": "male", "outcome": 50 + c + sign * (e + rng.normal(0, 0.3))}
            for race, name, e in people for c in range(8)]
    return _table(pd.DataFrame(rows))


def test_an_effect_carried_by_one_name_is_flagged_by_default():
    """The interval excludes 0, and without one of the Black names it includes 0 (checked here
    with the formula above), so the default call flags it and names that name."""
    df = _carried_by_one()
    row = analyses.group_effects(df).iloc[0]
    assert row["n_names"] == 6 and row["carried_by_one_name"]
    dropped = row["note"].removeprefix("without ").removesuffix(" the interval includes 0")
    assert dropped.startswith("B")
    full = _within_cluster_t(df["outcome"], df["race"].eq("Black"), df["item"].to_numpy(), df["name"].to_numpy())
    assert full[2] < 0
    k = (df["name"] != dropped).to_numpy()
    without = _within_cluster_t(df["outcome"][k], df["race"][k].eq("Black"), df["item"].to_numpy()[k],
                                df["name"].to_numpy()[k])
    assert without[1] <= 0 <= without[2]
    assert not analyses.group_effects(df, jackknife=False).iloc[0]["carried_by_one_name"]


def test_a_positive_effect_is_checked_and_a_null_one_is_not():
    """The jackknife looks at an interval above 0 too, and never at one that includes 0."""
    up = analyses.group_effects(_carried_by_one(sign=-1.0)).iloc[0]
    assert 0 < up["ci_low"] < 1 and up["carried_by_one_name"]
    null = analyses.group_effects(_carried_by_one(black=(0.1, -0.1, 0.0, 0.05, -0.05, 0.0))).iloc[0]
    assert null["ci_low"] < 0 < null["ci_high"] < 1 and not null["carried_by_one_name"]


def test_group_effects_with_no_reference_group_return_the_empty_table():
    df = _unbalanced(races=("Black", "Asian"))
    df = df[df["sex"] == "female"]
    g = analyses.group_effects(df)
    assert g.empty and list(g.columns) == analyses.GROUP_COLUMNS + ["p_bh", "n", "n_names", "n_clusters", "note",
                                                                   "carried_by_one_name"]


def test_adjusted_p_values_are_float_columns():
    g = analyses.group_effects(_unbalanced(), jackknife=False)
    assert g["p_holm"].dtype == np.float64 and g["p_bh"].dtype == np.float64


def test_the_jackknife_uses_the_level_asked_for():
    """The Black names left out of résumés 0 and 1: at 95% dropping one name makes the interval
    include 0; at 90% (the level asked for, also in the jackknife) no name does."""
    df = _carried_by_one()
    df = df[~(df["name"].str.startswith("B") & df["item"].isin(["resume0", "resume1"]))]
    assert analyses.group_effects(df).iloc[0]["carried_by_one_name"]
    at90 = analyses.group_effects(df, level=0.9).iloc[0]
    assert at90["ci_high"] < 0 and not at90["carried_by_one_name"]
    # résumés 2 points apart instead of 1: within cells nothing changes, so neither does the
    # flag (a jackknife without the cell fixed effects would see the Black names' missing
    # low résumés and lose it)
    steeper = df.assign(outcome=df["outcome"] + df["item"].str[-1].astype(int))
    row = analyses.group_effects(steeper).iloc[0]
    assert row["carried_by_one_name"] and row["note"] == analyses.group_effects(df).iloc[0]["note"]


def test_the_jackknife_runs_for_groups_of_at_most_the_limit(monkeypatch):
    df = _carried_by_one()  # 6 names in the group
    monkeypatch.setattr(analyses, "JACKKNIFE_MAX_NAMES", 6)
    assert analyses.group_effects(df).iloc[0]["carried_by_one_name"]
    monkeypatch.setattr(analyses, "JACKKNIFE_MAX_NAMES", 5)
    assert not analyses.group_effects(df).iloc[0]["carried_by_one_name"]


def test_group_effects_skip_an_attribute_without_a_reference_but_not_the_next():
    df = _unbalanced(races=("Black", "Asian"))  # no reference race group in the table
    g = analyses.group_effects(df, jackknife=False)
    assert set(g["attribute"]) == {"sex"} and list(g["group"]) == ["female"]


def test_group_effects_list_models_in_sorted_order_and_name_them():
    df = pd.concat([_unbalanced(model="zeta", seed=1), _unbalanced(model="alpha", seed=2)], ignore_index=True)
    g = analyses.group_effects(df, jackknife=False)
    assert list(dict.fromkeys(g["model"])) == ["alpha", "zeta"]


def test_variant_effects_carry_their_source_and_model():
    rng = np.random.default_rng(4)
    rows = []
    for model in ("slot_a", "slot_b"):
        for job in range(6):
            for variant, signal, shift in (("base", "baseline", 0.0), ("Jamal", "firstName", -3.0)):
                for rep in range(3):
                    rows.append({"source": "recinq", "model": model, "job": f"j{job}", "variant": variant,
                                 "signal": signal, "outcome": 60 + job + shift + rng.normal(0, 1)})
    g = analyses.group_effects(_table(pd.DataFrame(rows)))
    assert list(g["model"]) == ["slot_a", "slot_b"] and set(g["group"]) == {"Jamal"}
    assert list(g["source"]) == ["recinq", "recinq"]
    assert (g["estimate"] < -2).all()


def test_drift_difference_matches_statsmodels_with_cell_model_dummies():
    """_interaction: the coefficient of term × later in outcome ~ term + term × later + cell × model
    dummies, as statsmodels' OLS with the dummies written out (point estimate)."""
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(5)
    rows = []
    for model, gap in (("early", -1.0), ("late", -4.0)):
        for k in range(12):
            g = float(k % 2)
            for c in range(5):
                rows.append({"model": model, "name": f"n{k}", "cell": f"c{c}", "g": g,
                             "outcome": 50 + 6 * c + gap * g + rng.normal(0, 1) + 3 * (model == "late")})
    d = pd.DataFrame(rows)
    d["later"] = (d["model"] == "late").astype(float)
    dd = d.assign(inter=d["g"] * d["later"], mc=d["cell"] + "|" + d["model"])
    got = analyses._interaction(dd, "g", "inter", "mc", "name", 0.95)
    fit = smf.ols("outcome ~ g + inter + C(mc)", data=dd).fit()
    assert got["estimate"] == pytest.approx(fit.params["inter"], rel=1e-9)
    assert got["estimate"] == pytest.approx(-3.0, abs=0.8)
    assert got["ci_low"] < got["estimate"] < got["ci_high"] and 0 < got["p"] < 0.05


def _quality_drift(weak_items=("i4", "i5"), seed=6):
    """Derbyshire-like quality contrast under two models: ``strong`` is constant within each
    résumé (the cluster), 4 strong résumés and the ``weak_items``, scored for 3 jobs."""
    rng = np.random.default_rng(seed)
    rows = []
    for model in ("early", "late"):
        for item in ("i0", "i1", "i2", "i3", *weak_items):
            strong = float(item not in weak_items)
            for job in range(3):
                rows.append({"model": model, "item": item, "job": f"j{job}", "strong": strong,
                             "outcome": 50 + 2 * job + 3 * strong + 2 * strong * (model == "late")
                             + rng.normal(0, 1)})
    d = pd.DataFrame(rows)
    d["later"] = (d["model"] == "late").astype(float)
    return d.assign(inter=d["strong"] * d["later"], mc=d["job"] + "|" + d["model"])


def test_interaction_p_and_the_arm_degrees_of_freedom():
    """The p-value is the interaction's (t on G - 1 = 5 df, from the interval's own SE); with
    ``arm_df`` and a term constant within résumés, the t has min(G1, G0) - 1 = min(4, 2) - 1 = 1 df."""
    dd = _quality_drift()
    base = analyses._interaction(dd, "strong", "inter", "mc", "item", 0.95)
    se = (base["ci_high"] - base["ci_low"]) / (2 * stats.t.ppf(0.975, 5))
    assert base["p"] == pytest.approx(2 * stats.t.sf(abs(base["estimate"]) / se, 5), rel=1e-9)
    arm = analyses._interaction(dd, "strong", "inter", "mc", "item", 0.95, arm_df=True)
    assert arm["estimate"] == base["estimate"]
    half = stats.t.ppf(0.975, 1) * se
    assert (arm["ci_low"], arm["ci_high"]) == pytest.approx((arm["estimate"] - half, arm["estimate"] + half),
                                                            rel=1e-9)
    assert arm["p"] == pytest.approx(2 * stats.t.sf(abs(arm["estimate"]) / se, 1), rel=1e-9)


def test_interaction_with_one_cluster_in_an_arm_has_no_interval():
    arm = analyses._interaction(_quality_drift(weak_items=("i4",)), "strong", "inter", "mc", "item", 0.95,
                                arm_df=True)
    assert np.isfinite(arm["estimate"])
    assert np.isnan(arm["ci_low"]) and np.isnan(arm["ci_high"]) and np.isnan(arm["p"])
    assert set(arm) == {"estimate", "ci_low", "ci_high", "p"}


@pytest.mark.parametrize("case", ["constant term", "constant within cells"])
def test_clustered_effect_without_variation_returns_every_field_as_missing(case):
    df = pd.DataFrame({"outcome": [1.0, 2.0, 3.0, 4.0], "t": [1.0, 1.0, 1.0, 1.0], "cell": ["a", "a", "b", "b"],
                       "name": ["n1", "n2", "n3", "n4"]})
    if case == "constant within cells":
        df["t"] = [0.0, 0.0, 1.0, 1.0]
    r = analyses.clustered_effect(df, "t", cells="cell", cluster="name")
    assert set(r) == {"estimate", "ci_low", "ci_high", "p", "se", "n", "n_clusters", "reason"}
    assert all(np.isnan(r[k]) for k in ("estimate", "ci_low", "ci_high", "p", "se"))
    assert (r["n"], r["n_clusters"]) == (4, 4)
    assert r["reason"] == ("no variation in t" if case == "constant term" else "no variation in t within cells")


def test_clustered_effect_needs_two_clusters_and_says_so_with_one():
    df = pd.DataFrame({"outcome": [1.0, 3.2, 1.1, 3.0, 2.0, 4.3], "t": [0.0, 1.0] * 3,
                       "cell": ["a", "a", "b", "b", "c", "c"], "name": ["n1"] * 3 + ["n2"] * 3})
    two = analyses.clustered_effect(df, "t", cells="cell", cluster="name")
    assert two["n_clusters"] == 2 and two["reason"] == "" and two["ci_low"] < two["estimate"] < two["ci_high"]
    cells = df["cell"].to_numpy()
    want = _within_cluster_t(df["outcome"], df["t"], cells, df["name"].to_numpy())
    np.testing.assert_allclose([two["estimate"], two["ci_low"], two["ci_high"], two["p"]], want, rtol=1e-9)
    one = analyses.clustered_effect(df.assign(name="n1"), "t", cells="cell", cluster="name")
    assert one["reason"] == "one name: no clustered interval" and np.isfinite(one["estimate"])
    assert np.isnan(one["ci_low"]) and np.isnan(one["p"])


@pytest.mark.parametrize("arm_df", [False, True])
def test_clustered_effect_with_no_residual_variation_has_no_interval(arm_df):
    # every reply in a cell the same score (a screener that reads only the job): the outcome minus
    # its cell mean is exactly 0.0, so the slope is 0.0 and each cluster's score is 0.0: the
    # clustered SE is exactly zero, and a zero-width interval would claim certainty
    df = pd.DataFrame({"outcome": [40.0, 40.0, 50.0, 50.0, 60.0, 60.0], "t": [0.0, 1.0] * 3,
                       "cell": ["a", "a", "b", "b", "c", "c"], "name": ["n1", "n2", "n3", "n4", "n5", "n6"]})
    r = analyses.clustered_effect(df, "t", cells="cell", cluster="name", arm_df=arm_df)
    assert r["reason"] == "no residual variation: no interval"
    assert r["estimate"] == 0.0 and (r["n"], r["n_clusters"]) == (6, 6)
    assert all(np.isnan(r[k]) for k in ("ci_low", "ci_high", "p", "se"))
    # the same design with one reply moved by 1: the SE is positive and the interval is the formula's
    df.loc[1, "outcome"] = 41.0
    r = analyses.clustered_effect(df, "t", cells="cell", cluster="name", arm_df=arm_df)
    assert r["reason"] == "" and r["se"] > 0
    b, lo, hi, p = _within_cluster_t(df["outcome"], df["t"], df["cell"].to_numpy(), df["name"].to_numpy())
    if arm_df:  # one reply per name: the term is constant in each cluster, 3 names an arm, 3 - 1 df
        half, dof = (hi - lo) / 2 / stats.t.ppf(0.975, 5), 2
        lo, hi = b - stats.t.ppf(0.975, dof) * half, b + stats.t.ppf(0.975, dof) * half
        p = 2 * stats.t.sf(abs(b) / half, dof)
    np.testing.assert_allclose([r["estimate"], r["ci_low"], r["ci_high"], r["p"]], [b, lo, hi, p], rtol=1e-9)


def _derbyshire_two_models(seed=8):
    """A small Derbyshire-like crossed design under models "a" and "b": résumés F1-F3, T1-T3
    (F2 and T2 the weak ones), postings jobF and jobT, eight names (4 White, 4 Black; sexes
    alternating). Model b widens the own-industry gap, the quality gap and the Black gap."""
    rng = np.random.default_rng(seed)
    names = [(f"n{k}", "White" if k < 4 else "Black", "male" if k % 2 == 0 else "female") for k in range(8)]
    own_eff = {n: rng.normal(0, 0.5) for n, _, _ in names}
    item_eff = {i: rng.normal(0, 1.0) for i in ("resumeF1", "resumeF2", "resumeF3", "resumeT1", "resumeT2", "resumeT3")}
    rows = []
    for model, later in (("a", 0.0), ("b", 1.0)):
        for item, ie in item_eff.items():
            for job in ("jobF", "jobT"):
                own, strong = float(job[3] == item[6]), float(item[7] != "2")
                for name, race, sex in names:
                    y = (50 + ie + own_eff[name] + (6 + 2 * later) * own + (3 + 2 * later) * strong * own
                         - (1 + 1.5 * later) * (race == "Black") - 0.5 * (sex == "female") + rng.normal(0, 1))
                    rows.append({"source": "derbyshire", "model": model, "item": item, "job": job, "run": 0,
                                 "name": name, "race": race, "sex": sex, "outcome": y})
    return _table(pd.DataFrame(rows))


def _interaction_by_hand(d, term, cells, cluster, level, dof=None):
    """The coefficient of term × later in outcome ~ term × later + term after removing the cell ×
    model means; the clustered sandwich with G/(G-1)·(N-1)/(N-2), a t on G - 1 df (or ``dof``)."""
    later = (d["model"] == "b").to_numpy(float)
    x = d[term].to_numpy(float)
    cols = np.column_stack([x * later, x, d["outcome"].to_numpy(float)])
    key = (d[cells].astype(str) + "/" + d["model"]).to_numpy()
    for k in np.unique(key):
        cols[key == k] -= cols[key == k].mean(axis=0)
    X, y = cols[:, :2], cols[:, 2]
    bread = np.linalg.inv(X.T @ X)
    b = bread @ X.T @ y
    u = y - X @ b
    cl = d[cluster].to_numpy()
    meat = sum(np.outer(X[cl == g].T @ u[cl == g], X[cl == g].T @ u[cl == g]) for g in np.unique(cl))
    n, G = len(y), len(np.unique(cl))
    se = np.sqrt((G / (G - 1) * (n - 1) / (n - 2) * bread @ meat @ bread)[0, 0])
    dof = G - 1 if dof is None else dof
    q = stats.t.ppf(0.5 + level / 2, dof)
    return b[0], b[0] - q * se, b[0] + q * se, 2 * stats.t.sf(abs(b[0]) / se, dof)


def test_drift_end_to_end_by_hand():
    import statsmodels.formula.api as smf

    level = 0.9  # not the default, so that a level dropped on the way shows
    df = _derbyshire_two_models()
    out = analyses.drift(df, level=level)
    assert list(out.columns) == ["contrast", "a", "a_ci", "b", "b_ci", "difference", "ci_low", "ci_high", "p",
                                 "cluster", "p_holm"]
    assert list(out["contrast"]) == ["job_fit", "quality", "race: Black − White", "sex: female − male"]
    assert list(out["cluster"]) == ["item", "item", "name", "name"]
    d = df.assign(own=(df["job"].str[3] == df["item"].str[6]).astype(float),
                  strong=(df["item"].str[7] != "2").astype(float), cell=df["item"] + "|" + df["job"],
                  black=(df["race"] == "Black").astype(float), female=(df["sex"] == "female").astype(float))
    # (data, term, cells, cluster, the t's df for one model and for the difference: None is G - 1)
    specs = [(d, "own", "item", "item", None), (d[d["own"] == 1], "strong", "job", "item", 1),
             (d, "black", "cell", "name", None), (d, "female", "cell", "name", None)]
    for row, (dd, term, cells, cluster, dof) in zip(out.itertuples(index=False), specs):
        for model, est, ci in (("a", row.a, row.a_ci), ("b", row.b, row.b_ci)):
            m = dd[dd["model"] == model]
            b, lo, hi, _ = _within_cluster_t(m["outcome"], m[term], m[cells].to_numpy(), m[cluster].to_numpy(), level)
            if dof is not None:  # the quality contrast: 4 strong résumés against 2 weak, 2 - 1 df
                half = (hi - lo) / 2 / stats.t.ppf(0.5 + level / 2, 5) * stats.t.ppf(0.5 + level / 2, dof)
                lo, hi = b - half, b + half
            np.testing.assert_allclose([est, *ci], [b, lo, hi], rtol=1e-9)
        want = _interaction_by_hand(dd, term, cells, cluster, level, dof)
        np.testing.assert_allclose([row.difference, row.ci_low, row.ci_high, row.p], want, rtol=1e-8)
        dummies = smf.ols(f"outcome ~ {term} + {term}:later + C(mc)",
                          data=dd.assign(later=(dd["model"] == "b").astype(float),
                                         mc=dd[cells].astype(str) + dd["model"])).fit()
        assert row.difference == pytest.approx(dummies.params[f"{term}:later"], rel=1e-9)
    assert out["difference"].iloc[0] == pytest.approx(2 + 2 * 4 / 6, abs=0.6)  # the planted widening of the own-industry gap
    levels = out.attrs["levels"]
    for model in ("a", "b"):
        y = df.loc[df["model"] == model, "outcome"].to_numpy()
        assert levels.loc[model].tolist() == pytest.approx([y.mean(), y.std(ddof=1), y.size], rel=1e-12)


def test_drift_names_the_sources_and_models_it_was_given():
    df = _derbyshire_two_models()
    with pytest.raises(ValueError, match=r"^drift needs two models of the derbyshire source, got \['a'\]$"):
        analyses.drift(df, models=("a",))
    with pytest.raises(ValueError, match=r"^drift needs the rows of one source with a crossed design, got \[\]$"):
        analyses.drift(df.assign(source="webster"))


def test_competence_reads_every_source_with_a_keyword_job(monkeypatch):
    import dataclasses

    from popresume.decisions import sources

    # a second record like Webster's (an auditor's own, say): both sources' rows are kept
    monkeypatch.setitem(sources.RECORDS, "webster2", dataclasses.replace(sources.RECORDS["webster"], name="webster2"))
    monkeypatch.setattr(analyses, "_contrast", lambda source, m, contrast, level: {
        "estimate": 1.0, "ci_low": 0.0, "ci_high": 2.0, "n": 10, "p": 0.01 if source == "webster" else 0.2})
    rng = np.random.default_rng(1)
    rows = [{"source": source, "model": f"{source}-m", "signal": "keyword", "job": "Finance", "variant": v,
             "outcome": 5 + (v == "keyword_stuffed") + rng.normal()}
            for source in ("webster", "webster2") for _ in range(10) for v in ("plain", "keyword_stuffed")]
    out = analyses.competence(pd.DataFrame(rows))
    assert list(out.columns) == ["model", "contrast", "estimate", "ci_low", "ci_high", "n", "p", "p_holm"]
    assert list(out["model"]) == ["webster-m"] * 2 + ["webster2-m"] * 2
    fit = out[out["contrast"] == "matched − mismatched"]
    np.testing.assert_allclose(fit["p_holm"], [0.02, 0.2])  # Holm over the two settings: 2 × 0.01, max(0.02, 0.2)


def test_clustered_effect_with_one_cluster_in_an_arm_returns_missing_floats():
    # one name carries t = 1 and four names t = 0: min(1, 4) - 1 = 0 df, no interval
    df = pd.DataFrame({"outcome": [1.0, 2.5, 1.2, 0.9, 1.4, 3.1, 1.1, 0.8, 1.3, 1.0],
                       "t": [1.0, 0.0, 0.0, 0.0, 0.0] * 2, "cell": ["a"] * 5 + ["b"] * 5,
                       "name": ["n1", "n2", "n3", "n4", "n5"] * 2})
    r = analyses.clustered_effect(df, "t", cells="cell", cluster="name", arm_df=True)
    assert r["reason"] == "one name in an arm of t: no clustered interval"
    assert all(isinstance(r[k], float) and np.isnan(r[k]) for k in ("ci_low", "ci_high", "p"))
    y = df["outcome"].to_numpy()
    assert r["estimate"] == pytest.approx(np.mean(y[[0, 5]]) - np.mean(np.delete(y, [0, 5])))
