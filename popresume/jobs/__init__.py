"""Occupations' job postings and résumé content pools (PopResume §4.2, Appendix B.1).

* :func:`job_description` — the realistic US job posting a screener scores a résumé
  against (duties, mandatory and desirable qualifications).
* :func:`load_content` — the validated content pools (schools, majors, employers,
  titles, bullets, skills) the résumé renderer samples from.
"""

from __future__ import annotations

from pathlib import Path

from popresume.jobs.content import (
    FORBIDDEN_WORDS,
    SENIORITIES,
    default_content_dir,
    load_content,
    validate_occupation_content,
    validate_shared_content,
)
from popresume.schema import OCCUPATION_KEYS

__all__ = [
    "job_description", "load_content", "default_content_dir", "validate_occupation_content",
    "validate_shared_content", "FORBIDDEN_WORDS", "SENIORITIES",
]


def job_description(occupation: str, *, content_dir: str | Path | None = None) -> str:
    """The job posting for ``occupation`` (a key of ``popresume.schema.OCCUPATIONS``) as plain text.

    Parameters
    ----------
    occupation : str
        The occupation's key.
    content_dir : str or Path, optional
        A content folder other than the shipped one.

    Returns
    -------
    str
        The posting.

    Examples
    --------
    >>> print(job_description("nurse").splitlines()[0])
    Job title: Registered Nurse, Medical-Surgical Unit
    """
    if occupation not in OCCUPATION_KEYS:
        raise ValueError(f"unknown occupation {occupation!r}; known: {list(OCCUPATION_KEYS)}")
    p = load_content(content_dir)["occupations"][occupation]["job_posting"]
    lines = [
        f"Job title: {p['title']}",
        f"Employer: {p['employer']}",
        f"Schedule: {p['schedule']}",
        "",
        "About the role:",
        " ".join(p["summary"].split()),
        "",
        "Responsibilities:",
        *[f"- {d}" for d in p["duties"]],
        "",
        "Required qualifications:",
        *[f"- {d}" for d in p["required"]],
        "",
        "Preferred qualifications:",
        *[f"- {d}" for d in p["preferred"]],
    ]
    return "\n".join(lines)
