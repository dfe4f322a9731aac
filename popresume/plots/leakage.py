"""Figures of the leakage audit ("Beyond the Name"): one function per figure kind.

Each takes a tidy table from :mod:`popresume.leakage.metrics` and returns the Axes.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.leakage.corpus import TIER_LABELS
from popresume.ll144 import FOUR_FIFTHS

_ORDER_TIERS = ["T1", "T2", "T3", "all"]


def _ax(ax):
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    return ax


def _err(df: pd.DataFrame) -> np.ndarray:
    lo = (df["estimate"] - df["ci_low"]).clip(lower=0).fillna(0)
    hi = (df["ci_high"] - df["estimate"]).clip(lower=0).fillna(0)
    return np.vstack([lo.to_numpy(float), hi.to_numpy(float)])


def recovery_by_tier(metrics: pd.DataFrame, *, published: dict[str, float] | None = None, ax=None):
    """Task 1 recovery rate per cue tier and judge (bars, 95% cluster-bootstrap CIs); with
    ``published``, the paper's overall recovery and T3 range drawn as reference marks."""
    require_columns(metrics, ["judge", "tier", "metric", "estimate", "ci_low", "ci_high"], "metrics table")
    d = metrics[(metrics["metric"] == "recovery") & metrics["tier"].isin(_ORDER_TIERS)]
    if d.empty:
        raise ValueError("no 'recovery' rows in the Task 1 metrics table")
    ax = _ax(ax)
    judges = list(dict.fromkeys(d["judge"]))
    w = 0.8 / len(judges)
    x = np.arange(len(_ORDER_TIERS))
    for k, j in enumerate(judges):
        dj = d[d["judge"] == j].set_index("tier").reindex(_ORDER_TIERS)
        ax.bar(x + (k - (len(judges) - 1) / 2) * w, dj["estimate"], w, yerr=_err(dj), capsize=3,
               label=_short(j) + " (ours)")
    if published:
        if "overall_recovery" in published:
            ax.plot([3 - 0.4, 3 + 0.4], [published["overall_recovery"]] * 2, "k--", lw=1.5,
                    label=f"published overall {published['overall_recovery']:.3f}")
        if "t3_recovery_min" in published:
            ax.vlines(2 + 0.45, published["t3_recovery_min"], published["t3_recovery_max"], colors="k", lw=3,
                      label=f"published T3 range {published['t3_recovery_min']:.3f}-{published['t3_recovery_max']:.3f}")
        if "t1_recovery" in published:
            ax.plot([-0.4, 0.4], [published["t1_recovery"]] * 2, "k:", lw=1.5, label="published T1 (all models)")
    ax.set_xticks(x, [TIER_LABELS.get(t, "all tiers") for t in _ORDER_TIERS])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("target-group recovery rate")
    ax.set_title("Task 1: recoverability by cue salience")
    ax.legend(fontsize=7, loc="upper right")
    return ax


def confusion_heatmap(matrix: pd.DataFrame, *, ax=None, title: str = "Task 1 confusion matrix"):
    """Row-normalised confusion matrix (true condition x perceived group) as a heatmap."""
    if matrix.empty:
        raise ValueError("empty confusion matrix")
    ax = _ax(ax)
    im = ax.imshow(matrix.to_numpy(float), vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(range(matrix.shape[1]), [str(c).replace("Cannot determine", "Cannot\ndetermine")
                                           for c in matrix.columns], fontsize=8, rotation=30, ha="right")
    ax.set_yticks(range(matrix.shape[0]), list(matrix.index), fontsize=8)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            v = matrix.iat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7, color="white" if v > 0.6 else "black")
    ax.set_xlabel("perceived group")
    ax.set_ylabel("true condition")
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, fraction=0.04)
    return ax


def verdict_regimes(metrics: pd.DataFrame, *, ax=None):
    """Task 2 tie rate and first-position rate per verdict regime and judge, with CIs."""
    require_columns(metrics, ["judge", "regime", "metric", "estimate", "ci_low", "ci_high"], "metrics table")
    d = metrics[metrics["metric"].isin(["tie_rate", "first_position_rate"])]
    if d.empty:
        raise ValueError("no tie_rate / first_position_rate rows in the Task 2 metrics table")
    ax = _ax(ax)
    regimes = ["Forbidden", "Neutral", "Encouraged"]
    series = [(j, m) for j in dict.fromkeys(d["judge"]) for m in ("tie_rate", "first_position_rate")]
    w = 0.8 / len(series)
    x = np.arange(len(regimes))
    for k, (j, m) in enumerate(series):
        dj = d[(d["judge"] == j) & (d["metric"] == m)].set_index("regime").reindex(regimes)
        ax.bar(x + (k - (len(series) - 1) / 2) * w, dj["estimate"].fillna(0), w, yerr=_err(dj.fillna(0)), capsize=3,
               label=f"{_short(j)}: {m.replace('_', ' ')}", hatch="//" if m == "first_position_rate" else None)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xticks(x, [f"ties {r.lower()}" for r in regimes])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("rate")
    ax.set_title("Task 2: the verdict space decides the outcome")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)
    return ax


