"""The tool loop with a scripted model and the real executor: rounds, failures fed back, history."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from atlas.calllog import CallLog, CallLogWriter
from atlas.conversation.loop import (
    ELIDED_OUTPUT,
    HISTORY_BUDGET_CHARS,
    INSTRUCTIONS,
    TurnSettings,
    bound_history,
    dated,
    run_turn,
)
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import ConfigError
from atlas.llm.scripted import ScriptedModel
from atlas.protocol.events import RoundStarted
from atlas.runtime.session import record_turn
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from tests.support.heard import Heard


class KeyArgs(BaseModel):
    key: str


class SizeArgs(BaseModel):
    size: int


class NoteArgs(BaseModel):
    text: str


class Concurrency:
    """Counts how many tool calls run at the same moment."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def make_registry(concurrency: Concurrency | None = None, notes: list[str] | None = None) -> Registry:
    def lookup(args: KeyArgs, ctx: ToolContext) -> dict[str, str]:
        if concurrency is not None:
            concurrency.enter()
            time.sleep(0.15)
            concurrency.leave()
        return {"key": args.key, "value": args.key.upper()}

    def bulky(args: SizeArgs, ctx: ToolContext) -> dict[str, str]:
        return {"text": "x" * args.size}

    def slow(args: KeyArgs, ctx: ToolContext) -> str:
        time.sleep(1.0)
        return args.key

    def add_note(args: NoteArgs, ctx: ToolContext) -> str:
        if notes is not None:
            notes.append(args.text)
        return "noted"

    return Registry(
        [
            ToolSpec("lookup", lookup, KeyArgs, "Look a key up."),
            ToolSpec("bulky", bulky, SizeArgs, "Return a lot of text."),
            ToolSpec("slow", slow, KeyArgs, "Take a second."),
            ToolSpec(
                "add_note",
                add_note,
                NoteArgs,
                "Add a note (a side effect).",
                side_effect=True,
                idempotent=False,
                preview=lambda args, ctx: f"add note {args.text!r}",
            ),
        ]
    )


def make_executor(registry: Registry | None = None, **options: Any) -> ToolExecutor:
    return ToolExecutor(registry or make_registry(), timeout_s=3.0, session="s1", **options)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def outputs_of(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["call_id"]: json.loads(item["output"]) for item in items if item.get("type") == "function_call_output"}


def assert_valid(items: list[dict[str, Any]]) -> None:
    """Every function_call has exactly one output after it, and no output lacks its call."""
    seen_calls: list[str] = []
    answered: list[str] = []
    for item in items:
        if item.get("type") == "function_call":
            seen_calls.append(item["call_id"])
        elif item.get("type") == "function_call_output":
            assert item["call_id"] in seen_calls, f"output without its call: {item['call_id']}"
            answered.append(item["call_id"])
    assert sorted(seen_calls) == sorted(answered)
    assert len(set(answered)) == len(answered)


def test_a_plain_answer_takes_one_round_and_is_streamed() -> None:
    model = ScriptedModel([{"text": "Hello **maintainer**.", "usage": {"input_tokens": 120, "output_tokens": 8}}])
    history: list[dict[str, Any]] = []
    heard = Heard()
    result = asyncio.run(run_turn("hi", history, model=model, executor=make_executor(), session="s1", events=heard))
    assert result.answer == "Hello **maintainer**." == "".join(heard.texts())
    assert (result.rounds, result.finished, result.calls) == (1, True, [])
    assert history == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello **maintainer**."}]
    assert model.requests[0].instructions == dated(INSTRUCTIONS)
    assert f"Today is {date.today().isoformat()}." in model.requests[0].instructions
    assert model.requests[0].items == [{"role": "user", "content": "hi"}]
    model.assert_consumed()


def test_parallel_calls_run_together_and_their_outputs_reach_the_model(tmp_path: Path) -> None:
    concurrency = Concurrency()
    model = ScriptedModel(
        [
            {
                "calls": [call("lookup", key="a"), call("lookup", key="b")],
                "usage": {"input_tokens": 1000, "output_tokens": 40},
            },
            {"text": "A and B.", "usage": {"input_tokens": 1500, "output_tokens": 60}},
        ]
    )
    heard = Heard()
    history: list[dict[str, Any]] = []
    result = asyncio.run(
        run_turn(
            "a and b?",
            history,
            model=model,
            executor=make_executor(make_registry(concurrency)),
            session="s1",
            events=heard,
        )
    )
    priced = record_turn(CallLog(tmp_path / "log.db"), "a and b?", result, price_in=2.0, price_out=10.0)
    assert concurrency.peak == 2
    assert heard.of(RoundStarted) == [RoundStarted(1)]
    assert result.rounds == 2 and result.finished
    assert [(c.round, c.call_id, c.name, c.kind) for c in result.calls] == [
        (1, "call_1_1", "lookup", "ok"),
        (1, "call_1_2", "lookup", "ok"),
    ]
    assert (result.usage.input_tokens, result.usage.output_tokens) == (2500, 100)
    assert priced.cost_usd == pytest.approx((2500 * 2.0 + 100 * 10.0) / 1_000_000)
    second = model.requests[1]
    assert second.parallel_tool_calls is True
    assert [item.get("type") for item in second.items[1:]] == ["function_call"] * 2 + ["function_call_output"] * 2
    assert outputs_of(second.items)["call_1_2"] == {"ok": True, "data": {"key": "b", "value": "B"}}
    assert_valid(history)
    model.assert_consumed()


