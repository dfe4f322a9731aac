"""Fixtures shared by several test modules.

* ``published`` – the published Tables 4-5 (data/published/popresume_published_pse.csv);
* ``corpus`` – the "Beyond the Name" corpus, ``(variants, baselines)``;
* ``estimate_files`` – a folder with ``p.parquet`` (600 accountant profiles) and ``s.parquet``
  (one known-effect score per profile, one of them a parse failure) for the CLI tests;
* ``cli`` – runs ``popresume ARGS...`` in-process and returns click's ``Result``.

Paths come from :mod:`popresume.paths` and pytest's temporary folders, never from this machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


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
