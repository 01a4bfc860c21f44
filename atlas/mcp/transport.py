"""The stdio transport under Atlas's MCP sessions: one server process, its pipes, and its end.

The SDK's `stdio_client` does the same with two gaps Atlas cannot leave open: it does not say which
process it started (so nothing could end a server the loop no longer serves), and a reply it cannot
parse is dropped, leaving its request to wait out the whole timeout. Here the server starts in its
own process group, known to `atlas.mcp.reaper` until it has ended; its stderr goes through the
sanitiser to its log; a reply that is not valid JSON-RPC but names a request in flight fails that
request at once (a parse error, which the host reports as `protocol`); and each result can be
looked at before the SDK parses it (`inspect`: how a bad tool in a listing costs only that tool).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from atlas.mcp import reaper
from atlas.mcp.config import ServerConfig
from atlas.mcp.logs import ServerLog

STDIN_GRACE_S = 0.5
"""After stdin is closed, how long a server gets to exit by itself before SIGTERM (then SIGKILL)."""
LINE_LIMIT = 64 * 1024 * 1024
"""A message longer than this ends the connection: a server must not fill memory with one line."""
UNREADABLE = types.PARSE_ERROR

Inspect = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(method, result) → the result the SDK is given."""
Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


def _unreadable(line: str, exc: ValueError, pending: dict[Any, str]) -> SessionMessage | None:
    """For a reply that does not parse: an error answer to the request it names, if one is in flight."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or request_id not in pending:
        return None
    first = str(exc).splitlines()[:3]
    error = types.ErrorData(code=UNREADABLE, message="the reply is not valid MCP: " + " ".join(first)[:300])
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


class _Pipes:
    """The tasks that carry messages between the session's streams and the server's pipes."""

    def __init__(self, process: anyio.abc.Process, log: ServerLog, inspect: Inspect) -> None:
        self.process = process
        self.log = log
        self.inspect = inspect
        self.pending: dict[Any, str] = {}
        """Requests in flight: id → method."""
        self.to_session, self.read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        self.write_stream, self.from_session = anyio.create_memory_object_stream[SessionMessage](0)

    def _message(self, line: str) -> SessionMessage | None:
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as exc:
            self.log.write_lines(f"atlas: an unreadable message from the server: {line[:400]}")
            return _unreadable(line, exc, self.pending)
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            method = self.pending.pop(message.id, None)
            if isinstance(message, types.JSONRPCResponse) and method is not None:
                result = self.inspect(method, message.result)
                message = types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
        return SessionMessage(message)

    async def read_stdout(self) -> None:
        assert self.process.stdout is not None
        buffer = ""
        async with self.to_session:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                async for chunk in TextReceiveStream(self.process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    if len(buffer) > LINE_LIMIT:
                        self.log.write_lines(f"atlas: a message longer than {LINE_LIMIT:,} bytes; disconnected")
                        return
                    for line in lines:
                        message = self._message(line) if line.strip() else None
                        if message is not None:
                            await self.to_session.send(message)

    async def read_stderr(self) -> None:
        assert self.process.stderr is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in TextReceiveStream(self.process.stderr, errors="replace"):
                self.log.feed(chunk)
        self.log.flush()

    async def write_stdin(self) -> None:
        assert self.process.stdin is not None
        try:
            async with self.from_session:
                async for session_message in self.from_session:
                    message = session_message.message
                    if isinstance(message, types.JSONRPCRequest):
                        self.pending[message.id] = message.method
                    data = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await self.process.stdin.send(data.encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await self.to_session.aclose()  # the session sees the connection end, not a hang


async def _stop(process: anyio.abc.Process) -> None:
    """Close stdin, wait a little, then SIGTERM and SIGKILL the whole group (the MCP spec's order)."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    for signum, wait_s in ((None, STDIN_GRACE_S), (signal.SIGTERM, reaper.TERM_GRACE_S), (signal.SIGKILL, 1.0)):
        if signum is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signum)
        with anyio.move_on_after(wait_s):
            while process.returncode is None:
                await anyio.sleep(0.02)
        if process.returncode is not None:
            break
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # what the server left behind in its group
    reaper.ended(process.pid)


@asynccontextmanager
async def stdio_transport(
    config: ServerConfig, log: ServerLog, inspect: Inspect, groups: set[int]
) -> AsyncIterator[Streams]:
    """Start the server and yield the session's streams; the server is ended on the way out.

    Its process group joins `groups` (its host's) and the reaper's list until it has ended."""
    process = await anyio.open_process(
        [config.command, *config.args],
        env=get_default_environment() | config.env,
        cwd=config.cwd,
        start_new_session=True,
    )
    reaper.started(process.pid)
    groups.add(process.pid)
    pipes = _Pipes(process, log, inspect)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(pipes.read_stdout)
            tasks.start_soon(pipes.read_stderr)
            tasks.start_soon(pipes.write_stdin)
            try:
                yield pipes.read_stream, pipes.write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    await _stop(process)  # the readers still run: the server's last words reach its log
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                await _stop(process)
            groups.discard(process.pid)
            for stream in (pipes.read_stream, pipes.write_stream, pipes.to_session, pipes.from_session):
                await stream.aclose()
