"""Figures of the forced-choice ranking audit (chapter 08b, ``popresume ranking``): one function
per figure kind, each taking a tidy table of :mod:`popresume.ranking` and returning the
Figure; the title names the source ("published (Bloomberg 2024)", "ours, ...")."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.ll144 import FOUR_FIFTHS

BLUE, RED, GREY = "#1f5fbf", "#c62828", "#555555"


def _grid(keys: list[tuple], ncols: int = 3, size=(2.9, 2.8)):
    # three panels a row: the book's column draws a figure of about 9 in at 0.7 of its size or more
    nrows = int(np.ceil(len(keys) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size[0] * ncols, size[1] * nrows), squeeze=False,
                             sharex=True, sharey=True)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    return fig, axes.flat


def plot_impact_ratios(rates: pd.DataFrame, *, title: str, threshold: float = FOUR_FIFTHS):
    """Impact ratio of each group with its 95% CI (:func:`popresume.ranking.rates.ratio_intervals`),
    one panel per model × job, the 0.8 line dashed."""
    require_columns(rates, ["model", "job", "demo", "disparate_impact_ratio", "ratio_ci_low", "ratio_ci_high"],
                    "selection-rate table")
    keys = list(rates.groupby(["model", "job"], sort=False).groups)
    fig, axes = _grid(keys)
    for ax, key in zip(axes, keys):
        s = rates[(rates["model"] == key[0]) & (rates["job"] == key[1])].sort_values("demo")
        y = np.arange(len(s))
        ax.errorbar(s["disparate_impact_ratio"], y, xerr=[s["disparate_impact_ratio"] - s["ratio_ci_low"],
                    s["ratio_ci_high"] - s["disparate_impact_ratio"]], fmt="o", color=BLUE, ms=4, capsize=2)
        ax.axvline(threshold, color=RED, ls="--", lw=1)
        ax.set_yticks(y, s["demo"])
        ax.set_title(f"{key[0]}\n{key[1]}", fontsize=9)
        ax.set_xlim(0.3, 1.05)
    fig.supxlabel("impact ratio (group's top-1 rate / highest group's), 95% CI (the best group is itself uncertain)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_chance(null: dict, chance: pd.DataFrame, *, title: str, threshold: float = FOUR_FIFTHS):
    """Histograms of fair rankers' min/max ratios (``null``: label -> draws, e.g. the design-based
    and the uniform null of :mod:`popresume.ranking.chance`) with each observed ratio marked."""
    require_columns(chance, ["model", "job", "min_max_ratio"], "chance table")
    fig, ax = plt.subplots(figsize=(8, 3.6))
    for (label, draws), colour in zip(null.items(), [GREY, "#e0a030", "#60a060"]):
        ax.hist(draws, bins=40, range=(0.4, 1.0), color=colour, alpha=0.45, label=label)
    markers = {m: mk for m, mk in zip(sorted(chance["model"].unique()), ["v", "^", "s", "D", "o", "P"])}
    for i, r in enumerate(chance.itertuples(index=False)):
        ax.plot(r.min_max_ratio, -3 - 4 * (i % 4), markers[r.model], color=BLUE if "4" in r.model else RED,
                ms=6, label=None)
    for m, mk in markers.items():
        ax.plot([], [], mk, color=BLUE if "4" in m else RED, label=f"observed: {m} (one marker per job)")
    ax.axvline(threshold, color=RED, ls="--", lw=1, label="four-fifths line")
    ax.set_yticks([t for t in ax.get_yticks() if t >= 0])
    ax.set_xlabel("lowest group's top-1 rate / highest group's")
    ax.set_ylabel("fair rankers")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def plot_position(pos: pd.DataFrame, *, title: str):
    """Share of runs whose top pick was shown at each position, one line per job, a panel per model; 1/k dotted."""
    require_columns(pos, ["model", "job", "position", "top_rate"], "position table")
    models = list(dict.fromkeys(pos["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 3.4), sharey=True, squeeze=False)
    k = pos["position"].max()
    for ax, m in zip(axes.flat, models):
        for job, s in pos[pos["model"] == m].groupby("job", sort=False):
            ax.plot(s["position"], s["top_rate"], marker="o", ms=3, label=job)
        ax.axhline(1 / k, color=GREY, ls=":", lw=1)
        ax.set_title(m, fontsize=10)
        ax.set_xlabel("position shown")
        ax.set_xticks(range(1, k + 1))
    axes.flat[0].set_ylabel("share of runs ranked first")
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_clogit(coefs: pd.DataFrame, *, title: str):
    """Group log-odds (vs the reference) with 95% CIs, with and without position terms, per model × job."""
    require_columns(coefs, ["model", "job", "spec", "term", "coef", "ci_low", "ci_high", "cluster"],
                    "conditional-logit table")
    g = coefs[coefs["term"].str.startswith("demo_")]
    keys = list(g.groupby(["model", "job"], sort=False).groups)
    specs = list(dict.fromkeys(g["spec"]))
    fig, axes = _grid(keys)
    for ax, key in zip(axes, keys):
        s = g[(g["model"] == key[0]) & (g["job"] == key[1])]
        terms = sorted(s["term"].unique())
        for j, (spec, colour) in enumerate(zip(specs, [BLUE, GREY, RED])):
            t = s[s["spec"] == spec].set_index("term").reindex(terms)
            y = np.arange(len(terms)) + (j - (len(specs) - 1) / 2) * 0.25
            ax.errorbar(t["coef"], y, xerr=[t["coef"] - t["ci_low"], t["ci_high"] - t["coef"]], fmt="o", ms=3,
                        color=colour, capsize=1.5, label=spec)
        ax.axvline(0, color=GREY, lw=0.8)
        ax.set_yticks(np.arange(len(terms)), [t.removeprefix("demo_") for t in terms])
        ax.set_title(f"{key[0]}\n{key[1]}", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    cluster = {"two-way": "two-way by run and name", "run": "by run", "name": "by name"}[coefs["cluster"].iloc[0]]
    fig.supxlabel(f"log odds of being ranked first vs the reference group W_M (95% CI, clustered {cluster})")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.legend(handles, labels, loc="upper right", ncol=len(labels), fontsize=8, frameon=False)
    return fig


__all__ = ["plot_impact_ratios", "plot_chance", "plot_position", "plot_clogit"]
