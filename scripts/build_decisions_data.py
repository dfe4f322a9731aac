"""Build ``data/decisions/`` from four public repositories (git objects, no work tree needed).

    python scripts/build_decisions_data.py \\
        --recinq PATH/re-cinq/hiring-bias.git --derbyshire PATH/jderbysh/AIHiringBias.git \\
        --webster PATH/kevinwebster/Illusion_of_Neutrality.git \\
        --aclu PATH/aclu-national/auditing-the-audits-facct-2025.git

Each argument is a git directory (a bare mirror or a ``.git`` folder); a source left out is not
rebuilt (``--aclu`` alone rebuilds the two LL144 files). Every file is read at
the commit named in :data:`COMMITS` with ``git cat-file --batch`` (``COMMIT:path``, the same
object ``git show COMMIT:path`` prints), so the tables are reproducible from the commits alone.
Writes, under ``data/decisions/``:

* ``recinq.parquet``: one row per raw reply in ``results/*.json`` (re-cinq/hiring-bias);
  the justification is kept, cut to :data:`REPLY_CHARS` characters (the strengths, concerns,
  key factors and token usage are dropped); ``recinq_models.csv``: slot → provider model id
  as written in ``src/providers/index.js``;
* ``derbyshire.parquet``: the three result CSVs of jderbysh/AIHiringBias, one row per line,
  with the model read from ``simulation.py`` at the commit that produced each file;
* ``webster.parquet``: Experiment 1 (names), Experiment 2 (matched / mismatched résumé and
  posting) and the plain vs keyword-stuffed waiter résumé of kevinwebster/Illusion_of_Neutrality;
* ``aclu_ll144.parquet``: the published columns of ``audits/audits_full.csv`` (the ACLU's own
  recomputed and flag columns are dropped: this project recomputes them);
* ``ll144_published.csv``: that table recomputed (``popresume.decisions.analyses.ll144_published``
  with :data:`~popresume.decisions.analyses.LL144_DRAWS` draws per analysis, seed 0): one row per
  audit × rate definition × characteristic × category with its status and p-values;
* the licence and notice files: ``LICENSE-recinq-data.txt`` (CC BY 4.0 notice, the source's
  DATA-LICENSE), ``LICENSE-recinq-code.txt``, ``LICENSE-derbyshire.txt``,
  ``LICENSE-webster.txt`` (MIT texts) and ``NOTICE-aclu.txt`` (CC BY-NC 4.0: attribution,
  changes made and the non-commercial term).

The ACLU table is licensed for non-commercial use only. It lives in ``data/``, which the wheel
and the sdist do not include (``pyproject.toml`` packages ``popresume*`` only; there is no
MANIFEST.in).
"""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pandas as pd

from git_snapshot import git, ls, read_blobs, show  # scripts/git_snapshot.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "decisions"

COMMITS = {
    "recinq": "7559ef31da5c0ccfd56d373d488681ee88952e4c",
    "derbyshire": "d4c34999f83f6aa0c45d55b216bd880bf3556698",
    "webster": "68514f69874bbd4070d7225ff1533f84239d0e71",
    "aclu": "cef7c27398dc73852f06f20120500d361abbd37e",
}
#: The commit of jderbysh/AIHiringBias whose ``simulation.py`` names the GPT-5.1 model that
#: wrote the two ``5.1_*`` files (added in that commit); at d4c3499 the script names GPT-3.5.
DERBYSHIRE_SIM_51 = "a32063b58926bccd85aac1e98237611aaeb6613c"
#: Characters of each reply kept (re-cinq's justification); longer replies end with "…".
REPLY_CHARS = 400
RECINQ_NAME = re.compile(r"^results/(?P<variant>[^/]+?)__(?P<model>[^/]+?)__(?P<jd>[^/]+?)__run(?P<run>\d+)\.json$")
ACLU_KEEP = ["audit_id", "audit_report_id", "deploying_entity", "auditor", "tool_id", "tool_vendor", "type_of_tool",
             "selection_or_scoring_rate", "number_of_applications", "n_selected_or_n_above_median", "result",
             "impact_ratio", "protected_char_group", "race_ethnicity", "sex", "position", "year_of_audit_result",
             "data_type", "link_to_result"]


