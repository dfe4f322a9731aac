import pandas as pd
import pytest

from popresume.tables import labelled


def test_labelled_tables_carry_their_source_and_round():
    t = pd.DataFrame({"estimate": [1.23456, None]}, index=["NDE", "RIE"])
    shown = labelled(t, "ours: embedding screener")
    html = shown._repr_html_()
    assert "Source: ours: embedding screener" in html and "1.235" in html and "1.23456" not in html
    text = repr(shown).splitlines()
    assert text[0] == "Source: ours: embedding screener"
    assert any(line.startswith("NDE") and "1.235" in line for line in text)
    assert shown.data is t
    assert "Source: published" in labelled(t["estimate"], "published: Table 4", precision=2)._repr_html_()
    with pytest.raises(ValueError, match="ours' or 'published"):
        labelled(t, "embedding screener")


def test_a_default_index_is_not_shown_and_a_named_one_is():
    """A 0..n-1 index carries nothing and takes a column of the page; a real index stays."""
    rows = pd.DataFrame({"model": ["gpt-4", "gpt-3.5"], "estimate": [0.5, 0.25]})
    html = labelled(rows, "ours: two rows")._repr_html_()
    assert "gpt-4" in html and "gt_stub\"" not in html
    named = labelled(rows.set_index("model"), "ours: two rows")._repr_html_()
    nobr = '<span style="white-space: nowrap">{}</span>'
    assert f'gt_stub">{nobr.format("gpt-4")}<' in named and ">model<" in named
    shifted = labelled(rows.set_axis([1, 2]), "ours: two rows")._repr_html_()
    assert f'gt_stub">{nobr.format("1")}<' in shifted
    # a row's name is escaped, and keeps a hyphenated name whole; an index's name is in words
    odd = labelled(rows.assign(model=["a<b", "embedding (all-MiniLM-L6-v2)"]).set_index("model")
                   .rename_axis("n_runs"), "ours: two rows")._repr_html_()
    assert 'gt_stub">a&lt;b<' in odd and '<span style="white-space: nowrap">(all-MiniLM-L6-v2)</span>' in odd
    assert ">runs (n)<" in odd and ">n_runs<" not in odd


def test_numbers_ranges_and_names_are_kept_whole_while_text_wraps():
    """A browser breaks lines after '-' and '/': a table cell keeps each such word (and each
    word with a digit) on one line, as one text node, escapes the rest and writes floats and
    missing values as the numeric columns are written."""
    from popresume.tables import whole_tokens

    nobr = '<span style="white-space: nowrap">{}</span>'
    assert whole_tokens("0.93-0.97") == nobr.format("0.93-0.97")
    assert whole_tokens("ours, all-MiniLM-L6-v2 (embedding)") == f"ours, {nobr.format('all-MiniLM-L6-v2')} (embedding)"
    assert whole_tokens("share_over_24") == nobr.format("share_over_24")
    assert whole_tokens("a<b & c") == "a&lt;b &amp; c"
    # long paths and ids may break after '/' and '_' (each piece whole); a header's name stays
    # one text node after its '_'s, and a fraction such as 1/2/2 never breaks
    assert whole_tokens("hf/SmolLM2") == f"{nobr.format('hf/')}<wbr>{nobr.format('SmolLM2')}"
    assert whole_tokens("1/2/2") == nobr.format("1/2/2")
    long_id = "hartford_unknown_2023_audit_1"
    assert whole_tokens(long_id).count("<wbr>") == 4 and nobr.format("2023_") in whole_tokens(long_id)
    assert whole_tokens(long_id, header=True) == nobr.format(long_id)
    assert whole_tokens(0.12345, 2) == nobr.format("0.12") and whole_tokens(None) == "–"
    assert whole_tokens("0.946 ± 0.005 in band") == nobr.format("0.946 ± 0.005") + " in band"
    assert whole_tokens("NDE 0.54 [−0.34, 1.43]") == "NDE " + nobr.format("0.54 [−0.34, 1.43]")
    html = labelled(pd.DataFrame({"band": ["0.93-0.97"], "x": [1.5]}), "ours: one row")._repr_html_()
    assert nobr.format("0.93-0.97") in html and ">1.500<" in html


