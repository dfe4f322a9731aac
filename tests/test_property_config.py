"""Property tests of the configuration readers: YAML (popresume.yamlio), audit configs
(popresume.audit.config) and ``popresume book run -p NAME VALUE`` values
(popresume.book.parse_value)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from popresume import yamlio
from popresume.audit.config import ConfigError, load_config, read_yaml
from popresume.book import parse_value
from popresume.paths import CONFIGS_DIR

FAST = settings(max_examples=30, deadline=None, database=None)
# mapping keys that YAML reads back as the same string (not "null", "yes", "on", ...)
keys = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_"), min_size=1, max_size=12).filter(
    lambda k: yaml.safe_load(k) == k)
scalars = st.one_of(st.integers(-10**9, 10**9), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                    st.none(), st.text(max_size=20))
documents = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(keys, inner, max_size=4)), max_leaves=12)


@FAST
@given(st.dictionaries(keys, documents, max_size=6))
def test_yaml_round_trip(doc):
    assert yamlio.load(yaml.safe_dump(doc)) == doc


@FAST
@given(st.lists(keys, min_size=2, max_size=6, unique=True), st.data())
def test_a_key_written_twice_is_refused_naming_both_lines(names, data):
    dup = data.draw(st.sampled_from(names))
    lines = [f"{k}: {i}" for i, k in enumerate(names)] + [f"{dup}: again"]
    with pytest.raises(yaml.MarkedYAMLError, match=rf"duplicate key '{dup}' \(first on line "
                                                   rf"{names.index(dup) + 1}, again on line {len(lines)}\)"):
        yamlio.load("\n".join(lines))
    # nested mappings too
    with pytest.raises(yaml.MarkedYAMLError, match="duplicate key"):
        yamlio.load("top:\n" + "\n".join("  " + line for line in lines))


@FAST
@given(st.text(max_size=40))
def test_yamlio_never_runs_tags(payload):
    with pytest.raises(yaml.YAMLError):
        yamlio.load(f"!!python/object/apply:os.system [{payload!r}]")


# ---------------------------------------------------------------------------- audit configs
DEFAULT = yamlio.load((CONFIGS_DIR / "default_audit.yaml").read_text())


@FAST
@given(keys.filter(lambda k: k not in DEFAULT))
def test_unknown_top_level_key_is_named(key):
    with pytest.raises(ConfigError, match=key):
        load_config({**DEFAULT, key: 1})


@FAST
@given(st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=3, max_size=12).filter(
    lambda s: s not in ("nurse", "teacher", "accountant", "all")))
def test_unknown_occupation_is_named(occupation):
    with pytest.raises(ConfigError, match=occupation):
        load_config({**DEFAULT, "occupations": ["nurse", occupation]})


@FAST
@given(st.integers(1, 10_000), st.integers(0, 2**31), st.integers(3, 10))  # folds >= 3: nested cross-fitting
def test_valid_changes_are_kept(n_boot, seed, folds):
    cfg = load_config({**DEFAULT, "n_boot": n_boot, "seed": seed, "folds": folds})
    assert (cfg.n_boot, cfg.seed, cfg.folds) == (n_boot, seed, folds)


@settings(max_examples=10, deadline=None, database=None)
@given(key=st.sampled_from(["folds", "n_boot", "seed", "sizes"]), extra_lines=st.integers(0, 5))
def test_duplicate_key_in_a_config_file_names_its_line(key, extra_lines):
    text = (CONFIGS_DIR / "default_audit.yaml").read_text() + "\n" * extra_lines + f"\n{key}: 2\n"
    line = len(text.splitlines())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dup.yaml"
        path.write_text(text)
        with pytest.raises(ConfigError, match=rf"dup\.yaml, line {line}: .*duplicate key '{key}'"):
            read_yaml(path)


# ---------------------------------------------------------------------------- book params
literals = st.recursive(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                                  st.none(),
                                  st.text(max_size=10)),
                        lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                                st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                        max_leaves=8)


@FAST
@given(literals)
def test_python_literals_round_trip(value):
    assert parse_value(repr(value)) == value


@FAST
@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_arithmetic_is_not_evaluated_as_code_but_stays_text_or_number(a, b):
    # "a * b" is not a literal: parse_value keeps it as YAML/text, it never runs it
    out = parse_value(f"{a} * {b}")
    assert out == f"{a} * {b}"


@FAST
@given(st.sampled_from(["true", "false", "yes", "null", "~", "[a, b]", "{nurse: 200}", "[1, x]", "a: [1, 2]"]))
def test_yaml_values(text):
    # not a Python literal: read as YAML
    assert parse_value(text) == yaml.safe_load(text)


def test_python_literal_wins_over_yaml():
    assert parse_value("1e3") == 1000.0 and parse_value("True") is True and parse_value("None") is None
    assert parse_value("'yes'") == "yes"  # quoted: the string, not YAML's boolean


@FAST
@given(st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz_-/"), min_size=1, max_size=20).filter(
    lambda s: s not in ("y", "n", "yes", "no", "on", "off", "true", "false", "null")))
@example("-")  # YAML reads a lone dash as a list holding null (found by this test)
def test_plain_words_stay_text(word):
    assert parse_value(word) == word


@FAST
@given(st.text(max_size=60))
def test_parse_value_never_raises(text):
    value = parse_value(text)
    if isinstance(value, float) and math.isnan(value):
        return
    assert value is not None or text.strip() in ("", "~", "null", "Null", "NULL", "None")


@pytest.mark.parametrize("text", ["-", "a:", "- -", "{a: }"])
def test_empty_yaml_nodes_stay_text(text):
    # YAML fills an empty node with null; a value that never says null is the user's text
    assert parse_value(text) == text


@pytest.mark.parametrize("text, value", [("[a, null]", ["a", None]), ("{a: ~}", {"a": None}), ("- x", ["x"])])
def test_spelled_nulls_and_block_lists_are_yaml(text, value):
    assert parse_value(text) == value
