"""Group effects given position: a conditional logit over the k alternatives of each run.

Each run is one choice among its ``k`` shown résumés. McFadden's conditional logit gives
alternative ``j`` of run ``r`` the probability ``exp(x_rj'b) / sum_l exp(x_rl'b)``, with
dummies for the position shown, the résumé text (the job's templates differ a little) and
the name's group (reference :data:`REFERENCE`). It is statsmodels' ``ConditionalLogit``
(runs are the strata); ``engine="statsmodels"`` fits it there. The default engine maximises
the same likelihood by Newton's method on arrays (statsmodels loops over the runs in Python:
about a minute per model × job on a busy machine, against well under a second). After the
non-identified terms are set aside (below), both engines maximise the same likelihood on the
same rows and agree in every coefficient: to 1e-10 on all sixteen model × job ×
specification fits of Bloomberg's runs (measured once; statsmodels takes minutes), and to
1e-4 in tests/test_ranking.py on 200 runs of GPT-4 retail, where one résumé text is never
ranked first and statsmodels used to return NaN.

**Terms the data cannot identify.** A dummy whose alternatives are never ranked first (a
résumé template no run put on top) has its maximum likelihood at minus infinity. Its limit
is the same model with those alternatives left out of their runs (their probability is 0
and they were not chosen), so :func:`design` leaves them out, drops the term, and the table
keeps a row for it with ``estimable`` False and the ``reason``. A term ranked first in every
run it appears in has its maximum at plus infinity and nothing else in those runs is
identified; that fit is reported as not estimable.

**Standard errors** (``cluster``). The score of run ``r`` is the sum over its alternatives of
``(x_rj - xbar_r)(y_rj - p_rj)``. Runs are independent draws, and a name appears in about ten
runs of a job, so the pieces are correlated within a run and within a name. The default is
two-way clustering by run and by name (Cameron, Gelbach and Miller 2011: ``V_run + V_name -
V_run∩name``; a name appears once in a run, so the intersection is one alternative), computed
by statsmodels' ``cov_cluster_2groups`` from these pieces and the inverse Hessian. ``"run"``
clusters by run only, ``"name"`` by name only (the previous default, which drops the
covariance within a run: on Bloomberg's design with no group effect its nominal 5% Wald tests
reject too often; :mod:`popresume.coverage.ranking` measures each, docs/DESIGN.md §5).

A group coefficient is the log odds of being picked first against the reference group, for
the same position and the same résumé text.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.stats import norm
from statsmodels.discrete.conditional_models import ConditionalLogit
from statsmodels.stats.sandwich_covariance import cov_cluster, cov_cluster_2groups
from threadpoolctl import threadpool_limits

from popresume.errors import require_columns

REFERENCE = "W_M"
#: how the sandwich's middle is clustered; the first is the default
CLUSTERS = ("two-way", "run", "name")


def design(long: pd.DataFrame, *, position: bool = True, resume: bool = True, reference: str = REFERENCE,
           group: str = "demo") -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The design of one model × job: ``X`` (dummies), ``y`` (ranked first), strata (run), clusters (name).

    Runs without a top pick are dropped (they carry no choice). All dummies are kept here;
    :func:`identified` sets aside the ones the choices cannot identify."""
    cols = ["run", "position", group, "name", "rank"] + (["resume"] if resume else [])
    require_columns(long, cols, "ranking table")
    d = long.copy()
    d["y"] = (d["rank"] == 1).astype(float)
    d = d[d.groupby("run")["y"].transform("sum") == 1]
    levels = sorted(d[group].unique())
    if reference not in levels:
        raise ValueError(f"reference group {reference!r} not in the data; groups: {levels}")
    parts = [pd.get_dummies(pd.Categorical(d[group], categories=[reference] + [g for g in levels if g != reference]),
                            prefix=group, drop_first=True)]
    if position:
        parts.append(pd.get_dummies(pd.Categorical(d["position"].astype(int)), prefix="position", drop_first=True))
    if resume:
        parts.append(pd.get_dummies(pd.Categorical(d["resume"].astype(int)), prefix="resume", drop_first=True))
    X = pd.concat([p.set_axis(d.index) for p in parts], axis=1).astype(float)
    return X, d["y"].to_numpy(), d["run"].to_numpy(), d["name"].to_numpy()


