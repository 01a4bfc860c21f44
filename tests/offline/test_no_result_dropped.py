"""Whatever a read tool returned is in the offline answer, shown or summarised: never dropped in silence."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from atlas.offline.answer.quoting import one_line
from atlas.offline.answer.render import SNIPPETS_LEFT_OUT
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext, ToolSpec, strict_arguments
from tests.offline.test_offline import run_to_answer
from tests.support.read_calls import READ_REQUESTS

SHOWN_AS_A_DAY = {"created_at", "ts"}
"""Times shown as their day (`opened on 2025-08-07`)."""
SUMMARISED = {"comment_count", "comments_shown", "n", "threshold", "needs_a_human", "label"}
"""Said in other words: `5 comments`, `needs a human (0.49 < threshold 0.5)`, a proposal's label as the verdict."""
SUMMARISED_BY_TOOL: dict[str, tuple[set[str], str]] = {
    "list_docs": ({"headings"}, "sections)"),  # each doc's sections counted: `(12 sections)`
    "search_issues": ({"snippet"}, SNIPPETS_LEFT_OUT),
    "get_doc_section": ({"title"}, "### error-codes ›"),  # the doc named by its id
    "list_inbox": ({"note"}, "more not shown here: `atlas inbox` lists every one."),
    "plan_triage": ({"tool"}, "add label `"),  # each action said in words
}
"""Per tool, the fields the answer summarises, and the words that say so."""
LONG_TEXT = 100
"""Longer texts (bodies, doc sections, snippets) are checked by their opening words: they may be cut, visibly."""


@pytest.fixture(scope="module")
def tools() -> Registry:
    return load_registry([])


def facts(value: Any, key: str = "", skip: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
    """Each scalar of a result as the answer would write it, with its key."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from facts(item, name, skip)
    elif isinstance(value, list):
        for item in value:
            yield from facts(item, key, skip)
    elif value not in (None, "", True, False) and key not in SUMMARISED | skip:
        if isinstance(value, str) and value.startswith("#"):  # a section's own heading line is its part's title
            value = value.partition("\n")[2]
        text = one_line(value, 10_000).replace("\\|", "|")
        text = text[:10] if key in SHOWN_AS_A_DAY else text
        yield key, text if len(text) <= LONG_TEXT else " ".join(text.split()[:6])


def missing_from(answer: str, data: Any, tool: str = "") -> list[tuple[str, str]]:
    summarised, said = SUMMARISED_BY_TOOL.get(tool, (set(), ""))
    assert said in answer
    flat = " ".join(answer.replace("> ", " ").replace("**", "").split())
    found = facts(data, skip=frozenset(summarised))
    return [(key, fact) for key, fact in found if " ".join(fact.replace("**", "").split()) not in flat]


def test_every_read_tool_of_the_registry_has_a_request_in_words(tools: Registry) -> None:
    assert set(READ_REQUESTS) == {tool.name for tool in tools.definitions() if not tool.side_effect}


@pytest.mark.parametrize("name", sorted(READ_REQUESTS))
@pytest.mark.usefixtures("fitted_atlas_home")  # the triage reads find the run's fitted model, as after a first triage
def test_every_fact_a_read_returned_is_in_the_answer(name: str, tools: Registry) -> None:
    question, arguments = READ_REQUESTS[name]
    rounds, answer = run_to_answer(question, tools)
    assert (name, arguments) in [call for batch in rounds for call in batch]
    spec = tools[name]
    data = spec.fn(strict_arguments(spec.args_model, arguments), ToolContext())
    assert missing_from(answer, data, name) == []


class NoArgs(BaseModel):
    pass


def inventory(args: NoArgs, ctx: ToolContext) -> dict[str, Any]:
    return {"servers": [{"name": "db-1", "load": 0.93, "tags": ["eu", "primary"]}], "checked": "2026-12-05T08:00:00Z"}


def test_a_read_the_planner_has_no_form_for_is_shown_as_its_data() -> None:
    from atlas.offline.answer.results import result_section
    from atlas.offline.plan import PlannedCall

    shown = result_section(PlannedCall("inventory", {}), inventory(NoArgs(), ToolContext()))
    assert missing_from(shown, {"servers": [{"name": "db-1", "load": 0.93, "tags": ["eu", "primary"]}]}) == []
    assert "checked: 2026-12-05T08:00:00Z" in shown and shown.startswith("### `inventory`")
    long = result_section(PlannedCall("inventory", {}), {"rows": [f"row {n} " + "x" * 80 for n in range(100)]})
    assert "row 0" in long and "more characters of `inventory`'s result]" in long  # cut, and said


def test_a_call_the_plan_did_not_make_is_still_shown(tools: Registry) -> None:
    from atlas.protocol.envelope import dumps, envelope_ok
    from atlas.protocol.messages import ToolCall
    from tests.offline.test_offline import respond

    registry = Registry([*tools.values(), ToolSpec("inventory", inventory, NoArgs, "What runs where.")])
    call = ToolCall.make("inventory", {}, "c1")
    output = dumps(envelope_ok(inventory(NoArgs(), ToolContext())))
    items = [
        {"role": "user", "content": "show #41"},
        call.as_item(),
        {"type": "function_call_output", "call_id": "c1", "output": output},
        *[
            item
            for item in [
                ToolCall.make("get_issue", {"issue_id": 41}, "c2").as_item(),
                {"type": "function_call_output", "call_id": "c2", "output": json.dumps({"ok": True, "data": {}})},
            ]
        ],
    ]
    turn = respond(items, registry)
    assert turn.is_final and "db-1" in turn.text and "primary" in turn.text


def test_an_inbox_row_says_its_age_in_days_as_a_person_would() -> None:
    from atlas.offline.answer.results import inbox_section
    from atlas.offline.plan import PlannedCall

    rows = [{"id": n, "title": f"issue {n}", "age_days": n, "idle_days": 0, "reasons": ["new"]} for n in (0, 1, 2)]
    shown = inbox_section(PlannedCall("list_inbox", {}), {"issues": rows, "total": 3})
    assert "#0 issue 0 — 0 days old" in shown and "#1 issue 1 — 1 day old" in shown
    assert "#2 issue 2 — 2 days old" in shown
