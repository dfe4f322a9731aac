"""The estimator's options, their defaults and their allowed values, declared once.

:class:`EstimatorSpec` holds every option of :func:`popresume.causal.estimate_pse` /
:class:`popresume.causal.PSEEstimator` that a user sets (folds, draws, clipping, ...) with
its default; :data:`BOUNDS` and :data:`CHOICES` say which values each accepts, and
:func:`check_options` is the one check of them. The estimator calls it before any fit, and
the audit config (:mod:`popresume.audit.config`) builds its ``folds`` / ``n_boot`` /
``seed`` / ``estimator`` fields from the same tables (:func:`field_bounds`), so a value the
config accepts is a value the estimator accepts, and the other way round.

One check couples two options: nested cross-fitting (μ2's pseudo-outcomes from μ3 fits
that leave out both the evaluation fold and the row's own fold) needs at least three
folds. With two folds those fits would have no training row at all.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, fields
from typing import Any

AGGREGATIONS: tuple[str, ...] = ("median", "mean")
BOOTSTRAPS: tuple[str, ...] = ("influence", "refit")
MISSING: tuple[str, ...] = ("raise", "drop")
# "overlap": an effect whose propensities are clipped or whose weights have too small an
# effective sample size gets no interval, p-value or significance (``identification``);
# "paper": every interval reported as is, the behaviour the chapters reproducing the paper use.
IDENTIFICATIONS: tuple[str, ...] = ("overlap", "paper")
# Which rule decides "estimable" under identification="overlap" (``identification.RULES``):
# "support" (clipping and an absolute ESS floor) or "ess-floor"
# (the ESS floors of the rule before issue 37, kept for comparison).
ESTIMABLE_RULES: tuple[str, ...] = ("support", "ess-floor")


@dataclass(frozen=True)
class Bound:
    """An interval for a number: ``low``/``high`` (None: unbounded), each end open or closed."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def contains(self, v) -> bool:
        if self.low is not None and (v <= self.low if self.low_open else v < self.low):
            return False
        if self.high is not None and (v >= self.high if self.high_open else v > self.high):
            return False
        return True

    def text(self) -> str:
        if self.high is None:
            return f"{'>' if self.low_open else '>='} {self.low}"
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        return f"in {lo}{self.low}, {self.high}{hi}"

    def pydantic(self) -> dict:
        """The bound as pydantic ``Field`` keywords (``ge``/``gt``, ``le``/``lt``)."""
        out = {}
        if self.low is not None:
            out["gt" if self.low_open else "ge"] = self.low
        if self.high is not None:
            out["lt" if self.high_open else "le"] = self.high
        return out


@dataclass(frozen=True)
class EstimatorSpec:
    """The options of one estimation and their defaults (PopResume §3, Appendix C).

    ``folds``: L of the L-fold cross-fitting (paper: 5); ``n_boot``: bootstrap draws
    (paper: 500; 0 gives normal intervals); ``bootstrap``: "influence" or "refit";
    ``clip``: propensities clipped to [clip, 1 − clip]; ``normalize``: self-normalised
    weights; ``nested_crossfit``: μ2's pseudo-outcomes from μ3 fits without the row's fold;
    ``tune`` / ``tune_rows`` / ``grid``: the Appendix C.5 grid search; ``missing``:
    "raise" or "drop" incomplete rows; ``level``: interval level; ``n_rep`` /
    ``aggregate``: repeated cross-fitting; ``threads``: XGBoost threads per fit;
    ``identification``: "overlap" (effects without support are reported not estimable)
    or "paper" (every interval as is); ``estimable_rule``: "support" (default) or "ess-floor"
    (:func:`popresume.causal.identification.is_estimable`). Building one checks every value (:func:`check_options`).
    """

    folds: int = 5
    n_boot: int = 500
    seed: int = 0
    bootstrap: str = "influence"
    clip: float = 0.01
    normalize: bool = True
    nested_crossfit: bool = True
    tune: bool = True
    tune_rows: int = 2000
    missing: str = "raise"
    level: float = 0.95
    n_rep: int = 1
    aggregate: str = "median"
    threads: int = 1
    identification: str = "overlap"
    estimable_rule: str = "support"

    def __post_init__(self):
        check_options(**{f.name: getattr(self, f.name) for f in fields(self)})


BOUNDS: dict[str, Bound] = {
    "folds": Bound(2),
    "n_boot": Bound(0),
    "seed": Bound(0),
    "clip": Bound(0.0, 0.5, low_open=True, high_open=True),
    "tune_rows": Bound(50),
    "level": Bound(0.0, 1.0, low_open=True, high_open=True),
    "n_rep": Bound(1),
    "threads": Bound(1),
}
CHOICES: dict[str, tuple[str, ...]] = {"bootstrap": BOOTSTRAPS, "missing": MISSING, "aggregate": AGGREGATIONS,
                                       "identification": IDENTIFICATIONS, "estimable_rule": ESTIMABLE_RULES}
_INTS = ("folds", "n_boot", "seed", "tune_rows", "n_rep", "threads")
_FLAGS = ("normalize", "nested_crossfit", "tune")
NESTED_MIN_FOLDS = 3


def field_bounds(name: str) -> dict:
    """pydantic ``Field`` keywords for option ``name``: its default and its bound."""
    return {"default": getattr(DEFAULTS, name), **(BOUNDS[name].pydantic() if name in BOUNDS else {})}


def nested_folds_problem(folds, nested_crossfit) -> str | None:
    """Why ``folds`` cannot go with ``nested_crossfit`` (None when they can)."""
    if nested_crossfit and isinstance(folds, int) and folds < NESTED_MIN_FOLDS:
        return (f"folds={folds} with nested_crossfit: the nested μ3 fits leave out two folds and would train on "
                f"no row; use folds >= {NESTED_MIN_FOLDS} (or, from Python, nested_crossfit=False)")
    return None


def check_options(**values: Any) -> None:
    """Raise ``ValueError`` naming the first option whose value the estimator does not accept.

    Only the options given are checked; the folds / nested cross-fitting combination is
    checked with the default of whichever of the two is not given (folds 5, nesting on).
    """
    for name, v in values.items():
        if name in _INTS:
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise ValueError(f"{name} must be an integer, got {v!r}")
        if name in _FLAGS and not isinstance(v, bool):
            raise ValueError(f"{name} must be true or false, got {v!r}")
        if name in BOUNDS:
            try:
                inside = BOUNDS[name].contains(float(v))
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number {BOUNDS[name].text()}, got {v!r}") from None
            if not inside:
                raise ValueError(f"{name} must be {BOUNDS[name].text()}, got {v!r}")
        if name in CHOICES and v not in CHOICES[name]:
            raise ValueError(f"{name} must be one of {list(CHOICES[name])}, got {v!r}")
    if "folds" in values or "nested_crossfit" in values:
        defaults = {f.name: f.default for f in fields(EstimatorSpec)}
        problem = nested_folds_problem(int(values.get("folds", defaults["folds"])),
                                       values.get("nested_crossfit", defaults["nested_crossfit"]))
        if problem:
            raise ValueError(problem)


DEFAULTS = EstimatorSpec()  # the defaults, checked like any other values
