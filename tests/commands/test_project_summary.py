"""The project summary's check that a question's search finds issues: the planner's arguments are
validated into the tool's record as the executor validates a call's (days read from their text)."""

from __future__ import annotations

from atlas.commands.project_summary import _finds, _search_of
from atlas.foundation.config import bundled_data_dir
from atlas.tools.registry import ToolContext


def test_a_dated_search_the_planner_reads_is_run_with_its_day() -> None:
    data = bundled_data_dir()
    question = "bugs opened since 2026-01-01"
    assert _search_of(question, data) == {"query": "", "label": "type:bug", "created_since": "2026-01-01"}
    assert _finds(question, data, ToolContext(data=data))
    assert not _finds("bugs opened since 2031-01-01", data, ToolContext(data=data))
