"""The estimator's options, their defaults and their allowed values, declared once.

:class:`EstimatorSpec` is the one list of the options of :func:`popresume.causal.estimate_pse`
and :class:`popresume.causal.PSEEstimator` that a user sets (folds, draws, clipping, ...):
each field is declared by :func:`option` with its default, its meaning and its constraint
(a :class:`Bound` or a tuple of choices). Everything else is read from those fields: the
class docstring, :data:`BOUNDS` and :data:`CHOICES`, :func:`check_options` (the one check),
the CLI options of ``popresume estimate`` and ``popresume audit``
(:func:`popresume.cli.estimate.estimator_options`) and the audit config's ``folds`` /
``n_boot`` / ``seed`` / ``estimator`` fields (:func:`field_bounds`), so a value the config or
the CLI accepts is a value the estimator accepts, and the other way round. A new option is
one ``option(...)`` line here.

One check couples two options: nested cross-fitting (μ2's pseudo-outcomes from μ3 fits
that leave out both the evaluation fold and the row's own fold) needs at least three
folds. With two folds those fits would have no training row at all.
"""

from __future__ import annotations

import dataclasses
import numbers
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

AGGREGATIONS: tuple[str, ...] = ("median", "mean")
BOOTSTRAPS: tuple[str, ...] = ("influence", "refit")
# The SE behind the intervals and tests: the influence function's, a delete-a-group jackknife
# that refits the nuisances without each group, or the mean of those two variances (issue 37:
# the influence SE leaves out the nuisance fits' finite-sample noise and is too narrow for the
# mediated effects at small n; the jackknife counts that noise about twice, and is the default
# since the harness's tool-default rows at 300 replications a size showed it covering).
VARIANCES: tuple[str, ...] = ("influence", "jackknife", "average")
MISSING: tuple[str, ...] = ("raise", "drop")
# "overlap": an effect whose propensities are clipped or whose weights have too small an
# effective sample size gets no interval, p-value or significance (``identification``);
# "paper": every interval reported as is, the behaviour the chapters reproducing the paper use.
IDENTIFICATIONS: tuple[str, ...] = ("overlap", "paper")
# Which rule decides "estimable" under identification="overlap" (``identification.RULES``):
# "support" (clipping and an absolute ESS floor) or "ess-floor"
# (the ESS floors of the rule before issue 37, kept for comparison).
ESTIMABLE_RULES: tuple[str, ...] = ("support", "ess-floor")
# nested cross-fitting leaves out two folds per μ3 fit: with fewer than three, one would train on no row
NESTED_MIN_FOLDS = 3


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
class Option:
    """What one field of :class:`EstimatorSpec` means and which values it accepts.

    ``doc`` is the sentence the docstring, the CLI's ``--help`` and the config's
    reference show; ``bound`` (numbers) or ``choices`` (words) is its constraint.
    """

    doc: str
    bound: Bound | None = None
    choices: tuple[str, ...] | None = None

    def constraint(self) -> str:
        """The allowed values in words ("" when any value of the type is allowed)."""
        if self.bound is not None:
            return self.bound.text()
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return ""


def option(default, doc: str, *, bound: Bound | None = None, choices: tuple[str, ...] | None = None):
    """A field of :class:`EstimatorSpec`: its default, its meaning and its constraint, in one place."""
    return field(default=default, metadata={"option": Option(doc, bound, choices)})


