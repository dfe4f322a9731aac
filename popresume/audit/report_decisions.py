"""An audit of recorded decisions (``popresume audit --decisions FILE --report DIR``).

An auditor's own file of decisions (CSV or Parquet): one row per decision with an outcome —
a ``score`` or a 0/1 ``selected`` flag — and one column per attribute (``sex``, ``race``).
Other column names are mapped by options (``--outcome-col``, ``--sex-col``, ``--race-col``).
The report holds what an LL144 bias audit publishes, with what it leaves out added: rates
and impact ratios by sex, race and their intersection with CIs, the under-2% rule, the
unknown count, the four-fifths comparison, and the chance that a tool ignoring the
attributes is flagged at these group sizes, for each rule printed.

Optional columns (``--item-col``, ``--job-col``, ``--fit-col``, ``--quality-col``,
``--run-col``; by default columns named ``item``, ``job``, ``fit``, ``quality``, ``run`` when
present) add two sections. *Validity*: with an item (résumé) column and a 0/1 ``fit`` column
(1 = scored against the résumé's own posting) and/or a 0/1 ``quality`` column (1 = the
stronger version of a résumé; it needs a job column), the job-fit and quality contrasts of
:func:`popresume.decisions.analyses.validity_from_columns` with the project's gate; each
interval is printed only where :func:`popresume.coverage.decisions.design_calibration`
finds it calibrated at the file's own design, and every table carries the verdict. *Noise
floor*: with a run column and an item column, the spread between runs of the same item × job
× sex × race cell (:func:`popresume.decisions.analyses.rerun_spread`; no interval). It has no decomposition:
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

import codecs
import csv
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from popresume.audit import report
from popresume.audit.report_model import AuditReport, DecisionsRun, NoiseFloor, Omitted, RecordedValidity
from popresume.audit import report_run
from popresume.audit.report_run import check_draws
from popresume.coverage.decisions import design_calibration
from popresume.decisions import analyses
from popresume.errors import require_columns
from popresume.schema import _CONTROL

#: The largest file read (bytes), the most rows audited, and the most categories of sex or race
#: (and sex × race cells) rated: an identifier passed as --race-col would otherwise ask for one
#: interval per pair of its values.
MAX_BYTES = 500 * 2**20
MAX_ROWS = 5_000_000
MAX_CATEGORIES = 50
MAX_CELLS = 200
#: Default column names: the outcome is the first of these present.
OUTCOMES = ("score", "selected")
#: The outcome column name that must hold a 0/1 selection (anything else is refused, not read as a score).
SELECTION_COLUMN = "selected"
SUFFIXES = (".csv", ".parquet")
#: The roles whose values are category names shown in the report (and so checked for invisible characters).
LABEL_ROLES = ("sex", "race", "job", "item", "run")
_CHUNK = 16 * 2**20
NO_DECOMPOSITION = ("no population model: path-specific effects (TE, NDE, NIE, BIE, RIE) need the joint law of "
                    "the attributes, qualifications and names (PopResume §3), which a file of decisions does not "
                    "carry")
TRUE_WORDS = {"1", "true", "yes", "y", "selected"}
FALSE_WORDS = {"0", "false", "no", "n", "rejected", "not selected"}
#: The optional design roles: role -> (the option that names its column, the default name).
OPTIONAL = {"job": "--job-col", "item": "--item-col", "run": "--run-col", "fit": "--fit-col",
            "quality": "--quality-col"}
#: Values of the 0/1 design columns (fit: own posting; quality: the stronger résumé).
FLAG_WORDS = {"fit": ({"1", "1.0", "true", "yes", "own"}, {"0", "0.0", "false", "no", "mismatched"}),
              "quality": ({"1", "1.0", "true", "yes", "strong"}, {"0", "0.0", "false", "no", "weak"})}
GATE_RULE = ("the project's validity gate as far as recorded decisions allow: (1) own minus mismatched posting, "
             "95% CI above 0; (2) stronger minus weaker résumé, 95% CI above 0; (3) stability under a harmless edit "
             "untested; (4) spread of the own-posting scores (SD >= 1 point on a 0-100 scale, >= 3 distinct values; "
             "not for a 0/1 selection). Each CI is printed only where the coverage harness calibrates it at this "
             "file's design")


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
    fit: str | None = None
    quality: str | None = None
    seed: int = 0
    n_sim: int = 1000
    select_top: float = 0.25
    calibration_reps: int = 300


@dataclass(frozen=True)
class FileShape:
    """What is known of a decisions file before its rows are parsed: its kind, its header and
    its number of rows (exact for Parquet, from the metadata; for a CSV the number of line
    breaks, an upper bound when a quoted field holds one)."""

    path: Path
    kind: str
    header: tuple[str, ...]
    rows: int


def inspect_file(path: str | os.PathLike) -> FileShape:
    """Check a decisions file without loading its rows: suffix, size, encoding (CSV), header
    (no name twice) and row count (at most :data:`MAX_ROWS`). One-line ``ValueError`` naming
    the file otherwise."""
    path = Path(path)
    what = f"--decisions {path}"
    if path.suffix.lower() not in SUFFIXES:
        raise ValueError(f"{what}: expected a .csv or .parquet file")
    if not path.is_file():
        raise ValueError(f"{what}: no such file")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{what} is empty")
    if size > MAX_BYTES:
        raise ValueError(f"{what} is {size / 2**20:,.0f} MiB; the audit reads at most "
                         f"{MAX_BYTES / 2**20:,.0f} MiB (split it by job or period)")
    if path.suffix.lower() == ".parquet":
        try:  # the footer only: names and row count, no column is read
            meta = pq.ParquetFile(path)
            header, rows = tuple(meta.schema_arrow.names), int(meta.metadata.num_rows)
        except Exception as e:  # pyarrow raises several types for a file that is not Parquet
            raise ValueError(f"{what} is not a Parquet file: {str(e).splitlines()[0][:200]}") from None
        kind = "parquet"
    else:
        header, rows = _csv_shape(path, what)
        kind = "csv"
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise ValueError(f"{what}: column {twice[0]!r} appears {header.count(twice[0])} times in the header; "
                         f"which one holds the data is unknown (rename or drop the copies)")
    if rows > MAX_ROWS:
        counted = "rows" if kind == "parquet" else "lines"
        raise ValueError(f"{what} has {rows:,} {counted}; the audit takes at most {MAX_ROWS:,} rows "
                         f"(split it by job or period)")
    return FileShape(path, kind, header, rows)


def _csv_shape(path: Path, what: str) -> tuple[tuple[str, ...], int]:
    """The header of a CSV file and its number of line breaks after the header, read in chunks
    (memory stays at one chunk); the file must be UTF-8 (a BOM is allowed)."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    lines, offset, first, last = 0, 0, "", b""
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as e:
                at = offset + e.start
                raise ValueError(f"{what} is not UTF-8 text (byte 0x{chunk[e.start]:02x} at offset {at}); "
                                 f"save it as UTF-8") from None
            if len(first) < 1 << 20 and "\n" not in first:
                first += text
            lines += chunk.count(b"\n")
            offset += len(chunk)
            last = chunk[-1:]
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise ValueError(f"{what} is not UTF-8 text (it ends inside a character); save it as UTF-8") from None
    if not first.strip():
        raise ValueError(f"{what} is empty")
    head = first.lstrip("\r\n")
    row = next(csv.reader([head.split("\n", 1)[0].rstrip("\r")]), [])
    rows = lines - (first.count("\n") - head.count("\n")) - 1 + (last not in (b"\n", b""))
    return tuple(row), max(rows, 0)


