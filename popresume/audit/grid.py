"""Run an audit grid end to end: profiles → résumés → scores → path-specific effects.

PopResume §5.1: 5 occupations × 3 formats × 2 attributes × 4 models = 120 audits,
each a DML-UCA estimate of TE, NDE, NIE, BIE, RIE with 95% bootstrap CIs
(Tables 4-5). :func:`run_audit` runs any such grid from a config
(:mod:`popresume.audit.config`) and returns one tidy table in the layout of
``popresume_published_pse.csv`` plus screener metadata.

Every stage is cached under ``CACHE_DIR/audit`` keyed by what determines it, so an
interrupted or repeated run redoes nothing it already has:

* profiles: one Parquet per (occupations, sizes, seed);
* résumés: one Parquet per (profiles, format, render options);
* scores: the screener's own on-disk cache (per résumé), plus one Parquet per
  (résumés, screener) so a rerun does not even open the screener;
* estimates: one Parquet per audit cell, keyed by the scores' hash and the
  estimator settings with every default resolved and the estimable rule's settings
  (``AuditConfig.estimator_key``), so a release that changes a default re-estimates.

Estimation — the expensive part on a CPU — runs cell-parallel with joblib; with
``scheduler="tcp://host:port"`` the same joblib calls go to a Dask cluster through
``dask.distributed``'s joblib backend (docs/DESIGN.md §6).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import joblib
import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from popresume.audit import pipeline
from popresume.audit.config import AuditConfig, ScreenerEntry, load_config
from popresume.audit.metrics import adverse_impact_summary, cases_from_significance
from popresume.causal import default_roles, wide_row
from popresume.causal.effects import ci_significance
from popresume.causal.estimate import estimate_captured
from popresume.causal.results import OVERLAP_COLUMNS
from popresume.errors import require_columns
from popresume.extras import require
from popresume.grouping import add_groups
from popresume.io import atomic_path, write_parquet
from popresume.paths import CACHE_DIR
from popresume.population import generate_population
from popresume.progress import progress_bar
from popresume.schema import OCCUPATION_LABELS, PSE_NAMES
from popresume.screeners import get_screener
from popresume.screeners.base import has_capability
from popresume.screeners.validity import stored_verdicts

RESULT_KEYS = ("attribute", "occupation", "format", "model", "cases")
EFFECT_COLUMNS = tuple(f"{e}_{s}" for e in PSE_NAMES for s in ("estimate", "ci_low", "ci_high"))
METADATA_COLUMNS = (
    "cases_paper_rule", "occupation_key", "screener", "screener_id", "screener_model", "screener_kind", "synthetic",
    "x", "x0", "x1", "n", "n_scored", "folds", "n_boot", "seed", "config",
)
SE_COLUMNS = tuple(f"{e}_se" for e in PSE_NAMES)
# the synthetic screener's true effects (NaN for real screeners): SyntheticScreener.true_effects
TRUE_COLUMNS = tuple(f"{e}_true" for e in PSE_NAMES)
RESULT_COLUMNS = (RESULT_KEYS + EFFECT_COLUMNS + SE_COLUMNS + OVERLAP_COLUMNS + TRUE_COLUMNS + METADATA_COLUMNS
                  + ("estimation_warnings",))


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+=-]*(\.[A-Za-z0-9_+=-]+)*")


def file_part(name: str) -> str:
    """``name`` as one safe component of a cache file name.

    A screener's name is the user's text (or its spec, ``hf:/models/x``): a name made of
    letters, digits and ``_+=-.`` (no leading dot, no ``..``) of at most 64 characters is
    used as it is; any other (``/abs/path``, ``../../x``, spaces) becomes a slug of its safe
    characters plus a hash of the whole name, so no name can leave the cache folder.
    """
    name = str(name)
    if len(name) <= 64 and _SAFE_NAME.fullmatch(name):
        return name
    slug = re.sub(r"[^A-Za-z0-9_+=-]+", "_", name).strip("_")[:40]
    return f"{slug or 'screener'}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"


class _Log:
    def __init__(self, progress: bool):
        self.progress = progress
        self.t0 = time.perf_counter()
        self.timings: dict[str, float] = {}

    def stage(self, name: str, seconds: float):
        self.timings[name] = self.timings.get(name, 0.0) + seconds
        if self.progress:
            print(f"[audit] {name}: {seconds:.1f}s", flush=True)


# --------------------------------------------------------------------------- stages
def load_profiles(cfg: AuditConfig, *, cache_dir: Path, progress: bool = False) -> pd.DataFrame:
    """The grid's applicants (generated once per occupations/sizes/seed, then read from Parquet), with groups."""
    path = cache_dir / "profiles" / f"{cfg.profiles_key()}.parquet"
    if path.exists():
        prof = pd.read_parquet(path)
    else:
        prof = generate_population(list(cfg.occupations), dict(cfg.sizes), seed=cfg.seed, progress=progress)
        write_parquet(prof, path)
    return add_groups(prof)


