"""Figures of the audit grid (PopResume Figures 4-5) and of the chapter beyond the paper.

Each function takes a tidy table and returns the matplotlib Axes or Figure; nothing
is computed here beyond reshaping. The results table has the layout of
``popresume_published_pse.csv``: keys (attribute, occupation, format, model) and
``{TE,NDE,NIE,BIE,RIE}_{estimate,ci_low,ci_high}``.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.plots.causal import case_examples, case_panels, plot_figure4  # noqa: F401  (case_examples: API)
from popresume.plots.causal import plot_effects as _plot_effects
from popresume.ll144 import FOUR_FIFTHS
from popresume.schema import PSE_NAMES

FORMAT_LABELS = {"text": "text", "image": "image, no photo", "image+photo": "image + photo"}
_COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def plot_effects(rows: pd.DataFrame, *, label: str = "model", effects: Sequence[str] = PSE_NAMES,
                 ax=None, title: str | None = None, legend: bool = True, labels: Sequence[str] | None = None):
    """Several audits in one panel, dodged, named by the column ``label`` (``plots.causal.plot_effects``).

    A filled marker means the CI excludes 0 (the paper's "significant"); hollow, it does not.
    """
    return _plot_effects(rows, ax, by=label, labels=labels, effects=effects, title=title, legend=legend)


def figure4(table: pd.DataFrame, *, attribute: str = "gender", formats: Sequence[str] | None = None,
            occupations: Sequence[str] | None = None):
    """Figure 4 over a whole grid: rows = occupations, columns = formats, models dodged in each panel."""
    t = table[table["attribute"] == attribute]
    if t.empty:
        raise ValueError(f"no rows with attribute {attribute!r} in the results table")
    formats = [f for f in (formats or ["text", "image", "image+photo"]) if f in set(t["format"])]
    occupations = list(occupations or sorted(t["occupation"].unique()))
    # the whole grid no wider than about 9 in: the book's column draws it at 0.7 of its size or more
    width = min(4.2, 8.7 / len(formats))
    fig, axes = plt.subplots(len(occupations), len(formats), figsize=(width * len(formats), 2.8 * len(occupations)),
                             squeeze=False, sharex=True)
    for i, occ in enumerate(occupations):
        for j, fmt in enumerate(formats):
            rows = t[(t["occupation"] == occ) & (t["format"] == fmt)]
            plot_effects(rows, ax=axes[i, j], legend=False, title=f"{occ}\n{FORMAT_LABELS.get(fmt, fmt)}")
            if j:
                axes[i, j].set_ylabel("")
    # one legend per column (a format's models, in the same order and colours in every row),
    # below the bottom panel, so that no legend sits on a panel's data
    fig.suptitle(f"Path-specific effects, attribute = {attribute} (filled: 95% CI excludes 0)", fontsize=10)
    rows_of_names = 1
    for j in range(len(formats)):
        handles: dict = {}
        for ax in axes[:, j]:
            for h, name in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(name, h)
        if handles:
            axes[-1, j].legend(list(handles.values()), list(handles), loc="upper center", fontsize=7, frameon=False,
                               bbox_to_anchor=(0.5, -0.12), ncol=1 if len(handles) > 2 else len(handles))
            rows_of_names = max(rows_of_names, len(handles) if len(handles) > 2 else 1)
    extra = 0.25 + 0.13 * rows_of_names  # inches below the panels for the legends
    fig.set_figheight(fig.get_figheight() + extra)
    fig.tight_layout(rect=(0, extra / fig.get_figheight(), 1, 1))
    return fig


def figure4_cases(table: pd.DataFrame, labels_column: str = "cases"):
    """The paper's Figure 4 layout on any results table: one panel per case, a representative audit each."""
    panels = case_panels(table, labels_column)
    return plot_figure4(table, panels, ncols=min(2, len(panels)))


def photo_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Audits run both as image and as image+photo with the same attribute, occupation and model."""
    k = ["attribute", "occupation", "model"]
    a = table[table["format"] == "image"]
    b = table[table["format"] == "image+photo"]
    return a[k].merge(b[k], on=k).drop_duplicates().reset_index(drop=True)


def plot_photo_pair(table: pd.DataFrame, *, attribute: str, occupation: str, model: str, ax=None):
    """One panel of Figure 5: the same configuration with and without profile photos, side by side."""
    sel = table[(table["attribute"] == attribute) & (table["occupation"] == occupation) & (table["model"] == model)]
    with_p = sel[sel["format"] == "image+photo"]
    without = sel[sel["format"] == "image"]
    if with_p.empty or without.empty:
        raise ValueError(f"no image / image+photo pair for ({attribute!r}, {occupation!r}, {model!r})")
    rows = pd.concat([with_p.iloc[[0]], without.iloc[[0]]], ignore_index=True)
    return plot_effects(rows, ax=ax, labels=["w/ profile photos", "w/o profile photos"],
                        title=f"{occupation}\n{model}, {attribute}")


def figure5(table: pd.DataFrame, pairs: pd.DataFrame | None = None, *, max_panels: int = 6):
    """Figure 5: effects with vs without profile photos, one panel per (attribute, occupation, model)."""
    pairs = photo_pairs(table) if pairs is None else pairs
    if pairs.empty:
        raise ValueError("the results table has no audit run both as 'image' and 'image+photo'")
    pairs = pairs.head(max_panels)
    ncol = min(2, len(pairs))
    nrow = int(np.ceil(len(pairs) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.3 * ncol, 3.2 * nrow), squeeze=False)
    for ax, (_, p) in zip(axes.flat, pairs.iterrows()):
        plot_photo_pair(table, attribute=p["attribute"], occupation=p["occupation"], model=p["model"], ax=ax)
    for ax in list(axes.flat)[len(pairs):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot_nde_photo_shift(table: pd.DataFrame, ax=None):
    """|NDE| without vs with photos for every photo pair (points above the diagonal: photos raise |NDE|)."""
    k = ["attribute", "occupation", "model"]
    a = table[table["format"] == "image"].set_index(k)["NDE_estimate"].abs()
    b = table[table["format"] == "image+photo"].set_index(k)["NDE_estimate"].abs()
    d = pd.concat({"without": a, "with": b}, axis=1, join="inner").reset_index()
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    for i, (att, g) in enumerate(d.groupby("attribute")):
        ax.scatter(g["without"], g["with"], label=att, color=_COLORS[i % len(_COLORS)], s=18)
    m = float(max(d["without"].max(), d["with"].max(), 1e-9)) * 1.05
    ax.plot([0, m], [0, m], color="0.5", lw=0.8, ls="--")
    ax.set_xlabel("|NDE| without photo")
    ax.set_ylabel("|NDE| with photo")
    ax.legend(fontsize=8, frameon=False)
    return ax


def plot_case_counts(counts: pd.DataFrame, ax=None, title: str | None = None):
    """Grouped bars: audits per case (rows) under each significance rule (columns: none/holm/bh)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    names = {"none": "CI excludes 0 (paper)", "holm": "Holm", "bh": "Benjamini–Hochberg", "paper": "printed labels"}
    n = counts.shape[1]
    x = np.arange(len(counts))
    w = 0.8 / n
    for j, col in enumerate(counts.columns):
        bars = ax.bar(x + (j - (n - 1) / 2) * w, counts[col].to_numpy(), w, label=names.get(col, col))
        ax.bar_label(bars, fontsize=6)
    ax.set_xticks(x, list(counts.index))
    ax.set_ylabel("audits")
    ax.legend(fontsize=7, frameon=False)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_adjusted_p(tests: pd.DataFrame, ax=None, alpha: float = 0.05):
    """Recovered p-values against their Holm and BH adjustments (log scale), with the alpha line.

    p-values below ``floor`` (1e-16, below which a double cannot tell 1 − p from 1) are drawn
    at the floor, and the axis stops at 1: no p-value exceeds it. (Left to autoscale, a log
    axis over p-values down to 1e-300 adds margins of ±15 decades, so it ran up to 1e15 and
    the alpha line was lost.)
    """
    floor = 1e-16
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3.5))
    p = tests["p"].clip(lower=floor)
    # sorted by the unadjusted p itself, not by its clipped value: p-values tied at the floor
    # keep their true order, so the adjusted curves (monotone in that order) do not zig-zag
    order = np.argsort(tests["p"].to_numpy(), kind="stable")
    ax.plot(np.arange(len(p)), p.to_numpy()[order], label="unadjusted", lw=1)
    for col, name in (("p_holm", "Holm"), ("p_bh", "BH")):
        ax.plot(np.arange(len(p)), tests[col].clip(lower=floor).to_numpy()[order], label=name, lw=1)
    ax.axhline(alpha, color="0.3", ls="--", lw=0.8, label=f"α = {alpha:g}")
    ax.set_yscale("log")
    ax.set_ylim(floor / 3, 2)
    ax.set_xlabel("tests, by unadjusted p")
    ax.set_ylabel(f"p-value (below {floor:.0e} drawn at it)")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return ax


