"""Faults and bad input, round four (issue 39): an auditor's own file of decisions
(``audit --decisions``), the ``decisions`` command, and the command-line names.

Each test builds the bad input itself and checks the refusal names the column, row, value
or option, or that the input is handled (exit 0). Spies on the readers check that a refusal
comes before the rows are loaded, and that only the mapped columns are read.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

FAST = ["--n-sim", "200"]


def _frame(n=120, seed=0, race=("White", "Black", "Asian")):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["F", "M"], n), "race": rng.choice(list(race), n),
                         "score": rng.normal(50, 10, n).round(2)})


def _audit(cli, path, out, *extra):
    return cli("audit", "--decisions", path, "--report", out, *FAST, *extra)


def _refused(res, *words):
    assert res.exit_code != 0, res.output
    line = res.output.strip().splitlines()[-1]
    for w in words:
        assert w in line, line
    return line


# ----------------------------------------------------------------------- 1, 10: the outcome
@pytest.mark.parametrize("bad, row", [("2", 3), ("-1", 3), ("0.5", 3)])
def test_a_selected_column_holding_other_than_0_1_is_refused_naming_row_and_value(cli, tmp_path, bad, row):
    df = _frame(6).drop(columns="score")
    df["selected"] = ["1", "0", bad, "1", "0", "1"]
    df.to_csv(tmp_path / "d.csv", index=False)
    _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep"), "'selected'", f"row {row}", repr(bad))
    assert not (tmp_path / "rep").exists()


def test_the_bad_selection_word_is_named_not_the_first_word(cli, tmp_path):
    df = _frame(6).drop(columns="score")
    df["selected"] = ["yes", "no", "maybe", "yes", "no", "no"]
    df.to_csv(tmp_path / "d.csv", index=False)
    line = _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep"), "'maybe'", "row 3")
    assert "'yes'" not in line
    df["sel"] = df.pop("selected")  # under another name too (--outcome-col)
    df.to_csv(tmp_path / "e.csv", index=False)
    _refused(_audit(cli, tmp_path / "e.csv", tmp_path / "rep", "--outcome-col", "sel"), "'maybe'", "row 3")


# ----------------------------------------------------------------------- 2, 3: columns
def test_one_column_in_two_roles_is_refused(cli, tmp_path):
    _frame().to_csv(tmp_path / "d.csv", index=False)
    _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep", "--sex-col", "race"), "'race'", "--sex-col",
             "--race-col")
    _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep", "--outcome-col", "sex"), "'sex'", "--outcome-col")


def test_a_duplicated_header_is_refused_in_csv_and_parquet(cli, tmp_path):
    df = _frame(30)
    text = df.to_csv(index=False).splitlines()
    rows = [text[0] + ",score"] + [r + ",1" for r in text[1:]]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep"), "'score'", "2 times")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(df["sex"]), pa.array(df["race"]), pa.array(df["score"]),
                                  pa.array(df["sex"])], names=["sex", "race", "score", "sex"])
    pq.write_table(table, tmp_path / "d.parquet")
    line = _refused(_audit(cli, tmp_path / "d.parquet", tmp_path / "rep"), "'sex'", "2 times")
    assert "not a Parquet file" not in line


# ----------------------------------------------------------------------- 4: invisible characters
@pytest.mark.parametrize("mark", ["\u200b", "\u202e", "\u2066", "\x00", "\x1b[31m"])
def test_invisible_or_control_characters_in_category_names_are_refused(cli, tmp_path, mark):
    df = _frame(30)
    df.loc[4, "race"] = "White" + mark
    df.to_parquet(tmp_path / "d.parquet")  # Parquet keeps NUL, which a CSV reader may not
    _refused(_audit(cli, tmp_path / "d.parquet", tmp_path / "rep"), "column 'race'", "row 5")


# ----------------------------------------------------------------------- 5: many categories
def _pairwise_loop(selected, n, reference, level=0.95):
    """The former one-pair-at-a-time ll144.pairwise_ratio_bounds: the reference of the fast one."""
    from popresume.ll144 import rate_ratio_interval

    x = np.asarray(selected, float)
    size = np.broadcast_to(np.asarray(n, float), x.shape)
    ref = np.asarray(reference, bool) & (np.asarray(n) > 0)
    rated = np.asarray(n) > 0
    k = x.shape[-1]
    pairs = [(i, j) for i in range(k) for j in range(k) if rated[i] and ref[j] and (i < j or (i > j and not ref[i]))]
    alpha = (1 - level) / max(len(pairs), 1)
    low = np.where(ref, 1.0, np.inf) * np.ones(x.shape)
    high = low.copy()
    for i, j in pairs:
        lo, hi = rate_ratio_interval(x[..., i], size[..., i], x[..., j], size[..., j], alpha=alpha)
        low[..., i] = np.minimum(low[..., i], lo)
        high[..., i] = np.minimum(high[..., i], hi)
        if ref[i]:
            with np.errstate(divide="ignore"):
                low[..., j] = np.minimum(low[..., j], 1 / hi)
                high[..., j] = np.minimum(high[..., j], 1 / lo)
    return np.where(rated, low, np.nan), np.where(rated, high, np.nan)


@pytest.mark.parametrize("seed", range(6))
def test_the_vectorised_pairwise_bounds_equal_the_pair_by_pair_ones(seed):
    from popresume.ll144 import pairwise_ratio_bounds

    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 8))
    n = rng.integers(0, 60, k)
    n[rng.integers(k)] = max(n.max(), 5)  # at least one rated category
    ref = rng.random(k) < 0.7
    ref[np.argmax(n)] = True
    x = rng.binomial(n, rng.uniform(0, 1, k), size=(5, k)) if seed % 2 else rng.binomial(n, 0.4)
    x[..., 0] = 0  # a category nobody selected
    got = pairwise_ratio_bounds(x, n, ref)
    want = _pairwise_loop(x, n, ref)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_column_of_200_values_is_refused_at_once_and_50_are_audited(cli, tmp_path):
    df = _frame(200)
    df["race"] = [f"id{i:03d}" for i in range(200)]  # an identifier passed as the race column
    df.to_csv(tmp_path / "ids.csv", index=False)
    t = time.perf_counter()
    _refused(_audit(cli, tmp_path / "ids.csv", tmp_path / "rep"), "column 'race'", "200 distinct values")
    assert time.perf_counter() - t < 5
    df["race"] = [f"r{i % 50:02d}" for i in range(200)]
    df.to_csv(tmp_path / "fifty.csv", index=False)
    t = time.perf_counter()
    res = _audit(cli, tmp_path / "fifty.csv", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    assert time.perf_counter() - t < 30
    assert len(pd.DataFrame(json.loads((tmp_path / "rep" / "report.json").read_text())["ll144"])
               .query("breakdown == 'race'")) == 50


# ----------------------------------------------------------------------- 6, 7, 11: size first
def _spy(monkeypatch, module, name, calls):
    real = getattr(module, name)

    def spy(*a, **k):
        calls.append((name, k))
        return real(*a, **k)

    monkeypatch.setattr(module, name, spy)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_too_many_rows_are_refused_before_the_rows_are_read(cli, tmp_path, monkeypatch, suffix):
    import pyarrow.parquet as pq

    from popresume.audit import report_decisions

    df = _frame(50)
    path = tmp_path / f"d{suffix}"
    df.to_parquet(path) if suffix == ".parquet" else df.to_csv(path, index=False)
    monkeypatch.setattr(report_decisions, "MAX_ROWS", 40)
    calls = []
    for module, name in ((pd, "read_parquet"), (pd, "read_csv"), (pq, "read_table")):
        _spy(monkeypatch, module, name, calls)
    _refused(_audit(cli, path, tmp_path / "rep"), "50", "at most 40")
    assert calls == []


def test_too_many_draws_for_the_file_name_its_rows_not_a_flag_it_lacks(cli, tmp_path, monkeypatch):
    from popresume.audit import report_run

    _frame(50).to_csv(tmp_path / "d.csv", index=False)
    monkeypatch.setattr(report_run, "MAX_DRAWS_TIMES_N", 1000)
    calls = []
    _spy(monkeypatch, pd, "read_csv", calls)
    line = _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep"), "--n-sim 200", "50 rows")
    assert "--n " not in line and calls == []


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_only_the_mapped_columns_are_read(cli, tmp_path, monkeypatch, suffix):
    import pyarrow.parquet as pq

    df = _frame(60)
    df["job"] = "nurse"
    for i in range(40):  # columns the audit does not map
        df[f"extra{i}"] = "x" * 50
    path = tmp_path / f"d{suffix}"
    df.to_parquet(path) if suffix == ".parquet" else df.to_csv(path, index=False)
    calls = []
    for module, name in ((pd, "read_parquet"), (pd, "read_csv"), (pq, "read_table")):
        _spy(monkeypatch, module, name, calls)
    res = _audit(cli, path, tmp_path / "rep")
    assert res.exit_code == 0, res.output
    reads = [k for name, k in calls if k.get("nrows") != 0]
    assert reads, calls
    assert all(set(k.get("usecols") or k.get("columns") or ()) == {"sex", "race", "score", "job"} for k in reads)


# ----------------------------------------------------------------------- 9: labels shown literally
def test_category_names_with_dollars_are_shown_literally_and_the_run_exits_0(cli, tmp_path):
    from matplotlib import cbook
    from matplotlib.figure import Figure

    from popresume.plots.audit import ll144_figure

    names = ["White ($^$)", "$\\frac{$", "$50k-$100k"]
    _frame(150, race=names).to_csv(tmp_path / "d.csv", index=False)
    res = _audit(cli, tmp_path / "d.csv", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    table = pd.DataFrame(rep["ll144"])
    assert set(names) <= set(table["category"])
    page = (tmp_path / "rep" / "report.html").read_text()
    assert all(name in page for name in names)  # the table's cells (no character of these needs escaping)
    fig = ll144_figure(table, figure=Figure())
    fig.canvas.draw()  # mathtext would raise on "White ($^$)"
    shown = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert not any(cbook.is_math_text(s) for s in shown)  # drawn as text, with "\$" shown as "$"
    assert {f"race: {n}" for n in names} <= {s.replace("\\$", "$") for s in shown}


# ----------------------------------------------------------------------- 8, 16: the decisions command
def test_decisions_n_sim_is_bounded_before_any_work(cli, tmp_path, monkeypatch):
    from popresume.decisions import sources

    def never(*a, **k):
        raise AssertionError("a source was loaded")

    monkeypatch.setattr(sources, "load", never)
    t = time.perf_counter()
    res = cli("decisions", "--out", tmp_path / "out", "--n-sim", "1000000000")
    assert time.perf_counter() - t < 5
    assert res.exit_code == 2 and "--n-sim" in res.output and "1000000000" in res.output, res.output
    assert not (tmp_path / "out").exists()


def _fail_at(monkeypatch, name, call):
    import errno
    import os

    real, calls = getattr(os, name), []

    def fail(*a, **k):
        calls.append(a)
        if len(calls) == call:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*a, **k)

    monkeypatch.setattr(os, name, fail)


def test_decisions_tables_are_written_as_a_set(cli, tmp_path, monkeypatch):
    from popresume.decisions import analyses, sources

    def published(records, *, n_sim, seed):  # the analysis is not under test here, the writing is (fast)
        return pd.DataFrame([[f"audit{seed}"] + [n_sim] * (len(analyses.LL144_OUT_COLUMNS) - 1)],
                            columns=analyses.LL144_OUT_COLUMNS)

    monkeypatch.setattr(sources, "load", lambda name: pd.DataFrame())
    monkeypatch.setattr(analyses, "ll144_published", published)
    monkeypatch.setattr(analyses, "ll144_file", lambda table: table)
    out = tmp_path / "out"
    args = ("decisions", "--source", "aclu_ll144", "--n-sim", "20", "--out", out)
    with monkeypatch.context() as m:  # a full disk on a first run into a new folder
        _fail_at(m, "fsync", 2)
        res = cli(*args)
    assert res.exit_code == 1 and "nothing written" in res.output, res.output
    assert not out.exists()  # the new folder is not left empty
    assert cli(*args).exit_code == 0
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(old) == {"validity.csv", "group_effects.csv", "noise_floor.csv", "ll144_published.csv"}
    args = ("decisions", "--source", "aclu_ll144", "--n-sim", "30", "--seed", "5", "--out", out)
    for name, call in (("fsync", 3), ("replace", 2)):  # the disk fills while writing, or while moving
        with monkeypatch.context() as m:
            _fail_at(m, name, call)
            res = cli(*args)
        assert res.exit_code == 1, res.output
        assert {p.name: p.read_bytes() for p in out.iterdir()} == old  # no table of the new run, no temporary


def test_a_new_report_folder_is_not_left_empty_after_nothing_written(cli, tmp_path, monkeypatch):
    _frame().to_csv(tmp_path / "d.csv", index=False)
    with monkeypatch.context() as m:
        _fail_at(m, "fsync", 1)
        res = _audit(cli, tmp_path / "d.csv", tmp_path / "new" / "rep")
    assert res.exit_code == 1 and "nothing written" in res.output, res.output
    assert not (tmp_path / "new" / "rep").exists()


# ----------------------------------------------------------------------- 12-15: the command line's words
def test_separation_in_the_tools_own_profiles_advises_a_larger_n(cli, tmp_path):
    res = cli("audit", "--screener", "synthetic", "--occupation", "nurse", "--n", "100", "--report", tmp_path / "r",
              "--cache", tmp_path / "c.sqlite", "--no-progress", "--n-boot", "20", "--n-sim", "50",
              "--no-tune", "--card-n", "5")
    line = _refused(res, "perfectly separates", "larger --n", "--n 400", "--profiles")
    assert "Drop or coarsen" not in line


def test_estimate_without_out_prints_the_table(cli, estimate_files):
    d = estimate_files
    res = cli("estimate", "--profiles", d / "p.parquet", "--scores", d / "s.parquet", "--attribute", "gender",
              "--n-boot", "0", "--no-tune", "--quiet")
    assert res.exit_code == 0, res.output
    for effect in ("TE", "NDE", "NIE", "BIE", "RIE"):
        assert any(ln.startswith(effect) for ln in res.output.splitlines()), res.output
    assert "the table is printed only" in res.output


def test_score_names_the_profiles_option_not_the_python_argument(cli, tmp_path):
    from popresume.population import generate_population
    from popresume.resumes import render_texts

    render_texts(generate_population(["nurse"], {"nurse": 5}, seed=0)).to_parquet(tmp_path / "r.parquet")
    res = cli("score", "--resumes", tmp_path / "r.parquet", "--screener", "synthetic", "--no-cache",
              "--out", tmp_path / "s.parquet", "--quiet")
    line = _refused(res, "--profiles")
    assert "profiles=" not in line and not (tmp_path / "s.parquet").exists()


@pytest.mark.parametrize("flag", ["--n", "--size"])
def test_generate_takes_n_and_keeps_size_as_an_alias(cli, tmp_path, flag):
    res = cli("generate", "--out", tmp_path / "p.parquet", "--occupations", "nurse", flag, "7")
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(tmp_path / "p.parquet")) == 7


@pytest.mark.parametrize("line", ["M,B,2,b,extra", "M,B"])
def test_reading_only_the_mapped_columns_still_refuses_ragged_rows(cli, tmp_path, line):
    (tmp_path / "d.csv").write_text(f"sex,race,score,x\nF,A,1,a\n{line}\nF,B,3,c\n")
    _refused(_audit(cli, tmp_path / "d.csv", tmp_path / "rep"), "is not a CSV table", line)