def cut(text: str | None, n: int = REPLY_CHARS) -> str | None:
    if text is None:
        return None
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def build_recinq(gitdir: Path) -> pd.DataFrame:
    commit = COMMITS["recinq"]
    paths = [p for p in ls(gitdir, commit, "results/") if RECINQ_NAME.match(p)]
    blobs = read_blobs(gitdir, commit, paths)
    rows = []
    for p in paths:
        m = RECINQ_NAME.match(p)
        rec = json.loads(blobs[p])
        resp = rec.get("response") or {}
        if not isinstance(resp, dict):
            resp = {}
        for key, val in (("variant", m["variant"]), ("model", m["model"]), ("jd", m["jd"]), ("run", int(m["run"]))):
            if rec.get(key) != val:
                raise ValueError(f"{p}: field {key!r} is {rec.get(key)!r}, the file name says {val!r}")
        score = resp.get("score")
        rows.append({"variant": m["variant"], "model": m["model"], "vendor": rec.get("vendor"), "tier": rec.get("tier"),
                     "jd": m["jd"], "run": int(m["run"]), "timestamp": rec.get("timestamp"),
                     "score": float(score) if isinstance(score, (int, float)) else float("nan"),
                     "recommend_interview": resp.get("recommend_interview"),
                     "justification": cut(resp.get("justification")), "error": cut(rec.get("error"), 200)})
    out = pd.DataFrame(rows).sort_values(["model", "variant", "jd", "run"], kind="mergesort").reset_index(drop=True)
    return out


def recinq_models(gitdir: Path) -> pd.DataFrame:
    text = show(gitdir, COMMITS["recinq"], "src/providers/index.js").decode()
    pairs = re.findall(r"slot:\s*'([^']+)'.*?model:\s*'([^']+)'", text, re.S)
    return pd.DataFrame(pairs, columns=["slot", "provider_model"])


def build_derbyshire(gitdir: Path) -> pd.DataFrame:
    commit = COMMITS["derbyshire"]
    sim_35 = show(gitdir, commit, "simulation.py").decode()
    sim_51 = show(gitdir, DERBYSHIRE_SIM_51, "simulation.py").decode()
    model_35 = re.search(r'^\s*model\s*=\s*"([^"]+)"', sim_35, re.M).group(1)
    model_51 = re.search(r'^\s*model\s*=\s*"([^"]+)"', sim_51, re.M).group(1)
    date = {}
    for path in ("results/3.5_turbo_evaluation_results.csv", "results/5.1_evaluation_results1.csv",
                 "results/5.1_evaluation_results2.csv"):
        first = git(gitdir, "log", "--diff-filter=A", "--format=%ad", "--date=short", commit, "--", path).decode().split()
        date[path] = first[-1]
    frames = []
    for path, model, reps in (("results/3.5_turbo_evaluation_results.csv", model_35, 1),
                              ("results/5.1_evaluation_results1.csv", model_51, 1),
                              ("results/5.1_evaluation_results2.csv", model_51, 3)):
        d = pd.read_csv(io.BytesIO(show(gitdir, commit, path)))
        d = d.rename(columns={"job industry": "industry"})
        d = d[["name", "gender", "race", "industry", "job_file", "resume_file", "Experience", "Skills",
               "Achievements", "Resume"]].copy()
        d.insert(0, "file", path.split("/")[-1])
        d.insert(1, "model", model)
        d.insert(2, "added", date[path])
        d.insert(3, "row", range(len(d)))
        frames.append(d)
    return pd.concat(frames, ignore_index=True)


def build_webster(gitdir: Path) -> pd.DataFrame:
    commit = COMMITS["webster"]

    def csv(name: str) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(show(gitdir, commit, f"Data/{name}")), encoding="utf-8-sig")

    e1 = csv("All Exp 1 Data.csv")
    e1 = pd.DataFrame({"experiment": "exp1_names", "file": "All Exp 1 Data.csv",
                       "model": e1["Model"].str.replace(r"\s+", " ", regex=True).str.strip(),
                       "job": e1["Resume"], "resume": e1["Resume"], "initials": e1["Initials"],
                       "race": e1["Race"], "gender": e1["Gender"], "run": e1["Run"].astype(str), "score": e1["Score"]})
    e2 = csv("Exp 2b Data.csv")
    e2 = pd.DataFrame({"experiment": "exp2_" + e2["Experiment"].astype(str), "file": "Exp 2b Data.csv",
                       "model": e2["AI Model"], "job": e2["Job_Type"], "resume": e2["Resume_Type"],
                       "initials": None, "race": None, "gender": None, "run": e2["Run"].astype(str),
                       "score": e2["Rating"], "matched": e2["Matched"].astype(str).str.upper().eq("TRUE")})
    kw = csv("Waiter & Keyword Stuffed.csv")
    kw = pd.DataFrame({"experiment": "keyword", "file": "Waiter & Keyword Stuffed.csv", "model": kw["AI Model"],
                       "job": kw["Job_Type"], "resume": kw["Resume_type"], "initials": None, "race": None,
                       "gender": None, "run": kw["Run"].astype(str), "score": kw["Rating"]})
    out = pd.concat([e1, e2, kw], ignore_index=True)
    out["score"] = out["score"].astype(float)
    return out


