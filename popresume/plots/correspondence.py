"""Figures of the correspondence chapter: the three designs' graphs, Table 1, gaps.

Every function takes a tidy table (or nothing, for the graphs) and returns the Axes/Figure.
The graphs use the node layout and colours of chapter 00's Figure 2 (X left, Y right, R red,
B blue, X ↔ Z dashed), drawn with networkx.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd

BLUE, RED, GREY, FAINT = "#1f5fbf", "#c62828", "#333333", "#bbbbbb"
_POS = {"X": (0, 0), "Z": (1.5, 1.1), "R": (1.0, -1.0), "B": (2.0, -1.0), "Y": (3, 0)}
_SFM_EDGES = [("X", "Y"), ("X", "R"), ("X", "B"), ("R", "B"), ("R", "Y"), ("B", "Y"), ("Z", "R"), ("Z", "B"),
              ("Z", "Y")]

# design -> (edges cut by the design, caption, node labels)
GRAPH_DESIGNS = {
    "correspondence": ({("X", "Y"), ("X", "B"), ("R", "B"), ("Z", "B")},
                       "(a) Randomised correspondence (B&M):\nB drawn at random, race seen only via the name",
                       {"R": "R\nname", "B": "B\nrandom"}),
    "popresume": (set(), "(b) Population-representative (PopResume):\nevery path open",
                  {"R": "R", "B": "B"}),
    "factorial": ({("X", "Y"), ("X", "B"), ("R", "B"), ("Z", "B"), ("Z", "R"), ("Z", "Y")},
                  "(c) Factorial variants (Beyond the Name):\nB fixed, only the text signal varies",
                  {"R": "R\nsignal", "B": "B\nfixed"}),
}


def draw_design_graph(design: str, ax=None):
    """The SFM with mediators split into B and R, with the edges a design cuts drawn faint and
    dashed. ``design``: "correspondence", "popresume" or "factorial"."""
    if design not in GRAPH_DESIGNS:
        raise ValueError(f"unknown design {design!r}; expected one of {list(GRAPH_DESIGNS)}")
    cut, title, labels = GRAPH_DESIGNS[design]
    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 3.6))
    g = nx.DiGraph(_SFM_EDGES)
    nx.draw_networkx_nodes(g, _POS, ax=ax, node_size=2300, node_color="#f3f0e8", edgecolors=GREY)
    nx.draw_networkx_labels(g, _POS, labels={n: labels.get(n, n) for n in _POS}, ax=ax, font_size=9.5,
                            font_weight="bold")
    colour = {("X", "B"): BLUE, ("B", "Y"): BLUE, ("X", "R"): RED, ("R", "Y"): RED, ("R", "B"): RED}
    for u, v in _SFM_EDGES:
        off = (u, v) in cut
        nx.draw_networkx_edges(g, _POS, edgelist=[(u, v)], ax=ax, node_size=2300, arrowsize=16,
                               width=1.2 if off else 2.2, style="dashed" if off else "solid",
                               edge_color=FAINT if off else colour.get((u, v), GREY),
                               connectionstyle="arc3,rad=0.75" if (u, v) == ("X", "B") else "arc3,rad=0.0")
    return _finish_graph(ax, _POS, title, shared_cause=("Z", "R") not in cut)


def _finish_graph(ax, pos, title: str, *, shared_cause: bool = True):
    """The dashed X ↔ Z arc (shared causes; absent when nothing but the signal varies), the
    title and the frame every design graph shares; returns the Axes."""
    if shared_cause:
        ax.annotate("", xy=pos["Z"], xytext=pos["X"],
                    arrowprops=dict(arrowstyle="<|-|>", linestyle="--", color="#777777", lw=1.4,
                                    connectionstyle="arc3,rad=-0.4", shrinkA=22, shrinkB=22))
    ax.set_title(title, fontsize=9.5)
    ax.set_xlim(-0.6, 3.6)
    ax.set_ylim(-1.75, 1.6)
    ax.axis("off")
    return ax


def plot_designs():
    """The three designs' graphs, two a row, and their key; returns the Figure."""
    # two rows (the fourth slot holds the key): side by side, the three graphs outgrew the
    # book's column, which draws a figure of about 9 in at 0.7 of its size or more
    fig, axes = plt.subplots(2, 2, figsize=(8.6, 6.6))
    axes = axes.ravel()
    axes[3].axis("off")
    for ax, d in zip(axes, GRAPH_DESIGNS):
        draw_design_graph(d, ax)
    axes[3].text(0.05, 0.5, "solid: a path the design leaves open\nfaint dashed: a path the design cuts\n\n"
                 "red: through R (redlining proxy)\nblue: through B (business necessity)",
                 ha="left", va="center", fontsize=9, transform=axes[3].transAxes)
    fig.tight_layout()
    return fig


