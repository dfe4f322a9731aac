"""An audit of recorded decisions (``popresume audit --decisions FILE --report DIR``).

An auditor's own file of decisions (CSV or Parquet): one row per decision with an outcome —
a ``score`` or a 0/1 ``selected`` flag — and one column per attribute (``sex``, ``race``).
Other column names are mapped by options (``--outcome-col``, ``--sex-col``, ``--race-col``).
The report holds what an LL144 bias audit publishes, with what it leaves out added: rates
and impact ratios by sex, race and their intersection with CIs, the under-2% rule, the
unknown count, the four-fifths comparison, and the chance that a tool ignoring the
attributes is flagged at these group sizes, for each rule printed. It has no decomposition:
path-specific effects need a population model of how the attributes reach the qualifications
and the names (docs/DESIGN.md §3), which a file of decisions does not carry; the report says
so. A file is checked before any number is computed, and every problem is one line naming
the file and the column.

Example
-------
>>> import pandas as pd, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> pd.DataFrame({"sex": ["F", "M"] * 50, "race": ["A", "B", "B", "A"] * 25,
...               "score": range(100)}).to_csv(folder / "d.csv", index=False)
>>> rep = run_decisions_report(DecisionsRequest(folder / "d.csv", n_sim=100))
>>> rep.run.n, rep.decompositions, "decomposition" in rep.omitted
(100, {}, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from popresume.audit import report
from popresume.audit.report_model import AuditReport, RunInfo
from popresume.errors import require_columns

#: The largest file read (bytes) and the most rows audited.
MAX_BYTES = 500 * 2**20
MAX_ROWS = 5_000_000
#: Default column names: the outcome is the first of these present.
OUTCOMES = ("score", "selected")
SUFFIXES = (".csv", ".parquet")
NO_DECOMPOSITION = ("no population model: path-specific effects (TE, NDE, NIE, BIE, RIE) need the joint law of "
                    "the attributes, qualifications and names (PopResume §3), which a file of decisions does not "
                    "carry")
TRUE_WORDS = {"1", "true", "yes", "y", "selected"}
FALSE_WORDS = {"0", "false", "no", "n", "rejected", "not selected"}


@dataclass(frozen=True)
class DecisionsRequest:
    """The file, which of its columns are which (None: the default name), and the draws."""

    path: str | os.PathLike
    outcome: str | None = None
    sex: str | None = None
    race: str | None = None
    job: str | None = None
    item: str | None = None
    run: str | None = None
    seed: int = 0
    n_sim: int = 1000
    select_top: float = 0.25


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """The decisions file as a table; one-line ``ValueError`` naming the file otherwise."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise ValueError(f"--decisions {path}: expected a .csv or .parquet file")
    if not path.is_file():
        raise ValueError(f"--decisions {path}: no such file")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"--decisions {path} is empty")
    if size > MAX_BYTES:
        raise ValueError(f"--decisions {path} is {size / 2**20:,.0f} MiB; the audit reads at most "
                         f"{MAX_BYTES / 2**20:,.0f} MiB (split it by job or period)")
    if path.suffix.lower() == ".parquet":
        try:
            return pd.read_parquet(path)
        except Exception as e:  # pyarrow raises several types for a file that is not Parquet
            raise ValueError(f"--decisions {path} is not a Parquet file: {str(e).splitlines()[0][:200]}") from None
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"--decisions {path} is not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); "
                         f"save it as UTF-8") from None
    if not text.strip():
        raise ValueError(f"--decisions {path} is empty")
    import io

    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise ValueError(f"--decisions {path} is not a CSV table: {str(e).splitlines()[0][:200]}") from None


def _outcome(values: pd.Series, path, column: str) -> tuple[pd.Series, bool]:
    """The outcome as floats and whether it is a 0/1 selection; one line on a bad value."""
    s = values.astype(object).where(values.notna(), None)
    text = s.map(lambda v: None if v is None else str(v).strip().lower())
    known = text.dropna()
    if len(known) and known.isin(TRUE_WORDS | FALSE_WORDS).all():
        return text.map(lambda v: np.nan if v is None else float(v in TRUE_WORDS)), True
    num = pd.to_numeric(s, errors="coerce")
    bad = s.notna() & num.isna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"--decisions {path}: column {column!r} has a non-numeric score {str(s.iloc[i])[:40]!r} "
                         f"at row {i + 1}")
    if not np.isfinite(num.dropna()).all():
        raise ValueError(f"--decisions {path}: column {column!r} has an infinite score")
    return num.astype(float), column == "selected" and set(num.dropna().unique()) <= {0.0, 1.0}


