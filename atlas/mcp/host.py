"""The MCP client side: one background thread with its own event loop owns every server session.

The executor runs tools as blocking functions in daemon threads under a deadline; the MCP SDK is
async (anyio). So a process has one `McpHost`: its thread runs an asyncio loop on which each
configured server has a runner task holding its transport (`atlas.mcp.transport`) and
`ClientSession` open. A tool call submits a coroutine to that loop and waits for it. A call still
running when its deadline passes is cut on the loop too (the SDK's request timeout), so a hung tool
leaves the session usable; a server that exits or crashes is noticed on the next call
(`unavailable`) and started again on the one after. A server that does not come up in time is
stopped at once, not left starting. Every server is ended when Atlas ends: politely by the host
(stdin closed, then SIGTERM and SIGKILL to its whole process group), and by `atlas.mcp.reaper`
whatever the way out (exit, Ctrl-C, SIGTERM, SIGHUP) — also when the loop itself is stuck.
What servers and the SDK say goes, sanitised, to `mcp-NAME.log` in the state folder (`atlas.mcp.logs`).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from atlas.foundation import limits
from atlas.foundation.errors import ProtocolToolError, TransientToolError, UnavailableToolError, describe
from atlas.mcp import reaper
from atlas.mcp.config import ServerConfig
from atlas.mcp.listing import checked_listing
from atlas.mcp.logs import LOOP_THREAD, ServerLog, current_server, log_path, route_sdk_logs
from atlas.mcp.transport import UNREADABLE, stdio_transport

__all__ = ["McpHost", "ServerExited", "host_for", "log_path"]

T = TypeVar("T")
STOP_TIMEOUT_S = 3.0
"""At exit: how long all servers together get to stop politely before the reaper ends the rest."""
PING_TIMEOUT_S = 2.0
"""After a timeout: how long the server gets to answer a ping before it is restarted."""
CUT_GRACE_S = 0.5
"""A call is cut on the loop this long after the executor's deadline, which reports the timeout first."""


class ServerExited(UnavailableToolError):
    """The server's process ended while a call was in flight: the call may have been done."""


class _Session(ClientSession):
    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        """Atlas checks results against the output schema itself, in bounded time (`atlas.mcp.tools`):
        the SDK's check runs Python's `re` on the server's patterns, on this loop."""


class _Connection:
    """One server's session, owned by a runner task on the host's loop."""

    def __init__(self, config: ServerConfig, home: Path, groups: set[int]) -> None:
        self.config = config
        self.home = home
        self.groups = groups
        self.session: ClientSession | None = None
        self.tools: list[types.Tool] = []
        self.state = "stopped"
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._starting: anyio.CancelScope | None = None
        """Made on the loop, when the runner starts: cancelling it stops a server that is still starting."""
        self.dropped: list[str] = []
        """One line per tool of the server's listing that is not offered, and why."""
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
        current_server.set(self.config.name)
        log = ServerLog(self.home, self.config.name)
        dropped: list[str] = []

        def inspect(method: str, result: dict[str, Any]) -> dict[str, Any]:
            return checked_listing(result, dropped) if method == "tools/list" else result

        self._starting = starting = anyio.CancelScope()
        try:
            with starting:
                async with (
                    stdio_transport(self.config, log, inspect, self.groups) as (read, write),
                    _Session(read, write) as session,
                ):
                    await session.initialize()
                    self.tools = await _all_tools(session)
                    self.dropped = dropped
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
            if not ready.done():
                why = f"MCP server {self.config.name!r} did not start in time"
                ready.set_exception(UnavailableToolError(why))
            if ready.done() and not ready.cancelled():
                ready.exception()  # seen: whoever waited for it may have given up (its start timed out)

    async def call(self, tool: str, arguments: dict[str, Any], timeout_s: float) -> types.CallToolResult:
        await self.open()
        session = self.session
        if session is None:
            raise UnavailableToolError(f"MCP server {self.config.name!r} is not running")
        name = self.config.name
        try:
            result = await session.call_tool(tool, arguments, read_timeout_seconds=timeout_s + CUT_GRACE_S)
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                self.retire()  # the runner cleans up; the next call starts the server again
                why = f"MCP server {name!r} exited during the call (see its log, mcp-{name}.log)"
                raise ServerExited(why) from None
            if exc.code == types.REQUEST_TIMEOUT:
                self._checks.add(check := asyncio.create_task(self._check_alive(session)))
                check.add_done_callback(self._checks.discard)
                raise TimeoutError(f"{tool} on MCP server {name!r} did not answer in time") from None
            if exc.code == UNREADABLE:
                raise ProtocolToolError(f"MCP server {name!r} sent a reply Atlas cannot read: {exc.message}") from None
            raise ProtocolToolError(f"MCP server {name!r} answered with error {exc.code}: {exc.message}") from None
        except ValidationError as exc:  # a result that breaks the protocol: an unknown content block ...
            why = f"MCP server {name!r} sent a result that is not valid MCP: {describe(exc)}"
            raise ProtocolToolError(why) from None
        except RuntimeError as exc:  # the SDK's own checks (a result that asks for input Atlas cannot give)
            raise ProtocolToolError(f"MCP server {name!r} sent a result Atlas cannot use: {exc}") from None
        if not isinstance(result, types.CallToolResult):
            raise ProtocolToolError(f"MCP server {name!r} sent a result Atlas cannot use: {type(result).__name__}")
        return result

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
        if self._starting is not None:
            self._starting.cancel()  # a server still starting (stuck at initialize) is stopped, not awaited
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
        route_sdk_logs(home)
        reaper.guard_signals()
        self._loop = asyncio.new_event_loop()
        self._connections: dict[str, _Connection] = {}
        self.groups: set[int] = set()
        """The process groups of this host's servers that have not ended yet."""
        self._thread = threading.Thread(target=self._loop.run_forever, name=LOOP_THREAD, daemon=True)
        self._thread.start()
        self._closed = False
        atexit.register(self.stop)

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def _connection(self, config: ServerConfig) -> _Connection:
        connection = self._connections.get(config.name)
        if connection is None:
            connection = self._connections[config.name] = _Connection(config, self.home, self.groups)
        return connection

    def state(self, name: str) -> str:
        connection = self._connections.get(name)
        return connection.state if connection is not None else "stopped"

    def dropped(self, name: str) -> list[str]:
        """The tools of the server's listing that are not offered, one line each with why."""
        connection = self._connections.get(name)
        return list(connection.dropped) if connection is not None else []

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
        reaper.end_all(only=self.groups)  # whatever did not stop politely (or a loop that no longer runs)
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


def reset_host() -> None:
    """Stop the process's host, if one was started; the next `host_for` starts a new one."""
    global _host
    with _host_lock:
        host, _host = _host, None
    if host is not None:
        host.stop()
