"""Mutation testing of the statistics: mutmut over each module, judged by its own tests.

``make mutation`` (not part of ``make test``) runs this script. For every module in
``MODULES`` it copies the repository's files (tracked and untracked-but-not-ignored) to a
scratch folder, points mutmut at that one module with the test files that are meant to
prove it, runs every mutant, and prints one table: mutants, killed, survived, timeouts,
no tests, and the score killed / (killed + survived). A mutant that no selected test
reaches counts as survived: an untested line is a gap, not an excuse.

Mutants explained as equivalent (no behaviour can tell them apart) are listed in
``tests/mutation_equivalent.md``; they count in the table as survived, and the table's
``equivalent`` column says how many of the survivors that list explains.

Usage::

    python scripts/mutation.py                    # every module (measured times: see the Makefile)
    python scripts/mutation.py multiplicity causal.cases
    python scripts/mutation.py --list             # the module -> tests map
    python scripts/mutation.py --survivors multiplicity   # also list surviving mutants
    python scripts/mutation.py --no-harness causal.results  # without the harness subsets
    python scripts/mutation.py --functions group_effects -- decisions.analyses  # part of a module

The run is CPU-bound; ``--jobs`` sets mutmut's parallel children (default 2). Modules or test
files that do not exist on this checkout are skipped with a note, so the map can name
modules that are still being written.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EQUIVALENT = REPO / "tests" / "mutation_equivalent.md"

# module name -> (files to mutate, test files that judge its mutants, functions to mutate or
# None for all). Test selection is deliberately narrow: each mutant runs only the tests
# written to prove that module. The function lists keep the run within an hour on 2 cores:
# they name the statistics (estimators, intervals, p-values, the rules) and leave out
# layout code (headline tables, labels) whose mutants cost minutes and prove little.
MODULES: dict[str, tuple[list[str], list[str], list[str] | None]] = {
    "multiplicity": (["popresume/multiplicity.py"],
                     ["tests/test_mutation_multiplicity.py", "tests/test_audit_metrics.py"], None),
    "leakage.metrics": (["popresume/leakage/metrics.py"],
                        ["tests/test_mutation_leakage_metrics.py", "tests/test_mutation_leakage_more.py",
                         "tests/test_leakage_metrics.py"],
                        ["_z_pvalue", "add_corrections", "boot_means", "BootMeans.index", "_ci", "_se",
                         "cluster_bootstrap", "_ratios_vs", "task1_outcomes", "task3_outcomes"]),
    "causal.cases": (["popresume/causal/cases.py"],
                     ["tests/test_mutation_causal.py", "tests/test_causal_cases.py"], None),
    "causal.effects": (["popresume/causal/effects.py", "popresume/causal/bootstrap.py"],
                       ["tests/test_mutation_causal.py", "tests/test_causal_cases.py"], None),
    "causal.functional": (["popresume/causal/functional.py", "popresume/causal/plugin.py"],
                          ["tests/test_mutation_functional.py", "tests/test_causal_estimator.py",
                           "tests/test_property_effects.py"], None),
    "causal.results": (["popresume/causal/results.py"],
                       ["tests/test_mutation_results.py", "tests/test_stat_choices.py",
                        "tests/test_causal_identification.py",
                        "tests/test_coverage_causal.py"],
                       # properties (se, pvalues, estimable) are not mutated by mutmut 3; test_stat_choices
                       # checks them directly
                       ["aggregate_reps", "rep_se", "PSEResult._pointwise", "PSEResult.confint",
                        "PSEResult.p_adjust"]),
    "causal.identification": (["popresume/causal/identification.py"],
                              ["tests/test_mutation_identification.py", "tests/test_causal_identification.py",
                               "tests/test_coverage_causal.py"], None),
    "decisions.analyses": (["popresume/decisions/analyses.py"],
                           ["tests/test_mutation_decisions.py", "tests/test_stat_choices.py", "tests/test_stat_families.py",
                            "tests/test_decisions.py",
                            "tests/test_coverage_decisions.py"],
                           ["clustered_effect", "_interaction", "group_effects", "competence", "drift",
                            "_reference"]),
    "ranking.report": (["popresume/ranking/report.py"], ["tests/test_mutation_ranking_report.py", "tests/test_stat_families.py",
                                                       "tests/test_ranking_cli.py"],
                       ["ranking_tables", "source_of"]),
    "ll144": (["popresume/ll144.py"], ["tests/test_mutation_ll144.py", "tests/test_ll144.py",
                                       "tests/test_coverage_ll144.py"],
              ["_selected", "category_counts", "_box", "ratio_bounds", "_mn_score", "rate_ratio_interval",
               "pairwise_ratio_bounds", "impact_ratio_table", "lowest_ratio", "format_probability", "_lowest",
               "chance_of_flag", "chance_below", "chance_table", "breakdown_table", "scoring_rates",
               "selection_rates_at_cut"]),
    "ranking": (["popresume/ranking/rates.py", "popresume/ranking/clogit.py", "popresume/ranking/chance.py"],
                ["tests/test_mutation_ranking.py", "tests/test_ranking.py", "tests/test_coverage_ranking.py"],
                ["ratio_intervals", "selection_rates", "min_max_ratios", "adjust_pvalues", "rank_summary",
                 "null_min_max", "design_null_counts", "_ratio", "design_of", "chance_table", "null_quantiles",
                 "identified", "_strata_probs", "_score_hessian", "fit_newton", "cluster_cov", "_fit_one",
                 "_fit_all"]),
    "population": (["popresume/population.py", "popresume/experience.py"],
                   ["tests/test_mutation_population.py", "tests/test_population_experience.py"],
                   ["summarize", "association_tests", "ba_plus_shares", "_lor_from_counts", "log_odds_ratio",
                    "edu_years", "density_ratio_weights", "_wvar", "hierarchical_sigma", "truncnorm_sample",
                    "sample_occupation", "experience_model"]),
}


# pytest -k per module: leaves out tests that fit whole models (a minute per mutant under
# mutmut's timeout) where faster tests of the same functions exist
TEST_FILTER: dict[str, str] = {
    # the XGBoost fits and refits (5-6 s each) reach the weights only through the estimator;
    # the hand-computed cases and the cell-means fits prove them in well under a second
    "causal.functional": "not xgboost and not tune_xgb and not learners_carry and not coverage_study"
                         " and not refit_bootstrap_and_point and not small_groups",
    # the appendix chapter rendered from the harness's csv (a notebook run per mutant) and the
    # ESS floor per learner (XGBoost fits): neither proves a number results.py computes
    "causal.results": "not trust_chapter_renders and not mediated_floor_follows",
    # the shipped screener runs, names and the statsmodels engine: not these functions' proof
    "ranking": "not engines_agree and not c4_check and not rank_by_scores and not shipped_screener"
               " and not name_rates",
    # doctest.testmod and the import-layer check read the mutated module, which holds every
    # mutant's copy of each function (4 MB): 17 s and 3 s per mutant, and neither proves a number
    # (the docstrings' examples are checked in the suite; hand-computed tests prove the functions)
    # the one test that fits the estimator on 20,000 rows (12 s a mutant); the hand-made
    # diagnoses pin every threshold and reason as numbers and words
    "causal.identification": "not fitted_good_design",
    # every table from the shipped files (19 s a mutant) and the 200-draw coverage check: the
    # hand-computed tests of test_mutation_decisions / test_stat_choices prove the same functions
    "decisions.analyses": "not every_table_builds_from_shipped_data and not cluster_coverage_near_nominal",
    "ll144": "not docstring_examples_run and not sits_below_every_layer",
    "population": "not recovers and not years_target and not qq_data and not sample_respects and not default_source"
                  " and not wooldridge and not race_and_collar and not user_experience and not generate_with",
}


def mutant_globs(functions: list[str] | None) -> list[str]:
    """mutmut's names for the mutants of these functions (methods as Class.method)."""
    if functions is None:
        return []
    globs = []
    for f in functions:
        cls, _, meth = f.rpartition(".")
        globs.append(f"*.x\u01c1{cls}\u01c1{meth}__mutmut_*" if cls else f"*.x_{f}__mutmut_*")
    return globs


