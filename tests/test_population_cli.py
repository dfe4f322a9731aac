"""`popresume generate`: Parquet out, printed summary, errors leave nothing at the output path."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from popresume.cli import main
from popresume.schema import PROFILE_COLUMNS


def test_generate_writes_parquet_and_summary(tmp_path):
    out = tmp_path / "profiles.parquet"
    res = CliRunner().invoke(main, ["generate", "--out", str(out), "--sizes", "nurse=120,teacher=80", "--seed", "5"])
    assert res.exit_code == 0, res.output
    df = pd.read_parquet(out)
    assert list(df.columns) == list(PROFILE_COLUMNS)
    assert df["occupation"].value_counts().to_dict() == {"nurse": 120, "teacher": 80}
    assert "pct_women" in res.output and "wrote 200 profiles" in res.output
    assert "P2 source 'measured' (default)" in res.output
    again = tmp_path / "again.parquet"
    CliRunner().invoke(main, ["generate", "--out", str(again), "--sizes", "nurse=120,teacher=80", "--seed", "5"])
    assert out.read_bytes() == again.read_bytes()


def test_generate_bad_input_leaves_nothing(tmp_path):
    out = tmp_path / "profiles.parquet"
    for args, msg in ([["--size", "0"], "positive integer"], [["--occupations", "nurse,plumber"], "plumber"],
                      [["--size", "5", "--age-min", "10"], "10-44"], [["--sizes", "nurse=x"], "not an integer"],
                      [["--size", "5", "--experience", "psdi"], "'psdi' is neither a source name"]):
        res = CliRunner().invoke(main, ["generate", "--out", str(out), *args])
        assert res.exit_code != 0
        assert msg in res.output, res.output
        assert not out.exists()
        assert list(tmp_path.iterdir()) == []


def test_generate_refuses_a_size_the_machine_cannot_hold(tmp_path, monkeypatch):
    import popresume.population as pop

    monkeypatch.setattr(pop, "available_memory", lambda: 8 * 2**30)
    out = tmp_path / "profiles.parquet"
    res = CliRunner().invoke(main, ["generate", "--out", str(out), "--size", "100000000"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "500,000,000 profiles" in res.output and "at most 4,194,304" in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1 and not out.exists()
