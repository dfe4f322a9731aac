"""User errors on the command line: one ``Error:`` line naming the file, column or key, no
traceback (``--debug`` shows one), checked before any work, files written with the umask's mode."""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

from popresume.io import read_parquet, write_parquet, write_table

EST = ("--no-tune", "--n-boot", "0", "--folds", "3", "--quiet")


def one_error_line(r) -> str:
    """The run failed with exit 1 and a single ``Error:`` line, no traceback."""
    assert r.exit_code == 1, r.output + repr(r.exception)
    assert "Traceback" not in r.output
    errors = [ln for ln in r.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, r.output
    return errors[0]


@pytest.fixture
def bad_inputs(estimate_files, tmp_path):
    p = pd.read_parquet(estimate_files / "p.parquet")
    s = pd.read_parquet(estimate_files / "s.parquet")
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1 this is not a parquet file")
    s.iloc[: len(s) // 2].to_parquet(tmp_path / "half.parquet")
    s.assign(score=np.nan).to_parquet(tmp_path / "nan.parquet")
    s.drop(columns=["score"]).to_parquet(tmp_path / "noscore.parquet")
    p.assign(gender="F").to_parquet(tmp_path / "women.parquet")
    p.drop(columns=["surname"]).to_parquet(tmp_path / "nosurname.parquet")
    return tmp_path


def test_output_suffix_refused_before_any_work(cli, estimate_files, tmp_path):
    out = tmp_path / "e.txt"
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", estimate_files / "s.parquet",
            *EST, "--out", out)
    assert r.exit_code == 2  # a usage error, raised while the options are parsed
    assert f"table '{out}' must end in .csv or .json or .parquet (got '.txt')" in r.output
    assert "matched" not in r.output and not out.exists()  # nothing was read or estimated
    r = cli("generate", "--out", tmp_path / "p.csv", "--size", "20")
    assert r.exit_code == 2 and "must end in .parquet (got '.csv')" in r.output
    r = cli("render", "--profiles", estimate_files / "p.parquet", "--out", tmp_path / "r.txt")
    assert one_error_line(r) .startswith(f"Error: --out '{tmp_path / 'r.txt'}' must end in .parquet")


def test_output_folder_must_be_writable(cli, estimate_files, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", estimate_files / "s.parquet",
            *EST, "--out", blocker / "e.csv")
    assert r.exit_code == 2 and "is not a writable folder" in r.output


@pytest.mark.parametrize("profiles,scores,needle", [
    ("p", "corrupt", "scores file {d}/corrupt.parquet is not a readable Parquet file"),
    ("corrupt", "s", "profiles file {d}/corrupt.parquet is not a readable Parquet file"),
    ("p", "noscore", "scores file {d}/noscore.parquet has no column 'score'"),
    ("nosurname", "s", "profile table has no column 'surname'"),
    ("women", "s", "column 'gender' in {d}/women.parquet has no scored résumé with gender='M'"),
    ("p", "nan", "all 600 scores in {d}/nan.parquet are missing (NaN)"),
    ("p", "half", "do not match: matched 300 résumés: 300 of 600 profiles have no score, 0 of 300 scores "
                  "have no profile (50.0% unmatched, more than --max-unmatched 1.0%)"),
])
def test_estimate_input_errors_are_one_line(cli, estimate_files, bad_inputs, profiles, scores, needle):
    def where(name):
        return (estimate_files if name in ("p", "s") else bad_inputs) / f"{name}.parquet"

    out = bad_inputs / "e.csv"
    r = cli("estimate", "--profiles", where(profiles), "--scores", where(scores), *EST, "--out", out)
    line = one_error_line(r)
    assert needle.format(d=bad_inputs) in line, line
    assert not out.exists()


def test_unmatched_ids_reported_and_accepted_on_request(cli, estimate_files, bad_inputs):
    out = bad_inputs / "e.csv"
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", bad_inputs / "half.parquet",
            *EST, "--max-unmatched", "1", "--out", out)
    assert r.exit_code == 0, r.output
    assert "matched 300 résumés: 300 of 600 profiles have no score" in r.output
    assert pd.read_csv(out, index_col=0)["n"].iloc[0] == 299  # 300 matched, one of them a parse failure
    # results are printed before the file is written
    assert r.output.index("cases (paper rule)") < r.output.index(f"wrote {out}")


def test_debug_shows_the_traceback(cli, estimate_files, bad_inputs):
    args = ("estimate", "--profiles", estimate_files / "p.parquet", "--scores", bad_inputs / "corrupt.parquet",
            *EST, "--out", bad_inputs / "e.csv")
    r = cli("--debug", *args)
    assert r.exit_code == 1 and isinstance(r.exception, ValueError)
    assert "corrupt.parquet is not a readable Parquet file" in str(r.exception)
    r = cli(*args, env={"POPRESUME_DEBUG": "1"})
    assert isinstance(r.exception, ValueError)
    r = cli(*args)
    assert isinstance(r.exception, SystemExit) and "[popresume --debug: traceback]" in r.output


