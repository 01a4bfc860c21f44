"""`atlas ask` and `atlas models` against a Chat Completions server (llmock on loopback), as a user runs them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from llmock.scenarios import Reply
from llmock.scenarios import ToolCall as MockCall

from tests.llm.canned import Canned, chat_stream
from tests.support.run import (
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    spawn_atlas,
    tracker_records,
)

QUESTION = "Label #92 as a bug."


def chat_env(home: Path, llmock: Any, **extra: str) -> dict[str, str]:
    """A local server: a base URL and no key at all, as with llama.cpp or Ollama."""
    return atlas_env(home, ATLAS_API="chat", ATLAS_BASE_URL=llmock.base_url("openai"), **extra)


def test_ask_json_with_the_chat_api(tmp_path: Path, llmock: Any) -> None:
    llmock.add(Reply(tool_calls=(MockCall("get_issue", {"issue_id": 41}), MockCall("get_issue", {"issue_id": 87}))))
    llmock.reply("#41 and #87 both lose leases.")
    run = invoke("ask", "--json", "-m", "local-7b", "Compare #41 and #87", env=chat_env(tmp_path, llmock))
    assert run.code == 0, run
    answer = json.loads(run.stdout)
    assert answer["answer"] == "#41 and #87 both lose leases." and answer["model"] == "local-7b"
    assert [(c["name"], c["arguments"], c["kind"]) for c in answer["calls"]] == [
        ("get_issue", {"issue_id": 41}, "ok"),
        ("get_issue", {"issue_id": 87}, "ok"),
    ]
    assert answer["usage"]["input_tokens"] > 0 and answer["cost_usd"] == 0  # a local server costs nothing
    assert all(record.path == "/v1/chat/completions" for record in llmock.requests)


def test_prices_set_for_the_model_are_charged(tmp_path: Path, llmock: Any) -> None:
    llmock.reply("Priced.")
    env = chat_env(tmp_path, llmock, ATLAS_PRICES="other=9/9,local-7b=10000/0")
    answer = json.loads(invoke("ask", "--json", "-m", "local-7b", "q", env=env).stdout)
    assert answer["usage"]["input_tokens"] > 0  # the highest price allowed: a cent per input token
    assert abs(answer["cost_usd"] - answer["usage"]["input_tokens"] / 100) < 1e-9


def test_live_rows_and_an_approval_on_a_terminal(tmp_path: Path, llmock: Any) -> None:
    llmock.call_tool("add_label", {"issue_id": 92, "label": "type:bug"})
    llmock.reply("Labelled #92 type:bug.")
    env = chat_env(tmp_path, llmock)
    child = spawn_atlas("ask", "--api", "chat", "-m", "local-7b", QUESTION, env={**env, "ATLAS_API": ""})
    screen = io.BytesIO()
    child.logfile_read = screen
    child.expect(rb"\? \[y/N\] ")
    child.send(b"y\r")
    child.expect(b"Labelled #92 type:bug.")
    code, _ = finish(child)
    assert code == 0
    shown = screen.getvalue()
    assert shown.index(b"add_label") < shown.index(b"Labelled #92 type:bug.")  # the live row came first
    assert [(r["action"], r["issue_id"], r["label"]) for r in tracker_records(env)] == [("add_label", 92, "type:bug")]


def test_an_unknown_api_is_one_line(tmp_path: Path) -> None:
    run = invoke("ask", "--api", "grpc", "-m", "m", "q", env=atlas_env(tmp_path))
    assert run.code != 0 and "the API must be responses or chat, got 'grpc'" in run.stderr
    assert_no_traceback(run)


def test_unreported_usage_is_said_not_zero(tmp_path: Path) -> None:
    stream = chat_stream({"delta": {"content": "Answered."}}, {"finish_reason": "stop"})
    with Canned(stream) as server:
        env = atlas_env(tmp_path, ATLAS_API="chat", ATLAS_BASE_URL=server.url, ATLAS_PRICE_IN="1")
        shown = invoke("ask", "-m", "m", "q", env=env)
        as_json = json.loads(invoke("ask", "--json", "-m", "m", "q", env=env).stdout)
    assert shown.code == 0 and "Answered." in shown.stdout
    # The footer, on a pipe, is on stderr.
    assert "tokens not reported by the server" in shown.stderr and "cost unknown" in shown.stderr
    assert as_json["usage"] == {"input_tokens": None, "output_tokens": None} and as_json["cost_usd"] is None


def test_models_lists_what_the_server_serves(tmp_path: Path, llmock: Any) -> None:
    env = chat_env(tmp_path, llmock)
    table = invoke("models", env=env)
    assert table.code == 0, table
    assert "model" in table.stdout and "gpt-4o-mini" in table.stdout
    rows = [json.loads(line) for line in invoke("models", "--json", env=env).stdout.splitlines()]
    assert {"id": "gpt-4o", "owned_by": "llmock", "created": 1677610602} in rows


def test_models_from_a_server_that_does_not_list_them(tmp_path: Path) -> None:
    with Canned(b'{"detail": "Not Found"}', status=404, content_type="application/json") as server:
        run = invoke("models", env=atlas_env(tmp_path, ATLAS_BASE_URL=server.url))
    assert run.code != 0 and "does not list its models (404 on /models)" in run.stderr
    assert "--model" in run.stderr and "\n" not in run.stderr.strip()


def test_models_from_a_server_that_lists_garbage(tmp_path: Path) -> None:
    body = json.dumps({"object": "list", "data": [{"id": "ok-model\x1b[31m"}, {"id": 7}, "x", {"no": "id"}]})
    with Canned(body.encode(), content_type="application/json") as server:
        run = invoke("models", "--json", env=atlas_env(tmp_path, ATLAS_BASE_URL=server.url))
    assert_no_traceback(run)
    assert run.code == 0, run
    assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == ["ok-model\x1b[31m"]
    assert "\x1b" not in run.stdout  # escaped in the JSON, inert on a terminal


def test_models_without_a_key_or_server_says_what_to_do(tmp_path: Path) -> None:
    run = invoke("models", env=atlas_env(tmp_path))
    assert run.code != 0 and "set OPENAI_API_KEY" in run.stderr


def test_chat_says_how_many_requests_went_unreported(tmp_path: Path) -> None:
    stream = chat_stream({"delta": {"content": "Answered."}}, {"finish_reason": "stop"})
    with Canned(stream) as server:
        env = atlas_env(tmp_path, ATLAS_BASE_URL=server.url)
        run = invoke("chat", "--api", "chat", "-m", "m", env=env, stdin=b"first\nsecond\n/cost\n")
    assert run.code == 0, run
    assert "2 turns · 0 → 0 tokens · $0.0000 (and 2 requests the server did not report)" in run.stdout
