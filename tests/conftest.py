"""Every test gets its own state folder and no API key: nothing reaches a real service."""

from __future__ import annotations

from pathlib import Path

import pytest


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
    monkeypatch.setenv("NO_COLOR", "1")
    return home
