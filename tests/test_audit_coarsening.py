"""The coarsened-mediator experiment: a screener that never reads X, name typicalities."""

import numpy as np
import pandas as pd
import pytest

from popresume.audit import coarsening as C


def ref_table():
    return pd.DataFrame({
        "first_name": ["Ann", "Ann", "Ann", "Sam", "Sam", "Bob"],
        "surname": ["Lee", "Lee", "Diaz", "Diaz", "Lee", "Lee"],
        "gender": ["F", "F", "F", "M", "F", "M"],
        "race": ["API", "White", "White", "Black", "White", "White"],
    })


def test_name_shares_hand_example():
    sh = C.name_shares(ref_table(), prior=2.0)
    base_male = 2 / 6
    # Sam: 1 male of 2, shrunk with 2 pseudo-counts at the base rate
    assert sh["fn_male_share"]["Sam"] == pytest.approx((1 + 2 * base_male) / (2 + 2))
    assert sh["fn_male_share"]["Ann"] == pytest.approx((0 + 2 * base_male) / (3 + 2))
    base_white = 4 / 6
    assert sh["sn_white_share"]["Lee"] == pytest.approx((3 + 2 * base_white) / (4 + 2))


def test_unseen_names_get_base_rate():
    sh = C.name_shares(ref_table())
    out = C.add_name_shares(pd.DataFrame({"first_name": ["Zed"], "surname": ["Lee"]}), sh)
    assert out["fn_male_share"].iloc[0] == pytest.approx(2 / 6)


@pytest.fixture(scope="module")
def pop():
    """One population, split into a reference part (name typicalities) and an audited part."""
    from popresume.grouping import add_groups
    from popresume.population import generate_population

    p = add_groups(generate_population(["accountant"], {"accountant": 1600}, seed=0))
    return p.iloc[:1100].reset_index(drop=True), p.iloc[1100:].reset_index(drop=True)


def test_name_level_screener_never_reads_x(pop):
    ref, p = pop
    sh = C.name_shares(ref)
    scr = C.NameLevelScreener(sh, seed=1)
    y = scr.score_profiles(p)
    flipped = p.copy()
    flipped["gender"] = flipped["gender"].map({"F": "M", "M": "F"})
    flipped["race"] = "White"
    flipped["race_binary"] = "White"
    np.testing.assert_array_equal(y.to_numpy(), scr.score_profiles(flipped).to_numpy())
    # ...but it does read the names: changing first names changes scores
    renamed = p.assign(first_name=p["first_name"].iloc[::-1].to_numpy())
    assert not np.allclose(y.to_numpy(), scr.score_profiles(renamed).to_numpy())
    with pytest.raises(ValueError, match="first_name"):
        scr.score_profiles(p.drop(columns=["first_name"]))


def test_coarsening_artefact_runs_both_mediator_sets(pop):
    ref, p = pop
    sh = C.name_shares(ref)
    p = C.add_name_shares(p, sh)
    p["score"] = C.NameLevelScreener(sh).score_profiles(p)
    out = C.coarsening_artefact(p, "race", folds=3, n_boot=20, estimator={"tune": False}, label="s", true_nde=0)
    assert list(out["mediators"]) == ["coarse", "fine"]
    assert out["true_NDE"].eq(0).all() and np.isfinite(out["NDE_estimate"]).all()
    # overlap travels with each row: smallest ESS and the worst clipped share
    assert ((out["min_ess"] > 0) & (out["min_ess"] <= len(p))).all() and out["clipped_share"].between(0, 1).all()
    # TE does not depend on how R is described
    assert out["TE_estimate"].iloc[0] == pytest.approx(out["TE_estimate"].iloc[1], abs=0.5)
    s = C.artefact_summary(out)
    assert s["gap"].iloc[0] == pytest.approx(out["NDE_estimate"].iloc[0] - out["NDE_estimate"].iloc[1])
    with pytest.raises(ValueError, match="add_name_shares"):
        C.coarsening_artefact(p.drop(columns=["fn_male_share"]), "race")


