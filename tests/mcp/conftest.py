"""A real MCP test server, started once per module through a real host (its own loop thread)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas.mcp import tools as mcp_tools
from atlas.mcp.config import ServerConfig
from atlas.mcp.host import McpHost

TEST_SERVER = Path(__file__).with_name("mcp_test_server.py")


def server_config(name: str = "t", **settings: object) -> ServerConfig:
    return ServerConfig(name=name, command=sys.executable, args=[str(TEST_SERVER)], **settings)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def host_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-home")


@pytest.fixture(scope="module")
def host(host_home: Path) -> Iterator[McpHost]:
    started = McpHost(host_home)
    yield started
    started.stop()


@pytest.fixture
def patient_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run in this process wait up to a minute for a server to come up: the product's 10 s
    bound suits a user's machine, but a loaded test machine may take longer just to start Python
    and the SDK, and the tests that use this are not about that bound."""
    monkeypatch.setattr(mcp_tools, "START_TIMEOUT_S", 60.0)
