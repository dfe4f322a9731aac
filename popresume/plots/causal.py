"""Plots of path-specific effects (PopResume Figure 4) and of the coverage study.

``plot_effects`` is the package's one effects panel (bars for one audit, dodged points for
several, one significance encoding) and ``plot_figure4`` its one Figure 4;
``popresume.plots.audit`` builds its grid figures from them.

Every function takes a tidy table and returns the matplotlib Axes (or Figure for a grid).
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.causal.cases import CASES
from popresume.causal.effects import is_long, long_form, significant, to_wide
from popresume.schema import PSE_NAMES

_COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]

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


def case_examples(table: pd.DataFrame, labels_column: str = "cases") -> pd.DataFrame:
    """One representative row per case C1..C5 (the first audit labelled with that case alone if possible)."""
    lab = table[labels_column].fillna("-").astype(str).str.replace(" ", "", regex=False)
    rows = []
    for c in CASES:
        alone = table[lab == c]
        anyc = table[lab.str.split(",").map(lambda xs, c=c: c in xs)]
        pick = alone if len(alone) else anyc
        if len(pick):
            rows.append(pick.iloc[[0]].assign(example_case=c))
    return pd.concat(rows, ignore_index=True) if rows else table.iloc[:0].assign(example_case=pd.Series(dtype="str"))


def case_panels(table: pd.DataFrame, labels_column: str = "cases") -> list[tuple[str, str, str, str, str]]:
    """Figure 4 panels (case title, attribute, occupation, format, model) for one example audit per case."""
    ex = case_examples(table, labels_column)
    if ex.empty:
        raise ValueError(f"no audit in the table carries a case label in column {labels_column!r}")
    return [(f"Case {r['example_case'][1:]}", r["attribute"], r["occupation"], r["format"], r["model"])
            for _, r in ex.iterrows()]


def _bars(t: pd.DataFrame, sig: np.ndarray, ax, *, offset: float, width: float, color, legend_label):
    xs = np.arange(len(t)) + offset
    colors = [color or EFFECT_COLORS[e] for e in t.index]
    bars = ax.bar(xs, t["estimate"], width=width, color=colors, edgecolor="black", linewidth=0.6,
                  label=legend_label)
    for bar, s in zip(bars, sig):
        if not s:
            bar.set_hatch("///")
            bar.set_alpha(0.55)
    ax.errorbar(xs, t["estimate"], yerr=[t["estimate"] - t["ci_low"], t["ci_high"] - t["estimate"]],
                fmt="none", ecolor="black", capsize=3, linewidth=1)


def _points(rows: pd.DataFrame, effects, ax, *, names: list[str], signed_zero: bool):
    n = max(len(rows), 1)
    offs = (np.arange(n) - (n - 1) / 2) * (0.8 / n)
    x = np.arange(len(effects))
    for i, (_, row) in enumerate(rows.reset_index(drop=True).iterrows()):
        est = np.array([float(row[f"{e}_estimate"]) for e in effects])
        lo = np.array([float(row[f"{e}_ci_low"]) for e in effects])
        hi = np.array([float(row[f"{e}_ci_high"]) for e in effects])
        sig = significant(lo, hi, signed_zero=signed_zero)
        color = _COLORS[i % len(_COLORS)]
        ax.errorbar(x + offs[i], est, yerr=[est - lo, hi - est], fmt="none", ecolor=color, capsize=2, lw=1.2,
                    label=names[i])
        ax.scatter(x[sig] + offs[i], est[sig], color=color, s=22, zorder=3)
        ax.scatter(x[~sig] + offs[i], est[~sig], facecolor="white", edgecolor=color, s=22, zorder=3)


def plot_effects(table: pd.DataFrame, ax=None, *, title: str | None = None, label: str | None = None,
                 offset: float = 0.0, width: float = 0.6, color=None, legend_label: str | None = None,
                 by: str | None = None, labels=None, legend: bool = True, effects=PSE_NAMES,
                 signed_zero: bool = False, truth: pd.Series | None = None):
    """TE, NDE, NIE, BIE, RIE with their CIs: one panel of Figure 4 (the package's one effects panel).

    One audit (``estimate_pse``'s long table or one row of the wide table) and no ``by``:
    bars with CI whiskers, in Figure 4's colours; ``label`` is the x-axis label and
    ``offset``/``width``/``color`` let two audits share an Axes. Several audits (wide rows)
    or ``by`` (the column naming each row in the legend; ``labels`` overrides the names):
    one dodged point per audit and effect. Either way the significance encoding is the
    same: an effect whose CI excludes 0 (``popresume.causal.significant``; ``signed_zero``
    for printed ±0.000 bounds) is drawn solid, the others hatched (bars) or hollow (points).
    ``truth`` (one audit; indexed by effect, e.g. the synthetic screener's true effects) is
    drawn as red crosses beside the bars. An effect with no interval (not estimable) has no
    whisker.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(3.4, 2.6) if by is None and len(table) <= 5 else (6, 3.2))
    effects = list(effects)
    if by is None and labels is None and (is_long(table) or len(table) == 1):
        t = long_form(table).loc[effects]
        _bars(t, significant(t["ci_low"], t["ci_high"], signed_zero=signed_zero), ax, offset=offset, width=width,
              color=color, legend_label=legend_label)
        ax.set_ylabel("Effect value")
        if label:
            ax.set_xlabel(label)
        if truth is not None:
            tv = pd.to_numeric(pd.Series(truth).reindex(effects), errors="coerce").to_numpy(float)
            if np.isfinite(tv).any():
                ax.plot(np.arange(len(effects)) + offset, tv, "x", color="#c0392b", ms=8, mew=2, zorder=4,
                        label="true effect")
                if legend:
                    ax.legend(fontsize=7, frameon=False)
    else:
        rows = to_wide(table)
        by = by or "model"
        names = list(labels) if labels is not None else [
            str(r[by]) if by in rows.columns else f"row {i}" for i, (_, r) in enumerate(rows.iterrows())]
        _points(rows, effects, ax, names=names, signed_zero=signed_zero)
        ax.set_ylabel("effect on score (x1 − x0)")
        if legend and len(rows):
            ax.legend(fontsize=7, frameon=False)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(np.arange(len(effects)))
    ax.set_xticklabels(effects)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_figure4(table: pd.DataFrame, panels=None, *, ncols: int = 2, labels_column: str | None = None):
    """PopResume Figure 4: one panel per case, each one audit's five effects; returns the Figure.

    ``panels``: (case title, attribute, occupation, format, model) per panel; default the
    paper's six (``FIGURE4_PANELS``, for the published table), or with ``labels_column``
    one example audit per case found in ``table`` (``case_panels``).
    """
    if panels is None:
        panels = case_panels(table, labels_column) if labels_column else FIGURE4_PANELS
    nrows = int(np.ceil(len(panels) / ncols))
    # two panels a row by default: the book's column holds about 9 in drawn at 0.7 of its size
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.9 * ncols, 2.9 * nrows), squeeze=False)
    for ax, (case, attr, occ, fmt, model) in zip(axes.ravel(), panels):
        row = table[(table["attribute"] == attr) & (table["occupation"] == occ)
                    & (table["format"] == fmt) & (table["model"] == model)]
        if len(row) != 1:
            raise ValueError(f"Figure 4 panel {case}: {len(row)} rows for {attr}/{occ}/{fmt}/{model}")
        plot_effects(row.iloc[[0]], ax, title=f"{occ}\n{model} [{fmt}]", label=case)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def _dodged(table: pd.DataFrame) -> tuple[list, list, float]:
    """Methods (in order of appearance), the effects present, and the width of one dodged bar/box."""
    methods = list(dict.fromkeys(table["method"]))
    effects = [e for e in PSE_NAMES if e in set(table["effect"])]
    return methods, effects, 0.8 / max(1, len(methods))


