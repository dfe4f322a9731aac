"""Config validation: every bad entry is named, and nothing runs before validation."""

import pytest

from popresume.audit.config import load_config, validate_config

BASE = {
    "occupations": ["nurse"],
    "formats": ["text", "image+photo"],
    "attributes": ["gender", "race"],
    "sizes": 100,
    "screeners": [
        {"name": "minilm", "spec": "embedding", "formats": ["text"]},
        {"name": "synth", "spec": {"kind": "synthetic"}, "formats": ["text", "image+photo"]},
    ],
}


def cfg(**changes):
    d = {**BASE, **changes}
    return d


def test_valid_config_builds_cells():
    c = validate_config(cfg())
    # nurse × (text: 2 screeners + image+photo: 1 screener) × 2 attributes
    assert len(c.cells()) == (2 + 1) * 2
    assert c.sizes == {"nurse": 100}
    synth = [s for s in c.screeners if s.name == "synth"][0]
    assert synth.synthetic and "synthetic" in synth.label


@pytest.mark.parametrize("key,value,needle", [
    ("occupations", ["nurse", "pilot"], "occupations[1]: unknown occupation 'pilot'"),
    ("formats", ["text", "video"], "formats[1]: unknown format 'video'"),
    ("attributes", ["gender", "religion"], "attributes[1]: unknown attribute 'religion'"),
    ("sizes", {"nurse": 100, "pilot": 50}, "sizes.pilot: names an occupation not in the grid"),
    ("sizes", 3, "sizes: must be an integer >= 20, got 3"),
    ("sizes", "big", "sizes: expected 'paper' or a valid integer"),
    ("folds", 1, "folds: must be greater than or equal to 2, got 1"),
    ("seed", "1", "seed: must be a valid integer, got '1'"),
    ("estimator", {"tunee": False}, "estimator.tunee: unknown key 'tunee'; known keys: aggregate, bootstrap"),
    ("estimator", {"tune": "no"}, "estimator.tune: must be a valid boolean, got 'no'"),
    ("estimator", {"bootstrap": "bag"}, "estimator.bootstrap: must be 'influence' or 'refit', got 'bag'"),
    ("render", {"skils": True}, "render.skils: unknown key 'skils'; known keys: face_source"),
])
def test_bad_entries_are_named(key, value, needle):
    with pytest.raises(ValueError) as e:
        validate_config(cfg(**{key: value}))
    assert needle in str(e.value)


def test_unknown_screener_named():
    bad = cfg(screeners=[{"name": "x", "spec": "embedding", "formats": ["text"]},
                         {"name": "bert", "spec": "bertscore:foo"}])
    with pytest.raises(ValueError, match=r"screeners\[1\]\.spec: unknown screener screeners\[1\] = 'bertscore:foo'"):
        validate_config(bad)


def test_text_only_screener_given_image_format():
    bad = cfg(screeners=[{"name": "minilm", "spec": "embedding"}])  # defaults to all formats
    with pytest.raises(ValueError) as e:
        validate_config(bad)
    msg = str(e.value)
    assert "screeners[0] (minilm" in msg and "cannot read images" in msg and "image+photo" in msg


def test_screener_format_outside_grid():
    bad = cfg(formats=["text"], screeners=[{"name": "s", "spec": "synthetic", "formats": ["image"]}])
    with pytest.raises(ValueError, match=r"screeners\[0\]\.formats\[0\]: screeners\[0\] \(s\)\.formats\[0\] = 'image'"):
        validate_config(bad)


def test_unknown_top_level_key_and_file(tmp_path):
    with pytest.raises(ValueError, match="sizse: unknown key 'sizse'; known keys: attributes"):
        validate_config(cfg(sizse=10))
    p = tmp_path / "a.yaml"
    p.write_text("occupations: [nurse, astronaut]\nformats: [text]\nattributes: [gender]\n"
                 "screeners: [{spec: synthetic}]\n")
    with pytest.raises(ValueError, match=r"a\.yaml, line 1: occupations\[1\]: unknown occupation 'astronaut'"):
        load_config(p)
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "missing.yaml")


def test_shipped_configs_validate():
    from popresume.paths import CONFIGS_DIR

    d = load_config(CONFIGS_DIR / "default_audit.yaml")
    assert set(d.formats) == {"text", "image", "image+photo"}
    full = load_config(CONFIGS_DIR / "paper_full.yaml")
    assert sum(full.sizes.values()) == 60884


