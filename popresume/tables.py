"""Tables for the page: every table says where its numbers come from.

The book's rule is that a reader can tell, from the table itself, whether numbers are
*published* (copied from a paper) or *ours* (computed when the book was built, and by
which screener, model or data). ``labelled`` wraps a table so that the rendered page shows
it with a caption saying so and with numbers rounded for reading, while a plain-text
output (a re-executed notebook read in a terminal, papermill) shows the same caption line
above the table's text. The frame itself is not changed: ``.data`` returns it.
"""

from __future__ import annotations

import hashlib
import html
import re

import numpy as np
import pandas as pd

from popresume.extras import require

SOURCES = ("ours", "published", "ours and published")


# a browser may break a line after "-" or "/" (and, in a header, anywhere): inside a number,
# a range such as 0.93-0.97 or a name such as gpt-3.5-turbo, that splits it ("0.93-" / "0.97")
_BREAKABLE = re.compile(r"[-/\d]")
_NOWRAP = '<span style="white-space: nowrap">{}</span>'


# where a long word may break instead, each piece kept whole: after the "/" of a path-like
# name (embedding/…, data/…), and, in a cell (not a header, whose name the text may quote),
# after the "_" of a long snake_case id
_PATH_JOINT = re.compile(r"(?<=[A-Za-z_]{2}/)")
# a value and its error ("0.946 ± 0.005") or an estimate and its interval ("0.54 [−0.34, 1.43]"):
# one unit, kept in one nowrap span with its spaces
_UNIT = re.compile(r"[−\-]?\d[\d.,]*%?(?: ± [\d.,]+%?| \[[^\]\s]+, [^\]\s]+\])")
_SNAKE_JOINT = re.compile(r"(?<=_)")
LONG_WORD = 20


def whole_tokens(value, precision: int = 3, *, header: bool = False) -> str:
    """``value`` as HTML in which no number, range or hyphenated name can be split by a line break.

    Text still wraps between words; each word with a digit, a hyphen or a slash is kept on
    one line, and so is a value with its error ("0.946 ± 0.005") or its interval ("0.54 [−0.34,
    1.43]") (one text node, so the page's text still reads ``gpt-3.5-turbo``); a number's
    minus sign is a real one ("−0.25"). A path-like
    word may break after its "/" and, unless ``header``, a word longer than ``LONG_WORD``
    after its "_" (``burlington_hirevue_…_2024_audit_3``), each piece kept whole. Floats are
    written with ``precision`` decimals and missing values as "–", as
    :meth:`LabelledTable.styler` writes numeric columns.
    """
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if isinstance(value, (float, np.floating)):
        text = number(value, precision)
    elif isinstance(value, tuple):
        text = ", ".join(map(str, value))
    else:
        text = _HYPHEN_MINUS.sub(MINUS, str(value))  # "-0.255" with a real minus; "gpt-4o", "0.93-0.97" as written
    text = _UNIT.sub(lambda m: m.group(0).replace(" ", "\x00"), text)  # its spaces come back inside one span
    words = []
    for word in text.split(" "):
        pieces = [p for p in _PATH_JOINT.split(word) if p]
        if not header and len(word) > LONG_WORD:
            pieces = [q for p in pieces for q in _SNAKE_JOINT.split(p) if q]
        words.append("<wbr>".join(_NOWRAP.format(html.escape(p)) if _BREAKABLE.search(p) else html.escape(p)
                                  for p in pieces).replace("\x00", " "))
    return " ".join(words)


def _is_default_index(index: pd.Index) -> bool:
    """An unnamed 0, 1, …, n − 1 index (``reset_index(drop=True)``, a fresh frame)."""
    return (isinstance(index, pd.RangeIndex) and index.name is None and index.start == 0 and index.step == 1)


