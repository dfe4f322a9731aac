"""Statistics of a rendered corpus: length, roles vs exp_year, entries vs edu_level, variety."""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

import pandas as pd

from popresume.resumes.breaks import break_months
from popresume.resumes.rules import REFERENCE_MONTH, REFERENCE_YEAR, Resume, month_index
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


def career_table(resumes: Iterable[Resume], profiles: pd.DataFrame) -> pd.DataFrame:
    """One row per résumé: how its career sits after its education (Appendix B.1's forward rule).

    Columns: resume_id, occupation, edu_level, age, exp_year, ``graduation`` (year of the
    last education entry), ``first_start`` / ``last_end`` (``YYYY.MM``), ``career_months``,
    ``gap_months`` (graduation → first role; negative when the first role began before the
    last degree), ``months_since_end`` (last role's end → 2023.12), ``break_months``
    (:func:`popresume.resumes.breaks.break_months`), ``ends_at_reference``,
    ``n_preparatory`` (roles before the degree the occupation needs) and
    ``needs_ok`` (every role starts after the graduation of the degree it needs).
    """
    ref = month_index((REFERENCE_YEAR, REFERENCE_MONTH))
    p = profiles.set_index("resume_id")
    rows = []
    for r in resumes:
        chron = list(reversed(r.roles))
        last_grad = max(r.graduation.values())
        rows.append({
            "resume_id": r.resume_id, "occupation": r.occupation,
            "edu_level": p.at[r.resume_id, "edu_level"], "age": int(p.at[r.resume_id, "age"]),
            "exp_year": int(p.at[r.resume_id, "exp_year"]),
            "graduation": int(r.education[-1].year),
            "first_start": f"{chron[0].start[0]}.{chron[0].start[1]:02d}",
            "last_end": f"{chron[-1].end[0]}.{chron[-1].end[1]:02d}",
            "career_months": r.career_months,
            "gap_months": month_index(chron[0].start) - month_index(last_grad),
            "months_since_end": ref - month_index(chron[-1].end),
            "break_months": break_months(r),
            "ends_at_reference": month_index(chron[-1].end) == ref,
            "n_preparatory": sum(x.preparatory for x in chron),
            "needs_ok": all(x.needs is None or month_index(x.start) > month_index(r.graduation[x.needs])
                            for x in chron),
        })
    return pd.DataFrame(rows)


def career_summary(careers: pd.DataFrame) -> pd.DataFrame:
    """Per occupation, from :func:`career_table`: shares and medians a reader can check."""
    g = careers.groupby("occupation", sort=False)
    return pd.DataFrame({
        "n": g.size(),
        "share ending 2023.12": g["ends_at_reference"].mean(),
        "share starting after last degree": g["gap_months"].apply(lambda s: (s > 0).mean()),
        "share with a preparatory role": g["n_preparatory"].apply(lambda s: (s > 0).mean()),
        "median months graduation → first role": g["gap_months"].median(),
        "median months since last role ended": g["months_since_end"].median(),
        "every role after its needed degree": g["needs_ok"].all(),
        "months // 12 == exp_year": g.apply(lambda d: bool((d["career_months"] // 12 == d["exp_year"]).all()),
                                           include_groups=False),
    })
