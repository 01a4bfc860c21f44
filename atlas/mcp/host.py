"""The MCP client side: one background thread with its own event loop owns every server session.

The executor runs tools as blocking functions in daemon threads under a deadline; the MCP SDK is
async (anyio). So a process has one `McpHost`: its thread runs an asyncio loop on which each
configured server has a runner task holding its `stdio_client` and `ClientSession` open. A tool
call submits a coroutine to that loop and waits for it. A call still running when its deadline
passes is cut on the loop too (the SDK's request timeout), so a hung tool leaves the session
usable; a server that exits or crashes is noticed on the next call (`unavailable`) and started
again on the one after. Servers are stopped at exit (stdin closed, then SIGTERM/SIGKILL to the
whole process group, by the SDK) — also after Ctrl-C or an exception, since both run `atexit`.
Each server's stderr goes to `mcp-NAME.log` in the state folder, never to the terminal.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from atlas import limits, statefiles
from atlas.errors import ProtocolToolError, TransientToolError, UnavailableToolError, describe
from atlas.mcp.config import ServerConfig

T = TypeVar("T")
STOP_TIMEOUT_S = 6.0
"""At exit: how long all servers together get to stop (the SDK's own escalation takes up to 4 s)."""
PING_TIMEOUT_S = 2.0
"""After a timeout: how long the server gets to answer a ping before it is restarted."""
CUT_GRACE_S = 0.5
"""A call is cut on the loop this long after the executor's deadline, which reports the timeout first."""


def log_path(home: Path, name: str) -> Path:
    return home / f"mcp-{name}.log"


class _Connection:
    """One server's session, owned by a runner task on the host's loop."""

    def __init__(self, config: ServerConfig, home: Path) -> None:
        self.config = config
        self.home = home
        self.session: ClientSession | None = None
        self.tools: list[types.Tool] = []
        self.state = "stopped"
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._checks: set[asyncio.Task[None]] = set()

    async def open(self) -> list[types.Tool]:
        """Start the server if it is not running, and return its tools."""
        if self._stop.is_set() and self._task is not None:
            # A server being stopped (it crashed or froze) finishes stopping before a new one starts.
            await asyncio.shield(self._task)
        if self._task is None or self._task.done():
            self._ready = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self._run(self._ready))
        assert self._ready is not None
        await asyncio.shield(self._ready)
        return self.tools

    async def _run(self, ready: asyncio.Future[None]) -> None:
        params = StdioServerParameters(
            command=self.config.command, args=self.config.args, env=self.config.env or None, cwd=self.config.cwd
        )
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            fd = statefiles.open_fd(log_path(self.home, self.config.name), os.O_WRONLY | os.O_APPEND, create=True)
            with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as errlog:
                async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
                    self.tools = await _all_tools(session)
                    self.session, self.state = session, "running"
                    ready.set_result(None)
                    await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(UnavailableToolError(f"MCP server {self.config.name!r} did not start: {_why(exc)}"))
            if not isinstance(exc, Exception):
                raise
        finally:
            self.session = None
            self.state = "stopped" if self._stop.is_set() else "exited"

    async def call(self, tool: str, arguments: dict[str, Any], timeout_s: float) -> types.CallToolResult:
        await self.open()
        session = self.session
        if session is None:
            raise UnavailableToolError(f"MCP server {self.config.name!r} is not running")
        try:
            return await session.call_tool(tool, arguments, read_timeout_seconds=timeout_s + CUT_GRACE_S)
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                self.retire()  # the runner cleans up; the next call starts the server again
                raise UnavailableToolError(
                    f"MCP server {self.config.name!r} exited during the call (see its log, mcp-{self.config.name}.log)"
                ) from None
            if exc.code == types.REQUEST_TIMEOUT:
                self._checks.add(check := asyncio.create_task(self._check_alive(session)))
                check.add_done_callback(self._checks.discard)
                raise TimeoutError(f"{tool} on MCP server {self.config.name!r} did not answer in time") from None
            raise ProtocolToolError(
                f"MCP server {self.config.name!r} answered with error {exc.code}: {exc.message}"
            ) from None
        except RuntimeError as exc:  # the SDK's own checks: a result that breaks the tool's output schema
            raise ProtocolToolError(f"MCP server {self.config.name!r} sent a result Atlas cannot use: {exc}") from None

    async def _check_alive(self, session: ClientSession) -> None:
        """After a timed-out call: a server that no longer answers a ping is stopped, to be started
        again by the next call; one that does (only that tool hung) keeps its session."""
        try:
            await asyncio.wait_for(session.send_ping(), PING_TIMEOUT_S)
        except Exception:
            if self.session is session:
                self.retire()

    def retire(self) -> None:
        """Stop this server; no call is sent to it any more."""
        self.session = None
        if self.state == "running":
            self.state = "stopping"
        self._stop.set()

    async def close(self) -> None:
        self.retire()
        if self._task is not None:
            with contextlib.suppress(BaseException):
                await self._task


