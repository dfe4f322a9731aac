"""The audit chapters' summaries (popresume.audit.summaries) on small hand-built and published tables."""

import numpy as np
import pandas as pd
import pytest

from popresume.audit import summaries as S
from popresume.audit import variants as V
from popresume.schema import PSE_NAMES


def _row(attribute="gender", occupation="Nurses", fmt="image", model="m", **effects):
    """One audit; effects given as E=(estimate, lo, hi), the rest are 0 [-1, 1]."""
    row = {"attribute": attribute, "occupation": occupation, "format": fmt, "model": model}
    for e in PSE_NAMES:
        est, lo, hi = effects.get(e, (0.0, -1.0, 1.0))
        row.update({f"{e}_estimate": est, f"{e}_ci_low": lo, f"{e}_ci_high": hi})
    return row


def test_photo_shift_counts_pairs_and_significance():
    t = pd.DataFrame([
        _row(model="a", fmt="image", NDE=(0.5, -0.1, 1.1)),
        _row(model="a", fmt="image+photo", NDE=(2.0, 1.0, 3.0)),      # larger, significant only with photo
        _row(model="b", fmt="image", NDE=(-3.0, -4.0, -2.0)),
        _row(model="b", fmt="image+photo", NDE=(1.0, 0.5, 1.5)),      # smaller |NDE|, significant in both
        _row(model="c", fmt="image", NDE=(0.1, -1.0, 1.2)),           # no photo partner: not a pair
        _row(model="d", fmt="text", NDE=(9.0, 8.0, 10.0)),
    ])
    s = S.photo_shift(t)
    assert s.to_dict() == {"pairs": 2, "|NDE| larger with photo": 1, "NDE significant only with photo": 1}


def test_photo_shift_refuses_duplicate_rows():
    t = pd.DataFrame([_row(fmt="image"), _row(fmt="image"), _row(fmt="image+photo")])
    with pytest.raises(ValueError, match="two image rows"):
        S.photo_shift(t)


def test_photo_shift_on_published_table(published):
    # 20 gender VLM pairs (§5.3 calls 8 of them a "noticeable" increase, with no threshold given)
    g = published[published["attribute"] == "gender"]
    s = S.photo_shift(g)
    assert s["pairs"] == 20
    m = g[g["format"] == "image"].merge(g[g["format"] == "image+photo"], on=["occupation", "model"])
    assert s["|NDE| larger with photo"] == int((m["NDE_estimate_y"].abs() > m["NDE_estimate_x"].abs()).sum())
    assert 8 <= s["|NDE| larger with photo"] < 20


def test_effect_survival_on_published(published):
    t = S.effect_survival(published)
    assert list(t.index) == list(PSE_NAMES)
    assert int(t["significant (CI excludes 0)"].sum()) == 405  # the paper's significant effects
    assert (t["survive Holm"] <= t["survive BH"]).all()
    assert (t["survive BH"] <= t["significant (CI excludes 0)"]).all()


def test_recount_labels_paper_rule_reproduces_printed_labels(published):
    from popresume.causal.cases import normalize_label

    lab = S.recount_labels(published, rule="paper")
    assert list(lab.columns[-3:]) == ["cases_none", "cases_holm", "cases_bh"]
    assert (lab["cases_none"] == published["paper_cases"].map(normalize_label)).all()
    # a correction can only remove significance, but C2 (needs TE ≃ 0) can appear
    assert (lab["cases_holm"] != lab["cases_none"]).sum() >= (lab["cases_bh"] != lab["cases_none"]).sum()


def test_recount_summary_counts_c1_over_audits_without_photo(published):
    t = S.recount_summary(published, labels_column="paper_cases")
    printed = t["printed"]
    assert printed["audits"] == 120 and printed["audits without photo"] == 80
    assert printed["C1 (no photo)"] == 49 and printed["C5"] == 53  # §5.2's counts
    assert (t["printed"] == t[S.METHOD_LABELS["none"]]).all()
    assert (t[S.METHOD_LABELS["holm"]].loc["C1 (no photo)"] < 49)


