"""The figure layout checker finds overlapping ticks, cut labels and legends on data."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from popresume.plots.layout import check_open_figures, figure_problems  # noqa: E402


def test_a_clean_figure_has_no_problems():
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([0, 1, 2], [0, 1, 0], label="ours (synthetic screener)")
    ax.set_xticks([0, 1, 2], ["a", "b", "c"])
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
    assert figure_problems(fig) == []
    plt.close(fig)


def test_overlapping_tick_labels_are_found():
    fig, ax = plt.subplots(figsize=(3, 2))
    names = [f"a long category name {i}" for i in range(8)]
    ax.bar(range(8), np.arange(8))
    ax.set_xticks(range(8), names)
    problems = figure_problems(fig)
    assert any("x-axis tick labels overlap" in p for p in problems), problems
    # rotating them apart mends it
    ax.set_xticks(range(8), names, rotation=90)
    assert not any("tick labels overlap" in p for p in figure_problems(fig))
    plt.close(fig)


def test_truncated_labels_are_found():
    fig, ax = plt.subplots()
    ax.set_title("synthetic VLM with photo channel (sy…")
    assert any("truncated" in p for p in figure_problems(fig))
    plt.close(fig)


def test_a_legend_on_the_data_is_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 1, 200)
    ax.plot(x, np.ones_like(x), label="ours")
    ax.plot(x, np.zeros_like(x) + 0.98, label="published")
    ax.set_ylim(0.9, 1.05)
    ax.legend(loc="center")
    assert any("legend covers" in p for p in figure_problems(fig))
    ax.legend(loc="lower left")
    assert not any("legend covers" in p for p in figure_problems(fig))
    plt.close(fig)


def test_a_legend_on_bars_is_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar([0, 1, 2, 3], [1, 1, 1, 1], label="ours")
    ax.legend(loc="center")
    assert any("bars" in p for p in figure_problems(fig))
    plt.close(fig)


def test_open_figures_are_reported_as_warnings():
    plt.close("all")
    fig, ax = plt.subplots(num="cut")
    ax.set_xlabel("share of women (ours, synth…")
    out = io.StringIO()
    found = check_open_figures(out)
    assert found and out.getvalue().startswith("FigureLayoutWarning: cut:")
    plt.close("all")


def test_text_of_neighbouring_axes_that_overlaps_is_found():
    fig, axes = plt.subplots(1, 2, figsize=(5, 2.5))
    axes[0].set_title("Selection-rate ratio vs Anglo, forced choice, every regime (ours)")
    axes[1].set_yticks([0, 1], ["a long tick label", "another long one"])
    problems = figure_problems(fig)
    assert any("overlaps" in p for p in problems), problems
    fig.set_size_inches(16, 3)
    fig.tight_layout()
    assert not any("overlaps" in p for p in figure_problems(fig))
    plt.close(fig)


def test_rotated_labels_are_measured_along_their_direction():
    fig, ax = plt.subplots(figsize=(4, 3))
    names = ["Anglo", "First Nations", "Chinese", "Indian", "Vietnamese", "Cannot\ndetermine"]
    ax.imshow(np.eye(6))
    ax.set_xticks(range(6), names, rotation=30, ha="right", fontsize=8)
    assert figure_problems(fig) == []  # their axis-aligned boxes overlap, the text does not
    ax.set_xticks(range(6), [n * 3 for n in names], rotation=5, ha="right", fontsize=8)
    assert any("tick labels overlap" in p for p in figure_problems(fig))
    plt.close(fig)


def test_a_legend_on_a_step_histogram_is_found():
    rng = np.random.default_rng(0)
    fig, ax = plt.subplots(figsize=(4, 3))
    for k in range(3):
        ax.hist(rng.uniform(18, 45, 2000), bins=25, histtype="step", density=True, label=f"group {k}")
    ax.set_ylim(0, 0.074)  # the densities (about 0.037) run through the middle
    ax.legend(loc="center")
    assert any("legend covers" in p for p in figure_problems(fig))
    ax.set_ylim(0, 0.12)
    ax.legend(loc="upper left", ncols=3, fontsize=7)
    assert not any("legend covers" in p for p in figure_problems(fig))
    plt.close(fig)


def test_ticks_beyond_the_limits_are_not_checked():
    """Labels of tick locations just outside the view limits are never drawn, so they cannot collide."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from popresume.plots.layout import figure_problems

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(3, 2.2))
    top.plot([0, 1], [-3.9, 3.9])
    top.set_ylim(-3.9, 3.9)  # the locator also yields −6 and 6, just outside, with labels
    bottom.plot([0, 1], [-3.9, 3.9])
    bottom.set_ylim(-3.9, 3.9)
    fig.subplots_adjust(hspace=0.05)
    assert figure_problems(fig) == []
    plt.close(fig)


def test_a_figure_title_over_panel_titles_is_found():
    fig, axes = plt.subplots(1, 2, figsize=(6, 2.5))
    for ax in axes:
        ax.set_title("panel title (ours)")
    fig.suptitle("a figure-wide title", y=0.93)
    assert any("the figure title" in p for p in figure_problems(fig))
    fig.suptitle("a figure-wide title")
    fig.tight_layout()
    assert not any("the figure title" in p for p in figure_problems(fig))
    plt.close(fig)