def ratio_forest(table: pd.DataFrame, *, value: str = "ratio", label_cols=("regime", "condition"), ax=None,
                 reference: float | None = 1.0, threshold: float | None = FOUR_FIFTHS, title: str | None = None):
    """Forest plot of ratios (or differences, ``value='difference'``) against the comparator,
    one row per comparison, with CIs; the four-fifths line drawn when ``threshold`` is set."""
    require_columns(table, [value, "ci_low", "ci_high", *label_cols], "the plotted table")
    if table.empty:
        raise ValueError("nothing to plot: empty comparison table")
    ax = _ax(ax)
    d = table.reset_index(drop=True)
    y = np.arange(len(d))[::-1]
    est = d[value].to_numpy(float)
    err = np.vstack([(est - d["ci_low"]).clip(lower=0).fillna(0), (d["ci_high"] - est).clip(lower=0).fillna(0)])
    flagged = d["four_fifths_flag"].to_numpy(bool) if "four_fifths_flag" in d else np.zeros(len(d), bool)
    ax.errorbar(est[~flagged], y[~flagged], xerr=err[:, ~flagged], fmt="o", color="C0", capsize=3, label="ours")
    if flagged.any():
        ax.errorbar(est[flagged], y[flagged], xerr=err[:, flagged], fmt="o", color="C3", capsize=3,
                    label="ours, below four-fifths")
    if reference is not None:
        ax.axvline(reference, color="grey", lw=0.8)
    if threshold is not None:
        ax.axvline(threshold, color="C3", lw=0.8, ls="--", label=f"four-fifths rule ({threshold:g})")
    ax.set_yticks(y, [" / ".join(str(d.at[i, c]) for c in label_cols) for i in range(len(d))], fontsize=7)
    ax.set_xlabel(value)
    ax.set_title(title or f"{value} vs Anglo (95% cluster-bootstrap CI)")
    ax.legend(fontsize=7, loc="best")
    return ax


def top_score_rates(table: pd.DataFrame, *, ax=None):
    """Task 3 Top-Score Rate per condition and judge, with CIs."""
    require_columns(table, ["judge", "condition", "estimate", "ci_low", "ci_high"], "the plotted table")
    ax = _ax(ax)
    judges = list(dict.fromkeys(table["judge"]))
    conds = list(dict.fromkeys(table["condition"]))
    w = 0.8 / len(judges)
    x = np.arange(len(conds))
    for k, j in enumerate(judges):
        dj = table[table["judge"] == j].set_index("condition").reindex(conds)
        ax.bar(x + (k - (len(judges) - 1) / 2) * w, dj["estimate"], w, yerr=_err(dj), capsize=3, label=_short(j))
    ax.set_xticks(x, conds, fontsize=8)
    ax.set_ylim(0, 1.05)
    unit = table["unit"].iloc[0] if "unit" in table.columns else "condition"
    ax.set_ylabel("Top-Score Rate (ours)")
    ax.set_title("Task 3: share of variants on their base's top score" if unit == "variant"
                 else "Task 3: share of bases where a condition scores highest")
    ax.legend(title="judge", fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return ax


def _short(judge: str) -> str:
    """A reader's name for a judge id: 'embedding:all-MiniLM-L6-v2@bf16,bs=32|...' is
    'all-MiniLM-L6-v2 (embedding judge)'; the settings after '@' belong to the cache key."""
    kind, _, rest = str(judge).split("|")[0].partition(":")
    model = rest.split("@")[0]
    return f"{model} ({kind} judge)" if model else kind




def two_panels(top, bottom):
    """Two panels one above the other: ``top(ax)`` and ``bottom(ax)`` each draw one of this
    module's figures on the Axes given; returns the Figure."""
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 8.6))
    top(axes[0])
    bottom(axes[1])
    fig.tight_layout()
    return fig


def task1_figure(recovery: pd.DataFrame, confusion: pd.DataFrame, *, published: dict[str, float] | None = None,
                 title: str = "Task 1 confusion (ours, all tiers)"):
    """Task 1: recovery by cue tier beside the published rates (:func:`recovery_by_tier`, top)
    and the confusion of true and perceived group (:func:`confusion_heatmap`, bottom)."""
    return two_panels(lambda ax: recovery_by_tier(recovery, published=published, ax=ax),
                      lambda ax: confusion_heatmap(confusion, ax=ax, title=title))


def task2_figure(verdicts: pd.DataFrame, ratios: pd.DataFrame, *, title: str = "Selection-rate ratio vs Anglo (ours)"):
    """Task 2: verdicts under the three regimes (:func:`verdict_regimes`, top) and the
    selection-rate ratios with their CIs (:func:`ratio_forest`, bottom)."""
    return two_panels(lambda ax: verdict_regimes(verdicts, ax=ax),
                      lambda ax: ratio_forest(ratios, ax=ax, title=title))


def task3_figure(differences: pd.DataFrame, top_rates: pd.DataFrame, *,
                 title: str = "Score difference vs Anglo (ours, points of 100)"):
    """Task 3: score differences against the reference (:func:`ratio_forest` on ``difference``,
    top) and the Top-Score Rate (:func:`top_score_rates`, bottom)."""
    return two_panels(lambda ax: ratio_forest(differences, value="difference", label_cols=("condition",),
                                              reference=0.0, threshold=None, ax=ax, title=title),
                      lambda ax: top_score_rates(top_rates, ax=ax))