def render_resumes(profiles: pd.DataFrame, fmt: str, cfg: AuditConfig, *, cache_dir: Path,
                   need_files: bool, progress: bool = False) -> pd.DataFrame:
    """Résumés of one format for every profile (cached).

    Text: ``render_texts``. Images: ``render_images`` (with ``photo=True`` for
    image+photo). When every screener of an image format is the synthetic one —
    which reads the profile, not the pixels — no PNG is drawn (``need_files=False``)
    and the table carries the format only; set ``render: {images_for_synthetic: true}``
    to draw them anyway.
    """
    opts = dict(cfg.render)
    key = _hash({"profiles": cfg.profiles_key(), "format": fmt, "render": opts, "files": need_files, "seed": cfg.seed})
    path = cache_dir / "resumes" / f"{fmt.replace('+', '_')}-{key}.parquet"
    if path.exists():
        return pd.read_parquet(path)
    out = pipeline.render_resumes(profiles, fmt, seed=cfg.seed, options=opts, images=pipeline.image_root(cache_dir),
                                  need_files=need_files, progress=progress)
    write_parquet(out, path)
    return out


def score_format(resumes: pd.DataFrame, profiles: pd.DataFrame, entry: ScreenerEntry, fmt: str,
                 cfg: AuditConfig, *, cache_dir: Path, score_cache=None, progress: bool = False) -> pd.DataFrame:
    """Scores of one screener on one format (resumable through both caches)."""
    # the résumés' ``format`` column reaches the screener (ScoreItem.format): the synthetic
    # screener's photo channel is on exactly for image+photo (a face shows X, PopResume §5.3)
    spec = entry.spec
    key = _hash({"resumes": pipeline.frame_hash(resumes.drop(columns=[c for c in ("image_path",) if c in resumes])),
                 "spec": spec, "format": fmt, "render": dict(cfg.render)})
    path = cache_dir / "scores" / f"{file_part(entry.name)}-{fmt.replace('+', '_')}-{key}.parquet"
    if path.exists():
        return pd.read_parquet(path)

    scores = pipeline.score(get_screener(spec), resumes, profiles, cache=score_cache, progress=progress).table
    scores = scores.copy()
    scores["format"] = fmt
    scores["screener_name"] = entry.name
    write_parquet(scores, path)
    return scores


def estimate_cell(data: pd.DataFrame, roles: dict, *, folds: int, n_boot: int, seed: int,
                  estimator: Mapping | None = None) -> pd.DataFrame:
    """One audit: DML-UCA path-specific effects (popresume.causal.estimate_pse) on one cell's data.

    ``estimator`` holds keyword arguments for ``estimate_pse`` (``tune``, ``bootstrap``,
    ``clip``, ``n_rep``, ...), ``threads`` included: XGBoost threads per fit, 1 in the grid
    by default, since cells already run in parallel processes and two threads per process
    on a 2-core machine oversubscribe it (we measured a 10× slow-down under load). The
    thread count travels with this estimation's learners; no module state is touched.
    Estimation warnings (weak overlap, small groups) are kept in a ``warnings`` column,
    the overlap (``PSEResult.overlap``) in ``min_ess`` and ``clipped_share``.
    """
    opts = {"threads": 1, **dict(estimator or {})}
    result, warned = estimate_captured(data, **roles, y="score", folds=folds, n_boot=n_boot, seed=seed, **opts)
    res = result.summary
    res["warnings"] = warned
    for k, v in result.overlap.items():
        res[k] = v
    return res


def _cell_row(pse: pd.DataFrame) -> dict:
    return wide_row(pse, stats=("estimate", "ci_low", "ci_high", "se"))


def _true_effects(entry: ScreenerEntry, profiles: pd.DataFrame, attribute: str, fmt: str) -> dict:
    """True effects of a synthetic screener on this cell's population ({} for a real screener)."""
    if not entry.synthetic:
        return {}

    scr = get_screener(entry.spec)
    if not has_capability(scr, "true_effects"):
        return {}
    t = scr.true_effects(profiles, attribute, format=fmt)
    return {e: float(t.loc[e, "true"]) for e in PSE_NAMES if e in t.index}


