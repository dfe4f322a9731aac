"""The audit report as one self-contained HTML file: the page around an :class:`AuditReport`.

:func:`render_html` wraps the body that the :class:`popresume.audit.report_model.AuditReport`
renders (each section its own part, :meth:`~popresume.audit.report_model.Section.to_html`)
in the page, and this module holds the primitives the sections format with: a table of
records, a number in a cell, a figure as a data URI, the verdict column (no statistic is
decided here: significance, estimability and the chance bounds are columns of the sections).
Figures are drawn by :mod:`popresume.plots` and embedded as PNG ``data:`` URIs, the style sheet is inline,
nothing is fetched (no script, no font, no CDN), and a print style sheet keeps tables and
figures whole on paper. Every table has a caption naming its source and the screener that
produced it; a section a report does not have is replaced by the reason it was left out.
The report renders itself through this module, so this module imports no report type
(``AuditReport`` in a signature is a name, not an import).
"""

from __future__ import annotations

import base64
import html
import io
from string import Template
from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from popresume.schema import VERDICT_COLUMN


CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; max-width: 60rem; margin: 1.5rem auto; padding: 0 1rem;
       color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc;
       margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .82rem; width: 100%; table-layout: auto; }
th, td { border: 1px solid #d0d0d0; padding: .2rem .4rem; text-align: right; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f2f2f2; } td.l, th.l { text-align: left; }
td:not(.l) { white-space: nowrap; overflow-wrap: normal; }
caption { caption-side: top; text-align: left; font-size: .78rem; color: #444; padding-bottom: .2rem; }
figure { margin: .8rem 0; } figure img { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .78rem; color: #444; }
.verdict-pass { color: #1b6e20; font-weight: bold; } .verdict-fail { color: #a31515; font-weight: bold; }
.meta { font-size: .85rem; color: #333; } .summary li { margin-bottom: .3rem; }
@media print { body { max-width: none; margin: 0; font-size: 10pt; } h2 { page-break-after: avoid; }
  table, figure { page-break-inside: avoid; } a { color: inherit; text-decoration: none; } }
"""


def _e(v: Any) -> str:
    return html.escape(str(v))


def cell_text(v: Any, digits: int = 2) -> str:
    """A number for a table cell: fixed digits, "–" for a missing one."""
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.{digits}f}"
    return str(v)


def table_html(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str], caption: str, *,
               digits: Mapping[str, int] | None = None, left: Sequence[str] = ()) -> str:
    """An HTML table of ``rows`` with ``columns`` {key: header}, numbers formatted, text escaped."""
    digits = dict(digits or {})
    head = "".join(f'<th class="{"l" if k in left else ""}">{_e(h)}</th>' for k, h in columns.items())
    body = []
    for r in rows:
        cells = "".join(f'<td class="{"l" if k in left else ""}">{_e(cell_text(r.get(k), digits.get(k, 2)))}</td>'
                        for k in columns)
        body.append(f"<tr>{cells}</tr>")
    return (f"<table><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def with_verdict(verdict: str, rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str]
                 ) -> tuple[list[dict], dict]:
    """``rows`` and ``columns`` with the report's validity ``verdict`` as a column (every table
    of effects or decisions carries it, docs/DESIGN.md §4)."""
    return [{**r, "_verdict": verdict} for r in rows], {**columns, "_verdict": VERDICT_COLUMN}


def figure_png(fig) -> bytes:
    """A Figure's PNG bytes (the report's resolution)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def _png(fig) -> str:
    """A Figure as a ``data:`` URI (PNG), so that the page needs no file beside it."""
    return "data:image/png;base64," + base64.b64encode(figure_png(fig)).decode("ascii")


def figure_html(uri: str, caption: str, alt: str) -> str:
    return f'<figure><img src="{uri}" alt="{_e(alt)}"><figcaption>{_e(caption)}</figcaption></figure>'


def figure_uri(draw) -> str:
    """A figure drawn by ``draw(Figure)`` (a :mod:`popresume.plots` function) as a data URI."""
    return _png(draw(Figure()))


PAGE = Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>$title</title><style>$css</style></head><body>
$body
</body></html>
""")


def render_body(rep: AuditReport, *, figures: bool = True) -> str:
    """The page's body: the header, the summary and every section the report has, numbered
    (:meth:`popresume.audit.report_model.AuditReport.to_html`: each section renders itself)."""
    return rep.to_html(figures=figures)


def render_html(rep: AuditReport) -> str:
    """The whole self-contained page for one report (see the module docstring)."""
    return PAGE.substitute(title=_e(rep.title()), css=CSS, body=render_body(rep))