def test_without_parallel_the_model_is_told_and_calls_run_one_at_a_time() -> None:
    concurrency = Concurrency()
    model = ScriptedModel([{"calls": [call("lookup", key="a"), call("lookup", key="b")]}, {"text": "done"}])
    result = asyncio.run(
        run_turn(
            "q",
            [],
            model=model,
            executor=make_executor(make_registry(concurrency)),
            session="s1",
            settings=TurnSettings(parallel=False),
        )
    )
    assert concurrency.peak == 1
    assert all(request.parallel_tool_calls is False for request in model.requests)
    assert [c.call_id for c in result.calls] == ["call_1_1", "call_1_2"]


def test_max_rounds_stops_honestly_with_every_call_answered() -> None:
    model = ScriptedModel([{"calls": [call("lookup", key=str(n))]} for n in range(3)])
    history: list[dict[str, Any]] = []
    result = asyncio.run(
        run_turn(
            "loop forever",
            history,
            model=model,
            executor=make_executor(),
            session="s1",
            settings=TurnSettings(max_rounds=3),
        )
    )
    assert not result.finished
    assert result.rounds == 3
    assert result.answer.startswith("Stopped without a final answer")
    assert "3 rounds" in result.answer and "3 tool calls" in result.answer
    assert len(result.calls) == 3
    assert history[-1] == {"role": "assistant", "content": result.answer}
    assert_valid(history)
    model.assert_consumed()


def test_a_round_limit_below_one_is_refused() -> None:
    history: list[dict[str, Any]] = []
    with pytest.raises(ConfigError, match="at least 1"):
        asyncio.run(
            run_turn(
                "q",
                history,
                model=ScriptedModel(),
                executor=make_executor(),
                session="s1",
                settings=TurnSettings(max_rounds=0),
            )
        )
    assert history == []


def test_invalid_json_arguments_come_back_as_bad_args_and_the_model_recovers() -> None:
    model = ScriptedModel(
        [
            {"calls": [{"name": "lookup", "arguments": '{"key": "a'}]},
            {"calls": [call("lookup", key="a")]},
            {"text": "Fixed it: A."},
        ]
    )
    result = asyncio.run(run_turn("q", [], model=model, executor=make_executor(), session="s1"))
    assert [c.kind for c in result.calls] == ["bad_args", "ok"]
    error = outputs_of(model.requests[1].items)["call_1_1"]
    assert error["ok"] is False and error["error"]["kind"] == "bad_args"
    assert result.answer == "Fixed it: A." and result.rounds == 3
    assert result.to_json()["calls"][0]["arguments"] == '{"key": "a'


def test_an_unknown_tool_is_reported_to_the_model() -> None:
    model = ScriptedModel([{"calls": [call("delete_everything", really=True)]}, {"text": "I cannot do that."}])
    result = asyncio.run(run_turn("q", [], model=model, executor=make_executor(), session="s1"))
    assert result.calls[0].kind == "unknown_tool"
    output = outputs_of(model.requests[1].items)["call_1_1"]
    assert output["error"]["kind"] == "unknown_tool"
    assert output["error"]["hint"]


def test_a_denial_flows_back_to_the_model_and_nothing_happens() -> None:
    notes: list[str] = []
    model = ScriptedModel([{"calls": [call("add_note", text="ship it")]}, {"text": "The note was not added."}])
    executor = make_executor(make_registry(notes=notes), approve=lambda request: False)
    result = asyncio.run(run_turn("add a note", [], model=model, executor=executor, session="s1"))
    assert notes == []
    assert result.calls[0].kind == "denied" and result.calls[0].approved is False
    output = outputs_of(model.requests[1].items)["call_1_1"]
    assert output["error"]["kind"] == "denied"
    assert result.finished


def test_an_approved_side_effect_runs() -> None:
    notes: list[str] = []
    model = ScriptedModel([{"calls": [call("add_note", text="ship it")]}, {"text": "Added."}])
    executor = make_executor(make_registry(notes=notes), approve=lambda request: True)
    result = asyncio.run(run_turn("add a note", [], model=model, executor=executor, session="s1"))
    assert notes == ["ship it"] and result.calls[0].kind == "ok"


