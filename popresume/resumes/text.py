"""Plain-text résumés for LLM screeners (PopResume Figure 8a).

Layout follows the paper's example: the name in capitals, a contact line
``ST, USA | phone | e-mail``, then (optionally) SKILLS, WORK HISTORY (most recent
first, ``Title, Employer, YYYY.MM–YYYY.MM`` with ``-`` bullets) and EDUCATION
(``Degree, Major, School, Year`` with bullets).
"""

from __future__ import annotations

from typing import Iterable, Mapping

import pandas as pd

from popresume.jobs import load_content
from popresume.progress import progress_bar
from popresume.resumes.rules import Resume, build_resume
from popresume.schema import validate_profiles


def education_line(e) -> str:
    parts = [e.label] + ([e.major] if e.major else []) + [e.school, str(e.year)]
    return ", ".join(parts)


def role_line(r) -> str:
    return f"{r.title}, {r.employer}, {r.period}"


def format_text(resume: Resume, *, skills: bool = False) -> str:
    """Lay a structured :class:`Resume` out as plain text.

    Parameters
    ----------
    resume : Resume
        The structured résumé.
    skills : bool
        Add a skills section.

    Returns
    -------
    str
        The résumé's text, as :func:`render_text` gives it.

    Examples
    --------
    >>> from popresume.resumes import build_resume, toy_profiles
    >>> profile = toy_profiles(1).iloc[0].to_dict()  # one nurse
    >>> format_text(build_resume(profile)) == render_text(profile)
    True
    """
    lines = [resume.name.upper(), resume.contact_line]
    if skills:
        lines += ["", "SKILLS", ", ".join(resume.skills)]
    lines += ["", "WORK HISTORY"]
    for r in resume.roles:
        lines.append(role_line(r))
        lines += [f"- {b}" for b in r.bullets]
    lines += ["", "EDUCATION"]
    for e in resume.education:
        lines.append(education_line(e))
        lines += [f"- {b}" for b in e.bullets]
    return "\n".join(lines)


def _as_frame(profiles) -> pd.DataFrame:
    if isinstance(profiles, pd.DataFrame):
        return profiles
    if isinstance(profiles, Mapping):
        return pd.DataFrame([dict(profiles)])
    return pd.DataFrame(list(profiles))


def render_text(profile: Mapping, *, seed: int = 0, skills: bool = False) -> str:
    """One profile row (a mapping with the PROFILE_COLUMNS fields) → résumé text.

    The row is validated first (missing/unknown field, exp_year beyond age - 18, ...);
    errors name the field and the ``resume_id``.

    Parameters
    ----------
    profile : mapping
        One profile row.
    seed : int
        Seed of the résumé's random content (employers, bullets).
    skills : bool
        Add a skills section.

    Returns
    -------
    str
        The résumé.

    Examples
    --------
    >>> from popresume.resumes import toy_profiles
    >>> profile = toy_profiles(1).iloc[0].to_dict()  # one nurse
    >>> print(render_text(profile).splitlines()[0])
    AVERY JOHNSON
    """
    if isinstance(profile, pd.Series):
        profile = profile.to_dict()
    validate_profiles(_as_frame(profile))
    return format_text(build_resume(profile, seed=seed), skills=skills)


def build_resumes(profiles: pd.DataFrame | Iterable[Mapping], *, seed: int = 0,
                  progress: bool = False) -> list[Resume]:
    """Validate a profile table and instantiate every row's structured :class:`Resume`.

    Parameters
    ----------
    profiles, seed, progress
        As for :func:`render_texts`.

    Returns
    -------
    list of Resume
        One per profile, in order.

    Examples
    --------
    >>> from popresume.resumes import toy_profiles
    >>> [r.occupation for r in build_resumes(toy_profiles(1))][:2]
    ['nurse', 'teacher']
    """
    df = validate_profiles(_as_frame(profiles))
    content = load_content()
    records = df.to_dict("records")
    it = progress_bar(records, desc="résumés", unit="résumé", disable=not progress)
    return [build_resume(p, seed=seed, content=content) for p in it]


def render_texts(profiles: pd.DataFrame | Iterable[Mapping], *, seed: int = 0, skills: bool = False,
                 progress: bool = False) -> pd.DataFrame:
    """Render every profile as text: a DataFrame with columns resume_id, occupation, text.

    Parameters
    ----------
    profiles : pandas.DataFrame or iterable of mapping
        The profiles.
    seed : int
        Seed of the résumés' random content.
    skills : bool
        Add a skills section.
    progress : bool
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per profile.

    Examples
    --------
    >>> from popresume.resumes import toy_profiles
    >>> texts = render_texts(toy_profiles(2))
    >>> len(texts), texts.columns.tolist()
    (10, ['resume_id', 'occupation', 'text'])
    """
    resumes = build_resumes(profiles, seed=seed, progress=progress)
    return pd.DataFrame({
        "resume_id": [r.resume_id for r in resumes],
        "occupation": [r.occupation for r in resumes],
        "text": [format_text(r, skills=skills) for r in resumes],
    })
