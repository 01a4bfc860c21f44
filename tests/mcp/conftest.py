"""A real MCP test server, started once per test process through a real host (its own loop thread),
and state folders after `atlas mcp add` (of the test server, of mcp-server-time), each made once per run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas.mcp import tools as mcp_tools
from atlas.mcp.config import ServerConfig
from atlas.mcp.host import McpHost
from atlas.mcp.pins import PIN_FILE
from tests.support.once import made_once
from tests.support.run import atlas_env, invoke

TEST_SERVER = Path(__file__).with_name("mcp_test_server.py")


def server_config(name: str = "t", **settings: object) -> ServerConfig:
    return ServerConfig(name=name, command=sys.executable, args=[str(TEST_SERVER)], **settings)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def host_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-home")


@pytest.fixture(scope="session")
def host(host_home: Path) -> Iterator[McpHost]:
    """One host for the test process: its server `t` starts once for the client and pin tests, and
    the serial tests, collected first, out of their modules' order, start it for those run later.
    The SDK's loggers write to the folder of the host made last in the process; a module that reads
    what they wrote makes a host of its own (`test_hostile_servers.py`)."""
    started = McpHost(host_home)
    yield started
    started.stop()


@pytest.fixture
def patient_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run in this process wait up to a minute for a server to come up: the product's 10 s
    bound suits a user's machine, but a loaded test machine may take longer just to start Python
    and the SDK, and the tests that use this are not about that bound."""
    monkeypatch.setattr(mcp_tools, "START_TIMEOUT_S", 60.0)


def added_state_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state folder after `atlas mcp add t -- python mcp_test_server.py` (its config and its pins),
    made by the first test process that needs it, in the folder every process of the run shares:
    tests take a copy of it."""
    return _shared_added_folder(tmp_path_factory, "mcp-added-home", "t", sys.executable, str(TEST_SERVER))


def time_added_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state folder after `atlas mcp add time -- mcp-server-time --local-timezone UTC`, made once
    per run like `added_state_folder`: tests take a copy of it."""
    return _shared_added_folder(tmp_path_factory, "mcp-time-home", "time", "mcp-server-time", "--local-timezone", "UTC")


def _shared_added_folder(tmp_path_factory: pytest.TempPathFactory, folder: str, name: str, *command: str) -> Path:
    def add(home: Path) -> None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(mcp_tools, "START_TIMEOUT_S", 60.0)  # as `patient_start`
            added = invoke("mcp", "add", name, "--", *command, env=atlas_env(home))
        assert added.code == 0, added
        assert f"Added MCP server {name!r}" in added.stdout, added
        assert (home / PIN_FILE).is_file(), added

    return made_once(tmp_path_factory, folder, add)


@pytest.fixture(scope="session")
def added_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return added_state_folder(tmp_path_factory)


@pytest.fixture(scope="session")
def time_added_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return time_added_folder(tmp_path_factory)
