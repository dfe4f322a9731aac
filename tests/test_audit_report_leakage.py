"""``popresume audit --screener ... --leakage``: Beyond the Name's Tasks 1-3 in the report.

A judge that reads each item's true condition (so its answers are known) goes through the
whole report: the recovery rate must come out 1, the Task 3 gap exactly the one it was given,
a rerun must ask nothing that the cache holds, and a screener that can answer no task is
refused in one line before any work.
"""

from __future__ import annotations

import json

import pytest

from popresume.audit import report_leakage as L

GAP = 4.0  # Task 3 points the judge adds for Chinese variants


class KnowingJudge:
    """Answers from the item's own labels: recovers every group, prefers the marked résumé in
    Task 2 (never ties), and scores Chinese variants ``GAP`` points higher in Task 3."""

    judge_id = "knowing-test-judge"
    answers_in_batches = False
    backend = None

    def __init__(self):
        self.asked = 0

    def supports(self, task):
        return task in (1, 2, 3)

    def reply(self, task, item):
        self.asked += 1
        if task == 1:
            group = item["condition"] if item["condition"] != "Control" else "Cannot determine"
            out = {"perceived_group": group, "confidence": 90, "evidence": []}
        elif task == 2:
            out = {"preferred": "A" if item["order"] == "marked_first" else "B"}
        else:
            out = {"shortlist": 1, "score": 60 + (GAP if item["condition"] == "Chinese" else 0.0)}
        return out, json.dumps(out)


def test_section_numbers_follow_the_judge_and_the_cache_serves_a_rerun(tmp_path):
    from popresume.screeners.cache import ScoreCache

    judge, db = KnowingJudge(), ScoreCache(tmp_path / "c.sqlite")
    variants, baselines = L.corpus(2)
    logs = []
    sec = L.leakage_section(judge, variants, baselines, cache=db, n_boot=100, seed=0, echo=logs.append)
    assert sec.bases == 2 and sec.variants == 62  # 31 variants per base
    assert sec.counts["task1"] == L.TaskCount(replies=62, outside_schema=0)
    assert sec.counts["task2"].replies == 62 * 3 * 2  # three regimes, both orders
    assert judge.asked == L.n_requests(variants) == 62 * 8
    head = {r["quantity"]: r for r in sec.headline}
    assert head["overall recovery rate (T1-T3)"]["ours"] == 1.0
    diffs = {r["condition"]: r for r in sec.score_differences}
    assert diffs["Chinese"]["difference"] == pytest.approx(GAP)
    assert diffs["Indian"]["difference"] == pytest.approx(0.0)
    # always preferring the marked résumé: every group and the control are selected equally
    assert all(r["ratio"] == pytest.approx(1.0) for r in sec.selection_rate_ratios)
    assert len(logs) == 3 and logs[1].startswith("leakage Task 2: 372 replies")
    again = KnowingJudge()
    L.leakage_section(again, variants, baselines, cache=db, n_boot=100, seed=0, echo=lambda s: None)
    assert again.asked == 0  # everything came from the score cache


def test_report_json_and_html_carry_the_section(tmp_path, monkeypatch):
    from popresume.audit.report_run import ReportRequest, run_report, write_report

    monkeypatch.setattr(L, "leakage_judge", lambda scr: KnowingJudge())
    req = ReportRequest("synthetic", occupation="accountant", n=300, card_n=10, n_boot=50, tune=False,
                        variance="influence", leakage=True, leakage_bases=1)  # the section, not the CIs
    rep = run_report(req, cache=tmp_path / "c.sqlite", echo=lambda s: None)
    assert rep.leakage.n_boot == 50  # the user's draws, not a silent floor
    html, js = write_report(rep, tmp_path / "out")
    data = json.loads(js.read_text())
    assert data["leakage"]["variants"] == 31 and data["leakage"]["judge"] == "knowing-test-judge"
    assert data["run"]["timings"]["leakage_s"] > 0
    page = html.read_text()
    assert "Beyond the Name: Tasks 1-3" in page and "Top-Score Rate" in page
    assert "Leakage (Beyond the Name, same screener): it recovers the group of 100.0%" in page


def test_a_screener_that_answers_no_task_is_refused_before_any_work(cli, tmp_path):
    out, db = tmp_path / "rep", tmp_path / "c.sqlite"
    res = cli("audit", "--screener", "synthetic", "--occupation", "nurse", "--n", "300", "--report", out,
              "--cache", db, "--leakage", "--no-progress")
    assert res.exit_code != 0
    err = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(err) == 1 and "--leakage" in err[0] and "can run none of the leakage tasks" in err[0], res.output
    assert "probe" not in res.output and not out.exists() and not db.exists()
    res = cli("audit", "--screener", "synthetic", "--occupation", "nurse", "--n", "300", "--report", out,
              "--leakage-bases", "2")
    assert res.exit_code != 0 and "--leakage-bases needs --leakage" in res.output


def test_the_embedding_screener_answers_the_tasks_through_the_command(cli, tmp_path):
    """The real path: the audited embedding model becomes the calibrated embedding judge."""
    out = tmp_path / "rep"
    res = cli("audit", "--screener", "embedding", "--occupation", "accountant", "--n", "100", "--attributes", "race",
              "--report", out, "--force", "--cache", tmp_path / "c.sqlite", "--card-n", "5", "--n-boot", "50",
              "--no-tune", "--variance", "influence", "--no-progress", "--leakage", "--leakage-bases", "2")
    assert res.exit_code == 0, res.output
    assert "leakage: 496 prompts of Tasks 1-3" in res.output
    leak = json.loads((out / "report.json").read_text())["leakage"]
    assert leak["judge"].startswith("embedding:") and leak["variants"] == 62
    assert all(c["outside_schema"] == 0 for c in leak["counts"].values())
    head = {r["quantity"]: r["ours"] for r in leak["headline"]}
    assert 0 <= head["overall recovery rate (T1-T3)"] <= 1