def test_a_constant_source_column_becomes_the_caption():
    from popresume.tables import labelled_by_column

    t = pd.DataFrame({"source": ["ours, embedding", "ours, embedding"], "NDE": [0.1, 0.2]})
    one = labelled_by_column(t, note="Holm")
    assert one.source == "ours: embedding (Holm)" and list(one.data.columns) == ["NDE"]
    mixed = labelled_by_column(t.assign(source=["ours, embedding", "published"]))
    assert mixed.source.startswith("ours and published") and "source" in mixed.data.columns
    assert labelled_by_column(t.assign(source="published")).source == "published"
    assert labelled_by_column(t.assign(source="published"), note="the first 15").source == "published: the first 15"
    with pytest.raises(ValueError, match="no column 'screener'"):
        labelled_by_column(t, "screener")


def _cells(html: str, tag: str = "td") -> list[str]:
    import re

    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(rf"<{tag}\b[^>]*>(.*?)</{tag}>", html, re.S)]


def test_labels_are_words_and_an_estimate_shares_a_cell_with_its_interval():
    from popresume.tables import column_label

    assert column_label("ci_low") == "95% CI low" and column_label("p_holm") == "p (Holm)"
    assert column_label("n_placebo") == "placebos (n)" and column_label("n_refusals") == "refusals (n)"
    assert column_label("carried_by_one_name") == "carried by one name"
    assert column_label("TE") == "TE" and column_label("validity gate") == "validity gate"
    t = pd.DataFrame({"estimate": [0.5412, -0.2], "ci_low": [-0.3391, None], "ci_high": [1.4312, 0.1],
                      "p_holm": [0.012, 0.5], "mystery_col": ["a", "b"]}, index=pd.Index(["NDE", "RIE"], name="effect"))
    html = labelled(t, "ours: toy", precision=2)._repr_html_()
    heads = _cells(html, "th")
    assert heads == ["effect", "estimate [95% CI]", "p (Holm)", "mystery col", "NDE", "RIE"], heads
    body = _cells(html)
    # the sign is a real minus; a missing bound leaves the estimate alone; nothing is "−0.00"
    assert body[0] == "0.54 [\u22120.34, 1.43]" and body[3] == "\u22120.20", body
    assert "ci_low" not in html.replace('id="', "") or ">ci_low<" not in html
    assert labelled(t, "ours: toy").data is t


def test_counts_are_integers_and_numbers_stay_on_one_line():
    t = pd.DataFrame({"n_placebo": [16.0, 12.0, None], "year": [2024, 2023, 2022], "n": [12000, 3, 4],
                      "share": [0.5, 0.25, 1.0]})
    body = _cells(labelled(t, "ours: counts")._repr_html_())
    assert body[:4] == ["16", "2024", "12,000", "0.500"] and body[4] == "12" and body[8] == "–", body
    assert "16.000" not in labelled(t, "ours: counts")._repr_html_()
    html = labelled(t, "ours: counts")._repr_html_()
    import re

    for cell in re.findall(r"<td\b[^>]*>(.*?)</td>", html, re.S):
        if "gt_sourcenote" not in cell and any(ch.isdigit() for ch in cell):
            assert cell.startswith('<span style="white-space: nowrap">'), cell


def test_a_column_the_same_on_every_row_is_a_note_and_the_source_closes_the_table():
    t = pd.DataFrame({"model": ["a", "b", "c"], "TE": [0.1, 0.2, 0.3],
                      "validity gate": ["not carded (recorded decisions)"] * 3, "n": [500, 500, 500]})
    html = labelled(t, "ours: three screeners")._repr_html_()
    heads = _cells(html, "th")
    assert "validity gate" not in heads and "n" not in heads and heads == ["model", "TE"], heads
    notes = _cells(html.split("<tfoot>")[1])
    assert notes == ["validity gate: not carded (recorded decisions)", "n: 500",
                     "Source: ours: three screeners"], notes
    assert "note" not in _cells(labelled(t.assign(note=""), "ours: x")._repr_html_(), "th")
    assert "note:" not in labelled(t.assign(note=""), "ours: x")._repr_html_()
    # a column that varies stays a column; two equal numbers on two rows may be chance
    two = labelled(t.head(2).assign(n=[500, 501]), "ours: two")._repr_html_()
    assert "validity gate: not carded" in two and ">n<" in two


def test_a_long_table_is_boxed_with_its_rows_grouped():
    idx = pd.MultiIndex.from_product([["embedding", "synthetic"], range(20)], names=["screener", "replication"])
    t = pd.DataFrame({"TE": range(40)}, index=idx)
    html = labelled(t, "ours: long")._repr_html_()
    assert "max-height:1400px" in html and "position: sticky" in html
    assert _cells(html, "th").count("embedding") + html.count('gt_group_heading">embedding<') >= 1
    assert "gt_group_heading\"" in html
    short = labelled(t.head(10), "ours: short")._repr_html_()
    assert "max-height" not in short and "gt_group_heading\"" not in short


