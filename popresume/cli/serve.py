"""``popresume serve``: a local OpenAI-compatible server (llama.cpp's ``llama-server``) for a
GGUF model from a wheel, on 127.0.0.1, until interrupted."""

from __future__ import annotations

import time

import click

from popresume.screeners.server import LlamaServer


@click.command("serve")
@click.option("--model", default="smollm2", show_default=True,
              help="smollm2 | gemma3-270m | PATH.gguf (the named models come from their PyPI wheels).")
@click.option("--port", type=int, default=8080, show_default=True, help="Port on 127.0.0.1 (0: any free port).")
@click.option("--threads", type=int, default=None, help="CPU threads (default: all).")
@click.option("--ctx-size", type=int, default=4096, show_default=True, help="Context tokens per parallel slot.")
@click.option("--parallel", type=int, default=1, show_default=True, help="Requests decoded at once (slots).")
@click.option("--no-cache-prompt", is_flag=True, help="Do not reuse a slot's shared prompt prefix.")
@click.option("--binary", default=None, help="The llama-server executable (default: the venv's, then PATH).")
def command(model, port, threads, ctx_size, parallel, no_cache_prompt, binary):
    """Serve MODEL until Ctrl-C; prints the screener spec to pass to `popresume score --screener`."""
    # a bad model or binary, or a server that exits or times out while starting, is one line
    # (popresume.cli._errors.USER_ERRORS)
    srv = LlamaServer(model, port=port, threads=threads, ctx_size=ctx_size, parallel=parallel,
                      cache_prompt=not no_cache_prompt, binary=binary)
    click.echo(f"starting {srv.binary.name} with {srv.model_path} (log: {srv.log_path}) …", err=True)
    srv.start()
    click.echo(f"serving {srv.alias} at {srv.base_url}\nscreener spec: {srv.spec}")
    try:
        while srv.proc is not None and srv.proc.poll() is None:
            time.sleep(1.0)
        code = srv.proc.returncode if srv.proc is not None else 0
        raise click.ClickException(f"llama-server exited with code {code}; log {srv.log_path}")
    except KeyboardInterrupt:
        click.echo("stopping", err=True)
    finally:
        srv.stop()
