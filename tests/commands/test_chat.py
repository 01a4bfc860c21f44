"""`atlas chat` on a real pseudo-terminal, with the real openai SDK talking to llmock on loopback."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pexpect

from tests.ui.test_terminal import GAP, terminal_env

PROMPT = "atlas›"


def spawn_chat(*args: str) -> pexpect.spawn:
    # No cursor-position requests: nobody on this pseudo-terminal would answer them.
    env = terminal_env(PROMPT_TOOLKIT_NO_CPR="1")
    return pexpect.spawn(
        sys.executable,
        ["-m", "atlas", "chat", *args],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 120),
    )


def inputs(llmock: Any) -> list[list[dict[str, Any]]]:
    return [record.body["input"] for record in llmock.requests if record.path.endswith("/responses")]


def test_context_is_kept_and_ctrl_c_cancels_only_the_turn(llmock: Any) -> None:
    llmock.tool_mode("off")
    llmock.reply("Issue #41 is the nightly rebuild that runs twice.")
    llmock.call_tool("nap", {"seconds": 20})
    llmock.reply("You first asked about issue #41.")
    child = spawn_chat("-m", "gpt-6-luna")
    child.expect_exact(PROMPT)
    child.sendline("What is issue #41 about?")
    child.expect_exact("nightly rebuild that runs twice")
    child.expect_exact(PROMPT)

    child.sendline("Take a nap")
    child.expect(rf"nap\(seconds=20(\.0)?\){GAP}running")
    child.sendintr()
    child.expect_exact("turn cancelled")
    child.expect_exact(PROMPT)

    child.sendline("What did I ask first?")
    child.expect_exact("You first asked about issue #41.")
    child.expect_exact(PROMPT)

    first, _, third = inputs(llmock)
    assert first == [{"role": "user", "content": "What is issue #41 about?"}]
    assert third[:2] == [
        {"role": "user", "content": "What is issue #41 about?"},
        {"role": "assistant", "content": "Issue #41 is the nightly rebuild that runs twice."},
    ]
    calls = [item for item in third if item.get("type") == "function_call"]
    outputs = [item for item in third if item.get("type") == "function_call_output"]
    assert [call["name"] for call in calls] == ["nap"]
    assert [out["call_id"] for out in outputs] == [calls[0]["call_id"]]
    assert json.loads(outputs[0]["output"])["error"]["kind"] == "cancelled"
    assert third[-1] == {"role": "user", "content": "What did I ask first?"}

    # Ctrl-C at the prompt clears the line: "/quit" below (as `/exit`) then arrives alone.
    child.send("half a question")
    child.sendintr()
    child.expect_exact(PROMPT)
    child.sendline("/cost")
    child.expect_exact("3 turns")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(inputs(llmock)) == 3
    history = (Path(os.environ["ATLAS_HOME"]) / "chat_history").read_text(encoding="utf-8")
    assert "What is issue #41 about?" in history and "half a question" not in history


def test_slash_commands_and_ctrl_d(llmock: Any) -> None:
    child = spawn_chat("-m", "offline")
    child.expect_exact(PROMPT)
    child.sendline("/help")
    for command in ("/tools", "/log", "/cost", "/read-only", "/clear", "/exit"):
        child.expect_exact(command)
    child.expect_exact(PROMPT)
    child.sendline("/read-only on")
    child.expect_exact("read-only on")
    child.expect_exact("atlas (read-only)›")
    child.sendline("/tools")
    child.expect_exact("get_issue")
    child.expect_exact("atlas (read-only)›")
    assert "add_label" not in child.before
    child.sendline("show issue #41")
    child.expect_exact("Nightly rebuild runs twice")
    child.expect_exact("atlas (read-only)›")
    child.sendline("/log")
    child.expect(r"get_issue\s+│\s+issue_id=41")
    child.expect_exact("atlas (read-only)›")
    child.send("/rea")  # completion of slash commands: the menu, then Tab takes its entry
    child.expect_exact("on|off: offer side-effect tools or not")
    child.send("\t")
    child.expect_exact("/read-only")
    child.sendline(" off")
    child.expect_exact("read-only off")
    child.expect_exact(PROMPT)
    # Auto-suggestion from history, then Ctrl-R reverse search finds and reruns an earlier question.
    child.send("sho")
    child.expect_exact("w issue #41")
    child.sendintr()
    child.expect_exact(PROMPT)
    search_started = False
    for _ in range(4):
        # A Ctrl-R that arrives before the prompt has put the terminal in raw mode is taken by the
        # line discipline (it means "reprint" there); press it again, as a person would. Each press
        # gets 5 s to show the search: on a loaded machine the redraw alone can take seconds.
        child.sendcontrol("r")
        try:
            child.expect_exact("(reverse-i-search)", timeout=5)
        except pexpect.TIMEOUT:
            continue
        search_started = True
        break
    assert search_started
    child.send("ue #4")
    child.expect_exact("show iss")
    child.send("\r")
    child.send("\r")
    child.expect_exact("Nightly rebuild runs twice")
    child.expect_exact(PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_an_unusable_history_file_costs_only_the_history() -> None:
    (Path(os.environ["ATLAS_HOME"]) / "chat_history").mkdir(parents=True)
    child = spawn_chat("-m", "offline")
    child.expect_exact("chat history")
    child.expect_exact(PROMPT)
    child.sendline("show issue #41")
    child.expect_exact("Nightly rebuild runs twice")
    child.expect_exact(PROMPT)
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in str(child.before) and "Press ENTER" not in str(child.before)
