"""``popresume estimate``: profiles + scores -> effects table (CSV/JSON), printed."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from popresume.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from popresume.population import generate_population

    d = tmp_path_factory.mktemp("est")
    p = generate_population(["accountant"], {"accountant": 600}, seed=1)
    rng = np.random.default_rng(0)
    s = pd.DataFrame({"resume_id": p["resume_id"], "screener": "syn", "model": "m",
                      "score": 60 + 3.0 * (p["gender"] == "M") + 0.2 * p["exp_year"] + rng.normal(0, 2, len(p)),
                      "parse_ok": True, "raw": ""})
    s.loc[3, "score"] = np.nan  # a parse failure
    p.to_parquet(d / "p.parquet")
    s.to_parquet(d / "s.parquet")
    return d


def test_estimate_csv_and_json(files):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = CliRunner().invoke(main, ["estimate", "--profiles", str(files / "p.parquet"), "--scores",
                                      str(files / "s.parquet"), "--attribute", "gender", "--folds", "3",
                                      "--n-boot", "50", "--no-tune", "--r", "fn_age,surname_group,region",
                                      "--out", str(files / "e.csv"), "--quiet"])
    assert r.exit_code == 0, r.output + repr(r.exception)
    assert any("dropping 1 of 600 rows" in str(w.message) for w in caught)
    assert "NDE" in r.output and "cases (paper rule)" in r.output
    t = pd.read_csv(files / "e.csv", index_col=0)
    assert list(t.index) == ["TE", "NDE", "NIE", "BIE", "RIE"]
    assert (t["n"] == 599).all()  # the missing score was dropped (with a warning)
    assert t.loc["TE", "ci_low"] > 0  # +3 points for men, directly
    with warnings.catch_warnings(record=True):  # the same dropped row, warned again
        warnings.simplefilter("always")
        r = CliRunner().invoke(main, ["estimate", "--profiles", str(files / "p.parquet"), "--scores",
                                      str(files / "s.parquet"), "--attribute", "race", "--folds", "3", "--n-boot", "0",
                                      "--no-tune", "--out", str(files / "e.json"), "--quiet"])
    assert r.exit_code == 0, r.output + repr(r.exception)
    rows = json.loads((files / "e.json").read_text())["data"]
    assert [row["effect"] for row in rows] == ["TE", "NDE", "NIE", "BIE", "RIE"]


def test_estimate_bad_column(files):
    r = CliRunner().invoke(main, ["estimate", "--profiles", str(files / "p.parquet"), "--scores",
                                  str(files / "s.parquet"), "--z", "nope", "--out", str(files / "x.csv")])
    assert r.exit_code != 0 and "nope" in str(r.exception)