def identified(X: pd.DataFrame, y: np.ndarray, strata: np.ndarray) -> tuple[np.ndarray, dict[str, str]]:
    """Which rows and terms the likelihood identifies: a boolean mask of rows to keep and
    ``{term: reason}`` for the terms set aside (see the module docstring).

    Repeats until stable: a term never ranked first loses its alternatives (its coefficient's
    limit is minus infinity), which can leave another term with no variation."""
    keep = np.ones(len(y), bool)
    dropped: dict[str, str] = {}
    strata = np.asarray(strata)
    while True:
        changed = False
        for c, term in enumerate(X.columns):
            if term in dropped:
                continue
            x = X.iloc[:, c].to_numpy()[keep] > 0
            if not x.any():
                dropped[term] = "no alternative left with this term"
                changed = True
            elif not (y[keep][x] > 0).any():
                dropped[term] = (f"never ranked first in {len(np.unique(strata[keep][x]))} runs: its coefficient "
                                 "is minus infinity, so its alternatives are left out of their runs")
                keep[np.flatnonzero(keep)[x]] = False
                changed = True
        if not changed:
            return keep, dropped


def _strata_probs(X: np.ndarray, s_idx: np.ndarray, b: np.ndarray) -> np.ndarray:
    eta = X @ b
    mx = np.full(s_idx.max() + 1, -np.inf)
    np.maximum.at(mx, s_idx, eta)
    w = np.exp(eta - mx[s_idx])
    return w / np.bincount(s_idx, weights=w)[s_idx]


def _score_hessian(X: np.ndarray, y: np.ndarray, s_idx: np.ndarray, b: np.ndarray):
    """Per-alternative score pieces ``(x_rj - xbar_r)(y_rj - p_rj)``, the Hessian and the log-likelihood."""
    p = _strata_probs(X, s_idx, b)
    by_run = csr_matrix((np.ones(len(s_idx)), (s_idx, np.arange(len(s_idx)))), shape=(s_idx.max() + 1, len(s_idx)))
    xbar = by_run @ (p[:, None] * X)  # sum over each run's alternatives of p_rj x_rj
    dx = X - xbar[s_idx]
    H = -(dx * p[:, None]).T @ dx
    ll = float(np.log(p[y == 1]).sum())
    return dx * (y - p)[:, None], H, ll


def fit_newton(X: np.ndarray, y: np.ndarray, strata: np.ndarray, *, tol: float = 1e-10, maxiter: int = 100) -> np.ndarray:
    """Maximum-likelihood coefficients of the conditional logit (Newton's method with step halving)."""
    _, s_idx = np.unique(strata, return_inverse=True)
    b = np.zeros(X.shape[1])
    score, H, ll = _score_hessian(X, y, s_idx, b)
    for _ in range(maxiter):
        step = np.linalg.solve(-H, score.sum(axis=0))
        t = 1.0
        while True:
            nb = b + t * step
            nscore, nH, nll = _score_hessian(X, y, s_idx, nb)
            if nll >= ll - 1e-12 or t < 1e-8:
                break
            t /= 2
        b, score, H, done = nb, nscore, nH, abs(nll - ll) < tol
        ll = nll
        if done:
            break
    else:
        raise ValueError(f"conditional logit did not converge in {maxiter} Newton steps")
    return b


def cluster_cov(X: np.ndarray, y: np.ndarray, strata: np.ndarray, names: np.ndarray, b: np.ndarray, *,
                cluster: str = "two-way") -> np.ndarray:
    """Cluster-robust sandwich covariance of the coefficients ``b`` (``cluster``: one of
    :data:`CLUSTERS`), by statsmodels' ``cov_cluster`` / ``cov_cluster_2groups`` (CRV1, with their
    small-sample factor ``G/(G-1) · (N-1)/(N-K)``) from the per-alternative score pieces and
    the inverse of minus the Hessian."""
    if cluster not in CLUSTERS:
        raise ValueError(f"unknown cluster {cluster!r}; use one of {list(CLUSTERS)}")
    _, s_idx = np.unique(strata, return_inverse=True)
    _, n_idx = np.unique(names, return_inverse=True)
    score, H, _ = _score_hessian(X, y, s_idx, b)
    pieces = (score, np.linalg.inv(-H))
    if cluster == "run":
        return cov_cluster(pieces, s_idx.astype(np.int64))
    if cluster == "name":
        return cov_cluster(pieces, n_idx.astype(np.int64))
    return cov_cluster_2groups(pieces, s_idx.astype(np.int64), n_idx.astype(np.int64))[0]


