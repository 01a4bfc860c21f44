"""Signals at the approval question: the terminal is given back as it was, whatever ends the run.

The question turns echo, line editing and signal keys off. SIGTERM and SIGHUP used to end the
process with the terminal left that way (a shell that echoes nothing); in a chat, a turn
cancelled by SIGINT left the question's reader on the terminal, taking keys meant for the prompt.
"""

from __future__ import annotations

import re
import signal
import termios
import time
from pathlib import Path

import pexpect
import pytest

from tests.support.run import atlas_env, logged_calls, spawn_atlas, tracker_records, write_script

PROMPT = re.compile(rb"\? \[y/N\] ")
CHAT_PROMPT = "atlas\u203a".encode()
LABEL = {"calls": [{"name": "add_label", "arguments": {"issue_id": 92, "label": "type:bug"}}]}
MODE_FLAGS = termios.ECHO | termios.ICANON | termios.ISIG


def local_modes(child: pexpect.spawn) -> int:
    """The pseudo-terminal's local modes, read through the master side (they are the slave's)."""
    return int(termios.tcgetattr(child.child_fd)[3])


@pytest.mark.parametrize(
    ("signum", "status"),
    [
        (signal.SIGTERM, ("signal", signal.SIGTERM)),
        (signal.SIGHUP, ("signal", signal.SIGHUP)),
        (signal.SIGINT, ("exit", 130)),
    ],
)
def test_a_signal_at_the_question_gives_the_terminal_back(
    tmp_path: Path, signum: signal.Signals, status: tuple[str, int]
) -> None:
    env = atlas_env(tmp_path / "home")
    model = write_script(tmp_path, [LABEL, {"text": "Labelled."}])
    child = spawn_atlas("ask", "-m", model, "Label #92 as a bug", env=env)
    before = local_modes(child) & MODE_FLAGS
    assert before == MODE_FLAGS
    child.expect(PROMPT)
    assert local_modes(child) & MODE_FLAGS == 0  # the question's own mode: no echo, no line editing
    child.kill(signum)
    child.expect(pexpect.EOF)
    after = local_modes(child) & MODE_FLAGS
    child.close()

    assert after == before, f"echo/icanon/isig left as {after:#o} after {signum.name}"
    ended = ("signal", child.signalstatus) if child.signalstatus is not None else ("exit", child.exitstatus)
    assert ended == status  # the shell still sees 143 / 129 / 130
    assert tracker_records(env) == []
    assert [call["name"] for call in logged_calls(env) if call["approved"]] == []


@pytest.mark.parametrize("answer", [b"n\r", b"y\r", b"\x03"])
def test_an_answered_question_gives_the_terminal_back(tmp_path: Path, answer: bytes) -> None:
    env = atlas_env(tmp_path / "home")
    child = spawn_atlas("ask", "-m", write_script(tmp_path, [LABEL, {"text": "Done."}]), "Label #92", env=env)
    child.expect(PROMPT)
    child.send(answer)
    child.expect(b"Done.")
    child.expect(pexpect.EOF)
    after = local_modes(child) & MODE_FLAGS
    child.close()
    assert after == MODE_FLAGS and child.exitstatus == 0


def chat(tmp_path: Path, turns: list[dict[str, object]]) -> tuple[pexpect.spawn, dict[str, str]]:
    env = atlas_env(tmp_path / "home")
    child = spawn_atlas("chat", "-m", write_script(tmp_path, turns), env={**env, "PROMPT_TOOLKIT_NO_CPR": "1"})
    child.expect(CHAT_PROMPT)
    return child, env


def test_a_turn_cancelled_at_the_question_takes_its_reader_off_the_terminal(tmp_path: Path) -> None:
    """After SIGINT ends the turn, every key typed goes to the prompt: none is lost, none answers a question."""
    child, env = chat(tmp_path, [LABEL, {"text": "Here is the summary."}, {"text": "Nothing else to do."}])
    child.send(b"label #92 as a bug\r")
    child.expect(PROMPT)
    child.kill(signal.SIGINT)
    child.expect(b"turn cancelled")
    child.expect(CHAT_PROMPT)
    child.send(b"summarise #92\r")  # its first letter went to the abandoned question's reader
    child.expect(b"Here is the summary.")
    child.expect(CHAT_PROMPT)
    child.send(b"yes\r")  # and this line was taken as its answer
    child.expect(b"Nothing else to do.")
    child.expect(CHAT_PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()

    assert child.exitstatus == 0
    history = (tmp_path / "home" / "chat_history").read_text(encoding="utf-8")
    assert re.findall(r"^\+(.*)$", history, flags=re.M) == ["label #92 as a bug", "summarise #92", "yes"]
    assert tracker_records(env) == []
    assert [call["kind"] for call in logged_calls(env)] == ["cancelled"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_at_the_chat_prompt_gives_the_terminal_back(tmp_path: Path, signum: signal.Signals) -> None:
    child, _ = chat(tmp_path, [{"text": "unused"}])
    # The prompt may be drawn before its raw mode is set: wait for the mode itself.
    raw_by = time.monotonic() + 15
    while local_modes(child) & (termios.ECHO | termios.ICANON) and time.monotonic() < raw_by:
        time.sleep(0.02)
    assert local_modes(child) & (termios.ECHO | termios.ICANON) == 0
    child.kill(signum)
    child.expect(pexpect.EOF)
    after = local_modes(child) & MODE_FLAGS
    child.close()
    assert after == MODE_FLAGS, f"echo/icanon/isig left as {after:#o} after {signum.name}"
    assert child.signalstatus == signum
