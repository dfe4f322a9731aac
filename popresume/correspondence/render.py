"""B&M profiles rendered as plain-text résumés, and the ads as short postings.

B&M's original résumé texts are not public; the shipped data hold their *features*
(education, years of experience, number of jobs, honors, volunteering, military service,
employment holes, work in school, email, computer and special skills, the résumé's
occupation) and the ad's (occupation, city, requirements). This module writes a résumé from
those features alone, in the layout of :mod:`popresume.resumes.text` (name in capitals, a
contact line, WORK HISTORY, EDUCATION, SKILLS).

No-leak rule (as for PopResume's résumés): the only thing that differs between two profiles
with the same features and different names is the name (first-name line and email). Every
résumé shares one surname, :data:`SURNAME`; a constant cannot create a gap between groups.
Its Census 2010 shares (46% White, 48% Black among bearers) make it "neutral" under C.4's
0.5 rule. The address is the ad's city only: B&M's street addresses are not in the data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SURNAME = "Williams"
LAST_YEAR = 2001  # B&M sent the résumés in 2001-02
_STATE = {"Boston": "MA", "Chicago": "IL"}

# job titles per résumé occupation, most senior last
_TITLES = {
    "executive and managerial": ["Assistant Manager", "Office Manager", "Operations Manager", "Branch Manager"],
    "administrative supervisor": ["Office Assistant", "Administrative Coordinator", "Office Supervisor",
                                  "Administrative Services Supervisor"],
    "sales representative": ["Sales Trainee", "Sales Representative", "Account Representative",
                             "Senior Account Representative"],
    "sales worker": ["Cashier", "Sales Associate", "Senior Sales Associate", "Department Lead"],
    "secretary and legal assistant": ["Receptionist", "Secretary", "Legal Secretary", "Executive Secretary"],
    "clerical": ["File Clerk", "Data Entry Clerk", "Office Clerk", "Accounts Payable Clerk"],
}
_FIELD = {"executive and managerial": "management", "administrative supervisor": "office administration",
          "sales representative": "sales", "sales worker": "retail sales",
          "secretary and legal assistant": "secretarial and legal support", "clerical": "clerical work"}
_EMPLOYERS = ["Lakeside Insurance Agency", "Metro Office Supply Co.", "Harbor Property Management",
              "Central Distribution Inc.", "Riverside Medical Billing", "Summit Retail Group",
              "Northpoint Logistics"]
_BULLETS = {
    "executive and managerial": ["Supervised daily operations and scheduling", "Prepared monthly budget reports"],
    "administrative supervisor": ["Coordinated office schedules and supplies", "Trained new office staff"],
    "sales representative": ["Managed a portfolio of client accounts", "Met quarterly sales targets"],
    "sales worker": ["Assisted customers and handled returns", "Balanced the register at closing"],
    "secretary and legal assistant": ["Answered phones and managed calendars", "Prepared correspondence and files"],
    "clerical": ["Entered and verified records", "Maintained filing systems"],
}
_EDUCATION = {
    4: "Bachelor of Arts, State University",
    3: "Coursework toward an associate degree, City Community College",
    2: "High school graduate, Central High School",
    1: "High school diploma, Central High School",
}
_SCHOOL_REQ = {"hsg": "high school diploma", "somcol": "some college", "colp": "four-year college degree"}


def _periods(years_exp: int, n_jobs: int, holes: bool) -> list[tuple[int, int]]:
    """(start, end) years of each job, most recent first, covering ``years_exp`` years ending in
    :data:`LAST_YEAR`; with employment holes, a one-year gap before the most recent job."""
    n = max(1, min(int(n_jobs), max(1, int(years_exp))))
    total = max(1, int(years_exp))
    lengths = [total // n + (1 if i < total % n else 0) for i in range(n)]
    out, end = [], LAST_YEAR
    for i, length in enumerate(lengths):
        start = end - length
        out.append((start, end))
        end = start - (1 if holes and i == 0 and n > 1 else 0)
    return out


def render_resume(profile) -> str:
    """One B&M profile (a row of :func:`~popresume.correspondence.data.load_bertrand_mullainathan`)
    as a plain-text résumé. Uses the name and the résumé features, never ``race`` or ``sex``.

    Parameters
    ----------
    profile : pandas.Series or mapping
        One résumé's row.

    Returns
    -------
    str
        The résumé's text.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> print(render_resume(load_bertrand_mullainathan().iloc[0]).splitlines()[0])
    ALLISON WILLIAMS
    """
    p = profile if isinstance(profile, dict) else profile.to_dict()
    first = str(p["first_name"])
    occ = p["resume_occupation"]
    if occ not in _TITLES:
        raise ValueError(f"unknown resume_occupation {occ!r}; expected one of {list(_TITLES)}")
    contact = f"{p['city']}, {_STATE.get(p['city'], '')}".rstrip(", ")
    if int(p["email"]):
        contact += f" | {first.lower()}.{SURNAME.lower()}@example.com"
    lines = [f"{first} {SURNAME}".upper(), contact, "",
             "SUMMARY", f"{int(p['years_exp'])} years of experience in {_FIELD[occ]}.", "", "WORK HISTORY"]
    periods = _periods(p["years_exp"], p["n_jobs"], bool(int(p["emp_holes"])))
    titles = _TITLES[occ]
    seed = int(p.get("occup_specific", 0))  # which employers: a feature of the résumé, not of the name
    for i, (start, end) in enumerate(periods):
        title = titles[max(0, len(titles) - 1 - i) if len(periods) > 1 else 1]
        employer = _EMPLOYERS[(seed + i) % len(_EMPLOYERS)]
        lines.append(f"{title}, {employer}, {start}-{end}")
        lines += [f"- {b}" for b in _BULLETS[occ]]
    if int(p["work_in_school"]):
        school_end = periods[-1][0]
        lines.append(f"Part-time Library Assistant, campus library, {school_end - 2}-{school_end}")
    lines += ["", "EDUCATION"]
    edu = int(p["education"])
    if edu in _EDUCATION:
        lines.append(f"{_EDUCATION[edu]}, {periods[-1][0]}")
    else:
        lines.append("Available on request")
    extras = []
    if int(p["computer_skills"]):
        extras.append("Computer: Microsoft Word, Excel, PowerPoint and e-mail")
    if int(p["special_skills"]):
        extras.append("Special skills: typing 60 words per minute, bookkeeping, customer service")
    if int(p["honors"]):
        extras.append("Honors: Employee of the Month" + ("; Dean's List" if edu == 4 else ""))
    if int(p["volunteer"]):
        extras.append("Volunteer: literacy program tutor; food bank volunteer")
    if int(p["military"]):
        extras.append("Military service: U.S. Army Reserve, 4 years, honorable discharge")
    if extras:
        lines += ["", "SKILLS AND ACTIVITIES"] + extras
    return "\n".join(lines)


def posting_key(ad) -> str:
    """Identifier of an ad's posting text: ad id and the occupation asked for."""
    p = ad if isinstance(ad, dict) else ad.to_dict()
    return f"ad{int(p['ad_id'])}:{p['ad_occupation']}"