def conditional_logit(long: pd.DataFrame, *, by: Sequence[str] = ("model", "job"), position: bool = True,
                      resume: bool = True, reference: str = REFERENCE, level: float = 0.95,
                      engine: str = "numpy", cluster: str = CLUSTERS[0]) -> pd.DataFrame:
    """Tidy coefficients per ``by``: ``term, coef, se`` (clustered as ``cluster`` says), ``z, p,
    ci_low, ci_high, odds_ratio``, ``n_runs, n_names``, ``estimable`` and ``reason`` (empty when
    estimable; a term set aside has NaN statistics); ``spec`` says which controls were in.

    Parameters
    ----------
    long, by
        The long table and the columns of one experiment, as :func:`popresume.ranking.selection_rates` reads them.
    position, resume : bool
        Adjust for the position shown and the résumé template.
    reference : str
        The reference group.
    level : float
        The intervals' level.
    engine : {"numpy", "statsmodels"}
        Which code maximises the same likelihood (see the module docstring).
    cluster : str
        How the SEs are clustered (:data:`CLUSTERS`).

    Returns
    -------
    pandas.DataFrame
        One row per experiment and term.

    Examples
    --------
    >>> from popresume.ranking.bloomberg import load_bloomberg_ranks
    >>> gpt4 = load_bloomberg_ranks(["gpt-4"])
    >>> fit = conditional_logit(gpt4[gpt4["job"] == "retail"])
    >>> fit[["term", "odds_ratio", "estimable"]].head(2).round(3).to_dict("records")
    [{'term': 'demo_A_M', 'odds_ratio': 1.109, 'estimable': True}, {'term': 'demo_A_W', 'odds_ratio': 1.186, 'estimable': True}]
    """
    if engine not in ("numpy", "statsmodels"):
        raise ValueError(f"unknown engine {engine!r}; use 'numpy' or 'statsmodels'")
    if cluster not in CLUSTERS:
        raise ValueError(f"unknown cluster {cluster!r}; use one of {list(CLUSTERS)}")
    by = list(by)
    require_columns(long, by, "ranking table")
    z = norm.ppf(0.5 + level / 2)
    spec = "group" + (" + position" if position else "") + (" + résumé" if resume else "")
    with threadpool_limits(1):  # small matrices: BLAS threads only contend
        rows = _fit_all(long, by, position, resume, reference, engine, z, spec, cluster)
    return pd.DataFrame(rows)


def _fit_one(X: pd.DataFrame, y, strata, names, engine: str, cluster: str):
    """Coefficients and SEs of the identified terms (a Series each), and the reasons of the others."""
    keep, dropped = identified(X, y, strata)
    cols = [c for c in X.columns if c not in dropped]
    Xk, yk, sk, nk = X.loc[keep, cols].to_numpy(), y[keep], strata[keep], names[keep]
    for c, term in enumerate(cols):  # plus infinity: chosen whenever shown (or never anything else)
        x = Xk[:, c] > 0
        runs = np.unique(sk[x])
        if (yk[x] > 0).sum() == len(runs) and len(runs) == len(np.unique(sk)):
            reason = f"{term} is ranked first in every run: the likelihood has no maximum"
            return pd.Series(dtype=float), pd.Series(dtype=float), {t: reason for t in X.columns}
    if engine == "statsmodels":
        model = ConditionalLogit(yk, Xk, groups=sk)
        # statsmodels' Newton takes full steps and overflows from zero when a text dominates
        # (GPT-4 HR without position terms); BFGS gets close, Newton then converges
        start = np.asarray(model.fit(disp=False, method="bfgs", maxiter=200).params)
        b = np.asarray(model.fit(start_params=start, disp=False, method="newton", maxiter=100).params)
    else:
        b = fit_newton(Xk, yk, sk)
    se = np.sqrt(np.diag(cluster_cov(Xk, yk, sk, nk, b, cluster=cluster)))
    return pd.Series(b, index=cols), pd.Series(se, index=cols), dropped


def _fit_all(long, by, position, resume, reference, engine, z, spec, cluster) -> list[dict]:
    rows = []
    for key, sub in long.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        X, y, strata, names = design(sub, position=position, resume=resume, reference=reference)
        try:
            coef, se, dropped = _fit_one(X, y, strata, names, engine, cluster)
        except np.linalg.LinAlgError:
            raise ValueError(f"conditional logit for {' / '.join(map(str, key))}: singular design with "
                             f"{len(np.unique(strata))} run(s), too few to estimate its {X.shape[1]} terms "
                             f"(popresume ranking --no-clogit leaves it out)") from None
        for term in X.columns:
            bi, si = coef.get(term, np.nan), se.get(term, np.nan)
            zi = bi / si
            rows.append({**dict(zip(by, key)), "spec": spec, "term": term, "coef": bi, "se": si, "z": zi,
                         "p": 2 * norm.sf(abs(zi)), "ci_low": bi - z * si, "ci_high": bi + z * si,
                         "odds_ratio": np.exp(bi), "n_runs": len(np.unique(strata)),
                         "n_names": len(np.unique(names)), "cluster": cluster,
                         "estimable": term not in dropped, "reason": dropped.get(term, "")})
    return rows


__all__ = ["REFERENCE", "CLUSTERS", "design", "identified", "fit_newton", "cluster_cov", "conditional_logit"]
