"""``popresume audit --decisions FILE --report DIR``: an audit of recorded decisions.

The files are written by the tests: one with a planted sex disparity, one with none, one
with a 0/1 selection under other column names, and malformed ones. The expectations are
computed here from the rows (rates by hand, the disparity the test planted), not read back
from the report.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

FAST = ["--n-sim", "400"]


def _decisions(n=900, *, gap=0.0, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"sex": rng.choice(["F", "M"], n),
                       "race": rng.choice(["White", "Black", "Asian"], n, p=[0.6, 0.3, 0.1])})
    df["score"] = rng.normal(50, 10, n) + gap * (df["sex"] == "M")
    return df


def _audit(cli, path, out, *extra):
    return cli("audit", "--decisions", path, "--report", out, *FAST, *extra)


def test_a_planted_disparity_is_found_and_a_fair_file_is_not(cli, tmp_path):
    planted = _decisions(gap=8.0)
    planted.loc[:19, "race"] = None  # 20 rows of unknown race: counted, not rated
    planted.to_csv(tmp_path / "planted.csv", index=False)
    res = _audit(cli, tmp_path / "planted.csv", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert "effects" not in rep and "no population model" in rep["omitted"]["decomposition"]
    ll = pd.DataFrame(rep["ll144"])
    sex = ll[ll["breakdown"] == "sex"].set_index("category")
    above = planted["score"] > planted["score"].median()  # LL144's scoring rate, by hand
    rate = above.groupby(planted["sex"]).mean()
    assert sex.loc["F", "scoring_rate"] == pytest.approx(rate["F"])
    assert sex.loc["F", "impact_ratio"] == pytest.approx(rate["F"] / rate["M"])
    assert sex.loc["F", "impact_ratio"] < 0.8 and sex.loc["F", "ci_high"] < 1  # 8 points at n = 900: resolved
    race = ll[ll["breakdown"] == "race"].set_index("category")
    assert race.loc["unknown", "n"] == 20 and race["n"].sum() == 900
    chance = pd.DataFrame(rep["chance_baseline"])
    assert set(chance["rule"]) == {"median_split", "selection_cut"}  # both rules the report prints
    assert chance.set_index(["rule", "breakdown"]).loc[("median_split", "sex"), "p_perm"] < 1e-6
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "chance of a ratio this low" in page and "no population model" in page

    fair = _decisions(gap=0.0, seed=1)
    fair.to_csv(tmp_path / "fair.csv", index=False)
    res = _audit(cli, tmp_path / "fair.csv", tmp_path / "fair")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "fair" / "report.json").read_text())
    sex = pd.DataFrame(rep["ll144"]).query("breakdown == 'sex'")
    assert (sex["ci_high"] >= 0.8).all()  # no category is resolved below four-fifths
    p = pd.DataFrame(rep["chance_baseline"]).set_index(["rule", "breakdown"])["p_perm"]
    assert p.loc[("median_split", "sex")] > 0.05


def test_a_selection_under_other_names_is_rated_by_its_selection_rate(cli, tmp_path):
    df = _decisions(n=600, gap=6.0, seed=2)
    df["hired"] = np.where(df["score"] > df["score"].quantile(0.7), "yes", "no")
    df = df.drop(columns="score").rename(columns={"sex": "Gender", "race": "Ethnicity"})
    df.to_csv(tmp_path / "sel.csv", index=False)
    res = _audit(cli, tmp_path / "sel.csv", tmp_path / "rep", "--outcome-col", "hired", "--sex-col", "Gender",
                 "--race-col", "Ethnicity")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    sex = pd.DataFrame(rep["ll144"]).query("breakdown == 'sex'").set_index("category")
    rate = (df["hired"] == "yes").groupby(df["Gender"]).mean()
    assert sex["scoring_rate"].to_dict() == pytest.approx(rate.to_dict())
    assert set(pd.DataFrame(rep["chance_baseline"])["rule"]) == {"selection_cut"}
    assert rep["run"]["columns"] == {"outcome": "hired", "sex": "Gender", "race": "Ethnicity"}


@pytest.mark.parametrize("name, content, message", [
    ("nosex.csv", "gender,race,score\nF,A,1\nM,B,2\n", "has no column 'sex'"),
    ("text.csv", "sex,race,score\nF,A,1\nM,B,high\n", "column 'score' has a non-numeric score 'high' at row 2"),
    ("empty.csv", "", "is empty"),
    ("header.csv", "sex,race,score\n", "has a header but no rows"),
    ("latin1.csv", "sex,race,score\nF,Ren\xe9e,1\nM,B,2\n".encode("latin-1"), "is not UTF-8 text"),
    ("nogroup.csv", "sex,race,score\nF,A,1\nM,B,\nF,B,3\n", "group 'M' of column 'sex' has no row with an outcome"),
    ("oneoutcome.csv", "sex,race,rating\nF,A,1\nM,B,2\n", "has no column 'score' or 'selected'"),
])
def test_a_malformed_file_is_one_line_naming_file_and_column(cli, tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "rep"
    res = _audit(cli, path, out)
    assert res.exit_code != 0
    err = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(err) == 1 and message in err[0] and name in err[0], res.output
    assert "Traceback" not in res.output
    assert not out.exists()  # nothing half-written


def test_options_of_other_modes_are_refused(cli, tmp_path):
    _decisions(n=100).to_csv(tmp_path / "d.csv", index=False)
    res = cli("audit", "--decisions", tmp_path / "d.csv", "--report", tmp_path / "r", "--occupation", "nurse")
    assert res.exit_code != 0 and "--occupation does not apply to --decisions" in res.output
    res = cli("audit", "--screener", "synthetic", "--occupation", "nurse", "--n", "100", "--report", tmp_path / "r",
              "--sex-col", "g")
    assert res.exit_code != 0 and "--sex-col applies to --decisions only" in res.output


def test_the_report_object_shows_itself(tmp_path):
    from popresume.audit.report_decisions import DecisionsRequest, run_decisions_report
    from popresume.schema import NOT_CARDED_RECORDED

    _decisions(n=400, gap=8.0).to_csv(tmp_path / "d.csv", index=False)
    rep = run_decisions_report(DecisionsRequest(tmp_path / "d.csv", n_sim=100))
    assert rep.decompositions == {} and rep.validity is None and rep.recorded_validity is None
    # no fit or quality column: the verdict every table carries says validity was not measured, and why
    assert rep.verdict().startswith(NOT_CARDED_RECORDED + ": validity not measured")
    assert "no fit column" in rep.verdict() and rep.noise_floor is None and "no run column" in rep.omitted["noise_floor"]
    text = str(rep)
    assert text.startswith("Audit report: recorded decisions (d.csv)") and "LL144:" in text
    html = rep._repr_html_()
    assert "<h2>1. Validity</h2>" in html and "no population model" in html and "<img" not in html
    assert html.count("validity not measured") >= 3  # LL144, four-fifths and chance tables carry the verdict
    data = rep.to_json()
    assert set(data) == {"report_version", "ll144", "four_fifths", "chance_baseline", "limitations", "run", "omitted"}
    assert data["run"]["columns"] == {"outcome": "score", "sex": "sex", "race": "race"}


# -- the optional sections: validity (item + fit / quality) and the noise floor (item + run) ----
FIT, QUALITY, RUN_SD = 10.0, 6.0, 4.0  # planted: own posting +10, stronger résumé +6, reply SD 4 between runs


def _designed(*, fit=FIT, quality=QUALITY, run_sd=RUN_SD, n_items=12, n_jobs=4, n_runs=5, seed=3):
    """A crossed file: résumé (item) × posting (job) × run. Half the postings are each résumé's
    own (fit = 1 where job and item have the same parity), the first half of the résumés are
    the stronger versions; each résumé carries one name (sex, race). The outcome is a résumé
    effect + a résumé × posting effect (fixed across runs) + the planted contrasts + reply
    noise that differs between runs."""
    rng = np.random.default_rng(seed)
    item, job, run = (a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_jobs), np.arange(n_runs),
                                                     indexing="ij"))
    df = pd.DataFrame({"item": [f"cv{i}" for i in item], "job": [f"ad{j}" for j in job], "run": run,
                       "sex": np.where(item % 4 < 2, "F", "M"), "race": np.where(item % 3 == 0, "Black", "White")})
    df["fit"] = (job % 2 == item % 2).astype(int)
    df["quality"] = (item < n_items // 2).astype(int)
    cell = rng.normal(0, 3, (n_items, n_jobs))[item, job]
    df["score"] = (50 + rng.normal(0, 2, n_items)[item] + cell + fit * df["fit"] + quality * df["quality"]
                   + rng.normal(0, run_sd, len(df)))
    return df


def _by_hand_fit(df: pd.DataFrame) -> float:
    """Job fit with résumé fixed effects on a balanced design: the mean over résumés of (own −
    mismatched posting) means (every résumé has the same numbers of own and other rows)."""
    m = df.groupby(["item", "fit"])["score"].mean().unstack()
    return float((m[1] - m[0]).mean())


def test_a_screener_that_reads_fit_passes_and_one_that_ignores_it_fails(cli, tmp_path):
    reads = _designed()
    reads.to_csv(tmp_path / "reads.csv", index=False)
    res = _audit(cli, tmp_path / "reads.csv", tmp_path / "reads")
    assert res.exit_code == 0, res.output
    assert "validity pass (stability untested)" in res.output
    rep = json.loads((tmp_path / "reads" / "report.json").read_text())
    v = rep["validity"]
    assert v["verdict"] == "pass (stability untested)" and v["shown_as"] == v["verdict"]
    assert v["columns"] == {"item": "item", "job": "job", "fit": "fit", "quality": "quality"}
    c = pd.DataFrame(v["contrasts"]).set_index("contrast")
    assert c.loc["job_fit", "estimate"] == pytest.approx(_by_hand_fit(reads))
    # quality on the own-posting rows with posting fixed effects: balanced, so the difference of means
    own = reads[reads["fit"] == 1]
    assert c.loc["quality", "estimate"] == pytest.approx(own.loc[own["quality"] == 1, "score"].mean()
                                                         - own.loc[own["quality"] == 0, "score"].mean())
    assert c["calibrated"].all() and (c["coverage"] >= 0.9).all()
    assert c.loc["job_fit", "ci_low"] < FIT < c.loc["job_fit", "ci_high"] and c.loc["job_fit", "ci_low"] > 0
    assert c.loc["quality", "ci_low"] < QUALITY < c.loc["quality", "ci_high"] and c.loc["quality", "ci_low"] > 0
    page = (tmp_path / "reads" / "report.html").read_text()
    assert "job fit: own − mismatched posting" in page and "CI calibrated here" in page
    # every table of numbers carries the verdict: validity, noise floor, LL144, four-fifths, chance
    assert page.count("<td class=\"l\">pass (stability untested)</td>") >= 5 * 2

    ignores = _designed(fit=0.0, seed=4)
    ignores.to_csv(tmp_path / "ignores.csv", index=False)
    res = _audit(cli, tmp_path / "ignores.csv", tmp_path / "ignores")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "ignores" / "report.json").read_text())
    v = rep["validity"]
    c = pd.DataFrame(v["contrasts"]).set_index("contrast")
    assert c.loc["job_fit", "estimate"] == pytest.approx(_by_hand_fit(ignores))
    assert c.loc["job_fit", "ci_low"] <= 0 <= c.loc["job_fit", "ci_high"]
    assert v["verdict"] == "fail" and "posting: own − mismatched" in v["reasons"][0]
    page = (tmp_path / "ignores" / "report.html").read_text()
    assert "pass (stability untested)" not in page and "<td class=\"l\">fail</td>" in page


def test_the_noise_floor_recovers_the_planted_run_to_run_sd(cli, tmp_path):
    df = _designed()
    df.to_csv(tmp_path / "runs.csv", index=False)
    res = _audit(cli, tmp_path / "runs.csv", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    nf = rep["noise_floor"]
    assert nf["cells"] == ["item", "job", "sex", "race"]
    row = nf["rows"][0]
    cells = df.groupby(["item", "job"])["score"]
    n_cells, k = cells.ngroups, 5
    assert row["n_cells"] == n_cells == 48 and row["n"] == n_cells * k * (k - 1) // 2 and row["runs"] == k
    # the pooled within-cell SD, by hand; it estimates the planted SD with SE σ / √(2 · df),
    # df = cells × (runs − 1) = 192, so 4 SEs is 4 × 4 / √384 = 0.82
    pooled = float(np.sqrt((cells.var(ddof=1) * (k - 1)).sum() / (n_cells * (k - 1))))
    assert row["run_sd"] == pytest.approx(pooled)
    assert abs(row["run_sd"] - RUN_SD) < 4 * RUN_SD / np.sqrt(2 * n_cells * (k - 1))
    # a pair's difference has SD σ√2 and mean |difference| 2σ/√π; the mean over one cell's 10
    # pairs has SD at most σ√2·√(1 − 2/π), so over 48 cells 4 SEs are 4 · 3.41 / √48 ≈ 1.97
    assert abs(row["mean_abs_change"] - 2 * RUN_SD / np.sqrt(np.pi)) < 4 * RUN_SD * np.sqrt(2 * (1 - 2 / np.pi) / 48)
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "Noise floor: run to run" in page and "one reply&#x27;s run-to-run SD" in page

    one_run = df[df["run"] == 0]
    one_run.to_csv(tmp_path / "once.csv", index=False)
    res = _audit(cli, tmp_path / "once.csv", tmp_path / "once")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "once" / "report.json").read_text())
    assert "noise_floor" not in rep and "more than one run" in rep["omitted"]["noise_floor"]


def test_an_interval_not_calibrated_at_the_files_design_is_not_printed(tmp_path):
    """One résumé holds almost every row: the résumé-clustered interval of job fit cannot see
    how much the effect varies between résumés (simulated coverage far under 0.93), so the
    report gives the estimate without an interval and the gate reads the contrast as missing."""
    from popresume.audit.report_decisions import DecisionsRequest, run_decisions_report

    df = _designed(n_runs=1)
    heavy = df[df["item"] == "cv0"]
    df = pd.concat([df[df["item"].isin(["cv1", "cv2", "cv3"])]] + [heavy] * 30, ignore_index=True)
    df.drop(columns="run").to_csv(tmp_path / "heavy.csv", index=False)
    rep = run_decisions_report(DecisionsRequest(tmp_path / "heavy.csv", n_sim=100))
    c = rep.recorded_validity.contrasts.set_index("contrast")
    assert not c.loc["job_fit", "calibrated"] and c.loc["job_fit", "coverage"] < 0.8
    assert np.isnan(c.loc["job_fit", "ci_low"]) and np.isfinite(c.loc["job_fit", "estimate"])
    assert c.loc["job_fit", "reason"].startswith("not estimable: the nominal 95% interval covered")
    assert rep.recorded_validity.verdict == "not estimable"
    assert rep.verdict().startswith("not carded (recorded decisions): validity not measured")
    assert rep.to_json()["validity"]["contrasts"][0]["ci_low"] is None
    assert any("job fit" in line and "(no calibrated interval)" in line for line in rep.summary())


@pytest.mark.parametrize("name, content, options, message", [
    ("badfit.csv", "sex,race,score,item,fit\nF,A,1,a,1\nM,B,2,a,maybe\n", (),
     "column 'fit' (--fit-col) has 'maybe' at row 2"),
    ("badq.csv", "sex,race,score,item,job,q\nF,A,1,a,x,strong\nM,B,2,b,x,7\n", ("--quality-col", "q"),
     "column 'q' (--quality-col) has '7' at row 2"),
    ("nofitcol.csv", "sex,race,score,item\nF,A,1,a\nM,B,2,b\n", ("--fit-col", "own"), "has no column 'own'"),
    ("nojob.csv", "sex,race,score,item,quality\nF,A,1,a,1\nM,B,2,b,0\n", ("--quality-col", "quality"),
     "--quality-col 'quality' needs the job column too (name it with --job-col)"),
])
def test_bad_fit_or_quality_columns_are_one_line_naming_file_and_column(cli, tmp_path, name, content, options,
                                                                        message):
    path = tmp_path / name
    path.write_text(content)
    out = tmp_path / "rep"
    res = _audit(cli, path, out, *options)
    assert res.exit_code != 0
    err = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(err) == 1 and message in err[0] and name in err[0], res.output
    assert "Traceback" not in res.output and not out.exists()
