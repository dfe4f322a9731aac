"""The case rules of PopResume §5.2, the effects-table forms and the influence bootstrap,
checked against hand-built tables and closed forms.

Written to kill the mutants ``scripts/mutation.py causal.cases causal.effects`` found alive.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from popresume.causal import bootstrap, cases, effects

E = ("TE", "NDE", "NIE", "BIE", "RIE")
SIG_POS, SIG_NEG, NULL = (0.1, 0.05, 0.15), (-0.1, -0.15, -0.05), (0.01, -0.05, 0.07)


def _wide(**cis) -> pd.DataFrame:
    """One audit, wide form: each effect's (estimate, ci_low, ci_high), NULL unless given."""
    row = {}
    for e in E:
        est, lo, hi = cis.get(e, NULL)
        row.update({f"{e}_estimate": est, f"{e}_ci_low": lo, f"{e}_ci_high": hi})
    return pd.DataFrame([row])


@pytest.mark.parametrize("cis, stated, paper", [
    ({}, "-", "-"),
    ({"NDE": SIG_POS}, "C1", "C1"),
    ({"NDE": SIG_NEG, "TE": SIG_NEG}, "C1", "C1"),
    # C2: TE null, NDE and NIE significant with opposite signs
    ({"NDE": SIG_POS, "NIE": SIG_NEG}, "C1,C2", "C1,C2"),
    ({"NDE": SIG_NEG, "NIE": SIG_POS}, "C1,C2", "C1,C2"),
    ({"NDE": SIG_POS, "NIE": SIG_POS}, "C1", "C1"),  # same signs: no cancellation
    ({"NDE": SIG_POS, "NIE": SIG_NEG, "TE": SIG_POS}, "C1", "C1"),  # TE significant: not masked
    # C3: NDE null, RIE null, BIE significant; the paper also needs NIE significant
    ({"BIE": SIG_POS}, "C3", "-"),
    ({"BIE": SIG_POS, "NIE": SIG_POS}, "C3", "C3"),
    # C4: NDE null, BIE null, RIE significant; the paper also needs NIE significant
    ({"RIE": SIG_NEG}, "C4", "-"),
    ({"RIE": SIG_NEG, "NIE": SIG_NEG}, "C4", "C4"),
    # C5: BIE and RIE significant (whatever NDE does)
    ({"BIE": SIG_POS, "RIE": SIG_NEG}, "C5", "C5"),
    ({"BIE": SIG_POS, "RIE": SIG_POS, "NDE": SIG_POS}, "C1,C5", "C1,C5"),
    ({"BIE": SIG_POS, "NDE": SIG_POS}, "C1", "C1"),  # C3 needs NDE null
    ({"RIE": SIG_POS, "NDE": SIG_POS}, "C1", "C1"),  # C4 needs NDE null
])
def test_case_rules_truth_table(cis, stated, paper):
    t = _wide(**cis)
    assert cases.classify_cases(t, rule="stated").iloc[0] == stated
    assert cases.classify_cases(t, rule="paper").iloc[0] == paper
    assert cases.classify_cases(t).iloc[0] == stated  # the default is the rule as stated


def test_paper_rule_reads_the_sign_of_a_printed_zero():
    pos_zero = _wide(NDE=(0.06, 0.0, 0.125))
    neg_zero = _wide(NDE=(-0.06, -0.125, -0.0))
    wrong_zero = _wide(NDE=(0.06, -0.0, 0.125))
    assert cases.classify_cases(pos_zero, rule="paper").iloc[0] == "C1"
    assert cases.classify_cases(neg_zero, rule="paper").iloc[0] == "C1"
    assert cases.classify_cases(wrong_zero, rule="paper").iloc[0] == "-"
    # the stated rule reads "excludes 0" strictly: a bound at 0 does not exclude it
    assert cases.classify_cases(pos_zero, rule="stated").iloc[0] == "-"
    assert cases.classify_cases(neg_zero, rule="stated").iloc[0] == "-"


