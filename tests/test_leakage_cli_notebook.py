"""The `popresume leakage` CLI and the chapter, executed with small parameters."""

import pandas as pd
import pytest
from click.testing import CliRunner

from popresume.cli import main


def test_cli_build_and_metrics(tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["leakage", "build", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "620 variants from 20 bases" in res.output
    v = pd.read_parquet(tmp_path / "variants.parquet")
    assert len(v) == 620
    # a hand-made Task 3 replies table through the metrics command
    rows = [dict(judge="j", base_id=f"b{i}", condition=c, tier="T1", rep=0, score=50.0 + i + (c == "Indian"),
                 shortlist=1, parse_ok=True) for i in range(5) for c in ("Anglo", "Indian", "Chinese")]
    pd.DataFrame(rows).to_parquet(tmp_path / "r3.parquet")
    out = tmp_path / "m.csv"
    res = runner.invoke(main, ["leakage", "metrics", str(tmp_path / "r3.parquet"), "--task", "3", "--n-boot", "50",
                               "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "top_score_rate" in res.output and out.exists()
    m = pd.read_csv(out)
    d = m[(m["table"] == "score_differences") & (m["condition"] == "Indian")]
    assert d["difference"].iloc[0] == pytest.approx(1.0)
    res = runner.invoke(main, ["leakage", "run", "--task", "4"])
    assert res.exit_code != 0


@pytest.mark.slow
def test_cli_run_embedding(tmp_path):
    out = tmp_path / "t3.parquet"
    res = CliRunner().invoke(main, ["leakage", "run", "--task", "3", "--limit", "31", "--no-progress",
                                    "--cache", str(tmp_path / "c.sqlite"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    r = pd.read_parquet(out)
    assert len(r) == 31 and r["parse_ok"].all() and r["score"].between(0, 100).all()


@pytest.mark.notebook
@pytest.mark.slow
def test_chapter_runs_with_small_parameters(tmp_path):
    import nbformat

    from popresume.book import run_notebook

    out = run_notebook("notebooks/11_leakage.py", {"n_boot": 50, "smol_pairs": 0}, output=tmp_path / "nb.ipynb",
                       cwd=tmp_path)
    nb = nbformat.read(out, as_version=4)
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.get("name") != "stderr", o.get("text", "")[:500]
            assert o.get("output_type") != "error"
    text = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                   for c in nb.cells for o in c.get("outputs", []))
    assert "620 variants" in text and "overall recovery rate" in text
    # Task 3's Top-Score Rate: the paper's per-base definition beside ours per variant
    assert "per base (paper's definition)" in text and "per variant (ours)" in text