def plot_four_fifths(compare: pd.DataFrame, *, effect: str = "NDE", ax=None):
    """Four-fifths selection-rate ratio vs an effect's estimate; colour marks a disagreement."""
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    dis = compare["disagreement"].fillna("").astype(str) != ""
    ratio = compare["four_fifths_ratio"].astype(float)
    ax.scatter(compare.loc[~dis, f"{effect}_estimate"] if f"{effect}_estimate" in compare else [],
               ratio[~dis], color="0.5", s=16, label="agree")
    ax.scatter(compare.loc[dis, f"{effect}_estimate"] if f"{effect}_estimate" in compare else [],
               ratio[dis], color="C3", s=20, label="disagree")
    for y in (FOUR_FIFTHS, 1 / FOUR_FIFTHS):  # the four-fifths band, both directions
        ax.axhline(y, color="0.3", ls="--", lw=0.8)
    ax.axvline(0, color="0.6", lw=0.6)
    ax.set_xlabel(f"{effect} estimate")
    ax.set_ylabel("selection-rate ratio x0 / x1")
    ax.legend(fontsize=7, frameon=False)
    return ax


def literal(label: str) -> str:
    """A user's label drawn as written: every ``$`` escaped, so that matplotlib does not read
    ``$50k-$100k`` or ``White ($^$)`` as mathtext (which draws the first wrongly and fails on the
    second after all the computing). Matplotlib shows ``\\$`` as a literal dollar sign."""
    return str(label).replace("$", r"\$")


