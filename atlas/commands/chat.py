"""`atlas chat`: a REPL over the same loop, with the conversation kept across turns.

One event loop serves the prompt and the turns. A turn runs as a task that Ctrl-C cancels (its
rows show `cancelled`, the conversation stays valid, the prompt comes back); Ctrl-C at the
prompt clears the line; Ctrl-D, `/exit` or `/quit` leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from atlas.commands import error_line
from atlas.conversation import chat_memory
from atlas.conversation.chat_memory import SavedChat
from atlas.conversation.loop import TurnResult, TurnSettings
from atlas.foundation.errors import AtlasError, ConfigError
from atlas.foundation.notices import warning_line
from atlas.foundation.sanitize import clean_line
from atlas.protocol.events import ApprovalRequest, SessionEvent
from atlas.protocol.messages import Usage
from atlas.runtime.runner import close_loop
from atlas.runtime.session import Session, SessionOptions, open_session, resolve
from atlas.ui.approval import TerminalApprover
from atlas.ui.prompt import COMMANDS, piped_reader, terminal_reader
from atlas.ui.render import make_console
from atlas.ui.status_lines import counted, footer, header
from atlas.ui.turn_view import TurnView


@dataclass(frozen=True, kw_only=True)
class ChatOptions(SessionOptions):
    resume: bool = False


@dataclass
class Chat:
    """The state of one chat: the conversation, the mode, and what it has cost so far."""

    session: Session
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
        self._keep_failed = False
        self.earlier_sources: list[str] = []
        """Where untrusted text read in earlier turns came from: the model still reads it, until /clear."""
        self._approver = TerminalApprover(self.notices, pause=self._paused)
        # Every turn's events on the session's one channel, shown by the view of the turn they belong to.
        self.session.attach(
            self._to_view, approve=self._approve, approve_batch=self._approve_batch, read_only=self.read_only
        )

    def _approve(self, request: ApprovalRequest) -> bool:
        """Ask, naming untrusted sources of earlier turns too: their text is in the conversation."""
        return self._approver(self._with_earlier_sources(request))

    def _approve_batch(self, requests: Sequence[ApprovalRequest]) -> set[str]:
        return self._approver.decide([self._with_earlier_sources(request) for request in requests])

    def _with_earlier_sources(self, request: ApprovalRequest) -> ApprovalRequest:
        sources = [*self.earlier_sources, *(s for s in request.untrusted_sources if s not in self.earlier_sources)]
        return dataclasses.replace(request, untrusted_sources=sources)

    def prompt_text(self) -> str:
        return "atlas (read-only)› " if self.read_only else "atlas› "

    # -- one question -------------------------------------------------------------------------

    def answer(self, question: str, loop: asyncio.AbstractEventLoop) -> None:
        """Answer one question of the chat, its rows live; Ctrl-C cancels it, the chat goes on."""
        self.turns += 1
        view = self.view = TurnView(self.console)
        settings = TurnSettings(max_rounds=self.options.max_rounds)
        turn = self.session.start_turn(self.turns, settings)
        self._approver.resume()
        try:
            try:
                result = self.session.answer(question, self.history, settings, turn=turn, loop=loop)
            finally:
                # However the turn ended, no question of it may stay on the terminal and read keys
                # meant for the prompt: the reader is woken and has let go before the prompt returns.
                self._approver.withdraw()
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
            self.earlier_sources += [s for s in turn.untrusted_sources if s not in self.earlier_sources]
            self._keep()
        view.finish(result.answer)
        self._account(result)

    def _account(self, result: TurnResult) -> None:
        self.usage += result.usage
        self.cost_usd += result.cost_usd
        line = footer(result, result.ms / 1000)
        if self.cost_usd or self.usage.input_tokens or self.usage.output_tokens:
            line.append(f" · session ${self.cost_usd:.4f}", style="dim")
        self.console.print(line)

    def _keep(self) -> None:
        """Keep the conversation for `atlas chat --continue`; a state folder that refuses costs only that."""
        saved = SavedChat(self.session.id, self.session.model.name, self.history, self.earlier_sources)
        try:
            chat_memory.save(self.session.settings.home, saved)
        except OSError as exc:
            if not self._keep_failed:
                self._keep_failed = True
                self.notices.print(Text(warning_line(f"the conversation is not kept for --continue: {exc}")))

    def resume(self, saved: SavedChat) -> None:
        """Take up a kept conversation: its turns, and the untrusted sources they read."""
        self.history[:] = saved.history
        self.earlier_sources = list(saved.untrusted_sources)
        if self.options.model is None and saved.model != self.session.model.name:
            self.switch_model(saved.model)
        self.console.print(
            Text(f"continuing session {saved.session}: {counted(saved.turns, 'earlier turn')}", style="dim")
        )

    def switch_model(self, name: str) -> None:
        """`/model NAME`: the next question goes to NAME; a name that cannot be used changes nothing."""
        try:
            model = resolve(name, self.session.settings.api)
        except AtlasError as exc:
            self.notices.print(Text(error_line(exc), style="red"))
            return
        self.session.use_model(model)
        self.console.print(
            header(
                model.name,
                read_only=self.read_only,
                dataset=self.session.project_name,
                rules=self.session.rule_count,
            )
        )

    def _to_view(self, event: SessionEvent) -> None:
        view = self.view
        if view is not None:
            view(event)

    def _paused(self) -> AbstractContextManager[None]:
        return self.view.paused() if self.view is not None else contextlib.nullcontext()

    # -- slash commands ------------------------------------------------------------------------

    def command(self, line: str) -> bool:
        """Run a slash command; False when the chat should end."""
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        if name in {"/exit", "/quit"}:  # `/quit`, as other REPLs spell it
            return False
        if name == "/help":
            for command, meaning in COMMANDS.items():
                self.console.print(Text.assemble((f"  {command:<11}", "bold"), meaning))
        elif name == "/tools":
            from atlas.commands.tools import tools_table

            self.console.print(tools_table(self.session.executor.registry))
        elif name == "/log":
            self._show_log()
        elif name == "/cost":
            unreported = f" (and {counted(self.usage.unreported, 'request')} the server did not report)"
            self.console.print(
                f"{counted(self.turns, 'turn')} · {self.usage.input_tokens:,} → "
                f"{self.usage.output_tokens:,} tokens · ${self.cost_usd:.4f}" + ("" if self.usage.known else unreported)
            )
        elif name == "/model":
            if rest:
                self.switch_model(rest)
            else:
                self.console.print(
                    f"model {clean_line(self.session.model.name)}; /model NAME switches (offline, replay:PATH, ...)"
                )
        elif name == "/read-only":
            self._set_read_only(rest)
        elif name == "/clear":
            self.history.clear()
            self.earlier_sources.clear()
            self.session.executor.cache.invalidate(None)  # a new conversation reads afresh
            self.console.print("The conversation is cleared; the next question starts afresh.")
        else:
            self.console.print(Text(f"unknown command {line.split()[0]!r}: try /help", style="yellow"))
        return True

    def _set_read_only(self, value: str) -> None:
        if value not in ("on", "off"):
            self.console.print(Text(f"read-only is {'on' if self.read_only else 'off'}; use /read-only on|off"))
            return
        self.read_only = value == "on"
        self.session.set_read_only(self.read_only)
        state = "on: side-effect tools are not offered" if self.read_only else "off: side effects ask first"
        self.console.print(f"read-only {state}")

    def _show_log(self) -> None:
        from atlas.commands.log import call_table

        calls = self.session.call_log.calls(limit=50, session=self.session.id)
        if not calls:
            self.console.print("No calls in this session yet.", style="dim")
            return
        self.console.print(call_table(self.console, calls))


def _resume(chat: Chat, home: Path) -> None:
    try:
        saved = chat_memory.load(home)
    except ValueError as exc:
        chat.notices.print(Text(warning_line(f"{exc}; starting afresh")))
        return
    if saved is None or not saved.history:
        chat.console.print(Text("No earlier conversation to continue: starting afresh.", style="dim"))
        return
    chat.resume(saved)


def run_chat(options: ChatOptions) -> None:
    """The REPL until Ctrl-D, /exit or /quit."""
    session = open_session(options)
    console, notices = make_console(), make_console(stderr=True)
    home = session.settings.home
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the state folder {home}: {exc}") from None
    chat = Chat(session, options, console, notices, read_only=options.read_only)
    if options.resume:
        _resume(chat, home)
    read_line = (
        terminal_reader(home, chat.prompt_text, notices)
        if sys.stdin is not None and sys.stdin.isatty()
        else piped_reader(console, chat.prompt_text)
    )
    console.print(
        header(
            session.model.name,
            read_only=chat.read_only,
            dataset=session.project_name,
            rules=session.rule_count,
        )
    )
    console.print(Text(f"session {session.id} · /help for commands · Ctrl-D to leave", style="dim"))
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
            chat.answer(line, loop)
    finally:
        close_loop(loop)
        session.close()
    console.print(Text(f"session {session.id}: {counted(chat.turns, 'turn')}, ${chat.cost_usd:.4f}", style="dim"))