# --------------------------------------------------------------------------------------
# the page's view of a table (great_tables), built from the frame without changing it
# --------------------------------------------------------------------------------------
# the book's usual column names, as a reader reads them; any other snake_case name is turned
# into words by column_label
COLUMN_LABELS = {
    "estimate": "estimate", "se": "SE", "std_err": "SE", "p": "p", "p_value": "p", "pvalue": "p",
    "p_holm": "p (Holm)", "p_bonferroni": "p (Bonferroni)", "p_bh": "p (BH)", "p_raw": "p (unadjusted)",
    "ci_low": "95% CI low", "ci_high": "95% CI high", "ci_lo": "95% CI low", "ci_hi": "95% CI high",
    "lower": "95% CI low", "upper": "95% CI high", "n": "n", "n_placebo": "placebos (n)",
    "n_clipped": "clipped (n)", "ess": "ESS", "min_ess": "smallest ESS", "mc_se": "Monte Carlo SE",
    "coverage": "coverage", "type_i": "type-I error", "type_i_error": "type-I error", "tv": "TV",
    "variant_id": "variant", "perceived_group": "perceived group", "carried_by_one_name": "carried by one name",
}
# an interval's bounds, by the name of the column they bound ("" for the frame's estimate)
_BOUNDS = (("ci_low", "ci_high"), ("ci_lo", "ci_hi"), ("lower", "upper"))
_SNAKE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")  # snake_case, and mean_Black
# an effect's columns as the audit tables name them: NDE_estimate, NDE_ci_low, TE_se, RIE_true
_EFFECT_COLUMN = re.compile(r"([A-Z][A-Za-z0-9-]*)_(estimate|ci_low|ci_high|se|p|p_holm|true|truth)")
_P_LABEL = re.compile(r"p(?: \([^)]*\))?")  # "p", "p (Holm)": a p-value's column
MINUS = "\u2212"
# a table longer than this is shown in a box of at most MAX_HEIGHT (about two screens)
MAX_ROWS, MAX_HEIGHT = 25, "1400px"
# the book's column at 1280 px is about 720 px wide (the theme's sidebars take the rest): a
# table whose unbreakable words need more is set in COMPACT_FONT, then split by its columns
PAGE_WIDTH, COMPACT_FONT = 690, "12.5px"
VERDICT_WORDS = ("validity gate", "verdict")
MAX_KEYS = 3  # at most this many columns repeated in each part of a split table
# a character's width in em in great_tables' font stack (Helvetica / Arial metrics: Liberation
# Sans in headless Chromium on Linux), rounded up by about 5% for wider system fonts (San
# Francisco, Segoe UI), so the estimate errs towards a smaller type or a split
_EM = {**dict.fromkeys("0123456789", 0.58), **dict.fromkeys(" ", 0.29), **dict.fromkeys(".,:;[]()'|!il", 0.3),
       **dict.fromkeys("-/", 0.35), **dict.fromkeys("–−±", 0.6), **dict.fromkeys("%mwMW", 0.9)}
_TAG = re.compile(r"<(/?)(\w+)([^>]*)>")


def _em(text: str) -> float:
    return sum(_EM.get(ch, 0.7 if ch.isupper() else 0.54) for ch in text)


def min_width(cell: str) -> float:
    """The narrowest a cell's HTML can be laid out, in em: its widest piece between two places
    where a line may break (a space outside a ``white-space: nowrap`` span, a ``<wbr>``, the
    edge of a ``display: block`` line); the interval's line in its 85% type."""
    widest = run = 0.0
    stack: list[tuple[bool, float, bool]] = []  # open spans: (nowrap, scale, block)
    pos = 0
    for m in [*_TAG.finditer(cell), None]:
        text = html.unescape(cell[pos:m.start() if m else len(cell)])
        nowrap = any(s[0] for s in stack)
        scale = float(np.prod([s[1] for s in stack])) if stack else 1.0
        for i, piece in enumerate([text] if nowrap else text.split(" ")):
            if i:
                widest, run = max(widest, run), 0.0
            run += _em(piece) * scale
        if m is None:
            break
        pos = m.end()
        closing, tag, attrs = m.groups()
        if tag == "wbr" or (tag == "span" and (("display: block" in attrs and not closing)
                                              or (closing and stack and stack[-1][2]))):
            widest, run = max(widest, run), 0.0
        if tag == "span":
            if closing:
                if stack:
                    stack.pop()
            else:
                stack.append(("nowrap" in attrs, 0.85 if "85%" in attrs else 1.0, "display: block" in attrs))
    return max(widest, run)


