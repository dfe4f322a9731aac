"""The screener specs (popresume.screeners.specs) are the one source of every default and
bound: each backend reads its settings from its spec, and one grammar parses spec strings."""

from __future__ import annotations

import doctest
import inspect

import pytest

from popresume.screeners import get_screener
from popresume.screeners import specs as screener_specs
from popresume.screeners.specs import SPEC_MODELS, OpenAISpec, SyntheticSpec, build_spec, parse_spec

URL = "http://127.0.0.1:9/v1"  # never contacted: building a screener sends nothing


def _backends():
    from popresume.screeners.embedding import EmbeddingScreener
    from popresume.screeners.hf import HFScreener
    from popresume.screeners.openai_http import OpenAIScreener
    from popresume.screeners.synthetic import SyntheticScreener

    return {"embedding": EmbeddingScreener, "hf": HFScreener, "openai": OpenAIScreener,
            "synthetic": SyntheticScreener}


def test_constructors_declare_no_defaults_of_their_own():
    """A constructor takes the spec (or its keys as keywords): no setting has a default in
    its signature, so the spec's default is the only one."""
    for kind, cls in _backends().items():
        params = inspect.signature(cls.__init__).parameters
        assert list(params) == ["self", "spec", "settings"], kind
        assert params["spec"].default is None and params["settings"].kind is inspect.Parameter.VAR_KEYWORD


def test_the_spec_default_is_the_default_a_screener_runs_with():
    # the old constructor said max_tokens=24, the spec 16, and get_screener never passed the spec's
    scr = get_screener(f"openai:m@{URL}")
    assert scr.max_tokens == OpenAISpec.model_fields["max_tokens"].default == 24
    assert scr.timeout == 60.0 and scr.max_retries == 5 and scr.concurrency == 8
    syn = get_screener("synthetic")
    assert syn.noise_sd == SyntheticSpec.model_fields["noise_sd"].default == 5.0
    assert syn.coef["edu_group"] == {"low": 0.0, "medium": 4.0, "high": 8.0}
    # the keyword path builds the same spec
    from popresume.screeners.openai_http import OpenAIScreener

    assert OpenAIScreener(model="m", base_url=URL).spec == scr.spec
    with pytest.raises(ValueError, match="not both"):
        OpenAIScreener(scr.spec, timeout=2.0)


def test_keyword_settings_are_checked_like_a_spec():
    from popresume.screeners.synthetic import SyntheticScreener

    with pytest.raises(ValueError, match="noise_sd"):
        SyntheticScreener(noise_sd=-1.0)
    with pytest.raises(ValueError, match="unknown key 'bogus'"):
        SyntheticScreener(bogus=1)


@pytest.mark.parametrize("text, expected", [
    ("synthetic", {"kind": "synthetic"}),
    (" Embedding ", {"kind": "embedding"}),
    ("hf:/models/x.gguf", {"kind": "hf", "model": "/models/x.gguf"}),
    ("openai:llama@http://h:1/v1", {"kind": "openai", "model": "llama", "base_url": "http://h:1/v1"}),
    ("openai:m@http://u:p@h/v1", {"kind": "openai", "model": "m", "base_url": "http://u:p@h/v1"}),
    ('{"kind": "synthetic", "noise_sd": 0}', {"kind": "synthetic", "noise_sd": 0}),
])
def test_one_grammar_for_spec_strings(text, expected):
    assert parse_spec(text) == expected


@pytest.mark.parametrize("text, message", [
    ("openai:m", "openai:MODEL@BASE_URL"),
    ("{not json", "not valid JSON"),
    ("nonsense:x", "unknown screener kind"),
    ('["synthetic"]', "must be an object"),
])
def test_bad_spec_strings_are_one_line_errors(text, message):
    with pytest.raises(ValueError, match=message) as e:
        build_spec(text)
    assert "\n" not in str(e.value)


def test_one_set_of_kinds():
    assert screener_specs.SCREENER_KINDS == tuple(SPEC_MODELS) == tuple(_backends())


@pytest.mark.parametrize("module", ["popresume.screeners.specs", "popresume.screeners", "popresume.screeners.prompt",
                                    "popresume.screeners.secrets"])
def test_docstring_examples_run(module):
    """The numpydoc Examples of the screener spec (OpenAISpec, build_spec), get_screener, the
    template check and the secrets run as doctests."""
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS, raise_on_error=False)
    assert result.attempted >= 2 and result.failed == 0, result


def test_abilities_are_declared_on_every_screener():
    """What the report and the leakage runner used to probe with getattr is declared: the
    capabilities, and neutral defaults for the rest (stats, prepare_profiles, public_spec)."""
    from popresume.screeners.base import can_judge, has_capability
    from popresume.screeners.embedding import EmbeddingScreener

    syn = get_screener({"kind": "synthetic", "noise_sd": 0.0})
    emb = EmbeddingScreener(batch_size=8)  # no weights are loaded by the constructor
    http = get_screener(f"openai:m@{URL}")
    assert has_capability(syn, "true_effects") and not has_capability(http, "true_effects")
    assert has_capability(emb, "batches") and emb.batch_size == 8 and not has_capability(http, "batches")
    assert [can_judge(s) for s in (syn, emb, http)] == [False, True, True]
    assert syn.stats == {} and http.stats["requests"] == 0
    assert syn.public_spec() == {"kind": "synthetic", "noise_sd": 0.0}
    with pytest.raises(ValueError, match="not a screener"):
        has_capability(object(), "json")


def test_an_unknown_torch_dtype_is_refused_by_the_spec():
    """It used to reach getattr(torch, dtype) when the model loaded: an AttributeError."""
    assert build_spec({"kind": "hf", "dtype": "bfloat16"}).dtype == "bfloat16"
    with pytest.raises(ValueError, match="dtype: must be 'float32', 'float16' or 'bfloat16', got 'float8'"):
        build_spec({"kind": "hf", "dtype": "float8"})
