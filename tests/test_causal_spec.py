"""The estimator's options declared once (causal.spec), the result owning its table row, bad inputs refused early."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from popresume.causal import PSEEstimator, estimate_pse, make_scm
from popresume.causal.nuisance import CellMeans
from popresume.causal.spec import BOUNDS, CHOICES, DEFAULTS, EstimatorSpec, check_options

ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
CELL = {"propensity": CellMeans(), "outcome": CellMeans()}
GRID = dict(occupations=["nurse"], formats=["text"], attributes=["gender"], screeners=["synthetic"], sizes=50)


def _config_accepts(**top) -> bool:
    from popresume.audit.config import validate_config

    try:
        validate_config({**GRID, **top})
    except ValueError:
        return False
    return True


def _estimator_accepts(**options) -> bool:
    try:
        check_options(**options)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- one specification
def test_clip_zero_is_refused_by_the_config_before_any_work(tmp_path, monkeypatch):
    import popresume.audit.grid as G

    def no_work(*a, **k):
        raise AssertionError("work started before the config was checked")

    monkeypatch.setattr(G, "load_profiles", no_work)
    with pytest.raises(ValueError, match=r"estimator\.clip: must be greater than 0, got 0\.0"):
        G.run_audit({**GRID, "estimator": {"clip": 0.0}}, cache_dir=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())
    with pytest.raises(ValueError, match="clip must be in"):
        PSEEstimator(make_scm("basic").sample(200, seed=0), **ROLES, clip=0.0)


@pytest.mark.parametrize("option", sorted(BOUNDS))
def test_config_and_estimator_accept_the_same_values(option):
    b = BOUNDS[option]
    edges = [v for v in (b.low, b.high) if v is not None]
    probes = sorted({e + d for e in edges for d in (-1, -0.01, 0, 0.01, 1)})
    integer = isinstance(getattr(DEFAULTS, option), int)
    probes = sorted({int(round(p)) for p in probes}) if integer else probes
    for v in probes:
        if option in ("folds", "n_boot", "seed"):
            extra = {option: v} if option != "folds" else {"folds": v, "estimator": {"nested_crossfit": False}}
            got = _config_accepts(**extra)
            want = _estimator_accepts(**{option: v, "nested_crossfit": False})
        else:
            got = _config_accepts(estimator={option: v})
            want = _estimator_accepts(**{option: v})
        assert got == want, f"{option}={v!r}: config {'accepts' if got else 'refuses'}, estimator does not agree"


@pytest.mark.parametrize("option", sorted(CHOICES))
def test_config_and_estimator_accept_the_same_choices(option):
    for v in (*CHOICES[option], "nonsense"):
        assert _config_accepts(estimator={option: v}) == _estimator_accepts(**{option: v})


def test_defaults_are_declared_once():
    import inspect

    from popresume.audit.config import EstimatorModel, GridModel

    # the options are the spec's fields only: neither the function nor the class repeats one
    for f in (estimate_pse, PSEEstimator):
        assert not set(EstimatorSpec.names()) & set(inspect.signature(f).parameters), f
    assert PSEEstimator(make_scm("basic").sample(200, seed=0), ROLES).folds == DEFAULTS.folds == 5
    for name, f in EstimatorModel.model_fields.items():
        if hasattr(DEFAULTS, name):
            assert f.default == getattr(DEFAULTS, name), name
    assert GridModel.model_fields["folds"].default == DEFAULTS.folds
    with pytest.raises(ValueError, match="aggregate must be one of"):
        EstimatorSpec(aggregate="max")


def test_bad_bootstrap_is_refused_before_fitting(monkeypatch):
    import popresume.causal.crossfit as cf

    monkeypatch.setattr(cf.PSEEstimator, "fit", lambda self: (_ for _ in ()).throw(AssertionError("fitted")))
    with pytest.raises(ValueError, match="bootstrap must be one of"):
        estimate_pse(make_scm("basic").sample(200, seed=0), **ROLES, bootstrap="jackknife", learners=CELL)
    with pytest.raises(ValueError, match="n_boot must be"):
        estimate_pse(make_scm("basic").sample(200, seed=0), **ROLES, n_boot=-5, learners=CELL)


# ---------------------------------------------------------------- two folds (nested fits would train on nothing)
def test_two_folds_with_nested_crossfit_are_refused_with_the_reason():
    d = make_scm("basic").sample(300, seed=0)
    with pytest.raises(ValueError, match=r"folds=2 with nested_crossfit.*no row; use folds >= 3"):
        estimate_pse(d, **ROLES, folds=2, n_boot=0, learners=CELL)
    with pytest.raises(ValueError, match="folds=2 with nested_crossfit"):
        PSEEstimator(d, **ROLES, folds=2)
    assert not _config_accepts(folds=2)
    assert _config_accepts(folds=3)


def test_two_folds_without_nesting_give_sensible_standard_errors():
    d = make_scm("basic").sample(1500, seed=2)
    # the influence SE of each split (the jackknife's ten refits add noise of their own)
    two = estimate_pse(d, **ROLES, folds=2, nested_crossfit=False, n_boot=0, learners=CELL, variance="influence")
    three = estimate_pse(d, **ROLES, folds=3, nested_crossfit=False, n_boot=0, learners=CELL, variance="influence")
    ratio = two["se"] / three["se"]
    assert ratio.between(0.5, 2.0).all(), ratio
    flat = d.assign(y=7.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = estimate_pse(flat, **ROLES, folds=2, nested_crossfit=False, n_boot=0, learners=CELL)
    assert np.allclose(t["se"], 0.0, atol=1e-9) and np.allclose(t["estimate"], 0.0, atol=1e-9)


def test_cli_refuses_two_folds_in_one_line(estimate_files, cli):
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", estimate_files / "s.parquet",
            "--folds", "2", "--out", estimate_files / "two.csv")
    assert r.exit_code == 1 and "--folds: folds=2 with nested_crossfit" in r.output
    assert "Traceback" not in r.output and not (estimate_files / "two.csv").exists()
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", estimate_files / "s.parquet",
            "--clip", "0", "--out", estimate_files / "clip.csv")
    assert r.exit_code == 1 and "--clip: clip must be in (0.0, 0.5)" in r.output


# ---------------------------------------------------------------- the result owns its row
def test_result_overlap_and_row_match_the_diagnostics():
    d = make_scm("weak_overlap").sample(800, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, est = estimate_pse(d, **ROLES, folds=3, n_boot=20, learners=CELL, return_estimator=True)
    res = est.result_
    diag = res.diagnostics
    assert res.overlap == {"min_ess": float(diag["weights"]["ess"].min()),
                           "clipped_share": float(diag["propensity"]["n_clipped"].max() / len(d))}
    row = res.row(("estimate", "se"))
    assert list(row)[:2] == ["TE_estimate", "TE_se"] and list(row)[-2:] == ["min_ess", "clipped_share"]
    assert row["NDE_estimate"] == res.summary.loc["NDE", "estimate"]


def test_estimate_row_collects_warnings_in_one_cell():
    from popresume.causal import estimate_row

    d = make_scm("weak_overlap").sample(300, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is printed: the warnings land in the row
        row = estimate_row(d, **ROLES, folds=3, n_boot=0, learners=CELL)
    assert list(row)[-3:] == ["min_ess", "clipped_share", "warnings"]
    assert "unreliable intervals" in row["warnings"]


def test_fitted_state_lives_in_the_result_only():
    est = PSEEstimator(make_scm("basic").sample(600, seed=3), **ROLES, folds=3, learners=CELL)
    with pytest.raises(AttributeError, match="call fit"):
        est.phi_
    assert est.boot_ is None and est.boot_kind_ is None
    est.fit().bootstrap(30)
    r = est.result_
    assert est.phi_ is not None and np.allclose(est.phi_, r.phi)
    assert est.effects_.equals(r.effects) and np.array_equal(est.psi_.to_numpy(), r.psi_estimate)
    assert est.propensity_ is r.diagnostics["propensity"] and est.weights_ is r.diagnostics["weights"]
    assert est.boot_psi_ is r.boot_psi and est.boot_kind_ == "influence" and est.boot_.shape == (30, 5)
    assert np.array_equal(est.fold_, r.fold)
    for name in ("phi_", "psi_", "effects_", "propensity_", "weights_", "n_clipped_", "boot_", "boot_kind_"):
        with pytest.raises(AttributeError):
            setattr(est, name, None)
    assert not {"phi_", "psi_", "effects_", "boot_psi_"} & set(vars(est))  # no second copy on the estimator
    pd.testing.assert_frame_equal(est.summary, r.summary)  # a property on both
    assert est.diagnostics is r.diagnostics


# ---------------------------------------------------------------- scores outside the screener's scale
def test_prepare_refuses_scores_outside_the_scale():
    from popresume.causal import prepare

    prof = pd.DataFrame({"resume_id": ["a", "b", "c"], "gender": ["F", "M", "F"]})
    for col in ("fn_gender", "fn_age", "surname_group", "edu_group", "race_binary"):
        prof[col] = "x"
    ok = pd.DataFrame({"resume_id": ["a", "b", "c"], "screener": "embedding", "score": [0.0, 100.0, np.nan]})
    assert len(prepare(prof, ok)) == 3  # the bounds themselves and a failed score pass
    bad = ok.assign(score=[50.0, 1e6, 20.0])
    with pytest.raises(ValueError, match=r"column 'score' has the value 1000000\.0 \(resume_id 'b'\).*\[0, 100\]"):
        prepare(prof, bad)
    with pytest.raises(ValueError, match="-3.0"):
        prepare(prof, ok.assign(score=[50.0, -3.0, np.inf]))
    # a file whose rows say "synthetic" is held to the scale too
    with pytest.raises(ValueError, match=r"1000000\.0 \(resume_id 'b'\) of screener 'synthetic'"):
        prepare(prof, bad.assign(screener="synthetic"))
    # a failed parse is not a score: its number is not used (missing), not checked, not estimated on
    failed = bad.assign(parse_ok=[True, False, True])
    got = prepare(prof, failed).set_index("resume_id")["score"]
    assert got["a"] == 50.0 and np.isnan(got["b"]) and got["c"] == 20.0
    got = prepare(prof, ok.assign(score=[10.0, 60.0, 70.0], parse_ok=[True, True, False])).set_index("resume_id")
    assert np.isnan(got.loc["c", "score"]) and got.loc["b", "score"] == 60.0


def test_cli_estimate_refuses_nonsense_scores(estimate_files, cli, tmp_path):
    s = pd.read_parquet(estimate_files / "s.parquet")
    s.loc[10, "score"] = 1e6
    s.to_parquet(tmp_path / "s.parquet")
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", tmp_path / "s.parquet",
            "--folds", "3", "--out", tmp_path / "e.csv")
    assert r.exit_code == 1 and "column 'score' has the value 1000000.0" in r.output
    assert str(tmp_path / "s.parquet") in r.output and not (tmp_path / "e.csv").exists()


def test_cli_estimate_names_the_screeners_present(estimate_files, cli):
    r = cli("estimate", "--profiles", estimate_files / "p.parquet", "--scores", estimate_files / "s.parquet",
            "--screener", "nope", "--out", estimate_files / "nope.csv")
    assert r.exit_code == 1
    assert "screener 'nope' (--screener) is not in" in r.output and "['m', 'syn']" in r.output
    assert "0 of 0" not in r.output


# ---------------------------------------------------------------- the options once (issue 36, item 4)
def test_keywords_are_checked_overrides_of_the_spec():
    d = make_scm("basic").sample(600, seed=4)
    by_spec = estimate_pse(d, ROLES, EstimatorSpec(folds=3, n_boot=0, clip=0.02), learners=CELL)
    by_keywords = estimate_pse(d, **ROLES, folds=3, n_boot=0, clip=0.02, learners=CELL)
    pd.testing.assert_frame_equal(by_spec, by_keywords)
    # a keyword overrides the spec's value; a mapping is read as a spec
    pd.testing.assert_frame_equal(by_spec, estimate_pse(d, ROLES, {"folds": 3, "n_boot": 0, "clip": 0.5 / 25},
                                                        learners=CELL))
    with pytest.raises(TypeError, match=r"unknown estimator option 'n_boots'; the options are: folds, n_boot, "):
        estimate_pse(d, ROLES, n_boots=0, learners=CELL)
    with pytest.raises(TypeError, match="'fold'.*learners, grid, trim"):
        estimate_pse(d, **ROLES, fold=3)
    with pytest.raises(TypeError, match="role 'x' is given twice"):
        PSEEstimator(d, ROLES, x="x")
    with pytest.raises(TypeError, match="unknown estimator option 'clip_warn'"):
        PSEEstimator(d, ROLES, clip_warn=0.05)


def test_the_estimator_holds_the_spec_and_reads_its_options():
    spec = EstimatorSpec(folds=4, seed=7, n_rep=2)
    est = PSEEstimator(make_scm("basic").sample(300, seed=0), ROLES, spec, learners=CELL)
    assert est.spec is spec and (est.folds, est.seed, est.n_rep, est.clip) == (4, 7, 2, DEFAULTS.clip)
    assert callable(est.bootstrap) and est.spec.bootstrap == "influence"  # the method keeps its name
    with pytest.raises(AttributeError):
        est.folds = 3  # read from the spec, not a second copy
    assert PSEEstimator(make_scm("basic").sample(300, seed=0), ROLES, folds=4).spec == EstimatorSpec(folds=4)


def test_warning_thresholds_are_the_rules():
    """fit()'s warnings use the numbers of the estimable rule (identification), pinned here."""
    from popresume.causal import identification as ident

    assert (ident.MAX_CLIPPED_SHARE, ident.MIN_ESS) == (0.01, 50.0)
    assert (PSEEstimator.clip_warn, PSEEstimator.min_ess, PSEEstimator.min_group) == (0.01, 50.0, 50)
    assert PSEEstimator.clip_warn is ident.MAX_CLIPPED_SHARE and PSEEstimator.min_ess is ident.MIN_ESS


