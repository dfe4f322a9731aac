"""Bad input: a clear error or a warning with diagnostics, never a silent NaN table."""


import numpy as np
import pandas as pd
import pytest

from popresume.causal import PSEWarning, default_roles, estimate_pse, make_scm, plugin_pse, prepare
from popresume.causal.nuisance import CellMeans

ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
CELL = {"propensity": CellMeans(), "outcome": CellMeans()}


@pytest.fixture
def data():
    return make_scm("basic").sample(800, seed=0)


def test_other_levels_of_x(data):
    data.loc[5, "x"] = "x2"
    with pytest.raises(ValueError, match=r"'x'.*\['x2'\].*row 5"):
        estimate_pse(data, **ROLES, n_boot=0, learners=CELL)


def test_missing_values_raise_or_drop_with_warning(data):
    data.loc[7, "y"] = np.nan
    with pytest.raises(ValueError, match=r"missing values.*'y'.*row 7"):
        estimate_pse(data, **ROLES, n_boot=0, learners=CELL)
    with pytest.warns(PSEWarning, match="dropping 1 of 800"):
        tab = estimate_pse(data, **ROLES, n_boot=20, learners=CELL, missing="drop")
    assert tab["n"].iloc[0] == 799 and np.isfinite(tab["estimate"]).all()


def test_group_absent_from_a_fold(data):
    small = pd.concat([data[data.x == "x0"], data[data.x == "x1"].head(3)])
    with pytest.raises(ValueError, match="fewer than folds=5"):
        estimate_pse(small, **ROLES, n_boot=0, learners=CELL)
    with pytest.raises(ValueError, match="no row with level 'x1'"):
        estimate_pse(data[data.x == "x0"], **ROLES, n_boot=0, learners=CELL)


def test_constant_score_warns_and_gives_zero(data):
    data["y"] = 70.0
    with pytest.warns(PSEWarning, match="constant"):
        tab = estimate_pse(data, **ROLES, n_boot=20, learners=CELL)
    assert np.allclose(tab["estimate"], 0.0) and not tab["significant"].any()


def test_perfect_separation_single_column(data):
    data["name_group"] = np.where(data.x == "x1", "male", "female")
    with pytest.raises(ValueError, match="'name_group' perfectly separates 'x'"):
        estimate_pse(data, **{**ROLES, "r": ["r", "name_group"]}, n_boot=0, learners=CELL)


def test_near_separation_warns_with_diagnostics():
    d = make_scm("basic").sample(3000, seed=1)
    rng = np.random.default_rng(0)
    flip = rng.random(len(d)) < 0.004
    d["name_group"] = np.where((d.x == "x1") ^ flip, "male", "female")
    with pytest.warns(PSEWarning, match=r"weak overlap: \d+ of 3000 propensities.*clipped.*effective sample size"):
        tab = estimate_pse(d, **{**ROLES, "r": ["r", "name_group"]}, n_boot=20, learners=CELL)
    assert np.isfinite(tab["estimate"]).all()


def test_role_errors(data):
    with pytest.raises(ValueError, match="'nope'.*not in the data"):
        estimate_pse(data, **{**ROLES, "z": ["nope"]}, n_boot=0)
    with pytest.raises(ValueError, match="two roles"):
        estimate_pse(data, **{**ROLES, "b": ["b", "r"]}, n_boot=0)
    data["y"] = data["y"].astype(str)
    with pytest.raises(ValueError, match="must be numeric"):
        estimate_pse(data, **ROLES, n_boot=0)


def test_plugin_names_unsupported_cell():
    d = make_scm("high_card_r").sample(500, seed=0)
    with pytest.raises(ValueError, match="positivity fails"):
        plugin_pse(d, **ROLES)


