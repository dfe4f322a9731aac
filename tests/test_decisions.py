"""The shipped records of real decisions (data/decisions/) and the analyses over them.

Expected counts and cells below were read from the source repositories' files at the
commits named in data/README.md (with ``git show COMMIT:path``), not from this package:
re-cinq/hiring-bias @ 7559ef3, jderbysh/AIHiringBias @ d4c3499, kevinwebster/
Illusion_of_Neutrality @ 68514f6, aclu-national/auditing-the-audits-facct-2025 @ cef7c27.
The tests read only the shipped tables (the repositories are not needed).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from popresume.decisions import analyses, load, load_aclu_ll144, load_derbyshire, load_recinq, load_webster
from popresume.decisions.schema import COLUMNS, LL144_COLUMNS, NOT_CARDED
from popresume.decisions.sources import SOURCES
from popresume.ll144 import CHANCE_COLUMN, FOUR_FIFTHS, PUBLISHED_STATUSES
from popresume.paths import data_path


@pytest.fixture(scope="module")
def recinq():
    return load_recinq()


@pytest.fixture(scope="module")
def derbyshire():
    return load_derbyshire()


@pytest.fixture(scope="module")
def webster():
    return load_webster()


# -- loaders against the source files --------------------------------------------------------
def test_recinq_counts_and_cells(recinq):
    # results/ at 7559ef3 holds 32,215 files: 4 Claude slots × 30 variants × 17 JDs × 5 runs
    # (2,550 each) and 7 other models × 37 variants × 17 × 5 (3,145 each)
    assert list(recinq.columns) == list(COLUMNS)
    assert len(recinq) == 32_215
    per_model = recinq.groupby("model").size()
    assert per_model["claude-opus"] == 2_550 and per_model["gemini-2.5-pro"] == 3_145
    assert recinq["variant"].nunique() == 37 and recinq["job"].nunique() == 17
    assert (recinq["variant"] == "placebo_car-red").sum() == 595  # 7 models × 17 × 5
    # results/addressCountry_brazil__claude-fable-5__jd_cpp_finance__run1.json
    row = recinq[(recinq["variant"] == "addressCountry_brazil") & (recinq["model"] == "claude-fable-5")
                 & (recinq["job"] == "jd_cpp_finance") & (recinq["run"] == "1")].iloc[0]
    assert row["outcome"] == 3 and row["decision"] == "no" and row["date"] == "2026-07-02"
    assert row["reply"].startswith("The candidate is an experienced, well-rounded software engineer")
    assert len(row["reply"]) == 400 and row["reply"].endswith("…")
    # src/providers/index.js: the llama slot calls meta/llama-4-maverick-17b-128e-instruct-maas
    assert set(recinq.loc[recinq["model"] == "llama-4-maverick", "model_version"]) == {
        "meta/llama-4-maverick-17b-128e-instruct-maas"}
    names = recinq[recinq["signal"] == "firstName"].drop_duplicates("variant").set_index("name")
    assert names.loc["Aisha Okonkwo", "race"] == "African" and names.loc["James Smith", "sex"] == "male"


def test_derbyshire_counts_and_cells(derbyshire):
    # results/3.5_turbo_evaluation_results.csv: 2,761 rows; 5.1_evaluation_results1.csv 2,916;
    # 5.1_evaluation_results2.csv 8,748 (3 × 2,916)
    assert len(derbyshire) == 2_761 + 2_916 + 8_748
    by = derbyshire.groupby(["model", "run"]).size()
    assert by[("gpt-3.5-turbo-0125", "1")] == 2_761
    # results1 is three repetitions of the own-industry part (972 rows each, in order: the
    # file's rows 0, 972 and 1,944 have the same name, job and résumé); results2 three of 2,916
    assert all(by[("gpt-5.1-2025-11-13", r)] == 972 for r in "123")
    assert all(by[("gpt-5.1-2025-11-13", r)] == 2_916 for r in "456")
    # first data line of the 3.5 file: Emily,female,White_US,Admin,Admin,True,job11.txt,
    # resume11.txt,20,15,12,20,67 (the file's own Total column is 67)
    first = derbyshire[derbyshire["model"] == "gpt-3.5-turbo-0125"].iloc[0]
    assert (first["name"], first["job"], first["item"], first["outcome"]) == ("Emily", "job11", "resume11", 67.0)
    # first lines of the two 5.1 files: 10,15,6,20 and 10,15,5,20
    g51 = derbyshire[derbyshire["model"] == "gpt-5.1-2025-11-13"]
    assert g51[g51["run"] == "1"].iloc[0]["outcome"] == 51.0 and g51[g51["run"] == "4"].iloc[0]["outcome"] == 50.0
    assert derbyshire["name"].nunique() == 36 and set(derbyshire["race"]) == {"White_US", "AA_US"}


def test_webster_counts_and_cells(webster):
    # Data/All Exp 1 Data.csv: 3,042 rows (234 'Redacted'); Data/Exp 2b Data.csv: 702 rows
    assert len(webster) == 3_042 + 702
    assert (webster["variant"] == "redacted").sum() == 234
    assert webster["model"].nunique() == 13
    # first line of All Exp 1 Data.csv: MH,Fraud,Hispanic,Male,2,ChatGPT Fast,52
    first = webster.iloc[0]
    assert (first["name"], first["job"], first["race"], first["sex"], first["run"], first["model"],
            first["outcome"]) == ("MH", "Fraud", "Hispanic", "male", "2", "ChatGPT Fast", 52.0)
    assert (webster["variant"] == "keyword_stuffed").sum() == 78


def test_webster_keyword_file_repeats_experiment_2b():
    # 'Waiter & Keyword Stuffed.csv' (156 rows) is the finance-job part of Exp 2b: same scores
    from popresume.paths import data_path

    raw = pd.read_parquet(data_path("decisions", "webster.parquet"))
    kw = raw[raw["experiment"] == "keyword"]
    e2 = raw[(raw["experiment"] == "exp2_2b") & (raw["job"] == "Finance")]
    assert len(kw) == 156 == len(e2)
    key = lambda d: d.assign(resume=d["resume"].str.replace("Keyword Stuffed Waiter", "Keyword")) \
        .sort_values(["model", "resume", "run"])[["resume", "run", "score"]].to_numpy().tolist()
    models = lambda d: sorted(d["model"].str.lower().str.replace(r"[\s-]+", " ", regex=True))
    assert models(kw) == models(e2)
    assert key(kw.assign(model=kw["model"].str.lower())) == key(e2.assign(model=e2["model"].str.lower()))


def test_aclu_counts_and_cells():
    d = load_aclu_ll144()
    # audits/audits_full.csv: 4,507 rows, 116 audits, 22 vendors, 11 auditors
    assert list(d.columns) == list(LL144_COLUMNS) and len(d) == 4_507
    assert d["audit_id"].nunique() == 116 and d["tool_vendor"].nunique() == 22 and d["auditor"].nunique() == 11
    first = d.iloc[0]  # adp_adp_blds_llc_2023_audit_1, sex, Female: 573856, 271433.888, 0.473, 1.0
    assert first["audit_id"] == "adp_adp_blds_llc_2023_audit_1" and first["sex"] == "Female"
    assert first["number_of_applications"] == 573_856 and first["result"] == 0.473 and first["impact_ratio"] == 1.0


def test_load_rejects_unknown_source():
    with pytest.raises(ValueError, match="unknown decisions source 'nope'"):
        load("nope")


# -- the regression against statsmodels with dummies ------------------------------------------
def test_clustered_effect_matches_dummy_regression():
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(1)
    names = [f"n{i}" for i in range(12)]
    rows = []
    for cell in range(6):
        for k, name in enumerate(names):
            rows.append({"cell": f"c{cell}", "name": name, "g": float(k % 2), "outcome": cell + 0.7 * (k % 2)
                         + rng.normal(0, 1) + 0.3 * k})
    d = pd.DataFrame(rows)
    ours = analyses.clustered_effect(d, "g", cells="cell", cluster="name")
    ref = smf.ols("outcome ~ g + C(cell)", d).fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(d["name"])[0]},
                                                  use_t=True)
    assert ours["estimate"] == pytest.approx(ref.params["g"], rel=1e-10)
    # same residuals and demeaned regressor (Frisch-Waugh-Lovell): the sandwich agrees except
    # statsmodels' small-sample factor (N-1)/(N-K), K = 7 with the dummies and 1 without
    n, k = len(d), 7
    assert ours["se"] == pytest.approx(ref.bse["g"] * np.sqrt((n - k) / (n - 1)), rel=1e-8)
    assert ours["n_clusters"] == 12


def test_group_effect_null_rejects_near_level():
    """No group effect, a name random effect: the name-clustered test rejects about 5%."""
    rng = np.random.default_rng(7)
    rejections = 0
    sims = 200
    for _ in range(sims):
        name_eff = rng.normal(0, 1, 24)
        rows = [{"cell": f"c{c}", "name": f"n{k}", "g": float(k < 12),
                 "outcome": name_eff[k] + rng.normal(0, 1)} for c in range(9) for k in range(24)]
        r = analyses.clustered_effect(pd.DataFrame(rows), "g", cells="cell", cluster="name")
        rejections += r["p"] < 0.05
    assert 0.01 <= rejections / sims <= 0.10


def test_chance_below_two_categories_matches_hypergeometric():
    from scipy.stats import hypergeom

    sizes, m = np.array([30, 50]), 40
    below, _ = analyses.chance_below(sizes, m, np.array([True, True]), n_sim=20_000, seed=3)
    x = np.arange(0, 31)
    pmf = hypergeom.pmf(x, 80, 30, m)
    r0, r1 = x / 30, (m - x) / 50
    exact = float(pmf[(r0 < 0.8 * np.maximum(r0, r1))].sum())
    assert below[0] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-3)


def test_chance_below_adds_up_to_chance_of_flag():
    """Two rated categories: 'the lower one is below 0.8' is one of two disjoint events, so the
    per-category chances add up to popresume.ll144's exact chance of a flag."""
    from popresume.ll144 import chance_of_flag

    sizes, m = np.array([40, 60]), 45
    below, _, anyflag = analyses.chance_below(sizes, m, np.array([True, True]), n_sim=20_000, seed=5, any_flag=True)
    exact = chance_of_flag(list(sizes), rule="selection_cut", n_selected=m).probability
    assert below.sum() == pytest.approx(exact, abs=0.015)
    assert anyflag == pytest.approx(below.sum(), abs=1e-12)


