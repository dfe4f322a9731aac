"""Synthetic discrete structural causal models with exactly computable path-specific effects.

The ground truth for the estimator's tests and the coverage study (DESIGN §3). Each SCM is

    Z ~ P(z),  X | Z ~ Bernoulli(p(z)),  R | X,Z ~ P(r | x, z),  B | X,R,Z ~ P(b | x, r, z),
    Y = m(x, b, r, z) + σ·ε,

with every variable discrete (one column per role), so that

    ψ(a_y, a_b, a_r) = Σ_{z,r,b} m(a_y, b, r, z) · P(b | a_b, r, z) · P(r | a_r, z) · P(z)

is a finite sum over probability tables, computed here exactly. Edges R → B are present in
every model (B's table depends on r), so BIE and RIE differ from the naive split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

from .functional import PSI_NAMES, PSI_TRIPLES, effects_from_psi


def _softmax(a, axis=-1):
    a = a - a.max(axis=axis, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=axis, keepdims=True)


@dataclass
class DiscreteSCM:
    """Probability tables of a discrete SFM with mediators split into B and R.

    Shapes: ``pz`` (nz,), ``px1_z`` (nz,) = P(X=1|z), ``pr_xz`` (2, nz, nr),
    ``pb_xrz`` (2, nz, nr, nb), ``m`` (2, nz, nr, nb) = E[Y | x, z, r, b].
    Samples use columns x ("x0"/"x1"), z ("z0".."), r ("r0".."), b (integer 0..nb-1,
    numeric on purpose, to exercise numeric mediators), y.
    """

    name: str
    pz: np.ndarray
    px1_z: np.ndarray
    pr_xz: np.ndarray
    pb_xrz: np.ndarray
    m: np.ndarray
    sigma: float = 1.0

    roles = {"x": "x", "x0": "x0", "x1": "x1", "z": ["z"], "b": ["b"], "r": ["r"], "y": "y"}

    def psi(self, triple: tuple[int, int, int]) -> float:
        """ψ(a_y, a_b, a_r) by the exact sum of DESIGN §3."""
        a_y, a_b, a_r = triple
        # Σ_z P(z) Σ_r P(r|a_r,z) Σ_b P(b|a_b,r,z) m(a_y,z,r,b)
        inner = (self.pb_xrz[a_b] * self.m[a_y]).sum(axis=2)  # (nz, nr)
        return float((self.pz[:, None] * self.pr_xz[a_r] * inner).sum())

    def true_psi(self) -> pd.Series:
        return pd.Series({k: self.psi(t) for k, t in PSI_TRIPLES.items()})[list(PSI_NAMES)]

    def true_effects(self) -> pd.Series:
        """TE, NDE, NIE, BIE, RIE of this SCM, exactly."""
        return pd.Series(effects_from_psi(self.true_psi().to_numpy()), index=list(PSE_NAMES), name="truth")

    def naive_difference(self) -> float:
        """E[Y | X = x1] − E[Y | X = x0]: the outcome-level disparity (not a causal effect)."""
        out = []
        for a in (0, 1):
            pxa = self.px1_z if a == 1 else 1 - self.px1_z
            pz_a = self.pz * pxa / (self.pz * pxa).sum()
            inner = (self.pb_xrz[a] * self.m[a]).sum(axis=2)
            out.append(float((pz_a[:, None] * self.pr_xz[a] * inner).sum()))
        return out[1] - out[0]

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        """n i.i.d. rows by ancestral sampling."""
        rng = np.random.default_rng(seed)
        nz, nr, nb = self.m.shape[1:]
        z = rng.choice(nz, n, p=self.pz)
        x = (rng.random(n) < self.px1_z[z]).astype(int)
        cr = self.pr_xz[x, z].cumsum(axis=1)
        r = np.minimum((rng.random(n)[:, None] > cr).sum(axis=1), nr - 1)
        cb = self.pb_xrz[x, z, r].cumsum(axis=1)
        b = np.minimum((rng.random(n)[:, None] > cb).sum(axis=1), nb - 1)
        y = self.m[x, z, r, b] + self.sigma * rng.standard_normal(n)
        return pd.DataFrame({
            "x": np.where(x == 1, "x1", "x0"),
            "z": pd.array([f"z{i}" for i in z], dtype="string"),
            "r": pd.array([f"r{i:02d}" for i in r], dtype="string"),
            "b": b.astype(np.int64),
            "y": y,
        })


def make_scm(kind: str = "basic", seed: int = 0) -> DiscreteSCM:
    """A named SCM.

    * ``"basic"``: 3 z × 3 r × 4 b levels, good overlap, direct effect and both indirect
      paths, R → B.
    * ``"high_card_r"``: R with 20 levels (think first-name groups × region), P(r | x, z)
      strongly tilted by X, so rare r levels sit mostly in one group.
    * ``"weak_overlap"``: P(X = x1 | z) as extreme as 0.04 / 0.96 in some strata, and R
      nearly determined by X in some cells: the regime where clipping matters.
    * ``"no_direct"``: NDE = 0 exactly (m ignores x), mediated effects only.
    """
    rng = np.random.default_rng(seed)
    nz, nr, nb = 3, 3, 4
    sigma = 1.0
    if kind == "high_card_r":
        nr = 20
    pz = _softmax(rng.normal(0, 0.3, nz))
    px1_z = np.array([0.35, 0.5, 0.65])
    r_tilt = 0.8
    if kind == "weak_overlap":
        px1_z = np.array([0.05, 0.5, 0.95])
        r_tilt = 1.3
    if kind == "high_card_r":
        r_tilt = 1.2
    base_r = rng.normal(0, 0.5, (nz, nr))
    x_r = rng.normal(0, 1, nr) * r_tilt
    pr_xz = np.stack([_softmax(base_r - x_r / 2), _softmax(base_r + x_r / 2)])  # (2, nz, nr)
    base_b = rng.normal(0, 0.4, (nz, nr, nb)) + np.linspace(0, 0.6, nb)[None, None, :] * \
        rng.normal(0, 1, nr)[None, :, None]  # R → B
    x_b = np.linspace(-0.6, 0.6, nb)
    pb_xrz = np.stack([_softmax(base_b - x_b / 2), _softmax(base_b + x_b / 2)])  # (2, nz, nr, nb)
    zeff = rng.normal(0, 1, nz)
    reff = rng.normal(0, 1, nr)
    beff = np.linspace(0, 2, nb)
    direct = 0.0 if kind == "no_direct" else 0.6
    m = np.empty((2, nz, nr, nb))
    for xv in (0, 1):
        m[xv] = (50 + zeff[:, None, None] + reff[None, :, None] + beff[None, None, :]
                 + xv * (direct + (direct > 0) * (0.15 * beff[None, None, :] + 0.2 * reff[None, :, None])))
    return DiscreteSCM(name=kind, pz=pz, px1_z=px1_z, pr_xz=pr_xz, pb_xrz=pb_xrz, m=m, sigma=sigma)


SCM_KINDS: tuple[str, ...] = ("basic", "high_card_r", "weak_overlap", "no_direct")
