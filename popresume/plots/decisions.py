"""Figures of the recorded decisions of real screeners (chapters 08c and 08d).

Each function takes a table of :mod:`popresume.decisions.analyses` (or a source's own
columns) and returns the Figure; the statistics are the analyses', nothing is computed here
beyond selecting and clipping what is drawn. Titles say whose replies the numbers come from.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from popresume.errors import require_columns
from popresume.ll144 import FOUR_FIFTHS

STATUS_COLOURS = ["grey", "tab:blue", "tab:green", "tab:orange", "tab:red"]


def contrast_forest(rows: pd.DataFrame, *, xlabel: str, title: str):
    """One row per (source, model): the contrast's estimate with its CI (columns ``estimate``,
    ``ci_low``, ``ci_high``); returns the Figure."""
    require_columns(rows, ["source", "model", "estimate", "ci_low", "ci_high"], "contrast_forest")
    t = rows.reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7, 5))
    y = np.arange(len(t))
    ax.errorbar(t["estimate"], y, xerr=[t["estimate"] - t["ci_low"], t["ci_high"] - t["estimate"]],
                fmt="o", color="black", capsize=3)
    ax.set_yticks(y, [f"{s}: {m}" for s, m in zip(t["source"], t["model"])], fontsize=8)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def names_vs_placebos(names: pd.DataFrame, placebos: dict[str, pd.Series], *, title: str,
                      xlabel: str = "mean change from the baseline CV (score 1–10)"):
    """Per model (one row each, the keys of ``placebos``): the placebo edits' mean changes
    (grey ticks, the values of ``placebos[model]``) and the first names' effects (black dots,
    ``names`` rows of that model, column ``effect``); returns the Figure."""
    require_columns(names, ["model", "effect"], "names_vs_placebos")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for i, (mdl, pl) in enumerate(placebos.items()):
        ax.scatter(np.asarray(pl, float), np.full(len(pl), i) - 0.12, marker="|", s=120, color="grey",
                   label="placebo edits" if i == 0 else None)
        nm = names[names["model"] == mdl]
        ax.scatter(nm["effect"], np.full(len(nm), i) + 0.12, marker="o", s=18, color="black",
                   label="first names" if i == 0 else None)
    ax.set_yticks(range(len(placebos)), list(placebos), fontsize=8)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


def labelled_scatter(points: pd.DataFrame, x: str, y: str, *, title: str, xlabel: str | None = None,
                     ylabel: str | None = None):
    """Each row of ``points`` (indexed by its label) at (``x``, ``y``), its label beside it; returns the Figure."""
    require_columns(points, [x, y], "labelled_scatter")
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.scatter(points[x], points[y], color="black")
    for label, row in points.iterrows():
        ax.annotate(label, (row[x], row[y]), fontsize=7, xytext=(3, 2), textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def published_vs_recomputed(table: pd.DataFrame, statuses, *, title: str, clip: float = 1.5):
    """Each published impact ratio (clipped at ``clip``) against the ratio recomputed from the
    audit's counts, coloured by ``status`` (the first five of ``statuses``), the diagonal and
    dotted four-fifths lines; returns the Figure."""
    require_columns(table, ["published_ratio", "ratio", "status"], "published_vs_recomputed")
    both = table.dropna(subset=["published_ratio", "ratio", "status"])
    fig, ax = plt.subplots(figsize=(6, 5))
    for status, colour in zip(list(statuses)[:len(STATUS_COLOURS)], STATUS_COLOURS):
        s = both[both["status"] == status]
        ax.scatter(s["ratio"], s["published_ratio"].clip(upper=clip), s=6, color=colour, alpha=0.6,
                   label=f"{status} ({len(s):,})")
    ax.plot([0, clip], [0, clip], color="black", lw=1)
    ax.axhline(FOUR_FIFTHS, color="grey", ls=":", lw=1)
    ax.axvline(FOUR_FIFTHS, color="grey", ls=":", lw=1)
    ax.set_xlabel("recomputed: rate / highest rate of the table")
    ax.set_ylabel(f"published (clipped at {clip:g})")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def chance_by_n(rated: pd.DataFrame, flagged: pd.DataFrame, chance: str, *, title: str):
    """For every rated category (grey) and the tested published flags (red): the chance of a
    ratio below four-fifths with no disparity (column ``chance``) against the category's ``n``,
    on a log axis with every other decade labelled in plain numbers; returns the Figure."""
    for frame in (rated, flagged):
        require_columns(frame, ["n", chance], "chance_by_n")
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ax.scatter(rated["n"], rated[chance], s=5, color="grey", alpha=0.5, label="every rated category")
    ax.scatter(flagged["n"], flagged[chance], s=14, color="tab:red", label="tested published flags")
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator([10, 1e3, 1e5, 1e7]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("category n (log scale)")
    ax.set_ylabel("chance below four-fifths, no disparity")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
