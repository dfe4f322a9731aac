"""Build ``data/ranking/`` from Bloomberg's public repository (git objects, no work tree needed).

    python scripts/build_ranking_data.py --repo PATH/TO/2024-openai-gpt-hiring-racial-discrimination[.git]

Reads, at commit 65ae911 (``--commit``), the 8,000 runs that Bloomberg's analysis used
(``data/intermediary/resume_ranking/{model}/{job}/1121/*.json``; the ``oversampled/``
subfolders are not part of that set, as in their notebook's glob), checks each file
(:func:`popresume.ranking.bloomberg.parse_run_file`), finds which of the job's eight résumé
templates sat at each position, ranks the names by the published parse rule, and writes:

* ``bloomberg_runs.parquet`` (one row per run, with the reply text) and
  ``bloomberg_ranks.parquet`` (one row per run × shown résumé);
* ``performance_ranking.csv``, ``resumes_to_rank.json`` and ``LICENSE`` copied unchanged.

The prompts are not shipped: each is the header line plus the eight templates filled with
the names in the order shown, and the build checks that this holds for every run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from popresume.ranking import bloomberg as bb  # noqa: E402
from popresume.ranking.parse import rank_runs  # noqa: E402
from git_snapshot import ls, read_blobs  # noqa: E402  (scripts/git_snapshot.py, beside this script)

RUN_PATH = re.compile(r"^data/intermediary/resume_ranking/(?P<model>[^/]+)/(?P<job>[^/]+)/1121/(?P<run>[^/]+)\.json$")
COPIED = {"data/output/performance_ranking.csv": "performance_ranking.csv",
          "data/intermediary/resumes_to_rank.json": "resumes_to_rank.json", "LICENSE": "LICENSE"}


def build(repo: Path, commit: str, out_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    files = ls(repo, commit, "data/intermediary/resume_ranking")
    runs_paths = [p for p in files if RUN_PATH.match(p)]
    blobs = read_blobs(repo, commit, runs_paths + list(COPIED))
    templates = bb.resume_templates(json.loads(blobs["data/intermediary/resumes_to_rank.json"]))
    rows, shown_texts, prompts = [], {}, {}
    for p in runs_paths:
        m = RUN_PATH.match(p)
        rec = bb.parse_run_file(json.loads(blobs[p]), p)
        job = rec["job"]
        if job != m["job"]:
            raise ValueError(f"{p}: context job {job!r} differs from its folder {m['job']!r}")
        try:
            header, shown = bb.split_prompt(rec.pop("prompt"), rec["names"])
        except ValueError as e:
            raise ValueError(f"{p}: {e}") from None
        system = rec.pop("system")
        if prompts.setdefault(job, (header, system)) != (header, system):
            raise ValueError(f"{p}: header or system message differs from the job's other runs")
        texts = shown_texts.setdefault(job, {})
        rec["shown_texts"] = [texts.setdefault(t, len(texts)) for t in shown]
        rows.append({"model": bb.check_model(m["model"]), "run": m["run"], **rec})
    # the distinct résumé texts each job showed, matched to the published templates
    shown_json = {}
    for job, texts in shown_texts.items():
        matches = [bb.match_template(t, templates[job]["resumes"]) for t in texts]
        header, system = prompts[job]
        if templates[job]["jd"] not in system:
            raise ValueError(f"job {job!r}: the system message does not contain the job description")
        shown_json[job] = {"header": header, "system": system, "jd": templates[job]["jd"], "resumes": list(texts),
                           "template": [i for i, _ in matches], "identical_to_template": [e for _, e in matches]}
    runs = pd.DataFrame(rows)
    runs["run_order"] = runs["run"].str.extract(r"(\d+)$")[0].astype(int)
    runs["rebalanced"] = runs["run"].str.startswith("rebalance")
    runs = runs.sort_values(["model", "job", "rebalanced", "run_order", "run"]).reset_index(drop=True)
    runs = runs.drop(columns=["run_order"])
    long = rank_runs(runs)
    shown_of = runs.set_index(["model", "job", "run"])["shown_texts"]
    long["shown_text"] = [shown_of[(m, j, r)][p - 1] for m, j, r, p in
                          zip(long["model"], long["job"], long["run"], long["position"])]
    long["resume"] = [shown_json[j]["template"][t] for j, t in zip(long["job"], long["shown_text"])]
    out_dir.mkdir(parents=True, exist_ok=True)
    runs.to_parquet(out_dir / "bloomberg_runs.parquet", index=False, compression="zstd")
    long.to_parquet(out_dir / "bloomberg_ranks.parquet", index=False, compression="zstd")
    (out_dir / "resumes_shown.json").write_text(json.dumps(shown_json, indent=1, ensure_ascii=False) + "\n",
                                                encoding="utf-8")
    for src, dst in COPIED.items():
        (out_dir / dst).write_bytes(blobs[src])
    return runs, long


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True, help="a clone or bare git directory of Bloomberg's repository")
    ap.add_argument("--commit", default=bb.SOURCE_COMMIT)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "ranking")
    a = ap.parse_args(argv)
    runs, long = build(a.repo, a.commit, a.out)
    counts = runs.groupby(["model", "job"]).size()
    print(counts.to_string())
    print(f"{len(runs)} runs, {len(long)} rows, {int((~long['found']).sum())} names not found in their reply")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
