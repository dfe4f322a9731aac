"""Every YAML file the package reads refuses a key written twice (the last one used to win silently)."""

import pytest


def test_job_content_files_refuse_duplicate_keys(tmp_path):
    from popresume.jobs.content import _read_yaml

    f = tmp_path / "nurse.yaml"
    f.write_text("title: Nurse\nseniority: junior\ntitle: Surgeon\n")
    with pytest.raises(ValueError) as e:
        _read_yaml(f)
    assert str(f) in str(e.value) and "duplicate key 'title' (first on line 1, again on line 3)" in str(e.value)
    f.write_text("title: Nurse\nseniority: junior\n")
    assert _read_yaml(f) == {"title": "Nurse", "seniority": "junior"}
