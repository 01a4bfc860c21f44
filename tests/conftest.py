"""Every test gets its own state folder and no API key: nothing reaches a real service."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOT_COVERED = "NOT COVERED on this machine:"
"""Starts the reason of a skip that leaves a promise untested; such skips are listed at the end of every run."""


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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
