"""Statistics of a rendered corpus: length, roles vs exp_year, entries vs edu_level, variety."""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

import pandas as pd

from popresume.resumes.rules import Resume
from popresume.resumes.text import format_text

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Tokens as words and punctuation marks (a tokenizer-free proxy; subword LLM
    tokenizers give roughly 1.2–1.4× as many)."""
    return len(_TOKEN.findall(text))


def resume_stats(resumes: Iterable[Resume], profiles: pd.DataFrame, *, skills: bool = False) -> pd.DataFrame:
    """One row per résumé: resume_id, occupation, edu_level, exp_year, n_roles, n_education, n_tokens."""
    resumes = list(resumes)
    p = profiles.set_index("resume_id")
    ids = [r.resume_id for r in resumes]
    return pd.DataFrame({
        "resume_id": ids,
        "occupation": [r.occupation for r in resumes],
        "edu_level": p.loc[ids, "edu_level"].to_numpy(),
        "exp_year": p.loc[ids, "exp_year"].astype(int).to_numpy(),
        "n_roles": [len(r.roles) for r in resumes],
        "n_education": [len(r.education) for r in resumes],
        "n_tokens": [count_tokens(format_text(r, skills=skills)) for r in resumes],
    })


def bullet_set(resume: Resume) -> frozenset[str]:
    """All bullets of a résumé (work and education)."""
    return frozenset(b for part in (*resume.roles, *resume.education) for b in part.bullets)


def bullet_variety(resumes: Iterable[Resume]) -> pd.DataFrame:
    """Per occupation: how often two résumés share *all* their bullets.

    ``share_with_twin``: fraction of résumés whose full bullet set also occurs in
    another résumé of the same occupation; ``pair_prob``: probability that two
    résumés drawn at random from the occupation have identical bullet sets.
    """
    by_occ: dict[str, Counter] = {}
    for r in resumes:
        by_occ.setdefault(r.occupation, Counter())[bullet_set(r)] += 1
    rows = []
    for occ, c in by_occ.items():
        n = sum(c.values())
        pairs = n * (n - 1) / 2
        same = sum(k * (k - 1) / 2 for k in c.values())
        rows.append({"occupation": occ, "n": n, "distinct_bullet_sets": len(c),
                     "share_with_twin": sum(k for k in c.values() if k > 1) / n,
                     "pair_prob": same / pairs if pairs else float("nan")})
    return pd.DataFrame(rows).set_index("occupation")