def plot_ll144(ratios: pd.DataFrame, ax=None, *, threshold: float = FOUR_FIFTHS):
    """LL144 impact ratios per category and breakdown (the package's one LL144 figure).

    ``ratios``: rows with breakdown, category, impact_ratio and, when known, ``ci_low`` /
    ``ci_high`` (drawn as intervals) and ``excluded`` (a category under 2% of the sample,
    drawn grey). ``unknown`` categories have no ratio and are left out. The four-fifths line
    is dashed.
    """
    d = ratios[ratios["category"].astype(str) != "unknown"].reset_index(drop=True)
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.32 * len(d) + 1.2))
    y = np.arange(len(d))[::-1]
    excluded = d["excluded"].astype(bool).to_numpy() if "excluded" in d else np.zeros(len(d), bool)
    colours = np.where(excluded, "#aaaaaa", "#1f5a94")
    if {"ci_low", "ci_high"} <= set(d.columns):
        ax.hlines(y, d["ci_low"].to_numpy(float), d["ci_high"].to_numpy(float), color=colours)
    ax.scatter(d["impact_ratio"].to_numpy(float), y, color=colours, zorder=3)
    ax.axvline(threshold, color="#c0392b", ls="--", lw=1, label=f"four-fifths ({threshold:g})")
    ax.set_yticks(y, [literal(f"{b}: {c}") for b, c in zip(d["breakdown"], d["category"])], fontsize=7)
    ax.set_xlabel("impact ratio (scoring rate / highest category's)")
    ax.legend(fontsize=7, loc="lower left")
    return ax


def effects_by_attribute(effects: dict, *, figure=None):
    """One :func:`popresume.plots.causal.plot_effects` panel per attribute; returns the Figure.

    ``effects``: attribute -> its effects table (indexed TE..RIE, with estimate, ci_low,
    ci_high and optionally ``truth``, drawn as crosses). ``figure``: a matplotlib Figure to
    draw on (the report draws without pyplot); default a new pyplot figure.
    """
    if figure is None:
        figure = plt.figure()
    figure.set_size_inches(4.2 * len(effects), 3.0)
    axes = figure.subplots(1, len(effects), squeeze=False)[0]
    for ax, (attr, table) in zip(axes, effects.items()):
        truth = table["truth"] if "truth" in table.columns else None
        _plot_effects(table, ax, title=attr, truth=truth, label="score points (positive favours x1)")
    figure.tight_layout()
    return figure


def ll144_figure(ratios: pd.DataFrame, *, figure=None):
    """:func:`plot_ll144` on its own Figure (sized to the categories); returns the Figure."""
    d = ratios[ratios["category"].astype(str) != "unknown"]
    if figure is None:
        figure = plt.figure()
    figure.set_size_inches(7.5, 0.32 * len(d) + 1.2)
    plot_ll144(ratios, figure.subplots())
    figure.tight_layout()
    return figure


