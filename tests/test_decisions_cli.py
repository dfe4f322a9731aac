"""``popresume decisions`` end to end on the shipped records (data/decisions/)."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from popresume.cli import main
from popresume.decisions.analyses import LL144_KEY, LL144_OUT_COLUMNS
from popresume.ll144 import CHANCE_COLUMN, PUBLISHED_STATUSES

COLUMNS = {
    "validity.csv": ["source", "model", "contrast", "estimate", "ci_low", "ci_high", "n", "verdict", "calibrated",
                     "calibration"],
    "group_effects.csv": ["source", "model", "attribute", "group", "reference", "estimate", "ci_low", "ci_high",
                          "p", "p_holm"],
    "noise_floor.csv": ["source", "model", "kind", "mean_abs_change", "sd", "n"],
    "ll144_published.csv": LL144_OUT_COLUMNS,
}


def test_decisions_cli_one_source_and_ll144(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["decisions", "--out", str(out), "--source", "webster", "--source", "aclu_ll144",
                                    "--n-sim", "100"])
    assert res.exit_code == 0, res.output
    tables = {name: pd.read_csv(out / name) for name in COLUMNS}
    for name, cols in COLUMNS.items():
        assert list(tables[name].columns) == cols, name
    v = tables["validity.csv"]
    assert set(v["source"]) == {"webster"} and len(v) == 13 * 2  # 13 settings × (job_fit, quality)
    assert set(v["contrast"]) == {"job_fit", "quality"}
    assert set(tables["noise_floor.csv"]["kind"]) == {"rerun"}
    ll = tables["ll144_published.csv"]
    assert len(ll) == 4_507 and ll["audit_id"].nunique() == 116 and not ll.duplicated(LL144_KEY).any()
    assert ll[CHANCE_COLUMN].dropna().between(0, 1).all() and set(ll["status"].dropna()) == set(PUBLISHED_STATUSES)
    assert not ((ll["published_ratio"] > 1) & ll["status"].eq("not reproducible from the printed rates")).any()
    # p with the digits 100 draws (1,000 near 0.05) support, or a bound; exact (p_draws 0) for two categories
    drawn = ll["p_draws"] > 0
    assert ll.loc[drawn, "p_recomputed"].dropna().str.fullmatch(r"[<>] 0\.\d+|0\.\d{1,3}").all()
    exact = ll.loc[~drawn, "p_recomputed"].dropna().astype(float)
    assert len(exact) > 100 and exact.between(0, 1).all()


def test_decisions_cli_without_ll144_writes_its_header(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["decisions", "--out", str(out), "--source", "derbyshire"])
    assert res.exit_code == 0, res.output
    assert list(pd.read_csv(out / "ll144_published.csv").columns) == COLUMNS["ll144_published.csv"]
    v = pd.read_csv(out / "validity.csv")
    assert set(v["model"]) == {"gpt-3.5-turbo-0125", "gpt-5.1-2025-11-13"}
    # the harness backs the quality interval; job fit's only for résumés of these industries
    cal = v.set_index("contrast")
    assert cal.loc["quality", "calibrated"].all() and not cal.loc["job_fit", "calibrated"].any()
    assert cal.loc["job_fit", "calibration"].str.contains("covered 0.79").all()


def test_decisions_cli_rejects_unknown_source(tmp_path):
    res = CliRunner().invoke(main, ["decisions", "--out", str(tmp_path / "o"), "--source", "nope"])
    assert res.exit_code != 0
    assert "unknown decisions source 'nope'" in res.output
    assert not (tmp_path / "o" / "validity.csv").exists()