def test_the_turn_is_recorded_in_the_call_log_and_as_json(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    model = ScriptedModel(
        [
            {"calls": [call("lookup", key="a")], "usage": {"input_tokens": 10, "output_tokens": 2}},
            {"text": "A.", "usage": {"input_tokens": 20, "output_tokens": 3}},
        ]
    )
    executor = make_executor(events=CallLogWriter(log, "s1"))
    result = asyncio.run(run_turn("q", [], model=model, executor=executor, session="s1", turn=executor.new_turn(4)))
    result = record_turn(log, "q", result, price_in=0.10, price_out=0.50)
    log.close()
    with sqlite3.connect(tmp_path / "log.db") as conn:
        rows = conn.execute(
            "SELECT session, turn, question, answer, rounds, input_tokens, output_tokens FROM turns"
        ).fetchall()
    assert rows == [("s1", 4, "q", "A.", 2, 30, 5)]
    data = result.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["calls"] == [
        {
            "round": 1,
            "call_id": "call_1_1",
            "name": "lookup",
            "arguments": {"key": "a"},
            "kind": "ok",
            "ms": result.calls[0].ms,
            "attempts": 1,
        }
    ]
    assert data["usage"] == {"input_tokens": 30, "output_tokens": 5}
    assert {"answer", "model", "session", "rounds", "cost_usd"} <= data.keys()


def test_cancelling_mid_round_leaves_a_valid_history_for_the_next_turn() -> None:
    model = ScriptedModel([{"calls": [call("slow", key="a"), call("lookup", key="b")]}, {"text": "next turn answer"}])
    executor = make_executor()
    history: list[dict[str, Any]] = []

    async def cancel_soon() -> None:
        task = asyncio.create_task(run_turn("q", history, model=model, executor=executor, session="s1"))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_soon())
    assert_valid(history)
    kinds = {call_id: out.get("error", {}).get("kind", "ok") for call_id, out in outputs_of(history).items()}
    assert kinds == {"call_1_1": "cancelled", "call_1_2": "ok"}
    result = asyncio.run(
        run_turn("again", history, model=model, executor=executor, session="s1", turn=executor.new_turn(2))
    )
    assert result.answer == "next turn answer"
    assert_valid(history)


def test_cancelling_one_at_a_time_keeps_the_outputs_of_calls_that_already_ran() -> None:
    notes: list[str] = []
    model = ScriptedModel(
        [{"calls": [call("add_note", text="ship it"), call("slow", key="b"), call("lookup", key="c")]}]
    )
    executor = make_executor(make_registry(notes=notes), approve=lambda request: True)
    history: list[dict[str, Any]] = []

    async def cancel_soon() -> None:
        task = asyncio.create_task(
            run_turn("q", history, model=model, executor=executor, session="s1", settings=TurnSettings(parallel=False))
        )
        await asyncio.sleep(0.4)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_soon())
    assert notes == ["ship it"]
    assert_valid(history)
    outputs = outputs_of(history)
    assert outputs["call_1_1"] == {"ok": True, "data": "noted", "side_effect_done": True}  # it ran, and says so
    assert outputs["call_1_2"]["error"]["kind"] == "cancelled"
    assert outputs["call_1_3"]["error"]["kind"] == "cancelled"


def test_a_model_failure_mid_turn_propagates_and_keeps_history_valid() -> None:
    model = ScriptedModel([{"calls": [call("lookup", key="a")]}])  # runs out in round 2
    history: list[dict[str, Any]] = []
    from atlas.foundation.errors import ScriptError

    with pytest.raises(ScriptError, match="no turn left for request 2"):
        asyncio.run(run_turn("q", history, model=model, executor=make_executor(), session="s1"))
    assert_valid(history)


def bulky_chat(turns: int) -> tuple[ScriptedModel, list[dict[str, Any]]]:
    model = ScriptedModel()
    executor = make_executor()
    history: list[dict[str, Any]] = []

    async def chat() -> None:
        for turn in range(1, turns + 1):
            model.enqueue(
                {"calls": [call("bulky", size=3000), call("lookup", key=str(turn))]},
                {"text": f"answer {turn} " + "y" * 1500},
            )
            await run_turn(
                f"question {turn}", history, model=model, executor=executor, session="s1", turn=executor.new_turn(turn)
            )

    asyncio.run(chat())
    model.assert_consumed()
    return model, history


