"""MCP: what Atlas adds to an MCP tool call, against the same call made directly with the SDK.

Both sides call `get_current_time` on one running `mcp-server-time` process, one call at a time,
`CALLS` times: directly through the SDK's `ClientSession.call_tool` on its own event loop, and as
`time__get_current_time` through the executor (schema check, breaker, worker thread, the hop to
the host's loop thread, envelope). Rounds alternate; the best of each counts. A third figure is
the other direction: Atlas's `get_issue` through `atlas mcp serve` from the SDK's client,
against the same call through the executor in-process.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from atlas.executor.executor import ToolExecutor
from atlas.mcp.config import ServerConfig
from atlas.mcp.host import McpHost
from atlas.mcp.tools import server_specs
from atlas.protocol.messages import ToolCall
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry
from bench.core import REPO, Figure, quiet_env

CALLS = 200
ROUNDS = 3
ARGUMENTS = {"timezone": "UTC"}


def _time_server() -> ServerConfig:
    command = shutil.which("mcp-server-time") or "mcp-server-time"
    return ServerConfig(name="time", command=command, args=["--local-timezone", "UTC"], timeout_s=10.0)


def _direct(config: ServerConfig, folder: Path) -> float:
    """Best per-call time of `CALLS` SDK calls, over `ROUNDS` rounds, one session."""
    params = StdioServerParameters(command=config.command, args=config.args)

    async def run() -> float:
        best = float("inf")
        with (folder / "direct.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                for _ in range(ROUNDS):
                    started = time.perf_counter()
                    for _ in range(CALLS):
                        result = await session.call_tool("get_current_time", ARGUMENTS)
                        if result.is_error:
                            raise RuntimeError("get_current_time failed")
                    best = min(best, (time.perf_counter() - started) / CALLS)
        return best

    return anyio.run(run)


def _through_atlas(config: ServerConfig, folder: Path) -> float:
    host = McpHost(folder)
    try:
        executor = ToolExecutor(Registry(server_specs(host, config)), timeout_s=10.0)
        call = ToolCall.make("time__get_current_time", ARGUMENTS, "c1")

        async def batch() -> float:
            best = float("inf")
            for _ in range(ROUNDS):
                started = time.perf_counter()
                for _ in range(CALLS):
                    await executor.run_one(call)
                best = min(best, (time.perf_counter() - started) / CALLS)
            return best

        best = asyncio.run(batch())
        if any(record.kind != "ok" for record in executor.log):
            raise RuntimeError("every get_current_time call through Atlas should end ok")
        return best
    finally:
        host.stop()


def _served(folder: Path, calls: int) -> tuple[float, float]:
    """Per-call time of get_issue through `atlas mcp serve` (SDK client), and through the executor."""
    env = quiet_env(folder / "home")
    params = StdioServerParameters(command=sys.executable, args=["-m", "atlas", "mcp", "serve"], env=env, cwd=REPO)

    async def remote() -> float:
        with (folder / "serve.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("get_issue", {"issue_id": 41})
                started = time.perf_counter()
                for index in range(calls):
                    await session.call_tool("get_issue", {"issue_id": 41 + index % 50})
                return (time.perf_counter() - started) / calls

    served = anyio.run(remote)
    executor = ToolExecutor(load_registry().read_only())

    async def local() -> float:
        await executor.run_one(ToolCall.make("get_issue", {"issue_id": 41}, "warm"))
        started = time.perf_counter()
        for index in range(calls):
            await executor.run_one(ToolCall.make("get_issue", {"issue_id": 41 + index % 50}, f"c{index}"))
        return (time.perf_counter() - started) / calls

    return served, asyncio.run(local())


def per_call_figure(name: str, value_s: float, baseline_s: float, *, against: str, note: str) -> Figure:
    """A per-call time against a baseline, in milliseconds: seconds would round these to nothing."""
    return Figure(
        name=name,
        measured=f"{value_s * 1000:.2f} ms vs {baseline_s * 1000:.2f} ms {against}",
        ratio=value_s / baseline_s,
        target="—",
        met=None,
        note=note,
        values={"measured_s": value_s, "baseline_s": baseline_s},
    )


def run() -> list[Figure]:
    config = _time_server()
    with tempfile.TemporaryDirectory(prefix="atlas-bench-mcp-") as name:
        folder = Path(name)
        direct = _direct(config, folder)
        atlas = _through_atlas(config, folder)
        served, local = _served(folder, CALLS)
    overhead_us = (atlas - direct) * 1e6
    return [
        per_call_figure(
            "MCP call through Atlas / direct SDK call",
            atlas,
            direct,
            against="ClientSession.call_tool",
            note=f"mcp-server-time get_current_time, {CALLS} sequential calls, best of {ROUNDS}; "
            f"Atlas adds {overhead_us:,.0f} µs per call",
        ),
        per_call_figure(
            "get_issue through atlas mcp serve / through the executor",
            served,
            local,
            against="run_one in-process",
            note=f"{CALLS} sequential calls from the SDK's client over stdio; the difference is the protocol",
        ),
    ]