def _run_parallel(fn: Callable, jobs: list, *, n_jobs: int, scheduler: str | None, progress: bool,
                  on_result: Callable[[int, object], None]) -> None:
    """Run ``fn(*a, **k)`` for every job; ``on_result(i, out)`` as each finishes (in order).

    Results are consumed as a generator, so an interrupted grid keeps every cell that
    finished before the interruption (``on_result`` writes it to the cache).
    """
    if not jobs:
        return
    bar = None
    if progress:
        bar = progress_bar(total=len(jobs), desc="estimating", unit="audit")
    calls = (delayed(fn)(*a, **k) for a, k in jobs)
    try:
        if scheduler:
            Client = require("dask.distributed", "--scheduler (the audit grid on a Dask cluster)").Client

            with Client(scheduler):  # registers the dask backend for joblib
                with joblib.parallel_config(backend="dask"):
                    for i, out in enumerate(Parallel(return_as="generator")(calls)):
                        on_result(i, out)
                        if bar is not None:
                            bar.update(1)
        else:
            for i, out in enumerate(Parallel(n_jobs=n_jobs, return_as="generator")(calls)):
                on_result(i, out)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def _score_all(cfg: AuditConfig, profiles: pd.DataFrame, *, cache: Path, log: "_Log", progress: bool,
               score_cache=None) -> dict[tuple[str, str], pd.DataFrame]:
    """Render and score every (format, screener) of the grid (cached)."""
    scores: dict[tuple[str, str], pd.DataFrame] = {}
    for fmt in cfg.formats:
        entries = [s for s in cfg.screeners if fmt in s.formats]
        if not entries:
            continue
        need_files = fmt == "text" or any(not s.synthetic for s in entries) or bool(
            cfg.render.get("images_for_synthetic", False))
        t = time.perf_counter()
        resumes = render_resumes(profiles, fmt, cfg, cache_dir=cache, need_files=need_files, progress=progress)
        log.stage(f"render {fmt}", time.perf_counter() - t)
        for e in entries:
            t = time.perf_counter()
            scores[(fmt, e.name)] = score_format(
                resumes, profiles, e, fmt, cfg, cache_dir=cache, progress=progress,
                # per-résumé score cache: kept beside the grid's other caches unless given
                score_cache=score_cache if score_cache is not None else cache / "scores" / "scores.sqlite")
            log.stage(f"score {fmt} / {e.name}", time.perf_counter() - t)

    return scores


# --------------------------------------------------------------------------- the grid
@dataclass(frozen=True)
class AuditRun:
    """What :func:`run_audit` returns: the results ``table`` and how the run went.

    ``timings``: seconds per stage; ``estimates_from_cache`` / ``estimated``: audit cells
    read from the cache and estimated in this run; ``wall_s``: the whole run; ``config``:
    the validated grid that ran. The metadata lives here, not in ``table.attrs`` (which
    pandas drops on concat and merge).

    Parameters
    ----------
    table : pandas.DataFrame
        The results, one row per audit.
    config : AuditConfig
        The grid that ran.
    timings : dict
        Seconds per stage.
    estimates_from_cache, estimated : int
        Audit cells read from the cache, and estimated in this run.
    wall_s : float
        Seconds for the whole run.

    Examples
    --------
    >>> import pandas as pd
    >>> from popresume.audit import validate_config
    >>> config = validate_config({"name": "x", "occupations": ["nurse"], "formats": ["text"],
    ...                           "attributes": ["gender"], "sizes": 100, "seed": 0, "folds": 3, "n_boot": 0,
    ...                           "screeners": [{"name": "s", "spec": {"kind": "synthetic"}}]})
    >>> AuditRun(table=pd.DataFrame(), config=config, estimated=1).estimates_from_cache
    0
    """

    table: pd.DataFrame = field(repr=False)
    config: AuditConfig = field(repr=False)
    timings: dict = field(default_factory=dict)
    estimates_from_cache: int = 0
    estimated: int = 0
    wall_s: float = float("nan")

    def __len__(self) -> int:
        return len(self.table)

    def summary_line(self) -> str:
        """One line for a log: audits, seconds, cells from the cache."""
        return (f"{len(self.table)} audits in {self.wall_s:.1f}s ({self.estimates_from_cache} estimates from cache, "
                f"{self.estimated} estimated)")


