"""``popresume.ranking.report`` checked directly, for the mutants ``scripts/mutation.py
ranking.report`` found alive (issue 38): each row's source label and validity verdict, and the defaults."""

import inspect

import numpy as np
import pandas as pd

from popresume.ranking import chance
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
    """``n_runs`` rankings of the 8 groups in a random order, one job."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        demos = list(rng.permutation(DEMOS))
        ranks = rng.permutation(8) + 1
        rows += [{"model": model, "job": "j", "run": f"{model}{r}", "position": i + 1, "name": f"{d}_{rng.integers(4)}",
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
