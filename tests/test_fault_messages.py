"""Errors that name their cause, and advice that names only options the command has.

Each case is a fault found by a trial against a clean clone: a message that named no file
or option ("Singular matrix", "Error writing bytes to file", "expected non-negative
integer") or advised an option the command lacks (``--no-cache`` in ``audit``,
``nested_crossfit=False`` in ``estimate``).
"""

from __future__ import annotations

import errno
import json
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from popresume.cli import VERBS, main
from popresume.cli._errors import SEED


def _one_line_error(res) -> str:
    lines = [line for line in res.output.strip().splitlines() if line.startswith("Error")]
    assert "Traceback" not in res.output, res.output
    assert len(lines) == 1, res.output
    return lines[0]


# -- a full disk names the file it could not write (popresume.io.atomic_path) ---------------------

def _full_disk(monkeypatch):
    def full(self, *args, **kwargs):  # pyarrow's own words, which name no file
        raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)


def test_write_parquet_on_a_full_disk_names_the_file_and_leaves_nothing(tmp_path, monkeypatch):
    from popresume.io import write_parquet

    _full_disk(monkeypatch)
    target = tmp_path / "scores.parquet"
    with pytest.raises(OSError, match=rf"cannot write {re.escape(str(target))}: No space left on device") as info:
        write_parquet(pd.DataFrame({"a": [1]}), target)
    assert info.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary


def test_errno_only_in_the_message_is_found(tmp_path, monkeypatch):
    from popresume.io import write_parquet

    def full(self, *args, **kwargs):
        raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    with pytest.raises(OSError, match="cannot write .*x.parquet: No space left on device"):
        write_parquet(pd.DataFrame({"a": [1]}), tmp_path / "x.parquet")


def test_other_errors_inside_the_write_keep_their_own_message(tmp_path):
    from popresume.io import atomic_path

    with pytest.raises(ConnectionError, match="dropped"):  # a download that fails is not a write error
        with atomic_path(tmp_path / "data.zip"):
            raise ConnectionError("dropped")


def test_score_out_on_a_full_disk_names_the_output(tmp_path, monkeypatch):
    from popresume.population import generate_population

    profiles = generate_population(["nurse"], 4, seed=0)
    resumes = profiles[["resume_id", "occupation"]].assign(text="Registered nurse, ten years.")
    profiles.to_parquet(tmp_path / "profiles.parquet")
    resumes.to_parquet(tmp_path / "resumes.parquet")
    _full_disk(monkeypatch)
    out = tmp_path / "scores.parquet"
    res = CliRunner().invoke(main, ["score", "--resumes", str(tmp_path / "resumes.parquet"), "--profiles",
                                    str(tmp_path / "profiles.parquet"), "--screener", "synthetic", "--no-cache",
                                    "--quiet", "--out", str(out)])
    assert res.exit_code == 1
    assert f"cannot write {out}: No space left on device" in _one_line_error(res)
    assert not out.exists()


# -- --seed is checked at parse time, in every command that has one ---------------------------

def test_every_seed_option_is_a_seed():
    seeded = []
    for verb in VERBS:
        command = main.get_command(None, verb)
        commands = getattr(command, "commands", {}).values() if command is not None else []
        for cmd in [command, *commands]:
            for param in getattr(cmd, "params", []):
                if param.name == "seed":
                    assert param.type is SEED, f"{verb} {cmd.name}: --seed is {param.type!r}"
                    seeded.append(cmd.name)
    assert len(seeded) >= 8  # generate, render, validate, estimate, audit, correspondence, ranking, leakage


def test_negative_seed_names_the_option(tmp_path):
    res = CliRunner().invoke(main, ["generate", "--out", str(tmp_path / "p.parquet"), "--size", "5", "--seed", "-1"])
    assert res.exit_code == 2 and "--seed" in res.output and "-1" in res.output, res.output
    assert not (tmp_path / "p.parquet").exists()


# -- a ranking job with too few runs for the conditional logit ---------------------------------

def test_ranking_job_with_one_run_names_the_job_not_a_singular_matrix(tmp_path):
    names = ["AL BO", "CY DU", "EL FA", "GU HI", "IV JO", "KA LE", "MO NU", "OP QU"]
    demos = ["A_M", "A_W", "B_M", "B_W", "H_M", "H_W", "W_M", "W_W"]
    run = tmp_path / "runs" / "gpt-4" / "plumber" / "1121"
    run.mkdir(parents=True)
    reply = "\n".join(f"{k}. {n.title()}" for k, n in enumerate(names, start=1))
    (run / "run_0.json").write_text(json.dumps({"choices": [{"message": {"content": reply}}],
                                                "context": {"job": "plumber", "default_order": names,
                                                            "demo_order": demos}}))
    res = CliRunner().invoke(main, ["ranking", "--out", str(tmp_path / "o"), "--runs-dir", str(tmp_path / "runs"),
                                    "--no-screeners", "--n-sim", "20", "--no-figures"])
    # the logit sets aside the terms one run cannot identify, each with its reason, instead
    # of failing on a singular matrix
    assert res.exit_code == 0, res.output
    assert "Singular matrix" not in res.output and "Traceback" not in res.output
    fits = pd.read_csv(tmp_path / "o" / "clogit.csv")
    job = fits[fits["job"] == "plumber"]
    assert len(job) and not job["estimable"].all() and (job.loc[~job["estimable"], "reason"].str.len() > 0).all()


# -- advice names options the command has -----------------------------------------------------

def _options(verb: str) -> set[str]:
    return {opt for param in main.get_command(None, verb).params for opt in getattr(param, "opts", [])}


def test_corrupt_cache_advice_names_only_options_each_command_has(tmp_path):
    from popresume.screeners.cache import CacheError

    message = str(CacheError(tmp_path / "c.sqlite", "file is not a database"))
    with_no_cache = re.search(r"--no-cache in ([a-z, ]+?);", message).group(1).replace(" and ", ", ").split(", ")
    assert with_no_cache == ["score", "validate", "correspondence"]
    for verb in with_no_cache:
        assert "--no-cache" in _options(verb), verb
    assert "--cache OTHER_FILE in audit" in message
    assert "--cache" in _options("audit") and "--no-cache" not in _options("audit")


def test_estimate_two_folds_advice_names_no_missing_option():
    res = CliRunner().invoke(main, ["estimate", "--profiles", __file__, "--scores", __file__, "--folds", "2",
                                    "--out", "never.csv"])
    assert res.exit_code == 1
    line = _one_line_error(res)
    assert "--folds" in line and "folds >= 3" in line
    # the other remedy is named as this command's option (generated from the spec's field)
    assert "or turn nesting off with --no-nested-crossfit" in line and "--nested-crossfit" in _options("estimate")
