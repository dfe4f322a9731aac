"""Rendering checks on the built book (_build/html).

A session fixture reuses ``_build/html`` when it is newer than every source named in
``_toc.yml`` (and the configuration), else builds the book with
``jupyter-book build . -W -n --keep-going`` (slow: every changed chapter is executed).
Then: every chapter has a page, every image is real and not blank, no page shows a
traceback or an error/warning output, every internal link and anchor resolves, and
headless Chromium screenshots two pages that are not blank and show a figure. Formulas
and outputs must fit: no output or display equation is wider than the column at 1280 px
(measured in Chromium after MathJax ran), no TeX markup is visible as typed (in prose and
tables, or inside a typeset formula), and no output is a printed dict, pandas repr or
table cell with a raw NaN. One-page books built with the book's own settings check that
these checks catch the kinds of problem they are for.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
import yaml

from popresume.paths import REPO_ROOT as _REPO_ROOT
from popresume.tables import column_label

bs4 = pytest.importorskip("bs4")
Image = pytest.importorskip("PIL.Image")

# the book's root; another checkout can be checked with POPRESUME_BOOK_ROOT=/path
REPO_ROOT = Path(os.environ.get("POPRESUME_BOOK_ROOT", _REPO_ROOT))
HTML = REPO_ROOT / "_build" / "html"
BUILD_TIMEOUT = int(os.environ.get("POPRESUME_BOOK_TIMEOUT", 3600))
SOURCE_SUFFIXES = (".md", ".py", ".ipynb")

# building the book inside the session fixture may take long: allow it beyond the suite default
pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT + 600)]


# --------------------------------------------------------------------------------------
# what the book should contain
# --------------------------------------------------------------------------------------
def toc_files() -> list[str]:
    """Every document of _toc.yml (root first), as paths without suffix."""
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in toc.items() if k != "root"})
    return [str(Path(f).with_suffix("")) if Path(f).suffix in SOURCE_SUFFIXES else f for f in files]


def source_of(doc: str) -> Path | None:
    for suffix in SOURCE_SUFFIXES:
        path = REPO_ROOT / f"{doc}{suffix}"
        if path.exists():
            return path
    return None


def book_sources() -> list[Path]:
    paths = [REPO_ROOT / "_toc.yml", REPO_ROOT / "_config.yml", REPO_ROOT / "book" / "references.bib"]
    paths += [p for p in map(source_of, toc_files()) if p is not None]
    return [p for p in paths if p.exists()]


# Everything the book executes or includes: the package its notebooks import, the shipped
# data they read, the notebooks and pages themselves and the book's configuration. A change
# to any of them makes the rendered HTML stale.
BOOK_INPUT_DIRS = ("popresume", "data", "notebooks", "book", "configs", "benchmarks/results")
# the part of them that the chapters execute without it showing in their code cells (so
# that jupyter-cache, which keys outputs by code cells, and Sphinx's doctrees go stale):
# the Makefile's EXEC_INPUTS
EXEC_INPUT_DIRS = ("popresume", "data", "configs", "benchmarks/results")
GENERATED = {"__pycache__", ".ipynb_checkpoints", "_build"}


def book_inputs() -> list[Path]:
    """Files whose change must trigger a rebuild: :func:`book_sources` and every file under
    :data:`BOOK_INPUT_DIRS` (not caches, checkpoints or the .ipynb that jupytext writes)."""
    paths = list(book_sources())
    for folder in BOOK_INPUT_DIRS:
        for p in (REPO_ROOT / folder).rglob("*"):
            if p.is_file() and p.suffix != ".ipynb" and not GENERATED & set(p.relative_to(REPO_ROOT).parts):
                paths.append(p)
    return paths


def html_built_at() -> float:
    """When the newest rendered page was written (0 when there is none)."""
    pages = list(HTML.rglob("*.html")) if HTML.is_dir() else []
    return max((p.stat().st_mtime for p in pages), default=0.0)


def html_is_fresh() -> bool:
    if not (HTML / "index.html").exists():
        return False
    return html_built_at() > max(p.stat().st_mtime for p in book_inputs())


def test_freshness_follows_everything_the_book_executes():
    """A change to the package, the data or a notebook (not only the book's page list)
    makes the HTML stale."""
    inputs = {p.relative_to(REPO_ROOT).as_posix() for p in book_inputs()}
    for expected in ("popresume/causal/estimate.py", "popresume/multiplicity.py", "_config.yml", "_toc.yml",
                     "benchmarks/results/coverage.csv"):
        assert expected in inputs
    assert any(name.startswith("data/") for name in inputs)
    assert any(name.startswith("notebooks/") and name.endswith(".py") for name in inputs)
    assert not any("__pycache__" in name or name.endswith(".ipynb") for name in inputs)
    # `make book` empties the execution caches after a change to the same folders
    make = (REPO_ROOT / "Makefile").read_text()
    assert re.search(r"^EXEC_INPUTS := (.*)$", make, re.M).group(1).split() == list(EXEC_INPUT_DIRS)


@pytest.fixture(scope="session")
def built_book() -> dict:
    """``{"html": Path, "rc": int | None, "log": str, "seconds": float}``; builds if stale."""
    missing = [doc for doc in toc_files() if source_of(doc) is None]
    if html_is_fresh():
        return {"html": HTML, "rc": None, "log": "", "seconds": 0.0, "missing": missing}
    exe = shutil.which("jupyter-book") or str(Path(sys.executable).with_name("jupyter-book"))
    built = html_built_at()
    executed = [p for p in book_inputs() if any(p.is_relative_to(REPO_ROOT / d) for d in EXEC_INPUT_DIRS)]
    if any(p.stat().st_mtime > built for p in executed):  # as `make book`: the cached outputs are stale too
        for cache in ("_build/.jupyter_cache", "_build/.doctrees"):
            shutil.rmtree(REPO_ROOT / cache, ignore_errors=True)
    start = time.time()
    # as `make book` does: every figure shown is checked for overlapping or cut text
    env = {**os.environ, "IPYTHONDIR": str(REPO_ROOT / "book" / "_ipython")}
    proc = subprocess.run(
        [exe, "build", ".", "-W", "-n", "--keep-going"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT, env=env,
    )
    seconds = time.time() - start
    log = proc.stdout + proc.stderr
    if not (HTML / "index.html").exists():
        pytest.fail(f"jupyter-book build produced no HTML (exit {proc.returncode}):\n{log[-6000:]}")
    return {"html": HTML, "rc": proc.returncode, "log": log, "seconds": seconds, "missing": missing}


def page_of(doc: str) -> Path:
    return HTML / f"{doc}.html"


def soup(path: Path):
    return bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def article(page):
    """The page's content (the theme's navigation, icons and buttons left out)."""
    return page.find("article") or page.find("main") or page


def chapter_pages(built_book) -> list[Path]:
    return [page_of(doc) for doc in toc_files() if page_of(doc).exists()]


# --------------------------------------------------------------------------------------
# the build itself
# --------------------------------------------------------------------------------------
def test_book_builds_without_warnings(built_book):
    if built_book["rc"] is None:
        pytest.skip("reused an up-to-date _build/html (built by `make book`, which fails on warnings)")
    warnings = [line for line in built_book["log"].splitlines() if "WARNING" in line or "ERROR" in line]
    assert built_book["rc"] == 0, (
        f"jupyter-book build -W -n failed after {built_book['seconds']:.0f} s; "
        f"execution reports in {HTML / 'reports'}:\n" + "\n".join(warnings[:40])
    )


def test_every_toc_chapter_has_a_page(built_book):
    assert not built_book["missing"], f"_toc.yml names files that do not exist: {built_book['missing']}"
    missing = [doc for doc in toc_files() if not page_of(doc).exists()]
    assert not missing, f"no HTML page for {missing}"
    for doc in toc_files():
        page = soup(page_of(doc))
        h1 = page.find("h1")
        assert h1 is not None and h1.get_text(strip=True), f"{doc}: page has no title"


# --------------------------------------------------------------------------------------
# images
# --------------------------------------------------------------------------------------
def image_problem(path: Path) -> str | None:
    """None if ``path`` is a real, non-blank image, else what is wrong with it."""
    if not path.exists():
        return "missing file"
    if path.suffix.lower() == ".svg":
        text = path.read_text(errors="replace")
        return None if len(re.findall(r"<(path|text|use|rect|circle|line|polyline)\b", text)) > 5 else "near-empty SVG"
    try:
        with Image.open(path) as im:
            im.load()
            size = im.size
            grey = np.asarray(im.convert("L"), dtype=float)
    except Exception as e:  # noqa: BLE001 - report any decoding problem
        return f"not an image ({e})"
    if min(size) <= 50:
        return f"too small {size}"
    if grey.std() < 3.0:
        return f"blank (pixel std {grey.std():.2f})"
    return None


def test_every_image_is_real_and_not_blank(built_book):
    problems, n_images = [], 0
    for page_path in chapter_pages(built_book):
        for img in article(soup(page_path)).find_all("img"):
            src = img.get("src", "")
            if not src or src.startswith(("http://", "https://", "data:")):
                continue
            n_images += 1
            target = (page_path.parent / unquote(urlsplit(src).path)).resolve()
            problem = image_problem(target)
            if problem:
                problems.append(f"{page_path.relative_to(HTML)}: {src}: {problem}")
    assert n_images > 0, "the book has no figures at all"
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------------------
# no tracebacks, errors or warnings in outputs
# --------------------------------------------------------------------------------------
WARNING_OR_ERROR = re.compile(r"\b[A-Za-z]*(Warning|Error|Exception)\b")


def output_problems(page) -> list[str]:
    problems = []
    text = page.get_text(" ")
    if "Traceback (most recent call last)" in text:
        problems.append("contains 'Traceback (most recent call last)'")
    for div in page.find_all("div", class_=True):
        classes = div.get("class", [])
        if "output" not in classes:
            continue
        body = div.get_text(" ", strip=True)
        if "traceback" in classes or "error" in classes:
            problems.append(f"error output: {body[:200]!r}")
        elif "stderr" in classes and WARNING_OR_ERROR.search(body):
            problems.append(f"warning/error on stderr: {body[:200]!r}")
    return problems


def test_no_page_shows_a_traceback_or_error_output(built_book):
    problems = []
    for page_path in chapter_pages(built_book):
        problems += [f"{page_path.relative_to(HTML)}: {p}" for p in output_problems(soup(page_path))]
    assert not problems, "\n".join(problems)


def test_output_checker_detects_myst_nb_error_markup():
    """The checker recognises the markup myst-nb gives to errors and warnings."""
    bad = bs4.BeautifulSoup(
        '<div class="cell_output docutils container"><div class="output traceback highlight-ipythontb '
        'notranslate"><pre>ZeroDivisionError: division by zero</pre></div></div>'
        '<div class="output stderr highlight-myst-ansi notranslate"><pre>/x.py:3: FutureWarning: old'
        "</pre></div>",
        "html.parser",
    )
    assert len(output_problems(bad)) == 2
    good = bs4.BeautifulSoup('<div class="output stderr"><pre>100%|##########| 5/5</pre></div>', "html.parser")
    assert output_problems(good) == []


# --------------------------------------------------------------------------------------
# internal links (offline link check)
# --------------------------------------------------------------------------------------
def anchors_of(path: Path, cache: dict) -> set[str]:
    if path not in cache:
        page = soup(path)
        cache[path] = {el.get("id") for el in page.find_all(id=True)} | {
            el.get("name") for el in page.find_all("a", attrs={"name": True})
        }
    return cache[path]


def test_internal_links_and_anchors_resolve(built_book):
    cache: dict = {}
    broken, n_links = [], 0
    pages = [p for p in sorted(HTML.rglob("*.html")) if not p.name.startswith(".")]  # not a probe being written
    pages = [p for p in pages if "_static" not in p.parts and "reports" not in p.parts]
    for page_path in pages:
        page = soup(page_path)
        for tag, attr in (("a", "href"), ("link", "href"), ("script", "src")):
            for el in page.find_all(tag):
                ref = el.get(attr)
                if not ref or ref.startswith(("http://", "https://", "mailto:", "javascript:", "data:", "//")):
                    continue
                parts = urlsplit(ref)
                if parts.scheme:
                    continue
                n_links += 1
                target = page_path if not parts.path else (page_path.parent / unquote(parts.path)).resolve()
                if target.is_dir():
                    target = target / "index.html"
                where = f"{page_path.relative_to(HTML)} -> {ref}"
                if not target.exists():
                    broken.append(f"{where}: no such file")
                elif parts.fragment and target.suffix == ".html":
                    if unquote(parts.fragment) not in anchors_of(target, cache):
                        broken.append(f"{where}: no anchor #{parts.fragment}")
    assert n_links > 50
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:60])


# --------------------------------------------------------------------------------------
# headless Chromium screenshots
# --------------------------------------------------------------------------------------
def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        exe = shutil.which(name)
        if exe:
            return exe
    pytest.skip("headless Chromium not found: install Debian's 'chromium' (bash scripts/system-deps.sh)")


CHROMIUM_TRIES = 3


def run_chromium(args: list[str], profile: Path, *, timeout: float = 180) -> subprocess.CompletedProcess:
    """Headless Chromium with ``args`` (flags, then the URL), offline-safe defaults first.

    A run that Chromium itself ends with a signal (exit -11, a renderer crash under load) says
    nothing about the page, so it is run again, with a fresh profile, up to ``CHROMIUM_TRIES``
    times; any other exit is returned as it is, for the caller's assertion to report."""
    for attempt in range(CHROMIUM_TRIES):
        cmd = [chromium(), "--headless", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}-{attempt}", *args]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode >= 0:
            break
    return proc