def read_table(shape: FileShape, columns) -> pd.DataFrame:
    """Only ``columns`` of the checked file (CSV as text, every column ``str``; Parquet as
    stored): a file of a thousand columns costs the memory of the few the audit maps."""
    what = f"--decisions {shape.path}"
    columns = list(dict.fromkeys(columns))
    if shape.kind == "parquet":
        try:
            return pq.read_table(shape.path, columns=columns).to_pandas()
        except Exception as e:
            raise ValueError(f"{what} is not a readable Parquet file: {str(e).splitlines()[0][:200]}") from None
    try:
        # pyarrow's reader converts only these columns and still checks every row's field count
        return pd.read_csv(shape.path, dtype=str, keep_default_na=False, na_values=[""], encoding="utf-8-sig",
                           usecols=columns, engine="pyarrow")
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise ValueError(f"{what} is not a CSV table: {str(e).splitlines()[0][:200]}") from None


def _outcome(values: pd.Series, path, column: str) -> tuple[pd.Series, bool]:
    """The outcome as floats and whether it is a 0/1 selection; one line naming the row and the
    value on a bad one. A column named ``selected`` must hold a selection (1/0, true/false, ...):
    a 2, a -1 or a 0.5 there is refused, not audited as a score."""
    s = values.astype(object).where(values.notna(), None)
    text = s.map(lambda v: None if v is None else str(v).strip().lower())
    words = TRUE_WORDS | FALSE_WORDS | {"1.0", "0.0"}
    num = pd.to_numeric(s, errors="coerce")
    known = text.notna().to_numpy()
    is_word = text.isin(words).to_numpy() & known
    is_num = num.notna().to_numpy()
    is_01 = is_num & num.isin([0.0, 1.0]).to_numpy()
    if (column.strip().lower() == SELECTION_COLUMN or (is_word & ~is_num).any()
            or (known.any() and (is_word | ~known).all())):
        # a selection: the first value that is not a selection word (or a number 0/1) is the bad one
        bad = known & ~is_word & ~is_01
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"--decisions {path}: column {column!r} holds {str(s.iloc[i])[:40]!r} at row {i + 1}; "
                             f"a selection is 1/0 (or true/false, yes/no); a score belongs in a column named "
                             f"'score' (or name it with --outcome-col)")
        return pd.Series(np.where(known, (text.isin(TRUE_WORDS | {"1.0"}) | (num == 1)).to_numpy(float), np.nan),
                         index=values.index), True
    bad = known & ~is_num
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"--decisions {path}: column {column!r} has a non-numeric score {str(s.iloc[i])[:40]!r} "
                         f"at row {i + 1}")
    infinite = known & ~np.isfinite(num.fillna(0).to_numpy(float))
    if infinite.any():
        i = int(np.flatnonzero(infinite)[0])
        raise ValueError(f"--decisions {path}: column {column!r} has an infinite score {str(s.iloc[i])[:40]!r} "
                         f"at row {i + 1}")
    return num.astype(float), False


