"""The one functional ψ(a_y, a_b, a_r) behind all five path-specific effects.

docs/DESIGN.md §3 (PopResume §3, Appendix C.1–C.3): every counterfactual mean the paper needs is

    ψ(a_y, a_b, a_r) = E[ Y_{a_y, B_{a_b, R_{a_r}}, R_{a_r}} ]
                     = Σ_{z,r,b} E[Y | a_y, b, r, z] · P(b | a_b, r, z) · P(r | a_r, z) · P(z),

so the estimator is written once, for a generic triple, and the five effects are fixed
linear combinations of five triples (``PSI_TRIPLES`` and ``EFFECT_WEIGHTS`` below).

The uncentred influence function (PopResume's Lemma 2, Appendix C.2, generalised from
Table 1's (x1, x1, x0); Lemma 1 cross-fits it, ``crossfit``) is

    φ = π3 (Y − μ3(B,R,X,Z)) + π2 (μ3(B,R,a_y,Z) − μ2(R,Z)) + π1 (μ2(R,Z) − μ1(Z)) + μ1(Z)

with the weights written through propensities p(a | ·) = P(X = a | ·) only, so that no
mediator density is ever estimated:

    π1 = 1[X = a_r] / p(a_r | Z)
    π2 = 1[X = a_b] · p(a_r | R,Z) / ( p(a_b | R,Z) · p(a_r | Z) )
    π3 = 1[X = a_y] · p(a_b | B,R,Z) · p(a_r | R,Z) / ( p(a_y | B,R,Z) · p(a_b | R,Z) · p(a_r | Z) )

Each weight has population mean 1, which is what self-normalisation restores in a finite
fold. Everything here is pure numpy on arrays; the fitting lives in ``crossfit``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import genpareto

from popresume.schema import PSE_NAMES

# The five counterfactual means, (a_y, a_b, a_r) with 1 = x1 and 0 = x0 (docs/DESIGN.md §3 table).
PSI_TRIPLES: dict[str, tuple[int, int, int]] = {
    "psi_000": (0, 0, 0),  # E[Y_x0]
    "psi_111": (1, 1, 1),  # E[Y_x1]
    "psi_100": (1, 0, 0),  # E[Y_{x1, W_x0}]
    "psi_101": (1, 0, 1),  # E[Y_{x1, B_{x0,R_x1}, R_x1}]
    "psi_110": (1, 1, 0),  # E[Y_{x1, B_{x1,R_x0}, R_x0}]   (the paper's new term, Eq. 10)
}
PSI_NAMES: tuple[str, ...] = tuple(PSI_TRIPLES)
PSI_LABELS: dict[str, str] = {
    "psi_000": "E[Y_x0]",
    "psi_111": "E[Y_x1]",
    "psi_100": "E[Y_{x1,W_x0}]",
    "psi_101": "E[Y_{x1,B_{x0,R_x1},R_x1}]",
    "psi_110": "E[Y_{x1,B_{x1,R_x0},R_x0}]",
}

# Rows: TE, NDE, NIE, BIE, RIE; columns: PSI_NAMES. Eqs. (1)-(5) of the paper.
EFFECT_WEIGHTS = pd.DataFrame(
    [
        #  000   111   100   101   110
        [-1.0, 1.0, 0.0, 0.0, 0.0],  # TE  = ψ111 − ψ000
        [-1.0, 0.0, 1.0, 0.0, 0.0],  # NDE = ψ100 − ψ000
        [0.0, 1.0, -1.0, 0.0, 0.0],  # NIE = ψ111 − ψ100
        [0.0, 0.5, -0.5, -0.5, 0.5],  # BIE = ½[(ψ111 − ψ101) + (ψ110 − ψ100)]
        [0.0, 0.5, -0.5, 0.5, -0.5],  # RIE = ½[(ψ111 − ψ110) + (ψ101 − ψ100)]
    ],
    index=list(PSE_NAMES),
    columns=list(PSI_NAMES),
)


def effects_from_psi(psi) -> np.ndarray:
    """Map counterfactual means (..., 5 in PSI_NAMES order) to effects (..., 5 in PSE_NAMES order).

    Linear, so it applies equally to point estimates, per-unit influence values and
    bootstrap replicates; TE = NDE + NIE and NIE = BIE + RIE hold exactly (row algebra of
    ``EFFECT_WEIGHTS``), not just up to floating error of separate estimations.
    """
    psi = np.asarray(psi, dtype=float)
    return psi @ EFFECT_WEIGHTS.to_numpy().T


def p_of(a: int, p1: np.ndarray) -> np.ndarray:
    """P(X = a | ·) from P(X = x1 | ·)."""
    return p1 if a == 1 else 1.0 - p1


@dataclass
class Weights:
    """π1, π2, π3 for one triple, before and after self-normalisation, with their raw means."""

    pi1: np.ndarray
    pi2: np.ndarray
    pi3: np.ndarray
    raw_means: tuple[float, float, float]


def weights(x1: np.ndarray, triple: tuple[int, int, int], p_z: np.ndarray, p_rz: np.ndarray,
            p_brz: np.ndarray, *, normalize: bool = True) -> Weights:
    """The three DR weights of docs/DESIGN.md §3 for ``triple`` = (a_y, a_b, a_r).

    ``x1`` is the 0/1 indicator X = x1; ``p_z``, ``p_rz``, ``p_brz`` are (already clipped)
    P(X = x1 | Z), P(X = x1 | R, Z), P(X = x1 | B, R, Z) on the same rows.
    With ``normalize`` each weight is divided by its mean over the rows given (one
    evaluation fold), the self-normalised (Hájek) form, a choice of this project (the paper
    does not state one); the raw means are returned.
    """
    a_y, a_b, a_r = triple
    x1 = np.asarray(x1).astype(bool)
    ind = {1: x1.astype(float), 0: (~x1).astype(float)}
    pa_z = p_of(a_r, p_z)
    pr_rz, pb_rz = p_of(a_r, p_rz), p_of(a_b, p_rz)
    pb_brz, py_brz = p_of(a_b, p_brz), p_of(a_y, p_brz)
    pi1 = ind[a_r] / pa_z
    pi2 = ind[a_b] * pr_rz / (pb_rz * pa_z)
    pi3 = ind[a_y] * pb_brz * pr_rz / (py_brz * pb_rz * pa_z)
    raw = (float(pi1.mean()), float(pi2.mean()), float(pi3.mean()))
    if normalize:
        # Each π has population mean 1 (E[π1] = E[p(a_r|Z)/p(a_r|Z)], and the others
        # telescope the same way), so dividing by the fold mean only removes noise.
        pi1, pi2, pi3 = (w / m if m > 0 else w for w, m in zip((pi1, pi2, pi3), raw))
    return Weights(pi1, pi2, pi3, raw)


def influence(y: np.ndarray, w: Weights, mu3_ay: np.ndarray, mu2: np.ndarray,
              mu1: np.ndarray) -> np.ndarray:
    """Per-unit uncentred influence values φ for one triple (Lemma 2, docs/DESIGN.md §3).

    ``mu3_ay`` = μ3(B, R, a_y, Z), ``mu2`` = μ2(R, Z), ``mu1`` = μ1(Z), all evaluated on
    the held-out rows. π3 is zero unless X = a_y, where μ3(B,R,X,Z) = μ3(B,R,a_y,Z), so
    the observed-X prediction is never needed separately.
    """
    return w.pi3 * (y - mu3_ay) + w.pi2 * (mu3_ay - mu2) + w.pi1 * (mu2 - mu1) + mu1


def effective_sample_size(w: np.ndarray) -> float:
    """Kish's effective sample size (Σw)² / Σw² of a weight vector (zeros count as absent)."""
    w = np.asarray(w, dtype=float)
    s2 = float((w * w).sum())
    return float(w.sum() ** 2 / s2) if s2 > 0 else 0.0


