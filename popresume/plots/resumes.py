"""Figures of the résumé chapter: tidy table in, matplotlib Axes out."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.schema import EDU_LEVELS, OCCUPATION_LABELS


def _ax(ax, figsize=(6, 4)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_token_lengths(stats: pd.DataFrame, ax=None):
    """Histogram of résumé length in tokens, one step line per occupation (``stats`` from resume_stats)."""
    ax = _ax(ax)
    bins = np.arange(stats["n_tokens"].min() - 5, stats["n_tokens"].max() + 10, 10)
    for occ, g in stats.groupby("occupation", sort=False):
        ax.hist(g["n_tokens"], bins=bins, histtype="step", density=True, label=OCCUPATION_LABELS.get(occ, occ))
    ax.set_xlabel("résumé length (tokens: words and punctuation)")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    return ax


def plot_roles_vs_exp(stats: pd.DataFrame, ax=None):
    """Number of work roles against exp_year (the piecewise rule of Appendix B.1), with counts as size."""
    ax = _ax(ax)
    c = stats.groupby(["exp_year", "n_roles"]).size().rename("count").reset_index()
    ax.scatter(c["exp_year"], c["n_roles"], s=20 + 200 * c["count"] / c["count"].max(), alpha=0.7)
    ax.set_xlabel("exp_year")
    ax.set_ylabel("roles in WORK HISTORY")
    ax.set_yticks(sorted(c["n_roles"].unique()))
    return ax


def plot_education_entries(stats: pd.DataFrame, ax=None):
    """Number of education entries per edu_level (bars: mean; all rows of a level agree by rule)."""
    ax = _ax(ax, figsize=(7, 4))
    levels = [e for e in EDU_LEVELS if e in set(stats["edu_level"])]
    m = stats.groupby("edu_level")["n_education"].mean().reindex(levels)
    ax.barh(range(len(levels)), m.to_numpy())
    ax.set_yticks(range(len(levels)), levels)
    ax.invert_yaxis()
    ax.set_xlabel("education entries")
    ax.set_xticks([0, 1, 2])
    return ax


def plot_resume_image(path, ax=None, title: str | None = None):
    """Show a rendered résumé PNG."""
    from PIL import Image
    ax = _ax(ax, figsize=(5, 6.5))
    with Image.open(path) as im:
        ax.imshow(np.asarray(im.convert("RGB")))
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=9)
    return ax