def test_render_bad_profiles_are_one_line(cli, bad_inputs):
    line = one_error_line(cli("render", "--profiles", bad_inputs / "nosurname.parquet", "--out",
                              bad_inputs / "r.parquet"))
    assert f"profiles file {bad_inputs}/nosurname.parquet has no column 'surname'" in line
    line = one_error_line(cli("render", "--profiles", bad_inputs / "corrupt.parquet", "--out",
                              bad_inputs / "r.parquet"))
    assert "is not a readable Parquet file (Parquet magic bytes not found in footer)" in line


def test_audit_config_errors_are_one_line(cli, tmp_path):
    cfg = tmp_path / "grid.yaml"
    cfg.write_text("occupations: [nurse]\nformats: [text]\nattributes: [gender]\nsizes: 40\n"
                   "estimator: {tunee: false}\nscreeners: [synthetic]\n")
    line = one_error_line(cli("audit", "--config", cfg, "--out", tmp_path / "r.csv", "--cache-dir", tmp_path))
    assert line.startswith(f"Error: {cfg}, line 5: estimator.tunee: unknown key 'tunee'; known keys:")
    cfg.write_text("occupations: [nurse\nformats: [text]\n")
    line = one_error_line(cli("audit", "--config", cfg, "--out", tmp_path / "r.csv", "--cache-dir", tmp_path))
    assert line.startswith(f"Error: {cfg}, line 2: YAML syntax error, column 8:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.yaml"]  # no work, no cache


def test_score_never_writes_parquet_bytes_into_csv(cli, estimate_files, tmp_path):
    out = tmp_path / "s.csv"
    r = cli("score", "--resumes", estimate_files / "p.parquet", "--profiles", estimate_files / "p.parquet",
            "--screener", "synthetic", "--no-cache", "--quiet", "--out", out)
    assert r.exit_code in (1, 2) and "must end in .parquet" in r.output and "Traceback" not in r.output
    assert not out.exists()


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_written_files_follow_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        df = pd.DataFrame({"a": [1, 2]})
        for p in (write_parquet(df, tmp_path / "t.parquet"), write_table(df, tmp_path / "t.csv")):
            assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask, p
    finally:
        os.umask(old)


def test_replacing_a_file_keeps_its_mode(tmp_path):
    p = tmp_path / "t.parquet"
    write_parquet(pd.DataFrame({"a": [1]}), p)
    p.chmod(0o600)
    write_parquet(pd.DataFrame({"a": [2]}), p)
    assert stat.S_IMODE(p.stat().st_mode) == 0o600 and read_parquet(p)["a"].tolist() == [2]


def test_read_parquet_names_file_and_column(tmp_path):
    with pytest.raises(FileNotFoundError, match="scores file not found: .*missing.parquet"):
        read_parquet(tmp_path / "missing.parquet", what="scores")
    write_parquet(pd.DataFrame({"a": [1]}), tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"t\.parquet has no column 'b'; its columns: \['a'\]"):
        read_parquet(tmp_path / "t.parquet", columns=["a", "b"])


def test_estimator_all_missing_scores_says_so():
    """The library too: all-NaN scores are named as such, not as a missing level of X."""
    from popresume.causal import estimate_pse, make_scm

    d = make_scm("basic").sample(200, seed=1)
    d["y"] = np.nan
    with pytest.raises(ValueError, match=r"every one of the 200 rows has a missing value \(missing values in \{'y': 200\}"):
        estimate_pse(d, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y", folds=3, n_boot=0, tune=False,
                     missing="drop")


def test_a_server_that_refuses_every_request_is_one_line_in_every_verb(cli, monkeypatch, tmp_path):
    """A FatalHTTPError (the same refusal on every request) stops `validate` as it stops
    `score`: one line, exit 1, no traceback, through the CLI's shared error group."""
    from popresume.screeners import validity
    from popresume.screeners.openai_http import FatalHTTPError

    def refuse(*args, **kwargs):
        raise FatalHTTPError("HTTP 404 on every request: model 'nosuch' does not exist")

    monkeypatch.setattr(validity, "validity_card", refuse)
    r = cli("validate", "--screener", "synthetic", "--n", 5, "--out", tmp_path / "card.json", "--quiet")
    assert r.exit_code == 1
    assert "model 'nosuch' does not exist" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "card.json").exists()


def test_missing_columns_read_the_same_everywhere():
    """Every check of a user's table raises the one message of popresume.errors, naming the
    table, the column and the columns it has."""
    import pandas as pd

    from popresume.audit.coarsening import name_shares
    from popresume.correspondence.names import bm_names
    from popresume.errors import MISSING_COLUMN
    from popresume.leakage.metrics import boot_means

    bad = pd.DataFrame({"x": [1]})
    for call, what in ((lambda: bm_names(bad), "name table"),
                       (lambda: name_shares(bad), "reference population"),
                       (lambda: boot_means(bad, "v", [], cluster="c"), "table")):
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value).startswith(f"{what} has no column ") and "its columns: ['x']" in str(err.value)
    assert MISSING_COLUMN.startswith("{what} has no column")
