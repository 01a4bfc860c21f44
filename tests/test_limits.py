"""A concurrency bound per source across the process: a burst of 50 calls to one source is held to its
limit at the source itself — an MCP test server counting the calls it runs at once, a fake GitHub
counting the requests in flight — whichever executor or client in the process makes the calls."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from atlas.executor.executor import ToolExecutor
from atlas.foundation import limits
from atlas.github.client import GitHubClient
from atlas.mcp.host import McpHost
from atlas.mcp.tools import server_specs
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry
from tests.github.conftest import quill_fake
from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.mcp.conftest import server_config


def burst_on_server(tmp_path: Path, limit: int) -> tuple[int, list[str]]:
    """50 calls of 0.2 s to one server from two executors at once; the most the server ran at once."""
    name = f"b{uuid.uuid4().hex[:8]}"
    seen = tmp_path / f"{name}.txt"
    config = server_config(name, max_concurrency=limit, env={"ATLAS_TEST_CONCURRENCY": str(seen)}, timeout_s=30)
    host = McpHost(tmp_path)
    kinds: list[str] = []
    try:
        tools = Registry(server_specs(host, config))

        def one_executor(first: int) -> None:
            executor = ToolExecutor(tools, max_concurrency=64, timeout_s=30)
            calls = [ToolCall(f"{name}__slow", json.dumps({"seconds": 0.2}), f"c{first + i}") for i in range(25)]
            outputs = asyncio.run(executor.run_all(calls))
            kinds.extend((json.loads(output["output"]).get("ok") and "ok") or "failed" for output in outputs)

        threads = [threading.Thread(target=one_executor, args=(start,)) for start in (0, 25)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        host.stop()
    return max(int(line) for line in seen.read_text().split()), kinds


def test_a_burst_of_50_calls_to_one_mcp_server_is_held_to_its_limit(tmp_path: Path) -> None:
    most, kinds = burst_on_server(tmp_path, limit=4)
    assert kinds == ["ok"] * 50
    assert most == 4


def test_without_the_bound_the_same_burst_reaches_the_server_at_once(tmp_path: Path) -> None:
    # The control: the server does run calls side by side, so the 4 above is the bound, not the server.
    most, kinds = burst_on_server(tmp_path, limit=64)
    assert kinds == ["ok"] * 50
    assert most > 8


def test_a_burst_of_50_requests_to_github_from_two_clients_is_held_to_one_limit() -> None:
    fake = quill_fake(5)
    fake.latency_s = 0.3
    with RunningFake(fake) as running:
        clients = [GitHubClient(token=TOKEN, base_url=running.url) for _ in range(2)]
        limit = clients[0].concurrency

        def get(index: int) -> int:
            page = clients[index % 2].get(f"/repos/{REPO}/issues", "the issues", params={"per_page": 1})
            return page.status

        with ThreadPoolExecutor(max_workers=50) as pool:
            statuses = list(pool.map(get, range(50)))
        for client in clients:
            client.close()
    assert statuses == [200] * 50
    assert limits.limit_of(limits.GITHUB) == limit == 8
    assert limits.most_at_once(limits.GITHUB) == limit  # the bound was reached in the process ...
    assert limit // 2 < fake.most_in_flight <= limit  # ... and at the server it was never passed


@pytest.mark.parametrize("value", ["0", "65", "2.5", "many"])
def test_a_bad_github_limit_is_one_line(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from atlas.foundation.config import github_concurrency
    from atlas.foundation.errors import ConfigError

    monkeypatch.setenv("ATLAS_GITHUB_CONCURRENCY", value)
    with pytest.raises(ConfigError, match="ATLAS_GITHUB_CONCURRENCY"):
        github_concurrency()