def _params(command) -> dict:
    return {p.name: p for p in command.params}


#: The options of ``popresume estimate`` that are not the estimator's.
ESTIMATE_OWN = {"profiles_path", "scores_path", "attribute", "screener", "z", "b", "r", "x0", "x1",
                "refit_bootstrap", "max_unmatched", "out_path", "quiet"}


def test_every_spec_field_is_an_estimate_option_and_back():
    from popresume.cli.estimate import command

    params = _params(command)
    assert set(params) - ESTIMATE_OWN == set(EstimatorSpec.names())
    for name in EstimatorSpec.names():
        p = params[name]
        assert p.opts[0] == "--" + name.replace("_", "-")
        want = "drop" if name == "missing" else getattr(DEFAULTS, name)  # the CLI's one own default
        assert p.default == want, name
        if name in CHOICES:
            assert tuple(p.type.choices) == CHOICES[name], name


def test_audit_options_are_the_spec_fields_its_request_carries():
    import dataclasses

    from popresume.audit.report_run import ReportRequest
    from popresume.cli.audit import REPORT_ESTIMATOR, command

    carried = {f.name for f in dataclasses.fields(ReportRequest)} & set(EstimatorSpec.names())
    assert set(REPORT_ESTIMATOR) == carried and {"folds", "n_boot", "seed", "tune"} <= carried
    params = _params(command)
    for name in REPORT_ESTIMATOR:
        assert params[name].default == getattr(DEFAULTS, name), name