def test_ll144_recompute_hand_case():
    base = {c: "x" for c in LL144_COLUMNS}
    rows = [dict(base, audit_id="a", selection_or_scoring_rate="Selection", protected_char_group="sex",
                 race_ethnicity="Total", sex=s, number_of_applications=n, n_selected_or_n_above_median=k,
                 result=k / n, impact_ratio=ir)
            for s, n, k, ir in (("Female", 100, 30, 0.75), ("Male", 100, 40, 1.0), ("Missing/Unknown", 10, 5, None))]
    t = analyses.ll144_published(pd.DataFrame(rows), n_sim=2000)
    fem = t[t["category"] == "Female"].iloc[0]
    assert fem["ratio"] == pytest.approx(0.75) and fem["status"] == "matches" and fem["published_flag"]
    assert 0 < fem[CHANCE_COLUMN] < 1 and 0 < fem["p_recomputed"] < 1 and fem["p_draws"] >= 2000
    unknown = t[t["category"] == "Missing/Unknown"].iloc[0]
    assert np.isnan(unknown["ratio"]) and pd.isna(unknown["status"])
    rows[0]["impact_ratio"] = 0.60  # 0.15 away from 30/40, and below any rounding of the printed rates
    assert analyses.ll144_published(pd.DataFrame(rows), n_sim=0).iloc[0]["status"] == (
        "not reproducible from the printed rates")