def run_audit(config, *, scheduler: str | None = None, n_jobs: int = 2, progress: bool = True,
              cache_dir: str | Path | None = None, score_cache=None) -> AuditRun:
    """Run every audit of ``config``; the tidy results table is the returned run's ``table``.

    Parameters
    ----------
    config : path, mapping or AuditConfig
        A YAML file, a mapping, or an :class:`AuditConfig`; validated before any work starts
        (bad entries raise ``ValueError`` naming them).
    scheduler : str, optional
        Address of a Dask scheduler (``"tcp://host:8786"``); estimation then runs on that
        cluster through joblib's dask backend.
    n_jobs : int
        joblib workers on this machine (ignored with ``scheduler``).
    progress : bool
        Show progress bars.
    cache_dir : str or Path, optional
        Where profiles, résumés, scores and estimates are cached (default ``CACHE_DIR/audit``).
    score_cache : ScoreCache, optional
        The screeners' per-résumé score cache (default ``<cache_dir>/scores/scores.sqlite``).

    Returns
    -------
    AuditRun
        Its ``table`` has one row per (attribute, occupation, format, screener) with the
        columns of ``popresume_published_pse.csv`` (``paper_cases`` is called ``cases`` here:
        our labels by the rules stated in §5.2) plus the SEs and screener metadata; the run
        also holds the stage timings and how many estimates came from the cache.

    Examples
    --------
    >>> import tempfile
    >>> cfg = {"name": "demo", "occupations": ["teacher"], "formats": ["text"], "attributes": ["gender"],
    ...        "sizes": 150, "seed": 2, "folds": 3, "n_boot": 0, "estimator": {"tune": False, "threads": 1},
    ...        "screeners": [{"name": "synth", "spec": {"kind": "synthetic", "noise_sd": 1.0, "seed": 0},
    ...                       "label": "synthetic"}]}
    >>> run = run_audit(cfg, cache_dir=tempfile.mkdtemp(), n_jobs=1, progress=False)
    >>> run.table[["attribute", "format", "model"]].to_dict("records")
    [{'attribute': 'gender', 'format': 'text', 'model': 'synthetic'}]
    >>> run.estimated, run.estimates_from_cache
    (1, 0)
    """
    cfg = load_config(config)  # everything checked before any work
    cache = Path(cache_dir) if cache_dir is not None else CACHE_DIR / "audit"
    log = _Log(progress)

    t = time.perf_counter()
    profiles = load_profiles(cfg, cache_dir=cache, progress=progress)
    log.stage("profiles", time.perf_counter() - t)

    scores = _score_all(cfg, profiles, cache=cache, log=log, progress=progress, score_cache=score_cache)

    # estimation, cell-parallel, cached per cell
    t = time.perf_counter()
    cells = cfg.cells()
    rows_meta, jobs, job_cells, results = [], [], [], {}
    for occ, fmt, attr, entry in cells:
        sc = scores[(fmt, entry.name)]
        sub = profiles[profiles["occupation"] == occ]
        data = sub.merge(sc[["resume_id", "score"]], on="resume_id", how="left", validate="one_to_one")
        data = data[data["score"].notna()].reset_index(drop=True)
        if len(data) < 20:
            raise ValueError(f"audit ({occ}, {fmt}, {attr}, {entry.name}) has only {len(data)} scored résumés")
        roles = default_roles(attr)
        key = _hash({"scores": pipeline.frame_hash(data[["resume_id", "score"]]), "attribute": attr, "roles": roles,
                     "estimator": cfg.estimator_key(), "columns": list(OVERLAP_COLUMNS)})
        path = cache / "estimates" / f"{occ}-{fmt.replace('+', '_')}-{attr}-{file_part(entry.name)}-{key}.parquet"
        meta = dict(occ=occ, fmt=fmt, attr=attr, entry=entry, roles=roles, n=len(sub), n_scored=len(data),
                    path=path, sc=sc)
        rows_meta.append(meta)
        if path.exists():
            results[str(path)] = pd.read_parquet(path).set_index("effect")
        else:
            jobs.append(((data, roles), dict(folds=cfg.folds, n_boot=cfg.n_boot, seed=cfg.seed,
                                             estimator=cfg.estimator)))
            job_cells.append(path)
    n_cached = len(rows_meta) - len(jobs)
    if progress:
        print(f"[audit] {len(rows_meta)} audits: {n_cached} from cache, {len(jobs)} to estimate", flush=True)

    def keep(i: int, res: pd.DataFrame) -> None:
        res = res.copy()
        res.index.name = "effect"
        write_parquet(res.reset_index(), job_cells[i])
        results[str(job_cells[i])] = res

    _run_parallel(estimate_cell, jobs, n_jobs=n_jobs, scheduler=scheduler, progress=progress, on_result=keep)
    log.stage("estimate", time.perf_counter() - t)

    rows = []
    for m in rows_meta:
        entry, sc = m["entry"], m["sc"]
        res = results[str(m["path"])]
        truth = _true_effects(entry, profiles[profiles["occupation"] == m["occ"]], m["attr"], m["fmt"])
        row = {
            "attribute": m["attr"], "occupation": OCCUPATION_LABELS[m["occ"]], "format": m["fmt"],
            "model": entry.label, **_cell_row(res), **{f"{e}_true": truth.get(e, np.nan) for e in PSE_NAMES},
            "occupation_key": m["occ"], "screener": entry.name,
            "screener_id": str(sc["screener"].iloc[0]) if "screener" in sc and len(sc) else entry.name,
            "screener_model": str(sc["model"].iloc[0]) if "model" in sc and len(sc) else "",
            "screener_kind": entry.kind, "synthetic": entry.synthetic,
            "x": m["roles"]["x"], "x0": str(m["roles"]["x0"]), "x1": str(m["roles"]["x1"]),
            "n": m["n"], "n_scored": m["n_scored"], "folds": cfg.folds, "n_boot": cfg.n_boot,
            "seed": cfg.seed, "config": cfg.name,
            "estimation_warnings": str(res["warnings"].iloc[0]) if "warnings" in res.columns else "",
            **{c: float(res[c].iloc[0]) if c in res.columns else np.nan for c in OVERLAP_COLUMNS},
        }
        rows.append(row)
    table = pd.DataFrame(rows)
    sig = ci_significance(table)
    # ``cases``: §5.2's rules as stated; ``cases_paper_rule``: as the authors applied them
    # (C3/C4 also need NIE ≠ 0; popresume.causal.cases explains the difference)
    table["cases"] = cases_from_significance(sig, table).to_numpy()
    table["cases_paper_rule"] = cases_from_significance(sig, table, rule="paper").to_numpy()
    table = table[list(RESULT_COLUMNS)]
    # each screener's validity-gate verdict, read from its card on disk
    # (popresume validate / validity.card_for); "not carded (no card run)" when none was made. Nothing is scored here.
    table["validity_verdict"] = table["screener"].map(stored_verdicts(cfg.screeners)).to_numpy()
    return AuditRun(table=table, config=cfg, timings=dict(log.timings), estimates_from_cache=n_cached,
                    estimated=len(jobs), wall_s=time.perf_counter() - log.t0)


