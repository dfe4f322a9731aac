"""A tiny end-to-end grid: one occupation, text + image+photo, synthetic screener, few draws.

It checks the table layout, the synthetic screener's photo channel, that a rerun comes
entirely from the cache without rescoring or re-estimating, and the CLI round trip.
"""

import numpy as np
import pandas as pd
import pytest

from popresume.audit import grid as G

SYNTH = {"kind": "synthetic", "direct": {}, "photo": {"gender": {"M": 4.0}, "race_binary": {"White": 3.0}},
         "noise_sd": 1.0, "seed": 0}
CFG = {
    "name": "tiny",
    "occupations": ["software_developer"],
    "formats": ["text", "image+photo"],
    "attributes": ["gender", "race"],
    "sizes": 300,
    "seed": 3,
    "folds": 3,
    "n_boot": 30,
    "estimator": {"tune": False, "threads": 1, "variance": "influence"},  # the grid's plumbing, not its CIs
    "screeners": [{"name": "synth", "spec": SYNTH, "label": "synthetic VLM"}],
}


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    cache = tmp_path_factory.mktemp("audit_cache")
    run = G.run_audit(CFG, cache_dir=cache, n_jobs=1, progress=False)
    assert isinstance(run, G.AuditRun) and run.table.attrs == {}  # metadata on the run, not in attrs
    return cache, run.table


def test_layout_matches_published_plus_metadata(first_run):
    _, t = first_run
    pub_cols = ["attribute", "occupation", "format", "model"] + [
        f"{e}_{s}" for e in ("TE", "NDE", "NIE", "BIE", "RIE") for s in ("estimate", "ci_low", "ci_high")]
    assert all(c in t.columns for c in pub_cols + ["cases", "screener", "screener_id", "synthetic"])
    assert len(t) == 4  # 1 occupation × 2 formats × 2 attributes × 1 screener
    assert set(t["occupation"]) == {"Software Developers"}  # the paper's label
    assert t["synthetic"].all() and t["model"].str.contains("synthetic").all()
    assert set(t.loc[t.attribute == "race", "x0"]) == {"Non-White"}
    assert set(t.loc[t.attribute == "gender", "x0"]) == {"F"}
    assert t["cases"].str.match(r"^(-|C[1-5](,C[1-5])*)$").all()
    low = t[[f"{e}_ci_low" for e in ("TE", "NDE")]].to_numpy()
    # an interval is absent (NaN) only where the effect is not estimable at this overlap
    assert ((low <= t[["TE_estimate", "NDE_estimate"]].to_numpy()) | np.isnan(low)).all()


def test_photo_channel_moves_the_direct_effect(first_run):
    _, t = first_run
    g = t[t.attribute == "gender"].set_index("format")
    # truth: NDE = 0 without a photo, +4 with one; the estimate follows
    assert g.loc["text", "NDE_true"] == pytest.approx(0.0)
    assert g.loc["image+photo", "NDE_true"] == pytest.approx(4.0)
    assert g.loc["image+photo", "NDE_estimate"] - g.loc["text", "NDE_estimate"] > 2.0


def test_rerun_reuses_cache_without_rescoring(first_run, monkeypatch):
    cache, t1 = first_run
    import popresume.screeners as S

    def no_scoring(*a, **k):
        raise AssertionError("rescored on a cached rerun")

    def no_estimation(*a, **k):
        raise AssertionError("re-estimated on a cached rerun")

    monkeypatch.setattr(S, "score_resumes", no_scoring)
    monkeypatch.setattr(G, "estimate_cell", no_estimation)
    run = G.run_audit(CFG, cache_dir=cache, n_jobs=1, progress=False)
    assert run.estimates_from_cache == 4 and run.estimated == 0
    t2 = run.table
    cols = [c for c in t1.columns if c.endswith(("_estimate", "_ci_low", "_ci_high"))]
    pd.testing.assert_frame_equal(t1[cols], t2[cols])


def test_changed_estimator_setting_re_estimates_only(first_run, monkeypatch):
    cache, _ = first_run
    import popresume.screeners as S

    monkeypatch.setattr(S, "score_resumes", lambda *a, **k: (_ for _ in ()).throw(AssertionError("rescored")))
    run = G.run_audit({**CFG, "attributes": ["gender"], "n_boot": 20}, cache_dir=cache, n_jobs=1, progress=False)
    assert run.estimated == 2 and run.estimates_from_cache == 0
    assert set(run.timings) >= {"profiles", "estimate"} and run.wall_s > 0


