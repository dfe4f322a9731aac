import pandas as pd
import pytest

from popresume.plots.tables import labelled


def test_labelled_tables_carry_their_source_and_round():
    t = pd.DataFrame({"NDE": [1.23456, None]}, index=["F", "M"])
    html = labelled(t, "ours: embedding screener").to_html()
    assert "Source: ours: embedding screener" in html and "1.235" in html and "1.23456" not in html
    assert "Source: published" in labelled(t["NDE"], "published: Table 4", precision=2).to_html()
    with pytest.raises(ValueError, match="ours' or 'published"):
        labelled(t, "embedding screener")
