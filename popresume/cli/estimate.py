"""``popresume estimate``: profiles + scores → the TE/NDE/NIE/BIE/RIE table with CIs and cases."""

from __future__ import annotations

import click


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
@click.option("--folds", type=int, default=5, show_default=True, help="L of the L-fold cross-fitting.")
@click.option("--n-boot", type=int, default=500, show_default=True, help="Bootstrap draws (0: normal CIs).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--refit-bootstrap", is_flag=True, help="Full refit bootstrap instead of the influence bootstrap (slow).")
@click.option("--clip", type=float, default=0.01, show_default=True, help="Propensity clipping level.")
@click.option("--no-normalize", is_flag=True, help="Do not self-normalise the weights.")
@click.option("--no-tune", is_flag=True,
              help="Skip the CV grid search (XGBoost with n_estimators=50, max_depth=3, reg_lambda=1).")
@click.option("--missing", type=click.Choice(["drop", "raise"]), default="drop", show_default=True,
              help="Rows with a missing score (a parse failure): drop them with a warning, or stop.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Output table: .csv, .json or .parquet.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(profiles_path, scores_path, attribute, screener, z, b, r, x0, x1, folds, n_boot, seed, refit_bootstrap,
            clip, no_normalize, no_tune, missing, out_path, quiet):
    """Estimate the path-specific effects of one screener; prints the table, the cases and diagnostics."""
    import pandas as pd

    from popresume.causal import classify_cases, default_roles, estimate_pse, prepare
    from popresume.io import write_table

    roles = default_roles(attribute)
    for key, val in (("z", _cols(z)), ("b", _cols(b)), ("r", _cols(r))):
        if val is not None:
            roles[key] = val
    if x0 is not None:
        roles["x0"] = x0
    if x1 is not None:
        roles["x1"] = x1
    data = prepare(pd.read_parquet(profiles_path), pd.read_parquet(scores_path), screener=screener)
    table, est = estimate_pse(data, **roles, y="score", folds=folds, n_boot=n_boot, seed=seed,
                              bootstrap="refit" if refit_bootstrap else "influence", clip=clip,
                              normalize=not no_normalize, tune=not no_tune, missing=missing, progress=not quiet,
                              return_estimator=True)
    cases = {rule: classify_cases(table, rule).iloc[0] for rule in ("stated", "paper")}
    out = table.copy()
    out.attrs = {}
    out["attribute"], out["x0"], out["x1"] = attribute, roles["x0"], roles["x1"]
    out["cases_paper"], out["cases_stated"] = cases["paper"], cases["stated"]
    write_table(out, out_path)
    shown = table[["estimate", "se", "ci_low", "ci_high", "significant"]]
    click.echo(f"{attribute}: x0={roles['x0']!r}, x1={roles['x1']!r}, n={est.n_}, folds={folds}, "
               f"{table['ci_method'].iloc[0]}")
    click.echo(shown.to_string(float_format=lambda v: f"{v:.3f}"))
    click.echo(f"cases (paper rule): {cases['paper']}   (stated rule): {cases['stated']}")
    click.echo(f"propensities clipped: {est.n_clipped_}; min ESS {est.weights_['ess'].min():.0f}; wrote {out_path}")
