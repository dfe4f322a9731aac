"""The audit's plan (``popresume audit --screener`` prints it after the probe): its parts add
up to the whole run, the score cache's items are not counted, and the probe's résumés are the
run's own. No timing is asserted: the probe's times are inputs here, given by hand.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from popresume.audit import report as R
from popresume.audit.report_run import ReportRequest, plan_run, probe
from popresume.resumes import render_texts, toy_profiles
from popresume.screeners import get_screener, score_resumes, uncached

PROBE = {"seconds_per_resume": 0.05, "call_s": 0.4, "card_render_s": 0.7, "card_read_s": 0.1, "read_s": 0.2,
         "yardstick_s": 0.03}


def test_the_parts_add_up_to_the_whole_run():
    p = R.plan(PROBE, n=2000, to_score=1900, card_to_score=200, card_calls=7, attributes=2, done_s=6.0)
    parts = ("validity_s", "scoring_s", "estimation_s", "report_s", "leakage_s")
    assert math.isclose(p["total_s"], p["done_s"] + sum(p[k] for k in parts))
    # each part is a count times a measured time
    assert math.isclose(p["validity_s"], 0.7 + 0.1 + 7 * 0.4 + 200 * 0.05)
    assert math.isclose(p["scoring_s"], 0.2 + 0.4 + 1900 * 0.05)
    est_fits, report_fits = R.plan_costs(2000)
    assert est_fits > 0 and report_fits > 0  # measured by benchmarks/bench_plan.py
    assert math.isclose(p["estimation_s"], 2 * est_fits * 0.03) and math.isclose(p["report_s"], report_fits * 0.03)
    # one attribute costs half of two; untuned costs less than tuned; more folds cost more
    one = R.plan(PROBE, n=2000, to_score=1900, card_to_score=200, attributes=1)
    assert math.isclose(one["estimation_s"] * 2, p["estimation_s"])
    assert R.plan(PROBE, n=2000, to_score=0, card_to_score=0, tune=False)["estimation_s"] < p["estimation_s"]
    assert R.plan(PROBE, n=2000, to_score=0, card_to_score=0, folds=10)["estimation_s"] > p["estimation_s"]
    # leakage prompts at the probe's pace
    assert math.isclose(R.plan(PROBE, n=2000, to_score=0, card_to_score=0, leakage_items=100)["leakage_s"], 5.0)
    line = R.plan_line(p, n=2000, card_items=260)
    assert line.startswith("expected: validity card ") and f"whole run {p['total_s']:.0f} s" in line
    assert "60 of 260 résumés cached" in line and "100 of 2,000 résumés cached" in line


def test_nothing_left_to_score_costs_no_scoring_and_needs_no_probe():
    p = R.plan({"seconds_per_resume": None, "yardstick_s": 0.03}, n=2000, to_score=0, card_to_score=0)
    assert p["validity_s"] == p["scoring_s"] == 0 and p["estimation_s"] > 0
    assert "2,000 of 2,000 résumés cached" in R.plan_line(p, n=2000, card_items=260)
    with pytest.raises(ValueError, match="probe's seconds per résumé"):
        R.plan({"seconds_per_resume": None}, n=2000, to_score=5, card_to_score=0)
    with pytest.raises(ValueError, match="call_s"):
        R.plan({**PROBE, "call_s": float("nan")}, n=10, to_score=1, card_to_score=0)
    with pytest.raises(ValueError, match="to_score"):
        R.plan(PROBE, n=10, to_score=-1, card_to_score=0)


def test_cost_ratios_between_and_beyond_the_measured_sizes():
    sizes = [row[0] for row in R.PLAN_COSTS]
    lo, hi = R.plan_costs(sizes[0]), R.plan_costs(sizes[-1])
    assert R.plan_costs(sizes[0] // 2) == lo and R.plan_costs(sizes[-1] * 2) == hi
    mid = R.plan_costs((sizes[0] + sizes[1]) / 2)
    a, b = R.plan_costs(sizes[0]), R.plan_costs(sizes[1])
    assert math.isclose(mid[0], (a[0] + b[0]) / 2) and math.isclose(mid[1], (a[1] + b[1]) / 2)


def test_plan_costs_are_the_benchmarks_latest_output():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "plan_costs.csv"
    with open(path) as f:
        rows = [(int(r["n"]), float(r["estimation_fits_tuned"]), float(r["estimation_fits_untuned"]),
                 float(r["report_fits"])) for r in csv.DictReader(f)]
    assert rows == list(R.PLAN_COSTS)


def _texts(n=6):
    profiles = toy_profiles(n // 5 + 1).head(n).reset_index(drop=True)
    return profiles, render_texts(profiles, seed=0)


def test_cached_items_are_not_counted(tmp_path):
    scr = get_screener("synthetic")
    profiles, resumes = _texts(10)
    db = tmp_path / "c.sqlite"
    assert uncached(scr, resumes, profiles=profiles, cache=db).all() and not db.exists()  # nothing cached, no file made
    score_resumes(scr, resumes.head(4), profiles=profiles, cache=db)
    left = uncached(scr, resumes, profiles=profiles, cache=db)
    assert left.tolist() == [False] * 4 + [True] * 6
    assert uncached(scr, resumes, profiles=profiles, cache=False).all()
    # another posting is another key: nothing of it is cached
    other = {k: "A different posting." for k in resumes["occupation"].unique()}
    assert uncached(scr, resumes, profiles=profiles, cache=db, job_descriptions=other).all()


def test_the_probe_scores_into_the_cache_and_the_plan_skips_what_is_cached(tmp_path):
    scr = get_screener("synthetic")
    profiles, resumes = _texts(10)
    db = tmp_path / "c.sqlite"
    pr = probe(scr, resumes, profiles, k=2, cache=db)
    # the warm-up, the single résumé and at least one call of k: the run's own scores, cached
    assert pr["scored"] >= 4
    assert uncached(scr, resumes, profiles=profiles, cache=db).tolist() == [False] * pr["scored"] + \
        [True] * (len(resumes) - pr["scored"])
    assert pr["seconds_per_resume"] >= 0 and pr["call_s"] >= 0

    req = ReportRequest("synthetic", occupation="nurse", n=120, card_n=5)
    from popresume.audit.report_run import load_population, render

    prof, _ = load_population("nurse", 120)
    res = render(prof, "text")
    cold, probed = plan_run(req, scr, res, prof, cache=db, started=0.0)
    assert probed == cold.probe["scored"] > 0
    assert cold.to_score == 120 - probed and cold.card_to_score == cold.card_items > 0
    # score everything the run scores; then nothing is left, nothing is probed
    score_resumes(scr, res, profiles=prof, cache=db)
    from popresume.screeners.validity import validity_card

    validity_card(scr, n=5, cache=db)
    warm, probed = plan_run(req, scr, res, prof, cache=db, started=0.0)
    assert probed == 0 and warm.probe["n"] == 0
    assert warm.to_score == warm.card_to_score == 0
    assert warm.scoring_s == warm.probe["read_s"]  # looking the keys up again: no call, no résumé
    assert "120 of 120 résumés cached" in R.plan_line(warm.to_json()["plan"], n=120, card_items=warm.card_items)
