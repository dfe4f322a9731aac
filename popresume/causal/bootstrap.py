"""Bootstrap confidence intervals for the five effects (PopResume §5.1: 500 draws, 95%).

Two methods, the same percentile CIs:

* ``influence_bootstrap`` (default): every effect is a difference of means of the
  per-unit influence values φ (DESIGN §3), so resampling the *rows of the n × 5 φ matrix*
  and taking column means gives bootstrap replicates of all five counterfactual means,
  hence all five effects jointly, for the price of one matrix product per batch of draws.
  The nuisances are held at their cross-fitted values: the first-order (Neyman-orthogonal)
  expansion that justifies DML says their estimation error does not move ψ̂ to first order.
* ``refit_bootstrap``: the slow reference. Each draw resamples rows with replacement and
  re-runs the *whole* cross-fitted estimator. Folds are assigned to ORIGINAL row ids and
  every duplicate inherits its original's fold, so a row's copies never sit in both a
  training and an evaluation fold (which would make the held-out predictions in-sample
  and the intervals too narrow). Hyperparameters stay those chosen on the original sample.

Point estimates always come from the original sample, never from the replicate mean.
"""

from __future__ import annotations

import numpy as np
from tqdm import tqdm


def influence_bootstrap(phi: np.ndarray, n_boot: int = 500, *, seed: int = 0,
                        batch: int = 100) -> np.ndarray:
    """(n_boot, k) replicates of the column means of ``phi`` under row resampling."""
    phi = np.asarray(phi, float)
    n = len(phi)
    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot}")
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, phi.shape[1]))
    for s in range(0, n_boot, batch):
        m = min(batch, n_boot - s)
        # counts of each row in each draw: a multinomial(n, 1/n) vector per draw
        counts = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(m)])
        out[s:s + m] = counts @ phi / n
    return out


def refit_bootstrap(estimator, n_boot: int = 50, *, seed: int = 0, progress: bool = False) -> np.ndarray:
    """(n_boot, 5) replicates of ψ from full re-runs of ``estimator``'s cross-fitting."""
    from .crossfit import assign_folds
    from .functional import PSI_NAMES

    df = estimator.df_
    n = len(df)
    x1 = (df[estimator.x] == estimator.x1).to_numpy()
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, len(PSI_NAMES)))
    redrawn = 0
    for d in tqdm(range(n_boot), disable=not progress, desc="refit bootstrap"):
        for attempt in range(20):
            idx = rng.integers(0, n, n)
            # folds belong to original ids: duplicates of a row share its fold
            fold_of_id = assign_folds(x1, int(estimator.folds), rng)
            fold = fold_of_id[idx]
            # a resample can leave a fold without one group (rare unless a group is tiny):
            # redraw it rather than fail, and count how often that happened
            ok = all(np.any(x1[idx][fold == f]) and np.any(~x1[idx][fold == f]) for f in range(int(estimator.folds)))
            if ok:
                break
            redrawn += 1
        else:
            raise ValueError("refit bootstrap: 20 resamples in a row left a fold without one group; "
                             "the smaller group is too small for the refit bootstrap with these folds")
        res = estimator._run(df.iloc[idx].reset_index(drop=True), fold)
        out[d] = res.phi.mean(axis=0)
    estimator.refit_redrawn_ = redrawn
    return out
