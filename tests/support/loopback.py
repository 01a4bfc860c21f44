"""One loopback HTTP server for the fakes: a handler class served on 127.0.0.1 in a daemon thread."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

SHUTDOWN_POLL_S = 0.05
"""How often the serving loop looks whether it is asked to stop: a server ends within this at the block's
end (the standard library's half second, at every test's teardown, added up to minutes of waiting)."""


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timed out) leaves a broken pipe behind: expected here, not news."""


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class Loopback:
    """`with Loopback(Handler) as server:` serves `Handler` until the block ends; `server.url` is its
    root (`/v1` appended when `path="/v1"`)."""

    def __init__(
        self, handler: type[BaseHTTPRequestHandler], *, path: str = "", server: type[QuietServer] = QuietServer
    ) -> None:
        self.server = server(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_S}, name="loopback", daemon=True
        )

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
