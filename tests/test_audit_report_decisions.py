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

    _decisions(n=400, gap=8.0).to_csv(tmp_path / "d.csv", index=False)
    rep = run_decisions_report(DecisionsRequest(tmp_path / "d.csv", n_sim=100))
    assert rep.decompositions == {} and rep.validity is None and rep.verdict() == "not carded (recorded decisions)"
    text = str(rep)
    assert text.startswith("Audit report: recorded decisions (d.csv)") and "LL144:" in text
    html = rep._repr_html_()
    assert "<h2>1. Validity</h2>" in html and "no population model" in html and "<img" not in html
    data = rep.to_json()
    assert set(data) == {"report_version", "ll144", "four_fifths", "chance_baseline", "limitations", "run", "omitted"}
    assert data["run"]["columns"] == {"outcome": "score", "sex": "sex", "race": "race"}
