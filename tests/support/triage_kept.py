"""What triage keeps in the state folder, and a project made to count as large, for the tests of readying triage
when the data changes (`atlas/triage/readiness.py`): by an import (`tests/triage`) or a sync (`tests/github`)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any project counts as large: a call would neither fit the model nor build the index within itself."""
    import atlas.triage.tools

    monkeypatch.setattr(atlas.triage.tools, "FIT_IN_CALL_MAX", 10)
    monkeypatch.setattr(atlas.triage.tools, "INDEX_IN_CALL_MAX", 10)


def kept_files(home: Path) -> dict[str, int]:
    """What triage keeps in the state folder (models, index, verdicts), each with when it was written."""
    return {path.name: path.stat().st_mtime_ns for path in (home / "triage").glob("*-*.*")}