def test_masking_summary():
    t = pd.DataFrame([
        _row(TE=(0.1, -0.5, 0.7), NDE=(2.0, 1.0, 3.0), NIE=(-1.9, -2.9, -0.9)),   # Case 2, masked
        _row(TE=(0.1, -0.5, 0.7), BIE=(1.0, 0.2, 1.8)),                           # masked, not Case 2
        _row(TE=(3.0, 2.0, 4.0), NDE=(3.0, 2.0, 4.0)),                            # TE flags it
        _row(),                                                                    # nothing
    ])
    s = S.masking_summary(t)
    assert s.tolist() == [4, 3, 2, 1]


def test_four_fifths_disagreements_both_standards():
    results = pd.DataFrame([
        _row(model="a", NDE=(2.0, 0.05, 3.95)),        # p ≈ 0.045: significant uncorrected, not after Holm
        _row(model="b", NDE=(9.0, 8.0, 10.0)),          # p ≈ 0: significant under both
        _row(model="c", BIE=(3.0, 2.0, 4.0)),
    ])
    outcome = pd.DataFrame({"attribute": "gender", "occupation": "Nurses", "format": "image",
                            "model": ["a", "b", "c"], "four_fifths_ratio": [0.9, 0.95, 0.7],
                            "ll144_impact_ratio": [0.9, 0.9, 0.8], "four_fifths_flag": [False, False, True]})
    d = S.four_fifths_disagreements(outcome, results)
    none, holm = "disagreement (uncorrected (CI excludes 0))", "disagreement (Holm)"
    assert d.set_index("model")[none].to_dict() == {"a": "missed: direct", "b": "missed: direct",
                                                    "c": "flagged: business necessity only"}
    assert d.set_index("model")[holm].to_dict() == {"a": "", "b": "missed: direct",
                                                    "c": "flagged: business necessity only"}
    c = S.disagreement_counts(d)
    assert c.loc["missed: direct"].tolist() == [2, 1]
    assert c.loc["any disagreement"].tolist() == [3, 2]


def test_overlap_columns_come_from_the_table_columns_never_from_warning_text():
    t = pd.DataFrame({"min_ess": [12.0], "clipped_share": [0.2], "estimation_warnings": ["nonsense"]})
    assert S.overlap_columns(t).iloc[0].tolist() == [12.0, 0.2]
    assert S.overlap_columns(pd.DataFrame({"x": [1]})).isna().all().all()
    # a table with only the warning text gets NaN: the text is for people, not parsed
    w = pd.DataFrame({"estimation_warnings": ["weak overlap: 14910 of 17632 propensities of p(x1|R,Z) were clipped "
                                              "to [0.01, 0.99]; min effective sample size 48."]})
    assert S.overlap_columns(w).isna().all().all()


def test_effects_view_keeps_keys_first_and_labels_the_source():
    t = pd.DataFrame([_row(NDE=(1.234, 0.5, 2.0))])
    t["estimation_warnings"] = ""
    v = S.effects_view(t, source="ours", effects=["NDE", "RIE"])
    assert list(v.columns) == ["attribute", "occupation", "format", "model", "validity gate", "NDE", "RIE",
                               "min ESS", "clipped share"]
    assert v.columns.name == "ours"  # the source labels the header once, not every row
    assert v.loc[0, "NDE"] == "1.23 [0.50, 2.00]*"
    # a table of effects always carries a verdict: ours without a card, published, or the card's
    assert v.loc[0, "validity gate"] == "not carded (no card run)"
    p = S.effects_view(t, source="published", effects=["NDE"], overlap=False)
    assert p.loc[0, "validity gate"] == "not carded (published model)" and p.columns.name == "published"
    c = S.effects_view(t.assign(validity_verdict="fail"), source="ours, embedding screener", effects=["NDE"])
    assert c.loc[0, "validity gate"] == "fail" and c.columns.name == "ours, embedding screener"