def test_a_new_spec_field_becomes_an_option(monkeypatch):
    import dataclasses

    import click

    import popresume.causal.spec as S
    import popresume.cli.estimate as E

    wider = dataclasses.make_dataclass(
        "EstimatorSpec", [("se_formula", str, S.option("sandwich", "How the SE is computed.",
                                                       choices=("sandwich", "delta")))],
        bases=(EstimatorSpec,), frozen=True)
    monkeypatch.setattr(S, "EstimatorSpec", wider)
    monkeypatch.setattr(E, "EstimatorSpec", wider)
    monkeypatch.setattr(E, "DEFAULTS", wider())
    cmd = E.estimator_options()(click.command("x")(lambda **kw: None))
    p = _params(cmd)["se_formula"]
    assert p.opts == ["--se-formula"] and p.default == "sandwich" and tuple(p.type.choices) == ("sandwich", "delta")
    assert "How the SE is computed." in p.help


def test_the_config_block_is_the_spec_less_the_top_level_options():
    from popresume.audit.config import TOP_LEVEL_OPTIONS, EstimatorModel, GridModel

    assert set(EstimatorModel.model_fields) == (set(EstimatorSpec.names()) - set(TOP_LEVEL_OPTIONS)
                                                | {"grid", "learners", "trim"})
    assert set(TOP_LEVEL_OPTIONS) <= set(GridModel.model_fields)


def test_the_config_reads_screener_strings_with_parse_spec():
    from popresume.audit.config import screener_kind
    from popresume.screeners.specs import parse_spec

    for text in ("synthetic", "hf:/models/m.gguf", " Embedding ", "openai:m@http://127.0.0.1:8080/v1"):
        assert screener_kind(text) == parse_spec(text)["kind"]
    with pytest.raises(ValueError) as said:
        parse_spec("openai:gpt")
    assert not _config_accepts(screeners=["openai:gpt"])
    from popresume.audit.config import validate_config

    with pytest.raises(ValueError, match=re.escape(str(said.value))):
        validate_config({**GRID, "screeners": ["openai:gpt"]})


def test_report_takes_a_request_not_positionals():
    import inspect

    from popresume.audit.report_run import ReportRequest
    from popresume.cli.audit import _report

    params = list(inspect.signature(_report).parameters.values())
    assert params[0].name == "request" and params[0].annotation in (ReportRequest, "ReportRequest")
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]) and len(params) <= 5