def write_results(table: pd.DataFrame, path: str | Path) -> Path:
    """Write the results table (CSV or Parquet by suffix) atomically, without the index.

    Parameters
    ----------
    table : pandas.DataFrame
        The results table.
    path : str or Path
        Where to write; the suffix (``.csv`` or ``.parquet``) chooses the format.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> table = pd.DataFrame({"attribute": ["gender"], "TE_estimate": [0.125]})
    >>> out = write_results(table, pathlib.Path(tempfile.mkdtemp()) / "results.parquet")
    >>> out.suffix, pd.read_parquet(out).equals(table)
    ('.parquet', True)
    """
    path = Path(path)
    with atomic_path(path, path.suffix) as tmp:
        if path.suffix.lower() == ".parquet":
            table.to_parquet(tmp, index=False)
        else:
            table.to_csv(tmp, index=False, float_format="%.6g")
    return path


def read_results(path: str | Path) -> pd.DataFrame:
    """Read a results table written by :func:`write_results` (or the published CSV).

    Parameters
    ----------
    path : str or Path
        A ``.csv`` or ``.parquet`` file.

    Returns
    -------
    pandas.DataFrame
        The results table.

    Examples
    --------
    >>> from popresume.audit import read_results
    >>> from popresume.paths import data_path
    >>> published = read_results(data_path("published", "popresume_published_pse.csv"))  # Tables 4-5
    >>> published.shape
    (120, 20)
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"results table not found: {path}")
    try:
        t = pd.read_parquet(path) if path.suffix.lower() == ".parquet" else pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError, ValueError) as e:
        kind = "Parquet" if path.suffix.lower() == ".parquet" else "CSV"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path} is not a {kind} results table: {first}") from None
    if "paper_cases" in t.columns and "cases" not in t.columns:
        t = t.rename(columns={"paper_cases": "cases"})
    require_columns(t, ("attribute", "occupation", "format", "model", *EFFECT_COLUMNS), f"{path} (a results table?)")
    return t


def audit_data(config, *, cache_dir: str | Path | None = None, progress: bool = False,
               score_cache=None) -> pd.DataFrame:
    """The scores behind a grid, joined to the profiles: one row per (résumé, format, screener).

    Reuses the same caches as :func:`run_audit` (after a run it does no new work).
    Columns: the profile and group columns, ``format``, ``screener`` (config name),
    ``model`` (the config label) and ``score`` (NaN rows dropped).

    Parameters
    ----------
    config : path, mapping or AuditConfig
        The grid, as :func:`run_audit` takes it.
    cache_dir : str or Path, optional
        The grid's cache folder.
    progress : bool
        Show progress bars.
    score_cache : ScoreCache, optional
        The per-résumé score cache.

    Returns
    -------
    pandas.DataFrame
        One row per scored résumé, format and screener.

    Examples
    --------
    >>> import tempfile
    >>> from popresume.audit import validate_config
    >>> grid = validate_config(dict(name="data", occupations=["nurse"], formats=["text"], attributes=["race"],
    ...                             sizes=150, seed=1, folds=3, n_boot=0, screeners=[{"name": "synth",
    ...                             "spec": {"kind": "synthetic"}, "label": "synthetic"}]))
    >>> scores = audit_data(grid, cache_dir=tempfile.mkdtemp())
    >>> len(scores), scores[["format", "screener", "model"]].drop_duplicates().to_dict("records")
    (150, [{'format': 'text', 'screener': 'synth', 'model': 'synthetic'}])
    """
    cfg = load_config(config)
    cache = Path(cache_dir) if cache_dir is not None else CACHE_DIR / "audit"
    log = _Log(False)
    profiles = load_profiles(cfg, cache_dir=cache, progress=progress)
    scores = _score_all(cfg, profiles, cache=cache, log=log, progress=progress, score_cache=score_cache)
    labels = {e.name: e.label for e in cfg.screeners}
    parts = []
    for (fmt, name), sc in scores.items():
        d = profiles.merge(sc[["resume_id", "score"]], on="resume_id", how="inner", validate="one_to_one")
        d["format"] = fmt
        d["screener"] = name
        d["model"] = labels[name]
        parts.append(d[d["score"].notna()])
    return pd.concat(parts, ignore_index=True)


def outcome_table(data: pd.DataFrame, *, select_top: float = 0.25) -> pd.DataFrame:
    """Outcome-level verdicts per audit cell (four-fifths ratio, LL144 scoring-rate ratio) on the grid's scores.

    ``data`` from :func:`audit_data`. One row per (attribute, occupation, format, model) with
    the keys of the results table, so it joins with ``run_audit``'s output
    (:func:`popresume.audit.metrics.compare_with_causal`). Selection for the four-fifths rule:
    the top ``select_top`` share of each cell's scores; LL144: above the cell's median.

    Parameters
    ----------
    data : pandas.DataFrame
        Scores with the profile columns, ``occupation``, ``format`` and ``model``.
    select_top : float
        The share selected for the four-fifths rule.

    Returns
    -------
    pandas.DataFrame
        One row per audit cell and attribute.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> d = pd.DataFrame({"occupation": "teacher", "format": "text", "model": "demo",
    ...                   "gender": rng.choice(["F", "M"], 200), "race_binary": rng.choice(["White", "Non-White"], 200)})
    >>> d["score"] = 50 + 5 * (d["gender"] == "M") + rng.normal(0, 5, 200)
    >>> t = outcome_table(d)
    >>> t[["attribute", "four_fifths_flag"]].to_dict("records")
    [{'attribute': 'gender', 'four_fifths_flag': True}, {'attribute': 'race', 'four_fifths_flag': False}]
    """
    rows = []
    for (occ, fmt, model), d in data.groupby(["occupation", "format", "model"], sort=True):
        for attr in ("gender", "race"):
            roles = default_roles(attr)
            r = adverse_impact_summary(d, attribute=attr, x=roles["x"], x0=roles["x0"], x1=roles["x1"],
                                       select_top=select_top)
            rows.append({"attribute": attr, "occupation": OCCUPATION_LABELS[occ], "format": fmt, "model": model,
                         **{k: v for k, v in r.items() if k != "attribute"}})
    return pd.DataFrame(rows)