def read_decisions(request: DecisionsRequest) -> tuple[pd.DataFrame, dict, bool, int]:
    """The decisions as the report's table (``score``, ``gender``, ``race``), the columns used
    (role -> the file's column), whether the outcome is a selection, and how many rows had no
    outcome (left out)."""
    path = Path(request.path)
    df = read_table(path)
    if df.empty:
        raise ValueError(f"--decisions {path} has a header but no rows")
    if len(df) > MAX_ROWS:
        raise ValueError(f"--decisions {path} has {len(df):,} rows; the audit takes at most {MAX_ROWS:,}")
    what = f"--decisions {path}"
    outcome = request.outcome
    if outcome is None:
        outcome = next((c for c in OUTCOMES if c in df.columns), None)
        if outcome is None:
            raise ValueError(f"{what} has no column 'score' or 'selected' (the outcome); its columns: "
                             f"{list(df.columns)}; name it with --outcome-col")
    columns = {"outcome": outcome, "sex": request.sex or "sex", "race": request.race or "race"}
    for role, col in (("job", request.job), ("item", request.item), ("run", request.run)):
        if col is not None:
            columns[role] = col
    require_columns(df, list(columns.values()), what)
    y, selection = _outcome(df[outcome], path, outcome)
    data = pd.DataFrame({"score": y.to_numpy(float)})
    for role, target in (("sex", "gender"), ("race", "race")):
        v = df[columns[role]].astype(object)
        v = v.where(v.notna() & (v.astype(str).str.strip() != ""), None)
        data[target] = v.map(lambda x: None if x is None else str(x).strip()).to_numpy()
    missing = int(data["score"].isna().sum())
    data = data[data["score"].notna()].reset_index(drop=True)
    if data.empty:
        raise ValueError(f"{what}: column {outcome!r} has no value")
    for role, target in (("sex", "gender"), ("race", "race")):
        groups = df[columns[role]].dropna().astype(str).str.strip()
        groups = set(groups[groups != ""])
        present = set(data[target].dropna())
        empty = sorted(groups - present)
        if empty:
            raise ValueError(f"{what}: group {empty[0]!r} of column {columns[role]!r} has no row with an outcome")
        if len(present) < 2:
            raise ValueError(f"{what}: column {columns[role]!r} has {len(present)} group(s) "
                             f"({sorted(present)}); impact ratios compare at least two")
    return data, columns, selection, missing


def run_decisions_report(request: DecisionsRequest) -> AuditReport:
    """The report of one file of recorded decisions (see the module docstring)."""
    from popresume.audit.report_run import check_draws

    data, columns, selection, missing = read_decisions(request)
    check_draws(n=len(data), n_boot=0, n_sim=request.n_sim)
    ll, ff, chance = report.outcome_level(data, selection=selection, select_top=request.select_top,
                                          n_sim=request.n_sim, seed=request.seed)
    path = Path(request.path)
    unknown = {role: int(data[t].isna().sum()) for role, t in (("sex", "gender"), ("race", "race"))}
    omitted = {"decomposition": NO_DECOMPOSITION}
    optional = [r for r in ("job", "item", "run") if r in columns]
    omitted["validity"] = ("this version reads no job, item or fit column into a validity check"
                           if optional else "the file has no job, item or fit column to check validity with")
    kind = "a selection (0/1)" if selection else "a score"
    limitations = [
        f"The outcome is {kind}, read from column {columns['outcome']!r} of {path.name}. "
        + (f"{missing:,} rows had no outcome and are left out. " if missing else "")
        + f"Unknown categories: sex {unknown['sex']:,}, race {unknown['race']:,} rows (counted, not rated).",
        "Impact ratios say whether rates differ, not why: without a population model the report cannot tell a "
        "direct effect of sex or race from a path through qualifications or names.",
        "The impact-ratio intervals hold for every category at once (popresume.ll144), whichever category is "
        "truly the most selected; near parity they are conservative.",
        "Every number holds for the decisions in this file only.",
    ]
    sources = {"ll144": ("NYC LL144 (6 RCNY §5-301(b)): " + ("selection rate" if selection else
                                                            "scoring rate above the sample median")
                         + f"; ours, from {path.name}'s recorded decisions"),
               "chance": f"ours: a tool that ignores sex and race at {path.name}'s group sizes (hypergeometric null)"}
    for key, sec in (("ll144", ll), ("chance", chance)):
        sec.table["source"] = sources[key]
    return AuditReport(
        run=RunInfo(subject=f"recorded decisions ({path.name})", n=len(data),
                    extra={"file": str(path), "columns": columns, "outcome": "selection" if selection else "score",
                           "n": len(data), "missing_outcome": missing, "unknown": unknown, "seed": request.seed,
                           "n_sim": request.n_sim}),
        ll144=ll, four_fifths=ff, chance=chance, limitations=limitations, omitted=omitted)