# what the tests read besides the package and tests/ (copied next to the mutants)
ALSO_COPY = ["data", "configs", "notebooks", "book", "scripts", "_config.yml", "_toc.yml", "docs", "benchmarks"]

# the coverage harness's calibration subsets: a module's tests, but minutes per surviving mutant
HARNESS = "tests/test_coverage_"

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
          34: "skipped", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
          255: "timeout", 37: "killed"}


def repo_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if (REPO / f).is_file()]


def equivalent_mutants() -> set[str]:
    """Mutant names listed in tests/mutation_equivalent.md (each full name in backticks)."""
    if not EQUIVALENT.exists():
        return set()
    return set(re.findall(r"`(popresume\.[\w.\u01c1]+__mutmut_\d+)`", EQUIVALENT.read_text()))


def setup_cfg(mutate: list[str], tests: list[str], test_filter: str | None = None) -> str:
    def lines(values):
        return "".join(f"\n    {v}" for v in values)
    if test_filter:
        tests = [*tests, "-k", test_filter]
    return ("[mutmut]\n"
            "source_paths =\n    popresume\n"
            f"only_mutate ={lines(mutate)}\n"
            f"pytest_add_cli_args_test_selection ={lines(tests)}\n"
            "pytest_add_cli_args =\n    -q\n    -p\n    no:cacheprovider\n    -p\n    no:randomly\n"
            f"also_copy ={lines(ALSO_COPY)}\n"
            "use_git_change_detection = false\n")


