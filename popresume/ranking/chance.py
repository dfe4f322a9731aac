"""What a fair ranker produces: the chance distribution of the min/max selection-rate ratio.

**The design-based null** (the one printed). A ranker that ignores the names' groups may
still favour positions and résumé texts. Under that null the position of each run's top pick
is whatever it was, and the group sitting at that position is an accident of the
randomisation that assigned groups to positions. :func:`design_null_min_max` re-draws that
randomisation within the experiment's design: it permutes the runs' shown group orders
across the runs (so the set of orders, and with it Bloomberg's balance of each group shown
first exactly 125 times, is kept) while each run keeps the position of its top pick. This is
a randomisation test of the sharp null "the groups' arrangement does not change which
position wins" (Fisher; Rosenbaum 2002, ch. 2), so it needs no model of the ranker. A ranker
that mostly picks the first résumé, shown to each group equally often, gives nearly equal
top counts under it: a min/max ratio of 0.8 is then far from chance.

**The uniform multinomial** (kept as a labelled comparison): a ranker that picks its top
résumé uniformly at random gives each group a top count that is one multinomial draw with
``n_runs`` trials and equal shares ``1/k``. It ignores the design, and with positions
favoured it is far too wide (conservative).

p-values are the share of null draws with a ratio as low or lower; ``null_p_text`` writes
them with the digits the ``n_sim`` draws support and as a bound (``< 1/n_sim``) when no draw
reaches the observed ratio (:func:`popresume.ll144.format_probability`, the project's one
writer of simulated probabilities). :mod:`popresume.coverage.ranking` measures both nulls' type-I
error and flag rates on Bloomberg's design (docs/DESIGN.md §5).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.ll144 import FOUR_FIFTHS, format_probability

#: what ``null_p`` and ``flag_rate_under_null`` are computed under
DESIGN_NULL = "design: shown orders permuted across runs, top-pick positions kept"
UNIFORM_NULL = "uniform multinomial top pick (ignores the design)"


def null_min_max(n_runs: int, k: int = 8, *, n_sim: int = 10_000, seed: int = 0) -> np.ndarray:
    """``n_sim`` draws of the min/max selection-rate ratio of a uniformly random top pick."""
    if n_runs < 1 or k < 2 or n_sim < 1:
        raise ValueError(f"need n_runs >= 1, k >= 2 and n_sim >= 1; got {n_runs}, {k}, {n_sim}")
    counts = np.random.default_rng(seed).multinomial(int(n_runs), np.full(k, 1 / k), size=int(n_sim))
    return counts.min(axis=1) / counts.max(axis=1)


def design_null_counts(orders: np.ndarray, winners: np.ndarray, *, n_sim: int = 10_000, seed: int = 0,
                       chunk: int = 500) -> np.ndarray:
    """``n_sim`` × groups top counts under the design-based null.

    ``orders``: runs × positions, the group code (0..g-1) shown at each position; ``winners``:
    the position index (0-based) of each run's top pick. Each draw permutes the rows of
    ``orders`` and counts the group at each run's winning position."""
    orders, winners = np.asarray(orders), np.asarray(winners)
    if orders.ndim != 2 or len(winners) != len(orders) or len(orders) < 1 or n_sim < 1:
        raise ValueError(f"need a runs × positions order matrix and one winning position per run, n_sim >= 1; "
                         f"got shapes {orders.shape}, {winners.shape}, n_sim {n_sim}")
    n, g = len(orders), int(orders.max()) + 1
    rng = np.random.default_rng(seed)
    out = np.empty((int(n_sim), g), dtype=np.int64)
    for start in range(0, int(n_sim), chunk):
        m = min(chunk, int(n_sim) - start)
        perm = np.argsort(rng.random((m, n)), axis=1)
        top = orders[perm, winners[None, :]]  # group at each run's winning position, rows permuted
        out[start:start + m] = (top[:, :, None] == np.arange(g)).sum(axis=1)
    return out