def test_fifty_turns_of_bulky_results_stay_within_the_budget() -> None:
    model, history = bulky_chat(50)
    # user, 2 calls, 2 outputs, answer: turns no request can include any more were let go
    assert len(history) % 6 == 0 and 6 * 10 <= len(history) < 50 * 6
    assert history[-6] == {"role": "user", "content": "question 50"}
    assert_valid(history)
    marker = json.dumps(ELIDED_OUTPUT)
    for request in model.requests:
        assert len(json.dumps(request.items)) <= HISTORY_BUDGET_CHARS
        assert_valid(request.items)
        assert request.items[0]["role"] == "user"
    last = model.requests[-1].items
    assert last[-1]["type"] == "function_call_output"
    assert outputs_of(last[-2:]) == outputs_of(history[-3:-1])  # the latest round is intact
    assert any(item.get("output") == marker for item in last)
    assert last[-5] == {"role": "user", "content": "question 50"}
    assert last[0]["content"] != "question 1"  # the oldest turns were dropped whole


def test_letting_old_turns_go_changes_no_request(monkeypatch: pytest.MonkeyPatch) -> None:
    trimmed, kept = bulky_chat(40)
    monkeypatch.setattr("atlas.conversation.loop.forget_unsendable", lambda history: 0)
    whole, everything = bulky_chat(40)
    assert len(kept) < len(everything) == 40 * 6
    assert [request.items for request in trimmed.requests] == [request.items for request in whole.requests]


def test_a_long_chat_measures_each_item_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import atlas.conversation.history

    measured: list[int] = []
    real_size = atlas.conversation.history._size
    monkeypatch.setattr(atlas.conversation.history, "_size", lambda item: measured.append(1) or real_size(item))
    bulky_chat(10)
    first_ten = len(measured)
    bulky_chat(60)
    # A turn adds six items, each measured whole and (outputs) elided once: no re-measuring of old ones.
    assert len(measured) - first_ten <= 60 * 10


def test_bound_history_elides_old_outputs_before_dropping_turns() -> None:
    def turn(n: int, size: int) -> list[dict[str, Any]]:
        return [
            {"role": "user", "content": f"q{n}"},
            {"type": "function_call", "name": "bulky", "arguments": "{}", "call_id": f"c{n}"},
            {
                "type": "function_call_output",
                "call_id": f"c{n}",
                "output": json.dumps({"ok": True, "data": "x" * size}),
            },
            {"role": "assistant", "content": f"a{n}"},
        ]

    history = turn(1, 4000) + turn(2, 4000) + turn(3, 100)[:3]
    assert bound_history(history, budget=100_000) == history
    marker = json.dumps(ELIDED_OUTPUT)

    def outputs(items: list[dict[str, Any]]) -> list[str]:
        return [item["output"] for item in items if item.get("type") == "function_call_output"]

    oldest_only = bound_history(history, budget=6000)  # eliding the oldest output is enough
    assert outputs(oldest_only) == [marker, history[6]["output"], history[-1]["output"]]
    both = bound_history(history, budget=1500)
    assert outputs(both) == [marker, marker, history[-1]["output"]]
    assert len(both) == len(history) and len(json.dumps(both)) <= 1500
    assert history[2]["output"] != json.dumps(ELIDED_OUTPUT)  # the conversation itself is untouched
    one_dropped = bound_history(history, budget=700)
    assert one_dropped[0] == {"role": "user", "content": "q2"} and len(json.dumps(one_dropped)) <= 700
    assert_valid(one_dropped)
    only_current = bound_history(history, budget=400)
    assert only_current == history[-3:]
    # The latest round is never elided, even when it alone is over the budget.
    alone = bound_history(turn(1, 4000)[:3], budget=500)
    assert alone == turn(1, 4000)[:3]


def test_a_long_chat_drops_old_turns_before_eliding_this_turns_earlier_results() -> None:
    old_turns: list[dict[str, Any]] = []
    for n in range(45):
        old_turns += [{"role": "user", "content": f"q{n}"}, {"role": "assistant", "content": "a" * 1500}]
    this_turn = [
        {"role": "user", "content": "explain the error in #41"},
        {"type": "function_call", "name": "get_issue", "arguments": "{}", "call_id": "r1"},
        {"type": "function_call_output", "call_id": "r1", "output": json.dumps({"ok": True, "data": "x" * 3000})},
        {"type": "function_call", "name": "get_doc_section", "arguments": "{}", "call_id": "r2"},
        {"type": "function_call_output", "call_id": "r2", "output": json.dumps({"ok": True, "data": "y" * 100})},
    ]
    sent = bound_history(old_turns + this_turn)
    assert len(json.dumps(sent)) <= HISTORY_BUDGET_CHARS
    assert sent[-5:] == this_turn  # round one of this question is still there for round two to read
    assert sent[0]["role"] == "user" and sent[0]["content"] != "q0"