def test_significant_signed_zero_rules():
    lo = np.array([0.0, -0.0, 0.1, -0.2, 0.0, -0.0, -0.3])
    hi = np.array([0.2, 0.2, 0.3, -0.0, 0.0, -0.0, 0.3])
    np.testing.assert_array_equal(effects.significant(lo, hi),
                                  [False, False, True, False, False, False, False])
    np.testing.assert_array_equal(effects.significant(lo, hi, signed_zero=True),
                                  [True, False, True, True, False, False, False])
    assert effects.significant(-0.3, -0.1) and not effects.significant(-0.3, 0.1)


def test_case_flags_errors_and_unknown_rule():
    t = _wide()
    with pytest.raises(ValueError, match=r"^rule must be one of \('stated', 'paper'\), got 'mine'$"):
        cases.classify_cases(t, rule="mine")
    with pytest.raises(ValueError, match=r"^rule must be one of"):
        cases.flags_from_significance(pd.DataFrame({e: [True] for e in E}), [1.0], [1.0], rule="mine")
    bad = t.copy()
    bad.loc[0, "RIE_ci_high"] = np.nan
    with pytest.raises(ValueError, match=r"^classify_cases: missing effect values in row 0$"):
        cases.classify_cases(bad)
    with pytest.raises(ValueError, match=r"^classify_cases: an effects table needs columns"):
        cases.classify_cases(t.drop(columns="NIE_ci_low"))


def test_long_table_is_classified_like_its_wide_row():
    t = _wide(NDE=SIG_POS, NIE=SIG_NEG)
    long = effects.long_form(t)
    assert list(long.index) == list(E) and list(long.columns) == ["estimate", "ci_low", "ci_high"]
    assert long.loc["NIE", "ci_low"] == SIG_NEG[1]
    assert cases.classify_cases(long).iloc[0] == "C1,C2"


def test_flags_from_a_corrected_pattern():
    sig = pd.DataFrame({"TE": [False, False], "NDE": [True, True], "NIE": [True, True],
                        "BIE": [False, True], "RIE": [False, True]}, index=["a", "b"])
    f = cases.flags_from_significance(sig, nde=[0.2, 0.2], nie=[-0.1, 0.1])
    assert list(f.columns) == list(cases.CASES)
    assert f.loc["a"].tolist() == [True, True, False, False, False]
    assert f.loc["b"].tolist() == [True, False, False, False, True]
    assert cases.labels_from_flags(f).tolist() == ["C1,C2", "C1,C5"]
    assert cases.labels_from_flags(f).name == "cases"
    assert list(cases.labels_from_flags(f).index) == ["a", "b"]


@pytest.mark.parametrize("raw, norm", [
    ("C1, C2", "C1,C2"), ("C5,C1", "C1,C5"), ("", "-"), ("-", "-"), (None, "-"), (float("nan"), "-"),
    (" C3 ", "C3"), ("C2,C2", "C2"), ("-, C4", "C4"),
])
def test_normalize_label(raw, norm):
    assert cases.normalize_label(raw) == norm


def test_case_counts_by_hand():
    labels = pd.Series(["C1", "C1,C5", "-", "C3", "C1"])
    formats = pd.Series(["text", "image+photo", "image", "text", "image+photo"])
    c = cases.case_counts(labels, formats)
    # C1 only over the three audits without a photo: rows 0 (C1) and 2, 3 (no C1)
    assert c["C1"] == 1 and c["C1_denominator"] == 3
    assert c["C5"] == 1 and c["C3"] == 1 and c["C2"] == 0 and c["C4"] == 0
    assert c["none"] == 1 and c["n"] == 5
    assert list(c.index) == [*cases.CASES, "none", "C1_denominator", "n"]
    plain = cases.case_counts(labels)
    assert plain["C1"] == 3 and plain["C1_denominator"] == 5
    other = cases.case_counts(labels, formats, c1_exclude_formats=("text",))
    assert other["C1"] == 2 and other["C1_denominator"] == 3


