"""The corpus of "Beyond the Name": counts, invariants, criteria coverage and bad input."""

import re
import shutil

import pandas as pd
import pytest
import yaml

from popresume.leakage.corpus import (
    CONTROL, GROUPS, LANGUAGE_LINE, TIERS, VARIANTS_PER_BASE, CorpusError, build_corpus, check_corpus,
    criteria_coverage, job_description, load_occupations, split_sections,
)
from popresume.paths import DATA_DIR


def test_counts_and_factorial(corpus):
    v, b = corpus
    assert len(v) == 620 == 20 * 31 == v["base_id"].nunique() * VARIANTS_PER_BASE
    assert len(b) == 20 and set(b["base_id"]) == set(v["base_id"])
    assert v["variant_id"].is_unique
    assert v.groupby("occupation")["base_id"].nunique().eq(5).all() and v["occupation"].nunique() == 4
    per_cell = v[v["condition"] != CONTROL].groupby(["base_id", "condition", "tier"]).size()
    assert per_cell.eq(2).all() and len(per_cell) == 20 * len(GROUPS) * len(TIERS)
    assert (v["condition"] == CONTROL).sum() == 20


def test_language_line_and_byte_identical_prefix(corpus):
    v, b = corpus
    for row in v.itertuples():
        prefix, section = split_sections(row.text)
        assert section is not None and LANGUAGE_LINE in section.splitlines()
        assert row.text.count("Languages:") == 1
    prefixes = v.assign(prefix=[split_sections(t)[0] for t in v["text"]]).groupby("base_id")["prefix"].nunique()
    assert prefixes.eq(1).all()
    # the omission baseline is exactly the shared prefix, with no Additional Information at all
    for row in b.itertuples():
        first = v[v["base_id"] == row.base_id]["text"].iloc[0]
        assert split_sections(first)[0] == row.text and "ADDITIONAL INFORMATION" not in row.text
        assert LANGUAGE_LINE not in row.text
    # blocks really differ within a base
    assert v.groupby("base_id")["text"].nunique().eq(31).all()


def test_bases_meet_all_mandatory_and_80_to_90_percent_desirable():
    cov = criteria_coverage()
    assert len(cov) == 20
    assert (cov["mandatory_met"] == cov["mandatory_total"]).all()
    assert cov["desirable_ratio"].between(0.8, 0.9).all()
    assert (cov["evidence_missing"] == "").all(), cov[cov["evidence_missing"] != ""]


def test_occupations_are_sydney_and_paid_100_to_120k():
    occ = load_occupations()
    assert len(occ) == 4
    for key, o in occ.items():
        assert "Sydney" in o["location"] or "Parramatta" in o["location"] or "North Sydney" in o["location"]
        pay = [int(x.replace(",", "")) for x in re.findall(r"\d{3},\d{3}", o["salary"])]
        assert pay and all(100_000 <= p <= 120_000 for p in pay), (key, o["salary"])
        jd = job_description(key)
        assert "Mandatory criteria:" in jd and "Desirable criteria:" in jd
    with pytest.raises(ValueError, match="unknown leakage occupation"):
        job_description("nurse")


def test_blocks_name_no_language_but_english(corpus):
    v, _ = corpus
    sections = " ".join(split_sections(t)[1] for t in v["text"]).lower()
    for w in ("mandarin", "cantonese", "hindi", "tamil", "punjabi", "fluent", "bilingual"):
        assert w not in sections


def _tamper(v, i, text):
    v = v.copy()
    v.loc[v.index[i], "text"] = text
    return v


def test_broken_invariants_raise_naming_the_variant(corpus):
    v, b = corpus
    vid = v["variant_id"].iloc[40]
    t = v["text"].iloc[40]
    with pytest.raises(CorpusError, match=re.escape(vid)):
        check_corpus(_tamper(v, 40, t.replace(LANGUAGE_LINE, "Languages: English (Native)")), b)
    with pytest.raises(CorpusError, match="Mandarin"):
        check_corpus(_tamper(v, 40, t + "Interests: Mandarin classes.\n"), b)
    with pytest.raises(CorpusError, match="byte-identical"):
        check_corpus(_tamper(v, 40, t.replace("SKILLS", "SKILLS ", 1)), b)
    with pytest.raises(CorpusError, match="no 'ADDITIONAL INFORMATION' section"):
        check_corpus(_tamper(v, 40, split_sections(t)[0]), b)
    with pytest.raises(CorpusError, match="variants, expected 31"):
        check_corpus(v.drop(v.index[40]), b)
    with pytest.raises(CorpusError, match="duplicate variant_id"):
        check_corpus(pd.concat([v, v.iloc[[3]]]), b)
    bad_b = b.copy()
    bad_b.loc[bad_b.index[0], "text"] = bad_b["text"].iloc[0] + "extra\n"
    with pytest.raises(CorpusError, match="baseline"):
        check_corpus(v, bad_b)


def test_broken_source_files_raise(tmp_path):
    d = tmp_path / "leakage"
    shutil.copytree(DATA_DIR / "leakage", d)
    src = yaml.safe_load((d / "blocks.yaml").read_text())
    src["groups"]["Indian"]["T2"][1]["text"] = src["groups"]["Indian"]["T2"][1]["text"].replace(
        LANGUAGE_LINE, "Languages: English (Professional proficiency), Hindi")
    (d / "blocks.yaml").write_text(yaml.safe_dump(src, allow_unicode=True))
    with pytest.raises(CorpusError, match="indian-T2-b"):
        build_corpus(d)
    src["groups"]["Indian"]["T2"] = src["groups"]["Indian"]["T2"][:1]
    (d / "blocks.yaml").write_text(yaml.safe_dump(src, allow_unicode=True))
    with pytest.raises(CorpusError, match="expected 2"):
        build_corpus(d)
    with pytest.raises(FileNotFoundError):
        build_corpus(tmp_path / "nowhere")
