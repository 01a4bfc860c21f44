"""The MCP benchmark's pieces work on a few calls; nothing here judges speed."""

from __future__ import annotations

import pytest

from bench import mcp


# Nothing here is timed, so it runs beside other tests (it is not `serial`); the servers it starts
# get the patient start bound, like those of every test that does not time a start.
@pytest.mark.usefixtures("patient_start")
def test_the_mcp_group_measures_both_directions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp, "CALLS", 3)
    monkeypatch.setattr(mcp, "ROUNDS", 1)
    figures = mcp.run()
    assert [figure.name for figure in figures] == [
        "MCP call through Atlas / direct SDK call",
        "get_issue through atlas mcp serve / through the executor",
    ]
    for figure in figures:
        assert figure.values["measured_s"] > 0 and figure.values["baseline_s"] > 0
        assert " ms vs " in figure.measured
