"""``popresume.ranking.report`` checked directly, for the mutants ``scripts/mutation.py
ranking.report`` found alive (issue 38): each row's source label and validity verdict, and the defaults."""

import inspect

import numpy as np
import pandas as pd

from popresume.ranking import chance, clogit, names, parse, position, rates
from popresume.ranking.bloomberg import DEMOS
from popresume.ranking.report import CHANCE_COLUMNS, ranking_tables, source_of
from popresume.schema import NOT_CARDED_RECORDED, VERDICT_COLUMN


def test_a_rows_source_is_its_models_label_else_bloombergs_replies():
    ours = {"embedding": "ours, screener embedding"}
    assert source_of("embedding", ours) == "ours, screener embedding"
    # a model the mapping does not name is one of Bloomberg's recorded runs
    assert source_of("GPT-3.5", ours) == "ours, from Bloomberg's recorded replies"
    assert source_of("GPT-3.5", {}) == "ours, from Bloomberg's recorded replies"


def _runs(model, n_runs, seed, **extra):
    """``n_runs`` rankings of the 8 groups in a random order, one job; names are "FIRST LAST" (C4 reads them)."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        demos = list(rng.permutation(DEMOS))
        ranks = rng.permutation(8) + 1
        rows += [{"model": model, "job": "j", "run": f"{model}{r}", "position": i + 1, "name": f"{d} Smith{rng.integers(4)}",
                  "demo": d, "rank": int(ranks[i]), "found": True, "resume": float(rng.integers(3)), **extra}
                 for i, d in enumerate(demos)]
    return pd.DataFrame(rows)


def test_each_table_carries_the_models_source_and_validity_verdict():
    # our screener passed the gate and has no résumé template column values (NaN): its verdict still shows;
    # Bloomberg's recorded model has no card
    long = pd.concat([_runs("GPT-3.5", 30, 1), _runs("embedding", 30, 2, validity="pass").assign(resume=np.nan)],
                     ignore_index=True)
    out = ranking_tables(long, sources={"embedding": "ours, screener embedding"}, n_sim=20, seed=5,
                         clogit_fit=False, c4=False)
    # the chance tables at the draws and seed given; the null by number of runs on the grid of
    # 100 to 10,000 runs and the runs each model has (30), for rankings of k = 8 groups
    pd.testing.assert_frame_equal(out["chance"][CHANCE_COLUMNS], chance.chance_table(long, n_sim=20, seed=5)[CHANCE_COLUMNS])
    pd.testing.assert_frame_equal(out["chance_by_runs"], chance.null_quantiles(
        [30, 100, 250, 500, 1000, 2000, 5000, 10_000], 8, n_sim=20, seed=5))
    assert {"selection_rates", "min_max", "chance", "chance_by_runs"} <= set(out)
    for name in ("selection_rates", "min_max", "chance", "first_position", "ranks", "name_rates"):
        t = out[name].drop_duplicates("model").set_index("model")
        assert t.loc["embedding", VERDICT_COLUMN] == "pass", name
        assert t.loc["GPT-3.5", VERDICT_COLUMN] == NOT_CARDED_RECORDED, name
        assert t.loc["embedding", "source"] == "ours, screener embedding", name
        assert t.loc["GPT-3.5", "source"] == "ours, from Bloomberg's recorded replies", name


def test_the_defaults_are_the_papers_settings():
    # 10,000 null draws from seed 0, the C4 name check and the conditional logit on
    params = inspect.signature(ranking_tables).parameters
    assert {k: params[k].default for k in ("n_sim", "seed", "clogit_fit", "c4")} == {
        "n_sim": 10_000, "seed": 0, "clogit_fit": True, "c4": True}


def test_a_call_at_the_defaults_draws_10000_nulls_from_seed_0_checks_c4_and_fits_the_logit(monkeypatch):
    # the signature test above reads the public wrapper's defaults; this one calls with none given and
    # records what the steps receive (each step then runs for real, with few draws so the test is quick)
    seen = {}
    real = {"chance_table": chance.chance_table, "null_quantiles": chance.null_quantiles,
            "name_concentration": names.name_concentration, "c4_check": names.c4_check,
            "conditional_logit": clogit.conditional_logit}

    def chance_table(long, n_sim, seed):
        seen["chance_table"] = (n_sim, seed)
        return real["chance_table"](long, n_sim=20, seed=seed)

    def null_quantiles(n_runs, k, n_sim, seed):
        seen["null_quantiles"] = (n_sim, seed)
        return real["null_quantiles"](n_runs, k, n_sim=20, seed=seed)

    def name_concentration(nr, seed):
        seen["name_concentration"] = seed
        return real["name_concentration"](nr, seed=seed)

    def c4_check(*a, **k):
        seen["c4_check"] = True
        return real["c4_check"](*a, **k)

    def conditional_logit(*a, **k):
        seen.setdefault("conditional_logit", []).append(k["position"])
        return real["conditional_logit"](*a, **k)

    monkeypatch.setattr(chance, "chance_table", chance_table)
    monkeypatch.setattr(chance, "null_quantiles", null_quantiles)
    monkeypatch.setattr(names, "name_concentration", name_concentration)
    monkeypatch.setattr(names, "c4_check", c4_check)
    monkeypatch.setattr(clogit, "conditional_logit", conditional_logit)
    long = _runs("GPT-3.5", 40, 3)
    out = ranking_tables(long)
    assert seen == {"chance_table": (10_000, 0), "null_quantiles": (4000, 0), "name_concentration": 0,
                    "c4_check": True, "conditional_logit": [True, False]}
    assert {"c4_check", "c4_summary", "clogit"} <= set(out)


def test_every_table_is_its_function_on_the_rows_it_names():
    # Bloomberg's recorded model (with résumé templates) beside our screener (none): each table is
    # the ranking function it names, on Bloomberg's rows only where the table is about their replies
    # (the parse rules, the missing replies, the logit), with its index and row order as built
    ours = {"embedding": "ours, screener embedding"}
    gpt = pd.concat([_runs("GPT-3.5", 40, 1), _runs("GPT-4", 40, 4)], ignore_index=True)
    # a reply that leaves out a name: the ranked-last one of every third run, so the parse rules differ
    left_out = (gpt["rank"] == 8) & (gpt["run"].str[-1].isin(["0", "3", "6", "9"]))
    gpt["found"] = ~left_out
    long = pd.concat([gpt, _runs("embedding", 30, 2).assign(resume=np.nan)], ignore_index=True)
    out = ranking_tables(long, sources=ours, n_sim=20, seed=7)

    def bare(t):
        return t.drop(columns=["source", VERDICT_COLUMN])

    assert set(out) == {"selection_rates", "published_reproduced", "min_max", "chance", "chance_by_runs", "position",
                        "first_position", "top_resume", "ranks", "ranks_by_rule", "parse_missing", "rates_by_rule",
                        "min_max_by_rule", "name_rates", "name_concentration", "c4_check", "c4_summary", "clogit"}
    eq = pd.testing.assert_frame_equal
    eq(bare(out["top_resume"]), position.top_template_share(long[long["resume"].notna()]))
    eq(out["ranks_by_rule"], pd.concat([rates.rank_summary(parse.apply_rule(gpt, r)).assign(rule=r)
                                        for r in parse.RULES], ignore_index=True))
    eq(out["parse_missing"], parse.missing_counts(gpt))
    by_rule = rates.rates_by_rule(gpt)
    eq(out["rates_by_rule"], by_rule)
    # one block per rule, in the order of parse.RULES (not sorted), each keeping min_max_ratios' index
    blocks = [rates.min_max_ratios(by_rule[by_rule["rule"] == r]).assign(rule=r) for r in by_rule["rule"].unique()]
    eq(out["min_max_by_rule"], pd.concat(blocks))
    eq(bare(out["name_concentration"]), names.name_concentration(names.name_rates(long), seed=7))
    cl = pd.concat([clogit.conditional_logit(gpt, position=True, resume=True),
                    clogit.conditional_logit(gpt, position=False, resume=True)], ignore_index=True)
    cl = rates.adjust_pvalues(cl[cl["term"].str.startswith("demo_")].rename(columns={"p": "p_group"}), "p_group",
                              family=["model", "spec"])
    eq(bare(out["clogit"]), cl)
    # a run folder without the résumé-template column: no top_resume table, and the logit has no résumé term
    out2 = ranking_tables(gpt.drop(columns="resume"), n_sim=20, seed=7, c4=False)
    assert "top_resume" not in out2
    eq(out2["clogit"].drop(columns=["source", VERDICT_COLUMN]), rates.adjust_pvalues(
        pd.concat([clogit.conditional_logit(gpt.drop(columns="resume"), position=p, resume=False) for p in (True, False)],
                  ignore_index=True).pipe(lambda c: c[c["term"].str.startswith("demo_")]).rename(columns={"p": "p_group"}),
        "p_group", family=["model", "spec"]))