def plot_coverage(coverage: pd.DataFrame, ax=None, *, nominal: float = 0.95, n_reps: int | None = None):
    """Coverage of the CIs per effect and method, with the nominal level and a binomial band.

    ``coverage``: tidy table with columns effect, method, coverage (and optionally n_reps).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3))
    methods, effects, w = _dodged(coverage)
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
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), title="method")  # beside the bars, never on them
    return ax


def plot_estimates_vs_truth(estimates: pd.DataFrame, truth: pd.Series, ax=None):
    """Sampling distribution of each effect's estimates (box per effect × method), truth as dots.

    ``estimates``: tidy table with columns effect, method, estimate (one row per replicate).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    methods, effects, w = _dodged(estimates)
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


# the toy SCM's bars: the outcome gap grey, TE/NDE/NIE neutral, BIE blue and RIE red as in Figure 2b
_GAP_COLOURS = ["#888888", "#444444", "#e08a00", "#7b1fa2", "#1f5fbf", "#c62828"]


def plot_gap_and_effects(gap: float, effects: pd.DataFrame, *, gap_label: str = "TV\n(outcome gap)"):
    """The observed outcome gap beside the five exact path-specific effects (bars), with the
    effects estimated from simulated counterfactuals and their 95% Monte-Carlo intervals (points).

    ``effects``: indexed by effect (TE, NDE, NIE, BIE, RIE), columns ``exact``, ``simulated``
    and ``mc_se``. Returns the Figure.
    """
    bars_of = pd.concat([pd.Series({gap_label: gap}), effects["exact"]])
    fig, ax = plt.subplots(figsize=(9, 3.6))
    bars = ax.bar(bars_of.index, bars_of.to_numpy(float), color=_GAP_COLOURS[:len(bars_of)])
    bars[0].set_label("observed outcome gap (TV, ours: simulated data)")
    bars[1].set_label("exact effect (bars, one colour per path)")
    ax.errorbar(list(effects.index), effects["simulated"], yerr=1.96 * effects["mc_se"], fmt="o", color="black",
                ms=4, capsize=3, label="effect from simulated counterfactuals (95% MC interval)")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("score difference, $x_1$ vs $x_0$")
    ax.set_title("Toy SCM: the outcome gap and the five path-specific effects")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def plot_rows_by_model(table: pd.DataFrame, rows, *, ylabel: str, wrap: int = 18):
    """Grouped bars: the chosen ``rows`` of ``table`` (one bar colour each) for every column
    (one model per group, its name wrapped at ``wrap`` characters); returns the Figure."""
    shown = table.loc[list(rows)].T
    shown.index = [textwrap.fill(str(name), wrap) for name in shown.index]
    fig, ax = plt.subplots(figsize=(8, 3.4))
    shown.plot.bar(ax=ax, rot=0)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", labelsize=8)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig


def plot_effects_with_truth(table: pd.DataFrame, truth: pd.Series, *, title: str):
    """One sample's five effects with their CIs (:func:`plot_effects`) and the true values as
    black diamonds; returns the Figure."""
    fig, ax = plt.subplots(figsize=(5, 3))
    plot_effects(table, ax, title=title)
    ax.scatter(range(len(truth)), truth.to_numpy(float), color="black", marker="D", zorder=5, label="truth")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def coverage_figure(coverage: pd.DataFrame, estimates: pd.DataFrame, truth: pd.Series, *, title: str):
    """:func:`plot_coverage` (top, titled ``title``) over :func:`plot_estimates_vs_truth`
    (bottom); returns the Figure."""
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 6.8))
    plot_coverage(coverage, axes[0])
    axes[0].set_title(title, fontsize=9)
    plot_estimates_vs_truth(estimates, truth, axes[1])
    axes[1].set_title("estimates across samples", fontsize=9)
    fig.tight_layout()
    return fig


def plot_coverage_by_n(rows: pd.DataFrame, *, band: tuple[float, float] = (0.93, 0.97), floor: float = 0.90,
                       title: str | None = None):
    """The coverage harness's rows of one learner and design against n: per effect the coverage
    among the estimable replications with its Wilson interval (left; the band shaded, the 0.90
    floor dashed) and the share called estimable with its Wilson interval (right).

    ``rows``: causal ``coverage`` rows of ``benchmarks/results/coverage.csv`` (columns
    ``quantity``, ``setting`` ending in ``n=<n>``, ``rate``, ``coverage_low``,
    ``coverage_high``, ``estimable_share``, ``estimable_share_low``, ``estimable_share_high``).
    Returns the Figure.
    """
    if rows.empty:
        raise ValueError("plot_coverage_by_n needs at least one coverage row")
    n = rows["setting"].str.extract(r"n=(\d+)$")[0]
    if n.isna().any():
        raise ValueError(f"setting without a trailing 'n=<n>': {rows['setting'][n.isna()].iloc[0]!r}")
    tab = rows.assign(n=n.astype(int))
    sizes = sorted(tab["n"].unique())
    effects = [e for e in PSE_NAMES if e in set(tab["quantity"])]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2), sharex=True)
    left.axhspan(*band, color="grey", alpha=0.2, label=f"band {band[0]:.2f}-{band[1]:.2f}")
    left.axhline(floor, color="black", linestyle="--", linewidth=1, label=f"floor {floor:.2f}")
    w = 0.8 / len(effects)
    for i, e in enumerate(effects):
        part = tab[tab["quantity"] == e].set_index("n").reindex(sizes)
        x = np.arange(len(sizes)) + (i - (len(effects) - 1) / 2) * w
        for ax, (mid, lo, hi) in ((left, ("rate", "coverage_low", "coverage_high")),
                                  (right, ("estimable_share", "estimable_share_low", "estimable_share_high"))):
            y = part[mid].to_numpy(float)
            err = np.clip(np.vstack([y - part[lo].to_numpy(float), part[hi].to_numpy(float) - y]), 0, None)
            ax.errorbar(x, y, yerr=err, fmt="o", color=EFFECT_COLORS.get(e), label=e, markersize=4, capsize=2)
    for ax, label in ((left, "coverage among estimable\n[Wilson 95%]"), (right, "share called estimable\n[Wilson 95%]")):
        ax.set_xticks(np.arange(len(sizes)))
        ax.set_xticklabels([f"{s:,}" for s in sizes])
        ax.set_xlabel("n")
        ax.set_ylabel(label)
    right.set_ylim(-0.02, 1.02)
    handles, labels = left.get_legend_handles_labels()
    right.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))  # beside, never on points
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig
