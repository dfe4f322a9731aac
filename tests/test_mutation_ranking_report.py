"""``popresume.ranking.report`` checked directly, for the mutants ``scripts/mutation.py
ranking.report`` found alive (issue 38): each row's source label."""

from popresume.ranking.report import source_of


def test_a_rows_source_is_its_models_label_else_bloombergs_replies():
    ours = {"embedding": "ours, screener embedding"}
    assert source_of("embedding", ours) == "ours, screener embedding"
    # a model the mapping does not name is one of Bloomberg's recorded runs
    assert source_of("GPT-3.5", ours) == "ours, from Bloomberg's recorded replies"
    assert source_of("GPT-3.5", {}) == "ours, from Bloomberg's recorded replies"
