"""The leakage audit of "Beyond the Name": 620 factorial résumés and Tasks 1-3.

* :mod:`popresume.leakage.corpus` builds the variants and omission baselines from
  ``data/leakage/`` and enforces the paper's invariants;
* :mod:`popresume.leakage.tasks` holds the three task protocols (prompts, JSON schemas,
  runner with repetitions and a reply cache);
* :mod:`popresume.leakage.metrics` turns replies into tidy metric tables with
  cluster-bootstrap CIs (clusters = base résumés), four-fifths flags and Holm/BH corrections;
* :mod:`popresume.leakage.embedding_backend` is the judge that runs here on CPU: an
  embedding model as zero-shot Task 1 classifier and Tasks 2-3 scorer.
"""

from popresume.leakage.corpus import (  # noqa: F401
    COMPARATOR,
    CONDITIONS,
    CONTROL,
    GROUPS,
    LANGUAGE_LINE,
    TIERS,
    CorpusError,
    build_corpus,
    check_corpus,
    criteria_coverage,
    job_description,
)

# Published results of "Beyond the Name" (Sec. 4), shown next to ours in the chapter.
PUBLISHED = {
    "overall_recovery": 0.757,  # target-group recovery rate across held-out models
    "t1_recovery": 1.0,  # all models perfect at T1, without abstaining
    "t3_recovery_min": 0.086,  # T3 spread across models
    "t3_recovery_max": 0.690,
    "tie_rate_min_when_allowed": 0.94,  # ">= 94%" ties for most models when a tie is permitted
    "forced_choice_srr_vs_anglo": 0.39,  # spurious selection-rate ratio under forced choice
    "score_effect_bound": 0.13,  # common ethnocultural effect < 0.13 points on a 100-point scale
    "parse_rate": 1.0,  # 100% valid JSON under grammar-constrained decoding (N = 16,740)
}
