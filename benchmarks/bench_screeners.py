"""Benchmarks of the screeners (figures for the issue note; not a test).

1. Embedding screener, résumés/s on ``--threads`` CPU threads (default 2): the plain
   sentence-transformers reference (fp32, truncated at the model's 256-token window, as in the
   25/s reference run), our fp32 path (chunked: nothing truncated), and the fast path
   (bfloat16 on CPUs with native bf16 units; float32 elsewhere), with the largest absolute
   score difference between fp32 and the fast path.
2. HTTP backend, requests/s against a loopback OpenAI-compatible server (a separate process)
   that answers at once, at a few concurrency levels: 1/rate at concurrency 1 is our client's
   whole cost per request (prompt, JSON, HTTP on loopback, parsing, bookkeeping).
3. The live server: llama.cpp's ``llama-server`` with SmolLM2-135M
   (``scripts/install-llm-server.sh``), real rendered résumés for one occupation, greedy
   replies. Reported: server start time; prompt tokens per résumé; the server's
   prompt-processing rate (its own ``timings``); the time per request outside the server's
   prompt + generation timings (an upper bound on our client's overhead); and the prefix-cache gain: the same résumés
   with ``cache_prompt`` off (every prompt processed in full) and on (the shared instructions +
   job description are reused from the previous request, only the résumé is processed).

Run: ``.venv/bin/python benchmarks/bench_screeners.py [--n 200] [--threads 2] [--http-n 2000]
[--live-n 8]``.
On a shared machine, run it when nothing else is busy: figures are wall-clock.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import socket
import time

import numpy as np
import pandas as pd


def resumes(n: int, seed: int = 0) -> pd.DataFrame:
    from popresume.population import generate_population
    from popresume.resumes import render_texts
    from popresume.schema import OCCUPATION_KEYS

    per = max(1, n // len(OCCUPATION_KEYS))
    p = generate_population(None, {k: per for k in OCCUPATION_KEYS}, seed=seed)
    return render_texts(p, seed=seed)


def bench_embedding(n: int, threads: int) -> dict:
    import torch

    from popresume.jobs import job_description
    from popresume.screeners import score_resumes
    from popresume.screeners.embedding import EmbeddingScreener, cpu_has_bf16

    torch.set_num_threads(threads)
    res = resumes(n)
    jobs = {o: job_description(o) for o in res["occupation"].unique()}
    out = {"n": len(res), "threads": threads, "cpu_bf16": cpu_has_bf16()}
    fp32 = EmbeddingScreener(precision="fp32")
    fast = EmbeddingScreener(precision="auto")
    out["fast_precision"] = fast.precision
    # reference: plain sentence-transformers, truncating at 256 tokens
    st = fp32.st
    st.encode(res["text"].tolist()[:16], batch_size=32)
    t = time.perf_counter()
    st.encode(res["text"].tolist(), batch_size=32, normalize_embeddings=True)
    out["reference_st_fp32_truncated_per_s"] = len(res) / (time.perf_counter() - t)
    scores = {}
    for name, s in (("fp32", fp32), ("fast", fast)):
        s.embed(res["text"].tolist()[:16])  # warm-up
        for j in jobs.values():
            s._jd(j)
        t = time.perf_counter()
        df = score_resumes(s, res, cache=False, job_descriptions=jobs)
        out[f"{name}_per_s"] = len(res) / (time.perf_counter() - t)
        scores[name] = df["score"].to_numpy()
        info = [json.loads(r) for r in df["raw"]]
        out["tokens_median"] = float(np.median([i["n_tokens"] for i in info]))
        out["multi_chunk_share"] = float(np.mean([i["n_chunks"] > 1 for i in info]))
    out["speedup_fast_vs_fp32"] = out["fast_per_s"] / out["fp32_per_s"]
    out["max_abs_score_diff"] = float(np.max(np.abs(scores["fp32"] - scores["fast"])))
    out["mean_abs_score_diff"] = float(np.mean(np.abs(scores["fp32"] - scores["fast"])))
    return out


def _serve(port_q):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": '{"score": 50}'}}]}).encode()

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):  # no Nagle: headers and body are separate writes (avoids 40 ms delayed-ACK stalls)
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *a):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
    httpd.daemon_threads = True
    port_q.put(httpd.server_address[1])
    httpd.serve_forever()


def bench_http(n: int, concurrency=(1, 8, 16)) -> dict:
    from popresume.screeners import get_screener, score_resumes

    q = mp.Queue()
    proc = mp.Process(target=_serve, args=(q,), daemon=True)
    proc.start()
    port = q.get(timeout=30)
    res = pd.DataFrame({"resume_id": [f"h{i}" for i in range(n)], "occupation": "nurse",
                        "text": [f"résumé {i} " * 40 for i in range(n)]})
    out = {"n": n}
    try:
        for c in concurrency:
            s = get_screener({"kind": "openai", "model": "bench", "base_url": f"http://127.0.0.1:{port}/v1",
                              "concurrency": c})
            score_resumes(s, res.head(20), cache=False, job_descriptions={"nurse": "Nurse wanted."})
            t = time.perf_counter()
            df = score_resumes(s, res, cache=False, job_descriptions={"nurse": "Nurse wanted."})
            out[f"req_per_s_c{c}"] = n / (time.perf_counter() - t)
            assert df["parse_ok"].all()
            s.close()
    finally:
        proc.terminate()
    return out


def bench_live(n: int, threads: int) -> dict:
    from popresume.jobs import job_description
    from popresume.screeners import get_screener, score_resumes
    from popresume.screeners.prompt import shared_prefix
    from popresume.screeners.server import LlamaServer

    res = resumes(max(n * 12, 24))
    occ = res["occupation"].value_counts().index[0]
    res = res[res["occupation"] == occ].head(n).reset_index(drop=True)
    jobs = {occ: job_description(occ)}
    out: dict = {"n": len(res), "threads": threads, "occupation": occ,
                 "shared_prefix_chars": len(shared_prefix(jobs[occ])),
                 "mean_prompt_chars": float(np.mean([len(shared_prefix(jobs[occ])) + len(t) for t in res["text"]]))}
    t = time.perf_counter()
    with LlamaServer("smollm2", threads=threads, ctx_size=2048) as srv:
        out["server_start_s"] = time.perf_counter() - t
        for mode, cache_prompt in (("no_prefix_cache", False), ("prefix_cache", True)):
            s = get_screener(srv.spec, max_tokens=12, concurrency=1, extra_body={"cache_prompt": cache_prompt})
            s.negotiate()
            s.stats.update({k: 0 if isinstance(v, int) else 0.0 for k, v in s.stats.items()})
            t = time.perf_counter()
            df = score_resumes(s, res, cache=False, job_descriptions=jobs)
            wall = time.perf_counter() - t
            st = s.stats
            server_s = (st["server_prompt_ms"] + st["server_predicted_ms"]) / 1000
            out[mode] = {
                "dialect": s.dialect, "parse_rate": float(df["parse_ok"].mean()),
                "s_per_resume": wall / len(res),
                "prompt_tokens_per_resume": st["prompt_tokens"] / len(res),
                "prompt_tokens_processed_per_resume": st["server_prompt_tokens"] / len(res),
                "prompt_tokens_per_s": st["server_prompt_tokens"] / (st["server_prompt_ms"] / 1000),
                "generation_s_per_resume": st["server_predicted_ms"] / 1000 / len(res),
                # wall time outside the server's own prompt + generation timings: our client, HTTP,
                # and the server's request handling (an upper bound on our client's overhead)
                "outside_server_timings_ms_per_request": 1000 * (wall - server_s) / st["requests"],
                "scores": df["score"].round(1).tolist(),
            }
        a, b = out["no_prefix_cache"], out["prefix_cache"]
        out["prefix_cache_speedup"] = a["s_per_resume"] / b["s_per_resume"]
        out["shared_token_share"] = 1 - b["prompt_tokens_processed_per_resume"] / b["prompt_tokens_per_resume"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200, help="résumés for the embedding benchmark")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--http-n", type=int, default=2000)
    ap.add_argument("--skip-embedding", action="store_true")
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--live-n", type=int, default=8, help="résumés for the live llama-server benchmark (0: skip)")
    a = ap.parse_args()
    if not a.skip_embedding:
        print("embedding:", json.dumps(bench_embedding(a.n, a.threads), indent=1))
    if not a.skip_http:
        print("http:", json.dumps(bench_http(a.http_n), indent=1))
    if a.live_n:
        print("live:", json.dumps(bench_live(a.live_n, a.threads), indent=1))


if __name__ == "__main__":
    main()