def _labels(values: pd.Series, path, column: str, option: str) -> pd.Series:
    """A category column as stripped text (None where empty); a value with an invisible or
    control character (bidi marks, zero-width characters, NUL, ESC: the check profile fields
    get, :data:`popresume.schema._CONTROL`) is refused naming the column and the row, since
    two such names can display alike with different rates."""
    v = values.astype(object)
    v = v.where(v.notna() & (v.astype(str).str.strip() != ""), None)
    v = v.map(lambda x: None if x is None else str(x).strip())
    bad = v.map(lambda x: isinstance(x, str) and _CONTROL.search(x) is not None).to_numpy(bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        ch = _CONTROL.search(v.iloc[i]).group()
        raise ValueError(f"--decisions {path}: column {column!r} ({option}) has an invisible or control character "
                         f"({ch!r}) at row {i + 1}: {v.iloc[i][:60]!r}; names that display alike would be rated "
                         f"apart, so these characters are refused")
    return v


def _flag(values: pd.Series, path, role: str, column: str) -> np.ndarray:
    """A 0/1 design column (fit, quality) as floats (NaN where empty); one line on a bad value."""
    yes, no = FLAG_WORDS[role]
    text = values.astype(object).map(lambda v: None if v is None or pd.isna(v) or str(v).strip() == ""
                                     else str(v).strip().lower())
    bad = text.notna() & ~text.isin(yes | no)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"--decisions {path}: column {column!r} ({OPTIONAL[role]}) has {str(values.iloc[i])[:40]!r} "
                         f"at row {i + 1}; expected 1/0 or true/false ({'/'.join(sorted(yes - {'1', '1.0'}))} "
                         f"for 1)")
    return text.map(lambda v: np.nan if v is None else float(v in yes)).to_numpy(float)


def resolve_columns(request: DecisionsRequest, header) -> dict:
    """Role -> the file's column (outcome, sex, race and the optional roles present), from the
    options and the default names; a column named for two roles, or one the file lacks, is a
    one-line ``ValueError`` naming the options."""
    what = f"--decisions {request.path}"
    header = list(header)
    outcome = request.outcome
    if outcome is None:
        outcome = next((c for c in OUTCOMES if c in header), None)
        if outcome is None:
            raise ValueError(f"{what} has no column 'score' or 'selected' (the outcome); its columns: "
                             f"{header[:20]}; name it with --outcome-col")
    columns = {"outcome": outcome, "sex": request.sex or "sex", "race": request.race or "race"}
    for role in OPTIONAL:
        col = getattr(request, role)
        if col is not None:
            columns[role] = col
        elif role in header and role not in columns.values():
            columns[role] = role
    flags = {"outcome": "--outcome-col", "sex": "--sex-col", "race": "--race-col", **OPTIONAL}
    seen: dict[str, str] = {}
    for role, col in columns.items():
        if col in seen:
            raise ValueError(f"{what}: column {col!r} is given for two roles ({flags[seen[col]]} and {flags[role]}); "
                             f"each role needs its own column")
        seen[col] = role
    require_columns(pd.DataFrame(columns=header), list(columns.values()), what)
    return columns


