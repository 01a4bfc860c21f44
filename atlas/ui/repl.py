"""`atlas chat`: a prompt_toolkit REPL over the same loop, with the conversation kept across turns.

One event loop serves the prompt and the turns. A turn runs as a task that Ctrl-C cancels (its
rows show `cancelled`, the conversation stays valid, the prompt comes back); Ctrl-C at the
prompt clears the line; Ctrl-D or `/exit` leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory
from rich.console import Console
from rich.text import Text

from atlas.commands import error_line
from atlas.commands.runner import close_loop, run_cancellable
from atlas.commands.session import Runtime, open_runtime
from atlas.errors import AtlasError, ConfigError
from atlas.events import ApprovalRequest, CallEvent
from atlas.loop import TurnResult, run_turn
from atlas.messages import Usage
from atlas.ui.approval import TerminalApprover
from atlas.ui.render import counted, footer, header, make_console
from atlas.ui.safe import clean_line
from atlas.ui.turn_view import TurnView

HISTORY_FILE = "chat_history"
COMMANDS: dict[str, str] = {
    "/help": "show these commands",
    "/tools": "the tools the model may call now",
    "/log": "the calls of this session",
    "/cost": "tokens and cost of this session",
    "/read-only": "on|off: offer side-effect tools or not",
    "/clear": "forget the conversation so far",
    "/exit": "leave (Ctrl-D works too)",
}


@dataclass(frozen=True)
class ChatOptions:
    model: str | None = None
    api: str | None = None
    read_only: bool = False
    max_rounds: int = 5
    timeout_s: float = 5.0
    concurrency: int = 4


class ChatHistory(FileHistory):
    """The prompt's history file in the state folder; one that cannot be used costs only the history."""

    def __init__(self, path: Path, notices: Console) -> None:
        super().__init__(str(path))
        self.path = path
        self.notices = notices
        self.usable = True

    def check(self) -> None:
        """Say now, before the first prompt, when the file can be neither read nor appended to."""
        try:
            with self.path.open("ab"), self.path.open("rb"):
                pass
        except OSError as exc:
            self._give_up(exc)

    def load_history_strings(self) -> Iterable[str]:
        if not self.usable:
            return []
        try:
            return list(super().load_history_strings())
        except OSError as exc:
            self._give_up(exc)
            return []

    def store_string(self, string: str) -> None:
        if not self.usable:
            return
        try:
            super().store_string(string)
        except OSError as exc:
            self._give_up(exc)

    def _give_up(self, exc: OSError) -> None:
        if self.usable:
            self.usable = False
            why = f"{clean_line(self.path)} cannot be used ({clean_line(exc.strerror or exc)})"
            self.notices.print(Text(f"atlas: warning: the chat history {why}; this chat keeps none", style="yellow"))


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


