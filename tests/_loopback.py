"""A threaded HTTP server on 127.0.0.1 for tests that talk to an OpenAI-compatible API.

Tests subclass :class:`QuietHandler` (or ``BaseHTTPRequestHandler``) with the behaviour they need and serve it with
``Loopback(Handler)`` as a context manager; ``.url`` is the ``/v1`` base URL on a free port.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive, no Nagle (headers and body are separate writes: no 40 ms
    delayed-ACK stalls) and no request log on stderr."""

    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *a):
        pass

    def send_json(self, code: int, body) -> None:
        """Reply with HTTP ``code`` and ``body`` (a str as is, anything else as JSON)."""
        import json

        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Loopback:
    """Serve handler class ``H`` on a loopback port (``port=0``: a free one) while the ``with`` block runs."""

    def __init__(self, H, port: int = 0):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), H)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