def test_cli_roundtrip(first_run, tmp_path):
    import yaml
    from click.testing import CliRunner

    from popresume.cli import main

    cache, _ = first_run
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(yaml.safe_dump(CFG))
    out = tmp_path / "res.csv"
    r = CliRunner().invoke(main, ["audit", "--config", str(cfg), "--out", str(out), "--cache-dir", str(cache),
                                  "--jobs", "1", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "4 estimates from cache" in r.output
    back = G.read_results(out)
    assert len(back) == 4
    rep = tmp_path / "rep"
    r = CliRunner().invoke(main, ["report", "--results", str(out), "--out", str(rep)])
    assert r.exit_code == 0, r.output
    assert (rep / "figure4_gender.png").exists() and (rep / "side_by_side.csv").exists()
    assert "synthetic" in (rep / "README.md").read_text()


def test_cli_bad_config_names_entry(tmp_path):
    from click.testing import CliRunner

    from popresume.cli import main

    cfg = tmp_path / "bad.yaml"
    cfg.write_text("occupations: [nurse]\nformats: [image]\nattributes: [gender]\n"
                   "screeners: [{name: mini, spec: embedding}]\n")
    r = CliRunner().invoke(main, ["audit", "--config", str(cfg), "--out", str(tmp_path / "x.csv")])
    assert r.exit_code != 0 and "screeners[0] (mini" in r.output and "cannot read images" in r.output


def test_dask_scheduler_backend(first_run, tmp_path):
    """--scheduler sends estimation to a Dask cluster (here an in-process one)."""
    distributed = pytest.importorskip("dask.distributed")
    cache, t1 = first_run
    import shutil

    c2 = tmp_path / "c"
    shutil.copytree(cache, c2)
    shutil.rmtree(c2 / "estimates")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        run = G.run_audit({**CFG, "attributes": ["gender"]}, cache_dir=c2, scheduler=cluster.scheduler_address,
                          progress=False)
    assert run.estimated == 2
    t = run.table
    a = t1[t1.attribute == "gender"].reset_index(drop=True)
    pd.testing.assert_series_equal(a["NDE_estimate"], t["NDE_estimate"].reset_index(drop=True))


def test_interrupted_estimation_keeps_finished_cells(first_run, tmp_path, monkeypatch):
    import shutil

    cache, _ = first_run
    c2 = tmp_path / "c"
    shutil.copytree(cache, c2)
    shutil.rmtree(c2 / "estimates")
    real = G.estimate_cell
    calls = {"n": 0}

    def flaky(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("simulated interruption")
        return real(*a, **k)

    monkeypatch.setattr(G, "estimate_cell", flaky)
    cfg = {**CFG, "attributes": ["gender"]}
    with pytest.raises(KeyboardInterrupt):
        G.run_audit(cfg, cache_dir=c2, n_jobs=1, progress=False)
    monkeypatch.setattr(G, "estimate_cell", real)
    run = G.run_audit(cfg, cache_dir=c2, n_jobs=1, progress=False)
    assert run.estimates_from_cache == 1 and run.estimated == 1


@pytest.mark.parametrize("name", ["/abs/elsewhere", "../../escaped", "a/b", "..", " spaced name"])
def test_screener_name_never_leaves_the_cache_dir(tmp_path, name):
    """A screener's name becomes part of cache file names: absolute or ``..`` names stay inside --cache-dir."""
    cache = tmp_path / "deep" / "cache"
    cache.mkdir(parents=True)
    outside_before = {p for p in tmp_path.rglob("*") if cache not in p.parents and p != cache}
    cfg = {**CFG, "formats": ["text"], "attributes": ["gender"], "n_boot": 0,
           "screeners": [{**CFG["screeners"][0], "name": name, "formats": ["text"]}]}
    run = G.run_audit(cfg, cache_dir=cache, n_jobs=1, progress=False)
    assert list(run.table["screener"]) == [name]  # the name is kept as written in the results
    outside_after = {p for p in tmp_path.rglob("*") if cache not in p.parents and p != cache}
    assert outside_after == outside_before
    for p in cache.rglob("*.parquet"):
        assert p.resolve().is_relative_to(cache.resolve())
        assert p.parent.name in ("profiles", "resumes", "scores", "estimates")


def test_file_part_keeps_safe_names_and_hashes_the_rest():
    assert G.file_part("minilm") == "minilm" and G.file_part("all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    for bad in ("/abs/x", "../../x", "..", "a/b", "hf:/models/x"):
        part = G.file_part(bad)
        assert "/" not in part and not part.startswith(".") and part != bad
    assert G.file_part("a/b") != G.file_part("a_b") and G.file_part("a/b") != G.file_part("a\\b")


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\x00binary", b'a,b\n1,2,3,4\n"x\n5,6\n', b""])
def test_report_on_a_non_csv_names_the_file_and_leaves_no_folder(tmp_path, content):
    from click.testing import CliRunner

    from popresume.cli import main

    bad = tmp_path / "not_results.csv"
    bad.write_bytes(content)
    out = tmp_path / "rep"
    r = CliRunner().invoke(main, ["report", "--results", str(bad), "--out", str(out)])
    assert r.exit_code != 0 and str(bad) in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1, r.output
    assert not out.exists()
