"""``popresume estimate``: profiles + scores -> effects table (CSV/JSON), printed."""

import json
import warnings

import pandas as pd
from click.testing import CliRunner

from popresume.cli import main


def test_estimate_csv_and_json(estimate_files):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = CliRunner().invoke(main, ["estimate", "--profiles", str(estimate_files / "p.parquet"), "--scores",
                                      str(estimate_files / "s.parquet"), "--attribute", "gender", "--folds", "3",
                                      "--n-boot", "50", "--no-tune", "--r", "fn_age,surname_group,region",
                                      "--out", str(estimate_files / "e.csv"), "--quiet"])
    assert r.exit_code == 0, r.output + repr(r.exception)
    assert any("dropping 1 of 600 rows" in str(w.message) for w in caught)
    assert "NDE" in r.output and "cases (paper rule)" in r.output
    t = pd.read_csv(estimate_files / "e.csv", index_col=0)
    assert list(t.index) == ["TE", "NDE", "NIE", "BIE", "RIE"]
    assert (t["n"] == 599).all()  # the missing score was dropped (with a warning)
    assert t.loc["TE", "ci_low"] > 0  # +3 points for men, directly
    with warnings.catch_warnings(record=True):  # the same dropped row, warned again
        warnings.simplefilter("always")
        r = CliRunner().invoke(main, ["estimate", "--profiles", str(estimate_files / "p.parquet"), "--scores",
                                      str(estimate_files / "s.parquet"), "--attribute", "race", "--folds", "3", "--n-boot", "0",
                                      "--no-tune", "--variance", "influence", "--out", str(estimate_files / "e.json"), "--quiet"])
    assert r.exit_code == 0, r.output + repr(r.exception)
    rows = json.loads((estimate_files / "e.json").read_text())["data"]
    assert [row["effect"] for row in rows] == ["TE", "NDE", "NIE", "BIE", "RIE"]


def test_estimate_bad_column(estimate_files):
    r = CliRunner().invoke(main, ["estimate", "--profiles", str(estimate_files / "p.parquet"), "--scores",
                                  str(estimate_files / "s.parquet"), "--z", "nope", "--out", str(estimate_files / "x.csv")])
    assert r.exit_code == 1 and "Error: column 'nope' (--z) is in neither" in r.output
    assert "Traceback" not in r.output and not (estimate_files / "x.csv").exists()