def test_neutral_name_subset():
    d = pd.DataFrame({"fn_gender": ["female", "neutral", "male", "neutral"], "v": range(4)})
    assert V.neutral_name_subset(d)["v"].tolist() == [1, 3]
    with pytest.raises(ValueError, match="values present"):
        V.neutral_name_subset(d, keep=["other"])


def test_grid_config_applies_the_chapter_parameters():
    from popresume.audit.config import grid_config

    cfg = grid_config("default_audit.yaml", sizes=50, n_boot=10, seed=3, occupations=["nurse"])
    assert cfg.occupations == ("nurse",) and cfg.sizes == {"nurse": 50}
    assert (cfg.n_boot, cfg.seed) == (10, 3)
    full = grid_config("default_audit.yaml")
    assert len(full.occupations) == 5  # "all" keeps the file's occupations
    with pytest.raises(FileNotFoundError):
        grid_config("no_such_grid.yaml")


def test_estimate_variants_reports_rows_and_overlap():
    from popresume.causal import make_scm

    d = make_scm("basic", seed=0).sample(600, seed=1)
    roles = {"x": "x", "x0": "x0", "x1": "x1", "z": ["z"], "b": ["b"], "r": ["r"]}
    trimmed = d[d["z"] != "z0"].reset_index(drop=True)
    t = V.estimate_variants({"all": (d, roles, "everyone"), "trimmed": (trimmed, roles, "z ≠ z0")},
                            y="y", folds=3, n_boot=0, seed=0, tune=False, variance="influence")
    assert t["variant"].tolist() == ["all", "trimmed"]
    assert t["n"].tolist() == [600, len(trimmed)]
    assert ((t["min_ess"] > 0) & (t["min_ess"] <= t["n"])).all()
    assert t["clipped_share"].between(0, 1).all()
    assert (t["NIE_estimate"] - (t["BIE_estimate"] + t["RIE_estimate"])).abs().max() < 1e-9
    with pytest.raises(ValueError, match="must be \\(data, roles, estimand\\)"):
        V.estimate_variants({"bad": (d, roles)}, y="y")


def test_add_overlap_fills_our_rows_only(published):
    from popresume.audit.metrics import side_by_side

    ours = published[published["occupation"] == "Registered Nurses"].head(2).copy()
    ours["model"] = ["ours-a", "ours-b"]
    ours["min_ess"], ours["clipped_share"] = [40.0, 12.0], [0.1, 0.85]
    sbs = S.add_overlap(side_by_side(ours, published), ours)
    mine = sbs[sbs["source"] == "ours"]
    assert mine["min ESS"].tolist() == [40.0, 12.0] and mine["clipped share"].tolist() == [0.1, 0.85]
    assert sbs.loc[sbs["source"] == "published", "min ESS"].isna().all()


def test_grid_chapter_is_the_chapters_setup_in_one_call(monkeypatch):
    import popresume.audit.grid as G
    from popresume.audit.chapters import grid_chapter

    calls = []
    fake = pd.DataFrame({"attribute": ["gender"]})
    monkeypatch.setattr(G, "run_audit", lambda cfg, **k: calls.append(("run", cfg.sizes, k)) or G.AuditRun(fake, cfg))
    monkeypatch.setattr(G, "audit_data", lambda cfg: calls.append(("data", cfg.sizes)) or fake.assign(score=1.0))
    width = pd.get_option("display.width")
    g = grid_chapter("default_audit.yaml", sizes=50, n_boot=10, seed=3, occupations="nurse", data=True)
    assert pd.get_option("display.width") == width  # display options are the chapter's (book.chapter_setup)
    assert g.config.sizes == {"nurse": 50} and g.config.n_boot == 10
    assert g.results is fake and list(g.data.columns) == ["attribute", "score"]
    assert calls == [("run", {"nurse": 50}, {"n_jobs": 2, "progress": False}), ("data", {"nurse": 50})]
    calls.clear()
    g = grid_chapter("default_audit.yaml", sizes=50, occupations="nurse", results=False)
    assert g.results is None and g.data is None and calls == []
