"""Instantiation rules: a structured profile becomes a résumé (PopResume Appendix B.1).

Every résumé is a deterministic function of one profile row and a seed. The random
choices (school, major, employer, title, bullets, phone digits, role durations) come
from a generator seeded by ``(seed, resume_id)`` only — never by the name, gender or
race — and are drawn in an order that depends only on ``edu_level`` and ``exp_year``.
So two profiles that differ only in gender and first name get résumés that differ
only in the name and e-mail lines (tested in ``tests/test_resumes_rules.py``).

Rules (Appendix B.1, with the choices the paper leaves open made explicit):

* **Education** from ``edu_level``: high school, "Some college (no degree)",
  Associate's and Bachelor's give one entry; Master's, Professional degree and
  Doctorate give two, a Bachelor's first, then the higher degree. "Some college"
  (which the paper does not spell out) is one entry "College coursework (no degree)"
  at a community/technical college, dated by the last year attended. Graduation ages:
  typical age (18, 19, 20, 22, 24, 25, 27 for the seven levels) plus 0–2 years,
  moved earlier when the experience would not otherwise fit before the reference
  date, but never below a minimum age (17, 18, 19, 21, 22, 23, 24); a profile too
  young for its degree is an error. Graduation is taken to be in June.
* **Work history** from ``exp_year``, built *forward from the end of education* as
  Appendix B.1 says ("employment periods are constructed sequentially starting from
  the end of education"): 1 role below 3 years, 2 roles for 3–5, 3 for 6–10, 4 past
  10. The career lasts ``12·exp_year`` plus 0–11 months (``exp_year`` counts
  completed years; ``exp_year = 0`` is 3–11 months), so ``months // 12 == exp_year``.
  It starts 1–25 months after graduation (Figure 8: a 2017 Bachelor's, first role
  2018.10), in roles of a 6-month minimum each (the rest split at random), and ends at
  the reference date ``2023.12``: every profile is an ACS 2023 worker employed in the
  occupation, so every résumé shows a current role. The months between the first role
  and 2023.12 that ``exp_year`` does not cover are breaks between roles, split equally
  (with a single role, a later start). The alternative, ``career_end="forward"``,
  runs the roles contiguously and lets the career end where it ends, which puts all the
  time not worked after the last role: with the ``"psid"`` experience source, whose men have no
  time out by construction (their age is derived from schooling and experience), that
  makes "no current job" a property of women's résumés only. Seniority by order, oldest
  first: junior, mid, senior, senior.
* **Titles** as in Figure 8: a role in the occupation is titled with the
  occupation's name as the paper prints it ("Accountants Auditors"); the content's
  seniority titles ("Charge Nurse", ...) are the ``job_titles="seniority"`` option.
* **No role needs a degree not yet earned.** A role titled with the occupation needs
  the occupation's typical entry-level education (BLS Employment Projections,
  education and training assignments: a Bachelor's for the four professions, no
  formal credential for construction laborers), or the person's own highest
  credential when that is lower (the ACS says they hold the job). Survey experience
  counts the years of work since age 18, so some profiles have more experience than
  fits between the end of education and 2023.12. For them
  the career ends at 2023.12 and starts ``exp_year`` years earlier: the time before the
  needed degree is spent in *preparatory* roles that need only high school (nursing
  assistant, accounting clerk, ... from the content's ``preparatory`` pool), the roles in
  the occupation start the month after that graduation, and the roles are shared between
  the two spans in proportion to their length;
  a Master's may then be earned while working in a Bachelor's-level role. Each
  :class:`Role` records the degree it needs (``Role.needs``) and the tests check that
  it starts after that degree's graduation.
* **Header**: the name, the state as its USPS code, a fictional US phone number in
  the 555-01XX range reserved for fiction, and ``first.last@example.com``.
* **Sections** in the paper's order: header, skills (optional, off by default as in
  the paper's main setup), work history (most recent first, 2 bullets per role as in
  Figure 8), education.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from popresume.jobs import load_content
from popresume.schema import EDU_LEVELS, OCCUPATION_KEYS, OCCUPATION_LABELS

REFERENCE_YEAR = 2023
REFERENCE_MONTH = 12

# Education plan per ACS level (Appendix B.1): the degrees listed, in order.
EDU_PLAN: dict[str, tuple[str, ...]] = {
    "High school graduate/GED": ("high_school",),
    "Some college (no degree)": ("some_college",),
    "Associate's degree": ("associate",),
    "Bachelor's": ("bachelor",),
    "Master's": ("bachelor", "master"),
    "Professional degree": ("bachelor", "professional"),
    "Doctorate": ("bachelor", "doctorate"),
}
assert tuple(EDU_PLAN) == EDU_LEVELS
DEGREE_LABEL = {
    "high_school": "High School Diploma", "some_college": "College coursework (no degree)",
    "associate": "Associate's", "bachelor": "Bachelor's", "master": "Master's",
    "professional": "Professional degree", "doctorate": "Doctorate",
}
TYPICAL_AGE = {"high_school": 18, "some_college": 19, "associate": 20, "bachelor": 22,
               "master": 24, "professional": 25, "doctorate": 27}
MIN_AGE = {"high_school": 17, "some_college": 18, "associate": 19, "bachelor": 21,
           "master": 22, "professional": 23, "doctorate": 24}
# years between the Bachelor's and the higher degree when the timeline allows
TYPICAL_GAP = {"master": 2, "professional": 3, "doctorate": 5}
SCHOOL_POOL = {"high_school": "high_school", "some_college": "college", "associate": "college",
               "bachelor": "university", "master": "university", "professional": "university",
               "doctorate": "university"}
MAJOR_POOL = {"some_college": "associate", "associate": "associate", "bachelor": "bachelor",
              "master": "master", "professional": "professional", "doctorate": "doctorate"}

SENIORITY_BY_N: dict[int, tuple[str, ...]] = {
    1: ("junior",), 2: ("junior", "mid"), 3: ("junior", "mid", "senior"),
    4: ("junior", "mid", "senior", "senior"),
}
BULLETS_PER_ROLE = 2  # Figure 8
BULLETS_PER_EDUCATION = 2
N_SKILLS = 8
MIN_ROLE_MONTHS = 6
GRADUATION_MONTH = 6  # June
MAX_START_GAP_MONTHS = 25  # first role 1..25 months after graduation
JOB_TITLES = ("paper", "seniority")
# Where a career ends. "reference" (default): at 2023.12 for everyone, since every profile
# is an ACS 2023 worker *employed* in the occupation; the months not worked between the
# first role and 2023.12 become breaks between roles. "forward": contiguous roles from the
# first one, ending where they end (the months not worked all fall after the last role).
CAREER_ENDS = ("reference", "forward")

# Typical entry-level education of each occupation (BLS Employment Projections,
# education and training assignments by detailed occupation); None = no formal
# educational credential.
ENTRY_DEGREE: dict[str, str | None] = {
    "nurse": "bachelor", "teacher": "bachelor", "software_developer": "bachelor",
    "accountant": "bachelor", "construction_laborer": None,
}
# Credential rank used to cap the entry requirement at a person's own credential
# ("some college" is not a credential).
CREDENTIAL_RANK = {"high_school": 0, "associate": 1, "bachelor": 2, "master": 3, "professional": 3, "doctorate": 3}

US_STATES: dict[str, str] = {
    "Alabama": "AL", "Alaska": "AK", "Arizona": "AZ", "Arkansas": "AR", "California": "CA",
    "Colorado": "CO", "Connecticut": "CT", "Delaware": "DE", "District of Columbia": "DC",
    "Florida": "FL", "Georgia": "GA", "Hawaii": "HI", "Idaho": "ID", "Illinois": "IL",
    "Indiana": "IN", "Iowa": "IA", "Kansas": "KS", "Kentucky": "KY", "Louisiana": "LA",
    "Maine": "ME", "Maryland": "MD", "Massachusetts": "MA", "Michigan": "MI", "Minnesota": "MN",
    "Mississippi": "MS", "Missouri": "MO", "Montana": "MT", "Nebraska": "NE", "Nevada": "NV",
    "New Hampshire": "NH", "New Jersey": "NJ", "New Mexico": "NM", "New York": "NY",
    "North Carolina": "NC", "North Dakota": "ND", "Ohio": "OH", "Oklahoma": "OK", "Oregon": "OR",
    "Pennsylvania": "PA", "Rhode Island": "RI", "South Carolina": "SC", "South Dakota": "SD",
    "Tennessee": "TN", "Texas": "TX", "Utah": "UT", "Vermont": "VT", "Virginia": "VA",
    "Washington": "WA", "West Virginia": "WV", "Wisconsin": "WI", "Wyoming": "WY",
}
USPS_CODES = frozenset(US_STATES.values())
_STATE_BY_LOWER = {k.lower(): v for k, v in US_STATES.items()}


def month_index(ym: tuple[int, int]) -> int:
    """``(year, month)`` as a count of months (January of year 0 is 0), so that dates in a
    résumé subtract and compare as integers."""
    return ym[0] * 12 + ym[1] - 1


def month_of_index(i: int) -> tuple[int, int]:
    """The ``(year, month)`` of a :func:`month_index`."""
    return i // 12, i % 12 + 1


@dataclass(frozen=True)
class EducationEntry:
    """One degree of a résumé's education section.

    Parameters
    ----------
    degree : str
        The degree's level.
    major : str or None
        The field of study.
    school : str
        The school.
    year : int
        Year completed.
    bullets : tuple of str
        Coursework and projects.

    Examples
    --------
    >>> EducationEntry("bachelor", "Health Sciences", "Pinecrest University", 2011, ()).year
    2011
    """
    degree: str  # key of DEGREE_LABEL
    major: str | None
    school: str
    year: int  # graduation (or last attended) year
    bullets: tuple[str, ...]

    @property
    def label(self) -> str:
        return DEGREE_LABEL[self.degree]


@dataclass(frozen=True)
class Role:
    """Role in a résumé's work history.

    Parameters
    ----------
    title, employer : str
        The job title and the employer.
    start, end : (int, int)
        Year and month.
    seniority : str
        The role's seniority level.
    bullets : tuple of str
        What the applicant did.
    needs : str, optional
        The degree the role requires.
    preparatory : bool
        A role held before the occupation (e.g. while studying).

    Examples
    --------
    >>> Role("Registered Nurse", "Lakemont", (2020, 1), (2023, 6), "mid", ("Cared for patients",)).end
    (2023, 6)
    """
    title: str
    employer: str
    start: tuple[int, int]  # (year, month)
    end: tuple[int, int]
    seniority: str
    bullets: tuple[str, ...]
    needs: str | None = None  # degree key the role needs (None: no credential)
    preparatory: bool = False  # held before the degree the occupation's title needs

    @property
    def period(self) -> str:
        return f"{self.start[0]}.{self.start[1]:02d}\u2013{self.end[0]}.{self.end[1]:02d}"

    @property
    def months(self) -> int:
        return month_index(self.end) - month_index(self.start)


@dataclass(frozen=True)
class Resume:
    """The structured résumé: what the text and image renderers lay out.

    Parameters
    ----------
    resume_id, occupation, name, state, phone, email : str
        Who, for which occupation, and how to reach them.
    roles : tuple of Role
        The work history, latest first.
    education : tuple of EducationEntry
        The degrees.
    skills : tuple of str
        The skills section's items.
    graduation : dict
        When each degree was completed.

    Examples
    --------
    >>> from popresume.resumes import toy_profiles
    >>> r = build_resume(toy_profiles(1).iloc[0].to_dict())
    >>> isinstance(r, Resume), r.occupation
    (True, 'nurse')
    """
    resume_id: str
    occupation: str
    name: str
    state: str
    phone: str
    email: str
    roles: tuple[Role, ...]  # most recent first
    education: tuple[EducationEntry, ...]  # chronological (Bachelor's first)
    skills: tuple[str, ...]  # always drawn (so draws do not depend on the flag); shown only if asked
    graduation: dict  # degree key -> (year, month) of graduation, incl. an implicit high school

    @property
    def career_months(self) -> int:
        return sum(r.months for r in self.roles)

    @property
    def contact_line(self) -> str:
        return f"{self.state}, USA | {self.phone} | {self.email}"


def n_roles(exp_year: int) -> int:
    """Piecewise number of roles (Appendix B.1): 1 below 3 years, 2 for 3–5, 3 for 6–10, 4 past 10.

    Parameters
    ----------
    exp_year : int
        Years of experience.

    Returns
    -------
    int
        The number of roles.

    Examples
    --------
    >>> [n_roles(years) for years in (2, 4, 8, 12)]
    [1, 2, 3, 4]
    """
    if exp_year < 3:
        return 1
    if exp_year <= 5:
        return 2
    if exp_year <= 10:
        return 3
    return 4


def n_education_entries(edu_level: str) -> int:
    """1 for high school, some college, Associate's, Bachelor's; 2 for the advanced degrees.

    Parameters
    ----------
    edu_level : str
        One of :data:`popresume.schema.EDU_LEVELS`.

    Returns
    -------
    int
        The number of education entries.

    Examples
    --------
    >>> n_education_entries("Bachelor's"), n_education_entries("Doctorate")
    (1, 2)
    """
    return len(EDU_PLAN[edu_level])


def resume_rng(seed: int, resume_id: str) -> np.random.Generator:
    """The per-résumé generator: a hash of (seed, resume_id) only — never of the name or gender."""
    h = hashlib.blake2b(f"{int(seed)}\x1f{resume_id}".encode(), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(h, "little"))


def state_code(state: str, *, where: str = "") -> str:
    """USPS code for a state given as a code ("CA") or a name ("California")."""
    s = str(state).strip()
    if s.upper() in USPS_CODES:
        return s.upper()
    code = _STATE_BY_LOWER.get(s.lower())
    if code is None:
        raise ValueError(f"profile {where}: unknown state {state!r}; expected a USPS code or a state name")
    return code


def _ascii_word(s: str) -> str:
    s = unicodedata.normalize("NFKD", str(s)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", s.lower())


def email_from_name(first_name: str, surname: str) -> str:
    """``first.last@example.com`` (example.com is reserved for documentation: never a real inbox)."""
    parts = [p for p in (_ascii_word(first_name), _ascii_word(surname)) if p]
    return f"{'.'.join(parts) or 'applicant'}@example.com"


class _Draws:
    """A block of uniforms from the per-résumé generator, consumed in a fixed order.

    One ``rng.random`` call per résumé instead of one ``rng.choice`` per pool keeps
    the 60,884-résumé corpus well under a minute (numpy's per-call overhead
    dominated otherwise); picks are a partial Fisher-Yates shuffle.
    """

    __slots__ = ("u", "i")
    N = 128  # more than any résumé needs (at most ~50 draws)

    def __init__(self, rng: np.random.Generator) -> None:
        self.u = rng.random(self.N).tolist()
        self.i = 0

    def uniform(self) -> float:
        x = self.u[self.i]
        self.i += 1
        return x

    def integer(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi)."""
        return lo + int(self.uniform() * (hi - lo))

    def pick(self, pool: list, k: int) -> list:
        n = len(pool)
        if k > n:
            raise ValueError(f"content pool has {n} entries, {k} needed")
        idx = list(range(n))
        for j in range(k):
            r = j + int(self.uniform() * (n - j))
            idx[j], idx[r] = idx[r], idx[j]
        return [pool[i] for i in idx[:k]]