def test_default_roles_and_prepare():
    g = default_roles("gender")
    assert g == {"x": "gender", "x0": "F", "x1": "M", "z": ["race", "age"], "b": ["edu_group", "exp_year"],
                 "r": ["fn_gender", "fn_age", "surname_group", "region"]}
    r = default_roles("race")
    assert (r["x"], r["x0"], r["x1"], r["z"]) == ("race_binary", "Non-White", "White", ["gender", "age"])
    g["z"].append("x")
    assert default_roles("gender")["z"] == ["race", "age"]
    with pytest.raises(ValueError, match="unknown attribute"):
        default_roles("age")
    prof = pd.DataFrame({"resume_id": ["a", "b"], "gender": ["F", "M"], "fn_gender": ["female", "male"],
                         "fn_age": ["young", "old"], "surname_group": ["White", "Black"], "edu_group": ["low", "high"],
                         "race_binary": ["White", "Non-White"]})
    sc = pd.DataFrame({"resume_id": ["a", "b", "a"], "screener": ["s1", "s1", "s2"], "model": ["m", "m", "m2"],
                       "score": [80.0, np.nan, 70.0]})
    with pytest.raises(ValueError, match="several screeners"):
        prepare(prof, sc)
    out = prepare(prof, sc, screener="s1")
    assert list(out["score"].isna()) == [False, True] and len(out) == 2


def _partition_data(n=1500, seed=0):
    """Profile-like rows where region depends on gender and moves the score (and nothing else does)."""
    rng = np.random.default_rng(seed)
    male = rng.random(n) < 0.5
    west = rng.random(n) < np.where(male, 0.7, 0.3)
    return pd.DataFrame({
        "gender": np.where(male, "M", "F"), "race": rng.choice(["White", "Black"], n), "age": rng.integers(20, 40, n),
        "edu_group": rng.choice(["low", "high"], n), "exp_year": rng.integers(0, 5, n),
        "fn_gender": rng.choice(["female", "male", "neutral"], n), "fn_age": rng.choice(["young", "old"], n),
        "surname_group": rng.choice(["White", "Black"], n), "region": np.where(west, "West", "South"),
        "score": 50 + 4.0 * west + rng.normal(0, 1, n)})


def test_partition_roles():
    from popresume.causal import partition_roles

    assert partition_roles("gender") == default_roles("gender")
    r = partition_roles("race", ["edu_group", "exp_year", "region"], ["fn_gender", "fn_age", "surname_group"])
    assert r["x"] == "race_binary" and r["b"][-1] == "region" and "region" not in r["r"]
    assert partition_roles("gender", r=["region"])["b"] == ["edu_group", "exp_year"]
    with pytest.raises(ValueError, match="'region' is in both b and r"):
        partition_roles("gender", b=["edu_group", "region"])
    with pytest.raises(ValueError, match="'age' is the protected attribute or a confounder"):
        partition_roles("gender", b=["edu_group", "age"])
    with pytest.raises(ValueError, match="listed twice"):
        partition_roles("gender", r=["region", "region"])
    with pytest.raises(ValueError, match="list of column names"):
        partition_roles("gender", b="edu_group")


def test_compare_partitions_moves_only_bie_and_rie():
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from popresume.causal import compare_partitions

    lin = {"propensity": LogisticRegression(max_iter=1000), "outcome": LinearRegression()}
    paper = default_roles("gender")
    moved = (paper["b"] + ["region"], [c for c in paper["r"] if c != "region"])
    tab = compare_partitions(_partition_data(), "gender", {"paper": (paper["b"], paper["r"]), "moved": moved},
                             n_boot=0, learners=lin, variance="influence").set_index("partition")
    assert tab["same_w"].all() and tab.loc["moved", "b"].endswith("region")
    assert ((tab["min_ess"] > 0) & (tab["min_ess"] <= len(_partition_data()))).all()  # overlap beside the effects
    assert tab["clipped_share"].between(0, 1).all()
    # TE, NDE, NIE depend on W only: equal across partitions up to nuisance-refit noise
    for e in ("TE", "NDE", "NIE"):
        assert abs(tab.loc["paper", f"{e}_estimate"] - tab.loc["moved", f"{e}_estimate"]) < 0.25 * tab[f"{e}_se"].max()
    np.testing.assert_allclose(tab["BIE_estimate"] + tab["RIE_estimate"], tab["NIE_estimate"], atol=1e-8)
    # the region path (0.4 × 4 points = 1.6 for men) moves from RIE to BIE
    assert tab.loc["paper", "RIE_estimate"] > 1.0 and abs(tab.loc["paper", "BIE_estimate"]) < 0.5
    assert tab.loc["moved", "BIE_estimate"] > 1.0 and abs(tab.loc["moved", "RIE_estimate"]) < 0.5
    with pytest.raises(ValueError, match="pair"):
        compare_partitions(_partition_data(50), "gender", {"bad": (["edu_group"],)})
