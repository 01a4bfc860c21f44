"""What a hostile MCP server sends, through the real host and executor against the real test server:
catastrophic patterns in its schemas, a broken schema, replies that are not valid MCP, terminal
escapes on stderr and in what the SDK logs, and a write whose server ends mid-call."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas.mcp.config import ServerConfig
from atlas.mcp.host import McpHost, log_path
from atlas.mcp.tools import server_specs
from atlas.protocol.events import ApprovalRequest
from tests.mcp.conftest import server_config
from tests.mcp.test_client import executor_for, run

CATASTROPHIC_INPUT = "a" * 40 + "!"

# Servers are started here to be called, not to time their start: room for a loaded machine.
pytestmark = pytest.mark.usefixtures("patient_start")


@pytest.fixture(scope="module")
def host_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-hostile-home")


@pytest.fixture(scope="module")
def host(host_home: Path) -> Iterator[McpHost]:
    """The module's own host, made when its first test starts: the SDK's loggers write to the folder
    of the host made last in the process, and the escapes test reads what they wrote there."""
    started = McpHost(host_home)
    yield started
    started.stop()


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the module's server writes what its write tools were given."""
    return tmp_path_factory.mktemp("hostile-notes") / "notes.txt"


@pytest.fixture(scope="module")
def config(notes: Path) -> ServerConfig:
    """The module's test server `t`; these calls get 20 s each."""
    return server_config("t", timeout_s=20.0, env={"ATLAS_TEST_NOTES": str(notes)})


def test_a_catastrophic_input_pattern_is_refused_in_bounded_time(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    ticks = []
    stop = threading.Event()

    def tick() -> None:  # another thread keeps running: the check does not hold the interpreter
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.monotonic()
    try:
        result = run(executor, "t__matcher", {"code": CATASTROPHIC_INPUT})
    finally:
        stop.set()
        ticker.join()
    elapsed = time.monotonic() - started
    assert result["error"]["kind"] == "bad_args"
    assert "too slow to check" in result["error"]["message"]
    assert executor.log[0].attempts == 0  # never sent
    assert elapsed < 5.0
    assert len(ticks) > elapsed * 20  # the other thread ran throughout
    assert run(executor, "t__matcher", {"code": "aaaa"})["data"] == {"result": "matched aaaa"}


def test_a_catastrophic_output_pattern_is_protocol_in_bounded_time(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    started = time.monotonic()
    result = run(executor, "t__tagged", {})
    assert result["error"]["kind"] == "protocol", result
    assert "too slow to check" in result["error"]["message"]
    assert time.monotonic() - started < 5.0


def test_a_broken_input_schema_loses_only_that_tool(host: McpHost, config: ServerConfig) -> None:
    names = [spec.name for spec in server_specs(host, config)]
    assert "t__badschema" not in names
    assert {"t__echo", "t__matcher", "t__tagged"} <= set(names)
    [why] = host.dropped("t")
    assert "badschema" in why and "not valid JSON Schema" in why


def test_a_reply_that_is_not_mcp_fails_at_once_as_protocol(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    started = time.monotonic()
    result = run(executor, "t__garbled", {})
    assert result["error"]["kind"] == "protocol", result
    assert "cannot read" in result["error"]["message"]
    assert time.monotonic() - started < 5.0  # not the tool's 20 s timeout
    assert run(executor, "t__echo", {"text": "still here"})["data"] == {"result": "still here"}


def test_an_unknown_content_block_is_the_servers_fault_not_bad_args(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    started = time.monotonic()
    result = run(executor, "t__hologram", {})
    assert result["error"]["kind"] == "protocol", result
    assert "not valid MCP" in result["error"]["message"]
    assert time.monotonic() - started < 5.0


def test_escapes_from_the_server_and_the_sdk_reach_only_the_log_sanitised(
    host: McpHost, config: ServerConfig, host_home: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    executor = executor_for(host, config)
    assert run(executor, "t__noisy", {})["data"] == {"result": "made some noise"}
    # The stderr reader and the SDK's notification check run on the loop: both have run once the
    # log holds what each of them writes.
    log = log_path(host_home, "t")
    deadline = time.monotonic() + 30
    while not all(part in log.read_text() for part in ("test server: noise", "Failed to validate notification")):
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    out, err = capfd.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "Traceback" not in out + err
    text = log.read_text()
    assert "\x1b" not in text and "\x07" not in text
    assert "noise \\x1b]52;c;cHduZWQ=\\x07" in text  # the server's stderr, shown escaped
    assert "Failed to validate notification" in text  # the SDK's own record, sanitised too


def test_an_approved_write_whose_server_ends_mid_call_may_have_taken_effect(
    host: McpHost, config: ServerConfig, notes: Path
) -> None:
    # The module's server `t` ends: a test after this one starts it again, as a call after a crash does.
    def approve(request: ApprovalRequest) -> bool:
        return True

    executor = executor_for(host, config, approve=approve)
    result = run(executor, "t__exit_midway", {"text": "written"})
    assert result["error"]["kind"] == "unavailable"
    assert "it may have taken effect" in result["error"]["message"]
    assert result["error"]["retryable"] is False
    assert "Do not retry" in result["error"]["hint"]
    assert notes.read_text() == "written\n"
