"""Every test gets its own state folder (`atlas_home`) and no API key: nothing reaches a real service.

A test marked `serial` measures wall time: under pytest-xdist it runs with no other test beside it
(`tests/support/serial.py`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.process_state import declare_builtins, fresh_process_state
from tests.support.run import atlas_env
from tests.support.serial import machine_share

NOT_COVERED = "NOT COVERED on this machine:"
"""Starts the reason of a skip that leaves a promise untested; such skips are listed at the end of every run."""


@pytest.fixture(scope="session", autouse=True)
def _builtin_tools() -> None:
    declare_builtins()


@pytest.fixture(autouse=True)
def _fresh_process_state() -> Iterator[None]:
    """The tool catalogue, the warned-once flags and the MCP host as a fresh process has them."""
    with fresh_process_state():
        yield


@pytest.fixture(autouse=True)
def _machine_share(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    # Each worker's base folder sits in the run's own folder, which all the workers share.
    alone = request.node.get_closest_marker("serial") is not None
    with machine_share(tmp_path_factory.getbasetemp().parent, alone=alone):
        yield


@pytest.fixture(autouse=True)
def atlas_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own state folder, in `ATLAS_HOME`; nothing steers Atlas or the SDK from outside."""
    home = tmp_path / "atlas-home"
    monkeypatch.setenv("ATLAS_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for name in ("ATLAS_BASE_URL", "ATLAS_API", "ATLAS_PRICES", "ATLAS_PRICE_IN", "ATLAS_PRICE_OUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.delenv("ORBIT_DATA", raising=False)
    monkeypatch.delenv("ATLAS_TOOL_MODULES", raising=False)
    for name in [name for name in os.environ if name.startswith("OTEL_")]:
        monkeypatch.delenv(name)  # a developer's collector never receives the tests' traces
    monkeypatch.setenv("NO_COLOR", "1")
    return home


@pytest.fixture
def atlas_environ(atlas_home: Path) -> dict[str, str]:
    """The environment of an `atlas` process run by a test (`tests.support.run.atlas_env`)."""
    return atlas_env(atlas_home)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """A skip that leaves a promise untested is named in the summary, not only counted as an `s`."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        _, _, reason = report.longrepr if isinstance(report.longrepr, tuple) else ("", 0, str(report.longrepr))
        if NOT_COVERED in reason:
            reasons.append(f"{report.nodeid}: {reason.removeprefix('Skipped: ')}")
    if reasons:
        terminalreporter.section("promises not tested on this machine", yellow=True, bold=True)
        for line in reasons:
            terminalreporter.write_line(line, yellow=True)
