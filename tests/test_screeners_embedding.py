"""The embedding screener: offline default model, chunking (no silent truncation), fast path."""

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
    n_tok = len(fp32.st.tokenizer(long_text, add_special_tokens=False)["input_ids"])
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


def test_fast_path_within_one_point_of_fp32(fp32):
    res = make_resumes(24, seed=1)
    fast = EmbeddingScreener(precision="bf16", num_threads=1)
    a = score_resumes(fp32, res, cache=False, job_descriptions=JD)
    b = score_resumes(fast, res, cache=False, job_descriptions=JD)
    assert fast.cache_params() != fp32.cache_params()  # precisions never share cache entries
    assert np.max(np.abs(a["score"].to_numpy() - b["score"].to_numpy())) < 1.0


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
    assert EmbeddingScreener().capabilities == frozenset({"text", "embeddings", "batches"})


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_score_does_not_depend_on_its_batch(precision, tmp_path):
    """The same résumé scored alone and amid résumés of other lengths gets the same score to
    the last bit, so a cache shared by runs that batch differently holds one answer."""
    scr = get_screener({"kind": "embedding", "precision": precision, "num_threads": 1, "batch_size": 2})
    res = make_resumes(4, seed=3)
    alone = score_resumes(scr, res.iloc[[2]], cache=False, job_descriptions=JD)
    mixed = score_resumes(scr, res, cache=False, job_descriptions=JD)
    reversed_ = score_resumes(scr, res.iloc[::-1], cache=False, job_descriptions=JD)
    assert alone["score"].iloc[0] == mixed["score"].iloc[2] == reversed_.set_index("resume_id").loc["e002", "score"]
    assert mixed.set_index("resume_id")["score"].equals(reversed_.set_index("resume_id")["score"].loc[mixed["resume_id"]])
    assert scr.cache_params()["padding"] == "window"