def test_run_chromium_reruns_a_crash_but_not_a_failure(tmp_path, monkeypatch):
    """A browser that dies of a signal twice is run a third time, each with its own profile; a
    browser that exits 1 is not rerun (its output is the page's problem, for the caller)."""
    calls = tmp_path / "calls"
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\n"
                    f"echo \"$@\" >> {calls}\n"
                    f"n=$(wc -l < {calls})\n"
                    "if [ \"$MODE\" = fail ]; then exit 1; fi\n"
                    "if [ \"$n\" -lt 3 ]; then kill -SEGV $$; fi\n"
                    "echo '<html>ok</html>'\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys.modules[__name__], "chromium", lambda: str(fake))
    monkeypatch.setenv("MODE", "crash")
    proc = run_chromium(["--dump-dom", "file:///x.html"], tmp_path / "prof")
    lines = calls.read_text().splitlines()
    assert proc.returncode == 0 and "ok" in proc.stdout and len(lines) == 3
    assert [re.search(r"--user-data-dir=\S+", ln).group(0)[-2:] for ln in lines] == ["-0", "-1", "-2"]
    calls.unlink()
    monkeypatch.setenv("MODE", "fail")
    proc = run_chromium(["--dump-dom", "file:///x.html"], tmp_path / "prof")
    assert proc.returncode == 1 and len(calls.read_text().splitlines()) == 1


def screenshot(page: Path, out: Path, height: int, tmp: Path) -> np.ndarray:
    proc = run_chromium(["--hide-scrollbars", f"--window-size=1280,{height}", "--virtual-time-budget=8000",
                         f"--screenshot={out}", page.resolve().as_uri()], tmp / "profile")
    assert out.exists(), f"chromium wrote no screenshot (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    with Image.open(out) as im:
        return np.asarray(im.convert("RGB"))


