"""Chapter 09a (the one-screener audit report) executes with small parameters, without errors or
stderr output, and shows the report's figures, its summary, the truth beside the estimates and
why the gender direct effect is not identified, in a reader's words; it ends with exercises."""

import pytest

pytest.importorskip("papermill")

from popresume.paths import REPO_ROOT  # noqa: E402


@pytest.mark.notebook
@pytest.mark.slow
def test_audit_report_chapter_runs(tmp_path, monkeypatch):
    import nbformat

    from popresume.book import run_notebook

    monkeypatch.setenv("POPRESUME_CACHE", str(tmp_path / "cache"))
    out = run_notebook(REPO_ROOT / "notebooks" / "09a_audit_report.py", {"n": 300, "n_boot": 50, "card_n": 5, "variance": "influence"},
                       output=tmp_path / "09a.ipynb")
    outputs = [o for c in nbformat.read(str(out), as_version=4).cells if c.cell_type == "code"
               for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert not [o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2  # the effects and LL144 figures
    text = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    # the synthetic screener reads the posting (its job-fit term): the chapter audits it unforced
    assert "validity gate: PASS" in text and "Validity gate: PASS" in text and "forced" not in text
    assert "truth" in text and "n_needed" in text and "chance of a flag" in text
    assert "first name typical of" in text  # the support table behind the identification argument
    for raw in ("E[Y_", "gender='M'", ".propensity_", ".weights_"):  # no estimator internals shown to a reader
        assert raw not in text, raw
    source = (REPO_ROOT / "notebooks" / "09a_audit_report.py").read_text()
    assert source.count(":::{exercise}") == 2 and source.count(":::{solution}") == 2