def _role_weights(draws: _Draws, n: int) -> list[float]:
    """Dirichlet(2, ..., 2) weights (sums of two exponentials) for ``n`` roles: no role is
    usually tiny and none dominates by construction. Always 2·n draws (none for one role)."""
    if n == 1:
        return [1.0]
    return [-math.log1p(-draws.uniform()) - math.log1p(-draws.uniform()) for _ in range(n)]


def _split_months(total: int, weights: list[float]) -> list[int]:
    """Split ``total`` months into one role per weight, each at least MIN_ROLE_MONTHS when possible."""
    n = len(weights)
    if n == 1:
        return [total]
    base = min(MIN_ROLE_MONTHS, total // n)
    rest = total - base * n
    s = sum(weights)
    extra = [int(rest * x / s) for x in weights]
    extra[-1] += rest - sum(extra)
    return [base + e for e in extra]


def qualifying_degree(occupation: str, plan: tuple[str, ...]) -> str | None:
    """The degree a role titled with ``occupation`` needs for a person whose education is ``plan``.

    The occupation's typical entry-level education (:data:`ENTRY_DEGREE`), capped at the
    person's own highest credential (high school when "some college" is all they have).
    """
    entry = ENTRY_DEGREE[occupation]
    if entry is None:
        return None
    held = ["high_school"] + [d for d in plan if d in CREDENTIAL_RANK and d != "high_school"]
    ok = [d for d in held if CREDENTIAL_RANK[d] <= CREDENTIAL_RANK[entry]]
    return ok[-1]


def build_resume(profile: Mapping, *, seed: int = 0, content: dict | None = None,
                 job_titles: str = "paper", career_end: str = "reference") -> Resume:
    """Instantiate one résumé from one (already schema-validated) profile row.

    ``profile`` needs the PROFILE_COLUMNS fields; raises ``ValueError`` naming the
    ``resume_id`` when the row is inconsistent (degree impossible at that age,
    unknown state, birth year that does not match age).

    Parameters
    ----------
    profile : mapping
        One profile row.
    seed : int
        Seed of the random content.
    content : dict, optional
        The content pools (default: :func:`popresume.jobs.load_content`).
    job_titles : str
        Which job titles the roles get ("paper": the occupation's).
    career_end : str
        Where the career ends ("reference": at the reference date).

    Returns
    -------
    Resume
        The structured résumé.

    Examples
    --------
    >>> from popresume.resumes import toy_profiles
    >>> r = build_resume(toy_profiles(1).iloc[0].to_dict())
    >>> r.name, len(r.roles), r.education[0].degree
    ('Avery Johnson', 2, 'bachelor')
    """
    if job_titles not in JOB_TITLES:
        raise ValueError(f"job_titles {job_titles!r}: expected one of {list(JOB_TITLES)}")
    if career_end not in CAREER_ENDS:
        raise ValueError(f"career_end {career_end!r}: expected one of {list(CAREER_ENDS)}")
    content = content or load_content()
    rid = str(profile["resume_id"])
    where = f"resume_id {rid!r}"
    occ = profile["occupation"]
    if occ not in OCCUPATION_KEYS:
        raise ValueError(f"profile {where}: unknown occupation {occ!r}")
    edu_level = profile["edu_level"]
    if edu_level not in EDU_PLAN:
        raise ValueError(f"profile {where}: unknown edu_level {edu_level!r}; expected one of {list(EDU_LEVELS)}")
    age, exp_year, birth_year = int(profile["age"]), int(profile["exp_year"]), int(profile["birth_year"])
    if exp_year < 0 or exp_year > age - 18:
        raise ValueError(f"profile {where}: exp_year {exp_year} outside 0..age-18 = {age - 18}")
    if abs(REFERENCE_YEAR - age - birth_year) > 1:
        raise ValueError(f"profile {where}: birth_year {birth_year} inconsistent with age {age} "
                         f"(expected {REFERENCE_YEAR - age})")
    plan = EDU_PLAN[edu_level]
    top = plan[-1]
    if age < MIN_AGE[top]:
        raise ValueError(f"profile {where}: edu_level {edu_level!r} impossible at age {age} "
                         f"(needs at least {MIN_AGE[top]})")
    state = state_code(profile["state"], where=where)
    occ_c = content["occupations"][occ]
    shared = content["shared"]
    draws = _Draws(resume_rng(seed, rid))

    # 1. contact: +1-NXX-555-01XX (555-0100..0199 is reserved for fictional use)
    area = draws.integer(201, 990)
    if area % 100 == 11:  # N11 codes are service codes, not area codes
        area += 1
    phone = f"+1-{area}-555-01{draws.integer(0, 100):02d}"

    # 2. career length: exp_year completed years plus 0-11 months (3-11 for exp_year 0)
    u_extra = draws.uniform()
    total = 12 * exp_year + (3 + int(u_extra * 9) if exp_year == 0 else int(u_extra * 12))
    n = n_roles(exp_year)
    ref_idx = month_index((REFERENCE_YEAR, REFERENCE_MONTH))
    # roles never start before the (implicit) high-school graduation at the minimum age
    hs_idx = month_index((birth_year + MIN_AGE["high_school"], GRADUATION_MONTH))
    total = min(total, ref_idx - hs_idx - 1)
    weights = _role_weights(draws, n)
    u_gap = draws.uniform()

    # 3. education, chronological, placed so that the career fits after it when it can
    jitter = [draws.integer(0, 3) for _ in plan]
    top_year = min(birth_year + TYPICAL_AGE[top] + jitter[-1], REFERENCE_YEAR)
    latest_fit = (ref_idx - total - 1 - (GRADUATION_MONTH - 1)) // 12  # graduate, then work `total` months
    top_year = max(min(top_year, latest_fit), birth_year + MIN_AGE[top])
    top_year = min(top_year, REFERENCE_YEAR)
    years = [top_year]
    if len(plan) == 2:
        bach = top_year - TYPICAL_GAP[top] - (jitter[0] == 2)  # occasionally a year off between degrees
        bach = max(bach, birth_year + MIN_AGE["bachelor"])
        bach = min(bach, top_year - 1)
        years = [bach, top_year]
    schools = {}
    for pool_key in dict.fromkeys(SCHOOL_POOL[d] for d in plan):
        k = sum(SCHOOL_POOL[d] == pool_key for d in plan)
        schools[pool_key] = draws.pick(shared["schools"][pool_key], k)
    n_hs = sum(d == "high_school" for d in plan)
    edu_bullets = draws.pick(occ_c["education_bullets"], BULLETS_PER_EDUCATION * (len(plan) - n_hs))
    hs_bullets = draws.pick(shared["high_school_bullets"], BULLETS_PER_EDUCATION * n_hs)
    entries = []
    for d, y in zip(plan, years):
        school = schools[SCHOOL_POOL[d]].pop(0)
        if d == "high_school":
            major = None
            bl = tuple(hs_bullets[:BULLETS_PER_EDUCATION]); hs_bullets = hs_bullets[BULLETS_PER_EDUCATION:]
        else:
            major = draws.pick(occ_c["majors"][MAJOR_POOL[d]], 1)[0]
            bl = tuple(edu_bullets[:BULLETS_PER_EDUCATION]); edu_bullets = edu_bullets[BULLETS_PER_EDUCATION:]
        entries.append(EducationEntry(d, major, school, int(y), bl))
    graduation = {"high_school": (birth_year + MIN_AGE["high_school"], GRADUATION_MONTH)}
    graduation.update({e.degree: (e.year, GRADUATION_MONTH) for e in entries})

    # 4. the career, forward from the end of education (Appendix B.1)
    edu_end = max(month_index(ym) for ym in graduation.values())
    slack = ref_idx - edu_end - total  # months between graduation and 2023.12 not spent working
    breaks = 0  # months not worked between the first role and 2023.12 (career_end="reference")
    if slack >= 1:
        start_idx = edu_end + 1 + min(int(u_gap * MAX_START_GAP_MONTHS), slack - 1)
        if career_end == "reference":
            breaks = ref_idx - start_idx - total
            if n == 1:  # no role to put a break between: the one role starts later
                start_idx, breaks = ref_idx - total, 0
    else:  # more experience than fits after education: the career ends at the reference date
        start_idx = ref_idx - total
    gaps = [0] + [breaks // (n - 1) + (i < breaks % (n - 1)) for i in range(n - 1)] if n > 1 else [0]
    needs = qualifying_degree(occ, plan)
    needs_idx = None if needs is None else month_index(graduation[needs])
    before = 0 if needs_idx is None else needs_idx + 1 - start_idx  # months worked before the needed degree
    if before > 0 and n > 1:
        # preparatory roles fill the time until graduation and the occupation's roles start the
        # month after it; the roles are shared between the two spans in proportion to their length
        k = min(max(round(n * before / total), 1), n - 1)
        months = _split_months(before, weights[:k]) + _split_months(total - before, weights[k:])
    else:
        months = _split_months(total, weights)

    # 5. roles, oldest first: seniority by order; employers distinct; bullets distinct per seniority
    seniorities = SENIORITY_BY_N[n]
    employers = draws.pick(occ_c["employers"], n)
    bullets_by_s = {s: draws.pick(occ_c["work_bullets"][s], BULLETS_PER_ROLE * seniorities.count(s))
                    for s in dict.fromkeys(seniorities)}
    titles_by_s = {s: draws.pick(occ_c["titles"][s], 1)[0] for s in dict.fromkeys(seniorities)}
    prep = occ_c.get("preparatory")
    prep_title = draws.pick(prep["titles"], 1)[0] if prep else None
    prep_bullets = draws.pick(prep["bullets"], BULLETS_PER_ROLE * n) if prep else []
    occ_title = OCCUPATION_LABELS[occ]
    roles = []
    cursor = start_idx
    for i, (s, m) in enumerate(zip(seniorities, months)):
        a = cursor + gaps[i]
        b = a + m
        cursor = b
        if needs_idx is not None and a <= needs_idx:
            if prep is None:  # pragma: no cover - guarded by the content schema and ENTRY_DEGREE
                raise ValueError(f"profile {where}: occupation {occ!r} has no preparatory roles in its content")
            title, need, is_prep = prep_title, "high_school", True
            bl = prep_bullets[BULLETS_PER_ROLE * i:BULLETS_PER_ROLE * (i + 1)]
        else:
            title = occ_title if job_titles == "paper" else titles_by_s[s]
            need, is_prep = needs, False
            bl = bullets_by_s[s][:BULLETS_PER_ROLE]
            bullets_by_s[s] = bullets_by_s[s][BULLETS_PER_ROLE:]
        roles.append(Role(title, employers[i], month_of_index(a), month_of_index(b), s, tuple(bl),
                          need, is_prep))

    # 6. skills last, so toggling the section changes nothing else
    skills = tuple(draws.pick(occ_c["skills"], N_SKILLS))

    name = f"{str(profile['first_name']).strip()} {str(profile['surname']).strip()}"
    return Resume(
        resume_id=rid, occupation=occ, name=name, state=state, phone=phone,
        email=email_from_name(profile["first_name"], profile["surname"]),
        roles=tuple(reversed(roles)), education=tuple(entries), skills=skills, graduation=graduation,
    )
