"""Synthetic discrete structural causal models with exactly computable path-specific effects.

The ground truth for the estimator's tests and the coverage study (docs/DESIGN.md §3). Each SCM is

    Z ~ P(z),  X | Z ~ Bernoulli(p(z)),  R | X,Z ~ P(r | x, z),  B | X,R,Z ~ P(b | x, r, z),
    Y = m(x, b, r, z) + σ·ε,

with every variable discrete (one column per role), so that

    ψ(a_y, a_b, a_r) = Σ_{z,r,b} m(a_y, b, r, z) · P(b | a_b, r, z) · P(r | a_r, z) · P(z)

is a finite sum over probability tables, computed here exactly. Edges R → B are present in
every model (B's table depends on r), so BIE and RIE differ from the naive split.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from popresume.progress import progress_bar
from popresume.schema import PSE_NAMES

from .bootstrap import influence_bootstrap
from .crossfit import PSEEstimator
from .effects import PSEWarning
from .functional import PSI_NAMES, PSI_TRIPLES, effects_from_psi
from .nuisance import CellMeans
from .plugin import plugin_pse
from .results import PSEResult, aggregate_reps


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
        """ψ(a_y, a_b, a_r) by the exact sum of docs/DESIGN.md §3."""
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

    def sample_counterfactual(self, triple: tuple[int, int, int], n: int, seed: int = 0) -> np.ndarray:
        """Draws of the nested potential outcome Y_{a_y, B_{a_b, R_{a_r}}, R_{a_r}}.

        Simulated from the structural model itself (Z, then R under X := a_r, then B under
        X := a_b with that R, then Y under X := a_y): no identification formula is used, so
        its mean checks Eq. (10) / docs/DESIGN.md §3's sum independently.
        """
        a_y, a_b, a_r = triple
        rng = np.random.default_rng(seed)
        nz, nr, nb = self.m.shape[1:]
        z = rng.choice(nz, n, p=self.pz)
        r = np.minimum((rng.random(n)[:, None] > self.pr_xz[a_r, z].cumsum(axis=1)).sum(axis=1), nr - 1)
        b = np.minimum((rng.random(n)[:, None] > self.pb_xrz[a_b, z, r].cumsum(axis=1)).sum(axis=1), nb - 1)
        return self.m[a_y, z, r, b] + self.sigma * rng.standard_normal(n)

    def true_nuisances(self, data: pd.DataFrame, triple: tuple[int, int, int]) -> dict[str, np.ndarray]:
        """The true μ3(B,R,a_y,Z), μ2(R,Z), μ1(Z) and P(X = x1 | Z / R,Z / B,R,Z) on ``data``'s rows."""
        z = data["z"].str[1:].astype(int).to_numpy()
        r = data["r"].str[1:].astype(int).to_numpy()
        return self.nuisances_at(z, r, data["b"].to_numpy(), triple)

    def nuisances_at(self, z: np.ndarray, r: np.ndarray, b: np.ndarray,
                     triple: tuple[int, int, int]) -> dict[str, np.ndarray]:
        """:meth:`true_nuisances` on integer level codes (as :meth:`draw` returns them)."""
        a_y, a_b, a_r = triple
        px = self.px1_z[z]
        num_r = px * self.pr_xz[1, z, r]
        p_rz = num_r / (num_r + (1 - px) * self.pr_xz[0, z, r])
        num_b = num_r * self.pb_xrz[1, z, r, b]
        p_brz = num_b / (num_b + (1 - px) * self.pr_xz[0, z, r] * self.pb_xrz[0, z, r, b])
        mu2_tab = (self.pb_xrz[a_b] * self.m[a_y]).sum(axis=2)  # (z, r)
        mu1_tab = (self.pr_xz[a_r] * mu2_tab).sum(axis=1)  # (z,)
        return {"p_z": px, "p_rz": p_rz, "p_brz": p_brz, "mu3": self.m[a_y, z, r, b],
                "mu2": mu2_tab[z, r], "mu1": mu1_tab[z]}

    def draw(self, n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
        """n i.i.d. rows by ancestral sampling, as integer codes: (z, x, r, b, y)."""
        rng = np.random.default_rng(seed)
        nz, nr, nb = self.m.shape[1:]
        z = rng.choice(nz, n, p=self.pz)
        x = (rng.random(n) < self.px1_z[z]).astype(int)
        cr = self.pr_xz[x, z].cumsum(axis=1)
        r = np.minimum((rng.random(n)[:, None] > cr).sum(axis=1), nr - 1)
        cb = self.pb_xrz[x, z, r].cumsum(axis=1)
        b = np.minimum((rng.random(n)[:, None] > cb).sum(axis=1), nb - 1)
        y = self.m[x, z, r, b] + self.sigma * rng.standard_normal(n)
        return z, x, r, b, y

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        """n i.i.d. rows by ancestral sampling (:meth:`draw`), with named levels."""
        z, x, r, b, y = self.draw(n, seed)
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
    * ``"proxy_reveals"``: R nearly reveals X (think first name and gender): P(r | x, z)
      so tilted that "X changed, R kept" has almost no support. TE is identified with good
      overlap (P(X = x1 | z) in [0.35, 0.65]); the direct and mediated paths are not, in
      practice: the regime where the estimator reports them not estimable.

    Parameters
    ----------
    kind : str
        One of the names above.
    seed : int
        Seed of the model's random parameters.

    Returns
    -------
    DiscreteSCM
        The model: ``sample(n, seed)`` draws rows and ``true_effects()`` gives the truth.

    Examples
    --------
    >>> scm = make_scm("no_direct", seed=0)
    >>> float(scm.true_effects()["NDE"])
    0.0
    >>> scm.sample(5, seed=1).columns.tolist()
    ['x', 'z', 'r', 'b', 'y']
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
    if kind == "proxy_reveals":
        r_tilt = 6.0
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


SCM_KINDS: tuple[str, ...] = ("basic", "high_card_r", "weak_overlap", "no_direct", "proxy_reveals")


def dml_method_name(n_rep: int, aggregate: str = "median") -> str:
    """The coverage study's label of a DML variant: "DML" (one split) or "DML, n_rep=5 (median)"."""
    return "DML" if n_rep == 1 else f"DML, n_rep={n_rep} ({aggregate})"


def coverage_study(kind: str = "basic", n: int = 2000, reps: int = 50, *, n_boot: int = 200, folds: int = 5,
                   learners=None, normalize: bool = True, clip: float = 0.01, scm_seed: int = 0, seed: int = 0,
                   plugin: bool = True, progress: bool = False, n_rep=(1,), aggregate: str = "median",
                   bagged: int = 0):
    """Repeated samples from ``make_scm(kind)``: DML estimates and CI coverage, plug-in, naive.

    Returns ``(estimates, coverage)``: ``estimates`` is tidy (rep, method, effect, estimate,
    ci_low, ci_high, covered) with methods "DML" (one cross-fitting split, influence-bootstrap
    CIs), "plug-in" (no CI; NaN when a cell is empty) and "naive difference" (E[Y|x1] −
    E[Y|x0], reported as TE); ``coverage`` has per effect and method: truth, mean estimate,
    bias, sd, rmse, coverage and mean CI width. ``learners=None`` uses the fast saturated
    ``CellMeans`` learner; pass "xgboost" for the tuned XGBoost default.

    ``n_rep``: one or several repetition counts of repeated cross-fitting, each a method
    ``dml_method_name(k, a)`` for each ``a`` in ``aggregate`` ("median", "mean" or both);
    one fit with the largest count serves them all (the
    first k splits of it are exactly what ``n_rep=k`` fits, and the bootstrap draws are
    shared), so ``n_rep=(1, 5)`` costs one five-split fit per sample. ``bagged`` > 0 adds the
    authors' estimator as the reference, "refit-bagged (B)": the mean of ``bagged`` refit
    bootstrap draws, with their percentile CI.
    """
    reps_list = sorted({int(k) for k in ((n_rep,) if np.isscalar(n_rep) else n_rep)})
    aggs = [aggregate] if isinstance(aggregate, str) else list(aggregate)
    if not reps_list or reps_list[0] < 1:
        raise ValueError(f"n_rep must hold positive counts, got {n_rep!r}")
    scm = make_scm(kind, seed=scm_seed)
    truth = scm.true_effects()
    if learners is None:
        learners = {"propensity": CellMeans(), "outcome": CellMeans()}
    elif learners == "xgboost":
        learners = None
    roles = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
    rows = []

    def add(rep, method, table):
        for e in PSE_NAMES:
            rows.append({"rep": rep, "method": method, "effect": e, "estimate": table.loc[e, "estimate"],
                         "ci_low": table.loc[e, "ci_low"], "ci_high": table.loc[e, "ci_high"]})

    for rep in progress_bar(range(reps), disable=not progress, desc=f"coverage {kind}"):
        d = scm.sample(n, seed=seed * 100_003 + rep)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PSEWarning)
            est = PSEEstimator(d, **roles, folds=folds, seed=rep, learners=learners, normalize=normalize,
                               clip=clip, n_rep=reps_list[-1], aggregate=aggs[0],
                               variance="influence").fit()  # its intervals: the influence bootstrap's, below
            phi_reps = est.result_.phi_reps
            for k in reps_list:
                sub = phi_reps[:k]
                draws = influence_bootstrap(sub, n_boot, seed=est.seed + 1)
                for agg in aggs[:1] if k == 1 else aggs:
                    res = PSEResult(aggregate_reps(sub.mean(axis=1), agg), sub, aggregate=agg, level=est.level,
                                    boot_psi=aggregate_reps(draws, agg, axis=1), boot_kind="influence")
                    add(rep, dml_method_name(k, agg), res.summary)
            if bagged:
                draws = effects_from_psi(est.refit_draws(bagged, seed=est.seed + 2))
                lo, hi = np.quantile(draws, [0.025, 0.975], axis=0)
                add(rep, f"refit-bagged ({bagged})", pd.DataFrame(
                    {"estimate": draws.mean(axis=0), "ci_low": lo, "ci_high": hi}, index=list(PSE_NAMES)))
        if plugin:
            try:
                pl = plugin_pse(d, **roles)["estimate"]
            except ValueError:  # an empty cell: the plug-in is undefined on this sample
                pl = pd.Series(np.nan, index=list(PSE_NAMES))
            rows += [{"rep": rep, "method": "plug-in", "effect": e, "estimate": pl[e]} for e in PSE_NAMES]
        naive = d.loc[d.x == "x1", "y"].mean() - d.loc[d.x == "x0", "y"].mean()
        rows.append({"rep": rep, "method": "naive difference", "effect": "TE", "estimate": naive})
    est = pd.DataFrame(rows)
    est["truth"] = est["effect"].map(truth)
    covered = ((est["ci_low"] <= est["truth"]) & (est["truth"] <= est["ci_high"])).astype(float)
    est["covered"] = covered.where(est["ci_low"].notna())
    g = est.groupby(["method", "effect"], sort=False)
    cov = pd.DataFrame({
        "truth": g["truth"].first(),
        "mean_estimate": g["estimate"].mean(),
        "bias": g["estimate"].mean() - g["truth"].first(),
        "sd": g["estimate"].std(),
        "rmse": g.apply(lambda s: float(np.sqrt(np.nanmean((s["estimate"] - s["truth"]) ** 2))), include_groups=False),
        "coverage": g["covered"].mean(),
        "ci_width": g.apply(lambda s: float((s["ci_high"] - s["ci_low"]).mean()), include_groups=False),
        "n_valid": g["estimate"].count(),
    }).reset_index()
    cov["n_reps"] = reps
    cov["n"] = n
    cov["scm"] = kind
    return est, cov
