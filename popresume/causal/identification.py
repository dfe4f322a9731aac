"""Identification before inference: which effects the data at hand can estimate.

Every effect is a fixed combination of the counterfactual means ψ(a_y, a_b, a_r)
(``functional``), and each mean is weighted by π1, π2, π3 of docs/DESIGN.md §3. Which
propensities a mean's weights really use follows from those formulas (the rest cancel):

* π1 uses p(x | Z) always;
* π2 uses p(x | R, Z) only when a_r ≠ a_b;
* π3 uses p(x | B, R, Z) only when a_b ≠ a_y (and p(x | R, Z) when a_r ≠ a_b).

So TE (ψ111 − ψ000) rests on p(x | Z) alone; NDE and NIE (through ψ100) also on
p(x | B, R, Z); BIE and RIE (ψ100, ψ101, ψ110) on all three. Where a mediator nearly
reveals the attribute (a first name and gender), "X changed, mediators kept" has almost no
support: the propensities an effect rests on are clipped (a bias the interval ignores, and
one that more data does not remove), its weights have a small effective sample size (ESS)
and a heavy upper tail (a few résumés carry the mean).

The default rule, ``rule="support"`` (:func:`is_estimable`), withholds an effect's interval
only for a reason of support. It is estimable when

    the largest share of clipped propensities among those it uses ≤ ``MAX_CLIPPED_SHARE`` (1%), and
    the smallest ESS among the weights of the means it uses ≥ ``MIN_ESS`` (50).

Both are absolute: clipping is a bias whatever n, and a normal approximation needs some
tens of effective rows. Support is nested, so the effects that rest on p(x | B, R, Z) (NDE,
NIE, BIE, RIE) are estimable together or not at all (:func:`together`): every weight is built
from p(x | Z), p(x | R, Z) and p(x | B, R, Z), and where Z, or R and Z, nearly reveal the
attribute, B, R and Z reveal it at least as much. A flexible learner can hide that in the
finer model (XGBoost regularises p(x | B, R, Z) away from the bounds) while a coarser one shows
it: on the harness's proxy design (R reveals X), in the 3 samples of 300 at n = 1,000 where
NDE's and NIE's own weights passed (ESS 52-82), BIE's and RIE's, which also use p(x | R, Z),
had an ESS of 18-26, and the NDE and NIE intervals those samples would have printed all missed.
The shape of the weights' tail is measured beside them and
reported, not used by default: the largest Pareto k̂ of the weights' upper tails
(:func:`popresume.causal.functional.pareto_k`, the PSIS diagnostic of Vehtari et al. 2024),
which neither grows nor shrinks with n on a fixed design. ``max_pareto_k=MAX_PARETO_K``
(0.7, the literature's line) adds it to the rule. It is off because, measured, its
maximum-likelihood fit reads the piecewise-constant weights of the tree learner as heavy:
race's weights on the synthetic screener's audit of nurses at n = 2,000 gave k̂ 0.49-2.12,
above 0.7 in 8 of seeds 0-8, with 44 of their 45 raw intervals covering the truth. The rule
replaces the earlier floors on the ESS of the mediated effects (750 with cell means, 2,000
with XGBoost) and on the ESS as a share of the rows (10%), which stood in for an SE too narrow at small n
and withheld race's decomposition at every audit size although its propensities were not
clipped and its intervals covered the synthetic screener's truth (issue 37). That rule is
kept as ``rule="ess-floor"``, for comparison.

A non-estimable effect keeps its point estimate, but gets no interval presented as valid,
no p-value and no significance (``PSEResult.summary``); the raw interval stays in
``diag_ci_low`` / ``diag_ci_high`` for diagnosis only. Its ``reason`` says in words what
lacks support ("the mediators nearly reveal the attribute: ...").

``identification="paper"`` keeps the paper's behaviour (every interval reported as is), for
the chapters that reproduce it. The honest alternatives are options, never silent defaults:
:func:`overlap_population` trims the data to the rows with support (the estimand becomes the
effect in that population, and the summary says so), and a coarser mediator (chapter 10a,
``popresume.audit.coarsening``) trades the path's resolution for support.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from popresume.schema import PSE_NAMES

from .functional import EFFECT_WEIGHTS, PSI_LABELS, PSI_TRIPLES
from .nuisance import CellMeans, Encoder, fit_predict, xgb_classifier
from .spec import DEFAULTS, ESTIMABLE_RULES

# Chosen with the coverage harness (popresume.coverage.causal). The ESS floor: with the
# cell-means estimator at n = 1,000 over the good, weak and proxy designs (4,700
# effect-replications), coverage of nominal 95% intervals collapses below an ESS of 50 (0.51
# at 30-50, 0.30 below 30). The clipped share: clipping is a bias that does not shrink with n
# while the SE does, so a share that is harmless at n = 1,000 is not at n = 4,000. On the weak
# design (15% of the true P(x1 | B, R, Z) outside [0.01, 0.99]) the NDE intervals of the
# samples with at most 5% of their estimated propensities clipped covered 0.95 at n = 1,000
# (111 of 300 samples) but 0.84 at n = 4,000 (31 of 300; 0.67 in the 6 with 1-2% clipped):
# the samples whose estimate clips little are those whose rare cells were over-estimated. At
# most 1% clipped leaves 18 weak samples at n = 1,000 (16 covered with normal intervals, 15
# with the harness's bootstrap ones: too few to call) and none at 4,000, and
# changes nothing on the good design (no propensity near the bounds).
MAX_CLIPPED_SHARE = 0.01
MIN_ESS = 50.0
# The weights' tail, an opt-in check (``max_pareto_k=MAX_PARETO_K``): 0.7 is the line above
# which Vehtari et al. (2024, JMLR 25(72)) find importance-weighted means unreliable at any
# practical sample size. On the synthetic screener's audits (XGBoost defaults) race's weights
# reach k̂ 0.52-0.54 (accountants, n = 3,000, seed 0; no propensity clipped, every interval
# covering the truth) and gender's 1.7-4.1 (46-49% of the propensities clipped); race's on
# nurses at n = 2,000 reach 0.49-2.12, above 0.7 in 8 of seeds 0-8 (44 of 45 raw intervals
# covering), so the check would withhold race at the README's size with no failure to show: the
# tree learner's weights take clustered values whose gaps the fit reads as a heavy tail. Off
# by default; the harness can measure it on the audit pipeline.
MAX_PARETO_K = 0.7
# The rules: "support" (default) and "ess-floor" (the ESS floors below, the rule before issue 37).
RULES: tuple[str, ...] = ESTIMABLE_RULES
DEFAULT_RULE: str = DEFAULTS.estimable_rule
# The mediated effects' floor, from the same harness (cell-means estimator, good overlap, 300
# samples per n): at n = 1,000 (median smallest ESS 215) the intervals of NIE and BIE cover
# 0.90 (SE 18% too small; TE and NDE 0.95); at n = 2,000 (ESS 487) 0.91-0.95 over two sets of
# seeds; at n = 4,000 (ESS 1,015) 0.94-0.97. 750 sits between n = 2,000 and n = 4,000.
# (``rule="ess-floor"`` only, like the next two.)
MIN_ESS_MEDIATED = 750.0
# The floor with a flexible outcome learner (the XGBoost default, and any learner other than
# the saturated cell means): its nested regressions are noisier. The harness's full run
# (good design, XGBoost tuned once per n, 300 samples per n): at n = 4,000 (median smallest
# ESS 1,095) RIE covers 0.887 (SE/SD 0.84) and NIE 0.933 (0.90); at n = 8,000 (ESS 2,187)
# RIE 0.960 (1.00), NIE 0.930 (0.94) and BIE 0.933 (0.98). The shortfall shrinks with n, as
# a second-order term's should; 2,000 sits just below n = 8,000.
MIN_ESS_MEDIATED_FLEXIBLE = 2000.0
MEDIATED: tuple[str, ...] = ("NIE", "BIE", "RIE")
# The smallest ESS as a share of the rows, for the effects whose weights use p(x | B, R, Z)
# (NDE, NIE, BIE, RIE). A regularised learner (XGBoost) keeps the propensities of a poorly
# overlapping design inside the clipping bounds, so their clipped share reads 0 while the
# weights still rest on few rows. The harness's weak design (15% of the true p(x1 | B, R, Z)
# beyond [0.01, 0.99]) with XGBoost: the samples the two rules above called estimable for NDE
# had clipped share 0 and an ESS of 6-8% of the rows at n = 8,000, and covered 9 of 12 (the
# three misses all below the truth). On the good design the 5th percentile of the share is
# 0.14 (cell means, n = 1,000) to 0.26 (XGBoost, n = 8,000), so 10% leaves it alone.
MIN_ESS_SHARE = 0.10


def mediated_ess_floor(outcome_learner=None) -> float:
    """The mediated effects' ESS floor for an estimator whose outcome regressions use ``outcome_learner``.

    ``MIN_ESS_MEDIATED`` for the saturated cell-means learner (``nuisance.CellMeans``), the one
    it was measured with; ``MIN_ESS_MEDIATED_FLEXIBLE`` for XGBoost (``None``, the default) and
    for any other learner, whose nested regressions the harness has not measured.

    >>> from popresume.causal.nuisance import CellMeans
    >>> mediated_ess_floor(CellMeans()), mediated_ess_floor(None)
    (750.0, 2000.0)
    """
    return MIN_ESS_MEDIATED if isinstance(outcome_learner, CellMeans) else MIN_ESS_MEDIATED_FLEXIBLE


def ess_floor(effect: str, min_ess: float = MIN_ESS, min_ess_mediated: float = MIN_ESS_MEDIATED) -> float:
    """The smallest ESS at which ``effect``'s interval is calibrated (the mediated effects' floor is higher)."""
    return max(min_ess, min_ess_mediated) if effect in MEDIATED else min_ess

PROPENSITY_MODELS: tuple[str, ...] = ("p(x1|Z)", "p(x1|R,Z)", "p(x1|B,R,Z)")
_WEIGHT_SYMBOL = {"pi1": "π1", "pi2": "π2", "pi3": "π3"}
# What lacks support, in words, for the reason of a non-estimable effect.
_PATHS = {
    "TE": "the total effect has too little support where the confounders reveal the attribute",
    "NDE": "the direct path has too little support where the mediators reveal the attribute",
    "NIE": "the indirect paths have too little support where the mediators reveal the attribute",
    "BIE": "the business-necessity path has too little support where the mediators reveal the attribute",
    "RIE": "the redlining path has too little support where the mediators reveal the attribute",
}

_PATH_NAMES = {"TE": "the total effect", "NDE": "the direct path", "NIE": "the indirect paths",
               "BIE": "the business-necessity path", "RIE": "the redlining path"}

# Why a supported mediated effect still gets no interval (its ESS is between the two floors).
_SMALL = {e: (f"too few effective rows for a calibrated {e} interval (the nested regressions' finite-sample "
              "noise, left out of the influence-function SE, still dominates)") for e in MEDIATED}


def psi_propensities(triple: tuple[int, int, int]) -> tuple[str, ...]:
    """The propensity models the weights of ψ(a_y, a_b, a_r) really use (the rest cancel)."""
    a_y, a_b, a_r = triple
    used = ["p(x1|Z)"]
    if a_r != a_b:
        used.append("p(x1|R,Z)")
    if a_b != a_y:
        used.append("p(x1|B,R,Z)")
    return tuple(used)


def effect_psis(effect: str) -> tuple[str, ...]:
    """The counterfactual means an effect combines (its non-zero weights in ``EFFECT_WEIGHTS``)."""
    row = EFFECT_WEIGHTS.loc[effect]
    return tuple(row.index[row.to_numpy() != 0])


@functools.cache
def effect_propensities(effect: str) -> tuple[str, ...]:
    """The propensity models an effect rests on, in ``PROPENSITY_MODELS`` order."""
    used = {m for t in effect_psis(effect) for m in psi_propensities(PSI_TRIPLES[t])}
    return tuple(m for m in PROPENSITY_MODELS if m in used)


def short_of_share(effect: str, ess: float, n: float, min_ess_share: float = MIN_ESS_SHARE) -> bool:
    """Whether ``effect`` rests on p(x1|B,R,Z) with a smallest ESS under ``min_ess_share`` of the ``n`` rows."""
    return "p(x1|B,R,Z)" in effect_propensities(effect) and ess < min_ess_share * n


#: The effects whose weights use p(x1 | B, R, Z): one verdict for all of them under "support".
NESTED: tuple[str, ...] = ("NDE", "NIE", "BIE", "RIE")
#: The settings of the rules, for the caches of estimates (``AuditConfig.estimator_key``).
RULE_SETTINGS = {"max_clipped_share": MAX_CLIPPED_SHARE, "min_ess": MIN_ESS, "nested": NESTED,
                 "min_ess_mediated": MIN_ESS_MEDIATED, "min_ess_mediated_flexible": MIN_ESS_MEDIATED_FLEXIBLE,
                 "min_ess_share": MIN_ESS_SHARE}


def together(estimable) -> np.ndarray:
    """The support rule's verdicts after nesting: ``estimable`` (bool per effect, in
    ``PSE_NAMES`` order) with NDE, NIE, BIE and RIE all False when any of them is.

    Overlap can only shrink as the conditioning set grows: if R and Z (or Z alone) nearly
    reveal X, so do B, R and Z. Every weight of those four effects rests on p(x1 | B, R, Z),
    whose support therefore holds only where every weight built from the coarser models holds
    it too, whichever effect's mean the failing weight belongs to.

    >>> together([True, True, True, False, True]).tolist()
    [True, False, False, False, False]
    """
    ok = np.asarray(estimable, dtype=bool).copy()
    nested = [PSE_NAMES.index(e) for e in NESTED]
    if not ok[nested].all():
        ok[nested] = False
    return ok


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise ValueError(f"estimable_rule must be one of {list(RULES)}, got {rule!r}")


def is_estimable(effect: str, clipped_share: float, ess: float, n: float, pareto_k: float = float("nan"), *,
                 rule: str = DEFAULT_RULE, max_clipped_share: float = MAX_CLIPPED_SHARE, min_ess: float = MIN_ESS,
                 max_pareto_k: float | None = None, min_ess_mediated: float = MIN_ESS_MEDIATED,
                 min_ess_share: float = MIN_ESS_SHARE) -> bool:
    """The rule on one effect's overlap numbers (what :func:`identification_table` decides, without the reason).

    ``clipped_share``: the largest share of clipped propensities among the models the effect
    uses; ``ess``: the smallest ESS of its means' weights; ``n``: the rows; ``pareto_k``: the
    largest Pareto k̂ of those weights (NaN, a tail too tied to fit, passes).

    ``rule="support"`` (default): clipped share ≤ ``max_clipped_share``, ESS ≥ ``min_ess`` and,
    when ``max_pareto_k`` is given (e.g. ``MAX_PARETO_K``; default None, no check),
    k̂ ≤ ``max_pareto_k``. ``rule="ess-floor"`` (the rule before issue 37): clipped share ≤
    ``max_clipped_share``, ESS ≥ ``min_ess`` (≥ ``min_ess_mediated`` for NIE, BIE and RIE) and,
    for the effects that use p(x1|B,R,Z), ESS ≥ ``min_ess_share`` of the rows; k̂ unused.

    >>> is_estimable("RIE", 0.0, 195.0, 3000, 0.54)  # race, accountants: supported
    True
    >>> is_estimable("RIE", 0.0, 195.0, 3000, 0.54, rule="ess-floor")  # under the 2,000 floor of XGBoost
    False
    >>> is_estimable("NDE", 0.46, 15.0, 3000, 1.74)  # gender: the first name reveals it
    False
    >>> is_estimable("RIE", 0.0, 222.0, 2000, 0.91), is_estimable("RIE", 0.0, 222.0, 2000, 0.91, max_pareto_k=0.7)
    (True, False)
    """
    _check_rule(rule)
    if rule == "ess-floor":
        return (clipped_share <= max_clipped_share and ess >= ess_floor(effect, min_ess, min_ess_mediated)
                and not short_of_share(effect, ess, n, min_ess_share))
    heavy = max_pareto_k is not None and pareto_k > max_pareto_k
    return bool(clipped_share <= max_clipped_share and ess >= min_ess and not heavy)


# What reveals the attribute when a propensity model is clipped, in words.
_REVEALS = {"p(x1|Z)": "the confounders nearly reveal the attribute",
            "p(x1|R,Z)": "the redlining mediators nearly reveal the attribute",
            "p(x1|B,R,Z)": "the mediators nearly reveal the attribute"}


def _support_reason(e: str, clipped: float, model: str, ess: float, where: str, k: float, k_where: str, *,
                    max_clipped_share: float, min_ess: float, max_pareto_k: float | None) -> str:
    """Why ``e`` lacks support, in words first (before the first ": "), then the numbers."""
    return _so(_support_why(clipped, model, ess, where, k, k_where, max_clipped_share=max_clipped_share,
                            max_pareto_k=max_pareto_k), e)


def _so(why: str, e: str, also: str = "") -> str:
    name = _PATH_NAMES[e]
    return f"{why}, so {name} {'have' if name.endswith('s') else 'has'} too little support{also}"


def _support_why(clipped: float, model: str, ess: float, where: str, k: float, k_where: str, *,
                 max_clipped_share: float, max_pareto_k: float | None) -> str:
    if clipped > max_clipped_share:
        why = (f"{_REVEALS[model]}: {clipped:.0%} of the propensities {model} are clipped "
               f"({where}; smallest ESS {ess:.0f})")
    elif max_pareto_k is not None and k > max_pareto_k:
        why = (f"a few résumés carry the weights: their tail has Pareto k̂ {k:.2f} ({k_where}; smallest ESS "
               f"{ess:.0f}), too heavy for a normal interval")
    else:
        why = f"too few résumés carry the weights: an effective sample size of {ess:.0f} ({where}; the smallest)"
    return why


def identification_table(diagnostics: dict, *, rule: str = DEFAULT_RULE, max_clipped_share: float = MAX_CLIPPED_SHARE,
                         min_ess: float = MIN_ESS, max_pareto_k: float | None = None,
                         min_ess_mediated: float = MIN_ESS_MEDIATED,
                         min_ess_share: float = MIN_ESS_SHARE) -> pd.DataFrame:
    """Per effect: ``estimable``, ``reason`` and the numbers the verdict rests on.

    ``diagnostics`` is ``PSEResult.diagnostics`` (its ``propensity`` table with
    ``n_clipped`` per model, its ``weights`` table with ``ess``, ``pareto_k`` and
    ``max_weight_share`` per mean and weight, ``n``); ``rule`` as in :func:`is_estimable`.
    Columns: ``estimable`` (bool), ``reason`` (one line, empty when estimable),
    ``clipped_share`` (largest share of clipped propensities among the models the effect
    uses), ``clipped_model``, ``min_ess`` (smallest ESS among the weights of its means),
    ``min_ess_weight``, ``pareto_k`` (largest Pareto k̂ of those weights, NaN when no tail
    could be fitted), ``pareto_k_weight`` and ``max_weight_share`` (the largest weight over
    the sum of its vector, largest over those weights).

    Parameters
    ----------
    diagnostics : dict
        ``PSEResult.diagnostics``.
    rule : {"support", "ess-floor"}
        The rule of :func:`is_estimable`.
    max_clipped_share : float
        An effect with a larger share of clipped propensities is not estimable.
    min_ess : float
        The smallest effective sample size of a weight behind any effect.
    max_pareto_k : float or None
        Under "support", the largest Pareto k̂ of an effect's weights (None: not checked).
    min_ess_mediated : float
        Under "ess-floor", the ESS floor of NIE, BIE and RIE.
    min_ess_share : float
        Under "ess-floor", the floor as a share of the rows, for NDE, NIE, BIE and RIE.

    Returns
    -------
    pandas.DataFrame
        Indexed TE, NDE, NIE, BIE, RIE.

    Examples
    --------
    >>> import warnings
    >>> from popresume.causal import PSEEstimator, make_scm
    >>> from popresume.causal.nuisance import CellMeans
    >>> with warnings.catch_warnings():  # fit() may warn of a small ESS
    ...     warnings.simplefilter("ignore")
    ...     est = PSEEstimator(make_scm("basic", seed=0).sample(1000, seed=1), x="x", x0="x0", x1="x1",
    ...                        z=["z"], b=["b"], r=["r"], y="y",
    ...                        learners={"propensity": CellMeans(), "outcome": CellMeans()}).fit()
    >>> identification_table(est.result_.diagnostics)["estimable"].tolist()
    [True, True, True, True, True]
    >>> identification_table(est.result_.diagnostics, rule="ess-floor")["estimable"].tolist()
    [True, True, False, False, False]
    """
    _check_rule(rule)
    prop = diagnostics["propensity"]
    w = diagnostics["weights"]
    n = float(diagnostics["n"])
    share = dict(zip(prop.index, prop["n_clipped"].to_numpy(dtype=float) / n))
    nan = np.full(len(w), np.nan)
    cols = [w["psi"], w["weight"], w["ess"].to_numpy(dtype=float),
            w["pareto_k"].to_numpy(dtype=float) if "pareto_k" in w else nan,
            w["max_weight_share"].to_numpy(dtype=float) if "max_weight_share" in w else nan]
    table = list(zip(*cols))
    rows = []
    for e in PSE_NAMES:
        worst_model = max((m for m in effect_propensities(e) if m in share), key=share.__getitem__)
        clipped = share[worst_model]
        psis = effect_psis(e)
        mine = [t for t in table if t[0] in psis]
        psi, weight, ess, _, _ = min(mine, key=lambda t: t[2])
        where = f"{_WEIGHT_SYMBOL.get(weight, weight)} of {PSI_LABELS.get(psi, psi)}"
        tails = [t for t in mine if np.isfinite(t[3])]
        k, k_where = float("nan"), ""
        if tails:
            kt = max(tails, key=lambda t: t[3])
            k, k_where = float(kt[3]), f"{_WEIGHT_SYMBOL.get(kt[1], kt[1])} of {PSI_LABELS.get(kt[0], kt[0])}"
        top_share = float(np.nanmax([t[4] for t in mine])) if any(np.isfinite(t[4]) for t in mine) else float("nan")
        ok = is_estimable(e, clipped, ess, n, k, rule=rule, max_clipped_share=max_clipped_share, min_ess=min_ess,
                          max_pareto_k=max_pareto_k, min_ess_mediated=min_ess_mediated, min_ess_share=min_ess_share)
        reason = ""
        if not ok and rule == "support":
            reason = _support_reason(e, clipped, worst_model, ess, where, k, k_where,
                                     max_clipped_share=max_clipped_share, min_ess=min_ess, max_pareto_k=max_pareto_k)
        elif not ok:
            reason = _floor_reason(e, clipped, worst_model, ess, where, n, max_clipped_share=max_clipped_share,
                                   min_ess=min_ess, min_ess_mediated=min_ess_mediated, min_ess_share=min_ess_share)
        rows.append({"effect": e, "estimable": ok, "reason": reason, "clipped_share": clipped,
                     "clipped_model": worst_model, "min_ess": ess, "min_ess_weight": where, "pareto_k": k,
                     "pareto_k_weight": k_where, "max_weight_share": top_share,
                     "_why": _support_why(clipped, worst_model, ess, where, k, k_where,
                                          max_clipped_share=max_clipped_share, max_pareto_k=max_pareto_k)})
    out = pd.DataFrame(rows).set_index("effect")
    if rule == "support":  # nested support: the effects on p(x1|B,R,Z) stand or fall together
        joint = together(out["estimable"].to_numpy())
        failed = out.loc[list(NESTED)]
        failed = failed[~failed["estimable"]]
        if len(failed):
            # the failing effect whose numbers are worst: clipped first, then the smallest ESS
            f = failed.sort_values(["clipped_share", "min_ess"], ascending=[False, True], kind="stable").index[0]
            for e in out.index[joint != out["estimable"].to_numpy()]:
                out.loc[e, "reason"] = _so(f"support is nested: {_PATH_NAMES[f]} lacks it ({out.loc[f, '_why']}), "
                                           f"and p(x1|B,R,Z), which {_PATH_NAMES[e]} rests on, never has more "
                                           f"overlap than a model with fewer mediators", e, " as well")
            out["estimable"] = joint
    return out.drop(columns="_why")


def _floor_reason(e: str, clipped: float, worst_model: str, ess: float, where: str, n: float, *,
                  max_clipped_share: float, min_ess: float, min_ess_mediated: float, min_ess_share: float) -> str:
    """The reason of ``rule="ess-floor"``: the numbers and the thresholds they miss."""
    floor = ess_floor(e, min_ess, min_ess_mediated)
    thin = short_of_share(e, ess, n, min_ess_share)
    what = []
    if clipped > max_clipped_share:
        what.append(f"{clipped:.0%} of propensities {worst_model} clipped (at most {max_clipped_share:.0%})")
    if ess < floor or thin:
        need = ([f"at least {floor:.0f}"] if ess < floor else []) + (
            [f"{ess / n:.1%} of the rows, at least {min_ess_share:.0%}"] if thin else [])
        what.append(f"smallest ESS {ess:.0f} ({where}; {'; '.join(need)})")
    if clipped > max_clipped_share or ess < min_ess or thin:
        return f"{'; '.join(what)}: {_PATHS[e]}"
    return f"{'; '.join(what)}: {_SMALL[e]}"  # supported, but too few effective rows for the nested fits' noise


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def identification_sentence(summary: pd.DataFrame, label: str) -> str:
    """One sentence for a report: which effects are not estimable, why (the first one's reason, in words), which are.

    ``summary`` is ``PSEResult.summary`` (columns ``estimable`` and ``reason``); ``label``
    names the contrast ("gender"). Empty when every effect is estimable.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"estimable": [True, False, False, True, False],
    ...                   "reason": ["", "the mediators nearly reveal the attribute: 54% of the propensities "
    ...                              "p(x1|B,R,Z) are clipped (...), so the direct path has too little support",
    ...                              "x: y", "", "z: w"]},
    ...                  index=["TE", "NDE", "NIE", "BIE", "RIE"])
    >>> identification_sentence(s, "gender")
    'gender: NDE, NIE and RIE not estimable at this overlap (the mediators nearly reveal the attribute); TE and BIE are'
    """
    bad = [e for e in PSE_NAMES if not bool(summary.loc[e, "estimable"])]
    if not bad:
        return ""
    good = [e for e in PSE_NAMES if e not in bad]
    why = str(summary.loc[bad[0], "reason"]).split(": ")[0]
    tail = f"; {_listed(good)} {'is' if len(good) == 1 else 'are'}" if good else ""
    small = all(str(summary.loc[e, "reason"]).endswith(_SMALL.get(e, "\0")) for e in bad)
    at = "this sample size" if small else "this overlap"
    return f"{label}: {_listed(bad)} not estimable at {at} ({why}){tail}"


def overlap_population(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, bounds: tuple[float, float] = (0.05, 0.95),
                       folds: int = 5, seed: int = 0, learners=None) -> tuple[pd.DataFrame, str]:
    """The rows with support: cross-fitted P(X = x1 | B, R, Z) inside ``bounds``.

    The trimming of Crump et al. (2009) applied to the richest propensity, the one the
    direct and mediated paths rest on. It changes the estimand: the effects estimated on the
    returned rows are those *of the overlap population* (résumés whose mediators do not
    reveal the attribute), not of everyone; the returned description says which rows and
    how many, for the summary (``PSEResult.population``). ``learners``: a classifier with
    ``fit``/``predict_proba`` (default: XGBoost at the middle of the Appendix C.5 grid).

    Returns ``(rows, description)``.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per résumé.
    x, x0, x1 : str, object, object
        The protected attribute column and its levels.
    z, b, r : list of str
        Confounders and the two sets of mediators.
    bounds : (float, float)
        The propensities kept.
    folds, seed : int
        Cross-fitting folds and seed.
    learners : classifier, optional
        What fits the propensity.

    Returns
    -------
    rows : pandas.DataFrame
        The rows with support.
    description : str
        Which rows, and how many, in words.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from popresume.causal import make_scm
    >>> data = make_scm("basic", seed=0).sample(1000, seed=1)
    >>> rows, says = overlap_population(data, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"],
    ...                                 learners=LogisticRegression())
    >>> len(rows), says
    (1000, "overlap population: rows with cross-fitted P(x='x1' | B,R,Z) in [0.05, 0.95], 1,000 of 1,000")
    """
    lo, hi = bounds
    if not 0 < lo < hi < 1:
        raise ValueError(f"trim bounds must satisfy 0 < low < high < 1, got {bounds!r}")
    cols = [*z, *b, *r]
    df = data.reset_index(drop=True)
    xv = (df[x] == x1).to_numpy()
    X = Encoder.fit(df, cols).transform(df)
    clf = learners if learners is not None else xgb_classifier()
    p = np.empty(len(df))
    for tr, ev in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, xv):
        (p[ev],) = fit_predict(clf, "propensity", X[tr], xv[tr].astype(int), [X[ev]])
    keep = (p >= lo) & (p <= hi)
    if not keep.any():
        raise ValueError(f"no row has P({x}={x1!r} | B, R, Z) inside {bounds}: the overlap population is empty")
    desc = (f"overlap population: rows with cross-fitted P({x}={x1!r} | B,R,Z) in [{lo:g}, {hi:g}], "
            f"{int(keep.sum()):,} of {len(df):,}")
    return df[keep].reset_index(drop=True), desc
