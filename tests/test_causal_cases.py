"""Cases C1-C5 of PopResume §5.2: the 120 published labels, and the stated definitions."""

import pandas as pd
import pytest

from popresume.causal import case_counts, classify_cases, significant
from popresume.causal.cases import normalize_label


def test_paper_rule_reproduces_all_120_labels(published):
    assert len(published) == 120
    got = classify_cases(published, rule="paper")
    want = published["paper_cases"].map(normalize_label)
    bad = published.loc[got != want, ["attribute", "occupation", "format", "model", "paper_cases"]]
    assert bad.empty, bad.assign(got=got[got != want])
    # the published form: no spaces, "-" for none
    assert got.str.match(r"^(-|C[1-5](,C[1-5])*)$").all()


def test_stated_rule_differs_exactly_where_documented(published):
    got = classify_cases(published, rule="stated")
    want = published["paper_cases"].map(normalize_label)
    diff = published[got != want]
    assert len(diff) == 5
    # four rows gain C3 (NIE not significant), one loses C1 (NDE lower bound printed 0.000)
    assert (got[got != want].str.contains("C3")).sum() == 4
    assert set(diff["model"]) >= {"Qwen2.5-vl-7b-instruct"}


def test_paper_counts(published):
    lab = classify_cases(published, rule="paper")
    c = case_counts(lab, published["format"])
    assert (c["C1"], c["C1_denominator"], c["C2"], c["C3"], c["C4"], c["C5"]) == (49, 80, 6, 6, 6, 53)


def test_signed_zero_reading():
    assert significant([0.0], [0.125], signed_zero=True)[0]
    assert not significant([0.0], [0.125])[0]
    assert significant([-0.169], [-0.0], signed_zero=True)[0]
    assert not significant([-0.261], [0.0], signed_zero=True)[0]
    assert not significant([0.0], [0.0], signed_zero=True)[0]


def test_each_case_definition():
    def row(**kw):
        base = {e: (0.0, -1.0, 1.0) for e in ["TE", "NDE", "NIE", "BIE", "RIE"]}
        base.update(kw)
        return {f"{e}_{k}": v for e, t in base.items() for k, v in zip(("estimate", "ci_low", "ci_high"), t)}

    sig_pos, sig_neg = (1.0, 0.5, 1.5), (-1.0, -1.5, -0.5)
    t = pd.DataFrame([
        row(),  # nothing
        row(NDE=sig_pos),  # C1
        row(NDE=sig_pos, NIE=sig_neg),  # C1, C2 (TE ≃ 0, opposite signs)
        row(NDE=sig_pos, NIE=sig_pos),  # C1 only (same sign)
        row(BIE=sig_pos, NIE=sig_pos),  # C3
        row(BIE=sig_pos),  # stated C3, not paper C3 (NIE ≃ 0)
        row(RIE=sig_neg, NIE=sig_neg),  # C4
        row(BIE=sig_pos, RIE=sig_neg),  # C5
    ])
    assert list(classify_cases(t, "paper")) == ["-", "C1", "C1,C2", "C1", "C3", "-", "C4", "C5"]
    assert list(classify_cases(t, "stated")) == ["-", "C1", "C1,C2", "C1", "C3", "C3", "C4", "C5"]


def test_accepts_estimate_pse_table_and_rejects_bad():
    long = pd.DataFrame({"estimate": [1, 1, 0, 0, 0], "ci_low": [0.5, 0.5, -1, -1, -1], "ci_high": [2, 2, 1, 1, 1]},
                        index=["TE", "NDE", "NIE", "BIE", "RIE"])
    assert classify_cases(long).iloc[0] == "C1"
    with pytest.raises(ValueError, match="needs columns"):
        classify_cases(pd.DataFrame({"TE_estimate": [1.0]}))
    with pytest.raises(ValueError, match="rule must be"):
        classify_cases(long, rule="mine")
    assert normalize_label("C1, C2") == "C1,C2" and normalize_label("") == "-"


# ---------------------------------------------------------------- the effects vocabulary
def test_long_and_wide_forms_round_trip(published):
    from popresume.causal import effect_columns, long_form, to_wide, wide_row

    row = published.iloc[[7]]
    long = long_form(row)
    assert list(long.index) == ["TE", "NDE", "NIE", "BIE", "RIE"]
    back = wide_row(long)
    assert list(back) == effect_columns()
    assert all(back[c] == pytest.approx(float(row[c].iloc[0])) for c in effect_columns())
    assert to_wide(long).iloc[0].to_dict() == back and to_wide(published) is published
    with pytest.raises(ValueError, match="one audit"):
        long_form(published.iloc[:2])
    with pytest.raises(ValueError, match="missing"):
        to_wide(pd.DataFrame({"TE_estimate": [1.0]}))


def test_significance_both_rules_on_printed_zero_bounds():
    from popresume.causal.effects import ci_significance as significance

    t = pd.DataFrame({**{f"{e}_{k}": [0.1, 0.1, 0.1] for e in ("TE", "NIE", "BIE", "RIE") for k in
                         ("estimate", "ci_low", "ci_high")},
                      "NDE_estimate": [0.06, -0.08, -0.1], "NDE_ci_low": [0.0, -0.169, -0.261],
                      "NDE_ci_high": [0.125, -0.0, 0.0]})
    plain, signed = significance(t), significance(t, signed_zero=True)
    assert list(plain["NDE"]) == [False, False, False]
    assert list(signed["NDE"]) == [True, True, False]  # +0.0 lower, -0.0 upper count; +0.0 upper does not
    assert plain["TE"].all() and list(plain.columns) == ["TE", "NDE", "NIE", "BIE", "RIE"]


def test_capture_pse_warnings_keeps_ours_and_passes_others_on():
    import warnings

    from popresume.causal import PSEWarning, capture_pse_warnings, joined

    with pytest.warns(RuntimeWarning, match="not ours"):
        with capture_pse_warnings() as caught:
            warnings.warn("weak overlap: b", PSEWarning)
            warnings.warn("weak overlap: a", PSEWarning)
            warnings.warn("weak overlap: a", PSEWarning)
            warnings.warn("not ours", RuntimeWarning)
    assert joined(caught) == "weak overlap: a | weak overlap: b"


def test_case_counts_one_meaning():
    from popresume.audit import metrics as M

    labels = pd.Series(["C1", "C1,C5", "-", "C1", "C3"])
    fmts = pd.Series(["text", "image+photo", "text", "image", "text"])
    c = case_counts(labels, fmts)
    assert c.to_dict() == {"C1": 2, "C2": 0, "C3": 1, "C4": 0, "C5": 1, "none": 1, "C1_denominator": 4, "n": 5}
    assert case_counts(labels)["C1"] == 3 and M.case_counts is case_counts
