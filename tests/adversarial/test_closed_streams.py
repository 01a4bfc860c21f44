"""Commands started with standard input closed (no descriptor 0, so Python gives them no stream):
each says what it cannot do in one line, or ends as it would at the end of its input."""

from __future__ import annotations

from pathlib import Path

from tests.support.run import assert_no_traceback, atlas_env, run_atlas


def test_a_question_from_a_closed_standard_input_is_named_as_empty(tmp_path: Path) -> None:
    asked = run_atlas("ask", "-", env=atlas_env(tmp_path / "home"), closed=[0])
    assert asked.code == 2, asked
    assert_no_traceback(asked)
    assert asked.stderr.strip() == "atlas: error: the question is empty (standard input is closed)"


def test_a_chat_on_a_closed_standard_input_ends_as_at_its_end(tmp_path: Path) -> None:
    chat = run_atlas("chat", env=atlas_env(tmp_path / "home"), closed=[0])
    assert chat.code == 0, chat
    assert_no_traceback(chat)
    assert "0 turns" in chat.stdout and "unexpected" not in chat.stderr


def test_mcp_serve_without_its_standard_input_says_so(tmp_path: Path) -> None:
    served = run_atlas("mcp", "serve", env=atlas_env(tmp_path / "home"), closed=[0])
    assert served.code == 2, served
    assert_no_traceback(served)
    assert served.stderr.strip() == (
        "atlas: error: atlas mcp serve speaks MCP on standard input and output, and one of them is closed"
    )
