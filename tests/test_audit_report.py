"""``popresume audit --screener``: the one-screener audit report (numbers, files, errors, browser).

The end-to-end runs use the synthetic screener (known effects) and a loopback
OpenAI-compatible server that refuses some résumés; a SIGKILL during scoring is followed by a
rerun that rescores nothing cached. The page is opened in headless Chromium with the network
refused. Sizes are small: the whole module takes about a minute on two idle cores.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from _loopback import Loopback, QuietHandler  # tests/_loopback.py
from popresume.audit import report as R

FAST = ["--n-boot", "200", "--no-tune", "--card-n", "10", "--no-progress"]
#: For the tests of the run's plumbing (scoring, failures, the cache), not of its intervals: the
#: influence-function variance instead of the default jackknife's ten refits.
PLUMBING = [*FAST, "--variance", "influence"]


# --------------------------------------------------------------------------- the numbers
def _scores(n, *, gap=0.0, seed=0, unknown=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"gender": rng.choice(["F", "M"], n),
                       "race": rng.choice(["White", "Black", "API"], n, p=[0.6, 0.3, 0.1])})
    df["score"] = rng.normal(50, 10, n) + gap * (df["gender"] == "M")
    if unknown:
        df.loc[: unknown - 1, "race"] = None
    return df


def test_precision_n_needed_follows_the_reported_interval():
    from popresume.causal import capture_pse_warnings, default_roles, estimate_pse, prepare
    from popresume.population import generate_population
    from popresume.screeners import get_screener, score_resumes

    scr = get_screener("synthetic")
    halves = {}
    for n in (500, 2000):
        p = generate_population(["accountant"], {"accountant": n}, seed=3)
        s = score_resumes(scr, p[["resume_id", "occupation"]], profiles=p, cache=False)
        d = prepare(p, s)
        with capture_pse_warnings():  # weak overlap at n = 500 is not what this test is about
            _, inf = estimate_pse(d, **default_roles("race"), n_boot=0, tune=False, return_estimator=True,
                                  variance="influence")
            if n == 500:  # the default (jackknife) interval, once: its ten refits are the slow part
                _, est = estimate_pse(d, **default_roles("race"), n_boot=0, tune=False, return_estimator=True)
        if n == 500:
            prec = R.precision_table(est.result_, target=0.5)
            # asking for the achieved half-width of the reported (jackknife) CI gives back n
            ci = est.result_.confint()
            assert est.spec.variance == "jackknife"
            assert np.allclose(prec["half_width"], (ci["ci_high"] - ci["ci_low"]) / 2)
            back = R.precision_table(est.result_, target=float(prec.loc["TE", "half_width"]))
            assert abs(back.loc["TE", "n_needed"] - n) <= 1
        # the normal influence CI (n_boot=0) is ± z·sd(φ)/√n, so its projection is ⌈(z·sd(φ)/target)²⌉
        old = R.precision_table(inf.result_, target=0.5)
        assert np.allclose(old["half_width"], old["half_width_normal"])
        assert (abs(old["n_needed"] - np.ceil((1.959964 * old["sd_phi"] / 0.5) ** 2)) <= 1).all()
        halves[n] = old["half_width"]
    # four times the résumés: about half the width, as the n-needed column promises (the influence
    # half-width: the jackknife's SE on 9 df is itself uncertain by about a quarter in one sample)
    ratio = halves[2000]["TE"] / halves[500]["TE"]
    assert 0.38 < ratio < 0.65, ratio


def test_ll144_table_rates_ratios_cis_small_and_unknown_categories():
    df = _scores(3000, gap=6.0, unknown=40)
    df.loc[40:70, "race"] = "AIAN"  # 31 of 3000: under 2%
    t = R.ll144_table(df)
    above = df["score"] > df["score"].median()  # one median of the whole sample; unknown race counts for sex
    rate = above.groupby(df["gender"]).mean()
    sex = t[(t["breakdown"] == "sex") & (t["category"] != "unknown")].set_index("category")
    assert np.allclose(sex["scoring_rate"], rate.reindex(sex.index))
    assert np.allclose(sex["impact_ratio"], rate.reindex(sex.index) / rate.max())
    assert sex.loc["F", "impact_ratio"] < 0.8 and (sex["ci_low"] <= sex["impact_ratio"]).all() \
        and (sex["impact_ratio"] <= sex["ci_high"]).all()
    assert sex.loc["F", "ci_high"] < 1  # 6 points at n = 3000 is resolved
    race = t[t["breakdown"] == "race"].set_index("category")
    assert race.loc["AIAN", "excluded"] and not race.loc["Black", "excluded"]
    assert race.loc["unknown", "n"] == 40 and pd.isna(race.loc["unknown", "impact_ratio"])
    assert "unknown" in set(t.loc[t["breakdown"] == "sex × race", "category"])
    assert "unknown" not in set(t.loc[t["breakdown"] == "sex", "category"])  # sex is known everywhere
    assert sex["n"].sum() == 3000  # the 40 rows of unknown race are rated by sex


def test_chance_baseline_flags_an_attribute_blind_screener_often_at_small_n_only():
    small = R.chance_baseline(_scores(60), n_sim=400)
    large = R.chance_baseline(_scores(6000), n_sim=400)
    s, l = small.set_index("breakdown"), large.set_index("breakdown")
    assert s.loc["sex × race", "flag_rate"] > 0.5  # tiny intersections swing below 0.8 by chance
    assert l.loc["sex", "flag_rate"] < 1e-6 and l.loc["sex × race", "flag_rate"] < s.loc["sex × race", "flag_rate"]
    assert set(small["rule"]) == {"median_split"} and list(small["breakdown"]) == ["sex", "race", "sex × race"]
    # the observed lowest ratio is the LL144 table's
    t = R.ll144_table(_scores(6000))
    assert np.isclose(l.loc["race", "observed_lowest_ratio"], R.lowest_ratio(t, "race"))
    # a screener that does read gender: its lowest ratio is far outside the permutations
    biased = R.chance_baseline(_scores(2000, gap=8.0), n_sim=400).set_index("breakdown")
    assert biased.loc["sex", "p_perm"] < 0.01 and l.loc["sex", "p_perm"] > 0.01
    # the four-fifths table's rule: the top quarter, its printed breakdowns only
    cut = R.chance_baseline(_scores(2000, gap=8.0), rule="selection_cut", n_sim=400).set_index("breakdown")
    ff = R.four_fifths_table(_scores(2000, gap=8.0))
    assert list(cut.index) == ["sex", "race"]
    assert np.isclose(cut.loc["sex", "observed_lowest_ratio"], ff.loc[ff["breakdown"] == "sex", "impact_ratio"].min())


def test_limitations_follow_the_facts():  # the plan: tests/test_audit_plan.py
    ident = {"screener_id": "openai", "model": "m", "prompt_hash": "abc"}
    from popresume.audit.report_model import Decomposition

    weak = Decomposition(attribute="gender", x="gender", x0="F", x1="M", effects=pd.DataFrame(), cases="-",
                         min_ess=8.0, clipped_share=0.78, warnings=["weak overlap: See .propensity_"], n=400,
                         ci_method="", precision=pd.DataFrame())
    lim = R.limitations(verdict="pass", reasons=[], forced=False, decompositions={"gender": weak},
                        synthetic_population=False, synthetic_screener=False, identity=ident, n_failed=3, n=100,
                        occupation="nurse", fmt="text")
    text = " ".join(lim)
    assert "validity gate" not in text and "3 of 100" in text and "--profiles" in text
    # the estimator's warning in a reader's words, from the audit's own numbers; no raw attribute names
    assert "78% of the propensities" in text and "effective sample size of a weight is 8" in text
    assert ".propensity_" not in text
    assert "abc" in text
    lim = R.limitations(verdict="fail", reasons=["posting: flat"], forced=True, decompositions={},
                        synthetic_population=True, synthetic_screener=True, identity=ident, n_failed=0, n=100,
                        occupation="nurse", fmt="text")
    text = " ".join(lim)
    assert "posting: flat" in text and "--force" in text and "synthetic population" in text and "of 100" not in text


# --------------------------------------------------------------------------- end to end
@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory):
    from click.testing import CliRunner

    from popresume.cli import main

    d = tmp_path_factory.mktemp("rep")
    args = ["audit", "--screener", "synthetic", "--occupation", "accountant", "--n", "800", "--report",
            str(d / "out"), "--cache", str(d / "c.sqlite"), *FAST]  # no --force: the gate passes
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    return d / "out", res.output


def test_synthetic_report_covers_the_true_effects(synthetic_report):
    out, log = synthetic_report
    assert re.search(r"probe: \d+ résumés", log) and "expected: validity card" in log
    rep = json.loads((out / "report.json").read_text())
    for key in ("validity", "effects", "ll144", "precision", "run"):
        assert key in rep
    # f reads the posting (its job-fit term), so the audit runs through the gate unforced
    assert rep["validity"]["verdict"] == "pass" and not rep["run"]["forced"], rep["validity"]
    assert "validity gate: PASS" in log
    eff = pd.DataFrame(rep["effects"])
    assert set(eff["attribute"]) == {"gender", "race"} and len(eff) == 10
    assert eff["truth"].notna().all()
    assert {"attribute", "effect", "estimate", "ci_low", "ci_high", "p_holm", "truth"} <= set(eff.columns)
    # an effect the data cannot identify has no interval and says why; the others carry one
    est = eff["estimable"].astype(bool)
    assert eff.loc[~est, ["ci_low", "ci_high"]].isna().all().all() and (eff.loc[~est, "reason"].str.len() > 0).all()
    assert eff.loc[est, ["ci_low", "ci_high"]].notna().all().all()
    assert (eff.loc[est, "ci_low"] <= eff.loc[est, "estimate"]).all()
    assert (eff["p_holm"].dropna() >= eff["p"].dropna() - 1e-12).all()
    assert eff.loc[~est, ["p", "p_holm"]].isna().all().all()  # no test is offered where nothing is identified
    ll = pd.DataFrame(rep["ll144"])
    assert set(ll["breakdown"]) == {"sex", "race", "sex × race"}
    assert {"breakdown", "category", "n", "scoring_rate", "impact_ratio", "ci_low", "ci_high", "excluded"} <= \
        set(ll.columns)
    prec = pd.DataFrame(rep["precision"])
    assert len(prec) == 10 and (prec["n_needed"].dropna() > 0).all()
    run = rep["run"]
    assert run["counts"]["n"] == 800 and run["counts"]["failed"] == 0 and run["failures"] == []
    assert {"scoring_s", "estimation_s", "rendering_s", "validity_s", "probe_s"} <= set(run["timings"])
    assert any("synthetic" in s for s in rep["limitations"])
    page = (out / "report.html").read_text()
    assert "true effect" in page and "synthetic-v1" in page and "Limitations" in page


#: report.json's keys of a screener audit, in order (the page's order of its sections), and
#: the page's numbered headings: a change here is a change of the report's schema.
SCREENER_KEYS = ["report_version", "spec", "screener", "screener_params", "sources", "plan", "validity", "effects",
                 "decomposition", "precision", "ll144", "four_fifths", "chance_baseline", "disagreements", "leakage",
                 "limitations", "run"]
SCREENER_HEADINGS = ["Validity gate", "Decomposition of the score gap", "Precision",
                     "Outcome level: Local Law 144 and the four-fifths rule", "Limitations", "Run"]


def test_the_json_keys_and_the_sections_keep_their_order(synthetic_report):
    out, _ = synthetic_report
    rep = json.loads((out / "report.json").read_text())
    assert list(rep) == SCREENER_KEYS and rep["leakage"] is None  # not asked: the key stays, null
    assert list(rep["run"]) == ["occupation", "format", "seed", "attributes", "population", "forced", "select_top",
                                "timings", "counts", "failures"]
    assert list(rep["run"]["counts"]) == ["n", "scored", "cached", "newly_scored", "failed"]
    page = (out / "report.html").read_text()
    assert re.findall(r"<h2>(\d+)\. ([^<]+)</h2>", page) == [(str(i), h) for i, h in enumerate(SCREENER_HEADINGS, 1)]


def test_report_html_is_self_contained(synthetic_report):
    page = (synthetic_report[0] / "report.html").read_text()
    assert not re.search(r"(?i)(https?:)?//[a-z0-9]", re.sub(r'src="data:[^"]*"', "", page))
    assert not re.search(r"(?i)<script|<link|@import|url\(", page)
    imgs = re.findall(r'<img src="([^"]+)"', page)
    assert len(imgs) == 2 and all(s.startswith("data:image/png;base64,") for s in imgs)


def test_report_opens_offline_in_chromium_images_load_nothing_cut(synthetic_report, tmp_path):
    from test_book_render import run_chromium  # tests/test_book_render.py

    page = (synthetic_report[0] / "report.html").read_text()
    probe = ("<script>window.addEventListener('load', () => { const imgs = [...document.images];"
             "const cut = [...document.querySelectorAll('td,th,p,li,caption,figcaption,h1,h2,h3')]"
             ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 40));"
             "const res = performance.getEntriesByType('resource').map(e => e.name);"
             "document.body.setAttribute('data-check', JSON.stringify({n: imgs.length,"
             "ok: imgs.filter(i => i.complete && i.naturalWidth > 0).length, cut: cut, requests: res,"
             "wide: document.documentElement.scrollWidth > window.innerWidth})); });</script>")
    f = tmp_path / "page.html"
    f.write_text(page.replace("</body>", probe + "</body>"))
    base = ["--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,1000",
            "--virtual-time-budget=5000"]
    dom = run_chromium(base + ["--dump-dom", f.as_uri()], tmp_path / "profile").stdout
    m = re.search(r"data-check=\"([^\"]+)\"", dom)
    assert m, dom[-2000:]
    check = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert check["n"] == 2 and check["ok"] == 2
    assert check["cut"] == [] and not check["wide"]
    assert check["requests"] == []
    pdf = tmp_path / "report.pdf"
    run_chromium(base + [f"--print-to-pdf={pdf}", "--no-pdf-header-footer",
                         (synthetic_report[0] / "report.html").as_uri()], tmp_path / "profile-pdf")
    assert pdf.read_bytes()[:4] == b"%PDF" and pdf.stat().st_size > 20_000


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("args, message", [
    (["--screener", "synthetic", "--occupation", "pilot", "--n", "300"], "--occupation 'pilot' is unknown"),
    (["--screener", "synthetic", "--occupation", "nurse", "--n", "20"], "--n 20 is too small"),
    # the posting-blind synthetic screener (no job-fit term) is stopped at the gate
    (["--screener", '{"kind": "synthetic", "posting_fit": 0}', "--occupation", "nurse", "--n", "300", "--card-n",
      "10"], "fails the validity gate: posting"),
])
def test_bad_requests_are_one_line_and_write_nothing(cli, tmp_path, args, message):
    out = tmp_path / "rep"
    res = cli("audit", *args, "--report", out, "--cache", tmp_path / "c.sqlite", "--no-progress")
    assert res.exit_code != 0
    err = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(err) == 1 and message in err[0], res.output
    assert not out.exists()


def test_dry_run_prints_the_plan_and_scores_nothing_else(cli, tmp_path):
    out, db = tmp_path / "rep", tmp_path / "c.sqlite"
    res = cli("audit", "--screener", "synthetic", "--occupation", "nurse", "--n", "200", "--report", out,
              "--cache", db, "--dry-run", "--no-progress")
    assert res.exit_code == 0, res.output
    assert re.search(r"probe: [0-9]+ résumés, [0-9.]+ s per résumé", res.output)
    assert re.search(r"expected: validity card [0-9]+ s, scoring [0-9]+ s, estimation [0-9]+ s, report [0-9]+ s; "
                     r"whole run [0-9]+ s", res.output)
    assert "dry run" in res.output and "validity gate" not in res.output
    assert not out.exists() and not db.exists()  # the probe scores into a throw-away cache; nothing else ran


def test_unreachable_server_is_one_line_and_writes_nothing(cli, tmp_path):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    spec = json.dumps({"kind": "openai", "model": "m", "base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 0})
    res = cli("audit", "--screener", spec, "--occupation", "nurse", "--n", "100", "--report", tmp_path / "rep",
              "--no-progress")
    assert res.exit_code != 0 and "unreachable" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "rep").exists()


def test_modes_do_not_mix(cli, tmp_path):
    res = cli("audit", "--screener", "synthetic", "--occupation", "nurse", "--n", "100", "--report", tmp_path,
              "--out", tmp_path / "x.csv")
    assert res.exit_code != 0 and "--out applies to --config only" in res.output
    res = cli("audit", "--config", "configs/default_audit.yaml", "--out", tmp_path / "x.csv", "--n", "100")
    assert res.exit_code != 0 and "--n applies to --screener only" in res.output
    res = cli("audit", "--n", "100")
    assert res.exit_code != 0 and "give one of --screener" in res.output


# --------------------------------------------------------------------------- a real HTTP screener
class Server(Loopback):
    """An OpenAI-compatible server that scores by the résumé's years of experience and refuses
    (HTTP 400, context length) every résumé whose text contains one of ``refuse``."""

    def __init__(self, refuse=(), delay=0.0):
        self.texts: dict[str, int] = {}
        self.lock = threading.Lock()
        outer = self

        class H(QuietHandler):
            def do_POST(self):
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                text = req["messages"][-1]["content"]
                text = text if isinstance(text, str) else text[0]["text"]
                resume = text.split("RESUME: ", 1)[-1] if "RESUME: " in text else None
                if resume is not None:
                    with outer.lock:
                        outer.texts[resume] = outer.texts.get(resume, 0) + 1
                    time.sleep(delay)
                    if any(r in resume for r in refuse):
                        return self.send_json(400, {"error": {"message": "maximum context length is 2048 tokens",
                                                          "type": "invalid_request_error"}})
                years = len(re.findall(r"\b(19|20)\d\d\b", resume or ""))
                reply = json.dumps({"score": min(100, 30 + 4 * years + len(resume or "") % 7)})
                self.send_json(200, {"id": "x", "object": "chat.completion", "model": req["model"],
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 100, "completion_tokens": 5}})

        Loopback.__init__(self, H)


def _spec(url, **kw):
    return json.dumps({"kind": "openai", "model": "loop", "base_url": url, "max_retries": 0, "backoff": 0.01,
                       **kw})


def _audit_texts(n, occupation="nurse"):
    from popresume.audit.report_run import load_population, render

    p, _ = load_population(occupation, n, seed=0)
    return render(p, "text", seed=0)


def test_refused_resumes_are_counted_listed_and_never_scored(cli, tmp_path):
    texts = _audit_texts(300, "accountant")
    refuse = [texts["text"].iloc[i].split("\n", 1)[0] for i in (10, 20, 30)]  # three names (first lines)
    with Server(refuse=refuse) as srv:
        res = cli("audit", "--screener", _spec(srv.url), "--occupation", "accountant", "--n", "300",
                  "--attributes", "gender", "--report", tmp_path / "rep", "--force", "--cache", tmp_path / "c.sqlite",
                  *PLUMBING)
    assert res.exit_code == 0, res.output
    # the server reports usage: 100 prompt tokens, none for a refused request (some are in the probe)
    assert re.search(r"prompt tokens per request (9[0-9]|100)\b", res.output), res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    run = rep["run"]
    refused = set(texts["resume_id"].iloc[[10, 20, 30]])
    assert run["counts"]["failed"] == 3 and {f["resume_id"] for f in run["failures"]} == refused
    assert all("refused" in f["raw"] or "400" in f["raw"] for f in run["failures"])
    assert run["counts"]["scored"] == 297 and rep["decomposition"]["gender"]["n"] == 297
    assert rep["screener"]["dialect"] and rep["screener"]["model"] == "loop"
    assert "3 of 300 résumés got no score" in " ".join(rep["limitations"])
    assert "Failures" in (tmp_path / "rep" / "report.html").read_text()


def test_sigkill_during_scoring_then_rerun_rescores_nothing_cached(tmp_path):
    n = 300
    texts = _audit_texts(n, "accountant")
    audit = {t.strip() for t in texts["text"]}
    with Server(delay=0.01) as srv:
        spec = _spec(srv.url, concurrency=1)
        cmd = [sys.executable, "-m", "popresume", "audit", "--screener", spec, "--occupation", "accountant",
               "--n", str(n), "--attributes", "gender", "--report", str(tmp_path / "rep"), "--force", "--cache",
               str(tmp_path / "c.sqlite"), *PLUMBING]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 240
        # the probe's résumés are the run's first scores, written into the cache like the others
        while time.monotonic() < deadline and proc.poll() is None:
            with srv.lock:
                seen = sum(1 for k in srv.texts if k in audit)
            if seen >= 30:  # 30 of the audit's résumés asked
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode()[-800:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert not (tmp_path / "rep").exists()
        with srv.lock:
            before = {k: v for k, v in srv.texts.items() if k in audit}
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-800:]
        after = dict(srv.texts)
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    c = rep["run"]["counts"]
    assert c["n"] == n and c["cached"] + c["newly_scored"] == n and c["cached"] >= 29
    # at most the one in flight at the kill is asked twice, the probe's résumés included
    repeats = sum(after[k] - 1 for k in after if k in audit)
    assert repeats <= 1, repeats
    assert len(before) >= 29


def test_the_probe_times_one_batch_of_a_batching_screener():
    from popresume.audit.report_run import PROBE_N, probe_size
    from popresume.screeners import get_screener

    class Embedder:
        capabilities = frozenset({"text", "embeddings", "batches"})
        batch_size = 16

    assert probe_size(Embedder()) == 16  # three résumés of a batch cost what sixteen do
    assert probe_size(get_screener("synthetic")) == PROBE_N == 3


def test_the_report_api_examples_run():
    import doctest

    from popresume.audit import report, report_decisions, report_model, report_run

    for module in (report, report_model, report_run, report_decisions):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, module.__name__
