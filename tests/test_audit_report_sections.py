"""The audit report's sections own their output: ``report.json``'s keys, the page and the summary.

A recorded-decisions file written here (sex, race, a score, and the optional item / job / run
/ fit / quality columns) goes through :func:`run_decisions_report`; the JSON's keys and their
order, the page's numbered headings and the summary are read from the sections the report
holds. A section defined in the test shows that a new section is one class and one entry in
the list: it reaches the JSON, the page and the summary with no other change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from popresume.audit import (AuditReport, DecisionsRun, Leakage, NoiseFloor, NotAsked, Omitted, RecordedValidity,
                             RunInfo, Section)
from popresume.audit.report_decisions import DecisionsRequest, run_decisions_report

#: report.json's keys of a recorded-decisions audit with every optional column, in order.
DECISIONS_KEYS = ["report_version", "validity", "noise_floor", "ll144", "four_fifths", "chance_baseline",
                  "limitations", "run", "omitted"]
DECISIONS_HEADINGS = ["Validity", "Decomposition of the score gap", "Noise floor: run to run",
                      "Outcome level: Local Law 144 and the four-fifths rule", "Limitations", "Run"]


def _crossed(seed=0, n_items=12, n_jobs=4, n_runs=3):
    """Résumé (item) × posting (job) × run, each résumé with one name; own postings score 8 more."""
    rng = np.random.default_rng(seed)
    item, job, run = (a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_jobs), np.arange(n_runs),
                                                     indexing="ij"))
    df = pd.DataFrame({"item": [f"cv{i}" for i in item], "job": [f"ad{j}" for j in job], "run": run,
                       "sex": np.where(item % 4 < 2, "F", "M"), "race": np.where(item % 3 == 0, "Black", "White")})
    df["fit"] = (job % 2 == item % 2).astype(int)
    df["score"] = 50 + 8 * df["fit"] + rng.normal(0, 3, len(df))
    return df


@pytest.fixture(scope="module")
def decisions_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("dec") / "d.csv"
    _crossed().to_csv(path, index=False)
    return run_decisions_report(DecisionsRequest(path, n_sim=100, calibration_reps=40))


def test_the_json_keys_and_headings_follow_the_sections(decisions_report):
    rep = decisions_report
    data = rep.to_json()
    assert list(data) == DECISIONS_KEYS
    # each key is written by the section that owns it, in the list's order
    owners = [s for s in rep.parts() if s.to_json()]
    assert [k for s in owners for k in s.to_json()] == DECISIONS_KEYS[1:-1]
    assert isinstance(rep.recorded_validity, RecordedValidity) and isinstance(rep.noise_floor, NoiseFloor)
    assert rep.omitted == {"decomposition": data["omitted"]["decomposition"]} and "population" in rep.omitted[
        "decomposition"]
    html = rep.to_html(figures=False)
    assert re.findall(r"<h2>\d+\. ([^<]+)</h2>", html) == DECISIONS_HEADINGS
    # the four outcome sections share one heading: four tables under it, each with its caption
    outcome = html.split("Outcome level")[1].split("<h2>")[0]
    assert outcome.count("<table>") == 3  # LL144, four-fifths, chance (no disagreements without a decomposition)


def test_the_run_is_typed_and_writes_the_same_fields(decisions_report):
    run = decisions_report.run
    assert isinstance(run, DecisionsRun) and run.n == 144 and run.unknown == {"sex": 0, "race": 0}
    assert run.columns == {"outcome": "score", "sex": "sex", "race": "race", "job": "job", "item": "item",
                           "run": "run", "fit": "fit"}
    assert decisions_report.to_json()["run"] == run.fields()
    assert list(run.fields()) == ["file", "columns", "outcome", "n", "missing_outcome", "unknown", "seed", "n_sim"]


def test_the_summary_is_the_sections_sentences_in_order(decisions_report):
    rep = decisions_report
    by_section = [s.sentences(rep) for s in rep.parts()]
    assert rep.summary() == [line for lines in by_section for line in lines]
    assert rep.summary()[0].startswith("Validity of the recorded decisions")
    assert rep.summary()[1].startswith("No decomposition: no population model")
    assert rep.summary()[2].startswith("Noise floor: between two runs of the same item × job × sex × race")


@dataclass
class Reruns(Section):
    """A section made for this test: the number of repeated runs."""

    key: ClassVar[str] = "reruns"
    title: ClassVar[str] = "Reruns"

    runs: int

    def to_json(self):
        return {self.key: {"runs": self.runs}}

    def to_html(self, report, *, figures=True):
        return f"<p>{self.runs} runs.</p>"

    def sentences(self, report):
        return [f"The file holds {self.runs} runs."]


def test_a_new_section_is_one_class_and_one_entry(decisions_report):
    rep = decisions_report
    runs = int(rep.noise_floor.table["runs"].iloc[0])
    grown = AuditReport(run=rep.run, sections=[*rep.sections, Reruns(runs)], limitations=rep.limitations)
    data = grown.to_json()
    assert list(data) == DECISIONS_KEYS[:-3] + ["reruns"] + DECISIONS_KEYS[-3:] and data["reruns"] == {"runs": 3}
    assert grown.summary() == rep.summary() + ["The file holds 3 runs."]
    html = grown.to_html(figures=False)
    assert re.findall(r"<h2>\d+\. ([^<]+)</h2>", html) == DECISIONS_HEADINGS[:-2] + ["Reruns"] + DECISIONS_HEADINGS[-2:]
    assert "<h2>5. Reruns</h2><p>3 runs.</p>" in html


def test_omitted_and_not_asked_sections():
    rep = AuditReport(run=RunInfo("demo", 10), sections=[Omitted("validity", "no fit column"), NotAsked("leakage")])
    assert rep.to_json() == {"report_version": 1, "leakage": None, "limitations": [],
                             "run": {"subject": "demo", "n": 10}, "omitted": {"validity": "no fit column"}}
    assert rep.summary() == ["No validity: no fit column."]
    assert rep.leakage is None and rep.validity is None and rep.decompositions == {}
    html = rep.to_html()
    assert "<h2>1. Validity</h2><p>Not in this report: no fit column.</p>" in html
    assert "<h2>2. Limitations</h2>" in html and "<h2>3. Run</h2>" in html and "leakage" not in html.lower()


def test_the_leakage_section_writes_its_fields_in_order():
    from popresume.audit import TaskCount

    leak = Leakage("j", 50, 1, 31, "ours", "published", headline=[], task1=[], task2=[], selection_rate_ratios=[],
                   score_differences=[], top_score_rate=[], counts={"task1": TaskCount(31, 2)}, timings={"task1_s": 1.0})
    js = leak.to_json()["leakage"]
    assert list(js) == ["judge", "n_boot", "bases", "variants", "source", "published_source", "headline", "task1",
                        "task2", "selection_rate_ratios", "score_differences", "top_score_rate", "counts", "timings"]
    assert js["counts"] == {"task1": {"replies": 31, "outside_schema": 2}}
    rep = AuditReport(run=RunInfo("demo", 10), sections=[leak])
    assert "Task 1 31 (2 outside the schema)" in rep.to_html() and rep.leakage is leak
    assert rep.summary() == ["Leakage (Beyond the Name, same screener): no recovery rate."]