def run_module(name: str, jobs: int, keep: bool, no_harness: bool = False,
               only: list[str] | None = None) -> dict:
    mutate, tests, functions = MODULES[name]
    if only:
        unknown = [f for f in only if functions is not None and f not in functions]
        if unknown:
            raise SystemExit(f"--functions: {unknown[0]!r} is not in {name}'s function list {functions}")
        functions = only
    if no_harness:
        tests = [t for t in tests if not t.startswith(HARNESS)]
    mutate = [m for m in mutate if (REPO / m).exists()]
    missing_tests = [t for t in tests if not (REPO / t).exists()]
    tests = [t for t in tests if (REPO / t).exists()]
    if not mutate or not tests:
        return {"module": name, "note": "skipped: " + ("no module" if not mutate else "no tests")}
    work = Path(tempfile.mkdtemp(prefix=f"mutation-{name}-"))
    try:
        for f in repo_files():
            dest = work / f
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, dest)
        (work / "setup.cfg").write_text(setup_cfg(mutate, tests, TEST_FILTER.get(name)))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["POPRESUME_CACHE"] = str(work / "_cache")
        env["MPLBACKEND"] = "Agg"
        # one OpenMP thread: mutmut forks a child per mutant from a process whose tests have
        # fitted XGBoost, and a child's next fit then waits forever on the copied OpenMP pool
        env["OMP_NUM_THREADS"] = "1"
        t0 = time.time()
        proc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs),
                               *mutant_globs(functions)],
                              cwd=work, env=env, capture_output=True, text=True)
        seconds = time.time() - t0
        result = {"module": name, "seconds": round(seconds), "missing_tests": missing_tests}
        codes = {}
        for meta in (work / "mutants").rglob("*.meta"):
            codes.update(json.loads(meta.read_text()).get("exit_code_by_key", {}))
        if not codes:
            tail = (proc.stdout + proc.stderr)[-3000:]
            result["note"] = f"mutmut produced no results (rc {proc.returncode}):\n{tail}"
            return result
        # mutants outside the function list are never run (exit code None): not counted
        status = {k: STATUS.get(v, "suspicious") for k, v in codes.items() if v is not None}
        if not status:
            # e.g. "failed to collect stats": a judge test fails on the unmutated code, so no mutant ran
            tail = (proc.stdout + proc.stderr)[-3000:]
            result["note"] = f"no mutant ran (rc {proc.returncode}); the judge tests must pass first:\n{tail}"
            return result
        result["status"] = status
        return result
    finally:
        if keep:
            print(f"  kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def table(results: list[dict], show_survivors: bool) -> str:
    equivalent = equivalent_mutants()
    head = f"{'module':<18}{'mutants':>8}{'killed':>8}{'survived':>9}{'equiv':>6}{'timeout':>8}" \
           f"{'other':>6}{'score':>8}{'adj.':>7}{'min':>6}"
    rows = [head, "-" * len(head)]
    survivors = []
    for r in results:
        if "status" not in r:
            rows.append(f"{r['module']:<18}  {r.get('note', '')}")
            continue
        st = r["status"]
        killed = sum(s == "killed" for s in st.values())
        timeout = sum(s == "timeout" for s in st.values())
        surv = sorted(k for k, s in st.items() if s in ("survived", "no tests"))
        eq = sum(k in equivalent for k in surv)
        other = len(st) - killed - timeout - len(surv)
        # a timeout is a kill (the mutant hung the tests), as mutmut and cosmic-ray count it
        score = (killed + timeout) / max(killed + timeout + len(surv), 1)
        adjusted = (killed + timeout) / max(killed + timeout + len(surv) - eq, 1)
        rows.append(f"{r['module']:<18}{len(st):>8}{killed:>8}{len(surv):>9}{eq:>6}{timeout:>8}"
                    f"{other:>6}{score:>8.1%}{adjusted:>7.1%}{r['seconds'] / 60:>6.1f}")
        survivors += [(r["module"], k, k in equivalent) for k in surv]
    rows.append("score = (killed + timeout) / (killed + timeout + survived); "
                "adj. leaves out the survivors explained in tests/mutation_equivalent.md")
    if show_survivors and survivors:
        rows.append("\nsurviving mutants (mutmut show NAME in a kept folder prints the diff):")
        rows += [f"  {m:<18}{k}{'  (equivalent)' if e else ''}" for m, k, e in survivors]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help=f"subset of {list(MODULES)}")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print the module -> tests map and exit")
    ap.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folders (to `mutmut show`)")
    ap.add_argument("--json", type=Path, help="also write the per-mutant statuses here")
    ap.add_argument("--functions", nargs="+", metavar="NAME",
                    help="mutate only these functions of the module's list (a time-boxed run; say so beside its figures)")
    ap.add_argument("--no-harness", action="store_true",
                    help="leave out the harness subsets (tests/test_coverage_*.py): a quicker, stricter run")
    args = ap.parse_args(argv)
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        ap.error(f"unknown module {unknown[0]!r}; choose from {list(MODULES)}")
    if args.list:
        for name, (mutate, tests, functions) in MODULES.items():
            print(f"{name}: {', '.join(mutate)}" + (f" ({', '.join(functions)})" if functions else "")
                  + f"\n    judged by {', '.join(tests)}")
        return 0
    results = []
    for name in args.modules or list(MODULES):
        print(f"mutating {name} ...", file=sys.stderr, flush=True)
        results.append(run_module(name, args.jobs, args.keep, args.no_harness, args.functions))
        # each module's row as soon as it is done: a run stopped midway keeps what it measured
        print(table(results[-1:], False).splitlines()[2], file=sys.stderr, flush=True)
        if args.json:
            args.json.write_text(json.dumps({r["module"]: r.get("status", r.get("note")) for r in results},
                                            indent=1, sort_keys=True))
    print(table(results, args.survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