def plot_table1(ours: pd.DataFrame, published: pd.DataFrame, ax=None):
    """Callback rates by race in each Table 1 sample: ours (bars, from the data) vs the
    published percentages (black ticks)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.8))
    ys = np.arange(len(ours))
    h = 0.38
    ax.barh(ys - h / 2, ours["white_pct"], height=h, color="#7f7f7f", label="White names (ours, from the data)")
    ax.barh(ys + h / 2, ours["black_pct"], height=h, color="#d08c00", label="Black names (ours, from the data)")
    pub = published.reindex(ours.index)
    ax.scatter(pub["white_pct"], ys - h / 2, marker="|", s=260, color="black", zorder=3, label="published (B&M Table 1)")
    ax.scatter(pub["black_pct"], ys + h / 2, marker="|", s=260, color="black", zorder=3)
    ax.set_yticks(ys)
    ax.set_yticklabels(ours.index)
    ax.invert_yaxis()
    ax.set_xlabel("callback rate (%)")
    ax.set_title("Bertrand & Mullainathan Table 1: recomputed from the shipped data vs published", fontsize=10)
    # below the axes, off the bars (beside them, the figure outgrew the book's column)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    return ax


def plot_gaps(gaps: pd.DataFrame, ax=None, *, title: str | None = None):
    """Gaps (x1 − x0, percentage points) with 95% CIs, one row per (attribute, source)."""
    t = gaps.reset_index(drop=True)
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 0.5 * len(t) + 1.4))
    ys = np.arange(len(t))
    lab = [f"{r.attribute} ({r.contrast}): {r.source}" for r in t.itertuples()]
    colours = ["black" if "recruiters" in s and "minus" not in s else ("#888888" if "minus" in s else "#1f5fbf")
               for s in t["source"]]
    for y, r, c in zip(ys, t.itertuples(), colours):
        ax.errorbar([r.gap_pp], [y], xerr=[[r.gap_pp - r.gap_ci_low_pp], [r.gap_ci_high_pp - r.gap_pp]],
                    fmt="none", ecolor=c, capsize=3)
    ax.scatter(t["gap_pp"], ys, c=colours, zorder=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels(lab, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("callback gap, percentage points (95% CI, cluster-robust by ad)")
    ax.set_title(title or "Callback gaps: recruiters (B&M callbacks) vs screeners (ours)", fontsize=10)
    return ax


def plot_name_peaks(check: pd.DataFrame, ax=None):
    """Each B&M name's SSA peak year (largest share of births of its sex), by race and sex."""
    t = check.sort_values(["race", "sex", "peak_year"])
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 7))
    ys = np.arange(len(t))
    col = {"White": "#7f7f7f", "Black": "#d08c00"}
    ax.scatter(t["peak_year"], ys, c=[col[r] for r in t["race"]], marker="o")
    ax.axvspan(1974, 1979, color="#1f5fbf", alpha=0.12, label="birth years B&M drew names from (1974-79)")
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{n} ({r}, {s})" for n, r, s in zip(t.index, t["race"], t["sex"])], fontsize=7.5)
    ax.set_xlabel("SSA peak year (ours, from the national SSA counts 1880-2017)")
    for r, c in col.items():
        ax.scatter([], [], c=c, label=f"{r}-sounding (B&M's label)")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("When each B&M first name peaked", fontsize=10)
    return ax


def _alone(draw, figsize, *args, **kwargs):
    """``draw(*args, ax=..., **kwargs)`` on its own Figure of ``figsize``, laid out; returns the Figure."""
    fig, ax = plt.subplots(figsize=figsize)
    draw(*args, ax=ax, **kwargs)
    fig.tight_layout()
    return fig


def table1_figure(ours: pd.DataFrame, published: pd.DataFrame):
    """:func:`plot_table1` on its own Figure; returns the Figure."""
    return _alone(plot_table1, (8.4, 4.4), ours, published)


def name_peaks_figure(check: pd.DataFrame):
    """:func:`plot_name_peaks` on its own Figure; returns the Figure."""
    return _alone(plot_name_peaks, (8, 7.5), check)


def gaps_figure(gaps: pd.DataFrame, *, title: str):
    """:func:`plot_gaps` on its own Figure, ``title`` saying whose gaps; returns the Figure."""
    return _alone(plot_gaps, (7.6, 4.4), gaps, title=title)


def gaps_by_run(gaps: pd.DataFrame, *, run: str = "run"):
    """:func:`plot_gaps` once per value of ``run`` (one panel each, in order of appearance),
    titled with the run's name and its number of résumés (column ``n``); returns the Figure."""
    groups = list(gaps.groupby(run, sort=False))
    fig, axes = plt.subplots(len(groups), 1, figsize=(7.6, 3.9 * len(groups)), squeeze=False)
    for ax, (name, g) in zip(axes[:, 0], groups):
        plot_gaps(g, ax, title=f"{name}, {int(g['n'].iloc[0]):,} résumés:\nrecruiters (B&M callbacks) vs screener (ours)")
    fig.tight_layout()
    return fig


_SFM_POS = {"X": (0, 0), "Z": (1.5, 1.1), "W": (1.5, -1.0), "Y": (3, 0)}
_SFM_PLAIN = [("X", "Y"), ("X", "W"), ("W", "Y"), ("Z", "W"), ("Z", "Y")]


def draw_sfm(ax=None, *, title: str = "(a) Standard Fairness Model"):
    """The Standard Fairness Model (X, Z, W, Y; X ↔ Z dashed), in the style of
    :func:`draw_design_graph`; returns the Axes."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 3.6))
    g = nx.DiGraph(_SFM_PLAIN)
    nx.draw_networkx_nodes(g, _SFM_POS, ax=ax, node_size=2300, node_color="#f3f0e8", edgecolors=GREY)
    nx.draw_networkx_labels(g, _SFM_POS, ax=ax, font_size=9.5, font_weight="bold")
    nx.draw_networkx_edges(g, _SFM_POS, edgelist=_SFM_PLAIN, ax=ax, node_size=2300, arrowsize=16, width=2.2,
                           edge_color=GREY)
    return _finish_graph(ax, _SFM_POS, title)


def plot_causal_graphs():
    """Chapter 00's Figure 2: (a) the Standard Fairness Model and (b) its mediators split into
    B (blue paths) and R (red paths), the PopResume design of :func:`draw_design_graph`;
    returns the Figure."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.0))
    draw_sfm(axes[0])
    draw_design_graph("popresume", axes[1])
    axes[1].set_title("(b) mediators split into B (blue) and R (red)", fontsize=9.5)
    fig.tight_layout()
    return fig