_TIE_DIGITS = 2  # weights equal to 2 decimals (after self-normalisation, mean 1) count as tied


def pareto_k(w: np.ndarray) -> float:
    """The Pareto shape k̂ of the upper tail of a weight vector (the PSIS diagnostic; zeros count as absent).

    Vehtari, Simpson, Gelman, Yao and Gabry (2024), *Pareto smoothed importance sampling*
    (JMLR 25(72)): a generalised Pareto distribution is fitted to the excesses of the
    M = min(S/5, 3√S) largest of the S positive weights over the next largest, here by
    maximum likelihood (``scipy.stats.genpareto.fit`` with location 0). k̂ estimates how
    heavy the tail is whatever n: under 0.5 the weights have a finite variance, and above
    0.7 a weighted mean converges too slowly for a normal interval at any practical size.
    A bounded tail (weights from propensities away from 0 and 1) gives k̂ ≤ 0. NaN where no
    tail can be fitted: fewer than 5 positive excesses, or M largest weights that take fewer
    than M/2 distinct values to 2 decimals (a discrete design, whose weights are a handful of
    values repeated, the fold normalisation apart: a bounded tail, not a heavy one; the
    maximum-likelihood fit would read its steps as a heavy tail).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> round(pareto_k(rng.pareto(1.0, 20_000) + 1), 1)  # a Pareto tail of index 1: k = 1
    1.0
    >>> pareto_k(np.ones(1000)) != pareto_k(np.ones(1000))  # all tied: NaN
    True
    """
    w = np.asarray(w, dtype=float)
    w = np.sort(w[w > 0])
    s = len(w)
    m = int(min(0.2 * s, 3 * np.sqrt(s)))
    if m < 5:
        return float("nan")
    excess = w[-m:] - w[-m - 1]
    if int((excess > 0).sum()) < 5 or len(np.unique(w[-m:].round(_TIE_DIGITS))) < m / 2:
        return float("nan")
    scale = float(excess.mean()) or 1.0
    k, _, _ = genpareto.fit(excess / scale, floc=0)
    return float(k)
