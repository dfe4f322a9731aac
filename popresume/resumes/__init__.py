"""Résumé realization (PopResume §4.2, Appendix B.1): profile row → text, image, image + photo.

* :mod:`popresume.resumes.rules` — the instantiation rules (education, work history,
  header) producing a structured :class:`Resume`;
* :mod:`popresume.resumes.text` — plain text (``render_text``, ``render_texts``);
* :mod:`popresume.resumes.image` — one-page PNG (``render_images``);
* :mod:`popresume.resumes.photo` — pluggable face sources for the photo format;
* :mod:`popresume.resumes.stats` — corpus statistics (tokens, roles, entries, variety).
"""

from popresume.resumes.rules import (
    REFERENCE_MONTH,
    REFERENCE_YEAR,
    EducationEntry,
    Resume,
    Role,
    build_resume,
    n_education_entries,
    n_roles,
)
from popresume.resumes.text import build_resumes, format_text, render_text, render_texts

__all__ = [
    "render_text", "render_texts", "render_images", "build_resume", "build_resumes", "format_text",
    "Resume", "Role", "EducationEntry", "n_roles", "n_education_entries", "REFERENCE_YEAR",
    "REFERENCE_MONTH", "toy_profiles",
]


def __getattr__(name):  # lazy: Pillow/joblib only when images are asked for
    if name == "render_images":
        from popresume.resumes.image import render_images  # lazy: Pillow and joblib only when images are asked for
        return render_images
    if name == "toy_profiles":
        from popresume.resumes.examples import toy_profiles  # lazy, as render_images
        return toy_profiles
    raise AttributeError(name)