# ---------------------------------------------------------------------------- effects forms
def test_wide_row_and_to_wide():
    long = pd.DataFrame({"estimate": [1.0, 2, 3, 4, 5], "ci_low": [0.0, 1, 2, 3, 4], "ci_high": [2.0, 3, 4, 5, 6]},
                        index=list(E))
    row = effects.wide_row(long)
    assert list(row) == effects.effect_columns()
    assert row["BIE_estimate"] == 4 and row["RIE_ci_high"] == 6 and row["TE_ci_low"] == 0
    with_se = effects.wide_row(long, stats=("estimate", "se"))
    assert np.isnan(with_se["NDE_se"]) and with_se["NDE_estimate"] == 2
    assert effects.to_wide(long).iloc[0].to_dict() == row
    wide = pd.DataFrame([row, row])
    assert effects.to_wide(wide) is wide
    with pytest.raises(ValueError, match=r"^effects table has no row 'RIE'"):
        effects.wide_row(long.drop(index="RIE"))
    with pytest.raises(ValueError, match=r"expected one audit \(one row of the wide table\), got 2 rows"):
        effects.long_form(wide)


def test_effect_columns_order():
    assert effects.effect_columns(("estimate",), ("TE", "NDE")) == ["TE_estimate", "NDE_estimate"]
    assert effects.effect_columns()[:4] == ["TE_estimate", "TE_ci_low", "TE_ci_high", "NDE_estimate"]
    assert len(effects.effect_columns()) == 15


def test_is_long():
    long = pd.DataFrame({s: np.zeros(5) for s in effects.CI_STATS}, index=list(E))
    assert effects.is_long(long)
    assert not effects.is_long(long.drop(index="TE"))
    assert not effects.is_long(long.drop(columns="ci_high"))


def test_ci_significance_table():
    t = pd.concat([_wide(NDE=SIG_POS), _wide(TE=SIG_NEG)], ignore_index=True)
    s = effects.ci_significance(t)
    assert s.loc[0].tolist() == [False, True, False, False, False]
    assert s.loc[1].tolist() == [True, False, False, False, False]
    only = effects.ci_significance(t, effects=("TE",))
    assert list(only.columns) == ["TE"]


def test_capture_pse_warnings_keeps_others():
    import warnings

    with warnings.catch_warnings(record=True) as outer:
        warnings.simplefilter("always")
        with effects.capture_pse_warnings() as msgs:
            warnings.warn("overlap poor", effects.PSEWarning)
            warnings.warn("overlap poor", effects.PSEWarning)
            warnings.warn("something else", RuntimeWarning)
    assert msgs == ["overlap poor", "overlap poor"]
    assert [str(w.message) for w in outer] == ["something else"]
    assert effects.joined(["b", "a", "b"]) == "a | b"
    assert effects.joined([]) == ""


# ---------------------------------------------------------------------------- influence bootstrap
def test_influence_bootstrap_variance_closed_form():
    # resampling rows of phi: each column mean's bootstrap variance is (1/n) * mean((phi - mean)^2)
    rng = np.random.default_rng(0)
    n = 60
    phi = np.column_stack([rng.normal(0, 1, n), rng.exponential(2.0, n)])
    draws = bootstrap.influence_bootstrap(phi, n_boot=8000, seed=1)
    assert draws.shape == (8000, 2)
    theory = np.sqrt(np.mean((phi - phi.mean(0)) ** 2, axis=0) / n)
    np.testing.assert_allclose(draws.std(axis=0), theory, rtol=0.05)
    # the draws centre on the sample means (Monte Carlo error theory / sqrt(8000); 5 of them allowed)
    assert (np.abs(draws.mean(axis=0) - phi.mean(0)) < 5 * theory / np.sqrt(8000)).all()


def test_influence_bootstrap_constant_columns_and_batches():
    phi = np.tile([[1.0, -2.0, 0.5]], (7, 1))
    d = bootstrap.influence_bootstrap(phi, n_boot=13, batch=5)
    np.testing.assert_allclose(d, np.tile([1.0, -2.0, 0.5], (13, 1)))
    # the batch size changes the grouping only, never the number or the validity of the draws
    x = np.arange(20.0)[:, None]
    for batch in (1, 7, 100):
        out = bootstrap.influence_bootstrap(x, n_boot=11, batch=batch, seed=3)
        assert out.shape == (11, 1)
        assert ((out >= 0) & (out <= 19)).all()
        assert len(np.unique(out)) > 1  # every batch, the last included, is filled with real draws


