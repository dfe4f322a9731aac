"""Figures of the résumé chapter: tidy table in, matplotlib Axes out."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from PIL import Image

from popresume.schema import EDU_LEVELS, OCCUPATION_LABELS


def _ax(ax, figsize=(6, 4)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_token_lengths(stats: pd.DataFrame, ax=None, legend: bool = True):
    """Histogram of résumé length in tokens, one step line per occupation (``stats`` from resume_stats).

    ``legend=False`` leaves the legend to the caller (e.g. one figure legend below a row of panels)."""
    ax = _ax(ax)
    bins = np.arange(stats["n_tokens"].min() - 5, stats["n_tokens"].max() + 10, 10)
    for occ, g in stats.groupby("occupation", sort=False):
        ax.hist(g["n_tokens"], bins=bins, histtype="step", density=True, label=OCCUPATION_LABELS.get(occ, occ))
    ax.set_xlabel("résumé length (tokens: words and punctuation)")
    ax.set_ylabel("density")
    if legend:  # outside the axes: the step lines fill the whole panel
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
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
    ax = _ax(ax, figsize=(5, 6.5))
    with Image.open(path) as im:
        ax.imshow(np.asarray(im.convert("RGB")))
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_career_timelines(resumes, labels=None, ax=None, reference=(2023, 12)):
    """Education and work of a few résumés on one time axis (Appendix B.1's forward rule).

    One row per résumé: a marker at each graduation (June of the year shown), a bar per
    role (lighter for a preparatory role held before the degree the occupation needs), and
    a dashed line at the reference date. ``labels``: one row label per résumé.
    """
    resumes = list(resumes)
    ax = _ax(ax, figsize=(9, 0.55 * len(resumes) + 1.6))
    t = lambda ym: ym[0] + (ym[1] - 1) / 12  # noqa: E731 - year.month as a decimal year
    for i, r in enumerate(resumes):
        for role in r.roles:
            ax.barh(i, t(role.end) - t(role.start), left=t(role.start), height=0.5,
                    color="#bbbbbb" if role.preparatory else "#3b75af", edgecolor="white")
        for e in r.education:
            ax.plot(t(r.graduation[e.degree]), i, marker="D", color="#d62728", markersize=6, linestyle="none")
    ax.axvline(t(reference), color="black", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(resumes)), labels if labels is not None else [r.resume_id for r in resumes])
    ax.invert_yaxis()
    ax.set_xlabel("year")
    handles = [Patch(color="#3b75af", label="role in the occupation"),
               Patch(color="#bbbbbb", label="preparatory role (before the needed degree)"),
               Line2D([], [], marker="D", color="#d62728", linestyle="none", label="graduation"),
               Line2D([], [], color="black", linestyle="--", label=f"reference date {reference[0]}.{reference[1]:02d}")]
    ax.legend(handles=handles, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.02), ncol=2, borderaxespad=0)
    return ax


def career_timelines_figure(resumes, labels, *, title: str):
    """:func:`plot_career_timelines` on its own Figure, ``title`` saying whose careers; returns the Figure."""
    fig, ax = plt.subplots(figsize=(8.2, 5.4))
    plot_career_timelines(resumes, labels=labels, ax=ax)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def resume_image_pair(plain, photo, *, titles: tuple[str, str]):
    """A résumé rendered as an image (left) and as an image with a photo slot (right), titled
    ``titles``; returns the Figure."""
    fig, axes = plt.subplots(1, 2, figsize=(8.6, 6.2))
    plot_resume_image(plain, ax=axes[0], title=titles[0])
    plot_resume_image(photo, ax=axes[1], title=titles[1])
    fig.tight_layout()
    return fig


def corpus_figure(stats: pd.DataFrame, *, title: str):
    """Length in tokens, roles against exp_year and education entries by occupation
    (:func:`plot_token_lengths`, :func:`plot_roles_vs_exp`, :func:`plot_education_entries`),
    the length panel's legend in the grid's fourth slot, where it covers nothing; returns the Figure."""
    fig, axes = plt.subplots(2, 2, figsize=(9, 7.6))
    plot_token_lengths(stats, ax=axes[0, 0], legend=False)
    plot_roles_vs_exp(stats, ax=axes[0, 1])
    plot_education_entries(stats, ax=axes[1, 0])
    handles, names = axes[0, 0].get_legend_handles_labels()
    axes[1, 1].axis("off")
    axes[1, 1].legend(handles, names, loc="center", ncol=1, fontsize=8, frameon=False,
                      title="length panel: occupation", title_fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