def plot_coarsening(table: pd.DataFrame, ax=None, effect: str = "NDE"):
    """NDE (with CI) under the paper's coarse R groups vs finer name information, per screener.

    ``table``: rows with columns screener, mediators ("coarse"/"fine"), and the effect's
    estimate/ci_low/ci_high; ``true_NDE`` if known is drawn as a cross.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3))
    screeners = list(dict.fromkeys(table["screener"]))
    meds = list(dict.fromkeys(table["mediators"]))
    w = 0.8 / max(len(meds), 1)
    for j, m in enumerate(meds):
        sub = table[table["mediators"] == m].set_index("screener").reindex(screeners)
        x = np.arange(len(screeners)) + (j - (len(meds) - 1) / 2) * w
        est = sub[f"{effect}_estimate"].to_numpy(float)
        ax.errorbar(x, est, yerr=[est - sub[f"{effect}_ci_low"].to_numpy(float),
                                  sub[f"{effect}_ci_high"].to_numpy(float) - est],
                    fmt="o", capsize=3, label=f"R = {m}", color=_COLORS[j % len(_COLORS)])
    if "true_NDE" in table:
        tr = table.drop_duplicates("screener").set_index("screener").reindex(screeners)["true_NDE"]
        ax.scatter(np.arange(len(screeners)), tr.to_numpy(float), marker="x", color="k", zorder=4, label="true NDE")
    ax.axhline(0, color="0.4", lw=0.8)
    ax.set_xticks(np.arange(len(screeners)), screeners, fontsize=8)
    ax.set_ylabel(f"{effect} estimate")
    ax.legend(fontsize=7, frameon=False)
    return ax


def _legend_beside(ax) -> None:
    """The panel's legend to the right of the axes, never on the points."""
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def photo_shift_figure(published: pd.DataFrame, ours: pd.DataFrame, *, ours_label: str = "ours (synthetic screener)"):
    """:func:`plot_nde_photo_shift` for the published VLMs (top) and ``ours`` (bottom); returns the Figure."""
    fig, axes = plt.subplots(2, 1, figsize=(7, 6.8))
    for ax, table, title in zip(axes, (published, ours), ("published VLMs", ours_label)):
        plot_nde_photo_shift(table, ax=ax)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def effects_by_occupation(table: pd.DataFrame, *, title: str, label: str = "attribute", ncols: int = 3):
    """One :func:`plot_effects` panel per occupation, ``ncols`` a row (the book's column holds
    about 9 in drawn at 0.7 of its size or more), one shared legend in a free slot of the grid
    or below it; returns the Figure."""
    occs = sorted(table["occupation"].unique())
    ncols = min(ncols, len(occs))
    nrows = -(-len(occs) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.9 * ncols, 3.4 * nrows), squeeze=False)
    axes = axes.ravel()
    for i, (ax, occ) in enumerate(zip(axes, occs)):
        plot_effects(table[table["occupation"] == occ], label=label, ax=ax, title=occ.replace(" ", "\n", 1),
                     legend=False)
        if i % ncols:
            ax.set_ylabel("")
    for ax in axes[len(occs):]:
        ax.axis("off")
    handles, names = axes[0].get_legend_handles_labels()
    free_slot = len(axes) > len(occs)
    if free_slot:
        axes[-1].legend(handles, names, loc="center", frameon=False, fontsize=8)
    else:
        fig.legend(handles, names, loc="lower center", ncol=2, frameon=False, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0 if free_slot else 0.06, 1, 1))
    return fig


def coarsening_figure(table: pd.DataFrame, *, effect: str = "NDE", source: str = "ours",
                      attributes: Sequence[str] | None = None):
    """:func:`plot_coarsening` once per attribute, one above the other in the order of
    ``attributes`` (default: as they appear in ``table``); returns the Figure."""
    attributes = list(dict.fromkeys(table["attribute"])) if attributes is None else list(attributes)
    fig, axes = plt.subplots(len(attributes), 1, figsize=(7.5, 3.5 * len(attributes)), squeeze=False)
    for ax, attr in zip(axes[:, 0], attributes):
        plot_coarsening(table[table["attribute"] == attr], ax=ax, effect=effect)
        ax.set_title(f"{source}, {attr}: {effect} with grouped vs refined R (true {effect} = 0)", fontsize=9)
    fig.tight_layout()
    return fig


def adjusted_p_figure(tests: pd.DataFrame, *, title: str, alpha: float = 0.05):
    """:func:`plot_adjusted_p` on its own Figure with a title saying whose tests they are."""
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    plot_adjusted_p(tests, ax=ax, alpha=alpha)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def case_counts_figure(counts: pd.DataFrame, *, title: str):
    """:func:`plot_case_counts` on its own Figure, the legend beside the bars."""
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    plot_case_counts(counts, ax=ax, title=title)
    _legend_beside(ax)
    fig.tight_layout()
    return fig


def four_fifths_figure(compare: pd.DataFrame, *, title: str, effect: str = "NDE"):
    """:func:`plot_four_fifths` on its own Figure, the legend beside the points."""
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    plot_four_fifths(compare, effect=effect, ax=ax)
    ax.set_title(title, fontsize=9)
    _legend_beside(ax)
    fig.tight_layout()
    return fig


def ll144_titled(ratios: pd.DataFrame, *, title: str):
    """:func:`plot_ll144` on a Figure of the chapters' size, with ``title`` saying whose ratios."""
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    plot_ll144(ratios, ax=ax)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def effects_figure(rows: pd.DataFrame, *, label: str, title: str):
    """:func:`plot_effects` on its own Figure (several audits dodged), the legend beside them."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    plot_effects(rows, label=label, ax=ax, legend=False, title=title)
    _legend_beside(ax)
    fig.tight_layout()
    return fig
