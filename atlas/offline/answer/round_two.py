"""The part of the offline answer that round two wrote: what each condition decided, and what it did."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from atlas.offline.answer.issue_view import issue_markdown
from atlas.offline.answer.render import action_section, failure, issue_section, not_offered
from atlas.offline.answer.results import result_section
from atlas.offline.answer.side_by_side import side_by_side
from atlas.offline.plan import Plan, PlannedCall, codes_in
from atlas.offline.readings import ToolReading, issue_text
from atlas.tools.definition import ToolDefinition


def later_parts(plan: Plan, outcomes: list[ToolReading], tools: Sequence[ToolDefinition]) -> list[str]:
    """For each round-two step: the sentence on its condition, then each call it made, as round one's are shown."""
    first = {call.key for call in plan.first_calls()}
    by_key = {outcome.call.key: outcome for outcome in outcomes}
    parts: list[str] = []
    for step in plan.later:
        if said := step.said(outcomes):
            parts.append(said)
        if step.compared and len(compared := _read(step.calls(outcomes), by_key)) >= 2:
            parts.append(side_by_side(compared))  # `compare the two oldest open bugs`: the hits set side by side
            continue
        for call in step.calls(outcomes):
            if call.key in first:
                continue
            outcome = by_key.get(call.key)
            if call.name not in {tool.name for tool in tools}:
                parts.append(not_offered(call, call.name != "get_issue"))
            elif outcome is None:
                parts.append(f"Not done: `{call.name}` was not made (the question stopped before it).")
            elif not outcome.ok:
                parts.append(failure(call, outcome.envelope))
            elif call.name == "get_issue" and isinstance(outcome.data, Mapping):
                parts.append(issue_markdown(outcome.data))
            elif call.name == "get_issue":
                parts.append(issue_section(call.arguments["issue_id"], {}, codes_in(issue_text(outcome.data))))
            elif any(tool.name == call.name and tool.side_effect for tool in tools):
                parts.append(action_section(call, outcome.data))
            else:
                parts.append(result_section(call, outcome.data))
    return parts


def _read(calls: Sequence[PlannedCall], by_key: Mapping[str, ToolReading]) -> list[tuple[int, Mapping[str, Any]]]:
    """The issues these reads returned, in their order."""
    found = [(call, by_key.get(call.key)) for call in calls if call.name == "get_issue"]
    return [
        (call.arguments["issue_id"], outcome.data)
        for call, outcome in found
        if outcome is not None and outcome.ok and isinstance(outcome.data, Mapping)
    ]


def unplanned_parts(plan: Plan, outcomes: list[ToolReading]) -> list[str]:
    """The results of calls this turn made that no part above showed: never dropped in silence."""
    shown = {call.key for call in plan.first_calls()} | {c.key for step in plan.later for c in step.calls(outcomes)}
    if plan.explain:  # the codes the issues cite, shown after them
        shown |= {outcome.call.key for outcome in outcomes if outcome.call.name == "get_doc_section"}
    return [
        result_section(outcome.call, outcome.data) if outcome.ok else failure(outcome.call, outcome.envelope)
        for outcome in outcomes
        if outcome.call.key not in shown
    ]
