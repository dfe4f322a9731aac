"""Bloomberg's 2024 GPT résumé-ranking experiment: its recorded runs, read and checked.

Source: BloombergGraphics/2024-openai-gpt-hiring-racial-discrimination (commit 65ae911,
Apache-2.0). In late 2023 (folder ``1121``; reply timestamps from November 2023) Bloomberg
asked ``gpt-3.5-turbo`` and ``gpt-4`` through OpenAI's chat API, at temperature 1, to rank
eight equally qualified résumés for one of four jobs, 1,000 times per model × job. The eight
résumé texts of a job are fixed; each run draws one name from each of eight race × gender
groups (names derived from North Carolina voter records and the 2010 Census surname file),
shuffles the groups and the résumés, and records the reply. The generic design (parse rule,
rates, chance, position, conditional logit) lives in the rest of :mod:`popresume.ranking`;
this module only knows Bloomberg's file layout and codes.

Shipped under ``data/ranking/`` (built by ``scripts/build_ranking_data.py``):

* ``bloomberg_runs.parquet``: one row per run: ``model, job, run, reply, response_model,
  created, finish_reason`` and the shown order (``names``, ``demos``, ``shown_texts``: indices
  into ``resumes_shown.json``), ``rebalanced`` (their top-up runs that balance the group shown first);
* ``bloomberg_ranks.parquet``: one row per run × shown résumé (:data:`~popresume.ranking.parse.LONG_COLUMNS`
  plus ``race, gender, shown_text, resume``), ranks by the published rule;
* ``performance_ranking.csv``: their published table; ``resumes_to_rank.json``: the résumés
  and job descriptions; ``LICENSE`` and ``NOTICE``.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from popresume.errors import require_columns
from popresume.io import read_parquet
from popresume.paths import data_path

SOURCE_REPO = "BloombergGraphics/2024-openai-gpt-hiring-racial-discrimination"
SOURCE_COMMIT = "65ae911"
MODELS = ("gpt-3.5-turbo", "gpt-4")
JOBS = ("HR specialist", "software engineer", "retail", "financial analyst")
RACES = {"A": "Asian", "B": "Black", "H": "Hispanic", "W": "White"}
GENDERS = {"M": "man", "W": "woman"}
#: the eight groups, in the order the chapter shows them
DEMOS = tuple(f"{r}_{g}" for r in RACES for g in GENDERS)
PUBLISHED = "published (Bloomberg 2024)"
OURS = "ours, from Bloomberg's recorded replies"


def caption(label: str) -> str:
    """A source label in the book's caption form (:func:`popresume.tables.labelled`:
    "ours: ..." / "published: ..."): "published (Bloomberg 2024)" → "published: Bloomberg 2024",
    "ours, screener X" → "ours: screener X"; labels already in that form are returned as they are."""
    for word in ("published", "ours"):
        if label.startswith(word + ":"):
            return label
        for sep in (" (", ", "):
            if label.startswith(word + sep):
                rest = label[len(word) + len(sep):]
                return f"{word}: {rest[:-1] if sep == ' (' and rest.endswith(')') else rest}"
    raise ValueError(f"a source label must start with 'ours' or 'published', got {label!r}")


def check_model(model: str) -> str:
    """``model`` if it is one of :data:`MODELS`, else a ValueError listing them."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; Bloomberg's runs are for {list(MODELS)}")
    return model