def test_the_html_is_offline_scoped_and_the_same_on_every_build():
    """No web font or stylesheet is fetched when the page is read; great_tables' rules that
    name bare ``tr``/``td`` apply to this table only; a header breaks only between words."""
    import re

    t = pd.DataFrame({"x": [1.5]})
    html = labelled(t, "ours: one row")._repr_html_()
    assert "@import" not in html and "googleapis" not in html and "<link" not in html and "http" not in html
    style = html.split("<style>")[1].split("</style>")[0]
    for rule in re.findall(r"(?m)^([^{}@]+)\{", style):
        for selector in rule.split(","):
            assert selector.strip().startswith("#pr-table-"), selector
    assert "overflow-wrap: normal; word-break: normal" in style
    model = labelled(pd.DataFrame({"gpt-3.5-turbo-0125": [0.5]}), "ours: x")._repr_html_()
    assert '<span style="white-space: nowrap">gpt-3.5-turbo-0125</span></th>' in model
    assert html == labelled(t.copy(), "ours: one row")._repr_html_()
    assert html != labelled(t, "ours: another")._repr_html_()


def test_a_column_named_like_a_great_tables_argument_is_labelled():
    """A column called "cases" (the case labels of chapters 08-09) is shown under its own
    label; passed as a keyword it used to collide with great_tables' ``cols_label(cases=...)``."""
    import bs4

    frame = pd.DataFrame({"cases": ["C1", "C1, C5"], "TE": [0.25, -0.5], "n_placebo": [3, 4]})
    page = bs4.BeautifulSoup(labelled(frame, "ours: planted")._repr_html_(), "html.parser")
    heads = [th.get_text(" ", strip=True) for th in page.select("thead th")]
    assert heads == ["cases", "TE", "placebos (n)"]
    assert "C1, C5" in page.get_text(" ", strip=True)


def test_an_estimate_sits_above_its_interval_each_line_whole():
    """A merged interval and one written as text ("1.06 [-1.80, 2.20]*", as chapters 08-09
    print the paper's) are two lines of one cell, each kept whole, with real minus signs;
    the cell's text still reads "estimate [lo, hi]"."""
    import bs4

    frame = pd.DataFrame({"model": ["a", "b"], "TE": ["1.06 [-1.80, 2.20]*", "–"],
                          "NDE": [0.5, -0.25], "NDE_ci_low": [0.1, -0.5], "NDE_ci_high": [0.9, 0.0]})
    page = bs4.BeautifulSoup(labelled(frame, "ours: planted", precision=2)._repr_html_(), "html.parser")
    cells = page.select("tbody td")
    te, nde = cells[1], cells[2]
    lines = te.find_all("span", style=lambda s: s and "display: block" in s)
    assert [x.get_text() for x in lines] == ["1.06*", "[−1.80, 2.20]"], te
    assert all("white-space: nowrap" in x["style"] for x in lines) and "85%" in lines[1]["style"]
    assert nde.get_text(" ", strip=True) == "0.50 [0.10, 0.90]"
    assert [h.get_text(" ", strip=True) for h in page.select("thead th")] == ["model", "TE", "NDE [95% CI]"]
    assert cells[4].get_text(strip=True) == "–"  # a missing estimate is not an interval


def test_min_width_reads_where_a_line_may_break():
    from popresume.tables import min_width, two_lines, whole_tokens

    assert min_width("aaaa bb") == pytest.approx(4 * 0.54)  # breaks at the space
    assert min_width(whole_tokens("all-MiniLM-L6-v2 x")) > min_width("all MiniLM") > 0
    nobr = '<span style="white-space: nowrap">aaaa bb</span>'
    assert min_width(nobr) == pytest.approx(4 * 0.54 + 0.29 + 2 * 0.54)
    # two lines: the wider line, the interval in its 85% type
    assert min_width(two_lines("1", "[0, 1]")) == pytest.approx(0.85 * (2 * 0.58 + 3 * 0.3 + 0.29))
    assert min_width("a<wbr>bbb") == pytest.approx(3 * 0.54)


