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


# the share of a category's slot its group of bars fills (the rest is the gap between groups)
GROUP_WIDTH = 4 / 5


def plot_grouped_bars(table: pd.DataFrame, ax, *, width: float = GROUP_WIDTH):
    """One group of bars per row of ``table``, one bar (and legend entry) per column; returns the Axes."""
    x = np.arange(len(table))
    w = width / max(1, table.shape[1])
    for k, c in enumerate(table.columns):
        ax.bar(x + (k - (table.shape[1] - 1) / 2) * w, table[c].to_numpy(float), width=w, label=c)
    return ax


def plot_seed_associations(panels: dict[str, tuple[str, pd.DataFrame]]):
    """The share with a bachelor's or more by group, one panel per entry of ``panels``
    (title -> (grouping variable, table with one column per population; a ``seed n`` column is
    left out)); returns the Figure."""
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.4 * len(panels)), squeeze=False)
    for ax, (title, (key, table)) in zip(axes[:, 0], panels.items()):
        shares = table.drop(columns=["seed n"], errors="ignore")
        plot_grouped_bars(shares, ax)
        ax.set_xticks(np.arange(len(shares)), shares.index)
        ax.set_ylim(0, 1.35)  # head-room for the legend above the bars
        ax.set_ylabel("Share with bachelor's or more")
        ax.set_xlabel(key)
        ax.legend(fontsize=7, frameon=False, loc="upper left", ncol=shares.shape[1])
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_log_odds_ratios(assoc: pd.DataFrame, names, *, title: str):
    """Each population's log odds ratio (± 2 SE) per (occupation, contrast) of ``assoc``
    (columns ``<name> log OR`` and ``<name> se`` for each of ``names``); returns the Figure."""
    fig, ax = plt.subplots(figsize=(8.5, 5))
    labels = [f"{SHORT_LABELS[o]}: {c}" for o, c in zip(assoc["occupation"], assoc["contrast"])]
    y = np.arange(len(assoc))
    for k, name in enumerate(names):
        ax.errorbar(assoc[f"{name} log OR"], y + (k - 1) * 0.22, xerr=2 * assoc[f"{name} se"], fmt="o", ms=4,
                    capsize=2, label=name)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("log odds ratio (± 2 SE)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_effect_by_population(shift: pd.DataFrame, *, effect: str = "BIE", attributes=("gender", "race"),
                              source: str = "ours: synthetic screener, true value"):
    """One panel per attribute: ``effect`` per occupation, one bar per population (the columns
    of ``shift``, indexed by attribute, effect, occupation); returns the Figure."""
    fig, axes = plt.subplots(len(attributes), 1, figsize=(7.5, 3.6 * len(attributes)), squeeze=False)
    for ax, attr in zip(axes[:, 0], attributes):
        t = shift.loc[attr, effect]
        plot_grouped_bars(t, ax, width=0.76)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(np.arange(len(t)), [SHORT_LABELS[o] for o in t.index], fontsize=8, rotation=30, ha="right")
        ax.set_title(f"{attr} {effect} ({source})", fontsize=10)
        ax.set_ylabel(f"{effect}, score points")
    axes[0, 0].legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_truncated_draws(draws: dict, means: dict, sds: dict, *, min_age: int = 18):
    """Draws of whole years of experience at each age (bars, share of draws), the untruncated
    normal they come from (line) and the years the age rules out (shaded). ``draws``, ``means``
    and ``sds`` are keyed by age; returns the Figure."""
    fig, axes = plt.subplots(len(draws), 1, figsize=(7, 3.3 * len(draws)), squeeze=False)
    for ax, (age, d) in zip(axes[:, 0], draws.items()):
        mu, sd = means[age], sds[age]
        values, counts = np.unique(np.asarray(d), return_counts=True)
        ax.bar(values, counts / len(d), width=0.7, alpha=0.7, label="truncated draws (share)")
        hi = max(age - min_age + 1.5, mu + 3 * sd)
        xs = np.linspace(min(-0.5, mu - 3 * sd), hi, 300)
        ax.plot(xs, np.exp(-0.5 * ((xs - mu) / sd) ** 2) / (sd * np.sqrt(2 * np.pi)), color="black",
                label="untruncated normal (density)")
        ax.axvspan(age - min_age + 0.5, hi, color="tab:red", alpha=0.12, label=f"above age − {min_age} (impossible)")
        ax.set_xlim(xs[0], hi)
        ax.set_xticks(np.arange(0, int(hi) + 1, 1 if hi < 10 else 5))
        ax.set_title(f"Ours: age {age}, μ = {mu:.1f}, σ = {sd:.1f} years", fontsize=10)
        ax.set_xlabel("exp_year (whole years)")
        ax.set_ylabel("Share of draws / density")
    axes[0, 0].legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout(h_pad=2)
    return fig


def plot_age_by_group(profiles: pd.DataFrame, *, group: str = "fn_age", groups=("young", "mid", "old", "neutral"),
                      title: str = "Age of applicants by first-name age group (ours: generated)"):
    """The age distribution (step histograms, one year a bin) of each value of ``group``; returns the Figure."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for g in groups:
        ages = profiles.loc[profiles[group] == g, "age"]
        ax.hist(ages, bins=np.arange(17.5, 45.5), histtype="step", density=True, lw=1.5, label=f"{g} (n={len(ages)})")
    ax.set_xlabel("Applicant age")
    ax.set_ylabel("Density")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)  # head-room for the legend above the curves
    ax.legend(fontsize=7, frameon=False, ncols=2, loc="upper center")
    return fig
