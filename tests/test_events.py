"""The session's one channel: fan-out in subscription order, a broken listener costs only itself, and
producers skip the events nobody follows."""

from __future__ import annotations

import asyncio
from pathlib import Path

from atlas.calllog import CallLog
from atlas.conversation.loop import run_turn
from atlas.executor.executor import ToolExecutor
from atlas.llm.scripted import ScriptedModel
from atlas.protocol.events import (
    Asking,
    BatchEnded,
    CallEvent,
    Events,
    Phase,
    RoundStarted,
    SessionEvent,
    TextDelta,
)
from atlas.runtime.session import session_events
from tests.support.executor_fakes import Recorder, call, kind_of, registry, sleep_tool, spec
from tests.support.heard import Heard


def broken(event: SessionEvent) -> None:
    raise RuntimeError("display crashed")


class EndsOnly(Heard):
    ends_only = True


def test_each_event_reaches_every_listener_in_the_order_they_subscribed() -> None:
    order: list[tuple[str, SessionEvent]] = []
    events = Events(lambda event: order.append(("first", event)))
    events.subscribe(lambda event: order.append(("second", event)))
    events(TextDelta("a"))
    events(RoundStarted(1))
    assert order == [
        ("first", TextDelta("a")),
        ("second", TextDelta("a")),
        ("first", RoundStarted(1)),
        ("second", RoundStarted(1)),
    ]


def test_a_raising_listener_costs_only_itself_the_event() -> None:
    before, after = Heard(), Heard()
    events = Events(before, broken, after)
    asking = Asking("m", 1)
    events(asking)
    events(BatchEnded(2))
    assert before.events == after.events == [asking, BatchEnded(2)]


def test_a_channel_says_who_listens_and_who_follows_every_step() -> None:
    assert not Events().listening and not Events().following
    ends = Events(EndsOnly())
    assert ends.listening and not ends.following
    assert not Events(ends).following  # a channel fed by another follows what its own listeners follow
    ends.subscribe(Heard())
    assert ends.following and Events(ends).following
    channel = Events()
    assert Events.of(channel) is channel
    assert not Events.of(None).listening
    heard = Heard()
    Events.of(heard)(TextDelta("x"))
    assert heard.texts() == ["x"]


def test_a_raising_listener_breaks_no_tool_call_and_the_others_hear_everything() -> None:
    heard = Heard()
    executor = ToolExecutor(registry(spec("sleep", sleep_tool)), events=Events(broken, heard))
    outputs = asyncio.run(executor.run_all([call("sleep", "c1"), call("sleep", "c2")], turn=executor.new_turn(3)))
    assert [kind_of(output) for output in outputs] == ["ok", "ok"]
    phases = [(event.call_id, event.phase) for event in heard.of(CallEvent)]
    for call_id in ("c1", "c2"):
        assert [phase for seen, phase in phases if seen == call_id] == [Phase.QUEUED, Phase.STARTED, Phase.FINISHED]
    assert heard.events[-1] == BatchEnded(3) and heard.of(BatchEnded) == [BatchEnded(3)]


def test_when_only_ends_are_wanted_the_steps_between_are_not_built() -> None:
    ends = EndsOnly()
    executor = ToolExecutor(registry(spec("sleep", sleep_tool)), events=Events(ends))
    asyncio.run(executor.run_all([call("sleep", "c1")], turn=executor.new_turn(2)))
    finished = ends.of(CallEvent)
    assert [event.phase for event in finished] == [Phase.FINISHED]
    assert finished[0].record is executor.log[0] and finished[0].turn == 2
    assert ends.events[-1] == BatchEnded(2)


def test_a_raising_listener_breaks_no_model_request() -> None:
    heard = Heard()
    model = ScriptedModel([{"calls": [{"name": "sleep", "arguments": {}}]}, {"text": "Done."}])
    executor = ToolExecutor(registry(spec("sleep", sleep_tool)))
    result = asyncio.run(run_turn("q", [], model=model, executor=executor, session="s", events=Events(broken, heard)))
    assert result.answer == "Done." and heard.texts() == ["Done."]
    assert heard.of(RoundStarted) == [RoundStarted(1)]


def test_the_session_logs_a_decided_call_before_anything_shows_that_it_ended(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    logged_when_shown: list[list[str]] = []

    def shown(event: SessionEvent) -> None:
        if isinstance(event, CallEvent) and event.phase is Phase.FINISHED:
            logged_when_shown.append([row["call_id"] for row in log.calls()])

    events = session_events(log, "s", None, shown)
    executor = ToolExecutor(
        registry(spec("write", Recorder(), side_effect=True)), events=events, approve=lambda request: True
    )
    outputs = asyncio.run(executor.run_all([call("write", "w1")]))
    assert kind_of(outputs[0]) == "ok"
    assert logged_when_shown == [["w1"]]
    log.close()