def build_aclu(gitdir: Path) -> pd.DataFrame:
    d = pd.read_csv(io.BytesIO(show(gitdir, COMMITS["aclu"], "audits/audits_full.csv")), low_memory=False)
    return d[ACLU_KEEP].copy()


def build_ll144_published(aclu: pd.DataFrame) -> pd.DataFrame:
    """The published table recomputed (``popresume.decisions.analyses.ll144_published``, its
    default draws and seed 0), as ``popresume decisions`` writes it."""
    import sys

    sys.path.insert(0, str(ROOT))
    from popresume.decisions import analyses
    from popresume.decisions.schema import LL144_COLUMNS

    return analyses.ll144_file(analyses.ll144_published(aclu[list(LL144_COLUMNS)], seed=0))


ACLU_NOTICE = """\
aclu_ll144.parquet: adapted from "audits_full.csv" in aclu-national/auditing-the-audits-facct-2025
(commit cef7c27398dc73852f06f20120500d361abbd37e), the dataset of

  Auditing the Audits: Lessons for Algorithmic Accountability from Local Law 144's Bias Audits,
  FAccT 2025, https://doi.org/10.1145/3715275.3732004 (ACLU).

Licence: Creative Commons Attribution-NonCommercial 4.0 International (CC BY-NC 4.0),
https://creativecommons.org/licenses/by-nc/4.0/ . NON-COMMERCIAL USE ONLY.

Changes made: 19 of the 46 columns kept (the published counts, rates, impact ratios and the
audit metadata); the columns the ACLU derived (recomputed rates and ratios, flags, bounds)
dropped; rows unchanged. Produced by scripts/build_decisions_data.py.

ll144_published.csv: the same rows recomputed by popresume (statuses, recomputed ratios,
chance under no disparity, p-values), with the audit ids, categories, counts, printed rates and
ratios, auditors and vendors of the table above: adapted material under the same licence.

aclu_ll144.parquet and ll144_published.csv are not part of the popresume wheel or sdist (this
notice is, in their licence metadata), and they are not covered by the MIT licence of the
popresume code.
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recinq", type=Path)
    ap.add_argument("--derbyshire", type=Path)
    ap.add_argument("--webster", type=Path)
    ap.add_argument("--aclu", type=Path)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    opts = {"index": False, "compression": "zstd", "compression_level": 19}
    built = []

    if args.recinq:
        rec = build_recinq(args.recinq)
        rec.to_parquet(args.out / "recinq.parquet", **opts)
        recinq_models(args.recinq).to_csv(args.out / "recinq_models.csv", index=False)
        (args.out / "LICENSE-recinq-data.txt").write_bytes(show(args.recinq, COMMITS["recinq"], "DATA-LICENSE"))
        (args.out / "LICENSE-recinq-code.txt").write_bytes(show(args.recinq, COMMITS["recinq"], "LICENSE"))
        built.append(("recinq", rec))

    if args.derbyshire:
        der = build_derbyshire(args.derbyshire)
        der.to_parquet(args.out / "derbyshire.parquet", **opts)
        (args.out / "LICENSE-derbyshire.txt").write_bytes(show(args.derbyshire, COMMITS["derbyshire"], "LICENSE"))
        built.append(("derbyshire", der))

    if args.webster:
        web = build_webster(args.webster)
        web.to_parquet(args.out / "webster.parquet", **opts)
        (args.out / "LICENSE-webster.txt").write_bytes(show(args.webster, COMMITS["webster"], "LICENSE"))
        built.append(("webster", web))

    if args.aclu:
        aclu = build_aclu(args.aclu)
        aclu.to_parquet(args.out / "aclu_ll144.parquet", **opts)
        (args.out / "NOTICE-aclu.txt").write_text(ACLU_NOTICE, encoding="utf-8")
        built.append(("aclu_ll144", aclu))
        table = build_ll144_published(aclu)
        table.to_csv(args.out / "ll144_published.csv", index=False)
        print(f"ll144_published.csv: {len(table)} rows")

    for name, d in built:
        print(f"{name}: {len(d)} rows, {(args.out / f'{name}.parquet').stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