@dataclass(frozen=True)
class EstimatorSpec:
    # the docstring is written from these fields (``_class_doc``), so it cannot fall behind them
    folds: int = option(5, f"L of the L-fold cross-fitting (paper: 5; at least {NESTED_MIN_FOLDS} with nested "
                        f"cross-fitting).", bound=Bound(2))
    n_boot: int = option(500, "Bootstrap draws (paper: 500); 0 gives normal intervals from the influence function.",
                         bound=Bound(0))
    seed: int = option(0, "Seed of the folds, the learners and the bootstrap.", bound=Bound(0))
    bootstrap: str = option("influence", "Resample the rows of the influence values (influence) or re-run the "
                            "whole estimation on each resample (refit, slow; its percentiles are the "
                            "intervals, whatever the variance).", choices=BOOTSTRAPS)
    clip: float = option(0.01, "Propensities are clipped to [clip, 1 - clip]; the count is reported.",
                         bound=Bound(0.0, 0.5, low_open=True, high_open=True))
    normalize: bool = option(True, "Self-normalise the weights per fold (the raw means are reported).")
    nested_crossfit: bool = option(True, "μ2's pseudo-outcomes from μ3 fits that leave out the row's own fold too.")
    tune: bool = option(True, "Grid-search the XGBoost learners by cross-validation (Appendix C.5), once per "
                        "nuisance; off: n_estimators=50, max_depth=3, reg_lambda=1.")
    tune_rows: int = option(2000, "Rows of the subsample the grid search runs on.", bound=Bound(50))
    missing: str = option("raise", "Incomplete rows stop the estimation (raise) or are dropped with a warning (drop).",
                          choices=MISSING)
    level: float = option(0.95, "Level of the intervals.", bound=Bound(0.0, 1.0, low_open=True, high_open=True))
    n_rep: int = option(1, "Repeated cross-fitting on this many fold splits (DoubleML's n_rep); 1 is the "
                        "paper's single split.", bound=Bound(1))
    aggregate: str = option("median", "How the repetitions' estimates combine.", choices=AGGREGATIONS)
    threads: int = option(1, "XGBoost threads per nuisance fit.", bound=Bound(1))
    identification: str = option("overlap", "overlap: an effect without support (clipped propensities, too "
                                 "small an effective sample size) is reported not estimable, with no interval, "
                                 "p-value or significance; paper: every interval as is.", choices=IDENTIFICATIONS)
    variance: str = option("jackknife", "The SE of the intervals and p-values: a delete-a-group jackknife "
                           "that refits the cross-fitted estimator without each of jackknife_groups groups "
                           "(jackknife, the default: that many more fits, t on groups - 1 df; it covers at "
                           "n = 1,000-8,000 where the influence SE does not), the influence function's "
                           "(influence; the paper's, with its bootstrap percentiles), or the root of the "
                           "mean of those two variances (average; the same refits, normal quantile).",
                           choices=VARIANCES)
    jackknife_groups: int = option(10, "Groups of the jackknife (stratified on X like the folds; fewer when "
                                   "a group of X has fewer rows).", bound=Bound(2))
    jackknife_jobs: int = option(1, "Parallel jobs (joblib) for the jackknife's refits.", bound=Bound(1))
    estimable_rule: str = option("support", "The rule of identification=overlap: support (clipping and an ESS "
                                 "floor) or ess-floor (the ESS floors of the rule before issue 37).",
                                 choices=ESTIMABLE_RULES)

    def __post_init__(self):
        check_options(**self.to_dict())

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options' names, in declaration order."""
        return tuple(f.name for f in fields(cls))

    def to_dict(self) -> dict[str, Any]:
        """Every option and its value."""
        return {name: getattr(self, name) for name in self.names()}

    def replace(self, **changes: Any) -> "EstimatorSpec":
        """A checked copy with ``changes``; an unknown name is an error that lists the known ones."""
        unknown_options(changes)
        return dataclasses.replace(self, **changes) if changes else self


def spec_option(name: str) -> Option:
    """The :class:`Option` (doc and constraint) of field ``name`` of :class:`EstimatorSpec`."""
    f = {f.name: f for f in fields(EstimatorSpec)}[name]
    return f.metadata.get("option", Option(doc=name))


def unknown_options(values: Mapping[str, Any], also: Sequence[str] = ()) -> None:
    """Raise ``TypeError`` naming the first key of ``values`` that is neither an option nor in ``also``."""
    known = (*EstimatorSpec.names(), *also)
    for name in values:
        if name not in known:
            raise TypeError(f"unknown estimator option {name!r}; the options are: {', '.join(known)}")


