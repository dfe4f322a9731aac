"""Content pools: schema check of the shipped YAML and of broken fixtures; job postings."""

from __future__ import annotations

import shutil

import pytest
import yaml

from popresume.jobs import default_content_dir, job_description, load_content
from popresume.schema import OCCUPATION_KEYS


def test_shipped_content_is_valid_and_complete():
    c = load_content()
    assert set(c["occupations"]) == set(OCCUPATION_KEYS)
    for occ, d in c["occupations"].items():
        for s in ("junior", "mid", "senior"):
            assert len(d["work_bullets"][s]) >= 12
        assert len(d["employers"]) >= 12


@pytest.mark.parametrize("occ", OCCUPATION_KEYS)
def test_job_description(occ):
    jd = job_description(occ)
    for heading in ("Responsibilities:", "Required qualifications:", "Preferred qualifications:"):
        assert heading in jd
    assert len(jd.split()) > 120


def test_unknown_occupation_job_description():
    with pytest.raises(ValueError, match="pilot"):
        job_description("pilot")


@pytest.fixture
def content_copy(tmp_path):
    d = tmp_path / "content"
    shutil.copytree(default_content_dir(), d)
    return d


def _edit(path, fn):
    data = yaml.safe_load(path.read_text())
    fn(data)
    path.write_text(yaml.safe_dump(data))


def test_copy_loads(content_copy):
    assert set(load_content(content_copy)["occupations"]) == set(OCCUPATION_KEYS)


@pytest.mark.parametrize("file,edit,key", [
    ("teacher.yaml", lambda d: d.pop("employers"), "employers"),
    ("teacher.yaml", lambda d: d["work_bullets"].pop("senior"), "work_bullets.senior"),
    ("nurse.yaml", lambda d: d["work_bullets"]["mid"].__setitem__(3, "Mentored her team"), "work_bullets.mid[3]"),
    ("nurse.yaml", lambda d: d.__setitem__("skills", d["skills"][:3]), "skills"),
    ("accountant.yaml", lambda d: d["titles"].__setitem__("junior", ["Clerk", "Clerk"]), "titles.junior"),
    ("accountant.yaml", lambda d: d.__setitem__("occupation", "nurse"), "occupation"),
    ("software_developer.yaml", lambda d: d["majors"].__setitem__("master", "Computer Science"), "majors.master"),
    ("construction_laborer.yaml", lambda d: d.__setitem__("extra", 1), "extra"),
    ("nurse.yaml", lambda d: d["preparatory"].__setitem__("bullets", d["preparatory"]["bullets"][:5]),
     "preparatory.bullets"),
    ("teacher.yaml", lambda d: d["preparatory"]["titles"].__setitem__(0, "Lunch lady"), "preparatory.titles[0]"),
    ("shared.yaml", lambda d: d["schools"].pop("college"), "schools.college"),
    ("shared.yaml", lambda d: d["high_school_bullets"].append(""), "high_school_bullets[12]"),
])
def test_broken_content_names_file_and_key(content_copy, file, edit, key):
    _edit(content_copy / file, edit)
    with pytest.raises(ValueError) as e:
        load_content(content_copy)
    msg = str(e.value)
    assert file in msg and repr(key) in msg, msg


def test_invalid_yaml_and_missing_file(content_copy):
    (content_copy / "nurse.yaml").write_text("occupation: nurse\n  bad: [unclosed\n")
    with pytest.raises(ValueError, match="nurse.yaml"):
        load_content(content_copy)
    (content_copy / "nurse.yaml").unlink()
    with pytest.raises(FileNotFoundError, match="nurse.yaml"):
        load_content(content_copy)
