"""The public API: its docstrings, and the small things each kept in one place.

* every name a package exports in ``__all__`` (the packages in ``DOCUMENTED``) has a numpydoc
  docstring that ``numpydoc.validate`` accepts for the checks in ``CHECKS``, and its Examples
  run as doctests;
* the four-fifths threshold is written once, as ``popresume.ll144.FOUR_FIFTHS``;
* tqdm is imported only by ``popresume.progress``;
* a cached table handed to one caller cannot be changed under the next.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import io
import re
import tokenize
import warnings
from pathlib import Path

import pandas as pd
import pytest
from numpydoc.validate import validate

import popresume

ROOT = Path(popresume.__file__).parent
REPO = ROOT.parent


# ---------------------------------------------------------------------------- the documented API
#: The packages whose ``__all__`` is documented and checked here.
DOCUMENTED = ["popresume.causal", "popresume.ll144", "popresume.audit", "popresume.screeners", "popresume.decisions",
              "popresume.correspondence", "popresume.ranking", "popresume.jobs", "popresume.resumes"]

#: Exported names not yet held to the checks, each with the reason. A name leaves this list
#: when its docstring passes; the test fails if a listed name no longer exists.
NOT_YET: dict[str, str] = {}

#: The numpydoc checks each exported name passes (numpydoc.validate's codes):
#: GL08 a docstring exists; PR01 every parameter is documented; PR02 no documented parameter
#: is unknown; PR03 parameters in signature order; PR10 "name : type" spacing; RT01 a Returns
#: section (functions); YD01 a Yields section (generators); EX01 an Examples section.
#: Not checked, and why: the type codes PR04-PR06 and RT02-RT03 (the signatures carry the types
#: as annotations; several parameters are described together as "x, x0, x1" with the type once);
#: the style codes GL01-GL03, SS01-SS06, ES01, SA01, PR07-PR09, RT04-RT05 (the package's
#: summaries are one reflowed sentence that may run over two lines and end with a code span, and
#: "See Also" is not required).
CHECKS = {"GL08", "PR01", "PR02", "PR03", "PR10", "RT01", "YD01", "EX01"}


def exported(module_names=DOCUMENTED):
    """(dotted export name, object) for every class or function of each module's ``__all__``;
    constants are described in the module docstring and the reference page, not validated."""
    out = []
    for name in module_names:
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                out.append((f"{name}.{attr}", obj))
    return out


EXPORTED = [(name, obj) for name, obj in exported() if name not in NOT_YET]


def numpydoc_errors(obj) -> list[str]:
    return [f"{code}: {message}" for code, message in validate(f"{obj.__module__}.{obj.__qualname__}")["errors"]
            if code in CHECKS]


def test_the_exports_are_read():
    names = {name for name, _ in exported()}
    assert len(EXPORTED) > 20 and "popresume.ll144.breakdown_table" in names
    assert set(NOT_YET) <= names, f"NOT_YET names that are not exported: {set(NOT_YET) - names}"


def test_the_top_level_names_are_the_documented_ones():
    """``from popresume import X`` gives the object of a documented package (checked there),
    loaded on first use: ``import popresume`` alone loads no subpackage."""
    import subprocess
    import sys

    for name in popresume.__all__:
        home = popresume._EXPORTS[name]
        assert home in DOCUMENTED and name in importlib.import_module(home).__all__, name
        assert getattr(popresume, name) is getattr(importlib.import_module(home), name), name
    code = "import sys, popresume; print(sorted(m for m in sys.modules if m.startswith('popresume')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['popresume']"
    with pytest.raises(AttributeError, match="no attribute 'estimate'"):
        popresume.estimate  # noqa: B018


def test_the_checks_catch_a_bare_docstring():
    def bare(a, b=1):
        """Add."""
        return a + b

    bare.__module__, bare.__qualname__ = __name__, "bare"
    globals()["bare"] = bare
    try:
        codes = {e.split(":")[0] for e in numpydoc_errors(bare)}
    finally:
        del globals()["bare"]
    assert codes == {"PR01", "RT01", "EX01"}


@pytest.mark.parametrize("name,obj", EXPORTED, ids=[name for name, _ in EXPORTED])
def test_numpydoc(name, obj):
    errors = numpydoc_errors(obj)
    assert not errors, f"{name}:\n" + "\n".join(errors)


@pytest.mark.parametrize("name,obj", EXPORTED, ids=[name for name, _ in EXPORTED])
def test_the_example_runs(name, obj):
    module = importlib.import_module(obj.__module__)
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, module=module, globs=dict(vars(module)))
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result}"


def test_the_reference_page_lists_the_documented_packages():
    """book/api.md renders each documented package's ``__all__`` (autodoc), and is in the book."""
    page = (REPO / "book" / "api.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\.\. automodule:: (\S+)$", page, flags=re.M)
    assert sorted(listed) == sorted(DOCUMENTED)
    assert "file: book/api" in (REPO / "_toc.yml").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- the four-fifths threshold
#: A literal 0.8 or 0.80 as a number, or inside a string that is not a docstring (a label, a
#: printed sentence). Comments and docstrings are prose and may name the value.
FOUR_FIFTHS_TEXT = re.compile(r"(?<![\d.])0\.80?(?!\d)")