def make_spec(spec: "EstimatorSpec | Mapping[str, Any] | None" = None, **overrides: Any) -> EstimatorSpec:
    """``spec`` (default: the defaults; a mapping is read as options) with ``overrides`` applied, checked."""
    if spec is None:
        spec = DEFAULTS
    elif isinstance(spec, Mapping):
        unknown_options(spec)
        spec = EstimatorSpec(**spec)
    elif not isinstance(spec, EstimatorSpec):
        raise TypeError(f"spec must be an EstimatorSpec or a mapping of its options, got {type(spec).__name__}")
    return spec.replace(**overrides)


def _class_doc() -> str:
    lines = ["The options of one estimation, each with its type, default, constraint and meaning.",
             "",
             "The one list of the estimator's options (PopResume §3, Appendix C): :func:`estimate_pse` and",
             ":class:`PSEEstimator` take one, the CLI's ``estimate`` and ``audit`` options and the audit",
             "config's ``estimator`` block are built from its fields. Building one checks every value",
             "(:func:`popresume.causal.spec.check_options`); ``replace`` gives a checked copy.",
             "",
             "Parameters",
             "----------"]
    for f in fields(EstimatorSpec):
        opt = spec_option(f.name)
        kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        if opt.choices:
            kind = "{" + ", ".join(repr(c) for c in opt.choices) + "}"
        lines.append(f"{f.name} : {kind}, default {f.default!r}")
        rule = "" if opt.choices else opt.constraint()
        lines += textwrap.wrap(opt.doc + (f" Allowed: {rule}." if rule else ""), 88,
                               initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
    lines += ["",
              "Examples",
              "--------",
              ">>> from popresume.causal import EstimatorSpec",
              ">>> spec = EstimatorSpec(folds=3, n_boot=0)",
              ">>> spec.folds, spec.clip, spec.replace(seed=4).seed",
              "(3, 0.01, 4)",
              ">>> try:",
              "...     EstimatorSpec(folds=2)",
              "... except ValueError as err:",
              "...     print(str(err).split(':')[0])",
              "folds=2 with nested_crossfit",
              ">>> try:",
              "...     spec.replace(fold=4)",
              "... except TypeError as err:",
              "...     print(str(err).split(';')[0])",
              "unknown estimator option 'fold'",
              ""]
    return "\n".join(lines)


EstimatorSpec.__doc__ = _class_doc()

BOUNDS: dict[str, Bound] = {n: spec_option(n).bound for n in EstimatorSpec.names() if spec_option(n).bound}
CHOICES: dict[str, tuple[str, ...]] = {n: spec_option(n).choices for n in EstimatorSpec.names()
                                       if spec_option(n).choices}
_INTS = tuple(f.name for f in fields(EstimatorSpec) if type(f.default) is int)
_FLAGS = tuple(f.name for f in fields(EstimatorSpec) if type(f.default) is bool)


def field_bounds(name: str) -> dict:
    """pydantic ``Field`` keywords for option ``name``: its default and its bound."""
    return {"default": getattr(DEFAULTS, name), **(BOUNDS[name].pydantic() if name in BOUNDS else {})}


def nested_folds_problem(folds, nested_crossfit, off: str = "from Python: nested_crossfit=False") -> str | None:
    """Why ``folds`` cannot go with ``nested_crossfit`` (None when they can); ``off`` says how to turn nesting off."""
    if nested_crossfit and isinstance(folds, int) and folds < NESTED_MIN_FOLDS:
        return (f"folds={folds} with nested_crossfit: the nested μ3 fits leave out two folds and would train on "
                f"no row; use folds >= {NESTED_MIN_FOLDS} (or turn nesting off {off})")
    return None


def check_options(**values: Any) -> None:
    """Raise ``ValueError`` naming the first option whose value the estimator does not accept.

    Only the options given are checked; the folds / nested cross-fitting combination is
    checked with the default of whichever of the two is not given (folds 5, nesting on). A
    name that is not an option raises ``TypeError`` listing the options.
    """
    unknown_options(values)
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