def column_label(name) -> str:
    """A column's name as a reader reads it: the book's usual names from :data:`COLUMN_LABELS`
    (``ci_low`` -> "95% CI low"), a count ``n_x`` as "x (n)", any other snake_case name in
    words (``carried_by_one_name`` -> "carried by one name"); other names as they are."""
    if isinstance(name, tuple):
        return " ".join(column_label(part) for part in name if str(part))
    text = str(name)
    if text in COLUMN_LABELS:
        return COLUMN_LABELS[text]
    effect = _EFFECT_COLUMN.fullmatch(text)  # NDE_estimate -> "NDE", NDE_ci_low -> "NDE 95% CI low"
    if effect:
        head, tail = effect.groups()
        return head if tail == "estimate" else f"{head} {COLUMN_LABELS.get(tail, tail.replace('_', ' '))}"
    if _SNAKE.fullmatch(text):
        if text.startswith("n_"):
            return f"{text[2:].replace('_', ' ')} (n)"
        return text.replace("_", " ")
    return text


def _is_integral(column: pd.Series) -> bool:
    values = column.dropna()
    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column) or values.empty:
        return False
    return bool(pd.api.types.is_integer_dtype(column) or np.all(np.mod(values.to_numpy(dtype=float), 1) == 0))


def number(value, precision: int = 3, *, integer: bool = False, grouped: bool | None = None) -> str:
    """A number as the page writes it: a real minus sign, ``precision`` decimals (none for a
    count, with thousands separated from 10,000 on, so a year stays 2024, or always when
    ``grouped``, as in a column that holds 11,664 and 2,761), "–" when missing."""
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and np.isnan(value)):
        return "–"
    if integer:
        v = int(round(float(value)))
        text = f"{v:,}" if (abs(v) >= 10_000 if grouped is None else grouped) else str(v)
    else:
        text = f"{float(value):.{precision}f}"
        if float(text) == 0:  # no "−0.000"
            text = text.lstrip("-")
    return text.replace("-", MINUS)


# an estimate over its interval in one cell: two lines, each whole, the interval in smaller type
# (a column as wide as "[−0.34, 1.43]", not as "0.54 [−0.34, 1.43]"); the text still reads
# "0.54 [−0.34, 1.43]"
_EST_LINE = '<span style="display: block; white-space: nowrap">{}</span>'
_CI_LINE = '<span class="pr-ci" style="display: block; white-space: nowrap; font-size: 85%; color: #555">{}</span>'
# written as text: "0.54 [-0.34, 1.43]", with a mark after it ("*": the interval excludes 0)
_INTERVAL_TEXT = re.compile(r"([−\-]?\d[\d.,]*%?|–) (\[[−\-]?\d[^\]\s]*, [−\-]?\d[^\]\s]*\])([*†‡]*)")
_HYPHEN_MINUS = re.compile(r"(?<![\w.])-(?=\d)")


def two_lines(point: str, interval: str, mark: str = "") -> str:
    """An estimate (``point``, then ``mark``) above its ``interval`` ("[lo, hi]"), as one
    cell's HTML, each minus sign a real one."""
    def minus(text):
        return html.escape(_HYPHEN_MINUS.sub(MINUS, text))
    return _EST_LINE.format(minus(point + mark)) + " " + _CI_LINE.format(minus(interval))


def _interval(estimate, low, high, precision: int) -> str:
    """``0.54`` above ``[−0.34, 1.43]``; the estimate alone when a bound is missing."""
    point = number(estimate, precision)
    if point == "–" or any(number(b, precision) == "–" for b in (low, high)):
        return _NOWRAP.format(point)
    return two_lines(point, f"[{number(low, precision)}, {number(high, precision)}]")


