"""Résumé content pools: loading and schema checking (PopResume §4.2, Appendix B.1).

The content lives as YAML under ``data/content/`` (``popresume.paths.DATA_DIR``):
one file per occupation (``<occupation key>.yaml``) plus ``shared.yaml`` with the
school pools and high-school bullets. All of it was written for this project.

Schema of an occupation file (every list: non-empty strings, no duplicates)::

    occupation: <key in popresume.schema.OCCUPATIONS, equal to the file stem>
    job_posting: {title, employer, summary, schedule: str;
                  duties, required, preferred: list}
    majors:      {associate, bachelor, master, professional, doctorate: list}
    employers:   list (>= 12)
    titles:      {junior, mid, senior: list}
    work_bullets: {junior, mid, senior: list (>= 12 each)}
    education_bullets: list (>= 8)
    skills:      list (>= 8)
    preparatory: {titles: list, bullets: list (>= 8)}   (optional)

``preparatory`` holds the roles a person can hold before earning the degree the
occupation's own title needs (nursing assistant before the nursing degree, ...); an
occupation whose roles need no credential (construction laborers) has none.

``shared.yaml``: ``schools: {high_school, college, university: list (>= 10)}`` and
``high_school_bullets: list (>= 6)``.

The check also scans every string for words that would put gender or race into a
résumé outside the profile (pronouns, gendered nouns, race words): the no-leak
guarantee of §4.2 is enforced on the content, not just hoped for. A broken file
raises ``ValueError`` naming the file and the offending key.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import yaml

from popresume import yamlio
from popresume.paths import DATA_DIR
from popresume.schema import OCCUPATION_KEYS

SENIORITIES: tuple[str, ...] = ("junior", "mid", "senior")
DEGREE_MAJOR_KEYS: tuple[str, ...] = ("associate", "bachelor", "master", "professional", "doctorate")
SCHOOL_KEYS: tuple[str, ...] = ("high_school", "college", "university")

# Words that would leak gender or race (or an age group) into the text beyond the
# name line; matched as whole words, case-insensitive.
FORBIDDEN_WORDS: tuple[str, ...] = (
    "he", "she", "him", "his", "her", "hers", "himself", "herself",
    "man", "woman", "men", "women", "male", "female", "boy", "girl", "gentleman", "lady",
    "mother", "father", "husband", "wife", "mr", "mrs", "ms", "sorority", "fraternity",
    "gender", "race", "racial", "ethnic", "ethnicity", "white", "black", "asian", "african",
    "hispanic", "latino", "latina", "pacific", "islander", "caucasian", "native",
    "young", "elderly",
)
_FORBIDDEN_RE = re.compile(r"\b(" + "|".join(FORBIDDEN_WORDS) + r")\b", re.IGNORECASE)

# key -> minimum list length (variety: two résumés should rarely share all bullets)
_OCC_LISTS_MIN = {"employers": 12, "education_bullets": 8, "skills": 8}
_POSTING_STR = ("title", "employer", "summary", "schedule")
_POSTING_LISTS = ("duties", "required", "preferred")


def default_content_dir() -> Path:
    """The shipped content folder, ``data/content`` under ``popresume.paths.DATA_DIR``.

    Returns
    -------
    pathlib.Path
        The folder.

    Examples
    --------
    >>> default_content_dir().parts[-2:]
    ('data', 'content')
    """
    return DATA_DIR / "content"


def _fail(file: Path, key: str, msg: str) -> None:
    raise ValueError(f"content file {file}: key {key!r}: {msg}")


def _check_str(file: Path, key: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        _fail(file, key, f"expected a non-empty string, got {value!r}")
    # The posting is identical for every applicant of an occupation, so it cannot
    # leak anything; only strings that end up in résumés are scanned.
    if key.startswith("job_posting"):
        return
    m = _FORBIDDEN_RE.search(value)
    if m:
        _fail(file, key, f"contains the word {m.group(0)!r}, which would leak gender/race/age into résumés: {value!r}")


def _check_list(file: Path, key: str, value: Any, min_len: int = 1) -> None:
    if not isinstance(value, list):
        _fail(file, key, f"expected a list of strings, got {type(value).__name__}")
    if len(value) < min_len:
        _fail(file, key, f"needs at least {min_len} entries for variety, has {len(value)}")
    for i, v in enumerate(value):
        _check_str(file, f"{key}[{i}]", v)
    seen = set()
    for v in value:
        if v in seen:
            _fail(file, key, f"duplicate entry {v!r}")
        seen.add(v)


def _check_mapping(file: Path, key: str, value: Any, keys: tuple[str, ...]) -> None:
    if not isinstance(value, dict):
        _fail(file, key, f"expected a mapping with keys {list(keys)}, got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        _fail(file, f"{key}.{missing[0]}", "missing")
    extra = [k for k in value if k not in keys]
    if extra:
        _fail(file, f"{key}.{extra[0]}", f"unknown key (expected {list(keys)})")


def validate_occupation_content(data: Any, file: Path) -> dict:
    """Check one occupation file's parsed YAML; return it unchanged or raise naming file and key.

    Parameters
    ----------
    data : object
        The parsed YAML of one occupation file.
    file : Path
        The file, for the error messages.

    Returns
    -------
    dict
        ``data``, checked.

    Examples
    --------
    >>> from pathlib import Path
    >>> try:
    ...     validate_occupation_content([], Path("pilot.yaml"))
    ... except ValueError as refused:
    ...     print(refused)
    content file pilot.yaml: expected a mapping at top level, got list
    """
    file = Path(file)
    if not isinstance(data, dict):
        raise ValueError(f"content file {file}: expected a mapping at top level, got {type(data).__name__}")
    required = ("occupation", "job_posting", "majors", "employers", "titles", "work_bullets",
                "education_bullets", "skills")
    for k in required:
        if k not in data:
            _fail(file, k, "missing")
    for k in data:
        if k not in required + ("preparatory",):
            _fail(file, k, f"unknown key (expected {list(required)} and optionally 'preparatory')")
    occ = data["occupation"]
    if occ not in OCCUPATION_KEYS:
        _fail(file, "occupation", f"unknown occupation {occ!r}; known: {list(OCCUPATION_KEYS)}")
    if file.stem != occ:
        _fail(file, "occupation", f"{occ!r} does not match the file name {file.name!r}")
    _check_mapping(file, "job_posting", data["job_posting"], _POSTING_STR + _POSTING_LISTS)
    for k in _POSTING_STR:
        _check_str(file, f"job_posting.{k}", data["job_posting"][k])
    for k in _POSTING_LISTS:
        _check_list(file, f"job_posting.{k}", data["job_posting"][k], 2)
    _check_mapping(file, "majors", data["majors"], DEGREE_MAJOR_KEYS)
    for k in DEGREE_MAJOR_KEYS:
        _check_list(file, f"majors.{k}", data["majors"][k], 1)
    for k, n in _OCC_LISTS_MIN.items():
        _check_list(file, k, data[k], n)
    _check_mapping(file, "titles", data["titles"], SENIORITIES)
    _check_mapping(file, "work_bullets", data["work_bullets"], SENIORITIES)
    for s in SENIORITIES:
        _check_list(file, f"titles.{s}", data["titles"][s], 1)
        # a four-role résumé may hold two senior roles of three bullets each
        _check_list(file, f"work_bullets.{s}", data["work_bullets"][s], 12)
    if "preparatory" in data:
        _check_mapping(file, "preparatory", data["preparatory"], ("titles", "bullets"))
        _check_list(file, "preparatory.titles", data["preparatory"]["titles"], 1)
        # up to four roles of two bullets each can precede the degree
        _check_list(file, "preparatory.bullets", data["preparatory"]["bullets"], 8)
    return data


def validate_shared_content(data: Any, file: Path) -> dict:
    """Check ``shared.yaml``; return it unchanged or raise naming file and key.

    Parameters
    ----------
    data, file
        The parsed YAML of ``shared.yaml`` and its path, as for :func:`validate_occupation_content`.

    Returns
    -------
    dict
        ``data`` itself, once every key is checked.

    Examples
    --------
    >>> from pathlib import Path
    >>> try:
    ...     validate_shared_content({}, Path("shared.yaml"))
    ... except ValueError as refused:
    ...     print(refused)
    content file shared.yaml: key 'schools': missing
    """
    file = Path(file)
    if not isinstance(data, dict):
        raise ValueError(f"content file {file}: expected a mapping at top level, got {type(data).__name__}")
    for k in ("schools", "high_school_bullets"):
        if k not in data:
            _fail(file, k, "missing")
    _check_mapping(file, "schools", data["schools"], SCHOOL_KEYS)
    for k in SCHOOL_KEYS:
        _check_list(file, f"schools.{k}", data["schools"][k], 10)
    _check_list(file, "high_school_bullets", data["high_school_bullets"], 6)
    return data


def _read_yaml(file: Path) -> Any:
    if not file.exists():
        raise FileNotFoundError(f"content file not found: {file}")
    try:
        return yamlio.load(file.read_text(encoding="utf-8"))  # safe tags; a key written twice is an error
    except yaml.YAMLError as e:
        raise ValueError(f"content file {file}: not valid YAML: {e}") from e


@functools.lru_cache(maxsize=8)
def _load_cached(content_dir: str) -> dict:
    d = Path(content_dir)
    shared = validate_shared_content(_read_yaml(d / "shared.yaml"), d / "shared.yaml")
    occupations = {}
    for occ in OCCUPATION_KEYS:
        f = d / f"{occ}.yaml"
        occupations[occ] = validate_occupation_content(_read_yaml(f), f)
    return {"shared": shared, "occupations": occupations, "dir": str(d)}


def load_content(content_dir: str | Path | None = None) -> dict:
    """Load and validate every content file: ``{"shared": ..., "occupations": {key: ...}}``.

    Cached per folder; raises ``FileNotFoundError``/``ValueError`` naming the file
    (and key) at the first problem. Do not mutate the returned dict.

    Parameters
    ----------
    content_dir : str or Path, optional
        The content folder (default :func:`default_content_dir`).

    Returns
    -------
    dict
        The shared pools, each occupation's content and the folder read.

    Examples
    --------
    >>> content = load_content()
    >>> sorted(content), "nurse" in content["occupations"]
    (['dir', 'occupations', 'shared'], True)
    """
    d = Path(content_dir) if content_dir is not None else default_content_dir()
    return _load_cached(str(d.resolve()))
