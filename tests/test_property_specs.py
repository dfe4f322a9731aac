"""Property tests of the screener spec grammar, ``-o KEY=VALUE`` options and the score
cache key.

Spec strings go through the public ``popresume.screeners.get_screener`` (whatever module
parses them), options through ``popresume score``'s ``screener_params``. The cache key must
change when any input that can move a score changes, and only then.
"""

from __future__ import annotations

import json

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popresume.cli.score import screener_params
from popresume.screeners import get_screener
from popresume.screeners.cache import cache_key, screener_cache_key

FAST = settings(max_examples=40, deadline=None, database=None)
names = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789-_./"), min_size=1, max_size=20)
hosts = st.sampled_from(["127.0.0.1", "localhost", "example.invalid", "10.0.0.7"])
kinds_case = st.sampled_from(["synthetic", "SYNTHETIC", "Synthetic", " synthetic"])


@FAST
@given(names, hosts, st.integers(1, 65535), st.sampled_from(["", "/v1", "/v1/", "/api/v2"]))
def test_openai_spec_splits_at_the_first_at_sign(model, host, port, path):
    url = f"http://{host}:{port}{path}"
    s = get_screener(f"openai:{model}@{url}")
    assert s.model == model
    assert s.base_url == url.rstrip("/")


@FAST
@given(names, kinds_case)
def test_kind_is_case_insensitive_and_the_rest_is_the_model(model, kind):
    s = get_screener(f"{kind}:{model}")
    assert s.screener_id == "synthetic" and s.model == model


@FAST
@given(names.filter(lambda k: k.strip().lower() not in ("embedding", "hf", "openai", "synthetic")))
def test_unknown_kind_is_named(kind):
    with pytest.raises(ValueError, match="unknown screener kind"):
        get_screener(f"{kind}:x")


@FAST
@given(names)
def test_openai_without_url_is_refused(model):
    with pytest.raises(ValueError, match="openai:MODEL@BASE_URL"):
        get_screener(f"openai:{model.replace('@', '')}")


@FAST
@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 100, allow_nan=False), st.integers(0, 2**31))
def test_options_are_json_values(intercept, noise_sd, seed):
    p = screener_params("synthetic", (f"intercept={json.dumps(intercept)}", f"noise_sd={json.dumps(noise_sd)}",
                                      f" seed ={seed}"))
    assert p == {"kind": "synthetic", "intercept": intercept, "noise_sd": noise_sd, "seed": seed}
    # the last of two equal options wins, as on any command line
    assert screener_params("synthetic", ("seed=1", f"seed={seed}"))["seed"] == seed


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@FAST
@given(names.filter(lambda s: not _is_json(s)))  # "-0", "12" or "null" are JSON values, not text
def test_option_text_that_is_not_json_stays_text(model):
    assert screener_params("synthetic", (f"model={model}",))["model"] == model
    # a value may itself hold '=': only the first one splits
    assert screener_params("synthetic", (f"model={model}=x",))["model"] == f"{model}=x"


@FAST
@given(names.filter(lambda s: "=" not in s))
def test_option_without_equals_is_refused(text):
    with pytest.raises(click.BadParameter, match="expected KEY=VALUE"):
        screener_params("synthetic", (text,))


@FAST
@given(st.sampled_from(["interceptt", "noise", "bogus", "sd"]))
def test_misspelt_option_is_refused_naming_it(key):
    with pytest.raises(click.BadParameter, match=key):
        screener_params("synthetic", (f"{key}=1",))


# ---------------------------------------------------------------------------- cache keys
PARTS = ("screener_id", "model", "prompt_hash", "resume_hash", "job_hash", "params")
part_values = st.fixed_dictionaries({
    "screener_id": names, "model": names, "prompt_hash": names, "resume_hash": names, "job_hash": names,
    "params": st.dictionaries(names, st.one_of(st.integers(), st.floats(allow_nan=False), names), max_size=4),
})


@FAST
@given(part_values, st.sampled_from(PARTS), st.data())
def test_cache_key_changes_with_every_input(parts, which, data):
    before = cache_key(*(parts[p] for p in PARTS))
    changed = dict(parts)
    if which == "params":
        extra = data.draw(names)
        changed["params"] = {**parts["params"], extra + "_new": 1}
    else:
        changed[which] = parts[which] + data.draw(names)
    assert cache_key(*(changed[p] for p in PARTS)) != before
    # and only then: the same inputs, params in any order, give the same key
    reordered = dict(reversed(list(parts["params"].items())))
    assert cache_key(*(parts[p] for p in PARTS[:-1]), reordered) == before


@FAST
@given(st.sampled_from(["intercept", "noise_sd", "seed", "model", "clip", "format"]), st.data())
def test_screener_cache_key_follows_every_scoring_setting(setting, data):
    base = {"kind": "synthetic", "intercept": 50.0, "noise_sd": 5.0, "seed": 0, "model": "m", "clip": False,
            "format": None}
    new_value = {
        "intercept": data.draw(st.floats(-100, 100).filter(lambda v: v != 50.0)),
        "noise_sd": data.draw(st.floats(0, 50).filter(lambda v: v != 5.0)),
        "seed": data.draw(st.integers(1, 10**6)),
        "model": data.draw(names.filter(lambda s: s != "m")),
        "clip": True,
        "format": data.draw(st.sampled_from(["text", "image", "image+photo"])),
    }[setting]
    key = screener_cache_key(get_screener(base), "r" * 64, "j" * 64)
    assert screener_cache_key(get_screener(base), "r" * 64, "j" * 64) == key
    assert screener_cache_key(get_screener({**base, setting: new_value}), "r" * 64, "j" * 64) != key
    assert screener_cache_key(get_screener(base), "s" * 64, "j" * 64) != key
    assert screener_cache_key(get_screener(base), "r" * 64, "k" * 64) != key
