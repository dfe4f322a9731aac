"""Schema-valid toy profiles for tests, benchmarks and demos of the renderer.

These are NOT population-representative (use ``popresume.population.generate_population``
for that): attributes are drawn independently and uniformly, only constrained to be
consistent (exp_year <= age - 18, age old enough for the degree). They exist so the
résumé stage can be tested and timed on its own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.resumes.rules import EDU_PLAN, MIN_AGE, US_STATES
from popresume.schema import DEFAULT_SIZES, EDU_LEVELS, GENDERS, OCCUPATION_KEYS, PROFILE_COLUMNS, RACES

_REGION = {  # Census regions of the states used below
    "CA": "West", "WA": "West", "CO": "West", "AZ": "West", "TX": "South", "GA": "South",
    "FL": "South", "NC": "South", "NY": "Northeast", "PA": "Northeast", "MA": "Northeast",
    "NJ": "Northeast", "IL": "Midwest", "OH": "Midwest", "MI": "Midwest", "MN": "Midwest",
}
_FIRST = {"F": ["Avery", "Mia", "Grace", "Nora", "Alicia", "Keisha", "Mei", "Priya", "Laura", "Dana"],
          "M": ["Jordan", "Ethan", "Marcus", "Daniel", "Kevin", "Wei", "Raj", "Luis", "Tyrone", "Paul"]}
_SURNAMES = ["Miller", "Nguyen", "Johnson", "Patel", "Carter", "Kim", "Brooks", "Walker", "Chen", "Reed",
             "Foster", "Ellis", "Park", "Young", "Hayes", "Singh"]


def toy_profiles(sizes: dict[str, int] | int | None = None, *, seed: int = 0) -> pd.DataFrame:
    """Toy profile table with PROFILE_COLUMNS; ``sizes`` per occupation (int = same for all;
    None = the paper's Table 3 sizes, 60,884 rows).

    Parameters
    ----------
    sizes : dict, int or None
        Profiles per occupation.
    seed : int
        Seed of the draws.

    Returns
    -------
    pandas.DataFrame
        The profiles.

    Examples
    --------
    >>> p = toy_profiles(2)
    >>> len(p), p["occupation"].value_counts().tolist()
    (10, [2, 2, 2, 2, 2])
    """
    if sizes is None:
        sizes = dict(DEFAULT_SIZES)
    elif isinstance(sizes, int):
        sizes = {k: sizes for k in OCCUPATION_KEYS}
    rng = np.random.default_rng(seed)
    states = np.array(list(_REGION))
    frames = []
    for occ, n in sizes.items():
        edu = rng.choice(np.array(EDU_LEVELS, dtype=object), size=n)
        min_age = np.array([MIN_AGE[EDU_PLAN[e][-1]] for e in edu])
        age = np.maximum(rng.integers(18, 45, size=n), np.maximum(min_age, 18))
        exp = np.floor(rng.random(n) * (age - 18 + 1)).astype(int)
        gender = rng.choice(np.array(GENDERS, dtype=object), size=n)
        first = np.array([_FIRST[g][i] for g, i in zip(gender, rng.integers(0, 10, size=n))], dtype=object)
        st = rng.choice(states, size=n)
        frames.append(pd.DataFrame({
            "resume_id": [f"{occ}-{i:06d}" for i in range(1, n + 1)],
            "occupation": occ,
            "gender": gender,
            "race": rng.choice(np.array(RACES, dtype=object), size=n),
            "age": age.astype(int),
            "birth_year": (2023 - age).astype(int),
            "state": st,
            "region": [_REGION[s] for s in st],
            "edu_level": edu,
            "exp_year": exp,
            "first_name": first,
            "surname": rng.choice(np.array(_SURNAMES, dtype=object), size=n),
        }))
    out = pd.concat(frames, ignore_index=True)[list(PROFILE_COLUMNS)]
    assert set(out["state"]) <= set(US_STATES.values())
    return out