@pytest.fixture(scope="module")
def ll144_file():
    return pd.read_csv(data_path("decisions", "ll144_published.csv"))


def test_shipped_ll144_file_is_the_recomputation(ll144_file):
    """data/decisions/ll144_published.csv is what ll144_published gives on the shipped audits:
    every printed number, ratio and status, and the p-values of three analyses redrawn alone."""
    f = ll144_file
    assert list(f.columns) == analyses.LL144_OUT_COLUMNS and len(f) == 4_507
    assert not f.duplicated(analyses.LL144_KEY).any()
    assert set(f["status"].dropna()) == set(PUBLISHED_STATUSES)
    assert not ((f["published_ratio"] > 1) & f["status"].eq("not reproducible from the printed rates")).any()
    aclu = load_aclu_ll144()
    t = analyses.ll144_published(aclu, n_sim=0)
    for col in ("ratio", "ratio_2pct", "ratio_own", "n", "published_ratio"):
        np.testing.assert_allclose(f[col].to_numpy(float), t[col].to_numpy(float), rtol=0, atol=5e-7, err_msg=col)
    for col in ("status", "category", "own_comparator", "under_2pct", "counts_reconstructed"):
        assert f[col].astype(object).fillna("").astype(str).tolist() == (
            t[col].astype(object).fillna("").astype(str).tolist()), col
    # the p-values: each analysis draws with its own seed, so one alone gives the file's values
    flagged = f[(f["published_ratio"] < FOUR_FIFTHS) & f["p_recomputed"].notna()]
    for key in flagged[["audit_id", "rate_definition", "characteristic"]].drop_duplicates().head(3).itertuples(False):
        rows = aclu[(aclu["audit_id"] == key[0]) & (aclu["selection_or_scoring_rate"] == key[1])
                    & (aclu["protected_char_group"] == key[2])]
        one = analyses.ll144_file(analyses.ll144_published(rows))
        want = f.merge(one[analyses.LL144_KEY], on=analyses.LL144_KEY)
        assert one["p_recomputed"].fillna("").tolist() == want["p_recomputed"].fillna("").tolist()


