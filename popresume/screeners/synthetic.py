"""A synthetic screener whose score is a known function of the profile, Y = f(X, Z, B, R) + ε.

It is the teaching and test device for the estimator (docs/DESIGN.md §3–4): because f is known,
the true TE/NDE/NIE/BIE/RIE of a population are computable (:meth:`SyntheticScreener.true_effects`).

The score of résumé i is additive,

    Y_i = intercept + Σ_attr direct[attr][X_attr,i]                         (direct X term)
                    + 1[format = "image+photo"] · Σ_attr photo[attr][X_attr,i] (photo channel)
                    + Σ_col coef[col](value_col,i)                            (Z, B, R terms)
                    + ε_i,   ε_i ~ N(0, noise_sd²),

where ``coef[col]`` is a number (numeric column: coefficient × value) or a mapping
level → points (categorical column; unlisted levels add 0). The *direct* term uses the true
protected attribute, which the résumé text need not carry: it emulates a model that infers
X. The *photo* term is added only for the image+photo format (a face reveals X).
ε is drawn from ``default_rng([seed, hash(resume_id)])``, so a score depends only on
(seed, resume_id, profile, format). With ``clip=True`` Y is clipped to [0, 100]; the true
effects below ignore clipping (they are exact for ``clip=False``; the defaults keep Y well
inside [0, 100]).

By default f reads the grouped columns of Appendix C.4 (edu_group, fn_gender, surname_group,
region, race_binary), i.e. exactly the variables the estimator sees, so that its
E[Y | B, R, X, Z] is f itself and the estimator can recover the truth.

**The posting (job fit).** A sane screener reads the résumé against the job: the same
résumé read against another occupation's posting scores ``posting_fit`` points lower,

    Y_i(posting) = Y_i − posting_fit · 1[the posting is a shipped posting of another occupation].

The posting is recognised by its text (:func:`posting_occupation`): the shipped postings,
``popresume.jobs.job_description(occupation)`` of each occupation, are matched after the
control characters and runs of whitespace are normalised, exactly as :func:`score_resumes`
cleans them. The own posting subtracts nothing, so an audit (which scores every résumé against
its own posting) gets the scores of f above, and :meth:`SyntheticScreener.true_effects`,
which describes those scores, is unchanged by the fit term. A posting that is none of the
shipped ones (a custom ``job_descriptions`` text, another content folder) cannot be placed:
it subtracts nothing, and the raw reply of each such score says so
(``"posting": "not recognised: no job-fit term"``), so that a card made with custom postings
fails the gate's posting check honestly instead of being penalised by a guess. This is what
the validity gate's own-minus-mismatched contrast measures (``popresume.screeners.validity``):
with the default ``posting_fit`` the synthetic screener passes the gate, and with
``posting_fit=0`` it is the posting-blind screener that fails it.
"""

from __future__ import annotations

import functools
import hashlib
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from popresume.causal.functional import PSI_NAMES, effects_from_psi  # the one effect algebra
from popresume.causal.roles import default_roles
from popresume.errors import require_columns
from popresume.grouping import add_groups
from popresume.jobs import job_description
from popresume.schema import OCCUPATION_KEYS, PSE_NAMES
from popresume.screeners.base import BaseScreener, ScoreItem, ScoreResult, stable_json
from popresume.screeners.prompt import clean_text
from popresume.screeners.specs import SyntheticSpec, spec_for

_ATTR_TO_X = {"gender": "gender", "race": "race_binary"}


def _term(spec: Any, values: pd.Series, col: str) -> np.ndarray:
    if isinstance(spec, Mapping):
        return values.astype(object).map(lambda v: float(spec.get(v, 0.0))).to_numpy(float)
    v = pd.to_numeric(values, errors="coerce").to_numpy(float)
    if np.isnan(v).any():
        raise ValueError(f"column {col!r} has non-numeric or missing values; give a level→points mapping")
    return float(spec) * v


def _posting_key(text: str) -> str:
    """A posting's text with control characters removed and whitespace runs collapsed."""
    return " ".join(clean_text(str(text)).split())


@functools.lru_cache(maxsize=1)
def _shipped_postings() -> dict[str, str]:
    return {_posting_key(job_description(k)): k for k in OCCUPATION_KEYS}


@functools.lru_cache(maxsize=64)  # a run reads a few postings, once per résumé each
def posting_occupation(text: str) -> str | None:
    """The occupation whose shipped posting ``text`` is (``job_description(occupation)``, up to
    control characters and whitespace), or ``None`` for a posting that is none of them.

    Examples
    --------
    >>> posting_occupation(job_description("nurse")), posting_occupation("Wanted: a pilot.")
    ('nurse', None)
    """
    return _shipped_postings().get(_posting_key(text))


