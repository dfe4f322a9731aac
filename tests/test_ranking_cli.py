"""``popresume ranking``: the fixed-column tables, and one-line errors for bad input."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from popresume.cli import main

FAST = ["--n-sim", "200", "--no-clogit", "--no-figures"]


def test_cli_writes_the_tables_with_their_columns(tmp_path):
    out = tmp_path / "r"
    res = CliRunner().invoke(main, ["ranking", "--out", str(out), "--model", "gpt-4", *FAST])
    assert res.exit_code == 0, res.output
    assert "32/32 cells reproduced" in res.output
    pub = pd.read_csv(out / "published_reproduced.csv")
    assert pub.columns.tolist() == ["model", "job", "demo", "top", "selection_rate", "disparate_impact_ratio"]
    assert len(pub) == 32 and set(pub["model"]) == {"gpt-4"}
    pos = pd.read_csv(out / "position.csv")
    assert pos.columns.tolist() == ["model", "job", "position", "n_runs", "top_rate"]
    assert pos.groupby(["model", "job"])["top_rate"].sum().round(9).eq(1).all()
    ch = pd.read_csv(out / "chance.csv")
    assert ch.columns.tolist()[:5] == ["model", "job", "min_max_ratio", "null_p", "flag_rate_under_null"]
    assert ch["null_p"].between(0, 1).all()
    scr = pd.read_csv(out / "screeners.csv")
    assert scr["validity"].notna().all()  # each screener's verdict beside its rows
    assert (pos["model"] != "gpt-4").any()  # our screeners sit in the same tables


def _write_run(root, model, job, name, obj):
    d = root / model / job / "1121"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(json.dumps(obj))


def _run(names, reply):
    return {"choices": [{"message": {"content": reply}}],
            "context": {"job": "retail", "default_order": names, "demo_order": ["A_M", "B_W"]}}


def test_cli_reads_a_run_folder_and_refuses_bad_runs(tmp_path):
    root = tmp_path / "runs"
    _write_run(root, "gpt-4", "retail", "run_0.json", _run(["AL BO", "CY DU"], "1. Cy Du\n2. Al Bo"))
    _write_run(root, "gpt-4", "retail", "run_1.json", _run(["EL FA", "GU HI"], "1. El Fa"))
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "o"), "--runs-dir", str(root),
                                    "--no-screeners", *FAST])
    assert res.exit_code == 0, res.output
    pos = pd.read_csv(tmp_path / "o" / "position.csv")
    assert pos["top_rate"].tolist() == [0.5, 0.5]

    bad = tmp_path / "bad"
    _write_run(bad, "gpt-4", "retail", "run_0.json", {"choices": [{"message": {"content": "x"}}]})
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "o2"), "--runs-dir", str(bad), *FAST])
    assert res.exit_code == 1 and "run_0.json: run file has no 'context'" in res.output
    assert len(res.output.strip().splitlines()) == 1

    bad2 = tmp_path / "bad2"
    obj = _run(["AL BO", "CY DU"], "x")
    obj["choices"][0]["message"]["content"] = ["AL BO"]
    _write_run(bad2, "gpt-4", "retail", "run_0.json", obj)
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "o3"), "--runs-dir", str(bad2), *FAST])
    assert res.exit_code == 1 and "is not a string but list" in res.output

    bad3 = tmp_path / "bad3"
    _write_run(bad3, "gpt-5", "retail", "run_0.json", _run(["AL BO", "CY DU"], "x"))
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "o4"), "--runs-dir", str(bad3), *FAST])
    assert res.exit_code == 1 and "unknown model 'gpt-5'" in res.output


def test_cli_refuses_an_unknown_model(tmp_path):
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "o"), "--model", "claude", *FAST])
    assert res.exit_code == 1 and "unknown model 'claude'" in res.output


def test_runs_without_a_resume_column_still_get_the_conditional_logit():
    """A run folder read with --runs-dir has no résumé-template column: the logit leaves
    that term out instead of stopping the whole command."""
    from popresume.ranking import bloomberg as bb
    from popresume.ranking.report import ranking_tables

    long = bb.load_bloomberg_ranks(["gpt-4"])
    long = long[long["job"] == long["job"].iloc[0]].drop(columns=["resume"])
    T = ranking_tables(long, published=None, n_sim=50)
    cl = T["clogit"]
    assert len(cl) == 2 * 7  # seven group terms (reference W_M), with and without position
    assert set(cl["spec"]) == {"group + position", "group"}
    assert cl["p_group_holm"].between(0, 1).all()


def _refused(tmp_path, root):
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "out"), "--runs-dir", str(root), *FAST])
    assert res.exit_code == 1, res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
    return res.output


EIGHT = ["A_M", "A_W", "B_M", "B_W", "H_M", "H_W", "W_M", "W_W"]


def test_runs_dir_refuses_repeated_names_and_a_run_of_another_size(tmp_path):
    root = tmp_path / "same"
    obj = _run(["AL BO"] * 8, "1. Al Bo")
    obj["context"]["demo_order"] = EIGHT
    _write_run(root, "gpt-4", "retail", "run_7.json", obj)
    out = _refused(tmp_path, root)
    assert "run_7.json" in out and "'al bo' is shown 8 times in one run" in out

    root = tmp_path / "nine"
    good = _run([f"N{i} X" for i in range(8)], "1. N0 X")
    good["context"]["demo_order"] = EIGHT
    _write_run(root, "gpt-4", "retail", "run_0.json", good)
    nine = _run([f"M{i} Y" for i in range(9)], "1. M0 Y")
    nine["context"]["demo_order"] = EIGHT + ["W_W"]
    _write_run(root, "gpt-4", "retail", "run_1.json", nine)
    out = _refused(tmp_path, root)
    assert "run_1.json" in out and "group code 'W_W' is shown 2 times" in out

    root = tmp_path / "seven"
    _write_run(root, "gpt-4", "retail", "run_0.json", good)
    seven = _run([f"M{i} Y" for i in range(7)], "1. M0 Y")
    seven["context"]["demo_order"] = EIGHT[:7]
    _write_run(root, "gpt-4", "retail", "run_1.json", seven)
    _write_run(root, "gpt-4", "retail", "run_2.json", good)
    out = _refused(tmp_path, root)
    assert "run_1.json: run run_1 shows 7 names, the other runs of gpt-4/retail show 8" in out


def test_runs_dir_bad_json_shapes_are_one_line_naming_the_file(tmp_path):
    root = tmp_path / "eight"
    obj = _run(["AL BO", "CY DU"], "x")
    obj["context"]["default_order"] = 8
    _write_run(root, "gpt-4", "retail", "run_0.json", obj)
    out = _refused(tmp_path, root)
    assert "run_0.json: context's 'default_order' must be a list of strings, got int 8" in out

    root = tmp_path / "deep"
    d = root / "gpt-4" / "retail" / "1121"
    d.mkdir(parents=True)
    (d / "run_0.json").write_text("[" * 100_000 + "]" * 100_000)
    out = _refused(tmp_path, root)
    assert "run_0.json: JSON nested too deeply" in out

    root = tmp_path / "latin1"
    d = root / "gpt-4" / "retail" / "1121"
    d.mkdir(parents=True)
    (d / "run_0.json").write_bytes(json.dumps(_run(["AL BO", "CY DU"], "1. Al Bo")).encode() + b"\xff\xfe")
    out = _refused(tmp_path, root)
    assert "run_0.json: not UTF-8 text" in out
