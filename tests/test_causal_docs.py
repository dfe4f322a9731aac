"""The estimator's public docstrings: their Examples run and print what they say (doctest)."""

import doctest
import warnings

import pytest

import popresume.causal.cases as cases
import popresume.causal.crossfit as crossfit
import popresume.causal.estimate as estimate
import popresume.causal.identification as identification
import popresume.causal.results as results


@pytest.mark.parametrize("module", [results, crossfit, estimate, cases, identification], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert out.attempted > 0 and out.failed == 0, out


def test_public_docstrings_are_numpydoc():
    from popresume.causal import PSEEstimator, PSEResult, estimate_pse

    for obj in (PSEEstimator, PSEResult, estimate_pse):
        doc = obj.__doc__
        assert "Parameters\n    ----------" in doc and "Examples\n    --------" in doc, obj.__name__


def test_result_renders_itself():
    from popresume.causal import PSEEstimator, make_scm
    from popresume.causal.nuisance import CellMeans

    data = make_scm("proxy_reveals", seed=0).sample(1000, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = PSEEstimator(data, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y",
                         learners={"propensity": CellMeans(), "outcome": CellMeans()}).fit().result_
    text, html = str(r), r._repr_html_()
    assert text.count("not estimable") == 4 and "NDE: the mediators nearly reveal the attribute: 25% of the propensities" in text
    # the book's table helper: one row per effect, the estimate above its interval where it is
    # estimable, alone with the reason where not
    import bs4

    page = bs4.BeautifulSoup(html, "html.parser")
    assert page.find(id=lambda i: i and i.startswith("pr-table-")) is not None
    rows = {tr.find("th").get_text(strip=True): [td.get_text(" ", strip=True) for td in tr.find_all("td")]
            for tr in page.select("tbody tr")}
    assert list(rows) == ["TE", "NDE", "NIE", "BIE", "RIE"], rows
    assert rows["TE"][1:3] == ["<0.001", "yes"] and rows["TE"][0].count("[") == 1
    assert all(rows[e][2] == "no" and "[" not in rows[e][0] for e in ("NDE", "NIE", "BIE", "RIE"))
    assert "the mediators nearly reveal the attribute" in rows["NDE"][3]
    assert "Source: ours: Path-specific effects (n =" in page.get_text(" ", strip=True)
