"""ONNX Runtime for the embedding screener's transformer: a local export of the shipped
weights, kept in the user's cache, and an int8 copy made from it.

* **Export, once, here.** The first use exports the sentence-transformers model's transformer
  (token ids → last hidden state) with ``torch.onnx.export`` from the model folder on disk,
  into ``$XDG_CACHE_HOME/popresume/onnx/<key>/`` (``~/.cache`` by default;
  ``POPRESUME_ONNX_CACHE`` overrides the folder). The key hashes the weights file and the
  torch, onnx, onnxruntime and opset versions, so new weights or a new exporter make a new
  export.
  Nothing is downloaded. Writing is atomic (a temporary file renamed into place), so two
  processes exporting at once both end with a whole file.
* **Fused fp32.** onnxruntime's BERT optimiser fuses attention, the embedding and skip layer
  norms and bias + GELU into single operators: the same fp32 sums in fewer passes (largest
  |Δ cosine| against the unfused graph about 1e-7).
* **int8.** ``onnxruntime.quantization.quantize_dynamic`` of the fused graph (:func:`_quantize`):
  int8 weights, one scale per output channel, of the attention output and feed-forward
  MatMuls of every layer but the last; attention and the last layer stay fp32. Activations are
  quantised on the fly with one scale per call, so an int8 result depends on every row of a
  batch: the screener runs int8 one chunk at a time (see :mod:`popresume.screeners.embedding`).
  It is there to be measured, not used: it moves scores by about 5 points (fp32 stays the default).
* **Tokenizer.** :class:`FastTokenizer` reads the model's ``tokenizer.json`` with the
  ``tokenizers`` library (the same ids and offsets as transformers' fast tokenizer), so the
  ONNX path imports neither torch nor transformers once the export exists.
* **Pooling** is done by the screener (mean over the real tokens, L2 norm), so only a
  model whose sentence-transformers pooling is the token mean can run here; others are
  refused by name.

Needs ``onnxruntime`` (``popresume[onnx]``) to run, and torch + ``onnx`` to export.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

from popresume.extras import require
from popresume.screeners.base import quiet_hf

#: ONNX opset of the export
OPSET = 17
#: the int8 file's name (its recipe: :func:`_quantize`)
INT8_FILE = "model.int8-ffn-pc.onnx"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def onnx_cache_dir() -> Path:
    """Where exports live: ``POPRESUME_ONNX_CACHE``, else ``$XDG_CACHE_HOME/popresume/onnx``."""
    if os.environ.get("POPRESUME_ONNX_CACHE"):
        return Path(os.environ["POPRESUME_ONNX_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "popresume" / "onnx"


def check_mean_pooling(model_path: Path) -> None:
    """Refuse a sentence-transformers folder whose pooling is not the plain token mean."""
    modules = model_path / "modules.json"
    if not modules.exists():
        return  # a bare transformers folder: sentence-transformers adds mean pooling
    for m in json.loads(modules.read_text()):
        if m.get("type", "").endswith("Pooling"):
            cfg = json.loads((model_path / m.get("path", "") / "config.json").read_text())
            modes = sorted(k for k, v in cfg.items() if k.startswith("pooling_mode") and v)
            if modes != ["pooling_mode_mean_tokens"]:
                raise ValueError(f"runtime='onnx' pools by the token mean, but {model_path} pools by {modes}; "
                                 f"use runtime='torch'")


def _weights_hash(model_path: Path) -> str:
    h = hashlib.sha256()
    for name in ("model.safetensors", "pytorch_model.bin", "config.json"):
        p = model_path / name
        if p.exists():
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()[:16]


def _atomic(dst: Path, write) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, suffix=".part")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the cache may be shared
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dst


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def export_key(model_path: Path) -> str:
    """The cache folder's name: the weights and the exporter's versions, read from the installed
    packages' metadata (so loading an existing export imports neither torch nor onnx)."""
    return hashlib.sha256(f"{_weights_hash(model_path)}|torch {_version('torch')}|onnx {_version('onnx')}|"
                          f"onnxruntime {_version('onnxruntime')}|opset {OPSET}|eager attention".encode()
                          ).hexdigest()[:16]


def export_path(model_path: Path, precision: str) -> Path:
    """The ONNX file of ``model_path`` at ``precision`` ("fp32" or "int8"), exported (and
    quantised) here on first use."""
    if precision not in ("fp32", "int8"):
        raise ValueError(f"runtime='onnx' has no precision {precision!r}: use 'fp32' or 'int8'")
    folder = onnx_cache_dir() / export_key(model_path)
    traced, fused = folder / "traced.onnx", folder / "model.fused.onnx"
    out = fused if precision == "fp32" else folder / INT8_FILE
    if out.exists():
        return out
    require("torch", "exporting the embedding model to ONNX")
    require("onnx", "exporting the embedding model to ONNX")
    require("onnxruntime", "the embedding screener's ONNX runtime")
    if not traced.exists():
        _atomic(traced, lambda tmp: _export(model_path, tmp))
    if not fused.exists():
        _atomic(fused, lambda tmp: _fuse(model_path, traced, tmp))
    if precision == "int8":
        _atomic(out, lambda tmp: _quantize(fused, tmp))
    return out