def test_validation_happens_before_any_work(monkeypatch, tmp_path):
    """run_audit on a bad config raises before generating a single profile."""
    import popresume.audit.grid as grid

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("work started before validation")

    monkeypatch.setattr(grid, "load_profiles", boom)
    with pytest.raises(ValueError, match="pilot"):
        grid.run_audit(cfg(occupations=["pilot"]), cache_dir=tmp_path, progress=False)


def test_replace_keeps_validation_and_subsets_sizes():
    c = validate_config(cfg(occupations=["nurse", "teacher"], sizes={"nurse": 100, "teacher": 200}))
    d = c.replace(occupations=["teacher"])
    assert d.sizes == {"teacher": 200}
    with pytest.raises(ValueError, match="occupations\\[0\\]: unknown occupation 'pilot'"):
        c.replace(occupations=["pilot"])


SYNTH_YAML = """\
occupations: [nurse]
formats: [text]
attributes: [gender]
sizes: 100
screeners:
  - name: synth
    spec:
      kind: synthetic
      noise: 3.0
      coef:
        edu_group: {low: 0.0, medum: 4.0}
"""


def test_synthetic_spec_keys_levels_and_lines(tmp_path):
    """A mistyped synthetic-screener key or level is named with its place and line."""
    p = tmp_path / "synth.yaml"
    p.write_text(SYNTH_YAML)
    with pytest.raises(ValueError) as e:
        load_config(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}, line 9: screeners[0].spec.noise: unknown key 'noise'; known keys: clip, coef")
    assert "line 11: screeners[0].spec.coef.edu_group.medum: unknown level 'medum' of 'edu_group'" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("spec,needle", [
    ({"kind": "synthetic", "coef": {"edu_grup": {"low": 1.0}}}, "spec.coef.edu_grup: unknown profile column"),
    ({"kind": "synthetic", "direct": {"gender": {"Male": 1.0}}}, "spec.direct.gender.Male: unknown level 'Male'"),
    ({"kind": "synthetic", "coef": {"age": {"old": 1.0}}}, "spec.coef.age: 'age' is numeric"),
    ({"kind": "synthetic", "coef": {"region": 2.0}}, "spec.coef.region: 'region' is categorical"),
    ({"kind": "synthetic", "noise_sd": -1}, "spec.noise_sd: must be greater than or equal to 0"),
    ({"kind": "embedding", "batchsize": 8}, "spec.batchsize: unknown key 'batchsize'; known keys: batch_size"),
    ({"kind": "openai", "model": "m", "base_url": "ftp://h"}, "spec.base_url: String should match"),
    ({"kind": "openai", "model": "m", "response_format": "grammar"}, "spec.response_format: must be 'auto' or one of"),
    ({"kind": "bert"}, "spec.kind: unknown screener kind 'bert'"),
    ("openai:gpt", "screener screeners[0] = 'openai:gpt': an openai screener spec is 'openai:MODEL@BASE_URL'"),
])
def test_screener_specs_are_checked(spec, needle):
    with pytest.raises(ValueError) as e:
        validate_config(cfg(formats=["text"], screeners=[{"name": "s", "spec": spec}]))
    assert f"screeners[0].{needle}" in str(e.value) or needle in str(e.value)


def test_yaml_syntax_error_is_one_line_with_line_number(tmp_path):
    p = tmp_path / "broken.yaml"
    p.write_text("name: t\noccupations: [nurse\nformats: [text]\n")
    with pytest.raises(ValueError) as e:
        load_config(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}, line 3: YAML syntax error, column 8:") and "\n" not in msg