def assert_not_blank(rgb: np.ndarray, name: str):
    grey = rgb.mean(axis=2)
    background = np.median(grey)
    ink = np.abs(grey - background) > 40
    assert grey.std() > 5, f"{name}: screenshot is blank (std {grey.std():.1f})"
    assert ink.mean() > 0.01, f"{name}: almost nothing drawn ({ink.mean():.3%} of pixels)"


def figure_colours(image_path: Path, n: int = 4) -> list[tuple[int, int, int]]:
    """The most frequent saturated colours of a figure, quantised to 16 levels per channel."""
    with Image.open(image_path) as im:
        rgb = np.asarray(im.convert("RGB")).reshape(-1, 3).astype(int)
    sat = rgb.max(axis=1) - rgb.min(axis=1)
    q = rgb[sat > 80] // 16
    if len(q) == 0:
        return []
    bins, counts = np.unique(q, axis=0, return_counts=True)
    keep = counts >= max(30, 0.001 * len(rgb))
    order = np.argsort(-counts[keep])
    return [tuple(b) for b in bins[keep][order][:n]]


def first_figure(page_path: Path) -> Path | None:
    for img in article(soup(page_path)).find_all("img"):
        src = img.get("src", "")
        if src and not src.startswith(("http", "data:")):
            path = (page_path.parent / unquote(urlsplit(src).path)).resolve()
            if path.suffix.lower() == ".png" and image_problem(path) is None:
                return path
    return None