def _ratio(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    mx = counts.max(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mx > 0, counts.min(axis=-1) / mx, np.nan)


def design_of(long: pd.DataFrame, *, group: str = "demo") -> tuple[np.ndarray, np.ndarray, list[str]]:
    """From one model × job's long table: the runs × positions matrix of group codes, each
    run's winning position (0-based; runs without a top pick or with another number of
    alternatives are left out) and the group labels."""
    require_columns(long, ["run", "position", group, "rank"], "ranking table")
    levels = sorted(long[group].unique())
    code = pd.Categorical(long[group], categories=levels).codes
    d = long.assign(_code=code, _top=(long["rank"] == 1))
    k = int(d.groupby("run").size().max())
    full = d.groupby("run")["position"].transform("size") == k
    with_top = d.groupby("run")["_top"].transform("sum") == 1
    d = d[full & with_top].sort_values(["run", "position"])
    orders = d["_code"].to_numpy().reshape(-1, k)
    winners = d["_top"].to_numpy().reshape(-1, k).argmax(axis=1)
    return orders, winners, levels


def chance_table(long: pd.DataFrame, *, by: Sequence[str] = ("model", "job"), n_sim: int = 10_000,
                 seed: int = 0, threshold: float = FOUR_FIFTHS) -> pd.DataFrame:
    """Per ``by``: the observed ``min_max_ratio`` of top counts, ``null_p`` (share of design-based
    null draws whose ratio is as low or lower; ``null_p_text`` with the digits the draws support)
    and ``flag_rate_under_null`` (share the rule ``ratio < threshold`` flags), the same two under
    the uniform multinomial (``null_p_uniform``, ``flag_rate_uniform``), ``n_runs`` and ``n_sim``.

    Parameters
    ----------
    long : pandas.DataFrame
        The long table.
    by : sequence of str
        The columns of one experiment.
    n_sim, seed : int
        Draws and seed of the design null.
    threshold : float
        The flag threshold (``FOUR_FIFTHS``).

    Returns
    -------
    pandas.DataFrame
        One row per experiment: the observed ratio, its p-value and the flag rates under both nulls.

    Examples
    --------
    >>> from popresume.ranking.bloomberg import load_bloomberg_ranks
    >>> gpt4 = load_bloomberg_ranks(["gpt-4"])
    >>> t = chance_table(gpt4[gpt4["job"] == "software engineer"], n_sim=500)
    >>> t[["min_max_ratio", "null_p_text"]].round(3).to_dict("records")
    [{'min_max_ratio': 0.764, 'null_p_text': '0.30'}]
    """
    by = list(by)
    require_columns(long, by + ["run", "position", "demo", "rank"], "ranking table")
    rows = []
    for i, (key, s) in enumerate(long.groupby(by, sort=False)):
        key = key if isinstance(key, tuple) else (key,)
        orders, winners, levels = design_of(s)
        observed = np.bincount(orders[np.arange(len(orders)), winners], minlength=len(levels))
        obs = float(_ratio(observed))
        null = _ratio(design_null_counts(orders, winners, n_sim=n_sim, seed=seed + i))
        uni = null_min_max(len(orders), orders.shape[1], n_sim=n_sim, seed=seed + i)
        p = float((null <= obs + 1e-12).mean())
        rows.append({**dict(zip(by, key)), "min_max_ratio": obs, "null_p": p,
                     "flag_rate_under_null": float((null < threshold).mean()), "null_p_text": format_probability(p, n_sim),
                     "null_p_uniform": float((uni <= obs + 1e-12).mean()),
                     "flag_rate_uniform": float((uni < threshold).mean()), "n_runs": len(orders),
                     "n_sim": int(n_sim), "null": DESIGN_NULL})
    return pd.DataFrame(rows)


def null_draws(long: pd.DataFrame, chance: pd.DataFrame, *, n_sim: int = 10_000, seed: int = 0) -> dict:
    """For a figure: ``{label: min/max ratio draws}``, the uniform fair ranker at the first
    row's number of runs and the design-based null of the row with the narrowest one (lowest
    flag rate), each labelled with what it is."""
    require_columns(chance, ["model", "job", "n_runs", "flag_rate_under_null"], "chance table")
    if chance.empty:
        return {}
    row = chance.loc[chance["flag_rate_under_null"].idxmin()]
    cell = long[(long["model"] == row["model"]) & (long["job"] == row["job"])]
    orders, winners, _ = design_of(cell)
    k = orders.shape[1]
    n = int(chance["n_runs"].iloc[0])
    return {f"uniform fair ranker, {n} runs": null_min_max(n, k, n_sim=n_sim, seed=seed),
            f"design null, {row['model']} {row['job']}": _ratio(design_null_counts(orders, winners, n_sim=n_sim,
                                                                                  seed=seed))}


def null_quantiles(n_runs: Sequence[int], k: int = 8, *, qs: Sequence[float] = (0.025, 0.5, 0.975),
                   n_sim: int = 10_000, seed: int = 0, threshold: float = FOUR_FIFTHS) -> pd.DataFrame:
    """For each number of runs: quantiles of the uniform fair ranker's min/max ratio and its flag rate.

    Parameters
    ----------
    n_runs : sequence of int
        Numbers of runs.
    k : int
        Résumés per run.
    qs : sequence of float
        The quantiles.
    n_sim, seed : int
        Draws and seed.
    threshold : float
        The flag threshold (``FOUR_FIFTHS``).

    Returns
    -------
    pandas.DataFrame
        One row per number of runs: the quantiles and ``flag_rate_under_null``.

    Examples
    --------
    >>> t = null_quantiles([1000, 3000], n_sim=500)
    >>> bool(t["flag_rate_under_null"].is_monotonic_decreasing)  # more runs, fewer chance flags
    True
    """
    rows = []
    for n in n_runs:
        null = null_min_max(int(n), k, n_sim=n_sim, seed=seed)
        rows.append({"n_runs": int(n), **{f"q{q:g}": float(np.quantile(null, q)) for q in qs},
                     "flag_rate_under_null": float((null < threshold).mean())})
    return pd.DataFrame(rows)


__all__ = ["DESIGN_NULL", "UNIFORM_NULL", "null_min_max", "design_null_counts",
           "design_of", "chance_table", "null_draws", "null_quantiles"]
