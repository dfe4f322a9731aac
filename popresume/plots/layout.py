"""Layout checks for the book's figures: overlapping labels, truncated text, legends on data.

A figure whose tick labels run into each other, whose label was cut to "…", or whose legend
sits on the data cannot be read, and nobody notices in a build log. ``figure_problems``
measures a drawn Matplotlib figure (the renderer's own text extents, in pixels) and says
what is wrong, in words. ``install_figure_check`` runs it on every figure an IPython kernel
is about to show and writes each problem to stderr as a ``FigureLayoutWarning``; the book's
rendering tests fail on any warning shown on a page. The module is an IPython extension
(:func:`load_ipython_extension`): the book build loads it in every chapter's kernel through
the kernel configuration ``book/_ipython/profile_default/ipython_kernel_config.py``
(``IPYTHONDIR=book/_ipython``, see the Makefile), so a reader's own kernel is left alone and
importing popresume changes nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.text import Text

TRUNCATION_MARKS = ("…", "...")
# pixels two tick labels may share before they count as overlapping (antialiasing, kerning)
OVERLAP_TOLERANCE_PX = 1.0
# a legend "covers data" when it hides at least this many plotted points or this share of a bar
LEGEND_POINTS = 3
LEGEND_BAR_SHARE = 0.05


def _visible_texts(artists: Iterable) -> list:
    return [t for t in artists if t is not None and t.get_visible() and t.get_text().strip()]


def _drawn_ticklabels(axis) -> list:
    """The tick labels Matplotlib draws: those of ticks inside the view limits.

    ``Axis.get_ticklabels`` also returns labels of tick locations just beyond the limits,
    which are never drawn but keep a position outside the axes (where they would collide
    with a neighbouring panel's labels); ``_update_ticks`` is Matplotlib's own selection.
    """
    try:
        ticks = axis._update_ticks()
    except AttributeError:  # a Matplotlib without the private helper: keep every label
        return list(axis.get_ticklabels(which="both"))
    return [lab for t in ticks for lab in (t.label1, t.label2)]


def _overlap(a, b, tol: float = OVERLAP_TOLERANCE_PX) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > tol) and (min(a.y1, b.y1) - max(a.y0, b.y0) > tol)


def _text_box(text, renderer) -> tuple[float, float, float, float, float]:
    """(centre x, centre y, width, height, angle in radians) of a text as drawn, in pixels.

    Rotated tick labels have axis-aligned extents that overlap long before their glyphs do;
    the rectangle along the text's own direction is what can collide. Its centre is the
    centre of the axis-aligned extent; its size is measured line by line.
    """
    box = text.get_window_extent(renderer)
    lines = text.get_text().split("\n")
    prop, ismath = text.get_fontproperties(), ("TeX" if text.get_usetex() else False)
    w = max(renderer.get_text_width_height_descent(s or " ", prop, ismath)[0] for s in lines)
    line_h = renderer.get_text_width_height_descent("Ag", prop, False)[1]
    h = line_h * (1 + 1.2 * (len(lines) - 1))  # Matplotlib's default line spacing is 1.2
    return (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2, w, h, np.deg2rad(text.get_rotation())


def _labels_collide(a, b, tol: float = OVERLAP_TOLERANCE_PX) -> bool:
    """Two same-angle rectangles from ``_text_box`` overlap (separating-axis test)."""
    (xa, ya, wa, ha, t), (xb, yb, wb, hb, _) = a, b
    dx, dy = xb - xa, yb - ya
    along = abs(dx * np.cos(t) + dy * np.sin(t))
    across = abs(-dx * np.sin(t) + dy * np.cos(t))
    return along < (wa + wb) / 2 - tol and across < (ha + hb) / 2 - tol


def _tick_overlaps(ax, renderer, axis_name: str) -> list[str]:
    axis = ax.xaxis if axis_name == "x" else ax.yaxis
    labels = _visible_texts(_drawn_ticklabels(axis))
    boxes = [(t.get_text(), _text_box(t, renderer)) for t in labels]
    boxes.sort(key=lambda tb: tb[1][0] if axis_name == "x" else tb[1][1])
    clashes = [
        f"{boxes[i][0]!r} / {boxes[i + 1][0]!r}"
        for i in range(len(boxes) - 1)
        if _labels_collide(boxes[i][1], boxes[i + 1][1])
    ]
    if not clashes:
        return []
    return [f"{_axes_name(ax)}: {axis_name}-axis tick labels overlap ({len(clashes)} pairs, e.g. {clashes[0]})"]


def _axes_name(ax) -> str:
    title = ax.get_title() or ax.get_xlabel() or ax.get_ylabel()
    return f"axes '{title[:60]}'" if title else "axes"


def _data_points_px(ax) -> np.ndarray:
    """Display coordinates of every plotted point (lines and scatter collections)."""
    pts = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
        if line.get_linestyle() not in ("None", "", " ") and len(xy) < 2000:
            xy = _sample_edges(xy)
        pts.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        offsets = np.asarray(coll.get_offsets(), float)
        if coll.get_visible() and offsets.ndim == 2 and len(offsets) and offsets.shape[1] == 2:
            pts.append(coll.get_offset_transform().transform(offsets))
    if not pts:
        return np.empty((0, 2))
    out = np.vstack(pts)
    return out[np.isfinite(out).all(axis=1)]


def _sample_edges(xy: np.ndarray, k: int = 8) -> np.ndarray:
    """Points along the segments of a polyline (a drawn line covers its edges, not only its vertices)."""
    if len(xy) < 2:
        return xy
    t = np.linspace(0, 1, k)[:, None, None]
    return (xy[:-1][None] * (1 - t) + xy[1:][None] * t).reshape(-1, 2)


def _patch_outlines(ax) -> list[np.ndarray]:
    """Display coordinates along the outline of every non-rectangular patch (step histograms,
    filled areas), which are data as much as a line is."""
    out = []
    for patch in ax.patches:
        if patch.get_visible() and not isinstance(patch, Rectangle):
            out.append(_sample_edges(patch.get_transform().transform(patch.get_path().vertices)))
    return out


def _legend_covers_data(ax, renderer) -> list[str]:
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return []
    box = legend.get_window_extent(renderer)
    axes_box = ax.get_window_extent(renderer)
    if not _overlap(box, axes_box, tol=0):  # placed outside the axes
        return []
    pts = np.vstack([_data_points_px(ax), *_patch_outlines(ax)])
    inside = int(((pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)).sum())
    covered_bars = 0
    for patch in ax.patches:
        if not patch.get_visible() or not isinstance(patch, Rectangle):
            continue
        pb = patch.get_window_extent(renderer)
        area = max(pb.width * pb.height, 1e-9)
        ix = max(0.0, min(pb.x1, box.x1) - max(pb.x0, box.x0))
        iy = max(0.0, min(pb.y1, box.y1) - max(pb.y0, box.y0))
        if pb.width > 0 and pb.height > 0 and ix * iy / area >= LEGEND_BAR_SHARE:
            covered_bars += 1
    if inside >= LEGEND_POINTS or covered_bars:
        what = []
        if inside >= LEGEND_POINTS:
            what.append(f"{inside} plotted points")
        if covered_bars:
            what.append(f"{covered_bars} bars")
        return [f"{_axes_name(ax)}: the legend covers {' and '.join(what)}"]
    return []


def _axes_texts(ax) -> list:
    """Every visible text an axes draws outside its data area: title, axis labels, tick labels."""
    texts = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
    texts += _drawn_ticklabels(ax.xaxis) + _drawn_ticklabels(ax.yaxis)
    return _visible_texts(texts)


def _text_clashes_between_axes(fig, renderer) -> list[str]:
    """Text of one axes drawn over text of another (a title under its neighbour's tick labels)."""
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    groups = [(_axes_name(ax), _axes_texts(ax)) for ax in axes]
    # the figure's own texts (suptitle, fig.text) clash with any axes' texts too
    groups.append(("the figure title", _visible_texts([fig._suptitle, fig._supxlabel, fig._supylabel, *fig.texts])))
    boxes = [(name, [(t.get_text(), t.get_window_extent(renderer)) for t in texts]) for name, texts in groups]
    problems = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            for si, bi in boxes[i][1]:
                clash = next((sj for sj, bj in boxes[j][1] if _overlap(bi, bj)), None)
                if clash is not None:
                    problems.append(f"{boxes[i][0]} and {boxes[j][0]}: text {si[:40]!r} overlaps {clash[:40]!r}")
                    break
    return problems


def figure_problems(fig) -> list[str]:
    """What makes ``fig`` hard to read, one sentence each; [] when nothing is found.

    Checked: tick labels of one axis that overlap each other, text of one axes drawn over
    text of another, text that ends in an ellipsis (a label cut short), and a legend inside
    the axes that hides plotted points or bars. The figure is drawn once with its own renderer to measure text.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems: list[str] = []
    for text in _visible_texts(fig.findobj(Text)):
        s = text.get_text().strip()
        if s.endswith(TRUNCATION_MARKS) or any(f"{m}{c}" in s for m in TRUNCATION_MARKS for c in ")]"):
            problems.append(f"truncated text {s[-60:]!r}")
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison:
            continue
        problems += _tick_overlaps(ax, renderer, "x")
        problems += _tick_overlaps(ax, renderer, "y")
        problems += _legend_covers_data(ax, renderer)
    problems += _text_clashes_between_axes(fig, renderer)
    return problems


def check_open_figures(stream=None) -> list[str]:
    """Run ``figure_problems`` on every open pyplot figure; write each problem to ``stream``."""
    import matplotlib.pyplot as plt  # here, not at the top: importing this module must not pick a figure backend

    stream = sys.stderr if stream is None else stream
    found = []
    for num in plt.get_fignums():
        fig = plt.figure(num)
        label = fig.get_label() or (fig._suptitle.get_text() if fig._suptitle else "") or f"figure {num}"
        for problem in figure_problems(fig):
            found.append(f"{label}: {problem}")
    for line in found:
        stream.write(f"FigureLayoutWarning: {line}\n")
    return found


def load_ipython_extension(ipython) -> None:
    """IPython's entry point (``%load_ext popresume.plots.layout``, or the book's kernel config)."""
    install_figure_check()


def install_figure_check() -> bool:
    """In an IPython kernel, check every figure before the inline backend shows it.

    Figures reach the page two ways: left open at the end of a cell (the inline backend's
    ``flush_figures`` post-execute callback shows and closes them) or through an explicit
    ``plt.show()`` inside the cell. The check is put first among the post-execute callbacks
    and wrapped around ``pyplot.show``, so it sees both before they are closed. Returns
    False outside IPython.
    """
    try:
        from IPython import get_ipython  # the book extra (IPython comes with ipykernel)
    except ImportError:  # pragma: no cover - IPython ships with the book extra
        return False
    ip = get_ipython()
    if ip is None:
        return False
    callbacks = ip.events.callbacks["post_execute"]
    if not any(getattr(cb, "__name__", "") == "_popresume_figure_check" for cb in callbacks):

        def _popresume_figure_check():
            check_open_figures()

        callbacks.insert(0, _popresume_figure_check)
    import matplotlib.pyplot as plt  # here, not at the top: importing this module must not pick a figure backend

    if not getattr(plt.show, "_popresume_checked", False):
        show = plt.show

        def checked_show(*args, **kwargs):
            check_open_figures()
            return show(*args, **kwargs)

        checked_show._popresume_checked = True
        plt.show = checked_show
    return True