async def _all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever must not hold the question
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _why(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_why(inner) for inner in exc.exceptions[:3])
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
        return "it exited before it answered"
    return describe(exc)


class McpHost:
    """The process's MCP sessions and the loop thread they live on; see the module docstring."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._loop = asyncio.new_event_loop()
        self._connections: dict[str, _Connection] = {}
        self._thread = threading.Thread(target=self._loop.run_forever, name="atlas-mcp", daemon=True)
        self._thread.start()
        self._closed = False
        atexit.register(self.stop)

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def _connection(self, config: ServerConfig) -> _Connection:
        connection = self._connections.get(config.name)
        if connection is None:
            connection = self._connections[config.name] = _Connection(config, self.home)
        return connection

    def state(self, name: str) -> str:
        connection = self._connections.get(name)
        return connection.state if connection is not None else "stopped"

    def tools(self, config: ServerConfig, timeout_s: float) -> list[types.Tool]:
        """Start the server (if needed) and list its tools; UnavailableToolError when it does not come up."""
        outcome = self.start_all([config], timeout_s)[config.name]
        if isinstance(outcome, UnavailableToolError):
            raise outcome
        return outcome

    def start_all(
        self, configs: list[ServerConfig], timeout_s: float
    ) -> dict[str, list[types.Tool] | UnavailableToolError]:
        """Start the servers side by side; per server, its tools or why it did not come up in time."""
        futures = {config.name: self._submit(self._connection(config).open()) for config in configs}
        concurrent.futures.wait(futures.values(), timeout=timeout_s)
        outcomes: dict[str, list[types.Tool] | UnavailableToolError] = {}
        for config in configs:
            future = futures[config.name]
            if not future.done():
                future.cancel()
                self._submit(self._connection(config).close())
                outcomes[config.name] = UnavailableToolError(
                    f"MCP server {config.name!r} did not start within {timeout_s:g} s"
                )
                continue
            error = future.exception()
            if error is None:
                outcomes[config.name] = future.result()
            else:
                why = (
                    error
                    if isinstance(error, UnavailableToolError)
                    else UnavailableToolError(f"MCP server {config.name!r} did not start: {_why(error)}")
                )
                outcomes[config.name] = why
        return outcomes

    def call(self, config: ServerConfig, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call one tool and wait; the executor's deadline decides how long anyone waits for this."""
        try:
            with limits.slot(f"mcp:{config.name}", config.max_concurrency, timeout=config.timeout_s):
                future = self._submit(self._connection(config).call(tool, arguments, config.timeout_s))
                try:
                    return future.result()
                finally:
                    future.cancel()
        except limits.SourceBusy as exc:
            raise TransientToolError(str(exc)) from None

    def stop(self) -> None:
        """Stop every server and the loop; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        connections = list(self._connections.values())

        async def close_all() -> None:
            await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)

        with contextlib.suppress(Exception):
            self._submit(close_all()).result(timeout=STOP_TIMEOUT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=1.0)


_host: McpHost | None = None
_host_lock = threading.Lock()


def host_for(home: Path) -> McpHost:
    """The process's host, started on first use."""
    global _host
    with _host_lock:
        if _host is None or _host._closed:
            _host = McpHost(home)
        return _host