#: 0.8s that are not the four-fifths threshold: (file, or "*" for any; a regex the line matches; why).
NOT_THE_THRESHOLD = [
    ("*", r"\b(lw|linewidth)=0\.8\b", "a line width"),
    ("*", r"(?<![\d.])0\.8 / ", "the share of a slot that a group of bars fills"),
    ("popresume/causal/scm.py", r"r_tilt = 0\.8", "a parameter of the toy structural model"),
    ("popresume/coverage/decisions.py", r"rng\.normal\(0, 0\.8,", "the noise of a simulated truth"),
    ("popresume/coverage/ranking.py", r"0\.8x|np\.r_\[0\.8,|0\.9, 0\.8, 0\.7", "a simulated true ratio"),
    ("popresume/coverage/ll144.py", r"one at 0\.8x", "the name of a simulated truth"),
    ("popresume/experience.py", r"subsample=0\.8", "an XGBoost setting"),
    ("popresume/resumes/photo.py", r"h \* 0\.80", "where the placeholder photo's text sits"),
    ("popresume/coverage/validity.py", r"POWER_BAND = \(0\.8|0\.8 \* 5\.5|\(0\.3, 0\.5, 0\.8\)|nominal=0\.8",
     "the validity gate's power target and a simulated effect size"),
    ("popresume/screeners/specs.py", r"cos_high: float = Field\(0\.8", "the embedding screener's cosine scale"),
]


def _docstring_lines(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.update(range(first.lineno, first.end_lineno + 1))
    return out


def literal_point_eights(source: str) -> list[tuple[int, str]]:
    """(line number, line) of every 0.8 written as a number, or inside a string that is not a
    docstring; comments are skipped."""
    docs = _docstring_lines(ast.parse(source))
    strings = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NUMBER:
            hit = tok.string.replace("_", "") in {"0.8", "0.80", ".8", "0.800"}
        else:
            hit = tok.type in strings and tok.start[0] not in docs and bool(FOUR_FIFTHS_TEXT.search(tok.string))
        if hit:
            hits.append((tok.start[0], tok.line.strip()))
    return hits


def four_fifths_literals(hits: dict[str, list[tuple[int, str]]]) -> list[str]:
    """The 0.8s of ``hits`` (file -> its :func:`literal_point_eights`) that no entry of
    ``NOT_THE_THRESHOLD`` excuses."""
    return [f"{rel}:{line_no}: {line}" for rel, found in hits.items() for line_no, line in found
            if not any(where in ("*", rel) and re.search(rx, line) for where, rx, _ in NOT_THE_THRESHOLD)]


def test_the_scan_finds_numbers_and_labels_but_not_prose():
    src = ('"""A ratio under 0.8 is flagged."""\n'
           "x = 0.8  # the threshold 0.8\n"
           "label = f'ratio < 0.80 here'\n"
           "ok = 0.85, 10.8, 0.08\n"
           "def f():\n    '''below 0.8'''\n    return 1\n")
    assert [n for n, _ in literal_point_eights(src)] == [2, 3]


def test_four_fifths_is_written_once():
    files = [p for p in sorted(ROOT.rglob("*.py")) + sorted((REPO / "notebooks").glob("*.py"))
             if p != ROOT / "ll144.py"]
    assert len(files) > 100  # it did read the package and the chapters
    hits = {p.relative_to(REPO).as_posix(): literal_point_eights(p.read_text(encoding="utf-8")) for p in files}
    found = four_fifths_literals(hits)
    assert not found, "a literal 0.8 outside popresume/ll144.py (use FOUR_FIFTHS):\n" + "\n".join(found)
    # every exception still matches a line, so none outlives the line it excused
    for where, rx, why in NOT_THE_THRESHOLD:
        lines = [line for rel, found in hits.items() if where in ("*", rel) for _, line in found]
        assert any(re.search(rx, line) for line in lines), f"no line is {why} any more: drop {rx!r}"


def test_the_scan_finds_what_this_branch_replaced():
    """The labels of the report as they stood before FOUR_FIFTHS drove them are caught."""
    before = {"popresume/audit/report_html.py": literal_point_eights(
        '''cols = {"ci_high": "CI high", "four_fifths_ok": "≥ 0.8"}
flag = f"chance of a flag (ratio < 0.8) at {n}"
for y in (0.8, 1.25):
    ax.axhline(y, color="0.3", ls="--", lw=0.8)
''')}
    assert [f.split(":")[1] for f in four_fifths_literals(before)] == ["1", "2", "3"]


# ---------------------------------------------------------------------------- tqdm in one place
def test_tqdm_is_imported_only_by_progress():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "tqdm" or n.startswith("tqdm.") for n in names):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == ["popresume/progress.py:" + str(_tqdm_line())], found


def _tqdm_line() -> int:
    text = (ROOT / "progress.py").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(text, 1) if "from tqdm" in line)


# ---------------------------------------------------------------------------- cached tables
def test_a_cached_table_is_a_copy():
    from popresume.io import cached_tables
    from popresume.sources.calibration import gender_shares, state_population

    calls = []

    @cached_tables(maxsize=2)
    def table(k):
        calls.append(k)
        return pd.DataFrame({"n": [1, 2]}), pd.Series([3.0])

    frame, series = table(1)
    frame.loc[0, "n"] = 99
    frame["extra"] = 0
    series.iloc[0] = -1
    again, series2 = table(1)
    assert calls == [1] and again.columns.tolist() == ["n"] and int(again.loc[0, "n"]) == 1
    assert float(series2.iloc[0]) == 3.0 and table.cache_info().hits == 1

    # two of the package's caches: a caller that overwrites the table does not change it
    pop = state_population()
    pop["White"] = -1.0
    assert (state_population()["White"] > 0).all()
    shares = gender_shares("nurse")
    shares.loc["F"] = 0.0
    assert gender_shares("nurse").loc["F"] > 0.5
