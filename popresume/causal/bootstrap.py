"""The influence-function bootstrap: resampling rows of the per-unit φ matrix.

* ``influence_bootstrap`` (default, docs/DESIGN.md §3): every effect is a difference of means of
  the per-unit influence values φ, so resampling the *rows* of the n × 5 matrix φ and
  re-averaging gives bootstrap replicates of all five counterfactual means jointly, at the
  price of one matrix product per batch of draws. The nuisances are held at their
  cross-fitted values: the first-order (Neyman-orthogonal) expansion that justifies DML
  says their estimation error does not move ψ̂ to first order.
* the slow reference, the refit bootstrap (resample, re-run the whole cross-fitted
  estimator), is a method of the estimator: ``PSEEstimator.refit_draws`` /
  ``PSEEstimator.bootstrap(method="refit")``. This module knows nothing of the estimator.

Point estimates always come from the original sample, never from the replicate mean.
"""

from __future__ import annotations

import numpy as np


def influence_bootstrap(phi: np.ndarray, n_boot: int = 500, *, seed: int = 0,
                        batch: int = 100) -> np.ndarray:
    """Replicates of the column means of ``phi`` under row resampling.

    ``phi`` (n, k) gives (n_boot, k). ``phi`` (n_rep, n, k), one matrix per cross-fitting
    repetition on the same rows, gives (n_boot, n_rep, k): each draw resamples the rows once
    and applies the same counts to every repetition.
    """
    phi = np.asarray(phi, float)
    stacked = phi.ndim == 3
    reps = phi if stacked else phi[None]
    n_rep, n, k = reps.shape
    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot}")
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, n_rep, k))
    for s in range(0, n_boot, batch):
        m = min(batch, n_boot - s)
        # counts of each row in each draw: a multinomial(n, 1/n) vector per draw
        counts = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(m)])
        for j in range(n_rep):
            out[s:s + m, j] = counts @ reps[j] / n
    return out if stacked else out[:, 0]