def _fuse(model_path: Path, traced: Path, out: str) -> None:
    """onnxruntime's BERT graph optimiser: attention, embedding + layer norm, skip + layer
    norm and bias + GELU each become one fused operator (the same sums, fewer passes)."""
    cfg = json.loads((model_path / "config.json").read_text())
    with quiet_hf():  # the optimiser's imports may reach transformers (tqdm.auto without ipywidgets)
        from onnxruntime.transformers.optimizer import optimize_model

        m = optimize_model(str(traced), model_type="bert", num_heads=int(cfg["num_attention_heads"]),
                           hidden_size=int(cfg["hidden_size"]), opt_level=1)
    m.save_model_to_file(out)


def _quantize(fused: Path, out: str) -> None:
    """int8 weights (one scale per output channel) of the fused graph's plain MatMuls: the
    attention output projection and the two feed-forward layers of every layer but the last.
    The fused attention (Q·Kᵀ, softmax, ·V) and the last layer stay fp32; activations are
    quantised on the fly, one scale per call."""
    import onnx  # the onnx extra
    from onnxruntime.quantization import QuantType, quantize_dynamic  # the onnx extra

    names = [n.name for n in onnx.load(str(fused), load_external_data=False).graph.node if n.op_type == "MatMul"]
    last = names[-3:]  # the last layer's three MatMuls (attention output, FFN in, FFN out)
    quantize_dynamic(str(fused), out, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                     per_channel=True, nodes_to_exclude=last,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def _export(model_path: Path, out: str) -> None:
    import torch

    with quiet_hf():  # the import warns too (tqdm.auto without ipywidgets)
        from transformers import AutoModel

        # eager attention: its traced graph is the pattern onnxruntime's optimiser fuses
        model = AutoModel.from_pretrained(str(model_path), local_files_only=True, attn_implementation="eager").eval()

    class Hidden(torch.nn.Module):  # keyword call: transformers' forward() takes no positional mask
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones((2, 16), dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 8:] = 0  # a padded row, so the traced graph keeps the mask's path
    axes = {k: {0: "batch", 1: "tokens"} for k in (*INPUTS, "last_hidden_state")}
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Hidden(model), (ids, mask, torch.zeros_like(ids)), out, input_names=list(INPUTS),
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET, dynamo=False)


class FastTokenizer:
    """The model's ``tokenizer.json`` read by the ``tokenizers`` library directly (the same
    Rust tokenizer transformers' fast tokenizer wraps, without importing transformers), with
    truncation and padding off. Called like a transformers tokenizer for what the screener
    uses: ``tok(text or texts, add_special_tokens=True, return_offsets_mapping=False)``."""

    def __init__(self, model_path: Path):
        from tokenizers import Tokenizer  # the onnx extra

        f = model_path / "tokenizer.json"
        if not f.exists():
            raise FileNotFoundError(f"runtime='onnx' reads {f}, which is missing; use runtime='torch'")
        self._tok = Tokenizer.from_file(str(f))
        self._tok.no_truncation()
        self._tok.no_padding()
        cfg = model_path / "tokenizer_config.json"
        conf = json.loads(cfg.read_text()) if cfg.exists() else {}
        pad = conf.get("pad_token", "[PAD]")
        pad = pad.get("content") if isinstance(pad, dict) else pad
        self.pad_token_id = self._tok.token_to_id(pad) if pad else None
        self.model_max_length = int(conf.get("model_max_length", 512))

    def __call__(self, text, add_special_tokens: bool = True, return_offsets_mapping: bool = False) -> dict:
        one = isinstance(text, str)
        encs = self._tok.encode_batch([text] if one else list(text), add_special_tokens=add_special_tokens)
        out = {"input_ids": [e.ids for e in encs]}
        if return_offsets_mapping:
            out["offset_mapping"] = [e.offsets for e in encs]
        return {k: v[0] for k, v in out.items()} if one else out


class OnnxEncoder:
    """An ONNX Runtime session over the exported transformer: :meth:`hidden` gives the last
    hidden state of padded token ids."""

    def __init__(self, model_path: Path, precision: str, num_threads: int | None):
        ort = require("onnxruntime", "the embedding screener's ONNX runtime")
        check_mean_pooling(model_path)
        self.path = export_path(model_path, precision)
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if num_threads:
            so.intra_op_num_threads = int(num_threads)
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # threads sleep between operators instead of spinning: on a machine shared with other
        # work, spinning threads take the cores the other threads wait for
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.log_severity_level = 3
        self.session = ort.InferenceSession(str(self.path), so, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def hidden(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