def read_decisions(request: DecisionsRequest) -> tuple[pd.DataFrame, dict, bool, int]:
    """The decisions as the report's table (``score``, ``gender``, ``race`` and the optional
    roles present: ``job``, ``item``, ``run``, ``fit``, ``quality``), the columns used (role ->
    the file's column), whether the outcome is a selection, and how many rows had no outcome
    (left out). An optional role is read from its option's column, else from a column of the
    role's name when the file has one. The file's header, size and row count are checked
    before its rows are read, and only the mapped columns are read."""

    path = Path(request.path)
    what = f"--decisions {path}"
    shape = inspect_file(path)
    columns = resolve_columns(request, shape.header)
    limit = report_run.MAX_DRAWS_TIMES_N  # read from its module, so that one setting governs both checks
    if request.n_sim * shape.rows > limit:  # before the rows are read (memory ~ draws × rows)
        raise ValueError(f"--n-sim {request.n_sim:,} on the {shape.rows:,} rows of {what} needs about "
                         f"{24 * request.n_sim * shape.rows / 2**30:.0f} GiB; use --n-sim "
                         f"{limit // max(shape.rows, 1):,} or fewer for this file")
    df = read_table(shape, columns.values())
    if df.empty:
        raise ValueError(f"{what} has a header but no rows")
    outcome = columns["outcome"]
    y, selection = _outcome(df[outcome], path, outcome)
    data = pd.DataFrame({"score": y.to_numpy(float)})
    flags = {"sex": "--sex-col", "race": "--race-col", **OPTIONAL}
    for role, target in (("sex", "gender"), ("race", "race"), ("job", "job"), ("item", "item"), ("run", "run")):
        if role in columns:
            data[target] = _labels(df[columns[role]], path, columns[role], flags[role]).to_numpy()
    for role in ("fit", "quality"):
        if role in columns:
            data[role] = _flag(df[columns[role]], path, role, columns[role])
    missing = int(data["score"].isna().sum())
    labels = {role: data[target] for role, target in (("sex", "gender"), ("race", "race"))}
    data = data[data["score"].notna()].reset_index(drop=True)
    if data.empty:
        raise ValueError(f"{what}: column {outcome!r} has no value")
    for role, target in (("sex", "gender"), ("race", "race")):
        groups = set(labels[role].dropna())
        if len(groups) > MAX_CATEGORIES:
            raise ValueError(f"{what}: column {columns[role]!r} ({flags[role]}) has {len(groups):,} distinct values; "
                             f"the audit rates at most {MAX_CATEGORIES} categories a column (is it an identifier? "
                             f"merge rare categories first)")
        present = set(data[target].dropna())
        empty = sorted(groups - present)
        if empty:
            raise ValueError(f"{what}: group {empty[0]!r} of column {columns[role]!r} has no row with an outcome")
        if len(present) < 2:
            raise ValueError(f"{what}: column {columns[role]!r} has {len(present)} group(s) "
                             f"({sorted(present)}); impact ratios compare at least two")
    cells = len(data[["gender", "race"]].dropna().drop_duplicates())
    if cells > MAX_CELLS:
        raise ValueError(f"{what}: columns {columns['sex']!r} × {columns['race']!r} make {cells:,} categories; "
                         f"the audit rates at most {MAX_CELLS} (merge rare categories first)")
    return data, columns, selection, missing


def run_decisions_report(request: DecisionsRequest) -> AuditReport:
    """The report of one file of recorded decisions (see the module docstring)."""
    data, columns, selection, missing = read_decisions(request)
    check_draws(n=len(data), n_boot=0, n_sim=request.n_sim)
    design = _design_roles(request, columns)
    ll, ff, chance = report.outcome_level(data, selection=selection, select_top=request.select_top,
                                          n_sim=request.n_sim, seed=request.seed)
    path = Path(request.path)
    unknown = {role: int(data[t].isna().sum()) for role, t in (("sex", "gender"), ("race", "race"))}
    valid, why_valid = recorded_validity(data, columns, design, selection=selection, reps=request.calibration_reps,
                                         seed=request.seed, what=f"--decisions {request.path}")
    noise, why_noise = noise_floor(data, columns)
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
    run = DecisionsRun(subject=f"recorded decisions ({path.name})", n=len(data), file=str(path), columns=columns,
                       outcome="selection" if selection else "score", missing_outcome=missing, unknown=unknown,
                       seed=request.seed, n_sim=request.n_sim)
    # the page's order; a new section is one more entry here
    sections = [valid if valid is not None else Omitted("validity", why_valid),
                Omitted("decomposition", NO_DECOMPOSITION),
                noise if noise is not None else Omitted("noise_floor", why_noise), ll, ff, chance]
    return AuditReport(run=run, sections=sections, limitations=limitations)


