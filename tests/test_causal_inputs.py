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