def test_ll144_flags_count_the_zero_applicant_rows(ll144_file):
    f = ll144_file.assign(published_flag=lambda d: d["published_ratio"] < FOUR_FIFTHS,
                          zero_applicants=lambda d: d["n"].eq(0))
    zero = f[f["published_flag"] & f["zero_applicants"]]
    # ACLU's table: 234 printed ratios under four-fifths, 12 of them rows with no applicants printed as 0
    assert int(f["published_flag"].sum()) == 234 and len(zero) == 12 and (zero["published_ratio"] == 0).all()
    assert zero["status"].eq("no counts").all()


def test_decisions_package_never_branches_on_a_source_name():
    """Sources are records (popresume.decisions.sources.RECORDS): outside that file no module of
    popresume/decisions compares a source with a name or spells a source's name."""
    import pathlib
    import re

    from popresume.decisions.sources import RECORDS

    folder = pathlib.Path(analyses.__file__).parent
    names = "|".join(map(re.escape, RECORDS))
    spelled = re.compile(rf"[\"']({names})[\"']")
    compared = re.compile(r"source[\"'\]]*\s*(==|!=|\bin\b)\s*[\"'(]")
    hits = [f"{f.name}:{i}: {line.strip()}" for f in sorted(folder.glob("*.py")) if f.name != "sources.py"
            for i, line in enumerate(f.read_text().splitlines(), 1) if spelled.search(line) or compared.search(line)]
    assert hits == []
    assert set(RECORDS) == set(SOURCES) and len(SOURCES) == 6


def test_a_new_source_is_one_record(derbyshire):
    """A record under a new name, with Derbyshire's loader and design, gets Derbyshire's analyses."""
    from dataclasses import replace

    from popresume.decisions import sources

    twin = replace(sources.RECORDS["derbyshire"], name="twin")
    sources.RECORDS["twin"] = twin
    try:
        m = derbyshire[derbyshire["model"] == "gpt-5.1-2025-11-13"]
        both = pd.concat([m, m.assign(source="twin")], ignore_index=True)
        v = analyses.validity(both).set_index(["source", "contrast"])
        cols = ["estimate", "ci_low", "ci_high", "verdict"]
        assert v.loc["twin", cols].equals(v.loc["derbyshire", cols])
    finally:
        del sources.RECORDS["twin"]


# -- every table from the shipped data --------------------------------------------------------
@pytest.fixture(scope="module")
def small(recinq, derbyshire, webster):
    """Every decision source, with re-cinq cut to two models (one with placebo edits)."""
    return pd.concat([recinq[recinq["model"].isin(["mistral-small", "claude-haiku"])], derbyshire, webster],
                     ignore_index=True)


def test_every_table_builds_from_shipped_data(small):
    v = analyses.validity(small)
    assert list(v.columns[:10]) == analyses.VALIDITY_COLUMNS
    # which intervals the coverage harness backs: Derbyshire's quality and Webster's job fit;
    # not Derbyshire's job fit (industries at large); no row without an interval
    cal = v.set_index(["source", "model", "contrast"])["calibrated"]
    assert cal.loc[("derbyshire", "gpt-5.1-2025-11-13", "quality")]
    assert not cal.loc[("derbyshire", "gpt-5.1-2025-11-13", "job_fit")]
    assert cal[cal.index.get_level_values("source") == "webster"].xs("job_fit", level="contrast").any()
    assert not (v["calibrated"] & v["ci_low"].isna()).any()
    assert v.loc[~v["calibrated"], "calibration"].str.len().gt(0).all()
    verdict = v.drop_duplicates(["source", "model"]).set_index("model")["verdict"]
    # GPT-3.5 wrote 2,761 of 2,916 parseable replies: a parse rate of 0.947 < 0.95
    assert verdict["gpt-3.5-turbo-0125"] == "fail"
    assert verdict["claude-haiku"] == "not estimable"
    assert analyses.verdicts(v)[("recinq", "claude-haiku")] == NOT_CARDED
    g = analyses.group_effects(small, jackknife=False)
    assert list(g.columns[:10]) == analyses.GROUP_COLUMNS
    assert (g.loc[g["source"] == "recinq", "attribute"] == "name").sum() == 12
    assert (g.loc[(g["source"] == "recinq") & (g["attribute"] == "name"), "n_names"] == 1).all()
    assert g["p_holm"].ge(g["p"] - 1e-12).all()
    n = analyses.noise_floor(small)
    assert set(n["kind"]) == {"rerun", "placebo"}
    # run pairs of GPT-5.1: 972 own-industry cells with 6 runs (C(6, 2) = 15 pairs) and
    # 1,944 other cells with 3 (3 pairs)
    assert n.set_index(["model", "kind"]).loc[("gpt-5.1-2025-11-13", "rerun"), "n"] == 972 * 15 + 1_944 * 3
    p = analyses.name_vs_placebo(small)
    assert set(p["model"]) == {"mistral-small"} and p["placebo_p"].min() >= 1 / 8
    dr = analyses.drift(small)
    assert list(dr["contrast"][:2]) == ["job_fit", "quality"]
    c = analyses.competence(small)
    assert set(c["contrast"]) == {"matched − mismatched", "keyword-stuffed − plain"} and len(c) == 26


