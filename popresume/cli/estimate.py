"""``popresume estimate``: profiles + scores → the TE/NDE/NIE/BIE/RIE table with CIs and cases."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import click

from popresume.causal import classify_cases, default_roles, estimate_pse, prepare
from popresume.causal.roles import screener_rows, screeners_present
from popresume.causal.spec import DEFAULTS, EstimatorSpec, check_options, nested_folds_problem, spec_option
from popresume.cli._errors import SEED, OutPath, UserError
from popresume.io import TABLE_SUFFIXES, read_parquet, write_table

#: Default of --max-unmatched: the share of profiles without a score (or of scores without a
#: profile) beyond which ``estimate`` refuses to run. Files of one run match exactly; a larger
#: mismatch means files of different runs, or a scoring run that stopped early.
MAX_UNMATCHED = 0.01


# --------------------------------------------------------------------------- options from the spec
def flag(name: str) -> str:
    """The CLI flag of option ``name`` (``n_boot`` → ``--n-boot``)."""
    return "--" + name.replace("_", "-")


def estimator_options(names: Sequence[str] | None = None, *, defaults: Mapping[str, Any] | None = None,
                      types: Mapping[str, Any] | None = None, helps: Mapping[str, str] | None = None,
                      prefix: str = "") -> Callable:
    """A click decorator: one option per field of :class:`EstimatorSpec` (all, or ``names``).

    The flag, default, type (a choice for a field with choices, ``--x/--no-x`` for a flag) and
    help come from the field (:func:`popresume.causal.spec.spec_option`), so a new field of
    the spec is a new option of every command that takes them all. ``defaults``, ``types``
    and ``helps`` change a command's own default, click type or help text; ``prefix``
    starts each help text (e.g. "Report mode: "). The values are checked by
    :func:`spec_from_cli`, with the estimator's own messages.
    """
    names = EstimatorSpec.names() if names is None else tuple(names)
    defaults, types, helps = dict(defaults or {}), dict(types or {}), dict(helps or {})

    def decorate(command):
        for name in reversed(names):
            opt = spec_option(name)
            default = defaults.get(name, getattr(DEFAULTS, name))
            rule = "" if opt.choices else opt.constraint()
            text = prefix + helps.get(name, opt.doc + (f" Allowed: {rule}." if rule else ""))
            if isinstance(default, bool):
                decl, kind = f"{flag(name)}/--no-{flag(name)[2:]}", None
            else:
                decl = flag(name)
                kind = types.get(name, click.Choice(opt.choices) if opt.choices
                                 else SEED if name == "seed" else type(default))
            extra = {} if kind is None else {"type": kind}
            command = click.option(decl, name, default=default, show_default=True, help=text, **extra)(command)
        return command

    return decorate


def spec_from_cli(values: Mapping[str, Any], base: EstimatorSpec | None = None) -> EstimatorSpec:
    """The :class:`EstimatorSpec` of a command's estimator options (``base``'s for those not given).

    A bad value is a :class:`UserError` naming the flag, in the estimator's own words
    (``--folds: folds=2 with nested_crossfit: ...``), before any file is read.
    """
    base = DEFAULTS if base is None else base
    given = {k: v for k, v in values.items() if k in EstimatorSpec.names()}
    for name, value in given.items():
        try:  # folds is checked with the nesting it goes with
            check_options(**({name: value, "nested_crossfit": given.get("nested_crossfit", base.nested_crossfit)}
                             if name == "folds" else {name: value}))
        except ValueError as e:
            nesting = given.get("nested_crossfit", base.nested_crossfit)
            if name == "folds" and "nested_crossfit" in given and nested_folds_problem(value, nesting):
                # this command can turn nesting off: name its flag
                e = nested_folds_problem(value, nesting, off=f"with --no-{flag('nested_crossfit')[2:]}")
            raise UserError(f"{flag(name)}: {e}") from None
    return base.replace(**given)


def _cols(values: tuple[str, ...]):
    """--z race --z age  or  --z race,age  →  ["race", "age"]; None when not given."""
    if not values:
        return None
    out = []
    for v in values:
        out += [c.strip() for c in v.split(",") if c.strip()]
    return out


@click.command("estimate")
@click.option("--profiles", "profiles_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Profiles Parquet (one row per résumé).")
@click.option("--scores", "scores_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Scores Parquet from `popresume score` (resume_id, screener, model, score, ...).")
@click.option("--attribute", type=click.Choice(["gender", "race"]), default="gender", show_default=True,
              help="Protected attribute; sets the default roles (popresume.causal.default_roles).")
@click.option("--screener", default=None, help="Which screener/model in the scores file (when it holds several).")
@click.option("--z", "z", multiple=True, help="Confounder column(s), comma-separated or repeated (overrides default).")
@click.option("--b", "b", multiple=True, help="Business-necessity mediator column(s) (overrides default).")
@click.option("--r", "r", multiple=True, help="Redlining mediator column(s) (overrides default).")
@click.option("--x0", default=None, help="Reference level of X (default: F / Non-White).")
@click.option("--x1", default=None, help="Comparison level of X (default: M / White).")
@estimator_options(defaults={"missing": "drop"},
                   helps={"missing": "Rows with a missing score (a parse failure): drop them with a warning, or stop "
                                     "(raise)."})
@click.option("--refit-bootstrap", is_flag=True, help="Short for --bootstrap refit.")
@click.option("--max-unmatched", type=click.FloatRange(0, 1), default=MAX_UNMATCHED, show_default=True,
              help="Largest share of profiles without a score, or of scores without a profile, that is "
                   "accepted (reported either way); beyond it the command stops. 1 accepts any overlap.")
@click.option("--out", "out_path", default=None, type=OutPath(TABLE_SUFFIXES, what="table"),
              help="Also write the table: .csv, .json or .parquet (checked before the estimation starts); "
                   "without it the table is printed only.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(profiles_path, scores_path, attribute, screener, z, b, r, x0, x1, refit_bootstrap, max_unmatched,
            out_path, quiet, **settings):
    """Estimate the path-specific effects of one screener; prints the table, the cases and diagnostics.

    The estimator's options (--folds ... --estimable-rule) are the fields of
    popresume.causal.EstimatorSpec, with their defaults (here --missing drop)."""
    if refit_bootstrap:
        settings["bootstrap"] = "refit"
    spec = spec_from_cli(settings)  # the estimator's own check, before any file is read
    roles = default_roles(attribute)
    for key, val in (("z", _cols(z)), ("b", _cols(b)), ("r", _cols(r))):
        if val is not None:
            roles[key] = val
    if x0 is not None:
        roles["x0"] = x0
    if x1 is not None:
        roles["x1"] = x1
    profiles = read_parquet(profiles_path, what="profiles", columns=["resume_id"])
    scores = read_parquet(scores_path, what="scores", columns=["resume_id", "score"])
    click.echo(match_ids(profiles, scores, screener, max_unmatched=max_unmatched,
                         files=(profiles_path, scores_path)))
    try:
        data = prepare(profiles, scores, screener=screener)
    except (KeyError, ValueError) as e:  # e.g. a column the Appendix C.4 groups are derived from
        msg = e.args[0] if isinstance(e, KeyError) else str(e)
        raise UserError(f"profiles {profiles_path}, scores {scores_path}: {msg}") from None
    check_estimable(data, roles, files=(profiles_path, scores_path))
    table, est = estimate_pse(data, {**roles, "y": "score"}, spec, progress=not quiet, return_estimator=True)
    cases = {rule: classify_cases(table, rule).iloc[0] for rule in ("stated", "paper")}
    out = table.copy()
    out.attrs = {}
    out["attribute"], out["x0"], out["x1"] = attribute, roles["x0"], roles["x1"]
    out["cases_paper"], out["cases_stated"] = cases["paper"], cases["stated"]
    # results first: a failed write must not lose them
    shown = table[["estimate", "se", "ci_low", "ci_high", "significant", "estimable"]]
    click.echo(f"{attribute}: x0={roles['x0']!r}, x1={roles['x1']!r}, n={est.n_}, folds={spec.folds}, "
               f"{table['ci_method'].iloc[0]}")
    click.echo(shown.to_string(float_format=lambda v: f"{v:.3f}"))
    for effect, reason in table.loc[~table["estimable"], "reason"].items():
        click.echo(f"{effect} not estimable: {reason}")
    no_label = "none (it would rest on a non-estimable effect)"
    click.echo(f"cases (paper rule): {cases['paper'] or no_label}   (stated rule): {cases['stated'] or no_label}")
    ov = est.result_.overlap
    click.echo(f"propensities clipped: {est.n_clipped_}; min ESS {ov['min_ess']:.0f}, "
               f"largest clipped share {ov['clipped_share']:.1%}")
    if out_path is None:
        click.echo("no --out: the table is printed only")
        return
    write_table(out, out_path)
    click.echo(f"wrote {out_path}")


def match_ids(profiles, scores, screener: str | None = None, *, max_unmatched: float = MAX_UNMATCHED,
              files: tuple[str, str] = ("profiles", "scores")) -> str:
    """Count profiles without a score and scores without a profile; a one-line report.

    Raises :class:`UserError` when either share exceeds ``max_unmatched`` (an inner join
    would otherwise estimate silently on the part that matches).
    """
    p_ids = set(profiles["resume_id"].astype(str))
    rows = screener_rows(scores, screener)
    if screener is not None and rows.empty:
        raise UserError(f"screener {screener!r} (--screener) is not in {files[1]}; it holds "
                        f"{screeners_present(scores) or 'no screener or model column'}")
    s_ids = set(rows["resume_id"].astype(str))
    no_score, no_profile = len(p_ids - s_ids), len(s_ids - p_ids)
    matched = len(p_ids & s_ids)
    line = (f"matched {matched:,} résumés: {no_score:,} of {len(p_ids):,} profiles have no score, "
            f"{no_profile:,} of {len(s_ids):,} scores have no profile")
    worst = max(no_score / max(len(p_ids), 1), no_profile / max(len(s_ids), 1))
    if matched == 0 or worst > max_unmatched:
        raise UserError(f"{files[0]} and {files[1]} do not match: {line} ({worst:.1%} unmatched, more than "
                        f"--max-unmatched {max_unmatched:.1%}). Are they from the same run? "
                        + ("" if matched == 0 else f"--max-unmatched 1 estimates on the {matched:,} that match."))
    return line


def check_estimable(data, roles: dict, *, files: tuple[str, str] = ("profiles", "scores")) -> None:
    """Refuse, naming the file and column, data on which no effect can be estimated."""
    for key in ("x", "z", "b", "r"):
        for col in [roles[key]] if key == "x" else roles[key]:
            if col not in data.columns:
                flag = "--attribute" if key == "x" else f"--{key}"
                raise UserError(f"column {col!r} ({flag}) is in neither {files[0]} nor its Appendix C.4 groups; "
                                f"columns: {sorted(data.columns)}")
    scored = data[data["score"].notna()]
    if scored.empty:
        raise UserError(f"all {len(data):,} scores in {files[1]} are missing (NaN): the screener's replies "
                        f"could not be parsed (see its 'raw' column); nothing to estimate")
    x, x0, x1 = roles["x"], roles["x0"], roles["x1"]
    counts = scored[x].astype(str).value_counts()
    for level in (x0, x1):
        if counts.get(str(level), 0) == 0:
            raise UserError(f"column {x!r} in {files[0]} has no scored résumé with {x}={level!r} (levels: "
                            f"{counts.to_dict()}); the contrast {x0!r} vs {x1!r} needs both groups")