#: What the raw reply says of a posting :func:`posting_occupation` cannot place.
UNRECOGNISED_POSTING = "not recognised: no job-fit term"


def _rid_seed(resume_id: str) -> int:
    return int(hashlib.sha256(str(resume_id).encode("utf-8")).hexdigest()[:15], 16)


class SyntheticScreener(BaseScreener):
    """Y = f(X, Z, B, R) + noise with user-set coefficients (see the module docstring)."""

    screener_id = "synthetic"
    # it reads the profile, not the pixels; the format switches the photo channel
    capabilities = frozenset({"text", "images", "true_effects"})
    needs_profile = True
    prompt_hash = "none"
    batch_size = 4096

    def __init__(self, spec: SyntheticSpec | None = None, /, **settings):
        """``spec`` (a :class:`~popresume.screeners.specs.SyntheticSpec`), or its keys as
        keyword ``settings`` (``SyntheticScreener(noise_sd=0.0)``); defaults come from the spec."""
        self.spec = spec = spec_for(SyntheticSpec, spec, settings)
        self.intercept = spec.intercept
        self.direct = {k: dict(v) for k, v in spec.direct.items()}
        self.photo = {k: dict(v) for k, v in spec.photo.items()}
        self.coef = {k: dict(v) if isinstance(v, Mapping) else v for k, v in spec.coef.items()}
        self.noise_sd = spec.noise_sd
        self.seed = spec.seed
        self.format = spec.format
        self.clip = spec.clip
        self.model = spec.model
        self.posting_fit = spec.posting_fit

    # -- identity ---------------------------------------------------------------------------
    def cache_params(self) -> dict:
        return {"intercept": self.intercept, "direct": self.direct, "photo": self.photo, "coef": self.coef,
                "noise_sd": self.noise_sd, "seed": self.seed, "format": self.format, "clip": self.clip,
                "posting_fit": self.posting_fit}

    @property
    def columns(self) -> list[str]:
        return sorted(set(self.direct) | set(self.photo) | set(self.coef))

    def item_hash(self, item: ScoreItem) -> str:
        prof = item.profile or {}
        used = {c: prof.get(c) for c in self.columns}
        return hashlib.sha256(stable_json([item.resume_id, used, self._fmt(item.format)]).encode()).hexdigest()

    def _fmt(self, item_format: str) -> str:
        return self.format if self.format is not None else item_format

    # -- data -------------------------------------------------------------------------------
    def prepare_profiles(self, profiles: pd.DataFrame) -> pd.DataFrame:
        """Profiles with every column f reads; grouping columns are added when missing."""
        if any(c not in profiles.columns for c in self.columns):
            profiles = add_groups(profiles)
            require_columns(profiles, self.columns, "profiles read by the synthetic screener")
        return profiles

    def components(self, profiles: pd.DataFrame, *, format: str = "text") -> pd.DataFrame:
        """Per-row additive parts of f: one column per term (``direct:<attr>``, ``photo:<attr>``, ``coef:<col>``)."""
        p = self.prepare_profiles(profiles)
        out = {}
        for attr, spec in self.direct.items():
            out[f"direct:{attr}"] = _term(spec, p[attr], attr)
        for attr, spec in self.photo.items():
            on = 1.0 if format == "image+photo" else 0.0
            out[f"photo:{attr}"] = on * _term(spec, p[attr], attr)
        for col, spec in self.coef.items():
            out[f"coef:{col}"] = _term(spec, p[col], col)
        return pd.DataFrame(out, index=p.index)

    def f(self, profiles: pd.DataFrame, *, format: str = "text") -> np.ndarray:
        """The noiseless score f(X, Z, B, R) of each row."""
        return self.intercept + self.components(profiles, format=format).sum(axis=1).to_numpy(float)

    def posting_term(self, item: ScoreItem) -> tuple[float, dict]:
        """The job-fit term of one item (0 or ``-posting_fit``) and what its raw reply records:
        nothing for the own posting, the posting's occupation for another occupation's posting,
        :data:`UNRECOGNISED_POSTING` for a posting that is none of the shipped ones."""
        occ = posting_occupation(item.job_description)
        if occ is None:
            return 0.0, {"posting": UNRECOGNISED_POSTING}
        if occ == item.occupation:
            return 0.0, {}
        return -float(self.posting_fit), {"posting_for": occ, "job_fit": -float(self.posting_fit)}

    def noise(self, resume_ids: Sequence[str]) -> np.ndarray:
        if self.noise_sd == 0:
            return np.zeros(len(resume_ids))
        return np.array([np.random.default_rng([self.seed, _rid_seed(r)]).normal(0.0, self.noise_sd)
                         for r in resume_ids])

    def score_frame(self, profiles: pd.DataFrame, *, format: str | None = None) -> np.ndarray:
        """Scores of all rows of ``profiles`` at once, each against its own posting (the same
        numbers as :func:`score_resumes` with the shipped postings)."""
        y = self._unclipped(profiles, format or self.format or "text")
        return np.clip(y, 0, 100) if self.clip else y

    def _unclipped(self, profiles: pd.DataFrame, fmt: str) -> np.ndarray:
        return self.f(profiles, format=fmt) + self.noise(profiles["resume_id"].astype(str).tolist())

    # -- protocol ---------------------------------------------------------------------------
    def score_batch(self, items: Sequence[ScoreItem]) -> list[ScoreResult]:
        out: list[ScoreResult] = []
        by_fmt: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            if it.profile is None:
                raise ValueError(f"résumé {it.resume_id!r}: the synthetic screener needs its profile")
            by_fmt.setdefault(self._fmt(it.format), []).append(i)
        fit = [self.posting_term(it) for it in items]  # (points, what the raw reply records)
        scores = np.empty(len(items))
        for fmt, idx in by_fmt.items():
            frame = pd.DataFrame([items[i].profile for i in idx])
            frame["resume_id"] = [items[i].resume_id for i in idx]
            # the job-fit term before clipping: a clipped score is clipped against this posting
            scores[idx] = self._unclipped(frame, fmt) + np.array([fit[i][0] for i in idx])
        if self.clip:
            scores = np.clip(scores, 0, 100)
        for (_, note), s in zip(fit, scores):
            if not math.isfinite(s):
                raise ValueError("synthetic score is not finite; check the coefficients")
            out.append(ScoreResult(float(s), True, stable_json({"score": round(float(s), 6), **note})))
        return out

    # -- ground truth -----------------------------------------------------------------------
    def true_effects(self, profiles: pd.DataFrame, attribute: str = "gender", *, roles: Mapping | None = None,
                     format: str | None = None) -> pd.DataFrame:
        """The population's true TE, NDE, NIE, BIE, RIE of this screener.

        Computed exactly from the identification formula of docs/DESIGN.md §3,
        ψ(a_y, a_b, a_r) = Σ_{z,r,b} f(a_y, b, r, z) P(b | a_b, r, z) P(r | a_r, z) P(z),
        with f known (the noise has mean 0) and P the empirical distribution of
        ``profiles`` (the population is the truth). Because f is additive,
        ψ = E_z[ f_X(a_y) + ḡ_Z(z) + E[g_R | a_r, z] + Σ_r P(r | a_r, z) E[g_B | a_b, r, z] ],
        computed from cell means over the discrete z and r cells (age is discrete).
        Z cells where x0 or x1 is absent are dropped (positivity; reported in
        ``attrs["dropped_z_rows"]``); an empty (a_b, r, z) cell falls back to E[g_B | a_b, z]
        (reported in ``attrs["fallback_cells"]``; the result is exact when there are none, or
        when B ⫫ R | X, Z). Clipping (``clip=True``) is ignored.

        Returns a DataFrame indexed TE..RIE with column ``true``; ``attrs["psi"]`` holds the
        five counterfactual means keyed "111", "000", "100", "101", "110".
        """
        if roles is None:
            roles = default_roles(attribute)
        x, x0, x1 = roles["x"], roles["x0"], roles["x1"]
        zc, bc, rc = list(roles["z"]), list(roles["b"]), list(roles["r"])
        fmt = format or self.format or "text"
        p = self.prepare_profiles(profiles).reset_index(drop=True)
        for c in [x, *zc, *bc, *rc]:
            if c not in p.columns:
                raise ValueError(f"profiles lack the role column {c!r}")
        # each term must be a function of X, Z, B or R (a column that is a deterministic
        # function of the Z columns in these data, e.g. race_binary of race, counts as Z)
        def in_z(col: str) -> bool:
            return col in zc or (bool(zc) and bool((p.groupby(zc, observed=True)[col].nunique() <= 1).all()))

        gz = np.full(len(p), 0.0)
        gb = np.zeros(len(p))
        gr = np.zeros(len(p))
        dx = {x0: 0.0, x1: 0.0}
        for kind, table in (("direct", self.direct), ("photo", self.photo)):
            if kind == "photo" and fmt != "image+photo":
                continue
            for attr, spec in table.items():
                if attr == x:
                    for lvl in (x0, x1):
                        dx[lvl] += float(spec.get(lvl, 0.0)) if isinstance(spec, Mapping) else float(spec) * 0
                elif in_z(attr):
                    gz += _term(spec, p[attr], attr)
                else:
                    raise ValueError(f"{kind} term on {attr!r}: it must be X ({x!r}) or in Z {zc}")
        for col, spec in self.coef.items():
            t = _term(spec, p[col], col)
            if col == x:
                raise ValueError(f"put the X term on {x!r} in direct=, not in coef=")
            elif col in bc:
                gb += t
            elif col in rc:
                gr += t
            elif in_z(col):
                gz += t
            else:
                raise ValueError(f"coefficient column {col!r} is in none of Z {zc}, B {bc}, R {rc}")
        df = p[[x, *zc, *rc]].copy()
        df["_x"] = df[x].astype(str)
        if not set(df["_x"]) >= {str(x0), str(x1)}:
            raise ValueError(f"profiles do not contain both {x}={x0!r} and {x}={x1!r}")
        df = df[df["_x"].isin([str(x0), str(x1)])]
        df["_z"] = df[zc].astype(str).agg("|".join, axis=1) if zc else "all"
        df["_r"] = df[rc].astype(str).agg("|".join, axis=1) if rc else "all"
        df["gz"], df["gb"], df["gr"] = gz[df.index], gb[df.index], gr[df.index]
        both = df.groupby("_z")["_x"].nunique()
        keep = both.index[both == 2]
        dropped = int((~df["_z"].isin(keep)).sum())
        df = df[df["_z"].isin(keep)]
        pz = df.groupby("_z").size() / len(df)
        gz_z = df.groupby("_z")["gz"].mean()
        gr_xz = df.groupby(["_x", "_z"])["gr"].mean()
        gb_xrz = df.groupby(["_x", "_r", "_z"])["gb"].mean()
        gb_xz = df.groupby(["_x", "_z"])["gb"].mean()
        fallback = 0

        def mb(a_b: str, a_r: str) -> pd.Series:
            nonlocal fallback
            rows = df[df["_x"] == a_r]
            idx = pd.MultiIndex.from_arrays([np.full(len(rows), a_b), rows["_r"].to_numpy(), rows["_z"].to_numpy()])
            vals = gb_xrz.reindex(idx).to_numpy(dtype=float, copy=True)
            miss = np.isnan(vals)
            if miss.any():
                fallback += int(pd.Series(list(zip(rows["_r"].to_numpy()[miss], rows["_z"].to_numpy()[miss]))).nunique())
                fb = gb_xz.reindex(pd.MultiIndex.from_arrays([np.full(miss.sum(), a_b), rows["_z"].to_numpy()[miss]]))
                vals[miss] = fb.to_numpy()
            return pd.Series(vals, index=rows.index).groupby(rows["_z"]).mean()

        def psi(a_y: str, a_b: str, a_r: str) -> float:
            r_term = gr_xz.xs(a_r, level="_x")
            b_term = mb(a_b, a_r)
            per_z = gz_z + r_term.reindex(pz.index) + b_term.reindex(pz.index)
            return float(self.intercept + dx[a_y] + (pz * per_z).sum())

        s0, s1 = str(x0), str(x1)
        dx = {s0: dx[x0], s1: dx[x1]}
        ps = {"111": psi(s1, s1, s1), "000": psi(s0, s0, s0), "100": psi(s1, s0, s0),
              "101": psi(s1, s0, s1), "110": psi(s1, s1, s0)}
        true = effects_from_psi([ps[name[-3:]] for name in PSI_NAMES])
        out = pd.DataFrame({"true": true}, index=pd.Index(PSE_NAMES, name="effect"))
        out.attrs.update(psi=ps, dropped_z_rows=dropped, fallback_cells=fallback, attribute=attribute, format=fmt)
        return out


def true_effects_by_population(populations: Mapping[str, pd.DataFrame], *, screener=None,
                               attributes=("gender", "race")) -> pd.DataFrame:
    """The synthetic screener's *true* TE, NDE, NIE, BIE, RIE on each population (ours).

    The synthetic screener's score is a known function of the profile
    (:class:`SyntheticScreener`, default coefficients unless
    ``screener`` is given), so its effects on a population are exact, not estimated: what
    changes between two populations is caused by the populations alone. Columns
    ``population, occupation, attribute, effect, true``.
    """
    screener = SyntheticScreener() if screener is None else screener
    rows = []
    for label, prof in populations.items():
        prof = add_groups(prof)
        for occ, d in prof.groupby("occupation", sort=False):
            for attr in attributes:
                t = screener.true_effects(d.reset_index(drop=True), attr)
                for eff, v in t["true"].items():
                    rows.append((label, occ, attr, eff, float(v)))
    return pd.DataFrame(rows, columns=["population", "occupation", "attribute", "effect", "true"])