def _design_roles(request: DecisionsRequest, columns: dict) -> dict:
    """Which optional roles the user named by option (True) or were found by name (False)."""
    return {role: getattr(request, role) is not None for role in OPTIONAL if role in columns}


def recorded_validity(data: pd.DataFrame, columns: dict, named: dict, *, selection: bool, reps: int,
                      seed: int, what: str = "--decisions") -> tuple[RecordedValidity | None, str]:
    """The validity section of recorded decisions, or None and why it is left out.

    A contrast needs the item (résumé) column; quality also the job column. A role named by
    its option without the columns it needs is a one-line error naming the option; a column
    found by its name alone is left unused, and the reason says so."""
    fit = "fit" if "fit" in columns else None
    quality = "quality" if "quality" in columns else None
    if fit is None and quality is None:
        return None, ("the file has no fit column (own vs mismatched posting) and no quality column (résumé "
                      "quality level): name them with --fit-col / --quality-col")
    for role, needs in (("fit", ("item",)), ("quality", ("item", "job"))):
        lacking = [n for n in needs if n not in columns]
        if role in columns and lacking:
            if named.get(role):
                raise ValueError(f"{what}: {OPTIONAL[role]} {columns[role]!r} needs the {lacking[0]} column too "
                                 f"(name it with {OPTIONAL[lacking[0]]})")
            if role == "fit":
                fit = None
            else:
                quality = None
    if fit is None and quality is None:
        found = [columns[r] for r in ("fit", "quality") if r in columns]
        return None, (f"column(s) {found} need an item (résumé) column, and quality a job column too: name them "
                      f"with --item-col / --job-col")
    d = data.rename(columns={"score": "outcome"})
    valid = analyses.validity_from_columns(d, fit=fit, quality=quality, item="item", job="job",
                                           calibrate=partial(design_calibration, reps=reps, seed=seed),
                                           selection=selection)
    verdict, reason = str(valid["verdict"].iloc[0]), str(valid["verdict_reason"].iloc[0])
    shown = analyses.verdicts(valid)[("own file", "all")]
    if verdict == "not estimable":
        shown = f"{shown}: validity not measured, {reason}"
    table = valid.drop(columns=["source", "model", "verdict", "verdict_reason"])
    used = {r: columns[r] for r in ("item", "job", "fit", "quality") if r in columns}
    return RecordedValidity(verdict=verdict, reason=reason, shown=shown, contrasts=table, columns=used,
                            rule=GATE_RULE), ""


def noise_floor(data: pd.DataFrame, columns: dict) -> tuple[NoiseFloor | None, str]:
    """The run-to-run spread of the file's decisions, or None and why it is left out: rows of
    one item × job × sex × race cell (the columns the file has) with different runs are reruns."""
    if "run" not in columns:
        return None, "the file has no run column (repeated runs of the same decisions): name it with --run-col"
    if "item" not in columns:
        return None, (f"run column {columns['run']!r} without an item (résumé) column: which rows repeat the same "
                      f"decision is unknown (name it with --item-col)")
    keys = [k for k in ("item", "job", "gender", "race") if k in data.columns]
    d = data.rename(columns={"score": "outcome"})
    cell = d[keys].astype("string").fillna("").agg("|".join, axis=1)
    d = d[(d.groupby(cell)["run"].transform("nunique") > 1).to_numpy()]
    if d.empty:
        return None, f"no {' × '.join(keys)} cell appears in more than one run of column {columns['run']!r}"
    r = analyses.rerun_spread(d, keys)
    cells = tuple("sex" if k == "gender" else k for k in keys)
    row = {"kind": "rerun", **{k: r[k] for k in ("mean_abs_change", "sd", "run_sd", "n", "n_cells")},
           "runs": int(d["run"].nunique()),
           "source": f"ours, from the recorded decisions' repeated runs (column {columns['run']!r})"}
    return NoiseFloor(pd.DataFrame([row]), cells=cells), ""