def test_influence_bootstrap_same_counts_across_repetitions():
    rng = np.random.default_rng(2)
    phi = rng.normal(size=(30, 2))
    stacked = np.stack([phi, 2 * phi + 1])  # repetition 2 is an affine map of repetition 1
    d = bootstrap.influence_bootstrap(stacked, n_boot=50, seed=4)
    assert d.shape == (50, 2, 2)
    np.testing.assert_allclose(d[:, 1], 2 * d[:, 0] + 1)  # same resampled rows in both
    single = bootstrap.influence_bootstrap(phi, n_boot=50, seed=4)
    np.testing.assert_allclose(single, d[:, 0])
    other_seed = bootstrap.influence_bootstrap(phi, n_boot=50, seed=5)
    assert not np.allclose(single, other_seed)


def test_influence_bootstrap_rejects_no_draws():
    with pytest.raises(ValueError, match=r"^n_boot must be positive, got 0$"):
        bootstrap.influence_bootstrap(np.ones((3, 1)), n_boot=0)


def test_cancellation_needs_opposite_signs_not_a_zero_nie():
    sig = pd.DataFrame({"TE": [False], "NDE": [True], "NIE": [True], "BIE": [False], "RIE": [False]})
    # NIE estimate exactly 0: NDE * NIE = 0 is not a cancellation
    assert not cases.flags_from_significance(sig, nde=[-0.2], nie=[0.0])["C2"].iloc[0]
    assert cases.flags_from_significance(sig, nde=[-0.2], nie=[0.1])["C2"].iloc[0]


def test_flags_need_every_effect_column():
    sig = pd.DataFrame({e: [True] for e in E}).drop(columns="RIE")
    with pytest.raises(ValueError, match=r"^significance table has no column 'RIE'; its columns: "):
        cases.flags_from_significance(sig, [1.0], [1.0])


def test_case_flags_default_rule_is_the_stated_one():
    t = _wide(BIE=SIG_POS)  # C3 as stated, not as the paper applied it (NIE null)
    assert cases.case_flags(t)["C3"].iloc[0]
    assert not cases.case_flags(t, rule="paper")["C3"].iloc[0]


def test_case_counts_keep_the_labels_index_and_name():
    labels = pd.Series(["C1", "-", "C1"], index=["x", "y", "z"])
    c = cases.case_counts(labels, formats=["text", "text", "image+photo"])
    assert c.name == "audits"
    assert c["C1"] == 1 and c["C1_denominator"] == 2


def test_influence_bootstrap_defaults_and_one_draw():
    phi = np.arange(12.0).reshape(6, 2)
    assert bootstrap.influence_bootstrap(phi).shape == (500, 2)  # the paper's 500 draws
    np.testing.assert_array_equal(bootstrap.influence_bootstrap(phi, 7), bootstrap.influence_bootstrap(phi, 7, seed=0))
    assert bootstrap.influence_bootstrap(phi, n_boot=1).shape == (1, 2)


def test_ci_significance_keeps_the_audits_index():
    t = pd.concat([_wide(NDE=SIG_POS), _wide()], ignore_index=True)
    t.index = ["p", "q"]
    s = effects.ci_significance(t)
    assert list(s.index) == ["p", "q"] and s.loc["p", "NDE"] and not s.loc["q", "NDE"]


def test_long_form_of_a_long_table_and_its_index_name():
    long = pd.DataFrame({"estimate": np.arange(6.0), "ci_low": np.arange(6.0) - 1, "ci_high": np.arange(6.0) + 1,
                         "se": 0.5}, index=["extra", *E])
    out = effects.long_form(long)
    assert list(out.index) == list(E) and list(out.columns) == ["estimate", "ci_low", "ci_high"]
    assert out.loc["TE", "estimate"] == 1.0
    assert effects.long_form(long, stats=("estimate", "se", "nope")).columns.tolist() == ["estimate", "se"]
    assert effects.long_form(_wide()).index.name == "effect"