def test_the_estimates_cache_key_resolves_defaults():
    """estimator/render keep what the user wrote; the estimates' cache key resolves every
    estimator default, so an estimate made under an old default (the influence variance before
    the jackknife became the default) is not reused, while speed-only options do not count."""
    import popresume.audit.config as config_module
    from popresume.causal.identification import RULE_SETTINGS
    from popresume.paths import CONFIGS_DIR

    c = load_config(CONFIGS_DIR / "default_audit.yaml")
    assert c.estimator == {"tune": False, "threads": 1, "variance": "influence", "identification": "paper"}
    assert c.render == {}
    key = c.estimator_key()
    assert {k: key[k] for k in ("folds", "n_boot", "seed", "tune", "variance", "identification")} == {
        "folds": 5, "n_boot": 500, "seed": 0, "tune": False, "variance": "influence", "identification": "paper"}
    assert key["clip"] == 0.01 and key["estimable_rule"] == "support"  # defaults, resolved
    assert key["estimable_rule_settings"] == RULE_SETTINGS
    assert "threads" not in key and "jackknife_jobs" not in key
    bare = load_config({**c.to_dict(), "estimator": {}})
    before = bare.estimator_key()
    with pytest.MonkeyPatch.context() as mp:  # a new default moves the key of a config that did not write it
        mp.setattr(config_module, "DEFAULTS", config_module.DEFAULTS.replace(variance="average"))
        assert bare.estimator_key() != before and bare.estimator_key()["variance"] == "average"
    faster = load_config({**c.to_dict(), "estimator": {"threads": 4, "jackknife_jobs": 2}})
    assert faster.estimator_key() == before


def test_estimator_block_matches_estimate_pse():
    import inspect

    from popresume.audit.config import TOP_LEVEL_OPTIONS, EstimatorModel
    from popresume.causal import EstimatorSpec, estimate_pse

    # the spec's fields (but the grid-level ones) and estimate_pse's own keywords, not its bookkeeping
    args = set(inspect.signature(estimate_pse).parameters) | set(EstimatorSpec.names())
    not_config = {"data", "roles", "spec", "options", "progress", "return_estimator", *TOP_LEVEL_OPTIONS}
    assert set(EstimatorModel.model_fields) == args - not_config


def test_estimator_typo_fails_before_any_work(monkeypatch, tmp_path):
    import popresume.audit.grid as grid

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("work started before validation")

    monkeypatch.setattr(grid, "load_profiles", boom)
    with pytest.raises(ValueError, match="estimator.tunee: unknown key"):
        grid.run_audit(cfg(estimator={"tunee": False}), cache_dir=tmp_path, progress=False)


def test_in_memory_configs_accept_numpy_numbers_and_tuples():
    import numpy as np

    c = validate_config(cfg(occupations=("nurse",), formats=("text", "image+photo"), sizes={"nurse": np.int64(50)},
                            seed=np.int32(3), estimator={"clip": np.float64(0.02)}))
    assert c.sizes == {"nurse": 50} and type(c.seed) is int and c.estimator == {"clip": 0.02}
    with pytest.raises(ValueError, match="seed: must be a valid integer, got True"):
        validate_config(cfg(seed=True))  # strict: a bool is not an int


def test_duplicate_yaml_keys_are_refused_with_key_and_lines(tmp_path):
    f = tmp_path / "dup.yaml"
    f.write_text("occupations: [nurse]\nformats: [text]\nfolds: 5\nattributes: [gender]\n"
                 "screeners: [synthetic]\nfolds: 2\n")
    with pytest.raises(ValueError) as e:
        load_config(f)
    msg = str(e.value)
    assert str(f) in msg and "line 6" in msg and "duplicate key 'folds' (first on line 3, again on line 6)" in msg
    assert "\n" not in msg
    nested = tmp_path / "nested.yaml"
    nested.write_text("occupations: [nurse]\nformats: [text]\nattributes: [gender]\nscreeners: [synthetic]\n"
                      "estimator:\n  clip: 0.05\n  tune: false\n  clip: 0.2\n")
    with pytest.raises(ValueError, match=r"duplicate key 'clip' \(first on line 6, again on line 8\)"):
        load_config(nested)


def test_yaml_loader_keeps_safe_behaviour():
    import yaml

    from popresume import yamlio

    assert yamlio.load("a: 1\nb: {c: [1, 2]}\n") == {"a": 1, "b": {"c": [1, 2]}}
    assert yamlio.load("base: &b {x: 1}\nder:\n  <<: *b\n  y: 2\n")["der"] == {"x": 1, "y": 2}
    with pytest.raises(yaml.YAMLError):
        yamlio.load("!!python/object/apply:os.system ['echo hi']")
    with pytest.raises(yaml.MarkedYAMLError, match="duplicate key 'x'"):
        yamlio.load("l:\n  - {x: 1, x: 2}\n")
