"""The embedding screener: offline default model, chunking (no silent truncation), runtimes and
precisions, length buckets."""

import json

import numpy as np
import pandas as pd
import pytest

from popresume.screeners import get_screener, score_resumes
from popresume.screeners.embedding import EmbeddingScreener, default_model_path

JD = {"nurse": "Registered Nurse. Provide direct patient care in a hospital unit, administer medications, "
               "document in the electronic health record, and collaborate with physicians. "
               "Requires an RN license and a BSN; ICU experience preferred.",
      "software_developer": "Software Developer. Design, build and test web services in Python and Java; "
                            "code review, cloud deployment, CI/CD. Bachelor's in computer science."}

SKILLS = {"nurse": ["patient assessment", "medication administration", "IV therapy", "EHR charting", "ICU care",
                    "wound care", "BLS/ACLS", "care planning"],
          "software_developer": ["Python", "Java", "REST APIs", "AWS", "Docker", "unit testing", "SQL", "Git"]}


def make_resumes(n, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        occ = ["nurse", "software_developer"][i % 2]
        k = int(rng.integers(2, 7))
        lines = [f"JOHN DOE {i}", "CA, USA | +1-555-0100 | john@example.com", "WORK HISTORY"]
        for j in range(k):
            lines.append(f"{occ.replace('_', ' ').title()}, Company {j}, {2010 + j}-{2011 + j}")
            lines += [f"- {s}" for s in rng.choice(SKILLS[occ], 3, replace=False)]
        lines += ["EDUCATION", "Bachelor's degree", "SKILLS", ", ".join(rng.choice(SKILLS[occ], 4, replace=False))]
        rows.append({"resume_id": f"e{i:03d}", "occupation": occ, "text": "\n".join(lines)})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def fp32():
    return get_screener({"kind": "embedding", "precision": "fp32", "num_threads": 1})


def test_default_model_ships_in_wheel_and_loads_offline(fp32, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert (default_model_path() / "model.safetensors").exists()
    e = fp32.embed(["registered nurse", "software engineer", "registered nurse"])
    assert e.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)
    assert e[0] @ e[2] > 0.999 and e[0] @ e[1] < 0.9


def test_long_resume_chunked_not_truncated(fp32):
    filler = " ".join(["Managed office supplies and answered phone calls for the front desk."] * 60)
    tail = " Registered nurse in the intensive care unit: administered medications, IV therapy, EHR charting."
    long_text = filler + tail
    chunks = fp32.chunk(long_text)
    n_tok = len(fp32.tokenizer(long_text, add_special_tokens=False)["input_ids"])
    assert len(chunks) >= 3 and all(k <= fp32.max_tokens for _, k in chunks)
    assert sum(k for _, k in chunks) == n_tok  # every token is in exactly one chunk
    assert chunks[-1][0].endswith("EHR charting.")
    res = pd.DataFrame({"resume_id": ["long", "first"], "occupation": "nurse",
                        "text": [long_text, chunks[0][0]]})
    out = score_resumes(fp32, res, cache=False, job_descriptions=JD)
    info = [json.loads(r) for r in out["raw"]]
    assert info[0]["n_chunks"] == len(chunks) and info[0]["n_tokens"] == n_tok
    assert info[1]["n_chunks"] == 1
    # the nursing content at the end (beyond the first window) raises the score
    assert out.loc[0, "score"] > out.loc[1, "score"]


def test_scores_match_occupation_and_mapping(fp32):
    res = make_resumes(6)
    jd_swapped = {"nurse": JD["software_developer"], "software_developer": JD["nurse"]}
    right = score_resumes(fp32, res, cache=False, job_descriptions=JD)
    wrong = score_resumes(fp32, res, cache=False, job_descriptions=jd_swapped)
    assert (right["score"] > wrong["score"]).all()
    cos = np.array([json.loads(r)["cosine"] for r in right["raw"]])
    np.testing.assert_allclose(right["score"], fp32.cosine_to_score(cos), atol=1e-3)
    assert fp32.cosine_to_score(fp32.cos_low) == 0 and fp32.cosine_to_score(fp32.cos_high) == 100


def test_each_precision_against_torch_fp32():
    """The largest |Δ score| of every runtime × precision against sentence-transformers' own
    fp32 model; the default stays under 0.5 points and never shares cache entries."""
    res = make_resumes(24, seed=1)
    ref = score_resumes(EmbeddingScreener(runtime="torch", precision="fp32", num_threads=1), res, cache=False,
                        job_descriptions=JD)["score"].to_numpy()
    # measured on 200 benchmark résumés: onnx fp32 5e-5, onnx int8 (FFN only, per channel) 5.0 points
    bound = {("onnx", "fp32"): (0, 0.01), ("torch", "bf16"): (0, 1.0), ("onnx", "int8"): (0.5, 40.0)}
    seen = set()
    for (runtime, precision), (least, most) in bound.items():
        scr = EmbeddingScreener(runtime=runtime, precision=precision, num_threads=1)
        s = score_resumes(scr, res, cache=False, job_descriptions=JD)["score"].to_numpy()
        # int8 must stay out of the default's reach: its largest |Δ| is over the 0.5-point rule
        assert least <= np.max(np.abs(s - ref)) < most, (runtime, precision)
        seen.add(json.dumps(scr.cache_params(), sort_keys=True))
    assert len(seen) == len(bound)  # runtimes and precisions never share cache entries
    default = EmbeddingScreener(num_threads=1)
    d = score_resumes(default, res, cache=False, job_descriptions=JD)["score"].to_numpy()
    assert np.max(np.abs(d - ref)) < 0.5


def test_onnx_tokenizer_matches_transformers():
    """The ONNX path's tokenizer (tokenizer.json read by the tokenizers library) gives the ids
    and offsets of transformers' fast tokenizer, with no truncation at the file's 128 tokens."""
    from transformers import AutoTokenizer

    from popresume.screeners.embedding_onnx import FastTokenizer

    ref = AutoTokenizer.from_pretrained(str(default_model_path()), local_files_only=True)
    ours = FastTokenizer(default_model_path())
    texts = make_resumes(6)["text"].tolist() + [JD["nurse"] * 12, "Naïve café — Ünïcode\n\ttabs 中文 e-mail: a@b.co"]
    assert ours(texts)["input_ids"] == ref(texts)["input_ids"]
    assert max(len(x) for x in ours(texts)["input_ids"]) > 400  # the long posting is not truncated
    for t in texts:
        a = ref(t, add_special_tokens=False, return_offsets_mapping=True)
        b = ours(t, add_special_tokens=False, return_offsets_mapping=True)
        assert a["input_ids"] == b["input_ids"] and [tuple(o) for o in a["offset_mapping"]] == b["offset_mapping"]
    assert ours.pad_token_id == ref.pad_token_id


def test_onnx_path_imports_neither_torch_nor_transformers(fp32):
    """Once the export exists (the fixture made it), scoring on the ONNX path loads no torch,
    transformers or sentence-transformers: their imports were most of its start-up time."""
    import subprocess
    import sys

    assert fp32.runtime == "onnx"
    fp32.warmup()
    code = ("import sys; from popresume.screeners.embedding import EmbeddingScreener as E; "
            "s = E(precision='fp32', num_threads=1); s.embed(['registered nurse']); "
            "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers', 'onnx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_runtime_falls_back_to_torch_without_onnxruntime(monkeypatch):
    import importlib.util
    import sys

    from popresume.extras import MissingExtraError
    from popresume.screeners.embedding import resolve_runtime

    assert resolve_runtime("auto", "auto", "cpu")[0] == "onnx"
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    assert resolve_runtime("auto", "auto", "cpu")[0] == "torch"
    assert resolve_runtime("auto", "fp32", "cpu") == ("torch", "fp32")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now fails
    with pytest.raises(MissingExtraError, match="onnxruntime"):
        EmbeddingScreener(runtime="onnx", precision="fp32").embed(["registered nurse"])
    with pytest.raises(ValueError, match="int8.*runtime='onnx'"):
        EmbeddingScreener(runtime="torch", precision="int8")
    with pytest.raises(ValueError, match="bf16.*runtime='torch'"):
        EmbeddingScreener(runtime="onnx", precision="bf16")


def test_validity_verdict_same_at_every_precision():
    """A small validity card reaches the same verdict on the torch fp32 reference and the default."""
    from popresume.screeners.validity import CONTRASTS, validity_card

    ref = validity_card(EmbeddingScreener(runtime="torch", precision="fp32", num_threads=1), n=5, cache=False)
    new = validity_card(EmbeddingScreener(num_threads=1), n=5, cache=False)
    assert new["verdict"] == ref["verdict"]
    for name in CONTRASTS:
        assert abs(new[name]["estimate"] - ref[name]["estimate"]) < 0.5, name


def test_empty_resume_and_image_errors(fp32):
    with pytest.raises(ValueError, match="empty"):
        score_resumes(fp32, pd.DataFrame({"resume_id": ["a"], "occupation": ["nurse"], "text": [""]}),
                      cache=False, job_descriptions=JD)
    with pytest.raises(ValueError, match="empty"):
        fp32.embed(["ok", "   "])
    with pytest.raises(ValueError, match="cannot read images"):
        score_resumes(fp32, pd.DataFrame({"resume_id": ["a"], "occupation": ["nurse"], "image_path": ["x.png"]}),
                      cache=False, job_descriptions=JD)


def test_batch_size_is_in_the_cache_key():
    from popresume.screeners.embedding import EmbeddingScreener

    a = EmbeddingScreener(batch_size=8).cache_params()
    b = EmbeddingScreener(batch_size=32).cache_params()
    assert a["batch_size"] == 8 and b["batch_size"] == 32 and a != b
    # int8 runs one chunk a call whatever batch_size says (its activation scale spans the call)
    assert EmbeddingScreener(runtime="onnx", precision="int8", batch_size=8).cache_params()["batch_size"] == 1
    assert EmbeddingScreener().capabilities == frozenset({"text", "embeddings", "batches"})


def bucket_texts():
    """Résumé-like texts whose chunks fall in every length bucket (32 … 256 tokens), and one
    that needs two chunks."""
    words = ("Registered nurse, intensive care unit; administered medications and IV therapy; charted in "
             "the EHR; trained new staff; led the wound care rounds on night shifts.").split()
    return [" ".join((words * 40)[:k]) for k in (14, 38, 62, 85, 108, 136, 160, 186, 400)]


@pytest.mark.parametrize("runtime,precision", [("onnx", "fp32"), ("onnx", "int8"), ("torch", "fp32"),
                                               ("torch", "bf16")])
def test_a_score_does_not_depend_on_its_batch(runtime, precision):
    """The same résumé scored alone and amid résumés of other lengths gets the same score to
    the last bit, in every length bucket, so a cache shared by runs that batch differently
    holds one answer."""
    scr = EmbeddingScreener(runtime=runtime, precision=precision, num_threads=1, batch_size=2)
    texts = bucket_texts()
    res = pd.DataFrame({"resume_id": [f"b{i}" for i in range(len(texts))], "occupation": "nurse", "text": texts})
    lengths = [len(x) for x in scr.token_chunks(texts)[0]]
    buckets = {min(-(-n // 32) * 32, scr.window) for n in lengths}
    assert buckets == {32, 64, 96, 128, 160, 192, 224, 256}
    mixed = score_resumes(scr, res, cache=False, job_descriptions=JD).set_index("resume_id")["score"]
    reversed_ = score_resumes(scr, res.iloc[::-1], cache=False, job_descriptions=JD).set_index("resume_id")["score"]
    assert mixed.equals(reversed_.loc[mixed.index])
    for i in range(len(texts)):
        alone = score_resumes(scr, res.iloc[[i]], cache=False, job_descriptions=JD)["score"].iloc[0]
        assert alone == mixed.iloc[i], (runtime, precision, i, alone, mixed.iloc[i])
    assert scr.cache_params()["padding"] == "bucket32"