def _interval_columns(frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    """``(estimate, low, high)`` column triples: any ``x`` (or ``x_estimate``) with
    ``x_ci_low``/``x_ci_high`` (or ``x_low``/``x_high``, ``x_lo``/``x_hi``), and
    ``ci_low``/``ci_high`` (or ``ci_lo``/``ci_hi``, ``lower``/``upper``) with ``estimate``, or
    without one with the numeric column before them."""
    cols = [c for c in frame.columns if isinstance(c, str)]
    numeric = {c for c in cols if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])}
    triples = []
    for est in cols:
        if est not in numeric:
            continue
        stem = est[:-len("_estimate")] if est.endswith("_estimate") else est  # NDE_estimate with NDE_ci_low
        pairs = [(f"{stem}_{lo}", f"{stem}_{hi}") for lo, hi in (("ci_low", "ci_high"), ("low", "high"), ("lo", "hi"))]
        for lo, hi in pairs:
            if lo in numeric and hi in numeric:
                triples.append((est, lo, hi))
                break
    # bare bounds belong to ``estimate``, or else to the number just before them (ratio, difference)
    for lo, hi in _BOUNDS:
        if lo in numeric and hi in numeric:
            before = cols.index(lo) - 1
            est = "estimate" if "estimate" in numeric else (cols[before] if before >= 0 else None)
            if est in numeric and est not in (lo, hi) and all(est != t[0] for t in triples):
                triples.append((est, lo, hi))
            break
    return triples


def _constant_columns(frame: pd.DataFrame) -> list:
    """Columns that hold one value on every row (two rows or more; a number on three or more,
    as two equal numbers may be chance), leaving at least one column in the table."""
    out = []
    for c in frame.columns:
        col = frame[c]
        numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
        if len(col) >= (3 if numeric else 2) and col.notna().all() and col.astype(str).nunique() == 1:
            out.append(c)
    return out if len(out) < len(frame.columns) else out[:-1]


def _scoped_css(html_text: str, table_id: str) -> str:
    """great_tables' stylesheet with its unscoped rules (``tbody, tr, td, th``, ``tr``) scoped
    to this table, and headers that break only between words (the book's CSS lets a
    header break anywhere, which splits a word such as "attri/bute")."""
    html_text = html_text.replace(f"#{table_id} thead, tbody, tfoot, tr, td, th {{",
                                  ", ".join(f"#{table_id} {t}" for t in ("thead", "tbody", "tfoot", "tr", "td", "th")) + " {")
    html_text = re.sub(r"(?m)^ tr \{", f" #{table_id} tr {{", html_text)
    extra = (f"#{table_id} thead th {{ overflow-wrap: normal; word-break: normal; hyphens: none; }}\n"
             f"#{table_id} thead th.gt_col_heading {{ vertical-align: bottom; }}\n"
             f"#{table_id} td.gt_row, #{table_id} td.gt_sourcenote {{ overflow-wrap: normal; }}\n")
    return html_text.replace("</style>", extra + "</style>", 1)


def _table_id(frame: pd.DataFrame, source: str) -> str:
    """An id from the table's content, so that a rebuilt page is the same page."""
    digest = hashlib.sha1((source + frame.to_csv()).encode("utf-8", "replace")).hexdigest()[:10]
    return f"pr-table-{digest}"