def test_screenshots_show_the_intro_and_a_figure(built_book, tmp_path):
    exe = chromium()
    assert exe
    intro = page_of(toc_files()[0])
    rgb_intro = screenshot(intro, tmp_path / "intro.png", 1400, tmp_path)
    assert_not_blank(rgb_intro, "intro")

    # the first chapter with a colourful PNG figure (the causal-model chapter draws the B/R graph)
    candidates = [page_of("notebooks/00_causal_model")] + chapter_pages(built_book)
    chapter = next((p for p in candidates if p.exists() and first_figure(p) and figure_colours(first_figure(p))), None)
    assert chapter is not None, "no chapter has a colourful figure to look for"
    figure = first_figure(chapter)
    colours = figure_colours(figure)
    rgb = screenshot(chapter, tmp_path / "chapter.png", 6000, tmp_path)
    assert_not_blank(rgb, chapter.name)

    def count(img, colour):
        return int(np.all(img.reshape(-1, 3).astype(int) // 16 == np.array(colour), axis=1).sum())

    # a colour of the figure counts as visible if the chapter's screenshot has many pixels of it,
    # and far more than the intro page (same theme, no figure) has
    found = {tuple(int(v) for v in c): (count(rgb, c), count(rgb_intro, c)) for c in colours}
    visible = [c for c, (k, k0) in found.items() if k >= 50 and k > 5 * k0]
    assert len(visible) >= min(2, len(colours)), (
        f"{chapter.name}: the figure {figure.name} is not visible in the screenshot "
        f"(pixels of its colours in chapter / intro screenshots: {found})"
    )


# --------------------------------------------------------------------------------------
# tables: nothing cut short; text names only columns that are shown
# --------------------------------------------------------------------------------------
ELLIPSES = ("...", "…")


def output_cells(page):
    """``(cell, text)`` for every header and data cell of the page's output tables."""
    for out in page.find_all("div", class_="cell_output"):
        for table in out.find_all("table"):
            for cell in table.find_all(["td", "th"]):
                yield cell, cell.get_text(" ", strip=True)


def truncated_cells(page) -> list[str]:
    """Cells of output tables cut short by pandas ("..." cells, or text ending in an ellipsis)."""
    cut = []
    for _, text in output_cells(page):
        if text in ELLIPSES or text.endswith(ELLIPSES):
            cut.append(text[-60:])
    return cut


COLUMN_INDEX = re.compile(r"""\w+\[\s*["']([A-Za-z_][\w ]*)["']\s*\]""")


def columns_named_in_text(page) -> set[str]:
    """Column names the prose refers to: `x` next to the word column(s), and df["x"] in prose."""
    names = set()
    for block in article(page).find_all(["p", "li"]):
        if block.find_parent("div", class_="cell_input") or block.find_parent("div", class_="cell_output"):
            continue
        for code in block.find_all("code"):
            literal = code.get_text(strip=True)
            names.update(COLUMN_INDEX.findall(literal))
            before = (code.previous_sibling or "") if isinstance(code.previous_sibling, str) else ""
            after = (code.next_sibling or "") if isinstance(code.next_sibling, str) else ""
            if re.fullmatch(r"[A-Za-z_]\w*", literal) and (
                re.search(r"\bcolumns?\s*$", before) or re.match(r"^\s*columns?\b", after)
            ):
                names.add(literal)
    return names


def shown_columns(page) -> str:
    """Everything a reader sees of the page's data: table headers, cells and printed outputs."""
    parts = [cell.get_text(" ", strip=True) for cell in page.find_all(["th", "td"])]
    parts += [out.get_text(" ", strip=True) for out in page.find_all("div", class_="cell_output")]
    return "\n".join(parts)


def test_table_checkers_detect_cut_cells_and_unshown_columns():
    page = bs4.BeautifulSoup(
        '<article><div class="cell_output"><table><tr><th>NDE</th><th>...</th></tr>'
        "<tr><td>synthetic VLM with photo channel (sy...</td><td>1</td></tr></table></div>"
        "<p>The <code>n_clipped</code> column counts clipped propensities; "
        "<code>by_partition[\"warnings\"]</code> lists them, as the column <code>NDE</code> does.</p></article>",
        "html.parser",
    )
    assert len(truncated_cells(page)) == 2
    named = columns_named_in_text(page)
    assert named == {"n_clipped", "warnings", "NDE"}
    shown = shown_columns(page)
    assert [n for n in sorted(named) if n not in shown] == ["n_clipped", "warnings"]


def test_no_table_is_cut_short(built_book):
    problems = []
    for page_path in chapter_pages(built_book):
        problems += [f"{page_path.relative_to(HTML)}: {c!r}" for c in truncated_cells(soup(page_path))]
    assert not problems, "cells cut short (set pandas display options or shorten labels):\n" + "\n".join(problems[:40])



def test_text_names_only_columns_that_are_shown(built_book):
    problems = []
    for page_path in chapter_pages(built_book):
        page = soup(page_path)
        shown = shown_columns(page)
        problems += [f"{page_path.relative_to(HTML)}: {name}" for name in sorted(columns_named_in_text(page))
                     if name not in shown and column_label(name) not in shown]
    assert not problems, "the text refers to columns no table on the page shows:\n" + "\n".join(problems)


# --------------------------------------------------------------------------------------
# figures: no overlapping or cut text (checked while the book executes)
# --------------------------------------------------------------------------------------
def test_no_figure_has_overlapping_or_cut_text(built_book):
    """`make book` loads popresume.plots.layout in every kernel (book/_ipython): it writes a
    FigureLayoutWarning under any figure with overlapping tick labels, an ellipsis-cut
    label or a legend on its data; such a line on a page fails here."""
    problems = []
    for page_path in chapter_pages(built_book):
        text = soup(page_path).get_text("\n")
        problems += [f"{page_path.relative_to(HTML)}: {line.strip()}" for line in text.splitlines()
                     if "FigureLayoutWarning" in line]
    assert not problems, "\n".join(problems[:40])


# --------------------------------------------------------------------------------------
# math renders offline (MathJax served from the build, book/_ext/local_mathjax.py)
# --------------------------------------------------------------------------------------
def dump_dom_offline(page: Path, tmp: Path) -> str:
    """The page's DOM after scripts ran in headless Chromium with every network request refused."""
    proc = run_chromium(["--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                         "--virtual-time-budget=15000", "--dump-dom", page.resolve().as_uri()],
                        tmp / "profile-offline")
    assert proc.stdout, f"chromium dumped no DOM (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
    return proc.stdout


def test_math_renders_offline(built_book, tmp_path):
    page_path = page_of("notebooks/00_causal_model")
    static = soup(page_path)
    n_math = len(article(static).find_all(class_="math"))
    assert n_math > 5, "the causal-model chapter should show formulas"
    scripts = [s.get("src", "") for s in static.find_all("script") if "mathjax" in s.get("src", "").lower()]
    assert scripts and not any(s.startswith(("http:", "https:", "//")) for s in scripts), (
        f"MathJax is loaded from the network ({scripts}); the book cannot be read offline"
    )
    rendered = bs4.BeautifulSoup(dump_dom_offline(page_path, tmp_path), "html.parser")
    maths = article(rendered).find_all(class_="math")
    typeset = [m for m in maths if m.find("mjx-container")]
    assert len(typeset) >= 0.95 * len(maths), (
        f"only {len(typeset)} of {len(maths)} formulas were typeset offline; the rest show raw TeX"
    )


# --------------------------------------------------------------------------------------
# formulas and outputs that fit, no visible TeX, no printed dict / repr
# --------------------------------------------------------------------------------------
# a TeX control sequence or escape that a reader would see as typed: \text{, \mathrm{, \_ ...
TEX_ESCAPE = re.compile(r"\\(?:[A-Za-z]+\s*\{|[_{}$%&#])")
# the repr of a dict, an OrderedDict / defaultdict, or of a pandas Series / DataFrame
DICT_REPR = re.compile(r"""\{\s*(?:['"][^'"\n]*['"]|-?\d[\d.]*|\(|None|True|False)\s*:\s""")
PANDAS_REPR = re.compile(r"(?m)^(?:Name: .*, )?dtype: \w+\s*$|^\[\d+ rows x \d+ columns\]\s*$|"
                         r"\b(?:OrderedDict|defaultdict|Counter)\(")
_SPACED_COLUMNS = re.compile(r"\S(?: \S)*")


def visible_tex(page) -> list[str]:
    """Text a reader sees with TeX markup in it: prose, headings, table cells and figure
    captions outside formulas (``.math``) and outside code (``pre``, ``code``)."""
    body = bs4.BeautifulSoup(str(article(page)), "html.parser")
    for el in body.find_all(["script", "style", "pre", "code", "kbd", "samp"]):
        el.decompose()
    for el in body.find_all(class_=re.compile(r"^(math|cell_input|MathJax.*|mjx-.*)$")):
        el.decompose()
    for el in body.find_all(["mjx-container", "math", "svg"]):
        el.decompose()
    found = []
    for text in body.find_all(string=TEX_ESCAPE):
        line = " ".join(str(text).split())
        found.append(line[:120])
    return found


def _looks_like_plain_table(text: str) -> bool:
    """A pandas DataFrame printed as text: three or more lines that split into the same
    number (≥ 3) of columns at runs of two or more spaces, with numbers in the rows."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 3:
        return False
    widths = [len(re.split(r"\s{2,}", ln.strip())) for ln in lines]
    rows = [ln for ln, w in zip(lines, widths) if w >= 3]
    numeric = [ln for ln in rows[1:] if re.search(r"\s-?\d+(?:\.\d+)?(?:\s|$)", ln)]
    return len(rows) >= 3 and len(numeric) >= 2 and max(widths.count(w) for w in set(widths) if w >= 3) >= 3


def printed_reprs(page) -> list[str]:
    """Cell outputs that are a printed dict, Series or DataFrame rather than a table or a sentence."""
    found = []
    for out in page.find_all("div", class_="cell_output"):
        for div in out.find_all("div", class_="output"):
            classes = div.get("class", [])
            if not ({"text_plain", "stream"} & set(classes)) or "stderr" in classes:
                continue
            text = div.get_text("", strip=False)
            head = " ".join(text.split())[:100]
            if DICT_REPR.search(text):
                found.append(f"dict: {head}")
            elif PANDAS_REPR.search(text):
                found.append(f"pandas repr: {head}")
            elif _looks_like_plain_table(text):
                found.append(f"plain-text table: {head}")
    return found


def raw_nan_cells(page) -> list[str]:
    """Cells of output tables that show a raw NaN / <NA> instead of an empty or named value."""
    cut = []
    for cell, text in output_cells(page):
        if text in ("NaN", "nan", "<NA>", "NaT", "None"):
            row = cell.find_parent("tr")
            cut.append(" | ".join(c.get_text(" ", strip=True) for c in row.find_all(["td", "th"]))[:100])
    return cut


def test_render_checkers_detect_tex_escapes_and_printed_reprs():
    page = bs4.BeautifulSoup(
        "<article><p>The formula $P(\\text{edu\\_level})$ and edu\\_level in prose.</p>"
        '<p><span class="math notranslate nohighlight">\\(P(\\text{exp\\_year} \\mid X)\\)</span> is fine.</p>'
        "<table><tr><th>\\mathrm{TE}</th></tr></table>"
        '<div class="cell_input"><pre>x = "\\\\text{a}"</pre></div>'
        '<div class="cell_output"><div class="output stream"><pre>{\'TE\': 0.25, \'NDE\': 0.1}</pre></div>'
        '<div class="output text_plain"><pre>PASS_RULE = {"min_ess": 50}</pre></div>'
        '<div class="output text_plain"><pre>     TE   NDE\nnurse  0.1  0.2\nteacher  0.3  0.4\n'
        "Name: x, dtype: float64</pre></div>"
        '<div class="output stream"><pre>          TE    NDE    NIE\nnurse    0.10   0.20   0.30\n'
        "teacher  0.30   0.40   0.50\nlawyer   0.50   0.60   0.70</pre></div>"
        '<div class="output stream"><pre>whole chapter: 12 s\n63 of 120 cases agree</pre></div>'
        '<table><tr><th>n</th><td>NaN</td><td>49</td></tr></table></div></article>',
        "html.parser",
    )
    tex = visible_tex(page)
    assert len(tex) == 2 and any("edu\\_level in prose" in t for t in tex) and any("\\mathrm{" in t for t in tex)
    reprs = printed_reprs(page)
    assert [r.split(":")[0] for r in reprs] == ["dict", "dict", "pandas repr", "plain-text table"], reprs
    assert raw_nan_cells(page) == ["n | NaN | 49"]


def on_every_page(built_book, check) -> list[str]:
    """``check(page)``'s findings on every chapter page, each prefixed with the page."""
    return [f"{p.relative_to(HTML)}: {item}" for p in chapter_pages(built_book) for item in check(soup(p))]


def test_no_page_shows_tex_markup_as_text(built_book):
    problems = on_every_page(built_book, lambda page: [repr(t) for t in visible_tex(page)])
    assert not problems, "TeX markup shown as text (outside a formula):\n" + "\n".join(problems[:40])


def test_no_output_is_a_printed_dict_or_dataframe(built_book):
    problems = on_every_page(built_book, lambda page: printed_reprs(page) + [
        f"raw NaN in a table row: {r}" for r in raw_nan_cells(page)])
    assert not problems, ("outputs printed as a Python repr (show a labelled table, or say it in a sentence):\n"
                          + "\n".join(problems[:60]))


# the rendered page, measured in headless Chromium after MathJax has typeset it
MAX_TABLE_HEIGHT = 1800  # px: about two screens of a 900 px window
MEASURE_SCRIPT = """
<script>
(function () {
  var MAX_TABLE_HEIGHT = %d;
  function report() {
    var art = document.querySelector("article") || document.querySelector("main") || document.body;
    var box = art.getBoundingClientRect();
    var sel = "div.cell_output div.output, div.cell_output pre, div.cell_output table, div.cell_output img, " +
              "div.math, mjx-container[display='true']";
    var overflow = [];
    art.querySelectorAll(sel).forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width === 0 || el.closest("details:not([open])")) return;
      var hidden = el.scrollWidth - el.clientWidth, spill = r.right - box.right;
      if ((el.clientWidth > 0 && hidden > 2) || spill > 2) {
        overflow.push({what: el.tagName.toLowerCase() + "." + (el.className.baseVal || el.className || "")
                         .toString().split(" ")[0], hidden: hidden, spill: Math.round(spill),
                       text: (el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 80)});
      }
    });
    var tex = [];
    document.querySelectorAll("mjx-assistive-mml mtext, mjx-assistive-mml mi").forEach(function (el) {
      if (/\\\\/.test(el.textContent)) tex.push(el.textContent.slice(0, 80));
    });

    var small = [];
    art.querySelectorAll("div.cell_output img").forEach(function (img) {
      var r = img.getBoundingClientRect();
      if (!img.naturalWidth || r.width === 0 || img.closest("details:not([open])")) return;
      var scale = r.width / img.naturalWidth;
      if (scale < 0.7) small.push({src: (img.getAttribute("src") || "").slice(-48), scale: Math.round(scale * 100) / 100});
    });
    // words of a cell's text (one text node each) that the browser laid out on two lines or more
    function splitWords(cell, re, out) {
      var walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), node;
      while ((node = walker.nextNode())) {
        var m;
        re.lastIndex = 0;
        while ((m = re.exec(node.data))) {
          if (m[0].length < 2) continue;
          var range = document.createRange();
          range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
          var tops = {};
          Array.prototype.forEach.call(range.getClientRects(), function (q) { if (q.width > 0) tops[Math.round(q.top)] = 1; });
          if (Object.keys(tops).length > 1) out.push(m[0] + "  (in: " + cell.textContent.trim().slice(0, 40) + ")");
        }
      }
    }
    var wrapped = [], brokenHeaders = [];
    art.querySelectorAll("div.cell_output td, div.cell_output th").forEach(function (td) {
      splitWords(td, /[\u2212-]?\\d[\\d.,]*%%?[ \u00a0]\u00b1[ \u00a0][\\d.,]+%%?|\\S*\\d\\S*/g, wrapped);
    });
    art.querySelectorAll("div.cell_output thead th").forEach(function (th) {
      splitWords(th, /\\S+/g, brokenHeaders);
    });
    // a table's height as a reader meets it: inside a scrolling box, the box's height
    var tall = [];
    art.querySelectorAll("div.cell_output table").forEach(function (t) {
      if (t.closest("details:not([open])")) return;
      var h = t.getBoundingClientRect().height;
      for (var a = t.parentElement; a && a !== art; a = a.parentElement) {
        var oy = getComputedStyle(a).overflowY;
        if (oy === "auto" || oy === "scroll" || oy === "hidden") h = Math.min(h, a.getBoundingClientRect().height);
      }
      if (h > MAX_TABLE_HEIGHT) tall.push({height: Math.round(h), text: (t.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60)});
    });
    var errors = [];
    document.querySelectorAll("mjx-merror, [data-mjx-error]").forEach(function (el) {
      errors.push((el.getAttribute("data-mjx-error") || el.textContent || "").slice(0, 80));
    });
    var pre = document.createElement("pre");
    pre.id = "popresume-render-report";
    pre.textContent = JSON.stringify({overflow: overflow, tex: tex, errors: errors, small: small, wrapped: wrapped,
                                      brokenHeaders: brokenHeaders, tall: tall,
                                      typeset: !!(window.MathJax && MathJax.startup)});
    document.body.appendChild(pre);
  }
  var tries = 0;
  function wait() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(function () { setTimeout(report, 100); });
    } else if (tries++ < 40) { setTimeout(wait, 100); } else { report(); }
  }
  window.addEventListener("load", function () { setTimeout(wait, 100); });
})();
</script>
""" % MAX_TABLE_HEIGHT


def measure_rendered(page: Path, tmp: Path, width: int = 1280) -> dict:
    """Overflowing outputs / display equations, TeX shown literally inside formulas, MathJax
    errors, shrunk figures, numbers and header words broken across lines, and tables taller
    than ``MAX_TABLE_HEIGHT`` of ``page`` as Chromium renders it ``width`` px wide, offline."""
    import json

    probe = page.with_name(f".render-probe-{os.getpid()}-{page.name}")
    html = page.read_text(encoding="utf-8")
    probe.write_text(html.replace("</body>", MEASURE_SCRIPT + "</body>", 1), encoding="utf-8")
    try:
        proc = run_chromium(["--hide-scrollbars", f"--window-size={width},900", "--proxy-server=127.0.0.1:9",
                             "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=20000", "--dump-dom",
                             probe.resolve().as_uri()], tmp / "profile-measure")
    finally:
        probe.unlink(missing_ok=True)
    node = bs4.BeautifulSoup(proc.stdout, "html.parser").find(id="popresume-render-report")
    assert node is not None, f"{page.name}: the measuring script did not report (exit {proc.returncode})"
    return json.loads(node.get_text())


@pytest.fixture(scope="session")
def rendered(built_book, tmp_path_factory) -> dict:
    """``{page: measure_rendered(page)}`` for every chapter page (one Chromium run each)."""
    chromium()
    tmp = tmp_path_factory.mktemp("render")
    return {p: measure_rendered(p, tmp) for p in chapter_pages(built_book)}


@pytest.fixture(scope="session")
def rendered_narrow(built_book, tmp_path_factory) -> dict:
    """:func:`rendered` at 900 px, the width of a small laptop's window, for the chapters that
    print outputs (the notebooks; the markdown pages have no tables or figures of outputs)."""
    chromium()
    tmp = tmp_path_factory.mktemp("render-900")
    return {p: measure_rendered(p, tmp, 900) for p in notebook_pages(built_book)}


def test_measuring_script_detects_overflow_and_literal_tex(tmp_path):
    chromium()
    page = tmp_path / "probe.html"
    wide = "W" * 400
    page.write_text(
        "<html><body><article style='width:600px'>"
        f"<div class='cell_output'><div class='output stream'><pre style='overflow-x:auto'>{wide}</pre></div></div>"
        "<div class='cell_output'><div class='output stream'><pre>short</pre></div></div>"
        f"<div class='math' style='overflow-x:auto'><span style='display:inline-block;width:900px'>x</span></div>"
        "<mjx-assistive-mml><mtext>edu\\_level</mtext></mjx-assistive-mml>"
        "</article></body></html>",
        encoding="utf-8",
    )
    report = measure_rendered(page, tmp_path)
    kinds = sorted(o["what"].split(".")[0] for o in report["overflow"])
    assert "pre" in kinds and "div" in kinds, report
    assert not any(o["text"] == "short" for o in report["overflow"])
    assert report["tex"] == ["edu\\_level"]


def test_no_output_or_display_equation_overflows(rendered):
    problems = [f"{p.relative_to(HTML)}: {o['what']} hides {o['hidden']} px / sticks out {o['spill']} px: {o['text']!r}"
                for p, r in rendered.items() for o in r["overflow"]]
    assert not problems, "wider than the page's column at 1280 px:\n" + "\n".join(problems[:60])


def test_no_formula_shows_tex_markup_or_an_error(rendered):
    untyped = [p.relative_to(HTML) for p, r in rendered.items() if not r["typeset"]]
    problems = [f"{p.relative_to(HTML)}: {t!r}" for p, r in rendered.items() for t in r["tex"]]
    problems += [f"{p.relative_to(HTML)}: MathJax error {e!r}" for p, r in rendered.items() for e in r["errors"]]
    assert len(untyped) < len(rendered), "MathJax ran on no page"
    assert not problems, "formulas that show TeX as typed, or fail:\n" + "\n".join(problems[:40])


def _one_page_book(root: Path, page: str) -> Path:
    """A book of one jupytext page ``page`` with this book's _config.yml, extensions and CSS."""
    root.mkdir()
    shutil.copy(REPO_ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(REPO_ROOT / "book" / "_ext", root / "book" / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "book" / "references.bib", root / "book" / "references.bib")
    shutil.copytree(REPO_ROOT / "_static", root / "_static")
    (root / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    header = ("# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n#       extension: .py\n"
              "#       format_name: percent\n#   kernelspec:\n#     display_name: Python 3\n#     language: python\n"
              "#     name: python3\n# ---\n\n")
    (root / "page.py").write_text(header + page)
    from popresume.book import build_book

    assert build_book(root) == 0
    return root / "_build" / "html" / "page.html"


# the kinds of problem the issue found, as the book printed them before they were fixed
ISSUE_EXAMPLES = r"""# %% [markdown]
# # Examples
#
# $$
# \begin{aligned}
# P(X, Z, B, R \mid J) ={} & \underbrace{P(X, Z, \text{state}, \text{edu\_level} \mid J)}_{P_1:\ \text{ACS PUMS}}
#   \cdot \underbrace{P(\text{exp_year} \mid X, Z, \text{state}, \text{edu_level}, J)}_{P_2:\ \text{PSID}}
#   \cdot \underbrace{P(\text{first_name} \mid \text{gender}, \text{age})}_{P_3:\ \text{SSA}}
#   \cdot \underbrace{P(\text{surname} \mid \text{race})}_{P_4:\ \text{Census}}.
# \end{aligned}
# $$

# %%
import numpy as np
import pandas as pd

print({"TE": 0.25, "NDE": 0.1, "n_clipped": 3})

# %%
# cells wrap (popresume.css), so only a table with far too many columns still overflows
pd.set_option("display.max_columns", None)
effects = ("TE", "NDE", "NIE", "BIE", "RIE", "TV", "ctf-DE", "ctf-IE", "ctf-SE", "exp-SE") * 8
cols = [f"{k} [95% CI] {i}" for i, k in enumerate(effects)] + ["min ESS", "clipped share"]
wide = pd.DataFrame([[f"{v:.3f} [{v - 1:.3f}, {v + 1:.3f}]" for v in np.linspace(-1, 1, 80)] + [123.4, 0.01]] * 3,
                    columns=cols, index=pd.MultiIndex.from_tuples(
                        [("synthetic screener with a long name", "registered_nurse", "gender")] * 3))
wide

# %%
print(pd.DataFrame({"TE": [0.1, 0.2, 0.3], "NDE": [0.4, 0.5, 0.6], "NIE": [0.7, 0.8, 0.9]}, index=["a", "b", "c"]))
"""


def test_the_checks_catch_the_issues_examples_on_a_built_page(tmp_path):
    """A wide display equation with an escaped ``\\text{edu\\_level}``, a wide effects
    table, a printed dict and a printed DataFrame, built with this book's settings: each
    check finds its example."""
    chromium()
    html = _one_page_book(tmp_path / "book", ISSUE_EXAMPLES)
    page = soup(html)
    reprs = printed_reprs(page)
    assert any(r.startswith("dict:") for r in reprs) and any(r.startswith("plain-text table:") for r in reprs), reprs
    report = measure_rendered(html, tmp_path)
    kinds = {o["what"].split(".")[0] for o in report["overflow"]}
    assert report["typeset"] and any(k.startswith(("mjx", "div")) for k in kinds), report
    assert "edu\\_level" in report["tex"], report  # the backslash a reader saw in chapters 01-03
    assert any("TE [95% CI]" in o["text"] or "synthetic screener" in o["text"] for o in report["overflow"]), report


# chapter 08's side-by-side table as the helper got it (it stuck out 232 px at 1280 px when
# each estimate and its interval shared one line): eight columns of intervals, a model id
WIDE_HELPER_TABLE = """
import pandas as pd
from popresume.tables import labelled

effects = {k: [f"{v:.3f} [{v - 1.2:.3f}, {v + 0.8:.3f}]*" for v in (2.337, -10.41, 0.05)]
           for k in ("TE", "NDE", "NIE", "BIE", "RIE", "TV", "ctf-DE", "ctf-IE")}
labelled(pd.DataFrame({"format": ["text", "image", "image+photo"],
                       "model": ["Llama-3.1-8b-instruct", "Qwen2.5-vl-7b-instruct", "Gemini-2.5-Flash-Lite (VLM)"],
                       "cases": ["C1,C5", "C5", "-"], **effects, "min ESS": [12, 8, 30],
                       "clipped share": [0.308, 0.2, 0.1],
                       "validity gate": ["not carded (published model)"] * 2 + ["fail"]}),
         "ours and published: planted, the embedding all-MiniLM-L6-v2")
"""


def test_book_settings_typeset_names_in_text_and_wrap_long_outputs(tmp_path):
    """The book's own _config.yml and _static/ on a one-page book: ``\\text{edu_level}``
    typesets as written, with no error, a long printed line wraps inside the column
    (popresume.css) instead of scrolling out of sight, and a table of effects too wide for the
    column comes out of the helper (:func:`popresume.tables.labelled`) in parts that fit,
    with no number or model id broken, at 1280 and at 900 px."""
    chromium()
    html = _one_page_book(tmp_path / "book", (
        "# %% [markdown]\n# # One page\n#\n"
        "# The model $P(\\text{exp_year} \\mid \\text{edu_level})$.\n\n"
        "# %%\nprint('rule: ' + ' and '.join(f'condition_{i} >= {i}' for i in range(40)))\n\n"
        f"# %%\n{WIDE_HELPER_TABLE}"))
    report = measure_rendered(html, tmp_path)
    assert report["typeset"] and report["tex"] == [] and report["errors"] == [], report
    assert report["overflow"] == [], report
    assert len(soup(html).select("div.cell_output table")) > 1  # the wide table came in parts
    narrow = measure_rendered(html, tmp_path, 900)
    for r in (report, narrow):
        assert r["overflow"] == [] and r["wrapped"] == [] and r["brokenHeaders"] == [], r



# --------------------------------------------------------------------------------------
# what a student and an instructor check on every page
# --------------------------------------------------------------------------------------
# raw identifiers a reader should never see in an output: a screener's cache id with its
# settings (a spec's server URL is information, not an id), an estimator's fitted
# attributes, a keyword repr such as gender='M', an object's default repr
RAW_IDENTIFIER = re.compile(
    r"\b(?:embedding|openai|hf|synthetic):[\w.\-/]+@(?!https?:)[\w.,=\-]+"
    r"|(?<![\w`])\.(?:propensity|weights|result|summary)_(?!\w)"
    r"|\b[a-z_]+='[^'\s]*'"
    r"|\bobject at 0x[0-9a-f]+"
)
EFFECT_HEADERS = {"TE", "NDE", "NIE", "BIE", "RIE"}
VERDICT_HEADERS = ("validity gate", "verdict")
# a table is a screener's (or a model's) effects when a column or index names the model
SCREENER_HEADERS = {"model", "screener", "judge"}
# a decimal number or a percentage in running text; nominal levels (a 95% interval, the 5%
# level) are conventions, not results
PROSE_NUMBER = re.compile(r"(?<![\w.\-−])[−\-]?\d[\d,]*\.\d+%?(?![\w.]*\d)"
                          r"|(?<![\w.])(?!(?:90|95|99)%)(?!5% (?:level|test))\d+(?:\.\d+)?%")
# sentences about published work, the papers' own numbers, or the repository's shipped runs
# state numbers that this page does not recompute: their source is named in the sentence
CITED = re.compile(r"publish|paper|PopResume|Bertrand|B&M|Bloomberg|Derbyshire|Webster|re-cinq|ACLU|"
                   r"Table \d|Figure \d|\breports?\b|Appendix|§|et al|\bstud(?:y|ies)\b|printed|shipped|Census|"
                   r"measured on|a clean clone|\bLL144 audits?\b", re.I)


def page_outputs(page) -> list:
    return page.find_all("div", class_="cell_output")


def raw_identifiers(page) -> list[str]:
    text = " ".join(out.get_text(" ", strip=True) for out in page_outputs(page))
    return [m.group(0) for m in RAW_IDENTIFIER.finditer(text)]


def effects_tables_without_verdict(page) -> list[str]:
    """Output tables of a screener's or a model's effects (two or more of TE/NDE/NIE/BIE/RIE
    as column headers, and a model / screener / judge column) with no validity verdict column
    and no "validity gate: …" note under the table (where a verdict the same on every row goes).
    Tables of a toy causal model's exact effects name no screener and need no verdict."""
    bad = []
    for out in page_outputs(page):
        for table in out.find_all("table"):
            heads = [th.get_text(" ", strip=True) for th in table.find_all("th")]
            effects = {h.split(" ")[0] for h in heads} & EFFECT_HEADERS
            names_a_screener = bool({h.lower() for h in heads} & SCREENER_HEADERS)
            notes = " ".join(f.get_text(" ", strip=True).lower() for f in table.find_all("tfoot"))
            if (len(effects) >= 2 and names_a_screener
                    and not any(v in h.lower() for h in heads for v in VERDICT_HEADERS)
                    and not any(f"{v}:" in notes for v in VERDICT_HEADERS)):
                bad.append(" | ".join(heads[:8]))
    return bad


def figures_without_caption(page) -> list[str]:
    """Output images (figures) that no figure caption describes."""
    bad = []
    for out in page_outputs(page):
        for img in out.find_all("img"):
            fig = img.find_parent("figure")
            if fig is None or not fig.find("figcaption") or not fig.find("figcaption").get_text(strip=True):
                bad.append(str(img.get("src", ""))[-60:])
    return bad


def _numbers(text: str) -> list[float]:
    out = []
    for m in re.finditer(r"(?<![\w.])[−\-]?\d[\d,]*(?:\.\d+)?(?:e[−\-+]?\d+)?", text):
        try:
            out.append(float(m.group(0).replace("−", "-").replace(",", "")))
        except ValueError:
            pass
    return out


def _shown(token: str, values: list[float]) -> bool:
    t = token.replace("−", "-").replace(",", "")
    pct = t.endswith("%")
    t = t.rstrip("%")
    v = abs(float(t))
    digits = len(t.split(".")[1]) if "." in t else 0
    tol = 0.5 * 10 ** -digits + 1e-9
    return any(abs(abs(c) - v) <= tol for x in values for c in ((x, 100 * x) if pct else (x,)))


def unshown_prose_numbers(page) -> list[str]:
    """Decimal numbers and percentages in a chapter's prose that no output on the page shows
    (to the prose's rounding), outside sentences that name a published or shipped source."""
    art = article(page)
    values = _numbers(" ".join(out.get_text(" ") for out in page_outputs(art)))
    found = []
    for el in art.find_all(["p", "li"]):
        if el.find_parent(class_=re.compile(r"cell_output|cell_input|solution|exercise|admonition")):
            continue
        if el.name == "p" and el.find_parent("li"):
            continue
        el = copy.copy(el)
        for sub in el.find_all(["code", "pre", "math", "a"]) + el.select(".math, span.math, mjx-container"):
            sub.decompose()
        text = el.get_text(" ", strip=True)
        for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z(*])", text):
            if CITED.search(sentence):
                continue
            found += [f"{m.group(0)!r} in: {sentence[:140]}" for m in PROSE_NUMBER.finditer(sentence)
                      if not _shown(m.group(0), values)]
    return found


def notebook_pages(built_book) -> list[Path]:
    return [p for p in chapter_pages(built_book) if p.parent.name == "notebooks"]


def test_no_output_shows_a_raw_identifier(built_book):
    problems = on_every_page(built_book, raw_identifiers)
    assert not problems, "raw identifiers shown to a reader:\n" + "\n".join(problems[:40])


def test_every_table_of_effects_carries_a_verdict(built_book):
    problems = on_every_page(built_book, effects_tables_without_verdict)
    assert not problems, "tables of effects without a 'validity gate' column:\n" + "\n".join(problems[:40])


def test_every_figure_has_a_caption(built_book):
    problems = [f"{p.relative_to(HTML)}: {item}" for p in notebook_pages(built_book)
                for item in figures_without_caption(soup(p))]
    assert not problems, "figures without a caption:\n" + "\n".join(problems[:40])


def test_prose_numbers_are_shown_on_their_page(built_book):
    problems = [f"{p.relative_to(HTML)}: {item}" for p in notebook_pages(built_book)
                for item in unshown_prose_numbers(soup(p))]
    assert not problems, "numbers in prose that no output on the page shows:\n" + "\n".join(problems[:60])


def test_no_figure_is_drawn_below_0_7_scale(rendered):
    problems = [f"{p.relative_to(HTML)}: {s['src']} at {s['scale']}" for p, r in rendered.items() for s in r["small"]]
    assert not problems, "figures shrunk below 0.7 of their size (their text is unreadable):\n" + "\n".join(problems)


def test_no_table_cell_wraps_inside_a_number(rendered):
    problems = [f"{p.relative_to(HTML)}: {w}" for p, r in rendered.items() for w in r["wrapped"]]
    assert not problems, "table cells that break a number across lines:\n" + "\n".join(problems[:40])


READER_EXAMPLES = r"""# %% [markdown]
# # Reader examples
#
# The estimate is 0.57 and 47% of it is shown nowhere. The published value is 0.91.

# %%
import matplotlib.pyplot as plt
import pandas as pd

pd.set_option("display.max_columns", None)
print("screener embedding:all-MiniLM-L6-v2@bf16,bs=32 and gender='M'; see .propensity_")
pd.DataFrame({"model": ["a screener"], "TE": ["1.0 [0.5, 1.5]"], "NDE": ["0.2 [-0.1, 0.5]"]})

# %%
fig, ax = plt.subplots(figsize=(22, 2))
ax.plot([1, 2])
plt.show()

# %%
# ranges such as a coverage band: a browser may break a line after their hyphen
narrow = pd.DataFrame({f"c{i}": [f"0.{i:02d}-0.97"] for i in range(40)})
narrow
"""


def test_the_reader_checks_catch_their_examples(tmp_path):
    """Each check finds its defect on a page built with this book's settings: a prose number
    no output shows (and not the published one), a raw screener id, a keyword repr and a
    fitted attribute, an effects table without a verdict, a figure without a caption and
    one drawn far below its size, and a table cell that breaks a number."""
    chromium()
    html = _one_page_book(tmp_path / "book", READER_EXAMPLES)
    page = soup(html)
    prose = unshown_prose_numbers(page)
    assert any("'0.57'" in p for p in prose) and any("'47%'" in p for p in prose), prose
    assert not any("0.91" in p for p in prose), prose
    raw = raw_identifiers(page)
    assert {"embedding:all-MiniLM-L6-v2@bf16,bs=32", "gender='M'", ".propensity_"} <= set(raw), raw
    assert effects_tables_without_verdict(page), "the effects table has no verdict column"
    assert figures_without_caption(page), "the figure has no caption"
    report = measure_rendered(html, tmp_path)
    assert report["small"] and report["small"][0]["scale"] < 0.7, report["small"]
    assert report["wrapped"], report


# --------------------------------------------------------------------------------------
# tables as a reader reads them: labels in words, counts as integers, every table from the
# book's helper (labelled), no header broken inside a word, none taller than two screens
# --------------------------------------------------------------------------------------
SNAKE_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")  # ci_low, n_placebo, mean_Black
COUNT_HEADER = re.compile(r"\(n\)|^n$|^n\b|\bcount|\breplications\b|\bnumber of\b|\bplacebos\b", re.I)
FLOAT_ZERO = re.compile(r"[−\-]?\d[\d,]*\.0+")


def _output_tables(page):
    for out in page_outputs(page):
        yield from out.find_all("table")


def _column_labels(table) -> list[str]:
    """The column labels a reader reads: the last header row of the table's head."""
    rows = (table.find("thead") or table).find_all("tr")
    rows = [r for r in rows if r.find("th") and not r.find("td")]
    return [th.get_text(" ", strip=True) for th in rows[-1].find_all("th")] if rows else []


def snake_case_labels(page) -> list[str]:
    """Column labels that are a raw snake_case identifier (``ci_low``, ``n_placebo``)."""
    return [h for t in _output_tables(page) for h in _column_labels(t) if SNAKE_LABEL.fullmatch(h)]


def float_formatted_counts(page) -> list[str]:
    """Columns whose every cell is a whole number written with decimals ("16.000"): under a
    count's label (n, (n), count, replications, placebos), or two or more such cells of which
    one is 2 or more (no share or p-value; a count read as sixteen thousand)."""
    bad = []
    for table in _output_tables(page):
        heads = _column_labels(table)
        columns = [[] for _ in heads]
        for tr in (table.find("tbody") or table).find_all("tr"):
            cells = tr.find_all(["td", "th"])
            if len(cells) == len(heads) and tr.find("td"):
                for j, c in enumerate(cells):
                    columns[j].append(c.get_text("", strip=True))
        for head, values in zip(heads, columns):
            if not values or not all(FLOAT_ZERO.fullmatch(v) for v in values):
                continue
            big = any(abs(float(v.replace("−", "-").replace(",", ""))) >= 2 for v in values)
            if COUNT_HEADER.search(head) or (len(values) >= 2 and big):
                bad.append(f"{head}: {', '.join(values[:4])}")
    return bad


def tables_not_from_the_helper(page) -> list[str]:
    """Output tables printed as pandas' own HTML (a bare DataFrame or Styler) instead of
    through :func:`popresume.tables.labelled` (whose tables sit in a ``pr-table-`` box)."""
    bad = []
    for table in _output_tables(page):
        boxed = table.find_parent(id=re.compile(r"^pr-table-"))
        if not boxed and ("dataframe" in (table.get("class") or []) or str(table.get("id", "")).startswith("T_")):
            bad.append(" | ".join(_column_labels(table)[:6]) or table.get_text(" ", strip=True)[:60])
    return bad


def test_table_checkers_detect_labels_counts_and_bare_frames():
    """Each static check finds its planted defect in pandas' HTML and none in the helper's."""
    import pandas as pd

    from popresume.tables import labelled

    frame = pd.DataFrame({"ci_low": [0.1, 0.2], "n_placebo": [16.0, 12.0], "estimate": [3.0, 4.0]})
    bare = bs4.BeautifulSoup(f'<div class="cell_output">{frame.to_html()}{frame.style.to_html()}</div>', "html.parser")
    assert snake_case_labels(bare) == ["ci_low", "n_placebo"] * 2
    mixed = bs4.BeautifulSoup(f'<div class="cell_output">{frame.rename(columns={"estimate": "mean_Black"}).to_html()}'
                              "</div>", "html.parser")
    assert "mean_Black" in snake_case_labels(mixed)  # a name that starts with a capital after its "_"
    assert float_formatted_counts(bare)[:2] == ["n_placebo: 16.0, 12.0", "estimate: 3.0, 4.0"]
    assert len(tables_not_from_the_helper(bare)) == 2
    shown = labelled(frame.assign(ci_high=[0.5, 0.6]), "ours: planted")._repr_html_()
    good = bs4.BeautifulSoup(f'<div class="cell_output">{shown}</div>', "html.parser")
    assert snake_case_labels(good) == [] and float_formatted_counts(good) == [] and tables_not_from_the_helper(good) == []
    assert "placebos (n)" in _column_labels(good.find("table"))


TABLE_CHECKS = {
    "column labels that are snake_case names (label them in words)": snake_case_labels,
    "counts written with decimals (16.000 reads as sixteen thousand)": float_formatted_counts,
    "tables printed as a bare DataFrame (show them with labelled())": tables_not_from_the_helper,
}


@pytest.mark.parametrize("what", [pytest.param(w, id=i) for w, i in zip(TABLE_CHECKS, ["labels", "counts", "bare-frames"])])
def test_every_table_reads_as_words_counts_and_the_helpers(built_book, what):
    problems = on_every_page(built_book, TABLE_CHECKS[what])
    assert not problems, f"{what}:\n" + "\n".join(problems[:40])


def test_measuring_script_detects_broken_headers_and_tall_tables(tmp_path):
    """A header squeezed into a narrow column with the book's old rule (break anywhere), a
    table of 120 rows and "0.946 ± 0.005" in a narrow cell are found; the helper's tables of
    the same content are not."""
    import pandas as pd

    from popresume.tables import labelled

    chromium()
    long_rows = pd.DataFrame({"attribute": [f"row {i}" for i in range(120)], "TE": range(120)})
    helper = labelled(long_rows.assign(carried_by_one_name=0.5, **{"gpt-3.5-turbo-0125": 0.25}),
                      "ours: planted")._repr_html_()
    page = tmp_path / "probe.html"
    page.write_text(
        "<html><body><article style='width:600px'>"
        "<div class='cell_output'><table style='width:60px'><thead><tr>"
        "<th style='overflow-wrap:anywhere'>attribute reference</th><th>gpt-4o-2024-08-06</th></tr></thead>"
        "<tbody><tr><td>1</td></tr></tbody></table></div>"
        f"<div class='cell_output'>{long_rows.to_html()}</div>"
        f"<div class='cell_output' style='width:60px'>{helper}</div>"
        "<div class='cell_output'><table style='width:40px'><tr><td>0.946 ± 0.005</td></tr></table></div>"
        f"<div class='cell_output' style='width:40px'>{labelled(pd.DataFrame({'measured': ['0.947 ± 0.013']}), 'ours: x')._repr_html_()}</div>"
        "</article></body></html>", encoding="utf-8")
    report = measure_rendered(page, tmp_path)
    broken = [b.split("  (in:")[0] for b in report["brokenHeaders"]]
    assert "attribute" in broken and "reference" in broken, report["brokenHeaders"]
    assert "gpt-4o-2024-08-06" in broken, report["brokenHeaders"]
    assert not any(b in ("carried", "one", "name", "gpt-3.5-turbo-0125") for b in broken), report["brokenHeaders"]
    assert len(report["tall"]) == 1 and report["tall"][0]["height"] > 2000, report["tall"]
    # a value and its error wrapped across lines is found; the helper keeps it on one line
    assert [w.split("  (in:")[0] for w in report["wrapped"]] == ["gpt-4o-2024-08-06", "0.946 ± 0.005"], report["wrapped"]


def test_no_header_breaks_inside_a_word(rendered, rendered_narrow):
    problems = [f"{p.relative_to(HTML)} at {w} px: {b}" for w, pages in ((1280, rendered), (900, rendered_narrow))
                for p, r in pages.items() for b in r["brokenHeaders"]]
    assert not problems, "column headers broken inside a word:\n" + "\n".join(problems[:40])


def test_no_table_is_taller_than_two_screens(rendered, rendered_narrow):
    problems = [f"{p.relative_to(HTML)} at {w} px: {t['height']} px: {t['text']!r}"
                for w, pages in ((1280, rendered), (900, rendered_narrow)) for p, r in pages.items() for t in r["tall"]]
    assert not problems, f"tables taller than {MAX_TABLE_HEIGHT} px:\n" + "\n".join(problems[:40])


def test_no_number_wraps_and_no_figure_shrinks_at_900_px(rendered_narrow):
    problems = [f"{p.relative_to(HTML)}: {w}" for p, r in rendered_narrow.items() for w in r["wrapped"]]
    problems += [f"{p.relative_to(HTML)}: {s['src']} at {s['scale']}" for p, r in rendered_narrow.items()
                 for s in r["small"]]
    assert not problems, "at 900 px, numbers broken across lines or figures below 0.7 scale:\n" + "\n".join(problems)
