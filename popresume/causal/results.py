"""The result of one estimation: effects, counterfactual means, influence values, intervals, tests.

``PSEResult`` is what ``PSEEstimator.fit()`` (and ``bootstrap()``) produce, the counterpart
of a fitted DoubleML object's ``summary`` / ``confint`` / ``p_adjust``. Everything the
effects table used to carry in ``DataFrame.attrs`` lives here as attributes:

* ``summary``: the tidy effects table (estimate, se, ci_low, ci_high, boot_se,
  significant, ci_method, n), exactly the table ``estimate_pse`` returns;
* ``psi``: the five counterfactual means with SEs and CIs; ``phi``: the n × 5 per-unit
  influence values (averaged over the cross-fitting repetitions); ``phi_reps``: one
  matrix per repetition;
* ``se``: the influence-function SE, or, with ``jack_psi`` (``variance="jackknife"``), the
  delete-a-group jackknife's, which the intervals and tests then use on G − 1 df, or
  (``variance="average"``, ``jack_average``) the root of the mean of the two variances, used
  with a normal quantile;
* ``confint(level, joint=...)``: pointwise or simultaneous (sup-t) intervals;
* ``pvalues`` and ``p_adjust(method)``: two-sided tests of "effect = 0", Holm / BH /
  Bonferroni over the five effects;
* ``diagnostics``: propensity ranges and clipping, weight raw means and ESS, the chosen
  hyperparameters, the per-repetition estimates and the reliability warnings raised;
* ``overlap``: the two overlap numbers a table shows beside the effects (smallest
  effective sample size of any weight, largest share of clipped propensities of any
  propensity model); ``row(stats)``: the one-row (wide) record of an audit, effects then
  overlap, that every table of audits is built from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm
from scipy.stats import t as student_t

from popresume.multiplicity import adjust_p
from popresume.schema import PSE_NAMES
from popresume.tables import labelled

from .effects import CI_STATS, significant, wide_row
from .functional import PSI_LABELS, PSI_NAMES, effects_from_psi
from .identification import MAX_CLIPPED_SHARE, MIN_ESS, MIN_ESS_MEDIATED, MIN_ESS_SHARE, identification_table
from .spec import AGGREGATIONS, DEFAULTS, ESTIMABLE_RULES, IDENTIFICATIONS

OVERLAP_COLUMNS: tuple[str, ...] = ("min_ess", "clipped_share")


def aggregate_reps(values: np.ndarray, how: str, axis: int = 0) -> np.ndarray:
    """Combine estimates from repeated cross-fitting: ``"median"`` or ``"mean"`` over ``axis``."""
    if how == "median":
        return np.median(values, axis=axis)
    if how == "mean":
        return np.mean(values, axis=axis)
    raise ValueError(f"aggregate must be one of {AGGREGATIONS}, got {how!r}")


def rep_se(phi_reps: np.ndarray, how: str) -> np.ndarray:
    """SE of each column of the aggregated mean of ``phi_reps`` (n_rep, n, k).

    One repetition: sd(φ)/√n. ``mean``: the SE of the per-unit average φ̄ over repetitions.
    ``median``: DoubleML's rule √median_m(σ²_m + (θ_m − θ̂)²), which adds the spread of the
    split-specific estimates θ_m around the median θ̂.
    """
    n = phi_reps.shape[1]
    if phi_reps.shape[0] == 1 or how == "mean":
        return phi_reps.mean(axis=0).std(axis=0, ddof=1) / np.sqrt(n)
    theta_m = phi_reps.mean(axis=1)
    var_m = phi_reps.var(axis=1, ddof=1) / n
    theta = np.median(theta_m, axis=0)
    return np.sqrt(np.median(var_m + (theta_m - theta) ** 2, axis=0))


def jackknife_se(draws: np.ndarray) -> np.ndarray:
    """Delete-a-group jackknife SE of each column of ``draws`` (G, k), one leave-one-group-out
    estimate per row: √((G − 1)/G · Σ_g (θ_(g) − θ̄_(·))²) (Shao & Tu 1995, §2.3)."""
    draws = np.asarray(draws, float)
    g = len(draws)
    if g < 2:
        raise ValueError(f"the jackknife needs at least 2 groups, got {g}")
    return np.sqrt((g - 1) / g * ((draws - draws.mean(axis=0)) ** 2).sum(axis=0))


def variance_se(variance: str, influence, jackknife, groups: int, level: float = 0.95):
    """The SE and the two-sided ``level`` quantile that ``EstimatorSpec.variance`` prints, from
    the influence SE, the jackknife SE and its number of groups: ``"influence"``, the influence
    SE with a normal quantile; ``"jackknife"``, the jackknife SE with a t on ``groups`` − 1 df;
    ``"average"``, √((se_I² + se_J²)/2) with a normal quantile. :class:`PSEResult` and the
    harness's ``reinterval`` both read their intervals from here.

    >>> se, q = variance_se("jackknife", 1.0, 2.0, 10)
    >>> float(se), round(q, 3)
    (2.0, 2.262)
    """
    q = variance_quantile(variance, groups, level)
    if variance == "jackknife":
        return jackknife, q
    if variance == "average":
        return np.sqrt((np.asarray(influence) ** 2 + np.asarray(jackknife) ** 2) / 2), q
    return influence, q


def variance_quantile(variance: str, groups: int, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile of :func:`variance_se`: t on ``groups`` − 1 df for the
    jackknife alone, else the normal's."""
    p = 1 - (1 - level) / 2
    if variance == "jackknife":
        return float(student_t.ppf(p, groups - 1))
    if variance in ("average", "influence"):
        return float(norm.ppf(p))
    raise ValueError(f"variance must be 'influence', 'jackknife' or 'average', got {variance!r}")


