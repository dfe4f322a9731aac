"""Three audit designs in the Standard Fairness Model: what each identifies.

* **Randomised correspondence** (Bertrand & Mullainathan 2004): qualifications B are drawn
  at random, independently of the name, and race reaches the employer only through the
  name (R). So B ⟂ X and there is no edge X → Y: BIE = 0 and NDE = 0 by design, and the
  total effect TE is the name path (RIE in PopResume's split).
* **Population-representative** (PopResume): B and R are drawn from the population given X,
  so X → B exists and the screener's gap mixes the qualification path (BIE), the proxy path
  (RIE) and any direct effect (NDE); separating them needs the B/R decomposition.
* **Factorial variants** (Beyond the Name): one base résumé (B fixed by the experimenter),
  text blocks that signal ethnicity at three levels of explicitness, judged in pairs. It
  measures the effect of the *signal* with B held fixed (a controlled contrast), not a
  population effect, and says nothing about how B differs between groups.

:func:`design_scms` builds the first two as :class:`popresume.causal.DiscreteSCM` objects
(exact true effects) from one base model, so the same estimator can be run on both;
:func:`estimate_bm_effects` runs :func:`popresume.causal.estimate_pse` on B&M's real
callbacks.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from popresume.causal import estimate_pse, make_scm
from popresume.causal.spec import DEFAULTS

from .data import RESUME_FEATURES
from .rates import contrast

# the three designs side by side (the book's comparison table)
DESIGNS = pd.DataFrame(
    [
        {"design": "Randomised correspondence (Bertrand & Mullainathan 2004)",
         "who decides": "real employers (callbacks)",
         "what is varied": "first name (race and sex signal), at random, within each ad",
         "qualifications B": "random, independent of the name: B ⟂ X",
         "how X reaches the decision": "only through the name: X → R → Y",
         "identifies": "TE of the name signal = the name path (RIE); NDE = BIE = 0 by design",
         "cannot tell": "how the decision treats real differences in qualifications between groups (BIE) "
                        "or what happens in the population of actual applicants; which feature of the name "
                        "(race, class, familiarity) employers react to"},
        {"design": "Population-representative (PopResume)",
         "who decides": "a screener (LLM, VLM, embedding)",
         "what is varied": "whole profiles drawn from the population given X (names, surnames, state, "
                           "education, experience)",
         "qualifications B": "drawn given X and R, as in the population: X → B",
         "how X reaches the decision": "direct (NDE), through qualifications (BIE), through proxies (RIE)",
         "identifies": "TE, NDE, NIE, BIE, RIE under the SFM's no-unmeasured-confounding assumptions",
         "cannot tell": "anything about real employers; effects depend on the population model and the B/R "
                        "partition, which is a normative choice"},
        {"design": "Factorial variants (Beyond the Name)",
         "who decides": "LLM judges: recover the group (Task 1), pick one of a pair (Task 2), score (Task 3)",
         "what is varied": "an Additional Information block signalling one of five groups at three tiers "
                           "(explicit, community, subtle), crossed with 20 fixed base résumés",
         "qualifications B": "fixed by the experimenter: do(B = b)",
         "how X reaches the decision": "only through the text signal (R); there is no X variable",
         "identifies": "whether the signal is recoverable, and its controlled effect on the verdict with B "
                       "held fixed, per tier",
         "cannot tell": "population effects (no distribution of X), the qualification path, or how often such "
                        "signals occur in real résumés"},
    ]
).set_index("design")


def correspondence_scm(base):
    """The randomised-correspondence version of a :class:`~popresume.causal.DiscreteSCM`.

    Same P(z), P(x | z), P(r | x, z) (the name still signals X) and the same score function,
    but (i) B is randomised: P(b | x, r, z) is replaced by its average over x and r, so
    B ⟂ (X, R); (ii) the decision never sees X: m(x, z, r, b) is replaced by its x₁ version
    for both x. Then NDE = BIE = 0 exactly and TE = RIE.
    """
    pb = base.pb_xrz.mean(axis=(0, 2), keepdims=True)  # average over x and r
    pb = np.broadcast_to(pb, base.pb_xrz.shape).copy()
    m = np.broadcast_to(base.m[1:2], base.m.shape).copy()
    return replace(base, name=f"{base.name} (randomised correspondence)", pb_xrz=pb, m=m)


def design_scms(kind: str = "basic", seed: int = 0) -> dict:
    """``{"population-representative": base, "randomised correspondence": randomised}``."""
    base = make_scm(kind, seed=seed)
    return {"population-representative (PopResume)": replace(base, name=f"{base.name} (population-representative)"),
            "randomised correspondence (B&M)": correspondence_scm(base)}


def compare_designs(kind: str = "basic", n: int = 4000, *, n_boot: int = 200, seed: int = 0,
                    estimate: bool = True, variance: str = DEFAULTS.variance) -> pd.DataFrame:
    """True effects of the two SCM designs, and (``estimate``) the project's estimator on a
    sample of ``n`` from each. Long table: design, effect, truth, estimate, ci_low, ci_high.

    Parameters
    ----------
    kind : str
        The structural model, as :func:`popresume.causal.make_scm` names it.
    n : int
        Rows drawn from each design.
    n_boot : int
        Bootstrap draws of the estimates.
    seed : int
        Seed of the draws.
    estimate : bool
        Also estimate (else the truths only).
    variance : {"jackknife", "influence", "average"}
        The SE of the intervals (:class:`popresume.causal.EstimatorSpec`'s ``variance``).

    Returns
    -------
    pandas.DataFrame
        One row per design and effect.

    Examples
    --------
    >>> t = compare_designs(estimate=False)
    >>> t["design"].nunique(), t.columns.tolist()
    (2, ['design', 'effect', 'truth'])
    """
    rows = []
    for name, scm in design_scms(kind, seed=seed).items():
        truth = scm.true_effects()
        est = None
        if estimate:
            data = scm.sample(n, seed=seed)
            est = estimate_pse(data, **scm.roles, n_boot=n_boot, seed=seed, tune=False, variance=variance)
        for e, v in truth.items():
            row = {"design": name, "effect": e, "truth": float(v)}
            if est is not None:
                row.update({"estimate": float(est.loc[e, "estimate"]), "ci_low": float(est.loc[e, "ci_low"]),
                            "ci_high": float(est.loc[e, "ci_high"])})
            rows.append(row)
    return pd.DataFrame(rows)


# B&M's roles for estimate_pse: X = race of the name, Z = sex of the name and the ad's city and
# job type (not caused by race), B = every résumé feature, R = none (see estimate_bm_effects)
BM_ROLES = {"x": "race", "x0": "Black", "x1": "White", "z": ["sex", "city", "job_type"],
            "b": list(RESUME_FEATURES), "r": [], "y": "call"}


def first_name_as_r_error(df: pd.DataFrame) -> str:
    """The estimator's refusal when the first name is given as R: each name belongs to one
    race, so P(X | name) ∈ {0, 1} and no reweighting can move a name to the other group."""
    roles = dict(BM_ROLES, r=["first_name"])
    try:
        estimate_pse(df, **roles, n_boot=0, tune=False, variance="influence")
    except ValueError as e:
        return str(e)
    raise AssertionError("estimate_pse accepted first_name as R although it determines race")


def estimate_bm_effects(df: pd.DataFrame, *, n_boot: int = 200, seed: int = 0, tune: bool = False,
                        variance: str = DEFAULTS.variance) -> pd.DataFrame:
    """``estimate_pse`` on B&M's callbacks with :data:`BM_ROLES` (callback rate differences).

    The name cannot be R (it determines race: positivity fails, see
    :func:`first_name_as_r_error`), so R is empty and the estimator's "NDE" is everything that
    does not pass through B. Since the employer never saw race, that is the name path: read
    it as RIE of the full graph. BIE should be 0 up to noise because B was randomised.

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés, or some of them.
    n_boot : int
        Bootstrap draws (0: normal intervals).
    seed : int
        Seed of the folds and draws.
    tune : bool
        Tune the XGBoost learners.
    variance : {"jackknife", "influence", "average"}
        The SE of the intervals (:class:`popresume.causal.EstimatorSpec`'s ``variance``).

    Returns
    -------
    pandas.DataFrame
        :func:`popresume.causal.estimate_pse`'s table.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> sample = load_bertrand_mullainathan().sample(300, random_state=0)
    >>> effects = estimate_bm_effects(sample, n_boot=0, variance="influence")  # the jackknife: 10 more fits
    >>> effects.index.tolist(), bool(effects.loc["TE", "estimable"])
    (['TE', 'NDE', 'NIE', 'BIE', 'RIE'], True)
    """
    return estimate_pse(df, **BM_ROLES, n_boot=n_boot, seed=seed, tune=tune, variance=variance)


def balance_table(df: pd.DataFrame, by: str = "race", *, features=RESUME_FEATURES, reference=None,
                  cluster: str | None = "ad_id") -> pd.DataFrame:
    """Mean of each résumé feature per level of ``by`` and the difference with its CI (cluster-robust).

    The randomisation check of a correspondence design: if B ⟂ X, every difference is 0 up
    to noise. One row per feature: ``mean_<level>`` columns, ``difference`` (second level
    minus ``reference``), ``ci_low``, ``ci_high``, ``p_value``.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per résumé.
    by : str
        The randomised attribute.
    features : sequence of str
        The résumé features to compare.
    reference : object, optional
        The level the other is compared with.
    cluster : str or None
        The cluster column of the CIs.

    Returns
    -------
    pandas.DataFrame
        One row per feature.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> t = balance_table(load_bertrand_mullainathan(), features=("education", "years_exp"))
    >>> bool((t["p_value"] > 0.05).all())  # the features were randomised
    True
    """
    levels = sorted(pd.unique(df[by].dropna()).tolist(), key=str)
    if reference is None:
        reference = "Black" if set(levels) == {"White", "Black"} else levels[0]
    rows = []
    for f in features:
        c = contrast(df, by, outcome=f, reference=reference, cluster=cluster)
        other = c.index[0]
        row = {"feature": f, **{f"mean_{lv}": float(df.loc[df[by] == lv, f].mean()) for lv in levels},
               "difference": float(c.loc[other, "difference"]), "ci_low": float(c.loc[other, "difference_ci_low"]),
               "ci_high": float(c.loc[other, "difference_ci_high"]), "p_value": float(c.loc[other, "p_value"]),
               "contrast": f"{other} − {reference}"}
        rows.append(row)
    return pd.DataFrame(rows).set_index("feature")
