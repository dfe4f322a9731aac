"""Plots of path-specific effects (PopResume Figure 4 style) and of the coverage study.

Every function takes a tidy table and returns the matplotlib Axes (or Figure for a grid).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

# Figure 4's colours: TE/NDE/NIE neutral, BIE (business necessity) blue, RIE (redlining) red,
# the same blue/red as the paths in Figure 2b.
EFFECT_COLORS = {"TE": "#4d4d4d", "NDE": "#8c8c8c", "NIE": "#b3b3b3", "BIE": "#2b6cb0", "RIE": "#c53030"}

# Figure 4's six panels: (case title, attribute, occupation label, format, model) from Table 4.
FIGURE4_PANELS: list[tuple[str, str, str, str, str]] = [
    ("(a) Case 1", "gender", "Registered Nurses", "text", "Gemini-2.5-Flash-Lite (LLM)"),
    ("(b) Case 2", "gender", "Construction Laborers", "text", "Mistral-7b-instruct-v0.2"),
    ("(c) Case 3", "gender", "Elementary Middle School Teachers", "text", "Llama-3.1-8b-instruct"),
    ("(d) Case 4", "gender", "Registered Nurses", "image+photo", "Qwen2.5-vl-7b-instruct"),
    ("(e) Case 5 (cancellation)", "gender", "Accountants Auditors", "image+photo", "Qwen2.5-vl-7b-instruct"),
    ("(f) Case 5 (amplification)", "gender", "Accountants Auditors", "image", "GPT-4o"),
]


def _long(table: pd.DataFrame) -> pd.DataFrame:
    """One audit as a long table indexed by effect, from either the wide or the long form."""
    if {"estimate", "ci_low", "ci_high"} <= set(table.columns) and set(PSE_NAMES) <= set(table.index):
        return table.loc[list(PSE_NAMES), ["estimate", "ci_low", "ci_high"]]
    if len(table) != 1:
        raise ValueError(f"plot_effects needs one audit (one row of the wide table), got {len(table)} rows")
    row = table.iloc[0]
    return pd.DataFrame({k: [row[f"{e}_{k}"] for e in PSE_NAMES] for k in ("estimate", "ci_low", "ci_high")},
                        index=list(PSE_NAMES))


def plot_effects(table: pd.DataFrame, ax=None, *, title: str | None = None, label: str | None = None,
                 offset: float = 0.0, width: float = 0.6, color=None, legend_label: str | None = None):
    """Bars of TE, NDE, NIE, BIE, RIE with 95% CI whiskers (one panel of Figure 4).

    ``table``: ``estimate_pse``'s output or one row of the published wide table. Bars whose
    CI excludes 0 are drawn solid, the others hatched (the paper's bold = significant).
    ``offset``/``width``/``color`` let two audits share an Axes (Figure 5).
    """
    t = _long(table)
    if ax is None:
        _, ax = plt.subplots(figsize=(3.4, 2.6))
    xs = np.arange(len(t)) + offset
    sig = (t["ci_low"] > 0) | (t["ci_high"] < 0)
    colors = [color or EFFECT_COLORS[e] for e in t.index]
    bars = ax.bar(xs, t["estimate"], width=width, color=colors, edgecolor="black", linewidth=0.6,
                  label=legend_label)
    for bar, s in zip(bars, sig):
        if not s:
            bar.set_hatch("///")
            bar.set_alpha(0.55)
    ax.errorbar(xs, t["estimate"], yerr=[t["estimate"] - t["ci_low"], t["ci_high"] - t["estimate"]],
                fmt="none", ecolor="black", capsize=3, linewidth=1)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(np.arange(len(t)))
    ax.set_xticklabels(list(t.index))
    ax.set_ylabel("Effect value")
    if title:
        ax.set_title(title, fontsize=9)
    if label:
        ax.set_xlabel(label)
    return ax


def plot_figure4(published: pd.DataFrame, panels=FIGURE4_PANELS, *, ncols: int = 3):
    """Figure 4's six panels from the published wide table; returns the Figure."""
    nrows = int(np.ceil(len(panels) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 2.9 * nrows), squeeze=False)
    for ax, (case, attr, occ, fmt, model) in zip(axes.ravel(), panels):
        row = published[(published["attribute"] == attr) & (published["occupation"] == occ)
                        & (published["format"] == fmt) & (published["model"] == model)]
        if len(row) != 1:
            raise ValueError(f"Figure 4 panel {case}: {len(row)} rows for {attr}/{occ}/{fmt}/{model}")
        plot_effects(row, ax, title=f"{occ}\n{model} [{fmt}]", label=case)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot_coverage(coverage: pd.DataFrame, ax=None, *, nominal: float = 0.95, n_reps: int | None = None):
    """Coverage of the CIs per effect and method, with the nominal level and a binomial band.

    ``coverage``: tidy table with columns effect, method, coverage (and optionally n_reps).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3))
    methods = list(dict.fromkeys(coverage["method"]))
    effects = [e for e in PSE_NAMES if e in set(coverage["effect"])]
    w = 0.8 / max(1, len(methods))
    for i, m in enumerate(methods):
        sub = coverage[coverage["method"] == m].set_index("effect").reindex(effects)
        ax.bar(np.arange(len(effects)) + (i - (len(methods) - 1) / 2) * w, sub["coverage"], width=w, label=m)
    if n_reps is None and "n_reps" in coverage:
        n_reps = int(coverage["n_reps"].iloc[0])
    ax.axhline(nominal, color="black", linestyle="--", linewidth=1, label=f"nominal {nominal:.0%}")
    if n_reps:
        half = 1.96 * np.sqrt(nominal * (1 - nominal) / n_reps)
        ax.axhspan(nominal - half, min(1, nominal + half), color="grey", alpha=0.2,
                   label=f"±1.96 binomial SE ({n_reps} reps)")
    ax.set_xticks(np.arange(len(effects)))
    ax.set_xticklabels(effects)
    ax.set_ylim(max(0, coverage["coverage"].min() - 0.1), 1.02)
    ax.set_ylabel("CI coverage")
    ax.legend(fontsize=7, loc="lower left")
    return ax


def plot_estimates_vs_truth(estimates: pd.DataFrame, truth: pd.Series, ax=None):
    """Sampling distribution of each effect's estimates (box per effect × method), truth as dots.

    ``estimates``: tidy table with columns effect, method, estimate (one row per replicate).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    methods = list(dict.fromkeys(estimates["method"]))
    effects = [e for e in PSE_NAMES if e in set(estimates["effect"])]
    w = 0.8 / max(1, len(methods))
    for i, m in enumerate(methods):
        data = [estimates[(estimates["method"] == m) & (estimates["effect"] == e)]["estimate"].to_numpy()
                for e in effects]
        pos = np.arange(len(effects)) + (i - (len(methods) - 1) / 2) * w
        bp = ax.boxplot(data, positions=pos, widths=w * 0.9, patch_artist=True, showfliers=False)
        for patch in bp["boxes"]:
            patch.set_facecolor(f"C{i}")
            patch.set_alpha(0.6)
        ax.plot([], [], color=f"C{i}", linewidth=6, alpha=0.6, label=m)
    ax.scatter(np.arange(len(effects)), truth.reindex(effects), color="black", marker="D", zorder=5, label="truth")
    ax.set_xticks(np.arange(len(effects)))
    ax.set_xticklabels(effects)
    ax.axhline(0, color="grey", linewidth=0.6)
    ax.set_ylabel("estimate")
    ax.legend(fontsize=7)
    return ax
