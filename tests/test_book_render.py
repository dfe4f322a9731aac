"""Rendering checks on the built book (_build/html).

A session fixture reuses ``_build/html`` when it is newer than every source named in
``_toc.yml`` (and the configuration), else builds the book with
``jupyter-book build . -W -n --keep-going`` (slow: every changed chapter is executed).
Then: every chapter has a page, every image is real and not blank, no page shows a
traceback or an error/warning output, every internal link and anchor resolves, and
headless Chromium screenshots two pages that are not blank and show a figure.
"""

from __future__ import annotations

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


def html_is_fresh() -> bool:
    pages = list(HTML.rglob("*.html")) if HTML.is_dir() else []
    if not (HTML / "index.html").exists() or not pages:
        return False
    built = max(p.stat().st_mtime for p in pages)
    return built > max(p.stat().st_mtime for p in book_sources())


@pytest.fixture(scope="session")
def built_book() -> dict:
    """``{"html": Path, "rc": int | None, "log": str, "seconds": float}``; builds if stale."""
    missing = [doc for doc in toc_files() if source_of(doc) is None]
    if html_is_fresh():
        return {"html": HTML, "rc": None, "log": "", "seconds": 0.0, "missing": missing}
    exe = shutil.which("jupyter-book") or str(Path(sys.executable).with_name("jupyter-book"))
    start = time.time()
    # as `make book` does: every figure shown is checked for overlapping or cut text
    env = {**os.environ, "POPRESUME_CHECK_FIGURES": "1"}
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
    pages = sorted(HTML.rglob("*.html"))
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


def screenshot(page: Path, out: Path, height: int, tmp: Path) -> np.ndarray:
    cmd = [
        chromium(), "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
        "--disable-dev-shm-usage", f"--user-data-dir={tmp / 'profile'}",
        f"--window-size=1280,{height}", "--virtual-time-budget=8000", f"--screenshot={out}",
        page.resolve().as_uri(),
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
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


def truncated_cells(page) -> list[str]:
    """Cells of output tables cut short by pandas ("..." cells, or text ending in an ellipsis)."""
    cut = []
    for out in page.find_all("div", class_="cell_output"):
        for table in out.find_all("table"):
            for cell in table.find_all(["td", "th"]):
                text = cell.get_text(" ", strip=True)
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
                     if name not in shown]
    assert not problems, "the text refers to columns no table on the page shows:\n" + "\n".join(problems)


# --------------------------------------------------------------------------------------
# figures: no overlapping or cut text (checked while the book executes)
# --------------------------------------------------------------------------------------
def test_no_figure_has_overlapping_or_cut_text(built_book):
    """`make book` sets POPRESUME_CHECK_FIGURES=1: popresume.plots.layout writes a
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
    cmd = [
        chromium(), "--headless", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
        f"--user-data-dir={tmp / 'profile-offline'}", "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=15000", "--dump-dom",
        page.resolve().as_uri(),
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
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