class LabelledTable:
    """A table with its source, displayed as HTML (great_tables) or as plain text.

    The HTML is built for a reader (:meth:`gt`); the frame is not changed (``.data``) and the
    plain text (``repr``) prints it as it is, under its source line.
    """

    def __init__(self, data: pd.DataFrame, source: str, precision: int):
        self.data, self.source, self.precision = data, source, precision

    def _cell(self, column: pd.Series):
        """How one column's cells are written (as HTML): counts as integers, other numbers with
        ``precision`` decimals and a real minus sign, text with its numbers kept whole."""
        values = column.dropna()
        if pd.api.types.is_bool_dtype(column) or (len(values) and all(isinstance(v, (bool, np.bool_)) for v in values)):
            return lambda v: "–" if pd.isna(v) else ("yes" if v else "no")  # not "True" / "False"
        if pd.api.types.is_numeric_dtype(column):
            integer = _is_integral(column)
            grouped = bool(integer and len(values) and values.abs().max() >= 10_000) or None
            if not integer and _P_LABEL.fullmatch(column_label(column.name)):
                floor = 10.0 ** -self.precision  # a p-value too small for its decimals: "<0.001", not "0.000"
                return lambda v: _NOWRAP.format(html.escape(f"<{number(floor, self.precision)}") if 0 <= v < floor / 2
                                                else number(v, self.precision))
            return lambda v: _NOWRAP.format(number(v, self.precision, integer=integer, grouped=grouped))
        def text(v):  # "0.54 [−0.34, 1.43]" written as text: on two lines, as a numeric interval
            m = _INTERVAL_TEXT.fullmatch(str(v).strip()) if isinstance(v, str) else None
            return two_lines(*m.groups()) if m else whole_tokens(v, self.precision)
        return text

    def _prepared(self) -> dict:
        """The table as the page writes it: a frame of HTML cells (``shown``), its labels, the
        column naming the rows (``stub``) or grouping them (``group``), the notes (columns the
        same on every row) and the right-aligned (numeric) columns."""
        frame = self.data.copy()
        if isinstance(frame.columns, pd.MultiIndex):
            frame.columns = [column_label(c) for c in frame.columns]
        stub = group = None
        index_columns = []
        if not _is_default_index(frame.index):
            names = [column_label(n) if n is not None else ("" if frame.index.nlevels == 1 else f"level {i}")
                     for i, n in enumerate(frame.index.names)]
            frame.index = frame.index.set_names(names)
            index_columns = [f"pr_index_{i}" for i in range(len(names))]
            index_labels = dict(zip(index_columns, names))
            flat = frame.reset_index(drop=True)
            for i, col in enumerate(index_columns):
                flat.insert(i, col, frame.index.get_level_values(i).to_numpy())
            frame = flat
            if len(index_columns) > 1 and len(frame) > MAX_ROWS:
                group, index_columns = index_columns[0], index_columns[1:]
            stub = index_columns[0] if len(index_columns) == 1 else None
        else:
            index_labels = {}
        labels = {c: index_labels.get(c, column_label(c)) for c in frame.columns}
        cells = {c: self._cell(frame[c]) for c in frame.columns}
        for c in (stub, group):  # plain text: great_tables names their rows by it (made HTML in _build)
            if c is not None:
                cells[c] = lambda v: number(v, self.precision) if isinstance(v, (float, np.floating)) else str(v)
        est_columns = set()
        for est, lo, hi in _interval_columns(frame.drop(columns=list(index_labels))):
            merged = [_interval(e, a, b, self.precision) for e, a, b in zip(frame[est], frame[lo], frame[hi])]
            frame = frame.drop(columns=[lo, hi]).assign(**{est: merged})
            labels[est] = f"{column_label(est)} [95% CI]"
            cells[est] = lambda v: v
            est_columns.add(est)
        body = [c for c in frame.columns if c not in index_labels]
        notes = []
        for c in _constant_columns(frame[body]):
            if str(frame[c].iloc[0]).strip():  # a column empty on every row says nothing: it goes
                notes.append(f"{whole_tokens(labels[c], header=True)}: {cells[c](frame[c].iloc[0])}")
            frame = frame.drop(columns=c)
        numeric = [str(c) for c in frame.columns
                   if c in est_columns or (pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))]
        shown = pd.DataFrame({str(c): [cells[c](v) for v in frame[c]] for c in frame.columns}, index=range(len(frame)))
        return {"shown": shown, "labels": {str(c): labels[c] for c in labels if str(c) in shown.columns},
                "stub": stub, "group": group, "notes": notes, "numeric": numeric}

    def _build(self, prep: dict, columns: list[str], table_id: str, *, compact: bool = False):
        """One ``great_tables.GT`` of ``columns`` (with the rows' names), the notes and the source
        under it; in :data:`COMPACT_FONT` with tighter cells when ``compact``."""
        great_tables = require("great_tables", "a table's HTML (popresume.tables.labelled)")
        GT, raw = great_tables.GT, great_tables.html
        stub, group, labels = prep["stub"], prep["group"], prep["labels"]
        keep = [c for c in prep["shown"].columns if c in columns or c in (stub, group)]
        shown = prep["shown"][keep]
        # the page's text size, and tight cells: the book's column is about 720 px wide at 1280 px
        table = (GT(shown, rowname_col=stub, groupname_col=group, id=table_id)
                 .tab_options(table_font_size=COMPACT_FONT if compact else "14px", data_row_padding="3px",
                              column_labels_padding="3px", source_notes_font_size="12px" if compact else "13px",
                              container_padding_y="4px")
                 .opt_horizontal_padding(scale=0.4 if compact else 0.6))
        body = [c for c in shown.columns if c not in (stub, group)]
        table = table.fmt(lambda v: v, columns=body)  # cells are HTML already (whole_tokens, number)
        heads = [c for c in (stub, group) if c is not None]
        if heads:  # a row's name keeps its hyphenated words whole too ("embedding (all-MiniLM-L6-v2)")
            table = table.fmt(lambda v: whole_tokens(v, self.precision), columns=heads)
        if [c for c in prep["numeric"] if c in body]:
            table = table.cols_align("right", columns=[c for c in prep["numeric"] if c in body])
        # a label breaks only between words; a name such as gpt-3.5-turbo-0125 stays whole
        # (one mapping, not keywords: a column may share a name with the method's own parameter, "cases")
        table = table.cols_label(cases={c: raw(whole_tokens(labels[c], header=True)) for c in body})
        if stub is not None and labels[stub]:
            table = table.tab_stubhead(label=raw(whole_tokens(labels[stub], header=True)))
        for note in prep["notes"]:
            table = table.tab_source_note(raw(note))
        # the source's names and numbers kept whole ("all-MiniLM-L6-v2", "Table 4")
        return table.tab_source_note(raw(whole_tokens(f"Source: {self.source}")))

    def gt(self):
        """The table as one ``great_tables.GT``: labels in words, each estimate with its interval
        in one cell (the estimate above, the interval below), a column that is the same on every
        row (and the source) as a note under the table, its rows grouped by the first index
        level when there are several and the table is long."""
        prep = self._prepared()
        return self._build(prep, list(prep["shown"].columns), _table_id(self.data, self.source))

    def column_groups(self) -> list[tuple[list[str], bool]]:
        """The columns of each table the page shows: all of them when the table fits the book's
        column (:data:`PAGE_WIDTH`, measured from its longest unbreakable words, see
        :func:`min_width`), else split into groups that do, each repeating the columns that name
        a row (the rows' names, the leading text columns) and the verdict, so that no table
        scrolls sideways. Each group comes with whether it needs the smaller type (compact)."""
        prep = self._prepared()
        shown, labels = prep["shown"], prep["labels"]
        width = {c: max([min_width(whole_tokens(labels[c], header=True))]
                        + [min_width(v if c != prep["stub"] else whole_tokens(v)) for v in shown[c]])
                 for c in shown.columns if c != prep["group"]}
        columns = [c for c in shown.columns if c not in (prep["stub"], prep["group"])]

        def fits(cols, compact):
            em = sum(width[c] for c in cols) + (width[prep["stub"]] if prep["stub"] else 0)
            n = len(cols) + (prep["stub"] is not None)
            size, pad = (float(COMPACT_FONT[:-2]), 2 * 2 * 0.4 * 5 + 2) if compact else (14.0, 2 * 2 * 0.6 * 5 + 2)
            return em * size + n * pad <= PAGE_WIDTH

        for compact in (False, True):
            if fits(columns, compact):
                return [(columns, compact)]
        keys = []  # the columns that say what a row is: leading text, until they tell the rows apart
        # the rows' names, in every part; a row number names nothing a reader can read across
        stub = prep["stub"]
        named = [stub] if stub is not None and not shown[stub].astype(str).str.fullmatch(r"\d+").all() else []
        for c in columns[:MAX_KEYS]:
            if c in prep["numeric"] or (named + keys and not shown[named + keys].duplicated().any()):
                break
            keys.append(c)
        keys += [c for c in columns if c not in keys and any(v in labels[c].lower() for v in VERDICT_WORDS)]
        rest = [c for c in columns if c not in keys]
        groups, current = [], []
        for c in rest:
            if current and not fits(keys + current + [c], True):
                groups.append(current)
                current = []
            current.append(c)
        groups.append(current)
        order = {c: i for i, c in enumerate(columns)}
        return [(sorted(keys + g, key=order.get), not fits(keys + g, False)) for g in groups]

    def _repr_html_(self) -> str:
        table_id = _table_id(self.data, self.source)
        prep = self._prepared()
        groups = self.column_groups()
        pages = []
        for k, (cols, compact) in enumerate(groups):
            part_id = table_id if len(groups) == 1 else f"{table_id}-{k + 1}"
            page = _scoped_css(self._build(prep, cols, part_id, compact=compact).as_raw_html(), part_id)
            if len(self.data) > MAX_ROWS:  # at most about two screens, the header kept in sight
                page = page.replace("height:auto;", f"height:auto;max-height:{MAX_HEIGHT};", 1).replace(
                    "</style>", f"#{part_id} thead th {{ position: sticky; top: 0; background: #FFFFFF; z-index: 1; }}\n"
                    "</style>", 1)
            pages.append(page)
        if len(pages) == 1:
            return pages[0]
        return f'<div id="{table_id}" class="pr-table-parts">' + "\n".join(pages) + "</div>"

    def __repr__(self) -> str:
        with pd.option_context("display.precision", self.precision, "display.max_colwidth", None,
                               "display.width", 200, "display.max_columns", 50):
            return f"Source: {self.source}\n{self.data!r}"


