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
