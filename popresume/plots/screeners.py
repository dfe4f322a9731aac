"""Figures of screener scores: distributions per occupation, and two screeners compared on
the same résumés. Each function takes the tidy score table of
:func:`popresume.screeners.score_resumes` (joined with ``occupation`` where needed) and
returns the matplotlib Axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.schema import OCCUPATION_KEYS, OCCUPATION_LABELS


def plot_score_distributions(scores: pd.DataFrame, ax=None, *, by: str = "occupation", title: str | None = None):
    """Box plots of the parsed scores per level of ``by`` (default occupation); missing scores are
    left out and counted in the tick labels."""
    if by not in scores.columns:
        raise ValueError(f"scores has no column {by!r}; join the résumé table first")
    ax = ax or plt.subplots(figsize=(7, 3.5))[1]
    levels = [o for o in OCCUPATION_KEYS if o in set(scores[by])] or sorted(scores[by].unique())
    if by == "occupation":
        levels += sorted(set(scores[by]) - set(levels))
    data, labels = [], []
    for lvl in levels:
        s = scores.loc[scores[by] == lvl, "score"]
        data.append(s.dropna().to_numpy())
        miss = int(s.isna().sum())
        lab = OCCUPATION_LABELS.get(lvl, str(lvl)) if by == "occupation" else str(lvl)
        labels.append(lab + (f"\n({miss} missing)" if miss else ""))
    ax.boxplot(data, vert=False, showmeans=True)
    ax.set_yticks(np.arange(1, len(labels) + 1), labels)
    ax.set_xlabel("score (0–100)")
    screeners = ", ".join(sorted(set(scores["screener"].astype(str) + " / " + scores["model"].astype(str))))
    ax.set_title(title or f"Scores by {by}: {screeners}")
    return ax


def compare_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Wide table: one row per résumé, one column per ``screener/model``."""
    key = scores["screener"].astype(str) + "/" + scores["model"].astype(str)
    return scores.assign(key=key).pivot(index="resume_id", columns="key", values="score")


def plot_screener_comparison(scores: pd.DataFrame, x: str, y: str, ax=None, *, hue: pd.Series | None = None):
    """Scatter of two screeners' scores on the same résumés (``x``, ``y``: ``screener/model`` keys
    of :func:`compare_table`), with the Spearman rank correlation in the title."""
    wide = compare_table(scores)
    for k in (x, y):
        if k not in wide.columns:
            raise ValueError(f"no scores for {k!r}; available: {list(wide.columns)}")
    both = wide[[x, y]].dropna()
    ax = ax or plt.subplots(figsize=(4.5, 4))[1]
    if hue is not None:
        h = hue.reindex(both.index)
        for j, lvl in enumerate(sorted(h.dropna().unique())):
            m = (h == lvl).to_numpy()
            ax.scatter(both[x][m], both[y][m], s=12, alpha=0.7, label=OCCUPATION_LABELS.get(lvl, lvl),
                       color=plt.get_cmap("tab10")(j))
        ax.legend(fontsize=7, loc="best")
    else:
        ax.scatter(both[x], both[y], s=12, alpha=0.7)
    rho = both[x].rank().corr(both[y].rank()) if len(both) > 2 else float("nan")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"Same {len(both)} résumés; Spearman ρ = {rho:.2f}")
    return ax