def test_validity_from_columns_on_a_planted_file():
    """An auditor's own file: fit moves scores by +10, quality by +5 (planted), none by names."""
    rng = np.random.default_rng(11)
    rows = []
    for item in range(12):
        for job in range(4):
            for rep in range(3):
                own = float(job % 2 == item % 2)
                strong = float(item < 6)
                rows.append({"item": f"r{item}", "job": f"j{job}", "fit": own, "strong": strong,
                             "outcome": 50 + 10 * own + 5 * strong + rng.normal(0, 2)})
    d = pd.DataFrame(rows)
    v = analyses.validity_from_columns(d, fit="fit", quality="strong").set_index("contrast")
    assert v.loc["job_fit", "ci_low"] < 10 < v.loc["job_fit", "ci_high"]
    assert v.loc["quality", "ci_low"] < 5 < v.loc["quality", "ci_high"]
    assert (v["verdict"] == "pass (stability untested)").all()
    assert not v["calibrated"].any() and (v["calibration"] == "not checked at this design").all()
    flat = d.assign(outcome=50 + rng.normal(0, 2, len(d)))
    assert (analyses.validity_from_columns(flat, fit="fit", quality="strong")["verdict"] == "fail").all()
    # an interval the calibration refuses is not printed, and the gate reads it as missing
    def refuse(rows, term, kw, job=None):
        return {"calibrated": False, "calibration": "covered 0.5", "coverage": 0.5}

    r = analyses.validity_from_columns(d, fit="fit", quality="strong", calibrate=refuse).set_index("contrast")
    assert r["ci_low"].isna().all() and r["estimate"].notna().all() and (r["verdict"] == "not estimable").all()
    assert (r["reason"] == "not estimable: covered 0.5").all()
    # a 0/1 selection: the gate's spread rule (>= 3 distinct values) does not apply
    sel = d.assign(outcome=(d["outcome"] > 63).astype(float))
    assert "spread" in analyses.validity_from_columns(sel, fit="fit", quality="strong")["verdict_reason"].iloc[0]
    assert "spread" not in analyses.validity_from_columns(sel, fit="fit", quality="strong",
                                                          selection=True)["verdict_reason"].iloc[0]
    with pytest.raises(ValueError, match="no column 'fit'"):
        analyses.validity_from_columns(d.drop(columns=["fit"]))


def test_rerun_spread_by_hand():
    """Two cells: (1, 3, 5) and (10, 14); one cell with a single run is left out."""
    d = pd.DataFrame({"item": ["a", "a", "a", "b", "b", "c"], "outcome": [1.0, 3.0, 5.0, 10.0, 14.0, 7.0]})
    r = analyses.rerun_spread(d, ["item"])
    diffs = np.array([1 - 3, 1 - 5, 3 - 5, 10 - 14])
    assert r["n"] == 4 and r["n_cells"] == 2
    assert r["mean_abs_change"] == pytest.approx(np.abs(diffs).mean())
    assert r["sd"] == pytest.approx(diffs.std(ddof=1))
    assert r["run_sd"] == pytest.approx(np.sqrt((4 + 0 + 4 + 4 + 4) / (2 + 1)))


def test_cluster_coverage_near_nominal_with_few_names():
    """8 names per group (Webster's race groups), 9 cells: t on G - 1 df keeps coverage near 0.95."""
    r = analyses.cluster_coverage(8, 9, n_sim=200, seed=2)
    assert 0.88 <= r["coverage"] <= 0.99
