"""``popresume score``: output table, summary line, cache reuse, clear errors."""

import pandas as pd
from click.testing import CliRunner

from popresume.cli import main


def _inputs(tmp_path, n=12):
    prof = pd.DataFrame({"resume_id": [f"nurse-{i:06d}" for i in range(n)], "occupation": "nurse",
                         "gender": ["F", "M"] * (n // 2), "race": "White", "age": 30, "edu_group": "high",
                         "exp_year": list(range(n)), "fn_gender": "neutral", "surname_group": "White",
                         "region": "West", "race_binary": "White"})
    res = prof[["resume_id", "occupation"]].assign(text=[f"Nurse résumé {i}" for i in range(n)])
    prof.to_parquet(tmp_path / "p.parquet")
    res.to_parquet(tmp_path / "r.parquet")
    (tmp_path / "jobs.json").write_text('{"nurse": "Registered nurse wanted."}')
    return prof, res


def test_score_cli_synthetic_then_cached(tmp_path):
    prof, res = _inputs(tmp_path)
    args = ["score", "--resumes", str(tmp_path / "r.parquet"), "--profiles", str(tmp_path / "p.parquet"),
            "--screener", "synthetic", "--cache", str(tmp_path / "c.sqlite"), "--jobs", str(tmp_path / "jobs.json"),
            "-o", "noise_sd=0", "--out", str(tmp_path / "s.parquet"), "--quiet"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert "scored 12, cached 0" in r.output and "parse rate 100.0%" in r.output and "throughput" in r.output
    out = pd.read_parquet(tmp_path / "s.parquet")
    assert list(out.columns) == ["resume_id", "screener", "model", "score", "parse_ok", "raw", "scoring"]
    assert (out["scoring"] == "direct").all()  # not a generative screener
    assert out["resume_id"].tolist() == res["resume_id"].tolist() and out["parse_ok"].all()
    r2 = CliRunner().invoke(main, args)
    assert r2.exit_code == 0 and "scored 0, cached 12" in r2.output
    pd.testing.assert_frame_equal(out, pd.read_parquet(tmp_path / "s.parquet"))


def test_score_cli_errors(tmp_path):
    _inputs(tmp_path)
    base = ["score", "--resumes", str(tmp_path / "r.parquet"), "--jobs", str(tmp_path / "jobs.json"),
            "--out", str(tmp_path / "s.parquet"), "--no-cache", "--quiet"]
    r = CliRunner().invoke(main, base + ["--screener", "synthetic"])
    assert r.exit_code != 0 and "give --profiles" in r.output
    r = CliRunner().invoke(main, base + ["--screener", "synthetic", "--concurrency", "4"])
    assert r.exit_code != 0 and "openai backend only" in r.output
    r = CliRunner().invoke(main, base + ["--screener", "nonsense"])
    assert r.exit_code != 0 and "unknown screener kind" in r.output
    assert not (tmp_path / "s.parquet").exists()
