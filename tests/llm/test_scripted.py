"""Replay scripts: the documented format played back, and every way a script can be wrong."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from atlas.foundation.errors import ConfigError, ModelAuthError, ScriptError
from atlas.llm.scripted import ScriptedModel
from atlas.protocol.events import Listener
from atlas.protocol.messages import ModelTurn, ToolCall, Usage
from atlas.runtime.session import resolve
from tests.support.heard import Heard

DOCUMENTED_EXAMPLE = {
    "turns": [
        {
            "calls": [
                {"name": "get_issue", "arguments": {"issue_id": 41}},
                {"name": "get_doc_section", "arguments": {"doc_id": "error-codes", "heading": "ORB-1101"}},
            ]
        },
        {"text": "Final answer in Markdown."},
    ]
}


def request(model: ScriptedModel, events: Listener | None = None) -> ModelTurn:
    return asyncio.run(model.respond("instructions", [{"role": "user", "content": "q"}], (), events=events))


def write(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "script.json"
    path.write_text(content, encoding="utf-8")
    return path


def test_the_design_example_replays_turn_by_turn(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(DOCUMENTED_EXAMPLE))
    model = resolve(f"replay:{path}")
    assert isinstance(model, ScriptedModel) and model.name == f"replay:{path}"
    first = request(model)
    assert first.calls == [
        ToolCall("get_issue", '{"issue_id": 41}', "call_1_1"),
        ToolCall("get_doc_section", '{"doc_id": "error-codes", "heading": "ORB-1101"}', "call_1_2"),
    ]
    assert not first.is_final and first.usage == Usage()
    heard = Heard()
    second = request(model, events=heard)
    assert second.is_final and second.text == "Final answer in Markdown." == "".join(heard.texts())
    model.assert_consumed()


def test_a_script_that_runs_out_says_which_request(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps({"turns": [{"text": "only one"}]}))
    model = ScriptedModel.from_file(path)
    request(model)
    with pytest.raises(ScriptError, match=f"^replay script {path} has no turn left for request 2$"):
        request(model)


def test_call_ids_usage_and_raw_arguments_are_kept() -> None:
    model = ScriptedModel(
        [
            {
                "calls": [{"name": "get_issue", "arguments": '{"issue_id": 4', "call_id": "call_abc"}],
                "usage": {"input_tokens": 12, "output_tokens": 3},
            }
        ]
    )
    turn = request(model)
    assert turn.calls == [ToolCall("get_issue", '{"issue_id": 4', "call_abc")]
    assert turn.usage == Usage(12, 3)
    assert model.requests[0].items == [{"role": "user", "content": "q"}]


def test_assert_consumed_notices_unplayed_turns() -> None:
    model = ScriptedModel([{"text": "a"}, {"text": "b"}])
    request(model)
    with pytest.raises(AssertionError, match="1 scripted turn"):
        model.assert_consumed()
    model.enqueue({"text": "c"})
    assert model.remaining == 2


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        ("[]", 'is malformed: expected an object with a "turns" list'),
        ('{"turns": []}', "is malformed: turns: List should have at least 1 item"),
        ('{"turns": [{}]}', "is malformed: turns.0: Value error, a turn needs 'text' or 'calls'"),
        ('{"turns": [{"calls": [{"arguments": {}}]}]}', "is malformed: turns.0.calls.0.name: Field required"),
        ('{"turns": [{"calls": [{"name": "x", "arguments": 5}]}]}', "is malformed: turns.0.calls.0.arguments"),
        ('{"turns": [{"text": "a", "usage": {"input_tokens": -1}}]}', "is malformed: turns.0.usage.input_tokens"),
    ],
)
def test_a_malformed_script_names_the_file_and_the_problem(tmp_path: Path, content: str, problem: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(ScriptError) as caught:
        resolve(f"replay:{path}")
    message = str(caught.value)
    assert message.startswith(f"replay script {path} {problem}")
    assert "\n" not in message


def test_a_missing_script_and_an_empty_path(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="does not exist"):
        resolve(f"replay:{tmp_path / 'nope.json'}")
    with pytest.raises(ConfigError, match="needs the path"):
        resolve("replay:")
    with pytest.raises(ConfigError, match="empty"):
        resolve("  ")


def test_resolve_routes_each_kind_of_name(tmp_path: Path) -> None:
    assert resolve("offline").name == "offline"
    path = write(tmp_path, json.dumps(DOCUMENTED_EXAMPLE))
    assert resolve(f" replay:{path} ").name == f"replay:{path}"
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        resolve("gpt-6-luna")  # an OpenAI model, and the test environment has no key