def render_posting(ad) -> str:
    """A short posting written from the ad's recorded features (the ad texts are not public).

    Parameters
    ----------
    ad : pandas.Series or mapping
        A row with the ad's features.

    Returns
    -------
    str
        The posting's text.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> print(render_posting(load_bertrand_mullainathan().iloc[0])[:60])
    Hiring: administrative supervisor (administrative position)
    """
    p = ad if isinstance(ad, dict) else ad.to_dict()
    req = []
    exp = p.get("exp_min_req")
    if isinstance(exp, str) and exp:
        req.append("some prior experience" if exp == "some" else f"at least {exp} years of experience")
    school = p.get("school_req")
    if isinstance(school, str) and school in _SCHOOL_REQ:
        req.append(_SCHOOL_REQ[school])
    for col, what in (("com_req", "good communication skills"), ("comp_req", "computer skills"),
                      ("org_req", "strong organizational skills")):
        if int(p.get(col, 0) or 0):
            req.append(what)
    text = (f"Hiring: {p['ad_occupation']} ({p['job_type']} position) in {p['city']}. "
            f"Requirements: {', '.join(req) if req else 'none stated'}.")
    if int(p.get("eoe", 0) or 0):
        text += " Equal Opportunity Employer."
    return text


def render_all(df: pd.DataFrame, n: int | None = None, seed: int = 0) -> tuple[pd.DataFrame, dict[str, str]]:
    """Résumés and postings for ``df`` (or a random sample of ``n`` whole ads' résumés).

    Returns ``(resumes, postings)``: ``resumes`` has ``resume_id``, ``occupation`` (the
    posting key, as :func:`popresume.screeners.score_resumes` expects) and ``text``;
    ``postings`` maps posting key -> text. Sampling keeps every résumé of a sampled ad, so
    the within-ad comparisons and the cluster-robust CIs stay meaningful.

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés.
    n : int, optional
        Sample about this many résumés, in whole ads.
    seed : int
        Seed of the sample.

    Returns
    -------
    resumes : pandas.DataFrame
        ``resume_id``, ``occupation``, ``text``.
    postings : dict
        Posting key -> text.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> resumes, postings = render_all(load_bertrand_mullainathan(), n=20, seed=0)
    >>> resumes.columns.tolist(), set(resumes["occupation"]) <= set(postings)
    (['resume_id', 'occupation', 'text'], True)
    """
    if n is not None and n < len(df):
        rng = np.random.default_rng(seed)
        ads = rng.permutation(df["ad_id"].unique())
        sizes = df.groupby("ad_id").size().reindex(ads).cumsum()
        keep = sizes.index[: int(np.searchsorted(sizes.to_numpy(), n) + 1)]
        df = df[df["ad_id"].isin(keep)]
    recs = df.to_dict("records")
    keys = [posting_key(r) for r in recs]
    postings = {k: render_posting(r) for k, r in zip(keys, recs)}
    resumes = pd.DataFrame({"resume_id": df["resume_id"].to_numpy(), "occupation": keys,
                            "text": [render_resume(r) for r in recs]})
    return resumes, postings