def test_a_table_wider_than_the_page_is_split_and_keeps_every_number():
    """A table too wide for the book's column even in the smaller type is shown as several
    tables, each with the columns that tell its rows apart and the verdict, each boxed as the
    helper's; a table that fits is one table, in the page's type."""
    import bs4

    from popresume.tables import COMPACT_FONT, PAGE_WIDTH

    effects = {f"{k} {i}": [f"{v:.3f} [{v - 1:.3f}, {v + 1:.3f}]" for v in (0.25 * i + 0.1, -0.5 * i - 0.1, 0.3)]
               for i in range(4) for k in ("TE", "NDE", "NIE", "BIE", "RIE")}
    # format and model together tell the rows apart: both are repeated in every part
    wide = pd.DataFrame({"format": ["text", "text", "image"],
                         "model": ["gpt-4o-2024-08-06", "gpt-4o-mini", "gpt-4o-mini"],
                         **effects, "validity gate": ["pass", "fail", "fail"]})
    shown = labelled(wide, "ours: planted")
    groups = shown.column_groups()
    assert len(groups) > 1
    for cols, _ in groups:
        assert cols[:2] == ["format", "model"] and cols[-1] == "validity gate"
    assert sorted({c for cols, _ in groups for c in cols}) == sorted(wide.columns)
    page = bs4.BeautifulSoup(shown._repr_html_(), "html.parser")
    tables = page.find_all("table")
    assert len(tables) == len(groups)
    assert all(t.find_parent(id=lambda i: i and i.startswith("pr-table-")) for t in tables)
    text = page.get_text(" ", strip=True).replace("−", "-")
    for values in effects.values():
        for v in values:
            point, interval = v.split(" ", 1)
            assert point in text and interval in text, v
    narrow = labelled(wide[["format", "model", "TE 1", "validity gate"]], "ours: planted")
    assert narrow.column_groups() == [(["format", "model", "TE 1", "validity gate"], False)]
    assert narrow._repr_html_().count("<table") == 1 and COMPACT_FONT not in narrow._repr_html_()
    assert PAGE_WIDTH < 720  # the column's width at 1280 px (tests/test_book_render.py measures it)


def test_the_source_note_keeps_a_model_name_whole():
    html = labelled(pd.DataFrame({"x": [1.5]}), "ours: text audits with the embedding (all-MiniLM-L6-v2)")._repr_html_()
    assert '<span style="white-space: nowrap">(all-MiniLM-L6-v2)</span>' in html


def test_a_minus_sign_in_text_is_a_real_one_and_hyphens_in_names_stay():
    from popresume.tables import whole_tokens

    assert whole_tokens("-0.255") == '<span style="white-space: nowrap">\u22120.255</span>'
    assert whole_tokens(-0.5, 2) == '<span style="white-space: nowrap">\u22120.50</span>'
    for kept in ("gpt-4o-2024-08-06", "0.93-0.97", "Llama-3.1-8b", "1998-2024"):
        assert kept in whole_tokens(kept), kept


def test_flags_read_yes_or_no_small_p_values_are_bounded_and_a_column_of_counts_is_grouped_alike():
    t = pd.DataFrame({"model": ["a", "b", "c"], "calibrated": [True, False, True], "p_holm": [0.0001, 0.5, None],
                      "replies": [2761, 11664, 288]})
    import html

    body = [html.unescape(c) for c in _cells(labelled(t, "ours: planted")._repr_html_())]
    assert body[:4] == ["a", "yes", "<0.001", "2,761"] and body[4:8] == ["b", "no", "0.500", "11,664"], body
    assert body[8:12] == ["c", "yes", "–", "288"], body
    # a note of a flag the same on every row reads the same way
    notes = _cells(labelled(t.assign(carried_by_one_name=False), "ours: x")._repr_html_().split("<tfoot>")[1])
    assert "carried by one name: no" in notes
    assert _cells(labelled(pd.DataFrame({"year": [2024, 1998]}), "ours: x")._repr_html_())[:2] == ["2024", "1998"]


def test_an_audit_tables_effect_columns_read_as_words_and_merge():
    """The audit results name an effect's columns NDE_estimate, NDE_ci_low, NDE_true: the
    estimate and its bounds are one cell under "NDE [95% CI]", the truth "NDE true"."""
    from popresume.tables import column_label

    assert column_label("NDE_estimate") == "NDE" and column_label("RIE_ci_high") == "RIE 95% CI high"
    assert column_label("TE_true") == "TE true" and column_label("ctf_de") == "ctf de"
    assert column_label("mean_Black") == "mean Black" and column_label("ctf-DE") == "ctf-DE"
    t = pd.DataFrame({"model": ["a", "b"], "NDE_estimate": [0.5, -0.25], "NDE_ci_low": [0.1, -0.5],
                      "NDE_ci_high": [0.9, 0.0], "NDE_true": [0.4, 0.3]})
    html = labelled(t, "ours: planted", precision=2)._repr_html_()
    assert _cells(html, "th") == ["model", "NDE [95% CI]", "NDE true"]
    assert _cells(html)[1] == "0.50 [0.10, 0.90]"
