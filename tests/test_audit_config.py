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
    ("occupations", ["nurse", "pilot"], "occupations[1] = 'pilot'"),
    ("formats", ["text", "video"], "formats[1] = 'video'"),
    ("attributes", ["gender", "religion"], "attributes[1] = 'religion'"),
    ("sizes", {"nurse": 100, "pilot": 5}, "sizes['pilot']"),
    ("sizes", 3, "'sizes'"),
    ("folds", 1, "'folds'"),
])
def test_bad_entries_are_named(key, value, needle):
    with pytest.raises(ValueError) as e:
        validate_config(cfg(**{key: value}))
    assert needle in str(e.value)


def test_unknown_screener_named():
    bad = cfg(screeners=[{"name": "x", "spec": "embedding", "formats": ["text"]},
                         {"name": "bert", "spec": "bertscore:foo"}])
    with pytest.raises(ValueError, match=r"unknown screener screeners\[1\] = 'bertscore:foo'"):
        validate_config(bad)


def test_text_only_screener_given_image_format():
    bad = cfg(screeners=[{"name": "minilm", "spec": "embedding"}])  # defaults to all formats
    with pytest.raises(ValueError) as e:
        validate_config(bad)
    msg = str(e.value)
    assert "screeners[0] (minilm" in msg and "cannot read images" in msg and "image+photo" in msg


def test_screener_format_outside_grid():
    bad = cfg(formats=["text"], screeners=[{"name": "s", "spec": "synthetic", "formats": ["image"]}])
    with pytest.raises(ValueError, match=r"screeners\[0\] \(s\)\.formats\[0\] = 'image'"):
        validate_config(bad)


def test_unknown_top_level_key_and_file(tmp_path):
    with pytest.raises(ValueError, match="'sizse'"):
        validate_config(cfg(sizse=10))
    p = tmp_path / "a.yaml"
    p.write_text("occupations: [nurse, astronaut]\nformats: [text]\nattributes: [gender]\n"
                 "screeners: [{spec: synthetic}]\n")
    with pytest.raises(ValueError, match=r"occupations\[1\] = 'astronaut' in .*a\.yaml"):
        load_config(p)
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "missing.yaml")


def test_shipped_configs_validate():
    from popresume.paths import REPO_ROOT

    d = load_config(REPO_ROOT / "configs" / "default_audit.yaml")
    assert set(d.formats) == {"text", "image", "image+photo"}
    full = load_config(REPO_ROOT / "configs" / "paper_full.yaml")
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
    with pytest.raises(ValueError, match="occupations\\[0\\] = 'pilot'"):
        c.replace(occupations=["pilot"])