def parse_run_file(obj: Any, source: str) -> dict[str, Any]:
    """One recorded run (a chat-completion JSON object with Bloomberg's ``context``) as a flat dict.

    ``source`` names the file in errors. Refuses a run without ``context``, a context
    without ``job``/``default_order``/``demo_order``, orders of different lengths, an
    unknown group code, and a reply that is not a string.
    """
    if not isinstance(obj, Mapping):
        raise ValueError(f"{source}: a run file must hold a JSON object, got {type(obj).__name__}")
    ctx = obj.get("context")
    if not isinstance(ctx, Mapping):
        raise ValueError(f"{source}: run file has no 'context' (the job and the names shown)")
    for key in ("job", "default_order", "demo_order"):
        if key not in ctx:
            raise ValueError(f"{source}: run file's context has no {key!r}")
    for key in ("default_order", "demo_order"):
        value = ctx[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{source}: context's {key!r} must be a list of strings, got {_short(value)}")
    names, demos = list(ctx["default_order"]), list(ctx["demo_order"])
    if len(names) != len(demos) or not names:
        raise ValueError(f"{source}: context has {len(names)} names but {len(demos)} group codes")
    bad = [d for d in demos if d not in DEMOS]
    if bad:
        raise ValueError(f"{source}: unknown group code {bad[0]!r}; expected one of {list(DEMOS)}")
    # the design shows each group once per run, under distinct names (the parse rule reads
    # names case-insensitively, so a repeated name would take every repeat's rank)
    lowered = [n.strip().lower() for n in names]
    for what, values in (("name", lowered), ("group code", demos)):
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise ValueError(f"{source}: {what} {repeated[0]!r} is shown {values.count(repeated[0])} times in one run; "
                             f"each run shows {len(names)} distinct names, one per group")
    try:
        choice = obj["choices"][0]
        reply = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"{source}: run file has no choices[0].message.content (the reply)") from None
    if not isinstance(reply, str):
        raise ValueError(f"{source}: the reply (choices[0].message.content) is not a string but "
                         f"{type(reply).__name__}")
    return {"job": str(ctx["job"]), "names": names, "demos": demos, "reply": reply,
            "prompt": ctx.get("inputs"), "response_model": obj.get("model"), "created": obj.get("created"),
            "finish_reason": choice.get("finish_reason"), "system": ctx.get("systems_message")}


def read_run_dir(root, models: Sequence[str] | None = None) -> pd.DataFrame:
    """Run files laid out as Bloomberg's: ``root/MODEL/JOB/.../*.json`` (``oversampled``
    folders skipped, as in their analysis), as one row per run (``model, job, run, reply,
    names, demos``). The model folder must be one of :data:`MODELS`; each file is checked by
    :func:`parse_run_file`."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"run folder {root} does not exist or is not a folder")
    wanted = None if models is None else {check_model(m) for m in models}
    rows = []
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root)
        if "oversampled" in rel.parts[:-1]:
            continue
        if len(rel.parts) < 3:
            raise ValueError(f"{path}: run files must sit under MODEL/JOB/ in {root}")
        model = check_model(rel.parts[0])
        if wanted is not None and model not in wanted:
            continue
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text (byte {e.start}: {e.reason})") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON ({e})") from None
        except RecursionError:
            raise ValueError(f"{path}: JSON nested too deeply to be a run file") from None
        rec = parse_run_file(obj, str(path))
        rows.append({"model": model, "run": path.stem, "file": str(path), **rec})
    if not rows:
        raise ValueError(f"no run files (*.json) under {root}")
    out = pd.DataFrame(rows)
    sizes = out["names"].map(len)
    for (model, job), k in sizes.groupby([out["model"], out["job"]]):
        if k.nunique() > 1:  # a conditional logit and a chance null need one design per model × job
            usual = int(k.mode().iloc[0])
            odd = out.loc[k.index[k != usual][0]]
            raise ValueError(f"{odd['file']}: run {odd['run']} shows {len(odd['names'])} names, the other runs of "
                             f"{model}/{job} show {usual}")
    return out.drop(columns="file")


def _short(value: Any) -> str:
    """A value's type and a short repr, for an error message."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '…' if len(text) > 60 else text}"


