"""Forced-choice ranking audits: a model orders k résumés that differ only in the name.

The design, generic over models and data:

* :mod:`~popresume.ranking.parse`: from a reply to ranks (the first-occurrence rule and the
  alternatives for names a reply leaves out);
* :mod:`~popresume.ranking.rates`: top-1 selection rates, impact ratios with intervals,
  Holm/BH adjustment, mean ranks and top-k rates, rates under each parse rule;
* :mod:`~popresume.ranking.chance`: what a fair ranker produces under the experiment's design (min/max ratio,
  four-fifths flags);
* :mod:`~popresume.ranking.position`: how often the résumé shown at each position is ranked first;
* :mod:`~popresume.ranking.clogit`: conditional logit over the k alternatives, SEs clustered two-way by run and name;
* :mod:`~popresume.ranking.names`: per-name rates, concentration, Appendix C.4 on the names;
* :mod:`~popresume.ranking.screening`: our screeners ranking the same sets;
* :mod:`~popresume.ranking.report`: the chapter's tables (its figures are :mod:`popresume.plots.ranking`).

Bloomberg's 2024 GPT experiment (its files, codes and published table) is kept apart in
:mod:`~popresume.ranking.bloomberg`.
"""

from popresume.ranking.chance import chance_table, null_quantiles
from popresume.ranking.clogit import conditional_logit
from popresume.ranking.parse import first_occurrence_ranks, rank_runs
from popresume.ranking.position import position_rates
from popresume.ranking.rates import min_max_ratios, selection_rates

#: The calls of a ranking audit, in the order of one: replies to ranks, rates and ratios,
#: what chance gives, the position effect, the conditional logit. The other helpers stay in
#: their modules' ``__all__``.
__all__ = ["first_occurrence_ranks", "rank_runs", "selection_rates", "min_max_ratios", "null_quantiles",
           "chance_table", "position_rates", "conditional_logit"]
