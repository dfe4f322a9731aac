import pandas as pd
import pytest

from popresume.plots.tables import labelled


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
    assert "gpt-4" in html and 'class="row_heading' not in html
    named = labelled(rows.set_index("model"), "ours: two rows")._repr_html_()
    assert 'class="row_heading' in named and ">gpt-4<" in named
    shifted = labelled(rows.set_axis([1, 2]), "ours: two rows")._repr_html_()
    assert 'class="row_heading' in shifted


def test_numbers_ranges_and_names_are_kept_whole_while_text_wraps():
    """A browser breaks lines after '-' and '/': a table cell keeps each such word (and each
    word with a digit) on one line, as one text node, escapes the rest and writes floats and
    missing values as the numeric columns are written."""
    from popresume.plots.tables import whole_tokens

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
    html = labelled(pd.DataFrame({"band": ["0.93-0.97"], "x": [1.5]}), "ours: one row")._repr_html_()
    assert nobr.format("0.93-0.97") in html and ">1.500<" in html


def test_a_constant_source_column_becomes_the_caption():
    from popresume.plots.tables import labelled_by_column

    t = pd.DataFrame({"source": ["ours, embedding", "ours, embedding"], "NDE": [0.1, 0.2]})
    one = labelled_by_column(t, note="Holm")
    assert one.source == "ours: embedding (Holm)" and list(one.data.columns) == ["NDE"]
    mixed = labelled_by_column(t.assign(source=["ours, embedding", "published"]))
    assert mixed.source.startswith("ours and published") and "source" in mixed.data.columns
    assert labelled_by_column(t.assign(source="published")).source == "published"
    assert labelled_by_column(t.assign(source="published"), note="the first 15").source == "published: the first 15"
    with pytest.raises(ValueError, match="no column 'screener'"):
        labelled_by_column(t, "screener")
