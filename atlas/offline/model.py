"""The built-in offline planner: a deterministic Model that needs no key and no network.

It reads the latest user message, plans tool calls from the user's words, sends them through
the same executor (same rows, same approvals) as any model, and writes a Markdown answer from
the results. It keeps no state: each request re-reads this turn's items (the calls already
made and their outputs) to decide what is left, so a chat history or a replay works the same.
Call ids read `offline_<turn token>_<round>_<n>`.

Usage is reported as zero tokens: no model ran, and an estimate would be a made-up cost.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from atlas.foundation.config import OFFLINE_MODEL
from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.offline.answer.render import chunks, render
from atlas.offline.answer.round_two import later_parts, unplanned_parts
from atlas.offline.compose import read_question
from atlas.offline.plan import (
    MAX_CITED_CODES,
    Plan,
    PlannedCall,
    code_call,
    codes_in,
)
from atlas.offline.reading.ordinals import with_issue_read, with_ordinals
from atlas.offline.reading.references import last_named, with_references
from atlas.offline.readings import ToolReading, issue_text
from atlas.protocol.events import TextDelta
from atlas.protocol.messages import ModelTurn, ToolCall, Usage

UNREADABLE = {"ok": False, "error": {"kind": "unknown", "message": "the tool's output could not be read", "hint": ""}}
ELIDED = {
    "ok": False,
    "error": {
        "kind": "elided",
        "message": "this result was removed from the conversation to keep it short",
        "hint": "Ask again to see it.",
    },
}


def this_turn(items: Sequence[Mapping[str, Any]]) -> tuple[str, list[str], list[Mapping[str, Any]], str]:
    """The latest user message, the user's earlier messages (ordinals read as the issues they named), this
    turn's items after it, and a turn token.

    The token is a digest of the conversation up to that message: call ids must differ from
    every earlier turn's, because the executor derives a side effect's idempotency key from
    (session, call_id), and a chat's early turns may have been dropped from `items`.
    """
    users = [index for index, item in enumerate(items) if _is_user_message(item)]
    if not users:
        return "", [], list(items), "0" * 8
    last = users[-1]
    prefix = json.dumps(list(items[: last + 1]), sort_keys=True, default=str)
    token = hashlib.sha256(prefix.encode()).hexdigest()[:8]
    # `triage the first one`, then `label it bug`: an earlier message is read with the issue its ordinal named, and
    # one that named an issue by its topic with the issue its answer read
    earlier = [
        with_issue_read(with_ordinals(_text(items[index].get("content")), items[:index]), items[index:following])
        for index, following in pairwise(users)
    ]
    return _text(items[last].get("content")), earlier, list(items[last + 1 :]), token


def _is_user_message(item: Mapping[str, Any]) -> bool:
    return item.get("role") == "user" and item.get("type", "message") == "message"


def _text(content: Any) -> str:
    """A message's text, whether a plain string or a list of Responses-API content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


def _envelope(output: Any) -> Mapping[str, Any]:
    try:
        envelope = json.loads(output) if isinstance(output, str) else output
    except ValueError:
        return UNREADABLE
    if isinstance(envelope, Mapping) and envelope.get("elided") is True:
        return ELIDED  # a long chat's history keeps only a marker for older outputs
    return envelope if isinstance(envelope, Mapping) and "ok" in envelope else UNREADABLE


def outcomes_of(turn: Sequence[Mapping[str, Any]]) -> tuple[list[ToolReading], int]:
    """Calls made this turn with their envelopes, and how many rounds (batches of calls) there were."""
    outputs = {item.get("call_id"): item.get("output") for item in turn if item.get("type") == "function_call_output"}
    outcomes: list[ToolReading] = []
    rounds = 0
    previous_was_call = False
    for item in turn:
        is_call = item.get("type") == "function_call"
        if is_call and not previous_was_call:
            rounds += 1
        previous_was_call = is_call
        if not is_call:
            continue
        try:
            arguments = json.loads(str(item.get("arguments") or "{}"))
        except ValueError:
            continue
        if isinstance(arguments, dict):
            call_id = str(item.get("call_id", ""))
            outcome = ToolReading(
                PlannedCall(str(item.get("name")), arguments), call_id, _envelope(outputs.get(call_id))
            )
            outcomes.append(outcome)
    return outcomes, rounds


class OfflinePlanner(ModelAdapter):
    """A Model that plans from the user's words; deterministic, free, and always available."""

    name = OFFLINE_MODEL

    async def answer(self, request: ModelRequest) -> ModelTurn:
        items, tools = request.items, request.tools
        question, earlier, turn, token = this_turn(items)
        plan = read_question(
            with_references(with_ordinals(question, items), earlier),
            available={tool.name for tool in tools},
            earlier=last_named(earlier),
            previous=earlier,
        )
        outcomes, rounds = outcomes_of(turn)
        pending = next_calls(plan, outcomes, [tool.name for tool in tools])
        if pending:
            batch = pending if request.parallel_tool_calls else pending[:1]
            number = rounds + 1
            calls = [
                ToolCall.make(call.name, call.arguments, f"offline_{token}_{number}_{index}")
                for index, call in enumerate(batch, 1)
            ]
            return ModelTurn(calls=calls, usage=Usage(0, 0))
        text = "\n\n".join(
            part
            for part in [
                render(plan, outcomes, tools),
                *later_parts(plan, outcomes, tools),
                *unplanned_parts(plan, outcomes),
            ]
            if part
        )
        for piece in chunks(text):
            request.emit(TextDelta(piece))
        return ModelTurn(text=text, usage=Usage(0, 0))


def cited_codes(plan: Plan, outcomes: Iterable[ToolReading]) -> list[str]:
    """Codes the question's issues cite, in order, for the explain plan (the one read of tool text)."""
    codes: list[str] = []
    for outcome in outcomes:
        if outcome.call.name == "get_issue" and outcome.ok and outcome.call.arguments.get("issue_id") in plan.issue_ids:
            codes += [code for code in codes_in(issue_text(outcome.data)) if code not in codes]
    return codes


def next_calls(plan: Plan, outcomes: list[ToolReading], available: Iterable[str]) -> list[PlannedCall]:
    """The calls still to make: round one's first, then the codes cited by the issues to explain."""
    tools = set(available)
    made = {outcome.call.key for outcome in outcomes}
    pending = [call for call in plan.first_calls() if call.name in tools and call.key not in made]
    if pending:
        return pending
    follow = [code_call(code) for code in cited_codes(plan, outcomes) if code not in plan.codes] if plan.explain else []
    follow = follow[:MAX_CITED_CODES] + [call for step in plan.later for call in step.calls(outcomes)]
    return [call for call in follow if call.name in tools and call.key not in made]
