"""Figures of the applicant population: Figure 7 (a-d), the Appendix B.2 Q-Q plot, and
comparisons of generated margins with the published tables. Each function takes a tidy
table and returns the matplotlib Axes (or Figure for the multi-panel Figure 7)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.schema import EDU_LEVELS, GENDERS, OCCUPATION_KEYS, RACE_LABELS, RACES

# Short labels as on Figure 7's axes
SHORT_LABELS = {"nurse": "Nurses", "teacher": "Teachers", "software_developer": "Developers",
                "accountant": "Accountants", "construction_laborer": "Construction"}
_LEVELS = {"gender": list(GENDERS), "race": list(RACES), "edu_level": list(EDU_LEVELS)}
_LEVEL_LABELS = {"gender": {"F": "Female", "M": "Male"}, "race": RACE_LABELS}


def composition_table(profiles: pd.DataFrame, variable: str) -> pd.DataFrame:
    """Share of each level of ``variable`` within each occupation (rows: occupations)."""
    levels = _LEVELS.get(variable, sorted(profiles[variable].unique()))
    t = pd.crosstab(profiles["occupation"], profiles[variable], normalize="index")
    t = t.reindex(columns=levels, fill_value=0.0)
    order = [o for o in OCCUPATION_KEYS if o in t.index]
    return t.loc[order]


def plot_composition(profiles: pd.DataFrame, variable: str, ax=None, *, title: str | None = None):
    """Grouped bars: share of each level of ``variable`` by occupation (Figure 7 a-c)."""
    t = composition_table(profiles, variable)
    ax = ax or plt.subplots(figsize=(7, 3.5))[1]
    k = t.shape[1]
    width = 0.8 / k
    x = np.arange(len(t))
    labels = _LEVEL_LABELS.get(variable, {})
    cmap = plt.get_cmap("tab10" if k <= 10 else "tab20")
    for j, lvl in enumerate(t.columns):
        ax.bar(x + (j - (k - 1) / 2) * width, t[lvl].to_numpy(), width, label=labels.get(lvl, lvl), color=cmap(j))
    ax.set_xticks(x, [SHORT_LABELS.get(o, o) for o in t.index])
    ax.set_ylabel("Proportion")
    # the legend sits in headroom above the tallest bar, so it never covers a bar
    ncol = min(k, 3)
    rows = -(-k // ncol)
    ax.set_ylim(0, float(t.to_numpy().max()) * (1.2 + 0.12 * rows))
    ax.legend(fontsize=7, ncol=ncol, frameon=False, loc="upper center")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def plot_age_experience(profiles: pd.DataFrame, ax=None, *, max_points: int = 3000, seed: int = 0):
    """Age vs exp_year (Figure 7d): jittered points and the mean by age."""
    ax = ax or plt.subplots(figsize=(5, 3.5))[1]
    rng = np.random.default_rng(seed)
    pts = profiles.sample(min(max_points, len(profiles)), random_state=seed) if len(profiles) > max_points else profiles
    ax.scatter(pts["age"] + rng.uniform(-0.3, 0.3, len(pts)), pts["exp_year"] + rng.uniform(-0.3, 0.3, len(pts)),
               s=3, alpha=0.15, color="tab:blue", label="profiles")
    m = profiles.groupby("age")["exp_year"].agg(["mean", lambda s: s.quantile(0.1), lambda s: s.quantile(0.9)])
    m.columns = ["mean", "q10", "q90"]
    ax.plot(m.index, m["mean"], color="black", lw=2, label="mean")
    ax.fill_between(m.index, m["q10"], m["q90"], color="gray", alpha=0.25, label="10th-90th percentile")
    ages = np.arange(profiles["age"].min(), profiles["age"].max() + 1)
    ax.plot(ages, ages - 18, ls="--", color="tab:red", lw=1, label="age − 18 (upper bound)")
    ax.set_xlabel("Age")
    ax.set_ylabel("Years of experience")
    ax.legend(fontsize=7, frameon=False)
    return ax


def plot_figure7(profiles: pd.DataFrame):
    """The four panels of Figure 7: gender, race, education by occupation; age vs experience."""
    # one panel a row: side by side, the occupations' tick labels need more than half the
    # book's column (about 9 in at 100 dpi drawn at 0.7 of its size or more)
    fig, axes = plt.subplots(4, 1, figsize=(8.5, 13))
    plot_composition(profiles, "gender", axes[0], title="(a) Gender distribution by occupation")
    plot_composition(profiles, "race", axes[1], title="(b) Race distribution by occupation")
    plot_composition(profiles, "edu_level", axes[2], title="(c) Education level distribution by occupation")
    plot_age_experience(profiles, axes[3])
    axes[3].set_title("(d) Age vs experience", fontsize=10)
    fig.tight_layout()
    return fig


def plot_qq(qq: pd.DataFrame, ax=None):
    """Q-Q plot of standardised residuals (Appendix B.2), from :func:`popresume.experience.qq_data`."""
    ax = ax or plt.subplots(figsize=(4.5, 4.5))[1]
    for g, colour in (("F", "tab:red"), ("M", "tab:blue")):
        m = qq["gender"] == g
        ax.scatter(qq.loc[m, "theoretical"], qq.loc[m, "sample"], s=6, alpha=0.5, color=colour,
                   label={"F": "women", "M": "men"}.get(g, g))
    lim = float(np.nanmax(np.abs(qq[["theoretical", "sample"]].to_numpy())))
    ax.plot([-lim, lim], [-lim, lim], color="black", lw=1, label="y = x")
    ax.set_xlabel("Theoretical quantiles (standard normal)")
    ax.set_ylabel("Ordered standardised residuals")
    ax.set_title("Q-Q plot for Assumption 2", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    return ax


def plot_margin_check(comparison: pd.DataFrame, ax=None):
    """Generated vs published shares (one point per occupation × level), with y = x.

    ``comparison`` has columns ``published``, ``generated`` and ``variable``.
    """
    ax = ax or plt.subplots(figsize=(4.5, 4.5))[1]
    for i, (v, g) in enumerate(comparison.groupby("variable", sort=False)):
        ax.scatter(g["published"], g["generated"], s=14, label=v, color=plt.get_cmap("tab10")(i))
    hi = float(max(comparison["published"].max(), comparison["generated"].max())) * 1.05
    ax.plot([0, hi], [0, hi], color="black", lw=1)
    ax.set_xlabel("Published share")
    ax.set_ylabel("Share in generated profiles")
    ax.legend(fontsize=7, frameon=False)
    return ax


def plot_experience_by_age(curves: pd.DataFrame, ax=None):
    """Mean predicted experience by age for several fits (columns = fits, index = age)."""
    ax = ax or plt.subplots(figsize=(5, 3.5))[1]
    for c in curves.columns:
        ax.plot(curves.index, curves[c], lw=2, label=c)
    ax.set_xlabel("Age")
    ax.set_ylabel("Mean experience μ(x), years")
    ax.legend(fontsize=7, frameon=False)
    return ax
