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
    assert html.startswith("<div>") and html.count("<tr>") == 6 and "&lt;0.001" in html
    assert "<td>no</td>" in html and "title=" in html
