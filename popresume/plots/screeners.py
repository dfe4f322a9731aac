"""Figures of screener scores: distributions per occupation, and two screeners compared on
the same résumés. Each function takes the tidy score table of
:func:`popresume.screeners.score_resumes` (joined with ``occupation`` where needed) and
returns the matplotlib Axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.schema import OCCUPATION_KEYS, OCCUPATION_LABELS
from popresume.screeners.validity import CONTRAST_LABELS, CONTRASTS, card_label


def plot_score_distributions(scores: pd.DataFrame, ax=None, *, by: str = "occupation", title: str | None = None):
    """Box plots of the parsed scores per level of ``by`` (default occupation); missing scores are
    left out and counted in the tick labels."""
    require_columns(scores, [by], "scores (join the résumé table first)")
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
    ax.set_title(title or f"Ours: scores by {by}, {screeners}")
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
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # never over points
    else:
        ax.scatter(both[x], both[y], s=12, alpha=0.7)
    rho = both[x].rank().corr(both[y].rank()) if len(both) > 2 else float("nan")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"Ours: the same {len(both)} résumés; Spearman ρ = {rho:.2f}")
    return ax


def plot_validity_cards(cards, ax=None, *, title: str | None = None):
    """Forest plot of validity cards (:mod:`popresume.screeners.validity`): one row per
    check, one marker + 95% CI per screener, the verdict in the legend. ``cards`` maps a
    label (which screener) to its card. Numbers are ours (the source is in the title)."""
    cards = dict(cards)
    if not cards:
        raise ValueError("no validity cards to plot")
    k = len(cards)
    ax = ax or plt.subplots(figsize=(8.5, 1.6 + 0.45 * len(CONTRASTS) * max(1, k) ** 0.5 + 0.25 * k))[1]
    step = 0.7 / max(k, 1)
    for j, (label, card) in enumerate(cards.items()):
        y = np.arange(len(CONTRASTS)) + (j - (k - 1) / 2) * step
        est = np.array([card[c]["estimate"] for c in CONTRASTS], dtype=float)
        lo = np.array([card[c]["ci_low"] for c in CONTRASTS], dtype=float)
        hi = np.array([card[c]["ci_high"] for c in CONTRASTS], dtype=float)
        color = plt.get_cmap("tab10")(j)
        ax.errorbar(est, y, xerr=[np.nan_to_num(est - lo), np.nan_to_num(hi - est)], fmt="o", ms=4, capsize=2,
                    color=color, label=f"{label}: {card['verdict'].upper()}")
    ax.axvline(0, color="0.4", lw=0.8)
    ax.set_yticks(np.arange(len(CONTRASTS)), [CONTRAST_LABELS[c] for c in CONTRASTS])
    ax.invert_yaxis()
    ax.set_xlabel("paired score difference, points (mean, 95% CI)")
    n = sorted({c["n_profiles"] for c in cards.values()})
    ax.set_title(title or f"Validity gate, ours ({', '.join(map(str, n))} résumés)")
    # below the axes, so that it never covers a point and never squeezes the panel
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.02 * k), ncol=2, frameon=False,
              title="screener: verdict", title_fontsize=8)
    return ax


def plot_validity_card(card, ax=None):
    """One screener's validity card (see :func:`plot_validity_cards`)."""
    s = card["screener"]
    return plot_validity_cards({card_label(card): card}, ax=ax,
                               title=f"Validity gate, ours: {s['screener_id']} / {s['model']}, "
                                     f"{card['n_profiles']} résumés")
