"""`atlas ask --deadline`: one `QuestionDeadline`, made when the session opens once its data is ready, is
the one its question's turn is bounded by."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from atlas.conversation.loop import TurnSettings
from atlas.executor.executor import ToolExecutor
from atlas.executor.turn import Turn
from atlas.protocol.deadline import QuestionDeadline
from atlas.runtime import session as sessions
from atlas.runtime.session import SessionOptions
from atlas.ui.ask_screen import AskScreen


def test_the_deadline_starts_after_the_data_is_ready_and_bounds_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATLAS_HOME", str(tmp_path / "home"))
    ready_dataset, ready_at = sessions.ready_dataset, []

    def ready(*args: Any, **kwargs: Any) -> Any:
        project = ready_dataset(*args, **kwargs)
        ready_at.append(time.monotonic())
        return project

    monkeypatch.setattr(sessions, "ready_dataset", ready)
    new_turn, turned = ToolExecutor.new_turn, []

    def recorded(self: ToolExecutor, number: int, *, deadline: QuestionDeadline | None = None) -> Turn:
        turned.append(deadline)
        return new_turn(self, number, deadline=deadline)

    monkeypatch.setattr(ToolExecutor, "new_turn", recorded)
    session = sessions.open_session(SessionOptions(model="offline"), deadline_s=30.0)
    try:
        assert session.deadline is not None and session.deadline.seconds == 30.0
        assert session.deadline.at >= ready_at[0] + 30.0  # the data's build is not the question's time
        assert session.ask("Summarize issue #41.", TurnSettings(), AskScreen(drawn=False)) == 0
    finally:
        session.close()
    assert turned == [session.deadline]