def test_to_wide_names_the_missing_columns():
    full = _wide()
    with pytest.raises(ValueError, match=r"missing \['RIE_ci_high'\]$"):
        effects.to_wide(full.drop(columns="RIE_ci_high"))
    with pytest.raises(ValueError, match=r"missing \['TE_estimate', 'TE_ci_low', 'TE_ci_high', 'NDE_estimate', "
                                         r"'NDE_ci_low'\]\.\.\.$"):
        effects.to_wide(pd.DataFrame({"other": [1]}))
    five = full.drop(columns=[f"{e}_estimate" for e in E])  # exactly five missing: no "..."
    with pytest.raises(ValueError, match=r"'RIE_estimate'\]$"):
        effects.to_wide(five)


def test_to_wide_six_missing_columns_are_cut_with_dots():
    six = _wide().drop(columns=["TE_estimate", *[f"{e}_ci_high" for e in E]])
    with pytest.raises(ValueError, match=r"'NIE_ci_high', 'BIE_ci_high'\]\.\.\.$"):
        effects.to_wide(six)


def test_influence_bootstrap_draws_do_not_depend_on_the_batch_size():
    # each draw takes its n row indices from the generator in turn: grouping the draws in
    # batches of 1, 4 or 100 gives the same draws in the same order
    phi = np.random.default_rng(7).normal(size=(9, 2))
    one = bootstrap.influence_bootstrap(phi, n_boot=10, batch=1, seed=11)
    for batch in (4, 100):
        # (equal up to the rounding of a matrix product over a different number of rows)
        np.testing.assert_allclose(bootstrap.influence_bootstrap(phi, n_boot=10, batch=batch, seed=11), one,
                                   rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------- non-estimable effects
NOT_EST = (0.05, np.nan, np.nan)  # an estimate without an interval: the effect is not estimable


def test_a_label_never_rests_on_a_non_estimable_effect():
    rows = {
        "known": _wide(NDE=SIG_POS),                           # C1, everything known
        "nde_unknown": _wide(NDE=NOT_EST),                     # C1 itself unknown
        # TE unknown, but NDE negligible settles C2 (false); C3 holds: NDE, RIE null, BIE (and NIE) significant
        "te_settled": _wide(TE=NOT_EST, BIE=SIG_POS, NIE=SIG_POS),
        "rie_unknown": _wide(RIE=NOT_EST, BIE=SIG_POS, NIE=SIG_POS),  # C3 and C5 hinge on RIE
        # BIE unknown: C3, C4 false as NDE is significant, C5 false as RIE is negligible
        "bie_settled": _wide(BIE=NOT_EST, NDE=SIG_POS),
    }
    t = pd.concat(rows.values())
    t.index = list(rows)
    for rule in cases.RULES:
        labels = cases.classify_cases(t, rule=rule)
        assert list(labels.index) == list(rows) and labels.dtype == object
        assert labels["known"] == "C1" and labels["te_settled"] == "C3" and labels["bie_settled"] == "C1"
        assert labels["nde_unknown"] is None and labels["rie_unknown"] is None
    f = cases.case_flags(t)
    # NDE unknown: C1 unknown; C3 settled false by BIE negligible, C2 by NIE negligible
    assert [f.loc["nde_unknown", c] is pd.NA for c in cases.CASES] == [True, False, False, False, False]
    assert not f.loc["nde_unknown", "C2"] and not f.loc["nde_unknown", "C3"]
    assert f.loc["rie_unknown", "C3"] is pd.NA and f.loc["rie_unknown", "C5"] is pd.NA
    assert not f.loc["rie_unknown", "C4"]  # BIE significant settles C4
    assert not f.loc["te_settled", "C2"] and f.loc["te_settled", "C3"]


def test_one_unknown_effect_alone_gives_no_label():
    assert cases.classify_cases(_wide(NDE=NOT_EST)).tolist() == [None]


def test_flags_from_a_pattern_with_missing_significance():
    # a corrected pattern where one test could not be run (pd.NA): Kleene logic
    sig = pd.DataFrame({"TE": [False, pd.NA], "NDE": [pd.NA, True], "NIE": [True, True],
                        "BIE": [True, False], "RIE": [False, False]}, index=["a", "b"], dtype="boolean")
    f = cases.flags_from_significance(sig, nde=[0.2, 0.2], nie=[0.1, -0.1])
    # a: NDE unknown: C1, C3 unknown; C2 false (no cancellation), C4 false (BIE significant), C5 false
    assert [f.loc["a", c] is pd.NA for c in cases.CASES] == [True, False, True, False, False]
    assert not f.loc["a", "C2"] and not f.loc["a", "C4"] and not f.loc["a", "C5"]
    # b: TE unknown, NDE and NIE significant, opposite signs: C2 unknown
    assert f.loc["b", "C1"] and f.loc["b", "C2"] is pd.NA
    assert cases.labels_from_flags(f).tolist() == [None, None]
    # the same pattern as plain object column with None also reads as unknown
    plain = sig.astype(object).where(sig.notna(), None)
    assert cases.labels_from_flags(cases.flags_from_significance(plain, [0.2, 0.2], [0.1, -0.1])).tolist() == [None, None]


def test_complete_pattern_gives_plain_boolean_flags():
    sig = pd.DataFrame({e: [e in ("NDE", "BIE")] for e in E})
    f = cases.flags_from_significance(sig, nde=[0.1], nie=[0.1])
    assert (f.dtypes == bool).all()
    assert f.iloc[0].tolist() == [True, False, False, False, False]


def test_case_label_uses_the_paper_rule_by_default():
    t = _wide(BIE=SIG_POS)  # C3 as stated; not as applied (NIE negligible)
    long = effects.long_form(t)
    assert cases.case_label(long) == "-"
    assert cases.case_label(t) == "-"
    assert cases.case_label(long, rule="stated") == "C3"
    assert cases.case_label(_wide(BIE=SIG_POS, NIE=SIG_POS)) == "C3"
    nde_out = long.copy()
    nde_out.loc["NDE", ["ci_low", "ci_high"]] = np.nan
    assert cases.case_label(nde_out) is None
    two = pd.concat([t, t], ignore_index=True)
    with pytest.raises(ValueError, match=r"^case_label: expected one audit, got 2 rows$"):
        cases.case_label(two)


def test_missing_values_error_names_the_row():
    t = pd.concat([_wide(), _wide(), _wide()], ignore_index=True)
    t.index = ["a", "b", "c"]
    est = t.copy()
    est.loc["b", "NIE_estimate"] = np.nan
    with pytest.raises(ValueError, match=r"^classify_cases: missing effect values in row 'b'$"):
        cases.classify_cases(est)
    half = t.copy()
    half.loc["c", "BIE_ci_low"] = np.nan  # one bound without the other
    with pytest.raises(ValueError, match=r"^classify_cases: missing effect values in row 'c'$"):
        cases.classify_cases(half)


def test_a_missing_estimate_leaves_the_cancellation_case_unknown():
    # TE negligible, NDE significant, NIE's significance and estimate both unknown: C2 (NDE and
    # NIE of opposite signs) can be neither ruled in nor out, so no label (found by mutation testing)
    import pandas as pd

    from popresume.causal.cases import flags_from_significance, labels_from_flags

    sig = pd.DataFrame({"TE": [False, False, False], "NDE": [True, True, True], "NIE": [pd.NA, False, True],
                        "BIE": [False, False, False], "RIE": [False, False, False]})
    flags = flags_from_significance(sig, nde=[1.0, 1.0, 1.0], nie=[float("nan"), float("nan"), -2.0])
    labels = labels_from_flags(flags)
    assert pd.isna(flags.loc[0, "C2"]) and labels.iloc[0] is None
    # where NIE is known not significant, C2 is settled (False) whatever the estimate: "C1"
    assert labels.iloc[1] == "C1"
    # a row with both estimates keeps its own cancellation: NDE 1 and NIE -2 cancel
    assert labels.iloc[2] == "C1,C2"
    # the same with that row alone (every product missing): still unknown, not ruled out
    alone = flags_from_significance(sig.iloc[:1], nde=[1.0], nie=[float("nan")])
    assert pd.isna(alone.loc[0, "C2"]) and labels_from_flags(alone).iloc[0] is None