@dataclass
class Chat:
    """The state of one chat: the conversation, the mode, and what it has cost so far."""

    runtime: Runtime
    options: ChatOptions
    console: Console
    notices: Console
    read_only: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0

    def __post_init__(self) -> None:
        self.view: TurnView | None = None
        self.earlier_sources: list[str] = []
        """Where untrusted text read in earlier turns came from: the model still reads it, until /clear."""
        self._approver = TerminalApprover(self.notices, pause=self._paused)
        self.executor = self.runtime.executor(
            read_only=self.read_only,
            timeout_s=self.options.timeout_s,
            concurrency=self.options.concurrency,
            approve=self._approve,
            on_event=self._on_event,
        )

    def _approve(self, request: ApprovalRequest) -> bool:
        """Ask, naming untrusted sources of earlier turns too: their text is in the conversation."""
        sources = [*self.earlier_sources, *(s for s in request.untrusted_sources if s not in self.earlier_sources)]
        return self._approver(dataclasses.replace(request, untrusted_sources=sources))

    def prompt_text(self) -> str:
        return "atlas (read-only)› " if self.read_only else "atlas› "

    # -- one question -------------------------------------------------------------------------

    def ask(self, question: str, loop: asyncio.AbstractEventLoop) -> None:
        self.turns += 1
        view = self.view = TurnView(self.console)
        coro = run_turn(
            question,
            self.history,
            model=self.runtime.model,
            executor=self.executor,
            session=self.runtime.session,
            turn=self.turns,
            max_rounds=self.options.max_rounds,
            on_text=view.on_text,
            on_round=view.on_round,
            price_in=self.runtime.settings.price_in,
            price_out=self.runtime.settings.price_out,
            call_log=self.runtime.call_log,
        )
        try:
            result = run_cancellable(coro, loop)
        except KeyboardInterrupt:
            view.abort(cancelled=True)
            self.console.print(Text("turn cancelled", style="yellow"))
            return
        except AtlasError as exc:
            view.abort(cancelled=False)
            self.notices.print(Text(error_line(exc), style="red"))
            return
        except Exception as exc:  # a bug in one turn must not end the conversation
            view.abort(cancelled=False)
            self.notices.print(Text(error_line(f"unexpected {type(exc).__name__}: {exc}"), style="red"))
            return
        finally:
            self.view = None
            self.earlier_sources += [s for s in self.executor.untrusted_sources if s not in self.earlier_sources]
        view.finish(result.answer)
        self._account(result)

    def _account(self, result: TurnResult) -> None:
        self.usage += result.usage
        self.cost_usd += result.cost_usd
        line = footer(
            rounds=result.rounds,
            calls=len(result.calls),
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
            cost_usd=result.cost_usd,
            usage_known=result.usage.known,
            seconds=result.ms / 1000,
        )
        line.append(f" · session ${self.cost_usd:.4f}", style="dim")
        self.console.print(line)

    def _on_event(self, event: CallEvent) -> None:
        if self.view is not None:
            self.view.on_event(event)

    def _paused(self) -> AbstractContextManager[None]:
        return self.view.paused() if self.view is not None else contextlib.nullcontext()

    # -- slash commands ------------------------------------------------------------------------

    def command(self, line: str) -> bool:
        """Run a slash command; False when the chat should end."""
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        if name == "/exit":
            return False
        if name == "/help":
            for command, meaning in COMMANDS.items():
                self.console.print(Text.assemble((f"  {command:<11}", "bold"), meaning))
        elif name == "/tools":
            from atlas.commands.tools import tools_table

            self.console.print(tools_table(self.executor.registry))
        elif name == "/log":
            self._show_log()
        elif name == "/cost":
            unreported = f" (and {counted(self.usage.unreported, 'request')} the server did not report)"
            self.console.print(
                f"{counted(self.turns, 'turn')} · {self.usage.input_tokens:,} → "
                f"{self.usage.output_tokens:,} tokens · ${self.cost_usd:.4f}" + ("" if self.usage.known else unreported)
            )
        elif name == "/read-only":
            self._set_read_only(rest)
        elif name == "/clear":
            self.history.clear()
            self.earlier_sources.clear()
            self.console.print("The conversation is cleared; the next question starts afresh.")
        else:
            self.console.print(Text(f"unknown command {line.split()[0]!r}: try /help", style="yellow"))
        return True

    def _set_read_only(self, value: str) -> None:
        if value not in ("on", "off"):
            self.console.print(Text(f"read-only is {'on' if self.read_only else 'off'}; use /read-only on|off"))
            return
        self.read_only = value == "on"
        self.executor.registry = self.runtime.registry(read_only=self.read_only)
        state = "on: side-effect tools are not offered" if self.read_only else "off: side effects ask first"
        self.console.print(f"read-only {state}")

    def _show_log(self) -> None:
        from atlas.commands.log import COLUMNS, RIGHT, call_row
        from atlas.ui.render import data_table

        calls = self.runtime.call_log.calls(limit=50, session=self.runtime.session)
        if not calls:
            self.console.print("No calls in this session yet.", style="dim")
            return
        self.console.print(data_table(COLUMNS, [call_row(call) for call in calls], right=RIGHT))


def run_chat(options: ChatOptions) -> None:
    """The REPL until Ctrl-D or /exit."""
    runtime = open_runtime(options.model, options.api)
    console, notices = make_console(), make_console(stderr=True)
    home = runtime.settings.home
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the state folder {home}: {exc}") from None
    chat = Chat(runtime, options, console, notices, read_only=options.read_only)
    read_line = _terminal_reader(home, chat, notices) if sys.stdin.isatty() else _piped_reader(chat)
    console.print(header(runtime.model.name, read_only=chat.read_only))
    console.print(Text(f"session {runtime.session} · /help for commands · Ctrl-D to leave", style="dim"))
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                line = read_line(loop)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if not chat.command(line):
                    break
                continue
            chat.ask(line, loop)
    finally:
        close_loop(loop)
    console.print(Text(f"session {runtime.session}: {counted(chat.turns, 'turn')}, ${chat.cost_usd:.4f}", style="dim"))


def _terminal_reader(home: Path, chat: Chat, notices: Console) -> Callable[[asyncio.AbstractEventLoop], str]:
    """The prompt: history in the state folder, Ctrl-R search, suggestions, slash completion."""
    history = ChatHistory(home / HISTORY_FILE, notices)
    history.check()
    session: PromptSession[str] = PromptSession(
        history=history,
        auto_suggest=AutoSuggestFromHistory(),
        completer=SlashCompleter(),
        complete_while_typing=True,
    )

    def read_line(loop: asyncio.AbstractEventLoop) -> str:
        return loop.run_until_complete(session.prompt_async(chat.prompt_text()))

    return read_line


def _piped_reader(chat: Chat) -> Callable[[asyncio.AbstractEventLoop], str]:
    """Questions from a pipe or a file, one a line: no prompt, no line editing."""

    def read_line(loop: asyncio.AbstractEventLoop) -> str:
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            raise EOFError from None  # nobody types into a pipe: Ctrl-C ends the chat
        if not line:
            raise EOFError
        # Echoed after the prompt, so the transcript reads like the conversation it was.
        chat.console.print(Text(chat.prompt_text() + clean_line(line.rstrip("\n"))))
        return line

    return read_line