@dataclass(eq=False)
class PSEResult:
    """The effects of one fitted estimator: estimates, intervals, tests and the overlap verdict.

    Built by :meth:`PSEEstimator.fit` (and completed by ``bootstrap``); read it through
    ``summary`` (the tidy table), ``confint``, ``pvalues``, ``p_adjust``, ``psi``,
    ``diagnostics`` and ``identification_table``. ``str(result)`` and the notebook display
    (``_repr_html_``) show the compact effects table, with ``estimable`` per effect.

    Parameters
    ----------
    psi_estimate : ndarray of shape (5,)
        The aggregated counterfactual means, in ``PSI_NAMES`` order.
    phi_reps : ndarray of shape (n_rep, n, 5)
        Per-unit influence values of each cross-fitting repetition.
    aggregate : {"median", "mean"}
        How repetitions combine.
    level : float
        Interval level (default 0.95).
    boot_psi : ndarray of shape (n_boot, 5), optional
        Bootstrap draws of the means; None gives normal intervals.
    boot_kind : str, optional
        "influence" or "refit".
    jack_psi : ndarray of shape (G, 5), optional
        Leave-one-group-out estimates of the means (``PSEEstimator.jackknife_draws``,
        ``EstimatorSpec(variance="jackknife")``). When given, ``se`` is their jackknife SE and
        the intervals and p-values use it with a t quantile on G − 1 degrees of freedom,
        whatever the bootstrap: the influence bootstrap's percentiles carry the influence
        variance the jackknife replaces, so its draws only give ``boot_se`` (and the joint
        band's correlation).
    jack_average : bool
        With ``jack_psi``: ``se`` is the square root of the mean of the influence and the
        jackknife variances, with a normal quantile (``EstimatorSpec(variance="average")``).
        The influence variance leaves out the nuisance fits' second-order noise and the
        jackknife counts it about twice (Efron & Stein 1981, *Ann. Statist.* 9(3): the
        jackknife variance is biased upward by the statistic's higher-order terms), so their
        mean counts it about once.
    diagnostics : dict
        Propensity ranges and clipping, weights' ESS, chosen hyperparameters, warnings.
    fold : ndarray, optional
        Fold of each row in the first split.
    identification : {"overlap", "paper"}
        "overlap" (default): an effect without support (:mod:`popresume.causal.identification`)
        gets no interval, p-value or significance. "paper": every interval as is.
    estimable_rule : {"support", "ess-floor"}
        The overlap rule (:func:`popresume.causal.identification.is_estimable`): "support"
        (default; clipping and ``min_ess``, and the weights' Pareto k̂ under ``max_pareto_k``
        when that is given) or "ess-floor" (the rule before issue 37).
    max_clipped_share, min_ess, max_pareto_k, min_ess_mediated, min_ess_share : float
        The thresholds of the overlap rule (``min_ess_mediated``: the ESS floor of NIE, BIE, RIE
        and ``min_ess_share``: the ESS as a share of the rows, for NDE, NIE, BIE, RIE, both
        read by "ess-floor" only).
    population : str, optional
        The estimand's population when the rows were trimmed to the overlap.


    Examples
    --------
    >>> from popresume.causal import PSEEstimator, make_scm
    >>> from popresume.causal.nuisance import CellMeans
    >>> data = make_scm("basic", seed=0).sample(2000, seed=1)
    >>> est = PSEEstimator(data, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y",
    ...                    learners={"propensity": CellMeans(), "outcome": CellMeans()})
    >>> result = est.fit().result_
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    Path-specific effects (n = 2,000; jackknife (10 groups, t on 9 df); 95% CI; identification: overlap)
    effect estimate           95% CI      p estimable
        TE    0.527   [0.397, 0.657] <0.001       yes
       NDE    0.720   [0.531, 0.909] <0.001       yes
       NIE   -0.193  [-0.420, 0.033]  0.086       yes
       BIE    0.336   [0.188, 0.484] <0.001       yes
       RIE   -0.529 [-0.649, -0.410] <0.001       yes
    >>> import dataclasses  # the rule before issue 37: the mediated weights carry 482 rows (< 750)
    >>> dataclasses.replace(result, estimable_rule="ess-floor").estimable.to_dict()
    {'TE': True, 'NDE': True, 'NIE': False, 'BIE': False, 'RIE': False}
    """

    psi_estimate: np.ndarray  # (5,) aggregated counterfactual means, PSI_NAMES order
    phi_reps: np.ndarray = field(repr=False)  # (n_rep, n, 5)
    aggregate: str = "median"
    level: float = 0.95
    boot_psi: np.ndarray | None = field(default=None, repr=False)  # (n_boot, 5) or None
    boot_kind: str | None = None
    jack_psi: np.ndarray | None = field(default=None, repr=False)  # (G, 5) leave-one-group-out means, or None
    jack_average: bool = False  # with jack_psi: the mean of the influence and jackknife variances, normal quantile
    diagnostics: dict = field(default_factory=dict, repr=False)
    fold: np.ndarray | None = field(default=None, repr=False)  # fold of each row, first split
    identification: str = "overlap"  # "overlap" or "paper" (see ``identification``)
    estimable_rule: str = DEFAULTS.estimable_rule
    max_clipped_share: float = MAX_CLIPPED_SHARE
    min_ess: float = MIN_ESS
    max_pareto_k: float | None = None  # opt-in tail check (e.g. identification.MAX_PARETO_K)
    min_ess_mediated: float = MIN_ESS_MEDIATED
    min_ess_share: float = MIN_ESS_SHARE
    population: str | None = None  # the estimand's population when the data were trimmed

    def __post_init__(self):
        if self.identification not in IDENTIFICATIONS:
            raise ValueError(f"identification must be one of {list(IDENTIFICATIONS)}, got {self.identification!r}")
        if self.estimable_rule not in ESTIMABLE_RULES:
            raise ValueError(f"estimable_rule must be one of {list(ESTIMABLE_RULES)}, got {self.estimable_rule!r}")

    # -- basic quantities
    @property
    def n(self) -> int:
        return int(self.phi_reps.shape[1])

    @property
    def n_rep(self) -> int:
        return int(self.phi_reps.shape[0])

    @property
    def phi(self) -> np.ndarray:
        """(n, 5) per-unit influence values of the five means, averaged over repetitions."""
        return self.phi_reps.mean(axis=0)

    @property
    def effects(self) -> pd.Series:
        return pd.Series(effects_from_psi(self.psi_estimate), index=list(PSE_NAMES), name="estimate")

    @property
    def influence_se(self) -> pd.Series:
        """Influence-function SE of each effect (repetitions combined by ``rep_se``)."""
        return pd.Series(rep_se(effects_from_psi(self.phi_reps), self.aggregate), index=list(PSE_NAMES), name="se")

    @property
    def se(self) -> pd.Series:
        """Each effect's SE, :attr:`influence_se` or, with ``jack_psi``, the jackknife's (with
        ``jack_average``, the root of the mean of the two variances)."""
        infl = self.influence_se.to_numpy()
        return pd.Series(self._combined_se(infl, None if self.jack_psi is None else effects_from_psi(self.jack_psi)),
                         index=list(PSE_NAMES), name="se")

    def _combined_se(self, infl: np.ndarray, jack_draws: np.ndarray | None) -> np.ndarray:
        """The SE ``variance`` names, from the influence SE and the jackknife's draws (None: no jackknife)."""
        if jack_draws is None:
            return infl
        return variance_se(self.variance, infl, jackknife_se(jack_draws), len(jack_draws))[0]

    @property
    def variance(self) -> str:
        """Which SE ``se`` is, "influence", "jackknife" or "average" (``EstimatorSpec.variance``)."""
        if self.jack_psi is None:
            return "influence"
        return "average" if self.jack_average else "jackknife"

    def _t_reference(self) -> bool:
        """Whether intervals and p-values use a t on G − 1 df (the jackknife's SE alone) instead of a normal."""
        return self.jack_psi is not None and not self.jack_average

    def _quantile(self, level: float) -> float:
        """The two-sided ``level`` quantile of the reference distribution: normal, or t on G − 1 df."""
        return variance_quantile(self.variance, len(self.jack_psi) if self.jack_psi is not None else 2, level)

    @property
    def boot(self) -> np.ndarray | None:
        """(n_boot, 5) bootstrap draws of the effects, or None before ``bootstrap()``."""
        return None if self.boot_psi is None else effects_from_psi(self.boot_psi)

    @property
    def ci_method(self) -> str:
        if self.jack_average:
            return f"normal (mean of the influence and jackknife variances, {len(self.jack_psi)} groups)"
        if self.jack_psi is not None:
            return f"jackknife ({len(self.jack_psi)} groups, t on {len(self.jack_psi) - 1} df)"
        if self.boot_psi is None:
            return "normal (influence function)"
        return f"{self.boot_kind} bootstrap ({len(self.boot_psi)} draws)"

    # -- intervals
    def _pointwise(self, est: np.ndarray, se: np.ndarray, draws: np.ndarray | None, level: float):
        alpha = 1 - level
        if draws is not None and self.jack_psi is None:
            return np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
        q = self._quantile(level)
        return est - q * se, est + q * se

    def confint(self, level: float | None = None, *, joint: bool = False, psi: bool = False,
                n_sim: int = 10_000, seed: int = 0) -> pd.DataFrame:
        """Intervals for the five effects (or the five means with ``psi=True``).

        Pointwise: with the jackknife (``jack_psi``), ±q·se with q the t quantile on G − 1
        df (the normal's with ``jack_average``); else bootstrap percentiles when
        ``bootstrap()`` was run, else normal ±z·se.
        ``joint=True``: a simultaneous band est ± c·se that covers all five at ``level``
        together, c the ``level`` quantile of ``max_j |θ*_j − θ̂_j| / se_j`` (sup-t, se_j the
        influence SE) over the bootstrap draws, or over ``n_sim`` Gaussian draws with the
        influence-function covariance when there are none; with the jackknife, c is scaled by
        the ratio of the t and normal quantiles and multiplies the jackknife SE (or the
        averaged SE, with no ratio).
        """
        level = self.level if level is None else float(level)
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level}")
        if psi:
            names, est = list(PSI_NAMES), self.psi_estimate
            infl = rep_se(self.phi_reps, self.aggregate)
            se = self._combined_se(infl, self.jack_psi)
            draws, cov_phi = self.boot_psi, self.phi
        else:
            names, est = list(PSE_NAMES), self.effects.to_numpy()
            se, infl = self.se.to_numpy(), self.influence_se.to_numpy()
            draws, cov_phi = self.boot, effects_from_psi(self.phi)
        if not joint:
            lo, hi = self._pointwise(est, se, draws, level)
        else:
            safe = np.where(infl > 0, infl, np.inf)
            if draws is not None:
                centre = draws.mean(axis=0)  # the draws' own centre, as the sup-t band of DoubleML
                t = np.abs(draws - centre) / safe
            else:
                cov = np.cov(cov_phi, rowvar=False) / self.n
                sim = np.random.default_rng(seed).multivariate_normal(np.zeros(len(est)), cov, size=n_sim,
                                                                       method="eigh")
                t = np.abs(sim) / safe
            c = float(np.quantile(t.max(axis=1), level))
            if self._t_reference():  # the jackknife SE's own degrees of freedom
                c *= self._quantile(level) / float(norm.ppf(1 - (1 - level) / 2))
            lo, hi = est - c * se, est + c * se
        return pd.DataFrame({"ci_low": lo, "ci_high": hi}, index=pd.Index(names, name="effect"))

    # -- tests
    @property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of "effect = 0" from ``se`` (the influence function's, normal
        reference; or the jackknife's, t reference on G − 1 df).

        NaN for an effect that is not estimable (``estimable``): no test is offered there.
        """
        est, se = self.effects.to_numpy(), self.se.to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, est / se, np.where(est == 0, 0.0, np.inf))
        ref = student_t(len(self.jack_psi) - 1) if self._t_reference() else norm
        p = np.where(self.estimable.to_numpy(), 2 * ref.sf(np.abs(z)), np.nan)
        return pd.Series(p, index=list(PSE_NAMES), name="p")

    def p_adjust(self, method: str = "holm") -> pd.DataFrame:
        """p-values adjusted over the five effects: ``"holm"``, ``"bh"`` or ``"bonferroni"``.

        Returns estimate, p and p_adj per effect; the family is the estimable effects only
        (a non-estimable effect has p = p_adj = NaN). (The audit grid adjusts over every effect
        of every audit: ``popresume.audit.metrics.adjust``.)
        """
        p = self.pvalues
        return pd.DataFrame({"estimate": self.effects, "p": p, "p_adj": adjust_p(p.to_numpy(), method)},
                            index=pd.Index(list(PSE_NAMES), name="effect"))

    # -- tables
    # -- identification
    def identification_table(self) -> pd.DataFrame:
        """The overlap verdict per effect (``identification.identification_table``), whatever the rule."""
        return identification_table(self.diagnostics, rule=self.estimable_rule,
                                    max_clipped_share=self.max_clipped_share, min_ess=self.min_ess,
                                    max_pareto_k=self.max_pareto_k, min_ess_mediated=self.min_ess_mediated,
                                    min_ess_share=self.min_ess_share)

    @property
    def estimable(self) -> pd.Series:
        """Per effect, whether its interval, p-value and significance may be shown.

        Under ``identification="overlap"`` the verdict of :meth:`identification_table`;
        under ``"paper"`` every effect (the paper's behaviour). Without diagnostics (a result
        built by hand) every effect counts as estimable.
        """
        if self.identification == "paper" or not self.diagnostics:
            return pd.Series(True, index=list(PSE_NAMES), name="estimable")
        return self.identification_table()["estimable"].rename("estimable")

    @property
    def reasons(self) -> pd.Series:
        """One line per effect saying why it is not estimable ("" when it is)."""
        if self.identification == "paper" or not self.diagnostics:
            return pd.Series("", index=list(PSE_NAMES), name="reason")
        return self.identification_table()["reason"].rename("reason")

    def projection_valid(self) -> pd.Series:
        """Per effect, whether its CI half-width shrinks like 1/√n, so that "the n needed for a
        half-width h" (``n · (half-width / h)²``) may be printed.

        True exactly where the effect is estimable by the overlap rule (whatever
        ``identification`` says): the coverage harness measures half-width × √n constant
        across n there, and growing with n where propensities are clipped.
        """
        if not self.diagnostics:
            return pd.Series(True, index=list(PSE_NAMES), name="projection_valid")
        return self.identification_table()["estimable"].rename("projection_valid")

    # -- tables
    @property
    def summary(self) -> pd.DataFrame:
        """The effects table, with estimate, se, ci_low, ci_high, boot_se, significant, ci_method, n,
        estimable, reason, diag_ci_low, diag_ci_high (and population when trimmed).

        A non-estimable effect keeps its estimate and se but has NaN ci_low / ci_high and
        ``significant`` missing (``pd.NA``); its raw interval, not valid as an interval,
        stays in ``diag_ci_low`` / ``diag_ci_high`` for diagnosis.
        """
        est, se = self.effects.to_numpy(), self.se.to_numpy()
        ci = self.confint()
        ok = self.estimable.to_numpy()
        bse = self.boot.std(axis=0, ddof=1) if self.boot is not None else np.full(len(est), np.nan)
        lo, hi = ci["ci_low"].to_numpy(), ci["ci_high"].to_numpy()
        out = pd.DataFrame({"estimate": est, "se": se, "ci_low": np.where(ok, lo, np.nan),
                            "ci_high": np.where(ok, hi, np.nan), "boot_se": bse},
                           index=pd.Index(list(PSE_NAMES), name="effect"))
        sig = significant(lo, hi)
        if not ok.all():  # a missing verdict, not a False one: no test is offered there
            sig = pd.array(sig, dtype="boolean")
            sig[~ok] = pd.NA
        out["significant"] = sig
        out["ci_method"] = self.ci_method
        out["n"] = self.n
        out["estimable"] = ok
        out["reason"] = self.reasons.to_numpy()
        out["diag_ci_low"], out["diag_ci_high"] = lo, hi
        if self.population is not None:
            out["population"] = self.population
        return out

    @property
    def overlap(self) -> dict:
        """``min_ess`` (smallest effective sample size of any weight) and ``clipped_share``
        (largest share of clipped propensities of any propensity model), first split."""
        d = self.diagnostics
        return {"min_ess": float(pd.Series(d["weights"]["ess"]).min()),
                "clipped_share": float(pd.Series(d["propensity"]["n_clipped"]).max() / d["n"])}

    def row(self, stats=CI_STATS) -> dict:
        """This audit as one wide record: ``{E}_{stat}`` for the five effects, then the overlap."""
        return {**wide_row(self.summary, stats=stats), **self.overlap}

    # -- display
    def _display_rows(self) -> list[dict]:
        """One dict per effect for the compact table: estimate, CI (or why there is none), p, verdict."""
        s, p = self.summary, self.pvalues
        rows = []
        for e in PSE_NAMES:
            ok = bool(s.loc[e, "estimable"])
            ci = f"[{s.loc[e, 'ci_low']:.3f}, {s.loc[e, 'ci_high']:.3f}]" if ok else "not estimable"
            pv = p[e]
            ptxt = "" if not np.isfinite(pv) else ("<0.001" if pv < 0.001 else f"{pv:.3f}")
            rows.append({"effect": e, "estimate": f"{s.loc[e, 'estimate']:.3f}", "ci": ci, "p": ptxt,
                         "estimable": "yes" if ok else "no", "reason": s.loc[e, "reason"]})
        return rows

    def _title(self) -> str:
        pop = f"; {self.population}" if self.population else ""
        return (f"Path-specific effects (n = {self.n:,}; {self.ci_method}; {self.level:.0%} CI; "
                f"identification: {self.identification}{pop})")

    def __str__(self) -> str:
        rows = self._display_rows()
        table = pd.DataFrame(rows).rename(columns={"ci": f"{self.level:.0%} CI"})
        out = [self._title(), table.drop(columns="reason").to_string(index=False)]
        out += [f"{r['effect']}: {r['reason']}" for r in rows if r["reason"]]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        """The compact table through the book's table helper (:func:`popresume.tables.labelled`):
        each estimate above its interval, or alone where the effect is not estimable, with why."""
        rows = self._display_rows()
        level = f"{self.level:.0%} CI"
        table = pd.DataFrame({
            f"estimate [{level}]": [f"{r['estimate']} {r['ci']}" if r["estimable"] == "yes" else r["estimate"]
                                    for r in rows],
            "p": [r["p"] or "–" for r in rows],
            "estimable": [r["estimable"] for r in rows],
            "why not": [r["reason"] or "–" for r in rows]}, index=pd.Index([r["effect"] for r in rows], name="effect"))
        if not any(r["reason"] for r in rows):
            table = table.drop(columns="why not")
        return labelled(table, f"ours: {self._title()}")._repr_html_()

    @property
    def psi(self) -> pd.DataFrame:
        """The five counterfactual means, with target, estimate, se, ci_low, ci_high."""
        ci = self.confint(psi=True)
        return pd.DataFrame({"target": [PSI_LABELS[t] for t in PSI_NAMES], "estimate": self.psi_estimate,
                             "se": self._combined_se(rep_se(self.phi_reps, self.aggregate), self.jack_psi),
                             "ci_low": ci["ci_low"].to_numpy(),
                             "ci_high": ci["ci_high"].to_numpy()}, index=list(PSI_NAMES))

    @property
    def rep_estimates(self) -> pd.DataFrame:
        """The effects of each cross-fitting repetition, one row per repetition."""
        return pd.DataFrame(effects_from_psi(self.phi_reps.mean(axis=1)), columns=list(PSE_NAMES),
                            index=pd.RangeIndex(self.n_rep, name="rep"))
