"""The chat prompt's parts: the history file, slash-command completion, and the line readers.

prompt_toolkit lives here; the chat itself (`atlas.commands.chat`) uses these and nothing in
`ui/` imports a command.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import History
from rich.console import Console
from rich.text import Text

from atlas.foundation import statefiles
from atlas.foundation.notices import warning_line
from atlas.foundation.sanitize import clean_line
from atlas.ui.tty_modes import guard_signals

HISTORY_FILE = "chat_history"
COMMANDS: dict[str, str] = {
    "/help": "show these commands",
    "/tools": "the tools the model may call now",
    "/log": "the calls of this session",
    "/cost": "tokens and cost of this session",
    "/model": "NAME: ask the next questions to another model (offline, replay:PATH, ...)",
    "/read-only": "on|off: offer side-effect tools or not",
    "/clear": "forget the conversation so far",
    "/exit": "leave (/quit and Ctrl-D work too)",
}


class ChatHistory(History):
    """The prompt's history file in the state folder; one that cannot be used costs only the history.

    The file keeps prompt_toolkit's FileHistory format (`# date`, then the entry's lines each after
    `+`), but is opened through `atlas.foundation.statefiles`: a link planted in its place is never followed.
    """

    def __init__(self, path: Path, notices: Console) -> None:
        super().__init__()
        self.path = path
        self.notices = notices
        self.usable = True

    def check(self) -> None:
        """Say now, before the first prompt, when the file can be neither read nor appended to."""
        try:
            os.close(statefiles.open_fd(self.path, os.O_RDWR | os.O_APPEND, create=True))
        except OSError as exc:
            self._give_up(exc)

    def load_history_strings(self) -> Iterable[str]:
        if not self.usable:
            return []
        try:
            raw = statefiles.read_bytes(self.path) or b""
        except OSError as exc:
            self._give_up(exc)
            return []
        return reversed(_entries(raw.decode("utf-8", errors="replace")))

    def store_string(self, string: str) -> None:
        if not self.usable:
            return
        entry = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in string.split("\n"))
        try:
            fd = statefiles.open_fd(self.path, os.O_WRONLY | os.O_APPEND, create=True)
            try:
                statefiles.write_all(fd, entry.encode("utf-8", errors="replace"))
            finally:
                os.close(fd)
        except OSError as exc:
            self._give_up(exc)

    def _give_up(self, exc: OSError) -> None:
        if self.usable:
            self.usable = False
            why = f"{clean_line(self.path)} cannot be used ({clean_line(exc.strerror or exc)})"
            self.notices.print(Text(warning_line(f"the chat history {why}; this chat keeps none"), style="yellow"))


def _entries(text: str) -> list[str]:
    """The history's entries, oldest first: each is a run of `+` lines."""
    entries: list[str] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        if line.startswith("+"):
            current = [] if current is None else current
            current.append(line[1:])
        elif current is not None:
            entries.append("\n".join(current))
            current = None
    if current is not None:
        entries.append("\n".join(current))
    return entries


class SlashCompleter(Completer):
    """Completes slash commands, and `on`/`off` after `/read-only`."""

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor.lstrip()
        if not text.startswith("/"):
            return
        if text.startswith("/read-only "):
            word = text[len("/read-only ") :]
            for choice in ("on", "off"):
                if choice.startswith(word):
                    yield Completion(choice, start_position=-len(word))
            return
        if " " in text:
            return
        for command, meaning in COMMANDS.items():
            if command.startswith(text):
                yield Completion(command, start_position=-len(text), display_meta=meaning)


LineReader = Callable[[asyncio.AbstractEventLoop], str]
"""Reads the chat's next line, running the prompt on the chat's event loop."""


def terminal_reader(home: Path, prompt_text: Callable[[], str], notices: Console) -> LineReader:
    """The prompt: history in the state folder, Ctrl-R search, suggestions, slash completion."""
    # The prompt puts the terminal in raw mode; SIGTERM or SIGHUP must not leave it that way.
    guard_signals(sys.stdin.fileno())
    history = ChatHistory(home / HISTORY_FILE, notices)
    history.check()
    session: PromptSession[str] = PromptSession(
        history=history,
        auto_suggest=AutoSuggestFromHistory(),
        completer=SlashCompleter(),
        complete_while_typing=True,
    )

    def read_line(loop: asyncio.AbstractEventLoop) -> str:
        return loop.run_until_complete(session.prompt_async(prompt_text()))

    return read_line


def piped_reader(console: Console, prompt_text: Callable[[], str]) -> LineReader:
    """Questions from a pipe or a file, one a line: no prompt, no line editing."""

    def read_line(loop: asyncio.AbstractEventLoop) -> str:
        if sys.stdin is None:  # a closed standard input has nothing to read: the chat ends as at EOF
            raise EOFError
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            raise EOFError from None  # nobody types into a pipe: Ctrl-C ends the chat
        if not line:
            raise EOFError
        # Echoed after the prompt, so the transcript reads like the conversation it was.
        console.print(Text(prompt_text() + clean_line(line.rstrip("\n"))))
        return line

    return read_line
