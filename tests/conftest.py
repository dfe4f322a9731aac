"""Fixtures shared by several test modules.

* ``published`` – the published Tables 4-5 (data/published/popresume_published_pse.csv);
* ``corpus`` – the "Beyond the Name" corpus, ``(variants, baselines)``;
* ``estimate_files`` – a folder with ``p.parquet`` (600 accountant profiles) and ``s.parquet``
  (one known-effect score per profile, one of them a parse failure) for the CLI tests;
* ``cli`` – runs ``popresume ARGS...`` in-process and returns click's ``Result``.

It also orders the test files for ``make test``'s two workers (``pytest_collection_modifyitems``).

Paths come from :mod:`popresume.paths` and pytest's temporary folders, never from this machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

# The files that take longest (seconds of one worker, measured with a timeline of the two workers
# on 2026-12-05), started first so that the other worker fills the time beside them. xdist's
# default order (the files with the most tests first) started the live-server audit, one test of
# 260-300 s, last: the other worker then sat idle for 270 s of a 700 s run. The Makefile passes
# --no-loadscope-reorder so that xdist keeps this order.
LONGEST_FIRST = (
    "test_audit_report_live.py",  # 260-305 s: SmolLM2 behind a llama-server
    "test_notebooks_audit.py",  # 122 s: chapters 9 and 10a-10d
    "test_book_render.py",  # 110 s: Chromium over every page, twice
    "test_audit_report.py",  # 50 s
    "test_readme_commands.py",  # 35-48 s
    "test_screeners_hf.py",  # 40-48 s
    "test_population_notebooks.py",  # 35 s
    "test_screeners_embedding.py",  # 34 s
    "test_coverage_causal.py",  # 30 s
)


def pytest_collection_modifyitems(config, items):
    """The files of :data:`LONGEST_FIRST` first, in that order, then the others with the most
    tests first (xdist's own order); each file's tests keep their order."""
    by_file: dict[str, list] = {}
    for item in items:
        by_file.setdefault(item.path.name, []).append(item)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    order = sorted(by_file, key=lambda f: (rank.get(f, len(rank)), -len(by_file[f])))
    items[:] = [item for f in order for item in by_file[f]]


@pytest.fixture(scope="session")
def published() -> pd.DataFrame:
    from popresume.audit.metrics import published_table

    return published_table()


@pytest.fixture(scope="session")
def corpus():
    from popresume.leakage.corpus import build_corpus

    return build_corpus()


@pytest.fixture(scope="session")
def estimate_files(tmp_path_factory):
    """Profiles and scores where men get +3 points directly and experience +0.2 per year."""
    from popresume.population import generate_population

    d = tmp_path_factory.mktemp("est")
    p = generate_population(["accountant"], {"accountant": 600}, seed=1)
    rng = np.random.default_rng(0)
    s = pd.DataFrame({"resume_id": p["resume_id"], "screener": "syn", "model": "m",
                      "score": 60 + 3.0 * (p["gender"] == "M") + 0.2 * p["exp_year"] + rng.normal(0, 2, len(p)),
                      "parse_ok": True, "raw": ""})
    s.loc[3, "score"] = np.nan  # a parse failure
    p.to_parquet(d / "p.parquet")
    s.to_parquet(d / "s.parquet")
    return d


@pytest.fixture
def cli():
    """``cli("estimate", "--profiles", ...)`` runs the popresume command line in-process."""
    from click.testing import CliRunner

    from popresume.cli import main

    def run(*args, **kwargs):
        return CliRunner().invoke(main, [str(a) for a in args], **kwargs)

    return run