def labelled(table: pd.DataFrame | pd.Series, source: str, *, precision: int = 3) -> LabelledTable:
    """``table`` with a caption naming its ``source`` (e.g. "ours: embedding screener").

    ``source`` must begin with "ours" or "published", the two words the book uses.
    """
    if source.split(":")[0].strip().lower() not in SOURCES:
        raise ValueError(f"source must start with 'ours' or 'published', got {source!r}")
    frame = table.to_frame() if isinstance(table, pd.Series) else table
    return LabelledTable(frame, source, precision)


def _as_source(label: str) -> str:
    """A table's source label as a caption: "ours, all-MiniLM-L6-v2" -> "ours: all-MiniLM-L6-v2"."""
    head, _, rest = label.partition(",")
    return f"{head.strip()}: {rest.strip()}" if rest.strip() and ":" not in head else label


def labelled_by_column(table: pd.DataFrame, column: str = "source", *, note: str = "",
                       precision: int = 3) -> LabelledTable:
    """:func:`labelled`, with the caption read from ``table[column]``.

    A column that holds one value on every row tells the reader nothing a caption cannot: it
    is dropped and its value (with ``note``) becomes the caption, so the table is one column
    narrower. A column with several values (ours and published rows) stays, and the caption
    names both kinds.
    """
    if column not in table.columns:
        raise ValueError(f"labelled_by_column: no column {column!r} in the table (columns: {list(table.columns)})")
    values = list(dict.fromkeys(str(v) for v in table[column].dropna()))
    suffix = f" ({note})" if note else ""
    if len(values) == 1:
        caption = _as_source(values[0])
        caption += suffix if ":" in caption or not note else f": {note}"
        return labelled(table.drop(columns=column), caption, precision=precision)
    kinds = {v.split(",")[0].split(":")[0].strip().lower() for v in values}
    source = "ours and published" if kinds >= {"ours", "published"} else (kinds.pop() if len(kinds) == 1 else "ours")
    return labelled(table, f"{source}: as the {column!r} column says{suffix}", precision=precision)
