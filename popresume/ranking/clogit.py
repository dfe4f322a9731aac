"""Group effects given position: a conditional logit over the k alternatives of each run.

Each run is one choice among its ``k`` shown résumés. McFadden's conditional logit gives
alternative ``j`` of run ``r`` the probability ``exp(x_rj'b) / sum_l exp(x_rl'b)``, with
dummies for the position shown, the résumé text (the job's templates differ a little) and
the name's group (reference :data:`REFERENCE`). It is statsmodels' ``ConditionalLogit``
(runs are the strata); ``engine="statsmodels"`` fits it there. The default engine maximises
the same likelihood by Newton's method on arrays (statsmodels loops over the runs in Python:
about a minute per model × job on a busy machine, against well under a second), and the tests
check that both give the same coefficients. The same name appears in several runs, so the
standard errors are clustered by name: the score of a run is a sum over its alternatives,
``x_rj (y_rj - p_rj)``, and those pieces are summed by name for the sandwich's middle
(with the usual G/(G-1) factor).

A group coefficient is the log odds of being picked first against the reference group, for
the same position and the same résumé text.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from popresume.errors import require_columns

REFERENCE = "W_M"


def design(long: pd.DataFrame, *, position: bool = True, resume: bool = True, reference: str = REFERENCE,
           group: str = "demo") -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The design of one model × job: ``X`` (dummies), ``y`` (ranked first), strata (run), clusters (name).

    Runs without a top pick are dropped (they carry no choice)."""
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


def _strata_probs(X: np.ndarray, s_idx: np.ndarray, b: np.ndarray) -> np.ndarray:
    eta = X @ b
    mx = np.full(s_idx.max() + 1, -np.inf)
    np.maximum.at(mx, s_idx, eta)
    w = np.exp(eta - mx[s_idx])
    return w / np.bincount(s_idx, weights=w)[s_idx]


def _score_hessian(X: np.ndarray, y: np.ndarray, s_idx: np.ndarray, b: np.ndarray):
    """Per-alternative score pieces ``(x_rj - xbar_r)(y_rj - p_rj)``, the Hessian and the log-likelihood."""
    p = _strata_probs(X, s_idx, b)
    xbar = np.stack([np.bincount(s_idx, weights=p * X[:, c]) for c in range(X.shape[1])], axis=1)
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


def _cluster_cov(X: np.ndarray, y: np.ndarray, strata: np.ndarray, clusters: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sandwich covariance with the score pieces of each alternative summed by ``clusters``."""
    _, s_idx = np.unique(strata, return_inverse=True)
    score, H, _ = _score_hessian(X, y, s_idx, b)
    _, c_idx = np.unique(clusters, return_inverse=True)
    G = c_idx.max() + 1
    S = np.zeros((G, X.shape[1]))
    np.add.at(S, c_idx, score)
    bread = np.linalg.inv(-H)
    return bread @ (S.T @ S) @ bread * G / (G - 1)


def conditional_logit(long: pd.DataFrame, *, by: Sequence[str] = ("model", "job"), position: bool = True,
                      resume: bool = True, reference: str = REFERENCE, level: float = 0.95,
                      engine: str = "numpy") -> pd.DataFrame:
    """Tidy coefficients per ``by``: ``term, coef, se`` (clustered by name), ``z, p, ci_low,
    ci_high, odds_ratio``, and ``n_runs, n_names``; ``spec`` says which controls were in."""
    from scipy.stats import norm
    from threadpoolctl import threadpool_limits

    if engine not in ("numpy", "statsmodels"):
        raise ValueError(f"unknown engine {engine!r}; use 'numpy' or 'statsmodels'")
    by = list(by)
    require_columns(long, by, "ranking table")
    z = norm.ppf(0.5 + level / 2)
    spec = "group" + (" + position" if position else "") + (" + résumé" if resume else "")
    with threadpool_limits(1):  # small matrices: BLAS threads only contend
        rows = _fit_all(long, by, position, resume, reference, engine, z, spec)
    return pd.DataFrame(rows)


def _fit_all(long, by, position, resume, reference, engine, z, spec) -> list[dict]:
    from scipy.stats import norm

    rows = []
    for key, sub in long.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        X, y, strata, names = design(sub, position=position, resume=resume, reference=reference)
        if engine == "statsmodels":
            from statsmodels.discrete.conditional_models import ConditionalLogit

            b = np.asarray(ConditionalLogit(y, X.to_numpy(), groups=strata).fit(disp=False, method="newton",
                                                                                 maxiter=100).params)
        else:
            try:
                b = fit_newton(X.to_numpy(), y, strata)
            except np.linalg.LinAlgError:
                raise ValueError(f"conditional logit for {' / '.join(map(str, key))}: singular design with "
                                 f"{len(np.unique(strata))} run(s), too few to estimate its {X.shape[1]} terms "
                                 f"(popresume ranking --no-clogit leaves it out)") from None
        se = np.sqrt(np.diag(_cluster_cov(X.to_numpy(), y, strata, names, b)))
        for term, bi, si in zip(X.columns, b, se):
            zi = bi / si
            rows.append({**dict(zip(by, key)), "spec": spec, "term": term, "coef": bi, "se": si, "z": zi,
                         "p": 2 * norm.sf(abs(zi)), "ci_low": bi - z * si, "ci_high": bi + z * si,
                         "odds_ratio": np.exp(bi), "n_runs": len(np.unique(strata)),
                         "n_names": len(np.unique(names))})
    return rows


__all__ = ["REFERENCE", "design", "fit_newton", "conditional_logit"]
