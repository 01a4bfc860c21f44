"""What MCP servers and the MCP SDK say goes to a log file in the state folder, sanitised, never to the terminal.

A server's stderr and the SDK's own log records (a line it could not parse, quoted raw; tracebacks)
hold whatever a server sent: terminal escapes, clipboard writes, screen clears. Each line is passed
through the one sanitiser (`atlas.ui.safe.clean_line`) and appended to `mcp-NAME.log` for the
server the record is about (known from the task that logged it), else to `mcp.log`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from contextvars import ContextVar
from pathlib import Path

from atlas.foundation import statefiles
from atlas.foundation.sanitize import clean_line

SDK_LOGGERS = ("mcp", "mcp_types", "client")
"""The SDK's loggers (its client session logs as `client`)."""
LOOP_THREAD = "atlas-mcp"
LINE_LIMIT = 4000
"""A logged line longer than this is cut: a server must not fill the disk through one line."""

current_server: ContextVar[str | None] = ContextVar("atlas_mcp_server", default=None)
"""The server the running task belongs to; its runner sets it, so the SDK's records name it."""


def log_path(home: Path, name: str | None) -> Path:
    return home / (f"mcp-{name}.log" if name else "mcp.log")


class ServerLog:
    """Appends sanitised lines to one server's log (opened like every state file: never through a link)."""

    def __init__(self, home: Path, name: str | None) -> None:
        self.path = log_path(home, name)
        self._lock = threading.Lock()
        self._partial = ""

    def write_lines(self, text: str) -> None:
        lines = [clean_line(line)[:LINE_LIMIT] for line in text.splitlines()]
        if not lines:
            return
        with self._lock, contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = statefiles.open_fd(self.path, os.O_WRONLY | os.O_APPEND, create=True)
            try:
                statefiles.write_all(fd, "".join(line + "\n" for line in lines).encode("utf-8"))
            finally:
                os.close(fd)

    def feed(self, chunk: str) -> None:
        """Part of a stream (a server's stderr): whole lines are written, the rest waits for its end."""
        text = self._partial + chunk
        complete, _, self._partial = text.rpartition("\n")
        if len(self._partial) > LINE_LIMIT:
            complete, self._partial = text, ""
        self.write_lines(complete)

    def flush(self) -> None:
        self.write_lines(self._partial)
        self._partial = ""


class _SdkLogHandler(logging.Handler):
    def __init__(self, home: Path) -> None:
        super().__init__(logging.DEBUG)
        self.home = home
        self.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            ServerLog(self.home, current_server.get()).write_lines(self.format(record))
        except Exception:  # a log line must never break a call
            self.handleError(record)


class _LoopRecords(logging.Filter):
    """On asyncio's logger: records from the MCP loop's thread go to the log, not the terminal."""

    def __init__(self, handler: _SdkLogHandler) -> None:
        super().__init__()
        self.handler = handler

    def filter(self, record: logging.LogRecord) -> bool:
        if record.threadName != LOOP_THREAD:
            return True
        self.handler.handle(record)
        return False


_routed: set[Path] = set()


def route_sdk_logs(home: Path) -> None:
    """Once per state folder: the SDK's loggers write to the servers' logs only (INFO and above)."""
    if home in _routed:
        return
    _routed.add(home)
    handler = _SdkLogHandler(home)
    handler.setLevel(logging.INFO)
    for name in SDK_LOGGERS:
        sdk = logging.getLogger(name)
        for old in [h for h in sdk.handlers if isinstance(h, _SdkLogHandler)]:
            sdk.removeHandler(old)
        sdk.addHandler(handler)
        sdk.setLevel(logging.INFO)
        sdk.propagate = False  # never up to the root logger, nor Python's last-resort stderr handler
    logging.getLogger("asyncio").addFilter(_LoopRecords(handler))