def test_within_group_signal_columns(pop):
    ref, p = pop
    p = C.add_name_shares(p, C.name_shares(ref))
    w = C.within_group_signal(p, "gender")
    assert set(w["class_column"]) == {"fn_gender"}
    assert set(w["name_class"]) <= {"female", "male", "neutral"}
    assert w["n"].sum() == len(p)
    # race is carried by the surname: its classes are the surname groups
    r = C.within_group_signal(p, "race")
    assert set(r["class_column"]) == {"surname_group"}
    assert set(r["name_class"]) == set(p["surname_group"].astype(str))
    assert r["n"].sum() == len(p)


def test_refine_cells_reproduces_the_grid_row_and_refines_it(tmp_path):
    """On a grid's own cached scores, the coarse row is the grid's row; the fine row differs."""
    from popresume.audit import grid as G

    cfg = {"name": "refine", "occupations": ["teacher"], "formats": ["text"], "attributes": ["gender"],
           "sizes": 300, "seed": 2, "folds": 3, "n_boot": 20,
           "estimator": {"tune": False, "threads": 1, "variance": "influence"},  # the rows, not their CIs
           "screeners": [{"name": "synth", "spec": {"kind": "synthetic", "noise_sd": 1.0, "seed": 0},
                          "label": "synthetic"}]}
    grid = G.run_audit(cfg, cache_dir=tmp_path, n_jobs=1, progress=False).table
    out = C.refine_cells(cfg, [("teacher", "gender")], n_ref=2000, cache_dir=tmp_path)
    assert list(out["mediators"]) == ["coarse", "fine"]
    assert set(out[["occupation", "format", "attribute"]].itertuples(index=False, name=None)) == {
        ("teacher", "text", "gender")}
    assert out.loc[0, "NDE_estimate"] == pytest.approx(grid.loc[0, "NDE_estimate"], abs=1e-9)
    assert out.loc[1, "NDE_estimate"] != pytest.approx(out.loc[0, "NDE_estimate"], abs=1e-6)
    with pytest.raises(ValueError, match="occupation 'nurse' is not in config 'refine'"):
        C.refine_cells(cfg, [("nurse", "gender")], cache_dir=tmp_path)


def test_mediator_rows_are_labelled_and_selected():
    rows = pd.DataFrame({"occupation": ["teacher", "teacher", "nurse", "nurse"], "attribute": ["gender"] * 4,
                         "mediators": ["coarse", "fine", "coarse", "fine"], "n": [16188, 16188, 17632, 17632],
                         "NDE_estimate": [2.0, 0.5, 1.0, 0.2]})
    got = C.refined_rows(rows, "teacher", "gender")
    assert got["variant"].tolist() == ["paper-size run (n = 16,188), grouped R", "paper-size run (n = 16,188), refined R"]
    assert got["NDE_estimate"].tolist() == [2.0, 0.5]
    assert C.label_mediators(rows.iloc[2:], "sample", n=400)["variant"].tolist() == [
        "sample (n = 400), grouped R", "sample (n = 400), refined R"]
    with pytest.raises(ValueError, match="no row for occupation 'pilot'"):
        C.refined_rows(rows, "pilot", "gender")


def test_grid_cell_variants_use_the_paper_and_the_fine_roles(pop):
    ref, p = pop
    shares = C.name_shares(ref)
    data = pd.concat([p.assign(format="text", model="m"), p.assign(format="image", model="m")], ignore_index=True)
    v = C.grid_cell_variants(data, shares, occupation="accountant", model="m", attribute="race")
    (k1, (d1, r1, _)), (k2, (d2, r2, _)) = v.items()
    assert k1.endswith("grouped R") and k2.endswith("refined R") and len(d1) == len(p)
    assert "surname_group" in r1["r"] and "sn_white_share" in r2["r"] and set(C.NAME_SHARE_COLUMNS) <= set(d2.columns)