def resume_templates(resumes_json: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{job: {"jd": text, "resumes": [8 templates with '{name}']}}`` from ``resumes_to_rank.json``."""
    out = {}
    for job, v in resumes_json.items():
        if not isinstance(v, Mapping) or "resumes" not in v or "jd" not in v:
            raise ValueError(f"resumes_to_rank.json: job {job!r} needs 'resumes' and 'jd'")
        out[job] = {"jd": v["jd"], "resumes": list(v["resumes"])}
    return out


def split_prompt(prompt: str, names: Sequence[str]) -> tuple[str, list[str]]:
    """Bloomberg's prompt as its header line and the résumé shown at each position, with the
    name put back as ``{name}`` (so each is a template that ``.format(name=...)`` refills).

    The prompt is the header (ending ``:`` and a blank line) followed by, per position,
    ``template.format(name=...) + '<hr>\\n'``. Refuses a prompt of another shape."""
    start = prompt.find(":\n\n")
    if start < 0:
        raise ValueError("prompt has no header line ending in ':' followed by a blank line")
    header = prompt[:start + 3]
    parts = prompt[start + 3:].split("<hr>\n")
    if len(parts) != len(names) + 1 or parts[-1] != "":
        raise ValueError(f"prompt holds {len(parts) - 1} résumés separated by <hr>, expected {len(names)}")
    shown = []
    for p, (name, text) in enumerate(zip(names, parts), start=1):
        if text.count(name) != 1:
            raise ValueError(f"position {p}: the name {name!r} occurs {text.count(name)} times in its résumé")
        shown.append(text.replace(name, "{name}"))
    return header, shown


def match_template(shown: str, templates: Sequence[str], *, min_ratio: float = 0.97) -> tuple[int, bool]:
    """Index of the template ``shown`` came from, and whether it is identical.

    Some texts were edited after the runs (a retail résumé gained a space), so a shown
    résumé that equals no template is matched to the most similar one, refused below
    ``min_ratio`` (difflib's similarity)."""
    for i, t in enumerate(templates):
        if t == shown:
            return i, True
    ratios = [difflib.SequenceMatcher(None, shown, t, autojunk=False).ratio() for t in templates]
    i = max(range(len(templates)), key=ratios.__getitem__)
    if ratios[i] < min_ratio:
        raise ValueError(f"a shown résumé matches no template (best similarity {ratios[i]:.3f})")
    return i, False


def _read_parquet(name: str, columns) -> pd.DataFrame:
    return read_parquet(data_path("ranking", name), what=f"data/ranking/{name}", columns=columns)


def load_bloomberg_ranks(models: Sequence[str] | None = None) -> pd.DataFrame:
    """The shipped long table: one row per run × shown résumé (8,000 runs × 8), published rule."""
    df = _read_parquet("bloomberg_ranks.parquet", ["model", "job", "run", "position", "name", "demo", "rank",
                                                    "found"])
    if models is not None:
        df = df[df["model"].isin([check_model(m) for m in models])].reset_index(drop=True)
    return df


def load_bloomberg_runs() -> pd.DataFrame:
    """The shipped run table: one row per run with the reply text and the order shown."""
    return _read_parquet("bloomberg_runs.parquet", ["model", "job", "run", "reply", "names", "demos"])


def load_published() -> pd.DataFrame:
    """Bloomberg's ``performance_ranking.csv`` (64 rows: model × job × group at rank 1)."""
    df = pd.read_csv(data_path("ranking", "performance_ranking.csv"))
    require_columns(df, ["demo", "top", "top_og", "selection_rate", "disparate_impact_ratio", "job", "model"],
                    "data/ranking/performance_ranking.csv")
    return df


def load_resume_templates() -> dict[str, dict[str, Any]]:
    """The eight résumé templates and the job description of each job (``resumes_to_rank.json``)."""
    with open(data_path("ranking", "resumes_to_rank.json"), encoding="utf-8") as f:
        return resume_templates(json.load(f))


def load_resumes_shown() -> dict[str, dict[str, Any]]:
    """Per job: the prompt ``header``, the ``system`` message, the job description ``jd`` and
    the résumé texts as shown (``resumes``, with ``{name}``), indexed by the long table's ``shown_text``."""
    with open(data_path("ranking", "resumes_shown.json"), encoding="utf-8") as f:
        return json.load(f)


def label_demo(demo) -> pd.Series:
    """``"B_W"`` → ``"Black woman"`` (a Series for a Series or list)."""
    s = pd.Series(demo)
    parts = s.str.split("_", n=1, expand=True)
    return parts[0].map(RACES) + " " + parts[1].map(GENDERS)


__all__ = ["SOURCE_REPO", "SOURCE_COMMIT", "MODELS", "JOBS", "RACES", "GENDERS", "DEMOS", "PUBLISHED", "OURS", "caption",
           "check_model", "parse_run_file", "read_run_dir", "resume_templates", "split_prompt", "match_template", "load_bloomberg_ranks",
           "load_bloomberg_runs", "load_published", "load_resume_templates", "load_resumes_shown", "label_demo"]
